"""Section 6.5, RNNs: the serial chain, gated cells, the fixed state and the crossover with
attention. Each part is a plain function of its widget values.

Every count comes from ``mlsysim`` (``layers.RNN/LSTM/GRU``, ``layers.MultiHeadAttention``,
``layers.TransformerBlock``, ``Engine.solve``, the hardware registry); this module picks the
inputs, searches over sequence lengths, builds the charts and writes the sentences. The chapter's
numbers it reproduces are asserted in ``tests/test_s06_05_rnns.py``.
"""

from __future__ import annotations

from functools import lru_cache

from ... import catalogue
from ..._lazy import lazy
from ..charts import device_label, figure, hline, out_of_memory, vline
from ..components import (
    Card,
    Choice,
    Prediction,
    Slider,
    Toggle,
    View,
    fmt_bytes,
    fmt_count,
    fmt_ratio,
    fmt_time,
    overflow_text,
    widget_args,
)
from ..vocab import bound_phrase, superscript

E = lazy("mlsysim.engine")
G = lazy("mlsysim.gradients")
HW = lazy("mlsysim.hardware")
L = lazy("mlsysim.layers")
M = lazy("mlsysim.models")
U = lazy("mlsysim.units")

CHAPTER = "6.5"
PARTS = ("A", "B", "C", "D", "E")

#: Share of the dense peak the engine assumes the kernels reach (the engine's default).
EFFICIENCY = 0.5
CELLS = {"rnn": "RNN", "gru": "GRU", "lstm": "LSTM"}  # key -> mlsysim.layers class
CELL_NAMES = {"rnn": "Vanilla RNN", "gru": "GRU", "lstm": "LSTM"}


#: The engine's launch-cost assumption as a control: the device's planning value or a stated cost
#: per kernel in microseconds (CUDA graphs, persistent kernels and compiled runtimes cut it).
LAUNCH_OPTIONS = {
    "device": "the device's planning value",
    "0": "0 µs",
    "0.5": "0.5 µs",
    "2": "2 µs",
    "10": "10 µs",
    "50": "50 µs",
}


def _with_launch(dev: HW.Device, launch: str) -> HW.Device:
    return (
        dev if launch == "device" else E.with_launch_cost(dev, U.Q_(float(launch), "us").m_as("s"))
    )


def _precision(dev: HW.Device) -> str:
    return "fp16" if "fp16" in dev.compute.precisions else "fp32"


# ---------------------------------------------------------------------------------------------
# Part A: the serial chain (faster arithmetic shortens steps, not the chain)
# ---------------------------------------------------------------------------------------------

#: The chapter's 512-dimensional state (L767); input width taken equal to the state width.
A_WIDTH = 512
#: The self-check's accelerator upgrade, 10 -> 100 TFLOP/s (L794). Everything else is held fixed:
#: the two hypothetical parts share the H100's memory system (3.35 TB/s) and launch cost (5 us).
A_PEAKS_TFLOPS = {"10": 10, "100": 100}


@lru_cache(maxsize=4)
def accelerator(peak_tflops: int) -> HW.Device:
    """The H100 with its FP16 dense peak replaced by ``peak_tflops`` (the self-check's part)."""
    base = HW.Hardware.get("H100")
    compute = HW.Compute(
        quoted_precision="fp16",
        precisions={"fp16": HW.PeakRate(dense=U.Q_(peak_tflops, "TFLOP/s"))},
    )
    return base.model_copy(
        update={
            "name": f"{peak_tflops} TFLOP/s accelerator",
            "key": f"Accel{peak_tflops}",
            "compute": compute,
        }
    )


PRED_A = Prediction(
    question=(
        "A 512-wide RNN reads a sequence at batch 1, and each kernel launch costs 5 µs. You move it "
        "from a 10 TFLOP/s accelerator to a 100 TFLOP/s one with the same memory and the same launch "
        "cost. What does the upgrade buy, at 1,000 steps and at 10,000?"
    ),
    options={
        "10x": "About 10× at both: the latency follows the peak FLOP/s",
        "steps": "Next to nothing at either: each step waits for the last, mostly on launches",
        "long": "Little at 1,000 but near 10× at 10,000: more steps give the chip more to do",
        "parallel": "Over 10× at both: the faster chip runs many of the steps side by side",
    },
    answer="steps",
    feedback={
        "10x": "Peak FLOP/s only shrinks the arithmetic inside each step. At batch 1 that arithmetic is a "
        "sliver of each step; the step still waits for the previous state and still pays its two "
        "kernel launches, so the chain barely moves: 1.005× at either length.",
        "steps": "Step t needs h(t-1), so the updates stay in order, and at batch 1 each step is about 98% "
        "launch overhead: 10× the peak buys 1.005× at 1,000 steps and at 10,000 (1.01× at 2 µs per "
        "launch, 1.003× at 10 µs). Set the launch cost to 0 µs: on the 100 TFLOP/s part re-reading W_hh "
        "at every step (157 µs) then binds, so 10× the peak buys only 1.33×.",
        "long": "A longer sequence adds steps, not work per step: every step is the same 512 × 512 "
        "product waiting for the one before, so 10,000 steps are ten times the same chain and the "
        "speedup stays 1.005×. Only a larger batch puts more work into each step.",
        "parallel": "No hardware can start step t before step t-1 has produced its state: the dependency "
        "chain is part of the algorithm, not of the machine.",
    },
    reveals=("next to nothing", "mostly on launches", "1.005×"),
    asks="regime",
    misconceptions={
        "10x": ("time follows FLOP/s", "A chip with 10× the peak runs any model about 10× faster"),
        "long": (
            "a longer sequence is more parallel work",
            "More time steps fill a wide chip the way a larger batch does",
        ),
        "parallel": (
            "hardware parallelizes the chain",
            "A faster, wider chip can run a recurrence's steps at the same time",
        ),
    },
)

TRANSFER_A = Prediction(
    question=(
        "Widen the RNN from d = 512 to d = 2,048: 16× the weights and 16× the arithmetic per "
        "step. Still batch 1, 1,000 steps, on the 10 TFLOP/s part (FP16, the H100's 3.35 TB/s "
        "memory) with 5 µs launches. Its latency…"
    ),
    options={
        "x16": "Grows about 16×: each step does 16 times the arithmetic",
        "x4": "Grows about 4×: the state it carries is only 4 times as wide as before",
        "little": "Grows by well under 2×: each step is still mostly its launches",
        "shorter": "Shrinks: wider matrix products keep the chip busier",
    },
    answer="little",
    feedback={
        "x16": "The arithmetic does grow 16×, but at d = 512 it was a sliver of each step: 10.21 ms "
        "becomes 13.36 ms, 1.3×, because the two launches per step (10 µs) still dominate.",
        "x4": "The state is d values, but the work per step is the d × d product, 16× larger; neither "
        "sets the time here. The launches do: 10.21 ms becomes 13.36 ms, 1.3×.",
        "little": "10.21 ms becomes 13.36 ms: 1.3× the time for 16× the arithmetic (1.7× at 2 µs per "
        "launch, 1.2× at 10 µs). At batch 1 each step's 10 µs of launches outweighs its 2,048 × 2,048 "
        "product, so a wider RNN costs little more time; only past d ≈ 3,500 does the arithmetic take over.",
        "shorter": "A busier chip is not a faster answer: the wider product still takes longer than "
        "the narrow one, and the launches stay. 10.21 ms becomes 13.36 ms.",
    },
    kind="transfer",
    reveals=("13.36 ms",),
    asks="direction",
    misconceptions={
        "x16": ("time follows FLOPs", "Latency grows in proportion to the arithmetic per step"),
        "x4": ("work follows the state's size", "An RNN's cost per step grows with its state, d"),
        "shorter": (
            "higher utilization means lower latency",
            "A larger matrix product uses the chip better, so it finishes sooner",
        ),
    },
)
A_SEQ = Slider("Sequence length S (steps)", 10, 10000, 1000, step=10)
A_BATCH = Slider("Batch (independent sequences)", 1, 256, 1)
A_PEAK = Choice("Accelerator peak (FP16, dense)", {"10": "10 TFLOP/s", "100": "100 TFLOP/s"}, "10")
A_LAUNCH = Choice("Launch cost per kernel", LAUNCH_OPTIONS, "device", inline=False)
#: The speedup PRED_A's answer turns on: "barely faster" means under 1.5x for 10x the peak.
A_THRESHOLD = 1.5


@lru_cache(maxsize=512)
def _rnn_profile(seq: int, batch: int, peak: str, launch: str = "device"):
    layer = L.RNN(input_size=A_WIDTH, hidden_size=A_WIDTH, seq_len=seq)
    dev = _with_launch(accelerator(A_PEAKS_TFLOPS[peak]), launch)
    return layer, E.Engine.solve(
        layer, dev, batch_size=batch, precision="fp16", efficiency=EFFICIENCY
    )


@widget_args
def part_a(seq: int, batch: int, peak: str, launch: str = "device") -> View:
    import plotly.graph_objects as go

    s, b = int(seq), int(batch)
    other = "100" if peak == "10" else "10"
    layer, p = _rnn_profile(s, b, peak, launch)
    _, q = _rnn_profile(s, b, other, launch)
    p10 = _rnn_profile(s, b, "10", launch)[1]
    p100 = _rnn_profile(s, b, "100", launch)[1]
    flip = E.launch_cost_for_speedup(p10, p100, A_THRESHOLD)
    grid = [10, *range(500, 10001, 500)]

    fig = figure(
        f"RNN latency vs sequence length (d = {A_WIDTH}, batch {b}, FP16)",
        "Sequence length S (steps)",
        "Latency (ms)",
    )
    for key in ("10", "100"):
        ys = [_rnn_profile(n, b, key, launch)[1].latency_s * 1e3 for n in grid]
        fig.add_trace(go.Scatter(x=grid, y=ys, name=f"{A_PEAKS_TFLOPS[key]} TFLOP/s", mode="lines"))
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[_rnn_profile(n, b, peak, launch)[1].latency_dispatch_s * 1e3 for n in grid],
            name="kernel launches alone (1 + 2S kernels)",
            mode="lines",
            line=dict(dash="dash"),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[s],
            y=[p.latency_s * 1e3],
            name="your setting",
            mode="markers",
            marker=dict(size=13, symbol="diamond"),
        )
    )

    dev = _with_launch(accelerator(A_PEAKS_TFLOPS[peak]), launch)
    tax = dev.dispatch_tax.m_as("s")
    per_step = p.latency_s / layer.serial_steps
    speedup = p10.latency_s / p100.latency_s
    share = p.latency_dispatch_s / p.latency_s
    cards = [
        Card(
            "Latency",
            fmt_time(p.latency_s),
            f"{A_PEAKS_TFLOPS[peak]} TFLOP/s · {bound_phrase(p.bottleneck)}",
        ),
        Card(
            f"At {A_PEAKS_TFLOPS[other]} TFLOP/s",
            fmt_time(q.latency_s),
            "same memory, same launch cost",
        ),
        Card(
            "10× peak buys",
            fmt_ratio(speedup, 2),
            "latency(10 TF) / latency(100 TF)",
            "bad" if speedup < 2 else "warn" if speedup < 5 else "ok",
        ),
        Card("Serial steps", fmt_count(layer.serial_steps), "ordered; no hardware removes them"),
        Card("Time per step", fmt_time(per_step), f"{share:.0%} of it kernel launches"),
        Card(
            f"Launch cost where 10× peak buys {A_THRESHOLD:g}×",
            "no launch cost reaches it" if flip is None else f"{flip * 1e6:,.2f} µs",
            "the memory term binds even without launches"
            if flip is None
            else "below it the upgrade pays more",
        ),
    ]
    if flip is None:
        flips = (
            f"Even with free launches 10× the peak would not buy {A_THRESHOLD:g}×: the engine has each step "
            "re-read W_hh from HBM (it credits no cache reuse), and that memory time does not shrink with "
            "the peak; only batching (more sequences per read of W_hh) or keeping W_hh on chip moves it. "
            "(A W_hh this small would in practice stay in a GPU's L2 cache between steps, which shortens "
            "the memory term: the chain of launches and steps remains.)"
        )
    else:
        flips = (
            f"The answer rests on the launch cost: at {tax * 1e6:g} µs per kernel, 10× the peak buys "
            f"{speedup:,.2f}×; it buys {A_THRESHOLD:g}× at {flip * 1e6:,.2f} µs per kernel."
        )
    summary = (
        f"{s:,} steps at batch {b}: {fmt_time(p10.latency_s)} at 10 TFLOP/s and "
        f"{fmt_time(p100.latency_s)} at 100 TFLOP/s, {speedup:,.2f}× faster for 10× the peak. "
        + (
            f"The {layer.serial_steps:,} ordered steps each pay {2 * tax * 1e6:g} µs of launches "
            f"({fmt_time(p.latency_dispatch_s)} in all), and that floor grows linearly with S. "
            if tax > 0
            else "With free launches only the steps' own arithmetic and memory time remain. "
        )
        + flips
    )
    peek = [
        "t = max(FLOPs / (peak × η), bytes / BW) + kernels × dispatch_tax",
        f"kernels = 1 + 2S = {layer.kernels:,};  dispatch = {layer.kernels:,} × {tax * 1e6:g} µs = "
        f"{fmt_time(p.latency_dispatch_s)}",
        f"FLOPs = 2 × B × S × (d·d_in + d²) = {fmt_count(p.flops)} FLOPs (1 MAC = 2 FLOPs) → "
        f"{fmt_time(p.latency_compute_s)} at {A_PEAKS_TFLOPS[peak]} TFLOP/s × η = {EFFICIENCY:g}",
        f"bytes = W_hh re-read every step + inputs + outputs = {fmt_bytes(p.bytes_moved)} → "
        f"{fmt_time(p.latency_memory_s)} at {dev.memory.bandwidth:~P}",
        "raise the batch: the arithmetic grows, the chain and its launches do not",
    ]
    return View(fig, cards, summary, "Serial chain", peek)


# ---------------------------------------------------------------------------------------------
# Part B: vanilla vs GRU vs LSTM at equal sizes
# ---------------------------------------------------------------------------------------------

PRED_B = Prediction(
    question=(
        "Swap a vanilla RNN layer (input 100, hidden state 128) for an LSTM of the same sizes. "
        "The multiply-accumulates of one time step…"
    ),
    options={
        "same": "Stay about the same: gates are elementwise products, cheap next to the matrix products",
        "two": "Double: the LSTM carries two states (h and the cell), so it does two of everything",
        "four": "Grow about 4×: each gate needs its own input and recurrent matrix products",
        "steps": "Stay the same per step: an LSTM just needs more steps to carry a phrase",
    },
    answer="four",
    feedback={
        "same": "The gates are elementwise only at the end: each gate's value comes from its own W_i · x_t + "
        "W_h · h(t−1), the same two matrix-vector products as the vanilla step. Four of them: 4× the "
        "MACs (116,736 against 29,184).",
        "two": "The cell state c_t is updated elementwise (c_t = f ⊙ c_(t−1) + i ⊙ g), which costs no matrix "
        "product. The MACs come from the four gate pre-activations, each as large as a vanilla step: 4×.",
        "four": "A vanilla step is 128 × 128 recurrent + 100 × 128 input = 29,184 MACs; the LSTM computes that "
        "for each of its four gates (input, forget, output, candidate): 116,736. A GRU has three: 3×. "
        "The sequence length does not enter: the step reads only the fixed-size state.",
        "steps": "The steps are set by the sequence, one per token, for either cell. What changes is the work "
        "inside each step: four gate products instead of one, 4× the MACs.",
    },
    reveals=("116,736", "four affine transforms", "four gate"),
    asks="direction",
    misconceptions={
        "same": ("gates are free", "Gating is elementwise, so it adds almost no arithmetic"),
        "two": (
            "cost follows the number of states",
            "A cell that keeps two state vectors does twice the work of one that keeps one",
        ),
        "steps": (
            "gates lengthen the chain",
            "An LSTM carries long context by taking more time steps, not more work per step",
        ),
    },
)

TRANSFER_B = Prediction(
    question=(
        "Elif considers a bidirectional vanilla RNN (input 100, hidden 128): a second RNN of the same "
        "size reads the sequence backwards, and each token's output joins the two states. Per token, "
        "and along the sequence…"
    ),
    options={
        "both": "Twice the MACs, still S steps in a chain: the directions do not wait on each other",
        "chain": "Twice the MACs, and 2S steps in a chain: the backward pass waits for the forward one",
        "shared": "The same MACs and S steps: the two directions share one set of weights",
        "four": "Four times the MACs: the joined state is 2d wide, and the d × d term quadruples",
    },
    answer="both",
    feedback={
        "both": "Each direction is a full RNN with its own W_xh and W_hh: 29,184 MACs per token each, "
        "58,368 together. Neither needs the other's states, so both chains are S steps long and can run "
        "side by side. The catch for StreamSense: the backward direction starts from the last token, so "
        "a bidirectional RNN cannot stream; it needs the whole sequence before its first output.",
        "chain": "The backward direction starts from the last token and needs nothing from the forward "
        "one: the two chains are independent, each S steps long, and can run at the same time.",
        "shared": "torch gives each direction its own weights (weight_ih_l0_reverse, weight_hh_l0_reverse): "
        "two sets, twice the parameters and twice the MACs per token (58,368 against 29,184).",
        "four": "The joined 2d-wide output feeds the next layer, not this one: each direction's recurrent "
        "product stays d × d, so the MACs double (58,368), they do not quadruple.",
    },
    kind="transfer",
    reveals=("58,368", "do not wait on each other", "cannot stream"),
    asks="behaviour",
    misconceptions={
        "chain": (
            "the backward direction waits",
            "A bidirectional RNN runs its backward pass after the forward one, doubling the chain",
        ),
        "shared": (
            "both directions share weights",
            "The reverse direction reuses the forward direction's matrices",
        ),
        "four": (
            "the joined state widens the cell",
            "Concatenating the two states makes this layer's recurrent product 2d × 2d",
        ),
    },
)
B_HIDDEN = Slider("Hidden size d", 16, 1024, 128, step=16)
B_D_IN = Slider("Input size d_in", 10, 1000, 100, step=10)
B_BIAS = Toggle("Count bias vectors (PyTorch keeps two per gate)", False)


@lru_cache(maxsize=256)
def _cell(cell: str, hidden: int, inp: int, bias: bool, seq: int = 1):
    return getattr(L, CELLS[cell])(input_size=inp, hidden_size=hidden, seq_len=seq, bias=bias)


@widget_args
def part_b(hidden: int, d_in: int, bias: bool) -> View:
    import plotly.graph_objects as go

    d, d_in, b = int(hidden), int(d_in), bool(bias)
    cells = {k: _cell(k, d, d_in, b) for k in CELLS}
    rnn, gru, lstm = cells["rnn"], cells["gru"], cells["lstm"]
    widths = list(range(int(B_HIDDEN.start), int(B_HIDDEN.stop) + 1, 48))

    fig = figure(
        f"MACs per time step vs hidden size (d_in = {d_in})",
        "Hidden size d",
        "MACs per step (log scale)",
        log_y=True,
    )
    for k in ("lstm", "gru", "rnn"):
        fig.add_trace(
            go.Scatter(
                x=widths,
                y=[_cell(k, w, d_in, b).macs() for w in widths],
                name=CELL_NAMES[k],
                mode="lines",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[d, d, d],
            y=[c.macs() for c in (lstm, gru, rnn)],
            name="your setting",
            mode="markers",
            marker=dict(size=12, symbol="diamond"),
        )
    )

    long_seq = {k: _cell(k, d, d_in, b, 1000) for k in CELLS}
    cards = [
        Card("Vanilla MACs / step", fmt_count(rnn.macs()), f"{d}² + {d}·{d_in}"),
        Card(
            "GRU MACs / step",
            fmt_count(gru.macs()),
            f"{fmt_ratio(gru.macs() / rnn.macs(), 0)} (2 gates + candidate)",
        ),
        Card(
            "LSTM MACs / step",
            fmt_count(lstm.macs()),
            f"{fmt_ratio(lstm.macs() / rnn.macs(), 0)} (3 gates + candidate)",
            "warn",
        ),
        Card(
            "Params (RNN / GRU / LSTM)",
            f"{fmt_count(rnn.params)} / {fmt_count(gru.params)} / {fmt_count(lstm.params)}",
            "with biases" if b else "weights only",
        ),
        Card(
            "State values (RNN / LSTM)",
            f"{rnn.state_elements:,} / {lstm.state_elements:,}",
            "LSTM keeps h and the cell c",
        ),
        Card(
            "Serial steps at S = 1,000",
            " / ".join(f"{long_seq[k].serial_steps:,}" for k in ("rnn", "gru", "lstm")),
            "gates add work per step, not steps",
        ),
    ]
    summary = (
        f"At d = {d} and d_in = {d_in}, a vanilla step is {rnn.macs():,} MACs; a GRU step "
        f"{gru.macs():,} ({gru.macs() // rnn.macs()}×) and an LSTM step {lstm.macs():,} "
        f"({lstm.macs() // rnn.macs()}×), with twice the state. All three still take one step per "
        f"token: fusing an LSTM's four projections into one wider matrix product raises its "
        f"arithmetic intensity but leaves the chain as long as before."
    )
    peek = [
        f"vanilla: MACs/step = d² + d·d_in = {d}² + {d}·{d_in} = {rnn.macs():,}",
        f"GRU:     3 × (d² + d·d_in) = {gru.macs():,}   (reset, update, candidate)",
        f"LSTM:    4 × (d² + d·d_in) = {lstm.macs():,}   (input, forget, output, candidate)",
        f"params = gates × (d² + d·d_in){' + 2 × gates × d biases' if b else ''}: "
        f"{rnn.params:,} / {gru.params:,} / {lstm.params:,}",
        "FLOPs = 2 × MACs; the sigmoid/tanh gate math is counted apart (elementwise)",
    ]
    return View(fig, cards, summary, "Cost per step", peek)


# ---------------------------------------------------------------------------------------------
# Part C: a state that fits on chip vs BPTT and a growing KV cache
# ---------------------------------------------------------------------------------------------

#: The chapter sizes the state in FP32 (L767: 512-dimensional FP32 state = 2 KB).
C_PRECISION = "fp32"

#: On-chip memories the registry does not list for GPUs (it lists SRAM/flash only for MCUs).
#: NVIDIA quotes cache and shared-memory sizes in binary units.
#: H100 SXM5: "NVIDIA H100 Tensor Core GPU Architecture" whitepaper (2022): 50 MB L2 cache,
#:   up to 228 KB of shared memory per SM.
#: A100: "NVIDIA A100 Tensor Core GPU Architecture" whitepaper (2020): 40 MB L2 cache,
#:   up to 164 KB of shared memory per SM.
GPU_ON_CHIP = {  # sizes as quantity text, read with the one registry (mlsysim.units)
    "H100": {
        "state": ("shared memory per SM", "228 KiB"),
        "bulk": ("L2 cache", "50 MiB"),
    },
    "A100": {
        "state": ("shared memory per SM", "164 KiB"),
        "bulk": ("L2 cache", "40 MiB"),
    },
}
C_DEVICES = catalogue.labels(["ArduinoNano33BLESense", "STM32H743", "A100", "H100"])


def on_chip(device: str) -> dict[str, tuple[str, float]]:
    """Where the state lives and where the weights / a KV cache would have to stay resident, in
    bytes: the registry's SRAM and flash for MCUs, the whitepaper constants above for GPUs."""
    dev = HW.Hardware.get(device)
    if dev.memory.sram is not None and dev.memory.flash is not None:
        sram = dev.memory.sram.m_as("B")
        return {
            "state": ("SRAM", sram),
            "kv": ("SRAM", sram),
            "weights": ("flash", dev.memory.flash.m_as("B")),
        }
    (sname, sq), (bname, bq) = GPU_ON_CHIP[device]["state"], GPU_ON_CHIP[device]["bulk"]
    state, bulk = U.Q_(sq).m_as("B"), U.Q_(bq).m_as("B")
    return {
        "state": (sname, state),
        "kv": (bname, bulk),
        "weights": (bname, bulk),
    }


PRED_C = Prediction(
    question=(
        "On an Arduino with 256 KiB of SRAM, a 128-wide RNN and a 128-wide attention layer each "
        "listen to a live audio stream, one token per frame, for hours. At inference, the memory each "
        "one must keep as the stream goes on…"
    ),
    options={
        "flat": "The RNN's stays fixed, while attention's grows by the same amount with every token",
        "both": "Both grow with every token, since each must remember what it has heard",
        "rnn_grows": "The RNN's grows with every step of its chain, while attention's is set by its width",
        "quad": "The RNN's stays fixed, while attention's grows as the square of the tokens heard",
    },
    answer="flat",
    feedback={
        "flat": "The RNN folds each token into its state: 512 B (128 FP32 values) at token 10 and at token "
        "10 million. Attention keeps a key and a value for every past token, 1 KB per token at d = 128, "
        "so its cache fills the 256 KiB of SRAM after 256 tokens. That fixed state is the RNN's niche "
        "wherever memory is scarce. (Training is another matter: backpropagation through time keeps "
        "every step's state, O(S·d).)",
        "both": "Only attention looks back at the tokens themselves. The RNN compresses everything it has "
        "heard into a state of fixed size (512 B here): what it remembers is lossy, but it never grows.",
        "rnn_grows": "Inference keeps only the latest state: step t overwrites h(t−1). The states of every "
        "step are kept only for training (BPTT). Attention is the one that grows: a key and a value "
        "per token heard.",
        "quad": "The S × S score matrix belongs to processing a whole sequence at once. A stream adds one "
        "query at a time: it scores one row against the cached keys, and what stays is the cache, one "
        "key and one value per token: linear, 1 KB per token here.",
    },
    reveals=("flat in S", "never grows", "after 256 tokens"),
    asks="behaviour",
    misconceptions={
        "both": (
            "every model stores its history",
            "Remembering a stream means keeping something for every token heard",
        ),
        "rnn_grows": (
            "inference keeps the whole chain",
            "An RNN keeps every step's state while it runs, as training does",
        ),
        "quad": (
            "a stream stores S × S scores",
            "Attention's memory while streaming grows as the square of the tokens heard",
        ),
    },
)

TRANSFER_C = Prediction(
    question=(
        "Hana wants to fine-tune the 128-wide RNN on the device over a 100,000-token stream with "
        "truncated backpropagation through time: gradients flow back at most 100 steps (one window), "
        "and the state carries over from window to window. The states training must keep…"
    ),
    options={
        "window": "Are set by the window: its 100 steps, however long the stream",
        "stream": "Still grow with the stream: BPTT keeps every step it has seen",
        "state": "Fall to one state: the carried state is all the next window needs",
    },
    answer="window",
    feedback={
        "window": "Backpropagation reaches back only through the current window, so only its 100 states are "
        "kept: 51.2 KB at 512 B each, inside the 256 KiB of SRAM, for a stream of any length. Full BPTT "
        "over the whole stream would keep 51.2 MB. The price is learning: no gradient connects tokens "
        "more than 100 steps apart.",
        "stream": "BPTT keeps the states its backward pass will visit. Truncation ends that pass at the "
        "window's start, so older states can be dropped: 100 states (51.2 KB), not 100,000 (51.2 MB).",
        "state": "The forward pass needs only the carried state, but the backward pass through the window "
        "multiplies one Jacobian per step, each evaluated at that step's state: all 100 must be kept "
        "(51.2 KB), not one (512 B).",
    },
    kind="transfer",
    reveals=("set by the window", "however long the stream"),
    asks="behaviour",
    misconceptions={
        "stream": (
            "training memory follows the data seen",
            "Training through time keeps every step of the stream, truncated or not",
        ),
        "state": (
            "training keeps what inference keeps",
            "A backward pass needs only the state that the forward pass carries",
        ),
    },
)
C_HIDDEN = Slider("Hidden size d", 16, 1024, 128, step=16)
C_SEQ = Slider("Stream length S (tokens)", 10, 100000, 1000, step=10)
C_CELL = Choice("Cell", CELL_NAMES, "rnn")
C_DEVICE = Choice("Device", C_DEVICES, "ArduinoNano33BLESense")


@lru_cache(maxsize=1)
def state_space_vs_kv() -> tuple[int, int, int]:
    """A state-space model keeps an RNN's fixed state at language-model scale (section 6.5: Mamba
    revives recurrence for its fixed decode state). (mamba-130m's decode state in FP16, bytes:
    24 layers × 1,536 channels × (4 conv taps + 16 state values) × 2 B; GPT-2 small's KV cache per
    token in FP16, the same width 768; the first token count at which that cache exceeds the
    state.) mamba-130m's shape is transformers' MambaConfig defaults with 24 layers."""
    mamba = M.from_hf_config({"model_type": "mamba", "num_hidden_layers": 24})
    state = mamba.kv_cache_bytes(1, 1, "fp16")
    per_token = M.Models.GPT2Small.kv_cache_bytes_per_token("fp16")
    return state, per_token, state // per_token + 1


@widget_args
def part_c(hidden: int, seq: int, cell: str, device: str) -> View:
    import plotly.graph_objects as go

    d, s = int(hidden), int(seq)
    layer = getattr(L, CELLS[cell])(input_size=d, hidden_size=d, seq_len=s)
    # standard multi-head attention caches K and V for every head: 2·d values per token whatever the
    # head count, so one head stands in for any split of the same width
    attn = L.MultiHeadAttention(d_model=d, n_heads=1, seq_len=1)
    kv_tok = attn.kv_cache_bytes_per_token(C_PRECISION)
    state = layer.state_bytes(1, C_PRECISION)
    bptt = layer.bptt_bytes(1, C_PRECISION)
    kv = kv_tok * s
    # weights read once (resident): the params in bytes, not re-streamed every step
    weights = getattr(L, CELLS[cell])(
        input_size=d, hidden_size=d, seq_len=s, weights_resident=True
    ).weight_bytes(C_PRECISION)
    mem = on_chip(device)
    (state_name, state_cap), (kv_name, kv_cap), (w_name, w_cap) = (
        mem["state"],
        mem["kv"],
        mem["weights"],
    )
    dev = HW.Hardware.get(device)

    grid = [10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000]
    fig = figure(
        f"Memory vs stream length: {CELL_NAMES[cell]}, d = {d}, FP32",
        "Stream length S (tokens)",
        "Bytes (log scale)",
        log_x=True,
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[
                getattr(L, CELLS[cell])(input_size=d, hidden_size=d, seq_len=n).state_bytes(
                    1, C_PRECISION
                )
                for n in grid
            ],
            name="inference state (h, c)" if cell == "lstm" else "inference state (h)",
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[
                getattr(L, CELLS[cell])(input_size=d, hidden_size=d, seq_len=n).bptt_bytes(
                    1, C_PRECISION
                )
                for n in grid
            ],
            name="training (BPTT keeps every step)",
            mode="lines",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[kv_tok * n for n in grid],
            name=f"attention KV cache (d = {d})",
            mode="lines",
            line=dict(dash="dot"),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[s, s, s],
            y=[state, bptt, kv],
            name="your setting",
            mode="markers",
            marker=dict(size=11, symbol="diamond"),
        )
    )
    hline(
        fig,
        state_cap,
        f"{device_label(dev)} {state_name} {fmt_bytes(state_cap, binary=True)}",
        dash="dash",
        position="top left",
    )
    if kv_name != state_name:
        hline(
            fig,
            kv_cap,
            f"{device_label(dev)} {kv_name} {fmt_bytes(kv_cap, binary=True)}",
            dash="dash",
            position="top left",
        )

    kv_tokens = int(kv_cap // kv_tok)
    state_ok = state <= state_cap
    cards = [
        Card(
            "Inference state",
            fmt_bytes(state),
            f"flat in S · {state_name} {fmt_bytes(state_cap, binary=True)}",
            "ok" if state_ok else "bad",
        ),
        Card(
            f"BPTT at S = {s:,}",
            fmt_bytes(bptt),
            "O(S·d): training keeps every step's state (in main memory, not on chip)",
            "warn",  # grows with S; where it is stored is not this part's on-chip budget
        ),
        Card(
            f"KV cache at S = {s:,}",
            fmt_bytes(kv),
            f"{fmt_bytes(kv_tok)} per token",
            "ok" if kv <= kv_cap else "bad",
        ),
        Card(
            f"Tokens of KV that fit the {kv_name}",
            fmt_count(kv_tokens),
            "the RNN's state never grows",
            "bad" if kv_tokens < s else "warn",
        ),
        Card(
            f"Weights in {w_name}",
            fmt_bytes(weights),
            f"input width = d = {d}, biases included · {fmt_bytes(weights, binary=True)} of "
            f"{fmt_bytes(w_cap, binary=True)} (binary units, as quoted)",
            "ok" if weights <= w_cap else "bad",
        ),
    ]
    name = C_DEVICES[device]
    cell_name = CELL_NAMES[cell].replace("Vanilla", "vanilla")
    summary = (
        f"A {d}-wide {cell_name} keeps {fmt_bytes(state)} of state at every stream length (here "
        f"{s:,} tokens); it {'fits' if state_ok else 'does not fit'} the {name}'s {state_name} "
        f"({fmt_bytes(state_cap, binary=True)}). Training through time would keep {fmt_bytes(bptt)}, "
        f"and an attention layer of the same width would hold {fmt_bytes(kv)} of keys and values, "
        f"filling the {kv_name} after {kv_tokens:,} tokens."
        + (
            ""
            if weights <= w_cap
            else f" The weights ({fmt_bytes(weights)}) do not fit the {w_name}: shrink d."
        )
    )
    state_terms = "2 × d (h and c)" if cell == "lstm" else "d"
    ssm, gpt_tok, after = state_space_vs_kv()
    peek = [
        f"state = {state_terms} × 4 B = {layer.state_elements:,} × 4 B = {state:,} B  (independent of S)",
        f"BPTT  = S × state = {s:,} × {state:,} B = {fmt_bytes(bptt)}",
        f"KV    = S × 2 × d × 4 B = {s:,} × {kv_tok:,} B = {fmt_bytes(kv)}",
        f"KV tokens that fit = {kv_name} / per-token = {kv_cap:,.0f} B / {kv_tok:,} B = {kv_tokens:,}",
        "GPU on-chip sizes are whitepaper constants (the registry lists SRAM only for MCUs); GB = 1e9 B, KiB = 1,024 B",
        f"at language-model scale: mamba-130m (a state-space model, 24 layers, d 768) decodes from "
        f"{fmt_bytes(ssm)} of state (FP16) at any S; GPT-2 small (d 768) caches {fmt_bytes(gpt_tok)} per "
        f"token, {fmt_bytes(gpt_tok * s)} at S = {s:,}, and exceeds that state from token {after:,}",
    ]
    return View(fig, cards, summary, "State vs stored context", peek)


# ---------------------------------------------------------------------------------------------
# Part D: the crossover against a parallel attention layer
# ---------------------------------------------------------------------------------------------

#: Width of one attention head in the rival (GPT-2's 64-wide heads, L1028).
HEAD_DIM = 64
#: The prediction's sequence (the chapter's 4,096-token example, L825).
S_REF = 4096
S_MIN, S_MAX = 16, 2**22

PRED_D = Prediction(
    question=(
        "On an H100 at batch 1, with each kernel launch costing 5 µs, a 512-wide RNN layer and a "
        "512-wide self-attention layer (8 heads) each process the same 4,096-token sequence. The "
        "attention layer does 10× more arithmetic. Which finishes first, and why?"
    ),
    options={
        "rnn": "The RNN, about 10× sooner: it does a tenth of the arithmetic",
        "same": "About the same: at batch 1 both just stream their weights from memory",
        "attn_bit": "Attention, but by under 2×: its parallel kernels only just hide its extra work",
        "attn_far": "Attention, by well over 10×: the RNN's steps wait on their launches in order",
    },
    answer="attn_far",
    feedback={
        "rnn": "FLOPs are not time. The RNN's 4,096 steps run one after another, each paying two launches "
        "(41.6 ms in all); attention's 10× more arithmetic runs in a handful of wide, parallel kernels "
        "(0.38 ms).",
        "same": "Their weights are small (a 512 × 512 matrix is 0.5 MB): neither time is set by reading "
        "them. The RNN pays 8,193 launches in order (41.6 ms); attention is bound by moving its score "
        "matrix (0.38 ms), about 110× apart.",
        "attn_bit": "Attention's extra work is not what is hidden: the RNN's chain is what costs. Its "
        "8,193 launches in order take 41.6 ms against attention's 0.38 ms, about 110×; only with free "
        "launches (0 µs) does the lead shrink below 2×.",
        "attn_far": "The chain of 4,096 steps costs 8,193 launches in order, 41.6 ms; attention's S² work "
        "is done in parallel in 0.38 ms: about 110× (48× at 2 µs per launch, 200× at 10 µs). Its "
        "quadratic cost only catches up at hundreds of thousands of tokens. The lead is a launch-cost "
        "effect: the part shows the launch cost at which it falls to 10×.",
    },
    reveals=("about 110×", "finally loses"),
    asks="regime",
    misconceptions={
        "rnn": ("time follows FLOPs", "The model with less arithmetic finishes first"),
        "same": (
            "batch 1 is always weight-bound",
            "At batch 1 every layer's time is the time to read its weights",
        ),
        "attn_bit": (
            "parallelism only offsets extra work",
            "Parallel kernels win back roughly the extra arithmetic they do, no more",
        ),
    },
)

TRANSFER_D = Prediction(
    question=(
        "Same H100, same 4,096 tokens, 5 µs launches, but now 64 sequences at once (batch 64) "
        "instead of one. Attention's lead over the RNN…"
    ),
    options={
        "shrink": "Shrinks sharply: the RNN's launches now serve 64 sequences at once",
        "grow": "Grows: attention batches well, while the RNN still cannot parallelize",
        "same": "Stays about the same: both do 64 times the work",
    },
    answer="shrink",
    feedback={
        "shrink": "The RNN still pays 8,193 launches, once for the whole batch: 41.6 ms becomes 41.8 ms. "
        "Attention's work and score traffic grow 64×: 0.38 ms becomes 22.0 ms. The lead falls from "
        "about 110× to 1.9× (at 2 µs per launch the RNN even wins). The batch fills each serial step "
        "with work that the launches no longer dwarf.",
        "grow": "The RNN cannot parallelize along the sequence, but it can across sequences: each step's "
        "launch now carries a 64-row product, which costs almost nothing extra (41.6 → 41.8 ms), while "
        "attention's time grows 64× (0.38 → 22.0 ms).",
        "same": "Both do 64× the arithmetic, but only attention's time follows it. The RNN's time is "
        "its launches, paid once per step whatever the batch: 41.6 → 41.8 ms, against 0.38 → 22.0 ms.",
    },
    kind="transfer",
    reveals=("22.0 ms", "41.8 ms"),
    asks="direction",
    misconceptions={
        "grow": (
            "batching favours the parallel model",
            "A larger batch widens the gap in favour of the model that parallelizes",
        ),
        "same": (
            "time follows the batch's work",
            "Both models' times grow in proportion to the batch",
        ),
    },
)
D_DEVICE = Choice(
    "Device",
    catalogue.labels(["H100", "JetsonOrinNX", "iPhone15Pro", "STM32H743"]),
    "H100",
)
D_WIDTH = Slider("Width d (hidden size = d_model)", 64, 1024, 512, step=64)
D_RIVAL = Choice(
    "Parallel rival",
    {"mha": "Self-attention layer", "block": "Transformer block (d_ff = 4d)"},
    "mha",
)
D_FLASH = Toggle("FlashAttention in the rival (scores never stored)", False)
D_LAUNCH = Choice("Launch cost per kernel", LAUNCH_OPTIONS, "device", inline=False)
#: The lead PRED_D's answer turns on: "well over 10x" rather than "under 2x" or "about the same".
D_THRESHOLD = 10.0


@lru_cache(maxsize=4096)
def _pair(device: str, width: int, rival: str, flash: bool, seq: int, launch: str = "device"):
    """(RNN profile, rival profile, rival layer, rnn layer) at one sequence length, batch 1."""
    dev = _with_launch(HW.Hardware.get(device), launch)
    prec = _precision(dev)
    heads = max(1, width // HEAD_DIM)
    rnn = L.RNN(input_size=width, hidden_size=width, seq_len=seq)
    if rival == "block":
        other = L.TransformerBlock(
            d_model=width, n_heads=heads, d_ff=4 * width, seq_len=seq, flash=flash
        )
    else:
        other = L.MultiHeadAttention(d_model=width, n_heads=heads, seq_len=seq, flash=flash)
    return (
        E.Engine.solve(rnn, dev, precision=prec, efficiency=EFFICIENCY),
        E.Engine.solve(other, dev, precision=prec, efficiency=EFFICIENCY),
        other,
        rnn,
    )


def _attn_slower(device, width, rival, flash, seq, launch="device") -> bool:
    r, a, _, _ = _pair(device, width, rival, flash, seq, launch)
    return a.latency_s >= r.latency_s


@lru_cache(maxsize=256)
def crossover(
    device: str, width: int, rival: str, flash: bool, launch: str = "device"
) -> int | None:
    """Smallest S in [S_MIN, S_MAX] at which the rival is no faster than the RNN (searched with the
    engine: doubling, then bisection). ``S_MIN`` when the rival never wins; ``None`` when it still
    wins at ``S_MAX``."""
    if _attn_slower(device, width, rival, flash, S_MIN, launch):
        return S_MIN
    lo = S_MIN
    hi = lo * 2
    while not _attn_slower(device, width, rival, flash, hi, launch):
        lo = hi
        if hi >= S_MAX:
            return None
        hi = min(hi * 2, S_MAX)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _attn_slower(device, width, rival, flash, mid, launch):
            hi = mid
        else:
            lo = mid
    return hi


@widget_args
def part_d(device: str, width: int, rival: str, flash: bool, launch: str = "device") -> View:
    import plotly.graph_objects as go

    w, f = int(width), bool(flash)
    dev = _with_launch(HW.Hardware.get(device), launch)
    prec = _precision(dev)
    rname = "transformer block" if rival == "block" else "self-attention"
    grid = [2**k for k in range(4, 23)]
    pairs = [_pair(device, w, rival, f, n, launch) for n in grid]

    fig = figure(
        f"RNN vs {rname} on the {device_label(dev)} (d = {w}, batch 1, {prec.upper()})",
        "Sequence length S (tokens)",
        "Latency (s, log scale)",
        log_x=True,
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(
            x=grid, y=[p[0].latency_s for p in pairs], name="RNN: S steps in order", mode="lines"
        )
    )
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=[p[1].latency_s for p in pairs],
            name=f"{rname}: S² work in parallel" + (" (FlashAttention)" if f else ""),
            mode="lines",
        )
    )
    for k, who in ((0, "RNN"), (1, rname)):  # either model may outgrow a small device
        oom = [(n, p[k].latency_s) for n, p in zip(grid, pairs, strict=True) if not p[k].feasible]
        out_of_memory(fig, [n for n, _ in oom], [t for _, t in oom], f"{who} out of memory")
    cross = crossover(device, w, rival, f, launch)

    r_ref, a_ref, other_ref, rnn_ref = _pair(device, w, rival, f, S_REF, launch)
    ratio = r_ref.latency_s / a_ref.latency_s
    flip = E.launch_cost_for_speedup(r_ref, a_ref, D_THRESHOLD)
    cards = [
        Card(
            f"RNN at {S_REF:,} tokens",
            fmt_time(r_ref.latency_s),
            f"{bound_phrase(r_ref.bottleneck)} · {rnn_ref.kernels:,} kernels",
        ),
        Card(
            f"{rname.capitalize()} at {S_REF:,}",
            fmt_time(a_ref.latency_s),
            f"{bound_phrase(a_ref.bottleneck)} · {other_ref.kernels} kernels",
        ),
        Card(
            "Work ratio (rival / RNN)",
            fmt_ratio(other_ref.flops() / rnn_ref.flops()),
            "FLOPs at 4,096 tokens",
        ),
        Card(
            f"Faster at {S_REF:,} tokens",
            rname if ratio > 1 else "RNN",
            f"by {fmt_ratio(ratio if ratio > 1 else 1 / ratio)}",
            "ok" if ratio > 1 else "warn",
        ),
    ]
    misfits = [
        f"{who} {overflow_text(p)}"
        for who, p in (("RNN (every token's input and output kept)", r_ref), (rname, a_ref))
        if not p.feasible
    ]
    if misfits:
        fits = "neither" if len(misfits) == 2 else "RNN only" if r_ref.feasible else f"{rname} only"
        cards.append(
            Card(
                f"Fits at {S_REF:,} tokens?",
                fits,
                "; ".join(misfits) + ": the times compare work only",
                "bad",
            )
        )
    if cross is None:
        cards.append(
            Card("Crossover", f"beyond {S_MAX:,}", "the rival is faster over the whole range", "ok")
        )
        verdict = (
            f"The {rname} stays faster up to {S_MAX:,} tokens: its quadratic work never catches up "
            f"with the RNN's {2 * dev.dispatch_tax.m_as('us'):g} µs of launches per step in this range."
        )
    elif cross == S_MIN:
        cards.append(Card("Crossover", "none", "the RNN is faster at every length here", "warn"))
        verdict = (
            f"On the {device_label(dev)} the RNN wins at every length from {S_MIN} to {S_MAX:,} tokens: launches "
            f"are cheap next to arithmetic, and "
            f"the {rname}'s projections alone do more work per token than a recurrent step."
        )
    else:
        r_x, a_x, _, _ = _pair(device, w, rival, f, cross, launch)
        vline(fig, cross, f"crossover ≈ {cross:,}", dash="dot", position="top left")
        fig.add_trace(
            go.Scatter(
                x=[cross],
                y=[a_x.latency_s],
                name="crossover",
                mode="markers",
                marker=dict(size=13, symbol="diamond"),
            )
        )
        fits = "fit" if a_x.feasible else "do NOT fit"
        cards.append(
            Card(
                "Crossover length",
                f"{cross:,} tokens",
                f"its tensors {fits} in memory",
                "ok" if a_x.feasible else "bad",
            )
        )
        verdict = (
            f"The lines cross near {cross:,} tokens ({fmt_time(a_x.latency_s)} each); past that, the "
            f"{rname}'s S² work outgrows the RNN's chain, and there its live tensors {fits} in the "
            f"{device_label(dev)}'s {fmt_bytes(dev.memory.capacity.m_as('B'))}."
        )
    if ratio > 1:  # where the RNN leads, the summary says what launch cost it would take
        cards.append(
            Card(
                f"Launch cost where the {rname}'s lead is {D_THRESHOLD:g}×",
                "no launch cost reaches it" if flip is None else f"{flip * 1e6:,.2f} µs",
                f"at {S_REF:,} tokens; the lead "
                + ("shrinks below it" if flip is not None else "never reaches it"),
            )
        )
    tax_us = dev.dispatch_tax.m_as("us")
    if flip is None:
        flips = f"No launch cost gives the {rname} a {D_THRESHOLD:g}× lead at {S_REF:,} tokens on this device."
    elif ratio <= 1:
        flips = (
            f"Here the RNN leads; the {rname} would lead by {D_THRESHOLD:g}× only if each launch cost "
            f"{fmt_time(flip)}."
        )
    else:
        flips = (
            f"The lead rests on the launch cost ({tax_us:g} µs per kernel here): it would be {D_THRESHOLD:g}× at "
            f"{flip * 1e6:,.2f} µs per kernel, less below that."
        )
    winner = (
        f"the {rname} is {ratio:,.1f}× faster"
        if ratio > 1
        else f"the RNN is {1 / ratio:,.1f}× faster"
    )
    summary = (
        f"At {S_REF:,} tokens the RNN takes {fmt_time(r_ref.latency_s)} and the {rname} "
        f"{fmt_time(a_ref.latency_s)}: {winner}, while the {rname} does "
        f"{other_ref.flops() / rnn_ref.flops():,.1f}× the FLOPs. " + verdict + " " + flips
    )
    peek = [
        "t = max(FLOPs / (peak × η), bytes / BW) + kernels × dispatch_tax   (per layer, batch 1)",
        f"RNN:   kernels = 1 + 2S, FLOPs = 2·S·(d² + d·d_in) = {fmt_count(rnn_ref.flops())} FLOPs at S = {S_REF:,}",
        f"rival: {other_ref.kernels} kernels, FLOPs = {fmt_count(other_ref.flops())} FLOPs "
        "(projections 8·S·d², scores and context 4·S²·d"
        + (", FFN 16·S·d²)" if rival == "block" else ")"),
        f"peak = {dev.compute.peak(prec):~P} ({prec}, dense) × η = {EFFICIENCY:g}; BW = {dev.memory.bandwidth:~P}; "
        f"dispatch = {dev.dispatch_tax.m_as('us'):g} µs per kernel",
        f"heads = d / {HEAD_DIM}; crossover searched over S with the engine (doubling, then bisection)",
    ]
    return View(fig, cards, summary, "Chain vs parallel", peek)


# ---------------------------------------------------------------------------------------------
# Part E: backpropagation through time, the Jacobian product diag(f') W_hh (issue 14)
# ---------------------------------------------------------------------------------------------

PRED_E = Prediction(
    question=(
        "A tanh RNN is trained with backpropagation through time over 100 steps. Its W_hh preserves the length "
        "of every vector (gain 1). How much of the gradient at the last state reaches h_0?"
    ),
    options={
        "all": "All of it: W_hh preserves lengths, so the product of 100 steps does too",
        "vanish": "Almost nothing: tanh′ is below 1 at every active unit, so the product shrinks "
        "geometrically",
        "explode": "It explodes: a product of 100 matrices always blows up",
        "state": "As much as the state holds: the state is O(d) at every step, so its gradient is too",
    },
    answer="vanish",
    feedback={
        "all": "Each step's Jacobian is diag(f′(z_t)) W_hh, not W_hh alone. tanh′ is at most 1, so each step "
        "shrinks the gradient (by about 0.62 here, the card's factor), and 100 steps multiply it by roughly "
        "0.62¹⁰⁰ ≈ 10⁻²¹.",
        "vanish": "J_t = diag(tanh′(z_t)) W_hh; with |W_hh v| = |v| the derivative factors alone "
        "shrink the gradient by about 0.62 per step (the card's measured factor: not the mean |f′| of 0.54, "
        "because what shrinks is the length of the gradient vector after each matrix product), and 0.62¹⁰⁰ ≈ 10⁻²¹. The same product as 6.4's deep network, with one "
        "matrix shared by every step: a plain RNN cannot learn across more than a few dozen steps.",
        "explode": "A product explodes only when its factors expand; here W_hh preserves lengths and tanh′ ≤ 1 "
        "contracts them, so it vanishes. Pick the linear activation and a gain above 1 (1.1 gives about 10⁴) to see it explode.",
        "state": "The state's size is O(d); the gradient's size is a product over time. Training also keeps every "
        "step's state (O(S·d)) to evaluate that product.",
    },
    reveals=("product shrinks geometrically",),
    asks="behaviour",
    misconceptions={
        "all": (
            "an orthogonal W_hh keeps the gradient",
            "If W_hh preserves lengths, backpropagation through it preserves the gradient",
        ),
        "explode": (
            "long products always explode",
            "Multiplying a hundred matrices always makes the result blow up",
        ),
        "state": (
            "the gradient follows the state's size",
            "A gradient is as large as the state it flows into",
        ),
    },
)

TRANSFER_E = Prediction(
    question=(
        "The simulation's state has 16 units. Widen it to 64 units (W_hh still orthogonal, gain 1, tanh, "
        "no path around W_hh). After 100 steps, how much of the gradient reaches h_0?"
    ),
    options={
        "vanish": "Still almost nothing: the loss per step comes from tanh′, not the width",
        "survive": "Much more of it: a wider state gives the gradient more paths back",
        "explode": "Far more than all of it: a 64 × 64 matrix amplifies more than a 16 × 16 one",
    },
    answer="vanish",
    feedback={
        "vanish": "About 10⁻²⁰ at 64 units, against 10⁻²¹ at 16: each step still multiplies by "
        "diag(tanh′) W_hh, and an orthogonal W_hh of any size preserves lengths, so the shrinking comes "
        "from tanh′ alone (0.62 per step at 16 units, 0.63 at 64). Width is not what fixes vanishing; a "
        "path around W_hh, as in an LSTM's cell state, is.",
        "survive": "More units give more paths, but every path passes through the same diag(tanh′) W_hh "
        "each step: the gradient still shrinks by about 0.63 per step at 64 units, to about 10⁻²⁰ after 100.",
        "explode": "W_hh = gain × an orthogonal matrix: at gain 1 it preserves every vector's length "
        "whatever its size. Only a gain above 1 (with an activation that does not shrink) amplifies: "
        "here the gradient still vanishes, to about 10⁻²⁰.",
    },
    kind="transfer",
    reveals=("not the width", "Width is not what fixes vanishing"),
    asks="behaviour",
    misconceptions={
        "survive": (
            "capacity fixes vanishing",
            "A wider state carries more gradient back through time",
        ),
        "explode": (
            "bigger matrices amplify more",
            "A larger weight matrix multiplies a vector's length by more",
        ),
    },
)
E_STEPS = Slider("Time steps S", 5, 200, 100, step=5)
E_ACTIVATION = Choice(
    "Activation",
    {"tanh": "tanh", "sigmoid": "sigmoid", "relu": "ReLU", "linear": "linear (no activation)"},
    "tanh",
)
E_GAIN = Slider("Gain of W_hh (it scales every direction by this)", 0.5, 2.0, 1.0, step=0.05)
E_ADDITIVE = Toggle("Additive path around W_hh (h_t = h_(t−1) + α f(…), LSTM-like)", False)
#: Width of the simulated state (small, so the pure-Python pass stays fast in the browser).
E_WIDTH = 16
#: The deepest network 6.4 part A lets a student build (its A_DEPTH slider): a depth past it is
#: shown here but cannot be reproduced there, and the card says so.
DEEP_NET_MAX_DEPTH = 64


def _sci(x: float) -> str:
    return f"{x:.2g}" if 1e-3 <= abs(x) < 1e4 else f"{x:.1e}"


@widget_args
def part_e(steps: int, activation: str, gain: float, additive: bool) -> View:
    import plotly.graph_objects as go

    n, g = int(steps), round(float(gain), 4)
    plain = G.bptt(n, E_WIDTH, activation, g)
    path = G.bptt(n, E_WIDTH, activation, g, additive=True)
    shown = path if additive else plain
    deep = G.simulate(n, E_WIDTH, activation, g)  # 6.4's network: a different matrix per layer
    fmax = G.max_derivative(activation)
    ts = list(range(n + 1))
    fig = figure(
        f"Gradient reaching each state: {n}-step {activation} RNN, gain {g:g}",
        "Time step t (0 = h_0)",
        "‖∂L/∂h_t‖ (‖∂L/∂h_S‖ = 1, log scale)",
        log_y=True,
    )
    fig.add_trace(
        go.Scatter(x=ts, y=list(plain.grad_norms), name="plain: J_t = diag(f′) W_hh", mode="lines")
    )
    if additive:  # the path's curve, drawn when the toggle asks for it
        fig.add_trace(
            go.Scatter(
                x=ts,
                y=list(path.grad_norms),
                name="additive path: J_t = I + α diag(f′) W_hh",
                mode="lines",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=ts,
            y=[(g * fmax) ** (n - t) for t in ts],
            name=f"bound on the plain chain: ({g:g} × max f′ {fmax:g}) to the power S − t",
            mode="lines",
            line=dict(dash="dot"),
        )
    )
    v_shown = G.flow_verdict(shown.first)
    other = [Card("Plain recurrence", _sci(plain.first), "the same steps without the path")]
    cards = [
        Card(
            "Gradient at h_0",
            _sci(shown.first),
            f"it {v_shown}; ×{shown.per_step_factor:.3f} per step",
            "ok" if v_shown == "survives" else "bad",
        ),
        *(other if additive else []),
        Card(
            "Mean |f′| per step", f"{plain.mean_derivative:.2f}", f"{activation}: at most {fmax:g}"
        ),
        Card(
            "6.4's deep net, same depth",
            _sci(deep.first),
            "a different matrix per layer, same activation and gain"
            + (
                f" (6.4's own slider stops at {DEEP_NET_MAX_DEPTH} layers)"
                if n > DEEP_NET_MAX_DEPTH
                else ""
            ),
        ),
        Card(
            "Stored for BPTT",
            f"{n:,} states",
            f"O(S·d): {n:,} × {E_WIDTH} values, against {E_WIDTH} for inference",
        ),
    ]
    summary = (
        f"Backpropagating through {n} steps of a {activation} RNN with gain {g:g}: the plain recurrence hands "
        f"{_sci(plain.first)} of the gradient to h_0 (it {G.flow_verdict(plain.first)}); each step multiplies by "
        f"diag(f′) W_hh, with |f′| averaging {plain.mean_derivative:.2f}. "
        + (
            f"With the additive path around W_hh, {_sci(path.first)} arrives (it "
            f"{G.flow_verdict(path.first)}). "
            if additive
            else ""
        )
        + "The product is the one 6.4 studied "
        f"through depth, where the same settings leave {_sci(deep.first)}"
        + (
            ": that stack is fed once and its activations shrink toward zero, where f′ is largest, while "
            "an RNN takes a new input at every step that keeps its units where f′ is smaller."
            if activation == "tanh"
            else "."
        )
    )
    peek = [
        "∂L/∂h_0 = ∂L/∂h_S · Π_t J_t,   J_t = ∂h_t/∂h_(t−1) = diag(f′(z_t)) W_hh   (z_t = W_hh h_(t−1) + u_t)",
        f"‖J_t v‖ ≤ gain × max f′ × ‖v‖ = {g:g} × {fmax:g}, so ≤ ({g:g} × {fmax:g}){superscript(n)} = {_sci((g * fmax) ** n)}",
        f"simulated: {_sci(plain.first)} (plain)"
        + (f", {_sci(path.first)} (additive, α = 1/√S = {1 / n**0.5:.3f})" if additive else ""),
        f"state: {E_WIDTH} units, W_hh = gain × one seeded orthogonal matrix, seeded inputs u_t",
        f"verdict: vanishes below {G.VANISH_BELOW:g}, explodes above {G.EXPLODE_ABOVE:g}× (mlsysim.gradients)",
    ]
    return View(fig, cards, summary, "Jacobian product through time", peek)
