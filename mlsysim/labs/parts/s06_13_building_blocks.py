"""Shared building blocks: gating, mixture of experts and the scatter pattern (§6.9.3, Table 11),
and one block-level optimization carried across the lighthouse families (Part E, ``mlsysim.blockopt``).

Mixture of experts is gating at the scale of whole sub-networks: a learned router sends each token
to ``top_k`` of ``n_experts`` feed-forward experts, which separates the weights a token uses (its
FLOPs) from the weights the model holds (its capacity), and turns the scatter of Figure 16 into an
input-dependent one. Every number comes from ``mlsysim.moe`` (experts and router counted as
``layers.Dense``) and the hardware registry; the model is Mixtral 8x7B, the MoE the chapter cites.
``tests/test_s06_13_building_blocks.py`` asserts the published counts and the arithmetic.
"""

from __future__ import annotations

from ... import catalogue
from ..._lazy import lazy
from ..charts import device_label, figure, hline, memory_lines, time_unit
from ..components import (
    Card,
    Choice,
    Prediction,
    Slider,
    View,
    counted,
    fmt_bytes,
    fmt_count,
    fmt_ratio,
    fmt_time,
    widget_args,
)
from ..vocab import op_word, superscript

HW = lazy("mlsysim.hardware")
blockopt = lazy("mlsysim.blockopt")
moe = lazy("mlsysim.moe")
U = lazy("mlsysim.units")

CHAPTER = "6.13"
PARTS = ("A", "B", "C", "D", "E")

PRECISIONS = {"fp16": "FP16 (2 B)", "fp8": "FP8 (1 B)", "int8": "INT8 (1 B)"}

# ---------------------------------------------------------------------------------------------
# Part A: capacity vs compute
# ---------------------------------------------------------------------------------------------

PRED_A = Prediction(
    question=(
        "Mixtral 8x7B routes each token to 2 of the 8 experts in every layer. Switching it to top-1 routing "
        "(1 expert per token) cuts each token's FLOPs by over a third. The accelerator memory its weights need "
        "to serve it…"
    ),
    options={
        "halves": "Shrinks with the FLOPs: memory follows the weights a token uses",
        "same": "Barely changes: every expert must stay resident",
        "one": "Falls to one expert per layer: only that one is loaded",
    },
    answer="same",
    asks="direction",
    misconceptions={
        "halves": (
            "memory follows active parameters",
            "An MoE needs memory only for the parameters a token computes with",
        ),
        "one": (
            "experts can be swapped in per token",
            "Only the experts in use need to be in accelerator memory",
        ),
    },
    reveals=("every expert must stay resident", "capacity without compute"),
    feedback={
        "halves": "That confuses FLOPs with capacity. The router picks experts per token and per layer, so "
        "the next token may need any expert: all 46.7 B parameters stay resident, 93.4 GB in FP16 with "
        "top-1 or top-2 alike, while a token computes with 7.2 B instead of 12.9 B.",
        "same": "46.7 B parameters × 2 B = 93.4 GB either way. A token computes with 7.2 B of them under "
        "top-1 (12.9 B under top-2), but any token may pick any expert, so every expert stays resident: "
        "Mixtral does not fit one 80 GB H100 in FP16. Gating buys compute savings, not memory.",
        "one": "Swapping experts in per token would stream gigabytes over PCIe for every token, and the 32 "
        "layers route each token afresh: within a few tokens every expert is needed, so all of them stay "
        "resident (93.4 GB in FP16).",
    },
)
A_EXPERTS = Slider("Experts per layer (E)", 2, 64, 8)
A_TOPK = Slider("Experts per token (top-k)", 1, 4, 2)
A_PRECISION = Choice("Weight precision", PRECISIONS, "fp16")


@widget_args
def part_a(experts: int, topk: int, precision: str) -> View:
    import plotly.graph_objects as go

    e, asked = int(experts), int(topk)
    k = min(asked, e)  # a token cannot use more experts than the layer has
    c = moe.mixtral_params(e, k)
    b = float(U.bytes_per_value(precision))
    total_b, active_b = c.total * b, c.active * b
    h100 = HW.Hardware.get("H100")
    fig = figure(
        f"Mixtral-shaped model, {e} experts, top-{k}"
        + (f" (top-{asked} clamped)" if asked > k else "")
        + ": what it holds vs what a token uses",
        "Quantity",
        f"Bytes in {precision.upper()}",
    )
    fig.add_trace(
        go.Bar(
            x=["all weights (resident)", "weights a token uses"],
            y=[total_b, active_b],
            name="weight bytes",
        )
    )
    memory_lines(fig, [h100], unit="B")
    cards = [
        Card("Parameters held", fmt_count(c.total), f"{fmt_bytes(total_b)} in {precision.upper()}"),
        Card(
            "Parameters per token",
            fmt_count(c.active),
            f"2 {op_word(precision)}s each: {fmt_count(2 * c.active)} {op_word(precision)}/token"
            + (f"; top-{asked} clamped to top-{k}" if asked > k else ""),
        ),
        Card(
            "Capacity / compute",
            fmt_ratio(c.total / c.active),
            "parameters held per parameter used",
        ),
        Card(
            "Fits one H100",
            "yes" if total_b <= h100.memory.capacity.m_as("B") else "no",
            f"{h100.memory.capacity:~P} of HBM",
            "ok" if total_b <= h100.memory.capacity.m_as("B") else "bad",
        ),
    ]
    clamp = (
        f"Top-{asked} asks for more experts than the layer has, so it is clamped to top-{k}. "
        if asked > k
        else ""
    )
    if k < e:
        summary = clamp + (
            f"With {e} experts and top-{k} routing the model holds {fmt_count(c.total)} parameters but each "
            f"token computes with {fmt_count(c.active)}: FLOPs follow the routed experts, memory follows all "
            f"of them. Gating buys capacity without FLOPs ({fmt_ratio(c.total / c.active)} the parameters a token "
            "uses, here), and the bill moves to memory and to the routing itself."
        )
    else:
        summary = clamp + (
            f"With top-{k} of {e} experts every token runs every expert: the model holds and computes with "
            f"the same {fmt_count(c.total)} parameters. This is a dense layer with a router in front; gating "
            "buys capacity without FLOPs only when a token uses fewer experts than the layer holds."
        )
    lay = moe.MoELayer(**{**moe.MIXTRAL_8X7B.model_dump(), "n_experts": e, "top_k": k})
    peek = [
        "expert (SwiGLU): gate d×d_ff + up d×d_ff + down d_ff×d = 3·d·d_ff   (layers.Dense, no bias)",
        f"  = 3 × 4,096 × 14,336 = {lay.expert_params:,} per expert",
        f"router: d × E = {lay.router.params:,}",
        f"layer: E·expert + router = {lay.params:,};  per token: k·expert + router = {lay.active_params:,}",
        f"model: 32 × (GQA attention + 2 RMSNorm + MoE) + 2 × 32,000 × 4,096 + norm = {c.total:,} held, "
        f"{c.active:,} per token",
        f"published (Mistral AI 2023, E=8, k=2): 46.7 B total, 12.9 B per token  [{moe.MIXTRAL_SOURCE['url']}]",
    ]
    return View(fig, cards, summary, "Mixture-of-experts parameter count", peek)


# ---------------------------------------------------------------------------------------------
# Part B: batching touches every expert
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "Decoding one token, each Mixtral layer reads 2 of its 8 experts' weights. Serving 32 users at once "
        "(32 tokens per step, each picking its 2 experts uniformly at random), how many experts per layer does one "
        "step read?"
    ),
    options={
        "two": "2: each token uses 2, and the batch shares them",
        "all": "Nearly all 8: each token picks its own 2",
        "sixty4": "64: 2 for each of the 32 tokens",
        "four": "About 4: most picks land on experts already picked",
    },
    answer="all",
    asks="behaviour",
    misconceptions={
        "two": (
            "active parameters are what a step reads",
            "A batched MoE step reads only the experts one token would use",
        ),
        "sixty4": (
            "each token reads its own copy",
            "Every token's expert weights are read separately, even when tokens share an expert",
        ),
        "four": (
            "random picks cluster",
            "Tokens choosing at random mostly land on the same few experts",
        ),
    },
    reveals=("nearly all 8", "7.999"),
    feedback={
        "two": "Each token picks its own 2; with 32 tokens the chance that an expert is picked by none of them is "
        "(6/8)³² ≈ 0.0001. 'Active parameters' equal the bytes a step reads only at batch 1.",
        "all": "Each expert is missed by a token with probability 6/8, so by all 32 with (6/8)³² ≈ 10⁻⁴: a step "
        "reads 7.999 of 8 experts. Batched MoE decode reads almost the whole layer while each token still "
        "computes with 2 experts: its intensity grows more slowly with batch than a dense model's.",
        "sixty4": "An expert's weights are read once per step however many tokens it serves (that is batching's "
        "point); there are only 8 experts to read.",
        "four": "Picks do repeat, but 64 picks over 8 experts leave an expert unpicked only with probability "
        "(6/8)³² ≈ 10⁻⁴: about 4 would need each expert to be missed by all 32 tokens half the time.",
    },
)
B_BATCH = Slider("Tokens per step (batch of users)", 1, 128, 1)
B_DEVICE = Choice("Device", catalogue.labels(["H100", "A100"]), "H100")
B_PRECISION = Choice("Weight precision", PRECISIONS, "fp16")


@widget_args
def part_b(batch: int, device: str, precision: str) -> View:
    import plotly.graph_objects as go

    lay = moe.MIXTRAL_8X7B
    t = int(batch)
    xs = list(range(1, 129))
    fig = figure(
        "Experts one step reads, per layer (uniform routing)", "Tokens per step", "Experts read"
    )
    fig.add_trace(
        go.Scatter(x=xs, y=[lay.experts_touched(x) for x in xs], mode="lines", name="experts read")
    )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[float(lay.top_k)] * len(xs),
            mode="lines",
            line={"dash": "dot"},
            name="experts per token (top-k)",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[t],
            y=[lay.experts_touched(t)],
            mode="markers",
            marker={"size": 12},
            name=counted(t, "token"),
        )
    )
    touched = lay.experts_touched(t)
    rd = lay.weight_bytes_read(t, precision)
    s = lay.weight_read_s(t, device, precision)
    per_token_flops = 2 * lay.macs_per_token()
    cards = [
        Card(
            "Experts read per layer",
            f"{touched:,.2f} of {lay.n_experts}",
            f"{counted(t, 'token')}, top-{lay.top_k}",
        ),
        Card(
            "Expert weights read per layer",
            fmt_bytes(rd),
            f"{precision.upper()}; batch 1 reads {fmt_bytes(lay.weight_bytes_read(1, precision))}",
        ),
        Card(
            "Data term per layer",
            fmt_time(s),
            f"bytes / {HW.Hardware.get(device).memory.bandwidth:~P}",
        ),
        Card(
            f"{op_word(precision)} per byte read",
            f"{t * per_token_flops / rd:,.1f}",
            "MoE layer weights only",
        ),
    ]
    summary = (
        f"At {counted(t, 'token')} per step a layer reads {touched:,.2f} of its {lay.n_experts} experts "
        f"({fmt_bytes(rd)}). The weights a step reads climb toward the whole layer within a few dozen tokens, "
        "while the FLOPs per token stay at top-k experts: batching amortizes an MoE's weights more slowly than "
        "a dense model's."
    )
    peek = [
        "P(expert missed by one token) = 1 − k/E;   by T tokens: (1 − k/E)ᵀ",
        f"experts read = E·(1 − (1 − k/E)ᵀ) = 8 × (1 − 0.75{superscript(t)}) = {touched:,.4f}",
        f"bytes = experts read × {lay.expert_params:,} params × {U.bytes_per_value(precision)} B + router = {rd:,.0f}",
        f"data term = bytes / BW = {fmt_time(s)} per layer ({HW.Hardware.get(device).key})",
        "uniform routing touches the most distinct experts: the worst case for weight reads and the best "
        "for load balance; a skewed router (Part C) reads fewer experts but stretches the step",
    ]
    return View(fig, cards, summary, "Experts touched by a batch", peek)


# ---------------------------------------------------------------------------------------------
# Part C: capacity factor and load imbalance
# ---------------------------------------------------------------------------------------------

PRED_C = Prediction(
    question=(
        "Eight experts run in parallel, one per H100 (FP16, 4,096 tokens per batch, top-2). The router sends "
        "25% of the assignments to one expert instead of the balanced 12.5%, and capacity is large enough that "
        "nothing is dropped. Total FLOPs are unchanged. The layer's step time becomes…"
    ),
    options={
        "same": "The same time: the total FLOPs have not changed",
        "x2": "Nearly twice as long: the step waits for the busiest expert",
        "x1_25": "A little longer: the other seven GPUs absorb the excess",
        "faster": "Less time: the hot expert reuses its weights more",
    },
    answer="x2",
    asks="behaviour",
    misconceptions={
        "same": (
            "time follows total FLOPs",
            "A parallel step costs its total work divided by the devices, however it is spread",
        ),
        "x1_25": (
            "parallel work balances itself",
            "Idle devices take over part of a busy one's load",
        ),
        "faster": (
            "reuse beats load",
            "More tokens per expert raise reuse, so a skewed batch runs faster",
        ),
    },
    reveals=("twice as long", "waits for the busiest"),
    feedback={
        "same": "Total FLOPs are the same, but they are not spread evenly: the step ends when the busiest expert "
        "finishes, and it has 0.25 / 0.125 = 2× the mean work. The other seven GPUs idle more than half the step.",
        "x2": "The step waits for the busiest expert, which has 2× the balanced load (0.25 × 8 = 2,048 of 8,192 "
        "assignments against 1,024). Its GEMMs are compute-bound at that size, so its time nearly doubles: "
        "1.98× at the engine's 5 µs launches and efficiency 0.5, 1.90× to 2.0× across launches of 2 to 20 µs "
        "and efficiencies of 0.3 to 0.7, while seven GPUs idle for more than half of it. Capping with a "
        "capacity factor bounds the time by dropping the overflow instead.",
        "x1_25": "Each expert lives on its own GPU: the others cannot run the hot expert's tokens without its "
        "weights. They finish early and wait; the step takes as long as the hot expert's 2× load.",
        "faster": "Weight reuse is the same per step (each expert is read once), and at 2,048 tokens the hot "
        "expert is already compute-bound: it simply has twice the tokens to push through its GEMMs.",
    },
)
C_HOT = Slider("Share of assignments to the hottest expert (%)", 12.5, 50, 25, step=2.5)
C_CAPACITY = Slider(
    "Capacity factor c", 1.0, 4.0, 2.0, step=0.25
)  # opens where nothing is dropped (the question's case)
C_TOKENS = Slider("Tokens per batch", 256, 8192, 4096, step=256)


@widget_args
def part_c(hot: float, capacity: float, tokens: int) -> View:
    import plotly.graph_objects as go

    lay = moe.MIXTRAL_8X7B
    h, c, t = float(hot) / 100, float(capacity), int(tokens)
    loads = lay.hot_loads(t, h)
    cap = lay.capacity(t, c)
    dropped = lay.dropped(t, c, h)
    stretch = lay.step_stretch(t, c, h)
    free = lay.step_stretch(t, float(lay.n_experts), h)
    fig = figure(f"Assignments per expert ({t:,} tokens, top-{lay.top_k})", "Expert", "Assignments")
    fig.add_trace(
        go.Bar(
            x=[f"expert {i}" for i in range(lay.n_experts)],
            y=[min(x, cap) for x in loads],
            name="processed",
        )
    )
    fig.add_trace(
        go.Bar(
            x=[f"expert {i}" for i in range(lay.n_experts)],
            y=[max(0.0, x - cap) for x in loads],
            name="over capacity (dropped)",
        )
    )
    hline(fig, cap, f"capacity {cap:,} (c = {c:g})", dash="dash", position="top right")
    fig.update_layout(barmode="stack")
    total = t * lay.top_k
    cards = [
        Card(
            "Step time vs balanced",
            fmt_ratio(stretch, 2),
            "busiest expert's processed load / mean load",
        ),
        Card("Without a capacity cap", fmt_ratio(free, 2), "the hot share × E"),
        Card(
            "Assignments dropped",
            f"{dropped / total:.1%}",
            f"{dropped:,.0f} of {total:,}",
            "bad" if dropped else "ok",
        ),
        Card(
            "Capacity per expert",
            f"{cap:,}",
            f"⌈c · T · k / E⌉ = ⌈{c:g} × {t:,} × {lay.top_k} / {lay.n_experts}⌉",
        ),
    ]
    summary = (
        f"With {h:.1%} of assignments on one expert the step takes {stretch:.2f}× the balanced time at "
        f"capacity factor {c:g}, and {dropped / total:.1%} of assignments overflow. A larger factor drops "
        "less but lets the hottest expert stretch the step; a smaller one bounds the step and drops tokens. "
        "That is why MoE training adds a load-balancing loss: the scatter is input-dependent."
    )
    peek = [
        f"loads: hottest = h·T·k = {loads[0]:,.0f};  others = (1 − h)/(E − 1)·T·k = {loads[1]:,.0f}",
        f"capacity = ⌈c·T·k/E⌉ = {cap:,}",
        f"dropped = Σ max(0, load − capacity) = {dropped:,.0f}",
        f"stretch = min(max load, capacity) / mean load = {min(loads[0], cap):,.0f} / {total / lay.n_experts:,.0f}"
        f" = {stretch:.3f}",
    ]
    return View(fig, cards, summary, "Capacity factor and load imbalance", peek)


# ---------------------------------------------------------------------------------------------
# Part D: the all-to-all of expert parallelism
# ---------------------------------------------------------------------------------------------

PRED_D = Prediction(
    question=(
        "Experts are spread over N GPUs (expert parallelism), so each token's hidden vector must travel to "
        "its top-2 experts and back: an all-to-all. Going from 2 to 8 GPUs (Mixtral's 8 experts, one per "
        "GPU at 8), the bytes each token sends and receives per MoE layer…"
    ),
    options={
        "linear": "Grow about 4×: each token reaches 4× as many GPUs",
        "less": "Grow, but by less than double: more copies leave their GPU",
        "same": "Stay the same: each token still goes to just 2 experts",
        "shrink": "Shrink about 4×: the traffic is spread over 4× the GPUs",
    },
    answer="less",
    asks="direction",
    misconceptions={
        "linear": (
            "more GPUs, more destinations",
            "A token's all-to-all traffic grows with the number of GPUs",
        ),
        "same": (
            "only top-k matters",
            "The bytes a token moves depend on how many experts it uses, not on where they are",
        ),
        "shrink": (
            "spreading shrinks each share",
            "Adding GPUs divides every token's traffic among them",
        ),
    },
    reveals=("by less than 2×", "less than double"),
    feedback={
        "linear": "That is the misconception that more GPUs mean more destinations. A token goes to its k "
        "experts, not to every GPU; only the chance that a copy is remote, (N − 1)/N, depends on N: 1/2 at "
        "N = 2, 7/8 at N = 8. The bytes grow 1.75× (16.4 → 28.7 KB per token per layer in FP16).",
        "less": "Each of the k copies leaves its GPU with probability (N − 1)/N and comes back: 2·k·d·b·(N − 1)/N, "
        "16.4 KB at N = 2 and 28.7 KB at N = 8 (1.75×), approaching 2·k·d·b = 32.8 KB from below. More GPUs "
        "spread the traffic but never shrink a token's share.",
        "same": "The destinations per token stay k, but at N = 2 half of the copies stay on their own GPU and "
        "cost no traffic; at N = 8 seven in eight leave. The bytes grow 1.75×, from 16.4 to 28.7 KB.",
        "shrink": "The per-GPU share of the traffic shrinks, but each token's own traffic does not: its k copies "
        "still have to reach their experts and come back, and more of them are remote as N grows "
        "(16.4 → 28.7 KB).",
    },
)
# 1 to Mixtral's 8 experts (one or more whole experts per GPU; a test checks the 8): a literal, as
# reading moe.MIXTRAL_8X7B here would import pydantic before a page's first question
D_DEVICES = Slider("GPUs holding the experts (N)", 1, 8, 8)
D_TOPK = Slider("Experts per token (top-k)", 1, 4, 2)
D_PRECISION = Choice("Activation precision", PRECISIONS, "fp16")


@widget_args
def part_d(devices: int, topk: int, precision: str) -> View:
    import plotly.graph_objects as go

    n, k = int(devices), int(topk)
    lay = moe.MoELayer(**{**moe.MIXTRAL_8X7B.model_dump(), "top_k": k})
    xs = list(range(1, lay.n_experts + 1))  # one or more whole experts per GPU
    ys = [lay.all_to_all_bytes_per_token(x, precision) for x in xs]
    per_tok = lay.all_to_all_bytes_per_token(n, precision)
    limit = lay.all_to_all_limit(precision)
    fig = figure(
        "All-to-all bytes per token per MoE layer",
        "GPUs holding the experts (N)",
        "Bytes per token",
    )
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=f"top-{k}"))
    fig.add_trace(
        go.Scatter(x=[n], y=[per_tok], mode="markers", marker={"size": 12}, name=f"N = {n}")
    )
    hline(fig, limit, "2·k·d·b", dash="dot", position="bottom right")
    cards = [
        Card("Per token, per layer", fmt_bytes(per_tok), f"N = {n}, top-{k}, {precision.upper()}"),
        Card("Per token, 32 layers", fmt_bytes(32 * per_tok), "dispatch + combine in every layer"),
        Card(
            "Limit as N grows",
            fmt_bytes(limit),
            "2 · k · d · bytes per value, approached from below",
        ),
        Card("Remote share", f"{(n - 1) / n:.1%}", "(N − 1)/N of the k copies leave their GPU"),
    ]
    summary = (
        f"On {n} GPU{'s' if n > 1 else ''} each token moves {fmt_bytes(per_tok)} per MoE layer, {fmt_bytes(32 * per_tok)} through "
        "Mixtral's 32 layers: a scatter whose destinations the router picks at run time, and a gather back. "
        "Adding GPUs spreads the traffic but does not shrink any token's share."
    )
    peek = [
        "bytes/token = (dispatch + combine) × k copies × d × b × P(remote)",
        f"            = 2 × {k} × {lay.d_model:,} × {U.bytes_per_value(precision)} B × ({n} − 1)/{n} = {per_tok:,.0f} B",
        f"limit (every copy remote): 2 × {k} × {lay.d_model:,} × {U.bytes_per_value(precision)} = {limit:,.0f} B",
        "the time is these bytes over the all-to-all bandwidth, paid in every MoE layer (Figure 16's scatter)",
    ]
    return View(fig, cards, summary, "All-to-all bytes", peek)


# ---------------------------------------------------------------------------------------------
# Part E: one block's optimization, carried across the families
# ---------------------------------------------------------------------------------------------

PRED_E = Prediction(
    question=(
        "A kernel library written for GPT-2 runs each residual add inside the kernel that produces its "
        "input: no launch of its own, and that tensor is never written out and read back. Applied unchanged "
        "to ResNet-50, MobileNetV2, GPT-2 XL (prefill and decode), DLRM and the KWS DS-CNN on an L4 (FP16, "
        "batch 1), which of them run faster?"
    ),
    options={
        "block": "Each one with skip connections: an add is the same add in a CNN",
        "tied": "GPT-2 alone: the kernel was written for the transformer's adds",
        "flops": "All six, a little: fusing removes some FLOPs from every model",
    },
    answer="block",
    asks="behaviour",
    misconceptions={
        "tied": (
            "an optimization is tied to its architecture",
            "A kernel written for one family's model helps only that family",
        ),
        "flops": (
            "fusion saves FLOPs",
            "Fusing kernels speeds a model up by removing arithmetic",
        ),
    },
    reveals=("DLRM and the KWS DS-CNN have none", "every model that has the block"),
    feedback={
        "block": "The rewrite follows the block, not the family: ResNet-50's 16 adds, MobileNetV2's 10 and "
        "GPT-2 XL's 96 all move into their producers' epilogues, 1.107×, 1.053×, 1.026× (prefill) and "
        "1.035× (decode) on the L4. DLRM and the KWS DS-CNN have no skip connection, so nothing changes "
        "(1.000×). The gain follows each model's bottleneck: ResNet-50 at batch 1 is launch-bound and "
        "sheds 16 launches; the compute-bound prefill barely notices.",
        "tied": "A residual add is the same operation in ResNet-50 as in GPT-2: an elementwise add of two "
        "tensors. The fused kernel gives ResNet-50 1.107× and MobileNetV2 1.053× on the L4, more than "
        "GPT-2 XL's 1.026× (prefill) and 1.035× (decode). What it cannot help is a model without the "
        "block: DLRM and the KWS DS-CNN, 1.000×.",
        "flops": "Fusion removes launches and memory traffic, not arithmetic: every model's FLOPs are "
        "unchanged, and the add's one FLOP per element still runs in the producer's epilogue. A model "
        "with no residual add, DLRM or the KWS DS-CNN, has nothing to fuse: 1.000×, while ResNet-50 "
        "gains 1.107×.",
    },
)
E_OPTIMIZATION = Choice(
    "Optimization",
    {
        "fuse_add": "Fuse each residual add into its producer (skip connections)",
        "int8_gemm": "INT8 weights in every GEMM and convolution (dense projections)",
    },
    "fuse_add",
)
E_DEVICE = Choice(
    "Device",
    catalogue.labels(["L4", "H100", "T4", "JetsonOrinNX"]),
    "L4",
)


_BOUND = {"Dispatch": "launch", "Compute": "compute", "Memory": "bandwidth"}


@widget_args
def part_e(optimization: str, device: str) -> View:
    import plotly.graph_objects as go

    gains = [blockopt.gain(c, optimization, device) for c in blockopt.CASES]
    name, block = blockopt.OPTIMIZATIONS[optimization]
    dev = HW.Hardware.get(device)
    factor, unit = time_unit([g.before.latency_s for g in gains])
    fig = figure(
        f"One pass of each lighthouse before and after: {name} ({device_label(dev)}, FP16, batch 1)",
        "Lighthouse",
        f"Time per pass ({unit})",
        log_y=True,
    )
    labels = [g.label for g in gains]
    fig.add_trace(go.Bar(x=labels, y=[g.before.latency_s * factor for g in gains], name="before"))
    fig.add_trace(
        go.Bar(x=labels, y=[g.after.latency_s * factor for g in gains], name=f"with {name}")
    )
    fig.update_layout(barmode="group")
    best = max(gains, key=lambda g: g.speedup)
    none = [g.label for g in gains if g.rewritten == 0]
    cards = [
        Card(
            g.label,
            fmt_ratio(g.speedup, 3),
            f"{fmt_time(g.before.latency_s)} → {fmt_time(g.after.latency_s)}; "
            + (
                f"{counted(g.rewritten, 'layer')} rewritten; {_BOUND[g.before.bottleneck]}-bound before"
                if g.rewritten
                else "has no such layer"
            ),
            "ok" if g.speedup > 1.02 else "warn",
        )
        for g in gains
    ]
    same_flops = all(g.before.flops == g.after.flops for g in gains)
    if optimization == "fuse_add":
        summary = (
            f"The fused add is a rewrite of the skip-connection block, so it reaches every model that has "
            f"one: best {best.label} at {fmt_ratio(best.speedup, 3)} on the {device_label(dev)}. "
            + (f"{' and '.join(none)} have none: {fmt_ratio(1.0, 3)}. " if none else "")
            + "No model does fewer FLOPs"
            + (" (every FLOP count is unchanged)" if same_flops else "")
            + ": fusion saves launches and the write and re-read of each add's input, so it pays where "
            "launches or memory traffic bind and barely at all in a compute-bound pass."
        )
    else:
        summary = (
            f"INT8 weights reach every model, since every family has dense projections or convolutions, "
            f"but the gain follows the regime: {best.label} gains most, {fmt_ratio(best.speedup, 3)} on the "
            f"{device_label(dev)}, well short of 2× because activations, the KV cache and the launches are not "
            "halved; a compute-bound pass gains nothing (FP16 arithmetic is unchanged), and a launch-bound "
            "one little. Halving the weight bytes speeds up only the time that weight bytes take."
        )
    peek = [
        "after = Engine.solve(the model with its rows rewritten) (mlsysim.blockopt); before = the same "
        "call on the original rows; speedup = before / after",
        "fused residual add: reads the skip input only, no launch, no output write (the engine's own "
        "model of an add in a producer's epilogue, Engine.solve(fused=True))",
        "INT8 GEMM weights: weight read = ⌈weights / 2⌉ FP16 values in every Dense and Conv2d row; "
        "activations, KV cache, embedding tables and norms stay FP16; FLOPs and peak unchanged",
        "t = Σ_rows max(FLOPs / (peak × η), bytes / BW) + kernels × dispatch_tax  (η = 0.5)",
    ]
    return View(fig, cards, summary, f"{name} across the families", peek)
