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
    Deferred,
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
from ..vocab import LABELS, bound_phrase, conditions, op_word

E = lazy("mlsysim.engine")
HW = lazy("mlsysim.hardware")
L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")
U = lazy("mlsysim.units")

CHAPTER = "6.1"
PARTS = ("A", "B", "C", "D")

#: The chapter's eight devices (the registry holds more: the bring-your-own notebook offers them).
DEVICES = catalogue.labels(list(catalogue.CHAPTER_DEVICES))

#: Units in the dense first layer of the chapter's 6.1 self-check (L80: "roughly 150 million
#: weights for a 1,000-unit layer").
SELF_CHECK_UNITS = 1000

# ---------------------------------------------------------------------------------------------
# Part A: inductive bias as a parameter budget
# ---------------------------------------------------------------------------------------------

PRED_A = Prediction(
    question=(
        "Dr. Okafor's RGB scans grow from 224×224 to 448×448 pixels. What happens to one shared 3×3 "
        "filter's weights, and to the multiply-accumulates it does per scan?"
    ),
    options={
        "stay_grow": "Weights stay, arithmetic grows: the filter runs at every position",
        "both": "Both grow: a layer's size follows the image it reads",
        "neither": "Neither changes: a layer's arithmetic follows the number of its weights",
    },
    answer="stay_grow",
    feedback={
        "stay_grow": "27 weights at any image size, used at 200,704 positions instead of 50,176: 5,419,008 "
        "MACs instead of 1,354,752. K×K×C sets the weights; K×K×C × positions sets the work. Sharing "
        "makes weights cheap, not arithmetic.",
        "both": "That holds for the dense detector (150,528 → 602,112 weights), not for the shared filter: "
        "its 27 weights are K×K×C at any image size. What grows is how often they are used, 50,176 → "
        "200,704 positions, so its MACs grow 4× (1,354,752 → 5,419,008).",
        "neither": "In a convolution weights and work part ways: the 27 weights stay, but they are applied "
        "at every output position, four times as many at 448 px, so the MACs grow 4× (1,354,752 → "
        "5,419,008). Reuse, not the weight count, sets a shared filter's arithmetic.",
    },
    reveals=("any image size", "5,419,008"),
    asks="behaviour",
    misconceptions={
        "both": (
            "a layer's size follows its input",
            "Like a dense layer, a convolution needs more weights for a bigger image",
        ),
        "neither": (
            "work follows the weight count",
            "A layer's multiply-accumulates are proportional to its parameters",
        ),
    },
)

#: TRANSFER_A's case, beyond part A's controls (its input is grayscale or RGB, and 320 px is off
#: the slider's 28-pixel steps): the same 3×3 filter shape over a 64-channel feature map.
TRANSFER_SIDE, TRANSFER_CHANNELS = 320, 64


def transfer_a_filters() -> tuple[L.Conv2d, L.Conv2d]:
    """One 3×3 filter ('same' padding) over the 320×320 scan: RGB, then 64 channels."""
    return tuple(
        L.Conv2d(
            in_channels=c,
            out_channels=1,
            kernel_size=3,
            input_size=TRANSFER_SIDE,
            padding=1,
            bias=False,
        )
        for c in (3, TRANSFER_CHANNELS)
    )


def _transfer_a_feedback() -> dict[str, str]:
    rgb, deep = transfer_a_filters()
    w = f"{rgb.params:,} → {deep.params:,} weights"
    m = f"{rgb.macs():,} → {deep.macs():,} MACs"
    pos = f"{rgb.weight_reuse:,}"
    return {
        "both": f"A filter spans every input channel: K×K×C weights, {w}. Each of the {pos} positions then "
        f"does one multiply-accumulate per weight, so the MACs grow in step, {m}, about "
        f"{deep.params / rgb.params:.0f}×. Weight sharing frees the filter from the image's size, not from "
        "its depth.",
        "macs": f"Sharing frees the weights from the image's height and width, not from its channels: each "
        f"position reads all of them, so the filter holds K×K×C values, {w}, and the MACs follow ({m}).",
        "weights": f"The filter visits the same {pos} positions, but at each one it now does one MAC per "
        f"weight, {deep.params:,} instead of {rgb.params:,}: {m}. Positions times weights is the work.",
        "neither": f"The map keeps its {TRANSFER_SIDE}×{TRANSFER_SIDE} positions, but each reads "
        f"{TRANSFER_CHANNELS} channels instead of 3: {w}, {m}.",
    }


TRANSFER_A = Prediction(
    question=(
        "The same 3×3 filter shape now runs deeper in the network, over a 320×320 feature map of 64 "
        "channels instead of the RGB scan's 3 (this part's input is grayscale or RGB). Against the RGB "
        "scan at the same size, what happens to one filter's weights and its multiply-accumulates?"
    ),
    options={
        "both": "Both grow, in step: every position reads every channel",
        "macs": "Only the MACs grow: a shared filter's weights never see the input",
        "weights": "Only the weights grow: the filter visits the same positions",
        "neither": "Neither changes: the map keeps the same number of pixels",
    },
    answer="both",
    feedback=Deferred(_transfer_a_feedback),
    kind="transfer",
    reveals=("every position reads every channel", "58,982,400"),
    asks="behaviour",
    misconceptions={
        "macs": (
            "a shared filter ignores its input",
            "Weight sharing makes a filter's size independent of everything about its input",
        ),
        "weights": (
            "work follows positions only",
            "A filter's arithmetic is set by how many positions it visits",
        ),
        "neither": (
            "a layer's cost follows the pixels",
            "A layer's weights and work are set by the image's height and width alone",
        ),
    },
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
            "Filter's MACs per image",
            fmt_count(conv.macs()),
            f"{counted(conv.params, 'weight')} × {conv.weight_reuse:,} positions; "
            f"dense detector {dense.macs():,}",
        ),
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
        "RGB alike. Weights are not work: the filter's weight count never sees the image size, but "
        f"it runs at every position, {conv.macs():,} MACs per image against the dense detector's "
        f"{dense.macs():,}. Locality plus sharing is the bias; "
        "the saving is what it buys when images really are local."
    )
    peek = [
        f"dense detector = H × W × C = {res} × {res} × {c} = {counted(dense.params, 'weight')}",
        f"shared filter  = K × K × C = {k} × {k} × {c} = {counted(conv.params, 'weight')}",
        f"saving         = (H·W·C) / (K²·C) = H·W / K² = {ratio:,.1f}×",
        f"reuse          = output positions ('same' padding) = {conv.weight_reuse:,} uses per weight",
        f"filter MACs    = K × K × C × positions = {conv.params:,} × {conv.weight_reuse:,} = {conv.macs():,}",
        f"1,000-unit dense layer = {dense.in_features:,} × {SELF_CHECK_UNITS:,} = {layer_1000.params:,} weights (no bias)",
    ]
    return View(fig, cards, summary, "Weights per detector", peek)


# ---------------------------------------------------------------------------------------------
# Part B: the five families and the lighthouse roster
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "Marco's team wants to run a CNN on its click logs: each row is one user's features "
        "(age, price, hour, device, ...). What does the convolution's locality bias do for that "
        "data?"
    ),
    options={
        "hurts": "It misleads: it links columns that sit side by side by accident",
        "helps": "It helps: a stronger prior always needs less data to learn",
        "free": "Nothing either way: a bias only removes redundant weights",
    },
    answer="hurts",
    feedback={
        "hurts": "A bias is an assumption, and No Free Lunch says it helps only where the data has that "
        "structure. A table's columns have no neighbours: a 3-wide filter relates age to price because "
        "they happen to sit side by side, and needs depth to relate columns that sit far apart. Each "
        "Table-1 family pairs one data structure with the bottleneck it exposes.",
        "helps": "A prior saves data only when its assumption holds (No Free Lunch). On a table the locality "
        "assumption is false: the restricted hypothesis space leaves out the cross-column functions the "
        "task needs, so the stronger bias learns worse, not faster.",
        "free": "Restricting the hypothesis space removes functions, not just weights: a convolution cannot "
        "directly combine columns that sit far apart, so if the task needs them the bias costs accuracy. "
        "That is No Free Lunch: no bias is free of assumptions.",
    },
    reveals=("No Free Lunch", "side by side by accident"),
    asks="behaviour",
    misconceptions={
        "helps": (
            "the strongest bias is always best",
            "Restricting the hypothesis space always saves data and compute",
        ),
        "free": (
            "a bias is free efficiency",
            "An inductive bias removes only redundant weights, never a function the task needs",
        ),
    },
)

#: TRANSFER_B's case, beyond part B's controls (its rows run at batch 1): GPT-2 XL decoding 64
#: sequences at once on the H100 in FP32, each with a 1,024-token cache.
TRANSFER_BATCH = 64

TRANSFER_B = Prediction(
    question=(
        "On the H100 in FP32 (its CUDA cores, no TF32), GPT-2 XL decoding one token at batch 1 "
        "is launch-bound. Decode 64 sequences at once instead (batch 64, each with a "
        "1,024-token KV cache; this part decodes at batch 1 only; the engine's listed peak and "
        "5 µs per kernel launch). What binds it now?"
    ),
    options={
        "compute": "Compute: 64 tokens share each weight fetch, as in a batched GEMM",
        "memory": "Memory bandwidth: each sequence still reads its own KV cache",
        "dispatch": "Kernel launches: the fixed cost per token still dominates",
    },
    answer="memory",
    feedback=Deferred(lambda: _transfer_b_feedback()),
    kind="transfer",
    reveals=("its own KV cache",),
    asks="regime",
    misconceptions={
        "compute": (
            "batching makes decode a GEMM",
            "At batch 64 every weight is reused 64 times, so decoding turns compute-bound",
        ),
        "dispatch": (
            "launches always dominate decode",
            "A decoded token's kernel launches outweigh its work at any batch",
        ),
    },
)


def transfer_b_profile():
    """TRANSFER_B's case through the engine (part B's listed peak, efficiency 1.0)."""
    return E.Engine.solve(
        M.Models.GPT2,
        HW.Hardware.get("H100"),
        batch_size=TRANSFER_BATCH,
        precision="fp32",
        efficiency=1.0,
    )


def _transfer_b_feedback() -> dict[str, str]:
    p = transfer_b_profile()
    comp, mem, launch = p.time_split
    kv = fmt_bytes(p.kv_cache_bytes)
    split = (
        f"memory-bound rows {fmt_time(mem)}, compute-bound rows {fmt_time(comp)}, launches "
        f"{fmt_time(launch)} of {fmt_time(p.latency_s)}"
    )
    return {
        "memory": f"The weights are fetched once for all 64 tokens, but each sequence reads its own 1,024-token "
        f"cache: {kv} of KV cache per step, which batching does not share. {split}: memory-bound, and "
        f"the average intensity stays near {p.arithmetic_intensity.magnitude:,.1f} FLOP/B.",
        "compute": f"The weight reads are shared, but the attention rows read each sequence's own cache ({kv} "
        f"in all), and those bytes grow with the batch as fast as the FLOPs do. {split}.",
        "dispatch": f"The launches cost the same {fmt_time(launch)} per step whatever the batch, while the "
        f"bytes grow with it: {split}.",
    }


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

#: The computation each family performs (6.1's second of four questions: data pattern, computation,
#: mapping to hardware, bottleneck; L76).
FAMILY_COMPUTATION = {
    "mlp": "dense matrix products, every input times every weight",
    "cnn": "sliding-window filters, lowered to matrix products (im2col or implicit GEMM)",
    "rnn": "one small matrix product per step, the steps in order",
    "transformer": "projection and feed-forward matrix products plus S² attention scores",
    "dlrm": "embedding-row gathers feeding small MLPs",
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
    # the regime is where the time goes; the average intensity is named only where it agrees
    if t1.bottleneck == "Memory":
        why = f"{mem / t1.latency_s:.0%} of its time is in memory-bound layers"
        if ai < ridge:
            why += (
                f" (its {ai:,.1f} {unit} on average fall short of the {dname}'s {prec} ridge point "
                f"of {ridge:,.1f} {unit}"
            )
            if precision != "fp32" and "fp32" in dev.compute.precisions:
                r32 = dev.ridge_point("fp32").magnitude
                why += (
                    f", {ridge / r32:,.0f}× the FP32 one ({r32:,.1f} FLOP/B): faster arithmetic needs "
                    "more reuse to stay busy"
                )
            why += ")"
        return why
    return f"{comp / t1.latency_s:.0%} of its time is in compute-bound layers" + (
        f": even its {ai:,.1f} {unit} clear the {dname}'s low ridge point of {ridge:,.2g} {unit}, "
        "so its arithmetic is slow next to its memory bus"
        if ai >= ridge
        else ""
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
        f"the four questions, for the {name} on the {device_label(dev)}: data pattern: {data.lower()}; "
        f"computation: {FAMILY_COMPUTATION[family]}; mapping to hardware: {reuse:,.3g} uses per weight "
        f"at batch 1; bottleneck: {row} here, {verdict_text(t1)} at Table 1's scale",
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

#: PRED_C's batch: large enough that launches are a minor share on the H100.
C_QUESTION_BATCH = 64

PRED_C = Prediction(
    question=(
        "On the H100 in FP32 (its CUDA cores, no TF32) the chapter's weight-only proxy puts "
        "ResNet-50 (80 FLOP/B) and MobileNetV2 (43 FLOP/B) both right of the ridge point (20 "
        "FLOP/B). Serve each at batch 64 (eager, one kernel per layer; the listed peak and 5 µs "
        "per kernel launch). Which resource does the engine find binding each, by where its "
        "time goes?"
    ),
    options={
        "both_compute": "Compute-bound, both ResNet-50 and MobileNetV2",
        "split": "ResNet-50 compute-bound, MobileNetV2 memory-bound",
        "both_memory": "Memory-bound, both ResNet-50 and MobileNetV2",
        "reversed": "ResNet-50 memory-bound, MobileNetV2 compute-bound",
    },
    answer="split",
    feedback=Deferred(lambda: _pred_c_feedback()),
    reveals=("MobileNetV2 is memory-bound", "MobileNetV2 memory-bound"),
    asks="regime",
    misconceptions={
        "both_compute": (
            "the proxy is the regime",
            "FLOPs per weight byte place a model on the roofline by themselves",
        ),
        "both_memory": (
            "every CNN waits on feature maps",
            "Activation traffic outweighs the arithmetic of any convolutional network",
        ),
        "reversed": (
            "a bigger model moves more bytes",
            "The model with more weights is the one that waits on memory",
        ),
    },
)


def c_question_profiles(efficiency: float = 1.0) -> dict:
    """PRED_C's case through the engine: ResNet-50 and MobileNetV2 at batch 64 on
    the H100 in FP32 (part C runs the listed peak, efficiency 1.0)."""
    dev = HW.Hardware.get("H100")
    return {
        k: E.Engine.solve(
            M.Models.get(k),
            dev,
            batch_size=C_QUESTION_BATCH,
            precision="fp32",
            efficiency=efficiency,
        )
        for k in ("ResNet50", "MobileNetV2")
    }


def _pred_c_feedback() -> dict[str, str]:
    p = c_question_profiles()
    r, m = p["ResNet50"], p["MobileNetV2"]
    rs, ms = time_shares(r), time_shares(m)
    ra, ma = r.arithmetic_intensity.magnitude, m.arithmetic_intensity.magnitude
    return {
        "split": f"ResNet-50 is compute-bound ({rs}): its convolutions reuse each weight and each "
        f"activation many times, {ra:,.1f} FLOP/B on average. MobileNetV2 is memory-bound ({ms}): its "
        f"depthwise and 1×1 layers do little arithmetic per byte of feature map, {ma:,.1f} FLOP/B. The "
        "proxy counts weight bytes only, and MobileNetV2 moves many times its weight bytes in feature maps.",
        "both_compute": f"The proxy leaves out the feature maps every layer reads and writes. For ResNet-50 "
        f"they matter little ({rs}: compute-bound), but MobileNetV2 moves many times its weight bytes in "
        f"activations: {ma:,.1f} FLOP/B, and {ms}: memory-bound.",
        "both_memory": f"ResNet-50's 3×3 convolutions do enough arithmetic per byte of feature map to stay "
        f"compute-bound ({rs}); it is MobileNetV2's depthwise and 1×1 layers that do too little ({ms}).",
        "reversed": f"Size is not intensity: ResNet-50 has more weights but reuses them and its feature maps "
        f"({rs}: compute-bound); the smaller MobileNetV2 does little arithmetic per byte it moves ({ms}: "
        "memory-bound).",
    }


#: TRANSFER_C's batch, past part C's slider (1-256).
TRANSFER_C_BATCH = 4096

TRANSFER_C = Prediction(
    question=(
        "Past this part's slider, serve MobileNetV2 at batch 4,096 on the H100 in FP32 (eager, 5 µs per "
        "kernel launch). Its weight-only proxy is then about 176,000 FLOP/B, thousands of times the "
        "ridge point. Which resource binds it?"
    ),
    options={
        "compute": "Compute: each fetched weight now feeds thousands of images",
        "memory": "Memory: its feature-map bytes grow with the batch like its FLOPs",
        "capacity": "Capacity: 4,096 images' feature maps overflow its 80 GB",
    },
    answer="memory",
    feedback=Deferred(lambda: _transfer_c_feedback()),
    kind="transfer",
    reveals=("feature-map bytes grow with the batch",),
    asks="regime",
    misconceptions={
        "compute": (
            "batching always reaches the ridge",
            "A big enough batch makes any model compute-bound, as it does a dense layer",
        ),
        "capacity": (
            "a huge batch cannot fit",
            "Thousands of images' activations must exceed a GPU's memory",
        ),
    },
)


def transfer_c_profile(efficiency: float = 1.0):
    """TRANSFER_C's case through the engine (part C runs the listed peak, efficiency 1.0)."""
    return E.Engine.solve(
        M.Models.MobileNetV2,
        HW.Hardware.get("H100"),
        batch_size=TRANSFER_C_BATCH,
        precision="fp32",
        efficiency=efficiency,
    )


def _transfer_c_feedback() -> dict[str, str]:
    p = transfer_c_profile()
    proxy = E.weight_only_intensity(M.Models.MobileNetV2, "fp32", TRANSFER_C_BATCH)
    ai = p.arithmetic_intensity.magnitude
    fs = time_shares(p)
    return {
        "memory": f"The proxy grows with the batch ({proxy:,.0f} FLOP/B), but each image brings its own "
        f"feature maps, so bytes and FLOPs grow together and the real intensity stays near {ai:,.1f} "
        f"FLOP/B: {fs}, memory-bound. It fits: {fmt_bytes(p.memory_footprint_bytes)} of the H100's 80 GB.",
        "compute": f"Each weight does feed 4,096 images, but weights are a sliver of the bytes: every image "
        f"reads and writes its own feature maps. The intensity stays near {ai:,.1f} FLOP/B, far left of "
        f"the ridge: {fs}.",
        "capacity": f"MobileNetV2's feature maps are small per image: 4,096 of them with the weights take "
        f"{fmt_bytes(p.memory_footprint_bytes)}, inside 80 GB. What binds is the bus: {fs}.",
    }


def time_shares(prof) -> str:
    """Where a profile's time goes, in the engine's own split (``Profile.time_split``): the regime
    follows these shares, not the average intensity."""
    comp, mem, launch = prof.time_split
    t = prof.latency_s
    return (
        f"memory-bound layers {mem / t:.0%}, compute-bound layers {comp / t:.0%}, launches "
        f"{launch / t:.0%} of {fmt_time(t)}"
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


def where(intensity: float, ridge: float) -> str:
    """Where an intensity sits against the ridge point: a placement, not a regime. A whole model's
    regime follows where its time goes (``engine_regime``), which an average can misplace."""
    return "right of the ridge" if intensity >= ridge else "left of the ridge"


def engine_regime(prof, ridge: float, unit: str) -> str:
    """The engine's regime for a feasible profile, read from where its time goes
    (``Profile.bottleneck`` and ``Profile.time_split``), with the average intensity beside it; where
    the average sits on the other side of the ridge from most of the layer time, say why."""
    comp, mem, launch = prof.time_split
    t = prof.latency_s
    ai = prof.arithmetic_intensity.magnitude
    text = (
        f"engine: {bound_phrase(prof.bottleneck)} (memory-bound layers {mem / t:.0%}, compute-bound "
        f"{comp / t:.0%}, launches {launch / t:.0%}); average {ai:,.1f} {unit}"
    )
    if comp + mem > 0 and (ai >= ridge) != (comp >= mem):
        heavy = "compute-bound" if comp >= mem else "memory-bound"
        text += (
            f", {where(ai, ridge)}, yet most layer time is {heavy}: the average mixes heavy "
            "layers with light ones"
        )
    return text


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
            note = f"proxy {where(i, ridge)} · {engine_regime(p, ridge, unit)}"
            status = "ok" if p.bottleneck == "Compute" else "warn"
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
    cond = conditions(roof, fused=False, batch=b, device=dname)
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
            f" The engine's fuller count (weights + activations) puts ResNet-50's average at "
            f"{ai['ResNet50']:,.1f} {unit} ({cond}): the proxy ignores activation traffic, which grows with "
            f"the batch. Its regime follows where its time goes: {time_shares(engine['ResNet50'])}, "
            f"{bound_phrase(engine['ResNet50'].bottleneck)}."
            if "ResNet50" in fits
            else ""
        )
        + " Each card names the regime by where the model's time goes (the engine's per-layer split), "
        "not by its average intensity: an average mixes heavy layers with light ones."
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


# ---------------------------------------------------------------------------------------------
# Part D: the inductive-bias hierarchy (section 6.9.4's order, counted on one layer)
# ---------------------------------------------------------------------------------------------

#: Features per position, the same for every family (the part varies length, distance, kernel).
PRIOR_FEATURES = 64
#: PRED_D's case: the part's defaults.
PRIOR_CASE = dict(seq_len=256, kernel=3, distance=50)


def hierarchy(seq_len: int, kernel: int, distance: int):
    """One layer of each family on ``seq_len`` positions × PRIOR_FEATURES features, strongest prior
    first (``mlsysim.priors``)."""
    from ... import priors

    return priors.compare(int(seq_len), PRIOR_FEATURES, int(kernel), int(distance))


def _pred_d_feedback() -> dict[str, str]:
    cnn, rnn, att, mlp = hierarchy(**PRIOR_CASE)
    c = PRIOR_FEATURES
    drop = f"{mlp.weights:,} to {att.weights:,} weights ({mlp.weights // att.weights:,}× fewer)"
    reach = (
        f"attention and the MLP relate all {att.total_pairs:,} position pairs, the RNN only the past "
        f"({rnn.reach:.0%}), the CNN only its neighbours ({cnn.reach:.1%})"
    )
    return {
        "shrink": f"From the MLP to attention the count falls from {drop}: attention computes how "
        f"positions mix from their content, with the same 4 × {c}² weights at every position. The RNN "
        f"({rnn.weights:,}) and the 3-wide CNN ({cnn.weights:,}) also stay near {c}² at any length, so "
        f"among the sharing families the weights do not set the order; what one layer can relate does: "
        f"{reach}. The pair {cnn.distance} apart is out of the CNN's reach until {cnn.layers_needed} "
        "layers are stacked. A strong prior excludes useful solutions as readily as useless ones.",
        "free": f"The weights do collapse ({drop}), but the strongest prior also excludes what the task "
        f"needs: a 3-wide CNN relates only {cnn.reach:.1%} of the position pairs, and the two positions "
        f"{cnn.distance} apart are not among them until {cnn.layers_needed} layers are stacked. A prior "
        "cannot tell useful solutions from useless ones; it removes both.",
        "more": f"A prior is a constraint, and constraints remove weights: the MLP, with no prior, learns "
        f"{mlp.weights:,}; the sharing families learn {rnn.weights:,} to {att.weights:,}, because one "
        "set of weights serves every position. What grows with the prior is what the layer cannot "
        f"express: the CNN relates {cnn.reach:.1%} of the position pairs.",
        "newest": f"Attention keeps full reach ({att.reach:.0%} of the pairs) because it assumes the "
        f"least about where the relevant positions are; its {att.weights:,} weights are more than the "
        f"RNN's {rnn.weights:,} or the 3-wide CNN's {cnn.weights:,}. Its prior is weaker than theirs, "
        "not stronger: the chapter orders CNN, RNN, attention, MLP, by what each assumes, not by age.",
    }


PRED_D = Prediction(
    question=(
        "A task's answer depends on two positions 50 apart in a sequence of 256 positions × 64 "
        "features. One layer of each family (an MLP, self-attention, an RNN, a CNN with a 3-wide "
        "kernel) maps the sequence to the same shape. As the family's prior gets stronger, what happens "
        "to the weights it must learn and to what one layer can relate?"
    ),
    options={
        "shrink": "Weights collapse and reach shrinks: the strongest cannot join the pair",
        "free": "Weights collapse and reach holds: a prior drops only useless weights",
        "more": "Weights grow and reach holds: each assumption takes more weights to encode",
        "newest": "Attention needs fewest weights, reaches all: the newest is strongest",
    },
    answer="shrink",
    feedback=Deferred(_pred_d_feedback),
    reveals=("out of the CNN's reach",),
    asks="behaviour",
    misconceptions={
        "free": (
            "a stronger prior is always better",
            "A stronger prior removes only weights the task never needs, so it costs nothing",
        ),
        "more": (
            "more weights means a stronger prior",
            "Each assumption an architecture encodes needs weights to hold it",
        ),
        "newest": (
            "the newest family has the strongest prior",
            "Attention, the most recent family, must assume the most and learn the least",
        ),
    },
)

#: TRANSFER_D's length, past part D's choices (64 to 1,024 positions).
TRANSFER_D_SEQ = 8192


def _transfer_d_feedback() -> dict[str, str]:
    short = hierarchy(PRIOR_CASE["seq_len"], 3, 1)
    long = hierarchy(TRANSFER_D_SEQ, 3, 1)
    s_cnn, s_rnn, s_att, s_mlp = short
    cnn, rnn, att, mlp = long
    grow = f"{s_mlp.weights:,} → {mlp.weights:,}"
    same = f"CNN {cnn.weights:,}, RNN {rnn.weights:,}, attention {att.weights:,}"
    return {
        "mlp": f"The MLP gives every input value its own weight to every output value: {grow} weights, "
        f"{mlp.weights // s_mlp.weights:,}× for a sequence 32 times as long. The others share one set of weights "
        f"across positions and keep it ({same}). Attention's pairs cost arithmetic, not weights: its "
        f"MACs grow {s_att.macs:,} → {att.macs:,}, its weights not at all.",
        "all": f"Only a layer that gives each position its own weights grows with the length: the MLP, "
        f"{grow}. Shared weights are reused at every new position: {same}, at 256 or 8,192 positions.",
        "attention": f"Attention computes its position-to-position weights from content at run time; what "
        f"it learns is the Q, K, V and O projections, {att.weights:,} at any length. Its pairs cost MACs "
        f"({s_att.macs:,} → {att.macs:,}). Only the MLP's learned weights grow: {grow}.",
        "none": f"That holds for the sharing families ({same}), not for the MLP: a dense layer over the "
        f"whole sequence has a weight per input value per output value, {grow}, "
        f"{mlp.weights // s_mlp.weights:,}× for a sequence 32 times as long.",
    }


TRANSFER_D = Prediction(
    question=(
        "Past this part's lengths, the sequence grows from 256 to 8,192 positions, still 64 features "
        "each, and each family's layer still maps it to the same shape. What happens to the weights "
        "each layer must learn?"
    ),
    options={
        "mlp": "Only the MLP's grow: the others reuse one set at every position",
        "all": "All four grow: every new position needs weights of its own",
        "attention": "The MLP's and attention's grow: relating every pair costs weights",
        "none": "None grow: a layer's weights follow its features, never its length",
    },
    answer="mlp",
    feedback=Deferred(_transfer_d_feedback),
    kind="transfer",
    reveals=("the others reuse one set",),
    asks="behaviour",
    misconceptions={
        "all": (
            "every position needs its own weights",
            "Each position added to the input adds weights to every family's layer",
        ),
        "attention": (
            "reach costs weights",
            "A layer that relates every pair of positions must learn a weight for each pair",
        ),
        "none": (
            "weights never depend on length",
            "A layer's weight count is fixed by its feature width, even a dense layer's",
        ),
    },
)

D_LENGTH = Choice("Sequence length (positions)", {"64": "64", "256": "256", "1024": "1,024"}, "256")
D_DISTANCE = Slider("Positions between the two that matter", 1, 63, 50)
D_KERNEL = Choice("CNN kernel width", {"3": "3", "5": "5", "7": "7"}, "3")


@widget_args
def part_d(length: str, distance: int, kernel: str) -> View:
    import plotly.graph_objects as go

    n, d, k = int(length), int(distance), int(kernel)
    rows = hierarchy(n, k, d)
    cnn, rnn, att, mlp = rows
    c = PRIOR_FEATURES
    fig = figure(
        f"Weights against reach: one layer on {n:,} positions × {c} features",
        "Share of position pairs one layer relates (log scale)",
        "Weights to learn (log scale)",
        log_x=True,
        log_y=True,
    )
    place = {
        "cnn": "top center",
        "rnn": "top center",
        "attention": "bottom left",
        "mlp": "bottom left",
    }
    for r in rows:
        fig.add_trace(
            go.Scatter(
                x=[r.reach],
                y=[r.weights],
                mode="markers+text",
                name=r.name + (" (cannot relate the pair)" if not r.relates else ""),
                text=[r.name],
                textposition=place[r.family],
                marker=dict(size=13, symbol="circle" if r.relates else "x"),
            )
        )

    def pair_note(r) -> str:
        if not r.relates:
            return f"the pair {d} apart: out of one layer's reach ({counted(r.layers_needed, 'layer')} needed)"
        if r.family == "rnn":
            return f"the pair {d} apart: carried {counted(d, 'step')} through one {c}-value state"
        return f"the pair {d} apart: read directly, one step"

    formula = {
        "cnn": f"K × c² = {k} × {c}²",
        "rnn": f"2c² (W_ih, W_hh) = 2 × {c}²",
        "attention": f"4c² (Q, K, V, O) = 4 × {c}²",
        "mlp": f"(n·c)² = ({n:,} × {c})²",
    }
    what = {
        "cnn": f"relates {cnn.reach:.1%} of the pairs: its {k} neighbours",
        "rnn": f"relates {rnn.reach:.1%} of the pairs: only the past",
        "attention": "relates every pair, weighted by content",
        "mlp": "relates every pair, a weight for each",
    }
    cards = [
        Card(
            r.name,
            counted(r.weights, "weight"),
            f"{formula[r.family]}; {what[r.family]}; {pair_note(r)}",
            "bad" if not r.relates else "warn" if r.family == "mlp" else "ok",
        )
        for r in rows
    ]
    cards.append(
        Card(
            "Examples before data can pin the weights",
            f"{mlp.examples_to_pin:,} vs {att.examples_to_pin:,}",
            f"MLP vs attention: weights ÷ ({n:,} × {c}) output values per example (a counting bound)",
        )
    )
    fewest = min(rows, key=lambda r: r.weights)
    summary = (
        f"One layer of each family maps {n:,} positions × {c} features to the same shape. The MLP assumes "
        f"nothing and learns {mlp.weights:,} weights; the three families that share weights across "
        f"positions learn {fewest.weights:,} to {max(cnn.weights, att.weights):,}, whatever the length. "
        f"Among those three the weights do not set the order (the {fewest.name} learns the fewest here); "
        f"what each one excludes does. Attention relates every pair of positions, the RNN only an "
        f"earlier position to a later one ({rnn.reach:.1%} of the pairs), the CNN only positions within "
        f"{k // 2} of each other ({cnn.reach:.1%}). "
        + (
            f"The two positions {d} apart are outside the CNN's window: no weight of that layer links "
            f"them, whatever it learns, and {counted(cnn.layers_needed, 'stacked layer')} would be "
            "needed before they meet."
            if not cnn.relates
            else f"The two positions {d} apart sit inside the CNN's window, so here its prior costs "
            "nothing: the task matches it."
        )
        + " The fewer weights a prior leaves, the fewer examples can pin them down; the more it "
        "excludes, the more a task that needs the excluded pairs loses."
    )
    peek = [
        f"CNN: K × c × c = {k} × {c} × {c} = {cnn.weights:,} weights; pairs within ±{k // 2}: "
        f"Σ (n − |o|) over |o| ≤ {k // 2} = {cnn.pairs:,} of {cnn.total_pairs:,}",
        f"RNN: (c + c) × c = {rnn.weights:,} weights; pairs with input ≤ output: n(n + 1)/2 = {rnn.pairs:,}",
        f"attention: 4 × c × c = {att.weights:,} weights; every pair: n² = {att.pairs:,}; "
        f"MACs {att.macs:,} (the n² scores are computed, not learned)",
        f"MLP: (n·c) × (n·c) = {mlp.weights:,} weights; every pair: n² = {mlp.pairs:,}",
        f"stacked CNN layers to link positions {d} apart: ⌈{d} / {k // 2}⌉ = {cnn.layers_needed}",
        f"examples to pin the weights ≥ weights / (n·c): MLP {mlp.weights:,} / {n * c:,} = "
        f"{mlp.examples_to_pin:,}",
    ]
    return View(fig, cards, summary, "The hierarchy of priors", peek)
