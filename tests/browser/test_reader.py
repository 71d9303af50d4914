"""Every page as a reader meets it, at 1400 px and at 400 px, in the light and the dark theme
(issues 11 and 20).

For each built page, at both widths and in both themes, the test checks that
- the page does not scroll sideways, and nothing in the main column is wider than the column
  unless it sits in its own horizontal scroll box or in the theme's full-width layout;
- no output line is a build path (``PosixPath(``, ``.stage-``) or a raw Python repr;
- code inputs are collapsed: at most two are open, each under 220 px tall;
- every PNG is sharp: its natural width is at least 1.5 times its displayed width;
- a page that records results shows its ``.verdict`` box on the first screen at 1400 x 900, and
  the first row of its verdict on the first screen at 400 x 900;
- every piece of text in the main column keeps a contrast of at least 4.5:1 with what is behind
  it (3:1 for large text), in the light and in the dark theme (pydata's ``data-theme="dark"``);
- a formula wider than the column scrolls inside its own box;
- the page leaks no Python or build words: no raw ``{role}`` markup, no ``nan``, no integer
  printed as ``10.0`` and no list of them like ``[4.0, 4.0, 1.0]``, no project-internal words;
- the errata page opens with its summary table.

It saves a screenshot of every page at both widths (first screen and full page, light theme;
first screen in the dark theme) under ``test-artifacts/pages/``.
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
const firstRow = verdict ? verdict.querySelector('tbody tr') : null;
// contrast of every visible text against what is behind it (WCAG 2 relative luminance)
function rgba(c) {
  const m = c && c.match(/rgba?\(([^)]+)\)/);
  if (!m) return null;
  const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
}
function over(top, bottom) {
  const a = top[3];
  return [0, 1, 2].map(i => top[i] * a + bottom[i] * (1 - a)).concat([1]);
}
function background(el) {
  const layers = [];
  for (let a = el; a; a = a.parentElement) {
    const c = rgba(getComputedStyle(a).backgroundColor);
    if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
  }
  let bg = [255, 255, 255, 1];
  if (!layers.length || layers[layers.length - 1][3] < 1) {
    const root = rgba(getComputedStyle(document.body).backgroundColor);
    const html = rgba(getComputedStyle(document.documentElement).backgroundColor);
    bg = (root && root[3] >= 1) ? root : ((html && html[3] >= 1) ? html : bg);
  }
  for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
  return bg;
}
function lum(c) {
  const f = v => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
}
const lowContrast = [];
const seen = new Set();
for (const el of main.querySelectorAll('*')) {
  if (el.closest('svg, mjx-container, .rb-explorer-chart, .cell_input, details:not([open]) > :not(summary)')) continue;
  const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
  if (!own) continue;
  const vis = el.checkVisibility ? el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})
                                 : el.offsetParent !== null;
  const r = el.getBoundingClientRect();
  if (!vis || r.width === 0 || r.height === 0) continue;
  const st = getComputedStyle(el);
  let fg = rgba(st.color);
  let opacity = 1;
  for (let a = el; a; a = a.parentElement) opacity *= parseFloat(getComputedStyle(a).opacity);
  const bg = background(el);
  fg = over([fg[0], fg[1], fg[2], fg[3] * opacity], bg);
  const L1 = lum(fg), L2 = lum(bg);
  const ratio = (Math.max(L1, L2) + 0.05) / (Math.min(L1, L2) + 0.05);
  const size = parseFloat(st.fontSize), bold = parseInt(st.fontWeight) >= 700;
  const need = (size >= 24 || (bold && size >= 18.66)) ? 3 : 4.5;
  if (ratio < need - 0.01) {
    const key = el.tagName + '.' + (el.className || '').toString().split(' ')[0] + ' ' + st.color + ' on ' + bg.slice(0, 3).map(Math.round).join(',');
    if (!seen.has(key)) {
      seen.add(key);
      lowContrast.push(key + ' ' + ratio.toFixed(2) + ':1 "' + el.textContent.trim().slice(0, 30) + '"');
    }
  }
}
// formulas wider than the column must scroll inside their own box
const mathWide = [];
for (const m of main.querySelectorAll('mjx-container')) {
  const inner = m.querySelector('mjx-math');
  if (!inner) continue;
  const w = inner.getBoundingClientRect().width, box = m.getBoundingClientRect();
  if (w <= main.getBoundingClientRect().width + 1) continue;
  // its own box: the formula scrolls itself, or it sits in a table that scrolls in its own box
  const own = (['auto', 'scroll'].includes(getComputedStyle(m).overflowX) && box.right <= colRight + 1)
              || (m.closest('table') !== null && scrolls(m));
  if (!own) mathWide.push(Math.round(w) + 'px formula "' + (m.getAttribute('aria-label') || m.textContent).slice(0, 30) + '"');
}
return {
  lowContrast: lowContrast.slice(0, 12),
  nLowContrast: lowContrast.length,
  mathWide: mathWide.slice(0, 6),
  firstRowTop: firstRow ? firstRow.getBoundingClientRect().top + window.scrollY : null,
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


THEMES = ("light", "dark")

SET_THEME = """
document.documentElement.dataset.theme = arguments[0];
document.documentElement.dataset.mode = arguments[0];
try { localStorage.setItem('theme', arguments[0]); localStorage.setItem('mode', arguments[0]); } catch (e) {}
"""


@pytest.fixture(scope="module")
def measurements(site_server, chrome):
    out = ARTIFACTS / "pages"
    out.mkdir(parents=True, exist_ok=True)
    found = {}
    for theme in THEMES:
        for width in WIDTHS:
            for page in site_pages():
                rel = page.relative_to(SITE).as_posix()
                chrome.set_window_size(width, FIRST_SCREEN)
                open_page(chrome, site_server + rel)
                chrome.execute_script(SET_THEME, theme)
                time.sleep(0.15)
                stem = rel.replace("/", "_").removesuffix(".html")
                suffix = "" if theme == "light" else "-dark"
                chrome.save_screenshot(str(out / f"{stem}-{width}{suffix}-first.png"))
                found[(rel, width, theme)] = chrome.execute_script(MEASURE)
                if theme != "light" or rel.startswith("_modules/"):
                    continue  # a full-page picture of a source listing (16,000 px tall) shows no one anything
                height = chrome.execute_script("return document.documentElement.scrollHeight")
                chrome.set_window_size(width, min(int(height), 16000))
                time.sleep(0.3)
                chrome.save_screenshot(str(out / f"{stem}-{width}-full.png"))
    chrome.execute_script(SET_THEME, "light")
    return found


def _problems(measurements, check):
    problems = []
    for (rel, width, theme), m in sorted(measurements.items()):
        for msg in check(rel, width, m):
            problems.append(f"{rel} at {width} px, {theme}: {msg}")
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
    """At 1400 px the verdict box starts on the first screen; at 400 px its first row does."""
    def check(rel, width, m):
        if not _records_results(SITE / rel):
            return
        if m["verdictTop"] is None:
            yield "records results but has no .verdict box"
        elif width == 1400 and m["verdictTop"] >= FIRST_SCREEN:
            yield f"the verdict box starts at {m['verdictTop']:.0f} px, below the first screen"
        elif width != 1400 and (m["firstRowTop"] is None or m["firstRowTop"] + 40 >= FIRST_SCREEN):
            yield (f"the first verdict row starts at {m['firstRowTop'] or 0:.0f} px, not on the "
                   "first screen")

    problems = _problems(measurements, check)
    assert not problems, "\n".join(problems)
    assert any(_records_results(p) for p in site_pages()), "no page records results"


def test_errata_page_opens_with_its_summary_table(measurements):
    rel = "book/generated/errata.html"
    assert (rel, 1400, "light") in measurements, "the errata page was not built"
    assert measurements[(rel, 1400, "light")]["errataSummary"], \
        "the errata page has no summary table"


def test_the_library_reference_has_an_anchor_per_function():
    from bs4 import BeautifulSoup

    wanted = {"ir": "rankbook.ir.ndcg", "metrics": "rankbook.metrics.evaluate",
              "consensus": "rankbook.consensus.kappa", "rbo": "rankbook.rbo.rbo_ext"}
    for module, anchor in wanted.items():
        page = SITE / "book" / "reference" / f"{module}.html"
        assert page.exists(), f"{page} was not built"
        ids = {t["id"] for t in BeautifulSoup(page.read_text(), "html.parser").find_all(id=True)}
        assert anchor in ids, f"{anchor} has no anchor on {page.name}"


def test_text_contrast_in_both_themes(measurements):
    def check(rel, width, m):
        if m["nLowContrast"]:
            yield (f"{m['nLowContrast']} kind(s) of text below 4.5:1 (3:1 when large): "
                   f"{m['lowContrast']}")

    problems = _problems(measurements, check)
    assert not problems, "\n".join(problems)


def test_long_formulas_scroll_in_their_own_box(measurements):
    def check(rel, width, m):
        for f in m["mathWide"]:
            yield f"a formula wider than the column does not scroll in its own box: {f}"

    problems = _problems(measurements, check)
    assert not problems, "\n".join(problems)


#: Words and spellings that must not reach a reader (the page text outside code).
LEAKS = {
    "raw role": re.compile(r"\{(cite|cite:t|cite:p|py:func|py:class|ref|doc|math|download)\}`"),
    # a value shown as nan; "(nan)" naming the spelling in prose is not one
    "nan": re.compile(r"(?<![\w.\'\"`/(])(nan|NaN)(?![\w(_)])"),
    "integer printed as a float": re.compile(r"\b[A-Za-z_]\w* = -?\d+\.0(?![\d.])"),
    "list of integer-valued floats": re.compile(r"\[-?\d+\.0(, -?\d+\.0){2,}\]"),
    # (another project's "scikit-learn issue 29521" is a citation, not an internal word)
    "internal word": re.compile(r"the project's issue|the issue[’']s|the issue asks|\bTODO\b|\bFIXME\b|"
                                r"\bhelper\b|\bthe lead\b", re.I),
}


def test_no_leaks_in_the_page_text():
    from bs4 import BeautifulSoup

    problems = []
    for page in site_pages():
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        main = soup.select_one("main") or soup
        for node in main.select("div.cell_input, .highlight, pre, code, script, style, "
                                ".provenance, div.admonition.note, mjx-container, .math"):
            node.decompose()
        text = " ".join(main.get_text(" ").split())
        reference = "reference" in page.relative_to(SITE).parts
        for what, pattern in LEAKS.items():
            # the library reference documents Python values as Python: `nan` is what a function
            # returns there, `gamma = 1.0` a signature; only raw markup is a leak on those pages
            if reference and what != "raw role":
                continue
            for hit in pattern.finditer(text):
                start = max(0, hit.start() - 50)
                problems.append(f"{page.relative_to(SITE)}: {what}: ...{text[start:hit.end() + 20]}")
    assert not problems, "\n".join(problems[:60])
