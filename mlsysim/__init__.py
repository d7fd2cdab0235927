"""mlsysim: exact, fast analytical cost models of neural-network architectures.

Conventions: 1 MAC = 2 FLOPs; decimal GB (1e9 B) and binary GiB (2**30 B) are distinct units;
peak rates are dense unless marked sparse.
"""

from . import energy, layers, models
from .engine import Engine, Profile, solve, sweep, weight_only_intensity, weight_reuse
from .hardware import DEVICES, Device, Hardware
from .models import Model, Models
from .units import Q_, bytes_per_value, ureg

__version__ = "0.1.0"

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
    "weight_only_intensity",
    "weight_reuse",
    "__version__",
]
