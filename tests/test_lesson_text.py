"""Issue 10 #11 as a class, for every lesson module (the notebooks' parts): what a part shows
never carries a registry key (CamelCase, e.g. JetsonOrinNX), an engine regime capitalised
mid-sentence ("Dispatch-bound"), or a zero term printed as "0.00 ns". Each part is rendered at its
defaults and with every option of every Choice/Toggle changed one at a time."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from mlsysim import Hardware
from mlsysim.labs.components import Choice, Toggle

# every lesson module (it covered 6.1-6.5 and the primitives only, and byom's cards and prose
# said "Fits on JetsonOrinNX", 6.12's "on the iPhone15Pro")
MODULES = sorted(
    p.stem
    for p in (Path(__file__).parents[1] / "mlsysim" / "labs" / "parts").glob("*.py")
    if p.stem != "__init__"
)
KEYS = [d.key for d in Hardware.all() if d.key not in d.name]


def _views(m):
    mod = importlib.import_module(f"mlsysim.labs.parts.{m}")
    for name, fn in inspect.getmembers(mod, inspect.isfunction):
        if fn.__module__ != mod.__name__ or not (
            name.startswith("part_") and len(name) == 6 or name == "synthesis"
        ):
            continue
        letter = "S" if name == "synthesis" else name[-1].upper()
        params = list(inspect.signature(fn).parameters)
        specs = [getattr(mod, f"{letter}_{p.upper()}") for p in params]
        base = [s.value for s in specs]
        yield name, fn(*base)
        for i, spec in enumerate(specs):
            options = spec.grid() if isinstance(spec, Choice | Toggle) else []
            for opt in options:
                if opt != base[i]:
                    args = list(base)
                    args[i] = opt
                    yield f"{name}({params[i]}={opt})", fn(*args)


def _shown(v) -> str:
    return " ".join(
        [
            v.summary,
            *v.peek,
            str(v.figure.layout.title.text or ""),
            *(str(t.name) for t in v.figure.data),
            *(f"{c.label} {c.value} {c.note}" for c in v.cards),
        ]
    )


@pytest.mark.parametrize("module", MODULES)
def test_no_registry_keys_capitalised_regimes_or_zero_nanoseconds(module):
    bad = []
    for where, v in _views(module):
        text = _shown(v)
        for k in KEYS:
            # (a key in quotes is code: Engine.solve(model, 'JetsonOrinNX', ...))
            if re.search(rf"(?<![\w'\"]){re.escape(k)}(?![\w'\"])", text):
                bad.append(f"{where}: registry key {k}")
        if re.search(r"\w[ ,;:(·]+(Dispatch|Compute|Memory)-bound", text):
            bad.append(f"{where}: capitalised regime mid-sentence")
        if "0.00 ns" in text:
            bad.append(f"{where}: 0.00 ns")
    assert not bad, "\n".join(sorted(set(bad)))


def test_fmt_time_prints_an_absent_term_as_zero_seconds():
    from mlsysim.labs.components import fmt_time

    assert fmt_time(0) == fmt_time(0.0) == "0 s"
    assert fmt_time(1e-9) == "1.00 ns" and fmt_time(2.5e-3) == "2.50 ms"


def test_each_character_keeps_one_role_and_each_surname_one_person():
    """A name that opens a part is one person with one job across the suite: Dr. Lena Okafor was a
    radiology ML lead, a StreamSense research lead and a platform engineer; Priya Raman changed
    jobs within one notebook; byom had a second Okafor."""
    import collections
    import re
    from pathlib import Path

    roles = collections.defaultdict(set)
    for f in sorted((Path(__file__).resolve().parent.parent / "labs").glob("*.py")):
        src = f.read_text(encoding="utf-8")
        for name, role in re.findall(r'kit\.message\(\s*"([^"]+)",\s*"([^"]+)"', src):
            roles[name.removeprefix("Dr. ")].add(role.split(",")[0])
    assert len(roles) > 15
    several = {n: sorted(r) for n, r in roles.items() if len(r) > 1}
    assert several == {}, several
    surnames = collections.defaultdict(set)
    for n in roles:
        surnames[n.split()[-1]].add(n)
    shared = {s: sorted(n) for s, n in surnames.items() if len(n) > 1}
    assert shared == {}, shared


def _student_strings(path: Path):
    """Every string literal of a lesson module or notebook a student may read: docstrings and
    comments (for maintainers) left out."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            yield n.lineno, n.value


def test_no_chapter_line_numbers_or_changelog_notes_reach_a_student():
    """Students have no line numbers ('the answer key's argument (L1949)', 'iron law, L86'),
    never saw the seed lab ('seed-lab fix: …'), and 'the answer key' reads as this notebook's own
    key (it meant the chapter's self-check)."""
    root = Path(__file__).parents[1]
    files = [
        *sorted((root / "mlsysim" / "labs" / "parts").glob("*.py")),
        *sorted((root / "labs").glob("*.py")),
    ]
    bad = []
    for f in files:
        for line, text in _student_strings(f):
            if re.search(
                r"\bL\d{2,4}\b|seed[- ]lab|\banswer key's\b|\bthe answer key blames", text, re.I
            ):
                bad.append(f"{f.name}:{line}: {text[:80]!r}")
    assert not bad, "\n".join(bad)


def test_gpt2_xl_is_never_called_a_1_6_billion_parameter_model():
    """GPT-2 XL has 1,557,611,200 parameters: the chapter's 1.5 B, or 1.56 B; 6.1 said 1.6."""
    from mlsysim import Models

    assert round(Models.GPT2.params / 1e9, 2) == 1.56
    root = Path(__file__).parents[1]
    files = [
        *sorted((root / "mlsysim" / "labs" / "parts").glob("*.py")),
        *sorted((root / "labs").glob("*.py")),
    ]
    bad = [
        f"{f.name}:{line}"
        for f in files
        for line, text in _student_strings(f)
        if re.search(r"1\.6[- ]billion|1\.6 ?B\b", text)
    ]
    assert not bad, bad
