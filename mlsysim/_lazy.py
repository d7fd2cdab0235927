"""``lazy(name)``: a module run on first use of one of its attributes.

The lab modules (``mlsysim.labs.parts``) and ``mlsysim.hf`` reach the cost models this way, so a
browser notebook's first run (its questions, sliders and locked parts) imports neither the core
nor pint nor pydantic, and the page leaves those packages for later (``mlsysim.labs.browser``).
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy(name: str) -> ModuleType:
    """The module ``name`` (``importlib.util.LazyLoader``): imported now if it already is, else
    run the first time one of its attributes is used."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
