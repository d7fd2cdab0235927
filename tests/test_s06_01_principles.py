"""Section 6.1 (Architectural Principles): the chapter's numbers the notebook reproduces.

Source: ``shared/seeds/chapter06_network_architectures.txt`` (primary edition; "L" = line) and its
digest. Every expected value is the chapter's; every computed value goes through mlsysim.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mlsysim import Engine, Hardware, Models, weight_only_intensity
from mlsysim import layers as L
from mlsysim.labs.parts import s06_01_principles as lab
from mlsysim.labs.vocab import LABELS, bound_phrase

# ---- Part A: the 5,575x per-detector saving (Definition 6.1, L39; self-check L80) -------------


def test_dense_detector_vs_shared_filter_224_rgb():
    dense, conv = lab._detectors(224, 3, 3)
    assert dense.params == 150_528  # 224 x 224 x 3
    assert conv.params == 27  # 3 x 3 x 3
    assert round(dense.params / conv.params) == 5_575  # "roughly 5,575x fewer parameters"


def test_self_check_dense_first_layer_is_150_million():
    """L80: 'roughly 150 million weights for a 1,000-unit layer'."""
    layer = L.Dense(in_features=224 * 224 * 3, out_features=lab.SELF_CHECK_UNITS, bias=False)
    assert layer.params == 150_528_000
    assert layer.params == pytest.approx(150e6, rel=0.01)


def test_filter_reuse_is_50176_positions():
    """L451: each filter weight is reused at 50,176 positions of a 224x224 map ('same' padding)."""
    _, conv = lab._detectors(224, 3, 3)
    assert conv.weight_reuse == 50_176


def test_part_a_default_view_states_the_chapter_numbers():
    v = lab.part_a(224, 3, "3")
    values = {c.label: c.value for c in v.cards}
    assert values["Dense detector"] == "150,528"
    assert values["Shared filter"] == "27"
    assert values["Saving per detector"] == "5,575×"
    assert "5,575×" in v.summary


def test_pred_a_grayscale_leaves_the_saving_unchanged():
    """PRED_A: grayscale (C = 1) gives 224 x 224 x 1 = 50,176 dense weights against 3 x 3 x 1 = 9:
    50,176 / 9 = 5,575.1, the same as RGB's 150,528 / 27, because C multiplies both sides. The
    misconception 'it drops 3x' counts the channels on the dense side only."""
    dense1, conv1 = lab._detectors(224, 3, 1)
    dense3, conv3 = lab._detectors(224, 3, 3)
    assert (dense1.params, conv1.params) == (50_176, 9)
    assert dense1.params / conv1.params == dense3.params / conv3.params
    assert round(dense1.params / conv1.params) == 5_575
    gray = lab.part_a(224, 3, "1")
    assert {c.label: c.value for c in gray.cards}["Saving per detector"] == "5,575×"
    assert "channel count cancels" in gray.summary


# ---- Part B: Table 1 / Table 8 / Table 10 roster ---------------------------------------------


@pytest.mark.parametrize(
    ("key", "params", "rel"),
    [
        ("ResNet50", 25.6e6, 5e-3),  # Table 8
        ("GPT2", 1.5e9, 0.05),  # Table 8 (GPT-2 XL, 1.56 B exactly with embeddings)
        ("DLRM", 25e9, 1e-3),  # Table 8: embedding entries
        ("MobileNetV2", 3.5e6, 2e-3),  # Table 8
        ("KWS", 200e3, 0.04),  # Table 8 (the preset DS-CNN has 207,588)
    ],
)
def test_lighthouse_params(key, params, rel):
    assert Models.get(key).params == pytest.approx(params, rel=rel)


def test_table_10_fp32_weights():
    """Table 10: ResNet-50 102.2 MB, GPT-2 XL 6 GB, DLRM 100 GB, MobileNetV2 14 MB (FP32)."""
    assert Models.ResNet50.weight_bytes("fp32") == pytest.approx(102.2e6, rel=1e-3)
    assert Models.GPT2.weight_bytes("fp32") == pytest.approx(6e9, rel=0.05)
    assert Models.DLRM.weight_bytes("fp32") == pytest.approx(100e9, rel=1e-3)
    assert Models.MobileNetV2.weight_bytes("fp32") == pytest.approx(14e6, rel=2e-3)


def test_dlrm_does_not_fit_one_80gb_accelerator_in_fp32():
    """Table 1 / Table 10: DLRM is capacity-bound ('Fits one accelerator: No')."""
    p = Engine.solve(Models.DLRM, "H100", precision="fp32")
    assert not p.feasible
    assert p.over.m_as("GB") == pytest.approx(20.0, rel=1e-3)
    v = lab.part_b("dlrm", "H100", False)
    verdict = next(c for c in v.cards if c.label == "This row: batch 1")
    assert verdict.value == "out of memory" and verdict.status == "bad"


def test_rnn_stand_in_is_the_chapters_elman_example():
    """Fig. 8: 128x128 + 100x128 = 16,384 + 12,800 MACs per step; 1,000 steps (L763)."""
    _, rnn, lighthouse = lab.family_workload("rnn")
    assert not lighthouse
    assert rnn.macs() == (16_384 + 12_800) * 1000
    assert rnn.serial_steps == 1000


def test_strongest_bias_is_false():
    """Self-check 6.1 T/F (answer L1638): False, by No Free Lunch. PRED_B applies it to a table
    whose column order is arbitrary: the locality prior misleads there."""
    assert lab.PRED_B.answer == "hurts"
    assert all("No Free Lunch" in lab.PRED_B.feedback[k] for k in lab.PRED_B.options)


# ---- Part C: Table 8's weight-only intensity and checkpoint 6.7 ------------------------------


def test_resnet50_proxy_80_vs_chapter_80_2():
    """Table 8 says 80.2 FLOP/B = 8.2 GFLOP / 102.2 MB (a rounded numerator). With the exact
    8,178,368,512 FLOPs mlsysim gives 80.0; the chapter's 80.2 is reproduced from its rounding."""
    assert weight_only_intensity(Models.ResNet50, "fp32") == pytest.approx(80.0, rel=1e-3)
    rounded = float(f"{Models.ResNet50.flops():.1e}")  # 8.2e9
    assert round(rounded / Models.ResNet50.weight_bytes("fp32"), 1) == 80.2


def test_mobilenetv2_proxy_42_9_vs_chapter_42_8():
    """Table 8 says 42.8 FLOP/B; exact FLOPs (601.5 M) give 42.9. 42.8 is '600 MFLOP' over the
    exact 14.02 MB: the chapter mixes a rounded numerator with an exact denominator."""
    assert weight_only_intensity(Models.MobileNetV2, "fp32") == pytest.approx(42.9, abs=0.01)
    assert round(600e6 / Models.MobileNetV2.weight_bytes("fp32"), 1) == 42.8


def test_gpt2xl_proxy_half_a_flop_per_byte():
    """Table 8: 0.50 FLOP/B (FP32); 1.0 in FP16 (L1097)."""
    assert weight_only_intensity(Models.GPT2, "fp32") == pytest.approx(0.5, rel=2e-3)
    assert weight_only_intensity(Models.GPT2, "fp16") == pytest.approx(1.0, rel=2e-3)


def test_kws_proxy_is_20_9_not_25():
    """Table 8 says KWS reaches 25 FLOP/B = 20 MFLOP / 800 KB. The preset DS-CNN has 207,588
    params (830 KB FP32) and 17.3 MFLOP, so its proxy is 20.9. The chapter's two inputs are each
    its one-significant-figure rounding of the model, but the roundings go opposite ways
    (FLOPs up 15%, bytes down 4%), which inflates the ratio to 25."""
    kws = Models.KWS
    assert weight_only_intensity(kws, "fp32") == pytest.approx(20.87, abs=0.01)
    flops_1sf = float(f"{kws.flops():.0e}")  # 2e7
    params_1sf = float(f"{kws.params:.0e}")  # 2e5
    assert flops_1sf == 20e6 and params_1sf * 4 == 800e3
    assert flops_1sf / (params_1sf * 4) == 25.0


def test_resnet_over_gpt2_is_160x():
    """L1322: 'ResNet-50's proxy exceeds GPT-2 XL's by roughly 160x'."""
    gap = weight_only_intensity(Models.ResNet50) / weight_only_intensity(Models.GPT2)
    assert gap == pytest.approx(160, rel=0.01)
    assert "160×" in lab.part_c("H100", "fp32", 1).summary


def test_checkpoint_6_7_binding_terms():
    """Checkpoint 6.7 (L1337): batched ResNet-50 -> compute, batch-1 GPT-2 token -> bandwidth,
    DLRM -> capacity. At the chapter's FP32 proxy precision on an H100."""
    res = Engine.solve(Models.ResNet50, "H100", batch_size=64, precision="fp32", efficiency=1.0)
    assert res.bottleneck == "Compute"
    tok = Engine.solve(Models.GPT2, "H100", batch_size=1, precision="fp32", efficiency=1.0)
    assert tok.latency_memory_s > 10 * tok.latency_compute_s
    ridge = Hardware.get("H100").ridge_point("fp32").magnitude
    assert (
        weight_only_intensity(Models.GPT2, "fp32")
        < ridge
        < weight_only_intensity(Models.ResNet50, "fp32")
    )
    assert not Engine.solve(Models.DLRM, "H100", precision="fp32").feasible


def test_mobilenetv2_average_falls_left_of_the_ridge_by_the_engines_count():
    """H100, FP32, batch 1: MobileNetV2's proxy is 601,548,544 FLOPs / 14,019,488 B = 42.9 FLOP/B,
    2.1x the ridge point 67 / 3.35 = 20.0 FLOP/B. The engine adds 159,045,536 B of feature-map
    traffic (11.3x the weights): 601,548,544 / 173,065,024 B = 3.5 FLOP/B on average."""
    m = Models.MobileNetV2
    ridge = Hardware.get("H100").ridge_point("fp32").magnitude
    proxy = weight_only_intensity(m, "fp32")
    p = Engine.solve(m, "H100", batch_size=1, precision="fp32", efficiency=1.0)
    assert ridge == pytest.approx(67 / 3.35) and round(ridge, 1) == 20.0
    assert round(proxy, 1) == 42.9 and round(proxy / ridge, 1) == 2.1
    assert p.weight_bytes == 14_019_488 and round(p.weight_bytes / 1e6, 1) == 14.0
    acts = p.bytes_moved - p.weight_bytes
    assert round(acts / 1e6) == 159 and round(acts / p.weight_bytes) == 11
    assert round(p.arithmetic_intensity.magnitude, 1) == 3.5 < ridge
    card = next(c for c in lab.part_c("H100", "fp32", 1).cards if c.label == "MobileNetV2")
    assert card.note.startswith("proxy right of the ridge · engine: launch-bound")
    assert "average 3.5 FLOP/B · Table 8" in card.note
    assert card.status == "warn"


def test_pred_c_regime_follows_the_time_at_batch_64():
    """PRED_C: at batch 64 on the H100 in FP32 (5 us launches) ResNet-50 is compute-bound and
    MobileNetV2 memory-bound by where their time goes, at the listed peak and at half of it, and
    with the proxy right of the ridge for both (80.0 and 42.9 against 20.0 FLOP/B)."""
    assert lab.PRED_C.answer == "split" and lab.PRED_C.asks == "regime"
    for eff in (0.5, 1.0):
        p = lab.c_question_profiles(eff)
        assert p["ResNet50"].bottleneck == "Compute" and p["MobileNetV2"].bottleneck == "Memory"
    fb = lab.PRED_C.feedback["split"]
    r, m = lab.c_question_profiles().values()
    assert lab.time_shares(r) in fb and lab.time_shares(m) in fb
    cards = {c.label: c for c in lab.part_c("H100", "fp32", 64).cards}
    assert "engine: compute-bound" in cards["ResNet-50"].note
    assert "engine: memory-bound" in cards["MobileNetV2"].note


def test_proxy_grows_with_batch_but_engine_intensity_saturates():
    """Section 6.9.1: the proxy omits activation traffic; batching raises it linearly."""
    p1 = weight_only_intensity(Models.ResNet50, "fp32", 1)
    p64 = weight_only_intensity(Models.ResNet50, "fp32", 64)
    assert p64 == pytest.approx(64 * p1)
    e64 = Engine.solve(
        Models.ResNet50, "H100", batch_size=64, precision="fp32"
    ).arithmetic_intensity.magnitude
    assert e64 < p1


def test_device_without_the_precision_falls_back_and_says_so():
    v = lab.part_c("STM32H743", "fp16", 1)
    roof = next(c for c in v.cards if c.label == "Roof precision")
    assert roof.value == "FP32" and roof.status == "warn"


# ---- Issue 10: one unit for reuse, one ridge point, regimes named ------------------------------


def _texts(pred):
    return [pred.question, *pred.options.values(), *pred.feedback.values()]


def test_reuse_is_counted_in_macs_per_weight():
    """Issue 10 #1: one use is one MAC. ResNet-50: 8,178,368,512 FLOPs / 2 / 25,557,032 weights =
    160 uses per weight (the old feedback said 'about 80 times', the old MathPeek '320 ... how
    often each weight is used', both FLOP-based)."""
    uses = Models.ResNet50.flops() / 2 / Models.ResNet50.params
    assert uses == pytest.approx(160.0, abs=0.01)
    text = " ".join(t for q in (lab.PRED_C, lab.TRANSFER_C) for t in _texts(q))
    assert "about 80 times" not in text
    peek = " ".join(lab.part_b("cnn", "H100", False).peek)
    assert f"{LABELS['weight_reuse']} = 4,089,184,256 / 25,557,032 = 160" in peek
    assert "320" not in peek


def test_part_c_ridge_is_the_chapters_peak_ridge_and_says_so():
    """Issue 10 #2: the ridge shown is peak / bandwidth (no efficiency) and is labelled
    'ridge point (peak)'. H100 FP16: 989.5 TFLOP/s / 3.35 TB/s = 295.4 FLOP/B."""
    v = lab.part_c("H100", "fp16", 1)
    card = next(c for c in v.cards if c.label.lower() == LABELS["ridge_peak"])
    assert card.value == f"{989.5e12 / 3.35e12:,.1f} FLOP/B" == "295.4 FLOP/B"
    assert "ridge point (peak) is 295.4" in v.summary


@pytest.mark.parametrize("family", list(lab.FAMILIES))
def test_part_b_names_both_regimes(family):
    """Issue 10 #9: part B showed 'Dispatch-bound' beside Table 1's bottleneck with no word of
    why. The row is one batch-1 inference (one decoded token for GPT-2 XL); Table 1 describes the
    family at scale. On the H100 in FP32 the engine, at Table 1's regime, agrees with Table 1:
    a wide MLP streams weights (memory), batched ResNet-50 is compute-bound, a 1,024-token GPT-2
    XL prefill is compute-bound, the RNN chain is a sequence of launches, DLRM does not fit."""
    expected = {
        "mlp": "memory-bound",
        "cnn": "compute-bound",
        "rnn": "launch-bound (kernel launches)",
        "transformer": "compute-bound",
        "dlrm": "out of memory",
    }
    v = lab.part_b(family, "H100", False)
    cards = {c.label: c.value for c in v.cards}
    assert cards["Table 1's regime"] == expected[family]
    row = cards["This row: batch 1"]
    assert "Dispatch" not in v.summary and "Dispatch" not in row
    if row != expected[family]:
        assert f"not {row}" in v.summary and "launch" in v.summary


def test_part_b_shares_add_up():
    """The row's time split (launches, memory, compute) is the engine's own attribution."""
    p = Engine.solve(Models.ResNet50, "H100", precision="fp32", efficiency=1.0)
    v = lab.part_b("cnn", "H100", False)
    assert f"launches {p.latency_dispatch_s / p.latency_s:.0%}" in v.summary
    rows = [(t.t_compute, t.t_memory) for t in p.layers]
    comp = sum(c for c, m in rows if c >= m)
    mem = sum(m for c, m in rows if c < m)
    assert comp + mem + p.latency_dispatch_s == pytest.approx(p.latency_s)
    assert (
        f"memory-bound rows {mem / p.latency_s:.0%}, compute-bound rows {comp / p.latency_s:.0%}"
        in v.summary
    )


def test_no_registry_keys_in_sentences_or_charts():
    """Issue 10 #11: CamelCase registry keys (JetsonOrinNX, CortexA53Camera) never reach a student."""
    keys = [d.key for d in Hardware.all() if d.key not in d.name]
    for dev in ("JetsonOrinNX", "STM32H743", "CortexA53Camera"):
        for v in (lab.part_b("transformer", dev, False), lab.part_c(dev, "fp32", 1)):
            shown = " ".join(
                [
                    v.summary,
                    str(v.figure.layout.title.text),
                    *(str(t.name) for t in v.figure.data),
                    *(c.note for c in v.cards),
                ]
            )
            assert not any(k in shown for k in keys), shown


# ---- Transfer questions: each answer is what the part's own instruments show -------------------


def test_transfer_a_saving_quadruples_when_the_side_doubles():
    dense224, conv224 = lab._detectors(224, 3, 3)
    dense448, conv448 = lab._detectors(448, 3, 3)
    assert (dense448.params / conv448.params) / (dense224.params / conv224.params) == 4
    assert round(dense448.params / conv448.params) == 22_300
    assert "22,300×" in lab.part_a(448, 3, "3").summary


def test_pred_a_filter_weights_stay_and_its_macs_grow():
    """PRED_A: one 3x3 RGB filter has 27 weights at 224 and at 448 px; it runs at 224² = 50,176
    and 448² = 200,704 positions: 27 x 50,176 = 1,354,752 and 27 x 200,704 = 5,419,008 MACs. The
    dense detector grows 150,528 -> 602,112 weights. Part A shows the MACs (it did not)."""
    _, c224 = lab._detectors(224, 3, 3)
    d448, c448 = lab._detectors(448, 3, 3)
    assert c224.params == c448.params == 27 and d448.params == 602_112
    assert (c224.macs(), c448.macs()) == (1_354_752, 5_419_008)
    assert lab.PRED_A.answer == "stay_grow" and lab.PRED_A.asks == "behaviour"
    fb = " ".join(lab.PRED_A.feedback.values())
    assert all(n in fb for n in ("1,354,752", "5,419,008", "50,176", "200,704", "602,112"))
    card = {c.label: c for c in lab.part_a(448, 3, "3").cards}["Filter's MACs per image"]
    assert card.value == "5.4 M"


def test_transfer_a_is_beyond_part_a_and_channels_grow_weights_and_macs():
    """TRANSFER_A (review: the stride-2 transfer repeated 6.1 A and 6.3 TA): one 3x3 filter over a
    320x320 map of 64 channels against the RGB scan: 27 -> 576 weights, 320² = 102,400
    positions either way, 2,764,800 -> 58,982,400 MACs, both 21.3x. Part A's input is grayscale or
    RGB and its slider steps by 28 px (320 is not on it)."""
    sides = range(
        int(lab.A_RESOLUTION.start), int(lab.A_RESOLUTION.stop) + 1, int(lab.A_RESOLUTION.step)
    )
    assert lab.TRANSFER_SIDE not in sides
    assert str(lab.TRANSFER_CHANNELS) not in lab.A_CHANNELS.options
    rgb, deep = lab.transfer_a_filters()
    assert (rgb.params, deep.params) == (27, 576)
    assert rgb.weight_reuse == deep.weight_reuse == 102_400
    assert (rgb.macs(), deep.macs()) == (2_764_800, 58_982_400)
    assert deep.macs() / rgb.macs() == deep.params / rgb.params
    assert lab.TRANSFER_A.answer == "both" and lab.TRANSFER_A.kind == "transfer"
    assert not any("slider" in t for t in lab.TRANSFER_A.feedback.values())
    fb = lab.TRANSFER_A.feedback["both"]
    assert all(n in fb for n in ("27 → 576", "2,764,800 → 58,982,400", "102,400"))


def test_transfer_b_batched_decode_is_memory_bound():
    """TRANSFER_B: GPT-2 XL decoding 64 sequences with 1,024-token caches on the H100 in FP32 is
    memory-bound (the 64 sequences read their own caches, 40.3 GB of KV cache in all), at the listed
    peak and at half of it; part B decodes at batch 1 only, so it cannot show this case."""
    assert lab.TRANSFER_B.answer == "memory" and lab.TRANSFER_B.asks == "regime"
    for eff in (0.5, 1.0):
        p = Engine.solve(Models.GPT2, "H100", batch_size=64, precision="fp32", efficiency=eff)
        assert p.feasible and p.bottleneck == "Memory"
    p = lab.transfer_b_profile()
    assert round(p.kv_cache_bytes / 1e9, 1) == 40.3
    assert "40.3 GB of KV cache" in lab.TRANSFER_B.feedback["memory"]
    import inspect

    assert "batch_size=1," in inspect.getsource(lab.part_b)  # part B's rows run at batch 1


def test_transfer_c_mobilenetv2_stays_memory_bound_past_the_slider():
    """TRANSFER_C: batch 4,096 (past C_BATCH's 256): the proxy is 42.9 x 4,096 = 175,751 FLOP/B,
    but the engine's average stays near 3.8 FLOP/B and the time is memory-bound at the listed
    peak and at half of it; the footprint (39.5 GB) fits the H100's 80 GB. The old transfer (INT8
    on the H100) was one click of part C's own precision control."""
    assert lab.TRANSFER_C_BATCH > lab.C_BATCH.stop
    for eff in (0.5, 1.0):
        p = lab.transfer_c_profile(eff)
        assert p.feasible and p.bottleneck == "Memory"
    p = lab.transfer_c_profile()
    assert round(p.arithmetic_intensity.magnitude, 1) == 3.8
    assert round(p.memory_footprint_bytes / 1e9, 1) == 39.5
    assert lab.TRANSFER_C.answer == "memory"
    fb = lab.TRANSFER_C.feedback["memory"]
    assert "175,751 FLOP/B" in fb and "3.8 FLOP/B" in fb and "39.5 GB" in fb


def test_rnn_row_streams_on_a_microcontroller():
    """Section 6.5: an RNN's inference state is O(d), so the chapter's Elman RNN (100 -> 128,
    29,440 FP32 params = 117.76 KB in flash) runs on the Arduino's 256 KB of SRAM: live memory is
    one step and h, 484 values = 1,936 B. (It used to be reported 650 KB over the SRAM because
    every one of the 1,000 steps' inputs and outputs was held at once.)"""
    dev = Hardware.get("ArduinoNano33BLESense")
    _, rnn, _ = lab.family_workload("rnn")
    prof = Engine.solve(rnn, dev, batch_size=1, precision="fp32", efficiency=1.0)
    assert prof.feasible and prof.activation_bytes == 484 * 4
    v = lab.part_b("rnn", "ArduinoNano33BLESense", False)
    assert "fits on the Arduino Nano 33 BLE Sense" in v.summary and "streamed" in v.summary


# ---- Review fixes: trade words, engine sides, capacity first, OP units, one precision ----------


def test_each_family_says_what_its_bias_buys_or_costs():
    """Dense connectivity assumes nothing, so it buys no efficiency: the MLP pays for its
    generality; attention buys flexibility; locality, recurrence and tables buy efficiency."""
    said = {f: lab.part_b(f, "H100", False).summary for f in lab.FAMILIES}
    assert "pays for its generality with dense connectivity" in said["mlp"]
    assert "buys flexibility with dynamic attention" in said["transformer"]
    assert "buys efficiency with local filters + weight sharing" in said["cnn"]
    assert "buys efficiency with recurrent state" in said["rnn"]
    assert "buys efficiency with embedding tables" in said["dlrm"]
    assert not any(
        "buys efficiency with dense" in t or "efficiency with dynamic" in t for t in said.values()
    )


def test_part_c_regime_follows_where_the_time_goes():
    """Review defect: part C called ResNet-50 'memory side' at H100 FP32 batch 1 from its average
    intensity (8,178,368,512 / 425,995,840 B = 19.2 FLOP/B, under the ridge of 20.0), while the
    engine's time split puts more of its layer time in compute-bound rows than in memory-bound
    ones, and most of all in launches (launch-bound). Each card now names the engine's verdict
    (Profile.bottleneck, from Profile.time_split) and says why the average differs."""
    r = Engine.solve(Models.ResNet50, "H100", batch_size=1, precision="fp32", efficiency=1.0)
    assert r.bytes_moved == 425_995_840 and round(8_178_368_512 / 425_995_840, 1) == 19.2
    comp, mem, launch = r.time_split
    assert comp > mem and launch > comp + mem and r.bottleneck == "Dispatch"
    cards = {c.label: c for c in lab.part_c("H100", "fp32", 1).cards}
    note = cards["ResNet-50"].note
    assert "memory side" not in note and "memory-bound ·" not in note
    assert note.startswith("proxy right of the ridge · engine: launch-bound")
    assert "average 19.2 FLOP/B, left of the ridge, yet most layer time is compute-bound" in note
    assert "memory side" not in lab.part_c("H100", "fp32", 1).summary
    # batch 256: compute-bound, average 25.2 right of the ridge: no explanation needed
    big = {c.label: c for c in lab.part_c("H100", "fp32", 256).cards}
    assert big["ResNet-50"].note.startswith("proxy right of the ridge · engine: compute-bound")
    assert "yet" not in big["ResNet-50"].note and big["ResNet-50"].status == "ok"


@pytest.mark.parametrize("device", ["H100", "A100_40GB", "JetsonOrinNX", "CortexA53Camera"])
@pytest.mark.parametrize("precision", ["fp32", "fp16", "int8"])
@pytest.mark.parametrize("batch", [1, 8, 64, 256])
def test_every_part_c_card_names_the_engines_regime(device, precision, batch):
    """Every feasible model's card names Profile.bottleneck's regime, never a side of the ridge
    read off an average."""
    v = lab.part_c(device, precision, batch)
    dev = Hardware.get(device)
    roof = lab.roof_precision(dev, precision)
    cards = {c.label: c for c in v.cards}
    for key, label in lab.SPECTRUM.items():
        p = Engine.solve(Models.get(key), dev, batch_size=batch, precision=roof, efficiency=1.0)
        note = cards[label].note
        assert "memory side" not in note and "compute side" not in note
        if p.feasible:
            assert f"engine: {bound_phrase(p.bottleneck)}" in note, (label, note)


def test_part_c_checks_capacity_for_every_model():
    """Capacity first, for every model:
    - STM32H743 (2 MiB = 2,097,152 B flash): ResNet-50's 102,228,128 B of FP32 weights are
      100,130,976 B = 100.1 MB over; MobileNetV2 (14,019,488 B) 11.9 MB over; GPT-2 XL over.
    - Camera-trap SoC (512 MB): GPT-2 XL's 6.2 GB of FP32 weights do not fit.
    - H100 FP32 batch 256: GPT-2 XL's weights (6.23 GB) + 256 KV caches of 1,024 tokens
      (256 x 48 layers x 2 x 1,024 x 1,600 x 4 B = 161.06 GB) + activations exceed 80 GB by 87.3 GB.
    Each is a bad card and a ✕ on the chart, not a roofline point."""
    stm = {c.label: c for c in lab.part_c("STM32H743", "fp32", 1).cards}
    assert 102_228_128 - 2 * 2**20 == 100_130_976
    # every memory it overflows (the note named only the larger: the SRAM's 8.6 MB went unsaid)
    assert stm["ResNet-50"].note == "does not fit: 100.1 MB over its flash and 8.6 MB over its SRAM"
    assert (
        stm["MobileNetV2"].note == "does not fit: 11.9 MB over its flash and 8.6 MB over its SRAM"
    )
    assert stm["GPT-2 XL"].status == stm["ResNet-50"].status == "bad"
    assert stm["KWS"].status == "ok"
    cam = {c.label: c for c in lab.part_c("CortexA53Camera", "fp32", 1).cards}
    assert cam["GPT-2 XL"].status == "bad" and cam["GPT-2 XL"].note.startswith("does not fit")
    p = Engine.solve(Models.GPT2, "H100", batch_size=256, precision="fp32", efficiency=1.0)
    assert p.kv_cache_bytes == 256 * 48 * 2 * 1024 * 1600 * 4
    assert not p.feasible and round(p.over.m_as("GB"), 1) == 87.3
    v = lab.part_c("H100", "fp32", 256)
    assert {c.label: c.note for c in v.cards}["GPT-2 XL"] == "does not fit: 87.3 GB over its memory"
    names = [str(t.name) for t in v.figure.data]
    assert "GPT-2 XL" not in names  # no roofline point for a model that does not fit
    oom = next(t for t in v.figure.data if str(t.name).startswith("does not fit"))
    assert oom.marker.symbol == "x" and "GPT-2 XL" in oom.name
    assert "engine count (weights + activations)" in names  # GPT-2 XL's KV cache is not drawn
    assert "Capacity comes first: GPT-2 XL does not fit" in v.summary


def test_hollow_marker_names_the_kv_cache_when_gpt2_is_drawn():
    """The engine's count for a decoded GPT-2 XL token reads a 1,024-token KV cache
    (48 x 2 x 1,024 x 1,600 x 4 B = 629,145,600 B at FP32), which is not an activation."""
    p = Engine.solve(Models.GPT2, "H100", batch_size=1, precision="fp32", efficiency=1.0)
    assert p.kv_cache_bytes == 48 * 2 * 1024 * 1600 * 4 == 629_145_600
    names = [str(t.name) for t in lab.part_c("H100", "fp32", 1).figure.data]
    assert "engine count (weights + activations + KV cache)" in names


def test_part_c_int8_speaks_in_operations():
    """INT8 roof: 1979 TOP/s / 3.35 TB/s = 590.7 OP/B. Integer arithmetic is quoted in OP/s and
    OP/B, in the cards, the summary, the peek, the axes and the ridge label."""
    v = lab.part_c("H100", "int8", 1)
    cards = {c.label: c for c in v.cards}
    assert cards["Ridge point (peak)"].value == f"{1979e12 / 3.35e12:,.1f} OP/B" == "590.7 OP/B"
    assert cards["Ridge point (peak)"].note == "1979 TOP/s ÷ 3.35 TB/s"
    assert cards["ResNet-50"].value == "320.0 OP/B"  # 4 x 80.0
    shown = " ".join([v.summary, *v.peek, *(c.value + " " + c.note for c in v.cards)])
    assert "FLOP/B" not in shown
    assert v.figure.layout.yaxis.title.text == "Attainable TOP/s"
    assert "OP/byte" in v.figure.layout.xaxis.title.text
    assert all("FLOP" not in a.text for a in v.figure.layout.annotations)


def test_part_c_falls_back_to_one_precision_for_every_number():
    """The STM32H743 and the camera SoC list no FP16 rate: the roof is FP32, and so is every number
    (GPT-2 XL's proxy 0.5 FLOP/B, not FP16's 1.0; DLRM's 100 GB of FP32 tables, not 50 GB)."""
    for dev in ("STM32H743", "CortexA53Camera"):
        v = lab.part_c(dev, "fp16", 1)
        cards = {c.label: c for c in v.cards}
        assert cards["GPT-2 XL"].value == "0.5 FLOP/B"
        assert cards["DLRM"].note.startswith("100.0 GB of FP32 tables")
        assert "every number here is FP32" in cards["Roof precision"].note
        assert "every number here is FP32" in v.summary
        assert v.peek[0].endswith("bytes per FP32 value)")


def test_kws_card_names_table_8s_rounded_25():
    """Table 8 prints 25 FLOP/B for KWS (20 MFLOP / 800 KB, both rounded); mlsysim's exact
    17,328,384 / 830,352 B = 20.9. The card says so at Table 8's setting (FP32, batch 1) only."""
    assert round(17_328_384 / 830_352, 1) == 20.9 and 20e6 / 800e3 == 25
    kws = {c.label: c for c in lab.part_c("H100", "fp32", 1).cards}["KWS"]
    assert kws.value == "20.9 FLOP/B" and "Table 8: 25, from rounded 20 MFLOP / 800 KB" in kws.note
    other = {c.label: c for c in lab.part_c("H100", "fp32", 4).cards}["KWS"]
    assert "Table 8" not in other.note


def test_table1_regime_explains_each_disagreement():
    """When the engine's verdict at Table 1's regime is not Table 1's bottleneck, the card warns
    and the summary says why, from the engine's own numbers:
    - H100 INT8, ResNet-50 batch 256: 101.0 OP/B < the INT8 ridge 1979 / 3.35 = 590.7 OP/B,
      1979 / 67 = 29.5 -> 30x the FP32 ridge (20.0 FLOP/B): memory-bound.
    - H100 INT8, DLRM: its 25.0 billion table entries x 1 B = 25.0 GB of tables fit in 80 GB.
    - Camera-trap SoC FP32, wide MLP: 0.5 FLOP/B clears its ridge 0.5 / 3.2 = 0.16 FLOP/B."""
    v = lab.part_b("cnn", "H100", True)
    card = {c.label: c for c in v.cards}["Table 1's regime"]
    assert card.value == "memory-bound" and card.status == "warn"
    t1 = Engine.solve(Models.ResNet50, "H100", batch_size=256, precision="int8", efficiency=1.0)
    assert round(t1.arithmetic_intensity.magnitude, 1) == 101.0 < 590.7
    assert round(1979 / 67) == 30
    assert (
        "of its time is in memory-bound layers (its 101.0 OP/B on average fall short of"
        in v.summary
    )
    assert "590.7 OP/B, 30× the FP32 one" in v.summary
    d = lab.part_b("dlrm", "H100", True)
    assert round(Models.DLRM.weight_bytes("int8") / 1e9, 1) == 25.0
    assert "25.0 GB of INT8 tables fit" in d.summary
    m = lab.part_b("mlp", "CortexA53Camera", False)
    assert round(0.5e9 / 3.2e9, 2) == 0.16
    assert "of its time is in compute-bound layers: even its 0.5 FLOP/B clear" in m.summary
    assert "0.16 FLOP/B" in m.summary
    # where they agree (H100 FP32, every family) nothing is added and the card is not a warning
    for f in lab.FAMILIES:
        agree = lab.part_b(f, "H100", False)
        assert "here the engine differs" not in agree.summary
        assert {c.label: c for c in agree.cards}["Table 1's regime"].status in ("ok", "bad")


def test_gpt2_prefill_regime_is_not_bound_by_its_scores():
    """At S = 1,024 and d = 1,600 the attention products are 4 x 48 x 1,024² x 1,600 =
    322,122,547,200 FLOPs, 9% of the prefill's 3,506,703,564,800 (per block 2S / (12d + 2S) =
    2,048 / 21,248 = 9.6%; the LM head dilutes it to 9.2%). They dominate only past S = 6d = 9,600
    (section 6.7). The regime is not labelled '(S² scores)'."""
    assert "S²" not in lab.TABLE1_REGIME["transformer"][0]
    t1 = Engine.solve(
        Models.GPT2, "H100", precision="fp32", efficiency=1.0, phase="prefill", seq_len=1024
    )
    attn = sum(t.flops for t in t1.layers if t.type == "Attention")
    assert attn == 4 * 48 * 1024**2 * 1600
    assert lab.score_share(t1) == pytest.approx(attn / t1.flops) == pytest.approx(0.092, abs=1e-3)
    assert 2 * 1024 / (12 * 1600 + 2 * 1024) == pytest.approx(0.096, abs=1e-3)
    assert 6 * lab.GPT2_WIDTH == 9_600
    v = lab.part_b("transformer", "H100", False)
    assert "S² score products are only 9% of the prefill's FLOPs" in v.summary
    assert "6d = 9,600 tokens" in v.summary


def test_transfer_b_feedback_numbers():
    """GPT-2 XL, batch 64, FP32, 1,024-token caches on the H100: 581 launches x 5 us = 2.9 ms per
    step whatever the batch; the memory-bound rows (weights once, 64 caches) take 12.51 ms against
    2.97 ms in compute-bound rows."""
    p = lab.transfer_b_profile()
    assert p.latency_dispatch_s == pytest.approx(2.905e-3)
    comp, mem, _ = p.time_split
    assert round(mem * 1e3, 2) == 12.51 and round(comp * 1e3, 2) == 2.97
    fb = lab.TRANSFER_B.feedback
    assert "2.90 ms" in fb["dispatch"] and "memory-bound rows 12.51 ms" in fb["memory"]


def test_table8_notes_explain_each_gap_with_the_chapters_own_inputs():
    """Part C's cards show mlsysim's exact proxies (ResNet-50 80.0, MobileNetV2 42.9) beside
    Table 8's 80.2 and 42.8 (a reader found only KWS's gap explained): each note's printed value
    is the chapter's rounded FLOPs over the exact weight bytes."""
    from mlsysim import Models

    def table8(flops, model):
        return flops / Models.get(model).weight_bytes("fp32")

    assert round(table8(8.2e9, "ResNet50"), 1) == 80.2
    assert round(table8(600e6, "MobileNetV2"), 1) == 42.8
    assert round(Models.ResNet50.flops(1) / Models.ResNet50.weight_bytes("fp32"), 1) == 80.0
    cards = {c.label: c.note for c in lab.part_c("H100", "fp32", 1).cards}
    assert cards["ResNet-50"].endswith("Table 8: 80.2, from rounded 8.2 GFLOP")
    assert cards["MobileNetV2"].endswith("Table 8: 42.8, from rounded 600 MFLOP")


def test_table8_notes_come_from_the_engines_printed_arithmetic():
    """6.1's notes print what engine.table8_printed computes (6.9 uses the same function): the
    chapter's 80.2 and 42.8 come from FLOPs rounded to two figures before dividing."""
    from mlsysim import engine

    assert lab.table8_note("ResNet50") == "Table 8: 80.2, from rounded 8.2 GFLOP"
    assert lab.table8_note("MobileNetV2") == "Table 8: 42.8, from rounded 600 MFLOP"
    assert lab.table8_note("GPT2") is None
    exact = engine.weight_only_intensity(Models.ResNet50)
    assert round(exact, 1) == 80.0 and round(engine.table8_printed(Models.ResNet50), 1) == 80.2
    assert engine.round_sig(8_176_000_000.0) == 8.2e9 and engine.round_sig(0.0123, 1) == 0.01
    for bad in (math.nan, math.inf, -1.0):
        with pytest.raises(ValueError, match="x"):
            engine.round_sig(bad)


# ---- Part D: the hierarchy of priors (section 6.9.4; Definition 6.1) --------------------------

PRIORS_GT = json.loads(
    (Path(__file__).parent / "reference" / "priors.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize(
    "case", PRIORS_GT["params"], ids=lambda c: f"n{c['seq_len']}c{c['features']}k{c['kernel']}"
)
def test_prior_weights_match_torch(case):
    """Each family's layer counts exactly the parameters torch's own layer holds
    (tests/reference/regenerate_priors.py: Conv1d, RNN, MultiheadAttention, Linear, no biases),
    and the formulas the part prints: K·c², 2c², 4c², (n·c)²."""
    from mlsysim import priors

    n, c, k = case["seq_len"], case["features"], case["kernel"]
    got = {r.family: r.weights for r in priors.compare(n, c, k, 1)}
    assert got == {f: case[f] for f in priors.FAMILIES}
    assert got == {"cnn": k * c * c, "rnn": 2 * c * c, "attention": 4 * c * c, "mlp": (n * c) ** 2}


@pytest.mark.parametrize("case", PRIORS_GT["pairs"], ids=lambda c: f"n{c['seq_len']}k{c['kernel']}")
def test_prior_reach_matches_the_jacobian_of_the_real_layer(case):
    """The pairs one layer relates, against the nonzero blocks of torch's Jacobian: the CNN only
    within ±K//2, the RNN the past and itself, attention and the MLP every pair."""
    from mlsysim import priors

    n, k = case["seq_len"], case["kernel"]
    got = {r.family: r.pairs for r in priors.compare(n, 4, k, 1)}
    assert got == {f: case[f] for f in priors.FAMILIES}
    h = k // 2
    assert got["cnn"] == n * k - h * (h + 1) and got["rnn"] == n * (n + 1) // 2


def test_the_far_pair_is_out_of_the_cnns_reach_only():
    from mlsysim import priors

    cnn, rnn, att, mlp = priors.compare(256, 64, 3, 50)
    assert [r.relates for r in (cnn, rnn, att, mlp)] == [False, True, True, True]
    assert cnn.layers_needed == 50 and rnn.hops == 50 and att.hops == mlp.hops == 1
    assert cnn.reach == pytest.approx(766 / 65536) and rnn.reach == pytest.approx(32896 / 65536)
    assert att.reach == mlp.reach == 1.0
    assert mlp.examples_to_pin == 16_384 and cnn.examples_to_pin == att.examples_to_pin == 1
    # inside the window the CNN relates the pair: 7-wide reaches 3 positions
    near = priors.compare(256, 64, 7, 3)[0]
    assert near.relates and near.layers_needed == 1
    assert not priors.compare(256, 64, 7, 4)[0].relates
    assert priors.compare(256, 64, 7, 50)[0].layers_needed == math.ceil(50 / 3)


def test_priors_refuse_bad_input():
    from mlsysim import priors

    for name, kwargs in (
        ("seq_len", dict(seq_len=1, features=64, kernel=3, distance=1)),
        ("kernel", dict(seq_len=64, features=64, kernel=4, distance=1)),
        ("kernel", dict(seq_len=64, features=64, kernel=1, distance=1)),
        ("features", dict(seq_len=64, features=0, kernel=3, distance=1)),
        ("distance", dict(seq_len=64, features=64, kernel=3, distance=64)),
        ("distance", dict(seq_len=64, features=64, kernel=3, distance=0)),
    ):
        with pytest.raises(ValueError, match=name):
            priors.compare(**kwargs)
    with pytest.raises(ValueError, match="family"):
        priors.layer("gnn", 64, 64)


def test_part_d_views_match_the_question():
    v = lab.part_d("256", 50, "3")
    cards = {c.label: c for c in v.cards}
    assert cards["CNN"].value == "12,288 weights" and cards["CNN"].status == "bad"
    assert "50 layers needed" in cards["CNN"].note and "1.2% of the pairs" in cards["CNN"].note
    assert cards["RNN"].value == "8,192 weights" and "50.2% of the pairs" in cards["RNN"].note
    assert cards["Attention"].value == "16,384 weights"
    assert cards["MLP"].value == "268,435,456 weights"
    assert "outside the CNN's window" in v.summary and "the RNN learns the fewest here" in v.summary
    fb = lab.PRED_D.feedback
    assert "268,435,456 to 16,384 weights (16,384× fewer)" in fb["shrink"]
    assert "out of the CNN's reach until 50 layers are stacked" in fb["shrink"]
    inside = lab.part_d("256", 3, "7")
    assert "inside the CNN's window" in inside.summary
    assert {c.label: c.status for c in inside.cards}["CNN"] == "ok"


def test_part_d_chart_places_each_family_at_its_reach_and_weights():
    v = lab.part_d("1024", 10, "5")
    pts = {t.text[0]: (t.x[0], t.y[0]) for t in v.figure.data}
    assert pts["CNN"] == (pytest.approx((1024 * 5 - 6) / 1024**2), 5 * 64 * 64)
    assert pts["RNN"] == (pytest.approx(1025 / 2048), 2 * 64 * 64)
    assert pts["Attention"] == (1.0, 4 * 64 * 64) and pts["MLP"] == (1.0, (1024 * 64) ** 2)


def test_transfer_d_feedback_numbers():
    fb = lab.TRANSFER_D.feedback["mlp"]
    assert "268,435,456 → 274,877,906,944 weights, 1,024× for a sequence 32 times as long" in fb
    assert "CNN 12,288, RNN 8,192, attention 16,384" in fb
    from mlsysim import layers

    mha = layers.MultiHeadAttention(d_model=64, n_heads=1, seq_len=8192, bias=False)
    assert f"{mha.macs():,}" in fb
