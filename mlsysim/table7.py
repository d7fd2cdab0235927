"""The chapter's Table 7 ("Cost formulas by building block", L1305-L1314) beside the exact counts.

``chapter(block, ...)`` evaluates Table 7's closed form (weights and biases of norms excluded,
1 MAC per multiply-accumulate, the chapter's own simplifications); ``exact(block, ...)`` builds
the same block from ``mlsysim.layers`` / ``mlsysim.models`` (torch's counting: biases, norms,
embeddings, the attention over a KV cache) so a notebook can show both and where they part.

Sizes: ``width`` is d (or C_in = C_out for the convolutions), ``length`` is S tokens (or the
feature-map side H = W for the convolutions), ``rows`` is the embedding-table row count.
Fixed choices, stated once: 3x3 kernels with 'same' padding; d_ff = 4d; 64-wide heads;
``DECODE_LAYERS`` GPT-2 blocks (vocabulary, tied head, 1,024 positions) for the decode row.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _check
from ._lazy import lazy
from .units import bytes_per_value

# run on first use: the table's row names (``BLOCKS``) need neither pint nor pydantic
L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")

__all__ = [
    "BLOCKS",
    "Counts",
    "chapter",
    "exact",
    "DECODE_LAYERS",
    "DECODE_CONTEXT",
    "KERNEL",
    "HEAD_DIM",
    "FF_MULT",
]

#: Table 7's rows, in its order (key -> the chapter's row label).
BLOCKS = {
    "dense": "Dense layer",
    "conv": "Convolution layer",
    "dwsep": "Depthwise separable convolution",
    "rnn": "Recurrent step (plain)",
    "lstm": "Recurrent step (LSTM)",
    "transformer": "Transformer block",
    "decode": "Decoding one token",
    "embedding": "Embedding lookup",
}
KERNEL = 3
HEAD_DIM = 64
FF_MULT = 4
DECODE_LAYERS = 48  # GPT-2 XL's depth: at width 1,600 the decode row is the chapter's lighthouse
#: GPT-2's learned positions: the decode row accepts S up to this many cached tokens.
DECODE_CONTEXT = 1024


@dataclass(frozen=True)
class Counts:
    """Weights, multiply-accumulates per example, and the bytes Table 7's third column names
    (``what`` says which: resident weights, activations, state, scores or KV cache)."""

    params: int
    macs: int
    bytes: int
    what: str


#: Largest width or length either form evaluates.
MAX_SIDE = 2**16


def _check_sizes(block: str, width: int, length: int, rows: int) -> None:
    if not isinstance(block, str) or block not in BLOCKS:
        raise ValueError(f"block={_check._short(block)}; allowed: {', '.join(BLOCKS)}")
    # 2**16 is 16x the notebook's sliders and keeps every block inside the layers' size caps
    for name, v, hi in (
        ("width", width, MAX_SIDE),
        ("length", length, MAX_SIDE),
        ("rows", rows, _check.MAX_SIZE),
    ):
        _check.integer(name, v, 1, hi)
    if block == "decode" and length > DECODE_CONTEXT:
        raise ValueError(
            f"length must be <= {DECODE_CONTEXT} (GPT-2's learned positions) for block='decode', got {length}"
        )
    if block in ("transformer", "decode") and width % HEAD_DIM:
        raise ValueError(
            f"width must be a multiple of {HEAD_DIM} (the head size) for block={block!r}, got {width}"
        )


def chapter(block: str, width: int, length: int, rows: int = 1, precision: str = "fp16") -> Counts:
    """Table 7's closed form for one example (one step for recurrence, S tokens for a block)."""
    _check_sizes(block, width, length, rows)
    d, s, k, b = width, length, KERNEL, bytes_per_value(precision)
    ff = FF_MULT * d
    if block == "dense":
        return Counts(d * d, d * d, int(d * d * b), "weights (read once per batch)")
    if block == "conv":
        return Counts(
            k * k * d * d, s * s * k * k * d * d, int(s * s * d * b), "output activations H·W·C_out"
        )
    if block == "dwsep":
        return Counts(
            k * k * d + d * d,
            s * s * (k * k * d + d * d),
            int(s * s * d * b),
            "output activations H·W·C_out",
        )
    if block in ("rnn", "lstm"):
        g, st = (4, 2) if block == "lstm" else (1, 1)  # LSTM: 4 affine transforms, h and c (L707)
        return Counts(
            g * (d * d + d * d),
            g * (d * d + d * d) * s,
            int(st * d * b),
            "state of d values at inference (2d for an LSTM)",
        )
    if block == "transformer":
        heads = d // HEAD_DIM
        return Counts(
            4 * d * d + 2 * d * ff,
            4 * s * d * d + 2 * s * s * d + 2 * s * d * ff,
            int(heads * s * s * b),
            "S² scores per head, materialized",
        )
    if block == "decode":
        m = M.gpt2(d, DECODE_LAYERS, d // HEAD_DIM, context_length=DECODE_CONTEXT)
        return Counts(
            m.params,
            m.params,
            int(m.params * b + 2 * DECODE_LAYERS * d * s * b),
            "every weight + KV cache of 2·N_L·d values per token",
        )
    return Counts(rows * d, 0, int(rows * d * b), "whole table resident: rows × width × bytes")


def exact(block: str, width: int, length: int, rows: int = 1, precision: str = "fp16") -> Counts:
    """The same block built from the core's layer models (torch's parameter count)."""
    _check_sizes(block, width, length, rows)
    d, s, b = width, length, bytes_per_value(precision)
    if block == "dense":
        lay = L.Dense(in_features=d, out_features=d)
        return Counts(lay.params, lay.macs(), lay.weight_bytes(precision), "weights + bias")
    if block == "conv":
        lay = L.Conv2d(
            in_channels=d, out_channels=d, kernel_size=KERNEL, input_size=s, padding=KERNEL // 2
        )
        return Counts(lay.params, lay.macs(), int(lay.output_elements * b), "output activations")
    if block == "dwsep":
        seq = L.depthwise_separable(d, d, KERNEL, s)
        return Counts(seq.params, seq.macs(), int(seq.output_elements * b), "output activations")
    if block in ("rnn", "lstm"):
        cls = L.LSTM if block == "lstm" else L.RNN
        lay = cls(input_size=d, hidden_size=d, seq_len=s)
        return Counts(
            lay.params,
            lay.macs(),
            lay.state_bytes(1, precision),
            "recurrent state (h, and c for an LSTM)",
        )
    if block == "transformer":
        blk = L.TransformerBlock(d_model=d, n_heads=d // HEAD_DIM, d_ff=FF_MULT * d, seq_len=s)
        return Counts(
            blk.params, blk.macs(), blk.attn.core.score_bytes(1, precision), "materialized scores"
        )
    if block == "decode":
        m = M.gpt2(d, DECODE_LAYERS, d // HEAD_DIM, context_length=DECODE_CONTEXT)
        return Counts(
            m.params,
            m.macs(1, s, "decode"),
            int(m.weight_bytes(precision) + m.kv_cache_bytes(s, 1, precision)),
            "weights + KV cache",
        )
    lay = L.Embedding(num_embeddings=rows, embedding_dim=d)
    return Counts(lay.params, lay.macs(), lay.weight_bytes(precision), "table bytes")
