"""Width against depth for ReLU networks on one input: what the universal approximation theorem
(section 6.2.1) promises and what it leaves out.

The theorem (Cybenko 1989; Hornik et al. 1989) says one hidden layer, wide enough, represents any
continuous function on a bounded interval. It does not say how wide. This module builds, exactly,
two ReLU networks for the same target, the sawtooth made by composing the tent map
``t(x) = 1 − |2x − 1|`` with itself ``depth`` times on [0, 1] (``2^(depth−1)`` teeth,
``2^depth`` linear pieces; Telgarsky 2016, "Benefits of depth in neural networks", COLT):

- **deep**: ``depth`` hidden layers of 2 units, since ``t(x) = 2·relu(x) − 4·relu(x − ½)`` on
  [0, 1], and each layer applies ``t`` to the previous layer's output: ``2·depth`` units;
- **shallow**: one hidden layer with a unit at every kink, ``f(x) = Σ_k c_k relu(x − k/2^depth)``:
  ``2^depth`` units. No one-hidden-layer network does it with fewer than ``2^depth − 1``: on one
  input, a layer of ``n`` ReLU units makes a piecewise-linear function of at most ``n + 1`` pieces.

Both are evaluated on every breakpoint and midpoint of the target (dyadic rationals, so the
floating-point arithmetic is exact) and their linear pieces counted there, so the counts in the
notebook are measured on the built networks, not only read off the formulas.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from . import _check

#: the deepest sawtooth ``build`` makes (2^12 = 4,096 shallow units, evaluated at 8,193 points)
MAX_DEPTH = 12


def tent(x: float) -> float:
    """The tent map on [0, 1]: 0 at both ends, 1 at ½."""
    return 1.0 - abs(2.0 * x - 1.0)


def sawtooth(x: float, depth: int) -> float:
    """The tent map composed ``depth`` times."""
    for _ in range(depth):
        x = tent(x)
    return x


def _relu(v: float) -> float:
    return v if v > 0.0 else 0.0


@dataclass(frozen=True)
class ReluNet:
    """A fully connected ReLU network on one input and one output: ``layers`` is a tuple of
    ``(weights, biases)`` per hidden layer (``weights[j]`` the input weights of unit ``j``), then
    the linear output ``(out_weights, out_bias)``."""

    layers: tuple[tuple[tuple[tuple[float, ...], ...], tuple[float, ...]], ...]
    out_weights: tuple[float, ...]
    out_bias: float

    def __call__(self, x: float) -> float:
        h = [x]
        for w, b in self.layers:
            h = [
                _relu(sum(wi * hi for wi, hi in zip(row, h, strict=True)) + bj)
                for row, bj in zip(w, b, strict=True)
            ]
        return sum(wo * hi for wo, hi in zip(self.out_weights, h, strict=True)) + self.out_bias

    @property
    def depth(self) -> int:
        """Hidden layers."""
        return len(self.layers)

    @property
    def units(self) -> int:
        """Hidden ReLU units, all layers together."""
        return sum(len(b) for _, b in self.layers)

    @property
    def params(self) -> int:
        """Weights and biases, output layer included."""
        return sum(len(b) * len(w[0]) + len(b) for w, b in self.layers) + len(self.out_weights) + 1


def deep_sawtooth(depth: int) -> ReluNet:
    """``depth`` hidden layers of 2 units: each layer applies the tent map to the last one's
    output ``2·h1 − 4·h2``."""
    depth = _check.integer("depth", depth, 1, MAX_DEPTH)
    first = (((1.0,), (1.0,)), (0.0, -0.5))
    later = (((2.0, -4.0), (2.0, -4.0)), (0.0, -0.5))
    return ReluNet((first,) + (later,) * (depth - 1), (2.0, -4.0), 0.0)


def shallow_sawtooth(depth: int) -> ReluNet:
    """One hidden layer with a unit at each of the sawtooth's ``2^depth`` kinks (0 included): the
    slope alternates ``±2^depth``, so unit ``k`` adds the change of slope at ``k/2^depth``."""
    depth = _check.integer("depth", depth, 1, MAX_DEPTH)
    n = 2**depth
    slopes = [n * (-1) ** k for k in range(n)]
    coeff = [slopes[0]] + [slopes[k] - slopes[k - 1] for k in range(1, n)]
    weights = tuple((1.0,) for _ in range(n))
    biases = tuple(-k / n for k in range(n))
    return ReluNet(((weights, biases),), tuple(float(c) for c in coeff), 0.0)


def grid(depth: int) -> list[float]:
    """Every breakpoint and midpoint of the depth-``depth`` sawtooth on [0, 1]."""
    n = 2 ** (depth + 1)
    return [k / n for k in range(n + 1)]


def linear_pieces(values: list[float], xs: list[float]) -> int:
    """Linear pieces of the piecewise-linear function through ``(xs, values)``, sampled finely
    enough that every piece spans at least two intervals: slope changes plus one."""
    slopes = [
        Fraction(values[i + 1] - values[i]) / Fraction(xs[i + 1] - xs[i])
        for i in range(len(xs) - 1)
    ]
    return 1 + sum(slopes[i] != slopes[i - 1] for i in range(1, len(slopes)))


@dataclass(frozen=True)
class Comparison:
    """The two networks for one sawtooth, measured."""

    depth: int
    teeth: int
    pieces: int
    shallow: ReluNet
    deep: ReluNet
    shallow_error: float
    deep_error: float
    shallow_pieces: int
    deep_pieces: int

    @property
    def shallow_lower_bound(self) -> int:
        """Fewest units any one-hidden-layer ReLU network needs: ``pieces − 1``."""
        return self.pieces - 1


def compare(depth: int) -> Comparison:
    """Build both networks for the depth-``depth`` sawtooth and check them on its grid."""
    depth = _check.integer("depth", depth, 1, MAX_DEPTH)
    xs = grid(depth)
    target = [sawtooth(x, depth) for x in xs]
    shallow, deep = shallow_sawtooth(depth), deep_sawtooth(depth)
    ys_s, ys_d = [shallow(x) for x in xs], [deep(x) for x in xs]
    return Comparison(
        depth=depth,
        teeth=2 ** (depth - 1),
        pieces=linear_pieces(target, xs),
        shallow=shallow,
        deep=deep,
        shallow_error=max(abs(a - b) for a, b in zip(ys_s, target, strict=True)),
        deep_error=max(abs(a - b) for a, b in zip(ys_d, target, strict=True)),
        shallow_pieces=linear_pieces(ys_s, xs),
        deep_pieces=linear_pieces(ys_d, xs),
    )


def units_needed(depth: int) -> tuple[int, int]:
    """(one hidden layer, deep) ReLU units for the depth-``depth`` sawtooth: ``2^depth`` (the
    construction; the floor is one fewer) and ``2·depth``."""
    depth = _check.integer("depth", depth, 1, 62)
    return 2**depth, 2 * depth
