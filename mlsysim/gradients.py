"""Training-dynamics simulations small enough to run in a browser: gradient flow through depth
and the batch dependence of normalization statistics.

``simulate`` builds a real, seeded deep MLP (``depth`` layers of ``width`` units), runs one
forward and one backward pass, and returns the norm of the gradient that reaches every layer.
Everything is plain Python (lists and ``random``) so it runs under Pyodide; when numpy is
installed the same arithmetic runs on arrays (``use_numpy``) and gives the same numbers (the
weights are always drawn by ``random``, so both paths see identical networks).

Network (no biases; one example)::

    plain:     h_l = f(W_l h_{l-1})
    residual:  h_l = h_{l-1} + alpha * f(W_l h_{l-1})      alpha = branch_scale (1/sqrt(depth))

``W_l = gain * Q_l`` with ``Q_l`` a random orthogonal matrix (modified Gram-Schmidt of a seeded
Gaussian matrix), so a linear layer scales every direction by exactly ``gain``: the per-layer
gain of the chapter's argument is a knob, not an accident of initialization. The loss gradient
at the output, ``dL/dh_depth``, is a seeded random unit vector; ``grad_norms[i]`` is
``||dL/dh_i||``, the gradient arriving at layer ``i + 1``'s input after passing back through
``depth - i`` layers.

Chapter anchors (section 6.4.1): sigmoid's derivative peaks at 0.25, so with ``gain=1`` a plain
sigmoid stack attenuates by at most ``0.25**k`` over ``k`` layers; a plain stack with per-layer
gain 0.9 keeps ``0.9**50 ~ 0.005`` of the gradient after 50 layers; a gain of 1.5 explodes.

``skip_path`` follows only the skip path of three block forms (Figure 7's pre- and
post-activation blocks, section 6.9's highway layer): the identity keeps 1 at any depth, a
highway gate at its bias ``(1 - sigmoid(b))**L``, and the original block's ReLU after the add
the share of units still open, measured in PyTorch (``POSTACT_SKIP_SHARE``).
"""

from __future__ import annotations

import math
import operator
import random
from dataclasses import dataclass
from functools import lru_cache

from . import _check

__all__ = [
    "ACTIVATIONS",
    "GradientFlow",
    "simulate",
    "activation",
    "derivative",
    "max_derivative",
    "batchnorm_train_serve_gap",
    "flow_verdict",
    "BPTTFlow",
    "bptt",
    "SKIP_FORMS",
    "POSTACT_SKIP_SHARE",
    "POSTACT_ACTIVE",
    "SkipPath",
    "skip_path",
    "gate_carry",
    "highway_bias_for",
    "skip_weights",
]

ACTIVATIONS = ("sigmoid", "tanh", "relu", "linear")
#: A gradient "vanishes" when less than 1% of it reaches the first layer and "explodes" when it
#: arrives more than 100x amplified: the chapter's 0.9^50 = 0.0052 (L581) vanishes.
VANISH_BELOW, EXPLODE_ABOVE = 1e-2, 1e2
MAX_WIDTH = 64
MAX_DEPTH = 256
#: Most values ``batchnorm_train_serve_gap`` draws in one call (trials x positions).
MAX_GAP_VALUES = 1 << 20


def flow_verdict(norm: float) -> str:
    """'vanishes', 'explodes' or 'survives' for the gradient norm reaching the first layer (the
    output gradient being 1)."""
    if (
        isinstance(norm, bool)
        or not isinstance(norm, int | float)
        or not (math.isfinite(norm) and norm >= 0)
    ):
        raise ValueError(f"norm must be a finite number >= 0, got {norm!r}")
    if norm < VANISH_BELOW:
        return "vanishes"
    if norm > EXPLODE_ABOVE:
        return "explodes"
    return "survives"


def _numpy():
    try:
        import numpy
    except ImportError:  # the browser path
        return None
    return numpy


# --------------------------------------------------------------------------------------------
# Activations
# --------------------------------------------------------------------------------------------


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def activation(kind: str, z: float) -> float:
    """f(z) for one of ``ACTIVATIONS``."""
    if kind == "sigmoid":
        return _sigmoid(z)
    if kind == "tanh":
        return math.tanh(z)
    if kind == "relu":
        return z if z > 0 else 0.0
    if kind == "linear":
        return z
    raise ValueError(f"kind={kind!r} is not known; allowed: {', '.join(ACTIVATIONS)}")


def derivative(kind: str, z: float) -> float:
    """f'(z) (ReLU: 1 for z > 0, else 0)."""
    if kind == "sigmoid":
        s = _sigmoid(z)
        return s * (1.0 - s)
    if kind == "tanh":
        t = math.tanh(z)
        return 1.0 - t * t
    if kind == "relu":
        return 1.0 if z > 0 else 0.0
    if kind == "linear":
        return 1.0
    raise ValueError(f"kind={kind!r} is not known; allowed: {', '.join(ACTIVATIONS)}")


@lru_cache(maxsize=8)
def max_derivative(kind: str) -> float:
    """The largest f'(z) over z in [-8, 8] (grid step 1/64, which includes z = 0): 0.25 for
    sigmoid, 1 for tanh, ReLU and linear. The chapter's per-layer attenuation bound."""
    if not isinstance(kind, str) or kind not in ACTIVATIONS:
        raise ValueError(f"kind={kind!r} is not known; allowed: {', '.join(ACTIVATIONS)}")
    return max(derivative(kind, i / 64) for i in range(-512, 513))


# --------------------------------------------------------------------------------------------
# Seeded weights (shared by both paths)
# --------------------------------------------------------------------------------------------


def _check_int(name: str, v, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not (lo <= v <= hi):
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {v!r}")
    return v


@lru_cache(maxsize=4096)
def _orthogonal(width: int, seed: int, layer: int) -> tuple[tuple[float, ...], ...]:
    """A random orthogonal width x width matrix (rows orthonormal), deterministic in
    (width, seed, layer): modified Gram-Schmidt on a seeded Gaussian matrix."""
    rng = random.Random(f"mlsysim-gradients-{seed}-{width}-{layer}")
    rows: list[list[float]] = []
    while len(rows) < width:
        v = [rng.gauss(0.0, 1.0) for _ in range(width)]
        for q in rows:
            p = sum(a * b for a, b in zip(v, q, strict=True))
            v = [a - p * b for a, b in zip(v, q, strict=True)]
        n = math.sqrt(sum(a * a for a in v))
        if n < 1e-8:  # (practically never) a dependent draw: draw again
            continue
        rows.append([a / n for a in v])
    return tuple(tuple(r) for r in rows)


@lru_cache(maxsize=64)
def _unit_vector(width: int, seed: int, tag: str) -> tuple[float, ...]:
    rng = random.Random(f"mlsysim-gradients-{seed}-{width}-{tag}")
    v = [rng.gauss(0.0, 1.0) for _ in range(width)]
    n = math.sqrt(sum(a * a for a in v))
    return tuple(a / n for a in v)


# --------------------------------------------------------------------------------------------
# The simulation
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GradientFlow:
    """One forward + backward pass. Lists are indexed by layer (0 = the first, input-side layer)."""

    depth: int
    width: int
    activation: str
    gain: float
    residual: bool
    branch_scale: float
    grad_norms: tuple[float, ...]  # ||dL/dh_{l-1}||: the gradient arriving at layer l's input
    weight_grad_norms: tuple[float, ...]  # ||dL/dW_l|| (Frobenius)
    activation_norms: tuple[float, ...]  # ||h_l|| after layer l (forward scale)

    @property
    def first(self) -> float:
        """Gradient norm reaching the first layer (output gradient has norm 1)."""
        return self.grad_norms[0]

    @property
    def per_layer_factor(self) -> float:
        """Geometric-mean change of the gradient norm per layer: first ** (1 / depth)."""
        return self.first ** (1.0 / self.depth) if self.first > 0 else 0.0

    @property
    def layers_passed(self) -> tuple[int, ...]:
        """How many layers the gradient at each index has passed back through."""
        return tuple(self.depth - i for i in range(self.depth))


def _check_args(depth, width, kind, gain, branch_scale):
    _check_int("depth", depth, 1, MAX_DEPTH)
    _check_int("width", width, 2, MAX_WIDTH)
    if not isinstance(kind, str) or kind not in ACTIVATIONS:
        raise ValueError(f"activation={kind!r} is not known; allowed: {', '.join(ACTIVATIONS)}")
    for name, v in (("gain", gain), ("branch_scale", branch_scale)):
        if (
            isinstance(v, bool)
            or not isinstance(v, int | float)
            or not (0 < v <= 10)
            or math.isnan(v)
        ):
            raise ValueError(f"{name} must be a number in (0, 10], got {v!r}")


#: Largest growth (orders of magnitude) a simulation may reach: gain**depth (plain) or
#: (1 + branch_scale * gain)**depth (residual) at most 1e100, so every norm, weight gradient and
#: sum of squares stays a finite float (1e100 squared is 1e200 < 1.8e308).
MAX_GROWTH_DECADES = 100


def _check_growth(depth: int, gain: float, path: bool, alpha: float, depth_name: str) -> None:
    """Refuse a (gain, depth) pair whose worst-case growth passes 1e100: the norms would
    overflow to inf (and inf - inf to NaN) instead of reporting an explosion."""
    factor = 1.0 + alpha * gain if path else gain
    if factor <= 1.0 or depth * math.log10(factor) <= MAX_GROWTH_DECADES:
        return
    most = 10 ** (MAX_GROWTH_DECADES / depth)
    if path:
        what = f"(1 + branch_scale x gain)^{depth_name} = (1 + {alpha:g} x {gain:g})^{depth}"
        limit = f"branch_scale x gain at most {most - 1:.3g}"
    else:
        what = f"gain^{depth_name} = {gain:g}^{depth}"
        limit = f"gain at most {most:.3g} at {depth_name}={depth}"
    raise ValueError(
        f"gain={gain:g} with {depth_name}={depth} can grow the gradient by {what} "
        f"~ 1e{depth * math.log10(factor):.0f}, past the 1e{MAX_GROWTH_DECADES} this simulation "
        f"keeps finite: lower gain or {depth_name} ({limit})"
    )


def simulate(
    depth: int,
    width: int = 16,
    activation: str = "relu",
    gain: float = 1.0,
    residual: bool = False,
    branch_scale: float | None = None,
    seed: int = 0,
    use_numpy: bool | None = None,
) -> GradientFlow:
    """Per-layer gradient norms of a seeded ``depth`` x ``width`` MLP (see the module docstring).

    ``use_numpy=None`` uses numpy when installed, ``False`` forces pure Python, ``True`` requires
    numpy. ``branch_scale`` (residual only) defaults to ``1/sqrt(depth)``, which keeps every
    block's Jacobian ``I + alpha * f' W`` near the identity at any depth. A ``gain`` whose
    worst-case growth over ``depth`` layers passes 1e100 (``gain**depth``, or
    ``(1 + branch_scale * gain)**depth`` with ``residual``) is refused with a ValueError naming
    both: the norms would overflow a float."""
    alpha = (
        (1.0 / math.sqrt(depth) if isinstance(depth, int) and depth > 0 else 1.0)
        if branch_scale is None
        else branch_scale
    )
    _check_args(depth, width, activation, gain, alpha)
    residual = _check.flag("residual", residual)
    _check_growth(depth, float(gain), residual, float(alpha), "depth")
    _check_int("seed", seed, 0, 2**31 - 1)
    np = _numpy() if use_numpy in (None, True) else None
    if use_numpy and np is None:
        raise ValueError("use_numpy=True but numpy is not installed")
    flow = _simulate(
        depth, width, activation, float(gain), bool(residual), float(alpha), seed, np is not None
    )
    _finite_flow(flow.grad_norms + flow.weight_grad_norms + flow.activation_norms, "depth")
    return flow


def _finite_flow(values: tuple[float, ...], depth_name: str) -> None:
    """The backstop of ``_check_growth``: a norm that overflowed is refused by name."""
    if not all(map(math.isfinite, values)):
        raise ValueError(
            f"gain and {depth_name} make this simulation overflow a float: lower either"
        )


@lru_cache(maxsize=512)
def _simulate(depth, width, kind, gain, residual, alpha, seed, fast) -> GradientFlow:
    mats = [_orthogonal(width, seed, layer) for layer in range(depth)]
    x0 = _unit_vector(width, seed, "input")
    g = _unit_vector(width, seed, "output-gradient")
    run = _run_numpy if fast else _run_python
    grads, wgrads, acts = run(mats, x0, g, kind, gain, residual, alpha)
    return GradientFlow(
        depth,
        width,
        kind,
        gain,
        residual,
        alpha if residual else 0.0,
        tuple(grads),
        tuple(wgrads),
        tuple(acts),
    )


def _norm(v) -> float:
    return math.sqrt(sum(a * a for a in v))


def _unchecked(kind: str):
    """``activation`` and ``derivative`` for ``kind`` without their argument checks, for the
    loops below (their arguments come from a simulation whose inputs were checked): in the
    browser, the checks of one call per element cost more than the whole simulation."""
    import inspect

    f, df = inspect.unwrap(activation), inspect.unwrap(derivative)
    return (lambda z: f(kind, z)), (lambda z: df(kind, z))


def _run_python(mats, x0, g, kind, gain, residual, alpha):
    f, df = _unchecked(kind)
    # the input is scaled to norm sqrt(width): unit-variance entries
    h = [a * math.sqrt(len(x0)) for a in x0]
    hs, zs, acts = [h], [], []
    for q in mats:
        z = [gain * sum(map(operator.mul, row, h)) for row in q]
        a = [f(v) for v in z]
        h = [x + alpha * y for x, y in zip(h, a, strict=True)] if residual else a
        zs.append(z)
        hs.append(h)
        acts.append(_norm(h))
    n = len(mats)
    grads = [0.0] * n
    wgrads = [0.0] * n
    delta = list(g)
    for i in range(n - 1, -1, -1):
        scale = alpha if residual else 1.0
        u = [scale * df(z) * d for z, d in zip(zs[i], delta, strict=True)]
        wgrads[i] = _norm(u) * _norm(hs[i])
        # column c of the layer's matrix, summed in row order as u[r] * q[r][c]
        back = [gain * sum(map(operator.mul, u, col)) for col in zip(*mats[i], strict=True)]
        delta = [d + b for d, b in zip(delta, back, strict=True)] if residual else back
        grads[i] = _norm(delta)
    return grads, wgrads, acts


def _run_numpy(mats, x0, g, kind, gain, residual, alpha):
    np = _numpy()
    W = gain * np.asarray(mats, dtype=float)
    h = np.asarray(x0, dtype=float) * math.sqrt(len(x0))

    def f(z):
        if kind == "sigmoid":
            out = np.empty_like(z)
            pos = z >= 0
            out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
            e = np.exp(z[~pos])
            out[~pos] = e / (1.0 + e)
            return out
        if kind == "tanh":
            return np.tanh(z)
        if kind == "relu":
            return np.where(z > 0, z, 0.0)
        return z.copy()

    def df(z):
        if kind == "sigmoid":
            s = f(z)
            return s * (1.0 - s)
        if kind == "tanh":
            t = np.tanh(z)
            return 1.0 - t * t
        if kind == "relu":
            return np.where(z > 0, 1.0, 0.0)
        return np.ones_like(z)

    hs, zs, acts = [h], [], []
    for w in W:
        z = w @ h
        a = f(z)
        h = h + alpha * a if residual else a
        zs.append(z)
        hs.append(h)
        acts.append(float(np.sqrt(h @ h)))
    n = len(W)
    grads = [0.0] * n
    wgrads = [0.0] * n
    delta = np.asarray(g, dtype=float)
    for i in range(n - 1, -1, -1):
        u = (alpha if residual else 1.0) * df(zs[i]) * delta
        wgrads[i] = float(np.sqrt(u @ u) * np.sqrt(hs[i] @ hs[i]))
        back = W[i].T @ u
        delta = delta + back if residual else back
        grads[i] = float(np.sqrt(delta @ delta))
    return grads, wgrads, acts


# --------------------------------------------------------------------------------------------
# Backpropagation through time: the same product with one shared W_hh (section 6.5)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BPTTFlow:
    """One forward pass of a recurrence over ``steps`` inputs and one backward pass from the last
    state. ``grad_norms[t]`` is ``||dL/dh_t||`` (t = 0 is the initial state); ``mean_derivative``
    the average |f'(z_t)| the backward pass multiplied by."""

    steps: int
    width: int
    activation: str
    gain: float
    additive: bool
    grad_norms: tuple[float, ...]
    mean_derivative: float

    @property
    def first(self) -> float:
        """Gradient norm reaching h_0 (the gradient at h_S has norm 1)."""
        return self.grad_norms[0]

    @property
    def per_step_factor(self) -> float:
        return self.first ** (1.0 / self.steps) if self.first > 0 else 0.0


def bptt(
    steps: int,
    width: int = 16,
    activation: str = "tanh",
    gain: float = 1.0,
    additive: bool = False,
    branch_scale: float | None = None,
    seed: int = 0,
) -> BPTTFlow:
    """Gradient flow back through time in a seeded RNN (pure Python)::

        plain:     h_t = f(W_hh h_{t-1} + u_t)                 J_t = diag(f'(z_t)) W_hh
        additive:  h_t = h_{t-1} + alpha f(W_hh h_{t-1} + u_t)  J_t = I + alpha diag(f'(z_t)) W_hh

    ``W_hh = gain * Q`` with one seeded orthogonal ``Q`` shared by every step (the difference from
    ``simulate``, whose layers each have their own matrix); ``u_t`` (the input's contribution
    ``W_xh x_t``) is a seeded vector with unit-variance entries. dL/dh_0 = dL/dh_S · prod_t J_t
    (the chapter's BPTT product). ``additive`` gives the state a path around W_hh, the way an
    LSTM's cell state does; alpha defaults to 1/sqrt(steps). As in ``simulate``, a ``gain``
    whose worst-case growth over ``steps`` passes 1e100 is refused by name."""
    _check_int("steps", steps, 1, MAX_DEPTH)
    alpha = 1.0 / math.sqrt(steps) if branch_scale is None else branch_scale
    _check_args(steps, width, activation, gain, alpha)
    additive = _check.flag("additive", additive)
    _check_growth(steps, float(gain), additive, float(alpha), "steps")
    _check_int("seed", seed, 0, 2**31 - 1)
    flow = _bptt(steps, width, activation, float(gain), bool(additive), float(alpha), seed)
    _finite_flow(flow.grad_norms + (flow.mean_derivative,), "steps")
    return flow


@lru_cache(maxsize=256)
def _bptt(steps, width, kind, gain, additive, alpha, seed) -> BPTTFlow:
    q = _orthogonal(width, seed, 0)
    cols = list(zip(*q, strict=True))
    f, df = _unchecked(kind)
    rng = random.Random(f"mlsysim-bptt-{seed}-{width}")
    us = [[rng.gauss(0.0, 1.0) for _ in range(width)] for _ in range(steps)]
    h = [0.0] * width
    zs = []
    for u in us:
        z = [gain * sum(map(operator.mul, row, h)) + ut for row, ut in zip(q, u, strict=True)]
        a = [f(v) for v in z]
        h = [x + alpha * y for x, y in zip(h, a, strict=True)] if additive else a
        zs.append(z)
    delta = list(_unit_vector(width, seed, "bptt-gradient"))
    grads = [0.0] * (steps + 1)
    grads[steps] = _norm(delta)
    dsum = 0.0
    scale = alpha if additive else 1.0
    for t in range(steps - 1, -1, -1):
        d = [df(z) for z in zs[t]]
        dsum += sum(abs(x) for x in d) / width
        v = [scale * dz * dl for dz, dl in zip(d, delta, strict=True)]
        back = [gain * sum(map(operator.mul, v, col)) for col in cols]
        delta = [a + b for a, b in zip(delta, back, strict=True)] if additive else back
        grads[t] = _norm(delta)
    return BPTTFlow(steps, width, kind, gain, additive, tuple(grads), dsum / steps)


# --------------------------------------------------------------------------------------------
# Normalization statistics: BatchNorm's train/serve gap
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def batchnorm_train_serve_gap(
    batch: int, positions: int = 1, trials: int | None = None, seed: int = 0, eps: float = 1e-5
) -> float:
    """How differently BatchNorm treats one example in training and in serving.

    Activations of one channel are drawn i.i.d. N(0, 1). In training, BatchNorm normalizes the
    example's ``positions`` values (H x W of a feature map; 1 for a token) with the mean and
    (biased) variance of all ``batch x positions`` values of the mini-batch; in serving it uses
    the running statistics, here the exact population values (0, 1). Returns the RMS difference
    of the two normalized outputs over the example's values, relative to the RMS of the serving
    output, pooled over ``trials`` seeded mini-batches (default: enough that trials x positions
    is at least 4,096 values, and at least 8 trials) (0 = no difference, 1 = as large as the
    signal: at batch 1 with one position the example is its own mean, every value normalizes
    to 0 and the output collapses to beta).

    The batchmates enter only through their sum and sum of squared deviations, which are drawn
    from their exact sampling distributions (a normal and a chi-square), so the cost is
    O(trials x positions) whatever the batch size. LayerNorm and RMSNorm take their statistics
    from the example alone, so their gap is identically 0.
    """
    _check_int("batch", batch, 1, 1 << 20)
    _check_int("positions", positions, 1, 1 << 17)
    if trials is None:
        trials = max(8, 4096 // positions)
    _check_int("trials", trials, 1, 100_000)
    if trials * positions > MAX_GAP_VALUES:
        raise ValueError(
            f"trials x positions must be <= {MAX_GAP_VALUES:,} (the values drawn; "
            f"about a second of pure Python), got {trials} x {positions}"
        )
    rng = random.Random(f"mlsysim-batchnorm-{seed}-{batch}-{positions}")
    p, rest = positions, (batch - 1) * positions
    diff2 = serve2 = 0.0
    serve_scale = 1.0 / math.sqrt(1.0 + eps)
    for _ in range(trials):
        x = [rng.gauss(0.0, 1.0) for _ in range(p)]
        mean_x = sum(x) / p
        m2_x = sum((v - mean_x) ** 2 for v in x)
        if rest:
            mean_r = rng.gauss(0.0, 1.0 / math.sqrt(rest))
            m2_r = rng.gammavariate((rest - 1) / 2, 2.0) if rest > 1 else 0.0
            n = p + rest
            mean = (p * mean_x + rest * mean_r) / n
            m2 = m2_x + m2_r + (mean_r - mean_x) ** 2 * p * rest / n
        else:
            n, mean, m2 = p, mean_x, m2_x
        train_scale = 1.0 / math.sqrt(m2 / n + eps)
        for v in x:
            y_train = (v - mean) * train_scale
            y_serve = v * serve_scale
            diff2 += (y_train - y_serve) ** 2
            serve2 += y_serve**2
    return math.sqrt(diff2 / serve2) if serve2 > 0 else 0.0


# --------------------------------------------------------------------------------------------
# What rides on the skip path: pre-activation, post-activation and highway blocks
# --------------------------------------------------------------------------------------------

#: The three skip paths of section 6.4 (Figure 7) and 6.9 (Highway Networks)::
#:
#:     preact:   y = F(x) + x                          (He et al. 2016b; the ReLU inside F)
#:     postact:  y = ReLU(F(x) + x)                    (He et al. 2016a, the original block)
#:     highway:  y = H(x) T(x) + x (1 - T(x)),  T = sigmoid(W_T x + b_T)   (Srivastava 2015)
SKIP_FORMS = ("preact", "postact", "highway")
#: Gate biases ``skip_path`` accepts (sigmoid(10) = 0.99995: practically always open).
GATE_BIAS_RANGE = (-10.0, 10.0)
#: Deepest stack ``highway_bias_for`` solves for.
MAX_HIGHWAY_DEPTH = 1000

#: The original post-activation block, measured: the share of the output gradient that reaches
#: block 1 along the skip path alone after L = 1, 2, ... 200 blocks (index L - 1). The skip path's
#: Jacobian through one block is diag(1[F(x) + x > 0]), so the share is the mean over (example,
#: unit) of the product of the first L masks. Network: y = ReLU(x + BN(W2 ReLU(BN(W1 x)))),
#: width 256, batch 256, BatchNorm in training mode, PyTorch's default initialization, seed 0;
#: measured with torch 2.14.1 on 2026-12-06 by tests/reference/skip_paths.py (autograd checks
#: the share at depths 1, 10, 50 and 200); tests/test_s06_04_skip_norm.py holds this table to
#: that fixture. Independent draws of a fixed active share p would give p ** L; here a unit
#: whose x is large and positive stays open block after block, so the share falls more slowly,
#: but a unit closed once never reopens.
# fmt: off
POSTACT_SKIP_SHARE: tuple[float, ...] = (
    0.5009, 0.4028, 0.3481, 0.3117, 0.2856, 0.2641, 0.2468, 0.2322, 0.2205, 0.21, 0.2009,
    0.1937, 0.1865, 0.1799, 0.1739, 0.1686, 0.1642, 0.16, 0.1555, 0.1521, 0.149, 0.1457, 0.1426,
    0.14, 0.1372, 0.1346, 0.132, 0.1296, 0.1277, 0.1258, 0.1242, 0.1219, 0.1203, 0.1186, 0.1171,
    0.1158, 0.1144, 0.113, 0.1118, 0.1105, 0.1091, 0.1079, 0.1068, 0.1054, 0.1041, 0.1031,
    0.102, 0.1009, 0.1, 0.09914, 0.09824, 0.09726, 0.09622, 0.09532, 0.09464, 0.09389, 0.09317,
    0.09247, 0.09154, 0.09067, 0.08974, 0.08904, 0.08804, 0.08734, 0.08675, 0.08611, 0.08549,
    0.08485, 0.08415, 0.08351, 0.08292, 0.08238, 0.08189, 0.08116, 0.08067, 0.08025, 0.0798,
    0.07921, 0.0789, 0.07846, 0.0779, 0.07739, 0.07704, 0.07674, 0.0761, 0.07568, 0.07542,
    0.07513, 0.07466, 0.07422, 0.07388, 0.07343, 0.0731, 0.07281, 0.07253, 0.07207, 0.07176,
    0.07155, 0.07129, 0.07091, 0.07077, 0.0704, 0.06998, 0.06961, 0.06935, 0.06905, 0.06874,
    0.06844, 0.06815, 0.06776, 0.0676, 0.06721, 0.06686, 0.06653, 0.06625, 0.06602, 0.06578,
    0.06552, 0.06522, 0.06485, 0.06459, 0.06436, 0.06404, 0.0638, 0.06351, 0.06329, 0.06299,
    0.06268, 0.06242, 0.06213, 0.06192, 0.06174, 0.06155, 0.06122, 0.06104, 0.06065, 0.06038,
    0.06013, 0.05995, 0.05968, 0.05954, 0.05928, 0.05913, 0.0589, 0.05879, 0.05856, 0.05835,
    0.05821, 0.058, 0.05765, 0.05753, 0.05733, 0.05714, 0.0569, 0.05669, 0.0565, 0.05637,
    0.05624, 0.05612, 0.05585, 0.05565, 0.05542, 0.05519, 0.05502, 0.05479, 0.05455, 0.0544,
    0.05421, 0.05406, 0.05386, 0.05376, 0.05362, 0.05351, 0.0533, 0.05321, 0.05305, 0.05298,
    0.05284, 0.05283, 0.05269, 0.05258, 0.05243, 0.05226, 0.05212, 0.05205, 0.05196, 0.05182,
    0.05171, 0.05159, 0.05138, 0.05121, 0.05101, 0.05093, 0.05077, 0.05066, 0.05051, 0.05032,
    0.05014, 0.04999, 0.04988
)
# fmt: on
#: Share of sums F(x) + x that are positive in block L (index L - 1), same network.
# fmt: off
POSTACT_ACTIVE: tuple[float, ...] = (
    0.5009, 0.6533, 0.7075, 0.7415, 0.7657, 0.7818, 0.7972, 0.8119, 0.8224, 0.8302, 0.8388,
    0.8421, 0.8494, 0.8554, 0.8615, 0.8645, 0.8699, 0.8685, 0.8735, 0.8777, 0.88, 0.8822,
    0.8855, 0.8887, 0.8905, 0.8922, 0.8943, 0.8957, 0.8991, 0.8999, 0.902, 0.9019, 0.9041,
    0.9051, 0.9068, 0.9093, 0.9075, 0.9091, 0.9118, 0.912, 0.9127, 0.9148, 0.9184, 0.9182,
    0.9181, 0.9188, 0.9203, 0.921, 0.9217, 0.9228, 0.9223, 0.9247, 0.9233, 0.9242, 0.9241,
    0.9265, 0.9272, 0.9292, 0.928, 0.9294, 0.9294, 0.9282, 0.9309, 0.9315, 0.9311, 0.9336,
    0.9313, 0.9319, 0.9325, 0.9325, 0.9334, 0.9351, 0.9356, 0.9358, 0.9358, 0.9361, 0.9358,
    0.9359, 0.9376, 0.9398, 0.9391, 0.9387, 0.9386, 0.9396, 0.9387, 0.9396, 0.9407, 0.9418,
    0.9412, 0.9419, 0.9431, 0.9452, 0.943, 0.9432, 0.9433, 0.9434, 0.9445, 0.9444, 0.9448,
    0.9443, 0.9455, 0.9458, 0.9449, 0.9453, 0.9457, 0.9453, 0.9455, 0.9468, 0.9466, 0.948,
    0.9469, 0.9485, 0.9495, 0.949, 0.9504, 0.9485, 0.9485, 0.9489, 0.9483, 0.9499, 0.9488,
    0.9496, 0.9487, 0.9502, 0.9503, 0.9509, 0.9502, 0.9489, 0.9488, 0.95, 0.9501, 0.9524,
    0.9528, 0.9517, 0.9521, 0.9514, 0.9512, 0.9526, 0.953, 0.9542, 0.9553, 0.9536, 0.9543,
    0.9553, 0.9556, 0.9541, 0.9541, 0.955, 0.9543, 0.9553, 0.9543, 0.9561, 0.956, 0.9556,
    0.9559, 0.9561, 0.9572, 0.957, 0.9546, 0.9558, 0.9557, 0.9563, 0.9567, 0.9571, 0.9562,
    0.9556, 0.9557, 0.956, 0.9574, 0.9583, 0.957, 0.9566, 0.9567, 0.9575, 0.9568, 0.957, 0.9573,
    0.9576, 0.9586, 0.9575, 0.9597, 0.9586, 0.9588, 0.9586, 0.9586, 0.9586, 0.9588, 0.9589,
    0.958, 0.9592, 0.9582, 0.9587, 0.9582, 0.9594, 0.9596, 0.959, 0.9585, 0.9604, 0.9591, 0.9596
)
# fmt: on
#: Deepest stack ``skip_path`` follows (the measured post-activation table's depth).
MAX_SKIP_DEPTH = 200


def _check_bias(v) -> float:
    lo, hi = GATE_BIAS_RANGE
    if isinstance(v, bool) or not isinstance(v, int | float) or not (lo <= v <= hi):
        raise ValueError(f"gate_bias must be a number in [{lo:g}, {hi:g}], got {v!r}")
    return float(v)


def gate_carry(gate_bias: float) -> float:
    """The share a highway gate carries along its identity path, 1 - T = 1 - sigmoid(b_T), with
    the gate at its bias (W_T x ~ 0, as at initialization): sigmoid(-2) = 0.119, so a bias of
    -2 carries 0.881 per layer."""
    return 1.0 - _sigmoid(_check_bias(gate_bias))


@dataclass(frozen=True)
class SkipPath:
    """The share of the output gradient that reaches the first block along the skip path alone
    (the branches F and H left out), through 1..``depth`` blocks: ``factors[k]`` after ``k + 1``
    blocks. Pre-activation: exactly 1 (the path's Jacobian is I). Post-activation: the measured
    ``POSTACT_SKIP_SHARE``. Highway: (1 - T) ** L with the gate at its bias."""

    form: str
    depth: int
    factors: tuple[float, ...]

    @property
    def first(self) -> float:
        """The share through all ``depth`` blocks."""
        return self.factors[-1]

    @property
    def per_block(self) -> float:
        """Geometric-mean factor per block: first ** (1 / depth)."""
        return self.first ** (1.0 / self.depth) if self.first > 0 else 0.0


def skip_path(form: str, depth: int, gate_bias: float = -2.0) -> SkipPath:
    """The skip path's share through 1..``depth`` blocks (``depth`` in [1, 200]) of one of
    ``SKIP_FORMS``; ``gate_bias`` (highway only) is b_T in [-10, 10]. A share below the smallest
    float is returned as 0.0, never as a negative or NaN."""
    if not isinstance(form, str) or form not in SKIP_FORMS:
        raise ValueError(f"form={form!r} is not known; allowed: {', '.join(SKIP_FORMS)}")
    _check_int("depth", depth, 1, MAX_SKIP_DEPTH)
    carry = gate_carry(gate_bias)
    if form == "preact":
        return SkipPath(form, depth, (1.0,) * depth)
    if form == "postact":
        return SkipPath(form, depth, POSTACT_SKIP_SHARE[:depth])
    log_c = math.log(carry) if carry > 0 else -math.inf
    factors = tuple(math.exp(k * log_c) if k * log_c > -745 else 0.0 for k in range(1, depth + 1))
    return SkipPath(form, depth, factors)


def highway_bias_for(carry: float, depth: int) -> float:
    """The gate bias b_T whose carry (1 - sigmoid(b_T)) ** depth equals ``carry`` (in (0, 1)):
    the per-layer carry must be carry ** (1 / depth), so T = 1 - carry ** (1 / depth) and
    b_T = ln(T / (1 - T)). Far on the sigmoid's negative side T ~ e^b, so doubling the depth
    halves T and lowers the bias by about ln 2."""
    if (
        isinstance(carry, bool)
        or not isinstance(carry, int | float)
        or not math.isfinite(carry)
        or not 0 < carry < 1
    ):
        raise ValueError(f"carry must be a number in (0, 1), got {carry!r}")
    _check_int("depth", depth, 1, MAX_HIGHWAY_DEPTH)
    t = -math.expm1(math.log(carry) / depth)  # 1 - carry ** (1 / depth), without cancellation
    return math.log(t) - math.log1p(-t)


def skip_weights(form: str, width: int) -> int:
    """Weights a block's skip path adds to a width-``width`` layer: none for an identity add
    (pre- or post-activation); a highway gate's W_T (width x width) and b_T (width), as many as
    the layer's own dense transform H: the layer's weights double."""
    if not isinstance(form, str) or form not in SKIP_FORMS:
        raise ValueError(f"form={form!r} is not known; allowed: {', '.join(SKIP_FORMS)}")
    _check_int("width", width, 1, 1 << 20)
    if form != "highway":
        return 0
    from .layers import Dense

    return Dense(in_features=width, out_features=width).weight_elements


# every argument checked by name (mlsysim._check): z finite, sizes integers in their ranges
_check.check_module(
    globals(),
    __all__,
    {
        "simulate": {"depth": (1, MAX_DEPTH), "width": (2, MAX_WIDTH), "seed": (0, 2**31 - 1)},
        "skip_path": {"depth": (1, MAX_SKIP_DEPTH)},
        "highway_bias_for": {"depth": (1, MAX_HIGHWAY_DEPTH)},
        "skip_weights": {"width": (1, 1 << 20)},
        "batchnorm_train_serve_gap": {
            "batch": (1, 1 << 20),
            "positions": (1, 1 << 17),
            "trials": (1, 100_000),
            "seed": (0, 2**31 - 1),
            "eps": (1e-12, 1.0),
        },
    },
)
