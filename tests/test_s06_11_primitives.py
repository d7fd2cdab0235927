"""Computational Primitives (longer edition, "6.P"): the chapter's numbers the notebook reproduces,
and the cost models of ``mlsysim.primitives``.

Sources: ``shared/seeds/chapter06_network_architectures_longer_edition.txt`` section "Computational
Primitives" (L1449-1627) and its digest (rows I1-I17, E15); the primary edition where it repeats a
number (im2col toy, L415). Every expected value is the chapter's; every computed value goes through
mlsysim (layers, energy, primitives).
"""

from __future__ import annotations

import math

import pytest

from mlsysim import energy
from mlsysim import layers as L
from mlsysim import primitives as P
from mlsysim.labs.parts import s06_11_primitives as lab

# ---- Part A: im2col, sliding windows ----------------------------------------------------------


def test_primary_edition_im2col_toy_is_16_over_9():
    """Primary L415: a 3x3 input and a 2x2 filter give 4 patches of 4 values: 16/9 expansion."""
    c = L.Conv2d(in_channels=1, out_channels=1, kernel_size=2, input_size=3, bias=False)
    assert c.output_size == (2, 2)
    assert c.im2col_elements == 16
    assert c.im2col_expansion == pytest.approx(16 / 9)


def test_figure_12_patch_matrix_is_4x8():
    """Longer-edition Fig. 12: two 3x3 maps, 2x2 kernels: a 4x8 patch matrix times an 8x1 column."""
    c = L.Conv2d(in_channels=2, out_channels=1, kernel_size=2, input_size=3, bias=False)
    shape = P.gemm_shape(c)
    assert (shape.m, shape.k, shape.n) == (4, 8, 1)
    assert c.im2col_elements == 4 * 8


def test_im2col_duplicates_up_to_k_squared():
    """Footnote 29 / self-check answer L2247: up to K^2 = 9 copies for 3x3 stride-1 filters. With
    'same' padding every pixel has a window, so the expansion is exactly 9 (the notebook default);
    a valid convolution approaches 9 as the map grows."""
    assert lab.conv(3, 56, 1, 64).im2col_expansion == 9
    valid = L.Conv2d(in_channels=1, out_channels=1, kernel_size=3, input_size=224, bias=False)
    assert 8.8 < valid.im2col_expansion < 9
    assert lab.PRED_A.answer == "overlap"


def test_pred_a_extra_memory_comes_from_overlap():
    """Issue 32: PRED_A asked for the 9x (arithmetic); it now asks where the extra memory comes
    from. Windows that tile the map (3x3, stride 3, 57x57, no padding) give exactly 1x, a
    reordered copy; without padding the stride-1 buffer is still 8.4x; the output (C_out x H x W)
    is 1x the input. Only the overlap makes it 9x."""
    base = dict(in_channels=64, out_channels=64, kernel_size=3)
    tiled = L.Conv2d(**base, input_size=57, stride=3, bias=False)
    assert tiled.im2col_expansion == 1
    assert round(L.Conv2d(**base, input_size=56, bias=False).im2col_expansion, 1) == 8.4
    fb = " ".join(lab.PRED_A.feedback.values())
    assert "8.4×" in fb and "exactly 1×" in fb and "9×" in fb


def test_sliding_windows_26x26_on_28x28():
    """L1476: a 3x3 filter gives 26x26 windows on a 28x28 input at stride 1."""
    c = L.Conv2d(in_channels=1, out_channels=1, kernel_size=3, input_size=28, bias=False)
    assert c.output_size == (26, 26)


def test_listing_3_nine_macs_times_784_positions():
    """Primary L385 (Listing 3 comment): 3x3 on a padded 28x28 map is 9 MACs x 784 positions."""
    c = L.Conv2d(in_channels=1, out_channels=1, kernel_size=3, input_size=28, padding=1, bias=False)
    assert c.macs() == 9 * 784


@pytest.mark.parametrize(
    "layer",
    [
        L.Dense(in_features=784, out_features=128, bias=False),
        L.Dense(in_features=768, out_features=2304, tokens=6),
        L.Conv2d(
            in_channels=64, out_channels=64, kernel_size=3, input_size=224, padding=1, bias=False
        ),
        L.Conv2d(
            in_channels=96, out_channels=96, kernel_size=3, input_size=112, padding=1, groups=96
        ),
        L.Conv2d(
            in_channels=3,
            out_channels=32,
            kernel_size=(10, 4),
            input_size=(49, 10),
            stride=2,
            padding=(5, 1),
        ),
    ],
)
@pytest.mark.parametrize("batch", [1, 8])
def test_gemm_lowering_preserves_macs(layer, batch):
    """The GEMM view counts exactly the layer's MACs (im2col and implicit GEMM do the same work)."""
    assert P.gemm_shape(layer, batch).macs == layer.macs(batch)


def test_fused_qkv_gemm_is_10_6m_macs():
    """Longer-edition Fig. 8 / primary L872: (6 x 768) @ (768 x 2304) = 10.6M MACs."""
    shape = P.gemm_shape(L.Dense(in_features=768, out_features=2304, tokens=6))
    assert (shape.m, shape.k, shape.n) == (6, 768, 2304)
    assert round(shape.macs / 1e6, 1) == 10.6


# ---- Part B: systolic array ---------------------------------------------------------------------


def test_tpu_v1_peak_is_92_tops():
    """Jouppi et al. 2017 (cited in the longer edition's TPU footnote): 256x256 MACs at 700 MHz,
    92 TOP/s."""
    assert P.TPU_V1.peak.m_as("TFLOP/s") == pytest.approx(92, rel=5e-3)


def test_systolic_model_accounts_every_cycle():
    run = P.systolic_gemm(P.GemmShape(m=100, k=300, n=200), size=128, weight_load=True)
    assert run.tiles == math.ceil(300 / 128) * math.ceil(200 / 128) == 6
    assert run.cycles_per_tile == 100 + 2 * 127 + 128
    assert run.macs == 100 * 300 * 200
    assert 0 < run.utilization < 1


def test_batch1_token_leaves_the_array_nearly_idle():
    """A GEMV (one streamed row) on a 128x128 array: 1 useful cycle per 383-cycle tile."""
    run = lab._run(128, 1, 2048, False)
    assert run.utilization == pytest.approx(1 / 383)
    assert run.utilization < 0.01


def test_many_rows_fill_the_array():
    full = lab._run(128, 4096, 2048, True)
    assert full.utilization > 0.9
    half = lab._run(128, 2 * 127, 2048, True)
    assert half.utilization == pytest.approx(0.5)


# ---- Part C: energy and access patterns --------------------------------------------------------


def test_dram_read_vs_mac_over_100x():
    """Self-check (L2237): ~640 pJ per 32-bit DRAM read vs ~4.6 pJ per FP32 MAC, '>130x' (139x).
    The longer edition's 'System design impact' (L1602) quotes 173x = 640 / 3.7 pJ against the
    multiply alone; against the full multiply-accumulate it is 139x."""
    assert energy.access_energy(4, "dram").m_as("pJ") == pytest.approx(640)
    assert energy.mac_energy("fp32").m_as("pJ") == pytest.approx(4.6)
    assert energy.move_vs_compute("fp32") > 130
    assert round(energy.move_vs_compute("fp32")) == 139
    assert round(640 / energy.OP_ENERGY_PJ["fp32_mult"]) == 173


def test_sequential_uses_every_fetched_byte():
    """L1520: sequential access lets DRAM burst and prefetchers run ahead: no wasted bytes."""
    assert P.access_cost("sequential", 4096, 4).efficiency == 1.0
    assert lab.energy_per_value("sequential", "dram", "fp32") == pytest.approx(640)


def test_strided_and_random_scalars_waste_most_of_each_line():
    """Primary L1379: strided access 'fetches whole cache lines to use a fraction of each'."""
    assert lab.scenario_cost("strided", "fp32").efficiency == pytest.approx(1 / 16)
    assert lab.scenario_cost("random", "fp32").efficiency == pytest.approx(4 / 64)
    assert lab.energy_per_value("random", "dram", "fp32") == pytest.approx(16 * 640)


def test_embedding_rows_are_contiguous_and_fully_used():
    """Primary L1196 / L1379: a 128-wide FP32 row is 512 B, contiguous and fully consumed."""
    cost = lab.scenario_cost("rows", "fp32")
    assert cost.useful_bytes // 32 == 512
    assert cost.efficiency == 1.0


def test_strided_access_shares_lines_when_close():
    cost = P.access_cost("strided", 8, 4, 8)  # every other FP32 value
    assert cost.lines == 1 and cost.efficiency == 0.5


def test_access_cost_rejects_bad_input():
    with pytest.raises(ValueError, match="pattern"):
        P.access_cost("diagonal", 1, 4)
    with pytest.raises(ValueError, match="stride_bytes"):
        P.access_cost("strided", 4, 8, 4)


# ---- Part D: data movement in attention ---------------------------------------------------------


def test_attention_movement_s512_batch32():
    """L1559 (digest E15): sequence 512, head dim 64, batch 32: broadcast 512x64 queries, gather
    512x512x64, reduce 512x512 scores, each times 32.

    The chapter says it gathers 'keys and values (512x512x64 elements)'. That count is one operand:
    the score GEMM reads 512x512x64 key elements and the value GEMM as many value elements, so keys
    and values together are 2 x 16,777,216 per sequence. The notebook shows both."""
    mv = P.attention_data_movement(512, 64, 32)
    assert mv.broadcast == 32 * 512 * 64
    assert mv.gather_keys == 32 * 16_777_216
    assert mv.gather_values == mv.gather_keys
    assert mv.reduce == 32 * 262_144
    one = P.attention_data_movement(512, 64, 1)
    assert (one.broadcast, one.gather_keys, one.reduce) == (32_768, 16_777_216, 262_144)


def test_score_gemm_macs_match_listing_7():
    """Primary Listing 7 / self-check: 512 x 512 x 64 = 16.8M MACs for the score GEMM per head."""
    att = L.Attention(d_model=64, n_heads=1, seq_len=512)
    assert att.macs() == 2 * 16_777_216  # score GEMM + value GEMM
    assert P.attention_data_movement(512, 64).gather_keys == att.macs() // 2


def test_tree_reduction_is_logarithmic():
    """L1562: tree reduction takes O(log n) stages instead of O(n); Fig. 13 reduces 1+3+5+7 = 16
    in 2 stages."""
    assert P.reduction_stages(512) == 9
    assert P.reduction_stages(512, tree=False) == 511
    assert P.reduction_stages(4) == 2
    assert P.reduction_stages(1) == 0
    # not a power of two: ceil(log2 n) (513 values need a tenth stage, 1000 too)
    assert (P.reduction_stages(513), P.reduction_stages(1000), P.reduction_stages(3)) == (10, 10, 2)


def test_part_d_default_view():
    v = lab.part_d(512, 32, "64")
    values = {c.label: c.value for c in v.cards}
    assert values["Softmax row: tree stages"] == "9"
    assert values["Scores if materialized"] == "16.8 MB"  # 32 x 512^2 x 2 B, one head


# ---- Issue 10: the predictions ask about behaviour; PRED_B's row counts --------------------------


def test_pred_b_half_utilization_rows_with_and_without_double_buffering():
    """Issue 10 #7: the old feedback said half utilization needs 'about 254 rows'; the part's
    default (no double-buffering) needs 382 = 2 x 127 fill/drain + 128 weight-load cycles; 254
    holds only with double-buffering on."""
    assert lab._run(128, 382, 2048, False).utilization == pytest.approx(0.5)
    assert lab._run(128, 254, 2048, True).utilization == pytest.approx(0.5)
    assert lab._run(128, 254, 2048, False).utilization < 0.5
    text = lab.PRED_B.feedback["rows"]
    assert "382 rows without double-buffering, 254 with it" in text
    card = next(c for c in lab.part_b(128, 1, 2048, False).cards if c.label == "Rows for 50%")
    assert card.value == "382"


def test_pred_b_options_are_what_the_engine_shows():
    """PRED_B: more rows is the only change that lifts utilization far; a bigger matrix leaves it
    at 1/383, a bigger array halves it, double-buffering lifts it to 1/255."""
    base = lab._run(128, 1, 2048, False).utilization
    assert (
        lab._run(128, 1, 8192, False).utilization == pytest.approx(base) == pytest.approx(1 / 383)
    )
    assert lab._run(256, 1, 2048, False).utilization == pytest.approx(1 / (1 + 2 * 255 + 256))
    assert lab._run(128, 1, 2048, True).utilization == pytest.approx(1 / 255)
    assert (
        lab._run(128, 64, 2048, False).utilization > 20 * lab._run(128, 1, 2048, True).utilization
    )
    assert lab.PRED_B.answer == "rows"


def test_pred_c_random_scalars_cost_16x_sequential():
    """A random FP32 scalar uses 4 of the 64 bytes of its DRAM burst: 16x the DRAM energy per value
    (DRAM at 160 pJ/B: 64 x 160 = 10,240 pJ per random scalar vs 4 x 160 = 640 pJ in a stream)."""
    seq = lab.energy_per_value("sequential", "dram", "fp32")
    rnd = lab.energy_per_value("random", "dram", "fp32")
    assert rnd / seq == 64 / 4
    assert (seq, rnd) == (pytest.approx(4 * 160), pytest.approx(64 * 160))
    assert lab.energy_per_value("rows", "dram", "fp32") == pytest.approx(seq)


def test_transfer_c_16_byte_records_sit_between():
    """Issue 32: TRANSFER_C asked about the DLRM rows, which the pattern control offers. Now 16-byte
    records (4 FP32 values), which no pattern offers: 64 x 160 / 4 = 2,560 pJ per value, 4x a
    stream's 640 and a quarter of a random scalar's 10,240."""
    c = P.access_cost("random", 4096, 16)
    assert c.efficiency == 0.25
    per_value = energy.access_energy(c.fetched_bytes, "dram").m_as("pJ") / (c.useful_bytes / 4)
    assert per_value == pytest.approx(2560)
    from mlsysim.units import bytes_per_value

    items = {  # bytes per gathered item, every pattern x precision the part offers
        vals * int(bytes_per_value(prec))
        for _, _, _, vals, _ in lab.SCENARIOS.values()
        for prec in lab.C_PRECISION.options
    }
    assert 16 not in items
    assert lab.TRANSFER_C.answer == "between"
    fb = lab.TRANSFER_C.feedback["between"]
    assert "2,560 pJ" in fb and "640 pJ" in fb and "10,240 pJ" in fb


def test_pred_c_random_gather_costs_the_same_in_int8_and_fp32():
    """Reviewer item 4: PRED_C asks whether quantizing randomly gathered values FP32 -> INT8 cuts
    the DRAM energy per value. Each random gather fetches a whole 64 B burst whatever the value's
    size: 64 x 160 pJ/B = 10,240 pJ per value for both, while a stream falls from 4 x 160 = 640 to
    1 x 160 = 160 pJ. Burst use: 4/64 = 6.25% (FP32), 1/64 = 1.5625% -> '1.56%' (INT8), as the part's card
    and sentence print them (two decimals)."""
    fp32 = lab.energy_per_value("random", "dram", "fp32")
    int8 = lab.energy_per_value("random", "dram", "int8")
    assert fp32 == int8 == pytest.approx(64 * 160) == pytest.approx(10_240)
    assert lab.energy_per_value("sequential", "dram", "fp32") == pytest.approx(640)
    assert lab.energy_per_value("sequential", "dram", "int8") == pytest.approx(160)
    assert lab.scenario_cost("random", "fp32").efficiency == pytest.approx(0.0625)
    assert lab.scenario_cost("random", "int8").efficiency == pytest.approx(1 / 64)
    card = {c.label: c.value for c in lab.part_c("random", "dram", "int8").cards}
    assert (
        card["Fetched bytes used"] == "1.56%" and card["Energy per useful value"] == "10,240.0 pJ"
    )
    card = {c.label: c.value for c in lab.part_c("random", "dram", "fp32").cards}
    assert (
        card["Fetched bytes used"] == "6.25%" and card["Energy per useful value"] == "10,240.0 pJ"
    )
    assert lab.PRED_C.answer == "same"
    text = " ".join(lab.PRED_C.feedback.values())
    for n in ("10,240 pJ", "640", "160 pJ", "6.25%", "1.56%"):
        assert n in text
    assert "smaller type" in lab.PRED_C.feedback["quarter"]  # names the misconception


def test_pred_c_stem_and_intro_do_not_give_the_burst_away():
    """Reviewer item 4: the locked intro said 'Memory is read in whole 64-byte lines' and the stem
    '(64-byte cache lines)': 64 / 4 = 16 was the whole question. Neither is there now."""
    from pathlib import Path

    assert "64" not in lab.PRED_C.question and "line" not in lab.PRED_C.question
    nb = (Path(__file__).resolve().parents[1] / "labs" / "s06_11_primitives.py").read_text("utf-8")
    part_c_intro = nb[
        nb.index("Part C · What a memory access costs") : nb.index("pred_c = lab.PRED_C")
    ]
    assert "64-byte" not in part_c_intro and "whole" not in part_c_intro


def test_sram_is_read_per_8_byte_word_dram_per_64_byte_burst():
    """Reviewer item 2: a scratchpad or L1 is read per 64-bit word (Horowitz: 8 KB SRAM ~10 pJ per
    64-bit access, 1.25 pJ/B), not per 64 B line. A random FP32 from 8 KB SRAM: 8 B x 1.25 = 10 pJ,
    2x a sequential read (4 B x 1.25 = 5 pJ), not 16x. INT8: 10 pJ vs 1.25 pJ = 8x. DRAM keeps the
    64 B burst of ``primitives.LINE_BYTES``. The per-byte price ratio is 160 / 1.25 = 128x."""
    assert lab.ACCESS_BYTES["dram"] == P.LINE_BYTES == 64
    assert {lab.ACCESS_BYTES[k] for k in ("sram_8kb", "sram_32kb", "sram_1mb")} == {8}
    assert lab.energy_per_value("random", "sram_8kb", "fp32") == pytest.approx(10)
    assert lab.energy_per_value("sequential", "sram_8kb", "fp32") == pytest.approx(5)
    assert lab.energy_per_value("random", "sram_8kb", "int8") == pytest.approx(10)
    assert lab.energy_per_value("sequential", "sram_8kb", "int8") == pytest.approx(1.25)
    assert lab.energy_per_value("random", "sram_1mb", "fp32") == pytest.approx(8 * 100 / 8)
    v = lab.part_c("random", "sram_8kb", "fp32")
    cards = {c.label: c for c in v.cards}
    assert cards["vs sequential"].value == "2.0×"
    assert (
        cards["Fetched bytes used"].value == "50.00%"
        and "8 B words" in cards["Fetched bytes used"].note
    )
    assert (
        "of each fetched 8 B word is used" in v.summary
        and "(128× from 8 KB SRAM to DRAM)" in v.summary
    )
    assert "64 B line" not in v.summary
    d = lab.part_c("random", "dram", "fp32")
    assert "6.25% of each fetched 64 B burst is used" in d.summary
    assert {c.label: c.value for c in d.cards}["vs sequential"] == "16.0×"
    assert "8 B word" in " ".join(v.peek) and "64 B bursts" in " ".join(v.peek)


def test_part_c_names_row_activations_the_bytes_only_model_omits():
    """Reviewer item 3: random DRAM accesses also pay row activations, so 'prefetching costs
    latency, not energy' and 'energy counts the bytes fetched' were false as statements about DRAM.
    The text now says the model counts bytes only and names what it leaves out."""
    peek = " ".join(lab.part_c("random", "dram", "fp32").peek)
    assert "row activation" in peek and "which energy does not show" not in peek
    tc = lab.TRANSFER_C.feedback["between"]
    assert "bytes-only" in tc and "row activation" in tc and "costs latency, not energy" not in tc
    assert "prefetching affects latency, not bytes" not in " ".join(lab.PRED_C.feedback.values())


def test_part_b_rates_are_int8_operations():
    """Reviewer item 6: TPU v1's array is INT8, so the rates are OP/s. 128 x 128 cells at 700 MHz:
    2 x 16,384 x 0.7e9 = 22.94e12 OP/s peak -> '22.9 TOP/s'."""
    assert lab.SYSTOLIC_PRECISION == "int8"
    v = lab.part_b(128, 1, 2048, False)
    card = next(c for c in v.cards if c.label == "Achieved rate")
    assert "OP/s" in card.value and "FLOP" not in card.value
    assert round(2 * 128 * 128 * 700e6 / 1e12, 1) == 22.9
    assert "of 22.9 TOP/s peak (INT8 MAC cells)" in card.note
    assert "22.9 TOP/s" in " ".join(v.peek)


def test_pred_b_double_buffer_feedback_states_its_model():
    """Reviewer item 6: the 254 fill/drain cycles stay only because tiles run back to back."""
    assert "in this back-to-back model" in lab.PRED_B.feedback["double"]


def test_part_d_counts_operand_deliveries_not_memory_traffic():
    """Reviewer item 5: B·S²·d_head counts operands delivered with no reuse, not memory traffic."""
    v = lab.part_d(512, 32, "64")
    title = v.figure.layout.title.text
    assert "Operand deliveries" in title and "before reuse" in title and "moved" not in title
    assert "before any on-chip reuse" in v.summary


def test_pred_d_one_more_stage_per_doubling():
    assert P.reduction_stages(1024) == P.reduction_stages(512) + 1 == 10
    assert lab.PRED_D.answer == "one"
    a, b = P.attention_data_movement(512, 64, 32), P.attention_data_movement(512, 64, 64)
    assert a.reduce_len == b.reduce_len == 512 and b.reduce == 2 * a.reduce
    stages = [
        next(
            c for c in lab.part_d(512, batch, "64").cards if c.label.startswith("Softmax row")
        ).value
        for batch in (32, 64)
    ]
    assert stages == ["9", "9"]


def test_transfer_d_split_row_keeps_its_depth():
    """TRANSFER_D (sequence parallelism, which Part D does not model): 7 stages per 128-value
    share plus 2 to combine 4 partial sums = 9 = the one-device tree over 512."""
    assert P.reduction_stages(128) + P.reduction_stages(4) == P.reduction_stages(512) == 9
    assert lab.TRANSFER_D.answer == "same"
    assert "7 stages on each GPU" in lab.TRANSFER_D.feedback["same"]


def test_transfers_a_b():
    """Issue 32: TRANSFER_A asked about stride 2 and TRANSFER_B about a 32x32 array, both one
    control away. Now a dilated 3x3 (the part has no dilation): 9x, as plain, against a 5x5's 25x;
    and a 512x512 array (past the 256 slider): 2 x 511 + 512 = 1,534 rows for half, 4.02x the
    128x128 array's 382."""
    import inspect

    assert "dilation" not in inspect.signature(lab.part_a).parameters
    dil = L.Conv2d(
        in_channels=64, out_channels=64, kernel_size=3, input_size=56, padding=2, dilation=2
    )
    assert dil.im2col_expansion == lab.conv(3, 56, 1, 64).im2col_expansion == 9
    assert lab.conv(5, 56, 1, 64).im2col_expansion == 25
    assert lab.TRANSFER_A.answer == "same"
    assert lab.B_ARRAY.stop < 512
    assert lab._run(512, 1534, 2048, False).utilization == pytest.approx(0.5)
    assert lab._run(128, 382, 2048, False).utilization == pytest.approx(0.5)
    assert round(1534 / 382, 2) == 4.02
    assert lab.TRANSFER_B.answer == "x4"
    assert "1,534" in lab.TRANSFER_B.feedback["x4"]


def test_at_most_one_in_three_predictions_is_arithmetic():
    """Issue 10: only PRED_A (im2col's K² expansion) stays a computation on the stem's numbers;
    the 139x energy ratio is asked in 6.9, not here."""
    assert "139" not in " ".join([lab.PRED_C.question, *lab.PRED_C.options.values()])


# ---- Issue 14: Winograd, scatter over cores, Table 13 -------------------------------------------


def test_winograd_f2x2_3x3_is_2_25x():
    """Longer edition footnote 32 (L1671): one 2x2 output tile with a 3x3 filter, 36 direct
    multiplications vs 16 in the Winograd domain (a 4x4 transformed tile): 2.25x. F(4x4, 3x3)
    (Lavin and Gray 2016): 144 vs 36 = 4x."""
    assert P.winograd_multiplications(2, 3) == (2 * 2 * 3 * 3, 4 * 4) == (36, 16)
    assert 36 / 16 == 2.25
    assert P.winograd_multiplications(4, 3) == (144, 36)
    card = next(c for c in lab.part_a(3, 56, 1, 64).cards if c.label.startswith("Winograd"))
    assert card.value == "2.25× fewer multiplies"
    with pytest.raises(ValueError, match="m"):
        P.winograd_multiplications(0, 3)


def test_scatter_512_matmul_over_a100_sms():
    """L1555: scattering a 512x512 matmul over cores; in 64x64 tiles that is 8 x 8 = 64 tiles, one
    wave on the A100's 108 SMs, so 44 SMs idle (59% busy). Twice the side: 256 tiles, 3 waves,
    256 / 324 = 79%."""
    sc = P.scatter_tiles(512, 512, 64, 108)
    assert (sc.tiles, sc.waves) == (64, 1) and sc.core_utilization == pytest.approx(64 / 108)
    big = P.scatter_tiles(1024, 1024, 64, 108)
    assert (big.tiles, big.waves) == (256, 3) and big.core_utilization == pytest.approx(256 / 324)
    card = next(c for c in lab.part_d(512, 32, "64").cards if c.label.startswith("Scatter"))
    assert card.value == "59% of cores busy"
    with pytest.raises(ValueError, match="cores"):
        P.scatter_tiles(512, 512, 64, 0)


def test_every_part_names_its_table_13_row():
    """Table 13 (Primitive-Hardware Co-Design, L2815-2824): each part's MathPeek names its row."""
    rows = {
        "a": "sliding window",
        "b": "matrix multiplication",
        "c": "random access",
        "d": "gather/scatter",
    }
    views = {
        "a": lab.part_a(3, 56, 1, 64),
        "b": lab.part_b(128, 1, 2048, False),
        "c": lab.part_c("sequential", "dram", "fp32"),
        "d": lab.part_d(512, 32, "64"),
    }
    for k, v in views.items():
        assert rows[k] in " ".join(v.peek).lower() and "Table 13" in " ".join(v.peek)


def test_tiled_gemm_traffic_64_vs_256_tiles():
    """A 256 x 2048 @ 2048 x 2048 GEMM in T x T output tiles: each tile re-reads a T x K strip of
    A and a K x T strip of B. T = 64: 256*2048*32 + 2048*2048*4 + 256*2048 = 34,078,720 values
    (34.1 MB in the array's INT8); T = 256: 256*2048*8 + 2048*2048*1 + 256*2048 = 8,912,896 (8.9 MB). At one
    row (a GEMV) tiling saves nothing: every weight is read once anyway."""
    shape = P.gemm_shape(L.Dense(in_features=2048, out_features=2048, bias=False), 256)
    assert (
        P.tiled_gemm_values(shape, 64)
        == 256 * 2048 * 32 + 2048 * 2048 * 4 + 256 * 2048
        == 34_078_720
    )
    assert P.tiled_gemm_values(shape, 256) == 256 * 2048 * 8 + 2048 * 2048 + 256 * 2048 == 8_912_896
    card = next(c for c in lab.part_b(128, 256, 2048, False).cards if c.label.startswith("Tiling"))
    assert card.value == "3.82× less traffic" and "34.1 MB vs 8.9 MB moved (INT8)" in card.note
    gemv = next(c for c in lab.part_b(128, 1, 2048, False).cards if c.label.startswith("Tiling"))
    assert gemv.value == "1% less traffic"  # not "1.01× less"
    with pytest.raises(ValueError, match="tile"):
        P.tiled_gemm_values(shape, 0)
