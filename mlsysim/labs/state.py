"""The design ledger: per-chapter progress, committed predictions and design choices that survive
a reload, several open notebooks, and a crash.

- CPython: one JSON file under the user's data dir (``$MLSYSIM_DATA_DIR`` overrides). Every save
  takes an exclusive lock (``fcntl.flock`` / ``msvcrt.locking`` on a ``.lock`` file beside it),
  re-reads the file, merges this notebook's chapter into what is there (other chapters are kept as
  another notebook last wrote them), writes a temp file and ``os.replace``-s it. Temp files left by
  a killed save are removed under the lock, so none survives the next load or save.
- Pyodide (the browser site): the same file on an IDBFS mount (the browser's IndexedDB; it works
  in the web worker marimo runs Python in). A save takes the Web Locks API lock shared by every
  tab of the site, pulls IndexedDB into memory (``FS.syncfs(true)``), re-reads, merges, writes,
  pushes (``FS.syncfs(false)``), awaits it and reads the file back.
- A prediction's first answer is kept with its time and correctness and never overwritten; later
  answers update ``final`` and count ``changes``. "completed" is computed from answers, never
  stored or set on load.
- Values are made storable before they are written: non-finite numbers are dropped with a warning
  naming them (in a file, at load, the same way); lone surrogates in text become U+FFFD. What
  cannot be stored (not a mapping, an integer beyond a float's range, more than ``MAX_ENTRIES``
  entries or ``MAX_TEXT`` characters) is refused by name before anything changes, so the ledger
  keeps saving. A version-1 ledger is migrated; a corrupt (nested too deeply, an integer too long
  to read), foreign or future-version one is set aside as ``.bak`` with a warning; storage that
  cannot be written gives a warning and keeps the session's progress in memory. Never a crash.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import json
import math
import numbers
import os
import stat
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import _check
from .._lazy import lazy

if TYPE_CHECKING:
    from .records import Attempt, ChapterRecord, LedgerData

#: the file schema (pydantic), imported when there is a ledger to read or save
R = lazy("mlsysim.labs.records")

__all__ = [
    "DesignLedger",
    "LedgerData",
    "ChapterRecord",
    "Attempt",
    "SCHEMA_VERSION",
    "default_path",
    "clean_text",
    "short_repr",
]

SCHEMA_VERSION = 2
FILE_NAME = "mlsysim-ledger.json"
WASM_DIR = "/mlsysim-ledger"  # IDBFS mount point (its IndexedDB database has this name)
LOCK_NAME = "mlsysim-ledger"  # Web Locks API name shared by every tab of the site
TMP_PREFIX = ".ledger-"
TMP_SUFFIX = ".tmp"
#: how long a save or load waits for another process's lock before going on without saving
LOCK_TIMEOUT_S = 5.0

JSONScalar = str | int | float | bool | None

#: The most entries one mapping passed to ``save`` (``design``, ``answers``, ``widgets``, ...) or
#: ``required`` may hold, and the longest text (a key or a value) it may hold, in characters.
MAX_ENTRIES = 10_000
MAX_TEXT = 1_000_000


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def clean_text(text: object) -> str:
    """Any Python string made storable and displayable: lone surrogates become U+FFFD (a valid
    surrogate pair held as two code units is joined into its character)."""
    s = str(text)
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def short_repr(value: object, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters, for an error message; never raises (an integer
    too long to print, ``10**5000``, is described by its size)."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 4 <= limit <= 100_000:
        raise ValueError(
            f"limit must be a whole number in [4, 100,000], got {_check._short(limit)}"
        )
    return clean_text(_check._short(value, limit))


def __getattr__(name: str):
    """``state.LedgerData``, ``state.ChapterRecord``, ``state.Attempt``: the schema, from
    ``records`` (imported on first use)."""
    if name in ("LedgerData", "ChapterRecord", "Attempt"):
        return getattr(R, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


class _Update:
    """What one save changes: applied to whatever the file holds at the moment of saving."""

    def __init__(self, chapter, design, answers, required, correct, widgets, text, student, track):
        self.chapter = chapter
        self.design = design
        self.answers = answers
        self.required = list(required) if required else []
        self.correct = correct
        self.widgets = widgets
        self.text = text
        self.student = student
        self.track = track

    def apply(self, data: LedgerData) -> ChapterRecord:
        now = _now()
        rec = data.chapters.get(self.chapter, R.ChapterRecord())
        attempts = dict(rec.attempts)
        for key, value in self.answers.items():
            ok = self.correct.get(key)
            old = attempts.get(key)
            if old is None:
                attempts[key] = R.Attempt(
                    first=value,
                    first_correct=ok,
                    first_at=now,
                    final=value,
                    final_correct=ok,
                    final_at=now,
                )
            elif old.final != value:
                attempts[key] = old.model_copy(
                    update={
                        "final": value,
                        "final_correct": ok,
                        "final_at": now,
                        "changes": old.changes + 1,
                    }
                )
        rec = R.ChapterRecord(
            design={**rec.design, **self.design},
            answers={**rec.answers, **self.answers},
            attempts=attempts,
            widgets={**rec.widgets, **self.widgets},
            text={**rec.text, **self.text},
            required=self.required or rec.required,
            updated=now,
        )
        data.chapters[self.chapter] = rec
        if self.student is not None:
            data.student = self.student
        if self.track is not _UNSET:
            data.track = self.track
        return rec


_UNSET = object()


class DesignLedger:
    """``ledger = await DesignLedger().load_async()``; ``await ledger.save_async(chapter=,
    design=, answers=, required=, correct=, widgets=, text=, student=)``. ``ledger.warning`` is a
    message to show, or None."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.is_wasm = sys.platform == "emscripten"
        self.path = Path(WASM_DIR) / FILE_NAME if self.is_wasm else Path(path or default_path())
        self._data: LedgerData | None = None  # made on first use (imports pydantic)
        self.warning: str | None = None
        self.persistent = True
        self._mounted = False
        self._track = _UNSET
        self._last_mtime_ns = 0
        if not self.is_wasm:
            self.load()

    @property
    def data(self) -> LedgerData:
        """The ledger's data: what the file held at the last load or save, with this session's
        changes (empty until then)."""
        if self._data is None:
            self._data = R.LedgerData()
        return self._data

    @data.setter
    def data(self, value: LedgerData) -> None:
        self._data = value

    @property
    def _state(self) -> LedgerData:
        """The ledger's data (the seed lab reads ``ledger._state.track``)."""
        return self.data

    def _warn(self, text: str) -> None:
        self.warning = (
            text if not self.warning or text in self.warning else f"{self.warning} {text}"
        )

    # ---- reading ----
    def _read_disk(self) -> LedgerData | None:
        """The file's ledger, or None when there is none (or it was set aside, with a warning).
        A file that cannot be read is never overwritten: it is set aside (kept beside the
        ledger), or, when it cannot even be moved, this session stops saving and says so."""
        try:
            st = os.stat(self.path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as e:
            return self._unreadable(e)
        if not stat.S_ISREG(st.st_mode):  # a FIFO or a device would block or never end
            self._set_aside(
                "The saved progress ledger was not a regular file: it was set aside and a new "
                "one started."
            )
            return self._unreadable_if_still_there()
        try:
            raw = self.path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            return None
        except UnicodeDecodeError:
            self._set_aside(
                "The saved progress ledger was not UTF-8 text: it was set aside and a new one "
                "started."
            )
            return self._unreadable_if_still_there()
        except OSError as e:
            return self._unreadable(e)
        try:
            obj = json.loads(raw)
            if "\\ud" in raw.lower():
                # an escaped lone surrogate ("\ud800") would make every later save fail to encode
                obj = json.loads(clean_text(json.dumps(obj, ensure_ascii=False)))
        except (ValueError, RecursionError):  # damaged, nested too deep, an integer too long
            self._set_aside(
                "The saved progress ledger was corrupt: it was set aside and a new one started."
            )
            return None
        if not isinstance(obj, dict) or obj.get("app") != "mlsysim":
            self._set_aside(
                "The saved progress ledger was not an mlsysim ledger: it was set aside and a "
                "new one started."
            )
            return None
        version = obj.get("schema_version")
        if version == 1:  # version 1 is a subset of version 2: migrate in place
            obj = {**obj, "schema_version": SCHEMA_VERSION}
        elif version != SCHEMA_VERSION:
            self._set_aside(
                f"The saved progress ledger has schema version {str(version)[:20]!r}; this lab reads "
                f"version {SCHEMA_VERSION}. It was set aside and a new one started."
            )
            return None
        self._drop_non_finite(obj)
        try:
            return R.LedgerData.model_validate(obj)
        except (R.ValidationError, RecursionError):
            self._set_aside(
                "The saved progress ledger did not match its schema: it was set aside and a "
                "new one started."
            )
            return None

    def _drop_non_finite(self, obj: dict) -> None:
        """Non-finite numbers (``NaN``, ``Infinity``, ``1e999``; an integer beyond a float's range)
        in a file's design and widget values are dropped with a warning naming them: kept, they
        would make every later save fail."""
        chapters = obj.get("chapters")
        if not isinstance(chapters, dict):
            return
        dropped = []
        for name, rec in chapters.items():
            if not isinstance(rec, dict):
                continue
            for what in ("design", "widgets"):
                values = rec.get(what)
                if not isinstance(values, dict):
                    continue
                bad = [
                    k
                    for k, v in values.items()
                    if isinstance(v, int | float)
                    and not isinstance(v, bool)
                    and not _check.is_finite(v)
                ]
                for k in bad:
                    dropped.append(f"{name} {what} {k}={short_repr(values.pop(k), 24)}")
        if dropped:
            self._warn(
                f"Not loaded from the saved ledger: {', '.join(dropped[:5])}"
                + (f" and {len(dropped) - 5} more" if len(dropped) > 5 else "")
                + " (not a finite number); the rest was kept."
            )

    def _unreadable(self, e: OSError) -> None:
        """A ledger file this process cannot read (permissions: a root-owned file left by one
        ``sudo`` run): set it aside if the folder allows; if not, save nothing this session
        rather than replace what could not be read."""
        self._set_aside(
            f"The saved progress ledger could not be read ({e.strerror or e}): it was set aside "
            "and a new one started."
        )
        return self._unreadable_if_still_there()

    def _unreadable_if_still_there(self) -> None:
        if os.path.lexists(self.path):
            self.persistent = False
            self._warn(
                f"Your earlier progress is still in {self.path}, which this lab cannot read or "
                "move: nothing is saved in this session, so that file is not overwritten. Fix "
                "its permissions or move it, then reload."
            )
        return None

    def _set_aside(self, warning: str) -> None:
        """Keep a bad file beside the ledger (``.json.bak``, then ``.json.2.bak``, ...)."""
        if not os.path.lexists(self.path):
            self._warn(warning)
            return
        bak = self.path.with_suffix(".json.bak")
        n = 2
        while os.path.lexists(bak):
            bak = self.path.with_suffix(f".json.{n}.bak")
            n += 1
        try:
            os.replace(self.path, bak)
        except OSError as e:
            self._warn(f"{warning} (It could not be moved aside: {e.strerror or e}.)")
            return
        self._warn(f"{warning} The old file is kept as {bak}.")

    def _refresh(self) -> None:
        """Adopt what the file holds now (the file wins over memory, chapter by chapter)."""
        disk = self._read_disk()
        if disk is not None and self._data is None:
            self._data = disk
        elif disk is not None:
            chapters = {**self._data.chapters, **disk.chapters}
            self._data = disk.model_copy(update={"chapters": chapters})

    def load(self) -> DesignLedger:
        if not self.is_wasm:
            # under the lock: a damaged file is set aside while no other notebook is saving
            try:
                with self._file_lock():
                    self._remove_orphans()
                    self._refresh()
                return self
            except OSError as e:  # no lock to be had (a stopped process holds it; read-only)
                self._warn(
                    f"Progress cannot be saved here ({e.strerror or e}); it is kept for this "
                    "session only."
                )
                self.persistent = False
        self._refresh()
        return self

    async def load_async(self) -> DesignLedger:
        if self.is_wasm:
            await self._wasm_mount()
            self._refresh()
            return self
        return self.load()

    # ---- writing ----
    def _remove_orphans(self) -> None:
        """Temp files of a save that was killed (called while holding the lock: no save is live)."""
        for p in self.path.parent.glob(f"{TMP_PREFIX}*{TMP_SUFFIX}"):
            with contextlib.suppress(OSError):
                p.unlink()

    @contextlib.contextmanager
    def _file_lock(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock_path = self.path.parent / f".{self.path.name}.lock"
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if sys.platform == "win32":
                import msvcrt

                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
            elif sys.platform != "emscripten":
                import fcntl

                deadline = time.monotonic() + LOCK_TIMEOUT_S
                while True:  # never wait forever on a lock a stopped process holds
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() > deadline:
                            raise TimeoutError(
                                errno.ETIMEDOUT,
                                f"another process has held it for over {LOCK_TIMEOUT_S:g} s",
                            ) from None
                        time.sleep(0.02)
            yield
        finally:
            os.close(fd)  # closing releases flock/msvcrt locks

    def _write(self) -> None:
        payload = clean_text(  # never a lone surrogate: every later save would fail to encode
            json.dumps(
                self.data.model_dump(mode="json"), ensure_ascii=False, allow_nan=False, indent=2
            )
        )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=TMP_PREFIX, suffix=TMP_SUFFIX)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(payload)
                f.flush()
                os.fsync(f.fileno())
            # IDBFS copies a file when its mtime differs from the stored one: make every save's
            # mtime distinct, even two saves within one clock tick
            mtime = max(time.time_ns(), self._last_mtime_ns + 1_000_000)
            os.utime(tmp, ns=(mtime, mtime))
            self._last_mtime_ns = mtime
            os.replace(tmp, self.path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    def _merge_and_write(self, update: _Update) -> ChapterRecord:
        """Under the lock: re-read, apply this save to the file's current state, write."""
        self._remove_orphans()
        self._refresh()
        before = self.data
        # applied to a copy: a write that fails leaves the ledger as it was (a later save, or the
        # in-memory fallback, applies it once)
        self._data = before.model_copy(update={"chapters": dict(before.chapters)})
        written = False
        try:
            rec = update.apply(self._data)
            self._write()
            written = True
        finally:
            if not written:
                self._data = before
        return rec

    @staticmethod
    def _mapping(values: object, what: str) -> Mapping:
        """``values`` (a mapping of at most ``MAX_ENTRIES``), ``{}`` for None; else a TypeError
        naming ``what``."""
        if values is None:
            return {}
        if not isinstance(values, Mapping):
            raise TypeError(
                f"{what} must be a mapping of name -> value (a dict) or None, got "
                f"{short_repr(values)}"
            )
        if len(values) > MAX_ENTRIES:
            raise ValueError(
                f"{what} must hold at most {MAX_ENTRIES:,} entries, got {len(values):,}"
            )
        return values

    @staticmethod
    def _text(value: object, what: str) -> str:
        """Text to store: a string (lone surrogates replaced) or a number written out, at most
        ``MAX_TEXT`` characters; anything else is a TypeError naming ``what``."""
        if isinstance(value, str):
            s = clean_text(value)
        elif isinstance(value, numbers.Number) and not isinstance(value, complex):
            if isinstance(value, numbers.Integral) and not isinstance(value, bool):
                if not _check.is_finite(value):
                    raise ValueError(
                        f"{what} must be text or a finite number (at most ~1.8e308 in size), "
                        f"got {short_repr(value)}"
                    )
            s = clean_text(value)
        else:
            raise TypeError(f"{what} must be text, got {short_repr(value)}")
        if len(s) > MAX_TEXT:
            raise ValueError(f"{what} must be at most {MAX_TEXT:,} characters long, got {len(s):,}")
        return s

    def _clean(self, values: Mapping[str, Any] | None, what: str) -> dict[str, JSONScalar]:
        """Storable values, checked before anything is changed: a TypeError or ValueError names
        the entry; a non-finite float is dropped with a warning."""
        out: dict[str, JSONScalar] = {}
        dropped = []
        for k, v in self._mapping(values, what).items():
            key = self._text(k, f"{what} key {short_repr(k, 40)}")
            if v is None or isinstance(v, bool):
                out[key] = v
            elif isinstance(v, numbers.Integral):
                i = int(v)
                if not _check.is_finite(i):
                    raise ValueError(
                        f"{what}[{key[:40]!r}] must be a finite number (at most ~1.8e308 in size), "
                        f"got {short_repr(i)}"
                    )
                out[key] = i
            elif isinstance(v, numbers.Real):
                try:
                    f = float(v)
                except OverflowError:  # a Fraction beyond a float's range
                    raise ValueError(
                        f"{what}[{key[:40]!r}] must be a finite number (at most ~1.8e308 in size), "
                        f"got {short_repr(v)}"
                    ) from None
                if not math.isfinite(f):
                    dropped.append(f"{key}={f}")
                    continue
                out[key] = f
            elif isinstance(v, str):
                out[key] = self._text(v, f"{what}[{key[:40]!r}]")
            else:
                raise TypeError(
                    f"{what}[{key[:40]!r}] must be a str, int, float, bool or None; got "
                    f"{type(v).__name__}"
                )
        if dropped:
            self._warn(
                f"Not saved ({what}): {', '.join(dropped)} is not a finite number; the rest "
                "was saved."
            )
        return out

    def _texts(self, values: Mapping[str, Any] | None, what: str) -> dict[str, str]:
        """``answers`` / ``text``: name -> text (None values left out)."""
        return {
            self._text(k, f"{what} key {short_repr(k, 40)}"): self._text(
                v, f"{what}[{short_repr(k, 40)}]"
            )
            for k, v in self._mapping(values, what).items()
            if v is not None
        }

    def _make_update(self, chapter, design, answers, required, correct, widgets, text, student):
        if isinstance(chapter, bool) or not isinstance(chapter, str | int):
            raise ValueError(f"chapter must be a non-empty string, got {short_repr(chapter)}")
        chapter = self._text(chapter, "chapter")
        if not chapter or len(chapter) > 200:
            raise ValueError(
                f"chapter must be a non-empty string of at most 200 characters, got "
                f"{short_repr(chapter)}"
            )
        if required is None:
            required = ()
        if not isinstance(required, list | tuple):
            raise TypeError(
                f"required must be a list or tuple of part names, got {short_repr(required)}"
            )
        if len(required) > MAX_ENTRIES:
            raise ValueError(
                f"required must hold at most {MAX_ENTRIES:,} part names, got {len(required):,}"
            )
        ok = {
            self._text(k, f"correct key {short_repr(k, 40)}"): (None if v is None else bool(v))
            for k, v in self._mapping(correct, "correct").items()
        }
        return _Update(
            chapter=chapter,
            design=self._clean(design, "design"),
            answers=self._texts(answers, "answers"),
            required=[self._text(p, f"required[{i}]") for i, p in enumerate(required)],
            correct=ok,
            widgets=self._clean(widgets, "widgets"),
            text=self._texts(text, "text"),
            student=None if student is None else self._text(student, "student"),
            track=self._track,
        )

    def save(
        self,
        chapter: str,
        design: Mapping[str, Any] | None = None,
        answers: Mapping[str, Any] | None = None,
        required: Sequence[str] = (),
        *,
        correct: Mapping[str, bool | None] | None = None,
        widgets: Mapping[str, Any] | None = None,
        text: Mapping[str, str] | None = None,
        student: str | None = None,
    ) -> ChapterRecord:
        """Record and persist (CPython). In Pyodide use ``await save_async(...)``."""
        update = self._make_update(
            chapter, design, answers, required, correct, widgets, text, student
        )
        if self.is_wasm:
            raise RuntimeError(
                "in the browser, call `await ledger.save_async(...)`: saves must be awaited"
            )
        return self._persist_sync(update)

    def _persist_sync(self, update: _Update) -> ChapterRecord:
        if self.persistent:
            try:
                with self._file_lock():
                    return self._merge_and_write(update)
            except OSError as e:
                self.persistent = False
                self._warn(
                    f"Progress cannot be saved here ({e.strerror or e}); it is kept for this "
                    "session only."
                )
        return update.apply(self.data)

    async def save_async(
        self,
        chapter: str,
        design: Mapping[str, Any] | None = None,
        answers: Mapping[str, Any] | None = None,
        required: Sequence[str] = (),
        *,
        correct: Mapping[str, bool | None] | None = None,
        widgets: Mapping[str, Any] | None = None,
        text: Mapping[str, str] | None = None,
        student: str | None = None,
    ) -> ChapterRecord:
        """Record, persist, await the flush to storage, and read it back."""
        update = self._make_update(
            chapter, design, answers, required, correct, widgets, text, student
        )
        if not self.is_wasm:
            return self._persist_sync(update)
        if not self._mounted:
            await self._wasm_mount()
        if not (self.persistent and self._mounted):
            return update.apply(self.data)
        async with self._web_lock():
            await self._syncfs(populate=True)  # another tab may have saved since
            try:
                rec = self._merge_and_write(update)
            except OSError as e:
                self.persistent = False
                self._warn(
                    f"Progress cannot be saved here ({e.strerror or e}); it is kept for this "
                    "session only."
                )
                return update.apply(self.data)
            await self._syncfs(populate=False)
        if self.persistent:
            saved = R.LedgerData.model_validate_json(self.path.read_text(encoding="utf-8"))
            if saved.chapters.get(update.chapter) != rec:
                self._warn("Progress was saved but did not read back intact; it may not persist.")
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
            self._warn(
                f"Browser storage is unavailable ({e}); progress is kept for this session only."
            )
            return
        try:
            fs = pyodide_js.FS
            if not os.path.isdir(WASM_DIR):
                fs.mkdirTree(WASM_DIR)
            fs.mount(fs.filesystems.IDBFS, js.Object.new(), WASM_DIR)
            self._mounted = True
        except (JsException, AttributeError, OSError) as e:
            self.persistent = False
            self._warn(
                f"Browser storage is unavailable ({e}); progress is kept for this session only."
            )
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
            self._warn(
                f"Browser storage refused the save ({err}); progress is kept for this session only."
            )

    @contextlib.asynccontextmanager
    async def _web_lock(self):
        """The site-wide Web Locks API lock (every tab and worker of one origin shares it); without
        the API (old browsers) saves still re-read and merge, only the lock is missing."""
        import asyncio

        import js  # type: ignore[import-not-found]
        from pyodide.ffi import create_proxy  # type: ignore[import-not-found]

        locks = getattr(getattr(js, "navigator", None), "locks", None)
        if locks is None:
            yield
            return
        loop = asyncio.get_event_loop()
        held = loop.create_future()
        release = loop.create_future()

        async def critical(_lock):
            held.set_result(True)
            await release  # the lock is held until this coroutine (a JS promise) settles

        proxy = create_proxy(critical)
        request = locks.request(LOCK_NAME, proxy)
        try:
            await held
            yield
        finally:
            if not release.done():
                release.set_result(True)
            await request
            proxy.destroy()

    # ---- views ----
    # the views below answer from an empty ledger without making one (no pydantic import)
    @property
    def track(self) -> str | None:
        return None if self._data is None else self._data.track

    def set_track(self, track: str | None) -> None:
        self.data.track = track
        self._track = track

    @property
    def student(self) -> str:
        return "" if self._data is None else self._data.student

    def chapter(self, chapter: str) -> ChapterRecord | None:
        return None if self._data is None else self._data.chapters.get(str(chapter))

    def completed(self, chapter: str) -> bool:
        rec = self.chapter(chapter)
        return bool(rec and rec.completed)

    def summary(self) -> str:
        """One line per chapter, for the notebook's progress display (plain text)."""
        if self._data is None or not self._data.chapters:
            return "No progress saved yet."
        lines = []
        for name in sorted(self.data.chapters):
            rec = self.data.chapters[name]
            if not rec.required:
                continue
            status = (
                "completed"
                if rec.completed
                else f"{rec.answered}/{len(rec.required)} parts answered"
            )
            lines.append(f"{name}: {status}")
        return "; ".join(lines) if lines else "No progress saved yet."
