"""Issue 35's desktop chart regressions, each checked where a student meets it (the notebook run
by the harness, every part shown) and shown to be caught by the harness's chart rules:

- 6.12's time axes in the unit the cards use (Part B's "Time (s)" was hard-coded while its
  cards said ms and µs; Part A's latency axis said s);
- 6.12's Pareto-front line readable on the dark page (#444 was 1.8:1 there);
- 6.7 A's ridge label on at most ``harness.MAX_LABEL_LINES`` lines (it took seven);
- a wide chart's title on the lines its width needs (it wrapped at ~30 characters).
"""

from __future__ import annotations

import re

import marimo as mo
import pytest

from mlsysim.labs import charts
from mlsysim.labs.components import fmt_time
from mlsysim.labs.parts import s06_12_tradeoffs as lab

import harness as h

LABS = h.LABS


def _run(stem: str) -> h.Run:
    path = LABS / f"{stem}.py"
    return h.run(h.load_app(path), unlock=True, path=path)


def _contrast(a: str, b: str) -> float:
    def lum(c: str) -> float:
        rgb = [int(c.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
        lin = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _unit(text: str) -> str:
    """The unit of a time as the cards print it ("7.09 ms" -> "ms")."""
    return text.split()[-1]


@pytest.fixture(scope="module")
def run_612() -> h.Run:
    return _run("s06_12_tradeoffs")


def test_612_every_chart_passes_the_chart_rules(run_612):
    assert h.chart_rule_problems(run_612) == []


@pytest.mark.parametrize(
    ("model", "device", "batch"),
    [("GPT2", "H100", 1), ("ResNet50", "H100", 1), ("ResNet50", "H100", 64), ("GPT2", "H100", 16)],
)
def test_612_b_time_axis_in_the_cards_unit(model, device, batch):
    """Part B's bars in the unit its largest card (the iron law) is printed in, and the bars'
    heights the cards' times in that unit."""
    v = lab.part_b(model, device, batch, False)
    p = lab.iron_law_profile(model, device, batch, False)
    unit = _unit(fmt_time(p.iron_law_s))
    title = v.figure.layout.yaxis.title.text
    assert title == f"Time ({unit})", (title, fmt_time(p.iron_law_s))
    k = {"s": 1, "ms": 1e3, "µs": 1e6, "ns": 1e9}[unit]
    total = sum(t.y[0] for t in v.figure.data)  # bar (1): the iron law's three terms
    assert total == pytest.approx(p.iron_law_s * k)


def test_612_shown_time_axes_never_say_seconds_for_milliseconds(run_612):
    """On the page as a student first sees it: every time axis in the unit of its largest
    value, as the cards print it (the latency axis said s for 0.36 ms)."""
    seen = 0
    for traces, layout in run_612.charts:
        for name in ("xaxis", "yaxis"):
            title = h._title(layout.get(name) or {}).replace("<br>", " ")
            m = re.search(r"(?:[Tt]ime|latency)\b.*\((s|ms|µs|ns)\b", title)
            if not m:
                continue
            vals = [v for t in traces for v in (t.get(name[0]) or ()) if isinstance(v, float)]
            top = max(vals)
            assert 1 <= top < 1000, (title, top)  # the largest value reads as 1 to 999 units
            seen += 1
    assert seen >= 2


def test_612_pareto_front_reads_on_light_and_dark_pages(run_612):
    traces, _ = run_612.charts[0]
    front = next(t for t in traces if t.get("name") == "Pareto front")
    color = front["line"]["color"]
    assert color == lab.PARETO_COLOR
    assert _contrast(color, "#ffffff") >= 3.0  # WCAG 1.4.11, a graphical object
    assert _contrast(color, "#0f172a") >= 3.0  # the dark page (style.LAB_CSS --ms-surface)
    assert _contrast("#444444", "#0f172a") < 3.0  # (the colour it had)


def test_67_ridge_label_on_few_lines():
    r = _run("s06_07_transformers")
    traces, layout = r.charts[0]
    ridge = [a["text"] for a in layout["annotations"] if "ridge" in a["text"]]
    assert ridge and ridge[0].count("<br>") + 1 <= h.MAX_LABEL_LINES, ridge
    assert h.chart_rule_problems(r) == []


def _shown(fig) -> h.Run:
    out = (mo.vstack([fig, mo.Html('<p class="ms-chart-alt">alt</p>')]),)
    return h.Run(out, {}, h._render(out))


def test_the_harness_catches_a_title_wrapped_for_a_phone_and_a_seven_line_label():
    """The two rules that would have failed on the charts as they were."""
    import plotly.graph_objects as go

    text = "Llama-3-8B: memory at batch 1, 4,096-token context (FP16)"
    fig = charts.figure(text, "Context (tokens)", "Memory (GB)")
    fig.add_trace(go.Scatter(x=[1, 2], y=[1, 2], name="a"))
    done = charts.finalize(fig)
    assert not [p for p in h.chart_rule_problems(_shown(done)) if "title on" in p]
    done.layout.title.text = "Llama-3-8B: memory at batch<br>1, 4,096-token context (FP16)"
    found = h.chart_rule_problems(_shown(done))
    assert any("title on 2 lines where 1 fit" in p for p in found), found
    ridge = "sustained<br>ridge<br>point<br>(× efficiency),<br>η = 0.5:<br>148<br>FLOP/B"
    done.add_annotation(text=ridge, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False)
    found = h.chart_rule_problems(_shown(done))
    assert any(f"label on more than {h.MAX_LABEL_LINES} lines" in p for p in found), found
