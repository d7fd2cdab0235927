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
    fmt_ratio,
    fmt_time,
    widget_args,
)
from ..vocab import bound_phrase

E = lazy("mlsysim.engine")
HW = lazy("mlsysim.hardware")
L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")
U = lazy("mlsysim.units")

CHAPTER = "6.8"
PARTS = ("A", "B", "C", "D")

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

PRED_A = Prediction(
    question=(
        "The team plans an item table (100M rows of 128 FP32 values) and a user table of the same shape "
        "on one 80 GB A100. What happens?"
    ),
    options={
        "light": "Both fit with room to spare: a lookup does almost no arithmetic, so tables are light",
        "values": "Both fit: 100M × 128 is 12.8 billion values, about 13 GB per table",
        "one": "The item table fits, but the pair does not: each table takes most of the device",
        "none": "Neither fits: no single GPU holds a table of 100 million rows",
    },
    answer="one",
    feedback={
        "light": "A table's cost is the memory it occupies, not the arithmetic a lookup does: every row must be "
        "resident wherever lookups run. 100M × 128 × 4 B = 51.2 GB, 64% of the device; two tables need "
        "102.4 GB.",
        "values": "That counts values, not bytes: each FP32 value is 4 bytes, so one table is 51.2 GB and two "
        "are 102.4 GB, 128% of 80 GB.",
        "one": "100M × 128 × 4 B = 51.2 GB = 64% of 80 GB. One table fits; a second of the same size brings "
        "the pair to 128%, and the MLPs' 9.4 MB of weights cannot change that.",
        "none": "Rows alone do not decide it: 100M rows × 128 values × 4 B = 51.2 GB, 64% of the A100, so "
        "one table fits; the pair (102.4 GB) does not.",
    },
    reveals=("51.2 GB", "64%", "pair does not"),
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

PRED_B = Prediction(
    question=(
        "A DLRM server batches 1,024 requests instead of 1 (IDs drawn from hundreds of millions of users "
        "and items: assume no repeats within a batch). What happens to the embedding bytes gathered per "
        "request?"
    ),
    options={
        "fall": "They fall about 1,024× like the MLP weight reads",
        "same": "They stay about the same",
        "rise": "They rise: more requests collide in the tables",
        "zero": "They drop to almost nothing once the hot rows are cached",
    },
    answer="same",
    feedback={
        "fall": "The MLP weights are read once per batch and shared; a gathered row belongs to one request's "
        "ID, so each request still pays its own rows.",
        "same": "Gathers do not amortize: each request reads its own rows (12.8 KB at one lookup per table, at "
        "any batch; 25.6 KB with the pooled output written), while the MLPs' weight bytes per request fall with the batch. So the gathers' share of "
        "the bytes grows, from 0.3% at batch 1 to 23.2% at 1,024 and 25.1% at 8,192; the MLPs' activations, "
        "also per request, keep most of the rest. At 8 lookups per table the gathers pass half (57.7% at "
        "1,024).",
        "rise": "The per-request bytes are set by the lookups, not by the batch; collisions would, if anything, "
        "let a cache help.",
        "zero": "A cache changes where gathered rows come from, not how many each request gathers; and with no "
        "repeats in the batch, batching gives no row to share (reuse needs requests that share rows, "
        "Listing 9).",
    },
    reveals=("each request reads its own rows", "bytes without arithmetic", "bytes, not FLOPs"),
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
        f"{fmt_time(p.latency_s)} per batch, but that assumes the tables sit in HBM: "
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

TRANSFER_A = Prediction(
    question=(
        "The catalogue stays at 100M rows but the embedding width halves to 64 and the table is stored in "
        "FP16. On the 80 GB A100, the one table now takes about…"
    ),
    options={
        "16": "16%: a quarter of the bytes",
        "32": "32%: half as many bytes",
        "64": "Still 64%: rows set the size",
        "8": "8%: an eighth of the bytes",
    },
    answer="16",
    feedback={
        "16": "Bytes = rows × width × bytes per value: half the width and half the bytes per value = a quarter: "
        "12.8 GB. Set the width to 64 and the precision to FP16.",
        "32": "That halves only one factor; width and precision both halve.",
        "64": "Rows are one of three factors: width and bytes per value multiply them.",
        "8": "That is an eighth: only two factors of two changed.",
    },
    kind="transfer",
)

TRANSFER_B = Prediction(
    question=(
        "Each request now looks up 8 IDs per table (multi-hot) instead of 1. At batch 1,024, the gathered "
        "bytes per request…"
    ),
    options={
        "8x": "Grow 8×: every ID reads its own row",
        "same": "Stay the same: pooling sums them",
        "fall": "Fall: more lookups make caching work",
    },
    answer="8x",
    feedback={
        "8x": "Every ID is its own row read; pooling adds them after they are gathered. Set lookups to 8 and read "
        "the gathered-bytes card.",
        "same": "Pooling reduces what leaves the table (one vector), not what is read (eight rows).",
        "fall": "Caching helps only when requests share hot rows; the part's engine assumes every row is read.",
    },
    kind="transfer",
)

TRANSFER_C = Prediction(
    question=(
        "Store both tables in INT8 on the 40 GB A100 instead of the 80 GB one. The most rows you can keep is "
        "about…"
    ),
    options={
        "56": "The same share as on 80 GB: the precision sets how many rows fit",
        "28": "Half the share of 80 GB: the rows kept scale with the memory",
        "100": "All of them: INT8 tables are a quarter of the FP32 bytes",
    },
    answer="28",
    feedback={
        "56": "Precision sets the bytes per row; the memory sets how many rows those bytes allow. Half the memory "
        "holds half the rows.",
        "28": "40 GB / 140.8 GB of INT8 tables: 28% of the rows. Pick the 40 GB A100 and INT8 and read the "
        "last card.",
        "100": "A quarter of 563.2 GB is 140.8 GB, 3.5× the 40 GB card: INT8 alone does not fit.",
    },
    kind="transfer",
    reveals=("28%",),
)

TRANSFER_D = Prediction(
    question=(
        "On 2 GPUs, cut the lookups per table from 8 to 1 per request. The bytes exchanged per batch…"
    ),
    options={
        "eight": "Fall about 8×: each request looks up an eighth as many rows",
        "half": "Fall about 2×: the other GPU now holds the row only half the time",
        "same": "Stay the same: each GPU still sends one partial sum per request and table",
    },
    answer="half",
    feedback=Deferred(lambda: _transfer_d_feedback()),
    kind="transfer",
)


def _transfer_d_feedback() -> dict[str, str]:
    eight, one = (shard_plan(2, 90, 4096, k)["all_to_all"] for k in (8, 1))
    return {
        "eight": "Traffic counts partial sums, not rows: with 8 lookups the other GPU almost surely holds some of "
        f"a request's rows and sends one sum for all of them ({fmt_bytes(eight)} per batch). With one lookup "
        f"it holds the row half the time: {fmt_bytes(one)}, {fmt_ratio(eight / one)} less, not 8×.",
        "half": f"{fmt_bytes(eight)} against {fmt_bytes(one)} per 4,096-request batch: "
        f"{fmt_ratio(eight / one)}. The other GPU sends a partial sum with chance 1 − (1/2)ᵏ: 0.996 at 8 "
        "lookups, 0.5 at 1. Set 2 GPUs and 1 lookup and read the all-to-all card.",
        "same": "A GPU holding none of a request's rows sends nothing: with one lookup per table the other GPU "
        f"holds the row only half the time ({fmt_bytes(one)} against {fmt_bytes(eight)}).",
    }
