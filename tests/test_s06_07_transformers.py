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


def test_pred_d_12_users_of_4096_tokens_fit_a_40gb_a100():
    """PRED_D (its scenarios on the H100 were readable off Part B's sliders; the 40 GB A100 is not
    a Part B device). At 4,096 tokens each cache is 32 x 2 x 32 x 4,096 x 128 x 2 B =
    2,147,483,648 B = 2.15 GB; 40 GB - 13.48 GB of weights = 26.5 GB holds 26.5 / 2.147 = 12.35
    caches: 12 users need 39.3 GB, 13 need 41.40 GB. The 12 caches are 25.8 GB, 1.9x the weights."""
    m, ctx = Models.Llama7B, lab.PRED_D_CONTEXT
    a100 = Hardware.get("A100_40GB")
    assert "A100_40GB" not in lab.B_DEVICE.options and lab.PRED_D_DEVICE == "A100_40GB"
    kv1 = m.kv_cache_bytes(ctx, 1, "fp16")
    assert kv1 == 32 * 2 * 32 * 4096 * 128 * 2 == 2_147_483_648
    assert lab.max_users(32, "A100_40GB", ctx) == 12
    assert round((40e9 - m.weight_bytes("fp16")) / kv1, 2) == 12.35
    full = Engine.solve(m, a100, batch_size=12, phase="decode", seq_len=ctx)
    over = Engine.solve(m, a100, batch_size=13, phase="decode", seq_len=ctx)
    assert round(full.memory_footprint_bytes / GB, 1) == 39.3 and full.feasible
    assert round(over.memory_footprint_bytes / GB, 2) == 41.40 and not over.feasible
    assert round(full.kv_cache_bytes / GB, 1) == 25.8
    assert round(m.weight_bytes("fp16") / GB, 1) == 13.5 and "13.5 GB" in lab.PRED_D.question
    fb = lab.PRED_D.feedback
    assert "2.15 GB" in fb["cache"] and "41.40 GB" in fb["cache"] and "26.5 GB" in fb["none"]
    assert (
        f"{full.memory_footprint_bytes / GB:.2f} GB in all" in fb["cache"]
    )  # as 41.40: two decimals
    assert "12 users fill the device" in fb["cache"] and "memory-bound" in fb["cache"]
    assert full.bottleneck == "Memory"  # the compute option's claim is checked, not assumed
    assert f"{full.arithmetic_intensity.magnitude:,.1f} FLOP/B" in fb["compute"]
    assert lab.PRED_D.answer == "cache"


def test_pred_d_asks_what_caps_the_batch_not_a_count():
    """Review (issue 32) item 3: PRED_D asked 'about how many users' (arithmetic on the stem's
    figures). It now asks which resource caps the batch; no option states a user count."""
    import re

    q = lab.PRED_D
    assert q.asks == "regime" and "What caps" in q.question
    assert not any(re.search(r"\babout \d|\d+ users", o) for o in q.options.values())


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
    """PRED_A: prefill of 1,024 tokens reuses each weight 1,024 times, but eager prefill also
    moves activations and S × S scores, so its intensity is ~182 FLOP/B against decode's ~0.99:
    ~183x. With FlashAttention (the scores never written) prefill reaches ~380 FLOP/B, still
    under 1,024x (review item 15: the stem now says eager, scores materialized)."""
    from mlsysim.models import gpt2

    pre = Engine.solve(Models.GPT2, H100, phase="prefill", seq_len=1024, efficiency=lab.EFFICIENCY)
    dec = Engine.solve(Models.GPT2, H100, phase="decode", seq_len=1024, efficiency=lab.EFFICIENCY)
    ratio = pre.arithmetic_intensity.magnitude / dec.arithmetic_intensity.magnitude
    assert round(pre.arithmetic_intensity.magnitude) == 182 and round(ratio) == 183
    flash = gpt2(1600, 48, 25, name="GPT-2 XL", flash=True)
    fpre = Engine.solve(flash, H100, phase="prefill", seq_len=1024, efficiency=lab.EFFICIENCY)
    assert round(fpre.arithmetic_intensity.magnitude, -1) == 380 and fpre.flops == pre.flops
    assert lab.PRED_A.answer == "180x"
    assert "eager" in lab.PRED_A.question and "scores materialized" in lab.PRED_A.question
    fb = lab.PRED_A.feedback["180x"]
    assert "182 FLOP/B" in fb and "183×" in fb and "380 FLOP/B" in fb


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
    of memory vs 581 kernels x 5 us = 2.9 ms of dispatch (3.1x) on the H100: dispatch-bound. 581 =
    3 embedding kernels + 48 blocks x 12 (ln_1, fused c_attn, 3 for attention, c_proj, add, ln_2,
    c_fc, GELU, c_proj, add) + ln_f + lm_head, as Hugging Face's GPT2LMHeadModel runs eagerly."""
    p = Engine.solve(Models.GPT2, H100, phase="decode", seq_len=1, efficiency=lab.EFFICIENCY)
    assert round(p.latency_memory_s * 1e3, 1) == 0.9
    assert 2 <= p.latency_dispatch_s / p.latency_memory_s <= 5
    assert p.bottleneck == "Dispatch"
    assert sum(t.kernels for t in p.layers) == 3 + 48 * 12 + 2 == 581


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
    """Self-check T/F (L1882): 'batch-1 decode achieves near-peak TFLOP/s' is false (Part A's
    MFU card shows it, so PRED_B now asks what batching buys)."""
    for key in ("GPT2", "Llama7B"):
        p = Engine.solve(
            Models.get(key), H100, phase="decode", seq_len=2048 if key == "Llama7B" else 1024
        )
        assert p.mfu < 0.01


def test_pred_b_batching_32_cuts_bytes_per_token_9_4x_not_32x():
    """PRED_B (review item 8). Llama-2 7B, 2,048-token contexts, H100, FP16. Batch 1 reads
    13.21 GB of streamed weights (6.74 B params x 2 B less the 32,000 x 4,096 x 2 B = 0.26 GB
    embedding table, gathered not streamed) + its 1.07 GB cache + activations = 14.32 GB per token.
    At 32: 13.21 / 32 = 0.41 GB + 1.10 GB per sequence = 1.52 GB per token, 9.4x less, not 32x.
    Batch 32 fits (61 do at 2,048 tokens)."""
    m = Models.Llama7B
    shared, per_seq = lab.decode_bytes_split(m, H100, 2048)
    assert round(shared / GB, 2) == 13.21
    assert shared == pytest.approx(m.weight_bytes("fp16") - 32_000 * 4096 * 2, rel=1e-3)
    one = lab._decode(m, H100, 1, 2048)
    many = lab._decode(m, H100, 32, 2048)
    assert round(one.bytes_moved / GB, 1) == 14.3
    assert round(many.bytes_moved / 32 / GB, 2) == 1.52
    assert many.bytes_moved / 32 == pytest.approx(shared / 32 + per_seq)
    assert round(one.bytes_moved / (many.bytes_moved / 32), 1) == 9.4
    assert many.feasible and many.bottleneck == "Memory"
    assert lab.PRED_B.answer == "less" and lab.PRED_B_BATCH == 32
    fb = lab.PRED_B.feedback
    assert "9.4× less" in fb["less"] and "1.52 GB" in fb["less"] and "not 32×" in fb["32x"]
    assert "Past batch 12" in fb["less"]


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
    'near 41,000 tokens'. The registry plans with 80 GB = 80 x 10^9 B, filled at exactly 40,000
    tokens (25 x 40,000^2 x 2 B = 80.0 GB); at 41,000 tokens the scores are 84.05 GB. The HBM of an
    "80 GB" part physically holds 80 GiB (85.9 GB): 41,448 tokens fit, 41,449 do not, the chapter's
    number. The lesson says so without calling the chapter wrong (review item 1)."""
    fig14 = lab.figure14_device_crossings()
    assert fig14 == {"GB": 40_000, "GiB": 41_448}  # longest fits, as 6.6 reports them (one number)
    assert lab.score_bytes(40_000) == H100.memory.capacity.m_as("B")
    assert round(lab.score_bytes(41_000) / GB, 2) == 84.05
    peek = "\n".join(lab.part_c(16384, False, "H100").peek)
    assert "is the physical 80 GiB of HBM (41,448 tokens fit)" in peek and "conservative" in peek
    assert "not 80 GB" not in (lab.figure14_device_crossings.__doc__ or "")


def test_figure14_scores_limit_first_then_the_cache():
    """Checkpoint 6.5: with materialized scores, one layer's scores set the limit first (40,000
    tokens); with tiled attention the KV cache does, near 250,000 tokens on 80 GB. PRED_C asks
    the tiled case (issue 32: 6.6 already shows the scores filling 80 GB near 40,000)."""
    x = lab.crossings(H100.memory.capacity.m_as("B"))
    assert x["scores_fit"] < x["kv_fit"]
    assert x["kv_fit"] == 250_275
    assert lab.tiled_live_bytes(x["kv_fit"]) < x["kv_fit"] * Models.GPT2.kv_cache_bytes_per_token(
        "fp16"
    )
    assert lab.PRED_C.answer == "kv" and "never stores" in lab.PRED_C.question
    fb = lab.PRED_C.feedback
    assert "250,275" in fb["kv"] and "10,141" in fb["kv"] and "307.2 KB" in fb["kv"]
    assert "12.8 KB per token" in fb["kv"] and "24×" in fb["kv"]  # 4 x 1,600 x 2 B, 307.2 / 12.8
    assert "40,000 tokens" in fb["scores"]


def test_part_c_flash_summary_separates_weights_plus_kv_from_kv_alone():
    """Review item 6: 250,275 already includes the weights: (80e9 - 3,115,222,400) / 307,200 =
    250,275.9; the cache alone would fill 80e9 B at 80e9 / 307,200 = 260,416.7 tokens."""
    x = lab.crossings(H100.memory.capacity.m_as("B"))
    w = Models.GPT2.weight_bytes("fp16")
    assert w == 3_115_222_400
    assert x["kv_fit"] == int((80e9 - w) // 307_200) == 250_275
    assert x["kv_alone_fit"] == int(80e9 // 307_200) == 260_416
    text = lab.part_c(16384, True, "H100").summary
    assert "the weights and the KV cache together fill its memory near 250,275" in text
    assert "the cache alone would reach it near 260,416" in text
    assert (
        "alone would fill its memory first, near 40,000" in lab.part_c(16384, False, "H100").summary
    )


def test_transfer_c_generation_is_cache_limited():
    """Review item 4, now TRANSFER_C (a phase Part C cannot show): a decode step scores one query
    against S keys, 25 x S x 2 B per layer (12.5 MB at 250,275 tokens, not 80 GB), so growth by
    generation is cache-limited."""
    q = lab.TRANSFER_C
    assert "generation" in q.question and "materialized" in q.question and q.answer == "kv"
    assert lab._decode_scores(250_275) == 25 * 250_275 * 2
    assert "12.5 MB per layer at 250,275 tokens" in q.feedback["kv"]
    assert not hasattr(lab, "C_PHASE")  # Part C has no decode control: the case is beyond it


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
    """GPT-2 XL decode on an H100: the memory term is 1.03 ms for 581 kernels, so launches outweigh
    it from 1.03 ms / 581 ≈ 1.8 µs per kernel; at 1 µs decode is memory-bound, at 2 µs launch-bound."""
    flip = lab.launch_flip_ns("GPT2", "H100", 1024)
    dec = Engine.solve(Models.GPT2, H100, phase="decode", seq_len=1024, efficiency=lab.EFFICIENCY)
    kernels = sum(t.kernels for t in dec.layers)
    assert kernels == 581
    assert flip * 1e-9 == pytest.approx(dec.latency_memory_s / kernels, rel=0.01)
    assert "memory-bound" in lab.part_a("GPT2", "H100", 1024, "1").cards[1].note
    assert "launch-bound" in lab.part_a("GPT2", "H100", 1024, "2").cards[1].note


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


def test_part_a_summary_names_the_memory_term_weights_plus_kv():
    """Review item 16: GPT-2 XL's decode memory term at 1,024 tokens is 1.03 ms = (3.11 GB of
    streamed weights + 0.31 GB of KV cache + activations) / 3.35 TB/s; the weights alone are
    3,115,222,400 B / 3.35e12 B/s = 0.93 ms. The summary names both streams."""
    dec = Engine.solve(Models.GPT2, H100, phase="decode", seq_len=1024, efficiency=lab.EFFICIENCY)
    assert round(dec.latency_memory_s * 1e3, 2) == 1.03
    assert round(Models.GPT2.weight_bytes("fp16") / 3.35e12 * 1e3, 2) == 0.93
    text = lab.part_a("GPT2", "H100", 1024, "registry").summary
    assert "streaming the weights and the KV cache takes 1.03 ms" in text
    assert "reading the weights takes" not in text


def test_weight_bytes_have_one_name_per_quantity():
    """Review item 16: Llama-2 7B holds 6,738,415,616 x 2 B = 13.48 GB of weights ('Weights held',
    Part D); a decode step streams 13.21 GB of them (the 0.26 GB embedding table is gathered, one
    row per token); with the 1.07 GB KV cache a batch-1 step reads 14.3 GB (Part E)."""
    m = Models.Llama7B
    assert m.weight_bytes("fp16") == 2 * 6_738_415_616 == 13_476_831_232
    d = next(c for c in lab.part_d(8, 2048, "32", "H100").cards if c.label == "Weights held")
    assert d.value == "13.5 GB"
    e = next(c for c in lab.part_e("32", "Llama7B").cards if c.label.endswith("bytes per token"))
    assert e.value == "14.3 GB" and "all but the gathered embedding table" in e.note
    assert "streamed weights" in lab.part_b(1, 2048, "H100").summary


def test_transfer_b_70b_batching_divides_nearly_every_byte():
    """TRANSFER_B (a model Part B does not offer): Llama-2 70B's cache at 2,048 tokens is
    80 x 2 x 8 x 2,048 x 128 x 2 B = 671,088,640 B against ~137 GB of streamed weights, so batch 32
    cuts the bytes per token 27.0x, against 9.4x for the 7B (MHA)."""
    m = lab.big_model("70b")
    assert m.params == 68_976_648_192
    assert m.kv_cache_bytes(2048, 1, "fp16") == 80 * 2 * 8 * 2048 * 128 * 2
    fb = lab.TRANSFER_B.feedback["near32"]
    assert "671.1 MB" in fb and "27.0×" in fb and "9.4×" in fb
    assert lab.B_MODEL == "Llama7B"  # Part B's model is fixed: the 70B is beyond its controls


def test_transfer_a_feedback_numbers():
    """Llama-2 13B (HF meta-llama/Llama-2-13b-hf: 13,015,864,320 parameters) at a 1,024-token
    context on the H100 at the stem's 5 µs: memory term 7.93 ms (26.0 GB / 3.35 TB/s), launches
    643 x 5 µs = 3.21 ms; launches would win above ~12.3 µs. Part A offers no 13B model."""
    m = lab.big_model("13b")
    assert m.params == 13_015_864_320
    assert "13b" not in lab.A_MODEL.options
    dev = lab._launch_device(5)
    dec = Engine.solve(m, dev, phase="decode", seq_len=1024, efficiency=lab.EFFICIENCY)
    assert dec.bottleneck == "Memory" and sum(t.kernels for t in dec.layers) == 643
    assert round(dec.latency_memory_s * 1e3, 2) == 7.93
    assert round(dec.latency_dispatch_s * 1e3, 2) == 3.21
    assert "5 µs" in lab.TRANSFER_A.question  # the launch cost is stated (issue 32 item 4)
    fb = lab.TRANSFER_A.feedback["memory"]
    assert "7.93 ms" in fb and "3.21 ms" in fb and "643 kernels" in fb and "12.34 µs" in fb


def test_transfer_d_gqa_barely_speeds_batch_1_decode():
    """TRANSFER_D (Part D shows no latency): at one user the 7B's 1.07 GB cache is a small part of
    the ~14.3 GB a step reads, so GQA-8 speeds decode 1.12x at 5 µs per launch, 1.20x with no
    launch cost and 1.05x at 20 µs: 'only a little' across the launch cost's range."""
    ratios = [mha / gqa for mha, gqa in (lab._transfer_d_times(us) for us in (0, 5, 20))]
    assert [round(r, 2) for r in ratios] == [1.2, 1.12, 1.05]
    fb = lab.TRANSFER_D.feedback["little"]
    assert "6.85 ms becomes 6.13 ms" in fb and "1.12×" in fb and "5 µs" in lab.TRANSFER_D.question


def test_transfer_e_generation_rereads_the_weights():
    """TRANSFER_E: 2,048 decode steps each stream the 7B's weights (28.2 TB in all), one
    teacher-forced pass reads them once (72.8 GB with activations and scores): 388x."""
    gen, one = lab.generation_vs_pass()
    m, n = Models.Llama7B, 2048
    step = [
        Engine.solve(m, H100, phase="decode", seq_len=s, efficiency=lab.EFFICIENCY).bytes_moved
        for s in (1, 2, 1024, 2048)
    ]
    assert step[1] - step[0] == pytest.approx((step[3] - step[2]) / 1024, rel=1e-3)  # linear in S
    assert gen == pytest.approx(n * (step[0] + step[3]) / 2)
    assert round(gen / 1e12, 1) == 28.2 and round(one / 1e9, 1) == 72.8
    assert "388×" in lab.TRANSFER_E.feedback["gen"]


def test_multi_head_attention_costs_no_extra_flops():
    """The chapter's self-check (L1876): h × S² × d/h = S² × d MACs per product, for any h; the
    materialized score memory, h × S² × 2 B, does grow with h."""
    layers = {h: L.Attention(d_model=4096, n_heads=h, seq_len=2048) for h in (1, 8, 32, 64)}
    assert {a.macs() for a in layers.values()} == {2 * 2048**2 * 4096}
    assert layers[32].score_bytes(1, "fp16") == 32 * 2048**2 * 2
    assert lab.PRED_E.answer == "same"
    assert "materialized scores" in lab.PRED_E.question  # review item 5: FlashAttention stores none
    assert "stores 1 score matrix (" in lab.part_e("1", "Llama7B").summary  # review item 20
    assert "stores 32 score matrices (" in lab.part_e("32", "Llama7B").summary


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
    assert "70B × 2 B = 140 GB" in "\n".join(lab.part_e("32", "70b").peek)


def test_teacher_forcing_costs_about_a_decode_step_per_prediction():
    """One causal-masked pass over S known tokens makes S predictions; per prediction its FLOPs are
    those of a decode step at the same context to within the attention term's averaging."""
    m = Models.Llama7B
    per_pred = m.flops(1, 2048, "prefill") / 2048
    assert per_pred == pytest.approx(m.flops(1, 2048, "decode"), rel=0.05)


def test_pred_d_feedback_also_counts_users_beside_6_10s_reserve():
    """'12 users' fill 39.25 of 40 GB with nothing kept back for the runtime; 6.10 part D budgets
    the same model with a 1 GB reserve by default, under which 11 fit (a reviewer found the two
    lessons' methods disagreeing without a word). One rule: engine.max_batch."""
    from mlsysim import engine
    from mlsysim.labs.parts import s06_10_fallacies as s610

    assert engine.RUNTIME_RESERVE_BYTES == s610.D_RESERVE.value * 1e9
    n = s610.max_users(lab.PRED_D_CONTEXT, "fp16", lab.PRED_D_DEVICE, engine.RUNTIME_RESERVE_BYTES)
    fb = lab._feedback_d()["cache"]
    assert n == 11 and f"with 6.10's 1 GB reserve, {n} fit" in fb and "12 users fill" in fb


def test_decode_cards_name_their_conditions():
    """Issue 32 item 5: GPT-2 XL's decode step is 3.93 ms here (eager, 581 kernels) and 3.21 ms in
    6.10 Part C (compiled, fewer kernels); 6.1 places the token at 0.5 FLOP/B (FP32). Every card
    with a decode latency, intensity or MFU names its conditions (vocab.conditions), and the
    summary says in one line why other notebooks differ."""
    from mlsysim.labs.vocab import conditions

    v = lab.part_a("GPT2", "H100", 1024, "registry")
    cond = conditions("fp16", fused=False, batch=1, device="NVIDIA H100 SXM5 80GB")
    cards = {c.label: c for c in v.cards}
    for label in ("Prefill intensity", "Decode intensity", "Decode MFU"):
        assert cond in cards[label].note, label
    assert "3.93 ms per token" in cards["Decode intensity"].note
    assert "6.1 counts FP32 weights" in v.summary and "6.10 Part C compiles" in v.summary
    fused = Engine.solve(
        Models.GPT2, H100, phase="decode", seq_len=1024, efficiency=lab.EFFICIENCY, fused=True
    )
    assert round(fused.latency_s * 1e3, 2) == 3.21  # the other notebook's compiled step: shorter
    v5 = lab.part_a("GPT2", "H100", 1024, "20")
    assert "20.00 µs per launch" in {c.label: c for c in v5.cards}["Decode MFU"].note
    b = lab.part_b(32, 2048, "H100")
    b_cond = conditions("fp16", fused=False, batch=32, device="NVIDIA H100 SXM5 80GB")
    assert all(b_cond in c.note for c in b.cards if c.label in ("Intensity", "MFU"))
    e = {c.label: c for c in lab.part_e("32", "Llama7B").cards}
    assert "FP16, batch 1" in e["Bandwidth floor per token"].note


# ---- Part F: the block's building blocks on one forward pass -------------------------------------


def test_block_shares_cover_every_row_and_sum_to_one():
    from mlsysim import anatomy

    p = Engine.solve(
        Models.GPT2, "H100", precision="fp16", efficiency=0.5, phase="prefill", seq_len=1024
    )
    s = anatomy.shares(p)
    for what in ("flops", "bytes", "time_s"):
        assert sum(getattr(v, what) for v in s.values()) == pytest.approx(1.0)
    groups = {r.name: anatomy.block_of(r.name, r.type) for r in p.layers}
    assert groups["h.attn.sdpa"] == groups["h.attn.c_attn"] == "attention"
    assert groups["h.mlp.c_fc"] == groups["h.mlp.act"] == "ffn"
    assert groups["h.ln_1"] == groups["ln_f"] == "norm"
    assert groups["h.attn_residual"] == groups["h.mlp_residual"] == "residual"
    assert groups["embed.positions"] == "embed" and groups["lm_head"] == "head"


def test_glue_takes_time_without_flops_and_more_for_short_passes():
    """PRED_F and TRANSFER_F: 0% of the FLOPs, 8.2% of the bytes, 10.7% of the time at 1,024
    tokens; 24.9% of the time at 128."""
    f, b, t = lab.glue_share("prefill", False)
    assert f == 0 and round(100 * b, 1) == 8.2 and round(100 * t, 1) == 10.7
    assert round(100 * lab.glue_share("prefill", False, 128)[2], 1) == 24.9
    for key in ("more", "same", "most"):
        assert "10.7%" in lab.PRED_F.feedback[key]
    assert "24.9%" in lab.TRANSFER_F.feedback["grows"]
    v = lab.part_f("prefill", False)
    assert {c.label: c.value for c in v.cards}["Residual adds + LayerNorms"] == "10.7% of the time"


def test_block_shares_reject_an_empty_profile():
    from types import SimpleNamespace

    from mlsysim import anatomy

    with pytest.raises(ValueError, match="no FLOPs"):
        anatomy.shares(SimpleNamespace(layers=(), model_name="empty"))


def test_part_d_compares_an_encoder_decoder_cache_with_a_decoder_only():
    """Figure 12 (row 106): 512 source -> 512 target tokens, FP16. BART-large caches 12 decoder
    layers x 2 (K, V) x 1,024 x (512 self + 512 cross) x 2 B = 50,331,648 B; GPT-2 Medium, with the
    source as its prompt, 24 layers x 2 x 1,024 x 1,024 tokens x 2 B = 100,663,296 B. A BART decode
    step skips the encoder and the cached cross-attention K/V projections."""
    ed = lab.encoder_decoder_vs_decoder_only()
    bart, gpt = ed["BART-large"], ed["GPT-2 Medium"]
    assert bart[0] == 12 * 2 * 1024 * (512 + 512) * 2 == 50_331_648
    assert gpt[0] == 24 * 2 * 1024 * 1024 * 2 == 100_663_296
    assert bart[2] == 406_291_456 and gpt[2] == gpt[1] == 354_823_168
    # not run by a decode step: the encoder's 12 layers, its embedding LayerNorm and its 1,026
    # learned positions (the token table is shared with the decoder), and the cross-attention K/V
    encoder = 12 * (4 * (1024 * 1024 + 1024) + 2 * 1024 * 4096 + 4096 + 1024 + 2 * 2 * 1024)
    encoder += 2 * 1024 + 1026 * 1024
    cross_kv = 12 * 2 * (1024 * 1024 + 1024)
    assert bart[2] - bart[1] == encoder + cross_kv == 177_397_760
    peek = " ".join(lab.part_d(8, 2048, "32", "H100").peek)
    assert "BART-large (12 encoder + 12 decoder layers, d 1,024) caches 50.3 MB" in peek
    assert "caches 100.7 MB" in peek


# ---- Part G: one block, any modality ------------------------------------------------------------


def _block_by_hand(s, d=768, d_ff=3072):
    """One encoder block: 4 projections 4·S·d² + scores and weighted sum 2·S²·d + MLP 2·S·d·d_ff
    MACs; weights 4(d² + d) + 2·d·d_ff + d_ff + d + two norms × 2d."""
    macs = 4 * s * d * d + 2 * s * s * d + 2 * s * d * d_ff
    params = 4 * (d * d + d) + 2 * d * d_ff + d_ff + d + 2 * 2 * d
    return params, macs


def test_a_vit_block_and_a_bert_block_at_197_tokens_are_the_same():
    """PRED_G: 196 patches + the class token = 197 tokens; both blocks 7,087,872 weights and
    1,453,954,560 MACs (2.9 GFLOP); the front ends differ (ViT: patch conv + class token + 197
    positions, 742,656 weights, 115,605,504 MACs; BERT: tables + LayerNorm, 23,837,184 weights, 0)."""
    from mlsysim import anatomy

    vit, bert = Models.ViTB16, Models.BERTBase
    vb, tb = anatomy.block_total(vit), anatomy.block_total(bert, 197)
    assert (vb.params, vb.macs) == (tb.params, tb.macs) == _block_by_hand(197)
    assert vb.params == 7_087_872 and vb.flops == 2_907_909_120
    assert anatomy.one_block(vit) == anatomy.one_block(bert, 197)
    vf, tf = anatomy.front_end(vit), anatomy.front_end(bert, 197)
    assert vf.macs == 196 * 3 * 16 * 16 * 768 == 115_605_504
    assert vf.params == (3 * 16 * 16 + 1) * 768 + 768 + 197 * 768 == 742_656
    assert tf.macs == 0 and tf.params == (30522 + 512 + 2) * 768 + 2 * 768 == 23_837_184
    # the whole model is its front end + 12 blocks + what follows them (ViT: final LayerNorm and
    # the 1,000-class head; BERT: the pooler); the totals are checked against torchvision and
    # HuggingFace elsewhere
    assert vit.params == vf.params + 12 * vb.params + 2 * 768 + 769 * 1000 == 86_567_656
    assert bert.params == tf.params + 12 * tb.params + 768 * 768 + 768 == 109_482_240
    assert vit.macs() == vf.macs + 12 * vb.macs + 768 * 1000
    assert bert.macs(seq_len=197) == 12 * tb.macs + 768 * 768
    v = lab.part_g("b_16")
    c = {x.label: (x.value, x.note) for x in v.cards}
    assert (
        c["One ViT-B/16 block"]
        == c["One BERT-base block"]
        == (
            "2.9 GFLOP",
            "7,087,872 weights, 197 tokens of width 768",
        )
    )
    assert c["BERT-base front end"][0] == "no FLOPs" and "23,837,184" in c["BERT-base front end"][1]
    assert "the same to the last weight and MAC" in v.summary
    for key in PRED_G_KEYS:
        assert "7,087,872 weights" in lab.PRED_G.feedback[key]


PRED_G_KEYS = ("same", "image", "text")


def test_part_g_at_50_tokens_keeps_the_blocks_equal():
    """ViT-B/32: 49 patches + class = 50 tokens; 357,734,400 MACs per block for both."""
    from mlsysim import anatomy

    p = lab.portable("b_32")
    assert p["tokens"] == 50 and p["vit_block"] == p["text_block"]
    assert anatomy.block_total(Models.BERTBase, 50).macs == _block_by_hand(50)[1] == 357_734_400
    assert p["vit_front"].macs == 49 * 3 * 32 * 32 * 768 == 115_605_504
    assert "715.5 MFLOP" in lab.part_g("b_32").summary


def test_speech_block_grows_faster_than_its_tokens():
    """TRANSFER_G: 1,500 frames vs 512 tokens, blocks of BERT-base's shape: 3.5× the MACs
    (14,072,832,000 vs 4,026,531,840) for 2.93× the tokens, same 7,087,872 weights."""
    speech, text = lab.speech_vs_text()
    assert (speech.params, speech.macs) == _block_by_hand(1500) == (7_087_872, 14_072_832_000)
    assert (text.params, text.macs) == _block_by_hand(512)
    assert round(speech.macs / text.macs, 1) == 3.5 and 1500 / 512 < 2.95
    assert f"{speech.flops / 1e9:.1f}" == "28.1" and f"{text.flops / 1e9:.1f}" == "8.1"
    for key in ("more", "ratio", "same"):
        assert "28.1" in lab.TRANSFER_G.feedback[key] and "3.5×" in lab.TRANSFER_G.feedback[key]


def test_portability_helpers_reject_bad_input():
    from mlsysim import anatomy

    with pytest.raises(ValueError, match="n_heads"):
        anatomy.encoder_block(768, 7, 3072, 10)
    with pytest.raises(ValueError, match="tokens"):
        anatomy.encoder_block(768, 12, 3072, 0)
    with pytest.raises(ValueError, match="no repeated block"):
        anatomy.one_block(Models.AlexNet)
    with pytest.raises(ValueError, match="model must be"):
        anatomy.front_end("BERT-base")
    with pytest.raises(ValueError, match="seq_len"):
        anatomy.block_total(Models.BERTBase, 0)
    with pytest.raises(ValueError, match="seq_len"):
        anatomy.one_block(Models.ViTB16, 197)
