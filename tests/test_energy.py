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


def test_average_power_over_a_duty_cycle():
    """energy.average_power: active x duty + idle x (1 - duty). The chapter's camera trap: 100
    frames of 209 ms a day at 200 mW, 20 mW idle (an assumption) between them."""
    duty = energy.duty_cycle(100 * 0.209, 86_400)
    assert duty == pytest.approx(20.9 / 86_400)
    assert energy.average_power(0.2, 0.02, duty) == pytest.approx(
        (0.2 * 20.9 + 0.02 * (86_400 - 20.9)) / 86_400
    )
    assert energy.average_power(25.0, 2.5, 0.0) == 2.5  # never busy: the idle draw
    assert energy.average_power(25.0, 2.5, 1.0) == 25.0  # always busy: the listed power
    assert energy.duty_cycle(2.0, 1.0) == 1.0  # busy longer than the period: all of it
    with pytest.raises(ValueError, match="duty"):
        energy.average_power(1.0, 0.1, 1.5)
    with pytest.raises(ValueError, match="period_s"):
        energy.duty_cycle(1.0, 0.0)


def test_power_basis_and_idle_are_stated():
    """Every device says which figure its power is; idle is the stated planning share of it."""
    from mlsysim.hardware import IDLE_SHARE, POWER_BASIS

    assert set(POWER_BASIS) == set(Hardware.names())
    assert Hardware.get("CortexA53Camera").power_basis == "active"
    assert Hardware.get("JetsonOrinNX").power_basis == "TDP"
    for dev in Hardware.all():
        assert dev.idle_power.m_as("W") == pytest.approx(IDLE_SHARE * dev.tdp.m_as("W"))
        assert "planning assumption" in dev.power_note
