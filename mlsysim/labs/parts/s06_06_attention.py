"""Section 6.6, Attention: the S x S score matrix, its quadratic growth, the context at which it
outgrows a device, and what FlashAttention changes. Each part is a plain function of its widget
values.

Every count comes from ``mlsysim`` (``layers.Attention``, ``layers.Dense``, ``Engine.solve``, the
hardware registry); this module picks inputs, searches over sequence lengths, builds the charts
and writes the sentences. The chapter's numbers it reproduces, including Figure 14's "near 41,000
tokens" (the physical 80 GiB of an "80 GB" part, where the registry plans with 80 x 10^9 B), are
asserted in ``tests/test_s06_06_attention.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

from ... import catalogue
from ..._lazy import lazy
from ..charts import device_label, figure, hline, memory_lines
from ..components import (
    Card,
    Choice,
    Prediction,
    Slider,
    Toggle,
    View,
    counted,
    fact,
    feasibility,
    fmt_bytes,
    fmt_count,
    fmt_ratio,
    fmt_time,
    widget_args,
)
from ..vocab import LABELS, bound_phrase

E = lazy("mlsysim.engine")
HW = lazy("mlsysim.hardware")
L = lazy("mlsysim.layers")
U = lazy("mlsysim.units")
PUB = lazy("mlsysim.published")

CHAPTER = "6.6"
PARTS = ("A", "B", "C", "D", "E", "F", "G")

#: Scores are stored in FP16 throughout the chapter's examples (L825, L938, L965, L1113).
PRECISION = "fp16"
#: The chapter's head width (GPT-2's 64-wide heads, L1028); B's d_model = heads x 64.
HEAD_DIM = 64
#: Chapter scenario inputs.
S_LISTING7, D_HEAD_LISTING7 = 512, 64  # Listing 7 / self-check MCQ (L882, L968)
S_SELF, S_DOUBLE = 4096, 8192  # Definition 6.5 and the self-check (L825, L965)
SELF_HEADS, SELF_LAYERS = 12, 32  # self-check answer (L1810)
S_NAPKIN, NAPKIN_HEADS, NAPKIN_LAYERS = 100_000, 12, 32  # Napkin Math 6.1 (L930-L939)
#: Model shapes (d_model, heads): Napkin 6.1's 12 heads at GPT-2 small's width (L937, L1028);
#: GPT-2 XL as drawn in Figure 14 (L1113); the 7B shape of the KV-cache footnote (L1105).
SHAPES = {"napkin": (768, 12), "gpt2xl": (1600, 25), "7b": (4096, 32)}
SHAPE_LABELS = {
    "napkin": "12 heads, d = 768 (Napkin 6.1)",
    "gpt2xl": "25 heads, d = 1,600 (GPT-2 XL, Fig. 14)",
    "7b": "32 heads, d = 4,096 (7B class)",
}
#: Figure 14's device is unnamed (L1113). The registry plans with the datasheet's "80 GB" read as
#: 80 x 10^9 B (conservative), which gives 40,000 tokens; the HBM stacks of an "80 GB" H100/A100
#: physically hold 80 GiB (85.9 x 10^9 B; nvidia-smi reports 81,559 MiB usable on an H100 SXM),
#: which gives the ~41,000 the figure quotes.
FIG14_CAPACITY = "80 GiB"
FIG14_QUOTED = 41_000  # "near 41,000 tokens" (L1113, L1115)


def _att(shape: str, seq: int, flash: bool = False) -> L.Attention:
    d, h = SHAPES[shape]
    return L.Attention(d_model=d, n_heads=h, seq_len=seq, flash=flash)


# ---------------------------------------------------------------------------------------------
# Part A: one head's S x S score matrix
# ---------------------------------------------------------------------------------------------

PRED_A = Prediction(
    question=(
        "One attention head at S = 512 tokens with d_head = 64 computes its query-key scores QKᵀ and "
        "stores the S × S score matrix. Two ways to give it more reach: double the context S, or "
        "double the head width d_head. What does each cost?"
    ),
    options={
        "s4": "A longer context costs arithmetic and stored scores; a wider head, only arithmetic",
        "d4": "A wider head costs arithmetic and stored scores; a longer context, only arithmetic",
        "equal": "Each costs arithmetic and stored scores alike, in the same proportion",
        "macs": "Each costs only arithmetic, since a head stores one score per token",
    },
    answer="s4",
    feedback={
        "equal": "The scores form an S × S grid, one entry per query-key pair: doubling S doubles both sides "
        "(4× the entries, each a d_head-term dot product, so 4× the MACs). d_head only lengthens each dot "
        "product: 2× the MACs, the same S × S entries.",
        "s4": "QKᵀ is S × S dot products of d_head terms: S² × d_head MACs (16.8 M at 512 and 64), and S² "
        "stored entries. Doubling S gives 4× the MACs and 4× the scores; doubling d_head 2× the MACs and "
        "not one more score. S enters squared, d_head once and not at all in what is stored: a long "
        "context costs memory, a wide head only arithmetic.",
        "d4": "d_head appears once in S² × d_head and not at all in the S × S score matrix; S appears twice. "
        "Doubling S is the 4× case, for the MACs and the storage alike.",
        "macs": "A score is kept for every query-key pair, not per token: S × S entries, so doubling S "
        "quadruples them, while doubling d_head leaves them unchanged (and doubles the MACs).",
    },
    reveals=("16,777,216", "16.8 M MACs", "S² × d_head"),
    asks="behaviour",
    misconceptions={
        "d4": (
            "the head width sets the score matrix",
            "Wider heads store larger score matrices",
        ),
        "equal": (
            "all sizes scale alike",
            "Doubling any dimension of attention doubles everything it costs",
        ),
        "macs": (
            "one score per token",
            "Attention keeps one score per token, so its scores grow linearly with S",
        ),
    },
)
A_SEQ = Slider("Sequence length S", 128, 8192, 512, step=128)
A_D_HEAD = Slider("Head dimension d_head", 16, 256, 64, step=16)
A_PRECISION = Choice(
    "Score precision", {"fp32": "FP32 (4 B)", "fp16": "FP16 (2 B)", "fp8": "FP8 (1 B)"}, "fp16"
)


def head_gemms(seq: int, d_head: int) -> tuple[L.Dense, L.Dense]:
    """One head's two GEMMs as dense layers: QKᵀ is S query rows times a (d_head x S) key matrix,
    PV is S probability rows times an (S x d_head) value matrix."""
    qk = L.Dense(in_features=d_head, out_features=seq, tokens=seq, bias=False)
    pv = L.Dense(in_features=seq, out_features=d_head, tokens=seq, bias=False)
    return qk, pv


@widget_args
def part_a(seq: int, d_head: int, precision: str) -> View:
    import plotly.graph_objects as go

    s, dh = int(seq), int(d_head)
    head = L.Attention(d_model=dh, n_heads=1, seq_len=s)
    qk, pv = head_gemms(s, dh)
    score_b = head.score_bytes(1, precision)
    grid = [128 * 2**k for k in range(7)]

    fig = figure(
        f"One head: score GEMM and score matrix vs S (d_head = {dh})",
        "Sequence length S",
        "MACs or bytes (log scale)",
        log_x=True,
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(
            x=grid, y=[head_gemms(n, dh)[0].macs() for n in grid], name="QKᵀ MACs", mode="lines"
        )
    )
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[
                L.Attention(d_model=dh, n_heads=1, seq_len=n).score_bytes(1, precision)
                for n in grid
            ],
            name=f"score bytes ({precision.upper()})",
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[s, s],
            y=[qk.macs(), score_b],
            name="your setting",
            mode="markers",
            marker=dict(size=12, symbol="diamond"),
        )
    )
    # the chapter's points lie on the lines only at its d_head (64) and precision (FP16): drawn there
    ch_macs = head_gemms(S_LISTING7, D_HEAD_LISTING7)[0].macs()
    ch_bytes = L.Attention(d_model=HEAD_DIM, n_heads=1, seq_len=S_SELF).score_bytes(1, PRECISION)
    marks = []
    if dh == D_HEAD_LISTING7:
        marks.append((S_LISTING7, ch_macs, f"16.8 M MACs at S = {S_LISTING7:,} (d_head 64)"))
    if precision == PRECISION:
        marks.append((S_SELF, ch_bytes, f"33.6 MB at S = {S_SELF:,} (FP16)"))
    if marks:
        fig.add_trace(
            go.Scatter(
                x=[m[0] for m in marks],
                y=[m[1] for m in marks],
                name="chapter: " + "; ".join(m[2] for m in marks),
                mode="markers",
                marker=dict(
                    size=17, symbol="circle-open", line=dict(width=2)
                ),  # rings: "your setting" shows inside
            )
        )

    scale = math.sqrt(head.d_head)
    cards = [
        Card("Scores per head", fmt_count(head.score_elements), f"{s:,} × {s:,}"),
        Card("QKᵀ MACs", fmt_count(qk.macs()), f"S² × d_head = {s:,}² × {dh}"),
        Card("PV MACs", fmt_count(pv.macs()), "the same again for the values"),
        Card(
            "Score matrix",
            fmt_bytes(score_b),
            f"{precision.upper()}, one head, one layer",
            "warn" if score_b > 10**7 else "",
        ),
        Card(
            "Score scale", f"1/{scale:,.2f}", f"1/√d_head: a {dh}-term dot product spreads as √{dh}"
        ),
    ]
    summary = (
        f"Each of the {s:,} queries is scored against all {s:,} keys, and each score is a {dh}-term dot "
        f"product: QKᵀ costs {qk.macs():,} MACs and PV as many again ({head.macs():,} MACs in all, "
        f"{head.flops():,} FLOPs at 1 MAC = 2 FLOPs). Kept in {precision.upper()}, the {s:,} × {s:,} "
        f"matrix takes {fmt_bytes(score_b)} for this one head. Dividing by √d_head = {scale:,.2f} only "
        f"keeps the scores' size in check before softmax; it changes neither count."
    )
    peek = [
        f"QKᵀ MACs = S × S × d_head = {s:,} × {s:,} × {dh} = {qk.macs():,}",
        f"PV  MACs = S × S × d_head = {pv.macs():,}   (core total: {head.macs():,})",
        f"scores   = S² × bytes = {s:,}² × {float(U.bytes_per_value(precision)):g} B = {score_b:,} B = {fmt_bytes(score_b)}",
        "scale    = 1/√d_head: with unit-variance q and k, q·k has variance d_head; the scale restores ~1",
        "FLOPs = 2 × MACs; GB = 1e9 B",
    ]
    return View(fig, cards, summary, "One head", peek)


# ---------------------------------------------------------------------------------------------
# Part B: doubling the context (checkpoint 6.4)
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "One attention layer with d_model = 768 runs as 12 heads of 64 at 4,096 tokens and stores its "
        "FP16 scores. Split the same 768 into 24 heads of 32 instead. The score memory and the score "
        "MACs…"
    ),
    options={
        "same": "Both stay the same: d_model, and so the work, is unchanged",
        "mem2": "The scores double, the MACs stay: every head has its own S × S matrix",
        "both2": "Both double: twice the heads do twice the attention",
        "half": "The scores stay, the MACs halve: each dot product is half as long",
    },
    answer="mem2",
    feedback={
        "same": "The MACs do stay (heads × S² × d_head = S² × d_model), but the scores do not: every head "
        "keeps its own S × S matrix, so 24 heads keep 805.3 MB where 12 kept 402.7 MB.",
        "mem2": "heads × S² × 2 B: 402.7 MB → 805.3 MB. The MACs are heads × S² × d_head = S² × d_model, "
        "unchanged. More, narrower heads cost memory, not arithmetic. (The controls below keep each head "
        "64 wide, so there more heads also widen the layer and add MACs.)",
        "both2": "Each head's dot products are half as long (32 terms, not 64): twice the heads do the "
        "same MACs. Only the stored scores, one S × S matrix per head, double.",
        "half": "There are twice as many dot products of half the length: the MACs stay; the score "
        "matrices, one per head, double.",
    },
    reveals=("805.3 MB", "its own scores", "one score matrix per head", "own S × S"),
    asks="behaviour",
    misconceptions={
        "same": (
            "same width, same cost",
            "Splitting a fixed d_model into more heads changes nothing the layer keeps",
        ),
        "both2": (
            "cost follows the head count",
            "Each head is a full attention, so twice the heads do twice the work",
        ),
        "half": (
            "narrower heads do less work",
            "Halving the head width halves the arithmetic of the whole layer",
        ),
    },
)
B_SEQ = Slider("Context S (tokens)", 512, 131072, 4096, step=512)
B_HEADS = Slider("Attention heads", 1, 64, 12)
B_LAYERS = Slider("Layers whose scores are kept (training)", 1, 96, 32)


@widget_args
def part_b(seq: int, heads: int, layers: int) -> View:
    import plotly.graph_objects as go

    s, h, n_layers = int(seq), int(heads), int(layers)
    d = h * HEAD_DIM
    att = L.Attention(d_model=d, n_heads=h, seq_len=s)
    dbl = L.Attention(d_model=d, n_heads=h, seq_len=2 * s)
    score_b = att.score_bytes(1, PRECISION)
    grid = sorted({512 * 2**k for k in range(9)} | {S_NAPKIN})

    def layer_bytes(n, heads_=h):
        return L.Attention(d_model=heads_ * HEAD_DIM, n_heads=heads_, seq_len=n).score_bytes(
            1, PRECISION
        )

    fig = figure(
        f"FP16 score memory vs context ({counted(h, 'head')})",
        "Context S (tokens)",
        "Bytes (log scale)",
        log_x=True,
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(x=grid, y=[layer_bytes(n) for n in grid], name="one layer", mode="lines")
    )
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[n_layers * layer_bytes(n) for n in grid],
            name=f"{counted(n_layers, 'layer')} kept",
            mode="lines",
            line=dict(dash="dash"),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[s],
            y=[score_b],
            name="your setting",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )
    ch = [S_SELF, S_DOUBLE, S_NAPKIN]
    fig.add_trace(
        go.Scatter(
            x=ch,
            y=[layer_bytes(n, SELF_HEADS) for n in ch],
            name="chapter, 12 heads: 402.7 MB, 1.61 GB, 240 GB",
            mode="markers",
            marker=dict(
                size=17, symbol="circle-open", line=dict(width=2)
            ),  # rings: "your setting" shows inside
        )
    )
    # no device lines here: where one layer's scores meet a device is Part C's search

    h100 = HW.Hardware.get("H100").memory.capacity.m_as("B")
    kept = n_layers * score_b
    held_b = att.held_score_bytes(1, PRECISION)  # logits + probabilities, one number
    ctx = dict(seq_len=s, heads=h, precision=PRECISION)
    cards = [
        Card(
            LABELS["score_bytes"].capitalize(),
            fmt_bytes(score_b),
            f"one layer: {h} × {s:,}² × 2 B",
            "bad" if score_b > h100 else "",
            fact=fact("score_bytes", score_b, **ctx),
        ),
        Card(
            LABELS["held_score_bytes"].capitalize(),
            fmt_bytes(held_b),
            f"one layer at inference: {att.SCORE_COPIES} copies",
            "bad" if held_b > h100 else "",
            fact=fact("held_score_bytes", held_b, **ctx),
        ),
        Card(
            f"{counted(n_layers, 'layer')} kept",
            fmt_bytes(kept),
            "what naive training retains for backward",
            "bad" if kept > h100 else "warn",
        ),
        Card(
            f"At {2 * s:,} tokens",
            fmt_bytes(dbl.score_bytes(1, PRECISION), 2),
            f"{fmt_ratio(dbl.score_bytes(1, PRECISION) / score_b, 0)} the memory",
        ),
        Card(
            "Score GFLOP per layer",
            f"{att.flops() / 1e9:,.1f} → {dbl.flops() / 1e9:,.1f}",
            f"{fmt_ratio(dbl.flops() / att.flops(), 0)} at 2S (QKᵀ + PV)",
        ),
    ]
    napkin = L.Attention(d_model=NAPKIN_HEADS * HEAD_DIM, n_heads=NAPKIN_HEADS, seq_len=S_NAPKIN)
    summary = (
        f"At {s:,} tokens and {counted(h, 'head')} one layer's FP16 scores take {fmt_bytes(score_b)}; keeping "
        f"{counted(n_layers, 'layer')} for the backward pass takes {fmt_bytes(kept)}. Doubling to {2 * s:,} tokens "
        f"makes both {dbl.score_elements // att.score_elements}× larger, and the score FLOPs too. At "
        f"Napkin Math 6.1's 100,000 tokens (12 heads) one layer needs "
        f"{fmt_bytes(napkin.score_bytes(1, PRECISION), 0)}."
    )
    peek = [
        f"scores/layer = heads × S² × 2 B = {h} × {s:,}² × 2 = {score_b:,} B = {fmt_bytes(score_b)}",
        f"kept layers  = {n_layers} × {fmt_bytes(score_b)} = {fmt_bytes(kept)}",
        f"2S: heads × (2S)² × 2 B = 4 × {fmt_bytes(score_b, 2)} = {fmt_bytes(dbl.score_bytes(1, PRECISION), 2)}",
        f"FLOPs/layer  = 2 × (2 × S² × d) = {att.flops():,}  (d = heads × {HEAD_DIM} = {d:,})",
        "context growth: product windows went from 2K tokens past 128K toward 1M in a few years; one "
        "12-head layer's FP16 scores at "
        + ", ".join(f"{n:,} tokens: {fmt_bytes(_scores(n))}" for n in CONTEXT_GROWTH),
        f"Example 6.4: BERT-base learned {BERT_POSITIONS} positions; at {BERT_LONG:,} tokens its 12 heads' "
        f"scores are {_scores(BERT_LONG) / _scores(BERT_POSITIONS):.0f}× the {BERT_POSITIONS}-token figure "
        f"({fmt_bytes(_scores(BERT_POSITIONS))} → {fmt_bytes(_scores(BERT_LONG))} per layer)",
        f"Napkin 6.1: 12 × 100,000² × 2 B = {fmt_bytes(napkin.score_bytes(1, PRECISION), 0)}; × 32 layers = "
        f"{NAPKIN_LAYERS * napkin.score_bytes(1, PRECISION) / 1e9:,.0f} GB (GB = 1e9 B)",
    ]
    return View(fig, cards, summary, "Quadratic growth", peek)


#: context windows the chapter names (2K at launch, 128K, the 1M-token range; L1075)
CONTEXT_GROWTH = (2_048, 131_072, 1_000_000)
#: Example 6.4 (L1083): BERT's 512 learned positions against a 4,096-token input
BERT_POSITIONS, BERT_LONG = 512, 4_096


def _scores(seq: int) -> int:
    """FP16 score bytes of one 12-head, d = 768 attention layer at ``seq`` tokens."""
    return L.Attention(
        d_model=NAPKIN_HEADS * HEAD_DIM, n_heads=NAPKIN_HEADS, seq_len=seq
    ).score_bytes(1, PRECISION)


# ---------------------------------------------------------------------------------------------
# Part C: the longest context whose scores fit a device (searched, not solved)
# ---------------------------------------------------------------------------------------------


def largest_fitting(fits: Callable[[int], bool], start: int = 1024) -> int:
    """Largest integer S >= 1 with ``fits(S)`` true, for a ``fits`` that is true up to some length
    and false beyond it: doubling to bracket the edge, then bisection. 0 if even S = 1 fails."""
    if not fits(1):
        return 0
    lo, hi = 1, max(2, start)
    while fits(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


@lru_cache(maxsize=256)
def longest_scores(shape: str, capacity_bytes: float) -> int:
    """Longest context whose one-layer FP16 score matrix fits ``capacity_bytes`` (Figure 14's test)."""
    return largest_fitting(lambda s: _att(shape, s).score_bytes(1, PRECISION) <= capacity_bytes)


@lru_cache(maxsize=256)
def longest_live(shape: str, device: str, flash: bool) -> int:
    """Longest context for which the engine finds the attention core's live tensors (Q, K, V, the
    output and, unless tiled, logits and probabilities) feasible on ``device``."""
    dev = HW.Hardware.get(device)
    return largest_fitting(
        lambda s: E.Engine.solve(_att(shape, s, flash), dev, precision=PRECISION).feasible
    )


def figure14_check() -> dict[str, int]:
    """Figure 14's claim recomputed: GPT-2 XL's shape (25 heads), FP16, one layer's scores."""
    gb80 = HW.Hardware.get("H100").memory.capacity.m_as("B")
    return {
        "gb": longest_scores("gpt2xl", gb80),
        "gib": longest_scores("gpt2xl", U.Q_(FIG14_CAPACITY).m_as("B")),
        "quoted_bytes": _att("gpt2xl", FIG14_QUOTED).score_bytes(1, PRECISION),
    }


PRED_C = Prediction(
    question=(
        "On an 80 GB H100, one 12-head attention layer (d = 768) can keep its FP16 score matrix up to "
        "about 58,000 tokens. Run it with FlashAttention instead, which never stores the scores. The "
        "longest context at which its attention core fits…"
    ),
    options={
        "far": "Grows many times over: what it still stores grows only in step with S",
        "same": "Stays about the same: every one of the S² scores is still computed",
        "unlimited": "Has no limit any more: with the scores gone, nothing it keeps grows with S",
        "shrinks": "Shrinks a little: each tile keeps its own copies of K and V",
    },
    answer="far",
    feedback={
        "far": "Without the S × S matrices the core keeps Q, K, V and the output: 4 × S × d values, "
        "6,144 B per token at d = 768 in FP16. The 80 GB then holds about 13 million tokens, over 200× "
        "the 57,735 the scores allowed. Memory stops being the limit; time takes over: at that length "
        "the S² arithmetic alone takes about 18 minutes for one layer (the FlashAttention card below).",
        "same": "Computing a score is not keeping it: FlashAttention computes all S² of them tile by tile "
        "in on-chip memory and discards each tile after using it. What stays grows linearly: about 13 "
        "million tokens fit, not 58,000.",
        "unlimited": "Q, K, V and the output are still S × d each: 6,144 B per token here. They are "
        "linear, not gone: the 80 GB runs out near 13 million tokens.",
        "shrinks": "The tiles live in on-chip SRAM and are reused, not kept: main memory holds one copy "
        "of Q, K, V and the output. The context that fits grows over 200×, to about 13 million tokens.",
    },
    reveals=("13 million tokens", "13,020,833", "over 200×"),
    asks="behaviour",
    misconceptions={
        "same": (
            "computing a score means storing it",
            "Every value a kernel computes must be kept in main memory",
        ),
        "unlimited": (
            "FlashAttention stores nothing",
            "With the scores gone, attention's memory no longer depends on the context",
        ),
        "shrinks": (
            "tiling costs memory",
            "Working tile by tile keeps extra copies of the inputs in main memory",
        ),
    },
)
C_DEVICE = Choice(
    "Device",
    catalogue.labels(["H100", "A100_40GB", "JetsonOrinNX", "iPhone15Pro"]),
    "H100",
    inline=False,
)
C_SHAPE = Choice("Model shape", SHAPE_LABELS, "napkin", inline=False)
C_WHAT = Choice(
    "What must fit",
    {
        "scores": "One layer's score matrix (Figure 14's test)",
        "live": "All of one attention core's live tensors (engine)",
    },
    "scores",
    inline=False,
)


@widget_args
def part_c(device: str, shape: str, what: str) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(device)
    cap = dev.memory.capacity.m_as("B")
    d, h = SHAPES[shape]
    best = longest_scores(shape, cap) if what == "scores" else longest_live(shape, device, False)
    flash_best = longest_live(shape, device, True)
    flash_solve = E.Engine.solve(_att(shape, flash_best, True), dev, precision=PRECISION)
    fig14 = figure14_check()

    grid = [1024 * 2**k for k in range(9)]
    fig = figure(
        f"When one layer outgrows the {device_label(dev)} ({counted(h, 'head')}, FP16)",
        "Context S (tokens)",
        "Bytes (log scale)",
        log_x=True,
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[_att(shape, n).score_bytes(1, PRECISION) for n in grid],
            name="one layer's score matrix",
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[
                E.Engine.solve(_att(shape, n), dev, precision=PRECISION).memory_footprint_bytes
                for n in grid
            ],
            name="core's live tensors (engine)",
            mode="lines",
            line=dict(dash="dash"),
        )
    )
    memory_lines(fig, [dev], unit="B")
    at_best = (
        (
            _att(shape, best).score_bytes(1, PRECISION)
            if what == "scores"
            else E.Engine.solve(_att(shape, best), dev, precision=PRECISION).memory_footprint_bytes
        )
        if best
        else 0
    )
    if best:
        fig.add_trace(
            go.Scatter(
                x=[best],
                y=[at_best],
                name=f"longest that fits: {best:,}",
                mode="markers",
                marker=dict(size=13, symbol="diamond"),
            )
        )
    if shape == "gpt2xl":
        hline(
            fig,
            U.Q_(FIG14_CAPACITY).m_as("B"),
            "80 GiB: the physical HBM, Figure 14's 41,000",
            dash="dot",
            position="bottom right",
        )

    what_txt = (
        "one layer's score matrix fits"
        if what == "scores"
        else "the core's live tensors (Q, K, V, output, logits, probabilities) fit"
    )
    cards = [
        Card(
            "Longest context that fits",
            f"{best:,} tokens",
            f"{'scores' if what == 'scores' else 'live tensors'} ≤ {fmt_bytes(cap)}",
            "warn",
        ),
        Card(
            "Same core, FlashAttention",
            f"{flash_best:,} tokens",
            f"one layer, batch 1, live tensors only; at that length its arithmetic alone takes "
            f"{flash_solve.latency_compute_s:,.0f} s ({flash_solve.latency_compute_s / 60:,.0f} min) at "
            f"η = {flash_solve.efficiency:g}",
            "ok",
        ),
        Card(
            "Figure 14 (GPT-2 XL, 25 heads)",
            f"{fig14['gb']:,} / {fig14['gib']:,}",
            "longest S for 80 × 10⁹ B (registry) / 80 GiB (physical HBM); chapter: near 41,000",
            "warn",
        ),
        Card(
            "41,000 tokens, one layer",
            fmt_bytes(fig14["quoted_bytes"], 2),
            "over 80 × 10⁹ B, under 80 GiB (85.90 GB)",
            "warn",
        ),
    ]
    summary = (
        f"With {counted(h, 'head')} (d = {d:,}) in FP16, {what_txt} the {device_label(dev)}'s {fmt_bytes(cap)} up to "
        f"{best:,} tokens; one token more and it does not. The edge sits at √capacity because memory "
        f"grows as S². Figure 14 puts GPT-2 XL's edge 'near 41,000 tokens'. An '80 GB' H100 or A100 "
        f"physically carries 80 GiB of HBM (85.9 × 10⁹ B), which one layer's scores fill at "
        f"{fig14['gib']:,} tokens: the chapter's number. The registry plans with the datasheet's 80 GB "
        f"read as 80 × 10⁹ B, a conservative figure that fills at {fig14['gb']:,}; 41,000 tokens need "
        f"{fmt_bytes(fig14['quoted_bytes'], 2)}, over the planning figure but inside the physical memory. "
        "The unit alone moves the edge by 3.6%."
    )
    peek = [
        f"fits(S): heads × S² × 2 B ≤ capacity = {cap:,.0f} B"
        if what == "scores"
        else f"fits(S): Engine.solve(Attention(S)).feasible, live = (Q+K+V+O) + 2 × heads × S², × 2 B ≤ {cap:,.0f} B",
        f"search: double S until it does not fit, then bisect → S = {best:,}",
        f"check:  {h} × {best:,}² × 2 = {_att(shape, best).score_bytes(1, PRECISION) if best else 0:,} B"
        + (" (fits); " if what == "scores" else " (scores alone; the live total fits); ")
        + f"{h} × {best + 1:,}² × 2 = {_att(shape, best + 1).score_bytes(1, PRECISION):,} B"
        + ("" if what == "scores" else " (scores alone)"),
        f"Figure 14: 25 × S² × 2 B ≤ 80 GB (80 × 10⁹ B, registry) → {fig14['gb']:,};  ≤ 80 GiB (85.9 × 10⁹ B, "
        f"the HBM's physical size) → {fig14['gib']:,}",
        "GB = 1e9 B, GiB = 2³⁰ B: 80 GiB is 7.4% more bytes, and √1.074 = 1.036 is the 40,000 vs 41,448 gap",
    ]
    return View(fig, cards, summary, "Searching for the edge", peek)


# ---------------------------------------------------------------------------------------------
# Part D: what FlashAttention changes (bytes and live memory, not FLOPs)
# ---------------------------------------------------------------------------------------------

PRED_D = Prediction(
    question=(
        "At 8,192 tokens on the H100, the textbook attention core (12 heads, d = 768, FP16, kernels at "
        "half the peak FLOP/s) writes and reads its score matrices in main memory. FlashAttention "
        "computes the same scores tile by tile on chip and moves about 130× fewer bytes. Its time…"
    ),
    options={
        "bytes": "Falls about 130×: attention's time is set by the bytes it moves",
        "compute": "Falls several times, no more: the same arithmetic now binds",
        "linear": "Falls over 130×: tiling also makes the work linear in S",
        "same": "Stays the same: the same FLOPs take the same time",
    },
    answer="compute",
    feedback={
        "bytes": "Only while memory binds. Moving 130× fewer bytes takes the memory time from 1.95 ms to "
        "15 µs, far below the 0.42 ms the S² arithmetic needs: the kernel is 4.6× faster and now bound "
        "by compute.",
        "compute": "1.95 ms → 0.42 ms: 4.6× faster, not 130×. The textbook kernel was bound by moving its "
        "scores; FlashAttention removes that traffic, and the same 206 GFLOP (the FLOPs stay O(S²)) now "
        "set the time. Tiling moves attention from the memory roof to the compute roof; it does not "
        "change the arithmetic. That is why FlashAttention's authors measured a few times, 2–4×, in "
        "whole training runs on the authors' GPUs, not the hundredfold cut in bytes.",
        "linear": "Tiling changes where the scores live, not how many are computed: every query still meets "
        "every key, S² dot products, 206 GFLOP here as before. The time falls 4.6×, to the compute roof.",
        "same": "The FLOPs are the same, but the textbook kernel was not waiting on them: it was bound by "
        "its score traffic (1.95 ms). Without that traffic it takes 0.42 ms, 4.6× less.",
    },
    reveals=("FLOPs stay O(S²)", "4.6× faster", "to the compute roof"),
    asks="regime",
    misconceptions={
        "bytes": (
            "attention is always memory-bound",
            "Attention's time falls in proportion to the bytes a kernel saves",
        ),
        "linear": (
            "FlashAttention is linear",
            "Tiled attention does O(S) arithmetic instead of O(S²)",
        ),
        "same": ("time follows FLOPs", "Two kernels with the same FLOPs take the same time"),
    },
)
D_SEQ = Slider("Context S (tokens)", 1024, 131072, 8192, step=1024)
#: Mistral 7B's sliding window (Jiang et al. 2023, 'Mistral 7B', section 2: W = 4096; the
#: ``sliding_window`` of mistralai/Mistral-7B-v0.1's config.json, shipped in mlsysim/configs).
SPARSE_WINDOW = 4096
D_SHAPE = Choice("Model shape", SHAPE_LABELS, "napkin", inline=False)
D_DEVICE = Choice(
    "Device",
    catalogue.labels(["H100", "A100", "JetsonOrinNX"]),
    "H100",
)
D_FLASH = Toggle("Run FlashAttention (tiled; scores never stored)", False)
#: Query rows per tile: FlashAttention-2 uses blocks of 64 or 128 rows (Dao 2023, "FlashAttention-2",
#: Sec. 3.3, https://arxiv.org/abs/2307.08691). Each tile streams all of K and V unless the cache keeps them.
Q_TILE = 128


@lru_cache(maxsize=1024)
def _solve(shape: str, seq: int, flash: bool, device: str):
    return E.Engine.solve(_att(shape, seq, flash), device, precision=PRECISION)


@widget_args
def part_d(seq: int, shape: str, device: str, flash: bool) -> View:
    import plotly.graph_objects as go

    s, f = int(seq), bool(flash)
    dev = HW.Hardware.get(device)
    std, fl = _solve(shape, s, False, device), _solve(shape, s, True, device)
    mine = fl if f else std
    grid = [1024 * 2**k for k in range(8)]

    fig = figure(
        f"Attention core on the {device_label(dev)}: the two terms of the roofline",
        "Context S (tokens)",
        "Time (s, log scale)",
        log_x=True,
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[_solve(shape, n, False, device).latency_compute_s for n in grid],
            name="compute term (both kernels)",
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[_solve(shape, n, False, device).latency_memory_s for n in grid],
            name="memory term, scores materialized",
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[_solve(shape, n, True, device).latency_memory_s for n in grid],
            name="memory term, FlashAttention",
            mode="lines",
            line=dict(dash="dash"),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[s],
            y=[mine.latency_s],
            name="your kernel: total latency",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )

    d, h = SHAPES[shape]
    low = fl.bytes_moved
    reread = _att(shape, s, True).tiled_bytes(1, PRECISION, Q_TILE)
    cards = [
        Card(
            "GFLOP",
            f"{std.flops / 1e9:,.1f}",
            "identical with FlashAttention" if std.flops == fl.flops else "differ",
            "ok",
        ),
        Card(
            "Bytes moved",
            f"{fmt_bytes(std.bytes_moved)} → {fmt_bytes(low)}",
            f"tiled: a lower bound, {fmt_ratio(std.bytes_moved / low)} less (K and V read once)",
        ),
        Card(
            f"Tiled, K and V re-read per {Q_TILE}-row tile",
            fmt_bytes(reread),
            f"{fmt_ratio(std.bytes_moved / reread)} less than materialized, if no cache keeps K and V",
            "warn",
        ),
        Card(
            "Latency",
            f"{fmt_time(std.latency_s)} → {fmt_time(fl.latency_s)}",
            f"{bound_phrase(std.bottleneck)} → {bound_phrase(fl.bottleneck)}, FlashAttention at its "
            "lower bound on bytes (K and V read once)",
        ),
        Card(
            "Live memory",
            f"{fmt_bytes(std.memory_footprint_bytes)} → {fmt_bytes(fl.memory_footprint_bytes)}",
            "materialized → tiled",
            "ok" if mine.feasible else "bad",
        ),
    ]
    summary = (
        "FlashAttention is an exact, IO-aware kernel: it returns the same output as the textbook "
        "computation, block by block in on-chip memory. "
        f"At {s:,} tokens ({counted(h, 'head')}, d = {d:,}) both kernels do the same {std.flops / 1e9:,.1f} GFLOP. "
        f"Materializing the scores moves {fmt_bytes(std.bytes_moved)} ({bound_phrase(std.bottleneck)}, "
        f"{fmt_time(std.latency_s)}); FlashAttention moves at least "
        f"{fmt_bytes(fl.bytes_moved)} ({bound_phrase(fl.bottleneck)}, {fmt_time(fl.latency_s)}), and up to {fmt_bytes(reread)} if every "
        f"{Q_TILE}-row tile re-reads K and V from memory. The compute line is the same for "
        f"both and still grows as S²: tiling removes storage and traffic, not arithmetic."
    )
    peek = [
        f"FLOPs = 2 × (QKᵀ + PV MACs) = 4 × S² × d = 4 × {s:,}² × {d:,} = {std.flops:,.0f}  (both)",
        f"bytes, materialized = (Q+K+V+O) + 4 × heads × S² × 2 B (logits and probabilities, each written and read once) → {fmt_bytes(std.bytes_moved)}",
        f"bytes, tiled (lower bound) = Q + K + V + O, each once → {fmt_bytes(low)}  (the engine's count)",
        f"bytes, tiled, K and V re-read = Q + O + ⌈S / {Q_TILE}⌉ × (K + V) = (2Sd + {-(-s // Q_TILE)} × 2Sd) × 2 B → {fmt_bytes(reread)}",
        f"t = max(FLOPs / (peak × η), bytes / BW) + kernels × dispatch_tax;  peak = {dev.compute.peak(PRECISION):~P} "
        f"(fp16, dense), η = {std.efficiency:g}, BW = {dev.memory.bandwidth:~P}",
        f"kernels: {_att(shape, s).kernels} (QKᵀ, softmax, PV) materialized vs {_att(shape, s, True).kernels} fused; "
        "GB = 1e9 B",
        f"sparse attention cuts the interactions, tiling the storage: a causal sliding window of "
        f"{SPARSE_WINDOW:,} keys (Mistral 7B's) needs {L.attention_interactions(s, SPARSE_WINDOW):,} query-key "
        f"pairs at S = {s:,}, {L.attention_interactions(s, SPARSE_WINDOW) / s**2:.1%} of the S² = {s**2:,} "
        "scores a dense kernel computes, FlashAttention included",
    ]
    sp_lo, sp_hi = PUB.FLASHATTENTION_SPEEDUP.value
    ls_lo, ls_hi = PUB.FLASHATTENTION_LONGER_SEQUENCES.value
    cards.append(
        Card(
            "Measured (Dao et al. 2022)",
            f"{sp_lo:g}–{sp_hi:g}× faster, {ls_lo:g}–{ls_hi:g}× longer sequences",
            f"whole training runs on the authors' GPUs; the attention core alone here: "
            f"{fmt_ratio(std.latency_s / fl.latency_s)} faster, "
            f"{fmt_ratio(std.memory_footprint_bytes / fl.memory_footprint_bytes)} less live memory",
        )
    )
    peek.append(
        f"measured: {sp_lo:g}–{sp_hi:g}× wall-clock and {ls_lo:g}–{ls_hi:g}× longer training sequences "
        f"(Dao et al. {PUB.FLASHATTENTION_SPEEDUP.year}, {PUB.FLASHATTENTION_SPEEDUP.url})"
    )
    alert = feasibility(
        mine.memory_footprint_bytes,
        dev,
        f"This attention core ({'FlashAttention' if f else 'materialized scores'}, {s:,} tokens)",
    )
    return View(fig, cards, summary, "Bytes, not FLOPs", peek, alert)


# ---------------------------------------------------------------------------------------------
# Transfer questions: one case per part that its controls cannot reach
# ---------------------------------------------------------------------------------------------

TRANSFER_A = Prediction(
    question=(
        "A sliding-window head (as in Mistral 7B) lets each query see only the 4,096 keys before it. "
        "Double the context from 32,768 to 65,536 tokens. Its score MACs and stored scores…"
    ),
    options={
        "x2": "Double: each new token brings the same fixed window of work",
        "x4": "Quadruple: attention always costs the context squared",
        "same": "Stay the same: the window fixes the work",
    },
    answer="x2",
    feedback={
        "x2": "With a window W each of the S queries meets W keys: S × W scores and S × W × d_head MACs. "
        "At d_head = 64 that is 8.6 G MACs at 32,768 tokens and 17.2 G at 65,536: linear in S. Full "
        "attention would have gone 4×. The window buys linear cost with a limit on how far a token "
        "sees directly.",
        "x4": "S² comes from every query meeting every key. With a window each query meets 4,096 keys "
        "whatever the context, so the scores are S × 4,096 and double with S (8.6 G → 17.2 G MACs).",
        "same": "The window fixes the work per query, not the number of queries: twice the tokens, "
        "twice the 4,096-key rows (8.6 G → 17.2 G MACs).",
    },
    kind="transfer",
    reveals=("17.2 G", "linear in S"),
    asks="direction",
    misconceptions={
        "x4": (
            "attention is always quadratic",
            "Any attention layer's cost grows as the square of the context",
        ),
        "same": (
            "a window fixes the total",
            "A fixed window makes the whole layer's cost independent of the context",
        ),
    },
)

TRANSFER_B = Prediction(
    question=(
        "The same 12-head, 32-layer model now serves requests at 16,384 tokens: scores still "
        "materialized. How many layers' score matrices must be in memory at once?"
    ),
    options={
        "one": "One layer's: each layer's scores are freed once its output is out",
        "all": "All 32 layers': each layer's scores stay until the model's answer is out",
        "none": "None: inference computes the scores but never stores them",
    },
    answer="one",
    feedback={
        "one": "Layers run one after another, and nothing later reads a layer's scores: at inference "
        "they are freed as soon as that layer's output exists. The peak is one layer's: 6.4 GB of FP16 "
        "scores (13.0 GB with logits and probabilities live together), where keeping all 32 for a "
        "backward pass would take 206 GB.",
        "all": "Training keeps them because the backward pass reads them again. Inference never goes "
        "back: the engine counts the peak over layers, one layer's 13.0 GB, not 32 of them.",
        "none": "Materialized scores are written to memory, then read by the softmax and by PV: one "
        "layer's 6.4 GB (FP16) exists at a time. Only a fused kernel (FlashAttention) never stores them.",
    },
    kind="transfer",
    reveals=("freed as soon as", "peak is one layer"),
    asks="behaviour",
    misconceptions={
        "all": (
            "inference keeps what training keeps",
            "Every layer's activations stay in memory until the model's output is computed",
        ),
        "none": (
            "inference stores no intermediates",
            "Without a backward pass, a model never writes its scores to memory",
        ),
    },
)

TRANSFER_C = Prediction(
    question=(
        "Serve 4 documents at once (batch 4) on the same 80 GB H100 with the same 12-head layer, "
        "scores materialized. The longest context whose one-layer scores fit…"
    ),
    options={
        "half": "Halves: each document keeps its own S × S scores",
        "quarter": "Falls to a quarter: four documents take four times the memory",
        "same": "Stays the same: the scores belong to the layer, like its weights",
    },
    answer="half",
    feedback={
        "half": "Each document's queries meet its own keys: 4 × 12 × S² × 2 B must fit, so S² falls 4× "
        "and S 2×: 28,867 tokens against 57,735. Weights are shared by the batch; scores, like every "
        "activation, are per example.",
        "quarter": "The memory per token does not fall 4×: the scores grow as S², so a quarter of the "
        "memory per document allows half the context (28,867 against 57,735), not a quarter.",
        "same": "Weights are shared by every example; scores are computed from each example's own "
        "queries and keys, one set per document: 28,867 tokens fit, not 57,735.",
    },
    kind="transfer",
    reveals=("28,867",),
    asks="direction",
    misconceptions={
        "quarter": (
            "the context scales with the memory",
            "A quarter of the memory per document allows a quarter of the context",
        ),
        "same": (
            "scores are shared like weights",
            "A batch shares one score matrix, as it shares the weights",
        ),
    },
)

TRANSFER_D = Prediction(
    question=(
        "During generation, each new token's query attends to 65,536 cached keys and values (decode, "
        "batch 1, the same 12-head layer on the H100). At 8,192 tokens of prefill FlashAttention "
        "moved about 130× fewer bytes. Here it moves…"
    ),
    options={
        "few": "A few percent fewer: the scores are one row, and reading K and V dominates",
        "same": "About 130× fewer again: it still never stores the scores",
        "more": "Far more than 130× fewer: the context is 8× longer, so the scores are 64× larger",
    },
    answer="few",
    feedback={
        "few": "One query meets 65,536 keys: its scores are 12 rows of 65,536, 1.6 MB, written and read "
        "twice (6.3 MB of traffic), while the cached K and V are 201 MB, read once. FlashAttention saves "
        "the 6.3 MB: 3% of the traffic (207.6 MB against 201.3 MB). Decode is bound by reading the KV "
        "cache, which tiling does not shrink.",
        "same": "There is no S × S matrix at decode: one new query gives one row of scores per head. The "
        "traffic is the cached K and V (201 MB), which both kernels read: 207.6 MB against 201.3 MB.",
        "more": "The S² growth belongs to S queries meeting S keys. At decode there is one query: the "
        "scores grow only with the cache, and the cache itself dominates (201 MB of K and V against 6.3 MB "
        "of score traffic).",
    },
    kind="transfer",
    reveals=("3% of the traffic", "bound by reading the KV"),
    asks="estimate",
    misconceptions={
        "same": (
            "FlashAttention always saves the same",
            "FlashAttention cuts attention's traffic by the same factor in every phase",
        ),
        "more": (
            "decode still builds S × S scores",
            "A longer cache at decode means a quadratically larger score matrix",
        ),
    },
)

# ---------------------------------------------------------------------------------------------
# Part E: unmasked attention has no notion of order (why transformers need positional encodings;
# a decoder's causal mask already breaks the symmetry)
# ---------------------------------------------------------------------------------------------

PRED_E = Prediction(
    question=(
        "Feed the same 5 token vectors to one unmasked (bidirectional, encoder-style) self-attention head, "
        "first in their original order, then rotated by one place. No positional encodings are added. Each "
        "token's output…"
    ),
    options={
        "moves": "Is unchanged: it is only moved to the token's new position",
        "changes": "Changes: attention weights depend on where a token sits",
        "fixed": "Stays at the same position: outputs do not move with their tokens",
        "same": "Becomes the same for every token: attention averages the sequence",
    },
    answer="moves",
    feedback={
        "moves": "Q, K and V are computed row by row, so shuffling the tokens shuffles the scores on both axes and "
        "each token meets the same keys with the same weights. Unmasked attention is permutation-equivariant: "
        "it cannot tell 'dog bites man' from 'man bites dog' unless positions are added to the inputs. A "
        "decoder's causal mask already breaks the symmetry: a token sees only those before it, so moving it "
        "changes what it sees.",
        "changes": "Without a mask nothing in softmax(QKᵀ/√d)V refers to a position: the scores are dot products "
        "of token vectors. Order reaches unmasked attention only through positional encodings (a causal "
        "mask, which this head does not have, would also make position matter).",
        "fixed": "Each output row belongs to its token, not to a slot: when the token moves, its output moves "
        "with it, unchanged.",
        "same": "Each token weights the values by its own scores, so outputs differ from token to token; they "
        "just do not depend on order.",
    },
    reveals=("permutation-equivariant", "only moved"),
    asks="behaviour",
    misconceptions={
        "changes": (
            "attention knows positions",
            "Attention weights depend on where each token sits in the sequence",
        ),
        "fixed": (
            "outputs belong to slots",
            "Each output position keeps its value when the tokens are reordered",
        ),
        "same": (
            "attention averages everything",
            "Self-attention gives every token the same average of the sequence",
        ),
    },
)
E_SHIFT = Slider("Rotate the 5 tokens by (places)", 0, 4, 1)
E_POSITIONS = Toggle("Add sinusoidal positional encodings to the inputs", False)

#: Sizes of the order experiment (small on purpose: pure Python, in the browser) and the model
#: width whose fused QKV projection the part counts (GPT-2 small / BERT-base, the chapter's 768).
ORDER_TOKENS, ORDER_DIM, QKV_D_MODEL = 5, 4, 768
#: Figure 11's fused QKV projection runs on a 6-token sequence
FIG11_TOKENS = 6


@widget_args
def part_e(shift: int, positions: bool) -> View:
    import plotly.graph_objects as go

    from ... import order

    k, pe = int(shift), bool(positions)
    run = order.order_experiment(ORDER_TOKENS, ORDER_DIM, k, pe)
    names = [f"token {i + 1}" for i in range(ORDER_TOKENS)]
    fig = figure(
        f"One head's output (feature 1) per token, tokens rotated by {k}"
        + (" (positional encodings added)" if pe else " (no positions)"),
        "Token",
        "Output feature 1",
    )
    fig.add_trace(go.Bar(x=names, y=[r[0] for r in run["original"]], name="original order"))
    fig.add_trace(
        go.Bar(
            x=names, y=[r[0] for r in run["shuffled_back"]], name="rotated run, read back per token"
        )
    )
    fig.update_layout(barmode="group")

    fused = L.Dense(in_features=QKV_D_MODEL, out_features=3 * QKV_D_MODEL)
    fig11 = L.Dense(in_features=QKV_D_MODEL, out_features=3 * QKV_D_MODEL, tokens=FIG11_TOKENS)
    # the chapter's "3 × d² parameters per layer" (L855) counts the weights; the biases apart
    fused_weights = L.Dense(
        in_features=QKV_D_MODEL, out_features=3 * QKV_D_MODEL, bias=False
    ).params
    separate = 3 * L.Dense(in_features=QKV_D_MODEL, out_features=QKV_D_MODEL, bias=False).params
    same = run["max_diff"] < 1e-9
    masked = order.order_experiment(ORDER_TOKENS, ORDER_DIM, max(k, 1), pe, causal=True)["max_diff"]
    cards = [
        Card(
            "Largest change per token",
            f"{run['max_diff']:.2g}",
            "after undoing the rotation",
            "ok" if same else "warn",
        ),
        Card(
            "Verdict",
            "not rotated" if k == 0 else "moved, unchanged" if same else "changed",
            "rotate the tokens to test it"
            if k == 0
            else "equivariant"
            if same
            else "order now matters",
        ),
        Card(
            f"Causal mask, rotated by {max(k, 1)}",
            f"{masked:.2g}",
            "largest change in a decoder-style masked head: order matters",
            "warn",
        ),
        Card(
            f"Fused QKV projection, d = {QKV_D_MODEL}",
            f"{fused_weights:,} weights",
            f"3d² in one {QKV_D_MODEL} × {3 * QKV_D_MODEL:,} GEMM (three separate: {separate:,}); "
            f"+ {fused.params - fused_weights:,} biases",
        ),
    ]
    if k == 0:
        first = "Not rotated: both runs see the same input; move the slider to shuffle the tokens. "
    elif same:
        first = (
            f"Rotated by {k}, every token's output is the one it had before, only moved with it (the "
            + (
                "outputs match exactly). "
                if run["max_diff"] == 0
                else f"largest difference, {run['max_diff']:.2g}, is floating-point rounding). "
            )
        )
    else:
        first = (
            f"With positional encodings added, rotating the tokens changes their outputs by up to "
            f"{run['max_diff']:.2g}: the same token at another position is another input. "
        )
    summary = (
        first
        + "Unmasked (bidirectional, encoder) self-attention sees a set, not a sequence"
        + (
            # said once the toggle is on, where the chart shows it
            "; order enters it only through positional information: added to its inputs (sinusoidal, "
            "as here, or learned, as in GPT-2) or applied to queries and keys (rotary, as in Llama). "
            if pe
            else ". "
        )
        + "A decoder's causal mask already breaks the "
        f"symmetry: rotating by {max(k, 1)} through a masked head changes outputs by up to {masked:.2g}. Q, K "
        "and V come from three projections so that what a token looks for, what it is found by and what "
        f"it passes on can differ; fused, they are one GEMM with the same {fused_weights:,} weights (3d²)."
    )
    peek = [
        "out = softmax(Q Kᵀ / √d) V,  Q = X W_Q, K = X W_K, V = X W_V",
        "permute X's rows by P: Q, K, V → P Q, P K, P V;  scores → P S Pᵀ;  out → P out  (equivariant)",
        "positional encoding (Vaswani et al. 2017): PE(pos, 2i) = sin(pos / 10,000 to the power 2i/d), PE(pos, 2i+1) = cos(…)",
        f"this run: {ORDER_TOKENS} tokens × d = {ORDER_DIM}, seeded random weights; largest change = {run['max_diff']:.3g}",
        "W_Q = W_K would make the scores symmetric (i → j scores as j → i); separate projections allow asymmetry",
        f"fused QKV = d × 3d weights + 3d biases = {QKV_D_MODEL} × {3 * QKV_D_MODEL:,} + {3 * QKV_D_MODEL:,} = "
        f"{fused.params:,} (torch nn.MultiheadAttention's in_proj_weight is 3d × d)",
        f"Figure 11: {FIG11_TOKENS} tokens, ({FIG11_TOKENS} × {QKV_D_MODEL}) · ({QKV_D_MODEL} × {3 * QKV_D_MODEL:,}) = "
        f"{fig11.macs():,} MACs ({fmt_count(fig11.macs())}) for Q, K and V in one GEMM",
    ]
    return View(fig, cards, summary, "Order and projections", peek)


TRANSFER_E = Prediction(
    question=(
        "Jun's classifier averages the five outputs of this unmasked head into one vector (mean "
        "pooling), with no positional encodings. Shuffle the tokens, as 'dog bites man' becomes "
        "'man bites dog'. The pooled vector…"
    ),
    options={
        "same": "Is unchanged: the outputs only move, and an average ignores order",
        "differs": "Changes: the words now mean something else to the model",
        "slight": "Changes slightly: each token's attention shifts with its new neighbours",
    },
    answer="same",
    feedback={
        "same": "Each output moves with its token unchanged, and a mean does not care which slot holds "
        "what: the pooled vector is identical, to rounding. This classifier cannot tell 'dog bites man' "
        "from 'man bites dog'. Positional encodings (or a causal mask) are what let it.",
        "differs": "The model sees a set of token vectors: shuffled, it is the same set. Each token's "
        "output is unchanged, only moved, and their average is the same vector.",
        "slight": "A token's attention weights depend on the other tokens' keys, not on where they sit: "
        "its neighbours in the sequence are not its neighbours in the computation. Each output is the "
        "same, only moved, and so is their average, to rounding.",
    },
    kind="transfer",
    reveals=("pooled vector is identical",),
    asks="behaviour",
    misconceptions={
        "differs": (
            "the model reads meaning from order",
            "A sentence with another meaning always gives another representation",
        ),
        "slight": (
            "neighbours shift attention",
            "Moving a token next to other tokens changes what it attends to",
        ),
    },
)


# ---------------------------------------------------------------------------------------------
# Part F: routing by content (Bahdanau) vs a fixed window
# ---------------------------------------------------------------------------------------------

#: the sequence part F reads: the query is its last token
F_SEQ = 128

PRED_F = Prediction(
    question=(
        "In 'The trophy did not fit in the suitcase because it was too big', the token 'it' must fetch "
        "the noun it refers to. Move that noun from 3 tokens back to 100 tokens back. What happens to the "
        "weight one attention layer puts on it, and to the weight of a 7-token window?"
    ),
    options={
        "content": "Attention's holds, the window's drops to zero: routing by content",
        "both": "Both fall with distance: a far token always counts for less",
        "neither": "Both hold: a trained layer reaches whichever earlier token it needs",
    },
    answer="content",
    feedback={
        "content": "Attention scores every earlier token by how well its key matches the query, so the noun "
        "gets the same weight at any distance (96% here). A fixed window only sees its last 7 tokens: at "
        "100 tokens back it gives the noun nothing, and a stack of windows needs 17 layers before any "
        "output depends on it. That is what Bahdanau's attention gave translation: read by content, not by "
        "place.",
        "both": "Only the window loses it: at 100 tokens back the noun is outside its 7 positions and gets "
        "nothing. Attention's weight does not depend on distance at all: it comes from the match between "
        "the query and the noun's key, the same 96% at 3 or 100 tokens back.",
        "neither": "Training sets what a window does with the tokens it sees, not which tokens those are: a "
        "7-token window cannot see 100 tokens back, however it is trained (17 stacked layers first). "
        "Attention holds its 96% because its weights come from content.",
    },
    reveals=("17 layers", "same weight at any distance"),
    asks="behaviour",
    misconceptions={
        "both": (
            "attention fades with distance",
            "Like a recurrence or a window, attention weights distant tokens less",
        ),
        "neither": (
            "training picks what a layer can see",
            "A trained layer can reach any token, whatever its connectivity",
        ),
    },
)

TRANSFER_F = Prediction(
    question=(
        "A translation model reads a 40-word sentence. Instead of a window, the decoder gets one fixed-length "
        "summary vector of the whole sentence (the encoder-decoder design before attention). Which reader "
        "can give one source word nearly all of its weight at the step that translates it?"
    ),
    options={
        "attention": "Attention: its weights are recomputed from each step's query",
        "summary": "The summary: it already holds every word, so it needs no weights",
        "equal": "Neither does better: both read the same 40 words in the end",
    },
    answer="attention",
    feedback={
        "attention": "Attention recomputes its weights at every output step from that step's query, so the "
        "word being translated can take most of the weight (96% for a sharp match among 128 tokens in part "
        "F), while the fixed summary is the same vector at every step, squeezed from all 40 words. That "
        "fixed-length bottleneck is what Bahdanau's attention removed.",
        "summary": "The summary holds every word squeezed into one vector, the same at every step: no step "
        "can give its word more weight than another. Attention recomputes the weights from each step's "
        "query, so each step reads the word it needs.",
        "equal": "Both see 40 words, but only attention chooses among them per step: its weights come from "
        "the current query. The fixed summary gives every step the same mixture.",
    },
    kind="transfer",
    reveals=("recomputes its weights at every output step",),
    asks="behaviour",
    misconceptions={
        "summary": (
            "a summary keeps everything",
            "A fixed-length vector of a sentence holds every word as well as the words themselves",
        ),
        "equal": (
            "seeing is reading",
            "Any reader that has seen all the words can use any one of them equally well",
        ),
    },
)

F_DISTANCE = Slider("Tokens between 'it' and the noun it needs", 1, F_SEQ - 1, 3)
F_WINDOW = Choice("Window (tokens it sees, itself included)", {"3": "3", "7": "7", "15": "15"}, "7")
#: the distances the chart samples (every one is read exactly; the curves are flat or step)
F_CHART = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 15, 16, 20, 24, 32, 40, 48, 64, 80, 96, 112, 127)


@lru_cache(maxsize=8)
def _routing_curves(window: int) -> tuple[tuple[float, ...], ...]:
    from ... import routing

    rows = [routing.read(F_SEQ, d, window) for d in F_CHART]
    return tuple(tuple(getattr(r, k) for r in rows) for k in ("attention", "windowed", "fixed"))


@widget_args
def part_f(distance: int, window: str) -> View:
    import plotly.graph_objects as go

    from ... import routing

    d, w = int(distance), int(window)
    r = routing.read(F_SEQ, d, w)
    att, win, fixed = _routing_curves(w)
    fig = figure(
        f"Weight on the matching token, {F_SEQ}-token sequence, {w}-token window",
        "Tokens back to the match",
        "Weight on the match",
        log_x=True,
    )
    fig.add_trace(
        go.Scatter(x=list(F_CHART), y=list(att), name="attention (by content, every token)")
    )
    fig.add_trace(
        go.Scatter(x=list(F_CHART), y=list(win), name=f"windowed attention (by content, last {w})")
    )
    fig.add_trace(
        go.Scatter(x=list(F_CHART), y=list(fixed), name=f"fixed filter (by position, last {w})")
    )
    fig.add_trace(
        go.Scatter(
            x=[d, d, d],
            y=[r.attention, r.windowed, r.fixed],
            name="your setting",
            mode="markers",
            marker=dict(size=12, symbol="diamond"),
        )
    )
    fig.update_yaxes(range=[-0.05, 1.05], tickformat=".0%")
    inside = r.windowed > 0
    cards = [
        Card("Attention", f"{r.attention:.0%}", f"of its output from the match, {d} back", "ok"),
        Card(
            f"Window of {w}, by content",
            f"{r.windowed:.0%}",
            "the match is inside the window"
            if inside
            else "the match is outside: it sees nothing of it",
            "ok" if inside else "bad",
        ),
        Card(
            f"Window of {w}, fixed filter",
            f"{r.fixed:.0%}",
            f"1/{w} to each position, whatever it holds" if inside else "outside the window",
            "warn" if inside else "bad",
        ),
        Card(
            "Stacked windows to reach it",
            counted(r.window_layers, "layer"),
            f"each reaches {w - 1} tokens further back; attention: 1 layer",
        ),
        Card(
            "Scores per query",
            f"{r.scores_attention:,} vs {r.scores_window}",
            "attention vs window: content routing pays S per query, S² per sequence",
        ),
    ]
    summary = (
        f"The noun sits {counted(d, 'token')} before 'it'. Attention puts {r.attention:.0%} of its weight on "
        f"it at any distance: the weight comes from how well the noun's key matches the query, not from where "
        f"the noun is. A {w}-token window "
        + (
            f"sees it: by content it puts {r.windowed:.0%} on it, as a fixed filter it gives it 1/{w} "
            f"({r.fixed:.0%}), the same share as every other position, because a filter's weights are set "
            "by position."
            if inside
            else f"does not see it at all (0%), whatever it learned; {counted(r.window_layers, 'layer')} of "
            "stacked windows would be needed before any output depends on it."
        )
        + f" The price of reading by content is a score for every earlier token: {F_SEQ:,} per query here, "
        "S² per sequence. Bahdanau's attention gave translation this: each output step reads the source "
        "words it needs, instead of one fixed-length summary."
    )
    peek = [
        f"keys: one-hot token IDs; query = {routing.SHARPNESS:g} × the noun's key; score_j = q · k_j",
        f"attention: softmax over all {F_SEQ} positions → exp({routing.SHARPNESS:g}) / (exp({routing.SHARPNESS:g}) + "
        f"{F_SEQ - 1}) = {r.attention:.4f} on the noun, at any distance",
        f"windowed: softmax over the last {w} positions; fixed filter: 1/{w} on each of them",
        f"stacked windows: ⌈distance / (window − 1)⌉ = ⌈{d} / {w - 1}⌉ = {r.window_layers}",
        "Bahdanau, Cho and Bengio 2015: the decoder weights every encoder state by its match with the "
        "decoder's state, instead of one fixed-length vector",
    ]
    return View(fig, cards, summary, "Routing by content", peek)


# ---------------------------------------------------------------------------------------------
# Part G: head redundancy, and what pruning heads saves in time (section 6.7)
# ---------------------------------------------------------------------------------------------

#: the question's input length (5 of BERT-base's 12 heads pruned in every layer, H100, batch 1)
G_Q_LONG = 2048
#: the input lengths the chart draws, one line each
G_CHART_SEQS = (128, 512, 2048, 4096)
G_BERT_HEADS = 12

PRED_G = Prediction(
    question=(
        "A BERT-base encoder (12 layers of 12 heads, d = 768, d_ff = 3,072) has 5 of each layer's 12 "
        "heads pruned (42%), with little loss in accuracy. On an H100 at batch 1 with 2,048-token "
        "inputs, which shrinks by the larger share: the encoder's weights or its time per input?"
    ),
    options={
        "time": "The time: the pruned heads' S × S score work goes too, and it has no weights",
        "weights": "The weights: pruned heads free memory, and the time per input barely moves",
        "same": "Neither: both fall by the 42% of the heads that were pruned",
    },
    answer="time",
    feedback={
        "time": "The weights fall 13.9% (only Q/K/V/O lose columns; the feed-forward network, two thirds "
        "of a block's weights, stays) while the time falls 22%: at 2,048 tokens the S × S scores and "
        "the P·V product, which carry no weights, are a large share of the work, and each pruned head "
        "takes its share of them. At 512 tokens the order flips (5.7% of the time): the scores weigh "
        "less there and kernel launches do not shrink. Neither comes near 42%.",
        "weights": "A pruned head is gone, not masked: its Q, K and V columns, its rows of the output "
        "projection and its S × S scores are never computed. At 2,048 tokens that saves 22% of the time, "
        "more than the 13.9% of the weights, because the score work has no weights at all.",
        "same": "Only the attention sub-layer loses 42% of its heads' work. The feed-forward network "
        "(two thirds of a block's weights), the norms and the kernel launches stay: the weights fall "
        "13.9% and the time 22% at 2,048 tokens, 5.7% at 512, where the S² scores weigh less.",
    },
    reveals=("13.9%", "22%"),
    asks="behaviour",
    misconceptions={
        "weights": (
            "pruning saves memory, not time",
            "Pruned heads free their weights but the model runs as long as before",
        ),
        "same": (
            "time goes with the heads",
            "Pruning a fraction of the heads makes the model that fraction smaller and faster",
        ),
    },
)

TRANSFER_G = Prediction(
    question=(
        "Michel, Levy and Neubig cut many of BERT's layers down to one head with little loss. A colleague "
        "concludes that attention is unnecessary and proposes an encoder of feed-forward networks alone. "
        "What do the paper and part G say?"
    ),
    options={
        "keep": "Keep attention: one head still mixes the tokens, and most heads must stay in all",
        "drop": "Drop it: heads that can be removed show attention does no useful work at all",
        "free": "Drop it: attention is nearly all of the time, so the rest costs next to nothing",
    },
    answer="keep",
    feedback={
        "keep": "Redundant heads are copies of one another, not proof that attention is idle: the head "
        "that stays is the only path by which one token reads another, and the paper found that the "
        "majority of heads must remain across the network (about 40% of BERT's can go) before accuracy "
        "collapses. Part G shows the cost side: the feed-forward network is half or more of the time "
        "at 512 tokens, so even an encoder without attention would not be free.",
        "drop": "Redundancy among heads means several heads learned overlapping patterns; removing "
        "them all removes the only way a token reads the others. The paper found that the majority of "
        "heads must remain network-wide (about 40% of BERT's can go) to avoid a sharp drop in accuracy.",
        "free": "At 512 tokens on the H100 the attention sub-layers take 50% of the encoder's "
        "time; the feed-forward network, norms and launches are the rest, and they stay. And the paper "
        "found the majority of heads must remain: attention cannot go.",
    },
    kind="transfer",
    reveals=("majority of heads must remain",),
    asks="behaviour",
    misconceptions={
        "drop": (
            "redundant heads mean attention is unnecessary",
            "If many heads can be pruned, attention itself does no useful work",
        ),
        "free": (
            "attention is the whole cost",
            "A transformer's time is almost all attention, so the rest of the block is free",
        ),
    },
)

G_PRUNED = Slider("Heads pruned per layer (of 12)", 0, 9, 5)
G_SEQ = Choice("Input length S (tokens)", {str(s): f"{s:,}" for s in G_CHART_SEQS}, str(G_Q_LONG))
G_DEVICE = Choice(
    "Device",
    catalogue.labels(["H100", "A100_40GB", "JetsonOrinNX", "iPhone15Pro"]),
    "H100",
    inline=False,
)


@lru_cache(maxsize=64)
def _pruning_curve(seq: int, device: str) -> tuple[float, ...]:
    from ... import pruning

    return tuple(pruning.prune_heads(p, seq, device).time_saved for p in range(G_PRUNED.stop + 1))


@widget_args
def part_g(pruned: int, seq: str, device: str) -> View:
    import plotly.graph_objects as go

    from ... import pruning

    p, s = int(pruned), int(seq)
    r = pruning.prune_heads(p, s, device)
    pub = PUB.HEAD_PRUNING
    fig = figure(
        f"Time saved by pruning heads, BERT-base shape, {device_label(device)}, batch 1",
        "Heads pruned per layer",
        "Time saved",
    )
    xs = [k / G_BERT_HEADS for k in range(G_PRUNED.stop + 1)]
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=xs,
            name="if time fell with the heads",
            mode="lines",
            line=dict(dash="dash"),
        )
    )
    for seq_len in G_CHART_SEQS:
        fig.add_trace(
            go.Scatter(x=xs, y=list(_pruning_curve(seq_len, device)), name=f"S = {seq_len:,}")
        )
    fig.add_trace(
        go.Scatter(
            x=[r.fraction_pruned],
            y=[r.time_saved],
            name="your setting",
            mode="markers",
            marker=dict(size=12, symbol="diamond"),
        )
    )
    fig.update_xaxes(tickformat=".0%")
    fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    kept = G_BERT_HEADS - p
    cards = [
        Card("Heads pruned", f"{r.fraction_pruned:.0%}", f"{p} of 12 per layer; {kept} kept"),
        Card(
            "Time saved",
            f"{r.time_saved:.1%}",
            f"{fmt_time(r.full_s)} → {fmt_time(r.pruned_s)} per input",
            "ok" if r.time_saved > 0.5 * r.fraction_pruned else "warn",
        ),
        Card(
            "Attention's share of the time",
            f"{r.attention_share:.0%}",
            "Q/K/V/O projections + scores, unpruned; the rest is FFN, norms, adds",
        ),
        Card("Weights removed", f"{r.params_saved:.1%}", "of the 12 blocks' weights"),
        Card("FLOPs removed", f"{r.flops_saved:.1%}", f"at {s:,} tokens"),
    ]
    summary = (
        f"Pruning {p} of every layer's 12 heads ({r.fraction_pruned:.0%}) saves {r.time_saved:.1%} of the "
        f"encoder's time at {s:,} tokens on the {device_label(device)}: the pruned heads take their share "
        "of the Q/K/V/O projections and of the score and P·V work with them, while the feed-forward "
        f"network, the norms, the residual adds and every kernel launch stay. Attention is "
        f"{r.attention_share:.0%} of the unpruned time here; the saving grows with S because the scores "
        "grow as S². Whether the heads can go is the paper's measurement, not the engine's: Michel, Levy "
        f"and Neubig pruned about {pub['prunable_pct'].value:.0f}% of BERT's heads before accuracy "
        f"dropped noticeably, and measured {pub['speedup_pct'].value:g}% more examples per second with "
        "half of them gone (batch 64)."
    )
    block = pruning.pruned_encoder(p, s).layers[0]
    attn_w = block.attn.params
    peek = [
        f"kept heads keep their width: {kept} × 64 = {kept * 64} features in Q/K/V, O reads them back",
        f"one block's weights: attention {attn_w:,} + FFN 2 × 768 × 3,072 + biases = {block.params:,}",
        f"scores and P·V: 2 × S² × ({kept} × 64) MACs per block = {2 * s * s * kept * 64:,}",
        f"time: Engine.solve on 12 such blocks, batch 1, fp16; saved = 1 − {fmt_time(r.pruned_s)} / "
        f"{fmt_time(r.full_s)}",
        f"{pub['speedup_pct'].citation}: {pub['speedup_pct'].what} = {pub['speedup_pct'].value:g}%",
        f"{pub['prunable_pct'].citation}: {pub['prunable_pct'].what} ≈ {pub['prunable_pct'].value:g}%",
    ]
    return View(fig, cards, summary, "Pruning heads", peek)
