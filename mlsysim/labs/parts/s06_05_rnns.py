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
        "A 512-wide RNN reads a 1,000-step sequence at batch 1. You move it from a 10 TFLOP/s "
        "accelerator to a 100 TFLOP/s one with the same memory and the same kernel-launch cost. "
        "What happens to its latency?"
    ),
    options={
        "10x": "About 10× faster: ten times the arithmetic",
        "steps": "Barely faster: the 1,000 steps still run in order, each a little shorter",
        "parallel": "The 1,000 steps can now run side by side, so it is far more than 10× faster",
        "same": "Exactly the same: an RNN does no matrix arithmetic",
    },
    answer="steps",
    feedback={
        "10x": "Peak FLOP/s only shrinks the arithmetic inside each step. At batch 1 that arithmetic is a "
        "sliver of each step; the step still waits for the previous state and still pays its "
        "kernel launches, so the 1,000-step chain barely moves.",
        "steps": "Step t needs h(t-1), so all 1,000 updates stay in order. The faster part shortens the "
        "math inside each step, but at batch 1 each step is mostly launch overhead: the chain "
        "sets the floor. Set the launch cost to 0 µs: on the 100 TFLOP/s part re-reading W_hh at every step "
        "(157 µs) then binds, so 10× the peak buys only 1.33×.",
        "parallel": "No hardware can start step t before step t-1 has produced its state: the dependency "
        "chain is part of the algorithm, not of the machine.",
        "same": "Each step's work is small (d² MACs for W_hh · h, plus d·d_in for the input, which the engine "
        "runs as one GEMM over all steps up front). It is too little at batch 1 to outweigh the launches.",
    },
    reveals=("barely faster", "however fast the math"),
)

TRANSFER_A = Prediction(
    question=(
        "On the 10 TFLOP/s accelerator, run 64 independent sequences of 1,000 steps together (batch 64) "
        "instead of one. The time for the whole batch…"
    ),
    options={
        "x64": "About 64× longer: 64 times the arithmetic on the same chain",
        "few": "A few times longer: each launch and weight read now serve 64",
        "same": "The same: the chain length, not the batch, sets the time",
    },
    answer="few",
    feedback={
        "x64": "The arithmetic does grow 64×, but at batch 1 the chain was 98% launches, and those and the "
        "weight reads are paid once per step for all 64 sequences: 23.43 ms against 10.21 ms, 2.3×.",
        "few": "23.43 ms against 10.21 ms: 2.3× the time for 64× the sequences. The steps stay 1,000, and each "
        "step's launches and W_hh read serve the whole batch; the larger products now make it compute-bound. "
        "Set the batch to 64 and read the latency card.",
        "same": "The launches do not grow, but the arithmetic grows 64× and now binds: 23.43 ms against "
        "10.21 ms.",
    },
    kind="transfer",
    reveals=("23.43 ms",),
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
        "same": "Stay about the same: gates are elementwise multiplications, cheap next to the matrix products",
        "two": "Double: the LSTM carries two states (h and the cell), so it does two of everything",
        "four": "Grow about 4×: each gate needs its own input and recurrent matrix products",
        "steps": "Stay the same per step; an LSTM needs more steps to carry a phrase",
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
)

TRANSFER_B = Prediction(
    question="Double the vanilla RNN's hidden size from 128 to 256 (input still 100). Its MACs per step…",
    options={
        "double": "Double: the layer is twice as wide, so each step does twice the MACs",
        "three": "Grow about 3.1×: the d × d term quadruples, the input term doubles",
        "four": "Quadruple: every weight matrix in the cell scales with d²",
    },
    answer="three",
    feedback={
        "double": "Only the input term d_in × d grows linearly; the recurrent W_hh is d × d and quadruples: "
        "65,536 + 25,600 = 91,136 against 29,184.",
        "three": "256² + 100 × 256 = 91,136 MACs, 3.1× the 29,184 at d = 128. The recurrent term dominates wide "
        "cells. Set d to 256 and read the MAC card.",
        "four": "The input projection grows with d, not d²: 100 × 256 = 25,600, twice 12,800, so the total grows "
        "3.1×, a little less than 4×.",
    },
    kind="transfer",
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
        "True or false: transformers parallelize better and model long-range context better, so "
        "RNNs are obsolete and have no valid deployment use."
    ),
    options={
        "true": "True: attention wins on both counts, so RNNs have no niche left",
        "false_state": "False: an RNN's fixed-size state streams forever in kilobytes",
        "false_speed": "False: RNNs run faster than attention on GPUs, since their work is linear "
        "in S",
    },
    answer="false_state",
    feedback={
        "true": "On a microcontroller with a few hundred KB of SRAM, a model whose memory grows with the "
        "stream eventually cannot run; an RNN's state stays the same size at token 10 and at token "
        "10 million.",
        "false_state": "The inference state is O(d): 2 KB for a 512-wide FP32 state (512 B at the part's d = 128), flat in S. Attention "
        "keeps keys and values for every past token, which outgrows on-chip memory within a "
        "few hundred tokens on a microcontroller. (Training is another matter: BPTT keeps "
        "every step's state, O(S·d).)",
        "false_speed": "Right verdict, wrong reason: on a GPU the serial chain usually makes the RNN the "
        "slower of the two (Part D). Its edge is memory, not speed.",
    },
    reveals=("streams forever in kilobytes", "never grows"),
)

TRANSFER_C = Prediction(
    question=(
        "Widen the vanilla RNN from d = 128 to d = 1,024 on the same Arduino (256 KiB of SRAM, 1 MiB of "
        "flash). What stops fitting first?"
    ),
    options={
        "nothing": "Nothing: an RNN's memory stays flat whatever its width",
        "state": "The state: it grows with d, and the SRAM is small",
        "weights": "The weights: they grow with d² and outgrow the flash",
    },
    answer="weights",
    feedback={
        "nothing": "Flat in the stream length, not in the width: the state grows with d and the weights with "
        "d², 8.4 MB at d = 1,024 against 1 MiB of flash.",
        "state": "The state is d values: 4.1 KB at d = 1,024, far inside 256 KiB. The weights are d × d twice: "
        "8.4 MB, eight times the flash.",
        "weights": "W_hh and W_xh are d × d each: 8.4 MB at d = 1,024 (64× the 132.1 KB at 128) against 1 MiB "
        "of flash, while the state is only 4.1 KB. Set d to 1,024 and read the weights card.",
    },
    kind="transfer",
    reveals=("8.4 MB",),
)
C_HIDDEN = Slider("Hidden size d", 16, 1024, 128, step=16)
C_SEQ = Slider("Stream length S (tokens)", 10, 100000, 1000, step=10)
C_CELL = Choice("Cell", CELL_NAMES, "rnn")
C_DEVICE = Choice("Device", C_DEVICES, "ArduinoNano33BLESense")


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
    peek = [
        f"state = {state_terms} × 4 B = {layer.state_elements:,} × 4 B = {state:,} B  (independent of S)",
        f"BPTT  = S × state = {s:,} × {state:,} B = {fmt_bytes(bptt)}",
        f"KV    = S × 2 × d × 4 B = {s:,} × {kv_tok:,} B = {fmt_bytes(kv)}",
        f"KV tokens that fit = {kv_name} / per-token = {kv_cap:,.0f} B / {kv_tok:,} B = {kv_tokens:,}",
        "GPU on-chip sizes are whitepaper constants (the registry lists SRAM only for MCUs); GB = 1e9 B, KiB = 1,024 B",
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
        "On an H100 at batch 1, a 512-wide RNN layer and a 512-wide self-attention layer (8 heads) "
        "each process the same 4,096-token sequence. The attention layer does 10× more arithmetic. "
        "Which finishes first?"
    ),
    options={
        "rnn": "The RNN, by about 10×: it has a tenth of the work",
        "same": "About the same",
        "attn10": "Attention, by about 10×",
        "attn100": "Attention, by about 100×",
    },
    answer="attn100",
    feedback={
        "rnn": "FLOPs are not time. The RNN's 4,096 steps run one after another, each paying its launches; "
        "attention's 10× more arithmetic runs in a handful of wide, parallel kernels.",
        "same": "The two are bound by different things: the RNN by its 4,096-step chain, attention by "
        "moving its score matrix. They differ by two orders of magnitude.",
        "attn10": "More than that: the RNN's chain costs about 8,200 kernel launches (41 ms), attention a few "
        "hundred microseconds, about 110× apart.",
        "attn100": "The chain of 4,096 steps costs about 41 ms of launches; attention's S² work is done in "
        "parallel in about 0.4 ms. Its quadratic cost only catches up at hundreds of thousands of "
        "tokens. The lead is a launch-cost effect: the part shows where it falls to 10×.",
    },
    reveals=("by about 100×", "finally loses"),
)

TRANSFER_D = Prediction(
    question="Run the same 4,096-token comparison on the STM32H743 microcontroller instead of the H100. Which finishes first?",
    options={
        "attn": "Attention: parallel beats serial on every chip, as it did on the H100",
        "rnn": "The RNN: no parallel units hide attention's extra arithmetic",
        "same": "About the same: a slow chip slows both models alike",
    },
    answer="rnn",
    feedback={
        "attn": "Parallelism only pays where the hardware is wide and the RNN's steps are dominated by launch overhead. A "
        "Cortex-M7 does its arithmetic one MAC at a time, so attention's S² work costs its full time.",
        "rnn": "On the microcontroller the engine has the RNN ahead at every length: the chain's steps are cheap "
        "there and attention's quadratic work is not hidden by parallel units. Pick the STM32H743 and read "
        "the crossover and fit cards. (At 4,096 tokens neither model fits the chip's memory: both keep every "
        "token's input and output, megabytes against 1 MiB of SRAM, and at d = 512 the RNN's two 512 × 512 "
        "weight matrices fill the 2 MiB flash exactly, so its biases are 4.1 KB too many. The times compare "
        "the work, not a run you could deploy; Part C shows what streams in kilobytes.)",
        "same": "The two scale differently (S against S²), so at 4,096 tokens they are far apart on any device.",
    },
    kind="transfer",
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
#: The lead PRED_D's answer turns on: "about 100x" rather than "about 10x".
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
)

TRANSFER_E = Prediction(
    question=(
        "Give the state a path around W_hh, the way an LSTM's cell state does: h_t = h_(t−1) + α·tanh(W_hh "
        "h_(t−1) + u_t). After the same 100 steps, how much of the gradient reaches h_0?"
    ),
    options={
        "vanish": "Still almost nothing: tanh′ still multiplies every step",
        "survive": "Order one or more: each step's Jacobian now has an identity term",
        "zero": "Exactly none: the path bypasses the weights, so they get no gradient",
    },
    answer="survive",
    feedback={
        "vanish": "tanh′ now multiplies only the α-scaled branch; the identity term passes the gradient on "
        "unchanged, as in 6.4's residual blocks. Toggle the additive path and compare the curves.",
        "survive": "I + α·diag(tanh′) W_hh stays near the identity, so the product no longer decays geometrically "
        "(it can even grow, which is why LSTMs gate the path with a forget gate below 1).",
        "zero": "The path adds the identity to the Jacobian; the branch through W_hh still gets its own gradient.",
    },
    kind="transfer",
    reveals=("lets it learn across long spans", "it survives"),
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
    if additive:  # shown once the toggle asks for it: TRANSFER_E asks what it does first
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
