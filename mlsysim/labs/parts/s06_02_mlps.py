"""Section 6.2, MLPs: Dense Pattern Processing. Each part is a plain function of its widgets.

Part A: weights grow as d_in x d_out. Part B: batch-1 GEMV vs batched GEMM on a roofline (the
chapter's "~4% of peak" self-check). Part C: representation vs learnability on MNIST (whole
network vs per detector). Part D: the energy of moving a weight vs using it (~139x at batch 1).
Every number comes from ``mlsysim``; the chapter's figures are asserted in
``tests/test_s06_02_mlps.py``.
"""

from __future__ import annotations

from functools import lru_cache

from ... import catalogue
from ..._lazy import lazy
from ..charts import device_label, figure, roofline
from ..components import (
    Card,
    Choice,
    Prediction,
    Slider,
    View,
    fact,
    fmt_bytes,
    fmt_count,
    fmt_rate,
    fmt_ratio,
    fmt_time,
    widget_args,
)
from ..vocab import LABELS

energy = lazy("mlsysim.energy")
E = lazy("mlsysim.engine")
HW = lazy("mlsysim.hardware")
L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")
U = lazy("mlsysim.units")

CHAPTER = "6.2"
PARTS = ("A", "B", "C", "D")

PRECISIONS = {"fp32": "FP32 (4 B)", "fp16": "FP16 (2 B)", "int8": "INT8 (1 B)"}

#: The reference MNIST layer of the primary edition: 784 pixels -> 128 hidden units (Fig. 2,
#: L155, L173). The older edition used 784 -> 100 (78,400 MACs); see the tests.
MNIST_INPUTS, MNIST_HIDDEN = 784, 128
#: MNIST images are 28 x 28 (L124), the map Example 6.1's convolutions slide over.
MNIST_SIDE = 28
#: Definition 6.2's example layer (L110): 1,024 -> 1,024, quoted in FP16.
DEF_WIDTH, DEF_PRECISION = 1024, "fp16"

# ---------------------------------------------------------------------------------------------
# Part A: width squared
# ---------------------------------------------------------------------------------------------

PRED_A = Prediction(
    question=(
        "A square dense layer (1,024 inputs, 1,024 outputs, FP16 weights) is made twice as wide on "
        "both sides and switched to FP32. Its weight memory grows…"
    ),
    options={
        "x2": "2×: the precision doubles the bytes; width adds activations, not weights",
        "x4": "4×: twice the width, and twice the bytes per weight",
        "x8": "8×: four times the weights, and twice the bytes per weight",
        "x16": "16×: each of the three doublings squares the size",
    },
    answer="x8",
    feedback={
        "x2": "Every input connects to every output, so the weights are d_in × d_out: doubling both widths "
        "gives 4× the weights (1,048,576 → 4,194,304), and FP32 doubles the bytes again: 2.1 MB → 16.8 MB.",
        "x4": "That treats the weights as growing with the width. They grow with d_in × d_out: 2 × 2 = 4× the "
        "weights, then 2× the bytes per weight, 8× in all (2.1 MB → 16.8 MB).",
        "x8": "4,194,304 weights × 4 B = 16.8 MB against 1,048,576 × 2 B = 2.1 MB: 4× from the widths "
        "(d_in × d_out), 2× from the precision.",
        "x16": "Only the two widths multiply each other; the precision scales the bytes once: 2 × 2 × 2 = 8×, "
        "2.1 MB → 16.8 MB.",
    },
    reveals=("16.8 MB", "four times the weights", "width squared"),
)

TRANSFER_A = Prediction(
    question="Which holds more weights: a 4,096→1,024 dense layer or a 2,048→2,048 one?",
    options={
        "wide_in": "The 4,096→1,024 layer: its input is twice as wide",
        "square": "The 2,048→2,048 layer: square layers are the largest",
        "same": "Neither: only the product of the two widths counts",
    },
    answer="same",
    feedback={
        "wide_in": "Weights are d_in × d_out: 4,096 × 1,024 and 2,048 × 2,048 are the same 4.2 million. Set the "
        "sliders to each and compare the weights card.",
        "square": "Only the product counts: 4,096 × 1,024 = 2,048 × 2,048. Squareness changes the shape of the "
        "matrix, not its size.",
        "same": "d_in × d_out is all that counts: 4,194,304 either way, 16.8 MB in FP32. Width costs "
        "multiplicatively, whichever side it is on.",
    },
    kind="transfer",
)
A_D_IN = Slider("Input width d_in", 64, 4096, 2048, step=64)
A_D_OUT = Slider("Output width d_out", 64, 4096, 2048, step=64)
A_PRECISION = Choice("Weight precision", PRECISIONS, "fp32")

#: Example 6.2 (L161-L171): a 4-pixel image through a 3-neuron hidden layer (W is 4 x 3).
EXAMPLE_X = (0.8, 0.2, 0.9, 0.1)
EXAMPLE_W = ((0.5, 0.1, -0.2), (-0.3, 0.8, 0.4), (0.2, -0.4, 0.6), (0.7, 0.3, -0.1))

#: Microcontrollers whose flash is drawn on the chart: a deployed model's weights live in flash,
#: its activations in SRAM (the engine's fit check; 6.1 B, 6.3 and 6.5 C count them the same way).
MCU_KEYS = ("ArduinoNano33BLESense", "STM32H743")


def relative(r: float) -> str:
    """A size ratio as a sentence reads it: '8.0×', '50% of', '1/512 of' (never '0.0×')."""
    if r >= 1:
        return f"{r:,.1f}×"
    if r >= 0.1:
        return f"{r:.0%} of"
    return f"1/{1 / r:,.0f} of"


def mcu_fit(layer, mcu, precision: str) -> bool:
    """The engine's fit rule for a microcontroller at batch 1: weights in flash, the live
    activations (input + output) in SRAM. Checked on bytes alone, so it also answers for a
    precision the MCU has no arithmetic rate for (FP16)."""
    live = layer.live_elements(1) * float(U.bytes_per_value(precision))
    return layer.weight_bytes(precision) <= mcu.memory.flash.m_as(
        "B"
    ) and live <= mcu.memory.sram.m_as("B")


def dense(d_in: int, d_out: int) -> L.Dense:
    """The chapter counts dense weights without bias (Table 7)."""
    return L.Dense(in_features=int(d_in), out_features=int(d_out), bias=False)


@widget_args
def part_a(d_in: int, d_out: int, precision: str) -> View:
    import plotly.graph_objects as go

    layer = dense(d_in, d_out)
    wb = layer.weight_bytes(precision)
    ref = dense(DEF_WIDTH, DEF_WIDTH)
    mnist = dense(MNIST_INPUTS, MNIST_HIDDEN)
    outs = list(range(int(A_D_OUT.start), int(A_D_OUT.stop) + 1, int(A_D_OUT.step)))
    fig = figure(
        f"Weight memory of a {int(d_in):,}→d_out dense layer",
        "Output width d_out",
        "Weight bytes (log scale)",
        log_y=True,
    )
    for p in PRECISIONS:
        fig.add_trace(
            go.Scatter(
                x=outs,
                y=[dense(d_in, o).weight_bytes(p) for o in outs],
                name=p.upper(),
                mode="lines",
                line=dict(width=3 if p == precision else 1.5),
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[int(d_out)],
            y=[wb],
            name="your layer",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )
    mcus = [HW.Hardware.get(k) for k in MCU_KEYS]
    for mcu in mcus:
        fig.add_trace(
            go.Scatter(
                x=[outs[0], outs[-1]],
                y=[mcu.memory.flash.m_as("B")] * 2,
                mode="lines",
                name=f"{device_label(mcu)} flash {mcu.memory.flash:~P}",
                line=dict(dash="dash"),
            )
        )

    fits = [device_label(d) for d in mcus if mcu_fit(layer, d, precision)]
    ratio = wb / ref.weight_bytes(DEF_PRECISION)
    vs_mnist = mnist.params / layer.params
    ex = dense(len(EXAMPLE_X), len(EXAMPLE_W[0]))
    z, h = ex.forward(EXAMPLE_X, EXAMPLE_W), ex.forward(EXAMPLE_X, EXAMPLE_W, relu=True)
    cards = [
        Card("Weights", fmt_count(layer.params), f"{int(d_in):,} × {int(d_out):,}"),
        Card("Weight memory", fmt_bytes(wb), precision.upper(), "ok" if fits else "warn"),
        Card("MACs per example", fmt_count(layer.macs()), "one per weight at batch 1"),
        Card(
            f"vs {DEF_WIDTH:,}² in {DEF_PRECISION.upper()}",
            relative(ratio).removesuffix(" of"),
            f"Definition 6.2: {fmt_bytes(ref.weight_bytes(DEF_PRECISION))}",
        ),
        Card(
            "MNIST reference layer",
            f"{mnist.macs():,} MACs",
            f"{MNIST_INPUTS}×{MNIST_HIDDEN} per sample",
        ),
        Card(
            "Per output neuron",
            f"{layer.in_features:,} MACs",
            f"{layer.operand_reads_per_output:,} operand reads (an input and a weight per MAC)",
        ),
        Card(
            "Fits an MCU (weights in flash)",
            ", ".join(fits) if fits else "neither MCU",
            " / ".join(f"{device_label(d)} flash {d.memory.flash:~P}" for d in mcus)
            + "; activations in SRAM",
            "ok" if fits else "bad",
        ),
    ]
    if vs_mnist == 1:
        mnist_text = f"is the same size: {mnist.params:,} weights"
    else:
        mnist_text = (
            f"is {'smaller' if vs_mnist < 1 else 'larger'}: {mnist.params:,} weights, "
            f"{relative(vs_mnist)} this layer's"
        )
    summary = (
        f"A {int(d_in):,}→{int(d_out):,} layer has {layer.params:,} weights: every input connects to every "
        f"output, so doubling both widths quadruples them. In {precision.upper()} that is {fmt_bytes(wb)}, "
        f"{relative(ratio)} the 2.1 MB of a 1,024² FP16 layer. The chapter's MNIST "
        f"layer ({MNIST_INPUTS}×{MNIST_HIDDEN}) {mnist_text}. On a microcontroller the weights live in flash "
        "and only the activations need SRAM: "
        + (
            f"this layer fits the {' and the '.join(fits)}."
            if fits
            else "this layer fits neither one."
        )
    )
    peek = [
        f"weights = d_in × d_out = {int(d_in):,} × {int(d_out):,} = {layer.params:,}",
        f"bytes   = weights × bytes/value = {fmt_bytes(wb)} ({precision})",
        f"MACs    = weights × batch (each weight used once per example) = {layer.macs():,} at batch 1",
        f"MNIST   = {MNIST_INPUTS} × {MNIST_HIDDEN} = {mnist.macs():,} MACs = {mnist.flops():,} FLOPs (1 MAC = 2 FLOPs); "
        f"per neuron {mnist.in_features} MACs, {mnist.operand_reads_per_output:,} operand reads",
        "Example 6.2: h = ["
        + ", ".join(f"{v:g}" for v in EXAMPLE_X)
        + "] × W (4×3)  →  z = ["
        + ", ".join(f"{v:.2f}" for v in z)
        + "]  →  ReLU ["
        + ", ".join(f"{v:.2f}" for v in h)
        + "]",
        f"            every one of the {ex.out_features} neurons reads all {ex.in_features} inputs: "
        f"{ex.macs()} MACs, {ex.operand_reads_per_output} operand reads per neuron",
    ]
    return View(fig, cards, summary, "Dense layer size", peek)


# ---------------------------------------------------------------------------------------------
# Part B: GEMV vs GEMM on the roofline
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "A 2,048×2,048 FP32 dense layer at batch 1 reaches only a few percent of an A100's peak. You double it "
        "to 4,096×4,096, still at batch 1. What happens to the share of peak its roofline allows (launch "
        "time aside)?"
    ),
    options={
        "up": "It rises: four times the MACs keep the arithmetic units busier",
        "same": "It stays put: four times the MACs, four times the weight bytes",
        "down": "It falls: four times the weights saturate the memory bus sooner",
    },
    answer="same",
    feedback={
        "up": "Size is not reuse. At batch 1 every weight is fetched to feed one MAC, whatever the layer's size: "
        "0.5 FLOP/B in FP32, so the bus caps it near 4% at 2,048 and at 4,096 alike.",
        "same": "Work and bytes both grow with d², so FLOPs per byte stay at 0.5 (2 FLOPs per 4-byte weight): about "
        "4% of the A100's FP32 peak at any width. Only reuse (batching) moves a layer up the roofline.",
        "down": "The bus is the limit at both sizes: four times the weights take four times as long to stream, "
        "while the MACs grow four times too, so the share is the same. (The engine streams every weight from "
        "DRAM once per pass; on repeated calls a matrix small enough for the GPU's L2 cache could stay there, "
        "a reuse it does not credit.)",
    },
    reveals=("four times the weight bytes",),
)

TRANSFER_B = Prediction(
    question=(
        "Same 2,048×2,048 layer at batch 1 on the A100, but in FP16 on the tensor cores. Compared with FP32, "
        "does it reach a larger or a smaller share of its (FP16) peak?"
    ),
    options={
        "larger": "Larger: half the bytes per weight doubles the intensity",
        "smaller": "Smaller: the roof rises far more than the intensity does",
        "same": "The same: precision changes neither the FLOPs nor the reuse",
    },
    answer="smaller",
    feedback={
        "larger": "The intensity does double (1 FLOP/B), but the roof moves further: 312 TFLOP/s FP16 against 19.5 "
        "FP32 puts the ridge point 16× further right while the intensity only doubles, so the share drops 8×, "
        "to about 0.5%.",
        "smaller": "1 FLOP/B against a ridge point of about 200 FLOP/B: 0.5% of the FP16 peak, against 4% of the FP32 "
        "one. Faster arithmetic makes a batch-1 layer look worse, not better; pick FP16 and compare.",
        "same": "FLOPs per weight stay 2, but each weight is 2 bytes instead of 4, and the peak it is measured "
        "against is 16× higher.",
    },
    kind="transfer",
)
B_BATCH = Slider("Batch size B", 1, 512, 1)
B_DEVICE = Choice(
    "Device",
    catalogue.labels(["A100_40GB", "A100", "H100", "JetsonOrinNX"]),
    "A100_40GB",
    inline=False,
)
B_PRECISION = Choice(
    "Precision", {"fp32": "FP32 (the chapter's case)", "fp16": "FP16 (tensor cores)"}, "fp32"
)
B_WIDTH = Slider("Square layer width d", 256, 8192, 2048, step=256)

SWEEP_BATCHES = [2**i for i in range(10)]  # 1 ... 512


@lru_cache(maxsize=64)
def square_mlp(width: int):
    """The same layer as a one-layer model, for the chapter's weight-only proxy."""
    return M.mlp([width, width], bias=False)


def roofline_share(layer, dev, batch: int, precision: str) -> float:
    """Share of the dense peak the roofline allows (launch overhead excluded)."""
    p = E.Engine.solve(layer, dev, batch_size=batch, precision=precision, efficiency=1.0)
    return p.flops / (p.latency_s - p.latency_dispatch_s) / p.peak_flops_s


def crossing_batch(layer, dev, precision: str, limit: int = 1 << 20) -> int | None:
    """Smallest batch at which the layer's compute time reaches its memory time (None if it never
    does up to ``limit``: activation traffic caps the intensity)."""

    def compute_bound(b: int) -> bool:
        p = E.Engine.solve(layer, dev, batch_size=b, precision=precision, efficiency=1.0)
        return p.latency_compute_s >= p.latency_memory_s

    if not compute_bound(limit):
        return None
    lo, hi = 1, limit
    while lo < hi:
        mid = (lo + hi) // 2
        if compute_bound(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


@widget_args
def part_b(batch: int, device: str, precision: str, width: int) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(device)
    b, d = int(batch), int(width)
    layer = dense(d, d)
    peak = dev.compute.peak(precision).m_as("FLOP/s")
    sw = E.Engine.sweep(layer, dev, batch_sizes=SWEEP_BATCHES, precision=precision, efficiency=1.0)
    attain = [
        f / (t - td)
        for f, t, td in zip(sw["flops"], sw["latency_s"], sw["dispatch_s"], strict=True)
    ]
    proxies = [E.weight_only_intensity(square_mlp(d), precision, x) for x in SWEEP_BATCHES]

    fig = roofline(
        dev,
        precision,
        1.0,
        (),
        x_range=(0.1, 5000.0),
        title=f"{d:,}×{d:,} dense layer, {device_label(dev)}, {precision.upper()}",
    )
    fig.add_trace(
        go.Scatter(
            x=sw["intensity"],
            y=[a / 1e12 for a in attain],
            mode="lines+markers",
            name="engine, B = 1…512",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=proxies,
            y=[dev.attainable_flops(i, precision) / 1e12 for i in proxies],
            mode="lines",
            name="weight-only proxy",
            line=dict(dash="dash"),
        )
    )
    p = E.Engine.solve(layer, dev, batch_size=b, precision=precision, efficiency=1.0)
    share = roofline_share(layer, dev, b, precision)
    fig.add_trace(
        go.Scatter(
            x=[p.arithmetic_intensity.magnitude],
            y=[share * peak / 1e12],
            mode="markers",
            name=f"your batch ({b})",
            marker=dict(size=14, symbol="diamond"),
        )
    )

    proxy = E.weight_only_intensity(square_mlp(d), precision, b)
    cross = crossing_batch(layer, dev, precision)
    ridge = dev.ridge_point(precision).magnitude
    kind = "GEMV" if b == 1 else "GEMM"
    cards = [
        Card("Kernel", kind, f"({b} × {d:,}) · ({d:,} × {d:,})"),
        Card("Weight-only intensity", f"{proxy:,.1f} FLOP/B", "the chapter's proxy"),
        Card(
            "Engine intensity",
            f"{p.arithmetic_intensity.magnitude:,.1f} FLOP/B",
            "weights + inputs + outputs",
        ),
        Card(
            "Share of peak (roofline)",
            f"{share:.1%}",
            f"{fmt_rate(share * peak)} of {fmt_rate(peak)}",
            "bad" if share < 0.1 else "warn" if share < 0.5 else "ok",
        ),
        Card(
            "With launch overhead",
            f"{p.mfu:.1%}",
            f"{fmt_time(p.latency_s)} incl. {fmt_time(p.latency_dispatch_s)} launch",
        ),
        Card(
            "Batch to reach the ridge",
            f"{cross:,}" if cross else "never",
            f"{LABELS['ridge_peak']} {ridge:,.1f} FLOP/B"
            + ("" if cross else f"; intensity caps below it at width {d:,}"),
            "ok" if cross and b >= cross else "warn",
        ),
    ]
    summary = (
        f"At batch {b} the {d:,}² layer is a {kind} at {p.arithmetic_intensity.magnitude:,.2f} FLOP/B against a "
        f"{LABELS['ridge_peak']} of {ridge:,.1f}: the roofline allows {share:.1%} of the {precision.upper()} peak. "
        + (
            f"It reaches the ridge at batch {cross:,}."
            if cross
            else "It never reaches the ridge: activation traffic grows with the batch and caps the intensity."
        )
        + " Batching raises the intensity: the weight bytes stay the same while the FLOPs grow with B."
    )
    peek = [
        f"weight-only I = 2·B·d² / (bytes·d²) = 2 × {b} / {float(U.bytes_per_value(precision)):g} = {proxy:,.2f} FLOP/B",
        f"engine I      = 2·B·d² / (bytes·(d² + 2·B·d)) = {p.arithmetic_intensity.magnitude:,.3f} FLOP/B",
        f"attainable    = min(peak, I × BW) = min({fmt_rate(peak)}, {p.arithmetic_intensity.magnitude:,.3f} × {dev.memory.bandwidth:~P})",
        f"share         = {fmt_rate(share * peak)} / {fmt_rate(peak)} = {share:.2%} (dense peak, launch time excluded)",
    ]
    return View(
        fig,
        cards,
        summary,
        "GEMV vs GEMM",
        peek,
        facts=[fact("ridge_peak", ridge, device=device, precision=precision)],
    )


# ---------------------------------------------------------------------------------------------
# Part C: representation vs learnability (Example 6.1)
# ---------------------------------------------------------------------------------------------

PRED_C = Prediction(
    question=(
        "Example 6.1 on 28×28 digits: which has more weights, the 784-128-64-10 MLP or a small "
        "two-convolution CNN (32 then 64 3×3 filters, two 2×2 poolings, then a 128-unit dense layer on "
        "the flattened map and a 10-way output)?"
    ),
    options={
        "mlp": "The MLP, by several times: dense layers explode",
        "cnn": "The CNN, by several times",
        "same": "About the same",
    },
    answer="cnn",
    feedback={
        "mlp": "Whole-network counts follow width choices. The MLP has 109,184 weights; the CNN has 421,408, "
        "96% of them in its dense head. The saving from locality is per detector: 25,088 vs 288.",
        "cnn": "421,408 vs 109,184, almost all in the CNN's 3,136→128 head. Per detector the story flips: 32 "
        "dense detectors need 25,088 weights, 32 shared 3×3 filters 288 (87× fewer).",
        "same": "They differ by 3.9×: 421,408 (CNN) vs 109,184 (MLP). And per detector they differ by 87× the "
        "other way. Count like with like.",
    },
    reveals=("421,408", "109,184", "counted per detector"),
)

TRANSFER_C = Prediction(
    question=(
        "Widen the MLP's first hidden layer from 128 to 512 units (784-512-64-10), CNN unchanged. Which network "
        "has more weights now?"
    ),
    options={
        "mlp": "The MLP, narrowly: the wider first layer is enough to overtake",
        "cnn": "Still the CNN, by far: convolutions always cost more weights",
        "same": "Exactly the same: the widening just closes the gap",
    },
    answer="mlp",
    feedback={
        "mlp": "784 × 512 + 512 × 64 + 64 × 10 = 434,816 against the CNN's 421,408. Whole-network counts follow "
        "width choices, which is why the chapter compares per detector. Set the width slider to 512.",
        "cnn": "The CNN's size comes from its dense head, not its convolutions; a 512-wide first layer costs the MLP "
        "784 × 512 = 401,408 weights on its own, enough to overtake it (434,816 vs 421,408).",
        "same": "Close, but 434,816 vs 421,408: the MLP is now larger.",
    },
    kind="transfer",
)
C_FEATURES = Slider("First-layer feature detectors", 8, 128, 32, step=8)
C_KERNEL = Slider("Filter side K", 1, 7, 3, step=2)
C_HIDDEN = Slider("MLP first hidden width", 32, 512, 128, step=32)

#: Example 6.1's MLP after the first hidden layer (L131): 64 then 10 classes.
MLP_TAIL = (64, 10)


@lru_cache(maxsize=32)
def mnist_mlp_width(hidden: int):
    return M.mlp([MNIST_INPUTS, hidden, *MLP_TAIL], bias=False)


@widget_args
def part_c(features: int, kernel: int, hidden: int) -> View:
    import plotly.graph_objects as go

    f, k, h = int(features), int(kernel), int(hidden)
    net_mlp = mnist_mlp_width(h)
    net_cnn = M.mnist_cnn()
    head = sum(r.layer.params for r in net_cnn.rows() if isinstance(r.layer, L.Dense))
    dense_det = dense(MNIST_INPUTS, f)
    conv_det = L.Conv2d(
        in_channels=1,
        out_channels=f,
        kernel_size=k,
        input_size=MNIST_SIDE,
        padding=k // 2,
        bias=False,
    )
    ratio = dense_det.params / conv_det.params

    fig = figure(
        "Weights: whole network vs first-layer detectors (MNIST, no biases)",
        "",
        "Weights (log scale)",
        log_y=True,
    )
    groups = ["Whole network", f"{f} first-layer detectors"]
    fig.add_trace(go.Bar(x=groups, y=[net_mlp.params, dense_det.params], name=f"MLP 784-{h}-64-10"))
    fig.add_trace(
        go.Bar(
            x=groups,
            y=[net_cnn.params, conv_det.params],
            # the whole network is always the 3×3 MNIST CNN; only the detectors follow K
            name="CNN (3×3 filters)" if k == 3 else f"CNN (3×3 net; {k}×{k} detectors)",
        )
    )
    fig.update_layout(barmode="group")

    cards = [
        Card("MLP weights", fmt_count(net_mlp.params), f"784-{h}-64-10"),
        Card("CNN weights", fmt_count(net_cnn.params), f"dense head {head / net_cnn.params:.0%}"),
        Card("Dense detectors", fmt_count(dense_det.params), f"{f} × 784 pixels", "bad"),
        Card("Conv detectors", fmt_count(conv_det.params), f"{f} × {k}×{k}", "ok"),
        Card("Per-detector saving", fmt_ratio(ratio), "dense ÷ conv"),
        Card(
            "Uses of each filter weight",
            fmt_count(conv_det.weight_reuse),
            f"{MNIST_SIDE}×{MNIST_SIDE} positions",
        ),
    ]
    bigger = "CNN" if net_cnn.params > net_mlp.params else "MLP"
    summary = (
        f"Whole networks: the MLP has {net_mlp.params:,} weights and the CNN {net_cnn.params:,} (the {bigger} is "
        f"larger; {head / net_cnn.params:.0%} of the CNN sits in its dense head). Per detector: {f} dense "
        f"detectors need {dense_det.params:,} weights, {f} shared {k}×{k} filters {conv_det.params:,}: "
        f"{ratio:,.1f}× fewer, each reused at {conv_det.weight_reuse:,} positions. The bias buys efficiency per "
        "feature, not a smaller network."
    )
    peek = [
        "MLP   = "
        + " + ".join(f"{r.layer.params:,}" for r in net_mlp.rows() if r.layer.params)
        + f" = {net_mlp.params:,}",
        "CNN   = "
        + " + ".join(f"{r.layer.params:,}" for r in net_cnn.rows() if r.layer.params)
        + f" = {net_cnn.params:,} (conv1, conv2, head fc1, fc2)",
        f"dense detectors = {f} × 784 = {dense_det.params:,};  conv detectors = {f} × {k}² = {conv_det.params:,}",
        f"saving = 784 / K² = {ratio:,.1f}×",
    ]
    return View(fig, cards, summary, "Counting like with like", peek)


# ---------------------------------------------------------------------------------------------
# Part D: energy of moving vs computing
# ---------------------------------------------------------------------------------------------

PRED_D = Prediction(
    question=(
        "At batch 1 a dense layer fetches every FP32 weight from DRAM to use it in one multiply-accumulate, and "
        "the fetch costs far more energy than the MAC. You batch 8 inputs through the layer. What happens to "
        "the weight-fetch energy per inference?"
    ),
    options={
        "same": "Nothing: every inference still needs every weight",
        "eight": "It falls about 8×: each fetched weight now feeds 8 MACs",
        "up": "It rises: eight inputs move eight times the data",
    },
    answer="eight",
    feedback={
        "same": "Every inference needs every weight, but not its own copy of it: one fetch serves all 8 inputs, so "
        "each inference pays an eighth of the fetch.",
        "eight": "The weights are fetched once per batch and used B times: the fetch energy per inference falls "
        "with B, while the MAC energy stays. Batching saves energy as well as time.",
        "up": "The inputs and outputs grow with the batch, but they are small next to 4 million weights; the weights "
        "themselves are fetched once per batch.",
    },
    reveals=("feeds 8 MACs",),
)

TRANSFER_D = Prediction(
    question=(
        "Back at batch 1 from DRAM, switch the weights and the MAC to INT8. Does fetching a weight now cost more "
        "or fewer multiples of the MAC that uses it?"
    ),
    options={
        "fewer": "Fewer: an INT8 weight is a quarter of the bytes to fetch",
        "more": "More: the MAC's energy shrinks faster than the fetch's",
        "same": "The same: the fetch and the MAC shrink together",
    },
    answer="more",
    feedback={
        "fewer": "The fetch does cost a quarter as much, but the INT8 multiply-add (0.3 pJ) is about 15× cheaper "
        "than the FP32 one (4.6 pJ), so moving a weight is a larger multiple of using it.",
        "more": "160 pJ per INT8 byte against a 0.3 pJ MAC: about 533×, against 139× in FP32. Quantization saves "
        "energy everywhere, but it makes data movement an even larger share. Pick INT8 and read the ratio.",
        "same": "Energy per byte scales with the bytes, but the MAC's energy falls faster than linearly with the "
        "bit width.",
    },
    kind="transfer",
)
D_BATCH = Slider("Batch size B (reuse of each fetched weight)", 1, 256, 1)
#: Memory levels of ``mlsysim.energy`` (Horowitz 2014), named for the sentence.
LEVELS = {
    "dram": "off-chip DRAM",
    "sram_1mb": "a 1 MB SRAM",
    "sram_32kb": "a 32 KB SRAM",
    "sram_8kb": "an 8 KB SRAM",
}
D_LEVEL = Choice(
    "Where the weights live",
    {
        lvl: f"{name} ({energy.ACCESS_ENERGY_PJ_PER_BYTE[lvl]:g} pJ/B)"
        for lvl, name in (
            ("dram", "Off-chip DRAM"),
            ("sram_1mb", "1 MB SRAM"),
            ("sram_32kb", "32 KB SRAM"),
            ("sram_8kb", "8 KB SRAM"),
        )
    },
    "dram",
    inline=False,
)
D_PRECISION = Choice("Precision", PRECISIONS, "fp32")

#: The layer whose energy per inference is shown: section 6.2.5's 2,048 x 2,048 layer (L228).
ENERGY_WIDTH = 2048
#: What each on-chip level holds, in decimal bytes as its label reads (Horowitz's 8 KB, 32 KB and
#: 1 MB arrays); DRAM has room for any layer here. A layer whose weights exceed the level cannot
#: be served from it, so only the per-weight ratio applies there.
LEVEL_BYTES = {"dram": None, "sram_1mb": 1e6, "sram_32kb": 32e3, "sram_8kb": 8e3}


@widget_args
def part_d(batch: int, level: str, precision: str) -> View:
    import plotly.graph_objects as go

    b = int(batch)
    ratio = energy.move_vs_compute(precision, level, reuse=b)
    batches = sorted({2**i for i in range(9)} | {b})
    fig = figure(
        f"Energy to fetch a weight ÷ energy of the MAC that uses it ({precision.upper()})",
        "Batch size B (log scale)",
        "Move ÷ compute (log scale)",
        log_x=True,
        log_y=True,
    )
    for lvl, label in D_LEVEL.options.items():
        fig.add_trace(
            go.Scatter(
                x=batches,
                y=[energy.move_vs_compute(precision, lvl, x) for x in batches],
                name=label,
                mode="lines",
                line=dict(width=3 if lvl == level else 1.5),
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[1, batches[-1]],
            y=[1, 1],
            name="break-even (move = compute)",
            mode="lines",
            line=dict(dash="dash"),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[b],
            y=[ratio],
            name="your setting",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )

    layer = dense(ENERGY_WIDTH, ENERGY_WIDTH)
    wb = layer.weight_bytes(precision)
    room = LEVEL_BYTES[level]
    fits = room is None or wb <= room
    e_move = energy.access_energy(wb, level).m_as("uJ") / b
    e_mac = (energy.mac_energy(precision) * layer.macs()).m_as("uJ")
    breakeven = energy.move_vs_compute(precision, level, 1)
    cards = [
        Card(
            "Move ÷ compute",
            fmt_ratio(ratio, 1 if ratio >= 10 else 2),
            f"per weight use at B = {b}",
            "bad" if ratio > 10 else "warn" if ratio > 1 else "ok",
        ),
        Card(
            "Fetch one weight",
            f"{energy.access_energy(float(U.bytes_per_value(precision)), level).m_as('pJ'):,.1f} pJ",
            D_LEVEL.options[level],
        ),
        Card(
            "One MAC",
            f"{energy.mac_energy(precision).m_as('pJ'):,.2f} pJ",
            f"{precision.upper()} multiply + add",
        ),
        Card("Break-even batch", f"about {breakeven:,.0f}", "reuse at which moving = computing"),
        Card(
            f"{ENERGY_WIDTH:,}² layer, per inference",
            f"{e_move + e_mac:,.2f} µJ" if fits else "does not fit",
            f"{e_move / (e_move + e_mac):.0%} moving weights"
            if fits
            else f"{fmt_bytes(wb)} of {precision.upper()} weights vs {fmt_bytes(room)}",
            "" if fits else "bad",
        ),
    ]
    summary = (
        f"From {LEVELS[level]}, fetching one {precision.upper()} weight costs "
        + (
            f"{ratio:,.1f}× the MAC it feeds. "
            if b == 1
            else f"{ratio * b:,.1f}× one MAC; shared by {b} examples, {ratio:,.1f}× per use. "
        )
        + (
            f"For the {ENERGY_WIDTH:,}² layer, {e_move / (e_move + e_mac):.0%} of the {e_move + e_mac:,.2f} µJ "
            "per inference moves weights."
            if fits
            else f"The {ENERGY_WIDTH:,}² layer's {fmt_bytes(wb)} of {precision.upper()} weights cannot live in "
            f"{LEVELS[level]}, so its energy per inference is not priced at this level: the per-weight ratio "
            "applies only to weights (or a tile of them) small enough to stay there."
        )
        + " Batching, like keeping weights on chip, cuts the energy per inference as well as the time."
    )
    peek = [
        f"E_move / E_MAC = (bytes × pJ/B) / (E_mult + E_add) = {breakeven:,.1f}× at B = 1",
        f"per use at batch B = {breakeven:,.1f} / {b} = {ratio:,.2f}×",
        f"per inference = weight bytes × pJ/B / B + MACs × E_MAC = {e_move:,.2f} + {e_mac:,.2f} µJ"
        if fits
        else f"per inference: not priced ({fmt_bytes(wb)} of weights > the {fmt_bytes(room)} level)",
        "weights only: activation traffic, which batching does not amortize, is left out (Horowitz 2014, 45 nm)",
    ]
    return View(fig, cards, summary, "Energy per weight", peek)
