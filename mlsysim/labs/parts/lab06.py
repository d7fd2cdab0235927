"""Lab 06, The Architecture Tax: each part is a plain function of its widget values.

Every number comes from ``mlsysim`` (layers, models, engine, hardware); this module only picks
inputs, builds the chart and writes the sentence. Corrections to the seed lab are documented
where they apply and asserted in ``tests/test_lab06.py``.
"""

from __future__ import annotations

from functools import lru_cache

from ... import catalogue
from ..._lazy import lazy
from ..charts import device_label, figure, hline, memory_lines, roofline, time_unit, vline
from ..components import (
    Card,
    Choice,
    Prediction,
    Slider,
    Toggle,
    View,
    counted,
    fact,
    fmt_bytes,
    fmt_count,
    fmt_flops,
    fmt_rate,
    fmt_ratio,
    fmt_time,
    widget_args,
)
from ..vocab import LABELS, bound_phrase, conditions

E = lazy("mlsysim.engine")
energy = lazy("mlsysim.energy")
HW = lazy("mlsysim.hardware")
L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")
U = lazy("mlsysim.units")

CHAPTER = "lab06"
PARTS = ("A", "B", "C", "D")

DEVICES = catalogue.labels(["H100", "JetsonOrinNX", "iPhone15Pro"])

# ---------------------------------------------------------------------------------------------
# Part A: the parameter explosion of a dense first layer
# ---------------------------------------------------------------------------------------------

PRED_A = Prediction(
    question=(
        "Weight sharing keeps a 3×3 convolution with 64 filters at 1,792 weights whatever the image size. "
        "Double the RGB image's side from 224 to 448 pixels (padding keeps the output map the size of the "
        "input). The memory its output feature map takes…"
    ),
    options={
        "same": "Stays the same: the layer's size does not see the image",
        "double": "Doubles: it grows with the image side",
        "quad": "Quadruples: one value per pixel for each filter",
    },
    answer="quad",
    feedback={
        "same": "The weights do not see the image; the output does. Each of the 64 filters writes one value "
        "per output position, so the map grows with the area: 12.8 MB → 51.4 MB in FP32. The chapter: "
        "weight sharing keeps the filter budget constant, although feature-map storage still grows with "
        "image area.",
        "double": "The map has one value per position per filter, and positions grow with the side squared: "
        "12.8 MB → 51.4 MB in FP32, four times.",
        "quad": "448 × 448 × 64 values: 12.8 MB → 51.4 MB in FP32, while the 1,792 weights stay put. "
        "Sharing decouples the parameters from resolution, not the activations.",
    },
    reveals=("51.4 MB",),
    asks="retrieval",  # 6.3 Part A taught it: the capstone asks it back, as recall
    misconceptions={
        "same": (
            "weight sharing makes the layer size-free",
            "A layer whose weights ignore the image size needs the same memory at any size",
        ),
        "double": (
            "memory grows with the side",
            "Doubling the image side doubles what a layer stores",
        ),
    },
)
A_RESOLUTION = Slider("Image side (pixels)", 28, 512, 224, step=28)
A_UNITS = Slider("Hidden units in the dense layer", 100, 4000, 1000, step=100)
A_PRECISION = Choice(
    "Weight precision", {"fp32": "FP32 (4 B)", "fp16": "FP16 (2 B)", "int8": "INT8 (1 B)"}, "fp32"
)


@widget_args
def part_a(resolution: int, units: int, precision: str) -> View:
    """Dense first layer vs a shared 3×3 / 5×5 convolution across resolutions."""
    import plotly.graph_objects as go

    res = int(resolution)
    dense = L.Dense(in_features=res * res * 3, out_features=int(units))
    conv3 = L.Conv2d(in_channels=3, out_channels=64, kernel_size=3, input_size=res, padding=1)
    conv5 = L.Conv2d(in_channels=3, out_channels=64, kernel_size=5, input_size=res, padding=2)
    sides = list(range(int(A_RESOLUTION.start), int(A_RESOLUTION.stop) + 1, int(A_RESOLUTION.step)))
    dense_curve = [L.Dense(in_features=s * s * 3, out_features=int(units)).params for s in sides]

    fig = figure(
        f"First-layer parameters vs image size ({int(units):,} dense units)",
        "Image side (pixels)",
        "Parameters (log scale)",
        log_y=True,
    )
    fig.add_trace(go.Scatter(x=sides, y=dense_curve, name="Dense (MLP)", mode="lines"))
    fig.add_trace(
        go.Scatter(
            x=sides, y=[conv3.params] * len(sides), name="Conv 3×3, 64 filters", mode="lines"
        )
    )
    fig.add_trace(
        go.Scatter(
            x=sides, y=[conv5.params] * len(sides), name="Conv 5×5, 64 filters", mode="lines"
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[res],
            y=[dense.params],
            name="your setting",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )
    devs = [HW.Hardware.get(k) for k in DEVICES]
    per_param = dense.weight_bytes(precision) / dense.params
    memory_lines(fig, devs, unit="B", scale=1 / per_param)

    weight_bytes = dense.weight_bytes(precision)
    per_detector = (res * res * 3) / (3 * 3 * 3)
    fits = [device_label(d) for d in devs if weight_bytes <= d.memory.capacity.m_as("B")]
    cards = [
        Card(
            "Dense layer params", fmt_count(dense.params), f"{res}×{res}×3 → {int(units):,}", "bad"
        ),
        Card(
            "Dense weights",
            fmt_bytes(weight_bytes),
            precision.upper(),
            "ok" if len(fits) == len(devs) else "warn" if fits else "bad",
        ),
        Card("Conv 3×3 params", fmt_count(conv3.params), "independent of image size", "ok"),
        Card(
            "Conv 3×3 output map",
            fmt_bytes(conv3.activation_bytes(1, precision)),
            f"{res}×{res}×64 values, {precision.upper()}: grows with the image area",
        ),
        Card(
            "Per-detector saving", fmt_ratio(per_detector, 0), "one dense unit vs one 3×3×3 filter"
        ),
    ]
    summary = (
        f"At {res}×{res}, one dense unit needs {res * res * 3:,} weights while a 3×3 filter over "
        f"3 channels needs 27: a {per_detector:,.0f}× saving per detector. The convolution's weights "
        f"ignore the image size; its output map does not: {fmt_bytes(conv3.activation_bytes(1, precision))} "
        f"at this size. The dense layer's "
        f"{fmt_bytes(weight_bytes)} of {precision.upper()} weights fit on "
        f"{', '.join(fits) if fits else 'none of the devices'}."
    )
    peek = [
        f"dense params = d_in × d_out + d_out = {res * res * 3:,} × {int(units):,} + {int(units):,} = {dense.params:,}",
        f"dense bytes  = params × bytes/value  = {dense.params:,} × {per_param:g} B = {fmt_bytes(weight_bytes)}",
        f"conv params  = K² × C_in × C_out + C_out = 9 × 3 × 64 + 64 = {conv3.params:,}",
        f"per detector = (H·W·3) / (K²·3) = {res * res * 3:,} / 27 = {per_detector:,.1f}×",
        f"conv output  = H × W × 64 × bytes/value = {res} × {res} × 64 × {per_param:g} B = "
        f"{fmt_bytes(conv3.activation_bytes(1, precision))} (padding 1 keeps the map the input's size)",
    ]
    return View(fig, cards, summary, "Parameter count", peek)


# ---------------------------------------------------------------------------------------------
# Part B: the quadratic attention wall
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "Section 6.6 showed the score matrix quadruples when the context doubles. At 131,072 tokens with 32 "
        "heads (d_head 128, FP16), one layer's materialized attention needs about 2.2 TB live. Switch on "
        "FlashAttention: what does that layer need live on an 80 GB H100?"
    ),
    options={
        "still": "Still far over 80 GB: the S² scores are computed, so they must be stored",
        "fits": "It fits: only Q, K, V and the output remain, linear in S",
        "half": "About half: tiling keeps half the scores at a time",
        "same": "The same: FlashAttention only makes the kernel faster",
    },
    answer="fits",
    feedback={
        "still": "Computed is not stored: tiles of scores live in on-chip SRAM and are discarded after the online "
        "softmax. What stays in memory is linear in S.",
        "fits": "4 × 131,072 × 4,096 × 2 B = 4.3 GB for Q, K, V and the output, against 2.2 TB with the scores (two "
        "1.1 TB copies: logits and probabilities). The FLOPs are unchanged; the memory wall moves from S² "
        "to S.",
        "half": "No fraction of the S × S matrix is kept in main memory: each tile lives on chip and is gone after "
        "its rows are reduced.",
        "same": "Speed is the side effect; the change is in storage. The scores are never written out, so the "
        "live memory loses its S² term.",
    },
    reveals=("4.3 GB", "linear in S"),
    asks="retrieval",  # 6.6 taught FlashAttention's linear memory: recall
    misconceptions={
        "still": (
            "computed means stored",
            "Every score a kernel computes must sit in memory at once",
        ),
        "half": (
            "tiling keeps a fraction",
            "A tiled kernel keeps a fixed fraction of the score matrix resident",
        ),
        "same": (
            "FlashAttention is only a speedup",
            "FlashAttention changes how fast attention runs, not how much it stores",
        ),
    },
)
B_SEQ = Slider("Sequence length (tokens)", 512, 131072, 4096, step=512)
B_HEADS = Slider("Attention heads", 1, 64, 32)
B_FLASH = Toggle("FlashAttention (tiled, scores never stored)", False)


@widget_args
def part_b(seq: int, heads: int, flash: bool) -> View:
    import plotly.graph_objects as go

    s, h = int(seq), int(heads)
    d_model = 128 * h  # d_head = 128, the 7B-class head size
    core = L.Attention(d_model=d_model, n_heads=h, seq_len=s, flash=bool(flash))
    grid = [512 * 2**i for i in range(9)]

    def live(n):
        return (
            L.Attention(d_model=d_model, n_heads=h, seq_len=n, flash=bool(flash)).live_elements(1)
            * 2
        )

    def scores(n):
        return L.Attention(d_model=d_model, n_heads=h, seq_len=n).score_bytes(1, "fp16")

    fig = figure(
        f"Attention memory for one layer ({counted(h, 'head')}, FP16)",
        "Sequence length (tokens)",
        "Bytes (log scale)",
        log_x=True,
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(
            x=grid, y=[scores(n) for n in grid], name="score matrix S×S×heads", mode="lines+markers"
        )
    )
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[live(n) for n in grid],
            name="live tensors" + (" (FlashAttention)" if flash else " (materialized)"),
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[s],
            y=[live(s)],
            name="your setting",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )
    devs = [HW.Hardware.Cloud.H100, HW.Hardware.Edge.JetsonOrinNX]
    memory_lines(fig, devs, unit="B")

    materialized = L.Attention(d_model=d_model, n_heads=h, seq_len=s)
    score_b = materialized.score_bytes(1, "fp16")
    held_b = materialized.held_score_bytes(1, "fp16")  # logits + probabilities, one number
    live_b = live(s)
    h100 = HW.Hardware.Cloud.H100.memory.capacity.m_as("B")
    status = "bad" if live_b > h100 else "ok"
    ctx = dict(seq_len=s, heads=h, precision="fp16")
    cards = [
        Card(
            LABELS["score_bytes"].capitalize(),
            fmt_bytes(score_b),
            f"{h} × {s:,}² × 2 B",
            "bad" if score_b > h100 else "warn",
            fact=fact("score_bytes", score_b, **ctx),
        ),
        Card(
            LABELS["held_score_bytes"].capitalize(),
            fmt_bytes(held_b),
            "unless tiled: FlashAttention holds none" + (" (on)" if flash else ""),
            "bad" if held_b > h100 else "warn",
            fact=fact("held_score_bytes", held_b, **ctx),
        ),
        Card(
            "Live memory this layer",
            fmt_bytes(live_b),
            "FlashAttention" if flash else "materialized",
            status,
        ),
        Card(
            "Attention FLOPs",
            fmt_flops(core.flops()),
            "same with or without FlashAttention",
        ),
        Card(
            "vs half the context",
            fmt_ratio(
                score_b
                / max(
                    1,
                    L.Attention(d_model=d_model, n_heads=h, seq_len=max(1, s // 2)).score_bytes(
                        1, "fp16"
                    ),
                ),
                1,
            ),
        ),
    ]
    summary = (
        f"At {s:,} tokens with {counted(h, 'head')}, one layer's FP16 scores take {fmt_bytes(score_b)} "
        + (
            "but FlashAttention never stores them: live memory is only Q, K, V and the output, "
            f"{fmt_bytes(live_b)}, while the FLOPs ({fmt_flops(core.flops())}) do not change."
            if flash
            else f"and they must all be live at once: the logits and the probabilities are one such "
            f"matrix each ({fmt_bytes(held_b)}), so with Q, K, V and the output "
            f"({fmt_bytes(live_b - held_b)}) the "
            f"layer holds {fmt_bytes(live_b)}."
        )
    )
    peek = [
        f"scores = heads × S² × 2 B = {h} × {s:,}² × 2 = {score_b:,} B = {fmt_bytes(score_b)}",
        f"FLOPs  = 2 × (2 × S² × d_model) = 4 × {s:,}² × {d_model:,} = {core.flops():,}",
        "2S → 4× scores, 4× FLOPs; FlashAttention removes the storage, not the FLOPs",
        "128K tokens × 32 heads is 1.1 TB per layer",
    ]
    return View(fig, cards, summary, "Attention memory", peek)


# ---------------------------------------------------------------------------------------------
# Part C: depth vs width at equal FLOPs
# ---------------------------------------------------------------------------------------------

PRED_C = Prediction(
    question=(
        "Two MLPs do the same FLOPs: 128 layers of width 32, and 2 layers of width 256. At "
        "batch 1 on an H100 (eager, the engine's planning 5 µs per kernel launch; the verdict "
        "holds anywhere from 0.1 to 20 µs), which is faster?"
    ),
    options={
        "same": "Neither: both do exactly the same FLOPs",
        "deep": "The deep one: narrow layers finish quickly",
        "2x": "The shallow one, slightly: a shorter chain",
        "10x": "The shallow one, tenfold or more: fewer launches",
    },
    answer="10x",
    feedback={
        "same": "FLOPs are one term of the iron law. Each layer is at least one kernel launch, and 255 launches "
        "(128 GEMMs and 127 activations) of a few microseconds dwarf the nanoseconds of math.",
        "deep": "Narrow layers finish their math in nanoseconds, but each still pays a whole launch: depth "
        "adds launches and a serial chain, and nothing about it is faster here.",
        "2x": "The gap is set by the launch count (255 vs 3 kernels), not by the FLOPs: about 85× at 5 µs "
        "per launch, and still about 67× at 0.1 µs.",
        "10x": "Both nets' math takes nanoseconds; the deep net pays 255 kernel launches against 3: about "
        "85× slower at 5 µs per launch, about 67× at 0.1 µs. Only a launch cost near zero (a few "
        "nanoseconds) brings the gap under tenfold.",
    },
    reveals=("tenfold or more", "about 85×"),
    asks="regime",
    misconceptions={
        "same": (
            "time follows FLOPs",
            "Latency is proportional to the arithmetic a model does",
        ),
        "deep": (
            "narrow layers are cheap",
            "A thin layer costs little time, so many thin layers cost little",
        ),
        "2x": (
            "depth costs only a little",
            "Extra layers add a little latency in proportion to their math",
        ),
    },
)
C_DEPTH = Slider("Depth (layers)", 2, 128, 64, step=2)
C_DEVICE = Choice("Deployment", DEVICES, "H100")
C_EFFICIENCY = Slider("Compute efficiency (share of peak)", 0.1, 1.0, 0.5, step=0.05)
#: The engine's assumption PRED_C's answer rests on: a fixed cost per kernel launch.
C_LAUNCH = Choice(
    "Launch cost per kernel (an engine assumption)",
    {
        "registry": "the device's planning value",
        "0": "0 µs (idealised: no launch cost at all)",
        "0.1": "0.1 µs",
        "1": "1 µs",
        "5": "5 µs",
        "20": "20 µs",
    },
    "registry",
)


def with_launch(dev, launch: str):
    """The device with its per-kernel launch cost replaced (``"registry"`` keeps the planning value)."""
    return (
        dev
        if launch == "registry"
        else E.with_launch_cost(dev, U.Q_(float(launch), "us").m_as("s"))
    )


@lru_cache(maxsize=64)
def tenfold_launch_s(device: str, precision: str, efficiency: float) -> float | None:
    """The launch cost (seconds per kernel) at which 128 layers × 32 take exactly 10× as long as
    2 × 256 (PRED_C's threshold; above it, longer), solved from the two profiles (each latency
    is linear in the launch cost: engine.launch_cost_for_speedup); None if no cost gives 10×."""
    dev = HW.Hardware.get(device)
    deep, flat = (
        E.Engine.solve(depth_model(d), dev, precision=precision, efficiency=efficiency)
        for d in (128, 2)
    )
    return E.launch_cost_for_speedup(deep, flat, 10.0)


#: The fixed budget: depth × width² (= MACs per example, bias-free).
C_BUDGET = 2 * 256 * 256


def width_for(depth: int) -> int:
    """Width giving depth × width² ≈ the budget (128 × 32² == 2 × 256² == 131,072)."""
    return max(4, round((C_BUDGET / depth) ** 0.5))


@lru_cache(maxsize=128)
def depth_model(depth: int):
    w = width_for(depth)
    return M.mlp([w] * (depth + 1), bias=False, name=f"MLP {depth}×{w}")


@widget_args
def part_c(depth: int, device: str, efficiency: float, launch: str) -> View:
    import plotly.graph_objects as go

    dev = with_launch(HW.Hardware.get(device), launch)
    precision = "fp16" if "fp16" in dev.compute.precisions else dev.compute.quoted_precision
    depths = list(range(int(C_DEPTH.start), int(C_DEPTH.stop) + 1, int(C_DEPTH.step)))
    profs = [
        E.Engine.solve(depth_model(d), dev, precision=precision, efficiency=efficiency)
        for d in depths
    ]
    to_unit, unit = time_unit(p.latency_s for p in profs)
    fig = figure(
        f"Latency vs depth at (about) equal FLOPs: {device_label(dev)}",
        "Depth (layers)",
        f"Latency ({unit})",
    )
    fig.add_trace(
        go.Scatter(x=depths, y=[p.latency_s * to_unit for p in profs], name="total", mode="lines")
    )
    fig.add_trace(
        go.Scatter(
            x=depths,
            y=[p.latency_dispatch_s * to_unit for p in profs],
            name="dispatch (launches)",
            mode="lines",
            line=dict(dash="dash"),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=depths,
            y=[(p.latency_s - p.latency_dispatch_s) * to_unit for p in profs],
            name="compute/memory",
            mode="lines",
            line=dict(dash="dot"),
        )
    )
    d = int(depth)
    p = E.Engine.solve(depth_model(d), dev, precision=precision, efficiency=efficiency)
    ref = E.Engine.solve(depth_model(2), dev, precision=precision, efficiency=efficiency)
    fig.add_trace(
        go.Scatter(
            x=[d],
            y=[p.latency_s * to_unit],
            name="your setting",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )
    share = p.latency_dispatch_s / p.latency_s
    flip = tenfold_launch_s(device, precision, float(efficiency))
    cards = [
        Card("Width at this depth", f"{width_for(d)}", f"{d} × {width_for(d)}² MACs"),
        Card("FLOPs", fmt_count(p.flops), "≈ constant across depths"),
        Card(
            "Latency",
            fmt_time(p.latency_s),
            bound_phrase(p.bottleneck),
            "bad" if p.bottleneck == "Dispatch" else "ok",
        ),
        Card("Launch share", f"{share:.0%}", f"{dev.dispatch_tax.m_as('us'):g} µs per kernel"),
        Card(
            "vs 2 layers × 256",
            fmt_ratio(p.latency_s / ref.latency_s),
            "this is the reference design"
            if d == 2
            else "slower"
            if p.latency_s > ref.latency_s
            else "faster",
        ),
        Card(
            "128 × 32 is 10× slower from",
            "no launch cost" if flip is None else f"{fmt_time(flip)} per launch",
            "below this launch cost the gap is under 10×"
            if flip is not None
            else "the gap never reaches 10×",
            "warn",
        ),
    ]
    summary = (
        f"{d} layers of width {width_for(d)} on the {device_label(dev)}: {fmt_time(p.latency_s)}, of which "
        f"{share:.0%} is kernel launches ({sum(t.kernels for t in p.layers):,} kernels). "
        + (
            "This is the shallow reference design itself. "
            if d == 2
            else f"Same FLOPs as 2 × 256, {p.latency_s / ref.latency_s:,.1f}× the time. "
        )
        + (
            "The verdict rests on the launch cost: 128 layers × 32 take 10× as long as 2 × 256 at "
            f"{fmt_time(flip)} per kernel, longer above it."
            if flip is not None
            else "No launch cost makes 128 layers × 32 take 10× as long as 2 × 256 here."
        )
    )
    peek = [
        "t = Σ_layers max(FLOPs / (peak × η), bytes / BW) + kernels × dispatch_tax",
        f"peak = {dev.compute.peak(precision):~P} ({precision}, dense), η = {efficiency:g}, BW = {dev.memory.bandwidth:~P}",
        f"compute+memory = {fmt_time(p.latency_s - p.latency_dispatch_s)};  dispatch = {fmt_time(p.latency_dispatch_s)}",
        "efficiency is applied to every peak, the edge peak is the registry's, and 128×32 vs 2×256 are equal FLOPs",
    ]
    return View(fig, cards, summary, "Iron law with dispatch", peek)


# ---------------------------------------------------------------------------------------------
# Part D: workload signatures on the roofline
# ---------------------------------------------------------------------------------------------

PRED_D = Prediction(
    question=(
        "At batch 1 on an H100 (FP16), which lighthouse reaches the highest MFU (model FLOP utilization: "
        "its FLOPs ÷ (latency × peak FLOP/s)), with GPT-2 XL decoding one token?"
    ),
    options={
        "gpt2": "GPT-2 XL",
        "resnet": "ResNet-50",
        "mobilenet": "MobileNetV2",
        "equal": "All about equal",
    },
    answer="resnet",
    feedback={
        "gpt2": "Decoding one token reads all 3 GB of weights for ~3 GFLOP: about 1 FLOP per byte, far below "
        "the ridge. Newer is not more hardware-efficient.",
        "resnet": "Its convolutions reuse each weight across thousands of positions. All of them are launch-bound "
        "at batch 1, but ResNet-50 does the most work per launch.",
        "mobilenet": "MobileNetV2 has 13.6× fewer FLOPs (the chapter rounds 8.2 G / 0.6 G = 13.7) but a "
        "similar number of kernels (151 vs 174), so it spends a larger share of its time launching: FLOPs "
        "are not speed.",
        "equal": "They differ by an order of magnitude: intensity and work per kernel set utilization.",
    },
    reveals=("ResNet-50 reaches the highest MFU", "keeps the GPU busier"),
    asks="behaviour",
    misconceptions={
        "gpt2": (
            "newer means more efficient",
            "A modern transformer uses the hardware better than an older CNN",
        ),
        "mobilenet": (
            "fewer FLOPs, better utilization",
            "The efficient CNN's small FLOP count makes it the best user of the GPU",
        ),
        "equal": (
            "utilization is a device constant",
            "Every model reaches about the same share of peak on one device",
        ),
    },
)
D_BATCH = Slider("Batch size", 1, 256, 1)
D_DEVICE = Choice("Device", DEVICES, "H100")
D_FUSED = Toggle("Compiled inference graph (BN folded, activations fused)", False)

D_MODELS = {
    "ResNet50": "ResNet-50",
    "GPT2": "GPT-2 XL (decode, 1,024-token cache)",
    "MobileNetV2": "MobileNetV2",
    "DLRM": "DLRM",
}


@widget_args
def part_d(batch: int, device: str, fused: bool) -> View:
    dev = HW.Hardware.get(device)
    precision = "fp16" if "fp16" in dev.compute.precisions else dev.compute.quoted_precision
    profiles = {
        k: E.Engine.solve(
            M.Models.get(k),
            dev,
            batch_size=int(batch),
            precision=precision,
            efficiency=1.0,
            fused=bool(fused),
        )
        for k in D_MODELS
    }
    points = [
        (D_MODELS[k].split(" (")[0], p.arithmetic_intensity.magnitude, p.flops / p.latency_s)
        for k, p in profiles.items()
    ]
    fig = roofline(
        dev,
        precision,
        1.0,
        points,
        title=f"Workload signatures on the {device_label(dev)} (batch {int(batch)}, "
        f"{'compiled' if fused else 'eager'})",
    )
    cards = []
    for k, p in profiles.items():
        status = "bad" if not p.feasible else ("warn" if p.bottleneck == "Dispatch" else "ok")
        note = (
            f"intensity {p.arithmetic_intensity.magnitude:,.1f} FLOP/B · {bound_phrase(p.bottleneck)}"
            if p.feasible
            else f"out of memory by {fmt_bytes(p.over.m_as('B'))}"
        )
        if not p.feasible:  # a configuration that does not fit never runs: no MFU to report
            cards.append(Card(D_MODELS[k].split(" (")[0], "does not fit", note, status))
            continue
        cards.append(
            Card(
                D_MODELS[k].split(" (")[0],
                f"MFU {100 * p.mfu:.2g}%",
                note,
                status,
                fact=fact(
                    "mfu",
                    p.mfu,
                    model=k,
                    device=device,
                    batch=int(batch),
                    precision=precision,
                    efficiency=1.0,
                    fused=bool(fused),
                ),
            )
        )
    best = max(profiles, key=lambda k: (profiles[k].feasible, profiles[k].mfu))
    other = {
        k: E.Engine.solve(
            M.Models.get(k),
            dev,
            batch_size=int(batch),
            precision=precision,
            efficiency=1.0,
            fused=not bool(fused),
        ).mfu
        for k in D_MODELS
    }
    best_other = max(other, key=other.get)
    mode, other_mode = ("compiled", "eager") if fused else ("eager", "compiled")
    summary = (
        f"MFU at {conditions(precision, fused=bool(fused), batch=int(batch), device=device_label(dev))}: "
        f"{D_MODELS[best].split(' (')[0]} reaches the highest "
        f"({100 * profiles[best].mfu:.2g}%). Bottlenecks: "
        + ", ".join(
            f"{D_MODELS[k].split(' (')[0]} "
            + (bound_phrase(p.bottleneck) if p.feasible else "out of memory")
            for k, p in profiles.items()
        )
        + ". "
        + (
            f"The ranking's top does not depend on the {mode} vs {other_mode} assumption: {other_mode}, "
            f"{D_MODELS[best_other].split(' (')[0]} leads too ({100 * other[best_other]:.2g}%)."
            if best_other == best
            else f"The answer flips with the graph: {other_mode}, {D_MODELS[best_other].split(' (')[0]} leads "
            f"({100 * other[best_other]:.2g}%)."
        )
    )
    peek = [
        f"{LABELS['ridge_peak']} = peak / BW = {dev.compute.peak(precision):~P} / {dev.memory.bandwidth:~P} = "
        f"{dev.ridge_point(precision).magnitude:,.0f} FLOP/B (efficiency 1 here: the roof is the datasheet peak)",
        "MFU = FLOPs / (latency × peak); the bottleneck is the term that accounts for most time",
        "an infeasible model is reported as out of memory with the amount over; no row is hidden",
    ]
    return View(fig, cards, summary, "Roofline", peek)


# ---------------------------------------------------------------------------------------------
# Synthesis: ship the camera trap against the worked example's requirements (6.9, Table 12)
# ---------------------------------------------------------------------------------------------

#: The wildlife camera's requirements (chapter, worked example "Real-time wildlife monitoring",
#: Table 12 and the text after it): "<500 ms per detection"; "~2 W average (solar + battery)";
#: 512 MB of RAM of which "100 MB ... for model weights"; "100 inferences/day" trigger rate.
LATENCY_REQ_S = 0.5
POWER_REQ_W = 2.0
WEIGHT_ALLOCATION_B = 100e6

S_MODEL = Choice(
    "Model",
    {
        "ResNet50": "ResNet-50",
        "MobileNetV2": "MobileNetV2 1.0×",
        "mnv2_075": "MobileNetV2 0.75× (the chapter's pick)",
    },
    "MobileNetV2",
    inline=False,
)
S_DEVICE = Choice(
    "Device",
    catalogue.labels(["CortexA53Camera", "JetsonOrinNX", "iPhone15Pro"]),
    "JetsonOrinNX",
    inline=False,
)
S_PER_DAY = Slider("Triggers per day (the chapter: 100)", 10, 2000, 100, step=10)
S_ENERGY = Choice(
    "Your daily energy budget for inference",
    {"1": "1 J/day", "10": "10 J/day", "100": "100 J/day"},
    "10",
)


@lru_cache(maxsize=8)
def s_model(key: str):
    return M.mobilenet_v2(0.75) if key == "mnv2_075" else M.Models.get(key)


SECONDS_PER_DAY = 86_400


def deployment(model: str, device: str, per_day: int, energy_budget_j: float) -> dict:
    """One design checked against every requirement: latency (engine), weights against the
    allocation, footprint against RAM, the device's average power over the day (listed power while
    inferring, idle the rest: ``energy.average_power``) against the 2 W average, and inference
    energy per day (power × engine latency × triggers) against the designer's budget. The listed
    power is the registry's (``power_basis``: the camera SoC's active 200 mW, the Jetson's TDP, the
    phone's typical envelope); idle is a planning assumption (``IDLE_SHARE`` of it)."""
    dev = HW.Hardware.get(device)
    m = s_model(model)
    precision = "int8" if "int8" in dev.compute.precisions else dev.compute.quoted_precision
    p = E.Engine.solve(
        m, dev, precision=precision, efficiency=0.5
    )  # a sustained-rate device is not derated
    power = dev.tdp.m_as("W")
    per_inf = p.energy_per_sample_j  # the registry's power × engine latency (batch 1)
    day = per_inf * int(per_day)
    # like with like: the average draw over the day (busy per_day × latency at the listed power,
    # idle the rest) against the 2 W average the panel and battery sustain
    busy = p.latency_s * int(per_day)
    duty = energy.duty_cycle(busy, SECONDS_PER_DAY)
    avg = energy.average_power(power, dev.idle_power.m_as("W"), duty)
    tests = {
        "latency": (p.latency_s, LATENCY_REQ_S, fmt_time, fmt_time(LATENCY_REQ_S, 0), ""),
        "weights": (
            p.weight_bytes,
            WEIGHT_ALLOCATION_B,
            fmt_bytes,
            fmt_bytes(WEIGHT_ALLOCATION_B, 0),
            " allocation",
        ),
        "memory": (
            p.memory_footprint_bytes,
            p.capacity_bytes,
            fmt_bytes,
            fmt_bytes(p.capacity_bytes, 0),
            " RAM",
        ),
        "power": (
            avg,
            POWER_REQ_W,
            lambda w: (
                f"{fmt_power(w)} average ({fmt_power(power)} {dev.power_basis} while busy, idle "
                f"assumed {HW.IDLE_SHARE:.0%} of it)"
            ),
            f"{POWER_REQ_W:g} W",
            " average supply",
        ),
        "energy": (
            day,
            energy_budget_j,
            lambda j: f"{_joules(j)}/day",
            f"{_joules(energy_budget_j)}/day",
            "",
        ),
    }
    checks = {}
    for k, (have, limit, fmt, limit_txt, what) in tests.items():
        ok = have <= limit
        checks[k] = (ok, f"{fmt(have)} {'≤' if ok else '>'} {limit_txt}{what}")
    return {
        "device": dev,
        "model": m,
        "precision": precision,
        "profile": p,
        "power_w": power,
        "average_w": avg,
        "duty": duty,
        "energy_j": per_inf,
        "energy_day_j": day,
        "checks": checks,
        "passed": all(ok for ok, _ in checks.values()),
    }


def _joules(j: float) -> str:
    return f"{j:,.1f} J" if j >= 1 else f"{j * 1e3:,.1f} mJ"


def fmt_power(w: float) -> str:
    return f"{w:,.3g} W" if w >= 1 else f"{w * 1e3:,.3g} mW"


#: Short names of the capstone's designs on its chart (the cards and sentences use full names).
_SHORT_MODEL = {"ResNet50": "ResNet-50", "MobileNetV2": "MNV2 1.0×", "mnv2_075": "MNV2 0.75×"}
_SHORT_DEVICE = {"CortexA53Camera": "camera", "JetsonOrinNX": "Jetson", "iPhone15Pro": "iPhone"}


def _design_name(model: str, device: str) -> str:
    return f"{_SHORT_MODEL.get(model, model)} · {_SHORT_DEVICE.get(device, device)}"


@widget_args
def synthesis(model: str, device: str, per_day: int, energy: str) -> View:
    import plotly.graph_objects as go

    budget = float(energy)
    d = deployment(model, device, per_day, budget)
    dev, m, p = d["device"], d["model"], d["profile"]
    others = {
        (mk, dk): deployment(mk, dk, per_day, budget)
        for mk in S_MODEL.options
        for dk in S_DEVICE.options
    }
    fig = figure(
        f"Every design against the requirements ({int(per_day)} triggers per day)",
        "Latency per frame (s, log scale)",
        "Inference energy per day (J, log scale)",
        log_x=True,
        log_y=True,
    )
    for ok, name, symbol in (
        (True, "meets every requirement", "circle"),
        (False, "fails one or more", "x"),
    ):
        keys = [k for k, v in others.items() if v["passed"] == ok]
        if keys:
            fig.add_trace(
                go.Scatter(
                    x=[others[k]["profile"].latency_s for k in keys],
                    y=[others[k]["energy_day_j"] for k in keys],
                    mode="markers+text",  # each design named on the chart (issue 35)
                    name=name,
                    marker=dict(size=11, symbol=symbol),
                    text=[_design_name(*k) for k in keys],
                )
            )
    fig.add_trace(  # drawn last: on top of the design it coincides with
        go.Scatter(
            x=[p.latency_s],
            y=[d["energy_day_j"]],
            name=f"your design: {_design_name(model, device)}",
            mode="markers",
            marker=dict(size=17, symbol="star", line=dict(width=1.5, color="#111")),
        )
    )
    vline(fig, LATENCY_REQ_S, "500 ms requirement", dash="dash", position="top left")
    hline(fig, budget, f"your budget {_joules(budget)}/day", dash="dot", position="bottom right")
    cards = [
        Card(k, "meets" if ok else "fails", txt, "ok" if ok else "bad")
        for k, (ok, txt) in d["checks"].items()
    ]
    if (
        model in M.Models.names()
    ):  # a registry preset: tag its latency (no efficiency for a sustained device)
        cards[0] = Card(
            cards[0].label,
            cards[0].value,
            cards[0].note,
            cards[0].status,
            fact=fact(
                "latency",
                p.latency_s,
                model=model,
                device=device,
                batch=1,
                precision=d["precision"],
                efficiency=None if dev.compute.is_sustained else 0.5,
            ),
        )
    cards.append(
        Card(
            "Energy / inference",
            _joules(d["energy_j"]),
            f"{d['power_w']:g} W ({dev.power_basis}) × {fmt_time(p.latency_s)}",
        )
    )
    failed = [k for k, (ok, _) in d["checks"].items() if not ok]
    summary = (
        f"{m.name} in {d['precision'].upper()} on the {device_label(dev)}: {fmt_time(p.latency_s)} per frame "
        f"({bound_phrase(p.bottleneck)}), {_joules(d['energy_j'])} per inference, "
        f"{_joules(d['energy_day_j'])} per day at {int(per_day)} triggers. "
        + ("It meets every requirement." if not failed else f"It fails on {', '.join(failed)}.")
        + f" {sum(v['passed'] for v in others.values())} of {len(others)} model × device designs pass."
    )
    comp, mem, launch = p.time_split
    peek = [
        f"latency = Engine.solve(model, device, {d['precision']}).latency = {fmt_time(p.latency_s)} "
        + (
            "(the camera SoC's 2 GOPS is already sustained: not derated)"
            if dev.compute.is_sustained
            else "(datasheet peak × 0.5 sustained)"
        ),
        f"arithmetic alone = ops / sustained rate = {fmt_flops(p.flops, precision=d['precision'])} / "
        f"{fmt_rate(p.sustained_flops_s, precision=d['precision'])} = {fmt_time(p.flops / p.sustained_flops_s)} "
        "(the chapter's method: 209 ms for MobileNetV2 0.75× on the camera SoC); the engine times each "
        "row as the larger of its arithmetic and its bytes, plus its launches: "
        f"{fmt_time(comp)} of compute-bound rows + {fmt_time(mem)} of memory-bound rows + "
        f"{fmt_time(launch)} of kernel launches = {fmt_time(p.latency_s)}",
        f"energy/day = power × latency × triggers = {d['power_w']:g} W × {fmt_time(p.latency_s)} × {int(per_day)} = "
        f"{_joules(d['energy_day_j'])}",
        f"average power = listed power × duty + idle × (1 − duty) = {d['power_w']:g} W × {d['duty']:.3g} + "
        f"{fmt_power(dev.idle_power.m_as('W'))} × (1 − {d['duty']:.3g}) = {fmt_power(d['average_w'])}, "
        f"duty = {int(per_day)} × {fmt_time(p.latency_s)} / 86,400 s (energy.average_power)",
        *[f"  {HW.Hardware.get(k).power_note}" for k in S_DEVICE.options],
        f"idle = {HW.IDLE_SHARE:.0%} of the listed power: a planning assumption, not a datasheet figure; "
        "measure it (with capture, storage and radio) on the device",
        f"memory: weights {fmt_bytes(p.weight_bytes)} against the 100 MB allocation; footprint = weights + peak live "
        f"activations = {fmt_bytes(p.memory_footprint_bytes)} against {fmt_bytes(p.capacity_bytes, 0)}",
        "phase 3 still ahead: accuracy on the target species, and measured latency and energy on the device",
    ]
    return View(fig, cards, summary, "Requirements check", peek)


# ---------------------------------------------------------------------------------------------
# Transfer questions: one unseen case per part, answered with the part's own controls
# ---------------------------------------------------------------------------------------------

TRANSFER_A = Prediction(
    question=(
        "A vision transformer's first layer cuts the image into 16×16 patches and maps each "
        "patch (768 values) to 768 features with a 768→768 linear map applied to each patch "
        "(Part A has no such layer). Double the image side from 224 to 448: that layer's "
        "weights…"
    ),
    options={
        "same": "Stay the same: one projection serves every patch",
        "quad": "Quadruple: four times the pixels, each with its own weights",
        "double": "Double: twice the patches along each side",
    },
    answer="same",
    feedback={
        "same": "590,592 weights at either size: like a convolution with a 16×16 kernel and stride 16, the "
        "projection is shared by every patch. What grows fourfold is the number of patches, the tokens "
        "every later layer (and attention, quadratically) must process.",
        "quad": "That is the dense layer of Part A, one weight per input value. The patch projection sees "
        "one patch at a time and is reused for all of them: 590,592 weights at either size.",
        "double": "The patch count grows (14×14 → 28×28, fourfold), but the weights belong to the "
        "projection, not to the patches: 590,592 at either size.",
    },
    kind="transfer",
    reveals=("590,592 weights at either size",),
    asks="behaviour",
    misconceptions={
        "quad": (
            "a transformer's input layer is dense",
            "A transformer connects every pixel to its first layer, like an MLP",
        ),
        "double": (
            "weights grow with the patch count",
            "Each patch needs its own weights, so more patches need more weights",
        ),
    },
)

TRANSFER_B = Prediction(
    question=(
        "With FlashAttention on and 32 heads, double the context past the slider's end: 262,144 tokens "
        "instead of 131,072. The layer's live memory…"
    ),
    options={
        "double": "Doubles: Q, K, V and the output grow with S",
        "quad": "Quadruples: attention memory grows with S²",
        "same": "Stays put: the tiles on chip keep their size",
    },
    answer="double",
    feedback={
        "double": "Four S × d tensors in FP16: 4.3 GB → 8.6 GB, on an 80 GB H100 with room to spare. "
        "The FLOPs quadruple; the memory only doubles.",
        "quad": "The S² term is the score matrix, and tiled attention never stores it: 4.3 → 8.6 GB. "
        "The FLOPs, not the memory, quadruple.",
        "same": "The tiles stay the same size, but Q, K, V and the output are S × d each: 4.3 → 8.6 GB.",
    },
    kind="transfer",
    reveals=("Doubles: Q, K, V",),
    asks="direction",
    misconceptions={
        "quad": (
            "attention memory is always quadratic",
            "Attention's memory grows with S² whatever the kernel",
        ),
        "same": (
            "tiled attention is constant-memory",
            "FlashAttention's memory is fixed by its tile size",
        ),
    },
)

TRANSFER_C = Prediction(
    question=(
        "Go past the slider: 512 layers of width 16 (512 × 16² = 2 × 256², the same FLOPs again) on the "
        "H100 at its planning launch cost. Against 2 × 256, its slowdown compared with 128 × 32's is…"
    ),
    options={
        "four": "About four times larger: four times the launches",
        "some": "Larger, but well under 4×: part of each layer's time is arithmetic",
        "same": "About the same: the FLOPs did not change",
        "smaller": "Smaller: layers this narrow cost almost nothing",
    },
    answer="four",
    feedback={
        "four": "Launches dominate, so the time is close to proportional to the kernel count: 1,023 "
        "kernels against 255, about 339× the shallow net instead of about 85×.",
        "some": "The arithmetic of a width-16 layer takes nanoseconds against a launch of microseconds, so "
        "almost none of the time is arithmetic: four times the kernels (255 → 1,023) is about four times "
        "the time, about 339× the shallow net instead of about 85×.",
        "same": "Equal FLOPs never set the time here: the kernel count does, and it quadruples (255 → "
        "1,023): about 339× instead of about 85×.",
        "smaller": "Each narrow layer's math is nanoseconds, but its launch is microseconds: four times "
        "the layers, about four times the time (about 339× the shallow net).",
    },
    kind="transfer",
    reveals=("339×",),
    asks="direction",
    misconceptions={
        "some": (
            "narrow layers still compute",
            "Part of a narrow layer's time is its arithmetic, so launches explain only part of it",
        ),
        "same": (
            "time follows FLOPs",
            "Two nets with the same FLOPs take the same time",
        ),
        "smaller": (
            "narrow layers are free",
            "A narrow enough layer costs nothing, so depth stops mattering",
        ),
    },
)

TRANSFER_D = Prediction(
    question=(
        "At batch 1 on the H100, run ResNet-50 in INT8 instead of FP16 (Part D runs FP16): the INT8 peak "
        "is twice the FP16 one. Its MFU, now measured against the INT8 peak…"
    ),
    options={
        "half": "Roughly halves: the same launches, twice the peak",
        "some": "Falls, but far less than half: INT8 also halves the bytes",
        "double": "Rises: quantized layers keep the INT8 units busier",
        "same": "Stays put: MFU is a property of the model",
    },
    answer="half",
    feedback={
        "half": "At batch 1 ResNet-50 is launch-bound: its 174 kernels take as long in INT8 as in FP16, "
        "so the same FLOPs over the same time against twice the peak: about 0.89% → 0.46%.",
        "some": "Half the bytes shorten only the memory term, and at batch 1 the launches bind: the 174 "
        "kernels take as long in INT8 as in FP16, so the latency barely moves and the MFU falls with the "
        "doubled peak, about 0.89% → 0.46%.",
        "double": "Faster arithmetic only helps the term that binds. The launches bind here, so the time "
        "barely moves: the same FLOPs in the same time, divided by twice the peak, halve the MFU: about "
        "0.89% → 0.46%. Quantizing pays where arithmetic or bytes bind, not launches.",
        "same": "MFU divides by the device's peak at that precision; the latency (launches) stays, the "
        "peak doubles: about 0.89% → 0.46%.",
    },
    kind="transfer",
    reveals=("same launches, twice the peak",),
    asks="direction",
    misconceptions={
        "some": (
            "fewer bytes always speed a model",
            "Halving the bytes moved shortens the time, whatever binds it",
        ),
        "double": (
            "lower precision is always faster",
            "A quantized model runs faster on the INT8 units, whatever binds it, so it uses them better",
        ),
        "same": (
            "MFU belongs to the model",
            "A model's utilization is fixed, whatever the precision or peak",
        ),
    },
)
