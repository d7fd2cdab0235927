"""Real-browser test of the WebAssembly site: every lab, offline, in headless Debian Chromium.

    bash scripts/install_browser_deps.sh          # once: chromium (apt), playwright, uv
    pytest -m browser tests/browser                # builds the offline site into a temp dir

Environment:
  MLSYSIM_LABS_DIR         notebooks to test (default <repo>/labs)
  MLSYSIM_SITE_DIR         use this prebuilt site (python scripts/build_site.py --offline-mirror)
                           instead of building one
  MLSYSIM_SITE_METRICS     where to write site-metrics.json (default: the pytest temp dir)
  MLSYSIM_BROWSER_TIMEOUT  seconds to wait for a page's first prediction question (default 120)
  MLSYSIM_CHROMIUM         browser binary (default /usr/bin/chromium; never downloaded)
  MLSYSIM_BROWSER_CACHE    download cache for the offline mirror (default <repo>/.browser-cache)

For every notebook it checks: the first prediction question (a radio) appears; no request
leaves 127.0.0.1/localhost (all are recorded, external ones are aborted and listed); no Python
error (marimo error output, traceback text, "[STDERR] Traceback" in the console, page errors);
clicking the first option unlocks a Plotly chart; the ledger (a localStorage key or an
IndexedDB record whose name starts with "mlsysim") exists after answering and survives a reload.
Time-to-first-interactive and bytes downloaded are written to site-metrics.json and printed.
"""

from __future__ import annotations

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

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import build_site  # noqa: E402

LABS_DIR = Path(os.environ.get("MLSYSIM_LABS_DIR", ROOT / "labs")).resolve()
CHROMIUM = os.environ.get("MLSYSIM_CHROMIUM", "/usr/bin/chromium")
TIMEOUT_S = float(os.environ.get("MLSYSIM_BROWSER_TIMEOUT", "120"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}
RADIO = "[role=radio], input[type=radio]"
PLOT = ".js-plotly-plot"
ERROR_DOM = ".marimo-error, [data-testid=error-output], .traceback"
ERROR_TEXT = re.compile(r"Traceback \(most recent call last\)|An internal error occurred")
# marimo's frontend rejects a worker RPC after 20 s; on a loaded 2-core machine a slow package load
# triggers it with no effect on the page: recorded in the metrics as a warning, not a failure
BENIGN_PAGE_ERRORS = re.compile(r"^RPC request timed out")
STDERR_ERROR = re.compile(r"Traceback \(most recent call last\)|^\w*(Error|Exception)\b.*:", re.M)
# student labs only: the instructor notebook has no prediction (tests/browser/test_reports.py)
NOTEBOOKS = [p for p in (build_site.list_notebooks(LABS_DIR) if LABS_DIR.is_dir() else []) if p.name != "instructor.py"]

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


# ------------------------------------------------------------------ fixtures
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
        n = 0
        while chunk := source.read(64 * 1024):
            outputfile.write(chunk)
            n += len(chunk)
        self.served.append((self.path, 200, n))


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory) -> Path:
    prebuilt = os.environ.get("MLSYSIM_SITE_DIR")
    if prebuilt:
        d = Path(prebuilt).resolve()
        assert (d / "index.html").is_file(), f"MLSYSIM_SITE_DIR={d} has no index.html"
        return d
    if shutil.which("uv") is None:
        pytest.skip(
            "uv not installed (marimo export html-wasm needs it): bash scripts/install_browser_deps.sh"
        )
    out = tmp_path_factory.mktemp("site")
    cache = Path(os.environ.get("MLSYSIM_BROWSER_CACHE", ROOT / ".browser-cache")).resolve()
    t = time.time()
    build_site.build_site(out, LABS_DIR, out / build_site.MIRROR_NAME, cache)
    print(f"site built in {time.time() - t:.1f}s")
    return out


@pytest.fixture(scope="session")
def server(site_dir):
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
            f"{CHROMIUM} not found (Debian chromium; never downloaded): bash scripts/install_browser_deps.sh"
        )
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


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
    lines = [
        f"site metrics -> {path}",
        f"{'notebook':<32}{'ok':>4}{'tti_s':>8}{'chart_s':>9}{'reload_s':>10}{'MB_tti':>8}{'reqs':>6}",
    ]
    for nb, m in sorted(rows.items()):
        lines.append(
            f"{nb:<32}{'yes' if m['ok'] else 'NO':>4}{m.get('tti_s', float('nan')):>8.1f}"
            f"{m.get('chart_s', float('nan')):>9.1f}{m.get('reload_tti_s', float('nan')):>10.1f}"
            f"{m.get('bytes_to_interactive', 0) / 1e6:>8.1f}{m.get('requests', 0):>6}"
        )
    capman = request.config.pluginmanager.get_plugin("capturemanager")
    with capman.global_and_fixture_disabled() if capman else contextlib.nullcontext():
        for line in lines:
            (tr.write_line(line) if tr else print(line))


# ------------------------------------------------------------------ the test
def test_labs_found():
    assert NOTEBOOKS, f"no notebooks in {LABS_DIR} (labs/*.py not starting with '_')"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_in_browser(nb, site_dir, server, browser, metrics, tmp_path_factory):
    from playwright.sync_api import TimeoutError as PWTimeout

    base, served = server
    stem = nb.stem
    assert (site_dir / stem / "index.html").is_file(), f"site has no page for {nb.name}: rebuild it"
    url = f"{base}/{stem}/"
    problems: list[str] = []
    requests: list[str] = []
    external: list[str] = []
    console: list[tuple[str, str]] = []
    warnings: set[str] = set()
    m = {"ok": False, "url": url}
    metrics[stem] = m

    ctx = browser.new_context(viewport={"width": 1280, "height": 900})

    def on_route(route):
        u = route.request.url
        host = urlparse(u).hostname or ""
        if urlparse(u).scheme in ("http", "https", "ws", "wss") and host not in LOCAL_HOSTS:
            external.append(u)
            route.abort()
        else:
            route.continue_()

    ctx.route("**/*", on_route)
    page = ctx.new_page()
    page.on("request", lambda r: requests.append(r.url))
    local_4xx: list[str] = []
    page.on("response", lambda r: r.status >= 400 and local_4xx.append(f"{r.status} {r.url}"))
    page.on("console", lambda msg: console.append((msg.type, msg.text)))
    page.on("pageerror", lambda e: console.append(("pageerror", str(e))))

    def python_errors() -> list[str]:
        errs = []
        for kind, text in console:
            if kind == "pageerror":
                if BENIGN_PAGE_ERRORS.search(text):
                    warnings.add(text[:200])
                else:
                    errs.append(f"page error: {text[:300]}")
            elif "[STDERR]" in text and STDERR_ERROR.search(text):
                errs.append(f"python stderr: {text.split(']', 1)[-1].strip()[:600]}")
        dom = page.locator(ERROR_DOM)
        for i in range(min(dom.count(), 5)):
            if dom.nth(i).is_visible():
                errs.append(f"marimo error output: {dom.nth(i).inner_text()[:300]}")
        body = page.locator("body").inner_text()
        for hit in ERROR_TEXT.findall(body):
            errs.append(f"error text on page: {hit}")
        return sorted(set(errs))

    shot = tmp_path_factory.getbasetemp() / f"{stem}.png"
    try:
        n0 = len(served)
        t0 = time.time()
        page.goto(url)
        radio = page.locator(RADIO).filter(visible=True).first
        try:
            radio.wait_for(timeout=TIMEOUT_S * 1000)
            ready = True
        except PWTimeout:
            ready = False
        if not ready:
            errs = python_errors()
            pytest.fail(
                f"{nb.name}: no prediction question (radio) within {TIMEOUT_S:.0f}s"
                + (f"; errors: {errs}" if errs else "")
                + (f"; external requests: {sorted(set(external))}" if external else "")
            )
        m["tti_s"] = round(time.time() - t0, 2)
        m["bytes_to_interactive"] = sum(b for _, _, b in served[n0:])
        top = sorted(served[n0:], key=lambda r: -r[2])[:8]
        m["largest_downloads"] = [f"{b / 1e6:.1f} MB {path}" for path, _, b in top]
        page.wait_for_timeout(1000)  # let the remaining cells of the first pass settle
        problems += python_errors()

        t1 = time.time()
        radio.click()
        try:
            page.locator(PLOT).filter(visible=True).first.wait_for(timeout=60_000)
            m["chart_s"] = round(time.time() - t1, 2)
            page.screenshot(path=str(shot.with_name(f"{stem}-answered.png")), full_page=True)
        except PWTimeout:
            problems.append(
                "no Plotly chart (.js-plotly-plot) appeared within 60s of answering "
                "the first prediction question"
            )
        m["bytes"] = sum(b for _, _, b in served[n0:])
        m["requests"] = len(requests)

        # the ledger: written after answering, still there after a reload
        entries: list[str] = []
        deadline = time.time() + 20
        while time.time() < deadline:
            entries = ledger_entries(page.evaluate(STORAGE_JS))
            if entries:
                break
            page.wait_for_timeout(500)
        if not entries:
            problems.append(
                "no ledger after answering: no localStorage key / IndexedDB record "
                "starting with 'mlsysim'"
            )
        m["ledger_before_reload"] = entries
        problems += python_errors()

        t2 = time.time()
        page.reload()
        try:
            page.locator(RADIO).filter(visible=True).first.wait_for(timeout=TIMEOUT_S * 1000)
            m["reload_tti_s"] = round(time.time() - t2, 2)
        except PWTimeout:
            problems.append(f"after reload: no prediction question within {TIMEOUT_S:.0f}s")
        after = ledger_entries(page.evaluate(STORAGE_JS))
        m["ledger_after_reload"] = after
        if entries and not after:
            problems.append(f"ledger lost on reload (before: {entries})")
        page.wait_for_timeout(1000)
        problems += python_errors()
    finally:
        try:
            page.screenshot(path=str(shot), full_page=True)
            m["screenshot"] = str(shot)
        except Exception:  # noqa: BLE001 - a screenshot is a courtesy
            pass
        ctx.close()

    offenders = sorted(
        set(external)
        | {
            u
            for u in requests
            if urlparse(u).scheme in ("http", "https", "ws", "wss")
            and (urlparse(u).hostname or "") not in LOCAL_HOSTS
        }
    )
    if offenders:
        problems.append(
            f"{len(offenders)} request(s) outside 127.0.0.1/localhost: " + ", ".join(offenders[:20])
        )
    m["external_requests"] = offenders
    m["http_errors"] = sorted(
        set(local_4xx)
    )  # informational: a missing wheel also shows as an import error
    m["warnings"] = sorted(warnings)
    m["problems"] = sorted(set(problems))
    m["ok"] = not problems
    assert not problems, f"{nb.name} ({url}):\n  - " + "\n  - ".join(sorted(set(problems)))
