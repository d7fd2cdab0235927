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


# --------------------------------------------------------------------------------------------
# Category names on a phone's x axis: the phone variant sets their angle and lines itself
# (Plotly's own choice, guessed at, left 6.10 C's plot ~80 px tall and its y-axis title in the
# chart's title, and 6.12 E's likewise: both found by tests/browser/test_phone_charts.py)


def _phone(fig) -> dict:
    return charts.phone_variant(charts.finalize(fig).to_plotly_json())["layout"]


def _bars(names: list[str]):
    fig = charts.figure("Bars", "Thing", "Value")
    fig.add_bar(x=names, y=list(range(1, len(names) + 1)))
    return fig


def test_phone_category_names_that_fit_are_left_alone():
    lay = _phone(_bars(["A", "B", "C"]))
    assert charts.phone_category_ticks([{"type": "bar", "x": ["A", "B", "C"]}]) is None
    assert "tickangle" not in lay["xaxis"] and "ticktext" not in lay["xaxis"]


def test_phone_category_names_wrap_into_their_slots():
    names = ["Xeon E5-2690 (2012 CPU)", "1× GTX 580", "2× GTX 580 (the paper)", "H100 (FP32)"]
    ticks = charts.phone_category_ticks([{"type": "bar", "x": names}], 13.0)
    assert ticks["tickangle"] == 0 and ticks["tickvals"] == names
    slot = charts.PHONE_PLOT_PX / len(names) - charts.TICK_GAP_PX
    for name, text in zip(names, ticks["ticktext"], strict=True):
        lines = text.split("<br>")
        assert " ".join(lines) == name  # every word kept, in order
        assert all(charts.text_size(x, 13.0)[0] <= slot for x in lines)
        assert 1 <= len(lines) <= charts.PHONE_TICK_LINES
    assert "<br>" in ticks["ticktext"][0]


def test_phone_category_names_too_long_to_wrap_are_slanted_or_upright():
    one_line = [f"MobileNetV2-{k}" for k in ("0.35", "0.50", "0.75", "1.00", "1.40")]
    assert charts.phone_category_ticks([{"type": "bar", "x": one_line}]) == {
        "tickangle": charts.PHONE_TICK_SLANT
    }
    # two-line names slanted ran into each other: upright
    two_line = [f"{n}<br>12.11 ms" for n in one_line]
    assert charts.phone_category_ticks([{"type": "bar", "x": two_line}]) == {"tickangle": 90}
    # upright names take their width under the plot, slanted ones less
    up = charts.slanted_ticks_px([{"type": "bar", "x": two_line}])
    slant = charts.slanted_ticks_px([{"type": "bar", "x": one_line}])
    widest = max(charts.text_size(n)[0] for n in one_line)
    assert up == pytest.approx(widest - charts.text_size("x")[1])
    assert 0 < slant < up


@pytest.mark.parametrize(("stem", "part"), [("s06_10_fallacies", "c"), ("s06_12_tradeoffs", "e")])
def test_phone_plot_keeps_its_height_and_the_y_title_fits(stem, part):
    """The two charts whose y-axis title met the title at phone width: the phone variant names
    its tick angle, keeps PHONE_MIN_PLOT_PX of plot, and its y title fits along it."""
    import importlib
    import inspect

    mod = importlib.import_module(f"mlsysim.labs.parts.{stem}")
    fn = getattr(mod, f"part_{part}")
    args = [
        getattr(mod, f"{part.upper()}_{n.upper()}").restore(None)
        for n in inspect.signature(fn).parameters
    ]
    lay = _phone(fn(*args).figure)
    assert lay["xaxis"]["tickangle"] in (0, charts.PHONE_TICK_SLANT, 90)
    assert charts.plot_height(lay) >= charts.PHONE_MIN_PLOT_PX
    room = charts.y_title_room(lay)
    assert max(len(x) for x in lay["yaxis"]["title"]["text"].split("<br>")) <= room


def test_the_lab_template_keeps_plotly_white_for_every_trace_type_drawn():
    """The lab template is built from plotly_white's layout and its defaults for the trace types
    the package draws only (``style.TRACE_TYPES``: validating all 24 types' defaults cost 0.8 s
    of the first chart in the browser, issue 35). Every ``go.<Trace>`` in mlsysim's source is one
    of them, and for each the defaults are plotly_white's; so is every layout default the lab
    template does not set itself."""
    from pathlib import Path

    import plotly.io as pio

    from mlsysim.labs import style

    src = Path(style.__file__).resolve().parents[1]
    drawn = {
        m.lower()
        for f in src.rglob("*.py")
        for m in re.findall(r"\bgo\.([A-Z][A-Za-z]+)\(", f.read_text(encoding="utf-8"))
    } - {"figure"}
    assert drawn == set(style.TRACE_TYPES), drawn
    t = style._template().to_plotly_json()
    white = pio.templates["plotly_white"].to_plotly_json()
    assert set(t["data"]) == set(style.TRACE_TYPES)
    for kind in style.TRACE_TYPES:
        assert t["data"][kind] == white["data"][kind], kind
    own = {
        "paper_bgcolor",
        "plot_bgcolor",
        "font",
        "margin",
        "legend",
        "colorway",
        "xaxis",
        "yaxis",
    }
    for key, value in white["layout"].items():
        if key not in own:
            assert t["layout"][key] == value, key
    # the keys the lab sets keep plotly_white's other settings (an update, not a replacement)
    assert t["layout"]["xaxis"]["ticks"] == white["layout"]["xaxis"]["ticks"]
    assert t["layout"]["font"]["size"] == 13 and t["layout"]["colorway"] == list(style.SERIES)
