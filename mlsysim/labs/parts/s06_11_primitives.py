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
        "A 3×3, stride-1 convolution over a 56×56×64 feature map ('same' padding) is lowered to one "
        "matrix multiply with im2col, and the patch matrix comes out several times the size of the input. "
        "Where does the extra memory come from?"
    ),
    options={
        "overlap": "Overlapping windows: each pixel is copied once per window",
        "padding": "Zero padding: the border zeros are stored with the data",
        "output": "The output: one partial sum is kept per MAC",
        "layout": "A second layout: the whole input is stored again in GEMM order",
    },
    answer="overlap",
    asks="behaviour",
    misconceptions={
        "padding": (
            "padding is the overhead",
            "The extra memory of a lowered convolution is the zeros around the border",
        ),
        "output": (
            "partial sums take the memory",
            "A GEMM keeps one intermediate value per multiply-accumulate",
        ),
        "layout": (
            "im2col only reorders the data",
            "Lowering copies the input once into a GEMM-friendly order, nothing more",
        ),
    },
    feedback={
        "overlap": "A 3×3 window at stride 1 overlaps its neighbours, and im2col copies every window into its "
        "own row of K²·C_in values: an interior pixel lands in 9 rows, and the buffer is 9× the input. With "
        "windows that do not overlap (stride 3) the same unfolding is exactly 1×: a reordered copy.",
        "padding": "The border zeros are a thin frame: without padding the buffer is still 8.4× the input "
        "(54×54 windows instead of 56×56). The multiple comes from the windows overlapping: each pixel is "
        "copied into up to K² = 9 rows.",
        "output": "A GEMM accumulates each output in a register and writes it once: the output is C_out·H·W "
        "values, no larger than the input here. The large matrix is the input side, where each pixel is "
        "copied once per window that covers it (9×).",
        "layout": "A reordered copy would be 1× the input, which is what im2col gives when windows do not "
        "overlap (stride 3). At stride 1 each pixel is copied into up to K² = 9 rows: 9×. The longer "
        "edition's self-check calls 'no extra memory' false.",
    },
    reveals=("copied once per window", "9×"),
)

TRANSFER_A = Prediction(
    question=(
        "Keep the 3×3 kernel on the 56×56 map but dilate it by 2 (taps two pixels apart, 'same' padding 2; "
        "the part has no dilation). What happens to the im2col expansion?"
    ),
    options={
        "same": "Unchanged: each window still holds 9 values per channel",
        "grows": "It grows toward 25×: each window now spans 5×5 pixels",
        "shrinks": "It shrinks: the spread-out windows overlap less",
    },
    answer="same",
    asks="direction",
    misconceptions={
        "grows": (
            "reach is size",
            "A window that spans more pixels stores more values",
        ),
        "shrinks": (
            "spacing reduces the copies",
            "Taps spread apart share fewer pixels, so fewer copies are made",
        ),
    },
    feedback={
        "same": "A row of the patch matrix holds one value per tap, K²·C_in = 9·C_in, wherever the taps "
        "sit, and there are still 56×56 windows: 9×. Each pixel is still covered by 9 windows, at other "
        "offsets. Dilation widens the receptive field for free in memory; a real 5×5 would cost 25×.",
        "grows": "The window's reach grows to 5×5, but it still reads only 9 taps: each row holds 9·C_in "
        "values, and the buffer stays 9× the input.",
        "shrinks": "Each pixel is still tapped by 9 windows (at offsets of 2 instead of 1), and there are "
        "still 56×56 windows of 9·C_in values: 9×.",
    },
    kind="transfer",
    reveals=("Dilation widens the receptive field",),
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
    fig5 = P.gemm_shape(
        L.Conv2d(in_channels=2, out_channels=1, kernel_size=2, input_size=3, bias=False)
    )
    lst3 = L.Conv2d(
        in_channels=1, out_channels=1, kernel_size=3, input_size=28, padding=1, bias=False
    )
    ho3, wo3 = lst3.output_size
    peek = [
        f"windows     = (H + 2p − K) / s + 1 = ({s} + {2 * (k // 2)} − {k}) / {st} + 1 = {ho}",
        f"im2col      = H_out·W_out × K²·C_in = {ho * wo:,} × {shape.k:,} = {layer.im2col_elements:,} values",
        f"expansion   = im2col / (C_in·H·W) = {layer.im2col_elements:,} / {layer.input_elements:,} = "
        f"{layer.im2col_expansion:,.3f}×",
        f"MACs        = M × K × N = {shape.m:,} × {shape.k:,} × {shape.n:,} = {layer.macs():,} (same for both lowerings)",
        "toy cases (no padding): 3×3 input, 2×2 filter → 16/9; 28×28 input, 3×3 window → 26×26 windows",
        f"Figure 5: two 3×3 maps, 2×2 filter → a {fig5.m}×{fig5.k} patch matrix times a {fig5.k}×{fig5.n} "
        f"filter column ({fig5.macs} MACs, as direct convolution); Listing 3: 3×3 on a padded 28×28 map = "
        f"{lst3.macs() // (ho3 * wo3)} MACs × {ho3 * wo3:,} positions = {lst3.macs():,} per channel pair",
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
        "share most?"
    ),
    options={
        "matrix": "A bigger matrix (8,192²): more work to spread over the array",
        "array": "A bigger array (256×256): more MAC cells at work at once",
        "rows": "More rows per weight tile: batch the tokens",
        "double": "Double-buffering: the next tile loads while this one computes",
    },
    answer="rows",
    asks="behaviour",
    misconceptions={
        "matrix": (
            "more work means better utilization",
            "A bigger problem keeps a big array busier",
        ),
        "array": (
            "more hardware is always faster",
            "Adding MAC cells raises the share of them doing useful work",
        ),
        "double": (
            "hide the loads and the array fills",
            "Weight loading is the only thing keeping a systolic array idle",
        ),
    },
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
    reveals=("More rows per weight tile", "382 rows"),
)

TRANSFER_B = Prediction(
    question=(
        "A 512×512 array (past the slider) runs the same 2,048×2,048 weights without double-buffering. To keep "
        "half its MAC slots busy, compared with the 128×128 array's 382 rows per tile, it needs…"
    ),
    options={
        "x4": "About 4× as many rows: the fill-and-drain path grows with N",
        "x16": "About 16× as many rows: there are 16× as many cells to feed",
        "same": "The same 382 rows: a streamed row is one useful cycle anywhere",
        "fewer": "Fewer rows: a bigger array finishes each tile sooner",
    },
    answer="x4",
    asks="direction",
    misconceptions={
        "x16": (
            "overhead grows with the cell count",
            "An N×N array's idle time grows with its N² cells",
        ),
        "same": (
            "one row is one row",
            "The rows needed to fill an array do not depend on its size",
        ),
        "fewer": (
            "bigger arrays need less batching",
            "A larger array does each tile faster, so it needs less work to stay busy",
        ),
    },
    feedback={
        "x4": "A tile's overhead is 2(N − 1) fill/drain plus N load cycles: 1,534 at N = 512 against 382 at "
        "128, 4.02×. The cells grow 16×, but each streamed row also does 16× the work, so only the pipeline "
        "length (∝ N) sets the rows needed. Big arrays need big batches.",
        "x16": "The cells do grow 16×, but so does the useful work of each streamed row (one MAC per cell); "
        "what the rows must amortize is the pipeline, 3N − 2 cycles: 1,534 rows against 382.",
        "same": "One row fills one cycle on any array, but a bigger array's pipeline is longer: 2(N − 1) + N = "
        "1,534 idle cycles per tile at N = 512, so it needs 1,534 rows for half.",
        "fewer": "Each tile does take the same cycles per row, but its fill, drain and load grow with N: "
        "1,534 cycles at N = 512. Half utilization needs that many rows, 4× the 128×128 array's 382.",
    },
    kind="transfer",
    reveals=("1,534",),
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
        "quarter": "About 4× less: each value is 4× fewer bytes",
        "less": "Less, but not 4×: each access also pays a fixed overhead",
        "same": "Unchanged: each gather still pays for a whole burst",
        "more": "More: a smaller share of each burst is used",
    },
    answer="same",
    asks="direction",
    misconceptions={
        "quarter": (
            "smaller types are always cheaper to fetch",
            "Energy per value follows the bytes per value, whatever the access pattern",
        ),
        "less": (
            "a fixed cost per access plus bytes",
            "Each access costs a fixed overhead plus its bytes, so fewer bytes save a little",
        ),
        "more": (
            "waste raises the price",
            "Using less of each fetch makes every value dearer",
        ),
    },
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
    reveals=("pays for a whole burst", "64-byte burst", "64-byte line"),
)

TRANSFER_C = Prediction(
    question=(
        "A feature store gathers 16-byte records (4 FP32 values each, each record inside one 64-byte line; "
        "no such pattern is offered above) at random addresses. Per useful value, its DRAM energy is…"
    ),
    options={
        "sequential": "Like a stream's: each record is read whole",
        "random": "Like random scalars': the addresses are random",
        "between": "In between: a quarter of each burst is used",
    },
    answer="between",
    asks="behaviour",
    misconceptions={
        "sequential": (
            "contiguous means efficient",
            "Reading a record whole makes a gather as cheap as a stream",
        ),
        "random": (
            "randomness sets the price",
            "Any random access costs the same per value, whatever it reads",
        ),
    },
    feedback={
        "between": "Each record uses 16 of its burst's 64 bytes: 2,560 pJ per FP32 value, 4× a stream's "
        "640 pJ and a quarter of a random scalar's 10,240 pJ. What sets the price is the share of each "
        "fetched burst that is used, not whether the address is random. (A bytes-only model: each random "
        "burst also pays a DRAM row activation, which it does not count.)",
        "sequential": "The record is read whole, but a 16-byte record fills only a quarter of the 64-byte "
        "burst DRAM delivers: 2,560 pJ per value against a stream's 640.",
        "random": "Random addresses waste what a fetch does not use. A record uses 16 of 64 bytes, four times "
        "a scalar's 4: 2,560 pJ per value against 10,240.",
    },
    kind="transfer",
    reveals=("2,560 pJ",),
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
        "double": "It doubles: twice the additions, twice the stages",
        "one": "One more stage: each stage halves what is left",
        "same": "Unchanged: every addition runs in parallel anyway",
        "four": "It quadruples: the attention scores grow with S²",
    },
    answer="one",
    asks="direction",
    misconceptions={
        "double": (
            "depth follows work",
            "A computation's critical path grows in proportion to its operations",
        ),
        "same": (
            "parallel means constant time",
            "Enough parallel hardware makes any reduction a single step",
        ),
        "four": (
            "everything in attention is quadratic",
            "Every cost of attention grows with S²",
        ),
    },
    feedback={
        "double": "The work doubles (511 → 1,023 adds), but the critical path is ⌈log₂ S⌉ stages: one more halving, "
        "from 9 to 10.",
        "one": "⌈log₂ S⌉: 9 stages at 512, 10 at 1,024. The work is still S − 1 additions; only the dependency "
        "chain shrinks from O(S) to O(log S).",
        "same": "Additions combine pairs, so each stage can only halve the count: more values need more halvings.",
        "four": "The scores per head grow with S², but each softmax row has S of them; its reduction adds one "
        "stage per doubling.",
    },
    reveals=("One more stage",),
)

TRANSFER_D = Prediction(
    question=(
        "Sequence parallelism splits each softmax row's S = 512 scores over 4 GPUs (not modelled above): each "
        "sums its 128 with a tree, then a tree combines the 4 partial sums. Against one device's tree, a row's "
        "dependent stages…"
    ),
    options={
        "same": "Stay the same: splitting a row does not shorten its tree",
        "quarter": "Fall to about a quarter: each GPU sums a quarter of the row",
        "fewer": "Fall by two: each GPU's tree is two stages shallower",
        "more": "Grow: the combine across GPUs adds stages on top",
    },
    answer="same",
    asks="behaviour",
    misconceptions={
        "quarter": (
            "depth divides like work",
            "Splitting a reduction over P devices divides its critical path by P",
        ),
        "fewer": (
            "the combine is free",
            "Once each part is summed, merging the partial sums costs nothing",
        ),
        "more": (
            "splitting always adds steps",
            "Distributing a reduction adds stages on top of the single-device tree",
        ),
    },
    feedback={
        "same": "⌈log₂ 128⌉ = 7 stages on each GPU, then ⌈log₂ 4⌉ = 2 to combine: 9, exactly ⌈log₂ 512⌉. A "
        "tree's depth is set by how many values it reduces, however they are split; splitting spreads the "
        "work (and adds communication latency to the last 2 stages), not the depth.",
        "quarter": "Each GPU does a quarter of the additions, but depth is logarithmic: 7 stages for 128 values "
        "instead of 9 for 512, and the 4 partial sums still need 2 more: 9.",
        "fewer": "Each GPU's tree is 2 stages shallower (7 instead of 9), but the 4 partial sums must still be "
        "combined: 2 more stages, 9 in all.",
        "more": "The combine is the top of the same tree: 7 stages on each GPU and 2 across them make the 9 one "
        "device would take. What it adds is communication latency per stage, not stages.",
    },
    kind="transfer",
    reveals=("7 stages on each GPU",),
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
