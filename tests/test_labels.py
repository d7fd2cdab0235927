"""Labels on both sides of every decision threshold, the expected label from hand arithmetic.

The engine's rule (``mlsysim/engine.py``): each row's time is max(FLOPs / (peak x eff),
bytes / BW); that max is attributed to Compute or Memory (Compute on a tie); launches x tax is
Dispatch. The bottleneck is Dispatch when the launch time is at least each of the two
attributed sums, else the larger of Compute and Memory. Feasible: weights + live activations
+ KV cache <= capacity (MCUs: weights <= flash, activations <= SRAM).

H100 SXM, FP16 dense: 989.5 TFLOP/s, 3.35 TB/s, 5 µs per launch; efficiency 1 unless stated.
Every configuration below sits one step from a threshold, and the test next to it sits one
step on the other side.
"""

from __future__ import annotations

import pytest

from mlsysim import Engine, Hardware, Models
from mlsysim import layers as L
from mlsysim.models import Model, Row

H100 = Hardware.get("H100")
PEAK, BW, TAX = 989.5e12, 3.35e12, 5e-6


def solve(layer, **kw):
    kw.setdefault("efficiency", 1.0)
    return Engine.solve(layer, H100, precision="fp16", **kw)


# --------------------------------------------------------------------------------------------
# Compute vs Memory: a square 4096 GEMM over t tokens
# --------------------------------------------------------------------------------------------
# FLOPs = 2 t d^2;  bytes = 2 (d^2 + 2 t d)  (weights once, input and output, FP16, no bias).
# Compute-bound iff 2 t d^2 / PEAK >= 2 (d^2 + 2 t d) / BW
#   <=> t (BW d - 2 PEAK) >= PEAK d  <=> t >= 989.5 * 4096 / (3.35 * 4096 - 1979) = 345.15


@pytest.mark.parametrize("tokens, label", [(345, "Memory"), (346, "Compute")])
def test_gemm_compute_vs_memory_at_the_ridge(tokens, label):
    d = L.Dense(in_features=4096, out_features=4096, bias=False, tokens=tokens)
    p = solve(d)
    # both sides are far above one launch (>= 11 µs of work vs 5 µs)
    assert p.latency_s - TAX > 11e-6
    assert p.bottleneck == label


def test_efficiency_moves_the_ridge():
    """At efficiency 0.5 the rate is r = PEAK / 2 and compute-bound means
    t (BW d - 2 r) >= r d  <=>  t >= 494.75 * 4096 / (13,721.6 - 989.5) = 159.16."""
    assert (
        solve(
            L.Dense(in_features=4096, out_features=4096, bias=False, tokens=346), efficiency=0.5
        ).bottleneck
        == "Compute"
    )
    assert (
        solve(
            L.Dense(in_features=4096, out_features=4096, bias=False, tokens=159), efficiency=0.5
        ).bottleneck
        == "Memory"
    )
    assert (
        solve(
            L.Dense(in_features=4096, out_features=4096, bias=False, tokens=160), efficiency=0.5
        ).bottleneck
        == "Compute"
    )


# --------------------------------------------------------------------------------------------
# Dispatch vs Memory: an activation over n values (FP16: 2 B read + 2 B written per value)
# --------------------------------------------------------------------------------------------
# memory time = 4 n / BW; one launch = 5 µs; equal at n = 5e-6 * 3.35e12 / 4 = 4,187,500


@pytest.mark.parametrize("n, label", [(4_187_000, "Dispatch"), (4_188_000, "Memory")])
def test_activation_dispatch_vs_memory(n, label):
    assert solve(L.Activation(elements=n)).bottleneck == label


# --------------------------------------------------------------------------------------------
# Dispatch vs Compute: a compute-bound 1024 GEMM
# --------------------------------------------------------------------------------------------
# ridge: t >= 989.5 * 1024 / (3.35 * 1024 - 1979) = 698.1, so both t below are compute-bound;
# compute time = 2 t 1024^2 / PEAK = 5 µs at t = 5e-6 * 989.5e12 / 2,097,152 = 2,359.2


@pytest.mark.parametrize("tokens, label", [(2359, "Dispatch"), (2360, "Compute")])
def test_gemm_dispatch_vs_compute(tokens, label):
    assert (
        solve(L.Dense(in_features=1024, out_features=1024, bias=False, tokens=tokens)).bottleneck
        == label
    )


# --------------------------------------------------------------------------------------------
# Dispatch is compared with each attributed term, not with their sum
# --------------------------------------------------------------------------------------------
# A compute-bound GEMM of ~6 µs (t = 2,832: 2 * 2832 * 1024^2 / PEAK = 6.00 µs; its bytes
# 2 (1024^2 + 2 * 2832 * 1024) = 13.7 MB take 4.09 µs) and an activation of n values
# (4 n / BW): 2 launches = 10 µs.


@pytest.mark.parametrize(
    "n, label",
    [
        (5_025_000, "Dispatch"),  # memory 6.0 µs: 10 >= 6.0 and 10 >= 6.0, although 6 + 6 > 10
        (8_400_000, "Memory"),  # memory 10.03 µs > 10 µs of launches
    ],
)
def test_dispatch_against_each_term(n, label):
    gemm = L.Dense(in_features=1024, out_features=1024, bias=False, tokens=2832)
    act = L.Activation(elements=n)
    assert 5.99e-6 < 2 * 2832 * 1024**2 / PEAK < 6.01e-6
    assert solve(L.Sequential(layers=(gemm, act))).bottleneck == label


@pytest.mark.parametrize("n, label", [(50_000_000, "Compute"), (50_300_000, "Memory")])
def test_compute_vs_memory_attribution_sums_rows(n, label):
    """8 copies of a 1024 GEMM over 28,320 tokens: 8 x 2 x 28,320 x 1024^2 / PEAK = 480.16 µs
    of compute (its own bytes take 35 µs); 8 activations of n values: 8 x 4 n / BW of memory
    (477.6 µs at 50.0 M values, 480.5 µs at 50.3 M); 16 launches = 80 µs."""
    gemm = L.Dense(in_features=1024, out_features=1024, bias=False, tokens=28_320)
    act = L.Activation(elements=n)
    m = Model("two rows", "mlp", lambda _s, _p: [Row("gemm", gemm, 8), Row("act", act, 8)])
    assert Engine.solve(m, H100, precision="fp16", efficiency=1.0).bottleneck == label


def test_few_launches_of_small_work_is_dispatch():
    """8 GEMMs of 6.00 µs (48 µs compute) and 8 activations of 1,000,000 values
    (8 x 1.19 µs = 9.6 µs memory): 16 launches = 80 µs -> Dispatch."""
    gemm = L.Dense(in_features=1024, out_features=1024, bias=False, tokens=2832)
    act = L.Activation(elements=1_000_000)
    m = Model("a", "mlp", lambda _s, _p: [Row("gemm", gemm, 8), Row("act", act, 8)])
    assert Engine.solve(m, H100, precision="fp16", efficiency=1.0).bottleneck == "Dispatch"


# --------------------------------------------------------------------------------------------
# ResNet-50 on the H100, eager, FP16, efficiency 0.5: Dispatch at batch 16, Memory from 21
# --------------------------------------------------------------------------------------------
# Launches: 174 kernels (tests/test_traffic.py counts them from the architecture) x 5 µs = 870 µs.
# The per-row split is recomputed here from each layer's FLOPs and bytes with the rule above.


def _resnet_terms(batch):
    rate = PEAK * 0.5
    ac = am = 0.0
    kernels = 0
    for r in Models.ResNet50.rows():
        tc = r.count * r.layer.flops(batch) / rate
        tm = r.count * r.layer.bytes_moved(batch, "fp16") / BW
        if tc >= tm:
            ac += tc
        else:
            am += tm
        kernels += r.count * r.layer.kernels
    return ac, am, kernels * TAX


def test_resnet50_h100_batch16_is_dispatch_bound():
    ac, am, td = _resnet_terms(16)
    assert td == pytest.approx(174 * TAX)
    # compute is bounded by all FLOPs at half peak: 16 x 8,178,368,512 / 494.75e12 = 264 µs
    assert ac <= 16 * 8_178_368_512 / (PEAK * 0.5)
    # launches beat each term but not their sum: a rule comparing with the sum says Memory
    assert am < td < ac + am
    assert Engine.solve(Models.ResNet50, H100, batch_size=16).bottleneck == "Dispatch"


@pytest.mark.parametrize("batch, label", [(20, "Dispatch"), (21, "Memory")])
def test_resnet50_h100_dispatch_to_memory_crossover(batch, label):
    ac, am, td = _resnet_terms(batch)
    expect = "Dispatch" if td >= ac and td >= am else ("Compute" if ac >= am else "Memory")
    assert expect == label
    assert Engine.solve(Models.ResNet50, H100, batch_size=batch).bottleneck == label


# --------------------------------------------------------------------------------------------
# Per-row bound labels in Profile.layers
# --------------------------------------------------------------------------------------------


def test_row_bound_labels():
    """One 1024 GEMM at 2,360 tokens (compute 5.0002 µs > 5 µs launch > 3.5 µs memory) ->
    Compute; at 2,359 -> Dispatch; an activation of 4,188,000 values -> Memory."""
    rows = [
        Row("a", L.Dense(in_features=1024, out_features=1024, bias=False, tokens=2360)),
        Row("b", L.Dense(in_features=1024, out_features=1024, bias=False, tokens=2359)),
        Row("c", L.Activation(elements=4_188_000)),
    ]
    m = Model("rows", "mlp", lambda _s, _p: rows)
    p = Engine.solve(m, H100, precision="fp16", efficiency=1.0)
    assert [t.bound for t in p.layers] == ["Compute", "Dispatch", "Memory"]


# --------------------------------------------------------------------------------------------
# Feasible vs infeasible
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("out, feasible", [(61_033, True), (61_034, False)])
def test_dense_fits_iphone_8gb(out, feasible):
    """iPhone 15 Pro: 8 GB = 8e9 B. A bias-free 65,536 -> out GEMM in FP16 needs
    2 x 65,536 x out (weights) + 2 x (65,536 + out) (input and output live):
    out = 61,033 -> 7,999,970,514 B fits; 61,034 -> 8,000,101,588 B does not."""
    d = L.Dense(in_features=65_536, out_features=out, bias=False)
    p = Engine.solve(d, "iPhone15Pro", precision="fp16")
    assert p.memory_footprint_bytes == 2 * 65_536 * out + 2 * (65_536 + out)
    assert p.feasible is feasible
    assert p.over.m_as("B") == (0 if feasible else 2 * 65_536 * out + 2 * (65_536 + out) - 8e9)


@pytest.mark.parametrize("batch, feasible", [(30, True), (31, False)])
def test_llama7b_kv_cache_on_h100(batch, feasible):
    """Llama-2 7B, FP16, decode at 4,096 tokens: weights 6,738,415,616 x 2 B = 13.48 GB, KV
    2 x 32 x 4096 x 2 B = 524,288 B per token: batch 30 -> 64.4 GB of KV (77.9 GB with the
    weights, plus under 1 GB of live activations) fits 80 GB; batch 31 -> 80.05 GB does not."""
    p = Engine.solve(Models.Llama7B, H100, batch_size=batch, seq_len=4096)
    assert p.kv_cache_bytes == batch * 4096 * 524_288
    assert p.weight_bytes == 6_738_415_616 * 2
    assert p.feasible is feasible


@pytest.mark.parametrize("out, feasible", [(1024, True), (1025, False)])
def test_mcu_weights_against_flash(out, feasible):
    """Arduino Nano 33 BLE Sense: 1 MiB flash holds the weights: a bias-free 1024 -> out INT8
    GEMM has 1024 x out bytes: 1,048,576 fits, 1,049,600 does not (SRAM holds 2 KB)."""
    p = Engine.solve(
        L.Dense(in_features=1024, out_features=out, bias=False),
        "ArduinoNano33BLESense",
        precision="int8",
    )
    assert p.feasible is feasible
    assert p.limiting_memory == "flash" or feasible


@pytest.mark.parametrize("n, feasible", [(131_072, True), (131_073, False)])
def test_mcu_activations_against_sram(n, feasible):
    """256 KiB SRAM = 262,144 B holds the live tensors: an INT8 activation over n values keeps
    input and output alive, 2 n bytes."""
    p = Engine.solve(L.Activation(elements=n), "ArduinoNano33BLESense", precision="int8")
    assert p.feasible is feasible
    assert p.limiting_memory == "sram"
    assert p.over.m_as("B") == max(0, 2 * n - 262_144)


def test_footprint_counts_activations_per_example():
    """Batch 3 of the iPhone GEMM: weights once, input and output per example:
    2 x 65,536 x 61,000 + 3 x 2 x (65,536 + 61,000)."""
    d = L.Dense(in_features=65_536, out_features=61_000, bias=False)
    p = Engine.solve(d, "iPhone15Pro", precision="fp16", batch_size=3)
    assert p.activation_bytes == 3 * 2 * (65_536 + 61_000)
    assert p.memory_footprint_bytes == 2 * 65_536 * 61_000 + 3 * 2 * (65_536 + 61_000)


def test_ridge_points_peak_and_sustained():
    """H100 FP16: ridge point (peak) 989.5e12 / 3.35e12 = 295.4 FLOP/B whatever the efficiency;
    the sustained ridge at efficiency 0.5 is half of it."""
    p = Engine.solve(L.Dense(in_features=64, out_features=64), H100, efficiency=0.5)
    assert p.ridge_point == pytest.approx(PEAK / BW)
    assert p.sustained_ridge_point == pytest.approx(PEAK / BW / 2)


def test_a_sustained_rate_is_not_derated_again():
    """The camera SoC's 2 GOP/s INT8 is already a sustained figure (the chapter's): a
    4096 x 4096 INT8 GEMM over 1,000 tokens takes 2 x 1,000 x 4096^2 / 2e9 = 16.8 s of compute at
    any efficiency setting; a datasheet peak (the H100's) is derated by it."""
    cam = Hardware.get("CortexA53Camera")
    d = L.Dense(in_features=4096, out_features=4096, bias=False, tokens=1000)
    for eff in (1.0, 0.5):
        p = Engine.solve(d, cam, precision="int8", efficiency=eff)
        assert p.latency_compute_s == pytest.approx(2 * 1000 * 4096**2 / 2e9)
    h = Engine.solve(d, H100, precision="fp16", efficiency=0.5)
    assert h.latency_compute_s == pytest.approx(2 * 1000 * 4096**2 / (PEAK * 0.5))
