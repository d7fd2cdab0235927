"""Head pruning: what removing attention heads saves in time (section 6.7: head redundancy).

Michel, Levy and Neubig (2019) removed many of a trained model's attention heads at test time with
little loss in accuracy (``mlsysim.published.HEAD_PRUNING``); whether that makes the model faster
is a cost question, answered here with the engine on one convention:

- **The pruned model keeps its head width** (64 for BERT-base) and loses whole heads, the same
  number in every layer, as HuggingFace's ``prune_heads`` does: the Q, K and V projections lose
  the pruned heads' output columns, the output projection their input rows, and the score and
  P·V work shrinks with the heads. The output projection's bias, both LayerNorms, the residual
  adds and the feed-forward network (two thirds of a block's weights) are untouched.
- **The encoder is ``n_layers`` identical blocks** (``layers.TransformerBlock`` with
  ``head_dim``), solved by ``engine.Engine.solve`` at batch 1, ``seq_len`` tokens; embeddings and
  pooler are left out (they do not change with the heads).

Accuracy is not modelled: which heads can go without loss is the paper's measurement, not this
module's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from . import _check
from .units import bytes_per_value

__all__ = ["HeadPruning", "prune_heads", "pruned_encoder", "MAX_SEQ"]

#: the longest input ``prune_heads`` prices (the materialized scores grow as S²)
MAX_SEQ = 65_536


def pruned_encoder(
    heads_pruned: int,
    seq_len: int,
    d_model: int = 768,
    n_heads: int = 12,
    d_ff: int = 3072,
    n_layers: int = 12,
):
    """``n_layers`` encoder blocks with ``heads_pruned`` of each block's ``n_heads`` heads
    removed, the rest kept at their width ``d_model // n_heads``."""
    from . import layers as L

    h = _check.integer("n_heads", n_heads, 1, 1024)
    d = _check.integer("d_model", d_model, 1, 1 << 20)
    if d % h:
        raise ValueError(f"n_heads={h} must divide d_model={d}")
    p = _check.integer("heads_pruned", heads_pruned, 0, h - 1)
    s = _check.integer("seq_len", seq_len, 1, MAX_SEQ)
    f = _check.integer("d_ff", d_ff, 1, 1 << 20)
    n = _check.integer("n_layers", n_layers, 1, 1000)
    block = L.TransformerBlock(
        d_model=d, n_heads=h - p, head_dim=d // h, d_ff=f, seq_len=s, name="block"
    )
    return L.Sequential(layers=(block,) * n, name="encoder")


@dataclass(frozen=True)
class HeadPruning:
    """The full encoder against the pruned one, on one device."""

    heads: int
    heads_pruned: int
    seq_len: int
    device: str
    full_s: float
    pruned_s: float
    full_params: int
    pruned_params: int
    full_flops: int
    pruned_flops: int
    #: share of the full encoder's time spent in the attention sub-layers (Q/K/V/O + scores)
    attention_share: float

    @property
    def fraction_pruned(self) -> float:
        return self.heads_pruned / self.heads

    @property
    def time_saved(self) -> float:
        """1 − pruned time / full time."""
        return 1.0 - self.pruned_s / self.full_s

    @property
    def speedup(self) -> float:
        return self.full_s / self.pruned_s

    @property
    def params_saved(self) -> float:
        return 1.0 - self.pruned_params / self.full_params

    @property
    def flops_saved(self) -> float:
        return 1.0 - self.pruned_flops / self.full_flops


@lru_cache(maxsize=512)
def _solve(heads_pruned: int, seq_len: int, device: str, precision: str):
    from .engine import Engine

    enc = pruned_encoder(heads_pruned, seq_len)
    prof = Engine.solve(enc, device, precision=precision)
    attn = sum(t.time for t in prof.layers if ".attn." in f".{t.name}.")
    return prof.latency_s, enc.params, prof.flops, attn


def prune_heads(
    heads_pruned: int, seq_len: int, device: str = "H100", precision: str = "fp16"
) -> HeadPruning:
    """Time, weights and FLOPs of a BERT-base-shaped encoder (d 768, 12 layers of 12 heads,
    d_ff 3072) with ``heads_pruned`` heads removed from every layer, against the full one."""
    from .hardware import Hardware

    p = _check.integer("heads_pruned", heads_pruned, 0, 11)
    s = _check.integer("seq_len", seq_len, 1, MAX_SEQ)
    if not isinstance(device, str):
        raise ValueError(f"device must be a registry key such as 'H100', got {device!r}")
    Hardware.get(device)  # an unknown key fails here, naming the keys it knows
    bytes_per_value(precision)  # an unknown precision fails here, naming the allowed ones
    full_s, full_params, full_flops, attn = _solve(0, s, device, precision)
    pr_s, pr_params, pr_flops, _ = _solve(p, s, device, precision)
    return HeadPruning(
        12, p, s, device, full_s, pr_s, full_params, pr_params, full_flops, pr_flops, attn / full_s
    )
