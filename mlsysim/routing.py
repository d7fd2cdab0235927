"""Routing by content against routing by position (section 6.6: attention's origin).

Bahdanau et al. (2015) let a translation decoder weight every encoder state by how well it matches
what the decoder is looking for, instead of reading a fixed window or one fixed-length summary.
This module measures what that buys on the smallest case: one query token must fetch the value of
the one earlier token whose key it matches, ``distance`` tokens back in a sequence of
``seq_len`` tokens. Keys are one-hot token IDs and the query is the target's key times
``sharpness``, so the query-key dot products are exact; three readers weight the earlier tokens:

- **attention** (content-based, the whole sequence): softmax of the dot products over every
  position up to the query;
- **windowed attention** (content-based, the last ``window`` positions only): the same softmax over
  the window; a target outside it gets nothing;
- **fixed filter** (a convolution's window: weights set by position, the same for every input):
  ``1/window`` on each position of the window, whatever the tokens hold.

The weight each reader puts on the target is what its output carries of the target's value.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from functools import lru_cache

from . import _check
from .order import softmax

#: the query's dot product with its target key (the others are 0): a softmax over S positions puts
#: e^8 / (e^8 + S − 1) on the target, 92% at S = 256
SHARPNESS = 8.0
#: the longest sequence ``read`` builds (one-hot keys of this length, one dot product each)
MAX_SEQ = 4096


@dataclass(frozen=True)
class Reading:
    """The weight each reader puts on the target, and the work each does per query."""

    seq_len: int
    distance: int
    window: int
    attention: float
    windowed: float
    fixed: float

    @property
    def window_layers(self) -> int:
        """Stacked windows (each reaching ``window − 1`` tokens further back) needed before any
        window layer's output depends on the target."""
        return math.ceil(self.distance / (self.window - 1))

    @property
    def scores_attention(self) -> int:
        """Dot products per query: every position up to the query."""
        return self.seq_len

    @property
    def scores_window(self) -> int:
        return self.window


@lru_cache(maxsize=4)
def _one_hot_keys(seq_len: int) -> tuple[tuple[float, ...], ...]:
    """Token j's key: the one-hot vector of its ID j (every token a distinct ID)."""
    return tuple(tuple(1.0 if i == j else 0.0 for i in range(seq_len)) for j in range(seq_len))


def read(seq_len: int, distance: int, window: int, sharpness: float = SHARPNESS) -> Reading:
    """Weights on the target ``distance`` tokens before the last (query) token."""
    seq_len = _check.integer("seq_len", seq_len, 2, MAX_SEQ)
    distance = _check.integer("distance", distance, 1, seq_len - 1)
    window = _check.integer("window", window, 2, seq_len)
    sharpness = _check.real("sharpness", sharpness, 0.0, 50.0)
    target = seq_len - 1 - distance
    keys = _one_hot_keys(seq_len)
    query = [sharpness * v for v in keys[target]]
    logits = [sum(map(operator.mul, query, key)) for key in keys]
    attention = softmax(logits)[target]
    start = seq_len - window  # the window: the query and the window − 1 tokens before it
    inside = target >= start
    windowed = softmax(logits[start:])[target - start] if inside else 0.0
    fixed = 1.0 / window if inside else 0.0
    return Reading(seq_len, distance, window, attention, windowed, fixed)
