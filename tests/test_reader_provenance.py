"""Provenance a reader can follow, numbers from the build, ids and citations that find their
target (issue 39). Quick checks without a built site; the browser suite checks the site itself
(tests/browser/test_provenance_and_fit.py)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
import yaml

from rankbook.book import citation, lineage, outputs, present, prose, site, source_archive
from rankbook.ledger import claims

ROOT = Path(__file__).resolve().parents[1]
GIT = shutil.which("git")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True,
                          check=True).stdout.strip()


# --- SWHIDs: git's own ids, recomputed ------------------------------------------------------

@pytest.mark.skipif(GIT is None, reason="git is needed to compare with")
def test_tree_ids_are_the_ones_git_writes(tmp_path):
    files = {"a.txt": b"hi\n", "a/b.txt": b"x", "a-b": b"", "a0": b"0", "x/y/z.sh": b"#!/bin/sh\n",
             "x/y.txt": b"y", "\u00e9t\u00e9.md": "été".encode()}
    repo = tmp_path / "repo"
    repo.mkdir()
    for rel, data in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)
    (repo / "x/y/z.sh").chmod(0o755)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A", "-f", ".")
    mode = {rel: 0o755 if rel.endswith(".sh") else 0o644 for rel in files}
    ours = source_archive.tree_id({rel: (data, mode[rel]) for rel, data in files.items()})
    assert ours == _git(repo, "write-tree")


@pytest.mark.skipif(GIT is None, reason="git is needed to compare with")
def test_the_archive_swhids_are_those_of_its_unpacked_files(tmp_path):
    """The directory SWHID the build gives the source archive is git's tree of the unpacked
    files (its manifest aside), computed here by git itself; a clean commit's tree is that
    directory, and its commit the revision SWHID."""
    path, commit = source_archive.write_source_archive(ROOT, tmp_path / "out")
    described = source_archive.read_description(tmp_path / "out")
    assert described.swhid["dir"].startswith("swh:1:dir:")
    unpacked = tmp_path / "unpacked"
    with tarfile.open(path) as tar:
        tar.extractall(unpacked, filter="data")
    (top,) = list(unpacked.iterdir())
    assert top.name == described.folder
    _git(top, "init", "-q")
    _git(top, "add", "-A", "-f", ".")
    _git(top, "rm", "-q", "--cached", source_archive.MANIFEST_NAME)
    assert described.swhid["dir"] == "swh:1:dir:" + _git(top, "write-tree")
    if described.kind == "commit":
        assert described.swhid["rev"] == f"swh:1:rev:{commit}"
        assert _git(ROOT, "rev-parse", f"{commit}^{{tree}}") == described.swhid["dir"][10:]
    else:
        assert "rev" not in described.swhid  # a working tree with changes is no commit


# --- the citation ---------------------------------------------------------------------------

SWHID = {"rev": "swh:1:rev:" + "1" * 40, "dir": "swh:1:dir:" + "2" * 40}


def test_the_bibtex_prints_version_commit_and_address_under_a_standard_style():
    """Formatted by pybtex with its plain style, as a reference list prints it."""
    from pybtex.database import parse_string
    from pybtex.plugin import find_plugin

    cff = citation.citation(ROOT)
    for url in ("https://example.org/owner/rankbook", ""):
        entry = citation.bibtex_entry(cff, url, "0123456789abcdef" * 2 + "01234567", SWHID)
        data = parse_string(entry, "bibtex")
        style = find_plugin("pybtex.style.formatting", "plain")()
        text = next(iter(style.format_entries(data.entries.values()))).text.render_as("text")
        assert cff["version"] in text and "0123456789ab" in text, text
        assert SWHID["rev"] in text and SWHID["dir"] in text, text
        if url:
            assert url in text, text
        else:
            assert "No public address" in text, text


def _cffconvert() -> list[str]:
    exe = Path(sys.executable).with_name("cffconvert")
    return [str(exe)] if exe.exists() else [shutil.which("cffconvert") or "cffconvert"]


@pytest.mark.parametrize("url", ["https://example.org/owner/rankbook", ""])
def test_the_citation_of_a_build_validates_and_carries_its_commit(tmp_path, url):
    text = citation.citation_cff(citation.citation(ROOT), url, "ab" * 20, SWHID,
                                 "https://owner.example.org/rankbook/")
    path = tmp_path / "CITATION.cff"
    path.write_text(text)
    proc = subprocess.run([*_cffconvert(), "--validate", "-i", str(path)], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    cff = yaml.safe_load(text)
    assert cff["commit"] == "ab" * 20 and cff["url"] == "https://owner.example.org/rankbook/"
    assert {i["value"] for i in cff["identifiers"]} == set(SWHID.values())
    if url:
        assert cff["repository-code"] == url
    else:
        assert "repository-code" not in cff and "No public address" in cff["message"]


def test_the_address_comes_from_where_the_build_runs(tmp_path, monkeypatch):
    for key in ("RANKBOOK_REPOSITORY_URL", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(key, raising=False)
    (tmp_path / "_config.yml").write_text("repository:\n  url: ''\n")
    assert citation.repository(tmp_path) == ("", "")  # nothing known: nothing invented
    if GIT:
        _git(tmp_path, "init", "-q")
        _git(tmp_path, "remote", "add", "origin", "git@github.com:owner/rankbook.git")
        assert citation.repository(tmp_path)[0] == "https://github.com/owner/rankbook"
        _git(tmp_path, "remote", "set-url", "origin", "/some/local/clone")
        assert citation.repository(tmp_path) == ("", "")  # a local path is no address
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "o/r")
    assert citation.repository(tmp_path)[0] == "https://github.com/o/r"
    monkeypatch.setenv("RANKBOOK_REPOSITORY_URL", "https://git.example.org/o/r")
    assert citation.repository(tmp_path)[0] == "https://git.example.org/o/r"
    (tmp_path / "_config.yml").write_text("repository:\n  url: https://example.org/set\n")
    assert citation.repository(tmp_path)[0] == "https://example.org/set"  # the setting first


def test_the_footer_names_the_authors_as_the_citation_does():
    conf = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert conf["author"] == " and ".join(citation.author_names(citation.citation(ROOT)))


# --- numbers in the prose ---------------------------------------------------------------------

def test_no_number_of_the_prose_is_typed_by_hand():
    found = [n for page in sorted((ROOT / "book").glob("*.md")) for n in prose.typed_numbers(page)]
    assert not found, "numbers in book/*.md that neither the build fills in ({build} role) nor " \
                      "the reviewed constants explain:\n" + "\n".join(found)


def test_a_typed_result_is_found_and_a_build_number_is_not(tmp_path):
    page = tmp_path / "paper_x.md"
    page.write_text("# X\n\nTable 2 (Section 4.1, 2019) reproduces 143 of {build}`A-T2-rob.total` "
                    "cells; a score of 0 or 1/2, see `n = 30` and $n = 100$.\n")
    found = prose.typed_numbers(page)
    assert len(found) == 1 and "'143'" in found[0], found


def test_every_build_number_the_prose_cites_names_a_claim_or_a_count():
    import re

    book = claims.ledger(ROOT)
    keys = set()
    for page in (ROOT / "book").glob("*.md"):
        for expr in re.findall(r"\{build\}`([^`]*)`", page.read_text()):
            keys.update(k.strip() for k in expr.split("+"))
    assert keys, "the prose cites no number of the build: the test checks nothing"
    rows = [{"id": c.id, "paper": c.source, "status": "holds", "total": 4, "matched": 3}
            for c in book.claims.values()]
    known = prose.build_numbers(rows, [], book)
    assert keys <= set(known), sorted(keys - set(known))


# --- ids, anchors, wording ------------------------------------------------------------------

def test_the_old_erratum_anchors_lead_to_the_errata_they_became():
    rows = site.legacy_anchors(ROOT)
    book = claims.ledger(ROOT)
    assert len(rows) >= 60
    for row in rows:
        assert row["anchor"].startswith("erratum-"), row
        # an erratum that lives on is in the ledger; a withdrawn one names a claim that is
        assert row["erratum"] in book.errata if row["erratum"] else row["claim"] in book.claims, row
    page = site.errata_markdown(
        [{"id": "A-E1", "claim": "A-F1-other", "paper": "A", "where": "w", "kind": "typo",
          "severity": "false", "finding": "f", "evidence": "e", "notebook": "agreement_heatmap"}],
        book=book, legacy=rows)
    old = next(r["anchor"] for r in rows if r["erratum"] == "A-E1")
    assert f'<span id="{old}" class="rb-alias" data-target="erratum-a-e1"></span>' in page
    assert "## Claims that are false\n" in page  # no count in the heading, so no moving anchor
    withdrawn = [r for r in rows if not r["erratum"]]
    assert all(f'<span id="{r["anchor"]}"></span>' in page for r in withdrawn)


@pytest.mark.skipif(GIT is None, reason="git history is needed")
def test_the_old_anchors_are_recomputed_from_the_ledger_they_came_from():
    """The anchors were erratum-<source>-<place>-<hash of the finding's first 60 characters>
    (outputs.erratum_anchor before commit 10a573c); the ledger of that commit kept each
    record's key as ``legacy``."""
    import hashlib
    import re
    import tomllib

    try:
        text = _git(ROOT, "show", "10a573c:data/claims/A.toml")
    except subprocess.CalledProcessError:
        pytest.skip("the history of the ledger is not in this copy")

    def slug(t):
        return re.sub(r"-+", "-", re.sub(r"[^a-z0-9]+", "-", str(t).lower())).strip("-")

    want = {}
    for e in tomllib.loads(text)["errata"]:
        paper, rest = e["legacy"].split(":", 1)
        finding = rest[len(e["where"]) + 1:]
        want[f"erratum-{slug(paper)}-{slug(e['where'])[:60].strip('-')}-"
             f"{hashlib.sha1(finding[:60].encode()).hexdigest()[:6]}"] = e["id"]
    have = {r["anchor"]: r["was"] for r in site.legacy_anchors(ROOT)}
    assert want and all(have.get(a) == i for a, i in want.items())


def test_errata_csv_calls_a_slip_a_slip():
    slip = {"id": "B-E7", "claim": "B-FY", "paper": "B", "where": "Eq. 2", "kind": "typo",
            "severity": "holds", "finding": "f", "evidence": "e", "notebook": "nb_two"}
    import csv

    rows = list(csv.DictReader(site.errata_csv([slip]).splitlines()))
    assert rows[0]["severity"] == "slip"


def test_other_readings_count_the_way_the_verdict_does():
    rec = {"comparison": "claim", "matched": 2, "total": 4, "unit": "statements",
           "status": "false", "failures": ["a", "b"], "alternatives": {"up to sign": 3}}
    assert outputs.count_phrase(rec).startswith("fails for 2 of 4 statements")
    assert outputs.alternatives_phrase(rec) == "up to sign: fails for 1 of 4 statements"
    numbers = {"comparison": "exact", "matched": 28, "total": 33, "unit": "symbols",
               "alternatives": {"uniform": 30}}
    assert outputs.count_phrase(numbers) == "28 of 33 symbols match"
    assert outputs.alternatives_phrase(numbers) == "uniform: 30 of 33 symbols match"


def test_table_cells_read_as_names_and_maths():
    assert outputs.reader_text("cumulative_gain") == "cumulative gain"
    assert outputs.reader_text("prevalence_threshold") != "prevalence_threshold"
    cell = outputs.reader_text("DCG: sum_i pi(i)/log2(i+1) with pi = nu^-1 o sigma")
    assert isinstance(cell, outputs.MarkdownText) and "\\sum_i" in cell and "sum_i pi" not in cell
    assert site.internal_words(outputs.md_escape(cell)) == []


def test_explorer_controls_and_legends_use_names_and_are_never_cut():
    from rankbook.book import explorer

    rows = [{"deviation": d, "row": 1.0, "column": c, "reproduced": c, "published": c,
             "status": "match", "table": t} for d in ("std", "mad") for c in (0.5, 1.0)
            for t in ("R_c + GA", "R_c + CE")]
    spec = explorer.vegalite_spec(rows, kind="line", x="column", y="reproduced", color="table",
                                  controls={"deviation": "std", "row": 1.0}, title="t")
    bind = spec["params"][0]["bind"]
    assert bind["labels"] == ["mean absolute deviation (Eq. 13)", "population standard deviation"]
    assert spec["config"]["legend"]["labelLimit"] == 0 and spec["config"]["axis"]["labelLimit"] == 0
    heat = [{"m1": a, "m2": b, "agreement ratio": 0.5, "n": 20} for a in "ab" for b in "ab"]
    spec = explorer.vegalite_spec(heat, kind="heatmap", x="m2", y="agreement ratio", color="m1",
                                  controls={"n": 20}, title="t")
    assert spec["width"] == {"step": explorer.HEATMAP_STEP}


# --- the lineage of a figure or table, and its provenance line --------------------------------

def test_a_cell_depends_on_the_parameters_and_calls_it_reads_through_its_values():
    cells = [nbformat.v4.new_code_cell(s) for s in (
        "n = 5\nk = 2\nseed = 0\nunused = 1",
        "from rankbook import metrics, permutations\nfrom rankbook.ledger import claims\n"
        "from rankbook.book import outputs",
        "def show(x):\n    outputs.save_table(metrics.evaluate_many([[1, 2]], [[2, 1]]), 'y', title='y')",
        "perm = permutations.random_permutations(n, 3, seed=seed)",
        "if k > 1:\n    table = metrics.evaluate(perm[0], perm[1], k=k)\nother = 3",
        "outputs.save_table(table, 't', title='t')",
        "show(other)",
        "ev = claims.check('A-T2-rob')",
    )]
    found = lineage.notebook_lineage(cells, ["n", "k", "seed", "unused"], claims.ledger(ROOT))
    assert found[5].parameters == ["n", "k", "seed"]
    assert found[5].calls == ["rankbook.metrics.evaluate", "rankbook.permutations.random_permutations"]
    assert found[6].parameters == [] and found[6].calls == ["rankbook.metrics.evaluate_many"]
    check = claims.ledger(ROOT).claim("A-T2-rob").check.replace(":", ".")
    assert found[7].calls == [check]  # the check the ledger names for the claim
    direct, through = lineage.library_calls([check])
    assert direct == [check] and through, "the check's own calls into the measures"
    assert all(not p.startswith(("rankbook.book.", "rankbook.ledger.")) for p in direct + through)


def test_every_module_of_the_papers_has_a_reference_page():
    import pkgutil

    import rankbook.papers as papers

    modules = lineage.reference_modules(ROOT)
    missing = [m.name for m in pkgutil.walk_packages(papers.__path__, "rankbook.papers.")
               if m.name not in modules]
    assert not missing, f"modules of rankbook.papers without a reference page: {missing}"
    toc = (ROOT / "_toc.yml").read_text()
    for package in site.paper_packages():
        page = f"book/reference/papers_{package.rpartition('.')[2]}"
        assert page in toc, f"{page} is not in _toc.yml"
    conf = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert "sphinx.ext.viewcode" in conf["sphinx"]["extra_extensions"]


def test_every_figure_and_table_of_a_page_gets_its_provenance_line(tmp_path):
    """present() puts a line under each figure, table and explorer: the cell (its execution
    count), the commit, the parameters it depends on, the library functions it calls and the
    SHA-256 of each file."""
    (tmp_path / "t.csv").write_text("a\n1\n")
    (tmp_path / "f.png").write_bytes(b"png")
    (tmp_path / "f.svg").write_bytes(b"svg")
    figure = nbformat.v4.new_output("display_data", data={"image/png": "", "text/plain": "f"},
                                    metadata={outputs.FIGURE_KEY: {
                                        "name": "f", "caption": "c", "alt": "a",
                                        "files": {"png": "f.png", "svg": "f.svg"}}})
    table = nbformat.v4.new_output("display_data", data={"text/markdown": "| a |"},
                                   metadata={outputs.OUTPUT_KEY: {"kind": "table", "name": "t",
                                                                  "files": {"csv": "t.csv"}}})
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Page\n\nFraming."),
        nbformat.v4.new_code_cell("n = 4", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("from rankbook import metrics\nx = metrics.evaluate([1, 2], [2, 1])"),
        nbformat.v4.new_code_cell("show(x, n)", execution_count=7, outputs=[figure, table]),
    ])
    spec = SimpleNamespace(path=str(ROOT / "notebooks" / "page.ipynb"), parameters={},
                           defaults=lambda: {"n": 3})
    present.present(nb, params={"n": 4}, folder=tmp_path, commit="abc123", spec=spec, root=ROOT)
    line_cells = [c for c in nb.cells if present.PROVENANCE_LINE_TAG in c.metadata.get("tags", [])]
    table_lines = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
                   if o.get("metadata", {}).get("rankbook_provenance_line")]
    assert len(line_cells) == 1 and len(table_lines) == 1
    fig_line, table_line = line_cells[0].source, table_lines[0]["data"]["text/markdown"]
    import hashlib

    for text, files in ((fig_line, ("f.png", "f.svg")), (table_line, ("t.csv",))):
        assert 'href="#cell-7">cell [7]</a>' in text and "{download}`page.ipynb <page.ipynb>`" in text
        assert "<code>abc123</code>" in text and "<code>n \\= 4</code> (changed from the default)" in text
        assert "{py:obj}`metrics.evaluate <rankbook.metrics.evaluate>`" in text
        for name in files:
            digest = hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()
            assert f"<code>{outputs.escape_markdown(name)}</code>: <code>{digest}</code>" in text
