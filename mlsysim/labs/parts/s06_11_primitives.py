"""Computational Primitives (the longer edition's section, "6.P" here): each part is a plain
function of its widgets.

Part A: im2col lowers a convolution to one GEMM at the price of a patch buffer up to K² times the
input; implicit GEMM builds the patches on the fly. Part B: a systolic array runs that GEMM, and
its utilization depends on how many rows stream through each weight tile. Part C: the energy of
reaching an operand (SRAM vs DRAM) and how access patterns waste fetched bytes. Part D: broadcast,
gather and reduction in one attention operation, and tree vs serial reduction.

Counts come from ``mlsysim.layers``, ``mlsysim.energy`` and ``mlsysim.primitives``; the
chapter's figures are asserted in ``tests/test_s06_11_primitives.py``.
"""

from __future__ import annotations

from functools import lru_cache

from ..._lazy import lazy
from ..charts import figure
from ..components import (
    Card,
    Choice,
    Prediction,
    Slider,
    Toggle,
    View,
    counted,
    fmt_bytes,
    fmt_count,
    fmt_rate,
    fmt_ratio,
    fmt_time,
    widget_args,
)

energy = lazy("mlsysim.energy")
L = lazy("mlsysim.layers")
P = lazy("mlsysim.primitives")
U = lazy("mlsysim.units")

CHAPTER = "6.P"
PARTS = ("A", "B", "C", "D")

#: Bytes per value for the buffer sizes in part A: the chapter's FP32 convention.
BUFFER_PRECISION = "fp32"

# ---------------------------------------------------------------------------------------------
# Part A: im2col vs implicit GEMM
# ---------------------------------------------------------------------------------------------

PRED_A = Prediction(
    question=(
        "A 3×3, stride-1 convolution over a 56×56 feature map ('same' padding) is lowered to one "
        "matrix multiply with im2col. How large is the unfolded patch matrix compared with the input?"
    ),
    options={
        "1": "The same size: im2col only reorders the data",
        "3": "About 3× (the kernel side)",
        "9": "About 9× (the kernel area)",
        "81": "About 81×",
    },
    answer="9",
    feedback={
        "1": "Overlapping windows share pixels, and im2col copies each window into its own row: an interior "
        "pixel appears in K² = 9 rows. The longer edition's self-check calls 'no extra memory' false.",
        "3": "Each pixel lies in K windows along a row and K along a column: K × K = 9 copies, not K.",
        "9": "Every output position gets a row of K²·C_in values, and there are as many positions as input "
        "pixels at stride 1 with 'same' padding: 9× the input.",
        "81": "That squares the kernel area. Each pixel is copied once per window that covers it: K² = 9.",
    },
    reveals=("9×",),
)

TRANSFER_A = Prediction(
    question="Keep the 3×3 kernel but use stride 2 on the same 56×56 map. What happens to the im2col expansion?",
    options={
        "same": "It stays at the kernel area: the kernel did not change",
        "quarter": "It quarters: stride 2 leaves a quarter as many windows",
        "half": "It halves: the window moves twice as far each step",
    },
    answer="quarter",
    feedback={
        "same": "Each window still holds K²·C_in values, but stride 2 leaves 28×28 windows instead of 56×56: "
        "the buffer shrinks 4×, to K²/s² = 2.25× the input.",
        "quarter": "28×28 windows of 9·C_in values against 56×56 input pixels: 2.25×, i.e. K²/s². Set the stride "
        "slider to 2 and read the expansion card.",
        "half": "Stride acts on both axes: half the windows across and half down, a quarter in all (2.25×).",
    },
    kind="transfer",
)
A_KERNEL = Slider("Kernel side K", 1, 7, 3, step=2)
A_SIZE = Slider("Input side H = W", 8, 224, 56, step=8)
A_STRIDE = Slider("Stride", 1, 4, 1)
A_CHANNELS = Slider("Input channels C_in (= C_out)", 1, 512, 64)


@lru_cache(maxsize=512)
def conv(kernel: int, size: int, stride: int, channels: int) -> L.Conv2d:
    """A K×K convolution with 'same' padding (K // 2)."""
    return L.Conv2d(
        in_channels=int(channels),
        out_channels=int(channels),
        kernel_size=int(kernel),
        input_size=int(size),
        stride=int(stride),
        padding=int(kernel) // 2,
        bias=False,
    )


@widget_args
def part_a(kernel: int, size: int, stride: int, channels: int) -> View:
    import plotly.graph_objects as go

    k, s, st, c = int(kernel), int(size), int(stride), int(channels)
    layer = conv(k, s, st, c)
    shape = P.gemm_shape(layer)
    bpv = U.bytes_per_value(BUFFER_PRECISION)
    buf = float(layer.im2col_elements * bpv)
    inp = float(layer.input_elements * bpv)
    sides = list(range(int(A_SIZE.start), int(A_SIZE.stop) + 1, int(A_SIZE.step)))

    fig = figure(
        f"im2col patch matrix ÷ input tensor (stride {st})",
        "Input side H = W",
        "Expansion (× the input)",
    )
    for kk in range(1, int(A_KERNEL.stop) + 1, 2):
        fig.add_trace(
            go.Scatter(
                x=sides,
                y=[conv(kk, x, st, 1).im2col_expansion for x in sides],
                name=f"{kk}×{kk} im2col",
                mode="lines",
                line=dict(width=3 if kk == k else 1.5),
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[sides[0], sides[-1]],
            y=[0, 0],
            name="implicit GEMM (no patch buffer)",
            mode="lines",
            line=dict(dash="dash"),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[s],
            y=[layer.im2col_expansion],
            name="your layer",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )

    ho, wo = layer.output_size
    direct, wino = P.winograd_multiplications(2, k)
    cards = [
        Card("Sliding windows", f"{ho}×{wo}", f"{k}×{k} window, stride {st}"),
        Card(
            "GEMM shape", f"{shape.m:,} × {shape.k:,} × {shape.n:,}", "positions × K²·C_in × C_out"
        ),
        Card("Input tensor", fmt_bytes(inp), f"{c}×{s}×{s}, {BUFFER_PRECISION.upper()}"),
        Card(
            "im2col buffer",
            fmt_bytes(buf),
            f"{counted(ho * wo, 'row')} × {counted(shape.k, 'value')}",
            "bad" if layer.im2col_expansion > 4 else "warn" if layer.im2col_expansion > 1 else "ok",
        ),
        Card(
            "Expansion",
            fmt_ratio(layer.im2col_expansion, 2),
            # the large-map limit at stride 1 only: at stride s it is K²/s², TRANSFER_A's answer
            f"→ K² = {k * k} for large maps" if st == 1 else "K² windows over the strided map",
        ),
        Card("Implicit GEMM buffer", fmt_bytes(0), "patches built tile by tile on chip", "ok"),
    ]
    if k > 1 and st == 1:  # Winograd's minimal filtering: a stride-1 window of 3×3 or more
        cards.append(
            Card(
                f"Winograd F(2×2, {k}×{k})",
                fmt_ratio(direct / wino, 2) + " fewer multiplies",
                f"{direct} direct vs {wino} per 2×2 output tile (more additions, more rounding)",
                "ok",
            )
        )
    summary = (
        f"A {k}×{k}, stride-{st} convolution on {c}×{s}×{s} slides its window over {ho}×{wo} positions. "
        f"im2col copies every window into a row of {shape.k:,} value{'s' if shape.k != 1 else ''}: a {fmt_bytes(buf)} buffer, "
        f"{layer.im2col_expansion:,.2f}× the {fmt_bytes(inp)} input. The GEMM that follows is the same "
        f"{fmt_count(layer.macs())} MACs either way; implicit GEMM gathers the patches into on-chip tiles "
        "and never writes the buffer."
    )
    peek = [
        f"windows     = (H + 2p − K) / s + 1 = ({s} + {2 * (k // 2)} − {k}) / {st} + 1 = {ho}",
        f"im2col      = H_out·W_out × K²·C_in = {ho * wo:,} × {shape.k:,} = {layer.im2col_elements:,} values",
        f"expansion   = im2col / (C_in·H·W) = {layer.im2col_elements:,} / {layer.input_elements:,} = "
        f"{layer.im2col_expansion:,.3f}×",
        f"MACs        = M × K × N = {shape.m:,} × {shape.k:,} × {shape.n:,} = {layer.macs():,} (same for both lowerings)",
        "toy cases (no padding): 3×3 input, 2×2 filter → 16/9; 28×28 input, 3×3 window → 26×26 windows",
        f"Winograd F(2×2, {k}×{k}): m²r² = 4 × {k * k} = {direct} direct vs (m + r − 1)² = {wino} multiplies "
        f"= {direct / wino:.2f}× fewer",
        "Table 13, sliding window: specialized datapaths · data-layout optimization · challenge: stride handling",
    ]
    return View(fig, cards, summary, "im2col", peek)


# ---------------------------------------------------------------------------------------------
# Part B: a systolic array runs the GEMM
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "A 128×128 weight-stationary systolic array multiplies one token's activations (batch 1) by a "
        "2,048×2,048 weight matrix and keeps well under 1% of its MAC slots busy. Which change raises that "
        "share the most?"
    ),
    options={
        "matrix": "A bigger weight matrix (8,192×8,192): more work to spread over the array",
        "array": "A bigger array (256×256): more MAC cells working at once",
        "rows": "More rows through each weight tile: batch the tokens",
        "double": "Double-buffer the weights so the next tile loads while this one computes",
    },
    answer="rows",
    feedback={
        "matrix": "Size is not reuse: a bigger matrix is just more tiles, each still streaming one row for 254 "
        "fill/drain and 128 load cycles. Utilization stays at 0.26%.",
        "array": "A bigger array has more cells to fill and a longer pipeline (2(N − 1) cycles) for the same one "
        "row: 0.13% at 256×256, half of what 128×128 manages.",
        "rows": "Each weight tile costs 2(N − 1) = 254 fill/drain cycles plus 128 to load its weights; the useful "
        "work is one cycle per streamed row. Half utilization needs as many rows as that overhead: 382 "
        "rows without double-buffering, 254 with it. Batching is the systolic version of GEMV → GEMM.",
        "double": "It hides the 128 load cycles (0.26% → 0.39%) but not, in this back-to-back model, the 254 "
        "fill/drain cycles, which only more rows per tile amortize (real arrays can also overlap one tile's "
        "drain with the next one's fill).",
    },
    reveals=("More rows through each weight tile", "382 rows"),
)

TRANSFER_B = Prediction(
    question=(
        "An edge NPU has a 32×32 array. On the same batch-1 GEMV (2,048×2,048), does it keep a larger or a "
        "smaller share of its MAC slots busy than the 128×128 array?"
    ),
    options={
        "smaller": "Smaller: a weaker array does worse on the same work",
        "larger": "Larger: its fill-and-drain pipeline is many times shorter",
        "same": "The same: one row is one row on any array",
    },
    answer="larger",
    feedback={
        "smaller": "A small array finishes less work per cycle, but it wastes fewer cycles per tile: 2 × 31 fill/drain "
        "and 32 load cycles for its one useful row, about 1.1% against 0.26%.",
        "larger": "One useful cycle per tile against 62 + 32 overhead cycles: about 1.1%, four times the 128×128 "
        "share. Small arrays suit small batches; big arrays need big batches. Set the array side to 32.",
        "same": "The overhead per tile scales with the array side (2(N − 1) + N cycles), so the share of useful "
        "cycles does too.",
    },
    kind="transfer",
)
B_ARRAY = Slider("Array side N (N×N MAC cells)", 8, 256, 128, step=8)
B_ROWS = Slider("Rows streamed M (batch × tokens)", 1, 4096, 1)
B_WIDTH = Slider("Weight matrix d × d", 256, 8192, 2048, step=256)
B_DOUBLE = Toggle("Double-buffered weights (next tile loads while this one computes)", False)

#: Output tile sides compared for a tiled GEMM: the longer edition's 64x64 (L1) and 256x256 (L2) tiles
#: (L2901).
TILES = (64, 256)

ROW_SWEEP = [2**i for i in range(13)]  # 1 ... 4096

#: The MAC cells' precision: INT8, as in TPU v1, whose 700 MHz clock the part borrows; its rates are
#: therefore operations per second (OP/s), not FLOP/s.
SYSTOLIC_PRECISION = "int8"


@lru_cache(maxsize=256)
def _run(array: int, rows: int, width: int, double: bool) -> P.SystolicRun:
    layer = L.Dense(in_features=width, out_features=width, bias=False)
    return P.systolic_gemm(P.gemm_shape(layer, rows), size=array, weight_load=not double)


@widget_args
def part_b(array: int, rows: int, width: int, double: bool) -> View:
    import plotly.graph_objects as go

    n, m, d, db = int(array), int(rows), int(width), bool(double)
    run = _run(n, m, d, db)
    arr = P.SystolicArray(size=n, clock=P.TPU_V1.clock)
    fig = figure(
        f"Utilization of a systolic array on a {d:,}×{d:,} GEMM",
        "Rows streamed per weight tile M (log)",
        "Useful MAC slots (%)",
        log_x=True,
    )
    sweep = sorted(set(ROW_SWEEP) | {m})
    for size in sorted({64, n, 256}):  # not 32: TRANSFER_B asks about a 32×32 array
        fig.add_trace(
            go.Scatter(
                x=sweep,
                y=[100 * _run(size, x, d, db).utilization for x in sweep],
                name=f"{size}×{size} array",
                mode="lines",
                line=dict(width=3 if size == n else 1.5),
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[m],
            y=[100 * run.utilization],
            name="your setting",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )

    t = run.time(P.TPU_V1.clock).m_as("s")
    overhead = run.fill_cycles + run.load_cycles
    shape = P.gemm_shape(L.Dense(in_features=d, out_features=d, bias=False), m)
    moved = [P.tiled_gemm_values(shape, tile) for tile in TILES]
    bpv = float(U.bytes_per_value(SYSTOLIC_PRECISION))  # the array's operands
    cards = [
        Card("Weight tiles", fmt_count(run.tiles), f"⌈{d:,}/{n}⌉² of {n}×{n}"),
        Card(
            "Cycles per tile",
            f"{run.cycles_per_tile:,}",
            f"{m:,} streaming + {run.fill_cycles} fill/drain + {run.load_cycles} load",
        ),
        Card(
            "Utilization",
            f"{run.utilization:.2%}",
            "useful MACs ÷ offered slots",
            "bad" if run.utilization < 0.1 else "warn" if run.utilization < 0.5 else "ok",
        ),
        Card("Time at 700 MHz", fmt_time(t), f"{run.cycles:,} cycles"),
        Card(
            "Achieved rate",
            fmt_rate(2 * run.macs / t, precision=SYSTOLIC_PRECISION),
            f"of {fmt_rate(arr.peak.m_as('FLOP/s'), precision=SYSTOLIC_PRECISION)} peak "
            f"({SYSTOLIC_PRECISION.upper()} MAC cells)",
        ),
        Card("Rows for 50%", f"{overhead:,}", "M equal to the per-tile overhead"),
        Card(
            f"Tiling: {TILES[0]}² vs {TILES[1]}² output tiles",
            # a ratio reads well where it is large; "1.01× less" does not: say 1 % less
            fmt_ratio(moved[0] / moved[1], 2) + " less traffic"
            if moved[0] >= 1.1 * moved[1]
            else f"{1 - moved[1] / moved[0]:.0%} less traffic",
            f"{fmt_bytes(moved[0] * bpv)} vs {fmt_bytes(moved[1] * bpv)} moved ({SYSTOLIC_PRECISION.upper()}), "
            "operands re-read once per tile",
        ),
    ]
    summary = (
        f"The {d:,}² weight matrix splits into {run.tiles:,} tile{'s' if run.tiles != 1 else ''} of {n}×{n}. "
        f"Each tile streams {m:,} row{'s' if m != 1 else ''} but pays {overhead:,} cycles to "
        f"{'fill and drain' if db else 'fill, drain and load weights'}, so {run.utilization:.2%} "
        f"of the array's MAC slots do useful work. The array only pays off when many rows share each weight "
        "tile: batching is the systolic version of GEMV → GEMM."
    )
    peek = [
        f"tiles       = ⌈K/N⌉ × ⌈N_out/N⌉ = ⌈{d}/{n}⌉ × ⌈{d}/{n}⌉ = {run.tiles:,}",
        f"cycles/tile = M + 2(N − 1) + load = {m:,} + {run.fill_cycles} + {run.load_cycles} = {run.cycles_per_tile:,}",
        f"utilization = MACs / (cycles × N²) = {run.macs:,} / ({run.cycles:,} × {n * n:,}) = {run.utilization:.4f}",
        f"peak        = 2 × N² × clock = 2 × {n * n:,} × {P.TPU_V1.clock:~P} = "
        f"{fmt_rate(arr.peak.m_as('FLOP/s'), precision=SYSTOLIC_PRECISION)}",
        "model: weight-stationary INT8 MAC cells, tiles run back to back with no overlap of one tile's drain "
        "and the next one's fill (Kung 1982); the clock is TPU v1's, an INT8 array of 256×256 (Jouppi et al. 2017)",
        "Table 13, matrix multiplication: Tensor Cores · batching, GEMM libraries · challenge: parallelization, "
        "precision",
        f"tiling: values moved = m·k·⌈n/T⌉ + k·n·⌈m/T⌉ + m·n = {moved[0]:,} (T = {TILES[0]}) vs {moved[1]:,} "
        f"(T = {TILES[1]}); the fast memory holding the tiles is a cache (hardware finds data by tag) or a "
        "scratchpad (the compiler moves it by DMA: no tags, predictable latency)",
    ]
    return View(fig, cards, summary, "Systolic array timing", peek)


# ---------------------------------------------------------------------------------------------
# Part C: memory-access energy and access patterns
# ---------------------------------------------------------------------------------------------

PRED_C = Prediction(
    question=(
        "A recommender gathers 4,096 feature values from DRAM at random addresses. Quantizing the values "
        "from FP32 (4 bytes) to INT8 (1 byte) makes each one 4× smaller. What happens to the DRAM energy "
        "per gathered value?"
    ),
    options={
        "quarter": "It falls about 4×, with the bytes per value",
        "less": "It falls, but by clearly less than 4×",
        "same": "It does not change",
        "more": "It rises",
    },
    answer="same",
    feedback={
        "quarter": "That is the misconception that a smaller type is always cheaper to fetch. It holds for a "
        "sequential stream (640 → 160 pJ per value from DRAM), but a random gather pays for a whole 64-byte "
        "DRAM burst whatever it uses: 10,240 pJ per value in FP32 and in INT8.",
        "less": "Nothing falls: DRAM delivers whole 64-byte bursts, so a random 1-byte value costs the same "
        "64 bytes as a random 4-byte one (10,240 pJ either way).",
        "same": "Each random gather fetches one whole 64-byte DRAM burst, of which FP32 uses 6.25% and INT8 "
        "1.56%: 10,240 pJ per value either way. A smaller type saves fetch energy only when neighbouring "
        "values are used together (a stream falls from 640 to 160 pJ per value). Pick the random pattern and "
        "switch the precision.",
        "more": "Less of each burst is used (1.56% instead of 6.25%), but the bytes fetched per value stay at "
        "64: 10,240 pJ either way, not more.",
    },
    reveals=("does not change", "64-byte burst", "64-byte line"),
)

TRANSFER_C = Prediction(
    question=(
        "DLRM gathers embedding rows at random, but each row is 128 FP32 values (512 B). Per useful value, "
        "is that closer to a sequential stream or to random scalars?"
    ),
    options={
        "random": "Random scalars: the addresses are random",
        "sequential": "A sequential stream: each row fills whole lines",
        "between": "Halfway between the two: random rows of whole lines",
    },
    answer="sequential",
    feedback={
        "random": "What wastes energy is a line fetched for one value. A 512-byte row fills 8 whole lines, so every "
        "fetched byte is used, as in a stream.",
        "sequential": "8 full lines per row: 100% line use and 640 pJ per value from DRAM in this bytes-only "
        "model, the same as a stream. Pick 'random rows' in the pattern control. Each random row also pays a "
        "DRAM row activation (and defeats prefetching), which a stream shares across a whole DRAM row; the "
        "model does not count it.",
        "between": "Line use is what counts: a 512-byte row is eight complete lines, so nothing is wasted.",
    },
    kind="transfer",
)

#: Access scenarios from the longer edition's memory-access primitives, as (label, pattern,
#: items, values per item, stride in values). 4,096 scalars; a 16-value stride is one channel of a
#: 16-channel interleaved map; DLRM gathers rows of 128 values (L1196: 128 x 4 B = 512 B).
SCENARIOS = {
    "sequential": ("Sequential: stream weight rows (MLP, decode)", "sequential", 4096, 1, 1),
    "strided": ("Strided: one channel of a 16-channel map", "strided", 4096, 1, 16),
    "random": ("Random: gather scalars (sparse features)", "random", 4096, 1, 1),
    "rows": ("Random rows: gather 128-value embedding rows (DLRM)", "random", 32, 128, 128),
}
LEVEL_NAMES = {
    "sram_8kb": "8 KB SRAM",
    "sram_32kb": "32 KB SRAM",
    "sram_1mb": "1 MB SRAM",
    "dram": "DRAM",
}
#: Bytes one access delivers at each level. DRAM sends whole 64-byte bursts (one cache line,
#: ``primitives.LINE_BYTES``) whatever the program asked for; an SRAM (a scratchpad or L1) is read one
#: 64-bit word at a time, the access Horowitz's SRAM figures price. A literal: reading
#: ``P.LINE_BYTES`` here would import the package before a page's first question.
ACCESS_BYTES = {"sram_8kb": 8, "sram_32kb": 8, "sram_1mb": 8, "dram": 64}
ACCESS_UNIT = {"sram_8kb": "word", "sram_32kb": "word", "sram_1mb": "word", "dram": "burst"}
C_PATTERN = Choice(
    "Access pattern", {k: v[0] for k, v in SCENARIOS.items()}, "sequential", inline=False
)
C_LEVEL = Choice("Memory level", LEVEL_NAMES, "dram")
C_PRECISION = Choice("Value precision", {"fp32": "FP32", "fp16": "FP16", "int8": "INT8"}, "fp32")


def scenario_cost(key: str, precision: str, level: str = "dram") -> P.AccessCost:
    """The accesses a scenario makes at ``level``, each delivering ``ACCESS_BYTES[level]``."""
    _, pattern, n, vals, stride = SCENARIOS[key]
    b = int(U.bytes_per_value(precision))
    return P.access_cost(pattern, n, vals * b, stride * b, line_bytes=ACCESS_BYTES[level])


def energy_per_value(key: str, level: str, precision: str) -> float:
    """pJ per useful value: the fetched bursts' (DRAM) or words' (SRAM) access energy spread over
    the values used."""
    cost = scenario_cost(key, precision, level)
    values = cost.useful_bytes / float(U.bytes_per_value(precision))
    return energy.access_energy(cost.fetched_bytes, level).m_as("pJ") / values


@widget_args
def part_c(pattern: str, level: str, precision: str) -> View:
    import plotly.graph_objects as go

    mac = energy.mac_energy(precision).m_as("pJ")
    fig = figure(
        f"Energy per useful {precision.upper()} value fetched (DRAM: 64 B bursts; SRAM: 8 B words)",
        "",
        "pJ per value (log scale)",
        log_y=True,
    )
    # DLRM's rows are drawn once picked: TRANSFER_C asks where they fall before they are shown
    shown = [k for k in SCENARIOS if k != "rows" or pattern == "rows"]
    names = [SCENARIOS[k][0].split(":")[0] for k in shown]
    for lvl, label in LEVEL_NAMES.items():
        fig.add_trace(
            go.Bar(
                x=names,
                y=[energy_per_value(k, lvl, precision) for k in shown],
                name=label,
                marker=dict(line=dict(width=3 if lvl == level else 0)),
            )
        )
    fig.add_trace(
        go.Scatter(
            x=names,
            y=[mac] * len(names),
            name=f"one {precision.upper()} MAC",
            mode="lines",
            line=dict(dash="dash"),
        )
    )
    fig.update_layout(barmode="group")

    cost = scenario_cost(pattern, precision, level)
    gran, unit = ACCESS_BYTES[level], ACCESS_UNIT[level]
    per_byte = energy.access_energy(1, "dram").m_as("pJ") / energy.access_energy(
        1, "sram_8kb"
    ).m_as("pJ")
    e = energy_per_value(pattern, level, precision)
    seq = energy_per_value("sequential", level, precision)
    dram_vs_sram = energy_per_value(pattern, "dram", precision) / energy_per_value(
        pattern, "sram_8kb", precision
    )
    cards = [
        Card(
            "Energy per useful value",
            f"{e:,.1f} pJ",
            f"{SCENARIOS[pattern][0].split(':')[0]}, {LEVEL_NAMES[level]}",
        ),
        Card(
            f"vs one {precision.upper()} MAC",
            fmt_ratio(e / mac),
            f"MAC = {mac:g} pJ",
            "bad" if e / mac > 10 else "warn" if e / mac > 1 else "ok",
        ),
        Card(
            "Fetched bytes used",
            f"{cost.efficiency:.2%}",
            f"{fmt_bytes(cost.useful_bytes)} used of {fmt_bytes(cost.fetched_bytes)} ({gran} B {unit}s)",
            "ok" if cost.efficiency > 0.9 else "bad",
        ),
        Card("vs sequential", fmt_ratio(e / seq), "same level, same values"),
        Card("DRAM vs 8 KB SRAM", fmt_ratio(dram_vs_sram, 0), "per useful value, same pattern"),
    ]
    summary = (
        f"{SCENARIOS[pattern][0]} from {LEVEL_NAMES[level]}: {cost.efficiency:.2%} of each fetched {gran} B "
        f"{unit} is used, so each useful {precision.upper()} value costs {e:,.1f} pJ, {e / mac:,.1f}× a MAC and "
        f"{e / seq:,.1f}× a sequential read. Where data lives sets the price per byte ({per_byte:,.0f}× from "
        "8 KB SRAM to DRAM); how it is laid out, and how many bytes one access delivers, set how many bytes "
        "you pay for."
    )
    peek = [
        f"E/value = access_energy(fetched bytes, level) / values used = {e:,.2f} pJ",
        f"fetched = {unit}s × {gran} B = {cost.lines:,} × {gran} = {cost.fetched_bytes:,} B for "
        f"{cost.useful_bytes:,} B used",
        "access size: DRAM delivers whole 64 B bursts (one cache line) whatever the program asked for; an "
        "SRAM scratchpad or L1 is read one 8 B word at a time (Horowitz prices SRAM per 64-bit access)",
        f"DRAM: {energy.access_energy(4, 'dram').m_as('pJ'):g} pJ per 32-bit word vs {energy.mac_energy('fp32').m_as('pJ'):g} pJ "
        f"per FP32 MAC = {energy.move_vs_compute('fp32'):,.0f}× (Horowitz 2014, 45 nm)",
        "bytes only: a random DRAM access also pays a row activation (activate + precharge), which a "
        "sequential stream shares across a whole DRAM row, and it defeats prefetching; this model counts neither",
        "Table 13: sequential access → burst-mode DRAM, contiguous allocation (access latency); random access → "
        "large caches, memory-aware scheduling (cache misses)",
    ]
    return View(fig, cards, summary, "Energy per access", peek)


# ---------------------------------------------------------------------------------------------
# Part D: broadcast, gather, reduction in attention
# ---------------------------------------------------------------------------------------------

PRED_D = Prediction(
    question=(
        "A softmax row sums S exponentials with a tree reduction (pairs added in parallel, stage after "
        "stage). The sequence doubles from 512 to 1,024 tokens. What happens to the number of dependent "
        "stages?"
    ),
    options={
        "double": "It doubles, like the number of additions",
        "one": "It grows by one stage",
        "same": "Nothing: every addition happens in parallel anyway",
        "four": "It quadruples, like the attention scores",
    },
    answer="one",
    feedback={
        "double": "The work doubles (511 → 1,023 adds), but the critical path is ⌈log₂ S⌉ stages: one more halving, "
        "from 9 to 10.",
        "one": "⌈log₂ S⌉: 9 stages at 512, 10 at 1,024. The work is still S − 1 additions; only the dependency "
        "chain shrinks from O(S) to O(log S).",
        "same": "Additions combine pairs, so each stage can only halve the count: more values need more halvings.",
        "four": "The scores per head grow with S², but each softmax row has S of them; its reduction adds one "
        "stage per doubling.",
    },
    reveals=("grows by one stage",),
)

TRANSFER_D = Prediction(
    question=(
        "Keep S = 512 but double the batch from 32 to 64 sequences. How many dependent stages does each "
        "softmax row's tree reduction take now?"
    ),
    options={
        "same": "The same: more sequences add rows, not longer rows",
        "plus_one": "One more: twice the values to reduce, so one more halving",
        "double": "Twice as many: twice the work, so twice the stages",
    },
    answer="same",
    feedback={
        "same": "Each row still sums 512 values: ⌈log₂ 512⌉ stages. The batch doubles the number of rows (and the "
        "scores to reduce), all of which run in parallel. Move the batch slider: the stages card stays put.",
        "plus_one": "The extra values belong to other rows, not to this one. Stages depend on the row length S, "
        "not on how many rows there are.",
        "double": "The total work doubles, but it is spread over twice as many independent rows; each row's "
        "critical path is unchanged.",
    },
    kind="transfer",
)
D_SEQ = Slider("Sequence length S", 128, 8192, 512, step=128)
D_BATCH = Slider("Batch (sequences)", 1, 64, 32)
D_HEAD = Choice("Head dimension d_head", {"64": "64 (GPT-2, BERT)", "128": "128 (Llama)"}, "64")

#: The longer edition's scatter example (L1555): a 512 x 512 matmul distributed over cores, here in
#: 64 x 64 tiles (its tile size for L1, L2901).
SCATTER_SIDE, SCATTER_TILE = 512, 64

#: Scores are materialized in FP16 for the byte count (the chapter's attention examples).
SCORE_PRECISION = "fp16"


@widget_args
def part_d(seq: int, batch: int, head: str) -> View:
    import plotly.graph_objects as go

    s, b, dh = int(seq), int(batch), int(head)
    mv = P.attention_data_movement(s, dh, b)
    seqs = sorted({128 * 2**i for i in range(7)} | {s})
    curves = [P.attention_data_movement(x, dh, b) for x in seqs]
    fig = figure(
        f"Operand deliveries in one attention head, before reuse (batch {b}, d_head {dh})",
        "Sequence length S (log)",
        "Elements delivered (log scale)",
        log_x=True,
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(
            x=seqs,
            y=[c.broadcast for c in curves],
            name="broadcast: queries (S × d_head)",
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=seqs,
            y=[c.gather_keys for c in curves],
            name="gather: keys per query (S² × d_head)",
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=seqs,
            y=[c.reduce for c in curves],
            name="reduce: softmax over scores (S²)",
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[s, s, s],
            y=[mv.broadcast, mv.gather_keys, mv.reduce],
            name="your setting",
            mode="markers",
            marker=dict(size=12, symbol="diamond"),
        )
    )

    tree, serial = P.reduction_stages(mv.reduce_len), P.reduction_stages(mv.reduce_len, tree=False)
    sc = P.scatter_tiles(SCATTER_SIDE, SCATTER_SIDE, SCATTER_TILE, P.A100_SMS)
    scores = L.Attention(d_model=dh, n_heads=1, seq_len=s).score_bytes(b, SCORE_PRECISION)
    cards = [
        Card("Broadcast: query elements", fmt_count(mv.broadcast), f"{b} × {s:,} × {dh}"),
        Card("Gather: key elements", fmt_count(mv.gather_keys), f"{b} × {s:,} × {s:,} × {dh}"),
        Card("Gather: value elements", fmt_count(mv.gather_values), "the same again for P·V"),
        Card("Reduce: scores", fmt_count(mv.reduce), f"{b} × {s:,} × {s:,}"),
        Card("Softmax row: tree stages", f"{tree}", f"vs {serial:,} serial adds", "ok"),
        Card(
            "Scores if materialized",
            fmt_bytes(scores),
            f"one head × batch {b}, {SCORE_PRECISION.upper()}",
            "bad" if scores > 1e9 else "warn",
        ),
        Card(
            f"Scatter: {SCATTER_SIDE}² matmul, {SCATTER_TILE}² tiles",
            f"{sc.core_utilization:.0%} of cores busy",
            f"{sc.tiles} tiles over {sc.cores} A100 SMs in {sc.waves} wave{'s' if sc.waves != 1 else ''} "
            "(a wave: one tile per SM at a time; a fixed example, not set by the controls)",
            "warn" if sc.core_utilization < 0.8 else "ok",
        ),
    ]
    summary = (
        f"At S = {s:,} and batch {b}, one head broadcasts {fmt_count(mv.broadcast)} query elements, gathers "
        f"{fmt_count(mv.gather_keys)} key elements (and as many values) and reduces {fmt_count(mv.reduce)} scores, "
        "counted as operand deliveries before any on-chip reuse. "
        f"Broadcasts grow with S, gathers and reductions with S². Each softmax row is a {s:,}-value reduction: "
        f"{tree} tree stages instead of {serial:,} serial adds, the same work on a far shorter critical path."
    )
    peek = [
        f"broadcast = B × S × d_head = {b} × {s:,} × {dh} = {mv.broadcast:,}",
        f"gather    = B × S × S × d_head = {mv.gather_keys:,} (keys; values the same)",
        f"reduce    = B × S × S = {mv.reduce:,} scores",
        "these count operands delivered to the multipliers with no reuse; memory traffic is smaller "
        "wherever a tile of keys or values is kept on chip and reused across queries",
        f"stages    = ⌈log₂ {s:,}⌉ = {tree} (tree) vs {s:,} − 1 = {serial:,} (serial)",
        f"scatter   = ⌈{SCATTER_SIDE}/{SCATTER_TILE}⌉² = {sc.tiles} tiles over {sc.cores} cores: {counted(sc.waves, 'wave')}, "
        f"{sc.tiles} / ({sc.waves} × {sc.cores}) = {sc.core_utilization:.0%} busy",
        "Table 13: broadcast → specialized interconnects, operation fusion (bandwidth); gather/scatter → "
        "high-bandwidth memory, work distribution (load balancing)",
    ]
    return View(fig, cards, summary, "Attention data movement", peek)
