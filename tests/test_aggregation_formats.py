"""Readers and writers of the rank-aggregation tools' formats (issue 31, item 3).

Round trips through every format (hypothesis), the tools' documented examples as golden files
(``data/rankings/formats``, each with a header naming its source), and the orientation guard on
ranky's README matrix: the two readings give two different Kendall's W, each checked against an
independent computation (scipy's Friedman test, and ranky's own formula re-implemented here).
"""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import friedmanchisquare, rankdata

from rankbook import aggregation_formats as af
from rankbook import consensus
from rankbook.ledger.paths import data_path


def _formats(name):
    return data_path("rankings", "formats", name)


# --------------------------------------------------------------------------------------------
# round trips


@st.composite
def weak_orders(draw, labels, ties=True):
    items = draw(st.lists(st.sampled_from(labels), min_size=1, max_size=len(labels), unique=True))
    out, i = [], 0
    while i < len(items):
        size = draw(st.integers(1, 3)) if ties else 1
        group = items[i:i + size]
        out.append(group[0] if len(group) == 1 else frozenset(group))
        i += size
    return out


def named_sets(labels, ties=True):
    return st.lists(weak_orders(labels, ties), min_size=1, max_size=5).map(
        lambda rs: {f"j{i + 1}": r for i, r in enumerate(rs)})


LETTERS = ["a", "b", "c", "d", "e", "Smith, J.", "x y"]


def _round_trip(tmp_path, name, writer, reader, rankings, **kw):
    path = tmp_path / name
    writer(rankings, path, **kw.get("write", {}))
    got = reader(path, **kw.get("read", {}))["all"]
    assert af.same_rankings(got, rankings), (path.read_text(), got, rankings)


@settings(max_examples=60, deadline=None)
@given(named_sets(LETTERS, ties=False))
def test_rankaggreg_round_trip(tmp_path_factory, rankings):
    _round_trip(tmp_path_factory.mktemp("ra"), "x.rankaggreg.csv", af.write_rankaggreg,
                af.read_rankaggreg, rankings)


@settings(max_examples=60, deadline=None)
@given(named_sets(LETTERS))
def test_consrank_round_trip(tmp_path_factory, rankings):
    _round_trip(tmp_path_factory.mktemp("cr"), "x.consrank.csv", af.write_consrank,
                af.read_consrank, rankings)


@settings(max_examples=60, deadline=None)
@given(named_sets(["a", "b", "c", "d", "e", "item_7", "é"]))
def test_corankco_round_trip_text(tmp_path_factory, rankings):
    _round_trip(tmp_path_factory.mktemp("ck"), "x.corankco", af.write_corankco,
                af.read_corankco, rankings)


@settings(max_examples=60, deadline=None)
@given(named_sets([1, 2, 3, 4, 5, 10, -3]))
def test_corankco_round_trip_integers(tmp_path_factory, rankings):
    _round_trip(tmp_path_factory.mktemp("ck"), "x.corankco", af.write_corankco,
                af.read_corankco, rankings)


@settings(max_examples=60, deadline=None)
@given(named_sets(LETTERS), st.sampled_from(["scores", "ranks"]), st.sampled_from([0, 1]))
def test_ranky_round_trip(tmp_path_factory, rankings, kind, axis):
    opts = {"kind": kind, "judges_axis": axis}
    _round_trip(tmp_path_factory.mktemp("rk"), "m.ranky.csv", af.write_ranky, af.read_ranky,
                rankings, write=opts, read=opts)


@settings(max_examples=60, deadline=None)
@given(named_sets([x for x in LETTERS if "," not in x]))  # FLAGR splits at every comma
def test_pyflagr_round_trip(tmp_path_factory, rankings):
    path = tmp_path_factory.mktemp("pf") / "l.pyflagr.csv"
    af.write_pyflagr({"q 1": rankings, "q2": rankings}, path)
    got = af.read_pyflagr(path)
    assert list(got) == ["q 1", "q2"]
    assert all(af.same_rankings(g, rankings) for g in got.values())


def test_round_trip_keeps_what_the_measures_see(tmp_path):
    rankings = {"j1": "a{bc}de", "j2": "b{ad}", "j3": "dcab"}
    W = consensus.kendall_w(list(rankings.values()), items="union")
    k = consensus.kappa(list(rankings.values()), 0.9, 0.8)
    for name, w, r, kw in [("x.consrank.csv", af.write_consrank, af.read_consrank, {}),
                           ("x.corankco", af.write_corankco, af.read_corankco, {}),
                           ("m.ranky.csv", af.write_ranky, af.read_ranky,
                            {"kind": "scores", "judges_axis": 1})]:
        path = tmp_path / name
        w(rankings, path, **({} if not kw else {"kind": "scores", "judges_axis": 1}))
        got = list(r(path, **kw)["all"].values())
        assert consensus.kendall_w(got, items="union") == W
        assert consensus.kappa(got, 0.9, 0.8) == k


# --------------------------------------------------------------------------------------------
# golden files from the tools' documented examples


def test_golden_rankaggreg():
    got = af.read_rankings_file(_formats("rankaggreg_help_example.rankaggreg.csv"))["all"]
    assert got == {"1": list("ABCDE"), "2": list("BDAEC"), "3": list("BAECD"), "4": list("ADBCE")}


def test_golden_consrank_needs_its_kind():
    path = _formats("consrank_kemenyscore_example.consrank.csv")
    with pytest.raises(ValueError, match="kind='ordering'.*kind='ranks'"):
        af.read_consrank(path)
    got = af.read_consrank(path, kind="ranks")["all"]
    assert got["Y"] == ["V1", "V5", "V2", "V4", "V3"]
    assert got["Z"] == ["V1", frozenset({"V2", "V4"}), "V3"]
    assert af.read_rankings_file(path)["all"] == got  # the file's name says ConsRank: ranks
    with pytest.raises(ValueError, match="ranking 'Z' repeats item '2'"):  # a tie is no ordering
        af.read_rankings_file(path, "rankaggreg")


def test_golden_corankco():
    got = list(af.read_rankings_file(_formats("corankco_readme_example.corankco"))["all"].values())
    assert got == [[frozenset({1, 2}), 4], [frozenset({1, 2, 3}), 4, 5], [1, 2, 3, 4], [1, 5, 3, 2]]


def test_golden_pyflagr():
    got = af.read_rankings_file(_formats("pyflagr_layout_example.pyflagr.csv"))
    assert list(got) == ["q1", "q2"]
    assert got["q1"] == {"v1": ["d1", "d2", "d3"], "v2": ["d2", "d1", "d3"],
                         "v3": [frozenset({"d1", "d3"}), "d2"]}
    assert got["q2"] == {"v1": ["d4", "d5"], "v2": ["d5"]}


# --------------------------------------------------------------------------------------------
# the orientation guard on ranky's README matrix


def _ranky_w(M, axis):
    """ranky 1.0.0's ``kendall_w(matrix, axis, ties=False)``, re-implemented from its source:
    rank each judge (higher is better, mid-ranks), W = 12 S / (m^2 (n^3 - n))."""
    M = np.asarray(M, float)
    R = np.apply_along_axis(rankdata, 1 - axis, -M)
    m, n = M.shape[axis], M.shape[1 - axis]
    sums = R.sum(axis=axis)
    return 12 * n * np.var(sums) / (m ** 2 * (n ** 3 - n))


README_M = np.array([[0.4, 0.8, 0.2, 0.2], [0.8, 0.7, 0.9, 0.7], [0.7, 0.7, 0.8, 1.0]])
FIXTURE_M = np.array([[0.3, 0.4, 0.6], [0.8, 0.8, 0.8], [0.1, 0.5, 0.7], [0.2, 0.2, 0.2],
                      [0.0, 0.0, 0.0]])  # ranky's tests/conftest.py, 5 candidates x 3 judges


def test_ranky_readme_orientation_guard():
    path = _formats("ranky_readme_matrix.ranky-scores-judges-columns.csv")
    with pytest.raises(ValueError, match="judges in columns.*judges in rows"):
        af.read_ranky(path, kind="scores")
    with pytest.raises(ValueError, match="kind='scores'.*kind='ranks'"):
        af.read_ranky(path, judges_axis=1)
    with pytest.raises(ValueError, match="ranky-scores-judges-columns"):
        af.read_rankings_file(path, "ranky")
    M = np.loadtxt(path, delimiter=",", skiprows=4, usecols=(1, 2, 3, 4), comments="#")
    assert np.array_equal(M, README_M)
    judges = list(af.read_rankings_file(path)["all"].values())  # the name says judges-columns
    assert len(judges) == 4
    w = consensus.kendall_w(judges, ties=True)
    m, n = README_M.shape[1], README_M.shape[0]
    assert w.w == pytest.approx(friedmanchisquare(*README_M).statistic / (m * (n - 1)), abs=1e-12)
    assert consensus.kendall_w(judges, ties=False).w == pytest.approx(_ranky_w(README_M, 1), abs=1e-12)
    rows = list(af.read_ranky(path, kind="scores", judges_axis=0)["all"].values())
    assert len(rows) == 3
    w_rows = consensus.kendall_w(rows, ties=False).w
    assert w_rows == pytest.approx(_ranky_w(README_M, 0), abs=1e-12)
    assert abs(w_rows - consensus.kendall_w(judges, ties=False).w) > 0.1  # the trap is real


@pytest.mark.parametrize("M", [README_M, FIXTURE_M], ids=["readme", "fixture"])
def test_ranky_each_axis_matches_friedman(tmp_path, M):
    path = tmp_path / "m.csv"
    lines = ["index," + ",".join(f"judge{j + 1}" for j in range(M.shape[1]))]
    lines += [f"candidate{i + 1}," + ",".join(repr(v) for v in row) for i, row in enumerate(M)]
    path.write_text("\n".join(lines) + "\n")
    for axis, blocks in ((1, M.T), (0, M)):  # blocks = judges, one row each
        rs = list(af.read_ranky(path, kind="scores", judges_axis=axis)["all"].values())
        m, n = blocks.shape
        if n >= 3:
            chi2 = friedmanchisquare(*blocks.T).statistic
            assert consensus.kendall_w(rs).w == pytest.approx(chi2 / (m * (n - 1)), abs=1e-12)
        assert consensus.kendall_w(rs).w == pytest.approx(consensus.kendall_w_scores(blocks).w,
                                                          abs=1e-12)
        ranks = list(af.read_ranky(path, kind="ranks", judges_axis=axis)["all"].values())
        assert [list(reversed(r)) for r in ranks] == rs  # ranks read the other way round


# --------------------------------------------------------------------------------------------
# refusals


def test_contradictory_kinds_are_refused(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text(",V1,V2\nr,A,B\n")
    with pytest.raises(ValueError, match="RankAggreg rows are read as kind='ordering'.*'ranks'"):
        af.read_rankaggreg(path, kind="ranks")
    with pytest.raises(ValueError, match="kind must be one of"):
        af.read_rankaggreg(path, kind="order")
    path.write_text("q,v,d,1\n")
    with pytest.raises(ValueError, match="PyFLAGR.*'scores'.*reverses every list"):
        af.read_pyflagr(path, kind="ranks")
    with pytest.raises(ValueError, match="ranky.*'ordering'"):
        af.read_ranky(path, kind="ordering", judges_axis=1)
    with pytest.raises(ValueError, match="judges_axis must be 0"):
        af.read_ranky(path, kind="scores", judges_axis=2)


def test_formats_that_cannot_hold_it_refuse_to_write():
    with pytest.raises(ValueError, match="RankAggreg holds no ties"):
        af.write_rankaggreg({"j": ["a", {"b", "c"}]})
    with pytest.raises(ValueError, match="all integers or all text"):
        af.write_corankco([[1, "a"]])
    with pytest.raises(ValueError, match="cannot hold the label"):
        af.write_corankco([["a,b", "c"]])
    with pytest.raises(ValueError, match="format must be one of|rankings_format must be one of"):
        af.format_of("x.csv", "csv")


@pytest.mark.parametrize("text, match", [
    ("V1,V2\nA,A\n", "repeats item 'A'"),
    ("V1,V2,V3\nA,NA,B\n", "before its last item"),
    ("V1,V2\nA\n", "1 fields where the header has 2"),
    ("A,B,C\nB,A,C\n", "reads as a ranking, not as a header"),  # no header: never drop a list
])
def test_rankaggreg_bad_rows(tmp_path, text, match):
    path = tmp_path / "x.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        af.read_rankaggreg(path)


@pytest.mark.parametrize("text, match", [
    ("[[1], [1]]\n", "appears twice"),
    ("[[1], []]\n", "empty bucket"),
    ("[[1], 2]\n", "outside a bucket"),
    ("1, 2\n", "bracketed list"),
])
def test_corankco_bad_lines(tmp_path, text, match):
    path = tmp_path / "x.corankco"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        af.read_corankco(path)


def test_file_kind_check_reads_ranky_without_orientation(tmp_path):
    path = tmp_path / "m.ranky.csv"
    path.write_text("index,j1,j2\na,1,2\nb,2,x\n")
    with pytest.raises(ValueError, match="'x' under 'j2' is not a number"):
        af.check_rankings_file(path)
    path.write_text("index,j1,j2\na,1,2\nb,2,1\n")
    assert af.check_rankings_file(path)
    with pytest.raises(ValueError, match="reads four ways"):
        af.read_rankings_file(path)


# --------------------------------------------------------------------------------------------
# scoring an aggregation


def test_aggregate_scores_against_brute_force():
    inputs = {"j1": "a{bc}d", "j2": "bdca", "j3": "cab"}
    agg = "abcd"
    t = af.aggregate_scores(inputs, agg)
    pos_agg = {x: i for i, x in enumerate(agg)}
    for name, r in inputs.items():
        pos = consensus._parse_ranking(r, 0)
        items = list(agg)  # the union; missing items tie after the last listed one
        last = max(pos.values()) + 1
        p = {x: pos.get(x, last) for x in items}
        d = 0.0
        for i in range(len(items)):
            for j in range(i + 1, len(items)):
                x, y = items[i], items[j]
                s1, s2 = np.sign(p[x] - p[y]), np.sign(pos_agg[x] - pos_agg[y])
                d += abs(s1 - s2) / 2
        assert t.loc[name, "distance to aggregate"] == d
    rs = list(inputs.values())
    assert t.loc["inputs", "kappa"] == consensus.kappa(rs)
    assert t.loc["inputs", "Kendall W"] == consensus.kendall_w(rs, items="union").w
    assert t.loc["inputs + aggregate", "Kendall W"] == consensus.kendall_w(rs + [agg], items="union").w


# --------------------------------------------------------------------------------------------
# the consensus page reads them


def test_consensus_example_refuses_a_ranky_file_without_orientation(tmp_path, capsys):
    from rankbook.book import cli

    path = tmp_path / "m.ranky.csv"
    path.write_text("index,j1,j2,j3\na,1,2,3\nb,2,1,1\nc,3,3,2\n")
    assert cli.main(["run", "consensus_example", "-p", "rankings_csv", str(path)]) == 2
    err = capsys.readouterr().err
    assert "judges in columns" in err and "judges in rows" in err and "ranky-scores-judges-columns" in err


@pytest.mark.slow
@pytest.mark.notebooks
@pytest.mark.parametrize("name, fmt", [("rankaggreg_help_example.rankaggreg.csv", "auto"),
                                       ("ranky_readme_matrix.ranky-scores-judges-columns.csv",
                                        "ranky-scores-judges-rows")])
def test_consensus_example_runs_on_a_tool_file(tmp_path, monkeypatch, capsys, name, fmt):
    import json
    from pathlib import Path

    from rankbook.book import cli, pipeline

    monkeypatch.setattr(pipeline, "runs_dir", lambda root=None: tmp_path / "runs")
    status = cli.main(["run", "consensus_example", "-p", "rankings_csv", str(_formats(name)),
                       "-p", "rankings_format", fmt])
    out = capsys.readouterr()
    assert status == 0, out.err
    folder = Path(out.out.strip().splitlines()[-1])
    nb = json.loads((folder / "consensus_example.ipynb").read_text())
    assert not [o for c in nb["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    shown = (folder / "example_rankings.csv").read_text()
    want = af.read_rankings_file(_formats(name), fmt)["all"]
    assert all(n in shown for n in want) and len(shown.strip().splitlines()) == len(want) + 1


def test_pyflagr_refuses_labels_its_reader_would_split():
    """FLAGR's C reader splits a line at every comma and has no quoting: a label with a comma
    or a quote would be written quoted, read back by rankbook, and split by FLAGR."""
    for label in ("a,b", 'c"d'):
        with pytest.raises(ValueError, match="PyFLAGR cannot hold the label"):
            af.write_pyflagr({"v1": [label, "e"]})
    assert af.write_pyflagr({"v1": ["e f", "g"]}).splitlines()[0] == "1,v1,e f,2,rankbook"


@pytest.mark.parametrize("fmt", ["consrank", "ranky", "pyflagr", "rankaggreg"])
def test_numbers_as_labels_come_back_as_text(tmp_path, fmt):
    """Rankings of numbers round-trip as rankings of their text: ``same_rankings(...,
    as_text=True)`` holds, the plain comparison does not (1 is not "1")."""
    rankings = {"j1": [3, 1, 2], "j2": [1, 2, 3]}
    path = tmp_path / f"x.{fmt}.csv"
    kw = {"ranky": {"judges_axis": 1}}.get(fmt, {})
    getattr(af, f"write_{fmt}")(rankings, path, **kw)
    read = {"ranky": lambda p: af.read_ranky(p, kind="scores", judges_axis=1)["all"],
            "consrank": lambda p: af.read_consrank(p, kind="ranks")["all"],
            "rankaggreg": lambda p: af.read_rankaggreg(p, kind="ordering")["all"],
            "pyflagr": lambda p: af.read_pyflagr(p)["1"]}[fmt](path)
    assert af.same_rankings(rankings, read, as_text=True)
    assert not af.same_rankings(rankings, read)


def test_ranky_refusals_name_the_file_and_the_readings(tmp_path):
    path = tmp_path / "m.ranky.csv"
    path.write_text("index,j1,j2\nc1,0.4,0.8\nc2,0.8,0.7\n")
    with pytest.raises(ValueError, match=r"m\.ranky\.csv: a ranky matrix needs kind"):
        af.read_ranky(path, judges_axis=1)
    with pytest.raises(ValueError, match=r"m\.ranky-scores\.csv: the name says ranky but not how "
                                          r"to read the matrix.*ranky-scores-judges-columns"):
        af.format_of(tmp_path / "m.ranky-scores.csv")


def test_an_aggregate_with_items_no_input_ranks_is_refused():
    with pytest.raises(ValueError, match="the aggregate ranks 1 item that no input ranks: 'X'"):
        af.aggregate_scores({"j1": "abc", "j2": "bac"}, "abX")


def test_an_input_named_like_a_summary_row_is_refused():
    from rankbook import aggregation_formats as F

    for name in ("inputs", "inputs + aggregate"):
        with pytest.raises(ValueError, match=re.escape(f"an input is named '{name}'")):
            F.aggregate_scores({name: "abc", "j2": "bac"}, "abc")
