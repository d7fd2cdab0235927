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
    block = L.TransformerBlock(d_model=4096, n_heads=32, d_ff=11008, seq_len=1, kv_heads=kv_heads, variant="llama")
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
    assert lab.PRED_A.answer == "1"


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
        pre = Engine.solve(Models.get(key), H100, phase="prefill", seq_len=1024, efficiency=lab.EFFICIENCY)
        assert pre.bottleneck == "Compute"
        assert pre.arithmetic_intensity.magnitude > H100.sustained_ridge_point("fp16", lab.EFFICIENCY).magnitude
    dec = Engine.solve(Models.Llama7B, H100, phase="decode", seq_len=1024, efficiency=lab.EFFICIENCY)
    assert dec.bottleneck == "Memory"


def test_batch1_decode_is_far_from_peak():
    """Self-check T/F (L1882): 'batch-1 decode achieves near-peak TFLOP/s' is false."""
    for key in ("GPT2", "Llama7B"):
        p = Engine.solve(Models.get(key), H100, phase="decode", seq_len=2048 if key == "Llama7B" else 1024)
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
    p64 = Engine.solve(m, H100, batch_size=64, phase="decode", seq_len=2048, efficiency=lab.EFFICIENCY)
    assert p64.bytes_moved == pytest.approx(shared + 64 * per_seq)
    p256 = Engine.solve(m, H100, batch_size=256, phase="decode", seq_len=2048, efficiency=lab.EFFICIENCY)
    assert p256.bottleneck == "Memory"
    assert p256.arithmetic_intensity.magnitude < H100.sustained_ridge_point("fp16", lab.EFFICIENCY).magnitude
    assert shared / kv == pytest.approx(12.3, abs=0.05)  # KV bytes pass weight bytes per token near batch 12


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
    chapter's 41,000 is where 80 **GiB** (85.9 GB) fills: 41,449 tokens."""
    fig14 = lab.figure14_device_crossings()
    assert fig14 == {"GB": 40_000, "GiB": 41_449}
    assert lab.score_bytes(40_000) == H100.memory.capacity.m_as("B")
    assert round(lab.score_bytes(41_000) / GB, 2) == 84.05


def test_figure14_scores_limit_first_then_the_cache():
    """Checkpoint 6.5: with materialized scores, one layer's scores set the limit first (40,000
    tokens); with tiled attention the KV cache does, near 250,000 tokens on 80 GB."""
    x = lab.crossings(H100.memory.capacity.m_as("B"))
    assert x["scores_fill"] < x["kv_fill"]
    assert x["kv_fill"] == 250_276
    assert lab.tiled_live_bytes(x["kv_fill"]) < x["kv_fill"] * Models.GPT2.kv_cache_bytes_per_token("fp16")
    assert lab.PRED_C.answer == "scores"


def test_attention_overtakes_dense_at_6d_9600_tokens():
    """#82 (L1073): 12 S d^2 dense vs 2 S^2 d attention: attention dominates past S = 6d, near 9,600
    tokens for GPT-2 XL (d = 1,600). Counted from TransformerBlock rows."""
    assert lab.crossings(H100.memory.capacity.m_as("B"))["attention_over_dense"] == 6 * 1600
    attn, dense = lab.block_macs(9600)
    assert attn == dense
    attn, dense = lab.block_macs(9601)
    assert attn > dense
