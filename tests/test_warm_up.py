"""The unseen first draw (``kit.warm_up``) and the chart-code preload written into each page
(``build_site.set_warm_assets``): what makes a student's first answer draw its chart without
waiting for plotly, the core's caches or marimo's Plotly renderer."""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
import sys
from pathlib import Path

import pytest

import mlsysim.labs.parts as parts_pkg
from mlsysim.labs import browser
from mlsysim.labs import components as kit
from mlsysim.labs.components import Choice, Slider, TextBox, Toggle, View
from mlsysim.labs.state import DesignLedger

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import build_site  # noqa: E402

LABS = sorted(m.name for m in pkgutil.iter_modules(parts_pkg.__path__))


def _lab(name):
    return importlib.import_module(f"mlsysim.labs.parts.{name}")


@pytest.mark.parametrize("name", LABS)
def test_first_part_is_drawn_from_its_widgets_defaults(name):
    lab = _lab(name)
    fn, args = kit.first_part(lab)
    letter = lab.PARTS[0]
    assert fn is getattr(lab, f"part_{letter.lower()}")
    specs = [
        v for k, v in vars(lab).items() if k.startswith(f"{letter}_") and hasattr(v, "restore")
    ]
    assert len(args) >= 1
    # each argument is one of the part's own widget specs, at its default
    for a in args:
        assert any(s.value == a for s in specs), (name, a)
    assert isinstance(fn(*args), View)


def test_first_part_restores_a_saved_position(tmp_path):
    lab = _lab("s06_01_principles")
    ledger = DesignLedger(tmp_path / "ledger.json")
    ledger.save(lab.CHAPTER, widgets={"A_RESOLUTION": 160}, required=lab.PARTS)
    fn, args = kit.first_part(lab, kit.saved(ledger, lab))
    assert args[0] == 160 != lab.A_RESOLUTION.value
    # a position outside the slider's range falls back to the default, as the widget does
    ledger.save(lab.CHAPTER, widgets={"A_RESOLUTION": 10**9}, required=lab.PARTS)
    _, args = kit.first_part(lab, kit.saved(DesignLedger(tmp_path / "ledger.json"), lab))
    assert args[0] == lab.A_RESOLUTION.value


@pytest.mark.parametrize("name", LABS)
def test_each_first_part_argument_is_a_widget_spec_of_that_name(name):
    """README's convention: ``part_a(units, ...)`` reads the spec ``A_UNITS``, a widget the
    student moves (so the unseen draw starts where the student's widgets start)."""
    import inspect

    lab = _lab(name)
    letter = lab.PARTS[0]
    fn = getattr(lab, f"part_{letter.lower()}")
    for arg in inspect.signature(fn).parameters:
        spec = getattr(lab, f"{letter}_{arg.upper()}", None)
        assert isinstance(spec, Slider | Choice | Toggle | TextBox), (name, arg, type(spec))


def test_warm_up_does_nothing_outside_the_browser():
    assert sys.platform != "emscripten"
    assert kit.warm_up(_lab("s06_02_mlps")) is None


def test_warm_up_draws_the_first_part_once_in_the_browser(monkeypatch):
    lab = _lab("s06_03_cnns")
    drawn = []
    monkeypatch.setattr(sys, "platform", "emscripten")
    monkeypatch.setattr(kit, "_WARMED", set())
    monkeypatch.setattr(kit, "show", lambda view, feedback=None: drawn.append(view))

    async def preload(packages=None):  # the browser's package load, before the unseen draw
        drawn.append("preloaded")

    monkeypatch.setattr(browser, "preload", preload)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        handle = kit.warm_up(lab, delay_s=0.01)
        assert handle is not None
        assert kit.warm_up(lab) is None  # once per lab
        assert drawn == []  # scheduled, not run inside the calling cell
        loop.run_until_complete(asyncio.sleep(0.05))
    finally:
        loop.close()
        asyncio.set_event_loop(None)
    assert drawn[0] == "preloaded" and len(drawn) == 2 and isinstance(drawn[1], View)
    fn, args = kit.first_part(lab)
    assert drawn[1].summary == fn(*args).summary


def _page(tmp_path, js: str, boot: bool = True) -> Path:
    page = tmp_path / "lab"
    (page / "assets").mkdir(parents=True)
    body = '<div id="ms-boot" role="status">Starting</div>' if boot else "<p>x</p>"
    (page / "index.html").write_text(f"<html><body>{body}</body></html>")
    (page / "assets" / "index-Ab1.js").write_text(js)
    return page


MJ = "../_pyodide-mirror/mathjax-full@3.2.2/es5/tex-mml-svg.min.js"
JS = f"x=import(`./Plot-B8w5_jU-.js`);o=Tw(`{MJ}`)===`ready`;"


def test_page_is_told_which_chart_code_to_preload(tmp_path):
    page = _page(tmp_path, JS)
    got = build_site.set_warm_assets(page)
    assert got == {"data-warm-module": "./assets/Plot-B8w5_jU-.js", "data-warm-script": MJ}
    html = (page / "index.html").read_text()
    tag = html[html.index('<div id="ms-boot"') : html.index(">", html.index('<div id="ms-boot"'))]
    assert 'data-warm-module="./assets/Plot-B8w5_jU-.js"' in tag
    assert f'data-warm-script="{MJ}"' in tag
    # idempotent: a second build step does not stack attributes
    build_site.set_warm_assets(page)
    assert (page / "index.html").read_text().count("data-warm-module") == 1


def test_no_preload_without_marimos_plotly_chunk(tmp_path):
    page = _page(tmp_path, "console.log(`nothing here`)")
    assert build_site.set_warm_assets(page) == {}
    assert "data-warm" not in (page / "index.html").read_text()


def test_boot_script_preloads_only_after_the_first_run():
    js = build_site.BOOT_HTML
    done = js[js.index("const done = () =>") :]
    assert "setTimeout(warm" in done[: done.index("};")]
    # the MathJax script is marked the way marimo's loader reads it, so it is not loaded twice
    assert "dataset.status = 'ready'" in js and "script[src=" in js


def test_mirror_copy_of_plotly_drops_only_what_no_page_reads(tmp_path):
    import zipfile

    src = tmp_path / "plotly-9.9.9-py3-none-any.whl"
    keep = ["plotly/__init__.py", "plotly/package_data/templates/plotly.json", "plotly/io/_html.py"]
    drop = [
        "plotly/labextension/static/x.js",
        "plotly/package_data/plotly.min.js",
        "plotly/package_data/datasets/iris.csv.gz",
        "plotly-9.9.9.data/data/share/jupyter/labextensions/x.js",
    ]
    record = "plotly-9.9.9.dist-info/RECORD"
    with zipfile.ZipFile(src, "w") as z:
        for n in keep + drop:
            z.writestr(n, "x")
        z.writestr(record, "".join(f"{n},sha256=x,1\n" for n in keep + drop + [record]))
    dst = tmp_path / "out" / src.name
    dst.parent.mkdir()
    assert build_site.slim_wheel(src, dst)
    with zipfile.ZipFile(dst) as z:
        assert sorted(z.namelist()) == sorted(keep + [record])
        listed = [ln.split(",", 1)[0] for ln in z.read(record).decode().splitlines()]
    assert sorted(listed) == sorted(keep + [record])
    # any other wheel is copied as it is (nothing written here)
    other = tmp_path / "pint-0.26.2-py3-none-any.whl"
    other.write_bytes(src.read_bytes())
    assert not build_site.slim_wheel(other, tmp_path / "out" / other.name)
    assert not (tmp_path / "out" / other.name).exists()


def test_boot_script_draws_an_unseen_chart_after_the_chart_code_loads():
    """Plotly's first draw on a page sets itself up (~0.4 s): the boot script pays for it with a
    chart nobody can see or reach, then removes it (the browser test checks it was drawn)."""
    js = build_site.BOOT_HTML
    assert "import(w.warmModule).then(warmChart" in js
    chart = js[js.index("const warmChart = () =>") :]
    for hidden in ("visibility: hidden", "aria-hidden", "host.inert = true", "mode: 'closed'"):
        assert hidden in chart, hidden
    assert "host.remove()" in chart and "mlsysim:warm-chart" in chart
    # once: the 180 s fallback timer must not start a second warm-up after the first run's end
    done = js[js.index("const done = () =>") :]
    assert done.index("if (finished) return;") < done.index("setTimeout(warm")
