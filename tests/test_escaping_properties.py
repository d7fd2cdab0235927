"""Escaping by rule, not by payload list (issue 38): properties over generated strings.

- the HTML escaper's output never holds a raw ``<``, ``>``, ``"`` or ``'``, and every ``&``
  starts an entity;
- an authored string rendered as markdown keeps a link only when its whole target is an allowed
  scheme (http, https, mailto, #anchor): a safe URL after or inside a hostile target does not
  make it live;
- plain text (ledger and report content) never becomes markup.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mlsysim.labs import components as kit
from mlsysim.labs.reports import md_text

ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);")
ALLOWED = re.compile(r"(?:https?://|mailto:|#)", re.I)

TEXT = st.text(
    alphabet=st.sampled_from(list("<>\"'&;#[]()!:/\\ \nabcjavascriptJS=1x`*_")) | st.characters(),
    max_size=80,
)
HOSTILE_SCHEMES = ["javascript:", "JaVaScRiPt:", "data:text/html,", "vbscript:", " javascript:", ""]
SAFE = ["https://ok.example/", "http://ok.example", "mailto:a@b.c", "#top"]


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.targets = []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("href", "src", "action", "formaction") and v is not None:
                self.targets.append(v)


def _targets(html_: str) -> list[str]:
    p = _Links()
    p.feed(html_)
    return p.targets


@settings(max_examples=300, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_escaper_leaves_no_raw_markup_character(text):
    out = kit._e(text)
    assert not set("<>\"'") & set(out)
    assert all(ENTITY.match(out, m.start()) for m in re.finditer("&", out))


@settings(
    max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    st.sampled_from(HOSTILE_SCHEMES),
    st.sampled_from(SAFE),
    st.sampled_from(["{h}{s}", "{h}//{s}", "{h}alert(1)/*{s}*/", "{h}{s}?x"]),
    st.text(alphabet="abc xyz", max_size=8),
)
def test_a_link_survives_only_when_its_whole_target_is_allowed(hostile, safe, shape, label):
    target = shape.format(h=hostile, s=safe)
    for src in (
        f"[{label}x]({target})",
        f"[r{label}]: {target}\n\n[r{label}]",
        f"- [r]: {target}\n\n[r]",
    ):
        html_ = kit._render_md(src)
        for t in _targets(html_):
            assert ALLOWED.match(t.strip()), (src, t)
        if hostile.strip():
            assert not any(
                t.strip().lower().startswith(hostile.strip().lower()) for t in _targets(html_)
            )


@settings(
    max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(TEXT)
def test_authored_text_never_yields_a_live_tag_or_handler(text):
    html_ = kit._render_md(text)
    assert "<script" not in html_.lower()
    assert not re.search(r"<[a-z][^>]*\son[a-z]+\s*=", html_, re.I)
    for t in _targets(html_):
        assert ALLOWED.match(t.strip()), (text, t)


@settings(
    max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(TEXT)
def test_plain_text_and_report_text_are_inert(text):
    import markdown

    html_ = kit.plain(text).text
    assert _targets(html_) == [] and "<script" not in html_.lower()
    rendered = markdown.markdown(md_text(text))
    assert _targets(rendered) == [] and "<script" not in rendered.lower()
    assert not re.search(r"<(?:a|img|em|strong|h\d|ol|ul|code|blockquote)\b", rendered)


def test_the_properties_catch_a_weakened_escaper(monkeypatch):
    """A rule that accepts a safe URL anywhere in the target (not at its start) is caught."""
    weak = re.compile(r".*?(https?://|mailto:|#)", re.I)
    monkeypatch.setattr(kit, "_SAFE_URL", weak)
    html_ = kit._render_md("[x](javascript:alert(1)//https://ok.example/)")
    assert any(not ALLOWED.match(t) for t in _targets(html_))
