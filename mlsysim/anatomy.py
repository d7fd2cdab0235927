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
    if ".attn." in f".{name}":
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
