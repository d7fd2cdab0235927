"""A transformer's building blocks on one forward pass (Definition 6.6: attention, feed-forward
MLP, residual adds, normalization, positions): the engine's per-layer rows grouped by the block
each row belongs to, so the share of FLOPs, bytes and time of each block can be read side by side.

Grouping rule (GPT-2 row names, ``models.gpt2``): ``h.attn.*`` (QKV projection, scaled dot-product
attention, output projection) is attention; ``h.mlp.*`` (two projections and the GELU) the
feed-forward MLP; ``ResidualAdd`` rows the residual adds; ``LayerNorm`` rows normalization (the
final one included); ``embed.*`` the token and position embeddings; the rest (``lm_head``) the
output head.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the blocks, in the order a token meets them
BLOCKS = {
    "embed": "token + position embeddings",
    "norm": "LayerNorm",
    "attention": "attention (QKV, scores, output projection)",
    "residual": "residual adds",
    "ffn": "feed-forward MLP",
    "head": "output head",
}


def block_of(name: str, kind: str) -> str:
    """The block a row of the engine's table belongs to (see the module docstring; Llama's
    ``blocks.attn.*`` and ``blocks.ffn_*`` rows too)."""
    if kind == "ResidualAdd":
        return "residual"
    if kind in ("LayerNorm", "RMSNorm"):
        return "norm"
    if ".attn." in f".{name}" or ".self_attention." in f".{name}":
        return "attention"
    if ".mlp." in f".{name}" or ".ffn_" in f".{name}":
        return "ffn"
    if name.startswith("embed"):
        return "embed"
    return "head"


@dataclass(frozen=True)
class Share:
    flops: float
    bytes: float
    time_s: float


def shares(profile) -> dict[str, Share]:
    """Each block's FLOPs, bytes and time as fractions of the whole pass (an engine ``Profile``)."""
    sums = {k: [0.0, 0.0, 0.0] for k in BLOCKS}
    for row in profile.layers:
        s = sums[block_of(row.name, row.type)]
        s[0] += row.flops
        s[1] += row.bytes
        s[2] += row.time
    total = [sum(v[i] for v in sums.values()) for i in range(3)]
    if min(total) <= 0:
        raise ValueError(
            f"the profile of {profile.model_name} has no FLOPs, bytes or time to share"
        )
    return {k: Share(*(v[i] / total[i] for i in range(3))) for k, v in sums.items()}


# --------------------------------------------------------------------------------------------
# Portability (section 6.7): one block, any modality
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cost:
    """Weights and MACs of a group of rows, per forward pass of one input (1 MAC = 2 FLOPs)."""

    params: int
    macs: int

    @property
    def flops(self) -> int:
        return 2 * self.macs


def _rows(model, seq_len: int | None):
    """The model's rows; ``seq_len`` applies to a language model only (an image model's token
    count is set by its input size, and ``Model.rows`` refuses a ``seq_len`` for it)."""
    from .models import Model

    if not isinstance(model, Model):
        raise ValueError(
            f"model must be an mlsysim Model (e.g. Models.BERTBase), got {model!r:.80}"
        )
    return model.rows() if seq_len is None else model.rows(seq_len)


def _layers(model) -> int:
    """The model's block count: the most times it builds any one row."""
    _rows(model, None)  # checks ``model``
    n = max(r.count for r in _rows(model, 1 if model.is_lm else None))
    if n < 2:
        raise ValueError(f"{model.name} has no repeated block (no row built more than once)")
    return n


def one_block(model, seq_len: int | None = None) -> dict[str, Cost]:
    """One of the model's repeated encoder/decoder blocks (the rows it builds once per layer),
    grouped by building block: attention, feed-forward, residual adds, norms. ``seq_len``: the
    token count, for a language model (an image model's is set by its input)."""
    n = _layers(model)
    rows = [r for r in _rows(model, seq_len) if r.count == n]
    out = {}
    for k in ("attention", "ffn", "residual", "norm"):
        part = [r.layer for r in rows if block_of(r.name, type(r.layer).__name__) == k]
        out[k] = Cost(sum(x.params for x in part), sum(x.macs() for x in part))
    rest = [r.name for r in rows if block_of(r.name, type(r.layer).__name__) not in out]
    if rest:
        raise ValueError(f"rows of {model.name}'s block in no building block: {rest}")
    return out


def block_total(model, seq_len: int | None = None) -> Cost:
    """One repeated block's weights and MACs, all building blocks together."""
    parts = one_block(model, seq_len).values()
    return Cost(sum(c.params for c in parts), sum(c.macs for c in parts))


def front_end(model, seq_len: int | None = None) -> Cost:
    """What turns the input into tokens: every row before the first block (a ViT's
    patch convolution, class token and positions; a language model's token, position and
    segment tables and their norm). An embedding lookup copies rows: weights, no MACs."""
    n = _layers(model)
    rows = _rows(model, seq_len)
    first = next(i for i, r in enumerate(rows) if r.count == n)
    head = rows[:first]
    return Cost(sum(r.layer.params for r in head), sum(r.layer.macs() * r.count for r in head))


def encoder_block(d_model: int, n_heads: int, d_ff: int, tokens: int) -> Cost:
    """A pre-LN encoder block (the layers of torchvision ViT's ``EncoderBlock``) over ``tokens``
    tokens of width ``d_model``: the block of any modality (a speech encoder's frames, a ViT's
    patches, a text encoder's word pieces)."""
    from . import _check, vision

    d = _check.integer("d_model", d_model, 1, 1 << 16)
    h = _check.integer("n_heads", n_heads, 1, d)
    if d % h:
        raise ValueError(f"d_model={d} must be a multiple of n_heads={h}")
    f = _check.integer("d_ff", d_ff, 1, 1 << 18)
    s = _check.integer("tokens", tokens, 1, 1 << 20)
    layers = [r.layer for r in vision._encoder_block(d, h, f, s)]
    return Cost(sum(x.params for x in layers), sum(x.macs() for x in layers))
