"""Tests for rankbook.clustering: the adjusted Rand index against scikit-learn, induced rankings
from their definition, distances against a brute-force count of discordant pairs, and the
clusters of metrics that are monotone functions of each other."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import adjusted_rand_score

from rankbook import clustering as C
from rankbook import metrics as M
from rankbook import permutations as P
from rankbook.papers.paper_a.tables import FIGURE1_GROUPS


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3)), min_size=1, max_size=40))
def test_adjusted_rand_index_matches_scikit_learn(pairs):
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    assert C.adjusted_rand_index(a, b) == pytest.approx(adjusted_rand_score(a, b), abs=1e-12)


def test_adjusted_rand_index_extremes_and_refusals():
    assert C.adjusted_rand_index(list("aabb"), [3, 3, 7, 7]) == 1.0
    assert C.adjusted_rand_index([1, 1, 1], [2, 2, 2]) == 1.0
    assert C.adjusted_rand_index([1], [2]) == 1.0
    with pytest.raises(ValueError, match="different lengths, 3 and 2"):
        C.adjusted_rand_index([1, 2, 3], [1, 2])


def test_induced_rankings_follow_the_definition():
    names = ["mse", "recall", "lr_plus", "ndcg", "mrr"]
    n, T, k = 12, 40, 4
    R = C.induced_rankings(names, n, T, k=k, seed=3)
    assert R.shape == (5, T) and (np.sort(R, axis=1) == np.arange(1, T + 1)).all()
    sample = P.random(n, T, rng=3)
    for row, m in zip(R, names):
        x = np.asarray(M.evaluate(m, P.identity(n), sample, k=k))
        closer = -x if M.REGISTRY[m].higher_is_closer else x
        order = row - 1
        keys = [(np.isnan(x[t]), np.nan_to_num(closer[t], nan=np.inf), t) for t in order]
        assert keys == sorted(keys), m


def test_distances_count_discordant_pairs_by_brute_force():
    names = ["kendall_tau", "mae", "recall", "dcg", "gmr"]
    r = C.cluster_metrics(names, n=10, n_rankings=30, k=3, seed=1, n_clusters=2)
    R = C.induced_rankings(names, 10, 30, k=3, seed=1)
    pos = np.argsort(R, axis=1)  # position of each sample element in each induced ranking
    for i, j in itertools.combinations(range(len(names)), 2):
        disc = sum((pos[i, s] < pos[i, t]) != (pos[j, s] < pos[j, t])
                   for s, t in itertools.combinations(range(30), 2))
        assert r.distances.iloc[i, j] == pytest.approx(disc / (30 * 29 / 2), abs=1e-15)
    assert (np.diag(r.distances) == 0).all() and (r.distances == r.distances.T).all().all()


def test_monotone_equivalent_metrics_share_a_cluster_at_distance_zero():
    """Functions of TP (the confusion metrics), of the squared differences (MSE, RMSE, R2,
    Spearman) and DCG / nDCG order any sample identically."""
    r = C.cluster_metrics(list(M.NAMES), n=40, n_rankings=300, k=12, seed=0, n_clusters=3)
    d = r.distances
    conf = [m for m in M.NAMES if M.REGISTRY[m].family == "confusion"]
    assert (d.loc[conf, conf].to_numpy() == 0).all()
    sq = ["mse", "rmse", "r2", "spearman_rho"]
    assert (d.loc[sq, sq].to_numpy() == 0).all()
    assert d.loc["dcg", "ndcg"] == 0
    assert len({r.labels[m] for m in conf}) == 1
    assert sorted(len(c) for c in r.clusters()) == sorted(r.labels.value_counts().tolist())


def test_group_labels_recovered_groups_and_contingency():
    names = list(M.NAMES)
    g = C.group_labels(FIGURE1_GROUPS, names)
    assert g.value_counts().to_dict() == {k: len(v) for k, v in FIGURE1_GROUPS.items()}
    same = {m: list(FIGURE1_GROUPS).index(g[m]) for m in names}
    assert C.recovered_groups(same, FIGURE1_GROUPS) == {k: True for k in FIGURE1_GROUPS}
    table = C.contingency_table(pd_series(same), g)
    assert table.to_numpy().sum() == 33 and (table.to_numpy() > 0).sum() == 3
    assert C.adjusted_rand_index(list(same.values()), g) == 1.0
    with pytest.raises(ValueError, match="not in any group: nope"):
        C.group_labels(FIGURE1_GROUPS, names + ["nope"])


def pd_series(d):
    import pandas as pd

    return pd.Series(d)


def test_refusals():
    with pytest.raises(ValueError, match="unknown metric 'hamming'"):
        C.induced_rankings(["hamming"], 5, 10)
    with pytest.raises(ValueError, match="n_rankings must be an integer >= 2"):
        C.induced_rankings(["mse"], 5, 1)
    with pytest.raises(ValueError, match="method must be one of 'average', 'complete', 'single', 'weighted' .*; got 'ward'"):
        C.cluster_metrics(["mse", "mae"], 5, 10, method="ward")
    with pytest.raises(ValueError, match="n_clusters=3 is more than the 2 metrics"):
        C.cluster_metrics(["mse", "mae"], 5, 10, n_clusters=3)


def test_cut_height_and_labels_at_agree_with_scipy():
    from scipy.cluster.hierarchy import fcluster

    r = C.cluster_metrics(list(M.NAMES), n=30, n_rankings=200, k=9, seed=2, n_clusters=3)
    for c in range(1, 8):
        labels = r.labels_at(c)
        assert labels.nunique() == c or c > len(np.unique(r.linkage[:, 2])) + 1
        assert C.adjusted_rand_index(labels, fcluster(r.linkage, c, "maxclust")) == 1.0
    by_height = fcluster(r.linkage, r.cut_height(), criterion="distance")
    assert C.adjusted_rand_index(by_height, r.labels) == 1.0
    assert C.adjusted_rand_index(r.labels_at(3), r.labels) == 1.0
