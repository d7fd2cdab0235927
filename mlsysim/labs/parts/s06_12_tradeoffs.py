"""Trade-offs: accuracy against cost, the iron law and its refinement, Table 7 as one calculator.

Part A is the chapter's Figure 1 (ImageNet top-1 against GMACs) with the D·A·M framing: the
published accuracies of ``mlsysim.accuracy`` against a cost the student picks (published GMACs,
or the engine's batch-1 latency or memory on a device), the Pareto front, and the cheapest model
that clears an accuracy bar. Part B writes out the serialized iron law on the chapter's numbers
and sets the engine's per-layer max(compute, memory) + launches beside it. Part C evaluates any
row of Table 7 (``mlsysim.table7``) beside the exact count from the layer models.

Every number comes from ``mlsysim``; this module picks inputs, draws and writes the sentence.
``tests/test_s06_12_tradeoffs.py`` asserts the chapter's numbers these parts reproduce.
"""

from __future__ import annotations

from functools import lru_cache

from ... import catalogue
from ..._lazy import lazy
from ..charts import device_label, figure, hline
from ..components import (
    Card,
    Choice,
    Prediction,
    Slider,
    Toggle,
    View,
    counted,
    fact,
    feasibility,
    fmt_bytes,
    fmt_count,
    fmt_ratio,
    fmt_time,
    widget_args,
)
from ..vocab import bound_phrase

acc = lazy("mlsysim.accuracy")
E = lazy("mlsysim.engine")
HW = lazy("mlsysim.hardware")
M = lazy("mlsysim.models")
table7 = lazy("mlsysim.table7")

CHAPTER = "6.12"
PARTS = ("A", "B", "C")

DEVICES = catalogue.labels(["H100", "JetsonOrinNX", "iPhone15Pro", "CortexA53Camera"])
FAMILY_COLORS = {
    "legacy CNN": "#8c8c8c",
    "dense CNN": "#1f77b4",
    "mobile": "#2ca02c",
    "EfficientNet": "#9467bd",
    "modern CNN": "#ff7f0e",
    "transformer": "#d62728",
}


def precision_for(device: str) -> str:
    """FP16 where the device lists it, else the precision its datasheet quotes (INT8 on the A53)."""
    dev = HW.Hardware.get(device)
    return "fp16" if "fp16" in dev.compute.precisions else dev.compute.quoted_precision


# ---------------------------------------------------------------------------------------------
# Part A: the efficiency frontier (Figure 1) and the cheapest model that clears a bar
# ---------------------------------------------------------------------------------------------

PRED_A = Prediction(
    question=(
        "On Figure 1, MobileNetV2 ×0.75 matches ResNet-18's ImageNet accuracy (both about 69.8% top-1) "
        "with about 8.7× fewer multiply-accumulates. Served one image at a time on an H100, which "
        "answers first?"
    ),
    options={
        "mnv2_8x": "MobileNetV2 ×0.75, about 8.7× sooner: latency follows MACs",
        "mnv2_less": "MobileNetV2 ×0.75, but by less than 8.7×",
        "resnet18": "ResNet-18",
        "tie": "A tie: at batch 1 both wait on memory bandwidth",
    },
    answer="resnet18",
    reveals=("launch-bound", "half as many kernels"),
    feedback={
        "mnv2_8x": "That is the chapter's Systems Perspective 6.1 misconception, FLOPs equal speed. At batch 1 "
        "an H100 finishes each small kernel in microseconds, so time goes to launching kernels, and "
        "MobileNetV2's 17 inverted-residual blocks launch about twice as many as ResNet-18.",
        "mnv2_less": "Closer, but the ordering flips: the H100 is launch-bound on both networks, and MobileNetV2 "
        "×0.75 launches about twice as many kernels as ResNet-18, so it answers later.",
        "resnet18": "Both are launch-bound at batch 1 on an H100, and ResNet-18 launches about half as many kernels. "
        "Switch the cost axis to published GMACs to see Figure 1 itself, or the device to the Camera-trap "
        "SoC (a Cortex-A53): there compute binds, and Figure 1's MAC ordering comes back.",
        "tie": "Neither is bandwidth-bound: ResNet-18's 11.7 M weights stream from HBM in a few microseconds. "
        "The binding term is the launch overhead (L_lat), where the counts of kernels differ by about 2×.",
    },
)
A_COST = Choice(
    "Cost axis",
    {
        "gmacs": "Published GMACs (Figure 1)",
        "latency": "Engine: batch-1 latency",
        "energy": "Engine: energy per image (TDP × latency)",
        "memory": "Engine: weights + activations",
    },
    "latency",
    inline=False,
)
A_DEVICE = Choice("Device (engine axes)", DEVICES, "H100", inline=False)
A_BAR = Slider("Accuracy bar: ImageNet top-1 (%)", 60, 82, 69.5, step=0.5)
A_FUSED = Toggle("Compiled inference graph (BN folded, activations fused)", False)


@lru_cache(maxsize=64)
def engine_costs(device: str, fused: bool) -> dict[str, tuple[float, float, str, float]]:
    """Batch-1 (latency s, footprint B, bottleneck, energy J) of every zoo entry on ``device``."""
    prec = precision_for(device)
    out = {}
    for k in acc.zoo_entries():
        p = E.Engine.solve(
            acc.imagenet(k).model(), device, batch_size=1, precision=prec, fused=bool(fused)
        )
        out[k] = (p.latency_s, p.memory_footprint_bytes, p.bottleneck, p.energy_per_sample_j)
    return out


def cost_fn(cost: str, device: str, fused: bool):
    """The cost of an ImageNet entry on the chosen axis (engine axes: zoo entries only)."""
    if cost == "gmacs":
        return lambda k: acc.imagenet(k).published_gmacs
    col = {"latency": 0, "memory": 1, "energy": 3}[cost]
    table = engine_costs(device, bool(fused))
    return lambda k: table[k][col]


def _top1(k: str) -> float:
    return acc.imagenet(k).top1


def _fmt_cost(cost: str, x: float) -> str:
    if cost == "gmacs":
        return f"{x:,.3f} GMAC"
    if cost == "energy":
        return f"{x:,.3f} J" if x >= 1 else f"{x * 1e3:,.2f} mJ"
    return fmt_time(x) if cost == "latency" else fmt_bytes(x)


@widget_args
def part_a(cost: str, device: str, bar: float, fused: bool) -> View:
    import plotly.graph_objects as go

    keys = list(acc.IMAGENET) if cost == "gmacs" else acc.zoo_entries()
    f = cost_fn(cost, device, fused)
    front = acc.pareto_front(keys, f, _top1)
    best = acc.cheapest_meeting(keys, float(bar), f, _top1)
    name = device_label(HW.Hardware.get(device))
    axis = {
        "gmacs": "GMACs per image (published, log scale)",
        "latency": f"Batch-1 latency on {name} (s, log scale)",
        "energy": f"Energy per image on {name} at TDP (J, log scale)",
        "memory": f"Weights + activations on {name} (bytes, log scale)",
    }[cost]
    fig = figure(
        "Accuracy against cost: the efficiency frontier",
        axis,
        "ImageNet top-1 (%)",
        log_x=True,
        height=430,
    )
    for fam in acc.FAMILIES:
        ks = [k for k in keys if acc.imagenet(k).family == fam]
        if ks:
            fig.add_trace(
                go.Scatter(
                    x=[f(k) for k in ks],
                    y=[_top1(k) for k in ks],
                    mode="markers+text",
                    text=[acc.imagenet(k).name for k in ks],
                    textposition="top center",
                    marker={"size": 10, "color": FAMILY_COLORS[fam]},
                    name=fam,
                )
            )
    fig.add_trace(
        go.Scatter(
            x=[f(k) for k in front],
            y=[_top1(k) for k in front],
            mode="lines",
            line={"dash": "dash", "color": "#444"},
            name="Pareto front",
        )
    )
    hline(fig, float(bar), f"bar {bar:g}%", dash="dot", position="bottom right")

    r18, mn = "ResNet18", "MobileNetV2_075"
    fr, fm = f(r18), f(mn)
    cards = [
        Card(
            "Cheapest that clears the bar",
            acc.imagenet(best).name if best else "nothing clears it",
            (
                f"{_top1(best):.1f}% at {_fmt_cost(cost, f(best))}"
                if best
                else f"highest is {max(map(_top1, keys)):.1f}%"
            ),
            "ok" if best else "bad",
        ),
        Card(
            "On the front",
            f"{len(front)} of {len(keys)}",
            ", ".join(acc.imagenet(k).name for k in front),
        ),
        Card(
            "ResNet-18 / MobileNetV2 ×0.75",
            fmt_ratio(fr / fm, 2),
            f"cost ratio on this axis ({_fmt_cost(cost, fr)} vs {_fmt_cost(cost, fm)})",
        ),
        Card(
            "ResNet-50: new recipe",
            f"{acc.imagenet('ResNet50_V2').top1:.1f}%",
            f"vs {acc.imagenet('ResNet50').top1:.1f}% at identical cost (training, not architecture)",
        ),
    ]
    if cost == "gmacs":
        where = (
            "On published GMACs (Figure 1) the mobile and EfficientNet families lead the front. "
            "ResNet-50 with its original recipe sits below it (its 2021 recipe reaches it at the same "
            "cost), and so does ViT-B/16 trained on ImageNet alone, as in the chapter; the ViT-B/16 on "
            "the front is the 384-pixel one pretrained on SWAG's billions of images."
        )
    elif cost == "memory":
        where = (
            f"On weights + activations at batch 1 ({precision_for(device).upper()}) the device does not "
            "enter: the bytes depend on the model and its precision alone, and a change of precision scales "
            "every model alike, so every device shows the same front: "
            f"{', '.join(acc.imagenet(k).name for k in front)}."
        )
    else:
        binds = {v[2] for k, v in engine_costs(device, bool(fused)).items()}
        where = (
            f"On the engine's {cost} at batch 1 on the {name} ({precision_for(device).upper()}, "
            f"{'compiled' if fused else 'eager'}), "
            + (
                f"every model is {bound_phrase(next(iter(binds)))}; "
                if len(binds) == 1
                else f"the binding terms are {', '.join(sorted(binds)).lower()}; "
            )
            + f"the front is {', '.join(acc.imagenet(k).name for k in front)}."
        )
    summary = (
        f"{where} For a {bar:g}% bar the cheapest choice is "
        f"{acc.imagenet(best).name if best else 'out of reach'}. D·A·M: the data fixes what accuracy is "
        "possible (ResNet-50's newer recipe gains 4.7 points at the same cost), the algorithm sets the MACs, "
        + (
            "and the machine, through the precision it runs, sets the bytes per value but not the order of the models."
            if cost == "memory"
            else "and the machine decides which cost binds, so the front can move when the device changes."
        )
    )
    e50 = acc.imagenet("ResNet50")
    peek = [
        "front = models no other model beats on both axes (lower cost AND higher top-1)",
        "choice = argmin cost  subject to  top-1 >= bar      (the cheapest such model is always on the front)",
        f"Figure 1 x-axis: published GMACs; ResNet-50 {e50.published_gmacs} = mlsysim's "
        f"{e50.model().macs():,} MACs / 1e9",
        f"engine axis: Engine.solve(model, {device!r}, batch_size=1, precision={precision_for(device)!r}, fused={bool(fused)})",
        "latency = Σ_layers max(FLOPs/(peak·η), bytes/BW) + kernels × dispatch tax",
        f"top-1 sources: {e50.weights} ({e50.source.url}); MobileNetV2 widths: TF-slim checkpoint table",
    ]
    return View(fig, cards, summary, "Pareto front and selection rule", peek)


# ---------------------------------------------------------------------------------------------
# Part B: the iron law written out, and the engine's refinement
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "GPT-2 XL on an H100 (FP16, batch 1, eager). For a 1,024-token prefill, the serialized iron law, "
        "which adds the memory, compute and launch times, comes out about 1.6× the roofline estimate, which "
        "overlaps memory with compute perfectly (both with the launch time added). For decoding one token with 1,024 cached, how far apart are "
        "the two estimates?"
    ),
    options={
        "same": "About as far apart (about 1.6×)",
        "wider": "Further apart (more than 1.6×)",
        "closer": "Closer, but still clearly apart (about 1.3×)",
        "close": "Within 1% of each other",
    },
    answer="close",
    reveals=("within 1% of each other",),
    feedback={
        "same": "The gap is not a fixed property of the model: overlap can hide at most the smaller of the two "
        "terms. In the prefill, compute (7.09 ms) and memory (5.76 ms) are comparable, so overlap saves a "
        "lot; one decoded token computes for 7 µs against 1.03 ms of memory, and the estimates differ by 0.2%.",
        "wider": "That is the misconception that overlap helps memory-bound work most. Overlap hides only the "
        "smaller term, and one token's compute (7 µs) is under 1% of its memory time (1.03 ms): the iron law "
        "and the roofline differ by 0.2%, and 2.9 ms of launches come on top of both.",
        "closer": "Closer still: one token's compute (7 µs) is under 1% of its memory time (1.03 ms), so there "
        "is almost nothing to overlap, and the two estimates differ by 0.2%.",
        "close": "Overlap can hide at most the smaller of the two terms. One token's compute (7 µs) is under 1% "
        "of its memory time (1.03 ms), and 2.9 ms of launches come on top, so the serialized sum and the "
        "perfect overlap differ by 0.2%. The engine's per-layer max always lies between the two; it matters "
        "when layers straddle the ridge, as in the prefill. Switch the workload to decode and compare the bars.",
    },
)
B_MODEL = Choice(
    "Workload",
    {
        "ResNet50": "ResNet-50 (one image)",
        "MobileNetV2": "MobileNetV2 (one image)",
        "GPT2": "GPT-2 XL decode (one token, 1,024 cached)",
        "GPT2_prefill": "GPT-2 XL prefill (1,024 tokens)",
    },
    "GPT2_prefill",  # layers on both sides of the ridge: the three estimates visibly differ
    inline=False,
)
B_DEVICE = Choice("Device", catalogue.labels(["H100", "A100", "JetsonOrinNX"]), "H100")
B_BATCH = Slider("Batch size", 1, 256, 1)
B_FUSED = Toggle("Compiled inference graph (fewer launches)", False)

GPT2_CONTEXT = 1024


def iron_law_profile(model: str, device: str, batch: int, fused: bool):
    """The engine's profile of the chosen workload (FP16)."""
    if model.startswith("GPT2"):
        phase = "prefill" if model.endswith("prefill") else "decode"
        return E.Engine.solve(
            M.Models.GPT2,
            device,
            batch_size=int(batch),
            precision="fp16",
            phase=phase,
            seq_len=GPT2_CONTEXT,
            fused=bool(fused),
        )
    return E.Engine.solve(
        M.Models.get(model), device, batch_size=int(batch), precision="fp16", fused=bool(fused)
    )


def weight_read_s(device: str) -> float:
    """The chapter's decode floor (L1117): GPT-2 XL's FP16 weights / HBM bandwidth."""
    return M.Models.GPT2.weight_bytes("fp16") / HW.Hardware.get(device).memory.bandwidth.m_as("B/s")


@widget_args
def part_b(model: str, device: str, batch: int, fused: bool) -> View:
    import plotly.graph_objects as go

    p = iron_law_profile(model, device, batch, fused)
    c, m, d = p.latency_compute_s, p.latency_memory_s, p.latency_dispatch_s
    fig = figure(
        f"Three estimates of one step: {p.model_name}, batch {p.batch_size}, {device_label(p.device)}",
        "Estimate",
        "Time (s)",
    )
    names = ["(1) iron law: sum", "(2) engine: Σ per-layer max", "(3) roofline: max of sums"]
    overlap = p.latency_s - d
    fig.add_trace(go.Bar(x=names, y=[m, 0, 0], name="D_vol / BW"))
    fig.add_trace(go.Bar(x=names, y=[c, 0, 0], name="O / (R_peak·η)"))
    fig.add_trace(go.Bar(x=names, y=[0, overlap, 0], name="larger term, per layer"))
    fig.add_trace(go.Bar(x=names, y=[0, 0, max(c, m)], name="larger of the two sums"))
    fig.add_trace(go.Bar(x=names, y=[d, d, d], name="L_lat: kernels × dispatch tax"))
    fig.update_layout(barmode="stack")
    n_k = round(d / p.device.dispatch_tax.m_as("s"))
    cards = [
        Card("(1) Iron law", fmt_time(p.iron_law_s), "no overlap: upper bound"),
        Card(
            "(2) Engine",
            fmt_time(p.latency_s),
            f"{p.bottleneck.lower()} is the largest share"
            if p.feasible
            else f"only if it fit ({p.bottleneck.lower()} the largest share)",
            "" if p.feasible else "bad",
            fact=fact(
                "latency",
                p.latency_s,
                model=model.removesuffix("_prefill"),
                device=p.device.key,
                batch=p.batch_size,
                precision=p.precision,
                efficiency=p.efficiency,
                phase=p.phase,
                seq_len=p.seq_len if model.startswith("GPT2") else None,
                fused=bool(fused),
            ),
        ),
        Card("(3) Roofline + L_lat", fmt_time(p.roofline_s), "perfect overlap, plus the launches"),
        Card(
            "L_lat", fmt_time(d), f"{n_k:,} kernels × {fmt_time(p.device.dispatch_tax.m_as('s'))}"
        ),
        Card(
            "Fits in memory",
            "yes" if p.feasible else "does not fit",
            f"{fmt_bytes(p.memory_footprint_bytes)} of {fmt_bytes(p.capacity_bytes)}"
            if p.feasible
            else f"over by {fmt_bytes(p.over.m_as('B'))}: the times are what it would take if it fit",
            "ok" if p.feasible else "bad",
        ),
    ]
    gpt2 = model.startswith("GPT2")
    if gpt2:  # the decode floor the chapter quotes: every weight read once per token
        cards.append(
            Card(
                "GPT-2 XL weight read",
                fmt_time(weight_read_s(device)),
                "the chapter's ≈0.9 ms is this on an H100",
            )
        )
    gap = (p.iron_law_s - p.latency_s) / p.iron_law_s if p.iron_law_s else 0.0
    fits = (
        ""
        if p.feasible
        else f"This batch does not fit the {device_label(p.device)}: it needs "
        f"{fmt_bytes(p.memory_footprint_bytes)}, {fmt_bytes(p.over.m_as('B'))} more than its "
        f"{fmt_bytes(p.capacity_bytes)}, so it never runs; the times shown are what it would take if it fit. "
    )
    summary = fits + (
        f"The serialized iron law gives {fmt_time(p.iron_law_s)}; the engine, taking each layer's larger "
        f"term, gives {fmt_time(p.latency_s)} ({f'{gap:.0%} less' if gap >= 0.005 else 'less than 1% less'}), and the whole-model roofline "
        f"{fmt_time(p.roofline_s)} (with the launches added, since a roofline drawing leaves them out). "
        "Launch overhead (L_lat) is "
        f"{d / p.latency_s:.0%} of the engine's time at batch {p.batch_size}"
        + (
            ": here it decides the answer."
            if d >= max(c, m)
            else "; more work per launch (a larger batch, a longer prompt) amortizes it."
        )
    )
    peek = [
        "T = D_vol/BW + O/(R_peak·η) + L_lat                       (the chapter's serialized iron law)",
        f"  = {p.bytes_moved:,.0f} B / {p.device.memory.bandwidth:~P} + {p.flops:,.0f} FLOP / "
        f"({p.device.compute.peak(p.precision):~P} × {p.efficiency}) + {fmt_time(d)}",
        f"  = {fmt_time(m)} + {fmt_time(c)} + {fmt_time(d)} = {fmt_time(p.iron_law_s)}",
        "engine: T = Σ_layers max(FLOPsᵢ/(R_peak·η), bytesᵢ/BW) + kernels × tax    (Table 7 caption's max, per layer)",
        f"  = {fmt_time(overlap)} + {fmt_time(d)} = {fmt_time(p.latency_s)}",
        f"roofline: max({fmt_time(m)}, {fmt_time(c)}) + {fmt_time(d)} = {fmt_time(p.roofline_s)}",
    ]
    if gpt2:
        peek.append(
            f"GPT-2 XL decode floor: {M.Models.GPT2.weight_bytes('fp16'):,} B / {HW.Hardware.get(device).memory.bandwidth:~P} "
            f"= {fmt_time(weight_read_s(device))}"
        )
    what = (
        f"{p.model_name} {p.phase} at batch {p.batch_size} ({GPT2_CONTEXT:,} tokens)"
        if gpt2
        else f"{p.model_name} at batch {p.batch_size}"
    ) + f", {p.precision.upper()},"
    return View(
        fig,
        cards,
        summary,
        "Iron law, roofline and engine",
        peek,
        alert=feasibility(p.memory_footprint_bytes, p.device, what),
    )


# ---------------------------------------------------------------------------------------------
# Part C: Table 7 as one calculator
# ---------------------------------------------------------------------------------------------

PRED_C = Prediction(
    question=(
        "Table 7 gives a transformer block 4Sd² + 2S²d + 2Sd·d_ff multiply-accumulates (MACs inside its "
        "matrix products) and 4d² + 2d·d_ff weights. Against an exact count of torch's "
        "nn.TransformerEncoderLayer, which of the two formulas is off?"
    ),
    options={
        "both": "Both, by 10% or more: the formulas drop too much",
        "macs": "The MACs: the S² attention term double-counts the score products",
        "weights": "Only the weights, by about 1/d: the MAC formula is exact",
        "neither": "Neither: both are exact",
    },
    answer="weights",
    reveals=("MAC formula is exact",),
    feedback={
        "both": "Biases and norm scales are O(d) next to O(d²) weights: about 1/d, 0.14% at d = 768 and 0.07% at "
        "GPT-2 XL's 1,600. The MAC count is exact, because every matmul is in the formula.",
        "macs": "2S²d is exact: S² scores of d MACs each (QKᵀ) plus S² weights times d values each (PV). Every "
        "matrix-product MAC is in 4Sd² + 2S²d + 2Sd·d_ff; softmax and the norms are elementwise work, "
        "counted apart.",
        "weights": "The MAC formula names every matmul (QKVO, the two attention products, the FFN), so it is "
        "exact; the weight formula omits biases and LayerNorm scales, 9d + d_ff values next to "
        "12d², 13/(12d) or about 1/d: 1.7% at d = 64, 0.07% at GPT-2 XL's width of 1,600.",
        "neither": "The weight formula leaves out 9d + d_ff biases and norm parameters: small, but not zero.",
    },
)
C_BLOCK = Choice("Building block (Table 7 row)", table7.BLOCKS, "transformer", inline=False)
C_WIDTH = Slider("Width d (C_in = C_out for convolutions)", 64, 4096, 1600, step=64)
C_LENGTH = Slider("Length: S tokens (H = W for convolutions)", 1, 4096, 512)
C_ROWS = Slider("Embedding rows (thousands)", 1, 100_000, 1_000)
#: Feature-map sides above this are clamped for the convolution rows (and the summary says so).
CONV_SIDE_MAX = 512

WHY = {
    "dense": "the bias vector: d_out values the formula (weights only) leaves out",
    "conv": "the C_out biases; with 'same' padding the output is H × W, so the MAC formula is exact",
    "dwsep": "nothing: torch's depthwise + pointwise pair without bias is the formula",
    "rnn": "torch keeps two bias vectors (b_ih and b_hh) where one would do",
    "lstm": "four gates' biases (2 × 4d); the ×4 on weights and MACs is exact",
    "transformer": "biases and the two LayerNorms (9d + d_ff values); the MAC formula covers every matmul",
    "decode": "'about one MAC per weight' misses the attention over the cache (+2·S·d per layer) and counts "
    "weights that do no MACs (the learned positions, biases and norms); the tied head's vocab × d MACs "
    "match the token-embedding weights one for one",
    "embedding": "nothing: a lookup copies rows (zero MACs) and the table is rows × width",
}


@widget_args
def part_c(block: str, width: int, length: int, rows: int) -> View:
    import plotly.graph_objects as go

    w, s, n = int(width), int(length), int(rows) * 1000
    limit = (
        CONV_SIDE_MAX
        if block in ("conv", "dwsep")
        else table7.DECODE_CONTEXT
        if block == "decode"
        else s
    )
    capped = s > limit
    s = min(s, limit)
    ch, ex = table7.chapter(block, w, s, n), table7.exact(block, w, s, n)
    fig = figure(
        f"Table 7, {table7.BLOCKS[block]}: chapter formula vs exact count",
        "Quantity",
        "Count or bytes (log scale)",
        log_y=True,
    )
    labels = ["weights", "MACs per example", "bytes (FP16)"]
    fig.add_trace(
        go.Bar(
            x=labels,
            y=[max(ch.params, 1), max(ch.macs, 1), max(ch.bytes, 1)],
            name="chapter formula",
        )
    )
    fig.add_trace(
        go.Bar(
            x=labels, y=[max(ex.params, 1), max(ex.macs, 1), max(ex.bytes, 1)], name="exact (core)"
        )
    )
    fig.update_layout(barmode="group")

    def dev(a: int, b: int) -> str:
        return "0 in both" if a == b == 0 else f"{(b - a) / a:+.2%}" if a else "n/a"

    def departs(a: int, b: int, what: str) -> str:
        if a == b:
            return f"matches it in {what}" + (" (none in either)" if a == 0 else "")
        return f"departs from it by {dev(a, b)} in {what}"

    cards = [
        # three decimals: a 5% gap between 1.66 and 1.58 billion must not round to "1.6 vs 1.6"
        Card(
            "Weights",
            fmt_count(ex.params, 3),
            f"formula {fmt_count(ch.params, 3)} ({dev(ch.params, ex.params)})",
        ),
        Card(
            "MACs",
            fmt_count(ex.macs, 3),
            f"formula {fmt_count(ch.macs, 3)} ({dev(ch.macs, ex.macs)})",
        ),
        Card("Bytes", fmt_bytes(ex.bytes), f"{ex.what}; formula {fmt_bytes(ch.bytes)}"),
    ]
    summary = (
        f"{table7.BLOCKS[block]} at width {w:,} and "
        + (f"{n:,} rows, {counted(s, 'lookup')}" if block == "embedding" else f"length {s:,}")
        + ": against the chapter's formula the exact "
        f"count {departs(ch.params, ex.params, 'weights')} and {departs(ch.macs, ex.macs, 'MACs')}. Why: "
        f"{WHY[block]}."
        + (f" (Length clamped to {limit:,}: the largest this row takes.)" if capped else "")
    )
    forms = {
        "dense": "weights d_in·d_out; MACs d_in·d_out",
        "conv": "weights K²·C_in·C_out; MACs H·W·K²·C_in·C_out; activations H·W·C_out",
        "dwsep": "weights K²·C_in + C_in·C_out; MACs H·W·(K²·C_in + C_in·C_out)",
        "rnn": "weights d² + d·d_in; MACs (d² + d·d_in) per step × S steps in order",
        "lstm": "4 × (d² + d·d_in) weights and MACs per step; state 2d",
        "transformer": "weights 4d² + 2d·d_ff; MACs 4Sd² + 2S²d + 2Sd·d_ff; scores S² per head",
        "decode": f"MACs ≈ weights; bytes = weights + KV 2·N_L·d per token (N_L = {table7.DECODE_LAYERS}, GPT-2 layout)",
        "embedding": "weights rows × width; MACs ≈ 0; bytes rows × width × bytes/value",
    }
    peek = [
        f"Table 7: {forms[block]}",
        f"fixed: K = {table7.KERNEL}, 'same' padding; d_ff = {table7.FF_MULT}d; d_head = {table7.HEAD_DIM}",
        f"chapter: weights {ch.params:,}  MACs {ch.macs:,}  bytes {ch.bytes:,}",
        f"exact:   weights {ex.params:,}  MACs {ex.macs:,}  bytes {ex.bytes:,}",
        "exact counts from mlsysim.layers (torch's parameter convention); 1 MAC = 2 FLOPs",
    ]
    return View(fig, cards, summary, "Table 7 formula vs exact", peek)
