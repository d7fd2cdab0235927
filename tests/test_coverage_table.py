"""labs/COVERAGE.md stays true: every cited test exists, every cited notebook part exists, and the
per-section summary (in COVERAGE.md and its copy in labs/README.md) is recomputed from the rows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COVERAGE = (ROOT / "labs" / "COVERAGE.md").read_text(encoding="utf-8")
README = (ROOT / "labs" / "README.md").read_text(encoding="utf-8")

ROW = re.compile(r"^\| (\d+) \| (.+?) \| (.+?) \| (.+?) \| (taught|pending: .+|gap: .+) \|$")
SECTION = re.compile(r"^\| \| \*\*(.+?)\*\* \| \| \| \|$")


def _rows():
    section, out = None, []
    for line in COVERAGE.splitlines():
        if m := SECTION.match(line):
            section = m.group(1)
        elif m := ROW.match(line):
            out.append((section, *m.groups()))
    return out


ROWS = _rows()


def test_rows_are_numbered_and_sectioned():
    assert len(ROWS) >= 120
    assert [int(r[1]) for r in ROWS] == list(range(1, len(ROWS) + 1))
    assert all(r[0] for r in ROWS)


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
    _, _, item, part, test, status = row
    refs = re.findall(r"`([^`]+)`", test)
    if status == "taught":
        assert refs, f"taught item without a test: {item}"
        assert part != "—", f"taught item without a notebook part: {item}"
    for ref in refs:
        assert _test_exists(ref), f"{ref} does not exist"
    for nb, letters in re.findall(r"(s06_\d\d|lab06) ([A-E](?:–[A-E])?|synthesis)", part):
        path = next((ROOT / "labs").glob(f"{nb}*.py"))
        src = path.read_text(encoding="utf-8")
        if letters == "synthesis":
            assert "## Synthesis" in src
            continue
        first, _, last = letters.partition("–")
        for x in {first, last or first}:
            assert f"## Part {x} " in src, f"{path.name} has no Part {x}"


def _summary(text: str) -> dict[str, tuple[str, ...]]:
    block = text.split("| Section | Items |", 1)[1].split("\n\n", 1)[0]
    out = {}
    for line in block.splitlines()[2:]:
        cells = tuple(c.strip() for c in line.strip("|").split("|"))
        out[cells[0].strip("*")] = cells[1:]
    return out


def test_summary_recomputed_from_the_rows():
    expect, tot, taught, pend = {}, 0, 0, 0
    for sec in dict.fromkeys(r[0] for r in ROWS):
        st = [r[5] for r in ROWS if r[0] == sec]
        t, p = st.count("taught"), sum(s.startswith("pending") for s in st)
        expect[sec] = (
            str(len(st)),
            str(t),
            f"{100 * t / len(st):.1f}%",
            f"{100 * (t + p) / len(st):.1f}%",
        )
        tot, taught, pend = tot + len(st), taught + t, pend + p
    cov = _summary(COVERAGE)
    for sec, vals in expect.items():
        assert cov[sec] == vals
        assert _summary(README)[sec] == vals
    assert cov["All"] == (
        f"**{tot}**",
        f"**{taught}**",
        f"**{100 * taught / tot:.1f}%**",
        f"**{100 * (taught + pend) / tot:.1f}%**",
    )
    assert _summary(README)["All"][2:] == cov["All"][2:]
