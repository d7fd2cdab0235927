"""The first answer's chart needs nothing the browser page loads later (issue 35).

The site loads plotly, pint and pydantic after the first question (``mlsysim.labs.browser``);
a student who answers at once waited ~1.3 s in Pyodide for the answer's chart cell to load and
import them. ``kit.show_part`` shows, in the browser, each lab's first part at its widgets'
starting positions from ``mlsysim.labs.first_views`` (written by
``scripts/precompute_views.py``); here that copy must be what the core and marimo give now, a
notebook must ask for exactly those arguments, and anything else must be drawn from the core.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from pathlib import Path

import pytest

from mlsysim.labs import browser, first_views
from mlsysim.labs import components as kit

import harness as h

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import precompute_views  # noqa: E402

STALE = "mlsysim/labs/first_views.py is stale: run `python scripts/precompute_views.py`"
PARTS = precompute_views.first_parts()


_MADE = """
import hashlib, json, sys
sys.path.insert(0, "scripts")
import precompute_views
made = precompute_views.views()
same = precompute_views.render() == open(precompute_views.OUT, encoding="utf-8").read()
print(json.dumps([same, {k: [a, hashlib.sha256(t.encode()).hexdigest()] for k, (a, t) in made.items()}]))
"""


def test_first_views_are_what_the_core_and_marimo_give_now():
    """Made again in a fresh interpreter (the script formats figures as a running notebook does,
    which changes marimo's formatters for the rest of its process)."""
    same_file, made = h.fresh_python(_MADE)
    assert set(made) == set(first_views.VIEWS), STALE
    for key, (args, digest) in made.items():
        have_args, html_text = first_views.VIEWS[key]
        assert [have_args, hashlib.sha256(html_text.encode()).hexdigest()] == [args, digest], (
            f"{key}: {STALE}"
        )
    assert same_file, STALE  # the module is exactly what the script writes


def test_this_process_still_formats_figures_as_a_script_does():
    """The check above leaves this process's formatters alone: the harness reads a chart from
    plotly's own HTML (marimo's notebook element appears only inside a kernel)."""
    import marimo as mo
    import plotly.graph_objects as go

    assert "Plotly.newPlot" in mo.as_html(go.Figure(go.Scatter(x=[1], y=[2]))).text


def test_every_lab_with_parts_has_its_first_view_and_it_draws_a_chart():
    labs = {key.partition(".")[0] for key in first_views.VIEWS}
    assert len(labs) == len(first_views.VIEWS) >= 15
    assert {"lab06", "byom", "s06_03_cnns", "s06_13_building_blocks"} <= labs
    for key, (args, html_text) in first_views.VIEWS.items():
        # marimo's own chart element (as a running notebook shows a figure), its data inside,
        # the text alternative, the cards and the MathPeek
        assert html_text.count("<marimo-plotly") == 1, key
        assert "data-figure=" in html_text and "ms-chart-alt" in html_text, key
        assert "<iframe" not in html_text, key  # plotly's own HTML: formatted outside a kernel
        assert "MathPeek" in html_text, key
        assert args.startswith("[") and args == kit.args_key(PARTS[key][1]), key


@pytest.mark.parametrize("nb", h.NOTEBOOKS, ids=[p.stem for p in h.NOTEBOOKS])
def test_a_notebook_asks_for_its_first_view_at_the_starting_positions(nb, monkeypatch, tmp_path):
    """Run headless with every part unlocked and no widget moved: the notebook's first part is
    asked of ``kit.show_part`` with the arguments its view was made for (else the browser would
    draw it from the core, loading the packages after all); a moved widget misses."""
    h.skip_inventory(nb)
    monkeypatch.setenv("MLSYSIM_DATA_DIR", str(tmp_path))  # an empty ledger: nothing restored
    asked = []
    real = kit.show_part

    def spy(part, *args):
        asked.append((kit.view_key(part), kit.args_key(args)))
        return real(part, *args)

    monkeypatch.setattr(kit, "show_part", spy)
    h.run(h.load_app(nb), unlock=True, path=nb)
    assert len(asked) == 1, asked  # the first part only
    key, args = asked[0]
    assert key.endswith(".part_a") and first_views.VIEWS[key][0] == args, (key, args)


def test_show_part_uses_the_copy_only_in_the_browser_and_only_at_its_arguments(monkeypatch):
    key = "s06_03_cnns.part_a"
    fn, args = PARTS[key]
    html_text = first_views.VIEWS[key][1]
    drawn = []
    monkeypatch.setattr(kit, "show", lambda view, feedback=None: drawn.append(view) or "drawn")
    # outside the browser: always drawn from the core (an instructor's edit shows at once)
    assert kit.show_part(fn, *args) == "drawn" and len(drawn) == 1
    monkeypatch.setattr(sys, "platform", "emscripten")
    shown = kit.show_part(fn, *args)
    assert shown.text == html_text and len(drawn) == 1  # the copy, nothing drawn
    # a slider value given as a float is the same position
    assert kit.show_part(fn, *[float(a) if isinstance(a, int) else a for a in args]).text == (
        html_text
    )
    moved = [args[0] * 2, *args[1:]]
    assert kit.show_part(fn, *moved) == "drawn" and len(drawn) == 2  # any other position
    assert kit.precomputed_view(fn, moved) is None


def test_an_answers_copy_waits_for_the_verdict_to_paint_and_a_reloads_does_not(monkeypatch):
    """Sent with the verdict, the copy reached the page in the same moment and Plotly's draw held
    the verdict off the screen (0.4-1.2 s after the click, not ~0.2 s): after an answer (the page
    live) the worker waits ``FIRST_VIEW_AFTER_VERDICT_S`` first, once; in a first run (a reload
    that restores an answered part) nothing waits."""
    import time

    fn, args = PARTS["s06_06_attention.part_a"]
    slept = []
    monkeypatch.setattr(time, "sleep", slept.append)
    monkeypatch.setattr(sys, "platform", "emscripten")
    monkeypatch.setattr(kit, "_COPY_SHOWN", False)
    monkeypatch.setitem(browser._PAGE, "live", False)
    assert kit.show_part(fn, *args).text == first_views.VIEWS["s06_06_attention.part_a"][1]
    assert slept == []
    monkeypatch.setattr(kit, "_COPY_SHOWN", False)
    monkeypatch.setitem(browser._PAGE, "live", True)
    kit.show_part(fn, *args)
    assert slept == [kit.FIRST_VIEW_AFTER_VERDICT_S] and 0.1 <= slept[0] <= 0.5
    kit.show_part(fn, *args)  # a slider moved back to the start later: no wait
    assert len(slept) == 1


def test_args_key_tells_positions_apart():
    assert kit.args_key([224, "3", True]) == kit.args_key([224.0, "3", True])
    assert kit.args_key([224]) != kit.args_key([225])
    assert kit.args_key(["3"]) != kit.args_key([3])  # a choice's key is not a number
    assert kit.args_key([True]) != kit.args_key([1])  # a flag is not a number


_FIRST_CHART = """
import importlib, json, sys
from mlsysim.labs import components as kit
lab = importlib.import_module("mlsysim.labs.parts." + sys.argv[1])
fn, args = kit.first_part(lab)
before = set(sys.modules)
html_text = kit.precomputed_view(fn, args)
new = {m.partition(".")[0] for m in set(sys.modules) - before}
print(json.dumps([sorted(new & set(json.loads(sys.argv[2]))), len(html_text or "")]))
"""


@pytest.mark.parametrize("key", sorted(PARTS))
def test_first_view_imports_no_later_package(key):
    """In a fresh interpreter after what a notebook's first run imports: the first part's view at
    its starting positions is found without importing plotly, pint or pydantic."""
    imported, size = h.fresh_python(
        _FIRST_CHART, key.partition(".")[0], json.dumps(sorted(browser.LATER))
    )
    assert imported == [], f"{key}: the first view imports {imported}"
    assert size == len(first_views.VIEWS[key][1])


def test_the_first_views_module_is_in_the_wheel_package():
    spec = importlib.util.find_spec("mlsysim.labs.first_views")
    assert spec is not None and Path(spec.origin).parent == ROOT / "mlsysim" / "labs"
