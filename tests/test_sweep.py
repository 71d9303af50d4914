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
    assert list(combined.columns[:1]) == ["delay"] and combined["delay"].tolist() == [0.0, 0.1]
    assert (folder / "points").is_dir() and len(list((folder / "points").iterdir())) == 2
    # a second identical sweep executes nothing
    assert cli.main(["sweep", "nb0", "-p", "delay", "0,0.1", "-p", "fail", "false", "--quiet"]) == 0
    doc = json.loads((folder / sweep.SWEEP_FILE).read_text())
    assert [p["status"] for p in doc["points"]] == ["reused", "reused"]


def test_ranges_lists_and_a_dry_run(project, capsys):
    nb = project / "notebooks" / "nb1.ipynb"
    make_notebook(nb)
    assert cli.main(["sweep", "nb1", "-p", "delay", "0:3", "--dry-run"]) == 2  # delay is a float
    capsys.readouterr()
    assert cli.main(["sweep", "nb1", "-p", "delay", "0,1,2", "-p", "fail", "false,true",
                     "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("6 point(s) of nb1") and "delay=2, fail=true" in out
    assert not (project / "runs").exists()


def test_an_invalid_value_anywhere_exits_2_before_anything_runs(project, capsys):
    assert cli.main(["sweep", "nb0", "-p", "delay", "0,0.1,oops", "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert "point delay=oops" in err and "'oops' is not a float" in err
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
    # the same sweep on a local cluster, from scratch, writes byte-identical combined tables
    shutil.rmtree(folder)
    assert cli.main(args + ["--jobs", "2"]) == 0
    capsys.readouterr()
    assert _tables(folder) == cluster_tables and cluster_tables
    # and a rerun against the cluster executes no point
    assert cli.main(args + ["--scheduler", address]) == 0
    doc = json.loads((folder / sweep.SWEEP_FILE).read_text())
    assert all(p["status"] == "reused" for p in doc["points"])
