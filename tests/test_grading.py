"""The class view grades from its own answer keys (issue 33): a report is a claim, not a fact.

``reports.regrade`` recomputes every verdict, label, question text and the completion from the
installed lab; ``summarize`` and ``class_rows`` (the class view and the CLI) count only what the
keys support and list the rest as flags. Each test below builds an honest report through the
same path a notebook uses, tampers with it as a student could, and checks the class view."""

from __future__ import annotations

import pytest

from mlsysim.labs import reports
from mlsysim.labs.parts import s06_03_cnns as lab
from mlsysim.labs.state import DesignLedger

PREDS = {p: getattr(lab, f"PRED_{p}") for p in lab.PARTS}


def _wrong(p):
    return next(k for k in p.options if k != p.answer)


def _report(tmp_path, name="Ada", answers=None) -> reports.Report:
    led = DesignLedger(tmp_path / f"{name}.json")
    answers = answers if answers is not None else {k: _wrong(p) for k, p in PREDS.items()}
    led.save(
        lab.CHAPTER,
        answers=answers,
        correct={k: PREDS[k].is_correct(v) for k, v in answers.items()},
        required=lab.PARTS,
    )
    rep = reports.build(led, lab, student=name, notebook="s06_03_cnns")
    return reports.parse(reports.to_json(rep), f"{name}.json")


def _edit(rep, **changes):
    answers = [
        a.model_copy(update=changes.get(a.key, {})) if a.key in changes else a for a in rep.answers
    ]
    return rep.model_copy(update={"answers": answers})


def test_a_claimed_verdict_is_recomputed_and_flagged(tmp_path):
    honest = _report(tmp_path)
    assert all(a.first_correct is False for a in honest.answers if a.first is not None)
    forged = _edit(honest, **{k: {"first_correct": True, "final_correct": True} for k in PREDS})
    g = reports.regrade(forged)
    assert [a.first_correct for a in g.report.answers if a.key in PREDS] == [False] * len(PREDS)
    assert sum("claims a correct first answer" in f for f in g.flags) == len(PREDS)
    rows = reports.class_rows([forged])
    assert rows[0]["predictions_first_correct"] == 0
    s = reports.summarize([forged])
    assert all(p["first_attempt_accuracy"] == 0 for p in s["parts"] if p["answered"])
    assert any("claims a correct first answer" in f for f in s["flags"])


def test_a_forged_key_does_not_paint_the_class(tmp_path):
    """Uploaded first, a report whose correct_option and labels were edited does not change the
    correct option or the labels the class view shows."""
    forged = _report(tmp_path, "Mallory")
    p = PREDS["A"]
    wrong = _wrong(p)
    forged = _edit(
        forged,
        A={
            "correct_option": wrong,
            "options": {k: "EDITED" for k in p.options},
        },
    )
    honest = _report(tmp_path, "Bob")
    s = reports.summarize([forged, honest])
    q = s["questions"][("s06_03_cnns", "A")]
    assert q["correct_option"] == p.answer
    assert "EDITED" not in q["options"].values() and q["answered"] == 1  # Mallory's left out
    assert any("differs from the installed one" in f for f in s["flags"])


def test_completion_is_recomputed(tmp_path):
    rep = _report(tmp_path, answers={}).model_copy(update={"completed": True})
    g = reports.regrade(rep)
    assert g.report.completed is False
    assert any("claims completion" in f for f in g.flags)
    assert reports.summarize([rep])["completion"][0]["completed"] == 0
    full = _report(tmp_path, "Full", answers={k: p.answer for k, p in PREDS.items()})
    assert reports.regrade(full.model_copy(update={"completed": False})).report.completed


def test_unknown_questions_options_and_duplicates_are_left_out(tmp_path):
    rep = _report(tmp_path)
    extra = [rep.answers[0].model_copy(update={"key": f"Q{i}", "first": "x"}) for i in range(250)]
    bad_option = rep.answers[1].model_copy(update={"first": "no-such-option"})
    dup = rep.answers[0]
    rep = rep.model_copy(
        update={"answers": [*rep.answers[:1], bad_option, *rep.answers[2:], dup, *extra]}
    )
    g = reports.regrade(rep)
    keys = [a.key for a in g.report.answers]
    assert len(keys) == len(set(keys)) and not any(k.startswith("Q") for k in keys)
    assert rep.answers[1].key not in keys
    assert sum("unknown question" in f for f in g.flags) == 250
    assert any("unknown option" in f for f in g.flags) and any("twice" in f for f in g.flags)
    s = reports.summarize([rep])
    assert len(s["questions"]) <= len(reports.installed_labs()["6.3"].PARTS) * 2


def test_another_version_is_named(tmp_path):
    rep = _report(tmp_path).model_copy(update={"notebook_sha256": "0" * 64})
    g = reports.regrade(rep)
    assert not g.same_version and g.known
    s = reports.summarize([rep, _report(tmp_path, "Cy")])
    assert any(f.startswith("1 report of 6.3 from another version") for f in s["flags"])
    unknown = rep.model_copy(update={"chapter": "9.9"})
    assert reports.regrade(unknown).known is False
    assert reports.summarize([unknown])["reports"] == 0


@pytest.mark.parametrize("first", ["wrong", "right"])
def test_misconception_is_the_key_s_not_the_file_s(tmp_path, first):
    p = PREDS["A"]
    choice = _wrong(p) if first == "wrong" else p.answer
    rep = _edit(_report(tmp_path, answers={"A": choice}), A={"misconception": "I was right"})
    a = next(a for a in reports.regrade(rep).report.answers if a.key == "A")
    assert a.misconception == reports.misconception_of(p, choice)
    assert (a.misconception == "") == (first == "right")


def test_an_oversized_report_is_refused_before_parsing(tmp_path):
    big = b"{" + b" " * (reports.MAX_REPORT_BYTES + 1) + b"}"
    with pytest.raises(reports.ReportError, match=r"^huge\.json: .* bytes is not a report"):
        reports.parse(big, "huge.json")
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "huge.json").write_bytes(big)
    (folder / "ok.json").write_text(reports.to_json(_report(tmp_path)), encoding="utf-8")
    got, errors = reports.load_dir(folder)
    assert len(got) == 1 and len(errors) == 1 and errors[0].startswith("huge.json:")


def test_csv_header_cells_are_formula_safe():
    import csv
    import io

    text = reports.to_csv([{"=HYPERLINK(1)": 1, "+cmd": 2, "@x": 3, "-y": 4, "ok": 5}])
    header = next(csv.reader(io.StringIO(text)))
    assert len(header) == 5 and header[-1] == "ok"
    assert not [c for c in header if c[:1] in ("=", "+", "-", "@", "\t", "\r")], header


def test_cli_errors_are_one_line_and_status_2(tmp_path):
    import subprocess
    import sys

    (tmp_path / "r.json").write_text(reports.to_json(_report(tmp_path)), encoding="utf-8")
    for args in (
        [str(tmp_path), "-o", str(tmp_path / "no" / "such" / "dir" / "x.csv")],
        [str(tmp_path / "missing")],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "mlsysim.labs.reports", *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr
        assert proc.stderr.strip().splitlines()[-1].startswith("error: ")


def test_student_landing_page_does_not_hand_out_the_answer_keys(tmp_path):
    """Instructor mode (every answer key) stays in the instructor notes, not the student page."""
    import sys

    from harness import ROOT

    sys.path.insert(0, str(ROOT / "scripts"))
    import build_site

    build_site.write_index(tmp_path, [("s06_01_principles", "6.1"), ("instructor", "Class view")])
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "s06_01_principles" in page and "unlock" not in page.replace("unlocked", "")
    assert "unlock=all" in (ROOT / "labs" / "README.md").read_text(encoding="utf-8")


def test_a_lab_opened_unlocked_says_so(tmp_path):
    led = DesignLedger(tmp_path / "l.json")
    led.save(lab.CHAPTER, answers={}, required=lab.PARTS, text={"opened_unlocked": "yes"})
    rep = reports.parse(reports.to_json(reports.build(led, lab, student="Eve")), "e.json")
    assert rep.opened_unlocked
    assert "instructor mode" in reports.to_markdown(rep)
    assert any("instructor mode" in f for f in reports.regrade(rep).flags)
    assert reports.class_rows([rep])[0]["opened_unlocked"] is True


def test_markdown_report_reads_as_plain_text_and_stays_inert():
    import markdown

    assert reports.md_text("Chapter 6.3 (s1234567), 2026-12-05!") == (
        "Chapter 6.3 (s1234567), 2026-12-05!"
    )
    for hostile in ("1. a list", "2) a list", "[x](javascript:alert(1))", "# title", "*em*"):
        html_ = markdown.markdown(reports.md_text(hostile))
        assert not any(t in html_ for t in ("<ol", "<a ", "<h1", "<em")), (hostile, html_)


def test_byom_report_names_the_pasted_config(tmp_path):
    import hashlib

    from mlsysim.labs.parts import byom

    led = DesignLedger(tmp_path / "b.json")
    text = byom.EXAMPLE
    led.save(
        byom.CHAPTER,
        answers={"A": next(iter(byom.PRED_A.options))},
        required=byom.PARTS,
        widgets={"SOURCE": byom.PASTE, "CONFIG_TEXT": text},
    )
    rep = reports.build(led, byom, student="Kim")
    md = reports.to_markdown(rep)
    assert "CONFIG" in md and hashlib.sha256(text.encode()).hexdigest()[:16] in md
    assert reports.parse(md, "k.md").widgets["CONFIG_TEXT"] == text


def test_a_duplicate_student_is_flagged_and_counted_once(tmp_path):
    old = _report(tmp_path, "Ana").model_copy(update={"generated": "2026-01-01T00:00:00+00:00"})
    new = _report(tmp_path, "ana ").model_copy(update={"generated": "2026-02-01T00:00:00+00:00"})
    s = reports.summarize([old, new])
    assert s["reports"] == 1
    assert any("2 reports of 6.3; only the newest is counted" in f for f in s["flags"])
