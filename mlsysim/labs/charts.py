"""Chart helpers: device limits drawn from the registry, and the roofline."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from ..hardware import Device
from .style import SERIES, apply_plotly_theme

__all__ = ["memory_lines", "roofline", "figure", "place_line_labels"]


def figure(title: str, x_title: str, y_title: str, *, log_x=False, log_y=False, height=380):
    """An empty themed figure."""
    import plotly.graph_objects as go

    from .style import _template

    _template()
    fig = go.Figure()
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, height=height)
    if log_x:
        fig.update_xaxes(type="log")
    if log_y:
        fig.update_yaxes(type="log")
    return apply_plotly_theme(fig)


def memory_lines(fig, devices: Iterable[Device], unit: str = "GB", scale: float = 1.0):
    """Dashed horizontal lines at each device's memory capacity (in ``unit``, times ``scale``,
    e.g. ``scale=1/4`` bytes-per-param to draw a parameter budget)."""
    for i, dev in enumerate(devices):
        cap = dev.memory.capacity.m_as(unit) * scale
        fig.add_hline(
            y=cap,
            line_dash="dash",
            line_color=SERIES[i % len(SERIES)],
            annotation_text=f"{dev.name} {dev.memory.capacity:~P}",
            annotation_position="top left",
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
    roof scaled by ``efficiency``, the ridge point, and ``points`` as (label, FLOP/B, FLOP/s)."""
    import plotly.graph_objects as go

    from .vocab import LABELS

    # where the roof bends: the sustained rate / bandwidth (a sustained-basis device is never derated)
    ridge = device.sustained_ridge_point(precision, efficiency).m_as("FLOP/B")
    named = (LABELS["ridge_peak"] if efficiency == 1 or device.compute.is_sustained
             else f"{LABELS['ridge_sustained']}, η = {efficiency:g}")
    lo, hi = x_range
    xs = [lo, ridge, hi] if lo < ridge < hi else [lo, hi]
    ys = [device.attainable_flops(x, precision, efficiency) / 1e12 for x in xs]
    fig = figure(title or f"Roofline: {device.name} ({precision}, dense)", "Arithmetic intensity (FLOP/byte)",
                 "Attainable TFLOP/s", log_x=True, log_y=True)
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name="roofline", line=dict(color=SERIES[6], width=3)))
    fig.add_vline(x=ridge, line_dash="dot", line_color=SERIES[6],
                  annotation_text=f"{named}: {ridge:,.0f} FLOP/B" if ridge >= 10 else f"{named}: {ridge:.2g} FLOP/B", annotation_position="bottom right")
    for i, (label, intensity, flops_s) in enumerate(points):
        fig.add_trace(go.Scatter(x=[intensity], y=[flops_s / 1e12], mode="markers+text", name=label,
                                 text=[label], textposition="top center",
                                 marker=dict(size=12, color=SERIES[i % 6])))
    return fig


def place_line_labels(fig):
    """``add_hline``/``add_vline`` put their labels at the raw data value, but on a log axis
    plotly.js reads an annotation's coordinate as log10 of the value: convert them once, just
    before display (``components.show`` calls this)."""
    for ann in fig.layout.annotations:
        if ann.xref == "x" and fig.layout.xaxis.type == "log" and ann.x and ann.x > 0:
            ann.x = math.log10(ann.x)
        if ann.yref == "y" and fig.layout.yaxis.type == "log" and ann.y and ann.y > 0:
            ann.y = math.log10(ann.y)
    return fig
