"""Every size threshold of the chart rules, tested on both sides of it: at N and at N + 1
(issue 38). A rule that depends on a trace's size (markers or not, a table or a range in the
text alternative, a legend or not) or on a label's length (how many ways a line label may be
wrapped) is checked exactly where it changes, so moving the threshold by one fails a test."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from mlsysim.labs import charts, placement
from mlsysim.labs.placement import Frame, text_size

LAYOUT = {"width": 1000, "height": 450, "xaxis": {}, "yaxis": {}}


# --------------------------------------------------------------------------------------------
# Markers: Plotly draws a scatter without a mode as lines+markers under 20 points, lines from 20
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n, markers", [(19, 19), (20, 0)])
def test_a_scatter_without_a_mode_has_markers_below_20_points(n, markers):
    t = {"type": "scatter", "x": list(range(n)), "y": [float(i * i) for i in range(n)]}
    frame = Frame([t], dict(LAYOUT), 900.0)
    assert len(frame.markers()) == markers
    assert len(frame.segments()) == n - 1  # the line is drawn on both sides
    # an explicit mode is obeyed whatever the size
    for mode, has in (("markers", True), ("lines", False)):
        tm = {**t, "mode": mode}
        assert len(Frame([tm], dict(LAYOUT), 900.0).markers()) == (n if has else 0)


@pytest.mark.parametrize("n", [19, 20])
def test_a_label_on_a_default_trace_covers_a_marker_only_where_markers_are_drawn(n):
    """The same label over the same point: 'covers a marker' at 19 points, not at 20."""
    xs = list(range(n))
    data = {"type": "scatter", "x": xs, "y": [0.0] * (n - 1) + [100.0]}
    label = {
        "type": "scatter",
        "mode": "text",
        "x": [n - 1],
        "y": [100.0],
        "text": ["a label here"],
        "textposition": "middle center",
    }
    layout = {**LAYOUT, "xaxis": {"range": [-1, n]}, "yaxis": {"range": [-10, 110]}}
    found = placement.label_problems([data, label], layout, 900.0)
    assert any("marker" in p for p in found) is (n == 19), found


# --------------------------------------------------------------------------------------------
# The legend: none under two entries
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("entries, rows", [(1, 0), (2, 2), (3, 3)])
def test_legend_rows_start_at_two_entries(entries, rows):
    traces = [{"type": "scatter", "name": f"s{i}"} for i in range(entries)]
    assert charts.legend_rows(traces) == rows
    # an entry hidden from the legend does not count towards the two
    hidden = traces + [{"type": "scatter", "name": "h", "showlegend": False}]
    assert charts.legend_rows(hidden) == rows
    # a two-line name takes two rows
    if entries >= 2:
        traces[0]["name"] = "one<br>two"
        assert charts.legend_rows(traces) == rows + 1


# --------------------------------------------------------------------------------------------
# The text alternative: one value, a table of up to 8 categories, a range beyond
# --------------------------------------------------------------------------------------------


def _text_alt(xs, ys) -> str:
    fig = go.Figure(go.Scatter(x=xs, y=ys, name="series"))
    fig.update_layout(title="t", xaxis_title="x", yaxis_title="y")
    return charts.text_alternative(fig)


@pytest.mark.parametrize("n", [8, 9])
def test_text_alternative_lists_up_to_8_categories(n):
    xs = [f"c{i}" for i in range(n)]
    ys = [float(10 + i) for i in range(n)]
    alt = _text_alt(xs, ys)
    if n == 8:
        assert "series: c0 10, c1 11," in alt and "c7 17." in alt
        assert "from 10 to" not in alt
    else:
        assert "series: from 10 to 18 (min 10, max 18)." in alt
        assert "c0 10" not in alt


@pytest.mark.parametrize("n", [1, 2])
def test_text_alternative_names_a_single_value_and_a_range_of_two(n):
    alt = _text_alt([5.0, 6.0][:n], [3.0, 4.0][:n])
    if n == 1:
        assert "series: 3 at 5." in alt and "from" not in alt
    else:
        assert "series: from 3 to 4 (min 3, max 4)." in alt


# --------------------------------------------------------------------------------------------
# Reference traces: a dashed trace of two or more points on one level
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2])
def test_a_dashed_trace_is_a_reference_line_from_two_points(n):
    fig = charts.figure("t", "x", "y")
    fig.add_trace(
        go.Scatter(
            x=[1.0, 2.0][:n], y=[5.0, 5.0][:n], mode="lines", line=dict(dash="dot", color="red")
        )
    )
    out = charts.finalize(fig)
    line = out.data[0].line
    if n == 2:
        assert (line.color, line.width) == (charts.REFERENCE_COLOR, 1.5)
    else:
        assert line.color == "red" and line.width != 1.5


# --------------------------------------------------------------------------------------------
# Axes: every decade ticked up to 8 decades, every other one from 9; whole-number ticks for
# integer data spanning at most 8
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("decades, step", [(7, 1), (8, 1), (9, 2)])
def test_log_axis_ticks_every_decade_up_to_8(decades, step):
    """Data from 10^0 to 10^(decades-1): that many decades in view (the padding adds none)."""
    fig = charts.figure("t", "x", "time (s)", log_y=True)
    fig.add_trace(go.Scatter(x=list(range(decades)), y=[10.0**k for k in range(decades)]))
    ax = charts.finalize(fig).layout.yaxis
    shown = list(range(decades))
    want = [10.0**k for k in shown if k % step == 0]
    assert list(ax.tickvals) == want


@pytest.mark.parametrize("span, dtick", [(8, 1), (9, None)])
def test_integer_data_spanning_at_most_8_gets_whole_ticks(span, dtick):
    fig = charts.figure("t", "layers", "time (s)")
    fig.add_trace(go.Scatter(x=list(range(span + 1)), y=[float(i) + 0.5 for i in range(span + 1)]))
    assert charts.finalize(fig).layout.xaxis.dtick == dtick


@pytest.mark.parametrize("k, text", [(2, "100"), (3, "1k"), (5, "100k"), (6, "1M"), (9, "1B")])
def test_count_axis_decades_take_a_unit_from_a_thousand(k, text):
    fig = charts.figure("t", "x", "parameter count", log_y=True)
    fig.add_trace(go.Scatter(x=[0, 1], y=[10.0 ** (k - 1), 10.0**k]))
    ax = charts.finalize(fig).layout.yaxis
    assert dict(zip(ax.tickvals, ax.ticktext, strict=True))[10.0**k] == text


# --------------------------------------------------------------------------------------------
# Category names on a phone: slanted once they do not fit side by side in PHONE_PLOT_PX
# --------------------------------------------------------------------------------------------


def test_category_names_slant_exactly_when_they_overflow_the_phone_width():
    """Names whose widths (each + 6 px) sum to the phone's plot width fit; one more character
    does not."""
    # 'i' is 0.31 em: find names whose widths sum to exactly PHONE_PLOT_PX where possible, else
    # the widest that fits, and check the next character over it
    names, total = [], 0.0
    while True:
        name = f"n{len(names)}"
        w = text_size(name)[0] + 6
        if total + w > placement.PHONE_PLOT_PX:
            break
        names.append(name)
        total += w
    fits = [{"type": "bar", "x": names, "y": [1.0] * len(names)}]
    assert charts.slanted_ticks_px(fits) == 0.0
    # grow the last name one character at a time: the first that overflows is slanted
    grown = list(names)
    while True:
        grown[-1] += "i"
        s = sum(text_size(n)[0] + 6 for n in grown)
        t = [{"type": "bar", "x": grown, "y": [1.0] * len(grown)}]
        if s > placement.PHONE_PLOT_PX:
            assert charts.slanted_ticks_px(t) > 0.0
            break
        assert charts.slanted_ticks_px(t) == 0.0


@pytest.mark.parametrize("extra", [0.0, 1e-9])
def test_category_names_exactly_filling_the_phone_width_fit(monkeypatch, extra):
    """At exactly PHONE_PLOT_PX of names: not slanted; a hair more: slanted."""
    monkeypatch.setattr(
        charts, "text_size", lambda n, font_px=12.0: ((placement.PHONE_PLOT_PX / 2 - 6), 15.6)
    )
    monkeypatch.setattr(charts, "PHONE_PLOT_PX", placement.PHONE_PLOT_PX - extra)
    t = [{"type": "bar", "x": ["a", "b"], "y": [1.0, 2.0]}]
    assert (charts.slanted_ticks_px(t) > 0) is (extra > 0)


# --------------------------------------------------------------------------------------------
# Reference-line labels: wrapped in two from 13 characters, three from 49; a column beside a
# vertical line from 13
# --------------------------------------------------------------------------------------------


def _texts(text: str, xref: str) -> list[str]:
    a = {
        "text": text,
        "showarrow": False,
        "xref": xref,
        "yref": "y domain" if xref == "x" else "y",
        "x": 1,
        "y": 1,
    }
    return list(dict.fromkeys(o["text"] for o in placement._line_label_options(a)))


def _words(n: int) -> str:
    """A label of exactly n characters: words of 3 letters; from 26 characters, two words of 12
    first (a first line of exactly 25, so wrapping at 24 and at 25 differ)."""
    if n >= 26:
        return "abcdefghijkl abcdefghijkl " + "x" * (n - 26)
    s = " ".join(["abc"] * (n // 4 + 1))
    return s[:n].rstrip() + "x" * (n - len(s[:n].rstrip()))


@pytest.mark.parametrize("n", [12, 13, 48, 49])
def test_line_label_wrappings_by_length(n):
    text = _words(n)
    assert len(text) == n
    horizontal = _texts(text, "paper")
    vertical = _texts(text, "x")
    one_line = [t for t in horizontal if "<br>" not in t]
    assert one_line == [text]
    if n == 12:
        assert horizontal == [text] and vertical == [text]
    else:
        halves = placement.wrap_words(text, max(12, n // 2 + 1))
        want = [text, halves] + ([placement.wrap_words(text, 24)] if n == 49 else [])
        assert horizontal == list(dict.fromkeys(want))
        assert vertical == list(dict.fromkeys(want + [placement.wrap_words(text, 8)]))
        assert all(t.count("<br>") >= 1 for t in horizontal[1:])
        if n >= 48:  # the two wrappings are told apart
            assert placement.wrap_words(text, 24) != halves


# --------------------------------------------------------------------------------------------
# The text alternative reads the first 8 series and the first 6 marked lines
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [8, 9])
def test_text_alternative_reads_the_first_8_series(n):
    fig = go.Figure([go.Scatter(x=[1.0], y=[float(i)], name=f"series{i}") for i in range(n)])
    alt = charts.text_alternative(fig)
    assert all(f"series{i}: {i} at 1." in alt for i in range(8))
    assert "series8" not in alt


@pytest.mark.parametrize("n", [6, 7])
def test_text_alternative_reads_the_first_6_marked_lines(n):
    fig = go.Figure(go.Scatter(x=[1.0, 2.0], y=[1.0, 2.0]))
    for i in range(n):
        fig.add_annotation(text=f"mark{i}", x=1, y=1, showarrow=False)
    alt = charts.text_alternative(fig)
    assert [f"Marked: mark{i}." in alt for i in range(n)] == [True] * 6 + [False] * (n - 6)


# --------------------------------------------------------------------------------------------
# Names and titles wrapped only past their width
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [30, 31])
def test_a_legend_name_is_wrapped_only_past_30_characters(n):
    name = ("abcd " * 10)[: n - 1] + "z"
    assert len(name) == n
    out = charts.wrap_legend_name(name)
    assert ("<br>" in out) is (n == 31)
    assert out.replace("<br>", " ") == name


@pytest.mark.parametrize("extra", [0, 1])
def test_a_y_title_is_wrapped_only_past_the_room_the_plot_has(extra):
    fig = charts.figure("t", "x", "y", height=380)
    fig.add_trace(go.Scatter(x=[1.0, 2.0], y=[1.0, 2.0]))
    room = charts.y_title_room(charts.finalize(fig).layout)  # the plot as finalize draws it
    title = ("word " * 100)[: room + extra - 1] + "z"
    assert len(title) == room + extra
    fig.update_layout(yaxis_title=title)
    text = charts.finalize(fig).layout.yaxis.title.text
    assert ("<br>" in text) is (extra == 1)


# --------------------------------------------------------------------------------------------
# A log axis shows at least two decades
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lo, hi, ticks",
    [
        (2.0, 8.0, [1.0, 10.0]),  # inside one decade: widened to both ends
        (2.0, 30.0, [1.0, 10.0]),  # one decade (10) in view: widened down, the nearer end
        (5.0, 80.0, [10.0, 100.0]),  # one decade (10) in view: widened up, the nearer end
        (1.0, 10.0, [1.0, 10.0]),  # two decades in view (the padding keeps both): left as it is
    ],
)
def test_a_log_axis_is_widened_to_two_decades(lo, hi, ticks):
    fig = charts.figure("t", "x", "time (s)", log_y=True)
    fig.add_trace(go.Scatter(x=[0, 1], y=[lo, hi]))
    assert list(charts.finalize(fig).layout.yaxis.tickvals) == ticks
