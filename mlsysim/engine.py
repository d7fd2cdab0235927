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
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from . import _check
from .catalogue import RUNTIME_RESERVE_BYTES
from .hardware import Device, Hardware
from .layers import Layer
from .models import Model, Row, to_frame
from .units import PRECISIONS, Q_, Quantity, bytes_per_value

__all__ = [
    "Engine",
    "Profile",
    "LayerTiming",
    "weight_only_intensity",
    "table8_printed",
    "round_sig",
    "weight_reuse",
    "max_batch",
    "RUNTIME_RESERVE_BYTES",
    "solve",
    "sweep",
]


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
                arr.names[i],
                arr.types[i],
                arr.counts[i],
                arr.f1[i] * B,
                (arr.w[i] + arr.a[i] * B) * b,
                arr.k[i],
                arr.f1[i] * B / rate,
                (arr.w[i] + arr.a[i] * B) * b / bw,
                arr.k[i] * tax,
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
    def iron_law_s(self) -> float:
        """The chapter's serialized iron law on the same totals: D_vol/BW + O/(R_peak·η) + L_lat
        (no overlap: an upper bound on ``latency_s``)."""
        return self.latency_memory_s + self.latency_compute_s + self.latency_dispatch_s

    @property
    def roofline_s(self) -> float:
        """The whole-model roofline bound max(O/(R_peak·η), D_vol/BW) + L_lat (perfect overlap
        across layers: a lower bound on ``latency_s``, which takes the max layer by layer)."""
        return max(self.latency_compute_s, self.latency_memory_s) + self.latency_dispatch_s

    @property
    def energy_per_sample_j(self) -> float:
        """Energy per inference at board power: the device's TDP × latency / batch (an upper bound
        that charges idle and launch time at full power; the Horowitz per-operation model in
        ``mlsysim.energy`` is the lower-level view)."""
        return self.device.tdp.m_as("W") * self.latency_s / self.batch_size

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
        if self.latency_s <= 0:
            raise ValueError(
                "throughput is undefined: this profile has zero latency (no work, "
                "no traffic and a device with zero dispatch tax)"
            )
        return Q_(self.batch_size / self.latency_s, "1/s")

    @property
    def memory_footprint_bytes(self) -> float:
        return self.weight_bytes + self.activation_bytes + self.kv_cache_bytes

    @property
    def memory_footprint(self) -> Quantity:
        return Q_(self.memory_footprint_bytes, "B")

    @property
    def time_split(self) -> tuple[float, float, float]:
        """(seconds in compute-bound rows, seconds in memory-bound rows, seconds of kernel
        launches): the latency attributed term by term (each row to the larger of its two roofs);
        the three add up to ``latency_s``."""
        comp = mem = 0.0
        for t in self.layers:
            if t.t_compute >= t.t_memory:
                comp += t.t_compute
            else:
                mem += t.t_memory
        return comp, mem, self.latency_dispatch_s

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
    def overflows(self) -> dict[str, float]:
        """Bytes over each memory the model does not fit ('memory', or 'flash' and 'sram' on a
        microcontroller), the largest first; empty when it fits."""
        over = {k: v for k, v in self._overflows().items() if v > 0}
        return dict(sorted(over.items(), key=lambda kv: -kv[1]))

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
    return _Arrays(
        tuple(names),
        tuple(types),
        tuple(counts),
        tuple(f1),
        tuple(w),
        tuple(a),
        tuple(k),
        params,
        live,
        rows,
    )


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


def _validate(
    model, hardware, precision, efficiency, phase, sparse, fused, batches, seqs, sweep: bool
):
    """The one validation of ``Engine.solve`` and ``Engine.sweep`` arguments (``sweep`` only
    changes the names in messages: ``batch_sizes[2]`` instead of ``batch_size``).

    Returns (device, is_lm, phase, batches, seqs, precision, efficiency, sparse, fused)."""
    if not isinstance(model, Model | Layer):
        raise ValueError(f"model must be an mlsysim Model or Layer, got {type(model).__name__}")
    dev = Hardware.get(hardware)
    if not isinstance(precision, str) or precision not in PRECISIONS:
        raise ValueError(
            f"precision={precision!r} is not a known precision; allowed: {', '.join(PRECISIONS)}"
        )
    eff = _check.real("efficiency", efficiency, _check.EFFICIENCY_MIN, 1.0)
    sparse = _check.flag("sparse", sparse)
    fused = _check.flag("fused", fused)
    if phase is not None:
        _check_phase(phase)
    is_lm = isinstance(model, Model) and model.is_lm
    if sweep:
        batches = _check.integers("batch_sizes", batches, 1, _check.MAX_BATCH, 1, MAX_SWEEP_POINTS)
    else:
        batches = [_check.integer("batch_size", batches[0], 1, _check.MAX_BATCH)]
    if seqs is None:
        seqs = [None]
    elif sweep:
        seqs = _check.integers("seq_lens", seqs, 1, _check.MAX_SIZE, 1, 10_000)
        if len(seqs) * len(batches) > MAX_SWEEP_POINTS:
            raise ValueError(
                f"len(seq_lens) x len(batch_sizes) must be <= {MAX_SWEEP_POINTS:,} "
                f"points, got {len(seqs)} x {len(batches)}"
            )
    else:
        seqs = [_check.optional_integer("seq_len", seqs[0])]
    if not is_lm:
        what = (
            "a single layer (set it on the layer itself)"
            if isinstance(model, Layer)
            else f"{model.name}, which is not a language model"
        )
        if phase is not None:
            raise ValueError(f"phase={phase!r} applies to language models, not to {what}")
        if seqs != [None]:
            raise ValueError(
                f"{'seq_lens' if sweep else 'seq_len'} applies to language models, not to {what}"
            )
    elif phase is None:
        phase = "decode"
    return dev, is_lm, phase, batches, seqs, precision, eff, sparse, fused


def _check_phase(phase) -> None:
    """``phase`` is None, 'prefill' or 'decode' (a string first: a numpy array compared with the
    allowed names would be an array, and its truth value ambiguous)."""
    if phase is not None and (not isinstance(phase, str) or phase not in ("prefill", "decode")):
        raise ValueError(
            f"phase={_check._short(phase, 200)} is not valid; allowed: None, 'prefill', 'decode'"
        )


#: Most points one ``Engine.sweep`` evaluates (batch sizes x sequence lengths).
MAX_SWEEP_POINTS = 1_000_000

_DEVICE_CACHE: dict[tuple, tuple] = {}


def _device_rates(dev: Device, precision: str, sparse: bool) -> tuple[float, float, float, bool]:
    """(listed FLOP/s, bandwidth B/s, dispatch s, rate already sustained): pint conversions done
    once per device and precision, outside the hot path (``Device.sustained_flops`` is the
    same arithmetic: listed x efficiency unless the rate is already sustained). A device not
    seen before has its figures checked first (``model_copy(update=...)`` validates, but
    pydantic's ``model_construct`` skips validation): a ValueError names the field, e.g.
    ``hardware.memory.bandwidth``."""
    key = (id(dev), precision, sparse)
    hit = _DEVICE_CACHE.get(key)
    if hit is None or hit[0] is not dev:
        _check.device_figures("hardware", dev)
        peak = dev.compute.peak(precision, sparse=sparse).m_as("FLOP/s")
        hit = (
            dev,
            float(peak),
            float(dev.memory.bandwidth.m_as("B/s")),
            float(dev.dispatch_tax.m_as("s")),
            bool(dev.compute.is_sustained),
        )
        if len(_DEVICE_CACHE) > 256:
            _DEVICE_CACHE.clear()
        _DEVICE_CACHE[key] = hit
    return hit[1], hit[2], hit[3], hit[4]


@dataclass(frozen=True, slots=True)
class _Roofline:
    """A model's rows on one (rate, bandwidth, bytes per value): row i is compute-bound at
    batch B exactly when ``B >= thresholds[i]`` (from the exact rational inequality
    ``f1 * B / rate >= (w + a * B) * b / bw``), so the sum of per-row maxima at any batch is
    a bisection plus prefix sums of exact integers."""

    thresholds: tuple[int, ...]  # sorted; MAX_BATCH + 1 means never compute-bound
    pf: tuple[int, ...]  # prefix sums over rows sorted by threshold: FLOPs per example
    pw: tuple[int, ...]  # weight elements
    pa: tuple[int, ...]  # per-example traffic elements
    kernels: int
    arr: _Arrays


_ROOF_CACHE: dict[tuple, _Roofline] = {}


def _roofline(arr: _Arrays, rate: float, bw: float, b) -> _Roofline:
    key = (id(arr), rate, bw, b)
    roof = _ROOF_CACHE.get(key)
    if roof is not None and roof.arr is arr:
        return roof
    pr, qr = rate.as_integer_ratio()
    pb, qb = bw.as_integer_ratio()
    nb, db = b.numerator, b.denominator
    # f1 B pb/qb >= (w + a B) nb/db pr/qr  <=>  B (f1 X - a Y) >= w Y
    X, Y = pb * db * qr, nb * pr * qb
    never = _check.MAX_BATCH + 1
    keyed = []
    for f1, w, a in zip(arr.f1, arr.w, arr.a, strict=True):
        d, n = f1 * X - a * Y, w * Y
        if d > 0:
            t = min(-(-n // d), never)
        else:
            t = 0 if (d == 0 and n == 0) else never
        keyed.append((t, f1, w, a))
    keyed.sort(key=lambda r: r[0])
    pf, pw, pa = [0], [0], [0]
    for _, f1, w, a in keyed:
        pf.append(pf[-1] + f1)
        pw.append(pw[-1] + w)
        pa.append(pa[-1] + a)
    roof = _Roofline(tuple(r[0] for r in keyed), tuple(pf), tuple(pw), tuple(pa), sum(arr.k), arr)
    if len(_ROOF_CACHE) > 256:
        _ROOF_CACHE.clear()
    _ROOF_CACHE[key] = roof
    return roof


def _point(roof: _Roofline, B: int, rate: float, bw: float, nb: int, db: int, tax: float):
    """(latency, compute, memory, dispatch, attributed compute, attributed memory, flops,
    bytes) at batch ``B``; sums are exact integers divided once."""
    j = bisect_right(roof.thresholds, B)
    F, W, A = roof.pf[-1], roof.pw[-1], roof.pa[-1]
    fc = roof.pf[j]
    wm, am = W - roof.pw[j], A - roof.pa[j]
    scale = db * bw
    att_c = B * fc / rate
    att_m = (wm + B * am) * nb / scale
    td = roof.kernels * tax
    flops = B * F
    num = (W + B * A) * nb
    moved = num // db if num % db == 0 else num / db
    return (att_c + att_m + td, flops / rate, num / scale, td, att_c, att_m, flops, moved)


def weight_only_intensity(
    model: Model,
    precision: str = "fp32",
    batch: int = 1,
    seq_len: int | None = None,
    phase: str | None = None,
) -> float:
    """The chapter's proxy: FLOPs per byte of weights (activations ignored). For a language
    model the default is one decoded token (``phase='decode'``): ~2 FLOPs per parameter."""
    if not isinstance(model, Model):
        raise ValueError(f"model must be an mlsysim Model, got {type(model).__name__}")
    _check_phase(phase)
    if model.is_lm and phase is None and seq_len is None:
        phase, seq_len = "decode", 1
    wb = model.params * bytes_per_value(precision)
    flops = model.flops(batch, seq_len, phase)
    if wb <= 0:
        raise ValueError(
            f"model={model.name!r} has no parameters; weight-only intensity is undefined"
        )
    return flops / float(wb)


def round_sig(x: float, digits: int = 2) -> float:
    """``x`` (a count or a rate, >= 0) rounded to ``digits`` significant figures (how the
    chapter prints FLOP counts)."""
    x = _check.real("x", x, 0.0)
    digits = _check.integer("digits", digits, 1, 17)
    if x == 0:
        return 0.0
    return round(x, digits - 1 - math.floor(math.log10(abs(x))))


def table8_printed(model: Model) -> float:
    """The chapter's Table 8 arithmetic for the weight-only proxy: the FP32 forward FLOPs (a
    language model: one decoded token) rounded as printed, to two significant figures (8.2 G,
    600 M), over the exact FP32 weight bytes. Gives Table 8's 80.2 (ResNet-50) and 42.8
    (MobileNetV2) where the exact counts (``weight_only_intensity``) give 80.0 and 42.9."""
    if not isinstance(model, Model):
        raise ValueError(f"model must be an mlsysim Model, got {type(model).__name__}")
    if model.params <= 0:
        raise ValueError(f"model={model.name!r} has no parameters; Table 8's proxy is undefined")
    flops = model.flops(1, 1, "decode") if model.is_lm else model.flops()
    return round_sig(flops, 2) / float(model.params * bytes_per_value("fp32"))


def weight_reuse(
    model: Model | Layer, batch: int = 1, seq_len: int | None = None, phase: str | None = None
) -> float:
    """Uses of each weight per inference: MACs / parameters (one use = one multiply-accumulate,
    so FLOPs / 2 / params). ResNet-50 at 224x224: 4.089e9 / 25.557e6 = 160. For a language
    model the default is one decoded token (about 1 use per weight)."""
    if not isinstance(model, Model | Layer):
        raise ValueError(f"model must be an mlsysim Model or Layer, got {type(model).__name__}")
    _check_phase(phase)
    if isinstance(model, Layer) and (seq_len is not None or phase is not None):
        raise ValueError("seq_len and phase apply to language models; set them on the layer itself")
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
        is ``decode``, one new token; ``seq_len`` is the cache length after the step, the new
        token included, as transformers counts it; ``prefill``: a prompt of ``seq_len`` tokens)."""
        dev, is_lm, phase, (B,), (seq_len,), precision, efficiency, sparse, fused = _validate(
            model,
            hardware,
            precision,
            efficiency,
            phase,
            sparse,
            fused,
            (batch_size,),
            (seq_len,),
            sweep=False,
        )
        arr, name, _ = _coeffs(model, seq_len, phase, fused)
        peak, bw, tax, sustained = _device_rates(dev, precision, sparse)
        bpv = bytes_per_value(precision)
        rate = peak if sustained else peak * efficiency  # never derates a sustained rate
        roof = _roofline(arr, rate, bw, bpv)
        lat, tc_sum, tm_sum, td_sum, att_c, att_m, flops, moved = _point(
            roof, B, rate, bw, bpv.numerator, bpv.denominator, tax
        )

        if td_sum >= att_c and td_sum >= att_m and td_sum > 0:
            bottleneck = "Dispatch"
        else:
            bottleneck = "Compute" if att_c >= att_m else "Memory"

        s = seq_len if seq_len is not None else (model.default_seq_len if is_lm else None)
        kv = model.kv_cache_bytes(s, B, precision) if is_lm else 0
        b = float(bpv)
        return Profile(
            model_name=name,
            device=dev,
            batch_size=B,
            precision=precision,
            efficiency=efficiency,
            phase=phase,
            seq_len=s,
            flops=flops,
            bytes_moved=moved,
            peak_flops_s=peak,
            latency_s=lat,
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
        """Latency and its terms over a grid of batch sizes (and, for LMs, sequence lengths;
        in decode each ``seq_len`` includes the new token, as in ``solve``).

        Returns plain lists keyed ``batch``, ``seq_len``, ``latency_s``, ``compute_s``,
        ``memory_s``, ``dispatch_s``, ``flops``, ``bytes``, ``intensity``, ``mfu``. Uses numpy
        when it is installed (``use_numpy=None``), pure Python otherwise; both give the same
        numbers.
        """
        dev, is_lm, phase, batches, seqs, precision, efficiency, sparse, fused = _validate(
            model,
            hardware,
            precision,
            efficiency,
            phase,
            sparse,
            fused,
            batch_sizes,
            seq_lens,
            sweep=True,
        )
        if use_numpy is not None:
            use_numpy = _check.flag("use_numpy", use_numpy)
        np = _numpy() if use_numpy in (None, True) else None
        if use_numpy and np is None:
            raise ValueError("use_numpy=True but numpy is not installed")
        peak, bw, tax, sustained = _device_rates(dev, precision, sparse)
        bpv = bytes_per_value(precision)
        nb, db = bpv.numerator, bpv.denominator
        rate = peak if sustained else peak * efficiency  # never derates a sustained rate
        out: dict[str, list] = {
            k: []
            for k in (
                "batch",
                "seq_len",
                "latency_s",
                "compute_s",
                "memory_s",
                "dispatch_s",
                "flops",
                "bytes",
                "intensity",
                "mfu",
            )
        }
        for s in seqs:
            roof = _roofline(_coeffs(model, s, phase, fused)[0], rate, bw, bpv)
            if np is not None and len(batches) > 64:
                # the same exact arithmetic, element by element on object arrays
                Bv = np.array(batches, dtype=object)
                j = np.searchsorted(
                    np.asarray(roof.thresholds, dtype=np.int64),
                    np.asarray(batches, dtype=np.int64),
                    side="right",
                )
                pf, pw, pa = (np.array(p, dtype=object)[j] for p in (roof.pf, roof.pw, roof.pa))
                F, W, A = roof.pf[-1], roof.pw[-1], roof.pa[-1]
                scale = db * bw
                att = Bv * pf / rate + ((W - pw) + Bv * (A - pa)) * nb / scale
                td = roof.kernels * tax
                flops = Bv * F
                num = (W + Bv * A) * nb
                moved = [n // db if n % db == 0 else n / db for n in num.tolist()]
                lat = (att + td).tolist()
                tcs = (flops / rate).tolist()
                tms = (num / scale).tolist()
                tds = [td] * len(batches)
                fl = flops.tolist()
            else:
                pts = [_point(roof, B, rate, bw, nb, db, tax) for B in batches]
                lat = [p[0] for p in pts]
                tcs = [p[1] for p in pts]
                tms = [p[2] for p in pts]
                tds = [p[3] for p in pts]
                fl = [p[6] for p in pts]
                moved = [p[7] for p in pts]
            out["batch"] += batches
            out["seq_len"] += [s] * len(batches)
            out["latency_s"] += lat
            out["compute_s"] += tcs
            out["memory_s"] += tms
            out["dispatch_s"] += tds
            out["flops"] += fl
            out["bytes"] += moved
            out["intensity"] += [x / y if y else 0.0 for x, y in zip(fl, moved, strict=True)]
            out["mfu"] += [x / (t * peak) if t else 0.0 for x, t in zip(fl, lat, strict=True)]
        return out


solve = Engine.solve
sweep = Engine.sweep


def max_batch(
    model: Model | Layer,
    hardware: Device | str,
    precision: str = "fp16",
    phase: str | None = None,
    seq_len: int | None = None,
    reserve_bytes: float = 0.0,
) -> int:
    """The most samples (a language model's concurrent sequences) served at once whose memory
    footprint fits the device beside ``reserve_bytes`` kept back for the OS and runtime; 0 when
    not even one fits. The footprint is the weights, once, plus the same activations and KV
    cache per sample (``Profile.memory_footprint_bytes``), so the count is exact:
    ``(capacity - reserve - weights) // per-sample bytes``. On a microcontroller the weights
    must fit in flash and the per-sample bytes and the reserve in SRAM."""
    reserve = _check.real("reserve_bytes", reserve_bytes, 0.0, _check.MAX_SIZE)
    one = Engine.solve(model, hardware, 1, precision, phase=phase, seq_len=seq_len)
    per = one.activation_bytes + one.kv_cache_bytes
    over = one._overflows()  # at batch 1, per memory (where each kind of byte lives is its rule)
    if over.get("flash", 0.0) > 0:  # the weights alone do not fit
        return 0
    room = per - over["sram" if "sram" in over else "memory"] - reserve  # for the samples
    if room < per:
        return 0
    n = min(int(room // per), _check.MAX_BATCH) if per > 0 else _check.MAX_BATCH
    while n > 0 and n * per > room:  # (float division's last ulp)
        n -= 1
    return n


def with_launch_cost(device: Device | str, seconds: float) -> Device:
    """The device with another launch cost per kernel (``dispatch_tax``), e.g. to show how an
    answer depends on that assumption (CUDA graphs and compiled runtimes cut it toward 0)."""
    _check.instance("device", device, (Device, str), "a Device or a registry key")
    if isinstance(device, str) and device not in Hardware.names():
        raise ValueError(
            f"device={device!r} is not in the registry; allowed: {', '.join(Hardware.names())}"
        )
    dev = Hardware.get(device) if isinstance(device, str) else device
    seconds = _check.real("seconds", seconds, 0.0, 3600.0)  # the Device's own bound on dispatch_tax
    return dev.model_copy(update={"dispatch_tax": Q_(seconds, "s")})


def launch_cost_for_speedup(slow: Profile, fast: Profile, speedup: float) -> float | None:
    """The launch cost per kernel (seconds) at which ``slow.latency / fast.latency`` equals
    ``speedup``, all else as in the two profiles; None when no cost >= 0 gives it.

    Each latency is r + k t (r: the rows' roofline time, k: kernels, t: launch cost), so the
    ratio (r_s + k_s t) / (r_f + k_f t) = x solves exactly: t = (r_s - x r_f) / (x k_f - k_s)."""
    _check.instance("slow", slow, Profile)
    _check.instance("fast", fast, Profile)
    speedup = _check.real("speedup", speedup, 0.0, lo_open=True)
    rows = []
    for p in (slow, fast):
        k = sum(t.kernels for t in p.layers)
        rows.append((p.latency_s - p.latency_dispatch_s, k))
    (r_s, k_s), (r_f, k_f) = rows
    den = speedup * k_f - k_s
    num = r_s - speedup * r_f
    if den == 0 or not (math.isfinite(den) and math.isfinite(num)):
        return None  # (an overflowed term: no finite cost gives that speedup)
    t = (num / den) + 0.0  # -0.0 is 0
    return t if t >= 0 and math.isfinite(t) else None
