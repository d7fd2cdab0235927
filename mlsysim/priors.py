"""The inductive-bias hierarchy (sections 6.1 and 6.9.4): the families ordered by the strength of
their prior, counted on one and the same layer.

The chapter orders the families "by the strength of their assumptions ... from CNNs through RNNs and
transformers to MLPs" (section 6.9.4) and defines an inductive bias as a constraint that restricts
the hypothesis space (Definition 6.1). This module counts what each restriction keeps and what it
excludes. One layer of each family maps the same input, ``seq_len`` positions × ``features``
features, to an output of the same shape, with no biases (every weight counted is one the layer
must learn):

- **CNN**: a ``kernel``-wide convolution along the positions ('same' padding, ``kernel`` odd): each
  output reads the ``kernel`` positions centred on it, through one filter bank shared by every
  position (``layers.Conv2d`` on a 1 × ``seq_len`` map).
- **RNN**: an Elman recurrence ``h_t = tanh(W_ih x_t + W_hh h_{t-1})`` with ``features`` hidden
  units (``layers.RNN``): output ``t`` reads position ``t`` and, through the one state, every
  earlier position, never a later one.
- **attention**: one unmasked (encoder) self-attention layer, one head, Q, K, V and O projections
  (``layers.MultiHeadAttention``): every output reads every position, weighted by content.
- **MLP**: one dense layer over the flattened sequence (``layers.Dense``, ``seq_len·features`` in
  and out): every output value has its own weight for every input value.

Two counts order them. **Weights**: the layer's parameters, read from ``mlsysim.layers`` (no
formula is retyped here). **Reach**: the (output position, input position) pairs one layer can
relate at all, out of ``seq_len²``, and whether it relates one given pair ``distance`` positions
apart (the later output reading the earlier input). The three families that share their weights
across positions learn O(features²) weights at any length; the MLP learns seq_len²·features².
Among the sharing families the reach orders the priors: the CNN relates only its ``kernel``
neighbours, the RNN only the past, attention everything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import _check
from . import layers as L

__all__ = [
    "FAMILIES",
    "NAMES",
    "MAX_SEQ",
    "MAX_FEATURES",
    "MAX_KERNEL",
    "Prior",
    "layer",
    "compare",
]

#: The families, strongest prior first (section 6.9.4's order).
FAMILIES = ("cnn", "rnn", "attention", "mlp")
NAMES = {
    "cnn": "CNN",
    "rnn": "RNN",
    "attention": "Attention",
    "mlp": "MLP",
}
#: Largest sequence, feature count and kernel ``compare`` takes.
MAX_SEQ = 2**20
MAX_FEATURES = 2**14
MAX_KERNEL = 1025


@dataclass(frozen=True)
class Prior:
    """One family's layer on the shared input, and what it can relate."""

    family: str
    seq_len: int
    features: int
    kernel: int
    distance: int
    weights: int
    macs: int
    pairs: int

    @property
    def name(self) -> str:
        return NAMES[self.family]

    @property
    def total_pairs(self) -> int:
        """Every (output position, input position) pair: seq_len²."""
        return self.seq_len * self.seq_len

    @property
    def reach(self) -> float:
        """Share of the seq_len² position pairs one layer can relate at all."""
        return self.pairs / self.total_pairs

    @property
    def relates(self) -> bool:
        """Whether one layer relates the pair ``distance`` apart (the later output reading the
        earlier input): a CNN only within its half-width, every other family always."""
        return self.family != "cnn" or self.distance <= self.kernel // 2

    @property
    def layers_needed(self) -> int:
        """Stacked layers before an output depends on the earlier position of the pair: each
        convolution reaches ``kernel // 2`` positions further; one layer for the others."""
        if self.family == "cnn":
            return math.ceil(self.distance / (self.kernel // 2))
        return 1

    @property
    def hops(self) -> int:
        """Sequential steps the earlier position's information passes through before the later
        output reads it: the RNN carries it ``distance`` steps through its one state; a stack of
        convolutions one step per layer; attention and the MLP read it directly."""
        return self.distance if self.family == "rnn" else self.layers_needed

    @property
    def examples_to_pin(self) -> int:
        """The fewest examples whose outputs (seq_len·features values each) give as many equations
        as the layer has weights: a counting lower bound on the data that could determine them
        (noiseless), not a learning curve."""
        return max(1, math.ceil(self.weights / (self.seq_len * self.features)))


def layer(family: str, seq_len: int, features: int, kernel: int = 3):
    """The ``mlsysim.layers`` object standing for ``family`` on ``seq_len`` × ``features``."""
    family = _check.choice("family", family, FAMILIES)
    n = _check.integer("seq_len", seq_len, 2, MAX_SEQ)
    c = _check.integer("features", features, 1, MAX_FEATURES)
    k = _kernel(kernel)
    if family == "cnn":
        return L.Conv2d(
            in_channels=c,
            out_channels=c,
            kernel_size=(1, k),
            input_size=(1, n),
            padding=(0, k // 2),
            bias=False,
        )
    if family == "rnn":
        return L.RNN(input_size=c, hidden_size=c, seq_len=n, bias=False)
    if family == "attention":
        return L.MultiHeadAttention(d_model=c, n_heads=1, seq_len=n, bias=False)
    return L.Dense(in_features=n * c, out_features=n * c, bias=False)


def _kernel(kernel) -> int:
    k = _check.integer("kernel", kernel, 3, MAX_KERNEL)
    if k % 2 == 0:
        raise ValueError(f"kernel must be an odd integer in [3, {MAX_KERNEL}], got {kernel!r}")
    return k


def _pairs(family: str, n: int, k: int) -> int:
    if family == "cnn":  # offsets -k//2 .. k//2, each met by n - |offset| outputs
        h = k // 2
        return sum(max(n - abs(o), 0) for o in range(-h, h + 1))
    if family == "rnn":  # output t reads positions 0 .. t
        return n * (n + 1) // 2
    return n * n


def compare(seq_len: int, features: int, kernel: int, distance: int) -> tuple[Prior, ...]:
    """One layer of each family (``FAMILIES`` order, strongest prior first) on the same input,
    with the pair of positions ``distance`` apart that the task depends on."""
    n = _check.integer("seq_len", seq_len, 2, MAX_SEQ)
    c = _check.integer("features", features, 1, MAX_FEATURES)
    k = _kernel(kernel)
    d = _check.integer("distance", distance, 1, n - 1)
    out = []
    for f in FAMILIES:
        lay = layer(f, n, c, k)
        out.append(Prior(f, n, c, k, d, lay.params, lay.macs(), _pairs(f, n, k)))
    return tuple(out)
