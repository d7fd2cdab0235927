"""Every notebook under labs/, run headlessly in every state a student can put it in.

States: locked (no answers), unlocked (instructor switch), every option of every prediction,
every widget at its minimum / default / maximum (all together), and seeded random combinations.
Fails on any exception, on a chart without data, on nan/inf/Error text, on a prediction radio
that is not shown before its part unlocks, on a widget created behind a gate, and on a ledger
marked completed before the student answered.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from mlsysim.labs import placement

import harness as h

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

IDS = [p.stem for p in h.NOTEBOOKS]


@pytest.fixture(autouse=True)
def _data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("MLSYSIM_DATA_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture(scope="module", params=h.NOTEBOOKS, ids=IDS)
def nb(request):
    app = h.load_app(request.param)
    return request.param, app


def _ledger(tmp_path):
    f = tmp_path / "mlsysim-ledger.json"
    return json.loads(f.read_text()) if f.exists() else None


def test_notebooks_exist():
    assert len(h.NOTEBOOKS) >= 1


def test_locked_state_shows_every_prediction(nb, _data_dir):
    path, app = nb
    r = h.run(app, path=path)
    preds = r.predictions()
    assert preds, f"{path.name} has no prediction radio named pred_*"
    for name, radio in preds.items():
        assert radio.value is None, f"{name} has a default answer"
        assert r.shows(radio), f"{name} is never displayed while its part is locked (deadlock)"
    assert h.problems(r) == []
    assert not r.figures, "a chart rendered before any prediction was answered"
    ledger = _ledger(_data_dir)
    assert ledger is None or not any(
        set(c["required"]) <= {k for k, v in c["answers"].items() if v} and c["required"]
        for c in ledger["chapters"].values()
    ), "the ledger marked a chapter completed on page load"


def test_prediction_cells_are_single_ungated_definitions(nb):
    """Every widget exists while the notebook is locked; a part's prediction (a radio), its
    controls and its transfer question share one cell with nothing but other widgets, one
    prediction a cell, and that cell shows the part's introduction and the question (fewer
    cells: marimo pays for every cell before the kernel's first run, so a part is three: intro
    with its widgets, gated result with the verdict at its top, transfer; 6.3 went 34 -> 24
    cells and its page ~0.17 s faster to its question, six alternating loads)."""
    path, app = nb
    locked = h.run(app, path=path)
    unlocked = h.run(app, unlock=True, path=path)
    widgets = unlocked.widgets()
    defs_by_cell = h.cell_defs(app)
    for name in widgets:
        assert name in locked.widgets(), f"widget {name} is created behind a gate"
        cell = next(d for d in defs_by_cell if name in d)
        if name.startswith("pred_"):
            others = sorted(n for n in cell - {name} if n.startswith("pred_"))
            assert not others, f"question {name} shares its cell with {others}"
        assert cell <= widgets.keys(), (
            f"widget {name} shares its cell with {sorted(cell - widgets.keys())}"
        )


def test_unlocked_runs_every_part(nb):
    path, app = nb
    h.skip_inventory(path)
    r = h.run(app, unlock=True, path=path)
    assert h.problems(r) == []
    assert len(r.figures) >= len(r.predictions()), "an unlocked part drew no chart"


def test_labels_also_fit_a_narrow_plot_in_the_first_state(nb):
    """The charts a student first sees (every part unlocked, widgets at their defaults) have no
    label problem at the narrow plot width either (a half-screen window): before the placement
    searched labels jointly, byom's iPhone line label ran off the left and two of its roofline
    labels overlapped there, and 6.1's DLRM label was crossed by the H100 memory line."""
    path, app = nb
    r = h.run(app, unlock=True, path=path)
    narrow = placement.WIDTHS[1]
    found = [
        f"chart {i}: {p}"
        for i, (traces, layout) in enumerate(r.charts)
        for p in placement.label_problems(traces, layout, narrow)
    ]
    assert found == []


def test_every_prediction_option(nb, _data_dir):
    path, app = nb
    h.skip_inventory(path)
    preds = h.run(app, path=path).predictions()
    width = max(len(h.grid(p)) for p in preds.values())
    for k in range(width):
        defs = {}
        for name, radio in preds.items():
            opts = h.grid(radio)
            defs[name] = h.with_value(radio, opts[k % len(opts)])
        r = h.run(app, defs=defs, path=path)
        assert h.problems(r) == [], f"option set {k}"
        assert len(r.figures) >= len(preds)
        text = r.visible_text
        assert ("Correct." in text) or ("Not quite" in text)
    ledger = _ledger(_data_dir)
    assert ledger is not None, "answers were not saved to the ledger"
    assert any(c["answers"] for c in ledger["chapters"].values())


@pytest.mark.parametrize("corner", ["min", "max"])
def test_widgets_at_extremes(nb, corner):
    path, app = nb
    h.skip_inventory(path)
    widgets = h.run(app, unlock=True, path=path).widgets()
    defs = {}
    for name, w in widgets.items():
        if name.startswith("pred_"):
            continue
        g = h.grid(w)
        defs[name] = h.with_value(w, g[0] if corner == "min" else g[-1])
    r = h.run(app, defs=defs, unlock=True, path=path)
    assert h.problems(r) == []
    assert len(r.figures) >= len(r.predictions())


def test_random_widget_states(nb):
    """Seeded fuzzing: random combinations of every widget's reachable values."""
    path, app = nb
    widgets = h.run(app, unlock=True, path=path).widgets()
    rng = random.Random(f"mlsysim-{path.stem}")
    for _ in range(3):
        defs = {name: h.with_value(w, rng.choice(h.grid(w))) for name, w in widgets.items()}
        r = h.run(app, defs=defs, unlock=True, path=path)
        assert h.problems(r) == [], {k: getattr(v, "value", None) for k, v in defs.items()}


def test_marimo_check_strict_passes_on_every_notebook():
    proc = subprocess.run(
        [sys.executable, "-m", "marimo", "check", "--strict", *map(str, h.NOTEBOOKS)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
