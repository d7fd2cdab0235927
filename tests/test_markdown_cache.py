"""The table of markdown a first run renders (``mlsysim/labs/markdown_cache.py``, written by
``scripts/precompute_markdown.py``) and the renderer that answers from it in Pyodide
(``mlsysim.labs.browser.cache_markdown``)."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest

from mlsysim.labs import browser, markdown_cache

import harness as h

sys.path.insert(0, str(h.ROOT / "scripts"))
import build_site  # noqa: E402
import precompute_markdown  # noqa: E402


def test_the_table_is_what_marimo_renders_now_for_every_first_run():
    """Every text a notebook's first run renders (locked, empty ledger, each in a fresh
    interpreter) is in the table, with the HTML marimo's renderer gives it now, and nothing else
    is; else the script names itself."""
    res = subprocess.run(
        [sys.executable, "scripts/precompute_markdown.py", "--check"],
        cwd=h.ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stdout + res.stderr[-3000:]


def test_the_table_was_made_with_the_versions_the_site_serves():
    pins = dict(w.split("==") for w in build_site.WASM_WHEELS)
    assert markdown_cache.VERSIONS == {
        "marimo": __import__("marimo").__version__,
        "markdown": pins["markdown"],
        "pymdown-extensions": pins["pymdown-extensions"],
    }
    assert browser.renderer_versions() == markdown_cache.VERSIONS  # the dev install pins them


def test_the_table_holds_every_lab_header_and_no_code_block():
    html = markdown_cache.HTML
    assert len(html) > 300
    assert "## Part A · One filter, every position" in html  # 6.3's first part
    assert not [t for t, v in html.items() if not precompute_markdown.cached(v)]
    assert precompute_markdown.cached("<p>plain <code>x</code></p>")
    assert not precompute_markdown.cached('<div class="language-python highlight"><pre>x</pre>')


def test_cached_markdown_answers_from_the_table_and_renders_the_rest():
    rendered = []

    def render(text):
        rendered.append(text)
        return f"<p>{text}</p>"

    cached = browser.CachedMarkdown(render, {"**a**": "<p><strong>a</strong></p>"})
    assert cached("**a**") == "<p><strong>a</strong></p>"
    assert cached("b") == "<p>b</p>"
    assert rendered == ["b"] and (cached.hits, cached.misses) == (1, 1)


def _fake(versions):
    md = SimpleNamespace(_render_markdown=lambda text: f"<p>{text}</p>")
    cache = SimpleNamespace(VERSIONS=versions, HTML={"x": "<p>from the table</p>"})
    return md, cache


def test_cache_markdown_is_put_in_place_once_at_the_versions_it_was_made_with():
    md, cache = _fake(browser.renderer_versions())
    first = browser.cache_markdown(md, cache)
    assert isinstance(first, browser.CachedMarkdown) and md._render_markdown is first
    assert md._render_markdown("x") == "<p>from the table</p>"
    assert md._render_markdown("y") == "<p>y</p>"
    assert browser.cache_markdown(md, cache) is first  # not wrapped twice
    assert first.render("x") == "<p>x</p>"  # the renderer it wraps is marimo's own


@pytest.mark.parametrize("package", ["marimo", "markdown", "pymdown-extensions"])
def test_cache_markdown_stays_out_where_a_version_differs(package):
    versions = {**browser.renderer_versions(), package: "0.0.0"}
    md, cache = _fake(versions)
    original = md._render_markdown
    assert browser.cache_markdown(md, cache) is None
    assert md._render_markdown is original


def test_without_marimo_nothing_is_put_in_place_and_nothing_fails(monkeypatch):
    """mlsysim imported in Pyodide without marimo (the browser test's Node run of the deferred
    packages, a plain Pyodide console): ``mlsysim.labs`` must still import. It failed there with
    ModuleNotFoundError when the table was first put in place."""
    for name in ("marimo._output.md", "marimo._output", "pymdownx"):
        monkeypatch.setitem(sys.modules, name, None)  # an import of it raises ImportError
    assert browser.renderer_versions() is None
    assert browser.cache_markdown() is None
    monkeypatch.setattr(sys, "platform", "emscripten")
    monkeypatch.setattr(browser, "listen_for_page_live", lambda: False)
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    assert isinstance(browser.install(), browser.LoadOnImport)


def test_outside_pyodide_marimo_renders_every_text_itself():
    from marimo._output import md

    assert sys.platform != "emscripten" and browser.install() is None
    assert not isinstance(md._render_markdown, browser.CachedMarkdown)


_FIRST_RUN = """
import json, runpy, sys
from marimo._output import md
from mlsysim.labs import browser
cached = browser.cache_markdown()
runpy.run_path(sys.argv[1])["app"].run()
print(json.dumps([cached.hits, cached.misses]))
"""


@pytest.mark.parametrize("name", ["s06_07_transformers", "lab06_architecture_tax", "byom"])
def test_a_first_run_renders_no_text_itself_with_the_table(name, tmp_path, monkeypatch):
    """The renderer a page puts in place answers every text of a first visit's first run."""
    monkeypatch.setenv("MLSYSIM_DATA_DIR", str(tmp_path))
    hits, misses = h.fresh_python(_FIRST_RUN, f"labs/{name}.py")
    assert hits >= 20 and misses == 0
