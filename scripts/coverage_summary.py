"""Rewrite the per-section coverage summary in labs/COVERAGE.md and labs/README.md from the rows.

    python scripts/coverage_summary.py          # rewrite both tables
    python scripts/coverage_summary.py --check  # exit 1 if either table is out of step

The rows are parsed exactly as ``tests/test_coverage_table.py`` parses them (it is imported), and
that test checks both tables against the same count.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import test_coverage_table as cov  # noqa: E402

HEADER = "| Section | Items | Taught | % taught | Mentioned only | Not taught |\n|---|---|---|---|---|---|\n"


def table() -> str:
    lines, tot, taught, men = [], 0, 0, 0
    for sec in dict.fromkeys(r[0] for r in cov.ROWS):
        st = [r[7] for r in cov.ROWS if r[0] == sec]
        t, m = st.count("taught"), sum(s.startswith("mentioned") for s in st)
        lines.append(
            f"| {sec} | {len(st)} | {t} | {100 * t / len(st):.1f}% | {m} | {len(st) - t - m} |"
        )
        tot, taught, men = tot + len(st), taught + t, men + m
    lines.append(
        f"| **All** | **{tot}** | **{taught}** | **{100 * taught / tot:.1f}%** | **{men}** "
        f"| **{tot - taught - men}** |"
    )
    return HEADER + "\n".join(lines) + "\n"


def rewrite(text: str) -> str:
    head, rest = text.split("| Section | Items |", 1)
    _, tail = rest.split("\n\n", 1)
    return head + table() + "\n" + tail


def main(argv: list[str]) -> int:
    stale = []
    for path in (ROOT / "labs" / "COVERAGE.md", ROOT / "labs" / "README.md"):
        old = path.read_text(encoding="utf-8")
        new = rewrite(old)
        if new != old:
            stale.append(path.relative_to(ROOT))
            if "--check" not in argv:
                path.write_text(new, encoding="utf-8")
    if stale and "--check" in argv:
        print(
            "out of step: "
            + ", ".join(map(str, stale))
            + " (run python scripts/coverage_summary.py)"
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
