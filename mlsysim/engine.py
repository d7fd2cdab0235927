"""The roofline engine: latency, bottleneck and feasibility of a model on a device.

Per layer row (the chapter's roofline/overlap form plus the dispatch term of the iron law)::

    t = max(FLOPs / (peak x efficiency), bytes / bandwidth) + kernels x dispatch_tax

and the model is the sum over rows. ``peak`` is the device's **dense** rate at the requested
precision (sparse only when ``sparse=True``); a precision the device does not list is an error.

The bottleneck is the term that accounts for the most time: each row's max term is attributed
to "Compute" or "Memory", launches to "Dispatch".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from .hardware import Device, Hardware
from .layers import Layer, check_batch
from .models import Model, Row, to_frame
from .units import PRECISIONS, Q_, Quantity, bytes_per_value

__all__ = ["Engine", "Profile", "LayerTiming", "weight_only_intensity", "weight_reuse", "solve", "sweep"]


def _numpy():
    try:
        import numpy
    except ImportError:  # the browser path
        return None
    return numpy


@dataclass(frozen=True, slots=True)
class LayerTiming:
    name: str
    type: str
    count: int
    flops: float
    bytes: float
    kernels: int
    t_compute: float  # seconds, all copies
    t_memory: float
    t_dispatch: float

    @property
    def time(self) -> float:
        return max(self.t_compute, self.t_memory) + self.t_dispatch

    @property
    def bound(self) -> str:
        if self.t_dispatch > 0 and self.t_dispatch >= max(self.t_compute, self.t_memory):
            return "Dispatch"
        return "Compute" if self.t_compute >= self.t_memory else "Memory"

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes if self.bytes else 0.0


@dataclass(frozen=True)
class Profile:
    """Result of ``Engine.solve``. Times are pint quantities; ``*_s`` are plain seconds."""

    model_name: str
    device: Device
    batch_size: int
    precision: str
    efficiency: float
    phase: str | None
    seq_len: int | None
    flops: float
    bytes_moved: float
    peak_flops_s: float
    latency_s: float
    latency_compute_s: float
    latency_memory_s: float
    latency_dispatch_s: float
    bottleneck: str
    weight_bytes: float
    activation_bytes: float
    kv_cache_bytes: float
    fused: bool = False
    _timing: tuple = field(default=(), repr=False, compare=False)

    @property
    def layers(self) -> tuple[LayerTiming, ...]:
        """Per-row timings (built on first use)."""
        arr, B, b, rate, bw, tax = self._timing
        return tuple(
            LayerTiming(
                arr.names[i], arr.types[i], arr.counts[i], arr.f1[i] * B,
                (arr.w[i] + arr.a[i] * B) * b, arr.k[i],
                arr.f1[i] * B / rate, (arr.w[i] + arr.a[i] * B) * b / bw, arr.k[i] * tax,
            )
            for i in range(len(arr.f1))
        )

    # -- quantities --
    @property
    def latency(self) -> Quantity:
        return Q_(self.latency_s, "s")

    @property
    def latency_compute(self) -> Quantity:
        return Q_(self.latency_compute_s, "s")

    @property
    def latency_memory(self) -> Quantity:
        return Q_(self.latency_memory_s, "s")

    @property
    def latency_dispatch(self) -> Quantity:
        return Q_(self.latency_dispatch_s, "s")

    @property
    def arithmetic_intensity(self) -> Quantity:
        return Q_(self.flops / self.bytes_moved if self.bytes_moved else 0.0, "FLOP/B")

    @property
    def mfu(self) -> float:
        """Achieved FLOP/s over the device's peak at this precision (0..1)."""
        return self.flops / (self.latency_s * self.peak_flops_s) if self.latency_s > 0 else 0.0

    @property
    def throughput(self) -> Quantity:
        """Samples (or sequences) per second."""
        return Q_(self.batch_size / self.latency_s, "1/s")

    @property
    def memory_footprint_bytes(self) -> float:
        return self.weight_bytes + self.activation_bytes + self.kv_cache_bytes

    @property
    def memory_footprint(self) -> Quantity:
        return Q_(self.memory_footprint_bytes, "B")

    @property
    def capacity_bytes(self) -> float:
        return self.device.memory.capacity.m_as("B")

    def _overflows(self) -> dict[str, float]:
        """Bytes over each memory the model must fit in. Devices with on-chip flash (MCUs) keep
        weights in flash and activations in SRAM; others hold everything in ``capacity``."""
        mem = self.device.memory
        if mem.flash is not None and mem.sram is not None:
            return {
                "flash": self.weight_bytes - mem.flash.m_as("B"),
                "sram": self.activation_bytes + self.kv_cache_bytes - mem.sram.m_as("B"),
            }
        return {"memory": self.memory_footprint_bytes - self.capacity_bytes}

    @property
    def feasible(self) -> bool:
        return all(v <= 0 for v in self._overflows().values())

    @property
    def over(self) -> Quantity:
        """How far the footprint exceeds the device's memory (0 B when it fits)."""
        return Q_(max(0.0, *self._overflows().values()), "B")

    @property
    def limiting_memory(self) -> str:
        """Which memory is (most) exceeded or tightest: 'memory', 'flash' or 'sram'."""
        o = self._overflows()
        return max(o, key=o.get)

    @property
    def ridge_point(self) -> float:
        """The chapter's ridge point (listed peak / bandwidth) in FLOP/byte: "ridge point (peak)"."""
        return self.peak_flops_s / self.device.memory.bandwidth.m_as("B/s")

    @property
    def sustained_ridge_point(self) -> float:
        """Where this profile's roof bends (sustained rate / bandwidth) in FLOP/byte:
        "sustained ridge point". Equals ``ridge_point`` on a sustained-basis device."""
        return self._timing[3] / self.device.memory.bandwidth.m_as("B/s")

    @property
    def sustained_flops_s(self) -> float:
        """The compute rate this profile ran at: peak x efficiency, or a sustained device's rate."""
        return self._timing[3]

    def table(self):
        recs = [
            {
                "layer": t.name,
                "type": t.type,
                "count": t.count,
                "flops": t.flops,
                "bytes": t.bytes,
                "kernels": t.kernels,
                "intensity": t.intensity,
                "t_compute_us": t.t_compute * 1e6,
                "t_memory_us": t.t_memory * 1e6,
                "t_dispatch_us": t.t_dispatch * 1e6,
                "time_us": t.time * 1e6,
                "bound": t.bound,
            }
            for t in self.layers
        ]
        return to_frame(recs)


@dataclass(frozen=True, slots=True)
class _Arrays:
    """Per-row coefficients, linear in batch: flops = f1*B, elements = w + a*B."""

    names: tuple[str, ...]
    types: tuple[str, ...]
    counts: tuple[int, ...]
    f1: tuple[int, ...]  # FLOPs per example (all copies)
    w: tuple[int, ...]  # weight elements read (all copies)
    a: tuple[int, ...]  # per-example traffic elements (all copies)
    k: tuple[int, ...]  # kernels (all copies)
    params: int
    live1: int  # peak live activation elements per example
    rows: tuple = ()

    @property
    def kernels(self) -> int:
        return sum(self.k)


_EPILOGUE = ("BatchNorm2d", "Activation", "ResidualAdd")


def _arrays(rows: Sequence[Row], fused: bool = False) -> _Arrays:
    """``fused=True`` models a compiled inference graph (TensorRT-style): BatchNorm folded into
    the preceding conv's weights, activations and residual adds run in the producing kernel's
    epilogue (no launch, no extra pass over memory; the add still reads its skip input)."""
    names, types, counts, f1, w, a, k = [], [], [], [], [], [], []
    live = 0
    prev = None
    for r in rows:
        lay, c = r.layer, r.count
        t1 = lay.traffic_elements(1)
        t2 = lay.traffic_elements(2)
        per_ex = t2 - t1
        tname = type(lay).__name__
        if fused and tname in _EPILOGUE and prev is not None:
            # only the add's skip input is read again; BN and activations cost no traffic
            per_ex = lay.input_elements - lay.output_elements if tname == "ResidualAdd" else 0
            t1 = per_ex
            lay_k = 0
        else:
            lay_k = lay.kernels
            prev = lay
        names.append(r.name)
        types.append(type(lay).__name__)
        counts.append(c)
        f1.append(lay.flops(1) * c)
        w.append((t1 - per_ex) * c)
        a.append(per_ex * c)
        k.append(lay_k * c)
        live = max(live, lay.live_elements(1))
    params = sum(r.layer.params * r.count for r in rows)
    return _Arrays(tuple(names), tuple(types), tuple(counts), tuple(f1), tuple(w), tuple(a),
                   tuple(k), params, live, rows)


_ARRAY_CACHE: dict[tuple, _Arrays] = {}


def _rows_for(model, seq_len, phase) -> tuple[list[Row], str, bool]:
    if isinstance(model, Model):
        return model.rows(seq_len, phase), model.name, model.is_lm
    if isinstance(model, Layer):
        if phase is not None:
            raise ValueError("phase applies to language models, not to a single layer")
        if seq_len is not None:
            raise ValueError("seq_len applies to language models; set it on the layer itself")
        # a composite (MHA, transformer block) is solved leaf by leaf, like a model's rows
        return [Row(n, leaf) for n, leaf in model.rows()], type(model).__name__, False
    raise ValueError(f"model must be an mlsysim Model or Layer, got {type(model).__name__}")


def _coeffs(model, seq_len, phase, fused=False):
    rows, name, is_lm = _rows_for(model, seq_len, phase)
    key = (id(rows), len(rows), str(phase), fused)
    arr = _ARRAY_CACHE.get(key)
    if arr is None or arr.rows is not rows:
        arr = _arrays(rows, fused)
        if len(_ARRAY_CACHE) > 256:
            _ARRAY_CACHE.clear()
        _ARRAY_CACHE[key] = arr
    return arr, name, is_lm


def _validate(hardware, batch_size, precision, efficiency, phase):
    dev = Hardware.get(hardware)
    check_batch(batch_size)
    if precision not in PRECISIONS:
        raise ValueError(f"precision={precision!r} is not a known precision; allowed: {', '.join(PRECISIONS)}")
    if isinstance(efficiency, bool) or not isinstance(efficiency, int | float) or not (
        0 < efficiency <= 1
    ) or math.isnan(efficiency):
        raise ValueError(f"efficiency must be in (0, 1], got {efficiency!r}")
    if phase not in (None, "prefill", "decode"):
        raise ValueError(f"phase={phase!r} is not valid; allowed: None, 'prefill', 'decode'")
    return dev


def weight_only_intensity(
    model: Model, precision: str = "fp32", batch: int = 1, seq_len: int | None = None,
    phase: str | None = None,
) -> float:
    """The chapter's proxy: FLOPs per byte of weights (activations ignored). For a language
    model the default is one decoded token (``phase='decode'``): ~2 FLOPs per parameter."""
    if model.is_lm and phase is None and seq_len is None:
        phase, seq_len = "decode", 1
    wb = model.params * bytes_per_value(precision)
    return model.flops(batch, seq_len, phase) / float(wb)


def weight_reuse(model: Model | Layer, batch: int = 1, seq_len: int | None = None,
                 phase: str | None = None) -> float:
    """Uses of each weight per inference: MACs / parameters (one use = one multiply-accumulate,
    so FLOPs / 2 / params). ResNet-50 at 224x224: 4.089e9 / 25.557e6 = 160. For a language
    model the default is one decoded token (about 1 use per weight)."""
    if isinstance(model, Model) and model.is_lm and phase is None and seq_len is None:
        phase, seq_len = "decode", 1
    macs = model.macs(batch, seq_len, phase) if isinstance(model, Model) else model.macs(batch)
    if model.params <= 0:
        raise ValueError(f"model={model!r} has no parameters; weight reuse is undefined")
    return macs / model.params


class Engine:
    """Analytical roofline solver (stateless; ``Engine.solve`` and ``Engine.sweep``)."""

    @staticmethod
    def solve(
        model: Model | Layer,
        hardware: Device | str,
        batch_size: int = 1,
        precision: str = "fp16",
        efficiency: float = 0.5,
        phase: str | None = None,
        seq_len: int | None = None,
        sparse: bool = False,
        fused: bool = False,
    ) -> Profile:
        """Latency, bottleneck, MFU and feasibility of one forward pass (LMs: the default phase
        is ``decode``, one token against a KV cache of ``seq_len`` tokens)."""
        dev = _validate(hardware, batch_size, precision, efficiency, phase)
        is_lm = isinstance(model, Model) and model.is_lm
        if is_lm and phase is None:
            phase = "decode"
        arr, name, _ = _coeffs(model, seq_len, phase, fused)
        peak = dev.compute.peak(precision, sparse=sparse).m_as("FLOP/s")
        bw = dev.memory.bandwidth.m_as("B/s")
        tax = dev.dispatch_tax.m_as("s")
        b = float(bytes_per_value(precision))
        rate = dev.sustained_flops(precision, efficiency, sparse)  # never derates a sustained rate
        B = batch_size

        tc_sum = tm_sum = total = 0.0
        attributed_c = attributed_m = 0.0
        flops = moved = 0.0
        for f1, w, a in zip(arr.f1, arr.w, arr.a, strict=True):
            f = f1 * B
            by = (w + a * B) * b
            tc, tm = f / rate, by / bw
            tc_sum += tc
            tm_sum += tm
            if tc >= tm:
                attributed_c += tc
            else:
                attributed_m += tm
            flops += f
            moved += by
        td_sum = arr.kernels * tax
        total = attributed_c + attributed_m + td_sum

        if td_sum >= attributed_c and td_sum >= attributed_m and td_sum > 0:
            bottleneck = "Dispatch"
        else:
            bottleneck = "Compute" if attributed_c >= attributed_m else "Memory"

        s = seq_len if seq_len is not None else (model.default_seq_len if is_lm else None)
        kv = float(model.kv_cache_bytes(s, B, precision)) if is_lm else 0.0
        return Profile(
            model_name=name,
            device=dev,
            batch_size=B,
            precision=precision,
            efficiency=float(efficiency),
            phase=phase,
            seq_len=s,
            flops=flops,
            bytes_moved=moved,
            peak_flops_s=peak,
            latency_s=total,
            latency_compute_s=tc_sum,
            latency_memory_s=tm_sum,
            latency_dispatch_s=td_sum,
            bottleneck=bottleneck,
            weight_bytes=arr.params * b,
            activation_bytes=arr.live1 * B * b,
            kv_cache_bytes=kv,
            fused=fused,
            _timing=(arr, B, b, rate, bw, tax),
        )

    @staticmethod
    def sweep(
        model: Model | Layer,
        hardware: Device | str,
        batch_sizes: Sequence[int] = (1,),
        precision: str = "fp16",
        efficiency: float = 0.5,
        phase: str | None = None,
        seq_lens: Sequence[int] | None = None,
        sparse: bool = False,
        fused: bool = False,
        use_numpy: bool | None = None,
    ) -> dict[str, list[float]]:
        """Latency and its terms over a grid of batch sizes (and, for LMs, sequence lengths).

        Returns plain lists keyed ``batch``, ``seq_len``, ``latency_s``, ``compute_s``,
        ``memory_s``, ``dispatch_s``, ``flops``, ``bytes``, ``intensity``, ``mfu``. Uses numpy
        when it is installed (``use_numpy=None``), pure Python otherwise; both give the same
        numbers.
        """
        dev = _validate(hardware, 1, precision, efficiency, phase)
        batches = [check_batch(int(x)) if not isinstance(x, bool) else check_batch(x) for x in batch_sizes]
        if not batches:
            raise ValueError("batch_sizes must not be empty")
        is_lm = isinstance(model, Model) and model.is_lm
        if is_lm and phase is None:
            phase = "decode"
        seqs = list(seq_lens) if seq_lens is not None else [None]
        np = _numpy() if use_numpy in (None, True) else None
        if use_numpy and np is None:
            raise ValueError("use_numpy=True but numpy is not installed")
        peak = dev.compute.peak(precision, sparse=sparse).m_as("FLOP/s")
        bw = dev.memory.bandwidth.m_as("B/s")
        tax = dev.dispatch_tax.m_as("s")
        b = float(bytes_per_value(precision))
        rate = dev.sustained_flops(precision, efficiency, sparse)  # never derates a sustained rate
        out: dict[str, list] = {k: [] for k in ("batch", "seq_len", "latency_s", "compute_s", "memory_s",
                                                "dispatch_s", "flops", "bytes", "intensity", "mfu")}
        for s in seqs:
            arr, _, _ = _coeffs(model, s, phase, fused)
            if np is not None:
                B = np.asarray(batches, dtype=float)[None, :]
                f = np.asarray(arr.f1, dtype=float)[:, None] * B
                by = (np.asarray(arr.w, dtype=float)[:, None] + np.asarray(arr.a, dtype=float)[:, None] * B) * b
                tc, tm = f / rate, by / bw
                td = float(sum(arr.k)) * tax
                lat = np.maximum(tc, tm).sum(axis=0) + td
                F, BY = f.sum(axis=0), by.sum(axis=0)
                cols = (lat, tc.sum(axis=0), tm.sum(axis=0), np.full_like(lat, td), F, BY)
                lat, tcs, tms, tds, F, BY = (c.tolist() for c in cols)
            else:
                lat, tcs, tms, tds, F, BY = [], [], [], [], [], []
                td = sum(arr.k) * tax
                for Bv in batches:
                    fl = [x * Bv for x in arr.f1]
                    byl = [(w + a * Bv) * b for w, a in zip(arr.w, arr.a, strict=True)]
                    tcl = [x / rate for x in fl]
                    tml = [x / bw for x in byl]
                    lat.append(sum(max(c, m) for c, m in zip(tcl, tml, strict=True)) + td)
                    tcs.append(sum(tcl))
                    tms.append(sum(tml))
                    tds.append(td)
                    F.append(float(sum(fl)))
                    BY.append(sum(byl))
            out["batch"] += batches
            out["seq_len"] += [s] * len(batches)
            out["latency_s"] += lat
            out["compute_s"] += tcs
            out["memory_s"] += tms
            out["dispatch_s"] += tds
            out["flops"] += F
            out["bytes"] += BY
            out["intensity"] += [x / y if y else 0.0 for x, y in zip(F, BY, strict=True)]
            out["mfu"] += [x / (t * peak) if t else 0.0 for x, t in zip(F, lat, strict=True)]
        return out


solve = Engine.solve
sweep = Engine.sweep
