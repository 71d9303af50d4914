"""Distance matrices: a metric over every pair of N rankings, or one ranking against many.

:func:`pairwise` returns the N x N matrix ``D[i, j] = m(rankings[i], rankings[j])`` for any
of the 33 metrics of :mod:`rankbook.metrics`, the rank-biased overlap measures of
:mod:`rankbook.rbo`, or a function of your own; :func:`pairwise_to` compares many rankings
with one reference. scipy has neither a Kendall distance nor a pairwise form for rankings
(scipy issue 7089), so users write double loops over ``scipy.stats.kendalltau``; here the
pairs are evaluated in blocks by the same vectorised kernels as
:func:`rankbook.metrics.evaluate_many`, every ranking is validated (and inverted) once, not
once per pair, and Kendall's tau and NDPM count inversions in O(n log n) per pair.

Pairwise conventions
--------------------
- ``rankings`` is an array of shape (N, n) of permutations of 1..n (one-line notation, as in
  :mod:`rankbook.permutations`: ``r[p - 1]`` is the item at position p), or N label lists.
- Every value is a function of the two rankings alone: ``D[i, j]`` is the same whatever the
  other rows are and in whatever order they come, so permuting the rows permutes the matrix
  with them, and ``D[i, j] == rankbook.metrics.evaluate(m, r_i, r_j, k=k,
  numbering=numbering)`` bit for bit, for every metric and under each reading
  (tests/test_reading.py). The rankings are read as everywhere in rankbook
  (:mod:`rankbook.metrics`, *Reading a ranking*), with the same parameter ``numbering``:
- By default (``numbering=None``) permutation arrays are read *as given*, paper A's reading:
  ``D[i, j] = m(r_i, r_j)``, in which Kendall's tau, Spearman's rho and the error metrics
  compare the two arrays position by position (the item numbers found at each position), as
  ``scipy.stats.kendalltau(r_i, r_j)`` does. Renumbering the items changes those values. Label
  lists carry no numbers: each pair is numbered by its first ranking (as below).
- ``numbering="pair"`` numbers each pair by its first ranking, the reference ``sigma``:
  ``D[i, j] = m(*from_labels(r_i, r_j))`` (:func:`rankbook.permutations.from_labels`), so
  ``sigma`` is the identity and ``nu`` lists the positions in ``r_i`` of ``r_j``'s items. Every
  value is then a function of the two orders alone: Kendall's tau is the item-based tau an IR
  user expects, ``1 - 2 d_K / C(n, 2)`` with d_K the item pairs the two rankings order
  differently (``scipy.stats.kendalltau`` of the two vectors of item positions), Spearman's rho
  the correlation of the item positions, and the error metrics (MSE, RMSE, MAE, MAPE, SMAPE,
  R^2) compare each item's positions in the two rankings (MAE is Spearman's footrule over n).
  The set-based, rank-position, DCG, NDPM and RBO values are the same under both readings.
- Label lists that all hold the same n items are read as permutations (their numbering does not
  matter). Label lists over different item sets (top-k lists of different systems, of equal or
  different lengths) are accepted by the measures of :data:`TOP_K_MEASURES`: the RBO measures,
  as ``rankbook.rbo``'s functions of the two lists (vectorised for lists of one length, pair by
  pair for lists of different lengths), and the confusion-matrix metrics that read only the
  overlap of the two top-k sets (k at most the shortest list).
- Row i is the reference (``sigma``) and column j the evaluated ranking (``nu``):
  ``D[i, j] = m(rankings[i], rankings[j])``. The diagonal holds ``m(r, r)``, which is not 0 for
  every metric (nDCG in paper A's reading is about 0.75, LR+ is nan).
- Symmetric metrics (:data:`SYMMETRIC`, 27 of the 33 and the RBO measures; under both
  numberings) are evaluated once
  per unordered pair and mirrored; the others (:data:`ASYMMETRIC`: MAPE, DCG, nDCG, MRR, GMR,
  mean rank) and a function of your own (unless you pass ``symmetric=True``) are evaluated for
  every ordered pair.
- ``condensed=True`` returns the upper triangle in the order of
  ``scipy.spatial.distance.squareform`` (pairs ``(0, 1), (0, 2), ..., (N-2, N-1)``), the form
  ``scipy.cluster.hierarchy.linkage`` takes; only for symmetric metrics. Clustering needs a
  dissimilarity (0 for identical rankings): NDPM, MSE, RMSE, MAE, SMAPE or, for
  a similarity such as Kendall's tau, a transform like ``(1 - tau) / 2``.
- Memory: the pairs are evaluated in blocks of at most ``chunk // n`` pairs (at least one).
  Beyond the result (N x N, or N(N-1)/2 values, float64), the rankings and their inverses
  (2 N n int64), each running block holds at most :data:`MEMORY_ARRAYS` = 16 arrays of
  ``max(chunk, n)`` entries of 8 bytes (measured: at most 8.2 for any of the 33 metrics or
  the RBO measures, tests/test_pairwise.py): at the default ``chunk = 65536``, 8 MiB per job,
  whatever N is. A function of your own may use more on its own account. Label lists over
  different item sets are held as one (N, longest) int64 array of item codes.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
import threading
import types
from typing import Optional

import numpy as np

from . import _metric_core as _core
from . import metrics as _metrics
from . import permutations as _perm
from . import rbo as _rbo
from . import tau_ap as _tau_ap
from ._validation import check_flag, check_int, check_k

__all__ = ["pairwise", "pairwise_to", "SYMMETRIC", "ASYMMETRIC", "RBO_MEASURES",
           "TAU_AP_MEASURES", "TOP_K_MEASURES", "NUMBERINGS", "DEFAULT_CHUNK", "MEMORY_ARRAYS"]

#: The metrics of :data:`rankbook.metrics.NAMES` with ``m(sigma, nu) = m(nu, sigma)`` for all
#: rankings. The confusion-matrix metrics depend on TP = ``|R ∩ S|`` alone (FP = FN = k - TP),
#: the error metrics except MAPE on ``abs(sigma(i) - nu(i))`` or its square, Kendall's tau and
#: Spearman's rho are symmetric correlations, and NDPM counts the inversions of nu^-1 o sigma,
#: as many as those of its inverse sigma^-1 o nu. :func:`rankbook.properties.symmetry`
#: confirms the split exhaustively on small symmetric groups (tests/test_pairwise.py).
SYMMETRIC = frozenset(m for m in _metrics.NAMES
                      if m not in ("mape", "dcg", "ndcg", "mrr", "gmr", "mean_rank"))
#: The 6 metrics that depend on which ranking is the reference: MAPE divides by sigma(i), DCG
#: and nDCG weigh pi = nu^-1 o sigma and not its inverse, MRR, GMR and mean rank read the
#: positions in nu of sigma's first k items.
ASYMMETRIC = tuple(m for m in _metrics.NAMES if m not in SYMMETRIC)
#: Rank-biased overlap measures :func:`pairwise` evaluates (``p`` required), as
#: :func:`rankbook.rbo.rbo`, :func:`~rankbook.rbo.rbo_ext`, :func:`~rankbook.rbo.rbo_min` and
#: :func:`~rankbook.rbo.rbo_res` of two full rankings of the same items. All symmetric.
RBO_MEASURES = ("rbo", "rbo_ext", "rbo_min", "rbo_res")
#: Yilmaz et al.'s AP rank correlation, :func:`rankbook.tau_ap.tau_ap`, of two rankings of the
#: same items. Asymmetric: ``D[i, j]`` takes ranking ``i`` as the reference (the truth) and
#: ranking ``j`` as the estimate whose positions the sum walks down. Item-based under both
#: numberings (a function of the two orders).
TAU_AP_MEASURES = ("tau_ap",)
#: The measures :func:`pairwise` evaluates on label lists that do not all hold the same items
#: (top-k lists over different item sets, of equal or different lengths): the RBO measures,
#: made for this case, and the confusion-matrix metrics at a cut-off k that read only the
#: overlap of the two top-k sets (TP; FP = FN = k - TP). The others need the same n items in
#: every list (the true negatives of fallout, accuracy, MCC and the like count the items in
#: neither top k, which lists over different items do not define).
TOP_K_MEASURES = RBO_MEASURES + ("recall", "fnr", "precision", "fdr", "f1", "fowlkes_mallows",
                                 "jaccard")
#: Entries (pairs x n) evaluated together per block.
DEFAULT_CHUNK = 1 << 16
#: The stated bound: a running block never holds more than this many arrays of
#: ``max(chunk, n)`` 8-byte entries (beyond the result, the rankings and their inverses).
MEMORY_ARRAYS = 16


# --------------------------------------------------------------------------------------------
# input


def _check_int(value, name, lo, allow=()):
    return check_int(value, name, low=lo, allow=allow)


def _is_labels(rankings, labels) -> bool:
    if labels is not None:
        return check_flag(labels, "labels", allow_none=True, none_means="detect")
    if isinstance(rankings, np.ndarray):
        return rankings.dtype.kind not in "iufb"
    try:
        kinds = {np.asarray(r).dtype.kind for r in rankings}
    except TypeError:
        raise ValueError("rankings must be a sequence of rankings (an (N, n) array or N lists)") from None
    return bool(kinds) and not kinds <= set("iufb")


#: How :func:`pairwise` numbers the items of a pair before a metric reads the numbers (as every
#: function of rankbook that takes rankings: :data:`rankbook.metrics.NUMBERINGS`).
NUMBERINGS = _metrics.NUMBERINGS


class _Lists:
    """Label lists that do not all hold the same items (top-k lists over different item sets):
    each row's items as codes of one shared dictionary, padded with -1."""

    def __init__(self, codes, lengths):
        self.codes, self.lengths = codes, lengths
        self.shape = codes.shape


def _coded(rows, what):
    """Codes of a shared dictionary (first appearance) for label lists, repeats refused."""
    index: dict = {}
    coded = []
    for r, row in enumerate(rows):
        gap = next((j for j, x in enumerate(row) if _perm.is_missing_label(x)), None)
        if gap is not None:  # None or nan would be an item, matched only with itself
            raise ValueError(f"{what}: ranking {r} holds a missing label ({row[gap]!r}) at "
                             f"position {gap + 1}; every label must name an item (end a top-k "
                             "list early instead)")
        try:
            c = [index.setdefault(x, len(index)) for x in row]
        except TypeError as exc:
            raise ValueError(f"{what}: labels must be hashable ({exc})") from None
        if len(set(c)) != len(c):
            seen: set = set()
            dup = next(x for x in row if x in seen or seen.add(x))
            raise ValueError(f"{what}: ranking {r} repeats item {dup!r}; a ranking lists each item once")
        coded.append(c)
    return coded, len(index)


def _numbered(rankings, labels, reference=None, what="rankings", numbering=None):
    """(permutations (N', n) int64, 0-based inverses, numbering) with the reference first if
    given, or (:class:`_Lists`, None, numbering) for label lists over different item sets;
    ``numbering`` resolved (``None``: ``"given"`` for permutation arrays, ``"pair"`` for label
    lists)."""
    if isinstance(rankings, (str, bytes)):
        raise ValueError(f"{what} must be a sequence of rankings, got one string {rankings!r}; "
                         "pass a list of rankings (a string counts as one label list)")
    if not isinstance(rankings, np.ndarray):
        try:
            rankings = list(rankings)  # a generator is read once
        except TypeError:
            raise ValueError(f"{what} must be a sequence of rankings (an (N, n) array or N "
                             f"lists), got {type(rankings).__name__}") from None
    use_labels = _is_labels(rankings, labels) or (
        reference is not None and labels is None and _is_labels([reference], None))
    numbering = _metrics.check_numbering(numbering, use_labels)
    if use_labels:
        rows = [list(r) for r in rankings]
        if reference is not None:
            rows = [list(reference)] + rows
        if not rows:
            raise ValueError(f"{what} is empty: give at least one ranking")
        coded, n_items = _coded(rows, what)
        lengths = np.array([len(c) for c in coded], dtype=np.int64)
        if (lengths == lengths[0]).all() and n_items == lengths[0]:
            # every list holds the same n items: permutations of 1..n in any numbering (the
            # values do not depend on it, each pair is numbered by its first ranking)
            perms = np.array(coded, dtype=np.int64).reshape(len(rows), -1) + 1
        else:
            codes = np.full((len(rows), int(lengths.max())), -1, dtype=np.int64)
            for r, c in enumerate(coded):
                codes[r, :len(c)] = c
            return _Lists(codes, lengths), None, numbering
    else:
        arr = _perm._as_int_array(rankings, what)
        if arr.ndim != 2:
            raise ValueError(f"{what} must have shape (N, n): N rankings of n items, got shape "
                             f"{arr.shape}" + ("; for one ranking use [ranking]" if arr.ndim == 1 else ""))
        if reference is not None:
            ref = _perm._as_int_array(reference, "reference")
            if ref.ndim != 1:
                raise ValueError(f"reference must be one ranking of shape (n,), got shape {ref.shape}")
            if ref.shape[0] != arr.shape[1]:
                raise ValueError(f"reference ranks n={ref.shape[0]} items and the rankings "
                                 f"n={arr.shape[1]}")
            _perm._check_perm(ref, "reference")
            arr = np.vstack([ref[None, :], arr])
        perms = np.ascontiguousarray(arr, dtype=np.int64)
    inv = _perm._check_perm(perms, what)
    return perms, np.ascontiguousarray(inv), numbering


def _pair_numbered(R, INV, I, J, orient=False):
    """Pairs (I, J) numbered by their first ranking: sigma the identity, nu the positions in
    r_I (1-based) of r_J's items, and both inverses (0-based); as
    ``rankbook.permutations.from_labels(r_I, r_J)`` (oriented for a symmetric metric: see
    :func:`rankbook._metric_core._number_pair`, which :func:`rankbook.metrics.evaluate` uses
    too)."""
    return _core._number_pair(R[I], R[J], INV[I], INV[J], orient)


# --------------------------------------------------------------------------------------------
# what is evaluated on a block of pairs


def _list_overlaps(L, I, J, depth):
    """X[q, d-1] = number of items in the top d of both lists of pair q, d = 1..depth (past a
    list's end only its seen items count), for label lists over different item sets."""
    A, B = L.codes[I], L.codes[J]
    m, w = A.shape
    C = np.concatenate([A, B], axis=1)
    order = np.argsort(C, axis=1, kind="stable")
    Cs = np.take_along_axis(C, order, axis=1)
    pos = order % w  # position in its own list
    match = (Cs[:, :-1] == Cs[:, 1:]) & (Cs[:, :-1] >= 0)  # an item in both lists
    q, t = np.nonzero(match)
    enters = np.maximum(pos[q, t], pos[q, t + 1])  # depth (0-based) at which it is in both tops
    keep = enters < depth
    flat = q[keep] * depth + enters[keep]
    counts = np.bincount(flat, minlength=m * depth).reshape(m, depth)
    return np.cumsum(counts, axis=1)


#: Metrics whose kernels read the pair's numbers only through the exact integer sums of the
#: position differences (numbered by the pair, each item's two positions).
_POSITION_DIFFERENCES = frozenset({"mse", "rmse", "mae", "r2", "spearman_rho"})
#: Metrics evaluated on the pair renumbered by its first ranking (they divide by the numbers).
_GATHERED = frozenset({"mape", "smape"})


class _Registered:
    def __init__(self, name, k, n, numbering="given"):
        info = _metrics.REGISTRY[name]
        self.name = name
        self.k = check_k(k, n) if info.needs_k else None
        self.symmetric = name in SYMMETRIC
        self.kernel = _metrics._KERNELS[name]
        self.numbering = numbering

    def __call__(self, R, INV, I, J):
        if isinstance(R, _Lists):  # top-k lists over different items: the overlap of the tops
            tp = _list_overlaps(R, I, J, self.k)[:, -1].astype(np.float64)
            # n is read by the true-negative count only, which these metrics never use
            stub = np.empty((1, 2 * self.k), dtype=np.int64)
            block = _metrics._Pair(stub, stub, stub, stub, k=self.k)
            block._cache["tp"] = tp
            return np.asarray(self.kernel(block), dtype=np.float64)
        if self.numbering == "pair" and self.name not in _GATHERED:
            # the same values as the pair numbered by r_I, without building it: most metrics
            # do not depend on the numbering; Kendall's discordant position pairs of the
            # renumbered pair are the discordant item pairs, and the position differences of
            # the renumbered pair are those of each item's positions (the same integers in
            # another order, summed exactly)
            block = _metrics._Pair(R[I], R[J], INV[I], INV[J], k=self.k)
            if self.name == "kendall_tau":
                block._cache["kd"] = block.item_discordant
            elif self.name in _POSITION_DIFFERENCES:
                block._cache["d"] = block.inv_v - block.inv_s
            return np.asarray(self.kernel(block), dtype=np.float64)
        if self.numbering == "pair":
            # one orientation per unordered pair of a symmetric metric, chosen from the two
            # rankings alone (the relative permutation or its inverse, whichever is
            # lexicographically smaller), so that the value does not depend on which row comes
            # first: the two orientations are equal only to rounding for SMAPE's sum
            block = _metrics._Pair(*_pair_numbered(R, INV, I, J, self.symmetric), k=self.k)
        else:
            block = _metrics._Pair(R[I], R[J], INV[I], INV[J], k=self.k)
        return np.asarray(self.kernel(block), dtype=np.float64)


class _RBO:
    symmetric = True

    def __init__(self, name, p, n):
        if p is None:
            raise ValueError(f"{name} needs the persistence p, 0 < p < 1 (e.g. p=0.9)")
        self.name, self.p, self.n = name, _rbo._check_p(p), n
        self.w = _rbo._weights(self.p, n)
        self.d = np.arange(1, n + 1, dtype=float)
        self.tail = math.exp(n * math.log(self.p))
        self.total = np.sum(self.w) + self.tail

    def overlaps(self, INV, I, J):
        """X[q, d-1] = number of items in the top d of both rankings of pair q."""
        m, n = len(I), self.n
        enters = np.maximum(INV[I], INV[J])  # depth (0-based) at which an item is in both tops
        enters += (np.arange(m, dtype=np.int64) * n)[:, None]
        counts = np.bincount(enters.ravel(), minlength=m * n).reshape(m, n)
        return np.cumsum(counts, axis=1)

    def _scalar(self, L, I, J):
        """Lists of different lengths: rankbook.rbo's scalar function, pair by pair."""
        f = getattr(_rbo, self.name)
        rows = [L.codes[r, :L.lengths[r]].tolist() for r in range(len(L.lengths))]
        return np.array([f(rows[i], rows[j], self.p) for i, j in zip(I, J)], dtype=np.float64)

    def _lists(self, L, I, J):
        """Top-n lists of equal length n over different items (s = l = n in Webber et al.)."""
        if (L.lengths != self.n).any():
            return self._scalar(L, I, J)
        X = _list_overlaps(L, I, J, self.n)
        n, p, w, d = self.n, self.p, self.w, self.d
        sw = (w * (X / d)).sum(axis=1)
        X_n = X[:, -1].astype(float)
        if self.name == "rbo":
            return sw / self.total
        if self.name == "rbo_ext":
            return (sw + self.tail * (X_n / n)) / self.total
        # lower bound: the unseen ranks match nothing, the agreement decays as X_n / d
        lo = (sw + X_n * ((1.0 - p) / p * _rbo._log_tail(p, n))) / self.total
        if self.name == "rbo_min":
            return lo
        # upper bound: from depth n + 1 on, every unseen item of one list matches an unseen
        # item of the other, the agreement (X_n + 2 (d - n)) / d reaching 1 by depth 2n
        d2 = np.arange(n + 1, 2 * n + 1, dtype=float)
        w2 = (1.0 - p) * np.exp((d2 - 1) * math.log(p))
        far = np.minimum((X_n[:, None] + 2.0 * (d2 - n)) / d2, 1.0)
        total2 = self.total - self.tail + np.sum(w2) + math.exp(2 * n * math.log(p))
        hi = (sw + (w2 * far).sum(axis=1) + math.exp(2 * n * math.log(p))) / total2
        return hi - lo

    def __call__(self, R, INV, I, J):
        if isinstance(R, _Lists):
            return self._lists(R, I, J)
        X = self.overlaps(INV, I, J)
        n, p, w, d = self.n, self.p, self.w, self.d
        a = X / d
        if self.name == "rbo":  # as rbo.rbo with depth n
            return (w * a).sum(axis=1) / (np.sum(w) + self.tail)
        if self.name == "rbo_ext":  # as rbo.rbo_ext with s = l = n (no extrapolated middle)
            X_n = X[:, -1].astype(float)
            a_tail = (X_n - X_n) / n + X_n / n
            return ((w * a).sum(axis=1) + self.tail * a_tail) / (np.sum(w) + self.tail)
        # rbo_min / rbo_res: rbo._bounds with s = l = n; every item is seen, X_n = n
        tail_min = n * (1.0 - p) / p * _rbo._log_tail(p, n)
        sw = (w * a).sum(axis=1)
        lo = (sw + tail_min) / self.total
        if self.name == "rbo_min":
            return lo
        hi = (sw + self.tail) / self.total
        return hi - lo


class _TauAP:
    """tau_AP with r_I the reference and r_J the estimate, item-based (both numberings)."""

    symmetric = False

    def __init__(self, name):
        self.name = name

    def __call__(self, R, INV, I, J):
        # the reference position of each of r_J's items, in r_J's order
        v = np.take_along_axis(INV[I], R[J] - 1, axis=1)
        return _tau_ap._tau_ap_positions(v)


class _UserFunction:
    def __init__(self, func, k, symmetric, numbering="given"):
        import inspect

        self.numbering = numbering
        self.func = func
        self.name = getattr(func, "__name__", type(func).__name__)
        try:
            params = inspect.signature(func).parameters
        except (TypeError, ValueError):
            params = {}
        self.kw = {"k": k} if ("k" in params and k is not None) else {}
        self.symmetric = bool(symmetric)
        self.vectorised = None

    def _one(self, s, v):
        try:
            out = np.asarray(self.func(s, v, **self.kw), dtype=np.float64)
        except Exception as exc:  # noqa: BLE001 - name the function and the pair that broke it
            raise ValueError(f"metric {self.name!r} raised {type(exc).__name__}: {exc} for "
                             f"sigma={s.tolist()}, nu={v.tolist()}") from None
        if out.size != 1:
            raise ValueError(f"metric {self.name!r} returned {out.size} values for one pair; it "
                             "must return one number per pair")
        return float(out.reshape(()))

    def pairs(self, R, INV, I, J):
        """(sigma, nu) blocks the function sees: numbered by the pair's first ranking, or as
        given."""
        if self.numbering == "pair":
            return _pair_numbered(R, INV, I, J)[:2]
        return R[I], R[J]

    def probe(self, R, INV, I, J):
        """Decide once whether the function takes a batch (compared with pair-by-pair calls)."""
        S, V = self.pairs(R, INV, I, J)
        singles = np.array([self._one(s, v) for s, v in zip(S, V)])
        try:
            with np.errstate(all="ignore"):
                out = np.asarray(self.func(S, V, **self.kw), dtype=np.float64)
            ok = out.shape == (len(I),) and np.allclose(out, singles, rtol=1e-12, atol=0,
                                                         equal_nan=True)
        except Exception:  # noqa: BLE001 - not vectorised: call it pair by pair
            ok = False
        self.vectorised = bool(ok) and len(I) > 1

    def __call__(self, R, INV, I, J):
        S, V = self.pairs(R, INV, I, J)
        if self.vectorised:
            try:
                out = np.asarray(self.func(S, V, **self.kw), dtype=np.float64)
            except Exception as exc:  # noqa: BLE001
                raise ValueError(f"metric {self.name!r} raised {type(exc).__name__}: {exc} on a "
                                 f"block starting sigma={S[0].tolist()}, "
                                 f"nu={V[0].tolist()}") from None
            if out.shape != (len(I),):
                raise ValueError(f"metric {self.name!r} returned shape {out.shape} for {len(I)} "
                                 "pairs; it must return one number per pair")
            return out
        return np.array([self._one(s, v) for s, v in zip(S, V)], dtype=np.float64)


def _resolve(metric, k, p, symmetric, n, numbering="given", lists=None):
    symmetric = check_flag(symmetric, "symmetric", allow_none=True)
    if lists is not None:  # label lists over different item sets
        if not (isinstance(metric, str) and metric in TOP_K_MEASURES):
            shown = metric if isinstance(metric, str) else getattr(metric, "__name__", "a function")
            raise ValueError(f"the rankings do not all hold the same items (top-k lists over "
                             f"different item sets): {shown!r} needs rankings of the same items; "
                             f"the measures for lists with different items are "
                             f"{', '.join(TOP_K_MEASURES)}")
        short = int(lists.lengths.min())
        if short == 0:
            raise ValueError("a ranking is empty: every ranking needs at least one item")
        n = short if metric in _metrics.REGISTRY else int(lists.lengths.max())
    if isinstance(metric, str):
        if metric in _metrics.REGISTRY:
            if lists is not None and k is not None and _metrics.REGISTRY[metric].needs_k:
                if isinstance(k, numbers.Integral) and not isinstance(k, bool) and k > n:
                    raise ValueError(f"k={k} exceeds the shortest ranking ({n} items): the top k "
                                     f"of every list must be known, so k must be 1..{n}")
            ev = _Registered(metric, k, n, numbering)
        elif metric in RBO_MEASURES:
            ev = _RBO(metric, p, n)
        elif metric in TAU_AP_MEASURES:
            ev = _TauAP(metric)
        else:
            raise ValueError(f"unknown metric {metric!r}; valid: one of the 33 metrics "
                             f"({', '.join(_metrics.NAMES)}), an RBO measure "
                             f"({', '.join(RBO_MEASURES)}), {', '.join(TAU_AP_MEASURES)} or a "
                             f"function f(sigma, nu)")
        if symmetric is not None and bool(symmetric) and not ev.symmetric:
            raise ValueError(f"{metric} is not symmetric (m(sigma, nu) != m(nu, sigma) for some "
                             f"pairs): symmetric=True would copy one triangle into the other; "
                             f"the asymmetric metrics are {', '.join(ASYMMETRIC)}")
        if symmetric is not None and not bool(symmetric):
            ev.symmetric = False
        return ev
    if callable(metric):
        return _UserFunction(metric, k, bool(symmetric) if symmetric is not None else False,
                             numbering)
    raise ValueError(f"metric must be a name ({', '.join(_metrics.NAMES)}; "
                     f"{', '.join(RBO_MEASURES)}; {', '.join(TAU_AP_MEASURES)}) or a function "
                     f"f(sigma, nu), got "
                     f"{type(metric).__name__}")


# --------------------------------------------------------------------------------------------
# blocks of pairs


def _jobs(n_jobs) -> int:
    n_jobs = _check_int(n_jobs, "n_jobs", 1, allow=(-1,))
    return (os.cpu_count() or 1) if n_jobs == -1 else n_jobs


def _run(ev, R, INV, total, per, pairs_of, write, n_jobs):
    """Evaluate ``total`` pairs in blocks of ``per``: ``pairs_of(a, b) -> (I, J)`` names the
    pairs of block [a, b), ``write(a, b, I, J, values)`` stores them."""
    if total == 0:
        return
    if isinstance(ev, _UserFunction) and ev.vectorised is None:
        I, J = pairs_of(0, min(total, 4))
        ev.probe(R, INV, I, J)

    def block(a):
        b = min(total, a + per)
        I, J = pairs_of(a, b)
        with np.errstate(all="ignore"):
            values = ev(R, INV, I, J)
        write(a, b, I, J, values)

    starts = range(0, total, per)
    if n_jobs == 1 or len(starts) == 1:
        for a in starts:
            block(a)
        return
    # each thread takes the next block when it is done with one: never more than n_jobs blocks
    # in memory, and no queue of pending blocks
    todo = iter(starts)
    lock = threading.Lock()
    errors: list = []

    def worker():
        while True:
            with lock:
                a = None if errors else next(todo, None)
            if a is None:
                return
            try:
                block(a)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
                with lock:
                    errors.append(exc)
                return

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(min(n_jobs, len(starts)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def _upper_pairs(N):
    """``pairs_of`` for the unordered pairs i < j in squareform order."""
    i = np.arange(N, dtype=np.int64)
    row_start = i * N - i * (i + 1) // 2  # pairs before row i

    def pairs_of(a, b):
        q = np.arange(a, b, dtype=np.int64)
        I = np.searchsorted(row_start, q, side="right") - 1
        return I, q - row_start[I] + I + 1

    return pairs_of


def pairwise(rankings, metric, *, k: Optional[int] = None, p: Optional[float] = None,
             labels: Optional[bool] = None, symmetric: Optional[bool] = None,
             condensed: bool = False, n_jobs: int = 1, chunk: int = DEFAULT_CHUNK,
             numbering: Optional[str] = None) -> np.ndarray:
    r"""The matrix of a metric over every pair of N rankings: ``D[i, j] = m(r_i, r_j)``.

    .. math:: D_{ij} = m(\sigma = r_i,\ \nu = r_j), \qquad 1 \le i, j \le N

    Every entry is a function of the two rankings ``r_i`` and ``r_j`` alone, read as
    everywhere in rankbook (see "Pairwise conventions" in the module docstring): permutation
    arrays as given by default, label lists numbered by the pair. For Kendall's tau numbered by
    the pair (``numbering="pair"``, or label lists), ``D[i, j] = 1 - 2 d_K / C(n, 2)`` with d_K
    the number of item pairs the two rankings order differently (``kendall1938new``); for NDPM,
    d_K / C(n, 2) under either reading (``yao1995ndpm``). A symmetric metric is evaluated once
    per unordered pair (N(N-1)/2 evaluations, plus N for the diagonal), an asymmetric one N^2
    times. Every value equals the scalar call
    ``rankbook.metrics.evaluate(metric, r_i, r_j, k=k, numbering=numbering)`` bit for bit (the
    same kernels; under ``"pair"``, a symmetric metric is evaluated in the orientation whose
    relative permutation is lexicographically smaller, in both functions, so that no entry
    depends on the row order), and ``rankbook.rbo.<measure>(items_i, items_j, p)`` for the RBO
    measures.

    Parameters
    ----------
    rankings : array_like of shape (N, n), or N label lists
        Permutations of 1..n, or label lists: of the same n items for every metric, of
        different items (top-k lists) for :data:`TOP_K_MEASURES`.
    metric : str or callable
        One of :data:`rankbook.metrics.NAMES`, one of :data:`RBO_MEASURES`, ``"tau_ap"``
        (:data:`TAU_AP_MEASURES`: row ``i`` the reference, column ``j`` the estimate), or a function
        ``f(sigma, nu)`` (or ``f(sigma, nu, k)``) of two permutations returning a number (it
        receives each pair numbered as ``numbering`` says); a function that accepts a batch
        (arrays of shape (B, n), returning shape (B,)) is called once per block, otherwise
        once per pair.
    k : int, optional
        The cut-off of the metrics that need one (``REGISTRY[name].needs_k``); passed to a
        function that has a ``k`` parameter. Ignored by the other metrics (a tau stays the
        full tau), so that one ``k`` can serve a loop over every metric.
    p : float, optional
        RBO's persistence, 0 < p < 1; required for :data:`RBO_MEASURES`, ignored otherwise.
    labels : bool, optional
        Force (True) or refuse (False) reading ``rankings`` as label lists; by default numeric
        arrays are permutations and anything else label lists.
    symmetric : bool, optional
        For a function of your own: True evaluates each unordered pair once and mirrors it
        (default False: every ordered pair). For a registered metric the known symmetry is
        used; True for an asymmetric one is refused.
    condensed : bool
        Return the N(N-1)/2 values above the diagonal in ``scipy.spatial.distance.squareform``
        order (symmetric metrics only), ready for ``scipy.cluster.hierarchy.linkage``.
    n_jobs : int
        Threads evaluating blocks at once (-1: one per CPU). The kernels release the GIL for
        much of their work; memory grows with the number of jobs.
    chunk : int
        Entries (pairs x n) per block; the memory bound is stated in the module docstring:
        at most :data:`MEMORY_ARRAYS` arrays of ``chunk`` int64/float64 entries per job beyond
        the result, the rankings and their inverses.
    numbering : {None, "given", "pair"}
        The reading, as in :func:`rankbook.metrics.evaluate`: ``None`` (default) reads
        permutation arrays as given (paper A's position-by-position reading of Kendall's tau,
        Spearman's rho and the error metrics) and numbers label lists by the pair;
        ``"pair"`` numbers every pair by its first ranking, so every metric is a function of
        the two orders (item-based Kendall's tau); ``"given"`` is refused for label lists, which
        have no numbers of their own.

    Returns
    -------
    ndarray of float64
        Shape (N, N), or (N(N-1)/2,) when ``condensed``. nan where the metric is undefined.

    Raises
    ------
    ValueError
        Rankings that are not permutations of one n, label lists of different items with a
        measure outside :data:`TOP_K_MEASURES` (or k beyond the shortest list), an unknown
        metric, an unknown ``numbering``, a missing or invalid k or p, ``condensed`` or ``symmetric=True`` with an
        asymmetric metric, invalid ``n_jobs`` or ``chunk``, or a function that fails or returns
        several values per pair.

    References
    ----------
    ``paperA`` (the 33 metrics), ``webber2010rbo`` (RBO); scipy issue 7089 asks for this
    function in ``scipy.stats``.

    Examples
    --------
    >>> R = [[1, 2, 3, 4], [2, 1, 3, 4], [4, 3, 2, 1]]
    >>> pairwise(R, "kendall_tau").round(3).tolist()
    [[1.0, 0.667, -1.0], [0.667, 1.0, -0.667], [-1.0, -0.667, 1.0]]
    >>> R2 = [[1, 2, 4, 3], [1, 3, 4, 2]]  # item pairs (2, 3), (2, 4), (3, 4) discordant
    >>> round(float(pairwise(R2, "kendall_tau")[0, 1]), 4)  # as given: position by position
    0.6667
    >>> float(pairwise(R2, "kendall_tau", numbering="pair")[0, 1])  # item-based: 1 - 2 * 3 / 6
    0.0
    >>> float(pairwise(["abdc", "acdb"], "kendall_tau")[0, 1])  # label lists: by the pair
    0.0
    >>> pairwise(["abc", "cde", "bxa"], "precision", k=2)[0].tolist()  # top-k lists, other items
    [1.0, 0.0, 0.5]
    >>> pairwise(R, "ndpm", condensed=True).round(3).tolist()   # squareform order: (0,1) (0,2) (1,2)
    [0.167, 1.0, 0.833]
    >>> from scipy.cluster.hierarchy import linkage
    >>> linkage(pairwise(R, "ndpm", condensed=True), "average")[0, :2].tolist()
    [0.0, 1.0]
    >>> pairwise(["abc", "bca", "cab"], "rbo_ext", p=0.9).round(3)[0].tolist()
    [1.0, 0.855, 0.855]
    >>> pairwise(R, "dcg", condensed=True)
    Traceback (most recent call last):
    ...
    ValueError: dcg is not symmetric, so it has no condensed form; use condensed=False for the full N x N matrix (the asymmetric metrics are mape, dcg, ndcg, mrr, gmr, mean_rank)
    """
    R, INV, numbering = _numbered(rankings, labels, numbering=numbering)
    N, n = R.shape
    ev = _resolve(metric, k, p, symmetric, n, numbering, R if INV is None else None)
    chunk = _check_int(chunk, "chunk", 1)
    jobs = _jobs(n_jobs)
    condensed = check_flag(condensed, "condensed")
    if condensed and not ev.symmetric:
        if isinstance(metric, str) and (metric in SYMMETRIC or metric in RBO_MEASURES):
            why = f"symmetric=False asks for every ordered pair of {ev.name}"
        elif isinstance(metric, str):
            why = f"{ev.name} is not symmetric"
        else:
            why = f"{ev.name} is not declared symmetric (pass symmetric=True if it is)"
        raise ValueError(f"{why}, so it has no condensed form; use condensed=False for the full "
                         f"N x N matrix (the asymmetric metrics are {', '.join(ASYMMETRIC)})")
    per = max(1, chunk // n)
    cells = N * (N - 1) // 2 if condensed else N * N
    _perm.check_memory(8 * cells, f"the {N:,} x {N:,} matrix of {ev.name}",
                       "condensed=True holds half of it, pairwise_to one row")
    if ev.symmetric:
        total = N * (N - 1) // 2
        out = np.empty(total, dtype=np.float64) if condensed else np.empty((N, N), dtype=np.float64)

        def write(a, b, I, J, values):
            if condensed:
                out[a:b] = values
            else:
                out[I, J] = values
                out[J, I] = values

        _run(ev, R, INV, total, per, _upper_pairs(N), write, jobs)
        if condensed:
            return out

        def write_diag(a, b, I, J, values):
            out[I, I] = values

        _run(ev, R, INV, N, per, lambda a, b: (np.arange(a, b), np.arange(a, b)), write_diag, jobs)
        return out
    out = np.empty((N, N), dtype=np.float64)
    flat = out.reshape(-1)

    def write_all(a, b, I, J, values):
        flat[a:b] = values

    _run(ev, R, INV, N * N, per,
         lambda a, b: divmod(np.arange(a, b, dtype=np.int64), N), write_all, jobs)
    return out


def pairwise_to(rankings, reference, metric, *, k: Optional[int] = None,
                p: Optional[float] = None, labels: Optional[bool] = None, n_jobs: int = 1,
                chunk: int = DEFAULT_CHUNK, numbering: Optional[str] = None) -> np.ndarray:
    r"""One reference against many rankings: ``out[i] = m(reference, rankings[i])``.

    .. math:: out_i = m(\sigma = \text{reference},\ \nu = r_i), \qquad 1 \le i \le N

    The reference plays ``sigma`` (the ground truth) for every metric, symmetric or not, and
    ``out[i]`` depends on the reference and ``rankings[i]`` alone, read as in :func:`pairwise`:
    permutation arrays as given by default, label lists numbered by the reference;
    ``numbering="pair"`` numbers permutation arrays by the reference too (it becomes the
    identity). Label lists over different items are accepted by :data:`TOP_K_MEASURES`. Memory
    is bounded as in :func:`pairwise`.

    Parameters
    ----------
    rankings : array_like of shape (N, n), or N label lists
    reference : array_like of shape (n,), or a label list of the same items
    metric, k, p, labels, n_jobs, chunk, numbering
        As in :func:`pairwise`.

    Returns
    -------
    ndarray of float64, shape (N,)

    References
    ----------
    ``paperA`` (the 33 metrics), ``webber2010rbo`` (RBO).

    Examples
    --------
    >>> pairwise_to([[2, 1, 3], [3, 2, 1]], [1, 2, 3], "kendall_tau").round(3).tolist()
    [0.333, -1.0]
    >>> pairwise_to(["bac", "cba"], "abc", "mrr", k=1).tolist()
    [0.5, 0.3333333333333333]
    """
    R, INV, numbering = _numbered(rankings, labels, reference=reference, numbering=numbering)
    n = R.shape[1]
    ev = _resolve(metric, k, p, None, n, numbering, R if INV is None else None)
    chunk = _check_int(chunk, "chunk", 1)
    jobs = _jobs(n_jobs)
    N = R.shape[0] - 1
    out = np.empty(N, dtype=np.float64)

    def write(a, b, I, J, values):
        out[a:b] = values

    _run(ev, R, INV, N, max(1, chunk // n),
         lambda a, b: (np.zeros(b - a, dtype=np.int64), np.arange(a + 1, b + 1)), write, jobs)
    return out


class _CallableModule(types.ModuleType):
    """This module, callable as its function :func:`pairwise`: ``rankbook.pairwise(rankings,
    metric)`` works, and so do ``rankbook.pairwise.SYMMETRIC`` and
    ``import rankbook.pairwise``."""

    def __call__(self, *args, **kwargs):
        return pairwise(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
