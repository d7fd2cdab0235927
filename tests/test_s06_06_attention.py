"""Section 6.6 (Attention): the chapter's numbers reproduced by the notebook, computed through
mlsysim, including Figure 14's edge (the physical 80 GiB of an "80 GB" part).

Source: shared/seeds/chapter06_network_architectures.txt (line numbers "L…") and its digest
(shared/seeds/notes/chapter06_digest_primary_edition.md, claim rows "#…", section 3b). Every
expected value is the chapter's number (or, where the chapter is wrong, the correct one); the
computation goes through mlsysim's layers, hardware registry or engine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import mlsysim.layers as L
from mlsysim import Q_, Engine, Hardware
from mlsysim.labs.components import fmt_bytes
from mlsysim.labs.parts import s06_06_attention as lab

GB = 10**9
NOTEBOOK = Path(__file__).resolve().parents[1] / "labs" / "s06_06_attention.py"


def _card(view, label_start: str):
    return next(c for c in view.cards if c.label.startswith(label_start))


def _scores(heads: int, seq: int) -> int:
    return L.Attention(d_model=heads * 64, n_heads=heads, seq_len=seq).score_bytes(1, "fp16")


# ---- Part A: one head ---------------------------------------------------------------------------


def test_score_gemm_512_by_64_is_16_8m_macs():
    """#73 (Listing 7, L882; self-check MCQ L968): S = 512, d_head = 64: QKᵀ is 512 x 512 x 64 =
    16,777,216 MACs per head, and PV as many again (the core counts both)."""
    qk, pv = lab.head_gemms(512, 64)
    assert qk.macs() == pv.macs() == 16_777_216
    head = L.Attention(d_model=64, n_heads=1, seq_len=512)
    assert head.macs() == qk.macs() + pv.macs()
    assert qk.macs() == head.score_elements * head.d_head
    view = lab.part_a(512, 64, "fp16")
    assert _card(view, "QKᵀ MACs").value == "16.8 M"
    assert _card(view, "Score scale").value == "1/8.00"
    # PRED_A asks which doubling grows what (it was the product 512 x 512 x 64 with every
    # option's arithmetic printed beside it)
    s2, d2 = (
        L.Attention(d_model=64, n_heads=1, seq_len=1024),
        L.Attention(d_model=128, n_heads=1, seq_len=512),
    )
    assert (s2.macs() / head.macs(), s2.score_bytes() / head.score_bytes()) == (4, 4)
    assert (d2.macs() / head.macs(), d2.score_bytes() / head.score_bytes()) == (2, 1)
    assert lab.PRED_A.answer == "s4"
    assert (lab.A_SEQ.value, lab.A_D_HEAD.value) == (512, 64)


def test_one_head_at_4096_tokens_is_33_6_mb():
    """#69 (Definition 6.5, L825): 4,096 tokens, FP16: 16.8M scores = 33.6 MB per head per layer."""
    head = L.Attention(d_model=64, n_heads=1, seq_len=4096)
    assert head.score_elements == 16_777_216
    assert head.score_bytes(1, "fp16") == 33_554_432
    assert _card(lab.part_a(4096, 64, "fp16"), "Score matrix").value == "33.6 MB"


# ---- Part B: doubling --------------------------------------------------------------------------


def test_self_check_4096_and_8192_tokens_12_heads():
    """#77, #78 (self-check L965, answer L1810): 12 heads, FP16: 201,326,592 scores = 402.7 MB per
    layer at 4,096 tokens; 1.61 GB at 8,192; 32 retained layers go from 12.9 GB to 51.5 GB."""
    att = L.Attention(d_model=768, n_heads=12, seq_len=4096)
    assert att.score_elements == 201_326_592
    assert att.score_bytes(1, "fp16") == 402_653_184
    assert round(_scores(12, 8192) / GB, 2) == 1.61
    assert round(32 * _scores(12, 4096) / GB, 1) == 12.9
    assert round(32 * _scores(12, 8192) / GB, 1) == 51.5
    view = lab.part_b(4096, 12, 32)
    assert _card(view, "Score matrix, one copy").value == "402.7 MB"
    assert _card(view, "32 layers").value == "12.9 GB"
    assert _card(view, "At 8,192").value == "1.61 GB"


def test_doubling_quadruples_scores_and_flops():
    """Checkpoint 6.4 (L949): doubling S quadruples the score interactions and a materialized score
    matrix alike."""
    a = L.Attention(d_model=768, n_heads=12, seq_len=4096)
    b = L.Attention(d_model=768, n_heads=12, seq_len=8192)
    assert b.score_bytes() == 4 * a.score_bytes()
    assert b.flops() == 4 * a.flops()
    # PRED_A asks this; PRED_B asks what more, narrower heads do at the same d_model
    wide, narrow = (L.Attention(d_model=768, n_heads=h, seq_len=4096) for h in (12, 24))
    assert narrow.score_bytes() == 2 * wide.score_bytes() and narrow.macs() == wide.macs()
    assert round(narrow.score_bytes(1, "fp16") / 1e6, 1) == 805.3
    assert lab.PRED_B.answer == "mem2" and "805.3 MB" in lab.PRED_B.feedback["mem2"]
    assert "402.7 MB" not in lab.PRED_B.question  # behaviour, not arithmetic on a given number
    assert lab.PRED_A.asks == lab.PRED_B.asks == "behaviour"


def test_transfer_b_inference_keeps_one_layers_scores():
    """TRANSFER_B (inference, 32 layers, 16,384 tokens): the engine's live peak of the 32-layer
    stack is one layer's: 6.4 GB of FP16 scores, 13.0 GB with logits and probabilities, against
    206 GB for 32 layers kept for a backward pass. (It asked for 4 heads at 12,288 tokens, which
    Part B's sliders reach: its '1.2 GB' was on a card.)"""
    layer = L.Attention(d_model=768, n_heads=12, seq_len=16_384)
    one = Engine.solve(layer, "H100", precision="fp16")
    stack = Engine.solve(L.Sequential(layers=(layer,) * 32), "H100", precision="fp16")
    assert stack.activation_bytes == one.activation_bytes
    fb = lab.TRANSFER_B.feedback["one"]
    assert fmt_bytes(layer.score_bytes(1, "fp16")) == "6.4 GB" and "6.4 GB" in fb
    assert fmt_bytes(one.activation_bytes) == "13.0 GB" and "13.0 GB" in fb
    assert f"{32 * layer.score_bytes(1, 'fp16') / 1e9:.0f} GB" == "206 GB" and "206 GB" in fb
    assert lab.TRANSFER_B.answer == "one"


def test_napkin_math_100k_tokens():
    """#74-#76 (Napkin Math 6.1, L930-L941): 100,000 tokens x 12 heads = 1.2e11 scores, 240 GB per
    layer in FP16, 7,680 GB for 32 retained layers."""
    att = L.Attention(d_model=768, n_heads=12, seq_len=100_000)
    assert att.score_elements == 120_000_000_000
    assert att.score_bytes(1, "fp16") == 240 * GB
    assert 32 * att.score_bytes(1, "fp16") == 7_680 * GB
    view = lab.part_b(4096, 12, 32)
    assert "240 GB" in view.summary and "7,680 GB" in view.peek[-1]


# ---- Part C: the longest context that fits ------------------------------------------------------


def test_largest_fitting_search():
    assert lab.largest_fitting(lambda s: s <= 1234) == 1234
    assert lab.largest_fitting(lambda s: s <= 1) == 1
    assert lab.largest_fitting(lambda s: False) == 0
    assert lab.largest_fitting(lambda s: s * s <= 10**12) == 10**6


def test_napkin_shape_fits_80_gb_up_to_57735_tokens():
    """Prediction C, from Napkin Math 6.1: 240 GB at 100,000 tokens, so an 80 GB device holds one
    12-head layer's FP16 scores up to sqrt(80/240) x 100,000 = 57,735 tokens (found by search)."""
    cap = Hardware.get("H100").memory.capacity.m_as("B")
    s = lab.longest_scores("napkin", cap)
    assert s == 57_735
    assert _scores(12, s) <= cap < _scores(12, s + 1)
    assert _card(lab.part_c("H100", "napkin", "scores"), "Longest context").value == "57,735 tokens"


def test_pred_c_asks_what_part_b_cannot_show():
    """Issue 32: PRED_C asked for the longest context whose scores fit 80 GB, which Part B's
    context slider (512..131,072 in steps of 512, a 'bad' card past 80 GB) finds in one sweep. It
    now asks what FlashAttention does to that edge: 13,020,833 tokens, beyond any context Part B
    can set, found by the engine's feasibility search."""
    cap = Hardware.get("H100").memory.capacity.m_as("B")
    flash = lab.longest_live("napkin", "H100", True)
    assert flash == 13_020_833 > lab.B_SEQ.stop
    assert flash / lab.longest_scores("napkin", cap) > 200
    assert 4 * 768 * 2 == 6_144  # Q, K, V and the output per token, FP16
    card = _card(lab.part_c("H100", "napkin", "scores"), "Same core, FlashAttention")
    assert card.value == "13,020,833 tokens" and "(18 min)" in card.note
    fb = lab.PRED_C.feedback["far"]
    assert "6,144 B per token" in fb and "about 18 minutes" in fb and "over 200×" in fb
    assert lab.PRED_C.answer == "far"


def test_transfer_c_batch_halves_the_context():
    cap = Hardware.get("H100").memory.capacity.m_as("B")
    four = lab.largest_fitting(
        lambda s: L.Attention(d_model=768, n_heads=12, seq_len=s).score_bytes(4) <= cap
    )
    assert four == 28_867 and "28,867 tokens against 57,735" in lab.TRANSFER_C.feedback["half"]
    assert lab.TRANSFER_C.answer == "half"


def test_flash_card_states_one_layer_batch_1_and_its_arithmetic_time():
    """Review item 18: 12 heads, d = 768: tiled live tensors Q, K, V, O = 4 x S x 768 x 2 B fit
    80e9 B up to S = 80e9 / 6,144 = 13,020,833 tokens. At that length the core still does
    4 x S^2 x d = 4 x 13,020,833^2 x 768 = 5.208e17 FLOP: at 989.5 TFLOP/s x 0.5 that is
    1,052.7 s, about 18 minutes of arithmetic for one layer at batch 1."""
    assert lab.longest_live("napkin", "H100", True) == 80 * 10**9 // (4 * 768 * 2) == 13_020_833
    card = _card(lab.part_c("H100", "napkin", "scores"), "Same core, FlashAttention")
    assert card.value == "13,020,833 tokens"
    t = Engine.solve(
        L.Attention(d_model=768, n_heads=12, seq_len=13_020_833, flash=True), "H100"
    ).latency_compute_s
    assert t == pytest.approx(4 * 13_020_833**2 * 768 / (989.5e12 * 0.5), rel=1e-9)
    assert "one layer, batch 1" in card.note and "1,053 s (18 min)" in card.note


def test_live_tensors_fit_less_and_flash_fits_far_more():
    """The engine's feasibility counts Q, K, V, the output and (materialized) logits and
    probabilities, so the edge is lower than the scores-only test; tiled attention keeps no S x S
    tensor and reaches millions of tokens."""
    cap = Hardware.get("H100").memory.capacity.m_as("B")
    scores_only = lab.longest_scores("gpt2xl", cap)
    live = lab.longest_live("gpt2xl", "H100", False)
    flash = lab.longest_live("gpt2xl", "H100", True)
    assert live < scores_only < flash
    att = L.Attention(d_model=1600, n_heads=25, seq_len=live)
    assert Engine.solve(att, "H100").feasible
    assert not Engine.solve(
        L.Attention(d_model=1600, n_heads=25, seq_len=live + 1), "H100"
    ).feasible
    assert flash > 10**6


def test_figure14_near_41000_tokens_is_80_gib_not_80_gb():
    """3b.4 / #91 (Figure 14 and L1113): the chapter says one GPT-2 XL layer's FP16 scores (25 heads)
    fill the accelerator 'near 41,000 tokens'. The device is unnamed; the registry plans its "80 GB"
    parts with 80 x 10^9 B (conservative), which one layer's scores fill at exactly 40,000 tokens
    (25 x 40,000^2 x 2 B = 80.00 GB); at 41,000 tokens they need 84.05 GB. The HBM of an "80 GB"
    H100/A100 physically holds 80 GiB (85.9e9 B; nvidia-smi shows 81,559 MiB usable on an H100):
    41,448 tokens fit, 41,449 do not, the chapter's ~41,000. sqrt(2^30 / 10^9) = 1.036 = 41,448 /
    40,000 by hand. The lesson keeps the GB-vs-GiB point without calling the chapter wrong."""
    check = lab.figure14_check()
    assert check["gb"] == 40_000
    assert _scores(25, 40_000) == 80 * GB
    assert check["gib"] == 41_448
    gib80 = Q_(80, "GiB").m_as("B")
    assert L.Attention(d_model=1600, n_heads=25, seq_len=41_448).score_bytes() <= gib80
    assert L.Attention(d_model=1600, n_heads=25, seq_len=41_449).score_bytes() > gib80
    assert check["quoted_bytes"] == 84_050_000_000
    view = lab.part_c("H100", "gpt2xl", "scores")
    assert _card(view, "Figure 14").value == "40,000 / 41,448"
    quoted = _card(view, "41,000 tokens")
    assert quoted.value == "84.05 GB" and quoted.status != "bad"
    assert check["quoted_bytes"] < gib80 == 85_899_345_920  # inside the physical 80 GiB
    assert "under 80 GiB (85.90 GB)" in quoted.note
    assert round((2**30 / 10**9) ** 0.5, 3) == round(41_448 / 40_000, 3) == 1.036
    text = view.summary + " ".join(view.peek) + lab.__doc__
    assert "holds only" not in text and "gets wrong" not in text
    assert "physically carries 80 GiB" in view.summary and "the chapter's number" in view.summary
    assert "conservative" in view.summary and "3.6%" in view.summary


# ---- Part D: FlashAttention ---------------------------------------------------------------------


@pytest.mark.parametrize("device", ["H100", "A100", "JetsonOrinNX"])
def test_flash_attention_changes_bytes_not_flops(device):
    """Self-check T/F (L966, answer L1813): False. Tiled exact attention keeps every S² FLOP; it
    removes the stored scores, so bytes moved and live memory drop and the latency with them."""
    std = Engine.solve(L.Attention(d_model=768, n_heads=12, seq_len=8192), device)
    fl = Engine.solve(L.Attention(d_model=768, n_heads=12, seq_len=8192, flash=True), device)
    assert std.flops == fl.flops
    assert fl.bytes_moved * 100 < std.bytes_moved
    assert fl.memory_footprint_bytes < std.memory_footprint_bytes
    assert fl.latency_s < std.latency_s
    # PRED_D asks what binds once the traffic is gone (it was the chapter's true/false)
    assert std.bottleneck == "Memory" and fl.bottleneck == "Compute"
    assert lab.PRED_D.answer == "compute" and lab.PRED_D.asks == "regime"


def test_part_d_sets_the_published_speedup_beside_the_modelled_one():
    """Longer edition, footnote 33: FlashAttention measured 2-4x wall-clock and 4-16x longer
    sequences (Dao et al. 2022). The answer PRED_D teaches ('several times, no more') is that
    range's reason: the saved bytes stop mattering once compute binds. The card shows the
    published range beside the engine's own ratios for the attention core in the same state."""
    from mlsysim import published as pub

    assert pub.FLASHATTENTION_SPEEDUP.value == (2.0, 4.0)
    assert pub.FLASHATTENTION_LONGER_SEQUENCES.value == (4.0, 16.0)
    assert (
        pub.FLASHATTENTION_SPEEDUP.year == 2022 and "2205.14135" in pub.FLASHATTENTION_SPEEDUP.url
    )
    std = Engine.solve(L.Attention(d_model=768, n_heads=12, seq_len=8192), "H100")
    fl = Engine.solve(L.Attention(d_model=768, n_heads=12, seq_len=8192, flash=True), "H100")
    speedup = std.latency_s / fl.latency_s
    # a few times, nowhere near the 129x cut in bytes: the measured range's order of magnitude
    assert 2.0 < speedup < 10.0 and std.bytes_moved / fl.bytes_moved > 100
    view = lab.part_d(8192, "napkin", "H100", False)
    card = next(c for c in view.cards if c.label.startswith("Measured"))
    assert card.value == "2–4× faster, 4–16× longer sequences"
    assert f"{speedup:.1f}× faster" in card.note
    live = std.memory_footprint_bytes / fl.memory_footprint_bytes
    assert f"{live:.1f}× less live memory" in card.note
    assert "measured a few times, 2–4×" in lab.PRED_D.feedback["compute"]


def test_pred_d_numbers_and_its_efficiency_range():
    std = Engine.solve(L.Attention(d_model=768, n_heads=12, seq_len=8192), "H100")
    fl = Engine.solve(L.Attention(d_model=768, n_heads=12, seq_len=8192, flash=True), "H100")
    assert round(std.bytes_moved / fl.bytes_moved) == 129  # "about 130× fewer bytes"
    fb = lab.PRED_D.feedback["compute"]
    assert f"{std.latency_s * 1e3:.2f} ms → {fl.latency_s * 1e3:.2f} ms" == "1.95 ms → 0.42 ms"
    assert "1.95 ms → 0.42 ms" in fb and f"{std.latency_s / fl.latency_s:.1f}× faster" in fb
    assert f"{std.flops / 1e9:.0f} GFLOP" in fb
    assert round(fl.latency_memory_s * 1e6) == 15 and "15 µs" in lab.PRED_D.feedback["bytes"]
    assert "half the peak" in lab.PRED_D.question  # the engine's efficiency 0.5, stated


def test_transfer_d_decode_traffic_is_the_kv_cache():
    a = L.Attention(d_model=768, n_heads=12, seq_len=1, kv_len=65_536)
    f = L.Attention(d_model=768, n_heads=12, seq_len=1, kv_len=65_536, flash=True)
    scores = a.score_bytes(1, "fp16")
    assert fmt_bytes(scores) == "1.6 MB" and fmt_bytes(4 * scores) == "6.3 MB"
    assert a.bytes_moved() - f.bytes_moved() == 4 * scores
    assert f"{(a.bytes_moved() - f.bytes_moved()) / a.bytes_moved():.0%}" == "3%"
    assert fmt_bytes(2 * 65_536 * 768 * 2) == "201.3 MB"
    fb = lab.TRANSFER_D.feedback["few"]
    assert "6.3 MB" in fb and "3% of the traffic" in fb and "207.6 MB against 201.3 MB" in fb
    assert lab.TRANSFER_D.answer == "few"


def test_transfer_a_sliding_window_is_linear():
    a, b = (L.Attention(d_model=64, n_heads=1, seq_len=s, kv_len=4096) for s in (32_768, 65_536))
    assert (a.macs() // 2, b.macs() // 2) == (32_768 * 4096 * 64, 65_536 * 4096 * 64)
    assert f"{a.macs() / 2e9:.1f} G" == "8.6 G" and f"{b.macs() / 2e9:.1f} G" == "17.2 G"
    assert "8.6 G MACs at 32,768 tokens and 17.2 G at 65,536" in lab.TRANSFER_A.feedback["x2"]
    assert lab.TRANSFER_A.answer == "x2"


def test_transfers_ask_beyond_the_controls():
    """Issue 32: each transfer's case is one its part cannot set (the old ones were slider moves:
    S = 1,024 and d_head = 32, 4 heads at 12,288 tokens, the iPhone in Part C's device list,
    16,384 tokens with FlashAttention on, positional encodings with the toggle)."""
    import inspect

    params = {x: set(inspect.signature(lab.__dict__[f"part_{x}"]).parameters) for x in "abcde"}
    assert "sliding-window" in lab.TRANSFER_A.question and "window" not in str(params["a"])
    assert "65,536" in lab.TRANSFER_A.question and lab.A_SEQ.stop < 65_536
    assert "serves requests" in lab.TRANSFER_B.question and "(training)" in lab.B_LAYERS.label
    assert "batch 4" in lab.TRANSFER_C.question and "batch" not in params["c"]
    assert "decode" in lab.TRANSFER_D.question and "phase" not in params["d"]
    assert "mean pooling" in lab.TRANSFER_E.question and "pool" not in str(params["e"])


def test_flash_flops_still_quadratic():
    """Checkpoint 6.4, tiling boundary (L952): FlashAttention removes storage, not the S² compute."""
    a = L.Attention(d_model=768, n_heads=12, seq_len=8192, flash=True)
    b = L.Attention(d_model=768, n_heads=12, seq_len=16384, flash=True)
    assert b.flops() == 4 * a.flops()
    view = lab.part_d(8192, "napkin", "H100", True)
    assert _card(view, "GFLOP").note == "identical with FlashAttention"


# ---------------------------------------------------------------------------------------------
# Issue 10 #10: FlashAttention's Q+K+V+O traffic is a lower bound; the K/V re-read term
# ---------------------------------------------------------------------------------------------


def test_tiled_traffic_lower_bound_is_the_engines_flash_count():
    """Q, K, V and O each once = 4 × S × d values; the engine's flash=True bytes are that bound."""
    a = L.Attention(d_model=768, n_heads=12, seq_len=8192, flash=True)
    assert a.tiled_traffic_elements(1) == 4 * 8192 * 768
    assert a.tiled_bytes(1, "fp16") == a.bytes_moved(1, "fp16") == 4 * 8192 * 768 * 2
    assert a.tiled_bytes(1, "fp16", q_tile=8192) == a.tiled_bytes(
        1, "fp16"
    )  # one tile: nothing re-read


def test_tiled_traffic_rereads_k_and_v_once_per_query_tile():
    """128-row tiles over 8,192 queries: 64 tiles, each streaming K and V (2 × 8,192 × 768 values):
    Q + O + 64 × (K + V) = (2 + 128) × 8,192 × 768 values = 1.636 GB in FP16, not 50.3 MB.
    GQA shrinks only the re-read term: 8 KV heads of 32 at d = 4,096 read K, V at a quarter size."""
    a = L.Attention(d_model=768, n_heads=12, seq_len=8192, flash=True)
    assert a.tiled_bytes(1, "fp16", q_tile=128) == 130 * 8192 * 768 * 2 == 1_635_778_560
    g = L.Attention(d_model=4096, n_heads=32, kv_heads=8, seq_len=1000, flash=True)
    assert g.tiled_traffic_elements(2, q_tile=300) == 2 * (2 * 1000 * 4096 + 4 * (2 * 1000 * 1024))
    with pytest.raises(ValueError, match="q_tile"):
        a.tiled_traffic_elements(1, q_tile=0)


def test_part_d_labels_flash_traffic_as_a_lower_bound_and_shows_the_reread():
    """Issue 10 #10: the card said '129.0× less traffic' as if exact."""
    from viewtext import render, view_text

    v = render(lab, "D")
    text = view_text(v)
    assert "lower bound" in text
    reread = lab._att(lab.D_SHAPE.value, lab.D_SEQ.value, True).tiled_bytes(1, "fp16", lab.Q_TILE)
    assert reread == 1_635_778_560  # 8,192 tokens, d = 768, 128-row tiles (above)
    assert "1.6 GB" in text and f"{lab.Q_TILE}-row" in text


# ---------------------------------------------------------------------------------------------
# Issue 14: attention has no notion of order; the fused QKV count
# ---------------------------------------------------------------------------------------------


def test_part_e_shows_equivariance_then_positions_breaking_it():
    plain, with_pe = lab.part_e(1, False), lab.part_e(1, True)
    assert next(c for c in plain.cards if c.label == "Verdict").value == "moved, unchanged"
    assert next(c for c in with_pe.cards if c.label == "Verdict").value == "changed"
    assert lab.PRED_E.answer == "moves" and lab.TRANSFER_E.answer == "same"
    # TRANSFER_E: the mean of the outputs is unchanged by any rotation, to rounding
    from mlsysim import order

    for k in (1, 2, 3, 4):
        r = order.order_experiment(5, 4, k, False)
        means = [
            [sum(c) / 5 for c in zip(*r[key], strict=True)] for key in ("original", "shuffled")
        ]
        assert max(abs(x - y) for x, y in zip(*means, strict=True)) < 1e-12
    # rotated by 0 nothing is tested: no verdict of equivariance, with encodings or without
    for pe in (False, True):
        card = next(c for c in lab.part_e(0, pe).cards if c.label == "Verdict")
        assert card.value == "not rotated" and "equivariant" not in card.note


def test_order_blindness_is_claimed_for_unmasked_attention_only():
    """Review item 2: with a causal mask attention is not permutation-equivariant. The masked run
    (mlsysim.order.order_experiment(causal=True)) uses the same tokens and weights as the unmasked
    one, which is equivariant to rounding; masked, rotating 5 tokens by one place changes outputs
    by 0.80, far above rounding."""
    from mlsysim import order

    for k in (1, 2, 3):
        for pe in (False, True):
            plain = order.order_experiment(5, 4, k, pe)
            masked_run = order.order_experiment(5, 4, k, pe, causal=True)
            assert masked_run["original"] != plain["original"]  # the mask is applied
            if not pe:
                assert plain["max_diff"] < 1e-12 < masked_run["max_diff"]
    masked = order.order_experiment(5, 4, 1, False, causal=True)["max_diff"]
    assert masked > 0.1 and f"{masked:.2g}" == "0.8"
    v = lab.part_e(1, False)
    assert _card(v, "Causal mask").value == "0.8"
    assert "Unmasked (bidirectional, encoder) self-attention" in v.summary
    assert "causal mask already breaks the symmetry" in v.summary
    assert "unmasked" in lab.PRED_E.question and "causal mask" in lab.PRED_E.feedback["moves"]
    nb = NOTEBOOK
    text = open(nb, encoding="utf-8").read()
    assert "- Self-attention is blind to order" not in text
    assert "causal mask already breaks the symmetry" in text


def test_flash_is_exact_is_said_after_the_prediction_not_before():
    """Review item 10: the Part D intro said FlashAttention 'returns the same output', which
    answers PRED_D's 'approximate' distractor before it is asked; it now opens Part D's summary."""
    nb = NOTEBOOK
    assert "returns the same output" not in open(nb, encoding="utf-8").read()
    assert "exact, IO-aware" in lab.part_d(8192, "napkin", "H100", False).summary


def test_chapter_markers_are_drawn_only_where_they_lie_on_the_lines():
    """Review item 22: 33.6 MB is one head's FP16 scores at S = 4,096 (4,096^2 x 2 B); in FP32 the
    line sits at 67.1 MB, so the FP16 marker is not drawn there (nor the d_head 64 MACs marker at
    another d_head)."""

    def marks(v):
        return [t for t in v.figure.data if (t.name or "").startswith("chapter")]

    assert L.Attention(d_model=64, n_heads=1, seq_len=4096).score_bytes(1, "fp16") == 4096**2 * 2
    both = marks(lab.part_a(512, 64, "fp16"))[0]
    assert list(both.x) == [512, 4096] and "(FP16)" in both.name
    fp32 = marks(lab.part_a(512, 64, "fp32"))[0]
    assert list(fp32.x) == [512] and "FP16" not in fp32.name
    assert marks(lab.part_a(512, 128, "fp32")) == []


def test_fused_qkv_has_the_parameters_of_three_projections():
    """torch nn.MultiheadAttention(768) holds in_proj_weight (2,304 × 768) + in_proj_bias (2,304):
    3 × 768² + 3 × 768 = 1,771,776, the same as three separate 768 → 768 linears with bias."""
    fused = L.Dense(in_features=768, out_features=3 * 768)
    assert fused.params == 3 * 768 * 768 + 3 * 768 == 1_771_776
    assert fused.params == 3 * L.Dense(in_features=768, out_features=768).params
    assert "1,771,776" in "\n".join(lab.part_e(1, False).peek)
    # the card counts the chapter's 3d² weights (L855), the biases in its note
    card = next(c for c in lab.part_e(1, False).cards if c.label.startswith("Fused QKV"))
    assert card.value == "1,769,472 weights" == f"{3 * 768**2:,} weights"
    assert "three separate: 1,769,472" in card.note and "+ 2,304 biases" in card.note


def test_part_d_peek_formulas_give_the_bytes_they_print():
    """The MathPeek's byte formulas carry the 2 bytes per FP16 value: 4 × heads × S² alone is
    3.2 G, half the 6.5 GB printed beside it."""
    s, (d, h) = 8192, lab.SHAPES["napkin"]
    v = lab.part_d(s, "napkin", lab.D_DEVICE.value, False)
    peek = "\n".join(v.peek)
    std = lab._solve("napkin", s, False, lab.D_DEVICE.value)
    materialized = (4 * s * d + 4 * h * s * s) * 2
    assert std.bytes_moved == pytest.approx(materialized, rel=1e-9)
    assert "4 × heads × S² × 2 B" in peek and f"{materialized / 1e9:.1f} GB" in peek
    reread = (2 * s * d + -(-s // lab.Q_TILE) * 2 * s * d) * 2
    assert lab._att("napkin", s, True).tiled_bytes(1, lab.PRECISION, lab.Q_TILE) == reread
    assert "× 2Sd) × 2 B" in peek and f"{reread / 1e9:.1f} GB" in peek


# ---- Part F: routing by content vs a fixed window -----------------------------------------------


def test_attention_weight_on_the_match_does_not_depend_on_distance():
    """exp(8) / (exp(8) + 127) on the match at every distance in a 128-token sequence."""
    import math

    from mlsysim import routing

    expect = math.exp(8) / (math.exp(8) + 127)
    for d in (1, 3, 6, 7, 50, 100, 127):
        r = routing.read(128, d, 7)
        assert r.attention == pytest.approx(expect, rel=1e-12)
    assert round(expect, 2) == 0.96


def test_a_window_sees_the_match_only_inside_its_width():
    from mlsysim import routing

    inside, edge, outside = (routing.read(128, d, 7) for d in (6, 7, 100))
    assert inside.windowed > 0.99 and inside.fixed == pytest.approx(1 / 7)
    assert edge.windowed == edge.fixed == 0 and edge.window_layers == 2
    assert outside.windowed == outside.fixed == 0 and outside.window_layers == 17
    assert outside.scores_attention == 128 and outside.scores_window == 7


def test_routing_rejects_bad_input():
    from mlsysim import routing

    for kwargs in (
        dict(seq_len=1, distance=1, window=2),
        dict(seq_len=128, distance=128, window=7),
        dict(seq_len=128, distance=0, window=7),
        dict(seq_len=128, distance=3, window=1),
        dict(seq_len=128, distance=3, window=129),
    ):
        with pytest.raises(ValueError):
            routing.read(**kwargs)


def test_part_f_views_match_the_question():
    near, far = lab.part_f(3, "7"), lab.part_f(100, "7")
    n = {c.label: c.value for c in near.cards}
    f = {c.label: c.value for c in far.cards}
    assert n["Attention"] == f["Attention"] == "96%"
    assert n["Window of 7, fixed filter"] == "14%" and f["Window of 7, by content"] == "0%"
    assert f["Stacked windows to reach it"] == "17 layers"
    assert "17 layers" in lab.PRED_F.feedback["content"] and "96%" in lab.PRED_F.feedback["content"]


def test_part_d_contrasts_sparse_attention_with_tiling():
    """Row 86: sparse attention cuts the interactions computed, where tiling cuts storage. A
    causal window of 4,096 keys over 8,192 tokens needs 4,096 x 4,097 / 2 + 4,096 x 4,096 =
    25,167,872 query-key pairs, 37.5% of the 67,108,864 scores a dense kernel (tiled or not)
    computes; full causal attention needs S(S+1)/2."""
    from mlsysim.layers import attention_interactions

    assert lab.SPARSE_WINDOW == 4096
    assert attention_interactions(8192, 4096) == 4096 * 4097 // 2 + 4096 * 4096 == 25_167_872
    assert attention_interactions(8192) == attention_interactions(8192, 9000) == 8192 * 8193 // 2
    assert attention_interactions(5, 1) == 5
    with pytest.raises(ValueError, match="window"):
        attention_interactions(8, 0)
    peek = " ".join(lab.part_d(8192, "napkin", "H100", False).peek)
    assert "needs 25,167,872 query-key pairs at S = 8,192, 37.5% of the S² = 67,108,864" in peek


# ---- Part G: head redundancy, and what pruning heads saves ----------------------------------------


def test_pruned_block_matches_hf_prune_heads_shapes():
    """HF ``prune_heads`` on a BertLayer with 5 of 12 heads removed leaves Q/K/V of 768 -> 448
    (with bias), O of 448 -> 768 (with its 768 bias), the FFN and both LayerNorms as they were."""
    from mlsysim import layers as L
    from mlsysim import pruning

    block = pruning.pruned_encoder(5, 128).layers[0]
    full = L.TransformerBlock(d_model=768, n_heads=12, d_ff=3072, seq_len=128)
    qkv = 3 * (768 * 448 + 448)
    o = 448 * 768 + 768
    ffn = 768 * 3072 + 3072 + 3072 * 768 + 768
    norms = 2 * 2 * 768
    assert block.attn.params == qkv + o
    assert block.params == qkv + o + ffn + norms
    assert full.params - block.params == 4 * 5 * 64 * 768 + 3 * 5 * 64
    # the FFN is two thirds of a block's weights (biases aside)
    assert 2 * 768 * 3072 / (4 * 768 * 768 + 2 * 768 * 3072) == pytest.approx(2 / 3)


def test_pruned_heads_cut_their_share_of_the_attention_flops_only():
    """FLOPs per block: projections 2·S·(4·d·h·64) and scores/PV 2·2·S²·h·64, FFN 2·2·S·d·d_ff."""
    from mlsysim import pruning

    s = 512
    r = pruning.prune_heads(5, s, "H100")

    def macs(h):
        return s * 4 * 768 * h * 64 + 2 * s * s * h * 64 + 2 * s * 768 * 3072

    removed = macs(12) - macs(7)
    assert r.full_flops - r.pruned_flops == 12 * 2 * removed
    assert r.flops_saved < 5 / 12


def test_time_saved_is_far_below_the_share_pruned_and_grows_with_s():
    from mlsysim import pruning

    saved = {s: pruning.prune_heads(5, s, "H100").time_saved for s in (128, 512, 2048, 4096)}
    assert round(saved[512], 3) == 0.057 and round(saved[2048], 2) == 0.22
    assert saved[128] < saved[512] < saved[2048] < saved[4096] < 5 / 12
    # recomputed: the pruned encoder's time from the engine directly
    from mlsysim.engine import Engine

    full = Engine.solve(pruning.pruned_encoder(0, 512), "H100").latency_s
    pr = Engine.solve(pruning.pruned_encoder(5, 512), "H100").latency_s
    assert saved[512] == pytest.approx(1 - pr / full, rel=1e-12)
    # none pruned, nothing saved; more pruned, more saved
    assert pruning.prune_heads(0, 512, "H100").time_saved == 0
    curve = [pruning.prune_heads(p, 2048, "iPhone15Pro").time_saved for p in range(10)]
    assert curve == sorted(curve) and curve[-1] < 0.75


def test_pruning_rejects_bad_input():
    from mlsysim import pruning

    for kwargs in (
        dict(heads_pruned=12, seq_len=512),
        dict(heads_pruned=-1, seq_len=512),
        dict(heads_pruned=5, seq_len=0),
        dict(heads_pruned=5, seq_len=512, device="nope"),
        dict(heads_pruned=5, seq_len=512, precision="fp7"),
    ):
        with pytest.raises(ValueError):
            pruning.prune_heads(**kwargs)
    with pytest.raises(ValueError, match="n_heads"):
        pruning.pruned_encoder(0, 8, d_model=100, n_heads=12)


def test_part_g_views_match_the_question():
    from mlsysim.published import HEAD_PRUNING

    short, long = lab.part_g(5, "512", "H100"), lab.part_g(5, "2048", "H100")
    a = {c.label: c.value for c in short.cards}
    b = {c.label: c.value for c in long.cards}
    assert a["Heads pruned"] == b["Heads pruned"] == "42%"
    assert a["Time saved"] == "5.7%" and b["Time saved"] == "22.2%"
    assert a["Weights removed"] == b["Weights removed"] == "13.9%"
    fb = lab.PRED_G.feedback["time"]
    assert "13.9%" in fb and "22%" in fb and "5.7%" in fb
    assert "17.5% more examples per second" in short.summary
    assert HEAD_PRUNING["speedup_pct"].url == "https://arxiv.org/abs/1905.10650"
    assert HEAD_PRUNING["prunable_pct"].year == 2019
