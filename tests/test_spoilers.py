"""The prediction comes first (issue 10): nothing a student can see while a part is locked gives
its answer away, in the notebook (header, intros, messages, takeaways, syntheses), in
``labs/README.md``'s map, or in the lab metadata the site index is built from.

Each ``Prediction`` lists its correct answer's distinctive phrases (``reveals``) and the numbers of
its correct option (``spoilers`` adds them). The notebook is rendered locked; every output except
the prediction radios themselves is searched for every spoiler of every question.
"""

from __future__ import annotations

import importlib
import re

import pytest

from mlsysim.labs.components import Prediction

import harness as h

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

README = (h.ROOT / "labs" / "README.md").read_text(encoding="utf-8")


def _lab_module(app):
    """The part module a notebook imports as ``lab`` (None for notebooks without one)."""
    return None


def _questions(mod) -> dict[str, Prediction]:
    return {n: p for n, p in vars(mod).items() if isinstance(p, Prediction)}


#: words after a ratio written with a space ("13.6 × faster"); "4 × heads" is a product
_COMPARATIVES = "faster|slower|more|fewer|less|larger|smaller|higher|lower|longer|shorter|as|the"


def _pattern(spoiler: str) -> re.Pattern:
    """Match a spoiler as a whole token: "160" must not match "1600" or "6.160"; "139×" matches
    "139×" and "139 ×"; phrases match case-insensitively."""
    m = re.fullmatch(r"([\d,.]*\d)\s?(.*)", spoiler)
    if not m:
        words = r"\s+".join(re.escape(w) for w in spoiler.split())
        return re.compile(rf"(?<!\w){words}(?!\w)", re.I)
    number, unit = m.groups()
    tail = rf"\s?{re.escape(unit)}" + (r"(?!\w)" if unit[-1:].isalnum() else "") if unit else ""
    if unit == "×":  # "3×3" is a size, not the ratio "3×"; "4 × S² × d" is a product
        tail = rf"(?:×(?!\s?\d)|\s×(?=\s?(?:{_COMPARATIVES})\b))"
    return re.compile(rf"(?<![\d.,]){re.escape(number)}(?!\d|[.,]\d){tail}", re.I)


def _significant(spoiler: str) -> bool:
    """Bare one- or two-digit numbers ("4 parts", "Part 12") are too common to count as a giveaway."""
    digits = re.sub(r"\D", "", spoiler)
    return not re.fullmatch(r"[\d,.]+", spoiler) or len(digits) >= 3


def _visible(outputs, skip_ids: set[str]) -> str:
    """The text of every output except the prediction radios themselves (an output of their own,
    or inside the part's introduction, where the question cell shows it)."""
    html_ = h._render(o for o in outputs if getattr(o, "_id", None) not in skip_ids)
    for i in skip_ids - {None}:
        html_ = re.sub(
            rf"<marimo-ui-element object-id=['\"]{re.escape(str(i))}['\"].*?</marimo-ui-element>",
            " ",
            html_,
            flags=re.S,
        )
    return h.text_of(html_)


def _lab_for(path):
    src = path.read_text(encoding="utf-8")
    m = re.search(r"from mlsysim\.labs\.parts import (\w+) as lab", src)
    return importlib.import_module(f"mlsysim.labs.parts.{m.group(1)}") if m else None


#: (notebook, part module) of every notebook that has questions
LABS = [(p, lab) for p in h.NOTEBOOKS if (lab := _lab_for(p)) is not None]


def _context(text: str, m: re.Match) -> str:
    """The 80 characters either side of a match, on one line (for a leak's message)."""
    return " ".join(text[max(0, m.start() - 80) : m.end() + 80].split())


def _radio_ids(*runs) -> set:
    """The ids of the question radios of these runs (their options are all shown: not leaks)."""
    return {
        getattr(x, "_id", None)
        for r in runs
        for n, x in r.widgets().items()
        if n.startswith(("pred_", "transfer_"))
    }


@pytest.fixture(autouse=True)
def _data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("MLSYSIM_DATA_DIR", str(tmp_path))


@pytest.mark.parametrize("path", h.NOTEBOOKS, ids=[p.stem for p in h.NOTEBOOKS])
def test_locked_notebook_gives_no_answer_away(path):
    lab = _lab_for(path)
    if lab is None:
        pytest.skip(f"{path.name} has no part module (no predictions)")
    app = h.load_app(path)
    r = h.run(app, path=path)
    text = _visible(r.outputs, _radio_ids(r))
    leaks = []
    for name, q in _questions(lab).items():
        for s in q.spoilers:
            if _significant(s) and (m := _pattern(s).search(text)):
                leaks.append(f"{name} answer {s!r} shown while locked: …{_context(text, m)}…")
    assert not leaks, "\n".join(leaks)


def test_readme_map_gives_no_answer_away():
    leaks = []
    for path, lab in LABS:
        for name, q in _questions(lab).items():
            for s in q.spoilers:
                if _significant(s) and _pattern(s).search(README):
                    leaks.append(f"labs/README.md shows {path.stem}.{name}'s answer {s!r}")
    assert not leaks, "\n".join(leaks)


def test_spoiler_matching_is_strict_about_tokens():
    assert _pattern("160").search("reuses 160 times")
    assert not _pattern("160").search("1600 or 6.160")
    assert _pattern("13.6×").search("is 13.6× faster") and _pattern("13.6×").search(
        "is 13.6 × faster"
    )
    assert not _pattern("13.6×").search("13.65×") and not _pattern("16.8 MB").search("116.8 MB")
    assert _pattern("16.8 MB").search("weights: 16.8MB")
    assert not _pattern("3×").search("ResNet-50's 3×3 share") and _pattern("3×").search(
        "about 3× more"
    )
    assert not _pattern("2×").search("FLOPs = 2 × (QKᵀ + PV)") and not _pattern("4×").search(
        "4 × S² × d"
    )
    assert not _pattern("4×").search("4 × heads × S²")
    assert not _significant("50") and _significant("16.15") and _significant("dispatch-bound")
    q = Prediction(
        "q",
        {"a": "About 139× (DRAM)", "b": "4 of them", "c": "16,384"},
        "a",
        {"a": "", "b": "", "c": ""},
        reveals=("fetch",),
    )
    assert q.spoilers == ("fetch", "139×")
    assert Prediction("q", {"c": "16,384 ms", "d": "x"}, "c", {"c": "", "d": ""}).spoilers == (
        "16,384 ms",
    )
    given = Prediction(
        "On an 80 GB GPU?", {"a": "56%, as on the A100 80GB", "b": "x"}, "a", {"a": "", "b": ""}
    )
    assert given.spoilers == ("56%",)


def _part_cases():
    return [
        pytest.param(path, name[-1], id=f"{path.stem}.{name}")
        for path, lab in LABS
        for name in sorted(_questions(lab))
        if re.fullmatch(r"PRED_[A-Z]", name)
    ]


def _leaks(text: str, questions: dict[str, Prediction], lab) -> list[str]:
    """Spoilers of ``questions`` in ``text``, after taking out every question's own wording and
    options (a radio shows all its options; a transfer's "4× both" is not a reveal of another
    question's "4×"). A bare "2×" … "9×" is skipped: too common on a page to name one answer."""
    owns = {t for q in _questions(lab).values() for t in (q.question, *q.options.values())}
    for own in sorted(owns, key=len, reverse=True):  # longest first: "The KV cache, near …"
        text = text.replace(own, " ")
    found = []
    for name, q in questions.items():
        for s in q.spoilers:
            if re.fullmatch(r"\d×", s):
                continue
            if _significant(s) and (m := _pattern(s).search(text)):
                found.append(f"{name}'s answer {s!r} shown: …{_context(text, m)}…")
    return found


@pytest.mark.parametrize(("path", "letter"), _part_cases())
def test_one_answer_gives_no_other_answer_away(path, letter):
    """After one prediction is answered (right or wrong), what its part shows at its defaults,
    its feedback included, must not answer the transfer question under it (else the transfer
    only asks the student to read the screen) nor a later part's prediction, still locked
    (6.6's Part A feedback said "Doubling S is the 4× case" above Part B's question). Parts are
    taken in order: a later part may restate an earlier part's answer."""
    lab = _lab_for(path)
    pred = getattr(lab, f"PRED_{letter}")
    others = {
        n: q
        for n, q in _questions(lab).items()
        if n == f"TRANSFER_{letter}" or (re.fullmatch(r"PRED_[A-Z]", n) and n[-1] > letter)
    }
    app = h.load_app(path)
    first = h.run(app, path=path)
    w = first.widgets()
    wrong = next(k for k in pred.options if k != pred.answer)
    leaks = []
    for given in (pred.answer, wrong):
        r = h.run(
            app,
            defs={f"pred_{letter.lower()}": h.with_value(w[f"pred_{letter.lower()}"], given)},
            path=path,
        )
        text = _visible(r.outputs, _radio_ids(first, r))
        leaks += [f"after answering {given!r}: {x}" for x in _leaks(text, others, lab)]
    assert not leaks, "\n".join(leaks)


@pytest.mark.parametrize(("path", "lab"), LABS, ids=[p.stem for p, _ in LABS])
def test_every_prediction_answered_gives_no_transfer_away(path, lab):
    """With every prediction answered and no transfer yet, the takeaways and synthesis are
    shown too: they must not answer a transfer question either (6.7's takeaways gave the 70B
    model's 140 GB that TRANSFER_E asks for)."""
    app = h.load_app(path)
    first = h.run(app, path=path)
    preds = first.predictions()
    defs = {n: h.with_value(wd, getattr(lab, n.upper()).answer) for n, wd in preds.items()}
    r = h.run(app, defs=defs, path=path)
    text = _visible(r.outputs, _radio_ids(first, r))
    transfers = {n: q for n, q in _questions(lab).items() if n.startswith("TRANSFER_")}
    leaks = _leaks(text, transfers, lab)
    assert not leaks, "\n".join(leaks)
