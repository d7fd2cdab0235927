"""Attention has no notion of order: a small, exact, pure-Python experiment (section 6.6).

Self-attention computes softmax(Q Kᵀ / √d) V with Q = X W_Q, K = X W_K, V = X W_V. Permuting the
rows of X permutes Q, K and V the same way, so the scores are permuted on both axes and each
token's output is unchanged, only moved: attention is permutation *equivariant*. Adding
position-dependent vectors to X before attention (Vaswani et al. 2017, "Attention Is All You
Need", Sec. 3.5: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)))
breaks that symmetry: the same token at another position gets another output.

Lists of floats only (no numpy), so it runs in the browser. Sizes are small by design.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from . import _check

__all__ = [
    "Matrix",
    "matmul",
    "softmax",
    "scores",
    "self_attention",
    "sinusoidal_positions",
    "permute",
    "random_matrix",
    "order_experiment",
    "causal_experiment",
]

Matrix = list[list[float]]

#: Largest sizes the experiment accepts (it is a teaching demo, not a kernel).
MAX_TOKENS = 64
MAX_DIM = 64


def matmul(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> Matrix:
    """A (n x k) times B (k x m)."""
    return _matmul(_check.matrix("a", a, 4096), _check.matrix("b", b, 4096), "a", "b")


def _matmul(a: Matrix, b: Matrix, na: str, nb: str) -> Matrix:
    """``a`` times ``b``, both already checked (lists of float rows); ``na``/``nb`` name them."""
    n, k, k2, m = len(a), len(a[0]), len(b), len(b[0])
    if k != k2:
        raise ValueError(f"inner dimensions differ: {na} is {n}x{k}, {nb} is {k2}x{m}")
    _check.work("this product", n * k * m, f"{na} and {nb}")
    out = [[sum(a[i][t] * b[t][j] for t in range(k)) for j in range(m)] for i in range(n)]
    return _check.finite_result("the product", out, f"{na} and {nb}")


def softmax(row: Sequence[float]) -> list[float]:
    """Numerically stable softmax of one row (subtract the max before exponentiating)."""
    if not isinstance(row, list | tuple) or not row:
        raise ValueError(f"row must be a non-empty list of numbers, got {row!r}")
    row = [
        -math.inf
        if v == -math.inf and not isinstance(v, bool)
        else _check.real(f"row[{i}]", v, -math.inf)
        for i, v in enumerate(row)
    ]  # -inf is a masked score
    top = max(row)
    if top == -math.inf:
        raise ValueError(
            f"row is fully masked (every score is -inf): at least one must be finite, got {_check._short(row)}"
        )
    e = [0.0 if v == -math.inf else math.exp(v - top) for v in row]
    s = sum(e)
    return [v / s for v in e]


def scores(
    x: Sequence[Sequence[float]], wq: Sequence[Sequence[float]], wk: Sequence[Sequence[float]]
) -> Matrix:
    """The scaled scores Q Kᵀ / √d_k (before softmax), one row per query token."""
    x, wq, wk = (
        _check.matrix("x", x, 4096),
        _check.matrix("wq", wq, 4096),
        _check.matrix("wk", wk, 4096),
    )
    q, k = _matmul(x, wq, "x", "wq"), _matmul(x, wk, "x", "wk")
    if len(k[0]) != len(q[0]):
        raise ValueError(f"wq and wk must have as many columns: {len(q[0])} vs {len(k[0])}")
    d = len(k[0])
    _check.work("the scores", len(q) * len(k) * d, "x, wq and wk")
    out = [[sum(qi[t] * kj[t] for t in range(d)) / math.sqrt(d) for kj in k] for qi in q]
    return _check.finite_result("the scores", out, "x, wq and wk")


def self_attention(
    x: Sequence[Sequence[float]],
    wq: Sequence[Sequence[float]],
    wk: Sequence[Sequence[float]],
    wv: Sequence[Sequence[float]],
    causal: bool = False,
) -> Matrix:
    """One head of scaled dot-product self-attention: softmax(Q Kᵀ / √d_k) V. ``causal=True`` sets
    the scores of later positions to −∞ before the softmax, so token t attends to tokens ≤ t only."""
    wv, causal = _check.matrix("wv", wv, 4096), _check.flag("causal", causal)
    s = scores(x, wq, wk)
    if causal:
        s = [[v if j <= i else -math.inf for j, v in enumerate(row)] for i, row in enumerate(s)]
    p = [softmax(r) for r in s]
    v = _matmul(_check.matrix("x", x, 4096), wv, "x", "wv")
    return _check.finite_result(
        "the attention output", _matmul(p, v, "the weights", "x·wv"), "x and wv"
    )


def sinusoidal_positions(n_tokens: int, d_model: int) -> Matrix:
    """Vaswani et al.'s sinusoidal encodings: row ``pos``, columns alternate sin and cos of
    pos / 10000^(2i / d_model)."""
    for name, v, hi in (("n_tokens", n_tokens, MAX_TOKENS), ("d_model", d_model, MAX_DIM)):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= hi:
            raise ValueError(f"{name} must be an integer in [1, {hi}], got {v!r}")
    out = []
    for pos in range(n_tokens):
        row = []
        for j in range(d_model):
            angle = pos / 10000 ** ((j - j % 2) / d_model)
            row.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
        out.append(row)
    return out


def permute(rows: Sequence[Sequence[float]], order: Sequence[int]) -> Matrix:
    """Rows reordered: new row i is old row ``order[i]`` (``order`` must be a permutation)."""
    rows = _check.matrix("rows", rows, 4096)
    if not isinstance(order, list | tuple) or sorted(
        _check.integer(f"order[{i}]", v, 0, len(rows) - 1) for i, v in enumerate(order)
    ) != list(range(len(rows))):
        raise ValueError(f"order must be a permutation of 0..{len(rows) - 1}, got {order!r}")
    return [list(rows[i]) for i in order]


def random_matrix(rows: int, cols: int, rng: random.Random) -> Matrix:
    """Entries uniform in [-1, 1) from ``rng`` (reproducible with a seeded Random)."""
    rows, cols = _check.integer("rows", rows, 1, 4096), _check.integer("cols", cols, 1, 4096)
    _check.instance("rng", rng, random.Random, "a random.Random")
    return [[rng.uniform(-1.0, 1.0) for _ in range(cols)] for _ in range(rows)]


def order_experiment(
    n_tokens: int = 5,
    d_model: int = 4,
    shift: int = 1,
    positions: bool = False,
    seed: int = 0,
    causal: bool = False,
) -> dict:
    """Run one head of self-attention on ``n_tokens`` random token vectors, then on the same tokens
    rotated by ``shift`` places, with or without sinusoidal positional encodings added to the
    inputs. Returns both outputs, the second mapped back to the original token order, and the
    largest difference between them (0 up to rounding without positions: equivariance).
    ``causal=True`` runs the head with a causal mask, which already breaks the equivariance."""
    for name, v, lo, hi in (
        ("n_tokens", n_tokens, 2, MAX_TOKENS),
        ("d_model", d_model, 1, MAX_DIM),
    ):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {v!r}")
    if isinstance(shift, bool) or not isinstance(shift, int) or not 0 <= shift < n_tokens:
        raise ValueError(f"shift must be an integer in [0, {n_tokens - 1}], got {shift!r}")
    positions, causal = _check.flag("positions", positions), _check.flag("causal", causal)
    rng = random.Random(_check.seed("seed", seed))
    tokens = random_matrix(n_tokens, d_model, rng)
    wq, wk, wv = (random_matrix(d_model, d_model, rng) for _ in range(3))
    order = [
        (i + shift) % n_tokens for i in range(n_tokens)
    ]  # new position i holds old token order[i]
    moved = permute(tokens, order)
    if positions:
        pe = sinusoidal_positions(n_tokens, d_model)
        x1 = [[a + b for a, b in zip(t, p, strict=True)] for t, p in zip(tokens, pe, strict=True)]
        x2 = [[a + b for a, b in zip(t, p, strict=True)] for t, p in zip(moved, pe, strict=True)]
    else:
        x1, x2 = tokens, moved
    out1 = self_attention(x1, wq, wk, wv, causal)
    out2 = self_attention(x2, wq, wk, wv, causal)
    back = [None] * n_tokens  # out2 row i belongs to old token order[i]
    for i, old in enumerate(order):
        back[old] = out2[i]
    diff = max(
        abs(a - b) for r1, r2 in zip(out1, back, strict=True) for a, b in zip(r1, r2, strict=True)
    )
    return {
        "order": order,
        "original": out1,
        "shuffled": out2,
        "shuffled_back": back,
        "max_diff": diff,
    }


def causal_experiment(
    n_tokens: int = 5, d_model: int = 4, causal: bool = True, seed: int = 0
) -> dict:
    """Change only the last token and measure how much every earlier token's output moves. With
    the causal mask the earlier outputs cannot see it (change 0): that is what lets one training
    pass predict every position from its past alone (teacher forcing) without leaking the answer."""
    for name, v, lo, hi in (
        ("n_tokens", n_tokens, 2, MAX_TOKENS),
        ("d_model", d_model, 1, MAX_DIM),
    ):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {v!r}")
    rng = random.Random(_check.seed("seed", seed))
    tokens = random_matrix(n_tokens, d_model, rng)
    wq, wk, wv = (random_matrix(d_model, d_model, rng) for _ in range(3))
    edited = [list(r) for r in tokens]
    edited[-1] = random_matrix(1, d_model, rng)[0]
    a = self_attention(tokens, wq, wk, wv, causal)
    b = self_attention(edited, wq, wk, wv, causal)
    earlier = max(
        abs(x - y)
        for ra, rb in zip(a[:-1], b[:-1], strict=True)
        for x, y in zip(ra, rb, strict=True)
    )
    return {
        "earlier_change": earlier,
        "last_change": max(abs(x - y) for x, y in zip(a[-1], b[-1], strict=True)),
    }
