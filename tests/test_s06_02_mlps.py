"""Section 6.2 (MLPs: Dense Pattern Processing): the chapter's numbers the notebook reproduces.

Source: ``shared/seeds/chapter06_network_architectures.txt`` (primary edition; "L" = line) and its
digest; the older edition (``..._longer_edition.txt``) where it differs. Every expected value is
the chapter's; every computed value goes through mlsysim.
"""

from __future__ import annotations

import pytest

from mlsysim import Engine, Hardware, energy, weight_only_intensity
from mlsysim import layers as L
from mlsysim.labs.parts import s06_02_mlps as lab
from mlsysim.models import mlp, mnist_cnn, mnist_mlp

# ---- Part A: d_in x d_out ---------------------------------------------------------------------


def test_definition_6_2_layer_1024_fp16():
    """L110: 1,024 -> 1,024 is 1,048,576 parameters, about 2.1 MB in FP16."""
    layer = lab.dense(1024, 1024)
    assert layer.params == 1_048_576
    assert layer.weight_bytes("fp16") == 2_097_152
    assert round(layer.weight_bytes("fp16") / 1e6, 1) == 2.1


def test_section_6_2_5_layer_2048_fp32():
    """L228: 2,048 -> 2,048 is 4,194,304 parameters, 16.8 MB in FP32 (8x the 1,024² FP16 layer)."""
    layer = lab.dense(2048, 2048)
    assert layer.params == 4_194_304
    assert round(layer.weight_bytes("fp32") / 1e6, 1) == 16.8
    assert layer.weight_bytes("fp32") / lab.dense(1024, 1024).weight_bytes("fp16") == 8


def test_mnist_reference_layer_primary_edition():
    """Fig. 2, L155, L200, self-check L1678: the 784 -> 128 layer does 100,352 MACs = 200,704
    FLOPs per sample (1 MAC = 2 FLOPs)."""
    layer = lab.dense(lab.MNIST_INPUTS, lab.MNIST_HIDDEN)
    assert layer.macs() == 100_352
    assert layer.flops() == 200_704


def test_mnist_reference_layer_older_edition_was_784x100():
    """Edition change. The GitHub issue quotes 784 x 100 = 78,400 MACs: that is the OLDER edition
    (000:L375, L397; 156,800 FLOPs), whose reference layer had 100 hidden units. The primary
    (revised) edition changed the layer to 784 x 128 = 100,352 MACs so that it is the first layer
    of its 784-128-64-10 network (Example 6.1). The notebook shows the primary edition's layer;
    both counts come from the same dense-layer rule."""
    older = L.Dense(in_features=784, out_features=100, bias=False)
    assert older.macs() == 78_400
    assert older.flops() == 156_800
    assert lab.dense(784, 128).macs() - older.macs() == 21_952


def test_working_set_of_the_mnist_layer_is_401_kb():
    """L1379: the 784 x 128 layer is 401.4 KB in FP32 (fits on-chip SRAM)."""
    assert lab.dense(784, 128).weight_bytes("fp32") == 401_408


def test_part_a_default_view():
    v = lab.part_a(2048, 2048, "fp32")
    values = {c.label: c.value for c in v.cards}
    assert values["Weight memory"] == "16.8 MB"
    assert values["vs 1,024² in FP16"] == "8.0×"
    assert values["MNIST reference layer"] == "100,352 MACs"


# ---- Part B: GEMV vs GEMM -----------------------------------------------------------------------


def test_equation_2_half_a_flop_per_byte_and_b_over_2():
    """Eq. 2 (L238): 0.5 FLOP/B at batch 1 (FP32, weight-only); batched B/2 (L240, L1673)."""
    model = lab.square_mlp(2048)
    assert weight_only_intensity(model, "fp32", 1) == 0.5
    for b in (2, 8, 64, 512):
        assert weight_only_intensity(model, "fp32", b) == b / 2
    assert weight_only_intensity(model, "fp16", 1) == 1.0  # L1097: GEMV at FP16


def test_a100_batch1_share_is_4_percent_on_the_40gb_part():
    """Self-check L257 / L1668: '~4% of peak' for a batch-1 2048² FP32 layer on an A100. That is the
    A100 40 GB (1,555 GB/s): 0.5 x 1,555 GB/s / 19.5 TFLOP/s = 4.0%. On the 80 GB part (2,039 GB/s)
    the same layer reaches 5.2%, so the chapter's figure matches only the 40 GB part."""
    layer = lab.dense(2048, 2048)
    assert lab.roofline_share(layer, "A100_40GB", 1, "fp32") == pytest.approx(0.040, abs=5e-4)
    assert lab.roofline_share(layer, "A100", 1, "fp32") == pytest.approx(0.052, abs=5e-4)
    assert lab.roofline_share(layer, "H100", 1, "fp32") == pytest.approx(0.025, abs=5e-4)
    assert lab.PRED_B.answer == "same"
    assert "4.0%" in lab.part_b(1, "A100_40GB", "fp32", 2048).summary


def test_transfer_b_int8_on_the_h100_is_beyond_part_b():
    """TRANSFER_B: the 2,048² layer at batch 1 on the H100, INT8 against FP32: the ridge point moves
    1979 / 67 = 30x (20 FLOP/B -> 591 OP/B) while the intensity rises about 4x, so the share of peak
    falls (2.5% -> 0.34%) though the layer runs 4x faster. Part B offers FP32 and FP16 only (the old
    transfer, FP16 on the A100, was one click of its precision control)."""
    assert "int8" not in lab.B_PRECISION.options and "fp16" in lab.B_PRECISION.options
    dev = Hardware.get("H100")
    layer = lab.dense(2048, 2048)
    s32, s8 = (lab.roofline_share(layer, dev, 1, p) for p in ("fp32", "int8"))
    assert round(s32, 3) == 0.025 and round(s8, 4) == 0.0034
    assert round(dev.ridge_point("int8").magnitude) == 591
    assert lab.TRANSFER_B.answer == "smaller" and lab.TRANSFER_B.asks == "direction"
    fb = lab.TRANSFER_B.feedback
    assert "0.34% of the INT8 peak against 2.5% of the FP32" in fb["smaller"]
    assert "30× the FP32 one" in fb["larger"] and "4.0× faster" in fb["larger"]


def test_batching_is_the_fix():
    """Self-check answer A (L1668): batching raises intensity; a faster ALU does not help at B=1."""
    layer = lab.dense(2048, 2048)
    shares = [lab.roofline_share(layer, "A100_40GB", b, "fp32") for b in (1, 4, 16)]
    assert shares[0] < shares[1] < shares[2]
    cross = lab.crossing_batch(layer, "A100_40GB", "fp32")
    p = Engine.solve(layer, "A100_40GB", batch_size=cross, precision="fp32", efficiency=1.0)
    q = Engine.solve(layer, "A100_40GB", batch_size=cross - 1, precision="fp32", efficiency=1.0)
    assert p.latency_compute_s >= p.latency_memory_s and q.latency_compute_s < q.latency_memory_s


def test_activation_traffic_caps_a_narrow_layer_below_the_ridge():
    """'Batching raises the weight-bound intensity ... until input and activation traffic begin to
    dominate' (L240): a 256-wide FP16 layer never reaches the H100 ridge (~295 FLOP/B)."""
    assert lab.crossing_batch(lab.dense(256, 256), "H100", "fp16") is None


# ---- Part C: Example 6.1 ------------------------------------------------------------------------


def test_example_6_1_whole_network_counts():
    """L131: 784-128-64-10 MLP has 109,184 weights; the 2-conv CNN 421,408, its dense head 96%."""
    assert mnist_mlp(bias=False).params == 109_184
    assert lab.mnist_mlp_width(128).params == 109_184
    cnn = mnist_cnn()
    assert cnn.params == 421_408
    head = sum(r.layer.params for r in cnn.rows() if isinstance(r.layer, L.Dense))
    assert round(head / cnn.params, 2) == 0.96
    assert lab.PRED_C.answer == "cnn"


def test_example_6_1_per_detector_87x():
    """L131: 32 dense detectors need 25,088 weights, 32 3x3 filters 288: 87x fewer."""
    dense = lab.dense(784, 32)
    conv = L.Conv2d(
        in_channels=1, out_channels=32, kernel_size=3, input_size=28, padding=1, bias=False
    )
    assert dense.params == 25_088
    assert conv.params == 288
    assert round(dense.params / conv.params) == 87
    assert conv.weight_reuse == 784  # 'reuses each filter at all 784 positions'


def test_part_c_default_view():
    v = lab.part_c(32, 3, 128)
    values = {c.label: c.value for c in v.cards}
    assert values["MLP weights"] == "109,184"
    assert values["CNN weights"] == "421,408"
    assert values["Per-detector saving"] == "87.1×"


# ---- Part D: energy ---------------------------------------------------------------------------


def test_move_vs_compute_139x_and_divided_by_batch():
    """L196, L242: 640 pJ per 32-bit DRAM read vs 4.6 pJ per FP32 MAC, ~139x; batching divides it."""
    assert energy.access_energy(4, "dram").m_as("pJ") == pytest.approx(640)
    assert energy.mac_energy("fp32").m_as("pJ") == pytest.approx(4.6)
    assert round(energy.move_vs_compute("fp32", "dram", 1)) == 139
    assert energy.move_vs_compute("fp32", "dram", 8) == pytest.approx(139.13 / 8, rel=1e-3)


def test_older_edition_173x_was_multiply_only():
    """The older edition (000:L2830) quoted 173x = 640 pJ / 3.7 pJ (FP32 multiply only); the
    primary edition divides by the full MAC (multiply 3.7 + add 0.9 = 4.6 pJ): 139x."""
    mult = energy.OP_ENERGY_PJ["fp32_mult"]
    assert round(energy.access_energy(4, "dram").m_as("pJ") / mult) == 173


def test_part_d_default_view():
    v = lab.part_d(1, "dram", "fp32")
    values = {c.label: c.value for c in v.cards}
    assert values["Move ÷ compute"] == "139.1×"
    assert values["Fetch one weight"] == "640.0 pJ"


def test_part_b_uses_the_same_layer_as_the_model_proxy():
    """The one-layer model used for the proxy has exactly the dense layer's weights and FLOPs."""
    layer, model = lab.dense(2048, 2048), mlp([2048, 2048], bias=False)
    assert model.params == layer.params and model.flops() == layer.flops()


# ---- Issue 10: behaviour predictions and transfers, each checked through the core ---------------


def test_pred_b_share_of_peak_does_not_grow_with_width():
    """PRED_B: at batch 1 the share of peak is the same at 2,048 and 4,096 (0.5 FLOP/B in FP32,
    1,555 GB/s x 0.5 / 19.5 TFLOP/s = 4.0% by the weight-only count)."""
    dev = Hardware.get("A100_40GB")
    s2, s4 = (lab.roofline_share(lab.dense(d, d), dev, 1, "fp32") for d in (2048, 4096))
    assert s2 == pytest.approx(s4, abs=5e-4) == pytest.approx(1555e9 * 0.5 / 19.5e12, abs=1e-3)


def test_transfer_b_fp16_share_is_smaller():
    dev = Hardware.get("A100_40GB")
    fp16 = lab.roofline_share(lab.dense(2048, 2048), dev, 1, "fp16")
    assert fp16 == pytest.approx(1555e9 * 1.0 / 312e12, rel=0.01)  # ~0.5%
    assert fp16 < lab.roofline_share(lab.dense(2048, 2048), dev, 1, "fp32") / 5
    assert lab.TRANSFER_B.answer == "smaller"


def test_pred_d_batching_beats_int8_on_energy():
    """PRED_D: per inference of the 2,048² layer from DRAM: FP32 batch 1 = 2,684.35 + 19.29 =
    2,703.65 uJ; FP32 batch 8 = 2,684.35 / 8 + 19.29 = 354.84 uJ; INT8 batch 1 = 4,194,304 B x
    160 pJ/B = 671.09 uJ + 4,194,304 x 0.3 pJ = 1.26 uJ = 672.35 uJ. The INT8 MAC is 4.6 / 0.3 =
    15.3x cheaper, but the MACs were 0.7% of the energy: batching wins, about 1.9x."""
    b1, b8, i8 = (
        sum(lab.layer_energy_uj(p, b)) for p, b in (("fp32", 1), ("fp32", 8), ("int8", 1))
    )
    assert (round(b1, 2), round(b8, 2), round(i8, 2)) == (2703.65, 354.84, 672.35)
    assert lab.PRED_D.answer == "batch" and lab.PRED_D.asks == "behaviour"
    fb = lab.PRED_D.feedback["batch"]
    assert "2,704 µJ" in fb and "355 µJ" in fb and "672 µJ" in fb and "15× cheaper" in fb
    assert "139" not in lab.PRED_D.question + " ".join(lab.PRED_D.options.values())
    # the card shows both settings
    card = "2,048² layer, per inference"
    assert {c.label: c.value for c in lab.part_d(8, "dram", "fp32").cards}[card] == "354.84 µJ"
    assert {c.label: c.value for c in lab.part_d(1, "dram", "int8").cards}[card] == "672.35 µJ"


def test_pred_a_flash_runs_out_long_before_sram():
    """PRED_A: Arduino Nano 33 BLE Sense, 1 MiB flash, 256 KiB SRAM. A square INT8 layer of width d
    holds d² B of weights and 2d B of activations: the flash overflows at d = 1,025 (1,024² =
    1 MiB exactly fits), the SRAM only at d = 131,073 (2 x 131,072 = 256 KiB). Part A now shows
    the activations beside the weights and says which runs out first."""
    assert lab.mcu_limit_width("int8") == {"flash": 1025, "sram": 131_073}
    assert lab.mcu_limit_width("fp32") == {"flash": 513, "sram": 32_769}
    assert lab.PRED_A.answer == "flash" and lab.PRED_A.asks == "regime"
    assert (
        "width 1,025" in lab.PRED_A.feedback["flash"] and "131,073" in lab.PRED_A.feedback["flash"]
    )
    v = lab.part_a(1024, 1024, "int8")
    assert {c.label: c.value for c in v.cards}["Activations (input + output)"] == "2.0 KB"
    assert (
        "flash runs out first, at width 1,025, long before its SRAM would (at 131,073)" in v.summary
    )


def test_transfer_a_conv_overflows_the_sram():
    """TRANSFER_A: 3x3 conv 16 -> 32 over 96x96, INT8: 4,608 B of weights, 96 x 96 x (16 + 32) =
    442,368 B of activations, over the 262,144 B SRAM by 180,224 B. Part A sizes dense layers only."""
    p = lab.transfer_a_profile()
    assert p.weight_bytes == 4_608 and p.activation_bytes == 442_368
    assert p.overflows == {"sram": 180_224}
    assert lab.TRANSFER_A.answer == "sram"
    assert (
        "442.4 KB" in lab.TRANSFER_A.feedback["sram"]
        and "4.6 KB" in lab.TRANSFER_A.feedback["sram"]
    )


def test_transfer_c_a_third_conv_stage_shrinks_the_cnn():
    """TRANSFER_C: conv3 adds 3 x 3 x 64 x 128 = 73,728 weights; the third pooling leaves 3 x 3 x
    128 = 1,152 values, so fc1 falls from 3,136 x 128 = 401,408 to 1,152 x 128 = 147,456. Total
    421,408 - 401,408 + 73,728 + 147,456 = 241,184. Part C never changes the CNN."""
    assert lab.mnist_cnn_three().params == 421_408 - 401_408 + 73_728 + 147_456 == 241_184
    assert lab.TRANSFER_C.answer == "down" and lab.TRANSFER_C.asks == "direction"
    fb = lab.TRANSFER_C.feedback["down"]
    assert all(n in fb for n in ("73,728", "3,136", "1,152", "401,408", "147,456", "241,184"))
    assert not any("slider" in t for t in lab.TRANSFER_C.feedback.values())


def test_transfer_d_conv_reuse_makes_the_macs_dominate():
    """TRANSFER_D: a 64 -> 64 3x3 conv over 56x56 reuses each weight at 3,136 positions at batch 1:
    139.13 / 3,136 = 0.044 < 1 (the MACs cost about 23x the fetch). Part D's batch slider stops at
    256 and prices dense layers only."""
    assert lab.TRANSFER_D.answer == "compute"
    r = energy.move_vs_compute("fp32", "dram", 3136)
    assert round(r, 3) == 0.044 and round(1 / r) == 23
    fb = lab.TRANSFER_D.feedback["compute"]
    assert "3,136" in fb and "0.044" in fb and "23×" in fb


def test_longer_edition_figures_are_named_on_the_page():
    """Review: the longer edition's '20M parameters, 47x fewer' (L208) and 'about 173x' (L1596)
    differ from the page's 109,184-weight MLP and 139x; each page says which it uses and why."""
    assert lab.longer_edition_mlp().params == 20_029_440
    assert round(20_029_440 / 421_408, 1) == 47.5
    peek_c = " ".join(lab.part_c(32, 3, 128).peek)
    assert "20,029,440 weights" in peek_c and "47.5×" in peek_c and "'47× fewer'" in peek_c
    assert "109,184" in peek_c and "primary edition" in peek_c
    peek_d = " ".join(lab.part_d(1, "dram", "fp32").peek)
    assert "'about 173×'" in peek_d and "3.7 pJ: 173×" in peek_d and "4.6 pJ: 139×" in peek_d


# ---- Issue 14: Example 6.2's worked 4x3 layer and the reads per neuron (Listing 2) ------------


def test_example_6_2_worked_layer():
    """L167-L171: z = [0.59, -0.09, 0.45], after ReLU [0.59, 0, 0.45] (the chapter's sums, e.g.
    0.5 x 0.8 - 0.3 x 0.2 + 0.2 x 0.9 + 0.7 x 0.1 = 0.59)."""
    layer = lab.dense(4, 3)
    z = layer.forward(lab.EXAMPLE_X, lab.EXAMPLE_W)
    assert z == [pytest.approx(0.59), pytest.approx(-0.09), pytest.approx(0.45)]
    assert layer.forward(lab.EXAMPLE_X, lab.EXAMPLE_W, relu=True) == [
        pytest.approx(0.59),
        0.0,
        pytest.approx(0.45),
    ]
    peek = " ".join(lab.part_a(2048, 2048, "fp32").peek)
    assert "z = [0.59, -0.09, 0.45]" in peek and "ReLU [0.59, 0.00, 0.45]" in peek
    with pytest.raises(ValueError, match="in_features"):
        layer.forward([1.0, 2.0], lab.EXAMPLE_W)


def test_reads_per_neuron_mnist():
    """L160 (Listing 2 text): each output neuron of the MNIST layer does 784 MACs and 1,568
    logical operand reads (784 inputs + 784 weights)."""
    mnist = L.Dense(in_features=784, out_features=128, bias=False)
    assert mnist.operand_reads_per_output == 1_568 == 784 + 784
    assert mnist.macs() // mnist.out_features == 784
    card = next(c for c in lab.part_a(784, 128, "fp32").cards if c.label == "Per output neuron")
    assert card.value == "784 MACs" and card.note.startswith("1,568 operand reads")


# ---- Review fixes: weights in flash, readable small ratios, levels that cannot hold the layer ----


def test_part_a_tests_weights_against_flash_not_sram():
    """A microcontroller keeps weights in flash and activations in SRAM (the engine's fit rule;
    6.1 B, 6.3 and 6.5 C count the same way). Arduino Nano 33 BLE Sense: 1 MiB flash, 256 KiB
    SRAM; STM32H743: 2 MiB flash, 1 MiB SRAM.
    - 1,024² INT8 = 1,048,576 B = 1 MiB: fits both flashes (activations 2 x 1,024 B = 2 KB).
    - 1,024² FP16 = 2,097,152 B = 2 MiB: the STM32 only (over the Arduino's 1 MiB). Against SRAM
      (the old rule) it would have fitted neither, since 2 MiB > 1 MiB.
    - 2,048² FP32 = 16,777,216 B: neither."""
    values = {
        args: {c.label: c for c in lab.part_a(*args).cards}["Fits an MCU (weights in flash)"]
        for args in ((1024, 1024, "int8"), (1024, 1024, "fp16"), (2048, 2048, "fp32"))
    }
    assert values[1024, 1024, "int8"].value == (
        "Arduino Nano 33 BLE Sense, STMicroelectronics STM32H743"
    )
    assert values[1024, 1024, "fp16"].value == "STMicroelectronics STM32H743"
    assert values[2048, 2048, "fp32"].value == "neither MCU"
    assert values[2048, 2048, "fp32"].status == "bad"
    assert lab.dense(1024, 1024).weight_bytes("fp16") == 2 * 2**20
    assert lab.dense(1024, 1024).weight_bytes("fp16") > Hardware.get("STM32H743").memory.sram.m_as(
        "B"
    )
    v = lab.part_a(1024, 1024, "fp16")
    names = [str(t.name) for t in v.figure.data]
    assert any("flash 1 MiB" in n for n in names) and any("flash 2 MiB" in n for n in names)
    assert not any("SRAM" in n for n in names)
    assert "weights live in flash" in v.summary


@pytest.mark.parametrize("width", [64, 512, 704, 1024, 1536, 4096])
@pytest.mark.parametrize("precision", ["fp32", "int8"])
@pytest.mark.parametrize("mcu", lab.MCU_KEYS)
def test_mcu_fit_is_the_engines_rule(width, precision, mcu):
    """The part's byte-only fit check agrees with Engine.solve's feasibility wherever the MCU
    has an arithmetic rate (FP32, INT8); it also answers for FP16, which MCUs do not list."""
    layer = lab.dense(width, width)
    assert (
        lab.mcu_fit(layer, Hardware.get(mcu), precision)
        == Engine.solve(layer, mcu, precision=precision).feasible
    )


def test_part_a_small_layer_ratio_and_mnist_comparison_read_correctly():
    """64 -> 64 INT8: 4,096 weights x 1 B = 4,096 B = 4.1 KB; 2,097,152 / 4,096 = 512, so the
    layer is 1/512 of the 1,024² FP16 layer (it used to print '0.0×'). The MNIST layer's 100,352
    weights are 100,352 / 4,096 = 24.5x this layer's: larger (it used to say 'small by comparison')."""
    v = lab.part_a(64, 64, "int8")
    assert "0.0×" not in v.summary
    assert "4.1 KB, 1/512 of the 2.1 MB" in v.summary
    assert "is larger: 100,352 weights, 24.5× this layer's" in v.summary
    assert {c.label: c.value for c in v.cards}["vs 1,024² in FP16"] == "1/512"
    big = lab.part_a(2048, 2048, "fp32")
    # 100,352 / 4,194,304 = 0.0239 = 1/41.8
    assert "is smaller: 100,352 weights, 1/42 of this layer's" in big.summary
    assert "16.8 MB, 8.0× the 2.1 MB" in big.summary
    assert lab.relative(0.5) == "50% of" and lab.relative(8) == "8.0×"


@pytest.mark.parametrize("level", ["sram_1mb", "sram_32kb", "sram_8kb"])
@pytest.mark.parametrize("precision", list(lab.PRECISIONS))
def test_part_d_does_not_price_the_layer_in_a_level_too_small_for_it(level, precision):
    """The 2,048² layer holds 4,194,304 weights: 16.8 MB FP32, 8.4 MB FP16, 4.2 MB INT8, all over
    the largest on-chip level (1 MB). Only the per-weight ratio applies there."""
    wb = lab.dense(2048, 2048).weight_bytes(precision)
    assert wb >= 4_194_304 > lab.LEVEL_BYTES["sram_1mb"]
    v = lab.part_d(1, level, precision)
    card = next(c for c in v.cards if c.label == "2,048² layer, per inference")
    assert card.value == "does not fit" and card.status == "bad"
    assert "cannot live in" in v.summary and "µJ" not in v.summary
    assert not any("µJ" in c.value for c in v.cards)


def test_part_d_dram_still_prices_the_layer():
    """From DRAM: 4,194,304 x 4 B x 160 pJ/B = 2,684.35 µJ of fetches + 4,194,304 x 4.6 pJ =
    19.29 µJ of MACs = 2,703.65 µJ, 99% moving weights."""
    v = lab.part_d(1, "dram", "fp32")
    card = next(c for c in v.cards if c.label == "2,048² layer, per inference")
    assert card.value == f"{4_194_304 * 4 * 160e-6 + 4_194_304 * 4.6e-6:,.2f} µJ" == "2,703.65 µJ"
    assert card.note == "99% moving weights"


# ---- Part E: universal approximation, width vs depth ---------------------------------------------


@pytest.mark.parametrize("depth", range(1, 9))
def test_both_networks_reproduce_the_sawtooth_exactly(depth):
    """Each network is built by hand, evaluated at every kink and midpoint (dyadic, so exact) and
    its linear pieces counted there: 2^depth pieces, the target's."""
    from mlsysim import expressivity as X

    c = X.compare(depth)
    assert c.shallow_error == 0 and c.deep_error == 0
    assert c.pieces == c.shallow_pieces == c.deep_pieces == 2**depth
    assert (c.shallow.units, c.deep.units) == X.units_needed(depth) == (2**depth, 2 * depth)
    assert c.shallow.params == 3 * 2**depth + 1 and c.deep.params == 6 * depth + 1


def test_a_layer_of_n_relus_makes_at_most_n_plus_1_pieces():
    """The floor the part quotes: one hidden layer of n units on one input, whatever its weights,
    is piecewise linear with at most n + 1 pieces (a seeded random net with dyadic weights, so the
    arithmetic is exact, checked on a fine grid)."""
    import random

    from mlsysim import expressivity as X

    rng = random.Random(36)
    for n in (1, 3, 7, 15):
        net = X.ReluNet(
            (
                (
                    tuple((rng.choice([-2, -1.5, -1, -0.5, 0.5, 1, 1.5, 2]),) for _ in range(n)),
                    tuple(rng.randint(-64, 64) / 64 for _ in range(n)),
                ),
            ),
            tuple(rng.randint(-16, 16) / 8 for _ in range(n)),
            0.0,
        )
        xs = [k / 4096 for k in range(4097)]
        assert X.linear_pieces([net(x) for x in xs], xs) <= n + 1


def test_part_e_default_and_the_question():
    v = lab.part_e(3)
    values = {c.label: c.value for c in v.cards}
    assert values["Sawtooth"] == "4 teeth"
    assert values["One hidden layer"] == "8 units"
    assert values["Deep, 2 units per layer"] == "6 units"
    assert values["Checked on the built networks"] == "exact"
    v4 = lab.part_e(4)
    assert {c.label: c.value for c in v4.cards}["One hidden layer"] == "16 units"
    assert "8 → 16" in lab.PRED_E.feedback["split"] and "6 → 8" in lab.PRED_E.feedback["split"]
    assert lab.PRED_E.question.count("4 teeth") == 1 and lab.E_DEPTH.value == lab.E_QUESTION_DEPTH


def test_part_e_transfer_figures():
    from mlsysim import expressivity as X

    assert X.units_needed(lab.E_TRANSFER_DEPTH) == (1_048_576, 40)
    assert 2 ** (lab.E_TRANSFER_DEPTH - 1) == 524_288
    assert 3 * 2**20 + 1 == 3_145_729 and 6 * 20 + 1 == 121
    assert lab.E_TRANSFER_DEPTH > lab.E_DEPTH.stop


def test_expressivity_rejects_bad_depths():
    from mlsysim import expressivity as X

    for bad in (0, -1, 13, 2.5, True):
        with pytest.raises(ValueError, match="depth"):
            X.compare(bad)


def test_part_a_shows_mlps_inside_transformers_and_dlrm():
    """Row 29: MLPs are not too simple. GPT-2 XL's 48 FFN MLPs hold 48 x (1,600 x 6,400 x 2 +
    6,400 + 1,600) = 983,424,000 of its parameters (63.1%); DLRM's bottom and top towers do 96.4%
    of its MACs with under 0.01% of its parameters (the embedding tables hold the rest)."""
    from mlsysim import models as M

    ffn_p, ffn_m, tow_p, tow_m = lab.mlp_shares()
    assert ffn_p == 48 * (1600 * 6400 * 2 + 6400 + 1600) / M.Models.GPT2.params
    assert round(100 * ffn_p, 1) == 63.1 and round(100 * ffn_m, 1) == 57.4
    assert round(100 * tow_m, 1) == 96.4 and tow_p < 1e-4
    with pytest.raises(ValueError, match="no row"):
        M.rows_share(M.Models.GPT2, "nonexistent.")
    with pytest.raises(ValueError, match="parts"):
        M.rows_share(M.Models.GPT2)
    peek = " ".join(lab.part_a(1024, 1024, "fp16").peek)
    assert "GPT-2 XL's FFN MLPs hold 63.1% of its parameters" in peek
    assert "DLRM's bottom and top MLP towers do 96.4% of its MACs" in peek


# ---- Part F: representing is not learning (width against samples) -------------------------------


def _min_norm_fit_numpy(samples, width):
    """Ground truth, independent of mlsysim.learnability's closed form and elimination: the
    explicit feature matrix (constant + relu(x − k/W)/√W) and numpy's pseudo-inverse, which gives
    the least-squares fit below N weights and the least-norm exact fit from N on."""
    np = pytest.importorskip("numpy")
    from mlsysim import learnability as LN

    def feats(x):
        k = np.arange(width) / width
        relu = np.maximum(0.0, x[:, None] - k[None, :]) / np.sqrt(width)
        return np.hstack([np.ones((len(x), 1)), relu])

    xs = (np.arange(samples) + 0.5) / samples
    ts = (np.arange(LN.TEST_POINTS) + 0.5) / LN.TEST_POINTS
    f = lambda x: np.sin(2 * np.pi * LN.CYCLES * x)  # noqa: E731
    w = np.linalg.pinv(feats(xs)) @ f(xs)
    rms = lambda x: float(np.sqrt(np.mean((feats(x) @ w - f(x)) ** 2)))  # noqa: E731
    return rms(xs), rms(ts)


@pytest.mark.parametrize(
    "samples,width", [(8, 2), (8, 7), (8, 64), (16, 4), (16, 16), (16, 64), (16, 1024), (32, 64)]
)
def test_learnability_fit_matches_a_pseudo_inverse(samples, width):
    from mlsysim import learnability as LN

    fit = LN.fit(samples, width)
    on, off = _min_norm_fit_numpy(samples, width)
    assert fit.sample_error == pytest.approx(on, abs=1e-9)
    assert fit.off_sample_error == pytest.approx(off, rel=1e-6)
    assert fit.interpolates == (width + 1 >= samples)


def test_width_past_the_samples_does_not_lower_the_error_samples_do():
    """PRED_F: 16 samples: 4.8% between them at 64 units, 4.7% at 1,024 (0 on them at both);
    32 samples at 64 units: 1.3%. TRANSFER_F: 6 samples, a million units: 0 on the samples,
    53% between (the wave's own RMS is 71%)."""
    import math

    from mlsysim import learnability as LN

    narrow, wide, more = LN.fit(16, 64), LN.fit(16, 1024), LN.fit(32, 64)
    assert narrow.sample_error == wide.sample_error == more.sample_error == 0
    assert (lab._pct(narrow.off_sample_error), lab._pct(wide.off_sample_error)) == ("4.8%", "4.7%")
    assert lab._pct(more.off_sample_error) == "1.3%"
    assert abs(wide.off_sample_error - narrow.off_sample_error) < 0.1 * narrow.off_sample_error
    assert more.off_sample_error < narrow.off_sample_error / 3
    # widening further changes nothing: the least-norm fit converges as W grows
    assert LN.fit(16, 10**6).off_sample_error == pytest.approx(wide.off_sample_error, rel=0.02)
    # below the samples, width does help (the layer cannot fit them yet)
    assert LN.fit(16, 4).sample_error > 0.5 and LN.fit(16, 4).off_sample_error > 0.5
    t = LN.fit(6, 10**6)
    assert t.sample_error == 0 and f"{100 * t.off_sample_error:.0f}%" == "53%"
    assert f"{100 * math.sqrt(0.5):.0f}%" == "71%"
    for key in lab.PRED_F.options:
        assert "4.7%" in lab.PRED_F.feedback[key] and "1.3%" in lab.PRED_F.feedback[key]
    for key in lab.TRANSFER_F.options:
        assert "53%" in lab.TRANSFER_F.feedback[key]
    v = lab.part_f("16")
    cards = {c.label: c.value for c in v.cards}
    assert (
        cards["Between them, 64 units"] == "4.8%" and cards["Between them, 1,024 units"] == "4.7%"
    )
    assert cards["Between them, 32 samples"] == "1.3%" and cards["On the samples"] == "0.0%"
    assert "Universal approximation is an existence result" in v.summary


def test_learnability_kernel_is_the_sum_over_units():
    """The closed-form kernel equals the explicit sum over the W units, at and between knots."""
    from mlsysim import learnability as LN

    for w in (1, 3, 8, 64):
        for x in (0.0, 0.125, 0.3, 0.5, 0.97):
            ys = [0.0, 0.125, 0.31, 0.5, 0.999]
            explicit = [
                1.0 + sum(max(0.0, x - k / w) * max(0.0, y - k / w) for k in range(w)) / w
                for y in ys
            ]
            assert LN._kernel_row(x, ys, w) == pytest.approx(explicit, rel=1e-12, abs=1e-15)


def test_learnability_rejects_bad_input():
    from mlsysim import learnability as LN

    for args in ((1, 8), (65, 8), (16, 0), (16, 2**21), (16.5, 8), (True, 8)):
        with pytest.raises(ValueError):
            LN.fit(*args)
