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
from mlsysim.labs import charts, placement
from mlsysim.labs.components import Card, Choice, Prediction, Slider, Toggle, View

import harness as h

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
    # the harness's grammar rule ("1 lookups") and, on the finished chart, the label placement
    # at the desktop width (cut off, overlapping, struck through): here on every combination of
    # the widget grid, where the notebook tests see the states a student first meets and a few
    # random ones
    words = " | ".join(
        [view.summary, *view.peek, *(f"{c.label} {c.value} {c.note}" for c in view.cards)]
        + [str(t.name or "") for t in fig.data]
    )
    assert not [m.group(0) for m in h._BAD_GRAMMAR.finditer(words)], words
    spec = charts.finalize(fig).to_plotly_json()
    assert placement.label_problems(spec["data"], spec["layout"], placement.WIDTHS[0]) == []


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


def _hostile(spec) -> list:
    """Values no widget of ``spec``'s kind produces (the hostile-input probe's classes)."""
    common = [None, float("nan"), "<script>alert(1)</script>", [], 10**30]
    if isinstance(spec, Slider):
        out = [*common, float("inf"), -float("inf"), True, "1", spec.start - spec.step]
        out.append(spec.stop + spec.step)
        if all(isinstance(v, int) for v in (spec.start, spec.stop, spec.step, spec.value)):
            out.append(spec.start + 0.5)  # a slider of whole steps
        return out
    if isinstance(spec, Choice):
        return [*common, "", 1, True, next(iter(spec.options)).upper() + "?"]
    return [*common, 1, 0, "True"]  # a switch


@pytest.mark.parametrize("mod, letter, fn", list(_cases()))
def test_a_part_refuses_what_no_widget_produces(mod, letter, fn):
    """Each argument is checked against its own widget before the part runs (components.
    widget_args): a ValueError that names the argument, never a ZeroDivisionError, KeyError,
    OverflowError or AttributeError from deep inside, and never a view of a negative count or a
    nan budget (what the hostile-input probe found: part_c(keep=0), part_a(peak='x'),
    synthesis(power=nan), part_a(tables=-1), ...)."""
    names = list(inspect.signature(fn).parameters)
    specs = {p: getattr(mod, f"{letter}_{p.upper()}") for p in names}
    defaults = {p: s.value for p, s in specs.items()}
    for p, spec in specs.items():
        for bad in _hostile(spec):
            with pytest.raises(ValueError, match=rf"^{p} must be ") as e:
                fn(**{**defaults, p: bad})
            assert "got" in str(e.value), str(e.value)
    with pytest.raises(TypeError, match=fn.__name__):
        fn(*defaults.values(), "one too many")


def test_slider_check_gives_the_part_a_plain_number():
    s = Slider("Width", 64, 1024, 512, step=64)
    assert s.check("width", 512.0) == 512 and type(s.check("width", 512.0)) is int
    assert (
        s.check("width", 100) == 100
    )  # between the slider's stops but in range: the physics takes it
    f = Slider("Reserve (GB)", 0.0, 4.0, 1.0, step=0.5)
    assert str(f.check("reserve", -0.0)) == "0.0" and f.check("reserve", 4) == 4.0
    with pytest.raises(ValueError, match=r"^reserve must be a number in \[0, 4\]"):
        f.check("reserve", 4.5)
