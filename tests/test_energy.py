"""Energy per operation and the roofline's attainable rate, against their published figures."""

from __future__ import annotations

import pytest

from mlsysim import Hardware, energy


@pytest.mark.parametrize(
    "precision, pj",
    [
        ("fp32", 3.7 + 0.9),  # Horowitz 2014 (45 nm): FP32 multiply 3.7 pJ + add 0.9 pJ
        ("fp16", 1.1 + 0.4),  # FP16 multiply 1.1 + add 0.4
        ("int8", 0.2 + 0.1),  # INT8 multiply 0.2 pJ, accumulated in INT32 (add 0.1 pJ)
    ],
)
def test_mac_energy_horowitz(precision, pj):
    assert energy.mac_energy(precision).m_as("pJ") == pytest.approx(pj)


def test_dram_word_and_ratio():
    """A 32-bit DRAM read: 640 pJ (the chapter's figure); 640 / 4.6 = 139x an FP32 MAC."""
    assert energy.access_energy(4, "dram").m_as("pJ") == pytest.approx(640)
    assert energy.move_vs_compute("fp32", "dram", 1) == pytest.approx(640 / 4.6)
    assert energy.move_vs_compute("fp32", "dram", 139) == pytest.approx(640 / 4.6 / 139)


@pytest.mark.parametrize(
    "intensity, tflops",
    [
        (1.0, 3.35),  # bandwidth roof: 1 FLOP/B x 3.35 TB/s
        (100.0, 335.0),
        (295.0, 988.25),  # just left of the ridge (989.5 / 3.35 = 295.37)
        (1000.0, 989.5),  # compute roof
    ],
)
def test_h100_roofline_attainable(intensity, tflops):
    assert Hardware.get("H100").attainable_flops(intensity, "fp16") / 1e12 == pytest.approx(tflops)
    assert Hardware.get("H100").attainable_flops(
        intensity, "fp16", efficiency=0.5
    ) / 1e12 == pytest.approx(min(tflops, 989.5 / 2))


def test_negative_zero_bytes_cost_zero_not_minus_zero():
    """A caller's -0.0 bytes is allowed (it equals 0) and costs 0 pJ, never '-0.0 pJ'."""
    import math

    e = energy.access_energy(-0.0, "dram").m_as("pJ")
    assert e == 0 and math.copysign(1.0, e) == 1.0
