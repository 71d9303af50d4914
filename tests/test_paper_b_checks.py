"""rankbook.papers.paper_b.checks: the brute force and the literal Theorem 1 that paper B's verdicts rest on.

The brute force is checked on counts known in closed form, and the literal Theorem 1, the
corollaries and rankbook.consensus are checked against it on random inputs (hypothesis), so that
a verdict of the Theorem 1 page cannot pass because two copies of one mistake agree.
"""

from __future__ import annotations

import io
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import consensus
from rankbook.papers.paper_b import checks as pb
from rankbook.ledger.paths import data_path

EXAMPLE_1 = ["abcdef", "bdcefa", "bcdeghijkf", "badefc"]


def test_brute_force_matches_closed_forms():
    # one ranking of n items: every non-empty subset, 2^n - 1
    for n in range(1, 8):
        assert pb.brute_force_kappa_p([list(range(n))]).sum() == 2 ** n - 1
        # kappa_p of one ranking is the binomial coefficient
        assert pb.brute_force_kappa_p([list(range(n))]).tolist() == [math.comb(n, p) for p in range(1, n + 1)]
    # a ranking and its reverse share only the single items
    assert pb.brute_force_kappa_p(["abcde", "edcba"]).tolist() == [5.0]
    # tie groups of sizes t_i: prod(1 + t_i) - 1 under the strict reading
    assert pb.brute_force_kappa_p([["a", {"b", "c"}, {"d", "e", "f"}]]).sum() == 2 * 3 * 4 - 1
    # nothing in common
    assert pb.brute_force_kappa_p(["ab", "cd"]).size == 0


def test_the_either_reading_counts_every_order_of_a_tie():
    # one ranking a{bc}: a, b, c, ab, ac, bc, cb, abc, acb
    got = {"".join(s) for s in pb.brute_force_subsequences([["a", {"b", "c"}]], ties="either")}
    assert got == {"a", "b", "c", "ab", "ac", "bc", "cb", "abc", "acb"}
    with pytest.raises(ValueError, match="unknown tie reading"):
        pb.brute_force_subsequences(["ab"], ties="maybe")


def test_example_1_literally():
    A = pb.theorem_1_matrix(EXAMPLE_1)
    assert pb.theorem_1_counts(A).tolist() == [5.0, 7.0, 4.0, 1.0]
    assert pb.corollary_1_length(A) == 4 and pb.corollary_2_kappa(A) == 17.0
    # every base gives the same counts, though n = |r_x| differs
    for b in range(4):
        Ab = pb.theorem_1_matrix(EXAMPLE_1, b)
        assert Ab.shape[0] == len(EXAMPLE_1[b])
        assert pb.corollary_2_kappa(Ab) == 17.0
    with pytest.raises(ValueError, match="base must be the index"):
        pb.theorem_1_matrix(EXAMPLE_1, 4)


def test_the_printed_matrices_are_read_and_all_180_entries_reproduce():
    published = pb.read_published_matrices(data_path("published", "paper_b", "example_1_matrices.csv"))
    assert list(published) == ["A", "L", "L^2", "L^3", "L^4"]
    table = pb.compare_matrices(pb.library_matrices(EXAMPLE_1), published)
    assert len(table) == 180 and table.match.all()
    # Section IV-A's r3 (no e) changes exactly the entries that involve e
    alt = pb.compare_matrices(pb.library_matrices(["abcdef", "bdcefa", "bcdghijklf", "badefc"]), published)
    assert int((~alt.match).sum()) == 11
    assert set(alt.loc[~alt.match & (alt.matrix == "A"), ["row", "column"]].itertuples(index=False)) == {
        ("e", "b"), ("e", "d"), ("e", "e"), ("f", "e")}


def test_readers_refuse_malformed_input():
    with pytest.raises(ValueError, match="rows .* must be the items"):
        pb.read_published_matrices(io.StringIO("matrix,row,a,b\nA,b,1,0\nA,a,0,1\n"))
    with pytest.raises(ValueError, match="header must be matrix,row"):
        pb.read_published_matrices(io.StringIO("name,a,b\nA,1,0\n"))
    with pytest.raises(ValueError, match="not a number"):
        pb.read_published_matrices(io.StringIO("matrix,row,a,b\nA,a,x,0\nA,b,0,1\n"))
    with pytest.raises(ValueError, match="given twice"):
        pb.read_published_values(io.StringIO("quantity,value\nk,1\nk,2\n"))
    with pytest.raises(ValueError, match="no 'quantity' column"):
        pb.read_published_values(io.StringIO("name,value\nk,1\n"))
    with pytest.raises(ValueError, match="no such file"):
        pb.read_published_values("/nonexistent/file.csv")


def test_the_proof_counts_subsequences_from_the_column_item():
    t = pb.proof_entry_counts(EXAMPLE_1)
    assert (t["entry"] == t["begin with column item"]).all()
    assert not (t["entry"] == t["begin with row item"]).any()


def test_eq7_with_the_printed_feature_weights_raises_each_weight_to_the_power_n():
    t = pb.eq7_as_printed(["abc", "abc", "abc"], 0.5)  # gaps 1, 1, 2: ab, bc, ac; abc
    assert t["theorem 1"].tolist() == [0.5 + 0.5 + 0.25, 0.25]
    assert t["eq. (7) as printed"].tolist() == [0.5 ** 3 * 2 + 0.25 ** 3, 0.25 ** 3]


def test_the_topk_remark_fails_on_the_paper_example_and_holds_where_it_should():
    t = pb.topk_remark_cases(EXAMPLE_1, range(1, 11), 0.9)
    assert t[~t.holds][["zeta", "item"]].values.tolist() == [[9.0, "f"]]
    # an item after the cut-off in every ranking always gets weight 0
    far = pb.topk_remark_cases(["abc", "abc"], [1], 0.9)
    assert far.holds.all() and set(far["item"]) == {"b", "c"}


def test_top_and_bottom_swaps_cost_kappa_the_same():
    t = pb.top_bottom_swap(6, [1.0, 0.6], [1.0, 0.6])
    assert np.allclose(t["kappa top"], t["kappa bottom"])
    assert (t["top-k kappa_1 top"] < t["top-k kappa_1 bottom"]).all()


def test_cases_are_what_they_say():
    cases = pb.exhaustive_cases(3)
    fam = pd.Series([f for f, _ in cases]).value_counts()
    assert fam["full"] == 6 * 7 // 2 and fam["full, three rankings"] == 216
    assert fam["partial"] == 15 * 16 // 2  # 3 + 6 + 6 partial rankings of 3 items
    # 13 rankings with ties of all 3 items, 6 without: pairs with at least one tie
    assert fam["ties"] == 13 * 14 // 2 - 6 * 7 // 2
    assert pb.random_cases(3, 5) == pb.random_cases(3, 5)  # seeded
    with pytest.raises(ValueError, match="n must be an integer"):
        pb.exhaustive_cases(7)


def test_check_cases_finds_a_planted_error(monkeypatch):
    """The harness is not a tautology: a wrong library result is reported."""
    real = consensus.kappa_p

    def off_by_one(rankings, *args, **kwargs):
        return real(rankings, *args, **kwargs) + 1

    monkeypatch.setattr(consensus, "kappa_p", off_by_one)
    row = pb.check_case(["abc", "acb"])
    assert row["library"] is False and "rankbook.consensus" in row["why"]
    assert row["theorem_1"] is True  # the literal theorem does not use the library


_ITEMS = "abcdef"


@st.composite
def ranking_sets(draw):
    n_rankings = draw(st.integers(2, 4))
    out = []
    for _ in range(n_rankings):
        items = draw(st.permutations(_ITEMS))
        keep = draw(st.integers(1, len(items)))
        cuts = draw(st.lists(st.booleans(), min_size=keep, max_size=keep))
        groups: list[list] = []
        for x, tie in zip(items[:keep], cuts):
            if groups and tie:
                groups[-1].append(x)
            else:
                groups.append([x])
        out.append([g[0] if len(g) == 1 else frozenset(g) for g in groups])
    return out


@settings(max_examples=150, deadline=None)
@given(ranking_sets(), st.sampled_from([(1.0, 1.0), (0.8, 0.7), (0.5, 0.9)]),
       st.sampled_from(["std", "mad", "sqrt_mad"]))
def test_theorem_corollaries_and_library_agree_with_brute_force(rankings, weights, deviation):
    gamma, lam = weights
    row = pb.check_case(rankings, gamma, lam, deviation=deviation)
    assert row["theorem_1"] and row["corollary_1"] and row["corollary_2"] and row["library"], row["why"]


@settings(max_examples=60, deadline=None)
@given(ranking_sets())
def test_the_either_reading_never_counts_fewer(rankings):
    strict = pb.brute_force_kappa_p(rankings).sum()
    either = pb.brute_force_kappa_p(rankings, ties="either").sum()
    assert either >= strict
    has_tie = any(isinstance(g, frozenset) for r in rankings for g in r)
    if not has_tie:
        assert either == strict


def test_every_subsequence_brute_force_finds_is_a_subsequence_of_every_ranking():
    rankings = ["abcdefg", "bacdgfe", "abdcefg"]
    for seq in pb.brute_force_subsequences(rankings):
        for r in rankings:
            it = iter(r)
            assert all(x in it for x in seq)  # consumes the iterator: order is respected
    # and nothing is missed: every ordered subset of the first ranking is tested
    found = {tuple(s) for s in pb.brute_force_subsequences(rankings)}
    for k in range(1, 8):
        for combo in itertools.combinations("abcdefg", k):
            inside = all(all(x in iter_ for x in combo) for iter_ in (iter(r) for r in rankings))
            assert (combo in found) == inside
