"""A new source is data: ``rankbook new-source`` scaffolds one (ledger, data, code, notebook,
chapter, table of contents, bibliography), and the scratch source builds into a site whose
dashboard and verdict show its claim, without a change to ``rankbook.book`` or to the measures
(issue 36, "Done when")."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rankbook.ledger import claims

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.notebooks


def _tracked(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    return [f for f in out.stdout.decode().split("\0") if f]


def _digests(root: Path, folders: tuple[str, ...]) -> dict[str, str]:
    """Content hashes of the machinery and the measures: ``rankbook.book`` and every module of
    the measures layer (``src/rankbook/*.py``)."""
    out = {}
    for p in sorted((root / "src" / "rankbook").rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        if rel.startswith(folders) or p.parent == root / "src" / "rankbook":
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _run(root: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "RANKBOOK_ROOT": str(root), "PYTHONPATH": str(root / "src")}
    return subprocess.run([sys.executable, "-m", "rankbook", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def copy(tmp_path):
    """The project as committed, in a folder of its own."""
    dest = tmp_path / "proj"
    for rel in _tracked(ROOT):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def _only(root: Path, key: str) -> None:
    """Keep one source in the copy: its ledger, notebooks and chapter, a landing page and the
    generated pages, so that the build of the scratch source takes a minute, not the book's."""
    book = claims.load_ledger(root)
    for other in book.sources:
        if other != key:
            (root / "data" / "claims" / f"{other}.toml").unlink()
    for nb in (root / "notebooks").glob("*.ipynb"):
        if not nb.stem.startswith(key):
            nb.unlink()
    (root / "book" / "intro.md").write_text(
        "# A scratch book\n\n```{include} generated/summary.md\n```\n")
    (root / "book" / "rerun.md").write_text(
        "# Rerun it yourself\n\n```{include} generated/parameters.md\n```\n\n(sweeps)=\n## Sweeps\n\n"
        "`rankbook sweep` runs a grid of parameters.\n")
    (root / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nparts:\n"
        f"  - caption: Scratch\n    chapters:\n      - file: book/{key}\n        sections:\n"
        f"          - file: book/generated/{key}_table_1\n"
        f"          - file: book/generated/{key}_other\n"
        "  - caption: Reproducibility\n    chapters:\n      - file: book/generated/dashboard\n"
        "      - file: book/generated/errata\n      - file: book/rerun\n"
        "      - file: book/references\n")


def test_a_scaffolded_source_builds_without_touching_the_machinery_or_the_measures(copy):
    before = _digests(copy, ("src/rankbook/book/",))
    made = _run(copy, "new-source", "scratch", "--title", "A scratch paper", "--prefix", "SC",
                "--short", "Scratch", "--author", "A. Author", "--year", "2026")
    assert made.returncode == 0, made.stderr
    created = made.stdout.split()
    assert "data/claims/scratch.toml" in created and "notebooks/scratch_table_1.ipynb" in created
    assert _digests(copy, ("src/rankbook/book/",)) == before, "the machinery or the measures changed"
    book = claims.load_ledger(copy)
    assert book.sources["scratch"].prefix == "SC" and "SC-T1" in book.claims
    assert "scratch" in book.chapters()
    # the scaffold refuses to overwrite, and refuses a taken prefix, with exit status 2
    again = _run(copy, "new-source", "scratch", "--title", "t", "--prefix", "SD")
    assert again.returncode == 2 and "exists already" in again.stderr
    taken = _run(copy, "new-source", "other", "--title", "t", "--prefix", "A")
    assert taken.returncode == 2 and "taken by source 'A'" in taken.stderr
    _only(copy, "scratch")
    _other_page(copy, "scratch")
    built = _run(copy, "build", timeout=900)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    html = copy / "_build" / "html"
    dashboard = (html / "book" / "generated" / "dashboard.html").read_text()
    assert "SC-T1" in dashboard and 'data-status="holds"' in dashboard
    page = (html / "book" / "generated" / "scratch_table_1.html").read_text()
    assert "Verdict" in page and "holds" in page
    shown = _run(copy, "claims", "SC-T1")
    assert shown.returncode == 0 and "holds" in shown.stdout, shown.stderr
    # a second build executes nothing and re-renders nothing (the explorers' bundle, written
    # by the first, no longer counts as a changed source)
    second = _run(copy, "build", timeout=900)
    assert second.returncode == 0 and "ran " not in second.stdout, second.stderr[-2000:]
    assert "site: nothing changed since the published build" in second.stdout, second.stdout
    # rewording the claim re-renders its page and executes nothing
    ledger = copy / "data" / "claims" / "scratch.toml"
    text = ledger.read_text()
    ledger.write_text(text.replace("the mean score of each system over the topics",
                                   "each system's mean score, reworded"))
    again = _run(copy, "build", timeout=900)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "ran " not in again.stdout and "re-rendered the verdicts of 1 page" in again.stdout
    page = (html / "book" / "generated" / "scratch_table_1.html").read_text()
    assert "reworded" in page
    # changing a number of its rule executes the page that checks it, and only that one
    ledger.write_text(ledger.read_text().replace("params = { decimals = 2 }", "params = { decimals = 1 }"))
    third = _run(copy, "build", timeout=900)
    # one decimal turns two means into another rounding: the status moves, and the build says
    # that no erratum explains it
    assert third.returncode == 2 and "SC-T1: status 'imprecise'" in third.stderr, third.stderr[-3000:]
    assert "execute scratch_table_1" in third.stdout and "execute scratch_other" not in third.stdout
    assert "reused scratch_other" in third.stdout


def _other_page(root: Path, key: str) -> None:
    """A second page of the source that checks no claim."""
    import json

    nb = json.loads((root / "notebooks" / f"{key}_table_1.ipynb").read_text())
    nb["cells"] = [c for c in nb["cells"] if c["id"] not in ("table-1", "table-1-text")]
    nb["cells"][0]["source"] = ["# Another page\n", "\n", "Nothing checked here."]
    nb["cells"].append({"cell_type": "code", "id": "plain", "metadata": {}, "execution_count": None,
                        "outputs": [], "source": ["import pandas as pd\n",
                                                  "outputs.save_table(pd.DataFrame({'x': [decimals]}), 'plain', title='A plain table')\n"]})
    (root / "notebooks" / f"{key}_other.ipynb").write_text(json.dumps(nb, indent=1))


def test_the_scaffolded_check_can_fail(copy):
    made = _run(copy, "new-source", "scratch", "--title", "A scratch paper", "--prefix", "SC")
    assert made.returncode == 0, made.stderr
    sys.path.insert(0, str(copy / "src"))
    try:
        import importlib

        import rankbook.papers

        rankbook.papers.__path__.append(str(copy / "src" / "rankbook" / "papers"))
        importlib.invalidate_caches()
        claim = claims.load_ledger(copy).claim("SC-T1")
        assert claims.run_check(claim).status == "holds"
        for what, variant, kwargs, expect in claims.mutants(claim):
            assert claims.run_check(variant, kwargs).status == expect, what
    finally:
        sys.path.remove(str(copy / "src"))
        rankbook.papers.__path__.remove(str(copy / "src" / "rankbook" / "papers"))
