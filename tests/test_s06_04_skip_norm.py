"""Section 6.4 (skip connections and normalization): the simulation in ``mlsysim.gradients`` and
the chapter's numbers that ``labs/s06_04_skip_norm.py`` reproduces. "L123" is line 123 of
``shared/seeds/chapter06_network_architectures.txt``; "#n" is the claim row in the primary
digest's section 3a.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest

from mlsysim import Engine, Hardware, Models, published
from mlsysim import gradients as G
from mlsysim import layers as L
from mlsysim.labs.parts import s06_04_skip_norm as lab
from mlsysim.models import batchnorm_sync

np = pytest.importorskip("numpy")


# --------------------------------------------------------------------------------------------
# The simulator itself
# --------------------------------------------------------------------------------------------


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


@pytest.mark.parametrize(("act", "residual"), list(itertools.product(G.ACTIVATIONS, (False, True))))
def test_numpy_and_pure_python_paths_agree(act, residual):
    """Both paths see the same seeded network and must give the same numbers to 1e-9."""
    for depth, width, gain in (
        (1, 8, 1.0),
        (17, 16, 0.7),
        (64, 16, 1.5),
        (40, 32, 2.0),
        (64, 24, 0.5),
    ):
        py = G.simulate(depth, width, act, gain, residual=residual, use_numpy=False, seed=3)
        fast = G.simulate(depth, width, act, gain, residual=residual, use_numpy=True, seed=3)
        for a, b in zip(
            py.grad_norms + py.weight_grad_norms + py.activation_norms,
            fast.grad_norms + fast.weight_grad_norms + fast.activation_norms,
            strict=True,
        ):
            assert _rel(a, b) < 1e-9


def test_simulation_is_deterministic_and_seeded():
    a = G.simulate(30, 16, "tanh", 1.0, use_numpy=False, seed=1)
    b = G.simulate(30, 16, "tanh", 1.0, use_numpy=False, seed=1)
    c = G.simulate(30, 16, "tanh", 1.0, use_numpy=False, seed=2)
    assert a.grad_norms == b.grad_norms
    assert a.grad_norms != c.grad_norms


def test_weights_are_orthogonal():
    """W = gain x Q with Q orthogonal, so a linear layer scales every direction by exactly gain."""
    q = G._orthogonal(16, 0, 5)
    for i, j in itertools.product(range(16), repeat=2):
        dot = sum(a * b for a, b in zip(q[i], q[j], strict=True))
        assert dot == pytest.approx(1.0 if i == j else 0.0, abs=1e-12)


@pytest.mark.parametrize(
    "bad",
    [
        dict(depth=0),
        dict(depth=2.5),
        dict(width=1),
        dict(activation="gelu"),
        dict(gain=0),
        dict(gain=float("nan")),
        dict(branch_scale=-1.0),
    ],
)
def test_bad_inputs_raise_value_error(bad):
    kw = dict(depth=4, width=8, activation="relu", gain=1.0)
    kw.update(bad)
    with pytest.raises(ValueError):
        G.simulate(**kw)


# --------------------------------------------------------------------------------------------
# Part A: the chapter's gradient numbers (L569, L581)
# --------------------------------------------------------------------------------------------


def test_sigmoid_derivative_peaks_at_quarter():
    """#52: sigmoid's derivative peaks at 0.25; tanh, ReLU and linear at 1."""
    assert G.max_derivative("sigmoid") == 0.25
    assert G.max_derivative("tanh") == G.max_derivative("relu") == G.max_derivative("linear") == 1.0


@pytest.mark.parametrize("depth", [5, 20, 64])
def test_plain_sigmoid_obeys_quarter_to_the_l(depth):
    """#52: "the activation-derivative factors alone contribute at most (0.25)^L along a path" (L569).
    With unit-gain (orthogonal) weights the whole gradient obeys it, layer by layer."""
    flow = G.simulate(depth, 16, "sigmoid", 1.0)
    for norm, k in zip(flow.grad_norms, flow.layers_passed, strict=True):
        assert norm <= 0.25**k * (1 + 1e-9)
    assert flow.first < 1e-3


def test_gain_0_9_over_50_layers_is_0_005():
    """#56: "if their average gain is even slightly below one the product vanishes exponentially
    (0.9^50 ~ 0.005)" (L581): a plain linear stack with per-layer gain 0.9."""
    flow = G.simulate(50, 16, "linear", 0.9)
    assert flow.first == pytest.approx(0.005, abs=0.0002)
    assert flow.first == pytest.approx(0.9**50, rel=1e-9)
    assert flow.per_layer_factor == pytest.approx(0.9, rel=1e-9)


def test_gain_1_5_explodes():
    """#53: "If each layer Jacobian expands a shared direction by about 1.5, that component grows
    exponentially" (L569)."""
    flow = G.simulate(50, 16, "linear", 1.5)
    assert flow.first == pytest.approx(1.5**50, rel=1e-9)
    assert flow.first > 1e8
    assert list(flow.grad_norms) == sorted(flow.grad_norms, reverse=True)


@pytest.mark.parametrize(
    ("act", "gain"), list(itertools.product(G.ACTIVATIONS, (0.5, 1.0, 1.5, 2.0)))
)
def test_residual_keeps_the_gradient_alive(act, gain):
    """Eq. 6 and L579: with the identity in every factor (small branch), the gradient at layer 1
    stays order one at depth 64 whatever the activation and gain."""
    flow = G.simulate(64, 16, act, gain, residual=True)
    assert 0.5 < flow.first < 100


def test_plain_relu_with_large_gain_explodes_and_residual_does_not():
    plain = G.simulate(64, 16, "relu", 2.0)
    res = G.simulate(64, 16, "relu", 2.0, residual=True)
    assert plain.first > 1e3 and res.first < 1e2


def test_prediction_a_matches_simulation():
    """PRED_A: plain ~0.005 at gain 0.9 over 50 layers, residual close to all of it."""
    plain = G.simulate(50, 16, "linear", 0.9)
    res = G.simulate(50, 16, "linear", 0.9, residual=True)
    assert plain.first < 0.01 and 0.5 < res.first < 5
    assert lab.PRED_A.answer == "identity"


# --------------------------------------------------------------------------------------------
# Part B: normalization statistics and cost (L609-L640, Table 4)
# --------------------------------------------------------------------------------------------


def test_batchnorm_on_one_token_outputs_beta():
    """One value per statistic -> x - mu = 0 -> training-mode output is beta: a 100% train/serve
    gap (the chart's batch-1 token point)."""
    assert G.batchnorm_train_serve_gap(1, 1) == pytest.approx(1.0, abs=1e-12)


def test_pred_b_serving_uses_running_statistics():
    """Issue 10 #8: the old PRED_B had a fine-tuned model's training-mode BatchNorm 'see a batch of
    one token'. Fine-tuning with teacher forcing sees B x S tokens per channel statistic (8 x 128 =
    1,024 here), and torch refuses training-mode BatchNorm on one value per channel; the one-token
    case is serving, where BatchNorm (eval mode) uses its running statistics."""
    assert lab.PRED_B.answer == "running"
    assert (
        "fine-tuned" not in lab.PRED_B.question
        and "training mode sees a batch of one" not in lab.PRED_B.question
    )
    assert "8 sequences × 128 tokens" in lab.PRED_B.question
    assert "B × S = 1,024" in lab.PRED_B.feedback["beta"] and 8 * 128 == 1024
    v = lab.part_b(1, "1", 768)
    assert "serving uses the running averages" in v.summary


def test_gain_0_9_over_50_layers_is_labelled_vanishing():
    """Issue 10 #6: the chapter's own vanishing example (linear, gain 0.9, 50 layers: 0.9^50 =
    0.0052, L581) was labelled 'survives' (the old threshold was 1e-3)."""
    assert 0.9**50 == pytest.approx(0.0052, abs=1e-4)
    assert G.flow_verdict(0.9**50) == "vanishes"
    v = lab.part_a(50, "linear", 0.9)
    cards = {c.label: c for c in v.cards}
    assert cards["Plain: gradient at layer 1"].note.startswith("vanishes")
    assert (
        cards["Chapter check"].note.endswith("it vanishes")
        and cards["Chapter check"].status == "bad"
    )
    assert "it vanishes" in v.summary
    assert G.flow_verdict(1.1**50) == "explodes" and G.flow_verdict(1.0) == "survives"
    for bad in (-1.0, float("nan"), True):
        with pytest.raises(ValueError, match="norm"):
            G.flow_verdict(bad)


def test_transfers_are_what_the_instruments_show():
    # A: 200 layers at gain 1.05 explode (1.05^200 = 17,293); Part A's deepest, 64, survives (22.7)
    assert G.simulate(200, 16, "linear", 1.05).first == pytest.approx(1.05**200, rel=1e-9)
    assert round(1.05**200, -3) == 17_000 and round(1.05**64) == 23
    assert G.flow_verdict(1.05**200) == "explodes" and G.flow_verdict(1.05**64) == "survives"
    assert "1.05²⁰⁰ ≈ 17,000" in lab.TRANSFER_A.feedback["explodes"]
    assert "1.05⁶⁴ ≈ 23" in lab.TRANSFER_A.feedback["explodes"]
    assert lab.TRANSFER_A.answer == "explodes"
    # B: 64 GPUs x 2 images of 7x7 maps, per-GPU statistics: 98 values per channel, a 12.7% gap,
    # against 6,272 values and 1.6% for one device normalizing all 128 images
    local, pooled = G.batchnorm_train_serve_gap(2, 49), G.batchnorm_train_serve_gap(128, 49)
    assert (2 * 49, 128 * 49) == (98, 6272)
    assert (round(100 * local, 1), round(100 * pooled, 1)) == (12.7, 1.6)
    assert "about 12.7% of the signal instead of 1.6%" in lab.TRANSFER_B.feedback["larger"]
    assert lab.TRANSFER_B.answer == "larger"
    a32 = lab.part_c("add", "fp32", 32, "H100").cards[0].value
    a256 = lab.part_c("add", "fp32", 256, "H100").cards[0].value
    assert a32 == a256 == f"{1 / 12:.3f} FLOP/B"
    # TRANSFER_C: FP16 halves the add's bytes (12 -> 6 per add); its time is memory time plus one
    # 5 us launch: 92.02 + 5 = 97.02 us in FP32, 46.01 + 5 = 51.01 us in FP16 (x0.53, "about halves")
    t32 = lab.part_c("add", "fp32", 32, "H100").cards[1].value
    t16 = lab.part_c("add", "fp16", 32, "H100").cards[1].value
    assert (t32, t16) == ("97.02 µs", "51.01 µs")
    # TRANSFER_C: on the A100 (2,039 GB/s, 19.5 TFLOP/s FP32) the add takes 92.02 x 3.35 / 2.039
    # + 5 = 156.2 us, about 1.6x: the bandwidth ratio (1.64), not the FP32-peak ratio (3.4)
    a100 = Hardware.get("A100")
    add = lab._op("add")
    t = {
        d: Engine.solve(add, d, batch_size=32, precision="fp32").latency_s for d in ("H100", "A100")
    }
    assert (round(t["H100"] * 1e6, 1), round(t["A100"] * 1e6, 1)) == (97.0, 156.2)
    assert round(t["A100"] / t["H100"], 1) == 1.6
    h100 = Hardware.get("H100")
    assert round(h100.memory.bandwidth.m_as("B/s") / a100.memory.bandwidth.m_as("B/s"), 2) == 1.64
    assert round(h100.compute.peak("fp32") / a100.compute.peak("fp32"), 1) == 3.4
    assert round(add.bytes_moved(32, "fp32") / 1e6) == 308
    assert "97.0 → 156.2 µs" in lab.TRANSFER_C.feedback["bandwidth"]
    assert lab.TRANSFER_C.answer == "bandwidth" and lab.TRANSFER_C.kind == "transfer"
    assert "at every batch" not in lab.PRED_C.options["far"]


def test_batchnorm_gap_falls_with_batch_and_feature_map():
    """Table 4: BatchNorm's batch dependency is high for small batches; statistics over B x H x W
    (L609) make feature maps far less sensitive than tokens."""
    tokens = [G.batchnorm_train_serve_gap(b, 1) for b in (1, 4, 16, 64, 256)]
    assert tokens == sorted(tokens, reverse=True)
    assert tokens[-1] < 0.1
    for b in (1, 8, 64):
        assert G.batchnorm_train_serve_gap(b, 196) < G.batchnorm_train_serve_gap(b, 1) / 3


def test_norm_parameters_and_ops():
    """Table 4 and L636: BN 2C learned params (+2C running buffers), LN 2d, RMSNorm d; RMSNorm's single
    reduction makes it cheaper per element than LayerNorm; inference BN is a folded scale + shift."""
    c, n = 768, 768 * 196
    bn = L.BatchNorm2d(num_features=c, elements=n)
    ln = L.LayerNorm(normalized_shape=c, elements=n)
    rms = L.RMSNorm(normalized_shape=c, elements=n)
    assert (bn.params, ln.params, rms.params) == (2 * c, 2 * c, c)
    assert bn.weight_elements == 4 * c
    per = [x.elementwise_flops() / n for x in (bn, ln, rms)]
    assert per == [2, 8, 4]
    assert per[2] < per[1]


# --------------------------------------------------------------------------------------------
# Part C: memory-bound glue (L587, L636)
# --------------------------------------------------------------------------------------------


def test_residual_add_is_one_twelfth_flop_per_byte():
    """#58: "one addition per two loaded operands and one stored result, about 0.08 FLOP/byte in
    FP32 (one FLOP per 12 bytes)" (L587)."""
    add = L.ResidualAdd(elements=802_816)
    for batch in (1, 32):
        intensity = add.elementwise_flops(batch) / add.bytes_moved(batch, "fp32")
        assert intensity == pytest.approx(1 / 12, rel=1e-12)
        assert round(intensity, 2) == 0.08
    assert add.input_elements == 2 * add.elements  # x stays live until F(x) is added


@pytest.mark.parametrize("device", ["H100", "JetsonOrinNX", "iPhone15Pro"])
@pytest.mark.parametrize("op", list(lab.C_OP.options))
def test_glue_is_memory_bound_everywhere(device, op):
    """L636: normalization (and the add, ReLU) is memory-bandwidth bound: intensity far below every
    ridge, and in the engine the memory term dominates once launches are amortized."""
    dev = Hardware.get(device)
    lay = lab._op(op)
    for precision in ("fp32", "fp16"):
        intensity = lay.elementwise_flops(32) / lay.bytes_moved(32, precision)
        assert intensity < 3 < dev.ridge_point(precision).magnitude
        p = Engine.solve(lay, dev, batch_size=32, precision=precision)
        assert p.bottleneck == "Memory"
        assert p.latency_memory_s > 10 * lay.elementwise_flops(32) / dev.compute.peak(
            precision
        ).m_as("FLOP/s")


def test_stage1_shape_is_resnet50_layer1():
    assert lab._stage1_shape() == (256, 256 * 56 * 56)


def test_resnet50_glue_share_eager_vs_fused():
    """What the glue costs ResNet-50 on an H100 (FP16): most of the eager batch-1 latency sits in
    BatchNorm, ReLU and residual-add rows; a compiled graph removes almost all of it."""
    eager = Engine.solve(Models.ResNet50, "H100", precision="fp16")
    fused = Engine.solve(Models.ResNet50, "H100", precision="fp16", fused=True)

    def share(p):
        return sum(t.time for t in p.layers if t.type in lab._SIDE) / p.latency_s

    assert share(eager) > 0.5
    assert share(fused) < 0.05
    assert eager.latency_s > 2.5 * fused.latency_s
    assert math.isclose(sum(lab._by_group(eager).values()), eager.latency_s, rel_tol=1e-9)


def test_prediction_c_answer():
    """PRED_C asks where the add sits against the H100's ridge (it was the arithmetic 1/12 with
    both loads and the store spelled out in the stem): 1/12 FLOP/B against 20 is 240x below, and
    the batch does not move it."""
    from mlsysim import Hardware

    x = L.ResidualAdd(elements=1_000_000).elementwise_intensity(1, "fp32")
    ridge = Hardware.get("H100").ridge_point("fp32").magnitude
    assert x == pytest.approx(1 / 12) and round(ridge / x) == 240
    assert L.ResidualAdd(elements=1_000_000).elementwise_intensity(256, "fp32") == x
    assert lab.PRED_C.answer == "far" and "240×" in lab.PRED_C.feedback["far"]


# ---- Issue 14: published CIFAR-10 results, RMSNorm's measured range, BatchNorm's all-reduce ----


def _cifar_resnet_params(n: int) -> int:
    """He et al. 2016's CIFAR ResNet-(6n+2) built from mlsysim layers: a 3x3 conv to 16 channels,
    three stages of n basic blocks (two 3x3 convs each) at 16/32/64 channels, parameter-free
    (option A) shortcuts, BatchNorm after every conv, a 64 -> 10 classifier."""
    total = L.Conv2d(
        in_channels=3, out_channels=16, kernel_size=3, input_size=32, padding=1, bias=False
    ).params
    total += L.BatchNorm2d(num_features=16, elements=16).params
    c_in = 16
    for c in (16, 32, 64):
        for _ in range(n):
            for conv_in in (c_in, c):
                total += L.Conv2d(
                    in_channels=conv_in,
                    out_channels=c,
                    kernel_size=3,
                    input_size=32,
                    padding=1,
                    bias=False,
                ).params
                total += L.BatchNorm2d(num_features=c, elements=c).params
            c_in = c
    return total + L.Dense(in_features=64, out_features=10).params


def test_published_cifar10_resnets_match_the_chapter_and_their_architecture():
    """Section 6.4: 'about 7.0 percent test error against 8.8 percent' (He et al. 2016a, Table 6:
    6.97% and 8.75%). The table's 0.27 M / 0.85 M parameters are recomputed from the layers."""
    (e20, p20), (e56, p56) = published.RESNET_CIFAR10[20], published.RESNET_CIFAR10[56]
    assert round(e56.value, 1) == 7.0 and round(e20.value, 1) == 8.8
    assert (
        _cifar_resnet_params(3) == 269_722
        and round(_cifar_resnet_params(3) / 1e6, 2) == p20.value / 1e6
    )
    assert round(_cifar_resnet_params(9) / 1e6, 2) == p56.value / 1e6
    assert "arxiv.org/abs/1512.03385" in e20.url and e20.locator == "Table 6"
    card = next(c for c in lab.part_a(50, "sigmoid", 1.0).cards if c.label.startswith("CIFAR-10"))
    assert card.value == "8.75% → 6.97%"


def test_page_says_which_cifar10_figure_it_uses():
    """Issue 32 review: the longer edition (L2173) gives '56-layer plain ~13.6% vs 20-layer plain
    8.8%'; the primary edition (L571, L581) and this page give 8.8% to ResNet-20 (He et al. 2016a,
    Table 6: 8.75%), whose plain nets appear only as curves (Fig. 6). The page says so in one line,
    and shows no 13.6% as a plain-net error of its own."""
    v = lab.part_a(50, "sigmoid", 1.0)
    line = next(x for x in v.peek if x.startswith("figures:"))
    assert "8.75% here (the chapter's 8.8%) is ResNet-20's error (Table 6)" in line
    assert "'plain-20 8.8%, plain-56 13.6%'" in line and "quotes no plain-net error" in line
    assert lab.LONGER_EDITION_PLAIN56_PCT == 13.6
    rest = v.summary + " ".join(f"{c.value} {c.note}" for c in v.cards)
    assert "13.6" not in rest and "plain-20" not in rest


def test_pred_b_options_are_real_beliefs():
    """Issue 32 review: 'a division by zero' was an option no student picks; it is now the belief
    that serving keeps updating BatchNorm's statistics (a model left in training mode)."""
    opts = " ".join(lab.PRED_B.options.values()).lower()
    assert "division" not in opts and "zero" not in opts
    assert "live" in lab.PRED_B.options and "frozen" in lab.PRED_B.feedback["live"]
    assert lab.PRED_B.misconceptions["live"].name == "serving keeps updating statistics"


def test_rmsnorm_measured_range_is_the_chapters():
    """Footnote 18 and L636: 'reduced overall running time by 7-64 percent relative to LayerNorm'."""
    assert published.RMSNORM_RUNTIME_REDUCTION_PCT.value == (7.0, 64.0)
    card = next(
        c for c in lab.part_b(8, "196", 768).cards if c.label.startswith("RMSNorm vs LayerNorm")
    )
    assert card.value == "7–64% less running time"
    assert published.BATCHNORM_FEWER_STEPS.value == 14.0  # footnote 17: '14x fewer training steps'


def test_synchronized_batchnorm_all_reduces_for_resnet50():
    """L615: true mini-batch statistics across devices need an all-reduce per normalized layer.
    torchvision ResNet-50 has 1 + 16 x 3 + 4 = 53 BatchNorm layers over 64 + (3 x 384 + 256) +
    (4 x 768 + 512) + (6 x 1,536 + 1,024) + (3 x 3,072 + 2,048) = 26,560 channels; each syncs a
    sum and a sum of squares: 53,120 values."""
    n, values = batchnorm_sync(Models.ResNet50)
    assert n == 1 + 16 * 3 + 4 == 53
    assert (
        values
        == 2 * (64 + (3 * 384 + 256) + (4 * 768 + 512) + (6 * 1536 + 1024) + (3 * 3072 + 2048))
        == 53_120
    )
    card = next(
        c for c in lab.part_b(8, "196", 768).cards if c.label.startswith("BatchNorm across devices")
    )
    assert card.value == "53 all-reduces per forward pass" and "212.5 KB" in card.note


def test_part_a_words_follow_the_numbers_at_every_depth():
    """At 2 sigmoid layers the gradient survives, yet the summary said sigmoid's ceiling 'forces
    the plain stack down'; at gain 0.5 the weight-gradient ratio is ~1 (both ends shrink) and its
    card said the first layer 'moves faster'."""
    shallow = lab.part_a(2, "sigmoid", 1.0).summary
    assert "it survives" in shallow and "forces the plain stack down" not in shallow
    assert "forces the plain stack down" in lab.part_a(50, "sigmoid", 1.0).summary
    card = next(c for c in lab.part_a(64, "tanh", 0.5).cards if "layer-1 vs" in c.label)
    assert card.note.startswith("about equal") and "faster" not in card.note


# --------------------------------------------------------------------------------------------
# Part D: what rides on the skip path (Figure 7 L575; Highway Networks L1414)
# --------------------------------------------------------------------------------------------


def test_pre_activation_skip_path_is_the_identity_at_every_depth():
    """y = F(x) + x: the skip path's Jacobian is I, so the path alone delivers exactly 1."""
    pre = G.skip_path("preact", 200)
    assert pre.per_block == 1.0 and set(pre.factors) == {1.0} and len(pre.factors) == 200


SKIP_FIXTURE = Path(__file__).parent / "reference" / "skip_paths.json"


def test_post_activation_share_is_the_measured_one():
    """y = ReLU(F(x) + x): a unit's skip path survives a block only where the sum is positive.
    mlsysim's table is the fixture's (PyTorch, tests/reference/skip_paths.py), whose autograd
    pass with the branches detached gives the same share as the product of the masks."""
    ref = json.loads(SKIP_FIXTURE.read_text(encoding="utf-8"))
    post = ref["postact"]
    assert list(G.POSTACT_SKIP_SHARE) == post["share"] and len(post["share"]) == 200
    assert list(G.POSTACT_ACTIVE) == post["active"]
    for depth, grad in post["autograd"].items():
        assert post["share"][int(depth) - 1] == pytest.approx(grad, rel=1e-3)
    # the gate and the identity, backpropagated by torch (float32)
    hw, pre = ref["highway"], ref["preact"]
    want = G.skip_path("highway", hw["depth"], gate_bias=hw["bias"]).first
    assert hw["min"] == pytest.approx(want, rel=1e-5) and hw["max"] == pytest.approx(want, rel=1e-5)
    assert pre["min"] == pre["max"] == G.skip_path("preact", pre["depth"]).first == 1.0


def test_post_activation_relu_closes_the_skip_path_for_good():
    """Half the sums are negative in block 1; later blocks close fewer (x >= 0 after a ReLU), but
    the share of open units only falls: 50% -> 21% (10 blocks) -> 9.9% (50) -> 5.0% (200)."""
    post = G.skip_path("postact", 200)
    assert [round(post.factors[i - 1], 3) for i in (1, 10, 50, 200)] == [0.501, 0.21, 0.099, 0.05]
    assert all(a >= b for a, b in itertools.pairwise(post.factors))
    assert G.POSTACT_ACTIVE[0] == pytest.approx(0.5, abs=0.01)
    assert round(1 - G.POSTACT_ACTIVE[199], 2) == 0.04
    # slower than a fixed per-block factor at the same active share: 0.96^200 would be 0.03%
    assert post.first > 100 * G.POSTACT_ACTIVE[199] ** 200
    fb = lab.PRED_D.feedback
    assert "21% of units" in fb["relu"] and "5.0% after 200" in fb["relu"] and "4%" in fb["relu"]


def test_highway_carry_gate_compounds_and_doubles_the_weights():
    """T = sigmoid(-2) = 0.1192, carry 0.8808 per layer: 0.18% after 50, 9.4e-12 after 200; the
    gate's W_T (d x d) and b_T (d) equal the layer's own transform H."""
    t = 1 / (1 + math.exp(2))
    assert t == pytest.approx(0.119203, abs=1e-6)
    assert G.gate_carry(-2.0) == pytest.approx(1 - t, rel=1e-15)
    hw = G.skip_path("highway", 200, gate_bias=-2.0)
    assert hw.factors[49] == pytest.approx((1 - t) ** 50, rel=1e-12)
    assert round(hw.factors[49] * 100, 2) == 0.18
    assert hw.factors[199] == pytest.approx(9.444e-12, rel=1e-3)
    assert G.skip_path("highway", 50, gate_bias=0.0).first == pytest.approx(0.5**50)
    assert G.skip_weights("highway", 512) == 512 * 512 + 512 == 262_656
    assert G.skip_weights("highway", 512) == L.Dense(in_features=512, out_features=512).params
    assert G.skip_weights("preact", 512) == G.skip_weights("postact", 512) == 0


def test_highway_bias_for_a_kept_share_falls_by_ln2_per_doubling():
    """(1 - sigmoid(b))**n = 0.1: b = -3.76 at n = 100, -4.46 at n = 200."""
    b100, b200 = G.highway_bias_for(0.1, 100), G.highway_bias_for(0.1, 200)
    assert b100 == pytest.approx(-3.7596, abs=1e-4) and b200 == pytest.approx(-4.4585, abs=1e-4)
    assert G.skip_path("highway", 100, gate_bias=b100).first == pytest.approx(0.1, rel=1e-9)
    assert b100 - b200 == pytest.approx(math.log(2), abs=0.01)
    # the transfer's numbers
    fb = lab.TRANSFER_D.feedback
    assert "−3.76 → −4.46" in fb["ln2"] and "0.9772" in fb["ln2"] and "0.9886" in fb["ln2"]
    assert f"{0.1 ** (1 / 100):.4f}" == "0.9772" and f"{0.1 ** (1 / 200):.4f}" == "0.9886"
    # -3.8 over 200 layers keeps 1%; T halves, 2.3% -> 1.1%; twice the bias keeps about 90%
    assert G.skip_path("highway", 200, gate_bias=b100).first == pytest.approx(0.01, rel=1e-9)
    t100, t200 = 1 - G.gate_carry(b100), 1 - G.gate_carry(b200)
    assert (round(t100 * 100, 1), round(t200 * 100, 1)) == (2.3, 1.1)
    assert "2.3% → 1.1%" in fb["ln2"] and "about 90%" in fb["double"] and "0.05%" in fb["double"]
    assert round(1 - G.gate_carry(2 * b100), 4) == 0.0005
    assert G.skip_path("highway", 200, gate_bias=2 * b100).first == pytest.approx(0.897, abs=5e-4)


def test_skip_path_rejects_bad_input():
    for kwargs in (
        dict(form="gated", depth=5),
        dict(form="preact", depth=0),
        dict(form="postact", depth=201),
        dict(form="highway", depth=5, gate_bias=11.0),
        dict(form="highway", depth=5, gate_bias=float("nan")),
    ):
        with pytest.raises(ValueError):
            G.skip_path(**kwargs)
    for args in ((0.0, 10), (1.0, 10), (0.5, 0), (0.5, 1001)):
        with pytest.raises(ValueError):
            G.highway_bias_for(*args)
    with pytest.raises(ValueError):
        G.skip_weights("highway", 0)
    # far past the smallest float: 0.0, never negative or NaN
    assert G.skip_path("highway", 200, gate_bias=-10.0).first > 0
    assert G.skip_path("highway", 200, gate_bias=10.0).first == 0.0


def test_part_d_views_match_the_question():
    v = lab.part_d(50, -2.0)
    cards = {c.label: c.value for c in v.cards}
    assert cards["Pre-activation skip path"] == "100%"
    assert cards["Post-activation skip path"] == "9.9%"
    assert cards["Highway carry path"] == "0.18%"
    assert cards["Skip weights per 512-unit layer"] == "+262,656 / 0"
    assert "0.18% through highway gates that carry 0.881 per layer" in v.summary
    deep = {c.label: c.value for c in lab.part_d(200, -2.0).cards}
    assert deep["Highway carry path"] == "9.4e-12" and deep["Pre-activation skip path"] == "100%"
    assert deep["Post-activation skip path"] == "5.0%"
    assert {c.label: c.value for c in lab.part_d(10, -2.0).cards}[
        "Post-activation skip path"
    ] == "21%"
    # the chart: three curves over 1..200 blocks on a log axis
    assert [len(t.x) for t in v.figure.data] == [200, 200, 200]
    assert v.figure.layout.yaxis.type == "log"
    # the feedback quotes what the page computes
    fb = lab.PRED_D.feedback
    assert "0.18%" in fb["identity"] and "9.4 × 10⁻¹²" in fb["gate"] and "5.0%" in fb["any"]
