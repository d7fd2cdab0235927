"""Add the running interpreter's bytecode to a wheel, next to its sources.

    python scripts/bytecode.py IN.whl OUT.whl [ONLY.txt]

Every ``.py`` file of the wheel (or each one ONLY.txt lists, one wheel-relative path per line:
``scripts/page_modules.txt``, what a page imports from marimo's and plotly's wheels) gets ``__pycache__/<name>.<cache tag>.pyc`` beside it, written as
an *unchecked* hash-based pyc (PEP 552): the importer uses it without comparing timestamps, so a
package unpacked into a fresh file system imports without compiling anything. Sources stay (so
tracebacks and ``inspect`` still work); RECORD lists the new files with their sha256 and size.

The site build runs this module inside Pyodide (under Node) so the bytecode is that of the
Python the browser runs: Pyodide compiles nothing it was not given compiled, and a page
otherwise compiles pint, pydantic and mlsysim from source on every load. Pure standard library,
so it runs anywhere; under another Python it writes that Python's cache tag (what the unit test
checks), which a different Python simply ignores.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import sys
import zipfile
from collections.abc import Collection
from importlib._bootstrap_external import _code_to_hash_pyc  # the importer's own pyc writer

#: Files whose bytecode is not added: ones the importer never loads from a package directory.
SKIP_PARTS = (".dist-info/", ".data/")


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def pyc_name(py_name: str, tag: str | None = None) -> str:
    """``pkg/mod.py`` -> ``pkg/__pycache__/mod.<cache tag>.pyc`` for the running Python (or for
    the cache tag ``tag``, e.g. ``cpython-314``)."""
    head, _, tail = py_name.rpartition("/")
    tag = tag or sys.implementation.cache_tag
    stem = tail[:-3]
    return f"{head}/__pycache__/{stem}.{tag}.pyc" if head else f"__pycache__/{stem}.{tag}.pyc"


def stdlib_zip_path() -> str:
    """Where the running Python's standard library zip is mounted (Pyodide:
    ``/lib/python314.zip``): the file name its bytecode's tracebacks point into."""
    return f"/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip"


def add_bytecode(
    src: bytes, only: Collection[str] | None = None, *, stdlib: bool = False
) -> tuple[bytes, int]:
    """The wheel ``src`` with a pyc for each of its ``.py`` files (those in ``only``, when given);
    returns (wheel, pycs added). A file that does not compile under this Python keeps its source
    only.

    ``stdlib=True``: ``src`` is Pyodide's standard library zip (``python_stdlib.zip``, imported
    straight from the zip by ``zipimport``, which looks for ``mod.pyc`` beside ``mod.py``, before
    it, and has no ``__pycache__``): each pyc goes there, compiled under the file name the zip
    is mounted at, so a traceback still shows the source line. Pyodide's npm package ships the
    zip with sources only, and every page compiled each standard module it imports (~7 ms each
    on a 2-core laptop; ``import pint`` alone compiled 66 of them, 0.5 s)."""
    out = io.BytesIO()
    added: list[str] = []
    with zipfile.ZipFile(io.BytesIO(src)) as zin:
        names = set(zin.namelist())
        record = next((n for n in names if n.endswith(".dist-info/RECORD")), None)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
            for info in zin.infolist():
                if info.filename == record:
                    continue
                data = zin.read(info)
                zout.writestr(info, data)
                name = info.filename
                if not name.endswith(".py") or any(p in name for p in SKIP_PARTS):
                    continue
                if only is not None and name not in only:
                    continue
                target = name + "c" if stdlib else pyc_name(name)
                if target in names:
                    continue
                where = f"{stdlib_zip_path()}/{name}" if stdlib else name
                try:
                    code = compile(data, where, "exec", dont_inherit=True)
                except (SyntaxError, ValueError):
                    continue
                pyc = bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), False))
                zout.writestr(target, pyc)
                added.append(_record_line(target, pyc))
            if record is not None:
                lines = zin.read(record).decode("utf-8").splitlines()
                lines = [ln for ln in lines if ln and not ln.startswith(record + ",")]
                text = "\n".join([*lines, *added, f"{record},,"]) + "\n"
                zout.writestr(record, text)
    return out.getvalue(), len(added)


def read_list(path: str) -> frozenset[str]:
    """The wheel-relative paths a list file names (one per line; blank lines ignored)."""
    with open(path, encoding="utf-8") as f:
        return frozenset(line.strip() for line in f if line.strip())


def add_bytecode_file(src: str, dst: str, only_file: str | None = None) -> int:
    """``add_bytecode`` from file to file; a ``python_stdlib.zip`` is done the standard
    library's way (``stdlib=True``)."""
    only = read_list(only_file) if only_file else None
    with open(src, "rb") as f:
        data, n = add_bytecode(f.read(), only, stdlib=src.endswith("python_stdlib.zip"))
    with open(dst, "wb") as f:
        f.write(data)
    return n


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    print(add_bytecode_file(*sys.argv[1:]))
