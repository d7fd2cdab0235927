"""Two paths to one number agree (issue 38): a quantity the API offers through two entry points
is tested through both, on every device of the registry.

- every grid point of ``Engine.sweep`` equals ``Engine.solve`` with the same arguments, for every
  device, every precision it lists, ``sparse`` on where it lists a sparse rate and off, eager and
  fused, a CNN and a language model in both phases;
- every derived rate equals its definition: ``sustained_flops`` is the peak x efficiency unless
  the device's rates are already sustained, the sparse peak exactly where one is listed, the
  ridge points are their rates over the bandwidth;
- ``max_batch`` sits on its edge: the batch it returns fits, one more does not.
"""

from __future__ import annotations

import pytest

from mlsysim import Engine, Hardware, Models
from mlsysim.engine import max_batch
from mlsysim.units import Q_

DEVICES = Hardware.all()
FIELDS = {
    "latency_s": "latency_s",
    "compute_s": "latency_compute_s",
    "memory_s": "latency_memory_s",
    "dispatch_s": "latency_dispatch_s",
    "flops": "flops",
    "bytes": "bytes_moved",
    "mfu": "mfu",
}


def _cases():
    for dev in DEVICES:
        for precision, rate in dev.compute.precisions.items():
            for sparse in (False, True) if rate.sparse is not None else (False,):
                yield pytest.param(dev, precision, sparse, id=f"{dev.key}-{precision}-{sparse}")


@pytest.mark.parametrize(("dev", "precision", "sparse"), list(_cases()))
def test_sweep_equals_solve_on_every_device(dev, precision, sparse):
    runs = [
        (Models.get("MobileNetV2"), {}),
        (Models.get("GPT2"), {"phase": "decode", "seq_lens": [2, 300]}),
        (Models.get("GPT2"), {"phase": "prefill", "seq_lens": [64]}),
    ]
    for model, kw in runs:
        for fused in (False, True):
            for eff in (0.35, 1.0):
                out = Engine.sweep(
                    model,
                    dev,
                    batch_sizes=[1, 3, 64],
                    precision=precision,
                    efficiency=eff,
                    sparse=sparse,
                    fused=fused,
                    **kw,
                )
                for i, b in enumerate(out["batch"]):
                    seq = out["seq_len"][i]
                    p = Engine.solve(
                        model,
                        dev,
                        batch_size=b,
                        precision=precision,
                        efficiency=eff,
                        phase=kw.get("phase"),
                        seq_len=seq if model.is_lm else None,
                        sparse=sparse,
                        fused=fused,
                    )
                    for key, attr in FIELDS.items():
                        assert out[key][i] == pytest.approx(getattr(p, attr), rel=1e-12), (
                            model.name,
                            fused,
                            eff,
                            b,
                            seq,
                            key,
                        )
                    assert out["intensity"][i] == pytest.approx(p.flops / p.bytes_moved, rel=1e-12)


@pytest.mark.parametrize("dev", DEVICES, ids=[d.key for d in DEVICES])
def test_derived_rates_equal_their_definitions(dev):
    bw = dev.memory.bandwidth.m_as("B/s")
    for precision, rate in dev.compute.precisions.items():
        dense = rate.dense.m_as("FLOP/s")
        for eff in (0.25, 0.5, 1.0):
            want = dense if dev.compute.is_sustained else dense * eff
            assert dev.sustained_flops(precision, eff) == pytest.approx(want, rel=1e-15)
            assert dev.sustained_ridge_point(precision, eff).m_as("FLOP/B") == pytest.approx(
                want / bw, rel=1e-12
            )
        assert dev.ridge_point(precision).m_as("FLOP/B") == pytest.approx(dense / bw, rel=1e-12)
        if rate.sparse is None:
            with pytest.raises(ValueError, match="no sparse rate"):
                dev.sustained_flops(precision, 0.5, sparse=True)
        else:
            s = rate.sparse.m_as("FLOP/s")
            assert s > dense
            assert dev.sustained_flops(precision, 0.5, sparse=True) == pytest.approx(
                s if dev.compute.is_sustained else s * 0.5, rel=1e-15
            )
            # the engine's compute term uses the sparse rate exactly when asked
            m = Models.get("ResNet50")
            p_dense = Engine.solve(m, dev, 64, precision, efficiency=0.5)
            p_sparse = Engine.solve(m, dev, 64, precision, efficiency=0.5, sparse=True)
            assert p_dense.latency_compute_s / p_sparse.latency_compute_s == pytest.approx(
                s / dense, rel=1e-9
            )


def _with_memory(dev, **sizes):
    """``dev`` with its memory sizes replaced (bytes), everything else as listed."""
    mem = dev.memory.model_copy(update={k: Q_(v, "B") for k, v in sizes.items()})
    return dev.model_copy(update={"memory": mem})


@pytest.mark.parametrize("k", [1, 5, 1000])
@pytest.mark.parametrize("reserve", [0, 123_457])
def test_max_batch_to_the_byte_on_one_memory(k, reserve):
    """A purpose-built device whose memory holds the weights, the reserve and exactly k samples:
    k fit; one byte less, k - 1; one byte less than the weights and the reserve, none."""
    model, dev = Models.get("KWS"), Hardware.get("H100")
    one = Engine.solve(model, dev, 1, "int8")
    w, per = int(one.weight_bytes), int(one.activation_bytes + one.kv_cache_bytes)
    assert w == one.weight_bytes and per == one.activation_bytes + one.kv_cache_bytes
    exact = _with_memory(dev, capacity=w + reserve + k * per)
    assert max_batch(model, exact, "int8", reserve_bytes=reserve) == k
    assert Engine.solve(model, exact, k, "int8").memory_footprint_bytes + reserve == (
        exact.memory.capacity.m_as("B")
    )
    short = _with_memory(dev, capacity=w + reserve + k * per - 1)
    assert max_batch(model, short, "int8", reserve_bytes=reserve) == k - 1
    none = _with_memory(dev, capacity=w + reserve - 1)
    assert max_batch(model, none, "int8", reserve_bytes=reserve) == 0
    if reserve == 0:
        assert Engine.solve(model, exact, k, "int8").feasible
        assert not Engine.solve(model, exact, k + 1, "int8").feasible


@pytest.mark.parametrize("k", [1, 3])
def test_max_batch_to_the_byte_on_flash_and_sram(k):
    """A microcontroller keeps the weights in flash and the samples in SRAM: each memory is its
    own edge, and weights one byte over the flash allow no sample however large the SRAM."""
    mcu = next(d for d in DEVICES if d.memory.flash is not None and d.memory.sram is not None)
    model = Models.get("KWS")
    one = Engine.solve(model, mcu, 1, "int8")
    w, per = int(one.weight_bytes), int(one.activation_bytes + one.kv_cache_bytes)
    exact = _with_memory(mcu, flash=w, sram=k * per)
    assert max_batch(model, exact, "int8") == k
    assert Engine.solve(model, exact, k, "int8").feasible
    assert not Engine.solve(model, exact, k + 1, "int8").feasible
    assert max_batch(model, _with_memory(mcu, flash=w, sram=k * per - 1), "int8") == k - 1
    assert max_batch(model, _with_memory(mcu, flash=w - 1, sram=10**9), "int8") == 0
    assert max_batch(model, _with_memory(mcu, flash=w, sram=per - 1), "int8") == 0


@pytest.mark.parametrize("dev", DEVICES, ids=[d.key for d in DEVICES])
def test_max_batch_is_on_its_edge(dev):
    """The batch ``max_batch`` returns is feasible and one more is not, on every device, for the
    memory each kind of device has (HBM, unified, flash + SRAM), with and without a reserve."""
    models = [Models.get("KWS"), Models.get("MobileNetV2"), Models.get("GPT2")]
    precision = "int8" if "int8" in dev.compute.precisions else dev.compute.quoted_precision
    for model in models:
        kw = {"phase": "decode", "seq_len": 512} if model.is_lm else {}
        for reserve in (0.0, 1e6):
            n = max_batch(model, dev, precision, reserve_bytes=reserve, **kw)
            one = Engine.solve(model, dev, 1, precision, **kw)
            if n == 0:
                continue
            fits = Engine.solve(model, dev, n, precision, **kw)
            more = Engine.solve(model, dev, n + 1, precision, **kw)
            room = dev.memory.capacity.m_as("B") - reserve
            per = one.activation_bytes + one.kv_cache_bytes
            if "flash" not in fits._overflows():  # one memory holds weights and samples
                assert fits.weight_bytes + n * per <= room
                assert fits.weight_bytes + (n + 1) * per > room or n == more.batch_size - 1
            assert fits.feasible
            if reserve == 0.0:
                assert not more.feasible or n == 2**31 - 1 or n >= 10**9
