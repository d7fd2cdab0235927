"""How a lab notebook gets `mlsysim`, in the browser (Pyodide) and in `marimo edit`.

THE RULE (one rule, both places)
--------------------------------
A notebook's first cell after `import marimo as mo` is

    mlsysim = await install_mlsysim()

* Native CPython (`marimo edit labs/x.py`, `python labs/x.py`, pytest): nothing is installed.
  `import mlsysim` uses the installed package (`pip install -e .`); if it is not installed, the
  repository root (the first parent of the notebook holding pyproject.toml + mlsysim/) is put on
  sys.path, so a fresh clone works too.
* Pyodide (the exported site): the wheel is fetched from `<page>/wheels/`, i.e. the folder
  `wheels/` NEXT TO THE PAGE'S index.html.  scripts/build_site.py puts it there for every
  notebook (site/<stem>/wheels/mlsysim-<version>-py3-none-any.whl) with a manifest
  site/<stem>/wheels/mlsysim.json = {"name", "version", "wheel": <file name>, "sha256"}, so
  notebooks never hard-code the version.  The helper builds an ABSOLUTE URL and calls
  `await micropip.install(url)`; micropip then takes pint/pydantic/plotly from the Pyodide
  lockfile (the offline mirror or marimo's CDN lock) like any other dependency.  The manifest
  is fetched with cache="no-cache" and the wheel URL carries ?v=<sha256 prefix>, so a
  redeployed wheel is never served stale from the browser cache.

WHY AN ABSOLUTE URL, COMPUTED THIS WAY
--------------------------------------
marimo runs Python in a Web Worker (`<page>/assets/worker-<hash>.js`).  In the worker,
`js.location` is the WORKER script's URL, not the page's, and every relative URL that Python
fetches (pyfetch, micropip.install("wheels/x.whl")) resolves against that worker URL, i.e. to
`<page>/assets/wheels/x.whl`, which does not exist.  Verified in headless Chromium
(marimo 0.25.2, Pyodide 314.0.0): js.location.href == <page>/assets/worker-<hash>.js;
pyfetch("wheels/m.json") and pyfetch("./wheels/m.json") -> 404 <page>/assets/wheels/m.json;
pyfetch("../wheels/m.json") -> 200 (fragile: depends on marimo's assets/ layout);
micropip.install("wheels/x.whl") -> 404, reported as BadZipFile; localStorage does not exist
in the worker (use IndexedDB, e.g. an IDBFS mount, as mlsysim.labs.state does).  So the page folder is derived from `js.location` by
cutting the URL at its last `/assets/` segment -- the same thing `mo.notebook_location()` does
in marimo 0.25.2 -- and the wheel URL is built from it.  This works for any deploy prefix
(http://host/, https://org.github.io/repo/labs/<stem>/, 127.0.0.1:port/<stem>/).

Keep this module dependency-free (stdlib + Pyodide's own `js`/`micropip`/`pyodide.http`): it
runs BEFORE mlsysim exists, so it cannot live inside the mlsysim wheel.  A notebook must get it
from a cell (inline copy) or from a local helper module that marimo's html-wasm export bundles.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

WHEEL_DIR = "wheels"  # relative to the page folder (the folder holding index.html)
MANIFEST = "mlsysim.json"


def page_base_url(location: str | None = None) -> str:
    """URL (ending in '/') of the folder holding the exported page's index.html.

    `location` defaults to `js.location.href`: the worker script URL
    `<page>/assets/worker-<hash>.js` inside marimo's worker, or the page URL itself.
    """
    if location is None:
        import js  # type: ignore[import-not-found]

        location = str(js.location.href)
    url = location.split("#", 1)[0].split("?", 1)[0]
    cut = url.rfind("/assets/")
    if cut != -1:
        return url[: cut + 1]
    return url.rsplit("/", 1)[0] + "/"


def wheel_manifest_url(location: str | None = None) -> str:
    return f"{page_base_url(location)}{WHEEL_DIR}/{MANIFEST}"


def _native_import() -> ModuleType:
    try:
        return importlib.import_module("mlsysim")
    except ImportError:
        pass
    starts = []
    try:
        import marimo as mo

        d = mo.notebook_dir()
        if d is not None:
            starts.append(Path(d))
    except Exception:  # noqa: BLE001 - not in a marimo notebook; fall back to cwd
        pass
    starts.append(Path.cwd())
    for start in starts:
        for root in [start, *start.resolve().parents]:
            if (root / "pyproject.toml").is_file() and (root / "mlsysim" / "__init__.py").is_file():
                sys.path.insert(0, str(root))
                return importlib.import_module("mlsysim")
    raise ImportError("mlsysim is not installed: run `pip install -e .` in the repository root")


async def install_mlsysim() -> ModuleType:
    """Make `mlsysim` importable and return the module (see the module docstring for the rule)."""
    if sys.platform != "emscripten":
        return _native_import()
    if "mlsysim" in sys.modules:
        return sys.modules["mlsysim"]
    import micropip  # type: ignore[import-not-found]
    from pyodide.http import pyfetch  # type: ignore[import-not-found]

    manifest_url = wheel_manifest_url()
    # revalidate the tiny manifest every time (a redeploy may change the wheel under the same name)
    resp = await pyfetch(manifest_url, cache="no-cache")
    if not resp.ok:
        raise RuntimeError(
            f"mlsysim wheel manifest not found at {manifest_url} (HTTP {resp.status}); "
            "build the site with `python scripts/build_site.py`"
        )
    manifest = await resp.json()
    # ?v=<sha256> busts the browser cache only when the wheel's bytes change
    wheel_url = (
        f"{page_base_url()}{WHEEL_DIR}/{manifest['wheel']}?v={manifest.get('sha256', '')[:16]}"
    )
    await micropip.install(wheel_url)
    return importlib.import_module("mlsysim")
