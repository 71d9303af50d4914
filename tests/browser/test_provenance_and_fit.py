"""The built site as issue 39 asks it to read (``make test-browser``).

Pages that fit
- at 1400 px, in the light and the dark theme, no table, figure, output, explorer or provenance
  line is covered by anything sticky or fixed (the page's contents list, a header) at any
  scroll position, and none is cut by a box that hides what passes its edge; no explorer label
  is shortened with "…";
- at 1400 px and at 400 px, in both themes, no element scrolls sideways for a few pixels or
  inline (the scroll bar under every inline formula);
- at 400 px the heat map of Figure 1 keeps readable labels, static and in its explorer.

Provenance
- every figure, table and explorer of every executed page has its provenance line, whose links
  are followed: the cell (its anchor on the page and its cell in the executed notebook offered
  for download), each library function (its anchor on its reference page), and the SHA-256 of
  each file (recomputed from the file the page offers).

Ids, numbers, words
- every claim and erratum id shown on the landing page, the chapters, the dashboard, the errata
  and the pages is a link to its row or entry; no issue number of this project appears; no link
  shows raw TeX; no plain-text formula or internal id reaches a reader;
- the old erratum anchors and the counted section anchors lead to the entries and sections;
  the errata page's filter works; errata.csv says "slip" where the page does; "other readings"
  count as the verdict does and say so;
- the landing page shows its counts on the first screen at 1400 and at 400 px; "Did it
  reproduce?" sits with the reproducibility pages and leads with what it measures.

Machine-readable provenance
- the SWHIDs of the source page and of the citation are those of the archive's files,
  recomputed by git; ``ro-crate-metadata.json`` reads back with ``rocrate`` and lists every
  executed page; each source has its ``metadata.yaml``; the site's CITATION.cff validates and its
  BibTeX prints version, commit and address (or says none is known) under a standard style.

What was measured goes to ``test-artifacts/fit.json``.
"""

from __future__ import annotations

import csv
import hashlib
import html
import json
import re
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
import yaml
from bs4 import BeautifulSoup

from conftest import ARTIFACTS, ROOT, SITE, open_page, site_pages

pytestmark = pytest.mark.browser

GENERATED = ROOT / "book" / "generated"
BOOK = SITE / "book"
THEMES = ("light", "dark")

SET_THEME = """
document.documentElement.dataset.theme = arguments[0];
document.documentElement.dataset.mode = arguments[0];
"""


def _soup(path: Path) -> BeautifulSoup:
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make book` first")
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _target(page: Path, href: str) -> tuple[Path, str]:
    parsed = urlparse(href)
    path = page if not parsed.path else (page.parent / unquote(parsed.path)).resolve()
    return path, unquote(parsed.fragment)


def _ids(path: Path, cache: dict = {}) -> set[str]:  # noqa: B006 - a cache across calls
    if path not in cache:
        cache[path] = {t["id"] for t in _soup(path).find_all(id=True)}
    return cache[path]


def notebook_pages() -> list[Path]:
    names = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    return [BOOK / "generated" / f"{n}.html" for n in names]


# --------------------------------------------------------------------------------------------
# Pages that fit
# --------------------------------------------------------------------------------------------
COVER = r"""
const done = arguments[arguments.length - 1];
(async () => {
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(
    () => setTimeout(r, 20))));
  const main = document.querySelector('main .bd-article') || document.querySelector('main');
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const label = el => (el.tagName.toLowerCase() + '.' + (el.className || '').toString()
                       .split(' ').filter(Boolean).slice(0, 2).join('.')).replace(/\.$/, '');
  function topBar() {  // what sticks to the top over the whole width: content passes under it
    let bottom = 0;
    for (const el of document.querySelectorAll('body *')) {
      const st = getComputedStyle(el);
      if (st.position !== 'sticky' && st.position !== 'fixed') continue;
      if (st.visibility === 'hidden') continue;
      const r = el.getBoundingClientRect();
      if (r.top <= 1 && r.width >= 0.6 * vw && r.height > 0 && r.height < 200) bottom = Math.max(bottom, r.bottom);
    }
    return bottom;
  }
  function visibleRect(el) {  // the element's rect as the boxes around it let it show
    let r = el.getBoundingClientRect();
    let box = {left: r.left, right: r.right, top: r.top, bottom: r.bottom}, clipped = false;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const st = getComputedStyle(a);
      if (st.overflowX === 'visible' && st.overflowY === 'visible') continue;
      const ar = a.getBoundingClientRect();
      const scrolls = ['auto', 'scroll'].includes(st.overflowX);
      if (!scrolls && (box.right > ar.right + 1 || box.left < ar.left - 1) && st.overflowX !== 'visible') clipped = label(a);
      box = {left: Math.max(box.left, ar.left), right: Math.min(box.right, ar.right),
             top: Math.max(box.top, ar.top), bottom: Math.min(box.bottom, ar.bottom)};
    }
    return [box, clipped];
  }
  const selector = 'table, figure img, .cell_output > .output, .rankbook-explorer, div.rb-prov, div.rb-glance, div.admonition';
  const targets = [...main.querySelectorAll(selector)].filter(el => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && (el.checkVisibility
      ? el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true}) : true);
  });
  const covered = {}, cut = {};
  for (const el of targets) {
    const rect = el.getBoundingClientRect();
    const top = rect.top + window.scrollY, height = rect.height;
    const step = Math.max(120, vh - topBar() - 60);
    for (let off = 0; off < height; off += step) {
      window.scrollTo(0, Math.max(0, top + off - topBar() - 10));
      await frame();
      const bar = topBar();
      const [box, clipped] = visibleRect(el);
      if (box.right - box.left < 1 || box.bottom - box.top < 1) continue;  // folded away
      if (clipped) cut[label(el) + ' cut by ' + clipped] = 1;
      const ys = [box.top + 3, (box.top + box.bottom) / 2, box.bottom - 3].filter(y => y > bar + 2 && y < vh - 2);
      const xs = [0.02, 0.25, 0.5, 0.75, 0.98].map(f => box.left + f * (box.right - box.left)).filter(x => x > 0 && x < vw - 1);
      for (const y of ys) for (const x of xs) {
        const hit = document.elementFromPoint(x, y);
        if (!hit || el.contains(hit) || hit.contains(el)) continue;
        let over = hit;  // the outermost sticky or fixed thing the point hit, if any
        for (let a = hit; a; a = a.parentElement) {
          const p = getComputedStyle(a).position;
          if (p === 'sticky' || p === 'fixed') over = a;
        }
        covered[label(el) + ' under ' + label(over)] = (covered[label(el) + ' under ' + label(over)] || 0) + 1;
      }
    }
  }
  const shortened = [];
  for (const t of document.querySelectorAll('.rb-explorer-chart svg text')) {
    if (t.textContent.includes('\u2026')) shortened.push(t.textContent);
  }
  done({covered, cut, shortened, targets: targets.length});
})();
"""

SCROLLBARS = r"""
const out = [];
for (const el of document.querySelectorAll('main *')) {
  const st = getComputedStyle(el);
  if (!['auto', 'scroll'].includes(st.overflowX)) continue;
  const extra = el.scrollWidth - el.clientWidth;
  if (extra <= 0 || !(el.checkVisibility ? el.checkVisibility() : true)) continue;
  const inlineMath = el.tagName === 'MJX-CONTAINER' && el.getAttribute('display') !== 'true';
  const inline = st.display.startsWith('inline') || inlineMath;
  const wanted = el.classList.contains('rb-math-scroll') && extra > 4;  // a formula wider than its block
  if ((inline && !wanted) || extra <= 4) {
    out.push(el.tagName.toLowerCase() + '.' + (el.className || '').toString().split(' ')[0] + ' +' + extra + 'px');
  }
}
return out;
"""


@pytest.fixture(scope="module")
def fit(site_server, chrome):
    found = {}
    for theme in THEMES:
        for width in (1400, 400):
            chrome.set_window_size(width, 900)
            for page in site_pages():
                rel = page.relative_to(SITE).as_posix()
                open_page(chrome, site_server + rel)
                chrome.execute_script(SET_THEME, theme)
                time.sleep(0.1)
                rec = {"scrollbars": chrome.execute_script(SCROLLBARS)}
                if width == 1400:
                    chrome.set_script_timeout(300)
                    rec.update(chrome.execute_async_script(COVER))
                found[(rel, width, theme)] = rec
    chrome.set_window_size(1400, 900)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "fit.json").write_text(json.dumps(
        [{"page": r, "width": w, "theme": t, **m} for (r, w, t), m in sorted(found.items())],
        indent=1))
    return found


def test_nothing_is_covered_or_cut_at_1400(fit):
    problems = []
    for (rel, width, theme), m in sorted(fit.items()):
        if width != 1400:
            continue
        problems += [f"{rel} ({theme}): {k} ({n} points)" for k, n in m["covered"].items()]
        problems += [f"{rel} ({theme}): {k}" for k in m["cut"]]
        problems += [f"{rel} ({theme}): explorer label shortened: {t!r}" for t in m["shortened"]]
    measured = sum(m.get("targets", 0) for m in fit.values())
    assert measured > 500, f"only {measured} elements measured: is the site built?"
    assert not problems, f"{len(problems)} covered or cut:\n" + "\n".join(problems[:60])


def test_no_inline_or_needless_scroll_bars(fit):
    problems = [f"{rel} at {width} px ({theme}): {len(m['scrollbars'])}: {m['scrollbars'][:6]}"
                for (rel, width, theme), m in sorted(fit.items()) if m["scrollbars"]]
    assert not problems, "\n".join(problems[:60])


HEATMAP = r"""
const fig = document.querySelector('figure[id^="fig-agreement-heatmap"], figure#fig-agreement-heatmap');
const img = fig ? fig.querySelector('img') : null;
const cue = fig ? fig.previousElementSibling : null;
const svg = document.querySelector('#explorer-figure1-explorer svg, .rankbook-explorer svg');
let gaps = [], size = 0;
if (svg) {
  const labels = [...svg.querySelectorAll('g.role-axis[aria-label^="X-axis"] .role-axis-label text')];
  const xs = labels.map(t => t.getBoundingClientRect()).filter(r => r.width > 0);
  size = Math.min(...labels.map(t => parseFloat(getComputedStyle(t).fontSize) || parseFloat(t.getAttribute('font-size')) || 0));
  const lefts = xs.map(r => Math.round(r.left)).sort((a, b) => a - b);
  for (let i = 1; i < lefts.length; i++) if (lefts[i] !== lefts[i - 1]) gaps.push(lefts[i] - lefts[i - 1]);
}
return {imgWidth: img ? img.getBoundingClientRect().width : null,
        cue: cue && cue.classList.contains('rb-scroll-cue') ? cue.textContent : null,
        labelSize: size, minGap: gaps.length ? Math.min(...gaps) : null};
"""


def test_the_heat_map_of_figure_1_is_readable_on_a_phone(site_server, chrome):
    from rankbook.book.outputs import COLUMN_PX

    chrome.set_window_size(400, 900)
    try:
        open_page(chrome, site_server + "book/generated/agreement_heatmap.html")
        for _ in range(50):  # the explorer draws after the page
            if chrome.execute_script("return !!document.querySelector('.rankbook-explorer[data-ready=yes]')"):
                break
            time.sleep(0.2)
        m = chrome.execute_script(HEATMAP)
    finally:
        chrome.set_window_size(1400, 900)
    # the static figure keeps the size at which its text was checked readable (>= 9 pt)
    assert m["imgWidth"] is not None and m["imgWidth"] >= COLUMN_PX - 1, m
    assert m["cue"] and "SVG" in m["cue"], m
    # the explorer's labels stay 11 px or more, each column at least a label's height apart
    assert m["labelSize"] >= 11 and m["minGap"] is not None and m["minGap"] >= 12, m


# --------------------------------------------------------------------------------------------
# Provenance of every figure, table and explorer
# --------------------------------------------------------------------------------------------
def _items(soup):
    """The figures, tables and explorers of a page's outputs, and its provenance lines, in
    document order."""
    out = []
    for el in soup.select("figure, div.cell_output table, div.rankbook-explorer, div.rb-prov"):
        if el.name == "table" and (el.find_parent("figure") or el.find_parent(class_="rankbook-explorer")
                                   or el.find_parent("table")):
            continue
        if el.name == "figure" and not el.find("img"):
            continue
        out.append(el)
    return out


def test_every_figure_table_and_explorer_has_its_provenance_line():
    missing, counted = [], 0
    for page in notebook_pages():
        pending = None
        for el in _items(_soup(page)):
            if "rb-prov" in (el.get("class") or []):
                pending = None
                continue
            if pending is not None:
                missing.append(f"{page.name}: {pending}")
            counted += 1
            caption = el.find(["figcaption", "caption", "summary"])
            pending = f"{el.name} {(caption.get_text(' ') if caption else el.get_text(' '))[:70]!r}"
        if pending is not None:
            missing.append(f"{page.name}: {pending}")
    assert counted >= 100, f"only {counted} figures, tables and explorers found"
    assert not missing, f"{len(missing)} without a provenance line:\n" + "\n".join(missing[:40])


def _download(page: Path, soup, name: str) -> Path | None:
    for a in soup.select("a.download[href], a.reference.download[href]"):
        if a["href"].rsplit("/", 1)[-1] == name:
            return _target(page, a["href"])[0]
    return None


def test_every_provenance_link_leads_where_it_says():
    from rankbook.book.source_archive import read_description

    source = read_description(GENERATED)
    problems, followed = [], 0
    for page in notebook_pages():
        soup = _soup(page)
        for line in soup.select("div.rb-prov"):
            text = line.get_text(" ")
            # the cell: on the page, and in the executed notebook offered for download
            cell = line.select_one("a.rb-cell-link")
            notebook = next((a for a in line.select("a[href]") if a["href"].endswith(".ipynb")), None)
            if cell is None or notebook is None:
                problems.append(f"{page.name}: no link to its cell: {text[:80]}")
                continue
            anchor = cell["href"].lstrip("#")
            target = soup.find(id=anchor)
            if target is None or "cell" not in (target.get("class") or []):
                problems.append(f"{page.name}: #{anchor} is no cell of the page")
            nb_path = _target(page, notebook["href"])[0]
            count = int(anchor.split("-")[1])
            nb = json.loads(nb_path.read_text())
            if not any(c.get("execution_count") == count for c in nb["cells"]):
                problems.append(f"{page.name}: the executed notebook has no cell [{count}]")
            # the commit is the archive's
            if source is not None and source.short and source.short not in text:
                problems.append(f"{page.name}: the commit is not {source.short}")
            # every function is a link to its anchor on a reference page
            for code in line.select("code.xref.py"):
                a = code.find_parent("a")
                if a is None:
                    problems.append(f"{page.name}: {code.get_text()} links to no reference")
                    continue
                ref, frag = _target(page, a["href"])
                if "reference" not in ref.parts or frag not in _ids(ref):
                    problems.append(f"{page.name}: {a['href']} is no function of the reference")
                followed += 1
            # each SHA-256 is the one of the file the page offers
            for name, digest in re.findall(r"SHA-256 of (\S+): ([0-9a-f]{64})", text):
                name = name.rstrip(":;")
                file = _download(page, soup, name)
                if file is None or not file.is_file():
                    problems.append(f"{page.name}: {name} is not offered for download")
                elif _sha256(file) != digest:
                    problems.append(f"{page.name}: {name}'s SHA-256 is not {digest[:12]}")
                followed += 1
    assert followed > 200, f"only {followed} links and hashes followed"
    assert not problems, "\n".join(problems[:40])


def test_the_reference_documents_every_papers_module_with_its_source():
    import pkgutil

    import rankbook.papers as papers

    ids = set()
    for page in (BOOK / "reference").glob("papers_*.html"):
        ids |= _ids(page)
    modules = [m.name for m in pkgutil.walk_packages(papers.__path__, "rankbook.papers.")]
    missing = [m for m in modules if f"module-{m}" not in ids]
    assert not missing, f"modules without a reference section: {missing}"
    soup = _soup(BOOK / "reference" / "papers_paper_a.html")
    sources = [a["href"] for a in soup.select("a.reference.internal[href*='_modules/']")]
    assert sources, "the reference pages do not link their code"
    for href in sources[:20]:
        path, frag = _target(BOOK / "reference" / "papers_paper_a.html", href)
        assert path.is_file() and (not frag or frag in _ids(path)), href


# --------------------------------------------------------------------------------------------
# Ids, issue numbers, words
# --------------------------------------------------------------------------------------------
def _ledger():
    from rankbook.ledger import claims

    return claims.load_ledger(ROOT)


def _visible_strings(soup):
    """The text nodes a reader reads: no code, maths, scripts, SVG or hidden spans."""
    for node in soup.find_all(string=True):
        parents = [p.name for p in node.parents]
        if any(p in ("script", "style", "code", "pre", "svg", "title", "head") for p in parents):
            continue
        if any("math" in (p.get("class") or []) for p in node.parents if p.name in ("span", "div")):
            continue
        if node.strip():
            yield node


def test_every_claim_and_erratum_id_shown_is_a_link():
    book = _ledger()
    ids = sorted(set(book.claims) | set(book.errata), key=len, reverse=True)
    pattern = re.compile(r"(?<![\w-])(" + "|".join(re.escape(i) for i in ids) + r")(?![\w.-]*\w)")
    pages = [BOOK / "intro.html", *(BOOK / f"{s.chapter}.html" for s in book.sources.values()),
             BOOK / "generated" / "dashboard.html", BOOK / "generated" / "errata.html",
             *notebook_pages()]
    bare, seen = [], 0
    for page in dict.fromkeys(pages):
        main = _soup(page).select_one("main") or _soup(page)
        for node in _visible_strings(main):
            for m in pattern.finditer(str(node)):
                seen += 1
                if node.find_parent("a") is None:
                    bare.append(f"{page.relative_to(SITE)}: {m.group()} in {str(node).strip()[:80]!r}")
    assert seen > 300, f"only {seen} ids found on the pages"
    assert not bare, f"{len(bare)} ids without a link:\n" + "\n".join(bare[:40])


#: Other projects whose issue reports the book cites by number, with a reference.
OTHER_PROJECTS = ("scikit-learn", "sklearn", "trec_eval", "pytrec_eval", "ir_measures",
                  "torchmetrics", "scipy", "papermill", "dlukes/rbo", "repro_eval", "ranx",
                  "rbo", "xerj")


def test_no_issue_number_of_this_project_appears():
    """An issue number on a page is another project's, named in the same sentence (or a link
    to it); this project's issues ("issue 30") mean nothing to a reader."""
    problems = []
    for page in site_pages():
        main = _soup(page).select_one("main") or _soup(page)
        for node in _visible_strings(main):
            text = str(node)
            for m in re.finditer(r"\bissues?\s+#?\d+", text, flags=re.I):
                if node.find_parent("a") is not None:
                    continue
                word = re.findall(r"[\w./-]+", text[:m.start()])
                if word and ("/" in word[-1] or word[-1] in OTHER_PROJECTS):
                    continue  # owner/repo issue N, or a project's own name right before
                block = node.find_parent(["p", "li", "td", "th", "dd", "dt", "figcaption"])
                whole = " ".join((block.get_text(" ") if block else text).split())
                at = whole.find(" ".join(m.group().split()))
                sentence = re.split(r"(?<=[.;:!?])\s", whole[:max(at, 0)])[-1]
                if any(p in sentence for p in OTHER_PROJECTS):
                    continue
                problems.append(f"{page.relative_to(SITE)}: ...{text[max(0, m.start() - 40):m.end() + 10]}...")
    assert not problems, "\n".join(problems[:40])


def test_no_link_shows_raw_tex():
    problems = []
    for name in ("dashboard", "errata"):
        page = BOOK / "generated" / f"{name}.html"
        for a in _soup(page).select("main a"):
            for math in a.select("span.math"):
                math.decompose()
            text = a.get_text()
            if re.search(r"\\[A-Za-z]+|_\{|\^\{", text):
                problems.append(f"{name}: {text.strip()[:80]!r}")
    assert not problems, "\n".join(problems[:30])


#: Plain-text formulas a reader should see as maths.
ASCII_FORMULA = re.compile(r"\bsum_i\b|\blog2\(|\^-1\b|\bz\^T\b|\bnu\^|\bo sigma\b|\bsqrt\(")


def test_no_plain_formula_or_internal_id_where_a_reader_reads():
    """No id that has a reader's name (``lr_minus``, ``cumulative_gain``, ``reads_nu_only``,
    ``sqrt_mad``: :mod:`rankbook.ledger.names`) and no ASCII formula in the text a reader reads
    (code, maths and the library reference aside)."""
    from rankbook.book.site import internal_words
    from rankbook.ledger.names import display

    problems = []
    for page in site_pages():
        rel = page.relative_to(SITE)
        if "reference" in rel.parts or "_modules" in rel.parts:
            continue  # the library reference documents Python names as such
        main = _soup(page).select_one("main") or _soup(page)
        for el in main.select(".cell_input, .rb-prov, .rerun, .rb-provenance, .rankbook-explorer script"):
            el.decompose()
        for node in _visible_strings(main):
            text = str(node)
            words = [w for w in internal_words(text) if display(w) != w]
            if words or ASCII_FORMULA.search(text):
                problems.append(f"{rel}: {text.strip()[:100]!r}")
    assert not problems, f"{len(problems)}:\n" + "\n".join(sorted(set(problems))[:60])


def test_other_readings_count_as_the_verdict_does_and_say_so():
    """In a status cell (verdict boxes, dashboard), the part after "other readings:" counts as
    the main line does and says which: "fails for N of M" or "N of M ... match"."""
    problems, seen = [], 0
    for page in [BOOK / "generated" / "dashboard.html", *notebook_pages()]:
        for td in _soup(page).select("td"):
            for part in re.split(r"<br\s*/?>", str(td)):
                text = " ".join(BeautifulSoup(part, "html.parser").get_text(" ").split())
                if not text.startswith("other readings:"):
                    continue
                for n in re.finditer(r"(\d+) of (\d+)", text):
                    seen += 1
                    before, after = text[:n.start()], text[n.end():].split(";")[0]
                    if not (before.endswith("fails for ") or " match" in after):
                        problems.append(f"{page.name}: {text[:120]!r}")
    assert seen, "no other readings found"
    assert not problems, "\n".join(sorted(set(problems))[:30])


def test_errata_csv_and_page_say_slip_alike():
    rows = list(csv.DictReader((GENERATED / "errata.csv").read_text().splitlines()))
    assert rows and "holds" not in {r["severity"] for r in rows}
    page = (BOOK / "generated" / "errata.html").read_text()
    slips = sum(r["severity"] == "slip" for r in rows)
    assert slips == page.count("rb-severity-holds")
    assert not re.search(r'<h2[^>]*>[^<]*\(\d+\)', page), "a section heading holds a count"


def test_old_anchors_and_counted_section_anchors_lead_to_their_target(site_server, chrome):
    from rankbook.book.site import legacy_anchors

    rows = [r for r in legacy_anchors(ROOT) if r["erratum"]][:6]
    page = site_server + "book/generated/errata.html"
    for row in rows:
        open_page(chrome, page + "#" + row["anchor"])
        time.sleep(0.2)
        new = "erratum-" + row["erratum"].lower().replace(".", "-")
        assert chrome.execute_script("return location.hash") == "#" + new, row
    open_page(chrome, page + "#claims-that-are-false-29")
    time.sleep(0.2)
    assert chrome.execute_script("return location.hash") == "#claims-that-are-false"


def test_the_errata_page_filters(site_server, chrome):
    open_page(chrome, site_server + "book/generated/errata.html")
    total = chrome.execute_script("return document.querySelectorAll('div.rb-erratum').length")
    shown = """return [...document.querySelectorAll('div.rb-erratum')]
               .filter(e => e.offsetParent !== null).map(e => e.className)"""
    chrome.execute_script("""const b = document.querySelector('.rb-errata-filter button[data-severity="false"]');
                             b.click();""")
    classes = chrome.execute_script(shown)
    assert 0 < len(classes) < total and all("rb-severity-false" in c for c in classes)
    chrome.execute_script("""document.querySelector('.rb-errata-filter button[data-severity=""]').click();
        const i = document.querySelector('.rb-errata-filter input');
        i.value = 'A-E1 '; i.dispatchEvent(new Event('input'));""")
    assert chrome.execute_script(shown), "searching an id shows nothing"
    count = chrome.execute_script("return document.querySelector('.rb-filter-count').textContent")
    assert re.match(r"\d+ of \d+ errata shown", count) and count.endswith(f"of {total} errata shown")


def test_the_landing_page_counts_are_on_the_first_screen(site_server, chrome):
    try:
        for width in (1400, 400):
            chrome.set_window_size(width, 900)
            open_page(chrome, site_server + "book/intro.html")
            bottom = chrome.execute_script(
                "const g = document.querySelector('div.rb-glance');"
                "return g ? g.getBoundingClientRect().bottom + window.scrollY : null")
            assert bottom is not None and bottom < 900, (width, bottom)
    finally:
        chrome.set_window_size(1400, 900)
    text = _soup(BOOK / "intro.html").select_one("div.rb-glance").get_text(" ")
    book = _ledger()
    assert f"{len(book.claims)} claims" in " ".join(text.split())


def test_did_it_reproduce_leads_with_what_it_measures_among_the_reproducibility_pages():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    part = next(p for p in toc["parts"] if any(
        s.get("file") == "book/generated/reproducibility_measures"
        for c in p["chapters"] for s in c.get("sections", [])))
    files = [s["file"] for c in part["chapters"] for s in c.get("sections", [])]
    assert "book/generated/breuer_reproducibility" in files, part["caption"]
    soup = _soup(BOOK / "generated" / "reproducibility_measures.html")
    verdict = soup.select_one("div.verdict")
    lead = " ".join(p.get_text(" ") for p in verdict.find_all_previous("p"))
    for word in ("Kendall", "RBO", "RMSE", "effect"):
        assert word in lead, word
    # what the text says of renamed documents is what its table shows
    table = GENERATED / "reproducibility_measures" / "all_measures.csv"
    rows = list(csv.DictReader(line for line in table.read_text().splitlines()
                               if not line.startswith("#")))
    differ = [r["measure"] for r in rows if r["swapped neighbours"] != r["renamed documents"]]
    text = " ".join(soup.get_text(" ").split())
    assert "renaming the documents changes no value" not in text
    assert "changes none of rankbook's values" in text.replace("\u2019", "'")
    assert differ and all("repro_eval" in m for m in differ), differ


# --------------------------------------------------------------------------------------------
# Machine-readable provenance and the citation
# --------------------------------------------------------------------------------------------
def _archive() -> Path:
    found = list((SITE / "_downloads").glob("*/rankbook-source.tar.gz"))
    assert len(found) == 1, found
    return found[0]


def test_the_swhids_are_those_of_the_unpacked_archive(tmp_path):
    with tarfile.open(_archive()) as tar:
        tar.extractall(tmp_path, filter="data")
    (top,) = list(tmp_path.iterdir())

    def git(*args):
        return subprocess.run(["git", "-C", str(top), *args], capture_output=True, text=True,
                              check=True).stdout.strip()

    git("init", "-q")
    git("add", "-A", "-f", ".")
    git("rm", "-q", "--cached", "SOURCE-FILES.txt")
    tree = git("write-tree")
    page = " ".join(_soup(BOOK / "generated" / "source.html").get_text(" ").split())
    assert f"swh:1:dir:{tree}" in page
    cff = yaml.safe_load((SITE / "CITATION.cff").read_text())
    ids = {i["value"] for i in cff.get("identifiers", [])}
    assert f"swh:1:dir:{tree}" in ids
    if cff.get("commit"):
        assert f"swh:1:rev:{cff['commit']}" in ids and f"swh:1:rev:{cff['commit']}" in page


def test_the_site_reads_back_as_an_ro_crate_listing_every_executed_page():
    from rocrate.rocrate import ROCrate

    from rankbook.book.pipeline import executed_pages

    crate = ROCrate(SITE)
    actions = [e for e in crate.get_entities() if "CreateAction" in (
        e.type if isinstance(e.type, list) else [e.type])]
    pages = executed_pages(ROOT)
    assert {a.id for a in actions} == {f"#run-{p['name']}" for p in pages}
    assert len(pages) == len(list((ROOT / "notebooks").glob("*.ipynb")))
    checked = 0
    for action in actions:
        assert action.get("instrument") is not None, action.id
        results = action.get("result") or []
        for f in results if isinstance(results, list) else [results]:
            path = SITE / unquote(f.id)
            assert path.is_file(), f.id
            if f.get("sha256"):
                assert _sha256(path) == f["sha256"], f.id
                checked += 1
    assert checked > 100
    files = {e.id for e in crate.get_entities()}
    assert "requirements.lock" in files and any(i.endswith("rankbook-source.tar.gz") for i in files)
    raw = json.loads((SITE / "ro-crate-metadata.json").read_text())
    root = next(e for e in raw["@graph"] if e["@id"] == "./")
    assert {"@id": "https://w3id.org/ro/wfrun/process/0.5"} in root["conformsTo"]
    assert raw["@context"] == "https://w3id.org/ro/crate/1.2/context"


def test_each_source_has_its_rescience_metadata():
    book = _ledger()
    rows = list(csv.DictReader((GENERATED / "claims.csv").read_text().splitlines()))
    for key, source in book.sources.items():
        doc = yaml.safe_load((SITE / "sources" / key / "metadata.yaml").read_text())
        assert doc["type"] == "Replication" and doc["replication"]["title"] == source.title
        mine = [r for r in rows if r["paper"] == key]
        assert doc["results"]["claims"] == len(mine)
        for status, n in doc["results"]["by status"].items():
            assert n == sum(r["status"] == status for r in mine)


def test_the_citation_of_the_site_validates_and_prints_what_finds_the_work():
    from pybtex.database import parse_file
    from pybtex.plugin import find_plugin

    exe = Path(sys.executable).with_name("cffconvert")
    proc = subprocess.run([str(exe), "--validate", "-i", str(SITE / "CITATION.cff")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    cff = yaml.safe_load((SITE / "CITATION.cff").read_text())
    data = parse_file(str(SITE / "citation.bib"), "bibtex")
    style = find_plugin("pybtex.style.formatting", "plain")()
    text = next(iter(style.format_entries(data.entries.values()))).text.render_as("text")
    assert cff["version"] in text, text
    if cff.get("commit"):
        assert cff["commit"][:12] in text, text
    if cff.get("repository-code"):
        assert cff["repository-code"] in text, text
    else:
        assert "No public address" in text, text
    footer = " ".join(_soup(SITE / "book" / "intro.html").select_one("footer.bd-footer-content")
                      .get_text(" ").split())
    assert f"By {' and '.join(a['name'] for a in cff['authors'])}" in footer, footer
