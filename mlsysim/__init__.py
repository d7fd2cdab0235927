"""mlsysim: exact, fast analytical cost models of neural-network architectures.

Conventions: 1 MAC = 2 FLOPs; decimal GB (1e9 B) and binary GiB (2**30 B) are distinct units;
peak rates are dense unless marked sparse.

The names below are imported on first use (PEP 562), so ``import mlsysim.labs`` does not load
pint or the cost models until a lab needs them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

#: public name -> the submodule that defines it
_FROM = {
    "DEVICES": "hardware",
    "Device": "hardware",
    "Hardware": "hardware",
    "Engine": "engine",
    "Profile": "engine",
    "solve": "engine",
    "sweep": "engine",
    "weight_only_intensity": "engine",
    "weight_reuse": "engine",
    "Model": "models",
    "Models": "models",
    "Q_": "units",
    "bytes_per_value": "units",
    "ureg": "units",
}
_SUBMODULES = ("energy", "layers", "models", "vision")

__all__ = [
    "DEVICES",
    "Device",
    "Engine",
    "Hardware",
    "Model",
    "Models",
    "Profile",
    "Q_",
    "bytes_per_value",
    "energy",
    "layers",
    "models",
    "solve",
    "sweep",
    "ureg",
    "vision",
    "weight_only_intensity",
    "weight_reuse",
    "__version__",
]


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _FROM:
        value = getattr(importlib.import_module(f"{__name__}.{_FROM[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:
    from . import energy, layers, models, vision
    from .engine import Engine, Profile, solve, sweep, weight_only_intensity, weight_reuse
    from .hardware import DEVICES, Device, Hardware
    from .models import Model, Models
    from .units import Q_, bytes_per_value, ureg
