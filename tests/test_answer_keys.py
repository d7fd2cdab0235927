"""Every prediction's answer key, re-derived from the core.

For each prediction (``PRED_*`` and ``TRANSFER_*``) in ``mlsysim/labs/parts/*.py`` a function
below computes the quantity the question asks about through mlsysim (layers, models, engine,
hardware registry, energy, primitives, gradients, symmetry, order, moe, table7, shipped HF
configs) and returns the option that quantity implies; the test asserts it is the option marked
correct. Predictions are looked up by module and name; the concept inventory's items
(``mlsysim/labs/inventory.py``) are listed as module ``inventory`` under their report keys
(``PRIOR_1``), their answers derived in ``tests/test_inventory.py`` (``_derived``), and fingerprinted
here like the labs' questions:

- a prediction with no entry in ``KEYS`` fails ``test_every_prediction_has_a_key``;
- a prediction whose question or options changed fails ``test_prediction_unchanged`` (its
  fingerprint differs): re-derive its key below, then update ``FINGERPRINTS``
  (``python tests/test_answer_keys.py`` prints the current ones).

Nothing is skipped: a missing key, a renamed prediction or a changed question is a failure.
After changing a question: re-derive its key function below, then run
``python tests/test_answer_keys.py`` (it imports this checkout's mlsysim) and paste its line for
the question into ``FINGERPRINTS``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import math
import pkgutil

import pytest

import mlsysim.labs.parts as parts_pkg
from mlsysim import Engine, Hardware, Models, energy, gradients, primitives
from mlsysim import layers as L
from mlsysim.engine import weight_only_intensity, with_launch_cost
from mlsysim.labs import inventory
from mlsysim.labs.components import Prediction
from mlsysim.models import mlp, mnist_cnn
from mlsysim.units import Q_

H100 = Hardware.get("H100")


def _predictions() -> dict[tuple[str, str], Prediction]:
    out = {}
    for info in pkgutil.iter_modules(parts_pkg.__path__):
        mod = importlib.import_module(f"mlsysim.labs.parts.{info.name}")
        for name, obj in vars(mod).items():
            if isinstance(obj, Prediction):
                out[(info.name, name)] = obj
    # the concept inventory's items (mlsysim/labs/inventory.py), keyed like its reports
    for c in inventory.CONCEPTS:
        for n, item in enumerate(c.items, 1):
            out[(INVENTORY, inventory.item_key(c.key, n))] = item
    return out


#: the module name under which the concept inventory's items are listed here
INVENTORY = "inventory"

PREDICTIONS = _predictions()


def fingerprint(p: Prediction) -> str:
    text = p.question + "|" + "|".join(f"{k}={v}" for k, v in p.options.items())
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def nearest(options: dict[str, float], value: float, within: float = 1.6) -> str:
    """The option whose number is closest to ``value`` on a log scale; ``value`` must lie within
    a factor ``within`` of it (an "about X" option that is far off is no answer)."""
    key = min(options, key=lambda k: abs(math.log(value / options[k])))
    assert options[key] / within <= value <= options[key] * within, (value, options)
    return key


# --------------------------------------------------------------------------------------------
# Lab 06
# --------------------------------------------------------------------------------------------


def lab06_c():
    """PRED_C states the launch cost (a few µs, 5 µs planning); the verdict is checked at both
    ends of the plausible range (0.1 µs and 20 µs) and at the registry's value."""
    from mlsysim.engine import with_launch_cost

    deep, shallow = mlp([32] * 129, bias=False), mlp([256] * 3, bias=False)
    assert deep.flops() == shallow.flops()  # 128 x 32^2 == 2 x 256^2 MACs
    out = set()
    for dev in (H100, with_launch_cost(H100, 0.1e-6), with_launch_cost(H100, 20e-6)):
        ratio = (
            Engine.solve(deep, dev, precision="fp16", efficiency=0.5).latency_s
            / Engine.solve(shallow, dev, precision="fp16", efficiency=0.5).latency_s
        )
        if ratio < 0.9:
            out.add("deep")
        elif ratio < 1.1:
            out.add("same")
        else:
            out.add("10x" if ratio > 10 else "2x")
    assert len(out) == 1, out
    return out.pop()


def lab06_d():
    out = set()
    for eff in (0.5, 1.0):
        mfu = {
            k: Engine.solve(Models.get(k), H100, precision="fp16", efficiency=eff).mfu
            for k in ("GPT2", "ResNet50", "MobileNetV2")
        }
        if max(mfu.values()) < 2 * min(mfu.values()):
            out.add("equal")
        else:
            out.add(
                {"GPT2": "gpt2", "ResNet50": "resnet", "MobileNetV2": "mobilenet"}[
                    max(mfu, key=mfu.get)
                ]
            )
    assert len(out) == 1, out
    return out.pop()


# --------------------------------------------------------------------------------------------
# 6.1
# --------------------------------------------------------------------------------------------


def s061_a():
    """Weights and MACs of one shared 3x3 RGB filter at 224 and 448 px (stride 1, 'same')."""

    def conv(side):
        return L.Conv2d(
            in_channels=3, out_channels=1, kernel_size=3, input_size=side, padding=1, bias=False
        )

    small, big = conv(224), conv(448)
    weights_grow = big.params > small.params
    macs_grow = big.macs() > small.macs()
    if not weights_grow and macs_grow:
        return "stay_grow"
    if weights_grow and macs_grow:
        return "both"
    return "neither" if not weights_grow and not macs_grow else "none of the options"


def s061_b():
    """Conceptual (No Free Lunch): no quantity in the core decides it; listed in CONCEPTUAL."""
    return "hurts"


def s061_c():
    """Regime by where the time goes (Profile.bottleneck from the time split), at both ends of the
    efficiency range (0.5 and the part's 1.0); the stem's proxies and ridge re-derived."""
    assert round(weight_only_intensity(Models.ResNet50, "fp32")) == 80
    assert round(weight_only_intensity(Models.MobileNetV2, "fp32")) == 43
    assert round(H100.ridge_point("fp32").magnitude) == 20
    answers = set()
    for eff in (0.5, 1.0):
        r, m = (
            Engine.solve(Models.get(k), H100, batch_size=64, precision="fp32", efficiency=eff)
            for k in ("ResNet50", "MobileNetV2")
        )
        answers.add(
            {
                ("Compute", "Compute"): "both_compute",
                ("Compute", "Memory"): "split",
                ("Memory", "Memory"): "both_memory",
                ("Memory", "Compute"): "reversed",
            }.get((r.bottleneck, m.bottleneck), "none of the options")
        )
    assert len(answers) == 1, answers
    return answers.pop()


# --------------------------------------------------------------------------------------------
# 6.2
# --------------------------------------------------------------------------------------------


def s062_a():
    """Widen a square INT8 dense layer on the Arduino (weights in flash, activations in SRAM):
    the first memory the engine finds overflowing, over the part's width steps and past them."""
    mcu = Hardware.get("ArduinoNano33BLESense")
    assert mcu.memory.flash.m_as("B") == 4 * mcu.memory.sram.m_as("B")  # "a quarter the size"
    for d in range(64, 1 << 18, 64):
        p = Engine.solve(L.Dense(in_features=d, out_features=d, bias=False), mcu, precision="int8")
        over = p.overflows
        if over:
            if len(over) > 1 and d > 64:
                return "together"
            return {"flash": "flash", "sram": "sram"}[next(iter(over))]
    return "none of the options"


def s062_c():
    """Whole-network weights, and where the CNN's sit: its dense layer on the flattened map."""
    cnn, mlp_ = mnist_cnn(bias=False), Models.MNISTMLP
    ratio = cnn.params / mlp_.params
    if ratio < 0.7:
        return "mlp"
    if ratio < 1.4:
        return "same"
    head = max(
        (r.layer for r in cnn.rows() if isinstance(r.layer, L.Dense)), key=lambda x: x.params
    )
    assert head.in_features == 7 * 7 * 64 and head.params > cnn.params / 2  # "its dense layer"
    return "cnn"


# --------------------------------------------------------------------------------------------
# 6.3
# --------------------------------------------------------------------------------------------


def s063_a():
    """Four times the pixels (224 -> 448 side): MACs and output activations, each against the
    other; 'in step' when both grow by the same factor."""
    a, b = (
        L.Conv2d(
            in_channels=64, out_channels=64, kernel_size=3, input_size=s, padding=1, bias=False
        )
        for s in (224, 448)
    )
    rm = b.macs() / a.macs()
    ra = b.activation_bytes(1, "fp32") / a.activation_bytes(1, "fp32")
    if rm == pytest.approx(ra, rel=0.01) and rm > 1:
        return "step"
    if rm > ra:
        return "macs" if ra > 1 else "maps"
    return "acts"


def s063_b():
    rf = [L.receptive_field(n, 3, 1) for n in range(1, 6)]
    steps = {b - a for a, b in zip(rf, rf[1:], strict=False)}
    if steps == {0}:
        return "fixed"
    if all(b >= 2 * a - 1 for a, b in zip(rf, rf[1:], strict=False)):
        return "double"
    assert (
        len(steps) == 1 and next(n for n in range(1000) if L.receptive_field(n, 3, 1) >= 100) > 24
    )
    return "linear"


def _mobilenet_speedup(launch_s: float | None = None) -> tuple[float, float]:
    """(ResNet-50 / MobileNetV2 latency, launch share of MobileNetV2's time) on the H100, batch 1,
    FP16, eager, at the device's launch cost or a stated one."""
    from mlsysim.engine import with_launch_cost

    dev = H100 if launch_s is None else with_launch_cost(H100, launch_s)
    r = Engine.solve(Models.ResNet50, dev, precision="fp16")
    m = Engine.solve(Models.MobileNetV2, dev, precision="fp16")
    return r.latency_s / m.latency_s, m.latency_dispatch_s / m.latency_s


def s063_d():
    """The stem states the engine's 5 us launch; the key holds across eager launch costs of
    2-20 us: launches dominate MobileNetV2's time and the speedup stays far below the FLOP ratio."""
    assert H100.dispatch_tax.m_as("us") == 5
    assert Models.ResNet50.flops() / Models.MobileNetV2.flops() > 13
    for launch in (None, 2e-6, 20e-6):
        speedup, share = _mobilenet_speedup(launch)
        if speedup < 1:
            return "slower"
        if speedup > 10:
            return "flops"
        if 5 < speedup < 9:
            return "weights"
        assert speedup < 1.5 and share > 0.5, (launch, speedup, share)
    return "launch"


# --------------------------------------------------------------------------------------------
# 6.4
# --------------------------------------------------------------------------------------------


def s064_a():
    plain = gradients.simulate(50, gain=0.9, activation="linear").first
    res = gradients.simulate(50, gain=0.9, activation="linear", residual=True).first
    assert plain == pytest.approx(0.9**50, rel=1e-6)
    if res > 10:
        return "explode"
    if res < 1e-3:
        return "zero"
    if abs(res - plain) < 0.01:
        return "same"
    assert 0.3 < res < 3
    return "identity"


def s064_c():
    add = L.ResidualAdd(elements=1_000_000)
    x1, x32, x256 = (add.elementwise_intensity(b, "fp32") for b in (1, 32, 256))
    jetson = Hardware.get("JetsonOrinNX")
    ridges = [
        d.compute.peak("fp32").m_as("FLOP/s") / d.memory.bandwidth.m_as("B/s")
        for d in (H100, jetson)
    ]
    if all(x32 > r for r in ridges):
        return "above"
    if all(x256 > r > x1 for r in ridges):
        return "batch"
    far = [r / x32 >= 100 for r in ridges]
    return "far" if all(far) else "split" if far[0] else "near"


# --------------------------------------------------------------------------------------------
# 6.5
# --------------------------------------------------------------------------------------------


def _accelerator(tflops: float):
    """The H100's memory system and launch cost with a different FP16 peak."""
    from mlsysim.hardware import Compute, PeakRate

    compute = Compute(
        quoted_precision="fp16", precisions={"fp16": PeakRate(dense=Q_(tflops, "TFLOP/s"))}
    )
    return H100.model_copy(update={"compute": compute, "key": f"X{tflops}", "name": f"X{tflops}"})


#: The plausible range of a kernel launch's cost (CUDA graphs and persistent kernels to a loaded
#: eager runtime): a key that rests on the engine's 5 us is checked at both ends as well.
LAUNCH_RANGE_S = (2e-6, 5e-6, 10e-6)


def s065_a():
    """10x the peak at batch 1, 1,000 and 10,000 steps, launches at 2, 5 and 10 us."""
    speedups = []
    for tax in LAUNCH_RANGE_S:
        for s in (1000, 10_000):
            rnn = L.RNN(input_size=512, hidden_size=512, seq_len=s)
            t10 = Engine.solve(
                rnn, with_launch_cost(_accelerator(10), tax), efficiency=0.5
            ).latency_s
            t100 = Engine.solve(
                rnn, with_launch_cost(_accelerator(100), tax), efficiency=0.5
            ).latency_s
            speedups.append((s, t10 / t100))
    if all(x < 1.5 for _, x in speedups):
        return "steps"
    if all(x > 10.5 for _, x in speedups):
        return "parallel"
    if all(x > 5 for _, x in speedups):
        return "10x"
    long = [x for s, x in speedups if s == 10_000]
    return "long" if min(long) > 5 else "?"


def s065_b():
    vanilla = L.RNN(input_size=100, hidden_size=128, seq_len=1, bias=False).macs()
    lstm = L.LSTM(input_size=100, hidden_size=128, seq_len=1, bias=False).macs()
    long = L.LSTM(input_size=100, hidden_size=128, seq_len=64, bias=False).macs()
    assert long == 64 * lstm  # per step, the sequence length does not enter
    return {1: "same", 2: "two", 4: "four"}[lstm // vanilla] if lstm % vanilla == 0 else "?"


def s065_c():
    """Inference memory over a stream: the RNN's state vs attention's KV cache (d = 128, FP32)."""
    nano = Hardware.get("ArduinoNano33BLESense")
    sram = nano.memory.sram.m_as("B")
    states = [
        L.RNN(input_size=128, hidden_size=128, seq_len=s).state_bytes(1, "fp32")
        for s in (10, 1000, 10_000_000)
    ]
    per_token = L.MultiHeadAttention(d_model=128, n_heads=1, seq_len=1).kv_cache_bytes_per_token(
        "fp32"
    )
    kv = [per_token * s for s in (1000, 2000, 4000)]
    assert states[0] == 512 and per_token == 1024 and sram // per_token == 256
    if len(set(states)) > 1:
        return "rnn_grows" if kv[0] == kv[-1] else "both"
    # the cache grows by the same bytes per token: linear, not S^2
    if kv[1] - kv[0] == kv[0] and kv[2] == 4 * kv[0]:
        return "flat"
    return "quad"


def s065_d():
    """RNN vs attention, H100, batch 1, 4,096 tokens, launches at 2, 5 and 10 us."""
    rnn = L.RNN(input_size=512, hidden_size=512, seq_len=4096)
    attn = L.MultiHeadAttention(d_model=512, n_heads=8, seq_len=4096)
    assert attn.flops() / rnn.flops() == pytest.approx(10, rel=0.05)
    ratios = []
    for tax in LAUNCH_RANGE_S:
        dev = with_launch_cost(H100, tax)
        r = Engine.solve(rnn, dev, efficiency=0.5)
        a = Engine.solve(attn, dev, efficiency=0.5)
        assert r.bottleneck == "Dispatch"  # the chain of launches, not the weights, sets it
        ratios.append(r.latency_s / a.latency_s)
    if max(ratios) < 0.7:
        return "rnn"
    if all(0.7 <= x < 1.5 for x in ratios):
        return "same"
    if all(1.5 <= x < 2 for x in ratios):
        return "attn_bit"
    return "attn_far" if min(ratios) > 10 else "?"


# --------------------------------------------------------------------------------------------
# 6.6
# --------------------------------------------------------------------------------------------


def s066_a():
    def qk_and_scores(s, d):
        qk = s * s * d  # S x S dot products of d terms, written out
        head = L.Attention(d_model=d, n_heads=1, seq_len=s)
        assert head.macs() == 2 * qk  # QK^T is half of QK^T + PV
        return qk, head.score_bytes()

    base, s2, d2 = qk_and_scores(512, 64), qk_and_scores(1024, 64), qk_and_scores(512, 128)
    by_s = (s2[0] / base[0], s2[1] / base[1])
    by_d = (d2[0] / base[0], d2[1] / base[1])
    if by_s == by_d == (2, 2):
        return "equal"
    if by_s == (4, 4) and by_d == (2, 1):
        return "s4"
    if by_d == (4, 4):
        return "d4"
    return "macs" if by_s[0] == by_d[0] == 4 else "?"


def s066_b():
    a, b = (L.Attention(d_model=768, n_heads=h, seq_len=4096) for h in (12, 24))
    assert round(a.score_bytes() / 1e6, 1) == 402.7 and round(b.score_bytes() / 1e6, 1) == 805.3
    mem, macs = b.score_bytes() / a.score_bytes(), b.macs() / a.macs()
    return {(1, 1): "same", (2, 1): "mem2", (2, 2): "both2", (1, 0.5): "half"}[(mem, macs)]


def _longest(fits) -> int:
    lo, hi = 1, 2
    while fits(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def s066_c():
    """Longest context on the 80 GB H100: materialized scores vs FlashAttention's live tensors."""
    assert L.Attention(d_model=768, n_heads=12, seq_len=100_000).score_bytes() == 240e9
    cap = H100.memory.capacity.m_as("B")
    scores = _longest(
        lambda s: L.Attention(d_model=768, n_heads=12, seq_len=s).score_bytes() <= cap
    )
    flash = _longest(
        lambda s: (
            Engine.solve(
                L.Attention(d_model=768, n_heads=12, seq_len=s, flash=True), H100, precision="fp16"
            ).feasible
        )
    )
    assert scores == 57_735 and flash == 13_020_833
    r = flash / scores
    if r < 1:
        return "shrinks"
    return "same" if r < 2 else "far"


def s066_d():
    """Materialized vs FlashAttention at 8,192 tokens on the H100 (12 heads, d = 768, FP16), at
    the engine's efficiency 0.5 and at both ends of a plausible range (0.3 and 1.0)."""
    a = L.Attention(d_model=768, n_heads=12, seq_len=8192)
    f = L.Attention(d_model=768, n_heads=12, seq_len=8192, flash=True)
    assert f.flops() == a.flops() == 4 * 8192**2 * 768  # the FLOPs stay O(S^2)
    assert round(a.bytes_moved() / f.bytes_moved()) == 129  # "about 130x fewer bytes"
    keys = set()
    for eta in (0.3, 0.5, 1.0):
        std = Engine.solve(a, H100, precision="fp16", efficiency=eta)
        fl = Engine.solve(f, H100, precision="fp16", efficiency=eta)
        if eta == 0.5:
            assert (round(std.latency_s * 1e3, 2), round(fl.latency_s * 1e3, 2)) == (1.95, 0.42)
            assert round(std.latency_s / fl.latency_s, 1) == 4.6
        speedup = std.latency_s / fl.latency_s
        if speedup < 1.2:
            keys.add("same")
        elif speedup > 150:
            keys.add("linear")
        elif speedup > 60:
            keys.add("bytes")
        elif std.bottleneck == "Memory" and fl.bottleneck == "Compute":
            keys.add("compute")
        else:
            keys.add("?")
    assert len(keys) == 1, keys
    return keys.pop()


# --------------------------------------------------------------------------------------------
# 6.7
# --------------------------------------------------------------------------------------------


def s067_b():
    """Llama-2 7B, H100, FP16, decode at 2,048 tokens: bytes per generated token, batch 1 vs 32."""

    def per_token(b):
        p = Engine.solve(
            Models.Llama7B, H100, batch_size=b, precision="fp16", phase="decode", seq_len=2048
        )
        assert p.feasible
        return p.bytes_moved / b

    r = per_token(1) / per_token(32)
    if r < 1:
        return "rise"
    if r < 1.5:
        return "same"
    return "32x" if r > 25 else "less"


def s067_c():
    """Prefill with a tiled (FlashAttention) kernel, GPT-2 XL's shape, FP16, 80 GB: no S x S scores
    are stored, so which of weights, KV cache and one layer's live tensors fills the device first."""
    m = Models.GPT2.shape_beyond_positions()  # "GPT-2 XL's shape": past its 1,024 positions
    cap = H100.memory.capacity.m_as("B")
    weights = m.weight_bytes("fp16")
    if weights > cap:
        return "weights"

    def first(f):
        s = 1
        while f(s) <= cap and s < 1 << 24:
            s *= 2
        return s

    kv = first(lambda s: weights + m.kv_cache_bytes(s, 1, "fp16"))
    live = first(
        lambda s: L.Attention(d_model=1600, n_heads=25, seq_len=s, flash=True).live_elements(1) * 2
    )
    stored = first(lambda s: L.Attention(d_model=1600, n_heads=25, seq_len=s).score_bytes())
    assert stored < kv  # without tiling the scores would come first (Figure 14)
    if min(kv, live) >= 1 << 24:
        return "never"
    return "kv" if kv < live else "scores"


def s067_d():
    """Llama-2 7B, FP16, 4,096-token users on a 40 GB A100: what caps the batch. Feasibility ends
    it (capacity); it is the caches if the weights held once plus one cache per user overflow,
    well before a copy of the weights per user or the compute roof would."""
    a100 = Hardware.get("A100_40GB")
    cap = a100.memory.capacity.m_as("B")
    m = Models.Llama7B
    users = 1
    while Engine.solve(
        m, a100, batch_size=users + 1, precision="fp16", phase="decode", seq_len=4096
    ).feasible:
        users += 1
    at_cap = Engine.solve(m, a100, batch_size=users, precision="fp16", phase="decode", seq_len=4096)
    if at_cap.bottleneck == "Compute":
        return "compute"
    if users > 24:  # "dozens": the weights-only budget's answer
        return "none"
    copies = int(cap // m.weight_bytes("fp16"))  # users a weight copy each would allow
    assert at_cap.kv_cache_bytes > m.weight_bytes("fp16")  # the caches hold most of the memory
    return "cache" if users > copies else "weights"


# --------------------------------------------------------------------------------------------
# 6.8
# --------------------------------------------------------------------------------------------


def s068_a():
    """Two 100M x 128 FP32 tables and the lighthouse's MLPs on one 80 GB A100: the first limit."""
    one = L.Embedding(num_embeddings=100_000_000, embedding_dim=128).weight_bytes("fp32")
    cap = Hardware.get("A100").memory.capacity.m_as("B")
    if 2 * one > cap:
        return "capacity"
    p = Engine.solve(
        L.Embedding(num_embeddings=100_000_000, embedding_dim=128), "A100", precision="fp32"
    )
    return {"Compute": "compute", "Memory": "bandwidth"}.get(p.bottleneck, "none")


def s068_b():
    """DLRM lighthouse (25 tables of 7,812,500 rows): gathered bytes per request at batch 1,024
    against batch 1, with the batch's repeated IDs (uniform draws) counted by simulation."""
    import random

    emb = [r for r in Models.DLRM.rows() if isinstance(r.layer, L.Embedding)]
    rows = emb[0].layer.num_embeddings
    assert rows == 7_812_500 and sum(r.count for r in emb) == 25
    per_req_1 = sum(r.layer.bytes_moved(1, "fp32") * r.count for r in emb)
    per_req_1024 = sum(r.layer.bytes_moved(1024, "fp32") * r.count for r in emb) / 1024
    mlp_rows = [r for r in Models.DLRM.rows() if isinstance(r.layer, L.Dense)]
    mlp_1 = sum(r.layer.bytes_moved(1, "fp32") for r in mlp_rows)
    mlp_1024 = sum(r.layer.bytes_moved(1024, "fp32") for r in mlp_rows) / 1024
    assert mlp_1024 < mlp_1 / 100
    rng = random.Random(68)
    repeats = [1024 - len({rng.randrange(rows) for _ in range(1024)}) for _ in range(200)]
    shared = sum(repeats) / len(repeats) / 1024  # share of lookups another request already made
    if shared > 0.5:
        return "zero"
    if shared > 0.1:
        return "some"
    if per_req_1024 == per_req_1:
        return "same"
    return "fall" if per_req_1024 < per_req_1 else "same"


def _selfcheck_tables(precision):
    return sum(
        L.Embedding(num_embeddings=n, embedding_dim=128).weight_bytes(precision)
        for n in (100_000_000, 1_000_000_000)
    )


# --------------------------------------------------------------------------------------------
# 6.9
# --------------------------------------------------------------------------------------------


def s069_a():
    keys = {"GPT2": "gpt2", "ResNet50": "resnet", "DLRM": "dlrm"}
    rise = {}
    for name in ("GPT2", "ResNet50", "DLRM", "MobileNetV2", "KWS"):
        i = [
            Engine.solve(
                Models.get(name), H100, batch_size=b, precision="fp16", fused=True
            ).arithmetic_intensity.magnitude
            for b in (1, 256)
        ]
        rise[name] = i[1] / i[0]
    if min(rise.values()) > 0.8 * 256:
        return "all"
    best = max(rise, key=rise.get)
    assert rise[best] > 4 * sorted(rise.values())[-2]  # it stands out
    return keys[best]


def s069_b():
    """Serving FP16 to 64 requests (GPT-2 XL at 1,024 tokens) on the 80 GB A100: per-request
    state (engine activations + KV cache) summed over the 64, against the weights."""
    over = set()
    for k in ("ResNet50", "GPT2", "DLRM", "MobileNetV2", "KWS"):
        m = Models.get(k)
        kw = {"seq_len": 1024} if m.is_lm else {}
        p = Engine.solve(m, Hardware.get("A100"), batch_size=64, precision="fp16", **kw)
        if p.activation_bytes + p.kv_cache_bytes > p.weight_bytes:
            over.add(k)
    table = {
        frozenset({"GPT2"}): "gpt2",
        frozenset({"ResNet50", "GPT2", "MobileNetV2", "KWS"}): "no_dlrm",
        frozenset(): "none",
        frozenset({"ResNet50", "GPT2", "DLRM", "MobileNetV2", "KWS"}): "all",
    }
    return table[frozenset(over)]


def s069_c():
    """ResNet-50 per image, batch 1, FP32: weights fetched once from DRAM vs every MAC."""
    m = Models.ResNet50
    fetch = energy.access_energy(m.weight_bytes("fp32"), "dram").m_as("pJ")
    macs = energy.mac_energy("fp32").m_as("pJ") * m.macs(1)
    share = fetch / (fetch + macs)
    assert f"{share:.1%}" == "46.5%"
    if share < 0.2:
        return "small"
    return "half" if share < 0.7 else "most"


def s069_d():
    """The camera trap's day: 100 engine-timed frames at the active 200 mW, idle the rest. The
    idle draw is a planning assumption (a tenth of active): checked from a hundredth to a half."""
    from mlsysim import models as M

    cam = Hardware.get("CortexA53Camera")
    t = Engine.solve(M.mobilenet_v2(0.75), cam, precision="int8", efficiency=1.0).latency_s
    busy = 100 * t
    active = cam.tdp.m_as("W")
    out = set()
    for idle_share in (0.01, 0.1, 0.5):
        infer_j, idle_j = active * busy, idle_share * active * (86_400 - busy)
        share = idle_j / (infer_j + idle_j)
        out.add("idle" if share > 0.6 else "infer" if share < 0.4 else "even")
        if idle_share == 0.1:
            assert f"{share:.1%}" == "99.7%" and f"{busy / 86_400:.3%}" == "0.025%"
    assert len(out) == 1, out
    return out.pop()


# --------------------------------------------------------------------------------------------
# 6.10
# --------------------------------------------------------------------------------------------


def _vit_b16():
    from mlsysim.labs.parts.s06_10_fallacies import vit

    m = vit()
    # published: torchvision vit_b_16 has 86,567,656 parameters and 17.56 GMACs at 224x224
    assert m.params == 86_567_656
    assert m.flops() / 2 / 1e9 == pytest.approx(17.56, rel=0.01)
    return m


#: The launch cost and efficiency ranges a question's key must hold over when its stem does not
#: state them (tests/test_rubric.py: an answer resting on an engine assumption)
LAUNCH_RANGE = (2e-6, 20e-6)
EFFICIENCY_RANGE = (0.3, 0.7)
CORNERS = [(lc, eff) for lc in LAUNCH_RANGE for eff in EFFICIENCY_RANGE]


def s0610_a():
    """ViT-B/16 over ResNet-50 latency on a Jetson Orin NX (FP16, batch 1, eager), at both ends of
    the launch-cost and efficiency ranges: well under the FLOP ratio at every corner."""
    from mlsysim.engine import with_launch_cost

    v, r = _vit_b16(), Models.ResNet50
    flops = v.flops() / r.flops()
    assert flops == pytest.approx(4.3, abs=0.05)  # the stem's premise
    keys = set()
    for lc, eff in CORNERS:
        dev = with_launch_cost("JetsonOrinNX", lc)
        lat = [
            Engine.solve(m, dev, batch_size=1, precision="fp16", efficiency=eff).latency_s
            for m in (v, r)
        ]
        ratio = lat[0] / lat[1]
        if ratio < 1:
            keys.add("faster")
        elif ratio > 1.1 * flops:
            keys.add("more")
        elif ratio > 0.8 * flops:
            keys.add("flops")
        else:
            assert 1.2 < ratio < 0.7 * flops  # "well under": at most 2.7x of 4.3x
            keys.add("less")
    assert len(keys) == 1, keys
    return keys.pop()


# --------------------------------------------------------------------------------------------
# 6.11
# --------------------------------------------------------------------------------------------


def s0611_a():
    """Where im2col's extra memory comes from: 9x with overlapping windows, exactly 1x (a reordered
    copy) when the windows tile the map (stride 3, no padding), 8.4x without the padding; the
    GEMM's output is no larger than the input."""

    def conv(**kw):
        base = dict(in_channels=64, out_channels=64, kernel_size=3, input_size=56, padding=1)
        return L.Conv2d(**{**base, **kw})

    same = conv()
    assert same.im2col_expansion == 9  # the stem's 'several times'
    tiled = conv(input_size=57, stride=3, padding=0).im2col_expansion
    unpadded = conv(padding=0).im2col_expansion
    output = same.out_channels * same.output_size[0] * same.output_size[1] / same.input_elements
    if tiled >= 2:
        return "layout"
    if unpadded < 0.5 * same.im2col_expansion:
        return "padding"
    if output >= 2:
        return "output"
    assert tiled == 1 and unpadded > 8
    return "overlap"


# --------------------------------------------------------------------------------------------
# Lab 06 (rewritten predictions and transfers)
# --------------------------------------------------------------------------------------------


def lab06_a():
    """The conv's output map when the image side doubles (its weights do not change)."""
    maps = {
        side: L.Conv2d(
            in_channels=3, out_channels=64, kernel_size=3, input_size=side, padding=1
        ).activation_bytes(1, "fp32")
        for side in (224, 448)
    }
    weights = {
        side: L.Conv2d(
            in_channels=3, out_channels=64, kernel_size=3, input_size=side, padding=1
        ).params
        for side in (224, 448)
    }
    assert weights[224] == weights[448] == 1792
    assert maps[448] / 1e6 == pytest.approx(51.4, rel=0.001)
    return nearest({"same": 1, "double": 2, "quad": 4}, maps[448] / maps[224], within=1.05)


def lab06_b():
    cap = H100.memory.capacity.m_as("B")
    full = L.Attention(d_model=4096, n_heads=32, seq_len=131_072)
    tiled = L.Attention(d_model=4096, n_heads=32, seq_len=131_072, flash=True)
    assert full.live_elements(1) * 2 == pytest.approx(2.2e12, rel=0.01)
    live = tiled.live_elements(1) * 2
    assert live == 4 * 131_072 * 4096 * 2  # Q, K, V, O: linear in S
    if live <= cap:
        return "fits"
    return "half" if live < 0.6 * full.live_elements(1) * 2 else "still"


def lab06_ta():
    """A ViT patch embedding (16x16 patches, 768 features): weights at 224 and 448."""
    w = {
        side: L.Conv2d(
            in_channels=3, out_channels=768, kernel_size=16, stride=16, input_size=side
        ).params
        for side in (224, 448)
    }
    assert w[224] == 590_592
    return nearest({"same": 1, "double": 2, "quad": 4}, w[448] / w[224], within=1.05)


def lab06_tb():
    live = {
        s: L.Attention(d_model=4096, n_heads=32, seq_len=s, flash=True).live_elements(1) * 2
        for s in (131_072, 262_144)
    }
    assert live[262_144] / 1e9 == pytest.approx(8.6, rel=0.01)
    return nearest({"double": 2, "quad": 4, "same": 1}, live[262_144] / live[131_072], within=1.05)


def lab06_tc():
    """512 x 16 (beyond the slider) against 128 x 32, each over 2 x 256, on the H100."""
    shallow = Engine.solve(mlp([256] * 3, bias=False), H100, precision="fp16", efficiency=0.5)
    gap = {
        d: Engine.solve(
            mlp([w] * (d + 1), bias=False), H100, precision="fp16", efficiency=0.5
        ).latency_s
        / shallow.latency_s
        for d, w in ((128, 32), (512, 16))
    }
    assert mlp([16] * 513, bias=False).flops() == mlp([256] * 3, bias=False).flops()
    assert round(gap[512]) == 339 and round(gap[128]) == 85
    r = gap[512] / gap[128]
    if r < 0.9:
        return "smaller"
    return nearest({"four": 4, "some": 2, "same": 1}, r, within=1.3)


def lab06_td():
    mfu = {
        p: Engine.solve(Models.ResNet50, H100, batch_size=1, precision=p, efficiency=1.0).mfu
        for p in ("fp16", "int8")
    }
    assert f"{100 * mfu['fp16']:.2f}%" == "0.89%" and f"{100 * mfu['int8']:.2f}%" == "0.46%"
    return nearest(
        {"half": 0.5, "some": 0.75, "double": 2, "same": 1}, mfu["int8"] / mfu["fp16"], within=1.2
    )


# --------------------------------------------------------------------------------------------
# 6.1 transfers
# --------------------------------------------------------------------------------------------


def s061_ta():
    """One 3x3 filter over a 320x320 map, 'same' padding: 64 input channels against RGB's 3."""

    def conv(channels):
        return L.Conv2d(
            in_channels=channels,
            out_channels=1,
            kernel_size=3,
            input_size=320,
            padding=1,
            bias=False,
        )

    rgb, deep = conv(3), conv(64)
    grow_w, grow_m = deep.params > rgb.params, deep.macs() > rgb.macs()
    if grow_w and grow_m:
        return "both"
    return "weights" if grow_w else "macs" if grow_m else "neither"


def s061_tb():
    """GPT-2 XL decoding 64 sequences (1,024-token caches) on the H100 in FP32: the regime at both
    ends of the efficiency range (the stem states the 5 us launch cost)."""
    answers = {
        Engine.solve(
            Models.GPT2, H100, batch_size=64, precision="fp32", efficiency=eff, seq_len=1024
        ).bottleneck
        for eff in (0.5, 1.0)
    }
    assert len(answers) == 1, answers
    return {"Memory": "memory", "Compute": "compute", "Dispatch": "dispatch"}[answers.pop()]


def s061_tc():
    """MobileNetV2 at batch 4,096 on the H100 in FP32: fit first, then the regime at both ends of
    the efficiency range; the stem's proxy re-derived."""
    assert round(weight_only_intensity(Models.MobileNetV2, "fp32", 4096), -3) == 176_000
    answers = set()
    for eff in (0.5, 1.0):
        p = Engine.solve(
            Models.MobileNetV2, H100, batch_size=4096, precision="fp32", efficiency=eff
        )
        answers.add(
            "capacity"
            if not p.feasible
            else {"Memory": "memory", "Compute": "compute"}.get(p.bottleneck, "dispatch")
        )
    assert len(answers) == 1, answers
    return answers.pop()


def s061_d():
    """256 positions x 64 features, a 3-wide CNN, the pair 50 apart: along the prior's order
    (MLP -> attention -> RNN -> CNN) the weights collapse once positions share them and the
    share of pairs one layer relates falls until the CNN cannot relate the pair."""
    from mlsysim import priors

    cnn, rnn, att, mlp = priors.compare(256, 64, 3, 50)
    weights_collapse = mlp.weights > 1000 * max(cnn.weights, rnn.weights, att.weights)
    reach_shrinks = mlp.reach == att.reach > rnn.reach > cnn.reach
    if weights_collapse and reach_shrinks and not cnn.relates and rnn.relates:
        assert min((cnn, rnn, att), key=lambda r: r.weights) is not att  # not "newest"
        return "shrink"
    if weights_collapse:
        return "free"
    return "more"


def s061_td():
    """256 -> 8,192 positions: only the MLP's weights change (with the square of the length)."""
    from mlsysim import priors

    short, long = priors.compare(256, 64, 3, 1), priors.compare(8192, 64, 3, 1)
    grown = {a.family for a, b in zip(short, long, strict=True) if b.weights > a.weights}
    if grown == {"mlp"}:
        assert long[3].weights == 32**2 * short[3].weights
        return "mlp"
    if not grown:
        return "none"
    return "attention" if grown == {"mlp", "attention"} else "all"


# --------------------------------------------------------------------------------------------
# 6.2 (rewritten) and transfers
# --------------------------------------------------------------------------------------------


def _roof_share(layer, dev, precision):
    ai = layer.flops() / layer.bytes_moved(1, precision)
    return min(
        1.0, dev.memory.bandwidth.m_as("B/s") * ai / dev.compute.peak(precision).m_as("FLOP/s")
    )


def s062_b():
    dev = Hardware.get("A100_40GB")
    small, big = (
        _roof_share(L.Dense(in_features=d, out_features=d, bias=False), dev, "fp32")
        for d in (2048, 4096)
    )
    assert small < 0.1  # "only a few percent"
    if big == pytest.approx(small, rel=0.02):
        return "same"
    return "up" if big > small else "down"


def s062_d():
    """Energy per inference of the 2,048² layer from DRAM: INT8 at batch 1 vs FP32 at batch 8."""
    layer = L.Dense(in_features=2048, out_features=2048, bias=False)

    def per_inference(precision, batch):
        move = energy.access_energy(layer.weight_bytes(precision), "dram").m_as("pJ") / batch
        return move + energy.mac_energy(precision).m_as("pJ") * layer.macs()

    assert round(energy.mac_energy("fp32") / energy.mac_energy("int8")) == 15  # "a fifteenth"
    b8, i8 = per_inference("fp32", 8), per_inference("int8", 1)
    if b8 == pytest.approx(i8, rel=0.15):
        return "same"
    return "batch" if b8 < i8 else "int8"


def s062_ta():
    """The 16 -> 32 3x3 conv over 96x96 in INT8 on the Arduino: which memory the engine finds over."""
    conv = L.Conv2d(
        in_channels=16, out_channels=32, kernel_size=3, input_size=96, padding=1, bias=False
    )
    p = Engine.solve(conv, Hardware.get("ArduinoNano33BLESense"), precision="int8")
    assert conv.params < 5000  # "a few thousand weights"
    if p.feasible:
        return "fits"
    return {"flash": "flash", "sram": "sram"}[next(iter(p.overflows))]


def s062_tb():
    """The 2,048² layer at batch 1 on the H100: share of the INT8 peak vs of the FP32 peak (launch
    time excluded, the part's roofline_share)."""
    from mlsysim.labs.parts.s06_02_mlps import roofline_share

    layer = L.Dense(in_features=2048, out_features=2048, bias=False)
    s32, s8 = (roofline_share(layer, H100, 1, p) for p in ("fp32", "int8"))
    if s8 == pytest.approx(s32, rel=0.02):
        return "same"
    return "larger" if s8 > s32 else "smaller"


def s062_tc():
    """The CNN with a third conv (64 -> 128, 3x3 at 7x7) and pooling (7x7 -> 3x3) before the head,
    built from layers here (not the part's helper)."""
    c3 = L.Conv2d(
        in_channels=64, out_channels=128, kernel_size=3, input_size=7, padding=1, bias=False
    )
    pooled = L.Pool2d(channels=128, input_size=7, kernel_size=2).output_elements
    assert pooled == 3 * 3 * 128
    base = mnist_cnn(bias=False)
    head = [r.layer.params for r in base.rows() if isinstance(r.layer, L.Dense)]
    new = base.params - head[0] + c3.params + pooled * 128
    if abs(new - base.params) < 0.05 * base.params:
        return "same"
    return "down" if new < base.params else "up"


def s062_td():
    """A 64 -> 64 3x3 conv over 56x56 at batch 1, FP32 weights from DRAM: fetch energy over the MAC
    energy each fetched weight feeds (reuse = output positions)."""
    conv = L.Conv2d(
        in_channels=64, out_channels=64, kernel_size=3, input_size=56, padding=1, bias=False
    )
    assert round(energy.move_vs_compute("fp32", "dram", 1)) == 139  # the wrong option's figure
    ratio = energy.move_vs_compute("fp32", "dram", conv.weight_reuse)
    return "compute" if ratio < 1 else "move"


def s062_e():
    """Sawtooth 4 -> 8 teeth (3 -> 4 foldings), both networks built and checked exactly."""
    from mlsysim import expressivity as X

    a, b = X.compare(3), X.compare(4)
    assert a.shallow_error == b.shallow_error == a.deep_error == b.deep_error == 0
    shallow, deep = b.shallow.units / a.shallow.units, b.deep.units - a.deep.units
    if shallow == 2 and deep == 2:
        return "split"
    if shallow == 2 and b.deep.units / a.deep.units == 2:
        return "both"
    return "flat"


def s062_te():
    """20 foldings: the formulas the built networks obey (checked up to 8 foldings in the part)."""
    from mlsysim import expressivity as X

    shallow, deep = X.units_needed(20)
    assert (shallow, deep) == (1_048_576, 40)
    assert X.compare(8).shallow.units == X.units_needed(8)[0]
    if deep < 100 and shallow > 1e6:
        return "deep"
    return "close" if deep > 1e5 else "wide"


def s062_f():
    """16 samples of the 3-period wave: the error between them at 64 and 1,024 units, and with 32
    samples at 64 units (mlsysim.learnability)."""
    from mlsysim import learnability

    narrow = learnability.fit(16, 64).off_sample_error
    wide = learnability.fit(16, 1024).off_sample_error
    more = learnability.fit(32, 64).off_sample_error
    width_gain, data_gain = narrow - wide, narrow - more
    if width_gain > 2 * data_gain:
        return "width"
    return "samples" if data_gain > 2 * width_gain else "both"


def s062_tf():
    """6 samples, a million units: exact on the samples? close between them?"""
    from mlsysim import learnability

    f = learnability.fit(6, 10**6)
    if f.sample_error > 1e-6:
        return "rough"
    return "close" if f.off_sample_error < 0.1 else "miss"


def s066_f():
    """The match 3 -> 100 tokens back in part F's 128-token sequence, 7-token window."""
    from mlsysim import routing

    near, far = routing.read(128, 3, 7), routing.read(128, 100, 7)
    att_holds = far.attention == pytest.approx(near.attention)
    win_lost = near.windowed > 0.5 and far.windowed == far.fixed == 0
    if att_holds and win_lost:
        return "content"
    return "both" if far.attention < near.attention else "neither"


def s066_tf():
    """A fixed-length summary gives every step the same mixture (a filter's fixed weights over all
    40 words); attention's weights follow each step's query: the word a step needs can take most
    of them."""
    from mlsysim import routing

    words = 40
    fixed_share = routing.read(words + 1, words, words + 1).fixed  # 1/(n+1) to every word
    attention = routing.read(words + 1, 20, words + 1).attention
    return "attention" if attention > 0.5 > fixed_share else "summary"


def s066_g():
    """5 of 12 heads pruned (42%), H100, batch 1, 2,048 tokens: weights vs time saved."""
    from mlsysim import pruning

    r = pruning.prune_heads(5, 2048, "H100")
    if abs(r.time_saved - 5 / 12) < 0.02 and abs(r.params_saved - 5 / 12) < 0.02:
        return "same"
    return "time" if r.time_saved > r.params_saved else "weights"


def s066_tg():
    """Attention cannot go (the paper: most heads must remain), and it is not the whole cost
    (the FFN and the rest are about half the time at 512 tokens on the H100)."""
    from mlsysim import pruning
    from mlsysim.published import HEAD_PRUNING

    r = pruning.prune_heads(11, 512, "H100")
    if r.attention_share > 0.9:
        return "free"
    return "keep" if HEAD_PRUNING["prunable_pct"].value < 50 else "drop"


def s067_f():
    """GPT-2 XL prefill of 1,024 tokens, FP16, eager, H100: the residual adds' and LayerNorms' share
    of the time against their share of the FLOPs (engine rows grouped by mlsysim.anatomy)."""
    from mlsysim import anatomy

    p = Engine.solve(
        Models.GPT2, "H100", precision="fp16", efficiency=0.5, phase="prefill", seq_len=1024
    )
    s = anatomy.shares(p)
    flops = s["residual"].flops + s["norm"].flops
    time = s["residual"].time_s + s["norm"].time_s
    if time > 0.5:
        return "most"
    return "more" if time > flops + 0.02 else "same"


def s067_g():
    """One ViT-B/16 block against one BERT-base block at 197 tokens (mlsysim.anatomy over the
    two models' rows): weights and MACs."""
    from mlsysim import anatomy

    v, t = anatomy.block_total(Models.ViTB16), anatomy.block_total(Models.BERTBase, 197)
    if (v.params, v.macs) == (t.params, t.macs):
        return "same"
    return "image" if v.macs > t.macs else "text"


def s067_tg():
    """A block of BERT-base's shape over 1,500 speech frames against 512 word pieces."""
    from mlsysim import anatomy

    speech = anatomy.encoder_block(768, 12, 3072, 1500)
    text = anatomy.block_total(Models.BERTBase, 512)
    ratio = speech.macs / text.macs
    if ratio == pytest.approx(1500 / 512, rel=0.01):
        return "ratio"
    return "more" if ratio > 1500 / 512 else "same"


def s067_tf():
    """The same share at a 128-token prompt against 1,024."""
    from mlsysim import anatomy

    def glue(seq):
        p = Engine.solve(
            Models.GPT2, "H100", precision="fp16", efficiency=0.5, phase="prefill", seq_len=seq
        )
        s = anatomy.shares(p)
        return s["residual"].time_s + s["norm"].time_s

    short, long = glue(128), glue(1024)
    if short == pytest.approx(long, rel=0.1):
        return "same"
    return "grows" if short > long else "shrinks"


# --------------------------------------------------------------------------------------------
# 6.3 (rewritten) and transfers
# --------------------------------------------------------------------------------------------


def _ds_saving(c_out: int, k: int) -> float:
    std = L.Conv2d(
        in_channels=64,
        out_channels=c_out,
        kernel_size=k,
        input_size=224,
        padding=k // 2,
        bias=False,
    )
    return std.macs() / L.depthwise_separable(64, c_out, k, 224).macs()


def s063_c():
    narrow, wide, wider = _ds_saving(64, 3), _ds_saving(1024, 3), _ds_saving(100_000, 3)
    if wide == pytest.approx(narrow, rel=0.01):
        return "same"
    if wide < narrow:
        return "shrinks"
    return "limit" if narrow < wide < wider < 9 else "unbounded"


def s063_e():
    from mlsysim import symmetry as Y

    x = Y.EXAMPLE_IMAGE
    tx = Y.shift(x, 2)
    k = Y.EXAMPLE_KERNEL
    conv_err = Y.max_abs_difference(Y.conv2d_valid(tx, k), Y.shift(Y.conv2d_valid(x, k), 2))
    w = Y.dense_layer(49, 25, seed=0)
    dense_err = Y.max_abs_difference(
        Y.dense_apply(tx, w, (5, 5)), Y.shift(Y.dense_apply(x, w, (5, 5)), 2)
    )
    moved = Y.max_abs_difference(Y.conv2d_valid(tx, k), Y.conv2d_valid(x, k))
    if conv_err == 0 and dense_err == 0:
        return "both"
    if conv_err == 0 and moved > 0:
        return "conv"
    return "neither" if moved == 0 else "reversed"


def s063_ta():
    a, b = (
        L.Conv2d(
            in_channels=64,
            out_channels=64,
            kernel_size=3,
            input_size=224,
            stride=s,
            padding=1,
            bias=False,
        )
        for s in (1, 2)
    )
    assert a.params == b.params
    r = b.macs() / a.macs()
    if r == pytest.approx(1):
        return "same"
    return nearest({"half": 0.5, "quarter": 0.25}, r, within=1.2)


def s063_tb():
    """Dilation 1, 2, 4, 8, 16 at stride 1: the field from each layer's dilated extent (the
    unpadded output shrinks by extent - 1), the map side with padding = dilation, and the params."""

    def conv(d, pad):
        return L.Conv2d(
            in_channels=64,
            out_channels=64,
            kernel_size=3,
            input_size=224,
            dilation=d,
            padding=pad,
            bias=False,
        )

    field, fields = 1, []
    for d in (1, 2, 4, 8, 16):
        field += 224 - conv(d, 0).output_size[0]
        fields.append(field)
    if fields[-1] <= L.receptive_field(5, 3, 1):
        return "linear"
    if conv(16, 0).params > conv(1, 0).params:
        return "weights"
    assert fields == [L.receptive_field(n, 3, 2) for n in range(1, 6)]  # striding's reach
    return "full" if conv(16, 16).output_size == (224, 224) else "stride"


def s063_tc():
    std = L.Conv2d(in_channels=64, out_channels=64, kernel_size=1, input_size=224, bias=False)
    split = L.depthwise_separable(64, 64, 1, 224)
    assert split.macs() == std.macs() + 64 * 224 * 224  # the 1x1 depthwise step: one MAC per value
    if split.macs() == std.macs():
        return "same"
    return "more" if split.macs() > std.macs() else "save"


def s063_td():
    from mlsysim.models import mobilenet_v2

    half = mobilenet_v2(0.5)
    out = {}
    for dev, prec in (("H100", "fp16"), ("CortexA53Camera", "int8")):
        full = Engine.solve(Models.MobileNetV2, dev, precision=prec)
        small = Engine.solve(half, dev, precision=prec)
        ratio = full.flops / small.flops
        assert 2.5 < ratio < 3.5
        out[dev] = full.latency_s / small.latency_s / ratio  # share of the FLOP saving realized
    gpu, cam = out["H100"] > 0.8, out["CortexA53Camera"] > 0.8
    if gpu and cam:
        return "flops"
    if not gpu and not cam:
        return "launch"
    return "split" if cam else "reversed"


def s063_te():
    """Stride 2 (every other window of the stride-1 valid map), edge shifted one column right."""
    from mlsysim import symmetry as Y

    def strided(img):
        return [row[::2] for row in Y.conv2d_valid(img, Y.EXAMPLE_KERNEL)[::2]]

    x = Y.EXAMPLE_IMAGE
    before, after = strided(x), strided(Y.shift(x, 1))
    moved = any(Y.max_abs_difference(after, Y.shift(before, dx)) == 0 for dx in (-1, 0, 1))
    assert (
        Y.max_abs_difference(strided(Y.shift(x, 2)), Y.shift(before, 1)) == 0
    )  # stride's multiple
    return "yes" if moved else "no"


def s063_f():
    """Turn the step-edge image 90° and compare the p4 maps with turned copies, in place and
    moved one orientation channel on."""
    from mlsysim import symmetry as Y

    x, k = Y.step_image(7, 3), Y.EXAMPLE_KERNEL
    before, after = Y.p4_conv2d_valid(x, k), Y.p4_conv2d_valid(Y.rot90(x, 1), k)

    def err(a, b):
        return max(Y.max_abs_difference(p, q) for p, q in zip(a, b, strict=True))

    if err(after, before) == 0:
        return "same"
    if err(after, [Y.rot90(m, 1) for m in before]) == 0:
        return "turn"
    if err(after, Y.p4_rotate(before, 1)) == 0:
        return "cycle"
    return "learned"


def s063_tf():
    """Part A's 64 -> 64 3x3 layer at 224 as a p4 lifting layer: learned weights, MACs, maps."""
    from mlsysim import symmetry as Y

    plain = L.Conv2d(
        in_channels=64, out_channels=64, kernel_size=3, input_size=224, padding=1, bias=False
    )
    run = Y.p4_layer(plain)
    assert run.macs() == 4 * plain.macs() and run.output_elements == 4 * plain.output_elements
    learned = plain.params  # the rotated copies are the same numbers
    if run.macs() == plain.macs():
        return "free"
    return "weights" if learned == run.params else "four"


# --------------------------------------------------------------------------------------------
# 6.4 (rewritten) and transfers
# --------------------------------------------------------------------------------------------


def s064_b():
    """Serving runs in eval mode with the running statistics, frozen there ('live' is ruled out by
    the same definition; listed in CONCEPTUAL);
    the core's gap confirms serving differs from training at 8 x 128 tokens without collapsing
    to beta, which only a one-value training batch would do."""
    train = gradients.batchnorm_train_serve_gap(batch=8 * 128, positions=1)
    one = gradients.batchnorm_train_serve_gap(batch=1, positions=1)
    assert one == pytest.approx(1.0, abs=1e-9)  # 'beta' is training mode on one value
    return "running" if 0 < train < 0.2 else "beta"


def s064_ta():
    first = gradients.simulate(200, gain=1.05, activation="linear").first
    assert gradients.flow_verdict(gradients.simulate(64, gain=1.05, activation="linear").first) == (
        "survives"
    )  # what Part A's deepest stack shows at this gain
    if first > 1e3:
        return "explodes"
    return "vanishes" if first < 0.1 else "safe"


def s064_tb():
    """64 GPUs x 2 images of 7x7 maps, each GPU with its own statistics, against one device
    normalizing all 128 images."""
    local = gradients.batchnorm_train_serve_gap(batch=2, positions=7 * 7)
    pooled = gradients.batchnorm_train_serve_gap(batch=128, positions=7 * 7)
    if local == pytest.approx(pooled, rel=0.2):
        return "same"
    return "larger" if local > pooled else "smaller"


def s064_tc():
    """The same FP32 residual add (batch 32) on the A100 instead of the H100: which ratio its
    time follows."""
    add = L.ResidualAdd(elements=256 * 56 * 56 * 32)
    a100 = Hardware.get("A100")
    t = {d.name: Engine.solve(add, d, precision="fp32").latency_s for d in (H100, a100)}
    r = t[a100.name] / t[H100.name]
    bw = H100.memory.bandwidth.m_as("B/s") / a100.memory.bandwidth.m_as("B/s")
    peak = H100.compute.peak("fp32").m_as("FLOP/s") / a100.compute.peak("fp32").m_as("FLOP/s")
    if r == pytest.approx(1, rel=0.15):
        return "same"
    return nearest({"bandwidth": bw, "peak": peak}, r, within=1.2)


def s064_d():
    """The skip path alone, 10 -> 200 blocks: identity (pre-activation), ReLU after the add (the
    measured post-activation network), a highway gate at bias -2."""
    from mlsysim import gradients as G

    kept = {
        form: [G.skip_path(form, n, gate_bias=-2.0).first for n in (10, 200)]
        for form in G.SKIP_FORMS
    }
    whole = {f for f, (a, b) in kept.items() if b == pytest.approx(a, rel=1e-9) and b > 0.5}
    if whole == set(G.SKIP_FORMS):
        return "any"
    if whole == {"preact"} and all(kept[f][1] < kept[f][0] / 2 for f in ("postact", "highway")):
        return "identity"
    return "gate" if "highway" in whole else "relu"


def s064_td():
    """The gate bias that keeps 10% over 200 highway layers, against the one for 100."""
    from mlsysim import gradients as G

    b100, b200 = -G.highway_bias_for(0.1, 100), -G.highway_bias_for(0.1, 200)  # magnitudes
    return nearest({"ln2": b100 + math.log(2), "same": b100, "double": 2 * b100}, b200, within=1.05)


# --------------------------------------------------------------------------------------------
# 6.5 new prediction and transfers
# --------------------------------------------------------------------------------------------


def s065_e():
    g = gradients.bptt(100, activation="tanh", gain=1.0).grad_norms
    ratio = g[0] / g[-1]
    if ratio < 1e-6:
        return "vanish"
    return "explode" if ratio > 1e3 else "all"


def s065_ta():
    """d = 512 -> 2,048 at batch 1 on the 10 TFLOP/s part, launches at 2, 5 and 10 us."""
    ratios = []
    for tax in LAUNCH_RANGE_S:
        dev = with_launch_cost(_accelerator(10), tax)
        t512, t2048 = (
            Engine.solve(
                L.RNN(input_size=d, hidden_size=d, seq_len=1000),
                dev,
                precision="fp16",
                efficiency=0.5,
            ).latency_s
            for d in (512, 2048)
        )
        if tax == 5e-6:
            assert (round(t512 * 1e3, 2), round(t2048 * 1e3, 2)) == (10.21, 13.36)
        ratios.append(t2048 / t512)
    if max(ratios) < 1:
        return "shorter"
    if max(ratios) < 2:
        return "little"
    return "x16" if min(ratios) > 8 else "x4"


def s065_tb():
    """A bidirectional vanilla RNN: MACs per token and the length of the dependency chain."""
    one = L.RNN(input_size=100, hidden_size=128, seq_len=50, bias=False)
    two = L.RNN(input_size=100, hidden_size=128, seq_len=50, bias=False, bidirectional=True)
    macs = two.macs() / one.macs()
    assert one.macs() == 50 * 29_184 and two.macs() == 50 * 58_368
    with pytest.raises(ValueError, match="streaming"):  # it cannot stream
        L.RNN(input_size=100, hidden_size=128, seq_len=50, bidirectional=True, streaming=True)
    if macs == 1:
        return "shared"
    if macs == 4:
        return "four"
    return "both" if two.serial_steps == one.serial_steps else "chain"


def s065_tc():
    """Truncated BPTT over 100-step windows of a 100,000-token stream, d = 128, FP32."""
    nano = Hardware.get("ArduinoNano33BLESense")

    def kept(steps):
        return L.RNN(input_size=128, hidden_size=128, seq_len=steps).bptt_bytes(1, "fp32")

    window, stream = kept(100), kept(100_000)
    state = L.RNN(input_size=128, hidden_size=128, seq_len=1).state_bytes(1, "fp32")
    assert (state, window, stream) == (512, 51_200, 51_200_000)
    assert window <= nano.memory.sram.m_as("B") < stream
    # the backward pass through a window evaluates one Jacobian per step at that step's state
    if window == state:
        return "state"
    return "window" if window < stream else "stream"


def s065_td():
    """Attention's lead over the RNN at batch 1 and batch 64 (H100, 4,096 tokens), launches at
    2, 5 and 10 us: it must shrink at every launch cost."""
    rnn = L.RNN(input_size=512, hidden_size=512, seq_len=4096)
    attn = L.MultiHeadAttention(d_model=512, n_heads=8, seq_len=4096)
    moves = []
    for tax in LAUNCH_RANGE_S:
        dev = with_launch_cost(H100, tax)

        def lead(b, dev=dev):
            r = Engine.solve(rnn, dev, batch_size=b, precision="fp16", efficiency=0.5)
            a = Engine.solve(attn, dev, batch_size=b, precision="fp16", efficiency=0.5)
            return r.latency_s / a.latency_s, r, a

        (l1, r1, a1), (l64, r64, a64) = lead(1), lead(64)
        if tax == 5e-6:
            assert [round(x.latency_s * 1e3, 1) for x in (r1, a1, r64, a64)] == [
                41.6,
                0.4,
                41.8,
                22.0,
            ]
            assert round(l64, 1) == 1.9
        moves.append(l64 / l1)
    if all(m < 0.1 for m in moves):
        return "shrink"
    if all(m > 1.2 for m in moves):
        return "grow"
    return "same"


def s065_te():
    """The plain tanh recurrence at 16 and 64 units (gain 1, 100 steps)."""
    f16, f64 = (gradients.bptt(100, width=w, activation="tanh", gain=1.0) for w in (16, 64))
    assert f"{f16.first:.0e}" == "1e-21" and f"{f64.first:.0e}" == "1e-20"
    assert (round(f16.per_step_factor, 2), round(f64.per_step_factor, 2)) == (0.62, 0.63)
    if f64.first > 1e2:
        return "explode"
    return "vanish" if f64.first < 1e-2 else "survive"


# --------------------------------------------------------------------------------------------
# 6.6 new prediction and transfers
# --------------------------------------------------------------------------------------------


def s066_e():
    from mlsysim import order

    r = order.order_experiment(n_tokens=5, d_model=4, shift=1, positions=False)
    rows = r["original"]
    if max(abs(a - b) for a, b in zip(rows[0], rows[1], strict=True)) < 1e-9:
        return "same"
    if r["max_diff"] > 1e-9:
        return "changes"
    # each token's output equals its original one; the slots moved (row 0 now holds another token)
    assert max(abs(a - b) for a, b in zip(r["shuffled"][0], rows[0], strict=True)) > 1e-6
    return "moves"


def s066_ta():
    """A 4,096-key sliding window, one 64-wide head, 32,768 -> 65,536 tokens."""
    a, b = (L.Attention(d_model=64, n_heads=1, seq_len=s, kv_len=4096) for s in (32_768, 65_536))
    full = (
        L.Attention(d_model=64, n_heads=1, seq_len=65_536).macs()
        / L.Attention(d_model=64, n_heads=1, seq_len=32_768).macs()
    )
    assert (
        full == 4 and round(a.macs() / 2 / 1e9, 1) == 8.6 and round(b.macs() / 2 / 1e9, 1) == 17.2
    )
    mem, macs = b.score_bytes() / a.score_bytes(), b.macs() / a.macs()
    return {(1, 1): "same", (2, 2): "x2", (4, 4): "x4"}[(mem, macs)]


def s066_tb():
    """Inference on 32 materialized-attention layers at 16,384 tokens: the engine's live peak."""
    layer = L.Attention(d_model=768, n_heads=12, seq_len=16_384)
    one = Engine.solve(layer, H100, precision="fp16")
    stack = Engine.solve(L.Sequential(layers=(layer,) * 32), H100, precision="fp16")
    scores = layer.score_bytes(1, "fp16")
    assert round(scores / 1e9, 1) == 6.4 and round(one.activation_bytes / 1e9, 1) == 13.0
    assert round(32 * scores / 1e9) == 206
    if stack.activation_bytes >= 32 * scores:
        return "all"
    if stack.activation_bytes < scores:
        return "none"
    return "one" if stack.activation_bytes == one.activation_bytes else "?"


def s066_tc():
    cap = H100.memory.capacity.m_as("B")

    def longest(batch):
        return _longest(
            lambda s: L.Attention(d_model=768, n_heads=12, seq_len=s).score_bytes(batch) <= cap
        )

    one, four = longest(1), longest(4)
    assert (one, four) == (57_735, 28_867)
    return nearest({"half": 0.5, "quarter": 0.25, "same": 1}, four / one, within=1.05)


def s066_td():
    """Decode: one query against 65,536 cached tokens; prefill: 8,192 tokens (H100, FP16)."""

    def bytes_ratio(**kw):
        a, f = (L.Attention(d_model=768, n_heads=12, flash=fl, **kw) for fl in (False, True))
        return a.bytes_moved() / f.bytes_moved(), a, f

    prefill, _, _ = bytes_ratio(seq_len=8192)
    decode, a, f = bytes_ratio(seq_len=1, kv_len=65_536)
    assert round(prefill) == 129
    assert (round(a.bytes_moved() / 1e6, 1), round(f.bytes_moved() / 1e6, 1)) == (207.6, 201.3)
    assert Engine.solve(f, H100, precision="fp16").bottleneck == "Memory"
    if decode > 2 * prefill:
        return "more"
    return "few" if decode < 1.1 else "same"


def s066_te():
    """Mean pooling over the outputs of the unmasked head, tokens rotated (a shuffle)."""
    from mlsysim import order

    for shift in (1, 2, 3):
        r = order.order_experiment(n_tokens=5, d_model=4, shift=shift, positions=False)

        def mean(rows):
            return [sum(col) / len(rows) for col in zip(*rows, strict=True)]

        diff = max(
            abs(x - y) for x, y in zip(mean(r["original"]), mean(r["shuffled"]), strict=True)
        )
        if diff > 1e-3:
            return "differs"
        if diff > 1e-9:
            return "slight"
    return "same"


# --------------------------------------------------------------------------------------------
# 6.7 (rewritten) and transfers
# --------------------------------------------------------------------------------------------


def s067_a():
    pre = Engine.solve(Models.GPT2, H100, precision="fp16", phase="prefill", seq_len=1024)
    dec = Engine.solve(Models.GPT2, H100, precision="fp16", phase="decode", seq_len=1024)
    ratio = pre.arithmetic_intensity.magnitude / dec.arithmetic_intensity.magnitude
    if ratio < 1:
        return "higher"
    if ratio == pytest.approx(1024, rel=0.01):
        return "1024x"
    return nearest({"same": 1, "180x": 180}, ratio, within=1.3)


def s067_e():
    one = L.Attention(d_model=4096, n_heads=1, seq_len=2048)
    many = L.Attention(d_model=4096, n_heads=32, seq_len=2048)
    r = many.flops() / one.flops()
    if r != 1:
        return "32x" if r > 1 else "fewer"
    return "same" if many.score_bytes() == 32 * one.score_bytes() else "same_all"


def s067_ta():
    """Llama-2 13B (published config), H100 and A100, FP16, batch-1 decode at 1,024 tokens, with
    the stem's stated 5 us per kernel launch on both."""
    from mlsysim.engine import with_launch_cost
    from mlsysim.models import llama

    m = llama(d_model=5120, n_layers=40, n_heads=40, kv_heads=40, d_ff=13824)
    assert m.params == 13_015_864_320
    words = {"Memory": "memory", "Compute": "compute", "Dispatch": "launch"}
    bound = []
    for dev in (H100, Hardware.get("A100")):
        p = Engine.solve(
            m,
            with_launch_cost(dev, 5e-6),
            precision="fp16",
            efficiency=0.5,
            phase="decode",
            seq_len=1024,
        )
        bound.append(words[p.bottleneck])
    if bound == ["launch", "memory"]:
        return "split"
    return bound[0] if bound[0] == bound[1] else "neither"


def s067_tb():
    """Llama-2 70B (GQA, 8 KV heads), FP16, 2,048-token contexts: bytes per generated token at
    batch 1 over batch 32, against the 7B's (MHA) factor."""
    from mlsysim.models import llama

    def per_token(m, b):
        return (
            Engine.solve(
                m, H100, batch_size=b, precision="fp16", phase="decode", seq_len=2048
            ).bytes_moved
            / b
        )

    big = llama(d_model=8192, n_layers=80, n_heads=64, kv_heads=8, d_ff=28672)
    r_big = per_token(big, 1) / per_token(big, 32)
    r_7b = per_token(Models.Llama7B, 1) / per_token(Models.Llama7B, 32)
    if r_big > 20:
        return "near32"
    if r_big == pytest.approx(r_7b, rel=0.25):
        return "as7b"
    return "less" if r_big < r_7b else "near32"


def s067_tc():
    """Growth by generation (decode), GPT-2 XL's shape, FP16, 80 GB H100, materialized scores:
    each step stores one query's row of scores per layer (h x S), not an S x S matrix."""
    m = Models.GPT2.shape_beyond_positions()
    cap = H100.memory.capacity.m_as("B")
    w = m.weight_bytes("fp16")
    if w > cap:
        return "weights"

    def first(f):
        lo, hi = 1, 1 << 26
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if f(mid) > cap else (mid, hi)
        return hi

    kv = first(lambda s: w + m.kv_cache_bytes(s, 1, "fp16"))
    row = first(
        lambda s: L.Attention(d_model=1600, n_heads=25, seq_len=1, kv_len=s).score_bytes(1, "fp16")
    )
    return "kv" if kv < row else "scores"


def _most_users(model, dev, context):
    def fits(u):
        return Engine.solve(
            model, dev, batch_size=u, precision="fp16", phase="decode", seq_len=context
        ).feasible

    lo, hi = 0, 4096
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def s067_td():
    """Llama-2 7B at batch 1, 2,048 tokens, H100 and A100, FP16: decode time with 32 (MHA) over 8
    (GQA) KV heads. The stem states 5 us per launch; the answer is checked across 0-20 us too."""
    from mlsysim.engine import with_launch_cost
    from mlsysim.models import llama

    def word(r):
        return "none" if r < 1.02 else "little" if r < 2 else "4x"

    keys = set()
    for us in (0, 5, 20):
        per_device = []
        for d in (H100, Hardware.get("A100")):
            dev = with_launch_cost(d, us * 1e-6)
            t = [
                Engine.solve(m, dev, precision="fp16", phase="decode", seq_len=2048).latency_s
                for m in (Models.Llama7B, llama(kv_heads=8))
            ]
            per_device.append(word(t[0] / t[1]))
        h, a = per_device
        keys.add(h if h == a else "split" if (h, a) == ("little", "4x") else "neither")
    assert len(keys) == 1, keys  # the same answer at either end of the launch cost's range
    return keys.pop()


def s067_te():
    """Llama-2 7B, FP16, batch 1: bytes read generating 2,048 tokens (a decode step per token, the
    cache one longer each step; summed step by step over a stride) against one teacher-forced
    forward pass (prefill) over 2,048 tokens."""
    m, n = Models.Llama7B, 2048
    gen = (
        sum(
            Engine.solve(m, H100, precision="fp16", phase="decode", seq_len=s).bytes_moved
            for s in range(8, n + 1, 16)
        )
        * 16
    )
    one = Engine.solve(m, H100, precision="fp16", phase="prefill", seq_len=n).bytes_moved
    r = gen / one
    if r > 10:
        return "gen"
    return "pass" if r < 0.5 else "same"


# --------------------------------------------------------------------------------------------
# 6.8 (rewritten) and transfers
# --------------------------------------------------------------------------------------------

_A100_CAP = Hardware.get("A100").memory.capacity


def s068_c():
    cap = _A100_CAP.m_as("B")
    assert _selfcheck_tables("fp32") / cap == pytest.approx(7, rel=0.05)
    if _selfcheck_tables("int8") <= cap:
        return "int8"
    if _selfcheck_tables("fp16") <= cap:
        return "fp16"
    # rows can shrink by any factor: the largest kept share that fits, in FP32
    keep = cap / _selfcheck_tables("fp32")
    hashed = sum(
        L.Embedding(num_embeddings=math.floor(n * keep), embedding_dim=128).weight_bytes("fp32")
        for n in (100_000_000, 1_000_000_000)
    )
    assert 0 < keep < 1 and hashed <= cap
    return "hash"


def _remote_partials(n_gpus: int, lookups: int = 8) -> float:
    """Row-wise shards (the user table alone is 512 GB): a request's rows of a table lie on GPUs
    picked uniformly; simulated exactly over every placement for small cases and by the closed
    form 1 - (1 - 1/n)^k per other GPU otherwise."""
    if n_gpus**lookups <= 70_000:
        import itertools

        total = 0
        for placement in itertools.product(range(n_gpus), repeat=lookups):
            total += len(set(placement) - {0})  # the request lives on GPU 0
        return total / n_gpus**lookups
    return (n_gpus - 1) * (1 - (1 - 1 / n_gpus) ** lookups)


def s068_d():
    pooled = sum(
        L.Embedding(num_embeddings=n, embedding_dim=128).activation_bytes(4096, "fp32")
        for n in (100_000_000, 1_000_000_000)
    )
    assert _remote_partials(2, 4) == pytest.approx((2 - 1) * (1 - 0.5**4))  # closed form checked
    b2, b16 = pooled * _remote_partials(2), pooled * _remote_partials(16)
    if b16 < b2:
        return "fall"
    if b16 >= 7 * b2:  # 2 -> 16 is three doublings
        return "double"
    assert b16 < 8 * pooled  # bounded by one partial sum per lookup
    return "grow"


def s068_e():
    """A dense unit's output w·ID + b for items 1,000, 1,001 and 7, at several weights: the
    ratio of the distances is fixed (forced), or it varies with w (learned); one-hot codes are
    the equidistant ones."""
    from mlsysim import embedding

    ratios = {
        round(embedding.id_as_number(1000, 1001, 7, w).ratio, 6) for w in (-3.0, 0.02, 1.0, 50.0)
    }
    if len(ratios) > 1:
        return "learned"
    return "forced" if ratios.pop() > 10 else "equal"


def s068_te():
    """Bytes one lookup and one one-hot product read at 10^9 rows against 10^8."""
    from mlsysim import embedding

    small, big = embedding.cost(10**8), embedding.cost(10**9)
    lookup_grows = big.lookup_bytes > small.lookup_bytes
    product_grows = big.product_bytes > 5 * small.product_bytes
    if product_grows and not lookup_grows:
        return "flat"
    return "both" if product_grows else "neither"


def s068_ta():
    """The 100M x 128 FP32 item table against an MLP 1,024 -> 512 -> 128 computing each row:
    bytes held, MACs per lookup, and time per lookup batch on the A100 (engine)."""
    tab = L.Embedding(num_embeddings=100_000_000, embedding_dim=128)
    enc = mlp([1024, 512, 128])
    assert enc.params == pytest.approx(590_000, rel=0.01)
    held_less = enc.weight_bytes("fp32") < tab.weight_bytes("fp32") / 1000
    if not held_less:
        return "same"
    slower = all(
        Engine.solve(enc, "A100", batch_size=b, precision="fp32").latency_s
        > Engine.solve(tab, "A100", batch_size=b, precision="fp32").latency_s
        for b in (1, 1024)
    )
    assert tab.macs() == 0 < enc.flops()
    return "trade" if slower else "faster"


def s068_tb():
    """DLRM with 100 tables instead of 25 (same rows, MLP widths, one lookup): the stage whose
    engine bytes per request at batch 1,024 do not grow, read row by row from the profile."""
    from mlsysim.models import dlrm

    def stages(n):
        p = Engine.solve(
            dlrm(embedding_rows=(7_812_500,) * n), "A100", batch_size=1024, precision="fp32"
        )
        out = {}
        for t in p.layers:
            k = next(s for s in ("bottom", "emb", "interaction", "top") if t.name.startswith(s))
            out[k] = out.get(k, 0) + t.bytes
        return out

    a, b = stages(25), stages(100)
    flat = [k for k in a if b[k] == pytest.approx(a[k], rel=0.01)]
    names = {"bottom": "bottom", "emb": "gathers", "interaction": "inter"}
    return names[flat[0]] if len(flat) == 1 and flat[0] in names else "none"


def s068_tc():
    """Bytes one lookup gathers from the 10^9-row FP32 user table, all rows or hashed into 14%."""
    full = L.Embedding(num_embeddings=1_000_000_000, embedding_dim=128)
    hashed = L.Embedding(num_embeddings=140_000_000, embedding_dim=128)
    assert _selfcheck_tables("fp32") * 0.14 <= _A100_CAP.m_as("B")  # the stem: they fit
    a, b = full.gather_bytes_per_lookup("fp32"), hashed.gather_bytes_per_lookup("fp32")
    if b == a:
        return "same"
    return "fall" if b > a / 100 else "cache"


def s068_td():
    """Row-wise shards of the 563.2 GB FP32 tables over the fewest GPUs holding them at 90%: 80 GB
    H100s against 40 GB A100s, 8 lookups per table; partial sums exchanged per batch by the
    closed form 1 - (1 - 1/n)^k per other GPU (checked against enumeration in s068_d)."""
    total = _selfcheck_tables("fp32")

    def gpus(dev):
        return math.ceil(total / (Hardware.get(dev).memory.capacity.m_as("B") * 0.9))

    n_h, n_a = gpus("H100"), gpus("A100_40GB")
    b_h, b_a = _remote_partials(n_h), _remote_partials(n_a)
    if b_a == pytest.approx(b_h, rel=0.05):
        return "same"
    return "more" if b_a > b_h else "less"


# --------------------------------------------------------------------------------------------
# 6.9 transfers
# --------------------------------------------------------------------------------------------


def s069_ta():
    i = {
        p: Engine.solve(
            Models.ResNet50, H100, batch_size=1, precision=p, fused=True
        ).arithmetic_intensity.magnitude
        for p in ("fp16", "int8")
    }
    assert round(i["int8"], 1) == 151.7
    return nearest({"double": 2, "same": 1, "four": 4}, i["int8"] / i["fp16"], within=1.2)


def s069_tb():
    m = Models.GPT2
    kv = m.kv_cache_bytes(1024, 64, "fp16")
    fp16, int8 = kv + m.weight_bytes("fp16"), kv + m.weight_bytes("int8")
    assert round(int8 / 1e9, 1) == 21.7
    r = int8 / fp16
    if r > 0.8:
        return "barely"
    return nearest({"half": 0.5, "quarter": 0.25}, r, within=1.3)


def s069_tc():
    """GPT-2 XL prefill of 1,024 tokens, batch 1, FP32: weights fetched once vs every MAC."""
    m = Models.GPT2
    fetch = energy.access_energy(m.weight_bytes("fp32"), "dram").m_as("pJ")
    share = {}
    for phase in ("decode", "prefill"):
        macs = energy.mac_energy("fp32").m_as("pJ") * m.macs(1, seq_len=1024, phase=phase)
        share[phase] = fetch / (fetch + macs)
    assert f"{share['prefill']:.1%}" == "11.0%"
    if share["prefill"] > share["decode"]:
        return "more"
    return "small" if share["prefill"] < 0.3 else "most"


def s069_td():
    """The chapter's pick on the iPhone at 100 frames a day: average power over the day (8 W
    while busy, idle a planning share of it) against the 2 W average; the idle share is checked
    from a hundredth to a fifth (the stem's tenth inside)."""
    from mlsysim import models as M

    phone = Hardware.get("iPhone15Pro")
    t = Engine.solve(M.mobilenet_v2(0.75), phone, precision="int8", efficiency=0.5).latency_s
    duty = energy.duty_cycle(100 * t, 86_400)
    w = phone.tdp.m_as("W")
    assert w > 2.0  # the rating alone is over the budget
    out = set()
    for share in (0.01, 0.1, 0.2):
        out.add("yes" if energy.average_power(w, share * w, duty) <= 2.0 else "no_rating")
    assert len(out) == 1, out
    assert f"{energy.average_power(w, 0.1 * w, duty):.2f} W" == "0.80 W"
    return out.pop()


def s069_e():
    """50 -> 70 species on MobileNetV2 0.75x (torchvision: last_channel 1,280 at width < 1):
    the two models differ only in the classifier, by 1,281 parameters per species, recounted
    here from the layer list without mlsysim.deployment."""
    from mlsysim import models as M

    shipped, updated = M.mobilenet_v2(0.75, num_classes=50), M.mobilenet_v2(0.75, num_classes=70)
    diff = [
        (a.name, a.layer.params, b.layer.params)
        for a, b in zip(shipped.rows(), updated.rows(), strict=True)
        if a.layer.params != b.layer.params
    ]
    if not diff:
        return "same"
    if [d[0] for d in diff] != ["classifier"]:
        return "whole"
    growth = updated.params / shipped.params - 1
    assert updated.params - shipped.params == 20 * (1280 + 1) == 25_620
    assert f"{growth:.1%}" == "1.8%"
    return "head" if growth < 0.1 else "grows"


def s069_te():
    """MobileNetV2 1.0x at half the camera SoC's clock: the compute alone (FLOPs over half of
    2 GOPS) is over 500 ms, whatever the memory time (bandwidth kept, or halved too); the trigger
    rate does not enter a frame's time."""
    from mlsysim import models as M

    m = M.mobilenet_v2(1.0)
    cam = Hardware.get("CortexA53Camera")
    full = Engine.solve(m, cam, precision="int8", efficiency=1.0)
    compute_half = m.flops() / (cam.compute.peak("int8").m_as("FLOP/s") * 0.5)
    assert f"{full.latency_s:.2f}" == "0.31"
    memory = full.latency_s - full.latency_compute_s - full.latency_dispatch_s
    halves = (compute_half + memory + 2 * full.latency_dispatch_s, compute_half + 2 * memory)
    assert f"{halves[0]:.2f}" == "0.62"  # the feedback's figure: memory time kept
    return "miss" if min(compute_half, *halves) > 0.5 else "meets"


# --------------------------------------------------------------------------------------------
# 6.10 (rewritten) and transfers
# --------------------------------------------------------------------------------------------


def _block_latency(s: int, dev=H100, efficiency: float = 0.5) -> float:
    block = L.TransformerBlock(d_model=768, n_heads=12, d_ff=3072, seq_len=s)
    return Engine.solve(block, dev, precision="fp16", efficiency=efficiency).latency_s


def s0610_b():
    """Block latency 512 -> 2,048 tokens (score memory 16x) at both ends of the launch-cost and
    efficiency ranges: between 1.5x and 4.1x, well under 16x, far from flat."""
    from mlsysim.engine import with_launch_cost

    keys = set()
    for lc, eff in CORNERS:
        dev = with_launch_cost(H100, lc)
        r = _block_latency(2048, dev, eff) / _block_latency(512, dev, eff)
        if r < 1.2:
            keys.add("same")
        elif r > 16 * 1.1:
            keys.add("over")
        elif r > 16 / 1.6:
            keys.add("16x")
        else:
            keys.add("under")
    assert len(keys) == 1, keys
    return keys.pop()


def _hybrid(flash, launch=None, efficiency=0.5):
    from mlsysim.engine import with_launch_cost
    from mlsysim.labs.parts.s06_10_fallacies import hybrid

    cnn, hyb, tokens = hybrid(896, flash)
    assert tokens == 3136 and hyb.config["d_model"] == 1024
    dev = H100 if launch is None else with_launch_cost(H100, launch)
    kw = dict(batch_size=8, precision="fp16", efficiency=efficiency, fused=True)
    return Engine.solve(cnn, dev, **kw), Engine.solve(hyb, dev, **kw)


def s0610_c():
    """The hybrid against the CNN at both ends of the launch-cost and efficiency ranges: several
    times slower and memory-bound at every corner (the CNN itself turns memory-bound at 0.7, so the
    right option does not name its regime)."""
    keys = set()
    for lc, eff in CORNERS:
        cnn, hyb = _hybrid(False, lc, eff)
        r = hyb.latency_s / cnn.latency_s
        if r < 1.3:
            keys.add("faster" if r < 0.9 else "same")
        elif hyb.bottleneck == "Compute":
            keys.add("additive")
        else:
            assert hyb.bottleneck == "Memory" and r > 3
            keys.add("shift")
    assert len(keys) == 1, keys
    return keys.pop()


def _most_conversations(
    precision: str, device: str, reserve_b: float = 1e9, context: int = 2048
) -> int:
    m, dev = Models.Llama7B, Hardware.get(device)
    p1, p2 = (
        Engine.solve(m, dev, batch_size=b, precision=precision, phase="decode", seq_len=context)
        for b in (1, 2)
    )
    per_user = p2.memory_footprint_bytes - p1.memory_footprint_bytes
    assert per_user >= m.kv_cache_bytes(context, 1, precision)
    room = dev.memory.capacity.m_as("B") - reserve_b - m.weight_bytes(precision)
    return max(0, int(room // per_user))


def s0610_d():
    """INT8 against FP16 conversations on the Jetson, at the stem's 1 GB reserve and at 0 and 2 GB:
    more than double each time (at 2 GB FP16 fits none)."""
    keys = set()
    for reserve in (0.0, 1e9, 2e9):
        fp16 = _most_conversations("fp16", "JetsonOrinNX", reserve)
        int8 = _most_conversations("int8", "JetsonOrinNX", reserve)
        if int8 <= fp16:
            keys.add("none")
        elif int8 < 1.8 * fp16:
            keys.add("less")
        elif int8 <= 2.2 * fp16:
            keys.add("2x")
        else:
            keys.add("many")
    assert len(keys) == 1, keys
    return keys.pop()


def s0610_ta():
    """ViT-B/16 over ResNet-50 on the iPhone 15 Pro's GPU (FP16, 50 us launches, as the stem states)
    against the Jetson (20 us): higher on the phone at every efficiency, and below the FLOP ratio."""
    v, r = _vit_b16(), Models.ResNet50
    phone, jetson = Hardware.get("iPhone15Pro"), Hardware.get("JetsonOrinNX")
    assert phone.dispatch_tax.m_as("us") == 50 and jetson.dispatch_tax.m_as("us") == 20
    assert phone.compute.peak("fp16").m_as("TFLOP/s") == pytest.approx(2.1, abs=0.05)
    keys = set()
    for eff in (0.3, 0.5, 0.7):

        def ratio(dev, eff=eff):
            a, b = (
                Engine.solve(m, dev, precision="fp16", efficiency=eff).latency_s for m in (v, r)
            )
            return a / b

        on_phone, on_jetson = ratio(phone), ratio(jetson)
        if on_phone == pytest.approx(on_jetson, rel=0.05):
            keys.add("same")
        else:
            keys.add("toward" if on_jetson < on_phone < v.flops() / r.flops() else "one")
    assert len(keys) == 1, keys
    return keys.pop()


def s0610_tb():
    """Block latency 8,192 -> 16,384 tokens (past the slider) at both ends of the ranges."""
    from mlsysim.engine import with_launch_cost

    keys = set()
    for lc, eff in CORNERS:
        dev = with_launch_cost(H100, lc)
        r = _block_latency(16384, dev, eff) / _block_latency(8192, dev, eff)
        keys.add("under2" if r < 1.6 else "2x" if r < 2.6 else "near4")
        assert r <= 4
    assert len(keys) == 1, keys
    return keys.pop()


def s0610_tc():
    """GPT-2 XL decode, 64 sequences of 1,024 tokens against one (FP16, compiled, H100): the
    intensity (independent of launch cost) rises about 9x, not 64x, and stays far below the ridge."""
    kw = dict(phase="decode", seq_len=1024, precision="fp16", efficiency=0.5, fused=True)
    one, many = (
        Engine.solve(Models.GPT2, H100, batch_size=b, **kw).arithmetic_intensity.magnitude
        for b in (1, 64)
    )
    assert round(one) == 1  # the stem's premise
    assert many < H100.ridge_point("fp16").magnitude / 10
    return nearest({"x64": 64, "x9": 9, "same": 1}, many, within=1.2)


def s0610_td():
    """Conversations of the FP16 7B model on an H100, 8,192 against 4,096 tokens, at the stem's
    1 GB reserve (and 0 and 4 GB): about half."""
    keys = set()
    for reserve in (0.0, 1e9, 4e9):
        r = _most_conversations("fp16", "H100", reserve, 8192) / _most_conversations(
            "fp16", "H100", reserve, 4096
        )
        keys.add(nearest({"half": 0.5, "quarter": 0.25, "same": 1}, r, within=1.15))
    assert len(keys) == 1, keys
    return keys.pop()


# --------------------------------------------------------------------------------------------
# 6.11 (rewritten) and transfers
# --------------------------------------------------------------------------------------------


def _util(d=2048, array=128, rows=1, double=False):
    shape = primitives.gemm_shape(L.Dense(in_features=d, out_features=d, bias=False), rows)
    return primitives.systolic_gemm(shape, array, weight_load=not double).utilization


def s0611_b():
    base = _util()
    assert base < 0.01
    # the smallest step of each lever; for rows that is a batch of 2 tokens
    gains = {
        "matrix": _util(d=8192),
        "array": _util(array=256),
        "rows": _util(rows=2),
        "double": _util(double=True),
    }
    return max(gains, key=gains.get)


def s0611_c():
    """Random DRAM gathers: energy per value in INT8 over FP32 (each fetches a whole burst)."""
    e = {}
    for b in (4, 1):
        c = primitives.access_cost("random", 4096, b)
        e[b] = energy.access_energy(c.fetched_bytes, "dram").m_as("pJ") / 4096
    r = e[1] / e[4]
    if r == pytest.approx(1):
        return "same"
    if r > 1:
        return "more"
    return "quarter" if r == pytest.approx(0.25, rel=0.05) else "less"


def s0611_d():
    a, b = primitives.reduction_stages(512, tree=True), primitives.reduction_stages(1024, tree=True)
    return {0: "same", 1: "one", a: "double", 3 * a: "four"}[b - a]


def s0611_ta():
    """A 3x3 kernel dilated by 2 ('same' padding 2) on 56x56: im2col expansion against the plain 3x3
    (and a real 5x5, the 'grows' option)."""

    def x(k, d):
        return L.Conv2d(
            in_channels=64,
            out_channels=64,
            kernel_size=k,
            input_size=56,
            padding=d * (k // 2),
            dilation=d,
        ).im2col_expansion

    plain, dilated = x(3, 1), x(3, 2)
    assert x(5, 1) == 25
    if dilated == pytest.approx(plain):
        return "same"
    return "grows" if dilated > plain else "shrinks"


def s0611_tb():
    """Rows per tile for half utilization (M = the per-tile overhead), 512x512 against 128x128,
    no double-buffering: the overhead 2(N - 1) + N grows with N, not N^2."""

    def rows_for_half(n):
        shape = primitives.gemm_shape(L.Dense(in_features=2048, out_features=2048, bias=False), 1)
        run = primitives.systolic_gemm(shape, n)
        m = run.fill_cycles + run.load_cycles
        assert _util(array=n, rows=m) == pytest.approx(0.5)
        return m

    small, big = rows_for_half(128), rows_for_half(512)
    assert (small, big) == (382, 1534)
    if big < small:
        return "fewer"
    return nearest({"same": 1, "x4": 4, "x16": 16}, big / small, within=1.5)


def s0611_tc():
    """Random 16-byte records (4 FP32 values) against a stream and random FP32 scalars: DRAM energy
    per useful value."""

    def pj(pattern, n, item):
        c = primitives.access_cost(pattern, n, item)
        return energy.access_energy(c.fetched_bytes, "dram").m_as("pJ") / (c.useful_bytes / 4)

    rec, seq, scal = pj("random", 4096, 16), pj("sequential", 4096, 4), pj("random", 4096, 4)
    assert rec == pytest.approx(2560)
    if rec == pytest.approx(seq):
        return "sequential"
    return "random" if rec == pytest.approx(scal) else "between"


def s0611_td():
    """A softmax row of 512 split over 4 GPUs: 128-value trees, then a 4-value tree, against one
    512-value tree."""
    one = primitives.reduction_stages(512, tree=True)
    split = primitives.reduction_stages(128, tree=True) + primitives.reduction_stages(4, tree=True)
    if split == one:
        return "same"
    if split > one:
        return "more"
    return "fewer" if split == primitives.reduction_stages(128, tree=True) else "quarter"


# --------------------------------------------------------------------------------------------
# Bring your own model (shipped Hugging Face configs)
# --------------------------------------------------------------------------------------------


def _hf(name):
    from mlsysim.hf import from_shipped

    return from_shipped(name)


def byom_a():
    """Llama-3 8B in FP16 at 4,096 tokens: the case Part A shows first (its defaults: H100, where
    it fits) moved to a 16 GB Jetson Orin NX: which term of the footprint must shrink?"""
    from mlsysim.labs.parts import byom as lab

    assert (lab.A_MODEL.value, lab.A_DEVICE.value, lab.A_PRECISION.value) == (
        "llama-3-8b",
        "H100",
        "fp16",
    )
    m = _hf("llama-3-8b")
    assert m.params > 8e9  # the name rounds down: 8,030,261,248
    h100 = Engine.solve(m, H100, batch_size=1, precision="fp16", seq_len=4096)
    assert h100.feasible  # "room to spare", as the stem says
    jetson = Hardware.get("JetsonOrinNX")
    p = Engine.solve(m, jetson, batch_size=1, precision="fp16", seq_len=4096)
    cap = p.capacity_bytes
    if p.feasible:
        return "none"
    if p.weight_bytes > cap:  # no cut to the cache or the activations can make it fit
        assert Engine.solve(m, jetson, batch_size=1, precision="int8", seq_len=4096).feasible
        return "weights"
    return "kv" if p.kv_cache_bytes >= p.activation_bytes else "act"


def byom_b():
    """BERT-base over 512 tokens, batch 1, FP16, eager, at the launch costs the stem states: the
    layer group with the largest share of the pass on the H100 and on the Jetson."""
    from mlsysim.labs.parts import byom as lab

    m = _hf("bert-base-uncased")
    top = {}
    for key, tax in (("H100", 5e-6), ("JetsonOrinNX", 20e-6)):
        dev = Hardware.get(key)
        assert dev.dispatch_tax.m_as("s") == pytest.approx(tax)
        p = Engine.solve(m, dev, batch_size=1, precision="fp16", phase="prefill", seq_len=512)
        share: dict[str, float] = {}
        for t in p.layers:
            g = lab._group(t.name, t.type)
            share[g] = share.get(g, 0.0) + t.time
        top[key] = max(share, key=share.get)
    ffn, norms, scores = "FFN / experts", "norms, activations, adds", "attention scores (QKᵀ, PV)"
    if top == {"H100": norms, "JetsonOrinNX": ffn}:
        return "split"
    if top == {"H100": ffn, "JetsonOrinNX": norms}:
        return "reverse"
    if set(top.values()) == {scores}:
        return "scores_both"
    assert set(top.values()) == {ffn}, top
    return "ffn_both"


def byom_c():
    """Decode MFU at batch 32 against batch 1, 2,048 tokens, H100, FP16: Llama-2 7B (MHA) and
    Llama-3 8B (GQA, 8 key/value heads)."""

    def gain(name):
        m = _hf(name)
        mfu = [
            Engine.solve(m, H100, batch_size=b, precision="fp16", phase="decode", seq_len=2048).mfu
            for b in (1, 32)
        ]
        assert Engine.solve(
            m, H100, batch_size=32, precision="fp16", phase="decode", seq_len=2048
        ).feasible
        return mfu[1] / mfu[0], mfu[1]

    (g2, m2), (g3, m3) = gain("llama-2-7b"), gain("llama-3-8b")
    assert _hf("llama-2-7b").config["kv_heads"] == 32 and _hf("llama-3-8b").config["kv_heads"] == 8
    if max(g2, g3) < 1.5:
        return "neither"
    if abs(g3 / g2 - 1) < 0.15 and abs(m3 / m2 - 1) < 0.15:
        return "same"
    return "gqa" if g3 > g2 and m3 > m2 else "mha"


def byom_d():
    """Mistral-7B-v0.1 (a 4,096-token sliding window in every layer): KV cache at 32,768
    tokens against 8,192."""
    m = _hf("mistral-7b-v0.1")
    assert m.config["sliding_window"] == 4096 and m.config["sliding_layers"] == m.config["n_layers"]
    r = m.kv_cache_bytes(32768, 1, "fp16") / m.kv_cache_bytes(8192, 1, "fp16")
    if r < 1.01:
        return "same"
    return nearest({"slow": 2, "four": 4, "sixteen": 16}, r, within=2)


def byom_e():
    """Phi-3 mini against Llama-3 8B on the H100, FP16, 4,096 tokens per sequence: the largest
    batch whose footprint fits, found by bisection on the engine's feasibility."""

    def most(name, s=4096):
        m = _hf(name)
        lo, hi = 0, 1 << 14
        while hi - lo > 1:
            mid = (lo + hi) // 2
            ok = Engine.solve(
                m, H100, batch_size=mid, precision="fp16", phase="decode", seq_len=s
            ).feasible
            lo, hi = (mid, hi) if ok else (lo, mid)
        return lo

    phi, llama = most("phi-3-mini-4k"), most("llama-3-8b")
    assert _hf("phi-3-mini-4k").params < 0.5 * _hf("llama-3-8b").params
    if abs(phi / llama - 1) < 0.1:
        return "same"
    if llama > phi:
        return "llama"
    # Phi-3 wins: by its weights' room or by a smaller cache per token?
    per_tok = {n: _hf(n).kv_cache_bytes(1, 1, "fp16") for n in ("phi-3-mini-4k", "llama-3-8b")}
    return "phi_cache" if per_tok["phi-3-mini-4k"] < per_tok["llama-3-8b"] else "phi_room"


# --------------------------------------------------------------------------------------------
# 6.12
# --------------------------------------------------------------------------------------------


def s0612_a():
    """Batch-1 latency, eager, each device's quoted precision and planning launch cost (the
    stem states 5/20/20/50 µs): on which devices does MobileNetV2 x0.75, Figure 1's cheapest
    model for a 69.5% bar, stay the cheapest?"""
    from mlsysim import accuracy as acc
    from mlsysim.labs.parts import s06_12_tradeoffs as lab

    mnv2, r18 = acc.imagenet("MobileNetV2_075"), acc.imagenet("ResNet18")
    assert abs(mnv2.top1 - r18.top1) < 0.5 and mnv2.top1 >= 69.5 and r18.top1 >= 69.5
    assert r18.published_gmacs / mnv2.published_gmacs == pytest.approx(8.7, rel=0.05)
    top = lambda k: acc.imagenet(k).top1  # noqa: E731
    assert (
        acc.cheapest_meeting(
            list(acc.IMAGENET), 69.5, lambda k: acc.imagenet(k).published_gmacs, top
        )
        == "MobileNetV2_075"
    )
    taxes = {"H100": 5e-6, "JetsonOrinNX": 20e-6, "CortexA53Camera": 20e-6, "iPhone15Pro": 50e-6}
    assert set(taxes) == set(lab.DEVICES)
    keeps = set()
    for key, tax in taxes.items():
        dev = Hardware.get(key)
        assert dev.dispatch_tax.m_as("s") == pytest.approx(tax)  # the stem's stated launch costs
        prec = lab.precision_for(key)
        t = {
            k: Engine.solve(acc.imagenet(k).model(), dev, batch_size=1, precision=prec).latency_s
            for k in acc.zoo_entries()
        }
        if acc.cheapest_meeting(acc.zoo_entries(), 69.5, t.__getitem__, top) == "MobileNetV2_075":
            keeps.add(key)
    if keeps == set(taxes):
        return "all"
    if keeps == {"CortexA53Camera"}:
        return "camera"
    if keeps == {"CortexA53Camera", "JetsonOrinNX", "iPhone15Pro"}:
        return "edge"
    assert not keeps, keeps
    return "none"


def s0612_b():
    """GPT-2 XL on an H100, FP16, batch 1: serialized iron law over roofline, prefill vs decode.
    The stem states the 5 µs launch cost its 1.6x premise rests on; the answer (decode within 1%)
    is checked at both ends of the plausible range, free launches (CUDA graphs) to 20 µs."""
    from mlsysim.engine import with_launch_cost

    def ratio(phase, tax):
        p = Engine.solve(
            Models.GPT2,
            with_launch_cost(H100, tax),
            batch_size=1,
            precision="fp16",
            phase=phase,
            seq_len=1024,
        )
        c = sum(t.t_compute for t in p.layers)
        m = sum(t.t_memory for t in p.layers)
        d = sum(t.t_dispatch for t in p.layers)
        return (c + m + d) / (max(c, m) + d)

    assert H100.dispatch_tax.m_as("s") == pytest.approx(5e-6)
    pre, dec = ratio("prefill", 5e-6), ratio("decode", 5e-6)
    assert round(pre, 1) == 1.6  # the stem's premise
    assert all(ratio("decode", t) - 1 < 0.01 for t in (0.0, 20e-6))  # across the range
    if dec - 1 < 0.01:
        return "close"
    if dec > pre * 1.02:
        return "wider"
    return nearest({"same": pre, "closer": 1.3}, dec, within=1.15)


def s0612_c():
    """Table 7's decode row (about one MAC per weight) against the exact count of one GPT-2 XL
    step as the cache grows from 1 to 1,024 tokens: the departure grows, linearly."""
    from mlsysim import table7

    def off(s):
        ch, ex = table7.chapter("decode", 1600, s), table7.exact("decode", 1600, s)
        assert ch.params == Models.GPT2.params
        return (ex.macs - ch.macs) / ch.macs

    first, mid, last = off(1), off(512), off(1024)
    if max(abs(first), abs(mid), abs(last)) < 0.01:
        return "flat"
    if last < 0:
        return "below"
    # linear: equal steps of S add equal MACs; quadratic would make the second step ~3x the first
    step1, step2 = mid - first, last - mid
    assert step1 > 0
    return "grows" if step2 / step1 < 1.1 else "quad"


def s0612_d():
    """War Story 6.1: accuracy (published, % below Cinematch's quiz-set RMSE) against serving cost
    (members priced alike, each a matrix factorization, plus a blend weight): where is the gain
    per unit of cost?"""
    from mlsysim import ensemble
    from mlsysim import published as pub

    base = pub.NETFLIX_CINEMATCH_RMSE["quiz"].value
    svd = (base - pub.NETFLIX_ADOPTED["svd"].value) / base
    pair = (base - pub.NETFLIX_ADOPTED["blend"].value) / base
    blend107 = pub.NETFLIX_PROGRESS_PRIZE_2007["improvement_pct"].value / 100
    assert pub.NETFLIX_PROGRESS_PRIZE_2007["algorithms"].value == 107
    f = 50
    cost = {n: ensemble.serve(n, f).macs for n in (1, 2, 107)}
    # hand count: n dot products + n blend weights (none for one model)
    assert cost == {1: f, 2: 2 * f + 2, 107: 107 * f + 107}
    if cost[107] == cost[2]:
        return "free"
    second = (pair - svd) / (cost[2] - cost[1])
    rest = (blend107 - pair) / (cost[107] - cost[2])
    if rest > second:
        return "back"
    if rest > 0.5 * second:
        return "even"
    # "for about a point" and "53x": the tail's points and the cost ratio
    assert round((blend107 - pair) * 100) == 1 and round(cost[107] / cost[2]) in (53, 54)
    return "front"


def s0612_e():
    """AlexNet's training (3 x forward FLOPs x 1.2 M images x 90 epochs, FP32) on two GTX 580s
    against an 8-core Xeon E5-2690 at the same fraction of peak: what made the GPUs the choice?"""
    from mlsysim import history, vision

    m = vision.alexnet()
    # datasheets: 512 cores x 1.544 GHz x 2 (FMA); 8 cores x 2.9 GHz x 16 FLOP/cycle (AVX)
    gpu, cpu = 512 * 1.544e9 * 2, 8 * 2.9e9 * 16
    assert history.GTX580.compute.peak_flops.m_as("FLOP/s") == pytest.approx(gpu, rel=1e-4)
    assert history.XEON_E5_2690.compute.peak_flops.m_as("FLOP/s") == pytest.approx(cpu)
    work = 3 * m.flops() * 1_200_000 * 90
    ratio = (work / cpu) / (work / (2 * gpu))
    # capacity: the CPU side addresses far more than the card's 3 GB
    if history.GTX580.memory.capacity > history.XEON_E5_2690.memory.capacity:
        return "memory"
    if ratio < 2:
        return "close"
    # bandwidth: AlexNet at batch 128 is compute-bound on both chips by the engine's roofline
    from mlsysim.engine import Engine

    for dev in (history.GTX580, history.XEON_E5_2690):
        p = Engine.solve(m, dev, batch_size=128, precision="fp32", efficiency=0.3)
        if p.bottleneck != "Compute":
            return "bandwidth"
    # "about 8x faster, days against weeks": at 30% of peak, 5.6 days against 48
    assert 8 <= ratio < 9 and work / (2 * gpu * 0.3) < 7 * 86400 < work / (cpu * 0.3)
    return "rate"


# --------------------------------------------------------------------------------------------
# 6.13
# --------------------------------------------------------------------------------------------


def s0613_a():
    """Mixtral's resident weights under top-1 against top-2 routing: FLOPs per token fall by over
    a third, the parameters held do not (any token may pick any expert: a few tokens touch all)."""
    from mlsysim import moe

    top2, top1 = moe.mixtral_params(8, 2), moe.mixtral_params(8, 1)
    assert top2.active == pytest.approx(12.9e9, rel=0.01)
    assert top1.active < 2 / 3 * top2.active  # the stem: "over a third" fewer FLOPs
    lay1 = moe.MoELayer(**{**moe.MIXTRAL_8X7B.model_dump(), "top_k": 1})
    assert lay1.experts_touched(64) > 7.99  # a few dozen tokens need every expert
    assert top2.total * 2 > H100.memory.capacity.m_as("B")
    r = top1.total / top2.total
    if r == pytest.approx(1, rel=0.01):
        return "same"
    return "one" if r < 0.3 else "halves"


def s0613_b():
    from mlsysim import moe

    touched = moe.MIXTRAL_8X7B.experts_touched(32)
    assert moe.MIXTRAL_8X7B.experts_touched(1) == pytest.approx(2)
    return nearest({"two": 2, "all": 8, "four": 4}, touched, within=1.05)


def s0613_c():
    """The step with 25% of the assignments on one expert against balanced routing: each expert's
    three GEMMs solved by the engine at its load (H100, FP16), at both ends of the launch-cost and
    efficiency ranges; the step is the slowest expert."""
    from mlsysim import moe
    from mlsysim.engine import with_launch_cost

    lay = moe.MIXTRAL_8X7B
    assert lay.dropped(4096, capacity_factor=8.0, hot_share=0.25) == 0
    loads = lay.hot_loads(4096, 0.25)
    balanced = 4096 * lay.top_k / lay.n_experts
    keys = set()
    for lc, eff in CORNERS:
        dev = with_launch_cost(H100, lc)

        def t(tokens, dev=dev, eff=eff):
            return sum(
                Engine.solve(
                    x, dev, batch_size=round(tokens), precision="fp16", efficiency=eff
                ).latency_s
                for x in lay.expert_layers
            )

        stretch = max(t(x) for x in loads) / t(balanced)
        if stretch < 1:
            keys.add("faster")
        elif stretch < 1.05:
            keys.add("same")
        elif stretch < 1.5:
            keys.add("x1_25")
        else:
            assert 1.85 < stretch <= 2.0
            keys.add("x2")
    assert len(keys) == 1, keys
    return keys.pop()


def s0613_d():
    from mlsysim import moe

    lay = moe.MIXTRAL_8X7B
    b = [lay.all_to_all_bytes_per_token(n, "fp16") for n in (2, 4, 8)]  # up to one expert per GPU
    assert lay.all_to_all_limit("fp16") == 2 * lay.top_k * lay.d_model * 2
    if b[-1] < b[0]:
        return "shrink"
    if b[-1] == b[0]:
        return "same"
    assert all(x < y for x, y in zip(b, b[1:], strict=False))
    return "linear" if b[-1] / b[0] > 3 else "less"


def s0613_e():
    """A residual add fused into its producer, on each lighthouse pass on the L4 (FP16, batch 1),
    at both ends of the launch-cost and efficiency ranges. By hand from the rows: each add moved
    3n values and launched once; in the epilogue it reads its skip input (n values) and launches
    nothing, so the pass saves exactly count x (2n x 2 B / BW + launch); FLOPs are unchanged."""
    from mlsysim import Models, blockopt
    from mlsysim.engine import with_launch_cost

    keys = set()
    for lc, eff in CORNERS:
        dev = with_launch_cost("L4", lc)
        bw = dev.memory.bandwidth.m_as("B/s")
        gained = {}
        for case, (_label, key, phase, seq) in blockopt.CASES.items():
            m = Models.get(key)
            kw = {"phase": phase, "seq_len": seq} if m.is_lm else {}
            before = Engine.solve(m, dev, precision="fp16", efficiency=eff, **kw)
            after = Engine.solve(
                blockopt.optimized(m, "fuse_add"), dev, precision="fp16", efficiency=eff, **kw
            )
            rows = m.rows(seq, phase) if m.is_lm else m.rows()
            adds = [r for r in rows if type(r.layer).__name__ == "ResidualAdd"]
            by_hand = sum(r.count * (2 * r.layer.elements * 2 / bw + lc) for r in adds)
            assert before.latency_s - after.latency_s == pytest.approx(by_hand, rel=1e-9, abs=1e-15)
            assert after.flops == before.flops
            gained[case] = before.latency_s / after.latency_s > 1 + 1e-9
            assert gained[case] == bool(adds)
        if all(gained.values()):
            keys.add("flops")
        elif [c for c, g in gained.items() if g] == ["gpt2_prefill", "gpt2_decode"]:
            keys.add("tied")
        elif gained["resnet50"] and gained["mobilenetv2"] and not gained["dlrm"]:
            keys.add("block")
    assert len(keys) == 1, keys
    return keys.pop()


KEYS = {
    ("lab06", "PRED_A"): lab06_a,
    ("lab06", "PRED_B"): lab06_b,
    ("lab06", "PRED_C"): lab06_c,
    ("lab06", "PRED_D"): lab06_d,
    ("lab06", "TRANSFER_A"): lab06_ta,
    ("lab06", "TRANSFER_B"): lab06_tb,
    ("lab06", "TRANSFER_C"): lab06_tc,
    ("lab06", "TRANSFER_D"): lab06_td,
    ("byom", "PRED_A"): byom_a,
    ("byom", "PRED_B"): byom_b,
    ("byom", "PRED_C"): byom_c,
    ("byom", "PRED_D"): byom_d,
    ("byom", "PRED_E"): byom_e,
    ("s06_01_principles", "PRED_A"): s061_a,
    ("s06_01_principles", "PRED_B"): s061_b,
    ("s06_01_principles", "PRED_C"): s061_c,
    ("s06_01_principles", "TRANSFER_A"): s061_ta,
    ("s06_01_principles", "TRANSFER_B"): s061_tb,
    ("s06_01_principles", "TRANSFER_C"): s061_tc,
    ("s06_01_principles", "PRED_D"): s061_d,
    ("s06_01_principles", "TRANSFER_D"): s061_td,
    ("s06_02_mlps", "PRED_A"): s062_a,
    ("s06_02_mlps", "PRED_B"): s062_b,
    ("s06_02_mlps", "PRED_C"): s062_c,
    ("s06_02_mlps", "PRED_D"): s062_d,
    ("s06_02_mlps", "TRANSFER_A"): s062_ta,
    ("s06_02_mlps", "TRANSFER_B"): s062_tb,
    ("s06_02_mlps", "TRANSFER_C"): s062_tc,
    ("s06_02_mlps", "TRANSFER_D"): s062_td,
    ("s06_02_mlps", "PRED_E"): s062_e,
    ("s06_02_mlps", "TRANSFER_E"): s062_te,
    ("s06_02_mlps", "PRED_F"): s062_f,
    ("s06_02_mlps", "TRANSFER_F"): s062_tf,
    ("s06_03_cnns", "PRED_A"): s063_a,
    ("s06_03_cnns", "PRED_B"): s063_b,
    ("s06_03_cnns", "PRED_C"): s063_c,
    ("s06_03_cnns", "PRED_D"): s063_d,
    ("s06_03_cnns", "PRED_E"): s063_e,
    ("s06_03_cnns", "PRED_F"): s063_f,
    ("s06_03_cnns", "TRANSFER_A"): s063_ta,
    ("s06_03_cnns", "TRANSFER_B"): s063_tb,
    ("s06_03_cnns", "TRANSFER_C"): s063_tc,
    ("s06_03_cnns", "TRANSFER_D"): s063_td,
    ("s06_03_cnns", "TRANSFER_E"): s063_te,
    ("s06_03_cnns", "TRANSFER_F"): s063_tf,
    ("s06_04_skip_norm", "PRED_A"): s064_a,
    ("s06_04_skip_norm", "PRED_B"): s064_b,
    ("s06_04_skip_norm", "PRED_C"): s064_c,
    ("s06_04_skip_norm", "TRANSFER_A"): s064_ta,
    ("s06_04_skip_norm", "TRANSFER_B"): s064_tb,
    ("s06_04_skip_norm", "TRANSFER_C"): s064_tc,
    ("s06_04_skip_norm", "PRED_D"): s064_d,
    ("s06_04_skip_norm", "TRANSFER_D"): s064_td,
    ("s06_05_rnns", "PRED_A"): s065_a,
    ("s06_05_rnns", "PRED_B"): s065_b,
    ("s06_05_rnns", "PRED_C"): s065_c,
    ("s06_05_rnns", "PRED_D"): s065_d,
    ("s06_05_rnns", "PRED_E"): s065_e,
    ("s06_05_rnns", "TRANSFER_A"): s065_ta,
    ("s06_05_rnns", "TRANSFER_B"): s065_tb,
    ("s06_05_rnns", "TRANSFER_C"): s065_tc,
    ("s06_05_rnns", "TRANSFER_D"): s065_td,
    ("s06_05_rnns", "TRANSFER_E"): s065_te,
    ("s06_06_attention", "PRED_A"): s066_a,
    ("s06_06_attention", "PRED_B"): s066_b,
    ("s06_06_attention", "PRED_C"): s066_c,
    ("s06_06_attention", "PRED_D"): s066_d,
    ("s06_06_attention", "PRED_E"): s066_e,
    ("s06_06_attention", "TRANSFER_A"): s066_ta,
    ("s06_06_attention", "TRANSFER_B"): s066_tb,
    ("s06_06_attention", "TRANSFER_C"): s066_tc,
    ("s06_06_attention", "TRANSFER_D"): s066_td,
    ("s06_06_attention", "TRANSFER_E"): s066_te,
    ("s06_06_attention", "PRED_F"): s066_f,
    ("s06_06_attention", "TRANSFER_F"): s066_tf,
    ("s06_06_attention", "PRED_G"): s066_g,
    ("s06_06_attention", "TRANSFER_G"): s066_tg,
    ("s06_07_transformers", "PRED_A"): s067_a,
    ("s06_07_transformers", "PRED_B"): s067_b,
    ("s06_07_transformers", "PRED_C"): s067_c,
    ("s06_07_transformers", "PRED_D"): s067_d,
    ("s06_07_transformers", "PRED_E"): s067_e,
    ("s06_07_transformers", "TRANSFER_A"): s067_ta,
    ("s06_07_transformers", "TRANSFER_B"): s067_tb,
    ("s06_07_transformers", "TRANSFER_C"): s067_tc,
    ("s06_07_transformers", "TRANSFER_D"): s067_td,
    ("s06_07_transformers", "TRANSFER_E"): s067_te,
    ("s06_07_transformers", "PRED_F"): s067_f,
    ("s06_07_transformers", "PRED_G"): s067_g,
    ("s06_07_transformers", "TRANSFER_F"): s067_tf,
    ("s06_07_transformers", "TRANSFER_G"): s067_tg,
    ("s06_08_dlrm", "PRED_A"): s068_a,
    ("s06_08_dlrm", "PRED_B"): s068_b,
    ("s06_08_dlrm", "PRED_C"): s068_c,
    ("s06_08_dlrm", "PRED_D"): s068_d,
    ("s06_08_dlrm", "PRED_E"): s068_e,
    ("s06_08_dlrm", "TRANSFER_A"): s068_ta,
    ("s06_08_dlrm", "TRANSFER_B"): s068_tb,
    ("s06_08_dlrm", "TRANSFER_C"): s068_tc,
    ("s06_08_dlrm", "TRANSFER_D"): s068_td,
    ("s06_08_dlrm", "TRANSFER_E"): s068_te,
    ("s06_09_choosing", "PRED_A"): s069_a,
    ("s06_09_choosing", "PRED_B"): s069_b,
    ("s06_09_choosing", "PRED_C"): s069_c,
    ("s06_09_choosing", "PRED_D"): s069_d,
    ("s06_09_choosing", "TRANSFER_A"): s069_ta,
    ("s06_09_choosing", "TRANSFER_B"): s069_tb,
    ("s06_09_choosing", "TRANSFER_C"): s069_tc,
    ("s06_09_choosing", "TRANSFER_D"): s069_td,
    ("s06_09_choosing", "PRED_E"): s069_e,
    ("s06_09_choosing", "TRANSFER_E"): s069_te,
    ("s06_10_fallacies", "PRED_A"): s0610_a,
    ("s06_10_fallacies", "PRED_B"): s0610_b,
    ("s06_10_fallacies", "PRED_C"): s0610_c,
    ("s06_10_fallacies", "PRED_D"): s0610_d,
    ("s06_10_fallacies", "TRANSFER_A"): s0610_ta,
    ("s06_10_fallacies", "TRANSFER_B"): s0610_tb,
    ("s06_10_fallacies", "TRANSFER_C"): s0610_tc,
    ("s06_10_fallacies", "TRANSFER_D"): s0610_td,
    ("s06_11_primitives", "PRED_A"): s0611_a,
    ("s06_11_primitives", "PRED_B"): s0611_b,
    ("s06_11_primitives", "PRED_C"): s0611_c,
    ("s06_11_primitives", "PRED_D"): s0611_d,
    ("s06_11_primitives", "TRANSFER_A"): s0611_ta,
    ("s06_11_primitives", "TRANSFER_B"): s0611_tb,
    ("s06_11_primitives", "TRANSFER_C"): s0611_tc,
    ("s06_11_primitives", "TRANSFER_D"): s0611_td,
    ("s06_12_tradeoffs", "PRED_A"): s0612_a,
    ("s06_12_tradeoffs", "PRED_B"): s0612_b,
    ("s06_12_tradeoffs", "PRED_C"): s0612_c,
    ("s06_12_tradeoffs", "PRED_D"): s0612_d,
    ("s06_12_tradeoffs", "PRED_E"): s0612_e,
    ("s06_13_building_blocks", "PRED_A"): s0613_a,
    ("s06_13_building_blocks", "PRED_B"): s0613_b,
    ("s06_13_building_blocks", "PRED_C"): s0613_c,
    ("s06_13_building_blocks", "PRED_D"): s0613_d,
    ("s06_13_building_blocks", "PRED_E"): s0613_e,
}


@functools.cache
def _inventory_keys() -> dict[str, str]:
    """The inventory's answers, each derived from the core in tests/test_inventory.py."""
    from test_inventory import _derived

    return _derived()


def _inventory_key(key: str):
    def derive() -> str:
        return _inventory_keys()[key]

    derive.__name__ = f"inventory_{key.lower()}"
    return derive


KEYS.update(
    {
        (INVENTORY, inventory.item_key(c.key, n)): _inventory_key(inventory.item_key(c.key, n))
        for c in inventory.CONCEPTS
        for n in (1, 2)
    }
)

#: Keys whose answer is conceptual (no quantity in the core decides it), each with why; listed so
#: that the lead sees them. Their key is still asserted.
CONCEPTUAL = {
    ("s06_01_principles", "PRED_B"): "No Free Lunch is a theorem about learners, not a count: "
    "whether a locality prior misleads on a table's arbitrary column order is not a cost the core "
    "computes",
    (
        "s06_04_skip_norm",
        "PRED_B",
    ): "eval-mode BatchNorm uses running statistics by definition; the "
    "core's gap only rules out the one-value 'beta' collapse",
}

FINGERPRINTS = {
    ("byom", "PRED_A"): "02bc394aef82",
    ("byom", "PRED_B"): "f2f3d0339f09",
    ("byom", "PRED_C"): "1785007c84db",
    ("byom", "PRED_D"): "27e6af5f0af3",
    ("byom", "PRED_E"): "2936cd988b54",
    ("inventory", "ATTENTION_1"): "58989c0786e6",
    ("inventory", "ATTENTION_2"): "900de800eadc",
    ("inventory", "BATCHING_1"): "afb94a9a66cc",
    ("inventory", "BATCHING_2"): "13629df056e1",
    ("inventory", "DEVICE_1"): "69fbec544a53",
    ("inventory", "DEVICE_2"): "2365869cc61e",
    ("inventory", "EMBEDDING_1"): "c0ed438236c9",
    ("inventory", "EMBEDDING_2"): "df54a06aeb07",
    ("inventory", "ENERGY_1"): "877cf6c34e75",
    ("inventory", "ENERGY_2"): "7bb09091d4d3",
    ("inventory", "FLOPS_1"): "b2f72e60adbd",
    ("inventory", "FLOPS_2"): "e37ae4f90e4d",
    ("inventory", "KVCACHE_1"): "5219f30fce56",
    ("inventory", "KVCACHE_2"): "83db08c4bd6b",
    ("inventory", "LAUNCH_1"): "880c561634a1",
    ("inventory", "LAUNCH_2"): "f8d77a7a019f",
    ("inventory", "PRIOR_1"): "e2bb5638dab6",
    ("inventory", "PRIOR_2"): "61fe128f9ab3",
    ("inventory", "RECURRENCE_1"): "3e0331bb811a",
    ("inventory", "RECURRENCE_2"): "443cea4759ae",
    ("inventory", "REGIME_1"): "e1ebdde010e7",
    ("inventory", "REGIME_2"): "7fe3af97e4b0",
    ("inventory", "WIDTH_1"): "cdc4369b901e",
    ("inventory", "WIDTH_2"): "3ed953800da6",
    ("lab06", "PRED_A"): "34da4ac71658",
    ("lab06", "PRED_B"): "158a678258ff",
    ("lab06", "PRED_C"): "e323beb4e94b",
    ("lab06", "PRED_D"): "139139256f6b",
    ("lab06", "TRANSFER_A"): "5c998a0c2e85",
    ("lab06", "TRANSFER_B"): "10079b546912",
    ("lab06", "TRANSFER_C"): "7129da1676d0",
    ("lab06", "TRANSFER_D"): "436a90814fa8",
    ("s06_01_principles", "PRED_A"): "2b99617d1bea",
    ("s06_01_principles", "PRED_B"): "ec85a0686ba7",
    ("s06_01_principles", "PRED_C"): "4e79206c42b9",
    ("s06_01_principles", "PRED_D"): "679974beaa36",
    ("s06_01_principles", "TRANSFER_A"): "5a136ef1733b",
    ("s06_01_principles", "TRANSFER_B"): "fb9eb731f46a",
    ("s06_01_principles", "TRANSFER_C"): "909beaf2877f",
    ("s06_01_principles", "TRANSFER_D"): "974fac5b1b77",
    ("s06_02_mlps", "PRED_A"): "15ab09801721",
    ("s06_02_mlps", "PRED_B"): "e06fe49b184c",
    ("s06_02_mlps", "PRED_C"): "ac6f4840fc99",
    ("s06_02_mlps", "PRED_D"): "5b567ca57459",
    ("s06_02_mlps", "PRED_E"): "21c027c41bef",
    ("s06_02_mlps", "PRED_F"): "30071f3297c8",
    ("s06_02_mlps", "TRANSFER_A"): "c7bc1a31e433",
    ("s06_02_mlps", "TRANSFER_B"): "6b1603d122bc",
    ("s06_02_mlps", "TRANSFER_C"): "1e29ee7a0b7b",
    ("s06_02_mlps", "TRANSFER_D"): "9c454ec5aded",
    ("s06_02_mlps", "TRANSFER_E"): "e188f3ef6ffd",
    ("s06_02_mlps", "TRANSFER_F"): "4897c6c4e0e3",
    ("s06_03_cnns", "PRED_A"): "7fb2f25f0432",
    ("s06_03_cnns", "PRED_B"): "eef22c8ee27a",
    ("s06_03_cnns", "PRED_C"): "d1ac748454f0",
    ("s06_03_cnns", "PRED_D"): "a8c5dbf6f5ca",
    ("s06_03_cnns", "PRED_E"): "0cb57b569349",
    ("s06_03_cnns", "PRED_F"): "a28f683140c0",
    ("s06_03_cnns", "TRANSFER_A"): "06538e2a134e",
    ("s06_03_cnns", "TRANSFER_B"): "a20fbb352f69",
    ("s06_03_cnns", "TRANSFER_C"): "7364e2ff1677",
    ("s06_03_cnns", "TRANSFER_D"): "7cce7c1395eb",
    ("s06_03_cnns", "TRANSFER_E"): "06d4fdb6f781",
    ("s06_03_cnns", "TRANSFER_F"): "7d19bbf75c58",
    ("s06_04_skip_norm", "PRED_A"): "24b5b5f66030",
    ("s06_04_skip_norm", "PRED_B"): "0396d067095d",
    ("s06_04_skip_norm", "PRED_C"): "6ceea9083d0e",
    ("s06_04_skip_norm", "PRED_D"): "aab9b78f8469",
    ("s06_04_skip_norm", "TRANSFER_A"): "c3a79723f655",
    ("s06_04_skip_norm", "TRANSFER_B"): "1f1ade4e7230",
    ("s06_04_skip_norm", "TRANSFER_C"): "9d3183fba350",
    ("s06_04_skip_norm", "TRANSFER_D"): "c719b0f30208",
    ("s06_05_rnns", "PRED_A"): "6f33dd32f9af",
    ("s06_05_rnns", "PRED_B"): "da10bf3ba1b9",
    ("s06_05_rnns", "PRED_C"): "a36e3382dc57",
    ("s06_05_rnns", "PRED_D"): "4db2e40ec5d3",
    ("s06_05_rnns", "PRED_E"): "f4e53c6a3883",
    ("s06_05_rnns", "TRANSFER_A"): "c373c48f44fd",
    ("s06_05_rnns", "TRANSFER_B"): "9964cd41384e",
    ("s06_05_rnns", "TRANSFER_C"): "0aa7fd2f4763",
    ("s06_05_rnns", "TRANSFER_D"): "4481e160b34d",
    ("s06_05_rnns", "TRANSFER_E"): "abc465cf21d8",
    ("s06_06_attention", "PRED_A"): "bed6b2bf072e",
    ("s06_06_attention", "PRED_B"): "7363f985e4b4",
    ("s06_06_attention", "PRED_C"): "b82afa9cdfac",
    ("s06_06_attention", "PRED_D"): "8c0215d625bd",
    ("s06_06_attention", "PRED_E"): "b1ac6bcda283",
    ("s06_06_attention", "PRED_F"): "3e234b2dd37e",
    ("s06_06_attention", "PRED_G"): "411a63ddf1cb",
    ("s06_06_attention", "TRANSFER_A"): "0cb9a82ef383",
    ("s06_06_attention", "TRANSFER_B"): "27ea0c7ef842",
    ("s06_06_attention", "TRANSFER_C"): "7f755785730f",
    ("s06_06_attention", "TRANSFER_D"): "684099ba348d",
    ("s06_06_attention", "TRANSFER_E"): "986ffb507d5e",
    ("s06_06_attention", "TRANSFER_F"): "2067a75ee2c4",
    ("s06_06_attention", "TRANSFER_G"): "e7c8e8033735",
    ("s06_07_transformers", "PRED_A"): "a857a7c208db",
    ("s06_07_transformers", "PRED_B"): "d485add60cfc",
    ("s06_07_transformers", "PRED_C"): "86444e9722c9",
    ("s06_07_transformers", "PRED_D"): "ca0c62a77c8d",
    ("s06_07_transformers", "PRED_E"): "b1233bedb491",
    ("s06_07_transformers", "PRED_F"): "8a0770abca03",
    ("s06_07_transformers", "PRED_G"): "248016d85d86",
    ("s06_07_transformers", "TRANSFER_A"): "6685d69e5f25",
    ("s06_07_transformers", "TRANSFER_B"): "f2e56e9368d8",
    ("s06_07_transformers", "TRANSFER_C"): "9c784216a45b",
    ("s06_07_transformers", "TRANSFER_D"): "8627227759a5",
    ("s06_07_transformers", "TRANSFER_E"): "0ca61c8235ce",
    ("s06_07_transformers", "TRANSFER_F"): "cc38d20ce37d",
    ("s06_07_transformers", "TRANSFER_G"): "316c52db3f8a",
    ("s06_08_dlrm", "PRED_A"): "bc3390f171b6",
    ("s06_08_dlrm", "PRED_B"): "0f22d973d744",
    ("s06_08_dlrm", "PRED_C"): "3a3636c303a0",
    ("s06_08_dlrm", "PRED_D"): "aa038032a306",
    ("s06_08_dlrm", "PRED_E"): "dec42bf92c23",
    ("s06_08_dlrm", "TRANSFER_A"): "be220e77e090",
    ("s06_08_dlrm", "TRANSFER_B"): "35a7da152536",
    ("s06_08_dlrm", "TRANSFER_C"): "64a91c069542",
    ("s06_08_dlrm", "TRANSFER_D"): "485d9010d6a8",
    ("s06_08_dlrm", "TRANSFER_E"): "c280314ee6dc",
    ("s06_09_choosing", "PRED_A"): "4b960d515db3",
    ("s06_09_choosing", "PRED_B"): "7d551a6cace6",
    ("s06_09_choosing", "PRED_C"): "d92abb45f706",
    ("s06_09_choosing", "PRED_D"): "9a193fcd2fa1",
    ("s06_09_choosing", "PRED_E"): "43494b9d1a8b",
    ("s06_09_choosing", "TRANSFER_A"): "0bd10835f0b6",
    ("s06_09_choosing", "TRANSFER_B"): "a5a8f336a684",
    ("s06_09_choosing", "TRANSFER_C"): "8ebbf0855087",
    ("s06_09_choosing", "TRANSFER_D"): "cfba87a1a4e8",
    ("s06_09_choosing", "TRANSFER_E"): "2efeca7a8c73",
    ("s06_10_fallacies", "PRED_A"): "56488964cdb9",
    ("s06_10_fallacies", "PRED_B"): "d6eab0e27d3c",
    ("s06_10_fallacies", "PRED_C"): "bfdaa6cdcac1",
    ("s06_10_fallacies", "PRED_D"): "78950c386b1a",
    ("s06_10_fallacies", "TRANSFER_A"): "0c4906a9b0f9",
    ("s06_10_fallacies", "TRANSFER_B"): "22884333b70d",
    ("s06_10_fallacies", "TRANSFER_C"): "a7e5f946e737",
    ("s06_10_fallacies", "TRANSFER_D"): "92836b3b2c74",
    ("s06_11_primitives", "PRED_A"): "d74c5c4fb432",
    ("s06_11_primitives", "PRED_B"): "e5167ccb0080",
    ("s06_11_primitives", "PRED_C"): "74d9e8e661a1",
    ("s06_11_primitives", "PRED_D"): "c90e3b81b23c",
    ("s06_11_primitives", "TRANSFER_A"): "121c2ff8c7f0",
    ("s06_11_primitives", "TRANSFER_B"): "6a9d63dc9fdc",
    ("s06_11_primitives", "TRANSFER_C"): "a04ab8daee32",
    ("s06_11_primitives", "TRANSFER_D"): "2ca35507aa4e",
    ("s06_12_tradeoffs", "PRED_A"): "7e6ca5f63579",
    ("s06_12_tradeoffs", "PRED_B"): "d61107a65f3b",
    ("s06_12_tradeoffs", "PRED_C"): "3dcd082ce70c",
    ("s06_12_tradeoffs", "PRED_D"): "a73d8dc8cc0e",
    ("s06_12_tradeoffs", "PRED_E"): "91917c410af1",
    ("s06_13_building_blocks", "PRED_A"): "e0174442ded2",
    ("s06_13_building_blocks", "PRED_B"): "25f20989b176",
    ("s06_13_building_blocks", "PRED_C"): "afa6ff13e7b0",
    ("s06_13_building_blocks", "PRED_D"): "ca193b346a47",
    ("s06_13_building_blocks", "PRED_E"): "02fa0ceac519",
}


def test_every_prediction_has_a_key():
    assert sorted(PREDICTIONS) == sorted(KEYS), (
        "predictions without an answer-key test (add one) or keys without a prediction (renamed?): "
        f"{sorted(set(PREDICTIONS) ^ set(KEYS))}"
    )


def test_conceptual_keys_are_listed_keys():
    assert set(CONCEPTUAL) <= set(KEYS), sorted(set(CONCEPTUAL) - set(KEYS))


@pytest.mark.parametrize("ref", sorted(KEYS), ids=lambda r: f"{r[0]}.{r[1]}")
def test_prediction_unchanged(ref):
    assert ref in PREDICTIONS, f"{ref} no longer exists"
    fp = fingerprint(PREDICTIONS[ref])
    where = (
        "its entry in _derived() in tests/test_inventory.py"
        if ref[0] == INVENTORY
        else "its key function in tests/test_answer_keys.py"
    )
    assert fp == FINGERPRINTS.get(ref), (
        f"{ref[0]}.{ref[1]} changed (its question or options): check that {where} still "
        f"derives the right option for the new wording (it is the test "
        f"test_answer_key_matches_the_core[{ref[0]}.{ref[1]}]), then run "
        f"`python tests/test_answer_keys.py` (it prints every fingerprint) and set this line in "
        f"FINGERPRINTS:\n    {ref!r}: {fp!r},"
    )


@pytest.mark.parametrize("ref", sorted(KEYS), ids=lambda r: f"{r[0]}.{r[1]}")
def test_answer_key_matches_the_core(ref):
    assert ref in PREDICTIONS, f"{ref} no longer exists"
    pred = PREDICTIONS[ref]
    derived = KEYS[ref]()
    assert derived in pred.options, f"{ref}: the core implies {derived!r}, which is not an option"
    assert pred.answer == derived, f"{ref}: marked {pred.answer!r}, the core says {derived!r}"


if __name__ == "__main__":  # from anywhere: this checkout's mlsysim, not an installed one
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    code = (
        "import test_answer_keys as t\n"
        "for ref, p in sorted(t.PREDICTIONS.items()):\n"
        '    print(f\'    ("{ref[0]}", "{ref[1]}"): "{t.fingerprint(p)}",\')'
    )
    path = os.pathsep.join([str(root), str(root / "tests")])
    sys.exit(
        subprocess.call(
            [sys.executable, "-c", code], cwd=root, env={**os.environ, "PYTHONPATH": path}
        )
    )
