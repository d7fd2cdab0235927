"""What a browser page loads after its first question (``mlsysim.labs.browser``) and the bytecode
the site's mirror adds to the wheels loaded before it (``scripts/bytecode.py``)."""

from __future__ import annotations

import importlib
import importlib.util
import io
import sys
import zipfile
from pathlib import Path

import pytest

from mlsysim.labs import browser

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import build_site  # noqa: E402
import bytecode  # noqa: E402


def _write_package(root: Path, name: str, body: str = "VALUE = 41 + 1\n") -> None:
    (root / name).mkdir(parents=True)
    (root / name / "__init__.py").write_text(body)


def test_finder_loads_a_later_package_once_on_its_first_import(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    loads = []

    def load(package):  # what Pyodide's loadPackage does: the package appears on sys.path
        loads.append(package)
        _write_package(site, "later_pkg")

    finder = browser.LoadOnImport(load, {"later_pkg": "later-pkg"})
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    monkeypatch.delitem(sys.modules, "later_pkg", raising=False)
    mod = importlib.import_module("later_pkg")
    assert mod.VALUE == 42 and loads == ["later-pkg"]
    del sys.modules["later_pkg"]
    importlib.import_module("later_pkg")  # imported again: not loaded again
    assert loads == ["later-pkg"]


def test_finder_ignores_other_modules_and_installed_packages(tmp_path, monkeypatch):
    _write_package(tmp_path, "here_pkg")
    monkeypatch.syspath_prepend(str(tmp_path))
    loads = []
    finder = browser.LoadOnImport(loads.append, {"here_pkg": "here-pkg"})
    assert finder.find_spec("json") is None
    spec = finder.find_spec("here_pkg")  # installed already: found without loading
    assert spec is not None and spec.name == "here_pkg" and loads == []


def test_finder_waits_for_a_load_under_way_though_the_files_are_there(tmp_path, monkeypatch):
    """The warm-up's ``loadPackage`` installs one package after another: a package's files can
    be on the path before its dependencies are. Its loaded state, not its files, decides."""
    _write_package(tmp_path, "busy_pkg")  # unpacked, its dependencies not yet
    monkeypatch.syspath_prepend(str(tmp_path))
    done: list[str] = []
    finder = browser.LoadOnImport(
        done.append, {"busy_pkg": "busy-pkg"}, is_loaded=lambda _top, pkg: pkg in done
    )
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    monkeypatch.delitem(sys.modules, "busy_pkg", raising=False)
    assert importlib.import_module("busy_pkg").VALUE == 42
    assert done == ["busy-pkg"]  # waited for the load (Pyodide's loadPackage waits for its own)


def test_a_failed_load_is_the_imports_own_error(monkeypatch):
    def load(package):
        raise OSError(f"GET {package}.whl: HTTP 404")

    finder = browser.LoadOnImport(load, {"nowhere_pkg": "nowhere"})
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    with pytest.raises(OSError, match="nowhere.whl: HTTP 404"):
        importlib.import_module("nowhere_pkg")


def test_nothing_is_installed_or_preloaded_outside_the_browser():
    import asyncio

    assert browser.install() is None
    assert not any(isinstance(f, browser.LoadOnImport) for f in sys.meta_path)
    assert asyncio.run(browser.preload()) is None


def test_build_reads_the_same_later_packages():
    assert (
        build_site.LATER
        == browser.LATER
        == {"plotly": "plotly", "pint": "pint", "pydantic": "pydantic"}
    )


def _page_with_header(tmp_path, deps: list[str]) -> Path:
    import json
    from urllib.parse import quote

    code = f"# /// script\n# dependencies = {json.dumps(deps)}\n# ///\nimport marimo\n"
    page = tmp_path / "page"
    page.mkdir()
    (page / "index.html").write_text(
        f'<marimo-code hidden="">{quote(code, safe="")}</marimo-code>\n'
        f"<script>window.x = {{ notebookCode: {json.dumps(code)},\n}}</script>\n"
    )
    return page


def test_page_header_drops_later_packages_in_both_copies(tmp_path):
    from urllib.parse import unquote

    deps = ["marimo==0.25.2", "pint==0.26.2", "plotly==7.1.0", "markdown==3.11.3"]
    page = _page_with_header(tmp_path, deps)
    assert build_site.defer_packages(page) == ["marimo==0.25.2", "markdown==3.11.3"]
    assert build_site.page_pins(page) == {"marimo": "0.25.2", "markdown": "3.11.3"}
    html = (page / "index.html").read_text()
    for name in ("plotly", "pint"):
        assert name not in html and name not in unquote(html)
    assert build_site.defer_packages(page) == ["marimo==0.25.2", "markdown==3.11.3"]


def _wheel(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
        z.writestr("demo-1.0.dist-info/RECORD", "".join(f"{n},sha256=x,1\n" for n in files))
    return buf.getvalue()


def test_bytecode_is_added_beside_each_source_and_recorded(tmp_path):
    src = _wheel(
        {
            "demo/__init__.py": "from .calc import twice\n",
            "demo/calc.py": "def twice(x):\n    return 2 * x\n",
            "demo/broken.py": "def (:\n",  # does not compile: keeps its source only
            "demo-1.0.dist-info/METADATA": "Name: demo\n",
        }
    )
    out, added = bytecode.add_bytecode(src)
    tag = sys.implementation.cache_tag
    with zipfile.ZipFile(io.BytesIO(out)) as z:
        names = set(z.namelist())
        record = z.read("demo-1.0.dist-info/RECORD").decode()
        z.extractall(tmp_path)
    assert added == 2
    assert {f"demo/__pycache__/__init__.{tag}.pyc", f"demo/__pycache__/calc.{tag}.pyc"} < names
    assert not any("broken" in n and n.endswith(".pyc") for n in names)
    assert "demo/calc.py" in names  # sources stay
    for pyc in (f"demo/__pycache__/__init__.{tag}.pyc", f"demo/__pycache__/calc.{tag}.pyc"):
        assert sum(line.startswith(pyc + ",sha256=") for line in record.splitlines()) == 1
    # unchecked hash-based pyc (PEP 552 flags == 0b01): used without looking at the source
    data = (tmp_path / f"demo/__pycache__/calc.{tag}.pyc").read_bytes()
    assert data[:4] == importlib.util.MAGIC_NUMBER and int.from_bytes(data[4:8], "little") == 1
    # the importer runs the bytecode, not the source: change the source, keep the pyc
    (tmp_path / "demo" / "calc.py").write_text("def twice(x):\n    return 3 * x\n")
    sys.path.insert(0, str(tmp_path))
    try:
        for m in [m for m in sys.modules if m == "demo" or m.startswith("demo.")]:
            del sys.modules[m]
        assert importlib.import_module("demo").twice(21) == 42
    finally:
        sys.path.remove(str(tmp_path))
        for m in [m for m in sys.modules if m == "demo" or m.startswith("demo.")]:
            del sys.modules[m]


def test_bytecode_only_for_the_listed_files():
    """With a list (scripts/page_modules.txt for marimo's and plotly's wheels), only the files
    it names get bytecode: a page's imports, not the thousands of files it never opens."""
    src = _wheel(
        {
            "demo/__init__.py": "",
            "demo/used.py": "X = 1\n",
            "demo/unused.py": "Y = 2\n",
            "demo-1.0.dist-info/METADATA": "Name: demo\n",
        }
    )
    out, added = bytecode.add_bytecode(src, frozenset({"demo/__init__.py", "demo/used.py"}))
    tag = sys.implementation.cache_tag
    with zipfile.ZipFile(io.BytesIO(out)) as z:
        pycs = {n for n in z.namelist() if n.endswith(".pyc")}
    assert added == 2
    assert pycs == {f"demo/__pycache__/__init__.{tag}.pyc", f"demo/__pycache__/used.{tag}.pyc"}


def test_stdlib_zip_bytecode_goes_where_zipimport_reads_it(tmp_path):
    """Pyodide's ``python_stdlib.zip`` (sources only in its npm package) gets ``mod.pyc`` beside
    ``mod.py`` for the listed modules, the place ``zipimport`` looks first; the importer runs that
    bytecode (the source changed under it is not what runs), and a traceback names the file
    where the zip is mounted."""
    src = _wheel(
        {
            "stdmod.py": "def f():\n    return 1\n",
            "stdpkg/__init__.py": "X = 'pkg'\n",
            "unlisted.py": "Y = 2\n",
        }
    )
    out, added = bytecode.add_bytecode(
        src, frozenset({"stdmod.py", "stdpkg/__init__.py"}), stdlib=True
    )
    assert added == 2
    with zipfile.ZipFile(io.BytesIO(out)) as z:
        names = set(z.namelist())
        assert {"stdmod.pyc", "stdpkg/__init__.pyc", "stdmod.py", "unlisted.py"} <= names
        assert "unlisted.pyc" not in names and not any("__pycache__" in n for n in names)
        code = __import__("marshal").loads(z.read("stdmod.pyc")[16:])
    assert code.co_filename == f"{bytecode.stdlib_zip_path()}/stdmod.py"
    # a zip whose source says 2 but whose bytecode says 1: zipimport runs the bytecode
    with zipfile.ZipFile(io.BytesIO(out)) as zin:
        entries = {n: zin.read(n) for n in zin.namelist()}
    entries["stdmod.py"] = b"def f():\n    return 2\n"
    archive = tmp_path / "python_stdlib.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for n, data in entries.items():
            z.writestr(n, data)
    sys.path.insert(0, str(archive))
    try:
        mod = importlib.import_module("stdmod")
        assert mod.f() == 1 and mod.__file__.endswith("stdmod.pyc")
    finally:
        sys.path.remove(str(archive))
        sys.modules.pop("stdmod", None)


def test_page_stdlib_list_names_standard_modules():
    """The recorded list of standard modules a page imports (scripts/trace_page_modules.py) is
    sorted and unique, zip-relative ``.py`` paths, and has what every page imports."""
    lines = build_site.PAGE_STDLIB.read_text(encoding="utf-8").splitlines()
    assert lines == sorted(set(lines)) and len(lines) > 100
    assert all(ln.endswith(".py") and not ln.startswith("/") for ln in lines)
    assert {"json/__init__.py", "fractions.py", "dataclasses.py"} <= set(lines)
    assert not any(ln.split("/", 1)[0] in {"marimo", "plotly", "mlsysim", "pint"} for ln in lines)


def test_page_modules_list_names_files_of_the_pinned_marimo():
    """The recorded list is sorted and unique, names only files of the PAGE_BYTECODE wheels, and
    its marimo files exist in the marimo installed here (the version the site pins): a marimo
    upgrade without re-running scripts/trace_page_modules.py fails here, not silently slower."""
    import marimo

    lines = build_site.PAGE_MODULES.read_text(encoding="utf-8").splitlines()
    assert lines == sorted(set(lines)) and len(lines) > 500
    tops = {ln.split("/", 1)[0] for ln in lines}
    assert tops <= {
        "marimo", "markdown", "pymdownx", "pygments", "narwhals", "msgspec", "packaging",
        "yaml", "micropip", "pyodide_http", "jedi", "parso", "plotly", "_plotly_utils",
    }, tops  # fmt: skip
    assert {"marimo", "markdown", "plotly"} <= tops
    root = Path(marimo.__file__).parent.parent
    missing = [ln for ln in lines if ln.startswith("marimo/") and not (root / ln).is_file()]
    assert not missing, missing[:5]
    assert all(ln.endswith(".py") for ln in lines)
    assert not (build_site.PAGE_BYTECODE & build_site.BYTECODE)


def test_mirror_bytecode_covers_what_import_mlsysim_loads():
    """Every distribution ``import mlsysim`` (with the lab kit) loads, other than marimo's own,
    is in build_site.BYTECODE (all of its files); plotly, loaded after the first question, gets
    bytecode only for the files a page imports (PAGE_BYTECODE)."""
    import importlib.metadata as md

    import mlsysim.labs.components  # noqa: F401
    import mlsysim.labs.state  # noqa: F401

    top = {name.partition(".")[0] for name in sys.modules}
    dists = md.packages_distributions()
    loaded = {
        d.lower().replace("-", "_")
        for t in top
        for d in dists.get(t, [])
        if d.lower() in {"pint", "pydantic", "pydantic_core", "pydantic-core"}
        or d.lower().startswith(("flex", "typing", "annotated"))
    }
    assert loaded <= build_site.BYTECODE
    assert "plotly" not in build_site.BYTECODE and "plotly" in build_site.PAGE_BYTECODE


def _boot_block(path: Path) -> str:
    """The first cell's statements before ``import marimo as mo``, as a syntax tree dump."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    cell = next(
        n
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.decorator_list
    )
    block = []
    for stmt in cell.body:
        if isinstance(stmt, ast.Import) and stmt.names[0].name == "marimo":
            break
        block.append(ast.dump(stmt))
    return "\n".join(block)


NOTEBOOKS = sorted((ROOT / "labs").glob("[!_]*.py"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_boot_cell_installs_the_wheel_only_when_the_page_did_not(path):
    """Every notebook boots the same way: in the browser it installs the page's wheel only when
    Pyodide has not loaded mlsysim from the mirror's lockfile (an unconditional micropip.install
    re-installed mlsysim and pulled plotly before the first question: ~1 s)."""
    block = _boot_block(path)
    assert "find_spec" in block and "'mlsysim'" in block and "micropip" in block
    assert block == _boot_block(ROOT / "labs" / "s06_02_mlps.py")


# A first visit's first run, as a browser page runs it: a notebook executed headlessly with an
# empty ledger in a fresh interpreter (a page runs one notebook; in one interpreter, the next
# notebook's ``marimo.App()`` walks every module with ``inspect.stack()``, which runs the lazy
# ones), recording which of ``LATER``'s packages it imports. A page that needs some at once
# (``build_site.AT_ONCE``: the instructor page) keeps them in its header, and may import
# those only. Every other notebook shows only questions, sliders and locked parts: it must import
# none of them, or its page would load them one by one before its first question after all.
_FIRST_RUN = """
import json, runpy, sys
before = set(sys.modules)
runpy.run_path(sys.argv[2])["app"].run()
new = {m.partition(".")[0] for m in set(sys.modules) - before}
print(json.dumps(sorted(new & set(json.loads(sys.argv[1])))))
"""
_FIRST_VISITS = sorted(p.name for p in (ROOT / "labs").glob("*.py"))


@pytest.mark.parametrize("name", _FIRST_VISITS)
def test_first_visit_first_run_imports_no_later_package(name, tmp_path):
    import json
    import os
    import subprocess

    env = {**os.environ, "MLSYSIM_DATA_DIR": str(tmp_path / "ledger"), "PYTHONPATH": str(ROOT)}
    res = subprocess.run(
        [sys.executable, "-c", _FIRST_RUN, json.dumps(sorted(browser.LATER)), f"labs/{name}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    imported = json.loads(res.stdout.strip().splitlines()[-1])
    assert set(imported) <= set(build_site.AT_ONCE.get(name.removesuffix(".py"), ())), imported
    assert not (tmp_path / "ledger" / "mlsysim-ledger.json").exists()  # nothing answered yet


def test_first_visit_check_covers_the_labs():
    assert len(_FIRST_VISITS) >= 14 and "s06_01_principles.py" in _FIRST_VISITS
    assert build_site.page_later("s06_01_principles") == list(browser.LATER.values())
    assert build_site.page_later("byom") == list(browser.LATER.values())
    assert build_site.page_later("instructor") == ["plotly", "pint"]
    assert set(build_site.AT_ONCE) <= {p.stem for p in (ROOT / "labs").glob("*.py")}


def test_loading_names_a_module_whose_code_is_running_and_never_runs_one(tmp_path, monkeypatch):
    """A browser import can pause half-way (its module waits for a package Pyodide is still
    loading) while the warm-up task runs; the warm-up waits until ``_lazy.loading()`` is empty
    (a clean-clone run saw "module 'mlsysim.layers' has no attribute 'Attention'" after a
    reload). ``loading`` sees a lazy module while its code runs, and looking never runs one."""
    import sys

    from mlsysim import _lazy

    pkg = tmp_path / "lazyprobe"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text(
        "from mlsysim import _lazy\nSEEN = _lazy.loading('lazyprobe')\nVALUE = 7\n"
    )
    (pkg / "other.py").write_text("VALUE = 8\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("lazyprobe", "lazyprobe.mod", "lazyprobe.other"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    mod, other = _lazy.lazy("lazyprobe.mod"), _lazy.lazy("lazyprobe.other")
    assert _lazy.loading("lazyprobe") == set()
    assert type(other).__name__ == "_LazyModule"  # looking did not run it
    assert mod.SEEN == {"lazyprobe.mod"} and mod.VALUE == 7
    assert _lazy.loading("lazyprobe") == set()
    assert type(other).__name__ == "_LazyModule"


#: run in a fresh interpreter against the slim plotly: every part of every lab at its widgets'
#: starting positions, each figure to JSON as marimo sends it (``pio.to_json``)
_DRAW_ALL = r"""
import importlib, inspect, json, pkgutil, sys
import plotly, plotly.io as pio
import mlsysim.labs.parts as parts
from mlsysim.labs import style

assert plotly.__file__.startswith(sys.argv[1]), plotly.__file__
style._template()
drawn, skipped = 0, []
for info in pkgutil.iter_modules(parts.__path__):
    lab = importlib.import_module(f"mlsysim.labs.parts.{info.name}")
    for letter in getattr(lab, "PARTS", ()):
        fn = getattr(lab, f"part_{letter.lower()}", None)
        if fn is None:
            continue
        specs = [getattr(lab, f"{letter}_{p.upper()}", None) for p in inspect.signature(fn).parameters]
        if any(s is None or not hasattr(s, "restore") for s in specs):
            skipped.append(f"{info.name}.{letter}")
            continue
        view = fn(*(s.restore(None) for s in specs))
        fig = getattr(view, "figure", None)
        if fig is not None:
            json.loads(pio.to_json(fig))
            drawn += 1
print(json.dumps({"drawn": drawn, "skipped": skipped}))
"""


def test_the_mirrors_slim_plotly_draws_every_part(tmp_path):
    """The mirror's plotly, without the trace types no lab draws (``build_site.SLIM``,
    ``_unused_trace_file``: ~1,100 of its files, issue 35), still draws every lab's parts: a copy of
    the installed plotly with those files left out, in a fresh interpreter, draws each part at its
    widgets' starting positions and turns the figure into the JSON marimo sends the page."""
    import subprocess

    import plotly

    kept = build_site._drawn_trace_types()
    assert kept == {"scatter", "bar"}
    site = Path(plotly.__file__).resolve().parent.parent
    left_out = 0
    for top in ("plotly", "_plotly_utils"):
        for f in (site / top).rglob("*"):
            rel = f.relative_to(site).as_posix()
            if not f.is_file() or "__pycache__" in rel:
                continue
            if build_site._unused_trace_file(rel, kept) or any(
                rel.startswith(d) for d in build_site.SLIM["plotly"]
            ):
                left_out += 1
                continue
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_bytes(f.read_bytes())
    assert left_out > 1000
    assert not (tmp_path / "plotly/graph_objs/heatmap").exists()
    assert (tmp_path / "plotly/graph_objs/scatter/marker").is_dir()
    out = subprocess.run(
        [sys.executable, "-c", _DRAW_ALL, str(tmp_path)],
        env={**__import__("os").environ, "PYTHONPATH": f"{tmp_path}:{ROOT}"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result = __import__("json").loads(out.stdout.strip().splitlines()[-1])
    assert result["drawn"] >= 60, result


def test_unused_trace_files_are_only_other_trace_types():
    kept = {"scatter", "bar"}
    drop = build_site._unused_trace_file
    assert drop("plotly/graph_objs/heatmap/_colorbar.py", kept)
    assert drop("plotly/graph_objs/_heatmap.py", kept)
    for name in (
        "plotly/graph_objs/__init__.py",
        "plotly/graph_objs/_figure.py",
        "plotly/graph_objs/_layout.py",
        "plotly/graph_objs/_deprecations.py",
        "plotly/graph_objs/layout/_xaxis.py",
        "plotly/graph_objs/scatter/_marker.py",
        "plotly/graph_objs/_bar.py",
        "plotly/graph_objs/graph_objs.py",
        "plotly/validators/_validators.json",
        "plotly/io/_json.py",
    ):
        assert not drop(name, kept), name


def test_the_first_deferred_import_loads_the_other_deferred_packages_with_it():
    """A chart cell's ``import plotly`` loads pint and pydantic in the same call (the core
    imports them next), never one already loaded, and the asked-for package first."""
    assert browser.together("plotly", lambda p: False) == ["plotly", "pint", "pydantic"]
    assert browser.together("pydantic", lambda p: p == "pint") == ["pydantic", "plotly"]
    assert browser.together("pint", lambda p: True) == ["pint"]
