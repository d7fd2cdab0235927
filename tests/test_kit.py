"""The kit's number formatting and callout text, checked against hand-formatted values."""

from __future__ import annotations

import html
import json
import re

import pytest

from mlsysim import Hardware
from mlsysim.labs import components as kit
from mlsysim.labs.vocab import superscript

import harness as h


@pytest.mark.parametrize(
    "n, binary, text",
    [
        (1e9, False, "1.0 GB"),
        (1_000_000, False, "1.0 MB"),
        (1_500, False, "1.5 KB"),
        (12, False, "12 B"),
        (12.5, False, "12.5 B"),
        (1000, True, "1,000 B"),
        (2**30, True, "1.0 GiB"),
        (1e9, True, "953.7 MiB"),
        (3 * 2**40, True, "3.0 TiB"),
        (80e9, False, "80.0 GB"),
    ],
)
def test_fmt_bytes_decimal_and_binary(n, binary, text):
    assert kit.fmt_bytes(n, binary=binary) == text


def test_fmt_bytes_rounds_up_into_the_next_unit():
    """The unit is picked after rounding (it showed 999,999 B as "1,000.0 KB")."""
    assert kit.fmt_bytes(999_999) == "1.0 MB" and kit.fmt_bytes(999_949) == "999.9 KB"
    assert kit.fmt_bytes(999_999, digits=3) == "999.999 KB"
    assert kit.fmt_time(0.9999999) == "1.00 s" and kit.fmt_count(999_999_999) == "1.0 billion"


def test_chart_byte_ticks_use_the_cards_units():
    """A byte axis and a card name a size alike: "25 KB" on both (the axis said "kB")."""
    from mlsysim.labs import charts

    for k in range(0, 13):
        tick = charts._decade_text(k, "bytes")
        assert tick.split()[-1] == kit.fmt_bytes(10**k).split()[-1], (k, tick)


def test_fmt_count_time_rate_ratio():
    assert kit.fmt_count(999_999) == "999,999"
    assert kit.fmt_count(1_557_611_200) == "1.6 billion"
    assert (
        kit.fmt_flops(281_474_976_710_656) == "281.5 TFLOP"
    )  # lab06: 128K tokens, not "281,475.0 GFLOP"
    assert kit.fmt_flops(3.4e9) == "3.4 GFLOP" and kit.fmt_flops(0) == "0.0 FLOP"
    assert kit.fmt_time(0.0042) == "4.20 ms"
    assert kit.fmt_time(5e-6) == "5.00 µs"
    assert kit.fmt_rate(989.5e12) == "989.5 TFLOP/s"
    # integer throughput is quoted in operations (TOPS), never as floating-point operations
    assert kit.fmt_rate(624e12, precision="int8") == "624.0 TOP/s"
    assert kit.fmt_rate(2e9, precision="int4") == "2.0 GOP/s"
    assert kit.fmt_rate(2e9, precision="fp16") == "2.0 GFLOP/s"
    assert kit.fmt_ratio(3.14159) == "3.1×"


def _inner(callout) -> str:
    [attr] = re.findall(r"data-html='([^']*)'", callout.text)
    return json.loads(html.unescape(attr))


def test_feasibility_text_against_hand_arithmetic():
    """2 GB on the 80 GB H100: 2.5% of its capacity; 160 GB: 80 GB over, 2.0x."""
    h100 = Hardware.get("H100")
    fits = _inner(kit.feasibility(2e9, h100, "the model"))
    assert "needs 2.0 GB, 2.5% of the" in fits and "80.0 GB" in fits
    oom = _inner(kit.feasibility(160e9, h100, "the model"))
    assert "needs 160.0 GB: 80.0 GB more than" in oom and "(2.0× its capacity)" in oom
    # exactly the capacity fits
    assert "Fits." in _inner(kit.feasibility(80e9, h100))


def test_prediction_respond_names_the_right_answer():
    p = kit.Prediction(
        question="q",
        options={"a": "Alpha", "b": "Beta"},
        answer="a",
        feedback={"a": "yes", "b": "no"},
    )
    assert "Correct." in _inner(p.respond("a"))
    wrong = _inner(p.respond("b"))
    assert "Not quite" in wrong and "Alpha" in wrong and "no" in wrong
    assert p.is_correct("a") and not p.is_correct("b") and not p.is_correct(None)


def test_a_transfer_question_shows_no_locked_note_and_its_verdict_once_answered():
    """After a part's reveal the transfer question is open: unanswered, nothing under it (it
    used to show "Answer the prediction above to unlock this part"); answered, the verdict;
    in instructor mode, the answer key."""
    import marimo as mo

    def shown(out) -> str:  # the callouts' text (each keeps its HTML JSON-encoded) and the rest
        calls = re.findall(r"data-html='([^']*)'", out.text)
        return out.text + "".join(json.loads(html.unescape(a)) for a in calls)

    p = kit.Prediction(
        question="q",
        options={"a": "Alpha", "b": "Beta"},
        answer="a",
        feedback={"a": "yes", "b": "no"},
    )
    radio = mo.ui.radio(options={"Alpha": "a", "Beta": "b"})
    open_ = shown(kit.transfer(p, radio))
    assert "unlock" not in open_ and "Correct." not in open_ and "None" not in open_
    answered = mo.ui.radio(options={"Alpha": "a", "Beta": "b"}, value="Beta")
    assert "Not quite" in shown(kit.transfer(p, answered)) and "Alpha" in _inner(
        kit.transfer(p, answered)
    )
    assert "Alpha" in shown(kit.transfer(p, radio, unlocked=True))  # the answer key


def test_deferred_feedback_is_made_once_when_first_read():
    calls = []

    def make():
        calls.append(1)
        return {"a": "yes", "b": "no, that is the misconception"}

    pred = kit.Prediction(
        question="q", options={"a": "A", "b": "B"}, answer="a", feedback=kit.Deferred(make)
    )
    assert calls == []  # defining the question computed nothing
    assert pred.feedback["b"].startswith("no")
    assert set(pred.feedback) == {"a", "b"} and len(calls) == 1  # made once, then kept


def test_every_lab_prediction_has_feedback_for_each_option():
    """Deferred feedback is checked here, when it is made (a Prediction checks plain feedback
    when it is defined)."""
    import importlib
    import pkgutil

    import mlsysim.labs.parts as parts

    n = 0
    for info in pkgutil.iter_modules(parts.__path__):
        lab = importlib.import_module(f"mlsysim.labs.parts.{info.name}")
        for _, (_, pred) in kit.questions(lab).items():
            assert set(pred.feedback) == set(pred.options), (info.name, pred.question[:40])
            assert all(isinstance(t, str) and t for t in pred.feedback.values())
            n += 1
    assert n > 100


def _all_predictions():
    import importlib
    import pkgutil

    import mlsysim.labs.parts as parts

    for info in pkgutil.iter_modules(parts.__path__):
        lab = importlib.import_module(f"mlsysim.labs.parts.{info.name}")
        for _, (_, pred) in kit.questions(lab).items():
            yield info.name, pred


def test_no_question_writes_a_power_with_a_caret():
    """Powers read as superscripts (0.9⁵⁰, 10⁸, (1 − 1/n)⁸): a caret is code, not text for a
    student (6.8 asked about "10^8 and 10^9 rows"). Every question, option and feedback, and the
    kit's helper for exponents computed at run time."""
    found = [
        f"{name}: …{text[max(0, m.start() - 30) : m.end() + 10]}…"
        for name, pred in _all_predictions()
        for text in (pred.question, *pred.options.values(), *pred.feedback.values())
        for m in h.CARET_POWER.finditer(text)
    ]
    assert found == []
    assert "0.9" + superscript(50) == "0.9⁵⁰" and f"(1 − k/E){superscript('T')}" == "(1 − k/E)ᵀ"
    assert superscript(-21) == "⁻²¹"
    with pytest.raises(ValueError, match=r"exponent='2i/d'.*\['/'\]"):
        superscript("2i/d")
    for bad in (None, True, 1.5, b"1", float("nan")):
        with pytest.raises(ValueError, match="exponent must be a whole number"):
            superscript(bad)


def test_the_right_answer_is_not_always_in_the_same_place():
    """Authors wrote the right answer second in 37 of 62 first predictions (every one of byom's,
    6.8's and 6.13's): 'pick the second' beat thinking. The order shown spreads it."""
    from collections import Counter

    shown = Counter()
    per_lab: dict[str, set[int]] = {}
    for name, pred in _all_predictions():
        order = pred.display_order
        assert sorted(order) == sorted(pred.options)
        pos = order.index(pred.answer)
        shown[len(order), pos] += 1
        if pred.kind == "predict":
            per_lab.setdefault(name, set()).add(pos)
    for n in (3, 4):  # no place holds much more than its 1/n share (it held 60%)
        counts = [shown[n, i] for i in range(n)]
        assert max(counts) / sum(counts) < 0.4 and min(counts) / sum(counts) > 0.15, (n, counts)
    stuck = [n for n, seen in per_lab.items() if len(seen) == 1]
    assert stuck == [], f"every first prediction's answer is in one place in {stuck}"


def test_options_that_lead_with_numbers_are_shown_as_a_scale():
    pred = kit.Prediction(
        "q",
        {"a": "About 140 GB: every weight", "b": "About 0.3 MB: one token", "c": "2 GB"},
        "a",
        {"a": "yes", "b": "no", "c": "no"},
    )
    assert pred.display_order == ("b", "c", "a")  # 0.3 MB < 2 GB < 140 GB
    labels = list(pred.radio().element.options)  # unanswered: behind its commit button
    assert labels == ["About 0.3 MB: one token", "2 GB", "About 140 GB: every weight"]
    words = kit.Prediction(
        "a question", {k: f"option {k}" for k in "wxyz"}, "x", dict.fromkeys("wxyz", "f")
    )
    assert (
        words.display_order
        == kit.Prediction(
            "a question", {k: f"option {k}" for k in "wxyz"}, "x", dict.fromkeys("wxyz", "f")
        ).display_order
    )  # the same on every load


def test_a_memory_line_names_its_device_as_every_other_chart_does():
    """A capacity line's label is the registry's human name (as ``device_label`` gives it to
    dropdowns, cards and vertical lines), with the capacity added once when the name lacks it:
    it used to respace the name's own capacity ("NVIDIA A100 SXM 40 GB" beside byom's "40GB")."""
    import plotly.graph_objects as go

    from mlsysim import Hardware
    from mlsysim.labs.charts import device_label, memory_lines

    for dev in Hardware.all():
        fig = memory_lines(go.Figure(), [dev], unit="GB")
        (label,) = [a.text for a in fig.layout.annotations]
        name = device_label(dev)
        assert label.startswith(name), (label, name)
        assert len(re.findall(r"\d\s?[kKMGT]?i?B\b", label)) == 1, label
    a100 = Hardware.get("A100_40GB")
    assert memory_lines(go.Figure(), [a100]).layout.annotations[0].text == "NVIDIA A100 SXM 40GB"
    iphone = Hardware.get("iPhone15Pro")
    assert (
        memory_lines(go.Figure(), [iphone]).layout.annotations[0].text == "Apple iPhone 15 Pro 8 GB"
    )


def test_the_ridge_label_prints_the_number_the_cards_print():
    """Below 100 FLOP/B the ridge label keeps three figures: the A100 40 GB's FP32 ridge is
    12.5 FLOP/B on the cards and was '13' on the chart."""
    from mlsysim.labs import charts

    dev = Hardware.get("A100_40GB")
    fig = charts.roofline(dev, "fp32", 1.0, [("x", 1.0, 1e12)], title="t")
    texts = [a.text for a in fig.layout.annotations] + [
        t for tr in fig.data for t in (tr.text or ()) if isinstance(t, str)
    ]
    assert any("12.5 FLOP/B" in t for t in texts), texts
    fig = charts.roofline(Hardware.get("H100"), "fp16", 1.0, [("x", 1.0, 1e12)], title="t")
    assert any(
        f"{Hardware.get('H100').ridge_point('fp16').magnitude:,.0f} FLOP/B" in a.text
        for a in fig.layout.annotations
    )


def test_out_of_memory_by_a_few_percent_does_not_read_one_times_the_capacity():
    dev = Hardware.get("JetsonOrinNX")
    cap = dev.memory.capacity.m_as("B")
    text = kit.feasibility(cap * 1.04, dev, "The model").text
    assert "Out of memory" in text and "(1.04× its capacity)" in text
    assert "(3.0× its capacity)" in kit.feasibility(cap * 3, dev, "The model").text


def test_until_answered_gates_a_summary_on_every_prediction():
    """The takeaways/synthesis gate of every lesson (one helper, not a condition per notebook):
    locked while any prediction is unanswered, open once all are or the instructor unlocked the
    lab; its note counts the predictions in words and agrees in number."""
    import marimo as mo

    answered = mo.ui.radio({"a": "a", "b": "b"}, value="a")
    blank = mo.ui.radio({"a": "a", "b": "b"})
    locked, note = kit.until_answered([answered, blank, blank, blank], False, "the takeaways")
    assert locked is True
    assert "Answer all four predictions to unlock the takeaways." in note.text
    assert kit.until_answered([answered, answered], False)[0] is False
    assert kit.until_answered([blank], True)[0] is False  # instructor mode
    one = kit.until_answered([blank], False, "the synthesis")[1].text
    assert "Answer the prediction to unlock the synthesis." in one
    assert "all 12 predictions" in kit.until_answered([blank] * 12, False)[1].text
    with pytest.raises(ValueError, match="radios"):
        kit.until_answered([], False)


def test_out_of_memory_marks_one_style_and_refuses_mismatched_points():
    from mlsysim.labs import charts

    fig = charts.figure("t", "Batch size", "MFU")
    charts.out_of_memory(fig, [], [])
    assert len(fig.data) == 0  # nothing to mark: no empty legend entry
    charts.out_of_memory(fig, [64, 128], [0.0, 0.0], "RNN out of memory")
    [t] = fig.data
    assert (t.name, t.mode, t.marker.symbol, list(t.x)) == (
        "RNN out of memory",
        "markers",
        "x",
        [64, 128],
    )
    with pytest.raises(ValueError, match="xs and ys must be the same length, got 2 and 1"):
        charts.out_of_memory(fig, [1, 2], [0.0])


def test_roofline_writes_integer_precisions_in_operations():
    """An H100 in INT8: 1,979 TOP/s dense / 3.35 TB/s = 590.7 OP/B at the ridge; the axes and the
    ridge label say OP, not FLOP (vendors quote integer throughput as TOPS)."""
    from mlsysim import Hardware
    from mlsysim.labs import charts

    fig = charts.roofline(Hardware.get("H100"), "int8")
    assert fig.layout.xaxis.title.text == "Arithmetic intensity (OP/byte)"
    assert fig.layout.yaxis.title.text == "Attainable TOP/s"
    assert any(a.text.endswith(": 591 OP/B") for a in fig.layout.annotations)
    fp = charts.roofline(Hardware.get("H100"), "fp16")
    assert fp.layout.yaxis.title.text == "Attainable TFLOP/s"


def test_time_axes_use_the_unit_of_their_largest_value():
    """6.3 D on the camera SoC drew bars to 45,190 ms beside a card saying 45.19 s."""
    from mlsysim.labs import charts
    from mlsysim.labs.parts import s06_03_cnns as lab

    assert charts.time_unit([45.19, 3.4]) == (1.0, "s")
    assert charts.time_unit([0.00078, 0.0002]) == (1e6, "µs")
    assert charts.time_unit([0.0123]) == (1e3, "ms") and charts.time_unit([]) == (1e9, "ns")
    for bad in ([-1.0], [float("nan")], None, 5, "123", [True]):
        with pytest.raises(ValueError, match="seconds"):
            charts.time_unit(bad)
    cam = lab.part_d("CortexA53Camera", 1, False).figure
    assert cam.layout.yaxis.title.text == "Latency per batch (s)"
    assert max(max(t.y) for t in cam.data) < 100  # seconds, not thousands of ms
    gpu = lab.part_d("H100", 1, False).figure
    assert gpu.layout.yaxis.title.text == "Latency per batch (µs)"


def test_a_whole_number_axis_ticks_at_whole_numbers():
    """6.3 E's output columns 1-5 were ticked at 1.5, 2.5, …"""
    import plotly.graph_objects as go

    from mlsysim.labs import charts

    fig = charts.figure("t", "Output column", "Response")
    fig.add_trace(go.Scatter(x=[1, 2, 3, 4, 5], y=[0.0, 0.5, 3.0, 0.5, 0.0]))
    out = charts.finalize(fig).to_plotly_json()["layout"]
    assert out["xaxis"]["dtick"] == 1 and "dtick" not in out["yaxis"]  # y is not whole
    wide = charts.figure("t", "GPUs", "Bytes exchanged per batch")
    wide.add_trace(go.Scatter(x=list(range(1, 17)), y=[float(v) for v in range(16)]))
    assert "dtick" not in charts.finalize(wide).to_plotly_json()["layout"]["xaxis"]


def test_titles_are_wrapped_to_fit_a_phone_by_width_not_characters():
    """44 characters of "Embedding tables vs device memory (1 table ×" ran off a 390 px phone
    (the phone test on 6.8); an x-axis title ran past the chart's right edge."""
    import plotly.graph_objects as go

    from mlsysim.labs import charts, placement

    fig = charts.figure(
        "Embedding tables vs device memory (1 table × 128 values per row)",
        "Rows per table (millions, log scale)",
        "Table bytes (GB)",
    )
    fig.add_trace(go.Scatter(x=[1, 10], y=[1, 2], name="a"))
    fig.add_trace(go.Scatter(x=[1, 10], y=[2, 3], name="b"))
    spec = charts.finalize(fig).to_plotly_json()
    out = charts.phone_variant(spec)["layout"]  # what a phone draws
    title, xtitle = out["title"]["text"], out["xaxis"]["title"]["text"]
    assert title == "Embedding tables vs device memory<br>(1 table × 128 values per row)"
    assert xtitle == "Rows per table<br>(millions, log scale)"  # broken before its "("
    for line in title.split("<br>"):
        assert placement.text_size(line, 15)[0] <= charts.PHONE_TITLE_PX
    # the desktop figure keeps the width it has: one line (it wrapped at ~30 characters on a
    # 900 px chart), and a plot taller by the line it saves
    desk = spec["layout"]
    assert (
        desk["title"]["text"] == "Embedding tables vs device memory (1 table × 128 values per row)"
    )
    assert desk["margin"]["t"] == out["margin"]["t"] - 21 and desk["height"] == out["height"]
    assert placement.text_size("Rows per table (millions, log scale)", 15)[0] > 240
    assert charts._wrap_px("Short title", 330) == "Short title"
    eta = charts._wrap_px(
        "GPT-2 XL on the NVIDIA H100 SXM5 80GB: two regimes (FP16, eager, roof at η = 0.5)", 330
    )
    assert "η = 0.5" in eta.replace("<br>", "\n")  # a one-character word stays with the next


def test_a_wide_chart_title_uses_the_width_it_has():
    """Issue 35: "Llama-3-8B: memory at batch / 1, 4,096-token context (FP16)" wrapped at ~30
    characters on a desktop chart. The desktop figure wraps at DESKTOP_TITLE_PX (a chart in a
    half-screen window still holds it); the phone variant at PHONE_TITLE_PX."""
    import plotly.graph_objects as go

    from mlsysim.labs import charts, placement

    text = "Llama-3-8B: memory at batch 1, 4,096-token context (FP16)"
    fig = charts.figure(text, "Context (tokens)", "Memory (GB)")
    fig.add_trace(go.Scatter(x=[1, 2], y=[1, 2], name="a"))
    fig.add_trace(go.Scatter(x=[1, 2], y=[2, 3], name="b"))
    spec = charts.finalize(fig).to_plotly_json()
    assert spec["layout"]["title"]["text"] == text
    phone = charts.phone_variant(spec)["layout"]["title"]["text"]
    assert "<br>" in phone and phone.replace("<br>", " ") == text
    long = "word " * 40
    wrapped = charts.finalize(charts.figure(long, "x", "y")).layout.title.text
    lines = wrapped.split("<br>")
    assert len(lines) > 1
    for line in lines:
        assert placement.text_size(line, 15)[0] <= charts.DESKTOP_TITLE_PX
    assert placement.text_size(lines[0] + " word", 15)[0] > charts.DESKTOP_TITLE_PX - 60


def test_the_first_ticks_of_both_axes_do_not_meet_at_the_corner():
    """6.6 part A at S = 8,192, d_head = 256, FP8: both log axes started at a decade (x widened
    to 100..10,000, y's 10⁴ 0.04 decades above its lower end), so "10⁴" sat on "100"."""
    import plotly.graph_objects as go

    from mlsysim.labs import charts
    from mlsysim.labs.parts import s06_06_attention as lab

    corner = charts.figure("t", "Sequence length S", "MACs (log scale)", log_x=True, log_y=True)
    corner.add_trace(go.Scatter(x=[128, 800], y=[1.6e4, 1.7e10]))  # x widened to 100..1,000
    out = charts.finalize(corner).to_plotly_json()["layout"]
    fx, fy = charts._first_tick_at(out["xaxis"]), charts._first_tick_at(out["yaxis"])
    assert fx < charts.CORNER_X and fy == pytest.approx(charts.CORNER_Y)
    assert out["yaxis"]["tickvals"][0] == 1e4  # the tick kept, the axis started lower
    # 6.6 A itself now starts its x axis at the nearer decade (1,000 is its first tick)
    a66 = charts.finalize(lab.part_a(8192, 256, "fp8").figure).to_plotly_json()["layout"]
    assert charts._first_tick_at(a66["xaxis"]) >= charts.CORNER_X
    # one axis starting clear of the corner leaves the other as the data put it
    fig = charts.figure("t", "Sequence length S", "MACs (log scale)", log_x=True, log_y=True)
    fig.add_trace(go.Scatter(x=[50, 8000], y=[1.1e4, 1e9]))
    lay = charts.finalize(fig).to_plotly_json()["layout"]
    assert charts._first_tick_at(lay["xaxis"]) >= charts.CORNER_X
    assert charts._first_tick_at(lay["yaxis"]) < charts.CORNER_Y


def test_slanted_category_names_keep_the_phone_plot_tall_enough():
    """6.9 D's five candidate names do not fit side by side on a phone, so Plotly slants them
    and took ~50 px from a plot already short by its two-line legend: the y-axis title ran into
    the chart title. The figure now grows by the slant; short names (6.3 C's bars) add nothing."""
    from mlsysim.labs import charts, placement
    from mlsysim.labs.parts import s06_09_choosing as c69

    fig = charts.finalize(c69.part_d("mnv2_075", "int8", 100).figure)
    data, layout = (fig.to_plotly_json()[k] for k in ("data", "layout"))
    slant = charts.slanted_ticks_px(data)
    assert slant > 30
    xt = layout["xaxis"]["title"]["text"]
    bottom = charts.phone_bottom_px(data, xt.count("<br>"))
    m = placement.margins(layout)
    assert layout["height"] - m["t"] - bottom >= charts.PHONE_MIN_PLOT_PX
    assert charts.slanted_ticks_px([{"type": "bar", "x": ["A", "B", "C"], "y": [1, 2, 3]}]) == 0


def test_a_log_axis_short_of_two_decades_widens_at_the_nearer_end():
    """6.10 B's curves run 128-2,048 tokens: the axis took in 100 and 10,000 to show two decade
    ticks and left 40 % of the plot empty; widening the nearer end alone (to 100) gives the two."""
    import math

    from mlsysim.labs import charts
    from mlsysim.labs.parts import s06_10_fallacies as lab

    x = charts.finalize(lab.part_b(2048, "H100").figure).to_plotly_json()["layout"]["xaxis"]
    assert x["tickvals"] == [100.0, 1000.0]
    assert x["range"][0] == 2 and x["range"][1] < math.log10(2048) + 0.1


def test_fmt_ratio_with_significant_digits():
    """6.9 C showed one ratio as 139x, 139.13x and 0.0444x (fixed decimals per card); with
    sig=3 it reads the same way at every size."""
    from mlsysim.labs.components import fmt_ratio

    assert [fmt_ratio(x, sig=3) for x in (139.13, 0.5435, 0.00249, 12_345.6)] == [
        "139×",
        "0.543×",
        "0.00249×",
        "12,346×",
    ]
    assert fmt_ratio(13.64) == "13.6×"  # the default is unchanged
    with pytest.raises(ValueError):
        fmt_ratio(1.0, sig=-1)


def test_palette_has_every_color_the_textbook_lab_uses():
    """An instructor who opens the textbook's own Lab 06 against this package finds every
    COLORS key it reads (issue 35: Surface2 was missing)."""
    import re

    from mlsysim.labs.style import COLORS

    from harness import ROOT

    seed = ROOT.parent / "shared" / "seeds" / "lab06_architecture_tax_reference.py"
    fixture = ROOT / "tests" / "fixtures"
    sources = [p for p in [seed, *fixture.glob("seed_*.py")] if p.exists()]
    used = {k for p in sources for k in re.findall(r"COLORS\['(\w+)'\]", p.read_text("utf-8"))}
    assert "Surface2" in used or not sources
    assert used <= set(COLORS), sorted(used - set(COLORS))
    for v in COLORS.values():
        assert re.fullmatch(r"#[0-9a-f]{6}", v)


def test_marimo_edit_opens_ready_to_use():
    """``marimo edit labs/<notebook>.py`` runs every cell on open (issue 35: marimo 0.25 defaults
    to showing stale session outputs with no cell run, and the first answer's click did nothing)."""
    from marimo._config.manager import get_default_config_manager

    from harness import ROOT

    for nb in ("s06_03_cnns.py", "instructor.py", "byom.py"):
        cfg = get_default_config_manager(current_path=str(ROOT / "labs" / nb)).get_config()
        assert cfg["runtime"]["auto_instantiate"] is True, nb


def test_instructor_mode_shows_where_a_question_lives():
    from mlsysim.labs.components import answer_key, question_source
    from mlsysim.labs.parts import s06_03_cnns as lab

    assert question_source(lab.PRED_B) == ("mlsysim/labs/parts/s06_03_cnns.py", "PRED_B")
    assert question_source(lab.TRANSFER_A) == ("mlsysim/labs/parts/s06_03_cnns.py", "TRANSFER_A")
    text = answer_key(lab.PRED_B).text
    assert "PRED_B" in text and "s06_03_cnns.py" in text and "scripts/rebuild.sh" in text


def test_a_verdict_in_a_cell_of_its_own_shows_the_locked_note_until_answered():
    """The first prediction's verdict cell (issue 35) shows the part's locked note while the
    question is unanswered, the verdict once it is, the answer key in instructor mode."""
    from mlsysim.labs import components as kit
    from mlsysim.labs.parts import s06_03_cnns as lab

    assert kit.verdict(lab.PRED_A, None) is None
    note = kit.verdict(lab.PRED_A, None, locked="Part A").text
    assert "unlock Part A" in note
    answered = kit.verdict(lab.PRED_A, lab.PRED_A.answer, locked="Part A").text
    assert "Correct." in answered and "unlock" not in answered
    key = kit.verdict(lab.PRED_A, None, unlocked=True, locked="Part A").text
    assert "unlock Part A" not in key
