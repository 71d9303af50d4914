"""The grading rules of Figure 1's claims and Table 2's stability/sensitivity rows
(rankbook.papers.paper_a.figure1, .stability), on small hand-made inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.cluster.hierarchy import linkage
from scipy.stats import binomtest

from rankbook.ledger import claims
from rankbook.papers.paper_a import figure1 as F

EVEN, OTHER, GROUPS = (claims.ledger().claim(i) for i in ("A-F1-even", "A-F1-other", "A-F1-groups"))


def _matrix(upper, names):
    n = len(names)
    m = np.eye(n)
    m[np.triu_indices(n, 1)] = upper
    return pd.DataFrame(np.maximum(m, m.T), index=names, columns=names)


def _runs(mats, n=100, k=30):
    return F.Runs(per_seed=pd.DataFrame(), mats=mats, n=n, n_pairs=50, k=k, options={})


def test_tost_against_scipy_by_hand():
    r = F._tost(195, 228, 0.1, 0.05)
    lo = binomtest(195, 423, 0.4, alternative="greater").pvalue
    hi = binomtest(195, 423, 0.6, alternative="less").pvalue
    assert r["p_equivalence"] == pytest.approx(max(lo, hi))
    assert r["equivalent"] and not r["outside"]
    assert F._tost(20, 60, 0.1, 0.05)["outside"]  # a share of 1/4 lies outside 0.4..0.6
    inconclusive = F._tost(9, 11, 0.1, 0.05)  # too few pairs to show anything
    assert not inconclusive["equivalent"] and not inconclusive["outside"]


def test_even_is_never_holds_from_a_failure_to_reject():
    names = list("abcdefg")
    # 21 pairs: 9 high, 12 low: a binomial test would not reject, equivalence cannot be shown
    upper = np.r_[np.full(9, 0.95), np.full(12, 0.55)]
    ev = F.check_even(EVEN, runs=_runs({0: _matrix(upper, names), 1: _matrix(upper, names)}))
    assert ev.status == "not checkable" and "not contradicted" in ev.detail
    lopsided = np.r_[np.full(2, 0.95), np.full(19, 0.55)]
    assert F.check_even(EVEN, runs=_runs({0: _matrix(lopsided, names),
                                          1: _matrix(lopsided, names)})).status == "false"
    mixed = F.check_even(EVEN, runs=_runs({0: _matrix(upper, names), 1: _matrix(lopsided, names)}))
    assert mixed.status == "false" and "seeds disagree" in mixed.borderline


def test_is_branch_on_a_small_tree():
    # a and b join first, then c, then d far away
    x = np.array([[0.0], [0.1], [0.5], [3.0]])
    Z = linkage(x, "average")
    assert F._is_branch(Z, [0, 1], 4)
    assert F._is_branch(Z, [0, 1, 2], 4)
    assert not F._is_branch(Z, [0, 2], 4)
    assert not F._is_branch(Z, [2, 3], 4)


def test_other_does_not_count_the_page_setting_and_marks_knife_edges():
    rows = []
    for seed in range(10):
        rows.append({"seed": seed, "n": 100, "k": 30, "share": 0.3, "rank_corr": 0.99,
                     "mean_abs_diff": 0.005})
        rows.append({"seed": seed, "n": 20, "k": 6, "share": 0.3, "rank_corr": 0.95,
                     "mean_abs_diff": 0.0502 if seed == 3 else 0.04})
        rows.append({"seed": seed, "n": 20, "k": 2, "share": 0.1, "rank_corr": 0.7,
                     "mean_abs_diff": 0.3})
    grid = pd.DataFrame(rows)
    ev = F.check_other(OTHER, runs=_runs({0: None}), grid=grid)
    assert (ev.matched, ev.total, ev.status) == (1, 2, "false")  # (100, 30) is not a case
    assert ev.failures == ["(20, 2), similar on 0 of 10 seeds"]
    assert "(20, 6) counted similar, similar on 9 of 10 seeds" in ev.borderline
    only_own_and_close = grid[grid["k"] != 2]
    assert F.check_other(OTHER, runs=_runs({0: None}), grid=only_own_and_close).status == "holds"
    with pytest.raises(ValueError, match="no setting other than"):
        F.check_other(OTHER, runs=_runs({0: None}), grid=grid[grid["n"] == 100])


def test_groups_readings_side_by_side():
    names = ["dcg", "ndcg", "mrr", "recall", "precision"]
    groups = {"ranking aware": ["dcg", "ndcg", "mrr"], "set based": ["recall", "precision"]}
    # dcg-ndcg 1, dcg-mrr 0.6, ndcg-mrr 0.6, recall-precision 1, cross pairs 0.55
    upper = [1.0, 0.6, 0.55, 0.55, 0.6, 0.55, 0.55, 0.55, 0.55, 1.0]
    ar = _matrix(upper, names)
    ev = F.check_groups(GROUPS, runs=_runs({0: ar, 1: ar}), groups=groups)
    assert ev.status == "false" and ev.matched == 1 and ev.total == 2
    assert ev.failures[0].startswith("ranking aware")
    assert set(ev.alternatives.values()) <= {1, 2}
    assert F.check_groups(GROUPS.with_params({"high": "1/2"}), runs=_runs({0: ar, 1: ar}),
                          groups=groups).status == "holds"
