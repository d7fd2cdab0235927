"""Headless notebook harness: run a marimo notebook in a chosen state and inspect what it shows.

marimo 0.25 facts this relies on: ``app.run(defs=...)`` returns ``(outputs, defs)``; a cell held
by ``mo.stop`` shows its stop message and defines nothing; an exception in a cell propagates; a
widget is set by overriding the (single-name) cell that defines it; ``mo.cli_args()`` reads
``sys.argv`` (the instructor switch ``--unlock all``).
"""

from __future__ import annotations

import html
import importlib.util
import json
import math
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import marimo as mo
from marimo._plugins.ui._core.ui_element import UIElement

ROOT = Path(__file__).resolve().parents[1]
LABS = ROOT / "labs"
#: notebooks that are tools, not student labs (no predictions): tested by their own tests
TOOLS = {"instructor.py"}
NOTEBOOKS = sorted(p for p in LABS.glob("*.py") if not p.name.startswith("_") and p.name not in TOOLS)

_BAD_WORDS = re.compile(r"\b(nan|NaN|inf|-inf|Infinity|Error|Traceback|undefined)\b")
_TAG = re.compile(r"<[^>]+>")
_UNICODE_ESC = re.compile(r"\\u([0-9a-fA-F]{4})")
_NEWPLOT = re.compile(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*")


def load_app(path: Path):
    name = f"_nb_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.app


def cell_defs(app) -> list[set[str]]:
    return [set(cd.cell.defs) for cd in app._cell_manager.cell_data() if cd.cell is not None]


@dataclass
class Run:
    outputs: tuple
    defs: Mapping
    html: str

    @property
    def charts(self) -> list[tuple[list[dict], dict]]:
        """(traces, layout) of every chart shown, parsed from the rendered HTML."""
        out = []
        text = self.html
        dec = json.JSONDecoder()
        for m in _NEWPLOT.finditer(text):
            traces, end = dec.raw_decode(text, m.end())
            comma = text.index(",", end)
            layout, _ = dec.raw_decode(text, comma + 1 + (len(text[comma + 1:]) - len(text[comma + 1:].lstrip())))
            out.append((traces, layout))
        return out

    @property
    def figures(self) -> list[list[dict]]:
        """Plotly traces of every chart shown."""
        return [traces for traces, _ in self.charts]

    @property
    def visible_text(self) -> str:
        """Rendered text with tags and embedded chart JSON removed (callouts keep their HTML
        JSON-encoded in an attribute: decode it first)."""
        text = _UNICODE_ESC.sub(lambda m: chr(int(m.group(1), 16)), self.html).replace('\\"', '"')
        text = re.sub(r"<script.*?</script>", " ", text, flags=re.S)
        return html.unescape(_TAG.sub(" ", text))

    def shows(self, widget: UIElement) -> bool:
        """Is ``widget`` displayed in this run's outputs?"""
        m = re.search(r"object-id='([^']+)'", widget.text)
        return bool(m) and f"object-id='{m.group(1)}'" in self.html

    def widgets(self) -> dict[str, UIElement]:
        return {k: v for k, v in self.defs.items() if isinstance(v, UIElement)}

    def predictions(self) -> dict[str, UIElement]:
        return {k: v for k, v in self.widgets().items() if k.startswith("pred_")}


def _render(outputs: Iterable) -> str:
    parts = []
    for o in outputs:
        if o is None:
            continue
        try:
            parts.append(mo.as_html(o).text)
        except (TypeError, ValueError):
            parts.append(repr(o))
    # chart iframes carry their page in an escaped srcdoc attribute: unescape twice
    return html.unescape(html.unescape("\n".join(parts)))


def run(app, defs: Mapping | None = None, unlock: bool = False, path: Path | None = None) -> Run:
    argv = sys.argv
    sys.argv = [str(path or "notebook.py"), *(["--unlock", "all"] if unlock else [])]
    try:
        outputs, out_defs = app.run(defs=dict(defs or {}))
    finally:
        sys.argv = argv
    return Run(tuple(outputs), out_defs, _render(outputs))


def with_value(widget: UIElement, value):
    """A copy of ``widget`` holding ``value`` (for ``app.run(defs=...)`` overrides)."""
    kind = type(widget).__name__
    if kind == "slider":
        return mo.ui.slider(start=widget.start, stop=widget.stop, step=widget.step, value=value,
                            label=widget._args.label)
    if kind == "radio":
        label = next(k for k, v in widget.options.items() if v == value)
        return mo.ui.radio(options=dict(widget.options), value=label, label=widget._args.label)
    if kind == "dropdown":
        label = next(k for k, v in widget.options.items() if v == value)
        return mo.ui.dropdown(options=dict(widget.options), value=label, label=widget._args.label)
    if kind == "switch":
        return mo.ui.switch(value=bool(value), label=widget._args.label)
    if kind == "number":
        return mo.ui.number(start=widget.start, stop=widget.stop, step=widget.step, value=value,
                            label=widget._args.label)
    if kind in ("text", "text_area"):
        return getattr(mo.ui, kind)(value=str(value), label=widget._args.label)
    raise TypeError(f"harness cannot set a {kind} widget; add it to tests/harness.py")


def grid(widget: UIElement) -> list:
    """The values a student can reach that the harness runs: min/default/max, every option."""
    kind = type(widget).__name__
    if kind in ("slider", "number"):
        return sorted({widget.start, widget.value, widget.stop})
    if kind in ("radio", "dropdown"):
        return list(widget.options.values())
    if kind == "switch":
        return [False, True]
    if kind in ("text", "text_area"):
        return ["", "A sentence citing Part A <b>and</b> [a link](javascript:alert(1))."]
    raise TypeError(f"harness has no grid for a {kind} widget")


def problems(result: Run) -> list[str]:
    """Everything a student should never see."""
    found = []
    for m in _BAD_WORDS.finditer(result.visible_text):
        ctx = result.visible_text[max(0, m.start() - 60): m.end() + 60].replace("\n", " ")
        found.append(f"text shows {m.group(0)!r}: …{ctx}…")
    for i, (_, layout) in enumerate(result.charts):
        # plotly.js reads annotation coordinates on a log axis as log10 of the value: a raw
        # value there (e.g. a line label at 295) blows the axis up to 10^295
        for ann in layout.get("annotations", []):
            for axis in ("x", "y"):
                ax = layout.get(f"{axis}axis", {})
                v = ann.get(axis)
                if ax.get("type") == "log" and ann.get(f"{axis}ref") == axis and isinstance(v, int | float) and abs(v) > 30:
                    found.append(f"chart {i}: label {ann.get('text')!r} at {axis}={v} on a log axis")
    for i, traces in enumerate(result.figures):
        if not traces:
            found.append(f"chart {i} has no traces")
        for t in traces:
            values = [v for axis in ("x", "y") for v in (t.get(axis) or [])]
            if not values:
                found.append(f"chart {i} trace {t.get('name')!r} has no data")
            for v in values:
                if v is None or (isinstance(v, float) and not math.isfinite(v)):
                    found.append(f"chart {i} trace {t.get('name')!r} has a non-finite value")
                    break
    return found
