"""Issue 10 #11 as a class, for every lesson module (the notebooks' parts): what a part shows
never carries a registry key (CamelCase, e.g. JetsonOrinNX), an engine regime capitalised
mid-sentence ("Dispatch-bound"), or a zero term printed as "0.00 ns". Each part is rendered at its
defaults and with every option of every Choice/Toggle changed one at a time."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from mlsysim import Hardware
from mlsysim.labs.components import Choice, Toggle

# every lesson module (it covered 6.1-6.5 and the primitives only, and byom's cards and prose
# said "Fits on JetsonOrinNX", 6.12's "on the iPhone15Pro")
MODULES = sorted(
    p.stem
    for p in (Path(__file__).parents[1] / "mlsysim" / "labs" / "parts").glob("*.py")
    if p.stem != "__init__"
)
KEYS = [d.key for d in Hardware.all() if d.key not in d.name]


def _views(m):
    mod = importlib.import_module(f"mlsysim.labs.parts.{m}")
    for name, fn in inspect.getmembers(mod, inspect.isfunction):
        if fn.__module__ != mod.__name__ or not (
            name.startswith("part_") and len(name) == 6 or name == "synthesis"
        ):
            continue
        letter = "S" if name == "synthesis" else name[-1].upper()
        params = list(inspect.signature(fn).parameters)
        specs = [getattr(mod, f"{letter}_{p.upper()}") for p in params]
        base = [s.value for s in specs]
        yield name, fn(*base)
        for i, spec in enumerate(specs):
            options = spec.grid() if isinstance(spec, Choice | Toggle) else []
            for opt in options:
                if opt != base[i]:
                    args = list(base)
                    args[i] = opt
                    yield f"{name}({params[i]}={opt})", fn(*args)


def _shown(v) -> str:
    return " ".join(
        [
            v.summary,
            *v.peek,
            str(v.figure.layout.title.text or ""),
            *(str(t.name) for t in v.figure.data),
            *(f"{c.label} {c.value} {c.note}" for c in v.cards),
        ]
    )


@pytest.mark.parametrize("module", MODULES)
def test_no_registry_keys_capitalised_regimes_or_zero_nanoseconds(module):
    bad = []
    for where, v in _views(module):
        text = _shown(v)
        for k in KEYS:
            # (a key in quotes is code: Engine.solve(model, 'JetsonOrinNX', ...))
            if re.search(rf"(?<![\w'\"]){re.escape(k)}(?![\w'\"])", text):
                bad.append(f"{where}: registry key {k}")
        if re.search(r"\w[ ,;:(·]+(Dispatch|Compute|Memory)-bound", text):
            bad.append(f"{where}: capitalised regime mid-sentence")
        if "0.00 ns" in text:
            bad.append(f"{where}: 0.00 ns")
    assert not bad, "\n".join(sorted(set(bad)))


def test_fmt_time_prints_an_absent_term_as_zero_seconds():
    from mlsysim.labs.components import fmt_time

    assert fmt_time(0) == fmt_time(0.0) == "0 s"
    assert fmt_time(1e-9) == "1.00 ns" and fmt_time(2.5e-3) == "2.50 ms"
