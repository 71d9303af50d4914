"""Every table fits, or says how it continues (issue 28, item 2).

Every table in the main column of every page is measured in headless Chromium, with every
fold (``<details>``) opened so that tables a reader unfolds are measured too:

- at 1400 px no table needs sideways scrolling: the box that scrolls it shows it whole, and it
  does not pass the right edge of the window;
- at 400 px a table wider than its box keeps its first column in place when the box scrolls
  (``position: sticky``, checked by scrolling the box) and shows a visible scroll cue
  (``.rb-scroll-cue``) right above it.

A table laid out as blocks on a phone (the verdict box, the dashboard) is not a grid there and
is not measured at that width. What was measured goes to ``test-artifacts/tables.json``.
"""

from __future__ import annotations

import json
import time

import pytest

from conftest import ARTIFACTS, SITE, open_page, site_pages

pytestmark = pytest.mark.browser

WIDTHS = (1400, 400)

OPEN_FOLDS = """
for (const d of document.querySelectorAll('main details')) d.open = true;
"""

MEASURE = r"""
const main = document.querySelector('main .bd-article') || document.querySelector('main');
function scrollBox(t) {
  for (let a = t.parentElement; a && a !== document.body; a = a.parentElement) {
    const s = getComputedStyle(a).overflowX;
    if (s === 'auto' || s === 'scroll') return a;
  }
  return document.scrollingElement;
}
function visible(el) {
  const r = el.getBoundingClientRect();
  const v = el.checkVisibility ? el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})
                               : el.offsetParent !== null;
  return v && r.width > 0 && r.height > 0;
}
function label(t) {
  const cap = t.querySelector('caption');
  if (cap && cap.textContent.trim()) return cap.textContent.trim().slice(0, 70);
  let head = t.querySelector('thead tr, tr');
  return '[' + (head ? head.innerText.replace(/\s+/g, ' ').trim().slice(0, 60) : '') + ']';
}
const out = [];
for (const t of main.querySelectorAll('table')) {
  if (!visible(t) || getComputedStyle(t).display !== 'table') continue;
  if (t.closest('.rankbook-explorer')) continue;  // the chart's own widgets
  const box = scrollBox(t);
  const r = t.getBoundingClientRect();
  const hidden = Math.round(box.scrollWidth - box.clientWidth);
  const rec = {table: label(t), width: Math.round(r.width), box: Math.round(box.clientWidth),
               hidden: Math.max(0, hidden), right: Math.round(r.right),
               pastWindow: Math.max(0, Math.round(Math.min(r.right, box.getBoundingClientRect().right)
                                                  - document.documentElement.clientWidth)),
               columns: Math.max(...Array.from(t.rows).map(row => row.cells.length), 0)};
  if (hidden > 1 && box !== document.scrollingElement) {
    const cell = t.querySelector('tbody tr > :first-child') || t.querySelector('tr > :first-child');
    const before = cell.getBoundingClientRect().left;
    box.scrollLeft = Math.min(150, hidden);
    const after = cell.getBoundingClientRect().left;
    box.scrollLeft = 0;
    rec.sticky = getComputedStyle(cell).position === 'sticky' && Math.abs(after - before) < 1;
    const cues = [box.previousElementSibling, ...box.querySelectorAll('.rb-scroll-cue')]
      .filter(c => c && c.classList.contains('rb-scroll-cue') && visible(c)
                   && c.textContent.trim() && c.getBoundingClientRect().right
                      <= document.documentElement.clientWidth + 1);
    rec.cue = cues.length ? cues[0].textContent.trim() : null;
  }
  out.push(rec);
}
return out;
"""


@pytest.fixture(scope="module")
def tables(site_server, chrome):
    found = {}
    for width in WIDTHS:
        chrome.set_window_size(width, 900)
        for page in site_pages():
            rel = page.relative_to(SITE).as_posix()
            open_page(chrome, site_server + rel)
            chrome.execute_script(OPEN_FOLDS)
            time.sleep(0.25)  # the folds' toggle events re-fit their tables
            found[(rel, width)] = chrome.execute_script(MEASURE)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "tables.json").write_text(json.dumps(
        [{"page": rel, "viewport": width, **t} for (rel, width), ts in sorted(found.items())
         for t in ts], indent=1))
    return found


def test_tables_were_measured(tables):
    at_wide = sum(len(ts) for (rel, width), ts in tables.items() if width == 1400)
    assert at_wide >= 20, f"only {at_wide} tables measured at 1400 px: is the site built?"


def test_no_table_scrolls_sideways_at_1400(tables):
    problems = [f"{rel}: {t['table']} is {t['width']} px in a {t['box']} px box "
                f"({t['hidden']} px hidden, {t['pastWindow']} px past the window)"
                for (rel, width), ts in sorted(tables.items()) if width == 1400
                for t in ts if t["hidden"] > 1 or t["pastWindow"] > 1]
    assert not problems, f"{len(problems)} table(s) need sideways scrolling:\n" + "\n".join(problems)


def test_wide_tables_on_a_phone_keep_their_first_column_and_say_so(tables):
    problems = []
    for (rel, width), ts in sorted(tables.items()):
        if width != 400:
            continue
        for t in ts:
            if t["hidden"] <= 1:
                continue
            if "sticky" not in t:
                problems.append(f"{rel}: {t['table']} makes the page scroll sideways")
                continue
            if not t["sticky"]:
                problems.append(f"{rel}: {t['table']} ({t['width']} px) loses its first column "
                                f"when scrolled")
            if not t["cue"]:
                problems.append(f"{rel}: {t['table']} ({t['width']} px) has no visible scroll cue")
    assert not problems, "\n".join(problems)
