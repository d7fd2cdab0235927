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
from .catalogue import CATALOGUE, identity
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
        sustained envelope or typical draw), "active" (the draw while inferring), "system" (a
        whole computer's measured maximum at the wall) or "supply" (the rated power supply)."""
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
            "active": "its active inference draw",
            "system": "the whole computer's maximum draw at the wall (vendor-measured)",
            "supply": "its rated power supply (an upper bound, not a TDP)",
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
    **dict.fromkeys(
        [
            "H200",
            "B200",
            "H100_PCIe",
            "A100_PCIe",
            "V100",
            "T4",
            "A10",
            "L4",
            "L40",
            "L40S",
            "MI300X",
            "MI325X",
            "Gaudi3",
            "TPUv4",
            "RTX5090",
            "RTX4090",
            "RTX4070",
            "RTX3060",
            "JetsonOrinNX8",
            "JetsonAGXOrin64",
            "JetsonAGXOrin32",
            "JetsonOrinNano8",
            "JetsonOrinNanoSuper",
            "JetsonOrinNano4",
        ],
        "TDP",
    ),  # fmt: skip
    # the Mac's measured maximum at the wall (Apple's power-consumption pages): whole computer
    **dict.fromkeys(["M1Max", "M1Ultra", "M2Max", "M2Ultra", "M4"], "system"),
    # the rated power supply: an upper bound on the draw, not a TDP
    "DGXSpark": "supply",
    "RaspberryPi5": "supply",
    "CoralEdgeTPU": "active",  # "4 TOPS using 2 watts"
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


# =============================================================================================
# The wider registry (issue 34): datacenter, desk & laptop and edge devices, each from its
# vendor's datasheet, spec page or whitepaper (``provenance``). Conventions as above: dense and
# sparse apart (NVIDIA and AMD print "with sparsity" figures, 2x dense: the dense rate is half);
# "GB" read as 10^9 B; a rate derived from cores x FLOP/clock x clock names its derivation.
# =============================================================================================

_PLANNING_TAX = {
    "gpu": _GPU_TAX_NOTE + " Planning value for this device (not measured on it).",
    "jetson": (
        "20 us per kernel: the Jetson Orin NX figure (same CUDA launch path, Arm Cortex-A78AE "
        "host); a planning assumption, measure on the device."
    ),
    "accel": (
        "5 us per operator: a planning assumption (the discrete-GPU eager figure); compiled "
        "graphs (XLA, the Gaudi graph compiler, ROCm graphs) launch less often. No vendor "
        "publishes a per-operator launch cost; measure on the device."
    ),
    "apple": (
        "50 us per Core ML / Metal dispatch: the iPhone 15 Pro planning value (Apple publishes "
        "no figure); measure with Instruments on the device."
    ),
    "cpu": (
        "20 us per operator: an interpreter-style runtime (TFLite / ONNX Runtime) on Arm cores; "
        "a planning assumption, measure on the device."
    ),
    "usb": (
        "20 us per operator: a planning assumption for an accelerator driven by a host CPU over "
        "PCIe (TFLite delegate); measure on the device."
    ),
}


def _device(
    key, memory, precisions, quoted, tax, tdp, document, url, date, notes, tax_kind="gpu"
) -> Device:
    return Device(
        **identity(key),
        memory=memory,
        compute=Compute(quoted_precision=quoted, precisions=precisions),
        dispatch_tax=(tax, "us"),
        dispatch_note=_PLANNING_TAX[tax_kind],
        tdp=tdp,
        provenance=Provenance(document=document, url=url, date=date, notes=notes),
    )


_SPARSE_NOTE = "Tensor-core rates are printed with sparsity (*); dense = one half."

# --- Datacenter ----------------------------------------------------------------------------
H200 = _device(
    "H200",
    Memory(capacity=(141, "GB"), bandwidth=(4.8, "TB/s"), kind="HBM3e"),
    {
        "fp64": _rate(67),
        "fp32": _rate(67, kind="vector"),
        "tf32": _rate(494.5, 989),
        "bf16": _rate(989.5, 1979),
        "fp16": _rate(989.5, 1979),
        "fp8": _rate(1979, 3958),
        "int8": _rate(1979, 3958, unit="TOP/s"),
    },
    "fp16",
    5,
    (700, "W"),
    "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM column)",
    "https://www.nvidia.com/en-us/data-center/h200/",
    _D(2024, 11, 1),
    _SPARSE_NOTE + " 141GB HBM3e at 4.8TB/s; max TDP up to 700W. Compute as the H100 SXM.",
)

B200 = _device(
    "B200",
    Memory(capacity=(180, "GB"), bandwidth=(8, "TB/s"), kind="HBM3e"),
    {
        "bf16": _rate(2.25, 4.5, unit="PFLOP/s"),
        "fp16": _rate(2.25, 4.5, unit="PFLOP/s"),
        "fp8": _rate(4.5, 9, unit="PFLOP/s"),
        "int8": _rate(4.5, 9, unit="POP/s"),
    },
    "fp16",
    5,
    (1000, "W"),
    "NVIDIA HGX B200 specifications (per GPU: the 8-GPU board's figures / 8) and NVIDIA Blackwell datasheet",
    "https://www.nvidia.com/en-us/data-center/hgx/",
    _D(2024, 3, 18),
    _SPARSE_NOTE + " HGX B200: FP16/BF16 36 PF*, FP8 72 PF*, INT8 72 POPS*, 1.4 TB HBM3e at "
    "64 TB/s for 8 GPUs = 4.5 PF*, 9 PF*, 180 GB and 8 TB/s each; up to 1,000 W per GPU. "
    "FP64 and TF32 left out (the HGX page and the datasheet print different per-GPU values); "
    "FP4 (not a registry precision) left out.",
)

H100_PCIE = _device(
    "H100_PCIe",
    Memory(capacity=(80, "GB"), bandwidth=(2, "TB/s"), kind="HBM2e"),
    {
        "fp64": _rate(51),
        "fp32": _rate(51, kind="vector"),
        "tf32": _rate(378, 756),
        "bf16": _rate(756.5, 1513),
        "fp16": _rate(756.5, 1513),
        "fp8": _rate(1513, 3026),
        "int8": _rate(1513, 3026, unit="TOP/s"),
    },
    "fp16",
    5,
    (350, "W"),
    "NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe column)",
    "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet",
    _D(2023, 9, 1),
    _SPARSE_NOTE + " 80GB HBM2e at 2TB/s; max TDP 300-350W (350 W listed).",
)

A100_PCIE = _device(
    "A100_PCIe",
    Memory(capacity=(80, "GB"), bandwidth=(1935, "GB/s"), kind="HBM2e"),
    dict(A100.compute.precisions),
    "fp16",
    5,
    (300, "W"),
    "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB PCIe column)",
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
    _D(2021, 6, 1),
    "Same compute as the SXM part; 1,935 GB/s HBM2e; max TDP 300W.",
)

V100 = _device(
    "V100",
    Memory(capacity=(32, "GB"), bandwidth=(900, "GB/s"), kind="HBM2"),
    {
        "fp64": _rate(7.8, kind="vector"),
        "fp32": _rate(15.7, kind="vector"),
        "fp16": _rate(125),
    },
    "fp16",
    5,
    (300, "W"),
    "NVIDIA Tesla V100 GPU datasheet (V100 for NVLink column)",
    "https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf",
    _D(2020, 1, 1),
    "Double precision 7.8 TF, single 15.7 TF, Tensor (FP16 mixed) 125 TF; 32GB HBM2 at 900GB/s; "
    "300 W. Volta has no structured sparsity, BF16 or INT8 tensor rate.",
)

T4 = _device(
    "T4",
    Memory(capacity=(16, "GB"), bandwidth=(320, "GB/s"), kind="GDDR6"),
    {
        "fp32": _rate(8.1, kind="vector"),
        "fp16": _rate(65),
        "int8": _rate(130, unit="TOP/s"),
        "int4": _rate(260, unit="TOP/s"),
    },
    "fp16",
    5,
    (70, "W"),
    "NVIDIA T4 Tensor Core GPU datasheet",
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf",
    _D(2019, 3, 1),
    "FP32 8.1 TF, mixed FP16/FP32 65 TF, INT8 130 TOPS, INT4 260 TOPS; 16GB GDDR6, 256-bit at "
    "10 Gbps: 'up to 320 GBytes/s' (NVIDIA T4 board product brief, memory specifications); 70 W "
    "maximum power limit. Turing has no structured sparsity.",
)

A10 = _device(
    "A10",
    Memory(capacity=(24, "GB"), bandwidth=(600, "GB/s"), kind="GDDR6"),
    {
        "fp32": _rate(31.2, kind="vector"),
        "tf32": _rate(62.5, 125),
        "bf16": _rate(125, 250),
        "fp16": _rate(125, 250),
        "int8": _rate(250, 500, unit="TOP/s"),
        "int4": _rate(500, 1000, unit="TOP/s"),
    },
    "fp16",
    5,
    (150, "W"),
    "NVIDIA A10 Tensor Core GPU datasheet",
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/a10-datasheet.pdf",
    _D(2021, 4, 1),
    "Datasheet prints dense | sparse* side by side: FP32 31.2, TF32 62.5 | 125*, BF16/FP16 "
    "125 | 250*, INT8 250 | 500*, INT4 500 | 1,000*; 24GB GDDR6 at 600GB/s; max power 150W.",
)

L4 = _device(
    "L4",
    Memory(capacity=(24, "GB"), bandwidth=(300, "GB/s"), kind="GDDR6"),
    {
        "fp32": _rate(30.3, kind="vector"),
        "tf32": _rate(60, 120),
        "bf16": _rate(121, 242),
        "fp16": _rate(121, 242),
        "fp8": _rate(242.5, 485),
        "int8": _rate(242.5, 485, unit="TOP/s"),
    },
    "fp16",
    5,
    (72, "W"),
    "NVIDIA L4 Tensor Core GPU datasheet",
    "https://www.nvidia.com/en-us/data-center/l4/",
    _D(2023, 3, 21),
    _SPARSE_NOTE + " FP32 30.3 (CUDA cores, dense), TF32 120*, FP16/BF16 242*, FP8 485*, INT8 "
    "485* TOPS; 24GB GDDR6 at 300GB/s; max power 72W.",
)

L40 = _device(
    "L40",
    Memory(capacity=(48, "GB"), bandwidth=(864, "GB/s"), kind="GDDR6"),
    {
        "fp32": _rate(90.5, kind="vector"),
        "tf32": _rate(90.5, 181),
        "bf16": _rate(181.05, 362.1),
        "fp16": _rate(181.05, 362.1),
        "fp8": _rate(362, 724),
        "int8": _rate(362, 724, unit="TOP/s"),
    },
    "fp16",
    5,
    (300, "W"),
    "NVIDIA L40 GPU datasheet",
    "https://www.nvidia.com/en-us/data-center/l40/",
    _D(2022, 10, 1),
    "Datasheet prints dense | sparse*: FP32 90.5, TF32 90.5 | 181*, BF16/FP16 181.05 | 362.1*, "
    "FP8 and INT8 362 | 724*; 48GB GDDR6 with ECC at 864GB/s; max power 300W. Checked against "
    "the L40/L40S datasheet table as reprinted by resellers (2026-12).",
)

L40S = _device(
    "L40S",
    Memory(capacity=(48, "GB"), bandwidth=(864, "GB/s"), kind="GDDR6"),
    {
        "fp32": _rate(91.6, kind="vector"),
        "tf32": _rate(183, 366),
        "bf16": _rate(362.05, 733),
        "fp16": _rate(362.05, 733),
        "fp8": _rate(733, 1466),
        "int8": _rate(733, 1466, unit="TOP/s"),
    },
    "fp16",
    5,
    (350, "W"),
    "NVIDIA L40S GPU datasheet",
    "https://www.nvidia.com/en-us/data-center/l40s/",
    _D(2023, 8, 8),
    "Datasheet prints dense | sparse*: FP32 91.6, TF32 183 | 366*, BF16/FP16 362.05 | 733*, FP8 "
    "and INT8 733 | 1,466*; 48GB GDDR6 with ECC at 864GB/s; max power 350W. (NVIDIA's Chinese "
    "datasheet 2907810 prints BF16/FP16 362.5 | 733*; the English page's 362.05 is kept.)",
)

_CDNA3 = {
    "fp64": _rate(163.4),
    "fp32": _rate(163.4),
    "tf32": _rate(653.7, 1307.4),
    "bf16": _rate(1307.4, 2614.9),
    "fp16": _rate(1307.4, 2614.9),
    "fp8": _rate(2614.9, 5229.8),
    "int8": _rate(2614.9, 5229.8, unit="TOP/s"),
}

MI300X = _device(
    "MI300X",
    Memory(capacity=(192, "GB"), bandwidth=(5.3, "TB/s"), kind="HBM3"),
    dict(_CDNA3),
    "fp16",
    5,
    (750, "W"),
    "AMD Instinct MI300X accelerator data sheet",
    "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf",
    _D(2023, 12, 6),
    "Peak matrix rates, dense and 'with structured sparsity' apart (FP64/FP32 matrix 163.4 TF, "
    "TF32 653.7 | 1,307.4*, FP16/BF16 1,307.4 | 2,614.9*, FP8/INT8 2,614.9 | 5,229.8*); 192GB "
    "HBM3 at 5.3TB/s; 750W peak board power. Headline figures cross-checked against AMD's launch "
    "coverage (~1.3 PF FP16, ~2.6 PF FP8, 192 GB, 5.3 TB/s, 750 W).",
    tax_kind="accel",
)

MI325X = _device(
    "MI325X",
    Memory(capacity=(256, "GB"), bandwidth=(6, "TB/s"), kind="HBM3E"),
    dict(_CDNA3),
    "fp16",
    5,
    (1000, "W"),
    "AMD Instinct MI325X accelerator data sheet",
    "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html",
    _D(2024, 10, 10),
    "Same CDNA 3 compute as the MI300X (FP16 1,307.4 TF, FP8 2,614.9 TF dense); 256GB HBM3E at "
    "6TB/s; 1,000W peak board power.",
    tax_kind="accel",
)

GAUDI3 = _device(
    "Gaudi3",
    Memory(capacity=(128, "GB"), bandwidth=(3.7, "TB/s"), kind="HBM2e"),
    {
        "bf16": _rate(1835),
        "fp8": _rate(1835),
    },
    "bf16",
    5,
    (900, "W"),
    "Intel Gaudi 3 AI Accelerator white paper (HL-325L OAM)",
    "https://www.intel.com/content/www/us/en/content-details/817486/intel-gaudi-3-ai-accelerator-white-paper.html",
    _D(2024, 4, 9),
    "MME (matrix engine) peaks: BF16 1,835 TF, FP8 1,835 TF, dense (no sparse rate); the vector "
    "(TPC) BF16 rate, 28.7 TF, is not the matmul roof. 128GB HBM2e at 3.7TB/s; 900W TDP (OAM).",
    tax_kind="accel",
)

TPU_V4 = _device(
    "TPUv4",
    Memory(capacity=(32, "GiB"), bandwidth=(1200, "GB/s"), kind="HBM2"),
    {
        "bf16": _rate(275),
        "int8": _rate(275, unit="TOP/s"),
    },
    "bf16",
    5,
    (192, "W"),
    "Google Cloud TPU v4 documentation (system architecture); Jouppi et al., 'TPU v4', ISCA 2023 (power)",
    "https://cloud.google.com/tpu/docs/v4",
    _D(2023, 4, 4),
    "Per chip: 275 TFLOPS peak bf16 and int8, 32 GiB HBM2 at 1,200 GB/s, no sparsity; 192 W "
    "maximum chip power (Google's ISCA 2023 paper). Cloud TPU v5e, v5p and v6e are left out: "
    "Google publishes no per-chip power for them.",
    tax_kind="accel",
)

# --- Desk and laptop -----------------------------------------------------------------------
RTX5090 = _device(
    "RTX5090",
    Memory(capacity=(32, "GB"), bandwidth=(1792, "GB/s"), kind="GDDR7"),
    {
        "fp32": _rate(104.8, kind="vector"),
        "int8": _rate(838, 1676, unit="TOP/s"),
    },
    "int8",
    5,
    (575, "W"),
    "NVIDIA RTX Blackwell GPU architecture whitepaper (GeForce RTX 5090 column) and RTX 5090 spec page",
    "https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf",
    _D(2025, 1, 30),
    "'3,352 AI TOPS' is FP4 with sparsity: FP4 dense is half (1,676); INT8 runs at half the FP4 "
    "rate, so INT8 is 838 dense | 1,676 sparse, the whitepaper appendix's 'Peak INT8 Tensor TOPS "
    "838 | 1,676*'. FP32 104.8 TF (21,760 CUDA cores x 2 x 2.41 GHz). 32GB GDDR7, 512-bit at "
    "28 Gbps = 1,792 GB/s; total graphics power 575 W. FP16/FP8 tensor left out (GeForce runs "
    "them at half rate with FP32 accumulate; not registered here).",
)

RTX4090 = _device(
    "RTX4090",
    Memory(capacity=(24, "GB"), bandwidth=(1008, "GB/s"), kind="GDDR6X"),
    {
        "fp32": _rate(82.6, kind="vector"),
        "tf32": _rate(82.6, 165.2),
        "fp16": _rate(165.2, 330.4),
        "bf16": _rate(165.2, 330.4),
        "fp8": _rate(330.3, 660.6),
        "int8": _rate(660.6, 1321.2, unit="TOP/s"),
    },
    "fp16",
    5,
    (450, "W"),
    "NVIDIA Ada GPU architecture whitepaper v2.01, appendix (GeForce RTX 4090)",
    "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf",
    _D(2023, 1, 1),
    "Dense | sparse as printed; FP16/BF16/FP8 with FP32 accumulate (what PyTorch uses; GeForce "
    "runs it at half the FP16-accumulate rate). 24GB GDDR6X at 1,008 GB/s; 450 W total "
    "graphics power.",
)

RTX4070 = _device(
    "RTX4070",
    Memory(capacity=(12, "GB"), bandwidth=(504, "GB/s"), kind="GDDR6X"),
    {
        "fp32": _rate(29.1, kind="vector"),
        "int8": _rate(233, 466, unit="TOP/s"),
    },
    "int8",
    5,
    (200, "W"),
    "NVIDIA GeForce RTX 4070 family specifications",
    "https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4070-family/",
    _D(2023, 4, 13),
    "466 AI TOPS (NVIDIA's Ada 'AI TOPS' are INT8/FP8 with sparsity: the Ada whitepaper's 4090 "
    "figure 1,321.2 is its INT8 sparse rate); dense = 233. FP32 derived: 5,888 CUDA cores x 2 x "
    "2.475 GHz boost = 29.1 TF (NVIDIA: '29 shader TFLOPS'). 12GB GDDR6X, 192-bit at 21 Gbps = "
    "504 GB/s; 200 W total graphics power.",
)

RTX3060 = _device(
    "RTX3060",
    Memory(capacity=(12, "GB"), bandwidth=(360, "GB/s"), kind="GDDR6"),
    {
        "fp32": _rate(12.76, kind="vector"),
    },
    "fp32",
    5,
    (170, "W"),
    "NVIDIA GeForce RTX 3060 family specifications",
    "https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3060-3060ti/",
    _D(2021, 2, 25),
    "FP32 derived: 3,584 CUDA cores x 2 x 1.78 GHz (NVIDIA's boost clock) = 12.76 TF (NVIDIA: "
    "'13 shader TFLOPS'). 12GB GDDR6, 192-bit at 15 Gbps = 360 GB/s; 170 W graphics card power. "
    "Tensor-core rates left out: NVIDIA publishes none for this card.",
)

DGX_SPARK = _device(
    "DGXSpark",
    Memory(capacity=(128, "GB"), bandwidth=(273, "GB/s"), kind="LPDDR5x (unified)"),
    {
        "fp32": _rate(31, kind="vector"),
    },
    "fp32",
    20,
    (240, "W"),
    "NVIDIA DGX Spark product page and hardware specifications; GB10 at Hot Chips 2025 (FP32)",
    "https://www.nvidia.com/en-us/products/workstations/dgx-spark/",
    _D(2025, 10, 15),
    "1 PFLOP FP4 with sparsity (FP4 is not a registry precision; NVIDIA publishes no FP16/INT8 "
    "tensor rate); ~31 TFLOPS FP32 as NVIDIA presented at Hot Chips 2025. 128GB LPDDR5x unified "
    "at 273 GB/s; 240 W power supply.",
    tax_kind="jetson",
)


def _apple(key, cap, bw, npu_tops, gpu_tflops, power, document, url, date, notes) -> Device:
    precisions = {"int8": _rate(npu_tops, unit="TOP/s", kind="npu")}
    if gpu_tflops is not None:
        precisions["fp32"] = _rate(gpu_tflops, kind="vector")
    return _device(
        key,
        Memory(capacity=(cap, "GB"), bandwidth=(bw, "GB/s"), kind="LPDDR5 (unified)"),
        precisions,
        "int8",
        50,
        (power, "W"),
        document,
        url,
        date,
        notes
        + " Neural Engine rate: Apple's 'trillion operations per second' (precision unstated; "
        "listed as INT8 as for the A17 Pro). Power: the Mac's maximum draw at the wall, from "
        "Apple's power-consumption support page (whole computer, not the chip).",
        tax_kind="apple",
    )


M1_MAX = _apple(
    "M1Max",
    64,
    400,
    11,
    10.4,
    115,
    "Apple newsroom, 'Introducing M1 Pro and M1 Max' (2021); 'Apple unleashes M1' (2020, Neural "
    "Engine); Mac Studio power consumption (support.apple.com/102027)",
    "https://www.apple.com/newsroom/2021/10/introducing-m1-pro-and-m1-max-the-most-powerful-chips-apple-has-ever-built/",
    _D(2021, 10, 18),
    "Up to 64GB unified memory at 400GB/s (newsroom); 32-core GPU 10.4 teraflops (Apple's "
    "October 2021 event, as reported); 16-core Neural Engine: the newsroom gives no rate, 11 "
    "trillion ops/s is the figure Apple gave for M1's 16-core Neural Engine (Nov 2020), carried "
    "over. Power: Mac Studio (2022) M1 Max max 115 W, measured on the 10-core CPU / 32-core GPU / "
    "32GB configuration.",
)

M1_ULTRA = _apple(
    "M1Ultra",
    128,
    800,
    22,
    21,
    215,
    "Apple newsroom, 'Apple unveils M1 Ultra' (2022); Mac Studio power consumption (support.apple.com/102027)",
    "https://www.apple.com/newsroom/2022/03/apple-unveils-m1-ultra-the-worlds-most-powerful-chip-for-a-personal-computer/",
    _D(2022, 3, 8),
    "Up to 128GB unified memory at 800GB/s; 64-core GPU 21 teraflops; 32-core Neural Engine "
    "22 trillion ops/s; Mac Studio (2022) M1 Ultra max 215 W, measured on the 20-core CPU / "
    "48-core GPU / 64GB configuration.",
)

M2_MAX = _apple(
    "M2Max",
    96,
    400,
    15.8,
    None,
    145,
    "Apple newsroom, 'Apple unveils M2 Pro and M2 Max' (2023); 'Apple unveils M2' (2022, Neural "
    "Engine); Mac Studio power consumption (support.apple.com/102027)",
    "https://www.apple.com/newsroom/2023/01/apple-unveils-m2-pro-and-m2-max-next-generation-chips-for-next-level-workflows/",
    _D(2023, 1, 17),
    "Up to 96GB unified memory at 400GB/s; 16-core Neural Engine 15.8 trillion ops/s; Mac Studio "
    "(2023) M2 Max max 145 W, measured on the 12-core CPU / 30-core GPU / 32GB configuration. GPU "
    "FLOPS left out (Apple quotes none for it).",
)

M2_ULTRA = _apple(
    "M2Ultra",
    192,
    800,
    31.6,
    27.2,
    295,
    "Apple newsroom, 'Apple introduces M2 Ultra' (2023); Mac Studio power consumption (support.apple.com/102027)",
    "https://www.apple.com/newsroom/2023/06/apple-introduces-m2-ultra/",
    _D(2023, 6, 5),
    "Up to 192GB unified memory at 800GB/s; 76-core GPU 27.2 teraflops; 32-core Neural Engine "
    "31.6 trillion ops/s; Mac Studio (2023) M2 Ultra max 295 W.",
)

M4 = _apple(
    "M4",
    32,
    120,
    38,
    None,
    65,
    "Apple newsroom, 'Apple introduces M4 chip' (2024); Mac mini (2024) tech specs; Mac mini power "
    "consumption (support.apple.com/103253)",
    "https://www.apple.com/newsroom/2024/05/apple-introduces-m4-chip/",
    _D(2024, 5, 7),
    "120GB/s unified memory bandwidth; 16-core Neural Engine 38 trillion ops/s (newsroom); Mac mini "
    "M4 up to 32GB. Power: 65 W is Apple's maximum for the Mac mini (2024) M4, as ServeTheHome's "
    "review reports it ('Apple says we should be able to hit 65W'; it measured 40-45 W). GPU "
    "FLOPS left out (Apple quotes none).",
)

# --- Edge ----------------------------------------------------------------------------------


def _jetson(key, cores, tensor_cores, mhz, cap, bw, watts, document, url, date, notes) -> Device:
    """An Orin GPU from its datasheet's counts: FP32 = cores x 2 x clock; FP16 tensor dense =
    tensor cores x 512 FLOP/clock x clock (the Orin NX's derivation); INT8 2x; sparse 2x."""
    ghz = mhz / 1000
    fp16 = round(tensor_cores * 512 * ghz / 1000, 4)
    return _device(
        key,
        Memory(capacity=(cap, "GB"), bandwidth=(bw, "GB/s"), kind="LPDDR5"),
        {
            "fp32": _rate(round(cores * 2 * ghz / 1000, 4), kind="vector"),
            "fp16": _rate(fp16, 2 * fp16),
            "bf16": _rate(fp16, 2 * fp16),
            "int8": _rate(2 * fp16, 4 * fp16, unit="TOP/s"),
        },
        "fp16",
        20,
        (watts, "W"),
        document,
        url,
        date,
        notes
        + f" GPU peaks derived: {cores} CUDA cores, {tensor_cores} tensor cores at {mhz:g} MHz; "
        "dense = sparse / 2. The module's headline TOPS adds the DLAs (where present) and is sparse.",
        tax_kind="jetson",
    )


_ORIN_DOC = "https://developer.nvidia.com/embedded/jetson-modules"

JETSON_ORIN_NX8 = _jetson(
    "JetsonOrinNX8",
    1024,
    32,
    765,
    8,
    102,
    20,
    "NVIDIA Jetson Orin NX Series Data Sheet (DS-10712-001 v1.0), Orin NX 8GB",
    "https://developer.nvidia.com/embedded/jetson-orin-nx",
    _D(2023, 3, 1),
    "70 TOPS (sparse: GPU 50 + one DLA at 610 MHz, 20); GPU maximum operating frequency 765 MHz; "
    "8GB LPDDR5, 'theoretical peak memory bandwidth of 102 GB/s' as the datasheet prints it for "
    "the series (3200 MHz on a 128-bit bus is 102.4); power modes 10 | 15 | 20 W (20 W listed).",
)

JETSON_AGX_ORIN64 = _jetson(
    "JetsonAGXOrin64",
    2048,
    64,
    1300,
    64,
    204.8,
    60,
    "NVIDIA Jetson AGX Orin Series Modules Data Sheet (DS-10662-001 v1.8), AGX Orin 64GB",
    "https://developer.nvidia.com/embedded/jetson-agx-orin",
    _D(2023, 3, 1),
    "275 TOPS (sparse: GPU 170 + 2 DLA 105); GPU maximum operating frequency 1.3 GHz; 64GB "
    "256-bit LPDDR5, up to 204.8 GB/s; 15 | 30 | 50 W modes and up to 60 W (60 W listed).",
)

JETSON_AGX_ORIN32 = _jetson(
    "JetsonAGXOrin32",
    1792,
    56,
    939,
    32,
    204.8,
    40,
    "NVIDIA Jetson AGX Orin Series Modules Data Sheet (DS-10662-001 v1.8), AGX Orin 32GB",
    "https://developer.nvidia.com/embedded/jetson-agx-orin",
    _D(2023, 3, 1),
    "200 TOPS (sparse, GPU + 2 DLA); the datasheet's GPU block: 1792 CUDA cores, 56 tensor cores, "
    "'108 Sparse TOPS', 'Maximum Operating Frequency: 939 MHz' (56 x 512 x 4 x 0.939 GHz = "
    "107.7); 32GB 256-bit LPDDR5, up to 204.8 GB/s; 15 | 30 | 40 W modes (40 W listed).",
)

JETSON_ORIN_NANO8 = _jetson(
    "JetsonOrinNano8",
    1024,
    32,
    625,
    8,
    68,
    15,
    "NVIDIA Jetson Orin Nano Series Data Sheet (DS-11105-001), Orin Nano 8GB",
    _ORIN_DOC,
    _D(2023, 3, 1),
    "Up to 40 (sparse) / 20 (dense) INT8 TOPS, GPU only (no DLA); GPU maximum operating frequency "
    "625 MHz; 8GB 128-bit LPDDR5, theoretical peak 68 GB/s; 7 | 15 W modes (15 W listed).",
)

JETSON_ORIN_NANO_SUPER = _jetson(
    "JetsonOrinNanoSuper",
    1024,
    32,
    1020,
    8,
    102,
    25,
    "NVIDIA Jetson Orin Nano Super Developer Kit data sheet",
    "https://developer.nvidia.com/embedded/learn/get-started-jetson-orin-nano-devkit",
    _D(2024, 12, 17),
    "The Orin Nano 8GB at its 25 W 'Super' clocks (JetPack 6.1+): 'up to 67 INT8 TOPS' (sparse) "
    "and 'up to 102 GB/s' (Jetson Orin Nano developer kit user guide); GPU at 1020 MHz (32 x 512 "
    "x 4 x 1.02 GHz = 66.8 sparse TOPS).",
)

JETSON_ORIN_NANO4 = _jetson(
    "JetsonOrinNano4",
    512,
    16,
    625,
    4,
    34,
    10,
    "NVIDIA Jetson Orin Nano Series Data Sheet (DS-11105-001), Orin Nano 4GB",
    _ORIN_DOC,
    _D(2023, 3, 1),
    "Up to 20 (sparse) / 10 (dense) INT8 TOPS, GPU only; GPU maximum operating frequency 625 MHz; "
    "4GB 64-bit LPDDR5, theoretical peak 34 GB/s; 7 | 10 W modes (10 W listed).",
)

RASPBERRY_PI5 = _device(
    "RaspberryPi5",
    Memory(capacity=(8, "GB"), bandwidth=(17.07, "GB/s"), kind="LPDDR4X-4267"),
    {
        # 4 cores x 2 128-bit FMA pipes x 4 lanes x 2 FLOP x 2.4 GHz
        "fp32": _rate(153.6, unit="GFLOP/s", kind="cpu"),
        # 4 cores x 2 pipes x SDOT (16 int8 MACs = 32 ops) x 2.4 GHz
        "int8": _rate(614.4, unit="GOP/s", kind="cpu"),
    },
    "int8",
    20,
    (25, "W"),
    "Raspberry Pi 5 product brief; Arm Cortex-A76 Software Optimization Guide (ASIMD pipes)",
    "https://datasheets.raspberrypi.com/rpi5/raspberry-pi-5-product-brief.pdf",
    _D(2023, 10, 1),
    "Broadcom BCM2712, quad Cortex-A76 at 2.4 GHz, 8GB LPDDR4X-4267 on a 32-bit bus (bandwidth "
    "derived: 4 B x 4,267 MT/s = 17.07 GB/s; the brief prints none). Peaks derived, not vendor "
    "figures: FP32 = 4 cores x 2 128-bit FMA pipes x 4 lanes x 2 FLOP x 2.4 GHz; INT8 = 4 cores x "
    "2 pipes x SDOT (16 MACs = 32 ops) x 2.4 GHz. Power: the brief's '5V/5A DC power via USB-C' "
    "input, 25 W, an upper bound on the board's draw, not a TDP (the official supply is sold as "
    "'27W': 5.1 V x 5 A plus USB-PD profiles the Pi 5 does not draw on).",
    tax_kind="cpu",
)

CORAL_EDGE_TPU = _device(
    "CoralEdgeTPU",
    Memory(
        capacity=(8, "MiB"),
        bandwidth=(500, "MB/s"),
        kind="on-chip SRAM; PCIe Gen2 x1 host link",
        sram=(8, "MiB"),
    ),
    {"int8": _rate(4, unit="TOP/s", kind="npu")},
    "int8",
    20,
    (2, "W"),
    "Coral Accelerator Module datasheet v1.4; Coral 'Edge TPU Compiler' documentation (on-chip SRAM)",
    "https://coral.ai/docs/module/datasheet/",
    _D(2020, 6, 1),
    "'4 TOPS peak performance (int8)', '2 TOPS per watt', 'PCIe Gen2 x1 or USB 2.0 interface' "
    "(datasheet v1.4 features); INT8 only. Parameters live in roughly 8 MB of "
    "on-chip SRAM (read as 8 MiB); a model past it streams weights from the host over PCIe Gen2 "
    "x1 (5 GT/s, 8b/10b: 500 MB/s), the bandwidth listed.",
    tax_kind="usb",
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


_BY_KEY: dict[str, Device] = {
    d.key: d
    for d in (
        H100, A100, A100_40GB, H200, B200, H100_PCIE, A100_PCIE, V100, T4, A10, L4, L40, L40S,
        MI300X, MI325X, GAUDI3, TPU_V4,
        RTX5090, RTX4090, RTX4070, RTX3060, DGX_SPARK, M1_MAX, M1_ULTRA, M2_MAX, M2_ULTRA, M4,
        JETSON_ORIN_NX, CORTEX_A53_CAMERA, JETSON_ORIN_NX8, JETSON_AGX_ORIN64, JETSON_AGX_ORIN32,
        JETSON_ORIN_NANO8, JETSON_ORIN_NANO_SUPER, JETSON_ORIN_NANO4, RASPBERRY_PI5, CORAL_EDGE_TPU,
        IPHONE_15_PRO,
        NANO_33_BLE_SENSE, STM32H743,
    )
}  # fmt: skip


def _tier(name: str) -> _Tier:
    """The tier's devices, in the catalogue's order."""
    return _Tier(name, **{k: _BY_KEY[k] for k, e in CATALOGUE.items() if e.tier == name})


class _Registry:
    Cloud = _tier("Cloud")
    Desktop = _tier("Desktop")
    Edge = _tier("Edge")
    Mobile = _tier("Mobile")
    Tiny = _tier("Tiny")

    def all(self) -> list[Device]:
        return [
            d
            for tier in (self.Cloud, self.Desktop, self.Edge, self.Mobile, self.Tiny)
            for d in tier
        ]

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
