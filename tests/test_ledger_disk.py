"""Nothing lost, whatever is on disk (issue 33): a ledger file that cannot be read or decoded is
set aside and never overwritten, a lone surrogate escape does not break later saves, a FIFO or a
lock held by a stopped process does not hang the notebook."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time

import pytest

from mlsysim.labs import state
from mlsysim.labs.state import DesignLedger


def _baks(path):
    return sorted(p.name for p in path.parent.glob(path.name.replace(".json", "") + "*.bak"))


def test_non_utf8_file_is_set_aside_not_overwritten(tmp_path):
    path = tmp_path / "ledger.json"
    damaged = b'{"app": "mlsysim", "student": "\xff\xfe caf\xe9"}'
    path.write_bytes(damaged)
    led = DesignLedger(path)
    assert "not UTF-8" in led.warning and "ledger.json.bak" in led.warning
    led.save("6.1", answers={"A": "x"}, required=["A"])
    assert (tmp_path / "ledger.json.bak").read_bytes() == damaged
    assert json.loads(path.read_text(encoding="utf-8"))["chapters"]["6.1"]["answers"] == {"A": "x"}


def test_a_file_that_cannot_be_read_or_moved_is_never_overwritten(tmp_path, monkeypatch):
    """As a root-owned 0600 file in a folder the student cannot change: reading and moving
    fail; the session saves nothing and says where the old progress is."""
    path = tmp_path / "ledger.json"
    path.write_text('{"precious": true}', encoding="utf-8")
    real_read, real_replace = type(path).read_bytes, os.replace

    def no_read(self):
        if self == path:
            raise PermissionError(13, "Permission denied")
        return real_read(self)

    def no_move(src, dst):
        if str(src) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_replace(src, dst)

    monkeypatch.setattr(type(path), "read_bytes", no_read)
    monkeypatch.setattr(os, "replace", no_move)
    led = DesignLedger(path)
    assert "Permission denied" in led.warning and str(path) in led.warning
    assert not led.persistent
    rec = led.save("6.1", answers={"A": "x"}, required=["A"])
    assert rec.answers == {"A": "x"}  # kept for the session
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == '{"precious": true}'


def test_unreadable_but_movable_file_is_set_aside(tmp_path, monkeypatch):
    path = tmp_path / "ledger.json"
    path.write_text('{"precious": true}', encoding="utf-8")
    real_read = type(path).read_bytes

    def no_read(self):
        if self == path:
            raise PermissionError(13, "Permission denied")
        return real_read(self)

    monkeypatch.setattr(type(path), "read_bytes", no_read)
    led = DesignLedger(path)
    monkeypatch.undo()
    assert led.persistent and "ledger.json.bak" in led.warning
    led.save("6.1", answers={"A": "x"}, required=["A"])
    assert (tmp_path / "ledger.json.bak").read_text(encoding="utf-8") == '{"precious": true}'


def test_a_lone_surrogate_escape_does_not_break_later_saves(tmp_path):
    path = tmp_path / "ledger.json"
    led = DesignLedger(path)
    led.save("6.1", answers={"A": "x"}, required=["A"], student="Ana")
    text = path.read_text(encoding="utf-8").replace('"Ana"', '"An\\ud800a"')
    path.write_text(text, encoding="utf-8")
    again = DesignLedger(path)
    again.save("6.2", answers={"B": "y"}, required=["B"])
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["student"] == "An\ufffda" and set(data["chapters"]) == {"6.1", "6.2"}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_at_the_ledger_path_does_not_hang(tmp_path):
    path = tmp_path / "ledger.json"
    os.mkfifo(path)
    t = time.monotonic()
    led = DesignLedger(path)
    assert time.monotonic() - t < 5
    assert "not a regular file" in led.warning
    led.save("6.1", answers={"A": "x"}, required=["A"])
    assert path.is_file() and (tmp_path / "ledger.json.bak").exists()


def test_a_lock_held_by_a_stopped_process_times_out(tmp_path, monkeypatch):
    monkeypatch.setattr(state, "LOCK_TIMEOUT_S", 0.5)
    path = tmp_path / "ledger.json"
    lock = tmp_path / ".ledger.json.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            f"fd = os.open({str(lock)!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        t = time.monotonic()
        led = DesignLedger(path)
        rec = led.save("6.1", answers={"A": "x"}, required=["A"])
        assert time.monotonic() - t < 5
        assert rec.answers == {"A": "x"} and "session only" in led.warning
    finally:
        holder.kill()
        holder.wait()
    fd = os.open(lock, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released with its holder
    os.close(fd)
