"""Each transfer question of 6.6-6.10 and Lab 06 (issue 10: one unseen case after every reveal) has
the answer its part's own controls show: the claim in the correct option is recomputed here
through the core, never copied from the part."""

from __future__ import annotations

import math

import pytest

import mlsysim.layers as L
from mlsysim import Q_, Engine, Hardware, Models, energy
from mlsysim.labs.components import fmt_time
from mlsysim.labs.parts import (
    lab06,
    s06_06_attention,
    s06_07_transformers,
    s06_08_dlrm,
    s06_09_choosing,
)
from mlsysim.labs.parts import s06_10_fallacies as s610

MODS = (s06_06_attention, s06_07_transformers, s06_08_dlrm, s06_09_choosing, s610, lab06)


@pytest.mark.parametrize("mod", MODS, ids=[m.__name__.rsplit(".", 1)[-1] for m in MODS])
def test_every_part_has_a_transfer_question(mod):
    for x in mod.PARTS:
        t = getattr(mod, f"TRANSFER_{x}")
        assert t.kind == "transfer" and t.answer in t.options


def test_6_6_transfers():
    a64, a128 = (L.Attention(d_model=d, n_heads=1, seq_len=512) for d in (64, 128))
    assert (
        a64.score_bytes() == a128.score_bytes() and a128.macs() == 2 * a64.macs()
    )  # A: bytes same, MACs 2x
    h12, h32 = (
        L.Attention(d_model=h * 64, n_heads=h, seq_len=4096).score_bytes() for h in (12, 32)
    )
    assert h32 / h12 == pytest.approx(32 / 12)  # B: linear in heads
    h100 = s06_06_attention.longest_scores("napkin", 80e9)
    iphone = s06_06_attention.longest_scores(
        "napkin", Hardware.get("iPhone15Pro").memory.capacity.m_as("B")
    )
    assert (
        iphone / h100 == pytest.approx(math.sqrt(8 / 80), rel=0.01) and round(iphone, -3) == 18_000
    )  # C
    f1, f2 = (L.Attention(d_model=768, n_heads=12, seq_len=s, flash=True) for s in (8192, 16384))
    assert f2.bytes_moved() == 2 * f1.bytes_moved() and f2.flops() == 4 * f1.flops()  # D


def test_6_7_transfers():
    p = Engine.solve(Models.Llama7B, "H100", phase="decode", seq_len=1024, efficiency=0.5)
    assert p.bottleneck == "Memory"  # A: 13.5 GB at 3.35 TB/s outweighs 515 launches of 5 µs
    assert s06_07_transformers.launch_flip_ns("Llama7B", "H100", 1024) == pytest.approx(
        8000, rel=0.02
    )
    mfu = {
        d: Engine.solve(Models.Llama7B, d, phase="decode", seq_len=2048, efficiency=0.5).mfu
        for d in ("A100", "H100")
    }
    assert mfu["A100"] > 2 * mfu["H100"]  # B: 2.04/312 vs 3.35/989.5
    x = s06_07_transformers.crossings(Hardware.get("A100_40GB").memory.capacity.m_as("B"))
    assert x["kv_fit"] == pytest.approx(
        120_000, rel=0.01
    )  # C: the cache fills 40 GB near 120k tokens
    assert s06_07_transformers.max_users(32, "H100", 2048) == 61  # D: MHA
    assert 3.5 < s06_07_transformers.max_users(8, "H100", 2048) / 61 < 4.5  # ~4x with 8 KV heads


def test_6_8_transfers():
    assert (
        s06_08_dlrm.table(10**8, 64).weight_bytes("fp16") == 10**8 * 64 * 2 == 0.16 * 80e9
    )  # A: 16%
    k1, k8 = (s06_08_dlrm.gather_bytes_per_request(s06_08_dlrm.dlrm_with(k)) for k in (1, 8))
    assert k8 == 8 * k1  # B
    assert (
        s06_08_dlrm.largest_keep_that_fits("int8", Hardware.get("H100").memory.capacity.m_as("B"))
        == 56
    )  # C
    plan = s06_08_dlrm.shard_plan(4, 90, 4096, 8)
    assert (
        plan["per_device"] == pytest.approx(140.8e9) and plan["per_device"] > plan["usable"] == 72e9
    )  # D
    assert plan["needed"] == 8


def test_6_9_transfers():
    r = Models.ResNet50
    assert s06_09_choosing.table8_proxy("ResNet50", 64) == pytest.approx(
        64 * s06_09_choosing.table8_proxy("ResNet50")
    )
    g = Models.GPT2
    kv = g.kv_cache_bytes(1024, 64, "fp16")
    assert (
        kv == pytest.approx(64 * 1024 * 2 * 48 * 1600 * 2) and kv + g.weight_bytes("fp16") < 80e9
    )  # B
    conv = s06_09_choosing.stage_conv("layer4")
    assert (
        conv.output_size == (7, 7) and conv.weight_reuse == 49
    )  # C: a 7x7 map reuses each weight 49 times
    assert energy.move_vs_compute("fp32", "dram", 49) == pytest.approx(640 / 4.6 / 49)
    assert (
        energy.move_vs_compute("fp32", "dram", 49)
        > 1
        > energy.move_vs_compute("fp32", "dram", 3 * 49)
    )
    plan = s06_09_choosing.camera_plan("mnv2_100")
    assert (
        plan["napkin_s"] == pytest.approx(Models.MobileNetV2.flops() / 2e9)
        and plan["engine_s"] < 0.5
    )  # D
    assert r.flops() / 2e9 > 0.5


def test_6_10_transfers():
    v = s610.part_a("CortexA53Camera", 1)
    ratio = s610.vit().flops() / Models.ResNet50.flops()
    lat = [c for c in v.cards if c.label == "Latency ViT-B/16"][0]
    assert lat.value == "17.58 s" and round(ratio, 1) == 4.3  # A: compute-bound, follows FLOPs
    t2k, t8k = (
        Engine.solve(s610._seq_layers(s)[2], "H100", precision="fp16").latency_s
        for s in (2048, 8192)
    )
    assert 4 < t8k / t2k < 16  # B
    _, flash, _ = s610.hybrid(896, True)
    assert (
        Engine.solve(
            flash, "H100", batch_size=8, precision="fp16", efficiency=0.5, fused=True
        ).bottleneck
        == "Compute"
    )
    assert s610.max_users(2048, "fp16", "A100_40GB", 1e9) == 23  # D


def test_lab06_transfers():
    assert (
        L.Dense(in_features=448 * 448 * 3, out_features=4000).weight_bytes("int8") == 2_408_452_000
    )  # A
    live = L.Attention(d_model=8192, n_heads=64, seq_len=131072, flash=True).live_elements(1) * 2
    assert live == 4 * 131072 * 8192 * 2 < 80e9  # B: 8.6 GB
    ratios = {}
    for dev in ("H100", "JetsonOrinNX"):
        deep, flat = (
            Engine.solve(lab06.depth_model(d), dev, precision="fp16", efficiency=0.5).latency_s
            for d in (128, 2)
        )
        ratios[dev] = deep / flat
    assert ratios["H100"] == pytest.approx(ratios["JetsonOrinNX"], rel=0.1)  # C: similar ratio
    v = lab06.part_d(128, "H100", False)  # D, as asked: every lighthouse fits at 128
    best = max(v.cards, key=lambda c: float(c.value.split()[1].rstrip("%")))
    assert best.label == "ResNet-50"
    # at 256 GPT-2 XL's caches do not fit: its card says so instead of quoting an MFU
    gpt2 = next(c for c in lab06.part_d(256, "H100", False).cards if c.label == "GPT-2 XL")
    assert gpt2.value == "does not fit" and gpt2.status == "bad" and gpt2.fact is None


def test_lab06_c_names_the_launch_cost_behind_its_answer():
    """PRED_C's '>10x' holds from a few ns per launch up: the flip, solved exactly (it was the
    next whole nanosecond, printed as '4.00 ns' for a crossing near 3.1 ns), is checked against
    the engine re-solved just below and just above it, and is far below any real launch cost."""
    t = lab06.tenfold_launch_s("H100", "fp16", 0.5)

    def ratio(cost_s):
        dev = Hardware.get("H100").model_copy(update={"dispatch_tax": Q_(cost_s, "s")})
        deep, flat = (
            Engine.solve(lab06.depth_model(d), dev, precision="fp16", efficiency=0.5).latency_s
            for d in (128, 2)
        )
        return deep / flat

    assert ratio(t) == pytest.approx(10.0, rel=1e-9)
    assert ratio(0.99 * t) < 10 < ratio(1.01 * t) and 1e-9 < t < 1e-6
    v = lab06.part_c(128, "H100", 0.5, "registry")
    assert f"at {fmt_time(t)} per kernel" in v.summary
    card = next(c for c in v.cards if c.label.startswith("128 × 32"))
    assert card.value == f"{fmt_time(t)} per launch"


def test_lab06_transfer_d_states_the_caches_bytes_and_the_capacity_convention():
    """At 256 sequences GPT-2 XL's KV caches alone are 80.5 GB: over the H100's 80 GB as the
    registry counts it (80 x 10^9 B), though under 80 GiB (6.6 part C's distinction), so the
    feedback says which 80 GB it means (it said the caches, '80 GB', would not fit)."""
    p = Engine.solve(
        Models.get("GPT2"), Hardware.get("H100"), batch_size=256, precision="fp16", efficiency=1.0
    )
    cap = Hardware.get("H100").memory.capacity.m_as("B")
    assert cap == 80e9 < p.kv_cache_bytes < 80 * 2**30
    # (the batch-128 transfer that quoted this moved beyond Part D's controls, to INT8, in the
    # issue-32 rewrite; the registry convention it relied on stays asserted here)
