"""Risks in the field for an edge deployment (section 6.9, Table 13: the wildlife camera trap).

Two of the chapter's risks have a cost the engine can count:

- **New species after deployment** ("expand or retrain the output head; install the update during
  a physical service visit"). A classifier's last layer is a Dense layer of ``in_features + 1``
  parameters per class (one weight per feature and a bias); everything before it (the backbone)
  does not depend on the number of classes. ``head_update`` rebuilds the model at both class
  counts from the model zoo and reports what the update replaces and how much the model grows.
  For torchvision's MobileNetV2 the head reads ``last_channel`` features: 1,280 for every width
  multiplier up to 1.0 (``max(1.0, width_mult)``), so at 0.75x a class costs 1,281 parameters.
- **Thermal throttling in the enclosure** ("add a passive heatsink; reduce inference frequency").
  ``throttle`` returns the device running at a fraction of its clock and ``throttled_frame``
  solves one frame on it with the engine. What scales with the clock, and the source of each
  assumption:

  * the compute rate: operations per second = operations per cycle x clock, and the operations
    per cycle of the core do not change (so a sustained 2 GOPS at full clock is 2 x f GOPS);
  * the per-operator dispatch time: CPU work on the same core, so it takes 1/f as long;
  * the DRAM bandwidth does NOT scale: the memory controller and DRAM keep their own clock (a
    governor that also lowers the DRAM clock makes memory-bound layers slower still);
  * the active power scales in proportion to the clock: CMOS dynamic power is alpha x C x V^2 x f
    (Weste and Harris, CMOS VLSI Design, 4th ed., section 5.1) at a fixed voltage, leakage
    ignored. So a compute-bound frame costs about the same energy at any clock: throttling
    trades time, not energy. (With DVFS the voltage falls too and the energy per frame falls;
    with leakage it rises. Measure on the device.)

  The clock fraction is the sustained clock over the nominal one, in [``MIN_CLOCK``, 1].
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import _check
from .units import bytes_per_value

if TYPE_CHECKING:
    from .hardware import Device
    from .models import Model

__all__ = ["MIN_CLOCK", "MAX_CLASSES", "HeadUpdate", "head_update", "throttle", "throttled_frame"]

#: the lowest clock fraction accepted (a governor holding a core below a tenth of its clock is
#: shutting it down, not throttling it)
MIN_CLOCK = 0.1
#: the most classes ``head_update`` builds a head for
MAX_CLASSES = 100_000


@dataclass(frozen=True)
class HeadUpdate:
    """What changing a classifier from ``classes_before`` to ``classes_after`` classes replaces."""

    classes_before: int
    classes_after: int
    in_features: int
    head_params_before: int
    head_params_after: int
    model_params_before: int
    model_params_after: int
    bytes_per_param: float

    @property
    def per_class(self) -> int:
        """Parameters one class adds: a weight per feature and a bias."""
        return self.in_features + 1

    @property
    def backbone_params(self) -> int:
        """Everything before the head: the same at both class counts."""
        return self.model_params_after - self.head_params_after

    @property
    def added_params(self) -> int:
        return self.model_params_after - self.model_params_before

    @property
    def update_bytes(self) -> float:
        """The new head: what the service visit installs when only the head is retrained."""
        return self.head_params_after * self.bytes_per_param

    @property
    def model_bytes(self) -> float:
        """The whole updated model: what a full re-ship would install."""
        return self.model_params_after * self.bytes_per_param

    @property
    def update_share(self) -> float:
        """The head's share of the updated model's parameters."""
        return self.head_params_after / self.model_params_after

    @property
    def model_growth(self) -> float:
        """The model's relative growth (0.018 = 1.8% larger)."""
        return self.model_params_after / self.model_params_before - 1

    @property
    def class_growth(self) -> float:
        return self.classes_after / self.classes_before - 1


def _model(name: str, v):
    from .models import Model

    if not isinstance(v, Model):
        raise ValueError(f"{name} must be a models.Model, got {_check._short(v)}")
    return v


def _device(v):
    from .hardware import Device

    if not isinstance(v, Device):
        raise ValueError(
            f"device must be a hardware.Device (e.g. Hardware.get('CortexA53Camera')), got "
            f"{_check._short(v)}"
        )
    return v


def _head(model: Model):
    from .layers import Dense

    row = model.rows()[-1]
    if not isinstance(row.layer, Dense):
        raise ValueError(f"model={model.name!r}: its last layer is not a Dense classifier head")
    return row.layer


def head_update(
    build: Callable[[int], Model],
    classes_before: int,
    classes_after: int,
    precision: str = "int8",
) -> HeadUpdate:
    """Rebuild a classifier at two class counts (``build(num_classes)``, e.g.
    ``lambda n: models.mobilenet_v2(0.75, num_classes=n)``) and compare. Raises ValueError if
    the backbone differs between the two (the head is then not the only change)."""
    if not callable(build):
        raise ValueError(
            f"build must be a function num_classes -> Model, got {_check._short(build)}"
        )
    bpv = float(bytes_per_value(precision))
    before = _model("build(classes_before)", build(classes_before))
    after = _model("build(classes_after)", build(classes_after))
    h0, h1 = _head(before), _head(after)
    if h0.out_features != classes_before or h1.out_features != classes_after:
        raise ValueError(
            "build(num_classes) must return a model whose head has num_classes outputs"
        )
    if before.params - h0.params != after.params - h1.params:
        raise ValueError("build(num_classes) changed more than the head")
    return HeadUpdate(
        classes_before=classes_before,
        classes_after=classes_after,
        in_features=h1.in_features,
        head_params_before=h0.params,
        head_params_after=h1.params,
        model_params_before=before.params,
        model_params_after=after.params,
        bytes_per_param=bpv,
    )


#: throttled variants by (id(device), fraction), with the device kept so a recycled id misses
_VARIANTS: dict[tuple[int, float], tuple[Device, Device]] = {}


def _throttle(device: Device, clock_fraction: float) -> Device:
    hit = _VARIANTS.get((id(device), clock_fraction))
    if hit is not None and hit[0] is device:
        return hit[1]
    f = clock_fraction
    rates = {
        name: r.model_copy(
            update={"dense": r.dense * f, "sparse": None if r.sparse is None else r.sparse * f}
        )
        for name, r in device.compute.precisions.items()
    }
    variant = device.model_copy(
        update={
            "name": f"{device.name} at {f:.0%} clock",
            "compute": device.compute.model_copy(update={"precisions": rates}),
            "dispatch_tax": device.dispatch_tax / f,
            "tdp": device.tdp * f,
        }
    )
    if len(_VARIANTS) > 256:
        _VARIANTS.clear()
    _VARIANTS[(id(device), clock_fraction)] = (device, variant)
    return variant


def throttle(device: Device, clock_fraction: float) -> Device:
    """``device`` held at ``clock_fraction`` of its clock: every listed rate x f, dispatch / f,
    active power (``tdp``) x f, bandwidth unchanged (the module docstring names the sources).
    Its ``idle_power`` follows ``tdp``: compare inference energy, not idle draw, across clocks."""
    _device(device)
    if clock_fraction == 1.0:
        return device
    return _throttle(device, float(clock_fraction))


@dataclass(frozen=True)
class Frame:
    """One inference on a throttled device, solved by the engine."""

    clock_fraction: float
    latency_s: float
    energy_j: float
    power_w: float
    compute_s: float
    memory_s: float
    dispatch_s: float


def throttled_frame(
    model: Model, device: Device, precision: str, clock_fraction: float = 1.0
) -> Frame:
    """``Engine.solve`` (batch 1, efficiency 1: a sustained-rate device is not derated) on
    ``throttle(device, clock_fraction)``; energy = active power at that clock x latency."""
    from .engine import Engine

    _model("model", model)
    dev = throttle(device, clock_fraction)
    prof = Engine.solve(model, dev, precision=precision, efficiency=1.0)
    power = dev.tdp.m_as("W")
    return Frame(
        clock_fraction=float(clock_fraction),
        latency_s=prof.latency_s,
        energy_j=power * prof.latency_s,
        power_w=power,
        compute_s=prof.latency_compute_s,
        memory_s=prof.latency_s - prof.latency_compute_s - prof.latency_dispatch_s,
        dispatch_s=prof.latency_dispatch_s,
    )


# every argument checked by name (mlsysim._check)
_check.check_module(
    globals(),
    __all__,
    {
        "head_update": {
            "classes_before": (1, MAX_CLASSES),
            "classes_after": (1, MAX_CLASSES),
        },
        "throttle": {"clock_fraction": (MIN_CLOCK, 1.0)},
        "throttled_frame": {"clock_fraction": (MIN_CLOCK, 1.0)},
    },
)
