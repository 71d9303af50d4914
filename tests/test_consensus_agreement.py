"""Agreement of judges beside kappa (issue 22): Kendall's W against scipy's Friedman test,
the Spearman identity, pairwise tau and the bootstrap interval of kappa over judges."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume as _assume
from hypothesis import given as _given
from hypothesis import settings as _settings
from hypothesis import strategies as _st

from rankbook import consensus
from rankbook.ledger.paths import data_path


# ----------------------------------------------------------------------------------------------
# Kendall's W, pairwise tau and the bootstrap interval of kappa (issue 22)


@_settings(max_examples=80, deadline=None)
@_given(_st.integers(2, 9), _st.integers(3, 9), _st.integers(1, 6), _st.integers(0, 10**6))
def test_kendall_w_equals_the_friedman_relation_with_ties(m, n, levels, seed):
    """W = chi2_F / (m (n - 1)) with chi2_F from scipy.stats.friedmanchisquare (judges are its
    blocks), on random scores with many ties; the chi-square and p-value equal scipy's too."""
    from scipy.stats import friedmanchisquare

    X = np.random.default_rng(seed).integers(0, levels, size=(m, n)).astype(float)
    _assume(not all(len(set(row)) == 1 for row in X))  # every judge tying everything: 0/0
    ref = friedmanchisquare(*X.T)
    got = consensus.kendall_w_scores(X)
    assert got.w == pytest.approx(ref.statistic / (m * (n - 1)), rel=1e-10, abs=1e-12)
    assert got.chi2 == pytest.approx(ref.statistic, rel=1e-10, abs=1e-12)
    assert got.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
    assert 0 <= got.w <= 1 + 1e-12


def test_kendall_w_the_issue_check_and_the_transposed_reading():
    """chi2 = 2 on 2 degrees of freedom with 12 judges gives W = 2 / 24 = 0.0833 (JASP #1473
    printed 0.317, the W of the transposed table)."""
    X = np.array([[3, 2, 1], [3, 1, 2], [3, 1, 2], [2, 1, 3], [3, 2, 1], [1, 2, 3], [2, 3, 1],
                  [3, 1, 2], [3, 2, 1], [2, 3, 1], [2, 1, 3], [1, 3, 2]], dtype=float)
    r = consensus.kendall_w_scores(X)
    assert (r.chi2, r.df, r.m, r.n) == (pytest.approx(2.0), 2, 12, 3)
    assert round(r.w, 4) == 0.0833
    assert consensus.kendall_w_scores(X.T).w != pytest.approx(r.w)


def test_kendall_w_without_ties_and_the_spearman_relation():
    """Without ties the correction is void, and the mean pairwise Spearman correlation equals
    (m W - 1) / (m - 1) (Kendall's identity), an independent check of the formula."""
    from scipy.stats import spearmanr

    rng = np.random.default_rng(5)
    for m, n in [(2, 5), (4, 7), (9, 12)]:
        R = np.array([rng.permutation(n) + 1 for _ in range(m)], dtype=float)
        w = consensus.kendall_w_scores(R)
        assert w.w == pytest.approx(consensus.kendall_w_scores(R, ties=False).w)
        rho = np.mean([spearmanr(R[i], R[j]).statistic for i in range(m) for j in range(i + 1, m)])
        assert rho == pytest.approx((m * w.w - 1) / (m - 1))
    labels = [list("abcdefg")[::-1], list("abcdefg"), list("bacdefg")]
    assert consensus.kendall_w(labels).w == pytest.approx(
        consensus.kendall_w_scores(consensus.rank_matrix(labels)[1]).w)


def test_kendall_w_refuses_bad_input():
    with pytest.raises(ValueError, match="items must be one of"):
        consensus.kendall_w(["ab", "ba"], items="all")
    with pytest.raises(ValueError, match="at least 2 items that every ranking holds; these "
                                         "rankings share 0 .items='common'.; items='union'"):
        consensus.kendall_w(["ab", "cd"])  # no common item
    with pytest.raises(ValueError, match="at least 2 judges and 2 items"):
        consensus.kendall_w(["ab"])
    with pytest.raises(ValueError, match="2-d"):
        consensus.kendall_w_scores([1, 2, 3])
    assert np.isnan(consensus.kendall_w_scores([[1, 1, 1], [2, 2, 2]]).w)


def test_rank_matrix_common_and_union_and_mean_tau():
    from scipy.stats import kendalltau

    R = [["a", "b", "c", "x"], ["c", {"a", "b"}, "y"], ["b", "a", "c"]]
    labels, M = consensus.rank_matrix(R)
    assert labels == ["a", "b", "c"]
    assert M.tolist() == [[1, 2, 3], [2.5, 2.5, 1], [2, 1, 3]]
    labels_u, U = consensus.rank_matrix(R, items="union")
    assert labels_u == ["a", "b", "c", "x", "y"]
    assert U[0].tolist() == [1, 2, 3, 4, 5] and U[2].tolist() == [2, 1, 3, 4.5, 4.5]
    ref = np.mean([kendalltau(M[i], M[j]).statistic for i, j in [(0, 1), (0, 2), (1, 2)]])
    assert consensus.mean_pairwise_tau(R) == pytest.approx(ref)


def test_kappa_bootstrap_resamples_judges_and_duplicates_only_raise_unweighted_kappa():
    R = ["abcdef", "bdcefa", "bcdeghijkf", "badefc", "abcdfe"]
    r = consensus.kappa_bootstrap(R, n_resamples=300, seed=1)
    again = consensus.kappa_bootstrap(R, n_resamples=300, seed=1)
    assert np.array_equal(r.distribution, again.distribution)
    assert r.kappa == consensus.kappa(R)
    assert (r.distribution >= r.kappa).all() and r.share_below == 0 and r.low >= r.kappa
    # a resample with every ranking once gives kappa itself; m!/m^m of them on average
    assert 1 < r.mean_distinct < 5
    idx = np.random.default_rng(1).integers(0, 5, size=(300, 5))
    for row, value in zip(idx[:20], r.distribution[:20]):
        assert value == consensus.kappa([R[i] for i in sorted(set(row))])
    w = consensus.kappa_bootstrap(R, gamma=0.5, lam=0.5, n_resamples=200, seed=1)
    assert w.low <= w.high and w.kappa == pytest.approx(consensus.kappa(R, 0.5, 0.5))


def test_agreement_summary_on_paper_b_lists():
    groups = consensus.read_rankings_csv(data_path("rankings", "paper_b_table_v_search.csv"))
    sets = {g: list(named.values()) for g, named in groups.items()}
    t = consensus.agreement_summary(sets, n_resamples=100).set_index("set")
    assert t.loc["Google", "common items"] == 7 and t.loc["Bing", "common items"] == 8
    for g in ("Google", "Bing"):
        assert t.loc[g, "kappa"] == consensus.kappa(sets[g])
        assert t.loc[g, "W (common)"] == pytest.approx(consensus.kendall_w(sets[g]).w)
        assert 0 < t.loc[g, "W (union)"] < 1


def test_tie_groups_read_the_same_under_every_hash_seed():
    """A set has no order and str hashes change per process (CI failed on this once): the
    labels rank_matrix returns, and so every table built from them, must not depend on it."""
    import subprocess
    import sys

    code = ("from rankbook.consensus import rank_matrix; "
            "print(rank_matrix([['a', {'b', 'c', 'e', 'f'}, 'd'], ['b', 'a', 'c', 'e', 'f']])[0])")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**__import__("os").environ, "PYTHONHASHSEED": str(seed)}).stdout
            for seed in range(6)}
    assert outs == {"['a', 'b', 'c', 'e', 'f']\n"}
