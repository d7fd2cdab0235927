"""One number per quantity: the core's single functions behind the names the lessons use
(issue 10: reuse in MACs, two named ridge points, a sustained rate never derated twice)."""

from __future__ import annotations

import pytest

from mlsysim import Engine, Hardware, Models
from mlsysim.engine import weight_reuse
from mlsysim.labs import components as kit
from mlsysim.labs.vocab import LABELS, QUANTITIES, bound_phrase


def test_resnet50_reuses_each_weight_160_times_not_80_or_320():
    """One use is one multiply-accumulate: 8,178,368,512 FLOPs / 2 / 25,557,032 weights = 160.0
    (the torchvision count; 6.1 once said "about 80" and "FLOPs per weight = 320")."""
    r = weight_reuse(Models.ResNet50)
    assert r == pytest.approx(8_178_368_512 / 2 / 25_557_032, rel=1e-12)
    assert round(r) == 160


def test_decoded_token_uses_each_weight_about_once():
    """Batch-1 decode: one MAC per weight (a little less: the embeddings are gathered, not multiplied)."""
    assert 0.8 < weight_reuse(Models.GPT2) <= 1.0


def test_peak_ridge_is_the_chapters_and_the_sustained_one_has_its_own_name():
    """The chapter's ridge is un-derated: A100 312 TFLOP/s / 2.039 TB/s = 153; H100 989.5 / 3.35 = 295.4.
    The derated variant is a different function with a different label."""
    h100, a100 = Hardware.get("H100"), Hardware.get("A100")
    assert h100.ridge_point("fp16").m_as("FLOP/B") == pytest.approx(989.5 / 3.35, rel=1e-12)
    assert a100.ridge_point("fp16").m_as("FLOP/B") == pytest.approx(312 / 2.039, rel=1e-12)
    assert h100.sustained_ridge_point("fp16", 0.5).m_as("FLOP/B") == pytest.approx(
        989.5 / 3.35 / 2, rel=1e-12
    )
    assert LABELS["ridge_peak"] != LABELS["ridge_sustained"]
    with pytest.raises(TypeError):
        h100.ridge_point("fp16", 0.5)  # no efficiency argument on the peak ridge


def test_a_sustained_rate_is_never_derated_again():
    """The camera SoC's "~2 GOPS sustained" INT8: ResNet-50's 8.2e9 ops take 8.2e9 / 2e9 = 4.1 s of
    compute at any efficiency the caller passes (not 8.2 s at x0.5)."""
    cam = Hardware.get("CortexA53Camera")
    assert cam.compute.rate_basis == "sustained"
    assert cam.sustained_flops("int8", 0.5) == pytest.approx(2e9)
    assert cam.sustained_ridge_point("int8", 0.3) == cam.ridge_point("int8")
    for eff in (0.25, 0.5, 1.0):
        p = Engine.solve(Models.ResNet50, cam, precision="int8", efficiency=eff)
        assert p.latency_compute_s == pytest.approx(Models.ResNet50.flops() / 2e9, rel=1e-12)
    assert 4.0 < Engine.solve(Models.ResNet50, cam, precision="int8").latency_s < 4.3


def test_datasheet_peaks_are_derated_by_efficiency():
    h100 = Hardware.get("H100")
    assert h100.compute.rate_basis == "datasheet_peak"
    assert h100.sustained_flops("fp16", 0.5) == pytest.approx(989.5e12 / 2)
    p1 = Engine.solve(Models.ResNet50, h100, batch_size=256, efficiency=1.0)
    p5 = Engine.solve(Models.ResNet50, h100, batch_size=256, efficiency=0.5)
    assert p5.latency_compute_s == pytest.approx(2 * p1.latency_compute_s, rel=1e-12)
    assert p5.ridge_point == pytest.approx(
        p1.ridge_point
    ) and p5.sustained_ridge_point == pytest.approx(p1.ridge_point / 2)


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, float("nan"), float("inf"), True, "0.5"])
def test_efficiency_out_of_range_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="efficiency"):
        Hardware.get("H100").sustained_flops("fp16", bad)


def test_every_device_states_its_rate_basis():
    for dev in Hardware.all():
        assert dev.compute.rate_basis in ("datasheet_peak", "sustained")
        if (
            "sustained" in dev.provenance.notes.lower()
            and "not a peak" in dev.provenance.notes.lower()
        ):
            assert dev.compute.is_sustained, dev.key


def test_fact_keys_name_the_settings_and_refuse_unknown_quantities():
    a = kit.fact("latency", 0.01, model="ResNet50", device="H100", batch=1)
    b = kit.fact("latency", 0.01, batch=1, device="H100", model="ResNet50")
    assert a.key == b.key == "latency(batch=1, device=H100, model=ResNet50)"
    with pytest.raises(ValueError, match="quantity"):
        kit.fact("ridge", 1.0)
    with pytest.raises(ValueError):
        kit.fact("latency", float("nan"))
    assert set(LABELS) == set(QUANTITIES)


def test_bound_phrase_is_lower_case_mid_sentence():
    assert bound_phrase("Dispatch") == "launch-bound"  # the chapter says launch overhead
    with pytest.raises(ValueError, match="bottleneck"):
        bound_phrase("dispatch")


def test_integer_precisions_are_counted_in_operations():
    from mlsysim.labs.vocab import op_word

    assert [op_word(p) for p in ("int8", "int4", "fp16", "fp32", "fp8", None)] == [
        "OP",
        "OP",
        "FLOP",
        "FLOP",
        "FLOP",
        "FLOP",
    ]
