"""Packages a browser page loads after its first question, not before.

The offline site (``scripts/build_site.py``) leaves ``LATER`` out of what Pyodide loads before a
notebook's first run. A first run shows questions, sliders and locked parts: the lab modules
reach the cost models lazily (``mlsysim._lazy``) and the ledger reads its schema only when
something is saved, so a first visit needs neither pint nor pydantic, and nothing needs plotly
until the first chart. Loading them first cost ~1 s on a 2-core laptop (plotly ~0.5 s; pint,
pydantic and pydantic-core's wasm library with their imports the rest). ``kit.warm_up`` starts
loading them as soon as the first question is live (:func:`preload`); if a student answers
first, or a saved ledger is read, the import itself waits for them
(:class:`LoadOnImport`, installed by ``mlsysim.labs`` in Pyodide only): with JSPI (Chromium) it
waits on Pyodide's own ``loadPackage``; elsewhere it fetches the wheel the lockfile names with a
synchronous request (allowed in the web worker that runs Python) and unpacks it.

Outside Pyodide nothing here does anything: the packages are installed with mlsysim.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable

#: Top-level modules a page may import before they are loaded, and the package that has them.
LATER: dict[str, str] = {"plotly": "plotly", "pint": "pint", "pydantic": "pydantic"}

#: The User Timing mark :func:`preload` sets in the Python worker before it fetches anything
#: (seen in the browser's performance panel; the browser test compares it with the server's log)
PRELOAD_MARK = "mlsysim:preload"


class LoadOnImport(importlib.abc.MetaPathFinder):
    """A ``sys.meta_path`` finder that, the first time a module of ``LATER`` is imported and its
    package is not loaded, loads it with ``load`` and then lets the normal finders find it.
    ``is_loaded(top_module, package)`` says whether it is (default: the module is on the path)."""

    def __init__(
        self,
        load: Callable[[str], None],
        later: dict[str, str] | None = None,
        is_loaded: Callable[[str, str], bool] | None = None,
    ):
        self.load = load
        self.later = dict(LATER if later is None else later)
        self.is_loaded = is_loaded or (
            lambda top, _package: importlib.machinery.PathFinder.find_spec(top) is not None
        )
        self.loaded: set[str] = set()

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        package = self.later.get(top)
        if package is None or package in self.loaded or path is not None:
            return None
        if not self.is_loaded(top, package):
            self.load(package)  # a failed load raises here, as the import's own error
            importlib.invalidate_caches()
        self.loaded.add(package)
        return importlib.machinery.PathFinder.find_spec(fullname, path)


def _has(obj, key: str) -> bool:
    from js import Object

    return bool(Object.hasOwn(obj, key))


def _lock_entry(package: str):
    import pyodide_js

    packages = pyodide_js.lockfile.packages
    if not _has(packages, package):
        raise LookupError(f"the page's lockfile has no package {package!r}")
    return getattr(packages, package)


def _fetch(url: str) -> bytes:
    from js import XMLHttpRequest

    req = XMLHttpRequest.new()
    req.open("GET", url, False)  # synchronous: allowed in a web worker
    req.responseType = "arraybuffer"
    req.send(None)
    if req.status != 200:
        raise OSError(f"GET {url}: HTTP {req.status}")
    return req.response.to_bytes()


#: packages :func:`_unpack` has put in site-packages (Pyodide's ``loadedPackages`` does not
#: know them): a dependency two of them share (typing-extensions) is fetched once
UNPACKED: set[str] = set()


def _unpack(package: str) -> None:
    """Fetch ``package`` (and its lockfile dependencies not yet loaded) and unpack it into
    site-packages, synchronously."""
    import io
    import sysconfig
    import zipfile

    import pyodide_js

    if package in UNPACKED or _has(pyodide_js.loadedPackages, package):
        return
    UNPACKED.add(package)  # before its dependencies: a cycle ends here
    done = False
    try:
        entry = _lock_entry(package)
        for dep in entry.depends:
            _unpack(dep)
        base = pyodide_js.lockfileBaseUrl or ""
        with zipfile.ZipFile(io.BytesIO(_fetch(f"{base}{entry.file_name}"))) as wheel:
            wheel.extractall(sysconfig.get_path("purelib"))
        done = True
    finally:
        if not done:  # not there: a later import tries again (the error goes on)
            UNPACKED.discard(package)


def _loaded(package: str, seen: set[str] | None = None) -> bool:
    """Pyodide has installed ``package`` and every lockfile dependency of it. Its files on the
    path are not enough: a ``loadPackage`` under way (the warm-up's) installs one package after
    another, so pint can be there before flexcache, which it imports."""
    import pyodide_js

    seen = set() if seen is None else seen
    if package in seen:
        return True
    seen.add(package)
    if package not in UNPACKED and not _has(pyodide_js.loadedPackages, package):
        return False
    return all(_loaded(dep, seen) for dep in _lock_entry(package).depends)


def together(package: str, loaded: Callable[[str], bool] | None = None) -> list[str]:
    """``package``, then every other package of ``LATER`` not ``loaded`` yet: what the first
    import of one of them loads in one go. A chart cell imports plotly, then the core imports
    pint and pydantic: loaded one by one on import they were three waits in a row (the chart
    of an answer given at once came 2-4 s after its verdict, issue 35); in one ``loadPackage``
    call Pyodide fetches them in parallel and compiles pydantic-core's wasm while it unpacks."""
    loaded = loaded or _loaded
    rest = sorted(set(LATER.values()) - {package})
    return [package, *(p for p in rest if not loaded(p))]


def load_now(package: str) -> None:
    """Load ``package`` before returning: Pyodide's ``loadPackage`` awaited synchronously where
    the browser has JSPI (with the rest of ``LATER`` not loaded yet: :func:`together`), else the
    wheel fetched and unpacked by :func:`_unpack`."""
    import pyodide_js
    from pyodide.ffi import can_run_sync, run_sync, to_js

    if can_run_sync():
        run_sync(pyodide_js.loadPackage(to_js(together(package))))
    else:
        _unpack(package)


async def preload(packages=None) -> None:
    """Load ``LATER``'s packages in the background (Pyodide's ``loadPackage``; it waits for a load
    already under way instead of fetching twice). Outside Pyodide: nothing."""
    if sys.platform != "emscripten":
        return
    import js
    import pyodide_js
    from pyodide.ffi import to_js

    js.performance.mark(PRELOAD_MARK)
    wanted = sorted(set(LATER.values()) if packages is None else packages)
    missing = [p for p in wanted if not _loaded(p)]
    if missing:  # one call: Pyodide fetches them in parallel
        await pyodide_js.loadPackage(to_js(missing))


#: the message the site's boot script posts to the Python worker when the page's first question
#: is live for the student (``{mlsysim: "live"}``, ``scripts/build_site.py``'s ``BOOT_HTML``)
LIVE_MESSAGE = "live"
#: whether this worker listens for it, and whether it came
_PAGE = {"listening": False, "live": False}


def _on_message(event) -> None:
    if getattr(getattr(event, "data", None), "mlsysim", None) == LIVE_MESSAGE:
        _PAGE["live"] = True


def listen_for_page_live() -> bool:
    """In Pyodide's worker: note when the boot script says the page is live. False where there is
    no worker to listen on (outside the browser)."""
    if _PAGE["listening"]:
        return True
    try:
        import js
        from pyodide.ffi import create_proxy
    except ImportError:
        return False
    if not hasattr(js, "addEventListener"):  # Pyodide outside a worker (Node): no page to hear
        return False
    js.addEventListener("message", create_proxy(_on_message))
    _PAGE["listening"] = True
    return True


def page_is_live() -> bool:
    """Whether the boot script has said the page's first question is live (False before, and
    where nothing listens)."""
    return _PAGE["live"]


def page_listening() -> bool:
    """Whether this worker hears the page's live message (the delay counts from it)."""
    return _PAGE["listening"]


async def page_live(timeout_s: float = 60.0, poll_s: float = 0.1) -> bool:
    """Wait until the page's first question is live for the student (the boot script's message),
    at most ``timeout_s`` (a page without the boot script); at once where nothing listens."""
    import asyncio

    waited = 0.0
    while _PAGE["listening"] and not _PAGE["live"] and waited < timeout_s:
        await asyncio.sleep(poll_s)
        waited += poll_s
    return _PAGE["live"]


def renderer_versions() -> dict[str, str] | None:
    """The versions of the packages that decide how marimo renders markdown, as they run here
    (``None`` where one of them is not installed: Python running mlsysim without marimo)."""
    try:
        import marimo
        import markdown
        import pymdownx
    except ImportError:
        return None

    return {
        "marimo": marimo.__version__,
        "markdown": markdown.__version__,
        "pymdown-extensions": pymdownx.__version__,
    }


class CachedMarkdown:
    """marimo's markdown renderer behind a table of texts already rendered by it (``html``:
    ``mlsysim.labs.markdown_cache.HTML``): a text in the table is answered from it, any other is
    rendered as before. ``hits`` and ``misses`` count the calls."""

    def __init__(self, render: Callable[[str], str], html: dict[str, str]):
        self.render, self.html = render, html
        self.hits = self.misses = 0

    def __call__(self, text: str) -> str:
        found = self.html.get(text) if isinstance(text, str) else None
        if found is None:
            self.misses += 1
            return self.render(text)
        self.hits += 1
        return found


def cache_markdown(md=None, cache=None) -> CachedMarkdown | None:
    """Answer the texts a lab's first run renders from ``mlsysim.labs.markdown_cache`` instead of
    rendering each (~3 ms a text in Pyodide: 40-70 texts before a lab's first question). Only
    where the running marimo, Markdown and pymdown-extensions are the versions the table was made
    with (else the HTML could differ from what this page would render), and once. ``md`` is
    marimo's ``marimo._output.md`` module and ``cache`` the table's module (tests pass others).
    Returns the renderer put in place, or ``None`` where the table does not apply (also where
    marimo is not there: mlsysim imported in Pyodide without it, as the browser test's Node run
    does)."""
    if md is None:
        try:
            from marimo._output import md
        except ImportError:
            return None
    if cache is None:
        from . import markdown_cache as cache
    current = getattr(md, "_render_markdown", None)
    if isinstance(current, CachedMarkdown):
        return current
    if current is None or renderer_versions() != cache.VERSIONS:
        return None
    md._render_markdown = CachedMarkdown(current, cache.HTML)
    return md._render_markdown


def install() -> LoadOnImport | None:
    """Put a :class:`LoadOnImport` finder first on ``sys.meta_path``, in Pyodide only (once),
    listen for the page's live message (:func:`page_live`) and answer already rendered markdown
    from its table (:func:`cache_markdown`)."""
    if sys.platform != "emscripten":
        return None
    listen_for_page_live()
    cache_markdown()
    for finder in sys.meta_path:
        if isinstance(finder, LoadOnImport):
            return finder
    finder = LoadOnImport(load_now, is_loaded=lambda _top, package: _loaded(package))
    sys.meta_path.insert(0, finder)
    return finder
