"""Section 6.7, Transformers: prefill vs decode, the KV cache and the three memory regimes.

Each part is a plain function of its widget values. Every count comes from ``mlsysim``: the
model builders (``Models.GPT2`` is GPT-2 XL, ``Models.Llama7B``, ``llama(kv_heads=...)``), the
attention and transformer-block layers, and ``Engine.solve``. This module only picks inputs,
searches for crossings by evaluating core calls, draws the chart and writes the sentences.
Chapter numbers and the chapter's own slips are asserted in ``tests/test_s06_07_transformers.py``.
"""

from __future__ import annotations

import math
from functools import lru_cache

from ... import catalogue
from ..._lazy import lazy
from ..charts import device_label, figure, memory_lines, roofline
from ..components import (
    Card,
    Choice,
    Deferred,
    Prediction,
    Slider,
    Toggle,
    View,
    counted,
    fact,
    feasibility,
    fmt_bytes,
    fmt_count,
    fmt_flops,
    fmt_rate,
    fmt_ratio,
    fmt_time,
    widget_args,
)
from ..vocab import LABELS, bound_phrase, conditions

E = lazy("mlsysim.engine")
HW = lazy("mlsysim.hardware")
L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")
order = lazy("mlsysim.order")
U = lazy("mlsysim.units")

#: the 6.7 self-check's hypothetical accelerator: the A100's FP16 peak over 2.0 TB/s (L1846)
SELF_CHECK_BW = 2.0

CHAPTER = "6.7"
PARTS = ("A", "B", "C", "D", "E", "F", "G")

#: Every part runs in FP16, the precision of the chapter's decode and KV-cache numbers (L1097, L1105).
PRECISION = "fp16"
#: Sustained share of dense peak used for the compute roof (the engine's default eta_hw).
EFFICIENCY = 0.5

MODELS = {"GPT2Small": "GPT-2 small (124 M)", "GPT2": "GPT-2 XL (1.5 B)", "Llama7B": "Llama-2 7B"}


def _mname(key: str) -> str:
    return MODELS[key].split(" (")[0]


def first_crossing(f, target: float, lo: int = 1, hi: int = 1 << 26) -> int:
    """Smallest integer n in [lo, hi] with f(n) >= target (f non-decreasing), by bisection.
    ``f`` is always a core call (bytes of a cache, of a score matrix, a block's MACs), so the
    crossing is found from the model, never from a rearranged formula."""
    if f(lo) >= target:
        return lo
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if f(mid) >= target:
            hi = mid
        else:
            lo = mid
    return hi


# ---------------------------------------------------------------------------------------------
# Part A: prefill and decode are two regimes on one roofline
# ---------------------------------------------------------------------------------------------

PRED_A = Prediction(
    question=(
        "The same GPT-2 XL weights (FP16, H100, eager kernels, attention scores materialized) first process "
        "a 1,024-token prompt (prefill), then generate one token at a time (decode). Compared with prefill, "
        "decode's arithmetic intensity is…"
    ),
    options={
        "same": "About the same: same weights, same FLOPs per weight",
        "180x": "Lower, but short of the token ratio: prefill moves more than weights",
        "1024x": "About 1,024× lower: one token per weight read instead of 1,024",
        "higher": "Higher: decode touches only one token's activations",
    },
    answer="180x",
    feedback={
        "same": "The FLOPs per weight differ: prefill does 2 FLOPs per weight for each of 1,024 tokens from one "
        "read of the weights; decode reads every weight for one token's 2 FLOPs.",
        "180x": "Prefill runs at about 182 FLOP/B and decode at about 1.0 (2 FLOPs per 2-byte weight): about "
        "183× apart. The ratio is below 1,024 because eager prefill also moves activations and S × S attention "
        "scores that grow with the prompt. A FlashAttention kernel, which never writes the scores, lifts "
        "prefill to about 380 FLOP/B: still well under 1,024×.",
        "1024x": "That assumes prefill moves only the weights. Its activations and S × S scores grow with the "
        "prompt, so its intensity is about 182 FLOP/B, not 1,024: the ratio is about 183×.",
        "higher": "One token's activations are tiny, but every weight is still read for it: bytes are dominated by "
        "the weights, and the FLOPs per byte fall to about 1.",
    },
    reveals=("182 FLOP/B", "183×", "S × S attention scores that grow with the prompt"),
    asks="direction",
    misconceptions={
        "same": (
            "intensity belongs to the model",
            "The same weights do the same FLOPs per byte whatever the phase",
        ),
        "1024x": (
            "only the weights move",
            "Prefill's bytes are the weights alone, so its intensity is the prompt length",
        ),
        "higher": (
            "less data, more intensity",
            "Moving one token's activations instead of 1,024 raises FLOPs per byte",
        ),
    },
)
A_MODEL = Choice("Model", MODELS, "GPT2")
A_DEVICE = Choice(
    "Device",
    catalogue.labels(["H100", "A100", "JetsonOrinNX"]),
    "H100",
)
A_PROMPT = Slider("Prompt length (tokens)", 16, 2048, 1024, step=16)
#: The engine's assumption the decode verdict depends on: a fixed cost per kernel launch.
A_LAUNCH = Choice(
    "Launch cost per kernel (an engine assumption)",
    {
        "registry": "the device's planning value",
        "0": "0 µs (whole step in one graph)",
        "1": "1 µs",
        "2": "2 µs",
        "5": "5 µs",
        "20": "20 µs",
    },
    "registry",
)


#: Why GPT-2 XL's decode shows other numbers in other notebooks (issue 32: one quantity, one set
#: of conditions): 6.1 counts FP32 weights, 6.10 Part C and the chapter lab compile the graph.
OTHER_NOTEBOOKS = (
    "Elsewhere the same token reads differently for a stated reason: 6.1 counts FP32 weights (4 bytes "
    "each, so 0.5 FLOP/B), and 6.10 Part C compiles the graph into fewer kernels, so its decode step is "
    "shorter than this eager one."
)


def with_launch(dev, launch: str):
    """The device with its per-kernel launch cost replaced (``"registry"`` keeps the planning value)."""
    if launch == "registry":
        return dev
    return E.with_launch_cost(dev, U.Q_(float(launch), "us").m_as("s"))


@lru_cache(maxsize=64)
def launch_flip_ns(model_key: str, device: str, seq: int) -> int:
    """Smallest launch cost (ns per kernel) at which the engine calls batch-1 decode launch-bound,
    found by evaluating the engine, never from a rearranged formula."""
    return flip_ns(M.Models.get(model_key), HW.Hardware.get(device), seq)


def flip_ns(m, dev, seq: int) -> int:
    """``launch_flip_ns`` for any model and device object."""

    def dispatch(ns: int) -> int:
        d = E.with_launch_cost(dev, U.Q_(ns, "ns").m_as("s"))
        p = E.Engine.solve(
            m, d, precision=PRECISION, efficiency=EFFICIENCY, phase="decode", seq_len=seq
        )
        return int(p.bottleneck == "Dispatch")

    return first_crossing(dispatch, 1, lo=0, hi=10**7)


def _prompt_for(model_key: str, prompt: int) -> tuple[int, bool]:
    """GPT-2 has 1,024 learned positions (its config's context_length): longer prompts are capped."""
    m = M.Models.get(model_key)
    limit = m.config.get("context_length") if model_key.startswith("GPT2") else None
    if limit is not None and prompt > limit:
        return int(limit), True
    return int(prompt), False


@widget_args
def part_a(model: str, device: str, prompt: int, launch: str) -> View:
    m = M.Models.get(model)
    dev = with_launch(HW.Hardware.get(device), launch)
    s, capped = _prompt_for(model, int(prompt))
    pre = E.Engine.solve(
        m, dev, precision=PRECISION, efficiency=EFFICIENCY, phase="prefill", seq_len=s
    )
    dec = E.Engine.solve(
        m, dev, precision=PRECISION, efficiency=EFFICIENCY, phase="decode", seq_len=s
    )
    kernels = sum(t.kernels for t in dec.layers)
    no_launch = dec.latency_s - dec.latency_dispatch_s
    points = [
        (f"prefill ({s:,} tokens)", pre.arithmetic_intensity.magnitude, pre.flops / pre.latency_s),
        ("decode (1 token)", dec.arithmetic_intensity.magnitude, dec.flops / dec.latency_s),
        ("decode, launches left out", dec.arithmetic_intensity.magnitude, dec.flops / no_launch),
    ]
    fig = roofline(
        dev,
        PRECISION,
        EFFICIENCY,
        points,
        title=f"{_mname(model)} on the {device_label(dev)}: two regimes (FP16, eager, roof at η = {EFFICIENCY:g})",
    )

    ratio = dec.latency_dispatch_s / dec.latency_memory_s
    tax = dev.dispatch_tax.m_as("s")
    flip = launch_flip_ns(model, device, s) * 1e-9
    launch_note = "" if launch == "registry" else f", {fmt_time(tax)} per launch"
    cond_dec = conditions(PRECISION, fused=False, batch=1, device=device_label(dev)) + launch_note
    cards = [
        Card(
            "Prefill intensity",
            f"{pre.arithmetic_intensity.magnitude:,.0f} FLOP/B",
            f"{bound_phrase(pre.bottleneck)} · {fmt_time(pre.latency_s)} for the prompt · {cond_dec}",
            "ok" if pre.bottleneck == "Compute" else "warn",
            fact=fact(
                "intensity",
                pre.arithmetic_intensity.magnitude,
                model=model,
                device=device,
                batch=1,
                precision=PRECISION,
                efficiency=EFFICIENCY,
                phase="prefill",
                seq_len=s,
            ),
        ),
        Card(
            "Decode intensity",
            f"{dec.arithmetic_intensity.magnitude:,.2f} FLOP/B",
            f"{bound_phrase(dec.bottleneck)} · {fmt_time(dec.latency_s)} per token · {cond_dec}",
            "bad",
            fact=fact(
                "intensity",
                dec.arithmetic_intensity.magnitude,
                model=model,
                device=device,
                batch=1,
                precision=PRECISION,
                efficiency=EFFICIENCY,
                phase="decode",
                seq_len=s,
            ),
        ),
        Card(
            "Decode: memory term",
            fmt_time(dec.latency_memory_s),
            f"weights + KV cache at {dev.memory.bandwidth:~P}",
        ),
        Card(
            "Decode: kernel launches",
            fmt_time(dec.latency_dispatch_s),
            f"{kernels:,} kernels × {fmt_time(tax)} = {fmt_ratio(ratio)} the memory term",
            "bad" if dec.bottleneck == "Dispatch" else "",
        ),
        Card(
            "Verdict flips at",
            f"{fmt_time(flip)} per kernel",
            "launch-bound above this launch cost, memory-bound below",
            "warn",
        ),
        Card("Decode MFU", f"{dec.mfu:.2%}", f"{cond_dec}; prefill reaches {pre.mfu:.1%}"),
    ]
    if dec.bottleneck == "Dispatch":
        verdict = (
            f"Decode is launch-bound here: streaming the weights and the KV cache takes "
            f"{fmt_time(dec.latency_memory_s)} but "
            f"launching the step's {kernels:,} kernels takes {fmt_time(dec.latency_dispatch_s)} "
            f"({fmt_ratio(ratio)})."
            + (
                " The chapter: the weight read is 'a few times shorter' than the launches."
                if model == "GPT2"
                else ""
            )
        )
    else:
        verdict = (
            f"Decode is {bound_phrase(dec.bottleneck)}: streaming the weights and the KV cache takes "
            f"{fmt_time(dec.latency_memory_s)}, more than the {fmt_time(dec.latency_dispatch_s)} of launches."
        )
    summary = (
        f"The same {_mname(model)} weights give two regimes: prefill of {s:,} tokens reuses each "
        f"weight {s:,} times and runs at {pre.arithmetic_intensity.magnitude:,.0f} FLOP/B "
        f"({bound_phrase(pre.bottleneck)}), while decoding one token reuses it once: "
        f"{dec.arithmetic_intensity.magnitude:.2f} FLOP/B. {verdict}"
        + f" The verdict rests on the launch cost: at {fmt_time(flip)} per kernel or more the launches "
        "dominate; below it the memory stream does."
        + (" GPT-2 has 1,024 learned positions, so the prompt is capped there." if capped else "")
        + f" Every number here is for {cond_dec}."
        + (f" {OTHER_NOTEBOOKS}" if model == "GPT2" else "")
    )
    ridge = dev.sustained_ridge_point(PRECISION, EFFICIENCY).magnitude
    a100 = HW.Hardware.get("A100")
    peek = [
        f"{LABELS['ridge_sustained']} = peak × η / BW = {dev.compute.peak(PRECISION):~P} × {EFFICIENCY:g} / "
        f"{dev.memory.bandwidth:~P} = {ridge:,.0f} FLOP/B  ({LABELS['ridge_peak']}: "
        f"{dev.ridge_point(PRECISION).magnitude:,.0f})",
        f"decode I = FLOPs / bytes = {fmt_flops(dec.flops)} / {fmt_bytes(dec.bytes_moved)} = "
        f"{dec.arithmetic_intensity.magnitude:.3f} FLOP/B  (2 FLOPs per 2-byte weight = 1.0)",
        f"prefill I = {fmt_flops(pre.flops)} / {fmt_bytes(pre.bytes_moved)} = {pre.arithmetic_intensity.magnitude:,.1f} FLOP/B",
        "t = Σ_rows max(FLOPs / (peak × η), bytes / BW) + kernels × dispatch_tax",
        "eager: every op is its own kernel and writes its output to memory",
        f"decode: {fmt_time(no_launch)} (compute/memory) + {kernels:,} × {fmt_time(tax)} = {fmt_time(dec.latency_s)}",
        f"flip: the smallest launch cost at which launches outweigh the memory term = {fmt_time(flip)} per kernel "
        f"(found by re-solving; the {HW.Hardware.get(device).name}'s planning value is "
        f"{fmt_time(HW.Hardware.get(device).dispatch_tax.m_as('s'))})",
        f"achieved decode rate = {fmt_rate(dec.flops / dec.latency_s)} of {fmt_rate(dec.peak_flops_s)} dense peak",
        f"the chapter's self-check accelerator: {a100.compute.peak(PRECISION):~P} / {SELF_CHECK_BW:.1f} TB/s = "
        f"{(a100.compute.peak(PRECISION) / U.Q_(SELF_CHECK_BW, 'TB/s')).m_as('FLOP/B'):,.0f} FLOP/B "
        f"(ridge point (peak); the registry's {a100.name}, at {a100.memory.bandwidth.m_as('TB/s'):.2f} TB/s: "
        f"{a100.ridge_point(PRECISION).magnitude:,.0f})",
    ]
    facts = [
        fact(
            "ridge_peak", dev.ridge_point(PRECISION).magnitude, device=device, precision=PRECISION
        ),
        fact("ridge_sustained", ridge, device=device, precision=PRECISION, efficiency=EFFICIENCY),
    ]
    if launch == "registry":  # latency and MFU depend on the launch cost: tag only the registry's
        facts.append(
            fact(
                "mfu",
                dec.mfu,
                model=model,
                device=device,
                batch=1,
                precision=PRECISION,
                efficiency=EFFICIENCY,
                phase="decode",
                seq_len=s,
            )
        )
    return View(fig, cards, summary, "Two regimes on the roofline", peek, facts=facts)


# ---------------------------------------------------------------------------------------------
# Part B: batching decode amortizes weights, not KV caches
# ---------------------------------------------------------------------------------------------


#: PRED_B's batch: the most users of a 2,048-token context that fit an H100 is 61 (Part D), so 32 runs.
PRED_B_BATCH, PRED_B_CONTEXT = 32, 2048


def _feedback_b() -> dict[str, str]:
    m, dev = M.Models.get(B_MODEL), HW.Hardware.get("H100")
    b, ctx = PRED_B_BATCH, PRED_B_CONTEXT
    shared, per_seq = decode_bytes_split(m, dev, ctx)
    kv = m.kv_cache_bytes(ctx, 1, PRECISION)
    one, many = _decode(m, dev, 1, ctx), _decode(m, dev, b, ctx)
    t1, tb = one.bytes_moved, many.bytes_moved / b
    return {
        "32x": f"That divides every byte by the batch. The {fmt_bytes(shared)} of streamed weights are shared, "
        f"but each sequence's {fmt_bytes(kv, 2)} KV cache is its own: {fmt_bytes(t1)} per token at batch 1, "
        f"{fmt_bytes(tb, 2)} at {b}, {fmt_ratio(t1 / tb)} less, not {b}×.",
        "less": f"Batch 1 reads {fmt_bytes(t1)} per token: {fmt_bytes(shared)} of streamed weights and a "
        f"{fmt_bytes(kv, 2)} KV cache. At {b} the weights are shared ({fmt_bytes(shared / b)} each) but the "
        f"caches are not: {fmt_bytes(tb, 2)} per token, {fmt_ratio(t1 / tb)} less. Past batch "
        f"{shared / kv:,.0f} the caches outweigh the weights, so at this context decode stays memory-bound "
        f"at any batch (MFU {many.mfu:.1%} at {b}, {one.mfu:.2%} at 1).",
        "same": "Every token needs every weight, but one read of a weight serves every sequence in the batch: "
        f"the weight bytes per token fall {b}×. Only the caches stay per sequence.",
        "rise": f"The bytes per step do rise, from {fmt_bytes(t1)} to {fmt_bytes(many.bytes_moved)}, but they "
        f"produce {b} tokens: per generated token they fall.",
    }


PRED_B = Prediction(
    question=(
        "Llama-2 7B decodes on an H100 in FP16, each sequence with a 2,048-token context. Going from one "
        "sequence per step to a batch of 32, the bytes read from memory per generated token…"
    ),
    options={
        "32x": "Fall about 32×: one weight read now serves 32 tokens",
        "less": "Fall far less than 32×: each sequence reads its own cache",
        "same": "Stay about the same: each token still needs every weight",
        "rise": "Rise: 32 caches must now be read at every step",
    },
    answer="less",
    feedback=Deferred(_feedback_b),
    reveals=("far less than 32×", "reads its own cache"),
    asks="direction",
    misconceptions={
        "32x": (
            "batching divides every byte",
            "One step serves the whole batch, so every byte is shared by its sequences",
        ),
        "same": (
            "every token rereads the weights",
            "Each generated token needs every weight, so batching cannot save weight reads",
        ),
        "rise": (
            "bytes per step are bytes per token",
            "More bytes per step means more bytes for each generated token",
        ),
    },
)
B_BATCH = Slider("Concurrent sequences (batch)", 1, 256, 1)
B_CONTEXT = Slider("Context per sequence (tokens)", 128, 8192, 2048, step=128)
B_DEVICE = Choice("Device", catalogue.labels(["H100", "A100"]), "H100")

#: Part B decodes the chapter's 7B-class model (32 layers, 32 heads, d_head 128; footnote 26, L1105).
B_MODEL = "Llama7B"
_BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def _decode(model, dev, batch: int, context: int):
    return E.Engine.solve(
        model,
        dev,
        batch_size=batch,
        precision=PRECISION,
        efficiency=EFFICIENCY,
        phase="decode",
        seq_len=context,
    )


def decode_bytes_split(model, dev, context: int) -> tuple[float, float]:
    """(bytes read once per step for the whole batch, bytes read per sequence), from the engine's
    byte count at batch 1 and 2 (bytes = W + A·B)."""
    b1 = _decode(model, dev, 1, context).bytes_moved
    b2 = _decode(model, dev, 2, context).bytes_moved
    per_seq = b2 - b1
    return b1 - per_seq, per_seq


@widget_args
def part_b(batch: int, context: int, device: str) -> View:
    import plotly.graph_objects as go

    m = M.Models.get(B_MODEL)
    dev = HW.Hardware.get(device)
    B, ctx = int(batch), int(context)
    shared, per_seq = decode_bytes_split(m, dev, ctx)
    kv1 = m.kv_cache_bytes(ctx, 1, PRECISION)
    xs = sorted({*_BATCHES, B})
    fig = figure(
        f"{_mname(B_MODEL)} decode: bytes read per generated token ({ctx:,}-token contexts)",
        "Concurrent sequences (batch)",
        "Bytes per token (log scale)",
        log_x=True,
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[shared / x for x in xs],
            name="streamed weights (shared by the batch)",
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(x=xs, y=[kv1] * len(xs), name="own KV cache (never shared)", mode="lines")
    )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[shared / x + per_seq for x in xs],
            name="total",
            mode="lines",
            line=dict(dash="dash"),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[B],
            y=[shared / B + per_seq],
            name="your batch",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )

    p = _decode(m, dev, B, ctx)
    p1 = _decode(m, dev, 1, ctx)
    even = shared / kv1
    cond = conditions(PRECISION, fused=False, batch=B, device=device_label(dev))
    cards = [
        Card(
            "Bytes per token", fmt_bytes(p.bytes_moved / B), f"batch 1: {fmt_bytes(p1.bytes_moved)}"
        ),
        Card(
            "Intensity",
            f"{p.arithmetic_intensity.magnitude:,.1f} FLOP/B",
            f"{bound_phrase(p.bottleneck)} · {cond} · {LABELS['ridge_sustained']} {p.sustained_ridge_point:,.0f} at η = {EFFICIENCY:g}",
            "bad" if p.bottleneck != "Compute" else "ok",
        ),
        Card(
            "MFU",
            f"{p.mfu:.2%}" if p.feasible else "does not run",
            f"{cond}; batch 1: {p1.mfu:.2%} of dense FP16 peak"
            if p.feasible
            else f"needs {fmt_bytes(p.memory_footprint_bytes)} of {fmt_bytes(p.capacity_bytes)}: no rate to measure",
            "bad" if (p.mfu < 0.1 or not p.feasible) else "warn",
        ),
        Card("KV = weights per token at", f"batch {even:,.1f}", "beyond it the caches dominate"),
        Card(
            "Memory needed",
            fmt_bytes(p.memory_footprint_bytes),
            f"KV {fmt_bytes(p.kv_cache_bytes)} for {B} sequence{'s' if B > 1 else ''}",
            "ok" if p.feasible else "bad",
        ),
    ]
    run = (
        f"Intensity is {p.arithmetic_intensity.magnitude:,.1f} FLOP/B and MFU {p.mfu:.2%} ({cond})"
        if p.feasible
        else f"This batch does not run on the {device_label(dev)}: it needs {fmt_bytes(p.memory_footprint_bytes)}, so there is "
        f"no MFU to report; were memory unlimited its intensity would be {p.arithmetic_intensity.magnitude:,.1f} FLOP/B"
    )
    summary = (
        f"At batch {B} each generated token reads {fmt_bytes(shared / B)} of streamed weights (shared) plus its own "
        f"{fmt_bytes(kv1)} KV cache. {run}: batching divides the weight bytes, but past batch {even:,.0f} the "
        f"caches, which no batch can share, set the pace."
    )
    peek = [
        "bytes per step = W + B × A   (W: streamed weights, read once; A: one sequence's KV cache + activations)",
        "W counts the weights a decode step streams: the embedding table is not among them (one row "
        "per token is gathered), hence less than the weights' total size",
        f"W = {fmt_bytes(shared)},  A = {fmt_bytes(per_seq)}  (KV cache {fmt_bytes(kv1)} at {ctx:,} tokens)",
        f"bytes per token = W / B + A = {fmt_bytes(shared)} / {B} + {fmt_bytes(per_seq)} = {fmt_bytes(p.bytes_moved / B)}",
        f"intensity → FLOPs per token / A as B grows: at most {p.flops / B / per_seq:,.1f} FLOP/B here",
        (
            f"MFU = FLOPs / (latency × peak) = {fmt_flops(p.flops)} / ({fmt_time(p.latency_s)} × {dev.compute.peak(PRECISION):~P}) = {p.mfu:.2%}"
            if p.feasible
            else "MFU: not reported; the configuration does not fit, so it never runs"
        ),
    ]
    return View(
        fig,
        cards,
        summary,
        "Bytes per generated token",
        peek,
        alert=feasibility(
            p.memory_footprint_bytes,
            dev,
            f"Decoding {B} sequence{'s' if B > 1 else ''} at {ctx:,} tokens",
        ),
    )


# ---------------------------------------------------------------------------------------------
# Part C: three memory regimes of a long context (Figure 14)
# ---------------------------------------------------------------------------------------------


def _feedback_c() -> dict[str, str]:
    m = M.Models.get(C_MODEL).shape_beyond_positions()
    cap = HW.Hardware.get("H100").memory.capacity.m_as("B")
    x = crossings(cap)
    w = m.weight_bytes(PRECISION)
    kv_tok = m.kv_cache_bytes_per_token(PRECISION)
    live_tok = tiled_live_bytes(1024) / 1024
    return {
        "kv": f"Tiling removes the S × S scores, so the cache is the limit: {fmt_bytes(kv_tok)} per token, it "
        f"passes the {fmt_bytes(w)} of weights near {x['kv_over_weights']:,} tokens and, with them, fills "
        f"80 GB near {x['kv_fit']:,}. One layer's tiled attention keeps only Q, K, V and its output live, "
        f"{fmt_bytes(live_tok)} per token, a {fmt_ratio(kv_tok / live_tok, 0)} smaller slope than the "
        "cache's.",
        "scores": "A tiled kernel computes the scores one block at a time and never stores the S × S matrix: "
        "their arithmetic still grows as S², their memory does not. Switch tiling off and one layer's "
        f"scores would fill 80 GB at {x['scores_fit']:,} tokens.",
        "weights": f"The weights are {fmt_bytes(w)} whatever the prompt, under 4% of 80 GB: the flat line, "
        "never the limit.",
        "never": "Only the scores are gone. The KV cache keeps keys and values for every prompt token, "
        f"{fmt_bytes(kv_tok)} each: it grows linearly and, with the weights, fills 80 GB near "
        f"{x['kv_fit']:,} tokens.",
    }


PRED_C = Prediction(
    question=(
        "GPT-2 XL's shape (FP16) prefills an ever longer prompt in one pass on an 80 GB H100, with a tiled "
        "(FlashAttention) kernel that never stores the S × S attention scores. As the prompt grows, what "
        "fills the device first?"
    ),
    options={
        "weights": "The weights: a 1.5 B-parameter model is most of the memory",
        "kv": "The KV cache: it keeps keys and values for every token",
        "scores": "The scores: tiling saves time, but they still grow as S²",
        "never": "Nothing: with the scores gone, memory stays nearly flat",
    },
    answer="kv",
    feedback=Deferred(_feedback_c),
    reveals=("the cache is the limit", "250,275", "near 250,000"),
    asks="behaviour",
    misconceptions={
        "weights": (
            "the weights are the memory",
            "A model's memory is its parameters; what it computes on is small beside them",
        ),
        "scores": (
            "tiling only saves time",
            "FlashAttention speeds attention up, but the S × S scores still take memory",
        ),
        "never": (
            "the scores were the only growth",
            "Once no S × S matrix is stored, nothing else grows with the context",
        ),
    },
)
C_CONTEXT = Slider("Context length (tokens)", 1024, 262144, 16384, step=1024)
C_FLASH = Toggle("Tiled attention (FlashAttention: scores never stored)", False)
C_DEVICE = Choice(
    "Device",
    catalogue.labels(["H100", "A100_40GB", "JetsonOrinNX"]),
    "H100",
)

#: Figure 14's model shape: GPT-2 XL (48 layers, width 1,600, 25 heads), FP16 (L1115).
C_MODEL = "GPT2"
_GRID = [1024 * 2**i for i in range(9)]  # 1K .. 256K tokens


def _shape() -> tuple[int, int]:
    cfg = M.Models.get(C_MODEL).config
    return cfg["d_model"], cfg["n_heads"]


def score_bytes(context: int) -> int:
    """One layer's materialized FP16 score matrix (all heads, one request)."""
    d, h = _shape()
    return L.Attention(d_model=d, n_heads=h, seq_len=int(context)).score_bytes(1, PRECISION)


def tiled_live_bytes(context: int) -> int:
    """What one layer's tiled attention keeps live instead: Q, K, V and the output."""
    d, h = _shape()
    return L.Attention(d_model=d, n_heads=h, seq_len=int(context), flash=True).live_elements(
        1
    ) * int(U.bytes_per_value(PRECISION))


def block_macs(context: int) -> tuple[int, int]:
    """(attention-product MACs, projection + FFN MACs) of one GPT-2 XL block over ``context`` tokens."""
    cfg = M.Models.get(C_MODEL).config
    block = L.TransformerBlock(
        d_model=cfg["d_model"], n_heads=cfg["n_heads"], d_ff=cfg["d_ff"], seq_len=int(context)
    )
    attn = sum(layer.macs() for _, layer in block.rows() if isinstance(layer, L.Attention))
    dense = sum(layer.macs() for _, layer in block.rows() if isinstance(layer, L.Dense))
    return attn, dense


def _attn_minus_dense(context: int) -> int:
    attn, dense = block_macs(context)
    return attn - dense


def figure14_device_crossings() -> dict[str, int]:
    """Where one layer's scores fill the registry's 80 GB (80 x 10^9 B, the datasheet figure the
    registry plans with) and 80 GiB (the HBM an "80 GB" H100 physically carries). The chapter's
    'near 41,000 tokens' (L1115) is the physical, 80 GiB reading."""
    gb = HW.Hardware.get("H100").memory.capacity
    return {
        "GB": crossings(gb.m_as("B"))["scores_fit"],
        "GiB": crossings(U.Q_(gb.m_as("GB"), "GiB").m_as("B"))["scores_fit"],
    }


@lru_cache(maxsize=16)
def crossings(capacity_bytes: float) -> dict[str, int]:
    """Context lengths where Figure 14's curves cross, each found by evaluating the core."""
    m = M.Models.get(C_MODEL).shape_beyond_positions()  # past GPT-2 XL's 1,024 positions
    w = m.weight_bytes(PRECISION)
    return {
        "kv_over_weights": first_crossing(lambda s: m.kv_cache_bytes(s, 1, PRECISION), w),
        # longest contexts that still fit (the same definition as 6.6's search): one below the first
        # length whose bytes exceed the capacity
        "scores_fit": first_crossing(score_bytes, math.floor(capacity_bytes) + 1) - 1,
        "kv_fit": first_crossing(
            lambda s: w + m.kv_cache_bytes(s, 1, PRECISION), math.floor(capacity_bytes) + 1
        )
        - 1,
        # the cache with nothing beside it (no weights): a bound, not a plan
        "kv_alone_fit": first_crossing(
            lambda s: m.kv_cache_bytes(s, 1, PRECISION), math.floor(capacity_bytes) + 1
        )
        - 1,
        "attention_over_dense": first_crossing(lambda s: _attn_minus_dense(s), 0),
    }


@widget_args
def part_c(context: int, flash: bool, device: str) -> View:
    import plotly.graph_objects as go

    m = M.Models.get(C_MODEL).shape_beyond_positions()  # Figure 14 extrapolates the shape
    cfg = m.config
    dev = HW.Hardware.get(device)
    s = int(context)
    cap = dev.memory.capacity.m_as("B")
    w = m.weight_bytes(PRECISION)
    x = crossings(cap)
    gib = crossings(U.Q_(dev.memory.capacity.m_as("GB"), "GiB").m_as("B"))["scores_fit"]
    fig14 = figure14_device_crossings()

    fig = figure(
        "Three memory regimes of a long context (GPT-2 XL shape, FP16, one request)",
        "Context length (tokens)",
        "Bytes (log scale)",
        log_x=True,
        log_y=True,
    )
    fig.add_trace(go.Scatter(x=_GRID, y=[w] * len(_GRID), name="weights (flat)", mode="lines"))
    fig.add_trace(
        go.Scatter(
            x=_GRID,
            y=[m.kv_cache_bytes(n, 1, PRECISION) for n in _GRID],
            name=f"KV cache, all {cfg['n_layers']} layers (linear)",
            mode="lines",
        )
    )
    if flash:
        fig.add_trace(
            go.Scatter(
                x=_GRID,
                y=[tiled_live_bytes(n) for n in _GRID],
                name="one layer, tiled attention: Q, K, V, output (linear)",
                mode="lines",
            )
        )
    else:
        fig.add_trace(
            go.Scatter(
                x=_GRID,
                y=[score_bytes(n) for n in _GRID],
                name="one layer's scores (quadratic)",
                mode="lines",
            )
        )
    marks = [(x["kv_over_weights"], w, "KV = weights")]
    if not flash:
        marks.append(
            (x["scores_fit"], score_bytes(x["scores_fit"]), "longest context whose scores fit")
        )
    marks.append(
        (
            x["kv_fit"],
            m.kv_cache_bytes(x["kv_fit"], 1, PRECISION),
            "longest context whose weights + KV fit",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[k[0] for k in marks],
            y=[k[1] for k in marks],
            name="crossings",
            mode="markers+text",
            text=[k[2] for k in marks],
            textposition="bottom right",
            marker=dict(size=10, symbol="x"),
        )
    )
    layer_now = tiled_live_bytes(s) if flash else score_bytes(s)
    fig.add_trace(
        go.Scatter(
            x=[s, s],
            y=[m.kv_cache_bytes(s, 1, PRECISION), layer_now],
            name="your context",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )
    memory_lines(fig, [dev], unit="B")

    kv_now = m.kv_cache_bytes(s, 1, PRECISION)
    need = w + kv_now + layer_now
    cards = [
        Card(
            "KV cache per token",
            fmt_bytes(m.kv_cache_bytes_per_token(PRECISION)),
            f"2 × {cfg['n_layers']} layers × {cfg['d_model']:,} × 2 B",
        ),
        Card(
            "KV cache now",
            fmt_bytes(kv_now),
            f"{fmt_ratio(kv_now / w)} the weights",
            "warn" if kv_now > w else "",
        ),
        Card(
            "One layer now",
            fmt_bytes(layer_now),
            "tiled: no scores stored" if flash else "materialized scores",
            "bad" if layer_now > cap else ("warn" if layer_now > w else ""),
        ),
        Card("KV passes weights at", f"{x['kv_over_weights']:,} tokens", "chapter: near 10,000"),
        Card(
            "Longest context whose scores fit" + (" (if they were stored)" if flash else ""),
            f"{x['scores_fit']:,} tokens",
            f"{dev.memory.capacity:~P} as 10⁹ B; as GiB (physical memory): {gib:,}",
            "" if flash else "warn",  # a limit to know, as in 6.6, not a failure
        ),
        Card(
            "Attention MACs = dense MACs at",
            f"{x['attention_over_dense']:,} tokens",
            f"S > 6d, d = {cfg['d_model']:,}",
        ),
    ]
    summary = (
        f"At {s:,} tokens the cache holds {fmt_bytes(kv_now)} against {fmt_bytes(w)} of weights, and one "
        + (
            f"layer's tiled attention keeps only {fmt_bytes(layer_now)} live. "
            if flash
            else f"layer's scores take {fmt_bytes(layer_now)}. "
        )
        + (
            f"On the {device_label(dev)}, one layer's scores alone would fill its memory first, near "
            f"{x['scores_fit']:,} tokens; with the weights and the KV cache beside them the limit comes "
            "sooner (the memory alert adds them all)."
            if not flash and x["scores_fit"] <= x["kv_fit"]
            else f"On the {device_label(dev)}, the weights and the KV cache together fill its memory near "
            f"{x['kv_fit']:,} tokens (the cache alone would reach it near {x['kv_alone_fit']:,}); one "
            "layer's attention tensors come on top, so the limit comes a little sooner (the memory alert "
            "adds them all)."
        )
    )
    peek = [
        f"weights = params × 2 B = {m.params:,} × 2 = {fmt_bytes(w)}  (flat)",
        f"KV = 2 × {cfg['n_layers']} × {cfg['d_model']:,} × S × 2 B = {fmt_bytes(m.kv_cache_bytes_per_token(PRECISION))} × {s:,} = {fmt_bytes(kv_now)}  (linear)",
        f"scores = heads × S² × 2 B = {cfg['n_heads']} × {s:,}² × 2 = {fmt_bytes(score_bytes(s))}  (quadratic, one layer)",
        f"crossings: KV = weights at {x['kv_over_weights']:,}; longest fit: scores ≤ {dev.memory.capacity:~P} up to "
        f"{x['scores_fit']:,}, weights + KV up to {x['kv_fit']:,}",
        f"Figure 14's 'near 41,000' is the physical 80 GiB of HBM ({fig14['GiB']:,} tokens fit); the registry "
        f"plans with 80 × 10⁹ B (conservative), filled at {fig14['GB']:,}",
        f"compute: projections + FFN = 12·S·d², attention = 2·S²·d, equal at S = 6d = {x['attention_over_dense']:,}",
    ]
    return View(
        fig,
        cards,
        summary,
        "Memory against context",
        peek,
        alert=feasibility(
            need, dev, f"This request (weights, KV cache, one layer's attention at {s:,} tokens)"
        ),
    )


# ---------------------------------------------------------------------------------------------
# Part D: the KV-cache pitfall, and grouped-query attention
# ---------------------------------------------------------------------------------------------

#: The self-check's serving scenario: 32 users, 2,048-token contexts, FP16 (L1863, L1975).
SELF_CHECK_USERS, SELF_CHECK_CONTEXT = 32, 2048
#: PRED_D's scenario: Llama-2 7B's full 4,096-token context (its max_position_embeddings), on an
#: 80 GB H100. Part B's default (2,048 tokens) does not show it.
PRED_D_CONTEXT, PRED_D_DEVICE = 4096, "A100_40GB"  # a device Part B does not offer


def _feedback_d() -> dict[str, str]:
    llama = M.Models.Llama7B
    dev = HW.Hardware.get(PRED_D_DEVICE)
    ctx = PRED_D_CONTEXT
    kv1 = llama.kv_cache_bytes(ctx, 1, PRECISION)
    w = llama.weight_bytes(PRECISION)
    fit = max_users(llama.config["kv_heads"], PRED_D_DEVICE, ctx)
    full, over = _serve(llama, dev, fit, ctx), _serve(llama, dev, fit + 1, ctx)
    reserve = E.RUNTIME_RESERVE_BYTES  # 6.10 D's default reserve
    reserved = E.max_batch(llama, dev, PRECISION, seq_len=ctx, reserve_bytes=reserve)
    free = dev.memory.capacity.m_as("B") - w
    return {
        "cache": f"Each user's {ctx:,}-token cache is 32 layers × 2 × 32 heads × {ctx:,} × 128 × 2 B = "
        f"{fmt_bytes(kv1, 2)}, so {fit} users fill the device: {fmt_bytes(full.kv_cache_bytes)} of caches, "
        f"{fmt_ratio(full.kv_cache_bytes / w)} the {fmt_bytes(w)} of weights, {fmt_bytes(full.memory_footprint_bytes, 2)} "
        f"in all; {fit + 1} would need {fmt_bytes(over.memory_footprint_bytes, 2)}. The step is still "
        f"{bound_phrase(full.bottleneck)} there. That keeps nothing back for the runtime: with 6.10's "
        f"{fmt_bytes(reserve, 0)} reserve, {reserved} fit.",
        "weights": "The weights are stored once and read once per step for the whole batch (Part B); only the "
        f"KV caches are per user. Each {ctx:,}-token cache takes {fmt_bytes(kv1, 2)}: {fit} users fit.",
        "compute": f"A decode step does about 2 FLOPs per weight per user: at {fit} users its intensity is "
        f"{full.arithmetic_intensity.magnitude:,.1f} FLOP/B, far below the ridge, and the step is "
        f"{bound_phrase(full.bottleneck)}. Memory runs out long before the arithmetic does: {fit} users fit.",
        "none": "That is the weights-only budget the chapter warns against. The weights leave "
        f"{fmt_bytes(free)}, but each user's {ctx:,}-token cache takes {fmt_bytes(kv1, 2)}: {fit} users "
        "fill it.",
    }


PRED_D = Prediction(
    question=(
        "Llama-2 7B (32 layers, 32 heads of 128, FP16) holds 13.5 GB of weights on a 40 GB A100, and every "
        "user keeps a 4,096-token context. Users join the batch one at a time. What caps how many it serves "
        "at once?"
    ),
    options={
        "cache": "Memory: each user holds a KV cache beside the shared weights",
        "weights": "Memory: each user needs a copy of the 13.5 GB of weights",
        "compute": "Compute: each user adds a full pass of arithmetic per step",
        "none": "Nothing soon: the weights leave 26 GB free for dozens of users",
    },
    answer="cache",
    feedback=Deferred(_feedback_d),
    reveals=("12 users", "users fill the device"),
    asks="regime",
    misconceptions={
        "weights": (
            "weights per user",
            "Every concurrent user needs the model's weights held again",
        ),
        "compute": (
            "users cost arithmetic first",
            "Each user adds FLOPs, so the GPU's compute runs out before its memory",
        ),
        "none": (
            "a weights-only budget",
            "The memory the weights leave free is what the users can have, at almost no cost each",
        ),
    },
)
D_USERS = Slider("Concurrent users", 1, 64, 8)
D_CONTEXT = Slider("Context per user (tokens)", 512, 32768, 2048, step=512)
D_KV_HEADS = Choice(
    "Key/value heads (of 32 query heads)",
    {"32": "32 (MHA)", "8": "8 (GQA)", "4": "4 (GQA)", "1": "1 (MQA)"},
    "32",
)
D_DEVICE = Choice(
    "Device",
    catalogue.labels(["H100", "A100_40GB", "JetsonOrinNX"]),
    "H100",
)

_USERS = [1, 2, 4, 8, 16, 32, 64]


@lru_cache(maxsize=8)
def gqa_model(kv_heads: int):
    """The chapter's 7B shape with ``kv_heads`` shared key/value heads (32 = the Llama-2 7B preset)."""
    if int(kv_heads) == M.Models.Llama7B.config["kv_heads"]:
        return M.Models.Llama7B
    return M.llama(kv_heads=int(kv_heads), name=f"7B, {int(kv_heads)} KV heads")


def _serve(model, dev, users: int, context: int):
    return E.Engine.solve(
        model,
        dev,
        batch_size=int(users),
        precision=PRECISION,
        efficiency=EFFICIENCY,
        phase="decode",
        seq_len=int(context),
    )


@lru_cache(maxsize=256)
def max_users(kv_heads: int, device: str, context: int) -> int:
    """Most concurrent users whose weights + caches + activations fit (0 if not even one)."""
    return E.max_batch(gqa_model(kv_heads), device, PRECISION, seq_len=int(context))


#: The encoder-decoder comparison in Part D's MathPeek (Figure 12): a translation of
#: ``SEQ2SEQ_TOKENS`` source tokens into as many target tokens.
SEQ2SEQ_TOKENS = 512


@lru_cache(maxsize=1)
def encoder_decoder_vs_decoder_only() -> dict[str, tuple[int, int, int]]:
    """Figure 12's two towers on one task, FP16: (KV-cache bytes after the last target token,
    parameters a decode step reads, all parameters). BART-large (``BartForConditionalGeneration``
    with transformers' defaults, the facebook/bart-large shape: 12 encoder + 12 decoder layers,
    d 1,024) caches its 12 decoder layers' self-attention K/V for the targets and cross-attention
    K/V for the source; GPT-2 Medium (24 decoder layers, d 1,024) reads the source as a prompt and
    caches all 24 layers' K/V over source + target. A decode step of BART runs only its decoder
    (no encoder, no cross-attention K/V projections: they are cached)."""
    n = SEQ2SEQ_TOKENS
    bart = M.from_hf_config(
        {"model_type": "bart", "architectures": ["BartForConditionalGeneration"]}, source_len=n
    )
    gpt = M.from_shipped("gpt2-medium")

    def step(model, s: int) -> int:
        return sum(r.count * r.layer.params for r in model.rows(s, "decode"))

    return {
        "BART-large": (bart.kv_cache_bytes(n, 1, PRECISION), step(bart, n), bart.params),
        "GPT-2 Medium": (gpt.kv_cache_bytes(2 * n, 1, PRECISION), step(gpt, 2 * n), gpt.params),
    }


@widget_args
def part_d(users: int, context: int, kv_heads: str, device: str) -> View:
    import plotly.graph_objects as go

    k = int(kv_heads)
    dev = HW.Hardware.get(device)
    mha, m = gqa_model(M.Models.Llama7B.config["kv_heads"]), gqa_model(k)
    u, ctx = int(users), int(context)
    xs = sorted({*_USERS, u})
    fig = figure(
        f"Serving memory vs concurrent users ({ctx:,}-token contexts, FP16)",
        "Concurrent users",
        "Memory (GB)",
    )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[m.weight_bytes(PRECISION) / 1e9] * len(xs),
            name="weights only",
            mode="lines",
            line=dict(dash="dot"),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[_serve(mha, dev, x, ctx).memory_footprint_bytes / 1e9 for x in xs],
            name=f"weights + KV, {M.Models.Llama7B.config['kv_heads']} KV heads (MHA)",
            mode="lines",
        )
    )
    if k != M.Models.Llama7B.config["kv_heads"]:
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=[_serve(m, dev, x, ctx).memory_footprint_bytes / 1e9 for x in xs],
                name=f"weights + KV, {k} KV head{'s' if k > 1 else ''}",
                mode="lines",
            )
        )
    p = _serve(m, dev, u, ctx)
    fig.add_trace(
        go.Scatter(
            x=[u],
            y=[p.memory_footprint_bytes / 1e9],
            name="your setting",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )
    memory_lines(fig, [dev], unit="GB")

    kv1 = m.kv_cache_bytes(ctx, 1, PRECISION)
    shrink = mha.kv_cache_bytes(ctx, 1, PRECISION) / kv1
    fit = max_users(k, device, ctx)
    wb = m.weight_bytes(PRECISION)
    cfg = m.config
    heads, d_head = cfg["n_heads"], cfg["d_model"] // cfg["n_heads"]
    cards = [
        Card(
            "KV cache per user",
            fmt_bytes(kv1),
            f"{k} KV head{'s' if k > 1 else ''} · {ctx:,} tokens",
            fact=fact(
                "kv_cache_bytes", kv1, model="Llama7B", seq_len=ctx, batch=1, precision=PRECISION
            )
            if m is M.Models.Llama7B
            else None,
        ),
        Card(
            "KV cache, all users",
            fmt_bytes(p.kv_cache_bytes),
            f"{fmt_ratio(p.kv_cache_bytes / wb)} the weights",
            "warn" if p.kv_cache_bytes > wb else "",
        ),
        Card(
            "Weights held", fmt_bytes(wb), "every parameter × 2 B: all a weights-only budget counts"
        ),
        Card(
            "Fits",
            "yes" if p.feasible else "no",
            f"{fmt_bytes(p.memory_footprint_bytes)} of {fmt_bytes(p.capacity_bytes)}"
            if p.feasible
            else f"over by {fmt_bytes(p.over.m_as('B'))}",
            "ok" if p.feasible else "bad",
        ),
        Card(
            "Most users that fit",
            f"{fit:,}",
            f"at {ctx:,} tokens on the {device_label(dev)}",
            "ok" if fit >= u else "bad",
        ),
        Card(
            "Cache shrink vs MHA",
            fmt_ratio(shrink, 0) if k != heads else "none: this is MHA",
            f"{heads} query heads / {k} KV head{'s' if k > 1 else ''}",
        ),
    ]
    summary = (
        f"{counted(u, 'user')} × {ctx:,} tokens hold {fmt_bytes(p.kv_cache_bytes)} of KV cache on top of "
        f"{fmt_bytes(wb)} of weights: {fmt_bytes(p.memory_footprint_bytes)} in all, which "
        + ("fits" if p.feasible else "does not fit")
        + f" the {device_label(dev)}. "
        + (
            f"With {k} KV head{'s' if k > 1 else ''} the cache is {fmt_ratio(shrink, 0)} smaller than MHA, and "
            if k != heads
            else "Every query head keeps its own keys and values (MHA), and "
        )
        + f"{counted(fit, 'user')} fit at this context."
    )
    bart, gpt = encoder_decoder_vs_decoder_only().values()
    peek = [
        "KV = users × layers × 2 (K, V) × kv_heads × S × d_head × 2 B",
        f"   = {u} × {cfg['n_layers']} × 2 × {k} × {ctx:,} × {d_head} × 2 B = {fmt_bytes(p.kv_cache_bytes)}",
        f"need = weights + KV + activations = {fmt_bytes(p.weight_bytes)} + {fmt_bytes(p.kv_cache_bytes)} + "
        f"{fmt_bytes(p.activation_bytes)} = {fmt_bytes(p.memory_footprint_bytes)}",
        f"GQA: cache × kv_heads / n_heads = × {k}/{heads}; the K and V projections shrink with it",
        f"encoder-decoder vs decoder-only (Figure 12), {SEQ2SEQ_TOKENS} source → {SEQ2SEQ_TOKENS} target tokens: "
        f"BART-large (12 encoder + 12 decoder layers, d 1,024) caches {fmt_bytes(bart[0])} (decoder self-attention "
        f"K/V + cross-attention K/V of the source) and a decode step runs layers holding {fmt_count(bart[1])} of "
        f"its {fmt_count(bart[2])} parameters; GPT-2 Medium (24 decoder layers, d 1,024) takes the source as its "
        f"prompt, caches {fmt_bytes(gpt[0])} and a step runs all {fmt_count(gpt[1])}",
    ]
    return View(
        fig,
        cards,
        summary,
        "Serving memory budget",
        peek,
        alert=feasibility(
            p.memory_footprint_bytes,
            dev,
            f"Serving {u} user{'s' if u > 1 else ''} at {ctx:,} tokens",
        ),
    )


# ---------------------------------------------------------------------------------------------
# Transfer questions: one unseen case per part, answered with the part's own controls
# ---------------------------------------------------------------------------------------------

#: Llama-2 13B's published configuration (Touvron et al. 2023 / the HF config.json of
#: meta-llama/Llama-2-13b-hf: hidden 5,120, 40 layers, 40 heads, FFN 13,824): 13,015,864,320
#: parameters. A model Part A does not offer (TRANSFER_A).
LLAMA13B = dict(d_model=5120, n_layers=40, n_heads=40, kv_heads=40, d_ff=13824)
#: TRANSFER_A's and TRANSFER_D's stated launch cost per kernel (the H100's planning value).
TRANSFER_LAUNCH_US = 5
#: TRANSFER_B's case: Part B's context and batch, on a model Part B does not offer.
TRANSFER_B_BATCH, TRANSFER_B_CONTEXT = 32, 2048


@lru_cache(maxsize=4)
def big_model(key: str):
    """The two published shapes the transfers use and no part offers a control for."""
    shapes = {"13b": (LLAMA13B, "Llama-2 13B"), "70b": (LLAMA70B, "Llama-2 70B")}
    cfg, name = shapes[key]
    return M.llama(**cfg, name=name)


def _launch_device(us: float, device: str = "H100"):
    return E.with_launch_cost(HW.Hardware.get(device), U.Q_(float(us), "us").m_as("s"))


def _transfer_a_feedback() -> dict[str, str]:
    m, dev = big_model("13b"), _launch_device(TRANSFER_LAUNCH_US)
    p = E.Engine.solve(
        m, dev, precision=PRECISION, efficiency=EFFICIENCY, phase="decode", seq_len=1024
    )
    kernels = sum(t.kernels for t in p.layers)
    flip = flip_ns(m, HW.Hardware.get("H100"), 1024) * 1e-9
    a100 = E.Engine.solve(
        m,
        _launch_device(TRANSFER_LAUNCH_US, "A100"),
        precision=PRECISION,
        efficiency=EFFICIENCY,
        phase="decode",
        seq_len=1024,
    )
    on_a100 = (
        f"On the A100 the same stream takes {fmt_time(a100.latency_memory_s)} against the same "
        f"{fmt_time(a100.latency_dispatch_s)} of launches."
    )
    return {
        "memory": f"Its {fmt_bytes(m.weight_bytes(PRECISION))} of weights and the cache take "
        f"{fmt_time(p.latency_memory_s)} to stream at {dev.memory.bandwidth:~P}; its {kernels:,} kernels take "
        f"{fmt_time(p.latency_dispatch_s)} to launch at {TRANSFER_LAUNCH_US} µs each. Weight bytes grow with "
        "width squared times depth, launches with depth alone, so a bigger model leans further to memory: "
        f"launches would win only above about {fmt_time(flip)} per kernel. " + on_a100,
        "launch": "Launch-bound is a ratio, not a law of decode: GPT-2 XL's 3.1 GB stream faster than its "
        f"kernels launch, but the 13B model's weights take {fmt_time(p.latency_memory_s)} to stream against "
        f"{fmt_time(p.latency_dispatch_s)} of launches.",
        "compute": f"Size does not change decode's intensity: {p.arithmetic_intensity.magnitude:.2f} FLOP/B, two "
        "FLOPs per two-byte weight, far below the ridge. More arithmetic comes with as many more bytes.",
        "split": f"A faster memory shortens the stream but leaves it the longer term: on the H100 the weights "
        f"take {fmt_time(p.latency_memory_s)} against {fmt_time(p.latency_dispatch_s)} of launches. "
        + on_a100
        + " Memory binds on both.",
    }


TRANSFER_A = Prediction(
    question=(
        "Llama-2 13B (40 layers, width 5,120, FP16) decodes one token at batch 1 with a 1,024-token "
        f"context, on the H100 and on the A100, each kernel launch costing {TRANSFER_LAUNCH_US} µs (the "
        "H100's planning value) on both. Which term sets its time per token on each?"
    ),
    options={
        "launch": "Launches on both: at batch 1 every decode step is launch-bound",
        "memory": "Memory on both: streaming its weights outlasts launching its kernels",
        "compute": "Compute on both: a bigger model does more arithmetic for every token",
        "split": "Launches on the H100, memory on the A100: the H100 streams faster",
    },
    answer="memory",
    feedback=Deferred(_transfer_a_feedback),
    kind="transfer",
    reveals=("leans further to memory", "12.34 µs"),
    asks="regime",
    misconceptions={
        "launch": (
            "decode is always launch-bound",
            "GPT-2 XL's batch-1 decode waits on launches, so every model's does",
        ),
        "compute": (
            "bigger models are compute-bound",
            "More parameters mean more arithmetic, so a larger model moves to the compute roof",
        ),
        "split": (
            "a faster memory makes launches bind",
            "On the device with the faster memory, the stream shrinks below the launches",
        ),
    },
)


def _transfer_b_feedback() -> dict[str, str]:
    b, ctx, dev = TRANSFER_B_BATCH, TRANSFER_B_CONTEXT, HW.Hardware.get("H100")
    big, small = big_model("70b"), M.Models.get(B_MODEL)
    r_big = _decode(big, dev, 1, ctx).bytes_moved / (_decode(big, dev, b, ctx).bytes_moved / b)
    r_small = _decode(small, dev, 1, ctx).bytes_moved / (
        _decode(small, dev, b, ctx).bytes_moved / b
    )
    w_big, kv_big = decode_bytes_split(big, dev, ctx)[0], big.kv_cache_bytes(ctx, 1, PRECISION)
    return {
        "near32": f"It streams {fmt_bytes(w_big)} of weights per step against a {fmt_bytes(kv_big)} cache per "
        f"sequence (8 KV heads for 64 query heads): batch {b} still leaves the weights most of each token's "
        f"bytes, so they fall {fmt_ratio(r_big)}, against {fmt_ratio(r_small)} for the 7B (MHA, "
        f"{fmt_bytes(small.kv_cache_bytes(ctx, 1, PRECISION), 2)} per cache). The caches win only past batch "
        f"{w_big / kv_big:,.0f}.",
        "as7b": "Each sequence does read its own cache, but what matters is the cache beside the weights: "
        f"{fmt_bytes(kv_big)} against {fmt_bytes(w_big)}, so batching divides nearly every byte "
        f"({fmt_ratio(r_big)}, not the 7B's {fmt_ratio(r_small)}).",
        "less": f"With GQA its cache per sequence, {fmt_bytes(kv_big)}, is smaller than the 7B's "
        f"{fmt_bytes(small.kv_cache_bytes(ctx, 1, PRECISION), 2)}, and its weights are ten times larger: "
        f"bytes per token fall {fmt_ratio(r_big)}, more than the 7B's {fmt_ratio(r_small)}.",
    }


TRANSFER_B = Prediction(
    question=(
        "Llama-2 70B (80 layers, 64 query heads sharing 8 KV heads, FP16) decodes with 2,048-token contexts. "
        "Going from one sequence per step to a batch of 32, the bytes read per generated token…"
    ),
    options={
        "near32": "Fall nearly in step with the batch: its weights dwarf its GQA caches",
        "as7b": "Fall about as far as the 7B's: each sequence reads its own cache",
        "less": "Fall less than the 7B's: a 70B model's caches are far larger",
    },
    answer="near32",
    feedback=Deferred(_transfer_b_feedback),
    kind="transfer",
    reveals=("27.0×", "weights most of each token's bytes"),
    asks="direction",
    misconceptions={
        "as7b": (
            "caches always cap batching",
            "Batching buys the same factor for any model, because every sequence has a cache",
        ),
        "less": (
            "bigger model, bigger cache",
            "A model ten times larger keeps a cache ten times larger per sequence",
        ),
    },
)


def _decode_scores(context: int) -> int:
    """One layer's materialized scores in one decode step: one new query against ``context`` keys."""
    d, h = _shape()
    return L.Attention(d_model=d, n_heads=h, seq_len=1, kv_len=int(context)).score_bytes(
        1, PRECISION
    )


def _transfer_c_feedback() -> dict[str, str]:
    x = crossings(HW.Hardware.get("H100").memory.capacity.m_as("B"))
    s = x["kv_fit"]
    return {
        "kv": f"A decode step scores one query against S keys: {fmt_bytes(_decode_scores(s))} per layer at "
        f"{s:,} tokens, a row, not a square. The cache keeps every token's keys and values and, with the "
        f"weights, fills 80 GB near {s:,} tokens: generation is cache-limited.",
        "scores": "Attention's work over a whole sequence grows as S², but it is spread over the steps: each "
        f"step stores one query's row of scores, {fmt_bytes(_decode_scores(s))} per layer at {s:,} tokens. "
        "The S × S matrix exists only when a whole prompt is processed at once.",
        "weights": "Every step reads all the weights, but reading is bandwidth, not capacity: the 3.1 GB are "
        f"held once and never grow. The cache does, and fills 80 GB near {s:,} tokens.",
    }


TRANSFER_C = Prediction(
    question=(
        "Now the context grows by generation: GPT-2 XL's shape (FP16, 80 GB H100, scores materialized, no "
        "tiling) decodes token after token, each new token's query scored against every cached key. As the "
        "context grows, what fills the device first?"
    ),
    options={
        "kv": "The KV cache: it keeps every past token's keys and values",
        "scores": "The scores: attention grows with the square of the context",
        "weights": "The weights: every step reads all of them again",
    },
    answer="kv",
    feedback=Deferred(_transfer_c_feedback),
    kind="transfer",
    reveals=("a row, not a square", "generation is cache-limited"),
    asks="behaviour",
    misconceptions={
        "scores": (
            "decode scores are S × S",
            "Attention is quadratic, so the scores outgrow everything in any phase",
        ),
        "weights": (
            "reading is holding",
            "What every step reads again is what fills the memory",
        ),
    },
)


def _transfer_d_times(
    launch_us: float, context: int = 2048, device: str = "H100"
) -> tuple[float, float]:
    """Batch-1 decode time of the 7B with 32 (MHA) and 8 (GQA) KV heads, at a given launch cost."""
    dev = _launch_device(launch_us, device)
    return tuple(
        E.Engine.solve(
            gqa_model(k),
            dev,
            precision=PRECISION,
            efficiency=EFFICIENCY,
            phase="decode",
            seq_len=context,
        ).latency_s
        for k in (32, 8)
    )


def _transfer_d_feedback() -> dict[str, str]:
    dev, ctx = HW.Hardware.get("H100"), 2048
    mha, gqa = _transfer_d_times(TRANSFER_LAUNCH_US, ctx)
    mha_a, gqa_a = _transfer_d_times(TRANSFER_LAUNCH_US, ctx, "A100")
    on_a100 = (
        f"On the A100 {fmt_time(mha_a)} becomes {fmt_time(gqa_a)}, {fmt_ratio(mha_a / gqa_a, 2)} faster: a "
        "slower memory stretches every byte alike, so the cache's share of the bytes is the same."
    )
    b_mha = _serve(gqa_model(32), dev, 1, ctx).bytes_moved
    b_gqa = _serve(gqa_model(8), dev, 1, ctx).bytes_moved
    kv = gqa_model(32).kv_cache_bytes(ctx, 1, PRECISION)
    return {
        "little": f"At one user the {fmt_bytes(kv, 2)} cache is a small part of the {fmt_bytes(b_mha)} a step reads; "
        f"GQA trims it to {fmt_bytes(kv / 4)} (and the K and V projections a little), so a step reads "
        f"{fmt_bytes(b_gqa)}: {fmt_time(mha)} becomes {fmt_time(gqa)} per token, {fmt_ratio(mha / gqa, 2)} faster. "
        "GQA's payoff is capacity and large batches, where the caches dominate. " + on_a100,
        "split": f"On the H100 {fmt_time(mha)} becomes {fmt_time(gqa)}, {fmt_ratio(mha / gqa, 2)} faster. "
        + on_a100,
        "4x": f"Only the cache shrinks 4×, and at one user it is {fmt_bytes(kv, 2)} of the {fmt_bytes(b_mha)} a step "
        f"reads: {fmt_time(mha)} becomes {fmt_time(gqa)}, {fmt_ratio(mha / gqa, 2)} faster.",
        "none": f"Fewer bytes are read: {fmt_bytes(b_gqa)} instead of {fmt_bytes(b_mha)}, so the memory-bound step "
        f"does speed up, {fmt_time(mha)} to {fmt_time(gqa)}: a little, since the weights dominate.",
    }


TRANSFER_D = Prediction(
    question=(
        "Llama-2 7B decodes for one user at a 2,048-token context, on the H100 and on the A100 (FP16, "
        f"{TRANSFER_LAUNCH_US} µs per kernel launch on both). GQA with 8 KV heads makes its KV cache 4× "
        "smaller. Its time per generated token…"
    ),
    options={
        "little": "Falls only a little on both: at one user the weights are most of the bytes",
        "4x": "Falls about 4× on both: decode is memory-bound and its cache shrank 4×",
        "none": "Stays exactly the same: GQA saves memory capacity, never bandwidth",
        "split": "A little on the H100, near 4× on the A100: a slower memory makes the cache count",
    },
    answer="little",
    feedback=Deferred(_transfer_d_feedback),
    kind="transfer",
    reveals=("GQA's payoff is capacity",),
    asks="direction",
    misconceptions={
        "4x": (
            "the cache is the whole stream",
            "A memory-bound step speeds up by whatever factor its KV cache shrinks",
        ),
        "none": (
            "capacity and bandwidth are separate",
            "Bytes saved in storage are never bytes saved in traffic",
        ),
        "split": (
            "a slower memory weighs the cache more",
            "On a device with less bandwidth, the KV cache is a larger part of each step's time",
        ),
    },
)


# ---------------------------------------------------------------------------------------------
# Part E: heads cost no FLOPs, one pass trains every position, and a 70B model's bytes per token
# ---------------------------------------------------------------------------------------------

#: Llama-2 70B's published configuration (Touvron et al. 2023, Table 1 / the HF config.json of
#: meta-llama/Llama-2-70b-hf: hidden 8,192, 80 layers, 64 heads, 8 KV heads, FFN 28,672,
#: vocabulary 32,000); 68,976,648,192 parameters, the chapter's "70B-parameter model" (L1101).
LLAMA70B = dict(d_model=8192, n_layers=80, n_heads=64, kv_heads=8, d_ff=28672)
#: Part E's attention layer: the 7B shape (d = 4,096) at a 2,048-token training sequence.
E_D_MODEL, E_SEQ = 4096, 2048

PRED_E = Prediction(
    question=(
        "A 4,096-wide attention layer over 2,048 tokens (materialized scores) is split into 32 heads of 128 "
        "instead of one head of 4,096. Its attention FLOPs and the score memory it stores…"
    ),
    options={
        "32x": "Both grow 32×: every head computes and stores its own S × S scores",
        "same": "FLOPs the same, a score matrix per head: the heads split d",
        "fewer": "FLOPs fall 32×, scores stay: each head works on a 32× narrower slice",
        "same_all": "Both stay the same: splitting d changes nothing computed or stored",
    },
    answer="same",
    feedback={
        "32x": "Each head's scores cost S² × d_head MACs (and as many again for P·V), and the heads' widths add up "
        "to d: h × 2 × S² × (d/h) = 2 × S² × d. Heads partition the work; they do not repeat it.",
        "same": "h × 2 × S² × d/h = 2 × S² × d MACs (4 × S² × d FLOPs) for any h (the chapter's self-check "
        "answer). What does grow with h is the "
        "number of S × S score matrices a materialized kernel stores: h of them.",
        "fewer": "Each head is narrower, but there are h of them: the product is unchanged.",
        "same_all": "The FLOPs are unchanged, but a materialized kernel stores one S × S matrix per head: 32× the "
        "score memory of a single head. (A FlashAttention kernel stores none, for any head count.)",
    },
    reveals=("S² × d MACs for any h", "h × S² × d/h"),
    asks="behaviour",
    misconceptions={
        "32x": (
            "each head repeats the work",
            "Every head computes a full attention, so h heads cost h times the FLOPs",
        ),
        "fewer": (
            "narrower heads, less work",
            "Each head works on d/h features, so the layer's arithmetic falls h-fold",
        ),
        "same_all": (
            "same FLOPs, same memory",
            "A change that leaves the arithmetic alone leaves the stored tensors alone too",
        ),
    },
)
E_HEADS = Choice(
    "Heads (d = 4,096 split across them)", {"1": "1", "8": "8", "32": "32", "64": "64"}, "32"
)
E_MODEL = Choice(
    "Model decoding one token at batch 1",
    {"Llama7B": "Llama-2 7B", "70b": "Llama-2 70B (the chapter's 70B example)"},
    "Llama7B",
)


@lru_cache(maxsize=4)
def e_model(key: str):
    return big_model("70b") if key == "70b" else M.Models.get(key)


@widget_args
def part_e(heads: str, model: str) -> View:
    import plotly.graph_objects as go

    h = int(heads)
    grid = [int(k) for k in E_HEADS.options]
    layers = {n: L.Attention(d_model=E_D_MODEL, n_heads=n, seq_len=E_SEQ) for n in grid}
    att = layers[h]
    fig = figure(
        f"One attention layer, d = {E_D_MODEL:,}, {E_SEQ:,} tokens, FP16",
        "Heads",
        "Relative to one head",
    )
    fig.add_trace(
        go.Bar(
            x=[str(n) for n in grid],
            y=[layers[n].flops() / layers[1].flops() for n in grid],
            name="attention FLOPs",
        )
    )
    fig.add_trace(
        go.Bar(
            x=[str(n) for n in grid],
            y=[
                layers[n].score_bytes(1, PRECISION) / layers[1].score_bytes(1, PRECISION)
                for n in grid
            ],
            name="materialized score memory",
        )
    )
    fig.update_layout(barmode="group")

    m = e_model(model)
    dev = HW.Hardware.get("H100")
    dec = E.Engine.solve(
        m, dev, precision=PRECISION, efficiency=EFFICIENCY, phase="decode", seq_len=E_SEQ
    )
    train = m.flops(
        1, E_SEQ, "prefill"
    )  # one teacher-forced pass: every position predicts its next token
    per_token_dec = m.flops(1, E_SEQ, "decode")
    floor = dec.bytes_moved / dev.memory.bandwidth.m_as("B/s")
    masked, unmasked = order.causal_experiment(causal=True), order.causal_experiment(causal=False)
    cards = [
        Card(
            f"Attention FLOPs, {h} head{'s' if h > 1 else ''}",
            fmt_flops(att.flops()),
            "the same as one head's"
            if att.flops() == layers[1].flops()
            else f"{fmt_ratio(att.flops() / layers[1].flops(), 0)} one head's",
        ),
        Card(
            "Score memory",
            fmt_bytes(att.score_bytes(1, PRECISION)),
            f"{h} × {E_SEQ:,}² × 2 B",
            "warn" if h > 1 else "",
        ),
        Card(
            "One teacher-forced forward pass",
            f"{E_SEQ:,} predictions",
            f"causal mask; {fmt_flops(train / E_SEQ)} per prediction (training's backward adds ~2× that)",
        ),
        Card(
            "One decode step",
            "1 prediction",
            f"{fmt_flops(per_token_dec)} for it, after the {E_SEQ:,}-token context",
        ),
        Card(
            "Edit the last token: earlier outputs move by",
            f"{masked['earlier_change']:.2g}",
            f"with the causal mask; without it {unmasked['earlier_change']:.2g} (5 tokens, one head)",
            "ok" if masked["earlier_change"] == 0 else "bad",
        ),
        Card(
            f"{m.name}: bytes per token",
            fmt_bytes(dec.bytes_moved),
            "streamed weights (all but the gathered embedding table) + KV cache, batch 1",
            "bad" if not dec.feasible else "warn",
        ),
        Card(
            "Bandwidth floor per token",
            fmt_time(floor),
            f"at most {1 / floor:,.0f} tokens/s ({conditions(PRECISION, batch=1, device=device_label(dev))}; "
            "bytes / bandwidth, before any launch cost)"
            + ("" if dec.feasible else "; does not fit one H100"),
            "bad" if not dec.feasible else "",
        ),
    ]
    summary = (
        f"Splitting d = {E_D_MODEL:,} into {h} head{'s' if h > 1 else ''} leaves the attention FLOPs at "
        f"{fmt_flops(att.flops())} (4 × S² × d FLOPs for any head count) but stores "
        f"{counted(h, 'score matrix', 'score matrices')} "
        f"({fmt_bytes(att.score_bytes(1, PRECISION))}). In training, a causal mask lets one pass over "
        f"{E_SEQ:,} known tokens make {E_SEQ:,} next-token predictions (teacher forcing), about "
        f"{fmt_flops(train / E_SEQ)} each in the forward pass (the backward adds about twice that); generation "
        f"makes one per step, about {fmt_flops(per_token_dec)}: similar forward arithmetic per token, but each step streams {fmt_bytes(dec.bytes_moved)} for {m.name}, at least "
        f"{fmt_time(floor)} at {dev.memory.bandwidth:~P}."
    )
    peek = [
        f"multi-head MACs = h × 2 × S² × (d/h) = 2 × S² × d = 2 × {E_SEQ:,}² × {E_D_MODEL:,} = {att.macs():,} (any h)",
        f"score bytes = h × S² × 2 B = {h} × {E_SEQ:,}² × 2 = {att.score_bytes(1, PRECISION):,} B",
        "causal mask: scores for later positions set to −∞ before softmax, so position t sees tokens ≤ t; the "
        "FLOP count here includes the masked half (dense evaluation, the chapter's and torch's convention)",
        f"mask check (mlsysim.order, 5 random tokens): editing the last token moves earlier outputs by "
        f"{masked['earlier_change']:.2g} masked, {unmasked['earlier_change']:.2g} unmasked: no prediction sees its answer",
        f"teacher forcing: FLOPs per prediction = prefill FLOPs / S = {fmt_flops(train)} / {E_SEQ:,}",
        f"{m.name}: {m.params:,} params × 2 B = {fmt_bytes(m.weight_bytes(PRECISION))} of weights"
        + (" (the chapter: 70B × 2 B = 140 GB per token)" if model == "70b" else "")
        + f"; streamed per token: {fmt_bytes(dec.bytes_moved - dec.kv_cache_bytes)} (all but the gathered "
        f"embedding table) + KV {fmt_bytes(dec.kv_cache_bytes)} at {E_SEQ:,} tokens",
        f"floor = bytes per token / bandwidth = {fmt_bytes(dec.bytes_moved)} / {dev.memory.bandwidth:~P} = {fmt_time(floor)}",
    ]
    return View(fig, cards, summary, "Heads, masks and bytes per token", peek)


#: TRANSFER_E's text: 2,048 tokens, generated one step at a time or scored in one forward pass.
TRANSFER_E_TOKENS = 2048


@lru_cache(maxsize=1)
def generation_vs_pass() -> tuple[float, float]:
    """(bytes read generating ``TRANSFER_E_TOKENS`` tokens one decode step at a time, bytes read by
    one teacher-forced forward pass over them), Llama-2 7B, FP16, batch 1, H100. A decode step's
    bytes are linear in its context (weights + a cache one token longer each step), so the sum over
    the steps is their count times the mean of the first and the last step's."""
    m, dev, n = M.Models.Llama7B, HW.Hardware.get("H100"), TRANSFER_E_TOKENS

    def step(s: int) -> float:
        return E.Engine.solve(
            m, dev, precision=PRECISION, efficiency=EFFICIENCY, phase="decode", seq_len=s
        ).bytes_moved

    generate = n * (step(1) + step(n)) / 2
    one_pass = E.Engine.solve(
        m, dev, precision=PRECISION, efficiency=EFFICIENCY, phase="prefill", seq_len=n
    ).bytes_moved
    return generate, one_pass


def _transfer_e_feedback() -> dict[str, str]:
    gen, one = generation_vs_pass()
    w = M.Models.Llama7B.weight_bytes(PRECISION)
    n = TRANSFER_E_TOKENS
    return {
        "gen": f"Each of the {n:,} steps streams every weight again, plus a growing cache: {fmt_bytes(gen)} in "
        f"all. The teacher-forced pass reads the {fmt_bytes(w)} of weights once for all {n:,} positions and "
        f"moves {fmt_bytes(one)} with its activations and scores: {fmt_ratio(gen / one, 0)} less. Training "
        "sees the whole text at once; generation cannot, because each token waits for the one before.",
        "same": f"The predictions are equal in number and nearly equal in FLOPs, but not in bytes: generation "
        f"reads every weight {n:,} times ({fmt_bytes(gen)}), the pass once ({fmt_bytes(one)}).",
        "pass": f"The pass moves more at once, {fmt_bytes(one)}, but only once; generation's {n:,} steps each "
        f"read the weights again: {fmt_bytes(gen)} in all, {fmt_ratio(gen / one, 0)} more.",
    }


TRANSFER_E = Prediction(
    question=(
        "Llama-2 7B (FP16, batch 1) generates 2,048 tokens one decode step at a time; separately, it scores "
        "a known 2,048-token text in one teacher-forced forward pass. The bytes read from memory…"
    ),
    options={
        "gen": "Are far more for generation: each step reads every weight again",
        "same": "Are about the same: both make 2,048 predictions with one model",
        "pass": "Are more for the single pass: it moves all 2,048 tokens at once",
    },
    answer="gen",
    feedback=Deferred(_transfer_e_feedback),
    kind="transfer",
    reveals=("reads the weights once for all",),
    asks="direction",
    misconceptions={
        "same": (
            "same predictions, same traffic",
            "Equal numbers of predictions from the same weights move equal bytes",
        ),
        "pass": (
            "bigger tensors, more traffic",
            "Processing every token at once must move more than one token at a time",
        ),
    },
)


# ---------------------------------------------------------------------------------------------
# Part F: the block's building blocks on one forward pass
# ---------------------------------------------------------------------------------------------

#: part F's model, device and prompt (GPT-2 XL's 1,024 learned positions)
F_MODEL, F_DEVICE, F_PROMPT = "GPT2", "H100", 1024
#: TRANSFER_F's shorter prompt, off the part's controls (its prompt is fixed at 1,024)
F_TRANSFER_PROMPT = 128

PRED_F = Prediction(
    question=(
        "One GPT-2 XL forward pass over a 1,024-token prompt runs, in each of its 48 blocks, attention, a "
        "feed-forward MLP, two residual adds and two LayerNorms (FP16, one kernel per layer, H100). The "
        "adds and norms do essentially none of the FLOPs. Their share of the pass's time is…"
    ),
    options={
        "more": "Larger than their FLOP share: they move activations, not FLOPs",
        "same": "About none as well: a pass's time follows its FLOPs",
        "most": "Most of it: elementwise kernels are the slow part of every block",
    },
    answer="more",
    feedback={
        "more": "0% of the FLOPs but 8.2% of the bytes and 10.7% of the time: each add and norm reads and "
        "writes a whole 1,024 × 1,600 activation and launches its own kernel, for a handful of operations per "
        "value. Attention and the feed-forward MLP still take most of the time (48% and 39%), but the glue "
        "is not free.",
        "same": "Time follows bytes and launches as well as FLOPs: the adds and norms do no matrix multiplies "
        "but read and write every activation (8.2% of the bytes) and launch 4 kernels per block, 10.7% of "
        "the time.",
        "most": "They take 10.7% of the time: real, but attention (48%) and the feed-forward MLP (39%) still "
        "dominate a 1,024-token prefill, where the matrix multiplies are compute-bound.",
    },
    reveals=("10.7% of the time", "8.2% of the bytes"),
    asks="behaviour",
    misconceptions={
        "same": (
            "time follows FLOPs",
            "An operation that does no matrix multiplies costs no time",
        ),
        "most": (
            "elementwise ops dominate",
            "The cheap elementwise kernels are where a transformer block spends its time",
        ),
    },
)

TRANSFER_F = Prediction(
    question=(
        "Same model and device, one kernel per layer, but a 128-token prompt instead of 1,024. The residual "
        "adds and LayerNorms' share of the prefill's time…"
    ),
    options={
        "grows": "Grows: each small kernel still pays a fixed launch",
        "shrinks": "Shrinks: fewer tokens leave the glue less to move",
        "same": "Stays put: the block's recipe does not change",
    },
    answer="grows",
    feedback={
        "grows": "10.7% at 1,024 tokens, 24.9% of the time at 128 tokens: the launches of the 4 glue kernels per block cost the "
        "same at any prompt length, while the matrix multiplies shrink with it. Short passes are where "
        "fusion (or a captured graph) pays most.",
        "shrinks": "The glue moves less, but every kernel still pays its launch, and the matrix multiplies "
        "shrink faster: the adds and norms go from 10.7% of the time at 1,024 tokens to 24.9% at 128.",
        "same": "The recipe is the same, the proportions are not: launches are a fixed cost per kernel, so "
        "at 128 tokens the glue takes 24.9% of the time against 10.7% at 1,024.",
    },
    kind="transfer",
    reveals=("24.9% of the time at 128 tokens",),
    asks="direction",
    misconceptions={
        "shrinks": (
            "glue scales with the tokens",
            "The elementwise kernels' cost shrinks in proportion to the work, like the matmuls'",
        ),
        "same": (
            "shares are fixed by the architecture",
            "Each building block's share of the time is a property of the block, not of the input",
        ),
    },
)

F_PHASE = Choice(
    "Pass",
    {"prefill": "Prefill: the 1,024-token prompt", "decode": "Decode: one token after 1,024"},
    "prefill",
)
F_FUSED = Toggle("Compiled graph (fused kernels)", False)


def glue_share(phase: str, fused: bool, seq: int = F_PROMPT) -> tuple[float, float, float]:
    """(FLOPs, bytes, time) share of the residual adds and LayerNorms in one GPT-2 XL pass."""
    s = _block_shares(phase, bool(fused), int(seq))
    return tuple(s["residual"][i] + s["norm"][i] for i in range(3))


@lru_cache(maxsize=16)
def _block_shares(phase: str, fused: bool, seq: int) -> dict[str, tuple[float, float, float]]:
    from ... import anatomy

    prof = E.Engine.solve(
        M.Models.get(F_MODEL),
        HW.Hardware.get(F_DEVICE),
        precision=PRECISION,
        efficiency=EFFICIENCY,
        phase=phase,
        seq_len=seq,
        fused=fused,
    )
    return {k: (v.flops, v.bytes, v.time_s) for k, v in anatomy.shares(prof).items()}


@widget_args
def part_f(phase: str, fused: bool) -> View:
    import plotly.graph_objects as go

    from ... import anatomy

    fu = bool(fused)
    s = _block_shares(phase, fu, F_PROMPT)
    names = {
        "embed": "embeddings",
        "norm": "LayerNorms",
        "attention": "attention",
        "residual": "residual adds",
        "ffn": "feed-forward",
        "head": "output head",
    }
    keys = list(anatomy.BLOCKS)
    cond = conditions(PRECISION, fu, 1, device=HW.Hardware.get(F_DEVICE).name)
    fig = figure(
        f"GPT-2 XL, one {'prefill of 1,024 tokens' if phase == 'prefill' else 'decoded token'}: "
        "each building block's share",
        "Building block",
        "Share of the pass (%)",
    )
    for i, what in enumerate(("FLOPs", "bytes moved", "time")):
        fig.add_trace(
            go.Bar(x=[names[k] for k in keys], y=[100 * s[k][i] for k in keys], name=what)
        )
    fig.update_yaxes(range=[0, 100], ticksuffix="%")
    fig.update_layout(barmode="group")
    g = glue_share(phase, fu)
    cards = [
        Card(
            names[k],
            f"{100 * s[k][2]:.1f}% of the time",
            f"{100 * s[k][0]:.1f}% of the FLOPs, {100 * s[k][1]:.1f}% of the bytes",
        )
        for k in ("attention", "ffn", "residual", "norm")
    ] + [
        Card(
            "Residual adds + LayerNorms",
            f"{100 * g[2]:.1f}% of the time",
            f"{100 * g[0]:.1f}% of the FLOPs: memory traffic and launches, not arithmetic",
            "warn" if g[2] > 0.05 else "ok",
        )
    ]
    summary = (
        f"One GPT-2 XL {'prefill over 1,024 tokens' if phase == 'prefill' else 'decode step at a 1,024-token context'} "
        f"({cond}) passes through the chapter's building blocks in every layer: attention takes "
        f"{100 * s['attention'][2]:.0f}% of the time and the feed-forward MLP {100 * s['ffn'][2]:.0f}%, "
        f"together nearly all the FLOPs; the residual adds and LayerNorms do {100 * g[0]:.1f}% of the FLOPs "
        f"but take {100 * g[2]:.1f}% of the time, moving {100 * g[1]:.1f}% of the bytes and launching their "
        "own kernels. Positions enter once, at the embeddings."
    )
    peek = [
        "rows of the engine's table grouped by block: h.attn.* attention (QKV, scores, output projection), "
        "h.mlp.* feed-forward (two projections + GELU), ResidualAdd, LayerNorm, embed.* (tokens + positions), "
        "lm_head",
        "share = Σ over the block's rows / Σ over all rows, for FLOPs, bytes and time (mlsysim.anatomy)",
        "t = Σ_rows max(FLOPs / (peak × η), bytes / BW) + kernels × dispatch_tax",
    ]
    return View(fig, cards, summary, "One forward pass, block by block", peek)


# ---------------------------------------------------------------------------------------------
# Part G: portable building blocks: one block for text, images and speech
# ---------------------------------------------------------------------------------------------

#: the text encoder part G sets beside each ViT, at the ViT's token count
G_TEXT = "BERTBase"
#: TRANSFER_G: a speech encoder's 1,500 frames (Whisper: 30 s of audio) against BERT-base's 512
#: tokens, both in blocks of BERT-base's shape (width 768, 12 heads, MLP 3,072)
G_SPEECH_FRAMES, G_TEXT_TOKENS = 1500, 512
G_SHAPE = (768, 12, 3072)

PRED_G = Prediction(
    question=(
        "ViT-B/16 cuts a 224 × 224 image into 196 patches of 16 × 16 pixels and adds a class token: 197 "
        "tokens of width 768. BERT-base reads 197 word pieces, also of width 768, in blocks with 12 heads "
        "and a 3,072-wide MLP. One ViT encoder block against one BERT block, in FLOPs and weights:"
    ),
    options={
        "same": "The same: a block sees a token count and a width, not what the tokens were",
        "image": "The ViT block costs more: a patch holds 768 pixel values, a word one discrete ID",
        "text": "The BERT block costs more: its 30,522-word vocabulary enlarges every block",
    },
    answer="same",
    feedback={
        "same": "Identical to the last weight and MAC: 7,087,872 weights and 2.9 GFLOP per block for both, "
        "because a block takes 197 vectors of width 768 and never learns where they came from. The modality "
        "lives in the front end: ViT's patch embedding is a 16 × 16, stride-16 convolution (742,656 weights, "
        "231.2 MFLOP), BERT's a table lookup (23.8 M weights, no FLOPs).",
        "image": "Once a patch is embedded it is a vector of 768 numbers, and so is a word piece once it is "
        "looked up: both blocks do 2.9 GFLOP with 7,087,872 weights. The pixels cost something only in ViT's "
        "front end, the patch convolution (231.2 MFLOP, once per image, not per block).",
        "text": "The vocabulary lives in BERT's front end, its 23.8 M-weight token table, looked up once per "
        "input; no block sees it. Each block holds 7,087,872 weights and does 2.9 GFLOP, the same as a "
        "ViT block at 197 tokens.",
    },
    reveals=("7,087,872 weights", "to the last weight and MAC"),
    asks="behaviour",
    misconceptions={
        "image": (
            "images cost more per block",
            "Pixels are richer than discrete word tokens, so an image model's blocks do more work",
        ),
        "text": (
            "the vocabulary is in every block",
            "A language model's vocabulary size sets the size of each of its transformer blocks",
        ),
    },
)

TRANSFER_G = Prediction(
    question=(
        f"A speech encoder turns 30 s of audio into {G_SPEECH_FRAMES:,} frame tokens (Whisper's encoder) and "
        "runs blocks of BERT-base's shape on them: width 768, 12 heads, MLP 3,072. Against one BERT-base "
        f"block over {G_TEXT_TOKENS} word pieces, one of its blocks costs…"
    ),
    options={
        "more": "More than the 2.9× token ratio: scores grow with the tokens squared",
        "ratio": "Exactly the 2.9× token ratio: every layer's cost is a cost per token",
        "same": "The same: a block of the same shape holds the same weights and work",
    },
    answer="more",
    feedback={
        "more": "3.5× BERT's block (28.1 against 8.1 GFLOP) for 2.9× the tokens: the projections and the MLP "
        "grow with the token count, the score and weighted-sum products with its square. The weights are the "
        "same 7,087,872: the block sees only how many tokens there are and how wide, not that they were "
        "sound.",
        "ratio": "The projections and the MLP are per token, but the scores compare every token with every "
        "other: 3.5× BERT's block (28.1 against 8.1 GFLOP) for 2.9× the tokens.",
        "same": "The weights are the same 7,087,872, but the work follows the token count: 28.1 GFLOP per "
        "block for 1,500 frames against 8.1 GFLOP for 512 word pieces, 3.5×.",
    },
    kind="transfer",
    reveals=("3.5× BERT's block",),
    asks="direction",
    misconceptions={
        "ratio": (
            "cost per token is fixed",
            "A transformer block's cost grows in proportion to its tokens, attention included",
        ),
        "same": (
            "a block's cost is its weights",
            "Blocks with the same weights cost the same, whatever the number of tokens",
        ),
    },
)

G_VIT = Choice(
    "Vision transformer (224 × 224 image)",
    {
        "b_16": "ViT-B/16: 16 × 16 patches, 197 tokens",
        "b_32": "ViT-B/32: 32 × 32 patches, 50 tokens",
    },
    "b_16",
)


@lru_cache(maxsize=4)
def portable(variant: str) -> dict:
    """One ViT-B block and one BERT-base block at the ViT's token count, by building block, and
    each model's front end (mlsysim.anatomy over the two models' rows)."""
    from ... import anatomy, vision

    vit = vision.vit(variant)
    tokens = int(vit.config["image_size"]) // vision._VIT[variant][0]
    tokens = tokens * tokens + 1
    text = M.Models.get(G_TEXT)
    return {
        "tokens": tokens,
        "vit": vit.name,
        "vit_block": anatomy.one_block(vit),
        "text_block": anatomy.one_block(text, tokens),
        "vit_front": anatomy.front_end(vit),
        "text_front": anatomy.front_end(text, tokens),
    }


def speech_vs_text() -> tuple[object, object]:
    """TRANSFER_G: one block of BERT-base's shape over the speech frames and over the text tokens."""
    from ... import anatomy

    return (
        anatomy.encoder_block(*G_SHAPE, G_SPEECH_FRAMES),
        anatomy.block_total(M.Models.get(G_TEXT), G_TEXT_TOKENS),
    )


@widget_args
def part_g(vit: str) -> View:
    import plotly.graph_objects as go

    p = portable(vit)
    s = p["tokens"]
    vb, tb = p["vit_block"], p["text_block"]
    vf, tf = p["vit_front"], p["text_front"]
    vsum = (sum(c.params for c in vb.values()), sum(c.flops for c in vb.values()))
    tsum = (sum(c.params for c in tb.values()), sum(c.flops for c in tb.values()))
    patch = vit.split("_")[1]
    groups = ("attention", "feed-forward MLP", "front end (once per input)")
    fig = figure(
        f"{p['vit']} and BERT-base at {s} tokens: FLOPs of one block's parts and of the front end",
        "Where the work is",
        "GFLOP per input",
    )
    for name, block, front in (
        (f"{p['vit']} (image patches)", vb, vf),
        ("BERT-base (word pieces)", tb, tf),
    ):
        y = [block["attention"].flops / 1e9, block["ffn"].flops / 1e9, front.flops / 1e9]
        fig.add_trace(go.Bar(x=list(groups), y=y, name=name))
    fig.update_layout(barmode="group")
    same = vsum == tsum
    cards = [
        Card(
            f"One {p['vit']} block",
            fmt_flops(vsum[1]),
            f"{vsum[0]:,} weights, {s} tokens of width 768",
        ),
        Card(
            "One BERT-base block",
            fmt_flops(tsum[1]),
            f"{tsum[0]:,} weights, {s} tokens of width 768",
            "ok" if same else "warn",
        ),
        Card(
            f"{p['vit']} front end",
            fmt_flops(vf.flops),
            f"{vf.params:,} weights: a {patch} × {patch}, stride-{patch} convolution cuts the patches",
        ),
        Card(
            "BERT-base front end",
            fmt_flops(tf.flops) if tf.flops else "no FLOPs",
            f"{tf.params:,} weights: a table lookup copies one row per token",
        ),
    ]
    summary = (
        f"At {s} tokens of width 768 one {p['vit']} block and one BERT-base block are "
        + (
            "the same to the last weight and MAC"
            if same
            else f"different ({fmt_flops(vsum[1])} against {fmt_flops(tsum[1])})"
        )
        + f": {vsum[0]:,} weights and {fmt_flops(vsum[1])} each, because a block sees a token count and "
        "a width, not what the tokens were. The modality lives in the front end, run once per input: "
        f"{p['vit']}'s patch convolution does {fmt_flops(vf.flops)} with {vf.params:,} weights, BERT's "
        f"token table does no arithmetic but holds {tf.params:,} weights. That is why one block serves "
        "text, images and speech: swap the front end, keep the blocks."
    )
    peek = [
        "one block (pre-LN or post-LN alike): 4 projections 4·S·d² + scores and weighted sum 2·S²·d + "
        "MLP 2·S·d·d_ff MACs; weights 4(d² + d) + 2·d·d_ff + d_ff + d + 2 norms × 2d",
        f"S = {s}, d = 768, d_ff = 3,072: {vsum[1] // 2:,} MACs = {fmt_flops(vsum[1])} (1 MAC = 2 FLOPs)",
        f"ViT front end: conv 3·{patch}²·768 MACs per patch × {s - 1} patches; class token; {s} "
        "learned positions",
        "BERT front end: 30,522 × 768 word table, 512 positions, 2 segment rows, LayerNorm: lookups, no MACs",
    ]
    return View(fig, cards, summary, "One block, two modalities", peek)
