"""A prediction's options must not give its answer away by their form.

A reading of every lesson found the right option was the longest one in 66 of 112 predictions
(about 32 by chance) and often the only one that carried a reason: a student who picks the
longest, most qualified option scores well without thinking about the systems question. These
tests hold every prediction (``PRED_*`` and ``TRANSFER_*``) to three rules:

- the right option is not much longer than the longest wrong one
  (at most ``SLACK_CHARS`` characters or ``SLACK_SHARE`` of its length more, whichever is more);
- across the suite, the right option is the strictly longest one in at most ``LONGEST_SHARE`` of
  the predictions (chance is 1/len(options): 25-33%), and in at least ``LONGEST_FLOOR`` (so the
  rewording did not teach the opposite rule, "the longest is never right");
- the right option is not the odd one out on giving a reason: when every wrong option has a
  reason after a colon (or none has), the right one does too (or does not).
"""

from __future__ import annotations

import re

import pytest
from test_answer_keys import PREDICTIONS

SLACK_CHARS = 8
SLACK_SHARE = 0.15
LONGEST_SHARE = 0.40
LONGEST_FLOOR = 0.10
# "lead: reason": a colon followed by a space (a ratio such as 1:4 or a time has none)
REASON = re.compile(r":\s")

IDS = [f"{m}.{n}" for m, n in sorted(PREDICTIONS)]


def _wrong(p):
    return [v for k, v in p.options.items() if k != p.answer]


@pytest.mark.parametrize("ref", sorted(PREDICTIONS), ids=IDS)
def test_right_option_is_not_conspicuously_longer(ref):
    p = PREDICTIONS[ref]
    right = p.options[p.answer]
    longest_wrong = max(len(v) for v in _wrong(p))
    allowed = longest_wrong + max(SLACK_CHARS, round(SLACK_SHARE * longest_wrong))
    assert len(right) <= allowed, (
        f"{ref[0]}.{ref[1]}: the right option has {len(right)} characters, the longest wrong one "
        f"{longest_wrong} (allowed {allowed}): shorten it or give a wrong option its reason"
    )


def test_right_option_is_not_usually_the_longest():
    longest = [
        ref
        for ref, p in PREDICTIONS.items()
        if all(len(p.options[p.answer]) > len(v) for v in _wrong(p))
    ]
    share = len(longest) / len(PREDICTIONS)
    assert LONGEST_FLOOR <= share <= LONGEST_SHARE, (
        f"the right option is the longest in {len(longest)} of {len(PREDICTIONS)} predictions "
        f"({share:.0%}); allowed {LONGEST_FLOOR:.0%}-{LONGEST_SHARE:.0%}: {sorted(longest)}"
    )


@pytest.mark.parametrize("ref", sorted(PREDICTIONS), ids=IDS)
def test_right_option_is_not_the_odd_one_out_on_reasons(ref):
    p = PREDICTIONS[ref]
    wrong = [bool(REASON.search(v)) for v in _wrong(p)]
    if len(wrong) < 2 or len(set(wrong)) != 1:
        return  # the wrong options disagree among themselves: no pattern to break
    right = bool(REASON.search(p.options[p.answer]))
    assert right == wrong[0], (
        f"{ref[0]}.{ref[1]}: the right option is the only one "
        f"{'with' if right else 'without'} a reason after a colon"
    )


def test_the_rules_catch_what_they_name():
    """The checks are not vacuous: a made-up prediction that breaks each rule is caught."""
    from mlsysim.labs.components import Prediction

    p = Prediction(
        question="Which is right?",
        options={
            "a": "Short",
            "b": "Also short",
            "c": "The right one: with a reason that runs on for many words",
        },
        answer="c",
        feedback={"a": "No.", "b": "No.", "c": "Yes."},
    )
    saved = dict(PREDICTIONS)
    try:
        PREDICTIONS.clear()
        PREDICTIONS[("x", "PRED_X")] = p
        with pytest.raises(AssertionError):
            test_right_option_is_not_conspicuously_longer(("x", "PRED_X"))
        with pytest.raises(AssertionError):
            test_right_option_is_not_usually_the_longest()
        with pytest.raises(AssertionError):
            test_right_option_is_not_the_odd_one_out_on_reasons(("x", "PRED_X"))
    finally:
        PREDICTIONS.clear()
        PREDICTIONS.update(saved)
