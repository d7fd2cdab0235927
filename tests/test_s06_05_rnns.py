"""Section 6.5 (RNNs): the chapter's numbers reproduced by the notebook, computed through mlsysim.

Source: shared/seeds/chapter06_network_architectures.txt (line numbers "L…") and its digest
(shared/seeds/notes/chapter06_digest_primary_edition.md, claim rows "#…"). Every expected value is
the chapter's number; the computation goes through mlsysim's layers, hardware registry or engine.
"""

from __future__ import annotations

import pytest

import mlsysim.layers as L
from mlsysim import Engine, Hardware
from mlsysim import gradients as G
from mlsysim.labs.components import fmt_bytes
from mlsysim.labs.parts import s06_05_rnns as lab


def _card(view, label_start: str):
    return next(c for c in view.cards if c.label.startswith(label_start))


# ---- Part B: cost per step ---------------------------------------------------------------------


def test_vanilla_step_is_29184_macs():
    """#63 (L697, L723, L807, L1789): d = 128, d_in = 100 gives 16,384 + 12,800 = 29,184 MACs per
    step (weights only). The two products are the recurrent and input GEMVs."""
    cell = L.RNN(input_size=100, hidden_size=128, seq_len=1, bias=False)
    recurrent = L.Dense(in_features=128, out_features=128, bias=False).macs()
    inp = L.Dense(in_features=100, out_features=128, bias=False).macs()
    assert (recurrent, inp) == (16_384, 12_800)
    assert cell.macs() == recurrent + inp == 29_184
    assert cell.params == 29_184  # bias-free: the chapter counts weights only (Table 7)
    view = lab.part_b(128, 100, False)
    assert _card(view, "Vanilla MACs").value == "29,184"
    assert "29,184 MACs" in view.summary
    # PRED_B asks what an LSTM of the same sizes costs (it was the arithmetic above, with the
    # formula in the right option's label): 4 gates, each the vanilla step's two products
    lstm = L.LSTM(input_size=100, hidden_size=128, seq_len=1, bias=False).macs()
    assert lstm == 4 * 29_184 == 116_736 and lab.PRED_B.answer == "four"
    assert "116,736" in lab.PRED_B.feedback["four"] and "29,184" in lab.PRED_B.feedback["four"]
    assert lab.B_HIDDEN.value == 128 and lab.B_D_IN.value == 100 and lab.B_BIAS.value is False


@pytest.mark.parametrize("bias", [False, True])
def test_lstm_four_gru_three_times_the_vanilla_cell(bias):
    """#64 (L707): an LSTM step is four affine transforms (4x weights, 4x MACs, 2x state); a GRU
    three (two gates plus a candidate)."""
    kw = dict(input_size=100, hidden_size=128, seq_len=1, bias=bias)
    rnn, gru, lstm = L.RNN(**kw), L.GRU(**kw), L.LSTM(**kw)
    assert lstm.macs() == 4 * rnn.macs() and lstm.params == 4 * rnn.params
    assert gru.macs() == 3 * rnn.macs() and gru.params == 3 * rnn.params
    assert lstm.state_elements == 2 * rnn.state_elements
    view = lab.part_b(128, 100, bias)
    assert _card(view, "LSTM MACs").value == f"{4 * 29_184:,}"
    assert _card(view, "GRU MACs").value == f"{3 * 29_184:,}"
    # gates add work per step, never steps
    assert _card(view, "Serial steps").value == "1,000 / 1,000 / 1,000"


# ---- Part A: the serial chain ------------------------------------------------------------------


def test_serial_chain_is_s_ordered_steps_and_latency_is_linear():
    """#65 (L765): S = 1,000 means 1,000 ordered updates; each step launches kernels (L669), so the
    engine's latency grows by the same amount for every added step."""
    assert L.RNN(input_size=512, hidden_size=512, seq_len=1000).serial_steps == 1000
    dev = lab.accelerator(10)
    lat = [
        Engine.solve(L.RNN(input_size=512, hidden_size=512, seq_len=s), dev).latency_s
        for s in (1000, 2000, 3000)
    ]
    assert lat[2] - lat[1] == pytest.approx(lat[1] - lat[0], rel=1e-9)
    layer = L.RNN(input_size=512, hidden_size=512, seq_len=1000)
    assert layer.kernels == 1 + 2 * 1000


def test_faster_arithmetic_shortens_steps_not_the_chain():
    """Self-check (L794): 10 -> 100 TFLOP/s shortens each step but leaves the 1,000 ordered updates.
    At batch 1 the latency barely moves (the launches set the floor); at batch 256 it moves ~4x,
    never the full 10x."""
    layer = L.RNN(input_size=512, hidden_size=512, seq_len=1000)
    slow, fast = lab.accelerator(10), lab.accelerator(100)
    assert (
        slow.compute.peak("fp16").m_as("TFLOP/s") == 10
        and fast.compute.peak("fp16").m_as("TFLOP/s") == 100
    )
    p10, p100 = Engine.solve(layer, slow), Engine.solve(layer, fast)
    assert p100.latency_s < p10.latency_s  # each step is shorter...
    assert p10.latency_s / p100.latency_s < 1.05  # ...but the chain barely moves
    assert p10.latency_dispatch_s == p100.latency_dispatch_s == pytest.approx(2001 * 5e-6)
    b10, b100 = Engine.solve(layer, slow, batch_size=256), Engine.solve(layer, fast, batch_size=256)
    assert 3 < b10.latency_s / b100.latency_s < 10
    view = lab.part_a(1000, 1, "10")
    assert _card(view, "Serial steps").value == "1,000"
    assert _card(view, "10× peak buys").value == "1.01×"
    assert lab.PRED_A.answer == "steps"


# ---- Part C: state vs stored context -----------------------------------------------------------


def test_512d_fp32_state_is_2kb_and_flat_in_s():
    """#62, #66 (L669, L767, L1767): a 512-d FP32 state is 2 KB (2,048 B = 2 KiB) whether the stream
    is 10 or 10,000 tokens."""
    short = L.RNN(input_size=512, hidden_size=512, seq_len=10)
    long = L.RNN(input_size=512, hidden_size=512, seq_len=10_000)
    assert short.state_bytes(1, "fp32") == long.state_bytes(1, "fp32") == 2_048
    view = lab.part_c(512, 10_000, "rnn", "H100")
    assert _card(view, "Inference state").value == "2.0 KB"


def test_bptt_memory_is_o_s_d():
    """L701, self-check MCQ (L787): inference O(d), BPTT O(S d): doubling S doubles the retained
    state, doubling d doubles it too."""

    def bptt(s, d):
        return L.RNN(input_size=d, hidden_size=d, seq_len=s).bptt_bytes(1, "fp32")

    assert bptt(1000, 512) == 1000 * 2_048
    assert bptt(2000, 512) == 2 * bptt(1000, 512)
    assert bptt(1000, 1024) == 2 * bptt(1000, 512)
    view = lab.part_c(512, 1000, "rnn", "H100")
    assert _card(view, "BPTT").value == "2.0 MB"


def test_rnns_are_not_obsolete_on_a_microcontroller():
    """Self-check T/F (L795, answer L1765): False. On the Arduino (256 KiB SRAM, from the registry)
    a 128-wide FP32 RNN keeps 512 B of state forever; an attention layer of the same width stores
    1 KiB of keys and values per token and fills the SRAM after 256 tokens."""
    dev = Hardware.get("ArduinoNano33BLESense")
    sram = dev.memory.sram.m_as("B")
    assert sram == 256 * 1024
    kv_per_token = L.MultiHeadAttention(d_model=128, n_heads=2, seq_len=1).kv_cache_bytes_per_token(
        "fp32"
    )
    assert kv_per_token == 1024
    assert sram // kv_per_token == 256
    view = lab.part_c(128, 1000, "rnn", "ArduinoNano33BLESense")
    assert _card(view, "Inference state").value == "512 B"
    assert _card(view, "Tokens of KV").value == "256"
    # PRED_C asks what each keeps over the stream (it was the chapter's true/false, recalled)
    assert lab.PRED_C.answer == "flat" and lab.PRED_C.asks == "behaviour"
    fb = lab.PRED_C.feedback["flat"]
    assert "512 B" in fb and "1 KB per token" in fb and "after 256 tokens" in fb
    assert fmt_bytes(kv_per_token) == "1.0 KB"


def test_gpu_on_chip_sizes_are_named_and_sourced():
    """The registry has no GPU cache sizes; the notebook uses whitepaper constants (H100: 50 MB L2,
    228 KB shared memory per SM; A100: 40 MB, 164 KB), in binary units as NVIDIA quotes them."""
    assert lab.on_chip("H100")["weights"] == ("L2 cache", 50 * 2**20)
    assert lab.on_chip("A100")["state"] == ("shared memory per SM", 164 * 2**10)
    assert lab.on_chip("STM32H743")["weights"][1] == Hardware.get("STM32H743").memory.flash.m_as(
        "B"
    )


# ---- Part D: the crossover against attention ---------------------------------------------------


def test_attention_beats_the_chain_at_4096_tokens_on_h100():
    """Self-check contrast (L794) and footnote 19: attention costs more arithmetic but parallelizes.
    At 4,096 tokens, d = 512, batch 1 on the H100: 10x the FLOPs, ~110x less time."""
    rnn = L.RNN(input_size=512, hidden_size=512, seq_len=4096)
    mha = L.MultiHeadAttention(d_model=512, n_heads=8, seq_len=4096)
    assert mha.flops() / rnn.flops() == pytest.approx(10.0, rel=2e-3)
    pr, pa = Engine.solve(rnn, "H100"), Engine.solve(mha, "H100")
    assert pr.bottleneck == "Dispatch"
    assert pr.latency_s == pytest.approx(41.6e-3, rel=1e-2)
    assert 100 < pr.latency_s / pa.latency_s < 125
    assert lab.PRED_D.answer == "attn_far"
    fb = lab.PRED_D.feedback["attn_far"]
    assert f"{rnn.kernels:,} launches" in fb and rnn.kernels == 8_193
    assert f"{pr.latency_s * 1e3:.1f} ms" in fb and f"{pa.latency_s * 1e3:.2f} ms" in fb
    assert f"about {pr.latency_s / pa.latency_s:.0f}×" in fb
    for us, text in ((2, "48× at 2 µs"), (10, "200× at 10 µs")):
        r, a, _, _ = lab._pair("H100", 512, "mha", False, 4096, str(us))
        assert f"{r.latency_s / a.latency_s:.0f}× at {us} µs" == text and text in fb


def test_launch_cost_assumption_is_stated_and_checked_at_both_ends():
    """Issue 32: PRED_A and PRED_D rest on the engine's 5 us per launch (the H100's planning value).
    Both stems state it, and the answers hold at 2 and 10 us (tests/test_answer_keys.py solves
    them there too). The old PRED_A had an option no student picks ('an RNN does no matrix
    arithmetic'); every wrong option now names a misconception."""
    assert Hardware.get("H100").dispatch_tax.m_as("us") == 5
    for q in (lab.PRED_A, lab.PRED_D, lab.TRANSFER_A, lab.TRANSFER_D):
        assert "5 µs" in q.question
    assert not any("no matrix arithmetic" in o for o in lab.PRED_A.options.values())
    fb = lab.PRED_A.feedback["steps"]
    for launch, text in (("device", "1.005×"), ("2", "1.01× at 2 µs"), ("10", "1.003× at 10 µs")):
        for s in (1000, 10_000):
            _, p10 = lab._rnn_profile(s, 1, "10", launch)
            _, p100 = lab._rnn_profile(s, 1, "100", launch)
            digits = 2 if launch == "2" else 3
            assert f"{p10.latency_s / p100.latency_s:.{digits}f}×" == text.split()[0]
        assert text in fb
    _, p = lab._rnn_profile(1000, 1, "10")
    assert round(p.latency_dispatch_s / p.latency_s, 2) == 0.98 and "about 98%" in fb


@pytest.mark.parametrize(
    ("device", "width", "rival", "flash"),
    [
        ("H100", 512, "mha", False),
        ("JetsonOrinNX", 512, "block", True),
        ("iPhone15Pro", 1024, "mha", False),
    ],
)
def test_crossover_is_the_first_length_where_attention_loses(device, width, rival, flash):
    """The search's answer is a true boundary of the engine's latencies: attention is faster one
    token earlier and no faster at the crossover."""
    s = lab.crossover(device, width, rival, flash)
    assert lab.S_MIN < s < lab.S_MAX
    r0, a0, _, _ = lab._pair(device, width, rival, flash, s - 1)
    r1, a1, _, _ = lab._pair(device, width, rival, flash, s)
    assert a0.latency_s < r0.latency_s and a1.latency_s >= r1.latency_s


def test_crossover_extremes():
    """H100 default: the lines cross past 500K tokens, where the materialized scores no longer fit.
    On the STM32H743 the RNN is faster at every length (launches are cheap next to arithmetic)."""
    s = lab.crossover("H100", 512, "mha", False)
    assert 500_000 < s < 560_000
    assert not lab._pair("H100", 512, "mha", False, s)[1].feasible
    assert lab.crossover("STM32H743", 512, "mha", False) == lab.S_MIN
    assert lab.crossover("H100", 64, "mha", True) is None
    assert _card(lab.part_d("STM32H743", 512, "mha", False), "Crossover").value == "none"


def test_transfers_are_what_the_instruments_show():
    """Each transfer's correct answer and the numbers of its feedback, recomputed through the core."""
    # A: d = 512 -> 2,048 at batch 1 on the 10 TFLOP/s part (5 us launches)
    acc = lab.accelerator(10)
    t = {
        d: Engine.solve(
            L.RNN(input_size=d, hidden_size=d, seq_len=1000), acc, precision="fp16", efficiency=0.5
        )
        for d in (512, 2048, 3456, 3584)
    }
    assert [f"{t[d].latency_s * 1e3:.2f} ms" for d in (512, 2048)] == ["10.21 ms", "13.36 ms"]
    assert (
        t[2048].bottleneck == "Dispatch" and round(t[2048].latency_s / t[512].latency_s, 1) == 1.3
    )
    assert t[3456].bottleneck == "Dispatch" and t[3584].bottleneck == "Compute"  # "d ≈ 3,500"
    assert "10.21 ms becomes 13.36 ms" in lab.TRANSFER_A.feedback["little"]
    assert "d ≈ 3,500" in lab.TRANSFER_A.feedback["little"]
    assert lab.TRANSFER_A.answer == "little"
    # B: a bidirectional RNN doubles the MACs, not the chain, and cannot stream
    one = L.RNN(input_size=100, hidden_size=128, seq_len=1, bias=False)
    two = L.RNN(input_size=100, hidden_size=128, seq_len=1, bias=False, bidirectional=True)
    assert (one.macs(), two.macs()) == (29_184, 58_368) and one.serial_steps == two.serial_steps
    assert "58,368" in lab.TRANSFER_B.feedback["both"] and lab.TRANSFER_B.answer == "both"
    with pytest.raises(ValueError, match="whole sequence"):
        L.RNN(input_size=100, hidden_size=128, seq_len=10, bidirectional=True, streaming=True)
    # C: truncated BPTT keeps the window's states: 100 x 512 B, not 100,000 x 512 B
    window = L.RNN(input_size=128, hidden_size=128, seq_len=100).bptt_bytes(1, "fp32")
    stream = L.RNN(input_size=128, hidden_size=128, seq_len=100_000).bptt_bytes(1, "fp32")
    assert (fmt_bytes(window), fmt_bytes(stream)) == ("51.2 KB", "51.2 MB")
    sram = Hardware.get("ArduinoNano33BLESense").memory.sram.m_as("B")
    assert window < sram < stream
    for k in lab.TRANSFER_C.options:
        assert "51.2 KB" in lab.TRANSFER_C.feedback[k]
    assert lab.TRANSFER_C.answer == "window"
    # D: batch 64 on the H100: the RNN's launches serve the batch, attention's work grows 64x
    rnn = L.RNN(input_size=512, hidden_size=512, seq_len=4096)
    mha = L.MultiHeadAttention(d_model=512, n_heads=8, seq_len=4096)
    ms = {
        (who, b): Engine.solve(m, "H100", batch_size=b).latency_s * 1e3
        for who, m in (("rnn", rnn), ("mha", mha))
        for b in (1, 64)
    }
    fb = lab.TRANSFER_D.feedback["shrink"]
    assert f"{ms['rnn', 1]:.1f} ms becomes {ms['rnn', 64]:.1f} ms" in fb
    assert f"{ms['mha', 1]:.2f} ms becomes {ms['mha', 64]:.1f} ms" in fb
    assert f"to {ms['rnn', 64] / ms['mha', 64]:.1f}×" in fb
    r2 = Engine.solve(rnn, lab._with_launch(Hardware.get("H100"), "2"), batch_size=64)
    a2 = Engine.solve(mha, lab._with_launch(Hardware.get("H100"), "2"), batch_size=64)
    assert r2.latency_s < a2.latency_s and "the RNN even wins" in fb  # at 2 us per launch
    assert lab.TRANSFER_D.answer == "shrink" and lab.TRANSFER_D.kind == "transfer"


def test_transfers_ask_beyond_the_controls():
    """Issue 32: each transfer's case is one its part cannot set. The old ones could: Part A's
    batch slider reached 64, Part B's width slider 256, Part C's 1,024 on the Arduino, Part D's
    device list the STM32H743 and Part E's toggle the additive path."""
    import inspect

    params = {x: set(inspect.signature(lab.__dict__[f"part_{x}"]).parameters) for x in "abcde"}
    assert "2,048" in lab.TRANSFER_A.question and "width" not in params["a"]
    assert lab.A_WIDTH == 512
    assert "bidirectional" in lab.TRANSFER_B.question and not any(
        "direction" in p for p in params["b"]
    )
    assert "truncated" in lab.TRANSFER_C.question and params["c"] == {
        "hidden",
        "seq",
        "cell",
        "device",
    }
    assert "batch 64" in lab.TRANSFER_D.question and "batch" not in params["d"]
    assert "64 units" in lab.TRANSFER_E.question and "width" not in params["e"]
    assert lab.E_WIDTH == 16


# ---- Part E: BPTT's Jacobian product diag(f') W_hh (issue 14) ---------------------------------


def _explicit_bptt(steps, act, gain, width=16, seed=0):
    """The chapter's product built as explicit matrices with numpy: dL/dh_0 = g^T J_S ... J_1,
    J_t = diag(f'(z_t)) W_hh, from the same seeded W_hh, inputs and output gradient."""
    import random

    np = pytest.importorskip("numpy")
    W = gain * np.asarray(G._orthogonal(width, seed, 0))
    rng = random.Random(f"mlsysim-bptt-{seed}-{width}")
    us = [np.asarray([rng.gauss(0.0, 1.0) for _ in range(width)]) for _ in range(steps)]
    f = {"tanh": np.tanh, "linear": lambda z: z}[act]
    df = {"tanh": lambda z: 1 - np.tanh(z) ** 2, "linear": np.ones_like}[act]
    h = np.zeros(width)
    jac = np.eye(width)
    for u in us:
        z = W @ h + u
        jac = (np.diag(df(z)) @ W) @ jac  # dh_t/dh_0
        h = f(z)
    g = np.asarray(G._unit_vector(width, seed, "bptt-gradient"))
    return float(np.linalg.norm(g @ jac))


@pytest.mark.parametrize(("act", "gain"), [("tanh", 1.0), ("tanh", 1.5), ("linear", 0.9)])
def test_bptt_matches_the_explicit_jacobian_product(act, gain):
    flow = G.bptt(30, 16, act, gain)
    assert flow.first == pytest.approx(_explicit_bptt(30, act, gain), rel=1e-9)


def test_bptt_linear_gain_is_gain_to_the_steps():
    """Orthogonal W_hh x 0.9, linear: every step scales the gradient by exactly 0.9 (0.9^50 = 0.0052,
    the chapter's 6.4 number, now through time)."""
    assert G.bptt(50, 16, "linear", 0.9).first == pytest.approx(0.9**50, rel=1e-9)


def test_part_e_default_vanishes_and_the_additive_path_survives():
    v = lab.part_e(
        lab.E_STEPS.value, lab.E_ACTIVATION.value, lab.E_GAIN.value, lab.E_ADDITIVE.value
    )
    cards = {c.label: c for c in v.cards}
    plain = G.bptt(100, 16, "tanh", 1.0)
    assert plain.first < 1e-15 and G.flow_verdict(plain.first) == "vanishes"
    assert 0.4 < plain.mean_derivative < 0.7  # the "mean |f′| of 0.54" of the feedback
    # the feedback's per-step factor and its 100th power are the card's, not 0.5^100 (8e-31)
    assert (
        round(plain.per_step_factor, 2) == 0.62 and "0.62¹⁰⁰ ≈ 10⁻²¹" in lab.PRED_E.feedback["all"]
    )
    assert f"{plain.first:.0e}" == "1e-21" and "0.62¹⁰⁰ ≈ 10⁻²¹" in lab.PRED_E.feedback["vanish"]
    assert "0.5^100" not in " ".join(lab.PRED_E.feedback.values())
    assert cards["Gradient at h_0"].note.startswith("it vanishes")
    assert lab.PRED_E.answer == "vanish"
    path = G.bptt(100, 16, "tanh", 1.0, additive=True)
    assert G.flow_verdict(path.first) == "survives"
    assert lab.TRANSFER_E.answer == "vanish" and lab.TRANSFER_E.kind == "transfer"
    wide = G.bptt(100, 64, "tanh", 1.0)
    assert f"{wide.first:.0e}" == "1e-20" and round(wide.per_step_factor, 2) == 0.63
    fb = lab.TRANSFER_E.feedback["vanish"]
    assert "About 10⁻²⁰ at 64 units, against 10⁻²¹ at 16" in fb
    assert "0.62 per step at 16 units, 0.63 at 64" in fb
    for bad in (0, 257, 2.5, True):
        with pytest.raises(ValueError, match="steps"):
            G.bptt(bad)


# ---- Issue 10: the launch-cost assumption as a control, and where each answer flips -------------


def test_part_a_no_launch_cost_makes_10x_peak_pay_at_batch_1():
    """PRED_A ('barely faster') rests on the memory term as much as on launches: at batch 1 even
    free launches leave 10x the peak under 1.5x (each step re-reads W_hh: 157 us of memory time
    against 210 us -> 21 us of compute). Checked by solving at 0 us directly."""
    _, p10 = lab._rnn_profile(1000, 1, "10", "0")
    _, p100 = lab._rnn_profile(1000, 1, "100", "0")
    assert p10.latency_dispatch_s == 0 and p10.latency_s / p100.latency_s < 1.5
    v = lab.part_a(1000, 1, "10")
    assert (
        next(c for c in v.cards if c.label.startswith("Launch cost where")).value
        == "no launch cost reaches it"
    )
    assert "Even with free launches" in v.summary


def test_part_a_flip_at_batch_64_by_bisection():
    lo, hi = 0.0, 100.0
    for _ in range(60):
        mid = (lo + hi) / 2
        x = (
            lab._rnn_profile(1000, 64, "10", str(mid))[1].latency_s
            / lab._rnn_profile(1000, 64, "100", str(mid))[1].latency_s
        )
        lo, hi = (mid, hi) if x > 1.5 else (lo, mid)
    card = next(
        c for c in lab.part_a(1000, 64, "10").cards if c.label.startswith("Launch cost where")
    )
    assert card.value == f"{lo:,.2f} µs"


def test_part_d_lead_depends_on_the_launch_cost():
    """PRED_D's 'well over 10x' holds at the H100's 5 us per kernel (about 110x); at 0 us attention leads by under 2x,
    and the 10x lead is reached at 0.34 us per kernel (checked against the engine at that cost)."""
    v = lab.part_d("H100", 512, "mha", False)
    card = next(c for c in v.cards if c.label.startswith("Launch cost where"))
    t = float(card.value.split()[0])
    r, a, _, _ = lab._pair("H100", 512, "mha", False, 4096, str(t))
    assert r.latency_s / a.latency_s == pytest.approx(10.0, rel=0.01)
    r0, a0, _, _ = lab._pair("H100", 512, "mha", False, 4096, "0")
    assert r0.latency_s / a0.latency_s < 2


def test_part_e_explains_saturation_only_for_saturating_activations():
    """The 'activations shrink toward zero, where f' is largest' sentence is about tanh (sigmoid's
    outputs sit near 0.5, not 0; for a linear unit f' = 1 everywhere and for ReLU f' is 0 or 1),
    so it is printed for tanh only."""
    why = "where f′ is largest"
    assert why in lab.part_e(100, "tanh", 1.0, False).summary
    for act in ("relu", "linear", "sigmoid"):
        assert why not in lab.part_e(100, act, 1.0, False).summary
    # PRED_E's answer names why the product shrinks: tanh' < 1 at active units, not "at most 1"
    assert "below 1 at every active unit" in lab.PRED_E.options["vanish"]


def test_pred_a_steps_feedback_matches_the_part_without_launches():
    """With launches at 0 us the 10 TFLOP/s part is compute-bound (209.72 us for 1,000 steps of
    2 x 512^2 MACs... at 10 TFLOP/s), the 100 TFLOP/s part memory-bound at 157.27 us (W_hh re-read
    every step): 10x the peak buys 1.33x, as PRED_A's feedback says."""
    slow = {c.label: c.value for c in lab.part_a(1000, 1, "10", "0").cards}
    fast = {c.label: c.value for c in lab.part_a(1000, 1, "100", "0").cards}
    assert slow["Latency"] == "209.72 µs" and fast["Latency"] == "157.27 µs"
    assert slow["10× peak buys"] == "1.33×"
    fb = lab.PRED_A.feedback["steps"]
    assert "(157 µs)" in fb and "only 1.33×" in fb


def test_part_d_on_a_microcontroller_names_each_models_misfit():
    """On the STM32 neither model fits at 4,096 tokens: one card says so, naming each model's
    overflow in the memory it overflows (activations in SRAM), taken from the engine; where the
    RNN leads there is no card for a lead the rival does not have."""
    v = lab.part_d("STM32H743", 512, "mha", False)
    r, a, _, _ = lab._pair("STM32H743", 512, "mha", False, lab.S_REF)
    card = next(c for c in v.cards if c.label.startswith("Fits at"))
    assert card.value == "neither" and card.status == "bad"
    assert (
        f"RNN (every token's input and output kept) {fmt_bytes(r.over.m_as('B'))} over its SRAM"
        in card.note
    )
    assert f"self-attention {fmt_bytes(a.over.m_as('B'))} over its SRAM" in card.note
    # and the flash the biases tip over (4.1 KB), named too
    assert f"{fmt_bytes(r.overflows['flash'])} over its flash;" in card.note
    assert r.latency_s < a.latency_s
    assert not any(c.label.startswith("Launch cost where") for c in v.cards)
    h = lab.part_d("H100", 512, "mha", False)
    assert not any(c.label.startswith("Fits at") for c in h.cards)
    assert any(c.label.startswith("Launch cost where") for c in h.cards)


def test_flash_overflow_on_the_stm32_is_the_biases():
    """At d = 512 on the STM32 the two 512 x 512 FP32 matrices are exactly its 2 MiB of flash and
    the biases tip the weights over it by 4.1 KB (the part's fit card names it)."""
    r, _, _, _ = lab._pair("STM32H743", 512, "mha", False, lab.S_REF)
    flash = Hardware.get("STM32H743").memory.flash.m_as("B")
    assert 2 * 512 * 512 * 4 == flash == 2 * 2**20
    over = r.weight_bytes - flash
    assert over == 2 * 512 * 4 and fmt_bytes(over) == "4.1 KB"  # the two bias vectors
    card = next(
        c for c in lab.part_d("STM32H743", 512, "mha", False).cards if c.label.startswith("Fits")
    )
    assert f"{fmt_bytes(over)} over its flash" in card.note


def test_part_e_says_when_6_4_cannot_reach_the_depth_it_compares():
    from mlsysim.labs.parts import s06_04_skip_norm

    assert lab.DEEP_NET_MAX_DEPTH == s06_04_skip_norm.A_DEPTH.stop
    note = lambda n: next(  # noqa: E731
        c.note for c in lab.part_e(n, "tanh", 1.0, False).cards if c.label.startswith("6.4's")
    )
    assert "slider stops at 64 layers" in note(100) and "slider" not in note(64)


def test_part_c_shows_a_state_space_models_fixed_state_at_lm_scale():
    """Row 72: Mamba revives recurrence for its fixed decode state. mamba-130m keeps 24 layers x
    1,536 channels x (4 conv taps + 16 state values) x 2 B = 1,474,560 B at any length; GPT-2 small
    (the same width, 768) caches 12 layers x 2 x 768 x 2 B = 36,864 B per token, equal at 40 tokens
    and larger from token 41."""
    ssm, per_token, after = lab.state_space_vs_kv()
    assert ssm == 24 * 1536 * (4 + 16) * 2 == 1_474_560
    assert per_token == 12 * 2 * 768 * 2 == 36_864
    assert after == 41 and 40 * per_token == ssm
    peek = " ".join(lab.part_c(128, 1000, "rnn", list(lab.C_DEVICES)[0]).peek)
    assert "decodes from 1.5 MB of state (FP16) at any S" in peek
    assert "36.9 MB at S = 1,000, and exceeds that state from token 41" in peek
