"""The committed wheel that the browser labs micropip-install must match the sources.

A stale wheel means the browser runs different code from the one the tests check:
rebuild it with `python scripts/build_wheel.py` and commit wheels/.
"""

from __future__ import annotations

import base64
import email.parser
import hashlib
import importlib.util
import shutil
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
VERSION = PYPROJECT["project"]["version"]
WHEEL = ROOT / "wheels" / f"mlsysim-{VERSION}-py3-none-any.whl"  # the path the site build serves
DIST_INFO = f"mlsysim-{VERSION}.dist-info"
sys.path.insert(0, str(ROOT / "scripts"))
from build_wheel import MAX_BYTES  # noqa: E402  (one budget: the build script's)

sys.path.pop(0)
REBUILD = "run `python scripts/build_wheel.py` and commit wheels/"
IGNORED_SOURCES = {".DS_Store"}


def _source_files() -> dict[str, bytes]:
    out = {}
    for p in sorted((ROOT / "mlsysim").rglob("*")):
        rel = p.relative_to(ROOT).as_posix()
        if not p.is_file() or "__pycache__" in p.parts or p.suffix in (".pyc", ".pyo"):
            continue
        if p.name in IGNORED_SOURCES or any(
            part.startswith(".") for part in p.relative_to(ROOT).parts
        ):
            continue
        out[rel] = p.read_bytes()
    return out


@pytest.fixture(scope="module")
def wheel() -> zipfile.ZipFile:
    assert WHEEL.is_file(), f"missing {WHEEL.relative_to(ROOT)}: {REBUILD}"
    with zipfile.ZipFile(WHEEL) as z:
        yield z


def _wheel_files(z: zipfile.ZipFile) -> dict[str, bytes]:
    return {
        n: z.read(n)
        for n in z.namelist()
        if not n.endswith("/") and not n.startswith(DIST_INFO + "/")
    }


def test_only_current_wheel():
    others = sorted(p.name for p in (ROOT / "wheels").glob("mlsysim-*.whl") if p != WHEEL)
    assert WHEEL.is_file(), (
        f"missing {WHEEL.relative_to(ROOT)} (version {VERSION} from pyproject): {REBUILD}"
    )
    assert not others, f"old mlsysim wheels in wheels/: {others}; {REBUILD}"


def test_wheel_files_match_sources(wheel):
    src = _source_files()
    whl = _wheel_files(wheel)
    stale = sorted(n for n in whl if n in src and whl[n] != src[n])
    extra = sorted(n for n in whl if n not in src)
    missing_py = sorted(n for n in src if n.endswith(".py") and n not in whl)
    missing_data = sorted(n for n in src if not n.endswith(".py") and n not in whl)
    msgs = []
    if stale:
        msgs.append(f"wheel content differs from the sources for {stale}")
    if extra:
        msgs.append(f"wheel has files no longer in the sources: {extra}")
    if missing_py:
        msgs.append(
            f"source files missing from the wheel: {missing_py} (if a rebuild does not add "
            "them, list the package in [tool.setuptools] packages in pyproject.toml)"
        )
    if missing_data:
        msgs.append(
            f"data files missing from the wheel: {missing_data} (add them to "
            "[tool.setuptools.package-data] or remove them)"
        )
    assert not msgs, "stale wheel " + WHEEL.name + ": " + "; ".join(msgs) + f" -> {REBUILD}"


def test_wheel_metadata(wheel):
    meta = email.parser.Parser().parsestr(wheel.read(f"{DIST_INFO}/METADATA").decode("utf-8"))
    assert meta["Name"] == "mlsysim"
    assert meta["Version"] == VERSION, (
        f"wheel version {meta['Version']} != pyproject {VERSION}: {REBUILD}"
    )
    required = set()
    for line in meta.get_all("Requires-Dist") or []:
        req = Requirement(line)
        if req.marker is not None and "extra" in str(req.marker):
            continue
        required.add(canonicalize_name(req.name))
    assert required == {"pint", "pydantic", "plotly"}, (
        f"the browser wheel must require exactly pint, pydantic, plotly (no numpy/pandas: Pyodide "
        f"has no wheels for them offline); got {sorted(required)}"
    )
    wheel_meta = wheel.read(f"{DIST_INFO}/WHEEL").decode()
    assert "Tag: py3-none-any" in wheel_meta and "Root-Is-Purelib: true" in wheel_meta


def test_wheel_record_consistent(wheel):
    record = wheel.read(f"{DIST_INFO}/RECORD").decode().splitlines()
    listed = {}
    for row in record:
        name, digest, _size = row.rsplit(",", 2)
        listed[name] = digest
    for name in wheel.namelist():
        if name.endswith("/") or name == f"{DIST_INFO}/RECORD":
            continue
        assert name in listed, f"{name} not in RECORD: {REBUILD}"
        algo, _, b64 = listed[name].partition("=")
        got = (
            base64.urlsafe_b64encode(hashlib.new(algo, wheel.read(name)).digest())
            .rstrip(b"=")
            .decode()
        )
        assert got == b64, f"RECORD hash mismatch for {name}: {REBUILD}"


def test_wheel_size():
    size = WHEEL.stat().st_size
    assert size < MAX_BYTES, (
        f"{WHEEL.name} is {size} bytes > {MAX_BYTES // 1024} KB (the browser downloads it per lab)"
    )


def _build_tools_ok() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    return (
        importlib.util.find_spec("build") is not None
        and importlib.util.find_spec("wheel") is not None
        and int(setuptools.__version__.split(".")[0]) >= 68
    )


@pytest.mark.skipif(not _build_tools_ok(), reason="needs build, wheel and setuptools>=68")
def test_build_is_reproducible(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import build_wheel
    finally:
        sys.path.pop(0)
    # build twice from one snapshot of the sources (they may change while the test runs)
    src = tmp_path / "src"
    src.mkdir()
    for f in ["pyproject.toml", *[p.name for p in ROOT.glob("README*")]]:
        shutil.copy2(ROOT / f, src / f)
    shutil.copytree(
        ROOT / "mlsysim", src / "mlsysim", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    a = build_wheel.build(tmp_path / "a", root=src, quiet=True).read_bytes()
    b = build_wheel.build(tmp_path / "b", root=src, quiet=True).read_bytes()
    assert a == b, (
        "two builds of the same sources differ: scripts/build_wheel.py is not reproducible"
    )
