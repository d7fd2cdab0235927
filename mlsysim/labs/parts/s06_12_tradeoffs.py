"""Trade-offs: accuracy against cost, the iron law and its refinement, Table 7 as one calculator.

Part A is the chapter's Figure 1 (ImageNet top-1 against GMACs) with the D·A·M framing: the
published accuracies of ``mlsysim.accuracy`` against a cost the student picks (published GMACs,
or the engine's batch-1 latency or memory on a device), the Pareto front, and the cheapest model
that clears an accuracy bar. Part B writes out the serialized iron law on the chapter's numbers
and sets the engine's per-layer max(compute, memory) + launches beside it. Part C evaluates any
row of Table 7 (``mlsysim.table7``) beside the exact count from the layer models. Part D is War
Story 6.1: the Netflix Prize's published accuracy against the serving cost of its blends
(``mlsysim.ensemble``), the shipped pair against the prize-winning blend. Part E (longer
edition) prices AlexNet's training on the hardware of 2012 (``mlsysim.history``): the work, the
days on a Xeon, one and two GTX 580s and an H100, and the training state against a 3 GB card.

Every number comes from ``mlsysim``; this module picks inputs, draws and writes the sentence.
``tests/test_s06_12_tradeoffs.py`` asserts the chapter's numbers these parts reproduce.
"""

from __future__ import annotations

from functools import cache, lru_cache

from ... import catalogue
from ..._lazy import lazy
from ..charts import device_label, figure, hline, time_unit, vline
from ..components import (
    Card,
    Choice,
    Deferred,
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
from ..style import COLORS
from ..vocab import bound_phrase, conditions

acc = lazy("mlsysim.accuracy")
pub = lazy("mlsysim.published")
E = lazy("mlsysim.engine")
HW = lazy("mlsysim.hardware")
M = lazy("mlsysim.models")
table7 = lazy("mlsysim.table7")
ens = lazy("mlsysim.ensemble")
hist = lazy("mlsysim.history")

CHAPTER = "6.12"
PARTS = ("A", "B", "C", "D", "E")

DEVICES = catalogue.labels(["H100", "JetsonOrinNX", "iPhone15Pro", "CortexA53Camera"])
#: The Pareto front's line: a grey that reads on the light and the dark page (at least 3:1)
PARETO_COLOR = "#7c8799"
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
        "On Figure 1 the cheapest model that clears a 69.5% top-1 bar is MobileNetV2 ×0.75 (0.21 GMACs, "
        "against ResNet-18's 1.8 at the same accuracy). Rank the models instead by batch-1 latency, "
        "eager, in the precision each device quotes, at each device's planning launch cost (5 µs per "
        "kernel on the H100, 20 µs on the Jetson and the camera SoC, 50 µs on the iPhone). On which of "
        "Part A's four devices is MobileNetV2 ×0.75 still the cheapest?"
    ),
    options={
        "all": "All four: latency follows multiply-accumulates",
        "camera": "Only the camera SoC: compute binds only there",
        "edge": "The three edge devices: only the H100 waits on launches",
        "none": "None: launches bind every device at batch 1",
    },
    answer="camera",
    asks="regime",
    misconceptions={
        "all": (
            "time follows MACs",
            "Latency is proportional to the multiply-accumulates a model does",
        ),
        "edge": (
            "only data-center GPUs are launch-bound",
            "An edge chip is slow enough that its arithmetic, not its launches, sets the time",
        ),
        "none": (
            "launches bind every device at batch 1",
            "Kernel launches dominate batch-1 inference whatever the chip",
        ),
    },
    reveals=("compute binds only there", "only on the camera SoC"),
    feedback={
        "all": "That is the chapter's Systems Perspective 6.1 misconception, FLOPs equal speed. On the H100, "
        "the Jetson and the iPhone both networks are launch-bound, and MobileNetV2 ×0.75 launches about "
        "twice as many kernels as ResNet-18 (its 17 inverted-residual blocks), so ResNet-18 answers first "
        "there: 359 µs against 777 µs on the H100.",
        "camera": "Only the camera's Cortex-A53 (2 GOPS INT8 sustained) is slow enough for compute to bind: "
        "1.82 s against 219 ms, about Figure 1's MAC ratio. On the H100 (359 µs against 777 µs) and the "
        "Jetson (2.17 ms against 3.75 ms) both networks are launch-bound; on the iPhone (7.30 ms against "
        "9.10 ms) MobileNetV2 ×0.75 is, while ResNet-18 splits about evenly between launches and arithmetic. "
        "Either way ResNet-18 launches about half as many kernels. Switch the device and read the "
        "cheapest-model card.",
        "edge": "The Jetson and the iPhone are slower than the H100, but their launches cost more too (20 and "
        "50 µs): launches stay the larger share there (on the iPhone ResNet-18 splits about evenly between "
        "launches and arithmetic), and ResNet-18, with about half the kernels, answers first (2.17 ms against "
        "3.75 ms on the Jetson, 7.30 ms against 9.10 ms on the iPhone).",
        "none": "On the camera's Cortex-A53 each layer's arithmetic takes milliseconds at 2 GOPS, so the "
        "launches are a rounding error and compute binds: MobileNetV2 ×0.75 answers in 219 ms, ResNet-18 "
        "in 1.82 s. Launch-bound is a ratio of the device's speed to its launch cost, not a law of batch 1.",
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


@cache
def exact_gmacs(key: str) -> float:
    """mlsysim's exact count of an entry's network (built layer by layer; torch FlopCounterMode's
    convention halved), in GMACs per image at the entry's resolution."""
    return acc.imagenet(key).exact_model().macs() / 1e9


def exact_vs_published() -> str:
    """Where Figure 1's exact counts and its published ones differ: a sentence."""
    gaps = {k: exact_gmacs(k) / acc.imagenet(k).published_gmacs - 1 for k in acc.exact_entries()}
    tv = [k for k in gaps if acc.imagenet(k).weights.startswith("torchvision")]
    other = [k for k in gaps if k not in tv]
    worst_tv = max(tv, key=lambda k: abs(gaps[k]))
    missing = [acc.imagenet(k).name for k in acc.IMAGENET if k not in gaps]
    out = (
        f"Rings mark mlsysim's exact counts: on all {len(tv)} torchvision points they fall inside "
        f"the published 3-decimal rounding (the largest gap, {gaps[worst_tv]:+.2%}, on "
        f"{acc.imagenet(worst_tv).name})"
    )
    if other:
        worst = max(other, key=lambda k: abs(gaps[k]))
        out += (
            f"; the TF-slim MobileNetV2 widths, published in whole MMACs, differ by up to "
            f"{gaps[worst]:+.1%} ({acc.imagenet(worst).name})"
        )
    if missing:
        out += f"; {', '.join(missing)} has no mlsysim builder and is plotted as published"
    return out + "."


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
    # a time or an energy on the axis in the unit the cards give it (ms and µs, mJ), chosen by
    # the largest value as they are: the chart's values are ``f(k) * scale``
    scale, unit = 1.0, ""
    if cost == "latency":
        scale, unit = time_unit([f(k) for k in keys])
    elif cost == "energy":
        scale, unit = (1.0, "J") if max(f(k) for k in keys) >= 1 else (1e3, "mJ")
    axis = {
        "gmacs": "GMACs per image (published, log scale)",
        "latency": f"Batch-1 latency on {name} ({unit}, log scale)",
        "energy": f"Energy per image on {name} at TDP ({unit}, log scale)",
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
                    x=[f(k) * scale for k in ks],
                    y=[_top1(k) for k in ks],
                    mode="markers+text",
                    text=[acc.imagenet(k).name for k in ks],
                    textposition="top center",
                    marker={"size": 10, "color": FAMILY_COLORS[fam]},
                    name=fam,
                )
            )
    if cost == "gmacs":  # the exact count beside each published one
        exact = [k for k in acc.exact_entries() if k in keys]
        fig.add_trace(
            go.Scatter(
                x=[exact_gmacs(k) for k in exact],
                y=[_top1(k) for k in exact],
                mode="markers",
                # mid-grey: legible on the light and the dark page
                marker={
                    "size": 15,
                    "symbol": "circle-open",
                    "color": COLORS["GreyLine"],
                    "line": {"width": 2},
                },
                name="mlsysim exact count",
                hovertext=[
                    f"{acc.imagenet(k).name}: published {f(k):,.3f} GMACs, mlsysim "
                    f"{exact_gmacs(k):,.4f} ({exact_gmacs(k) / f(k) - 1:+.2%})"
                    for k in exact
                ],
                hoverinfo="text",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[f(k) * scale for k in front],
            y=[_top1(k) for k in front],
            mode="lines",
            # 3.6:1 on white and 4.9:1 on the dark page (#444 was 1.8:1 there)
            line={"dash": "dash", "color": PARETO_COLOR, "width": 2},
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
            "the front is the 384-pixel one pretrained on SWAG's billions of images. "
            + exact_vs_published()
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
            f"On the engine's {cost} ({conditions(precision_for(device), bool(fused), 1, name)}), "
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
    e50, ealex = acc.imagenet("ResNet50"), acc.imagenet("AlexNet")
    won, second = pub.ALEXNET_ILSVRC2012_TOP5
    peek = [
        "front = models no other model beats on both axes (lower cost AND higher top-1)",
        "choice = argmin cost  subject to  top-1 >= bar      (the cheapest such model is always on the front)",
        f"Figure 1 x-axis: published GMACs; ResNet-50 {e50.published_gmacs} = mlsysim's "
        f"{e50.model().macs():,} MACs / 1e9",
        "rings (Figure 1 axis): entry.exact_model().macs() / 1e9, every network mlsysim builds "
        "(mlsysim.vision: AlexNet, VGG, GoogLeNet, Inception, MobileNetV3, EfficientNet, ConvNeXt, "
        "Swin, ViT)",
        f"engine axis: Engine.solve(model, {device!r}, batch_size=1, precision={precision_for(device)!r}, fused={bool(fused)})",
        "latency = Σ_layers max(FLOPs/(peak·η), bytes/BW) + kernels × dispatch tax",
        f"top-1 sources: {e50.weights} ({e50.source.url}); MobileNetV2 widths: TF-slim checkpoint table",
        f"AlexNet, Figure 1's 2012 point: {ealex.exact_model().macs():,} MACs, torchvision's retrained single "
        f"model {ealex.top1:.1f}% top-1; the 2012 entry, an ensemble of seven CNNs, won ILSVRC-2012 "
        f"at {won.value:g}% top-5 error against {second.value:g}% for the runner-up ({won.citation}, "
        f"{won.url})",
    ]
    return View(fig, cards, summary, "Pareto front and selection rule", peek)


# ---------------------------------------------------------------------------------------------
# Part B: the iron law written out, and the engine's refinement
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "GPT-2 XL on an H100 (FP16, batch 1, eager kernels at the engine's 5 µs per launch). For a "
        "1,024-token prefill, the serialized iron law, "
        "which adds the memory, compute and launch times, comes out about 1.6× the roofline estimate, which "
        "overlaps memory with compute perfectly (both with the launch time added). For decoding one token with 1,024 cached, how far apart are "
        "the two estimates?"
    ),
    options={
        "same": "About as far apart (about 1.6×)",
        "wider": "Further apart (more than 1.6×)",
        "closer": "Closer, but still clearly apart (about 1.3×)",
        "close": "Nearly equal, within a rounding error",
    },
    answer="close",
    asks="direction",
    misconceptions={
        "same": (
            "the gap is a property of the model",
            "How much overlap saves is fixed by the model, whatever the phase",
        ),
        "wider": (
            "overlap helps memory-bound work most",
            "The more a step waits on memory, the more overlapping it with compute saves",
        ),
        "closer": (
            "decode still has compute to hide",
            "One token's arithmetic is a sizeable share of its memory time, so overlap still saves some",
        ),
    },
    reveals=("within a rounding error",),
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
        "when layers straddle the ridge, as in the prefill. The launch cost moves the prefill's 1.6× (1.8× with "
        "free launches, 1.3× at 20 µs) but not this: decode stays within 1% across that range. Switch the "
        "workload to decode and compare the bars.",
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
    # the axis in the unit the cards give the largest estimate in (ms, not 0.0123 s)
    k, unit = time_unit([p.iron_law_s, p.latency_s, p.roofline_s])
    fig = figure(
        f"Three estimates of one step: {p.model_name}, batch {p.batch_size}, {device_label(p.device)}",
        "Estimate",
        f"Time ({unit})",
    )
    names = ["(1) iron law: sum", "(2) engine: Σ per-layer max", "(3) roofline: max of sums"]
    overlap = p.latency_s - d
    fig.add_trace(go.Bar(x=names, y=[m * k, 0, 0], name="D_vol / BW"))
    fig.add_trace(go.Bar(x=names, y=[c * k, 0, 0], name="O / (R_peak·η)"))
    fig.add_trace(go.Bar(x=names, y=[0, overlap * k, 0], name="larger term, per layer"))
    fig.add_trace(go.Bar(x=names, y=[0, 0, max(c, m) * k], name="larger of the two sums"))
    fig.add_trace(go.Bar(x=names, y=[d * k, d * k, d * k], name="L_lat: kernels × dispatch tax"))
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
    where = conditions(
        p.precision, bool(fused), p.batch_size, device_label(p.device), p.phase if gpt2 else None
    )
    summary = fits + (
        f"{p.model_name} ({where}): the serialized iron law gives {fmt_time(p.iron_law_s)}; the engine, "
        "taking each layer's larger "
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
        "Table 7 prices one decode step at about one multiply-accumulate (MAC) per weight. Take GPT-2 XL's "
        "layout (width 1,600, 48 layers) and let the cache grow from 1 to 1,024 tokens. Against that "
        "formula, the exact MAC count of one step…"
    ),
    options={
        "flat": "Stays within 1%: one MAC per weight, whatever the cache",
        "grows": "Climbs steadily above it: the new token attends to every cached one",
        "quad": "Climbs as the square of the cache: every pair of tokens is scored",
        "below": "Falls below it: the cache spares the attention its MACs",
    },
    answer="grows",
    asks="direction",
    misconceptions={
        "flat": (
            "decode is one MAC per weight",
            "A decode step's arithmetic is its weights, whatever the context",
        ),
        "quad": (
            "decode rescores every pair",
            "Each decode step recomputes attention over every pair of tokens, as a prefill does",
        ),
        "below": (
            "the cache saves the attention work",
            "Cached keys and values mean the new token's attention costs nothing",
        ),
    },
    reveals=("climbs steadily", "2·S·d per layer"),
    feedback={
        "flat": "That holds for the first token only (0.16% under: the learned positions, biases and norms are "
        "weights that do no MACs). Each new token's query meets every cached key and every cached value: 2·S·d MACs per "
        "layer, so at 1,024 tokens the step does 9.9% more than one MAC per weight.",
        "grows": "The new token's query is multiplied by all S cached keys, and its S scores by all S cached "
        "values: 2·S·d MACs per layer, linear in S. From 0.16% under the formula at 1 token (the learned "
        "positions, biases and norms do no MACs) the exact count climbs to 9.9% over at 1,024, 1.71 against "
        "1.56 billion MACs. The decode row in the calculator shows it; slide the length.",
        "quad": "Only the prefill scores every pair (S² per head). A decode step scores one query against S "
        "cached keys, which is what the cache is for: 2·S·d MACs per layer, linear in S, 9.9% over the "
        "formula at 1,024 tokens, not a multiple of it.",
        "below": "The cache spares recomputing the old tokens' keys and values, not the new token's attention "
        "over them: 2·S·d MACs per layer that the formula leaves out, 9.9% over it at 1,024 tokens.",
    },
)
C_BLOCK = Choice("Building block (Table 7 row)", table7.BLOCKS, "decode", inline=False)
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


# ---------------------------------------------------------------------------------------------
# Part D: War Story 6.1, the ensemble Netflix did not ship
# ---------------------------------------------------------------------------------------------

#: factors per member the question prices (any value gives the same ratios)
D_FACTORS_DEFAULT = 50


def netflix(factors: int = D_FACTORS_DEFAULT) -> dict:
    """The Prize's points with their serving cost: improvement over Cinematch (quiz set) and
    per-prediction MACs of each blend, and the marginal gains between them."""
    st = {s.key: s for s in ens.stages()}
    base = pub.NETFLIX_CINEMATCH_RMSE["quiz"].value
    gain = {k: ens.improvement_pct(s.rmse, base) for k, s in st.items()}
    cost = {k: ens.serve(s.members, factors).macs for k, s in st.items()}
    second = (gain["pair"] - gain["svd"]) / (cost["pair"] - cost["svd"])
    rest = (gain["progress"] - gain["pair"]) / (cost["progress"] - cost["pair"])
    return {
        "stages": st,
        "gain": gain,
        "cost": cost,
        "rest_members": st["progress"].members - st["pair"].members,
        "cost_ratio": cost["progress"] / cost["pair"],
        "pair_share": gain["pair"] / gain["progress"],
        "per_mac_ratio": second / rest,
    }


def _pred_d_feedback() -> dict[str, str]:
    n = netflix()
    g, r = n["gain"], n["cost_ratio"]
    tail = g["progress"] - g["pair"]
    pair = (
        f"the pair Netflix shipped is {g['pair']:.2f}% better than Cinematch; the 107-model blend "
        f"{g['progress']:.2f}%: the other {n['rest_members']} models add {tail:.2f} points for "
        f"{fmt_ratio(r)} the serving cost per prediction."
    )
    cap = pair[0].upper() + pair[1:]
    return {
        "front": f"{cap} The SVD alone took {g['svd']:.2f} points, the RBM {g['pair'] - g['svd']:.2f} "
        f"more; per MAC the second model bought {n['per_mac_ratio']:.0f}× the accuracy the last "
        f"{n['rest_members']} did. The Grand Prize's hundreds of models reached 10.06% (test set), "
        "and Netflix judged that gain not worth the engineering effort.",
        "even": f"Cost grows with the member count, accuracy does not: {pair} Per MAC the second "
        f"model bought {n['per_mac_ratio']:.0f}× the accuracy the last {n['rest_members']} did.",
        "free": "Training is paid once, serving on every prediction: each member runs for every "
        f"(user, movie) pair scored. {cap} Netflix put two of the 107 into production.",
        "back": "A leaderboard gain is an offline metric; the cost is paid in production. The last "
        f"models buy the least: {pair} Netflix measured the Grand Prize's further gains offline and "
        "did not ship them.",
    }


PRED_D = Prediction(
    question=(
        "Netflix shipped two of the 107 models blended for the 2007 Progress Prize: matrix "
        "factorization (SVD) alone is 6.3% better than its old Cinematch, SVD blended with an RBM "
        "7.5%. Price every member as one matrix factorization of the same size, plus one blend "
        "weight each, run for every prediction. Across the 107-model blend, how is the accuracy "
        "gained per unit of serving cost spread?"
    ),
    options={
        "front": "Front-loaded: the other 105 models multiply the pair's cost by 53× for about a point",
        "even": "Even: cost and accuracy grow together, each model buying as much as the second did",
        "free": "Free after training: serving the 107 models costs what serving the shipped pair does",
        "back": "Back-loaded: the last models fix the hardest errors, so they buy the most per unit",
    },
    answer="front",
    asks="behaviour",
    misconceptions={
        "even": (
            "cost grows like the gain",
            "Each added member buys about as much accuracy as it adds serving cost",
        ),
        "free": (
            "accuracy gains are free once trained",
            "An ensemble's cost is paid in training; serving it costs what one model does",
        ),
        "back": (
            "a leaderboard win ships",
            "The members that won the leaderboard are the most valuable ones to serve",
        ),
    },
    reveals=("front-loaded", "take most of the gain", "points for"),
    feedback=Deferred(_pred_d_feedback),
)
D_FACTORS = Slider("Latent factors per member", 10, 500, D_FACTORS_DEFAULT, step=10)
D_MEMBERS = Slider("Members in the blend you price", 1, 1000, 107)


@widget_args
def part_d(factors: int, members: int) -> View:
    import plotly.graph_objects as go

    f, m = int(factors), int(members)
    n = netflix(f)
    st, g, c = n["stages"], n["gain"], n["cost"]
    mine = ens.serve(m, f)
    quiz = pub.NETFLIX_CINEMATCH_RMSE["quiz"].value
    grand = pub.NETFLIX_GRAND_PRIZE_2009
    fig = figure(
        "Netflix Prize: error against serving cost",
        "MACs per prediction (log scale)",
        "RMSE (lower is better)",
        log_x=True,
        height=420,
    )
    path = ["svd", "pair", "progress"]
    fig.add_trace(
        go.Scatter(
            x=[c[k] for k in path],
            y=[st[k].rmse for k in path],
            mode="lines",
            line={"dash": "dash", "color": PARETO_COLOR, "width": 2},
            name="Pareto front",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[c[k] for k in st],
            y=[st[k].rmse for k in st],
            mode="markers+text",
            text=[f"{s.name} ({s.members})" for s in st.values()],
            textposition=["top right", "bottom right", "top right", "top center"],
            marker={"size": 11, "color": COLORS["BlueLine"]},
            name="published blend (members)",
        )
    )
    hline(fig, quiz, f"Cinematch {quiz:.4f} (quiz set)", dash="dot", position="top left")
    hline(
        fig,
        grand["rmse"].value,
        f"Grand Prize {grand['rmse'].value:.4f} (test set)",
        dash="dot",
        position="bottom left",
    )
    vline(fig, mine.macs, f"your blend: {counted(m, 'member')}", position="top right")
    tail = g["progress"] - g["pair"]
    cards = [
        Card(
            "The shipped pair",
            f"{g['pair']:.2f}%",
            f"of the 107-model blend's {g['progress']:.2f}% ({n['pair_share']:.0%}), at {c['pair']:,} MACs",
            "ok",
        ),
        Card(
            f"The other {n['rest_members']} models",
            f"+{tail:.2f} points",
            f"for {fmt_ratio(n['cost_ratio'])} the serving cost ({c['progress']:,} MACs)",
            "bad",
        ),
        Card(
            "Gain per MAC",
            f"{n['per_mac_ratio']:.0f}×",
            f"the second model's, against each of the last {n['rest_members']}",
        ),
        Card(
            f"Your blend: {counted(m, 'member')}",
            f"{mine.macs:,} MACs",
            f"reads {fmt_bytes(mine.bytes_read)} per prediction; keeps "
            f"{fmt_bytes(mine.resident_bytes)} resident ({mine.precision.upper()})",
        ),
    ]
    summary = (
        f"Against Cinematch's {quiz:.4f} on the quiz set, the SVD alone is {g['svd']:.2f}% better and "
        f"the SVD + RBM pair Netflix shipped {g['pair']:.2f}%: the first two models take "
        f"{g['pair']:.2f} of the {g['progress']:.2f} points the 107-model blend won. The other "
        f"{n['rest_members']} models add {tail:.2f} points for {fmt_ratio(n['cost_ratio'])} the "
        f"serving cost per prediction ({c['pair']:,} against {c['progress']:,} MACs at {f} factors a "
        f"member). The Grand Prize's hundreds of models reached {grand['improvement_pct'].value:.2f}% "
        "on the test set; Netflix measured the gain and judged it not worth the engineering effort to "
        "serve it. A leaderboard scores accuracy alone; the machine pays for every member."
    )
    pp = pub.NETFLIX_PROGRESS_PRIZE_2007
    peek = [
        "member: a matrix factorization; one prediction = user row · movie row",
        f"  MACs = n·f + n (blend, n > 1) = {m}·{f} + {m if m > 1 else 0} = {mine.macs:,}",
        f"  bytes read = (2·n·f + n) × 4 B = {mine.bytes_read:,} B;  resident = n·(users + movies)·f × 4 B",
        f"  users {pub.NETFLIX_DATASET['users'].value:,}, movies {pub.NETFLIX_DATASET['movies'].value:,} "
        "(Bennett and Lanning 2007)",
        "improvement = (RMSE_Cinematch − RMSE) / RMSE_Cinematch",
        f"  107-model RMSE = {quiz} × (1 − {pp['improvement_pct'].value}%) = {st['progress'].rmse:.4f} (derived)",
        f"sources: {pub.NETFLIX_ADOPTED['svd'].source}; {grand['rmse'].source}",
        "convention: every member priced alike; real members (RBM, neighbourhood models) differ,"
        " but the cost ratio between two blends is their member ratio whatever f is",
    ]
    return View(fig, cards, summary, "Serving cost of a blend", peek)


# ---------------------------------------------------------------------------------------------
# Part E: the hardware of 2012 (longer edition): AlexNet on two GTX 580s, not on a CPU
# ---------------------------------------------------------------------------------------------

#: one day, in seconds
DAY = 86_400


@cache
def alexnet_training(epochs: int = 90) -> dict:
    """AlexNet's training on the paper's schedule priced on the 2012 chips and an H100 (FP32):
    the work, the days at full peak on each, and the fraction of the pair's peak the paper's
    five to six days imply."""
    model = M.Models.AlexNet
    sch = hist.ALEXNET_SCHEDULE
    images = int(sch["images"].value)
    work = hist.training_flops(model, images, int(epochs))
    h100 = HW.Hardware.Cloud.H100
    rigs = {
        "cpu": (hist.XEON_E5_2690, 1),
        "gtx1": (hist.GTX580, 1),
        "gtx2": (hist.GTX580, 2),
        "h100": (h100, 1),
    }
    peak_days = {k: hist.training_seconds(work, d, 1.0, n) / DAY for k, (d, n) in rigs.items()}
    lo, hi = sch["days"].value
    paper_eff = tuple(
        hist.implied_efficiency(hist.training_flops(model, images, 90), hist.GTX580, x * DAY, 2)
        for x in (hi, lo)
    )
    return {
        "model": model,
        "work": work,
        "forward": model.flops(),
        "rigs": rigs,
        "peak_days": peak_days,
        "paper_eff": paper_eff,
        "cpu_over_pair": peak_days["cpu"] / peak_days["gtx2"],
    }


@cache
def alexnet_bound(device_key: str, batch: int) -> str:
    """The engine's binding term for AlexNet's forward pass at ``batch`` (FP32, 30% of peak)."""
    dev = hist.DEVICES[device_key]
    return E.Engine.solve(
        M.Models.AlexNet, dev, batch_size=int(batch), precision="fp32", efficiency=0.3
    ).bottleneck


def _pred_e_feedback() -> dict[str, str]:
    t = alexnet_training(90)
    pd, r = t["peak_days"], t["cpu_over_pair"]
    at = 0.3
    st = hist.training_state(t["model"], 128)
    cpu, gtx = hist.XEON_E5_2690, hist.GTX580
    bw = gtx.memory.bandwidth.m_as("GB/s") / cpu.memory.bandwidth.m_as("GB/s")
    common = (
        f"At 30% of peak on each chip the pair takes {pd['gtx2'] / at:.1f} days and the Xeon "
        f"{pd['cpu'] / at:.0f} days: {r:.1f}× the time."
    )
    return {
        "rate": f"{common} The work is {sci(t['work'])} FLOPs; two GTX 580s offer "
        f"{2 * gtx.compute.peak_flops.m_as('GFLOP/s'):,.0f} GFLOP/s against the Xeon's "
        f"{cpu.compute.peak_flops.m_as('GFLOP/s'):,.1f}, and the paper's five to six days mean "
        f"{t['paper_eff'][0]:.0%}–{t['paper_eff'][1]:.0%} of the pair's peak.",
        "memory": f"A GTX 580 held 3 GB; the Xeon could address up to 750 GB. Capacity was the GPU's "
        f"limit, not its advantage: AlexNet's training state at batch 128 (weights, gradients, "
        f"momentum, stored activations) is {fmt_bytes(st.total)} by this count, and the paper split "
        f"the network over two cards because 3 GB bounded the size it could train. {common}",
        "close": f"A server CPU of 2012 peaked at {cpu.compute.peak_flops.m_as('GFLOP/s'):,.1f} GFLOP/s "
        f"(8 cores × 2.9 GHz × 16 FLOP with AVX), one GTX 580 at "
        f"{gtx.compute.peak_flops.m_as('GFLOP/s'):,.0f}. {common} Weeks, not days, for every "
        "experiment.",
        "bandwidth": f"At batch 128 each weight serves 128 images a step: the engine puts AlexNet "
        f"{bound_phrase(alexnet_bound('GTX580', 128))} on the GTX 580 and on the Xeon alike. The "
        f"bandwidth ratio ({bw:.1f}×) is not what sets the time; the FLOP/s ratio is. {common}",
    }


PRED_E = Prediction(
    question=(
        "AlexNet trained for 90 epochs over 1.2 million images on two 3 GB GTX 580s, in five to "
        "six days (Krizhevsky et al. 2012). Count its training as forward + backward, about 3× "
        "the forward FLOPs, in FP32, and run it at the same fraction of peak on each chip. What "
        "made the GPUs the 2012 choice over a server CPU (an 8-core Xeon E5-2690 with AVX)?"
    ),
    options={
        "rate": "Arithmetic rate: the pair does the same work about 8× faster, days against weeks",
        "memory": "Memory capacity: the cards held a training state that the CPU's memory could not",
        "close": "Convenience: the CPU would have been only somewhat slower, within about 2×",
        "bandwidth": "Bandwidth: training streams the weights, so the 192 GB/s memory decides it",
    },
    answer="rate",
    asks="regime",
    misconceptions={
        "memory": (
            "the GPU's advantage was memory capacity",
            "GPUs won deep learning because they hold more than a CPU's memory",
        ),
        "close": (
            "a CPU would have been only somewhat slower",
            "A multi-core CPU with vector units is within a small factor of a GPU",
        ),
        "bandwidth": (
            "training is memory-bound",
            "Training time is set by how fast the weights stream from memory",
        ),
    },
    reveals=("days against weeks", "arithmetic rate"),
    feedback=Deferred(_pred_e_feedback),
)
E_EFFICIENCY = Slider("Fraction of peak reached (%)", 5, 100, 30, step=5)
E_EPOCHS = Slider("Epochs over 1.2 M images", 10, 200, 90, step=10)
E_BATCH = Slider("Batch size (training state)", 16, 1024, 128, step=16)

E_NAMES = {
    "cpu": "Xeon E5-2690 (2012 CPU)",
    "gtx1": "1× GTX 580",
    "gtx2": "2× GTX 580 (the paper)",
    "h100": "H100 (FP32, no tensor cores)",
}


def sci(x: float) -> str:
    """'4.63 × 10¹⁷': a large count with three significant digits."""
    m, e = f"{x:.2e}".split("e")
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return f"{m} × 10{str(int(e)).translate(sup)}"


@widget_args
def part_e(efficiency: float, epochs: int, batch: int) -> View:
    import plotly.graph_objects as go

    eff, ep, b = float(efficiency) / 100, int(epochs), int(batch)
    t = alexnet_training(ep)
    pd = t["peak_days"]
    days = {k: v / eff for k, v in pd.items()}
    keys = list(E_NAMES)
    fig = figure(
        f"AlexNet's training ({ep} epochs, FP32): days on each chip",
        "Chip",
        "Training time (days, log scale)",
        log_y=True,
        height=420,
    )
    fig.add_trace(
        go.Bar(
            x=[E_NAMES[k] for k in keys],
            y=[pd[k] for k in keys],
            name="at full peak",
            marker={"color": COLORS["GreyLine"]},
        )
    )
    fig.add_trace(
        go.Bar(
            x=[E_NAMES[k] for k in keys],
            y=[days[k] for k in keys],
            name=f"at {eff:.0%} of peak",
            marker={"color": COLORS["BlueLine"]},
        )
    )
    fig.update_layout(barmode="group")
    lo, hi = hist.ALEXNET_SCHEDULE["days"].value
    hline(fig, (lo + hi) / 2, "paper: 5–6 days on two GTX 580s (90 epochs)", dash="dot")

    gtx, cpu = hist.GTX580, hist.XEON_E5_2690
    st = hist.training_state(t["model"], b)
    cap = gtx.memory.capacity.m_as("B")
    share = st.total / cap
    fits = st.total <= cap

    def when(d: float) -> str:
        return f"{d:,.1f} days" if d >= 1 else f"{d * 24:,.1f} hours"

    cards = [
        Card(
            "Training work",
            f"{sci(t['work'])} FLOP",
            f"3 × {t['forward'] / 1e9:.2f} GFLOP per image × 1.2 M images × {ep} epochs",
        ),
        Card(
            "2012: CPU against the GPU pair",
            when(days["cpu"]) + " vs " + when(days["gtx2"]),
            f"{t['cpu_over_pair']:.1f}× the time at {eff:.0%} of peak on each",
            "bad",
        ),
        Card(
            "The paper's 5–6 days imply",
            f"{t['paper_eff'][0]:.0%}–{t['paper_eff'][1]:.0%}",
            "of the two cards' FP32 peak (90 epochs)",
        ),
        Card(
            f"Training state on one 3 GB card (batch {b:,})",
            fmt_bytes(st.total, 2),
            f"{share:.0%} of 3 GB: weights, gradients, momentum {fmt_bytes(3 * st.weights, 2)} + "
            f"stored activations {fmt_bytes(st.activations, 2)}",
            "ok" if fits else "bad",
        ),
    ]
    room = (
        f"By this count (a lower bound: no convolution workspace, no dropout masks) the state at "
        f"batch {b:,} is {fmt_bytes(st.total, 2)}, {share:.0%} of one 3 GB card"
        + (
            ", so the network as published fits one card; the paper split it because 3 GB "
            "'limits the maximum size of the networks that can be trained on it', and the second "
            "card also halved the time."
            if fits
            else ": more than one card holds, which is the limit the paper split the network to pass."
        )
    )
    summary = (
        f"AlexNet's {ep}-epoch training is {sci(t['work'])} FLOPs. At {eff:.0%} of peak "
        f"the 2012 Xeon takes {when(days['cpu'])}, one GTX 580 {when(days['gtx1'])}, the paper's two "
        f"{when(days['gtx2'])} and an H100 in FP32 {when(days['h100'])}: the GPUs won on arithmetic "
        f"rate, {t['cpu_over_pair']:.1f}× the CPU's for the pair. The paper reports five to six days "
        f"on two GTX 580s, {t['paper_eff'][0]:.0%}–{t['paper_eff'][1]:.0%} of their peak. " + room
    )
    sch = hist.ALEXNET_SCHEDULE
    peek = [
        "work = 3 × forward FLOPs per image × images × epochs  (backward ≈ 2 × forward)",
        f"  forward: torchvision AlexNet, {t['forward']:,} FLOPs per 224² image (1 MAC = 2 FLOPs)",
        f"  = 3 × {t['forward']:,} × 1,200,000 × {ep} = {t['work']:,} FLOPs",
        "days = work / (chips × FP32 peak × fraction of peak) / 86,400 (perfect scaling)",
        f"GTX 580: 512 cores × 1.544 GHz × 2 = {gtx.compute.peak_flops.m_as('GFLOP/s'):,.1f} GFLOP/s, "
        f"{gtx.memory.bandwidth.m_as('GB/s')} GB/s; {gtx.provenance.document}, "
        f"{gtx.provenance.date:%Y-%m-%d}",
        f"Xeon E5-2690: 8 × 2.9 GHz × 16 FLOP (AVX) = {cpu.compute.peak_flops.m_as('GFLOP/s'):,.1f} "
        f"GFLOP/s, {cpu.memory.bandwidth.m_as('GB/s')} GB/s; {cpu.provenance.document}, "
        f"{cpu.provenance.date:%Y-%m-%d}",
        f"engine, forward at batch {b:,} (FP32, 30%): {bound_phrase(alexnet_bound('GTX580', b))} on "
        f"the GTX 580, {bound_phrase(alexnet_bound('XeonE5_2690', b))} on the Xeon",
        f"state = 3 × {t['model'].params:,} weights × 4 B + (input + every layer's output) × batch × 4 B",
        f"source: {sch['days'].citation} ({sch['days'].year}); {sch['days'].url}",
    ]
    return View(fig, cards, summary, "AlexNet on the hardware of 2012", peek)
