"""Computational primitives below the layer level: GEMM lowering, systolic-array timing, memory
access patterns, tree reductions and the data movement of one attention operation.

Source: the longer edition of the chapter, section "Computational Primitives" (core primitives:
matmul, im2col, sliding windows, systolic arrays; memory-access primitives: sequential, strided,
random; data-movement primitives: broadcast, scatter, gather, reduction). The counts reuse
``mlsysim.layers`` (a GEMM shape's MACs equal the layer's ``macs()``); what is new here is the
cost of *executing* that work on a systolic array and of *reaching* its operands in memory.

Modelling choices (stated once, asserted in ``tests/test_s06_11_primitives.py``):

- **Systolic array** (Kung 1982, "Why systolic architectures?"; Jouppi et al. 2017, TPU v1):
  weight-stationary, ``size x size`` MAC cells. The K x N weight matrix is cut into
  ``ceil(K/size) * ceil(N/size)`` tiles; for each tile the M input rows stream through. The last
  row enters at cycle M-1 and its partial sums need ``size - 1`` more cycles to cross the rows
  and ``size - 1`` to leave through the columns, so one tile takes ``M + 2(size - 1)`` cycles,
  plus ``size`` cycles to shift the tile's weights in unless they are double-buffered. Tiles run
  one after another (no overlap of one tile's drain with the next tile's fill): an upper bound.
- **Access patterns**: memory is read in fixed lines (64 B, the cache-line and DRAM-burst
  granule of current CPUs and GPUs); an access pays for every line it touches. Sequential
  streams use every byte of each line; strided and random scalar reads use ``bytes/64`` of it;
  random reads of whole contiguous rows (embedding vectors) use all of it. Latency, prefetching
  and bank conflicts are not modelled: this is the traffic (and thus energy) term only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import _check
from . import layers as L
from .units import Q_, Quantity

__all__ = [
    "GemmShape",
    "gemm_shape",
    "SystolicArray",
    "SystolicRun",
    "TPU_V1",
    "systolic_gemm",
    "LINE_BYTES",
    "PATTERNS",
    "AccessCost",
    "access_cost",
    "reduction_stages",
    "AttentionMovement",
    "attention_data_movement",
    "winograd_multiplications",
    "tiled_gemm_values",
    "TileScatter",
    "scatter_tiles",
    "A100_SMS",
]


# --------------------------------------------------------------------------------------------
# GEMM lowering
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GemmShape:
    """``count`` independent GEMMs of (m x k) @ (k x n): m rows stream, k x n is the weight."""

    m: int
    k: int
    n: int
    count: int = 1

    def __post_init__(self):
        for name in ("m", "k", "n", "count"):
            object.__setattr__(self, name, _check.integer(name, getattr(self, name)))

    @property
    def macs(self) -> int:
        return self.count * self.m * self.k * self.n


def gemm_shape(layer: L.Layer, batch: int = 1) -> GemmShape:
    """The GEMM a dense or convolution layer lowers to (im2col view for a convolution:
    m = output positions, k = K_h * K_w * C_in / groups, n = C_out / groups, one GEMM per group)."""
    batch = L.check_batch(batch)
    if isinstance(layer, L.Dense):
        return GemmShape(m=batch * layer.tokens, k=layer.in_features, n=layer.out_features)
    if isinstance(layer, L.Conv2d):
        ho, wo = layer.output_size
        kh, kw = (
            (layer.kernel_size, layer.kernel_size)
            if isinstance(layer.kernel_size, int)
            else layer.kernel_size
        )
        g = layer.groups
        return GemmShape(
            m=batch * ho * wo,
            k=kh * kw * (layer.in_channels // g),
            n=layer.out_channels // g,
            count=g,
        )
    raise ValueError(f"layer must be a Dense or Conv2d layer, got {type(layer).__name__}")


def tiled_gemm_values(shape: GemmShape, tile: int) -> int:
    """Values a tiled GEMM moves between the slow memory and a fast one that holds ``tile x tile``
    output blocks: each output tile reads a ``tile x k`` strip of the streamed operand and a
    ``k x tile`` strip of the weight, then writes its block once. Totals: m*k*ceil(n/tile) +
    k*n*ceil(m/tile) + m*n per GEMM. Bigger tiles re-read each operand fewer times (the longer
    edition's 64x64 L1 and 256x256 L2 tiles, L2901)."""
    _check.instance("shape", shape, GemmShape)
    tile = _check.integer("tile", tile)
    m, k, n = shape.m, shape.k, shape.n
    return shape.count * (m * k * math.ceil(n / tile) + k * n * math.ceil(m / tile) + m * n)


# --------------------------------------------------------------------------------------------
# Systolic array
# --------------------------------------------------------------------------------------------


def _check_clock(clock) -> Quantity:
    """A clock frequency between 1 Hz and 1 PHz (e.g. ``Q_(700, "MHz")``)."""
    ok = isinstance(clock, Quantity) and clock.check("1 / [time]")
    if ok:
        m = clock.magnitude
        ok = (
            not isinstance(m, bool)
            and isinstance(m, int | float)
            and math.isfinite(m)
            and (1.0 <= clock.m_as("Hz") <= 1e15)
        )
    if not ok:
        raise ValueError(
            f"clock must be a frequency in [1 Hz, 1e15 Hz] (e.g. Q_(700, 'MHz')), got {clock!r}"
        )
    return clock


@dataclass(frozen=True)
class SystolicArray:
    """A ``size x size`` grid of MAC cells clocked at ``clock``."""

    size: int
    clock: Quantity
    name: str = ""

    def __post_init__(self):
        object.__setattr__(self, "size", _check.integer("size", self.size, 1, 2**20))
        _check.text("name", self.name)
        _check_clock(self.clock)

    @property
    def peak(self) -> Quantity:
        """size^2 MACs per cycle, 2 FLOPs (ops) per MAC."""
        return (Q_(2 * self.size**2, "FLOP") * self.clock).to("TFLOP/s")


#: Google TPU v1 (Jouppi et al., ISCA 2017): a 256 x 256 8-bit MAC array at 700 MHz, 92 TOP/s.
TPU_V1 = SystolicArray(size=256, clock=Q_(700, "MHz"), name="TPU v1 (256x256 @ 700 MHz)")


@dataclass(frozen=True)
class SystolicRun:
    shape: GemmShape
    size: int
    weight_load: bool
    tiles: int
    stream_cycles: int  # M: one input row enters per cycle
    fill_cycles: int  # 2 (size - 1): skew across rows and columns
    load_cycles: int  # size when weights are shifted in, 0 when double-buffered

    @property
    def cycles_per_tile(self) -> int:
        return self.stream_cycles + self.fill_cycles + self.load_cycles

    @property
    def cycles(self) -> int:
        return self.tiles * self.cycles_per_tile

    @property
    def macs(self) -> int:
        return self.shape.macs

    @property
    def utilization(self) -> float:
        """Useful MACs over the MAC slots the array offered: macs / (cycles * size^2)."""
        return self.macs / (self.cycles * self.size**2)

    def time(self, clock: Quantity) -> Quantity:
        _check_clock(clock)
        return (self.cycles / clock).to("s")


def systolic_gemm(shape: GemmShape, size: int = 128, weight_load: bool = True) -> SystolicRun:
    """Cycles of a weight-stationary ``size x size`` array for ``shape`` (see module notes)."""
    if not isinstance(shape, GemmShape):
        raise ValueError(f"shape must be a GemmShape (see gemm_shape), got {type(shape).__name__}")
    tiles = shape.count * -(-shape.k // size) * -(-shape.n // size)  # exact integer ceilings
    return SystolicRun(
        shape=shape,
        size=size,
        weight_load=bool(weight_load),
        tiles=tiles,
        stream_cycles=shape.m,
        fill_cycles=2 * (size - 1),
        load_cycles=size if weight_load else 0,
    )


# --------------------------------------------------------------------------------------------
# Memory access patterns
# --------------------------------------------------------------------------------------------

#: Bytes per memory transaction: a 64-byte cache line / DRAM burst.
LINE_BYTES = 64

PATTERNS = ("sequential", "strided", "random")


@dataclass(frozen=True)
class AccessCost:
    pattern: str
    useful_bytes: int
    fetched_bytes: int
    lines: int

    @property
    def efficiency(self) -> float:
        """Share of the fetched bytes the computation uses."""
        return self.useful_bytes / self.fetched_bytes if self.fetched_bytes else 0.0


def access_cost(
    pattern: str,
    n_items: int,
    item_bytes: int,
    stride_bytes: int | None = None,
    line_bytes: int = LINE_BYTES,
) -> AccessCost:
    """Lines touched to read ``n_items`` contiguous runs of ``item_bytes`` each.

    - ``sequential``: the items are back to back (``stride_bytes`` ignored).
    - ``strided``: item starts are ``stride_bytes`` apart (>= ``item_bytes``); items closer than a
      line share it.
    - ``random``: items land in unrelated lines (no two share one).
    Runs are assumed line-aligned (a run of r bytes touches ceil(r / line) lines)."""
    if not isinstance(pattern, str) or pattern not in PATTERNS:
        raise ValueError(f"pattern={pattern!r} is unknown; allowed: {', '.join(PATTERNS)}")
    for name, v in (("n_items", n_items), ("item_bytes", item_bytes), ("line_bytes", line_bytes)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
    per_item = math.ceil(item_bytes / line_bytes)
    if pattern == "sequential":
        lines = math.ceil(n_items * item_bytes / line_bytes)
    elif pattern == "random":
        lines = n_items * per_item
    else:
        if stride_bytes is None or stride_bytes < item_bytes:
            raise ValueError(
                f"strided access needs stride_bytes >= item_bytes={item_bytes}, got {stride_bytes!r}"
            )
        if stride_bytes >= line_bytes:
            lines = n_items * per_item
        else:
            span = (n_items - 1) * stride_bytes + item_bytes
            lines = math.ceil(span / line_bytes)
    return AccessCost(pattern, n_items * item_bytes, lines * line_bytes, lines)


def _pos_int(name: str, v) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
    return v


def winograd_multiplications(m: int = 2, r: int = 3) -> tuple[int, int]:
    """(direct, Winograd) multiplications for one m x m output tile of an r x r filter (one
    channel): direct m^2 r^2; Winograd F(m x m, r x r) (m + r - 1)^2 elementwise products on the
    transformed tile, plus transform additions not counted here. F(2x2, 3x3): 36 vs 16 = 2.25x
    (the longer edition's footnote 32; Lavin and Gray 2016)."""
    m, r = _pos_int("m", m), _pos_int("r", r)
    return m * m * r * r, (m + r - 1) ** 2


#: Streaming multiprocessors of an A100 (NVIDIA A100 Tensor Core GPU Architecture whitepaper,
#: 2020: "108 SMs" on the A100 product; the full GA100 has 128).
A100_SMS = 108


@dataclass(frozen=True)
class TileScatter:
    """A GEMM's output cut into tiles and scattered over cores, one tile per core per wave."""

    tiles: int
    cores: int
    waves: int

    @property
    def core_utilization(self) -> float:
        """Busy core-slots over offered core-slots: tiles / (waves x cores)."""
        return self.tiles / (self.waves * self.cores)


def scatter_tiles(m: int, n: int, tile: int = 64, cores: int = A100_SMS) -> TileScatter:
    """Scatter an m x n output in ``tile`` x ``tile`` blocks over ``cores``: ceil(m/tile) x
    ceil(n/tile) tiles run in ceil(tiles / cores) waves; the last wave leaves cores idle (the
    longer edition's 512 x 512 matmul example, L1555: 'load imbalance can reduce efficiency')."""
    m, n, tile, cores = (
        _pos_int(k, v) for k, v in (("m", m), ("n", n), ("tile", tile), ("cores", cores))
    )
    tiles = math.ceil(m / tile) * math.ceil(n / tile)
    return TileScatter(tiles, cores, math.ceil(tiles / cores))


# --------------------------------------------------------------------------------------------
# Reductions and attention data movement
# --------------------------------------------------------------------------------------------


def reduction_stages(n: int, tree: bool = True) -> int:
    """Dependent combine steps to reduce ``n`` values: a binary tree needs ceil(log2 n), a serial
    accumulator n - 1."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    return math.ceil(math.log2(n)) if tree else n - 1


@dataclass(frozen=True)
class AttentionMovement:
    """Element counts of the data-movement primitives in one attention operation (all heads,
    all sequences of the batch)."""

    broadcast: int  # query vectors sent to the units that score them: S x d_head per head
    gather_keys: int  # each query reads every key: S x S x d_head per head
    gather_values: int  # each probability row reads every value: S x S x d_head per head
    reduce: int  # scores reduced by the softmax (max and sum over each row): S x S per head
    reduce_len: int  # values per softmax row (= kv length)


def attention_data_movement(
    seq_len: int, d_head: int = 64, batch: int = 1, n_heads: int = 1, kv_len: int | None = None
) -> AttentionMovement:
    """Broadcast / gather / reduce counts built on ``layers.Attention`` (its score GEMM and its
    value GEMM each do S x kv x d_head MACs per head, one gathered element per MAC)."""
    batch = L.check_batch(batch)
    att = L.Attention(d_model=d_head * n_heads, n_heads=n_heads, seq_len=seq_len, kv_len=kv_len)
    per_gemm = att.macs(batch) // 2
    return AttentionMovement(
        broadcast=batch * att.seq_len * att.d_model,
        gather_keys=per_gemm,
        gather_values=per_gemm,
        reduce=batch * att.score_elements,
        reduce_len=att.kv,
    )


# every argument checked by name (mlsysim._check)
_check.check_module(
    globals(),
    __all__,
    {
        "systolic_gemm": {"size": (1, 2**20)},
        "access_cost": {
            "n_items": (1, _check.MAX_SIZE),
            "item_bytes": (1, _check.MAX_SIZE),
            "stride_bytes": (1, _check.MAX_SIZE),
            "line_bytes": (1, 2**20),
        },
    },
)
