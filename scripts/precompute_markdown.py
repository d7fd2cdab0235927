"""Write ``mlsysim/labs/markdown_cache.py``: the HTML marimo's markdown renderer gives for every
text a notebook renders in its first run on a first visit (locked, nothing answered).

    python scripts/precompute_markdown.py           # rewrite the module
    python scripts/precompute_markdown.py --check   # exit 1 when it differs from marimo's renderer

Why: in the browser every ``mo.md`` and every widget's label goes through Python-Markdown and
marimo's twenty-odd extensions, ~3 ms a text in Pyodide, and a lab's first run renders 40-70 of
them before its first question goes live (the control page renders two). In Pyodide only, and
only when marimo, Markdown and pymdown-extensions are the versions the cache was made with (the
site's mirror pins them: ``build_site.WASM_WHEELS``), ``mlsysim.labs.browser`` looks a text up
here before rendering it; any other text is rendered as before. Run it after changing any text a
lab shows before its first answer (tests/test_markdown_cache.py fails until then);
``scripts/rebuild.sh`` runs it before packing the wheel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "mlsysim" / "labs" / "markdown_cache.py"
LABS = ROOT / "labs"

#: the packages whose versions decide the HTML (a text is looked up only where they match)
PACKAGES = ("marimo", "markdown", "pymdown-extensions")

HEADER = '''"""The HTML marimo's markdown renderer gives for each text a notebook renders in its first run on
a first visit, made by ``python scripts/precompute_markdown.py``; do not edit by hand.
``mlsysim.labs.browser.cache_markdown`` looks texts up here in Pyodide when the running marimo,
Markdown and pymdown-extensions are ``VERSIONS``; tests/test_markdown_cache.py fails when an
entry differs from what the renderer gives now, or a first run renders a text not here.
"""
'''

# One notebook's first run in a fresh interpreter, as a page runs it (in one interpreter, the
# next notebook's ``marimo.App()`` walks every module with ``inspect.stack()``): every text
# handed to marimo's renderer, in order.
_RECORD = """
import json, runpy, sys
from marimo._output import md
texts, render = [], md._render_markdown
def record(text):
    texts.append(text)
    return render(text)
md._render_markdown = record
runpy.run_path(sys.argv[1])["app"].run()
print(json.dumps(texts))
"""


def notebooks() -> list[Path]:
    return sorted(LABS.glob("[!_]*.py"))


def first_run_texts(path: Path) -> list[str]:
    """The texts ``path``'s first run renders, with an empty ledger and nothing unlocked."""
    with tempfile.TemporaryDirectory() as ledger:
        res = subprocess.run(
            [sys.executable, "-c", _RECORD, str(path)],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), "MLSYSIM_DATA_DIR": ledger},
            capture_output=True,
            text=True,
            timeout=300,
        )
    if res.returncode != 0:
        raise SystemExit(f"{path.name}: its first run failed\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def versions() -> dict[str, str]:
    """The versions this interpreter renders with; they must be the ones the site's mirror pins."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "scripts"))
    import build_site

    from mlsysim.labs.browser import renderer_versions

    have = renderer_versions()
    if have is None:
        raise SystemExit(
            'marimo, Markdown and pymdown-extensions must be installed: pip install -e ".[dev]"'
        )
    pins = dict(w.split("==") for w in build_site.WASM_WHEELS)
    want = {**have, **{p: pins[p] for p in PACKAGES if p != "marimo"}}
    if have != want:
        raise SystemExit(
            f"the renderer here is {have}, the browser's {want}: install those versions "
            '(pip install -e ".[dev]" pins them) and run this again'
        )
    return have


def cached(html: str) -> bool:
    """A rendering that does not depend on Pygments (the mirror's may differ): no code block."""
    return "<pre" not in html and "highlight" not in html


def entries() -> dict[str, str]:
    """text -> HTML for every text the notebooks' first runs render (code blocks aside)."""
    from marimo._output import md

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        texts = {t for found in pool.map(first_run_texts, notebooks()) for t in found}
    rendered = {t: md._render_markdown(t) for t in sorted(texts)}
    return {t: html for t, html in rendered.items() if cached(html)}


def render() -> str:
    """The module's text."""
    lines = [HEADER, f"VERSIONS = {json.dumps(versions())}", "", "HTML: dict[str, str] = {"]
    for text, html in entries().items():
        lines.append(
            f"    {json.dumps(text, ensure_ascii=False)}: {json.dumps(html, ensure_ascii=False)},"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from precompute_feedback import write_or_check

    return write_or_check(OUT, render(), argv, "precompute_markdown.py")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
