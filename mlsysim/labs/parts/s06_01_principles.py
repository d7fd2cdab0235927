"""Section 6.1, Architectural Principles: each part is a plain function of its widget values.

Part A prices an inductive bias in weights (a dense detector vs a shared filter), part B sets the
five Table-1 families and the lighthouse roster side by side on one device, and part C places the
lighthouses' weight-only intensity (the chapter's proxy, section 6.9.1) on a device's roofline
beside the engine's fuller count, after checking that each model fits; every number in part C is
at the roof's precision, in OP/B where that precision is an integer one.
Every number comes from ``mlsysim``; the chapter's figures are asserted in
``tests/test_s06_01_principles.py``.
"""

from __future__ import annotations

from functools import lru_cache

from ... import catalogue
from ..._lazy import lazy
from ..charts import device_label, figure, out_of_memory, roofline
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
    fmt_ratio,
    fmt_time,
    overflow_text,
    widget_args,
)
from ..vocab import LABELS, bound_phrase, op_word

E = lazy("mlsysim.engine")
HW = lazy("mlsysim.hardware")
L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")
U = lazy("mlsysim.units")

CHAPTER = "6.1"
PARTS = ("A", "B", "C")

#: Every device in the registry, labelled by tier.
DEVICES = {key: catalogue.label(key) for key in catalogue.CATALOGUE}

#: Units in the dense first layer of the chapter's 6.1 self-check (L80: "roughly 150 million
#: weights for a 1,000-unit layer").
SELF_CHECK_UNITS = 1000

# ---------------------------------------------------------------------------------------------
# Part A: inductive bias as a parameter budget
# ---------------------------------------------------------------------------------------------

PRED_A = Prediction(
    question=(
        "A dense detector over a 224×224 RGB image needs about 5,575× the weights of one shared 3×3 "
        "filter (150,528 against 27). The radiology scans are grayscale: one channel instead of three. "
        "What happens to that saving?"
    ),
    options={
        "third": "It falls to a third: the dense detector loses two-thirds of its inputs",
        "same": "It stays the same: the filter loses its channels too",
        "triple": "It triples: the filter drops from 27 weights to 9",
    },
    answer="same",
    feedback={
        "third": "The dense detector does shrink 3× (150,528 → 50,176 weights), but so does the filter "
        "(27 → 9): the saving is H·W·C / (K²·C), and the channel count cancels. Still 5,575×.",
        "same": "50,176 / 9 = 5,575×, as 150,528 / 27 was: the channel count multiplies both sides, so the "
        "saving is H·W / K², set by the image area over the filter area. Pick Grayscale and read the "
        "saving card.",
        "triple": "The filter does drop to 9 weights, but the dense detector drops 3× too (to 50,176): the "
        "channel count cancels and the saving stays 5,575×.",
    },
    reveals=("channel count cancels",),
)

TRANSFER_A = Prediction(
    question=(
        "Keep the 3×3 RGB filter and double the image side from 224 to 448 pixels. What happens to the "
        "saving per detector (dense weights ÷ shared weights)?"
    ),
    options={
        "same": "It stays the same: the shared filter did not change",
        "x2": "It doubles: the image side doubled, and the saving follows it",
        "x4": "It grows 4×: dense weights follow the image's area",
    },
    answer="x4",
    feedback={
        "same": "The shared filter's 27 weights stay put, but the dense detector needs a weight per input value: "
        "448×448×3 = 602,112, four times as many. Set the slider to 448 and read the saving card.",
        "x2": "The dense side grows with H·W, not with H: doubling the side quadruples its weights, so the saving "
        "goes from 5,575× to 22,300×.",
        "x4": "H·W/K²: 448²/9 = 22,300×, four times 5,575×. The higher the resolution, the more the locality "
        "bias is worth.",
    },
    kind="transfer",
    reveals=("22,300",),
)
A_RESOLUTION = Slider("Image side H = W (pixels)", 28, 512, 224, step=28)
A_KERNEL = Slider("Filter side K", 1, 11, 3, step=2)
A_CHANNELS = Choice("Input channels", {"1": "Grayscale (1)", "3": "RGB (3)"}, "3")


def _detectors(res: int, kernel: int, channels: int) -> tuple[L.Dense, L.Conv2d]:
    """One dense detector (every input value -> 1 unit) and one shared K×K filter ('same' padding)."""
    dense = L.Dense(in_features=res * res * channels, out_features=1, bias=False)
    conv = L.Conv2d(
        in_channels=channels,
        out_channels=1,
        kernel_size=kernel,
        input_size=res,
        padding=kernel // 2,
        bias=False,
    )
    return dense, conv


@widget_args
def part_a(resolution: int, kernel: int, channels: str) -> View:
    import plotly.graph_objects as go

    res, k, c = int(resolution), int(kernel), int(channels)
    dense, conv = _detectors(res, k, c)
    ratio = dense.params / conv.params
    layer_1000 = L.Dense(in_features=dense.in_features, out_features=SELF_CHECK_UNITS, bias=False)
    sides = list(range(int(A_RESOLUTION.start), int(A_RESOLUTION.stop) + 1, int(A_RESOLUTION.step)))

    fig = figure(
        "Weights of one feature detector vs image size",
        "Image side (pixels)",
        "Weights per detector (log scale)",
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(
            x=sides,
            y=[_detectors(s, k, c)[0].params for s in sides],
            name="Dense detector (a weight per input value)",
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=sides,
            y=[_detectors(s, k, c)[1].params for s in sides],
            name=f"Shared {k}×{k} filter",
            mode="lines",
        )
    )
    if k != 3:
        fig.add_trace(
            go.Scatter(
                x=sides,
                y=[_detectors(s, 3, c)[1].params for s in sides],
                name="Shared 3×3 filter (chapter)",
                mode="lines",
                line=dict(dash="dot"),
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[res, res],
            y=[dense.params, conv.params],
            name="your setting",
            mode="markers",
            marker=dict(size=12, symbol="diamond"),
        )
    )

    cards = [
        Card("Dense detector", fmt_count(dense.params), f"{res}×{res}×{c} weights", "bad"),
        Card("Shared filter", fmt_count(conv.params), f"{k}×{k}×{c} weights, any image size", "ok"),
        Card("Saving per detector", fmt_ratio(ratio, 0), "dense ÷ shared"),
        Card("Uses of each filter weight", fmt_count(conv.weight_reuse), f"{res}×{res} positions"),
        Card(
            f"Dense layer, {SELF_CHECK_UNITS:,} units",
            fmt_count(layer_1000.params),
            "the chapter's self-check: a 1,000-unit first layer",
        ),
    ]
    summary = (
        f"At {res}×{res}×{c}, one dense detector learns {dense.params:,} weights; a shared {k}×{k} "
        f"filter learns {conv.params:,} and reuses each of them at {conv.weight_reuse:,} positions: "
        f"{ratio:,.0f}× fewer weights for the same detector. The channel count cancels ({c} on both "
        "sides), so the saving is the image area over the filter area, in grayscale and "
        "RGB alike. Locality plus sharing is the bias; "
        "the saving is what it buys when images really are local."
    )
    peek = [
        f"dense detector = H × W × C = {res} × {res} × {c} = {counted(dense.params, 'weight')}",
        f"shared filter  = K × K × C = {k} × {k} × {c} = {counted(conv.params, 'weight')}",
        f"saving         = (H·W·C) / (K²·C) = H·W / K² = {ratio:,.1f}×",
        f"reuse          = output positions ('same' padding) = {conv.weight_reuse:,} uses per weight",
        f"1,000-unit dense layer = {dense.in_features:,} × {SELF_CHECK_UNITS:,} = {layer_1000.params:,} weights (no bias)",
    ]
    return View(fig, cards, summary, "Weights per detector", peek)


# ---------------------------------------------------------------------------------------------
# Part B: the five families and the lighthouse roster
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "True or false: because an inductive bias restricts the hypothesis space, engineers should "
        "always pick the architecture with the strongest bias."
    ),
    options={
        "true": "True: a stronger prior always needs less data and less compute",
        "false": "False: a built-in bias pays off only where the data has that structure",
        "hw": "Neither: pick whichever bias the accelerator runs fastest",
    },
    answer="false",
    feedback={
        "true": "A prior saves data only when its assumption holds (No Free Lunch). Locality is wrong for a "
        "table whose columns have no neighbours, and it links distant words less directly than "
        "attention does.",
        "false": "By No Free Lunch, a bias helps only where it matches the data. Each Table-1 family pairs "
        "one data structure with the bottleneck it exposes.",
        "hw": "Hardware speed never rescues a mismatched bias: a fast model that cannot learn the task is "
        "worthless. Match the bias to the data first, then check what it costs the machine.",
    },
    reveals=("No Free Lunch",),
)

TRANSFER_B = Prediction(
    question=(
        "On the H100 the engine calls the transformer row (GPT-2 XL, one decoded token, FP32 weights) "
        "launch-bound: kernel launches take most of its time. Move it to the Jetson Orin NX. What "
        "binds it there at batch 1?"
    ),
    options={
        "dispatch": "Kernel launches, as on the H100",
        "memory": "Memory bandwidth: every weight is streamed once per token",
        "compute": "Compute: the Jetson's arithmetic is too slow for a 1.5-billion-parameter model",
    },
    answer="memory",
    feedback={
        "dispatch": "Launches do cost more on the Jetson (about 11.6 ms in all against the H100's 2.9 ms), but "
        "streaming 6.2 GB of FP32 weights and the KV cache over its 102 GB/s takes about 67 ms, far longer.",
        "memory": "One token does about one MAC per weight: far too little arithmetic per byte. On the H100 the "
        "bus is fast enough that launches take the larger share; on the Jetson the stream of weights "
        "dominates, as the lighthouse roster's choice of GPT-2 for memory bandwidth predicts.",
        "compute": "A decoded token does one MAC per weight, so the weights' bytes, not the arithmetic, set the "
        "time: the Jetson's FP32 rate would finish the math in a fraction of the streaming time.",
    },
    kind="transfer",
)

#: Table 1 (L53-60): data type, core innovation and system bottleneck of each family.
FAMILIES = {
    "mlp": (
        "MLP",
        "Tabular / unstructured",
        "Dense connectivity",
        "Bandwidth with streamed weights at small batch",
    ),
    "cnn": (
        "CNN",
        "Spatial (images)",
        "Local filters + weight sharing",
        "Compute throughput with sufficient reuse",
    ),
    "rnn": ("RNN", "Sequential (time series)", "Recurrent state", "Sequential dependencies"),
    "transformer": (
        "Transformer",
        "Relational (language)",
        "Dynamic attention",
        "Quadratic score compute; optional S² storage",
    ),
    "dlrm": (
        "DLRM",
        "Categorical (recommendations)",
        "Embedding tables",
        "Capacity when tables exceed device memory",
    ),
}

#: What each family's bias buys (or costs), for the sentence: dense connectivity assumes nothing
#: and so buys no efficiency; attention buys flexibility (any token to any token) at quadratic
#: score cost; locality, recurrence and table lookups each buy efficiency on matching data.
FAMILY_TRADE = {
    "mlp": "pays for its generality with",
    "cnn": "buys efficiency with",
    "rnn": "buys efficiency with",
    "transformer": "buys flexibility with",
    "dlrm": "buys efficiency with",
}

#: The engine verdict that matches Table 1's bottleneck column at the regime part B runs
#: (TABLE1_REGIME): streamed weights are memory-bound, reused filters and a long prefill
#: compute-bound, the RNN's serial chain a string of launches, oversized tables out of memory.
TABLE1_VERDICT = {
    "mlp": "Memory",
    "cnn": "Compute",
    "rnn": "Dispatch",
    "transformer": "Compute",
    "dlrm": "Infeasible",
}

#: Table 9 names "None (DLRM's dense MLPs)" as the MLP row's workload: DLRM's bottom MLP over its
#: 13 dense features (mlsysim.models.dlrm defaults, 13 -> 512 -> 256 -> 128).
TABULAR_MLP = (13, 512, 256, 128)
#: The RNN row has no lighthouse: the chapter's Elman example (Fig. 8: input 100, hidden 128) over
#: the 1,000-step sequence of section 6.5.5 (L763), streamed a step at a time as deployed: its
#: live memory is the state and one step, not the whole sequence (section 6.5's O(d) state).
RNN_INPUT, RNN_HIDDEN, RNN_STEPS = 100, 128, 1000

B_FAMILY = Choice(
    "Family (Table 1)", {k: f"{v[0]}: {v[1]}" for k, v in FAMILIES.items()}, "cnn", inline=False
)
B_DEVICE = Choice("Device", DEVICES, "H100", inline=False)
B_INT8 = Toggle("INT8 weights (serving format; off = FP32, the chapter's tables)", False)


@lru_cache(maxsize=8)
def family_workload(family: str):
    """(label, model or layer, is_lighthouse) standing for a Table-1 family."""
    if family == "mlp":
        return (
            "DLRM bottom MLP",
            M.mlp(list(TABULAR_MLP), name="DLRM bottom MLP 13-512-256-128"),
            False,
        )
    if family == "cnn":
        return "ResNet-50", M.Models.ResNet50, True
    if family == "rnn":
        return (
            f"Elman RNN {RNN_INPUT}→{RNN_HIDDEN}, {RNN_STEPS:,} steps streamed",
            L.RNN(input_size=RNN_INPUT, hidden_size=RNN_HIDDEN, seq_len=RNN_STEPS, streaming=True),
            False,
        )
    if family == "transformer":
        return "GPT-2 XL (one decoded token)", M.Models.GPT2, True
    if family == "dlrm":
        return "DLRM", M.Models.DLRM, True
    raise ValueError(f"family={family!r} is unknown; allowed: {', '.join(FAMILIES)}")


#: What this part's row runs (one inference at batch 1; one decoded token for the transformer) and
#: the regime Table 1's bottleneck column describes, as (what it is, workload, batch, phase, seq_len).
#: Table 1 speaks of each family at the scale where its bottleneck shows; the batch-1 row is
#: usually too small for that on a GPU, and kernel launches take the larger share.
TABLE1_REGIME = {
    "mlp": (
        "a wide 4,096-4,096-4,096 MLP at batch 1 (weights streamed)",
        "wide_mlp",
        1,
        None,
        None,
    ),
    "cnn": ("ResNet-50 on a batch of 256 images", "ResNet50", 256, None, None),
    "rnn": (
        f"the same {RNN_STEPS:,}-step chain (each step waits for the last)",
        "rnn",
        1,
        None,
        None,
    ),
    "transformer": (
        "GPT-2 XL prefilling a 1,024-token prompt",
        "GPT2",
        1,
        "prefill",
        1024,
    ),
    "dlrm": ("DLRM with its full tables", "DLRM", 1, None, None),
}
#: GPT-2 XL's model width d (Table 5): attention's S² products outgrow the 12·S·d² MACs of the
#: projections and feed-forward layers once S > 6d (section 6.7's crossover, ~9,600 tokens).
GPT2_WIDTH = 1600
#: The wide MLP of Table 1's regime (4,096 hidden units: the chapter's UAT self-check, L1660).
WIDE_MLP = (4096, 4096, 4096)


@lru_cache(maxsize=8)
def table1_workload(family: str):
    _, key, batch, phase, seq = TABLE1_REGIME[family]
    if key == "wide_mlp":
        return M.mlp(list(WIDE_MLP), name="MLP 4096-4096-4096"), batch, phase, seq
    if key == "rnn":
        return family_workload("rnn")[1], batch, phase, seq
    return M.Models.get(key), batch, phase, seq


def verdict_text(prof) -> str:
    """'compute-bound', 'memory-bound', 'launch-bound (kernel launches)' or 'out of memory'."""
    if not prof.feasible:
        return "out of memory"
    phrase = bound_phrase(prof.bottleneck)
    return phrase + " (kernel launches)" if prof.bottleneck == "Dispatch" else phrase


def per_byte(precision: str) -> str:
    """The intensity unit at ``precision``: OP/B for integer arithmetic, FLOP/B otherwise."""
    return f"{op_word(precision)}/B"


def table1_verdict(t1) -> str:
    """The engine's verdict at Table 1's regime in TABLE1_VERDICT's terms."""
    return t1.bottleneck if t1.feasible else "Infeasible"


def table1_gap(family: str, t1, dev, precision: str) -> str | None:
    """Why the engine's verdict at Table 1's regime differs from Table 1's bottleneck column on
    this device and precision (None when they agree). Each reason is read off the engine's profile:
    the fit check, the launch term, or the regime's intensity against the device's ridge point."""
    if table1_verdict(t1) == TABLE1_VERDICT[family]:
        return None
    dname = device_label(dev)
    prec = precision.upper()
    if not t1.feasible:
        return f"it does not fit on the {dname} ({overflow_text(t1)}): capacity binds before the family's own bottleneck can show"
    if family == "dlrm":
        return (
            f"its {fmt_bytes(t1.weight_bytes)} of {prec} tables fit in the {dname}'s "
            f"{fmt_bytes(dev.memory.capacity.m_as('B'))}: Table 1's capacity limit binds only when the tables "
            "exceed device memory"
        )
    comp, mem, launch = t1.time_split
    if family == "rnn":
        term = "memory traffic" if mem > comp else "arithmetic"
        return (
            f"the {RNN_STEPS:,} steps still run one after another, but on the {dname} each step's {term} "
            "outlasts its kernel launch"
        )
    if t1.bottleneck == "Dispatch":
        return (
            f"in {prec} the work is so short on the {dname} that its kernel launches "
            f"({fmt_time(launch)}) outlast both roofline terms"
        )
    unit = per_byte(precision)
    ai, ridge = t1.arithmetic_intensity.magnitude, t1.ridge_point
    if t1.bottleneck == "Memory":
        why = f"its {ai:,.1f} {unit} fall short of the {dname}'s {prec} ridge point of {ridge:,.1f} {unit}"
        if precision != "fp32" and "fp32" in dev.compute.precisions:
            r32 = dev.ridge_point("fp32").magnitude
            why += (
                f", {ridge / r32:,.0f}× the FP32 one ({r32:,.1f} FLOP/B): faster arithmetic needs more "
                "reuse to stay busy"
            )
        return why
    return (
        f"even its {ai:,.1f} {unit} clear the {dname}'s low ridge point of {ridge:,.2g} {unit}: "
        "its arithmetic is slow next to its memory bus"
    )


def score_share(t1) -> float:
    """Share of a transformer profile's FLOPs in the attention products (the S² scores)."""
    return sum(t.flops for t in t1.layers if t.type == "Attention") / t1.flops


#: The registry name of each family's lighthouse (None for the stand-ins), for the fact tags.
LIGHTHOUSE_KEY = {"cnn": "ResNet50", "transformer": "GPT2", "dlrm": "DLRM"}

#: The five lighthouses (Table 8 order) plus the two non-lighthouse stand-ins, for the roster chart.
ROSTER = {
    "ResNet50": "cnn",
    "GPT2": "transformer",
    "DLRM": "dlrm",
    "MobileNetV2": "cnn",
    "KWS": "cnn",
}


def _work(model) -> tuple[int, int]:
    """(params, FLOPs of one inference; one decoded token for a language model)."""
    if isinstance(model, L.Layer):
        return model.params, model.flops()
    if model.is_lm:
        return model.params, model.flops(1, 1, "decode")
    return model.params, model.flops()


@widget_args
def part_b(family: str, device: str, int8: bool) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(device)
    precision = "int8" if int8 else "fp32"
    op = op_word(precision)  # integer arithmetic is counted in operations
    label, work, lighthouse = family_workload(family)
    name, data, innovation, bottleneck = FAMILIES[family]
    bpv = U.bytes_per_value(precision)

    fig = figure(
        f"Weights vs work per inference ({precision.upper()} weights) against the {device_label(dev)}",
        "Weight bytes (log scale)",
        f"{op}s per inference (log scale)",
        log_x=True,
        log_y=True,
    )
    for key in ROSTER:
        m = M.Models.get(key)
        _, flops = _work(m)
        fig.add_trace(
            go.Scatter(
                x=[m.weight_bytes(precision)],
                y=[flops],
                mode="markers+text",
                name=m.name,
                text=[m.name],
                textposition="top center",
                marker=dict(size=11),
                showlegend=False,
            )
        )
    params, flops = _work(work)
    wbytes = float(params * bpv)
    fig.add_trace(
        go.Scatter(
            x=[wbytes],
            y=[flops],
            mode="markers",
            name=f"selected: {label}",
            marker=dict(size=20, symbol="diamond-open", line=dict(width=3)),
        )
    )
    cap = dev.memory.flash if dev.memory.flash is not None else dev.memory.capacity
    ys = [t.y[0] for t in fig.data]
    fig.add_trace(
        go.Scatter(
            x=[cap.m_as("B")] * 2,
            y=[min(ys) / 3, max(ys) * 3],
            mode="lines",
            name=f"{device_label(dev)} {'flash' if dev.memory.flash is not None else 'memory'} {cap:~P}",
            line=dict(dash="dash"),
        )
    )

    prof = E.Engine.solve(work, dev, batch_size=1, precision=precision, efficiency=1.0)
    t_model, t_batch, t_phase, t_seq = table1_workload(family)
    t1 = E.Engine.solve(
        t_model,
        dev,
        batch_size=t_batch,
        precision=precision,
        efficiency=1.0,
        phase=t_phase,
        seq_len=t_seq,
    )
    regime = TABLE1_REGIME[family][0]
    gap = table1_gap(family, t1, dev, precision)
    row = verdict_text(prof)
    if prof.feasible:
        comp, mem, launch = prof.time_split
        shares = (
            f"launches {launch / prof.latency_s:.0%}, memory-bound rows {mem / prof.latency_s:.0%}, "
            f"compute-bound rows {comp / prof.latency_s:.0%} of {fmt_time(prof.latency_s)}"
        )
        fit = f"fits on the {device_label(dev)} and is {row} at batch 1 ({shares})"
    else:
        fit = f"does not fit on the {device_label(dev)} ({overflow_text(prof)})"
    reuse = E.weight_reuse(work)
    key = LIGHTHOUSE_KEY.get(family)
    cards = [
        Card("Data it assumes", data, name),
        Card("Core innovation", innovation, "the family's bias"),
        Card("Table 1 bottleneck", bottleneck, "at the scale Table 1 describes"),
        Card(
            "Weights",
            fmt_bytes(wbytes),
            f"{fmt_count(params)} params, {precision.upper()}",
            fact=fact("weight_bytes", wbytes, model=key, precision=precision) if key else None,
        ),
        Card(
            "Work per inference",
            f"{fmt_count(flops)} {op}",
            f"1 MAC = 2 {op}s",
            fact=fact(
                "flops",
                flops,
                model=key,
                batch=1,
                phase="decode" if family == "transformer" else None,
                seq_len=1 if family == "transformer" else None,
            )
            if key
            else None,
        ),
        Card(
            "This row: batch 1",
            row,
            f"{device_label(dev)}, {precision.upper()}"
            + (", one decoded token" if family == "transformer" else ""),
            "bad" if not prof.feasible else "warn" if prof.bottleneck == "Dispatch" else "ok",
        ),
        Card(
            "Table 1's regime",
            verdict_text(t1),
            regime + ("" if gap is None else " · not Table 1's bottleneck here"),
            "bad" if not t1.feasible else "ok" if gap is None else "warn",
        ),
    ]
    kind = "a lighthouse" if lighthouse else "a stand-in (no lighthouse in Table 9)"
    same = verdict_text(t1) == row
    summary = (
        f"The {name} family assumes {data.lower()} data and {FAMILY_TRADE[family]} {innovation.lower()}. "
        f"{label}, {kind}, "
        f"holds {fmt_bytes(wbytes)} of {precision.upper()} weights for {fmt_count(flops)} {op} per inference "
        f"and {fit}. "
        + (
            "Table 1's regime is this same chain, each step waiting for the last: the engine finds it "
            if family == "rnn"
            else f"Table 1 describes the family at a larger scale: for {regime} in {precision.upper()} "
            "the engine finds it "
        )
        + f"{verdict_text(t1)}"
        + (
            ", as at batch 1."
            if same
            else f", not {row} as at batch 1"
            + (
                ". One small inference on a fast device is often too short for its family's bottleneck to "
                "show, and fixed launch costs take the larger share."
                if prof.feasible and prof.bottleneck == "Dispatch"
                else "."
            )
        )
        + (
            f' Table 1\'s bottleneck for the family is "{bottleneck}"; here the engine differs because {gap}.'
            if gap is not None
            else ""
        )
        + (
            f" At 1,024 tokens the S² score products are only {score_share(t1):.0%} of the prefill's FLOPs "
            f"(they outgrow the projections and feed-forward layers only past about 6d = {6 * GPT2_WIDTH:,} "
            "tokens), so those dense layers, not the scores, carry most of its arithmetic."
            if family == "transformer" and t1.feasible
            else ""
        )
        + " Each family's bias decides which resource runs out first at scale, not just how many FLOPs it does."
    )
    peek = [
        f"weights = params × bytes/value = {params:,} × {float(bpv):g} B = {fmt_bytes(wbytes)}",
        f"{op}s   = 2 × MACs = {flops:,}"
        + (" (one decoded token)" if family == "transformer" else ""),
        f"{LABELS['weight_reuse']} = {flops // 2:,} / {params:,} = {reuse:,.3g} (one use = one MAC)",
        "t = Σ_rows max(FLOPs / peak, bytes / BW) + kernels × launch cost; the largest term names the regime",
        f"device {'flash' if dev.memory.flash is not None else 'memory'}: {cap:~P}; fit is checked before any roofline",
    ]
    facts = (
        [
            fact(
                "weight_reuse",
                reuse,
                model=key,
                batch=1,
                phase="decode" if family == "transformer" else None,
                seq_len=1 if family == "transformer" else None,
            )
        ]
        if key
        else []
    )
    return View(fig, cards, summary, "The roster on one device", peek, facts=facts)


# ---------------------------------------------------------------------------------------------
# Part C: the intensity spectrum on a roofline
# ---------------------------------------------------------------------------------------------

PRED_C = Prediction(
    question=(
        "On the H100 in FP32 at batch 1, the chapter's weight-only proxy (FLOPs per byte of weights) puts "
        "MobileNetV2 at about twice the ridge point, on the compute side. The engine's fuller count adds "
        "the feature maps each layer reads and writes. Where does MobileNetV2 land by that count?"
    ),
    options={
        "right": "Still right of the ridge: weights are most of the bytes a model moves",
        "further": "Further right: a compact model keeps its feature maps close at hand",
        "left": "Far left of the ridge: its feature maps move many times its weight bytes",
    },
    answer="left",
    feedback={
        "right": "That is the proxy's own assumption, and it fails for a compact CNN: MobileNetV2 has 14.0 MB of "
        "FP32 weights but moves about 159 MB of feature maps per image, 11× as much. Its intensity falls from "
        "42.9 to 3.5 FLOP/B, far left of the H100's 20.0.",
        "further": "Adding bytes can only lower FLOPs per byte. The engine streams every layer's input and output "
        "maps through memory; few weights do not make small maps. 42.9 → 3.5 FLOP/B, left of the ridge.",
        "left": "About 159 MB of feature maps against 14.0 MB of weights: 3.5 FLOP/B, under a fifth of the ridge "
        "point. Depthwise layers do little arithmetic per activation byte, so a low-FLOP model can still wait "
        "on memory; the proxy ranks weight reuse, it does not place a model on the roofline alone.",
    },
    reveals=("3.5 FLOP/B", "feature maps move many times"),
)

TRANSFER_C = Prediction(
    question=(
        "On the same H100 at batch 1, switch the weights from FP32 to INT8 (the roof becomes the INT8 "
        "peak). Where does ResNet-50's weight-only proxy land?"
    ),
    options={
        "right": "Further right of the ridge: a quarter of the bytes per weight is 4× the intensity",
        "left": "Left of the ridge: the INT8 roof rises further than the intensity does",
        "same": "Where it was: the proxy counts operations per weight, which precision keeps",
    },
    answer="left",
    feedback={
        "right": "The intensity does rise 4× (80 FLOP/B in FP32 → 320 OP/B in INT8), but the roof rises more: the "
        "H100's INT8 peak over the same bandwidth puts the ridge point near 591 OP/B, against about 20 FLOP/B in "
        "FP32. Here the INT8 roof moves the ridge further than the weights' bytes move the intensity, so "
        "the model lands on the memory side (the FP32 ridge of 20 is the H100's plain FP32 peak; against its "
        "FP16 tensor-core peak the ridge is already near 295).",
        "left": "320 OP/B against an INT8 ridge point of about 591 OP/B: faster arithmetic needs more reuse to stay "
        "busy. Pick INT8 in the precision control and compare the cards.",
        "same": "The operations are the same but each weight is a quarter of the bytes, so operations per byte rise "
        "4×; and "
        "the roof itself moves to the INT8 peak.",
    },
    kind="transfer",
)
C_DEVICE = Choice("Device", DEVICES, "H100", inline=False)
C_PRECISION = Choice(
    "Weight precision",
    {"fp32": "FP32 (the chapter's proxy)", "fp16": "FP16", "int8": "INT8"},
    "fp32",
)
C_BATCH = Slider("Batch (images, or sequences decoded together)", 1, 256, 1)

#: The lighthouses the proxy is defined for (Table 8: "not defined for DLRM's embedding lookups").
SPECTRUM = {"ResNet50": "ResNet-50", "MobileNetV2": "MobileNetV2", "KWS": "KWS", "GPT2": "GPT-2 XL"}


def roof_precision(dev, precision: str) -> str:
    """The precision whose peak the roof uses: the chosen one, or FP32 where the device lists none."""
    if precision in dev.compute.precisions:
        return precision
    return "fp32" if "fp32" in dev.compute.precisions else dev.compute.quoted_precision


def table8_note(key: str) -> str | None:
    """Table 8's printed proxy for ``key`` where it differs from mlsysim's exact count by more
    than rounding of the last digit, and how it was rounded; None elsewhere. KWS's 25 FLOP/B is
    20 MFLOP / 800 KB, both inputs rounded to one figure (the preset DS-CNN: 17.3 MFLOP / 830 KB
    = 20.9); ResNet-50's 80.2 and MobileNetV2's 42.8 round their FLOPs (8.2 GFLOP, 600 MFLOP)
    before dividing (``engine.table8_printed``), where the exact counts give 80.0 and 42.9.
    Shown at Table 8's own setting (FP32, batch 1)."""
    if key == "KWS":
        return "Table 8: 25, from rounded 20 MFLOP / 800 KB"
    if key not in ("ResNet50", "MobileNetV2"):
        return None
    m = M.Models.get(key)
    flops = E.round_sig(m.flops(), 2)
    giga = flops >= 1e9
    rounded = f"{flops / (1e9 if giga else 1e6):g} {'GFLOP' if giga else 'MFLOP'}"
    return f"Table 8: {E.table8_printed(m):.1f}, from rounded {rounded}"


#: The cache a decoded GPT-2 XL token reads in the engine's count (its default context).
DECODE_CONTEXT = 1024


def side(intensity: float, ridge: float) -> str:
    return "compute side" if intensity >= ridge else "memory side"


def _names(keys) -> str:
    names = [SPECTRUM[k] for k in keys]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@widget_args
def part_c(device: str, precision: str, batch: int) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(device)
    b = int(batch)
    roof = roof_precision(dev, precision)  # every number below is at the roof's precision
    unit = per_byte(roof)
    ridge = dev.ridge_point(roof).magnitude
    dname = device_label(dev)

    models = {k: M.Models.get(k) for k in SPECTRUM}
    proxy = {k: E.weight_only_intensity(m, roof, b) for k, m in models.items()}
    engine = {
        k: E.Engine.solve(m, dev, batch_size=b, precision=roof, efficiency=1.0)
        for k, m in models.items()
    }
    ai = {k: p.arithmetic_intensity.magnitude for k, p in engine.items()}
    fits = [k for k in SPECTRUM if engine[k].feasible]
    oom = [k for k in SPECTRUM if not engine[k].feasible]

    points = [(SPECTRUM[k], proxy[k], dev.attainable_flops(proxy[k], roof)) for k in fits]
    lo = min(0.05, min(proxy.values()) / 2)
    hi = max(5000.0, max(proxy.values()) * 2)
    fig = roofline(
        dev,
        roof,
        1.0,
        points,
        x_range=(lo, hi),
        title=f"Weight-only intensity on the {dname} roofline ({roof.upper()}, batch {b})",
    )
    for i, tr in enumerate(fig.data[1 : 1 + len(points)]):
        tr.textposition = "top center" if i % 2 == 0 else "bottom center"
    if fits:
        fig.add_trace(
            go.Scatter(
                x=[ai[k] for k in fits],
                y=[dev.attainable_flops(ai[k], roof) / 1e12 for k in fits],
                mode="markers",
                name="engine count (weights + activations"
                + (" + KV cache" if "GPT2" in fits else "")
                + ")",
                marker=dict(size=10, symbol="circle-open", line=dict(width=2)),
            )
        )
    if oom:
        out_of_memory(
            fig,
            [proxy[k] for k in oom],
            [dev.attainable_flops(proxy[k], roof) / 1e12 for k in oom],
            name=f"does not fit on the {dname}: {_names(oom)}",
        )

    cards = []
    for k in SPECTRUM:
        p, i = engine[k], proxy[k]
        if not p.feasible:
            note = f"does not fit: {overflow_text(p)}"
            status = "bad"
        else:
            ps, es = side(i, ridge), side(ai[k], ridge)
            if ps == es:
                note = f"{ps} by both counts (engine {ai[k]:,.1f})"
                status = "ok" if ps == "compute side" else "warn"
            else:
                note = f"proxy: {ps}; engine {ai[k]:,.1f}: {es}"
                status = "warn"
        t8 = table8_note(k)
        if t8 and roof == "fp32" and b == 1 and p.feasible:
            note += f" · {t8}"
        cards.append(
            Card(
                SPECTRUM[k],
                f"{i:,.1f} {unit}",
                note,
                status,
                fact=fact("weight_only_intensity", i, model=k, precision=roof, batch=b),
            )
        )
    dlrm = E.Engine.solve(M.Models.DLRM, dev, batch_size=b, precision=roof, efficiency=1.0)
    tables = M.Models.DLRM.weight_bytes(roof)
    cards.append(
        Card(
            "DLRM",
            "capacity first",
            f"{fmt_bytes(tables)} of {roof.upper()} tables: "
            + ("they fit" if dlrm.feasible else overflow_text(dlrm)),
            "ok" if dlrm.feasible else "bad",
        )
    )
    cards.append(
        Card(
            LABELS["ridge_peak"].capitalize(),
            f"{ridge:,.1f} {unit}",
            f"{dev.compute.peak(roof):~P} ÷ {dev.memory.bandwidth:~P}",
            fact=fact("ridge_peak", ridge, device=device, precision=roof),
        )
    )
    if roof != precision:
        cards.append(
            Card(
                "Roof precision",
                roof.upper(),
                f"the {dname} lists no {precision.upper()} rate: every number here is {roof.upper()}",
                "warn",
            )
        )

    gap = proxy["ResNet50"] / proxy["GPT2"]
    flips = [k for k in fits if side(proxy[k], ridge) != side(ai[k], ridge)]
    summary = (
        (
            f"The {dname} lists no {precision.upper()} rate, so every number here is {roof.upper()}: its "
            if roof != precision
            else f"On the {dname} ({roof.upper()}) the "
        )
        + f"{LABELS['ridge_peak']} is {ridge:,.1f} {unit}. At batch {b} "
        f"ResNet-50's weight-only proxy is {proxy['ResNet50']:,.1f} {unit} and a GPT-2 XL token's is "
        f"{proxy['GPT2']:,.2f}: a {gap:,.0f}× gap."
        + (
            f" Capacity comes first: {_names(oom)} {'does' if len(oom) == 1 else 'do'} not fit on the "
            f"{dname} at batch {b} (✕ on the chart), so {'its' if len(oom) == 1 else 'their'} side of the "
            "ridge does not matter."
            if oom
            else ""
        )
        + f" DLRM is not on the plot (the proxy is not defined for its lookups): its {fmt_bytes(tables)} of "
        f"tables {'fit' if dlrm.feasible else 'do not fit'} on the {dname}, and that check comes before any "
        "roofline."
        + (
            f" The engine's fuller count (weights + activations) puts ResNet-50 at {ai['ResNet50']:,.1f} {unit}: "
            "the proxy ignores activation traffic, which grows with the batch."
            if "ResNet50" in fits
            else ""
        )
        + (
            f" By that count {_names(flips)} {'lands' if len(flips) == 1 else 'land'} on the other side of "
            "the ridge from the proxy."
            if flips
            else ""
        )
    )
    r50, g2 = models["ResNet50"], models["GPT2"]
    peek = [
        f"proxy I = FLOPs / weight bytes = 2 × MACs × batch / (params × bytes per {roof.upper()} value)",
        f"ResNet-50: {r50.flops(b):,} / {r50.weight_bytes(roof):,} B = {proxy['ResNet50']:,.2f} {unit}",
        f"GPT-2 XL:  {g2.flops(b, 1, 'decode'):,} / {g2.weight_bytes(roof):,} B = {proxy['GPT2']:,.3f} {unit}",
        f"{LABELS['ridge_peak']} = dense peak / BW = {dev.compute.peak(roof):~P} / {dev.memory.bandwidth:~P} = "
        f"{ridge:,.1f} {unit} (no efficiency factor: the chapter's ridge)",
        "attainable = min(peak, I × BW); the engine's count adds activation traffic (and, for GPT-2 XL, one "
        f"token's reads of a {DECODE_CONTEXT:,}-token KV cache), which the proxy omits",
        "fit first: weights + activations + KV cache ≤ memory (a microcontroller: weights ≤ flash, "
        "activations ≤ SRAM); a model that does not fit has no side of the ridge",
    ]
    return View(fig, cards, summary, "Intensity against the ridge", peek)
