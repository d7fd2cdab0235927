"""The question rubric (issue 32): every question asks about behaviour, and every wrong option
names the misconception it stands for.

Each ``PRED_*`` and ``TRANSFER_*`` declares what it ``asks`` (``components.ASKS``: behaviour,
regime, direction, estimate or retrieval) and, for each wrong option, the ``Misconception`` it
stands for. Over the suite's predictions (asked before a part opens):

- behaviour, regime and direction together are at least ``MODEL_SHARE`` (they need a mental model);
- an estimate (arithmetic on the stem's own figures) at most ``ESTIMATE_SHARE``;
- retrieval (a chapter statement recalled) at most ``RETRIEVAL_SHARE``, and labelled as recall on
  the page.

Options are parallel in form: every option of a question gives a reason after a colon, or none
does, and the longest label is at most ``LENGTH_FACTOR`` times the shortest. A question whose
answer rests on an engine assumption (a launch cost, an efficiency, a reserve) states it in its
stem (``ASSUMPTION_WORDS``) or is checked at both ends of the assumption's range in
``tests/test_answer_keys.py``.
"""

from __future__ import annotations

import pytest
from test_answer_keys import PREDICTIONS
from test_option_form import IDS, REASON  # one rule for "gives a reason" across the suite

from mlsysim.labs.components import ASKS, Misconception, Prediction

MODEL_SHARE = 0.60
ESTIMATE_SHARE = 0.10
RETRIEVAL_SHARE = 0.15
LENGTH_FACTOR = 2.0

PREDICTS = {ref: p for ref, p in PREDICTIONS.items() if p.kind == "predict"}


def _wrong(p: Prediction) -> list[str]:
    return [k for k in p.options if k != p.answer]


def counts(questions) -> dict[str, int]:
    out = dict.fromkeys(ASKS, 0)
    for p in questions:
        out[p.asks] = out.get(p.asks, 0) + 1
    return out


def shares(questions) -> dict[str, float]:
    c = counts(questions)
    n = max(1, sum(c.values()))
    return {
        "model": (c["behaviour"] + c["regime"] + c["direction"]) / n,
        "estimate": c["estimate"] / n,
        "retrieval": c["retrieval"] / n,
    }


@pytest.mark.parametrize("ref", sorted(PREDICTIONS), ids=IDS)
def test_question_declares_what_it_asks(ref):
    p = PREDICTIONS[ref]
    assert p.asks in ASKS, f"{ref[0]}.{ref[1]}: asks={p.asks!r}; one of {list(ASKS)}"


@pytest.mark.parametrize("ref", sorted(PREDICTIONS), ids=IDS)
def test_every_wrong_option_names_its_misconception(ref):
    p = PREDICTIONS[ref]
    assert set(p.misconceptions) == set(_wrong(p)), (
        f"{ref[0]}.{ref[1]}: misconceptions for {sorted(p.misconceptions)}, wrong options "
        f"{sorted(_wrong(p))}"
    )
    names = [m.name.lower() for m in p.misconceptions.values()]
    assert len(set(names)) == len(names), f"{ref[0]}.{ref[1]}: two options, one misconception"
    for key, m in p.misconceptions.items():
        assert isinstance(m, Misconception)
        assert len(m.name) <= 60, f"{ref[0]}.{ref[1]}[{key}]: name is a name, not a paragraph"
        assert m.belief.strip() != m.name.strip(), f"{ref[0]}.{ref[1]}[{key}]: say the belief"
        fb = p.feedback[key]
        assert fb.strip() and fb != p.feedback[p.answer], f"{ref[0]}.{ref[1]}[{key}]: feedback"


@pytest.mark.parametrize("ref", sorted(PREDICTIONS), ids=IDS)
def test_options_are_parallel_in_form(ref):
    p = PREDICTIONS[ref]
    labels = list(p.options.values())
    reasons = {bool(REASON.search(v)) for v in labels}
    assert len(reasons) == 1, (
        f"{ref[0]}.{ref[1]}: some options give a reason after a colon and some do not: {labels}"
    )
    lengths = [len(v) for v in labels]
    assert max(lengths) <= LENGTH_FACTOR * min(lengths), (
        f"{ref[0]}.{ref[1]}: option lengths {lengths} differ by more than {LENGTH_FACTOR}x"
    )


@pytest.mark.parametrize("ref", sorted(PREDICTIONS), ids=IDS)
def test_recall_is_labelled_as_recall(ref):
    p = PREDICTIONS[ref]
    if p.asks == "retrieval":
        assert "Recall" in p.prefix
    else:
        assert "Recall" not in p.prefix


def test_suite_targets():
    s = shares(PREDICTS.values())
    c = counts(PREDICTS.values())
    assert s["model"] >= MODEL_SHARE, (c, s)
    assert s["estimate"] <= ESTIMATE_SHARE, (c, s)
    assert s["retrieval"] <= RETRIEVAL_SHARE, (c, s)


def test_rules_catch_what_they_name():
    """A made-up question breaking each rule is caught; a made-up suite off target too."""
    bad = Prediction(
        question="Which?",
        options={"a": "Short", "b": "Also short", "c": "Right: with a reason that runs on and on"},
        answer="c",
        feedback={"a": "No.", "b": "No.", "c": "Yes."},
        asks="behaviour",
        misconceptions={"a": ("one", "belief one")},
    )
    saved = dict(PREDICTIONS)
    try:
        PREDICTIONS.clear()
        PREDICTIONS[("x", "PRED_X")] = bad
        for test in (
            test_every_wrong_option_names_its_misconception,
            test_options_are_parallel_in_form,
        ):
            with pytest.raises(AssertionError):
                test(("x", "PRED_X"))
    finally:
        PREDICTIONS.clear()
        PREDICTIONS.update(saved)
    with pytest.raises(ValueError, match="asks="):
        Prediction("q", {"a": "x", "b": "y"}, "a", {"a": "", "b": ""}, asks="arithmetic")
    with pytest.raises(ValueError, match="not a wrong option"):
        Prediction(
            "q", {"a": "x", "b": "y"}, "a", {"a": "", "b": ""}, misconceptions={"a": ("n", "b")}
        )
    recall = Prediction("q", {"a": "x", "b": "y"}, "a", {"a": "", "b": ""}, asks="retrieval")
    assert "Recall" in recall.prefix and "Recall" in recall.radio().text
    arithmetic = [
        Prediction("q", {"a": "x", "b": "y"}, "a", {"a": "", "b": ""}, asks=a)
        for a in ["estimate"] * 2 + ["behaviour"] * 8
    ]
    assert shares(arithmetic)["estimate"] > ESTIMATE_SHARE


def test_a_wrong_answer_names_its_trap():
    p = Prediction(
        "Doubling S?",
        {"a": "4×: quadratic", "b": "2×: linear"},
        "a",
        {"a": "Yes.", "b": "Every pair of tokens has a score."},
        asks="direction",
        misconceptions={
            "b": ("attention is linear in S", "Each token does a fixed amount of work")
        },
    )
    body, kind = p.verdict_html("b")
    assert kind == "warn" and "The trap: attention is linear in S." in body
    body, kind = p.verdict_html("a")
    assert kind == "success" and "trap" not in body
