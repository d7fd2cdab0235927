"""Student reports and the class view: round trips, the CLI, the download in a notebook, and the
instructor notebook with twenty reports.

Expected values are computed from the answer pattern the test itself chose (``_pattern``), never
from the code under test."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import mlsysim
from mlsysim.labs import components as kit
from mlsysim.labs import reports
from mlsysim.labs.parts import lab06 as lab
from mlsysim.labs.state import DesignLedger

import harness as h
from html_safety import HOSTILE, live_markup, scan, text_of

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

KEYS = (
    list(lab.PRED_A.options),
    list(lab.PRED_B.options),
    list(lab.PRED_C.options),
    list(lab.PRED_D.options),
)
PREDS = [lab.PRED_A, lab.PRED_B, lab.PRED_C, lab.PRED_D]


def _pattern(i: int):
    """Student i's first answers (option index i+j mod n for part j), and whether they then
    switch to the correct option (every third student). Students 18 and 19 skip part D."""
    firsts, finals = {}, {}
    for j, (part, pred) in enumerate(zip("ABCD", PREDS, strict=True)):
        if part == "D" and i >= 18:
            continue
        opts = list(pred.options)
        firsts[part] = opts[(i + j) % len(opts)]
        finals[part] = pred.answer if i % 3 == 0 else firsts[part]
    return firsts, finals


def _student_report(tmp: Path, i: int, name: str | None = None) -> reports.Report:
    led = DesignLedger(tmp / f"ledger{i}.json")
    firsts, finals = _pattern(i)
    correct = {k: PREDS["ABCD".index(k)].is_correct(v) for k, v in firsts.items()}
    led.save(
        lab.CHAPTER,
        answers=firsts,
        correct=correct,
        required=lab.PARTS,
        widgets={
            "S_MODEL": list(lab.S_MODEL.options)[-1],
            "S_DEVICE": list(lab.S_DEVICE.options)[-1],
        },
        text={"justification": f"Part B showed the wall ({i})"},
        student=name or f"Student {i:02d}",
    )
    led.save(
        lab.CHAPTER,
        answers=finals,
        correct={k: PREDS["ABCD".index(k)].is_correct(v) for k, v in finals.items()},
    )
    return reports.build(led, lab, design={"latency": 0.5})


@pytest.fixture
def class_dir(tmp_path):
    out = tmp_path / "reports"
    out.mkdir()
    for i in range(20):
        rep = _student_report(tmp_path, i)
        if i % 2:  # half hand in the Markdown file, half the JSON
            (out / f"s{i:02d}.md").write_text(reports.to_markdown(rep), encoding="utf-8")
        else:
            (out / f"s{i:02d}.json").write_text(reports.to_json(rep), encoding="utf-8")
    return out


def test_report_round_trips_through_json_and_markdown(tmp_path):
    rep = _student_report(tmp_path, 1, name="Ada <b>Lovelace</b>")
    for text in (reports.to_json(rep), reports.to_markdown(rep)):
        back = reports.parse(text.encode("utf-8"), "r")
        assert back.model_dump(exclude={"source"}) == rep.model_dump(exclude={"source"})
    assert rep.mlsysim_version == mlsysim.__version__
    lab_file = Path(mlsysim.__file__).parent / "labs" / "parts" / "lab06.py"
    assert rep.notebook_sha256 == hashlib.sha256(lab_file.read_bytes()).hexdigest()
    a = {x.key: x for x in rep.answers}
    firsts, finals = _pattern(1)
    assert a["A"].first == firsts["A"] and a["A"].final == finals["A"]
    assert a["A"].first_correct == (firsts["A"] == lab.PRED_A.answer)
    assert a["A"].first_at and a["A"].changes == int(firsts["A"] != finals["A"])
    wrong = next(x for x in rep.answers if x.first_correct is False)
    pred = PREDS["ABCD".index(wrong.key)]
    m = pred.misconceptions[wrong.first]  # the misconception the wrong option stands for
    assert wrong.misconception == f"{m.name}: {m.belief}"
    assert rep.synthesis.choices == {
        lab.S_MODEL.label: list(lab.S_MODEL.options.values())[-1],
        lab.S_DEVICE.label: list(lab.S_DEVICE.options.values())[-1],
    }
    assert rep.synthesis.justification == "Part B showed the wall (1)"
    assert rep.synthesis.design["latency"] == 0.5
    md = reports.to_markdown(rep)
    assert "Ada &lt;b&gt;Lovelace&lt;/b&gt;" in md and "<b>" not in md.split("<!--")[0]


def test_transfer_questions_are_reported_by_name(tmp_path):
    import types

    mod = types.ModuleType("lab_with_transfer")
    mod.CHAPTER, mod.PARTS, mod.PRED_A = "t", ("A",), lab.PRED_A
    mod.TRANSFER_A = lab.PRED_B
    led = DesignLedger(tmp_path / "t.json")
    saved = kit.saved(led, mod)
    import asyncio

    asyncio.run(
        kit.record(
            led, mod, widgets={"pred_a": "150m", "transfer_a": lab.PRED_B.answer}, saved=saved
        )
    )
    rec = DesignLedger(tmp_path / "t.json").chapter("t")
    assert rec.answers == {"A": "150m", "A.transfer": lab.PRED_B.answer}
    assert rec.attempts["A.transfer"].first_correct is True
    rep = reports.build(led, mod)
    t = next(a for a in rep.answers if a.key == "A.transfer")
    assert (t.kind, t.part, t.first_correct) == ("transfer", "A", True)


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"\xff\xfe\x00", "not UTF-8"),
        (b"# notes\nno report here", "no mlsysim report found"),
        (b'{"app": "mlsysim"}', "not an mlsysim report"),
        (b'{"app": "mlsysim-report", "schema_version": 99, "chapter": "x"}', "schema version '99'"),
        (
            b'{"app": "mlsysim-report", "schema_version": 1}',
            "does not match its schema (at chapter)",
        ),
        (b"{broken", "JSON is damaged"),
    ],
)
def test_bad_files_are_refused_with_a_reason(content, needle):
    with pytest.raises(reports.ReportError, match=re.escape(needle)):
        reports.parse(content, "f.json")


def test_summary_counts_first_attempts(class_dir):
    reps, errors = reports.load_dir(class_dir)
    assert errors == [] and len(reps) == 20
    s = reports.summarize(reps)
    for j, part in enumerate("ABCD"):
        expected: dict[str, int] = {}
        for i in range(20):
            first = _pattern(i)[0].get(part)
            if first is not None:
                expected[first] = expected.get(first, 0) + 1
        q = s["questions"][("lab06", part)]
        assert dict(q["counts"]) == expected
        right = sum(1 for i in range(20) if _pattern(i)[0].get(part) == PREDS[j].answer)
        acc = next(p for p in s["parts"] if p["key"] == part)["first_attempt_accuracy"]
        assert acc == pytest.approx(right / sum(expected.values()))
    top = s["misconceptions"][0]
    wrong_counts = {
        (p, o): n
        for p in "ABCD"
        for o, n in s["questions"][("lab06", p)]["counts"].items()
        if o != PREDS["ABCD".index(p)].answer
    }
    assert top["students"] == max(wrong_counts.values())
    assert s["completion"] == [{"notebook": "lab06", "students": 20, "completed": 18}]


def test_newest_report_per_student_wins(tmp_path):
    old = _student_report(tmp_path, 3).model_copy(update={"generated": "2020-01-01T00:00:00+00:00"})
    new = _student_report(tmp_path, 4).model_copy(update={"student": old.student})
    rows = reports.class_rows([old, new])
    assert len(rows) == 1 and rows[0]["generated"] == new.generated


def test_cli_writes_the_class_csv(class_dir, tmp_path):
    (class_dir / "notes.md").write_text("not a report")
    out = tmp_path / "class.csv"
    proc = subprocess.run(
        [sys.executable, "-m", "mlsysim.labs.reports", str(class_dir), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "skipped notes.md: no mlsysim report found" in proc.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert len(rows) == 20
    by = {r["student"]: r for r in rows}
    for i in range(20):
        firsts, finals = _pattern(i)
        r = by[f"Student {i:02d}"]
        assert r["A_first"] == firsts["A"] and r["A_final"] == finals["A"]
        assert r["completed"] == str(i < 18)
        assert r["predictions_first_correct"] == str(
            sum(PREDS["ABCD".index(k)].is_correct(v) for k, v in firsts.items())
        )


def test_cli_fails_clearly_without_reports(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "mlsysim.labs.reports", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1 and "no mlsysim report" in proc.stderr


def test_csv_cells_never_start_a_formula(tmp_path):
    rep = _student_report(tmp_path, 0, name='=HYPERLINK("http://x","y")')
    text = reports.to_csv(reports.class_rows([rep]))
    row = next(csv.DictReader(io.StringIO(text)))
    assert row["student"] == '\'=HYPERLINK("http://x","y")'


# --------------------------------------------------------------------------------------------
# Notebooks: the download a student gets; the instructor notebook with twenty reports
# --------------------------------------------------------------------------------------------


@pytest.fixture
def downloads(monkeypatch):
    """Every ``mo.download`` the kit creates (the report buttons are lazy: their data is built
    when pressed, so the test presses them by calling their data function)."""
    import marimo as mo

    made = []
    real = mo.download

    def spy(*args, **kwargs):
        el = real(*args, **kwargs)
        made.append(
            (
                kwargs.get("mimetype"),
                kwargs.get("filename"),
                kwargs.get("data", args[0] if args else None),
            )
        )
        return el

    monkeypatch.setattr(mo, "download", spy)
    return made


def test_a_notebook_offers_the_report_with_the_first_attempt(tmp_path, monkeypatch, downloads):
    monkeypatch.setenv("MLSYSIM_DATA_DIR", str(tmp_path))
    app = h.load_app(h.LABS / "lab06_architecture_tax.py")
    w = h.run(app).widgets()
    # the question's whole cell (its part's controls and transfer too) is given, so the harness
    # runs no filling-in first run (which would offer a report before the name is set)
    part = {n: w[n] for n in next(d for d in h.cell_defs(app) if "pred_a" in d)}
    wrong = next(k for k in lab.PRED_A.options if k != lab.PRED_A.answer)
    h.run(app, defs={**part, "pred_a": h.with_value(w["pred_a"], wrong)})
    downloads.clear()
    r = h.run(
        app,
        defs={
            **part,
            "pred_a": h.with_value(w["pred_a"], lab.PRED_A.answer),
            "student": h.with_value(w["student"], "Grace H."),
            "justification": h.with_value(w["justification"], "Part A: dense is 150 M."),
        },
    )
    assert "data:text/markdown" not in _raw(r)  # lazy: no report inside the page
    files = {mime: reports.parse(data(), name) for mime, name, data in downloads}
    assert set(files) == {"text/markdown", "application/json"}
    assert {name for _, name, _ in downloads} == {
        "mlsysim-report-lab06-Grace-H.md",
        "mlsysim-report-lab06-Grace-H.json",
    }
    for rep in files.values():
        a = rep.answers[0]
        assert (a.key, a.first, a.first_correct, a.final, a.changes) == (
            "A",
            wrong,
            False,
            lab.PRED_A.answer,
            1,
        )
        assert (
            rep.student == "Grace H." and rep.synthesis.justification == "Part A: dense is 150 M."
        )


def _raw(run) -> str:
    """The outputs' HTML before the harness unescapes it (download data sits in an attribute)."""
    import marimo as mo

    return "\n".join(mo.as_html(o).text for o in run.outputs if o is not None)


def test_reload_restores_answers_widgets_and_unlocked_parts(tmp_path, monkeypatch):
    monkeypatch.setenv("MLSYSIM_DATA_DIR", str(tmp_path))
    app = h.load_app(h.LABS / "lab06_architecture_tax.py")
    w = h.run(app).widgets()
    h.run(
        app,
        defs={
            "pred_b": h.with_value(w["pred_b"], lab.PRED_B.answer),
            "b_seq": h.with_value(w["b_seq"], lab.B_SEQ.stop),
            "b_flash": h.with_value(w["b_flash"], True),
        },
    )
    again = h.run(app)  # a reload: fresh widgets, state from the ledger
    assert again.defs["pred_b"].value == lab.PRED_B.answer and again.defs["pred_a"].value is None
    assert again.defs["b_seq"].value == lab.B_SEQ.stop and again.defs["b_flash"].value is True
    assert len(again.figures) == 1  # part B unlocked again, the others still locked
    assert "Correct." in again.visible_text


def _uploads(folder: Path):
    return SimpleNamespace(
        value=[
            SimpleNamespace(name=p.name, contents=p.read_bytes()) for p in sorted(folder.iterdir())
        ]
    )


def test_instructor_notebook_with_twenty_reports(class_dir):
    app = h.load_app(h.LABS / "instructor.py")
    empty = h.run(app)
    assert "Upload reports" in empty.visible_text and not empty.figures
    r = h.run(app, defs={"files": _uploads(class_dir)})
    assert h.problems(r) == []
    order = list(kit.questions(lab))  # one chart per question (transfers too), in lab order
    assert len(r.figures) == 1 + len(order)  # accuracy + one distribution per question
    for j, part in enumerate("ABCD"):
        counts = [sum(1 for i in range(20) if _pattern(i)[0].get(part) == k) for k in KEYS[j]]
        bars = r.figures[1 + order.index(part)][0]
        assert bars["x"] == counts
    csv_text = next(
        base64.b64decode(m.group(1)).decode()
        for m in re.finditer(r"data:text/csv;base64,([A-Za-z0-9+/=]+)", _raw(r))
    )
    assert len(list(csv.DictReader(io.StringIO(csv_text)))) == 20


def test_instructor_notebook_shows_hostile_reports_as_text(tmp_path):
    folder = tmp_path / "hostile"
    folder.mkdir()
    for n, p in enumerate(HOSTILE):
        rep = _student_report(tmp_path, n, name=p)
        rep = rep.model_copy(
            update={
                "notebook": p,
                "synthesis": rep.synthesis.model_copy(update={"justification": p}),
            }
        )
        answers = [
            a.model_copy(
                update={"misconception": p, "question": p, "options": {k: p + k for k in a.options}}
            )
            for a in rep.answers
        ]
        (folder / f"h{n}.json").write_text(
            reports.to_json(rep.model_copy(update={"answers": answers}))
        )
    (folder / "bad.json").write_text('{"app": "<script>alert(1)</script>"}')
    r = h.run(h.load_app(h.LABS / "instructor.py"), defs={"files": _uploads(folder)})
    from mlsysim.labs.style import LAB_CSS

    assert live_markup(_raw(r).replace(str(LAB_CSS), ""), allow_plotly_iframe=True) == []
    assert '<script>alert("s")</script>' in text_of(_raw(r))  # shown, as text
    # chart labels: Plotly reads a subset of HTML in them, so report text arrives escaped there
    srcdocs = [v for _, attrs in scan(_raw(r)).tags for k, v in attrs if k == "srcdoc"]
    assert len(srcdocs) == len(r.charts) > 0
    for doc in srcdocs:
        assert "<script>alert(" not in doc and "<img src=x" not in doc
    # the class view labels its charts from the installed lab (question, options, notebook),
    # not from what a file claims: no hostile label reaches a chart at all
    assert not any("alert(" in doc for doc in srcdocs)


def test_instructor_notebook_passes_marimo_check():
    proc = subprocess.run(
        [sys.executable, "-m", "marimo", "check", "--strict", str(h.LABS / "instructor.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_synthesis_numbers_are_computed_only_after_every_prediction(tmp_path):
    """The report's design numbers come from the synthesis, which stays locked until every
    prediction is answered: a report downloaded earlier must not carry them."""
    import asyncio

    calls = []

    def synthesis(*args):
        calls.append(args)
        return {"latency": "1.2 ms"}

    led = DesignLedger(tmp_path / "s.json")
    some = {"pred_a": lab.PRED_A.answer, "pred_b": lab.PRED_B.answer}
    asyncio.run(kit.record(led, lab, widgets=some, synthesis=synthesis, synthesis_args=("KWS",)))
    assert calls == [] and "latency" not in led.chapter(lab.CHAPTER).design
    every = {**some, "pred_c": lab.PRED_C.answer, "pred_d": lab.PRED_D.answer}
    asyncio.run(kit.record(led, lab, widgets=every, synthesis=synthesis, synthesis_args=("KWS",)))
    assert (
        calls == [("KWS",)]
        and DesignLedger(tmp_path / "s.json").chapter(lab.CHAPTER).design["latency"] == "1.2 ms"
    )


def test_report_markdown_is_inert_and_readable_as_plain_text():
    """A student reading the .md in a text editor saw "s06\\_06\\_attention" and "2026\\-12\\-05":
    an underscore inside a word and a dash inside a line open no markup, so they stay as typed;
    everything that could still becomes plain text when the file is rendered."""
    import marimo as mo

    from html_safety import HOSTILE, live_markup

    assert (
        reports.md_text("s06_06_attention 2026-12-05T10:00") == "s06_06_attention 2026-12-05T10:00"
    )
    for payload in [*HOSTILE, "- a list\n# a heading\n---", "_em_ and __strong__", "1) x\n+ y"]:
        rendered = mo.md(reports.md_text(payload)).text
        assert not live_markup(rendered), payload
        for tag in ("<li", "<h1", "<em", "<strong", "<hr", "<ol", "<ul"):
            assert tag not in rendered, (payload, tag)
