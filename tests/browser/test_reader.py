"""Every page as a reader meets it, at 1400 px and at 400 px (issue 11).

For each built page, at both widths, the test checks that
- the page does not scroll sideways, and nothing in the main column is wider than the column
  unless it sits in its own horizontal scroll box or in the theme's full-width layout;
- no output line is a build path (``PosixPath(``, ``.stage-``) or a raw Python repr;
- code inputs are collapsed: at most two are open, each under 220 px tall;
- every PNG is sharp: its natural width is at least 1.5 times its displayed width;
- a page that records results shows its ``.verdict`` box on the first screen at 1400 x 900;
- the errata page opens with its summary table.

It saves a screenshot of every page at both widths (first screen and full page) under
``test-artifacts/pages/``.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from conftest import ARTIFACTS, SITE, open_page, site_pages

GENERATED = SITE.parent.parent / "book" / "generated"
WIDTHS = (1400, 400)
FIRST_SCREEN = 900

#: an output line that is a raw Python value rather than something written for a reader
RAW_LINE = re.compile(
    r"PosixPath\(|/\.stage-|^\s*(True|False|None|nan)\s*$|^\s*\{['\"].*\}\s*$"
    r"|^\s*\[(np\.|\d|').*\]\s*$|^array\(|^<(matplotlib|Figure size|Axes)"
)

MEASURE = r"""
const main = document.querySelector('main .bd-article') || document.querySelector('main');
const colRight = main.getBoundingClientRect().right;
function scrolls(el) {
  // the theme's wide layouts (full-width cells and blocks) are meant to pass the column
  if (el.closest('.full-width, .tag_full-width, .full_width')) return true;
  for (let a = el.parentElement; a && a !== main.parentElement; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (['auto', 'scroll', 'hidden'].includes(s.overflowX) &&
        a.getBoundingClientRect().right <= colRight + 1) return true;
  }
  return false;
}
const wide = [];
for (const el of main.querySelectorAll('*')) {
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.right <= colRight + 1) continue;
  if (getComputedStyle(el).position === 'fixed') continue;
  if (!scrolls(el)) wide.push(el.tagName.toLowerCase() + '.' + (el.className || '').toString()
                                .split(' ').slice(0, 2).join('.') + ' +' + Math.round(r.right - colRight) + 'px');
}
const open = [];
for (const el of document.querySelectorAll('.cell_input')) {
  const closed = el.closest('details:not([open])');
  const visible = el.checkVisibility ? el.checkVisibility() : el.offsetParent !== null;
  const h = el.getBoundingClientRect().height;
  if (!closed && visible && h > 0) open.push(Math.round(h));
}
const blurry = [];
for (const img of main.querySelectorAll('img')) {
  if (!/\.png($|\?)/.test(img.currentSrc || img.src)) continue;
  const shown = img.getBoundingClientRect().width;
  if (shown > 0 && img.naturalWidth < 1.5 * shown)
    blurry.push(img.src.split('/').pop() + ' ' + img.naturalWidth + 'px for ' + Math.round(shown) + 'px');
}
const figures = Array.from(main.querySelectorAll('img'))
  .filter(img => /\.png($|\?)/.test(img.currentSrc || img.src) && img.getBoundingClientRect().width > 0).length;
const verdict = document.querySelector('.verdict');
return {
  sideways: document.documentElement.scrollWidth - window.innerWidth,
  wide: wide.slice(0, 8),
  nwide: wide.length,
  open: open,
  blurry: blurry,
  figures: figures,
  verdictTop: verdict ? verdict.getBoundingClientRect().top + window.scrollY : null,
  outputs: Array.from(document.querySelectorAll(
    '.cell_output .output.text_plain, .cell_output .output.stream')).map(e => e.innerText),
  errataSummary: !!document.querySelector('table.errata-summary'),
};
"""


def _records_results(page: Path) -> bool:
    """A notebook page whose run wrote result records (so it must lead with a verdict)."""
    rel = page.relative_to(SITE).with_suffix("")
    if rel.parent.as_posix() != "book/generated":
        return False
    path = GENERATED / rel.name / "results.json"
    return path.is_file() and bool(json.loads(path.read_text()))


@pytest.fixture(scope="module")
def measurements(site_server, chrome):
    out = ARTIFACTS / "pages"
    out.mkdir(parents=True, exist_ok=True)
    found = {}
    for width in WIDTHS:
        for page in site_pages():
            rel = page.relative_to(SITE).as_posix()
            chrome.set_window_size(width, FIRST_SCREEN)
            open_page(chrome, site_server + rel)
            stem = rel.replace("/", "_").removesuffix(".html")
            chrome.save_screenshot(str(out / f"{stem}-{width}-first.png"))
            found[(rel, width)] = chrome.execute_script(MEASURE)
            height = chrome.execute_script("return document.documentElement.scrollHeight")
            chrome.set_window_size(width, min(int(height), 16000))
            time.sleep(0.3)
            chrome.save_screenshot(str(out / f"{stem}-{width}-full.png"))
    return found


def _problems(measurements, check):
    problems = []
    for (rel, width), m in sorted(measurements.items()):
        for msg in check(rel, width, m):
            problems.append(f"{rel} at {width} px: {msg}")
    return problems


def test_nothing_wider_than_the_column(measurements):
    def check(rel, width, m):
        if m["sideways"] > 1:
            yield f"the page scrolls sideways by {m['sideways']} px"
        if m["nwide"]:
            yield f"{m['nwide']} element(s) wider than the column outside a scroll box: {m['wide']}"

    problems = _problems(measurements, check)
    assert not problems, "\n".join(problems)


def test_no_build_paths_or_raw_values_in_outputs(measurements):
    def check(rel, width, m):
        if width != WIDTHS[0]:
            return
        for text in m["outputs"]:
            for line in text.splitlines():
                if RAW_LINE.search(line):
                    yield f"raw output line {line[:100]!r}"

    problems = _problems(measurements, check)
    assert not problems, "\n".join(problems)


def test_code_is_folded(measurements):
    def check(rel, width, m):
        if len(m["open"]) > 2:
            yield f"{len(m['open'])} code cells are open (at most 2)"
        tall = [h for h in m["open"] if h >= 220]
        if tall:
            yield f"open code cells {tall} px tall (each must be under 220 px)"

    problems = _problems(measurements, check)
    assert not problems, "\n".join(problems)


def test_figures_are_sharp(measurements):
    def check(rel, width, m):
        for b in m["blurry"]:
            yield f"PNG below 1.5x its displayed width: {b}"

    problems = _problems(measurements, check)
    assert not problems, "\n".join(problems)


def test_every_saved_figure_is_on_its_page(measurements):
    """Each PNG a notebook saved (``save_figure`` shows it too) appears as an image on the
    notebook's page. A figure can vanish silently: myst-nb drops a cell whose source is blank."""
    def check(rel, width, m):
        page = SITE / rel
        if page.parent.relative_to(SITE).as_posix() != "book/generated":
            return
        saved = len(list((GENERATED / page.stem).glob("*.png")))
        if m["figures"] < saved:
            yield f"{saved} figure(s) saved but {m['figures']} shown"

    problems = _problems(measurements, check)
    assert not problems, "\n".join(problems)


def test_verdict_on_the_first_screen(measurements):
    def check(rel, width, m):
        if width != 1400 or not _records_results(SITE / rel):
            return
        if m["verdictTop"] is None:
            yield "records results but has no .verdict box"
        elif m["verdictTop"] >= FIRST_SCREEN:
            yield f"the verdict box starts at {m['verdictTop']:.0f} px, below the first screen"

    problems = _problems(measurements, check)
    assert not problems, "\n".join(problems)
    assert any(_records_results(p) for p in site_pages()), "no page records results"


def test_errata_page_opens_with_its_summary_table(measurements):
    rel = "book/generated/errata.html"
    assert (rel, 1400) in measurements, "the errata page was not built"
    assert measurements[(rel, 1400)]["errataSummary"], "the errata page has no summary table"


def test_the_library_reference_has_an_anchor_per_function():
    from bs4 import BeautifulSoup

    wanted = {"ir": "rankbook.ir.ndcg", "metrics": "rankbook.metrics.evaluate",
              "consensus": "rankbook.consensus.kappa", "rbo": "rankbook.rbo.rbo_ext"}
    for module, anchor in wanted.items():
        page = SITE / "book" / "reference" / f"{module}.html"
        assert page.exists(), f"{page} was not built"
        ids = {t["id"] for t in BeautifulSoup(page.read_text(), "html.parser").find_all(id=True)}
        assert anchor in ids, f"{anchor} has no anchor on {page.name}"
