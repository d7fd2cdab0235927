"""Every part's first chart on a 390 x 844 phone, checked on the page the browser draws.

The kit's placement rules (``mlsysim.labs.placement``) estimate text boxes from character
widths; this test reads the real ones. Each lab opens with the instructor switch
(``?unlock=all``: every part shown, as after answering), and for the first chart under each
part's heading: a screenshot (``<stem>-phone-part<N>.png`` in the artifact dir), the figure
drawn is its phone variant (``charts.phone_variant``, swapped in by the site's boot script), and,
from the rendered SVG, no label (a point's text, a line's annotation) overlaps another label or
runs past the plot area (a point's text anywhere outside it, Plotly clips it there; a line's
annotation left of it, under it, more than ``placement.ABOVE_PLOT_PX`` above it or past the
figure's right edge), and the y-axis title does not run into the chart's title. A label may cover
its own marker: only label against label is checked.

    MLSYSIM_PHONE_LABS=s06_07_transformers,s06_12_tradeoffs pytest -m browser \
        tests/browser/test_phone_charts.py          # a few labs (default: every one)
"""

from __future__ import annotations

import os

import pytest
from conftest import INVENTORY, NOTEBOOKS

from mlsysim.labs import charts, placement

pytestmark = pytest.mark.browser

PHONE = (390, 844)
_WANT = {s for s in os.environ.get("MLSYSIM_PHONE_LABS", "").split(",") if s.strip()}
#: every lab with charts (the inventory pages have none: questions only)
LABS = [p for p in NOTEBOOKS if p.stem not in INVENTORY and (not _WANT or p.stem in _WANT)]

#: The marimo-plotly hosts in document order, each with the part heading (h2) above it and
#: whether Plotly has drawn it
HOSTS_JS = """() => {
  const heads = [...document.querySelectorAll('.output-area h2')];
  return [...document.querySelectorAll('marimo-plotly')].map((el, i) => {
    let part = null;
    for (const h of heads) if (h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)
      part = h.textContent.trim();
    const gd = el.shadowRoot && el.shadowRoot.querySelector('.js-plotly-plot');
    return {i, part, drawn: !!(gd && gd.querySelector('.main-svg') && gd.layout)};
  });
}"""

#: One drawn chart's text boxes (client px): its plot area, its figure, each label shown, and
#: the title its layout has against the phone variant's in its meta
LABELS_JS = """(el) => {
  const gd = el.shadowRoot && el.shadowRoot.querySelector('.js-plotly-plot');
  if (!gd) return null;
  const R = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const shown = (e) => { for (let n = e; n && n !== gd; n = n.parentElement)
    if (getComputedStyle(n).display === 'none') return false; return true; };
  const labels = [];
  gd.querySelectorAll('.scatterlayer .trace').forEach((tr, ti) => {
    tr.querySelectorAll('.textpoint').forEach((g, pi) => {
      const t = g.querySelector('text');
      if (!t || !t.textContent.trim() || !shown(g)) return;
      const b = R(t);
      if (b[2] - b[0] >= 1) labels.push({kind: 'point', text: t.textContent, box: b});
    });
  });
  gd.querySelectorAll('.annotation').forEach((g) => {
    const t = g.querySelector('.annotation-text');
    if (!t || !t.textContent.trim() || !shown(g)) return;
    labels.push({kind: 'line', text: t.textContent, box: R(t)});
  });
  const area = gd.querySelector('.nsewdrag') || gd.querySelector('.bglayer .bg');
  const meta = (gd.layout && gd.layout.meta) || {};
  const phone = meta['mlsysim-phone'] || null;
  const box = (sel) => { const e = gd.querySelector(sel);
    return e && e.textContent.trim() ? R(e) : null; };
  return {area: area ? R(area) : null, fig: R(gd.querySelector('.main-svg')), labels,
          titleBox: box('.g-gtitle text'), yTitleBox: box('.g-ytitle text'),
          title: gd.layout && gd.layout.title && gd.layout.title.text,
          phoneTitle: phone && phone.layout && phone.layout.title ? phone.layout.title.text : null,
          hasPhone: !!phone};
}"""


#: px of slack for rounding (text boxes are measured to the glyph's ascent and descent)
SLACK = 1.5


def overlap(a, b) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > SLACK and min(a[3], b[3]) - max(a[1], b[1]) > SLACK


def label_problems(g: dict) -> list[str]:
    """What the DOM shows wrong with one chart's labels (``LABELS_JS``'s result)."""
    out = []
    area, fig, labels = g["area"], g["fig"], g["labels"]
    # the y-axis title runs along the plot's height: too long, it runs into the chart's title
    if g.get("titleBox") and g.get("yTitleBox") and overlap(g["titleBox"], g["yTitleBox"]):
        out.append(f"the y-axis title {g['yTitleBox']} runs into the title {g['titleBox']}")
    for k, a in enumerate(labels):
        for b in labels[k + 1 :]:
            if overlap(a["box"], b["box"]):
                out.append(f"{a['text']!r} overlaps {b['text']!r}")
        x0, y0, x1, y1 = a["box"]
        if area is None:
            continue
        if a["kind"] == "point":
            if x0 < area[0] - SLACK or x1 > area[2] + SLACK:
                out.append(f"{a['text']!r} runs past the plot area ({x0:.0f}..{x1:.0f} px)")
            elif y0 < area[1] - SLACK or y1 > area[3] + SLACK:
                out.append(f"{a['text']!r} runs past the plot area ({y0:.0f}..{y1:.0f} px)")
        elif (
            x0 < area[0] - SLACK
            or x1 > fig[2] + SLACK
            or y1 > area[3] + SLACK
            or y0 < area[1] - placement.ABOVE_PLOT_PX - SLACK
        ):
            out.append(f"{a['text']!r} runs past the plot area {a['box']} (plot {area})")
    return out


@pytest.mark.parametrize("nb", LABS, ids=[p.stem for p in LABS])
def test_every_parts_first_chart_at_phone_width(nb, open_notebook, artifacts, metrics):
    from playwright.sync_api import TimeoutError as PWTimeout

    stem = nb.stem
    lp = open_notebook(stem, viewport=PHONE, query="?unlock=all")
    lp.wait_live()
    hosts = []
    for _ in range(120):  # every chart drawn (each part's cell draws its own)
        hosts = lp.page.evaluate(HOSTS_JS)
        if hosts and all(h["drawn"] for h in hosts):
            break
        lp.page.wait_for_timeout(500)
    assert hosts, f"{stem}: no chart on the page with ?unlock=all"
    lp.page.wait_for_timeout(800)  # the phone variants swapped in and redrawn
    first: dict[str, int] = {}
    for h in hosts:
        if h["part"]:
            first.setdefault(h["part"], h["i"])
    problems, shots = [], []
    for n, (part, i) in enumerate(first.items(), 1):
        host = lp.page.locator("marimo-plotly").nth(i)
        host.scroll_into_view_if_needed()
        lp.page.wait_for_timeout(150)
        g = host.evaluate(LABELS_JS)
        path = artifacts / f"{stem}-phone-part{n}.png"
        try:
            host.screenshot(path=str(path))
            shots.append(str(path))
        except PWTimeout:
            problems.append(f"{part}: no screenshot")
        if g is None:
            problems.append(f"{part}: the chart was not drawn")
            continue
        if g["hasPhone"] and g["phoneTitle"] is not None and g["title"] != g["phoneTitle"]:
            problems.append(f"{part}: drawn with its desktop title, not its phone variant's")
        problems += [f"{part}: {p}" for p in label_problems(g)]
    metrics.setdefault("_phone_charts", {})[stem] = {
        "charts": len(first),
        "screenshots": shots,
        "problems": problems,
    }
    assert first, f"{stem}: no chart under a part heading"
    assert not problems, f"{stem} at {PHONE[0]} x {PHONE[1]}:\n  - " + "\n  - ".join(problems)


def test_the_phone_variant_rule_is_the_kits():
    """The boot script reads the phone patch from the key and at the width the kit names."""
    from conftest import build_site

    boot = build_site.BOOT_HTML
    assert f"'{charts.PHONE_KEY}'" in boot
    assert f"(max-width: {charts.PHONE_VIEWPORT_PX}px)" in boot
