"""The engine's fast path against the row-by-row roofline it replaces.

``Engine.solve`` sums per-row maxima through exact integer thresholds and prefix sums
(``mlsysim.engine._roofline``). Here every preset on every device, at every precision the device
lists, eager and fused, at several batches, is recomputed the slow way: one float
``max(compute, memory)`` per row from the per-layer table (``Profile.layers``), summed, plus
dispatch."""

from __future__ import annotations

import pytest

from mlsysim import Engine, Hardware, Models

BATCHES = [1, 3, 64, 4096, 2**31]
CASES = [(m, d.key) for m in Models.names() for d in Hardware.all()]


@pytest.mark.parametrize("model,device", CASES, ids=[f"{m}-{d}" for m, d in CASES])
def test_fast_path_equals_row_by_row(model, device):
    dev = Hardware.get(device)
    for precision in dev.compute.precisions:
        for fused in (False, True):
            for batch in BATCHES:
                p = Engine.solve(
                    Models.get(model), dev, batch_size=batch, precision=precision, fused=fused
                )
                rows = p.layers
                slow = sum(max(t.t_compute, t.t_memory) for t in rows)
                dispatch = sum(t.t_dispatch for t in rows)
                assert p.latency_s == pytest.approx(slow + dispatch, rel=1e-12)
                assert p.latency_compute_s == pytest.approx(
                    sum(t.t_compute for t in rows), rel=1e-12
                )
                assert p.latency_memory_s == pytest.approx(sum(t.t_memory for t in rows), rel=1e-12)
                assert p.flops == Models.get(model).flops(batch, p.seq_len, p.phase)
                assert type(p.flops) is int
                comp = sum(t.t_compute for t in rows if t.t_compute >= t.t_memory)
                mem = sum(t.t_memory for t in rows if t.t_compute < t.t_memory)
                if dispatch >= comp and dispatch >= mem:
                    expect = "Dispatch"
                else:
                    expect = "Compute" if comp >= mem else "Memory"
                assert p.bottleneck == expect, (precision, fused, batch)


def test_sweep_equals_solve_at_every_batch():
    batches = list(range(1, 300)) + [4096, 2**20, 2**31]
    for name in ("ResNet50", "DLRM", "KWS"):
        out = Engine.sweep(Models.get(name), "H100", batch_sizes=batches, use_numpy=False)
        fast = Engine.sweep(Models.get(name), "H100", batch_sizes=batches)
        assert out == fast
        for i in (0, 1, 7, 298, 299, 300, 301):
            p = Engine.solve(Models.get(name), "H100", batch_size=batches[i])
            assert out["latency_s"][i] == p.latency_s
            assert out["flops"][i] == p.flops
            assert out["bytes"][i] == p.bytes_moved
