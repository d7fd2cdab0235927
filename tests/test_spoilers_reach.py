"""Nothing a student can reach before committing answers the question (issue 32).

``tests/test_spoilers.py`` renders the locked page and each part at its defaults. A student can
reach more: every widget state of every earlier part of the same notebook, every option's feedback
of the questions already answered, and every earlier notebook in ``labs/README.md``'s order. Here:

- ``test_earlier_parts_give_no_answer_away``: for each part's prediction, every state of every
  earlier part (``reach.states``: the widget grid and each slider through every step) and every
  earlier question's feedback (all options) must show none of its spoilers;
- ``test_transfer_is_beyond_its_controls``: a transfer question asks about a case its part's
  controls cannot reach, so no reachable state of its part shows its spoilers;
- ``test_earlier_notebooks_give_no_answer_away``: no earlier notebook, at its defaults and
  unlocked (every part, every option's feedback, the takeaways), shows the spoilers of a later
  notebook's question, unless that question is an explicit recall question (``asks="retrieval"``).

A spoiler is as in ``test_spoilers.py``: a question's ``reveals`` and the numbers of its correct
option; the wording and options of the questions on the page are taken out first, and a bare
"2×" … "9×" is too common to name one answer.
"""

from __future__ import annotations

import re
from functools import cache

import pytest
import reach
from test_spoilers import _context, _pattern, _radio_ids, _significant, _visible

from mlsysim.labs.components import Prediction

import harness as h

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _owns(*mods) -> list[str]:
    owns = {
        t
        for m in mods
        for q in reach.questions(m).values()
        for t in (q.question, *q.options.values())
    }
    return sorted(owns, key=len, reverse=True)


def leaks(text: str, questions: dict[str, Prediction], owns: list[str]) -> list[str]:
    for own in owns:
        text = text.replace(own, " ")
    found = []
    for name, q in questions.items():
        for s in q.spoilers:
            if re.fullmatch(r"\d×", s) or not _significant(s):
                continue
            if m := _pattern(s).search(text):
                found.append(f"{name}'s answer {s!r} shown: …{_context(text, m)}…")
    return found


def _letters(mod) -> list[str]:
    return list(mod.PARTS)


def _earlier_cases():
    for stem in reach.ORDER:
        mod = reach.module(stem)
        for i, letter in enumerate(_letters(mod)):
            if i:
                yield pytest.param(stem, letter, id=f"{stem}.PRED_{letter}")


@pytest.mark.parametrize(("stem", "letter"), list(_earlier_cases()))
def test_earlier_parts_give_no_answer_away(stem, letter):
    mod = reach.module(stem)
    qs = reach.questions(mod)
    target = {f"PRED_{letter}": qs[f"PRED_{letter}"]}
    owns = _owns(mod)
    found = []
    for earlier in _letters(mod)[: _letters(mod).index(letter)]:
        for name in (f"PRED_{earlier}", f"TRANSFER_{earlier}"):
            if name in qs:
                found += [
                    f"{name}'s feedback: {x}"
                    for x in leaks(reach.question_text(qs[name]), target, owns)
                ]
        for state, text in reach.part_texts(stem, earlier):
            found += [f"part {earlier} at {state}: {x}" for x in leaks(text, target, owns)]
    assert not found, "\n".join(dict.fromkeys(found))


def _transfer_cases():
    for stem in reach.ORDER:
        mod = reach.module(stem)
        for letter in _letters(mod):
            if f"TRANSFER_{letter}" in reach.questions(mod) and reach.part_function(mod, letter):
                yield pytest.param(stem, letter, id=f"{stem}.TRANSFER_{letter}")


@pytest.mark.parametrize(("stem", "letter"), list(_transfer_cases()))
def test_transfer_is_beyond_its_controls(stem, letter):
    mod = reach.module(stem)
    target = {f"TRANSFER_{letter}": reach.questions(mod)[f"TRANSFER_{letter}"]}
    owns = _owns(mod)
    found = []
    for state, text in reach.part_texts(stem, letter):
        found += [f"part {letter} at {state}: {x}" for x in leaks(text, target, owns)]
    assert not found, "\n".join(list(dict.fromkeys(found))[:20])


@cache
def _notebook_text(stem: str) -> str:
    """An earlier notebook as a student may have left it: unlocked, every part at its
    defaults, every option's feedback read."""
    path = h.ROOT / "labs" / f"{reach.NOTEBOOK_OF[stem]}.py"
    app = h.load_app(path)
    r = h.run(app, unlock=True, path=path)
    mod = reach.module(stem)
    texts = [_visible(r.outputs, _radio_ids(r))]
    texts += [reach.question_text(q) for q in reach.questions(mod).values()]
    for letter in [*_letters(mod), "S"]:
        fn = reach.part_function(mod, letter)
        if fn is not None:
            defaults = [
                getattr(mod, f"{letter}_{p.upper()}").value
                for p in __import__("inspect").signature(fn).parameters
            ]
            texts.append(reach.view_text(fn(*defaults)))
    return "\n".join(texts)


@pytest.mark.parametrize("stem", reach.ORDER[1:])
def test_earlier_notebooks_give_no_answer_away(stem, tmp_path, monkeypatch):
    monkeypatch.setenv("MLSYSIM_DATA_DIR", str(tmp_path))
    mod = reach.module(stem)
    target = {n: q for n, q in reach.questions(mod).items() if q.asks != "retrieval"}
    found = []
    for earlier in reach.ORDER[: reach.ORDER.index(stem)]:
        owns = _owns(mod, reach.module(earlier))
        found += [f"{earlier}: {x}" for x in leaks(_notebook_text(earlier), target, owns)]
    assert not found, "\n".join(dict.fromkeys(found))


def test_reach_covers_every_slider_step():
    """The sweep reaches what a student can set: 6.3 A's resolution slider runs 32..1,024 in
    steps of 32, so 448 is among the states (a transfer about 448 px would be on screen)."""
    from mlsysim.labs.parts import s06_03_cnns as lab

    sides = {s[0] for s in reach.states(lab, "A")}
    assert 448 in sides and 32 in sides and 1024 in sides
    assert leaks(
        "the 448 px map",
        {"T": Prediction("q", {"a": "448 px", "b": "x"}, "a", {"a": "", "b": ""})},
        [],
    )
