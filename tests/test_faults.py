"""Builds that survive Ctrl-C, kills, full disks and each other (issue 16, F1-F10).

Each test reproduces one fault found by a fault-injection pass. The signal tests run the
command line as a subprocess in its own process group, against a small project of quick
notebooks, and send the signal to the whole group, as a terminal's Ctrl-C does.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from projects import record_code, scratch_project
from rankbook.book import cli, pipeline

pytestmark = pytest.mark.notebooks

SLOW_SOURCE = '''import time
from rankbook.book import outputs
from rankbook.ledger import paths
import pandas as pd
marker = (paths.data_dir() / "marker.txt").read_text().strip()
time.sleep(delay)
if fail:
    raise RuntimeError("asked to fail")
outputs.save_table(pd.DataFrame({"marker": [marker]}), "marker", title="Marker")
'''


def make_notebook(path: Path, delay: float = 0.0, extra_cells: int = 0) -> None:
    params = new_code_cell(f"delay = {delay}  # seconds to sleep\nfail = False  # raise on purpose")
    params.metadata["tags"] = ["parameters"]
    cells = [new_markdown_cell(f"# {path.stem}\n\nFor tests."), params]
    cells += [new_code_cell(f"x{i} = {i}") for i in range(extra_cells)]
    cells.append(new_code_cell(SLOW_SOURCE))
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["rankbook"] = {"description": f"{path.stem}", "smoke": {"delay": 0.0}}
    nbformat.write(nb, path)


@pytest.fixture
def project(tmp_path, monkeypatch):
    return scratch_project(tmp_path, monkeypatch, {"marker.txt": "good\n"})


def build(root: Path, **kw) -> pipeline.BuildReport:
    return pipeline.execute_all(root, progress=False, log=lambda *a: None, **kw)


def spawn(root: Path, *args: str) -> subprocess.Popen:
    """The command line in a new process group (its own session), as a shell job runs."""
    env = {**os.environ, "RANKBOOK_ROOT": str(root)}
    return subprocess.Popen([sys.executable, "-m", "rankbook", *args], env=env, cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def stage_folders(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.name.startswith((".stage-", ".old-")))


def pages_with(root: Path, text: str) -> list[str]:
    gen = root / "book" / "generated"
    return sorted(p.parent.name for p in gen.glob("*/marker.csv") if text in p.read_text())


def wait_for(cond, timeout: float, step: float = 0.1) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(step)
    return cond()


def processes_with_env(value: str) -> list[int]:
    """PIDs of live processes whose environment mentions ``value`` (our project's root)."""
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            if value.encode() in (d / "environ").read_bytes():
                state = (d / "stat").read_text().split()[2]
                if state != "Z":
                    pids.append(int(d.name))
        except OSError:
            continue
    return pids


# ------------------------------------------------------------------------------ F1 and F2
def test_f1_interrupted_build_never_publishes_stale_pages_as_fresh(project):
    for i in range(4):
        make_notebook(project / "notebooks" / f"nb{i}.ipynb", delay=2.0)
    assert sorted(build(project, jobs=2).ran) == ["nb0", "nb1", "nb2", "nb3"]
    assert pages_with(project, "good") == ["nb0", "nb1", "nb2", "nb3"]

    (project / "data" / "marker.txt").write_text("MARKER\n")  # the edit
    proc = spawn(project, "build", "--no-book", "--quiet", "--jobs", "2")
    started = time.time()
    assert wait_for(lambda: pages_with(project, "MARKER"), 60), "no notebook finished"
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, (proc.returncode, err)
    assert time.time() - started < 60
    assert "Traceback" not in err
    assert "interrupted by SIGINT" in err and "not finished:" in err
    assert stage_folders(project) == []

    (project / "data" / "marker.txt").write_text("good\n")  # revert the edit
    report = build(project, jobs=2)
    stale = pages_with(project, "MARKER")
    assert stale == [], f"pages made by the reverted edit are still published: {stale}"
    # every notebook whose outputs came from the interrupted build ran again
    assert report.ran, "nothing re-executed after the revert"
    assert pages_with(project, "good") == ["nb0", "nb1", "nb2", "nb3"]


def test_f1_outputs_without_a_matching_key_are_never_reused(project):
    """The race itself: a worker that renames its outputs into place after the build stopped
    tracking it (no manifest update). The next build must not reuse them."""
    make_notebook(project / "notebooks" / "nb0.ipynb")
    assert build(project, jobs=1).ran == ["nb0"]
    gen = project / "book" / "generated"
    spec = pipeline.find("nb0", project)
    (project / "data" / "marker.txt").write_text("MARKER\n")
    other_key = pipeline.cache_key(spec, {}, project)
    pipeline.execute(spec, {}, notebook_out=gen / "nb0.ipynb", outputs_out=gen / "nb0",
                     root=project, key=other_key)  # renamed in, manifest untouched
    (project / "data" / "marker.txt").write_text("good\n")
    report = build(project, jobs=1)
    assert report.ran == ["nb0"] and pages_with(project, "MARKER") == []
    # and a stored key that disagrees with the notebook's own is not trusted either
    key_file = gen / "nb0" / pipeline.KEY_FILE
    key_file.write_text(json.dumps({"notebook": "other"}))
    assert build(project, jobs=1).ran == ["nb0"]


def test_f2_two_interrupts_stop_at_once(project):
    for i in range(3):
        make_notebook(project / "notebooks" / f"nb{i}.ipynb", delay=30.0)
    proc = spawn(project, "build", "--no-book", "--quiet", "--jobs", "2")
    # wait until the kernels run (their staging folders exist), not a fixed time: on a loaded
    # machine Python may still be importing after 4 s, and an interrupt then is not ours to test
    assert wait_for(lambda: len(stage_folders(project)) == 2, 60)
    started = time.time()
    for _ in range(3):  # Ctrl-C, then Ctrl-C again while it cleans up
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(0.1)
    out, err = proc.communicate(timeout=30)
    assert time.time() - started < 15
    assert proc.returncode == 130 and "Traceback" not in err
    assert stage_folders(project) == []
    assert wait_for(lambda: not processes_with_env(str(project)), 15)


def test_sigterm_exits_143_and_cleans_up(project):
    for i in range(2):
        make_notebook(project / "notebooks" / f"nb{i}.ipynb", delay=30.0)
    proc = spawn(project, "build", "--no-book", "--quiet", "--jobs", "2")
    assert wait_for(lambda: len(stage_folders(project)) == 2, 60)
    os.kill(proc.pid, signal.SIGTERM)  # the main process only, as `kill PID` does
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 143 and "interrupted by SIGTERM" in err
    assert "not finished: nb0, nb1" in err
    assert stage_folders(project) == []
    assert wait_for(lambda: not processes_with_env(str(project)), 15)


# ------------------------------------------------------------------------------------- F3
def test_f3_killing_the_main_process_leaves_no_orphans(project):
    for i in range(2):
        make_notebook(project / "notebooks" / f"nb{i}.ipynb", delay=30.0)
    proc = spawn(project, "build", "--no-book", "--quiet", "--jobs", "2")
    gen = project / "book" / "generated"
    # wait until the kernels run (their staging folders exist)
    assert wait_for(lambda: len(list(gen.glob(".stage-*"))) == 2, 60)
    time.sleep(2)
    assert len(processes_with_env(str(project))) >= 3  # main, workers, kernels
    os.kill(proc.pid, signal.SIGKILL)  # what the OOM killer does
    proc.communicate(timeout=30)
    left = []
    assert wait_for(lambda: not (left := processes_with_env(str(project))), 20), left
    # the next build cleans what the killed one left and executes normally
    for i in range(2):
        make_notebook(project / "notebooks" / f"nb{i}.ipynb", delay=0.0)
    assert sorted(build(project, jobs=2).ran) == ["nb0", "nb1"]
    assert stage_folders(project) == []


def test_f3_jupyter_book_dies_with_an_interrupted_build(project, tmp_path):
    script = tmp_path / "site.py"
    script.write_text(
        "import sys\nfrom pathlib import Path\nfrom rankbook.book import pipeline\n"
        "pipeline.jupyter_book_command = lambda *a, **k: ['sleep', '120']\n"
        "try:\n    pipeline.build_site(Path(sys.argv[1]), log=lambda *a: None)\n"
        "except pipeline.Interrupted as exc:\n    sys.exit(exc.exit_status)\n")
    env = {**os.environ, "RANKBOOK_ROOT": str(project)}
    proc = subprocess.Popen([sys.executable, str(script), str(project)], env=env,
                            start_new_session=True)

    def sleeper() -> list[int]:
        return [pid for pid in processes_with_env(str(project)) if pid != proc.pid]

    assert wait_for(lambda: sleeper(), 30)
    os.kill(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=30) == 143
    assert wait_for(lambda: not sleeper(), 15), "jupyter-book outlived the build"


# ------------------------------------------------------------------------------------- F4
def test_f4_stale_staging_folders_are_removed_and_orphaned_backups_restored(project):
    make_notebook(project / "notebooks" / "nb0.ipynb")
    gen = project / "book" / "generated"
    (gen / ".stage-nb0-123-456" / "nb0").mkdir(parents=True)
    (gen / ".old-nb9-123").mkdir()
    (gen / ".old-nb9-123" / "keep.csv").write_text("last good output\n")
    assert build(project, jobs=1).ran == ["nb0"]
    assert stage_folders(project) == []
    assert (gen / "nb9" / "keep.csv").read_text() == "last good output\n"


# ------------------------------------------------------------------------------------- F5
def test_f5_two_builds_at_once_one_waits_or_exits_2(project):
    for i in range(2):
        make_notebook(project / "notebooks" / f"nb{i}.ipynb", delay=3.0)
    first = spawn(project, "build", "--no-book", "--quiet", "--force", "--jobs", "2")
    assert wait_for(lambda: (project / "book" / "generated" / ".lock").exists(), 30)
    time.sleep(1)
    second = spawn(project, "build", "--no-book", "--quiet", "--force")
    out2, err2 = second.communicate(timeout=60)
    out1, err1 = first.communicate(timeout=120)
    assert first.returncode == 0, err1
    assert second.returncode == 2 and f"another build is running (PID {first.pid})" in err2
    assert "Traceback" not in err1 + err2
    waiting = spawn(project, "build", "--no-book", "--quiet", "--force", "--wait")
    assert waiting.wait(timeout=120) == 0
    assert stage_folders(project) == []


def test_f5_the_same_run_twice_at_once(project):
    make_notebook(project / "notebooks" / "nb0.ipynb", delay=4.0)
    first = spawn(project, "run", "nb0", "-p", "delay", "4")
    assert wait_for(lambda: list((project / "runs" / "nb0").glob(".stage-*")), 30)
    second = spawn(project, "run", "nb0", "-p", "delay", "4")
    _, err2 = second.communicate(timeout=60)
    assert first.wait(timeout=120) == 0
    assert second.returncode == 2 and "another run of nb0 with these parameters" in err2


# ------------------------------------------------------------------------------------- F6
@pytest.mark.parametrize("content", ["[]", "null", '{"x": null}', '{"nb0": {"key": 3}}',
                                     "not json", '"text"'])
def test_f6_a_manifest_of_the_wrong_shape_is_reported_and_replaced(project, content):
    make_notebook(project / "notebooks" / "nb0.ipynb")
    gen = project / "book" / "generated"
    gen.mkdir(parents=True)
    (gen / pipeline.MANIFEST_NAME).write_text(content)
    lines = []
    report = pipeline.execute_all(project, jobs=1, progress=False, log=lines.append)
    assert report.ran == ["nb0"]
    assert any(line.startswith("manifest unreadable:") and "re-executing everything" in line
               for line in lines), lines
    assert "nb0" in json.loads((gen / pipeline.MANIFEST_NAME).read_text())
    assert cli.main(["build", "--no-book", "--quiet", "--force"]) == 0


# ------------------------------------------------------------------------------------- F7
def test_f7_the_cell_error_survives_a_failed_copy_and_staging_is_removed(project, capsys):
    make_notebook(project / "notebooks" / "nb0.ipynb")
    gen = project / "book" / "generated"
    gen.mkdir(parents=True)
    (gen / "_failed").write_text("a file where the folder should be")
    assert cli.main(["run", "nb0", "-p", "fail", "true"]) == 1
    assert build(project, jobs=1).failed == []  # fail is False by default
    (gen / "_failed").unlink()
    (gen / "_failed").write_text("again a file")
    nb = nbformat.read(project / "notebooks" / "nb0.ipynb", as_version=4)
    nb.cells[1].source = nb.cells[1].source.replace("fail = False", "fail = True")
    nbformat.write(nb, project / "notebooks" / "nb0.ipynb")
    report = build(project, jobs=1)
    assert report.failed == ["nb0"]
    message = report.messages[0]
    assert "RuntimeError: asked to fail" in message
    assert "the failed copy could not be saved" in message
    assert stage_folders(project) == []


def test_f7_a_full_disk_is_one_clear_line_and_keeps_the_last_good_output(project, monkeypatch,
                                                                          capsys):
    make_notebook(project / "notebooks" / "nb0.ipynb")
    assert cli.main(["run", "nb0"]) == 0
    folder = project / "runs" / "nb0" / "defaults"
    before = (folder / "marker.csv").read_bytes()

    def full(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device", str(dst))

    monkeypatch.setattr(pipeline, "_replace", full)
    capsys.readouterr()
    assert cli.main(["run", "nb0"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err and "cannot write" in err
    assert (folder / "marker.csv").read_bytes() == before
    assert stage_folders(project) == []


# ------------------------------------------------------------------------------------- F8
def test_f8_different_values_never_share_a_run_folder():
    names = {pipeline.slug({"S": v}) for v in ("abcdef?", "abcdef*", "abcdef", "abcdef_")}
    assert len(names) == 4
    assert pipeline.slug({"S": "abcdef"}) == "S-abcdef"  # unchanged values stay readable


def test_f8_provenance_values_are_escaped():
    text = pipeline._provenance_markdown({"S": "a|b`c"}, {"S": "x"}, 0.0, 1.0, "abc")
    row = next(line for line in text.splitlines() if line.startswith("| Parameters"))
    unescaped = row.replace("\\|", "").replace("\\`", "")
    assert unescaped.count("|") == 3 and "`" not in unescaped and "a\\|b\\`c" in row


# ------------------------------------------------------------------------------------- F9
def test_f9_a_runaway_cell_is_stopped_and_named(project, capsys):
    make_notebook(project / "notebooks" / "nb0.ipynb", extra_cells=2)
    assert cli.main(["run", "nb0", "-p", "delay", "60", "--timeout", "3"]) == 1
    err = capsys.readouterr().err
    assert "failed in cell 5" in err and "time limit of 3 s" in err
    assert stage_folders(project) == []


def test_f9_a_huge_table_is_not_shown_in_full(project):
    nb_path = project / "notebooks" / "nb0.ipynb"
    make_notebook(nb_path)
    nb = nbformat.read(nb_path, as_version=4)
    nb.cells.append(new_code_cell(
        "big = pd.DataFrame({'x': range(100000)})\n"
        "outputs.save_table(big, 'big', title='A big table')"))
    nbformat.write(nb, nb_path)
    assert build(project, jobs=1).ran == ["nb0"]
    gen = project / "book" / "generated"
    assert (gen / "nb0.ipynb").stat().st_size < 200_000
    assert len((gen / "nb0" / "big.csv").read_text().splitlines()) == 100001
    assert "Showing the first 40 of 100000 rows" in (gen / "nb0.ipynb").read_text()


def test_f9_the_lemma_check_refuses_sizes_beyond_its_bound_before_running(capsys):
    started = time.time()
    assert cli.main(["run", "kendall_width_swap", "-p", "ns", "800"]) == 2
    assert time.time() - started < 5
    err = capsys.readouterr().err
    assert "800 is above the maximum 400" in err and "C(n,2)^2 comparisons" in err


def test_f9_the_lemma_check_runs_in_bounded_memory():
    import tracemalloc

    from rankbook.papers.paper_a import transpositions

    tracemalloc.start()
    table = transpositions.kendall_transposition_table([120])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rows = 120 * 119 // 2
    assert len(table) == rows and float(table.abs_error.max()) < 1e-12
    # one block of comparisons (two int64 gathers and a bool matrix of CHUNK_ELEMENTS entries)
    # plus the table itself; without blocks the gathers alone take 2 * 8 * rows**2 = 815 MB
    assert peak < 20 * transpositions.CHUNK_ELEMENTS + 200 * rows


# ------------------------------------------------------------------------------------ F10
def test_f10_build_and_run_name_the_same_failing_cell(project, capsys):
    make_notebook(project / "notebooks" / "nb0.ipynb", extra_cells=4)
    nb = nbformat.read(project / "notebooks" / "nb0.ipynb", as_version=4)
    nb.cells[1].source = nb.cells[1].source.replace("fail = False", "fail = True")
    nbformat.write(nb, project / "notebooks" / "nb0.ipynb")
    report = build(project, jobs=1)
    assert "failed in cell 7" in report.messages[0]  # the 7th cell of the source notebook
    assert cli.main(["run", "nb0", "-p", "delay", "0.1"]) == 1
    assert "failed in cell 7" in capsys.readouterr().err


# ===================================================================== issue 24, finding 8
SITE_CONFIG = """title: Fault book
only_build_toc_files: true
execute:
  execute_notebooks: "off"
exclude_patterns: [_build, notebooks, src, data, runs, "book/generated/_failed"]
sphinx:
  config:
    nb_render_markdown_format: myst
"""


def site_project(root: Path, caption: str = "Part one") -> None:
    """Two quick notebooks and a book around them (the marker shows on each page)."""
    for i in range(2):
        make_notebook(root / "notebooks" / f"nb{i}.ipynb")
    (root / "book").mkdir(exist_ok=True)
    (root / "book" / "intro.md").write_text("# Fault book\n\nThe intro.\n")
    (root / "_config.yml").write_text(SITE_CONFIG)
    write_toc(root, caption, ["nb0", "nb1"])


def write_toc(root: Path, caption: str, names: list[str]) -> None:
    lines = ["format: jb-book", "root: book/intro", "parts:", f"  - caption: {caption}",
             "    chapters:"] + [f"      - file: book/generated/{n}" for n in names]
    (root / "_toc.yml").write_text("\n".join(lines) + "\n")


def site_files(root: Path) -> dict[str, bytes]:
    site = root / "_build" / "html"
    return {p.relative_to(site).as_posix(): p.read_bytes()
            for p in sorted(site.rglob("*")) if p.is_file()}


def page(root: Path, name: str) -> str:
    return (root / "_build" / "html" / "book" / "generated" / f"{name}.html").read_text()


def full_build(root: Path) -> pipeline.BuildReport:
    report, index = pipeline.build_book(root, jobs=2, progress=False, log=lambda *a: None)
    assert index is not None and index.is_file(), (report.failed, report.messages)
    return report


@pytest.mark.slow
def test_pages_follow_content_not_file_times_nor_the_clock(project):
    site_project(project)
    full_build(project)
    assert "good" in page(project, "nb0")
    # an edit carrying an old file time: the re-executed page must not stay old
    (project / "data" / "marker.txt").write_text("EDITED\n")
    assert build(project, jobs=2).ran == ["nb0", "nb1"]
    for name in ("nb0", "nb1"):
        old = time.time() - 7200
        os.utime(project / "book" / "generated" / f"{name}.ipynb", (old, old))
    lines = []
    pipeline.build_site(project, log=lines.append)
    assert "EDITED" in page(project, "nb0") and "EDITED" in page(project, "nb1"), lines
    # a build made while the clock was two hours ahead: every page is rebuilt from content
    work = project / pipeline.SITE_WORK / pipeline.SITE_STATE
    state = json.loads(work.read_text())
    work.write_text(json.dumps({**state, "built_at": time.time() + 7200}))
    (project / "data" / "marker.txt").write_text("AGAIN\n")
    build(project, jobs=2)
    lines = []
    pipeline.build_site(project, log=lines.append)
    assert any("the clock is behind" in line for line in lines), lines
    assert "AGAIN" in page(project, "nb0")
    # nothing changed: jupyter-book does not even run
    lines = []
    pipeline.build_site(project, log=lines.append)
    assert lines == ["site: nothing changed since the published build"]


@pytest.mark.slow
def test_a_toc_change_rebuilds_every_page_and_a_deleted_notebook_leaves_the_pages(project):
    site_project(project, caption="Part one")
    full_build(project)
    write_toc(project, "Renamed part", ["nb0", "nb1"])
    pipeline.build_site(project, log=lambda *a: None)
    pages = [p for p in (project / "_build" / "html").rglob("*.html")
             if "genindex" not in p.name and "search" not in p.name]
    stale = [p.name for p in pages if "Part one" in p.read_text()]
    assert not stale, f"pages still show the old caption: {stale}"
    assert all("Renamed part" in p.read_text() for p in pages if p.parent.name == "generated")
    # a branch switch deletes nb1 (and its toc entry): its records leave the generated pages
    nb = nbformat.read(project / "notebooks" / "nb0.ipynb", as_version=4)
    nb.cells.append(new_code_cell(record_code("Artifact of nb0", "A-nb0")))
    nbformat.write(nb, project / "notebooks" / "nb0.ipynb")
    nb1 = nbformat.read(project / "notebooks" / "nb1.ipynb", as_version=4)
    nb1.cells.append(new_code_cell(record_code("Artifact of nb1", "A-nb1")))
    nbformat.write(nb1, project / "notebooks" / "nb1.ipynb")
    build(project, jobs=2)
    from rankbook.book import site

    site.write_generated_pages(project)
    assert "Artifact of nb1" in (project / "book" / "generated" / "dashboard.md").read_text()
    (project / "notebooks" / "nb1.ipynb").unlink()
    write_toc(project, "Renamed part", ["nb0"])
    site.write_generated_pages(project)
    dashboard = (project / "book" / "generated" / "dashboard.md").read_text()
    assert "Artifact of nb0" in dashboard and "Artifact of nb1" not in dashboard


def test_a_lock_file_change_reexecutes(project):
    make_notebook(project / "notebooks" / "nb0.ipynb")
    (project / "requirements.lock").write_text("matplotlib==3.9.0\n")
    assert build(project, jobs=1).ran == ["nb0"]
    assert build(project, jobs=1).ran == []
    (project / "requirements.lock").write_text("matplotlib==3.10.0\n")  # and `make venv` ran
    assert build(project, jobs=1).ran == ["nb0"]


FAKE_JUPYTER_BOOK = '''import sys, time
from pathlib import Path
out = Path(sys.argv[sys.argv.index("--path-output") + 1]) / "_build" / "html"
out.mkdir(parents=True, exist_ok=True)
for i in range(20):  # a slow writer: half a site, then Ctrl-C or a kill arrives
    (out / f"page{i}.html").write_text("NEW")
    (out / "index.html").write_text("NEW")
    time.sleep(1)
'''


def spawn_site(project: Path, tmp_path: Path) -> subprocess.Popen:
    fake = tmp_path / "fake_jb.py"
    fake.write_text(FAKE_JUPYTER_BOOK)
    script = tmp_path / "build.py"
    script.write_text(
        "import sys\nfrom rankbook.book import cli, pipeline\n"
        f"pipeline.jupyter_book_command = lambda root, out=None, fresh=False: "
        f"[sys.executable, {str(fake)!r}, '--path-output', str(out)]\n"
        "sys.exit(cli.main(['build', '--quiet']))\n")
    env = {**os.environ, "RANKBOOK_ROOT": str(project)}
    return subprocess.Popen([sys.executable, str(script)], env=env, cwd=project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


@pytest.mark.parametrize("how", ["ctrl-c", "kill"])
def test_the_site_is_published_whole_or_not_at_all(project, tmp_path, how):
    make_notebook(project / "notebooks" / "nb0.ipynb")
    site = project / "_build" / "html"
    site.mkdir(parents=True)
    (site / "index.html").write_text("OLD")
    (site / "page0.html").write_text("OLD")
    before = site_files(project)
    assert build(project, jobs=1).ran == ["nb0"]
    proc = spawn_site(project, tmp_path)
    work = project / pipeline.SITE_WORK / "_build" / "html"
    assert wait_for(lambda: len(list(work.glob("page*.html"))) >= 3, 60)
    # while jupyter-book runs, the build still holds the lock: a second build cannot start
    second = spawn(project, "build", "--no-book", "--quiet")
    _, err2 = second.communicate(timeout=60)
    assert second.returncode == 2 and "another build is running" in err2
    if how == "ctrl-c":
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and "Traceback" not in err
        assert "the published site (_build/html) is the previous one, unchanged" in err
        assert err.count("\n") == 1, err
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)
    assert site_files(project) == before, "a half-written site was published"
    assert not [p for p in (project / "_build").iterdir() if p.name.startswith(".html-")]
    # the next build knows the last one stopped half-way and rebuilds every page
    assert (project / pipeline.SITE_WORK / pipeline.SITE_DIRTY).exists()


def test_unwritable_folders_are_one_line(project, capsys, monkeypatch):
    make_notebook(project / "notebooks" / "nb0.ipynb")
    (project / "runs").write_text("a file where the runs folder should be")
    assert cli.main(["run", "nb0"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write" in err and "Traceback" not in err
    real_open = os.open

    def read_only(path, flags, *args, **kwargs):
        if str(path).endswith(pipeline.LOCK_NAME) or "generated" in str(path):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    assert cli.main(["build", "--no-book", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Read-only file system" in err and "Traceback" not in err


def test_a_huge_input_is_refused_from_its_size_before_reading(capsys, tmp_path):
    big = tmp_path / "big.csv"
    with big.open("wb") as f:  # 1 GB, sparse: nothing is written or read
        f.truncate(2**30)
    started = time.time()
    assert cli.main(["run", "consensus_example", "-p", "rankings_csv", str(big)]) == 2
    assert time.time() - started < 3
    err = capsys.readouterr().err
    assert "holds 1024 MiB, more than the 64 MiB" in err and "it was not read" in err
