"""The design ledger: per-chapter progress and design choices that survive a reload.

- CPython: a JSON file under the user's data dir (``$MLSYSIM_DATA_DIR`` overrides), written
  atomically (temp file + ``os.replace``) so a crash never truncates another chapter's data.
- Pyodide (the browser site): the same JSON file on an IDBFS mount, i.e. in the browser's
  IndexedDB, which also works inside the web worker marimo runs Python in (localStorage does
  not exist there). Every save is awaited (``FS.syncfs``) and read back.
- "completed" is computed from the answers a save carries, never set on load.
- A corrupt, foreign or future-version ledger, or storage that cannot be written, gives a
  visible ``warning`` and an empty in-memory ledger: never a crash.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["DesignLedger", "LedgerData", "ChapterRecord", "SCHEMA_VERSION", "default_path"]

SCHEMA_VERSION = 1
FILE_NAME = "mlsysim-ledger.json"
WASM_DIR = "/mlsysim-ledger"  # IDBFS mount point (its IndexedDB database has this name)

JSONScalar = str | int | float | bool | None


class ChapterRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")
    design: dict[str, JSONScalar] = Field(default_factory=dict)
    answers: dict[str, str] = Field(default_factory=dict)
    required: list[str] = Field(default_factory=list)
    updated: str = ""

    @property
    def completed(self) -> bool:
        """Computed from real answers: every required part has an answer."""
        return bool(self.required) and all(self.answers.get(p) for p in self.required)


class LedgerData(BaseModel):
    model_config = ConfigDict(extra="forbid")
    app: str = "mlsysim"
    schema_version: int = SCHEMA_VERSION
    track: str | None = None
    chapters: dict[str, ChapterRecord] = Field(default_factory=dict)


def default_path() -> Path:
    env = os.environ.get("MLSYSIM_DATA_DIR")
    if env:
        return Path(env) / FILE_NAME
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA", Path.home()))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share"))
    return base / "mlsysim" / FILE_NAME


class DesignLedger:
    """``DesignLedger()``; ``await ledger.load_async()``; ``await ledger.save_async(chapter=,
    design=, answers=, required=)``. ``ledger.warning`` is a message to show once, or None."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.is_wasm = sys.platform == "emscripten"
        self.path = Path(WASM_DIR) / FILE_NAME if self.is_wasm else Path(path or default_path())
        self.data = LedgerData()
        self.warning: str | None = None
        self.persistent = True
        self._mounted = False
        if not self.is_wasm:
            self.load()

    # ---- reading ----
    def _read(self) -> None:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            self.data = LedgerData()
            return
        except OSError as e:
            self._reset(f"The progress ledger could not be read ({e.strerror}); starting empty.")
            return
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError:
            self._reset("The saved progress ledger was corrupt and has been reset.")
            return
        if not isinstance(obj, dict) or obj.get("app") != "mlsysim":
            self._reset("The saved progress ledger was not an mlsysim ledger and has been reset.")
            return
        version = obj.get("schema_version")
        if version != SCHEMA_VERSION:
            self._reset(
                f"The saved progress ledger has schema version {version!r}; this lab reads "
                f"version {SCHEMA_VERSION}. It was set aside and a new one started."
            )
            return
        try:
            self.data = LedgerData.model_validate(obj)
        except ValidationError:
            self._reset("The saved progress ledger did not match its schema and has been reset.")

    def _reset(self, warning: str) -> None:
        """Start empty without destroying the old file: it is kept beside as ``.bak``."""
        self.warning = warning
        self.data = LedgerData()
        try:
            if self.path.exists():
                os.replace(self.path, self.path.with_suffix(".json.bak"))
        except OSError:
            pass  # the warning is already shown; the next successful save replaces the file

    def load(self) -> DesignLedger:
        self._read()
        return self

    async def load_async(self) -> DesignLedger:
        if self.is_wasm:
            await self._wasm_mount()
        self._read()
        return self

    # ---- writing ----
    def _write(self) -> None:
        payload = self.data.model_dump_json(indent=2)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".ledger-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(payload)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    def _update(self, chapter, design, answers, required) -> ChapterRecord:
        if not isinstance(chapter, str) or not chapter:
            raise ValueError(f"chapter must be a non-empty string, got {chapter!r}")
        rec = self.data.chapters.get(chapter, ChapterRecord())
        merged_design = {**rec.design, **dict(design or {})}
        merged_answers = {**rec.answers, **{k: str(v) for k, v in (answers or {}).items() if v is not None}}
        rec = ChapterRecord(
            design=merged_design,
            answers=merged_answers,
            required=list(required) if required else rec.required,
            updated=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        )
        self.data.chapters[chapter] = rec
        return rec

    def save(
        self,
        chapter: str,
        design: Mapping[str, Any] | None = None,
        answers: Mapping[str, Any] | None = None,
        required: Sequence[str] = (),
    ) -> ChapterRecord:
        """Record and persist (CPython). In Pyodide use ``await save_async(...)``."""
        rec = self._update(chapter, design, answers, required)
        if self.is_wasm:
            raise RuntimeError("in the browser, call `await ledger.save_async(...)`: saves must be awaited")
        self._persist_sync()
        return rec

    def _persist_sync(self) -> None:
        if not self.persistent:
            return
        try:
            self._write()
        except OSError as e:
            self.persistent = False
            self.warning = (f"Progress cannot be saved here ({e.strerror or e}); it is kept for this "
                            "session only.")

    async def save_async(
        self,
        chapter: str,
        design: Mapping[str, Any] | None = None,
        answers: Mapping[str, Any] | None = None,
        required: Sequence[str] = (),
    ) -> ChapterRecord:
        """Record, persist, await the flush to storage, and read it back."""
        rec = self._update(chapter, design, answers, required)
        if not self.is_wasm:
            self._persist_sync()
            return rec
        if not self._mounted:
            await self._wasm_mount()
        self._persist_sync()
        if self.persistent and self._mounted:
            await self._syncfs(populate=False)
            saved = LedgerData.model_validate_json(self.path.read_text(encoding="utf-8"))
            if saved.chapters.get(chapter) != rec:
                self.warning = "Progress was saved but did not read back intact; it may not persist."
        return rec

    # ---- Pyodide storage ----
    async def _wasm_mount(self) -> None:
        if self._mounted:
            return
        try:
            import js  # type: ignore[import-not-found]
            import pyodide_js  # type: ignore[import-not-found]
            from pyodide.ffi import JsException  # type: ignore[import-not-found]
        except ImportError as e:
            self.persistent = False
            self.warning = f"Browser storage is unavailable ({e}); progress is kept for this session only."
            return
        try:
            fs = pyodide_js.FS
            if not os.path.isdir(WASM_DIR):
                fs.mkdirTree(WASM_DIR)
            fs.mount(fs.filesystems.IDBFS, js.Object.new(), WASM_DIR)
            self._mounted = True
        except (JsException, AttributeError, OSError) as e:
            self.persistent = False
            self.warning = f"Browser storage is unavailable ({e}); progress is kept for this session only."
            return
        await self._syncfs(populate=True)

    async def _syncfs(self, populate: bool) -> None:
        import asyncio

        import pyodide_js  # type: ignore[import-not-found]
        from pyodide.ffi import create_once_callable  # type: ignore[import-not-found]

        fut = asyncio.get_event_loop().create_future()

        def done(err=None):
            if not fut.done():
                fut.set_result(err)

        pyodide_js.FS.syncfs(populate, create_once_callable(done))
        err = await fut
        if err:
            self.persistent = False
            self.warning = f"Browser storage refused the save ({err}); progress is kept for this session only."

    # ---- views ----
    @property
    def track(self) -> str | None:
        return self.data.track

    def set_track(self, track: str | None) -> None:
        self.data.track = track

    def chapter(self, chapter: str) -> ChapterRecord | None:
        return self.data.chapters.get(chapter)

    def completed(self, chapter: str) -> bool:
        rec = self.data.chapters.get(chapter)
        return bool(rec and rec.completed)

    def summary(self) -> str:
        """One line per chapter, for the notebook's progress display."""
        if not self.data.chapters:
            return "No progress saved yet."
        lines = []
        for name in sorted(self.data.chapters):
            rec = self.data.chapters[name]
            done = sum(1 for p in rec.required if rec.answers.get(p))
            status = "completed" if rec.completed else f"{done}/{len(rec.required)} parts answered"
            lines.append(f"{name}: {status}")
        return "; ".join(lines)
