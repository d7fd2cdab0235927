"""Hardware registry: validated, frozen device specs with pint quantities and provenance.

Every number is stored in the unit the vendor quotes it in, next to the document it comes from.
A capacity a vendor quotes in "GB" is read as decimal (1 GB = 10^9 B, as DRAM is marketed, even
where the part is physically binary-sized: the H100's "80 GB" is planned with 80e9 B); a part
specified in powers of two (microcontroller SRAM and flash) is stored in KiB/MiB. Bandwidths are
decimal (GB/s, TB/s), one direction unless a field says otherwise.
Peak rates are **dense** unless a field says ``sparse``; the engine never uses a sparse rate
unless asked to. ``Hardware.get("H100")`` and the dotted paths (``Hardware.Cloud.H100``) reach
the same objects. A variant is ``H100.model_copy(update={...})``, validated like a constructor
call (pydantic's own ``model_copy`` writes an update in unchecked).
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import pint
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from . import _check
from .catalogue import identity
from .units import PRECISIONS, Q_, Quantity

__all__ = [
    "Provenance",
    "PeakRate",
    "Memory",
    "Compute",
    "Device",
    "Hardware",
    "DEVICES",
    "POWER_BASIS",
    "IDLE_SHARE",
]

_FROZEN = ConfigDict(frozen=True, arbitrary_types_allowed=True, extra="forbid")


#: Allowed magnitude of each kind of device figure, in its base unit: wide enough for any real
#: device (an MCU's 1 MB/s to an exascale machine), narrow enough that no latency or energy the
#: engine derives from it can overflow to inf.
_BOUNDS: dict[str, tuple[str, float, float]] = {
    "[computation] / [time]": ("FLOP/s", 1.0, 1e30),
    "[information] / [time]": ("B/s", 1.0, 1e30),
    "[information]": ("B", 0.0, 1e30),
    "[time]": ("s", 0.0, 3600.0),
    "[energy] / [time]": ("W", 0.0, 1e9),
}


#: Longest quantity text parsed ("3.35 TB/s"); pint's parser is quadratic in the length.
_MAX_QUANTITY_TEXT = 100


def _quantity(value: Any, dim: str, field: str, positive: bool = False) -> Quantity:
    """Coerce ``value`` ("3.35 TB/s", (3.35, "TB/s") or a Quantity) and check its dimension and
    magnitude: finite and inside ``_BOUNDS`` for its dimension (rates the engine divides by are
    at least 1 per second)."""
    if isinstance(value, str) and (
        len(value) > _MAX_QUANTITY_TEXT or "**" in value or "^" in value
    ):
        # pint evaluates the text as an expression: "10**10**10 TFLOP/s" would build a
        # ten-billion-digit integer, and a long string takes quadratic time to parse
        raise ValueError(
            f"{field} must be a quantity with units of {dim} written as a number and a unit "
            f"(at most {_MAX_QUANTITY_TEXT} characters, no powers), got {_check._short(value)}"
        )
    try:
        if isinstance(value, tuple) and len(value) == 2:
            if isinstance(value[1], str) and len(value[1]) > _MAX_QUANTITY_TEXT:
                raise ValueError("unit text too long")
            value = Q_(*value)
        elif isinstance(value, str):
            value = Q_(value)
    except (TypeError, ValueError, AttributeError, OverflowError, pint.PintError) as exc:
        raise ValueError(
            f"{field} must be a quantity with units of {dim}, got {_check._short(value)} ({exc})"
        ) from None
    if not isinstance(value, Quantity):
        raise ValueError(f"{field} must be a quantity with units of {dim}, got {value!r}")
    if not value.check(dim):
        raise ValueError(f"{field} must have units of {dim}, got {value.units}")
    m = value.magnitude
    unit, lo, hi = _BOUNDS[dim]
    ok = isinstance(m, int | float) and _check.is_finite(m)
    if ok:
        try:
            base = value.m_as(unit)
        except OverflowError:  # an int magnitude beyond a float's range
            ok = False
        else:
            ok = _check.is_finite(base) and (lo <= base <= hi) and not (positive and base <= 0)
            ok = ok and base >= 0
    if not ok:
        raise ValueError(
            f"{field} must be a finite quantity in [{lo:g}, {hi:g}] {unit}, got {value}"
        )
    if m == 0:  # -0.0 GB is 0 GB
        value = Q_(0, value.units)
    return value


class Provenance(_check.ValidatedCopy, BaseModel):
    """Where a device's numbers come from."""

    model_config = _FROZEN
    document: str = Field(min_length=3)
    url: str = Field(pattern=r"^https?://")
    date: _dt.date
    notes: str = ""


class PeakRate(_check.ValidatedCopy, BaseModel):
    """Peak operation rate for one precision. ``sparse`` is the 2:4 structured-sparsity rate."""

    model_config = _FROZEN
    dense: Quantity
    sparse: Quantity | None = None
    unit_kind: str = "tensor"  # which unit delivers it: "tensor", "vector", "npu", "cpu"

    @field_validator("dense", "sparse", mode="before")
    @classmethod
    def _rate(cls, v, info):
        if v is None:
            return None
        return _quantity(v, "[computation] / [time]", info.field_name, positive=True)


class Memory(_check.ValidatedCopy, BaseModel):
    model_config = _FROZEN
    capacity: Quantity
    bandwidth: Quantity
    kind: str = ""
    sram: Quantity | None = None  # on-chip SRAM (MCUs: the RAM a model's tensors live in)
    flash: Quantity | None = None  # on-chip flash (MCUs: where weights live)

    @field_validator("capacity", "sram", "flash", mode="before")
    @classmethod
    def _bytes(cls, v, info):
        if v is None:
            return None
        return _quantity(v, "[information]", info.field_name)

    @field_validator("bandwidth", mode="before")
    @classmethod
    def _bw(cls, v, info):
        return _quantity(v, "[information] / [time]", info.field_name, positive=True)


#: What a device's rates mean. ``"datasheet_peak"``: the vendor's peak, which real kernels reach
#: only a fraction of (the engine multiplies it by ``efficiency``). ``"sustained"``: a rate already
#: measured or planned as sustained (the chapter's camera SoC, "~2 GOPS sustained"); the engine
#: never derates it again.
RATE_BASES = ("datasheet_peak", "sustained")


class Compute(_check.ValidatedCopy, BaseModel):
    """Per-precision peak table. ``peak_flops`` is the dense rate at ``quoted_precision``;
    ``rate_basis`` says whether the table holds datasheet peaks or already-sustained rates."""

    model_config = _FROZEN
    quoted_precision: str
    precisions: dict[str, PeakRate]
    rate_basis: str = "datasheet_peak"

    @field_validator("rate_basis")
    @classmethod
    def _basis(cls, v):
        if v not in RATE_BASES:
            raise ValueError(f"rate_basis={v!r}; allowed: {', '.join(RATE_BASES)}")
        return v

    @property
    def is_sustained(self) -> bool:
        return self.rate_basis == "sustained"

    @field_validator("precisions")
    @classmethod
    def _known(cls, v):
        for name in v:
            if name not in PRECISIONS:
                raise ValueError(f"precisions: unknown precision {name!r}; allowed: {PRECISIONS}")
        return v

    @model_validator(mode="after")
    def _quoted_listed(self):
        if self.quoted_precision not in self.precisions:
            raise ValueError(
                f"quoted_precision={self.quoted_precision!r} is not in precisions "
                f"{sorted(self.precisions)}"
            )
        return self

    @property
    def peak_flops(self) -> Quantity:
        return self.precisions[self.quoted_precision].dense

    def peak(self, precision: str, sparse: bool = False) -> Quantity:
        """Dense (or, if asked, sparse) peak for ``precision``; an unlisted precision is an error."""
        rate = self.precisions.get(precision) if isinstance(precision, str) else None
        sparse = _check.flag("sparse", sparse)
        if rate is None:
            raise ValueError(
                f"precision={precision!r} is not listed for this device; "
                f"allowed: {', '.join(sorted(self.precisions))}"
            )
        if sparse:
            if rate.sparse is None:
                raise ValueError(f"precision={precision!r} has no sparse rate on this device")
            return rate.sparse
        return rate.dense


class Device(_check.ValidatedCopy, BaseModel):
    model_config = _FROZEN
    name: str
    key: str
    tier: str  # Cloud, Edge, Mobile, Tiny
    memory: Memory
    compute: Compute
    dispatch_tax: Quantity
    dispatch_note: str
    tdp: Quantity
    provenance: Provenance

    @field_validator("dispatch_tax", mode="before")
    @classmethod
    def _time(cls, v, info):
        return _quantity(v, "[time]", info.field_name)

    @field_validator("tdp", mode="before")
    @classmethod
    def _power(cls, v, info):
        return _quantity(v, "[energy] / [time]", info.field_name)

    @property
    def power_basis(self) -> str:
        """Which figure ``tdp`` is (``POWER_BASIS``): "TDP" (a rated maximum), "typical" (a
        sustained envelope or typical draw) or "active" (the draw while inferring)."""
        return POWER_BASIS.get(self.key, "TDP")

    @property
    def idle_power(self) -> Quantity:
        """The draw between inferences: a planning assumption, ``IDLE_SHARE`` of ``tdp`` (no
        registry device has a sourced idle figure; show it as an assumption, measure it)."""
        return self.tdp * IDLE_SHARE

    @property
    def power_note(self) -> str:
        """One sentence for a page: which figure ``tdp`` is and where the idle figure comes from."""
        what = {
            "TDP": "its TDP (a rated maximum)",
            "typical": "its typical draw",
            "active": "its active inference draw (the chapter's)",
        }[self.power_basis]
        return (
            f"{self.name}: {_watts(self.tdp.m_as('W'))} is {what}; idle "
            f"{_watts(self.idle_power.m_as('W'))} is a planning assumption ({IDLE_SHARE:.0%} of it)"
        )

    def sustained_flops(
        self, precision: str | None = None, efficiency: float = 1.0, sparse: bool = False
    ) -> float:
        """The compute rate the engine uses, in FLOP/s: the dense (or sparse) peak x
        ``efficiency`` for a datasheet peak; the listed rate itself for a device whose rates are
        already sustained (``compute.rate_basis == "sustained"``): never derated twice."""
        eff = _efficiency(efficiency)
        peak = self.compute.peak(
            self.compute.quoted_precision if precision is None else precision, sparse=sparse
        )
        rate = peak.m_as("FLOP/s")
        return rate if self.compute.is_sustained else rate * eff

    def ridge_point(self, precision: str | None = None) -> Quantity:
        """The chapter's ridge point: listed rate / bandwidth, in FLOP/byte (no efficiency).
        Label it "ridge point (peak)" (or "(sustained rate)" on a sustained-basis device)."""
        peak = self.compute.peak(self.compute.quoted_precision if precision is None else precision)
        return (peak / self.memory.bandwidth).to("FLOP/B")

    def sustained_ridge_point(
        self, precision: str | None = None, efficiency: float = 1.0
    ) -> Quantity:
        """The ridge the engine's roof bends at: ``sustained_flops`` / bandwidth, in FLOP/byte.
        Label it "sustained ridge point"; equal to ``ridge_point`` at efficiency 1 or on a
        sustained-basis device."""
        rate = self.sustained_flops(precision, efficiency)
        return Q_(rate / self.memory.bandwidth.m_as("B/s"), "FLOP/B")

    def attainable_flops(
        self, intensity: float, precision: str | None = None, efficiency: float = 1.0
    ) -> float:
        """The roofline: min(sustained rate, intensity x bandwidth), in FLOP/s, for an
        intensity in FLOP/byte (``sustained_flops`` decides whether efficiency applies)."""
        intensity = _check.real("intensity", intensity, 0.0)
        return min(
            self.sustained_flops(precision, efficiency),
            intensity * self.memory.bandwidth.m_as("B/s"),
        )

    def __repr__(self) -> str:  # short, for notebooks
        return f"Device({self.name})"

    __str__ = __repr__


def _watts(w: float) -> str:
    return f"{w:,.3g} W" if w >= 1 else f"{w * 1e3:,.3g} mW"


def _efficiency(efficiency) -> float:
    """Efficiency (fraction of peak): a finite number in [1e-12, 1] (mlsysim._check)."""
    return _check.real("efficiency", efficiency, _check.EFFICIENCY_MIN, 1.0)


def _rate(dense, sparse=None, unit="TFLOP/s", kind="tensor") -> PeakRate:
    return PeakRate(
        dense=Q_(dense, unit), sparse=None if sparse is None else Q_(sparse, unit), unit_kind=kind
    )


_D = _dt.date

# --- Power: which figure ``tdp`` is, and the idle draw -------------------------------------
#: What each device's ``tdp`` number is. A rated maximum (TDP) bounds the draw while busy; it
#: is not an average. The camera SoC's 200 mW is the chapter's active inference draw.
POWER_BASIS: dict[str, str] = {
    "H100": "TDP",
    "A100": "TDP",
    "A100_40GB": "TDP",
    "JetsonOrinNX": "TDP",  # the module's 25 W power mode (10-25 W)
    "CortexA53Camera": "active",  # chapter: "~200 mW active inference"
    "iPhone15Pro": "typical",  # a sustained SoC envelope, not a rated maximum
    "ArduinoNano33BLESense": "typical",
    "STM32H743": "typical",
}
#: Idle draw between inferences as a share of ``tdp``: a PLANNING ASSUMPTION, not a datasheet
#: figure. No datasheet in this registry quotes an idle power for the configuration modelled
#: here (the chapter's worked example lists "sleep current" without a number), so every page
#: that uses it says so; measure idle on the device before relying on an average.
IDLE_SHARE = 0.10

# --- Launch/dispatch overhead -------------------------------------------------------------
# The chapter gives no number. For discrete NVIDIA GPUs we use 5 us per kernel: NVIDIA's CUDA
# Graphs post ("Getting Started with CUDA Graphs", 2019) measures about 3.8 us per launch of a
# tiny kernel with the launch on the critical path and ~2 us with graphs; framework overhead
# adds more, so 5 us is a conservative eager-mode figure. It also matches the chapter's claim
# that launching GPT-2 XL's several hundred kernels per token takes "a few times" the 0.9 ms
# weight read (48 layers x ~12 kernels x 5 us = 2.9 ms).
_GPU_TAX_NOTE = (
    "5 us per kernel launch (eager mode). NVIDIA, 'Getting Started with CUDA Graphs' (2019): "
    "https://developer.nvidia.com/blog/cuda-graphs/ measures ~3.8 us per tiny-kernel launch; "
    "framework overhead adds more."
)

H100 = Device(
    **identity("H100"),
    memory=Memory(capacity=(80, "GB"), bandwidth=(3.35, "TB/s"), kind="HBM3"),
    compute=Compute(
        quoted_precision="fp16",
        precisions={
            "fp64": _rate(67, kind="tensor"),
            "fp32": _rate(67, kind="vector"),
            "tf32": _rate(494.5, 989),
            "bf16": _rate(989.5, 1979),
            "fp16": _rate(989.5, 1979),
            "fp8": _rate(1979, 3958),
            "int8": _rate(1979, 3958, unit="TOP/s"),
        },
    ),
    dispatch_tax=(5, "us"),
    dispatch_note=_GPU_TAX_NOTE,
    tdp=(700, "W"),
    provenance=Provenance(
        document="NVIDIA H100 Tensor Core GPU datasheet (SXM5 column)",
        url="https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet",
        date=_D(2023, 9, 1),
        notes="Tensor-core figures are printed with sparsity; the footnote says dense is one-half. "
        "Memory: the datasheet's '80GB' is read as 80e9 B, a conservative planning value; the HBM3 "
        "stacks hold 80 GiB (85.9e9 B), of which nvidia-smi reports 81,559 MiB usable.",
    ),
)

A100 = Device(
    **identity("A100"),
    memory=Memory(capacity=(80, "GB"), bandwidth=(2039, "GB/s"), kind="HBM2e"),
    compute=Compute(
        quoted_precision="fp16",
        precisions={
            "fp64": _rate(19.5, kind="tensor"),
            "fp32": _rate(19.5, kind="vector"),
            "tf32": _rate(156, 312),
            "bf16": _rate(312, 624),
            "fp16": _rate(312, 624),
            "int8": _rate(624, 1248, unit="TOP/s"),
        },
    ),
    dispatch_tax=(5, "us"),
    dispatch_note=_GPU_TAX_NOTE,
    tdp=(400, "W"),
    provenance=Provenance(
        document="NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM column)",
        url="https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
        date=_D(2021, 6, 1),
        notes="FP64 tensor core 19.5 TF; FP32 (CUDA cores) 19.5 TF; sparse rates marked apart.",
    ),
)

A100_40GB = Device(
    **identity("A100_40GB"),
    memory=Memory(capacity=(40, "GB"), bandwidth=(1555, "GB/s"), kind="HBM2"),
    compute=A100.compute,
    dispatch_tax=(5, "us"),
    dispatch_note=_GPU_TAX_NOTE,
    tdp=(400, "W"),
    provenance=Provenance(
        document="NVIDIA A100 Tensor Core GPU datasheet (A100 40GB SXM column)",
        url="https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
        date=_D(2021, 6, 1),
        notes="Same compute as the 80 GB part; 1,555 GB/s HBM2. The chapter's '~4% of peak' self-check matches this part.",
    ),
)

CORTEX_A53_CAMERA = Device(
    **identity("CortexA53Camera"),
    memory=Memory(capacity=(512, "MB"), bandwidth=(3.2, "GB/s"), kind="LPDDR2"),
    compute=Compute(
        quoted_precision="int8",
        precisions={
            "int8": _rate(2, unit="GOP/s", kind="cpu"),
            "fp32": _rate(0.5, unit="GFLOP/s", kind="cpu"),
        },
        rate_basis="sustained",
    ),
    dispatch_tax=(20, "us"),
    dispatch_note="20 us per operator: an interpreter-style runtime (TFLite) on an in-order Arm core; planning value.",
    tdp=(0.2, "W"),
    provenance=Provenance(
        document="Chapter 6 worked example 'Real-time wildlife monitoring' (planning assumptions: ~2 GOPS INT8 sustained, ~200 mW active inference, 512 MB RAM); Arm Cortex-A53 technical reference manual for the core",
        url="https://developer.arm.com/Processors/Cortex-A53",
        date=_D(2025, 1, 1),
        notes=(
            "A planning device, not a product: the chapter's sustained INT8 rate (not a peak) and "
            "active power. FP32 rate: the A53's 64-bit NEON datapath does one 2-lane FP32 FMA per "
            "cycle (4 FLOP/cycle, 4.8 GFLOP/s at 1.2 GHz), ~10% of it sustained; bandwidth is a "
            "32-bit LPDDR2-800 bus. Use only for the worked example."
        ),
    ),
)

JETSON_ORIN_NX = Device(
    **identity("JetsonOrinNX"),
    memory=Memory(capacity=(16, "GB"), bandwidth=(102.4, "GB/s"), kind="LPDDR5"),
    compute=Compute(
        quoted_precision="fp16",
        precisions={
            # 1024 CUDA cores x 2 FLOP x 918 MHz
            "fp32": _rate(1.88, kind="vector"),
            # 32 Ampere tensor cores x 512 FLOP/clk (FP16 dense) x 918 MHz
            "fp16": _rate(15.04, 30.08),
            "bf16": _rate(15.04, 30.08),
            # GPU-only INT8 (the 100 TOPS module figure adds the two DLAs and is sparse)
            "int8": _rate(30.08, 60.16, unit="TOP/s"),
        },
    ),
    dispatch_tax=(20, "us"),
    dispatch_note=(
        "20 us per kernel: the same CUDA launch path as a discrete GPU, driven by the module's "
        "Arm Cortex-A78AE CPU, which NVIDIA's Jetson benchmarks show is several times slower per "
        "launch than a server CPU; planning value, measure on the device."
    ),
    tdp=(25, "W"),
    provenance=Provenance(
        document="NVIDIA Jetson Orin NX Series Data Sheet (DS-10712-001) and Jetson Orin technical brief",
        url="https://developer.nvidia.com/embedded/jetson-orin-nx",
        date=_D(2023, 3, 1),
        notes=(
            "Module: 100 TOPS INT8 sparse (GPU + 2 DLA), GPU 1024 cores / 32 tensor cores at "
            "918 MHz, 16 GB 128-bit LPDDR5 at 102.4 GB/s, 10-25 W. GPU peaks derived from "
            "cores x clock; dense = sparse / 2. Capacity counted as 16 x 10^9 B (the part is "
            "16 GiB, shared with the CPU and the operating system)."
        ),
    ),
)

IPHONE_15_PRO = Device(
    **identity("iPhone15Pro"),
    memory=Memory(capacity=(8, "GB"), bandwidth=(51.2, "GB/s"), kind="LPDDR5"),
    compute=Compute(
        quoted_precision="int8",
        precisions={
            "int8": _rate(35, unit="TOP/s", kind="npu"),
            # 6 GPU cores x 128 ALUs x 2 FLOP x 1.398 GHz (third-party die analysis); Apple's GPUs
            # since the A14/M1 generation run FP16 at the FP32 rate (no double-rate FP16)
            "fp32": _rate(2.147, kind="vector"),
            "fp16": _rate(2.147, kind="vector"),
        },
    ),
    dispatch_tax=(50, "us"),
    dispatch_note=(
        "50 us per Core ML / Metal dispatch: planning value from the order of magnitude of "
        "per-command-buffer overhead on Apple GPUs; measure with Instruments on the device."
    ),
    tdp=(8, "W"),
    provenance=Provenance(
        document="Apple newsroom, 'iPhone 15 Pro and iPhone 15 Pro Max' (A17 Pro: 16-core Neural Engine, 35 trillion operations per second)",
        url="https://www.apple.com/newsroom/2023/09/apple-unveils-iphone-15-pro-and-iphone-15-pro-max/",
        date=_D(2023, 9, 12),
        notes=(
            "Apple does not publish memory or GPU FLOPs: 8 GB LPDDR5-6400 on a 64-bit bus "
            "(51.2 GB/s) and the GPU rates are from teardown/die analysis (FP16 at the FP32 rate: "
            "P. Turner, 'metal-benchmarks', github.com/philipturner/metal-benchmarks, 2023); 35 TOPS is the "
            "Neural Engine's INT8 marketing figure. ~8 W is a sustained SoC envelope."
        ),
    ),
)

NANO_33_BLE_SENSE = Device(
    **identity("ArduinoNano33BLESense"),
    memory=Memory(
        capacity=(256, "KiB"),
        bandwidth=(256, "MB/s"),
        kind="SRAM",
        sram=(256, "KiB"),
        flash=(1, "MiB"),
    ),
    compute=Compute(
        quoted_precision="int8",
        precisions={
            # single-precision FPU (Cortex-M4 TRM, FPU instruction timing): VADD.F32 and VMUL.F32
            # take 1 cycle, VFMA.F32 3 cycles, so at most 1 FLOP per cycle at 64 MHz
            "fp32": _rate(64, unit="MFLOP/s", kind="cpu"),
            # SMLAD: 2 16-bit MACs per cycle on int8 data widened to 16 bits
            "int8": _rate(256, unit="MOP/s", kind="cpu"),
        },
    ),
    dispatch_tax=(20, "us"),
    dispatch_note=(
        "20 us per operator: TensorFlow Lite Micro interpreter overhead per op on a Cortex-M4 "
        "(David et al., 'TensorFlow Lite Micro', MLSys 2021, report interpreter overhead in the "
        "tens of microseconds per invocation); planning value."
    ),
    tdp=(0.015, "W"),
    provenance=Provenance(
        document="Nordic nRF52840 Product Specification v1.7; Arduino Nano 33 BLE Sense datasheet; Arm Cortex-M4 Technical Reference Manual r0p1 (FPU instruction timing)",
        url="https://docs.nordicsemi.com/bundle/ps_nrf52840/page/keyfeatures_html5.html",
        date=_D(2021, 10, 1),
        notes="256 KB RAM, 1 MB flash, 64 MHz Cortex-M4F; bandwidth = 32-bit bus x 64 MHz.",
    ),
)

STM32H743 = Device(
    **identity("STM32H743"),
    memory=Memory(
        capacity=(1, "MiB"),
        bandwidth=(1.92, "GB/s"),
        kind="SRAM",
        sram=(1, "MiB"),
        flash=(2, "MiB"),
    ),
    compute=Compute(
        quoted_precision="int8",
        precisions={
            "fp32": _rate(960, unit="MFLOP/s", kind="cpu"),
            "int8": _rate(1920, unit="MOP/s", kind="cpu"),
        },
    ),
    dispatch_tax=(5, "us"),
    dispatch_note="5 us per operator: the TFLM interpreter figure scaled by the 7.5x faster clock.",
    tdp=(0.5, "W"),
    provenance=Provenance(
        document="STM32H742xI/G STM32H743xI/G datasheet DS12110",
        url="https://www.st.com/resource/en/datasheet/stm32h743zi.pdf",
        date=_D(2023, 6, 1),
        notes="1 MB RAM, 2 MB flash, 480 MHz; AXI SRAM 64-bit at 240 MHz = 1.92 GB/s.",
    ),
)


class _Tier:
    """A namespace of devices (``Hardware.Cloud.H100``)."""

    def __init__(self, name: str, **devices: Device):
        self._name = name
        self._devices = devices
        for key, dev in devices.items():
            setattr(self, key, dev)

    def __iter__(self):
        return iter(self._devices.values())

    def __getattr__(self, key: str):
        # only for names that are not set: a mis-cased or unknown device (Hardware.Cloud.h100)
        if key.startswith("_"):
            raise AttributeError(key)
        raise _check.UnknownName(
            f"device={key!r} is not in Hardware.{self._name}; allowed: {', '.join(self._devices)}"
        )

    def __repr__(self) -> str:
        return f"Hardware.{self._name}({', '.join(self._devices)})"


class _Registry:
    Cloud = _Tier("Cloud", H100=H100, A100=A100, A100_40GB=A100_40GB)
    Edge = _Tier("Edge", JetsonOrinNX=JETSON_ORIN_NX, CortexA53Camera=CORTEX_A53_CAMERA)
    Mobile = _Tier("Mobile", iPhone15Pro=IPHONE_15_PRO)
    Tiny = _Tier("Tiny", ArduinoNano33BLESense=NANO_33_BLE_SENSE, STM32H743=STM32H743)

    def all(self) -> list[Device]:
        return [d for tier in (self.Cloud, self.Edge, self.Mobile, self.Tiny) for d in tier]

    def names(self) -> list[str]:
        return [d.key for d in self.all()]

    def get(self, key: str | Device) -> Device:
        """Device by key (``"H100"``); an unknown key names the allowed ones."""
        if isinstance(key, Device):
            return key
        if not isinstance(key, str):
            raise ValueError(
                f"hardware must be a Device or a device key; allowed: "
                f"{', '.join(self.names())}; got {key!r}"
            )
        for dev in self.all():
            if dev.key == key:
                return dev
        raise ValueError(
            f"hardware={key!r} is not a known device; allowed: {', '.join(self.names())}"
        )


Hardware = _Registry()
DEVICES: dict[str, Device] = {d.key: d for d in Hardware.all()}
