"""labs/COVERAGE.md stays true (issue 36).

- Every row cites tests that exist and notebook parts that exist.
- Every **taught** row names where a student sees it: a part, a widget state and the text or number
  shown (the "Seen at" column, ``s06_02 A {d_in=784} "401.4 KB"``). The test checks that every
  value of that state is one the part's widgets can produce (a slider value on its steps, a choice
  among its options, a switch), renders the part in that state (the part function the notebook
  calls with its widgets' values, the text the page shows: ``tests/reach.py``) and finds the text.
  ``s06_01 B PRED_B "..."`` instead names a question of that part, whose feedback the student reads
  once committed. A row only mentioned may name where too (checked the same way) and counts apart.
- The per-section summary (in COVERAGE.md and its copy in labs/README.md) is recomputed from the rows.
"""

from __future__ import annotations

import inspect
import math
import re
from pathlib import Path

import pytest
import reach

from mlsysim.labs.components import Choice, Prediction, Slider, Toggle

ROOT = Path(__file__).resolve().parent.parent
COVERAGE = (ROOT / "labs" / "COVERAGE.md").read_text(encoding="utf-8")
README = (ROOT / "labs" / "README.md").read_text(encoding="utf-8")

STATUS = r"taught|mentioned: .+|not taught: .+"
ROW = re.compile(rf"^\| (\d+) \| (.+?) \| (P|L|P, L) \| (.+?) \| (.+?) \| (.+?) \| ({STATUS}) \|$")
SECTION = re.compile(r"^\| \| \*\*(.+?)\*\* \| \| \| \| \| \|$")
SEEN = re.compile(r'^`(s06_\d\d|lab06) ([A-HS]) (\{[^}]*\}|[A-Z][A-Z0-9_]*) "([^"`]+)"`$')


def _rows():
    section, out = None, []
    for line in COVERAGE.splitlines():
        if m := SECTION.match(line):
            section = m.group(1)
        elif m := ROW.match(line):
            out.append((section, *m.groups()))
        elif re.match(r"^\| \d+ \| ", line):
            raise AssertionError(f"row does not parse: {line[:80]}")
    return out


ROWS = _rows()
TAUGHT = [r for r in ROWS if r[7] == "taught"]


def test_rows_are_numbered_and_sectioned():
    assert len(ROWS) >= 150
    assert [int(r[1]) for r in ROWS] == list(range(1, len(ROWS) + 1))
    assert all(r[0] for r in ROWS)


def test_no_checkpoint_is_an_item():
    """Checkpoints are prompts about items, not items (issue 36)."""
    assert not [r[2] for r in ROWS if re.search(r"\bCheckpoint\b", r[2])]


def _test_exists(ref: str) -> bool:
    file, name = ref.split("::")
    name = name.split(" ")[0]
    paths = list((ROOT / "tests").glob(f"{file}.py")) + list((ROOT / "tests").glob(f"{file}_*.py"))
    return any(
        f"def {name}(" in p.read_text(encoding="utf-8")
        or f'"{name}"' in p.read_text(encoding="utf-8")
        for p in paths
    )


@pytest.mark.parametrize("row", ROWS, ids=[r[1] for r in ROWS])
def test_cited_test_and_notebook_part_exist(row):
    _, _, item, _, part, seen, test, status = row
    refs = re.findall(r"`([^`]+)`", test)
    if status == "taught":
        assert part != "—", f"taught item without a notebook part: {item}"
        assert seen != "—", f"taught item without the state where a student sees it: {item}"
    for ref in refs:
        assert _test_exists(ref), f"{ref} does not exist"
    for nb, letters in re.findall(r"(s06_\d\d|lab06) ([A-F](?:–[A-F])?|synthesis)", part):
        path = next((ROOT / "labs").glob(f"{nb}*.py"))
        src = path.read_text(encoding="utf-8")
        if letters == "synthesis":
            assert "## Synthesis" in src
            continue
        first, _, last = letters.partition("–")
        for x in {first, last or first}:
            assert f"## Part {x} " in src, f"{path.name} has no Part {x}"


def _module_of(nb: str) -> str:
    return next(m for s, m in reach.NOTEBOOKS if s.startswith(nb))


def _value(spec, name: str, raw: str):
    """The widget value a state names, checked against what the widget can produce."""
    if isinstance(spec, Slider):
        v = float(raw)
        v = int(v) if v.is_integer() and isinstance(spec.step, int) else v
        steps = (v - spec.start) / spec.step
        assert spec.start <= v <= spec.stop and math.isclose(steps, round(steps), abs_tol=1e-9), (
            f"{name}={raw}: no slider position gives it ({spec.start}..{spec.stop} by {spec.step})"
        )
        return v
    if isinstance(spec, Choice):
        assert raw in spec.options, f"{name}={raw}: not an option ({', '.join(spec.options)})"
        return raw
    if isinstance(spec, Toggle):
        assert raw in ("True", "False"), f"{name}={raw}: a switch is True or False"
        return raw == "True"
    raise AssertionError(f"{name}: unknown widget {type(spec).__name__}")


def seen_text(seen: str) -> tuple[str, str]:
    """(what the page shows in that state, the text the row expects there)."""
    m = SEEN.match(seen)
    assert m, f"'Seen at' does not parse: {seen}"
    nb, letter, where, text = m.groups()
    mod = reach.module(_module_of(nb))
    nb_src = next((ROOT / "labs").glob(f"{nb}*.py")).read_text(encoding="utf-8")
    if not where.startswith("{"):  # a question of the part: its feedback, read once committed
        pred = getattr(mod, where, None)
        assert isinstance(pred, Prediction), f"{nb} has no question {where}"
        assert f"lab.{where}." in nb_src, f"{nb}'s notebook does not show {where}"
        return reach.question_text(pred), text
    fn = reach.part_function(mod, letter)
    assert fn is not None, f"{nb} has no part {letter}"
    part = f"lab.part_{letter.lower()}"
    # a part is drawn by its call, or Part A through kit.show_part (its precomputed first view)
    calls = ("lab.synthesis(",) if letter == "S" else (f"{part}(", f"kit.show_part({part},")
    shown_by = "".join(nb_src.split())  # a call ruff split over lines, on one, no spaces
    assert any(c in shown_by for c in calls), f"{nb}'s notebook never shows part {letter}"
    params = list(inspect.signature(fn).parameters)
    args = {p: getattr(mod, f"{letter}_{p.upper()}").value for p in params}
    for pair in filter(None, (s.strip() for s in where[1:-1].split(","))):
        name, _, raw = pair.partition("=")
        assert name in params, f"part {letter} has no widget {name!r} (has {params})"
        args[name] = _value(getattr(mod, f"{letter}_{name.upper()}"), name, raw)
    return reach.view_text(fn(**args)), text


SEEN_ROWS = [r for r in ROWS if r[5] != "—"]


@pytest.mark.parametrize("row", SEEN_ROWS, ids=[r[1] for r in SEEN_ROWS])
def test_row_is_seen_in_the_rendered_part(row):
    shown, text = seen_text(row[5])
    assert text in shown, f"row {row[1]} ({row[2][:50]}): {text!r} is not in the view"


def test_a_state_no_widget_can_produce_fails():
    """The check has teeth: 784 is not a position of 6.2 A's input slider (64..4,096 by 64)."""
    with pytest.raises(AssertionError, match="no slider position"):
        seen_text('`s06_02 A {d_in=784} "784"`')
    with pytest.raises(AssertionError, match="not an option"):
        seen_text('`s06_03 A {kernel=2} "2×2"`')
    with pytest.raises(AssertionError, match="has no widget"):
        seen_text('`s06_02 A {width=784} "784"`')


def _summary(text: str) -> dict[str, tuple[str, ...]]:
    block = text.split("| Section | Items |", 1)[1].split("\n\n", 1)[0]
    out = {}
    for line in block.splitlines()[2:]:
        cells = tuple(c.strip() for c in line.strip("|").split("|"))
        out[cells[0].strip("*")] = cells[1:]
    return out


def test_summary_recomputed_from_the_rows():
    expect, tot, taught, men = {}, 0, 0, 0
    for sec in dict.fromkeys(r[0] for r in ROWS):
        st = [r[7] for r in ROWS if r[0] == sec]
        t, m = st.count("taught"), sum(s.startswith("mentioned") for s in st)
        expect[sec] = (
            str(len(st)),
            str(t),
            f"{100 * t / len(st):.1f}%",
            str(m),
            str(len(st) - t - m),
        )
        tot, taught, men = tot + len(st), taught + t, men + m
    cov, readme = _summary(COVERAGE), _summary(README)
    for sec, vals in expect.items():
        assert cov[sec] == vals, sec
        assert readme[sec] == vals, sec
    total = (f"**{tot}**", f"**{taught}**", f"**{100 * taught / tot:.1f}%**", f"**{men}**")
    assert cov["All"][:4] == total
    assert readme["All"][:4] == total
