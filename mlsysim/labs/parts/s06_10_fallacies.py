"""Section 6.10, Fallacies and pitfalls: six beliefs, four experiments the engine answers with numbers.

Part A tests "more complex is better" (fallacy 1), Part B "choose on accuracy alone" (pitfall 2),
Part C "one bottleneck per architecture" and "patterns combine additively" (fallacy 3, pitfall 4),
Part D "training wins transfer to deployment" and "budget the weights only" (fallacy 5, pitfall 6).
Every count comes from ``mlsysim``; the engine measures cost, never accuracy, and the parts say so.
"""

from __future__ import annotations

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
    fact,
    feasibility,
    fmt_bytes,
    fmt_count,
    fmt_ratio,
    fmt_time,
    widget_args,
)
from ..vocab import LABELS, bound_phrase, conditions

E = lazy("mlsysim.engine")
HW = lazy("mlsysim.hardware")
L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")

CHAPTER = "6.10"
PARTS = ("A", "B", "C", "D")


def _precision(dev, wanted: str = "fp16") -> str:
    return wanted if wanted in dev.compute.precisions else dev.compute.quoted_precision


def _terms(p) -> tuple[float, float, float]:
    """(seconds in compute-bound rows, seconds in memory-bound rows, launch seconds) of a profile."""
    comp = sum(t.t_compute for t in p.layers if t.t_compute >= t.t_memory)
    mem = sum(t.t_memory for t in p.layers if t.t_memory > t.t_compute)
    return comp, mem, p.latency_dispatch_s


# ---------------------------------------------------------------------------------------------
# Part A: "More complex architectures always perform better" (fallacy 1, L1558)
# ---------------------------------------------------------------------------------------------

#: Dataset sizes behind the chapter's ViT argument (L1558: "pretraining on far larger datasets").
IMAGENET_1K_IMAGES = 1.3e6  # "~1.3 million" labeled images (chapter L64)
JFT_IMAGES = 303e6  # Dosovitskiy et al. 2021, Sec. 4.1: JFT, 18k classes, 303M images
IMAGENET_21K_IMAGES = 14e6  # same paper: ImageNet-21k, 21k classes, 14M images


@lru_cache(maxsize=8)
def vit(
    d_model: int = 768,
    layers: int = 12,
    heads: int = 12,
    d_ff: int = 3072,
    image: int = 224,
    patch: int = 16,
    classes: int = 1000,
    name: str = "ViT-B/16",
) -> M.Model:
    """A Vision Transformer (timm/torchvision layout): patch-embedding conv, class token and
    learned positions, ``layers`` pre-LN encoder blocks, final LayerNorm, linear head.
    ViT-B/16 at 224² has 86,567,656 parameters, the published count."""
    embed = L.Conv2d(
        in_channels=3, out_channels=d_model, kernel_size=patch, stride=patch, input_size=image
    )
    tokens = embed.output_size[0] * embed.output_size[1] + 1
    block = L.TransformerBlock(d_model=d_model, n_heads=heads, d_ff=d_ff, seq_len=tokens)
    rows = [
        M.Row("patch_embed", embed),
        M.Row("cls_token", L.Embedding(num_embeddings=1, embedding_dim=d_model)),
        M.Row(
            "pos_embed", L.Embedding(num_embeddings=tokens, embedding_dim=d_model, lookups=tokens)
        ),
        M.Row("pos_add", L.ResidualAdd(elements=tokens * d_model)),
    ]
    rows += [M.Row(f"blocks.{n}", leaf, layers) for n, leaf in block.rows()]
    rows += [
        M.Row("norm", L.LayerNorm(normalized_shape=d_model, elements=tokens * d_model)),
        M.Row("head", L.Dense(in_features=d_model, out_features=classes)),
    ]
    return M.Model(
        name,
        "transformer",
        lambda _s, _p: rows,
        description=f"{name}, {image}x{image}",
        config={"d_model": d_model, "layers": layers, "tokens": tokens},
    )


A_MODELS = {
    "MobileNetV2": "MobileNetV2",
    "ResNet50": "ResNet-50",
    "vit_b": "ViT-B/16",
    "vit_l": "ViT-L/16",
}


def a_model(key: str) -> M.Model:
    if key == "vit_b":
        return vit()
    if key == "vit_l":
        return vit(1024, 24, 16, 4096, name="ViT-L/16")
    return M.Models.get(key)


PRED_A = Prediction(
    question=(
        "A teammate wants to swap the ResNet-50 classifier for ViT-B/16 because 'transformers beat CNNs'. "
        "ViT-B/16 does 4.3× ResNet-50's FLOPs per 224² image. On a Jetson Orin NX (FP16, batch 1, eager: "
        "one kernel per layer), its latency is…"
    ),
    options={
        "flops": "Close to 4.3× ResNet-50's: latency follows the FLOPs",
        "more": "Above 4.3×: attention's token-to-token traffic adds to the FLOPs",
        "less": "Well under 4.3×: much of ResNet-50's time is not arithmetic",
        "faster": "Below ResNet-50's: big GEMMs run at full speed, convolutions do not",
    },
    answer="less",
    asks="direction",
    misconceptions={
        "flops": (
            "time follows FLOPs",
            "Latency is proportional to the arithmetic a model does, on any device",
        ),
        "more": (
            "attention is always the expensive part",
            "A transformer pays its FLOPs plus a quadratic memory bill at any sequence length",
        ),
        "faster": (
            "transformers are free on accelerators",
            "Matrix-multiply hardware makes a transformer faster than a CNN whatever its FLOPs",
        ),
    },
    feedback={
        "flops": "Only the arithmetic grows 4.3×. On the Jetson ResNet-50's 5.92 ms is mostly not arithmetic: "
        "174 kernel launches at the engine's 20 µs (3.48 ms) and memory-bound layers (1.63 ms). ViT-B/16 pays "
        "the same launches: 9.21 ms. The FLOP ratio shows through only where arithmetic is nearly all of the "
        "time.",
        "more": "At 197 tokens the score matrices are small (12 × 197² values a layer): ViT-B/16's time is its "
        "big compute-bound GEMMs plus the same 174 launches ResNet-50 pays, 9.21 ms against 5.92 ms, well under "
        "the FLOP ratio. Attention's square law bites at thousands of tokens (Part B), not here.",
        "less": "ResNet-50's 5.92 ms on the Jetson is 3.48 ms of kernel launches (174 × 20 µs), 1.63 ms of "
        "memory-bound layers and only 0.81 ms of compute-bound ones; ViT-B/16 pays the same launches plus "
        "4.48 ms of compute-bound GEMMs and 1.25 ms of memory-bound layers: 9.21 ms. With launches of 2 to "
        "20 µs and an efficiency of 0.3 to 0.7 the ratio stays between 1.4× and 2.7×, well under 4.3× (on an "
        "H100, where launches are nearly all of both, about 1.05×). None of it says whether ViT is more "
        "accurate: that takes data and training, which the engine does not price.",
        "faster": "ViT-B/16 does more arithmetic, not less, and its GEMMs already run compute-bound here: "
        "removing the locality prior removes its savings. It takes 9.21 ms against ResNet-50's 5.92 ms.",
    },
    reveals=("Well under 4.3×", "9.21 ms"),
)
A_DEVICE = Choice(
    "Deployment device",
    catalogue.labels(["JetsonOrinNX", "H100", "CortexA53Camera"]),
    "JetsonOrinNX",
)
A_BATCH = Slider("Batch size", 1, 64, 1)


@widget_args
def part_a(device: str, batch: int) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(device)
    prec = _precision(dev, "fp16")
    b = int(batch)
    models = {k: a_model(k) for k in A_MODELS}
    prof = {
        k: E.Engine.solve(m, dev, batch_size=b, precision=prec, efficiency=0.5)
        for k, m in models.items()
    }
    base = "ResNet50"
    metrics = {
        "parameters": {k: float(m.params) for k, m in models.items()},
        "FLOPs per image": {k: float(m.flops()) for k, m in models.items()},
        "latency": {k: p.latency_s for k, p in prof.items()},
        # (energy per image at TDP would repeat the latency ratio on one device: not drawn)
        "memory (weights + activations)": {
            k: float(p.memory_footprint_bytes) for k, p in prof.items()
        },
    }
    cond = conditions(prec, fused=False, batch=b, device=device_label(dev))
    fig = figure(
        f"Cost relative to ResNet-50 ({cond})",
        "Model",
        "× ResNet-50 (log scale)",
        log_y=True,
    )
    for label, vals in metrics.items():
        fig.add_trace(
            go.Bar(
                x=list(A_MODELS.values()), y=[vals[k] / vals[base] for k in A_MODELS], name=label
            )
        )
    fig.update_layout(barmode="group")
    hline(fig, 1.0, "ResNet-50", dash="dot", position="bottom right")

    vb, r50 = models["vit_b"], models[base]
    pv, pr = prof["vit_b"], prof[base]
    cards = [
        Card(
            "ViT-B/16 parameters",
            fmt_count(vb.params),
            f"{fmt_ratio(vb.params / r50.params)} ResNet-50's",
        ),
        Card(
            "ViT-B/16 FLOPs",
            f"{vb.flops() / 1e9:,.1f} G",
            f"{fmt_ratio(vb.flops() / r50.flops())} ResNet-50's",
        ),
        Card(
            "Latency ViT-B/16",
            fmt_time(pv.latency_s),
            f"{bound_phrase(pv.bottleneck)}; ResNet-50 {fmt_time(pr.latency_s)}, "
            f"{bound_phrase(pr.bottleneck)} ({cond})",
            "warn" if pv.latency_s > pr.latency_s else "ok",
        ),
        Card(
            "Memory ViT-B/16",
            fmt_bytes(pv.memory_footprint_bytes),
            "fits" if pv.feasible else f"over by {fmt_bytes(pv.over.m_as('B'))}",
            "ok" if pv.feasible else "bad",
        ),
        Card("Accuracy", "not computed", "needs data and training, not an engine", "warn"),
        Card(
            "ViT pretraining data",
            fmt_ratio(JFT_IMAGES / IMAGENET_1K_IMAGES, 0),
            "JFT-300M vs ImageNet-1k images (quoted)",
        ),
    ]
    summary = (
        f"At {cond}, ViT-B/16 costs {fmt_ratio(vb.params / r50.params)} the parameters, "
        f"{fmt_ratio(vb.flops() / r50.flops())} the FLOPs and {fmt_ratio(pv.latency_s / pr.latency_s, 2)} the "
        "latency of ResNet-50. That is all the engine can say: the original ViT matched CNNs only after "
        f"pretraining on up to {JFT_IMAGES / 1e6:,.0f} M images, {JFT_IMAGES / IMAGENET_1K_IMAGES:,.0f}× "
        "ImageNet. Without that data you pay the weak prior's cost without its benefit."
    )
    peek = [
        "params, FLOPs: sums over the model's layers (1 MAC = 2 FLOPs)",
        f"ViT-B/16: 196 patches + 1 class token = {vb.config['tokens']} tokens × 12 blocks of d = 768",
        f"  {vb.params:,} params, {vb.flops():,} FLOPs per 224² image",
        f"ResNet-50: {r50.params:,} params, {r50.flops():,} FLOPs",
        f"latency = Engine.solve(..., efficiency 0.5): Σ max(compute, memory) + kernels × {dev.dispatch_tax.m_as('us'):g} µs"
        + (
            "  (the SoC's rate is already sustained: efficiency does not derate it)"
            if dev.compute.is_sustained
            else ""
        ),
        "accuracy is not an engine output: ViT's result depends on pretraining data (Dosovitskiy et al. 2021)",
    ]
    return View(fig, cards, summary, "The cost of a weaker prior", peek)


# ---------------------------------------------------------------------------------------------
# Part B: "Selecting on accuracy alone" (pitfall 2, L1562)
# ---------------------------------------------------------------------------------------------

B_REF_SEQ = 512  # "Sequence length 2,048 ... than length 512" (L1564)
B_D_MODEL = 768  # a BERT-base / GPT-2 small width (the chapter's 12-head examples)
B_HEADS = 12
B_GRID = [128, 256, 512, 1024, 2048, 4096, 8192]

PRED_B = Prediction(
    question=(
        "A paper reports its transformer's accuracy at 512 tokens; you will serve 2,048. Section 6.6's square "
        "law says one layer's score memory grows 16×. On an H100, a transformer block's latency (d = 768, "
        "12 heads, materialized scores, FP16, batch 1) grows…"
    ),
    options={
        "16x": "About 16×: latency follows the S² term, as score memory does",
        "under": "Well under 16×: much of the block's time does not grow as S²",
        "over": "Over 16×: the bigger score matrix spills out of on-chip memory",
        "same": "Barely at all: the GPU processes all the tokens in parallel",
    },
    answer="under",
    asks="direction",
    misconceptions={
        "16x": (
            "latency follows the largest term's growth",
            "If the score memory grows 16×, the block's time grows 16× too",
        ),
        "over": (
            "spilling makes it superlinear",
            "Past the cache, every extra byte costs more than the last",
        ),
        "same": (
            "parallel hardware hides length",
            "A GPU processes every token at once, so sequence length costs no time",
        ),
    },
    feedback={
        "16x": "The score traffic does grow about 15× (8 → 124 µs of memory time) and is half the block's time at "
        "2,048 tokens. But at 512 tokens 70 of the block's 97 µs are fixed kernel launches, which do not grow, "
        "and the projections and FFN grow at most 4×: 97 → 269 µs in all.",
        "under": "97 µs → 269 µs at the engine's 5 µs per launch. At 512 tokens fixed launches are 70 of the "
        "97 µs and the projections and FFN grow 4×; the score traffic grows about 15× and is half the block at "
        "2,048 tokens. With launches of 2 to 20 µs and an efficiency of 0.3 to 0.7 the growth stays between "
        "1.5× and 4.1×, and it climbs towards the square law only as sequences grow.",
        "over": "The scores already live in HBM at 512 tokens (12 × 512² × 2 B = 6.3 MB a layer): the engine "
        "charges each byte the same bandwidth, so the score traffic grows 15-16×, and the rest of the block "
        "far less: 97 → 269 µs.",
        "same": "Parallel hardware still does 4× the linear work and 16× the score work; only the fixed launch "
        "cost stays flat: 97 → 269 µs.",
    },
    reveals=("Well under 16×", "269 µs"),
)
B_SEQ = Slider("Sequence length you will serve (tokens)", 128, 8192, 2048, step=128)
B_DEVICE = Choice("Device", catalogue.labels(["H100", "JetsonOrinNX"]), "H100")


@lru_cache(maxsize=64)
def _seq_layers(s: int):
    attn = L.Attention(d_model=B_D_MODEL, n_heads=B_HEADS, seq_len=s)
    lstm = L.LSTM(input_size=B_D_MODEL, hidden_size=B_D_MODEL, seq_len=s)
    block = L.TransformerBlock(d_model=B_D_MODEL, n_heads=B_HEADS, d_ff=4 * B_D_MODEL, seq_len=s)
    return attn, lstm, block


@widget_args
def part_b(seq: int, device: str) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(device)
    prec = _precision(dev, "fp16")
    s = int(seq)

    def stats(n):
        attn, lstm, block = _seq_layers(n)
        return {
            "scores": attn.score_bytes(1, prec),
            "steps": lstm.serial_steps,
            "lstm_s": E.Engine.solve(lstm, dev, precision=prec).latency_s,
            "block_s": E.Engine.solve(block, dev, precision=prec).latency_s,
        }

    ref = stats(B_REF_SEQ)
    # the curves reach the length served (at least 2,048): TRANSFER_B asks what 8,192 costs
    # before the student slides there
    lengths = [n for n in B_GRID if n <= max(s, 2048)]
    grid = {n: stats(n) for n in lengths}
    now = stats(s)
    fig = figure(
        f"What grows with sequence length (relative to {B_REF_SEQ} tokens, {device_label(dev)})",
        "Sequence length (tokens)",
        f"× the value at {B_REF_SEQ} tokens (log scale)",
        log_x=True,
        log_y=True,
    )
    series = {
        "attention score memory (S²)": "scores",
        "LSTM serial steps (S)": "steps",
        "LSTM latency (serial chain)": "lstm_s",
        "transformer block latency (parallel)": "block_s",
    }
    for label, key in series.items():
        # the step count is drawn wide and pale under the LSTM's latency, which follows it
        # exactly where launches bind (it was hidden under it on the H100)
        wide = key == "steps"
        fig.add_trace(
            go.Scatter(
                x=lengths,
                y=[grid[n][key] / ref[key] for n in lengths],
                name=label,
                mode="lines" if wide else "lines+markers",
                line=dict(width=8) if wide else None,
                opacity=0.45 if wide else None,
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[s],
            y=[now["scores"] / ref["scores"]],
            name="your length",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )

    attn, lstm, block = _seq_layers(s)
    lp = E.Engine.solve(lstm, dev, precision=prec)
    bp = E.Engine.solve(block, dev, precision=prec)
    cards = [
        Card("Score memory / layer", fmt_bytes(now["scores"]), f"{B_HEADS} heads × {s:,}² × FP16"),
        Card(
            f"vs {B_REF_SEQ} tokens",
            fmt_ratio(now["scores"] / ref["scores"], 1),
            "quadratic",
            "bad" if now["scores"] > ref["scores"] else "",
        ),
        Card(
            "LSTM critical path", f"{lstm.serial_steps:,} steps", "no hardware can parallelize them"
        ),
        Card(
            "LSTM latency",
            fmt_time(lp.latency_s),
            f"{bound_phrase(lp.bottleneck)}; {lstm.kernels:,} kernels",
            "warn",
        ),
        Card(
            "Transformer block",
            fmt_time(bp.latency_s),
            f"{bound_phrase(bp.bottleneck)}; all {s:,} tokens at once",
        ),
    ]
    summary = (
        f"At {s:,} tokens, materialized attention scores take {fmt_bytes(now['scores'])} per layer, "
        f"{now['scores'] / ref['scores']:,.1f}× the {B_REF_SEQ}-token figure; an LSTM of the same width keeps a "
        f"tiny state but walks {lstm.serial_steps:,} dependent steps ({fmt_time(lp.latency_s)} against "
        f"{fmt_time(bp.latency_s)} for a transformer block on the {device_label(dev)}). Neither cost appears in an "
        "accuracy table."
    )
    peek = [
        f"scores = heads × S² × bytes = {B_HEADS} × {s:,}² × 2 = {now['scores']:,} B",
        f"ratio  = (S / {B_REF_SEQ})² = ({s:,} / {B_REF_SEQ})² = {(s / B_REF_SEQ) ** 2:,.2f}   (2,048 vs 512: 16×)",
        f"LSTM: {lstm.serial_steps:,} serial steps, each a GEMV that re-reads W_hh: {lstm.kernels:,} kernels",
        f"LSTM state = {fmt_bytes(lstm.state_bytes(1, prec))} whatever S is; the chain, not the memory, is its cost",
        "FlashAttention-style tiling removes the stored scores, not the S² FLOPs",
    ]
    return View(fig, cards, summary, "Quadratic storage, serial chains", peek)


# ---------------------------------------------------------------------------------------------
# Part C: one bottleneck per architecture? (fallacy 3, L1566) · hybrids add up? (pitfall 4, L1570)
# ---------------------------------------------------------------------------------------------

#: The hybrid: ResNet-50 up to its third stage (stride 16, 1,024 channels), then transformer blocks
#: over the feature-map tokens in place of the last stage (a BoTNet-style CNN + attention hybrid).
HYBRID_BLOCKS = 3
HYBRID_HEADS = 16
#: "small-batch autoregressive decoding" (L1568): the transformer runs one sequence.
GPT2_BATCH = 1

PRED_C = Prediction(
    question=(
        "A team replaces ResNet-50's last stage with 3 attention blocks over its feature map "
        "(896² images: 3,136 tokens, batch 8, FP16, compiled, scores materialized, on an H100), "
        "expecting the CNN's cost, less the removed stage, plus the blocks' FLOPs. Against the "
        "CNN alone, the hybrid is…"
    ),
    options={
        "same": "About as fast: the blocks replace a stage of similar cost",
        "faster": "Faster: attention has no sliding windows to pay for",
        "shift": "Several times slower: its stored scores make it memory-bound",
        "additive": "Slower by the blocks' FLOPs: it stays compute-bound",
    },
    answer="shift",
    asks="regime",
    misconceptions={
        "same": (
            "a block costs what the stage it replaces cost",
            "Swapping one stage for blocks of similar width keeps the cost",
        ),
        "faster": (
            "attention is cheaper than convolution",
            "Without sliding windows a layer has less work to do",
        ),
        "additive": (
            "patterns combine additively",
            "A hybrid's cost is the sum of its parts' benchmarks (pitfall 4)",
        ),
    },
    feedback={
        "same": "Tokens grow with the image's area and scores with its square: 3,136 tokens give 16 × 3,136² "
        "scores per block, far more than the stage they replace.",
        "faster": "Attention over 3,136 tokens is 2·S²·d MACs per block; no window keeps it local.",
        "shift": "3.40 ms → 16.37 ms, 4.8×, and memory-bound: the materialized scores move more bytes than the "
        "blocks' arithmetic can hide. With launches of 2 to 20 µs and an efficiency of 0.3 to 0.7 the hybrid "
        "stays memory-bound and 3.9× to 5.3× slower. Patterns do not combine additively (pitfall 4).",
        "additive": "Adding the parts' benchmarks misses the interaction: the S² score traffic makes the hybrid "
        "memory-bound, so its time is set by bytes, not by FLOPs: 16.37 ms against the CNN's 3.40 ms.",
    },
    reveals=("4.8×", "16.37 ms"),
)
C_SEQ = Slider("Prompt length for prefill / context for decode (tokens)", 128, 1024, 1024, step=128)
C_RES = Slider("Hybrid input image side (pixels)", 224, 1024, 896, step=32)
C_BATCH = Slider("Images per batch (CNN and hybrid)", 1, 32, 8)
C_DEVICE = Choice("Device", catalogue.labels(["H100", "JetsonOrinNX"]), "H100")
C_FLASH = Toggle("Hybrid uses tiled attention (scores never stored)", False)


@lru_cache(maxsize=32)
def hybrid(image: int, flash: bool = False) -> tuple[M.Model, M.Model, int]:
    """(ResNet-50 at ``image``, the CNN + attention hybrid, attention tokens)."""
    cnn = M.resnet(50, input_size=int(image))
    rows = [r for r in cnn.rows() if not r.name.startswith(("layer4", "avgpool", "fc"))]
    last = [r.layer for r in rows if isinstance(r.layer, L.Conv2d)][-1]
    h, w = last.output_size
    tokens = h * w
    d = last.out_channels
    block = L.TransformerBlock(
        d_model=d, n_heads=HYBRID_HEADS, d_ff=4 * d, seq_len=tokens, flash=bool(flash)
    )
    rows = rows + [M.Row(f"attn_blocks.{n}", leaf, HYBRID_BLOCKS) for n, leaf in block.rows()]
    rows.append(M.Row("head", L.Dense(in_features=d, out_features=1000)))
    model = M.Model(
        f"ResNet-50 + attention ({image}²)",
        "hybrid",
        lambda _s, _p: rows,
        config={"tokens": tokens, "d_model": d},
    )
    return cnn, model, tokens


def _decode_note(dec, g, dev, s: int, kw: dict) -> str:
    """Why decode is launch-bound where it is (the chapter calls small-batch decode memory-bound):
    its launches outweigh its weight and cache traffic, and with free launches (what a captured
    CUDA graph nearly gives) the engine finds the chapter's bound."""
    if dec.bottleneck != "Dispatch":
        return ""
    free = E.Engine.solve(
        g, E.with_launch_cost(dev, 0.0), batch_size=GPT2_BATCH, phase="decode", seq_len=s, **kw
    )
    kernels = sum(t.kernels for t in dec.layers)
    return (
        f" (its {kernels:,} kernel launches, {fmt_time(dec.latency_dispatch_s)}, outweigh its "
        f"{fmt_time(dec.latency_memory_s)} of weight and cache traffic; with free launches, as a "
        f"captured CUDA graph nearly gives, it is {bound_phrase(free.bottleneck)}, the chapter's case)"
    )


@widget_args
def part_c(seq: int, res: int, batch: int, device: str, flash: bool) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(device)
    prec = _precision(dev, "fp16")
    b, s = int(batch), int(seq)
    cnn, hyb, tokens = hybrid(int(res), bool(flash))
    g = M.Models.GPT2
    kw = dict(precision=prec, efficiency=0.5, fused=True)
    profs = {
        "GPT-2 XL prefill": E.Engine.solve(
            g, dev, batch_size=GPT2_BATCH, phase="prefill", seq_len=s, **kw
        ),
        "GPT-2 XL decode": E.Engine.solve(
            g, dev, batch_size=GPT2_BATCH, phase="decode", seq_len=s, **kw
        ),
        f"ResNet-50 {int(res)}²": E.Engine.solve(cnn, dev, batch_size=b, **kw),
        f"+ attention ({tokens:,} tokens)": E.Engine.solve(hyb, dev, batch_size=b, **kw),
    }
    labels = [f"{k}<br>{fmt_time(p.latency_s)}" for k, p in profs.items()]
    terms = {k: _terms(p) for k, p in profs.items()}
    fig = figure(
        f"Where the time goes ({prec.upper()}, compiled graph, {device_label(dev)}; GPT-2 XL at batch 1, "
        f"images at batch {b})",
        "Workload",
        "Share of latency (%)",
    )
    for i, name in enumerate(("compute-bound layers", "memory-bound layers", "kernel launches")):
        fig.add_trace(
            go.Bar(
                x=labels, y=[100 * terms[k][i] / p.latency_s for k, p in profs.items()], name=name
            )
        )
    fig.update_layout(barmode="stack")

    pre, dec = profs["GPT-2 XL prefill"], profs["GPT-2 XL decode"]
    pc, ph = list(profs.values())[2:]
    attn_rows = [t for t in ph.layers if t.name.startswith("attn_blocks")]
    attn_share = sum(t.time for t in attn_rows) / ph.latency_s
    gpt = conditions(prec, fused=True, batch=GPT2_BATCH, device=device_label(dev))
    img = conditions(prec, fused=True, batch=b, device=device_label(dev))
    cards = [
        Card(
            "Prefill",
            bound_phrase(pre.bottleneck),
            f"{pre.arithmetic_intensity.magnitude:,.0f} FLOP/B; GPT-2 XL, {s:,} tokens, {gpt}",
            "ok" if pre.bottleneck == "Compute" else "warn",
        ),
        Card(
            "Decode",
            bound_phrase(dec.bottleneck),
            f"{dec.arithmetic_intensity.magnitude:,.1f} FLOP/B; GPT-2 XL, {s:,}-token context, {gpt}",
            "warn",
        ),
        Card("CNN alone", bound_phrase(pc.bottleneck), f"{fmt_time(pc.latency_s)}; {img}"),
        Card(
            "CNN + attention",
            bound_phrase(ph.bottleneck),
            f"{fmt_time(ph.latency_s)}; attention {attn_share:.0%} of it",
            "warn" if ph.bottleneck != pc.bottleneck else "",
        ),
        Card(
            "Hybrid vs CNN",
            fmt_ratio(ph.latency_s / pc.latency_s),
            "slower" if ph.latency_s > pc.latency_s else "faster",
        ),
    ]
    summary = (
        f"Same GPT-2 XL weights at batch 1: prefill of {s:,} tokens is {bound_phrase(pre.bottleneck)} at "
        f"{pre.arithmetic_intensity.magnitude:,.0f} FLOP/B, decode is {bound_phrase(dec.bottleneck)} at "
        f"{dec.arithmetic_intensity.magnitude:,.1f} FLOP/B{_decode_note(dec, g, dev, s, kw)}. Swapping ResNet-50's "
        f"last stage for {HYBRID_BLOCKS} "
        f"attention blocks over {tokens:,} tokens (batch {b}) "
        + (
            f"turns a {bound_phrase(pc.bottleneck)} {fmt_time(pc.latency_s)} into a "
            f"{bound_phrase(ph.bottleneck)} {fmt_time(ph.latency_s)}"
            if ph.bottleneck != pc.bottleneck
            else f"keeps it {bound_phrase(ph.bottleneck)} but takes {fmt_time(ph.latency_s)} instead of "
            f"{fmt_time(pc.latency_s)}, {attn_share:.0%} of it in attention"
        )
        + ": the interaction (tokens grow with image area, scores with its square) is in neither part's "
        "benchmark."
    )
    sc = L.Attention(d_model=hyb.config["d_model"], n_heads=HYBRID_HEADS, seq_len=tokens)
    eager_ai = E.Engine.solve(
        g, dev, batch_size=GPT2_BATCH, phase="prefill", seq_len=s, precision=prec, efficiency=0.5
    ).arithmetic_intensity.magnitude
    peek = [
        "each layer row is charged max(FLOPs / (peak × 0.5), bytes / BW); launches are added on top",
        f"prefill: {s:,} tokens share each weight  ->  {pre.arithmetic_intensity.magnitude:,.1f} FLOP/B",
        f"decode:  1 token per weight read (+ KV cache)  ->  {dec.arithmetic_intensity.magnitude:,.2f} FLOP/B",
        f"{LABELS['ridge_peak']} of the {device_label(dev)}: {dev.ridge_point(prec).magnitude:,.0f} FLOP/B at {prec.upper()}; "
        f"{LABELS['ridge_sustained']} at η = 0.5: {dev.sustained_ridge_point(prec, 0.5).magnitude:,.0f} (the roof charged here)",
        f"hybrid tokens = ({int(res)} / 16)² = {tokens:,};  scores per block = {HYBRID_HEADS} × {tokens:,}² × 2 B = "
        f"{fmt_bytes(sc.score_bytes(b, prec) / b)} per image"
        + (" (tiled: never stored)" if flash else ""),
        "compiled graph: BN folded and activations fused, so the CNN's own convs set its regime",
        "6.7 runs GPT-2 XL eager (one kernel per layer): activations travel between kernels there, so its "
        f"prefill intensity is lower than this compiled one ({eager_ai:,.0f} against "
        f"{pre.arithmetic_intensity.magnitude:,.0f} FLOP/B here)",
    ]
    facts = [
        fact("ridge_peak", dev.ridge_point(prec).magnitude, device=device, precision=prec),
        fact(
            "ridge_sustained",
            dev.sustained_ridge_point(prec, 0.5).magnitude,
            device=device,
            precision=prec,
            efficiency=0.5,
        ),
    ]
    return View(fig, cards, summary, "Regime and composition", peek, facts=facts)


# ---------------------------------------------------------------------------------------------
# Part D: training wins transfer? (fallacy 5, L1574) · weights-only budgets (pitfall 6, L1578)
# ---------------------------------------------------------------------------------------------

TRAINING_GPUS = 8  # "8× A100 GPUs (640 GB total memory)" (L1576)
CHAPTER_MODEL_GB = 8  # the self-check's vision model: "weights require only 8 GB" (L1593)

PRED_D = Prediction(
    question=(
        "A 7B chat model whose FP16 weights take 13.5 GB of a 16 GB Jetson Orin NX serves 2,048-token "
        "conversations beside a 1 GB runtime reserve. Quantizing weights and KV cache to INT8 halves every "
        "byte. The number of conversations that fit…"
    ),
    options={
        "2x": "Doubles: half the bytes per value gives twice the conversations",
        "none": "Stays the same: the KV cache, not the weights, limits it",
        "many": "More than doubles: freed weight bytes become room for caches",
        "less": "Rises, but under 2×: the fixed reserve does not shrink",
    },
    answer="many",
    asks="direction",
    misconceptions={
        "2x": (
            "capacity scales with bytes per value",
            "Halving every byte doubles whatever fits, whatever else shares the device",
        ),
        "none": (
            "only the cache matters",
            "Conversations are limited by the KV cache alone, so the weights' precision is irrelevant",
        ),
        "less": (
            "fixed overheads dilute the gain",
            "A fixed reserve keeps a memory saving from paying off in full",
        ),
    },
    feedback={
        "2x": "Halving every byte would double the conversations only if nothing else shared the device. The "
        "weights take most of it: halving them multiplies the leftover room several times, and each "
        "cache also halves. Budgets with a large fixed term respond non-linearly.",
        "none": "The caches are quantized too (half the bytes each), and the weights they compete with shrink "
        "from 13.5 to 6.7 GB: both terms move.",
        "many": "FP16: 16 − 1 − 13.5 = 1.5 GB of room, one 1.07 GB cache. INT8: 16 − 1 − 6.7 = 8.3 GB of room "
        "for 0.54 GB caches, 15 conversations. With no reserve it is 2 → 17, with 2 GB none → 13: always far more "
        "than double. The fixed weight term is what a weights-only budget hides.",
        "less": "The reserve is fixed, but it only shrinks the room, which the halved weights enlarge by far more: "
        "16 − 1 − 6.7 = 8.3 GB instead of 1.5 GB, for caches half the size (1 → 15 conversations).",
    },
    reveals=("15 conversations", "More than doubles", "freed weight bytes"),
)
D_PRECISION = Choice("Weights and KV cache", {"fp16": "FP16", "int8": "INT8"}, "fp16")
D_USERS = Slider("Concurrent conversations", 1, 32, 2)
D_CONTEXT = Slider("Tokens per conversation", 256, 4096, 2048, step=256)
D_DEVICE = Choice(
    "Deployment device",
    catalogue.labels(["JetsonOrinNX", "A100_40GB", "A100", "H100"]),
    "JetsonOrinNX",
    inline=False,
)
D_RESERVE = Slider(
    "OS, runtime and workspace you reserve (GB, your assumption)",
    0.0,
    4.0,
    catalogue.RUNTIME_RESERVE_BYTES / 1e9,
    step=0.5,
)
D_GRID = [1, 2, 4, 8, 16, 32]


def llm_footprint(users: int, context: int, precision: str, device: str = "JetsonOrinNX") -> dict:
    """Weights, KV cache and live activations of the 7B model decoding ``users`` conversations."""
    p = E.Engine.solve(
        M.Models.Llama7B,
        device,
        batch_size=int(users),
        precision=precision,
        phase="decode",
        seq_len=int(context),
    )
    return {
        "weights": p.weight_bytes,
        "kv": p.kv_cache_bytes,
        "act": p.activation_bytes,
        "total": p.memory_footprint_bytes,
        "profile": p,
    }


def max_users(context: int, precision: str, device: str, reserve_b: float) -> int:
    """Most conversations that fit beside the weights and the reserve (``engine.max_batch``)."""
    return E.max_batch(
        M.Models.Llama7B, device, precision, seq_len=int(context), reserve_bytes=reserve_b
    )


@widget_args
def part_d(precision: str, users: int, context: int, device: str, reserve: float) -> View:
    import plotly.graph_objects as go

    dev = HW.Hardware.get(device)
    jetson = HW.Hardware.get("JetsonOrinNX")
    a100 = HW.Hardware.get("A100")
    u, c = int(users), int(context)
    reserve_b = float(reserve) * 1e9
    fp = {n: llm_footprint(n, c, precision, device) for n in D_GRID}
    now = llm_footprint(u, c, precision, device)
    total = now["total"] + reserve_b
    two = dev.key != jetson.key
    fig = figure(
        f"Memory for the 7B model ({precision.upper()}, {c:,} tokens per conversation)",
        "Concurrent conversations",
        "GB (log scale)" if two else "GB",
        log_y=two,  # a 16 GB and a 40-80 GB device on one chart: a linear axis squeezes the first
    )
    fig.add_trace(
        go.Scatter(
            x=D_GRID, y=[fp[n]["weights"] / 1e9 for n in D_GRID], name="weights", mode="lines"
        )
    )
    fig.add_trace(
        go.Scatter(
            x=D_GRID,
            y=[(fp[n]["weights"] + fp[n]["kv"]) / 1e9 for n in D_GRID],
            name="+ KV cache",
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=D_GRID,
            y=[(fp[n]["total"] + reserve_b) / 1e9 for n in D_GRID],
            name="+ activations + your reserve",
            mode="lines+markers",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[u],
            y=[total / 1e9],
            name="your setting",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )
    memory_lines(fig, [jetson] if dev.key == jetson.key else [jetson, dev], unit="GB")

    cluster = TRAINING_GPUS * a100.memory.capacity.m_as("B")
    fit_n = max_users(c, precision, device, reserve_b)
    kv_one = M.Models.Llama7B.kv_cache_bytes(c, 1, precision)
    cards = [
        Card("Training cluster", fmt_bytes(cluster), f"{TRAINING_GPUS} × A100 80 GB"),
        Card(
            "This device",
            fmt_bytes(dev.memory.capacity.m_as("B")),
            f"{cluster / dev.memory.capacity.m_as('B'):,.0f}× less than the cluster",
        ),
        Card(
            "Weights",
            fmt_bytes(now["weights"]),
            f"{M.Models.Llama7B.params / 1e9:,.2f} B params × {precision.upper()}",
        ),
        Card(
            "KV cache / conversation",
            fmt_bytes(kv_one),
            f"{c:,} tokens",
            fact=fact(
                "kv_cache_bytes", kv_one, model="Llama7B", seq_len=c, batch=1, precision=precision
            ),
        ),
        Card(
            f"Total at {u} conversation{'s' if u > 1 else ''}",
            fmt_bytes(total),
            "incl. your reserve",
            "ok" if total <= dev.memory.capacity.m_as("B") else "bad",
        ),
        Card(
            "Conversations that fit",
            f"{fit_n}",
            f"with {float(reserve):g} GB reserved",
            "bad" if fit_n == 0 else ("warn" if fit_n < u else "ok"),
        ),
    ]
    summary = (
        f"On the {device_label(dev)}, the weights take {fmt_bytes(now['weights'])} and each {c:,}-token conversation "
        f"adds {fmt_bytes(kv_one)} of KV cache: {fit_n} conversation{'s fit' if fit_n != 1 else ' fits'} beside a "
        f"{float(reserve):g} GB reserve. The training cluster's {fmt_bytes(cluster)} made none of this visible; "
        "budget weights, cache and runtime together on the deployment target."
    )
    cfg = M.Models.Llama7B.config
    d_head = cfg["d_model"] // cfg["n_heads"]
    peek = [
        f"KV per conversation = layers × 2 × kv_heads × S × d_head × bytes = {cfg['n_layers']} × 2 × {cfg['kv_heads']} × "
        f"{c:,} × {d_head} × {1 if precision == 'int8' else 2} = {kv_one:,} B",
        f"weights = {M.Models.Llama7B.params:,} × {1 if precision == 'int8' else 2} B = {fmt_bytes(now['weights'])} "
        "(the chapter's '7B × 2 B = 14 GB' rounds the count)",
        f"total = weights + users × KV + live activations + reserve = {fmt_bytes(now['weights'])} + "
        f"{fmt_bytes(now['kv'])} + {fmt_bytes(now['act'])} + {fmt_bytes(reserve_b)} = {fmt_bytes(total)}",
        f"chapter's 8 GB model on the Jetson: {fmt_bytes(jetson.memory.capacity.m_as('B'))} − {CHAPTER_MODEL_GB} GB = "
        f"{fmt_bytes(jetson.memory.capacity.m_as('B') - CHAPTER_MODEL_GB * 1e9)} left for activations, KV, workspace, OS",
        f"cluster = {TRAINING_GPUS} × {fmt_bytes(a100.memory.capacity.m_as('B'))} = {fmt_bytes(cluster)}  (GB = 1e9 B)",
    ]
    alert = feasibility(
        total, dev, f"{u} conversation{'s' if u > 1 else ''} of {c:,} tokens plus your reserve"
    )
    return View(fig, cards, summary, "Deployment memory budget", peek, alert)


# ---------------------------------------------------------------------------------------------
# Transfer questions: one unseen case per part, answered with the part's own controls
# ---------------------------------------------------------------------------------------------

TRANSFER_A = Prediction(
    question=(
        "Now deploy on an iPhone 15 Pro's GPU (not offered above): FP16 at 2.1 TFLOP/s, a seventh of the "
        "Jetson's rate, but 50 µs per kernel launch against the Jetson's 20 µs. At batch 1, ViT-B/16's latency "
        "relative to ResNet-50's moves…"
    ),
    options={
        "toward": "Toward the FLOP ratio: arithmetic is more of the time there",
        "one": "Toward 1×: the dearer launches weigh on both of the models alike",
        "same": "Nowhere: the ratio belongs to the models, not the device",
    },
    answer="toward",
    asks="regime",
    misconceptions={
        "one": (
            "launch cost sets every small-batch ratio",
            "A device with costlier launches is always more launch-bound at batch 1",
        ),
        "same": (
            "cost ratios are intrinsic to models",
            "Two models' latency ratio is a property of the models alone",
        ),
    },
    feedback={
        "toward": "Both effects are real, but the slower arithmetic wins: ViT-B/16's GEMMs take tens of "
        "milliseconds at 2.1 TFLOP/s, while 174 launches at 50 µs add 8.7 ms to each model. About 2.3× "
        "(42.8 ms against 18.7 ms), up from the Jetson's 1.6×, and higher on the phone at every efficiency "
        "from 0.3 to 0.7.",
        "one": "The 174 launches do cost 8.7 ms per model, but at a seventh of the Jetson's rate ViT-B/16's "
        "arithmetic grows by far more: the ratio rises to about 2.3× (42.8 against 18.7 ms).",
        "same": "The ratio is set by which costs dominate on each device: 1.05× on the launch-bound H100, 1.6× "
        "on the Jetson, about 2.3× on the phone's slower GPU, 4.3× where arithmetic is all of it.",
    },
    kind="transfer",
    reveals=("about 2.3×", "42.8 ms"),
)

TRANSFER_B = Prediction(
    question=(
        "Now double the sequence from 8,192 to 16,384 tokens (past the slider). The transformer block's "
        "latency grows by…"
    ),
    options={
        "near4": "Close to 4×: the S² score traffic now sets the time",
        "2x": "About 2×: latency is linear in tokens, like the projections",
        "under2": "Under 2×: fixed launch costs still dilute the growth",
    },
    answer="near4",
    asks="direction",
    misconceptions={
        "2x": (
            "transformers are linear in length",
            "The projections and FFN set a transformer's time at any length",
        ),
        "under2": (
            "launches always dilute growth",
            "Fixed per-kernel costs keep diluting a workload's growth at any size",
        ),
    },
    feedback={
        "near4": "2.31 ms → about 8.4 ms, 3.6×: the score traffic, already 84.5% of the block at 8,192 tokens, "
        "grows 4× when S doubles, and the linear rows (2×) and launches (fixed) keep the total just under 4×. "
        "Across launches of 2 to 20 µs and an efficiency of 0.3 to 0.7 it stays between 3.3× and 3.7×.",
        "2x": "The linear rows do grow 2×, but at 8,192 tokens the S² score traffic is already most of the "
        "block's time, and it grows 4× when S doubles.",
        "under2": "Launches were 70 of 97 µs at 512 tokens; at 8,192 tokens the block takes milliseconds and "
        "the 14 launches (70 µs) are a few percent of it.",
    },
    kind="transfer",
    reveals=("3.6×",),
)

TRANSFER_C = Prediction(
    question=(
        "Serve GPT-2 XL to 64 users at once instead of one: 64 sequences decoding together, each with a "
        "1,024-token context (FP16, compiled, H100; the part decodes one). Its arithmetic intensity, about "
        "1 FLOP/B at batch 1, becomes…"
    ),
    options={
        "x64": "About 64 FLOP/B: every weight read now serves all 64 tokens",
        "x9": "About 9 FLOP/B: each sequence still reads its own KV cache",
        "same": "About 1 FLOP/B: batching adds work and bytes alike",
    },
    answer="x9",
    asks="estimate",
    misconceptions={
        "x64": (
            "batching always amortizes decode",
            "Batch B multiplies decode's FLOPs per byte by B, as for weights alone",
        ),
        "same": (
            "batching never changes intensity",
            "More sequences add FLOPs and bytes in the same proportion",
        ),
    },
    feedback={
        "x64": "The weights are read once for all 64 tokens, but each sequence's 1,024-token KV cache "
        "(315 MB) is read for its own token only: 64 caches (20 GB) outweigh the 3.1 GB of weights, and "
        "intensity reaches about 9 FLOP/B, still far below the H100's ridge.",
        "x9": "The 3.1 GB of weights are shared by 64 tokens, but the 64 KV caches (20 GB in all) are not: "
        "about 9 FLOP/B, still far below the ridge, so decode stays off the compute roof. Batching shifts the "
        "boundary; the cache caps how far (fallacy 3: measure each regime).",
        "same": "Batching does share the weight read: intensity rises from about 1 to about 9 FLOP/B. The KV "
        "caches, read once per sequence, are what stop it there.",
    },
    kind="transfer",
    reveals=("About 9 FLOP/B",),
)

TRANSFER_D = Prediction(
    question=(
        "Same FP16 7B model on an H100 with 1 GB reserved. Conversations grow from 4,096 to 8,192 tokens "
        "(past the slider). The number of conversations that fit…"
    ),
    options={
        "half": "Falls to about half: each cache doubles, the room stays",
        "quarter": "Falls to about a quarter: attention grows with S²",
        "same": "Barely changes: the weights set the serving memory budget",
    },
    answer="half",
    asks="direction",
    misconceptions={
        "quarter": (
            "the KV cache grows with S²",
            "Whatever attention stores grows with the square of the context",
        ),
        "same": (
            "budget the weights only",
            "Serving memory is the weights; context length does not change what fits (pitfall 6)",
        ),
    },
    feedback={
        "half": "The room beside the weights stays 80 − 1 − 13.5 ≈ 65.5 GB, and each conversation's cache "
        "grows from 2.1 to 4.3 GB: 30 → 15. The cache is linear in tokens (one K and one V per token per "
        "layer); only the score matrix, which decode does not keep, grows with S².",
        "quarter": "The KV cache keeps one key and one value per token per layer: linear in tokens. Doubling "
        "the context doubles each cache and halves the count (30 → 15).",
        "same": "On an 80 GB device the weights (13.5 GB) are the minority: the caches fill the rest, and each "
        "one doubles with the context (30 → 15).",
    },
    kind="transfer",
    reveals=("about half",),
)
