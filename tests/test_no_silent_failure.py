"""No notebook or kit function hides an exception; text reaching HTML is escaped."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mlsysim.labs import components as kit

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted([*ROOT.joinpath("mlsysim").rglob("*.py"), *ROOT.joinpath("labs").glob("*.py")])


def _broad_handlers(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler):
            names = []
            if node.type is None:
                names = ["<bare>"]
            else:
                for t in node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]:
                    names.append(ast.unparse(t))
            for n in names:
                if n in ("<bare>", "Exception", "BaseException"):
                    yield node.lineno, n


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_no_broad_exception_handlers(path):
    assert list(_broad_handlers(path)) == []


def test_the_scan_would_catch_one(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("try:\n    x = 1\nexcept Exception:\n    x = 0\n")
    assert list(_broad_handlers(bad)) == [(3, "Exception")]


EVIL = '<script>alert("x")</script>'


@pytest.mark.parametrize(
    "render",
    [
        lambda: kit.message(EVIL, EVIL, EVIL),
        lambda: kit.header(EVIL, EVIL, EVIL, [EVIL]),
        lambda: kit.cards([kit.Card(EVIL, EVIL, EVIL)]),
    ],
)
def test_text_reaching_html_is_escaped(render):
    html = render().text
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_markdown_callouts_escape_too():
    """marimo stores a callout's HTML as JSON in an HTML-escaped attribute (``<`` becomes
    ``\\u003c``), so the outer text never shows ``<script>``: decode both layers first.
    (tests/test_escaping.py does this for every component.)"""
    import html as html_mod
    import json
    import re

    outer = kit.locked_note(EVIL).text
    [attr] = re.findall(r"data-html='([^']*)'", outer)
    inner = json.loads(html_mod.unescape(attr))
    assert "<script" not in inner and "&lt;script&gt;" in inner


def test_cards_refuse_to_show_nan():
    with pytest.raises(ValueError, match="would show"):
        kit.Card("MFU", "nan")
    with pytest.raises(ValueError, match="finite"):
        kit.fmt_bytes(float("inf"))
