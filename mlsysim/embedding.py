"""IDs have no geometry: what an embedding lookup is, and why an ID is not fed as a number
(section 6.8.1).

An item ID names a row; it is not a quantity. Three exact facts, computed here:

- **A lookup is a one-hot product.** The one-hot vector of ID ``i`` times the table is the
  table's row ``i``, value for value (``equivalence``, on a small integer table). The product
  does ``rows × dim`` multiply-accumulates and reads the whole table; the lookup copies one row
  and does none (``cost``: the core's ``Dense`` and ``Embedding`` layers).
- **One-hot vectors are equidistant.** Any two differ in two places: ‖e_i − e_j‖ = √2, so before
  the table no ID is nearer any other; the table's rows, free parameters, are where training
  puts similar items together.
- **An ID fed as a number carries a geometry it does not have.** A dense layer's output on a
  scalar input x is ``w·x + b`` per unit, so for every weight it can learn, item ``a`` sits
  ``|far − a| / |near − a|`` times nearer ``near`` than ``far`` (``id_as_number``): 993× nearer
  1,001 than 7 for item 1,000.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import _check

#: the toy table ``equivalence`` multiplies: 8 items x 4 values, small integers
TOY_ROWS, TOY_DIM = 8, 4
#: the largest toy table (the product is done value by value, in pure Python)
MAX_TOY = 64


def toy_table(rows: int = TOY_ROWS, dim: int = TOY_DIM) -> tuple[tuple[int, ...], ...]:
    """A deterministic table of small integers in [-4, 4] (row ``i``, column ``j``:
    ``(2i + 5j + i·j) mod 9 − 4``), so a product with it is exact."""
    rows = _check.integer("rows", rows, 1, MAX_TOY)
    dim = _check.integer("dim", dim, 1, MAX_TOY)
    return tuple(tuple((2 * i + 5 * j + i * j) % 9 - 4 for j in range(dim)) for i in range(rows))


def one_hot(index: int, rows: int) -> tuple[int, ...]:
    """The one-hot vector of ID ``index`` among ``rows`` IDs."""
    rows = _check.integer("rows", rows, 1, MAX_TOY)
    index = _check.integer("index", index, 0, rows - 1)
    return tuple(1 if k == index else 0 for k in range(rows))


@dataclass(frozen=True)
class Equivalence:
    index: int
    one_hot: tuple[int, ...]
    product: tuple[int, ...]
    row: tuple[int, ...]
    #: multiply-accumulates the product does (rows x dim), all but dim of them by zero
    macs: int

    @property
    def equal(self) -> bool:
        return self.product == self.row


def equivalence(index: int, rows: int = TOY_ROWS, dim: int = TOY_DIM) -> Equivalence:
    """The one-hot vector of ``index`` times ``toy_table(rows, dim)``, multiply by multiply, and
    the table's row ``index``."""
    table = toy_table(rows, dim)
    vec = one_hot(index, len(table))
    product = tuple(sum(vec[k] * table[k][j] for k in range(len(table))) for j in range(dim))
    return Equivalence(index, vec, product, table[index], len(table) * dim)


def one_hot_distance(a: int, b: int, rows: int = MAX_TOY) -> float:
    """Euclidean distance between the one-hot vectors of two IDs: √2 for any two distinct IDs."""
    va, vb = one_hot(a, rows), one_hot(b, rows)
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(va, vb, strict=True)))


@dataclass(frozen=True)
class Cost:
    """One item through a ``rows × dim`` table, at ``precision``."""

    rows: int
    dim: int
    precision: str
    product_macs: int
    product_bytes: int
    lookup_macs: int
    lookup_bytes: int


def cost(rows: int, dim: int = 128, precision: str = "fp32") -> Cost:
    """The one-hot product (a ``Dense(rows → dim)`` without bias: reads the one-hot vector and
    the whole table) against the lookup (an ``Embedding``: gathers one row)."""
    from . import layers as L
    from .units import bytes_per_value

    rows = _check.integer("rows", rows, 1, 10**12)
    dim = _check.integer("dim", dim, 1, 1 << 16)
    product = L.Dense(in_features=rows, out_features=dim, bias=False)
    lookup = L.Embedding(num_embeddings=rows, embedding_dim=dim)
    bpv = bytes_per_value(precision)
    return Cost(
        rows,
        dim,
        precision,
        product.macs(),
        product.weight_bytes(precision) + math.ceil(product.input_elements * bpv),
        lookup.macs(),
        lookup.gather_bytes_per_lookup(precision),
    )


@dataclass(frozen=True)
class AsNumber:
    """A dense layer's output ``weight · id + bias`` (one unit) for an item and two others."""

    item: int
    near: int
    far: int
    weight: float
    bias: float
    out_item: float
    out_near: float
    out_far: float

    @property
    def ratio(self) -> float:
        """How many times nearer ``near`` than ``far`` the layer puts ``item``: |far − item| /
        |near − item|, whatever the weight (≠ 0) and bias."""
        return abs(self.out_far - self.out_item) / abs(self.out_near - self.out_item)


def id_as_number(
    item: int = 1000, near: int = 1001, far: int = 7, weight: float = 1.0, bias: float = 0.0
) -> AsNumber:
    """Feed each ID to a dense unit as a number: ``weight · id + bias``."""
    item = _check.integer("item", item, 0, 10**12)
    near = _check.integer("near", near, 0, 10**12)
    far = _check.integer("far", far, 0, 10**12)
    if len({item, near, far}) < 3:
        raise ValueError(f"item, near and far must be three different IDs, got {item, near, far}")
    w = _check.real("weight", weight, -1e6, 1e6)
    if w == 0:
        raise ValueError("weight must be a nonzero number in [-1e6, 1e6], got 0")
    bias = _check.real("bias", bias, -1e6, 1e6)
    return AsNumber(item, near, far, w, bias, w * item + bias, w * near + bias, w * far + bias)
