"""Issue 10 #11: a notebook's time estimate is the same in its header and in labs/README.md
(checked here for the section notebooks 6.1-6.5 and the primitives; the others follow)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "labs" / "README.md").read_text(encoding="utf-8")
STEMS = [
    "s06_01_principles",
    "s06_02_mlps",
    "s06_03_cnns",
    "s06_04_skip_norm",
    "s06_05_rnns",
    "s06_11_primitives",
]


@pytest.mark.parametrize("stem", STEMS)
def test_header_and_readme_agree_on_time(stem):
    row = re.search(rf"\| `{stem}\.py` \|[^|]+\| ~(\d+) min \|", README)
    header = re.findall(
        r'"about (\d+) minutes"', (ROOT / "labs" / f"{stem}.py").read_text(encoding="utf-8")
    )
    assert row and header == [row.group(1)], (stem, row and row.group(1), header)
