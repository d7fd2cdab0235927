#!/usr/bin/env python
"""Build the browser (WebAssembly) site of the labs.

    python scripts/build_site.py [--out site] [--labs-dir labs] [--offline-mirror [DIR]]
                                 [--cache-dir .browser-cache]

1. builds the mlsysim wheel (scripts/build_wheel.py -> wheels/mlsysim-<v>-py3-none-any.whl);
2. exports every labs/*.py (files starting with `_` skipped) with
   `marimo export html-wasm --mode run` into <out>/<stem>/   (needs `uv` on PATH);
3. keeps marimo's frontend once for every page in <out>/assets/ (``share_assets``) and the
   wheel once in <out>/wheels/<wheel> + wheels/mlsysim.json (the install rule: see docs/browser-site.md,
   'The install rule');
4. writes <out>/index.html listing the labs in labs/README.md's order (title: first `# ` heading in an
   mo.md, else App(app_title=...), else the first heading, else the file name);
5. with --offline-mirror: builds a local Pyodide mirror (npm pyodide@<marimo's PYODIDE_VERSION>,
   pinned wasm/pure wheels from PyPI, a hand-built pyodide-lock.json, a PEP 503 simple/ index)
   in DIR (default <out>/_pyodide-mirror; a DIR outside <out> is symlinked in as
   <out>/_pyodide-mirror) and points every page at it through the <marimo-wasm> data-*
   attributes, so the site makes no request outside its own origin.  MathJax, which marimo's
   plotly renderer always loads from jsDelivr, is vendored from the npm tarball mathjax-full
   and the URL is rewritten inside each page's assets/*.js.
   Downloads are cached in --cache-dir (default $MLSYSIM_BROWSER_CACHE or .browser-cache).

Without --offline-mirror the pages use marimo's defaults (Pyodide from the jsDelivr CDN,
marimo's lockfile, PyPI) and only the mlsysim wheel is served by the site itself.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Collection, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_wheel  # noqa: E402


def _browser_later() -> dict[str, str]:
    """``LATER`` of mlsysim/labs/browser.py (read, not imported: building needs no mlsysim)."""
    tree = ast.parse((ROOT / "mlsysim" / "labs" / "browser.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "LATER":
            return ast.literal_eval(node.value)
    raise SystemExit("mlsysim/labs/browser.py defines no LATER")


#: packages a page loads after its first question (mlsysim.labs.browser): module -> package
LATER = _browser_later()

#: Pages whose first run needs some of ``LATER`` at once: the instructor page reads the class's
#: reports (pydantic). Their headers keep those packages, so Pyodide loads them with marimo,
#: before the kernel starts, instead of on first import. (byom's cards before its first question
#: read the model's config, not its layers: ``mlsysim.models`` imports the layers on first use.)
AT_ONCE: dict[str, tuple[str, ...]] = {"instructor": ("pydantic",)}


def page_later(stem: str) -> list[str]:
    """The packages the page ``stem`` loads after its first question."""
    return [p for p in LATER.values() if p not in AT_ONCE.get(stem, ())]


#: The site keeps the wheel in <out>/wheels/, plus a manifest (name, version, file, sha256).
#: Without the offline mirror the notebooks' boot cell installs <site>/wheels/<wheel>: the site's
#: URL is the web worker's (<site>/assets/worker-*.js, SHARED_ASSETS) cut at "/assets/"
#: (relative URLs resolve against the worker, not the page).
WHEEL_DIR = "wheels"
MANIFEST = "mlsysim.json"

MIRROR_NAME = "_pyodide-mirror"

# Pyodide version -> (wheel platform tag, python version, abi).  Must match marimo's PYODIDE_VERSION.
PYODIDE_ABI = {"314.0.0": ("pyemscripten_2026_0_wasm32", "3.14", "cp314")}

# Exact pins => the mirror is the same every time.  marimo-base is added with marimo's own version
# (it must equal the bundled frontend).  pydantic-core and msgspec are real wasm wheels on PyPI;
# the rest is pure Python.  PyYAML (needed by marimo-base) has no wasm wheel: it is repackaged
# from its pure-Python sources (PYYAML_VERSION).
WASM_WHEELS = [
    # marimo runtime in the worker
    "micropip==0.11.1",
    "msgspec==0.23.0",
    "markdown==3.11.3",
    "pymdown-extensions==11.0.2",
    "narwhals==2.29.0",
    "packaging==26.4",
    "docutils==0.23",
    "pygments==2.21.0",
    "jedi==0.20.1",
    "parso==0.8.7",
    "pyodide-http==0.2.2",
    "tomlkit==0.15.2",
    "python-multipart==0.0.34",
    "itsdangerous==2.2.0",
    # formatter bits some marimo code paths import
    "black==26.10.1",
    "click==8.5.1",
    "mypy-extensions==1.2.0",
    "pathspec==1.1.1",
    "pytokens==0.4.1",
    "platformdirs==4.14.9",
    # mlsysim's required deps (pyproject: pint, pydantic, plotly) and theirs
    "pydantic==2.14.4",
    "pydantic-core==2.50.5",
    "typing-extensions==4.16.0",
    "annotated-types==0.8.0",
    "typing-inspection==0.4.5",
    "pint==0.26.2",
    "flexcache==0.3",
    "flexparser==0.4",
    "plotly==7.1.0",
]
PYYAML_VERSION = "6.0.3"
PYODIDE_CORE_FILES = [
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide.js",
]


def log(msg: str) -> None:
    print(f"[build_site] {msg}", flush=True)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-6000:] + "\n" + proc.stderr[-6000:] + "\n")
        raise SystemExit(f"command failed (rc={proc.returncode}): {' '.join(map(str, cmd))}")
    return proc


# ---------------------------------------------------------------- notebooks
def list_notebooks(labs_dir: Path) -> list[Path]:
    """In the order labs/README.md's map lists them (files it does not name go last, by name)."""
    found = sorted(p for p in labs_dir.glob("*.py") if not p.name.startswith("_"))
    readme = labs_dir / "README.md"
    listed = (
        re.findall(r"`([\w.-]+\.py)`", readme.read_text(encoding="utf-8"))
        if readme.exists()
        else []
    )
    rank = {name: i for i, name in reversed(list(enumerate(listed)))}
    return sorted(found, key=lambda p: (rank.get(p.name, len(rank)), p.name))


def notebook_title(path: Path) -> str:
    """A level-1 markdown heading in an mo.md(...) string, else App(app_title=...), else the
    first markdown heading of any level, else the file name."""
    src = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(src)
    except SyntaxError:
        tree = None
    app_title = None
    headings: list[tuple[int, int, int, str]] = []  # (lineno, col, level, text)
    if tree is not None:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if fname == "App":
                for kw in node.keywords:
                    if kw.arg == "app_title" and isinstance(kw.value, ast.Constant):
                        app_title = str(kw.value.value).strip() or None
            if fname != "md" or not node.args:
                continue
            a = node.args[0]
            text = None
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                text = a.value
            elif isinstance(a, ast.JoinedStr):
                text = "".join(
                    v.value
                    for v in a.values
                    if isinstance(v, ast.Constant) and isinstance(v.value, str)
                )
            for line in (text or "").splitlines():
                m = re.match(r"\s*(#{1,6})\s+(.+?)\s*#*\s*$", line)
                if m:
                    clean = re.sub(r"[*_`]", "", m.group(2)).strip()
                    headings.append((node.lineno, node.col_offset, len(m.group(1)), clean))
    headings.sort()
    for *_, level, text in headings:
        if level == 1:
            return text
    if app_title:
        return app_title
    if headings:
        return headings[0][3]
    return path.stem.replace("_", " ").strip().capitalize()


def export_notebook(
    nb: Path, out_dir: Path, lockfile: Path | None = None, prerender: bool = True
) -> None:
    """``marimo export html-wasm --mode run``; with ``lockfile`` (the mirror's pyodide-lock.json)
    marimo pins the notebook's PEP 723 dependencies to the versions that lockfile serves (without
    it marimo asks wasm.marimo.app and, offline, falls back to the build machine's versions: the
    pages then ask for wheels the mirror does not have). ``prerender`` (``--execute``) runs the
    notebook once, locked, and embeds its outputs: the header and the parts' introductions show
    while Pyodide boots (nothing gated is in them: a locked part shows only its note)."""
    if shutil.which("uv") is None:
        raise SystemExit(
            "`marimo export html-wasm` needs `uv` on PATH: pip install uv "
            "(or run scripts/install_browser_deps.sh)"
        )
    if out_dir.exists():
        shutil.rmtree(out_dir)
    env = dict(os.environ)
    if lockfile is not None:
        env["MARIMO_PYODIDE_LOCK_FILE"] = str(lockfile)
    # the pre-render imports mlsysim from this checkout and must not read the builder's ledger
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    ledger_tmp = Path(tempfile.mkdtemp(prefix="mlsysim-build-ledger-"))
    env["MLSYSIM_DATA_DIR"] = str(ledger_tmp)
    cmd = [
        sys.executable,
        "-m",
        "marimo",
        "export",
        "html-wasm",
        str(nb.resolve()),
        "-o",
        str(out_dir),
        "--mode",
        "run",
        "-f",
    ]
    if prerender:
        cmd += ["--execute", "--no-sandbox"]
    try:
        run(cmd, cwd=nb.parent, env=env)
    finally:
        shutil.rmtree(ledger_tmp, ignore_errors=True)
    if not (out_dir / "index.html").is_file():
        raise SystemExit(f"marimo export produced no index.html for {nb}")
    stray = out_dir / "CLAUDE.md"  # shipped inside marimo's _static; not part of the site
    if stray.exists():
        stray.unlink()
    set_page_theme(out_dir)
    add_boot_line(out_dir)


#: Injected into every exported page: (1) a styled loading line at the top that says what is
#: happening while Python boots, and the pre-rendered widgets held (dimmed, not clickable) until
#: marimo's first run is over, so an early click is never silently lost; (2) chart text that
#: follows marimo's theme: marimo draws each Plotly chart inside an (open) shadow root the page's
#: CSS cannot reach, so a stylesheet is adopted into each one.
BOOT_MARK = "<!-- mlsysim-boot -->"
BOOT_HTML = (
    BOOT_MARK
    + """
<style>
#ms-boot { position: fixed; top: 0; left: 0; right: 0; z-index: 1000; padding: 8px 16px;
  font: 600 14px/1.4 system-ui, sans-serif; background: #1e3a8a; color: #ffffff;
  text-align: center; box-shadow: 0 1px 4px rgba(0,0,0,.25); }
#ms-boot[hidden] { display: none; }
html.ms-booting .output-area marimo-ui-element { pointer-events: none; opacity: .55; }
</style>
<div id="ms-boot" role="status" aria-live="polite">Starting Python in your browser&hellip; you can
read on; the questions become active in a few seconds.</div>
<script>
(() => {
  const root = document.documentElement, line = document.getElementById('ms-boot');
  root.classList.add('ms-booting');
  const BUSY = '.marimo-output-stale, .marimo-output-loading, .running-app-icon';
  let seen = false, quiet = null;
  // the Python worker is told when the student can answer (kit.warm_up starts its package loads
  // that long after, never while the page is still drawing the first run: on a busy machine
  // the page goes live seconds after the kernel's first run, and an answer given at once fell
  // into the warm-up); marimo ignores messages without its transport id
  const workers = [];
  // the kernel's first run is over when its worker says so (marimo's "completed-run" message,
  // KERNEL_MESSAGE and RUN_DONE in build_site.py, checked against the export): the outputs'
  // busy marks alone missed it when the page's thread was busy for the whole run (two tabs
  // booting on a loaded machine): the page drew the finished run in one go, no busy mark was
  // ever seen, and the questions stayed inactive until the 180 s fallback
  let ran = false;
  const heard = (ev) => {
    const d = ev.data && ev.data.data, m = d && d.id === 'kernelMessage' && d.payload && d.payload.message;
    if (!ran && typeof m === 'string' && m.startsWith('{"op": "completed-run"')) {
      ran = true; setTimeout(settle, 100);
    }
  };
  if (window.Worker) {
    const W = window.Worker;
    window.Worker = class extends W {
      constructor(...a) { super(...a); workers.push(this); this.addEventListener('message', heard); }
    };
  }
  // while Python boots in its worker (seconds of work on another thread, the page's own thread
  // all but idle), once the lab's pre-rendered header is on the screen (warmAtBoot, below): load
  // the chart code marimo would load on the first chart (its Plotly chunk, and the MathJax
  // script its plugin waits for), from the same URLs, so the first answer does not wait for them
  // (data-warm-*: set by build_site.py). Loaded after the question went live
  // instead, it held the page's thread just when an answer given at once came back: that
  // answer's chart showed 2.8-3.5 s after its verdict, 1.3-2.1 s with the load at boot (issue 35)
  const warm = () => {
    const w = line.dataset;
    if (w.warmScript && !document.querySelector(`script[src="${w.warmScript}"]`)) {
      const s = document.createElement('script');
      s.src = w.warmScript; s.async = true; s.dataset.status = 'loading';
      s.addEventListener('load', () => { s.dataset.status = 'ready'; });
      s.addEventListener('error', () => { s.dataset.status = 'error'; });
      document.body.append(s);
    }
    if (w.warmModule) {
      import(w.warmModule).then(warmChart, (e) => console.warn('chart code preload:', e));
    }
  };
  // then draw one small chart nobody sees (hidden, inert, in a closed shadow root: no test or
  // screen reader finds it) and remove it: Plotly's first draw on a page sets itself up (~0.4 s
  // on a 2-core machine), and this way the student's first answer does not pay for it
  const WARM_FIGURE = {
    data: [
      {type: 'scatter', x: [1, 10, 100], y: [1, 5, 2], mode: 'lines+markers+text', name: 'a',
       text: ['a', 'b', 'c'], textposition: 'top center'},
      {type: 'bar', x: [1, 10], y: [2, 3], name: 'b'},
    ],
    layout: {
      title: {text: 'warm-up'}, height: 360, legend: {orientation: 'h'},
      xaxis: {type: 'log', title: {text: 'x'}, tickvals: [1, 10, 100], ticktext: ['1', '10', '100']},
      yaxis: {title: {text: 'y'}},
      shapes: [{type: 'line', xref: 'x domain', x0: 0, x1: 1, yref: 'y', y0: 4, y1: 4,
                line: {dash: 'dot'}}],
      annotations: [{text: 'line', xref: 'x domain', x: 0, yref: 'y', y: 4, showarrow: false}],
    },
  };
  const warmChart = () => {
    if (!customElements.get('marimo-plotly')) return;
    const host = document.createElement('div');
    host.style.cssText = 'position: fixed; left: 0; top: 0; width: 640px; height: 360px; ' +
      'visibility: hidden; pointer-events: none; z-index: -1; contain: strict';
    host.setAttribute('aria-hidden', 'true');
    host.inert = true;
    const el = document.createElement('marimo-plotly');
    el.setAttribute('data-initial-value', '{}');
    el.setAttribute('data-label', 'null');
    el.setAttribute('data-config', '{}');
    el.setAttribute('data-figure', JSON.stringify(WARM_FIGURE));
    host.attachShadow({mode: 'closed'}).append(el);
    document.body.append(host);
    let tries = 0;
    const check = () => {
      const drawn = el.shadowRoot && el.shadowRoot.querySelector('.main-svg');
      if (drawn) performance.mark('mlsysim:warm-chart');
      if (drawn || ++tries > 400) host.remove(); else setTimeout(check, 25);
    };
    check();
  };
  let finished = false;  // done runs once: on the first run's end, or at the 180 s fallback
  const done = () => {
    if (finished) return;
    finished = true;
    root.classList.remove('ms-booting'); line.hidden = true; obs.disconnect();
    workers.forEach((w) => { try { w.postMessage({mlsysim: 'live'}); } catch (e) { /* gone */ } });
    // the chart code is loaded at boot (above); should it not be by now (no header seen), a
    // while after the question goes live, not at once: parsing it (4.6 MB) holds the page's
    // thread, and a student who answers at once would wait for it before the click even reaches
    // Python (issue 35); the first click or key before then puts it off once more, so that the
    // verdict is drawn first
    let timer = setTimeout(warmOnce, WARM_AFTER_LIVE_MS);
    const putOff = () => {
      ['pointerdown', 'keydown'].forEach((t) => document.removeEventListener(t, putOff, true));
      if (warmed) return;
      clearTimeout(timer); timer = setTimeout(warmOnce, WARM_AFTER_ANSWER_MS);
    };
    ['pointerdown', 'keydown'].forEach((t) => document.addEventListener(t, putOff, true));
  };
  const WARM_AFTER_LIVE_MS = 2500, WARM_AFTER_ANSWER_MS = 500, WARM_AT_BOOT_MS = 500;
  let warmed = false;
  const warmOnce = () => { if (!warmed) { warmed = true; warm(); } };
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(":host-context(.dark) .main-svg :is(.xtick, .ytick, .g-xtitle, .g-ytitle, " +
    ".legendtext, .annotation-text, .textpoint) text, :host-context(.dark) .main-svg " +
    ":is(.gtitle, .legendtext, .annotation-text) { fill: #cbd5e1 !important; }");
  // marimo lays an inline radio's options out as grid columns that never wrap: on a phone each
  // label is squeezed into a column and broken mid-word ("FP32 (4 / B)"); let whole options wrap
  const radios = new CSSStyleSheet();
  radios.replaceSync("[role=radiogroup].grid-flow-col { display: flex; flex-wrap: wrap; " +
    "column-gap: 1rem; row-gap: .375rem; } [role=radiogroup].grid-flow-col label { white-space: nowrap; }");
  const adopt = (sel, s) => document.querySelectorAll(sel).forEach((el) => {
    const sr = el.shadowRoot;
    if (sr && !sr.adoptedStyleSheets.includes(s)) sr.adoptedStyleSheets = [...sr.adoptedStyleSheets, s];
  });
  // a chart keeps the height its figure asks for: the kit gives every figure a height and no
  // width, and Plotly's resize (on any window resize) deletes the layout's height when the width
  // is unset, sizing the plot from its container, which is 0 px tall inside marimo's element:
  // the chart collapsed and cards drew over it (seen going from phone to desktop width)
  const figHeights = new WeakMap();
  const sizeCharts = () => document.querySelectorAll('marimo-plotly').forEach((el) => {
    const fig = el.getAttribute('data-figure');
    let known = figHeights.get(el);
    if (!known || known.fig !== fig) {
      let height = null;
      try { height = JSON.parse(fig).layout.height; } catch (e) { height = null; }
      known = {fig, height: Number.isFinite(height) && height > 0 ? height : null};
      figHeights.set(el, known);
    }
    const gd = el.shadowRoot && el.shadowRoot.querySelector('.js-plotly-plot');
    if (gd && known.height && gd.style.height !== `${known.height}px`) gd.style.height = `${known.height}px`;
  });
  window.addEventListener('resize', sizeCharts, true);
  // a figure's phone variant (mlsysim.labs.charts.phone_variant: a patch kept in its
  // layout.meta, the same keys replaced whole) drawn on a page at most 640 px wide
  // (charts.PHONE_VIEWPORT_PX): Plotly has no layout per width and marimo draws the figure it is
  // given, so the kit puts both in the figure and the page, which knows its width, picks one
  const PHONE = window.matchMedia('(max-width: 640px)');
  const variants = new WeakMap();  // element -> {own: the figure the kernel sent, phone: its variant}
  const pickVariant = (el) => {
    const fig = el.getAttribute('data-figure');
    if (!fig) return;
    let v = variants.get(el);
    if (!v || (fig !== v.own && fig !== v.phone)) {  // a new figure from the kernel
      let spec = null;
      try { spec = JSON.parse(fig); } catch (e) { return; }
      const patch = spec && spec.layout && spec.layout.meta && spec.layout.meta['mlsysim-phone'];
      let phone = null;
      if (patch) {
        Object.assign(spec.layout, patch.layout || {});
        for (const [i, keys] of Object.entries(patch.data || {})) {
          if (spec.data && spec.data[+i]) Object.assign(spec.data[+i], keys);
        }
        phone = JSON.stringify(spec);
      }
      v = {own: fig, phone};
      variants.set(el, v);
    }
    const want = v.phone && PHONE.matches ? v.phone : v.own;
    if (fig !== want) el.setAttribute('data-figure', want);
  };
  const pickVariants = () => document.querySelectorAll('marimo-plotly').forEach(pickVariant);
  PHONE.addEventListener('change', pickVariants);
  new MutationObserver((recs) => recs.forEach((r) => {
    if (r.target.tagName === 'MARIMO-PLOTLY') pickVariant(r.target);
  })).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-figure']});
  const theme = () => {
    pickVariants(); adopt('marimo-plotly', sheet); adopt('marimo-radio', radios); sizeCharts();
  };
  // the chart code's load at boot starts once the page shows the lab's header (the pre-rendered
  // h1) and marimo has started its worker: started with the worker, it held the page's thread
  // before the first paint, and the header showed seconds late on a busy machine
  let bootWarm = null;
  const warmAtBoot = () => {
    if (warmed || bootWarm !== null || !workers.length) return;
    const h1 = document.querySelector('.output-area h1');
    if (h1 && h1.getClientRects().length) bootWarm = setTimeout(warmOnce, WARM_AT_BOOT_MS);
  };
  function settle() {
    if (document.querySelector(BUSY)) { seen = true; clearTimeout(quiet); quiet = null; }
    else if ((seen || ran) && quiet === null) quiet = setTimeout(done, 300);
  }
  const obs = new MutationObserver(() => { theme(); warmAtBoot(); settle(); });
  obs.observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ['class']});
  new MutationObserver(theme).observe(document, {subtree: true, childList: true});
  setTimeout(done, 180000);  // never hold the page for good
})();
</script>
"""
)


#: marimo's lazily loaded Plotly renderer chunk and the MathJax script its plugin waits for,
#: as the page's own JavaScript names them (``./Plot-<hash>.js``; the MathJax URL after the
#: mirror rewrite).
PLOT_CHUNK = re.compile(r"`\./(Plot-[A-Za-z0-9_-]+\.js)`")
MATHJAX_SRC = re.compile(r"`([^`\s]*mathjax[^`\s]*\.js)`")


#: What the boot script listens for on marimo's worker to know the kernel's first run is over:
#: the worker wraps each kernel message as ``{id: "kernelMessage", payload: {message: <JSON
#: text>}}``, and the run's end is the op ``completed-run``. Both are marimo internals, so the
#: build checks the exported frontend still uses them (``check_run_signal``).
KERNEL_MESSAGE = "kernelMessage"
RUN_DONE = "completed-run"


def check_run_signal(page: Path) -> None:
    """Fail the build if the page's marimo frontend no longer names the worker message and the
    kernel op the boot script waits for (a marimo upgrade that renamed them would leave every
    question inactive until the boot script's 180 s fallback)."""
    names = {KERNEL_MESSAGE: False, RUN_DONE: False}
    for js in sorted((page / "assets").glob("*.js")):
        text = js.read_text(encoding="utf-8", errors="surrogateescape")
        for name in names:
            names[name] = names[name] or f"`{name}`" in text
        if all(names.values()):
            break
    missing = [n for n, ok in names.items() if not ok]
    if missing:
        raise SystemExit(f"{page}: marimo's frontend no longer names {missing} (marimo changed?)")
    boot = (page / "index.html").read_text(encoding="utf-8")
    if BOOT_MARK in boot and any(n not in boot for n in names):
        raise SystemExit(f"{page}: the boot script does not listen for {list(names)}")


def set_warm_assets(page: Path) -> dict[str, str]:
    """Tell the boot script which chart code to preload once the first run is over (the
    ``data-warm-module`` / ``data-warm-script`` attributes of the loading line); run after
    ``point_page_at_mirror``, whose MathJax URL it copies. Returns what it set."""
    idx = page / "index.html"
    s = idx.read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for js in sorted((page / "assets").glob("*.js")):
        text = js.read_text(encoding="utf-8", errors="surrogateescape")
        if "Plot-" not in text or "mathjax" not in text:
            continue
        plot, mj = PLOT_CHUNK.search(text), MATHJAX_SRC.search(text)
        if plot and mj:
            found = {
                "data-warm-module": f"./assets/{plot.group(1)}",
                "data-warm-script": mj.group(1),
            }
            break
    tag = '<div id="ms-boot"'
    if not found or tag not in s:
        return {}
    s = re.sub(r'(<div id="ms-boot")(?: data-warm-[a-z]+="[^"]*")*', r"\1", s, count=1)
    attrs = "".join(f' {k}="{html.escape(v)}"' for k, v in found.items())
    idx.write_text(s.replace(tag, tag + attrs, 1), encoding="utf-8")
    return found


def add_boot_line(page: Path) -> None:
    idx = page / "index.html"
    s = idx.read_text(encoding="utf-8")
    if BOOT_MARK in s:
        return
    if "</body>" not in s:
        raise SystemExit(f"{idx}: no </body> (marimo export changed?)")
    idx.write_text(s.replace("</body>", BOOT_HTML + "</body>", 1), encoding="utf-8")


#: The page follows the student's system theme (marimo's "system"), and the kit's CSS and chart
#: text follow marimo's resolved theme (its ``.dark`` class): one theme source.
PAGE_THEME = "system"


def set_page_theme(page: Path, theme: str = PAGE_THEME) -> None:
    idx = page / "index.html"
    s = idx.read_text(encoding="utf-8")
    new, n = re.subn(r'"theme": "(light|dark|system)"', f'"theme": "{theme}"', s)
    if n == 0:
        raise SystemExit(f"{idx}: no display theme in the mount config (marimo export changed?)")
    idx.write_text(new, encoding="utf-8")


_HEADER_DEPS = re.compile(r"# dependencies = (\[.*?\])\n")


def _embedded_header(idx: Path, s: str) -> re.Match | None:
    """The ``# dependencies = [...]`` line of the notebook code marimo embedded in the page
    text ``s`` (of ``idx``), None when the notebook has no such header."""
    m = re.search(r'notebookCode: (".*?"),\n', s)
    if not m:
        raise SystemExit(f"{idx}: no embedded notebook code (marimo export changed?)")
    return _HEADER_DEPS.search(json.loads(m.group(1)))


def page_pins(page: Path) -> dict[str, str]:
    """The ``name==version`` pins of the PEP 723 header marimo embedded in an exported page
    (what micropip installs before the first cell), canonical name -> version."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    idx = page / "index.html"
    d = _embedded_header(idx, idx.read_text(encoding="utf-8"))
    pins = {}
    for dep in json.loads(d.group(1)) if d else []:
        r = Requirement(dep)
        spec = next(iter(r.specifier), None)
        pins[canonicalize_name(r.name)] = spec.version if spec and spec.operator == "==" else ""
    return pins


def defer_packages(page: Path, later: Sequence[str] = tuple(LATER.values())) -> list[str]:
    """Drop the packages ``later`` (mlsysim.labs.browser.LATER: loaded after the first question)
    from the PEP 723 header marimo embedded in an exported page, in both copies (the JSON string
    the page boots from and the URL-encoded <marimo-code>), so the page does not install them
    before its first run. Returns the dependencies left."""
    from urllib.parse import quote

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    idx = page / "index.html"
    s = idx.read_text(encoding="utf-8")
    d = _embedded_header(idx, s)
    if d is None:
        raise SystemExit(f"{idx}: no embedded dependency header (marimo export changed?)")
    later = set(later)
    keep = [
        x for x in json.loads(d.group(1)) if canonicalize_name(Requirement(x).name) not in later
    ]
    old_line = d.group(0)
    new_line = f"# dependencies = {json.dumps(keep)}\n"
    for old, new in (
        (json.dumps(old_line)[1:-1], json.dumps(new_line)[1:-1]),
        (quote(old_line, safe=""), quote(new_line, safe="")),
    ):
        if s.count(old) != 1:
            raise SystemExit(f"{idx}: expected the dependency header once as {old!r}")
        s = s.replace(old, new)
    idx.write_text(s, encoding="utf-8")
    return keep


def place_wheel(wheel: Path, site: Path, version: str) -> None:
    d = site / WHEEL_DIR
    d.mkdir(parents=True, exist_ok=True)
    shutil.copy2(wheel, d / wheel.name)
    manifest = {
        "name": "mlsysim",
        "version": version,
        "wheel": wheel.name,
        "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
    }
    (d / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def lab_map(labs_dir: Path) -> dict[str, dict]:
    """labs/README.md's map, by notebook stem: section, time, goal (the README's own words)."""
    readme = labs_dir / "README.md"
    rows: dict[str, dict] = {}
    if not readme.exists():
        return rows
    for line in readme.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5:
            m = re.fullmatch(r"`([\w.-]+)\.py`", cells[1])
            if m:
                rows[m.group(1)] = {
                    "section": cells[2],
                    "time": cells[3].lstrip("~"),
                    "goal": cells[4],
                }
    return rows


def lab_progress_key(nb: Path) -> dict | None:
    """The ledger chapter key and part count of a notebook (its parts module's CHAPTER and
    PARTS), so the landing page can show progress without any answer. The concept inventory's
    notebooks (``lab = inv.PRE`` / ``inv.POST``) count questions: one of each concept's pair."""
    text = nb.read_text(encoding="utf-8")
    m = re.search(r"from mlsysim\.labs\.parts import (\w+) as lab", text)
    form = re.search(r"^\s*lab = inv\.(PRE|POST)\s*$", text, re.M)
    if not form or "from mlsysim.labs import inventory as inv" not in text:
        form = None
    if not m and not form:
        return None
    import importlib

    sys.path.insert(0, str(ROOT))
    if form:
        mod = importlib.import_module("mlsysim.labs.inventory").FORMS[form.group(1).lower()]
        return {"chapter": str(mod.CHAPTER), "parts": len(mod.REQUIRED), "unit": "questions"}
    mod = importlib.import_module(f"mlsysim.labs.parts.{m.group(1)}")
    return {"chapter": str(mod.CHAPTER), "parts": len(mod.PARTS)}


INDEX_CSS = """
:root { color-scheme: light dark; --bg:#ffffff; --fg:#0f172a; --sec:#334155; --muted:#475569;
  --card:#f8fafc; --border:#cbd5e1; --accent:#1d4ed8; --ok:#15803d; }
@media (prefers-color-scheme: dark) {
  :root { --bg:#0b1120; --fg:#e2e8f0; --sec:#cbd5e1; --muted:#a3b1c6; --card:#1e293b;
    --border:#334155; --accent:#93c5fd; --ok:#86efac; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.5 Inter, system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 52rem; margin: 0 auto; padding: 2.5rem 1rem 4rem; }
header p { color: var(--sec); margin: .25rem 0 0; }
h1 { font-size: 2rem; margin: 0; }
h2 { font-size: 1.15rem; margin: 2rem 0 .75rem; }
ol.labs { list-style: none; padding: 0; margin: 0; display: grid; gap: .75rem; }
.lab-card { border: 1px solid var(--border); background: var(--card); border-radius: 12px;
  padding: .9rem 1.1rem; display: grid; grid-template-columns: 2.2rem 1fr auto; gap: .2rem .9rem;
  align-items: baseline; }
.lab-num { font-weight: 800; color: var(--muted); font-size: 1.05rem; grid-row: span 2; }
.lab-open { font-weight: 700; color: var(--accent); font-size: 1.08rem; text-decoration: none; }
.lab-open:hover, .lab-open:focus { text-decoration: underline; }
.lab-meta { color: var(--muted); font-size: .85rem; white-space: nowrap; text-align: right; }
.lab-note { color: var(--muted); font-size: .85rem; }
.lab-goal { color: var(--sec); grid-column: 2 / 4; margin: 0; }
.lab-progress { grid-column: 2 / 4; font-size: .85rem; color: var(--ok); font-weight: 600; }
.lab-progress:empty { display: none; }
.note { border-left: 4px solid var(--accent); background: var(--card); padding: .75rem 1rem;
  border-radius: 0 10px 10px 0; color: var(--sec); }
code { font-size: .9em; }
@media (max-width: 520px) { .lab-card { grid-template-columns: 1.8rem 1fr; }
  .lab-meta { grid-column: 2; text-align: left; } .lab-goal, .lab-progress { grid-column: 1 / 3; } }
"""

# the progress line of one lab card from its ledger record: counts only, never an answer. A
# required part "X_1|X_2" (the concept inventory: either item of a pair) counts when either is
# answered (tests/test_inventory.py runs this function under node)
PROGRESS_JS = """
function progressText(rec, k) {
  const req = (rec.required && rec.required.length) || k.parts;
  const answered = (p) => String(p).split('|').some((q) => rec.answers && rec.answers[q]);
  const done = (rec.required || []).filter(answered).length;
  const unit = k.unit || 'parts';
  return done >= req ? `Completed: ${done} / ${req} ${unit}`
                     : `In progress: ${done} / ${req} ${unit} answered`;
}
"""

# reads the design ledger the labs keep in IndexedDB (marimo's Pyodide mounts IDBFS at
# /mlsysim-ledger: database "/mlsysim-ledger", store FILE_DATA, the JSON file's bytes in
# `contents`) and shows, per lab, how many parts are answered: counts only, never an answer
INDEX_JS = (
    PROGRESS_JS
    + """
(async () => {
  const labs = JSON.parse(document.getElementById('lab-keys').textContent);
  if (!window.indexedDB) return;
  let db;
  try {
    db = await new Promise((res, rej) => { const r = indexedDB.open('/mlsysim-ledger');
      r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error);
      r.onupgradeneeded = () => { r.transaction.abort(); rej('no ledger yet'); }; });
  } catch (e) { return; }
  const stores = Array.from(db.objectStoreNames);
  if (!stores.includes('FILE_DATA')) { db.close(); return; }
  const rows = await new Promise((res) => { const out = [];
    const c = db.transaction('FILE_DATA', 'readonly').objectStore('FILE_DATA').openCursor();
    c.onsuccess = () => { const cur = c.result; if (!cur) return res(out);
      out.push([String(cur.key), cur.value]); cur.continue(); };
    c.onerror = () => res(out); });
  db.close();
  let chapters = {};
  for (const [key, val] of rows) {
    if (!key.endsWith('.json') || !val || !val.contents) continue;
    try { const data = JSON.parse(new TextDecoder().decode(val.contents));
          if (data && data.app === 'mlsysim' && data.chapters) chapters = data.chapters; }
    catch (e) { /* not a ledger */ }
  }
  let any = false;
  for (const card of document.querySelectorAll('.lab-card')) {
    const k = labs[card.dataset.stem]; if (!k) continue;
    const rec = chapters[k.chapter]; if (!rec) continue;
    card.querySelector('.lab-progress').textContent = progressText(rec, k);
    any = true;
  }
  if (any) document.getElementById('progress-note').textContent =
    'Your progress on this browser (from your design ledger):';
})();
"""
)


#: Notebooks for instructors, not students: linked from the index's instructor note, not numbered.
INSTRUCTOR_TOOLS = ("instructor",)


#: the concept inventory's pre-test: first on the landing page, which says why (issue 37)
INVENTORY_PRE = "s06_00_inventory_pre"


def write_index(out: Path, labs: list[tuple[str, str]], labs_dir: Path | None = None) -> None:
    """The landing page: labs in labs/README.md's order, each with its goal (the README's, which
    states what a student measures, never the result) and duration, the student's progress from
    the ledger, a note for instructors; light and dark; no request outside the site."""
    labs_dir = labs_dir or ROOT / "labs"
    info = lab_map(labs_dir)
    keys = {}
    items = []
    tools = [stem for stem, _ in labs if stem in INSTRUCTOR_TOOLS]
    labs = [(stem, title) for stem, title in labs if stem not in INSTRUCTOR_TOOLS]
    for i, (stem, title) in enumerate(labs, 1):
        row = info.get(stem, {})
        key = lab_progress_key(labs_dir / f"{stem}.py")
        if key:
            keys[stem] = key
        section = row.get("section") or title
        goal = row.get("goal") or ""
        minutes = row.get("time") or ""
        e = html.escape
        items.append(
            f'<li class="lab-card" data-stem="{e(stem)}"><span class="lab-num">{i}</span>'
            f'<a class="lab-open" href="./{e(stem)}/">{e(section)}</a>'
            f'<span class="lab-meta">{e(minutes)}</span>'
            f'<p class="lab-goal">{e(goal)}</p><span class="lab-progress"></span></li>'
        )
    lab_keys = json.dumps(keys, sort_keys=True).replace("</", "<\\/")
    first_note = (
        '<p class="lab-note"><strong>Start with the concept inventory</strong> (number 1): it asks '
        "about the ideas the labs teach, so it measures what you knew before only if you take it "
        "before any lab. It shows no answers; after the chapter lab, the closing inventory asks the "
        "same ideas in new cases and shows your before and after.</p>"
        if labs and labs[0][0] == INVENTORY_PRE
        else ""
    )
    class_view = "".join(
        f' <a href="./{html.escape(t)}/">Open the class view</a> and drop the class\'s JSON reports on it'
        " to see completion, answer distributions and first-attempt accuracy."
        for t in tools
    )
    out.joinpath("index.html").write_text(
        f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Network Architectures: the labs</title>
<style>{INDEX_CSS}</style>
</head>
<body>
<main>
<header>
<h1>Network Architectures: the labs</h1>
<p>Interactive labs for Chapter 6 of the ML systems textbook. They run entirely in your browser
(Python in WebAssembly): nothing to install. The first lab takes a few seconds to start; the
others reuse what it downloaded.</p>
</header>
<h2>Take them in this order</h2>
<p id="progress-note" class="lab-note">Each part opens after you commit
to a prediction. Your progress is saved in this browser.</p>
{first_note}
<ol class="labs">
{chr(10).join(items)}
</ol>
<h2>For instructors</h2>
<div class="note">
<p><strong>Teaching from the front of the room</strong> (every part open, with its answer key):
see the instructor notes in the repository's <code>labs/README.md</code>. A lab opened that way says
so in the student's report.</p>
<p><strong>Progress and reports</strong>: each student's answers and design choices stay in their
browser (the design ledger); the line at the end of every lab shows what is saved, and
"Download my report" saves a report a student hands in.{class_view} See
<code>labs/README.md</code> for presenting, exam questions and where the chapter is corrected.</p>
</div>
</main>
<script type="application/json" id="lab-keys">{lab_keys}</script>
<script>{INDEX_JS}</script>
</body>
</html>
""",
        encoding="utf-8",
    )


# ---------------------------------------------------------------- offline mirror
def pyodide_version() -> str:
    from marimo._pyodide.pyodide_constraints import PYODIDE_VERSION

    if PYODIDE_VERSION not in PYODIDE_ABI:
        raise SystemExit(
            f"marimo pins Pyodide {PYODIDE_VERSION}; scripts/build_site.py only knows "
            f"{sorted(PYODIDE_ABI)}: add its wheel tag to PYODIDE_ABI"
        )
    return PYODIDE_VERSION


def fetch_pyodide_core(cache: Path, version: str) -> Path:
    d = cache / f"npm-pyodide-{version}"
    pkg = d / "node_modules" / "pyodide"
    if all((pkg / f).is_file() for f in PYODIDE_CORE_FILES + ["pyodide-lock.json"]):
        return pkg
    if shutil.which("npm") is None:
        raise SystemExit(
            "npm is needed once to fetch the npm package pyodide (core); "
            "run scripts/install_browser_deps.sh"
        )
    d.mkdir(parents=True, exist_ok=True)
    (d / "package.json").write_text('{"private": true}\n')
    log(f"npm install pyodide@{version} -> {d}")
    run(
        [
            "npm",
            "install",
            "--no-audit",
            "--no-fund",
            "--ignore-scripts",
            "--silent",
            f"pyodide@{version}",
        ],
        cwd=d,
    )
    got = json.loads((pkg / "package.json").read_text())["version"]
    if got != version:
        raise SystemExit(f"npm gave pyodide {got}, need exactly {version}")
    return pkg


def _pure_pyyaml_wheel(cache: Path, dest: Path) -> None:
    """PyYAML has no wasm wheel on PyPI: repackage lib/yaml of its sdist as py3-none-any."""
    name = f"PyYAML-{PYYAML_VERSION}-py3-none-any.whl"
    if (dest / name).is_file():
        return
    sd = cache / "sdist"
    sd.mkdir(parents=True, exist_ok=True)
    tgz = sd / f"pyyaml-{PYYAML_VERSION}.tar.gz"
    if not tgz.is_file():
        run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary=:all:",
                # the sdist's metadata step would otherwise build Cython from source (minutes)
                "--no-build-isolation",
                "-d",
                str(sd),
                f"pyyaml=={PYYAML_VERSION}",
            ]
        )
    files: dict[str, bytes] = {}
    with tarfile.open(tgz) as tf:
        prefix = f"pyyaml-{PYYAML_VERSION}/lib/yaml/"
        for m in tf.getmembers():
            if m.isfile() and m.name.startswith(prefix) and m.name.endswith(".py"):
                files["yaml/" + m.name[len(prefix) :]] = tf.extractfile(m).read()
    di = f"PyYAML-{PYYAML_VERSION}.dist-info"
    files[f"{di}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: PyYAML\nVersion: {PYYAML_VERSION}\n"
        "Summary: pure-Python repackage of PyYAML for Pyodide\n"
    ).encode()
    files[f"{di}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: mlsysim-build-site\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files[f"{di}/top_level.txt"] = b"yaml\n"
    import base64

    record = []
    for n in sorted(files):
        h = base64.urlsafe_b64encode(hashlib.sha256(files[n]).digest()).rstrip(b"=").decode()
        record.append(f"{n},sha256={h},{len(files[n])}")
    record.append(f"{di}/RECORD,,")
    files[f"{di}/RECORD"] = ("\n".join(record) + "\n").encode()
    tmp = dest / (name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for n in sorted(files, key=lambda n: (n.startswith(di), n.endswith("RECORD"), n)):
            info = zipfile.ZipInfo(n, date_time=build_wheel.ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o100644 << 16
            z.writestr(info, files[n])
    tmp.replace(dest / name)


def fetch_wasm_wheels(cache: Path, version: str) -> Path:
    import marimo

    platform, pyver, abi = PYODIDE_ABI[version]
    specs = sorted(WASM_WHEELS + [f"marimo-base=={marimo.__version__}"])
    key = hashlib.sha256(json.dumps([version, specs, PYYAML_VERSION]).encode()).hexdigest()[:12]
    d = cache / f"wasm-wheels-{version}-{key}"
    stamp = d / ".complete"
    if not stamp.is_file():
        d.mkdir(parents=True, exist_ok=True)
        log(f"pip download {len(specs)} wasm/pure wheels -> {d}")
        run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--only-binary=:all:",
                "--platform",
                platform,
                "--python-version",
                pyver,
                "--implementation",
                "cp",
                "--abi",
                abi,
                "-d",
                str(d),
                *specs,
            ]
        )
        _pure_pyyaml_wheel(cache, d)
        stamp.write_text("\n".join(specs) + "\n")
    return d


def _wheel_meta(w: Path):
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    env = {
        "sys_platform": "emscripten",
        "platform_system": "Emscripten",
        "python_version": "3.14",
        "python_full_version": "3.14.2",
        "implementation_name": "cpython",
        "platform_machine": "wasm32",
        "os_name": "posix",
        "platform_python_implementation": "CPython",
        "extra": "",
    }
    with zipfile.ZipFile(w) as z:
        names = z.namelist()
        di = next(n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info"))
        md = z.read(f"{di}/METADATA").decode("utf-8")
    name = re.search(r"^Name: (.+)$", md, re.M).group(1).strip()
    ver = re.search(r"^Version: (.+)$", md, re.M).group(1).strip()
    reqs = []
    for line in re.findall(r"^Requires-Dist: (.+)$", md, re.M):
        r = Requirement(line)
        if r.marker is None or r.marker.evaluate(env):
            reqs.append(canonicalize_name(r.name))
    tops = set()
    for n in names:
        t = n.split("/")[0]
        if t.endswith((".dist-info", ".data")):
            continue
        if t.endswith(".py"):
            t = t[:-3]
        elif "/" not in n:
            continue  # top-level non-python file
        if not t or t.startswith("__") or "." in t:
            continue
        if t.startswith("_") and t not in ("_yaml",):
            continue
        tops.add(t)
    return canonicalize_name(name), name, ver, sorted(set(reqs)), sorted(tops)


# marimo's plotly renderer always loads MathJax from jsDelivr (marimo 0.25.2: mathjax-full@3.2.2,
# es5/tex-mml-svg.min.js).  Offline, the page copies it from the npm tarball and rewrites the URL.
MATHJAX_CDN = re.compile(
    r"https://cdn\.jsdelivr\.net/npm/mathjax-full@([0-9][0-9.]*)/(es5/[\w./-]+)"
)
# besides the referenced component itself: what it may lazy-load (TeX autoload extensions, the
# context menu and its explorer); the 4 MB speech engine (sre/) is left out (menu opt-in only)
MATHJAX_KEEP = ("es5/input/tex/extensions/", "es5/ui/", "es5/a11y/")


def mathjax_refs(page: Path) -> dict[str, set[str]]:
    refs: dict[str, set[str]] = {}
    for js in sorted((page / "assets").glob("*.js")):
        for ver, path in MATHJAX_CDN.findall(js.read_text(encoding="utf-8", errors="replace")):
            refs.setdefault(ver, set()).add(path)
    return refs


def vendor_mathjax(mirror: Path, cache: Path, refs: dict[str, set[str]]) -> None:
    for ver, paths in sorted(refs.items()):
        d = cache / f"npm-mathjax-full-{ver}"
        tgz = d / f"mathjax-full-{ver}.tgz"
        if not tgz.is_file():
            if shutil.which("npm") is None:
                raise SystemExit("npm is needed once to fetch the npm package mathjax-full")
            d.mkdir(parents=True, exist_ok=True)
            log(f"npm pack mathjax-full@{ver} -> {d}")
            run(["npm", "pack", "--silent", f"mathjax-full@{ver}"], cwd=d)
        dest = mirror / f"mathjax-full@{ver}"
        wanted = {p.replace(".min.js", ".js"): p for p in paths}  # jsDelivr auto-minifies *.min.js;
        with tarfile.open(tgz) as tf:  # the npm files are minified already
            for m in tf.getmembers():
                rel = m.name.removeprefix("package/")
                if m.isfile() and (rel in wanted or rel.startswith(MATHJAX_KEEP)):
                    out = dest / wanted.get(rel, rel)
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(tf.extractfile(m).read())
        for path in sorted(paths):
            if not (dest / path).is_file():
                raise SystemExit(
                    f"mathjax-full@{ver} has no {path} (marimo changed its MathJax URL?)"
                )
        log(f"vendored mathjax-full@{ver} ({', '.join(sorted(paths))})")


def _project(wheel_name: str) -> str:
    """A wheel file's project name as its file name spells it, lower case (``pydantic_core``)."""
    return wheel_name.split("-", 1)[0].lower()


#: Files of a pinned wheel that nothing in a Pyodide page reads, dropped from the mirror's copy
#: (same name and version; the lockfile's sha256 is the slim file's). plotly: its JupyterLab /
#: notebook extensions and the bundled plotly.js (marimo draws with its own plotly.js; figures
#: go to the page as JSON) and the sample datasets; its templates stay. 9.7 MB -> 5.2 MB, and
#: ~15 MB less unpacked into the browser's file system before the first question.
SLIM = {
    "plotly": (
        "plotly/labextension/",
        "plotly/package_data/plotly.min.js",
        "plotly/package_data/widgetbundle.js",  # go.FigureWidget's Jupyter bundle (5 MB)
        "plotly/package_data/datasets/",
        ".data/data/",
    ),
}
#: plotly's classes for trace types no lab draws are dropped too (``plotly/graph_objs/<type>/``
#: and ``_<type>.py``; the lab kit draws only ``mlsysim.labs.style.TRACE_TYPES``, a unit test
#: checks its source): ~1,100 of the wheel's ~1,500 files, which Pyodide unpacked one by one
#: when a page loaded plotly (0.85 s of a 2-core laptop's worker, while a student who answered
#: at once waited for the chart: issue 35). ``plotly.graph_objects`` imports those classes
#: lazily, on first use, so a figure of the kept types never asks for them.
GRAPH_OBJS = "plotly/graph_objs/"


#: the modules and folders of ``plotly/graph_objs/`` that are not trace types
NOT_TRACES = frozenset({"layout", "figure", "figurewidget", "frame", "deprecations", "__pycache__"})


def _unused_trace_file(name: str, kept: Collection[str]) -> bool:
    """``name`` (a path in plotly's wheel) belongs to a trace type not in ``kept``."""
    if not name.startswith(GRAPH_OBJS):
        return False
    rest = name[len(GRAPH_OBJS) :]
    head, sep, _ = rest.partition("/")
    if sep:  # plotly/graph_objs/<type>/...
        kind = head
    elif rest.startswith("_") and not rest.startswith("__") and rest.endswith(".py"):
        kind = rest[1:-3]  # plotly/graph_objs/_<type>.py
    else:
        return False
    return kind not in NOT_TRACES and kind not in kept


def _drawn_trace_types() -> frozenset[str]:
    """The trace types the lab kit draws (``mlsysim.labs.style.TRACE_TYPES``)."""
    sys.path.insert(0, str(ROOT))
    try:
        from mlsysim.labs.style import TRACE_TYPES
    finally:
        sys.path.remove(str(ROOT))
    return frozenset(TRACE_TYPES)


def slim_wheel(src: Path, dst: Path) -> bool:
    """Copy ``src`` to ``dst`` without the files ``SLIM`` lists for its project (RECORD updated);
    False (nothing written) for a wheel with nothing to drop."""
    project = _project(src.name)
    drop = SLIM.get(project)
    if not drop:
        return False
    kept = _drawn_trace_types() if project == "plotly" else None

    def dropped(name: str) -> bool:
        if kept is not None and _unused_trace_file(name, kept):
            return True
        return any(name.startswith(d) or (d.startswith(".") and d in name) for d in drop)

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if dropped(info.filename):
                continue
            data = zin.read(info)
            if info.filename.endswith(".dist-info/RECORD"):
                keep = [ln for ln in data.decode().splitlines() if not dropped(ln.split(",", 1)[0])]
                data = ("\n".join(keep) + "\n").encode()
            zout.writestr(info, data)
    return True


#: What ``import mlsysim`` loads beyond marimo (mlsysim, pint and pydantic with their
#: dependencies; plotly is imported only when the first chart is drawn). The mirror's copies carry
#: bytecode for the page's Python (scripts/bytecode.py): without it Pyodide compiles every one of
#: these modules from source on every page load, ~0.5 s before the first question.
BYTECODE = frozenset(
    {
        "mlsysim",
        "pint",
        "flexcache",
        "flexparser",
        "platformdirs",
        "typing_extensions",
        "pydantic",
        "pydantic_core",
        "annotated_types",
        "typing_inspection",
    }
)

#: Wheels whose bytecode covers only the files a page imports (``PAGE_MODULES``, recorded by
#: ``scripts/trace_page_modules.py``): marimo's runtime and what it loads before a notebook's
#: first cell (~2 s of compiling on every load without it), and plotly, loaded after the first
#: question. All of their files would add ~12 MB to the site; the ones a page opens add ~4 MB.
PAGE_BYTECODE = frozenset(
    {
        "marimo_base",
        "markdown",
        "pymdown_extensions",
        "pygments",
        "narwhals",
        "msgspec",
        "packaging",
        "pyyaml",
        "micropip",
        "pyodide_http",
        "jedi",
        "parso",
        "plotly",
    }
)
PAGE_MODULES = Path(__file__).resolve().with_name("page_modules.txt")
#: The standard library modules a page imports (zip-relative paths in Pyodide's
#: ``python_stdlib.zip``, recorded by ``scripts/trace_page_modules.py``): Pyodide's npm package
#: ships that zip with sources only, so every page compiled each of them on every load (the
#: boot, then pint's, pydantic's and plotly's imports after the first answer: ~7 ms a module on
#: a 2-core laptop, 66 modules for ``import pint`` alone). Their bytecode goes beside them in
#: the mirror's copy of the zip; bytecode for all 560 would add 4.5 MB to every page.
PAGE_STDLIB = Path(__file__).resolve().with_name("page_stdlib.txt")
STDLIB_ZIP = "python_stdlib.zip"


def _node() -> str | None:
    """A Node.js binary: the one on PATH (npm's), else the one Playwright ships with."""
    node = shutil.which("node")
    if node:
        return node
    try:
        from playwright._impl._driver import compute_driver_executable
    except ImportError:
        return None
    exe = compute_driver_executable()
    node = exe[0] if isinstance(exe, tuple) else None
    return node if node and Path(node).is_file() else None


def add_bytecode(core: Path, wheels: Sequence[Path], cache: Path, only: Path | None = None) -> int:
    """Rewrite each wheel in place with the bytecode of Pyodide's Python added, for every file
    or only those the list ``only`` names (scripts/bytecode.py run inside Pyodide under Node;
    cached by the wheel's, the scripts' and the list's sha256). Returns how many wheels carry
    bytecode; 0 when no Node.js is found (the site still works, Pyodide then compiles them on
    each load)."""
    script = Path(__file__).resolve().with_name("bytecode.py")
    runner = script.with_suffix(".mjs")
    listed = only.read_bytes() if only is not None else b""
    salt = hashlib.sha256(script.read_bytes() + runner.read_bytes() + listed).hexdigest()[:12]
    cache.mkdir(parents=True, exist_ok=True)
    todo = []
    for w in wheels:
        key = hashlib.sha256(w.read_bytes()).hexdigest()[:16]
        hit = cache / f"{key}-{salt}-{w.name}"
        if hit.is_file():
            shutil.copy2(hit, w)
        else:
            todo.append((w, hit))
    if todo:
        node = _node()
        if node is None:
            log("note: no Node.js found, the mirror's wheels carry no bytecode (slower page start)")
            return 0
        with tempfile.TemporaryDirectory() as tmp:
            pairs = []
            for i, (w, _) in enumerate(todo):
                src = Path(tmp) / f"{i}-{w.name}"
                shutil.copy2(w, src)
                pairs += [str(src), str(w)]
            run([node, str(runner), str(core), str(script), str(only or "-"), *pairs])
        for w, hit in todo:
            shutil.copy2(w, hit)
    what = " (the files a page imports)" if only is not None else ""
    names = ", ".join(w.name for w in wheels) if len(wheels) == 1 else f"{len(wheels)} wheels"
    log(f"bytecode for Pyodide's Python in {names}{what} ({len(todo)} compiled now)")
    return len(wheels)


def build_mirror(mirror: Path, cache: Path, extra_wheels: Sequence[Path] = ()) -> Path:
    """The Pyodide core, the pinned wheels (+ ``extra_wheels``: the mlsysim wheel, so Pyodide's
    own loader fetches it and its dependencies in parallel when a notebook imports mlsysim),
    a PEP 503 index; returns the lockfile's path."""
    version = pyodide_version()
    core = fetch_pyodide_core(cache, version)
    wheel_dir = fetch_wasm_wheels(cache, version)
    if mirror.exists():
        shutil.rmtree(mirror)
    pyo = mirror / "pyodide"
    pyo.mkdir(parents=True)
    for f in PYODIDE_CORE_FILES:
        shutil.copy2(core / f, pyo / f)
    if PAGE_STDLIB.is_file():
        add_bytecode(core, [pyo / STDLIB_ZIP], cache / f"bytecode-{version}", PAGE_STDLIB)
    base_lock = json.loads((core / "pyodide-lock.json").read_text())
    metas = {}
    wheels = [*sorted(wheel_dir.glob("*.whl")), *extra_wheels]
    for w in wheels:
        if not slim_wheel(w, pyo / w.name):
            shutil.copy2(w, pyo / w.name)
    add_bytecode(
        core,
        [pyo / w.name for w in wheels if _project(w.name) in BYTECODE],
        cache / f"bytecode-{version}",
    )
    add_bytecode(
        core,
        [pyo / w.name for w in wheels if _project(w.name) in PAGE_BYTECODE],
        cache / f"bytecode-{version}",
        PAGE_MODULES,
    )
    for w in wheels:
        key, name, ver, reqs, imports = _wheel_meta(w)
        sha = hashlib.sha256((pyo / w.name).read_bytes()).hexdigest()
        metas[key] = (name, ver, w.name, reqs, imports, sha)
    packages = {}
    for key in sorted(metas):
        name, ver, fname, reqs, imports, sha = metas[key]
        packages[key] = {
            # the canonical name: marimo skips micropip for a header dependency only when
            # Pyodide's loadedPackages has it under that name ("pint", not "Pint")
            "name": key,
            "version": ver,
            "file_name": fname,
            "install_dir": "site",
            "sha256": sha,
            "package_type": "package",
            "imports": imports,
            # a package the page loads after its first question is not loaded with mlsysim
            "depends": [
                r for r in reqs if r in metas and not (key == "mlsysim" and r in LATER.values())
            ],
            "unvendored_tests": False,
        }
        d = mirror / "simple" / key
        d.mkdir(parents=True, exist_ok=True)
        (d / "index.html").write_text(
            f'<!doctype html><html><body><a href="../../pyodide/{fname}#sha256={sha}">{fname}</a>'
            "</body></html>\n"
        )
    (mirror / "simple" / "index.html").write_text(
        "<!doctype html><html><body>\n"
        + "".join(f'<a href="{k}/">{k}</a>\n' for k in sorted(metas))
        + "</body></html>\n"
    )
    lock = {"info": base_lock["info"], "packages": packages}
    (pyo / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
    unresolved = {k: [r for r in m[3] if r not in metas] for k, m in metas.items()}
    unresolved = {k: v for k, v in unresolved.items() if v}
    if unresolved:
        log(f"note: deps not in the mirror (not needed in Pyodide or provided by it): {unresolved}")
    log(f"mirror: Pyodide {version} core + {len(packages)} wheels in {mirror}")
    return pyo / "pyodide-lock.json"


#: axe-core (npm), for the real-browser accessibility check; package-lock-style exact pin
AXE_CORE_VERSION = "4.14.1"


def fetch_axe_core(cache: Path, version: str = AXE_CORE_VERSION) -> Path:
    """axe.min.js of the npm package axe-core@version (cached; `npm pack` once)."""
    d = cache / f"npm-axe-core-{version}"
    js = d / "axe.min.js"
    if js.is_file():
        return js
    if shutil.which("npm") is None:
        raise SystemExit("npm is needed once to fetch the npm package axe-core")
    d.mkdir(parents=True, exist_ok=True)
    log(f"npm pack axe-core@{version} -> {d}")
    run(["npm", "pack", "--silent", f"axe-core@{version}"], cwd=d)
    with tarfile.open(d / f"axe-core-{version}.tgz") as tf:
        js.write_bytes(tf.extractfile("package/axe.min.js").read())
    return js


def add_page(out: Path, nb: Path, name: str, prerender: bool = True) -> Path:
    """Export one more notebook into <out>/<name>/ exactly as the labs are (same lockfile pins,
    same mirror, same theme); the browser test's control page uses this."""
    mirror = out / MIRROR_NAME
    lock = mirror / "pyodide" / "pyodide-lock.json"
    page = out / name
    export_notebook(nb, page, lock if lock.is_file() else None, prerender)
    if lock.is_file():
        defer_packages(page, page_later(name))
        point_page_at_mirror(page, f"../{MIRROR_NAME}")
    check_run_signal(page)
    set_warm_assets(page)
    share_assets(out, page)
    return page


#: Every page's marimo frontend is the same set of files, each named by its content's hash: the
#: site keeps them once in <out>/assets/ and each page links them as ../assets/, so a student
#: who opens a second lab loads the frontend from the browser's cache (and each page is ~28 MB
#: smaller on disk). The frontend resolves its chunks and its worker against the script that
#: loads them, never against the page, so only index.html's links change.
SHARED_ASSETS = "assets"


def share_assets(out: Path, page: Path) -> int:
    """Move ``page``'s assets/ into ``out``/assets/ and point its index.html there; a file
    already there must be byte for byte the same (the names are content hashes: a difference
    means pages of two marimo versions in one site). Returns how many files were new."""
    src = page / "assets"
    if not src.is_dir():
        return 0
    dest = out / SHARED_ASSETS
    dest.mkdir(exist_ok=True)
    new = 0
    for f in sorted(src.iterdir()):
        if not f.is_file():
            raise SystemExit(f"{f}: not a file (marimo export layout changed?)")
        target = dest / f.name
        if target.exists():
            if target.read_bytes() != f.read_bytes():
                raise SystemExit(f"{f} differs from {target}, a file of the same name")
        else:
            f.rename(target)  # the same file system: moved, not copied
            new += 1
    shutil.rmtree(src)
    idx = page / "index.html"
    s = idx.read_text(encoding="utf-8")
    idx.write_text(re.sub(r"""(["'(])\./assets/""", r"\1../assets/", s), encoding="utf-8")
    return new


def point_page_at_mirror(page: Path, rel: str) -> None:
    """Set the <marimo-wasm> data-* attributes the marimo frontend reads (resolved vs. the page)."""
    idx = page / "index.html"
    s = idx.read_text(encoding="utf-8")
    attrs = {
        "data-pyodide-index-url": f"{rel}/pyodide/",
        "data-pyodide-lockfile-url": f"{rel}/pyodide/pyodide-lock.json",
        "data-pypi-index-url": f"{rel}/simple/",
    }
    m = re.search(r"<marimo-wasm\b[^>]*>", s)
    if not m:
        raise SystemExit(f"{idx}: no <marimo-wasm> element (marimo export format changed?)")
    tag = m.group(0)
    for a in attrs:
        tag = re.sub(rf'\s{a}="[^"]*"', "", tag)
    tag = tag[:-1].rstrip() + "".join(f' {a}="{v}"' for a, v in attrs.items()) + ">"
    idx.write_text(s[: m.start()] + tag + s[m.end() :], encoding="utf-8")
    # MathJax: a <script src> resolved against the page, like the data-* URLs above
    for js in sorted((page / "assets").glob("*.js")):
        text = js.read_text(encoding="utf-8", errors="surrogateescape")
        new = MATHJAX_CDN.sub(lambda mm: f"{rel}/mathjax-full@{mm.group(1)}/{mm.group(2)}", text)
        if new != text:
            js.write_text(new, encoding="utf-8", errors="surrogateescape")


# ---------------------------------------------------------------- main
def build_site(
    out: Path, labs_dir: Path, offline_mirror: Path | None, cache: Path, prerender: bool = True
) -> dict:
    t0 = time.time()
    out.mkdir(parents=True, exist_ok=True)
    wheel = build_wheel.build()
    version = build_wheel.project_version()
    notebooks = list_notebooks(labs_dir)
    if not notebooks:
        raise SystemExit(f"no notebooks in {labs_dir} (labs/*.py not starting with '_')")
    # remove pages of notebooks that no longer exist
    keep = {nb.stem for nb in notebooks} | {MIRROR_NAME}
    for child in out.iterdir():
        if child.is_dir() and child.name not in keep and (child / "index.html").exists():
            shutil.rmtree(child)
    if (out / SHARED_ASSETS).is_dir():  # the pages are exported again: their frontend with them
        shutil.rmtree(out / SHARED_ASSETS)
    lockfile = None
    if offline_mirror is not None:
        link = out / MIRROR_NAME
        inside = offline_mirror == link
        if link.is_symlink() or link.is_file():
            link.unlink()
        elif link.exists() and not inside:
            shutil.rmtree(link)
        lockfile = build_mirror(
            offline_mirror, cache, [wheel]
        )  # first: the exports pin to its lockfile
        if not inside:
            link.symlink_to(offline_mirror, target_is_directory=True)
    labs = []
    for nb in notebooks:
        t = time.time()
        page = out / nb.stem
        export_notebook(nb, page, lockfile, prerender)
        if lockfile is not None:
            defer_packages(page, page_later(nb.stem))
        labs.append((nb.stem, notebook_title(nb)))
        log(f"exported {nb.name} -> {page.relative_to(out)}/ ({time.time() - t:.1f}s)")
    if offline_mirror is not None:
        mathjax: dict[str, set[str]] = {}
        for stem, _ in labs:
            for ver, paths in mathjax_refs(out / stem).items():
                mathjax.setdefault(ver, set()).update(paths)
        vendor_mathjax(offline_mirror, cache, mathjax)
        for stem, _ in labs:
            point_page_at_mirror(out / stem, f"../{MIRROR_NAME}")
    for stem, _ in labs:
        check_run_signal(out / stem)
        set_warm_assets(out / stem)
        share_assets(out, out / stem)
    place_wheel(wheel, out, version)  # <out>/wheels/: see WHEEL_DIR
    write_index(out, labs, labs_dir)
    info = {
        "out": str(out),
        "labs": [s for s, _ in labs],
        "wheel": wheel.name,
        "offline": offline_mirror is not None,
        "seconds": round(time.time() - t0, 1),
    }
    (out / "site.json").write_text(json.dumps(info, indent=1) + "\n")
    log(f"site ready: {out} ({len(labs)} labs, {info['seconds']}s)")
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", type=Path, default=ROOT / "site")
    ap.add_argument(
        "--labs-dir", type=Path, default=Path(os.environ.get("MLSYSIM_LABS_DIR", ROOT / "labs"))
    )
    ap.add_argument(
        "--offline-mirror",
        nargs="?",
        const="",
        default=None,
        metavar="DIR",
        help=f"build a local Pyodide mirror in DIR (default <out>/{MIRROR_NAME})",
    )
    ap.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(os.environ.get("MLSYSIM_BROWSER_CACHE", ROOT / ".browser-cache")),
    )
    ap.add_argument(
        "--no-prerender",
        action="store_true",
        help="export without running the notebooks (no pre-rendered header/introductions)",
    )
    a = ap.parse_args(argv)
    out = a.out.resolve()
    mirror = None
    if a.offline_mirror is not None:
        mirror = (out / MIRROR_NAME) if a.offline_mirror == "" else Path(a.offline_mirror).resolve()
    build_site(out, a.labs_dir.resolve(), mirror, a.cache_dir.resolve(), not a.no_prerender)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
