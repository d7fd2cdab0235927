"""Representation against learnability (section 6.2.1): the universal approximation theorem says a
wide enough hidden layer *can* represent a function; what a network *learns* from ``N`` samples
is decided by the samples (and the fitting procedure), not by the width alone.

The smallest case, in pure Python (no numpy), deterministic: the target
``sin(2π · CYCLES · x)`` on [0, 1], ``N`` samples at the midpoints ``(i + ½)/N``, and one hidden
layer of ``width`` ReLU units ``relu(x − k/width)`` (k = 0 … width − 1, a fixed grid: the first
layer is not trained, as in a random-features model) plus a constant unit. Only the output
weights are fitted:

- ``width + 1 ≤ N``: least squares (normal equations), the best fit the layer can make;
- ``width + 1 > N``: the layer can fit every sample exactly (from ``width + 1 = N`` on it does), and of the many output weights that
  do, the fit takes the one of least norm (what gradient descent from zero converges to), through
  the kernel ``K(x, y) = 1 + Σ_k relu(x − b_k) relu(y − b_k)``, summed in closed form.

The error on the samples and off them (at ``TEST_POINTS`` points between) is the root mean
square. Past ``width ≈ N`` the sample error is 0 and the off-sample error levels off at a floor
that more width does not lower and more samples do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from . import _check

#: periods of the target on [0, 1]
CYCLES = 3
#: points the off-sample error is measured at: (j + ½) / TEST_POINTS; a prime above MAX_SAMPLES,
#: so no test point is a sample point ((2j + 1)·N = (2i + 1)·67 has no solution for N ≤ 64)
TEST_POINTS = 67
#: the widest layer and the most samples ``fit`` takes
MAX_WIDTH, MAX_SAMPLES = 1 << 20, 64


def target(x: float) -> float:
    return math.sin(2.0 * math.pi * CYCLES * x)


def _kernel_row(x: float, xs: list[float], width: int) -> list[float]:
    """K(x, x_i) for every x_i: 1 + Σ_k relu(x − k/width)·relu(x_i − k/width), in closed form
    over the n knots at or below m = min(x, x_i) (a knot at m adds 0, so counting it or not
    gives the same sum): 1 + n·x·x_i − (x + x_i)·Σ b_k + Σ b_k²."""
    out = []
    for y in xs:
        m = x if x < y else y
        if m <= 0.0:
            out.append(1.0)
            continue
        n = int(m * width) + 1
        if n > width:
            n = width
        s1 = n * (n - 1) / 2 / width
        s2 = (n - 1) * n * (2 * n - 1) / 6 / (width * width)
        out.append(1.0 + (n * x * y - (x + y) * s1 + s2) / width)
    return out


def _features(x: float, width: int) -> list[float]:
    return [1.0] + [max(0.0, x - k / width) for k in range(width)]


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a is square and nonsingular here)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        pivot = m[c]
        for r in range(c + 1, n):
            f = m[r][c] / pivot[c]
            if f:
                row = m[r]
                for k in range(c, n + 1):
                    row[k] -= f * pivot[k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


@dataclass(frozen=True)
class Fit:
    samples: int
    width: int
    #: RMS error on the N samples (0 when the layer interpolates them)
    sample_error: float
    #: RMS error on TEST_POINTS points across [0, 1]
    off_sample_error: float

    @property
    def interpolates(self) -> bool:
        """As many weights (the units and the constant) as samples, or more: an exact fit."""
        return self.width + 1 >= self.samples


@lru_cache(maxsize=256)
def fit(samples: int, width: int) -> Fit:
    """Fit the layer's output weights to ``samples`` samples of the target; see the module."""
    n = _check.integer("samples", samples, 2, MAX_SAMPLES)
    w = _check.integer("width", width, 1, MAX_WIDTH)
    xs = [(i + 0.5) / n for i in range(n)]
    ys = [target(x) for x in xs]
    ts = [(j + 0.5) / TEST_POINTS for j in range(TEST_POINTS)]
    if w + 1 <= n:
        rows = [_features(x, w) for x in xs]
        cols = list(zip(*rows, strict=True))
        gram = [[sum(p * q for p, q in zip(ca, cb, strict=True)) for cb in cols] for ca in cols]
        weights = _solve(gram, [sum(p * y for p, y in zip(c, ys, strict=True)) for c in cols])

        def model(x: float) -> float:
            return sum(a * f for a, f in zip(weights, _features(x, w), strict=True))

    else:
        coef = _solve([_kernel_row(a, xs, w) for a in xs], ys)

        def model(x: float) -> float:
            return sum(c * k for c, k in zip(coef, _kernel_row(x, xs, w), strict=True))

    sample = math.sqrt(sum((model(x) - y) ** 2 for x, y in zip(xs, ys, strict=True)) / n)
    off = math.sqrt(sum((model(t) - target(t)) ** 2 for t in ts) / TEST_POINTS)
    # with as many weights as samples the fit is exact; its residual is rounding (1e-13): 0
    if w + 1 >= n and sample < 1e-9:
        sample = 0.0
    return Fit(n, w, sample, off)
