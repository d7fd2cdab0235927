"""Find live markup in what marimo renders, decoding its nesting the way the browser does.

marimo puts a component's inner HTML in ``data-*`` attributes as JSON strings (``<`` written as
``\\u003c``, then attribute-escaped). ``live_markup(html)`` parses the HTML, decodes each data
attribute once (attribute entities by the parser, JSON by ``json.loads``) and parses the result as
HTML again, recursively; so an escaped payload (``&lt;script&gt;`` in the inner HTML) stays text,
and a live one (``<script>`` in the inner HTML) is found. ``data-options`` (radio option labels)
are collected apart: marimo's frontend renders them as text nodes.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

HOSTILE = [
    '<script>alert("s")</script>',
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(2))",
    "![i](javascript:alert(3))",
    "[x][r]\n\n[r]: javascript:alert(4)",
    "```\n<script>alert(5)</script>\n```",
    '<a href="javascript:alert(6)">a</a>',
    "<svg onload=alert(7)>",
    "**bold** `code` \ud800 lone surrogate",
    '"><script>alert(8)</script>',
    # reference definitions Python-Markdown also reads inside a list item, a quote or indented
    # under a list (the kit defanged only those at a line's start: a hostile-input probe's find)
    "- [r]: javascript:alert(9)\n\n[x][r]",
    "1. [r]: javascript:alert(10)\n\n[x][r]",
    "[x][r]\n\n- a\n\n    [r]: javascript:alert(11)",
]

_DANGEROUS_TAGS = {
    "script",
    "img",
    "iframe",
    "object",
    "embed",
    "svg",
    "math",
    "style",
    "link",
    "meta",
    "base",
    "form",
    "input",
}
_URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "data", "srcset"}
_TEXT_ATTRS = {
    "data-options",
    "data-initial-value",
    "data-value",
    "data-data",
    "data-filename",
    "data-placeholder",
}
_CTRL = re.compile(r"[\x00-\x20]+")


class _Scan(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list]] = []
        self.options: list = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))
        for k, v in attrs:
            if v is None or k == "srcdoc" or not k.startswith("data-"):
                continue
            try:
                obj = json.loads(v)
            except ValueError:
                continue
            if k in _TEXT_ATTRS:  # values and option labels: rendered as text nodes / input values
                if k == "data-options":
                    self.options.append(obj)
                continue
            for s in obj if isinstance(obj, list) else [obj]:
                if isinstance(s, str) and "<" in s:
                    self._inner(s)

    def handle_data(self, data):
        self.text.append(data)

    def _inner(self, s: str) -> None:
        sub = _Scan()
        sub.feed(s)
        sub.close()
        self.tags += sub.tags
        self.options += sub.options
        self.text += sub.text


def scan(html: str) -> _Scan:
    s = _Scan()
    s.feed(html)
    s.close()
    return s


def live_markup(html: str, allow_plotly_iframe: bool = False) -> list[str]:
    """Every live tag or attribute a payload could have produced (empty when the HTML is inert)."""
    found = []
    for tag, attrs in scan(html).tags:
        names = {k for k, _ in attrs}
        if tag == "iframe" and allow_plotly_iframe and "srcdoc" in names:
            continue
        if tag in _DANGEROUS_TAGS:
            found.append(f"<{tag}>")
        for k, v in attrs:
            if k.startswith("on"):
                found.append(f"<{tag} {k}=...>")
            if k in _URL_ATTRS and v is not None:
                url = _CTRL.sub("", v).lower()
                if re.match(r"[a-z][a-z0-9+.\-]*:", url) and not url.startswith(
                    (
                        "http:",
                        "https:",
                        "mailto:",
                        "data:text/markdown",
                        "data:application/json",
                        "data:text/csv",
                    )
                ):
                    found.append(f"<{tag} {k}={v[:40]!r}>")
    return found


def text_of(html: str) -> str:
    return " ".join(scan(html).text)
