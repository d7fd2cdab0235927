"""Section 6.4, skip connections and normalization: each part is a plain function of its widgets.

Gradient flow and BatchNorm statistics are *simulated* by ``mlsysim.gradients`` (a seeded deep
network run forward and backward; seeded mini-batches), and the skip path's own factor per block
(pre-activation, post-activation, highway gate) comes from ``gradients.skip_path``; costs come from ``mlsysim.layers``
(params, elementwise ops, bytes), ``Engine`` and ``Models.ResNet50``. The chapter's numbers are
asserted in ``tests/test_s06_04_skip_norm.py``.
"""

from __future__ import annotations

from functools import lru_cache

from ... import catalogue
from ..._lazy import lazy
from ..charts import device_label, figure, time_unit, vline
from ..components import (
    Card,
    Choice,
    Prediction,
    Slider,
    View,
    fact,
    fmt_bytes,
    fmt_ratio,
    fmt_time,
    widget_args,
)
from ..vocab import LABELS, bound_phrase, superscript

E = lazy("mlsysim.engine")
G = lazy("mlsysim.gradients")
HW = lazy("mlsysim.hardware")
L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")
pub = lazy("mlsysim.published")

CHAPTER = "6.4"
PARTS = ("A", "B", "C", "D")

#: Width of the simulated network (small, so the pure-Python pass stays fast in the browser).
WIDTH = 16
#: "if their average gain is even slightly below one the product vanishes exponentially
#: (0.9^50 ~ 0.005)" (L581): the chapter's per-layer gain and depth.
CHAPTER_GAIN, CHAPTER_DEPTH = 0.9, 50
#: The longer edition (L2173) gives "56-layer plain ~13.6% vs 20-layer plain 8.8%"; 8.75% is
#: ResNet-20's error in He et al. 2016 (Table 6), and plain nets appear only as curves (Fig. 6).
#: The page uses the primary edition's attribution and names this figure only to say so.
LONGER_EDITION_PLAIN56_PCT = 13.6


def _sci(x: float) -> str:
    """1.2e-30 style for gradient norms that span dozens of decades."""
    return f"{x:.2g}" if 1e-3 <= abs(x) < 1e4 else f"{x:.1e}"


def _verdict(x: float) -> tuple[str, str]:
    v = G.flow_verdict(x)
    return v, "ok" if v == "survives" else "bad"


# ---------------------------------------------------------------------------------------------
# Part A: vanishing and exploding gradients, simulated
# ---------------------------------------------------------------------------------------------

PRED_A = Prediction(
    question=(
        "A plain 50-layer stack passes the gradient back with a gain of 0.9 per layer, so about 0.9⁵⁰ of "
        "it reaches the first layer. Now wrap every layer in a residual block y = F(x) + x whose branch is "
        "small. What reaches the first layer, and why?"
    ),
    options={
        "same": "Still about 0.5%: the shortcut adds a path, but the chain-rule product is unchanged",
        "identity": "Close to all of it: the identity term in each Jacobian, I + ∂F/∂x, carries it",
        "zero": "Nothing useful: the shortcut forces F's weights to zero, leaving an identity network",
        "explode": "It explodes: the shortcut doubles every singular value",
    },
    answer="identity",
    feedback={
        "same": "The product changes: every factor becomes I + ∂F/∂x instead of ∂F/∂x. With a small branch each "
        "factor is near the identity, so the product stays near 1 instead of 0.9⁵⁰ ≈ 0.005.",
        "identity": "∂L/∂x = ∂L/∂y (∂F/∂x + I): the identity term hands the gradient straight to the layer below. "
        "Near-identity factors can still compound, so it is better conditioning, not exact unit gain.",
        "zero": "The shortcut constrains nothing about F's weights; F still learns. It only adds x to the output, "
        "which adds I to the Jacobian.",
        "explode": "Adding I shifts the Jacobian's singular values toward 1 when ∂F/∂x is small; it does not "
        "double them. Large branches can still grow the product, which is why the branch is kept small.",
    },
    reveals=("I + ∂F/∂x",),
    asks="behaviour",
    misconceptions={
        "same": (
            "a side path leaves the product",
            "The chain rule multiplies the same per-layer factors whatever paths are added",
        ),
        "zero": (
            "shortcuts stop learning",
            "With a shortcut the block learns nothing and collapses to the identity",
        ),
        "explode": (
            "adding x doubles the signal",
            "y = F(x) + x doubles each layer's gain, so gradients grow without bound",
        ),
    },
)

TRANSFER_A = Prediction(
    question=(
        "A plain linear stack of 200 layers (Part A stops at 64) whose per-layer gain is 1.05, 5% too "
        "large. How much of the gradient reaches the first layer?"
    ),
    options={
        "explodes": "It explodes: thousands of times the output gradient",
        "safe": "About all of it: a 5% error per layer is harmless",
        "vanishes": "It vanishes: a very deep plain stack always loses its gradient",
    },
    answer="explodes",
    feedback={
        "explodes": "1.05²⁰⁰ ≈ 17,000: a 5% error compounds over 200 factors into four orders of magnitude. At "
        "64 layers the same gain gives only 1.05⁶⁴ ≈ 23, which the chart calls surviving: depth turns a "
        "small error into a large one.",
        "safe": "Harmless at 64 layers (1.05⁶⁴ ≈ 23), not at 200: the factor compounds, 1.05²⁰⁰ ≈ 17,000. Only a "
        "gain of exactly 1 (or a residual path) keeps the product near 1 at any depth.",
        "vanishes": "Depth compounds whatever the per-layer factor is: below 1 it vanishes, above 1 it explodes "
        "(1.05²⁰⁰ ≈ 17,000).",
    },
    kind="transfer",
    reveals=("17,000",),
    asks="estimate",
    misconceptions={
        "safe": (
            "close to 1 is safe",
            "A per-layer gain a few percent off 1 does no harm at any depth",
        ),
        "vanishes": (
            "depth always shrinks gradients",
            "Deep plain stacks lose their gradient whatever each layer's gain",
        ),
    },
)
A_DEPTH = Slider("Depth (layers)", 2, 64, CHAPTER_DEPTH)
A_ACTIVATION = Choice(
    "Activation",
    {"sigmoid": "sigmoid", "tanh": "tanh", "relu": "ReLU", "linear": "linear (no activation)"},
    "sigmoid",
)
A_GAIN = Slider("Weight gain (each layer scales every direction by this)", 0.5, 2.0, 1.0, step=0.05)


@lru_cache(maxsize=256)
def _flows(depth: int, act: str, gain: float) -> tuple[G.GradientFlow, G.GradientFlow]:
    plain = G.simulate(depth, WIDTH, act, gain, residual=False)
    res = G.simulate(depth, WIDTH, act, gain, residual=True)
    return plain, res


@widget_args
def part_a(depth: int, activation: str, gain: float) -> View:
    import plotly.graph_objects as go

    n, g = int(depth), round(float(gain), 4)
    plain, res = _flows(n, activation, g)
    fmax = G.max_derivative(activation)
    layers = list(range(1, n + 1))
    bound = [(g * fmax) ** k for k in plain.layers_passed]

    fig = figure(
        f"Gradient reaching each layer: {n}-layer {activation} network, gain {g:g}",
        "Layer (1 = input side)",
        "Gradient norm (output gradient = 1, log scale)",
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(x=layers, y=list(plain.grad_norms), name="plain", mode="lines+markers")
    )
    fig.add_trace(
        go.Scatter(
            x=layers, y=list(res.grad_norms), name="residual (y = x + αF(x))", mode="lines+markers"
        )
    )
    fig.add_trace(
        go.Scatter(
            x=layers,
            y=bound,
            name=f"bound (gain × max f′)ᵏ = ({g:g} × {fmax:g})ᵏ",
            mode="lines",
            line=dict(dash="dot"),
        )
    )
    other = "relu" if activation != "relu" else "sigmoid"
    fig.add_trace(
        go.Scatter(
            x=layers,
            y=list(_flows(n, other, g)[0].grad_norms),
            name=f"plain, {other} instead",
            mode="lines",
            line=dict(dash="dash", width=1),
        )
    )

    v_plain, s_plain = _verdict(plain.first)
    v_res, s_res = _verdict(res.first)
    w_ratio = (
        plain.weight_grad_norms[0] / plain.weight_grad_norms[-1]
        if plain.weight_grad_norms[-1]
        else 0.0
    )
    chapter = G.simulate(CHAPTER_DEPTH, WIDTH, "linear", CHAPTER_GAIN).first
    (r20, p20), (r56, p56) = pub.RESNET_CIFAR10[20], pub.RESNET_CIFAR10[56]
    cards = [
        Card(
            "Plain: gradient at layer 1",
            _sci(plain.first),
            f"{v_plain}; ×{plain.per_layer_factor:.3f} per layer",
            s_plain,
        ),
        Card(
            "Residual: gradient at layer 1",
            _sci(res.first),
            f"{v_res}; ×{res.per_layer_factor:.3f} per layer",
            s_res,
        ),
        Card(
            "Bound on the plain stack", _sci(bound[0]), f"({g:g} × max f′ {fmax:g}){superscript(n)}"
        ),
        Card(
            "Plain: layer-1 vs layer-N weight gradient",
            _sci(w_ratio),
            "how much slower the first layer learns"
            if w_ratio < 0.9
            else "how much faster the first layer moves"
            if w_ratio > 1.1
            else "about equal: each is its layer's input times its gradient, and here the inputs "
            "shrink with depth as the gradients shrink back toward layer 1"
            if v_plain == "vanishes"
            else "about equal",
            "bad" if not 1e-3 < w_ratio < 1e3 else "",
        ),
        Card(
            "Chapter check",
            _sci(chapter),
            f"linear, gain {CHAPTER_GAIN}, {CHAPTER_DEPTH} layers: 0.9⁵⁰, it "
            f"{G.flow_verdict(chapter)}",
            _verdict(chapter)[1],
        ),
        Card(
            "CIFAR-10, residual: 20 → 56 layers",
            f"{r20.value:g}% → {r56.value:g}%",
            f"test error, deeper is better once the identity path is there ({r56.citation})",
            "ok",
        ),
    ]
    summary = (
        f"Through {n} plain {activation} layers with gain {g:g}, {_sci(plain.first)} of the output gradient "
        f"reaches layer 1 (×{plain.per_layer_factor:.3f} per layer: it {v_plain}); with residual blocks, "
        f"{_sci(res.first)} of it arrives (it {v_res}). The bound (gain × max f′) to the power of the depth is {_sci(bound[0])}"
        + (
            ": sigmoid's 0.25 ceiling alone forces the plain stack down."
            if activation == "sigmoid" and v_plain == "vanishes"
            else f": sigmoid's 0.25 ceiling caps each layer's factor at ×{0.25 * g:g}, and at {n} "
            "layers the product has not yet run down."
            if activation == "sigmoid"
            else ": ReLU lifts the derivative ceiling to 1 but zeroes about half the units, so the plain "
            "stack needs a gain near √2 (He initialization) to keep the product near 1 on average, and "
            "even then dead units and a narrow layer's fluctuations leave it fragile: ReLU helps, but it is "
            "not sufficient."
            if activation == "relu"
            else "."
        )
    )
    peek = [
        "plain:    ∂L/∂h_(l-1) = W_lᵀ (f′(z_l) ⊙ ∂L/∂h_l)            ‖·‖ ≤ gain × max f′ per layer",
        f"          max f′ = {fmax:g} ({activation}), so ≤ ({g:g} × {fmax:g}){superscript(n)} = {_sci(bound[0])}",
        f"residual: ∂L/∂h_(l-1) = ∂L/∂h_l + α W_lᵀ (f′(z_l) ⊙ ∂L/∂h_l),  α = 1/√depth = {res.branch_scale:.3f}",
        "          each block's Jacobian is I + α f′ W: near the identity when the branch is small",
        f"chapter:  0.9⁵⁰ ≈ 0.005; simulated (linear, gain 0.9, 50 layers): {_sci(chapter)}, it {G.flow_verdict(chapter)}",
        f"verdict:  vanishes below {G.VANISH_BELOW:g} of the output gradient, explodes above {G.EXPLODE_ABOVE:g}×",
        f"network:  {WIDTH} units per layer, orthogonal weights × gain, one seeded example",
        f"measured: CIFAR-10 ResNet-20 ({p20.value / 1e6:.2f} M params) {r20.value:g}% vs ResNet-56 "
        f"({p56.value / 1e6:.2f} M) {r56.value:g}% test error; plain 56 layers did worse than plain 20 (He et al. "
        f"2016, {r20.locator} and Fig. 6, {r20.url})",
        f"figures:  the {r20.value:g}% here (the chapter's {r20.value:.1f}%) is ResNet-20's error "
        f"({r20.locator}), as the primary edition attributes it; "
        f"the longer edition's 'plain-20 {r20.value:.1f}%, plain-56 {LONGER_EDITION_PLAIN56_PCT:g}%' gives a "
        "residual net's figure to a plain net, and the paper shows plain nets only as curves, so this page "
        "quotes no plain-net error",
    ]
    return View(fig, cards, summary, "Chain rule through depth", peek)


# ---------------------------------------------------------------------------------------------
# Part B: BatchNorm vs LayerNorm vs RMSNorm statistics
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "A language model with BatchNorm layers is trained with teacher forcing on batches of 8 sequences × "
        "128 tokens, then served one token at a time. What does each BatchNorm layer compute when serving?"
    ),
    options={
        "ln": "What LayerNorm would compute: a normalization is a normalization",
        "beta": "The one token's own statistics: so every feature outputs β",
        "live": "Statistics of the tokens served so far: its averages keep updating",
        "running": "The mean and variance saved in training: serving only reads them",
    },
    answer="running",
    feedback={
        "ln": "LayerNorm takes its statistics across the token's own features, in training and serving alike; "
        "BatchNorm takes them across the batch (and positions) in training and switches to stored averages "
        "when serving.",
        "beta": "That would be training-mode BatchNorm on one value per channel, which PyTorch refuses ('Expected "
        "more than 1 value per channel when training'). Training sees B × S = 1,024 tokens per channel; "
        "serving runs in eval mode with the running statistics.",
        "live": "In eval mode the running averages are frozen: training accumulated them, and serving only reads "
        "them. A model left in training mode would keep updating them, and its outputs would drift with the "
        "traffic it serves.",
        "running": "Eval mode uses the running averages, so serving computes something other than what training "
        "saw: the train/serve skew the chapter warns about, largest when each statistic came from few "
        "values. LayerNorm and RMSNorm compute the same thing in both modes, one reason sequence models "
        "use them.",
    },
    reveals=("running mean and variance saved", "running averages"),
    asks="behaviour",
    misconceptions={
        "ln": (
            "all normalizations are alike",
            "BatchNorm and LayerNorm compute the same thing, so the choice does not matter",
        ),
        "beta": (
            "serving uses the current batch",
            "BatchNorm always normalizes with the statistics of the batch in front of it",
        ),
        "live": (
            "serving keeps updating statistics",
            "BatchNorm goes on adapting its mean and variance to the traffic it serves",
        ),
    },
)

TRANSFER_B = Prediction(
    question=(
        "A detector trains on 64 GPUs, 2 images each (a global batch of 128), with BatchNorm over 7×7 "
        "feature maps, and each GPU computes its own statistics (Part B shows one device). Against one "
        "device normalizing all 128 images together, its train/serve gap is…"
    ),
    options={
        "larger": "Larger: each GPU's statistics come from its own 2 images",
        "same": "The same: data parallelism trains one batch of 128, split up",
        "smaller": "Smaller: averaging over 64 GPUs smooths the statistics",
    },
    answer="larger",
    feedback={
        "larger": "Each GPU normalizes with 2 × 49 = 98 values per channel, not 128 × 49 = 6,272: a gap of about "
        "12.7% of the signal instead of 1.6%. The gradients are averaged across GPUs; the forward pass's "
        "statistics are not, unless synchronized BatchNorm pays an all-reduce per layer.",
        "same": "The gradients are averaged across the 64 GPUs, but each forward pass normalizes with its own "
        "GPU's 2 × 49 = 98 values: about 12.7% of the signal, against 1.6% for 6,272 values on one device.",
        "smaller": "Nothing averages the statistics each GPU uses in its forward pass; only the gradients are "
        "averaged. Each normalizes with 98 values: about 12.7% of the signal, against 1.6% for all 128 "
        "images together.",
    },
    kind="transfer",
    reveals=("forward pass's statistics are not",),
    asks="direction",
    misconceptions={
        "same": (
            "data parallelism is one batch",
            "Splitting a batch across GPUs computes exactly what one device would",
        ),
        "smaller": (
            "more GPUs smooth the statistics",
            "Each GPU's BatchNorm statistics are averaged with the others' during training",
        ),
    },
)
B_BATCH = Slider("Batch size", 1, 64, 8)
B_POSITIONS = Choice(
    "Each example is",
    {
        "1": "one token",
        "49": "a 7×7 feature map",
        "128": "a 128-token sequence",
        "196": "a 14×14 feature map",
        "3136": "a 56×56 feature map",
    },
    "196",
)
B_FEATURES = Slider("Channels / features (C or d)", 64, 4096, 768, step=64)

_BATCH_GRID = (1, 2, 4, 8, 16, 32, 64, 128, 256)


def _gap_pct(batch: int, positions: int) -> float:
    return 100 * G.batchnorm_train_serve_gap(batch, positions)


@widget_args
def part_b(batch: int, positions: str, features: int) -> View:
    import plotly.graph_objects as go

    B, P, d = int(batch), int(positions), int(features)
    bn = L.BatchNorm2d(num_features=d, elements=d * P)
    ln = L.LayerNorm(normalized_shape=d, elements=d * P)
    rms = L.RMSNorm(normalized_shape=d, elements=d * P)
    per_stat_bn = B * bn.elements // bn.num_features  # B x H x W values per channel statistic

    fig = figure(
        "BatchNorm's training output vs its serving output",
        "Batch size (log scale)",
        "Train/serve difference (% of the signal)",
        log_x=True,
    )
    grid = list(_BATCH_GRID)
    # the selected example shape only: TRANSFER_B asks how single tokens compare with feature maps
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[_gap_pct(b, P) for b in grid],
            name=f"BatchNorm, each example {B_POSITIONS.options[positions]}",
            mode="lines+markers",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[0.0] * len(grid),
            name="LayerNorm / RMSNorm (any batch)",
            mode="lines",
            line=dict(dash="dash"),
        )
    )
    gap = _gap_pct(B, P)
    fig.add_trace(
        go.Scatter(
            x=[B],
            y=[gap],
            name="your setting",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )

    ops = {
        k: lay.elementwise_flops() / lay.elements
        for k, lay in (("BN", bn), ("LN", ln), ("RMS", rms))
    }
    lo, hi = pub.RMSNORM_RUNTIME_REDUCTION_PCT.value
    n_sync, sync_values = M.batchnorm_sync(M.Models.ResNet50)
    cards = [
        Card(
            "BatchNorm statistic",
            f"{per_stat_bn:,} value{'s' if per_stat_bn != 1 else ''}",
            "per channel: batch × H × W",
            "bad" if per_stat_bn < 16 else "ok",
        ),
        Card(
            "LayerNorm statistic",
            f"{ln.normalized_shape:,} values",
            "per token: its own d features, any batch",
            "ok",
        ),
        Card(
            "BatchNorm train vs serve",
            f"{gap:.1f}%",
            "output difference, batch statistics vs running",
            "bad" if gap > 20 else "warn" if gap > 5 else "ok",
        ),
        Card("LayerNorm / RMSNorm", "0%", "same computation in training and serving", "ok"),
        Card(
            "Learned parameters",
            f"{bn.params:,} / {ln.params:,} / {rms.params:,}",
            f"BN 2C (+{bn.weight_elements - bn.params:,} running buffers) / LN 2d / RMSNorm d",
        ),
        Card(
            "Ops per element",
            f"{ops['BN']:g} / {ops['LN']:g} / {ops['RMS']:g}",
            "BN (inference: one scale and shift; in training it computes batch statistics, like LN: "
            "Table 4's 'higher') / LN / RMSNorm",
        ),
        Card(
            "RMSNorm vs LayerNorm, measured",
            f"{lo:g}–{hi:g}% less running time",
            f"whole models ({pub.RMSNORM_RUNTIME_REDUCTION_PCT.citation})",
        ),
        Card(
            "BatchNorm across devices (ResNet-50)",
            f"{n_sync} all-reduces per forward pass",
            f"one per BatchNorm layer (as many again in the backward), {sync_values:,} statistics in all "
            f"({fmt_bytes(4 * sync_values)} FP32)",
            "warn",
        ),
    ]
    what = B_POSITIONS.options[positions]
    summary = (
        f"At batch {B} with each example {what}, BatchNorm estimates every channel's mean and variance from "
        f"{per_stat_bn:,} value{'s' if per_stat_bn != 1 else ''}, and its training output differs from its serving output by {gap:.1f}% of "
        f"the signal; LayerNorm and RMSNorm use the {d:,} features of each token and compute the same thing "
        f"in both modes. "
        + (
            "With one value per statistic, training-mode BatchNorm would output β alone (PyTorch refuses to "
            "train that way); serving uses the running averages."
            if per_stat_bn == 1
            else "Positions (a feature map's pixels, a sequence's tokens) multiply BatchNorm's values per "
            "statistic; a batch of single tokens, as in serving one token at a time, has only the batch."
        )
    )
    peek = [
        "BN:  μ_c, σ²_c over B × H × W values of channel c;  ŷ = γ (x − μ_c)/√(σ²_c + ε) + β",
        f"     B × H × W = {B} × {P} = {per_stat_bn:,}; serving uses running μ, σ² instead",
        "LN:  μ, σ² over the d features of one token (two reductions, or one Welford pass)",
        "RMS: x / √(mean(x²) + ε) ⊙ γ (one reduction, no mean, no β)",
        f"params: BN 2C = {bn.params:,}, LN 2d = {ln.params:,}, RMSNorm d = {rms.params:,};  "
        f"ops/element: {ops['BN']:g}, {ops['LN']:g}, {ops['RMS']:g}",
        "gap simulated over seeded N(0, 1) mini-batches (mlsysim.gradients.batchnorm_train_serve_gap)",
        f"across devices: true batch statistics need one all-reduce per BatchNorm layer (2C values: Σx, Σx²); "
        f"ResNet-50: {n_sync} collectives, {sync_values:,} values per step, each adding a round of communication",
        f"measured: RMSNorm {lo:g}–{hi:g}% less running time than LayerNorm ({pub.RMSNORM_RUNTIME_REDUCTION_PCT.url}); BatchNorm "
        f"reached the same ImageNet accuracy in {pub.BATCHNORM_FEWER_STEPS.value:g}× fewer steps "
        f"({pub.BATCHNORM_FEWER_STEPS.url})",
    ]
    return View(fig, cards, summary, "Normalization statistics", peek)


# ---------------------------------------------------------------------------------------------
# Part C: what the add and the norms cost the machine
# ---------------------------------------------------------------------------------------------

PRED_C = Prediction(
    question=(
        "An unfused FP32 residual add y = F(x) + x runs at batch 32 on an H100 and on a Jetson Orin NX, "
        "whose memory bandwidth is about 3% of the H100's. Where does it sit against each device's FP32 "
        "ridge point?"
    ),
    options={
        "far": "Far below both: each value is loaded once and added once",
        "near": "Near both ridges: one addition per value roughly balances the memory traffic",
        "batch": "Below both at small batches, above at large ones: the batch adds reuse",
        "split": "Far below the H100's, near the Jetson's: a slow chip's ridge is low",
        "above": "Above both: an addition is the cheapest arithmetic there is, so it is compute-bound",
    },
    answer="far",
    feedback={
        "far": "Two 4-byte loads and one 4-byte store per FLOP: 1/12 ≈ 0.083 FLOP/B, about 240× below the "
        "H100's FP32 ridge of 20 FLOP/B and 220× below the Jetson's 18.4, so the add runs at memory speed "
        "on both. Nothing is reused, so no batch moves it.",
        "near": "One addition per value is 1 FLOP per 12 bytes (two 4-byte loads, one store): 0.083 FLOP/B, "
        "against ridges of 20 (H100) and 18.4 (Jetson). Balance needs each byte used about 20 times; an add "
        "uses it once.",
        "batch": "A batch adds values, not reuse: every value is still loaded once and added once, so the "
        "intensity stays 1/12 FLOP/B at any batch. Batching lifts layers whose weights are shared.",
        "split": "A ridge is a ratio, peak over bandwidth, and the Jetson's peak is as far below the H100's "
        "as its bandwidth: its FP32 ridge is 18.4 FLOP/B against the H100's 20. The add's 0.083 FLOP/B is "
        "about 220× below it: the same regime on both chips.",
        "above": "Cheap arithmetic makes an op memory-bound, not compute-bound: the add finishes its FLOP "
        "long before its 12 bytes arrive (0.083 FLOP/B against ridges of 20 and 18.4).",
    },
    reveals=("1 FLOP per 12 bytes", "memory-bound glue", "240×", "0.083 FLOP/B"),
    asks="regime",
    misconceptions={
        "near": (
            "one op per value is balanced",
            "An op that does one operation per value keeps compute and memory in balance",
        ),
        "batch": (
            "batching always adds reuse",
            "A larger batch raises every op's arithmetic intensity",
        ),
        "split": (
            "a slow chip has a low ridge",
            "A device with little bandwidth and compute puts every op near its ridge",
        ),
        "above": (
            "cheap ops are compute-bound",
            "Little arithmetic per value means the arithmetic is what the op waits for",
        ),
    },
)

TRANSFER_C = Prediction(
    question=(
        "Run the same FP32 residual add at batch 32 on an A100 instead (Part C offers no A100): about 61% "
        "of the H100's memory bandwidth and 29% of its FP32 peak. Its time there…"
    ),
    options={
        "bandwidth": "Grows by the bandwidth ratio: it waits on bytes on both GPUs",
        "peak": "Grows by the FP32-peak ratio: on the A100 it waits on arithmetic",
        "same": "Stays about the same: a single add is too small for the device to matter",
    },
    answer="bandwidth",
    feedback={
        "bandwidth": "Its time is memory time: 308 MB over 2.04 TB/s instead of 3.35 TB/s, 97.0 → 156.2 µs with "
        "the 5 µs launch: the bandwidth ratio. The FP32 peak, 3.4× lower, never enters: the arithmetic was never "
        "what it waited for.",
        "peak": "The add does one FLOP per 12 bytes: its arithmetic finishes long before its bytes arrive on either "
        "GPU. The time follows the bandwidth, 97.0 → 156.2 µs, not the 3.4× lower FP32 peak.",
        "same": "At batch 32 the add moves 308 MB, which takes 92 µs on the H100 against a 5 µs launch: it is "
        "far from bound by its launch, so a slower memory shows directly (97.0 → 156.2 µs).",
    },
    kind="transfer",
    reveals=("156.2 µs",),
    asks="regime",
    misconceptions={
        "peak": (
            "every op follows the FLOP rate",
            "A slower GPU's arithmetic slows every op by its peak ratio",
        ),
        "same": (
            "small ops are free",
            "An elementwise op is too small for the device's speed to show",
        ),
    },
)
C_OP = Choice(
    "Operation",
    {
        "add": "residual add",
        "bn": "BatchNorm (inference)",
        "ln": "LayerNorm",
        "rms": "RMSNorm",
        "relu": "ReLU",
    },
    "add",
    inline=False,
)
C_PRECISION = Choice("Precision", {"fp32": "FP32", "fp16": "FP16"}, "fp32")
C_BATCH = Slider("Batch size", 1, 256, 32)
C_DEVICE = Choice(
    "Device",
    catalogue.labels(["H100", "JetsonOrinNX", "iPhone15Pro"]),
    "H100",
)

_GROUPS = {
    "Conv2d": "convolutions",
    "BatchNorm2d": "BatchNorm",
    "Activation": "ReLU",
    "ResidualAdd": "residual adds",
    "Pool2d": "pool + classifier",
    "Dense": "pool + classifier",
}
_SIDE = ("BatchNorm2d", "Activation", "ResidualAdd")


@lru_cache(maxsize=1)
def _stage1_shape() -> tuple[int, int]:
    """(channels, elements per image) of ResNet-50's first residual add (torchvision layer1)."""
    rows = M.Models.ResNet50.rows()
    i = next(j for j, r in enumerate(rows) if isinstance(r.layer, L.ResidualAdd))
    bn = next(r.layer for r in reversed(rows[:i]) if isinstance(r.layer, L.BatchNorm2d))
    return bn.num_features, rows[i].layer.elements


def _op(kind: str) -> L.Layer:
    c, n = _stage1_shape()
    return {
        "add": lambda: L.ResidualAdd(elements=n),
        "bn": lambda: L.BatchNorm2d(num_features=c, elements=n),
        "ln": lambda: L.LayerNorm(normalized_shape=c, elements=n),
        "rms": lambda: L.RMSNorm(normalized_shape=c, elements=n),
        "relu": lambda: L.Activation(kind="relu", elements=n),
    }[kind]()


def _by_group(prof) -> dict[str, float]:
    out = {g: 0.0 for g in dict.fromkeys(_GROUPS.values())}
    for t in prof.layers:
        out[_GROUPS[t.type]] += t.time
    return out


@widget_args
def part_c(op: str, precision: str, batch: int, device: str) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(device)
    B = int(batch)
    lay = _op(op)
    prof = E.Engine.solve(lay, dev, batch_size=B, precision=precision)
    t = prof.layers[0]
    intensity = lay.elementwise_flops(B) / lay.bytes_moved(B, precision)
    ridge = dev.ridge_point(precision).magnitude
    math_s = lay.elementwise_flops(B) / dev.compute.peak(precision).m_as("FLOP/s")

    eager = E.Engine.solve(M.Models.ResNet50, dev, batch_size=B, precision=precision)
    fused = E.Engine.solve(M.Models.ResNet50, dev, batch_size=B, precision=precision, fused=True)
    ge, gf = _by_group(eager), _by_group(fused)
    to_unit, unit = time_unit([eager.latency_s, fused.latency_s])
    fig = figure(
        f"ResNet-50 on the {device_label(dev)}: batch {B}, {precision.upper()}",
        "",
        f"Latency per batch ({unit})",
    )
    for g in ge:
        fig.add_trace(
            go.Bar(
                x=["eager (every op a kernel)", "compiled (BN folded, epilogues fused)"],
                y=[ge[g] * to_unit, gf[g] * to_unit],
                name=g,
            )
        )
    fig.update_layout(barmode="stack")

    side_e = sum(x.time for x in eager.layers if x.type in _SIDE) / eager.latency_s
    side_f = sum(x.time for x in fused.layers if x.type in _SIDE) / fused.latency_s
    c, n = _stage1_shape()
    skip = L.ResidualAdd(elements=n).activation_bytes(B, precision)
    name = C_OP.options[op]
    cards = [
        Card(
            f"{name} intensity",
            f"{intensity:.3f} FLOP/B",
            f"{LABELS['ridge_peak']} {ridge:,.0f} FLOP/B: {ridge / intensity:,.0f}× higher"
            + (
                " (the tensor cores' peak, which an elementwise op cannot use: its own ridge is lower)"
                if dev.compute.precisions[precision].unit_kind == "tensor"
                else ""
            ),
            "bad",
        ),
        Card(
            f"{name} on the device",
            fmt_time(prof.latency_s),
            f"memory {fmt_time(t.t_memory)} + launch "
            f"{fmt_time(t.t_dispatch)}; {bound_phrase(prof.bottleneck)}",
            "warn",
        ),
        Card(
            "Its arithmetic alone",
            fmt_time(math_s),
            f"{lay.elementwise_flops(B):,} ops at dense peak"
            + (
                " (the tensor cores': a lower bound, since an elementwise op runs on the slower "
                "vector units)"
                if dev.compute.precisions[precision].unit_kind == "tensor"
                else ""
            ),
        ),
        Card(
            "ResNet-50 eager: BN/ReLU/add",
            f"{side_e:.0%}",
            f"of {fmt_time(eager.latency_s)}",
            "bad" if side_e > 0.3 else "warn",
        ),
        Card(
            "Compiled: BN/ReLU/add",
            f"{side_f:.0%}",
            f"of {fmt_time(fused.latency_s)}; "
            f"{fmt_ratio(eager.latency_s / fused.latency_s, 2)} faster",
            "ok",
        ),
        Card(
            "Skip tensor kept live", fmt_bytes(skip), f"x of a {c}-channel stage-1 block, batch {B}"
        ),
    ]
    summary = (
        f"{'An' if name.startswith('RMS') else 'A'} {name} over ResNet-50's stage-1 tensor ({c} channels, {n:,} values per image) does "
        f"{intensity:.3f} FLOP/B in {precision.upper()}, so on the {device_label(dev)} it takes "
        f"{fmt_time(prof.latency_s)} ({bound_phrase(prof.bottleneck)}) for arithmetic worth "
        f"{'at least ' if dev.compute.precisions[precision].unit_kind == 'tensor' else ''}"
        f"{fmt_time(math_s)}. In eager ResNet-50, BatchNorm, ReLU and residual-add rows take {side_e:.0%} of "
        f"the time; compiled, with BN folded and the rest fused into the convolutions, {side_f:.0%}."
    )
    peek = [
        "intensity = elementwise ops / bytes moved (inputs read + output written)",
        f"{name}: {lay.elementwise_flops(B):,} ops / {lay.bytes_moved(B, precision):,} B = {intensity:.4f} FLOP/B",
        "residual add FP32: 1 FLOP / (2 loads + 1 store) × 4 B = 1/12 ≈ 0.083 FLOP/B (the chapter's 0.08)",
        f"t = max(0, bytes / BW) + kernels × tax = {fmt_time(t.t_memory)} + {fmt_time(t.t_dispatch)} "
        f"(BW = {dev.memory.bandwidth:~P})",
        "compiled graph: BN folded into the conv weights, ReLU and add in the conv's epilogue (the add still "
        "reads its skip input)",
    ]
    facts = [
        fact("ridge_peak", ridge, device=device, precision=precision),
        fact(
            "latency",
            eager.latency_s,
            model="ResNet50",
            device=device,
            batch=B,
            precision=precision,
            efficiency=eager.efficiency,
            fused=False,
        ),
        fact(
            "latency",
            fused.latency_s,
            model="ResNet50",
            device=device,
            batch=B,
            precision=precision,
            efficiency=fused.efficiency,
            fused=True,
        ),
    ]
    return View(fig, cards, summary, "Memory-bound glue", peek, facts=facts)


# ---------------------------------------------------------------------------------------------
# Part D: what rides on the skip path (pre-activation, post-activation, highway gates)
# ---------------------------------------------------------------------------------------------

#: Width of the layer whose gate weights Part D counts (a 512-unit dense layer).
D_LAYER_WIDTH = 512
#: The gradient share the transfer asks a highway stack to keep.
TD_CARRY = 0.1

PRED_D = Prediction(
    question=(
        "Three deep networks differ only in what sits on the skip path: pre-activation blocks "
        "y = F(x) + x (the ReLU inside F), the original post-activation blocks y = ReLU(F(x) + x), and "
        "highway layers y = H(x)·T(x) + x·(1 − T(x)) whose gate starts mostly carrying (bias −2, "
        "T ≈ 0.12). Follow only the gradient that travels the skip path back to the first block. As the "
        "depth grows from 10 to 200 blocks, that gradient…"
    ),
    options={
        "identity": "Stays whole only with pre-activation blocks: a ReLU or gate on the path keeps losing it",
        "any": "Stays whole in all three networks: a skip path hands the gradient straight back",
        "gate": "Stays whole with pre-activation and highway: an 88% carry is as good as identity",
        "relu": "Stays whole with pre- and post-activation: the ReLU passes the positive sums as is",
    },
    answer="identity",
    feedback={
        "identity": "Only y = F(x) + x leaves the skip path empty: its Jacobian there is I, so 100% arrives "
        "at any depth. The ReLU after the add closes the path, for good, in every unit whose sum is "
        "negative: a measured post-activation network keeps it open in 21% of units after 10 blocks and "
        "5.0% after 200. The gate multiplies it by 1 − T = 0.881 per layer: 0.18% after 50 layers, "
        "9.4 × 10⁻¹² after 200.",
        "any": "A skip path is the identity only when nothing sits on it. A ReLU after the add zeroes it in "
        "every unit whose sum is negative (a measured post-activation network keeps 5.0% after 200 blocks), "
        "and a highway gate multiplies it by 1 − T in every layer, which compounds: 0.881⁵⁰ ≈ 0.18%.",
        "gate": "0.881 per layer is a gain below one, and depth compounds it: 0.18% after 50 layers, "
        "9.4 × 10⁻¹² after 200, the chapter's 0.9⁵⁰ of a plain stack again. Only a carry of exactly 1, the "
        "residual's identity, survives any depth, and the gate also costs a d × d matrix per layer.",
        "relu": "x is non-negative (it left the previous ReLU), but F(x) ends in a zero-mean BatchNorm and is "
        "negative in many units; wherever F(x) < −x the sum is negative and the ReLU passes no gradient, "
        "skip path included. In a measured network half the sums are negative in the first block and 4% "
        "still in block 200, and a closed unit never reopens: 21% of units keep the path after 10 blocks, "
        "5.0% after 200. Moving the ReLU inside F (pre-activation) keeps the add clean.",
    },
    reveals=("identity at every depth", "0.18%", "9.4 × 10⁻¹²"),
    asks="behaviour",
    misconceptions={
        "any": (
            "any skip path keeps the gradient whole",
            "Whatever sits on the shortcut, a skip connection hands the gradient back undiminished",
        ),
        "gate": (
            "a gate that mostly carries is as good as identity",
            "A per-layer carry close to 1 keeps the gradient close to whole at any depth",
        ),
        "relu": (
            "the ReLU after the add is harmless",
            "Activations are positive, so a ReLU after the add passes every gradient",
        ),
    },
)

TRANSFER_D = Prediction(
    question=(
        "A 100-layer highway network needs 10% of the gradient to reach its first layer through the carry "
        "gates alone, which takes a gate bias of about −3.8. Its designers double the depth to 200 layers "
        "and want the same 10%. The gate bias must…"
    ),
    options={
        "ln2": "Fall by about 0.7, to about −4.5: T must halve",
        "same": "Stay at about −3.8: the bias is a per-layer setting",
        "double": "Double, to about −7.5: twice the layers, twice the bias",
    },
    answer="ln2",
    feedback={
        "ln2": "The carry per layer must rise from the 100th root of 0.1, 0.9772, to its 200th root, 0.9886, so T halves "
        "(2.3% → 1.1%). Far on the sigmoid's negative side T ≈ eᵇ, so halving T lowers b by ln 2 ≈ 0.69: "
        "−3.76 → −4.46. Every doubling asks the same again, and the gate never reaches the identity that a "
        "residual add gives for free.",
        "same": "The bias sets a per-layer carry, and the network's share is that carry to the power of the "
        "depth: −3.8 keeps 10% over 100 layers but 0.9772²⁰⁰ ≈ 1% over 200. Keeping 10% needs T halved, "
        "a bias of −4.46.",
        "double": "The bias acts through a sigmoid: far on its negative side T ≈ eᵇ, so halving T costs only "
        "ln 2 ≈ 0.69 of bias, −3.76 → −4.46. A bias of −7.5 would close the gate far more than needed "
        "(T ≈ 0.05%), keeping about 90% over 200 layers.",
    },
    kind="transfer",
    reveals=("−4.46", "ln 2"),
    asks="estimate",
    misconceptions={
        "same": (
            "the gate bias is independent of depth",
            "A gate bias that keeps enough gradient at one depth keeps enough at any depth",
        ),
        "double": (
            "the bias scales with depth",
            "Twice the layers need twice the gate bias",
        ),
    },
)
D_DEPTH = Slider("Depth (blocks)", 1, 200, 50)
D_BIAS = Slider("Highway gate bias b_T", -6.0, 0.0, -2.0, step=0.5)


def _share(x: float) -> str:
    """A gradient share: a percentage down to 0.01%, then powers of ten."""
    if x == 1:
        return "100%"
    if x >= 0.1:
        return f"{x * 100:.3g}%"
    if x >= 1e-4:
        return f"{x * 100:#.2g}%"
    return f"{x:.1e}" if x > 0 else "0 (below the smallest float)"


def _skip_status(x: float) -> str:
    """Whole: ok; vanished (below 1%): bad; anything lost on the way: warn."""
    return "ok" if x == 1 else "bad" if G.flow_verdict(x) == "vanishes" else "warn"


@widget_args
def part_d(depth: int, bias: float) -> View:
    import plotly.graph_objects as go

    n, b = int(depth), round(float(bias), 4)
    bs = f"{b:g}".replace("-", "−")
    top = D_DEPTH.stop
    pre = G.skip_path("preact", top)
    post = G.skip_path("postact", top)
    hw = G.skip_path("highway", top, gate_bias=b)
    carry = G.gate_carry(b)
    depths = list(range(1, top + 1))
    fig = figure(
        "Gradient reaching block 1 along the skip path alone",
        "Depth (blocks)",
        "Share of the output gradient (log scale)",
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(x=depths, y=list(pre.factors), name="pre-activation: y = F(x) + x", mode="lines")
    )
    fig.add_trace(
        go.Scatter(
            x=depths,
            y=list(post.factors),
            name="post-activation: y = ReLU(F(x) + x), measured",
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=depths,
            y=[f if f > 0 else None for f in hw.factors],
            name=f"highway: carry 1 − σ({bs}) = {carry:.3f} per layer",
            mode="lines",
        )
    )
    vline(
        fig,
        n,
        f"{n} block{'s' if n != 1 else ''}",
        position="top left" if n > top / 2 else "top right",
    )

    at = n - 1
    f_pre, f_post, f_hw = pre.factors[at], post.factors[at], hw.factors[at]
    active = G.POSTACT_ACTIVE[at]
    d = D_LAYER_WIDTH
    gate_w = G.skip_weights("highway", d)
    layer_w = L.Dense(in_features=d, out_features=d).weight_elements
    cards = [
        Card(
            "Pre-activation skip path",
            _share(f_pre),
            "identity at every depth: nothing sits on the path",
            "ok",
        ),
        Card(
            "Post-activation skip path",
            _share(f_post),
            f"units still open after {n} block{'s' if n != 1 else ''}; {1 - active:.0%} of the sums "
            f"are negative in block {n}, and a closed unit never reopens",
            _skip_status(f_post),
        ),
        Card(
            "Highway carry path",
            _share(f_hw),
            f"(1 − σ({bs})){superscript(n)} = {carry:.3f}{superscript(n)}",
            _skip_status(f_hw),
        ),
        Card(
            f"Skip weights per {d}-unit layer",
            f"+{gate_w:,} / 0",
            f"highway gate W_T + b_T, as many as the layer's own {layer_w:,}: its weights double / "
            "residual add: none",
            "warn",
        ),
    ]
    summary = (
        f"Through {n} block{'s' if n != 1 else ''}, the skip path alone brings back {_share(f_pre)} of the "
        f"gradient in pre-activation blocks (identity at every depth), {_share(f_post)} in post-activation "
        f"blocks, whose ReLU after the add closes a unit's path for good once its sum is negative, and "
        f"{_share(f_hw)} through highway gates that carry {carry:.3f} per layer; each gate also adds "
        f"{gate_w:,} weights to a {d}-unit layer, which the residual add does without."
    )
    peek = [
        "pre-activation:  y = F(x) + x            ∂y/∂x = ∂F/∂x + I          skip path: I",
        "post-activation: y = ReLU(F(x) + x)      skip path: diag(1[F(x) + x > 0])",
        f"   share after L blocks = mean over units of the product of L masks = {f_post:.3g} at L = {n}",
        "   measured on a seeded network, y = ReLU(x + BN(W₂ ReLU(BN(W₁ x)))), width 256, batch 256 "
        "(PyTorch, mlsysim.gradients.POSTACT_SKIP_SHARE); x ≥ 0 keeps most sums positive, so it falls "
        "more slowly than a fixed factor per block, but a closed unit never reopens",
        "highway: y = H(x)·T(x) + x·(1 − T(x)),  T = σ(W_T x + b_T)   skip path: diag(1 − T)",
        f"   gate at its bias (W_T x ≈ 0 at initialization): (1 − σ({bs})){superscript(n)} = "
        f"{carry:.4f}{superscript(n)} = {f_hw:.3g}",
        f"gate weights: W_T ({d} × {d}) + b_T ({d}) = {gate_w:,} per layer, equal to H's; residual add: 0",
    ]
    return View(fig, cards, summary, "What rides on the skip path", peek)
