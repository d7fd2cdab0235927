"""The ledger's and the reports' rules, one test per rule (issue 38), driven through the public
functions the notebooks (``DesignLedger.save``/``load``) and the class view (``reports.build``,
``to_markdown``, ``parse``, ``regrade``, ``summarize``, ``class_rows``, ``to_csv``) call.

Each test is built so that the plausible wrong rule gives another value: the stored side winning
a merge instead of the incoming one, the final answer counted where the first counts, one kind of
question counted on another's base, the answer key shown for a question never answered, the
older of two reports counted. ``benchmarks/mutants.py`` carries one such bug of each class."""

from __future__ import annotations

import csv
import io
import json

import pytest

from mlsysim.labs import reports
from mlsysim.labs.components import questions
from mlsysim.labs.parts import s06_03_cnns as lab
from mlsysim.labs.state import DesignLedger

KEYS = questions(lab)  # key -> (attribute, question)
PRED = {k: p for k, (a, p) in KEYS.items() if a.startswith("PRED_")}
TRANSFER = {k: p for k, (a, p) in KEYS.items() if not a.startswith("PRED_")}


def _right(key: str) -> str:
    return KEYS[key][1].answer


def _wrong(key: str) -> str:
    p = KEYS[key][1]
    return next(o for o in p.options if o != p.answer)


def _save(led: DesignLedger, answers: dict[str, str], **kw):
    """A save as a notebook makes it: the verdict of each answer from the key."""
    kw.setdefault("required", list(lab.PARTS))
    return led.save(
        lab.CHAPTER,
        answers=answers,
        correct={k: KEYS[k][1].is_correct(v) for k, v in answers.items()},
        **kw,
    )


def _report(led: DesignLedger, name: str = "Ada", generated: str | None = None) -> reports.Report:
    """The report a notebook writes, read back as the class view reads it."""
    rep = reports.build(led, lab, student=name, notebook="s06_03_cnns")
    if generated is not None:
        rep = rep.model_copy(update={"generated": generated})
    return reports.parse(reports.to_json(rep), f"{name}.json")


# --------------------------------------------------------------------------------------------
# The ledger: which side wins a merge
# --------------------------------------------------------------------------------------------


def test_merge_incoming_value_wins_per_key_and_stored_keys_are_kept(tmp_path):
    """answers, design, widgets, text: the incoming save's value for a key replaces the stored
    one; a key the save does not name keeps its stored value (no key is lost)."""
    path = tmp_path / "l.json"
    DesignLedger(path).save(
        "6.3",
        design={"d1": 1, "d2": 2},
        answers={"A": "a1", "B": "b1"},
        widgets={"w1": 1, "w2": "x"},
        text={"t1": "one", "t2": "two"},
    )
    DesignLedger(path).save(
        "6.3",
        design={"d1": 10},
        answers={"A": "a2"},
        widgets={"w2": "y"},
        text={"t1": "ONE"},
    )
    rec = DesignLedger(path).chapter("6.3")
    assert rec.design == {"d1": 10, "d2": 2}
    assert rec.answers == {"A": "a2", "B": "b1"}
    assert rec.widgets == {"w1": 1, "w2": "y"}
    assert rec.text == {"t1": "ONE", "t2": "two"}


def test_merge_required_list_is_the_incoming_one_when_given(tmp_path):
    """``required``: a non-empty incoming list replaces the stored one (neither kept nor
    unioned); a save without one keeps the stored list."""
    path = tmp_path / "l.json"
    DesignLedger(path).save("6.3", answers={"A": "x"}, required=["A", "B"])
    DesignLedger(path).save("6.3", answers={"C": "x"}, required=["C", "D", "E"])
    assert DesignLedger(path).chapter("6.3").required == ["C", "D", "E"]
    DesignLedger(path).save("6.3", answers={"D": "x"})
    assert DesignLedger(path).chapter("6.3").required == ["C", "D", "E"]
    # what completion is computed from: the incoming list, answered by the stored answers too
    led = DesignLedger(path)
    assert not led.completed("6.3")
    led.save("6.3", answers={"E": "x"})
    assert DesignLedger(path).completed("6.3")


def test_merge_is_made_with_the_file_not_a_stale_memory(tmp_path):
    """A notebook that loaded before another one saved sends only what it changed: the other
    notebook's newer answer to a key it did not send survives, and the first answer on disk
    stays the first even if this notebook never saw it."""
    path = tmp_path / "l.json"
    stale = DesignLedger(path)  # loaded while the file is empty
    other = DesignLedger(path)
    other.save("6.3", answers={"A": "first"}, correct={"A": False})
    other.save("6.3", answers={"B": "b"}, correct={"B": True}, student="Ada")
    stale.save("6.3", answers={"A": "second"}, correct={"A": True})
    rec = DesignLedger(path).chapter("6.3")
    assert rec.answers == {"A": "second", "B": "b"}
    att = rec.attempts["A"]
    assert (att.first, att.first_correct, att.final, att.final_correct, att.changes) == (
        "first",
        False,
        "second",
        True,
        1,
    )
    assert DesignLedger(path).student == "Ada"  # a save without a name keeps the stored name


def test_first_answer_counts_and_changes_count_only_real_changes(tmp_path):
    """The first answer (its verdict, its time) is never overwritten; ``final`` follows the
    latest; ``changes`` counts answers that differ from the previous final, not saves."""
    path = tmp_path / "l.json"
    led = DesignLedger(path)
    _save(led, {"A": _wrong("A")})
    t0 = DesignLedger(path).chapter(lab.CHAPTER).attempts["A"].first_at
    for v in (_wrong("A"), _right("A"), _right("A"), _wrong("A"), _right("A")):
        _save(led, {"A": v, "B": _right("B")})
    att = DesignLedger(path).chapter(lab.CHAPTER).attempts
    assert (att["A"].first, att["A"].first_correct, att["A"].first_at) == (_wrong("A"), False, t0)
    assert (att["A"].final, att["A"].final_correct, att["A"].changes) == (_right("A"), True, 3)
    assert (att["B"].first, att["B"].changes) == (_right("B"), 0)  # saved five times, unchanged
    assert "C" not in att  # never answered: no attempt


def test_merge_keeps_other_chapters_as_stored(tmp_path):
    path = tmp_path / "l.json"
    DesignLedger(path).save("6.1", answers={"A": "x"}, required=["A"], widgets={"w": 1})
    DesignLedger(path).save("6.2", answers={"A": "y"}, required=["A", "B"])
    led = DesignLedger(path)
    assert led.chapter("6.1").answers == {"A": "x"} and led.chapter("6.1").widgets == {"w": 1}
    assert led.completed("6.1") and not led.completed("6.2")


# --------------------------------------------------------------------------------------------
# A report: what each question may show
# --------------------------------------------------------------------------------------------


def _section(md: str, title: str) -> str:
    """The Markdown report's section under ``## title`` (up to the next heading)."""
    start = md.index(f"## {title}\n")
    end = md.find("\n## ", start + 1)
    return md[start : end if end >= 0 else len(md)]


def test_an_unanswered_question_never_shows_its_answer_key(tmp_path):
    """Never answered: no correct option, no verdict, no misconception, in the report, its JSON,
    its Markdown, the regraded report and the CSV; answered: the key is shown."""
    led = DesignLedger(tmp_path / "l.json")
    _save(led, {"A": _wrong("A"), "B.transfer": _right("B.transfer")})
    rep = _report(led)
    by = {a.key: a for a in rep.answers}
    assert (by["A"].correct_option, by["B.transfer"].correct_option) == (
        _right("A"),
        _right("B.transfer"),
    )
    assert by["A"].misconception  # a wrong first answer names its misconception
    for key in KEYS:
        if key in ("A", "B.transfer"):
            continue
        a = by[key]
        assert (a.first, a.final, a.correct_option, a.misconception) == (None, None, "", "")
        assert a.first_correct is None and a.final_correct is None
    md = reports.to_markdown(rep)
    for key, p in PRED.items():
        sec = _section(md, f"Part {key}")
        if key == "A":
            assert f"Correct option: {reports.md_text(p.options[p.answer])}" in sec
        else:
            assert "Not answered." in sec and "Correct option" not in sec
            assert reports.md_text(p.options[p.answer]) not in sec
    for key in TRANSFER:
        sec = _section(md, f"Transfer question ({reports.md_text(key)})")
        assert ("Correct option" in sec) == (key == "B.transfer")
    blob = json.loads(reports.to_json(rep))
    assert [a["correct_option"] for a in blob["answers"]] == [
        _right(k) if k in ("A", "B.transfer") else "" for k in KEYS
    ]
    graded = reports.regrade(rep).report
    assert [a.correct_option for a in graded.answers] == [
        _right(k) if k in ("A", "B.transfer") else "" for k in KEYS
    ]
    row = reports.class_rows([rep])[0]
    assert row["C_first"] == "" and row["C_first_correct"] == "" and row["C_final"] == ""


def test_a_forged_key_on_an_unanswered_question_is_not_shown(tmp_path):
    """A report file that writes a correct option for a question it did not answer: the class
    view's regraded report does not carry it."""
    led = DesignLedger(tmp_path / "l.json")
    _save(led, {"A": _right("A")})
    rep = _report(led)
    forged = rep.model_copy(
        update={
            "answers": [a.model_copy(update={"correct_option": _right(a.key)}) for a in rep.answers]
        }
    )
    graded = reports.regrade(forged).report
    assert {a.key: a.correct_option for a in graded.answers if a.correct_option} == {
        "A": _right("A")
    }


def test_report_first_comes_from_the_first_attempt_and_verdicts_from_the_key(tmp_path):
    """The report's ``first`` is the ledger's first attempt (not the latest answer) and every
    verdict is the installed key's, whatever verdict the notebook saved."""
    led = DesignLedger(tmp_path / "l.json")
    led.save(lab.CHAPTER, answers={"A": _wrong("A")}, correct={"A": True})  # a stale verdict
    _save(led, {"A": _right("A")})
    a = next(a for a in _report(led).answers if a.key == "A")
    assert (a.first, a.first_correct, a.final, a.final_correct, a.changes) == (
        _wrong("A"),
        False,
        _right("A"),
        True,
        1,
    )
    md = reports.to_markdown(_report(led))
    assert "- Score: 0 of 1 predictions" in md  # the first attempt counts, not the final
    assert "Final answer after 1 change(s)" in _section(md, "Part A")


def test_markdown_scores_count_each_kind_on_its_own_base(tmp_path):
    led = DesignLedger(tmp_path / "l.json")
    _save(
        led,
        {
            "A": _right("A"),
            "B": _right("B"),
            "C": _wrong("C"),
            "A.transfer": _right("A.transfer"),
            "B.transfer": _wrong("B.transfer"),
            "C.transfer": _wrong("C.transfer"),
            "D.transfer": _wrong("D.transfer"),
        },
    )
    md = reports.to_markdown(_report(led))
    assert "- Score: 2 of 3 predictions, 1 of 4 transfer questions" in md
    assert f"- Completed: no (3 of {len(lab.PARTS)} parts answered)" in md


# --------------------------------------------------------------------------------------------
# The class view: which questions each column counts
# --------------------------------------------------------------------------------------------


def _mixed(tmp_path, name="Ada", generated=None) -> reports.Report:
    """3 predictions answered (first attempts: 2 right; finals: 1 right), 4 transfers answered
    (first attempts: 1 right; finals: 3 right): every plausible wrong base gives another
    number."""
    led = DesignLedger(tmp_path / f"{name}.json")
    _save(
        led,
        {
            "A": _right("A"),
            "B": _right("B"),
            "C": _wrong("C"),
            "A.transfer": _right("A.transfer"),
            "B.transfer": _wrong("B.transfer"),
            "C.transfer": _wrong("C.transfer"),
            "D.transfer": _wrong("D.transfer"),
        },
    )
    _save(
        led,
        {
            "B": _wrong("B"),
            "C": _wrong("C"),
            "B.transfer": _right("B.transfer"),
            "C.transfer": _right("C.transfer"),
        },
    )
    return _report(led, name, generated)


def test_csv_columns_count_first_attempts_of_their_own_kind(tmp_path):
    rep = _mixed(tmp_path)
    row = reports.class_rows([rep])[0]
    got = {
        k: row[k]
        for k in (
            "parts",
            "predictions_answered",
            "predictions_first_correct",
            "transfers_answered",
            "transfers_first_correct",
            "completed",
        )
    }
    assert got == {
        "parts": len(lab.PARTS),
        "predictions_answered": 3,
        "predictions_first_correct": 2,
        "transfers_answered": 4,
        "transfers_first_correct": 1,
        "completed": False,
    }
    assert (row["B_first"], row["B_first_correct"], row["B_final"], row["B_changes"]) == (
        _right("B"),
        True,
        _wrong("B"),
        1,
    )
    assert (row["C_first"], row["C_first_correct"], row["C_final"], row["C_changes"]) == (
        _wrong("C"),
        False,
        _wrong("C"),
        0,
    )
    assert (row["C.transfer_first_correct"], row["C.transfer_final"]) == (
        False,
        _right("C.transfer"),
    )
    assert row["D_first"] == "" and row["D_changes"] == 0
    # the same numbers in the CSV text the class view downloads
    parsed = list(csv.DictReader(io.StringIO(reports.to_csv([row]))))[0]
    assert [parsed[k] for k in got] == [str(len(lab.PARTS)), "3", "2", "4", "1", "False"]


def test_summary_accuracy_is_over_the_students_who_answered(tmp_path):
    """Per question: ``answered`` counts first answers, ``students`` every report; the accuracy
    is first-attempt right / answered (a student who did not answer is not a wrong answer);
    ``final_accuracy`` uses finals; a misconception's share is over those who answered."""
    ada = _mixed(tmp_path, "Ada")
    led = DesignLedger(tmp_path / "bo.json")
    _save(led, {"A": _wrong("A"), "D": _right("D")})
    bo = _report(led, "Bo")
    led = DesignLedger(tmp_path / "cy.json")
    _save(led, {"D": _wrong("D")})
    cy = _report(led, "Cy")
    s = reports.summarize([ada, bo, cy])
    parts = {(p["key"]): p for p in s["parts"]}
    assert (parts["A"]["students"], parts["A"]["answered"]) == (3, 2)
    assert parts["A"]["first_attempt_accuracy"] == 0.5
    assert parts["B"]["answered"] == 1 and parts["B"]["first_attempt_accuracy"] == 1.0
    assert parts["B"]["final_accuracy"] == 0.0
    ct = parts["C.transfer"]
    assert (ct["first_attempt_accuracy"], ct["final_accuracy"]) == (0.0, 1.0)
    assert parts["E"]["answered"] == 0 and parts["E"]["first_attempt_accuracy"] is None
    assert parts["D"]["first_attempt_accuracy"] == 0.5
    mis = {(m["key"], m["option"]): m for m in s["misconceptions"]}
    assert mis[("A", _wrong("A"))]["students"] == 1 and mis[("A", _wrong("A"))]["share"] == 0.5
    # wrong first answers only: Ada's B (right, then wrong) is none, her B.transfer (wrong,
    # then right) is one
    assert {(k, o, m["students"]) for (k, o), m in mis.items()} == {
        ("A", _wrong("A"), 1),
        ("C", _wrong("C"), 1),
        ("D", _wrong("D"), 1),
        ("B.transfer", _wrong("B.transfer"), 1),
        ("C.transfer", _wrong("C.transfer"), 1),
        ("D.transfer", _wrong("D.transfer"), 1),
    }
    assert s["questions"][("s06_03_cnns", "A")]["counts"] == {_right("A"): 1, _wrong("A"): 1}
    assert s["completion"] == [{"notebook": "s06_03_cnns", "students": 3, "completed": 0}]


@pytest.mark.parametrize("missing", [1, 0])
def test_completed_means_every_part_s_prediction_answered(tmp_path, missing):
    """Both sides of completion: every part's prediction answered (no transfer needed) is
    complete; all but one part and every transfer is not."""
    led = DesignLedger(tmp_path / "l.json")
    assert len(PRED) == len(lab.PARTS)
    ans = {k: _wrong(k) for k in list(PRED)[: len(PRED) - missing]}
    if missing:
        ans.update({k: _right(k) for k in TRANSFER})
    _save(led, ans)
    rep = _report(led)
    assert rep.completed is (missing == 0)
    assert reports.class_rows([rep])[0]["completed"] is (missing == 0)
    assert reports.summarize([rep])["completion"][0]["completed"] == (missing == 0)


# --------------------------------------------------------------------------------------------
# Flags and which report counts
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("newest_first", [False, True])
def test_the_newest_report_of_a_student_is_the_one_counted(tmp_path, newest_first):
    old = _mixed(tmp_path, "Ada", "2026-01-01T00:00:00+00:00")
    led = DesignLedger(tmp_path / "new.json")
    _save(led, {k: _right(k) for k in PRED})
    new = _report(led, " ada", "2026-01-02T00:00:00+00:00")
    given = [new, old] if newest_first else [old, new]
    rows = reports.class_rows(given)
    assert len(rows) == 1
    assert (rows[0]["predictions_answered"], rows[0]["predictions_first_correct"]) == (
        len(PRED),
        len(PRED),
    )
    assert rows[0]["transfers_answered"] == 0 and rows[0]["completed"] is True
    flags = reports.summarize(given)["flags"]
    assert sum("2 reports of 6.3; only the newest is counted" in f for f in flags) == 1


def test_unnamed_reports_are_all_counted(tmp_path):
    a = _mixed(tmp_path, "")
    b = a.model_copy(update={"source": "other.json"})
    assert len(reports.class_rows([a, b])) == 2
    assert not any("reports of" in f for f in reports.summarize([a, b])["flags"])


@pytest.mark.parametrize("unlocked", [False, True])
def test_opened_unlocked_is_flagged_and_shown_exactly_when_it_happened(tmp_path, unlocked):
    led = DesignLedger(tmp_path / "l.json")
    _save(led, {"A": _right("A")}, text={"opened_unlocked": "yes"} if unlocked else None)
    rep = _report(led)
    assert rep.opened_unlocked is unlocked
    assert reports.class_rows([rep])[0]["opened_unlocked"] is unlocked
    flags = reports.summarize([rep])["flags"]
    assert any("instructor mode" in f for f in flags) is unlocked
    assert ("Opened in instructor mode" in reports.to_markdown(rep)) is unlocked


@pytest.mark.parametrize("claims", [False, True])
def test_a_false_completion_claim_is_flagged_and_not_counted(tmp_path, claims):
    led = DesignLedger(tmp_path / "l.json")
    _save(led, {k: _right(k) for k in list(PRED)[:4]})
    rep = _report(led).model_copy(update={"completed": claims})
    g = reports.regrade(rep)
    assert g.report.completed is False
    assert any("claims completion" in f for f in g.flags) is claims
    honest = _report(led)
    assert not any("claims completion" in f for f in reports.regrade(honest).flags)


def test_an_honest_current_report_raises_no_flag(tmp_path):
    g = reports.regrade(_mixed(tmp_path))
    assert g.flags == () and g.known and g.same_version
