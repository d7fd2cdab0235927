"""What an inductive bias buys: translation equivariance of convolution and invariance from
pooling, on small arrays in pure Python (no numpy, so it runs in the browser).

Source: the chapter's section 6.3, Eqs. 4-5 and Example 6.3. An operator f is *equivariant* to a
shift T when f(T x) = T f(x) (Eq. 4) and *invariant* when f(T x) = f(x) (Eq. 5). A stride-1
convolution is equivariant up to boundary effects; a dense layer, whose every output has its own
weight for every input position, is not; a global pooling of a convolution's map is invariant
while the pattern stays inside the image.

Conventions: images are lists of rows (``image[row][col]``); ``conv2d_valid`` is the
cross-correlation deep-learning frameworks call convolution (no kernel flip), stride 1, no
padding; ``shift`` moves content right/down by ``(dx, dy)`` pixels and fills with zeros (content
pushed past the border is lost); ``rot90`` turns an image a quarter turn counterclockwise
(numpy's ``rot90``).

Rotations (section 6.3: "Group-equivariant CNNs (Cohen and Welling 2016) extend the construction
to rotations and reflections"): a plain convolution is not rotation-equivariant, since a rotated
input meets the same unrotated filter. The p4 lifting layer of Cohen & Welling, "Group Equivariant
Convolutional Networks", ICML 2016 (https://arxiv.org/abs/1602.07576), applies each learned filter
in its four rotations, giving four orientation channels; rotating the input by 90° then rotates
every map and moves each orientation channel one place round the cycle (``p4_rotate``): exactly,
with no boundary effect for a square image. The price is the same learned weights but four
filters run, so 4x the MACs and 4x the output maps (``p4_layer``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from . import _check

__all__ = [
    "EXAMPLE_IMAGE",
    "EXAMPLE_KERNEL",
    "edge_image",
    "step_image",
    "conv2d_valid",
    "shift",
    "rot90",
    "p4_conv2d_valid",
    "p4_rotate",
    "p4_layer",
    "dense_layer",
    "dense_apply",
    "relu",
    "global_average_pool",
    "max_abs_difference",
]

Grid = list[list[float]]


def _check_grid(x: Sequence[Sequence[float]], name: str) -> Grid:
    return _check.matrix(name, x, 4096)


def edge_image(size: int = 7, column: int = 2) -> Grid:
    """A ``size x size`` image with a bright vertical line at ``column`` (0-based): Example 6.3's
    input is ``edge_image(7, 2)`` (the chapter's "column 3", counted from 1)."""
    if isinstance(size, bool) or not isinstance(size, int) or not 3 <= size <= 64:
        raise ValueError(f"size must be an integer in [3, 64], got {size!r}")
    if isinstance(column, bool) or not isinstance(column, int) or not 0 <= column < size:
        raise ValueError(f"column must be an integer in [0, {size - 1}], got {column!r}")
    return [[1.0 if c == column else 0.0 for c in range(size)] for _ in range(size)]


def step_image(size: int = 7, column: int = 3) -> Grid:
    """A ``size x size`` image, dark left of ``column`` (0-based) and bright from it on: one
    vertical step edge, the pattern a vertical-edge filter answers with one sign only."""
    if isinstance(size, bool) or not isinstance(size, int) or not 3 <= size <= 64:
        raise ValueError(f"size must be an integer in [3, 64], got {_check._short(size)}")
    if isinstance(column, bool) or not isinstance(column, int) or not 1 <= column < size:
        raise ValueError(
            f"column must be an integer in [1, {size - 1}], got {_check._short(column)}"
        )
    return [[1.0 if c >= column else 0.0 for c in range(size)] for _ in range(size)]


#: Example 6.3: a 7x7 image with a vertical edge at column 3 (1-based) and the vertical-edge filter.
EXAMPLE_IMAGE: Grid = edge_image(7, 2)
EXAMPLE_KERNEL: Grid = [[-1.0, 0.0, 1.0], [-1.0, 0.0, 1.0], [-1.0, 0.0, 1.0]]


def conv2d_valid(image: Sequence[Sequence[float]], kernel: Sequence[Sequence[float]]) -> Grid:
    """Stride-1, unpadded cross-correlation: out[i][j] = sum_{u,v} kernel[u][v] * image[i+u][j+v]."""
    x, k = _check_grid(image, "image"), _check_grid(kernel, "kernel")
    kh, kw = len(k), len(k[0])
    oh, ow = len(x) - kh + 1, len(x[0]) - kw + 1
    if oh < 1 or ow < 1:
        raise ValueError(f"kernel ({kh}x{kw}) is larger than the image ({len(x)}x{len(x[0])})")
    _check.work("this convolution", oh * ow * kh * kw, "image and kernel")
    out = [
        [
            float(sum(k[u][v] * x[i + u][j + v] for u in range(kh) for v in range(kw)))
            for j in range(ow)
        ]
        for i in range(oh)
    ]
    return _check.finite_result("the convolution", out, "image and kernel")


def shift(image: Sequence[Sequence[float]], dx: int = 0, dy: int = 0) -> Grid:
    """Move the content ``dx`` pixels right and ``dy`` down (negative: left/up), zero fill."""
    x = _check_grid(image, "image")
    for name, v in (("dx", dx), ("dy", dy)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"{name} must be an integer, got {v!r}")
    h, w = len(x), len(x[0])
    return [
        [x[i - dy][j - dx] if 0 <= i - dy < h and 0 <= j - dx < w else 0.0 for j in range(w)]
        for i in range(h)
    ]


def _quarter_turns(k) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not -4 <= k <= 4:
        raise ValueError(
            f"k must be an integer number of quarter turns in [-4, 4], got {_check._short(k)}"
        )
    return k % 4


def rot90(image: Sequence[Sequence[float]], k: int = 1) -> Grid:
    """Turn the image ``k`` quarter turns counterclockwise (negative: clockwise), as numpy's
    ``rot90``: one turn maps out[i][j] = x[j][W - 1 - i]."""
    x = _check_grid(image, "image")
    for _ in range(_quarter_turns(k)):
        w = len(x[0])
        x = [[x[j][w - 1 - i] for j in range(len(x))] for i in range(w)]
    return x


def p4_conv2d_valid(
    image: Sequence[Sequence[float]], kernel: Sequence[Sequence[float]]
) -> list[Grid]:
    """Cohen & Welling's p4 lifting convolution of one filter: four maps, map r the
    ``conv2d_valid`` of the image with the filter turned r quarter turns (r = 0..3)."""
    x, k = _check_grid(image, "image"), _check_grid(kernel, "kernel")
    _check.work(
        "this p4 convolution", 4 * len(x) * len(x[0]) * len(k) * len(k[0]), "image and kernel"
    )
    return [conv2d_valid(x, rot90(k, r)) for r in range(4)]


def p4_rotate(maps: Sequence[Sequence[Sequence[float]]], k: int = 1) -> list[Grid]:
    """The rotation acting on a p4 layer's four maps: each map turned ``k`` quarter turns and
    moved ``k`` places round the orientation cycle (out[r] = rot90(maps[r - k], k)). Eq. 4 for
    p4: ``p4_conv2d_valid(rot90(x, k), w) == p4_rotate(p4_conv2d_valid(x, w), k)``."""
    if not isinstance(maps, list | tuple) or len(maps) != 4:
        raise ValueError(
            f"maps must be a list of 4 orientation maps, got {_check._short(maps, 80)}"
        )
    grids = [_check_grid(m, f"maps[{r}]") for r, m in enumerate(maps)]
    t = _quarter_turns(k)
    return [rot90(grids[(r - t) % 4], t) for r in range(4)]


def p4_layer(layer):
    """The convolution a p4 lifting layer runs for the plain ``layer`` (a ``layers.Conv2d``): each
    of its ``out_channels`` filters applied in four rotations, so 4 x ``out_channels`` output
    maps and 4x the MACs. Its learned weights stay ``layer.params``: the rotated copies are the
    same numbers, not new parameters (``params`` of the returned layer counts the copies run)."""
    from .layers import Conv2d

    if not isinstance(layer, Conv2d):
        raise ValueError(f"layer must be a layers.Conv2d, got {type(layer).__name__}")
    kh, kw = (layer.kernel_size,) * 2 if isinstance(layer.kernel_size, int) else layer.kernel_size
    if kh != kw or layer.groups != 1:
        raise ValueError(
            f"layer must have a square kernel and groups=1 for a p4 layer, got kernel_size="
            f"{layer.kernel_size!r}, groups={layer.groups}"
        )
    return layer.model_copy(update={"out_channels": 4 * layer.out_channels})


def dense_layer(n_in: int, n_out: int, seed: int = 0) -> Grid:
    """A dense layer's weight matrix (``n_out`` rows of ``n_in`` weights), seeded uniform in
    [-1, 1]: every output has its own weight for every input position, nothing is shared."""
    for name, v in (("n_in", n_in), ("n_out", n_out)):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 4096:
            raise ValueError(f"{name} must be an integer in [1, 4096], got {v!r}")
    rng = random.Random(_check.seed("seed", seed))
    return [[rng.uniform(-1.0, 1.0) for _ in range(n_in)] for _ in range(n_out)]


def dense_apply(
    image: Sequence[Sequence[float]], weights: Sequence[Sequence[float]], out_shape: tuple[int, int]
) -> Grid:
    """y = W · flatten(x), reshaped to ``out_shape`` (rows, cols) so it can be compared with a map."""
    x = _check_grid(image, "image")
    w = _check_grid(weights, "weights")
    flat = [v for r in x for v in r]
    if not isinstance(out_shape, list | tuple) or len(out_shape) != 2:
        raise ValueError(f"out_shape must be a (rows, cols) pair, got {out_shape!r}")
    rows, cols = (_check.integer(f"out_shape[{i}]", v, 1, 4096) for i, v in enumerate(out_shape))
    if len(w[0]) != len(flat) or len(w) != rows * cols:
        raise ValueError(
            f"weights must be {rows * cols} x {len(flat)} (out_shape={rows, cols} by the "
            f"image's {len(flat)} pixels), got {len(w)} x {len(w[0])}"
        )
    _check.work("this dense layer", len(w) * len(flat), "image and weights")
    y = [sum(wi * xi for wi, xi in zip(row, flat, strict=True)) for row in w]
    _check.finite_result("the dense layer's output", y, "image and weights")
    return [y[r * cols : (r + 1) * cols] for r in range(rows)]


def relu(fmap: Sequence[Sequence[float]]) -> Grid:
    return [[max(0.0, v) for v in r] for r in _check_grid(fmap, "fmap")]


def global_average_pool(fmap: Sequence[Sequence[float]]) -> float:
    """The mean over every position: collapses the coordinates into one number (Eq. 5)."""
    x = _check_grid(fmap, "fmap")
    n = len(x) * len(x[0])
    mean = sum(v for r in x for v in r) / n
    if not math.isfinite(mean):  # the sum overflowed; the mean itself is a finite number
        mean = math.fsum(v / n for r in x for v in r)
    return mean


def max_abs_difference(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> float:
    """max |a - b| over two maps of the same shape: 0 when Eq. 4 (or 5) holds exactly."""
    x, y = _check_grid(a, "a"), _check_grid(b, "b")
    if (len(x), len(x[0])) != (len(y), len(y[0])):
        raise ValueError(f"shapes differ: {len(x)}x{len(x[0])} vs {len(y)}x{len(y[0])}")
    diff = max(abs(p - q) for rx, ry in zip(x, y, strict=True) for p, q in zip(rx, ry, strict=True))
    return _check.finite_result("the difference", diff, "a and b")
