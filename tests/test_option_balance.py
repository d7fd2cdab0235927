"""Answer patterns a test-wise student could exploit (review of the bank after issue 32).

Two patterns, each measured over the questions that offer the student the choice:

1. **The cases differ.** A stem names two or more cases side by side (devices, models, layers,
   design alternatives) and the options include both a *uniform* answer (the cases behave alike)
   and a *split* one (they fall in different regimes, or "it depends"). If the split option is
   nearly always right, "pick the one that says they differ" wins without a model of either
   case. ``CONTRAST`` tags every such question; the split option may be right in at most
   ``SPLIT_SHARE`` of them.
2. **The qualified middle.** The options include an extreme, usually the naive *full* scaling
   (the stem's own ratio: "about 32×", "close to 4.3×") or no change at all, and a *qualified
   middle* between the extremes ("far less than 32×", "only slightly", "about half"). ``MIDDLE`` tags every such question; the middle may be right in at most
   ``MIDDLE_SHARE`` of them.

Every question whose option labels use a hedge word (``HEDGE``) or say "on both" / "at both" /
"on each" must be tagged here or listed in ``UNTAGGED`` with its reason, so a new question cannot
slip past the count. Tags name option keys; a renamed key fails the test.
"""

from __future__ import annotations

import re

import pytest
from test_answer_keys import PREDICTIONS

SPLIT_SHARE = 0.60
MIDDLE_SHARE = 0.60

#: (module, name) -> (split option keys, uniform option keys)
CONTRAST = {
    ("byom", "PRED_B"): ({"split", "reverse"}, {"ffn_both", "scores_both"}),
    ("s06_01_principles", "PRED_C"): ({"split", "reversed"}, {"both_compute", "both_memory"}),
    ("s06_03_cnns", "PRED_D"): ({"slower"}, {"flops", "launch", "weights"}),
    ("s06_03_cnns", "PRED_E"): ({"conv", "reversed"}, {"both", "neither"}),
    ("s06_03_cnns", "TRANSFER_D"): ({"split"}, {"flops", "launch"}),
    ("s06_04_skip_norm", "PRED_C"): ({"split", "batch"}, {"far", "near", "above"}),
    ("s06_04_skip_norm", "TRANSFER_C"): ({"peak"}, {"bandwidth", "same"}),
    ("s06_05_rnns", "PRED_A"): ({"long"}, {"10x", "steps", "parallel"}),
    ("s06_05_rnns", "PRED_C"): ({"flat", "rnn_grows", "quad"}, {"both"}),
    ("s06_06_attention", "PRED_A"): ({"s4", "d4"}, {"equal", "macs"}),
    ("s06_07_transformers", "TRANSFER_A"): ({"split"}, {"launch", "memory", "compute"}),
    ("s06_07_transformers", "TRANSFER_D"): ({"split"}, {"little", "4x", "none"}),
    ("s06_09_choosing", "PRED_B"): ({"gpt2", "no_dlrm"}, {"none", "all"}),
    ("s06_12_tradeoffs", "PRED_A"): ({"camera", "edge"}, {"all", "none"}),
    ("s06_13_building_blocks", "PRED_E"): ({"block", "tied"}, {"flops"}),
}

#: (module, name) -> (extreme option keys: the full scaling or none, qualified-middle option keys)
MIDDLE = {
    ("lab06", "PRED_B"): ({"still", "fits"}, {"half"}),
    ("lab06", "PRED_C"): ({"10x"}, {"2x"}),
    ("lab06", "TRANSFER_C"): ({"four"}, {"some"}),
    ("lab06", "TRANSFER_D"): ({"half"}, {"some"}),
    ("s06_03_cnns", "PRED_D"): ({"flops"}, {"launch", "weights"}),
    ("s06_05_rnns", "TRANSFER_A"): ({"x16"}, {"x4", "little"}),
    ("s06_06_attention", "PRED_D"): ({"bytes", "linear"}, {"compute"}),
    ("s06_06_attention", "TRANSFER_D"): ({"same", "more"}, {"few"}),
    ("s06_07_transformers", "PRED_A"): ({"1024x"}, {"180x"}),
    ("s06_07_transformers", "PRED_B"): ({"32x"}, {"less"}),
    ("s06_07_transformers", "TRANSFER_B"): ({"near32"}, {"less", "as7b"}),
    ("s06_07_transformers", "TRANSFER_D"): ({"4x"}, {"little"}),
    ("s06_08_dlrm", "PRED_B"): ({"fall"}, {"some"}),
    ("s06_08_dlrm", "PRED_D"): ({"double"}, {"grow"}),
    ("s06_09_choosing", "PRED_D"): ({"idle", "infer"}, {"even"}),
    ("s06_09_choosing", "TRANSFER_A"): ({"four"}, {"double"}),
    ("s06_09_choosing", "TRANSFER_B"): ({"half", "quarter"}, {"barely"}),
    ("s06_10_fallacies", "PRED_A"): ({"flops"}, {"less"}),
    ("s06_10_fallacies", "PRED_B"): ({"16x"}, {"under"}),
    ("s06_10_fallacies", "PRED_D"): ({"2x"}, {"less"}),
    ("s06_10_fallacies", "TRANSFER_B"): ({"near4"}, {"2x", "under2"}),
    ("s06_10_fallacies", "TRANSFER_D"): ({"quarter", "same"}, {"half"}),
    ("s06_11_primitives", "PRED_C"): ({"quarter"}, {"less"}),
    ("s06_13_building_blocks", "PRED_C"): ({"x2"}, {"x1_25"}),
    ("s06_13_building_blocks", "PRED_D"): ({"linear"}, {"less"}),
    ("inventory", "FLOPS_1"): ({"proportional"}, {"less"}),
    ("inventory", "FLOPS_2"): ({"proportional"}, {"less"}),
}

#: words that mark a qualified option, or an answer per case
HEDGE = re.compile(
    r"\b(but (?:by )?less|less than|well under|short of|far less|only slightly|slightly|"
    r"a few|about half|close to half|in between|level off|a little|on both|at both|"
    r"on each|at either)\b",
    re.I,
)

#: flagged by ``HEDGE`` but outside both patterns, with the reason
UNTAGGED = {
    ("s06_09_choosing", "PRED_C"): "a share of energy between two extremes, no stem ratio",
    ("s06_11_primitives", "TRANSFER_C"): "between two access patterns; no stem ratio",
    ("s06_06_attention", "PRED_C"): "how far the context reaches; no full-scaling option",
    ("s06_06_attention", "TRANSFER_E"): "one case; 'slightly' is a direction",
    ("s06_10_fallacies", "TRANSFER_A"): "moves toward one of two ratios; no uniform option",
    ("s06_02_mlps", "TRANSFER_A"): "which memory; 'a few' describes the layer",
    ("s06_03_cnns", "TRANSFER_C"): "a direction; 'a few' qualifies the right direction only",
    ("s06_05_rnns", "TRANSFER_B"): "'on each other' describes the two directions",
    ("s06_08_dlrm", "TRANSFER_A"): "a trade-off; 'a few' describes the MACs",
    ("s06_09_choosing", "PRED_A"): "which model; 'a few' describes the rows",
}


@pytest.mark.parametrize("table", [CONTRAST, MIDDLE], ids=["contrast", "middle"])
def test_tags_name_real_options(table):
    for ref, (one, other) in table.items():
        assert ref in PREDICTIONS, f"{ref}: no such question"
        keys = set(PREDICTIONS[ref].options)
        assert one | other <= keys, f"{ref}: tags {sorted(one | other)}, options {sorted(keys)}"
        assert not one & other, ref


def _share(table) -> tuple[int, int]:
    right = sum(PREDICTIONS[ref].answer in table[ref][1] for ref in table)
    return right, len(table)


def test_a_split_option_is_not_a_safe_bet():
    right = sum(PREDICTIONS[ref].answer in CONTRAST[ref][0] for ref in CONTRAST)
    n = len(CONTRAST)
    assert n >= 10, n
    assert right / n <= SPLIT_SHARE, f"split option right in {right} of {n}"
    uniform = sum(PREDICTIONS[ref].answer in CONTRAST[ref][1] for ref in CONTRAST)
    assert uniform >= 0.35 * n, f"uniform option right in only {uniform} of {n}"


def test_a_qualified_middle_is_not_a_safe_bet():
    right, n = _share(MIDDLE)
    assert n >= 15, n
    assert right / n <= MIDDLE_SHARE, f"qualified middle right in {right} of {n}"
    full = sum(PREDICTIONS[ref].answer in MIDDLE[ref][0] for ref in MIDDLE)
    assert full >= 0.25 * n, f"full scaling right in only {full} of {n}"


def test_every_hedged_question_is_counted():
    flagged = {
        ref for ref, p in PREDICTIONS.items() if any(HEDGE.search(v) for v in p.options.values())
    }
    missing = sorted(flagged - set(CONTRAST) - set(MIDDLE) - set(UNTAGGED))
    assert not missing, f"tag these in CONTRAST or MIDDLE, or list them in UNTAGGED: {missing}"
    stale = sorted(set(UNTAGGED) - flagged)
    assert not stale, f"no longer hedged, drop from UNTAGGED: {stale}"


def test_the_counts_catch_a_biased_bank():
    """A made-up bank where the split / middle option always wins fails both limits."""
    from types import SimpleNamespace

    saved = dict(PREDICTIONS)
    try:
        for ref in CONTRAST:
            p = PREDICTIONS[ref]
            PREDICTIONS[ref] = SimpleNamespace(
                options=p.options, answer=sorted(CONTRAST[ref][0])[0]
            )
        with pytest.raises(AssertionError):
            test_a_split_option_is_not_a_safe_bet()
        for ref in MIDDLE:
            p = PREDICTIONS[ref]
            PREDICTIONS[ref] = SimpleNamespace(options=p.options, answer=sorted(MIDDLE[ref][1])[0])
        with pytest.raises(AssertionError):
            test_a_qualified_middle_is_not_a_safe_bet()
    finally:
        PREDICTIONS.clear()
        PREDICTIONS.update(saved)


def report() -> str:
    """The two counts, for the review notes: ``python tests/test_option_balance.py``."""
    split = sum(PREDICTIONS[r].answer in CONTRAST[r][0] for r in CONTRAST)
    uniform = sum(PREDICTIONS[r].answer in CONTRAST[r][1] for r in CONTRAST)
    middle = sum(PREDICTIONS[r].answer in MIDDLE[r][1] for r in MIDDLE)
    extreme = sum(PREDICTIONS[r].answer in MIDDLE[r][0] for r in MIDDLE)
    return (
        f"contrast: {len(CONTRAST)} questions, split right {split}, uniform right {uniform}\n"
        f"middle: {len(MIDDLE)} questions, middle right {middle}, extreme right {extreme}"
    )


if __name__ == "__main__":
    print(report())
