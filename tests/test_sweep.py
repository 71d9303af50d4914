"""``rankbook sweep`` (issue 15): a grid of runs on a local Dask cluster or on a real one started
here (``dask scheduler`` plus ``dask worker`` processes), resumable, fault tolerant, and with
combined tables that do not depend on where the points ran."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from rankbook.book import cli, pipeline, sweep
from projects import scratch_project
from test_faults import make_notebook, processes_with_env, wait_for

pytestmark = pytest.mark.notebooks
BIN = Path(sys.executable).parent


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = scratch_project(tmp_path, monkeypatch, {"marker.txt": "good\n"})
    make_notebook(root / "notebooks" / "nb0.ipynb")
    return root


def _tables(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "combined").glob("*.csv"))}


@pytest.fixture
def cluster(tmp_path, project):
    """A real Dask cluster on localhost: one scheduler and two single-worker processes."""
    env = {**os.environ, "RANKBOOK_ROOT": str(project)}
    sched_file = tmp_path / "scheduler.json"
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--scheduler-file", str(sched_file),
                               "--port", "0", "--dashboard-address", ":0"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)]
    assert wait_for(sched_file.exists, 30)
    for _ in range(2):
        procs.append(subprocess.Popen([str(BIN / "dask"), "worker", "--scheduler-file",
                                       str(sched_file), "--nthreads", "1", "--no-dashboard"],
                                      env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, start_new_session=True))
    from distributed import Client

    address = json.loads(sched_file.read_text())["address"]
    with Client(address, timeout="30s") as client:
        client.wait_for_workers(2, timeout=60)
    yield address, procs
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait(timeout=30)


def test_a_local_sweep_of_four_points_and_its_combined_tables(project, capsys):
    status = cli.main(["sweep", "nb0", "-p", "delay", "0,0.1", "-p", "fail", "false",
                       "--jobs", "2", "--quiet"])
    assert status == 0, capsys.readouterr().err
    folder = Path(capsys.readouterr().out.strip().splitlines()[-1])
    doc = json.loads((folder / sweep.SWEEP_FILE).read_text())
    assert [p["status"] for p in doc["points"]] == ["ran", "ran"]
    combined = pd.read_csv(folder / "combined" / "marker.csv")
    assert list(combined.columns[:3]) == ["delay", "fail", "point_status"]
    assert combined["delay"].tolist() == [0.0, 0.1]
    points = folder.parent / "points"  # shared by every grid of the notebook
    assert points.is_dir() and len(list(points.iterdir())) == 2
    # a second identical sweep executes nothing
    assert cli.main(["sweep", "nb0", "-p", "delay", "0,0.1", "-p", "fail", "false", "--quiet"]) == 0
    doc = json.loads((folder / sweep.SWEEP_FILE).read_text())
    assert [p["status"] for p in doc["points"]] == ["reused", "reused"]


def test_ranges_lists_and_a_dry_run(project, capsys):
    nb = project / "notebooks" / "nb1.ipynb"
    make_notebook(nb)
    assert cli.main(["sweep", "nb1", "-p", "delay", "0:3", "--dry-run"]) == 2  # delay is a float
    assert "ranges count whole numbers, and 'delay' is a float" in capsys.readouterr().err
    assert cli.main(["sweep", "nb1", "-p", "delay", "0,1,2", "-p", "fail", "false,true",
                     "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("6 point(s) of nb1") and "delay=2, fail=true" in out
    assert not (project / "runs").exists()


def test_an_invalid_value_anywhere_exits_2_before_anything_runs(project, capsys):
    assert cli.main(["sweep", "nb0", "-p", "delay", "0,0.1,oops", "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert "point delay=oops" in err and "'oops' is not a number" in err
    assert not (project / "runs").exists()
    assert cli.main(["sweep", "nb0", "-p", "delay", "0", "-p", "delay", "1"]) == 2
    assert cli.main(["sweep", "nb0", "-p", "delay", "0", "--jobs", "2",
                     "--scheduler", "tcp://x:1"]) == 2


def test_a_failing_point_is_reported_and_the_others_complete(project, capsys):
    status = cli.main(["sweep", "nb0", "-p", "fail", "false,true", "--jobs", "2", "--quiet"])
    captured = capsys.readouterr()
    assert status == 1
    assert "point fail=True failed in cell" in captured.err and "asked to fail" in captured.err
    folder = Path(captured.out.strip().splitlines()[-1])
    doc = json.loads((folder / sweep.SWEEP_FILE).read_text())
    assert sorted(p["status"] for p in doc["points"]) == ["failed", "ran"]


@pytest.mark.slow
def test_a_real_cluster_gives_the_same_tables_and_survives_a_dead_worker(project, cluster, capsys):
    address, procs = cluster
    args = ["sweep", "nb0", "-p", "delay", "1,1.5,2,2.5,3,3.5", "--quiet"]
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault(
        "status", cli.main(args + ["--scheduler", address])))
    thread.start()
    # once points are running, kill one worker (its whole process group, as a lost machine)
    assert wait_for(lambda: len([p for p in processes_with_env(str(project))]) >= 5, 60)
    time.sleep(2)
    os.killpg(procs[1].pid, signal.SIGKILL)
    thread.join(timeout=300)
    assert result.get("status") == 0, capsys.readouterr().err
    folder = Path(capsys.readouterr().out.strip().splitlines()[-1])
    doc = json.loads((folder / sweep.SWEEP_FILE).read_text())
    assert all(p["status"] == "ran" for p in doc["points"])
    cluster_tables = _tables(folder)
    # the same sweep on a local cluster, from scratch (points included), writes byte-identical
    # combined tables
    shutil.rmtree(folder.parent)
    assert cli.main(args + ["--jobs", "2"]) == 0
    capsys.readouterr()
    assert _tables(folder) == cluster_tables and cluster_tables
    # and a rerun against the cluster executes no point
    assert cli.main(args + ["--scheduler", address]) == 0
    doc = json.loads((folder / sweep.SWEEP_FILE).read_text())
    assert all(p["status"] == "reused" for p in doc["points"])


# ------------------------------------------------------------------ issue 24, finding 5
def _statuses(folder: Path) -> list[str]:
    return [p["status"] for p in json.loads((folder / sweep.SWEEP_FILE).read_text())["points"]]


def _run(capsys, *argv) -> tuple[int, str, str]:
    status = cli.main(["sweep", *argv, "--quiet"])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_points_are_reused_across_grids_and_repeats_run_once(project, capsys):
    status, out, _ = _run(capsys, "nb0", "-p", "delay", "0,0.1", "--jobs", "2")
    assert status == 0
    # one more value: only the new point runs; a value given twice runs once, with a note
    status, out, _ = _run(capsys, "nb0", "-p", "delay", "0,0.1,0.2,0.10,0.1", "--jobs", "2")
    assert status == 0, out
    assert "note: delay: dropped 2 repeated value(s) (0.10, 0.1); each point runs once" in out
    folder = Path(out.strip().splitlines()[-1])
    assert _statuses(folder) == ["reused", "reused", "ran"]
    combined = pd.read_csv(folder / "combined" / "marker.csv")
    assert combined["delay"].tolist() == [0.0, 0.1, 0.2]


def test_big_grids_need_yes_and_huge_ranges_are_refused_unbuilt(project, capsys, monkeypatch):
    values = ",".join(str(i / 1000) for i in range(1001))
    status, _, err = _run(capsys, "nb0", "-p", "delay", values)
    assert status == 2 and "1,001 points, more than 1,000" in err and "--yes" in err
    assert "Traceback" not in err and not (project / "runs").exists()
    status, out, _ = _run(capsys, "nb0", "-p", "delay", values, "--dry-run")
    assert status == 0 and out.startswith("1001 point(s)") and "... and 801 more" in out
    import nbformat

    nb = nbformat.read(project / "notebooks" / "nb0.ipynb", as_version=4)
    nb.cells[1].source += "\nn = 1  # an int"
    nbformat.write(nb, project / "notebooks" / "nb0.ipynb")
    started = time.time()
    for grid_value in ("0:100000000", "0:1000,0:100000"):
        status, _, err = _run(capsys, "nb0", "-p", "n", grid_value, "--yes")
        assert status == 2 and "at most 100,000 points" in err and "Traceback" not in err
    assert time.time() - started < 5


def test_combined_tables_keep_headers_and_mark_failed_points(project, capsys):
    nb_path = project / "notebooks" / "nb0.ipynb"
    import nbformat
    from nbformat.v4 import new_code_cell

    nb = nbformat.read(nb_path, as_version=4)
    nb.cells.insert(2, new_code_cell(
        "import pandas as pd\nfrom rankbook.book import outputs\n"
        "outputs.save_table(pd.DataFrame({'v': [1, 2]}, index=['a', 'b']), 'indexed', "
        "title='An indexed table', index=True)"))
    nbformat.write(nb, nb_path)
    status, out, err = _run(capsys, "nb0", "-p", "fail", "false,true", "--jobs", "2")
    assert status == 1 and "point fail=True failed" in err
    folder = Path(out.strip().splitlines()[-1])
    header = (folder / "combined" / "indexed.csv").read_text().splitlines()[0]
    assert header == "fail,point_status,,v" and "Unnamed" not in header
    marker = pd.read_csv(folder / "combined" / "marker.csv", keep_default_na=False)
    assert marker[["fail", "point_status"]].values.tolist() == [[False, "ok"], [True, "failed"]]
    assert marker["marker"].tolist() == ["good", ""]
    assert "1 failed point(s) marked point_status = failed" in out


def test_ctrl_c_on_a_sweep_is_one_line_and_leaves_no_temporary_folders(project, tmp_path):
    make_notebook(project / "notebooks" / "nb1.ipynb", delay=30.0)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "RANKBOOK_ROOT": str(project), "TMPDIR": str(tmp)}
    proc = subprocess.Popen([sys.executable, "-m", "rankbook", "sweep", "nb1", "-p", "fail",
                             "false,true", "--jobs", "2", "--quiet"], env=env, cwd=project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    assert wait_for(lambda: len(list(tmp.glob("rankbook-sweep-*"))) == 2, 90), "no point started"
    time.sleep(2)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in a terminal reaches the whole group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "interrupted by SIGINT" in lines[0], err
    assert wait_for(lambda: not list(tmp.glob("rankbook-sweep-*")), 20), list(tmp.iterdir())
    assert not [p for p in (project / "runs").rglob("*") if p.name.startswith((".stage-", ".old-"))]
    assert wait_for(lambda: not processes_with_env(str(tmp)), 20)


def test_a_scheduler_that_never_answers_ends_the_sweep_in_one_line(project, capsys, monkeypatch):
    import socket

    monkeypatch.setattr(sweep, "CLUSTER_TIMEOUT", 3.0)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)  # accepts connections, never answers
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    try:
        started = time.time()
        status, _, err = _run(capsys, "nb0", "-p", "delay", "0", "--scheduler", address)
    finally:
        server.close()
    assert status == 1 and time.time() - started < 20
    assert f"the Dask scheduler at {address} did not answer within 3 s" in err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.slow
def test_losing_every_worker_ends_the_sweep_within_the_stated_time(project, cluster, capsys,
                                                                   monkeypatch):
    monkeypatch.setattr(sweep, "CLUSTER_TIMEOUT", 5.0)
    address, procs = cluster
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("status", cli.main(
        ["sweep", "nb0", "-p", "delay", "20,21,22", "--scheduler", address, "--quiet"])))
    thread.start()
    # wait until the scheduler has given the sweep's points to the workers (counting processes
    # is fragile: the workers, their nannies and helpers exist before any point starts)
    from distributed import Client

    with Client(address, timeout="30s") as watcher:
        assert wait_for(lambda: sum(map(len, watcher.processing().values())) >= 2, 60)
    time.sleep(1)
    for p in procs[1:]:  # every worker, as when the machines running them go away
        os.killpg(p.pid, signal.SIGKILL)
    killed = time.time()
    thread.join(timeout=120)
    assert not thread.is_alive(), "the sweep hung after losing every worker"
    assert time.time() - killed < 60
    err = capsys.readouterr().err
    assert result["status"] == 1 and "has no worker left for 5 s" in err, err


def test_an_explorer_csv_holds_only_the_grid_and_the_tables_own_columns(project, tmp_path,
                                                                        monkeypatch):
    """The combined tables lead with every swept parameter and the point status; an explorer
    that melts a table must not melt the fixed parameters into its values (the browser test
    found Figure 1's explorer plotting 'n_pairs' and 'compare_protocols' as metrics)."""
    from rankbook.book import explorer
    from rankbook.ledger import paths

    monkeypatch.setenv(paths.OUTPUT_ENV, str(tmp_path / "out"))
    monkeypatch.setattr(explorer, "display", lambda *a, **k: None, raising=False)
    explorer.show("nb0", "marker", grid={"delay": [0.0, 0.01]}, fixed={"fail": False},
                  name="marker_explorer", melt={"id": ["delay"], "var": "what", "value": "v"},
                  kind="bar", x="what", y="v", title="Marker", what="For tests.", root=project)
    table = pd.read_csv(tmp_path / "out" / "marker_explorer.csv")
    assert list(table.columns) == ["delay", "what", "v"]
    assert table["what"].tolist() == ["marker", "marker"] and table["v"].tolist() == ["good"] * 2


def test_an_explorer_caption_gives_its_sweep_as_a_command_with_no_ids_in_the_prose(
        project, tmp_path, monkeypatch):
    """Issue 28: the IR tour's caption read "with n_pairs_sim = 200, n_seeds = 1", ids in
    prose; the fixed values are now parameters of the command that recomputes the grid."""
    import IPython.display

    from rankbook.book import explorer
    from rankbook.ledger import paths
    from rankbook.book.site import internal_words

    shown = []
    monkeypatch.setenv(paths.OUTPUT_ENV, str(tmp_path / "out"))
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj.data))
    explorer.show("nb0", "marker", grid={"delay": [0.0, 0.01]}, fixed={"fail": False},
                  name="marker_explorer", melt={"id": ["delay"], "var": "what", "value": "v"},
                  kind="bar", x="what", y="v", title="Marker", what="For tests.", root=project)
    caption = next(t for t in shown if "**Explore.**" in t).split("**Explore.**", 1)[1]
    assert "`rankbook sweep nb0 -p delay 0.0,0.01 -p fail false`" in caption
    assert internal_words(caption.split("{download}")[0]) == []
