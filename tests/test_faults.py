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

from projects import scratch_project
from rankbook.book import cli, pipeline

pytestmark = pytest.mark.notebooks

SLOW_SOURCE = '''import time
from rankbook.book import outputs, paths
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
    time.sleep(4)
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
    time.sleep(4)
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
        "pipeline.jupyter_book_command = lambda root: ['sleep', '120']\n"
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

    from rankbook import transpositions

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
