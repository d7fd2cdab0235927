"""Synthesis outputs checked per device against the registry (Lab 06 and 6.9).

A synthesis card that hard-codes one device's capacity, power or peak passes a test that looks
at that one device. Here every (model, device) pair of the synthesis is checked against the
registry's own figures, and a device whose figures are changed on purpose must change the
output: the parts must read the registry, not a constant.
"""

from __future__ import annotations

import math

import pytest

from mlsysim import Engine, Hardware, Models
from mlsysim.labs.components import fmt_bytes, fmt_time
from mlsysim.labs.parts import lab06
from mlsysim.labs.parts import s06_09_choosing as c69
from mlsysim.units import Q_, bytes_per_value


def _precision(dev):
    return "int8" if "int8" in dev.compute.precisions else dev.compute.quoted_precision


def _fits(model, dev, precision, batch=1, seq_len=None):
    """Weights + peak live activations (+ KV) against the registry's memories, from the model's
    parameter count and its largest live tensor (MCUs: weights in flash, tensors in SRAM)."""
    b = float(bytes_per_value(precision))
    weights = model.params * b
    rows = model.rows(seq_len, "decode") if model.is_lm else model.rows()
    live = max(r.layer.live_elements(batch) for r in rows) * b
    kv = model.kv_cache_bytes(seq_len, batch, precision) if model.is_lm else 0
    mem = dev.memory
    if mem.flash is not None and mem.sram is not None:
        return weights <= mem.flash.m_as("B") and live + kv <= mem.sram.m_as("B")
    return weights + live + kv <= mem.capacity.m_as("B")


def _card(view, label):
    [card] = [c for c in view.cards if c.label == label]
    return card


# --------------------------------------------------------------------------------------------
# Lab 06 synthesis: one model on one device
# --------------------------------------------------------------------------------------------

LAB06_PAIRS = [(m, d) for m in lab06.S_MODEL.options for d in lab06.S_DEVICE.options]


@pytest.mark.parametrize("model, device", LAB06_PAIRS)
def test_lab06_synthesis_against_registry(model, device):
    dev = Hardware.get(device)
    m = Models.get(model)
    prec = _precision(dev)
    view = lab06.synthesis(model, device)
    cap = dev.memory.capacity.m_as("B")
    mem = _card(view, "Memory")
    assert mem.note == f"of {fmt_bytes(cap)}"
    fits = _fits(m, dev, prec)
    assert mem.status == ("ok" if fits else "bad")
    assert ("does NOT fit" in view.summary) is (not fits)
    # latency and energy from the registry's TDP and an independent roofline sum
    p = Engine.solve(m, dev, precision=prec, efficiency=0.5)
    assert _card(view, "Latency").value == fmt_time(p.latency_s)
    energy_mj = dev.tdp.m_as("W") * p.latency_s * 1e3
    assert _card(view, "Energy / inference").value == f"{energy_mj:,.2f} mJ"
    assert _card(view, "Frames per second").value == f"{1 / p.latency_s:,.1f}"


def _patched(dev, **memory):
    return dev.model_copy(update={"memory": dev.memory.model_copy(update=memory)})


class _Registry:
    """Stands in for ``Hardware`` with some devices replaced."""

    def __init__(self, **replaced):
        self.replaced = replaced

    def get(self, key):
        key = key if isinstance(key, str) else key.key
        return self.replaced.get(key) or Hardware.get(key)

    def all(self):
        return [self.replaced.get(d.key, d) for d in Hardware.all()]


@pytest.mark.parametrize("device", ["H100", "JetsonOrinNX", "iPhone15Pro"])
def test_lab06_synthesis_reads_capacity_from_the_registry(monkeypatch, device):
    """Shrink the device to 10 MB: MobileNetV2's INT8 weights (3.5 MB) plus its largest live
    tensors still fit, ResNet-50's 25.6 MB do not; the card shows the new capacity."""
    small = _patched(Hardware.get(device), capacity=Q_(10, "MB"))
    monkeypatch.setattr(lab06, "Hardware", _Registry(**{device: small}))
    r50 = lab06.synthesis("ResNet50", device)
    assert _card(r50, "Memory").note == "of 10.0 MB"
    assert _card(r50, "Memory").status == "bad" and "does NOT fit" in r50.summary
    mnv2 = lab06.synthesis("MobileNetV2", device)
    assert _card(mnv2, "Memory").status == "ok"


def test_lab06_synthesis_reads_tdp_from_the_registry(monkeypatch):
    dev = Hardware.get("JetsonOrinNX")
    hot = dev.model_copy(update={"tdp": Q_(250, "W")})
    monkeypatch.setattr(lab06, "Hardware", _Registry(JetsonOrinNX=hot))
    base = _card(lab06.synthesis("MobileNetV2", "JetsonOrinNX"), "Energy / inference").value
    monkeypatch.undo()
    cold = _card(lab06.synthesis("MobileNetV2", "JetsonOrinNX"), "Energy / inference").value
    assert float(base.split()[0].replace(",", "")) == pytest.approx(10 * float(cold.split()[0].replace(",", "")), rel=0.01)


# --------------------------------------------------------------------------------------------
# 6.9 synthesis: every candidate of a family on every registry device
# --------------------------------------------------------------------------------------------

SCENARIOS = [("spatial", 2, 0.5, 2.0), ("temporal", 30, 0.6, 25.0), ("relational", 10, 0.5, 1000.0),
             ("tabular", 60, 0.1, 0.2), ("categorical", 1, 1.0, 1000.0)]


@pytest.mark.parametrize("data, fps, util, power", SCENARIOS)
def test_69_screen_gates_per_device(data, fps, util, power):
    rows = c69.screen(data, fps, util, power)
    devices = Hardware.all()
    assert len(rows) == len(c69.FAMILY[data]) * len(devices)
    by_model = {}
    for r in rows:
        by_model.setdefault(r["model"], []).append(r)
    for model_rows in by_model.values():
        assert [r["device"] for r in model_rows] == [d.key for d in devices]
    for key in c69.FAMILY[data]:
        m = c69._family_model(key)
        flops = m.flops(1, 1, "decode") if m.is_lm else m.flops()
        for r, dev in zip(by_model[m.name], devices, strict=True):
            prec = _precision(dev)
            assert r["precision"] == prec
            peak = dev.compute.peak(prec).m_as("FLOP/s")
            g = r["gates"]
            assert g["power"] is (dev.tdp.m_as("W") <= power)
            assert g["throughput"] is (peak * util >= fps * flops)
            # LMs: one decoded token against a cache of the model's full context
            assert g["memory"] is _fits(m, dev, prec, seq_len=m.default_seq_len if m.is_lm else None)
            p = Engine.solve(m, dev, precision=prec, efficiency=util)
            assert g["latency"] is (p.latency_s <= 1 / fps)
            assert r["energy_j"] == pytest.approx(dev.tdp.m_as("W") * p.latency_s, rel=1e-12)
            assert r["passed"] is all(g.values())


@pytest.mark.parametrize("data, fps, util, power", SCENARIOS)
def test_69_synthesis_cards_count_the_registry(data, fps, util, power):
    view = c69.synthesis(data, fps, util, str(power))
    rows = c69.screen(data, fps, util, power)
    n_dev = len(Hardware.all())
    assert _card(view, "Candidates × devices").value == str(len(c69.FAMILY[data]) * n_dev)
    passed = [r for r in rows if r["passed"]]
    assert _card(view, "Survive phase 2").value == str(len(passed))
    for gate in ("memory", "throughput", "latency", "power"):
        assert _card(view, f"Fail {gate}").value == str(sum(not r["gates"][gate] for r in rows))
    if passed:
        best = min(passed, key=lambda r: r["energy_j"])
        assert _card(view, "Lowest energy survivor").value == best["model"]


def test_69_memory_gate_reads_capacity(monkeypatch):
    """Give the Jetson 1 MB: MobileNetV2 no longer passes its memory gate there."""
    small = _patched(Hardware.get("JetsonOrinNX"), capacity=Q_(1, "MB"))
    monkeypatch.setattr(c69, "Hardware", _Registry(JetsonOrinNX=small))
    rows = {(r["model"], r["device"]): r for r in c69.screen("spatial", 1, 0.5, 1000.0)}
    assert rows[("MobileNetV2", "JetsonOrinNX")]["gates"]["memory"] is False
    assert rows[("MobileNetV2", "H100")]["gates"]["memory"] is True


def test_69_power_gate_reads_tdp(monkeypatch):
    cool = Hardware.get("H100").model_copy(update={"tdp": Q_(1.5, "W")})
    monkeypatch.setattr(c69, "Hardware", _Registry(H100=cool))
    rows = {(r["model"], r["device"]): r for r in c69.screen("spatial", 1, 0.5, 2.0)}
    assert rows[("MobileNetV2", "H100")]["gates"]["power"] is True
    monkeypatch.undo()
    rows = {(r["model"], r["device"]): r for r in c69.screen("spatial", 1, 0.5, 2.0)}
    assert rows[("MobileNetV2", "H100")]["gates"]["power"] is False


def test_69_throughput_headroom_napkin():
    """Napkin 6.3: 10 TFLOP/s x 0.5 / (30 x 100 GFLOP) = 1.67x."""
    assert c69.throughput_headroom(100e9, 30, 10e12, 0.5) == pytest.approx(5 / 3)
    assert math.isclose(c69.throughput_headroom(8.2e9, 30, 10e12, 0.5), 5e12 / 2.46e11)
