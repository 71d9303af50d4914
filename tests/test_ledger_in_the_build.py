"""The build and `rankbook claims` check the ledger and the records before they use them
(issue 37, item 8): a broken ledger stops the build before any kernel starts; an input edited
while a notebook runs is not stored under the old key; `rankbook claims` shows no status from a
record that was edited by hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
import nbformat

from projects import scratch_project
from rankbook.book import pipeline

pytestmark = pytest.mark.notebooks

LEDGER = """[source]
key = "A"
prefix = "A"
title = "A test source"
short = "A"
chapter = "a"
order = 1

[[claims]]
id = "A-X"
where = "Table X"
kind = "table"
claim = "the marker reads good"
page = "nb0"
section = "The marker"
rule = "the marker equals the printed one (holds)"
check = "rankbook.papers.none:check"
"""


def make_notebook(path: Path, delay: float = 0.0) -> None:
    params = new_code_cell(f"delay = {delay}  # seconds to sleep")
    params.metadata["tags"] = ["parameters"]
    body = new_code_cell(
        "import time\nimport pandas as pd\nfrom rankbook.book import outputs\n"
        "from rankbook.ledger import paths\n"
        "time.sleep(delay)\n"
        "marker = (paths.data_dir() / 'marker.txt').read_text().strip()\n"
        "outputs.save_table(pd.DataFrame({'marker': [marker]}), 'marker', title='Marker')\n")
    nb = new_notebook(cells=[new_markdown_cell(f"# {path.stem}\n\n## The marker"), params, body])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["rankbook"] = {"description": path.stem, "smoke": {"delay": 0.0}}
    nbformat.write(nb, path)


@pytest.fixture
def project(tmp_path, monkeypatch):
    return scratch_project(tmp_path, monkeypatch, {"marker.txt": "good\n"})


def _run(root: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "RANKBOOK_ROOT": str(root)}
    return subprocess.run([sys.executable, "-m", "rankbook", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_a_broken_ledger_stops_the_build_before_any_kernel(project):
    make_notebook(project / "notebooks" / "nb0.ipynb")
    folder = project / "data" / "claims"
    folder.mkdir(parents=True)
    (folder / "A.toml").write_text(LEDGER + '\n[[errata]]\nid = "A-E1"\nclaim = "A-NOPE"\n'
                                   'where = "w"\nkind = "typo"\nseverity = "holds"\nfinding = "f"\n')
    started = time.time()
    out = _run(project, "build", "--no-book")
    assert out.returncode == 2, out.stderr
    assert "A-NOPE" in out.stderr and "Traceback" not in out.stderr
    assert not (project / "book" / "generated" / "nb0").exists(), "a kernel ran"
    assert time.time() - started < 60
    # a byte-order mark is named as such
    (folder / "A.toml").write_bytes("\ufeff".encode() + LEDGER.encode())
    out = _run(project, "build", "--no-book")
    assert out.returncode == 2 and "byte-order mark" in out.stderr, out.stderr


def test_an_input_edited_during_the_run_is_not_stored_under_the_old_key(project):
    make_notebook(project / "notebooks" / "nb0.ipynb", delay=6.0)
    env = {**os.environ, "RANKBOOK_ROOT": str(project)}
    proc = subprocess.Popen([sys.executable, "-m", "rankbook", "build", "--no-book"], cwd=project,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    gen = project / "book" / "generated"
    deadline = time.time() + 120
    while time.time() < deadline and not list(gen.glob(".stage-*")):
        time.sleep(0.1)
    time.sleep(1.0)  # the kernel has read nothing yet: it sleeps first
    (project / "data" / "marker.txt").write_text("edited\n")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "changed while it ran" in out + err
    manifest = json.loads((gen / ".manifest.json").read_text())
    assert "nb0" not in manifest, "the run was stored under the key its inputs had before"
    again = pipeline.execute_all(project, progress=False, log=lambda *a: None)
    assert again.ran == ["nb0"], "the next build executes it again"
    assert "edited" in (gen / "nb0" / "marker.csv").read_text()


def test_claims_shows_no_status_from_an_edited_record(tmp_path):
    """A results.json edited by hand (status changed, counts kept) is not shown: the output
    hashes of its page do not match, and `rankbook claims` says so."""
    from rankbook.book import claims_cmd

    root = Path(__file__).resolve().parents[1]
    gen = root / "book" / "generated"
    pages = [p.parent for p in gen.glob("*/results.json")
             if pipeline.verify_outputs(p.parent, gen / f"{p.parent.name}.ipynb")[0] is not None]
    if not pages:
        pytest.skip("no built page to edit: run `make book` first")
    import shutil

    copy = tmp_path / "proj"
    (copy / "book").mkdir(parents=True)
    shutil.copytree(gen, copy / "book" / "generated")
    shutil.copytree(root / "data", copy / "data")
    page = copy / "book" / "generated" / pages[0].name
    records = json.loads((page / "results.json").read_text())
    before, _, _ = claims_cmd._last_build(copy)
    assert records[0]["id"] in before
    records[0]["status"] = "holds" if records[0]["status"] != "holds" else "false"
    (page / "results.json").write_text(json.dumps(records))
    results, _, distrusted = claims_cmd._last_build(copy)
    assert records[0]["id"] not in results
    assert pages[0].name in distrusted and "changed since it was written" in distrusted[pages[0].name]
