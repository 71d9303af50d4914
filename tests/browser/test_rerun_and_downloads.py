"""What a reader can do with a page (issue 20): rerun it, download it, cite it.

- Every notebook page has a rerun box (class ``rerun``) with the page's parameters, and its
  example command runs: each is executed, as printed, in a scratch copy of the project and must
  exit 0.
- Every table a page shows (``save_table``, ``save_comparison_grid``), the dashboard and the
  errata have a CSV download right after them, and every figure links its SVG and PNG in its
  caption; every download exists in the built site.
- Every verdict row, dashboard row and erratum has a stable anchor derived from its content.
- No button points at a repository: the repository URL in ``_config.yml`` is empty.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from bs4 import BeautifulSoup

from conftest import ROOT, SITE

pytestmark = pytest.mark.browser

GENERATED = ROOT / "book" / "generated"


def notebook_pages() -> list[Path]:
    names = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    pages = [SITE / "book" / "generated" / f"{n}.html" for n in names]
    missing = [p.name for p in pages if not p.exists()]
    if missing:
        pytest.fail(f"notebook pages not built: {missing}; run `make book` first")
    return pages


def _soup(page: Path) -> BeautifulSoup:
    return BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")


def _commands(page: Path) -> list[str]:
    box = _soup(page).select_one("div.rerun")
    if box is None:
        return []
    return [pre.get_text().strip() for pre in box.select("pre")
            if "rankbook run" in pre.get_text()]


def test_every_notebook_page_has_a_rerun_box_with_its_parameters():
    problems = []
    for page in notebook_pages():
        soup = _soup(page)
        box = soup.select_one("div.rerun")
        if box is None:
            problems.append(f"{page.name}: no rerun box")
            continue
        text = " ".join(box.get_text(" ").split())
        cmds = _commands(page)
        if len(cmds) != 1:
            problems.append(f"{page.name}: {len(cmds)} example commands (want one)")
        elif f"rankbook run {page.stem} -p " not in cmds[0]:
            problems.append(f"{page.name}: the example changes no parameter: {cmds[0]}")
        source = (ROOT / "notebooks" / f"{page.stem}.ipynb").read_text()
        from rankbook.book.specs import read_spec

        spec = read_spec(ROOT / "notebooks" / f"{page.stem}.ipynb")
        for name, p in spec.parameters.items():
            if name not in text:
                problems.append(f"{page.name}: parameter {name} missing from the rerun box")
            for rel in ("lt", "le"):
                if p.constraint.get(rel) and f"{name} must be" not in text:
                    problems.append(f"{page.name}: the constraint {name} {rel} "
                                    f"{p.constraint[rel]} is not shown")
        assert source
    assert not problems, "\n".join(problems)


def _scratch(tmp: Path) -> Path:
    """A copy of the project a command can run in: its notebooks, data and configuration, the
    same installed environment (``.venv`` linked), and a fresh ``runs/``."""
    root = tmp / "project"
    root.mkdir()
    for name in ("notebooks", "data", "examples", "benchmarks"):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, root / name,
                            ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    for name in ("_config.yml", "CITATION.cff", "pyproject.toml"):
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, root / name)
    (root / "src").symlink_to(ROOT / "src")
    (root / ".venv").symlink_to(ROOT / ".venv")
    return root


def test_every_rerun_example_command_runs(tmp_path):
    root = _scratch(tmp_path)
    jobs = []
    for page in notebook_pages():
        for cmd in _commands(page):
            jobs.append((page.stem, cmd))
    assert jobs, "no rerun command found"

    def run(job):
        name, cmd = job
        env = {**os.environ, "RANKBOOK_ROOT": str(root)}
        proc = subprocess.run(shlex.split(cmd), cwd=root, env=env, capture_output=True,
                              text=True, timeout=900)
        return name, cmd, proc

    failures = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        for name, cmd, proc in pool.map(run, jobs):
            if proc.returncode != 0:
                failures.append(f"{name}: `{cmd}` exited {proc.returncode}: {proc.stderr[-600:]}")
            elif not (root / "runs" / name).is_dir():
                failures.append(f"{name}: `{cmd}` wrote nothing under runs/{name}")
    assert not failures, "\n".join(failures)


def _download_targets(node, page: Path) -> list[Path]:
    out = []
    for a in node.select("a.download, a[download]"):
        href = unquote(urlparse(a["href"]).path)
        out.append((page.parent / href).resolve())
    return out


#: Tables that are part of the page's furniture, not data a reader downloads.
FURNITURE = ".verdict, .rerun, .admonition.note, .errata-summary, .rankbook-explorer, .sd-card"


def _block(table):
    """The output block a table sits in: its cell output, or its own top-level element."""
    node = table
    while node.parent is not None and node.parent.name not in ("section", "main", "article"):
        node = node.parent
        if "cell_output" in (node.get("class") or []):
            return node
    return node


def test_every_table_grid_and_figure_has_its_downloads():
    problems = []
    pages = notebook_pages() + [SITE / "book" / "generated" / "dashboard.html",
                                SITE / "book" / "generated" / "errata.html"]
    for page in pages:
        soup = _soup(page)
        main = soup.select_one("main") or soup
        for table in main.select("table"):
            if table.find_parent(class_=re.compile(r"verdict|rerun|note|errata-summary|"
                                                   r"rankbook-explorer")) or \
                    "errata-summary" in (table.get("class") or []):
                continue
            if table.find_parent("table"):
                continue
            block = _block(table)
            links = [t for t in _download_targets(block, page) if t.suffix == ".csv"]
            if not links and page.stem not in ("dashboard", "errata"):
                caption = table.find("caption")
                problems.append(f"{page.name}: table "
                                f"{(caption.get_text(' ', strip=True) if caption else '')[:60]!r} "
                                "has no CSV download next to it")
            for target in links:
                if not target.is_file():
                    problems.append(f"{page.name}: download {target.name} is missing from the site")
        for figure in main.select("figure"):
            if not figure.select("img"):
                continue
            kinds = {t.suffix for t in _download_targets(figure, page) if t.is_file()}
            if not {".svg", ".png"} <= kinds:
                problems.append(f"{page.name}: figure {figure.get('id', '')} downloads {sorted(kinds)}, "
                                "want .svg and .png")
    for page, csv_name in (("dashboard", "claims.csv"), ("errata", "errata.csv")):
        soup = _soup(SITE / "book" / "generated" / f"{page}.html")
        targets = [t for t in _download_targets(soup, SITE / "book" / "generated" / "x.html")
                   if t.name == csv_name and t.is_file()]
        if not targets:
            problems.append(f"{page}.html: no {csv_name} download")
    assert not problems, "\n".join(problems)


def test_verdict_rows_dashboard_rows_and_errata_have_stable_anchors():
    """Every verdict row (on its page and on the dashboard) and every erratum has an id derived
    from its content, and a visible link to it that a reader can copy."""
    import json

    from rankbook.book.outputs import erratum_anchor, record_anchor
    from rankbook.book.site import merge_errata

    dash = _soup(SITE / "book" / "generated" / "dashboard.html")
    ids = {t["id"] for t in dash.find_all(id=True)}
    problems = []
    for path in GENERATED.glob("*/results.json"):
        page = _soup(SITE / "book" / "generated" / f"{path.parent.name}.html")
        verdict = page.select_one(".verdict")
        for rec in json.loads(path.read_text()):
            anchor = record_anchor(rec)
            if anchor not in ids or not dash.select(f'a.rb-anchor[href="#{anchor}"]'):
                problems.append(f"dashboard: no anchor or link for {anchor}")
            if verdict is None or not verdict.find(id=anchor) \
                    or not verdict.select(f'a.rb-anchor[href="#{anchor}"]'):
                problems.append(f"{path.parent.name}: verdict row without anchor {anchor}")
    errata = _soup(SITE / "book" / "generated" / "errata.html")
    eids = {t["id"] for t in errata.find_all(id=True)}
    records = []
    for path in GENERATED.glob("*/errata.json"):
        records += [{**e, "notebook": path.parent.name} for e in json.loads(path.read_text())]
    for e in merge_errata(records):
        anchor = erratum_anchor(e)
        if anchor not in eids or not errata.select(f'a.rb-anchor[href="#{anchor}"]'):
            problems.append(f"errata: no anchor or link for {anchor}")
    assert not problems, "\n".join(problems[:30])


def test_no_button_points_at_a_repository_that_is_not_set():
    from rankbook.book.site import repository_url

    url = repository_url(ROOT)
    for page in (SITE / "book" / "generated" / "agreement_heatmap.html", SITE / "book" / "intro.html"):
        soup = _soup(page)
        links = [a.get("href", "") for a in soup.select(".article-header-buttons a, .header-article-items a")]
        remote = [h for h in links if h.startswith("http")]
        if not url:
            assert not remote, f"{page.name}: buttons point at {remote} but no repository is set"
        else:
            assert all(url.split("//")[1].split("/")[0] in h or "mybinder" in h for h in remote)


def test_the_landing_page_says_how_to_cite_and_the_footer_names_the_licences():
    soup = _soup(SITE / "book" / "intro.html")
    section = soup.find(id="how-to-cite")
    assert section is not None, "the landing page has no 'How to cite' section"
    text = section.get_text("")
    # a @misc entry: standard styles print its note (version, commit, SWHIDs, address)
    assert "@misc{rankbook" in text and "CITATION.cff" in text
    footer = soup.get_text(" ")
    assert "MIT" in footer and "CC BY 4.0" in footer
