"""The lab component library: every piece of HTML a notebook shows comes from here.

HTML safety, one rule: text that reaches HTML is escaped (``_e``) or rendered as plain text;
markdown is applied only to *authored* strings (questions, feedback, summaries, labels), after
escaping, with links to anything but http(s)/mailto/#anchors defanged (``_md_src``). Text from a
ledger file, a report or a student (names, justifications, chapter names) never goes through
markdown. Styling is by CSS class (``style.LAB_CSS``), never inline. marimo is imported lazily so
that ``import mlsysim`` never needs it.
"""

from __future__ import annotations

import hashlib
import html
import math
import numbers
import operator
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType

from .. import _check, catalogue
from .._check import is_finite
from .state import clean_text
from .state import short_repr as _short  # the value in an error message
from .vocab import memory_name, op_word

__all__ = [
    "Prediction",
    "Deferred",
    "design_numbers",
    "report_stem",
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
    "until_answered",
    "unlock_requested",
    "fmt_bytes",
    "fmt_count",
    "overflow_text",
    "fmt_time",
    "fmt_rate",
    "fmt_ratio",
    "Slider",
    "Choice",
    "Toggle",
    "TextBox",
    "widget_args",
    "chart",
    "View",
    "show",
    "Saved",
    "saved",
    "verdict",
    "answer_key",
    "student_field",
    "justification_field",
    "record",
    "plain",
    "questions",
    "first_part",
    "warm_up",
]


def _mo():
    import marimo as mo

    return mo


def _e(text) -> str:
    """Escape for HTML (text and attribute values); lone surrogates become U+FFFD."""
    return html.escape(clean_text(text), quote=True)


_SAFE_URL = re.compile(r"\s*(https?://|mailto:|#)", re.I)
_LINK_OPEN = re.compile(r"\]\(")
#: A reference definition ``[label]: url``, wherever it starts: at a line's start, but also after
#: a list marker or a quote, or indented under a list item, where Python-Markdown reads one too
#: (``- [r]: javascript:...`` made a live link). A ``[x]:`` that is not a definition is only
#: shown with its bracket escaped.
_REF_DEF = re.compile(r"(?<!\\)\[([^\]\n]*)\]:(\s*)(\S*)")


def _md_src(text) -> str:
    """Markdown source for an *authored* string: HTML escaped, links and reference definitions
    to anything but http(s), mailto or an #anchor defanged (``](`` -> ``]\\(``), so
    ``[x](javascript:...)`` shows as text."""
    s = _e(text)
    s = _LINK_OPEN.sub(lambda m: "](" if _SAFE_URL.match(s, m.end()) else "]\\(", s)
    return _REF_DEF.sub(
        lambda m: (
            m.group(0)
            if _SAFE_URL.match(m.group(3))
            else f"\\[{m.group(1)}]:{m.group(2)}{m.group(3)}"
        ),
        s,
    )


def _texts(**named) -> None:
    """``_check.text`` for each argument: a number or None would otherwise be printed as 'nan'
    or 'None' in the lesson."""
    for name, v in named.items():
        _check.text(name, v)


def _md(text):
    """An authored string as markdown (escaped and defanged first)."""
    return _mo().md(_md_src(text))


#: The elements ``plain`` may wrap its text in (a tag is never taken from the caller verbatim).
PLAIN_TAGS = ("span", "div", "p", "pre", "code", "em", "strong", "small", "li", "blockquote")


def plain(text, tag: str = "span", cls: str = ""):
    """Any text as plain text: never markdown, never HTML (use for ledger/report/student text).
    ``tag`` is one of ``PLAIN_TAGS``."""
    if not isinstance(tag, str) or tag not in PLAIN_TAGS:
        raise ValueError(f"tag={_short(tag)} is not allowed; allowed: {', '.join(PLAIN_TAGS)}")
    klass = f' class="{_e(cls)}"' if cls else ""
    body = _e(text).replace("\n", "<br>")
    return _mo().Html(f'<{tag}{klass} style="white-space: pre-wrap">{body}</{tag}>')


def _callout(inner_html: str, kind: str):
    mo = _mo()
    return mo.callout(mo.Html(f'<span class="ms-callout">{inner_html}</span>'), kind=kind)


# --------------------------------------------------------------------------------------------
# Number formatting (one place, so every notebook shows units the same way)
# --------------------------------------------------------------------------------------------


def _finite(x: float, name: str, negative: bool = False) -> float:
    """``x`` as a finite float, or a ValueError naming the argument ``name``: strings (even
    numeric ones), bools and None are refused, as are NaN, inf and integers beyond a float."""
    if (
        x is None
        or isinstance(x, str | bytes | bool)
        or (type(x).__module__ == "numpy" and type(x).__name__ in ("bool", "bool_"))
    ):
        raise ValueError(f"{name} must be a number, got {_short(x)}")
    try:
        f = float(x)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a finite number, got {_short(x)}") from None
    if math.isnan(f) or math.isinf(f):
        raise ValueError(f"{name} must be a finite number, got {_short(x)}")
    if f < 0 and not negative:
        raise ValueError(f"{name} must be zero or positive, got {f:g}")
    return f + 0.0  # -0.0 shown as 0


#: The most decimal places a number is shown with.
MAX_DIGITS = 12


def _has(container, key) -> bool:
    """``key in container``, False for an unhashable ``key`` (a list where a name is expected)."""
    try:
        return key in container
    except TypeError:
        return False


def _digits(digits) -> int:
    """``digits`` as an int in [0, MAX_DIGITS] (not a bool, a float or None)."""
    d = None
    if not isinstance(digits, bool):
        try:
            d = operator.index(digits)  # an int or a numpy integer
        except TypeError:
            d = None
    if d is None or not 0 <= d <= MAX_DIGITS:
        raise ValueError(f"digits must be an integer in [0, {MAX_DIGITS}], got {_short(digits)}")
    return d


def _scaled(x: float, units: Sequence[tuple[float, str]], digits: int) -> str:
    i = next((i for i, (s, _) in enumerate(units) if abs(x) >= s), len(units) - 1)
    if i > 0 and abs(round(x / units[i][0], digits)) * units[i][0] >= units[i - 1][0]:
        i -= 1  # rounding reaches the next unit: 999,999 B is "1.0 MB", not "1,000.0 KB"
    scale, unit = units[i]
    v = x / scale
    if abs(v) >= 1e6:  # beyond the largest unit: 1.2e+09 PB, not 1,200,000,000.0 PB
        return f"{v:.{digits}e} {unit}"
    if x != 0 and abs(round(v, digits)) == 0:  # below the smallest unit: 3.0e-05 ns, not 0.00 ns
        return f"{v:.{max(digits, 1)}e} {unit}"
    return f"{v:,.{digits}f} {unit}"


_BYTES = [(1e15, "PB"), (1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "KB"), (1, "B")]
_BIBYTES = [
    (2**50, "PiB"),
    (2**40, "TiB"),
    (2**30, "GiB"),
    (2**20, "MiB"),
    (2**10, "KiB"),
    (1, "B"),
]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """'1 token', '4,096 tokens': a count with its noun in agreement. ``n`` is a whole number
    in [0, 2**63) (a whole float is shown as given)."""
    if (
        isinstance(n, bool)
        or not isinstance(n, int | float)
        or not is_finite(n)
        or not 0 <= n < 2**63
        or n != int(n)
    ):
        if not isinstance(n, bool | int) and hasattr(n, "__index__"):  # a numpy integer
            return counted(operator.index(n), noun, plural)
        raise ValueError(f"n must be a whole number in [0, 2**63), got {_short(n)}")
    if not isinstance(noun, str) or not (plural is None or isinstance(plural, str)):
        raise ValueError(
            f"noun and plural must be text, got noun={_short(noun)}, plural={_short(plural)}"
        )
    n = n + 0  # -0.0 is 0: never "-0.0 tokens"
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def fmt_bytes(n: float, digits: int = 1, binary: bool = False) -> str:
    """Decimal units by default (1 KB = 1e3 B, 1 GB = 1e9 B), binary (GiB) when asked; a whole
    number of bytes below the first unit without decimals ("512 B"). Refuses negative and
    non-finite values; past a million PB switches to scientific notation."""
    if not isinstance(binary, bool):
        raise ValueError(f"binary must be True or False, got {_short(binary)}")
    n, digits = _finite(n, "n"), _digits(digits)
    if n < (1024 if binary else 1000) and n == int(n):  # whole bytes: "512 B", never "512.0 B"
        return f"{int(n):,} B"
    return _scaled(n, _BIBYTES if binary else _BYTES, digits)


def overflow_text(profile) -> str:
    """Where an engine profile does not fit, every memory named: '43.9 KB over its flash and
    19.4 KB over its SRAM' (a sentence naming only the largest hid the other); '' when it fits."""
    return " and ".join(
        f"{fmt_bytes(v)} over its {memory_name(k)}" for k, v in profile.overflows.items()
    )


def fmt_count(n: float, digits: int = 1) -> str:
    """12,345 below a million; 1.2 M, 3.4 billion, 5.6 trillion above (words: a bare "B" beside
    byte sizes reads as bytes). Refuses negative and non-finite."""
    n = _finite(n, "n")
    digits = _digits(digits)
    if abs(n) < 1e6:
        return f"{n:,.0f}"
    return _scaled(n, [(1e12, "trillion"), (1e9, "billion"), (1e6, "M")], digits)


def fmt_time(seconds: float, digits: int = 2) -> str:
    """ns to s; refuses negative and non-finite times; past 10^6 s scientific seconds."""
    s = _finite(seconds, "seconds")
    digits = _digits(digits)
    if s == 0:
        return "0 s"  # a term that is absent, not '0.00 ns'
    return _scaled(s, [(1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")], digits)


_FLOPS = [(1e15, "PFLOP"), (1e12, "TFLOP"), (1e9, "GFLOP"), (1e6, "MFLOP"), (1, "FLOP")]


def _ops_table(precision: str | None, per: str = "") -> list[tuple[float, str]]:
    """FLOP units, or OP units for an integer ``precision`` ("int8", "int4"): vendors quote
    integer throughput in operations (TOPS). One MAC is two of either."""
    unit = op_word(precision)
    return [(s, u.replace("FLOP", unit) + per) for s, u in _FLOPS]


def fmt_rate(flops_per_s: float, digits: int = 1, precision: str | None = None) -> str:
    """A compute rate (312.0 TFLOP/s; 624.0 TOP/s for an integer ``precision``)."""
    return _scaled(
        _finite(flops_per_s, "flops_per_s"), _ops_table(precision, "/s"), _digits(digits)
    )


def fmt_flops(n: float, digits: int = 1, precision: str | None = None) -> str:
    """A FLOP count with a unit prefix (3.4 GFLOP, 281.5 TFLOP; 418.1 MOP for an integer
    ``precision``): never a bare "B" that reads as bytes. Refuses negative and non-finite counts."""
    return _scaled(_finite(n, "n"), _ops_table(precision), _digits(digits))


def fmt_ratio(x: float, digits: int = 1, sig: int | None = None) -> str:
    """'13.6×'; with ``sig``, that many significant digits whatever the size (139×, 0.544×,
    0.00249×), for one ratio shown across orders of magnitude."""
    x = _finite(x, "x")
    digits = _digits(digits)
    if sig is not None:
        sig = _digits(sig)
        if x > 0:
            digits = min(max(0, sig - 1 - math.floor(math.log10(x))), 12)
    if x >= 1e9:
        return f"{x:.{digits}e}×"
    return f"{x:,.{digits}f}×"


# --------------------------------------------------------------------------------------------
# Predictions and the unlock switch
# --------------------------------------------------------------------------------------------


#: A number in an option label, with its unit when it has one ("139×", "16.8 MB", "4.1 s").
_NUMBER = re.compile(
    r"(?<![\w.])(\d[\d,.]*\d|\d)(\s?(?:×(?!\s?\d)|%|[kKMGTP]?i?B\b|FLOP/B\b|FLOP/byte|ms\b|µs\b|ns\b|s\b|tokens?\b|million\b|billion\b))?"
)


def _number_in(number: str, unit: str | None) -> re.Pattern:
    """``number`` (with ``unit``, a space before it or not) as a whole token in a text."""
    tail = r"\s?" + re.escape(unit.strip()) if unit else ""
    return re.compile(rf"(?<![\w.,]){re.escape(number)}(?![\d]|[.,]\d){tail}")


#: A number leading an option label ("About 5,575×", "16.8 MB", "0.25 (…)"), with a scale
#: letter when one follows it: options that all lead with one are shown in ascending order.
_LEADING = re.compile(
    r"^(?i:about|roughly|under|over|exactly|~)?\s*(\d[\d,]*(?:\.\d+)?)\s*([kKMGT](?=B\b|\b)|B\b)?"
)
_SCALE = {None: 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "B": 1e9, "T": 1e12}


def _leading_number(label: str) -> float | None:
    m = _LEADING.match(label.strip())
    if not m:
        return None
    return float(m.group(1).replace(",", "")) * _SCALE[m.group(2)]


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8], "big")


#: What each kind of question is called above its options.
_KIND_PREFIX = {"predict": "**Predict first.**", "transfer": "**Now try a new case.**"}
#: The button that commits an answer (the first one pressed is recorded, never overwritten)
COMMIT_LABEL = "Commit my answer"
#: A recall question says so above its options: it asks what the chapter states, not a prediction.
_RECALL_PREFIX = "**Recall from the chapter.**"

#: What a question asks of the student (the question rubric, ``tests/test_rubric.py``):
#: ``behaviour`` what a system does and why, ``regime`` which resource binds, ``direction``
#: which way (and roughly how far) a quantity moves when one input changes, all three needing a
#: mental model; ``estimate`` a number worked out from the stem's own figures (arithmetic, kept
#: rare); ``retrieval`` a statement of the chapter recalled (kept rare, and labelled as recall).
ASKS = {
    "behaviour": "what a system does, and why",
    "regime": "which resource binds, and what moves a workload between regimes",
    "direction": "which way a quantity moves when one input changes",
    "estimate": "a number worked out from the stem's own figures",
    "retrieval": "a statement of the chapter, recalled",
}


@dataclass(frozen=True)
class Misconception:
    """What a wrong option stands for: a short ``name`` ("time follows FLOPs") and the
    ``belief`` behind it in one line, from the chapter's fallacies and pitfalls or a common
    student error. The feedback of that option answers it."""

    name: str
    belief: str

    def __post_init__(self):
        for arg in ("name", "belief"):
            v = getattr(self, arg)
            if not isinstance(v, str) or not v.strip():
                raise ValueError(f"{arg} must be a non-empty string, got {_short(v)}")


class Deferred(Mapping):
    """A read-only mapping made the first time it is read. Feedback whose numbers come from the
    core is written ``feedback=Deferred(lambda: {...})``, so defining a question (a notebook's
    first run) computes nothing and imports no cost model; the student sees the numbers only
    after answering.

    A notebook's first prediction is answered before the page has loaded pint and pydantic
    (``mlsysim.labs.browser``): made then, its feedback would load them, between the click and
    the verdict (~1-2 s in the browser, issue 35). Its feedback names ``precomputed=`` a key of
    ``mlsysim.labs.precomputed.FEEDBACK``, the same texts made from the core by
    ``python scripts/precompute_feedback.py``; tests/test_precomputed_feedback.py fails when
    they differ from what the core makes now."""

    def __init__(self, make: Callable[[], Mapping], precomputed: str | None = None):
        self._make = make
        self._data: dict | None = None
        #: the key of this feedback in ``mlsysim.labs.precomputed.FEEDBACK`` (a notebook's first
        #: prediction: ``"s06_03_cnns.PRED_A"``), whose texts are read instead of made
        self.precomputed = precomputed

    def _resolved(self) -> dict:
        if self._data is None:
            made = None
            if self.precomputed is not None:
                from . import precomputed

                made = precomputed.FEEDBACK.get(self.precomputed)
            self._data = dict(self._make() if made is None else made)
        return self._data

    def make(self) -> dict:
        """The feedback made from the core now, never the precomputed copy (for the test that
        the copy is current)."""
        return dict(self._make())

    def __getitem__(self, key):
        return self._resolved()[key]

    def __iter__(self):
        return iter(self._resolved())

    def __len__(self) -> int:
        return len(self._resolved())


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
    #: what the question asks of the student: a key of ``ASKS``
    asks: str = ""
    #: wrong option key -> the misconception it stands for (a ``Misconception`` or a
    #: ``(name, belief)`` pair); every wrong option has one, the right one none
    misconceptions: Mapping[str, Misconception] = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.feedback, Mapping):
            raise ValueError(
                f"feedback must be a mapping option key -> text (or Deferred), got "
                f"{_short(self.feedback)}"
            )
        if not isinstance(self.options, Mapping) or not self.options:
            raise ValueError(
                f"options must be a non-empty mapping key -> label, got {_short(self.options)}"
            )
        if not _has(self.options, self.answer):
            raise ValueError(
                f"answer={_short(self.answer)} is not one of the options {list(self.options)}"
            )
        # deferred feedback is checked when it is made (tests/test_kit.py reads every lab's)
        deferred = isinstance(self.feedback, Deferred)
        missing = [] if deferred else [k for k in self.options if k not in self.feedback]
        if missing:
            raise ValueError(f"feedback is missing for options {missing}")
        labels = list(self.options.values())
        if len(set(labels)) != len(labels):
            raise ValueError(f"option labels must be distinct, got {labels}")
        if not _has(_KIND_PREFIX, self.kind):
            raise ValueError(f"kind={_short(self.kind)}; allowed: {', '.join(_KIND_PREFIX)}")
        if self.asks and not _has(ASKS, self.asks):
            raise ValueError(f"asks={_short(self.asks)}; allowed: {', '.join(ASKS)}")
        if not isinstance(self.misconceptions, Mapping):
            raise ValueError(
                "misconceptions must be a mapping wrong option key -> Misconception, got "
                f"{_short(self.misconceptions)}"
            )
        named = {}
        for key, m in self.misconceptions.items():
            if not _has(self.options, key) or key == self.answer:
                raise ValueError(
                    f"misconceptions names {_short(key)}, which is not a wrong option of "
                    f"{[k for k in self.options if k != self.answer]}"
                )
            if isinstance(m, tuple) and len(m) == 2:
                m = Misconception(*m)
            if not isinstance(m, Misconception):
                raise ValueError(
                    f"misconceptions[{key!r}] must be a Misconception or a (name, belief) pair, "
                    f"got {_short(m)}"
                )
            named[key] = m
        object.__setattr__(self, "misconceptions", named)

    @property
    def prefix(self) -> str:
        """What the page calls this question above its options."""
        if self.asks == "retrieval":
            return _RECALL_PREFIX
        return _KIND_PREFIX[self.kind]

    @property
    def spoilers(self) -> tuple[str, ...]:
        """``reveals`` plus the numbers of the correct option's label that identify it: a number
        with its unit ("139×", "16.8 MB"), or a bare number of three or more digits. A number the
        question itself states ("on an 80 GB H100") is given, not revealed, and is left out."""
        nums = []
        for m in _NUMBER.finditer(self.options[self.answer]):
            number, unit = m.group(1), m.group(2)
            if _number_in(number, unit).search(self.question):
                continue
            if unit:
                nums.append(number + unit)
            elif len(re.sub(r"\D", "", number)) >= 3:
                nums.append(number)
        return tuple(dict.fromkeys([*self.reveals, *nums]))

    @property
    def display_order(self) -> tuple[str, ...]:
        """The option keys in the order a student sees them. Authors tend to write the right
        answer second; shown as written, "pick B" would beat thinking. Options that all lead with
        a distinct number are shown in ascending order (a scale reads as one); otherwise the
        correct option's position and the others' order come from a hash of the question, so
        the order is the same on every load, in every report and for every student."""
        keys = list(self.options)
        numbers = [_leading_number(self.options[k]) for k in keys]
        if None not in numbers and len(set(numbers)) == len(numbers):
            return tuple(k for _, k in sorted(zip(numbers, keys, strict=True)))
        others = sorted(
            (k for k in keys if k != self.answer),
            key=lambda k: _digest(f"{self.question}\0{k}"),
        )
        others.insert(
            _digest(f"{self.question}\0{self.options[self.answer]}") % len(keys), self.answer
        )
        return tuple(others)

    def radio(self, saved: Saved | None = None):
        """The widget: no default answer (or the student's saved answer, restored from the
        ledger). Create it in its own (ungated) cell. Option labels are shown by marimo as text."""
        mo = _mo()
        value = saved.value_for(self) if saved is not None else None
        el = mo.ui.radio(
            options={clean_text(self.options[key]): key for key in self.display_order},
            value=clean_text(self.options[value]) if _has(self.options, value) else None,
            label=f"{self.prefix} {_md_src(self.question)}",
        )
        if not _has(self.options, value):
            # a first answer is a deliberate commit, by mouse, keyboard or screen reader alike:
            # arrow keys move the selection, and nothing is recorded until the button is pressed
            el = el.form(
                submit_button_label=COMMIT_LABEL,
                submit_button_tooltip="Your first committed answer is the one your report keeps",
                bordered=False,
            )
        if saved is not None:
            saved.created(self, el)
        return el

    def is_correct(self, value) -> bool:
        return value == self.answer

    def verdict_html(self, value, first: str | None = None) -> tuple[str, str]:
        """(HTML, callout kind) for the chosen option: correct, or the misconception named."""
        if not _has(self.options, value):
            raise ValueError(f"prediction value={_short(value)} is not one of {list(self.options)}")
        text = _render_md(self.feedback[value])
        if self.is_correct(value):
            body = f"<strong>Correct.</strong> {text}"
            kind = "success"
        else:
            m = self.misconceptions.get(value)
            named = f'<span class="ms-misconception">The trap: {_e(m.name)}.</span> ' if m else ""
            body = (
                f"<strong>Not quite: the answer is <em>{_e(self.options[self.answer])}</em>.</strong> "
                f"{named}{text}"
            )
            kind = "warn"
        if first is not None and _has(self.options, first) and first != value:
            ok = "correct" if self.is_correct(first) else "not correct"
            body += (
                f'<div class="ms-first">Your committed prediction (recorded, {ok}): '
                f"<em>{_e(self.options[first])}</em>. You may explore the other options; "
                "your report shows the first.</div>"
            )
        return body, kind

    def respond(self, value, unlocked: bool = False, first: str | None = None):
        """Feedback for the chosen option; unanswered: the answer key (instructor mode) or the
        locked note."""
        if value is None:
            return answer_key(self) if unlocked else locked_note()
        body, kind = self.verdict_html(value, first)
        return _callout(body, kind)


def _render_md(text: str) -> str:
    """An authored string rendered to HTML through marimo's markdown (escaped and defanged)."""
    return _md(text).text


def answer_key(pred: Prediction):
    """Instructor mode: the correct option and every option's feedback."""
    rows = "".join(
        f"<li><strong>{'✓ ' if pred.is_correct(k) else ''}{_e(label)}</strong>"
        f"{f' (the trap: {_e(m.name)})' if (m := pred.misconceptions.get(k)) else ''}: "
        f"{_render_md(pred.feedback[k])}</li>"
        for k in pred.display_order
        for label in (pred.options[k],)
    )
    where = question_source(pred)
    edit = (
        f'<div class="ms-edit">To change this question: edit <code>{_e(where[1])}</code> in '
        f"<code>{_e(where[0])}</code>, then run <code>bash scripts/rebuild.sh</code> (the wheel "
        "and the browser site) and restart the kernel.</div>"
        if where
        else ""
    )
    return _callout(
        f"<strong>Instructor mode: answer key.</strong> Correct: <em>{_e(pred.options[pred.answer])}</em>"
        f'<ul class="ms-key">{rows}</ul>{edit}',
        "info",
    )


def question_source(pred: Prediction) -> tuple[str, str] | None:
    """(file, name) where a question lives: ``("mlsysim/labs/parts/s06_03_cnns.py", "PRED_A")``,
    for the instructor who wants to change it; None for a question of no lab module."""
    import sys

    for modname, mod in list(sys.modules.items()):
        if not modname.startswith("mlsysim.labs.parts.") or mod is None:
            continue
        for attr, value in vars(mod).items():
            if value is pred and attr.isupper():
                return f"mlsysim/labs/parts/{modname.rsplit('.', 1)[-1]}.py", attr
    return None


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
    _texts(what=what)
    return _callout(f"Answer the prediction above to unlock {_e(what)}.", "neutral")


_NUMBER_WORDS = ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def until_answered(radios, unlocked: bool, what: str = "the takeaways"):
    """``mo.stop(*kit.until_answered([pred_a, pred_b], unlocked, "the takeaways"))``: the gate of
    a cell that summarises several parts (takeaways, a synthesis). Returns ``(locked, note)``:
    locked until every one of ``radios`` is answered (or the instructor unlocked the lab), with
    a note naming how many predictions that takes."""
    _texts(what=what)
    radios = list(radios)
    if not radios:
        raise ValueError("radios must name at least one prediction, got none")
    n = len(radios)
    count = (
        "the prediction"
        if n == 1
        else f"all {_NUMBER_WORDS[n] if n < 10 else f'{n:,}'} predictions"
    )
    note = _callout(f"Answer {count} to unlock {_e(what)}.", "neutral")
    return locked_any(radios, unlocked), note


def verdict(
    pred: Prediction,
    radio,
    unlocked: bool = False,
    saved: Saved | None = None,
    locked: str | None = None,
):
    """The verdict, directly under the prediction (first in the part's gated cell, or in a cell
    of its own for a notebook's first prediction): correct, or the misconception named (with the
    committed first answer when the student has since changed it); in instructor mode the answer
    key; while unanswered nothing, or with ``locked`` (a cell of its own: "Part A") the locked
    note for it, which the part's gated cell then leaves out (it would stay on the page, dimmed,
    while that cell draws the first chart after the verdict)."""
    global _ANSWERED
    value = getattr(radio, "value", radio)
    first = saved.first_for(pred) if saved is not None else None
    if value is None:
        if unlocked:
            return answer_key(pred)
        return locked_note(locked) if locked is not None else None
    _ANSWERED = True
    items = [pred.respond(value, unlocked, first=first if first is not None else value)]
    if unlocked:
        items.append(answer_key(pred))
    return items[0] if len(items) == 1 else _mo().vstack(items)


def transfer(pred: Prediction, radio, unlocked: bool = False, saved: Saved | None = None):
    """A transfer question after a part's reveal: the radio and, once it is answered, its verdict
    under it (with the committed first answer when the student has since changed it, as for a
    prediction). Unanswered, nothing under it: the part is already open, so no locked note; in
    instructor mode the answer key."""
    v = verdict(pred, radio, unlocked, saved)
    return _mo().vstack([radio] if v is None else [radio, v])


# --------------------------------------------------------------------------------------------
# Display components
# --------------------------------------------------------------------------------------------


def header(kicker: str, title: str, goal: str, badges: Iterable[str] = ()):
    _texts(kicker=kicker, title=title, goal=goal)
    if not isinstance(badges, list | tuple):
        raise ValueError(f"badges must be a list of short texts, got {_short(badges)}")
    mo = _mo()
    chips = "".join(f'<span class="ms-badge">{_e(b)}</span>' for b in badges)
    return mo.Html(
        f'<div class="ms-header"><div class="ms-kicker">{_e(kicker)}</div>'
        f'<h1>{_e(title)}</h1><div class="ms-goal">{_e(goal)}</div>'
        f'<div class="ms-badges">{chips}</div></div>'
    )


def message(sender: str, role: str, text: str):
    """A stakeholder message framing the part's question."""
    _texts(sender=sender, role=role, text=text)
    mo = _mo()
    return mo.Html(
        f'<div class="ms-message"><div class="ms-from">Incoming message · {_e(sender)}, {_e(role)}</div>'
        f"<blockquote>&ldquo;{_e(text)}&rdquo;</blockquote></div>"
    )


# what a failed computation prints: nan/inf in any case, Python's None, JS's null/undefined, an
# error or a traceback ("none" in lower case is an English word: "Crossover: none")
_BAD_VALUE = re.compile(
    r"(?i:\b(nan|inf|infinity)\b|^\s*error\b|traceback)|\b(None|null|undefined|NULL)\b"
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

    if not isinstance(quantity, str) or quantity not in QUANTITIES:
        raise ValueError(
            f"quantity={_short(quantity)} is not in vocab.QUANTITIES; allowed: "
            f"{', '.join(QUANTITIES)}"
        )
    v = _finite(value, f"value ({quantity})")
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
        for what in ("value", "note"):
            text = str(getattr(self, what))
            if _BAD_VALUE.search(text):
                raise ValueError(f"card {self.label!r} would show {what} {text!r}")


def cards(items: Sequence[Card]):
    if not isinstance(items, list | tuple):
        raise ValueError(f"items must be a list of Card, got {_short(items)}")
    for i, c in enumerate(items):
        if not isinstance(c, Card):
            raise ValueError(f"items[{i}] must be a Card, got {_short(c)}")
    mo = _mo()
    body = "".join(
        f'<div class="ms-card {_e(c.status)}"><div class="ms-label">{_e(c.label)}</div>'
        f'<div class="ms-value">{_e(c.value)}</div><div class="ms-note">{_e(c.note)}</div></div>'
        for c in items
    )
    return mo.Html(f'<div class="ms-cards">{body}</div>')


def math_peek(title: str, lines: Sequence[str], note: str = ""):
    """An accordion with the formula and the live numbers substituted (one line each), shown
    as preformatted plain text (no markdown fence a line could break out of)."""
    _texts(title=title, note=note)
    if not isinstance(lines, list | tuple):
        raise ValueError(f"lines must be a list of text lines, got {_short(lines)}")
    mo = _mo()
    block = _e("\n".join(str(x) for x in lines))
    body = f'<pre class="ms-peek">{block}</pre>'
    if note:
        body += _render_md(note)
    return mo.accordion({f"MathPeek: {_md_src(title)}": mo.Html(body)})


def feasibility(need_bytes: float, device, what: str = "This configuration"):
    """Fits / does not fit callout against ``device.memory.capacity`` (never raises for OOM)."""
    _texts(what=what)
    need = _finite(need_bytes, "need_bytes")
    try:
        cap = _finite(device.memory.capacity.m_as("B"), "device.memory.capacity")
    except AttributeError:
        raise ValueError(f"device must be a hardware Device, got {_short(device)}") from None
    if need <= cap:
        share = f"{need / cap:.1%} of" if cap > 0 else "all of"
        return _callout(
            f"<strong>Fits.</strong> {_e(what)} needs {fmt_bytes(need)}, {share} the "
            f"{_e(catalogue.short(device.name))}'s {fmt_bytes(cap)}.",
            "success",
        )
    return _callout(
        f"<strong>Out of memory.</strong> {_e(what)} needs {fmt_bytes(need)}: "
        f"{fmt_bytes(need - cap)} more than the {_e(catalogue.short(device.name))}'s {fmt_bytes(cap)}"
        # two decimals near 1 (an overflow of 4% is '1.04×', not '1.0× its capacity')
        + (
            f" ({need / cap:,.{2 if need / cap < 1.1 else 1}f}× its capacity)"
            if cap > 0 and need / cap < 1e300
            else ""
        )
        + ". This is a feasibility failure, not a slowdown.",
        "danger",
    )


def error_note(exc: Exception):
    """Show a validation error to a student as a sentence, never as a traceback."""
    msg = str(exc).splitlines()
    useful = [m for m in msg if m.strip() and not m.strip().startswith("For further information")]
    return _callout(
        "<strong>That input is not valid.</strong> " + _e(" ".join(useful[-2:])), "danger"
    )


# --------------------------------------------------------------------------------------------
# Widget specs: one definition feeds the notebook's widget and the test harness's grid
# --------------------------------------------------------------------------------------------


def _restored(saved, spec):
    return saved.value_for(spec) if saved is not None else None


@dataclass(frozen=True)
class Slider:
    label: str
    start: float
    stop: float
    value: float
    step: float = 1

    def __post_init__(self):
        for name in ("start", "stop", "value", "step"):
            _finite(getattr(self, name), f"{self.label}: {name}", negative=True)
        if not self.step > 0:
            raise ValueError(f"{self.label}: step must be a number > 0, got {_short(self.step)}")
        if not (self.start <= self.value <= self.stop):
            raise ValueError(
                f"{self.label}: value {self.value} outside [{self.start}, {self.stop}]"
            )

    def check(self, name: str, v):
        """``v`` as a part function receives it from this slider, else a ValueError naming the
        argument ``name`` and the slider's range: a real number in [start, stop], whole when the
        slider moves in whole steps (returned as an int; -0.0 as 0.0)."""
        whole = isinstance(self.value, int) and all(
            float(x).is_integer() for x in (self.start, self.stop, self.step)
        )
        kind = "a whole number" if whole else "a number"
        if (
            isinstance(v, bool)
            or not isinstance(v, numbers.Real)
            or not is_finite(v)
            or not self.start <= v <= self.stop
            or (whole and not float(v).is_integer())
        ):
            raise ValueError(
                f"{name} must be {kind} in [{self.start:,g}, {self.stop:,g}] (the slider "
                f"{self.label!r}), got {_short(v)}"
            )
        return int(v) if whole else float(v) + 0.0

    def restore(self, v) -> float:
        """A saved position if it is still reachable, else the default."""
        if not isinstance(v, int | float) or not is_finite(v):
            return self.value
        if not (self.start <= v <= self.stop):
            return self.value
        return type(self.value)(v) if isinstance(self.value, int) and float(v).is_integer() else v

    def widget(self, saved: Saved | None = None):
        el = _mo().ui.slider(
            start=self.start,
            stop=self.stop,
            step=self.step,
            value=self.restore(_restored(saved, self)),
            label=_md_src(self.label),
            show_value=True,
        )
        if saved is not None:
            saved.created(self, el)
        return el

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
        if not isinstance(self.options, Mapping) or not _has(self.options, self.value):
            raise ValueError(
                f"{self.label}: default value={_short(self.value)} is not one of the options "
                f"{_short(self.options if not isinstance(self.options, Mapping) else list(self.options), 200)}"
            )

    def check(self, name: str, v) -> str:
        """``v`` if it is one of this choice's keys, else a ValueError naming ``name`` and them."""
        if not isinstance(v, str) or v not in self.options:
            raise ValueError(
                f"{name} must be one of {_short(list(self.options), 300)} (the choice "
                f"{self.label!r}), got {_short(v)}"
            )
        return v

    def restore(self, v) -> str:
        return v if isinstance(v, str) and v in self.options else self.value

    def widget(self, saved: Saved | None = None):
        opts = {clean_text(v): k for k, v in self.options.items()}
        value = clean_text(self.options[self.restore(_restored(saved, self))])
        if self.dropdown:
            el = _mo().ui.dropdown(options=opts, value=value, label=_md_src(self.label))
        else:
            el = _mo().ui.radio(
                options=opts, value=value, label=_md_src(self.label), inline=self.inline
            )
        if saved is not None:
            saved.created(self, el)
        return el

    def grid(self) -> list:
        return list(self.options)


@dataclass(frozen=True)
class Toggle:
    label: str
    value: bool = False

    def __post_init__(self):
        if not isinstance(self.value, bool):
            raise ValueError(f"{self.label}: value must be True or False, got {_short(self.value)}")

    def check(self, name: str, v) -> bool:
        """``v`` if it is True or False, else a ValueError naming ``name``."""
        if not isinstance(v, bool):
            raise ValueError(
                f"{name} must be True or False (the switch {self.label!r}), got {_short(v)}"
            )
        return v

    def restore(self, v) -> bool:
        return v if isinstance(v, bool) else self.value

    def widget(self, saved: Saved | None = None):
        el = _mo().ui.switch(value=self.restore(_restored(saved, self)), label=_md_src(self.label))
        if saved is not None:
            saved.created(self, el)
        return el

    def grid(self) -> list:
        return [False, True]


@dataclass(frozen=True)
class TextBox:
    """Free text a student types or pastes (e.g. a config.json), restored from the ledger."""

    label: str
    value: str = ""
    rows: int = 8
    max_length: int = 100_000

    def __post_init__(self):
        for name, hi in (("rows", 1_000), ("max_length", 10_000_000)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= hi:
                raise ValueError(
                    f"{self.label}: {name} must be a whole number in [1, {hi:,}], got {_short(v)}"
                )
        if not isinstance(self.value, str) or len(self.value) > self.max_length:
            raise ValueError(
                f"{self.label}: value must be text of at most max_length={self.max_length:,} "
                f"characters, got {_short(self.value)}"
            )

    def check(self, name: str, v) -> str:
        """``v`` if it is text of at most ``max_length`` characters, else a ValueError naming
        ``name``."""
        if not isinstance(v, str) or len(v) > self.max_length:
            raise ValueError(
                f"{name} must be text of at most {self.max_length:,} characters (the box "
                f"{self.label!r}), got {_short(v)}"
            )
        return v

    def restore(self, v) -> str:
        return v if isinstance(v, str) and len(v) <= self.max_length else self.value

    def widget(self, saved: Saved | None = None):
        el = _mo().ui.text_area(
            value=self.restore(_restored(saved, self)),
            label=_md_src(self.label),
            rows=self.rows,
            max_length=self.max_length,
            full_width=True,
        )
        if saved is not None:
            saved.created(self, el)
        return el

    def grid(self) -> list:
        """Empty text, hostile text and the default (last: the state 'every widget at its end'
        runs, where a notebook must still draw its charts)."""
        return ["", "A sentence <b>and</b> [a link](javascript:alert(1)).", self.value]


def widget_args(fn: Callable) -> Callable:
    """A part function (``part_x`` or ``synthesis``) whose arguments are its widgets' values:
    before it runs, each argument is checked by the widget named ``<X>_<ARGUMENT>`` in the
    part's module (``X`` the part's letter, ``S`` for the synthesis; ``Slider.check`` and the
    others) and refused with a ValueError naming the argument and what the widget allows. So a
    part takes exactly what a student can set, and nothing a widget cannot produce reaches the
    cost models (a width of 2.5, a depth of 0, an unknown device key)."""
    import functools
    import inspect
    import sys

    sig = inspect.signature(fn)
    letter = "S" if fn.__name__ == "synthesis" else fn.__name__.rpartition("_")[2].upper()
    specs: dict = {}

    @functools.wraps(fn)
    def run(*args, **kwargs):
        if not specs:  # the module's widgets, looked up once it has finished loading
            mod = sys.modules[fn.__module__]
            specs.update({n: getattr(mod, f"{letter}_{n.upper()}") for n in sig.parameters})
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{fn.__name__}{sig}: {e}") from None
        bound.apply_defaults()
        for n, v in bound.arguments.items():
            bound.arguments[n] = specs[n].check(n, v)
        return fn(*bound.args, **bound.kwargs)

    return run


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


def chart_items(figure, summary: str = "") -> list:
    """A chart as every notebook shows it: the chart rules applied (``charts.finalize``) and,
    right after it, its text alternative for screen readers."""
    from .charts import finalize, text_alternative

    fig = finalize(figure)
    return [fig, _mo().Html(f'<p class="ms-chart-alt">{_e(text_alternative(fig, summary))}</p>')]


def chart(figure, summary: str = ""):
    """``chart_items`` stacked, for a notebook cell that shows a figure outside a part's View."""
    return _mo().vstack(chart_items(figure, summary))


def show(view: View, feedback=None):
    """Lay out a part: prediction feedback (if passed; notebooks show the verdict first in the
    gated cell, under the question, instead), chart, its text alternative, cards, sentence,
    optional alert, MathPeek."""
    mo = _mo()
    items = [] if feedback is None else [feedback]
    items += [*chart_items(view.figure, view.summary), cards(view.cards), _md(view.summary)]
    if view.alert is not None:
        items.append(view.alert)
    items.append(math_peek(view.peek_title, view.peek))
    return mo.vstack(items)


def view_key(part) -> str:
    """``<lab module>.<part function>``: the name a part's precomputed view is kept under."""
    return f"{part.__module__.rpartition('.')[2]}.{part.__name__}"


def args_key(args: Sequence) -> str:
    """A part's arguments as one comparable text: a number by its value (a slider may give
    ``224`` or ``224.0``), a flag and a text as they are."""

    def one(v):
        v = _value(v)
        if isinstance(v, numbers.Real) and not isinstance(v, bool):
            return float(v)
        return v

    return repr([one(v) for v in args])


def precomputed_view(part, args: Sequence) -> str | None:
    """The HTML that ``show(part(*args))`` gives in a running notebook, read from
    ``mlsysim.labs.first_views`` when these are the arguments it was made for (a lab's first
    part at its widgets' starting positions), else None."""
    from .first_views import VIEWS

    hit = VIEWS.get(view_key(part))
    return hit[1] if hit is not None and hit[0] == args_key(args) else None


def show_part(part, *args):
    """``show(part(*args))``, for the part a student's first answer unlocks. In the browser, at
    the arguments its view was precomputed for (``python scripts/precompute_views.py``), the
    view is that HTML: the first answer's chart then needs none of plotly, pint and pydantic,
    which the page loads after the first question (loading and importing them held an answer
    given at once ~1.3 s in Pyodide, issue 35). Elsewhere, and at any other position, the part
    is drawn from the core; tests/test_first_views.py checks the two are the same."""
    import sys

    global _COPY_SHOWN
    if sys.platform == "emscripten":
        html_text = precomputed_view(part, args)
        if html_text is not None:
            from . import browser

            first, _COPY_SHOWN = not _COPY_SHOWN, True
            # an answer's run (not the first run of a reload), once: a slider moved back to the
            # starting position later shows the copy at once
            if first and browser.page_is_live():
                import time

                time.sleep(FIRST_VIEW_AFTER_VERDICT_S)
                # the answer is judged and its chart on its way: the worker has nothing else to
                # do, and the student's next move (a slider) needs the packages and a warm draw
                hurry_warm_up()
            return _mo().Html(html_text)
    return show(part(*args))


#: How long the first answer's precomputed view waits after its verdict (s), in the browser: sent
#: at once it reached the page with the verdict, and the page drew both in one go, Plotly's first
#: draw of a chart holding the verdict's text off the screen with it (the verdict showed 0.4-1.2 s
#: after the click instead of ~0.2 s). The worker waits; the page paints the verdict meanwhile.
FIRST_VIEW_AFTER_VERDICT_S = 0.3


# --------------------------------------------------------------------------------------------
# The ledger in a notebook: restore on reload, record answers, the student's report
# --------------------------------------------------------------------------------------------

_SPEC_TYPES = (Prediction, Slider, Choice, Toggle, TextBox)


def _own_values(lab):
    """A lab module's names and values, the modules it imports left out: a cost model it reaches
    lazily (``mlsysim._lazy``) is imported by the first look at it, even ``isinstance``."""
    return [(k, v) for k, v in vars(lab).items() if not isinstance(v, ModuleType)]


def questions(lab) -> dict[str, tuple[str, Prediction]]:
    """Every prediction of a lab module, in definition order: ledger key -> (attribute, spec).
    ``PRED_X`` is recorded as ``X`` (the part letter), ``TRANSFER_X`` as ``X.transfer``, any other
    ``Prediction`` under its attribute name."""
    out = {}
    for name, obj in _own_values(lab):
        if isinstance(obj, Prediction) and name.isupper():
            if name.startswith("PRED_"):
                key = name[5:]
            elif name.startswith("TRANSFER_"):
                key = f"{name[9:]}.transfer"
            else:
                key = name
            out[key] = (name, obj)
    return out


class Saved:
    """What the ledger holds for one notebook, for restoring widgets on reload:
    ``saved = kit.saved(ledger, lab)`` in its own cell, then ``lab.PRED_A.radio(saved)`` and
    ``lab.A_UNITS.widget(saved)``. Widgets created through it are remembered so that
    ``kit.record`` saves each position under its spec's name."""

    def __init__(self, ledger, lab):
        self.ledger = ledger
        self.lab = lab
        rec = ledger.chapter(lab.CHAPTER) if ledger is not None else None
        self.answers = dict(rec.answers) if rec else {}
        self.attempts = dict(rec.attempts) if rec else {}
        self.widgets = dict(rec.widgets) if rec else {}
        self.text = dict(rec.text) if rec else {}
        self.student = ledger.student if ledger is not None else ""
        # a spec bound to two names (``E_DEVICE = DEVICE``, for a part's widget grid) is saved
        # under the first, the one its widget cell uses
        self._names: dict[int, str] = {}
        for k, v in _own_values(lab):
            if isinstance(v, _SPEC_TYPES):
                self._names.setdefault(id(v), k)
        self._keys = {id(spec): key for key, (_, spec) in questions(lab).items()}
        self._elements: dict[int, str] = {}

    def name_of(self, spec) -> str:
        try:
            return self._names[id(spec)]
        except KeyError:
            raise ValueError(f"{spec!r} is not defined in {self.lab.__name__}") from None

    def value_for(self, spec):
        if isinstance(spec, Prediction):
            return self.answers.get(self._keys.get(id(spec), ""))
        return self.widgets.get(self.name_of(spec))

    def first_for(self, pred: Prediction) -> str | None:
        """The committed first answer, read from the ledger now (it may have been made since
        this notebook was loaded)."""
        rec = self.ledger.chapter(self.lab.CHAPTER) if self.ledger is not None else None
        att = (rec.attempts if rec else self.attempts).get(self._keys.get(id(pred), ""))
        return att.first if att else None

    def created(self, spec, element) -> None:
        self._elements[id(element)] = self.name_of(spec)

    def spec_name(self, element, var_name: str) -> str:
        """The spec attribute a widget was created from (by identity), else its variable name
        upper-cased (the notebooks' convention: ``a_units = lab.A_UNITS.widget(saved)``; a spec
        whose name differs only by underscores, ``c_cout`` for ``C_C_OUT``, is matched too)."""
        if id(element) in self._elements:
            return self._elements[id(element)]
        want = var_name.upper()
        squeezed = {n.replace("_", ""): n for n in self._names.values()}
        return want if want in self._names.values() else squeezed.get(want.replace("_", ""), want)


def saved(ledger, lab) -> Saved:
    return Saved(ledger, lab)


def student_field(saved: Saved | None = None):
    """Optional name or student ID for the report (restored from the ledger)."""
    value = saved.student if saved is not None else ""
    return _mo().ui.text(
        value=value,
        label=(
            "Your name or student ID (optional): it goes into your report, and is kept on this "
            "computer (your browser's storage on the website) to fill this field in every lab"
        ),
        max_length=200,
        full_width=True,
    )


SYNTHESIS_PROMPT = (
    "Justify your synthesis choice: which constraint decides it (memory, time, energy or the "
    "device's budget you set), and which numbers from the parts support it? Cite the "
    'parts (e.g. "Part B showed ...").'
)


REFLECTION_PROMPT = (
    "In two or three sentences: which result in this notebook contradicted your "
    "prediction, and what would you now tell the person who asked? Cite the parts."
)


def justification_field(lab, saved: Saved | None = None):
    """The written justification of the synthesis (restored from the ledger). The prompt is the
    lab's ``SYNTHESIS_PROMPT`` when it defines one."""
    value = saved.text.get("justification", "") if saved is not None else ""
    default = SYNTHESIS_PROMPT if hasattr(lab, "synthesis") else REFLECTION_PROMPT
    prompt = getattr(lab, "SYNTHESIS_PROMPT", default)
    return _mo().ui.text_area(
        value=value, label=_md_src(prompt), rows=5, max_length=5000, full_width=True
    )


def _value(x):
    return getattr(x, "value", x)


def first_part(lab, saved: Saved | None = None):
    """``(part_function, args)``: a lab's first part as its widgets start (saved positions
    restored). Each argument of ``part_x`` is the widget spec ``X_<ARG>`` of the lab module."""
    import inspect

    letter = lab.PARTS[0]
    fn = getattr(lab, f"part_{letter.lower()}")
    args = []
    for name in inspect.signature(fn).parameters:
        spec = getattr(lab, f"{letter}_{name.upper()}")
        args.append(spec.restore(_restored(saved, spec)))
    return fn, args


def design_numbers(design) -> dict[str, object]:
    """A design as storable key numbers: a mapping is kept (non-finite numbers dropped by the
    ledger with a warning); a ``View`` (the synthesis) gives its cards, label -> shown value."""
    if design is None:
        return {}
    if hasattr(design, "cards") and not isinstance(design, Mapping):
        return {clean_text(c.label): clean_text(c.value) for c in design.cards}
    out = {}
    for k, v in dict(design).items():
        v = getattr(v, "value", v)
        out[clean_text(k)] = clean_text(v) if isinstance(v, str) else v
    return out


def report_stem(notebook: str, student: str = "") -> str:
    """A report file's name without extension: ``mlsysim-report-<notebook>[-<name>]``, ASCII
    letters, digits and ``_`` only."""
    _texts(notebook=notebook, student=student)
    nb = re.sub(r"[^A-Za-z0-9_]+", "-", clean_text(notebook)).strip("-")[:60] or "notebook"
    who = re.sub(r"[^A-Za-z0-9]+", "-", clean_text(student)).strip("-")[:40]
    return f"mlsysim-report-{nb}" + (f"-{who}" if who else "")


_WARMED: set[str] = set()


#: How long after the notebook's first run the warm-up starts (s). Loading plotly, pint and
#: pydantic holds the Python worker for most of a second on a quiet 2-core laptop and for
#: seconds on a busy one (unpacking, pydantic-core's wasm library), and a click in that time is
#: answered only after it: with the warm-up 0.1 s after the first run (before the page's boot
#: script even lets the widgets go, 0.3 s after it) a student who answered the moment the
#: question went live waited 4-7 s for the verdict (issue 35). Started later, such an answer
#: finds the worker free: its verdict (a cell of its own) shows at once and its chart cell loads
#: the packages itself (``browser.LoadOnImport``); a student who reads first finds them loaded.
#: At 2 s, on a busy 2-core machine, an answer given at once (the browser test's, polling every
#: 250 ms) still fell into the warm-up in some loads: 4 s leaves that margin, and a student
#: reads a question for longer than that. Counted from when the page shows the question live
#: (the site's boot script tells the worker: ``browser.page_live``), not from the kernel's first
#: run: under load the page goes live seconds after that run, and the 4 s had passed before the
#: student could click (measured: the commit's request waited 16 s for the worker).
WARM_UP_DELAY_S = 4.0
#: the warm-up's pause after loading each package, in which an answer already given runs first
WARM_UP_STEP_S = 0.05
#: a prediction has been answered on this page (``verdict``): the warm-up draws nothing more,
#: since the answer's chart cell draws the part itself
_ANSWERED = False
#: ... unless that chart was the precomputed copy (``show_part``): then nothing has drawn the
#: part from the core yet, and the warm-up still draws it once, unseen, so that the first
#: slider step does not pay for it (the answer's chart no longer warms the caches)
_COPY_SHOWN = False
#: the warm-up starts at once, its delay cut short (``hurry_warm_up``); ``event``: what a warm-up
#: waiting out its delay waits on
_HURRY: dict = {"now": False, "event": None}


def hurry_warm_up() -> None:
    """Start the warm-up now instead of ``WARM_UP_DELAY_S`` after the page went live: called once
    the first answer's verdict and its precomputed chart are out (``show_part``). The delay kept
    the worker free for an answer given at once; after it the worker is idle, and the student's
    next move, a slider step, would otherwise load plotly, pint and pydantic and draw the part
    cold itself (the first step took 0.5-1.2 s in the browser test, the later ones 0.11-0.21 s
    while the delayed warm-up ran beside them)."""
    _HURRY["now"] = True
    if _HURRY["event"] is not None:
        _HURRY["event"].set()


async def _warm_up_pause(delay_s: float) -> None:
    """Wait ``delay_s``, or less if ``hurry_warm_up`` is called meanwhile (or was before)."""
    import asyncio

    if _HURRY["now"]:
        return
    event = _HURRY["event"] = asyncio.Event()
    try:
        await asyncio.wait_for(event.wait(), delay_s)
    except TimeoutError:
        pass
    finally:
        _HURRY["event"] = None


def warm_up(lab, saved: Saved | None = None, delay_s: float = WARM_UP_DELAY_S):
    """In the browser only, once per lab: shortly after the notebook's first run, load the
    packages the page left for later (plotly, pint, pydantic: ``browser.preload``) and draw the
    first part once, unseen, so that the student's first answer finds them, the core and the
    part's caches already loaded (in Pyodide the first draw costs ~0.7 s, the next ~20 ms). Scheduled on the
    event loop, so it runs while the student reads the question; an error in it is printed to
    the browser console, never hidden. Returns the timer handle (``None`` outside Pyodide or when
    already scheduled)."""
    import sys

    if sys.platform != "emscripten" or lab.__name__ in _WARMED:
        return None
    import asyncio

    from . import browser

    _WARMED.add(lab.__name__)

    async def _draw():
        from .. import _lazy

        # counted from when the student can answer, not from the kernel's first run: on a busy
        # machine the page shows that run seconds later, and an answer given at once would
        # fall into the warm-up (issue 35)
        if await browser.page_live():
            await _warm_up_pause(delay_s)
        # one package at a time, with a pause after each: the worker runs Python and unpacks
        # wheels on one thread, so an answer given while the warm-up loads waits at most for
        # one package (it used to wait for all three and the draw: 1-5 s); the answer's cells
        # are queued on the same event loop and run in the pause
        for package in sorted(set(browser.LATER.values())):
            await browser.preload([package])
            await asyncio.sleep(WARM_UP_STEP_S)
        if _ANSWERED and not _COPY_SHOWN:
            return  # the packages are loaded; the answer's own chart cell drew the part
        # a cell may be half-way through importing the core, paused while a package loads (a
        # reload restoring an unlocked part, an early answer): let it finish before touching it
        for _ in range(1200):
            if not _lazy.loading():
                break
            await asyncio.sleep(0.05)
        else:
            return  # the draw only warms caches: skip it
        if not hasattr(lab, f"part_{lab.PARTS[0].lower()}"):
            return  # nothing to draw (the concept inventory): the packages are loaded
        if _ANSWERED and not _COPY_SHOWN:
            return
        fn, args = first_part(lab, saved)
        show(fn(*args))

    def _report(task):
        if not task.cancelled() and task.exception() is not None:
            import traceback

            traceback.print_exception(task.exception(), file=sys.stderr)

    def _start():
        _TASKS.add(task := asyncio.ensure_future(_draw()))
        task.add_done_callback(_TASKS.discard)
        task.add_done_callback(_report)

    return asyncio.get_event_loop().call_later(0 if browser.page_listening() else delay_s, _start)


#: warm-up tasks under way (the event loop keeps only weak references to tasks)
_TASKS: set = set()


async def record(
    ledger,
    lab,
    answers: Mapping[str, object] | None = None,
    design: Mapping[str, object] | View | None = None,
    *,
    widgets: Mapping[str, object] | None = None,
    saved: Saved | None = None,
    student=None,
    justification=None,
    synthesis=None,
    synthesis_args: Sequence = (),
    notebook: str | None = None,
):
    """Save this notebook's answers, widget positions and design to the ledger and show the
    progress line, the report fields and the "Download my report" buttons.

    ``widgets`` maps each widget's variable name to the widget (``dict(pred_a=pred_a,
    a_units=a_units, ...)``): predictions (``PRED_X`` -> part X; any other ``Prediction`` such as
    ``TRANSFER_X`` under its name) are recorded as answers with their correctness, everything else
    as a position restored on reload. ``answers`` (key -> value) is still accepted. ``design``
    (a mapping, or the synthesis ``View`` whose cards are the design's key numbers) goes into the
    report, and so do the cards of the synthesis: ``synthesis=lab.synthesis,
    synthesis_args=(s_model.value, ...)`` is called only once every ``PRED_X`` is answered (a
    ``View`` is also accepted). Nothing is saved until something is answered (completion comes from real answers)."""
    from marimo._plugins.ui._core.ui_element import UIElement

    from .._lazy import lazy

    # the report module (pydantic) is imported when there is something to report, not in a
    # first visit's first run
    reports = lazy("mlsysim.labs.reports")
    # the record cell reads every widget, so it is the last cell of a notebook's first run: the
    # unseen first draw is scheduled from here (a no-op outside the browser and after the first)
    warm_up(lab, saved)
    mo = _mo()
    qs = questions(lab)
    by_attr = {attr: key for key, (attr, _) in qs.items()}
    ans: dict[str, object] = {k: _value(v) for k, v in (answers or {}).items()}
    positions: dict[str, object] = {}
    for var, el in (widgets or {}).items():
        name = saved.spec_name(el, var) if saved is not None else var.upper()
        if name in by_attr:
            ans[by_attr[name]] = _value(el)
        else:
            positions[name] = _value(el)
    correct = {k: qs[k][1].is_correct(v) for k, v in ans.items() if k in qs and v is not None}
    numbers = design_numbers(design)
    preds = [k for k, (attr, _) in qs.items() if attr.startswith("PRED_")]
    if callable(synthesis) and all(ans.get(k) is not None for k in preds):
        # the synthesis (``lab.synthesis`` and its widget values) is computed for the report only
        # once every prediction is answered, like the synthesis cell itself
        numbers.update(design_numbers(synthesis(*synthesis_args)))
    elif synthesis is not None and not callable(synthesis):
        numbers.update(design_numbers(synthesis))
    text = {}
    if justification is not None:
        text["justification"] = str(_value(justification) or "")
    if unlock_requested():  # instructor mode shows every answer key: the report says so
        text["opened_unlocked"] = "yes"
    name = None if student is None else str(_value(student) or "")
    if any(v is not None for v in ans.values()) or "opened_unlocked" in text:
        await ledger.save_async(
            chapter=lab.CHAPTER,
            design=numbers,
            answers=ans,
            required=getattr(lab, "REQUIRED", lab.PARTS),
            correct=correct,
            widgets=positions,
            text=text,
            student=name,
        )
    items = [el for el in (justification, student) if isinstance(el, UIElement)]
    if items:
        items.insert(0, mo.md("## Your report"))
    items.append(
        mo.Html(
            f'<div class="ms-ledger"><strong>Design ledger:</strong> {_e(ledger.summary())}</div>'
        )
    )
    if ledger.warning:
        items.append(_callout(_e(ledger.warning), "warn"))
    # lazy: the report is built from the ledger when the button is pressed (nothing of it sits in
    # the page, and moving a slider does not rebuild it)
    justification_text = text.get("justification", "")

    def report():
        return reports.build(
            ledger,
            lab,
            student=name or "",
            notebook=notebook,
            design=numbers,
            justification=justification_text,
        )

    stem = report_stem(notebook or lab.__name__.rsplit(".", 1)[-1], name or "")
    items.append(
        mo.hstack(
            [
                mo.download(
                    data=lambda: reports.to_markdown(report()).encode("utf-8"),
                    filename=f"{stem}.md",
                    mimetype="text/markdown",
                    label="Download my report",
                ),
                mo.download(
                    data=lambda: reports.to_json(report()).encode("utf-8"),
                    filename=f"{stem}.json",
                    mimetype="application/json",
                    label="Report as JSON (for your instructor)",
                ),
            ],
            justify="start",
        )
    )
    return mo.vstack(items)
