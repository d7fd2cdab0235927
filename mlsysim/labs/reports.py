"""Student reports and the class view.

A report is built from the design ledger and the notebook's lab module (``mlsysim.labs.parts``):
every prediction (first attempt with its time and correctness, never overwritten; the final
answer; how often it changed; the misconception named by the first answer's feedback), the
transfer questions, the synthesis choices, the key numbers of the design and a written
justification, the mlsysim version and a SHA-256 of the lab module (the question bank and part
functions the student saw, identical on the desktop and in the browser). Nothing leaves the
student's machine: the notebook offers it as a download.

Two formats, one content: ``to_json`` (a program reads it) and ``to_markdown`` (a person reads
it; the same JSON rides along in an HTML comment, so an instructor may collect either file).
``parse`` reads both and refuses anything else with a clear message.

The class view: ``summarize(reports)`` (completion, per-question answer distributions of first
attempts, the most common misconceptions, first-attempt accuracy per part) and ``class_rows`` /
``to_csv`` (one row per student and chapter) for a grading script::

    python -m mlsysim.labs.reports DIR -o class.csv
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import hashlib
import io
import json
import math
import re
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .components import design_numbers
from .state import clean_text, short_repr

__all__ = [
    "Report",
    "ReportError",
    "build",
    "to_json",
    "to_markdown",
    "parse",
    "load_dir",
    "summarize",
    "class_rows",
    "to_csv",
    "hake_gain",
    "bootstrap_gain_ci",
    "inventory_summary",
    "inventory_rows",
    "design_numbers",
    "notebook_sha256",
    "main",
]

REPORT_APP = "mlsysim-report"
REPORT_SCHEMA = 1
_MD_MARK = "mlsysim-report"
#: where the JSON of a ``.md`` report starts: ``<!-- mlsysim-report`` and the end of its line
_MD_OPEN = re.compile(r"<!--\s*mlsysim-report[^\S\n]*\n")


class ReportError(ValueError):
    """A file that is not a readable mlsysim report (the message says why)."""


class Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    key: str
    part: str = ""
    kind: str = "prediction"  # "prediction" or "transfer"
    question: str = ""
    options: dict[str, str] = Field(default_factory=dict)
    correct_option: str = ""
    first: str | None = None
    first_correct: bool | None = None
    first_at: str = ""
    final: str | None = None
    final_correct: bool | None = None
    changes: int = 0
    misconception: str = ""


class Synthesis(BaseModel):
    model_config = ConfigDict(extra="ignore")
    choices: dict[str, str] = Field(default_factory=dict)
    design: dict[str, str | int | float | bool | None] = Field(default_factory=dict)
    justification: str = ""


class Report(BaseModel):
    model_config = ConfigDict(extra="ignore")
    app: Literal["mlsysim-report"] = REPORT_APP
    schema_version: int = REPORT_SCHEMA
    mlsysim_version: str = ""
    chapter: str
    notebook: str = ""
    notebook_sha256: str = ""
    generated: str = ""
    student: str = ""
    parts: list[str] = Field(default_factory=list)
    completed: bool = False
    #: the lab was opened in instructor mode at some point (every answer key shown)
    opened_unlocked: bool = False
    answers: list[Answer] = Field(default_factory=list)
    synthesis: Synthesis = Field(default_factory=Synthesis)
    widgets: dict[str, str | int | float | bool | None] = Field(default_factory=dict)
    source: str = ""  # the file it was read from (set by parse, not written)


# --------------------------------------------------------------------------------------------
# Building a report
# --------------------------------------------------------------------------------------------


def notebook_sha256(lab) -> str:
    """SHA-256 of the lab module's source (its questions, options, feedback and part functions)."""
    path = getattr(lab, "__file__", None)
    if not path:
        return ""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


def _part_of(key: str, parts: Sequence[str]) -> str:
    if key in parts:
        return key
    if key.endswith(".transfer"):
        return key.split(".", 1)[0]
    m = re.search(r"(?:^|_)([A-Z])$", key)
    return m.group(1) if m else ""


def _part_in(lab, key: str, parts: Sequence[str]) -> str:
    """The part a question key belongs to: the lab's ``PART_OF`` (the inventory: item -> concept)
    where it names one, else by the labs' naming convention."""
    return getattr(lab, "PART_OF", {}).get(key) or _part_of(key, parts)


def _kind_in(lab, attr: str, pred) -> str:
    """ "inventory" for an item of the concept inventory, "transfer" for a transfer question (or
    any question not named ``PRED_*``), else "prediction"."""
    if getattr(lab, "INVENTORY", None):
        return "inventory"
    if getattr(pred, "kind", "predict") == "transfer" or not attr.startswith("PRED_"):
        return "transfer"
    return "prediction"


def _finite_only(values: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in values.items():
        if isinstance(v, float) and not math.isfinite(v):
            continue
        out[clean_text(k)] = clean_text(v) if isinstance(v, str) else v
    return out


def build(
    ledger,
    lab,
    student: str = "",
    notebook: str | None = None,
    design: Mapping[str, Any] | None = None,
    justification: str | None = None,
) -> Report:
    """The report of one notebook from the ledger's record of ``lab.CHAPTER``."""
    from .. import __version__
    from .components import Choice, questions

    rec = ledger.chapter(lab.CHAPTER) if ledger is not None else None
    parts = [str(p) for p in getattr(lab, "PARTS", ())]
    #: the inventory's pre-test reveals nothing, its report included: the answers committed, no
    #: verdict, correct option or misconception (the class view regrades them from the keys)
    blind = getattr(lab, "INVENTORY", None) == "pre"
    answers = []
    for key, (attr, pred) in questions(lab).items():
        att = rec.attempts.get(key) if rec else None
        final = rec.answers.get(key) if rec else None
        first = att.first if att else final
        answers.append(
            Answer(
                key=clean_text(key),
                part=_part_in(lab, key, parts),
                kind=_kind_in(lab, attr, pred),
                question=clean_text(pred.question),
                options={k: clean_text(v) for k, v in pred.options.items()},
                correct_option=clean_text(pred.answer)
                if first is not None and not blind
                else "",  # no spoiler
                first=first,
                first_correct=None if first is None or blind else pred.is_correct(first),
                first_at=att.first_at if att else "",
                final=final,
                final_correct=None if final is None or blind else pred.is_correct(final),
                changes=att.changes if att else 0,
                misconception="" if blind else misconception_of(pred, first),
            )
        )
    widgets = dict(rec.widgets) if rec else {}
    choices = {}
    for name, value in widgets.items():
        spec = getattr(lab, name, None)
        if name.startswith("S_") and spec is not None:
            shown = spec.options.get(value, value) if isinstance(spec, Choice) else value
            choices[clean_text(getattr(spec, "label", name))] = clean_text(shown)
    numbers = dict(rec.design) if rec else {}
    numbers.update(design_numbers(design))
    text = (
        justification
        if justification is not None
        else (rec.text.get("justification", "") if rec else "")
    )
    return Report(
        mlsysim_version=__version__,
        chapter=clean_text(lab.CHAPTER),
        notebook=clean_text(notebook or lab.__name__.rsplit(".", 1)[-1]),
        notebook_sha256=notebook_sha256(lab),
        generated=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        student=clean_text(student or (ledger.student if ledger is not None else "")),
        parts=parts,
        completed=bool(rec and rec.completed),
        opened_unlocked=bool(rec and rec.text.get("opened_unlocked") == "yes"),
        answers=answers,
        synthesis=Synthesis(
            choices=choices, design=_finite_only(numbers), justification=clean_text(text)
        ),
        widgets=_finite_only(widgets),
    )


def to_json(rep: Report) -> str:
    return clean_text(
        json.dumps(
            rep.model_dump(mode="json", exclude={"source"}),
            ensure_ascii=False,
            allow_nan=False,
            indent=2,
        )
    )


#: Markdown punctuation escaped wherever it stands; an underscore only where it could open or
#: close emphasis (not inside a word: "s06_06_attention" stays readable in a text editor)
#: (``(``, ``)``, ``.`` and ``!`` open nothing once ``[`` and ``]`` are escaped: "6.3" and
#: "(s1234567)" stay as they are, readable in a text editor)
_MD_SPECIAL = re.compile(r"([\\`*{}\[\]|~])|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
#: What makes a line a heading, list item, quote or rule only at its start ("2026-12-05" keeps
#: its dashes); "1." or "1)" there would start an ordered list
_MD_LINE_START = re.compile(r"^(\s*)([#+\-=])", re.M)  # (">" is HTML-escaped before)
_MD_ORDERED = re.compile(r"^(\s*\d+)([.)])", re.M)


def md_text(text: object) -> str:
    """Any text made inert in Markdown: HTML escaped, markdown punctuation backslash-escaped
    (the characters that open markup anywhere, and those that do only at a line's start there),
    line breaks kept as hard breaks."""
    s = clean_text(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), s)
    s = _MD_LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), s)
    s = _MD_ORDERED.sub(lambda m: m.group(1) + "\\" + m.group(2), s)
    return "  \n".join(s.splitlines()) if s else ""


def _verdict(ok: bool | None) -> str:
    return "correct" if ok else ("not correct" if ok is not None else "not answered")


def _score(rep: Report, kind: str) -> str:
    answered = [a for a in rep.answers if a.kind == kind and a.first is not None]
    return f"{sum(1 for a in answered if a.first_correct)} of {len(answered)}"


def to_markdown(rep: Report) -> str:
    """The report a person reads (every value escaped for Markdown); the JSON rides along in an
    HTML comment so the instructor's tools read this file too."""
    m = md_text
    out = [f"# mlsysim report: {m(rep.notebook)} (chapter {m(rep.chapter)})", ""]
    out += [
        f"- Student: {m(rep.student) or '(not given)'}",
        f"- Generated: {m(rep.generated)}",
        f"- Completed: {'yes' if rep.completed else 'no'} "
        f"({len({a.part for a in rep.answers if a.kind in ('prediction', 'inventory') and a.final})}"
        f" of {len(rep.parts)} parts answered)",
        f"- Score: {_score(rep, 'prediction')} predictions, {_score(rep, 'transfer')} transfer "
        "questions right at the first attempt (of those answered)"
        if not any(a.kind == "inventory" for a in rep.answers)
        else "- Concept inventory: "
        + (
            "no verdicts in the pre-test report (your instructor's view grades it)"
            if any(a.first is not None and a.first_correct is None for a in rep.answers)
            else f"{_score(rep, 'inventory')} right"
        ),
        f"- mlsysim {m(rep.mlsysim_version)}; notebook SHA-256 {m(rep.notebook_sha256[:16])}",
    ]
    if rep.opened_unlocked:
        out.append("- Opened in instructor mode at some point (every answer key was shown)")
    out.append("")
    for a in rep.answers:
        title = (
            f"Part {m(a.part)}"
            if a.kind == "prediction"
            else f"Concept {m(a.part)} (item {m(a.key)})"
            if a.kind == "inventory"
            else f"Transfer question ({m(a.key)})"
        )
        if a.kind == "inventory" and a.first is None:
            continue  # the other item of the pair: this student was not asked it here
        out += [f"## {title}", "", m(a.question), ""]
        if a.first is None:
            out += ["Not answered.", ""]
            continue
        verdict = f" ({_verdict(a.first_correct)})" if a.first_correct is not None else ""
        out.append(
            f"- First answer (committed {m(a.first_at) or 'time not recorded'}): "
            f"{m(a.options.get(a.first, a.first))}{verdict}"
        )
        if a.changes or a.final != a.first:
            out.append(
                f"- Final answer after {a.changes} change(s): {m(a.options.get(a.final or '', a.final))} "
                f"({_verdict(a.final_correct)})"
            )
        if a.correct_option:
            out.append(f"- Correct option: {m(a.options.get(a.correct_option, a.correct_option))}")
        if a.misconception:
            out.append(f"- Misconception behind the first answer: {m(a.misconception)}")
        out.append("")
    s = rep.synthesis
    out += ["## Synthesis", ""]
    if s.choices:
        out += [f"- {m(k)}: {m(v)}" for k, v in s.choices.items()]
    if s.design:
        out += ["", "Key numbers of the design:", ""] + [
            f"- {m(k)}: {m(v)}" for k, v in s.design.items()
        ]
    texts = {k: v for k, v in rep.widgets.items() if isinstance(v, str) and len(v) > 120}
    if texts:  # a pasted config.json (byom): its size and hash here, the whole text in the JSON
        out += ["", "Texts entered (whole in the JSON below):", ""] + [
            f"- {m(k)}: {len(v):,} characters, SHA-256 "
            f"{hashlib.sha256(v.encode('utf-8')).hexdigest()[:16]}"
            for k, v in texts.items()
        ]
    out += ["", "Justification:", "", m(s.justification) or "(none written)", ""]
    blob = to_json(rep).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    out += [f"<!-- {_MD_MARK}", blob, "-->", ""]
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# Reading reports
# --------------------------------------------------------------------------------------------


def _md_json(text: str) -> str | None:
    """The JSON a ``.md`` report carries between ``<!-- mlsysim-report`` and the first line that
    ``-->`` closes after it (what ``<!--\\s*mlsysim-report\\s*\\n(.*?)\\n\\s*-->`` matches, found
    in one pass: that regular expression took quadratic time on a file of many openings)."""
    m = _MD_OPEN.search(text)
    if not m:
        return None
    start = m.end()
    at = text.find("-->", start)
    while at != -1:
        # the whitespace before this "-->"; the block ends at its first line break
        ws = at
        while ws > start and text[ws - 1].isspace():
            ws -= 1
        nl = text.find("\n", ws, at)
        if nl != -1:
            return text[start:nl]
        at = text.find("-->", at + 3)
    return None


def _finite_values(values: Mapping[str, Any], where: str, name: str) -> None:
    """A ReportError naming the first non-finite number of ``values`` (``NaN``, ``Infinity``)."""
    for k, v in values.items():
        if isinstance(v, float) and not math.isfinite(v):
            raise ReportError(f"{name}: {where}[{k[:40]!r}] is not a finite number ({v})")


#: The largest report file read: a notebook's report is a few kB (byom's, with its config's
#: name and hash, under 100 kB); anything far larger is refused before it is parsed.
MAX_REPORT_BYTES = 2_000_000


def parse(data: bytes | str, name: str = "report") -> Report:
    """A report from a ``.json`` or ``.md`` file's content; ``ReportError`` says what is wrong."""
    name = clean_text(name) if isinstance(name, str) else short_repr(name, 60)
    if len(name) > 200:
        name = name[:200] + "…"
    if isinstance(data, bytes | bytearray | str) and len(data) > MAX_REPORT_BYTES:
        raise ReportError(
            f"{name}: {len(data):,} bytes is not a report (at most {MAX_REPORT_BYTES:,} bytes)"
        )
    if isinstance(data, bytes | bytearray):
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ReportError(f"{name}: not a text file (it is not UTF-8)") from None
    if not isinstance(data, str):
        raise ReportError(
            f"{name}: data must be a report file's text (str) or bytes, got {short_repr(data)}"
        )
    text = data.strip()
    if not text.startswith("{"):
        block = _md_json(text)
        if block is None:
            raise ReportError(
                f"{name}: no mlsysim report found (expected the .json or .md file a "
                'notebook\'s "Download my report" button saves)'
            )
        text = block
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(
            f"{name}: the report's JSON is damaged ({e.msg} at line {e.lineno})"
        ) from None
    except (ValueError, RecursionError) as e:  # an integer too long, nesting too deep
        what = "nested too deeply" if isinstance(e, RecursionError) else str(e).split(";")[0]
        raise ReportError(f"{name}: the report's JSON is damaged ({what})") from None
    if not isinstance(obj, dict) or obj.get("app") != REPORT_APP:
        raise ReportError(f"{name}: this JSON is not an mlsysim report")
    if obj.get("schema_version") != REPORT_SCHEMA:
        raise ReportError(
            f"{name}: report schema version {str(obj.get('schema_version'))[:20]!r}; "
            f"this mlsysim reads version {REPORT_SCHEMA}"
        )
    obj.pop("source", None)
    try:
        rep = Report.model_validate(obj)
    except ValidationError as e:
        where = ".".join(str(x) for x in e.errors()[0]["loc"])
        raise ReportError(f"{name}: the report does not match its schema (at {where})") from None
    except RecursionError:
        raise ReportError(
            f"{name}: the report does not match its schema (nested too deeply)"
        ) from None
    _finite_values(rep.widgets, "widgets", name)
    _finite_values(rep.synthesis.design, "synthesis.design", name)
    return rep.model_copy(update={"source": name})


def load_dir(folder: str | Path) -> tuple[list[Report], list[str]]:
    """Every ``*.json`` / ``*.md`` report in a folder (sorted): (reports, one error per bad file)."""
    reports, errors = [], []
    for p in sorted(Path(folder).iterdir()):
        if p.suffix.lower() not in (".json", ".md") or not p.is_file():
            continue
        try:
            size = p.stat().st_size
            if size > MAX_REPORT_BYTES:
                raise ReportError(
                    f"{clean_text(p.name)}: {size:,} bytes is not a report (at most "
                    f"{MAX_REPORT_BYTES:,} bytes)"
                )
            reports.append(parse(p.read_bytes(), p.name))
        except ReportError as e:
            errors.append(str(e))
        except OSError as e:  # unreadable (permissions, removed meanwhile): skipped, not fatal
            errors.append(f"{clean_text(p.name)}: could not be read ({e.strerror or e})")
    return reports, errors


def latest(reports: Iterable[Report]) -> list[Report]:
    """One report per (student, notebook): the newest. Unnamed reports are all kept (they cannot
    be told apart)."""
    best: dict[tuple[str, str], Report] = {}
    out = []
    for r in reports:
        if not r.student.strip():
            out.append(r)
            continue
        key = (r.student.strip().casefold(), r.notebook)
        if key not in best or r.generated > best[key].generated:
            best[key] = r
    return out + list(best.values())


# --------------------------------------------------------------------------------------------
# Grading: every verdict recomputed from the installed answer keys
# --------------------------------------------------------------------------------------------


def installed_labs() -> dict[str, Any]:
    """Chapter -> the installed lab module (``mlsysim.labs.parts.*``): its answer keys."""
    import importlib
    import pkgutil

    from . import parts

    out = {}
    for info in pkgutil.iter_modules(parts.__path__):
        mod = importlib.import_module(f"{parts.__name__}.{info.name}")
        chapter = getattr(mod, "CHAPTER", None)
        if isinstance(chapter, str):
            out[chapter] = mod
    from .inventory import FORMS  # the concept inventory's pre- and post-test

    for form in FORMS.values():
        out[form.CHAPTER] = form
    return out


class Graded(BaseModel):
    """A report as the class view counts it: every verdict, label, question text and the
    completion recomputed from the installed lab's answer keys; what the file claimed that the
    keys contradict, or that the keys do not know, is listed in ``flags`` and not counted."""

    model_config = ConfigDict(frozen=True)
    report: Report
    known: bool  # an installed lab has this report's chapter
    same_version: bool  # its notebook_sha256 is the installed lab module's
    flags: tuple[str, ...] = ()


def regrade(rep: Report, labs: Mapping[str, Any] | None = None) -> Graded:
    """``rep`` graded against the installed answer keys (a report is a claim, not a fact).

    For each answer: an unknown question key, an unknown option, or a second answer to the same
    question is dropped and flagged; a question whose wording or options differ from the
    installed ones (another version of the lab) is dropped and flagged; otherwise the question
    text, options, correct option, part, kind, ``first_correct``, ``final_correct`` and the
    misconception come from the key (a claimed verdict the key contradicts is flagged).
    ``completed`` is recomputed: every part's prediction answered. A report of a chapter no
    installed lab has is kept apart (``known`` false), never counted."""
    from .components import questions

    labs = installed_labs() if labs is None else labs
    lab = labs.get(rep.chapter)
    who = rep.student.strip() or rep.source or "a report"
    if lab is None:
        return Graded(
            report=rep,
            known=False,
            same_version=False,
            flags=(f"{who}: no installed lab has chapter {rep.chapter!r}; not counted",),
        )
    keys = questions(lab)
    parts = [str(p) for p in getattr(lab, "PARTS", ())]
    same = bool(rep.notebook_sha256) and rep.notebook_sha256 == notebook_sha256(lab)
    flags: list[str] = []
    if not same:
        flags.append(f"{who}: made with another version of {rep.chapter}'s lab")
    seen: set[str] = set()
    answers = []
    for a in rep.answers:
        if a.key not in keys:
            flags.append(f"{who}: unknown question {a.key!r} left out")
            continue
        if a.key in seen:
            flags.append(f"{who}: question {a.key!r} answered twice; the second left out")
            continue
        seen.add(a.key)
        attr, pred = keys[a.key]
        options = {k: clean_text(v) for k, v in pred.options.items()}
        if a.question and (
            clean_text(pred.question) != a.question or (a.options and a.options != options)
        ):
            flags.append(f"{who}: question {a.key!r} differs from the installed one; left out")
            continue
        bad = [v for v in (a.first, a.final) if v is not None and v not in pred.options]
        if bad:
            flags.append(f"{who}: question {a.key!r} has an unknown option {bad[0]!r}; left out")
            continue
        first_ok = None if a.first is None else pred.is_correct(a.first)
        final_ok = None if a.final is None else pred.is_correct(a.final)
        if a.first_correct is not None and a.first_correct != first_ok:
            flags.append(
                f"{who}: question {a.key!r} claims a {'correct' if a.first_correct else 'wrong'} "
                f"first answer; the key says {'correct' if first_ok else 'wrong'}"
            )
        if a.final_correct is not None and a.final_correct != final_ok:
            flags.append(f"{who}: question {a.key!r} claims a final verdict the key contradicts")
        answers.append(
            Answer(
                key=a.key,
                part=_part_in(lab, a.key, parts),
                kind=_kind_in(lab, attr, pred),
                question=clean_text(pred.question),
                options=options,
                correct_option=pred.answer if a.first is not None else "",
                first=a.first,
                first_correct=first_ok,
                first_at=a.first_at,
                final=a.final,
                final_correct=final_ok,
                changes=max(0, int(a.changes)),
                misconception=misconception_of(pred, a.first),
            )
        )
    if rep.opened_unlocked:
        flags.append(f"{who}: opened {rep.chapter} in instructor mode (every answer key shown)")
    answered = {a.key for a in answers if a.first is not None}
    if getattr(lab, "INVENTORY", None):  # an inventory part (a concept) is answered by either item
        answered |= {a.part for a in answers if a.first is not None}
    completed = all(p in answered for p in parts)
    if rep.completed and not completed:
        flags.append(f"{who}: claims completion, but not every part's prediction is answered")
    graded = rep.model_copy(update={"answers": answers, "completed": completed, "parts": parts})
    return Graded(report=graded, known=True, same_version=same, flags=tuple(flags))


def misconception_of(pred, option: str | None) -> str:
    """What a wrong first answer stands for: its misconception's name and belief where the
    question names one, else the option's feedback; empty for a right or no answer."""
    if option is None or option not in pred.options or pred.is_correct(option):
        return ""
    m = getattr(pred, "misconceptions", {}).get(option)
    if m is not None:
        return clean_text(f"{m.name}: {m.belief}")
    return clean_text(pred.feedback.get(option, ""))


def grade(reports: Sequence[Report]) -> tuple[list[Report], list[str]]:
    """The reports the class view counts (newest per student and notebook, regraded from the
    installed keys; unknown chapters left out) and every flag raised, with a line per
    (chapter, version) naming how many came from another version of a lab."""
    labs = installed_labs()
    graded = [regrade(r, labs) for r in latest(reports)]
    flags = [f for g in graded for f in g.flags if "another version" not in f]
    names: dict[tuple[str, str], list[str]] = {}  # one pass: each student's reports per chapter
    for r in reports:
        if r.student.strip():
            names.setdefault((r.student.strip().casefold(), r.chapter), []).append(
                r.student.strip()
            )
    for (_, ch), seen in sorted(names.items()):
        if len(seen) > 1:
            flags.append(f"{seen[-1]}: {len(seen)} reports of {ch}; only the newest is counted")
    others = Counter(g.report.chapter for g in graded if g.known and not g.same_version)
    for ch, n in sorted(others.items()):
        flags.insert(
            0,
            f"{n} report{'s' if n != 1 else ''} of {ch} from another version of its lab: each "
            "question graded against the installed key where its wording and options are "
            "unchanged, left out where they changed",
        )
    return [g.report for g in graded if g.known], flags


# --------------------------------------------------------------------------------------------
# The class view
# --------------------------------------------------------------------------------------------


def summarize(reports: Sequence[Report]) -> dict:
    """Completion, per-question first-attempt distributions, misconceptions, accuracy per part.

    Returns ``{"students", "completed", "questions": {(notebook, key): {...}}, "misconceptions":
    [...], "parts": [...]}``; every count comes from first attempts (what the student committed
    to), except ``final_correct``."""
    reps, flags = grade(reports)  # every verdict recomputed from the installed keys
    questions: dict[tuple[str, str], dict] = {}
    wrong: Counter = Counter()
    named: dict[tuple[str, str, str], str] = {}  # one pass: linear in the answers
    for r in reps:
        for a in r.answers:
            q = questions.setdefault(
                (r.notebook, a.key),
                {
                    "notebook": r.notebook,
                    "chapter": r.chapter,
                    "key": a.key,
                    "part": a.part,
                    "kind": a.kind,
                    "question": a.question,
                    "options": dict(a.options),
                    "correct_option": a.correct_option,
                    "counts": Counter(),
                    "answered": 0,
                    "first_correct": 0,
                    "final_correct": 0,
                    "students": 0,
                },
            )
            q["students"] += 1
            q["correct_option"] = q["correct_option"] or a.correct_option
            if a.first is None:
                continue
            q["answered"] += 1
            q["counts"][a.first] += 1
            q["first_correct"] += bool(a.first_correct)
            q["final_correct"] += bool(a.final_correct)
            if not a.first_correct:
                wrong[(r.notebook, a.key, a.first)] += 1
                named.setdefault((r.notebook, a.key, a.first), a.misconception)
    misconceptions = []
    for (nb, key, opt), n in wrong.most_common():
        q = questions[(nb, key)]
        fb = named.get((nb, key, opt), "")
        misconceptions.append(
            {
                "notebook": nb,
                "key": key,
                "part": q["part"],
                "question": f"Part {q['part']}" + f" ({q['kind']})",
                "option": opt,
                "label": q["options"].get(opt, opt),
                "students": n,
                "share": n / q["answered"] if q["answered"] else 0.0,
                "feedback": fb,
            }
        )
    parts = []
    for q in questions.values():
        parts.append(
            {
                "notebook": q["notebook"],
                "key": q["key"],
                "part": q["part"],
                "kind": q["kind"],
                "answered": q["answered"],
                "students": q["students"],
                "first_attempt_accuracy": q["first_correct"] / q["answered"]
                if q["answered"]
                else None,
                "final_accuracy": q["final_correct"] / q["answered"] if q["answered"] else None,
            }
        )
    by_nb = Counter(r.notebook for r in reps)
    done = Counter(r.notebook for r in reps if r.completed)
    completion = [
        {"notebook": nb, "students": n, "completed": done[nb]} for nb, n in sorted(by_nb.items())
    ]
    return {
        "reports": len(reps),
        "flags": flags,
        "completion": completion,
        "questions": questions,
        "misconceptions": misconceptions,
        "parts": parts,
    }


def class_rows(reports: Sequence[Report]) -> list[dict[str, Any]]:
    """One row per report (newest per student and notebook), the columns a grading script needs:
    per question ``<key>_first``, ``<key>_first_correct``, ``<key>_final``, ``<key>_changes``."""
    rows = []
    for r in grade(reports)[0]:
        row: dict[str, Any] = {
            "student": r.student,
            "notebook": r.notebook,
            "chapter": r.chapter,
            "completed": r.completed,
            "opened_unlocked": r.opened_unlocked,
            "parts": len(r.parts),
            # one base per column: predictions and transfers counted apart
            "predictions_answered": sum(
                1 for a in r.answers if a.kind == "prediction" and a.first is not None
            ),
            "predictions_first_correct": sum(
                1 for a in r.answers if a.kind == "prediction" and a.first_correct
            ),
            "transfers_answered": sum(
                1 for a in r.answers if a.kind == "transfer" and a.first is not None
            ),
            "transfers_first_correct": sum(
                1 for a in r.answers if a.kind == "transfer" and a.first_correct
            ),
            "generated": r.generated,
            "mlsysim_version": r.mlsysim_version,
            "notebook_sha256": r.notebook_sha256,
            "file": r.source,
        }
        for a in r.answers:
            row[f"{a.key}_first"] = a.first or ""
            row[f"{a.key}_first_correct"] = "" if a.first_correct is None else a.first_correct
            row[f"{a.key}_first_at"] = a.first_at
            row[f"{a.key}_final"] = a.final or ""
            row[f"{a.key}_changes"] = a.changes
        for k, v in r.synthesis.choices.items():
            row[f"synthesis: {k}"] = v
        row["justification"] = r.synthesis.justification
        rows.append(row)
    rows.sort(key=lambda x: (x["notebook"], x["student"].casefold(), x["file"]))
    return rows


_FORMULA = re.compile(r"^[=+\-@\t\r]")


def _printable(v) -> str:
    """``clean_text(v)``; an em dash for a value with no text (an integer too long to print)."""
    try:
        return clean_text(v)
    except ValueError:
        return "—"


def _cell(v) -> str:
    """A CSV cell that a spreadsheet will not run as a formula."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return ""  # no number: an empty cell, never "nan"
    s = _printable(v)
    return "'" + s if _FORMULA.match(s) else s


def _rows(rows: object) -> Sequence[Mapping[str, Any]]:
    """``rows`` if it is a list or tuple of mappings (``class_rows``, ``summarize``'s lists), else
    a TypeError naming it."""
    if not isinstance(rows, list | tuple):
        raise TypeError(f"rows must be a list of rows (dicts), got {short_repr(rows)}")
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise TypeError(f"rows[{i}] must be a row (a dict), got {short_repr(row)}")
    return rows


def to_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    rows = _rows(rows)
    cols: list[str] = []
    for row in rows:
        cols += [c for c in row if c not in cols]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([_cell(c) for c in cols])  # a header from a report is a cell like any other
    for row in rows:
        w.writerow([_cell(row.get(c, "")) for c in cols])
    return buf.getvalue()


# --------------------------------------------------------------------------------------------
# The concept inventory: pre/post correct rates, Hake's normalized gain, distractor shifts
# --------------------------------------------------------------------------------------------

#: resamples of the bootstrap interval and its seed (fixed: the same class gives the same interval)
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20260101
BOOTSTRAP_LEVEL = 0.95


def hake_gain(pre: float, post: float) -> float | None:
    """Hake's normalized gain ⟨g⟩ = (post − pre) / (1 − pre) of two class-average fractions
    correct (Hake 1998: the class gain is computed from the class means, not averaged over
    students). ``None`` where it is undefined: a pre-test mean of 100% leaves no room to gain
    (never NaN or inf). Both must be fractions in [0, 1]."""
    for name, v in (("pre", pre), ("post", post)):
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 1:
            raise ValueError(f"{name} must be a fraction in [0, 1], got {short_repr(v)}")
    if pre >= 1:
        return None
    return (post - pre) / (1 - pre)


def _mean(xs: Sequence[float]) -> float:
    return math.fsum(xs) / len(xs)


def bootstrap_gain_ci(
    pairs: Sequence[tuple[float, float]],
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = BOOTSTRAP_LEVEL,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, Any] | None:
    """A percentile bootstrap interval for the class gain: ``pairs`` is one (pre, post) fraction
    correct per student; each resample draws as many students with replacement
    (``random.Random(seed)``: deterministic, pure Python) and computes ⟨g⟩ from its means.
    A resample whose pre mean is 100% has no gain: it is counted in ``undefined`` and left out.
    Returns ``{"low", "high", "resamples", "undefined"}`` (nearest-rank percentiles), or ``None``
    when there are no students or no resample has a gain."""
    import random

    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {short_repr(resamples)}")
    if isinstance(level, bool) or not isinstance(level, int | float) or not 0 < level < 1:
        raise ValueError(f"level must be a fraction in (0, 1), got {short_repr(level)}")
    pairs = list(pairs)
    if not pairs:
        return None
    rng = random.Random(seed)
    n = len(pairs)
    gains = []
    for _ in range(resamples):
        draw = [pairs[rng.randrange(n)] for _ in range(n)]
        g = hake_gain(_mean([a for a, _ in draw]), _mean([b for _, b in draw]))
        if g is not None:
            gains.append(g)
    if not gains:
        return None
    gains.sort()
    m = len(gains)
    alpha = (1 - level) / 2
    lo = gains[min(m - 1, math.floor(alpha * m))]
    hi = gains[max(0, math.ceil((1 - alpha) * m) - 1)]
    return {"low": lo, "high": hi, "resamples": resamples, "undefined": resamples - m}


def _inventory_answers(rep: Report) -> dict[str, dict[str, Any]]:
    """Concept -> {"item", "option", "correct", "misconception"} of a graded inventory report (the
    first committed answer of the concept's item; a misconception by its name)."""
    from .inventory import BY_KEY, concept_of

    out = {}
    for a in rep.answers:
        where = concept_of(a.key)
        if where is None or a.first is None:
            continue
        concept, n = where
        item = BY_KEY[concept].items[n - 1]
        m = item.misconceptions.get(a.first)
        out.setdefault(
            concept,
            {
                "item": n,
                "option": a.first,
                "correct": bool(a.first_correct),
                "misconception": m.name if m is not None and not a.first_correct else "",
            },
        )
    return out


def _seed_of(rep: Report | None) -> str:
    if rep is None:
        return ""
    v = rep.synthesis.design.get("inventory_seed", "")
    return v if isinstance(v, str) else ""


def inventory_students(reports: Sequence[Report]) -> dict[str, Any]:
    """The inventory's reports (graded), one pre and one post per student, matched by the name
    or ID normalized as the seed reads it: ``{"students": {name: {"pre", "post"}}, "unnamed",
    "flags"}``. An unnamed report cannot be matched: counted in ``unnamed``, never paired."""
    from .inventory import POST, PRE, normalize_name

    graded, flags = grade(reports)
    students: dict[str, dict[str, Any]] = {}
    unnamed = 0
    for r in graded:
        which = "pre" if r.chapter == PRE.CHAPTER else "post" if r.chapter == POST.CHAPTER else ""
        if not which:
            continue
        who = normalize_name(r.student)
        if not who:
            unnamed += 1
            continue
        slot = students.setdefault(who, {"name": r.student.strip(), "pre": None, "post": None})
        if slot[which] is None or r.generated > slot[which].generated:
            slot[which] = r
    inv_flags = [f for f in flags if "inventory" in f]
    return {"students": students, "unnamed": unnamed, "flags": inv_flags}


def _rate(xs: Sequence[bool]) -> float | None:
    return sum(1 for x in xs if x) / len(xs) if xs else None


def inventory_summary(
    reports: Sequence[Report], resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> dict[str, Any]:
    """The class's learning per concept and overall.

    Only students with both a pre- and a post-test report count toward a rate or a gain, and per
    concept only those who answered it in both; a report missing its other half is counted apart
    (``pre_only``, ``post_only``), never imputed. Per concept: ``students`` (matched),
    ``pre_rate``, ``post_rate``, ``gain`` (Hake's ⟨g⟩ from the two class means; None where the
    pre rate is 100%), ``ci`` (``bootstrap_gain_ci`` over the matched students), and
    ``distractors``: each misconception's count among wrong first answers before and after.
    ``overall``: the same from each matched student's fraction correct over the concepts they
    answered in both tests."""
    from .inventory import CONCEPTS

    found = inventory_students(reports)
    both = {k: v for k, v in found["students"].items() if v["pre"] and v["post"]}
    pre_only = sorted(v["name"] for v in found["students"].values() if v["pre"] and not v["post"])
    post_only = sorted(v["name"] for v in found["students"].values() if v["post"] and not v["pre"])
    answers = {
        k: (_inventory_answers(v["pre"]), _inventory_answers(v["post"])) for k, v in both.items()
    }
    concepts = []
    for c in CONCEPTS:
        pairs = [(a[c.key], b[c.key]) for a, b in answers.values() if c.key in a and c.key in b]
        pre = _rate([p["correct"] for p, _ in pairs])
        post = _rate([q["correct"] for _, q in pairs])
        names = [m.name for m in c.items[0].misconceptions.values()]
        before = Counter(p["misconception"] for p, _ in pairs if p["misconception"])
        after = Counter(q["misconception"] for _, q in pairs if q["misconception"])
        concepts.append(
            {
                "concept": c.key,
                "title": c.title,
                "students": len(pairs),
                "pre_rate": pre,
                "post_rate": post,
                "gain": None if pre is None else hake_gain(pre, post),
                "ci": bootstrap_gain_ci(
                    [(float(p["correct"]), float(q["correct"])) for p, q in pairs],
                    resamples,
                    seed=seed,
                ),
                "distractors": [
                    {
                        "misconception": name,
                        "pre": before[name],
                        "post": after[name],
                        "change": after[name] - before[name],
                    }
                    for name in names
                ],
            }
        )
    scores = []
    for a, b in answers.values():
        common = [k for k in a if k in b]
        if common:
            scores.append(
                (
                    sum(a[k]["correct"] for k in common) / len(common),
                    sum(b[k]["correct"] for k in common) / len(common),
                )
            )
    pre_mean = _mean([p for p, _ in scores]) if scores else None
    post_mean = _mean([q for _, q in scores]) if scores else None
    overall = {
        "concept": "ALL",
        "title": "Whole inventory",
        "students": len(scores),
        "pre_rate": pre_mean,
        "post_rate": post_mean,
        "gain": None if pre_mean is None else hake_gain(pre_mean, post_mean),
        "ci": bootstrap_gain_ci(scores, resamples, seed=seed),
    }
    return {
        "matched": len(both),
        "pre_only": pre_only,
        "post_only": post_only,
        "unnamed": found["unnamed"],
        "concepts": concepts,
        "overall": overall,
        "flags": found["flags"],
    }


def gain_text(row: Mapping[str, Any]) -> str:
    """⟨g⟩ with its interval as a table shows it: "0.50 [0.20, 0.75]"; "undefined (pre = 100%)"
    where the pre rate leaves no room; "no students" where none answered both."""
    if not row.get("students"):
        return "no students"
    g = row.get("gain")
    if g is None:
        return "undefined (pre = 100%)"
    ci = row.get("ci")
    interval = f" [{ci['low']:.2f}, {ci['high']:.2f}]" if ci else ""
    return f"{g:.2f}{interval}"


def inventory_table(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per concept and one for the whole inventory: what the instructor's table shows."""
    rows = []
    for r in [*summary["concepts"], summary["overall"]]:
        rows.append(
            {
                "concept": r["title"],
                "students": r["students"],
                "pre correct": "—" if r["pre_rate"] is None else f"{r['pre_rate']:.0%}",
                "post correct": "—" if r["post_rate"] is None else f"{r['post_rate']:.0%}",
                "gain ⟨g⟩ [95% CI]": gain_text(r),
            }
        )
    return rows


def distractor_table(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each misconception's wrong first answers before and after, and whether it moved."""
    rows = []
    for c in summary["concepts"]:
        for d in c["distractors"]:
            if d["pre"] == 0 and d["post"] == 0:
                verdict = "never chosen"
            elif d["change"] < 0:
                verdict = "moved (fewer after)"
            elif d["change"] > 0:
                verdict = "grew"
            else:
                verdict = "stayed"
            rows.append(
                {
                    "concept": c["title"],
                    "misconception": d["misconception"],
                    "before": d["pre"],
                    "after": d["post"],
                    "change": d["change"],
                    "verdict": verdict,
                }
            )
    return rows


def inventory_rows(reports: Sequence[Report]) -> list[dict[str, Any]]:
    """One row per student with an inventory report, for the CSV: the seed, which halves are
    present, the score before and after over the concepts answered in both (and the student's own
    gain, empty where undefined), and per concept the item, correctness and misconception of each
    half. Missing halves stay empty: nothing is imputed."""
    from .inventory import CONCEPTS

    found = inventory_students(reports)
    rows = []
    for v in found["students"].values():
        pre = _inventory_answers(v["pre"]) if v["pre"] else {}
        post = _inventory_answers(v["post"]) if v["post"] else {}
        common = [k for k in pre if k in post]
        pre_score = sum(pre[k]["correct"] for k in common) / len(common) if common else None
        post_score = sum(post[k]["correct"] for k in common) / len(common) if common else None
        g = None if pre_score is None else hake_gain(pre_score, post_score)
        row: dict[str, Any] = {
            "student": v["name"],
            "seed": _seed_of(v["pre"]) or _seed_of(v["post"]),
            "has_pre": v["pre"] is not None,
            "has_post": v["post"] is not None,
            "pre_answered": len(pre),
            "post_answered": len(post),
            "concepts_in_both": len(common),
            "pre_score": pre_score,
            "post_score": post_score,
            "gain": g,
        }
        for c in CONCEPTS:
            for half, got in (("pre", pre), ("post", post)):
                a = got.get(c.key)
                row[f"{c.key}_{half}_item"] = a["item"] if a else ""
                row[f"{c.key}_{half}_correct"] = a["correct"] if a else ""
                row[f"{c.key}_{half}_misconception"] = a["misconception"] if a else ""
        row["pre_file"] = v["pre"].source if v["pre"] else ""
        row["post_file"] = v["post"].source if v["post"] else ""
        rows.append(row)
    rows.sort(key=lambda r: r["student"].casefold())
    return rows


# --------------------------------------------------------------------------------------------
# Charts and tables of the class view (labs/instructor.py); every string from a report is escaped
# --------------------------------------------------------------------------------------------


def _plot_text(text: object, width: int = 38) -> str:
    """Report text for a Plotly label: HTML-escaped (Plotly reads a subset of HTML), wrapped."""
    import html
    import textwrap

    s = clean_text(text)
    lines = textwrap.wrap(s, width)[:3] or [""]
    if len(textwrap.wrap(s, width)) > 3:
        lines[-1] += "…"
    return "<br>".join(html.escape(x, quote=False) for x in lines)


def question_title(q: Mapping[str, Any]) -> str:
    what = f"Part {q['part']}" if q["kind"] == "prediction" else f"{q['key']} ({q['kind']})"
    return f"{q['notebook']} · {what}"


def distribution_figure(q: Mapping[str, Any]):
    """One question's first-attempt answers as horizontal bars (the correct option in green)."""
    import plotly.graph_objects as go

    from .charts import figure
    from .style import COLORS

    keys = list(q["options"]) or sorted(q["counts"])
    extra = [k for k in q["counts"] if k not in keys]  # answers no longer among the options
    keys += extra
    fig = figure(
        f"{_plot_text(question_title(q), 80)}: first attempts ({q['answered']} of {q['students']})",
        "Students",
        "",
        height=120 + 46 * len(keys),
    )
    fig.add_trace(
        go.Bar(
            x=[q["counts"].get(k, 0) for k in keys],
            y=[_plot_text(q["options"].get(k, k)) for k in keys],
            orientation="h",
            marker_color=[
                COLORS["GreenLine"] if k == q["correct_option"] else COLORS["GreyLine"]
                for k in keys
            ],
            text=[q["counts"].get(k, 0) for k in keys],
            textposition="auto",
            name="first attempts",
            showlegend=False,
        )
    )
    fig.update_yaxes(autorange="reversed")
    return fig


def accuracy_figure(summary: Mapping[str, Any]):
    """First-attempt and final accuracy per question, in percent."""
    import plotly.graph_objects as go

    from .charts import figure

    rows = [p for p in summary["parts"] if p["first_attempt_accuracy"] is not None]
    x = [_plot_text(f"{p['notebook']} · {p['key']}", 60) for p in rows]
    fig = figure(
        "Accuracy per question: first attempt vs final answer",
        "",
        "Students correct (%)",
        height=360,
    )
    fig.add_trace(
        go.Bar(x=x, y=[100 * p["first_attempt_accuracy"] for p in rows], name="first attempt")
    )
    fig.add_trace(go.Bar(x=x, y=[100 * p["final_accuracy"] for p in rows], name="final answer"))
    fig.update_layout(barmode="group")
    fig.update_yaxes(range=[0, 100])
    return fig


def html_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """A plain HTML table; every cell escaped (report content is never markdown)."""
    import html

    rows = _rows(rows)
    if not isinstance(columns, list | tuple):
        raise TypeError(f"columns must be a list of column names, got {short_repr(columns)}")

    def cell(v):
        if isinstance(v, float):
            if not math.isfinite(v):
                return "—"  # no number: never "nan" or "inf" in the table
            v = f"{v:.0%}" if 0 <= v <= 1 else f"{v:,.2f}"
        return html.escape(_printable("" if v is None else v))

    head = "".join(f"<th>{cell(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{cell(r.get(c, ''))}</td>" for c in columns) + "</tr>" for r in rows
    )
    return f'<table class="ms-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m mlsysim.labs.reports",
        description="Collect students' mlsysim reports (.json or .md) into one CSV.",
    )
    ap.add_argument("folder", type=Path, help="folder holding the reports")
    ap.add_argument(
        "-o", "--output", type=Path, default=None, help="CSV file to write (default: stdout)"
    )
    ap.add_argument(
        "--inventory",
        type=Path,
        default=None,
        help="also write the concept inventory's per-student CSV (seed, items, answers, gain) here",
    )
    args = ap.parse_args(argv)
    if not args.folder.is_dir():
        print(f"error: {args.folder} is not a folder", file=sys.stderr)
        return 2
    try:
        reports, errors = load_dir(args.folder)
    except OSError as e:
        print(f"error: cannot read the folder {args.folder}: {e.strerror or e}", file=sys.stderr)
        return 2
    for e in errors:
        print(f"skipped {e}", file=sys.stderr)
    if not reports:
        print(f"error: no mlsysim report in {args.folder}", file=sys.stderr)
        return 1
    text = to_csv(class_rows(reports))
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as e:
            print(f"error: cannot write {args.output}: {e.strerror or e}", file=sys.stderr)
            return 2
    if args.inventory is not None:
        try:
            args.inventory.write_text(to_csv(inventory_rows(reports)), encoding="utf-8")
        except OSError as e:
            print(f"error: cannot write {args.inventory}: {e.strerror or e}", file=sys.stderr)
            return 2
        inv = inventory_summary(reports)
        print(
            f"inventory: {inv['matched']} students with both halves, {len(inv['pre_only'])} "
            f"pre-test only, {len(inv['post_only'])} post-test only, {inv['unnamed']} unnamed; "
            f"class gain {gain_text(inv['overall'])} -> {args.inventory}",
            file=sys.stderr,
        )
    s = summarize(reports)
    print(
        f"{s['reports']} reports ({len(reports)} files, {len(errors)} skipped)"
        + (f" -> {args.output}" if args.output else ""),
        file=sys.stderr,
    )
    for p in s["parts"]:
        acc = p["first_attempt_accuracy"]
        print(
            f"  {p['notebook']} {p['key']}: {p['answered']}/{p['students']} answered, first-attempt "
            f"accuracy {'-' if acc is None else f'{acc:.0%}'}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
