"""The design ledger survives what browsers and laptops do to it."""

from __future__ import annotations

import asyncio
import json
import os
import stat

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
    assert [p.name for p in path.parent.iterdir()] == ["ledger.json"]  # no temp file left


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("{not json", "corrupt"),
        (json.dumps({"app": "mlsysim", "schema_version": SCHEMA_VERSION + 1, "chapters": {}}), "schema version"),
        (json.dumps({"app": "something-else"}), "not an mlsysim ledger"),
        (json.dumps({"app": "mlsysim", "schema_version": SCHEMA_VERSION, "chapters": {"6.1": 3}}), "schema"),
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
    assert "corrupt and has been reset" in r.visible_text


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
