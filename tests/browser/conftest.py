"""Fixtures of the real-browser tests (offline site, headless Debian Chromium, Playwright).

    bash scripts/install_browser_deps.sh          # once: chromium (apt), playwright, uv, npm
    pytest -m browser tests/browser                # builds the offline site once per session

Session fixtures: ``site_dir`` (the offline site built once, with the control page at
``_control/``; or ``$MLSYSIM_SITE_DIR``), ``server`` (serves it on 127.0.0.1 and records every
file served), ``browser`` (Debian's /usr/bin/chromium, never downloaded), ``metrics`` (written to
``site-metrics.json``), ``axe_js``; function fixture ``open_notebook(stem, ...) -> LabPage``.

Environment:
  MLSYSIM_LABS_DIR         notebooks to test (default <repo>/labs)
  MLSYSIM_SITE_DIR         use this prebuilt site (python scripts/build_site.py --offline-mirror;
                           the control page is added to it when missing)
  MLSYSIM_SITE_METRICS     where to write site-metrics.json (default: the pytest temp dir)
  MLSYSIM_ARTIFACTS        where screenshots go (default: <pytest temp dir>/artifacts)
  MLSYSIM_BROWSER_TIMEOUT  seconds to wait for a page's first live question (default 120)
  MLSYSIM_CHROMIUM         browser binary (default /usr/bin/chromium; never downloaded)
  MLSYSIM_BROWSER_CACHE    download cache for the offline mirror (default <repo>/.browser-cache)
"""

from __future__ import annotations

import collections
import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import build_site  # noqa: E402

LABS_DIR = Path(os.environ.get("MLSYSIM_LABS_DIR", ROOT / "labs")).resolve()
CHROMIUM = os.environ.get("MLSYSIM_CHROMIUM", "/usr/bin/chromium")
TIMEOUT_S = float(os.environ.get("MLSYSIM_BROWSER_TIMEOUT", "120"))
CACHE = Path(os.environ.get("MLSYSIM_BROWSER_CACHE", ROOT / ".browser-cache")).resolve()
CONTROL_NB = Path(__file__).with_name("control_notebook.py")
CONTROL = "_control"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}
RADIO = "[role=radio], input[type=radio]"
#: a lab question's commit button (kit: ``components.COMMIT_LABEL``); the control page has none
COMMIT = "Commit my answer"
#: press the commit button of the question a radio belongs to (a marimo form around the radio:
#: the button sits in the form element's shadow root); false when there is none
_COMMIT_JS = """(el) => {
  let n = el;
  while (n && n.tagName !== 'MARIMO-FORM') {
    const root = n.getRootNode();
    n = n.parentElement || (root instanceof ShadowRoot ? root.host : null);
  }
  if (!n) return false;
  const scope = n.shadowRoot || n;
  const b = [...scope.querySelectorAll('button')].find((x) => x.textContent.includes(LABEL));
  if (!b) return false;
  b.click();
  return true;
}""".replace("LABEL", repr(COMMIT))


def answer(radio) -> bool:
    """Choose an option and commit it, as a student does (a lab's first answer is recorded only
    when its commit button is pressed); on the control page, or for an answer already committed
    in an earlier session (a plain radio), the click alone answers. True when a button was
    pressed."""
    radio.click()
    return bool(radio.evaluate(_COMMIT_JS))


def focused_text(page) -> str:
    """The text of the element that has the keyboard focus, looking through shadow roots."""
    return page.evaluate(
        "() => { let a = document.activeElement;"
        " while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;"
        " return a ? (a.textContent || a.getAttribute('aria-label') || '') : ''; }"
    )


PLOT = ".js-plotly-plot"
ERROR_DOM = ".marimo-error, [data-testid=error-output], .traceback"
ERROR_TEXT = re.compile(r"Traceback \(most recent call last\)|An internal error occurred")
# marimo's frontend rejects a worker RPC after 20 s; on a loaded 2-core machine a slow package load
# triggers it with no effect on the page: recorded in the metrics as a warning, not a failure
BENIGN_PAGE_ERRORS = re.compile(r"^RPC request timed out")
STDERR_ERROR = re.compile(r"Traceback \(most recent call last\)|^\w*(Error|Exception)\b.*:", re.M)
# a dependency that failed to install (a pin the mirror does not serve, a fetch that failed)
FAILED_INSTALL = re.compile(
    r"Can't find a pure Python 3 wheel|Can't fetch metadata|Failed to load packages|"
    r"Failed to load notebook dependencies|No known package with name|ValueError: Requested"
)
# student labs only: the instructor notebook has no prediction (tests/browser/test_reports.py)
NOTEBOOKS = [
    p
    for p in (build_site.list_notebooks(LABS_DIR) if LABS_DIR.is_dir() else [])
    if p.name != "instructor.py"
]

#: the concept inventory (issue 37): questions only, no chart to draw (the pre-test reveals
#: nothing), so no chart after the first answer, no warm-up chart and no chart at phone width
INVENTORY = {"s06_00_inventory_pre", "s06_14_inventory_post"}

#: what marimo marks while the kernel runs: an output stale or loading, the app's running icon
BUSY = ".marimo-output-stale, .marimo-output-loading, .running-app-icon"

# Marks in page time (ms since navigation start), kept by a MutationObserver from the first byte:
# header (the lab's h1 shown), content (header + the first part's h2 shown, in document order),
# busy (marimo marks outputs stale/loading while the kernel runs the notebook), ran (the kernel's
# worker said its first run completed), live (no output busy any more after the kernel's first
# run: widgets answer from then on).
MARKS_JS = (
    """(() => {
  const M = window.__mlsysim = {header: null, content: null, order: null, busy: null, ran: null, live: null};
  const BUSY = '"""
    + BUSY
    + """';
  const shown = (e) => e && e.getClientRects().length > 0 && e.textContent.trim().length > 0;
  function check() {
    const now = performance.now();
    const h1 = document.querySelector('.output-area h1');
    if (M.header === null && shown(h1)) M.header = now;
    if (M.content === null && M.header !== null) {
      const h2 = document.querySelector('.output-area h2');
      if (shown(h2)) {
        M.content = now;
        M.order = !!(h1.compareDocumentPosition(h2) & Node.DOCUMENT_POSITION_FOLLOWING);
      }
    }
    if (document.querySelector(BUSY)) { if (M.busy === null) M.busy = now; M.live = null; }
    else if ((M.busy !== null || M.ran !== null) && M.live === null) M.live = now;
  }
  // the kernel's own word that its first run is over (build_site.KERNEL_MESSAGE / RUN_DONE):
  // with the page's thread busy for the whole run, the finished run is drawn in one go and no
  // busy mark is ever seen; live then counts from the message (checked once the page drew it)
  if (window.Worker) {
    const W = window.Worker;
    window.Worker = class extends W { constructor(...a) { super(...a);
      this.addEventListener('message', (ev) => {
        const d = ev.data && ev.data.data, m = d && d.id === 'kernelMessage' && d.payload && d.payload.message;
        if (M.ran === null && typeof m === 'string' && m.startsWith('{"op": "completed-run"')) {
          M.ran = performance.now(); setTimeout(check, 100);
        }
      }); } };
  }
  const start = () => new MutationObserver(check).observe(document, {subtree: true, childList: true,
    attributes: true, attributeFilter: ['class']});
  if (document.documentElement) start(); else document.addEventListener('readystatechange', start, {once: true});
})();"""
)

# A hash of every drawn Plotly chart's traces, titles and annotations, looked up through open
# shadow roots (marimo draws each chart inside one); null while no chart is drawn.
PLOT_HASH_JS = """() => {
  const plots = [];
  const walk = (root) => {
    root.querySelectorAll('.js-plotly-plot').forEach((e) => plots.push(e));
    for (const n of root.querySelectorAll('*')) if (n.shadowRoot) walk(n.shadowRoot);
  };
  walk(document);
  const drawn = plots.filter((e) => e.data);
  if (!drawn.length) return null;
  const s = JSON.stringify(drawn.map((e) => [
    e.data.map((t) => [t.x, t.y, t.text, t.name]),
    e.layout && e.layout.title, e.layout && e.layout.annotations,
  ]));
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}"""

STORAGE_JS = """async () => {
  const out = {localStorage: [], indexedDB: []};
  try { for (let i = 0; i < localStorage.length; i++) out.localStorage.push(localStorage.key(i)); }
  catch (e) { out.localStorageError = String(e); }
  if (!indexedDB.databases) return out;
  for (const info of await indexedDB.databases()) {
    try {
      const db = await new Promise((res, rej) => {
        const r = indexedDB.open(info.name); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error);
      });
      for (const store of Array.from(db.objectStoreNames)) {
        const keys = await new Promise((res, rej) => {
          const r = db.transaction(store, 'readonly').objectStore(store).getAllKeys();
          r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error);
        });
        for (const k of keys) out.indexedDB.push([info.name, store, String(k)]);
      }
      db.close();
    } catch (e) { out.indexedDB.push([info.name, '?', 'error: ' + e]); }
  }
  return out;
}"""


def ledger_entries(storage: dict) -> list[str]:
    """Storage entries whose key (or, for IDBFS file paths, the file name) starts with 'mlsysim'."""
    found = [
        f"localStorage:{k}" for k in storage.get("localStorage", []) if k.startswith("mlsysim")
    ]
    for db, store, key in storage.get("indexedDB", []):
        if key.startswith("mlsysim") or key.rsplit("/", 1)[-1].startswith("mlsysim"):
            found.append(f"indexedDB:{db}/{store}:{key}")
    return found


def is_external(url: str) -> bool:
    u = urlparse(url)
    return u.scheme in ("http", "https", "ws", "wss") and (u.hostname or "") not in LOCAL_HOSTS


# ------------------------------------------------------------------ server and site
class Served(tuple):
    """(path, status, bytes) of one file sent, ``.start``: when its first byte was sent, and
    ``.at``: when its last was."""

    def __new__(cls, path: str, status: int, n: int, start: float | None = None):
        row = super().__new__(cls, (path, status, n))
        row.at = time.time()
        row.start = row.at if start is None else start
        return row


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".json": "application/json",
        ".whl": "application/zip",
    }
    served: list  # (path, status, bytes), set per server

    def log_message(self, *args):
        pass

    def copyfile(self, source, outputfile):
        n, status, start = 0, 200, time.time()
        try:
            while chunk := source.read(64 * 1024):
                outputfile.write(chunk)
                n += len(chunk)
        except (ConnectionResetError, BrokenPipeError):
            status = 499  # the page was closed mid-transfer (e.g. during a preload): bytes sent
        self.served.append(Served(self.path.split("?", 1)[0], status, n, start))


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory) -> Path:
    """The offline site, built once per session (plus the control page at _control/)."""
    prebuilt = os.environ.get("MLSYSIM_SITE_DIR")
    if prebuilt:
        d = Path(prebuilt).resolve()
        assert (d / "index.html").is_file(), f"MLSYSIM_SITE_DIR={d} has no index.html"
    else:
        if shutil.which("uv") is None:
            pytest.skip(
                "uv not installed (marimo export html-wasm needs it): "
                "bash scripts/install_browser_deps.sh"
            )
        d = tmp_path_factory.mktemp("site")
        t = time.time()
        build_site.build_site(d, LABS_DIR, d / build_site.MIRROR_NAME, CACHE)
        print(f"site built in {time.time() - t:.1f}s")
    if not (d / CONTROL / "index.html").is_file():
        build_site.add_page(d, CONTROL_NB, CONTROL)
    return d


@pytest.fixture(scope="session")
def server(site_dir):
    """(base URL, served) where served lists (path, status, bytes) of every file sent."""
    served: list = []
    handler = type("H", (_Handler,), {"served": served})
    srv = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(site_dir))
    )
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}", served
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright not installed: bash scripts/install_browser_deps.sh")
    if not Path(CHROMIUM).exists():
        pytest.skip(
            f"{CHROMIUM} not found (Debian chromium; never downloaded): "
            "bash scripts/install_browser_deps.sh"
        )
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory) -> Path:
    d = Path(os.environ.get("MLSYSIM_ARTIFACTS") or tmp_path_factory.getbasetemp() / "artifacts")
    d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.fixture(scope="session")
def axe_js() -> str:
    try:
        return build_site.fetch_axe_core(CACHE).read_text(encoding="utf-8")
    except SystemExit as e:
        pytest.skip(f"axe-core unavailable: {e}")


@pytest.fixture(scope="session")
def metrics(request, tmp_path_factory):
    rows: dict = {}
    yield rows
    path = Path(
        os.environ.get("MLSYSIM_SITE_METRICS")
        or tmp_path_factory.getbasetemp() / "site-metrics.json"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    tr = request.config.pluginmanager.get_plugin("terminalreporter")
    cols = [
        ("content_s", 8.1),
        ("question_s", 8.1),
        ("behind_control_s", 8.2),
        ("first_run_behind_s", 8.2),
        ("chart_s", 8.2),
        ("slider_step_s", 8.3),
        ("MB_question", 8.1),
        ("requests", 6.0),
        ("duplicates", 5.0),
    ]
    lines = [
        f"site metrics -> {path}",
        f"{'page':<28}{'ok':>4}" + "".join(f"{c[:8]:>{w.__int__() + 2}}" for c, w in cols),
    ]
    for nb, m in sorted(rows.items()):
        vals = {
            **m,
            "MB_question": m.get("bytes_to_question", 0) / 1e6,
            "duplicates": len(m.get("duplicates", [])),
        }
        cells = []
        for c, w in cols:
            v = vals.get(c)
            fmt = f"{{:>{int(w) + 2}.{round((w % 1) * 10)}f}}"
            cells.append(fmt.format(v) if isinstance(v, int | float) else f"{'-':>{int(w) + 2}}")
        lines.append(f"{nb:<28}{'yes' if m.get('ok') else 'NO':>4}" + "".join(cells))
    capman = request.config.pluginmanager.get_plugin("capturemanager")
    with capman.global_and_fixture_disabled() if capman else contextlib.nullcontext():
        for line in lines:
            (tr.write_line(line) if tr else print(line))


# ------------------------------------------------------------------ one open page
class LabPage:
    """One notebook page in its own browser context: every request, console line and file served
    is recorded; requests outside 127.0.0.1/localhost are aborted and listed."""

    def __init__(
        self,
        browser,
        server,
        stem: str,
        *,
        color_scheme: str = "light",
        viewport: tuple[int, int] = (1280, 900),
        query: str = "",
        init_js: str = "",
    ):
        base, self._served = server
        self.stem = stem
        self.url = f"{base}/{stem}/{query}"
        self.requests: list[str] = []
        self.external: list[str] = []
        self.console: list[tuple[str, str]] = []
        self.http_errors: list[str] = []
        self.warnings: set[str] = set()
        self.ctx = browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]}, color_scheme=color_scheme
        )
        self.ctx.route("**/*", self._route)
        self.ctx.add_init_script(MARKS_JS)
        if init_js:  # a test's own script, run before the page's (after the marks)
            self.ctx.add_init_script(init_js)
        self.page = self.ctx.new_page()
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on(
            "response", lambda r: r.status >= 400 and self.http_errors.append(f"{r.status} {r.url}")
        )
        self.page.on("console", lambda msg: self.console.append((msg.type, msg.text)))
        self.page.on("pageerror", lambda e: self.console.append(("pageerror", str(e))))
        self.n0 = len(self._served)
        self.t0 = 0.0

    def _route(self, route):
        if is_external(route.request.url):
            self.external.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    def goto(self) -> LabPage:
        self.n0 = len(self._served)
        self.t0 = time.time()
        self.page.goto(self.url)
        return self

    def marks(self) -> dict:
        """The page's marks in seconds since navigation (None: not reached)."""
        m = self.page.evaluate("() => window.__mlsysim || {}")
        return {
            k: (round(v / 1000, 2) if isinstance(v, int | float) and k != "order" else v)
            for k, v in m.items()
        }

    def wait_live(self, timeout_s: float = TIMEOUT_S, quiet_ms: int = 400) -> float:
        """Seconds from navigation until the first prediction radio is visible and the kernel's
        first run is over (no output stale or loading for ``quiet_ms``)."""
        from playwright.sync_api import TimeoutError as PWTimeout

        deadline = time.time() + timeout_s
        try:
            self.page.locator(RADIO).filter(visible=True).first.wait_for(timeout=timeout_s * 1000)
        except PWTimeout as e:
            raise AssertionError(
                f"{self.stem}: no radio within {timeout_s:.0f}s; errors: {self.python_errors()}"
            ) from e
        while time.time() < deadline:
            live = self.page.evaluate(
                f"() => {{ const M = window.__mlsysim; return M && M.live !== null && "
                f"performance.now() - M.live > {quiet_ms} ? M.live : null; }}"
            )
            if live is not None:
                return round(live / 1000, 2)
            self.page.wait_for_timeout(100)
        raise AssertionError(
            f"{self.stem}: the kernel never finished its first run within "
            f"{timeout_s:.0f}s; marks: {self.marks()}; busy outputs: "
            f"{self.page.locator(BUSY).count()}; errors: {self.python_errors()}"
        )

    def mark_at(self, name: str) -> float | None:
        """Wall-clock time (``time.time()`` seconds, the server log's clock) of the first User
        Timing mark ``name`` set in any of the page's workers (Python runs in one), or None."""
        js = (
            "(n) => { const e = performance.getEntriesByName(n, 'mark')[0];"
            " return e ? performance.timeOrigin + e.startTime : null; }"
        )
        at = [w.evaluate(js, name) for w in self.page.workers]
        at = [a for a in at if a is not None]
        return min(at) / 1000 if at else None

    def served(self) -> list[tuple[str, int, int]]:
        # a transfer the previous page started (a preload cut short by closing it) can end
        # after this page's navigation: it is not this page's
        return [r for r in self._served[self.n0 :] if r.start >= self.t0]

    def slider_step(self, timeout_ms: int = 4_000) -> float | None:
        """Seconds from one ArrowRight on the first visible slider until a chart shows the new
        data (marimo re-runs the part; Plotly redraws). None when no slider is shown or the step
        changes no chart within ``timeout_ms``."""
        slider = self.page.locator("[role=slider]").filter(visible=True).first
        if not slider.count():
            return None
        before = self.page.evaluate(PLOT_HASH_JS)
        slider.focus()
        t = time.time()
        self.page.keyboard.press("ArrowRight")
        from playwright.sync_api import TimeoutError as PWTimeout

        try:
            self.page.wait_for_function(
                f"(h0) => {{ const h = ({PLOT_HASH_JS})(); return h !== null && h !== h0; }}",
                arg=before,
                polling="raf",
                timeout=timeout_ms,
            )
        except PWTimeout:
            return None  # this slider changes no chart (only cards or text)
        return round(time.time() - t, 3)

    def bytes_until(self, seconds: float) -> int:
        """Bytes sent for this page within ``seconds`` of navigation (e.g. until its question was
        live: what the page preloads afterwards, while the student reads, is not counted)."""
        return sum(r[2] for r in self._served_until(seconds))

    def paths_until(self, seconds: float) -> list[str]:
        """Paths sent for this page within ``seconds`` of navigation."""
        return [r[0] for r in self._served_until(seconds)]

    def _served_until(self, seconds: float) -> list[Served]:
        return [r for r in self.served() if r.at - self.t0 <= seconds]

    def duplicates(self) -> list[str]:
        c = collections.Counter(p for p, _, _ in self.served())
        return sorted(f"{p} x{n}" for p, n in c.items() if n > 1)

    def failed_installs(self) -> list[str]:
        return sorted({t[:300] for _, t in self.console if FAILED_INSTALL.search(t)})

    def python_errors(self) -> list[str]:
        errs = []
        stderr = [t for k, t in self.console if k != "pageerror" and "[STDERR]" in t]
        for kind, text in self.console:
            if kind == "pageerror":
                if BENIGN_PAGE_ERRORS.search(text):
                    self.warnings.add(text[:200])
                else:
                    errs.append(f"page error: {text[:300]}")
            elif "[STDERR]" in text and STDERR_ERROR.search(text):
                # marimo logs stderr a line per message: the traceback is the lines that follow
                i = stderr.index(text)
                lines = [t.split("]", 1)[-1].strip() for t in stderr[i : i + 40]]
                errs.append(f"python stderr: {' | '.join(lines)[:3000]}")
        dom = self.page.locator(ERROR_DOM)
        for i in range(min(dom.count(), 5)):
            if dom.nth(i).is_visible():
                errs.append(f"marimo error output: {dom.nth(i).inner_text()[:300]}")
        body = self.page.locator("body").inner_text()
        for hit in ERROR_TEXT.findall(body):
            errs.append(f"error text on page: {hit}")
        return sorted(set(errs))

    def offenders(self) -> list[str]:
        return sorted(set(self.external) | {u for u in self.requests if is_external(u)})

    def content_height(self) -> int:
        """The notebook's full height in px: marimo scrolls inside #App, not the document."""
        return int(
            self.page.evaluate(
                "() => { const a = document.querySelector('#App'); "
                "return a ? a.scrollHeight : document.documentElement.scrollHeight; }"
            )
        )

    def close(self):
        with contextlib.suppress(Exception):
            self.ctx.close()


@pytest.fixture
def open_notebook(browser, server):
    """``open_notebook(stem, color_scheme=, viewport=, query=, init_js=)`` -> a navigated LabPage."""
    opened: list[LabPage] = []

    def _open(stem: str, **kw) -> LabPage:
        lp = LabPage(browser, server, stem, **kw)
        opened.append(lp)
        return lp.goto()

    yield _open
    for lp in opened:
        lp.close()
