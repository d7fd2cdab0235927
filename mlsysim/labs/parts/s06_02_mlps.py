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
    Deferred,
    Prediction,
    Slider,
    View,
    counted,
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
X = lazy("mlsysim.expressivity")
LN = lazy("mlsysim.learnability")
U = lazy("mlsysim.units")

CHAPTER = "6.2"
PARTS = ("A", "B", "C", "D", "E", "F")

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

#: The microcontroller of PRED_A and TRANSFER_A (1 MiB flash for weights, 256 KiB SRAM for
#: activations): the engine's fit rule, weights in flash and activations in SRAM.
QUESTION_MCU = "ArduinoNano33BLESense"

PRED_A = Prediction(
    question=(
        "The fraud scorer moves to an Arduino Nano 33 BLE Sense: weights in its 1 MiB of flash, a layer's "
        "activations (its input and output) in its 256 KiB of SRAM, a quarter the size. You widen a square "
        "INT8 hidden layer step by step. Which memory runs out first?"
    ),
    options={
        "flash": "The flash: each new unit brings a weight for every other unit",
        "sram": "The SRAM: it is four times smaller than the flash",
        "together": "Both near one width: weights and activations grow together",
    },
    answer="flash",
    feedback=Deferred(lambda: _pred_a_feedback(), precomputed="s06_02_mlps.PRED_A"),
    reveals=("flash runs out first", "long before its SRAM"),
    asks="regime",
    misconceptions={
        "sram": (
            "the smaller memory fills first",
            "A memory four times smaller must run out before the larger one",
        ),
        "together": (
            "weights grow like activations",
            "A wider layer adds weights and activations in proportion",
        ),
    },
)


def mcu_limit_width(precision: str = "int8", mcu_key: str = QUESTION_MCU) -> dict[str, int]:
    """The width of a square dense layer at which each memory of the MCU first overflows (the
    engine's fit rule): {'flash': d, 'sram': d}. Weights d² in flash, activations 2d in SRAM."""
    mcu = HW.Hardware.get(mcu_key)
    bpv = float(U.bytes_per_value(precision))
    flash, sram = mcu.memory.flash.m_as("B"), mcu.memory.sram.m_as("B")
    d_flash = int((flash / bpv) ** 0.5) + 1
    while dense(d_flash - 1, d_flash - 1).weight_bytes(precision) > flash:
        d_flash -= 1
    d_sram = int(sram / (2 * bpv)) + 1
    return {"flash": d_flash, "sram": d_sram}


def _pred_a_feedback() -> dict[str, str]:
    lim = mcu_limit_width()
    f, r = lim["flash"], lim["sram"]
    return {
        "flash": f"The weights grow with d × d, the activations with 2 × d: the flash runs out first, at "
        f"width {f:,} ({f:,}² weights of 1 B each pass 1 MiB), while the activations would fill the SRAM "
        f"only at width {r:,}. A smaller memory is no constraint when what lives in it grows slowly.",
        "sram": f"The SRAM is smaller, but it holds only the input and output, 2 × d bytes: it would fill at "
        f"width {r:,}. The flash holds d² weights and runs out at width {f:,}.",
        "together": f"Doubling the width doubles the activations (2 × d) but quadruples the weights (d²): "
        f"the flash runs out at width {f:,}, the SRAM would only at {r:,}.",
    }


#: TRANSFER_A's layer, beyond part A's controls (it sizes dense layers only): a 3x3 convolution,
#: 16 -> 32 channels over a 96 x 96 map ('same' padding), in INT8 on the same microcontroller.
TRANSFER_CONV = dict(in_channels=16, out_channels=32, kernel_size=3, input_size=96, padding=1)

TRANSFER_A = Prediction(
    question=(
        "Same Arduino (1 MiB flash, 256 KiB SRAM), but now a 3×3 convolution, 16 → 32 channels, over a "
        "96×96 map in INT8 ('same' padding; this part sizes dense layers only). Which memory runs out?"
    ),
    options={
        "flash": "The flash: weights are what outgrow a microcontroller",
        "sram": "The SRAM: its feature maps dwarf its few filter weights",
        "fits": "Neither: a layer of a few thousand weights fits anywhere",
    },
    answer="sram",
    feedback=Deferred(lambda: _transfer_a_feedback()),
    kind="transfer",
    reveals=("feature maps dwarf",),
    asks="estimate",
    misconceptions={
        "flash": (
            "weights always bind on an MCU",
            "On a microcontroller the weights are always what runs out",
        ),
        "fits": (
            "few weights means small",
            "A layer with few weights needs little memory of any kind",
        ),
    },
)


def transfer_a_profile():
    return E.Engine.solve(L.Conv2d(**TRANSFER_CONV, bias=False), QUESTION_MCU, precision="int8")


def _transfer_a_feedback() -> dict[str, str]:
    p = transfer_a_profile()
    w, act = fmt_bytes(p.weight_bytes), fmt_bytes(p.activation_bytes)
    return {
        "sram": f"3 × 3 × 16 × 32 = 4,608 weights ({w}) sit easily in flash, but the input map "
        f"(96 × 96 × 16) and the output map (96 × 96 × 32) take {act} of SRAM, more than its 256 KiB. "
        "A convolution shares its weights and pays in activations: the opposite of a dense layer.",
        "flash": f"For a dense layer, yes; a convolution shares its weights: {w} of filters, against "
        f"{act} of input and output maps, which overflow the 256 KiB SRAM.",
        "fits": f"The weights are tiny ({w}), but the layer's input and output maps are not: {act}, "
        "over the 256 KiB SRAM. Memory follows the activations here, not the weight count.",
    }


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


#: Part A's MathPeek: the context at which GPT-2 XL's FFN share of MACs is quoted (its full window).
MLP_SHARE_TOKENS = 1024


@lru_cache(maxsize=1)
def mlp_shares() -> tuple[float, float, float, float]:
    """(GPT-2 XL FFN params share, its MACs share at ``MLP_SHARE_TOKENS``, DLRM towers' params
    share, their MACs share)."""
    ffn = M.rows_share(M.Models.GPT2, "mlp.", seq_len=MLP_SHARE_TOKENS)
    towers = M.rows_share(M.Models.DLRM, "bottom.", "top.")
    return (*ffn, *towers)


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
    live = layer.live_elements(1) * float(U.bytes_per_value(precision))
    lim = mcu_limit_width(precision)
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
            "Activations (input + output)",
            fmt_bytes(live),
            f"{int(d_in):,} + {int(d_out):,} values in SRAM; weights are {wb / live:,.0f}× that",
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
        + f" The weights grow with d_in × d_out, the activations with d_in + d_out ({fmt_bytes(live)} "
        f"here): widening a square {precision.upper()} layer, the {device_label(mcus[0])}'s flash runs out "
        f"first, at width {lim['flash']:,}, long before its SRAM would (at {lim['sram']:,})."
    )
    ffn_p, ffn_m, tow_p, tow_m = mlp_shares()
    peek = [
        f"weights = d_in × d_out = {int(d_in):,} × {int(d_out):,} = {layer.params:,}",
        f"bytes   = weights × bytes/value = {fmt_bytes(wb)} ({precision})",
        f"MACs    = weights × batch (each weight used once per example) = {layer.macs():,} at batch 1",
        f"MNIST   = {MNIST_INPUTS} × {MNIST_HIDDEN} = {mnist.macs():,} MACs = {mnist.flops():,} FLOPs (1 MAC = 2 FLOPs); "
        f"per neuron {mnist.in_features} MACs, {mnist.operand_reads_per_output:,} operand reads; "
        f"working set {fmt_bytes(mnist.weight_bytes('fp32'))} of FP32 weights (a layer this size fits on-chip SRAM)",
        "Example 6.2: h = ["
        + ", ".join(f"{v:g}" for v in EXAMPLE_X)
        + "] × W (4×3)  →  z = ["
        + ", ".join(f"{v:.2f}" for v in z)
        + "]  →  ReLU ["
        + ", ".join(f"{v:.2f}" for v in h)
        + "]",
        f"            every one of the {ex.out_features} neurons reads all {ex.in_features} inputs: "
        f"{ex.macs()} MACs, {ex.operand_reads_per_output} operand reads per neuron",
        f"MLPs are not too simple: GPT-2 XL's FFN MLPs hold {ffn_p:.1%} of its parameters and do {ffn_m:.1%} "
        f"of its MACs at {MLP_SHARE_TOKENS:,} tokens; DLRM's bottom and top MLP towers do {tow_m:.1%} of its "
        f"MACs with {tow_p:.3%} of its parameters",
    ]
    return View(fig, cards, summary, "Dense layer size", peek)


# ---------------------------------------------------------------------------------------------
# Part B: GEMV vs GEMM on the roofline
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "A 2,048×2,048 FP32 dense layer at batch 1, its weights streamed from HBM on every "
        "call, reaches only a few percent of an A100's peak. You double it to 4,096×4,096, "
        "still at batch 1. What happens to the share of peak its roofline allows (launch time "
        "aside)?"
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
    asks="direction",
    misconceptions={
        "up": (
            "bigger layers run closer to peak",
            "More MACs per layer keep the arithmetic units busier, whatever the reuse",
        ),
        "down": (
            "more weights saturate the bus",
            "A bigger weight matrix loads the memory bus harder relative to its work",
        ),
    },
)

TRANSFER_B = Prediction(
    question=(
        "Move the 2,048×2,048 batch-1 layer to the H100 and run it in INT8, weights and arithmetic (this "
        "part offers FP32 and FP16 only). Against FP32 on the same H100, launch time aside, what happens "
        "to the share of its (INT8) peak the roofline allows?"
    ),
    options={
        "larger": "Larger: a quarter of the bytes per weight is 4× the intensity",
        "smaller": "Smaller: the INT8 roof rises far more than the intensity",
        "same": "The same: precision changes neither the operations nor the reuse",
    },
    answer="smaller",
    feedback=Deferred(lambda: _transfer_b_feedback()),
    kind="transfer",
    reveals=("INT8 roof rises",),
    asks="direction",
    misconceptions={
        "larger": (
            "fewer bytes means closer to peak",
            "Quantizing a memory-bound layer raises the share of peak it reaches",
        ),
        "same": (
            "precision does not touch the roofline",
            "Operations and reuse are unchanged, so the share of peak is too",
        ),
    },
)


def _transfer_b_feedback() -> dict[str, str]:
    dev = HW.Hardware.get("H100")
    layer = dense(2048, 2048)
    s32, s8 = (roofline_share(layer, dev, 1, p) for p in ("fp32", "int8"))
    r32, r8 = dev.ridge_point("fp32").magnitude, dev.ridge_point("int8").magnitude
    t32, t8 = (
        E.Engine.solve(layer, dev, batch_size=1, precision=p, efficiency=1.0)
        for p in ("fp32", "int8")
    )
    faster = (t32.latency_s - t32.latency_dispatch_s) / (t8.latency_s - t8.latency_dispatch_s)
    return {
        "smaller": f"The intensity does rise about 4× (0.5 FLOP/B → about 2 OP/B), but the ridge point moves "
        f"from {r32:,.0f} FLOP/B to {r8:,.0f} OP/B: {s8:.2%} of the INT8 peak against {s32:.1%} of the FP32 "
        f"one. The layer still runs {faster:,.1f}× faster (a quarter of the bytes); it just uses less of "
        "a far faster machine.",
        "larger": f"Time does fall ({faster:,.1f}× faster: a quarter of the bytes), but the INT8 peak is "
        f"{r8 / r32:,.0f}× the FP32 one over the same bus, so the share falls: {s32:.1%} → {s8:.2%}.",
        "same": f"The operations are the same, but each weight is a quarter of the bytes and the peak it is "
        f"measured against is {r8 / r32:,.0f}× higher: {s32:.1%} → {s8:.2%}.",
    }


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
        "Example 6.1's two MNIST classifiers: the 784-128-64-10 MLP, and a small CNN (32 then 64 3×3 "
        "filters, two 2×2 poolings, then a 128-unit dense layer on the flattened map and a 10-way "
        "output). Which network holds more weights, and why?"
    ),
    options={
        "mlp": "The MLP: every pixel has a weight to every first-layer unit",
        "cnn": "The CNN: its dense layer reads every value of the final map",
        "same": "Neither, roughly: both end in the same small dense classifier",
    },
    answer="cnn",
    feedback={
        "mlp": "The MLP's first layer is 784 × 128 = 100,352 weights, but the CNN's dense layer reads the "
        "flattened 7 × 7 × 64 = 3,136-value map: 3,136 × 128 = 401,408 weights on its own. The MLP has "
        "109,184 weights; the CNN 421,408, 96% of them in its dense head. The saving from locality is per "
        "detector: 25,088 vs 288.",
        "cnn": "421,408 vs 109,184, almost all in the CNN's 3,136 → 128 dense layer: 64 channels at 7 × 7 is "
        "more values than the 784 pixels. Per detector the story flips: 32 dense detectors need 25,088 "
        "weights, 32 shared 3×3 filters 288 (87× fewer).",
        "same": "The classifiers are alike, but what feeds them is not: the MLP's second layer reads 128 "
        "values, the CNN's dense layer 3,136 (64 maps of 7 × 7). 421,408 (CNN) vs 109,184 (MLP), 3.9×; per "
        "detector they differ by 87× the other way. Count like with like.",
    },
    reveals=("421,408", "109,184", "counted per detector"),
    asks="behaviour",
    misconceptions={
        "mlp": (
            "convolutions make smaller networks",
            "A CNN always has fewer weights than an MLP on the same images",
        ),
        "same": (
            "the classifier sets the size",
            "Two networks ending in the same dense classifier hold about the same weights",
        ),
    },
)

#: TRANSFER_C's change, beyond part C's controls (it never changes the CNN): a third 3x3
#: convolution (64 -> 128 filters) and a third 2x2 pooling before the dense head, 7x7 -> 3x3.
THIRD_CONV = 128


@lru_cache(maxsize=1)
def mnist_cnn_three():
    """Example 6.1's CNN with a third conv stage: conv 64 -> 128 at 7x7, pool to 3x3, FC
    1,152 -> 128 -> 10 (no biases, as the chapter counts)."""
    c3 = L.Conv2d(
        in_channels=64, out_channels=THIRD_CONV, kernel_size=3, input_size=7, padding=1, bias=False
    )
    pool = L.Pool2d(channels=THIRD_CONV, input_size=7, kernel_size=2)
    rows = [r for r in M.mnist_cnn().rows() if not isinstance(r.layer, L.Dense)]
    rows = rows[: [r.name for r in rows].index("pool2") + 1]
    rows += [
        M.Row("conv3", c3),
        M.Row("relu3c", L.Activation(elements=c3.output_elements)),
        M.Row("pool3", pool),
        M.Row("fc1", L.Dense(in_features=pool.output_elements, out_features=128, bias=False)),
        M.Row("relu3", L.Activation(elements=128)),
        M.Row("fc2", L.Dense(in_features=128, out_features=10, bias=False)),
    ]
    return M.Model("MNIST CNN (3 conv)", "cnn", lambda _s, _p: rows)


TRANSFER_C = Prediction(
    question=(
        "Add a third stage to the CNN before its dense head: 128 more 3×3 filters, then a third 2×2 "
        "pooling (the 7×7 map becomes 3×3; this part never changes the CNN). Does the CNN's weight count "
        "go up or down?"
    ),
    options={
        "up": "Up: a new layer always brings weights of its own",
        "down": "Down: the dense head now reads a much smaller map",
        "same": "About the same: a 3×3 filter bank is tiny next to the head",
    },
    answer="down",
    feedback=Deferred(lambda: _transfer_c_feedback()),
    kind="transfer",
    reveals=("241,184",),
    asks="direction",
    misconceptions={
        "up": (
            "depth always adds parameters",
            "Adding a layer can only increase a network's weight count",
        ),
        "same": (
            "only the new layer's weights change",
            "Adding a layer leaves the rest of the network's weights as they were",
        ),
    },
)


def _transfer_c_feedback() -> dict[str, str]:
    two, three = M.mnist_cnn(), mnist_cnn_three()
    conv3 = next(r.layer for r in three.rows() if r.name == "conv3")
    fc_old = next(r.layer for r in two.rows() if r.name == "fc1")
    fc_new = next(r.layer for r in three.rows() if r.name == "fc1")
    return {
        "down": f"The new filters add {conv3.params:,} weights, but the pooling shrinks what the dense "
        f"layer reads from {fc_old.in_features:,} values to {fc_new.in_features:,}: its weights fall from "
        f"{fc_old.params:,} to {fc_new.params:,}. In all {two.params:,} → {three.params:,}: a deeper CNN "
        "with fewer weights. A CNN's size is set mostly by where it hands over to dense layers.",
        "up": f"The new layer does bring {conv3.params:,} weights, but the dense head shrinks far more "
        f"({fc_old.params:,} → {fc_new.params:,}), because it now reads a 3×3×128 map instead of 7×7×64: "
        f"{two.params:,} → {three.params:,}.",
        "same": f"The filter bank is small ({conv3.params:,} weights), but it changes what the head reads: "
        f"{fc_old.in_features:,} → {fc_new.in_features:,} values, so the head drops from {fc_old.params:,} "
        f"to {fc_new.params:,} and the CNN from {two.params:,} to {three.params:,}.",
    }


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
    wide = longer_edition_mlp()
    uat = L.Dense(in_features=UAT_SIDE * UAT_SIDE * 3, out_features=UAT_UNITS, bias=False)
    peek = [
        "MLP   = "
        + " + ".join(f"{r.layer.params:,}" for r in net_mlp.rows() if r.layer.params)
        + f" = {net_mlp.params:,}",
        "CNN   = "
        + " + ".join(f"{r.layer.params:,}" for r in net_cnn.rows() if r.layer.params)
        + f" = {net_cnn.params:,} (conv1, conv2, head fc1, fc2)",
        f"dense detectors = {f} × 784 = {dense_det.params:,};  conv detectors = {f} × {k}² = {conv_det.params:,}",
        f"saving = 784 / K² = {ratio:,.1f}×",
        f"editions: the longer edition's '20M-parameter' 3-layer MLP (e.g. 784-4,096-4,096-10: "
        f"{wide.params:,} weights) has {wide.params / net_cnn.params:,.1f}× the CNN's weights, its '47× "
        f"fewer'; this page counts the primary edition's Example 6.1 MLP (784-128-64-10, "
        f"{mnist_mlp_width(MNIST_HIDDEN).params:,}), the network the chapter now compares",
        f"UAT self-check: one hidden layer of {UAT_UNITS:,} units on a {UAT_SIDE}×{UAT_SIDE}×3 image = "
        f"{UAT_SIDE * UAT_SIDE * 3:,} × {UAT_UNITS:,} = {uat.params:,} weights ({fmt_count(uat.params)}): "
        "the theorem says such a layer can represent the function, not that finite data can fit its weights",
    ]
    return View(fig, cards, summary, "Counting like with like", peek)


#: the 6.2 self-check (L154): a one-hidden-layer MLP on 256×256×3 images with 4,096 units
UAT_SIDE, UAT_UNITS = 256, 4096


#: The longer edition's '3-layer MNIST MLP with 20M parameters' (L208; no widths given): 784 ->
#: 4,096 -> 4,096 -> 10 gives 20.03M without biases (the digest's reconstruction).
LONGER_EDITION_MLP = (784, 4096, 4096, 10)


@lru_cache(maxsize=1)
def longer_edition_mlp():
    return M.mlp(list(LONGER_EDITION_MLP), bias=False)


# ---------------------------------------------------------------------------------------------
# Part D: energy of moving vs computing
# ---------------------------------------------------------------------------------------------

PRED_D = Prediction(
    question=(
        "Hannah's 2,048×2,048 layer runs at batch 1 with FP32 weights in off-chip DRAM. Which cuts its "
        "energy per inference more: switching weights and arithmetic to INT8 (still batch 1), or staying in "
        "FP32 and batching 8 inputs through the layer?"
    ),
    options={
        "batch": "Batching 8 in FP32: one weight fetch then serves eight inferences",
        "int8": "INT8 at batch 1: each multiply-add then costs a fifteenth of FP32's",
        "same": "About the same: each cuts the bytes fetched per inference",
    },
    answer="batch",
    feedback=Deferred(lambda: _pred_d_feedback()),
    reveals=("one weight fetch then serves",),
    asks="behaviour",
    misconceptions={
        "int8": (
            "energy follows the arithmetic",
            "A layer's energy is set by the cost of its multiply-adds",
        ),
        "same": (
            "any byte cut is the same cut",
            "Quantizing and batching save the same share of the weight fetches",
        ),
    },
)


def layer_energy_uj(precision: str, batch: int, level: str = "dram") -> tuple[float, float]:
    """(weight-fetch, MAC) energy per inference of the 2,048² layer in µJ: the fetch shared by the
    batch, the MACs per example (Horowitz 45 nm; part D's card)."""
    layer = dense(ENERGY_WIDTH, ENERGY_WIDTH)
    move = energy.access_energy(layer.weight_bytes(precision), level).m_as("uJ") / batch
    mac = (energy.mac_energy(precision) * layer.macs()).m_as("uJ")
    return move, mac


def _pred_d_feedback() -> dict[str, str]:
    base, b8, i8 = (sum(layer_energy_uj(p, b)) for p, b in (("fp32", 1), ("fp32", 8), ("int8", 1)))
    ratio = energy.mac_energy("fp32").m_as("pJ") / energy.mac_energy("int8").m_as("pJ")
    return {
        "batch": f"{base:,.0f} µJ per inference at batch 1, almost all of it fetching weights. Batching 8 "
        f"divides the fetch by 8: {b8:,.0f} µJ. INT8 fetches a quarter of the bytes and makes each MAC "
        f"{ratio:,.0f}× cheaper: {i8:,.0f} µJ. Movement dominates, so the lever on the fetches wins.",
        "int8": f"The INT8 multiply-add is {ratio:,.0f}× cheaper, but the MACs were under 1% of the energy: "
        f"the {base:,.0f} µJ at batch 1 fall only 4× with INT8 ({i8:,.0f} µJ) and 8× with a batch "
        f"of 8 ({b8:,.0f} µJ).",
        "same": f"Both cut the fetches per inference, by different factors: INT8 a quarter of the bytes "
        f"({base:,.0f} → {i8:,.0f} µJ), a batch of 8 an eighth of the fetches ({b8:,.0f} µJ).",
    }


#: TRANSFER_D's layer, beyond part D's dense layer and batch slider: a 3x3 convolution, 64 -> 64
#: channels over a 56 x 56 map (one of ResNet-50's), at batch 1 with FP32 weights from DRAM.
TRANSFER_D_CONV = dict(in_channels=64, out_channels=64, kernel_size=3, input_size=56, padding=1)

TRANSFER_D = Prediction(
    question=(
        "Still batch 1, FP32 weights fetched once from DRAM, but a 3×3 convolution, 64 → 64 channels over "
        "a 56×56 map (one of ResNet-50's; this part prices dense layers only). Which takes more of its "
        "weights' energy: fetching them, or the MACs they feed?"
    ),
    options={
        "move": "Fetching: at batch 1 every fetched weight is used once",
        "compute": "The MACs: each fetched weight feeds one at every position",
        "fixed": "Fetching: 139× per weight is set by DRAM, not by the layer",
    },
    answer="compute",
    feedback=Deferred(lambda: _transfer_d_feedback()),
    kind="transfer",
    reveals=("feeds one at every position", "0.044"),
    asks="behaviour",
    misconceptions={
        "move": (
            "batch 1 means no reuse",
            "Without batching, each fetched weight serves one multiply-accumulate",
        ),
        "fixed": (
            "the ratio is a hardware constant",
            "Move-versus-compute energy is fixed by the memory technology alone",
        ),
    },
)


def _transfer_d_feedback() -> dict[str, str]:
    conv = L.Conv2d(**TRANSFER_D_CONV, bias=False)
    uses = conv.weight_reuse
    r1 = energy.move_vs_compute("fp32", "dram", 1)
    r = energy.move_vs_compute("fp32", "dram", uses)
    return {
        "compute": f"Each filter weight is used at all {uses:,} positions of the map, so one fetch feeds "
        f"{uses:,} MACs: {r1:,.0f}× / {uses:,} = {r:.3f}, the MACs cost about {1 / r:,.0f}× the fetch. "
        "Spatial reuse does for a convolution what batching does for a dense layer.",
        "move": f"At batch 1 a dense weight is used once, but a filter weight is used at every output "
        f"position: {uses:,} MACs per fetch, so the fetch is {r:.3f}× the MACs it feeds.",
        "fixed": f"{r1:,.0f}× is the cost of one fetch against one MAC; what a layer pays depends on how many "
        f"MACs each fetch feeds. Here {uses:,}: {r1:,.0f} / {uses:,} = {r:.3f}.",
    }


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
        f"editions: the longer edition's 'about 173×' divides the 640 pJ DRAM word by the FP32 multiply "
        f"alone ({energy.OP_ENERGY_PJ['fp32_mult']:g} pJ: "
        f"{energy.access_energy(4, 'dram').m_as('pJ') / energy.OP_ENERGY_PJ['fp32_mult']:,.0f}×); this "
        f"page divides by the whole multiply-add ({energy.mac_energy('fp32').m_as('pJ'):g} pJ: "
        f"{energy.move_vs_compute('fp32', 'dram', 1):,.0f}×), as the primary edition does, since each "
        "fetched weight feeds a multiply and an add",
    ]
    return View(fig, cards, summary, "Energy per weight", peek)


# ---------------------------------------------------------------------------------------------
# Part E: universal approximation, width vs depth
# ---------------------------------------------------------------------------------------------

#: the sawtooth the question starts from (4 teeth) and the one it asks about (8)
E_QUESTION_DEPTH = 3

PRED_E = Prediction(
    question=(
        "Ravi wants an MLP that reproduces a sawtooth exactly, a tent shape repeated along [0, 1]. "
        "Going from 4 teeth to 8, how do the hidden ReLU units change for a network with one hidden "
        "layer, and for a deep network of two units per layer?"
    ),
    options={
        "split": "One layer doubles, the deep net adds two: depth composes teeth",
        "both": "Both double: twice the teeth takes twice the units in any network",
        "flat": "Neither grows much: one hidden layer is universal, so width is cheap",
    },
    answer="split",
    feedback={
        "split": "8 → 16 units in one layer (a unit per kink: the floor is 15), 6 → 8 in the deep net. Each "
        "deep layer folds [0, 1] onto itself and doubles the teeth for two more units; a single layer can "
        "only add one kink per unit. Universal approximation promises the wide layer exists, not that it is "
        "small.",
        "both": "The one-layer net doubles (8 → 16 units, a unit per kink), but the deep net adds one layer "
        "of two units (6 → 8): each layer folds the input onto itself and doubles the teeth. Depth builds "
        "the function by composition; its cost grows with the number of foldings, not the teeth.",
        "flat": "The theorem says a wide enough layer exists; here 'wide enough' is a unit per kink, 8 → 16 "
        "units, doubling with every doubling of the teeth (the floor is 15: n ReLU units on one input make "
        "at most n + 1 linear pieces). Only the deep net stays small (6 → 8).",
    },
    reveals=("adds one layer of two units", "a unit per kink"),
    asks="behaviour",
    misconceptions={
        "both": (
            "units follow the function's complexity",
            "Any network needs units in proportion to the features of the function it represents",
        ),
        "flat": (
            "universal means small",
            "The universal approximation theorem guarantees a small one-hidden-layer network",
        ),
    },
)

#: TRANSFER_E's sawtooth, beyond the part's slider (it stops at 8 foldings)
E_TRANSFER_DEPTH = 20

TRANSFER_E = Prediction(
    question=(
        "The same sawtooth folded 20 times has 524,288 teeth, far past this part's slider. Built "
        "exactly, how do the two networks compare?"
    ),
    options={
        "deep": "Deep: 40 units; one layer: over a million, one per kink",
        "close": "Both need about a million units: the teeth set the units",
        "wide": "One layer: about 40 units; the deep net needs more layers",
    },
    answer="deep",
    feedback={
        "deep": "One hidden layer needs a unit per kink: 2²⁰ = 1,048,576 units (the floor is one fewer), "
        "about 3.1 million parameters. Twenty layers of two units do it with 40 units and 121 parameters. The "
        "gap doubles with every folding: depth buys exponentially more pieces per unit.",
        "close": "Only the one-layer network pays per tooth: 1,048,576 units. The deep one pays per folding, "
        "two units each: 40 units, 121 parameters.",
        "wide": "Forty units in one layer make at most 41 linear pieces; the sawtooth has 1,048,576. The "
        "deep net is the small one (40 units), the one-layer net needs 1,048,576.",
    },
    kind="transfer",
    reveals=("1,048,576 units", "121 parameters"),
    asks="behaviour",
    misconceptions={
        "close": (
            "any network pays per tooth",
            "A network's size is set by the function's detail, whatever its depth",
        ),
        "wide": (
            "one layer is always the compact one",
            "A single wide layer is the most economical way to represent a function",
        ),
    },
)

E_DEPTH = Slider("Foldings of the tent map (the sawtooth's depth)", 1, 8, 3)
#: the chart's range of foldings (the counts beyond the slider come from the formulas alone)
E_CHART_DEPTHS = range(1, 17)


@lru_cache(maxsize=16)
def _compare(depth: int):
    return X.compare(depth)


@widget_args
def part_e(depth: int) -> View:
    import plotly.graph_objects as go

    n = int(depth)
    cmp = _compare(n)
    sh, dp = cmp.shallow, cmp.deep
    fig = figure(
        "Hidden ReLU units to build the sawtooth exactly",
        "Teeth of the sawtooth (log scale)",
        "Hidden units (log scale)",
        log_x=True,
        log_y=True,
    )
    teeth = [2 ** (d - 1) for d in E_CHART_DEPTHS]
    units = [X.units_needed(d) for d in E_CHART_DEPTHS]
    fig.add_trace(
        go.Scatter(x=teeth, y=[u[0] for u in units], name="one hidden layer (a unit per kink)")
    )
    fig.add_trace(
        go.Scatter(
            x=teeth, y=[u[1] for u in units], name="deep, 2 units per layer (a layer per folding)"
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[cmp.teeth, cmp.teeth],
            y=[sh.units, dp.units],
            name="your sawtooth (built and checked)",
            mode="markers",
            marker=dict(size=12, symbol="diamond"),
        )
    )
    exact = cmp.shallow_error == 0 and cmp.deep_error == 0
    cards = [
        Card(
            "Sawtooth",
            f"{counted(cmp.teeth, 'tooth', 'teeth')}",
            f"{cmp.pieces:,} linear pieces, {counted(n, 'folding')}",
        ),
        Card(
            "One hidden layer",
            f"{sh.units:,} units",
            f"{sh.params:,} parameters; the floor is {cmp.shallow_lower_bound:,} (n units make ≤ n + 1 pieces)",
            "warn" if sh.units > 4 * dp.units else "",
        ),
        Card(
            "Deep, 2 units per layer",
            f"{dp.units:,} units",
            f"{counted(dp.depth, 'layer')}, {dp.params:,} parameters",
            "ok",
        ),
        Card("Width ÷ depth", fmt_ratio(sh.params / dp.params, 1), "parameters, one layer ÷ deep"),
        Card(
            "Checked on the built networks",
            "exact" if exact else f"max error {max(cmp.shallow_error, cmp.deep_error):.2g}",
            f"{cmp.shallow_pieces:,} and {cmp.deep_pieces:,} pieces at every kink and midpoint",
            "ok" if exact else "bad",
        ),
    ]
    summary = (
        f"A sawtooth with {counted(cmp.teeth, 'tooth', 'teeth')} has {cmp.pieces:,} linear pieces. One hidden "
        f"layer builds it with {sh.units:,} ReLU units ({sh.params:,} parameters), a unit per kink; a deep net "
        f"builds it with {counted(dp.depth, 'layer')} of 2 units ({dp.units} units, {dp.params} parameters), each layer "
        "folding [0, 1] onto itself and doubling the teeth. Both are exact here. Universal approximation "
        "guarantees that the wide layer exists, and nothing about its size: each folding doubles the one-layer "
        "network and adds two units to the deep one. Depth lets later layers reuse what earlier ones built, "
        "the hierarchy the other families build into their structure."
    )
    peek = [
        "tent t(x) = 1 − |2x − 1| = 2·relu(x) − 4·relu(x − ½) on [0, 1];  sawtooth = t composed L times",
        f"L = {n}: 2ᴸ⁻¹ = {cmp.teeth:,} teeth, 2ᴸ = {cmp.pieces:,} linear pieces",
        f"one layer: f(x) = Σ_k c_k relu(x − k/2ᴸ), k = 0 … {cmp.pieces - 1}: {sh.units:,} units, "
        f"3 × {sh.units:,} + 1 = {sh.params:,} parameters; floor 2ᴸ − 1 = {cmp.shallow_lower_bound:,}",
        f"deep: L layers × 2 units = {dp.units}; parameters 4 + 6(L − 1) + 3 = {dp.params}",
        "checked: both networks evaluated at every kink and midpoint (exact in floating point); "
        "Telgarsky 2016, 'Benefits of depth in neural networks'",
    ]
    return View(fig, cards, summary, "Width vs depth", peek)


# ---------------------------------------------------------------------------------------------
# Part F: representing is not learning: width against samples
# ---------------------------------------------------------------------------------------------

#: PRED_F's case: 16 samples, the layer widened from 64 to 1,024 units, or the samples doubled
F_Q_SAMPLES, F_Q_NARROW, F_Q_WIDE = 16, 64, 1024
#: TRANSFER_F's case, off the part's controls: 6 samples of the 3-period wave, a million units
F_T_SAMPLES, F_T_WIDTH = 6, 1_000_000
#: the widths the chart fits
F_WIDTHS = (2, 4, 8, 16, 32, 64, 256, 1024)

PRED_F = Prediction(
    question=(
        "One hidden layer of ReLU units is fitted to 16 evenly spaced samples of a wave with 3 periods on "
        "[0, 1] (its output weights only, the least-norm fit). At 64 units it already passes through every "
        "sample. Which lowers its error between the samples more: widening it to 1,024 units, or doubling "
        "the samples at 64 units?"
    ),
    options={
        "samples": "More samples: the wide layer fits its samples already, width adds no data",
        "width": "More width: the theorem says more units approximate any function better",
        "both": "About the same: units and samples both add what the fit was missing",
    },
    answer="samples",
    feedback={
        "samples": "Between the samples the error is 4.8% of the wave's height at 64 units and 4.7% at 1,024: "
        "every sample is already fitted, and the extra units only choose among curves that pass through "
        "them. Doubling the samples to 32 takes it to 1.3%. The theorem says a wide enough layer can "
        "represent the wave; what it learns is decided by the data it sees.",
        "width": "The theorem promises that some wide layer represents the wave, not that fitting finite "
        "data finds it: from 64 to 1,024 units the error between the samples goes from 4.8% to 4.7% of the "
        "wave's height, while 32 samples at 64 units bring it to 1.3%.",
        "both": "Once the layer passes through every sample, width no longer helps: 4.8% at 64 units, 4.7% "
        "at 1,024. Doubling the samples does: 1.3% at 64 units. Units add ways to fit; samples add "
        "information.",
    },
    reveals=("4.7% at 1,024",),
    asks="behaviour",
    misconceptions={
        "width": (
            "more width always helps",
            "The universal approximation theorem means a wider layer learns any function better",
        ),
        "both": (
            "units and samples are interchangeable",
            "Width and data each add capacity to a fit, so either lowers the error about as much",
        ),
    },
)

TRANSFER_F = Prediction(
    question=(
        "The same 3-period wave with only 6 samples (2 per period), and a layer of a million units fitted "
        "the same way. What does it learn?"
    ),
    options={
        "miss": "Exact on the samples, wrong between: 6 points cannot pin down 3 periods",
        "close": "Close everywhere: a million units are plenty, as the theorem says",
        "rough": "Not even exact on the samples: a million weights cannot be fitted to 6",
    },
    answer="miss",
    feedback={
        "miss": "It passes through all 6 samples and misses the wave between them by 53% of its height (the "
        "wave's own RMS is 71%): it has learned almost nothing. 6 points fit many curves; the least-norm "
        "one is smooth, not the wave. More units cannot add what the samples do not say.",
        "close": "A million units can represent the wave, but 6 samples do not determine it: the fit passes "
        "through all 6 and misses by 53% of the wave's height between them.",
        "rough": "More weights than samples make an exact fit easy, not impossible: the error on the 6 "
        "samples is 0. Between them it is 53% of the wave's height.",
    },
    kind="transfer",
    reveals=("53% of",),
    asks="behaviour",
    misconceptions={
        "close": (
            "more width always helps",
            "The universal approximation theorem means a wide enough layer learns the function",
        ),
        "rough": (
            "too many weights cannot be fitted",
            "A layer with more weights than samples cannot be fitted to them",
        ),
    },
)

F_SAMPLES = Choice(
    "Samples of the wave",
    {"8": "8", "12": "12", "16": "16", "24": "24", "32": "32"},
    "16",
)


def _pct(e: float) -> str:
    return f"{100 * e:.1f}%" if e >= 0.01 or e == 0 else f"{100 * e:.2f}%"


@widget_args
def part_f(samples: str) -> View:
    import plotly.graph_objects as go

    n = int(samples)
    fits = [LN.fit(n, w) for w in F_WIDTHS]
    narrow, wide = LN.fit(n, F_Q_NARROW), LN.fit(n, F_Q_WIDE)
    more = LN.fit(min(2 * n, LN.MAX_SAMPLES), F_Q_NARROW)
    fig = figure(
        f"A one-hidden-layer ReLU fit to {n} samples of a {LN.CYCLES}-period wave",
        "Hidden units (log scale)",
        "RMS error (% of the wave's height)",
        log_x=True,
    )
    fig.add_trace(
        go.Scatter(
            x=list(F_WIDTHS),
            y=[100 * f.off_sample_error for f in fits],
            name="between the samples",
        )
    )
    fig.add_trace(
        go.Scatter(x=list(F_WIDTHS), y=[100 * f.sample_error for f in fits], name="on the samples")
    )
    fig.add_trace(
        go.Scatter(
            x=[F_Q_NARROW],
            y=[100 * more.off_sample_error],
            name=f"between, {2 * n} samples, {F_Q_NARROW} units",
            mode="markers",
            marker=dict(size=12, symbol="diamond"),
        )
    )
    fig.update_yaxes(rangemode="tozero")
    cards = [
        Card(
            "On the samples",
            _pct(wide.sample_error),
            f"from {n - 1} units on (with the constant, a weight per sample) it passes through all {n}",
            "ok",
        ),
        Card(
            f"Between them, {F_Q_NARROW} units",
            _pct(narrow.off_sample_error),
            f"RMS over {LN.TEST_POINTS} points across [0, 1]",
        ),
        Card(
            f"Between them, {F_Q_WIDE:,} units",
            _pct(wide.off_sample_error),
            f"{F_Q_WIDE // F_Q_NARROW}× the units: the error barely moves",
            "warn",
        ),
        Card(
            f"Between them, {2 * n} samples",
            _pct(more.off_sample_error),
            f"at {F_Q_NARROW} units: twice the data",
            "ok",
        ),
    ]
    summary = (
        f"With {n} samples the layer passes through every one of them from {n - 1} units on (with the "
        "constant unit, a weight per sample). From there, "
        f"more width does not teach it the wave: between the samples it is off by "
        f"{_pct(narrow.off_sample_error)} of the wave's height at {F_Q_NARROW} units and "
        f"{_pct(wide.off_sample_error)} at {F_Q_WIDE:,}. Twice the samples at {F_Q_NARROW} units: "
        f"{_pct(more.off_sample_error)}. Universal approximation is an existence result: a wide enough "
        "layer can represent the wave, but which function a fit finds is decided by the samples it sees "
        "and by how it is fitted."
    )
    peek = [
        f"target sin(2π·{LN.CYCLES}·x); samples at x_i = (i + ½)/{n}; error RMS over "
        f"{LN.TEST_POINTS} points (j + ½)/{LN.TEST_POINTS}",
        "layer: a constant unit + W units relu(x − k/W)/√W, k = 0 … W − 1 (fixed, as random features); "
        "only the output weights are fitted",
        "W + 1 ≤ N: least squares; W + 1 > N: the least-norm exact fit, through "
        "K(x, y) = 1 + (1/W) Σ_k relu(x − k/W) relu(y − k/W), summed in closed form",
        "Cybenko 1989, Hornik et al. 1989: one hidden layer, wide enough, represents any continuous "
        "function on a bounded interval; the theorem says nothing of the samples needed to find it",
    ]
    return View(fig, cards, summary, "Representing is not learning", peek)
