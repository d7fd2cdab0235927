"""Headless notebook harness: run a marimo notebook in a chosen state and inspect what it shows.

marimo 0.25 facts this relies on: ``app.run(defs=...)`` returns ``(outputs, defs)``; a cell held
by ``mo.stop`` shows its stop message and defines nothing; an exception in a cell propagates; a
widget is set by overriding the cell that defines it (all of that cell's names: ``run`` fills in
the ones a test does not set); ``mo.cli_args()`` reads
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
#: the concept inventory (issue 37): questions without parts, charts or (pre-test) verdicts; the
#: tests that assume a part's chart and verdict skip them, tests/test_inventory.py runs them
INVENTORY = {"s06_00_inventory_pre.py", "s06_14_inventory_post.py"}


def skip_inventory(path) -> None:
    """``pytest.skip`` for a concept-inventory notebook in a test of parts, charts and verdicts."""
    if Path(path).name in INVENTORY:
        import pytest

        pytest.skip("the concept inventory has no parts, charts or pre-test verdicts")


NOTEBOOKS = sorted(
    p for p in LABS.glob("*.py") if not p.name.startswith("_") and p.name not in TOOLS
)

_BAD_WORDS = re.compile(r"\b(nan|NaN|inf|-inf|Infinity|Error|Traceback|undefined)\b")
_TAG = re.compile(r"<[^>]+>")
_UNICODE_ESC = re.compile(r"\\u([0-9a-fA-F]{4})")
_NEWPLOT = re.compile(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*")


def fresh_python(code: str, *argv: str):
    """Run ``code`` in a fresh interpreter with the repository first on its path (what a page has
    imported is exactly what the code imports); returns the JSON its last printed line holds."""
    import os
    import subprocess

    res = subprocess.run(
        [sys.executable, "-c", code, *argv],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


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
            layout, _ = dec.raw_decode(
                text, comma + 1 + (len(text[comma + 1 :]) - len(text[comma + 1 :].lstrip()))
            )
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
        return text_of(self.html)

    def shows(self, widget: UIElement) -> bool:
        """Is ``widget`` displayed in this run's outputs?"""
        m = re.search(r"object-id='([^']+)'", widget.text)
        return bool(m) and f"object-id='{m.group(1)}'" in self.html

    def widgets(self) -> dict[str, UIElement]:
        """The run's widgets by name, in name order: the order of marimo's defs follows string
        hashing, which changes with each process (``PYTHONHASHSEED``), and a seeded fuzz over
        them must draw the same states in every run."""
        return {k: v for k, v in sorted(self.defs.items()) if isinstance(v, UIElement)}

    def predictions(self) -> dict[str, UIElement]:
        return {k: v for k, v in self.widgets().items() if k.startswith("pred_")}


def text_of(rendered: str) -> str:
    """What a reader sees of rendered HTML: marimo's \\uXXXX escapes decoded, scripts and style
    sheets (chart JSON, the kit's CSS) and tags removed, entities unescaped."""
    text = _UNICODE_ESC.sub(lambda m: chr(int(m.group(1), 16)), rendered).replace('\\"', '"')
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S)
    return html.unescape(_TAG.sub(" ", text))


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
        defs = dict(defs or {})
        # marimo skips an overridden cell and so needs all of its definitions: a part's controls
        # share one cell, so the ones not set keep what this notebook state would create for them
        # (a first run without overrides, from the same ledger; only when a cell is set in part)
        missing = {n for cell in cell_defs(app) if cell & defs.keys() for n in cell - defs.keys()}
        if missing:
            _, first = app.run()
            defs = {**{n: first[n] for n in missing}, **defs}
        outputs, out_defs = app.run(defs=defs)
    finally:
        sys.argv = argv
    return Run(tuple(outputs), out_defs, _render(outputs))


def with_value(widget: UIElement, value):
    """A copy of ``widget`` holding ``value`` (for ``app.run(defs=...)`` overrides)."""
    kind = type(widget).__name__
    if kind == "form":  # a question's radio behind its commit button: the committed value
        return with_value(widget.element, value)
    if kind == "slider":
        return mo.ui.slider(
            start=widget.start,
            stop=widget.stop,
            step=widget.step,
            value=value,
            label=widget._args.label,
        )
    if kind == "radio":
        label = next(k for k, v in widget.options.items() if v == value)
        return mo.ui.radio(options=dict(widget.options), value=label, label=widget._args.label)
    if kind == "dropdown":
        label = next(k for k, v in widget.options.items() if v == value)
        return mo.ui.dropdown(options=dict(widget.options), value=label, label=widget._args.label)
    if kind == "switch":
        return mo.ui.switch(value=bool(value), label=widget._args.label)
    if kind == "number":
        return mo.ui.number(
            start=widget.start,
            stop=widget.stop,
            step=widget.step,
            value=value,
            label=widget._args.label,
        )
    if kind in ("text", "text_area"):
        return getattr(mo.ui, kind)(value=str(value), label=widget._args.label)
    raise TypeError(f"harness cannot set a {kind} widget; add it to tests/harness.py")


def grid(widget: UIElement) -> list:
    """The values a student can reach that the harness runs: min/default/max, every option."""
    kind = type(widget).__name__
    if kind == "form":
        return grid(widget.element)
    if kind in ("slider", "number"):
        return sorted({widget.start, widget.value, widget.stop})
    if kind in ("radio", "dropdown"):
        return list(widget.options.values())
    if kind == "switch":
        return [False, True]
    if kind in ("text", "text_area"):  # empty and hostile text; a prefilled default (a pasted
        # config) last, so "every widget at its end" still draws the charts
        hostile = ["", "A sentence citing Part A <b>and</b> [a link](javascript:alert(1))."]
        return hostile + [widget.value] if widget.value else hostile
    raise TypeError(f"harness has no grid for a {kind} widget")


#: a power written as code, "0.9^50" or "(1 - 1/n)^8" (vocab.superscript writes 0.9⁵⁰)
CARET_POWER = re.compile(r"[\w)′]\^[\w({]")

#: "1 tokens", "token(s)": a count's noun agrees with it (kit.counted)
_BAD_GRAMMAR = re.compile(
    r"(?<![\d.,×])(?<![−+×-] )1 (tokens|users|steps|GPUs|experts|layers|kernels|images|requests|frames|sequences"
    r"|heads|devices|chips|rows|tables|lookups|channels|words|launches|blocks|stages"
    r"|weights|values|positions|conversations|tiles|waves|windows|parameters|sequences)\b|\b[a-z]+\(s\)"
    r"|\(0% (?:less|more|faster|slower)"
)


def problems(result: Run) -> list[str]:
    """Everything a student should never see."""
    found = []
    for m in _BAD_WORDS.finditer(result.visible_text):
        ctx = result.visible_text[max(0, m.start() - 60) : m.end() + 60].replace("\n", " ")
        found.append(f"text shows {m.group(0)!r}: …{ctx}…")
    # a device by its human name in prose and cards too (a key in quotes is code: 'JetsonOrinNX')
    for key, name in _device_keys().items():
        for m in re.finditer(rf"(?<![\w'\"]){re.escape(key)}(?![\w'\"])", result.visible_text):
            ctx = result.visible_text[max(0, m.start() - 60) : m.end() + 20].replace("\n", " ")
            found.append(f"text names the device by its key {key!r} instead of {name!r}: …{ctx}…")
    names = " | ".join(str(t.get("name") or "") for traces in result.figures for t in traces)
    for m in _BAD_GRAMMAR.finditer(result.visible_text + " | " + names):
        found.append(f"text reads {m.group(0)!r} (one of a count is singular; no '(s)')")
    # one name for the launch-overhead regime (vocab.bound_phrase): the chapter's "launch"
    for m in re.finditer(r"dispatch-bound", result.visible_text + " | " + names, re.I):
        found.append(f"text says {m.group(0)!r}; the labs say launch-bound (vocab.bound_phrase)")
    for m in CARET_POWER.finditer(result.visible_text + " | " + names):
        found.append(f"text writes a power with a caret: {m.group(0)!r} (use vocab.superscript)")
    for i, (_, layout) in enumerate(result.charts):
        # plotly.js reads annotation coordinates on a log axis as log10 of the value: a raw
        # value there (e.g. a line label at 295) blows the axis up to 10^295
        for ann in layout.get("annotations", []):
            for axis in ("x", "y"):
                ax = layout.get(f"{axis}axis", {})
                v = ann.get(axis)
                if (
                    ax.get("type") == "log"
                    and ann.get(f"{axis}ref") == axis
                    and isinstance(v, int | float)
                    and abs(v) > 30
                ):
                    found.append(
                        f"chart {i}: label {ann.get('text')!r} at {axis}={v} on a log axis"
                    )
    found += chart_rule_problems(result)
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


# ---------------------------------------------------------------- chart rules (kit: charts.py)
_SERIES_COLORS = {"#2563eb", "#ea580c", "#16a34a", "#dc2626", "#7c3aed", "#0d9488"}
_DECADE_TEXT = re.compile(
    r"^(-?[\d,]+(\.\d+)?|10(<sup>)?[⁻\-]?[⁰¹²³⁴⁵⁶⁷⁸⁹\d]+(</sup>)?)( ?(B|KB|MB|GB|TB|PB|k|M))?$"
)
_BYTE_TICK = re.compile(r"\d\s?(B|KB|MB|GB|TB|PB|KiB|MiB|GiB|TiB)$")
_KEYS_NOT_NAMES = None


def _device_keys() -> dict[str, str]:
    """Registry keys that are not words of the device's name (``JetsonOrinNX``)."""
    global _KEYS_NOT_NAMES
    if _KEYS_NOT_NAMES is None:
        from mlsysim import Hardware

        _KEYS_NOT_NAMES = {
            d.key: d.name for d in Hardware.all() if d.key.lower() not in d.name.lower()
        }
    return _KEYS_NOT_NAMES


def _title(ax: dict) -> str:
    from mlsysim.labs.charts import _text  # a title's text in a figure's JSON

    return _text(ax.get("title")) or ""


def _effective(layout: dict, axis_name: str, prop: str):
    v = layout.get(axis_name, {}).get(prop)
    if v is None:
        v = layout.get("template", {}).get("layout", {}).get(axis_name[:5], {}).get(prop)
    return v


#: The most lines a reference line's label may take on the desktop figure
MAX_LABEL_LINES = 4


def chart_rule_problems(result: Run) -> list[str]:
    """The chart rules the kit enforces (mlsysim/labs/charts.py), checked on every chart a run
    shows: decade-only log ticks, byte units on byte axes, k/M/B only on count axes, neutral
    dashed reference lines, labels clear of each other, of lines and markers and of the
    edge (``placement``), human device names, a plot that
    keeps its height under a phone's stacked legend, and one text alternative per chart."""
    from mlsysim.labs import charts as charts_mod
    from mlsysim.labs import placement
    from mlsysim.labs.charts import (
        PHONE_MIN_PLOT_PX,
        is_byte_title,
        is_count_title,
        legend_rows,
        title_byte_unit,
        y_title_room,
    )

    found = []
    charts = result.charts
    n_alt = result.html.count('class="ms-chart-alt"')
    if charts and n_alt < len(charts):
        found.append(f"{len(charts)} chart(s) but {n_alt} text alternative(s) (.ms-chart-alt)")
    for i, (traces, layout) in enumerate(charts):

        def is_reference(t):  # a constant dashed line trace (a limit drawn as a trace)
            xs, ys = t.get("x") or [], t.get("y") or []
            dashed = (t.get("line") or {}).get("dash") not in (None, "solid")
            return (
                dashed
                and len(ys) >= 2
                and (len(set(map(str, ys))) == 1 or len(set(map(str, xs))) == 1)
            )

        series_colors = {
            str(
                (t.get("line") or {}).get("color") or (t.get("marker") or {}).get("color") or ""
            ).lower()
            for t in traces
            if not is_reference(t)
        } | _SERIES_COLORS
        series_colors.discard("")
        frame = placement.Frame(traces, layout, placement.WIDTHS[0])
        for axis, rng in frame.ranges.items():
            # a numeric axis without a range: marimo's Plotly.react redraw can leave it at
            # Plotly's empty -1..4 when a widget changes the axis (6.3 part D's device switch)
            ax = layout.get(f"{axis}axis") or {}
            if rng is not None and frame.cats[axis] is None and ax.get("range") is None:
                found.append(f"chart {i} {axis}axis ({_title(ax)!r}): numeric axis without a range")
        fx = charts_mod._first_tick_at(layout.get("xaxis") or {})
        fy = charts_mod._first_tick_at(layout.get("yaxis") or {})
        if (
            fx is not None
            and fy is not None
            and fx < charts_mod.CORNER_X
            and fy < charts_mod.CORNER_Y - 1e-9
        ):
            found.append(f"chart {i}: the first x and y tick labels meet at the lower-left corner")
        for name in [k for k in layout if re.fullmatch(r"[xy]axis\d*", k)]:
            ax = layout[name]
            title = _title(ax)
            if ax.get("type") == "log":
                tv, tt = ax.get("tickvals"), ax.get("ticktext")
                if not tv or not tt:
                    found.append(f"chart {i} {name} ({title!r}): log axis without decade ticks")
                else:
                    for v, txt in zip(tv, tt, strict=False):
                        if v <= 0 or abs(math.log10(v) - round(math.log10(v))) > 1e-9:
                            found.append(f"chart {i} {name}: log tick at {v} is not a decade")
                        elif not _DECADE_TEXT.match(str(txt).replace("\u2009", "")):
                            found.append(f"chart {i} {name}: log tick label {txt!r}")
            unit = title_byte_unit(title)
            if unit:  # values in the unit the title names: ticks never in another one
                other = [
                    t
                    for t in ax.get("ticktext") or []
                    if (m := _BYTE_TICK.search(str(t))) and m.group(1) != unit
                ]
                if other:
                    found.append(
                        f"chart {i} {name} ({title!r}): ticks {other} on an axis in {unit}"
                    )
            if is_byte_title(title):
                tt = ax.get("ticktext") or []
                if not (tt and all(_BYTE_TICK.search(str(t)) for t in tt)) and ax.get(
                    "ticksuffix"
                ) not in ("B", " B"):
                    found.append(f"chart {i} {name} ({title!r}): byte axis without byte units")
            vals = [
                abs(v)
                for t in traces
                for v in (t.get(name[0]) or [])
                if isinstance(v, int | float) and not isinstance(v, bool)
            ]
            if (
                ax.get("type") in (None, "linear", "-")
                and not is_count_title(title)
                and not is_byte_title(title)
                and not ax.get("ticktext")
                and vals
                and 1e3 <= max(vals) < 1e6
                and "," not in str(ax.get("tickformat") or "")
            ):
                found.append(f"chart {i} {name} ({title!r}): thousands shown as a power of ten")
            if (
                not is_count_title(title)
                and ax.get("type") != "category"
                and not ax.get("ticktext")
            ):
                fmt = _effective(layout, name, "exponentformat")
                if fmt in (None, "B", "SI"):
                    found.append(
                        f"chart {i} {name} ({title!r}): k/M/B tick suffixes on a non-count axis"
                    )
        # reference lines: dashed, neutral, never a data colour
        for sh in layout.get("shapes", []):
            if sh.get("type") != "line":
                continue
            line = sh.get("line", {})
            if line.get("dash") in (None, "solid"):
                found.append(f"chart {i}: a reference line is solid")
            if str(line.get("color", "")).lower() in series_colors:
                found.append(
                    f"chart {i}: a reference line uses a data series colour {line.get('color')}"
                )
        # phone width (390 px): each legend line takes a row under the x-axis title and ticks;
        # the plot keeps at least PHONE_MIN_PLOT_PX between them and the title
        # (and category names too wide for it, slanted, take more)
        font = placement.font_px(layout)
        rows, slant = legend_rows(traces), charts_mod.slanted_ticks_px(traces, font)
        margin = placement.margins(layout)
        xt = _title(layout.get("xaxis", {}))
        bottom = max(margin["b"], charts_mod.phone_bottom_px(traces, str(xt).count("<br>"), font))
        plot_px = placement.plot_height(layout) + margin["b"] - bottom
        # without a legend or slanted names the height does not change
        if (rows or slant) and plot_px < PHONE_MIN_PLOT_PX:
            found.append(
                f"chart {i}: at phone width the plot keeps {plot_px:.0f} px ({rows} legend lines, "
                f"{slant:.0f} px of slanted names)"
            )
        # a y-axis title no longer than the plot is tall (else it runs into the title)
        ytitle = _title(layout.get("yaxis", {}))
        room = y_title_room(layout)
        if any(len(line) > room for line in str(ytitle).split("<br>")):
            found.append(
                f"chart {i}: y-axis title {ytitle!r} longer than the plot ({room} characters)"
            )
        # labels: none overlaps another, sits under a line or a marker, or is cut off, at a
        # desktop plot width (the narrow one, WIDTHS[1], is asserted on the states a student
        # first sees: test_notebooks; a phone hides point labels: style.py)
        found += [
            f"chart {i}: {p}" for p in placement.label_problems(traces, layout, placement.WIDTHS[0])
        ]
        # what a phone draws (the figure's phone variant, swapped in by the site at 640 px and
        # under): no label over another, and each point's label clear of trouble, at a phone's
        # plot width (a line's label may have no clear place among several lines on 240 px:
        # byom A's device lines in some states; the browser test reads the real page)
        phone = charts_mod.phone_variant({"data": traces, "layout": layout})
        # the same on a phone's shorter plot (Lab 06's synthesis: its y title ran into the title)
        ytitle = _title(phone["layout"].get("yaxis", {}))
        room = y_title_room(phone["layout"])
        if any(len(line) > room for line in str(ytitle or "").split("<br>")):
            found.append(
                f"chart {i} on a phone: y-axis title {ytitle!r} longer than the plot ({room} characters)"
            )
        point_texts = {
            f"label {placement._plain(x)[:50]!r} "
            for t in phone["data"]
            if "text" in str(t.get("mode") or "")
            for x in (t.get("text") if isinstance(t.get("text"), list) else [t.get("text")])
            if x
        }
        found += [
            f"chart {i} on a phone: {p}"
            for p in placement.label_problems(
                phone["data"], phone["layout"], placement.PHONE_LABEL_PX
            )
            if "overlaps another label" in p or any(p.startswith(x) for x in point_texts)
        ]
        # a desktop title on no more lines than the chart's width needs (issue 35: "Llama-3-8B:
        # memory at batch / 1, 4,096-token context (FP16)" wrapped at ~30 characters on a wide
        # chart), and a line's label on at most MAX_LABEL_LINES (6.7 A's ridge label took seven)
        title = str(_title(layout) or "")
        if title and title.count("<br>") + 1 > charts_mod.title_lines_needed(title):
            found.append(
                f"chart {i}: title on {title.count('<br>') + 1} lines where "
                f"{charts_mod.title_lines_needed(title)} fit: {title!r}"
            )
        for a in layout.get("annotations") or ():
            if str(a.get("text") or "").count("<br>") + 1 > MAX_LABEL_LINES:
                found.append(
                    f"chart {i}: label on more than {MAX_LABEL_LINES} lines: {a['text']!r}"
                )
        # human device names
        texts = [str(_title(layout)), *(str(_title(layout.get(n, {}))) for n in ("xaxis", "yaxis"))]
        for t in traces:
            texts.append(str(t.get("name") or ""))
            tx = t.get("text")
            texts += [str(x) for x in tx] if isinstance(tx, list) else [str(tx or "")]
        texts += [str(a.get("text") or "") for a in layout.get("annotations", [])]
        for key, name in _device_keys().items():
            for txt in texts:
                if re.search(rf"(?<!\w){re.escape(key)}(?!\w)", txt):
                    found.append(
                        f"chart {i}: registry key {key!r} instead of the device name ({name}) in {txt[:60]!r}"
                    )
                    break
    return found
