"""Section 6.3, CNNs: each part is a plain function of its widget values.

Every count comes from ``mlsysim`` (``layers.Conv2d``, ``layers.Dense``,
``layers.receptive_field``, ``layers.depthwise_separable``, ``models.Models``, ``Engine``,
``Hardware``); this module picks the inputs, draws the chart and writes the sentences. The
chapter's numbers are asserted in ``tests/test_s06_03_cnns.py``.
"""

from __future__ import annotations

from functools import lru_cache

from ... import catalogue
from ..._lazy import lazy
from ..charts import device_label, figure, time_unit
from ..components import (
    Card,
    Choice,
    Deferred,
    Prediction,
    Slider,
    Toggle,
    View,
    fact,
    fmt_bytes,
    fmt_count,
    fmt_flops,
    fmt_rate,
    fmt_ratio,
    fmt_time,
    overflow_text,
    widget_args,
)
from ..vocab import LABELS, bound_phrase, memory_name, op_word

E = lazy("mlsysim.engine")
HW = lazy("mlsysim.hardware")
L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")
Y = lazy("mlsysim.symmetry")
U = lazy("mlsysim.units")

CHAPTER = "6.3"
PARTS = ("A", "B", "C", "D", "E", "F")

#: ImageNet input side used by the chapter's worked conv layer (L435, L443).
IMAGE_PX = 224
#: "detecting objects spanning 100+ pixels in a 224x224 image" (L321, footnote 14).
OBJECT_PX = 100
#: Channels of the chapter's worked 3x3 layer, "64 input and 64 output channels" (L286, L435).
CHANNELS = 64


def _conv(c_in: int, c_out: int, k: int, side: int, stride: int = 1) -> L.Conv2d:
    """A bias-free K x K conv with 'same' padding (the chapter's counting: weights only)."""
    return L.Conv2d(
        in_channels=c_in,
        out_channels=c_out,
        kernel_size=k,
        input_size=side,
        stride=stride,
        padding=k // 2,
        bias=False,
    )


# ---------------------------------------------------------------------------------------------
# Part A: weight sharing, and what still grows with resolution
# ---------------------------------------------------------------------------------------------


def _pred_a_feedback() -> dict[str, str]:
    small, big = _conv(CHANNELS, CHANNELS, 3, IMAGE_PX), _conv(CHANNELS, CHANNELS, 3, 2 * IMAGE_PX)
    per = small.macs() // small.output_elements
    ma, mb = fmt_count(small.macs()), fmt_count(big.macs())
    aa, ab = (
        fmt_bytes(small.activation_bytes(1, "fp32")),
        fmt_bytes(big.activation_bytes(1, "fp32")),
    )
    return {
        "step": f"Each output value is one dot product over a 3×3×64 patch: {per} MACs wherever it sits, at any "
        f"resolution. Four times the pixels is four times the output values, so both grow 4×: {ma} to {mb} "
        f"MACs, {aa} to {ab} of FP32 output maps. Only the weights (36,864) stay put.",
        "macs": f"The filter does not widen with the image: each output still sums the same 3×3×64 patch, {per} "
        f"MACs. More pixels means more outputs, not dearer ones: both grow 4× ({ma} to {mb} MACs).",
        "acts": "The filters stay, but they run at every output position: four times the positions is four "
        f"times the MACs ({ma} to {mb}), in step with the output maps ({aa} to {ab}).",
        "maps": "Padding keeps each output map the size of its input, so the maps grow with the pixels: "
        f"{aa} to {ab} in FP32, 4×, in step with the MACs ({ma} to {mb}).",
    }


PRED_A = Prediction(
    question=(
        "Kimani's detector moves to a camera with four times the pixels (twice the side). For one of its "
        "3×3 convolution layers, 64 channels in and out ('same' padding), how do the layer's MACs and its "
        "output activations change at the new resolution?"
    ),
    options={
        "step": "Both grow 4×, in step: every output value costs the same MACs",
        "macs": "The MACs grow faster than the activations: each output sums a wider patch",
        "acts": "The activations grow 4×, the MACs stay: the same filters do the same work",
        "maps": "The MACs grow 4×, the activations stay: each filter still yields one map",
    },
    answer="step",
    feedback=Deferred(_pred_a_feedback, precomputed="s06_03_cnns.PRED_A"),
    reveals=("costs the same MACs", "wherever it sits"),
    asks="behaviour",
    misconceptions={
        "macs": (
            "the filter widens with the image",
            "A larger image makes every output value sum over a larger patch",
        ),
        "acts": (
            "arithmetic follows the weights",
            "A layer with the same weights does the same arithmetic at any image size",
        ),
        "maps": (
            "a feature map is a fixed-size output",
            "Each filter produces one output of fixed size, whatever the input's size",
        ),
    },
)

TRANSFER_A = Prediction(
    question=(
        "The same 3×3, 64→64 convolution on a 224×224 map now runs at stride 2 (Part A's layer always "
        "runs at stride 1). What happens to its weights and to its MACs per image?"
    ),
    options={
        "quarter": "Same weights, a quarter of the MACs: a quarter of the output positions",
        "same": "Same weights, same MACs: the filter still reads every input pixel",
        "half": "Same weights, half the MACs: the filter steps two pixels instead of one",
    },
    answer="quarter",
    feedback={
        "quarter": "36,864 weights either way; the output map is 112×112 instead of 224×224, a quarter of the "
        "positions, and each position costs K²·C_in·C_out MACs: 462.4 M instead of 1.85 G. The work "
        "follows the output, not the input.",
        "same": "A MAC happens per output position, not per input pixel: stride 2 leaves 112×112 positions out of "
        "224×224, so the MACs fall to a quarter (462.4 M instead of 1.85 G) though every input pixel is "
        "still read.",
        "half": "The stride applies along both axes: the map goes from 224×224 to 112×112, a quarter of the "
        "positions, so the MACs fall to a quarter (462.4 M), not a half.",
    },
    kind="transfer",
    asks="direction",
    misconceptions={
        "same": (
            "work follows the input",
            "A convolution's MACs are set by how many input pixels it reads",
        ),
        "half": (
            "stride acts along one axis",
            "Stepping two pixels halves the work, as if the map shrank along one side only",
        ),
    },
)
A_RESOLUTION = Slider("Feature-map side H = W (pixels)", 32, 1024, IMAGE_PX, step=32)
A_CHANNELS = Slider("Channels (C_in = C_out)", 16, 512, CHANNELS, step=16)
A_KERNEL = Choice("Kernel", {"1": "1×1", "3": "3×3", "5": "5×5", "7": "7×7"}, "3")
#: Part A's 3-D example: a 16-frame clip, 'same' padding in time and space (stride 1).
VIDEO_FRAMES = 16


@widget_args
def part_a(resolution: int, channels: int, kernel: str) -> View:
    """Weights stay flat while MACs, activations and the im2col buffer grow with the area."""
    import plotly.graph_objects as go

    res, c, k = int(resolution), int(channels), int(kernel)
    conv = _conv(c, c, k, res)
    dense = L.Dense(in_features=res * res * c, out_features=c, bias=False)
    b32 = U.bytes_per_value("fp32")
    sides = list(range(int(A_RESOLUTION.start), int(A_RESOLUTION.stop) + 1, int(A_RESOLUTION.step)))
    convs = [_conv(c, c, k, s) for s in sides]

    fig = figure(
        f"What grows with resolution: {k}×{k} conv, {c}→{c} channels",
        "Feature-map side (pixels)",
        "Count per image (log scale)",
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(
            x=sides,
            y=[L.Dense(in_features=s * s * c, out_features=c, bias=False).params for s in sides],
            name=f"dense weights (flattened map → {c} outputs)",
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(x=sides, y=[cv.macs() for cv in convs], name="conv MACs", mode="lines")
    )
    fig.add_trace(
        go.Scatter(
            x=sides,
            y=[cv.im2col_elements for cv in convs],
            name="im2col buffer (values)",
            mode="lines",
            line=dict(dash="dot"),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=sides,
            y=[cv.output_elements for cv in convs],
            name="conv output activations",
            mode="lines",
            line=dict(dash="dash"),
        )
    )
    fig.add_trace(
        go.Scatter(x=sides, y=[cv.params for cv in convs], name="conv weights", mode="lines")
    )
    fig.add_trace(
        go.Scatter(
            x=[res],
            y=[conv.params],
            name="your setting",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )

    toy = L.Conv2d(in_channels=1, out_channels=1, kernel_size=2, input_size=3, bias=False)
    w1, m1 = L.conv_nd_counts((k,), c, c, (res * res,))
    w3, m3 = L.conv_nd_counts((k, k, k), c, c, (VIDEO_FRAMES, res, res))
    ratio = dense.params / conv.params
    im2col_bytes = conv.im2col_elements * b32
    cards = [
        Card(
            "Conv weights",
            fmt_count(conv.params),
            f"{fmt_bytes(conv.weight_bytes('fp32'))} FP32, at any resolution",
            "ok",
        ),
        Card(
            "Conv MACs per image",
            fmt_count(conv.macs(), 2),
            f"{fmt_count(conv.flops(), 2)} FLOPs (1 MAC = 2 FLOPs)",
        ),
        Card(
            "Uses of each weight",
            f"{conv.weight_reuse:,}",
            f"one per output position ({res}×{res})",
        ),
        Card(
            "Output activations",
            fmt_bytes(conv.activation_bytes(1, "fp32")),
            "FP32, per image in the batch",
            "warn",
        ),
        Card(
            "im2col buffer",
            fmt_bytes(im2col_bytes),
            f"{fmt_ratio(conv.im2col_expansion, 2)} the input; implicit GEMM never builds it",
            "warn" if conv.im2col_expansion > 1 else "ok",
        ),
        Card(
            "Dense equivalent", fmt_count(dense.params), f"{ratio:,.0f}× the conv's weights", "bad"
        ),
    ]
    summary = (
        f"At {res}×{res}, the {k}×{k} conv keeps {conv.params:,} weights ({fmt_bytes(conv.weight_bytes('fp32'))} "
        f"in FP32) and uses each one {conv.weight_reuse:,} times, for {fmt_count(conv.macs(), 2)} MACs. Its output "
        f"maps take {fmt_bytes(conv.activation_bytes(1, 'fp32'))} and a materialized im2col buffer "
        f"{fmt_bytes(im2col_bytes)}: weights are flat in resolution, everything else grows with the area. "
        f"A dense layer to {c} scalars would need {fmt_count(dense.params)} weights."
    )
    peek = [
        f"conv weights = K² × C_in × C_out = {k * k} × {c} × {c} = {conv.params:,}   (no H, no W)",
        f"conv MACs    = H_out × W_out × K² × C_in × C_out = {res}² × {k * k} × {c} × {c} = {conv.macs():,}",
        f"reuse/weight = H_out × W_out = {conv.weight_reuse:,}",
        f"dense        = (H × W × C_in) × C_out = {res * res * c:,} × {c} = {dense.params:,}",
        f"im2col       = H_out W_out × K² C_in = {conv.im2col_elements:,} values = {fmt_ratio(conv.im2col_expansion, 2)} "
        f"the input (→ K² = {k * k} for large stride-1 maps)",
        f"chapter toy  = 3×3 input, 2×2 filter: {toy.im2col_elements} / {toy.input_elements} = "
        f"{toy.im2col_expansion:.3f}× (borders keep it below K² = 4)",
        f"not vision-only, same rule in any dimension: 1-D (audio, {res * res:,} samples, K = {k}) "
        f"{w1:,} weights, {m1:,} MACs; 3-D (video, {VIDEO_FRAMES} frames of {res}×{res}, {k}×{k}×{k}) "
        f"{w3:,} weights, {m3:,} MACs",
    ]
    return View(fig, cards, summary, "Weight sharing and im2col", peek)


# ---------------------------------------------------------------------------------------------
# Part B: receptive field growth
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "Stack 3×3 convolutions at stride 1, with padding. As layers are added, how does the patch of the "
        "input that can change one unit (its receptive field) grow?"
    ),
    options={
        "linear": "Steadily, a couple of pixels per layer: seeing a whole object takes dozens of layers",
        "double": "Geometrically, doubling each layer (2ᴸ): a handful of layers sees a whole object",
        "fixed": "It does not grow: each unit still sees one 3×3 window of the layer below",
    },
    answer="linear",
    feedback={
        "linear": "1 + L(K − 1): 3, 5, 7, … Each stride-1 layer widens the field by K − 1 = 2 pixels, so a "
        "100-pixel object needs 50 layers. That is why real networks stride and pool.",
        "double": "Doubling per layer needs downsampling (stride 2 or pooling) between layers: then each layer's "
        "step doubles. At stride 1 the side grows linearly, 1 + L(K − 1), and 100 pixels takes 50 layers.",
        "fixed": "Each layer's 3×3 window looks at units that already summarize 3×3 windows, so the region of the "
        "input that reaches a unit grows with depth: 3, 5, 7, … Sharing the weights does not stop that.",
    },
    reveals=("layer 3 sees 7×7", "1 + L(K − 1)"),
    asks="behaviour",
    misconceptions={
        "double": (
            "depth doubles the view",
            "Stacking layers builds a pyramid, so each layer doubles how far a unit sees",
        ),
        "fixed": (
            "the field is the kernel",
            "A unit sees only its own kernel's window, however deep the stack",
        ),
    },
)

TRANSFER_B = Prediction(
    question=(
        "A stack of 3×3 convolutions at stride 1 spreads its taps: dilation 1, 2, 4, 8, … doubling each layer "
        "(Part B offers no dilation). Against an undilated stack of the same depth, what happens?"
    ),
    options={
        "full": "The field grows geometrically at full map size: nine taps, spread wider",
        "stride": "The field grows geometrically, but the map shrinks: dilation is a stride",
        "linear": "The field still grows a couple of pixels per layer: there are still 3×3 taps",
        "weights": "The field grows geometrically, for more weights: a wider filter has more taps",
    },
    answer="full",
    feedback={
        "full": "Each layer widens the field by d(K − 1): 2, 4, 8, 16, … so five layers see 63×63 instead of 11×11, "
        "while the map stays 224×224 (padding = d) and each filter keeps its 3×3 weights per channel pair. "
        "Dilation buys striding's reach without its downsampling.",
        "stride": "Striding skips output positions; dilation skips input taps. With padding equal to the dilation "
        "the map stays 224×224 at every layer, and the field still reaches 63×63 after five layers.",
        "linear": "The taps are nine, but a dilated 3×3 filter spans 2d + 1 pixels: each layer widens the field by "
        "2d, which doubles with d. Five layers see 63×63, not 11×11.",
        "weights": "Dilation spreads the same nine taps apart; the skipped pixels carry no weight. Params and MACs "
        "per position are those of a plain 3×3 layer, and the field reaches 63×63 after five layers.",
    },
    kind="transfer",
    reveals=("without its downsampling",),
    asks="behaviour",
    misconceptions={
        "stride": (
            "dilation downsamples",
            "Spreading a filter's taps shrinks the output map, as striding does",
        ),
        "linear": (
            "the field is the tap count",
            "A unit's field is set by how many taps a filter has, not where they sit",
        ),
        "weights": (
            "a wider window needs more weights",
            "A filter that spans more pixels must have a weight for each of them",
        ),
    },
)
B_KERNEL = Choice("Kernel", {"3": "3×3", "5": "5×5", "7": "7×7"}, "3")
B_STRIDE = Choice("Stride of every layer", {"1": "1", "2": "2 (downsample each layer)"}, "1")
B_DEPTH = Slider("Layers stacked", 1, 16, 3)


def _layers_to_cover(px: int, k: int, s: int, limit: int = 1000) -> int:
    """Smallest depth whose receptive field side reaches ``px`` (search over the core formula)."""
    for n in range(limit + 1):
        if L.receptive_field(n, k, s) >= px:
            return n
    return limit


@widget_args
def part_b(kernel: str, stride: str, depth: int) -> View:
    import plotly.graph_objects as go

    k, s, n = int(kernel), int(stride), int(depth)
    depths = list(range(0, int(B_DEPTH.stop) + 1))
    fig = figure(
        f"Receptive field of stacked {k}×{k} convolutions",
        "Layers stacked",
        "Receptive-field side (pixels, log scale)",
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(
            x=depths,
            y=[L.receptive_field(d, k, 1) for d in depths],
            name="stride 1",
            mode="lines+markers",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=depths,
            y=[L.receptive_field(d, k, 2) for d in depths],
            name="stride 2 every layer",
            mode="lines+markers",
            line=dict(dash="dash"),
        )
    )
    rf = L.receptive_field(n, k, s)
    fig.add_trace(
        go.Scatter(
            x=[n],
            y=[rf],
            name="your setting",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )
    for px, what in ((OBJECT_PX, "object"), (IMAGE_PX, "image")):
        fig.add_trace(
            go.Scatter(
                x=[depths[0], depths[-1]],
                y=[px, px],
                name=f"{px}-pixel {what}",
                mode="lines",
                line=dict(dash="dot", width=1),
            )
        )

    def side_after(stride: int) -> int:
        side = IMAGE_PX
        for _ in range(n):
            side = _conv(CHANNELS, CHANNELS, k, side, stride).output_size[0]
        return side

    side, side2 = side_after(s), side_after(2)
    need1 = _layers_to_cover(OBJECT_PX, k, 1)
    need2 = _layers_to_cover(OBJECT_PX, k, 2)
    rf1 = L.receptive_field(n, k, 1)
    stack = n * _conv(CHANNELS, CHANNELS, k, IMAGE_PX).params
    single = _conv(CHANNELS, CHANNELS, rf1, IMAGE_PX).params
    cards = [
        Card(
            "Receptive field",
            f"{rf:,}×{rf:,}",
            f"after {n} layer{'s' if n != 1 else ''}, stride {s}"
            + (f"; wider than the {IMAGE_PX}-px image" if rf > IMAGE_PX else ""),
        ),
        Card(
            f"Layers to see {OBJECT_PX} px",
            f"{need1} at stride 1",
            f"{need2} at stride 2",
            "bad" if need1 > 20 else "ok",
        ),
        Card(
            "Map side left",
            f"{side}×{side}",
            f"from {IMAGE_PX}×{IMAGE_PX}",
            "warn" if side < 14 else "",
        ),
        Card(
            f"Stack vs one {rf1}×{rf1} conv",
            fmt_ratio(single / stack, 1),
            f"{n} × {k}×{k} ({stack:,} weights) vs {single:,} at {CHANNELS} channels"
            + (
                f"; {rf1}×{rf1} is the stride-1 stack's field (at stride {s} it is {rf}×{rf})"
                if s != 1
                else ""
            ),
        ),
    ]
    summary = (
        f"{n} stacked {k}×{k} layers at stride {s} see a {rf}×{rf} patch. At stride 1 the side grows by "
        f"{k - 1} pixels per layer, so a {OBJECT_PX}-pixel object needs {need1} layers; striding every layer "
        f"needs {need2} layers but shrinks a {IMAGE_PX}-pixel map to {side2}×{side2} after {n}, so real networks "
        f"mix stride-1 stacks with occasional downsampling."
    )
    terms = " + ".join(f"{k - 1}×{s**j}" for j in range(min(n, 4))) + (" + …" if n > 4 else "")
    peek = [
        "r = 1 + Σ_l (K − 1) × (product of the strides before layer l)",
        f"r = 1 + {terms if n else '0'} = {rf}",
        f"stride 1: r = 1 + L(K − 1) = 1 + {n} × {k - 1} = {rf1}",
        f"stack weights = L × K² × C² = {n} × {k * k} × {CHANNELS}² = {stack:,};  one {rf1}×{rf1} conv = {single:,}",
    ]
    return View(fig, cards, summary, "Receptive field", peek)


# ---------------------------------------------------------------------------------------------
# Part C: the depthwise-separable cost ratio
# ---------------------------------------------------------------------------------------------

PRED_C = Prediction(
    question=(
        "A 3×3 convolution with 64 input channels is replaced by a depthwise-separable pair (3×3 depthwise, "
        "then 1×1 pointwise). Now widen the layer: C_out goes from 64 to 1,024. What happens to the MAC "
        "saving (standard ÷ separable)?"
    ),
    options={
        "unbounded": "It grows without any limit: the wider the layer, the more the split saves",
        "limit": "It levels off: it creeps toward the kernel area (K²) but never passes it",
        "same": "It stays the same: the saving depends only on the kernel",
        "shrinks": "It shrinks: the pointwise step's C_in × C_out work takes over",
    },
    answer="limit",
    feedback={
        "unbounded": "The depthwise step does K² MACs per channel and the pointwise step C_out per channel, against "
        "K²·C_out for the standard conv: the ratio is 1/(1/C_out + 1/K²), capped by K².",
        "limit": "1/C_out + 1/K²: the 1/C_out term fades as the layer widens, so the saving climbs from 7.9× at 64 "
        "channels to 8.9× at 1,024 and can never exceed 9× for a 3×3 kernel. The chapter's '8–9×' holds only "
        "for wide layers.",
        "same": "The pointwise step's share, 1/C_out, depends on the width: narrow layers save noticeably less than "
        "wide ones (about 5.8× at 16 channels, 8.9× at 1,024).",
        "shrinks": "The pointwise work grows with C_out, but the standard conv's K²·C_in·C_out grows just as fast, "
        "so the ratio rises toward K², not down.",
    },
    reveals=("never passes it", "8.9×"),
    asks="direction",
    misconceptions={
        "unbounded": (
            "savings scale with width",
            "The wider the layer, the larger the separable split's saving, without limit",
        ),
        "same": (
            "the saving is the kernel's",
            "A separable split saves a fixed factor set by the kernel alone",
        ),
        "shrinks": (
            "pointwise work takes over",
            "The 1×1 step's C_in·C_out cost grows until it erases the saving",
        ),
    },
)

TRANSFER_C = Prediction(
    question=(
        "Now a 1×1 convolution, 64 → 64 channels at 224×224. What does splitting it into a depthwise and a "
        "pointwise step do to its MACs?"
    ),
    options={
        "save": "Saves MACs, as every separable split does: the pointwise step is the cheap one",
        "same": "Leaves them exactly as they were: at K = 1 the depthwise step does nothing",
        "more": "A few more MACs: the depthwise step still costs one per pixel and channel",
    },
    answer="more",
    feedback={
        "save": "The saving is 1/(1/C_out + 1/K²), capped at K²: at K = 1 the cap is 1, so nothing can be saved. "
        "The pointwise step is the whole original convolution.",
        "same": "A 1×1 depthwise step is a per-channel scale, but it is still computed: one MAC per pixel and "
        "channel, 3.2 M on top of the 205.5 M of the pointwise step.",
        "more": "1/64 + 1/1 = 1.016: the pair does 208.7 M MACs against 205.5 M. The split pays only for the "
        "spatial work it splits off, and a 1×1 kernel has none.",
    },
    kind="transfer",
    reveals=("208.7 M",),
    asks="direction",
    misconceptions={
        "save": (
            "separable always saves",
            "Splitting any convolution into depthwise and pointwise steps cuts its MACs",
        ),
        "same": (
            "a 1×1 depthwise step is free",
            "At K = 1 the depthwise step does no work, so the split costs nothing",
        ),
    },
)
C_C_OUT = Slider("Output channels C_out", 8, 1024, CHANNELS, step=8)
C_KERNEL = Choice("Kernel", {"3": "3×3", "5": "5×5", "7": "7×7"}, "3")


@lru_cache(maxsize=4096)
def _ds_reduction(c_out: int, k: int) -> float:
    """Standard / depthwise-separable MACs on the chapter's 64-channel, 224x224 layer."""
    std = _conv(CHANNELS, c_out, k, IMAGE_PX)
    ds = L.depthwise_separable(CHANNELS, c_out, k, IMAGE_PX)
    return std.macs() / ds.macs()


def _c_out_for(target: float, k: int) -> int:
    for c in range(1, 100_000):
        if _ds_reduction(c, k) >= target:
            return c
    return 100_000


@widget_args
def part_c(c_out: int, kernel: str) -> View:
    import plotly.graph_objects as go

    co, k = int(c_out), int(kernel)
    std = _conv(CHANNELS, co, k, IMAGE_PX)
    ds = L.depthwise_separable(CHANNELS, co, k, IMAGE_PX)
    dw, pw = ds.layers
    red = std.macs() / ds.macs()
    grid = [8, 16, 24, 32, 48, 64, 72, 96, 128, 192, 256, 384, 512, 768, 1024]
    fig = figure(
        f"Depthwise-separable savings ({CHANNELS} input channels)",
        "Output channels C_out (log scale)",
        "MACs saved (standard ÷ separable)",
        log_x=True,
    )
    for kk in (3, 5, 7):
        fig.add_trace(
            go.Scatter(
                x=grid,
                y=[_ds_reduction(c, kk) for c in grid],
                name=f"{kk}×{kk}",
                mode="lines+markers",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[co],
            y=[red],
            name="your setting",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )
    for y, label, dash in (
        (8, "8× (the chapter's low end)", "dot"),
        (k * k, f"limit K² = {k * k}", "dash"),
    ):
        fig.add_trace(
            go.Scatter(
                x=[grid[0], grid[-1]],
                y=[y, y],
                name=label,
                mode="lines",
                line=dict(dash=dash, width=1),
            )
        )

    c8 = _c_out_for(8, 3)
    inter = dw.activation_bytes(1, "fp32")
    cards = [
        Card("Standard MACs", fmt_count(std.macs(), 2), f"{k}×{k}, {CHANNELS}→{co} at {IMAGE_PX}²"),
        Card(
            "Separable MACs",
            fmt_count(ds.macs(), 2),
            f"depthwise {fmt_count(dw.macs(), 2)} + pointwise {fmt_count(pw.macs(), 2)}",
        ),
        Card(
            "MACs saved",
            fmt_ratio(red, 2),
            f"weights: {fmt_ratio(std.params / ds.params, 2)}",
            "ok" if red >= 8 else "warn",
        ),
        Card("C_out for 8× (3×3)", f"{c8}", "the chapter's '8–9×' needs at least this"),
        Card(
            "Extra intermediate map",
            fmt_bytes(inter),
            "FP32 depthwise output, written then re-read",
            "warn",
        ),
    ]
    summary = (
        f"With {co} output channels and {k}×{k} filters the separable pair does {fmt_ratio(red, 2)} fewer MACs "
        f"({fmt_count(ds.macs(), 2)} instead of {fmt_count(std.macs(), 2)}), approaching K² = {k * k} only as C_out "
        f"grows; 3×3 filters reach 8× at C_out = {c8}. The MAC count hides the {fmt_bytes(inter)} "
        f"intermediate map the pair may write and read back."
    )
    peek = [
        "separable / standard = (K² C_in + C_in C_out) / (K² C_in C_out) = 1/C_out + 1/K²",
        f"= 1/{co} + 1/{k * k} = {1 / red:.4f}  →  {red:.2f}× fewer MACs",
        f"weights: K² C_in + C_in C_out = {dw.params:,} + {pw.params:,} = {ds.params:,} vs {std.params:,}",
        f"8× at 3×3 needs 1/C_out + 1/9 ≤ 1/8  →  C_out ≥ {c8}",
    ]
    return View(fig, cards, summary, "Depthwise-separable ratio", peek)


# ---------------------------------------------------------------------------------------------
# Part D: 13.6x fewer FLOPs is not 13.6x faster
# ---------------------------------------------------------------------------------------------

PRED_D = Prediction(
    question=(
        "MobileNetV2 does about 14× fewer FLOPs than ResNet-50. Run both at batch 1 on an H100 in eager "
        "PyTorch (FP16, each kernel launch costing the engine's 5 µs). How much faster is MobileNetV2, "
        "and what sets that?"
    ),
    options={
        "flops": "Close to 14× faster: time follows the arithmetic a network does",
        "launch": "Only slightly faster: both pay the same fixed cost per kernel launched",
        "weights": "About 7× faster: batch-1 inference streams the weights, and it has 7× fewer",
        "slower": "Slower: its depthwise layers are memory-bound, where ResNet-50's convs compute",
    },
    answer="launch",
    feedback={
        "flops": "FLOPs are one term of the iron law. At batch 1 on an H100 each layer's arithmetic takes "
        "microseconds, while the 174 and 151 kernel launches take 870 and 755 µs: MobileNetV2 runs about "
        "1.2× faster, not 14×.",
        "launch": "About 1.2× in the roofline engine: launches take 870 µs of ResNet-50's 935 and 755 µs of "
        "MobileNetV2's 781, and a layer with fewer FLOPs costs the same launch. The answer holds across "
        "eager launch costs of 2 to 20 µs; only a near-zero cost (CUDA graphs, a compiled runtime) lifts "
        "the speedup past 1.5×, and even then not near 14×.",
        "weights": "Streaming weights binds an LLM decoding one token, whose weights are used once each. ResNet-50's "
        "51 MB of FP16 weights take about 15 µs at 3.35 TB/s: the launches, not the weights, set batch-1 time "
        "on a GPU.",
        "slower": "Its depthwise layers are memory-bound, but their memory time is microseconds: the memory-bound "
        "rows take about 26 µs of MobileNetV2's time against 60 µs of ResNet-50's. Launches dominate both, "
        "and MobileNetV2 launches fewer kernels, so it is still slightly faster.",
    },
    reveals=("1.2×", "1.20×", "but runs only"),
    asks="regime",
    misconceptions={
        "flops": ("time follows FLOPs", "Latency is proportional to the arithmetic a model does"),
        "weights": (
            "batch-1 time is weight streaming",
            "At batch 1 every model is bound by reading its weights, as LLM decoding is",
        ),
        "slower": (
            "memory-bound layers are always slower",
            "A network of memory-bound depthwise layers loses to one of compute-bound convs",
        ),
    },
)

TRANSFER_D = Prediction(
    question=(
        "MobileNetV2 at width 0.5 (every layer's channels halved; Part D offers only the full width) does "
        "about 3× fewer FLOPs than the full MobileNetV2 with the same layers. How much faster is it at "
        "batch 1 on the H100, and on the camera-trap SoC?"
    ),
    options={
        "split": "Barely faster on the H100, near 3× on the camera: the regimes differ",
        "flops": "Close to 3× on both: the same layers, each doing fewer FLOPs",
        "launch": "Barely faster on both: the layer count is unchanged, so launches rule",
    },
    answer="split",
    feedback={
        "split": "The H100 is bound by its launches at batch 1: the same 151 kernels at 5 µs each, so "
        "about 1.02× faster. The camera SoC is compute-bound: its sustained 2 GOP/s sets the time, so "
        "about 2.98× faster, close to its FLOP saving. A width multiplier buys time only where compute "
        "binds.",
        "flops": "On the H100 the 151 launches (755 µs) dwarf the arithmetic, and halving the width leaves "
        "the kernel count unchanged: about 1.02× faster. Only the compute-bound camera SoC comes close to "
        "3× (about 2.98×).",
        "launch": "On the camera SoC a launch is 20 µs against layers that take milliseconds of arithmetic: "
        "compute binds there, and a third of the operations gives about 2.98× less time. The H100 gains "
        "only about 1.02×.",
    },
    kind="transfer",
    reveals=("2.98×",),
    asks="regime",
    misconceptions={
        "flops": (
            "fewer FLOPs always pay",
            "Cutting a network's FLOPs cuts its latency in proportion, on any device",
        ),
        "launch": (
            "launches bind everywhere",
            "If launches dominate on a GPU, they dominate on every device",
        ),
    },
)
D_DEVICES = catalogue.labels(["H100", "JetsonOrinNX", "iPhone15Pro", "CortexA53Camera"])
D_DEVICE = Choice("Device", D_DEVICES, "H100")
D_BATCH = Slider("Batch size", 1, 128, 1)
D_FUSED = Toggle("Compiled graph (BN folded, activations fused)", False)
#: The engine's launch-cost assumption, as a control: the device's planning value, or a stated
#: cost per kernel in microseconds (CUDA graphs and compiled runtimes push it toward 0).
D_LAUNCH = Choice(
    "Launch cost per kernel",
    {
        "device": "the device's planning value",
        "0": "0 µs",
        "0.5": "0.5 µs",
        "2": "2 µs",
        "10": "10 µs",
        "50": "50 µs",
    },
    "device",
    inline=False,
)
D_EFFICIENCY = Slider(
    "Sustained efficiency (share of the datasheet peak)", 0.1, 1.0, 0.5, step=0.05
)
#: Where PRED_D's "only slightly faster" ends: the speedup whose launch cost the part reports.
D_THRESHOLD = 1.5


def _num(x: float) -> str:
    """A FLOP/B figure: whole numbers from 10 up, two significant digits below."""
    return f"{x:,.0f}" if x >= 10 else f"{x:.2g}"


#: Above this cost per kernel no runtime launches (eager CUDA is ~5-20 µs, a microcontroller's
#: call overhead far less): a crossing beyond it is not a lever a student can pull.
REALISTIC_LAUNCH_S = 1e-3


def _precision(dev) -> str:
    return "fp16" if "fp16" in dev.compute.precisions else dev.compute.quoted_precision


def _t(x: float) -> str:
    """A term of the iron law: a time, or 'none' for a term with no rows (never '0.00 ns')."""
    return fmt_time(x) if x > 0 else "none"


@widget_args
def part_d(
    device: str, batch: int, fused: bool, launch: str = "device", efficiency: float = 0.5
) -> View:
    import plotly.graph_objects as go

    base = HW.Hardware.get(device)
    dev = (
        base
        if launch == "device"
        else E.with_launch_cost(base, U.Q_(float(launch), "us").m_as("s"))
    )
    prec = _precision(dev)
    op = op_word(prec)  # integer arithmetic counts operations
    per = f"{op}/B"
    B, eta = int(batch), round(float(efficiency), 4)
    res = E.Engine.solve(
        M.Models.ResNet50, dev, batch_size=B, precision=prec, fused=bool(fused), efficiency=eta
    )
    mob = E.Engine.solve(
        M.Models.MobileNetV2, dev, batch_size=B, precision=prec, fused=bool(fused), efficiency=eta
    )
    flop_ratio = res.flops / mob.flops
    speedup = res.latency_s / mob.latency_s
    flip = E.launch_cost_for_speedup(res, mob, D_THRESHOLD)
    tax_us = dev.dispatch_tax.m_as("us")

    names = ["ResNet-50", "MobileNetV2"]
    parts = [res.time_split, mob.time_split]
    to_unit, unit = time_unit([res.latency_s, mob.latency_s])
    fig = figure(
        f"Where the time goes: {device_label(dev)}, batch {B}, {prec.upper()}, "
        f"{'compiled' if fused else 'eager'}",
        "",
        f"Latency per batch ({unit})",
    )
    for i, label in enumerate(("compute-bound rows", "memory-bound rows", "kernel launches")):
        fig.add_trace(go.Bar(x=names, y=[p[i] * to_unit for p in parts], name=label))
    fig.add_trace(
        go.Bar(
            x=["MobileNetV2 if time ∝ FLOPs"],
            y=[res.latency_s / flop_ratio * to_unit],
            name="FLOP-proportional expectation",
        )
    )
    fig.update_layout(barmode="stack")

    rows = M.Models.MobileNetV2.rows()
    dw = [
        t
        for r, t in zip(rows, mob.layers, strict=True)
        if isinstance(r.layer, L.Conv2d) and r.layer.groups > 1
    ]
    dw_int = sum(t.flops for t in dw) / sum(t.bytes for t in dw)
    dw_time = sum(t.time for t in dw)  # > 0: every layer moves bytes
    dw_share = dw_time / mob.latency_s
    dw_launch = sum(t.t_dispatch for t in dw) / dw_time
    rconv = [t for t in res.layers if t.type == "Conv2d"]
    r_int = sum(t.flops for t in rconv) / sum(t.bytes for t in rconv)
    kern_r = sum(t.kernels for t in res.layers)
    kern_m = sum(t.kernels for t in mob.layers)
    ridge = res.sustained_ridge_point
    sustained = dev.compute.is_sustained
    tracks = speedup >= 0.9 * flop_ratio

    def _lat(key, p):  # tagged only at the device's own launch cost (the registry's assumption)
        return (
            None
            if launch != "device"
            else fact(
                "latency",
                p.latency_s,
                model=key,
                device=device,
                batch=B,
                precision=prec,
                efficiency=eta,
                fused=bool(fused),
            )
        )

    cards = [
        Card(
            "ResNet-50",
            fmt_time(res.latency_s),
            f"{fmt_flops(res.flops, 2, precision=prec)} · {bound_phrase(res.bottleneck)}",
            fact=_lat("ResNet50", res),
        ),
        Card(
            "MobileNetV2",
            fmt_time(mob.latency_s),
            f"{fmt_flops(mob.flops, 2, precision=prec)} · {bound_phrase(mob.bottleneck)}",
            fact=_lat("MobileNetV2", mob),
        ),
        Card(
            "Speedup",
            fmt_ratio(speedup, 2),
            f"vs {fmt_ratio(flop_ratio)} fewer {op}s",
            "ok" if tracks else "bad" if speedup < 0.5 * flop_ratio else "warn",
        ),
        Card(
            "Depthwise intensity",
            f"{dw_int:,.1f} {per}",
            f"ResNet convs {_num(r_int)}; {LABELS['ridge_sustained'].split(' (')[0]} {_num(ridge)} {per}",
            "warn" if dw_int < ridge else "ok",
        ),
        Card(
            "Depthwise share",
            f"{dw_share:.0%}",
            f"of MobileNetV2's time, for {sum(t.flops for t in dw) / mob.flops:.0%} of its FLOPs",
        ),
        Card(
            "Kernels launched",
            f"{kern_r} vs {kern_m}",
            f"{tax_us:g} µs each" + ("" if fused else " (eager)"),
        ),
        Card(
            f"Launch cost where the speedup crosses {D_THRESHOLD:g}×",
            "never (≥ 0 µs)"
            if flip is None
            else f"{flip * 1e6:,.2f} µs"
            if flip <= REALISTIC_LAUNCH_S
            else fmt_time(flip),
            "above it MobileNetV2 gains less"
            if flip is not None
            else "same side at any launch cost",
        ),
    ]
    if sustained:
        rate_note = (
            f"{fmt_rate(res.sustained_flops_s, precision=prec)} ({prec.upper()}), a rate already sustained, never derated "
            "again (the efficiency control does not apply)"
        )
    else:
        rate_note = (
            f"{fmt_rate(res.peak_flops_s, precision=prec)} datasheet peak × efficiency {eta:g} = "
            f"{fmt_rate(res.sustained_flops_s, precision=prec)} ({prec.upper()})"
        )
    if tracks:
        verdict = (
            f"MobileNetV2 does {fmt_ratio(flop_ratio)} fewer {op}s and runs {fmt_ratio(speedup, 2)} faster "
            f"({fmt_time(mob.latency_s)} vs {fmt_time(res.latency_s)}): on this compute-bound setting time "
            f"follows {op}s, which is what the count promises and what a GPU at batch 1 does not deliver."
        )
    else:
        verdict = (
            f"MobileNetV2 does {fmt_ratio(flop_ratio)} fewer {op}s but runs only {fmt_ratio(speedup, 2)} "
            f"faster ({fmt_time(mob.latency_s)} vs {fmt_time(res.latency_s)}). Launches take "
            f"{fmt_time(mob.latency_dispatch_s)} of its time. Its {len(dw)} depthwise layers take "
            f"{dw_share:.0%} of the time for {sum(t.flops for t in dw) / mob.flops:.0%} of the FLOPs, "
            f"{dw_launch:.0%} of that their own launches; the rest is "
            f"{'memory' if dw_int < ridge else 'compute'}-bound ({dw_int:,.1f} {per} against a "
            f"{LABELS['ridge_sustained']} of {_num(ridge)})."
        )
    if flip is None:
        flips = (
            f"No launch cost would carry the speedup across {D_THRESHOLD:g}× here: it stays "
            f"{'above' if speedup > D_THRESHOLD else 'below'} at any cost per kernel."
        )
    elif flip > REALISTIC_LAUNCH_S:
        flips = (
            f"No realistic launch cost changes the answer here: the speedup would cross "
            f"{D_THRESHOLD:g}× at {fmt_time(flip)} per kernel, far above any runtime's."
        )
    else:
        flips = (
            f"The answer rests on the launch cost: at {tax_us:g} µs per kernel the speedup is "
            f"{fmt_ratio(speedup, 2)}; it crosses {D_THRESHOLD:g}× at {flip * 1e6:,.2f} µs per kernel, "
            f"{'below' if speedup < D_THRESHOLD else 'above'} which it is {'larger' if speedup < D_THRESHOLD else 'smaller'}."
        )
    summary = (
        f"On the {device_label(dev)} at batch {B}: {verdict} {flips} Sustained rate: {rate_note}."
    )
    by_kernel = dict(
        sorted(M.conv_macs_by_kernel(M.Models.ResNet50).items(), key=lambda kv: -kv[1])
    )
    total = sum(by_kernel.values())
    peek = [
        f"t = Σ_rows max({op}s / sustained rate, bytes / BW) + kernels × launch cost",
        f"sustained rate = {rate_note}; BW = {dev.memory.bandwidth:~P}; "
        f"{LABELS['ridge_peak']} = {_num(res.ridge_point)}, {LABELS['ridge_sustained']} = {_num(ridge)} {per}",
        f"ResNet-50:   {_t(parts[0][0])} compute-bound rows + {_t(parts[0][1])} memory-bound rows + {kern_r} × "
        f"{tax_us:g} µs = {fmt_time(res.latency_s)}",
        f"MobileNetV2: {_t(parts[1][0])} compute-bound rows + {_t(parts[1][1])} memory-bound rows + {kern_m} × "
        f"{tax_us:g} µs = {fmt_time(mob.latency_s)}",
        f"flip: (r_R + k_R t) / (r_M + k_M t) = {D_THRESHOLD:g}  →  t = "
        + ("none ≥ 0" if flip is None else f"{flip * 1e6:,.3f} µs"),
        f"FLOPs ratio {res.flops:,.0f} / {mob.flops:,.0f} = {flop_ratio:.2f} (the chapter rounds 8.2 G / 0.6 G = 13.7)",
        "ResNet-50 v1.5 MACs by kernel: "
        + ", ".join(f"{k} {100 * v / total:.1f}%" for k, v in by_kernel.items())
        + " (Table 2's '3×3 convs ≈48%' is ResNet v1; v1.5 moves the stride onto the 3×3)",
    ]
    facts = [
        fact("ridge_peak", res.ridge_point, device=device, precision=prec),
        fact("ridge_sustained", ridge, device=device, precision=prec, efficiency=eta),
    ]
    return View(fig, cards, summary, "Iron law per layer", peek, facts=facts)


# ---------------------------------------------------------------------------------------------
# Part E: what the bias buys: equivariance (Eq. 4) and pooling invariance (Eq. 5), Example 6.3
# ---------------------------------------------------------------------------------------------

PRED_E = Prediction(
    question=(
        "Example 6.3: a 7×7 image with a vertical edge at column 3 goes through a 3×3 vertical-edge filter "
        "(a 5×5 map) and, separately, through a dense layer with 25 outputs. Shift the edge two columns "
        "right. What happens to each output?"
    ),
    options={
        "both": "Both shift two positions: both layers see the same shifted input",
        "conv": "The conv map follows the edge: the dense outputs change in no orderly way",
        "neither": "Neither changes: it is the same edge, only moved",
        "reversed": "The dense outputs shift, the conv map stays put: its filter is fixed",
    },
    answer="conv",
    feedback={
        "both": "Only a shared filter guarantees it: every conv output applies the same 9 weights to its own "
        "window, so moving the input moves the map (Eq. 4). Each dense output has its own weight for every "
        "input pixel, so moving the input mixes it through different weights.",
        "conv": "f(T x) = T f(x) for the convolution: the +3/−3 columns move from positions 1 and 3 to 3 and 5. The "
        "dense layer has 25 × 49 = 1,225 independent weights, and nothing ties the output for one position "
        "to the output for its neighbour. Equivariance is what weight sharing buys, beyond fewer weights.",
        "neither": "That is invariance (Eq. 5), which pooling provides later. The conv map itself keeps the edge's "
        "position: a detector must know where the edge is.",
        "reversed": "Sharing is what makes the conv move with its input: the same filter at every position responds "
        "wherever the edge now is. The dense layer's weights are tied to fixed pixels, so its outputs "
        "do not shift.",
    },
    reveals=("Equivariance is what weight sharing buys",),
    asks="behaviour",
    misconceptions={
        "both": (
            "every layer is equivariant",
            "Any layer fed a shifted input produces a shifted output",
        ),
        "neither": (
            "equivariance is invariance",
            "A convolution's output ignores where a feature is, so a shift changes nothing",
        ),
        "reversed": (
            "a fixed filter stays put",
            "A filter with fixed weights responds at a fixed place, whatever the input does",
        ),
    },
)

TRANSFER_E = Prediction(
    question=(
        "Run the same 3×3 edge filter at stride 2 instead (a 3×3 map; Part E's filter always steps one "
        "column), and shift the edge one column right. Does the output map shift with the edge?"
    ),
    options={
        "yes": "Yes, it shifts too: any convolution is shift-equivariant",
        "no": "No: the shift falls between the positions a stride-2 filter visits",
        "pooled": "Only after pooling: pooling is what makes a map follow a shift",
    },
    answer="no",
    feedback={
        "yes": "Eq. 4 holds for stride 1. A stride-2 map samples every other window, so it can only move in "
        "whole steps of two columns: after a one-column shift the edge's +3/−3 response lands on the "
        "windows it skips, and the middle row goes from [3, −3, 0] to [0, 0, 0].",
        "no": "The stride-1 response [3, 0, −3, 0, 0] moves to [0, 3, 0, −3, 0]; stride 2 keeps columns 1, 3 "
        "and 5, so the middle row goes from [3, −3, 0] to [0, 0, 0]: the edge vanished. A two-column shift "
        "moves it one output exactly. Downsampling keeps equivariance only for shifts by multiples "
        "of the stride.",
        "pooled": "Pooling discards position (invariance, Eq. 5); it cannot make a map follow a shift. And here "
        "the strided map lost the edge altogether: its middle row goes from [3, −3, 0] to [0, 0, 0].",
    },
    kind="transfer",
    reveals=("multiples of the stride",),
    asks="behaviour",
    misconceptions={
        "yes": (
            "convolution is always equivariant",
            "Any convolution, whatever its stride, moves its map with its input",
        ),
        "pooled": (
            "pooling makes maps equivariant",
            "Pooling is what ties a map's position to the input's",
        ),
    },
)
E_COLUMN = Slider("Edge column (1–7)", 1, 7, 3)
E_SHIFT = Slider("Shift right by (columns; negative = left)", -4, 4, 2)
#: Seed of the dense layer's weights (any seed shows the same lesson; fixed so the view is stable).
E_DENSE_SEED = 6


@lru_cache(maxsize=1)
def _dense_weights():
    n = len(Y.EXAMPLE_IMAGE)
    out = n - len(Y.EXAMPLE_KERNEL) + 1
    return Y.dense_layer(n * n, out * out, seed=E_DENSE_SEED), (out, out)


@widget_args
def part_e(column: int, shift: int) -> View:
    import plotly.graph_objects as go

    col, dx = int(column), int(shift)
    x = Y.edge_image(len(Y.EXAMPLE_IMAGE), col - 1)
    tx = Y.shift(x, dx)
    k = Y.EXAMPLE_KERNEL
    conv_tx, t_conv = Y.conv2d_valid(tx, k), Y.shift(Y.conv2d_valid(x, k), dx)
    w, shape = _dense_weights()
    dense_tx, t_dense = Y.dense_apply(tx, w, shape), Y.shift(Y.dense_apply(x, w, shape), dx)
    err_conv, err_dense = (
        Y.max_abs_difference(conv_tx, t_conv),
        Y.max_abs_difference(dense_tx, t_dense),
    )
    pooled_x = Y.global_average_pool(Y.relu(Y.conv2d_valid(x, k)))
    pooled_tx = Y.global_average_pool(Y.relu(conv_tx))

    pos = list(range(1, shape[1] + 1))
    fig = figure(
        f"Edge at column {col}, shifted {dx:+d}: one row of each output",
        "Output column",
        "Response (row 3 of the 5×5 output)",
    )
    mid = shape[0] // 2
    fig.add_trace(
        go.Scatter(
            x=pos, y=conv_tx[mid], name="conv of the shifted image, f(Tx)", mode="lines+markers"
        )
    )
    fig.add_trace(
        go.Scatter(
            x=pos,
            y=t_conv[mid],
            name="shifted conv map, T f(x)",
            mode="markers",
            marker=dict(size=14, symbol="circle-open", line=dict(width=2)),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=pos,
            y=dense_tx[mid],
            name="dense of the shifted image, f(Tx)",
            mode="lines+markers",
            line=dict(dash="dot"),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=pos,
            y=t_dense[mid],
            name="shifted dense outputs, T f(x)",
            mode="markers",
            marker=dict(size=12, symbol="x"),
        )
    )

    n_in, n_out = len(w[0]), len(w)
    eq = err_conv == 0
    gone = all(v == 0 for row in conv_tx for v in row)  # the edge left the filter's view
    cards = [
        Card(
            "Conv: max |f(Tx) − T f(x)|",
            f"{err_conv:g}",
            "the edge left the filter's view"
            if gone
            else "Eq. 4 holds"
            if eq
            else "boundary effect",
            "warn" if gone or not eq else "ok",
        ),
        Card(
            "Dense: max |f(Tx) − T f(x)|",
            f"{err_dense:.2f}",
            "no equivariance",
            "bad" if err_dense > 0 else "ok",
        ),
        Card(
            "ReLU + global average pool",
            f"{pooled_x:g} → {pooled_tx:g}",
            "before → after the shift (Eq. 5)",
            "ok" if pooled_x == pooled_tx else "warn",
        ),
        Card(
            "Weights",
            f"{sum(len(r) for r in k)} vs {n_in * n_out:,}",
            f"3×3 filter vs dense {n_in}→{n_out}",
        ),
    ]
    summary = (
        f"Shifting the edge from column {col} by {dx:+d}: "
        + (
            "the edge leaves the region the filter sees, so the convolution of the shifted image is zero "
            "everywhere, and equal maps here say nothing about Eq. 4 or Eq. 5 (pick a smaller shift)"
            if gone
            else "the convolution's map "
            + (
                "moves with it exactly (f(Tx) = T f(x), Eq. 4)"
                if eq
                else f"differs from the shifted old map by {err_conv:g}: a response cut off at the border is "
                "missing from T f(x) (equivariance holds up to boundary effects)"
            )
        )
        + f", while the dense layer's outputs differ from a shifted copy by up to {err_dense:.2f}: its "
        f"{n_in * n_out:,} weights tie no output to its neighbour. Pooling the rectified map over every position "
        f"gives {pooled_x:g} before and {pooled_tx:g} after"
        + (
            ": nothing of the edge is left to pool."
            if gone
            else ": invariant (Eq. 5), the position is gone."
            if pooled_x == pooled_tx
            else ": the border changed what there was to pool."
        )
    )
    peek = [
        "equivariant: f(T x) = T f(x)  (Eq. 4);   invariant: f(T x) = f(x)  (Eq. 5)",
        "conv: out[i][j] = Σ_u,v W[u][v] · x[i+u][j+v]   (3×3 vertical-edge filter, stride 1, no padding)",
        f"row 3 of f(x): [{', '.join(f'{v:g}' for v in Y.conv2d_valid(x, k)[mid])}];  "
        f"of f(Tx): [{', '.join(f'{v:g}' for v in conv_tx[mid])}]",
        f"max |f(Tx) − T f(x)|: conv {err_conv:g}, dense {err_dense:.3f} (dense weights seeded, uniform in [−1, 1])",
        f"global average of ReLU(f): {pooled_x:g} → {pooled_tx:g}",
    ]
    if pooled_x == pooled_tx and not gone:
        peek.append(
            f"no free lunch: the pooled {pooled_x:g} is the same with the edge at column {col} or {col + dx}, "
            "which helps a classifier that should ignore the shift and defeats a task that must say where "
            "the edge is (localization): the bias that helps one task hurts another"
        )
    return View(fig, cards, summary, "Equivariance and invariance", peek)


# ---------------------------------------------------------------------------------------------
# Part F: turn the image: a plain conv vs a p4 group convolution (Cohen & Welling 2016)
# ---------------------------------------------------------------------------------------------

PRED_F = Prediction(
    question=(
        "A p4 layer (Cohen & Welling 2016) runs one learned 3×3 vertical-edge filter in its four "
        "90° rotations, giving four orientation maps of a 7×7 image with a vertical step edge. "
        "Turn the image 90° counterclockwise. What happens to the four maps?"
    ),
    options={
        "turn": "Each map turns 90° and stays in its own channel, as any convolution's map turns with its input",
        "same": "The four maps stay as they were, since the layer already holds every orientation of the filter",
        "cycle": "Each map turns 90° and every response moves on to the next orientation channel",
        "learned": "No map follows the turn, which would take four filters learned separately, 4× the weights",
    },
    answer="cycle",
    feedback={
        "turn": "A plain convolution does not turn with its input: the turned image meets the same "
        "upright filter, and the vertical-edge filter gives 0 on the now horizontal edge. What turns "
        "is the p4 layer's set of maps, and the response moves channel: the edge now lines up with "
        "the filter turned 90°.",
        "same": "That would be invariance (f(Rx) = f(x)). The p4 layer is equivariant: its four maps "
        "come out turned, and the response moves from the 0° filter's channel to the 90° filter's, "
        "so the layer still knows how the edge is oriented and where it is.",
        "cycle": "f(Rx) = R·P f(x) exactly: every map turns 90° and the orientation channels move one "
        "place round the cycle (P), with max |f(Rx) − R·P f(x)| = 0. A plain 3×3 filter's map is "
        "not a turned copy (it goes to 0: the turned edge is one it does not detect). Rotations form "
        "a group of four, and the channels carry it: Eq. 4 for rotations, not only shifts.",
        "learned": "The four rotated filters are the same 9 numbers turned, not new parameters: "
        "turning the input turns what each copy sees onto the next copy, so the maps follow the "
        "turn exactly with one learned filter. What grows 4× is the work: 4× the MACs and 4× the "
        "output maps.",
    },
    reveals=("one place round the cycle",),
    asks="behaviour",
    misconceptions={
        "turn": (
            "convolution is equivariant to every symmetry",
            "A convolution's map turns with a turned input as it shifts with a shifted one",
        ),
        "same": (
            "equivariance is rotation invariance",
            "A layer with every orientation gives the same output for a rotated input",
        ),
        "learned": (
            "rotation equivariance needs 4× the learned weights",
            "Each orientation needs its own learned filter, so equivariance costs 4× the weights",
        ),
    },
)

TRANSFER_F = Prediction(
    question=(
        "Make Part A's layer (64 filters of 3×3×64 on a 224×224 map: 36,864 weights, 1.85 G MACs) "
        "a p4 lifting layer: each of its 64 filters applied in its four rotations. What does it cost?"
    ),
    options={
        "four": "The same 36,864 learned weights, with 4× the MACs and 4× the output maps",
        "weights": "4× the learned weights, 4× the MACs and 4× the output maps, one filter per rotation",
        "free": "The same weights, MACs and output maps, since the rotated filters are copies",
    },
    answer="four",
    feedback={
        "four": "The rotated copies are the same numbers, so the learned weights stay 36,864; but each "
        "copy runs at every position: 4 × 1.85 G = 7.40 G MACs and 256 output maps instead of 64 "
        "(12.8 MB → 51.4 MB FP32). Equivariance to a larger group is paid for in compute and "
        "activations, and needs a rotated-filter kernel the hardware or library must provide.",
        "weights": "Only the executed copies grow 4×: the gradient of the four copies flows into one "
        "set of 36,864 learned numbers. The MACs (7.40 G) and output maps (256 channels) do grow 4×.",
        "free": "Copies share storage, not work: each rotated filter is applied at every position, so "
        "the MACs go from 1.85 G to 7.40 G and the output from 64 maps to 256.",
    },
    kind="transfer",
    reveals=("7.40 G MACs",),
    asks="behaviour",
    misconceptions={
        "weights": (
            "rotation copies are new parameters",
            "A filter applied in four rotations has four times the weights to learn",
        ),
        "free": (
            "shared weights mean shared compute",
            "A copy of a weight costs nothing to run again",
        ),
    },
)
F_ROTATION = Choice(
    "Turn the image by", {"0": "0°", "90": "90°", "180": "180°", "270": "270°"}, "90"
)
F_LAYER = Choice(
    "Layer",
    {"plain": "Plain conv (one filter)", "p4": "p4 group conv (the filter in 4 rotations)"},
    "p4",
)
#: The step edge of Part F: dark columns 1-3, bright columns 4-7 of a 7x7 image.
F_EDGE_COLUMN = 3
ORIENTATIONS = ("0°", "90°", "180°", "270°")


def _peak(fmap) -> float:
    return max(max(r) for r in fmap)


@widget_args
def part_f(rotation: str, layer: str) -> View:
    import plotly.graph_objects as go

    turns = int(rotation) // 90
    p4 = layer == "p4"
    x = Y.step_image(len(Y.EXAMPLE_IMAGE), F_EDGE_COLUMN)
    rx = Y.rot90(x, turns)
    k = Y.EXAMPLE_KERNEL
    if p4:
        f_x, f_rx = Y.p4_conv2d_valid(x, k), Y.p4_conv2d_valid(rx, k)
        expected = Y.p4_rotate(f_x, turns)
        err = max(Y.max_abs_difference(a, b) for a, b in zip(f_rx, expected, strict=True))
        names = [f"{o} filter" for o in ORIENTATIONS]
    else:
        f_x, f_rx = [Y.conv2d_valid(x, k)], [Y.conv2d_valid(rx, k)]
        expected = [Y.rot90(f_x[0], turns)]
        err = Y.max_abs_difference(f_rx[0], expected[0])
        names = ["the one filter"]
    peaks_x, peaks_rx = [_peak(m) for m in f_x], [_peak(m) for m in f_rx]

    fig = figure(
        f"Strongest response of each output map, image turned {turns * 90}°",
        "Output map",
        "Strongest response (max over positions)",
        height=340,
    )
    fig.add_trace(go.Bar(x=names, y=peaks_x, name="upright image"))
    fig.add_trace(go.Bar(x=names, y=peaks_rx, name=f"image turned {turns * 90}°"))
    fig.update_layout(barmode="group")

    plain = _conv_valid(1, 1)
    run = Y.p4_layer(plain) if p4 else plain
    silent = all(v == 0 for m in f_rx for r in m for v in r)
    negated = (
        not p4
        and turns
        and all(
            a == -b
            for ra, rb in zip(f_rx[0], expected[0], strict=True)
            for a, b in zip(ra, rb, strict=True)
        )
    )
    eq_label = "max |f(Rx) − R·P f(x)|" if p4 else "max |f(Rx) − R f(x)|"
    cards = [
        Card(
            eq_label,
            f"{err:g}",
            "exact: Eq. 4 for rotations"
            if err == 0 and turns
            else "no turn: trivially equal"
            if err == 0
            else "not a turned copy",
            "ok" if err == 0 else "bad",
        ),
        Card(
            "Strongest response",
            f"{max(peaks_x):g} → {max(peaks_rx):g}",
            f"{names[peaks_x.index(max(peaks_x))]} → "
            + (f"{names[peaks_rx.index(max(peaks_rx))]}" if max(peaks_rx) > 0 else "none"),
            "ok" if max(peaks_rx) == max(peaks_x) else "warn",
        ),
        Card(
            "Learned weights",
            f"{plain.params:,}",
            "one 3×3 filter" + (", run in 4 rotations" if p4 else ""),
        ),
        Card(
            "MACs · output values (7×7 image)",
            f"{run.macs():,} · {run.output_elements:,}",
            f"4× a plain conv's {plain.macs():,} · {plain.output_elements:,}"
            if p4
            else "the plain conv: one map",
        ),
    ]
    if turns == 0:
        behaviour = "Unturned, every map equals itself: pick a turn to test Eq. 4 for rotations."
    elif p4:
        behaviour = (
            f"Turning the image {turns * 90}° turns all four maps and moves every response "
            f"{('one place', 'two places', 'three places')[turns - 1]} round the orientation "
            f"cycle: the edge the {names[0]} found now lights up the channel of the "
            f"{names[turns]}, and "
            f"max |f(Rx) − R·P f(x)| = {err:g}, exactly, with the same {plain.params} learned weights."
        )
    else:
        behaviour = (
            f"Turned {turns * 90}°, the edge meets the same upright filter, and "
            + (
                "it detects nothing (the vertical-edge filter gives 0 on a horizontal edge): the map "
                "is all zeros, not a turned copy of the old one"
                if silent
                else "the edge now runs from bright to dark: the map is the turned copy with its sign "
                "flipped, and its strongest response is 0"
                if negated
                else "the map is not a turned copy of the old one"
            )
            + f" (max |f(Rx) − R f(x)| = {err:g}). "
            "A plain convolution is equivariant to shifts, not to rotations."
        )
    summary = (
        behaviour
        + f" The p4 layer pays for its symmetry in work, not weights: {Y.p4_layer(plain).macs():,} MACs "
        f"and {Y.p4_layer(plain).output_elements} output values against {plain.macs()} and "
        f"{plain.output_elements} for the plain conv, 4× each."
    )
    peek = [
        "plain: f(x) = W ⋆ x;   p4: map r = (W turned r quarter turns) ⋆ x, r = 0..3 (one learned W)",
        "rotation equivariance: f(Rx) = R·P f(x), R turns each map, P moves channel r to r + 1",
        f"strongest response per map, upright: {', '.join(f'{v:g}' for v in peaks_x)};  "
        f"turned: {', '.join(f'{v:g}' for v in peaks_rx)}",
        f"MACs = H_out · W_out · C_out · K² · C_in: plain {plain.macs():,}, p4 "
        f"{Y.p4_layer(plain).macs():,} (C_out 1 → 4); learned weights {plain.params} in both",
    ]
    return View(fig, cards, summary, "Rotation equivariance", peek)


def _conv_valid(c_in: int, c_out: int) -> L.Conv2d:
    """Part F's 3x3 filter on the 7x7 image, unpadded ('valid', a 5x5 map), weights only."""
    n = len(Y.EXAMPLE_IMAGE)
    return L.Conv2d(in_channels=c_in, out_channels=c_out, kernel_size=3, input_size=n, bias=False)


# ---------------------------------------------------------------------------------------------
# Synthesis: ship the keyword spotter on a microcontroller
# ---------------------------------------------------------------------------------------------

S_DEVICE = Choice(
    "Microcontroller",
    catalogue.labels(["ArduinoNano33BLESense", "STM32H743"]),
    "ArduinoNano33BLESense",
    inline=False,
)
S_PRECISION = Choice(
    "Weights and activations", {"fp32": "FP32 (4 B)", "int8": "INT8 (1 B)"}, "fp32"
)
S_FLASH_RESERVE = Slider(
    "Flash used by firmware (KiB): bootloader, RTOS, runtime, audio front end", 0, 512, 256, step=32
)
S_SRAM_RESERVE = Slider(
    "SRAM used by firmware (KiB): stack, audio buffers, runtime", 0, 128, 64, step=16
)


def _left_for_model(dev, flash_kib: int, sram_kib: int):
    """The device as the model sees it: flash and SRAM minus what the firmware keeps."""
    mem = dev.memory
    flash = max(0.0, mem.flash.m_as("B") - U.Q_(flash_kib, "KiB").m_as("B"))
    sram = max(0.0, mem.sram.m_as("B") - U.Q_(sram_kib, "KiB").m_as("B"))
    return dev.model_copy(
        update={
            "memory": mem.model_copy(
                update={
                    "flash": U.Q_(flash, "B"),
                    "sram": U.Q_(sram, "B"),
                    "capacity": U.Q_(sram, "B"),
                }
            )
        }
    )


@widget_args
def synthesis(device: str, precision: str, flash_reserve: int, sram_reserve: int) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(device)
    kws = M.Models.KWS
    left = _left_for_model(dev, int(flash_reserve), int(sram_reserve))
    profs = {p: E.Engine.solve(kws, left, precision=p) for p in ("fp32", "int8")}
    raw = E.Engine.solve(kws, dev, precision=precision)
    p = profs[precision]
    flash_left, sram_left = left.memory.flash.m_as("B"), left.memory.sram.m_as("B")

    fig = figure(f"KWS DS-CNN on the {device_label(dev)}", "", "Kilobytes (1 KB = 1,000 B)")
    cats = ["flash: weights", "SRAM: peak activations"]
    for prec, pr in profs.items():
        fig.add_trace(
            go.Bar(
                x=cats,
                y=[pr.weight_bytes / 1e3, pr.activation_bytes / 1e3],
                name=f"{prec.upper()} needs",
            )
        )
    fig.add_trace(go.Bar(x=cats, y=[flash_left / 1e3, sram_left / 1e3], name="left for the model"))
    fig.update_layout(barmode="group")

    verdict = "fits" if p.feasible else f"does not fit: {overflow_text(p)}"
    cards = [
        Card("Parameters", fmt_count(kws.params), "the chapter's '200K'"),
        Card(
            "Weights → flash",
            fmt_bytes(p.weight_bytes),
            f"{precision.upper()}; {fmt_bytes(flash_left)} left",
            "ok" if p.weight_bytes <= flash_left else "bad",
        ),
        Card(
            "Activations → SRAM",
            fmt_bytes(p.activation_bytes),
            f"peak live tensors; {fmt_bytes(sram_left)} left",
            "ok" if p.activation_bytes <= sram_left else "bad",
        ),
        Card(
            "Verdict",
            "fits" if p.feasible else "does not fit",
            f"tightest: {memory_name(p.limiting_memory)}" if p.feasible else overflow_text(p),
            "ok" if p.feasible else "bad",
        ),
        Card("Latency", fmt_time(p.latency_s), f"{bound_phrase(p.bottleneck)}, batch 1"),
        Card(
            "Whole chip, no firmware",
            "fits" if raw.feasible else "does not fit",
            f"{dev.memory.flash:~P} flash ({fmt_bytes(dev.memory.flash.m_as('B'), 2)}), "
            f"{dev.memory.sram:~P} SRAM ({fmt_bytes(dev.memory.sram.m_as('B'))})",
        ),
    ]
    summary = (
        f"At {precision.upper()} the keyword spotter's {fmt_count(kws.params)} parameters take "
        f"{fmt_bytes(p.weight_bytes)} of flash and its peak activations {fmt_bytes(p.activation_bytes)} of "
        f"SRAM; after the firmware's share the {device_label(dev)} has {fmt_bytes(flash_left)} and "
        f"{fmt_bytes(sram_left)} left, so it {verdict}. INT8 cuts both fourfold "
        f"({fmt_bytes(profs['int8'].weight_bytes)} and {fmt_bytes(profs['int8'].activation_bytes)})."
    )
    peek = [
        f"weights = params × bytes/value = {kws.params:,} × {float(U.bytes_per_value(precision)):g} B = {fmt_bytes(p.weight_bytes)}",
        "chapter: 200K × 4 B = 800 KB (FP32) → 200 KB (INT8)",
        f"flash left = {dev.memory.flash:~P} − {int(flash_reserve)} KiB = {fmt_bytes(flash_left, binary=True)} "
        f"= {fmt_bytes(flash_left)}; SRAM left = {dev.memory.sram:~P} − {int(sram_reserve)} KiB = "
        f"{fmt_bytes(sram_left, binary=True)} = {fmt_bytes(sram_left)} (KiB = 1,024 B, KB = 1,000 B)",
        "feasible = weights ≤ flash left and peak activations ≤ SRAM left (engine: Profile.feasible)",
        f"latency = Σ max({op_word(precision)}s / (peak × {p.efficiency:g} "
        "efficiency), bytes / BW) + ops × "
        f"{dev.dispatch_tax.m_as('us'):g} µs "
        f"= {fmt_time(p.latency_s)}",
    ]
    return View(fig, cards, summary, "Microcontroller fit", peek)
