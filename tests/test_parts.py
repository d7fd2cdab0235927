"""Every part function of every notebook, over its whole widget grid.

Convention (README, "How to add a notebook"): ``mlsysim/labs/parts/<stem>.py`` backs
``labs/<stem>.py``; for part letter X it defines ``PRED_X`` (a Prediction), ``part_x(...)``
returning a ``View``, and one widget spec ``X_<PARAM>`` per parameter; ``synthesis(...)`` uses
``S_<PARAM>``. Each combination of the specs' grids (min/default/max, every option) is run.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import math
import pkgutil
import random
import re

import pytest

import mlsysim.labs.parts as parts_pkg
from mlsysim.labs.components import Card, Choice, Prediction, Slider, Toggle, View

MODULES = sorted(m.name for m in pkgutil.iter_modules(parts_pkg.__path__))
BAD = re.compile(r"\b(nan|inf|Error|None)\b")
MAX_COMBOS = 120


def _functions(mod):
    for name, fn in inspect.getmembers(mod, inspect.isfunction):
        if fn.__module__ != mod.__name__:
            continue
        if re.fullmatch(r"part_[a-z]", name):
            yield name, name[-1].upper(), fn
        elif name == "synthesis":
            yield name, "S", fn


def _cases():
    for m in MODULES:
        mod = importlib.import_module(f"mlsysim.labs.parts.{m}")
        for name, letter, fn in _functions(mod):
            yield pytest.param(mod, letter, fn, id=f"{m}.{name}")


def _grid(mod, letter, fn):
    specs = []
    for p in inspect.signature(fn).parameters:
        spec = getattr(mod, f"{letter}_{p.upper()}", None)
        assert isinstance(spec, Slider | Choice | Toggle), (
            f"{mod.__name__}: no widget spec {letter}_{p.upper()}"
        )
        specs.append(spec.grid())
    combos = list(itertools.product(*specs))
    if len(combos) > MAX_COMBOS:
        rng = random.Random(f"{mod.__name__}.{fn.__name__}")
        combos = [combos[0], combos[-1], *rng.sample(combos, MAX_COMBOS - 2)]
    return combos


def check_view(view: View) -> None:
    assert isinstance(view, View)
    fig = view.figure
    assert fig is not None and len(fig.data) > 0, "chart has no traces"
    for tr in fig.data:
        vals = [v for axis in ("x", "y") for v in (getattr(tr, axis, None) or ())]
        assert vals, f"trace {tr.name!r} has no data"
        for v in vals:
            if isinstance(v, int | float):
                assert math.isfinite(v), f"trace {tr.name!r} has {v}"
    for card in view.cards:
        assert isinstance(card, Card)
        assert not BAD.search(f"{card.value} {card.note}"), card
    for text in [view.summary, *view.peek]:
        assert not BAD.search(text), text


def test_parts_modules_have_a_chapter_and_predictions():
    assert MODULES
    for m in MODULES:
        mod = importlib.import_module(f"mlsysim.labs.parts.{m}")
        assert isinstance(mod.CHAPTER, str) and mod.PARTS
        for letter in mod.PARTS:
            assert isinstance(getattr(mod, f"PRED_{letter}"), Prediction), f"{m}: PRED_{letter}"
            assert hasattr(mod, f"part_{letter.lower()}"), f"{m}: part_{letter.lower()}"


@pytest.mark.parametrize(("mod", "letter", "fn"), list(_cases()))
def test_part_over_widget_grid(mod, letter, fn):
    for combo in _grid(mod, letter, fn):
        check_view(fn(*combo))
