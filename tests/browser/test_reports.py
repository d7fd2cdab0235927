"""Real-browser checks of the ledger and the reports (offline site, headless Debian Chromium).

    bash scripts/install_browser_deps.sh
    pytest -m browser tests/browser/test_reports.py

Uses the fixtures of ``tests/browser/conftest.py`` (the site built once per session, its server,
Chromium, ``open_notebook``). Checks, as a student and an instructor would:
- a committed answer and the part it unlocked come back after a reload (from IndexedDB);
- two tabs of one browser saving different chapters at once lose neither chapter;
- "Download my report" saves a report whose first attempt is the option clicked;
- the instructor notebook loads twenty reports and draws the class's answers.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import answer

from mlsysim.labs import reports
from mlsysim.labs.components import questions
from mlsysim.labs.parts import lab06
from mlsysim.labs.state import DesignLedger

pytestmark = pytest.mark.browser

RADIO = "[role=radio], input[type=radio]"
PLOT = ".js-plotly-plot"
FIRST = "s06_06_attention"
SECOND = "s06_07_transformers"

# the ledger file as IDBFS stores it: database "/mlsysim-ledger", store FILE_DATA, key = path
LEDGER_JS = """async () => {
  const db = await new Promise((res, rej) => {
    const r = indexedDB.open('/mlsysim-ledger'); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error);
  });
  if (!Array.from(db.objectStoreNames).includes('FILE_DATA')) { db.close(); return null; }
  const rec = await new Promise((res, rej) => {
    const r = db.transaction('FILE_DATA', 'readonly').objectStore('FILE_DATA')
      .get('/mlsysim-ledger/mlsysim-ledger.json');
    r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error);
  });
  db.close();
  return rec && rec.contents ? new TextDecoder().decode(new Uint8Array(rec.contents)) : null;
}"""


def _ledger(page) -> dict:
    text = page.evaluate(LEDGER_JS)
    return json.loads(text) if text else {}


def _wait_ledger(page, predicate, timeout_s: float = 30.0) -> dict:
    deadline = time.time() + timeout_s
    data: dict = {}
    while time.time() < deadline:
        data = _ledger(page)
        if data and predicate(data):
            return data
        page.wait_for_timeout(300)
    raise AssertionError(
        f"the ledger never reached the expected state; last seen: {json.dumps(data)[:800]}"
    )


def _chapter(stem: str) -> str:
    import importlib

    return importlib.import_module(f"mlsysim.labs.parts.{stem}").CHAPTER


def _first_option_key(stem: str) -> tuple[str, str]:
    """(ledger key, option key) of the first option of the notebook's first question."""
    import importlib

    lab = importlib.import_module(f"mlsysim.labs.parts.{stem}")
    key, (_, pred) = next(iter(questions(lab).items()))
    return key, pred.display_order[0]  # the first radio shown


def _answer_first_question(lp):
    assert answer(lp.page.locator(RADIO).filter(visible=True).first), "no commit button"
    lp.page.locator(PLOT).filter(visible=True).first.wait_for(timeout=90_000)


def test_reload_restores_the_answer_and_the_unlocked_part(open_notebook):
    lp = open_notebook(FIRST)
    lp.wait_live()
    assert lp.page.locator(PLOT).count() == 0, "a chart was shown before any answer"
    first_group = lp.page.locator("[role=radiogroup]").first
    assert first_group.locator("[aria-checked=true]").count() == 0, (
        "the question has a default answer"
    )
    _answer_first_question(lp)
    key, option = _first_option_key(FIRST)
    chapter = _chapter(FIRST)
    _wait_ledger(
        lp.page, lambda d: d["chapters"].get(chapter, {}).get("answers", {}).get(key) == option
    )
    lp.page.reload()
    lp.wait_live()
    lp.page.locator(PLOT).filter(visible=True).first.wait_for(timeout=90_000)  # unlocked again
    restored = lp.page.locator("[role=radiogroup]").first.locator("[aria-checked=true]")
    assert restored.count() == 1, "the committed answer was not restored on reload"
    assert lp.python_errors() == []
    att = _ledger(lp.page)["chapters"][chapter]["attempts"][key]
    assert att["first"] == option and att["first_at"]


def test_two_tabs_saving_different_chapters_lose_nothing(open_notebook):
    lp = open_notebook(FIRST)
    other = lp.ctx.new_page()  # a second tab of the same browser profile (same IndexedDB)
    other.goto(lp.url.replace(f"/{FIRST}/", f"/{SECOND}/"))
    lp.wait_live()
    other.locator(RADIO).filter(visible=True).first.wait_for(timeout=120_000)
    other.wait_for_timeout(1500)
    # answer in both tabs without waiting in between: their saves overlap
    answer(lp.page.locator(RADIO).filter(visible=True).first)
    answer(other.locator(RADIO).filter(visible=True).first)
    ch1, ch2 = _chapter(FIRST), _chapter(SECOND)
    both = _wait_ledger(lp.page, lambda d: {ch1, ch2} <= set(d["chapters"]), timeout_s=60)
    # a later save in the first tab (another question) must keep the second tab's chapter
    n_before = len(both["chapters"][ch1]["answers"])
    lp.page.locator(PLOT).filter(visible=True).first.wait_for(timeout=90_000)
    # the next unanswered question of the first tab: the first radio of the second radio group
    groups = lp.page.locator("[role=radiogroup]")
    for i in range(groups.count()):
        g = groups.nth(i)
        if g.is_visible() and g.locator("[aria-checked=true]").count() == 0:
            answer(g.locator(RADIO).first)
            break
    after = _wait_ledger(
        lp.page,
        lambda d: len(d["chapters"].get(ch1, {}).get("answers", {})) > n_before,
        timeout_s=60,
    )
    assert {ch1, ch2} <= set(after["chapters"]), f"a chapter was lost: {sorted(after['chapters'])}"
    assert after["chapters"][ch2]["answers"], "the second tab's answer was overwritten"
    other.close()


def test_download_my_report(open_notebook, tmp_path):
    lp = open_notebook(FIRST)
    lp.wait_live()
    _answer_first_question(lp)
    key, option = _first_option_key(FIRST)
    chapter = _chapter(FIRST)
    _wait_ledger(
        lp.page, lambda d: d["chapters"].get(chapter, {}).get("answers", {}).get(key) == option
    )
    button = lp.page.get_by_text("Download my report", exact=False).first
    button.scroll_into_view_if_needed()
    with lp.page.expect_download(timeout=60_000) as dl:
        button.click()
    path = tmp_path / "report.md"
    dl.value.save_as(path)
    rep = reports.parse(path.read_bytes(), path.name)
    first = next(a for a in rep.answers if a.key == key)
    assert (first.first, first.first_at != "", rep.chapter) == (option, True, chapter)
    assert rep.notebook_sha256 and rep.mlsysim_version


def _class_reports(folder: Path, n: int = 20) -> list[Path]:
    keys = [list(p.options) for p in (lab06.PRED_A, lab06.PRED_B, lab06.PRED_C, lab06.PRED_D)]
    files = []
    for i in range(n):
        led = DesignLedger(folder / f"l{i}.json")
        answers = {
            part: opts[(i + j) % len(opts)]
            for j, (part, opts) in enumerate(zip("ABCD", keys, strict=True))
        }
        led.save(lab06.CHAPTER, answers=answers, required=lab06.PARTS, student=f"Student {i:02d}")
        p = folder / f"report{i:02d}.json"
        p.write_text(reports.to_json(reports.build(led, lab06)), encoding="utf-8")
        files.append(p)
    return files


def test_instructor_notebook_loads_twenty_reports(open_notebook, tmp_path):
    files = _class_reports(tmp_path)
    lp = open_notebook("instructor")
    upload = lp.page.locator("input[type=file]")
    upload.first.wait_for(state="attached", timeout=120_000)
    # the pre-rendered page shows the upload area before Python runs: wait until the kernel's
    # first run is over (no output busy for 400 ms; conftest's marks), or the files are dropped
    lp.page.wait_for_function(
        "() => { const M = window.__mlsysim; return M && M.live !== null && performance.now() - M.live > 400; }",
        timeout=180_000,
    )
    upload.first.set_input_files([str(p) for p in files])
    lp.page.locator(PLOT).nth(4).wait_for(timeout=120_000)  # accuracy + 4 questions
    # the CSV cell is the notebook's last: it may be drawn just after the charts
    lp.page.get_by_text("Download class.csv").first.wait_for(timeout=60_000)
    cards = [t.strip() for t in lp.page.locator(".ms-card .ms-value").all_inner_texts()]
    assert cards[:2] == ["20", "20"], cards  # 20 reports, 20 completed
    assert lp.python_errors() == []
    assert lp.offenders() == []
