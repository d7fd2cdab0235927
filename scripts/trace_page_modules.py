"""Record which Python files a lab page imports from the mirror's wheels and from Pyodide's
standard library zip, for their bytecode.

    python scripts/trace_page_modules.py [labs/s06_01_principles.py ...]

Builds a throwaway offline site with a copy of each notebook whose first cell reports the files
of ``sys.modules`` to the console, opens each copy in headless Chromium (the browser test's
set-up: ``bash scripts/install_browser_deps.sh``), answers its first question, waits for the
chart and for the packages a page loads after its first question, and writes the union of the
files it saw in the wheels of ``PAGE_BYTECODE`` (wheel-relative paths, one per line, sorted) to
``scripts/page_modules.txt``, and those of the standard library (zip-relative) to
``scripts/page_stdlib.txt``.

``scripts/build_site.py`` adds Pyodide's bytecode for exactly those files to the wheels of
``PAGE_BYTECODE`` (marimo and what it and the charts import), and to its copy of
``python_stdlib.zip`` for the standard modules: a page then compiles nothing it runs, without shipping bytecode for the thousands of files it never opens (plotly's 1,508
modules, pygments' lexers). A file missing from the list still works: Pyodide compiles it when
it is first imported. Re-run this after upgrading marimo, plotly or the mirror's pins.
"""

from __future__ import annotations

import functools
import http.server
import json
import sys
import tempfile
import threading
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "scripts" / "page_modules.txt"
sys.path[:0] = [str(ROOT / "tests" / "browser"), str(ROOT / "scripts")]

#: inserted at the top of the notebook's first cell: every 2 s, the files of the modules
#: imported so far, as one console line
PROBE = """    import sys as _sys

    if _sys.platform == "emscripten":
        import json as _json

        from js import console as _console
        from js import setInterval as _every
        from pyodide.ffi import create_proxy as _proxy

        def _report():
            _files = {getattr(_m, "__file__", None) for _m in list(_sys.modules.values())}
            _console.log("PAGE_MODULES " + _json.dumps(sorted(f for f in _files if f)))

        _every(_proxy(_report), 2000)
"""


def _probe_copy(nb: Path, out: Path) -> Path:
    src = nb.read_text(encoding="utf-8")
    head = "async def _():\n"
    if head not in src:
        raise SystemExit(f"{nb}: its first cell is not the async boot cell")
    dst = out / nb.name
    dst.write_text(src.replace(head, head + PROBE, 1), encoding="utf-8")
    return dst


def trace(notebooks: list[Path]) -> set[str]:
    import build_site
    import conftest as C
    from playwright.sync_api import TimeoutError as PWTimeout
    from playwright.sync_api import sync_playwright

    seen: set[str] = set()
    stdlib: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        labs, site = Path(tmp) / "labs", Path(tmp) / "site"
        labs.mkdir()
        for nb in notebooks:
            _probe_copy(nb, labs)
        build_site.build_site(site, labs, site / build_site.MIRROR_NAME, C.CACHE)
        handler = type("H", (C._Handler,), {"served": []})
        srv = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(handler, directory=str(site))
        )
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        server = (f"http://127.0.0.1:{srv.server_address[1]}", handler.served)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=C.CHROMIUM, headless=True, args=C.CHROMIUM_ARGS
            )
            for nb in notebooks:
                lp = C.LabPage(browser, server, nb.stem)
                lp.goto()
                lp.wait_live()
                C.answer(lp.page.locator(C.RADIO).filter(visible=True).first)
                if nb.stem not in C.INVENTORY:  # the concept inventory draws no chart
                    try:
                        lp.page.locator(C.PLOT).filter(visible=True).first.wait_for(timeout=60_000)
                    except PWTimeout:  # its modules still count (the warm-up loads plotly)
                        print(f"{nb.stem}: no chart within 60 s of the first answer", flush=True)
                lp.page.wait_for_timeout(8000)  # the packages loaded after the question
                lines = [t for _, t in lp.console if t.startswith("PAGE_MODULES ")]
                if not lines:
                    raise SystemExit(f"{nb.stem}: the page reported no modules")
                files = json.loads(lines[-1].split(" ", 1)[1])
                found = {f.split("site-packages/", 1)[1] for f in files if "site-packages/" in f}
                std = {_stdlib_path(f) for f in files} - {None}
                print(f"{nb.stem}: {len(found)} files from wheels, {len(std)} standard", flush=True)
                seen |= found
                stdlib |= std
                lp.ctx.close()
            browser.close()
        srv.shutdown()
        # only the files of the wheels that get listed bytecode (the rest get all of theirs)
        listed = set()
        for w in (site / build_site.MIRROR_NAME / "pyodide").glob("*.whl"):
            if build_site._project(w.name) in build_site.PAGE_BYTECODE:
                with zipfile.ZipFile(w) as z:
                    listed |= set(z.namelist())
        with zipfile.ZipFile(
            site / build_site.MIRROR_NAME / "pyodide" / build_site.STDLIB_ZIP
        ) as z:
            in_zip = set(z.namelist())
    return seen & listed, stdlib & in_zip


def _stdlib_path(file: str) -> str | None:
    """``/lib/python314.zip/json/decoder.py`` (or its ``.pyc``) -> ``json/decoder.py``; None for
    a file not in the standard library's zip."""
    head, sep, tail = file.partition(".zip/")
    if not sep or not head.rsplit("/", 1)[-1].startswith("python"):
        return None
    return tail[:-1] if tail.endswith(".pyc") else tail


def main(argv: list[str]) -> int:
    import build_site

    notebooks = [Path(a) for a in argv] or [
        p for p in build_site.list_notebooks(ROOT / "labs") if p.name != "instructor.py"
    ]
    wheels, stdlib = trace(notebooks)
    for out, found in ((OUT, wheels), (build_site.PAGE_STDLIB, stdlib)):
        files = sorted(f for f in found if f.endswith(".py"))
        out.write_text("\n".join(files) + "\n", encoding="utf-8")
        print(f"wrote {len(files)} files to {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
