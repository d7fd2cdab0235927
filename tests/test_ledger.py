"""The design ledger survives what browsers and laptops do to it."""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mlsysim.labs import state
from mlsysim.labs.state import SCHEMA_VERSION, DesignLedger

import harness as h


@pytest.fixture
def path(tmp_path):
    return tmp_path / "ledger.json"


def test_round_trip_and_completion_from_answers(path):
    led = DesignLedger(path)
    led.save("6.3", design={"device": "H100"}, answers={"A": "x"}, required=["A", "B"])
    assert not led.completed("6.3")
    led.save("6.3", answers={"B": "y"})
    again = DesignLedger(path)
    assert again.completed("6.3") and again.chapter("6.3").design == {"device": "H100"}
    assert again.warning is None


def test_loading_never_marks_completed(path):
    DesignLedger(path).save("6.1", answers={"A": "x"}, required=["A", "B"])
    assert not DesignLedger(path).completed("6.1")


def test_saving_one_chapter_keeps_the_others(path):
    DesignLedger(path).save("6.1", answers={"A": "x"}, required=["A"])
    DesignLedger(path).save("6.2", answers={"A": "y"}, required=["A"])
    data = json.loads(path.read_text())
    assert set(data["chapters"]) == {"6.1", "6.2"}


def test_a_failed_write_leaves_the_old_file_intact(path, monkeypatch):
    DesignLedger(path).save("6.1", answers={"A": "x"}, required=["A"])
    before = path.read_text()

    def boom(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(state.os, "replace", boom)
    led = DesignLedger(path)
    led.save("6.2", answers={"A": "y"})
    assert path.read_text() == before
    assert "cannot be saved" in led.warning
    assert sorted(p.name for p in path.parent.iterdir() if not p.name.endswith(".lock")) == [
        "ledger.json"
    ]


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("{not json", "corrupt"),
        (
            json.dumps({"app": "mlsysim", "schema_version": "2; DROP", "chapters": {}}),
            "schema version",
        ),
        (
            json.dumps({"app": "mlsysim", "schema_version": SCHEMA_VERSION + 1, "chapters": {}}),
            "schema version",
        ),
        (json.dumps({"app": "something-else"}), "not an mlsysim ledger"),
        (
            json.dumps(
                {"app": "mlsysim", "schema_version": SCHEMA_VERSION, "chapters": {"6.1": 3}}
            ),
            "schema",
        ),
        (json.dumps([1, 2, 3]), "not an mlsysim ledger"),
    ],
)
def test_bad_ledgers_reset_with_a_warning_and_are_kept_aside(path, content, needle):
    path.write_text(content)
    led = DesignLedger(path)
    assert needle in led.warning
    assert led.data.chapters == {}
    assert path.with_suffix(".json.bak").read_text() == content


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_data_dir(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(stat.S_IRUSR | stat.S_IXUSR)
    led = DesignLedger(ro / "ledger.json")
    led.save("6.1", answers={"A": "x"}, required=["A"])
    assert "cannot be saved" in led.warning and led.completed("6.1")


def test_unwritable_path_keeps_the_session(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")  # a file where the data dir should be: mkdir fails for root too
    led = DesignLedger(blocker / "sub" / "ledger.json")
    rec = led.save("6.1", answers={"A": "x"}, required=["A"])
    assert rec.completed and "cannot be saved" in led.warning


def test_browser_without_storage_keeps_progress_in_memory(tmp_path, monkeypatch):
    monkeypatch.setattr(state.sys, "platform", "emscripten")
    led = DesignLedger()

    async def go():
        await led.load_async()
        return await led.save_async("6.1", answers={"A": "x"}, required=["A"])

    rec = asyncio.run(go())
    assert rec.completed and led.persistent is False
    assert "Browser storage is unavailable" in led.warning
    with pytest.raises(RuntimeError, match="await"):
        led.save("6.1", answers={"A": "x"})  # fire-and-forget saves are refused in the browser


def test_notebook_opens_with_a_corrupt_ledger_and_shows_the_warning(tmp_path, monkeypatch):
    monkeypatch.setenv("MLSYSIM_DATA_DIR", str(tmp_path))
    (tmp_path / "mlsysim-ledger.json").write_text("{truncated")
    r = h.run(h.load_app(h.LABS / "lab06_architecture_tax.py"))
    assert "ledger was corrupt: it was set aside" in r.visible_text
    assert (tmp_path / "mlsysim-ledger.json.bak").read_text() == "{truncated"


# --------------------------------------------------------------------------------------------
# Committed predictions, restored state, storable values
# --------------------------------------------------------------------------------------------


def test_first_attempt_is_kept_with_time_and_correctness(path):
    led = DesignLedger(path)
    led.save("6.6", answers={"A": "wrong"}, correct={"A": False}, required=["A"])
    first = DesignLedger(path).chapter("6.6").attempts["A"]
    led.save("6.6", answers={"A": "right"}, correct={"A": True})
    led.save("6.6", answers={"A": "right"}, correct={"A": True})  # same answer again: no change
    led.save("6.6", answers={"A": "other"}, correct={"A": False})
    att = DesignLedger(path).chapter("6.6").attempts["A"]
    assert (att.first, att.first_correct, att.first_at) == ("wrong", False, first.first_at)
    assert first.first_at.endswith("+00:00") and first.first_at[:4].isdigit()
    assert (att.final, att.final_correct, att.changes) == ("other", False, 2)
    assert DesignLedger(path).chapter("6.6").answers == {"A": "other"}


def test_widgets_text_and_student_round_trip(path):
    DesignLedger(path).save(
        "6.2",
        answers={"A": "x"},
        widgets={"A_UNITS": 2000, "B_FLASH": True},
        text={"justification": "Part B showed…"},
        student="Ada Lovelace",
    )
    rec = DesignLedger(path).chapter("6.2")
    assert rec.widgets == {"A_UNITS": 2000, "B_FLASH": True}
    assert rec.text == {"justification": "Part B showed…"}
    assert DesignLedger(path).student == "Ada Lovelace"


def test_non_finite_values_are_refused_by_name_and_the_rest_saved(path):
    led = DesignLedger(path)
    led.save(
        "6.1",
        design={"latency": float("nan"), "mfu": float("inf"), "batch": 8},
        answers={"A": "x"},
        required=["A"],
    )
    assert "latency=nan" in led.warning and "mfu=inf" in led.warning
    again = DesignLedger(path)
    assert again.chapter("6.1").design == {"batch": 8} and again.completed("6.1")
    assert "NaN" not in path.read_text() and "Infinity" not in path.read_text()


def test_any_unicode_is_stored(path):
    lone = "half \ud800 a pair \ud83d\ude00 and 日本語"
    led = DesignLedger(path)
    led.save("6.1", answers={"A": lone}, text={"justification": lone}, student=lone, required=["A"])
    again = DesignLedger(path)
    assert again.chapter("6.1").text["justification"] == "half \ufffd a pair 😀 and 日本語"
    assert again.student == "half \ufffd a pair 😀 and 日本語" and again.warning is None


def test_unsupported_value_type_names_the_key(path):
    with pytest.raises(TypeError, match=r"design\['shape'\]"):
        DesignLedger(path).save("6.1", design={"shape": (1, 2)})


def test_version_1_ledger_is_migrated_without_loss(path):
    v1 = {
        "app": "mlsysim",
        "schema_version": 1,
        "track": "edge",
        "chapters": {
            "6.1": {"design": {"d": 1}, "answers": {"A": "x"}, "required": ["A"], "updated": ""}
        },
    }
    path.write_text(json.dumps(v1))
    led = DesignLedger(path)
    assert led.warning is None and led.track == "edge" and led.completed("6.1")
    led.save("6.2", answers={"A": "y"}, required=["A"])
    data = json.loads(path.read_text())
    assert data["schema_version"] == SCHEMA_VERSION and set(data["chapters"]) == {"6.1", "6.2"}


def test_a_second_bad_file_does_not_overwrite_the_first_backup(path):
    path.write_text("{one")
    DesignLedger(path).save("6.1", answers={"A": "x"})
    path.write_text("{two")
    DesignLedger(path)
    assert path.with_suffix(".json.bak").read_text() == "{one"
    assert path.with_suffix(".json.2.bak").read_text() == "{two"


def test_seed_style_save_with_an_integer_chapter(path):
    led = DesignLedger(path)
    assert led._state.track is None
    led.save(chapter=6, design={"chapter": "v1_06", "completed": True})
    assert not DesignLedger(path).completed("6")  # a design value never marks completion


# --------------------------------------------------------------------------------------------
# Several writers: nothing lost
# --------------------------------------------------------------------------------------------


def test_two_ledgers_on_one_file(path):
    a, b = DesignLedger(path), DesignLedger(path)  # both loaded before either saved
    a.save("6.6", answers={"A": "x"}, required=["A"])
    b.save("6.7", answers={"A": "y"}, required=["A"])
    a.save("6.6", answers={"B": "z"})
    data = json.loads(path.read_text())
    assert set(data["chapters"]) == {"6.6", "6.7"}
    assert data["chapters"]["6.6"]["answers"] == {"A": "x", "B": "z"}
    assert set(a.data.chapters) == {"6.6", "6.7"}  # each ledger also sees the other's chapter


WRITER = """
import sys
from mlsysim.labs.state import DesignLedger
path, chapter, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
led = DesignLedger(path)
for i in range(n):
    led.save(chapter, design={"i": i}, answers={"A": f"a{i}"}, required=["A"])
"""


def test_two_processes_saving_different_chapters_lose_nothing(path):
    n = 150
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), ch, str(n)], env=env)
        for ch in ("6.6", "6.7")
    ]
    assert [p.wait(timeout=240) for p in procs] == [0, 0]
    data = json.loads(path.read_text())
    for ch in ("6.6", "6.7"):
        rec = data["chapters"][ch]
        assert rec["design"] == {"i": n - 1} and rec["answers"] == {"A": f"a{n - 1}"}
        assert rec["attempts"]["A"]["first"] == "a0" and rec["attempts"]["A"]["changes"] == n - 1
    assert not list(path.parent.glob("*.tmp"))


KILLED = """
import os, sys, time
from mlsysim.labs import state
path, ready = sys.argv[1], sys.argv[2]
def stuck(src, dst):
    open(ready, "w").close()
    time.sleep(120)
state.os.replace = stuck
state.DesignLedger(path).save("6.7", answers={"A": "never"}, required=["A"])
"""


def test_a_kill_mid_save_leaves_the_file_intact_and_no_orphan(path):
    DesignLedger(path).save("6.6", answers={"A": "x"}, required=["A"])
    before = path.read_text()
    ready = path.parent / "ready"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-c", KILLED, str(path), str(ready)], env=env)
    for _ in range(600):
        if ready.exists():
            break
        time.sleep(0.05)
    assert ready.exists(), "the writer never reached its replace"
    assert list(path.parent.glob(".ledger-*.tmp")), "the temp file should exist mid-save"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert path.read_text() == before  # the old file, whole
    led = DesignLedger(path)  # the next load removes the killed save's temp file
    assert not list(path.parent.glob(".ledger-*.tmp"))
    assert led.completed("6.6") and led.chapter("6.7") is None and led.warning is None
    led.save("6.7", answers={"A": "y"}, required=["A"])  # the lock was released by the kill
    assert DesignLedger(path).completed("6.7")


# --------------------------------------------------------------------------------------------
# The reference lab from ../shared/seeds runs unchanged
# --------------------------------------------------------------------------------------------

SEED = Path(__file__).parent / "fixtures" / "seed_lab06_architecture_tax_reference.py"
SHARED_SEED = (
    Path(__file__).resolve().parents[2] / "shared" / "seeds" / "lab06_architecture_tax_reference.py"
)


@pytest.mark.skipif(not SHARED_SEED.exists(), reason="no ../shared/seeds next to this checkout")
def test_the_seed_fixture_is_the_shared_seed_unchanged():
    assert SEED.read_bytes() == SHARED_SEED.read_bytes()


def test_the_seed_lab_runs_unchanged_in_its_default_state(tmp_path, monkeypatch):
    from mlsysim.labs.style import COLORS

    monkeypatch.setenv("MLSYSIM_DATA_DIR", str(tmp_path))
    assert {"BlueL", "GreenL", "OrangeL", "RedL"} <= set(COLORS)
    r = h.run(h.load_app(SEED), path=SEED)
    text = r.visible_text
    assert "TRACK" in text and "not set" in text  # its last cell (ledger._state.track) ran
    data = json.loads((tmp_path / "mlsysim-ledger.json").read_text())
    assert data["chapters"]["6"]["design"] == {"chapter": "v1_06", "completed": True}


# --------------------------------------------------------------------------------------------
# Every notebook: the verdict under the question; everything back after a reload
# --------------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("path", h.NOTEBOOKS, ids=[p.stem for p in h.NOTEBOOKS])
def test_notebook_restores_answers_and_widgets_after_a_reload(path, tmp_path, monkeypatch):
    """Answer every question (the last option) and move every widget to its maximum; a fresh run
    (a reload) shows the same answers, positions and unlocked parts, with each verdict in the
    output right after its question."""
    import marimo as mo

    h.skip_inventory(path)
    monkeypatch.setenv("MLSYSIM_DATA_DIR", str(tmp_path))
    app = h.load_app(path)
    widgets = h.run(app, path=path).widgets()
    chosen = {name: h.grid(w)[-1] for name, w in widgets.items()}
    first = h.run(app, defs={n: h.with_value(widgets[n], v) for n, v in chosen.items()}, path=path)
    again = h.run(app, path=path)
    for name, value in chosen.items():
        assert again.defs[name].value == value, f"{name} came back as {again.defs[name].value!r}"
    assert len(again.figures) == len(first.figures) > 0
    outs = [o for o in again.outputs if o is not None]
    for name, radio in again.predictions().items():
        i = next(k for k, o in enumerate(outs) if radio.text in mo.as_html(o).text)
        verdict = h._render([outs[i + 1]])
        assert "Correct." in verdict or "Not quite" in verdict, (
            f"{name}: no verdict under the question"
        )


def test_every_notebook_is_wired_to_the_ledger():
    proc = subprocess.run(
        [
            sys.executable,
            str(h.ROOT / "scripts" / "wire_ledger.py"),
            "--check",
            *map(str, h.NOTEBOOKS),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_verdict_recalls_a_first_answer_made_in_this_session(tmp_path, monkeypatch):
    """Answer wrong, then switch to the right option without reloading: the verdict says the
    committed (first) answer is the recorded one."""
    monkeypatch.setenv("MLSYSIM_DATA_DIR", str(tmp_path))
    from mlsysim.labs.parts import lab06

    path = h.LABS / "lab06_architecture_tax.py"
    app = h.load_app(path)
    w = h.run(app, path=path).widgets()
    wrong = next(k for k in lab06.PRED_A.options if k != lab06.PRED_A.answer)
    h.run(app, defs={"pred_a": h.with_value(w["pred_a"], wrong)}, path=path)
    r = h.run(app, defs={"pred_a": h.with_value(w["pred_a"], lab06.PRED_A.answer)}, path=path)
    assert "Your committed prediction (recorded, not correct)" in r.visible_text
    assert lab06.PRED_A.options[wrong] in r.visible_text


def test_saved_reads_first_answers_made_after_loading(path):
    """In a live session the notebook's ``saved`` object is made once, at load; a first answer
    committed later must still be what the verdict recalls."""
    from mlsysim.labs import components as kit
    from mlsysim.labs.parts import lab06

    led = DesignLedger(path)
    saved = kit.saved(led, lab06)
    assert saved.first_for(lab06.PRED_A) is None
    wrong = next(k for k in lab06.PRED_A.options if k != lab06.PRED_A.answer)
    led.save(lab06.CHAPTER, answers={"A": wrong}, required=lab06.PARTS)
    led.save(lab06.CHAPTER, answers={"A": lab06.PRED_A.answer})
    assert saved.first_for(lab06.PRED_A) == wrong
    html = kit.verdict(lab06.PRED_A, lab06.PRED_A.answer, saved=saved).text
    assert "committed prediction" in html


def test_unanswered_parts_are_not_recorded(path):
    """A part left unanswered (None) must not be stored as the string 'None' (it would count
    as answered and complete the chapter)."""
    led = DesignLedger(path)
    led.save("6.1", answers={"A": "x", "B": None}, required=["A", "B"])
    again = DesignLedger(path)
    assert again.chapter("6.1").answers == {"A": "x"}
    assert not again.completed("6.1")


def test_a_failed_write_is_not_retried_every_save(path, monkeypatch):
    """After one failed write the session stops touching the disk (no temp file per answer);
    progress stays in memory."""
    calls = []

    def boom(*_a, **_k):
        calls.append(1)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(state.os, "replace", boom)
    led = DesignLedger(path)
    led.save("6.1", answers={"A": "x"}, required=["A", "B"])
    led.save("6.1", answers={"B": "y"})
    assert len(calls) == 1 and led.persistent is False
    assert led.completed("6.1")


def test_summary_counts_required_parts_only(path):
    led = DesignLedger(path)
    led.save("6.1", answers={"A": "x", "extra": "y"}, required=["A", "B"])
    led.save("6.2", answers={"A": "x"}, required=["A"])
    assert led.summary() == "6.1: 1/2 parts answered; 6.2: completed"


def _wire_ledger():
    spec = importlib.util.spec_from_file_location(
        "wire_ledger", h.ROOT / "scripts" / "wire_ledger.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("nb_path", h.NOTEBOOKS, ids=lambda p: p.stem)
def test_wiring_writes_the_cells_the_labs_have(nb_path):
    """``scripts/wire_ledger.py`` on a notebook stripped of its verdicts and of its answer-field
    cell writes them back exactly as the labs lay them out: each verdict first in its part's
    gated cell (not a cell of its own: every cell costs the browser's first run) but the first
    prediction's, in a cell of its own (shown before the first chart is drawn), the
    justification and name fields in one cell."""
    h.skip_inventory(nb_path)
    src = nb_path.read_text(encoding="utf-8")
    if "kit.record(" not in src:
        pytest.skip("no ledger (the instructor notebook)")
    verdict = re.compile(r"^\s*kit\.verdict\(lab\.PRED_\w+, pred_\w+, unlocked, saved\),\n", re.M)
    fields = re.compile(
        r"@app\.cell\ndef _\(kit, lab, saved\):\n    justification = kit\.justification_field"
        r"\(lab, saved\)\n    student = kit\.student_field\(saved\)\n    return justification, "
        r"student\n\n\n"
    )
    own = re.compile(
        r"@app\.cell\ndef _\(kit, lab, pred_\w+, saved, unlocked\):\n"
        r"    kit\.verdict\(lab\.PRED_\w+, pred_\w+, unlocked, saved, locked=\"Part \w\"\)\n"
        r"    return\n\n\n"
    )
    stripped, n_own = own.subn("", src)
    stripped, n_verdicts = verdict.subn("", stripped)
    stripped, n_fields = fields.subn("", stripped)
    assert n_own == 1 and n_verdicts + n_own == src.count("kit.verdict(lab.PRED_") and n_fields == 1
    # no verdict cell of its own but the first prediction's: its gated cell draws the page's
    # first chart, which waits for plotly and the first part's first run in the browser
    assert src.count("@app.cell\ndef _(kit, lab, pred_") == 1
    assert "@app.cell\ndef _(kit, lab, pred_a, saved, unlocked):\n    kit.verdict(" in src
    # the locked note is that cell's, not the gated cell's (else it stays, dimmed, under the
    # verdict while the first chart is drawn)
    assert 'locked="Part A")' in src and 'kit.locked_note("Part A")' not in src
    out = _wire_ledger().wire(stripped)
    assert ast.dump(ast.parse(out)) == ast.dump(ast.parse(src))
