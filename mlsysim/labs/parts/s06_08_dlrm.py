"""Section 6.8, Sparse architectures (DLRM): the capacity wall, gathers, and where tables live.

Each part is a plain function of its widget values. Table bytes come from
``L.Embedding(...).weight_bytes``, gathered bytes from ``gather_bytes_per_lookup`` and
``activation_bytes``, timings and feasibility from ``Engine.solve`` of a ``dlrm(...)`` model,
capacities and HBM bandwidths from the hardware registry. The two interconnect bandwidths the
core does not hold yet (PCIe Gen5 x16 and NVLink 4) are named constants below, with sources.
Chapter numbers are asserted in ``tests/test_s06_08_dlrm.py``.
"""

from __future__ import annotations

import math
from functools import lru_cache

from ... import catalogue
from ..._lazy import lazy
from ..charts import device_label, figure, memory_lines, out_of_memory
from ..components import (
    Card,
    Choice,
    Deferred,
    Prediction,
    Slider,
    View,
    counted,
    feasibility,
    fmt_bytes,
    fmt_count,
    fmt_ratio,
    fmt_time,
    widget_args,
)
from ..vocab import bound_phrase, conditions

E = lazy("mlsysim.engine")
HW = lazy("mlsysim.hardware")
L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")
U = lazy("mlsysim.units")

CHAPTER = "6.8"
PARTS = ("A", "B", "C", "D", "E")

#: Embedding width of every table in the chapter's examples (L1188: "such as 128 elements").
EMB_DIM = 128
#: Napkin Math 6.2's item table: 100M items (L1241-1250), FP32.
NAPKIN_ROWS = 100_000_000
#: The self-check's two tables: 10^8 items and 10^9 users, 128-wide FP32 (L1190, L1910).
ITEM_ROWS, USER_ROWS = 10**8, 10**9
#: Table precision of the chapter's sizing (FP32, 4 bytes per value; L1190, Table 6).
TABLE_PRECISION = "fp32"
#: Sustained share of dense peak for the engine's compute term (its default eta_hw).
EFFICIENCY = 0.5

# --- Interconnects the hardware registry does not model yet (H100 SXM5) ------------------------
#: PCIe Gen5 x16 host link, per direction. NVIDIA H100 Tensor Core GPU datasheet (SXM5 column):
#: "PCIe Gen5: 128GB/s" (both directions together), i.e. 64 GB/s each way;
#: https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet (2023 edition,
#: read 2026-11)
#: (PCI-SIG: 32 GT/s per lane x 16 lanes, 128b/130b encoding = 63 GB/s per direction.)
PCIE_GEN5_X16 = "64 GB/s"
#: NVLink 4 on one H100 SXM5, both directions together: "NVLink: 900GB/s" (same datasheet;
#: https://www.nvidia.com/en-us/data-center/nvlink/ "900 GB/s total bandwidth per GPU"; read 2026-11).
NVLINK4_TOTAL = "900 GB/s"
#: NVLink (through the NVSwitches) joins the 8 GPUs of one HGX/DGX H100 node; a larger NVLink
#: domain needs the separate NVLink Switch System. NVIDIA DGX H100 User Guide, "Introduction":
#: "8x NVIDIA H100 GPUs ... 4x NVIDIA NVSwitches"; https://docs.nvidia.com/dgx/dgxh100-user-guide/
#: (2023, read 2026-11)
NODE_GPUS = 8
#: Between nodes each H100 has its own ConnectX-7 port, "400 Gb/s InfiniBand" (NDR; same guide),
#: i.e. 50 GB/s per direction per GPU, a ninth of NVLink's 450 GB/s.
INFINIBAND_NDR = "50 GB/s"


def nvlink_per_direction():
    """One direction of NVLink 4 (what one GPU can send while it receives the same amount)."""
    return U.Q_(NVLINK4_TOTAL) / 2


DEVICES = catalogue.labels(["A100", "H100", "A100_40GB", "JetsonOrinNX"])
PRECISIONS = {"fp32": "FP32 (4 B)", "fp16": "FP16 (2 B)", "int8": "INT8 (1 B)"}


def table(rows: int, dim: int = EMB_DIM, lookups: int = 1) -> L.Embedding:
    return L.Embedding(
        num_embeddings=int(rows),
        embedding_dim=int(dim),
        lookups=int(lookups),
        pooling="sum" if lookups > 1 else "none",
    )


def tables_bytes(rows: tuple[int, ...], precision: str, dim: int = EMB_DIM) -> int:
    """Bytes of every table, resident in full (rows x width x bytes per value, from the core)."""
    return sum(table(n, dim).weight_bytes(precision) for n in rows)


# ---------------------------------------------------------------------------------------------
# Part A: the capacity wall
# ---------------------------------------------------------------------------------------------


def _feedback_a() -> dict[str, str]:
    cap = HW.Hardware.get("A100").memory.capacity.m_as("B")
    one = table(NAPKIN_ROWS).weight_bytes(TABLE_PRECISION)
    mlps = M.Models.DLRM.weight_bytes(TABLE_PRECISION) - tables_bytes(
        tuple(
            r.layer.num_embeddings for r in M.Models.DLRM.rows() if isinstance(r.layer, L.Embedding)
        ),
        TABLE_PRECISION,
    )
    return {
        "capacity": f"100M × 128 × 4 B = {fmt_bytes(one)} per table, {one / cap:.0%} of the device; the pair "
        f"needs {fmt_bytes(2 * one)}, {2 * one / cap:.0%} of 80 GB. Every row must be resident wherever "
        "lookups run, used or not, so the plan fails before speed is even asked about.",
        "compute": f"The MLPs do nearly all the arithmetic, but they hold {fmt_bytes(mlps)}; the tables hold "
        f"{fmt_bytes(2 * one)} and do none. Arithmetic is not what stops this plan: the tables do not fit "
        f"({2 * one / cap:.0%} of 80 GB).",
        "bandwidth": "Random row reads do make lookups bandwidth- and latency-bound, but only once the tables "
        f"are in memory: here the pair ({fmt_bytes(2 * one)}) is {2 * one / cap:.0%} of the device, so there is "
        "no speed to measure.",
        "none": "A table's cost is the memory it occupies, not the arithmetic a lookup does: 100M rows × 128 "
        f"values × 4 B = {fmt_bytes(one)}, and two of them need {fmt_bytes(2 * one)}, more than 80 GB.",
    }


PRED_A = Prediction(
    question=(
        "A recommender's item table and user table each hold 100M rows of 128 FP32 values; a lookup copies "
        "one row and does no multiply-accumulates, and the MLPs beside them hold under 10 MB. The team "
        "plans to serve it from one 80 GB A100. Which resource limits the plan first?"
    ),
    options={
        "capacity": "Memory capacity: both tables must be resident in full",
        "compute": "Compute: the MLPs do almost all of the model's arithmetic",
        "bandwidth": "Memory bandwidth: every lookup is a random row read",
        "none": "None of them: a lookup does so little work that tables are light",
    },
    answer="capacity",
    feedback=Deferred(_feedback_a, precomputed="s06_08_dlrm.PRED_A"),
    reveals=("102.4 GB", "128% of 80 GB"),
    asks="estimate",
    misconceptions={
        "compute": (
            "cost is arithmetic",
            "The part of the model that does the FLOPs is the part that limits it",
        ),
        "bandwidth": (
            "speed before fit",
            "Lookups are random reads, so bandwidth is the first limit, whatever the table size",
        ),
        "none": (
            "no FLOPs, no cost",
            "A layer that does almost no arithmetic costs almost nothing to serve",
        ),
    },
)
A_ROWS = Slider("Rows per table (millions)", 10, 2000, NAPKIN_ROWS // 10**6, step=10)
A_TABLES = Slider("Tables of this size", 1, 8, 1)
A_DIM = Choice(
    "Embedding width (values per row)", {"32": "32", "64": "64", "128": "128", "256": "256"}, "128"
)
A_PRECISION = Choice("Table precision", PRECISIONS, "fp32")
A_DEVICE = Choice("Device", DEVICES, "A100")

_ROW_GRID_M = [10, 20, 50, 100, 200, 500, 1000, 2000]


@widget_args
def part_a(rows: int, tables: int, dim: str, precision: str, device: str) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(device)
    n, t, d = int(rows) * 10**6, int(tables), int(dim)
    one = table(n, d).weight_bytes(precision)
    total = tables_bytes((n,) * t, precision, d)
    cap = dev.memory.capacity.m_as("B")

    fig = figure(
        f"Embedding tables vs device memory ({t} table{'s' if t > 1 else ''} × {d} values per row)",
        "Rows per table (millions, log scale)",
        "Table bytes (GB, log scale)",
        log_x=True,
        log_y=True,
    )
    for p, label in PRECISIONS.items():
        fig.add_trace(
            go.Scatter(
                x=_ROW_GRID_M,
                y=[tables_bytes((m * 10**6,) * t, p, d) / 1e9 for m in _ROW_GRID_M],
                name=label,
                mode="lines",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[int(rows)],
            y=[total / 1e9],
            name="your tables",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )
    memory_lines(fig, [dev], unit="GB")

    fit_count = int(cap // one)
    hot = M.zipf_hot_share(n, n // 100)
    cards = [
        Card(
            "One table",
            fmt_bytes(one),
            f"{n / 1e6:,.0f}M × {d} × {PRECISIONS[precision].split(' ')[0]}",
        ),
        Card(
            "Share of the device",
            f"{one / cap:.0%}",
            f"one table on {fmt_bytes(cap)}",
            "ok" if one <= cap else "bad",
        ),
        Card(
            "All tables",
            fmt_bytes(total),
            f"{total / cap:.0%} of the device",
            "ok" if total <= cap else "bad",
        ),
        Card(
            "Tables that fit",
            f"{fit_count:,}",
            "with nothing else on the device",
            "bad" if fit_count < t else "ok",
        ),
        Card(
            "Row size",
            fmt_bytes(table(n, d).gather_bytes_per_lookup(precision)),
            "one contiguous gather",
        ),
    ]
    summary = (
        f"{t} table{'s' if t > 1 else ''} of {n / 1e6:,.0f}M rows × {d} values in {precision.upper()} "
        f"take{'s' if t == 1 else ''} {fmt_bytes(total)}, {total / cap:.0%} of the {device_label(dev)}'s "
        f"{fmt_bytes(cap)}. Capacity decides whether the model can run here at all, before any FLOP is counted."
    )
    peek = [
        f"table bytes = rows × width × bytes/value = {n:,} × {d} × {table(n, d).gather_bytes_per_lookup(precision) // d} B = {fmt_bytes(one)}",
        f"share = {fmt_bytes(one)} / {fmt_bytes(cap)} = {one / cap:.1%};  {t} table{'s' if t > 1 else ''}: {total / cap:.1%}",
        "the whole table is resident; a lookup copies one row and does no multiply-accumulates",
        f"popularity skew (assumed; the engine's lookups are uniform): with Zipf(1) popularity over {n:,} "
        f"rows, the hottest 1% ({fmt_bytes(one / 100)}) take {hot:.1%} of lookups, uniform lookups 1.0%; "
        f"the other {1 - hot:.1%} hit the long tail, rows no cache that size holds",
        "GB = 1e9 bytes (decimal)",
    ]
    return View(
        fig,
        cards,
        summary,
        "Capacity wall",
        peek,
        alert=feasibility(
            total, dev, f"Holding {t} table{'s' if t > 1 else ''} in {precision.upper()}"
        ),
    )


# ---------------------------------------------------------------------------------------------
# Part B: gathers move bytes, not FLOPs; batching does not shrink them
# ---------------------------------------------------------------------------------------------

#: PRED_B's batch, and the rows of each of the DLRM lighthouse's 25 tables (100 GB / 25 / 512 B).
PRED_B_BATCH, LIGHTHOUSE_ROWS = 1024, 7_812_500


def repeated_lookups(batch: int, rows: int) -> float:
    """Expected lookups of a batch that land on a row another request of the batch already asked
    for (IDs uniform over ``rows``): batch - expected distinct rows."""
    return batch - rows * (1 - (1 - 1 / rows) ** batch)


def _feedback_b() -> dict[str, str]:
    rep = repeated_lookups(PRED_B_BATCH, LIGHTHOUSE_ROWS)
    share = rep / PRED_B_BATCH
    return {
        "fall": "The MLP weights are read once per batch and shared; a gathered row belongs to one request's "
        "ID, so each request still pays its own rows.",
        "same": "Gathers do not amortize: each request reads its own rows (12.8 KB at one lookup per table, at "
        "any batch; 25.6 KB with the pooled output written), while the MLPs' weight bytes per request fall "
        f"with the batch. 1,024 random IDs in a table of {LIGHTHOUSE_ROWS:,} rows repeat a row about "
        f"{rep:.2f} times ({share:.3%} of the lookups). So the gathers' share of the bytes grows, from 0.3% "
        "at batch 1 to 23.2% at 1,024 and 25.1% at 8,192; the MLPs' activations, also per request, keep most "
        "of the rest. At 8 lookups per table the gathers pass half (57.7% at 1,024).",
        "some": f"Shared rows need repeated IDs, and 1,024 random IDs among {LIGHTHOUSE_ROWS:,} rows repeat one "
        f"about {rep:.2f} times per table: {share:.3%} of the lookups. Popular items do repeat in real "
        "traffic, but only a skewed workload makes that share large.",
        "zero": "A cache changes where gathered rows come from, not how many each request gathers; and a cache "
        f"helps only when rows repeat: here {share:.3%} of a batch's lookups hit a row already fetched "
        "(reuse needs requests that share rows, Listing 9).",
    }


PRED_B = Prediction(
    question=(
        "A DLRM server (25 embedding tables of 7.8 million rows, one lookup per table) batches 1,024 "
        "requests instead of 1. Each request's IDs are drawn at random from each table's rows. The "
        "embedding bytes gathered per request…"
    ),
    options={
        "fall": "Fall about 1,024×: one read serves the batch, as for the MLP weights",
        "same": "Stay about the same: each request reads the rows of its own IDs",
        "some": "Fall a few-fold: a large batch often asks for the same rows",
        "zero": "Drop to almost nothing: the first requests leave the rows in cache",
    },
    answer="same",
    feedback=Deferred(_feedback_b),
    reveals=("each request reads its own rows", "gathers do not amortize"),
    asks="direction",
    misconceptions={
        "fall": (
            "gathers amortize like weights",
            "Anything read once per batch is shared by the batch's requests",
        ),
        "some": (
            "random IDs collide often",
            "In a big batch many requests ask for the same rows, so reads are shared",
        ),
        "zero": (
            "the cache holds the tables",
            "After the first requests, rows are served from cache at no memory traffic",
        ),
    },
)
B_BATCH = Choice(
    "Requests per batch", {"1": "1", "64": "64", "1024": "1,024", "8192": "8,192"}, "1"
)
B_LOOKUPS = Slider("Lookups per table per request (multi-hot)", 1, 64, 1)
B_DEVICE = Choice("Device", catalogue.labels(["A100", "H100"]), "A100")

_BATCH_GRID = [1, 4, 16, 64, 256, 1024, 4096, 8192]
_STAGES = {
    "bottom": "bottom MLP",
    "emb": "embedding gathers (rows read + pooled output written)",
    "interaction": "interaction",
    "top": "top MLP",
}


@lru_cache(maxsize=64)
def dlrm_with(lookups: int):
    """The DLRM lighthouse (25 tables, 100 GB FP32) with ``lookups`` IDs per table per request."""
    return (
        M.Models.DLRM
        if int(lookups) == 1
        else M.dlrm(lookups_per_table=int(lookups), name=f"DLRM, {counted(int(lookups), 'lookup')}")
    )


def _solve(model, dev, batch: int):
    return E.Engine.solve(
        model, dev, batch_size=int(batch), precision=TABLE_PRECISION, efficiency=EFFICIENCY
    )


def stage_totals(profile) -> dict[str, dict[str, float]]:
    """Bytes, FLOPs and time per pipeline stage from the engine's per-row timings."""
    out = {k: {"bytes": 0.0, "flops": 0.0, "time": 0.0} for k in _STAGES}
    for t in profile.layers:
        stage = next(k for k in _STAGES if t.name.startswith(k))
        out[stage]["bytes"] += t.bytes
        out[stage]["flops"] += t.flops
        out[stage]["time"] += t.time
    return out


def gather_bytes_per_request(model) -> int:
    """Rows gathered for one request: lookups x row bytes, summed over the tables."""
    return sum(
        r.layer.lookups * r.layer.gather_bytes_per_lookup(TABLE_PRECISION) * r.count
        for r in model.rows()
        if isinstance(r.layer, L.Embedding)
    )


def pooling_intensity(lookups: int) -> float:
    """Listing 9's pooling loop: one add per gathered value, over the bytes the bag moves."""
    bag = table(USER_ROWS, EMB_DIM, lookups)
    return bag.elementwise_flops() / bag.bytes_moved(1, TABLE_PRECISION)


@widget_args
def part_b(batch: str, lookups: int, device: str) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(device)
    B, k = int(batch), int(lookups)
    m = dlrm_with(k)
    per_stage = {b: stage_totals(_solve(m, dev, b)) for b in sorted({*_BATCH_GRID, B})}
    xs = list(per_stage)
    fig = figure(
        f"DLRM bytes moved per request ({k} lookup{'s' if k > 1 else ''} per table, FP32)",
        "Requests per batch (log scale)",
        "Bytes per request (log scale)",
        log_x=True,
        log_y=True,
    )
    for key, label in _STAGES.items():
        fig.add_trace(
            go.Scatter(
                x=xs, y=[per_stage[b][key]["bytes"] / b for b in xs], name=label, mode="lines"
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[B],
            y=[per_stage[B]["emb"]["bytes"] / B],
            name="your batch (gathers)",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )

    p = _solve(m, dev, B)
    st = per_stage[B]
    all_bytes = sum(v["bytes"] for v in st.values())
    all_flops = sum(v["flops"] for v in st.values())
    emb_rows = [t for t in p.layers if t.name.startswith("emb")]
    emb_bound = max(
        {t.bound for t in emb_rows}, key=lambda b: sum(1 for t in emb_rows if t.bound == b)
    )
    gathered = gather_bytes_per_request(m)
    n_tables = sum(1 for r in m.rows() if isinstance(r.layer, L.Embedding))
    row_bytes = table(USER_ROWS).gather_bytes_per_lookup(TABLE_PRECISION)
    cards = [
        Card(
            "Gathered per request",
            fmt_bytes(gathered),
            f"{n_tables} tables × {k} × {fmt_bytes(row_bytes, 0)} rows; "
            f"{fmt_bytes(per_stage[B]['emb']['bytes'] / B)} with the pooled output (the chart)",
        ),
        Card(
            "Gathers: share of bytes",
            f"{st['emb']['bytes'] / all_bytes:.1%}",
            f"at batch {B:,}",
            "warn" if st["emb"]["bytes"] > all_bytes / 2 else "",
        ),
        Card(
            "Gathers: share of FLOPs",
            f"{st['emb']['flops'] / all_flops:.1%}" if st["emb"]["flops"] else "none",
            "a lookup copies a row: no MACs"
            + (" (pooling's adds are apart, below)" if k > 1 else ""),
        ),
        Card(
            "Pooling intensity",
            f"{pooling_intensity(k):.2f} FLOP/B",
            "one add per 4-byte value; tends to 0.25" if k > 1 else "one lookup: nothing to add",
        ),
        Card(
            "Each gather kernel",
            bound_phrase(emb_bound),
            "a fixed cost per gather dominates at this batch: here its launch (the chapter's memory "
            "access latency, a random row's wait, is not in the engine)"
            if emb_bound == "Dispatch"
            else "the bytes dominate: bandwidth-bound in aggregate",
            "warn",
        ),
        Card(
            "Tables fit?",
            "no" if not p.feasible else "yes",
            f"over by {fmt_bytes(p.over.m_as('B'))}"
            if not p.feasible
            else f"{fmt_bytes(p.memory_footprint_bytes)}",
            "bad" if not p.feasible else "ok",
        ),
    ]
    summary = (
        f"At batch {B:,}, each request gathers {fmt_bytes(gathered)} of embedding rows whatever the batch"
        + (", " if B > 1 else "; ")
        + ("while the MLPs' weight reads are shared: " if B > 1 else "")
        + f"the gathers are {st['emb']['bytes'] / all_bytes:.1%} of "
        f"the bytes and {'none' if not st['emb']['flops'] else format(st['emb']['flops'] / all_flops, '.1%')} of the matmul FLOPs (pooling's adds are counted apart). The engine prints "
        f"{fmt_time(p.latency_s)} per batch ({conditions(TABLE_PRECISION, fused=False, batch=B, device=device_label(dev))}), "
        "but that assumes the tables sit in HBM: "
        + (
            f"on one {device_label(dev)} they do not fit: tables and MLPs take {fmt_bytes(p.weight_bytes)} "
            f"and the activations {fmt_bytes(p.memory_footprint_bytes - p.weight_bytes)}"
            + (
                f", the footprint is {fmt_bytes(p.memory_footprint_bytes)}"
                if fmt_bytes(p.memory_footprint_bytes) != fmt_bytes(p.weight_bytes)
                else ""
            )
            + f", over by {fmt_bytes(p.over.m_as('B'))}."
            if not p.feasible
            else f"here they fit ({fmt_bytes(p.memory_footprint_bytes)})."
        )
    )
    peek = [
        f"gather bytes / request = tables × lookups × width × 4 B = {n_tables} × {k} × {EMB_DIM} × 4 = {fmt_bytes(gathered)}",
        "MLP weight bytes / request = weights / batch; gather bytes / request = constant (no sharing)",
        f"pooling I = adds / bytes = (k−1)·d / ((k + 1)·d·4 B) = {pooling_intensity(k):.3f} FLOP/B → 1/4 as k grows",
        f"one table's gather kernel: bytes / BW = {fmt_time(emb_rows[0].t_memory)} vs a "
        f"{fmt_time(emb_rows[0].t_dispatch)} launch: "
        + ("the launch wins" if emb_bound == "Dispatch" else "the bytes win")
        + f" at batch {B:,}",
        "bytes / BW is streaming time; a lone random row also waits on DRAM access latency (the "
        "chapter's bound for an isolated lookup), which the engine does not model: the launch "
        "stands in for that fixed cost",
        "the iron law times a placement; capacity decides whether that placement exists",
    ]
    return View(
        fig,
        cards,
        summary,
        "Gathers vs dense work",
        peek,
        alert=feasibility(p.memory_footprint_bytes, dev, "The DLRM lighthouse in FP32"),
    )


# ---------------------------------------------------------------------------------------------
# Part C: shrink the tables (precision, hashing)
# ---------------------------------------------------------------------------------------------

PRED_C = Prediction(
    question=(
        "The chapter's self-check recommender has an item table of 10⁸ rows and a user table of 10⁹ rows, 128 "
        "FP32 values each: about 7× an 80 GB A100. Which single lever can close that gap on its own?"
    ),
    options={
        "int8": "Quantizing every table to INT8, at a small accuracy cost",
        "hash": "Hashing IDs into fewer rows, losing accuracy on rare IDs",
        "fp16": "Halving to FP16, at almost no accuracy cost",
        "batch": "Serving smaller batches, at a throughput cost",
    },
    answer="hash",
    feedback={
        "int8": "INT8 divides the bytes by 4 (563.2 → 140.8 GB), still 1.76× the device. Production systems "
        "go further, to row-wise INT4: 70.4 GB of 4-bit codes plus a 2-byte scale and bias per row, 74.8 GB, "
        "which barely fits with nothing beside it and costs more accuracy than INT8. Precision shrinks in "
        "fixed halvings, each costlier; hashing can shrink by any factor.",
        "hash": "Rows can shrink by any factor: in FP32 at most 14% of the rows fit, in INT8 56%. The price is "
        "collisions: rarely seen users share rows with others.",
        "fp16": "FP16 halves the bytes to 281.6 GB, 3.5× the device: a factor of 2 cannot close a factor of 7.",
        "batch": "The tables are resident whatever the batch: batch size changes activations and traffic, not "
        "table capacity.",
    },
    reveals=("at most 14% of the rows", "Hashing IDs"),
    asks="estimate",
    misconceptions={
        "int8": (
            "quantization closes any gap",
            "Dropping to INT8 shrinks a model enough to fit, whatever it outgrew",
        ),
        "fp16": (
            "halving is enough",
            "A free halving of the bytes is the lever to reach for first, whatever the gap",
        ),
        "batch": (
            "batch sets the footprint",
            "Serving smaller batches frees the memory the tables need",
        ),
    },
)
C_PRECISION = Choice("Table precision", PRECISIONS, "fp32")
C_KEEP = Slider("Rows kept after hashing (% of IDs)", 5, 100, 100, step=5)
C_DEVICE = Choice("Device", catalogue.labels(["A100", "H100", "A100_40GB"]), "A100")

_KEEP_GRID = list(range(5, 101, 5))


def hashed_bytes(keep_percent: float, precision: str) -> int:
    """Both self-check tables with their IDs hashed into ``keep_percent`` of the rows."""
    rows = tuple(max(1, math.ceil(n * keep_percent / 100)) for n in (ITEM_ROWS, USER_ROWS))
    return tables_bytes(rows, precision)


@lru_cache(maxsize=32)
def largest_keep_that_fits(precision: str, capacity_bytes: float) -> int:
    """Largest whole percentage of rows that still fits (0 if even 1% does not)."""
    fits = [k for k in range(1, 101) if hashed_bytes(k, precision) <= capacity_bytes]
    return max(fits) if fits else 0


@widget_args
def part_c(precision: str, keep: int, device: str) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(device)
    cap = dev.memory.capacity.m_as("B")
    kp = int(keep)
    fig = figure(
        "Shrinking the item + user tables (10⁸ + 10⁹ rows × 128)",
        "Rows kept after hashing (% of IDs)",
        "Table bytes (GB)",
        log_y=True,
    )
    for p, label in PRECISIONS.items():
        fig.add_trace(
            go.Scatter(
                x=_KEEP_GRID,
                y=[hashed_bytes(x, p) / 1e9 for x in _KEEP_GRID],
                name=label,
                mode="lines",
            )
        )
    need = hashed_bytes(kp, precision)
    fig.add_trace(
        go.Scatter(
            x=[kp],
            y=[need / 1e9],
            name="your setting",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )
    memory_lines(fig, [dev], unit="GB")

    full = hashed_bytes(100, TABLE_PRECISION)
    best = largest_keep_that_fits(precision, cap)
    ids_per_row = 100 / kp
    cards = [
        Card(
            "Tables now",
            fmt_bytes(need),
            f"{precision.upper()}, {kp}% of rows",
            "ok" if need <= cap else "bad",
        ),
        Card(
            "vs the device",
            fmt_ratio(need / cap, 2),
            f"of {fmt_bytes(cap)}",
            "ok" if need <= cap else "bad",
        ),
        Card("Shrink vs FP32, all rows", fmt_ratio(full / need), f"from {fmt_bytes(full)}"),
        Card(
            "IDs sharing a row",
            fmt_ratio(ids_per_row),
            "hash collisions blur long-tail users",
            "warn" if kp < 100 else "",
        ),
        Card(
            f"Most rows that fit in {precision.upper()}",
            f"{best}%" if best else "under 1%",
            f"on the {device_label(dev)}",
            "ok" if best >= kp else "bad",
        ),
    ]
    summary = (
        f"In {precision.upper()} with {kp}% of the rows kept, the two tables take {fmt_bytes(need)}: "
        f"{fmt_ratio(need / cap, 2)} the {device_label(dev)}'s {fmt_bytes(cap)}. "
        + (
            f"They fit, at the price of {fmt_ratio(ids_per_row)} IDs per row."
            if need <= cap and kp < 100
            else "They fit."
            if need <= cap
            else f"At this precision at most {best}% of the rows fit (whole percents), so each row would "
            f"serve at least {fmt_ratio(hashed_bytes(100, precision) / cap, 2)} as many IDs (all rows' bytes "
            "÷ the device's)."
        )
    )
    peek = [
        f"bytes = (10⁸ + 10⁹) × keep × 128 × bytes/value = {fmt_bytes(need)}",
        f"FP32, all rows: 51.2 GB + 512 GB = {fmt_bytes(full)} = {fmt_ratio(full / cap, 2)} of {fmt_bytes(cap)}",
        "precision divides the bytes by 2 (FP16) or 4 (INT8), by about 8 for row-wise INT4 with its per-row "
        "scale; hashing divides them by IDs per row",
        "both lose information: rounding every value, or merging rarely seen IDs into shared rows",
    ]
    return View(
        fig,
        cards,
        summary,
        "Shrink",
        peek,
        alert=feasibility(need, dev, f"Holding both tables ({precision.upper()}, {kp}% of rows)"),
    )


# ---------------------------------------------------------------------------------------------
# Part D: move the tables to host memory, or shard them across GPUs
# ---------------------------------------------------------------------------------------------

PRED_D = Prediction(
    question=(
        "The 563.2 GB of FP32 tables are sharded row-wise across H100s: the 512 GB user table alone "
        "outgrows any GPU, so each GPU holds a slice of every table's rows, sums the rows it holds for a "
        "request and sends that partial sum to the request's GPU; a GPU holding none of a request's rows "
        "sends nothing. Each request looks up 8 rows per table. "
        "Counting traffic alone (the tables need at least 8 GPUs' memory), going from 2 to 16 GPUs, the "
        "bytes exchanged between GPUs per batch…"
    ),
    options={
        "fall": "Fall about 8×: each GPU holds an eighth as many rows to send",
        "grow": "Grow, then level off: more rows sit elsewhere, up to one partial sum per lookup",
        "zero": "Stay near zero: each GPU looks up only the rows it holds",
        "double": "Double with every doubling of GPUs, without limit: "
        "each GPU adds its own partial sums",
    },
    answer="grow",
    feedback=Deferred(lambda: _feedback_d()),
    reveals=("level off", "one partial sum per lookup"),
    asks="direction",
    misconceptions={
        "fall": (
            "smaller shards, less traffic",
            "Each GPU holds fewer rows, so less has to cross between GPUs",
        ),
        "zero": (
            "lookups stay local",
            "Each GPU looks up only its own rows, so sharding needs no exchange",
        ),
        "double": (
            "traffic grows with every GPU",
            "Each added GPU adds its own partial sums for every request, without limit",
        ),
    },
)


def _feedback_d() -> dict[str, str]:
    two, four, eight, sixteen = (shard_plan(n, 90, 4096, 8)["all_to_all"] for n in (2, 4, 8, 16))
    return {
        "fall": "Capacity per GPU falls as 1/n, but communication does not: with more shards, more of each "
        f"request's rows sit on other GPUs ({fmt_bytes(two)} per 4,096-request batch on 2 GPUs, "
        f"{fmt_bytes(sixteen)} on 16). Sharding buys capacity with traffic.",
        "grow": f"On 2 GPUs (were they big enough) about one partial sum per table crosses ({fmt_bytes(two)} per "
        "4,096-request batch); "
        f"on 16, about six ({fmt_bytes(sixteen)}). The growth slows as the GPUs outnumber the 8 lookups: "
        "each of the other n − 1 GPUs sends a partial sum only if it holds one of the request's rows, "
        "with chance 1 − (1 − 1/n)⁸, so the traffic approaches one partial sum per lookup.",
        "zero": "A request's 8 rows per table are spread over all the GPUs; only about 1/n of them are on its "
        "own GPU, and every other GPU holding one sends its partial sum.",
        "double": f"It grows fastest at first (2 → 4 GPUs: {fmt_ratio(four / two)}) and then slows "
        f"(8 → 16: {fmt_ratio(sixteen / eight)}): once GPUs outnumber the lookups, each added GPU mostly "
        "holds none of a request's rows. The limit is one partial sum per lookup. (Libraries that run a "
        "dense reduce-scatter, every GPU sending for every request, do grow as n − 1: the sparse "
        "exchange in the question is what caps it.)",
    }


D_DEVICES = Slider("GPUs the tables are sharded over", 1, 16, 4)
D_USABLE = Slider("Share of each GPU's memory for tables (%)", 50, 100, 90, step=5)
D_BATCH = Choice("Requests per batch", {"256": "256", "1024": "1,024", "4096": "4,096"}, "4096")
D_LOOKUPS = Slider("Lookups per table per request", 1, 32, 8)

#: Part D runs on H100 SXM5 GPUs (80 GB, like the chapter's A100), whose links the constants describe.
D_DEVICE = "H100"


def shard_plan(devices: int, usable_percent: float, batch: int, lookups: int) -> dict[str, float]:
    """Capacity per shard and the bytes each placement moves per batch (FP32 tables)."""
    dev = HW.Hardware.get(D_DEVICE)
    tabs = [table(n, EMB_DIM, lookups) for n in (ITEM_ROWS, USER_ROWS)]
    total = sum(t.weight_bytes(TABLE_PRECISION) for t in tabs)
    usable = dev.memory.capacity.m_as("B") * usable_percent / 100
    n = int(devices)
    rows_moved = sum(
        int(batch) * t.lookups * t.gather_bytes_per_lookup(TABLE_PRECISION) for t in tabs
    )
    # row-wise shards: each of a request's k rows of a table lies on a GPU picked uniformly; every
    # other GPU holding at least one of them sends one partial sum, with chance 1 - (1 - 1/n)^k
    remote = sum(
        t.activation_bytes(int(batch), TABLE_PRECISION) * (n - 1) * (1 - (1 - 1 / n) ** t.lookups)
        for t in tabs
    )
    launch = dev.dispatch_tax.m_as("s")  # one kernel (gather, copy or collective) per batch
    # each GPU receives the partial sums of its own requests (remote / n), from the n - 1 others
    # alike: those in its 8-GPU node over NVLink, the rest over its InfiniBand port; both links
    # run at once, so the slower one sets the time
    per_gpu = remote / n
    near = per_gpu * (min(n, NODE_GPUS) - 1) / (n - 1) if n > 1 else 0.0
    far = per_gpu - near
    t_nvlink = near / nvlink_per_direction().m_as("B/s")
    t_ib = far / U.Q_(INFINIBAND_NDR).m_as("B/s")
    return {
        "total": total,
        "usable": usable,
        "needed": math.ceil(total / usable),
        "per_device": total / n,
        "rows_moved": rows_moved,
        "all_to_all": remote,
        "t_hbm": rows_moved / dev.memory.bandwidth.m_as("B/s") + launch,
        "t_pcie": rows_moved / U.Q_(PCIE_GEN5_X16).m_as("B/s") + launch,
        "nodes": math.ceil(n / NODE_GPUS),
        "inter_node": far * n,
        "t_nvlink": t_nvlink + launch if n > 1 else 0.0,
        "t_exchange": max(t_nvlink, t_ib) + launch if n > 1 else 0.0,
    }


@widget_args
def part_d(devices: int, usable: int, batch: str, lookups: int) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(D_DEVICE)
    n = int(devices)
    plan = shard_plan(n, usable, int(batch), int(lookups))
    xs = list(range(int(D_DEVICES.start), int(D_DEVICES.stop) + 1))
    plans = {x: shard_plan(x, usable, int(batch), int(lookups)) for x in xs}
    fig = figure(
        f"Sharded tables: bytes between GPUs per {int(batch):,}-request batch",
        "GPUs (row-wise shards)",
        "Bytes exchanged per batch",
    )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[plans[x]["all_to_all"] for x in xs],
            name="partial sums exchanged",
            mode="lines+markers",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[xs[0], xs[-1]],
            y=[plan["rows_moved"]] * 2,
            name=f"one partial sum per lookup ({counted(int(lookups), 'lookup')} per table)",
            mode="lines",
            line=dict(dash="dot", width=1),
        )
    )
    short = [x for x in xs if plans[x]["per_device"] > plans[x]["usable"]]
    out_of_memory(
        fig,
        short,
        [plans[x]["all_to_all"] for x in short],
        name=f"tables do not fit ({int(usable)}% of {fmt_bytes(dev.memory.capacity.m_as('B'), 0)} each)",
    )
    fig.add_trace(
        go.Scatter(
            x=[n],
            y=[plan["all_to_all"]],
            name="your plan",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )

    fits = plan["per_device"] <= plan["usable"]
    row_bytes = table(USER_ROWS).gather_bytes_per_lookup(TABLE_PRECISION)
    cards = [
        Card(
            "GPUs needed",
            f"{plan['needed']:,}",
            f"ceil({fmt_bytes(plan['total'])} / {fmt_bytes(plan['usable'])})",
            "ok" if n >= plan["needed"] else "bad",
        ),
        Card(
            "Tables per GPU",
            fmt_bytes(plan["per_device"]),
            f"{n} GPU{'s' if n > 1 else ''}",
            "ok" if fits else "bad",
        ),
        Card(
            "All-to-all per batch",
            fmt_bytes(plan["all_to_all"]),
            (
                f"{fmt_time(plan['t_exchange'])} on NVLink 4 (one {NODE_GPUS}-GPU node)"
                if n <= NODE_GPUS
                else f"{fmt_time(plan['t_exchange'])}: {plan['nodes']} nodes, "
                f"{fmt_bytes(plan['inter_node'])} over InfiniBand ({U.Q_(INFINIBAND_NDR):~P} per GPU)"
            )
            if n > 1
            else "one GPU: nothing crosses",
            "warn" if n > 1 else "",
        ),
        Card(
            "Host DRAM over PCIe",
            fmt_time(plan["t_pcie"]),
            f"{fmt_bytes(plan['rows_moved'])} of raw rows per batch (pooled on the GPU)",
            "warn",
        ),
        Card(
            "If it all fit in HBM",
            fmt_time(plan["t_hbm"]),
            f"HBM has {fmt_ratio(dev.memory.bandwidth.m_as('B/s') / U.Q_(PCIE_GEN5_X16).m_as('B/s'), 0)} PCIe's bandwidth",
        ),
    ]
    summary = (
        f"Sharded over {n} H100{'s' if n > 1 else ''}, each holds {fmt_bytes(plan['per_device'])} of tables "
        + ("(fits" if fits else "(does not fit")
        + f" the {int(usable)}% set aside); {plan['needed']} GPUs are needed. On {n} GPU{'s' if n > 1 else ''} a "
        f"batch of {int(batch):,} sends "
        f"{fmt_bytes(plan['all_to_all'])} all-to-all ("
        + (
            f"{fmt_time(plan['t_exchange'])} on NVLink 4 inside one {NODE_GPUS}-GPU node"
            if n <= NODE_GPUS
            else f"{fmt_time(plan['t_exchange'])}: past {NODE_GPUS} GPUs the partial sums between nodes "
            f"cross InfiniBand at {U.Q_(INFINIBAND_NDR):~P} per GPU, a ninth of NVLink"
        )
        + f"), while keeping the tables in host DRAM pulls {fmt_bytes(plan['rows_moved'])} of raw rows over "
        f"PCIe Gen5 ({fmt_time(plan['t_pcie'])})."
    )
    peek = [
        f"GPUs = ceil(tables / (capacity × usable)) = ceil({fmt_bytes(plan['total'])} / {fmt_bytes(plan['usable'])}) = {plan['needed']}",
        f"all-to-all = batch × tables × width × 4 B × (n − 1) × (1 − (1 − 1/n)ᵏ), k = {counted(int(lookups), 'lookup')} "
        f"= {fmt_bytes(plan['all_to_all'])}; per GPU ÷ {n}: from the {min(n, NODE_GPUS) - 1} others in its "
        f"{NODE_GPUS}-GPU node at {nvlink_per_direction():~P} per direction (NVLink 4: {U.Q_(NVLINK4_TOTAL):~P} total), "
        f"from the other nodes at {U.Q_(INFINIBAND_NDR):~P} (400 Gb/s InfiniBand NDR per GPU); time = the slower link",
        f"host DRAM: batch × tables × lookups × {fmt_bytes(row_bytes, 0)} = {fmt_bytes(plan['rows_moved'])} at {U.Q_(PCIE_GEN5_X16):~P} "
        "(PCIe Gen5 x16, one way): raw rows, pooled on the GPU (pooling on the host CPU would send "
        "one vector per table and request instead)",
        f"HBM: the same rows at {dev.memory.bandwidth:~P} = {fmt_time(plan['t_hbm'])}",
        f"each time adds one {fmt_time(dev.dispatch_tax.m_as('s'))} launch (the engine's dispatch term); "
        "real links add their own latency",
        "row-wise shards: rows spread evenly and at random over the GPUs; each GPU sums the rows it holds "
        f"and sends that partial sum; the host has room for {fmt_bytes(plan['total'])}",
    ]
    return View(
        fig,
        cards,
        summary,
        "Move or shard",
        peek,
        alert=feasibility(plan["per_device"], dev, "Each GPU's shard of the tables"),
    )


# ---------------------------------------------------------------------------------------------
# Transfer questions: one unseen case per part, answered with the part's own controls
# ---------------------------------------------------------------------------------------------

#: TRANSFER_A's encoder: an MLP from a 1,024-value hash code of the ID to its 128 values (in the
#: spirit of deep hash embeddings, Kang et al. 2021); a design Part A has no control for.
ENCODER = (1024, 512, EMB_DIM)


def encoder_vs_table(batch: int = 1) -> dict[str, float]:
    """Bytes held, MACs per lookup and time per batch on the 80 GB A100: the 100M-row FP32 item
    table against the encoder MLP that computes each row instead."""
    dev = HW.Hardware.get("A100")
    tab, enc = table(NAPKIN_ROWS), M.mlp(list(ENCODER), name="ID encoder")
    t_tab = E.Engine.solve(tab, dev, batch_size=batch, precision=TABLE_PRECISION)
    t_enc = E.Engine.solve(enc, dev, batch_size=batch, precision=TABLE_PRECISION)
    return {
        "table_bytes": tab.weight_bytes(TABLE_PRECISION),
        "encoder_bytes": enc.weight_bytes(TABLE_PRECISION),
        "encoder_params": enc.params,
        "table_macs": tab.macs(),
        "encoder_macs": enc.flops() / 2,
        "table_s": t_tab.latency_s,
        "encoder_s": t_enc.latency_s,
    }


def _transfer_a_feedback() -> dict[str, str]:
    one, many = encoder_vs_table(1), encoder_vs_table(1024)
    return {
        "trade": f"The table holds {fmt_bytes(one['table_bytes'])} and does no MACs; the encoder holds "
        f"{fmt_bytes(one['encoder_bytes'])} but does {one['encoder_macs']:,.0f} MACs per lookup. On the A100 "
        f"a batch of 1,024 lookups takes {fmt_time(many['encoder_s'])} through the encoder against "
        f"{fmt_time(many['table_s'])} as gathers: capacity is bought with compute (and, in practice, some "
        "accuracy).",
        "same": f"The encoder's {one['encoder_params']:,} weights are all it stores: "
        f"{fmt_bytes(one['encoder_bytes'])} against the table's {fmt_bytes(one['table_bytes'])}. It does not "
        "keep the 100M vectors; it recomputes an approximation of each from the ID's hash code.",
        "faster": f"A gather copies 512 bytes and does no MACs; the encoder does {one['encoder_macs']:,.0f} "
        f"per lookup. At batch 1 it takes {fmt_time(one['encoder_s'])} against {fmt_time(one['table_s'])}, "
        f"at 1,024 {fmt_time(many['encoder_s'])} against {fmt_time(many['table_s'])}.",
    }


TRANSFER_A = Prediction(
    question=(
        "Instead of storing the 100M × 128 FP32 item table, a team computes each item's vector on demand: an "
        "MLP (1,024 → 512 → 128, about 590,000 weights) maps a 1,024-value hash code of the item's ID to "
        "its 128 values. Compared with the table, this design…"
    ),
    options={
        "trade": "Trades capacity for compute: megabytes held, but MACs per lookup",
        "same": "Saves little: the 100M item vectors still have to be stored",
        "faster": "Is faster as well: a few MACs take less time than a random row read",
    },
    answer="trade",
    feedback=Deferred(_transfer_a_feedback),
    kind="transfer",
    reveals=("capacity is bought with compute",),
    asks="behaviour",
    misconceptions={
        "same": (
            "information must be stored",
            "A model that reproduces 100M vectors must hold all of them somewhere",
        ),
        "faster": (
            "gathers are always the slow part",
            "Random row reads are so slow that replacing them with arithmetic speeds things up",
        ),
    },
)

#: TRANSFER_B's model: the DLRM lighthouse with four times its tables (100 of the same 7.8M rows).
TRANSFER_B_TABLES = 100


@lru_cache(maxsize=4)
def dlrm_tables(n_tables: int):
    """The DLRM lighthouse with ``n_tables`` tables of its 7.8M rows each (same MLP widths)."""
    if n_tables == 25:
        return M.Models.DLRM
    return M.dlrm(
        embedding_rows=(LIGHTHOUSE_ROWS,) * int(n_tables), name=f"DLRM, {n_tables} tables"
    )


def gather_share(n_tables: int, batch: int = 1024, device: str = "A100") -> dict[str, float]:
    """Each stage's bytes per request and the gathers' share of all bytes, from the engine."""
    st = stage_totals(_solve(dlrm_tables(n_tables), HW.Hardware.get(device), batch))
    total = sum(v["bytes"] for v in st.values())
    return {"share": st["emb"]["bytes"] / total, **{k: v["bytes"] / batch for k, v in st.items()}}


def _transfer_b_feedback() -> dict[str, str]:
    a, b = gather_share(25), gather_share(TRANSFER_B_TABLES)
    inter = L.FeatureInteraction(num_vectors=26, dim=EMB_DIM).pairs
    inter4 = L.FeatureInteraction(num_vectors=TRANSFER_B_TABLES + 1, dim=EMB_DIM).pairs
    return {
        "bottom": f"The bottom MLP sees only the 13 dense features, never a table: {fmt_bytes(a['bottom'])} per "
        f"request with 25 tables or 100. Everything downstream of the tables grows: the gathers 4× "
        f"({fmt_bytes(a['emb'])} to {fmt_bytes(b['emb'])}), the interaction with the pairs of vectors "
        f"({inter:,} pairs to {inter4:,}; {fmt_bytes(a['interaction'])} to {fmt_bytes(b['interaction'])}) and the "
        f"top MLP, whose input holds those pairs ({fmt_ratio(b['top'] / a['top'])}). The gathers' share of the "
        f"bytes rises from {a['share']:.1%} to {b['share']:.1%}.",
        "gathers": "A gathered row belongs to one request's ID, so a batch shares almost none of them (Part B): "
        f"one row per table per request, four times the tables, four times the rows ({fmt_bytes(a['emb'])} to "
        f"{fmt_bytes(b['emb'])} per request). The stage that does not grow is the bottom MLP, which reads only "
        "the dense features.",
        "inter": "The interaction has no weights, but it takes a dot product of every pair of vectors: 26 "
        f"vectors make {inter:,} pairs, 101 make {inter4:,}, so its bytes per request grow from "
        f"{fmt_bytes(a['interaction'])} to {fmt_bytes(b['interaction'])}. The bottom MLP, which reads only the "
        "dense features, is the stage that stays put.",
        "none": "The tables feed the gathers, the interaction and the top MLP, and those grow; the bottom MLP "
        f"reads only the 13 dense features and stays at {fmt_bytes(a['bottom'])} per request.",
    }


TRANSFER_B = Prediction(
    question=(
        "A DLRM with 100 embedding tables instead of 25 (same rows per table, same MLP widths, same 13 "
        "dense features, one lookup per table) serves batches of 1,024. Which stage's bytes per request "
        "do not grow?"
    ),
    options={
        "bottom": "The bottom MLP: no table feeds into it",
        "gathers": "The gathers: the batch of 1,024 shares the rows",
        "inter": "The interaction: it has no weights to grow",
        "none": "None: more tables grow every stage of the model",
    },
    answer="bottom",
    feedback=Deferred(_transfer_b_feedback),
    kind="transfer",
    reveals=("no table feeds into it",),
    asks="behaviour",
    misconceptions={
        "gathers": (
            "a batch shares gathered rows",
            "Requests in a batch share the embedding rows they read, as they share MLP weights",
        ),
        "inter": (
            "no weights, no growth",
            "A layer without weights costs the same whatever it is fed",
        ),
        "none": (
            "everything scales together",
            "Adding features grows every stage of the model in proportion",
        ),
    },
)

#: TRANSFER_C's hashed share of the user table's rows: the FP32 largest fit on the 80 GB A100.
TRANSFER_C_KEEP = 14


def hashed_gather_bytes(keep_percent: int) -> int:
    """Bytes one lookup gathers from the user table hashed into ``keep_percent`` of its rows."""
    rows = max(1, math.ceil(USER_ROWS * keep_percent / 100))
    return table(rows).gather_bytes_per_lookup(TABLE_PRECISION)


def _transfer_c_feedback() -> dict[str, str]:
    full, hashed = hashed_gather_bytes(100), hashed_gather_bytes(TRANSFER_C_KEEP)
    return {
        "same": f"A lookup reads one row, {fmt_bytes(hashed, 0)} with {TRANSFER_C_KEEP}% of the rows kept as "
        f"with all of them ({fmt_bytes(full, 0)}): hashing changes how many rows exist, not how wide one is. "
        "It shrinks the capacity, not the traffic.",
        "fall": f"The table is about {fmt_ratio(100 / TRANSFER_C_KEEP, 0)} smaller, but a lookup still copies one "
        f"full row of 128 FP32 values: {fmt_bytes(hashed, 0)} either way.",
        "cache": f"The hashed tables still take tens of GB, thousands of times an on-chip cache, and random IDs "
        f"reuse few rows; each lookup still copies {fmt_bytes(hashed, 0)} from HBM.",
    }


TRANSFER_C = Prediction(
    question=(
        "Hashing keeps 14% of the rows of both self-check tables (128 FP32 values per row), so they fit the "
        "80 GB A100. Per lookup, the bytes gathered from the user table…"
    ),
    options={
        "same": "Stay the same: each lookup still copies one whole row",
        "fall": "Fall about 7×: the table they are read from is 7× smaller",
        "cache": "Drop to almost nothing: the smaller tables now sit in cache",
    },
    answer="same",
    feedback=Deferred(_transfer_c_feedback),
    kind="transfer",
    reveals=("capacity, not the traffic",),
    asks="behaviour",
    misconceptions={
        "fall": (
            "a smaller table, a smaller read",
            "Shrinking a table shrinks what each lookup moves",
        ),
        "cache": (
            "smaller means cached",
            "A table that fits the device is small enough to be served from cache",
        ),
    },
)

#: TRANSFER_D's device: the 40 GB A100, which Part D (H100s only) does not offer.
TRANSFER_D_DEVICE, TRANSFER_D_LOOKUPS, TRANSFER_D_USABLE = "A100_40GB", 8, 90


def shards_needed(device: str, usable_percent: float = TRANSFER_D_USABLE) -> int:
    """GPUs of ``device`` needed to hold both self-check tables (FP32) at ``usable_percent``."""
    total = tables_bytes((ITEM_ROWS, USER_ROWS), TABLE_PRECISION)
    usable = HW.Hardware.get(device).memory.capacity.m_as("B") * usable_percent / 100
    return math.ceil(total / usable)


def _transfer_d_feedback() -> dict[str, str]:
    n_h, n_a = shards_needed(D_DEVICE), shards_needed(TRANSFER_D_DEVICE)
    b_h, b_a = (
        shard_plan(n, TRANSFER_D_USABLE, 4096, TRANSFER_D_LOOKUPS)["all_to_all"] for n in (n_h, n_a)
    )
    return {
        "more": f"Half the memory per GPU means {n_a} shards instead of {n_h}, and with more shards more of "
        f"each request's 8 rows per table sit elsewhere: {fmt_bytes(b_a)} per 4,096-request batch against "
        f"{fmt_bytes(b_h)}, {fmt_ratio(b_a / b_h)}. The GPU count follows capacity, and traffic follows the "
        "GPU count.",
        "same": f"The tables and lookups are the same, but the placement is not: {n_a} shards put more of a "
        f"request's rows on other GPUs ({fmt_bytes(b_a)} against {fmt_bytes(b_h)} per batch).",
        "less": f"Each shard does hold fewer rows, but a request's rows are spread over more GPUs, and each "
        f"holding one sends a partial sum: {fmt_bytes(b_a)} against {fmt_bytes(b_h)} per batch.",
    }


TRANSFER_D = Prediction(
    question=(
        "The 563.2 GB of FP32 tables are sharded row-wise over 40 GB A100s instead of 80 GB H100s, each "
        "GPU keeping 90% of its memory for tables and using as few GPUs as hold them; 8 lookups per table "
        "per request. The bytes exchanged between GPUs per batch…"
    ),
    options={
        "more": "Grow: twice the shards put more of each request's rows elsewhere",
        "same": "Stay the same: the tables and the lookups per request have not changed",
        "less": "Fall: each smaller shard holds fewer rows to send",
    },
    answer="more",
    feedback=Deferred(_transfer_d_feedback),
    kind="transfer",
    reveals=("traffic follows the GPU count",),
    asks="direction",
    misconceptions={
        "same": (
            "traffic is set by the model",
            "Bytes exchanged depend on the tables and lookups, not on how many GPUs hold them",
        ),
        "less": (
            "smaller shards send less",
            "A GPU holding fewer rows has less to send, so the exchange shrinks",
        ),
    },
)


# ---------------------------------------------------------------------------------------------
# Part E: IDs have no geometry; a lookup is a one-hot product that copies one row
# ---------------------------------------------------------------------------------------------

#: the three items of PRED_E: an item, its numeric neighbour, and an item far away in number
ITEM_ID, NEAR_ID, FAR_ID = 1000, 1001, 7
#: TRANSFER_E's table: the self-check's 10^9 users (L1190), against Napkin Math 6.2's 10^8 items
E_TRANSFER_ROWS = USER_ROWS

PRED_E = Prediction(
    question=(
        "Item IDs run from 0 to 99,999,999. To save the 100M × 128 table, a teammate feeds each item's ID to "
        "the first dense layer as one number. Whatever that layer learns, where does its output put items "
        "1,000, 1,001 and 7 relative to each other?"
    ),
    options={
        "forced": "Fixed: 1,000 next to 1,001 and far from 7, whatever weight it learns",
        "learned": "Wherever training decides: it learns which of the items are alike",
        "equal": "Equally far apart: distinct IDs, like distinct one-hot vectors",
    },
    answer="forced",
    feedback={
        "forced": "A dense unit computes w·ID + b, so item 1,000 lands |w| from 1,001 and 993·|w| from 7: 993× "
        "nearer, whatever w and b training picks. The order of the IDs is an accident of numbering. A table "
        "gives each ID its own row of 128 free values instead: the one-hot vector times the table is exactly "
        "that row, and the lookup copies it without a multiply.",
        "learned": "Training picks w and b, not the geometry: the layer's output w·ID + b puts 1,000 993× nearer "
        "1,001 than 7 for every w. Only a table, one free row per ID, lets training put item 7 beside item "
        "1,000 when users treat them alike.",
        "equal": "One-hot vectors are equidistant (√2 apart for any two IDs), but one number is not: w·ID + b "
        "puts 1,000 993× nearer 1,001 than 7. That is why IDs go through a table: the one-hot code times the "
        "table is a learned row.",
    },
    reveals=("993×",),
    asks="behaviour",
    misconceptions={
        "learned": (
            "feed the ID as a number",
            "A network learns what any input encoding means, so a numeric ID works as well as a table",
        ),
        "equal": (
            "a number is a neutral code",
            "An ID carries no order or distance, whatever form it is fed in",
        ),
    },
)

TRANSFER_E = Prediction(
    question=(
        "The self-check's user table is ten times larger: 10⁹ users × 128 FP32 values. Against the 100M-row "
        "item table, how much does one user's lookup read, and one user's one-hot vector times the table?"
    ),
    options={
        "flat": "Lookup unchanged, product ten times more: the product reads every row",
        "both": "Both ten times more: a lookup is that product, run by the library",
        "neither": "Both the same as before: the product skips the one-hot zeros",
    },
    answer="flat",
    feedback={
        "flat": "A lookup reads one row, 512 B, however many rows the table holds; the one-hot product reads "
        "every row, 516.0 GB at 10⁹ rows against 51.6 GB at 10⁸, and does 128.0 billion multiply-"
        "accumulates, all but 128 of them by zero. Same result, a billion times the bytes: that is why "
        "frameworks gather.",
        "both": "The lookup gives the product's result without doing the product: it reads one row, 512 B, at "
        "any table size. The one-hot product reads all 516.0 GB of the 10⁹-row table.",
        "neither": "A dense product multiplies every row by its one-hot entry, zeros included: 516.0 GB read "
        "and 128.0 billion multiply-accumulates at 10⁹ rows. Only the lookup stays at one row, 512 B.",
    },
    kind="transfer",
    reveals=("516.0 GB",),
    asks="direction",
    misconceptions={
        "both": (
            "a lookup does a matrix multiply's work",
            "An embedding lookup costs what the one-hot matrix product it equals costs",
        ),
        "neither": (
            "multiplying by zero is free",
            "A dense matrix product skips the zero entries of its input",
        ),
    },
)

E_TOY = Slider("Item ID in the 8-row toy table", 0, 7, 3)
E_WEIGHT = Choice(
    "Weight the first layer learned for the numeric ID",
    {"-1.5": "−1.5", "0.01": "0.01", "0.5": "0.5", "4": "4"},
    "0.5",
)


@widget_args
def part_e(toy: int, weight: str) -> View:
    import plotly.graph_objects as go

    from ... import embedding

    eq = embedding.equivalence(int(toy))
    num = embedding.id_as_number(ITEM_ID, NEAR_ID, FAR_ID, float(weight))
    hot = embedding.one_hot_distance(0, 1)
    shown = weight.replace("-", "−")
    c = embedding.cost(NAPKIN_ROWS, EMB_DIM, TABLE_PRECISION)
    fig = figure(
        f"How far item {ITEM_ID:,} sits from two others, by how the ID is fed",
        "Distance from item 1,000",
        "Distance (log)",
        log_y=True,
    )
    x = [f"to item {NEAR_ID:,}", f"to item {FAR_ID}"]
    fig.add_trace(
        go.Bar(
            x=x,
            y=[abs(num.out_near - num.out_item), abs(num.out_far - num.out_item)],
            name=f"ID as a number (first layer, w = {shown})",
        )
    )
    fig.add_trace(go.Bar(x=x, y=[hot, hot], name="one-hot vectors (before the table)"))
    fig.update_layout(barmode="group")
    vec = "".join(str(v) for v in eq.one_hot)
    cards = [
        Card(
            f"One-hot × table, item {eq.index}",
            str(eq.product),
            f"row {eq.index} of the 8 × 4 toy table is {eq.row}: "
            + ("the same values" if eq.equal else "different"),
            "ok" if eq.equal else "bad",
        ),
        Card(
            "The product's work (100M × 128, FP32)",
            f"{fmt_count(c.product_macs)} MACs",
            f"reads {fmt_bytes(c.product_bytes)}: the whole table and the one-hot vector; all but "
            f"{EMB_DIM} MACs multiply by zero",
            "bad",
        ),
        Card(
            "The lookup's work",
            fmt_bytes(c.lookup_bytes),
            f"one row copied, {c.lookup_macs} MACs: the product's result without the product",
            "ok",
        ),
        Card(
            "ID as a number",
            f"{num.ratio:,.0f}× nearer {NEAR_ID:,} than {FAR_ID}",
            f"w·ID + b with w = {shown}: the same for every w ≠ 0 and every b",
            "warn",
        ),
        Card(
            "One-hot codes",
            f"√2 = {hot:.3f} apart",
            "any two IDs: no ID is nearer another until the table's rows are learned",
        ),
    ]
    summary = (
        f"An ID is a row index, not a quantity. Fed as a number, it reaches the first layer as w·ID + b: "
        f"with w = {shown}, item {ITEM_ID:,} lands {abs(num.out_near - num.out_item):,g} from {NEAR_ID:,} and "
        f"{abs(num.out_far - num.out_item):,g} from "
        f"{FAR_ID}, {num.ratio:,.0f}× nearer, and no weight changes that ratio. Fed as a one-hot vector, "
        f"every ID is √2 from every other, and the one-hot vector of item {eq.index} times the table is row "
        f"{eq.index} exactly, {eq.product}, so the table's rows are free to learn which items are alike. "
        f"A lookup gives that row without the product: {fmt_bytes(c.lookup_bytes)} copied and no MACs, "
        f"where the product at 100M rows does {fmt_count(c.product_macs)} MACs over "
        f"{fmt_bytes(c.product_bytes)}."
    )
    peek = [
        f"one-hot(item {eq.index}) = [{vec}]; one-hot · T = Σ_k one-hot_k · T[k] = T[{eq.index}] "
        f"({eq.macs} MACs on the toy table, {len(eq.row)} of them by 1)",
        f"product: Dense({NAPKIN_ROWS:,} → {EMB_DIM}, no bias): rows × dim = {c.product_macs:,} MACs; reads "
        f"rows × dim × 4 B + rows × 4 B = {c.product_bytes:,} B",
        f"lookup: Embedding gather of one row: dim × 4 B = {c.lookup_bytes} B, 0 MACs",
        f"ID as a number: |w·{FAR_ID} − w·{ITEM_ID:,}| / |w·{NEAR_ID:,} − w·{ITEM_ID:,}| = "
        f"{abs(FAR_ID - ITEM_ID)} / {abs(NEAR_ID - ITEM_ID)}",
        "one-hot distance: ‖e_i − e_j‖ = √(1² + 1²) = √2 for any i ≠ j",
    ]
    return View(fig, cards, summary, "An ID is a row index", peek)
