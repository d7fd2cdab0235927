"""Chart labels (mlsysim.labs.placement): what a label runs into, and where finalize moves it.

The case that started it: 6.7 part A's roofline drew "prefill (1,024 tokens)" under the roof,
"decode, launches left out" on the bandwidth slope, and the ridge label ran off the right edge.
"""

from __future__ import annotations

import marimo as mo
import plotly.graph_objects as go
import pytest

from mlsysim import hardware as HW
from mlsysim.labs import charts, placement

import harness as h

W = placement.WIDTHS[0]


def _json(fig):
    d = fig.to_plotly_json()
    return d["data"], d["layout"]


def _problems(fig, width=W):
    return placement.label_problems(*_json(fig), width)


def _problems_at_each_width(fig) -> dict[float, list[str]]:
    return {w: p for w in placement.WIDTHS if (p := _problems(fig, w))}


def _gpt2_roofline():
    """6.7 part A's chart: prefill near the roof, two decode points on the slope, ridge at 148."""
    return charts.roofline(
        HW.Hardware.get("H100"),
        "fp16",
        0.5,
        points=[
            ("prefill (1,024 tokens)", 180.0, 250e12),
            ("decode (1 token)", 1.0, 0.75e12),
            ("decode, launches left out", 1.0, 3.3e12),
        ],
        title="GPT-2 XL on the NVIDIA H100: two regimes",
    )


def test_detects_each_kind_of_problem():
    fig = go.Figure(
        [
            go.Scatter(x=[0, 10], y=[5, 5], mode="lines", name="a line"),
            go.Scatter(
                x=[5, 5.1, 9.9],
                y=[4.9, 4.9, 1],
                mode="markers+text",
                text=["on the line", "next to it", "at the right edge, far too long"],
                textposition="middle center",
            ),
        ]
    )
    fig.update_layout(height=400, xaxis_range=[0, 10], yaxis_range=[0, 10])
    found = " | ".join(_problems(fig))
    assert "'on the line' crossed by a line" in found
    assert "'on the line' overlaps another label" in found
    assert "'next to it' covers a marker" in found
    assert "'at the right edge, far too long' cut off at the edge" in found


def test_a_clear_label_has_no_problem():
    fig = go.Figure(
        [
            go.Scatter(x=[0, 10], y=[1, 1], mode="lines"),
            go.Scatter(
                x=[5], y=[6], mode="markers+text", text=["alone"], textposition="top center"
            ),
        ]
    )
    fig.update_layout(height=400, xaxis_range=[0, 10], yaxis_range=[0, 10])
    assert _problems(fig) == []


def test_the_roofline_labels_collide_before_placement_and_not_after():
    raw = _gpt2_roofline()
    charts.place_line_labels(raw)  # annotations to log10, as finalize does first
    before = " | ".join(_problems(raw))
    assert "'prefill (1,024 tokens)' crossed by a line" in before
    assert "'decode, launches left out' crossed by a line" in before
    assert "ridge point" in before and "cut off at the edge" in before
    fig = charts.finalize(_gpt2_roofline())
    assert _problems_at_each_width(fig) == {}
    # the points keep their labels: room was found for each
    assert [list(t.text) for t in fig.data[1:]] == [
        ["prefill (1,024 tokens)"],
        ["decode (1 token)"],
        ["decode, launches left out"],
    ]


def test_finalize_gives_the_axes_the_ranges_it_placed_for():
    fig = charts.finalize(_gpt2_roofline())
    f = placement.Frame(*_json(fig), W)
    assert list(fig.layout.xaxis.range) == pytest.approx(f.ranges["x"])
    assert list(fig.layout.yaxis.range) == pytest.approx(f.ranges["y"])


def test_a_label_with_no_clear_place_is_left_out_but_still_hovers():
    """Five labels on one spot: at most a few fit; the rest leave the text to hover."""
    names = [f"point number {i}" for i in range(8)]
    fig = charts.figure("crowded", "x value", "y value")
    for n in names:
        fig.add_trace(go.Scatter(x=[5.0], y=[5.0], mode="markers+text", text=[n], name=n))
    fig.add_trace(go.Scatter(x=[0, 10], y=[0, 10], mode="lines", name="diagonal"))
    fig = charts.finalize(fig)
    assert _problems(fig) == []
    shown = [t.text[0] for t in fig.data[:-1] if t.text[0]]
    hidden = [t for t in fig.data[:-1] if not t.text[0]]
    assert shown and hidden
    assert all(t.hovertext[0] == t.name for t in hidden)


def test_a_line_label_with_no_clear_place_gets_a_ground():
    """A device line low on a chart crowded with data lines: every corner is crossed, so the
    label is drawn on its own background (the kit's CSS gives it the dark theme's colour)."""
    fig = charts.figure("memory against context", "context (tokens)", "memory (GB)")
    xs = list(range(0, 70, 5))
    for k in (1, 3, 6, 9):
        fig.add_trace(go.Scatter(x=xs, y=[70 + k * x / 10 for x in xs], mode="lines", name=f"m{k}"))
    fig.add_trace(go.Scatter(x=xs, y=[78 + (x % 10) for x in xs], mode="lines", name="zigzag"))
    fig.add_hline(y=80, line_dash="dash", annotation_text="NVIDIA H100 SXM5 80 GB")
    fig = charts.finalize(fig)
    ann = fig.layout.annotations[0]
    assert ann.bgcolor == placement.LABEL_GROUND
    assert _problems(fig) == []
    assert "fill-opacity: 0.85" in charts_css()


def charts_css() -> str:
    from mlsysim.labs import style

    return str(style.LAB_CSS)


def test_the_harness_reports_label_problems():
    fig = charts.roofline(
        HW.Hardware.get("H100"), "fp16", 0.5, points=[("prefill (1,024 tokens)", 180.0, 250e12)]
    )
    charts.place_line_labels(fig)
    fig.data[1].textposition = "top center"  # under the roof, as the 6.7 chart had it
    fig.layout.meta = {"mlsysim-final": True}  # shown as is (finalize skips a finished figure)
    out = (mo.vstack([fig, mo.Html('<p class="ms-chart-alt">alt</p>')]),)
    found = " | ".join(h.chart_rule_problems(h.Run(out, {}, h._render(out))))
    assert "label 'prefill (1,024 tokens)' crossed by a line" in found
    assert "ridge point" in found and "cut off at the edge" in found


def test_a_figure_carries_its_phone_variant_with_labels_placed_for_a_phone():
    """Issue 35: the page's CSS rule that was to hide point labels on a phone never reached
    inside marimo's chart element, so 6.7 A's roofline drew "prefill (1,02" cut at the edge and
    "decode, launches left out" over the ridge label. The figure now carries a phone variant
    (layout.meta), its labels placed for a phone, which the site swaps in (placed for
    placement.PHONE_LABEL_PX, a 360 px phone's plot)."""
    fig = charts.roofline(
        HW.Hardware.get("H100"),
        "fp16",
        0.5,
        points=[
            ("prefill (1,024 tokens)", 180.0, 250e12),
            ("decode (1 token)", 1.0, 2e12),
            ("decode, launches left out", 1.0, 3e12),
        ],
    )
    spec = charts.finalize(fig).to_plotly_json()
    assert charts.PHONE_KEY in spec["layout"]["meta"]
    phone = charts.phone_variant(spec)
    assert placement.label_problems(phone["data"], phone["layout"], placement.PHONE_LABEL_PX) == []
    # the desktop figure, drawn at a phone's width, has them (what the phone saw before)
    assert placement.label_problems(spec["data"], spec["layout"], placement.PHONE_PLOT_PX)
    assert placement.label_problems(spec["data"], spec["layout"], W) == []
    assert ".textpoint { display: none" not in charts_css()  # (it never reached the chart)
    # one rule: a figure without a patch is drawn as it is; a bad spec is named
    plain = charts.finalize(charts.figure("t", "x", "y")).to_plotly_json()
    assert charts.phone_variant(plain)["layout"] == plain["layout"]
    with pytest.raises(ValueError, match="spec must be a figure's JSON"):
        charts.phone_variant([])


def test_wrapped_labels_keep_short_words_and_numbers_with_the_next():
    text = "sustained ridge point (× efficiency), η = 0.5: 148 FLOP/B"
    assert placement.wrap_words(text, 24) == (
        "sustained ridge point<br>(× efficiency), η = 0.5:<br>148 FLOP/B"
    )
    # the chart title rule keeps a number with its unit
    wrapped = charts._wrap_px("a budget of 16 B/param for the whole model, optimizer included", 150)
    lines = wrapped.split("<br>")
    assert len(lines) > 2 and any("16 B/param" in line for line in lines), wrapped
    assert all(placement.text_size(line, 15)[0] <= 150 for line in lines)


def test_a_line_label_is_kept_off_the_bars():
    """6.10's "ResNet-50" reference label sat on the ViT-L/16 bars at the right."""
    fig = charts.figure("Cost relative to ResNet-50", "Model", "× ResNet-50", log_y=True)
    models = ["MobileNetV2", "ResNet-50", "ViT-B/16", "ViT-L/16"]
    for name, ys in (("parameters", [0.14, 1, 3.4, 12]), ("FLOPs", [0.07, 1, 4.3, 15])):
        fig.add_trace(go.Bar(x=models, y=ys, name=name))
    fig.add_hline(y=1, line_dash="dot", annotation_text="ResNet-50")
    raw = go.Figure(fig)
    charts.place_line_labels(raw)
    assert any("sits on a bar" in p for p in _problems(raw))
    fig = charts.finalize(fig)
    assert _problems(fig) == []
    assert fig.layout.annotations[0].xanchor == "left"  # moved to the left, above the line


def test_a_line_label_under_the_plot_is_moved_off_the_tick_labels():
    """byom's memory chart put every other device label under the plot, over the x ticks."""
    fig = charts.figure("Llama-3-8B memory", "Bytes (GB)", "")
    fig.add_trace(go.Bar(x=[16.1], y=["Llama-3-8B"], orientation="h", name="weights"))
    fig.add_trace(go.Bar(x=[0.5], y=["Llama-3-8B"], orientation="h", name="KV cache"))
    fig.update_layout(barmode="stack")
    fig.add_vline(x=40, line_dash="dash", annotation_text="NVIDIA A100 SXM 40GB")
    fig.layout.annotations[0].update(y=0, yanchor="top", xanchor="center")  # as it was
    raw = go.Figure(fig)
    assert any("cut off at the edge" in p for p in _problems(raw))
    fig = charts.finalize(fig)
    assert _problems(fig) == []
    a = fig.layout.annotations[0]
    assert (a.y, a.yanchor) in ((0, "bottom"), (1, "top"))  # inside the plot


def test_stacked_bars_are_obstacles_up_to_their_total():
    fig = go.Figure(
        [
            go.Bar(x=[10.0], y=["m"], orientation="h", name="a"),
            go.Bar(x=[6.0], y=["m"], orientation="h", name="b"),
        ]
    )
    fig.update_layout(barmode="stack", height=400)
    f = placement.Frame(*_json(fig), W)
    (a, b) = f.bars()
    assert a[2] == pytest.approx(b[0])  # the second bar starts where the first ends
    assert f.ranges["x"][1] > 16  # the range reaches the stack's total


def test_a_y_axis_title_longer_than_the_plot_is_wrapped():
    """6.4's "Gradient norm (output gradient = 1, log scale)" ran up into the chart title."""
    title = "Gradient norm (output gradient = 1, log scale)"
    fig = charts.figure("Gradient reaching each layer", "Layer", title, log_y=True)
    fig.add_trace(go.Scatter(x=[1, 50], y=[1e-30, 1], name="plain"))
    fig.add_trace(go.Scatter(x=[1, 50], y=[1, 1], name="residual"))
    raw = go.Figure(fig)
    raw.layout.meta = {"mlsysim-final": True}
    out = (mo.vstack([raw, mo.Html('<p class="ms-chart-alt">alt</p>')]),)
    found = " | ".join(h.chart_rule_problems(h.Run(out, {}, h._render(out))))
    assert "y-axis title" in found and "longer than the plot" in found
    fig = charts.finalize(fig)
    lines = fig.layout.yaxis.title.text.split("<br>")
    assert len(lines) == 2 and " ".join(lines) == title
    assert all(len(x) <= charts.y_title_room(fig.layout) for x in lines)


def test_charts_the_placement_does_not_handle_are_left_as_they_are():
    """A date axis, and values no chart can draw (NaN, inf, zero on a log axis): no error, no
    move, no problem invented."""
    dated = go.Figure(
        go.Scatter(x=["2024-01-01", "2024-06-01"], y=[1, 2], mode="markers+text", text=["a", "b"])
    )
    dated.update_xaxes(type="date")
    spec = dated.to_plotly_json()
    placement.place_labels(spec["data"], spec["layout"])
    assert spec == dated.to_plotly_json()
    assert placement.label_problems(*_json(dated), W) == []
    odd = charts.figure("odd values", "x value", "y value", log_y=True)
    odd.add_trace(
        go.Scatter(
            x=[1.0, float("nan"), 3.0, 4.0],
            y=[0.0, 5.0, float("inf"), 10.0],
            mode="markers+text",
            text=["zero", "nan", "inf", "fine"],
        )
    )
    odd = charts.finalize(odd)  # no error
    assert _problems(odd) == []


@pytest.mark.parametrize(
    "position",
    ["top left", "top right", "bottom left", "bottom right", "top", "bottom", "left", "right"],
)
@pytest.mark.parametrize("axis", ["x", "y"])
def test_reference_lines_are_the_ones_plotly_draws(axis, position):
    """``charts.hline``/``vline`` add the shape and label Plotly's ``add_hline``/``add_vline``
    add (the ground truth), in a fraction of the time, the label set ``LINE_GAP`` px off its
    line where it sits beside it (Plotly's touched the dashes)."""
    ours, plotlys = (go.Figure(go.Scatter(x=[1, 100], y=[1, 100])) for _ in range(2))
    for value, text in ((3.0, "first line"), (40, "second")):
        getattr(charts, f"{'h' if axis == 'y' else 'v'}line")(
            ours, value, text, dash="dot", position=position
        )
        getattr(plotlys, f"add_{'h' if axis == 'y' else 'v'}line")(
            **{axis: value},
            line_dash="dot",
            line_color=charts.REFERENCE_COLOR,
            annotation_text=text,
            annotation_position=position,
        )
    mine = ours.to_dict()
    gaps = [(a.pop("xshift", None), a.pop("yshift", None)) for a in mine["layout"]["annotations"]]
    assert mine == plotlys.to_dict()
    beside = position not in (("top", "bottom") if axis == "x" else ("left", "right"))
    away = -1 if ("left" in position if axis == "x" else "bottom" in position) else 1
    want = (away * placement.LINE_GAP, None) if axis == "x" else (None, away * placement.LINE_GAP)
    if axis == "y" and position.endswith(" left"):  # clear of the tick labels left of the plot
        want = (placement.TICK_GAP, want[1])
    assert gaps == [want if beside else (None, None)] * 2


def test_a_reference_line_refuses_what_it_cannot_draw():
    fig = go.Figure()
    with pytest.raises(ValueError, match=r"position='middle'.*'bottom left'"):
        charts.hline(fig, 1.0, "x", position="middle")
    with pytest.raises(ValueError, match=r"y=nan: a reference line needs a finite real number"):
        charts.hline(fig, float("nan"), "x")
    with pytest.raises(ValueError, match=r"x='10'"):
        charts.vline(fig, "10", "x")
    assert fig.layout.shapes == () and fig.layout.annotations == ()


def test_finalize_leaves_its_input_as_it_was_and_is_idempotent():
    raw = _gpt2_roofline()
    before = raw.to_dict()
    done = charts.finalize(raw)
    assert raw.to_dict() == before  # the input is not changed
    assert done is not raw and done.layout.meta["mlsysim-final"] is True
    assert charts.finalize(done) is done  # a finished figure is shown as it is
    # the result reads like any figure: ranges set, labels placed, the ridge label in log10
    assert done.layout.xaxis.range is not None and done.layout.yaxis.range is not None
    ridge = next(a for a in done.layout.annotations if "ridge" in a.text)
    assert 2 < ridge.x < 2.3  # log10(148 FLOP/B)


def test_parts_draw_reference_lines_with_the_kit():
    """Plotly's ``add_hline``/``add_vline`` cost ~5 ms a line in CPython (several times that in
    the browser, on every slider step): parts and notebooks use ``charts.hline``/``vline``."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = [
        *sorted((root / "mlsysim" / "labs" / "parts").glob("*.py")),
        *(root / "labs").glob("*.py"),
    ]
    found = [
        f"{f.relative_to(root)}:{n}"
        for f in files
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
        if ".add_hline(" in line or ".add_vline(" in line
    ]
    assert files and found == []


def test_numpy_arrays_keep_the_chart_rules():
    """``to_dict`` writes a numpy array as base64 (``{"dtype", "bdata"}``): finalize reads it as
    numbers (decades on a log axis, numeric ranges), and numpy scalars draw reference lines."""
    np = pytest.importorskip("numpy")
    fig = charts.figure("memory", "Batch size", "Memory (GB)", log_y=True)
    fig.add_trace(
        go.Scatter(
            x=np.array([1.0, 2, 4]),
            y=np.array([3e9, 3e10, 3e11]),
            mode="lines+markers+text",
            text=np.array(["a", "b", "c"]),
            customdata=np.arange(6).reshape(3, 2),
        )
    )
    charts.hline(fig, np.float32(1e10), "line", position="top left")
    charts.vline(fig, np.int64(2), "other")
    done = charts.finalize(fig)
    assert list(done.layout.yaxis.tickvals) == [1e10, 1e11]  # decades of 3e9 ... 3e11
    assert [list(r) for r in done.data[0].customdata] == [[0, 1], [2, 3], [4, 5]]
    assert list(done.data[0].x) == [1.0, 2.0, 4.0]
    f = placement.Frame(*_json(done), W)
    assert f.cats == {"x": None, "y": None} and f.ok


def test_device_lines_close_together_are_labelled_at_the_narrow_width_too():
    """byom's memory chart at a 560 px plot: "Apple iPhone 15 Pro" (8 GB) sat left of the plot,
    its only corners between the 8 and 16 GB lines too narrow for it. Its label now goes in a
    narrow column beside the line, or just above the plot."""
    fig = charts.figure("Llama-3-8B memory", "Bytes (GB)", "")
    fig.add_trace(go.Bar(x=[16.1], y=["Llama-3-8B"], orientation="h", name="weights"))
    fig.add_trace(go.Bar(x=[0.5], y=["Llama-3-8B"], orientation="h", name="KV cache"))
    fig.update_layout(barmode="stack", bargap=0.45)
    for cap, name in ((80, "NVIDIA H100 SXM5 80GB"), (16, "NVIDIA Jetson Orin NX 16GB")):
        charts.vline(fig, cap, name)
    charts.vline(fig, 8, "Apple iPhone 15 Pro", position="bottom left")
    narrow = placement.WIDTHS[1]
    assert any("cut off" in p for p in _problems(fig, narrow))  # where it was put
    done = charts.finalize(fig)
    assert _problems_at_each_width(done) == {}


def test_a_horizontal_line_label_crowded_at_both_ends_goes_to_the_middle():
    """6.9's "fetch = arithmetic" line at 1: a series starts on it at the left and another
    crosses it at the right, so every corner covers a marker or a line; its middle is clear."""
    fig = charts.figure("fetch ÷ MAC energy", "Batch size", "ratio", log_x=True, log_y=True)
    xs = [2**k for k in range(9)]
    fig.add_trace(go.Scatter(x=xs, y=[213 / x for x in xs], mode="lines+markers", name="dense"))
    fig.add_trace(go.Scatter(x=xs, y=[1.09 / x for x in xs], mode="lines+markers", name="conv"))
    charts.hline(fig, 1.0, "fetch = arithmetic", dash="dot", position="top left")
    done = charts.finalize(fig)
    assert _problems_at_each_width(done) == {}
    assert done.layout.annotations[0].x == 0.5  # Plotly's "top"/"bottom" of a horizontal line
    traces, layout = _json(done)
    for corner in ("top left", "top right", "bottom left", "bottom right"):
        layout["annotations"][0].update(placement.LINE_LABEL["y", corner])
        assert placement.label_problems(traces, layout, W) != [], corner


def test_two_labels_in_each_others_way_are_moved_together():
    """A label that moving alone cannot clear (each of its places runs into the other label's
    place) is moved together with that label: the search alone stops at a local minimum."""
    a1, a2 = (0, 0, 10, 10), (12, 0, 22, 10)  # a2 runs into b1
    b1, b2 = (5, 0, 15, 10), (-7, 0, 3, 10)  # b2 runs into a1
    slots = [
        (("point", 0, 0), [("a1", [(a1, ("point", 0, 0))]), ("a2", [(a2, ("point", 0, 0))])]),
        (("point", 1, 0), [("b1", [(b1, ("point", 1, 0))]), ("b2", [(b2, ("point", 1, 0))])]),
    ]

    def cost(boxes, others):
        return sum(placement._overlap(boxes[0][0], o) for o in others[0])

    choice, costs = [0, 0], [1.0, 1.0]
    for s, other in ((0, 1), (1, 0)):  # neither moves alone
        theirs = [[slots[other][1][choice[other]][1][0][0]]]
        assert all(cost(c[1], theirs) == 1 for c in slots[s][1])
    placement._search_jointly(slots, choice, costs, cost, [2.0])
    assert choice == [1, 1] and costs == [0, 0]


def test_an_axis_is_widened_once_by_what_a_label_needs():
    """A label 100 px long beside a point 500 px along a 560 px axis ends 2 px inside it once
    the axis is 9.17 % longer: the point moves to 500 / 1.0917 = 458 px. (The widening used to
    be the overshoot alone, 7.3 %, and three passes left 6.7's longest label cut off.)"""
    widen = placement._widening(500, 100, 560)
    assert widen == pytest.approx(500 / 458 - 1)
    assert 500 / (1 + widen) + 100 == pytest.approx(558)
    assert placement._widening(400, 100, 560) == 0  # fits already
    # never more than WIDEN_MAX in one pass (a longer label, or one longer than the plot)
    assert placement._widening(500, 300, 560) == placement.WIDEN_MAX
    assert placement._widening(500, 600, 560) == placement.WIDEN_MAX
    fig = charts.figure("a long label at the right", "x", "y")
    fig.add_trace(
        go.Scatter(
            x=[1, 2, 9.6],
            y=[1, 5, 3],
            mode="markers+text",
            text=["", "", "the longest context whose weights + KV fit"],
            textposition="middle right",
        )
    )
    done = charts.finalize(fig)
    assert _problems_at_each_width(done) == {}


#: Widths (px) Chromium gives these labels at 13 px in the kit's font stack, rendered on this
#: machine in DejaVu Sans (the widest common fallback; measured 2026-12-03, SVG
#: getComputedTextLength)
RENDERED_13PX = {
    "DLRM": 37.5,
    "KWS DS-CNN": 84.8,
    "NVIDIA H100 SXM5 80GB": 164.4,
    "LM / MLM head": 97.4,
    "bar 60%": 54.6,
    "MobileNetV2 ×1.4": 118.3,
    "sustained ridge point": 137.8,
}


@pytest.mark.parametrize("text", sorted(RENDERED_13PX))
def test_a_label_is_estimated_no_narrower_than_it_renders(text):
    """A label's box is what the placement keeps clear: estimated from an average character,
    "DLRM" came out at 28 px where it takes 38 (and was cut off at the edge in a screenshot)."""
    width, height = placement.text_size(text, 13)
    assert RENDERED_13PX[text] * 0.97 <= width <= RENDERED_13PX[text] * 1.12
    assert height == pytest.approx(13 * placement.LINE_EM)


def test_text_takes_the_template_font_size():
    """The kit's template sets 13 px: a point label with no size of its own is drawn at 13."""
    fig = charts.figure("t", "x", "y")
    fig.add_trace(go.Scatter(x=[1, 2], y=[1, 2], mode="markers+text", text=["DLRM", ""]))
    traces, layout = _json(fig)
    assert placement.font_px(layout) == 13
    frame = placement.Frame(traces, layout, W)
    ((_, box, _),) = frame.labels()
    assert box[2] - box[0] == pytest.approx(placement.text_size("DLRM", 13)[0])
    assert placement.font_px({}) == placement.FONT_PX
    # a template named, not spelled out, or a size that is not one: Plotly's default
    assert placement.font_px({"template": "plotly", "font": {"size": True}}) == placement.FONT_PX


def test_a_joint_move_that_crowds_a_label_outside_its_group_is_undone():
    """The joint search charges a group member for landing on a label outside the group, but
    not that label for being landed on: a move that lowers the group's cost can raise the
    total. Such a move is taken back. Here S (one place) is on q; q's other places land on r1
    and r2 together, or on nine labels whose own groups are too big to search."""
    s_box, q1, q2 = (0, 0, 10, 10), (5, 0, 15, 10), (100, 0, 110, 10)
    r1, r2 = (95, 0, 105, 10), (105, 0, 115, 10)
    fillers = [(200 + 20 * i, 0, 210 + 20 * i, 10) for i in range(9)]
    wide = (195, 0, 400, 10)

    def slot(k, *boxes):
        return (("point", k, 0), [(b, [(b, ("point", k, 0))]) for b in boxes])

    slots = [slot(0, s_box), slot(1, q1, q2, wide), slot(2, r1, wide), slot(3, r2, wide)]
    slots += [slot(4 + i, f) for i, f in enumerate(fillers)]

    def cost(boxes, others):
        return 2.0 * any(placement._overlap(placement._inner(boxes[0][0]), o) for o in others[0])

    def costs_of(choice):
        return [
            cost(
                slots[s][1][choice[s]][1],
                [[slots[q][1][choice[q]][1][0][0] for q in range(len(slots)) if q != s]],
            )
            for s in range(len(slots))
        ]

    choice = [0] * len(slots)
    costs = costs_of(choice)
    assert sum(costs) == 4
    placement._search_jointly(slots, choice, costs, cost, [2.0])
    assert sum(costs) <= 4 and costs == costs_of(choice)


def test_bars_at_numbers_keep_both_edges_in_view():
    """Bars at x = 1, 2, 3 are 0.8 wide: the placement's range spans their edges (it took the
    data +-5 %, [0.9, 3.1], and cut the first and last bar in half); a year as a horizontal
    bar's position gets no thousands comma ("2,019")."""
    fig = charts.figure("bars at numbers", "x", "y")
    fig.add_trace(go.Bar(x=[1, 2, 3], y=[4, 5, 6]))
    fig.add_trace(go.Scatter(x=[2], y=[5.5], mode="markers+text", text=["peak"]))
    lo, hi = charts.finalize(fig).layout.xaxis.range
    assert lo <= 0.6 and hi >= 3.4
    years = charts.figure("by year", "Spend (USD)", "Year")
    years.add_trace(go.Bar(x=[3.0, 4.0], y=[2019, 2020], orientation="h"))
    assert charts.finalize(years).layout.yaxis.tickformat is None


def test_a_text_list_shorter_than_the_points_labels_only_those_it_names():
    fig = charts.figure("short text", "x", "y")
    fig.add_trace(
        go.Scatter(
            x=[1, 2, 3, 4],
            y=[1, 2, 3, 4],
            mode="markers+text",
            text=["one", "two"],
            textposition=["top center"],
        )
    )
    done = charts.finalize(fig)  # no IndexError
    traces, layout = _json(done)
    texts = [t for t, _, _ in placement.Frame(traces, layout, W).labels()]
    assert texts == ["one", "two"]


def test_wrapping_never_breaks_inside_a_tag():
    text = "a <span style='color:red'>red word</span> here"
    wrapped = placement.wrap_words(text, 8)
    assert "<span style='color:red'>" in wrapped and wrapped.count("<br>") >= 2


def test_a_log_axis_with_an_open_range_is_ticked_from_the_data():
    """A range with a None end (Plotly's "autorange this end") on a log axis raised TypeError."""
    fig = charts.figure("open range", "x", "y", log_y=True)
    fig.add_trace(go.Scatter(x=[1, 2, 3], y=[1, 100, 1e4]))
    fig.update_layout(yaxis_range=[None, 5])
    ticks = charts.finalize(fig).layout.yaxis.tickvals
    assert ticks is not None and min(ticks) <= 1 and max(ticks) >= 1e4


def test_a_label_left_on_its_own_point_covers_it():
    """Plotly draws a point's text centred on the point when no textposition is given; the
    placement counted only other points' markers, so it kept that place (6.9's synthesis drew
    'Tabular MLP ... on Arduino Nano 33 BLE Sense' across its own marker). Now a label on
    its own marker is a problem, and the placement moves it off."""
    fig = charts.figure("t", "x (log scale)", "energy (J)", log_x=True)
    fig.add_trace(
        go.Scatter(x=[1e-4, 1e-2], y=[1.0, 2.0], mode="markers+text", text=["first", "second"])
    )
    raw = fig.to_plotly_json()
    assert any(
        "covers a marker" in p for p in placement.label_problems(raw["data"], raw["layout"], W)
    )
    done = charts.finalize(fig)
    assert _problems(done) == []
    assert "middle center" not in str(done.data[0].textposition)


def test_every_chart_a_student_first_meets_has_clear_labels_on_a_phone():
    """Each chart's phone variant (charts.phone_variant: what the site draws at 640 px and
    under) has no label cut off, crossed or overlapping at a phone's plot width
    (placement.PHONE_LABEL_PX), point labels included (before: line labels only, at half weight,
    with two known failures, and every point label drawn where the desktop placed it), on the
    states a student first meets with every part shown; the desktop figure stays clean."""
    found = []
    for path in h.NOTEBOOKS:
        r = h.run(h.load_app(path), unlock=True, path=path)
        for i, (traces, layout) in enumerate(r.charts):
            phone = charts.phone_variant({"data": traces, "layout": layout})
            p = placement.label_problems(phone["data"], phone["layout"], placement.PHONE_LABEL_PX)
            found += [(path.stem, i, x) for x in p]
            assert placement.label_problems(traces, layout, W) == [], (path.stem, i)
    assert found == []
