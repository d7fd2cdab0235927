"""A notebook's first verdict needs nothing the browser page loads later (issue 35).

The site loads pint, pydantic and plotly after the first question (``mlsysim.labs.browser``);
a student may answer at once. Feedback whose numbers come from the core would load them between
the click and the verdict (6.3's first verdict imported pydantic, 6.2's and 6.8's pint and
pydantic: 1-2 s in the browser). Those questions read their texts from
``mlsysim.labs.precomputed`` (``Deferred(..., precomputed=...)``), written from the core by
``scripts/precompute_feedback.py``; here the copy must equal what the core makes now.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from pathlib import Path

import pytest

import mlsysim.labs.parts as parts
from mlsysim.labs import browser, precomputed
from mlsysim.labs.components import Deferred, Prediction

import harness as h

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import precompute_feedback  # noqa: E402

LABS = [info.name for info in pkgutil.iter_modules(parts.__path__)]
STALE = "mlsysim/labs/precomputed.py is stale: run `python scripts/precompute_feedback.py`"


def test_precomputed_texts_equal_what_the_core_makes_now():
    opted = precompute_feedback.opted_in()
    assert set(opted) == set(precomputed.FEEDBACK), STALE
    for key, deferred in opted.items():
        assert precomputed.FEEDBACK[key] == deferred.make(), f"{key}: {STALE}"
    # the module is exactly what the script writes (nothing edited by hand)
    assert (ROOT / "mlsysim/labs/precomputed.py").read_text(
        encoding="utf-8"
    ) == precompute_feedback.render(), STALE


def test_a_precomputed_question_reads_its_copy_and_makes_nothing():
    calls = []

    def make():
        calls.append(1)
        return {"a": "made", "b": "made too"}

    key = next(iter(precomputed.FEEDBACK))
    copy = precomputed.FEEDBACK[key]
    d = Deferred(make, precomputed=key)
    assert dict(d) == copy and calls == []
    assert d.make() == {"a": "made", "b": "made too"} and calls == [1]
    # a key the module does not have: made from the core, as without one
    assert dict(Deferred(make, precomputed="no_lab.PRED_Z"))["a"] == "made"


_FIRST_VERDICT = """
import importlib, json, sys
lab = importlib.import_module("mlsysim.labs.parts." + sys.argv[1])
from mlsysim.labs import components as kit
pred = getattr(lab, "PRED_" + lab.PARTS[0])
kit.verdict(pred, None, locked="Part " + lab.PARTS[0])  # the first run shows the locked note
before = set(sys.modules)
shown = [kit.verdict(pred, key).text for key in pred.options]
new = {m.partition(".")[0] for m in set(sys.modules) - before}
print(json.dumps([sorted(new & set(json.loads(sys.argv[2]))), shown]))
"""


@pytest.mark.parametrize("stem", LABS)
def test_first_verdict_imports_no_later_package(stem):
    """Every option of a notebook's first prediction judged in a fresh interpreter after what the
    first run imports: none of pint, pydantic, plotly is imported, and each verdict shows its
    feedback (correct, or the misconception named)."""
    lab = importlib.import_module(f"mlsysim.labs.parts.{stem}")
    pred = getattr(lab, f"PRED_{lab.PARTS[0]}", None)
    if not isinstance(pred, Prediction):
        pytest.skip(f"{stem} has no first prediction")
    imported, shown = h.fresh_python(_FIRST_VERDICT, stem, json.dumps(sorted(browser.LATER)))
    assert imported == [], f"{stem}: the first verdict imports {imported}"
    assert len(shown) == len(pred.options)
    assert sum("Correct." in s for s in shown) == 1
    assert all("Correct." in s or "Not quite" in s for s in shown), shown


def test_the_labs_whose_first_feedback_needs_the_core_are_precomputed():
    """The three whose first feedback quotes the core (6.2, 6.3, 6.8) opt in; the check above
    covers every lab."""
    assert {"s06_02_mlps.PRED_A", "s06_03_cnns.PRED_A", "s06_08_dlrm.PRED_A"} <= set(
        precomputed.FEEDBACK
    )
    assert len(LABS) >= 14


def test_the_instructors_rebuild_remakes_the_copy_before_the_wheel():
    """An instructor who rewords a first prediction's feedback runs scripts/rebuild.sh (the
    command the instructor view names): it must remake the copy before packing the wheel, or
    the browser would show the old text."""
    lines = [
        line.strip()
        for line in (ROOT / "scripts" / "rebuild.sh").read_text().splitlines()
        if line.startswith("python ")
    ]
    wheel = lines.index("python scripts/build_wheel.py")
    # the copies of the first verdicts' feedback and of the first parts' views
    assert lines.index("python scripts/precompute_feedback.py") < wheel
    assert lines.index("python scripts/precompute_views.py") < wheel
