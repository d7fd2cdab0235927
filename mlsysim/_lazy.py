"""``lazy(name)``: a module run on first use of one of its attributes.

The lab modules (``mlsysim.labs.parts``) and ``mlsysim.hf`` reach the cost models this way, so a
browser notebook's first run (its questions, sliders and locked parts) imports neither the core
nor pint nor pydantic, and the page leaves those packages for later (``mlsysim.labs.browser``).
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from types import ModuleType

#: lazy modules whose code is running now
_RUNNING: set[str] = set()


class _Tracked(importlib.abc.Loader):
    """A module's own loader, noting while its code runs (:func:`loading`)."""

    def __init__(self, loader, name: str):
        self.loader, self.name = loader, name

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        _RUNNING.add(self.name)
        try:
            self.loader.exec_module(module)
        finally:
            _RUNNING.discard(self.name)


def loading(prefix: str = "mlsysim") -> set[str]:
    """The modules (under ``prefix``) whose code is running now. In a browser page an import can
    pause half-way (its module waits for a package Pyodide is still loading) while another task
    runs; that task must not use the half-run module (``kit.warm_up`` waits for this to be
    empty)."""
    running = {n for n in _RUNNING if n.startswith(prefix)}
    for name, module in list(sys.modules.items()):
        if name.startswith(prefix) and module is not None:
            # object's own lookup: a lazy module's would run it
            spec = object.__getattribute__(module, "__dict__").get("__spec__")
            if getattr(spec, "_initializing", False):
                running.add(name)
    return running


def lazy(name: str) -> ModuleType:
    """The module ``name`` (``importlib.util.LazyLoader``): imported now if it already is, else
    run the first time one of its attributes is used."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    spec.loader = importlib.util.LazyLoader(_Tracked(spec.loader, name))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
