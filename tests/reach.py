"""What a student can reach before committing to a question (issue 32), as text to search.

- ``states(mod, letter)``: the widget states of a part a student can set: every combination of
  the part's widget grid (min/default/max, every option; as ``tests/test_parts.py``) and each
  slider through every one of its steps with the other widgets at their defaults.
- ``part_text(stem, letter)``: everything the part shows over those states (cards, sentence,
  MathPeek, alert, chart title, axis titles, trace names and point labels, annotations).
- ``question_text(p)``: every option's feedback and the correct note, which a student reads by
  trying the options once the question is committed.
- ``ORDER``: the notebooks in ``labs/README.md``'s map order.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import random
import re
from functools import cache

from mlsysim.labs.components import Choice, Prediction, Slider, Toggle, View

import harness as h

MAX_COMBOS = 120
MAX_STEPS = 64


def questions(mod) -> dict[str, Prediction]:
    return {n: p for n, p in vars(mod).items() if isinstance(p, Prediction)}


def module(stem: str):
    return importlib.import_module(f"mlsysim.labs.parts.{stem}")


def part_function(mod, letter: str):
    return getattr(mod, "synthesis" if letter == "S" else f"part_{letter.lower()}", None)


def _steps(spec: Slider) -> list:
    n = int(round((spec.stop - spec.start) / spec.step))
    vals = [spec.start + i * spec.step for i in range(n + 1)]
    if isinstance(spec.step, int) and isinstance(spec.start, int):
        vals = [int(v) for v in vals]
    else:
        vals = [round(v, 10) for v in vals]
    if len(vals) > MAX_STEPS:  # evenly spread, both ends and the default kept
        idx = sorted({round(i * (len(vals) - 1) / (MAX_STEPS - 1)) for i in range(MAX_STEPS)})
        vals = sorted({*(vals[i] for i in idx), spec.value})
    return vals


def states(mod, letter: str) -> list[tuple]:
    fn = part_function(mod, letter)
    names = list(inspect.signature(fn).parameters)
    specs = [getattr(mod, f"{letter}_{p.upper()}") for p in names]
    assert all(isinstance(s, Slider | Choice | Toggle) for s in specs), mod.__name__
    combos = list(itertools.product(*(s.grid() for s in specs)))
    if len(combos) > MAX_COMBOS:
        rng = random.Random(f"{mod.__name__}.{fn.__name__}")
        combos = [combos[0], combos[-1], *rng.sample(combos, MAX_COMBOS - 2)]
    defaults = tuple(s.value for s in specs)
    out = dict.fromkeys(combos)
    for i, s in enumerate(specs):
        values = _steps(s) if isinstance(s, Slider) else s.grid()
        for v in values:
            out[defaults[:i] + (v,) + defaults[i + 1 :]] = None
    return list(out)


def _figure_text(fig) -> list[str]:
    if fig is None:
        return []
    spec = fig.to_plotly_json()
    lay = spec.get("layout", {})
    out = []

    def title(t):
        return t.get("text", "") if isinstance(t, dict) else str(t or "")

    out.append(title(lay.get("title")))
    for k, v in lay.items():
        if re.fullmatch(r"[xy]axis\d*", k) and isinstance(v, dict):
            out.append(title(v.get("title")))
            out += [str(t) for t in v.get("ticktext") or ()]
    out += [str(a.get("text", "")) for a in lay.get("annotations") or ()]
    for tr in spec.get("data", []):
        out.append(str(tr.get("name") or ""))
        text = tr.get("text")
        if isinstance(text, str):
            out.append(text)
        elif text is not None:
            out += [str(t) for t in text]
    return out


def view_text(view: View) -> str:
    parts = [view.summary, view.peek_title, *view.peek]
    parts += [f"{c.label} {c.value} {c.note}" for c in view.cards]
    if view.alert is not None:
        parts.append(h.text_of(getattr(view.alert, "text", str(view.alert))))
    parts += _figure_text(view.figure)
    return h.text_of(" | ".join(str(p) for p in parts))


@cache
def part_texts(stem: str, letter: str) -> tuple[tuple[tuple, str], ...]:
    """(state, text) for every reachable state of the part."""
    mod = module(stem)
    fn = part_function(mod, letter)
    return tuple((s, view_text(fn(*s))) for s in states(mod, letter))


@cache
def part_text(stem: str, letter: str) -> str:
    return "\n".join(dict.fromkeys(t for _, t in part_texts(stem, letter)))


def question_text(p: Prediction) -> str:
    texts = [p.feedback[k] for k in p.options] + [p.correct_note]
    return h.text_of(" | ".join(texts))


def _order() -> list[str]:
    readme = (h.ROOT / "labs" / "README.md").read_text(encoding="utf-8")
    return list(dict.fromkeys(re.findall(r"`(\w+)\.py`", readme.split("## For instructors")[0])))


def _part_module_of(stem: str) -> str | None:
    src = (h.ROOT / "labs" / f"{stem}.py").read_text(encoding="utf-8")
    m = re.search(r"from mlsysim\.labs\.parts import (\w+) as lab", src)
    return m.group(1) if m else None


#: (notebook stem, part module name) in the map's order, for every notebook with questions
NOTEBOOKS = [
    (s, m)
    for s in _order()
    if (h.ROOT / "labs" / f"{s}.py").exists() and (m := _part_module_of(s)) is not None
]
#: the part module names in the map's order
ORDER = [m for _, m in NOTEBOOKS]
NOTEBOOK_OF = dict((m, s) for s, m in NOTEBOOKS)
