"""The papermill pipeline: parameters, cache, failure handling, determinism (issue 2)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from projects import scratch_project, record_code
from rankbook.book import cli, pipeline

TINY_SOURCE = '''import numpy as np
import pandas as pd
import matplotlib
matplotlib.use("agg")
import matplotlib.pyplot as plt
from rankbook.book import outputs
from rankbook.ledger import paths

if fail:
    raise RuntimeError("asked to fail")
rng = np.random.default_rng(seed)
df = pd.DataFrame({"x": np.arange(n), "y": rng.random(n)})
extra = (paths.data_dir() / "input.txt").read_text().strip()
outputs.save_table(df, "values", title=f"Values ({extra})")
fig, ax = plt.subplots()
ax.plot(df.x, df.y, "o-")
outputs.save_figure(fig, "plot", caption="A plot.", alt="Dots joined by lines.")
''' + record_code("Tiny table", "A-tiny", "n") + "\n"


def make_notebook(path: Path, n_default: int = 4, fail_default: bool = False) -> None:
    params = new_code_cell(
        f"n = {n_default}  # number of rows\nseed = 7  # random seed\n"
        f"fail = {fail_default}  # raise on purpose\nlabel = 'tiny'  # a string"
    )
    params.metadata["tags"] = ["parameters"]
    nb = new_notebook(cells=[new_markdown_cell("# Tiny notebook\n\nFor tests."), params,
                             new_code_cell(TINY_SOURCE)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["rankbook"] = {"description": "a tiny test notebook", "smoke": {"n": 2}}
    nbformat.write(nb, path)


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = scratch_project(tmp_path, monkeypatch, {"input.txt": "from data\n"})
    make_notebook(root / "notebooks" / "tiny.ipynb")
    return root


def build(root: Path) -> pipeline.BuildReport:
    return pipeline.execute_all(root, jobs=1, progress=False, log=lambda *a: None)


def file_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# ------------------------------------------------------------------ parameters
def test_parameters_are_read_with_types_and_comments(project):
    spec = pipeline.read_spec(project / "notebooks" / "tiny.ipynb")
    assert spec.defaults() == {"n": 4, "seed": 7, "fail": False, "label": "tiny"}
    assert spec.parameters["n"].comment == "number of rows"
    assert spec.parameters["fail"].type_name == "bool"
    assert spec.smoke == {"n": 2}
    assert spec.title == "Tiny notebook"


@pytest.mark.parametrize(
    "key,text,expected",
    [("n", "12", 12), ("n", "1e3", 1000), ("fail", "true", True), ("fail", "0", False),
     ("label", "hello world", "hello world"), ("seed", "-3", -3)],
)
def test_values_parse_to_the_default_type(project, key, text, expected):
    spec = pipeline.find("tiny", project)
    assert pipeline.resolve_parameters(spec, [(key, text)]) == {key: expected}


def test_list_parameters_accept_commas_or_literals():
    p = pipeline.Parameter("ns", [5, 10])
    assert pipeline.parse_value(p, "3,4, 5") == [3, 4, 5]
    assert pipeline.parse_value(p, "[6, 7]") == [6, 7]
    with pytest.raises(ValueError, match="not an int"):
        pipeline.parse_value(p, "3,x")
    q = pipeline.Parameter("ps", [0.9, 0.5])
    assert pipeline.parse_value(q, "1,0.25") == [1.0, 0.25]


@pytest.mark.parametrize("key,text", [("n", "3.5"), ("n", "ten"), ("fail", "maybe"),
                                      ("seed", "[1]")])
def test_bad_values_are_refused(project, key, text):
    spec = pipeline.find("tiny", project)
    with pytest.raises(pipeline.ParameterError, match="bad value") as info:
        pipeline.resolve_parameters(spec, [(key, text)])
    assert f"parameter {key!r} of tiny: " in str(info.value) and "\n" not in str(info.value)


def test_cli_unknown_parameter_exits_2_and_lists_parameters(project, capsys):
    assert cli.main(["run", "tiny", "-p", "nope", "1"]) == 2
    err = capsys.readouterr().err
    assert "unknown parameter 'nope'" in err
    assert "its parameters: n, seed, fail, label" in err and len(err.strip().splitlines()) == 1
    assert not (project / "runs").exists()


def test_cli_bad_type_and_unknown_notebook_exit_2(project, capsys):
    assert cli.main(["run", "tiny", "-p", "n", "many"]) == 2
    assert "is not an int" in capsys.readouterr().err
    assert cli.main(["run", "nosuch"]) == 2
    assert "valid notebooks: tiny" in capsys.readouterr().err


def test_malformed_parameters_cell_is_reported(project):
    nb = nbformat.read(project / "notebooks" / "tiny.ipynb", as_version=4)
    nb.cells[1].source += "\nprint('side effect')"
    nbformat.write(nb, project / "notebooks" / "tiny.ipynb")
    with pytest.raises(ValueError, match="not a simple 'name = literal'"):
        pipeline.discover(project)


def test_slug_is_readable_and_bounded():
    assert pipeline.slug({}) == "defaults"
    assert pipeline.slug({"ns": [5, 6], "seed": 3}) == "ns-5,6_seed-3"
    assert len(pipeline.slug({"x": list(range(200))})) <= 80


# ------------------------------------------------------------------ run / outputs
@pytest.mark.notebooks
def test_run_writes_the_run_folder_with_notebook_tables_and_figures(project, capsys):
    assert cli.main(["run", "tiny", "-p", "n", "3"]) == 0
    folder = project / "runs" / "tiny" / "n-3"
    assert capsys.readouterr().out.strip() == str(folder)
    names = {p.name for p in folder.iterdir()}
    assert {"tiny.ipynb", "values.csv", "plot.png", "plot.svg", "results.json"} <= names
    assert not [n for n in names if n.startswith(".") and n != pipeline.KEY_FILE]
    nb = nbformat.read(folder / "tiny.ipynb", as_version=4)
    injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert injected and "remove-cell" in injected[0].metadata["tags"]
    prov = [c for c in nb.cells if "rankbook-provenance" in c.metadata.get("tags", [])]
    assert prov and "<code>n \\= 3</code> (changed from the default)" in prov[0].source
    assert "Git commit" in prov[0].source and "Duration" in prov[0].source
    assert (folder / "values.csv").read_text().count("\n") == 4  # header + 3 rows


@pytest.mark.notebooks
def test_two_runs_give_identical_bytes(project):
    folder = pipeline.run_one("tiny", [("n", "5")], project)
    first = file_bytes(folder)
    pipeline.run_one("tiny", [("n", "5")], project)
    second = file_bytes(folder)
    for name in ("values.csv", "plot.png", "plot.svg", "results.json"):
        assert first[name] == second[name], name


@pytest.mark.notebooks
def test_failure_keeps_last_good_output(project, capsys):
    folder = pipeline.run_one("tiny", [], project)
    before = file_bytes(folder)
    assert cli.main(["run", "tiny", "-p", "fail", "true"]) == 1  # another folder
    err = capsys.readouterr().err
    assert "notebook 'tiny' failed" in err and "RuntimeError: asked to fail" in err
    # failing in the build keeps book/generated intact
    report = build(project)
    assert report.ran == ["tiny"]
    gen = project / "book" / "generated"
    good_nb = (gen / "tiny.ipynb").read_bytes()
    good_out = file_bytes(gen / "tiny")
    make_notebook(project / "notebooks" / "tiny.ipynb", fail_default=True)
    report = build(project)
    assert report.failed == ["tiny"] and "asked to fail" in report.messages[0]
    assert (gen / "tiny.ipynb").read_bytes() == good_nb
    assert file_bytes(gen / "tiny") == good_out
    assert (gen / "_failed" / "tiny.ipynb").exists()
    assert not [p for p in gen.iterdir() if p.name.startswith((".stage", ".old"))]
    assert file_bytes(folder) == before
    # and the CLI reports it with a non-zero status
    assert cli.main(["build", "--no-book", "--quiet"]) == 1
    assert "failed" in capsys.readouterr().err


@pytest.mark.notebooks
def test_a_kernel_that_fails_to_start_is_started_again_but_a_cell_error_is_not(project, monkeypatch):
    """Two kernels starting at once can take the same port (papermill issue 511): a failure
    before any cell ran is retried, up to KERNEL_START_ATTEMPTS; a cell's error never is."""
    import papermill

    real, calls = papermill.execute_notebook, []

    def failing_first(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("Kernel died before replying to kernel_info")
        return real(*args, **kwargs)

    monkeypatch.setattr(papermill, "execute_notebook", failing_first)
    folder = pipeline.run_one("tiny", [], project)
    assert len(calls) == 2 and (folder / "tiny.ipynb").is_file()

    def never_starts(*args, **kwargs):
        calls.append(1)
        raise RuntimeError("Kernel died before replying to kernel_info")

    calls.clear()
    monkeypatch.setattr(papermill, "execute_notebook", never_starts)
    with pytest.raises(pipeline.NotebookFailed, match="Kernel died before replying"):
        pipeline.run_one("tiny", [], project)
    assert len(calls) == pipeline.KERNEL_START_ATTEMPTS

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    calls.clear()
    monkeypatch.setattr(papermill, "execute_notebook", counted)
    with pytest.raises(pipeline.NotebookFailed, match="asked to fail"):
        pipeline.run_one("tiny", [("fail", "true")], project)
    assert len(calls) == 1


def test_a_kernel_that_really_dies_while_starting_is_started_again(project, monkeypatch,
                                                                  tmp_path):
    """A real kernel that exits before it answers, as one that lost its port to a kernel
    starting beside it does ("Address already in use"). papermill then writes the notebook
    with every cell marked completed and none begun, which the retry used to read as a run:
    a fresh clone's make test failed on it (build --jobs 2, three test workers)."""
    fake, starts = tmp_path / "fake", tmp_path / "starts"
    fake.mkdir()
    (fake / "ipykernel_launcher.py").write_text(
        "import os, sys\n"
        f"path = {str(starts)!r}\n"
        "n = int(open(path).read()) if os.path.exists(path) else 0\n"
        "open(path, 'w').write(str(n + 1))\n"
        "if n == 0:\n"
        "    sys.exit('zmq.error.ZMQError: Address already in use (the test says so)')\n"
        "from ipykernel import kernelapp\n"
        "kernelapp.launch_new_instance()\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (str(fake), os.environ.get("PYTHONPATH", "")) if p))
    folder = pipeline.run_one("tiny", [], project)
    assert (folder / "tiny.ipynb").is_file()
    assert starts.read_text() == "2"


# ------------------------------------------------------------------ cache
@pytest.mark.notebooks
def test_cache_reuses_unchanged_and_reruns_on_any_change(project):
    assert build(project).ran == ["tiny"]
    second = build(project)
    assert second.ran == [] and second.reused == ["tiny"]

    (project / "src" / "rankbook" / "code.py").write_text("X = 2\n")
    assert build(project).ran == ["tiny"]
    assert build(project).ran == []

    (project / "data" / "input.txt").write_text("changed data\n")
    assert build(project).ran == ["tiny"]
    csv = (project / "book" / "generated" / "tiny" / "values.csv").read_text()
    assert build(project).ran == []

    make_notebook(project / "notebooks" / "tiny.ipynb", n_default=6)  # a parameter default
    assert build(project).ran == ["tiny"]
    new_csv = (project / "book" / "generated" / "tiny" / "values.csv").read_text()
    assert new_csv != csv and new_csv.count("\n") == 7

    manifest = json.loads((project / "book" / "generated" / ".manifest.json").read_text())
    assert set(manifest["tiny"]["key"]) == {"notebook", "inputs", "parameters", "files", "code",
                                            "data", "ledger", "environment"}


@pytest.mark.notebooks
def test_missing_outputs_are_rebuilt_and_force_reruns(project):
    build(project)
    shutil.rmtree(project / "book" / "generated" / "tiny")
    assert build(project).ran == ["tiny"]
    assert pipeline.execute_all(project, force=True, jobs=1, progress=False,
                                log=lambda *a: None).ran == ["tiny"]


def test_cache_key_depends_on_declared_inputs(project):
    nb = nbformat.read(project / "notebooks" / "tiny.ipynb", as_version=4)
    nb.metadata["rankbook"]["inputs"] = ["extra/results.json"]
    nbformat.write(nb, project / "notebooks" / "tiny.ipynb")
    spec = pipeline.find("tiny", project)
    before = pipeline.cache_key(spec, {}, project)
    (project / "extra").mkdir()
    (project / "extra" / "results.json").write_text("{}")
    assert pipeline.cache_key(spec, {}, project)["inputs"] != before["inputs"]


def test_cache_key_depends_on_parameters(project):
    spec = pipeline.find("tiny", project)
    assert pipeline.cache_key(spec, {}, project) != pipeline.cache_key(spec, {"n": 2}, project)


def test_an_edited_stylesheet_reaches_the_built_site(tmp_path):
    """Sphinx skips copying static files when no page is out of date; the build copies the
    book's own ones itself when they differ from the built site's."""
    from rankbook.book.pipeline import _refresh_static

    (tmp_path / "book" / "_static").mkdir(parents=True)
    (tmp_path / "_build" / "html" / "_static").mkdir(parents=True)
    (tmp_path / "book" / "_static" / "rankbook.css").write_text("p { color: red; }")
    (tmp_path / "_build" / "html" / "_static" / "rankbook.css").write_text("p { color: blue; }")
    _refresh_static(tmp_path)
    assert (tmp_path / "_build" / "html" / "_static" / "rankbook.css").read_text() == "p { color: red; }"


# ------------------------------------------------------------------ issue 24, finding 3
def make_file_notebook(path: Path, default: str) -> None:
    """A notebook whose parameter names a rankings file (anywhere) and copies it to a table."""
    params = new_code_cell(f"csv = {default!r}  # a rankings file")
    params.metadata["tags"] = ["parameters"]
    body = new_code_cell(
        "import pandas as pd\nfrom rankbook import consensus\nfrom rankbook.book import outputs\n"
        "r = consensus.read_rankings_csv(csv)\n"
        "outputs.save_table(pd.DataFrame({'first': [next(iter(next(iter(r.values())).values()))[0]]}),"
        " 'first', title='First item')")
    nb = new_notebook(cells=[new_markdown_cell("# Files\n\nFor tests."), params, body])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["rankbook"] = {"description": "reads a file", "smoke": {},
                               "constraints": {"csv": {"file": "rankings"}}}
    nbformat.write(nb, path)


@pytest.mark.notebooks
def test_editing_a_file_outside_data_that_a_parameter_names_reexecutes(project, tmp_path):
    outside = tmp_path / "elsewhere" / "mine.csv"
    outside.parent.mkdir()
    outside.write_text("name,1,2\nr1,a,b\n")
    make_file_notebook(project / "notebooks" / "files.ipynb", str(outside))
    (project / "notebooks" / "tiny.ipynb").unlink()
    assert build(project).ran == ["files"]
    assert build(project).ran == []
    old = outside.stat()
    outside.write_text("name,1,2\nr1,z,b\n")
    os.utime(outside, ns=(old.st_atime_ns, old.st_mtime_ns))  # an edit that keeps the old time
    assert build(project).ran == ["files"], "an edited input outside data/ was not noticed"
    first = (project / "book" / "generated" / "files" / "first.csv").read_text()
    assert first.splitlines()[1] == "z"


def test_the_environment_is_part_of_the_cache_key(project, monkeypatch):
    spec = pipeline.find("tiny", project)
    before = pipeline.cache_key(spec, {}, project)
    (project / "requirements.lock").write_text("matplotlib==9.9.9\n")
    after = pipeline.cache_key(spec, {}, project)
    assert after["environment"] != before["environment"]
    assert {k for k in before if before[k] != after[k]} == {"environment"}


@pytest.mark.notebooks
def test_a_different_file_with_the_same_name_gets_its_own_run_folder(project, tmp_path, capsys):
    make_file_notebook(project / "notebooks" / "files.ipynb", "")
    nb = nbformat.read(project / "notebooks" / "files.ipynb", as_version=4)
    nb.metadata["rankbook"]["constraints"]["csv"]["optional"] = True
    nbformat.write(nb, project / "notebooks" / "files.ipynb")
    folders = []
    for sub, item in (("one", "a"), ("two", "q")):
        path = tmp_path / sub / "rankings.csv"
        path.parent.mkdir()
        path.write_text(f"name,1,2\nr1,{item},b\n")
        assert cli.main(["run", "files", "-p", "csv", str(path)]) == 0
        folders.append(Path(capsys.readouterr().out.strip()))
    assert folders[0] != folders[1]
    assert all(f.name.startswith("csv-rankings.csv_") for f in folders)
    assert [(f / "first.csv").read_text().splitlines()[1] for f in folders] == ["a", "q"]


def test_a_relative_path_is_found_the_same_way_before_and_in_the_kernel(project, tmp_path,
                                                                       monkeypatch):
    """A relative path found in the current folder reaches the kernel as an absolute path; one
    found under data/ is passed as given (the kernel looks there)."""
    make_file_notebook(project / "notebooks" / "files.ipynb", "")
    (project / "data" / "under.csv").write_text("name,1\nr1,a\n")
    here = tmp_path / "cwd"
    here.mkdir()
    (here / "mine.csv").write_text("name,1\nr1,a\n")
    monkeypatch.chdir(here)
    spec = pipeline.find("files", project)
    assert pipeline.resolve_parameters(spec, [("csv", "mine.csv")], project) == {
        "csv": str(here / "mine.csv")}
    assert pipeline.resolve_parameters(spec, [("csv", "under.csv")], project) == {
        "csv": "under.csv"}
    with pytest.raises(pipeline.ParameterError, match="no such file: nope.csv"):
        pipeline.resolve_parameters(spec, [("csv", "nope.csv")], project)
