"""Section 6.9, Comparing and choosing architectures: each part is a plain function of its widgets.

Every count comes from ``mlsysim`` (models, engine, hardware registry, energy table); this module
only picks the chapter's scenario inputs, builds the chart and writes the sentence. Where the
chapter's printed numbers round or disagree with each other, the part says so and
``tests/test_s06_09_choosing.py`` asserts both the chapter's figure and the exact one.
"""

from __future__ import annotations

import math
from functools import lru_cache

from ... import catalogue
from ..._lazy import lazy
from ..charts import device_label, figure, hline, memory_lines, vline
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
    fmt_flops,
    fmt_rate,
    fmt_ratio,
    fmt_time,
    widget_args,
)
from ..vocab import LABELS, bound_phrase, conditions

energy = lazy("mlsysim.energy")
E = lazy("mlsysim.engine")
HW = lazy("mlsysim.hardware")
L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")
U = lazy("mlsysim.units")

CHAPTER = "6.9"
PARTS = ("A", "B", "C", "D", "E")

#: Display names of the chapter's five lighthouses (Table 8 order: L1329-L1333).
LIGHTHOUSE_NAMES = {
    "ResNet50": "ResNet-50",
    "GPT2": "GPT-2 XL",
    "DLRM": "DLRM",
    "MobileNetV2": "MobileNetV2",
    "KWS": "KWS DS-CNN",
}
#: The five lighthouses in the chapter's order (``mlsysim.models.LIGHTHOUSES``; a test checks).
ORDER = ("ResNet50", "GPT2", "DLRM", "MobileNetV2", "KWS")

#: Training state per parameter = FP32 weights + gradients + two Adam moments (L1366, Table 10):
#: four FP32 copies, 16 bytes per parameter, activations excluded.
TRAINING_COPIES = 4
#: GPT-2 XL's KV cache is quoted at its full 1,024-token context (Table 10's "grows per request").
GPT2_CONTEXT = 1024

FIT_DEVICE = "A100"  # "one 80 GB accelerator" (Table 10 caption; Napkin 6.2 names the A100)


def _precision(dev, wanted: str = "fp16") -> str:
    return wanted if wanted in dev.compute.precisions else dev.compute.quoted_precision


def _lh(key: str) -> M.Model:
    return M.Models.get(key)


def _joules(j: float) -> str:
    return f"{j:,.2f} J" if j >= 1 else f"{j * 1e3:,.1f} mJ"


# ---------------------------------------------------------------------------------------------
# Part A: one intensity scale for five workloads (Table 8)
# ---------------------------------------------------------------------------------------------

PRED_A = Prediction(
    question=(
        "Table 8's proxy counts only weights, so it rises in step with the batch: weights are "
        "read once per batch. The engine also counts what each request brings with it: "
        "activations, a KV cache, gathered embedding rows. From batch 1 to 256 (compiled FP16 "
        "inference on an H100), whose engine intensity rises the most (GPT-2 XL decoding one "
        "token with a 1,024-token cache)?"
    ),
    options={
        "gpt2": "GPT-2 XL: decode is the workload batching was made for",
        "resnet": "ResNet-50: it has the most arithmetic to amortize",
        "dlrm": "DLRM: each request adds only a few embedding rows",
        "all": "None stands out: each rises 256×, as the proxy does",
    },
    answer="dlrm",
    feedback={
        "gpt2": "Batching does amortize decode's weights, but every sequence reads its own KV cache: GPT-2 XL "
        "rises about 10× (1.0 → 10.1 FLOP/B) and then levels off, far short of DLRM's rise.",
        "resnet": "ResNet-50 already reuses each filter across its feature map, and its activations grow "
        "with the batch as fast as its FLOPs: it rises under 2× (75.9 → 143.5 FLOP/B).",
        "dlrm": "At batch 1 DLRM's dense MLPs read every weight for one request (1.0 FLOP/B, like decode). "
        "Batched, those weights are shared, and a request adds only a few embedding rows and small "
        "activations: about 88× (1.0 → 89.9 FLOP/B). Table 8 leaves its intensity blank.",
        "all": "Only the weight bytes are shared by the batch. Activations, caches and gathered rows grow "
        "with it, so each model's intensity rises until those per-request bytes dominate: ResNet-50 "
        "under 2×, GPT-2 XL about 10×, DLRM about 88×.",
    },
    reveals=("89.9 FLOP/B", "about 88×"),
    asks="behaviour",
    misconceptions={
        "gpt2": (
            "batching cures decode",
            "Batching lifts decode's intensity without limit, so GPT-2 XL gains most",
        ),
        "resnet": (
            "the most FLOPs gain the most",
            "The model with the most arithmetic has the most to gain from a batch",
        ),
        "all": (
            "intensity scales with the batch",
            "Every byte a model moves is shared by the batch, as the weights are",
        ),
    },
)
A_BATCH = Slider("Batch size (images, tokens or requests)", 1, 256, 1)
A_DEVICE = Choice(
    "Device (for the engine's intensity and the ridge)",
    catalogue.labels(["H100", "A100", "JetsonOrinNX"]),
    "H100",
)
A_FUSED = Toggle("Compiled inference graph (BN folded, activations fused)", True)


def table8_proxy(key: str, batch: int = 1) -> float:
    """The chapter's weight-only proxy: FLOPs per byte of FP32 weights (LMs: one decoded token)."""
    return E.weight_only_intensity(_lh(key), "fp32", batch=batch)


def table8_printed(key: str) -> float:
    """Table 8's printed proxy (``engine.table8_printed``): 80.2 (ResNet-50), 42.8 (MobileNetV2)."""
    return E.table8_printed(_lh(key))


@widget_args
def part_a(batch: int, device: str, fused: bool) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(device)
    prec = _precision(dev)
    b = int(batch)
    names = [LIGHTHOUSE_NAMES[k] for k in ORDER]
    proxy = {k: table8_proxy(k) for k in ORDER}
    proxy_b = {k: table8_proxy(k, b) for k in ORDER}
    prof = {
        k: E.Engine.solve(_lh(k), dev, batch_size=b, precision=prec, fused=bool(fused))
        for k in ORDER
    }
    real = {k: prof[k].arithmetic_intensity.magnitude for k in ORDER}
    ridge = dev.ridge_point(prec).magnitude

    fig = figure(
        f"Arithmetic intensity of the lighthouses (batch {b})",
        "Lighthouse",
        "FLOP per byte (log scale)",
        log_y=True,
    )
    fig.add_trace(
        go.Bar(x=names, y=[proxy[k] for k in ORDER], name="Table 8 proxy: FP32 weights, batch 1")
    )
    fig.add_trace(
        go.Bar(
            x=names, y=[proxy_b[k] for k in ORDER], name=f"weight-only proxy at your batch ({b})"
        )
    )
    fig.add_trace(
        go.Bar(
            x=names,
            y=[real[k] for k in ORDER],
            name=f"engine: all traffic, {prec.upper()}, batch {b}",
        )
    )
    hline(
        fig,
        ridge,
        f"{device_label(dev)}: {LABELS['ridge_peak']} {ridge:,.0f} FLOP/B ({prec})",
        dash="dot",
        position="top left",
    )
    fig.update_layout(barmode="group")

    gap = proxy["ResNet50"] / proxy["GPT2"]
    cards = [
        Card(
            "ResNet-50 proxy",
            f"{proxy['ResNet50']:,.1f} FLOP/B",
            f"Table 8: {table8_printed('ResNet50'):,.1f} (8.2 GFLOP rounded)",
            fact=fact(
                "weight_only_intensity",
                proxy["ResNet50"],
                model="ResNet50",
                precision="fp32",
                batch=1,
            ),
        ),
        Card(
            "GPT-2 XL proxy",
            f"{proxy['GPT2']:,.2f} FLOP/B",
            "one token: ≈2 FLOPs per 4-byte weight",
        ),
        Card("Gap", fmt_ratio(gap, 0), "chapter: roughly 160×"),
        Card(
            "MobileNetV2 proxy",
            f"{proxy['MobileNetV2']:,.1f} FLOP/B",
            f"Table 8: {table8_printed('MobileNetV2'):,.1f} (600 MFLOP rounded)",
        ),
        Card("KWS proxy", f"{proxy['KWS']:,.1f} FLOP/B", "Table 8: 25 from '20 MFLOP / 800 KB'"),
    ]
    mode = "compiled graph" if fused else "eager mode"
    summary = (
        f"On the weight-only proxy ResNet-50 sits {gap:,.0f}× above GPT-2 XL. With all traffic counted "
        f"(activations, KV cache; {mode}) at batch {b} in {prec.upper()}, ResNet-50 reaches "
        f"{real['ResNet50']:,.1f} FLOP/B ({bound_phrase(prof['ResNet50'].bottleneck)}) and GPT-2 XL "
        f"{real['GPT2']:,.1f} ({bound_phrase(prof['GPT2'].bottleneck)}) against the {device_label(dev)}'s {LABELS['ridge_peak']} of "
        f"{ridge:,.0f}."
        + "".join(
            f" {name} is launch-bound here: its {fmt_time(p.latency_dispatch_s)} of kernel launches "
            f"outweigh its {fmt_time(max(p.latency_compute_s, p.latency_memory_s))} of "
            f"{'arithmetic' if p.latency_compute_s >= p.latency_memory_s else 'memory traffic'}."
            for name, p in (("ResNet-50", prof["ResNet50"]), ("GPT-2 XL", prof["GPT2"]))
            if p.bottleneck.lower() == "dispatch"
        )
        + "".join(
            f" {name} is {bound_phrase(prof[k].bottleneck)} though its average sits "
            f"{'below' if real[k] < ridge else 'above'} that ridge: the engine times each layer at the "
            f"sustained rate ({LABELS['ridge_sustained']} {prof[k].sustained_ridge_point:,.0f}), and the "
            f"largest share of its time is in layers {'above' if real[k] < ridge else 'below'} it."
            for name, k in (("ResNet-50", "ResNet50"), ("GPT-2 XL", "GPT2"))
            if (prof[k].bottleneck == "Compute" and real[k] < ridge)
            or (prof[k].bottleneck == "Memory" and real[k] >= ridge)
        )
        + " DLRM's proxy is near zero (Table 8 leaves it blank: a gather is a copy, not "
        "arithmetic); its engine number counts only the dense MLPs, and capacity binds it first."
        + f" Engine figures here: {conditions(prec, fused=bool(fused), batch=b, device=device_label(dev))}"
        f" (MobileNetV2 {real['MobileNetV2']:,.1f} FLOP/B; 6.1 showed 3.5 for it in FP32 eager mode, where "
        "every byte is twice as large and each BN and activation re-reads its tensor)."
    )
    r50 = _lh("ResNet50")
    peek = [
        "proxy = FLOPs / (params × 4 B)        (weights only; FP32; GPT-2 XL per decoded token)",
        f"ResNet-50: {r50.flops():,} / ({r50.params:,} × 4) = {proxy['ResNet50']:,.2f} FLOP/B",
        f"  Table 8: {E.round_sig(r50.flops()) / 1e9:g} G / {fmt_bytes(r50.weight_bytes('fp32'))} = {table8_printed('ResNet50'):,.1f}"
        " (FLOPs rounded as printed, params exact)",
        f"  MobileNetV2: {E.round_sig(_lh('MobileNetV2').flops()) / 1e6:g} M / {_lh('MobileNetV2').weight_bytes('fp32'):,} B = "
        f"{table8_printed('MobileNetV2'):,.2f} (Table 8: 42.8); exact {proxy['MobileNetV2']:,.2f}; 3.5 M params give 42.9",
        f"GPT-2 XL:  {_lh('GPT2').flops(1, 1, 'decode'):,} / {_lh('GPT2').weight_bytes('fp32'):,} B = {proxy['GPT2']:,.3f}",
        f"at batch {b}: {proxy_b['ResNet50']:,.0f} for ResNet-50",
        f"engine:   intensity = Σ FLOPs / Σ (weights + B × activations [+ KV]) bytes, {prec.upper()}, {mode}",
        "  eager mode: every BN, activation and residual add re-reads its tensor, pulling CNN intensity down",
        "  the binding term is decided layer by layer: an average below the ridge can still be compute-bound",
        f"1 MAC = 2 FLOPs; GB = 1e9 B; {LABELS['ridge_peak']} = dense peak / bandwidth (no efficiency factor)",
    ]
    facts = [fact("ridge_peak", ridge, device=device, precision=prec)]
    return View(fig, cards, summary, "Weight-only proxy vs engine", peek, facts=facts)


# ---------------------------------------------------------------------------------------------
# Part B: what each workload must hold (Table 10)
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "Serve each lighthouse in FP16 on one 80 GB accelerator to 64 concurrent requests (GPT-2 XL with "
        "1,024 tokens per sequence). Besides its weights, each request holds its own state: activations, "
        "a KV cache, gathered rows. Whose per-request state, summed over the 64, outweighs its weights?"
    ),
    options={
        "gpt2": "Only GPT-2 XL's: only a transformer keeps state per request",
        "no_dlrm": "All but DLRM's: maps and caches grow with every request",
        "none": "None: a model's weights are most of what serving holds",
        "all": "All five: DLRM's gathered rows add up per request too",
    },
    answer="no_dlrm",
    feedback={
        "gpt2": "The KV cache is the famous case (20.1 GB against 3.1 GB of weights), but a CNN's feature "
        "maps are per-request state too: ResNet-50's 64 images hold 308.3 MB of live activations against "
        "51.1 MB of weights.",
        "none": "That is the capacity pitfall the chapter warns against: budgeting on weights alone. At 64 "
        "requests the caches and maps outweigh the weights for four of the five (GPT-2 XL: 20.1 GB "
        "against 3.1 GB).",
        "no_dlrm": "ResNet-50: 308.3 MB of maps against 51.1 MB of weights; MobileNetV2 about 44× its "
        "weights; KWS about 17×; GPT-2 XL's caches 20.1 GB against 3.1 GB. DLRM's tables (50 GB in FP16) "
        "dwarf the few embedding rows a request gathers.",
        "all": "A DLRM request gathers a few embedding rows, kilobytes, while its tables hold 50 GB in FP16: "
        "its per-request state is a rounding error next to its weights.",
    },
    reveals=("All but DLRM", "308.3 MB of maps"),
    asks="behaviour",
    misconceptions={
        "gpt2": (
            "only transformers keep per-request state",
            "Per-request memory means a KV cache; a CNN's serving memory is its weights",
        ),
        "none": (
            "budget on weights alone",
            "Serving memory is the weights; what requests add is small",
        ),
        "all": (
            "every request is heavy",
            "Every model's per-request state outgrows its weights at high concurrency",
        ),
    },
)
B_STATE = Choice(
    "Which state",
    {
        "fp32": "FP32 weights",
        "int8": "INT8 weights",
        "train": "Training state (16 B/param)",
        "serve": "Serving: FP16 weights + per-request state",
    },
    "train",
    inline=False,
)
B_REQUESTS = Slider("Serving only: concurrent requests (images or sequences)", 1, 64, 1)
B_CONTEXT = Slider(
    "Serving only: GPT-2 XL tokens held in the KV cache", 128, GPT2_CONTEXT, GPT2_CONTEXT, step=128
)


def state_bytes(
    key: str, state: str, requests: int = 1, context: int = GPT2_CONTEXT
) -> tuple[float, float]:
    """(weight-like bytes, per-request bytes) of one lighthouse for a Table 10 column."""
    m = _lh(key)
    if state == "fp32":
        return float(m.weight_bytes("fp32")), 0.0
    if state == "int8":
        return float(m.weight_bytes("int8")), 0.0
    if state == "train":
        return float(TRAINING_COPIES * m.weight_bytes("fp32")), 0.0
    if state == "serve":
        kw = {"seq_len": int(context)} if m.is_lm else {}
        p = E.Engine.solve(m, FIT_DEVICE, batch_size=int(requests), precision="fp16", **kw)
        return p.weight_bytes, p.activation_bytes + p.kv_cache_bytes
    raise ValueError(f"state={state!r} is not one of {list(B_STATE.options)}")


@widget_args
def part_b(state: str, requests: int, context: int) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(FIT_DEVICE)
    cap = dev.memory.capacity.m_as("B")
    names = [LIGHTHOUSE_NAMES[k] for k in ORDER]
    parts = {k: state_bytes(k, state, requests, context) for k in ORDER}
    total = {k: sum(v) for k, v in parts.items()}
    label = B_STATE.options[state]
    fig = figure(f"Lighthouse memory: {label}", "Lighthouse", "Bytes (log scale)", log_y=True)
    fig.add_trace(
        go.Bar(
            x=names,
            y=[parts[k][0] for k in ORDER],
            name="FP16 weights" if state == "serve" else label,
        )
    )
    if state == "serve":
        fig.add_trace(
            go.Bar(
                x=names,
                y=[max(1.0, parts[k][1]) for k in ORDER],
                name=f"per-request state × {int(requests)}",
            )
        )
        fig.update_layout(barmode="group")
    memory_lines(fig, [dev], unit="B")

    cards = []
    for k in ORDER:
        fits = total[k] <= cap
        note = "fits 80 GB" if fits else f"{total[k] / cap:,.1f}× the 80 GB"
        cards.append(Card(LIGHTHOUSE_NAMES[k], fmt_bytes(total[k]), note, "ok" if fits else "bad"))
    fitting = [LIGHTHOUSE_NAMES[k] for k in ORDER if total[k] <= cap]
    missing = [LIGHTHOUSE_NAMES[k] for k in ORDER if total[k] > cap]
    summary = (
        f"{label}: {', '.join(fitting) if fitting else 'no lighthouse'} fit one 80 GB accelerator"
        + (f"; {', '.join(missing)} does not." if missing else ".")
        + (
            f" GPT-2 XL's KV cache alone is {fmt_bytes(_lh('GPT2').kv_cache_bytes(int(context), int(requests)))} "
            f"for {int(requests)} × {int(context):,} tokens."
            if state == "serve"
            else ""
        )
    )
    r50, mnv2, g, kws = _lh("ResNet50"), _lh("MobileNetV2"), _lh("GPT2"), _lh("KWS")
    peek = [
        "FP32 = params × 4 B;  INT8 = params × 1 B;  training = params × 16 B (4 FP32 copies)",
        f"ResNet-50:   {r50.params:,} × 4 = {fmt_bytes(r50.weight_bytes('fp32'))} (Table 10: 102.2 MB needs this exact count; 25.6 M × 4 = 102.4 MB)",
        f"MobileNetV2: {mnv2.params:,} × 16 = {fmt_bytes(TRAINING_COPIES * mnv2.weight_bytes('fp32'))} (Table 10: 56.1 MB; 3.5 M × 16 = 56.0 MB)",
        f"GPT-2 XL:    {g.params:,} × 16 = {fmt_bytes(TRAINING_COPIES * g.weight_bytes('fp32'))} (chapter rounds to 1.5 B: 24 GB)",
        f"KWS preset:  {kws.params:,} params = {fmt_bytes(kws.weight_bytes('fp32'))} FP32 (chapter's '200K' gives 800 KB)",
        f"KV cache:    {g.kv_cache_bytes_per_token('fp16'):,} B/token = 2 × 48 layers × 1,600 × 2 B (Table 10: 307.2 KB)",
        "serving rows: Engine.solve(...).memory_footprint = weights + peak live activations (+ KV cache)",
        "GB = 1e9 B, KB = 1e3 B (decimal units throughout)",
    ]
    return View(fig, cards, summary, "Table 10 bytes", peek)


# ---------------------------------------------------------------------------------------------
# Part C: reuse sets each family's energy (Systems Perspective 6.2)
# ---------------------------------------------------------------------------------------------

PRED_C = Prediction(
    question=(
        "Count two energies per image at batch 1 in FP32 (Horowitz, 45 nm): fetching each weight once from "
        "DRAM (640 pJ per 32-bit word, about 139 MACs' worth) and every multiply-accumulate. A 56×56 "
        "convolution reuses each fetched weight 3,136 times. For ResNet-50 as a whole, what share of that "
        "energy goes to fetching weights?"
    ),
    options={
        "small": "A small share: conv weights serve thousands of positions each",
        "half": "Close to half: its late layers reuse their weights least",
        "most": "Nearly all of it: at batch 1 no weight is reused",
    },
    answer="half",
    feedback={
        "small": "True of a 56×56 layer, but most of ResNet-50's weights sit where the maps are small: stage "
        "4's 7×7 maps (49 uses per weight) and the classifier (one use). Averaged over all its weights a "
        "fetch serves about 160 MACs, so fetching is 46.5% of the energy.",
        "half": "Most weights live in stage 4 (7×7 maps, 49 uses) and the final dense layer (one use), "
        "so the average weight serves about 160 MACs against a fetch worth 139: fetching is 46.5% of "
        "the weight + MAC energy. Reuse is a property of each layer, not of the family.",
        "most": "That is a dense layer or a decode step (GPT-2 XL: 99%). A convolution still reuses each "
        "weight at every output position, even at batch 1: about 160 MACs per weight on average here, "
        "so 46.5% of the energy is fetching.",
    },
    reveals=("46.5%", "Close to half"),
    asks="behaviour",
    misconceptions={
        "small": (
            "a CNN reuses every weight thousands of times",
            "Every convolution reuses its weights as much as an early 56×56 layer does",
        ),
        "most": (
            "batch 1 means no reuse",
            "Without a batch no weight is reused, in any layer",
        ),
    },
)
C_BATCH = Slider("Batch size (reuse of each fetched weight for a dense layer)", 1, 256, 1)
C_PRECISION = Choice("Precision", {"fp32": "FP32", "fp16": "FP16", "int8": "INT8"}, "fp32")
C_STAGE = Choice(
    "ResNet-50 3×3 convolution",
    {"layer1": "stage 1", "layer2": "stage 2", "layer3": "stage 3", "layer4": "stage 4"},
    "layer1",
)
C_LEVEL = "dram"  # Systems Perspective 6.2 compares DRAM fetches with MACs (L1385)
C_GRID = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def stage_conv(stage: str) -> L.Conv2d:
    """The stride-1 3×3 convolution of a ResNet-50 stage (the second block's conv2)."""
    for r in _lh("ResNet50").rows():
        if r.name == f"{stage}.1.conv2.conv":
            return r.layer
    raise ValueError(f"stage={stage!r} is not one of {list(C_STAGE.options)}")


def weight_energy_split(key: str, precision: str, batch: int) -> tuple[float, float]:
    """(pJ to fetch the weights from DRAM, pJ of MACs) per example (LMs: per decoded token at the full
    context), weights fetched once per batch and activations ignored."""
    m = _lh(key)
    kw = {"seq_len": GPT2_CONTEXT, "phase": "decode"} if m.is_lm else {}
    fetch = energy.access_energy(m.weight_bytes(precision) / int(batch), C_LEVEL).m_as("pJ")
    macs = energy.mac_energy(precision).m_as("pJ") * m.macs(1, **kw)
    return fetch, macs


@widget_args
def part_c(batch: int, precision: str, stage: str) -> View:
    import plotly.graph_objects as go

    b = int(batch)
    conv = stage_conv(stage)
    hw = conv.weight_reuse
    ho, wo = conv.output_size
    fig = figure(
        f"DRAM fetch energy per weight use ÷ MAC energy ({precision.upper()})",
        "Batch size",
        "Fetch ÷ MAC energy (log scale)",
        log_x=True,
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(
            x=C_GRID,
            y=[energy.move_vs_compute(precision, C_LEVEL, n) for n in C_GRID],
            name="dense layer / decode step (reuse = batch)",
            mode="lines+markers",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=C_GRID,
            y=[energy.move_vs_compute(precision, C_LEVEL, hw * n) for n in C_GRID],
            name=f"ResNet-50 {C_STAGE.options[stage]} conv (reuse = {ho}×{wo} × batch)",
            mode="lines+markers",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[b, b],
            y=[
                energy.move_vs_compute(precision, C_LEVEL, b),
                energy.move_vs_compute(precision, C_LEVEL, hw * b),
            ],
            name="your batch",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )
    hline(fig, 1.0, "fetch = arithmetic", dash="dot", position="bottom right")

    r1 = energy.move_vs_compute(precision, C_LEVEL, 1)
    dense = energy.move_vs_compute(precision, C_LEVEL, b)
    cnn = energy.move_vs_compute(precision, C_LEVEL, hw * b)
    parity = math.ceil(r1)
    g_fetch, g_mac = weight_energy_split("GPT2", precision, b)
    r_fetch, r_mac = weight_energy_split("ResNet50", precision, b)
    g_share = g_fetch / (g_fetch + g_mac)
    r_share = r_fetch / (r_fetch + r_mac)
    cards = [
        Card(
            "Fetch ÷ MAC at reuse 1",
            fmt_ratio(r1, sig=3),
            f"{precision.upper()} DRAM read vs one MAC",
        ),
        Card(
            "Dense / decode at this batch",
            fmt_ratio(dense, sig=3),
            f"reuse {b}",
            "bad" if dense > 1 else "ok",
        ),
        Card(  # the same bar as the dense card: the fetch costing more than the arithmetic is bad
            f"Conv {ho}×{wo} at this batch",
            fmt_ratio(cnn, sig=3),
            f"reuse {hw * b:,}",
            "bad" if cnn > 1 else "ok",
        ),
        Card(
            "GPT-2 XL decode: fetch share",
            f"{g_share:.0%}",
            "of weight + MAC energy per token",
            "bad" if g_share > 0.5 else "ok",
        ),
        Card(
            "ResNet-50: fetch share",
            f"{r_share:.1%}",
            "of weight + MAC energy per image",
            "bad" if r_share > 0.5 else "ok",  # the same bar as GPT-2's card
        ),
    ]
    summary = (
        f"Fetching one {precision.upper()} weight from DRAM costs {r1:,.0f} MACs. A dense layer or decode "
        f"step at batch {b} uses it {b} time{'s' if b > 1 else ''} ({fmt_ratio(dense, sig=3)} the arithmetic per use); "
        f"the {ho}×{wo} convolution uses it {hw * b:,} times ({fmt_ratio(cnn, sig=3)}). A dense layer needs batch "
        f"{parity:,} just to break even. Lower precision makes the MAC cheaper faster than the fetch, so the "
        "ratio grows."
    )
    mac = energy.mac_energy(precision).m_as("pJ")
    fetch1 = energy.access_energy(float(U.bytes_per_value(precision)), C_LEVEL).m_as("pJ")
    peek = [
        f"fetch/MAC = E_DRAM(one {precision.upper()} value) / E_MAC / reuse = {fetch1:g} pJ / {mac:g} pJ / reuse",
        f"reuse 1: {r1:,.1f}×   (FP32: 640 pJ / 4.6 pJ = 139×, Horowitz 45 nm)",
        f"dense/decode: reuse = batch = {b}  ->  {dense:,.3f}×",
        f"conv: reuse = H_out × W_out × batch = {ho} × {wo} × {b} = {hw * b:,}  ->  {cnn:,.5f}×",
        f"GPT-2 XL per token at a {GPT2_CONTEXT:,}-token context: fetch {g_fetch / 1e9:,.3f} mJ (the weights; "
        f"the KV cache's reads not counted) vs MACs {g_mac / 1e9:,.3f} mJ (every MAC, attention's included)",
        f"ResNet-50 per image: fetch {r_fetch / 1e9:,.3f} mJ (the weights) vs MACs {r_mac / 1e9:,.3f} mJ (every MAC; "
        f"its average {LABELS['weight_reuse']} is {E.weight_reuse(_lh('ResNet50')):,.0f}, far below a 56×56 layer's)",
        "energies are Horowitz's 45 nm figures; 1 pJ = 1e-12 J, 1 mJ = 1e9 pJ",
    ]
    facts = [fact("weight_reuse", E.weight_reuse(_lh("ResNet50")), model="ResNet50", batch=1)]
    return View(fig, cards, summary, "Energy per weight use", peek, facts=facts)


# ---------------------------------------------------------------------------------------------
# Part D: the wildlife camera trap, end to end (worked example, L1489-L1531)
# ---------------------------------------------------------------------------------------------

CAMERA = "CortexA53Camera"
SECONDS_PER_DAY = 86_400
#: Scenario inputs of the worked example.
LATENCY_TARGET_S = 0.5  # "<500 ms per detection" (Table 12, L1503)
WEIGHT_ALLOCATION_B = 100e6  # "reserves 100 MB of the available RAM for model weights" (L1506)
RUNTIME_BUDGET_B = 50e6  # "reserves 50 MB for OS and runtime buffers" (L1514)
POWER_BUDGET_W = 2.0  # "~2 W average (solar + battery)" (Table 12, L1502)

PRED_D = Prediction(
    question=(
        "The camera trap's power budget is an average: about 2 W over the day, from solar and battery. The SoC "
        "draws about 200 mW while it classifies a frame (about a fifth of a second for the chapter's pick) and "
        "sits idle between triggers, at a tenth of that (a planning assumption). At 100 triggers a day, most "
        "of the SoC's daily energy goes to…"
    ),
    options={
        "idle": "Idling: the model runs for only seconds a day",
        "infer": "Inference: classifying is the device's real work",
        "even": "About half each: inference draws far more power",
    },
    answer="idle",
    feedback={
        "idle": "100 frames of about 0.22 s are 22 s of work in 86,400: the SoC is busy 0.025% of the day. "
        "Inference takes about 4.4 J a day; idling at 20 mW takes about 1.7 kJ, 99.7% of the total, and the "
        "day averages 20 mW, a hundredth of the budget. Sleep current, not the model, sets the battery "
        "life: the chapter lists it with capture, storage and peripherals.",
        "infer": "Per second, inference draws ten times idle, but it runs 22 s a day against 86,378 s of "
        "idling: about 4.4 J against 1.7 kJ. The model's energy is under 1% of the day's.",
        "even": "Ten times the power for 0.025% of the time is about a four-hundredth of the idle energy, not "
        "an equal share: the day is 99.7% idle energy.",
    },
    reveals=("99.7%", "0.025% of the day"),
    asks="estimate",
    misconceptions={
        "infer": (
            "the model is the power budget",
            "A device that exists to run a model spends its energy running it",
        ),
        "even": (
            "power ratio is energy ratio",
            "Energy splits like the power draws, whatever the time spent in each",
        ),
    },
)
D_MODEL = Choice(
    "Candidate",
    {
        "mnv2_075": "MobileNetV2 0.75× (the chapter's pick)",
        "mnv2_100": "MobileNetV2 1.0×",
        "mnv2_050": "MobileNetV2 0.5×",
        "mnv1_100": "MobileNetV1 1.0× (the chapter's other candidate)",
        "resnet50": "ResNet-50",
        "kws": "KWS DS-CNN (audio: wrong task)",
    },
    "mnv2_075",
    inline=False,
)
D_PRECISION = Choice(
    "Weights and arithmetic", {"int8": "INT8 (2 GOPS sustained)", "fp32": "FP32"}, "int8"
)
D_PER_DAY = Slider("Inferences per day (trigger rate)", 10, 1000, 100, step=10)

#: Candidates that are registry presets (their facts can be recomputed from ``Models``).
REGISTRY_KEYS = {"resnet50": "ResNet50", "mnv2_100": "MobileNetV2"}
CANDIDATES = {
    "mnv2_075": "MobileNetV2-0.75",
    "mnv2_100": "MobileNetV2",
    "mnv2_050": "MobileNetV2-0.5",
    "mnv1_100": "MobileNetV1",
    "resnet50": "ResNet-50",
    "kws": "KWS",
}


@lru_cache(maxsize=16)
def candidate(key: str) -> M.Model:
    if key == "mnv2_075":
        return M.mobilenet_v2(0.75)
    if key == "mnv2_100":
        return M.mobilenet_v2(1.0)
    if key == "mnv2_050":
        return M.mobilenet_v2(0.5)
    if key == "mnv1_100":
        return M.mobilenet_v1(1.0)
    if key == "resnet50":
        return M.resnet(50)
    if key == "kws":
        return M.kws_dscnn()
    raise ValueError(f"model={key!r} is not one of {list(D_MODEL.options)}")


def largest_activation(model: M.Model, precision: str) -> tuple[str, L.Layer, int]:
    """The row whose output tensor is largest (the chapter's single-tensor screen)."""
    row = max(model.rows(), key=lambda r: r.layer.activation_bytes(1, precision))
    return row.name, row.layer, row.layer.activation_bytes(1, precision)


def camera_plan(key: str, precision: str = "int8", per_day: int = 100) -> dict:
    """The worked example's numbers for one candidate: napkin (ops / sustained rate), engine, memory
    screen and energy. One FLOP is counted as one INT8 operation, as the chapter does."""
    dev = HW.Hardware.get(CAMERA)
    m = candidate(key)
    rate = dev.compute.peak(precision).m_as("FLOP/s")  # GOP/s and GFLOP/s share one dimension
    napkin_s = m.flops() / rate
    prof = E.Engine.solve(
        m, dev, precision=precision, efficiency=1.0
    )  # 2 GOPS is already sustained
    name, layer, act_b = largest_activation(m, precision)
    weights = m.weight_bytes(precision)
    power = dev.tdp.m_as("W")
    return {
        "model": m,
        "device": dev,
        "flops": m.flops(),
        "rate": rate,
        "napkin_s": napkin_s,
        "profile": prof,
        "engine_s": prof.latency_s,
        "weights": weights,
        "act_name": name,
        "act_layer": layer,
        "act_b": act_b,
        "screen": weights + act_b + RUNTIME_BUDGET_B,
        "energy_j": power * napkin_s,
        "energy_engine_j": prof.energy_per_sample_j,
        "per_day_j": power * napkin_s * int(per_day),
        "power_w": power,
        # the day as a whole: busy per_day × engine latency at the active draw, idle the rest
        "duty": energy.duty_cycle(prof.latency_s * int(per_day), SECONDS_PER_DAY),
        "average_w": average_draw(dev, prof.latency_s * int(per_day), SECONDS_PER_DAY),
        "idle_w": dev.idle_power.m_as("W"),
    }


def passes_screens(plan: dict) -> bool:
    """Table 12's three screens: napkin latency, the weight allocation, and the memory screen."""
    cap = plan["device"].memory.capacity.m_as("B")
    return (
        plan["napkin_s"] <= LATENCY_TARGET_S
        and plan["weights"] <= WEIGHT_ALLOCATION_B
        and plan["screen"] <= cap
    )


def scale_down(precision: str = "int8", per_day: int = 100) -> str | None:
    """Figure 17's loop: a failed constraint sends the design back for a smaller model. The
    candidate key with the most FLOPs (the most capacity) among the image models that pass every
    screen, or None when none does (the KWS audio model is not a candidate for species)."""
    plans = {k: camera_plan(k, precision, per_day) for k in D_MODEL.options if k != "kws"}
    ok = [k for k, p in plans.items() if passes_screens(p)]
    return max(ok, key=lambda k: plans[k]["flops"]) if ok else None


def idle_share(plan: dict) -> float:
    """The share of the day's energy the SoC spends idle between triggers."""
    return plan["idle_w"] * (1 - plan["duty"]) / plan["average_w"]


@widget_args
def part_d(model: str, precision: str, per_day: int) -> View:
    import plotly.graph_objects as go

    plans = {k: camera_plan(k, precision, per_day) for k in D_MODEL.options}
    p = plans[model]
    dev = p["device"]
    names = [CANDIDATES[k] for k in D_MODEL.options]
    fig = figure(
        f"Latency per frame on the camera SoC ({precision.upper()})",
        "Candidate",
        "Seconds per frame (log scale)",
        log_y=True,
    )
    fig.add_trace(
        go.Bar(
            x=names,
            y=[plans[k]["napkin_s"] for k in D_MODEL.options],
            name="napkin: ops ÷ sustained rate",
        )
    )
    fig.add_trace(
        go.Bar(
            x=names,
            y=[plans[k]["engine_s"] for k in D_MODEL.options],
            name="engine: + memory-bound layers + per-operator dispatch",
        )
    )
    hline(
        fig,
        LATENCY_TARGET_S,
        f"{fmt_time(LATENCY_TARGET_S, 0)} target",
        dash="dash",
        position="top left",
    )
    fig.update_layout(barmode="group")

    prof = p["profile"]
    layer = p["act_layer"]
    shape = (
        f"{layer.output_size[0]}×{layer.output_size[1]}×{layer.out_channels}"
        if isinstance(layer, L.Conv2d)
        else f"{layer.output_elements:,} values"
    )
    ok_lat = p["napkin_s"] <= LATENCY_TARGET_S
    ok_w = p["weights"] <= WEIGHT_ALLOCATION_B
    cap = dev.memory.capacity.m_as("B")
    ok_mem = p["screen"] <= cap
    cards = [
        Card(
            "Napkin latency",
            fmt_time(p["napkin_s"]),
            f"{fmt_flops(p['flops'], 2, precision=precision)} ÷ {fmt_rate(p['rate'], precision=precision)}",
            "ok" if ok_lat else "bad",
        ),
        Card(
            "Engine latency",
            fmt_time(p["engine_s"]),
            f"{bound_phrase(prof.bottleneck)}; dispatch {fmt_time(prof.latency_dispatch_s)}",
            "ok" if p["engine_s"] <= LATENCY_TARGET_S else "bad",
            # efficiency is not a setting of a sustained-rate device: left out of the fact's context
            fact=fact(
                "latency",
                p["engine_s"],
                model=REGISTRY_KEYS.get(model),
                device=CAMERA,
                batch=1,
                precision=precision,
            )
            if model in REGISTRY_KEYS
            else None,
        ),
        Card(
            "Weights",
            fmt_bytes(p["weights"]),
            f"of the {fmt_bytes(WEIGHT_ALLOCATION_B, 0)} allocation",
            "ok" if ok_w else "bad",
        ),
        Card(
            "Memory screen",
            fmt_bytes(p["screen"]),
            f"weights + largest activation ({shape}) + {fmt_bytes(RUNTIME_BUDGET_B, 0)} OS and runtime "
            "reserve; a screen, not a fit proof",
            "ok" if ok_mem else "bad",
        ),
        Card(
            "Energy / inference (napkin latency)",
            _joules(p["energy_j"]),
            f"the SoC's {p['power_w'] * 1e3:,.0f} mW active draw × napkin latency; engine latency: "
            f"{_joules(p['energy_engine_j'])}",
        ),
        Card(
            "Energy / day (napkin latency)",
            _joules(p["per_day_j"]),
            f"{int(per_day)} inferences, model only",
        ),
        Card(
            "Average power over the day",
            fmt_power(p["average_w"]),
            f"busy {p['duty']:.3%} of the day at {fmt_power(p['power_w'])} (active), idle "
            f"{fmt_power(p['idle_w'])} the rest (assumed: {HW.IDLE_SHARE:.0%} of active); "
            f"budget {POWER_BUDGET_W:g} W average",
            "ok" if p["average_w"] <= POWER_BUDGET_W else "bad",
        ),
    ]
    verdict = (
        "passes the latency screen"
        if ok_lat
        else f"fails on compute: {p['napkin_s'] / LATENCY_TARGET_S:,.1f}× the {fmt_time(LATENCY_TARGET_S, 0)} target"
    )
    summary = (
        f"{CANDIDATES[model]} in {precision.upper()}: {fmt_flops(p['flops'], 2, precision=precision)} at {fmt_rate(p['rate'], precision=precision)} "
        f"take {fmt_time(p['napkin_s'])} ({verdict}); its weights are {fmt_bytes(p['weights'])} and "
        f"{p['power_w'] * 1e3:,.0f} mW × {fmt_time(p['napkin_s'])} = {_joules(p['energy_j'])} per frame, "
        f"{_joules(p['per_day_j'])} per day at {int(per_day)} frames. Over the whole day the SoC averages "
        f"{fmt_power(p['average_w'])}, and idling between triggers is {idle_share(p):.1%} of its energy. "
        "The engine adds "
        f"{fmt_time(p['engine_s'] - p['napkin_s'])} of memory-bound layers and operator dispatch."
        + (
            " KWS is an audio model: its size says nothing about species accuracy."
            if model == "kws"
            else ""
        )
        + (
            ""
            if model == "kws" or passes_screens(p)
            else " Figure 17 sends a failed constraint back for a smaller or compressed model: "
            + (
                f"the largest candidate here that passes every screen is {CANDIDATES[fallback]} "
                f"({fmt_time(plans[fallback]['napkin_s'])} per frame)."
                if (fallback := scale_down(precision, per_day))
                else "no candidate here passes every screen."
            )
        )
    )
    lat_ms = p["napkin_s"] * 1e3
    peek = [
        f"latency = ops / sustained rate = {p['flops']:,} / {p['rate']:,.0f} = {lat_ms:,.1f} ms",
        "  (the chapter divides FLOPs by INT8 ops/s: one FLOP is counted as one INT8 operation)",
        f"engine  = Σ max(FLOPs/rate, bytes/{dev.memory.bandwidth:~P}) + {prof.latency_dispatch_s / dev.dispatch_tax.m_as('s'):,.0f} ops × "
        f"{dev.dispatch_tax.m_as('us'):g} µs = {fmt_time(prof.latency_compute_s)} + {fmt_time(p['engine_s'] - prof.latency_compute_s - prof.latency_dispatch_s)} extra memory time + {fmt_time(prof.latency_dispatch_s)}",
        f"largest tensor: {p['act_name']} {shape} = {p['act_b']:,} B"
        + (
            " (the chapter's 112×112×72 skips make_divisible: 0.75 × 16 = 12 rounds up to 16 channels, "
            "so the expansion is 6 × 16 = 96)"
            if model == "mnv2_075"
            else ""
        )
        + (
            f" · MobileNetV1: {p['model'].params:,} parameters (the chapter's 4.2 M) and "
            f"{p['flops']:,} FLOPs = 2 × {p['model'].macs():,} MACs (Howard et al. 2017: 569 million "
            "mult-adds; the chapter's 1,138 MFLOP is 2 × 569). The chapter calls it viable; at its own 2 GOPS the "
            "napkin latency misses the 500 ms target"
            if model == "mnv1_100"
            else ""
        ),
        f"screen  = {fmt_bytes(p['weights'])} + {fmt_bytes(p['act_b'])} + {fmt_bytes(RUNTIME_BUDGET_B, 0)} = {fmt_bytes(p['screen'])} of {fmt_bytes(cap, 0)}",
        f"energy  = {p['power_w']:g} W × {lat_ms:,.1f} ms = {_joules(p['energy_j'])};  × {int(per_day)}/day = {_joules(p['per_day_j'])}",
        f"average = active × duty + idle × (1 − duty) = {fmt_power(p['power_w'])} × {p['duty']:.3g} + "
        f"{fmt_power(p['idle_w'])} × (1 − {p['duty']:.3g}) = {fmt_power(p['average_w'])} (energy.average_power; "
        f"duty = {int(per_day)} × engine latency / 86,400 s)",
        f"  {dev.power_note}; the chapter adds capture, sleep current, storage and peripherals",
        f"engine footprint = weights + peak live tensors (input + output) = {fmt_bytes(prof.memory_footprint_bytes)}: "
        + ("fits" if prof.feasible else "does not fit")
        + f" the {fmt_bytes(cap, 0)} (runtime, workspace and OS not included)",
        "ResNet-50: the chapter's self-check blames FP32 size (102.2 MB > 100 MB); in INT8 it is 25.6 MB; compute (4.1 s) is the failure",
    ]
    return View(fig, cards, summary, "Camera-trap sizing", peek)


# ---------------------------------------------------------------------------------------------
# Synthesis: the three-phase selection framework over the device registry (6.9.4)
# ---------------------------------------------------------------------------------------------

#: Napkin Math 6.3 (L1472-L1485): a 30 FPS stream on a mid-range GPU.
NAPKIN_FPS = 30  # "30 FPS required" (L1479)
NAPKIN_PEAK_FLOPS = 10e12  # "10 TFLOP/s peak" (L1481)
NAPKIN_UTILIZATION = (0.5, 0.6)  # "50-60 percent utilization" (L1481)
DETECTOR_FLOP = 100e9  # "object detection model at 100 GFLOP per frame" (L1483)


def throughput_headroom(
    flop_per_frame: float, fps: float, peak_flops_s: float, utilization: float
) -> float:
    """Napkin 6.3: effective throughput (peak × utilization) over required (frames/s × FLOP/frame)."""
    return peak_flops_s * utilization / (fps * flop_per_frame)


S_DATA = Choice(
    "Phase 1 · the data's structure",
    {
        "spatial": "Images / spatial grids → CNNs",
        "temporal": "Ordered streams (audio, sensors) → recurrence or 1-D/2-D conv",
        "relational": "Text: any token may relate to any other → transformers",
        "tabular": "Tabular features, no geometry → MLPs",
        "categorical": "High-cardinality IDs (users, items) → embedding tables",
    },
    "spatial",
    inline=False,
)
S_FPS = Slider("Phase 2 · required rate (inferences per second, batch 1)", 1, 60, 2)
S_UTIL = Slider("Phase 2 · sustained share of peak (Napkin 6.3: 0.5-0.6)", 0.1, 1.0, 0.5, step=0.05)
S_POWER = Choice(
    "Phase 2 · power budget",
    {"0.2": "0.2 W", "2": "2 W (camera trap)", "25": "25 W", "1000": "1 kW (data center)"},
    "2",
)


@lru_cache(maxsize=4)
def _lstm_tagger() -> M.Model:
    """A two-layer LSTM over 100 frames of 40 audio features, then a 12-way classifier."""
    lstm = L.LSTM(input_size=40, hidden_size=256, seq_len=100, num_layers=2)
    return M.Model(
        "LSTM 2×256 (100 frames)",
        "rnn",
        lambda _s, _p: [
            M.Row("lstm", lstm),
            M.Row("fc", L.Dense(in_features=256, out_features=12)),
        ],
    )


@lru_cache(maxsize=4)
def _tabular_mlp() -> M.Model:
    """An MLP over DLRM's 13 dense features (its bottom-MLP widths) with a 1-unit head."""
    return M.mlp([13, 512, 256, 128, 1], name="Tabular MLP 13-512-256-128-1")


FAMILY = {
    "spatial": ("MobileNetV2", "ResNet50", "mnv2_075"),
    "temporal": ("KWS", "lstm"),
    "relational": ("GPT2Small", "GPT2"),
    "tabular": ("tabular",),
    "categorical": ("DLRM",),
}


def _family_model(key: str) -> M.Model:
    if key == "lstm":
        return _lstm_tagger()
    if key == "tabular":
        return _tabular_mlp()
    if key == "mnv2_075":
        return candidate("mnv2_075")
    return M.Models.get(key)


def average_draw(dev, busy_s: float, period_s: float) -> float:
    """The device's average power (W) when busy ``busy_s`` of every ``period_s``: its listed power
    (``power_basis``: TDP, typical or active) while busy, its idle draw (a planning assumption,
    ``IDLE_SHARE`` of it) the rest: ``energy.average_power``."""
    duty = energy.duty_cycle(busy_s, period_s)
    return energy.average_power(dev.tdp.m_as("W"), dev.idle_power.m_as("W"), duty)


def fmt_power(w: float) -> str:
    return f"{w:,.3g} W" if w >= 1 else f"{w * 1e3:,.3g} mW"


def screen(data: str, fps: float, util: float, power_w: float) -> list[dict]:
    """Phase 2 over every (candidate, device) pair: memory, throughput, latency and power gates."""
    out = []
    for mk in FAMILY[data]:
        m = _family_model(mk)
        flops = m.flops(1, 1, "decode") if m.is_lm else m.flops()
        for dev in map(HW.Hardware.get, catalogue.CHAPTER_DEVICES):
            prec = "int8" if "int8" in dev.compute.precisions else dev.compute.quoted_precision
            prof = E.Engine.solve(m, dev, precision=prec, efficiency=float(util))
            sustained = dev.sustained_flops(
                prec, float(util)
            )  # never derates an already-sustained rate
            # like with like: the average draw over the duty cycle (busy fps x latency of each
            # second at the listed power, idle the rest) against the average budget
            avg_w = average_draw(dev, fps * prof.latency_s, 1.0)
            gates = {
                "memory": prof.feasible,
                "throughput": throughput_headroom(flops, fps, sustained, 1.0) >= 1,
                "latency": prof.latency_s <= 1 / fps,
                "power": avg_w <= power_w,
            }
            # the memory gate at this precision; would the FP32 model (the chapter's sizes) fit?
            fp32 = (
                prof
                if prec == "fp32"
                else E.Engine.solve(m, dev, precision="fp32", efficiency=float(util))
            )
            out.append(
                {
                    "model": m.name,
                    "device": dev.key,
                    "device_name": device_label(dev),
                    "latency_s": prof.latency_s,
                    "average_w": avg_w,
                    "gates": gates,
                    "energy_j": prof.energy_per_sample_j,
                    "precision": prec,
                    "fp32_fits": fp32.feasible,
                    "fp32_bytes": fp32.memory_footprint_bytes,
                    "bytes": prof.memory_footprint_bytes,
                    "passed": all(gates.values()),
                }
            )
    return out


@widget_args
def synthesis(data: str, fps: float, util: float, power: str) -> View:
    import plotly.graph_objects as go

    fps, util, power_w = float(fps), float(util), float(power)
    rows = screen(data, fps, util, power_w)
    passed = [r for r in rows if r["passed"]]
    failed = [r for r in rows if not r["passed"]]
    fig = figure(
        "Phase 2: every candidate on each of the chapter's eight devices",
        "Latency per inference (s, log scale)",
        "Energy per inference: power × engine latency (J, log scale)",
        log_x=True,
        log_y=True,
    )
    # the most frugal survivor is named on the chart; the rest (and every failure) on hover
    shown = [min(passed, key=lambda r: r["energy_j"])] if passed else []
    quiet = [r for r in passed if r not in shown]
    for group, name, symbol, legend in (
        (shown, "passes all four gates", "circle", True),
        (quiet, "passes all four gates", "circle", not shown),
        (failed, "fails a gate", "x", True),
    ):
        if group:
            survivors = group is shown
            fig.add_trace(
                go.Scatter(
                    x=[r["latency_s"] for r in group],
                    y=[r["energy_j"] for r in group],
                    mode="markers+text" if survivors else "markers",
                    name=name,
                    legendgroup=name,
                    showlegend=legend,  # even alone: what the markers mean
                    marker=dict(size=11, symbol=symbol),
                    text=[
                        f"{r['model']} on {catalogue.short(r['device_name'])}"
                        if survivors
                        else f"{r['model']} on {r['device_name']} ({r['precision'].upper()})"
                        for r in group
                    ],
                    hovertext=[
                        f"{r['model']} on {r['device_name']} ({r['precision'].upper()}): "
                        f"{fmt_power(r['average_w'])} average"
                        for r in group
                    ],
                )
            )
    vline(fig, 1 / fps, f"deadline {fmt_time(1 / fps)}", dash="dash", position="top left")
    fails = {
        g: sum(not r["gates"][g] for r in rows)
        for g in ("memory", "throughput", "latency", "power")
    }
    best = min(passed, key=lambda r: r["energy_j"]) if passed else None
    cards = [
        Card(
            "Candidates × devices",
            f"{len(rows)}",
            f"family: {S_DATA.options[data].split(' → ')[-1]}",
        ),
        Card("Survive phase 2", f"{len(passed)}", "go to phase 3", "ok" if passed else "bad"),
        *[
            Card(
                f"Fail {g}",
                f"{n}",
                "average draw over the duty cycle" if g == "power" else "",
                "warn" if n else "",
            )
            for g, n in fails.items()
        ],
    ]
    if best:
        cards.append(
            Card(
                "Lowest energy survivor",
                f"{best['model']}",
                f"{best['device_name']}, {best['precision'].upper()}: "
                f"{_joules(best['energy_j'])}, {fmt_time(best['latency_s'])}",
                "ok",
            )
        )
    # survivors that pass the memory gate only because the screen runs them below FP32
    shrunk = [r for r in passed if not r["fp32_fits"]]
    if shrunk:
        r0 = best if best in shrunk else shrunk[0]
        caveat = (
            f"Each device runs its lowest listed precision: {r0['model']} passes the memory gate on the "
            f"{r0['device_name']} only in {r0['precision'].upper()} ({fmt_bytes(r0['bytes'])}); in FP32 it "
            f"needs {fmt_bytes(r0['fp32_bytes'])} and does not fit"
            + (
                f", and {counted(len(shrunk) - 1, 'other survivor')} likewise. "
                if len(shrunk) > 1
                else ". "
            )
        )
    else:
        caveat = ""
    summary = (
        (
            f"{len(passed)} of {len(rows)} pairs pass memory, throughput, latency and power at {fps:g}/s and "
            f"{power_w:g} W"
            + (
                f"; the most frugal is {best['model']} on the {best['device_name']}. "
                if best
                else ". "
            )
            if passed
            else f"No pair passes at {fps:g}/s within {power_w:g} W: scale the model down (width, INT8, a smaller "
            "family) before leaving the device, as the framework's loop says. "
        )
        + caveat
        + "Phase 3 is still ahead: accuracy on the target data, and on-device latency, peak memory, "
        "thermals and energy must be measured, not estimated."
    )
    r50 = M.Models.ResNet50.flops()
    need = NAPKIN_FPS * r50
    lo, hi = (
        throughput_headroom(r50, NAPKIN_FPS, NAPKIN_PEAK_FLOPS, u) for u in NAPKIN_UTILIZATION
    )
    dlo, dhi = (
        throughput_headroom(DETECTOR_FLOP, NAPKIN_FPS, NAPKIN_PEAK_FLOPS, u)
        for u in NAPKIN_UTILIZATION
    )
    peek = [
        "Napkin 6.3: required = rate × FLOP/frame;  headroom = peak × utilization / required",
        f"ResNet-50 at 30 FPS: 30 × {r50 / 1e9:,.2f} GFLOP = {fmt_rate(need)}; 10 TFLOP/s × 0.5-0.6 -> {lo:,.1f}×-{hi:,.1f}×",
        f"  chapter rounds to 8.2 GFLOP: {fmt_rate(NAPKIN_FPS * E.round_sig(r50))} -> "
        f"{throughput_headroom(E.round_sig(r50), NAPKIN_FPS, NAPKIN_PEAK_FLOPS, NAPKIN_UTILIZATION[0]):,.1f}×-"
        f"{throughput_headroom(E.round_sig(r50), NAPKIN_FPS, NAPKIN_PEAK_FLOPS, NAPKIN_UTILIZATION[1]):,.1f}× (it quotes 20.3×)",
        f"100 GFLOP detector at 30 FPS: {fmt_rate(NAPKIN_FPS * DETECTOR_FLOP)} -> {dlo:,.2f}×-{dhi:,.2f}× (chapter quotes the low end)",
        f"your screen: rate {fps:g}/s, utilization {util:g}; memory = Engine.solve(...).feasible; latency <= 1/rate;"
        " average power <= budget",
        "average power = listed power × duty + idle × (1 − duty), duty = rate × latency "
        "(energy.average_power): an average compared with the average budget, not a rating",
        f"idle = {HW.IDLE_SHARE:.0%} of the listed power: a planning assumption (no registry device has a sourced "
        "idle figure); measure it on the device",
        *[f"  {HW.Hardware.get(k).power_note}" for k in catalogue.CHAPTER_DEVICES],
        "precision per device: INT8 where listed, else the quoted precision (dense peaks); LMs: one decoded token",
        "the utilization slider derates datasheet peaks only: the camera SoC's 2 GOPS is already sustained "
        "(its registry rate_basis), so it is used as listed",
        "energy per inference = listed power × engine latency (an upper bound where the figure is a TDP)",
    ]
    return View(fig, cards, summary, "Three-phase screen", peek)


# ---------------------------------------------------------------------------------------------
# Transfer questions: one unseen case per part, answered with the part's own controls
# ---------------------------------------------------------------------------------------------

TRANSFER_A = Prediction(
    question=(
        "Store ResNet-50's weights and activations in INT8 instead of FP16 (compiled, batch 1, H100; "
        "Part A runs FP16 only). Its engine intensity (FLOPs per byte moved)…"
    ),
    options={
        "double": "About doubles: half the bytes, the same FLOPs",
        "same": "Stays put: intensity is a property of the model",
        "four": "Rises about fourfold: INT8 is a quarter of the bytes",
    },
    answer="double",
    feedback={
        "double": "The same FLOPs over half the bytes: 75.9 → 151.7 FLOP/B. The INT8 ridge doubles too, so "
        "the side of the ridge it sits on does not change.",
        "same": "Intensity is FLOPs over bytes moved, and the bytes depend on the precision: "
        "75.9 → 151.7 FLOP/B.",
        "four": "A quarter of FP32, but half of FP16: 75.9 → 151.7 FLOP/B, about twice.",
    },
    kind="transfer",
    reveals=("151.7 FLOP/B",),
    asks="direction",
    misconceptions={
        "same": (
            "intensity is fixed by the model",
            "Arithmetic intensity belongs to the architecture, not to the number format",
        ),
        "four": (
            "INT8 is always a quarter",
            "INT8 cuts bytes fourfold whatever format it replaces",
        ),
    },
)

TRANSFER_B = Prediction(
    question=(
        "Serve GPT-2 XL to 64 sequences of 1,024 tokens with INT8 weights; the KV cache stays FP16 (Part B "
        "serves FP16 weights only). Counting weights and caches, the memory it needs, compared with FP16 "
        "weights…"
    ),
    options={
        "barely": "Falls only slightly: the FP16 caches are most of it",
        "half": "Halves: INT8 weights take half the bytes of FP16 ones",
        "quarter": "Falls to a quarter: INT8 is a quarter of the bytes",
    },
    answer="barely",
    feedback={
        "barely": "The weights halve (3.1 → 1.6 GB) but the 20.1 GB of caches do not move: 23.2 → 21.7 GB, "
        "about 7% less. Quantizing weights is the wrong lever once the caches dominate.",
        "half": "Only the weights halve (3.1 → 1.6 GB); the 20.1 GB of FP16 caches stay: 23.2 → 21.7 GB.",
        "quarter": "INT8 is a quarter of FP32, half of FP16, and only the weights change: 23.2 → 21.7 GB.",
    },
    kind="transfer",
    reveals=("21.7 GB",),
    asks="direction",
    misconceptions={
        "half": (
            "quantize the weights, halve the memory",
            "A model's serving memory is its weights, so INT8 halves it",
        ),
        "quarter": (
            "INT8 quarters everything",
            "INT8 divides every byte of a deployment by four",
        ),
    },
)

TRANSFER_C = Prediction(
    question=(
        "GPT-2 XL processes a 1,024-token prompt in one pass (prefill), batch 1, FP32: each weight is "
        "fetched from DRAM once and used for every token. Part C shows decode, where fetching is nearly "
        "all of the weight + MAC energy. In prefill, fetching is…"
    ),
    options={
        "small": "A small share: one fetch now feeds every prompt token",
        "most": "Still nearly all: the same weights are fetched as in decode",
        "more": "Even more: a long prompt moves more data",
    },
    answer="small",
    feedback={
        "small": "Each weight now serves 1,024 multiply-accumulates instead of one, against a fetch worth "
        "139: fetching falls from 99% to 11.0% of the weight + MAC energy. Prefill behaves like a batch, "
        "decode like batch 1.",
        "most": "The fetch energy is the same, but the MACs grow 1,024-fold: fetching falls to 11.0%.",
        "more": "The weights are fetched once per pass whatever the prompt length; the tokens add MACs "
        "(and activations), so fetching falls to 11.0% of the weight + MAC energy.",
    },
    kind="transfer",
    reveals=("11.0%",),
    asks="direction",
    misconceptions={
        "most": (
            "transformers are always fetch-bound",
            "A transformer spends its energy fetching weights whatever the phase",
        ),
        "more": (
            "more tokens, more weight traffic",
            "A longer input makes the model fetch its weights more",
        ),
    },
)

TRANSFER_D = Prediction(
    question=(
        "Run the chapter's pick on an iPhone 15 Pro's Neural Engine instead: its 8 W is a typical SoC "
        "envelope, and it idles at a tenth of that between frames (a planning assumption). At 100 triggers "
        "a day, does it meet the camera trap's ~2 W average?"
    ),
    options={
        "yes": "Yes: it works about a second a day and idles the rest",
        "no_rating": "No: its 8 W envelope is four times the budget",
        "no_energy": "No: each frame costs more energy than on the SoC",
    },
    answer="yes",
    feedback={
        "yes": "About 8 ms per frame: under a second of work a day. The day averages about 0.80 W, its "
        "assumed idle draw, under the 2 W average. (Whether a phone idles that low in a box in the field "
        "is what phase 3 measures.)",
        "no_rating": "8 W is what it draws while busy, a few milliseconds per frame. The budget is an "
        "average: about 0.80 W over the day, dominated by its idle draw.",
        "no_energy": "It does: about 66 mJ per frame against the SoC's 44 mJ. But 100 frames are 6.6 J "
        "a day, a rounding error next to the idle draw: the day averages about 0.80 W.",
    },
    kind="transfer",
    reveals=("0.80 W",),
    asks="estimate",
    misconceptions={
        "no_rating": (
            "a rating is an average",
            "A device rated above an average budget cannot meet it",
        ),
        "no_energy": (
            "energy per frame decides",
            "The device that spends more per inference busts the daily budget",
        ),
    },
)


# ---------------------------------------------------------------------------------------------
# Part E: risks in the field (Table 13): new species after deployment, and thermal throttling
# ---------------------------------------------------------------------------------------------

#: the camera ships classifying 50 species ("90%+ on 50 species", Table 12)
SHIPPED_SPECIES = 50
#: the chapter's trigger rate ("100 inferences/day")
E_PER_DAY = 100
#: the pick's width multiplier (MobileNetV2 0.75x, INT8)
E_WIDTH = 0.75
E_PRECISION = "int8"

PRED_E = Prediction(
    question=(
        "The camera trap shipped classifying 50 species with MobileNetV2 0.75× in INT8. A year on, the "
        "rangers want 20 more species (70 in all), installed on a service visit: the camera has no "
        "network. Compared with the model that shipped, what must the update change?"
    ),
    options={
        "head": "Only the output layer: the learned features serve every species",
        "whole": "Every weight in the network: all of it is retrained for 70",
        "grows": "The whole model, 40% larger: one share of it per species",
        "same": "No weights at all: a species is a new label for the output",
    },
    answer="head",
    feedback={
        "head": "Each species is one row of the output layer: 1,280 weights (one per feature the backbone "
        "computes) and a bias. 20 species add 25,620 parameters; the backbone's 1,355,424 are untouched, "
        "because edges, textures and body parts serve any species. The visit installs the retrained head, "
        "89,670 parameters (89.7 KB in INT8, 6.2% of the model), and the model grows only 1.8%. If the new "
        "species look unlike anything in the training data, deeper layers may need fine-tuning too: "
        "accuracy on the new species decides.",
        "whole": "Only the head depends on the species count. The backbone's 1,355,424 parameters compute "
        "features (edges, textures, body parts) that any species can use, so the update is the new head: "
        "89,670 parameters, 6.2% of the model. Retraining more is an option when accuracy needs it, not a "
        "consequence of adding classes.",
        "grows": "Species rise 40%, the model only 1.8%: each species adds one row of the output layer, "
        "1,281 parameters (25,620 for 20), while the 1,355,424-parameter backbone does not depend on the "
        "species count at all.",
        "same": "The output layer scores each species with its own 1,280 weights and a bias: a species "
        "without them has no score. 20 species are 25,620 new parameters to train and install, on a "
        "service visit since the camera is offline.",
    },
    reveals=("25,620 parameters", "model grows only 1.8%"),
    asks="behaviour",
    misconceptions={
        "whole": (
            "a new class means a new network",
            "Adding classes requires retraining and re-shipping every weight of the network",
        ),
        "grows": (
            "size scales with the classes",
            "A classifier's size grows in proportion to the number of classes it knows",
        ),
        "same": (
            "classes are labels, not weights",
            "A class is a name attached to the output; adding one changes no parameters",
        ),
    },
)

TRANSFER_E = Prediction(
    question=(
        "On summer afternoons the sun heats the enclosure and the governor holds the SoC at half its "
        "clock, whatever the camera does. The rangers run MobileNetV2 1.0× instead of the pick (0.31 s a "
        "frame at full clock in Part D's engine). Does a frame meet the 500 ms target, and what does "
        "halving the triggers per day do to a frame's time?"
    ),
    options={
        "miss": "Misses it: fewer triggers cut the day's energy, not a frame's time",
        "meets": "Meets it: a 0.31 s frame has the headroom to absorb half the clock",
        "fewer": "Misses it: halving the triggers brings each frame back under target",
    },
    answer="miss",
    feedback={
        "miss": "At half clock the core runs 1 GOPS instead of 2 and only the memory time stays: 0.31 s → "
        "0.62 s, over the 500 ms target. The triggers per day set how many frames run (the day's energy "
        "and heat), not how long one takes. While the sun holds the clock, a heatsink (a higher "
        "sustained clock) or a smaller model is what gets a frame back under 500 ms.",
        "meets": "0.31 s is 1.6× under the target, and halving the clock doubles the compute time: 0.62 s, "
        "over 500 ms. A margin at full clock must cover the throttle; here it needed 2×.",
        "fewer": "A frame's time is its operations over the rate at the clock it runs at: 0.62 s at half "
        "clock, however many triggers a day. Fewer triggers cut the day's energy and heat, not one "
        "frame's latency while the sun holds the clock.",
    },
    kind="transfer",
    reveals=("0.62 s",),
    asks="behaviour",
    misconceptions={
        "meets": (
            "full-clock margin covers throttling",
            "A design that meets its target at full clock keeps meeting it when throttled",
        ),
        "fewer": (
            "the trigger rate sets a frame's time",
            "Running fewer inferences a day makes each inference faster",
        ),
    },
)

E_SPECIES = Slider(
    "Species the camera classifies after the update (shipped: 50)", 50, 500, 70, step=10
)
E_CLOCK = Slider(
    "Sustained clock in the hot enclosure (share of full clock)", 0.25, 1.0, 1.0, step=0.05
)
#: the clock fractions the chart samples
E_GRID = tuple(x / 100 for x in range(25, 101, 5))


def _mnv2(width: float):
    return lambda n: M.mobilenet_v2(width, num_classes=n)


@lru_cache(maxsize=64)
def species_update(species: int):
    """``deployment.head_update`` from the shipped 50 species to ``species`` (MobileNetV2 0.75x)."""
    from ... import deployment

    return deployment.head_update(_mnv2(E_WIDTH), SHIPPED_SPECIES, int(species), E_PRECISION)


@lru_cache(maxsize=64)
def _species_model(species: int) -> M.Model:
    return M.mobilenet_v2(E_WIDTH, num_classes=int(species))


def throttled(clock: float, species: int = SHIPPED_SPECIES, key: str | None = None):
    """One frame on the camera SoC at ``clock`` of its clock (``deployment.throttled_frame``): the
    pick at ``species`` classes, or a Part D candidate by ``key``."""
    from ... import deployment

    model = candidate(key) if key else _species_model(int(species))
    return deployment.throttled_frame(
        model, HW.Hardware.get(CAMERA), E_PRECISION, round(float(clock), 4)
    )


@widget_args
def part_e(species: int, clock: float) -> View:
    import plotly.graph_objects as go

    from ... import deployment

    n, f = int(species), float(clock)
    u = species_update(n)
    fr = throttled(f, n)
    full = throttled(1.0, n)
    curve = [throttled(x, n).latency_s for x in E_GRID]
    fig = figure(
        f"Latency per frame vs sustained clock, MobileNetV2 0.75× ({n} species, INT8)",
        "Sustained clock (share of full clock)",
        "Seconds per frame (engine)",
    )
    fig.add_trace(go.Scatter(x=list(E_GRID), y=curve, name="engine latency per frame"))
    fig.add_trace(
        go.Scatter(
            x=[f],
            y=[fr.latency_s],
            name="your setting",
            mode="markers",
            marker=dict(size=12, symbol="diamond"),
        )
    )
    hline(
        fig,
        LATENCY_TARGET_S,
        f"{fmt_time(LATENCY_TARGET_S, 0)} target",
        dash="dash",
        position="top right",
    )
    fig.update_xaxes(tickformat=".0%")
    ok = fr.latency_s <= LATENCY_TARGET_S
    # the lowest clock on the grid that still meets the target
    floor = next((x for x in E_GRID if throttled(x, n).latency_s <= LATENCY_TARGET_S), None)
    day = fr.energy_j * E_PER_DAY
    cards = [
        Card(
            "Update to install",
            fmt_bytes(u.update_bytes),
            f"the retrained head: {u.head_params_after:,} parameters, "
            f"{u.per_class:,} per species ({u.in_features:,} weights + a bias), INT8",
        ),
        Card(
            "Backbone",
            f"{u.backbone_params:,}",
            "parameters unchanged: the same features serve every species",
            "ok",
        ),
        Card(
            "Model growth",
            f"{u.model_growth:+.1%}",
            f"species {u.class_growth:+.0%} ({SHIPPED_SPECIES} → {n}); the head is "
            f"{u.update_share:.1%} of the model; a full re-ship: {fmt_bytes(u.model_bytes)}",
        ),
        Card(
            f"Frame at {f:.0%} clock",
            fmt_time(fr.latency_s),
            f"target {fmt_time(LATENCY_TARGET_S, 0)}; full clock {fmt_time(full.latency_s)}",
            "ok" if ok else "bad",
        ),
        Card(
            "Inference energy / day (engine latency)",
            _joules(day),
            f"{E_PER_DAY} frames × {_joules(fr.energy_j)} at {fmt_power(fr.power_w)}, model only "
            "(active draw assumed to scale with the clock)",
        ),
    ]
    summary = (
        f"Going from {SHIPPED_SPECIES} to {n} species adds {counted(u.added_params, 'parameter')} "
        f"({u.model_growth:+.1%}) for a {u.class_growth:+.0%} rise in species: only the output layer grows, "
        f"{u.per_class:,} parameters per species, and the service visit installs a retrained head of "
        f"{fmt_bytes(u.update_bytes)} while the backbone's {u.backbone_params:,} parameters stay. "
        f"Held at {f:.0%} of its clock the SoC takes {fmt_time(fr.latency_s)} a frame, "
        + (
            f"within the {fmt_time(LATENCY_TARGET_S, 0)} target"
            if ok
            else f"over the {fmt_time(LATENCY_TARGET_S, 0)} target"
        )
        + (
            f" (it meets it down to about {floor:.0%} of the clock)"
            if floor is not None and floor > E_GRID[0]
            else ""
        )
        + f". The day's inference energy stays about {_joules(day)}: the active draw is assumed to fall "
        "with the clock as the time grows, so throttling costs time, not energy. A heatsink raises the "
        "sustained clock; fewer triggers cut the day's energy and heat, not a frame's time."
    )
    peek = [
        f"head = (last_channel + 1) × species = ({u.in_features:,} + 1) × {n} = {u.head_params_after:,} "
        "(torchvision MobileNetV2 keeps last_channel = 1,280 for width ≤ 1)",
        f"backbone = model − head = {u.model_params_after:,} − {u.head_params_after:,} = "
        f"{u.backbone_params:,} (the same at every species count)",
        f"growth = {u.model_params_after:,} / {u.model_params_before:,} − 1 = {u.model_growth:.2%}; "
        f"the head adds 2 × {u.in_features:,} FLOPs per species per frame",
        f"throttled frame = Engine.solve on deployment.throttle(camera SoC, {f:g}): compute "
        f"{fmt_time(fr.compute_s)} + memory {fmt_time(fr.memory_s)} + dispatch {fmt_time(fr.dispatch_s)}",
        "assumed to scale with the clock: the INT8 rate (ops per cycle fixed) and the per-operator "
        "dispatch time; not the DRAM bandwidth (its own clock)",
        f"active power × clock (dynamic CMOS power αCV²f at a fixed voltage, leakage ignored; Weste "
        f"and Harris, CMOS VLSI Design, 4th ed., §5.1; with DVFS it falls faster): "
        f"{fmt_power(fr.power_w)}; energy = power × latency = {_joules(fr.energy_j)} a frame",
        f"clock fraction range accepted: {deployment.MIN_CLOCK:g} to 1",
    ]
    return View(fig, cards, summary, "Risks in the field", peek)
