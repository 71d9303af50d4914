"""User text is data, never markup (issue 24, finding 2).

A rankings CSV whose labels are HTML, Markdown, MyST roles, maths, table pipes and quotes runs
through the real ``consensus_example`` notebook (``rankbook run``'s execution path) and then
through jupyter-book, with the book's own configuration, Sphinx extension and generated pages.
The built HTML must hold no element and no attribute made from the labels, and every label must
read back exactly, typographic quotes and dashes included. The executed notebook's own Markdown
outputs (what Jupyter shows for a ``rankbook run``) are checked the same way with markdown-it.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import numpy as np
import pytest

from rankbook.book import outputs, pipeline
from rankbook.ledger import claims, paths

pytestmark = pytest.mark.notebooks

ROOT = Path(__file__).resolve().parents[1]

LABELS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    '"hi"',
    "$x$",
    "`tick`",
    "[link](javascript:alert(3))",
    "it's a--b...",
    "&lt;&amp;",
    "**b** _i_",
    r"\(\href-javascript:alert(4)-x\)",
]
# braces: a rankings file reads them as tie groups, so they reach the pages through the ranking
# names and the records instead
NAMES = ["r|1 <b>bold</b>", 'r2 "q" {cite}`x`', "r3 $y$ {{ sub }}", "r4 | :::{note} x"]
BRACES = ["{cite}`x`", "{{ sub }} :::{note}", r"\(\href{javascript:alert(4)}{x}\)"]


def hostile_csv(folder: Path) -> Path:
    rows = [LABELS, LABELS[1:] + LABELS[:1], LABELS[::-1], LABELS[2:] + LABELS[:2]]
    path = folder / "hostile.csv"
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["name"] + [str(i) for i in range(1, len(LABELS) + 1)])
        for name, row in zip(NAMES, rows):
            writer.writerow([name] + row)
    return path


#: Script elements the theme puts in every page (their bodies are checked for labels below).
INERT_SCRIPTS = ("text/x-thebe-config", "application/json")


class Page(HTMLParser):
    """Elements, attributes and the text of every table cell, caption and paragraph."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.cells: list[str] = []
        self.texts: list[str] = []
        self._stack: list[list[str]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("td", "th", "p", "figcaption", "li", "caption"):
            self._stack.append([tag])

    def handle_endtag(self, tag):
        if self._stack and self._stack[-1][0] == tag:
            text = "".join(self._stack.pop()[1:]).strip()
            (self.cells if tag in ("td", "th") else self.texts).append(text)
            if self._stack:
                self._stack[-1].append(text)

    def handle_data(self, data):
        if self._stack:
            self._stack[-1].append(data)


def article(html: str) -> str:
    start = html.index('<article class="bd-article">')
    return html[start:html.index("</article>", start)]


def assert_no_live_markup(page: Page, where: str) -> None:
    for tag, attrs in page.tags:
        assert tag not in ("b", "iframe", "object", "embed"), (where, tag, attrs)
        assert tag != "script" or attrs.get("type") in INERT_SCRIPTS or not attrs, (where, attrs)
        assert not (tag == "img" and attrs.get("src") == "x"), (where, attrs)
        for name, value in attrs.items():
            assert not name.lower().startswith("on"), (where, tag, name, value)
            if name in ("href", "src", "action", "formaction", "data", "xlink:href"):
                assert "javascript:" not in (value or "").lower(), (where, tag, name, value)



def assert_no_label_scripts(html: str, where: str) -> None:
    for body in re.findall(r"<script[^>]*>(.*?)</script>", html, flags=re.S):
        assert "alert(" not in body, (where, body[:200])


def assert_no_label_maths(html: str, where: str) -> None:
    """The page's own maths is fine; maths made from a label (``$x$``, ``$y$``, ``\\href``) is not."""
    for math in re.findall(r'<span class="math[^"]*">(.*?)</span>', html, flags=re.S):
        assert math.strip() not in (r"\(x\)", r"\(y\)") and "href" not in math, (where, math)


@pytest.fixture(scope="module")
def hostile_book(tmp_path_factory):
    """The consensus_example notebook run on the hostile CSV, then built into a small book
    with the project's configuration, extension and generated pages."""
    tmp = tmp_path_factory.mktemp("hostile")
    book = tmp / "book_root"
    for rel in ("_config.yml", "book/_ext", "book/_static", "book/references.bib",
                "book/references.md", "notebooks/consensus_example.ipynb",
                # its source too, or the build removes the stub page below as an orphan
                "notebooks/consensus_theorems.ipynb"):
        src, dst = ROOT / rel, book / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copyfile)(src, dst)
    (book / "book" / "intro.md").write_text("# Hostile labels\n\nA page of prose.\n")
    (book / "book" / "paper_b.md").write_text("# Paper B\n\nThe chapter the notebook links to.\n")
    (book / "book" / "rerun.md").write_text("# Rerun\n\n## Sweeps\n\nThe page the rerun box "
                                            "links to.\n")
    (book / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nchapters:\n  - file: book/paper_b\n  - file: book/rerun\n"
        "  - file: book/generated/consensus_example\n"
        "  - file: book/generated/consensus_theorems\n"
        "  - file: book/generated/dashboard\n  - file: book/generated/errata\n"
        "  - file: book/references\n")
    gen = book / "book" / "generated"
    gen.mkdir(parents=True, exist_ok=True)
    # the page the consensus example links to, as a stub (this test book holds one notebook)
    stub = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
        "# Theorems\n\nThe page the example links to.")])
    nbformat.write(stub, gen / "consensus_theorems.ipynb")
    spec = pipeline.read_spec(book / "notebooks" / "consensus_example.ipynb")
    pipeline.execute(spec, {"rankings_csv": str(hostile_csv(tmp))},
                     notebook_out=gen / "consensus_example.ipynb",
                     outputs_out=gen / "consensus_example", root=ROOT)
    # records and errata that carry user text, escaped where the notebook composes them
    os.environ[paths.OUTPUT_ENV] = str(gen / "consensus_example")
    # this test book keeps no claims ledger: its records are its claims (a project of one's own)
    os.environ[paths.ROOT_ENV] = str(book)
    try:
        for i, label in enumerate(LABELS[:6] + BRACES):
            own = claims.Claim(id=f"B-L{i}", source="B", where=f"Ranking {outputs.escape_markdown(label)}",
                               kind="table", claim=f"the label {outputs.escape_markdown(label)} and $\\kappa$")
            claims.report(claims.Evidence(
                claim=own.id, published=outputs.escape_markdown(label), reproduced="1",
                comparison="exact", matched=1, total=1, unit="values",
                detail=f"detail {outputs.escape_markdown(label)}"), adhoc=own)
        own = claims.Claim(id="B-L0", source="B", where=f"Ranking {outputs.escape_markdown(LABELS[0])}",
                           kind="table", claim=f"the label {outputs.escape_markdown(LABELS[0])} and $\\kappa$")
        slip = claims.Erratum(id="B-E1", claim="B-L0", where=f"label {outputs.escape_markdown(LABELS[0])}",
                              kind="typo", severity="holds",
                              finding=f"finding {outputs.escape_markdown(LABELS[1])}")
        claims.report(claims.Evidence(
            claim=own.id, published=outputs.escape_markdown(LABELS[0]), reproduced="1",
            comparison="exact", matched=1, total=1, unit="values",
            detail=f"detail {outputs.escape_markdown(LABELS[0])}",
            findings=[claims.Finding(id="B-E1", evidence=f"evidence {outputs.escape_markdown(LABELS[6])}\n"
                                                         f"more {outputs.escape_markdown(LABELS[2])}")]),
            adhoc=own, adhoc_errata=(slip,))
    finally:
        os.environ.pop(paths.OUTPUT_ENV, None)
        os.environ.pop(paths.ROOT_ENV, None)
    pipeline.build_site(book, log=lambda *a: None)
    return book


def test_the_executed_notebook_shows_labels_as_text_in_jupyter(hostile_book):
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    nb = json.loads((hostile_book / "book" / "generated" / "consensus_example.ipynb").read_text())
    shown = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "text/markdown" in data:
                text = "".join(data["text/markdown"])
                page = Page()
                page.feed(md.render(text))
                assert_no_live_markup(page, "markdown output")
                shown += page.cells + page.texts
            if "text/html" in data:
                page = Page()
                page.feed("".join(data["text/html"]))
                assert_no_live_markup(page, "html output")
                shown += page.cells + page.texts
    for label in LABELS:  # each label is one header cell of the matrix and position tables
        assert label in shown, label
    for name in NAMES:
        assert name in shown, name


@pytest.mark.parametrize("page_name", ["consensus_example", "dashboard", "errata"])
def test_the_built_book_holds_no_live_markup_from_labels(hostile_book, page_name):
    html = (hostile_book / "_build" / "html" / "book" / "generated" / f"{page_name}.html").read_text()
    page = Page()
    page.feed(article(html))
    assert_no_live_markup(page, page_name)
    assert_no_label_maths(article(html), page_name)
    assert_no_label_scripts(html, page_name)
    everything = " ".join(page.cells + page.texts)
    if page_name == "consensus_example":
        for label in LABELS:  # read back exactly: no smart quotes, dashes or ellipses either
            assert label in page.cells, label
        for name in NAMES:
            assert name in page.cells, name
        assert f"in the order of ranking {NAMES[0]}, filled" in everything  # the caption
        assert "“" not in everything and "’" not in everything
    elif page_name == "dashboard":
        for label in LABELS[:6] + BRACES:
            assert f"the label {label} and" in everything, label
            assert label in page.cells and f"detail {label}" in page.cells, label
    else:
        assert f"finding {LABELS[1]}" in everything
        assert f"evidence {LABELS[6]}" in everything and f"more {LABELS[2]}" in everything


def test_prose_keeps_its_typographic_quotes(hostile_book):
    """Only code-written text loses smart quotes: the authors' prose keeps them."""
    (hostile_book / "book" / "intro.md").write_text('# Hostile labels\n\nProse says "quoted".\n')
    pipeline.build_site(hostile_book, log=lambda *a: None)
    html = (hostile_book / "_build" / "html" / "book" / "intro.html").read_text()
    assert "“quoted”" in article(html)


@pytest.mark.parametrize("gap", [None, float("nan"), np.nan])
def test_a_missing_label_is_refused_by_pairwise_and_rbo_as_by_consensus(gap):
    """None was a label in pairwise and a nan matched only itself in rbo (a new user's
    finding); consensus refused both already."""
    from rankbook import consensus, rbo
    from rankbook.pairwise import pairwise

    with pytest.raises(ValueError, match="ranking 0 holds a missing label .* at position 2"):
        pairwise([["a", gap], ["b", "a"]], "kendall_tau")
    with pytest.raises(ValueError, match=r"S\[1\] is a missing label"):
        rbo.rbo(["a", gap], ["a", "b"], 0.9)
    with pytest.raises(ValueError, match="missing label"):
        consensus.kappa([["a", gap], ["b", "a"]])
