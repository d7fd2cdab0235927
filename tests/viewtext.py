"""Helpers for lesson tests: every string a part shows, at its widgets' defaults or given values."""

from __future__ import annotations

import inspect

from mlsysim.labs.components import View


def default_args(mod, letter: str, fn) -> dict:
    """The part function's arguments at its widget specs' defaults (``X_<PARAM>.value``)."""
    return {
        p: getattr(mod, f"{letter}_{p.upper()}").value for p in inspect.signature(fn).parameters
    }


def render(mod, letter: str, **override) -> View:
    """The part's View at its defaults, with ``override`` values replacing some."""
    fn = getattr(mod, "synthesis" if letter == "S" else f"part_{letter.lower()}")
    args = {**default_args(mod, letter, fn), **override}
    return fn(**args)


def view_text(view: View) -> str:
    """Every string the view shows: chart title, axis titles, trace names and texts, annotations,
    card labels/values/notes, the summary and the MathPeek lines."""
    out = [view.summary, view.peek_title, *view.peek]
    for c in view.cards:
        out += [c.label, c.value, c.note]
    fig = view.figure
    lay = fig.layout
    out.append(str(lay.title.text or ""))
    for ax in (lay.xaxis, lay.yaxis):
        out.append(str(ax.title.text or ""))
    for tr in fig.data:
        out.append(str(tr.name or ""))
        txt = getattr(tr, "text", None)
        if isinstance(txt, str):
            out.append(txt)
        elif txt is not None:
            out += [str(t) for t in txt]
        x = getattr(tr, "x", None)
        if x is not None:
            out += [str(v) for v in x if isinstance(v, str)]
    for a in lay.annotations or ():
        out.append(str(a.text or ""))
    for shape_text in (getattr(s, "name", None) for s in lay.shapes or ()):
        if shape_text:
            out.append(str(shape_text))
    return "\n".join(out)
