"""The harness catches each known failure class of labs like these (fixtures/bad_*.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import harness as h

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def _data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("MLSYSIM_DATA_DIR", str(tmp_path))


def _app(name):
    return h.load_app(FIXTURES / f"{name}.py")


def test_detects_a_prediction_that_never_renders():
    r = h.run(_app("bad_deadlock"))
    preds = r.predictions()
    assert set(preds) == {"pred_a", "pred_b"}
    assert not any(r.shows(p) for p in preds.values()), "deadlocked radios must not count as shown"


def test_defaults_alone_miss_a_gated_bug_but_answers_find_it():
    app = _app("bad_gated_bug")
    r = h.run(app)
    assert h.problems(r) == []  # the defaults-only run looks clean...
    pred = r.predictions()["pred_a"]
    with pytest.raises(ZeroDivisionError):  # ...answering exposes the bug
        h.run(app, defs={"pred_a": h.with_value(pred, "x")})


def test_detects_nan_error_text_and_empty_charts():
    r = h.run(_app("bad_numbers"), unlock=False)
    r = h.run(_app("bad_numbers"), defs={"pred_a": h.with_value(r.predictions()["pred_a"], "y")})
    found = "\n".join(h.problems(r))
    assert "'nan'" in found and "'Error'" in found and "has no data" in found


def test_detects_completed_on_load(tmp_path):
    h.run(_app("bad_completed"))
    data = json.loads((tmp_path / "mlsysim-ledger.json").read_text())
    rec = data["chapters"]["bad"]
    # the same predicate test_notebooks applies to every real lab after a locked run
    assert rec["required"] and all(rec["answers"].get(p) for p in rec["required"])


def test_detects_a_line_label_that_breaks_a_log_axis():
    """The bug a real-browser screenshot showed: an ``add_hline`` label at y=295 on a log axis
    is read as 10^295 by plotly.js and the axis collapses ('NaN x 10^Infinity')."""
    import marimo as mo
    import plotly.graph_objects as go

    from mlsysim.labs.charts import finalize, text_alternative

    def chart(fix):
        fig = go.Figure(go.Scatter(x=[1, 2], y=[1, 1000]))
        fig.update_yaxes(type="log")
        fig.add_hline(y=295, annotation_text="ridge")
        items = [fig]
        if fix:  # what components.show does: the chart rules and a text alternative
            items = [finalize(fig), mo.Html(f'<p class="ms-chart-alt">{text_alternative(fig)}</p>')]
        out = (mo.vstack(items),)
        return h.Run(out, {}, h._render(out))

    assert any("log axis" in p for p in h.problems(chart(fix=False)))
    assert h.problems(chart(fix=True)) == []


def test_chart_rules_catch_each_fault_and_the_kit_fixes_them():
    """Each chart rule of the harness fires on a figure that breaks it, and ``charts.finalize``
    (what ``components.show`` applies) fixes all of them."""
    import marimo as mo
    import plotly.graph_objects as go

    from mlsysim.labs.charts import REFERENCE_COLOR, finalize, text_alternative
    from mlsysim.labs.style import SERIES

    def bad_figure():
        fig = go.Figure(
            go.Scatter(
                x=[1, 2, 3],
                y=[2e9, 5e9, 3e10],
                name="JetsonOrinNX weights",
                line=dict(color=SERIES[0]),
            )
        )
        fig.update_layout(
            title="Weights on the iPhone15Pro",
            yaxis_title="Weight bytes",
            xaxis_title="Parameter count",
            xaxis_exponentformat="B",
        )
        fig.update_yaxes(type="log", exponentformat="B")
        fig.add_hline(y=8e9, line_color=SERIES[0], line_dash="solid", annotation_text="8 GB")
        fig.add_hline(y=8.2e9, line_color=SERIES[1], annotation_text="8.2 GB")
        return fig

    def render(items):
        out = (mo.vstack(items),)
        return h.Run(out, {}, h._render(out))

    found = " | ".join(h.chart_rule_problems(render([bad_figure()])))
    for rule in (
        "text alternative",
        "log axis without decade ticks",
        "byte axis without byte units",
        "reference line is solid",
        "data series colour",
        "registry key 'JetsonOrinNX'",
        "registry key 'iPhone15Pro'",
    ):
        assert rule in found, (rule, found)
    assert "xaxis ('Parameter count'): k/M/B" not in found  # a count axis may use k/M/B

    fig = finalize(bad_figure())
    fixed = render([fig, mo.Html(f'<p class="ms-chart-alt">{text_alternative(fig)}</p>')])
    assert h.chart_rule_problems(fixed) == []
    layout = fig.layout
    # two decades in view, widened at the nearer end only (not on to 100 GB)
    assert list(layout.yaxis.ticktext) == ["1 GB", "10 GB"]
    assert {sh.line.color for sh in layout.shapes} == {REFERENCE_COLOR}
    assert (
        "Apple iPhone 15 Pro" in layout.title.text and "NVIDIA Jetson Orin NX" in fig.data[0].name
    )
    # the two labels 0.2 GB apart do not sit on each other
    a, b = layout.annotations
    assert (a.xanchor, a.yanchor) != (b.xanchor, b.yanchor)


def test_phone_legend_rule_fires_and_the_kit_keeps_the_plot_tall():
    """Six series (one name long enough to wrap) on a 380 px chart: stacked one per row on a
    phone, the legend leaves the plot under 190 px; ``finalize`` grows the figure instead."""
    import marimo as mo
    import plotly.graph_objects as go

    from mlsysim.labs.charts import finalize, legend_rows, text_alternative

    def many_series():
        fig = go.Figure()
        names = ["FP32", "FP16", "INT8", "weights + KV cache at 4k tokens, batch 8", "A", "B"]
        for k, name in enumerate(names):
            fig.add_trace(go.Scatter(x=[1, 2], y=[k + 1, k + 2], name=name))
        fig.update_layout(title="Memory", xaxis_title="Batch", yaxis_title="Memory (GB)")
        fig.update_layout(height=380, margin=dict(t=55, b=96))
        return fig

    def render(fig, alt=True):
        items = [fig, mo.Html(f'<p class="ms-chart-alt">{text_alternative(fig)}</p>')]
        out = (mo.vstack(items if alt else items[:1]),)
        return h.Run(out, {}, h._render(out))

    bad = " | ".join(h.chart_rule_problems(render(many_series())))
    assert "at phone width the plot keeps" in bad, bad
    fig = finalize(many_series())
    assert legend_rows(fig.data) == 7  # six entries, one wrapped onto a second line
    # title margin + 190 px of plot + x-axis title and ticks (44) + 7 legend lines + padding
    assert fig.layout.height == fig.layout.margin.t + 190 + 44 + 20 * 7 + 8 > 380
    assert not [p for p in h.chart_rule_problems(render(fig)) if "phone" in p]
    one = finalize(go.Figure(go.Scatter(x=[1, 2], y=[1, 2], name="only")))
    assert legend_rows(one.data) == 0 and one.layout.height is None  # no legend: left to Plotly


def test_an_axis_whose_title_names_a_byte_unit_is_labelled_in_it():
    """6.8 part A's "Table bytes (GB, log scale)" axis was labelled as if its values were bytes:
    "1 B, 10 B, 100 B, 1 kB" for 1 GB to 1 TB. Ticks now stay in the title's unit, and the
    harness catches a tick in another unit."""
    import marimo as mo
    import plotly.graph_objects as go

    from mlsysim.labs.charts import figure, finalize, text_alternative

    def chart():
        fig = figure("Tables", "Rows (millions)", "Table bytes (GB, log scale)", log_y=True)
        fig.add_trace(go.Scatter(x=[10, 100, 1000], y=[1.2, 12.0, 980.0], mode="lines", name="t"))
        return fig

    def render(fig):
        alt = mo.Html(f'<p class="ms-chart-alt">{text_alternative(fig)}</p>')
        out = (mo.vstack([fig, alt]),)
        return h.Run(out, {}, h._render(out))

    fig = finalize(chart())
    assert list(fig.layout.yaxis.ticktext) == ["1 GB", "10 GB", "100 GB", "1,000 GB"]
    assert h.chart_rule_problems(render(fig)) == []
    fig.layout.yaxis.ticktext = ["1 B", "10 B", "100 B", "1 kB"]  # what it showed before
    found = " | ".join(h.chart_rule_problems(render(fig)))
    assert "on an axis in GB" in found


def test_thousands_on_a_linear_axis_read_as_numbers():
    """6.5's latency chart labelled its sequence-length axis "0.1×10⁴ ... 1×10⁴"."""
    import marimo as mo
    import plotly.graph_objects as go

    from mlsysim.labs.charts import figure, finalize, text_alternative

    def render(fig):
        alt = mo.Html(f'<p class="ms-chart-alt">{text_alternative(fig)}</p>')
        out = (mo.vstack([fig, alt]),)
        return h.Run(out, {}, h._render(out))

    fig = figure("RNN latency", "Sequence length S (steps)", "Latency (ms)")
    fig.add_trace(go.Scatter(x=[100, 5000, 10000], y=[1.0, 50.0, 100.0], name="10 TFLOP/s"))
    fig.update_xaxes(exponentformat="power")
    fig.layout.meta = {"mlsysim-final": True}  # shown as it was
    found = " | ".join(h.chart_rule_problems(render(fig)))
    assert "xaxis ('Sequence length S (steps)'): thousands shown as a power of ten" in found
    # 1 to 100: plotly's plain numbers (the unfinalized figure's axes also have no range)
    assert not [p for p in found.split(" | ") if "yaxis" in p and "without a range" not in p]
    fig.layout.meta = None
    fig = finalize(fig)
    assert fig.layout.xaxis.tickformat == ","
    assert h.chart_rule_problems(render(fig)) == []
