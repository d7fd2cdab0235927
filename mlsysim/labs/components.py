"""The lab component library: every piece of HTML a notebook shows comes from here.

Text that reaches HTML is escaped; styling is by CSS class (``style.LAB_CSS``), never inline.
marimo is imported lazily so that ``import mlsysim`` never needs it.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "Prediction",
    "Fact",
    "fact",
    "Card",
    "header",
    "message",
    "cards",
    "math_peek",
    "feasibility",
    "error_note",
    "locked",
    "locked_any",
    "locked_note",
    "unlock_requested",
    "fmt_bytes",
    "fmt_count",
    "fmt_time",
    "fmt_rate",
    "fmt_ratio",
    "Slider",
    "Choice",
    "Toggle",
    "View",
    "show",
    "record",
]


def _mo():
    import marimo as mo

    return mo


def _e(text) -> str:
    return html.escape(str(text), quote=True)


# --------------------------------------------------------------------------------------------
# Number formatting (one place, so every notebook shows units the same way)
# --------------------------------------------------------------------------------------------


def _finite(x: float, what: str) -> float:
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        raise ValueError(f"{what} must be a finite number, got {x}")
    return x


def _scaled(x: float, units: Sequence[tuple[float, str]], digits: int) -> str:
    for scale, unit in units:
        if abs(x) >= scale:
            return f"{x / scale:,.{digits}f} {unit}"
    scale, unit = units[-1]
    return f"{x / scale:,.{digits}f} {unit}"


_BYTES = [(1e15, "PB"), (1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "KB"), (1, "B")]
_BIBYTES = [(2**50, "PiB"), (2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"), (1, "B")]


def fmt_bytes(n: float, digits: int = 1, binary: bool = False) -> str:
    """Decimal units by default (1 GB = 1e9 B), binary (GiB) when asked."""
    return _scaled(_finite(n, "bytes"), _BIBYTES if binary else _BYTES, digits)


def fmt_count(n: float, digits: int = 1) -> str:
    """12,345 below a million; 1.2 M, 3.4 B, 5.6 T above."""
    n = _finite(n, "count")
    if abs(n) < 1e6:
        return f"{n:,.0f}"
    return _scaled(n, [(1e12, "T"), (1e9, "B"), (1e6, "M")], digits)


def fmt_time(seconds: float, digits: int = 2) -> str:
    s = _finite(seconds, "time")
    if s == 0:
        return "0 s"  # a term that is absent, not '0.00 ns'
    return _scaled(s, [(1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")], digits)


def fmt_rate(flops_per_s: float, digits: int = 1) -> str:
    return _scaled(_finite(flops_per_s, "rate"),
                   [(1e15, "PFLOP/s"), (1e12, "TFLOP/s"), (1e9, "GFLOP/s"), (1e6, "MFLOP/s"),
                    (1, "FLOP/s")], digits)


def fmt_ratio(x: float, digits: int = 1) -> str:
    return f"{_finite(x, 'ratio'):,.{digits}f}×"


# --------------------------------------------------------------------------------------------
# Predictions and the unlock switch
# --------------------------------------------------------------------------------------------


#: A number in an option label, with its unit when it has one ("139×", "16.8 MB", "4.1 s").
_NUMBER = re.compile(r"(?<![\w.])(\d[\d,.]*\d|\d)(\s?(?:×(?!\s?\d)|%|[kKMGTP]?i?B\b|FLOP/B\b|FLOP/byte|ms\b|µs\b|ns\b|s\b|tokens?\b|million\b|billion\b))?")

#: What each kind of question is called above its options.
_KIND_PREFIX = {"predict": "**Predict first.**", "transfer": "**Now try a new case.**"}


@dataclass(frozen=True)
class Prediction:
    """A prediction question: options (key -> label), the correct key, and per-option feedback
    (for a wrong option, name the misconception).

    ``kind`` is ``"predict"`` (asked before a part unlocks) or ``"transfer"`` (asked after the
    reveal, on a case the student has not seen). ``reveals`` lists the distinctive phrases and
    numbers of the correct answer: nothing rendered while the part is locked may contain them
    (tests/test_spoilers.py); the numbers in the correct option's label are added automatically.
    """

    question: str
    options: Mapping[str, str]
    answer: str
    feedback: Mapping[str, str]
    correct_note: str = ""
    kind: str = "predict"
    reveals: tuple[str, ...] = ()

    def __post_init__(self):
        if self.answer not in self.options:
            raise ValueError(f"answer={self.answer!r} is not one of the options {list(self.options)}")
        missing = [k for k in self.options if k not in self.feedback]
        if missing:
            raise ValueError(f"feedback is missing for options {missing}")
        if self.kind not in _KIND_PREFIX:
            raise ValueError(f"kind={self.kind!r}; allowed: {', '.join(_KIND_PREFIX)}")

    @property
    def spoilers(self) -> tuple[str, ...]:
        """``reveals`` plus the numbers of the correct option's label that identify it: a number
        with its unit ("139×", "16.8 MB"), or a bare number of three or more digits."""
        nums = []
        for m in _NUMBER.finditer(self.options[self.answer]):
            number, unit = m.group(1), m.group(2)
            if unit:
                nums.append(number + unit)
            elif len(re.sub(r"\D", "", number)) >= 3:
                nums.append(number)
        return tuple(dict.fromkeys([*self.reveals, *nums]))

    def radio(self):
        """The widget: no default answer. Create it in its own (ungated) cell."""
        mo = _mo()
        return mo.ui.radio(
            options={label: key for key, label in self.options.items()},
            value=None,
            label=f"{_KIND_PREFIX[self.kind]} {self.question}",
        )

    def is_correct(self, value) -> bool:
        return value == self.answer

    def respond(self, value, unlocked: bool = False):
        """Feedback for the chosen option (or an instructor-mode note when unlocked unanswered)."""
        mo = _mo()
        if value is None:
            if unlocked:
                return mo.callout(mo.md("Instructor mode: this part is unlocked without a prediction."),
                                  kind="info")
            return locked_note()
        if value not in self.options:
            raise ValueError(f"prediction value {value!r} is not one of {list(self.options)}")
        text = self.feedback[value]
        if self.is_correct(value):
            return mo.callout(mo.md(f"**Correct.** {text}"), kind="success")
        right = self.options[self.answer]
        return mo.callout(mo.md(f"**Not quite: the answer is _{right}_.** {text}"), kind="warn")


def unlock_requested() -> bool:
    """True when the instructor switch is on: ``?unlock=all`` in the URL (marimo run / the
    browser site) or ``-- --unlock all`` on the command line."""
    mo = _mo()
    from marimo._runtime.context.types import ContextNotInitializedError

    values = []
    for source in (mo.cli_args, mo.query_params):
        try:
            values.append(source().get("unlock"))
        except ContextNotInitializedError:  # plain Python, outside a notebook run
            values.append(None)
    return any(str(v).lower() in ("all", "1", "true", "yes") for v in values if v is not None)


def locked(radio, unlocked: bool) -> bool:
    """The condition for ``mo.stop``: a part stays locked until its prediction is answered."""
    return radio.value is None and not unlocked


def locked_any(radios, unlocked: bool) -> bool:
    """The condition for ``mo.stop`` on a cell that summarises several parts (takeaways, a
    synthesis): locked until every one of their predictions is answered."""
    return not unlocked and any(r.value is None for r in radios)


def locked_note(what: str = "this part"):
    mo = _mo()
    return mo.callout(mo.md(f"Answer the prediction above to unlock {_e(what)}."), kind="neutral")


# --------------------------------------------------------------------------------------------
# Display components
# --------------------------------------------------------------------------------------------


def header(kicker: str, title: str, goal: str, badges: Iterable[str] = ()):
    mo = _mo()
    chips = "".join(f'<span class="ms-badge">{_e(b)}</span>' for b in badges)
    return mo.Html(
        f'<div class="ms-header"><div class="ms-kicker">{_e(kicker)}</div>'
        f"<h1>{_e(title)}</h1><div class=\"ms-goal\">{_e(goal)}</div>"
        f'<div class="ms-badges">{chips}</div></div>'
    )


def message(sender: str, role: str, text: str):
    """A stakeholder message framing the part's question."""
    mo = _mo()
    return mo.Html(
        f'<div class="ms-message"><div class="ms-from">Incoming message · {_e(sender)}, {_e(role)}</div>'
        f"<blockquote>&ldquo;{_e(text)}&rdquo;</blockquote></div>"
    )


@dataclass(frozen=True)
class Fact:
    """A named quantity a card shows, with its raw value and the settings it depends on.
    ``key`` is the same string wherever the same quantity for the same model, device and
    settings appears; tests/test_consistency.py asserts one value per key across the suite."""

    quantity: str
    value: float
    context: tuple[tuple[str, str], ...]

    @property
    def key(self) -> str:
        ctx = ", ".join(f"{k}={v}" for k, v in self.context)
        return f"{self.quantity}({ctx})"


def fact(quantity: str, value: float, **context) -> Fact:
    """``fact("latency", p.latency_s, model="ResNet50", device="H100", batch=1,
    precision="int8", efficiency=0.5)``: ``quantity`` is a key of ``vocab.QUANTITIES``; the
    context names every setting the value depends on (None-valued settings are dropped)."""
    from .vocab import QUANTITIES

    if quantity not in QUANTITIES:
        raise ValueError(f"quantity={quantity!r} is not in vocab.QUANTITIES; allowed: {', '.join(QUANTITIES)}")
    v = _finite(value, quantity)
    ctx = tuple(sorted((k, str(x)) for k, x in context.items() if x is not None))
    return Fact(quantity, v, ctx)


@dataclass(frozen=True)
class Card:
    label: str
    value: str
    note: str = ""
    status: str = ""  # "", "ok", "warn", "bad"
    fact: Fact | None = None  # the named quantity this card shows (consistency test)

    def __post_init__(self):
        if self.status not in ("", "ok", "warn", "bad"):
            raise ValueError(f"status={self.status!r}; allowed: '', 'ok', 'warn', 'bad'")
        low = str(self.value).strip().lower()
        if low in ("nan", "inf", "-inf", "error") or "nan " in f"{low} ":
            raise ValueError(f"card {self.label!r} would show {self.value!r}")


def cards(items: Sequence[Card]):
    mo = _mo()
    body = "".join(
        f'<div class="ms-card {c.status}"><div class="ms-label">{_e(c.label)}</div>'
        f'<div class="ms-value">{_e(c.value)}</div><div class="ms-note">{_e(c.note)}</div></div>'
        for c in items
    )
    return mo.Html(f'<div class="ms-cards">{body}</div>')


def math_peek(title: str, lines: Sequence[str], note: str = ""):
    """An accordion with the formula and the live numbers substituted (one line each)."""
    mo = _mo()
    block = "\n".join(lines)
    text = f"```text\n{block}\n```"
    if note:
        text += f"\n\n{note}"
    return mo.accordion({f"MathPeek: {title}": mo.md(text)})


def feasibility(need_bytes: float, device, what: str = "This configuration"):
    """Fits / does not fit callout against ``device.memory.capacity`` (never raises for OOM)."""
    mo = _mo()
    cap = device.memory.capacity.m_as("B")
    need = _finite(need_bytes, "need_bytes")
    if need <= cap:
        share = need / cap
        return mo.callout(
            mo.md(f"**Fits.** {_e(what)} needs {fmt_bytes(need)}, {share:.1%} of the "
                  f"{_e(device.name)}'s {fmt_bytes(cap)}."),
            kind="success",
        )
    return mo.callout(
        mo.md(f"**Out of memory.** {_e(what)} needs {fmt_bytes(need)}: "
              f"{fmt_bytes(need - cap)} more than the {_e(device.name)}'s {fmt_bytes(cap)} "
              f"({need / cap:,.1f}× its capacity). This is a feasibility failure, not a slowdown."),
        kind="danger",
    )


def error_note(exc: Exception):
    """Show a validation error to a student as a sentence, never as a traceback."""
    mo = _mo()
    msg = str(exc).splitlines()
    useful = [m for m in msg if m.strip() and not m.strip().startswith("For further information")]
    return mo.callout(mo.md("**That input is not valid.** " + _e(" ".join(useful[-2:]))), kind="danger")


# --------------------------------------------------------------------------------------------
# Widget specs: one definition feeds the notebook's widget and the test harness's grid
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Slider:
    label: str
    start: float
    stop: float
    value: float
    step: float = 1

    def __post_init__(self):
        if not (self.start <= self.value <= self.stop):
            raise ValueError(f"{self.label}: value {self.value} outside [{self.start}, {self.stop}]")

    def widget(self):
        return _mo().ui.slider(start=self.start, stop=self.stop, step=self.step, value=self.value,
                               label=self.label, show_value=True)

    def grid(self) -> list:
        """Minimum, default and maximum: the states the harness runs."""
        return sorted({self.start, self.value, self.stop})


@dataclass(frozen=True)
class Choice:
    label: str
    options: Mapping[str, str]  # key -> label shown
    value: str
    inline: bool = True
    dropdown: bool = False  # a dropdown instead of radio buttons (long option lists)

    def __post_init__(self):
        if self.value not in self.options:
            raise ValueError(f"{self.label}: default {self.value!r} not in {list(self.options)}")

    def widget(self):
        if self.dropdown:
            return _mo().ui.dropdown(options={v: k for k, v in self.options.items()},
                                     value=self.options[self.value], label=self.label)
        return _mo().ui.radio(options={v: k for k, v in self.options.items()},
                              value=self.options[self.value], label=self.label, inline=self.inline)

    def grid(self) -> list:
        return list(self.options)


@dataclass(frozen=True)
class Toggle:
    label: str
    value: bool = False

    def widget(self):
        return _mo().ui.switch(value=self.value, label=self.label)

    def grid(self) -> list:
        return [False, True]


@dataclass
class View:
    """What one part shows: a chart, metric cards, a sentence, the MathPeek lines."""

    figure: object
    cards: list[Card]
    summary: str
    peek_title: str
    peek: list[str]
    alert: object = None  # an optional callout (e.g. feasibility)
    facts: list[Fact] = field(default_factory=list)  # named quantities shown outside cards

    def all_facts(self) -> list[Fact]:
        """Every named quantity this view shows: its cards' facts and ``facts``."""
        return [c.fact for c in self.cards if c.fact is not None] + list(self.facts)


def show(view: View, feedback=None):
    """Lay out a part: chart, cards, sentence, optional alert, MathPeek, prediction feedback."""
    from .charts import finalize, text_alternative

    mo = _mo()
    fig = finalize(view.figure)  # the chart rules (charts.py), and a text alternative for it
    alt = mo.Html(f'<p class="ms-chart-alt">{_e(text_alternative(fig, view.summary))}</p>')
    items = [fig, alt, cards(view.cards), mo.md(view.summary)]
    if view.alert is not None:
        items.append(view.alert)
    items.append(math_peek(view.peek_title, view.peek))
    if feedback is not None:
        items.append(feedback)
    return mo.vstack(items)


async def record(ledger, lab, answers: Mapping[str, object], design: Mapping[str, object] | None = None):
    """Save this notebook's answers and design to the ledger (only once something is answered:
    completion comes from real answers, never from opening the page) and show the progress
    line, with the ledger's warning if storage misbehaved."""
    mo = _mo()
    if any(v is not None for v in answers.values()):
        await ledger.save_async(chapter=lab.CHAPTER, design=design or {}, answers=answers,
                                required=lab.PARTS)
    items = [mo.md(f"**Design ledger:** {_e(ledger.summary())}")]
    if ledger.warning:
        items.append(mo.callout(mo.md(_e(ledger.warning)), kind="warn"))
    return mo.vstack(items)
