"""Write ``mlsysim/labs/first_views.py``: each lab's first part, at its widgets' starting
positions, as the HTML a running notebook shows for ``kit.show(lab.part_a(...))``, made from the
core now.

    python scripts/precompute_views.py           # rewrite the module
    python scripts/precompute_views.py --check   # exit 1 when it differs from the core

Why: the browser site loads plotly, pint and pydantic after the first question
(``mlsysim.labs.browser``), and a student may answer at once. The answer's chart cell
(``kit.show_part``) then shows this copy instead of loading and importing them first (~1.3 s in
Pyodide). Run it after changing a lab's first part, its widgets' starting positions, or anything
its chart, cards or sentence use (tests/test_first_views.py fails until then);
``scripts/rebuild.sh`` runs it before packing the wheel.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "mlsysim" / "labs" / "first_views.py"

HEADER = '''"""Each lab's first part at its widgets' starting positions, as the HTML a running notebook
shows for it: ``view key -> (arguments key, HTML)`` (``kit.view_key``, ``kit.args_key``), made from
the core by ``python scripts/precompute_views.py``; do not edit by hand. ``kit.show_part`` shows
a copy in the browser; tests/test_first_views.py fails when one differs from what the core gives.
"""

VIEWS: dict[str, tuple[str, str]] = {
'''


def notebook_formatting() -> None:
    """Format figures as a running notebook does (marimo's ``<marimo-plotly>`` element), not as
    a script outside one (plotly's own HTML in an iframe): marimo registers its plotly formatter
    that way only inside a kernel. For the rest of this process: run it in a process of its own
    (this script; tests/test_first_views.py starts a fresh interpreter)."""
    import marimo._output.formatters.plotly_formatters as plotly_formatters
    from marimo._output.formatters.formatters import register_formatters

    plotly_formatters.running_in_notebook = lambda: True
    register_formatters()


def first_parts() -> dict[str, tuple[object, list]]:
    """view key -> (part function, starting arguments) of every lab with parts."""
    import mlsysim.labs.parts as parts
    from mlsysim.labs import components as kit

    found: dict[str, tuple[object, list]] = {}
    for info in pkgutil.iter_modules(parts.__path__):
        lab = importlib.import_module(f"mlsysim.labs.parts.{info.name}")
        if not getattr(lab, "PARTS", None) or not hasattr(lab, f"part_{lab.PARTS[0].lower()}"):
            continue  # the concept inventory: questions only
        fn, args = kit.first_part(lab)
        found[kit.view_key(fn)] = (fn, args)
    return found


def views() -> dict[str, tuple[str, str]]:
    """view key -> (arguments key, HTML), drawn from the core now."""
    from mlsysim.labs import components as kit

    notebook_formatting()
    return {
        key: (kit.args_key(args), kit.show(fn(*args)).text)
        for key, (fn, args) in sorted(first_parts().items())
    }


def render() -> str:
    """The module's text (formatted as ``ruff format`` leaves it)."""
    lines = [HEADER.rstrip("\n")]
    for key, (args, html) in views().items():
        lines.append(f"    {json.dumps(key)}: (")
        lines.append(f"        {json.dumps(args, ensure_ascii=False)},")
        lines.append(f"        {json.dumps(html, ensure_ascii=False)},")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from precompute_feedback import write_or_check

    return write_or_check(OUT, render(), argv, "precompute_views.py")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
