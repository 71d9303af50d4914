"""Orientation guards of the aggregation formats (issue 37, item 3).

A ConsRank file written transposed (items as rows, judges as columns) was read without a word
as rankings of the judges, and ``rankbook run consensus_example`` published kappa of the wrong
objects. Here every format is written transposed from known rankings: each file is refused,
naming both readings, unless the orientation is stated, and then it reads back the rankings it
was made from.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import aggregation_formats as af
from rankbook.book import cli, specs

#: Five judges over four items, strict: four rotations of abcd and abcd again, so each item
#: takes every place 1..4 from some judge.
JUDGES = {"j1": list("abcd"), "j2": list("bcda"), "j3": list("cdab"), "j4": list("dabc"),
          "j5": list("abcd")}


def rank_of(ranking, item):
    return ranking.index(item) + 1


def transposed_file(fmt: str, folder, name: str | None = None):
    """The rankings of :data:`JUDGES` written the other way round, as a user who mixed up the
    axes writes them, under the format's own file name."""
    items = sorted({x for r in JUDGES.values() for x in r})
    judges = list(JUDGES)
    if fmt == "consrank":  # one row per item, one column per judge
        text = "," + ",".join(judges) + "\n" + "".join(
            f"{x}," + ",".join(str(rank_of(JUDGES[j], x)) for j in judges) + "\n" for x in items)
        path = folder / (name or "t.consrank.csv")
    elif fmt == "rankaggreg":  # one column per judge, its ordering from the top row down
        text = "," + ",".join(judges) + "\n" + "".join(
            f"V{i + 1}," + ",".join(JUDGES[j][i] for j in judges) + "\n" for i in range(len(items)))
        path = folder / (name or "t.rankaggreg.csv")
    elif fmt == "pyflagr":  # Voter and Item swapped
        lines = [f"1,{x},{j},{len(items) + 1 - rank_of(JUDGES[j], x)},ds"
                 for j in judges for x in items]
        text = "\n".join(lines) + "\n"
        path = folder / (name or "t.pyflagr.csv")
    elif fmt == "corankco":  # one line per item, its buckets grouping the judges by place
        lines = []
        for x in items:
            places = sorted({rank_of(JUDGES[j], x) for j in judges})
            buckets = [[j for j in judges if rank_of(JUDGES[j], x) == p] for p in places]
            lines.append(f"{x}: [" + ", ".join("[" + ", ".join(b) + "]" for b in buckets) + "]")
        text = "\n".join(lines) + "\n"
        path = folder / (name or "t.corankco")
    elif fmt == "ranky":  # judges as rows, where ranky's layout has them as columns
        text = af.write_ranky(JUDGES, kind="scores", judges_axis=0)
        path = folder / (name or "t.ranky.csv")
    else:
        raise AssertionError(fmt)
    path.write_text(text)
    return path


FORMATS = ["consrank", "rankaggreg", "pyflagr", "corankco", "ranky"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_transposed_file_is_refused_with_both_readings(tmp_path, fmt):
    path = transposed_file(fmt, tmp_path)
    with pytest.raises(ValueError) as err:
        af.read_rankings_file(path)
    message = str(err.value)
    assert str(path) in message and "\n" not in message
    if fmt == "ranky":  # ranky always needed its orientation stated
        assert "judges in columns" in message and "judges in rows" in message
        return
    assert "reads better transposed" in message and "reads two ways" in message
    assert "transposed (" in message and "as-written" in message


@pytest.mark.parametrize("fmt", ["consrank", "rankaggreg", "pyflagr"])
def test_a_transposed_file_reads_as_stated(tmp_path, fmt):
    path = transposed_file(fmt, tmp_path)
    for got in (af.read_rankings_file(path, f"{fmt}-transposed"),
                af.read_rankings_file(transposed_file(fmt, tmp_path,
                                                      f"t.{fmt}-transposed.csv"))):
        assert list(got) == (["1"] if fmt == "pyflagr" else ["all"])
        named = next(iter(got.values()))
        assert list(named) == list(JUDGES)
        assert af.same_rankings(named, JUDGES)
    reader = {"consrank": af.read_consrank, "rankaggreg": af.read_rankaggreg,
              "pyflagr": af.read_pyflagr}[fmt]
    assert af.same_rankings(next(iter(reader(path, transposed=True).values())), JUDGES)
    # read as written when the user says so: the other objects (RankAggreg's rows repeat
    # items, which no ordering does: refused as any such file is)
    if fmt == "rankaggreg":
        with pytest.raises(ValueError, match="ranking 'V1' repeats item 'a'"):
            af.read_rankings_file(path, f"{fmt}-as-written")
        return
    as_written = next(iter(af.read_rankings_file(path, f"{fmt}-as-written").values()))
    assert not af.same_rankings(as_written, JUDGES)


def test_ranky_and_corankco_read_as_stated(tmp_path):
    ranky = transposed_file("ranky", tmp_path, "t.ranky-scores-judges-rows.csv")
    assert af.same_rankings(af.read_rankings_file(ranky)["all"], JUDGES)
    path = transposed_file("corankco", tmp_path)
    with pytest.raises(ValueError, match="cannot be read transposed"):
        af.read_corankco(path, transposed=True)
    written = af.read_rankings_file(path, "corankco-as-written")["all"]
    assert list(written) == ["a", "b", "c", "d"]  # one ranking per line, as the user said


@pytest.mark.parametrize("fmt", ["consrank", "rankaggreg", "pyflagr", "corankco"])
def test_the_formats_own_layout_is_never_refused(tmp_path, fmt):
    writer = {"consrank": af.write_consrank, "rankaggreg": af.write_rankaggreg,
              "pyflagr": af.write_pyflagr, "corankco": af.write_corankco}[fmt]
    path = tmp_path / {"corankco": "x.corankco"}.get(fmt, f"x.{fmt}.csv")
    writer(JUDGES, path)
    got = next(iter(af.read_rankings_file(path).values()))
    assert af.same_rankings(got, JUDGES)


@given(st.lists(st.permutations(list("abcde")), min_size=1, max_size=7),
       st.sampled_from(["consrank", "rankaggreg", "pyflagr", "corankco"]))
@settings(max_examples=120, deadline=None)
def test_a_file_in_its_own_layout_reads_back_or_is_refused_naming_both(tmp_path_factory, rs, fmt):
    """Rankings in the format's own layout read back as written, or (when the shape fits the
    other orientation as well) are refused naming both readings; stated as written, they
    always read back."""
    folder = tmp_path_factory.mktemp("own")
    rankings = {f"j{i + 1}": r for i, r in enumerate(rs)}
    writer = {"consrank": af.write_consrank, "rankaggreg": af.write_rankaggreg,
              "pyflagr": af.write_pyflagr, "corankco": af.write_corankco}[fmt]
    path = folder / {"corankco": "x.corankco"}.get(fmt, f"x.{fmt}.csv")
    writer(rankings, path)
    try:
        got = next(iter(af.read_rankings_file(path).values()))
        assert af.same_rankings(got, rankings)
    except ValueError as exc:
        assert "reads two ways" in str(exc)
    got = next(iter(af.read_rankings_file(path, f"{fmt}-as-written").values()))
    assert af.same_rankings(got, rankings)


def test_the_issues_command_is_refused_before_any_kernel(tmp_path, monkeypatch, capsys):
    """``rankbook run consensus_example -p rankings_csv t.consrank.csv`` exited 0 with kappa
    of the wrong objects; now it exits 2 in one line, and stating the orientation passes the
    checks (the notebook reads the file as its ``rankings_format`` says)."""
    path = transposed_file("consrank", tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", "consensus_example", "-p", "rankings_csv", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "reads better transposed" in err and "consrank-transposed" in err
    spec = specs.find("consensus_example")
    values = specs.resolve_parameters(spec, [("rankings_csv", str(path)),
                                             ("rankings_format", "consrank-transposed")])
    assert values["rankings_format"] == "consrank-transposed"
