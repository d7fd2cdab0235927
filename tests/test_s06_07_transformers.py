"""Section 6.7 (Transformers): the chapter's numbers that labs/s06_07_transformers.py shows,
recomputed through mlsysim and the notebook's parts module.

Line numbers (L…) refer to shared/seeds/chapter06_network_architectures.txt; "#n" is the claim row
of shared/seeds/notes/chapter06_digest_primary_edition.md section 3a. Every expected value is the
chapter's number; every computed value goes through the core (models, layers, engine, registry).
"""

from __future__ import annotations

import math

import pytest

from mlsysim import Q_, Engine, Hardware, Models, weight_only_intensity
from mlsysim import layers as L
from mlsysim.hardware import Memory
from mlsysim.labs.parts import s06_07_transformers as lab

H100 = Hardware.get("H100")
A100 = Hardware.get("A100")
GB = 1e9


# --------------------------------------------------------------------------------------------
# KV cache sizes (L1105 footnote 26, L1117, L1580, self-check L1863 / L1975)
# --------------------------------------------------------------------------------------------


def test_gpt2_xl_kv_cache_is_307_2_kb_per_token():
    """#92 (L1117, Table 7): 2 x 48 layers x 1,600 x 2 B = 307.2 KB per token in FP16."""
    assert Models.GPT2.kv_cache_bytes(1, 1, "fp16") == 307_200


def test_7b_kv_cache_per_2048_token_request_is_1_07_gb():
    """#89, #98: 32 layers x 2 x 32 heads x 2,048 x 128 x 2 B = 1,073,741,824 B ~ 1.07 GB (1 GiB)."""
    kv = Models.Llama7B.kv_cache_bytes(2048, 1, "fp16")
    cfg = Models.Llama7B.config
    assert (cfg["n_layers"], cfg["n_heads"], cfg["d_model"] // cfg["n_heads"]) == (32, 32, 128)
    assert kv == 1_073_741_824 == Q_(1, "GiB").m_as("B")
    assert round(kv / GB, 2) == 1.07


def test_8_users_8_6_gb_and_32_users_34_gb_vs_14_gb_weights():
    """#89, #98: 8 users hold ~8.6 GB; 32 users 'about 34.3 GB', more than twice ~14 GB of weights.
    The exact 32-user total is 34,359,738,368 B = 34.36 GB: the chapter's 34.3 truncates it (32 x the
    rounded 1.07 GB would be 34.24). Llama-2 7B has 6.74 B params (13.5 GB in FP16; the chapter
    rounds a '7B model' to 14 GB); the cache is 2.5x the weights either way."""
    m = Models.Llama7B
    assert round(m.kv_cache_bytes(2048, 8, "fp16") / GB, 1) == 8.6
    kv32 = m.kv_cache_bytes(2048, 32, "fp16")
    assert round(kv32 / GB, 2) == 34.36
    assert math.floor(kv32 / GB * 10) / 10 == 34.3
    assert round(m.weight_bytes("fp16") / GB) == 13
    assert kv32 > 2 * m.weight_bytes("fp16") and kv32 > 2 * 14 * GB
    assert lab.PRED_D.answer == "34"


def test_pitfall_2_to_4_users_hold_2_to_4_gb():
    """#152 (L1580): 'at 2-4 users, the cache alone consumes 2 GB-4 GB' (exactly 2.15-4.29 GB)."""
    m = Models.Llama7B
    assert round(m.kv_cache_bytes(2048, 2, "fp16") / GB, 2) == 2.15
    assert round(m.kv_cache_bytes(2048, 4, "fp16") / GB, 2) == 4.29


def test_serving_pitfall_feasibility_from_engine():
    """Part D: the engine's footprint is weights + KV + activations, and max_users is the exact
    boundary of Engine.solve(...).feasible."""
    u = lab.max_users(32, "H100", 2048)
    assert 32 < u < 64
    m = lab.gqa_model(32)
    assert Engine.solve(m, H100, batch_size=u, phase="decode", seq_len=2048).feasible
    assert not Engine.solve(m, H100, batch_size=u + 1, phase="decode", seq_len=2048).feasible
    assert lab.max_users(32, "JetsonOrinNX", 32768) == 0  # the weights + one cache already overflow


@pytest.mark.parametrize("kv_heads", [32, 8, 4, 1])
def test_gqa_shrinks_the_cache_by_n_heads_over_kv_heads(kv_heads):
    """L1117 / footnote 26: grouped-query attention shares K/V across head groups, so the cache is
    n_heads / kv_heads times smaller (32 -> 1 is multi-query attention, 32x)."""
    mha = Models.Llama7B.kv_cache_bytes(2048, 1, "fp16")
    gqa = lab.gqa_model(kv_heads).kv_cache_bytes(2048, 1, "fp16")
    assert mha / gqa == 32 / kv_heads
    block = L.TransformerBlock(
        d_model=4096, n_heads=32, d_ff=11008, seq_len=1, kv_heads=kv_heads, variant="llama"
    )
    assert block.kv_cache_bytes_per_token("fp16") * 32 == gqa // 2048


# --------------------------------------------------------------------------------------------
# Prefill vs decode (L1097, L1117, Table 9, self-check L1846 / L1882)
# --------------------------------------------------------------------------------------------


def test_decode_intensity_is_1_flop_per_byte_in_fp16():
    """#85 (L1097): batch-1 GEMV in FP16 = 2 FLOPs / 2 B = 1.0 FLOP/B (0.5 in FP32)."""
    assert weight_only_intensity(Models.GPT2, "fp16") == pytest.approx(1.0, rel=0.02)
    assert weight_only_intensity(Models.GPT2, "fp32") == pytest.approx(0.5, rel=0.02)
    p = Engine.solve(Models.GPT2, H100, phase="decode", seq_len=1)
    assert round(p.arithmetic_intensity.magnitude, 1) == 1.0


def test_prefill_intensity_is_about_180x_decode_not_1024x():
    """PRED_A: prefill of 1,024 tokens reuses each weight 1,024 times, but it also moves
    activations and S × S scores, so its intensity is ~179 FLOP/B against decode's ~1.0."""
    pre = Engine.solve(Models.GPT2, H100, phase="prefill", seq_len=1024, efficiency=lab.EFFICIENCY)
    dec = Engine.solve(Models.GPT2, H100, phase="decode", seq_len=1024, efficiency=lab.EFFICIENCY)
    ratio = pre.arithmetic_intensity.magnitude / dec.arithmetic_intensity.magnitude
    assert 150 < ratio < 210 and ratio < 1024
    assert lab.PRED_A.answer == "180x"


def test_self_check_ridge_156_on_the_hypothetical_accelerator():
    """#97 (L1846): 312 TFLOP/s over 2.0 TB/s = 156 FLOP/B, and the bandwidth roof at 1 FLOP/B is
    2.0 TFLOP/s. (The A100 80 GB of the registry has 2,039 GB/s: 153 FLOP/B.)"""
    dev = A100.model_copy(update={"memory": Memory(capacity=(80, "GB"), bandwidth=(2.0, "TB/s"))})
    assert dev.ridge_point("fp16").magnitude == pytest.approx(156.0)
    assert (dev.memory.bandwidth * Q_(1, "FLOP/B")).m_as("TFLOP/s") == pytest.approx(2.0)
    assert A100.ridge_point("fp16").magnitude == pytest.approx(153.0, abs=0.1)


def test_gpt2_xl_weight_read_0_9_ms_and_launches_a_few_times_longer():
    """#93, #94 (L1117): GPT-2 XL reads its FP16 weights in ~0.9 ms on a data-center accelerator,
    'a few times shorter than the time to launch the step's many small kernels'. The engine: 0.93 ms
    of memory vs 677 kernels x 5 us = 3.4 ms of dispatch (3.6x) on the H100: dispatch-bound."""
    p = Engine.solve(Models.GPT2, H100, phase="decode", seq_len=1, efficiency=lab.EFFICIENCY)
    assert round(p.latency_memory_s * 1e3, 1) == 0.9
    assert 2 <= p.latency_dispatch_s / p.latency_memory_s <= 5
    assert p.bottleneck == "Dispatch"
    assert sum(t.kernels for t in p.layers) == 677


def test_prefill_compute_bound_decode_bandwidth_bound():
    """Figure 13 / Table 9: prefill 'usually compute-bound', decode 'usually bandwidth-bound at small
    batch'; L1117: bandwidth dominates decode cleanly as models grow (7B: memory, not dispatch)."""
    for key in ("GPT2", "Llama7B"):
        pre = Engine.solve(
            Models.get(key), H100, phase="prefill", seq_len=1024, efficiency=lab.EFFICIENCY
        )
        assert pre.bottleneck == "Compute"
        assert (
            pre.arithmetic_intensity.magnitude
            > H100.sustained_ridge_point("fp16", lab.EFFICIENCY).magnitude
        )
    dec = Engine.solve(
        Models.Llama7B, H100, phase="decode", seq_len=1024, efficiency=lab.EFFICIENCY
    )
    assert dec.bottleneck == "Memory"


def test_batch1_decode_is_far_from_peak():
    """Self-check T/F (L1882): 'batch-1 decode achieves near-peak TFLOP/s' is false."""
    for key in ("GPT2", "Llama7B"):
        p = Engine.solve(
            Models.get(key), H100, phase="decode", seq_len=2048 if key == "Llama7B" else 1024
        )
        assert p.mfu < 0.01
    assert lab.PRED_B.answer == "false"


def test_batching_amortizes_weights_not_kv_caches():
    """L1117: 'Batching also amortizes weights across requests but not caches'. Engine bytes are
    exactly W + B x A, A covers each sequence's own KV cache, and at a 2,048-token context the
    per-token intensity stays under the ridge even at batch 256."""
    m = Models.Llama7B
    shared, per_seq = lab.decode_bytes_split(m, H100, 2048)
    kv = m.kv_cache_bytes(2048, 1, "fp16")
    assert kv <= per_seq < 1.05 * kv
    p64 = Engine.solve(
        m, H100, batch_size=64, phase="decode", seq_len=2048, efficiency=lab.EFFICIENCY
    )
    assert p64.bytes_moved == pytest.approx(shared + 64 * per_seq)
    p256 = Engine.solve(
        m, H100, batch_size=256, phase="decode", seq_len=2048, efficiency=lab.EFFICIENCY
    )
    assert p256.bottleneck == "Memory"
    assert (
        p256.arithmetic_intensity.magnitude
        < H100.sustained_ridge_point("fp16", lab.EFFICIENCY).magnitude
    )
    assert shared / kv == pytest.approx(
        12.3, abs=0.05
    )  # KV bytes pass weight bytes per token near batch 12


# --------------------------------------------------------------------------------------------
# Figure 14 and the attention/dense crossover (L1073, L1113-1115)
# --------------------------------------------------------------------------------------------


def test_figure14_kv_overtakes_weights_near_10000_tokens():
    """#90: 'The cache overtakes the weights near 10,000 tokens' (3.12 GB / 307.2 KB = 10,141)."""
    assert lab.crossings(H100.memory.capacity.m_as("B"))["kv_over_weights"] == 10_141


def test_figure14_scores_fill_80_gb_at_40000_not_41000():
    """#91 and digest 3b.4: the chapter says one layer's FP16 scores (25 heads) fill an accelerator
    'near 41,000 tokens'. The registry's 80 GB (decimal) devices are filled at exactly 40,000 tokens
    (25 x 40,000^2 x 2 B = 80.0 GB); at 41,000 tokens the scores are 84.05 GB, already over. The
    chapter's 41,000 is near where 80 **GiB** (85.9 GB) fills: 41,448 tokens fit, 41,449 do not."""
    fig14 = lab.figure14_device_crossings()
    assert fig14 == {"GB": 40_000, "GiB": 41_448}  # longest fits, as 6.6 reports them (one number)
    assert lab.score_bytes(40_000) == H100.memory.capacity.m_as("B")
    assert round(lab.score_bytes(41_000) / GB, 2) == 84.05


def test_figure14_scores_limit_first_then_the_cache():
    """Checkpoint 6.5: with materialized scores, one layer's scores set the limit first (40,000
    tokens); with tiled attention the KV cache does, near 250,000 tokens on 80 GB."""
    x = lab.crossings(H100.memory.capacity.m_as("B"))
    assert x["scores_fit"] < x["kv_fit"]
    assert x["kv_fit"] == 250_275
    assert lab.tiled_live_bytes(x["kv_fit"]) < x["kv_fit"] * Models.GPT2.kv_cache_bytes_per_token(
        "fp16"
    )
    assert lab.PRED_C.answer == "scores"


def test_attention_overtakes_dense_at_6d_9600_tokens():
    """#82 (L1073): 12 S d^2 dense vs 2 S^2 d attention: attention dominates past S = 6d, near 9,600
    tokens for GPT-2 XL (d = 1,600). Counted from TransformerBlock rows."""
    assert lab.crossings(H100.memory.capacity.m_as("B"))["attention_over_dense"] == 6 * 1600
    attn, dense = lab.block_macs(9600)
    assert attn == dense
    attn, dense = lab.block_macs(9601)
    assert attn > dense


# ---------------------------------------------------------------------------------------------
# Issue 10 #2, #11 and the engine-assumption rule (6.7 A)
# ---------------------------------------------------------------------------------------------


def test_part_a_names_the_sustained_ridge_and_the_peak_ridge_apart():
    """Issue 10 #2: 6.7 A called peak × 0.5 / BW = 148 'the ridge'; the chapter's ridge point is
    the un-derated 989.5 / 3.35 = 295 FLOP/B. Both appear, each under its own name."""
    from viewtext import render, view_text

    from mlsysim.labs.vocab import LABELS

    text = view_text(render(lab, "A"))
    assert f"{LABELS['ridge_sustained']} = " in text and "= 148 FLOP/B" in text
    assert f"{LABELS['ridge_peak']}: 295" in text
    assert round(989.5 / 3.35) == 295 and round(989.5 * 0.5 / 3.35) == 148


def test_part_a_shows_the_launch_cost_at_which_the_decode_verdict_flips():
    """GPT-2 XL decode on an H100: the memory term is 1.03 ms for 677 kernels, so launches outweigh
    it from 1.03 ms / 677 ≈ 1.5 µs per kernel; at 1 µs decode is memory-bound, at 2 µs launch-bound."""
    flip = lab.launch_flip_ns("GPT2", "H100", 1024)
    dec = Engine.solve(Models.GPT2, H100, phase="decode", seq_len=1024, efficiency=lab.EFFICIENCY)
    kernels = sum(t.kernels for t in dec.layers)
    assert kernels == 677
    assert flip * 1e-9 == pytest.approx(dec.latency_memory_s / kernels, rel=0.01)
    assert "memory-bound" in lab.part_a("GPT2", "H100", 1024, "1").cards[1].note
    assert "dispatch-bound" in lab.part_a("GPT2", "H100", 1024, "2").cards[1].note


def test_part_b_reports_no_mfu_for_a_batch_that_does_not_fit():
    """Issue 10 #11: 256 sequences × 8,192 tokens of Llama-2 7B need 256 × 4.29 GB of KV cache
    (32 layers × 2 × 4,096 × 8,192 × 2 B each) ≈ 1.1 TB on an 80 GB H100: it does not run."""
    from viewtext import render, view_text

    kv = Models.Llama7B.kv_cache_bytes(8192, 256, "fp16")
    assert kv == 256 * 32 * 2 * 4096 * 8192 * 2
    v = render(lab, "B", batch=256, context=8192)
    text = view_text(v)
    assert "does not run" in text and "MFU 0." not in text
    assert next(c for c in v.cards if c.label == "MFU").value == "does not run"


def test_part_d_does_not_call_mha_one_times_smaller():
    """Issue 10 #11: at 32 KV heads (MHA) the card read '1× smaller than MHA'."""
    from viewtext import render, view_text

    text = view_text(render(lab, "D", kv_heads="32"))
    assert "1× smaller" not in text and "1x smaller" not in text
    assert "4× smaller" in view_text(render(lab, "D", kv_heads="8"))


# ---------------------------------------------------------------------------------------------
# Issue 14: multi-head attention costs no extra FLOPs; teacher forcing; the 70B's bytes per token
# ---------------------------------------------------------------------------------------------


def test_multi_head_attention_costs_no_extra_flops():
    """The chapter's self-check (L1876): h × S² × d/h = S² × d MACs per product, for any h; the
    materialized score memory, h × S² × 2 B, does grow with h."""
    layers = {h: L.Attention(d_model=4096, n_heads=h, seq_len=2048) for h in (1, 8, 32, 64)}
    assert {a.macs() for a in layers.values()} == {2 * 2048**2 * 4096}
    assert layers[32].score_bytes(1, "fp16") == 32 * 2048**2 * 2
    assert lab.PRED_E.answer == "same"


def test_llama2_70b_streams_about_140_gb_per_token():
    """Llama-2 70B (HF meta-llama/Llama-2-70b-hf: 68,976,648,192 parameters) × 2 B = 137.95 GB, the
    chapter's '70B-parameter model streams 140 GB of FP16 weights per token' (L1101, 70 × 2)."""
    m = lab.e_model("70b")
    assert m.params == 68_976_648_192
    assert m.weight_bytes("fp16") == 2 * 68_976_648_192
    p = Engine.solve(m, H100, phase="decode", seq_len=lab.E_SEQ, efficiency=lab.EFFICIENCY)
    assert (
        p.bytes_moved > m.weight_bytes("fp16") and not p.feasible
    )  # more than one 80 GB H100 holds
    assert lab.TRANSFER_E.answer == "140"


def test_teacher_forcing_costs_about_a_decode_step_per_prediction():
    """One causal-masked pass over S known tokens makes S predictions; per prediction its FLOPs are
    those of a decode step at the same context to within the attention term's averaging."""
    m = Models.Llama7B
    per_pred = m.flops(1, 2048, "prefill") / 2048
    assert per_pred == pytest.approx(m.flops(1, 2048, "decode"), rel=0.05)
