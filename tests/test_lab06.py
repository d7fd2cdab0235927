"""Lab 06 (The Architecture Tax): the seed lab's errors, each with the corrected number.

The seed is shared/seeds/lab06_architecture_tax_reference.py; every assertion below computes the
value through mlsysim and states what the seed claimed.
"""

from __future__ import annotations

import inspect

import pytest

import mlsysim.layers as L
from mlsysim import Engine, Hardware, Models
from mlsysim.labs.components import fmt_time
from mlsysim.labs.parts import lab06
from mlsysim.models import mlp
from mlsysim.units import Q_


def test_attention_memory_at_128k_tokens_is_terabytes_not_64_gb():
    """Seed: "At 128K tokens with 32 heads in FP16, the attention matrix alone requires ~64 GB".
    One layer's score matrix is heads x S^2 x 2 B = 32 x 131,072^2 x 2 = 1.10 TB (17x more);
    even the seed's own formula (2 x S^2 x heads x bytes) gives 2.2 TB."""
    scores = L.Attention(d_model=32 * 128, n_heads=32, seq_len=131072).score_bytes(1, "fp16")
    assert scores == 32 * 131072**2 * 2 == 1_099_511_627_776
    assert scores / Q_(64, "GB").m_as("B") > 17
    view = lab06.part_b(131072, 32, False)
    assert view.cards[0].value == "1.1 TB"


def test_doubling_context_quadruples_scores():
    a = L.Attention(d_model=4096, n_heads=32, seq_len=4096).score_bytes()
    b = L.Attention(d_model=4096, n_heads=32, seq_len=8192).score_bytes()
    assert b == 4 * a


def test_pred_b_flash_attention_makes_the_128k_layer_fit():
    """Lab 06 asks what 6.6 has not (the ×4 question belongs to 6.6): at 131,072 tokens, 32 heads,
    d_head 128, FP16, materialized live memory is Q+K+V+O + 2 × 32 × 131,072² values ≈ 2.2 TB;
    tiled it is 4 × 131,072 × 4,096 × 2 B = 4.29 GB, under the H100's 80 GB."""
    mat = L.Attention(d_model=4096, n_heads=32, seq_len=131072)
    tiled = L.Attention(d_model=4096, n_heads=32, seq_len=131072, flash=True)
    assert tiled.live_elements(1) * 2 == 4 * 131072 * 4096 * 2
    assert mat.live_elements(1) * 2 == 4 * 131072 * 4096 * 2 + 2 * 32 * 131072**2 * 2
    assert tiled.live_elements(1) * 2 < Hardware.get("H100").memory.capacity.m_as("B")
    assert lab06.PRED_B.answer == "fits"


def test_flash_attention_changes_bytes_not_flops():
    mat = L.Attention(d_model=4096, n_heads=32, seq_len=8192)
    flash = L.Attention(d_model=4096, n_heads=32, seq_len=8192, flash=True)
    assert mat.flops() == flash.flops()
    assert flash.bytes_moved() * 50 < mat.bytes_moved()


def test_part_a_compares_like_with_like():
    """Seed: a square 150,528 x 150,528 layer (22.7 B params) vs a 3x3x3x64 conv (1,728) is
    "a 13.1 million-fold reduction" - the two layers produce outputs of different sizes. The
    chapter's comparison is per detector: 150,528 weights vs 27 = 5,575x; and its question is a
    1,000-unit layer: 150,529,000 parameters."""
    dense = L.Dense(in_features=224 * 224 * 3, out_features=1000)
    assert dense.params == 150_529_000
    assert round((224 * 224 * 3) / (3 * 3 * 3)) == 5575
    view = lab06.part_a(224, 1000, "fp32")
    assert view.cards[0].value == "150.5 M"
    assert "5,575×" in view.summary
    # PRED_A asks what the conv's weights do not show: its output map grows with the image area
    conv = {
        side: L.Conv2d(in_channels=3, out_channels=64, kernel_size=3, input_size=side, padding=1)
        for side in (224, 448)
    }
    assert conv[224].params == conv[448].params == 1792
    assert conv[224].activation_bytes(1, "fp32") == 224 * 224 * 64 * 4  # 12.8 MB (chapter L435)
    assert conv[448].activation_bytes(1, "fp32") == 448 * 448 * 64 * 4  # 51.4 MB
    assert lab06.PRED_A.answer == "quad"
    for fb in lab06.PRED_A.feedback.values():
        assert "12.8 MB → 51.4 MB" in fb
    cards = {c.label: c for c in lab06.part_a(448, 1000, "fp32").cards}
    assert cards["Conv 3×3 output map"].value == "51.4 MB"


def test_gigabytes_are_decimal():
    """Seed: ``_mem_gb = params * 4 / 1024**3`` labelled GB and compared with "80 GB": it mixes
    GiB with GB (7% off). mlsysim keeps them apart; the H100 holds 80e9 bytes."""
    h100 = Hardware.Cloud.H100.memory.capacity
    assert h100.m_as("B") == 80e9
    assert h100.m_as("GiB") == pytest.approx(74.506, abs=1e-3)
    view = lab06.part_a(224, 1000, "fp32")
    assert view.cards[1].value == "602.1 MB"  # 150,529,000 x 4 B, decimal


def test_depth_vs_width_really_has_equal_flops():
    """Seed: "128 layers deep (width 32)" and "2 layers deep (width 512)" have "identical
    FLOPs/params": 128 x 32^2 = 131,072 but 2 x 512^2 = 524,288 (4x). Equal FLOPs need width 256."""
    assert 2 * 512**2 == 4 * 128 * 32**2
    assert lab06.width_for(128) == 32 and lab06.width_for(2) == 256
    assert lab06.depth_model(128).flops() == lab06.depth_model(2).flops()


def test_part_c_uses_efficiency_and_the_registry_peak():
    """Seed: Part C ignored efficiency and hard-coded a 25 TFLOP/s Jetson peak. Here the compute
    term scales with 1/efficiency and the Jetson's FP16 peak comes from the registry."""
    m = lab06.depth_model(2)
    jet = Hardware.Edge.JetsonOrinNX
    fast = Engine.solve(m, jet, efficiency=1.0)
    slow = Engine.solve(m, jet, efficiency=0.1)
    assert slow.latency_compute_s == pytest.approx(10 * fast.latency_compute_s)
    assert jet.compute.peak("fp16").m_as("TFLOP/s") == pytest.approx(15.04)
    assert "15.04" in "\n".join(lab06.part_c(2, "JetsonOrinNX", 0.5, "registry").peek)


def test_deep_narrow_is_launch_bound():
    deep = Engine.solve(lab06.depth_model(128), Hardware.Cloud.H100)
    shallow = Engine.solve(lab06.depth_model(2), Hardware.Cloud.H100)
    assert deep.bottleneck == "Dispatch"
    assert deep.latency_s / shallow.latency_s > 10
    assert lab06.PRED_C.answer == "10x"


def test_part_d_reports_out_of_memory_instead_of_an_error_row():
    """Seed: Part D wrapped Engine.solve in ``except Exception`` and showed an "Error" row with
    zeros. Here nothing is caught; a model that does not fit is a 'bad' card with the bytes over."""
    assert "except" not in inspect.getsource(lab06.part_d)
    view = lab06.part_d(1, "JetsonOrinNX", False)
    dlrm = next(c for c in view.cards if c.label == "DLRM")
    assert dlrm.status == "bad" and "out of memory" in dlrm.note
    assert all("Error" not in c.value + c.note for c in view.cards)


def test_resnet_has_the_highest_mfu_at_batch_one():
    view = lab06.part_d(1, "H100", False)
    # the conditions the MFU depends on are named (vocab.conditions, issue 32)
    assert view.summary.startswith(
        "MFU at FP16, eager (one kernel per layer), batch 1, NVIDIA H100 SXM5 80GB: ResNet-50 reaches"
    )
    assert lab06.PRED_D.answer == "resnet"


# ---------------------------------------------------------------------------------------------
# Issue 10 #12: the synthesis ships the chapter's camera trap against explicit requirements
# ---------------------------------------------------------------------------------------------


def test_synthesis_offers_the_camera_soc_and_no_audio_model():
    assert "CortexA53Camera" in lab06.S_DEVICE.options
    assert "KWS" not in lab06.S_MODEL.options and "mnv2_075" in lab06.S_MODEL.options


def test_synthesis_energy_uses_the_chapters_active_power():
    """The worked example: ~200 mW active; 0.4187 GOP at 2 GOPS = 209 ms napkin → 41.8 mJ; the
    engine adds memory-bound rows and dispatch (219 ms → 43.9 mJ); 100 triggers → 4.4 J/day.
    Before: energy at TDP for every device and no camera SoC at all."""
    d = lab06.deployment("mnv2_075", "CortexA53Camera", 100, 10.0)
    assert d["power_w"] == 0.2
    assert d["energy_j"] == pytest.approx(0.2 * d["profile"].latency_s)
    assert d["profile"].latency_s == pytest.approx(0.2193, abs=0.001)
    assert d["energy_day_j"] == pytest.approx(100 * 0.2 * d["profile"].latency_s)
    assert d["passed"]


@pytest.mark.parametrize(
    ("model", "device", "per_day", "fails"),
    [
        (
            "ResNet50",
            "CortexA53Camera",
            100,
            {"latency", "energy"},
        ),  # 8.18 GOP / 2 GOPS = 4.1 s > 500 ms
        ("MobileNetV2", "JetsonOrinNX", 100, {"power"}),  # 25 W > 2 W average
        ("mnv2_075", "CortexA53Camera", 1000, {"energy"}),  # 1,000 × 43.9 mJ = 43.9 J > 10 J
    ],
)
def test_synthesis_designs_can_fail_each_requirement(model, device, per_day, fails):
    d = lab06.deployment(model, device, per_day, 10.0)
    assert {k for k, (ok, _) in d["checks"].items() if not ok} == fails
    assert not d["passed"]


def test_resnet50_on_the_camera_takes_the_chapters_4_1_s():
    """The camera SoC's 2 GOPS is already sustained: 8.18e9 / 2e9 = 4.09 s (not 8.2 s)."""
    d = lab06.deployment("ResNet50", "CortexA53Camera", 100, 10.0)
    assert d["profile"].latency_s == pytest.approx(Models.ResNet50.flops() / 2e9, rel=0.01)


def test_part_d_shows_dlrm_mfu_with_significant_digits():
    """Issue 10 #11: 'MFU 0.0%' for DLRM said nothing; two significant digits show its size."""
    v = lab06.part_d(1, "H100", False)
    dlrm = next(c for c in v.cards if c.label == "DLRM")
    assert dlrm.value != "MFU 0.0%" and dlrm.value.startswith("MFU ")
    assert float(dlrm.value.split()[1].rstrip("%")) > 0


def test_prediction_feedback_numbers_are_the_engines():
    """Found reading the feedback at defaults: 'about 256 vs 4 kernels' is 255 vs 3 (128 dense
    layers + 127 activations; 2 + 1), and MobileNetV2 has 8.178 / 0.6015 = 13.6× fewer FLOPs than
    ResNet-50 (not 13.7×), with 151 kernels against 174 in eager mode."""
    k = {
        d: sum(t.kernels for t in Engine.solve(lab06.depth_model(d), "H100").layers)
        for d in (128, 2)
    }
    assert k == {128: 255, 2: 3}
    assert "255 kernel launches against 3" in lab06.PRED_C.feedback["10x"]
    # the launch cost the answer rests on is in the stem, and the verdict holds across its range
    assert "5 µs" in lab06.PRED_C.question and "0.1 to 20 µs" in lab06.PRED_C.question
    shallow, deep = lab06.depth_model(2), lab06.depth_model(128)
    ratio = {}
    for us in (0.1, 5, 20):
        dev = lab06.with_launch(Hardware.get("H100"), str(us) if us != 5 else "5")
        ratio[us] = (
            Engine.solve(deep, dev, precision="fp16", efficiency=0.5).latency_s
            / Engine.solve(shallow, dev, precision="fp16", efficiency=0.5).latency_s
        )
    assert all(r > 10 for r in ratio.values())
    assert f"about {ratio[5]:.0f}×" in lab06.PRED_C.feedback["10x"]
    assert f"about {ratio[0.1]:.0f}× at 0.1 µs" in lab06.PRED_C.feedback["10x"]
    assert round(Models.ResNet50.flops() / Models.MobileNetV2.flops(), 1) == 13.6
    assert "13.6×" in lab06.PRED_D.feedback["mobilenet"]


SYN_ARGS = ("model", "device", "per_day", "energy")


def test_synthesis_reconciles_the_engine_with_the_chapters_209_ms():
    """L1516: 418e6 INT8 ops / 2e9 ops/s = 209 ms for MobileNetV2 0.75x on the camera SoC. The
    engine's 219.29 ms is that arithmetic (209.07 ms: 418,139,584 ops) plus 7.20 ms of memory-
    bound rows and 3.02 ms of launches (151 kernels x 20 us); the peek says so, in operations
    (INT8: OP, not FLOP)."""
    v = lab06.synthesis("mnv2_075", "CortexA53Camera", 100, "10")
    line = v.peek[1]
    assert "418.1 MOP / 2.0 GOP/s = 209.07 ms" in line
    assert (
        "209.07 ms of compute-bound rows + 7.20 ms of memory-bound rows + 3.02 ms of kernel "
        "launches = 219.29 ms" in line
    )
    # where rows are memory-bound their bytes replace their arithmetic: the peek's three terms
    # are the engine's time split and add up to its latency (it said "adds" to the arithmetic)
    dflt = lab06.synthesis(*(getattr(lab06, f"S_{p.upper()}").value for p in SYN_ARGS))
    prof = lab06.deployment(*(getattr(lab06, f"S_{p.upper()}").value for p in SYN_ARGS[:3]), 10.0)
    comp, mem, launch = prof["profile"].time_split
    assert (
        f"{fmt_time(comp)} of compute-bound rows + {fmt_time(mem)} of memory-bound rows + "
        f"{fmt_time(launch)} of kernel launches = {fmt_time(prof['profile'].latency_s)}"
        in dflt.peek[1]
    )
    d = lab06.deployment("mnv2_075", "CortexA53Camera", 100, 10.0)
    assert round(d["profile"].latency_s * 1e3, 2) == 219.29 == round(209.07 + 7.20 + 3.02, 2)
    # the power check compares the day's average (active while busy, assumed idle the rest) with
    # the 2 W average the supply sustains, and says which figure the device's power is
    assert d["checks"]["power"] == (
        True,
        "20 mW average (200 mW active while busy, idle assumed 10% of it) ≤ 2 W average supply",
    )


def test_part_b_names_both_score_copies():
    """131,072 tokens, 32 heads: one FP16 score matrix is 32 x 131,072^2 x 2 B = 1.1 TB; logits and
    probabilities are two of them (2.2 TB), Q, K, V and the output 4 x 131,072 x 4,096 x 2 B =
    4.3 GB."""
    s = lab06.part_b(131072, 32, False).summary
    assert "scores take 1.1 TB" in s and "one such matrix each" in s
    assert "(4.3 GB) the layer holds 2.2 TB" in s


def test_transfers_feedback_numbers():
    """TRANSFER_A: a ViT patch projection (16x16, 768) keeps 590,592 weights at 224 and 448.
    B: 262,144 tokens with FlashAttention, 4.3 -> 8.6 GB. C: 512 x 16 is about 339x 2 x 256 (128 x
    32 about 85x; 1,023 kernels against 255). D: ResNet-50 at batch 1 in INT8 against the INT8
    peak, MFU 0.89% -> 0.46% (launch-bound: the time barely moves)."""
    for side in (224, 448):
        c = L.Conv2d(in_channels=3, out_channels=768, kernel_size=16, stride=16, input_size=side)
        assert c.params == 590_592
    assert "590,592" in lab06.TRANSFER_A.feedback["same"]
    live = {
        s_: L.Attention(d_model=4096, n_heads=32, seq_len=s_, flash=True).live_elements(1) * 2
        for s_ in (131_072, 262_144)
    }
    assert (
        f"{live[131_072] / 1e9:.1f} GB → {live[262_144] / 1e9:.1f} GB"
        in (lab06.TRANSFER_B.feedback["double"])
    )
    h100 = Hardware.get("H100")
    shallow = Engine.solve(lab06.depth_model(2), h100, precision="fp16", efficiency=0.5)
    deep512 = Engine.solve(mlp([16] * 513, bias=False), h100, precision="fp16", efficiency=0.5)
    assert sum(t.kernels for t in deep512.layers) == 1023
    assert (
        f"about {deep512.latency_s / shallow.latency_s:.0f}×" in lab06.TRANSFER_C.feedback["four"]
    )
    mfu = {
        p: Engine.solve(Models.ResNet50, h100, precision=p, efficiency=1.0).mfu
        for p in ("fp16", "int8")
    }
    assert (
        f"{100 * mfu['fp16']:.2f}% → {100 * mfu['int8']:.2f}%" in lab06.TRANSFER_D.feedback["half"]
    )


def test_transfers_are_beyond_the_part_controls():
    """Defect (review of issue 32): Lab 06 TRANSFER_A/B sat on Part A/B's sliders (4,000 units at
    448; 64 heads). Now: a patch projection Part A does not have; 262,144 tokens, past Part B's
    last step; 512 layers, past Part C's; INT8, which Part D does not run."""
    assert lab06.B_SEQ.stop < 262_144 and "262,144" in lab06.TRANSFER_B.question
    assert lab06.C_DEPTH.stop < 512 and "512 layers" in lab06.TRANSFER_C.question
    assert "INT8" in lab06.TRANSFER_D.question


def test_capstone_chart_names_every_design_and_draws_yours_on_top():
    """Issue 35: the nine designs were unlabelled crosses and dots and 'your design' sat under a
    cross. Each design is named on the chart, and the student's is drawn last, named."""
    view = lab06.synthesis("mnv2_075", "JetsonOrinNX", 100, lab06.S_ENERGY.value)
    traces = list(view.figure.data)
    names = [t for tr in traces[:-1] for t in (tr.text or ())]
    expected = {
        lab06._design_name(m, d) for m in lab06.S_MODEL.options for d in lab06.S_DEVICE.options
    }
    assert set(names) == expected and len(names) == 9
    assert traces[-1].name == "your design: MNV2 0.75× · Jetson"
    assert traces[-1].marker.size > max(tr.marker.size for tr in traces[:-1])
