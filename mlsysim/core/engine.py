"""Compatibility path for ``from mlsysim.core.engine import Engine``; the engine lives in
``mlsysim.engine``."""

from ..engine import Engine, LayerTiming, Profile, solve, sweep, weight_only_intensity

__all__ = ["Engine", "LayerTiming", "Profile", "solve", "sweep", "weight_only_intensity"]
