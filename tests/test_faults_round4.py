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


# ------------------------------------------------------------------------------------ item 6
def memory_notebook(path: Path, cell: str) -> None:
    """A notebook whose ``gib`` parameter sizes what its cell does."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    params = new_code_cell("gib = 1  # GiB to allocate")
    params.metadata["tags"] = ["parameters"]
    nb = new_notebook(cells=[new_markdown_cell(f"# {path.stem}\n\nFor tests."), params,
                             new_code_cell(cell)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["rankbook"] = {"description": path.stem}
    nbformat.write(nb, path)


@pytest.mark.notebooks
def test_a_kernel_killed_for_memory_is_named_as_such(project, capsys, monkeypatch):
    """The out-of-memory killer's SIGKILL left "DeadKernelError: Kernel died" (or, under a
    limit, ``CellExecutionError:`` with an empty reason): the message names the memory, the
    limit and what to lower. The kill is the kernel's own SIGKILL; the cgroup's count of
    out-of-memory kills is what tells the killer, faked here to rise during the run."""
    memory_notebook(project / "notebooks" / "nb.ipynb",
                    "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
    assert cli.main(["run", "nb", "-p", "gib", "3"]) == 1
    err = capsys.readouterr().err
    assert "the kernel died without an error: a signal killed it, most often the " \
           "out-of-memory killer" in err
    assert "lower the values you raised (gib = 3)" in err and "Kernel died" not in err
    counts = iter([4, 5])
    monkeypatch.setattr(pipeline, "oom_kills", lambda: next(counts))
    monkeypatch.setattr(pipeline, "memory_limits", lambda: ["cgroup memory.max 512 MiB"])
    assert cli.main(["run", "nb", "-p", "gib", "3"]) == 1
    err = capsys.readouterr().err
    assert ("failed in an unknown cell: the kernel was killed by the out-of-memory killer (the "
            "limit this process runs under: cgroup memory.max 512 MiB); lower the values you "
            "raised (gib = 3), or give it more memory") in err


@pytest.mark.slow
@pytest.mark.notebooks
def test_a_memory_error_under_ulimit_names_the_limit(project):
    """``ulimit -v``: the kernel's MemoryError could not even be formatted, and papermill said
    ``CellExecutionError:`` with nothing after it."""
    import resource
    import subprocess

    memory_notebook(project / "notebooks" / "nb.ipynb",
                    "x = bytearray(gib * 2**30)\nx[::4096] = b'1' * len(x[::4096])")
    limit = 2560 * 2**20

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    res = subprocess.run([sys.executable, "-m", "rankbook", "run", "nb", "-p", "gib", "4"],
                         env={**os.environ, "RANKBOOK_ROOT": str(project)}, cwd=project,
                         capture_output=True, text=True, preexec_fn=cap, timeout=300)
    assert res.returncode == 1, res.stderr
    assert "MemoryError: the notebook ran out of memory (the limit this process runs under: " \
           "address space (ulimit -v) 2.5 GiB); lower the values you raised (gib = 4)" in res.stderr
    assert "CellExecutionError" not in res.stderr


ASCII = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8")}
ASCII.update(LC_ALL="C", LANG="C", PYTHONCOERCECLOCALE="0", PYTHONUTF8="0")


def test_an_ascii_terminal_is_an_output_error_not_a_usage_error(tmp_path):
    """Under a truly ASCII locale the report cannot be printed: status 1 (an output error),
    not 2 (usage), with the character, the fix and the outputs already written."""
    import subprocess

    from test_csv_formulas import EXAMPLES

    res = subprocess.run([sys.executable, "-m", "rankbook", "list"], env=ASCII,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 1, res.stderr
    assert res.stderr.startswith("rankbook list: cannot print the report: standard output's "
                                 "encoding (ascii) cannot show '\\u")
    assert "use a UTF-8 locale (e.g. LC_ALL=C.UTF-8) or set PYTHONIOENCODING=utf-8" in res.stderr
    runs = [str(EXAMPLES / f"{r}.txt") for r in ("orig_baseline", "rep_baseline")]
    res = subprocess.run([sys.executable, "-m", "rankbook", "compare", *runs, "--qrels",
                          str(EXAMPLES / "qrels.txt"), "--resamples", "100"], env=ASCII,
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    # the pre-flight check's lines (the example's tied scores of different relevance) come
    # first, as in any terminal; the failure is the one last line
    *check, last = res.stderr.strip().splitlines()
    assert res.returncode == 1 and check and all(
        line.startswith("rankbook compare: check: ") for line in check), res.stderr
    assert "cannot print the report" in last and last.endswith("; compare.csv was written")
    assert (tmp_path / "compare.csv").is_file()


def test_a_sweep_says_that_commas_separate_values(project, capsys):
    """A text value with a comma was split into two points without a word."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    params = new_code_cell("author = 'Doe'  # a name")
    params.metadata["tags"] = ["parameters"]
    nb = new_notebook(cells=[new_markdown_cell("# nb\n\nFor tests."), params])
    nb.metadata["rankbook"] = {"description": "nb"}
    nbformat.write(nb, project / "notebooks" / "nb.ipynb")
    assert cli.main(["sweep", "nb", "-p", "author", "Smith, J.", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert ("note: author: 'Smith, J.' is 2 values ('Smith', 'J.'): in a sweep, commas "
            "separate the values; write \\, for a comma inside one value") in out
    assert "2 point(s)" in out
    assert cli.main(["sweep", "nb", "-p", "author", "Smith\\, J.", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "1 point(s)" in out and "author=Smith, J." in out and "note" not in out


def test_the_page_command_with_a_newline_in_a_file_name_pastes_back(tmp_path):
    """The provenance box's command: one line, each value one shell word that bash reads back
    exactly (``$'...'`` for a line break), and the Markdown table keeps it whole."""
    import subprocess

    name = str(tmp_path / "two\nlines 'q'.csv")
    command = pipeline._reproduce_command("nb", {"table": name, "n": 3},
                                          {"table": "r.csv", "n": 3}, "0123456789ab")
    assert "\n" not in command
    words = command.split(" && ")[-1]
    argv = subprocess.run(["bash", "-c", f"printf '%s\\0' {words}"], capture_output=True,
                          text=True, check=True).stdout.split("\0")[:-1]
    assert argv == [".venv/bin/rankbook", "run", "nb", "-p", "table", name]
    box = pipeline._provenance_markdown({"table": name, "n": 3}, {"table": "r.csv", "n": 3},
                                        0.0, 1.0, "0123456789ab", "nb")
    rows = [line for line in box.splitlines() if line.startswith("| Command")]
    assert len(rows) == 2, box  # in a clone, and from the source archive without git
    for row in rows:
        assert row.endswith("</code> |")  # the command did not break the table


def test_reproduce_names_what_is_in_place_when_a_signal_follows_a_rename(tmp_path):
    """``rankbook reproduce`` shares compare's rule: an output is recorded with its rename."""
    import subprocess

    from test_csv_formulas import EXAMPLES

    argv = [sys.executable, "-m", "rankbook", "reproduce", "--qrels", str(EXAMPLES / "qrels.txt"),
            "--resamples", "100", "--per-topic", "topics.csv"]
    for role in ("orig_baseline", "orig_advanced", "rep_baseline", "rep_advanced"):
        argv += [f"--{role.replace('_', '-')}", str(EXAMPLES / f"{role}.txt")]
    res = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "RANKBOOK_SIGNAL_AT": "renamed:TERM"})
    assert res.returncode == 143, res.stderr
    *check, last = res.stderr.strip().splitlines()  # the pre-flight check's lines come first
    assert all(line.startswith("rankbook reproduce: check: ") for line in check), res.stderr
    assert last == ("rankbook reproduce: interrupted by SIGTERM; reproduce.csv was written "
                    "before it; topics.csv was not")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reproduce.csv"]


# ------------------------------------------------------------------------------------ item 7
def git(folder: Path, *args: str) -> str:
    import subprocess

    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True,
                          check=True, env=env).stdout.strip()


def source_tree(root: Path) -> None:
    """A small project: its source, and what a working folder gathers beside it."""
    for rel, text in {"Makefile": "book:\n", "src/pkg/a.py": "A = 1\n",
                      "src/pkg/build/keep.py": "B = 1\n", "data/runs/table.csv": "x\n1\n",
                      "notebooks/nb.ipynb": "{}\n", ".gitignore": "/scratch/\n.env\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def archive_names(path: Path) -> dict[str, bytes]:
    import tarfile

    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def test_without_git_the_archive_holds_only_what_the_manifest_lists(tmp_path):
    """The issue's case: a tree without git published a `.env` with API_TOKEN=secret and a
    scratch run, and dropped every folder named build, dist or runs."""
    from rankbook.book import source_archive as sa

    repo = tmp_path / "repo"
    source_tree(repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    sha = git(repo, "rev-parse", "HEAD")
    released, _ = sa.write_source_archive(repo, tmp_path / "out")
    files = archive_names(released)
    top = f"rankbook-{sha[:12]}"
    assert sorted(files) == sorted(f"{top}/{r}" for r in (
        "Makefile", "src/pkg/a.py", "src/pkg/build/keep.py", "data/runs/table.csv",
        "notebooks/nb.ipynb", ".gitignore", sa.MANIFEST_NAME))
    # a tarball of the release, unpacked without git, and a working folder's extras beside it
    copy = tmp_path / "copy"
    copy.mkdir()
    for name, data in files.items():
        target = copy / name.split("/", 1)[1]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    (copy / ".env").write_text("API_TOKEN=secret\n")
    (copy / "scratch").mkdir()
    (copy / "scratch" / "big.run").write_bytes(b"q0 Q0 d 1 1 t\n" * 1000)
    (copy / "runs").mkdir()
    (copy / "runs" / "r.csv").write_text("x\n")
    assert sa.commit_of(copy) == ""
    source = sa.describe(copy)
    assert source.kind == "manifest" and source.commit == sha
    again, commit = sa.write_source_archive(copy, tmp_path / "out2")
    held = archive_names(again)
    assert commit == "" and sorted(n.split("/", 1)[1] for n in held) == sorted(
        ["Makefile", "src/pkg/a.py", "src/pkg/build/keep.py", "data/runs/table.csv",
         "notebooks/nb.ipynb", sa.MANIFEST_NAME])  # .gitignore: a dotfile, never without git
    assert not any(b"secret" in data for data in held.values())
    # a file edited since the release: "commit + changes", named so
    (copy / "src" / "pkg" / "a.py").write_text("A = 2\n")
    source = sa.describe(copy)
    assert source.kind == "manifest-changes" and "1 file(s) edited, e.g. src/pkg/a.py" in source.note
    assert source.folder == f"rankbook-{sha[:12]}-with-changes"
    # no git and no manifest: no file at all, and the pages say so
    (copy / sa.MANIFEST_NAME).unlink()
    empty, _ = sa.write_source_archive(copy, tmp_path / "out3")
    assert list(archive_names(empty)) == [f"rankbook/{sa.MANIFEST_NAME}"]
    assert "it holds no source file" in sa.describe(copy).sentence()


def test_a_commit_counts_only_at_the_projects_own_top_level(tmp_path):
    """The archive unpacked into a user's own repository: the pages named that repository's
    commit."""
    from rankbook.book import source_archive as sa

    outer = tmp_path / "mine"
    (outer / "proj").mkdir(parents=True)
    source_tree(outer / "proj")
    (outer / "README").write_text("my project\n")
    git(outer, "init", "-q")
    git(outer, "add", "-A")
    git(outer, "commit", "-qm", "mine")
    theirs = git(outer, "rev-parse", "HEAD")
    assert sa.commit_of(outer / "proj") == "" and sa.commit_of(outer) == theirs
    source = sa.describe(outer / "proj")
    assert source.kind == "none" and theirs[:12] not in source.commit_text()
    assert theirs[:12] not in pipeline.git_commit(outer / "proj")
    assert "no git" in pipeline.git_commit(outer / "proj")


def test_uncommitted_changes_are_archived_and_named(tmp_path):
    """The rerun box said "Download the source ... at commit X ... make book rebuilds every
    page" while the archive (HEAD only) lacked the change."""
    from rankbook.book import source_archive as sa

    repo = tmp_path / "repo"
    source_tree(repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    sha = git(repo, "rev-parse", "HEAD")
    (repo / "src" / "pkg" / "a.py").write_text("A = 'changed'\n")
    (repo / ".env").write_text("API_TOKEN=secret\n")  # untracked, ignored: never archived
    path, commit = sa.write_source_archive(repo, tmp_path / "out")
    files = archive_names(path)
    top = f"rankbook-{sha[:12]}-with-changes"
    assert commit == ""  # a citation names no commit the archive does not hold
    assert files[f"{top}/src/pkg/a.py"] == b"A = 'changed'\n"
    assert not any(".env" in name for name in files)
    source = sa.read_description(tmp_path / "out")
    text = sa.fill(sa.source_markdown(notebook="nb"), source)
    assert f"at commit `{sha[:12]}` with uncommitted changes: the archive holds the working " \
           "tree" in text
    assert source.checkout() == ""  # no `git checkout X` for a tree that is not X


@pytest.mark.slow
@pytest.mark.notebooks
def test_every_page_names_the_commit_of_the_build_not_of_its_execution(project):
    """A page executed at commit A and reused by a build at commit B names B (the archive's),
    in its rerun box and its provenance box; no page names A, and no stand-in is left."""
    from rankbook.book import source_archive as sa
    from test_faults import full_build, page, site_project

    site_project(project)
    (project / ".gitignore").write_text("_build/\nbook/generated/\nruns/\n")
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "A")
    first = git(project, "rev-parse", "HEAD")
    full_build(project)
    html = page(project, "nb0")
    assert first[:12] in html and f"git checkout {first[:12]}" in html
    (project / "NOTES.md").write_text("a note\n")
    git(project, "add", "NOTES.md")
    git(project, "commit", "-qm", "B")
    second = git(project, "rev-parse", "HEAD")
    report = full_build(project)
    assert report.ran == [] and sorted(report.reused) == ["nb0", "nb1"]
    site = project / "_build" / "html"
    for name in ("nb0", "nb1"):
        html = page(project, name)
        assert second[:12] in html and first[:12] not in html, name
        assert f"at commit <code class=\"docutils literal notranslate\"><span class=\"pre\">" \
               f"{second[:12]}</span></code>" in html
    leftovers = [p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()
                 and any(t.encode() in p.read_bytes() for t in sa.TOKENS)]
    assert leftovers == []
    archive = project / "book" / "generated" / sa.ARCHIVE_NAME
    assert all(n.startswith(f"rankbook-{second[:12]}/") for n in archive_names(archive))


@pytest.mark.notebooks
def test_a_run_outside_the_site_names_its_source_when_it_is_written(project, capsys):
    """``rankbook run`` is not rebuilt by a site build: its boxes are filled as it is
    written, with no stand-in left."""
    from rankbook.book import source_archive as sa
    from test_faults import make_notebook

    make_notebook(project / "notebooks" / "nb.ipynb")
    assert cli.main(["run", "nb", "-p", "delay", "0.01"]) == 0
    folder = Path(capsys.readouterr().out.split()[0])
    text = (folder / "nb.ipynb").read_text()
    assert not any(t in text for t in sa.TOKENS)
    box = "".join(json.loads(text)["cells"][-1]["source"])  # the provenance box
    assert "unknown (no git, no SOURCE-FILES.txt)" in box.replace("\\", "")  # escapes removed
