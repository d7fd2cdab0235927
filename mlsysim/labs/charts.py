"""Chart helpers: device limits drawn from the registry, the roofline, and ``finalize``: the
chart rules every part's figure passes through before display (``components.show``):

- log axes are labelled at decades only, as plain numbers (0.001 ... 100,000) or powers of ten;
- byte axes (a title saying bytes or "(B)") in decimal byte units: KB, MB, GB, TB (as the cards);
- k/M/B suffixes only where the axis title says "count"; powers of ten elsewhere;
- reference lines (``add_hline``/``add_vline`` shapes, constant dashed traces) dashed, in a
  neutral grey, never a data series' colour;
- line labels placed so they neither overlap each other nor sit on another line;
- registry keys (``JetsonOrinNX``) shown as the device's human name (``Device.name``);
- a long title wrapped, the legend below the plot (never under the title), the figure tall
  enough that on a phone, where each legend entry takes its own row, the plot keeps at least
  ``PHONE_MIN_PLOT_PX`` of height;
- ``text_alternative`` gives a chart's screen-reader text (title, axes, key numbers, summary).
"""

from __future__ import annotations

import array
import base64
import copy
import math
import numbers
import re
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .. import _check, catalogue
from .._check import _short, is_finite
from .placement import (
    FONT_PX,
    LINE_LABEL,
    PHONE_LABEL_PX,
    PHONE_PLOT_PX,
    WIDTHS,
    Frame,
    _flat,
    axis_values,
    finite_number,
    font_px,
    margins,
    place_labels,
    plot_height,
    sub_tags,
    text_size,
    wrap_words,
)
from .style import SERIES, apply_plotly_theme
from .vocab import superscript

if TYPE_CHECKING:
    from ..hardware import Device

#: reference lines (device limits, ridge, targets): neutral, dashed, never a data colour
REFERENCE_COLOR = "#64748b"
REFERENCE_DASHES = ("dash", "dot", "dashdot", "longdash")

__all__ = [
    "memory_lines",
    "hline",
    "vline",
    "roofline",
    "figure",
    "place_line_labels",
    "phone_variant",
    "title_lines_needed",
    "finalize",
    "text_alternative",
    "device_label",
    "REFERENCE_COLOR",
    "is_byte_title",
    "is_count_title",
    "time_unit",
]


def figure(title: str, x_title: str, y_title: str, *, log_x=False, log_y=False, height=380):
    """An empty themed figure."""
    import plotly.graph_objects as go

    for name, v in (("title", title), ("x_title", x_title), ("y_title", y_title)):
        _check.text(name, v)

    from .style import _template

    _template()
    fig = go.Figure()
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, height=height)
    if log_x:
        fig.update_xaxes(type="log")
    if log_y:
        fig.update_yaxes(type="log")
    return apply_plotly_theme(fig)


def hline(fig, y: float, text: str = "", *, dash: str = "dash", position: str = "top right"):
    """A horizontal reference line at ``y`` across the plot, labelled ``text`` at ``position``
    ("top left", "top right", "bottom left", "bottom right", "top", "bottom", "left", "right":
    ``placement.LINE_LABEL``). The same shape and label as
    Plotly's ``fig.add_hline(y=..., annotation_text=..., annotation_position=...)``, added in
    one step: Plotly's own takes ~5 ms a line in CPython, many times that in the browser. Drawn
    on the first subplot (axes x and y); Plotly's own also repeats it on every other one."""
    return _reference_line(fig, "y", y, text, dash, position)


def vline(fig, x: float, text: str = "", *, dash: str = "dash", position: str = "top right"):
    """A vertical reference line at ``x`` up the plot (see ``hline``)."""
    return _reference_line(fig, "x", x, text, dash, position)


def out_of_memory(fig, xs, ys, name: str = "does not fit in memory"):
    """Marks the settings that do not fit (one ✕ per point at ``xs``, ``ys``), in one style in
    every chart: a run that cannot happen is drawn where its curve would be, never as a time."""
    import plotly.graph_objects as go

    _figure(fig)
    xs, ys = _coordinates(xs, "xs"), _coordinates(ys, "ys")
    if not isinstance(name, str):
        raise ValueError(f"name must be text (the legend entry), got {_short(name)}")
    if len(xs) != len(ys):
        raise ValueError(f"xs and ys must be the same length, got {len(xs)} and {len(ys)}")
    if xs:
        fig.add_trace(
            go.Scatter(x=xs, y=ys, name=name, mode="markers", marker=dict(symbol="x", size=10))
        )
    return fig


def _coordinates(values, name: str) -> list:
    """``values`` as a list of finite numbers (or category names), else a ValueError naming
    ``name``: a list or tuple (an endless iterator would hang), of at most 100,000 points."""
    if not isinstance(values, list | tuple | range) or len(values) > 100_000:
        raise ValueError(
            f"{name} must be a list of at most 100,000 coordinates, got {_short(values)}"
        )
    for i, v in enumerate(values):
        if not (isinstance(v, str) or (isinstance(v, numbers.Real) and is_finite(v))):
            raise ValueError(
                f"{name}[{i}] must be a finite number or a category name, got {_short(v)}"
            )
    return list(values)


def _figure(fig, name: str = "fig"):
    """``fig`` if it is a Plotly figure (``charts.figure``), else a ValueError naming it."""
    if not (hasattr(fig, "add_trace") and hasattr(fig, "layout") and hasattr(fig, "data")):
        raise ValueError(f"{name} must be a Plotly figure (charts.figure), got {_short(fig)}")
    return fig


def _device(dev, name: str = "device"):
    """A registry device from a ``Device`` or its registry key ("H100"); else a ValueError."""
    if isinstance(dev, str):
        from ..hardware import Hardware

        return Hardware.get(dev)  # a ValueError listing the keys when it is not one
    if not all(hasattr(dev, a) for a in ("name", "memory", "compute")):
        raise ValueError(f"{name} must be a Device or a registry key, got {_short(dev)}")
    return dev


def _reference_line(fig, axis: str, value: float, text: str, dash: str, position: str):
    _figure(fig)
    try:
        where = LINE_LABEL[axis, position] if isinstance(position, str) else None
    except KeyError:
        where = None
    if where is None:
        raise ValueError(
            f"position={_short(position)}: expected one of {sorted({p for _, p in LINE_LABEL})}"
        )
    if not isinstance(value, numbers.Real) or not is_finite(value):
        raise ValueError(f"{axis}={_short(value)}: a reference line needs a finite real number")
    value = value.item() if hasattr(value, "item") else value  # a numpy scalar, as Plotly writes it
    other = "y" if axis == "x" else "x"
    line = {"type": "line", f"{other}ref": f"{other} domain", f"{other}0": 0, f"{other}1": 1}
    line.update({f"{axis}ref": axis, f"{axis}0": value, f"{axis}1": value})
    line["line"] = {"dash": dash, "color": REFERENCE_COLOR}
    fig.layout.shapes = (*fig.layout.shapes, line)  # (``update_layout`` is ten times slower)
    if text:
        label = {"showarrow": False, "text": text, f"{axis}ref": axis, axis: value}
        label.update({f"{other}ref": f"{other} domain", **where})
        fig.layout.annotations = (*fig.layout.annotations, label)
    return fig


#: Units ``memory_lines`` draws capacities in.
_MEMORY_UNITS = ("B", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB")


def memory_lines(fig, devices: Iterable[Device], unit: str = "GB", scale: float = 1.0):
    """Dashed horizontal lines at each device's memory capacity (in ``unit``, times ``scale``,
    e.g. ``scale=1/4`` bytes-per-param to draw a parameter budget)."""
    _figure(fig)
    _check.real("scale", scale, 0.0, 1e30, lo_open=True)
    if not isinstance(unit, str) or unit not in _MEMORY_UNITS:
        raise ValueError(f"unit={_short(unit)} is not valid; allowed: {', '.join(_MEMORY_UNITS)}")
    if isinstance(devices, str) or not isinstance(devices, list | tuple):
        raise ValueError(f"devices must be a list of devices or device keys, got {_short(devices)}")
    for i, dev in enumerate(devices):
        dev = _device(dev, f"devices[{i}]")
        cap = dev.memory.capacity.m_as(unit) * scale
        name = device_label(dev)  # as every chart and card names it ("NVIDIA A100 SXM 40GB")
        hline(
            fig,
            cap,
            name if re.search(r"\d\s?[kKMGT]?i?B$", name) else f"{name} {dev.memory.capacity:~P}",
            dash=REFERENCE_DASHES[i % len(REFERENCE_DASHES)],
            position="top left",
        )
    return fig


def roofline(
    device: Device,
    precision: str = "fp16",
    efficiency: float = 1.0,
    points: Sequence[tuple[str, float, float]] = (),
    x_range: tuple[float, float] = (0.05, 5000.0),
    title: str | None = None,
):
    """Log-log roofline of ``device`` at ``precision``: the bandwidth slope, the (dense) compute
    roof scaled by ``efficiency``, the ridge point, and ``points`` as (label, FLOP/B, FLOP/s).
    An integer ``precision`` is labelled in operations (OP/byte, TOP/s), as vendors quote it."""
    import plotly.graph_objects as go

    from .vocab import LABELS, op_word

    device = _device(device)
    eta = _check.real("efficiency", efficiency, _check.EFFICIENCY_MIN, 1.0)
    if (
        not isinstance(x_range, list | tuple)
        or len(x_range) != 2
        or not all(isinstance(v, numbers.Real) and is_finite(v) and v > 0 for v in x_range)
        or not x_range[0] < x_range[1]
    ):
        raise ValueError(
            "x_range must be (low, high): two finite arithmetic intensities (FLOP/B) with "
            f"0 < low < high, got {_short(x_range)}"
        )
    if not isinstance(points, list | tuple):
        raise ValueError(
            f"points must be a list of (label, FLOP/B, FLOP/s) tuples, got {_short(points)}"
        )
    for i, point in enumerate(points):
        if not isinstance(point, list | tuple) or len(point) != 3:
            raise ValueError(
                f"points[{i}] must be a (label, FLOP/B, FLOP/s) tuple, got {_short(point)}"
            )
        if not isinstance(point[0], str):
            raise ValueError(f"points[{i}] label must be text, got {_short(point[0])}")
        _check.real(f"points[{i}] intensity (FLOP/B)", point[1], 0.0)
        _check.real(f"points[{i}] rate (FLOP/s)", point[2], 0.0)
    # where the roof bends: the sustained rate / bandwidth (a sustained-basis device is never derated)
    ridge = device.sustained_ridge_point(precision, efficiency).m_as("FLOP/B")
    named = (
        LABELS["ridge_peak"]
        if efficiency == 1 or device.compute.is_sustained
        else f"{LABELS['ridge_sustained']}, η = {eta:g}"
    )
    lo, hi = x_range
    xs = [lo, ridge, hi] if lo < ridge < hi else [lo, hi]
    ys = [device.attainable_flops(x, precision, efficiency) / 1e12 for x in xs]
    op = op_word(precision)
    fig = figure(
        title or f"Roofline: {device_label(device)} ({precision}, dense)",
        f"Arithmetic intensity ({op}/byte)",
        f"Attainable T{op}/s",
        log_x=True,
        log_y=True,
        height=440 if points else 380,  # room for the points' labels beside the roof
    )
    fig.add_trace(
        go.Scatter(x=xs, y=ys, mode="lines", name="roofline", line=dict(color=SERIES[6], width=3))
    )
    vline(
        fig,
        ridge,
        # three figures below 100 (12.5, as the cards print it, not 13)
        f"{named}: {ridge:,.0f} {op}/B" if ridge >= 100 else f"{named}: {ridge:.3g} {op}/B",
        dash="dot",
        position="bottom right",
    )
    for i, (label, intensity, flops_s) in enumerate(points):
        fig.add_trace(
            go.Scatter(
                x=[intensity],
                y=[flops_s / 1e12],
                mode="markers+text",
                name=label,
                text=[label],
                textposition="top center",
                marker=dict(size=12, color=SERIES[i % 6]),
            )
        )
    return fig


#: Time units for an axis, largest first (as ``components.fmt_time`` names them)
_TIME_UNITS = ((1.0, 1.0, "s"), (1e-3, 1e3, "ms"), (1e-6, 1e6, "µs"), (1e-9, 1e9, "ns"))


def time_unit(seconds: Iterable[float]) -> tuple[float, str]:
    """The factor and unit a time axis is drawn in: the largest unit in which the largest of
    ``seconds`` is at least 1, as the cards print the same times (45.19 s on the axis as on the
    card, not 45,190 ms). ``fig`` values are ``t * factor``; the axis title says the unit."""
    if isinstance(seconds, str | bytes) or not isinstance(seconds, Iterable):
        raise ValueError(f"seconds must be a sequence of times in s, got {_short(seconds)}")
    top = max((_check.real("seconds", t, 0.0, 1e30) for t in seconds), default=0.0)
    _, factor, unit = next((u for u in _TIME_UNITS if top >= u[0]), _TIME_UNITS[-1])
    return factor, unit


def device_label(dev: Device) -> str:
    """The registry's human name without its parenthetical detail ("Apple iPhone 15 Pro")."""
    dev = _device(dev, "dev")
    return catalogue.short(dev.name)


def _key_names() -> dict[str, str]:
    """Registry keys that are not readable words of their own name -> the human label (from the
    plain catalogue the registry is built from: no device needs building)."""
    return {
        key: catalogue.label(key)
        for key, entry in catalogue.CATALOGUE.items()
        if key.lower() not in entry.name.lower()
    }


_KEYS: dict[str, str] | None = None
#: "40GB 40 GB" -> "40 GB" (a number starts after a non-digit: tried at every digit of a long
#: run of digits, the pattern took quadratic time)
_GB_TWICE = re.compile(r"(?<!\d)(\d+(?:\.\d+)?)\s?GB(:?)\s+\1\s?GB")


def humanize(text):
    """Replace registry keys (``JetsonOrinNX``) in ``text`` by the device's human name."""
    global _KEYS
    if not isinstance(text, str) or not text:
        return text
    if _KEYS is None:
        _KEYS = _key_names()
    for key, name in _KEYS.items():
        if key in text:
            text = re.sub(rf"(?<![\w]){re.escape(key)}(?![\w])", name, text)
    return _GB_TWICE.sub(r"\1 GB", text)


_BYTE_TITLE = re.compile(r"\bbytes?\b|\(B\)|\[B\]|\bin B\b", re.I)
_COUNT_TITLE = re.compile(r"\bcount", re.I)


def is_byte_title(title: str) -> bool:
    """An axis whose values are raw bytes (not FLOP/byte, not a title already in kB/MB/GB)."""
    t = _title(title)
    if "/" in t or re.search(r"\bper\s+byte|\bFLOP", t, re.I):  # an intensity, not a size
        return False
    if re.search(r"\bor\b", t, re.I):  # "MACs or bytes": two quantities share it, no unit
        return False
    return bool(_BYTE_TITLE.search(t)) and title_byte_unit(t) is None


#: a byte unit the axis title names for its values: "(GB)", "(GB, log scale)", "in MiB"
_TITLE_UNIT = re.compile(r"(?:\(|\bin\s)\s*((?:k|K|M|G|T|P)i?B)\b")


def title_byte_unit(title: str) -> str | None:
    """The byte unit an axis title gives its values in ("Table bytes (GB, log scale)" -> "GB"),
    or None: such an axis is labelled in that unit, never rescaled to another."""
    m = _TITLE_UNIT.search(_title(title))
    return m.group(1) if m else None


def is_count_title(title: str) -> bool:
    return bool(_COUNT_TITLE.search(_title(title)))


def _title(title) -> str:
    if title is None:
        return ""
    if not isinstance(title, str):
        raise ValueError(f"title must be text (an axis title), got {_short(title)}")
    return title


#: Byte ticks in the units the cards use (``components.fmt_bytes``: 1 KB = 1,000 B)
_DECIMAL_BYTE_UNITS = ((12, "TB"), (9, "GB"), (6, "MB"), (3, "KB"), (0, "B"))


def _decade_text(k: int, kind: str, plain: bool = True) -> str:
    """A decade's label; ``plain`` numbers (0.001 ... 100,000) or, for an axis that goes
    beyond them, powers of ten on every tick of that axis (never a mix)."""
    v = 10.0**k
    if kind == "bytes":
        for exp, unit in _DECIMAL_BYTE_UNITS:
            if k >= exp:
                return f"{10 ** (k - exp):,} {unit}"
        return f"10{superscript(k)} B"
    if kind == "count" and k >= 3:
        for exp, unit in ((9, "B"), (6, "M"), (3, "k")):
            if k >= exp and k - exp <= 2:
                return f"{10 ** (k - exp)}{unit}"
    if plain:
        return f"{v:,.{max(0, -k)}f}"
    return f"10{superscript(k)}"


#: The largest decade a log axis is labelled at (floats reach 1.8e308).
_MAX_DECADE = 300


def _nice_step(span: float, target: int = 5) -> float:
    raw = span / max(target, 1)
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def _text(obj) -> str | None:
    """The text of a title in a figure's JSON (``{"text": ...}``, or a bare string)."""
    return obj.get("text") if isinstance(obj, dict) else obj


def _axis_kind(title: str) -> str:
    if is_byte_title(title):
        return "bytes"
    if is_count_title(title):
        return "count"
    return "plain"


def _pin_ranges(data: list[dict], layout: dict) -> None:
    """Give each numeric axis still without one the range the label placement assumes (the
    data's extent, 5 % each side), as ``place_labels`` already does on a chart with labels.
    marimo redraws a chart with ``Plotly.react`` and, when the new figure's axis differs from
    the last one's, hands Plotly an axis without a range, which Plotly then leaves at its empty
    default, -1..4: 6.3 part D drew 0.9 ms bars on a -1..4 axis after a switch from a device
    whose bars reached 4,000 ms. A range given is drawn as given. Category axes keep Plotly's."""
    frame = Frame(data, layout, WIDTHS[0])
    for axis, rng in frame.ranges.items():
        ax = layout.setdefault(f"{axis}axis", {})
        if rng is None or frame.cats[axis] is not None or ax.get("range") is not None:
            continue
        if all(map(math.isfinite, rng)):
            ax["range"] = [float(rng[0]), float(rng[1])]


#: Where the first tick of each axis sits, as a fraction of its axis from the lower end, below
#: which the two labels meet at the plot's lower-left corner (x: half a label's width on a phone
#: chart; y: half a label's height and its standoff on a short chart).
CORNER_X, CORNER_Y = 0.04, 0.07


def _first_tick_at(ax: dict) -> float | None:
    """The first tick of an axis with explicit ticks and range, as a fraction from its lower end."""
    vals, rng = ax.get("tickvals"), ax.get("range")
    if not vals or not isinstance(rng, list | tuple) or len(rng) != 2:
        return None
    log = ax.get("type") == "log"
    pos = [math.log10(v) if log else v for v in vals if finite_number(v) and (v > 0 or not log)]
    lo, hi = (float(v) for v in rng)
    if not pos or not hi > lo:
        return None
    return (min(pos) - lo) / (hi - lo)


def _clear_corner(layout: dict) -> None:
    """Start the y axis a little lower when its first tick and the x axis's both sit at the
    plot's lower-left corner, where their labels would touch (6.6 part A at S = 8,192 drew
    "10⁴" on the x axis's "100")."""
    xa, ya = layout.get("xaxis") or {}, layout.get("yaxis") or {}
    fx, fy = _first_tick_at(xa), _first_tick_at(ya)
    if fx is None or fy is None or fx >= CORNER_X or fy >= CORNER_Y:
        return
    lo, hi = (float(v) for v in ya["range"])
    first = lo + fy * (hi - lo)
    ya["range"] = [(first - CORNER_Y * hi) / (1 - CORNER_Y), hi]  # first tick at CORNER_Y


def _format_axis(data: list[dict], layout: dict, name: str) -> None:
    ax = layout.setdefault(name, {})
    axis = name[0]
    title = _text(ax.get("title")) or ""
    kind = _axis_kind(title)
    if kind != "count":
        ax["exponentformat"] = "power"  # never k/M/B on a quantity that is not a count
    if ax.get("tickvals") is not None or ax.get("type") == "category":
        return
    vals = axis_values(data, layout, axis, bar_positions=False)
    if ax.get("type") == "log":
        pos = [v for v in vals if v > 0]
        given = ax.get("range")
        if isinstance(given, list | tuple) and len(given) == 2 and all(map(finite_number, given)):
            # a float spans decades -308..308: a range past them is clamped (it would list
            # a billion decades, or overflow 10.0**k)
            lo_l, hi_l = (min(max(float(v), -_MAX_DECADE), _MAX_DECADE) for v in sorted(given))
        elif pos:
            lo_l, hi_l = math.log10(min(pos)), math.log10(max(pos))
            pad = max(0.08, 0.04 * (hi_l - lo_l))
            lo_l, hi_l = lo_l - pad, hi_l + pad
        else:
            return
        ks = list(range(math.ceil(lo_l - 1e-9), math.floor(hi_l + 1e-9) + 1))
        if len(ks) < 2:  # fewer than two decades in view: widen to the nearer decade first
            below, above = lo_l - math.floor(lo_l), math.ceil(hi_l) - hi_l  # (6.10 B's 128-2,048
            if below <= above:  # tokens ran to 10,000, 40 % of the plot empty)
                lo_l = math.floor(lo_l)
            else:
                hi_l = math.ceil(hi_l)
            ks = list(range(math.ceil(lo_l - 1e-9), math.floor(hi_l + 1e-9) + 1))
        if len(ks) < 2:  # still one: both sides
            lo_l, hi_l = min(lo_l, math.floor(lo_l)), max(hi_l, math.ceil(hi_l))
            ks = list(range(math.ceil(lo_l - 1e-9), math.floor(hi_l + 1e-9) + 1))
        step = max(1, math.ceil(len(ks) / 8))
        ks = [k for k in ks if k % step == 0] or ks[:1]
        ax["range"] = [lo_l, hi_l]
        ax["tickvals"] = [10.0**k for k in ks]
        plain = all(-3 <= k <= 5 for k in ks)
        unit = title_byte_unit(title)
        ax["ticktext"] = [_decade_text(k, kind, plain) + (f" {unit}" if unit else "") for k in ks]
        ax["minor"] = {"showgrid": False, "ticks": ""}
        return
    if (
        kind != "bytes"
        and vals
        and ax.get("dtick") is None
        and all(float(v).is_integer() for v in vals)
        and 0 < max(vals) - min(vals) <= 8
    ):
        ax["dtick"] = 1  # whole columns, layers, GPUs: no tick at 1.5 between them
    if kind == "plain" and vals and ax.get("tickformat") is None:
        # thousands as plain numbers ("2,000"), never "0.2×10⁴"; powers of ten from a million
        if 1e3 <= max(abs(v) for v in vals) < 1e6:
            ax["tickformat"] = ","
        return
    if kind == "bytes" and vals:
        hi = max(abs(v) for v in vals) or 1.0
        lo = min(0.0, min(vals))
        if not math.isfinite((hi - lo) * 1.05):  # beyond a float's range: ticks left to Plotly
            return
        exp, unit = next((e, u) for e, u in _DECIMAL_BYTE_UNITS if hi >= 10**e or e == 0)
        scale = 10.0**exp
        step = _nice_step((hi - lo) / scale * 1.05) * scale
        n0, n1 = math.floor(lo / step), math.ceil(hi * 1.05 / step)
        ticks = [i * step for i in range(n0, n1 + 1)]
        ax["tickvals"] = ticks
        ax["ticktext"] = [f"{v / scale:,.{_decimals(step / scale)}f} {unit}" for v in ticks]


#: Width of one character of an axis title (Plotly draws it ~15 px when the font is 13 px)
AXIS_TITLE_CHAR_PX = 8.7


def y_title_room(layout) -> int:
    """How many characters of a y-axis title fit along the plot's height (``layout``: a
    figure's layout or its JSON)."""
    plot = plot_height(layout if isinstance(layout, dict) else layout.to_plotly_json())
    return max(16, int((plot - 10) / AXIS_TITLE_CHAR_PX))


def _fit_axis_title(layout: dict) -> None:
    """A y-axis title longer than the plot is tall runs into the chart's title: wrap it."""
    yaxis = layout.get("yaxis") or {}
    title = _text(yaxis.get("title"))
    room = y_title_room(layout)
    if not title or "<br>" in title or len(title) <= room:
        return
    half = math.ceil(len(title) / 2) + 4  # two lines, with slack for where the words break
    if half > room:  # not even two lines fit: make the figure that much taller
        layout["height"] = (layout.get("height") or 450) + math.ceil(
            (half - room) * AXIS_TITLE_CHAR_PX
        )
    yaxis["title"] = {**yaxis["title"], "text": wrap_words(title, max(half, room), r"(\d) (?=\S)")}


def _fit_phone_y_title(layout: dict) -> None:
    """The y-axis title on a phone's shorter plot (its title and legend take more lines): each of
    its lines no longer than the plot is tall, or it runs into the chart's title."""
    yaxis = layout.get("yaxis") or {}
    title = _text(yaxis.get("title"))
    if not title:
        return
    room = y_title_room(layout)
    if max(len(line) for line in title.split("<br>")) <= room:
        return
    yaxis["title"] = {**yaxis["title"], "text": wrap_words(_flat(title), room, r"(\d) (?=\S)")}


def _decimals(step: float) -> int:
    for d in range(0, 4):
        if abs(round(step, d) - step) < 1e-9 * max(1.0, step):
            return d
    return 3


def _is_reference_trace(t: dict) -> bool:
    if t.get("type", "scatter") != "scatter" or "lines" not in (t.get("mode") or "lines"):
        return False
    if (t.get("line") or {}).get("dash") in (None, "solid"):
        return False
    xs, ys = list(t.get("x") or ()), list(t.get("y") or ())
    return len(ys) >= 2 and (len(set(ys)) == 1 or len(set(xs)) == 1)


def _style_reference_lines(data: list[dict], layout: dict) -> None:
    for i, sh in enumerate(layout.get("shapes") or ()):
        if sh.get("type") != "line":
            continue
        line = sh.setdefault("line", {})
        if line.get("dash") in (None, "solid"):
            line["dash"] = REFERENCE_DASHES[i % len(REFERENCE_DASHES)]
        line["color"] = REFERENCE_COLOR
        if line.get("width") is None or line["width"] > 2:
            line["width"] = 1.5
    for t in data:
        if _is_reference_trace(t):
            t["line"].update(color=REFERENCE_COLOR, width=1.5)


#: The widest line (px) a chart title (15 px) and an x-axis title (centred under the plot,
#: right of the y axis) may take on a 390 px phone, where the chart is ~354 px wide.
PHONE_TITLE_PX, PHONE_X_TITLE_PX, TITLE_FONT_PX = 330.0, 240.0, 15.0
#: The widest line (px) of an x-axis title on the desktop figure (a plot ``WIDTHS[1]`` wide)
DESKTOP_X_TITLE_PX = 520.0
#: The widest line (px) of a chart title on the desktop figure: the chart in a half-screen
#: window or on a tablet (the plot ``placement.WIDTHS[1]`` wide, the chart ~640 px) holds it
DESKTOP_TITLE_PX = 600.0
#: A page at most this wide (CSS px) draws each figure's phone variant (``phone_variant``):
#: the site's boot script swaps it in (scripts/build_site.py), as ``style.LAB_CSS``'s phone rules
PHONE_VIEWPORT_PX = 640
#: Where in a finished figure's ``layout.meta`` its phone variant is kept
PHONE_KEY = "mlsysim-phone"


def _wrap_px(text: str, max_px: float, font: float = TITLE_FONT_PX) -> str:
    """``text`` broken into the longest lines that each fit ``max_px`` at ``font`` px
    (measured per character, ``placement.text_size``): 44 characters of "Embedding tables
    vs device memory (1 table ×" ran off a phone that fits 44 narrower ones."""
    if not text or "<br>" in text or text_size(text, font)[0] <= max_px:
        return text
    head, paren, tail = text.rpartition(" (")  # "Latency (s,<br>log scale)": break before "("
    if head and all(text_size(x, font)[0] <= max_px for x in (head, paren[1:] + tail)):
        return f"{head}<br>{paren[1:]}{tail}"
    for width in range(min(len(text), 100), 9, -1):
        # a word of one or two characters stays with the next ("η = 0.5"), a number with its
        # unit ("16 B/param")
        wrapped = wrap_words(text, width, r"((?<!\S)\S{1,2}|\d(?= [A-Za-zµ%×])) (?=\S)")
        if all(text_size(line, font)[0] <= max_px for line in wrapped.split("<br>")):
            return wrapped
    return wrapped


def _layout_title(data: list[dict], layout: dict) -> dict:
    """Titles on their lines and the margins and height for them, on the desktop figure; returns
    what the phone variant draws differently (``title``, ``margin_t``, ``x_title``)."""
    margin = layout.setdefault("margin", {})
    xaxis = layout.setdefault("xaxis", {})
    xt = _text(xaxis.get("title"))
    extra_x_lines = 0
    phone_title: dict = {}
    if xt:
        wrapped = _wrap_px(xt, PHONE_X_TITLE_PX)
        extra_x_lines = wrapped.count("<br>")  # (the bottom margin is sized for the phone's)
        desk = _wrap_px(_flat(xt), DESKTOP_X_TITLE_PX)
        title = xaxis["title"] if isinstance(xaxis["title"], dict) else {}
        if desk != xt:
            xaxis["title"] = {**title, "text": desk}
        if wrapped != desk:
            phone_title["x_title"] = wrapped
    t = _text(layout.get("title"))
    if t:
        title = layout["title"] if isinstance(layout["title"], dict) else {}
        title.update(x=0, xanchor="left", y=1, yanchor="top", yref="container")
        title["font"] = {**title.get("font", {}), "size": 15}
        # the phone's title first: the figure's height is sized for it (the desktop's title,
        # on fewer lines, leaves its plot taller)
        _set_title(layout, title, _wrap_px(humanize(t), PHONE_TITLE_PX))
        phone_title.update(title=copy.deepcopy(layout["title"]), margin_t=layout["margin"]["t"])
    layout.setdefault("legend", {}).update(
        orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left"
    )
    rows = legend_rows(data)
    if extra_x_lines:  # a wrapped x title takes a line more under the plot
        margin["b"] = max(margin.get("b") or 0, X_AXIS_PX + LEGEND_ROW_PX * extra_x_lines + 8)
    font = font_px(layout)
    slant = slanted_ticks_px(data, font)
    if rows:
        margin["b"] = max(margin.get("b") or 0, 96)
    if rows or slant:
        # on a phone each entry gets its own row, and category names too wide for the plot are
        # slanted, and Plotly takes both from the plot: make the figure tall enough to keep
        # PHONE_MIN_PLOT_PX of plot under its title
        bottom = max(margin.get("b") or 0, phone_bottom_px(data, extra_x_lines, font))
        # (the phone variant's labels are placed above that much: Plotly takes it from the plot)
        phone_title["margin_b"] = math.ceil(bottom)
        need = margins(layout)["t"] + PHONE_MIN_PLOT_PX + bottom
        layout["height"] = max(layout.get("height") or 450, math.ceil(need))
    if t:  # a break the figure's code wrote is for a phone: the desktop's lines are its own
        title = copy.deepcopy(layout["title"])
        _set_title(layout, title, _wrap_px(_flat(humanize(t)), DESKTOP_TITLE_PX))
    return phone_title


def _greedy_lines(text: str, max_px: float, font: float) -> list[str]:
    """``text``'s words (however broken) on lines no wider than ``max_px`` at ``font`` px, each
    word added to a line while it fits (a word wider than that alone keeps its own line)."""
    lines, line = [], ""
    for word in _flat(str(text or "")).split():
        trial = f"{line} {word}" if line else word
        if line and text_size(trial, font)[0] > max_px:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line]


def title_lines_needed(text: str, max_px: float = DESKTOP_TITLE_PX) -> int:
    """The fewest lines ``text`` (its words, however broken) takes with no line wider than
    ``max_px`` at the title's font: words added to a line while it fits (the harness checks a
    desktop title against it)."""
    return len(_greedy_lines(text, max_px, TITLE_FONT_PX))


def _set_title(layout: dict, title: dict, text: str) -> None:
    """``title`` (a dict) with ``text`` on its lines as the layout's, and the top margin for
    them (plotly anchors a multi-line title by its first line: the extra lines are padded)."""
    n = text.count("<br>") + 1
    title["text"] = text
    title["pad"] = {**title.get("pad", {}), "t": 10 + 19 * (n - 1), "l": 4}
    layout["title"] = title
    layout.setdefault("margin", {})["t"] = 34 + 21 * n


#: Height of one legend line, and of the x-axis title and ticks under the plot (Plotly, 12 px).
LEGEND_ROW_PX, X_AXIS_PX = 20, 44
#: Least plot height a chart keeps at a 390 px phone width.
PHONE_MIN_PLOT_PX = 190
#: On a phone, category names on the x axis that do not fit side by side (in
#: ``placement.PHONE_PLOT_PX``) are each broken into lines as wide as their slot, at most this
#: many; where one cannot be (a word wider than its slot, or more lines), all are slanted by
#: ``PHONE_TICK_SLANT`` degrees where slanted names clear each other, else turned upright. The
#: phone variant sets the angle itself: left to Plotly, names were slanted or turned upright by
#: rules the kit could only guess, and a guess short by ~120 px left 6.10 C's plot 80 px tall
#: with its y-axis title in the chart's title.
PHONE_TICK_LINES, PHONE_TICK_SLANT = 5, 30
#: px between two category names side by side
TICK_GAP_PX = 6.0


def _category_names(traces) -> list[str]:
    names: dict[str, None] = {}
    for t in traces:
        t = t if isinstance(t, dict) else t.to_plotly_json()
        if t.get("orientation") == "h":
            continue
        for v in t.get("x") or ():
            if isinstance(v, str):
                names[v] = None
    return list(names)


def phone_category_ticks(traces, font: float = FONT_PX) -> dict | None:
    """How a phone draws the x axis's category names (at ``font`` px: the figure's,
    ``placement.font_px``) that do not fit side by side: each broken into lines no wider than
    its slot (``{"tickvals", "ticktext", "tickangle": 0}``), or, where one cannot be, slanted
    (one-line names) or upright (``{"tickangle": ...}``); None when they fit as they are."""
    names = _category_names(traces)

    def size(text):
        return text_size(text, font)

    if not names or sum(size(n)[0] + TICK_GAP_PX for n in names) <= PHONE_PLOT_PX:
        return None
    slot = PHONE_PLOT_PX / len(names) - TICK_GAP_PX
    wrapped = []
    for name in names:
        lines = [x for part in name.split("<br>") for x in _greedy_lines(part, slot, font)]
        if len(lines) > PHONE_TICK_LINES or any(size(x)[0] > slot for x in lines):
            # slanted one-line names are (slot + gap) x sin(angle) apart across their line
            # (names of several lines, slanted, ran into each other and past the plot's right)
            one_line = all("<br>" not in n for n in names)
            apart = (slot + TICK_GAP_PX) * math.sin(math.radians(PHONE_TICK_SLANT))
            slant = one_line and apart >= size(names[0])[1] + 2
            return {"tickangle": PHONE_TICK_SLANT if slant else 90}
        wrapped.append("<br>".join(lines))
    return {"tickvals": names, "ticktext": wrapped, "tickangle": 0}


def slanted_ticks_px(traces, font: float = FONT_PX) -> float:
    """Height (px) that the x axis's category names take on a phone beyond one line (as
    ``phone_category_ticks`` draws them at ``font`` px: their extra lines, or slanted or
    upright, their extent); 0 when they fit side by side."""
    ticks = phone_category_ticks(traces, font)
    if ticks is None:
        return 0.0
    one = text_size("x", font)[1]
    if ticks["tickangle"]:
        a = math.radians(ticks["tickangle"])
        sizes = [text_size(n, font) for n in _category_names(traces)]
        return max(w * math.sin(a) + h * math.cos(a) for w, h in sizes) - one
    return max(text_size(t, font)[1] for t in ticks["ticktext"]) - one


def phone_bottom_px(traces, extra_x_lines: int = 0, font: float = FONT_PX) -> float:
    """What sits under the plot on a phone: the x-axis title and ticks, each legend line, a
    wrapped x title's extra lines and slanted category names (one rule for the kit and the
    harness)."""
    rows = legend_rows(traces)
    return X_AXIS_PX + LEGEND_ROW_PX * (rows + extra_x_lines) + 8 + slanted_ticks_px(traces, font)


def legend_rows(traces) -> int:
    """Lines the legend of ``traces`` (a figure's ``data``, or their JSON dicts) takes on a
    phone: one per entry (plus one per ``<br>`` in its name); 0 when there is no legend (fewer
    than two entries)."""

    def get(t, key):
        return t.get(key) if isinstance(t, dict) else getattr(t, key, None)

    if not isinstance(traces, list | tuple):
        raise ValueError(
            f"traces must be a figure's data (a list or tuple of traces), got {_short(traces)}"
        )

    entries = [t for t in traces if get(t, "showlegend") is not False]
    if len(entries) < 2:
        return 0
    return sum(1 + str(get(t, "name") or "").count("<br>") for t in entries)


def text_alternative(fig, summary: str = "") -> str:
    """What a screen reader hears for a chart: its title, axes, each series' range of values
    (the key numbers) and the part's one-sentence summary."""

    _figure(fig)

    def plain(s):
        return sub_tags(str(s or ""), " ").replace("  ", " ").strip()

    parts = [f"Chart: {plain(fig.layout.title.text) or 'untitled'}."]
    xt, yt = plain(fig.layout.xaxis.title.text), plain(fig.layout.yaxis.title.text)
    if xt or yt:
        parts.append(f"Horizontal axis: {xt or 'categories'}; vertical axis: {yt or 'values'}.")
    for t in list(fig.data)[:8]:
        ys = [v for v in (t.y or ()) if finite_number(v)]
        xs = list(t.x or ())
        name = plain(t.name) or "series"
        if not ys:
            continue
        if len(ys) == 1:
            parts.append(f"{name}: {_num(ys[0])}" + (f" at {_num(xs[0])}." if xs else "."))
        elif xs and all(isinstance(x, str) for x in xs) and len(xs) <= 8:
            parts.append(
                f"{name}: "
                + ", ".join(f"{x} {_num(y)}" for x, y in zip(xs, ys, strict=False))
                + "."
            )
        else:
            parts.append(
                f"{name}: from {_num(ys[0])} to {_num(ys[-1])} (min {_num(min(ys))}, max {_num(max(ys))})."
            )
    for a in list(fig.layout.annotations or ())[:6]:
        if a.text:
            parts.append(f"Marked: {plain(a.text)}.")
    if summary:
        parts.append(plain(_MD_MARKS.sub("", summary)))
    return " ".join(parts)


#: markdown's emphasis and code marks, not the underscores inside a name (d_ff, L_lat)
_MD_MARKS = re.compile(r"`|\*\*|(?<![\w*])[*_](?=\S)|(?<=\S)[*_](?![\w*])")


def _num(v) -> str:
    if isinstance(v, str):
        return v
    if not finite_number(v):
        return _short(v, 24)
    v = float(v)
    if v == 0:
        return "0"
    if abs(v) >= 1e5 or abs(v) < 1e-3:
        return f"{v:.3g}"
    return f"{v:,.4g}"


def place_line_labels(fig):
    """``add_hline``/``add_vline`` put their labels at the raw data value, but on a log axis
    plotly.js reads an annotation's coordinate as log10 of the value: convert them once
    (``finalize`` does; this is for a figure shown without it)."""
    layout = _figure(fig).layout.to_plotly_json()
    _log_line_labels(layout)
    fig.layout.annotations = layout.get("annotations", ())
    return fig


def _log_line_labels(layout: dict) -> None:
    log = {a: (layout.get(f"{a}axis") or {}).get("type") == "log" for a in "xy"}
    for ann in layout.get("annotations") or ():
        for a in "xy":
            v = ann.get(a)
            if ann.get(f"{a}ref") == a and log[a] and isinstance(v, int | float) and v > 0:
                ann[a] = math.log10(v)


_DONE = "mlsysim-final"

#: Plotly's typed-array dtypes (how ``Figure.to_dict`` writes a numpy array) -> ``array`` codes
_TYPECODES = {
    "i1": "b", "u1": "B", "i2": "h", "u2": "H", "i4": "i", "u4": "I",
    "i8": "q", "u8": "Q", "f4": "f", "f8": "d",
}  # fmt: skip


def _plain_arrays(obj):
    """``obj`` (a figure's JSON) with Plotly's typed arrays (``{"dtype", "bdata", "shape"}``,
    how ``to_dict`` writes a numpy array) and numpy arrays as plain lists: the chart rules read
    numbers, not base64."""
    if isinstance(obj, dict):
        if isinstance(obj.get("bdata"), str) and obj.get("dtype") in _TYPECODES:
            values = array.array(_TYPECODES[obj["dtype"]], base64.b64decode(obj["bdata"]))
            if sys.byteorder == "big":  # Plotly writes little-endian
                values.byteswap()
            flat = values.tolist()
            shape = [int(n) for n in str(obj.get("shape") or "").split(",") if n.strip()]
            if len(shape) == 2:
                return [flat[r * shape[1] : (r + 1) * shape[1]] for r in range(shape[0])]
            return flat
        return {k: _plain_arrays(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain_arrays(v) for v in obj]
    if hasattr(obj, "tolist") and hasattr(obj, "dtype"):  # a numpy array Plotly left as is
        return obj.tolist()
    return obj


#: Longest legend line: a 390 px phone's chart holds about this many characters per row.
LEGEND_LINE_CHARS = 30


def wrap_legend_name(name: str, width: int = LEGEND_LINE_CHARS) -> str:
    """Break a long series name into lines of at most ``width`` characters at spaces (Plotly's
    ``<br>``), so a legend below the chart never runs past a phone's screen."""
    if not isinstance(name, str):
        raise ValueError(f"name must be text (a series name), got {_short(name)}")
    width = _check.integer("width", width, 8, 10_000)
    if len(name) <= width or "<br>" in name:
        return name
    return wrap_words(name, width, r"(\d) (?=\S)")  # a number stays with its unit


def finalize(fig):
    """The figure with the chart rules (module docstring) applied, for display; ``fig`` itself
    is left as it was. Idempotent: a finished figure is returned as it is.

    The rules work on the figure's JSON (plain dicts) and the result is built from it without
    Plotly's validation, which the input already passed: property by property through Plotly's
    objects, the same work took most of a slider step's Python time in the browser."""
    import plotly.graph_objects as go

    meta = _figure(fig).layout.meta
    if isinstance(meta, dict) and meta.get(_DONE):
        return fig
    spec = fig.to_dict()
    spec["data"] = _plain_arrays(spec["data"])
    spec["layout"] = {
        k: (v if k == "template" else _plain_arrays(v)) for k, v in spec["layout"].items()
    }
    data, layout = spec["data"], spec["layout"]
    for t in data:
        if t.get("name"):
            t["name"] = wrap_legend_name(humanize(t["name"]))
        txt = t.get("text")
        if isinstance(txt, str):
            t["text"] = humanize(txt)
        elif isinstance(txt, list | tuple):
            t["text"] = [humanize(x) for x in txt]
    for a in layout.get("annotations") or ():
        if a.get("text"):
            a["text"] = humanize(a["text"])
    for name in ("xaxis", "yaxis"):
        title = (layout.get(name) or {}).get("title")
        if isinstance(title, dict) and title.get("text"):
            title["text"] = humanize(title["text"])
    _style_reference_lines(data, layout)
    phone_title = _layout_title(data, layout)
    present = {k for k in layout if re.fullmatch(r"[xy]axis\d*", k)}
    for name in sorted(present | {"xaxis", "yaxis"}):  # the placement may set either's range
        _format_axis(data, layout, name)
    _clear_corner(layout)
    _log_line_labels(layout)
    _fit_axis_title(layout)
    texty = [i for i, t in enumerate(data) if "text" in str(t.get("mode") or "")]
    before = {
        "data": {i: {k: copy.deepcopy(data[i].get(k)) for k in _LABEL_KEYS} for i in texty},
        "layout": {k: copy.deepcopy(layout.get(k)) for k in ("annotations", "xaxis", "yaxis")},
    }
    place_labels(data, layout)
    _pin_ranges(data, layout)
    phone = _phone_patch(data, layout, before, phone_title)
    layout["meta"] = {**(meta if isinstance(meta, dict) else {}), _DONE: True}
    if phone:
        layout["meta"][PHONE_KEY] = phone
    return go.Figure(spec, _validate=False)


#: What the label placement changes on a trace
_LABEL_KEYS = ("text", "textposition", "hovertext")


def _phone_patch(data: list[dict], layout: dict, before: dict, phone_title) -> dict | None:
    """The figure's phone variant as a patch of its JSON (``phone_variant`` applies it): the
    title on the phone's lines, and every label placed again for a phone's plot
    (``placement.PHONE_LABEL_PX``) from where the figure's own code put it (a point's label
    left out where it has no clear place: the legend, hover and a tap still name the point).
    None when it would be the figure as it is."""
    traces = list(data)
    for i, keys in before["data"].items():
        traces[i] = {**data[i], **{k: v for k, v in keys.items() if v is not None}}
        for k, v in keys.items():
            if v is None:
                traces[i].pop(k, None)
    lay = {**layout, **{k: v for k, v in before["layout"].items() if v is not None}}
    lay = {
        k: copy.deepcopy(v) if k in ("annotations", "xaxis", "yaxis") else v for k, v in lay.items()
    }
    for axis in ("xaxis", "yaxis"):  # placed again: the ranges as the figure's code gave them
        if (before["layout"].get(axis) or {}).get("range") is None:
            (lay.get(axis) or {}).pop("range", None)
    lay["margin"] = dict(layout.get("margin") or {})
    if "title" in phone_title:
        lay["title"] = phone_title["title"]
        lay["margin"]["t"] = phone_title["margin_t"]
    if "margin_b" in phone_title:  # the legend one entry per row under a phone's plot
        lay["margin"]["b"] = max(lay["margin"].get("b") or 0, phone_title["margin_b"])
    if "x_title" in phone_title:
        title = lay["xaxis"]["title"] if isinstance(lay["xaxis"].get("title"), dict) else {}
        lay["xaxis"]["title"] = {**title, "text": phone_title["x_title"]}
    ticks = phone_category_ticks(traces, font_px(lay))
    x_own = lay.get("xaxis") or {}
    if ticks and not any(k in x_own for k in ("ticktext", "tickangle")):
        lay["xaxis"] = {**x_own, **ticks}
    _fit_phone_y_title(lay)
    place_labels(traces, lay, (PHONE_LABEL_PX,))
    _pin_ranges(traces, lay)
    patch: dict = {"layout": {}, "data": {}}
    for k in ("title", "margin", "annotations", "xaxis", "yaxis"):
        if lay.get(k) != layout.get(k):
            patch["layout"][k] = lay.get(k)
    for i in before["data"]:
        keys = {k: traces[i].get(k) for k in _LABEL_KEYS if traces[i].get(k) != data[i].get(k)}
        if keys:
            patch["data"][str(i)] = keys
    return patch if patch["layout"] or patch["data"] else None


def phone_variant(spec: dict) -> dict:
    """A finished figure's JSON (``finalize(fig).to_plotly_json()``) as a phone draws it: its
    phone patch (``layout.meta``) applied, as the site's boot script does in the browser at a
    page width of ``PHONE_VIEWPORT_PX`` or less (one rule: the same keys replaced whole)."""
    if not isinstance(spec, dict) or not isinstance(spec.get("layout"), dict):
        raise ValueError(f"spec must be a figure's JSON (data and layout), got {_short(spec)}")
    layout = dict(spec["layout"])
    data = list(spec.get("data") or ())
    meta = layout.get("meta")
    patch = meta.get(PHONE_KEY) if isinstance(meta, dict) else None
    if not patch:
        return {**spec, "data": data, "layout": layout}
    layout.update(copy.deepcopy(patch.get("layout") or {}))
    for i, keys in (patch.get("data") or {}).items():
        data[int(i)] = {**data[int(i)], **copy.deepcopy(keys)}
    return {**spec, "data": data, "layout": layout}
