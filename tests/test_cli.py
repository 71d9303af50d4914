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
    assert len(err.strip().splitlines()) == 1, f"the README promises one line: {err!r}"
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
    (["run", "kendall_width_swap", "-p", "nope", "1"], ["unknown parameter 'nope'", "its parameters: ns, plot_ns"]),
    (["run", "kendall_width_swap", "-p", "nz", "5"], ["unknown parameter 'nz' for kendall_width_swap (did you mean 'ns'?)"]),
    (["run", "kendall_width_swap", "-p", "ns", "5,,6"], ["'5,,6' has an empty item"]),
    (["run", "kendall_width_swap", "-p", "ns", "abc"], ["parameter 'ns' of kendall_width_swap: 'abc' is not an int; allowed: ints"]),
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


# ------------------------------------------------------------------ issue 24, finding 4
PAIRS = {
    "ties.csv": ("name,1,2,3\nref,a,b,c\nr1,a,b|c,\n", "ranking 'r1' ties b, c"),
    "partial.csv": ("name,1,2,3\nref,a,b,c\nr1,a,b,\n", "ranking 'r1' lacks c"),
    "alone.csv": ("name,1,2,3\nref,a,b,c\n", "holds only the reference ranking 'ref'"),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_pairs_csv_with_ties_or_partial_rows_is_refused(capsys, runs, tmp_path, name):
    content, message = PAIRS[name]
    path = tmp_path / name
    path.write_text(content)
    _refused(capsys, runs, ["run", "agreement_heatmap", "-p", "pairs_csv", str(path), "-p", "k",
                            "1"], "pairs_csv", message)


@pytest.mark.parametrize("argv, needles", [
    (["run", "consensus_example", "-p", "base", "4"], ["base = 4 is not the index of a ranking",
                                                       "base must be in 0..3"]),
    (["run", "consensus_example", "-p", "rankings", "abc,abca"], ["repeats item 'a'"]),
    (["run", "rbo_bounds", "-p", "p", "1.0"], ["'p'", "1.0 must be less than 1"]),
    (["run", "rbo_bounds", "-p", "S", ""], ["'S'", "0 character(s), fewer than 1"]),
    (["run", "rbo_bounds", "-p", "S", "abca"], ["S = 'abca' repeats 'a'"]),
    (["run", "consensus_rank_aggregation", "-p", "gammas", "1,0.5,1.0"], ["1.0 is given twice"]),
    (["run", "consensus_search_engines", "-p", "published_dir", "published/paper_bb"],
     ["no such folder: published/paper_bb"]),
    (["run", "consensus_rank_aggregation", "-p", "table_stem", "table_v"],
     ["holds none of the published grids table_v_ga.csv"]),
    (["run", "kendall_width_swap", "-p", "plot_ns", "7"], ["7 is not one of the values of ns"]),
    (["run", "ir_metrics_tour", "-p", "scores", "0.5,0.4"], ["2 value(s) for the 10 of 'relevance'"]),
    (["run", "right_invariance", "-p", "n_samples", "1000000", "-p", "n_random", "2000"],
     ["needs about", "GiB of memory"]),
    (["run", "sweep_agreement", "-p", "ns", "10,20", "-p", "k_share", "1"], ["k_share"]),
    (["run", "indiscernibility_examples", "-p", "taus", "id,(3 14)"], ["taus", "1..10"]),
    (["run", "benchmarks", "-p", "results_path", "benchmarks/typo.json"],
     ["no such file: benchmarks/typo.json"]),
])
def test_combinations_and_paths_are_refused_before_the_kernel(capsys, runs, argv, needles):
    _refused(capsys, runs, argv, *needles)


def test_every_refusal_is_one_line(capsys, runs):
    assert cli.main(["run", "rbo_bounds", "-p", "p", "1.0"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_the_declared_limits_say_what_the_code_accepts(capsys):
    assert cli.main(["list", "rbo_bounds"]) == 0
    out = capsys.readouterr().out
    assert "p (float) = 0.9" in out and "allowed: > 0 and < 1" in out
    assert "together: S and T hold distinct items" in out
