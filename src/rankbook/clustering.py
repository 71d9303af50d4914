"""Clustering the metrics by the orders they put a sample in, and comparing two partitions.

Each metric m orders a sample T of rankings nu_1, ..., nu_T by how close it finds them to a
reference sigma (the identity, as in Figure 1 of ``paperA``, Section 5.1): the *induced
ranking* of m lists the sample from the closest, ``m(sigma, nu_t)`` largest for a metric whose
``higher_is_closer`` is True and smallest otherwise, to the farthest. Two metrics are close
when they put the sample in nearly the same order; their distance is the Kendall distance
between the two induced rankings, the share of the C(T, 2) pairs of sample elements that the
two order differently (NDPM of the two rankings, computed for all pairs of metrics at once by
:func:`rankbook.pairwise.pairwise`). Average-linkage hierarchical clustering of that matrix
(``scipy.cluster.hierarchy``) groups the metrics; :func:`contingency_table` and
:func:`adjusted_rand_index` compare the groups with another partition, such as the split of
Figure 1 (right) of ``paperA`` (:data:`rankbook.papers.paper_a.tables.FIGURE1_GROUPS`).

Ties and undefined values
-------------------------
Many metrics take few distinct values on a sample (a confusion-matrix metric depends only on
TP, which takes at most k + 1 values), so their induced orders have long runs of ties. Ties are
broken by the order in which the sample was drawn, the same for every metric: two metrics that
tie the same elements get identical induced rankings (distance 0), and a pair of elements tied
by one metric and ordered by the other counts as discordant about half the time, as in Kendall's
tau with ties counted half. Undefined values (nan, e.g. LR+ when FPR = 0) come last.

The distance is 1 minus an agreement ratio in the sense of Definition 2 of ``paperA`` (the pairs
of sample elements that two metrics order alike), with ties handled as above and without the
paper's reversal of a metric: the orientation comes from ``higher_is_closer`` instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np
import pandas as pd

from . import metrics as _metrics
from . import permutations as _perm
from ._validation import check_choice, check_int
from .pairwise import pairwise

__all__ = ["induced_rankings", "MetricClusters", "cluster_metrics", "group_labels",
           "contingency_table", "adjusted_rand_index", "recovered_groups", "LINKAGES"]

#: The linkage methods :func:`cluster_metrics` accepts (``scipy.cluster.hierarchy.linkage``
#: methods that need no coordinates).
LINKAGES = ("average", "complete", "single", "weighted")


def _check_int(value, name, lo):
    return check_int(value, name, low=lo)


def induced_rankings(names: Sequence[str], n: int, n_rankings: int, *, k: Optional[int] = None,
                     seed: int = 0) -> np.ndarray:
    """The ranking of a random sample that each metric induces, closest element first.

    The sample is ``n_rankings`` uniformly random rankings nu_t of n items
    (``rankbook.permutations.random(n, n_rankings, rng=seed)``), each compared with the identity.
    Row m of the result is a permutation of 1..n_rankings in one-line notation: entry p is the
    (1-based) index in the sample of the element metric m puts at position p. Ties keep the
    order of the sample, nan comes last (module docstring).

    Parameters
    ----------
    names : sequence of str
        Metric names of :data:`rankbook.metrics.NAMES`.
    n, n_rankings : int
        Items per ranking (at least 2) and sample size (at least 2).
    k : int, optional
        The cut-off of the metrics that need one; default ``max(1, round(0.3 n))``, Figure 1's
        ratio (k = 30 at n = 100).
    seed : int

    Returns
    -------
    ndarray of int64, shape (len(names), n_rankings)

    Examples
    --------
    Recall ties the sample elements 1, 2 and 4 (one relevant item retrieved each); they keep
    the order of the sample.

    >>> induced_rankings(["mse", "rmse", "recall"], n=6, n_rankings=5, k=3).tolist()
    [[3, 1, 2, 5, 4], [3, 1, 2, 5, 4], [3, 1, 2, 4, 5]]
    """
    names = list(names)
    for m in names:
        if m not in _metrics.REGISTRY:
            raise _metrics._unknown(m)
    n = _check_int(n, "n", 2)
    n_rankings = _check_int(n_rankings, "n_rankings", 2)
    seed = _check_int(seed, "seed", 0)
    if k is None:
        k = max(1, round(0.3 * n))
    sample = _perm.random(n, n_rankings, rng=seed)
    values = _metrics.evaluate_many(names, _perm.identity(n), sample, k=k)
    out = np.empty((len(names), n_rankings), dtype=np.int64)
    for row, m in enumerate(names):
        x = np.asarray(values[m], dtype=np.float64)
        key = -x if _metrics.REGISTRY[m].higher_is_closer else x
        key = np.where(np.isnan(key), np.inf, key)
        nan_last = np.isnan(x)
        out[row] = np.lexsort((np.arange(n_rankings), key, nan_last)) + 1
    return out


@dataclass(frozen=True)
class MetricClusters:
    """What :func:`cluster_metrics` found.

    Attributes
    ----------
    names : tuple of str
        The metrics, in the order of the rows of ``distances``.
    distances : pandas.DataFrame
        Kendall distances between the induced rankings (share of discordant pairs), symmetric
        with a zero diagonal.
    linkage : ndarray
        The ``scipy.cluster.hierarchy.linkage`` matrix (for a dendrogram).
    labels : pandas.Series
        Cluster number (1, 2, ...) of each metric when the tree is cut into ``n_clusters``.
    n, n_rankings, k, seed, method, n_clusters
        The settings.
    """

    names: tuple
    distances: pd.DataFrame
    linkage: np.ndarray
    labels: pd.Series
    n: int
    n_rankings: int
    k: int
    seed: int
    method: str
    n_clusters: int

    def labels_at(self, n_clusters: int) -> pd.Series:
        """The cluster of each metric when the same tree is cut into ``n_clusters`` clusters."""
        from scipy.cluster.hierarchy import fcluster

        n_clusters = _check_int(n_clusters, "n_clusters", 1)
        if n_clusters > len(self.names):
            raise ValueError(f"n_clusters={n_clusters} is more than the {len(self.names)} metrics")
        return pd.Series(fcluster(self.linkage, n_clusters, criterion="maxclust"),
                         index=list(self.names), name="cluster")

    def branches(self) -> list:
        """Every branch (clade) of the tree as a frozenset of names: each leaf, each merge, the
        root. A set of metrics is a branch when its members join each other before any of them
        joins another metric."""
        from scipy.cluster.hierarchy import to_tree

        _, nodes = to_tree(self.linkage, rd=True)
        return [frozenset(self.names[i] for i in node.pre_order()) for node in nodes]

    def is_branch(self, members) -> bool:
        """Whether ``members`` is exactly one branch of the tree (at any height, so no number
        of clusters has to be chosen)."""
        return frozenset(members) in set(self.branches())

    def cut_height(self) -> float:
        """A distance at which cutting the tree leaves ``n_clusters`` clusters: halfway between
        the last merge kept and the first merge undone (0 below the first merge)."""
        h = self.linkage[:, 2]
        m = len(h)  # merges: one fewer than the leaves
        undone = m - (self.n_clusters - 1)  # index of the first merge above the cut
        lo = float(h[undone - 1]) if undone >= 1 else 0.0
        hi = float(h[undone]) if undone < m else lo
        return (lo + hi) / 2

    def clusters(self) -> list:
        """The clusters as lists of metric names, in the order of their first member."""
        out: dict = {}
        for m, c in self.labels.items():
            out.setdefault(c, []).append(m)
        return list(out.values())


def cluster_metrics(names: Sequence[str], n: int, n_rankings: int, *, k: Optional[int] = None,
                    seed: int = 0, n_clusters: int = 3, method: str = "average") -> MetricClusters:
    r"""Cluster metrics by the Kendall distance between the rankings they induce on a sample.

    .. math::

        d(m_1, m_2) = \frac{1}{\binom{T}{2}} \#\{\{s, t\} : m_1, m_2 \text{ order } \nu_s,
        \nu_t \text{ differently}\}

    with the induced rankings of :func:`induced_rankings`; ``d`` is NDPM (``yao1995ndpm``) of
    the two induced rankings, computed by :func:`rankbook.pairwise.pairwise` (an O(T log T)
    inversion count per pair of metrics). The tree is ``scipy.cluster.hierarchy.linkage`` of the
    condensed distances with ``method``, cut into ``n_clusters`` clusters (``fcluster`` with
    ``maxclust``). Compare with ``paperA``, Figure 1 (right).

    Parameters
    ----------
    names : sequence of str
        Metrics of :data:`rankbook.metrics.NAMES` to cluster.
    n : int
        Length of the sampled rankings.
    n_rankings : int
        Size T of the sample (at least 2).
    k : int, optional
        The cut-off of the metrics that need one.
    seed : int
        Seed of the sample.
    n_clusters : int
        Number of clusters the tree is cut into.
    method : str
        Linkage method of ``scipy.cluster.hierarchy.linkage`` (one of :data:`LINKAGES`).

    Returns
    -------
    MetricClusters
        The distances, the linkage matrix, the cluster labels and the settings.

    Examples
    --------
    >>> r = cluster_metrics(["mse", "rmse", "kendall_tau", "recall", "precision"], n=20,
    ...                     n_rankings=50, k=5, n_clusters=2)
    >>> r.clusters()
    [['mse', 'rmse', 'kendall_tau'], ['recall', 'precision']]
    >>> float(r.distances.loc["mse", "rmse"])
    0.0
    """
    from scipy.cluster.hierarchy import fcluster, linkage

    names = list(names)
    if len(names) < 2:
        raise ValueError(f"cluster_metrics needs at least 2 metrics, got {len(names)}")
    method = check_choice(method, LINKAGES, "method",
                          explain="a linkage of scipy.cluster.hierarchy.linkage")
    n_clusters = _check_int(n_clusters, "n_clusters", 1)
    if n_clusters > len(names):
        raise ValueError(f"n_clusters={n_clusters} is more than the {len(names)} metrics")
    if k is None:
        k = max(1, round(0.3 * n))
    R = induced_rankings(names, n, n_rankings, k=k, seed=seed)
    D = pairwise(R, "ndpm")
    Z = linkage(pairwise(R, "ndpm", condensed=True), method)
    labels = fcluster(Z, n_clusters, criterion="maxclust")
    return MetricClusters(
        names=tuple(names), distances=pd.DataFrame(D, index=names, columns=names), linkage=Z,
        labels=pd.Series(labels, index=names, name="cluster"), n=int(n),
        n_rankings=int(n_rankings), k=int(k), seed=int(seed), method=method,
        n_clusters=n_clusters)


def group_labels(groups: dict, names: Sequence[str]) -> pd.Series:
    """The group of each name, from ``{group: members}`` (every name in exactly one group).

    Parameters
    ----------
    groups : dict
        ``{group: members}``, every name in exactly one group.
    names : sequence of str
        The names to label, in the order of the result.

    Returns
    -------
    pandas.Series
        The group of each name, indexed by ``names``.

    Examples
    --------
    >>> group_labels({"a": ("x", "y"), "b": ("z",)}, ["z", "x", "y"]).tolist()
    ['b', 'a', 'a']
    """
    where = {}
    for g, members in groups.items():
        for m in members:
            if m in where:
                raise ValueError(f"{m!r} is in two groups, {where[m]!r} and {g!r}")
            where[m] = g
    missing = [m for m in names if m not in where]
    if missing:
        raise ValueError(f"not in any group: {', '.join(map(str, missing))}")
    return pd.Series([where[m] for m in names], index=list(names), name="group")


def contingency_table(a, b) -> pd.DataFrame:
    """Counts of items by (label in a, label in b): rows the labels of a, columns those of b.

    Parameters
    ----------
    a, b : sequence
        Two labellings of the same items (``a[i]`` and ``b[i]`` label item i).

    Returns
    -------
    pandas.DataFrame
        Integer counts, rows indexed by the labels of ``a`` and columns by those of ``b``.

    Examples
    --------
    >>> contingency_table([1, 1, 2, 2], ["x", "y", "y", "y"]).to_dict()
    {'x': {1: 1, 2: 0}, 'y': {1: 1, 2: 2}}
    """
    a, b = pd.Series(list(a)), pd.Series(list(b))
    if len(a) != len(b):
        raise ValueError(f"the two labelings have different lengths, {len(a)} and {len(b)}")
    return pd.crosstab(a.to_numpy(), b.to_numpy(), rownames=[None], colnames=[None])


def adjusted_rand_index(a, b) -> float:
    r"""Adjusted Rand index of two partitions of the same items (``hubert1985comparing``).

    With :math:`n_{ij}` the contingency counts, :math:`a_i` and :math:`b_j` its row and column
    sums and N the number of items,

    .. math::

        ARI = \frac{\sum_{ij} \binom{n_{ij}}{2} - E}{\frac{1}{2}\left[\sum_i \binom{a_i}{2}
              + \sum_j \binom{b_j}{2}\right] - E}, \qquad
        E = \frac{\sum_i \binom{a_i}{2} \sum_j \binom{b_j}{2}}{\binom{N}{2}},

    1 for identical partitions (up to the names of the parts), about 0 for independent ones,
    negative below chance. The pair counts are exact integers; ``nan`` when the denominator is 0
    (both partitions a single part, or both all singletons, with N >= 2: then the two agree and
    the index is defined as 1, as scikit-learn does).

    Parameters
    ----------
    a, b : sequence
        Two partitions of the same items, as the label of each item.

    Returns
    -------
    float
        The index, at most 1; nan when it is 0/0 (see above).

    Examples
    --------
    >>> adjusted_rand_index([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> round(adjusted_rand_index([0, 0, 1, 2], [0, 0, 1, 1]), 4)
    0.5714
    """
    table = contingency_table(a, b).to_numpy()
    N = int(table.sum())

    def pairs(x):
        return sum(math.comb(int(v), 2) for v in np.ravel(x))

    index = pairs(table)
    sa, sb = pairs(table.sum(axis=1)), pairs(table.sum(axis=0))
    total = math.comb(N, 2)
    if total == 0:
        return 1.0
    from fractions import Fraction

    expected = Fraction(sa * sb, total)
    top = Fraction(sa + sb, 2)
    if top == expected:
        return 1.0
    return float((index - expected) / (top - expected))


def recovered_groups(labels, groups: dict) -> dict:
    """For each group, whether its members form exactly one cluster (the same members, no other).

    Parameters
    ----------
    labels : mapping or pandas.Series
        The cluster of each name (as :attr:`MetricClusters.labels`).
    groups : dict
        ``{group: members}`` to look for.

    Returns
    -------
    dict
        ``{group: bool}``: True when the group's members are exactly one cluster.

    Examples
    --------
    >>> labels = {"x": 1, "y": 1, "z": 2, "w": 2}
    >>> recovered_groups(labels, {"g": ("x", "y"), "h": ("z",), "i": ("w",)})
    {'g': True, 'h': False, 'i': False}
    """
    labels = dict(labels)
    out = {}
    for g, members in groups.items():
        found = {labels[m] for m in members}
        if len(found) != 1:
            out[g] = False
            continue
        c = found.pop()
        out[g] = {m for m, lab in labels.items() if lab == c} == set(members)
    return out
