"""The tie-group notation: sets inside a list, braces in text (parse_ranking), in rankings files
and on the command line."""

from __future__ import annotations

import pytest

from rankbook import consensus
from rankbook.book import specs
from rankbook.ties import check_ranking_texts, parse_ranking, tie_breakings


def test_parse_and_format_are_inverse():
    for text in ["a {b c} d", "red {blue green} yellow", "{a b} c", "a"]:
        assert consensus.format_ranking(parse_ranking(text)) == text
    assert parse_ranking("a{bc}d") == parse_ranking("a {b c} d") == ["a", {"b", "c"}, "d"]
    assert parse_ranking("{a}b") == ["a", "b"]  # a group of one is that item


@pytest.mark.parametrize("text, words", [
    ("a{b", ["never closed"]),
    ("a}b", ["closes no group"]),
    ("a{b{c}}", ["cannot nest"]),
    ("a{}b", ["empty tie group"]),
    ("a{ba}", ["'a' occurs more than once"]),
])
def test_bad_text_is_refused(text, words):
    with pytest.raises(ValueError) as info:
        parse_ranking(text)
    for w in words:
        assert w in str(info.value)


def test_tie_breakings_enumerate_every_order():
    assert len(tie_breakings("a{bcd}{ef}")) == 12
    assert tie_breakings(["x", {2, 1}]) == [["x", 1, 2], ["x", 2, 1]]
    with pytest.raises(ValueError, match="more than the limit"):
        tie_breakings([set(range(9))], limit=1000)


def test_consensus_reads_braces_in_str_rankings():
    tied = consensus.kappa(["a{bc}d", "abcd"])
    assert tied == consensus.kappa([["a", {"b", "c"}, "d"], "abcd"])
    with pytest.raises(ValueError, match=r"rankings\[0\].*never closed"):
        consensus.kappa(["a{bc", "abc"])


def test_rankings_file_with_brace_groups(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("name,1,2,3,4\nx,a,{b,c},d\ny,{a|b},c,d,\nz,a,b|c,d,\n")
    got = consensus.read_rankings_csv(path)["all"]
    assert got["x"] == ["a", frozenset("bc"), "d"]
    assert got["y"] == [frozenset("ab"), "c", "d"]
    assert got["z"] == ["a", frozenset("bc"), "d"]
    for row, words in [("x,a,{b,c,d", "never closed"), ("x,a,b,c},d", "never opened"),
                       ("x,{a,{b,c},d", "inside another"), ("x,{a,,b},d", None)]:
        path.write_text("name,1,2,3,4\n" + row + "\n")
        with pytest.raises(ValueError) as info:
            consensus.read_rankings_csv(path)
        assert "line 2" in str(info.value)
        if words:
            assert words in str(info.value)


def test_command_line_checks_the_notation_before_any_kernel():
    spec = next(s for s in specs.discover() if s.name == "consensus_example")
    assert specs.resolve_parameters(spec, [("rankings", "a{bc}d,bcad")])["rankings"] == ["a{bc}d", "bcad"]
    with pytest.raises(specs.ParameterError, match="never closed"):
        specs.resolve_parameters(spec, [("rankings", "a{bc,bcad")])
    rbo_spec = next(s for s in specs.discover() if s.name == "rbo_bounds")
    assert specs.resolve_parameters(rbo_spec, [("S_ties", "a{bc}d")])["S_ties"] == "a{bc}d"
    with pytest.raises(specs.ParameterError, match="takes a tie-free list"):
        specs.resolve_parameters(rbo_spec, [("S", "a{bc}d")])
    check_ranking_texts(["abc", "a {b c}"])
