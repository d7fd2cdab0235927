"""Palette, lab stylesheet and the Plotly theme. One theme source: marimo's (its ``.dark`` class
on the page, set from the student's choice or the system setting). The CSS variables flip under
that class only, and so does the chart text (plotly draws SVG text with an inline fill, which the
stylesheet overrides in dark mode); charts have transparent backgrounds and mid-grey grids. At
phone width Plotly's toolbar and marimo's badge are hidden so nothing covers a chart."""

from __future__ import annotations

import contextlib

__all__ = ["COLORS", "LAB_CSS", "apply_plotly_theme", "Css"]

COLORS: dict[str, str] = {
    "BlueLine": "#2563eb",
    "RedLine": "#dc2626",
    "GreenLine": "#16a34a",
    "OrangeLine": "#ea580c",
    "PurpleLine": "#7c3aed",
    "TealLine": "#0d9488",
    "GreyLine": "#6b7280",
    "Text": "#0f172a",
    "TextSec": "#334155",
    "TextMuted": "#64748b",
    "Border": "#cbd5e1",
    "Surface": "#f8fafc",
    "Surface2": "#f1f5f9",  # a second, slightly darker surface (the seed lab's cards use it)
    # light tints of the line colours (backgrounds of callout-like boxes; the seed lab uses them)
    "BlueL": "#dbeafe",
    "RedL": "#fee2e2",
    "GreenL": "#dcfce7",
    "OrangeL": "#ffedd5",
}

#: Trace colors in a fixed order (one per device or model, the same across notebooks).
SERIES = [
    COLORS[k]
    for k in (
        "BlueLine",
        "OrangeLine",
        "GreenLine",
        "RedLine",
        "PurpleLine",
        "TealLine",
        "GreyLine",
    )
]


class Css(str):
    """A stylesheet string that marimo displays as HTML (``mo.vstack([LAB_CSS, ...])`` works)."""

    def _mime_(self) -> tuple[str, str]:
        return ("text/html", str(self))


LAB_CSS = Css(
    """<style>
:root { --ms-text:#0f172a; --ms-sec:#334155; --ms-muted:#475569; --ms-border:#cbd5e1;
        --ms-surface:#f8fafc; --ms-card:#ffffff; --ms-blue:#2563eb; --ms-red:#dc2626;
        --ms-green:#16a34a; --ms-orange:#ea580c; }
.dark, [data-theme="dark"] { --ms-text:#e2e8f0; --ms-sec:#cbd5e1; --ms-muted:#a3b1c6;
  --ms-border:#334155; --ms-surface:#0f172a; --ms-card:#1e293b; }
.dark .js-plotly-plot .main-svg :is(.xtick, .ytick, .g-xtitle, .g-ytitle, .gtitle, .legendtext,
  .annotation-text, .textpoint) text, .dark .js-plotly-plot .main-svg :is(.gtitle, .legendtext,
  .annotation-text),
:host-context(.dark) .js-plotly-plot .main-svg :is(.xtick, .ytick, .g-xtitle, .g-ytitle, .gtitle,
  .legendtext, .annotation-text, .textpoint) text { fill: #cbd5e1 !important; }
/* placement.LABEL_GROUND (white at 0.85) under a line label, in the dark theme's colour */
.dark .js-plotly-plot .annotation rect.bg[style*="fill-opacity: 0.85"],
:host-context(.dark) .js-plotly-plot .annotation rect.bg[style*="fill-opacity: 0.85"] {
  fill: rgb(15,23,42) !important; }
.ms-chart-alt { position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
@media (max-width: 640px) {
  .js-plotly-plot .modebar-container { display: none !important; }
  a[href="https://github.com/marimo-team/marimo"] { display: none !important; }
  /* marimo's notebook menu is fixed at the top right, over the text scrolling under it: on a
     phone it stays at the top of the page (beside the header card) and scrolls away */
  [data-testid="notebook-actions-dropdown"] { position: absolute !important; }
  .ms-header { padding: 16px; } .ms-header h1 { font-size: 1.5rem; }
}
.ms-header { padding: 24px 28px; border-radius: 14px; background: var(--ms-surface);
  border: 1px solid var(--ms-border); color: var(--ms-text); }
.ms-header .ms-kicker { font-size: .72rem; font-weight: 700; letter-spacing: .16em;
  text-transform: uppercase; color: var(--ms-muted); }
.ms-header h1 { margin: 6px 0 8px 0; font-size: 2rem; line-height: 1.15; }
.ms-header .ms-goal { color: var(--ms-sec); font-size: 1.02rem; }
.ms-badges { display: flex; gap: 8px; flex-wrap: wrap; margin-top: 12px; }
.ms-badge { padding: 3px 10px; border-radius: 999px; font-size: .78rem; font-weight: 600;
  border: 1px solid var(--ms-border); color: var(--ms-sec); }
.ms-cards { display: flex; gap: 12px; flex-wrap: wrap; margin: 10px 0; }
.ms-card { flex: 1; min-width: 150px; padding: 12px 16px; border-radius: 10px;
  background: var(--ms-card); border: 1px solid var(--ms-border); border-top: 4px solid var(--ms-blue);
  color: var(--ms-text); }
.ms-card.ok { border-top-color: var(--ms-green); }
.ms-card.warn { border-top-color: var(--ms-orange); }
.ms-card.bad { border-top-color: var(--ms-red); }
.ms-card .ms-label { font-size: .72rem; font-weight: 700; text-transform: uppercase;
  letter-spacing: .08em; color: var(--ms-muted); }
.ms-card .ms-value { font-size: 1.5rem; font-weight: 800; margin: 2px 0; }
.ms-card .ms-note { font-size: .8rem; color: var(--ms-muted); }
.ms-message { border-left: 4px solid var(--ms-blue); padding: 12px 18px; margin: 10px 0;
  border-radius: 0 10px 10px 0; background: var(--ms-card); color: var(--ms-text); }
.ms-message .ms-from { font-size: .72rem; font-weight: 700; text-transform: uppercase;
  letter-spacing: .08em; color: var(--ms-muted); margin-bottom: 4px; }
.ms-message blockquote { margin: 0; font-style: italic; color: var(--ms-sec); }
.ms-ledger { font-size: .85rem; color: var(--ms-sec); }
.ms-first { margin-top: 6px; font-size: .85rem; color: var(--ms-sec); }
.ms-peek { font-size: .85rem; white-space: pre-wrap; margin: 0 0 6px 0; }
.ms-key li { margin: 2px 0; }
.ms-table { border-collapse: collapse; font-size: .85rem; color: var(--ms-text); }
.ms-table th, .ms-table td { border-bottom: 1px solid var(--ms-border); padding: 4px 10px;
  text-align: left; vertical-align: top; }
</style>"""
)


_TEMPLATE = None

#: The trace types the labs draw (``go.Scatter``, ``go.Bar``): the template keeps Plotly's
#: ``plotly_white`` defaults for these only (a test checks every ``go.X`` in the package is one)
TRACE_TYPES = ("scatter", "bar")


def _base_template() -> dict:
    """Plotly's ``plotly_white`` template, read from plotly's own file: its layout and its
    defaults for ``TRACE_TYPES``. ``pio.templates["plotly_white"]`` validates its defaults for
    all 24 trace types, importing each type's classes: in Pyodide that was 0.8 s of the first
    chart after a student's first answer (issue 35), for trace types no lab draws."""
    import json
    import pkgutil

    raw = pkgutil.get_data("plotly", "package_data/templates/plotly_white.json")
    if raw is None:  # a plotly that keeps its templates elsewhere: its own registry
        import plotly.io as pio

        return pio.templates["plotly_white"].to_plotly_json()
    base = json.loads(raw)
    data = base.get("data", {})
    return {"layout": base["layout"], "data": {k: data[k] for k in TRACE_TYPES if k in data}}


def _template():
    """The lab template, built once (re-validating plotly_white per chart cost ~15 ms)."""
    global _TEMPLATE
    if _TEMPLATE is None:
        import plotly.graph_objects as go
        import plotly.io as pio

        grid = dict(
            gridcolor="rgba(128,128,128,0.25)",
            zerolinecolor="rgba(128,128,128,0.4)",
            linecolor="rgba(128,128,128,0.5)",
            exponentformat="power",
            automargin=True,
        )
        t = go.layout.Template(_base_template())
        t.layout.update(
            paper_bgcolor="rgba(0,0,0,0)",
            plot_bgcolor="rgba(0,0,0,0)",
            # 4.5:1 on white, 3.8:1 on marimo's dark page even where the dark CSS cannot reach
            # the chart (marimo may render plugins in a shadow root)
            font=dict(family="Inter, system-ui, sans-serif", size=13, color="#6b7789"),
            margin=dict(l=60, r=30, t=60, b=50),
            # the legend below the plot (never under a wrapped title); charts.finalize sizes it
            legend=dict(
                orientation="h", yref="container", yanchor="bottom", y=0, xanchor="left", x=0
            ),
            colorway=SERIES,
            xaxis=grid,
            yaxis=grid,
        )
        pio.templates["mlsysim"] = t
        pio.templates.default = "mlsysim"  # new figures start themed: no per-chart copy
        # marimo passes the default renderer's config to plotly.js: no toolbar (on a phone it
        # covered the chart; nothing in a lab needs zoom or export), no plotly logo
        with contextlib.suppress(KeyError, AttributeError, ValueError):
            if not pio.renderers.default or pio.renderers.default not in pio.renderers:
                pio.renderers.default = "browser"  # what marimo picks in that case
            r = pio.renderers[pio.renderers.default]
            r.config = {
                **(r.config or {}),
                "displayModeBar": False,
                "displaylogo": False,
                "responsive": True,
            }
        _TEMPLATE = t
    return _TEMPLATE


def apply_plotly_theme(fig, height: int | None = None):
    """Transparent background, neutral grid and font: legible on light and dark pages.
    Returns the figure so calls can be chained."""
    _template()
    if tuple(fig.layout.template.layout.colorway or ()) != tuple(SERIES):
        fig.layout.template = "mlsysim"
    if height:
        fig.layout.height = height
    return fig
