"""Bad input at the command line is refused before any kernel starts (issue 13).

Each case runs ``rankbook run`` on a real notebook with one bad value or one malformed input file
and expects exit status 2, a message that names the problem and where it is, no traceback, and
nothing written (no run folder, no staging folder). The refusal comes from the declared
constraints and the library's strict readers, so it takes a fraction of a second.
"""

from __future__ import annotations

import time

import pytest

from rankbook import __version__
from rankbook.book import cli, pipeline, specs

BAD_CSV = {
    "comma.csv": ("name,1,2,3\nr1,Smith, J.,b,c\n", "line 2: 5 fields where the header has 4; quote labels"),
    "trailing.csv": ("name,1,2,3\nr1,a,b,c,d\n", "line 2: 5 fields where the header has 4"),
    "empty.csv": ("", "is empty"),
    "header.csv": ("name,1,2,3\n", "holds only a header"),
    "dup.csv": ("name,1,2,3\nr1,a,b,a\n", "ranking 'r1' repeats item 'a'"),
    "tie.csv": ("name,1,2\nr1,a,b|b\n", "repeats item 'b' inside the tie group"),
}


@pytest.fixture
def runs(tmp_path, monkeypatch):
    """A copy-free project view: the real notebooks and data, but runs/ in a temporary folder."""
    monkeypatch.setattr(pipeline, "runs_dir", lambda root=None: tmp_path / "runs")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "runs"


def _refused(capsys, runs, argv, *needles):
    started = time.time()
    status = cli.main(argv)
    took = time.time() - started
    err = capsys.readouterr().err
    assert status == 2, (status, err)
    assert took < 3, f"refusing took {took:.1f} s: a kernel must not start"
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, f"{needle!r} not in {err!r}"
    assert not runs.exists() or not any(runs.rglob("*")), "something was written"


@pytest.mark.parametrize("name", sorted(BAD_CSV))
def test_a_malformed_rankings_file_is_refused(capsys, runs, tmp_path, name):
    content, message = BAD_CSV[name]
    path = tmp_path / name
    path.write_text(content)
    _refused(capsys, runs, ["run", "consensus_example", "-p", "rankings_csv", str(path)],
             "rankings_csv", str(path), message)


def test_a_folder_and_a_missing_file_are_refused(capsys, runs, tmp_path):
    _refused(capsys, runs, ["run", "consensus_example", "-p", "rankings_csv", str(tmp_path)],
             "is a folder")
    _refused(capsys, runs, ["run", "consensus_example", "-p", "rankings_csv",
                            str(tmp_path / "nope.csv")], "no such file")


@pytest.mark.parametrize("argv, needles", [
    (["run", "agreement_heatmap", "-p", "n", "1"], ["'n'", "1 is below the minimum 2"]),
    (["run", "agreement_heatmap", "-p", "n", "20", "-p", "k", "25"], ["'k'", "must be below n = 20"]),
    (["run", "kendall_width_swap", "-p", "ns", "-3,5"], ["'ns'", "-3 is below the minimum 2"]),
    (["run", "kendall_width_swap", "-p", "ns=-3,5"], ["'ns'", "-3 is below the minimum 2"]),
    (["run", "kendall_width_swap", "-p", "ns", "5,a"], ["'ns'", "'a' is not an int"]),
    (["run", "properties_table", "-p", "k_fixed", "abc"], ["'k_fixed'", "'abc' is not an int"]),
    (["run", "kendall_width_swap", "-p", "ns", "5", "-p", "ns", "6"], ["'ns' is given twice"]),
    (["run", "kendall_width_swap", "-p", "nope", "1"], ["unknown parameter 'nope'", "ns (list[int])"]),
    (["run", "agreement_heatmap", "-p", "protocol", "pairs"], ["'pairs' is not one of the choices"]),
    (["run", "no_such_notebook"], ["unknown notebook 'no_such_notebook'"]),
])
def test_bad_values_exit_2_before_the_kernel_starts(capsys, runs, argv, needles):
    _refused(capsys, runs, argv, *needles)


def test_list_one_notebook_and_version(capsys):
    assert cli.main(["list", "kendall_width_swap"]) == 0
    out = capsys.readouterr().out
    assert "ns (list[int]) = [5, 10, 20, 50]" in out and "allowed: ints; in 2..400" in out
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.strip() == f"rankbook {__version__}"


def test_every_notebook_declares_valid_constraints():
    for spec in pipeline.discover():
        specs.check_constraints(spec, spec.defaults())  # the paper's settings are allowed
        pipeline.check_parameters(spec, spec.smoke)
