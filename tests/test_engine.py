"""The roofline engine: latency arithmetic, bottleneck labels, regimes, feasibility, sweeps,
and the API contract the seed labs were written against."""

from __future__ import annotations

import math

import pytest

import mlsysim
from mlsysim import Engine, Hardware, Models
from mlsysim import layers as L
from mlsysim import models as M
from mlsysim.units import bytes_per_value

H100 = Hardware.Cloud.H100
A100 = Hardware.Cloud.A100


def _independent_latency(model, dev, batch, precision, efficiency, seq_len=None, phase=None):
    """sum over rows of max(FLOPs / (peak x eff), bytes / BW) + kernels x tax, from the
    model's rows and the layer contract alone (not from the engine)."""
    rate = dev.compute.peak(precision).m_as("FLOP/s") * efficiency
    bw = dev.memory.bandwidth.m_as("B/s")
    tax = dev.dispatch_tax.m_as("s")
    rows = model.rows(seq_len, phase) if isinstance(model, M.Model) else [M.Row("x", model)]
    t, kernels = 0.0, 0
    for r in rows:
        f = r.layer.flops(batch) * r.count
        by = r.layer.bytes_moved(batch, precision) * r.count
        t += max(f / rate, by / bw)
        kernels += r.layer.kernels * r.count
    return t + kernels * tax


CASES = [
    ("ResNet50", H100, 1, "fp16", 0.5, None, None),
    ("ResNet50", H100, 64, "fp16", 0.5, None, None),
    ("ResNet50", A100, 8, "fp32", 0.7, None, None),
    ("MobileNetV2", Hardware.Edge.JetsonOrinNX, 4, "fp16", 0.4, None, None),
    ("KWS", Hardware.Tiny.STM32H743, 1, "int8", 1.0, None, None),
    ("GPT2", H100, 1, "fp16", 0.5, 1024, "decode"),
    ("GPT2", H100, 2, "fp16", 0.5, 512, "prefill"),
    ("Llama7B", A100, 4, "bf16", 0.6, 2048, "decode"),
    ("BERTBase", H100, 8, "fp16", 0.5, 128, "prefill"),
    ("DLRM", H100, 512, "fp32", 0.5, None, None),
]


@pytest.mark.parametrize(
    "name,dev,b,prec,eff,seq,phase", CASES, ids=[f"{c[0]}-{c[1].key}-b{c[2]}-{c[6]}" for c in CASES]
)
def test_latency_is_sum_of_row_maxima_plus_dispatch(name, dev, b, prec, eff, seq, phase):
    model = Models.get(name)
    prof = Engine.solve(
        model, dev, batch_size=b, precision=prec, efficiency=eff, seq_len=seq, phase=phase
    )
    expect = _independent_latency(model, dev, b, prec, eff, seq, phase)
    assert prof.latency_s == pytest.approx(expect, rel=1e-12)
    assert prof.latency.m_as("s") == prof.latency_s
    assert sum(t.time for t in prof.layers) == pytest.approx(prof.latency_s, rel=1e-12)
    kernels = sum(r.layer.kernels * r.count for r in model.rows(seq, phase))
    assert prof.latency_dispatch_s == pytest.approx(kernels * dev.dispatch_tax.m_as("s"))
    assert prof.flops == model.flops(b, seq, phase)
    assert prof.bytes_moved == sum(
        r.layer.bytes_moved(b, prec) * r.count for r in model.rows(seq, phase)
    )


@pytest.mark.parametrize(
    "name,dev,b,prec,eff,seq,phase", CASES, ids=[f"{c[0]}-{c[1].key}-b{c[2]}-{c[6]}" for c in CASES]
)
def test_bottleneck_label_is_largest_attributed_term(name, dev, b, prec, eff, seq, phase):
    prof = Engine.solve(
        Models.get(name),
        dev,
        batch_size=b,
        precision=prec,
        efficiency=eff,
        seq_len=seq,
        phase=phase,
    )
    comp = sum(t.t_compute for t in prof.layers if t.t_compute >= t.t_memory)
    mem = sum(t.t_memory for t in prof.layers if t.t_compute < t.t_memory)
    disp = prof.latency_dispatch_s
    if disp >= comp and disp >= mem:
        expect = "Dispatch"
    else:
        expect = "Compute" if comp >= mem else "Memory"
    assert prof.bottleneck == expect
    assert 0 < prof.mfu <= eff + 1e-12


def test_resnet50_batch1_h100_is_dispatch_bound():
    """Eager batch-1 ResNet-50 on an H100: ~170 launches x 5 us dwarf 8 GFLOP of math."""
    prof = Engine.solve(Models.ResNet50, H100, batch_size=1)
    assert prof.bottleneck == "Dispatch"
    assert prof.latency_dispatch_s > 10 * prof.latency_compute_s
    assert prof.mfu < 0.05


@pytest.mark.parametrize("batch", [32, 256])
def test_fused_batched_resnet50_is_compute_bound(batch):
    eager = Engine.solve(Models.ResNet50, H100, batch_size=batch)
    fused = Engine.solve(Models.ResNet50, H100, batch_size=batch, fused=True)
    assert fused.bottleneck == "Compute"
    assert fused.latency_s < eager.latency_s
    assert fused.latency_dispatch_s < eager.latency_dispatch_s
    assert fused.flops == eager.flops  # fusion moves fewer bytes, does no less math
    assert fused.bytes_moved < eager.bytes_moved
    assert fused.fused and not eager.fused


def test_gpt2_decode_vs_prefill_regimes():
    decode = Engine.solve(Models.GPT2, H100, batch_size=1, phase="decode", seq_len=1024)
    prefill = Engine.solve(Models.GPT2, H100, batch_size=1, phase="prefill", seq_len=1024)
    assert decode.bottleneck in ("Memory", "Dispatch")
    assert decode.latency_memory_s > 50 * decode.latency_compute_s
    assert decode.arithmetic_intensity.magnitude < 2
    assert prefill.bottleneck == "Compute"
    assert prefill.arithmetic_intensity.magnitude > 100 * decode.arithmetic_intensity.magnitude
    # with launches removed (fused), decode is still not compute-bound
    fused = Engine.solve(Models.GPT2, H100, phase="decode", seq_len=1024, fused=True)
    assert fused.bottleneck != "Compute"


def test_gpt2_default_phase_is_decode_at_context_length():
    prof = Engine.solve(Models.GPT2, H100)
    assert prof.phase == "decode"
    assert prof.seq_len == 1024
    assert prof.kv_cache_bytes == Models.GPT2.kv_cache_bytes(1024)


def test_gpt2_decode_weight_read_floor():
    """Decode time is at least the FP16 weight read: params x 2 B / 3.35 TB/s."""
    prof = Engine.solve(Models.GPT2, H100, phase="decode", seq_len=1)
    floor = Models.GPT2.params * 2 / H100.memory.bandwidth.m_as("B/s")
    assert prof.latency_memory_s >= floor
    assert prof.latency_memory_s == pytest.approx(floor, rel=0.1)


def test_dlrm_fp32_does_not_fit_h100():
    prof = Engine.solve(Models.DLRM, H100, precision="fp32")
    assert prof.weight_bytes > 100e9
    assert not prof.feasible
    over = prof.over.m_as("B")
    assert over == pytest.approx(prof.memory_footprint_bytes - 80e9)
    assert over > 20e9
    assert prof.memory_footprint.m_as("GB") > 100


def test_gpt2_xl_feasibility_flips_with_batch():
    small = Engine.solve(Models.GPT2, H100, batch_size=1, seq_len=1024)
    big = Engine.solve(Models.GPT2, H100, batch_size=256, seq_len=1024)
    assert small.feasible and small.over.m_as("B") == 0
    assert not big.feasible and big.over.m_as("GB") > 0
    assert big.kv_cache_bytes == 256 * small.kv_cache_bytes
    assert big.weight_bytes == small.weight_bytes


def test_feasible_exactly_at_capacity_boundary():
    prof = Engine.solve(Models.GPT2, H100, batch_size=1)
    assert prof.feasible == (prof.memory_footprint_bytes <= prof.capacity_bytes)
    assert prof.capacity_bytes == 80e9


SWEEP_MODELS = ["ResNet50", "MobileNetV2", "GPT2", "BERTBase", "DLRM", "KWS", "MNISTCNN"]


@pytest.mark.parametrize("name", SWEEP_MODELS)
@pytest.mark.parametrize("fused", [False, True])
def test_sweep_numpy_and_pure_python_identical(name, fused):
    pytest.importorskip("numpy")
    model = Models.get(name)
    kw = {"seq_lens": [1, 64, 512]} if model.is_lm else {}
    batches = [1, 2, 3, 7, 64, 333, 4096]
    a = Engine.sweep(model, H100, batch_sizes=batches, fused=fused, use_numpy=True, **kw)
    b = Engine.sweep(model, H100, batch_sizes=batches, fused=fused, use_numpy=False, **kw)
    assert a == b
    for v in a.values():
        assert isinstance(v, list)


@pytest.mark.parametrize("name", ["ResNet50", "GPT2"])
def test_sweep_agrees_with_solve(name):
    model = Models.get(name)
    kw = {"seq_lens": [128]} if model.is_lm else {}
    out = Engine.sweep(model, H100, batch_sizes=[1, 4, 16], **kw)
    for i, b in enumerate(out["batch"]):
        seq = out["seq_len"][i]
        prof = Engine.solve(model, H100, batch_size=b, seq_len=seq)
        assert out["latency_s"][i] == pytest.approx(prof.latency_s, rel=1e-12)
        assert out["compute_s"][i] == pytest.approx(prof.latency_compute_s, rel=1e-12)
        assert out["memory_s"][i] == pytest.approx(prof.latency_memory_s, rel=1e-12)
        assert out["dispatch_s"][i] == pytest.approx(prof.latency_dispatch_s, rel=1e-12)
        assert out["flops"][i] == prof.flops
        assert out["mfu"][i] == pytest.approx(prof.mfu, rel=1e-12)


def test_sweep_grid_shape():
    out = Engine.sweep(Models.GPT2Small, H100, batch_sizes=[1, 2, 4], seq_lens=[16, 32])
    assert out["batch"] == [1, 2, 4, 1, 2, 4]
    assert out["seq_len"] == [16, 16, 16, 32, 32, 32]
    assert all(len(v) == 6 for v in out.values())


def test_efficiency_scales_compute_only():
    a = Engine.solve(Models.ResNet50, H100, batch_size=64, efficiency=0.5)
    b = Engine.solve(Models.ResNet50, H100, batch_size=64, efficiency=0.25)
    assert b.latency_compute_s == pytest.approx(2 * a.latency_compute_s)
    assert b.latency_memory_s == a.latency_memory_s
    assert b.sustained_ridge_point == pytest.approx(a.sustained_ridge_point / 2)


def test_profile_weight_bytes_and_table():
    prof = Engine.solve(Models.ResNet50, H100, batch_size=2, precision="fp32")
    assert prof.weight_bytes == Models.ResNet50.params * 4
    table = prof.table()
    assert len(table) == len(Models.ResNet50.rows())
    assert set(table["bound"]) <= {"Compute", "Memory", "Dispatch"}
    assert float(table["time_us"].sum()) == pytest.approx(prof.latency_s * 1e6, rel=1e-9)


def test_single_layer_solve():
    layer = L.Dense(in_features=2048, out_features=2048, bias=False)
    prof = Engine.solve(layer, A100, precision="fp32")
    assert prof.model_name == "Dense"
    assert prof.bottleneck in ("Memory", "Dispatch")
    assert prof.flops == layer.flops()
    assert prof.bytes_moved == layer.bytes_moved(1, "fp32")
    assert prof.weight_bytes == layer.params * bytes_per_value("fp32")


# --------------------------------------------------------------------------------------------
# The seed labs' API contract, exactly as they call it
# --------------------------------------------------------------------------------------------


def test_seed_lab_hardware_contract():
    hw = mlsysim.Hardware.Cloud.H100
    assert hw.memory.capacity.m_as("GB") == 80
    assert hw.compute.peak_flops.m_as("TFLOPs/s") == pytest.approx(989.5)
    assert hw.memory.bandwidth.m_as("GB/s") == pytest.approx(3350)
    assert hw.dispatch_tax.m_as("ms") == pytest.approx(0.005)
    edge = mlsysim.Hardware.Edge.JetsonOrinNX
    assert edge.memory.capacity.m_as("GB") == 16
    phone = mlsysim.Hardware.Mobile.iPhone15Pro
    assert phone.memory.capacity.m_as("GB") == 8
    for dev in (hw, edge, phone):
        for v in (
            dev.memory.capacity.m_as("GB"),
            dev.compute.peak_flops.m_as("TFLOPs/s"),
            dev.memory.bandwidth.m_as("GB/s"),
            dev.dispatch_tax.m_as("ms"),
        ):
            assert isinstance(v, int | float) and math.isfinite(v) and v > 0


def test_seed_lab_model_and_engine_contract():
    from mlsysim.core.engine import Engine as CoreEngine

    assert CoreEngine is Engine
    for model in (mlsysim.Models.ResNet50, mlsysim.Models.GPT2, mlsysim.Models.MobileNetV2):
        for hw in (
            mlsysim.Hardware.Cloud.H100,
            mlsysim.Hardware.Edge.JetsonOrinNX,
            mlsysim.Hardware.Mobile.iPhone15Pro,
        ):
            prec = "fp16"
            res = CoreEngine.solve(model, hw, batch_size=8, precision=prec, efficiency=0.5)
            ai = res.arithmetic_intensity.magnitude
            assert isinstance(ai, float)
            # FLOPs from the model (LMs: one decoded token per sequence at the full context)
            kw = {"seq_len": model.default_seq_len, "phase": "decode"} if model.is_lm else {}
            assert res.flops == model.flops(8, **kw)
            assert ai == pytest.approx(res.flops / res.bytes_moved)
            peak = hw.compute.peak(prec).m_as("FLOP/s")
            assert res.mfu == pytest.approx(res.flops / (res.latency_s * peak))
            assert 0 < res.mfu <= 0.5 + 1e-12
            # the label is the largest of the three attributed terms (tests/test_labels.py
            # checks the thresholds on both sides): launches are kernels x the registry's tax
            assert res.latency_dispatch_s == pytest.approx(
                sum(r.layer.kernels * r.count for r in model.rows(*kw.values()))
                * hw.dispatch_tax.m_as("s")
            )
            assert res.bottleneck in ("Compute", "Memory", "Dispatch")
    assert mlsysim.Models.GPT2.name == "GPT-2 XL"
    assert mlsysim.Models.GPT2XL is mlsysim.Models.GPT2


def test_solve_and_sweep_aliases():
    assert mlsysim.solve is Engine.solve
    assert mlsysim.sweep is Engine.sweep
    assert Engine.solve(Models.ResNet50, "H100").device is H100


def test_flash_builders_change_prefill_bytes_not_flops():
    eager, tiled = M.gpt2(1600, 48, 25), M.gpt2(1600, 48, 25, flash=True)
    assert eager.flops(seq_len=1024) == tiled.flops(seq_len=1024)
    a = Engine.solve(eager, "H100", phase="prefill", seq_len=1024, efficiency=1.0)
    b = Engine.solve(tiled, "H100", phase="prefill", seq_len=1024, efficiency=1.0)
    assert b.bytes_moved < a.bytes_moved and b.latency_s < a.latency_s
    assert (a.bottleneck, b.bottleneck) == ("Memory", "Compute")


def test_composite_layer_is_solved_leaf_by_leaf():
    block = L.TransformerBlock(d_model=512, n_heads=8, d_ff=2048, seq_len=4096)
    p = Engine.solve(block, "H100")
    assert len(p.layers) == len(block.rows())
    assert p.flops == block.flops()


def test_time_split_attributes_each_row_to_its_larger_roof():
    """Profile.time_split: (compute-bound rows, memory-bound rows, launches). A single FP32 dense
    layer at batch 1 on the H100 is memory-bound: bytes / BW, no compute share, one launch."""
    from mlsysim.layers import Dense

    layer = Dense(in_features=2048, out_features=2048, bias=False)
    p = Engine.solve(layer, "H100", precision="fp32")
    comp, mem, launch = p.time_split
    assert comp == 0.0
    assert mem == pytest.approx((2048 * 2048 + 2 * 2048) * 4 / 3.35e12)
    assert launch == pytest.approx(5e-6)
    r = Engine.solve(Models.ResNet50, "CortexA53Camera", precision="int8")
    assert sum(r.time_split) == pytest.approx(r.latency_s)
    assert r.time_split[0] > 0.99 * Models.ResNet50.flops() / 2e9


def test_launch_cost_for_speedup_and_bad_input():
    from mlsysim.engine import launch_cost_for_speedup, with_launch_cost

    r = Engine.solve(Models.ResNet50, "H100")
    m = Engine.solve(Models.MobileNetV2, "H100")
    t = launch_cost_for_speedup(r, m, 1.3)
    dev = with_launch_cost("H100", t)
    assert Engine.solve(Models.ResNet50, dev).latency_s / Engine.solve(
        Models.MobileNetV2, dev
    ).latency_s == pytest.approx(1.3)
    assert launch_cost_for_speedup(r, m, 100.0) is None  # no cost >= 0 gives a 100x speedup
    for bad in (-1.0, float("nan"), True):
        with pytest.raises(ValueError, match="seconds"):
            with_launch_cost("H100", bad)
    with pytest.raises(ValueError, match="speedup"):
        launch_cost_for_speedup(r, m, 0)


# ------------------------------------------------------------- max_batch (one rule for 6.7, 6.10)
def _largest_feasible(model, dev, precision, seq_len=None, reserve=0.0, top=1 << 16):
    """Ground truth by search: the largest batch whose solved footprint + reserve fits."""
    from mlsysim.engine import Engine as Eng

    def fits(b):
        p = Eng.solve(model, dev, b, precision, seq_len=seq_len)
        if not p.feasible:
            return False
        mem = p.device.memory
        if mem.flash is not None and mem.sram is not None:
            return p.activation_bytes + p.kv_cache_bytes + reserve <= mem.sram.m_as("B")
        return p.memory_footprint_bytes + reserve <= p.capacity_bytes

    if not fits(1):
        return 0
    lo, hi = 1, top
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo


@pytest.mark.parametrize(
    "model, dev, precision, seq_len, reserve",
    [
        (M.Models.Llama7B, "A100_40GB", "fp16", 4096, 0.0),
        (M.Models.Llama7B, "A100_40GB", "fp16", 4096, 1e9),
        (M.Models.Llama7B, "JetsonOrinNX", "int8", 2048, 2.5e9),
        (M.Models.Llama7B, "JetsonOrinNX", "fp16", 32768, 0.0),  # not even one: 0
        (M.Models.GPT2, "H100", "fp16", 1024, 0.0),
        (M.Models.ResNet50, "A100", "fp16", None, 3e9),
        (M.Models.KWS, "STM32H743", "int8", None, 0.0),  # SRAM-bound on a microcontroller
        (M.Models.KWS, "STM32H743", "int8", None, 100e3),
    ],
)
def test_max_batch_is_the_largest_batch_that_fits(model, dev, precision, seq_len, reserve):
    from mlsysim.engine import max_batch

    n = max_batch(model, dev, precision, seq_len=seq_len, reserve_bytes=reserve)
    assert n == _largest_feasible(model, dev, precision, seq_len, reserve)
    assert n >= 0


def test_max_batch_reserve_counts_and_refuses_bad_input():
    from mlsysim.engine import RUNTIME_RESERVE_BYTES, max_batch

    llama = M.Models.Llama7B
    free = max_batch(llama, "A100_40GB", seq_len=4096)
    kept = max_batch(llama, "A100_40GB", seq_len=4096, reserve_bytes=RUNTIME_RESERVE_BYTES)
    assert (free, kept) == (12, 11)  # 6.7 D's answer, and 11 beside 6.10's 1 GB reserve
    assert max_batch(llama, "A100_40GB", seq_len=4096, reserve_bytes=40e9) == 0
    for bad in (-1.0, math.nan, math.inf, "1e9", None):
        with pytest.raises(ValueError, match="reserve_bytes"):
            max_batch(llama, "A100_40GB", seq_len=4096, reserve_bytes=bad)
