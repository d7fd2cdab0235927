"""Hostile text through every component of the kit: nothing becomes live HTML.

Each payload of ``html_safety.HOSTILE`` (script tags, ``<img onerror>``, ``javascript:`` links
inline, as images and as reference definitions, a code-fence break, an attribute break, a lone
surrogate) goes through every function that renders text; the HTML is decoded the way marimo's
frontend decodes it (``html_safety.live_markup``) and must contain no script/img/svg tag, no
``on*`` attribute and no ``javascript:`` URL. Also: cards refuse what a failed computation prints,
and the number formatters refuse negative/non-finite values and format enormous ones sensibly.
"""

from __future__ import annotations

import asyncio
import types
from types import SimpleNamespace

import plotly.graph_objects as go
import pytest

from mlsysim.labs import components as kit
from mlsysim.labs import reports
from mlsysim.labs.state import DesignLedger
from mlsysim.units import ureg

from html_safety import HOSTILE, live_markup, scan, text_of


def _device(name, gb):
    return SimpleNamespace(name=name, memory=SimpleNamespace(capacity=ureg.Quantity(gb * 1e9, "B")))


def _pred(p):
    return kit.Prediction(
        question=p, options={"a": p, "b": "plain option"}, answer="a", feedback={"a": p, "b": p}
    )


def _lab(p):
    lab = types.ModuleType("hostile_lab")
    lab.CHAPTER = p
    lab.PARTS = ("A",)
    lab.PRED_A = _pred(p)
    lab.TRANSFER_A = _pred(p)
    lab.S_PICK = kit.Choice(p, {"x": p, "y": "why"}, "x")
    lab.SYNTHESIS_PROMPT = p
    return lab


def _record(p, tmp_path):
    lab = _lab(p)
    led = DesignLedger(tmp_path / "l.json")
    led.save(
        p,
        answers={"A": "b", "A.transfer": "a"},
        required=["A"],
        widgets={"S_PICK": "x"},
        text={"justification": p},
        student=p,
    )  # a chapter name from the ledger file, too
    led = DesignLedger(tmp_path / "l.json")
    saved = kit.saved(led, lab)
    return asyncio.run(
        kit.record(
            led,
            lab,
            widgets={"pred_a": "b"},
            saved=saved,
            student=kit.student_field(saved),
            justification=kit.justification_field(lab, saved),
            design={p: p},
        )
    )


COMPONENTS = {
    "header": lambda p, _: kit.header(p, p, p, [p]),
    "message": lambda p, _: kit.message(p, p, p),
    "cards": lambda p, _: kit.cards([kit.Card(p, p, p)]),
    "math_peek": lambda p, _: kit.math_peek(p, [p, "x = 1"], note=p),
    "feasibility fits": lambda p, _: kit.feasibility(1e9, _device(p, 80), what=p),
    "feasibility oom": lambda p, _: kit.feasibility(1e12, _device(p, 80), what=p),
    "error_note": lambda p, _: kit.error_note(ValueError(p)),
    "locked_note": lambda p, _: kit.locked_note(p),
    "until_answered": lambda p, _: kit.until_answered([_pred("x").radio()], False, p)[1],
    "plain": lambda p, _: kit.plain(p),
    "prediction radio": lambda p, _: _pred(p).radio(),
    "prediction correct": lambda p, _: _pred(p).respond("a"),
    "prediction wrong": lambda p, _: _pred(p).respond("b", first="a"),
    "answer key": lambda p, _: kit.answer_key(_pred(p)),
    "verdict unlocked": lambda p, _: kit.verdict(_pred(p), "b", unlocked=True),
    "slider": lambda p, _: kit.Slider(p, 0, 10, 5).widget(),
    "choice": lambda p, _: kit.Choice(p, {"a": p, "b": "x"}, "a").widget(),
    "toggle": lambda p, _: kit.Toggle(p).widget(),
    "show": lambda p, _: kit.show(
        kit.View(go.Figure(go.Scatter(x=[1], y=[2])), [kit.Card(p, p, p)], p, p, [p]),
        _pred(p).respond("b"),
    ),
    "record (ledger, student, justification, report buttons)": _record,
    "justification field": lambda p, _: kit.justification_field(_lab(p)),
}


@pytest.mark.parametrize("payload", HOSTILE, ids=[f"payload{i}" for i in range(len(HOSTILE))])
@pytest.mark.parametrize("name", list(COMPONENTS))
def test_hostile_text_stays_inert(name, payload, tmp_path):
    html = COMPONENTS[name](payload, tmp_path).text
    assert live_markup(html, allow_plotly_iframe=(name == "show")) == []


def test_the_checker_finds_live_markup():
    """The checker is not blind: marimo's own markdown of a raw payload is caught."""
    import marimo as mo

    assert live_markup(mo.md(HOSTILE[0]).text) == ["<script>"]
    assert live_markup(mo.callout(mo.md("[x](javascript:alert(1))"), kind="warn").text)
    assert live_markup(mo.accordion({"<img src=x onerror=alert(1)>": mo.md("x")}).text)


def test_authored_markdown_still_renders_and_safe_links_survive():
    html = kit._md("**bold**, `code` and [the chapter](https://mlsysbook.ai/#arch)").text
    tags = [t for t, _ in scan(html).tags]
    assert {"strong", "code", "a"} <= set(tags)
    assert live_markup(html) == []


def test_option_labels_reach_the_frontend_as_text_only():
    """marimo renders radio option labels as text nodes (``data-options``), never as HTML."""
    radio = _pred(HOSTILE[0]).radio()
    s = scan(radio.text)
    assert any(
        sorted(o) == sorted([HOSTILE[0], "plain option"]) for o in s.options
    )  # shown in display_order
    assert "<script>" not in radio.text  # only the JSON-encoded form is there


def test_payload_text_is_still_readable():
    html = kit.locked_note("<b>bold?</b> & [x](javascript:alert(1))").text
    assert "<b>bold?</b> & [x](javascript:alert(1))" in text_of(html)


def test_code_fence_break_cannot_escape_the_math_peek():
    html = kit.math_peek("t", ["```", "<script>alert(1)</script>", "```"]).text
    assert live_markup(html) == []
    assert "<script>alert(1)</script>" in text_of(html)


def test_markdown_report_is_inert(tmp_path):
    """The downloaded Markdown, rendered by marimo's markdown, has nothing live."""
    import marimo as mo

    for p in HOSTILE:
        lab = _lab(p)
        led = DesignLedger(tmp_path / "m.json")
        led.save(p, answers={"A": "b"}, required=["A"], text={"justification": p}, student=p)
        md = reports.to_markdown(reports.build(led, lab))
        assert live_markup(mo.md(md).text) == [], p


# --------------------------------------------------------------------------------------------
# Cards and number formatting
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "NaN%",
        "nan",
        "inf ms",
        "-inf",
        "Infinity s",
        "None",
        "null",
        "undefined",
        "Error: division by zero",
        "Traceback (most recent call last)",
    ],
)
def test_cards_refuse_what_a_failed_computation_prints(value):
    with pytest.raises(ValueError, match="would show"):
        kit.Card("Latency", value)
    with pytest.raises(ValueError, match="would show"):
        kit.Card("Latency", "1 ms", note=value)


@pytest.mark.parametrize("value", ["12.5 ms", "none", "information", "3.1 Infer/s", "0 B"])
def test_cards_accept_ordinary_values(value):
    assert kit.Card("x", value).value == value


@pytest.mark.parametrize(
    "fmt", [kit.fmt_bytes, kit.fmt_count, kit.fmt_time, kit.fmt_rate, kit.fmt_ratio]
)
@pytest.mark.parametrize("bad", [-1, -1e-12, float("nan"), float("inf"), float("-inf"), None, True])
def test_formatters_refuse_negative_and_non_finite(fmt, bad):
    with pytest.raises(ValueError, match="must be"):
        fmt(bad)


def test_formatters_on_enormous_and_tiny_values():
    # 1e30 B = 1e15 PB: past a million of the largest unit, scientific notation
    assert kit.fmt_bytes(1e30) == "1.0e+15 PB"
    assert kit.fmt_bytes(999e18) == "999,000.0 PB"  # still below a million PB: grouped digits
    assert kit.fmt_count(3e20) == "3.0e+08 trillion"  # 3e20 / 1e12
    assert kit.fmt_time(2e12) == "2.00e+12 s"
    assert kit.fmt_time(3e-14) == "3.00e-05 ns"  # 3e-14 s / 1e-9
    assert kit.fmt_ratio(5e12) == "5.0e+12×"
    assert kit.fmt_bytes(0) == "0 B"
    assert kit.fmt_bytes(2**31, binary=True) == "2.0 GiB"
