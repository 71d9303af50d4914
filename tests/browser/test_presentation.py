"""Site-wide presentation found by a first-time reader (reader report, 2026-11-26).

- No table cell shows maths as literal ``$...$`` text (item 2).
- The landing page says what "reading", "other readings" and "borderline" mean before the
  status list uses them (item 5).
- On a phone the dashboard's stacked rows keep their Published, Reproduced and Why labels, as
  the verdict boxes do (item 6); at 1400 px no verdict or rerun box reaches past the text
  column (item 20).
- The landing page and the chapters lead with the false, not reproduced and imprecise claims,
  fold the rest, and link each claim to its dashboard row (item 7).
- The errata summary counts slips under a column that says so, not "holds" (item 8).
- Every source is introduced on the landing page, and each paper has one title in the sidebar,
  the landing page and its chapter (item 9).
- A moved figure's pointer gives its whole caption and links the figure (item 12).
- No "value(s)"-style plurals, no repository paths in prose, no plain-text subscripts
  (``κ_p``) in the generated verdicts, summaries, dashboard and errata (item 20).
"""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from conftest import SITE, open_page, site_pages

pytestmark = pytest.mark.browser

BOOK = SITE / "book"
GENERATED = BOOK / "generated"


def _soup(path):
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make book` first")
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _visible_text(node) -> str:
    """The text a reader sees, without maths (typeset), code and scripts."""
    node = BeautifulSoup(str(node), "html.parser")
    for el in node.select(".math, code, pre, script, style, .cell_input, mjx-container"):
        el.decompose()
    return node.get_text(" ")


def test_no_table_cell_shows_literal_maths():
    bad = []
    for page in site_pages():
        for td in _soup(page).select("td, th"):
            text = _visible_text(td)
            if re.search(r"\$[^$\s][^$]*\\[A-Za-z]+[^$]*\$|\$[A-Za-z]_\{?\w\}?\$", text):
                bad.append(f"{page.relative_to(SITE)}: {text.strip()[:80]}")
    assert not bad, "maths shown as text in a table cell:\n" + "\n".join(bad[:20])


def test_the_landing_page_defines_its_words_before_the_status_list():
    soup = _soup(BOOK / "intro.html")
    headings = [h.get_text(" ").replace("#", "").strip() for h in soup.select("h2")]
    assert headings.index("How to read it") < headings.index("Reproduction status"), headings
    text = soup.select_one("section#how-to-read-it").get_text(" ")
    for word in ("reading", "other readings", "borderline"):
        assert re.search(rf"\b{word}\s*:", text), f"'{word}' is not defined under How to read it"
    status = soup.select_one("section#reproduction-status").get_text(" ")
    assert "borderline" in status or "reading:" in status, "the status list no longer uses the words"


def test_summaries_fold_what_holds_and_link_every_claim_to_the_dashboard():
    dashboard = _soup(GENERATED / "dashboard.html")
    anchors = {el["id"] for el in dashboard.select("[id]")}
    for page in ("intro", "paper_a", "paper_b", "scoring"):
        soup = _soup(BOOK / f"{page}.html")
        links = [a for a in soup.select('a[href*="dashboard.html#claim-"]')]
        assert links, f"{page}: no claim links to its dashboard row"
        missing = [a["href"] for a in links if a["href"].split("#")[1] not in anchors]
        assert not missing, f"{page}: links to no dashboard row: {missing[:5]}"
        # the claims that hold are folded; the false ones are not
        folds = soup.select("details")
        assert any("hold" in d.select_one("summary").get_text() for d in folds), \
            f"{page}: the claims that hold are not in a fold"
        for badge in soup.select(".sd-bg-danger"):
            assert badge.find_parent("details") is None, f"{page}: a false claim is folded"


def test_the_errata_summary_never_counts_slips_under_holds():
    table = _soup(GENERATED / "errata.html").select_one("table.errata-summary")
    headers = [th.get_text(" ").strip() for th in table.select("th")]
    assert "holds" not in headers, headers
    page = (GENERATED / "errata.html").read_text(encoding="utf-8")
    if "Slips that do not change the verdict" in page:
        assert "slip (no verdict change)" in headers, headers


def _title(soup) -> str:
    return soup.select_one("h1").get_text(" ").replace("#", "").strip()


def test_every_source_is_introduced_and_each_paper_has_one_title():
    intro = _soup(BOOK / "intro.html")
    sources = " ".join(intro.select_one("section#the-sources").get_text(" ").split())
    # the tools' source (its title from data/claims/tools.toml's [source] table)
    assert "issue reports and documentation of the ir evaluation tools" in sources.lower()
    captions = [c.get_text(" ").strip() for c in intro.select(".bd-sidebar-primary p.caption")]
    for chapter in ("paper_a", "paper_b"):
        title = _title(_soup(BOOK / f"{chapter}.html"))
        assert title in captions, (title, captions)
        # the landing page and the chapter use the same title (the chapter's, without "Paper X: ")
        assert title.split(": ", 1)[1] in sources, (title, sources[:300])
    scoring = " ".join(_soup(BOOK / "scoring.html").get_text(" ").split())
    assert "issue reports and documentation of the IR evaluation tools" in scoring


def test_a_moved_figure_points_to_it_with_its_whole_caption():
    pointers = 0
    for page in GENERATED.glob("*.html"):
        soup = _soup(page)
        ids = {el.get("id") for el in soup.select("figure[id]")}
        for p in soup.find_all(string=re.compile("is shown")):
            if "The figure of this section" not in p:
                continue
            pointers += 1
            para = p.find_parent("p")
            link = para.select_one('a[href^="#fig-"]')
            assert link is not None and link["href"][1:] in ids, f"{page.name}: {para.get_text()[:100]}"
            assert not re.search(r"\w:\)", para.get_text()), f"{page.name}: a caption cut at a colon"
    assert pointers, "no page moved its lead figure: the test checks nothing"


def test_no_awkward_plurals_repository_paths_or_plain_subscripts():
    problems = []
    for page in site_pages():
        if "reference" in page.relative_to(SITE).parts:  # the API docs quote docstrings
            continue
        text = _visible_text(_soup(page).select_one("main") or _soup(page))
        for m in re.finditer(r"\b\w+\(s\)", text):
            problems.append(f"{page.relative_to(SITE)}: {m.group()}")
        for m in re.finditer(r"\(data/[\w/]*\)|\bdata/published/\w+/", text):
            problems.append(f"{page.relative_to(SITE)}: {m.group()}")
    generated = [GENERATED / "dashboard.html", GENERATED / "errata.html", BOOK / "intro.html",
                 BOOK / "paper_a.html", BOOK / "paper_b.html", BOOK / "scoring.html"]
    for page in generated:
        text = _visible_text(_soup(page).select_one("main"))
        for m in re.finditer(r"(?<![\w\\])[A-Za-zα-ωΑ-Ω]_(?:[0-9]+|[A-Za-zα-ω])(?!\w)", text):
            problems.append(f"{page.relative_to(SITE)}: plain subscript {m.group()}")
    assert not problems, "\n".join(sorted(set(problems))[:30])


MEASURE_LABELS = """
const rows = [...document.querySelectorAll('#reproducibility-dashboard tbody tr')].slice(0, 5);
return rows.map(tr => [...tr.querySelectorAll('td')].map(
  td => [td.textContent.trim().length > 0, getComputedStyle(td, '::before').content]));
"""

BOX_OVERFLOW = """
const out = [];
for (const box of document.querySelectorAll('div.admonition.verdict, div.admonition.rerun')) {
  const col = box.closest('section').getBoundingClientRect().right;
  const right = Math.max(box.getBoundingClientRect().right,
    ...[...box.querySelectorAll('table')].map(t => t.getBoundingClientRect().right));
  if (right > col + 2) out.push([box.className, Math.round(right - col)]);
}
return out;
"""


def test_dashboard_rows_keep_their_labels_on_a_phone(site_server, chrome):
    chrome.set_window_size(400, 900)
    try:
        open_page(chrome, site_server + "book/generated/dashboard.html")
        rows = chrome.execute_script(MEASURE_LABELS)
    finally:
        chrome.set_window_size(1400, 900)
    assert rows, "no dashboard rows"
    for cells in rows:
        labels = [content for _, content in cells]
        assert labels[1] == '"Published: "' and labels[2] == '"Reproduced: "', labels
        if cells[4][0]:
            assert labels[4] == '"Why: "', labels


@pytest.mark.parametrize("page", ["consensus_theorems", "consensus_search_engines"])
def test_boxes_stay_in_the_text_column(site_server, chrome, page):
    chrome.set_window_size(1400, 900)
    open_page(chrome, site_server + f"book/generated/{page}.html")
    assert chrome.execute_script(BOX_OVERFLOW) == []
