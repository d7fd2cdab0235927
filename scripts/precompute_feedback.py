"""Write ``mlsysim/labs/precomputed.py``: the feedback texts of the questions whose
``Deferred(..., precomputed="<lab>.<NAME>")`` feedback is read from it (a notebook's first
prediction), made from the core now.

    python scripts/precompute_feedback.py           # rewrite the module
    python scripts/precompute_feedback.py --check   # exit 1 when it differs from the core

Why: a student may answer a notebook's first question before the page has loaded pint and
pydantic (the browser site loads them after the first question, ``mlsysim.labs.browser``).
Feedback whose numbers come from the core would load them between the click and the verdict;
read from this module, the verdict needs nothing but the lab's own module. Run it after changing
such a question's feedback or a formula it quotes (tests/test_precomputed_feedback.py fails
until then).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "mlsysim" / "labs" / "precomputed.py"

HEADER = '''"""Feedback texts of the questions a student may answer before the page has loaded the core's
packages (a notebook's first prediction), made from the core by
``python scripts/precompute_feedback.py``; do not edit by hand. A question opts in with
``feedback=Deferred(make, precomputed="<lab>.<NAME>")`` (``mlsysim.labs.components.Deferred``),
and tests/test_precomputed_feedback.py fails when a text here differs from what ``make`` gives.
"""

FEEDBACK: dict[str, dict[str, str]] = {
'''


def opted_in() -> dict[str, object]:
    """key -> the ``Deferred`` of every question that names a precomputed key, checked: the key
    is ``<module>.<NAME>`` of the question that holds it."""
    import mlsysim.labs.parts as parts
    from mlsysim.labs.components import Deferred, Prediction

    found: dict[str, object] = {}
    for info in pkgutil.iter_modules(parts.__path__):
        lab = importlib.import_module(f"mlsysim.labs.parts.{info.name}")
        for attr, value in vars(lab).items():
            if not isinstance(value, Prediction) or not isinstance(value.feedback, Deferred):
                continue
            key = value.feedback.precomputed
            if key is None:
                continue
            if key != f"{info.name}.{attr}":
                raise SystemExit(
                    f"{info.name}.{attr}: precomputed={key!r}, expected the question's own name"
                )
            found[key] = value.feedback
    return found


def render() -> str:
    """The module's text (formatted as ``ruff format`` leaves it: one text a line)."""
    lines = [HEADER.rstrip("\n")]
    for key, d in sorted(opted_in().items()):
        lines.append(f"    {json.dumps(key)}: {{")
        for option, text in d.make().items():
            lines.append(f"        {json.dumps(option)}: {json.dumps(text, ensure_ascii=False)},")
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_or_check(out: Path, text: str, argv: list[str], script: str) -> int:
    """Write ``text`` to ``out``, or with ``--check`` in ``argv`` only compare (exit status 1,
    naming ``script`` to run, when they differ)."""
    if "--check" in argv:
        current = out.read_text(encoding="utf-8") if out.exists() else ""
        if current != text:
            print(f"{out.relative_to(ROOT)} is stale: run python scripts/{script}")
            return 1
        return 0
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


def main(argv: list[str]) -> int:
    return write_or_check(OUT, render(), argv, "precompute_feedback.py")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
