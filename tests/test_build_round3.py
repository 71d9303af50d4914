"""The build, run and sweep machinery, round 3 of fault injection (issue 30).

Each test reproduces one finding of the issue against a small scratch project
(:mod:`projects`), never the real notebooks: the cache key covers the code a parameter names
(finding 1), outputs are checked before they are reused (5, 6, 7), sweep folders carry the
contents of their input files (8), undecodable file names are refused before any kernel (9),
orphan pages leave the site (12b), the environment hash ignores build by-products (15),
signals are handled from the first line of ``main`` (16) and the machinery's errors are one
line (17).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from projects import scratch_project, record_code
from rankbook.book import cli, pipeline, specs, sweep
from test_faults import make_notebook, stage_folders

pytestmark = pytest.mark.notebooks

CODE_SOURCE = '''import importlib
import pandas as pd
from rankbook.book import outputs
module, func = metric.split(":")
value = getattr(importlib.import_module(module), func)()
outputs.save_table(pd.DataFrame({"value": [value]}), "value", title="Value")
'''


def code_notebook(path: Path, default: str = "mymod:m") -> None:
    """A notebook whose ``metric`` parameter names a user's ``module:function``."""
    params = new_code_cell(f"metric = {default!r}  # module:function")
    params.metadata["tags"] = ["parameters"]
    nb = new_notebook(cells=[new_markdown_cell(f"# {path.stem}\n\nFor tests."), params,
                             new_code_cell(CODE_SOURCE)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["rankbook"] = {"description": path.stem}
    nbformat.write(nb, path)


def file_notebook(path: Path) -> None:
    """A notebook whose ``table`` parameter names a CSV (no declared constraint)."""
    params = new_code_cell("table = 'r.csv'  # a CSV file")
    params.metadata["tags"] = ["parameters"]
    nb = new_notebook(cells=[new_markdown_cell(f"# {path.stem}\n\nFor tests."), params,
                             new_code_cell("print(open(table).read())")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["rankbook"] = {"description": path.stem}
    nbformat.write(nb, path)


@pytest.fixture
def project(tmp_path, monkeypatch):
    return scratch_project(tmp_path, monkeypatch, {"marker.txt": "good\n"})


def write_module(folder: Path, value: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mymod.py").write_text(f"def m():\n    return {value}\n")


# ----------------------------------------------------------------------------------- finding 1
def test_the_key_covers_a_module_function_and_what_pythonpath_resolves_it_to(project, tmp_path,
                                                                             monkeypatch):
    code_notebook(project / "notebooks" / "nb.ipynb")
    spec = pipeline.find("nb", project)
    one, two = tmp_path / "one", tmp_path / "two"
    write_module(one, 1)
    write_module(two, 2)
    monkeypatch.syspath_prepend(str(one))
    first = pipeline.cache_key(spec, {"metric": "mymod:m"}, project)
    folder = specs.run_slug(spec, {"metric": "mymod:m"}, project)
    assert pipeline.cache_key(spec, {"metric": "mymod:m"}, project) == first
    write_module(one, 3)  # the user edits m
    edited = pipeline.cache_key(spec, {"metric": "mymod:m"}, project)
    assert edited["files"] != first["files"]
    # the run folder follows the code too, so two versions never share one
    assert specs.run_slug(spec, {"metric": "mymod:m"}, project) != folder
    monkeypatch.syspath_prepend(str(two))  # PYTHONPATH now finds another mymod first
    assert pipeline.cache_key(spec, {"metric": "mymod:m"}, project)["files"] != edited["files"]


def test_a_package_module_is_keyed_by_every_file_of_its_package(project, tmp_path, monkeypatch):
    code_notebook(project / "notebooks" / "nb.ipynb", default="pkg.metrics:m")
    spec = pipeline.find("nb", project)
    pkg = tmp_path / "lib" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "metrics.py").write_text("from .helper import W\ndef m():\n    return W\n")
    (pkg / "helper.py").write_text("W = 1\n")
    monkeypatch.syspath_prepend(str(pkg.parent))
    before = pipeline.cache_key(spec, {}, project)
    (pkg / "helper.py").write_text("W = 2\n")  # only the helper beside the module changes
    assert pipeline.cache_key(spec, {}, project)["files"] != before["files"]
    # installed packages and the standard library are the environment's part, not hashed again
    assert specs.module_paths("json:dumps") == [] and specs.module_paths("numpy:mean") == []


@pytest.mark.slow
def test_a_sweep_reruns_its_points_when_the_named_module_changes(project, tmp_path, monkeypatch,
                                                                 capsys):
    code_notebook(project / "notebooks" / "nb.ipynb")
    lib = tmp_path / "lib"
    write_module(lib, 1)
    monkeypatch.syspath_prepend(str(lib))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(lib), os.environ.get("PYTHONPATH", "")]))
    assert cli.main(["sweep", "nb", "-p", "metric", "mymod:m", "--jobs", "1", "--quiet"]) == 0
    folder = Path(capsys.readouterr().out.strip().splitlines()[-1])
    assert (folder / "combined" / "value.csv").read_text().splitlines()[-1].endswith(",1")
    write_module(lib, 2)
    assert cli.main(["sweep", "nb", "-p", "metric", "mymod:m", "--jobs", "1", "--quiet"]) == 0
    folder = Path(capsys.readouterr().out.strip().splitlines()[-1])
    doc = json.loads((folder / sweep.SWEEP_FILE).read_text())
    assert [p["status"] for p in doc["points"]] == ["ran"]
    assert (folder / "combined" / "value.csv").read_text().splitlines()[-1].endswith(",2")


# ----------------------------------------------------------------------------------- finding 8
def test_sweeps_of_two_files_with_one_name_never_share_a_grid_folder(project, tmp_path,
                                                                     monkeypatch):
    file_notebook(project / "notebooks" / "nb.ipynb")
    spec = pipeline.find("nb", project)
    for sub, text in (("a", "x\n1\n"), ("b", "x\n2\n")):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "r.csv").write_text(text)
    folders = []
    for sub in ("a", "b"):
        monkeypatch.chdir(tmp_path / sub)
        given = [("table", "r.csv")]
        points = sweep.grid(spec, given, project)
        folders.append(sweep.sweep_folder("nb", given, project, spec, points))
    assert folders[0] != folders[1]
    # a symlink is its target: the same bytes, the same grid folder
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "r.csv").symlink_to(tmp_path / "a" / "r.csv")
    monkeypatch.chdir(tmp_path / "c")
    given = [("table", "r.csv")]
    assert sweep.sweep_folder("nb", given, project, spec, sweep.grid(spec, given, project)) \
        == folders[0]


# ----------------------------------------------------------------------------------- finding 9
def test_a_file_name_that_is_not_utf8_is_refused_before_any_kernel(project, tmp_path, capsys,
                                                                   monkeypatch):
    file_notebook(project / "notebooks" / "nb.ipynb")
    monkeypatch.chdir(tmp_path)
    raw = os.fsdecode(b"r\xe9sum\xe9.csv")
    Path(raw).write_text("x\n1\n")
    assert cli.main(["run", "nb", "-p", "table", raw]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "r\\xe9sum\\xe9.csv" in err and "not valid UTF-8" in err
    assert not (project / "runs" / "nb").exists() or not any(
        (project / "runs" / "nb").iterdir())


# ---------------------------------------------------------------------------------- finding 15
def test_the_environment_hash_ignores_build_by_products_and_the_own_install(project, tmp_path,
                                                                           monkeypatch):
    site = tmp_path / "site-packages"
    (site / "foo-1.0.dist-info").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(project / "src"))

    def env():
        pipeline._ENVIRONMENT.clear()
        return pipeline.environment_hash(project)

    before = env()
    # `pip install .` / `make test` write src/rankbook.egg-info; an install adds rankbook's own
    (project / "src" / "rankbook.egg-info").mkdir()
    (project / "src" / "rankbook.egg-info" / "PKG-INFO").write_text("Name: rankbook\n")
    (site / "rankbook-0.2.0.dist-info").mkdir()
    (site / "__editable___rankbook_0_2_0_finder.py").write_text("")
    assert env() == before
    # a real upgrade still changes it
    (site / "foo-1.0.dist-info").rename(site / "foo-1.1.dist-info")
    assert env() != before


# ---------------------------------------------------------------------------------- finding 17
def test_a_malformed_scheduler_address_exits_2_in_one_line(project, capsys):
    make_notebook(project / "notebooks" / "nb0.ipynb")
    for address in ("tcp//host:8786", "tcp://host:port", "http://host:8786", "tcp://h:99999"):
        assert cli.main(["sweep", "nb0", "-p", "delay", "0", "--scheduler", address]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "malformed --scheduler address" in err
    assert not (project / "runs").exists()


def test_a_full_disk_while_publishing_is_one_line_counting_the_files(tmp_path, monkeypatch):
    built = tmp_path / "built"
    for i in range(300):
        (built / "d").mkdir(parents=True, exist_ok=True)
        (built / "d" / f"page{i}.html").write_text("x")
    site = tmp_path / "html"
    site.mkdir()
    (site / "index.html").write_text("old")

    def full(src, dst, **kw):
        raise OSError(28, "No space left on device")

    real = shutil.copytree

    def copytree(src, dst, symlinks=False, ignore=None, copy_function=None, *args, **kw):
        return real(src, dst, symlinks, ignore, full, *args, **kw)

    monkeypatch.setattr(shutil, "copytree", copytree)
    with pytest.raises(shutil.Error) as info:
        pipeline.publish_site(built, site)
    line = str(pipeline._os_error(info.value, str(site)))
    assert "\n" not in line and len(line) < 400
    assert "300 file(s) could not be copied" in line and "page" in line
    assert (site / "index.html").read_text() == "old"
    assert not list(tmp_path.glob(".html-stage-*"))


def test_a_dry_run_piped_into_head_ends_quietly(project):
    make_notebook(project / "notebooks" / "nb0.ipynb")
    env = {**os.environ, "RANKBOOK_ROOT": str(project)}
    # a grid of 400 points: more lines than head reads; `head -n 0` is gone before the first
    # line is written, so every write meets a closed pipe
    for head, first in (("head -1", "400 point(s) of nb0"), ("head -n 0", "")):
        cmd = (f"set -o pipefail; {sys.executable} -m rankbook sweep nb0 -p delay "
               + ",".join(str(i / 10) for i in range(400))
               + f" -p fail false --dry-run 2>err.txt | {head}")
        out = subprocess.run(["bash", "-c", cmd], cwd=project, env=env, capture_output=True,
                             text=True, timeout=120)
        assert out.stdout.startswith(first) and (first or out.stdout == "")
        assert out.returncode == 0, (head, out.returncode, (project / "err.txt").read_text())
        assert (project / "err.txt").read_text() == ""


# ----------------------------------------------------------------------------- findings 5-7
RECORD = record_code("Artifact", "A-artifact")


def build(root: Path, lines: list | None = None, **kw) -> pipeline.BuildReport:
    log = lines.append if lines is not None else (lambda *a: None)
    return pipeline.execute_all(root, progress=False, log=log, **kw)


def _truncate(path: Path) -> None:
    path.write_text(path.read_text().splitlines()[0] + "\n")


def _drop_cells(path: Path) -> None:
    nb = json.loads(path.read_text())
    nb["cells"] = nb["cells"][:1]
    path.write_text(json.dumps(nb))


@pytest.mark.parametrize("damage, named", [
    (lambda gen: (gen / "nb0" / "marker.csv").unlink(), "nb0/marker.csv is missing"),
    (lambda gen: _truncate(gen / "nb0" / "marker.csv"), "nb0/marker.csv changed"),
    (lambda gen: (gen / "nb0" / "results.json").write_text('{"a": "\x01"}'),
     "nb0/results.json changed"),
    (lambda gen: _drop_cells(gen / "nb0.ipynb"), "nb0.ipynb changed"),
    (lambda gen: (gen / "nb0" / pipeline.KEY_FILE).write_text("{not json"),
     f"nb0/{pipeline.KEY_FILE} is unreadable"),
    (lambda gen: (gen / "nb0" / "extra.csv").write_text("x\n"),
     "nb0/extra.csv was not written by the execution"),
])
def test_a_damaged_output_is_found_named_and_executed_again(project, damage, named):
    make_notebook(project / "notebooks" / "nb0.ipynb")
    nb = nbformat.read(project / "notebooks" / "nb0.ipynb", as_version=4)
    nb.cells.append(new_code_cell(RECORD))
    nbformat.write(nb, project / "notebooks" / "nb0.ipynb")
    assert build(project, jobs=1).ran == ["nb0"]
    gen = project / "book" / "generated"
    good = (gen / "nb0" / "marker.csv").read_bytes()
    assert build(project, jobs=1).reused == ["nb0"]
    damage(gen)
    lines = []
    assert build(project, lines, jobs=1).ran == ["nb0"]
    assert any(named in line and line.startswith("execute nb0: its outputs cannot be reused")
               for line in lines), lines
    assert (gen / "nb0" / "marker.csv").read_bytes() == good
    assert not (gen / "nb0" / "extra.csv").exists()
    assert build(project, jobs=1).reused == ["nb0"]


def test_a_corrupt_results_file_names_the_file(project):
    from rankbook.book import site

    gen = project / "book" / "generated"
    (gen / "nb0").mkdir(parents=True)
    (gen / "nb0" / "results.json").write_text('[{"a": "\x01"}]')
    with pytest.raises(ValueError, match=r"nb0/results.json is corrupt"):
        site.collect(gen, "results.json")


# ---------------------------------------------------------------------------------- finding 12b
@pytest.mark.slow
def test_a_deleted_notebook_leaves_the_published_site_and_book_generated(project):
    from test_faults import full_build, site_project, write_toc

    site_project(project)
    full_build(project)
    html = project / "_build" / "html" / "book" / "generated"
    gen = project / "book" / "generated"
    assert (html / "nb1.html").is_file() and (gen / "nb1" / "marker.csv").is_file()
    (project / "notebooks" / "nb1.ipynb").unlink()  # a branch switch deletes nb1
    write_toc(project, "Part one", ["nb0"])
    lines = []
    report, index = pipeline.build_book(project, jobs=1, progress=False, log=lines.append)
    assert index is not None and report.reused == ["nb0"]
    assert any("no longer exist: nb1" in line for line in lines), lines
    assert not (gen / "nb1.ipynb").exists() and not (gen / "nb1").exists()
    assert "nb1" not in json.loads((gen / pipeline.MANIFEST_NAME).read_text())
    published = [p.relative_to(project / "_build" / "html").as_posix()
                 for p in (project / "_build" / "html").rglob("*nb1*")]
    assert published == [] and (html / "nb0.html").is_file()


# ---------------------------------------------------------------------------------- finding 16
def _handlers_installed(pid: int) -> bool:
    """True once the process catches SIGTERM (bit 15 of SigCgt): Python alone never does, so
    this is the first line of rankbook's main having run."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    except OSError:
        return True  # gone already
    return False


@pytest.fixture
def busy():
    """A busy loop on every core, so that the signals meet a loaded machine."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
             for _ in range(os.cpu_count() or 1)]
    yield
    for p in procs:
        p.kill()
        p.wait()


COMMANDS = {
    "build": (["build", "--no-book", "--quiet", "--jobs", "1", "--force"], "executed:"),
    "run": (["run", "nb0", "-p", "delay", "{delay}"], "runs/nb0/"),
    "sweep": (["sweep", "nb0", "-p", "delay", "{delay}", "--jobs", "1", "--quiet"],
              "runs/sweeps/nb0/"),
}


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_signal_at_any_moment_ends_in_one_line_and_130_or_143(project, busy, command):
    import random
    import time

    make_notebook(project / "notebooks" / "nb0.ipynb")
    args, done_text = COMMANDS[command]
    env = {**os.environ, "RANKBOOK_ROOT": str(project)}
    rng = random.Random(os.environ.get("RANKBOOK_SIGNAL_SEED", f"issue30-{command}"))

    def start(i):
        argv = [a.format(delay=0.2 + i / 1000) for a in args]
        return subprocess.Popen([sys.executable, "-m", "rankbook", *argv], env=env, cwd=project,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)

    # how long the command lives here (unsignalled), so the signals fall across all of it
    began = time.monotonic()
    proc = start(0)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    span = time.monotonic() - began
    # a handful of signals within `make test`'s time; RANKBOOK_SIGNAL_REPEATS=50 soaks it
    for i in range(1, 1 + int(os.environ.get("RANKBOOK_SIGNAL_REPEATS", "4"))):
        sig = rng.choice([signal.SIGINT, signal.SIGTERM])
        delay = rng.uniform(0, span)
        proc = start(i)
        while proc.poll() is None and not _handlers_installed(proc.pid):
            time.sleep(0.002)
        time.sleep(delay)
        if proc.poll() is None:
            if sig == signal.SIGINT:
                os.killpg(proc.pid, sig)  # Ctrl-C in a terminal reaches the whole group
            else:
                os.kill(proc.pid, sig)  # `kill PID`
        out, err = proc.communicate(timeout=120)
        what = f"{command}: {signal.Signals(sig).name} {delay:.2f} s after the handlers"
        lines = [ln for ln in err.splitlines() if ln.strip()]
        if proc.returncode == 0:  # it finished before the signal
            assert done_text in out and lines == [], (what, out, err)
        else:
            assert proc.returncode == 128 + sig, (what, proc.returncode, err)
            assert len(lines) == 1 and f"interrupted by {signal.Signals(sig).name}" in lines[0], \
                (what, err)
        assert stage_folders(project) == [], what


def test_a_local_cluster_starts_without_a_dashboard_on_a_free_port():
    # dashboard_address=None alone still made the scheduler's HTTP server listen on 8787 (or
    # warn that it is in use, then take another)
    import warnings

    with warnings.catch_warnings(record=True) as caught, sweep._client(1, None) as client:
        warnings.simplefilter("always")
        # the scheduler's HTTP server (health, metrics) listens on a free port, never on
        # 8787, and serves no dashboard there
        port = client.scheduler_info()["services"]["dashboard"]
        assert port != 8787
        import urllib.error
        import urllib.request

        with pytest.raises(urllib.error.HTTPError, match="404"):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=10)
    assert not [w for w in caught if "8787" in str(w.message)]


def test_an_interruption_leaves_no_asyncio_traceback_under_its_one_line(tmp_path):
    """After Ctrl-C, a kernel client's task holding DeadKernelError was garbage-collected at
    exit and asyncio printed "Task exception was never retrieved" with a traceback under the
    one-line message (a signal test met it on a loaded machine). The CLI silences asyncio's
    logger once it reports an interruption; the same orphan task prints without it."""
    script = tmp_path / "orphan.py"
    script.write_text(
        "import asyncio, gc, sys\n"
        "if sys.argv[1] == 'quiet':\n"
        "    from rankbook.book import cli\n"
        "    cli._quiet_asyncio()\n"
        "async def boom():\n"
        "    raise RuntimeError('Kernel died')\n"
        "loop = asyncio.new_event_loop()\n"
        "task = loop.create_task(boom())\n"
        "loop.run_until_complete(asyncio.sleep(0.01))\n"
        "del task\n"
        "gc.collect()\n"
        "loop.close()\n")
    loud = subprocess.run([sys.executable, str(script), "loud"], capture_output=True, text=True)
    assert "Task exception was never retrieved" in loud.stderr  # the evidence can show
    quiet = subprocess.run([sys.executable, str(script), "quiet"], capture_output=True, text=True)
    assert quiet.returncode == 0 and quiet.stderr == ""
