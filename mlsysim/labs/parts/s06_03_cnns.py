"""Section 6.3, CNNs: each part is a plain function of its widget values.

Every count comes from ``mlsysim`` (``layers.Conv2d``, ``layers.Dense``,
``layers.receptive_field``, ``layers.depthwise_separable``, ``models.Models``, ``Engine``,
``Hardware``); this module picks the inputs, draws the chart and writes the sentences. The
chapter's numbers are asserted in ``tests/test_s06_03_cnns.py``.
"""

from __future__ import annotations

from functools import lru_cache

from ... import layers as L
from ...engine import Engine
from ...hardware import Hardware
from ...models import Models
from ...units import Q_, bytes_per_value
from ..charts import figure
from ..components import (
    Card,
    Choice,
    Prediction,
    Slider,
    Toggle,
    View,
    fmt_bytes,
    fmt_count,
    fmt_ratio,
    fmt_time,
)

CHAPTER = "6.3"
PARTS = ("A", "B", "C", "D")

#: ImageNet input side used by the chapter's worked conv layer (L435, L443).
IMAGE_PX = 224
#: "detecting objects spanning 100+ pixels in a 224x224 image" (L321, footnote 14).
OBJECT_PX = 100
#: Channels of the chapter's worked 3x3 layer, "64 input and 64 output channels" (L286, L435).
CHANNELS = 64


def _conv(c_in: int, c_out: int, k: int, side: int, stride: int = 1) -> L.Conv2d:
    """A bias-free K x K conv with 'same' padding (the chapter's counting: weights only)."""
    return L.Conv2d(in_channels=c_in, out_channels=c_out, kernel_size=k, input_size=side,
                    stride=stride, padding=k // 2, bias=False)


# ---------------------------------------------------------------------------------------------
# Part A: weight sharing, and what still grows with resolution
# ---------------------------------------------------------------------------------------------

PRED_A = Prediction(
    question=("A 3×3 convolution with 64 input and 64 output channels runs on a 224×224 feature map. "
              "A dense layer maps the same flattened 224×224×64 input to 64 scalar outputs. How do their "
              "weight counts compare?"),
    options={
        "equal": "The same: both are 64-to-64 channel transformations",
        "shared": "Conv 36,864 vs dense about 205 million, and the outputs are not the same shape",
        "nine": "The conv needs only 9 weights: one shared 3×3 filter",
        "reversed": "Conv about 205 million vs dense 36,864",
    },
    answer="shared",
    feedback={
        "equal": "Channel counts alone do not set the bill. The dense layer gives every one of its 64 outputs its "
                 "own weight for each of the 3.2 million input values; the conv reuses 3×3×64 weights per "
                 "filter at every position.",
        "shared": "3×3×64×64 = 36,864 weights at any resolution, against 224²×64×64 ≈ 205.5 million. The dense "
                  "layer outputs 64 scalars, the conv 64 full feature maps, so the two are not interchangeable.",
        "nine": "Sharing is across positions, not across channels: each of the 64 filters needs a 3×3 slice for "
                "each of the 64 input channels, 3×3×64×64 = 36,864 weights.",
        "reversed": "Swapped: the dense layer is the one whose weights scale with the input area (224²×64×64).",
    },
)
A_RESOLUTION = Slider("Feature-map side H = W (pixels)", 32, 1024, IMAGE_PX, step=32)
A_CHANNELS = Slider("Channels (C_in = C_out)", 16, 512, CHANNELS, step=16)
A_KERNEL = Choice("Kernel", {"1": "1×1", "3": "3×3", "5": "5×5", "7": "7×7"}, "3")


def part_a(resolution: int, channels: int, kernel: str) -> View:
    """Weights stay flat while MACs, activations and the im2col buffer grow with the area."""
    import plotly.graph_objects as go

    res, c, k = int(resolution), int(channels), int(kernel)
    conv = _conv(c, c, k, res)
    dense = L.Dense(in_features=res * res * c, out_features=c, bias=False)
    b32 = bytes_per_value("fp32")
    sides = list(range(int(A_RESOLUTION.start), int(A_RESOLUTION.stop) + 1, int(A_RESOLUTION.step)))
    convs = [_conv(c, c, k, s) for s in sides]

    fig = figure(f"What grows with resolution: {k}×{k} conv, {c}→{c} channels", "Feature-map side (pixels)",
                 "Count per image (log scale)", log_y=True)
    fig.add_trace(go.Scatter(x=sides, y=[L.Dense(in_features=s * s * c, out_features=c, bias=False).params
                                         for s in sides],
                             name=f"dense weights (flattened map → {c} outputs)", mode="lines"))
    fig.add_trace(go.Scatter(x=sides, y=[cv.macs() for cv in convs], name="conv MACs", mode="lines"))
    fig.add_trace(go.Scatter(x=sides, y=[cv.im2col_elements for cv in convs], name="im2col buffer (values)",
                             mode="lines", line=dict(dash="dot")))
    fig.add_trace(go.Scatter(x=sides, y=[cv.output_elements for cv in convs], name="conv output activations",
                             mode="lines", line=dict(dash="dash")))
    fig.add_trace(go.Scatter(x=sides, y=[cv.params for cv in convs], name="conv weights", mode="lines"))
    fig.add_trace(go.Scatter(x=[res], y=[conv.params], name="your setting", mode="markers",
                             marker=dict(size=13, symbol="diamond")))

    toy = L.Conv2d(in_channels=1, out_channels=1, kernel_size=2, input_size=3, bias=False)
    ratio = dense.params / conv.params
    im2col_bytes = conv.im2col_elements * b32
    cards = [
        Card("Conv weights", fmt_count(conv.params), f"{fmt_bytes(conv.weight_bytes('fp32'))} FP32, at any resolution",
             "ok"),
        Card("Conv MACs per image", fmt_count(conv.macs(), 2), f"{fmt_count(conv.flops(), 2)} FLOPs (1 MAC = 2 FLOPs)"),
        Card("Uses of each weight", f"{conv.weight_reuse:,}", f"one per output position ({res}×{res})"),
        Card("Output activations", fmt_bytes(conv.activation_bytes(1, "fp32")), "FP32, per image in the batch", "warn"),
        Card("im2col buffer", fmt_bytes(im2col_bytes), f"{fmt_ratio(conv.im2col_expansion, 2)} the input; "
             "implicit GEMM never builds it", "warn" if conv.im2col_expansion > 1 else "ok"),
        Card("Dense equivalent", fmt_count(dense.params), f"{ratio:,.0f}× the conv's weights", "bad"),
    ]
    summary = (f"At {res}×{res}, the {k}×{k} conv keeps {conv.params:,} weights ({fmt_bytes(conv.weight_bytes('fp32'))} "
               f"in FP32) and uses each one {conv.weight_reuse:,} times, for {fmt_count(conv.macs(), 2)} MACs. Its output "
               f"maps take {fmt_bytes(conv.activation_bytes(1, 'fp32'))} and a materialized im2col buffer "
               f"{fmt_bytes(im2col_bytes)}: weights are flat in resolution, everything else grows with the area. "
               f"A dense layer to {c} scalars would need {fmt_count(dense.params)} weights.")
    peek = [
        f"conv weights = K² × C_in × C_out = {k * k} × {c} × {c} = {conv.params:,}   (no H, no W)",
        f"conv MACs    = H_out × W_out × K² × C_in × C_out = {res}² × {k * k} × {c} × {c} = {conv.macs():,}",
        f"reuse/weight = H_out × W_out = {conv.weight_reuse:,}",
        f"dense        = (H × W × C_in) × C_out = {res * res * c:,} × {c} = {dense.params:,}",
        f"im2col       = H_out W_out × K² C_in = {conv.im2col_elements:,} values = {fmt_ratio(conv.im2col_expansion, 2)} "
        f"the input (→ K² = {k * k} for large stride-1 maps)",
        f"chapter toy  = 3×3 input, 2×2 filter: {toy.im2col_elements} / {toy.input_elements} = "
        f"{toy.im2col_expansion:.3f}× (borders keep it below K² = 4)",
    ]
    return View(fig, cards, summary, "Weight sharing and im2col", peek)


# ---------------------------------------------------------------------------------------------
# Part B: receptive field growth
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=("Stacked 3×3 convolutions, stride 1, with padding. By how much does the receptive field's side "
              "grow with each added layer?"),
    options={
        "nine": "By 9 pixels per layer (the kernel area), so 3 layers cover a 224×224 image",
        "double": "It doubles every layer, growing like 3^L",
        "two": "By 2 pixels per layer: layer 3 sees 7×7, so large objects need depth or downsampling",
        "fixed": "Not at all: it stays 3×3 because the weights are shared",
    },
    answer="two",
    feedback={
        "nine": "Nine is the kernel's area, not the growth of its side. Each stride-1 layer adds K − 1 = 2 pixels "
                "to the side: 3, 5, 7, …",
        "double": "Exponential growth needs downsampling (stride 2 or pooling) between layers. At stride 1 the side "
                  "grows linearly: 1 + L(K − 1).",
        "two": "1 + L(K − 1): 3, 5, 7. Reaching a 100-pixel object this way takes 50 layers, which is why real "
               "networks stride and pool.",
        "fixed": "Each layer's 3×3 window looks at outputs that already summarize 3×3 windows, so the region of the "
                 "input that reaches a unit grows with depth; sharing does not stop that.",
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


def part_b(kernel: str, stride: str, depth: int) -> View:
    import plotly.graph_objects as go

    k, s, n = int(kernel), int(stride), int(depth)
    depths = list(range(0, int(B_DEPTH.stop) + 1))
    fig = figure(f"Receptive field of stacked {k}×{k} convolutions", "Layers stacked",
                 "Receptive-field side (pixels, log scale)", log_y=True)
    fig.add_trace(go.Scatter(x=depths, y=[L.receptive_field(d, k, 1) for d in depths], name="stride 1",
                             mode="lines+markers"))
    fig.add_trace(go.Scatter(x=depths, y=[L.receptive_field(d, k, 2) for d in depths], name="stride 2 every layer",
                             mode="lines+markers", line=dict(dash="dash")))
    rf = L.receptive_field(n, k, s)
    fig.add_trace(go.Scatter(x=[n], y=[rf], name="your setting", mode="markers",
                             marker=dict(size=13, symbol="diamond")))
    for px, what in ((OBJECT_PX, "object"), (IMAGE_PX, "image")):
        fig.add_trace(go.Scatter(x=[depths[0], depths[-1]], y=[px, px], name=f"{px}-pixel {what}", mode="lines",
                                 line=dict(dash="dot", width=1)))

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
        Card("Receptive field", f"{rf:,}×{rf:,}", f"after {n} layer{'s' if n != 1 else ''}, stride {s}"
             + (f"; wider than the {IMAGE_PX}-px image" if rf > IMAGE_PX else "")),
        Card(f"Layers to see {OBJECT_PX} px", f"{need1} at stride 1", f"{need2} at stride 2",
             "bad" if need1 > 20 else "ok"),
        Card("Map side left", f"{side}×{side}", f"from {IMAGE_PX}×{IMAGE_PX}", "warn" if side < 14 else ""),
        Card(f"Stack vs one {rf1}×{rf1} conv", fmt_ratio(single / stack, 1),
             f"{n} × {k}×{k} ({stack:,} weights) vs {single:,} at {CHANNELS} channels"),
    ]
    summary = (f"{n} stacked {k}×{k} layers at stride {s} see a {rf}×{rf} patch. At stride 1 the side grows by "
               f"{k - 1} pixels per layer, so a {OBJECT_PX}-pixel object needs {need1} layers; striding every layer "
               f"needs {need2} layers but shrinks a {IMAGE_PX}-pixel map to {side2}×{side2} after {n}, so real networks "
               f"mix stride-1 stacks with occasional downsampling.")
    terms = " + ".join(f"{k - 1}×{s ** j}" for j in range(min(n, 4))) + (" + …" if n > 4 else "")
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
    question=("A 3×3 convolution with 64 input and 64 output channels is replaced by a depthwise-separable pair "
              "(3×3 depthwise, then 1×1 pointwise). By what factor do the MACs drop?"),
    options={"9x": "9× (K²)", "7.9x": "About 7.9×", "64x": "64× (C_out)", "2x": "About 2×"},
    answer="7.9x",
    feedback={
        "9x": "K² = 9 is the limit for very wide layers. The pointwise step still costs C_in × C_out per position, so "
              "the ratio is 1/C_out + 1/K² = 1/64 + 1/9, a 7.9× cut.",
        "7.9x": "1/64 + 1/9 = 0.127 of the standard cost: 7.9×. The chapter's '8–9×' needs C_out ≥ 72.",
        "64x": "That would drop the channel mixing entirely. The 1×1 pointwise conv keeps C_in × C_out MACs per "
               "position; only the spatial part shrinks.",
        "2x": "Far more than 2×: the K² spatial work is now done once per input channel instead of once per "
              "input-output pair.",
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


def part_c(c_out: int, kernel: str) -> View:
    import plotly.graph_objects as go

    co, k = int(c_out), int(kernel)
    std = _conv(CHANNELS, co, k, IMAGE_PX)
    ds = L.depthwise_separable(CHANNELS, co, k, IMAGE_PX)
    dw, pw = ds.layers
    red = std.macs() / ds.macs()
    grid = [8, 16, 24, 32, 48, 64, 72, 96, 128, 192, 256, 384, 512, 768, 1024]
    fig = figure(f"Depthwise-separable savings ({CHANNELS} input channels)", "Output channels C_out (log scale)",
                 "MACs saved (standard ÷ separable)", log_x=True)
    for kk in (3, 5, 7):
        fig.add_trace(go.Scatter(x=grid, y=[_ds_reduction(c, kk) for c in grid], name=f"{kk}×{kk}",
                                 mode="lines+markers"))
    fig.add_trace(go.Scatter(x=[co], y=[red], name="your setting", mode="markers",
                             marker=dict(size=13, symbol="diamond")))
    for y, label, dash in ((8, "8× (the chapter's low end)", "dot"), (k * k, f"limit K² = {k * k}", "dash")):
        fig.add_trace(go.Scatter(x=[grid[0], grid[-1]], y=[y, y], name=label, mode="lines",
                                 line=dict(dash=dash, width=1)))

    c8 = _c_out_for(8, 3)
    inter = dw.activation_bytes(1, "fp32")
    cards = [
        Card("Standard MACs", fmt_count(std.macs()), f"{k}×{k}, {CHANNELS}→{co} at {IMAGE_PX}²"),
        Card("Separable MACs", fmt_count(ds.macs()), f"depthwise {fmt_count(dw.macs())} + pointwise {fmt_count(pw.macs())}"),
        Card("MACs saved", fmt_ratio(red, 2), f"weights: {fmt_ratio(std.params / ds.params, 2)}",
             "ok" if red >= 8 else "warn"),
        Card("C_out for 8× (3×3)", f"{c8}", "the chapter's '8–9×' needs at least this"),
        Card("Extra intermediate map", fmt_bytes(inter), "FP32 depthwise output, written then re-read", "warn"),
    ]
    summary = (f"With {co} output channels and {k}×{k} filters the separable pair does {fmt_ratio(red, 2)} fewer MACs "
               f"({fmt_count(ds.macs())} instead of {fmt_count(std.macs())}), approaching K² = {k * k} only as C_out "
               f"grows; 3×3 filters reach 8× at C_out = {c8}. The MAC count hides the {fmt_bytes(inter)} "
               f"intermediate map the pair may write and read back.")
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
    question=("True or false, and by how much? 'MobileNetV2 needs roughly 14× fewer FLOPs than ResNet-50, so it "
              "runs at least 10× faster on a data-center GPU.' At batch 1 on an H100, MobileNetV2 is…"),
    options={
        "14x": "About 14× faster: time follows FLOPs",
        "10x": "At least 10× faster",
        "3x": "About 3–5× faster",
        "1x": "Less than 1.5× faster (the claim is false)",
    },
    answer="1x",
    feedback={
        "14x": "FLOPs are one term of the iron law. At batch 1 both networks spend most of their time launching "
               "~150 small kernels each, and MobileNetV2 launches about as many as ResNet-50.",
        "10x": "The self-check's statement is false: the speedup is bounded by launch overhead and memory traffic, "
               "which MobileNetV2 does not cut by 14×.",
        "3x": "Even that overstates it at batch 1 on a GPU: the launch term is nearly the same for both networks. "
              "Larger batches and a compiled graph move the ratio up, but nowhere near 14×.",
        "1x": "About 1.2× in the roofline engine: launches dominate both, and MobileNetV2's depthwise layers "
              "move many bytes for few FLOPs. FLOPs measure work, not time.",
    },
)
D_DEVICES = {"H100": "Cloud: H100", "JetsonOrinNX": "Edge: Jetson Orin NX", "iPhone15Pro": "Mobile: iPhone 15 Pro",
             "CortexA53Camera": "Camera SoC: Cortex-A53"}
D_DEVICE = Choice("Device", D_DEVICES, "H100")
D_BATCH = Slider("Batch size", 1, 128, 1)
D_FUSED = Toggle("Compiled graph (BN folded, activations fused)", False)


def _num(x: float) -> str:
    """A FLOP/B figure: whole numbers from 10 up, two significant digits below."""
    return f"{x:,.0f}" if x >= 10 else f"{x:.2g}"


def _precision(dev) -> str:
    return "fp16" if "fp16" in dev.compute.precisions else dev.compute.quoted_precision


def _attributed(prof) -> tuple[float, float, float]:
    """(compute-bound rows, memory-bound rows, launches): the engine's per-row attribution."""
    comp = sum(t.t_compute for t in prof.layers if t.t_compute >= t.t_memory)
    mem = sum(t.t_memory for t in prof.layers if t.t_compute < t.t_memory)
    return comp, mem, prof.latency_dispatch_s


def part_d(device: str, batch: int, fused: bool) -> View:
    import plotly.graph_objects as go

    dev = Hardware.get(device)
    prec = _precision(dev)
    B = int(batch)
    res = Engine.solve(Models.ResNet50, dev, batch_size=B, precision=prec, fused=bool(fused))
    mob = Engine.solve(Models.MobileNetV2, dev, batch_size=B, precision=prec, fused=bool(fused))
    flop_ratio = res.flops / mob.flops
    speedup = res.latency_s / mob.latency_s

    names = ["ResNet-50", "MobileNetV2"]
    parts = [_attributed(res), _attributed(mob)]
    fig = figure(f"Where the time goes: {dev.name}, batch {B}, {prec.upper()}, "
                 f"{'compiled' if fused else 'eager'}", "", "Latency per batch (ms)")
    for i, label in enumerate(("compute-bound rows", "memory-bound rows", "kernel launches")):
        fig.add_trace(go.Bar(x=names, y=[p[i] * 1e3 for p in parts], name=label))
    fig.add_trace(go.Bar(x=["MobileNetV2 if time ∝ FLOPs"], y=[res.latency_s / flop_ratio * 1e3],
                         name="FLOP-proportional expectation"))
    fig.update_layout(barmode="stack")

    rows = Models.MobileNetV2.rows()
    dw = [t for r, t in zip(rows, mob.layers, strict=True)
          if isinstance(r.layer, L.Conv2d) and r.layer.groups > 1]
    dw_int = sum(t.flops for t in dw) / sum(t.bytes for t in dw)
    dw_share = sum(t.time for t in dw) / mob.latency_s
    rconv = [t for t in res.layers if t.type == "Conv2d"]
    r_int = sum(t.flops for t in rconv) / sum(t.bytes for t in rconv)
    kern_r = sum(t.kernels for t in res.layers)
    kern_m = sum(t.kernels for t in mob.layers)
    ridge = res.sustained_ridge_point
    cards = [
        Card("ResNet-50", fmt_time(res.latency_s), f"{res.flops / 1e9:,.2f} GFLOP · {res.bottleneck}-bound"),
        Card("MobileNetV2", fmt_time(mob.latency_s), f"{mob.flops / 1e9:,.2f} GFLOP · {mob.bottleneck}-bound"),
        Card("Speedup", fmt_ratio(speedup, 2), f"vs {fmt_ratio(flop_ratio)} fewer FLOPs",
             "bad" if speedup < 0.5 * flop_ratio else "ok"),
        Card("Depthwise intensity", f"{dw_int:,.1f} FLOP/B",
             f"ResNet convs {_num(r_int)}; ridge {_num(ridge)} FLOP/B", "warn" if dw_int < ridge else "ok"),
        Card("Depthwise share", f"{dw_share:.0%}", "of MobileNetV2's time, for "
             f"{sum(t.flops for t in dw) / mob.flops:.0%} of its FLOPs"),
        Card("Kernels launched", f"{kern_r} vs {kern_m}", f"{dev.dispatch_tax.m_as('us'):g} µs each"
             + ("" if fused else " (eager)")),
    ]
    summary = (f"On the {dev.name} at batch {B}, MobileNetV2 does {fmt_ratio(flop_ratio)} fewer FLOPs but runs "
               f"only {fmt_ratio(speedup, 2)} faster ({fmt_time(mob.latency_s)} vs {fmt_time(res.latency_s)}). "
               f"Launches take {fmt_time(mob.latency_dispatch_s)} of its time, and its depthwise layers run at "
               f"{dw_int:,.1f} FLOP/B against a ridge of {_num(ridge)}: {dw_share:.0%} of the time for "
               f"{sum(t.flops for t in dw) / mob.flops:.0%} of the FLOPs.")
    peek = [
        "t = Σ_rows max(FLOPs / (peak × η), bytes / BW) + kernels × dispatch_tax",
        f"peak = {dev.compute.peak(prec):~P} ({prec}, dense), η = {res.efficiency:g}, BW = {dev.memory.bandwidth:~P}, "
        f"ridge = {_num(ridge)} FLOP/B",
        f"ResNet-50:   {fmt_time(parts[0][0])} compute + {fmt_time(parts[0][1])} memory + {kern_r} × "
        f"{dev.dispatch_tax.m_as('us'):g} µs = {fmt_time(res.latency_s)}",
        f"MobileNetV2: {fmt_time(parts[1][0])} compute + {fmt_time(parts[1][1])} memory + {kern_m} × "
        f"{dev.dispatch_tax.m_as('us'):g} µs = {fmt_time(mob.latency_s)}",
        f"FLOPs ratio {res.flops:,.0f} / {mob.flops:,.0f} = {flop_ratio:.2f} (the chapter rounds 8.2 G / 0.6 G = 13.7)",
    ]
    return View(fig, cards, summary, "Iron law per layer", peek)


# ---------------------------------------------------------------------------------------------
# Synthesis: ship the keyword spotter on a microcontroller
# ---------------------------------------------------------------------------------------------

S_DEVICE = Choice("Microcontroller", {"ArduinoNano33BLESense": "Arduino Nano 33 BLE Sense (Cortex-M4)",
                                      "STM32H743": "STM32H743 (Cortex-M7)"}, "ArduinoNano33BLESense",
                  inline=False)
S_PRECISION = Choice("Weights and activations", {"fp32": "FP32 (4 B)", "int8": "INT8 (1 B)"}, "fp32")
S_FLASH_RESERVE = Slider("Flash used by firmware (KiB): bootloader, RTOS, runtime, audio front end", 0, 512, 256,
                         step=32)
S_SRAM_RESERVE = Slider("SRAM used by firmware (KiB): stack, audio buffers, runtime", 0, 128, 64, step=16)


def _left_for_model(dev, flash_kib: int, sram_kib: int):
    """The device as the model sees it: flash and SRAM minus what the firmware keeps."""
    mem = dev.memory
    flash = max(0.0, mem.flash.m_as("B") - Q_(flash_kib, "KiB").m_as("B"))
    sram = max(0.0, mem.sram.m_as("B") - Q_(sram_kib, "KiB").m_as("B"))
    return dev.model_copy(update={"memory": mem.model_copy(update={
        "flash": Q_(flash, "B"), "sram": Q_(sram, "B"), "capacity": Q_(sram, "B")})})


def synthesis(device: str, precision: str, flash_reserve: int, sram_reserve: int) -> View:
    import plotly.graph_objects as go

    dev = Hardware.get(device)
    kws = Models.KWS
    left = _left_for_model(dev, int(flash_reserve), int(sram_reserve))
    profs = {p: Engine.solve(kws, left, precision=p) for p in ("fp32", "int8")}
    raw = Engine.solve(kws, dev, precision=precision)
    p = profs[precision]
    flash_left, sram_left = left.memory.flash.m_as("B"), left.memory.sram.m_as("B")

    fig = figure(f"KWS DS-CNN on the {dev.name}", "", "Kilobytes (1 KB = 1,000 B)")
    cats = ["flash: weights", "SRAM: peak activations"]
    for prec, pr in profs.items():
        fig.add_trace(go.Bar(x=cats, y=[pr.weight_bytes / 1e3, pr.activation_bytes / 1e3], name=f"{prec.upper()} needs"))
    fig.add_trace(go.Bar(x=cats, y=[flash_left / 1e3, sram_left / 1e3], name="left for the model"))
    fig.update_layout(barmode="group")

    verdict = ("fits" if p.feasible
               else f"does not fit: {fmt_bytes(p.over.m_as('B'))} over in {p.limiting_memory}")
    cards = [
        Card("Parameters", fmt_count(kws.params), "the chapter's '200K'"),
        Card("Weights → flash", fmt_bytes(p.weight_bytes), f"{precision.upper()}; {fmt_bytes(flash_left)} left",
             "ok" if p.weight_bytes <= flash_left else "bad"),
        Card("Activations → SRAM", fmt_bytes(p.activation_bytes), f"peak live tensors; {fmt_bytes(sram_left)} left",
             "ok" if p.activation_bytes <= sram_left else "bad"),
        Card("Verdict", "fits" if p.feasible else "does not fit",
             f"tightest: {p.limiting_memory}" if p.feasible else f"{fmt_bytes(p.over.m_as('B'))} over in {p.limiting_memory}",
             "ok" if p.feasible else "bad"),
        Card("Latency", fmt_time(p.latency_s), f"{p.bottleneck}-bound, batch 1"),
        Card("Whole chip, no firmware", "fits" if raw.feasible else "does not fit",
             f"{fmt_bytes(dev.memory.flash.m_as('B'))} flash, {fmt_bytes(dev.memory.sram.m_as('B'))} SRAM"),
    ]
    summary = (f"At {precision.upper()} the keyword spotter's {fmt_count(kws.params)} parameters take "
               f"{fmt_bytes(p.weight_bytes)} of flash and its peak activations {fmt_bytes(p.activation_bytes)} of "
               f"SRAM; after the firmware's share the {dev.name} has {fmt_bytes(flash_left)} and "
               f"{fmt_bytes(sram_left)} left, so it {verdict}. INT8 cuts both fourfold "
               f"({fmt_bytes(profs['int8'].weight_bytes)} and {fmt_bytes(profs['int8'].activation_bytes)}).")
    peek = [
        f"weights = params × bytes/value = {kws.params:,} × {float(bytes_per_value(precision)):g} B = {fmt_bytes(p.weight_bytes)}",
        "chapter: 200K × 4 B = 800 KB (FP32) → 200 KB (INT8)",
        f"flash left = {dev.memory.flash:~P} − {int(flash_reserve)} KiB = {fmt_bytes(flash_left)}; "
        f"SRAM left = {dev.memory.sram:~P} − {int(sram_reserve)} KiB = {fmt_bytes(sram_left)}",
        "feasible = weights ≤ flash left and peak activations ≤ SRAM left (engine: Profile.feasible)",
        f"latency = Σ max(FLOPs / peak, bytes / BW) + ops × {dev.dispatch_tax.m_as('us'):g} µs "
        f"= {fmt_time(p.latency_s)}",
    ]
    return View(fig, cards, summary, "Microcontroller fit", peek)
