"""Issue 10, #11 (the class): what 6.6-6.10 and Lab 06 show at their defaults and at every option of
their choice widgets reads as prose for a student: device and model names, never registry keys
(``JetsonOrinNX``, ``CortexA53Camera``); bottlenecks lower-case mid-sentence ("dispatch-bound");
no "MFU 0.0%" for a workload whose useful work the MFU does not measure."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest
from viewtext import default_args, view_text

from mlsysim.hardware import Hardware
from mlsysim.labs.components import Choice

STEMS = (
    "s06_06_attention",
    "s06_07_transformers",
    "s06_08_dlrm",
    "s06_09_choosing",
    "s06_10_fallacies",
    "lab06",
)
#: Registry keys that are not words: CamelCase or with an underscore.
KEYS = [
    d.key
    for d in Hardware.all()
    if re.search(r"[a-z][A-Z]|_|\d[A-Z]", d.key) and d.key not in d.name
] + ["GPT2Small", "Llama7B", "ResNet50"]
KEY_RE = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, KEYS)) + r")(?![\w])")
CAPITAL_BOUND = re.compile(
    r"\b(Dispatch|Compute|Memory)-bound|[a-z,;:(] (Dispatch|Compute|Memory)\b(?! \w+:)"
)


def _views():
    for stem in STEMS:
        mod = importlib.import_module(f"mlsysim.labs.parts.{stem}")
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            if fn.__module__ != mod.__name__ or not (
                re.fullmatch(r"part_[a-z]", name) or name == "synthesis"
            ):
                continue
            letter = "S" if name == "synthesis" else name[-1].upper()
            base = default_args(mod, letter, fn)
            states = [base]
            for p in base:
                spec = getattr(mod, f"{letter}_{p.upper()}")
                if isinstance(spec, Choice):
                    states += [{**base, p: o} for o in spec.options if o != base[p]]
            for s in states:
                yield f"{stem}.{name}({s})", fn, s


CASES = list(_views())


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_prose_not_registry_keys(case):
    label, fn, args = case
    text = view_text(fn(**args))
    assert not KEY_RE.search(text), f"{label}: registry key {KEY_RE.search(text).group(0)!r} shown"
    m = CAPITAL_BOUND.search(text)
    assert not m, (
        f"{label}: capitalised bottleneck mid-sentence: {text[max(0, m.start() - 40) : m.end() + 20]!r}"
    )
    assert "MFU 0.0%" not in text, label


@pytest.mark.parametrize(
    "stem",
    sorted(
        p.stem
        for p in (Path(__file__).resolve().parent.parent / "labs").glob("*.py")
        # the concept inventory teaches nothing in the pre-test; the post-test's before and
        # after is gated on its twelve questions (tests/test_inventory.py)
        if p.stem.startswith(("s06_", "lab06")) and "inventory" not in p.stem
    ),
)
def test_takeaways_and_syntheses_are_gated_on_every_prediction(stem):
    """Issue 10: takeaways and syntheses summarise the answers, so they stay hidden until every
    prediction they summarise is answered (6.9's takeaways were shown on load)."""
    from pathlib import Path

    src = (Path(__file__).resolve().parent.parent / "labs" / f"{stem}.py").read_text(
        encoding="utf-8"
    )
    cells = src.split("@app.cell")
    preds = sorted(set(re.findall(r"\bpred_[a-z]\b", src)))
    # every lesson ends with what it taught (6.12 and 6.13 just stopped after their last part)
    assert any(
        ("## Takeaways" in c or "## Synthesis" in c or "lab.synthesis(" in c) for c in cells
    ), f"{stem}: no takeaways"
    for cell in cells:
        if "Takeaways" in cell or "lab.synthesis(" in cell:
            assert "mo.stop(" in cell, f"{stem}: a takeaways/synthesis cell is not gated"
            missing = [p for p in preds if p not in cell]
            assert not missing, f"{stem}: takeaways/synthesis cell not gated on {missing}"


def test_roofline_chart_names_its_ridge():
    """Issue 10 #2 in the kit: the roofline chart labelled peak × 0.5 / BW = 148 'ridge'. It now
    says which ridge it draws, and never derates the camera SoC's sustained 2 GOPS again."""
    from viewtext import render, view_text

    from mlsysim.labs import charts
    from mlsysim.labs.parts import lab06, s06_07_transformers
    from mlsysim.labs.vocab import LABELS

    assert f"{LABELS['ridge_sustained']}, η = 0.5: 148 FLOP/B" in view_text(
        render(s06_07_transformers, "A")
    )
    assert f"{LABELS['ridge_peak']}: 295 FLOP/B" in view_text(render(lab06, "D"))
    cam = charts.roofline(Hardware.get("CortexA53Camera"), "int8", 0.5)
    text = " ".join(str(a.text) for a in cam.layout.annotations)
    assert (
        f"{LABELS['ridge_peak']}: 0.625 OP/B" in text  # INT8: operations
    )  # 2 GOP/s / 3.2 GB/s = 0.625, not derated to 0.31


def test_facts_agree_across_every_choice_state():
    """The suite's consistency test compares facts at defaults; here every choice option of every
    part of 6.6-6.10 and Lab 06 is rendered, and each fact key must carry one value everywhere and
    equal the core's own value (e.g. ResNet-50 on the camera SoC: 6.9 D and the Lab 06 synthesis)."""
    from collections import defaultdict

    import test_consistency as tc

    seen = defaultdict(set)
    for label, fn, args in CASES:
        for f in fn(**args).all_facts():
            seen[f.key].add(round(f.value, 12))
            expect = tc._recompute(f)
            assert expect is None or f.value == pytest.approx(expect, rel=1e-9), (
                label,
                f.key,
                f.value,
                expect,
            )
    clashes = {k: v for k, v in seen.items() if len(v) > 1}
    assert not clashes, clashes
    assert any(
        k.startswith("latency(") and "CortexA53Camera" in k and "ResNet50" in k for k in seen
    )
