"""Where a chart's text goes: the boxes its labels take on screen, what they run into, and where
to move a label so it runs into nothing.

A chart's labels are the text beside its points (a scatter trace in ``text`` mode) and its
annotations (the labels of ``add_hline``/``add_vline``). :func:`label_problems` estimates, at a
given plot width, the box each one takes (Plotly's 12 px font: ~0.58 em a character, 1.3 em a
line) and reports a label that

- overlaps another label,
- is crossed by a line (a data line, the roofline, a reference line),
- covers another point's marker, or sits on a bar,
- is cut off: a point's text outside the plot area (Plotly clips it there); an annotation
  left of the plot or under it (over the tick labels), more than ``ABOVE_PLOT_PX`` above it, or
  past the figure's right edge.

:func:`place_labels` moves each point label and each reference-line label to the first of a
few positions (above, below, beside; a long one also on two lines) that has none of these
problems at both plot widths of ``WIDTHS``; ``charts.finalize`` calls it, and the harness
asserts :func:`label_problems` is empty at the desktop width for every chart every part shows
(at the narrow one too on the states a student first sees).
Category axes (bar charts) are placed too; date axes and subplots are left as they are.

Everything works on Plotly's JSON (``fig.to_plotly_json()``: dicts), in pixels from the plot
area's bottom-left corner, y up. Axis ranges Plotly picks itself are estimated the way
``charts`` does (the data's extent, padded 5%).
"""

from __future__ import annotations

import copy
import functools
import math
import re
from collections.abc import Iterable, Sequence

from .state import short_repr

#: Plot-area widths (px) labels must fit: a laptop's marimo "medium" column, and a narrow one
#: (a half-screen window or a tablet)
WIDTHS = (900.0, 560.0)
#: The plot's width on a 390 px phone (the chart's ~354 px less the y axis; slanted category
#: names, ``charts.slanted_ticks_px``). A phone draws the figure's phone variant, its labels
#: placed for ``PHONE_LABEL_PX`` (``charts.phone_variant``)
PHONE_PLOT_PX = 270.0
#: The plot width (px) a figure's phone variant places its labels for: a 360 px phone's, the
#: narrowest common one (a label placed for a narrower plot fits a wider one: the points move
#: apart and away from the edges, the labels keep their size); on a 390 px phone the plot was
#: 263 px wide in Chromium, not 270, with 6.12 A's log-axis ticks, and a label placed for 270
#: ran 20 px past its edge
PHONE_LABEL_PX = 240.0
#: Font size Plotly uses when neither a trace or annotation nor the layout (or its template)
#: names one
FONT_PX = 12.0
#: Character widths (em) by class: DejaVu Sans's, the widest common fallback of the kit's
#: "Inter, system-ui, sans-serif", measured in Chromium
_CHAR_EM = {
    **dict.fromkeys(" ijlIJ.,:;'|·", 0.31),
    **dict.fromkeys('ftr-()[]/!ᵀ"*_–', 0.40),
    **dict.fromkeys("KVXZBRCAUNHDGOQ&", 0.74),
    **dict.fromkeys("+=×÷→≈~#<>w", 0.84),
    **dict.fromkeys("mMW@%—", 0.97),
}
#: Any other character's width (lower case, digits, the narrower capitals), and a line's height
CHAR_EM, LINE_EM = 0.62, 1.3
#: Default Plotly marker diameter (px)
MARKER_PX = 6.0

CUT_OFF = "cut off at the edge"
#: How far above the plot area an annotation may reach (the gap under a chart's title)
ABOVE_PLOT_PX = 20.0
#: What leaving a point's label out costs in the placement (a problem at the desktop width
#: costs 2, at the narrow one 1): done only where every place would collide at the desktop width
HIDDEN_COST = 1.5

#: The ground of a line label that no place keeps clear of the lines and bars (the kit's CSS
#: gives it the dark theme's colour)
LABEL_GROUND = "rgba(255,255,255,0.85)"

#: Plotly's own margins and figure height, where neither the figure nor its template sets them
PLOTLY_MARGIN = {"l": 80.0, "r": 80.0, "t": 100.0, "b": 80.0}
PLOTLY_HEIGHT = 450.0


#: The largest figure size, margin or font size (px) the placement reads
MAX_PX = 100_000.0


def _layout(layout) -> dict:
    """``layout`` if it is a figure's layout as JSON (a dict), else a ValueError naming it."""
    if not isinstance(layout, dict):
        raise ValueError(
            f"layout must be a figure's layout as JSON (a dict: fig.to_plotly_json()['layout']), "
            f"got {type(layout).__name__}"
        )
    return layout


def _px_value(v, name: str) -> float:
    """A size in px from a figure's JSON: a finite number in [0, MAX_PX], else a ValueError."""
    if not finite_number(v) or not 0 <= v <= MAX_PX:
        raise ValueError(
            f"{name} must be a number of px in [0, {MAX_PX:,.0f}], got {short_repr(v, 60)}"
        )
    return float(v)


def margins(layout: dict) -> dict[str, float]:
    """The margins (px) Plotly draws a figure with (``layout``: its layout as JSON): the
    figure's own, else its template's, else Plotly's."""
    own = _layout(layout).get("margin") or {}
    template = layout.get("template") or {}
    template = (template.get("layout") or {}) if isinstance(template, dict) else {}
    template = (template.get("margin") or {}) if isinstance(template, dict) else {}
    if not isinstance(own, dict):
        raise ValueError(
            f"layout['margin'] must be a dict of px (l, r, t, b), got {short_repr(own, 60)}"
        )
    if not isinstance(template, dict):
        template = {}
    return {
        k: _px_value(
            own[k] if own.get(k) is not None else template.get(k, default),
            f"layout['margin']['{k}']",
        )
        for k, default in PLOTLY_MARGIN.items()
    }


def plot_height(layout: dict) -> float:
    """The plot area's height (px): the figure's height less its top and bottom margins (one
    computation for the placement, the y-axis title rule and the phone-width rule)."""
    m = margins(layout)
    return _px_value(layout.get("height") or PLOTLY_HEIGHT, "layout['height']") - m["t"] - m["b"]


Box = tuple[float, float, float, float]  # x0, y0, x1, y1 (y up)
_HIDDEN: Box = (-1e9, -1e9, -1e9, -1e9)  # a label left out
Seg = tuple[float, float, float, float]

#: Positions tried for a point's label, in order of preference
POINT_POSITIONS = (
    "top center",
    "bottom center",
    "middle right",
    "middle left",
    "top right",
    "top left",
    "bottom right",
    "bottom left",
)


def _nth(value, j: int, missing):
    """Point ``j``'s entry of a per-point ``value`` (``missing`` past a short list's end)."""
    if isinstance(value, list | tuple):
        return value[j] if j < len(value) else missing
    return value


_TAG = re.compile(r"<[^>]+>")
_TAG_OR_EMPTY = re.compile(r"<[^>]*>")


def sub_tags(text: str, repl, pattern: re.Pattern = _TAG) -> str:
    """``pattern.sub(repl, text)`` for a tag pattern (``<[^>]+>``, ``<[^>]*>``) in linear time: no
    tag reaches past the last ">", so the text after it is left as it is (searched whole, a long
    run of "<" with no ">" took quadratic time)."""
    end = text.rfind(">")
    if end < 0:
        return text
    return pattern.sub(repl, text[: end + 1]) + text[end + 1 :]


def _plain(text) -> str:
    return sub_tags(str(text or ""), "")


def _flat(text) -> str:
    """A label's words on one line, however it was broken (``<br>``): what
    ``re.sub(r"\\s*<br>\\s*", " ", text)`` gives, without its quadratic time on long runs of
    spaces."""
    parts = str(text or "").split("<br>")
    if len(parts) == 1:
        return parts[0]
    inner = [p.strip() for p in parts[1:-1]]
    return " ".join([parts[0].rstrip(), *inner, parts[-1].lstrip()])


@functools.lru_cache(maxsize=4096)
def _line_em(line: str) -> float:
    return sum(_CHAR_EM.get(c, CHAR_EM) for c in _plain(line))


def _font_ok(size) -> bool:
    """Whether ``size`` is a usable font size: a finite number of px in (0, MAX_PX]."""
    return finite_number(size) and 0 < size <= MAX_PX


def text_size(text, font_px: float = FONT_PX) -> tuple[float, float]:
    """(width, height) in px of ``text`` (``<br>`` breaks lines) at ``font_px``."""
    if not _font_ok(font_px):
        raise ValueError(
            f"font_px must be a font size in px in (0, {MAX_PX:,.0f}], got {short_repr(font_px, 60)}"
        )
    lines = str(text or "").split("<br>")
    return max(map(_line_em, lines)) * font_px, len(lines) * LINE_EM * font_px


def font_px(layout: dict) -> float:
    """The font size a chart's text takes where it names none: the layout's, else its
    template's, else Plotly's."""
    template = layout.get("template")
    inner = template.get("layout") if isinstance(template, dict) else None
    for font in (layout.get("font"), inner.get("font") if isinstance(inner, dict) else None):
        size = font.get("size") if isinstance(font, dict) else None
        if _font_ok(size):
            return float(size)
    return FONT_PX


def finite_number(v) -> bool:
    """Whether ``v`` is a finite int or float (not a bool, not a string)."""
    if not isinstance(v, int | float) or isinstance(v, bool):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:  # an int too large for a float (10**400)
        return False


def _bars(traces: Sequence[dict]) -> list[dict]:
    """A chart's bar traces that are drawn."""
    return [t for t in traces if t.get("type") == "bar" and t.get("visible") is not False]


def _stacked(layout: dict) -> bool:
    return layout.get("barmode") in ("stack", "relative")


def axis_values(
    traces: Sequence[dict], layout: dict, axis: str, bar_positions: bool = True
) -> list[float]:
    """The values ``axis`` ("x" or "y") spans: scatter and bar values on it, the zero bars
    stand on, stacked totals, shapes' ends and (``bar_positions``) the edges of bars placed at
    numbers on it. Ranges are estimated from these, ticks made (without bar positions)."""
    vals: list[float] = []
    for t in traces:
        kind = t.get("type", "scatter")
        if kind not in ("scatter", "scattergl", "bar"):
            continue
        numbers = [float(v) for v in t.get(axis) or () if finite_number(v)]
        if kind == "bar" and axis == ("y" if t.get("orientation") == "h" else "x"):
            if bar_positions:  # a bar's position: the axis spans its edges
                vals += [v + side for v in numbers for side in (-0.5, 0.5)]
            continue
        if kind == "bar":
            vals.append(0.0)  # bars stand on zero
        vals += numbers
    if _stacked(layout):  # a stack reaches its total
        totals: dict[str, float] = {}
        for t in _bars(traces):
            cat = "y" if t.get("orientation") == "h" else "x"
            if cat == axis:
                continue
            for c, v in zip(t.get(cat) or (), t.get(axis) or (), strict=False):
                if finite_number(v) and v > 0:
                    totals[str(c)] = totals.get(str(c), 0.0) + v
        vals += totals.values()
    for sh in layout.get("shapes") or ():
        if sh.get(f"{axis}ref") == axis:
            vals += [float(sh[k]) for k in (f"{axis}0", f"{axis}1") if finite_number(sh.get(k))]
    return vals


class Frame:
    """The plot area of one chart (its ``layout`` and ``traces`` as JSON) at ``width`` px."""

    def __init__(self, traces: Sequence[dict], layout: dict, width: float):
        self.traces, self.layout, self.w = traces, layout, float(width)
        self.margin = margins(layout)
        self.font_px = font_px(layout)
        self.h = max(120.0, plot_height(layout))
        self.cats: dict[str, dict[str, int] | None] = {}
        self.ranges = {a: self._range(a) for a in ("x", "y")}

    def at(self, width: float) -> Frame:
        """The same chart at another plot width (its ranges and categories are not estimated
        again: they do not depend on the width)."""
        other = copy.copy(self)
        other.w = float(width)
        return other

    @property
    def ok(self) -> bool:
        """Whether both axes are numeric (category axes and subplots are not placed)."""
        return all(r is not None for r in self.ranges.values())

    def _log(self, axis: str) -> bool:
        return (self.layout.get(f"{axis}axis") or {}).get("type") == "log"

    def _categories(self, axis: str) -> dict[str, int] | None:
        """A category axis's categories and their positions (0, 1, ...), else None."""
        ax = self.layout.get(f"{axis}axis") or {}
        values = [v for t in self.traces for v in (t.get(axis) or ())]
        if ax.get("type") != "category" and not any(isinstance(v, str) for v in values):
            return None
        order = list(ax.get("categoryarray") or ()) + [str(v) for v in values]
        return {c: i for i, c in enumerate(dict.fromkeys(str(c) for c in order))}

    def _range(self, axis: str):
        ax = self.layout.get(f"{axis}axis") or {}
        if ax.get("type") in ("date", "multicategory"):
            self.cats[axis] = None
            return None  # not placed
        cats = self.cats[axis] = self._categories(axis)
        if cats is not None:
            return (-0.5, len(cats) - 0.5) if cats else None
        given = ax.get("range")
        if isinstance(given, list | tuple) and len(given) == 2 and all(map(finite_number, given)):
            lo, hi = ax["range"]
            return (float(lo), float(hi)) if hi != lo else None
        log = ax.get("type") == "log"
        if any((t.get(f"{axis}axis") or axis) != axis for t in self.traces):
            return None  # a subplot: not handled
        vals = axis_values(self.traces, self.layout, axis)
        if log:
            vals = [math.log10(v) for v in vals if v > 0]
        if not vals:
            return None
        lo, hi = min(vals), max(vals)
        pad = 0.05 * (hi - lo or 1.0)
        return lo - pad, hi + pad

    def px(self, axis: str, v, ref: str | None = None, in_log: bool = False) -> float | None:
        """Pixel coordinate of ``v`` on ``axis`` for an object referring to it by ``ref``
        ("x", "x domain", "paper"); annotations on a log axis already hold log10."""
        span = self.w if axis == "x" else self.h
        ref = ref or axis
        if ref == axis and self.cats.get(axis) is not None and isinstance(v, str):
            v = self.cats[axis].get(v)
        if not finite_number(v):
            return None
        if ref.endswith("domain"):
            return v * span
        if ref == "paper":
            return v * span
        if ref != axis:
            return None
        lo, hi = self.ranges[axis]
        if self._log(axis) and not in_log and self.cats.get(axis) is None:
            if v <= 0:
                return None
            v = math.log10(v)
        return (v - lo) / (hi - lo) * span

    # ---- what is drawn -------------------------------------------------------------------

    def points(self, t: dict) -> list[tuple[float, float] | None]:
        return [
            (px, py)
            if (px := self.px("x", x)) is not None and (py := self.px("y", y)) is not None
            else None
            for x, y in zip(t.get("x") or (), t.get("y") or (), strict=False)
        ]

    def segments(self) -> list[Seg]:
        """Every drawn line: scatter traces in ``lines`` mode, and line shapes."""
        segs: list[Seg] = []
        for t in self.traces:
            if t.get("type", "scatter") not in ("scatter", "scattergl"):
                continue
            if "lines" not in _mode(t):
                continue
            pts = self.points(t)
            for a, b in zip(pts, pts[1:], strict=False):
                if a is not None and b is not None:
                    segs.append((*a, *b))
        for sh in self.layout.get("shapes") or ():
            if sh.get("type") != "line":
                continue
            xr, yr = sh.get("xref") or "x", sh.get("yref") or "y"
            ends = [
                self.px("x", sh.get("x0"), xr),
                self.px("y", sh.get("y0"), yr),
                self.px("x", sh.get("x1"), xr),
                self.px("y", sh.get("y1"), yr),
            ]
            if None not in ends:
                segs.append(tuple(ends))
        return segs

    def bars(self) -> list[Box]:
        """The box of every bar: side by side (Plotly's default "group"), over each other
        ("overlay") or stacked ("stack", "relative": positive values)."""
        bars = _bars(self.traces)
        mode = self.layout.get("barmode") or "group"
        if not bars or mode not in ("group", "overlay", "stack", "relative"):
            return []
        out: list[Box] = []
        stacked: dict[str, float] = {}  # a category's running total
        for j, t in enumerate(bars):
            horizontal = t.get("orientation") == "h"
            cat, val = ("y", "x") if horizontal else ("x", "y")
            gap = self.layout.get("bargap")
            band = 1.0 - (gap if isinstance(gap, int | float) else 0.2)  # Plotly's bargap
            width = band / (len(bars) if mode == "group" else 1)
            left = -band / 2 + (j * width if mode == "group" else 0.0)
            unit = (self.w if cat == "x" else self.h) / (self.ranges[cat][1] - self.ranges[cat][0])
            for c, v in zip(t.get(cat) or (), t.get(val) or (), strict=False):
                if not isinstance(v, int | float) or isinstance(v, bool):
                    continue
                start = stacked.get(str(c), 0.0) if _stacked(self.layout) else 0.0
                if _stacked(self.layout):
                    stacked[str(c)] = start + v
                p = self.px(cat, c)
                base = self.px(val, start) if (start > 0 or not self._log(val)) else 0.0
                top = self.px(val, start + v)
                if p is None or top is None or base is None:
                    continue
                a, b = p + left * unit, p + (left + width) * unit
                lo, hi = sorted((base, top))
                out.append((lo, a, hi, b) if horizontal else (a, lo, b, hi))
        return out

    def markers(self) -> list[tuple[int, int, float, float, float]]:
        """(trace, point, x, y, radius) of every marker drawn."""
        out = []
        for i, t in enumerate(self.traces):
            if t.get("type", "scatter") not in ("scatter", "scattergl") or "markers" not in _mode(
                t
            ):
                continue
            size = (t.get("marker") or {}).get("size") or MARKER_PX
            for j, p in enumerate(self.points(t)):
                s = size[j] if isinstance(size, list) else size
                if p is not None and isinstance(s, int | float):
                    out.append((i, j, p[0], p[1], s / 2))
        return out

    # ---- where text goes -----------------------------------------------------------------

    def point_label(
        self, t: dict, j: int, p: tuple[float, float], position: str, text=None
    ) -> Box | None:
        """The box of point ``j``'s label at ``position`` (its own text, or ``text``)."""
        if text is None:
            texts = t.get("text")
            text = _nth(texts, j, "")
        if not _plain(text).strip():
            return None
        font = (t.get("textfont") or {}).get("size") or self.font_px
        w, h = text_size(text, font if _font_ok(font) else self.font_px)
        size = (t.get("marker") or {}).get("size") or MARKER_PX
        r = (size[j] if isinstance(size, list) else size) / 2 if "markers" in _mode(t) else 0
        v, _, hz = (position or "middle center").partition(" ")
        hz = hz or "center"
        x, y = p
        gap = r + 2
        x0 = {"left": x - gap - w, "center": x - w / 2, "right": x + gap}[hz]
        y0 = {"top": y + gap, "middle": y - h / 2, "bottom": y - gap - h}[v]
        return (x0, y0, x0 + w, y0 + h)

    def annotation_box(self, a: dict) -> Box | None:
        xr, yr = a.get("xref") or "x", a.get("yref") or "y"
        x = self.px("x", a.get("x"), xr, in_log=True)
        y = self.px("y", a.get("y"), yr, in_log=True)
        if x is None or y is None:
            return None
        font = (a.get("font") or {}).get("size") or self.font_px
        w, h = text_size(a.get("text"), font if _font_ok(font) else self.font_px)
        w, h = w + 2, h + 2
        if a.get("showarrow", True):
            x, y = (
                x + (a.get("ax") if a.get("ax") is not None else -10),
                y - (a.get("ay") if a.get("ay") is not None else -30),
            )
            xa, ya = "center", "middle"
        else:
            xa, ya = a.get("xanchor") or "auto", a.get("yanchor") or "auto"
            x += a.get("xshift") or 0
            y += a.get("yshift") or 0
        x0 = {"left": x, "right": x - w}.get(xa, x - w / 2)
        y0 = {"bottom": y, "top": y - h}.get(ya, y - h / 2)
        return (x0, y0, x0 + w, y0 + h)

    def labels(self) -> list[tuple[str, Box, tuple]]:
        """(text, box, owner) of every label: owner is ("point", trace, point) or
        ("annotation", index)."""
        out = []
        for i, t in enumerate(self.traces):
            if t.get("type", "scatter") not in ("scatter", "scattergl") or "text" not in _mode(t):
                continue
            pos = t.get("textposition") or "middle center"
            texts = t.get("text")
            for j, p in enumerate(self.points(t)):
                if p is None:
                    continue
                box = self.point_label(t, j, p, _nth(pos, j, "middle center"))
                if box is not None:
                    text = _nth(texts, j, "")
                    out.append((_plain(text), box, ("point", i, j)))
        for k, a in enumerate(self.layout.get("annotations") or ()):
            if a.get("visible") is False or not _plain(a.get("text")).strip():
                continue
            box = self.annotation_box(a)
            if box is not None:
                out.append((_plain(a.get("text")), box, ("annotation", k)))
        return out

    # ---- what a label runs into ----------------------------------------------------------

    def clipped(self, box: Box, owner: tuple) -> bool:
        x0, y0, x1, y1 = box
        if owner[0] == "point":  # a trace's text is clipped at the plot area
            t = self.traces[owner[1]]
            if t.get("cliponaxis") is False:
                return x0 < -self.margin["l"] or x1 > self.w + self.margin["r"]
            return x0 < -2 or x1 > self.w + 2 or y0 < -2 or y1 > self.h + 2
        # an annotation: never left of the plot or under it (the tick labels are there), at
        # most ABOVE_PLOT_PX above it (under the title), within the figure on the right
        return x0 < -2 or x1 > self.w + self.margin["r"] or y0 < -2 or y1 > self.h + ABOVE_PLOT_PX

    def hits(
        self, box: Box, owner: tuple, others: Iterable[Box], segs, marks, bars=()
    ) -> list[str]:
        found = []
        inner = _inner(box)
        if self.clipped(box, owner):
            found.append(CUT_OFF)
        backed = owner[0] == "annotation" and bool(
            ((self.layout.get("annotations") or [{}] * (owner[1] + 1))[owner[1]]).get("bgcolor")
        )  # a line or a bar passes under a label on its own ground; nothing strikes it through
        if not backed and any(_seg_hits_box(s, inner) for s in segs):
            found.append("crossed by a line")
        own = owner[1:] if owner[0] == "point" else None
        # another point's marker anywhere under the label; its own only when the label sits on
        # it (Plotly's default "middle center" draws the text over the point it names)
        if any(
            _circle_hits_box(x, y, r, inner)
            if (i, j) != own
            else inner[0] < x < inner[2] and inner[1] < y < inner[3]
            for i, j, x, y, r in marks
        ):
            found.append("covers a marker")
        if not backed and any(_overlap(inner, b) for b in bars):
            found.append("sits on a bar")
        if any(_overlap(inner, b) for b in others):
            found.append("overlaps another label")
        return found


def _weight(what: str, owner: tuple, final: bool = False) -> float:
    """What a problem costs the placement: a point's label cut off at the edge little (widening
    the axis mends it) until the ``final`` pass, after which no axis widens (then as much as
    anything else, so a label that fits nowhere is left out rather than cut); a line label cut
    off more than one crossed or on a bar (a ground mends those); anything else 1."""
    if what == CUT_OFF:
        return (1.0 if final else 0.3) if owner[0] == "point" else 1.5
    return 1.0


def _mode(t: dict) -> str:
    mode = t.get("mode")
    if mode is None:  # Plotly's default for a scatter: lines+markers under 20 points
        return "lines+markers" if len(t.get("x") or ()) < 20 else "lines"
    return mode


def _inner(box: Box) -> Box:
    """``box`` 2 px in from each side: labels may touch."""
    return (box[0] + 2, box[1] + 2, box[2] - 2, box[3] - 2)


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _circle_hits_box(x, y, r, box: Box) -> bool:
    cx, cy = min(max(x, box[0]), box[2]), min(max(y, box[1]), box[3])
    return (cx - x) ** 2 + (cy - y) ** 2 < r * r


def _seg_hits_box(s: Seg, box: Box) -> bool:
    """Whether the segment crosses the box (Liang-Barsky clipping)."""
    x0, y0, x1, y1 = s
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x0 - box[0]), (dx, box[2] - x0), (-dy, y0 - box[1]), (dy, box[3] - y0)):
        if p == 0:
            if q < 0:
                return False
        else:
            r = q / p
            if p < 0:
                t0 = max(t0, r)
            else:
                t1 = min(t1, r)
            if t0 > t1:
                return False
    return True


def label_problems(traces: Sequence[dict], layout: dict, width: float) -> list[str]:
    """What each label of one chart (Plotly JSON) runs into at a plot ``width`` (px)."""
    if not finite_number(width) or not 1 <= width <= 100_000:
        raise ValueError(
            f"width must be a plot width in px in [1, 100000], got {short_repr(width)}"
        )
    _layout(layout)
    if not isinstance(traces, list | tuple) or not all(isinstance(t, dict) for t in traces):
        raise ValueError(
            f"traces must be a figure's traces as JSON (a list of dicts), got {short_repr(traces, 60)}"
        )
    f = Frame(traces, layout, width)
    if not f.ok:
        return []
    labels = f.labels()
    segs, marks, bars = f.segments(), f.markers(), f.bars()
    found = []
    for k, (text, box, owner) in enumerate(labels):
        others = [b for n, (_, b, _) in enumerate(labels) if n != k]
        for what in f.hits(box, owner, others, segs, marks, bars):
            found.append(f"label {text[:50]!r} {what} (plot {width:.0f} px wide)")
    return found


def wrap_words(text: str, width: int, glue: str = r"(?<!\S)(\S{1,2}) (?=\S)") -> str:
    """``text`` broken at spaces into lines (Plotly's ``<br>``) of at most ``width`` characters
    where a word allows; a space that ``glue`` matches (its group 1 kept) never breaks: by
    default a word of one or two characters ("(×", "=") stays with the next."""
    if isinstance(width, bool) or not isinstance(width, int) or not 1 <= width <= 10_000:
        raise ValueError(
            f"width must be a whole number of characters in [1, 10000], got {short_repr(width)}"
        )
    try:
        glued = re.sub(glue, "\\1\u00a0", str(text))
    except (re.error, TypeError, IndexError) as exc:
        raise ValueError(
            f"glue must be a regular expression with one group, got {short_repr(glue)} ({exc})"
        ) from None
    glued = sub_tags(glued, lambda m: m[0].replace(" ", "\u00a0"), _TAG_OR_EMPTY)  # never in a tag
    lines, line = [], ""
    for w in glued.split(" "):
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    lines.append(line)
    return "<br>".join(lines).replace("\u00a0", " ")


#: Pixels between a reference line and its label beside it (the text sat on the dashes), and
#: between the plot's left edge and a label that starts there (it ran on from the tick label
#: at the same height: "100 GBNVIDIA H100 SXM5 80GB")
LINE_GAP, TICK_GAP = 2, 8

#: A reference line's label, by Plotly's ``annotation_position`` names (axis y: a horizontal
#: line; x: a vertical one), as ``add_hline``/``add_vline`` place it; so do ``charts.hline``/
#: ``vline`` and the search.
LINE_LABEL = {
    ("y", "top left"): dict(
        x=0, xanchor="left", yanchor="bottom", xshift=TICK_GAP, yshift=LINE_GAP
    ),
    ("y", "top right"): dict(x=1, xanchor="right", yanchor="bottom", yshift=LINE_GAP),
    ("y", "bottom left"): dict(
        x=0, xanchor="left", yanchor="top", xshift=TICK_GAP, yshift=-LINE_GAP
    ),
    ("y", "bottom right"): dict(x=1, xanchor="right", yanchor="top", yshift=-LINE_GAP),
    ("y", "top"): dict(x=0.5, xanchor="center", yanchor="bottom", yshift=LINE_GAP),
    ("y", "bottom"): dict(x=0.5, xanchor="center", yanchor="top", yshift=-LINE_GAP),
    ("y", "left"): dict(x=0, xanchor="right", yanchor="middle"),
    ("y", "right"): dict(x=1, xanchor="left", yanchor="middle"),
    ("x", "top left"): dict(y=1, yanchor="top", xanchor="right", xshift=-LINE_GAP),
    ("x", "top right"): dict(y=1, yanchor="top", xanchor="left", xshift=LINE_GAP),
    ("x", "bottom left"): dict(y=0, yanchor="bottom", xanchor="right", xshift=-LINE_GAP),
    ("x", "bottom right"): dict(y=0, yanchor="bottom", xanchor="left", xshift=LINE_GAP),
    ("x", "top"): dict(y=1, yanchor="bottom", xanchor="center"),
    ("x", "bottom"): dict(y=0, yanchor="top", xanchor="center"),
    ("x", "left"): dict(y=0.5, yanchor="middle", xanchor="right", xshift=-LINE_GAP),
    ("x", "right"): dict(y=0.5, yanchor="middle", xanchor="left", xshift=LINE_GAP),
}
#: The positions the search tries, in order (the first clear one wins); never where the tick
#: labels are (left of the plot, under it)
_CORNER_ORDER = {
    "x": ("bottom right", "bottom left", "top right", "top left", "right", "left", "top"),
    "y": ("top left", "top right", "bottom left", "bottom right", "top", "bottom"),
}


def _line_label_options(a: dict) -> list[dict]:
    """Where a reference line's label may go (``_CORNER_ORDER``), on one line and, when long,
    on two; beside a vertical line also in a column of lines of about 8 characters."""
    text = a.get("text") or ""
    flat = _flat(text)
    n = len(_plain(flat))
    axis = "x" if a.get("xref") == "x" else "y"  # the line's own axis: a vertical line's is x
    texts = [text, flat]
    if n > 12:  # a long label also on two lines of about half its length
        texts.append(wrap_words(flat, max(12, n // 2 + 1)))
    if n > 48:  # or three of 24 characters
        texts.append(wrap_words(flat, 24))
    if axis == "x" and n > 24:  # beside a vertical line: a column of about 16 characters
        texts.append(wrap_words(flat, 16))
    if axis == "x" and n > 12:
        texts.append(wrap_words(flat, 8))
    bare = {k: v for k, v in a.items() if k not in ("xshift", "yshift")}  # each position's own gap
    return [
        {**bare, **LINE_LABEL[axis, position], "text": txt}
        for txt in dict.fromkeys(texts)
        for position in _CORNER_ORDER[axis]
    ]


def place_labels(traces: list[dict], layout: dict, widths: Sequence[float] = WIDTHS) -> None:
    """Move each point label and each reference-line label of a figure (its ``traces`` and
    ``layout`` as JSON, changed in place) to the first position with no problem at every width
    of ``widths`` (plot widths, px: ``WIDTHS`` for the desktop figure; ``(PHONE_LABEL_PX,)`` for
    its phone variant, ``charts.finalize``); a label with no such position keeps the one with
    fewest. Reference-line labels go first (highest line first), then the points' labels in
    trace order. The axes get the ranges the placement assumed (the data's extent, padded),
    widened where a point's label would otherwise be cut off at the edge."""
    widths = tuple(float(w) for w in widths)
    if not widths or not all(finite_number(w) and 50 <= w <= MAX_PX for w in widths):
        raise ValueError(f"widths must be plot widths in px in [50, {MAX_PX:,.0f}], got {widths}")
    texty = [i for i, t in enumerate(traces) if "text" in _mode(t)]
    lines = [
        k
        for k, a in enumerate(layout.get("annotations") or ())
        if a.get("showarrow") is False
        and (
            (a.get("xref") == "x" and str(a.get("yref") or "").endswith("domain"))
            or (a.get("yref") == "y" and str(a.get("xref") or "").endswith(("domain", "paper")))
        )
    ]
    if not texty and not lines:
        return
    for attempt in range(3):
        first = Frame(traces, layout, widths[0])
        if not first.ok:
            return
        frames = [first, *(first.at(w) for w in widths[1:])]
        # (a phone draws the figure's phone variant, placed on its own: charts.finalize)
        weights = [_at_width(n, len(widths)) for n in range(len(widths))]
        for axis, (lo, hi) in first.ranges.items():
            if first.cats[axis] is None:  # a category axis keeps Plotly's own
                layout.setdefault(f"{axis}axis", {})["range"] = [lo, hi]
        over = _place_once(traces, layout, frames, weights, texty, lines, last=attempt == 2)
        if not _widen(over) or attempt == 2:
            return
        for axis, (below, above) in over.items():
            if first.cats[axis] is not None:
                continue
            lo, hi = first.ranges[axis]
            span = hi - lo
            layout[f"{axis}axis"]["range"] = [lo - 1.1 * below * span, hi + 1.1 * above * span]


#: The most an axis is widened in one pass (more crowds the points into less of the plot)
WIDEN_MAX = 0.15


def _widening(reach: float, beyond: float, span: float) -> float:
    """How much wider (a fraction, at most ``WIDEN_MAX``) an axis ``span`` px long must be at
    one end for a label ``beyond`` px past its point, ``reach`` px from the other end, to fit:
    the point moves to ``reach * span / (span + widening)``."""
    room = span - 2 - beyond
    if reach + beyond <= span - 2:
        return 0.0
    return min(WIDEN_MAX, reach / room - 1) if room > 0 else WIDEN_MAX


def _struck(frames, drawn, fixed, boxes, slots, choice, s: int) -> bool:
    """Whether label ``s`` at its chosen ``boxes`` is crossed by a line or sits on a bar at
    some width (a ground of its own mends that)."""
    return any(
        what in ("crossed by a line", "sits on a bar")
        for n, (f, (box, owner)) in enumerate(zip(frames, boxes, strict=True))
        for what in f.hits(
            box,
            owner,
            fixed[n] + [slots[q][1][choice[q]][1][n][0] for q in range(len(slots)) if q != s],
            *drawn[n],
        )
    )


#: The most labels the joint search places together (one in trouble and those in its way),
#: and the most partial placements it looks at for them
JOINT_LABELS, JOINT_BUDGET = 8, 20_000


def _at_width(n: int, count: int = len(WIDTHS)) -> float:
    """What a problem at the ``n``-th of ``count`` widths costs: twice at the first (the
    desktop one, or the only one), half on a phone (``PHONE_PLOT_PX``, the width after them)."""
    return 2.0 if n == 0 else 0.5 if n >= count else 1.0


def _least_total(unary, pair, total: float, picks: list[int]) -> list[int]:
    """Branch and bound: the places (one per label) with the least ``sum(unary[k][place]) +
    sum(pair[a, b][place_a][place_b])`` for ``a < b``, if less than ``total``, what ``picks``
    cost (else ``picks``), looking at no more than ``JOINT_BUDGET`` partial placements."""
    floor = [sum(min(u) for u in unary[k:]) for k in range(len(unary) + 1)]
    orders = [sorted(range(len(u)), key=u.__getitem__) for u in unary]
    best, pick, seen = [total, list(picks)], [0] * len(unary), [0]

    def grow(k: int, so_far: float) -> None:
        seen[0] += 1
        if k == len(unary):
            best[:] = [so_far, pick[:]]
            return
        for c in orders[k]:
            if seen[0] > JOINT_BUDGET:
                return
            more = unary[k][c] + sum(pair[a, k][pick[a]][c] for a in range(k))
            if so_far + more + floor[k + 1] < best[0]:
                pick[k] = c
                grow(k + 1, so_far + more)

    grow(0, 0.0)
    return best[1]


def _search_jointly(slots, choice: list[int], costs: list[float], cost, weights) -> None:
    """Each label left with a problem is placed again jointly with every label in its way
    (``_least_total``: its own problems among the labels outside the group, plus each overlap
    inside it), which one label moving alone cannot do when each of its places runs into
    another's. A move that raises the total is undone. Updates ``choice`` and ``costs``."""

    def boxes(q: int, c: int | None = None) -> list:
        return slots[q][1][choice[q] if c is None else c][1]

    def others(skip) -> list[list[Box]]:
        return [
            [boxes(r)[n][0] for r in range(len(slots)) if r not in skip] for n in range(n_frames)
        ]

    n_frames = len(weights)
    for s in range(len(slots)):
        if not costs[s]:
            continue
        group = [s] + [
            q
            for q in range(len(slots))
            if q != s
            and any(
                _overlap(_inner(boxes(q)[n][0]), c[1][n][0])
                for c in slots[s][1]
                for n in range(n_frames)
            )
        ]
        if len(group) > JOINT_LABELS:
            continue
        rest = others(group)
        unary = [[cost(c[1], rest) for c in slots[q][1]] for q in group]
        pair = {
            (a, b): [
                [
                    2
                    * sum(
                        weights[n]
                        for n in range(n_frames)
                        if _overlap(_inner(ca[1][n][0]), cb[1][n][0])
                    )
                    for cb in slots[group[b]][1]
                ]
                for ca in slots[group[a]][1]
            ]
            for b in range(len(group))
            for a in range(b)
        }
        now = [choice[q] for q in group]
        total = sum(unary[k][now[k]] for k in range(len(group)))
        total += sum(m[now[a]][now[b]] for (a, b), m in pair.items())
        picks = _least_total(unary, pair, total, now)
        if picks == now:
            continue
        before = list(costs)
        for q, c in zip(group, picks, strict=True):
            choice[q] = c
        for q in range(len(slots)):  # a move may have cleared (or crowded) a third label
            costs[q] = cost(boxes(q), others((q,)))
        if sum(costs) >= sum(before):  # it crowded a label outside the group: undone
            for q, c in zip(group, now, strict=True):
                choice[q] = c
            costs[:] = before


def _overshoot(slots, choice, costs, frames, traces) -> dict[str, list[float]]:
    """Per axis, how much wider (``_widening``) its low and high ends must be for the point
    labels now cut off at an edge to fit."""
    over = {"x": [0.0, 0.0], "y": [0.0, 0.0]}
    for s, ((kind, *key), cands) in enumerate(slots):
        if kind != "point" or not costs[s]:
            continue
        for f, (box, owner) in zip(frames, cands[choice[s]][1], strict=True):
            if box is _HIDDEN or not f.clipped(box, owner):
                continue
            x0, y0, x1, y1 = box
            px, py = f.points(traces[key[0]])[key[1]]
            for axis, lo_px, hi_px, at, span in (("x", x0, x1, px, f.w), ("y", y0, y1, py, f.h)):
                over[axis][0] = max(over[axis][0], _widening(span - at, at - lo_px, span))
                over[axis][1] = max(over[axis][1], _widening(at, hi_px - at, span))
    return over


def _widen(over: dict[str, list[float]]) -> bool:
    return any(v > 0 for sides in over.values() for v in sides)


def _place_once(
    traces, layout, frames, weights, texty, lines, last: bool
) -> dict[str, list[float]]:
    """One placement pass: each label takes, in turn, its first position with no problem given
    the labels placed before it (else its least bad); then, twice, each label is placed again
    given all the others; then, in the ``last`` pass or one that widens no axis, labels still
    in trouble are placed jointly with those in their way. Returns ``_overshoot``: how much
    wider each axis must be for the labels still cut off."""
    drawn = [(f.segments(), f.markers(), f.bars()) for f in frames]
    # labels not moved here (free annotations) are obstacles
    fixed: list[list[Box]] = [
        [b for _, b, o in f.labels() if o[0] == "annotation" and o[1] not in lines] for f in frames
    ]
    slots = []  # (owner, [(value, [(box, owner) per frame]), ...]): a label and its places

    def height(k):
        a = layout["annotations"][k]
        return -(a.get("y") or 0) if a.get("yref") == "y" else 0

    for k in sorted(lines, key=height):
        a = layout["annotations"][k]
        options = [a, *_line_label_options(a)]
        cands = [(t, [(f.annotation_box(t), ("annotation", k)) for f in frames]) for t in options]
        slots.append((("annotation", k), cands))
    for i in texty:
        t = traces[i]
        pos = t.get("textposition") or "middle center"
        texts = t.get("text")
        # (a point's label is placed at the figure's own widths, not at the phone's: the
        # phone variant places them again)
        n_points = sum(1 for w in weights if w >= 1)
        points = [f.points(t) for f in frames[:n_points]]
        for j in range(len(points[0])):
            given = _nth(pos, j, "middle center")
            text = _nth(texts, j, "")
            if points[0][j] is None or not _plain(text).strip():
                continue
            flat = _flat(text)  # a long label also on lines of 18 characters, or of 10
            texts_j = [text]
            if len(_plain(flat)) > 12:
                texts_j = list(dict.fromkeys([text, wrap_words(flat, 18), wrap_words(flat, 10)]))
            cands = [
                (
                    (q, txt),
                    [
                        (
                            f.point_label(t, j, points[n][j], q, txt)
                            if n < n_points
                            else _HIDDEN,  # (the phone variant has its own)
                            ("point", i, j),
                        )
                        for n, f in enumerate(frames)
                    ],
                )
                for txt in texts_j
                for q in (given, *(q for q in POINT_POSITIONS if q != given))
            ]
            # last resort: no text by the point (its legend entry and hover still name it)
            cands.append(((given, ""), [(_HIDDEN, ("point", i, j)) for _ in frames]))
            slots.append((("point", i, j), cands))
    slots = [
        (key, [c for c in cands if all(b is not None for b, _ in c[1])]) for key, cands in slots
    ]
    slots = [(key, cands) for key, cands in slots if cands]

    # per place (by identity) and width: what all but the labels being placed cost it
    still: dict[int, list[tuple[float, bool]]] = {}

    def cost(boxes, others: list[list[Box]]) -> float:
        # Frame.hits's problems weighed by _weight and _at_width; a hidden label HIDDEN_COST
        if boxes[0][0] is _HIDDEN:
            return HIDDEN_COST
        parts = still.get(id(boxes))
        if parts is None:
            parts = still[id(boxes)] = [
                (0.0, False)  # not drawn at this width (a point's label on a phone)
                if box is _HIDDEN
                else (
                    sum(_weight(what, owner, last) for what in f.hits(box, owner, (), *drawn[n])),
                    any(_overlap(_inner(box), b) for b in fixed[n]),
                )
                for n, (f, (box, owner)) in enumerate(zip(frames, boxes, strict=True))
            ]
        total = 0.0
        for n, ((own, on_fixed), (box, owner)) in enumerate(zip(parts, boxes, strict=True)):
            if on_fixed or any(_overlap(_inner(box), b) for b in others[n]):
                own += _weight("overlaps another label", owner)
            total += own * weights[n]
        return total

    def best_of(cands, others) -> tuple[int, int]:
        best = (None, 0)
        for c, (_, boxes) in enumerate(cands):
            n = cost(boxes, others)
            if best[0] is None or n < best[0]:
                best = (n, c)
            if n == 0:
                break
        return best

    choice: list[int] = []
    for s, (_, cands) in enumerate(slots):  # greedy, in order
        others = [[slots[q][1][choice[q]][1][n][0] for q in range(s)] for n in range(len(frames))]
        choice.append(best_of(cands, others)[1])
    costs = [0] * len(slots)
    for _round in range(3):  # each label again, given all the others
        changed = False
        for s, (_, cands) in enumerate(slots):
            others = [
                [slots[q][1][choice[q]][1][n][0] for q in range(len(slots)) if q != s]
                for n in range(len(frames))
            ]
            n, c = best_of(cands, others)
            costs[s] = n
            if c != choice[s] and n < cost(cands[choice[s]][1], others):
                choice[s], changed = c, True
        if not changed:
            break
    over = _overshoot(slots, choice, costs, frames, traces)
    if last or not _widen(over):  # (a pass that widens an axis is followed by another)
        _search_jointly(slots, choice, costs, cost, weights)
        over = _overshoot(slots, choice, costs, frames, traces)

    positions: dict[int, dict[int, str]] = {}
    for s, ((kind, *key), cands) in enumerate(slots):
        value, boxes = cands[choice[s]]
        if kind == "annotation":
            ann = layout["annotations"][key[0]]
            if value is not ann:
                ann.update(
                    {k: value[k] for k in ("text", "x", "y", "xanchor", "yanchor") if k in value}
                )
                for k in ("xshift", "yshift"):  # the gap of the position chosen, or none
                    if value.get(k) is not None:
                        ann[k] = value[k]
                    else:
                        ann.pop(k, None)
            if "<br>" in str(value.get("text")) and value.get("xanchor") in ("left", "right"):
                ann["align"] = value["xanchor"]  # lines flush with it
            if costs[s] and _struck(frames, drawn, fixed, boxes, slots, choice, s):
                ann.update(bgcolor=LABEL_GROUND, borderpad=1)  # crossed wherever it goes
            continue
        positions.setdefault(key[0], {})[key[1]] = value  # (position, text)
    for i, chosen in positions.items():
        t = traces[i]
        pos, text = t.get("textposition") or "middle center", t.get("text")
        n = len(t.get("x") or ())
        given = [_nth(pos, j, "middle center") for j in range(n)]
        new = [chosen[j][0] if j in chosen else p for j, p in enumerate(given)]
        if new != given:
            t["textposition"] = new[0] if len(set(new)) == 1 else new
        if any(chosen[j][1] is not None and chosen[j][1] != _nth(text, j, "") for j in chosen):
            texts = [_nth(text, j, "") for j in range(n)]
            if any(chosen[j][1] == "" for j in chosen) and t.get("hovertext") is None:
                t["hovertext"] = texts
            t["text"] = [chosen[j][1] if j in chosen else x for j, x in enumerate(texts)]
    return over
