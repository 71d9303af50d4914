"""The machinery, round 4 of fault injection (issue 37): each test replays one failure.

- a helper two imports away from a user's metric is in the cache key (item 1);
- ``--page`` is rendered inside the run's lock and swapped in whole (item 4);
- the messages that misled (item 6): a notebook killed by a memory limit, a page that fails
  on a full disk, an output error under an ASCII locale, the comma rule of ``sweep``, a
  pasteable ``--page`` command;
- the source archive holds what it says (item 7).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from projects import scratch_project
from rankbook.book import cli, pipeline, specs, sweep
from test_build_round3 import code_notebook


@pytest.fixture
def project(tmp_path, monkeypatch):
    return scratch_project(tmp_path, monkeypatch, {"marker.txt": "good\n"})


def write_chain(lib: Path, value: int) -> None:
    """A user's metric that only re-exports a helper of a helper: ``mymod`` imports ``mid``,
    which imports ``helper``, whose value the metric returns."""
    lib.mkdir(parents=True, exist_ok=True)
    (lib / "mymod.py").write_text("from mid import g as m  # only a re-export\n")
    (lib / "mid.py").write_text("import json\nfrom helper import h\n\n\ndef g():\n    return h()\n")
    (lib / "helper.py").write_text(f"def h():\n    return {value}\n")


# ------------------------------------------------------------------------------------ item 1
def test_the_key_follows_a_helper_two_imports_away(project, tmp_path, monkeypatch):
    code_notebook(project / "notebooks" / "nb.ipynb")
    spec = pipeline.find("nb", project)
    lib = tmp_path / "lib"
    write_chain(lib, 2)
    monkeypatch.syspath_prepend(str(lib))
    first = pipeline.cache_key(spec, {"metric": "mymod:m"}, project)
    hashed = {p.name for p in specs.named_paths(spec, {"metric": "mymod:m"}, project)["metric"]}
    assert hashed == {"mymod.py", "mid.py", "helper.py"}  # not json: the standard library's
    (lib / "helper.py").write_text("def h():\n    return 4\n")
    assert pipeline.cache_key(spec, {"metric": "mymod:m"}, project)["files"] != first["files"]


def test_imports_are_resolved_as_python_resolves_them(tmp_path, monkeypatch):
    """Relative imports inside a package, ``from package import submodule``, a package's
    ``__init__``, ``importlib.import_module("name")``, imports inside functions; never the
    standard library, an installed package or rankbook."""
    lib = tmp_path / "lib"
    pkg = lib / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from ..util import U\n")
    (pkg / "util.py").write_text("U = 1\n")
    (pkg / "deep.py").write_text("V = 1\n")
    (lib / "user.py").write_text(
        "import os, numpy, rankbook.metrics\n"
        "from pkg import sub\n"
        "from pkg.sub import U\n"
        "def f():\n"
        "    import importlib\n"
        "    return importlib.import_module('late')\n")
    (lib / "late.py").write_text("from pkg import deep\n")
    (lib / "unused.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(lib))
    found = {p.relative_to(lib).as_posix() for p in specs.imported_files([lib / "user.py"])}
    assert found == {"pkg/__init__.py", "pkg/sub/__init__.py", "pkg/util.py", "late.py",
                     "pkg/deep.py"}


def test_a_file_metric_follows_its_helpers_too(project, tmp_path, monkeypatch):
    """``path/to/file.py:function``: the helpers beside it (on PYTHONPATH, as the kernel
    finds them) are hashed with it."""
    code_notebook(project / "notebooks" / "nb.ipynb")
    spec = pipeline.find("nb", project)
    lib = tmp_path / "lib"
    write_chain(lib, 2)
    monkeypatch.syspath_prepend(str(lib))
    value = f"{lib / 'mymod.py'}:m"
    first = pipeline.cache_key(spec, {"metric": value}, project)["files"]
    (lib / "helper.py").write_text("def h():\n    return 5\n")
    assert pipeline.cache_key(spec, {"metric": value}, project)["files"] != first


@pytest.mark.slow
@pytest.mark.notebooks
def test_a_sweep_recomputes_when_a_helper_two_imports_away_changes(project, tmp_path,
                                                                   monkeypatch, capsys):
    """The issue's case: the second sweep reused the old point ("0 ran, 1 reused") and its
    table said 2 where a fresh run says 4."""
    code_notebook(project / "notebooks" / "nb.ipynb")
    lib = tmp_path / "lib"
    write_chain(lib, 2)
    monkeypatch.syspath_prepend(str(lib))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(lib), os.environ.get("PYTHONPATH", "")]))
    argv = ["sweep", "nb", "-p", "metric", "mymod:m", "--jobs", "1", "--quiet"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "1 ran, 0 reused" in out
    folder = Path(out.strip().splitlines()[-1])
    assert (folder / "combined" / "value.csv").read_text().splitlines()[-1].endswith(",2")
    assert cli.main(argv) == 0
    assert "0 ran, 1 reused" in capsys.readouterr().out  # nothing changed: reused
    (lib / "helper.py").write_text("def h():\n    return 4\n")
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "1 ran, 0 reused" in out
    folder = Path(out.strip().splitlines()[-1])
    doc = json.loads((folder / sweep.SWEEP_FILE).read_text())
    assert [p["status"] for p in doc["points"]] == ["ran"]
    assert (folder / "combined" / "value.csv").read_text().splitlines()[-1].endswith(",4")


# ------------------------------------------------------------------------------------ item 4
FAKE_JUPYTER_BOOK = '''"""Stands for jupyter-book in the --page tests: MODE ok, interrupt or full."""
import os, signal, sys, time
from pathlib import Path

mode, args = sys.argv[1], sys.argv[2:]
out = Path(args[args.index("--path-output") + 1]) / "_build" / "html"
if mode == "ok":
    out.mkdir(parents=True)
    (out / "nb.html").write_text("<html><body><article>page %s</article></body></html>"
                                 % os.environ.get("PAGE_VERSION", "1"))
elif mode == "interrupt":  # Ctrl-C while the page renders
    os.kill(os.getppid(), signal.SIGINT)
    time.sleep(60)
elif mode == "full":  # what jupyter-book prints when the disk fills up under it
    print("Running Jupyter-Book v1.0.4\\nSource Folder: x\\n" + "writing output... [ 50%] nb\\n" * 30)
    print("Traceback (most recent call last):\\n  File \\"sphinx/builders/html.py\\", line 1\\n"
          "    raise\\nOSError: [Errno 28] No space left on device: '/runs/_out/nb.html'\\n")
    print("=" * 79 + "\\n\\nThere was an error in building your book. Look above for the cause."
          "\\n\\n" + "=" * 79)
    sys.exit(1)
'''


@pytest.fixture
def page_project(project, tmp_path, monkeypatch):
    """A scratch project with one notebook and a stand-in for jupyter-book, whose MODE the
    test sets (``page_project.mode = "interrupt"``)."""
    from test_faults import make_notebook

    make_notebook(project / "notebooks" / "nb.ipynb")
    (project / "_config.yml").write_text("title: t\n")
    script = tmp_path / "fake_jupyter_book.py"
    script.write_text(FAKE_JUPYTER_BOOK)

    class Fake:
        mode = "ok"

    fake = Fake()

    def command(root, output=None, fresh=False):
        return [sys.executable, str(script), fake.mode, "build", str(root), "--path-output",
                str(output)]

    monkeypatch.setattr(pipeline, "jupyter_book_command", command)
    fake.root = project
    return fake


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.notebooks
def test_an_interrupted_page_leaves_the_previous_run_and_page_whole(page_project, capsys):
    """The issue's case: Ctrl-C while the page rendered said "nothing was written, the last
    good output is untouched" while the run folder was already replaced and the page gone."""
    from test_faults import stage_folders

    root = page_project.root
    assert cli.main(["run", "nb", "--page"]) == 0
    folder, page = (Path(line) for line in capsys.readouterr().out.split())
    assert page == folder / "nb.html" and "page 1" in page.read_text()
    before = snapshot(folder)
    page_project.mode = "interrupt"
    assert cli.main(["run", "nb", "--page"]) == 130
    err = capsys.readouterr().err.strip()
    assert err == (f"rankbook run: interrupted by SIGINT; nothing was written: {folder} holds "
                   "the previous run and its page, untouched")
    assert snapshot(folder) == before  # the run, its tables and its page, byte for byte
    assert stage_folders(root) == [] and not list(folder.parent.glob(".page-*"))


@pytest.mark.notebooks
def test_a_page_that_fails_on_a_full_disk_names_the_cause(page_project, capsys, monkeypatch):
    """The cause, not jupyter-book's closing "Look above for the cause" (item 6); and the
    previous run and page stay whole, as the message says."""
    assert cli.main(["run", "nb", "--page"]) == 0
    folder = Path(capsys.readouterr().out.split()[0])
    before = snapshot(folder)
    page_project.mode = "full"
    assert cli.main(["run", "nb", "--page"]) == 1
    err = capsys.readouterr().err
    assert "OSError: [Errno 28] No space left on device: '/runs/_out/nb.html'" in err
    assert "Look above" not in err and "writing output" not in err
    assert f"the run and its page were not replaced: {folder} holds the previous run and its " \
           "page, untouched" in err
    assert snapshot(folder) == before
    log = folder.parent / "_logs" / "nb.page.log"
    assert f"(jupyter-book's whole output is in {log})" in err and "Look above" in log.read_text()
    assert (folder.parent / "_failed" / "nb.ipynb").is_file()  # the run itself is kept


@pytest.mark.notebooks
def test_a_first_page_interrupted_says_there_is_no_earlier_run(page_project, capsys):
    page_project.mode = "interrupt"
    assert cli.main(["run", "nb", "--page"]) == 130
    assert capsys.readouterr().err.strip().endswith(
        "nothing was written: there is no earlier run of these parameters")
    assert not (pipeline.runs_dir(page_project.root) / "nb" / "defaults").exists()
