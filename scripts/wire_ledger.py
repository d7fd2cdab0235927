"""Mechanical wiring of a lab notebook to the ledger (idempotent; run on every labs/*.py).

    python scripts/wire_ledger.py labs/*.py          # rewrite in place
    python scripts/wire_ledger.py --check labs/*.py  # exit 1 if a notebook is not wired

What it does, and nothing else (the layout of README "How to add a notebook"):
1. after the ledger cell, a cell ``saved = kit.saved(ledger, lab)``;
2. every widget ``x = lab.SPEC.radio()`` / ``.widget()`` passes ``saved`` (restored on reload; a
   part's prediction, control widgets and transfer question together in one cell, which shows
   the part's introduction with the question last);
3. for every prediction cell (``PRED_X`` and any other ``Prediction`` displayed in its own cell)
   without one, the verdict ``kit.verdict(lab.PRED_X, pred_x, unlocked, saved)`` directly under
   the question: first in the part's gated cell (``mo.stop(kit.locked(pred_x, unlocked), ...)``
   then ``mo.vstack([...])``; one cell fewer, and marimo pays ~10-15 ms a cell in the browser's
   first run), else a cell of its own after the question. The notebook's first prediction
   always gets a cell of its own: its gated cell draws the first chart, which in the browser
   waits for plotly, pint and pydantic (loaded after the first run) and the first part's first
   run, and a cell's output shows only when the whole cell is done: a student who answered the
   moment the question went live waited seconds for the verdict (issue 35); that cell shows
   the part's locked note too (``locked="Part A"``), and the gated cell's ``mo.stop`` has none;
   the gated cell no longer passes ``lab.PRED_X.respond(...)`` to ``kit.show``;
4. before the record cell, one cell with the justification and name/ID fields; the record
   cell passes every widget to ``kit.record`` by name (answers, transfer answers, positions),
   the justification, the name, and ``synthesis=lab.synthesis(...)`` when the notebook has a synthesis.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

WIDGET = re.compile(r"^(\s*)(\w+) = lab\.(\w+)\.(radio|widget)\((saved)?\)\s*$", re.M)
RESPOND = re.compile(r",\s*lab\.PRED_\w+\.respond\(\s*\w+\.value\s*,\s*unlocked\s*\)")


def _cells(src: str):
    tree = ast.parse(src)
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
            ast.unparse(d).startswith("app.cell") for d in node.decorator_list
        ):
            start = node.decorator_list[0].lineno - 1
            out.append((start, node.end_lineno, node))
    return out


def _args(node) -> list[str]:
    return [a.arg for a in node.args.args]


def _with_args(cell_src: str, args: list[str]) -> str:
    return re.sub(r"def _\([^)]*\):", f"def _({', '.join(sorted(set(args)))}):", cell_src, count=1)


def _cell(
    body: str, args: list[str], is_async: bool = False, hide: bool = False, returns=()
) -> str:
    deco = "@app.cell(hide_code=True)" if hide else "@app.cell"
    kw = "async def" if is_async else "def"
    lines = "\n".join(f"    {ln}" if ln else "" for ln in body.strip("\n").splitlines())
    ret = ", ".join(returns) + ("," if len(returns) == 1 else "")
    return (
        f"{deco}\n{kw} _({', '.join(sorted(set(args)))}):\n{lines}\n    return {ret}".rstrip()
        + "\n"
    )


def _gated_cell(cells, text: dict, i: int, var: str) -> int | None:
    """The cell after ``i`` gated on ``var`` (``mo.stop(kit.locked(var, unlocked), ...)``) whose
    output is ``mo.vstack([...])``, or None."""
    gate = re.compile(rf"mo\.stop\(\s*kit\.locked\(\s*{var}\s*,\s*unlocked\s*\)\s*,")
    for j in range(i + 1, len(cells)):
        if gate.search(text[j]) and _vstack_list(cells[j][2]) is not None:
            return j
    return None


def _vstack_list(node):
    """The list literal of the cell's last expression ``mo.vstack([...])``, or None."""
    exprs = [s for s in node.body if isinstance(s, ast.Expr)]
    call = exprs[-1].value if exprs else None
    if (
        isinstance(call, ast.Call)
        and ast.unparse(call.func) == "mo.vstack"
        and call.args
        and isinstance(call.args[0], ast.List)
    ):
        return call.args[0]
    return None


def _prepend_item(cell_src: str, cell, item: str) -> str:
    """``cell_src`` with ``item`` first in its ``mo.vstack([...])`` list."""
    start, _, node = cell
    lst = _vstack_list(node)
    lines = cell_src.splitlines(keepends=True)
    k = lst.lineno - 1 - start
    col = lst.col_offset + 1  # just after "["
    lines[k] = lines[k][:col] + item + ", " + lines[k][col:]
    return "".join(lines)


def wire(src: str) -> str:
    lines = src.splitlines(keepends=True)
    cells = _cells(src)
    text = {i: "".join(lines[s:e]) for i, (s, e, _) in enumerate(cells)}
    whole = src
    has_saved = "kit.saved(ledger, lab)" in whole
    widget_vars: list[tuple[str, str, str]] = []  # (var, spec, kind)
    verdicts = set(re.findall(r"kit\.verdict\(lab\.(\w+),", whole))
    first_pred = next(
        (m.group(3) for m in WIDGET.finditer(src) if m.group(3).startswith("PRED_")), None
    )
    new: dict[int, str] = {}
    for i, (_, _, node) in enumerate(cells):
        t = text[i]
        body_src = t
        if (
            re.search(r"^\s*ledger = await DesignLedger\(\)\.load_async\(\)", t, re.M)
            and not has_saved
        ):
            t = (
                t.rstrip("\n")
                + "\n\n\n"
                + (
                    "@app.cell\ndef _(kit, lab, ledger):\n    saved = kit.saved(ledger, lab)\n    return (saved,)\n"
                )
            )
        for m in WIDGET.finditer(body_src):  # a part's controls share one cell
            var, spec, kind = m.group(2), m.group(3), m.group(4)
            widget_vars.append((var, spec, kind))
            if not m.group(5):
                t = t.replace(m.group(0), f"{m.group(1)}{var} = lab.{spec}.{kind}(saved)")
                t = _with_args(t, [*_args(node), "saved"])
            # the cell displays the question: alone, or last in its part's introduction
            shown = re.search(rf"^\s*{var},?\s*$", body_src, re.M)
            if kind == "radio" and spec not in verdicts and shown:
                verdict = f"kit.verdict(lab.{spec}, {var}, unlocked, saved)"
                j = _gated_cell(cells, text, i, var) if spec != first_pred else None
                if j is None and spec == first_pred and re.fullmatch(r"PRED_[A-Z]", spec):
                    # its cell of its own shows the locked note too (the gated cell has none)
                    verdict = (
                        f'kit.verdict(lab.{spec}, {var}, unlocked, saved, locked="Part {spec[-1]}")'
                    )
                if j is not None:  # the top of the part's gated cell: one cell fewer
                    text[j] = _with_args(
                        _prepend_item(text[j], cells[j], verdict),
                        [*_args(cells[j][2]), "kit", "lab", var, "saved", "unlocked"],
                    )
                else:
                    t = (
                        t.rstrip("\n")
                        + "\n\n\n"
                        + _cell(verdict, ["kit", "lab", var, "saved", "unlocked"])
                    )
        if "kit.show(" in t and RESPOND.search(t):
            t = RESPOND.sub("", t)
        new[i] = t
    # the record cell
    rec_i = next((i for i, (_, _, n) in enumerate(cells) if "kit.record(" in text[i]), None)
    if rec_i is None:
        raise SystemExit("no kit.record cell")
    node = cells[rec_i][2]
    call = next(
        n for n in ast.walk(node) if isinstance(n, ast.Call) and ast.unparse(n.func) == "kit.record"
    )
    d = next((k.value for k in call.keywords if k.arg == "design"), None)
    design = ast.unparse(d) if d is not None else None  # one canonical line: idempotent
    syn = re.search(
        r"lab\.synthesis\(([^()]*)\)", "".join(t for i, t in text.items() if i != rec_i)
    )
    names = [v for v, _, _ in widget_vars]
    widgets = ", ".join(f"{v}={v}" for v in names)
    parts = [
        f"widgets=dict({widgets})",
        "saved=saved",
        "student=student",
        "justification=justification",
    ]
    if design:
        parts.append(f"design={design}")
    if syn:  # called by kit.record only once every prediction is answered (no ungated synthesis)
        args = syn.group(1).strip()
        parts += [
            "synthesis=lab.synthesis",
            f"synthesis_args=({args}{',' if args and ',' not in args else ''})",
        ]
    body = "await kit.record(\n    ledger, lab,\n" + "".join(f"    {p},\n" for p in parts) + ")"
    deps = ["kit", "lab", "ledger", "saved", "student", "justification", *names]
    deps += re.findall(r"\b([a-z]\w*)\.value\b", design or "")
    rec = _cell(body, deps, is_async=True)
    pre = ""
    fields = []  # one cell for both (each cell costs the browser's first run ~10-15 ms)
    if "kit.justification_field(" not in whole:
        fields.append(("justification", "kit.justification_field(lab, saved)"))
    if "kit.student_field(" not in whole:
        fields.append(("student", "kit.student_field(saved)"))
    if fields:
        names = [v for v, _ in fields]
        pre = _cell(
            "\n".join(f"{v} = {call}" for v, call in fields),
            ["kit", "saved", *(["lab"] if "justification" in names else [])],
            returns=names,
        )
        pre += "\n\n"
    new[rec_i] = pre + rec
    out, pos = [], 0
    for i, (s, e, _) in enumerate(cells):
        out.append("".join(lines[pos:s]))
        out.append(new[i] if new[i].endswith("\n") else new[i] + "\n")
        pos = e
    out.append("".join(lines[pos:]))
    return "".join(out)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    bad = 0
    for p in [Path(a) for a in argv if not a.startswith("--")]:
        src = p.read_text(encoding="utf-8")
        if "kit.record(" not in src or "from mlsysim.labs.parts import" not in src:
            continue  # no ledger (instructor), or laid out by hand (the concept inventory)
        out = wire(src)
        # compared as syntax trees: `ruff format` may lay the wiring out differently
        if ast.dump(ast.parse(out)) != ast.dump(ast.parse(src)):
            if check:
                print(f"not wired: {p}")
                bad += 1
            else:
                p.write_text(out, encoding="utf-8")
                print(f"wired {p} (run `ruff format` on it)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
