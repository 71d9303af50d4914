"""Consistency of two metrics (Def. 1 of paper A) and their agreement ratio (Def. 2, Figure 1).

Paper A (``paperA`` in ``book/references.bib``, Section 4 and 5.1) calls two metrics m1, m2
*non-consistent* when there are rankings sigma, mu, nu with (eq. 1, reference id)

    m1(id, sigma) <= m1(id, mu)  and  m2(id, sigma) <= m2(id, mu)
    m1(id, sigma) <= m1(id, nu)  and  m2(id, sigma) >  m2(id, nu)

and measures how often two metrics agree on a sample T of S_n with the agreement ratio

    AR(m1, m2) = 1 / (:math:`|T|` (:math:`|T|` - 1)) * sum over mu != nu in T of 1{mu, nu consistent w.r.t. sigma}.

Readings chosen here (the book shows them)
------------------------------------------
- *First line of eq. 1.* With mu = sigma it always holds, so a triple is inconsistent exactly
  when its second line holds: the two metrics order the pair (sigma, nu) differently.
- *Ties* (``ties=``). Read literally, the second line makes a tie in m1 against a strict order in
  m2 a disagreement, but not a tie in m2 against a strict order in m1; that relation is not
  symmetric, while the paper calls the agreement ratio symmetric. The default ``"def1"`` is the
  symmetric closure (the second line applied with the roles of m1 and m2 either way round): a
  pair is consistent iff both metrics give the same sign, so a tie counts as agreement only if
  both metrics tie. ``"def1_ordered"`` is the literal one-sided rule (not symmetric), and
  ``"lenient"`` counts every pair that is not strictly discordant as consistent (a tie in either
  metric is no disagreement, as in Kendall's tau).
- *Reversed metrics* (``reverse=``). Figure 1's text: where most pairs disagree, the paper uses
  -m2 instead of m2. ``"auto"`` does that (AR(m1, -m2) whenever AR(m1, m2) < 1/2); ``"none"``
  never reverses; ``"orient"`` negates every metric whose ``higher_is_closer`` is False, so all
  metrics point the same way before comparing.
- *Sampling protocol* (``protocol=``). Def. 2 fixes a reference sigma ("up to renaming, sigma = id")
  and compares rankings mu, nu of T through m(sigma, mu) and m(sigma, nu); Figure 1 describes T as
  "10000 random pairs of rankings" of S_100. We read it as ``"reference"``: T is n_pairs uniform
  random rankings, each paired with the identity. The other reading, ``"independent"``, draws
  n_pairs independent pairs (sigma_t, nu_t) and compares the values m(sigma_t, nu_t). The two
  give the same distribution of each metric's values but a different joint distribution when
  one metric is left-invariant (e.g. set based) and the other right-invariant (e.g. Kendall's
  tau on the raw arrays), so the two readings give different matrices.
- *Undefined values.* Pairs where either metric is nan (LR+ when FPR = 0) are left out of both
  numerator and denominator.
- *Reading of the rankings* (``numbering=``), as everywhere in rankbook (:mod:`rankbook.metrics`,
  *Reading a ranking*): permutation arrays as given by default, paper A's reading; label lists
  (a sample with its reference) numbered by the reference; ``numbering="pair"`` numbers
  permutation arrays by the reference too. With the identity as reference the two readings give
  the same values; they differ under ``protocol="independent"`` and for another reference.

A consequence worth knowing when reading Figure 1: with as many relevant as retrieved items
(:math:`|R| = |S| = k`, the paper's setting) every confusion-matrix metric is a monotone function of TP
alone (e.g. MCC = (n TP - k^2) / (k (n - k))), so any two of the 19 are consistent and their
agreement ratio is exactly 1 after reversal, whatever the sample.

The agreement ratio is a concordance count, computed without looking at pairs of sample
elements. Each metric's values are replaced once by their dense ranks. When the product of the
two metrics' numbers of distinct values D1 D2 is small compared with :math:`|T|` (a confusion-matrix
metric takes about 18 values on Figure 1's sample, MAE, Kendall's tau and the mean rank a few
hundred), the concordant, discordant and tied pairs are read off their contingency table with
cumulative sums, in :math:`O(|T| + D_1 D_2)` and without sorting. Otherwise the sample is sorted by (m1, m2) and by
(m2, m1) and the discordant pairs are the inversions between the two orders, counted in
:math:`O(|T| \\log |T|)` with :func:`rankbook.permutations.inversion_count`; ties come from group sizes, as
in the tau-b computation. In :func:`agreement_matrix`, metrics whose dense ranks coincide (or
coincide reversed), such as the TP-only metrics or MSE, RMSE, R2 and Spearman's rho, share their
counts, which are integers, so the ratios are exactly those of the pair-by-pair computation.
:func:`agreement_ratio_bruteforce` is the :math:`O(|T|^2)` reference.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple, Optional

import numpy as np
import pandas as pd

from . import metrics as _metrics
from ._validation import check_choice, check_int
from . import permutations as _perm
from . import concordance as _concordance
from .concordance import _counts_from_codes, _dense_codes, _pairs_in, concordance_counts  # noqa: F401

__all__ = [
    "TIES",
    "REVERSE",
    "PROTOCOLS",
    "triple_inconsistent",
    "pair_consistent",
    "concordance_counts",
    "agreement_ratio_from_values",
    "agreement_ratio_bruteforce",
    "agreement_ratio",
    "AgreementRatio",
    "per_element_counts",
    "are_consistent",
    "WITNESS_READINGS",
    "inconsistency_witness",
    "witness_from_values",
    "sample",
    "agreement_matrix",
    "agreement_matrix_from_values",
    "agreement_intervals",
    "agreement_intervals_from_values",
    "ReversedMatrix",
    "AgreementSample",
    "evaluate_sample",
]

TIES = ("def1", "def1_ordered", "lenient")
REVERSE = ("auto", "none", "orient")
PROTOCOLS = ("reference", "independent")


def _metric_func(m):
    if callable(m):
        return m
    if isinstance(m, str) and m in _metrics.REGISTRY:
        return _metrics.REGISTRY[m].func
    raise ValueError(
        f"metric must be a callable or one of the names in rankbook.metrics.NAMES "
        f"({', '.join(_metrics.NAMES)}); got {m!r}"
    )


def _values(m, reference, rankings, k, numbering="given"):
    """The values ``m(reference, r)`` of checked rankings (int64 permutations, the reference of
    shape (n,)): a registered metric through the kernels without checking the rankings again; a
    user's function through :func:`rankbook.pairwise.pairwise_to` (of one pair or of a batch;
    ``k`` only when it has a ``k`` parameter), numbered as ``numbering`` says."""
    if isinstance(m, str):
        return np.asarray(_metrics._evaluate([m], reference, rankings, k, numbering,
                                             checked=True)[m], dtype=np.float64)
    from .pairwise import pairwise_to

    n = reference.shape[-1]
    out = pairwise_to(rankings.reshape(-1, n), reference, m, k=k, numbering=numbering)
    return out.reshape(rankings.shape[:-1])


def _reference(reference, n):
    if reference is None:
        return _perm.identity(n)
    ref = _perm.validate(reference)
    if ref.ndim != 1:
        raise ValueError(f"reference must be one ranking of shape (n,), got shape {ref.shape}")
    if ref.shape[-1] != n:  # said in the caller's words, not as sigma and nu
        raise ValueError(f"reference ranks {ref.shape[-1]} items and the rankings {n}; the "
                         "reference must rank the same items")
    return ref


def _checked_rankings(rankings, reference, numbering, *, two_d=True, what="rankings"):
    """The one check of the sample and the reference of a public function of this module.

    Returns ``(rankings, reference, numbering)``: int64 permutations (shape (T, n) when
    ``two_d``), the reference of shape (n,) (the identity by default) and the resolved reading.
    Label lists are numbered by the reference (:func:`rankbook.permutations.from_labels`), the
    reading of label lists everywhere in rankbook; they need a reference of the same items.
    """
    labels = _perm.is_label_ranking(rankings) or (
        reference is not None and _perm.is_label_ranking(reference))
    numbering = _metrics.check_numbering(numbering, labels)
    if labels:
        if not two_d:
            raise ValueError(f"{what} is a label list: number the rankings by the reference "
                             "first (rankbook.permutations.from_labels(reference, ...)); this "
                             "function takes permutation arrays")
        if reference is None:
            raise ValueError(f"{what} are label lists: give the reference ranking of the same "
                             "items (reference=...), by which they are numbered")
        if isinstance(rankings, str):
            raise ValueError(f"{what} must be a sample of T >= 2 rankings, got one string "
                             f"{rankings!r}")
        numbered = _perm.from_labels(reference, *list(rankings))
        r, ref = numbered[1:], numbered[0]  # the reference is now the identity
    else:
        r = _perm.validate(rankings)
        ref = _reference(reference, r.shape[-1])
    if two_d and r.ndim != 2:
        raise ValueError(f"{what} must have shape (T, n), got {r.shape}")
    return r, ref, numbering


# ----------------------------------------------------------------------------------------------
# Def. 1 on a triple and on a pair
# ----------------------------------------------------------------------------------------------


def triple_inconsistent(m1, m2, sigma, mu, nu, k=None, reference=None, numbering=None):
    """True where the triple (sigma, mu, nu) satisfies eq. 1 of Def. 1 (a witness of inconsistency).

    Parameters
    ----------
    m1, m2 : str or callable
        Metric names from :data:`rankbook.metrics.NAMES` or callables ``f(ref, r, k=None)``.
    sigma, mu, nu : array_like of shape (n,) or (..., n)
        The three rankings (batch axes broadcast).
    k : int, optional
        Passed to both metrics.
    reference : array_like, optional
        The ranking the others are compared with; the identity by default, as in the paper.
    numbering : {None, "given", "pair"}
        The reading of the rankings, as in :func:`rankbook.metrics.evaluate`: as given by
        default (paper A's), or numbered by the reference (``"pair"``; the same values when the
        reference is the identity).

    Returns
    -------
    bool or ndarray of bool
        Comparisons involving nan are False (a nan value witnesses nothing).

    Examples
    --------
    >>> # MSE (lower is closer) and Kendall's tau (higher is closer) order any two rankings
    >>> # oppositely when one of them is the identity...
    >>> bool(triple_inconsistent("mse", "kendall_tau", [1, 2, 3], [1, 2, 3], [2, 1, 3]))
    True
    >>> bool(triple_inconsistent("mse", "rmse", [1, 2, 3], [1, 2, 3], [2, 1, 3]))
    False
    """
    s, ref, numbering = _checked_rankings(sigma, reference, numbering, two_d=False, what="sigma")
    u, v = _perm.validate(mu), _perm.validate(nu)
    for name, r in (("mu", u), ("nu", v)):
        if r.shape[-1] != ref.shape[-1]:
            raise ValueError(f"{name} ranks {r.shape[-1]} items and sigma {ref.shape[-1]}: the "
                             "three rankings must rank the same items")
    _metric_func(m1), _metric_func(m2)
    a1, b1, c1 = (_values(m1, ref, r, k, numbering) for r in (s, u, v))
    a2, b2, c2 = (_values(m2, ref, r, k, numbering) for r in (s, u, v))
    out = (a1 <= b1) & (a2 <= b2) & (a1 <= c1) & (a2 > c2)
    return out[()] if out.ndim == 0 else out


def _consistent_from_diffs(d1, d2, ties):
    s1, s2 = np.sign(d1), np.sign(d2)
    if ties == "def1":
        ok = s1 == s2
    elif ties == "def1_ordered":
        # inconsistent iff in some order m1 weakly prefers one ranking and m2 strictly the other
        ok = (s2 == 0) | (s1 == s2)
    else:  # lenient
        ok = s1 * s2 >= 0
    return ok


def pair_consistent(m1, m2, mu, nu, k=None, reference=None, ties="def1", numbering=None):
    """The indicator f of Def. 2: are mu and nu ordered alike by m1 and m2 (w.r.t. the reference)?

    Parameters
    ----------
    m1, m2 : str or callable
        Metric names from :data:`rankbook.metrics.NAMES` or callables ``f(ref, r, k=None)``.
    mu, nu : array_like of shape (n,) or (..., n)
        The two rankings compared (batch axes broadcast).
    k : int, optional
        Passed to both metrics.
    reference : array_like, optional
        The ranking both are compared with; the identity by default.
    ties : {"def1", "def1_ordered", "lenient"}
        How a tie in one metric is read (see the module docstring).
    numbering : {None, "given", "pair"}
        The reading of the rankings, as in :func:`triple_inconsistent`.

    Returns
    -------
    float or ndarray of float
        1.0 where consistent, 0.0 where not, nan where either metric is undefined on mu or nu.

    Examples
    --------
    >>> bool(pair_consistent("precision", "recall", [1, 2, 3, 4], [3, 4, 1, 2], k=2))
    True
    >>> bool(pair_consistent("mse", "kendall_tau", [2, 1, 3, 4], [4, 3, 2, 1]))
    False
    """
    check_choice(ties, TIES, "ties")
    u, ref, numbering = _checked_rankings(mu, reference, numbering, two_d=False, what="mu")
    v = _perm.validate(nu)
    if v.shape[-1] != ref.shape[-1]:
        raise ValueError(f"nu ranks {v.shape[-1]} items and mu {ref.shape[-1]}: both must rank "
                         "the same items")
    _metric_func(m1), _metric_func(m2)
    x1, y1 = _values(m1, ref, u, k, numbering), _values(m1, ref, v, k, numbering)
    x2, y2 = _values(m2, ref, u, k, numbering), _values(m2, ref, v, k, numbering)
    ok = _consistent_from_diffs(x1 - y1, x2 - y2, ties).astype(np.float64)
    ok = np.where(np.isnan(x1 - y1) | np.isnan(x2 - y2), np.nan, ok)
    return ok[()] if ok.ndim == 0 else ok


# ----------------------------------------------------------------------------------------------
# concordance counting (the core lives in rankbook.concordance, shared with rankbook.metrics)
# ----------------------------------------------------------------------------------------------


class _PairCounts:
    """:func:`concordance_counts` for all pairs of a list of value arrays, sharing the work.

    Each array is reduced once to dense ranks (its codes). Arrays whose codes are equal, or
    equal after reversing the order of the levels, with the same nan positions, form one class:
    their counts with any other array are the same, with concordant and discordant swapped for
    a reversed member (e.g. the 19 confusion-matrix metrics, all functions of TP, or MSE, RMSE,
    R2 and Spearman's rho). The counts are computed once per pair of classes, and within a
    class they are known in closed form (no discordant pair, ties from group sizes).
    """

    def __init__(self, arrays):
        self._codes, self._levels, self._cls, self._flip = [], [], [], []
        seen = {}
        for x in arrays:
            codes, d = _dense_codes(np.asarray(x, dtype=np.float64).ravel())
            key = codes.tobytes()
            rkey = np.where(codes >= 0, d - 1 - codes, -1).tobytes()
            if key in seen:
                cls, flip = seen[key], False
            elif rkey in seen:
                cls, flip = seen[rkey], True
            else:
                cls, flip = len(self._codes), False
                seen[key] = cls
                self._codes.append(codes)
                self._levels.append(d)
            self._cls.append(cls)
            self._flip.append(flip)
        self._cache = {}

    def _class_counts(self, ci, cj) -> dict:
        if (ci, cj) not in self._cache:
            a, b = self._codes[ci], self._codes[cj]
            da, db = self._levels[ci], self._levels[cj]
            if ci == cj:
                keep = a >= 0
                t = int(keep.sum())
                pairs = t * (t - 1) // 2
                tied = _pairs_in(np.bincount(a[keep], minlength=da))
                c = dict(pairs=pairs, concordant=pairs - tied, discordant=0, tied_x=0, tied_y=0,
                         tied_both=tied)
            else:
                keep = (a >= 0) & (b >= 0)
                if not keep.all():
                    a, b = a[keep], b[keep]
                c = _counts_from_codes(a, da, b, db)
            c["dropped"] = int(keep.size - keep.sum())
            self._cache[ci, cj] = c
        return self._cache[ci, cj]

    def __call__(self, i, j) -> dict:
        """The counts of concordance_counts(arrays[i], arrays[j])."""
        ci, cj = self._cls[i], self._cls[j]
        if ci <= cj:
            c = dict(self._class_counts(ci, cj))
        else:
            c = dict(self._class_counts(cj, ci))
            c["tied_x"], c["tied_y"] = c["tied_y"], c["tied_x"]
        if self._flip[i] != self._flip[j]:
            c["concordant"], c["discordant"] = c["discordant"], c["concordant"]
        return c


def _ratio(c: dict, ties: str, flip: bool) -> float:
    if c["pairs"] == 0:
        return float("nan")
    conc, disc = (c["discordant"], c["concordant"]) if flip else (c["concordant"], c["discordant"])
    if ties == "def1":
        good = conc + c["tied_both"]
    elif ties == "def1_ordered":
        good = conc + c["tied_both"] + c["tied_y"]
    else:
        good = c["pairs"] - disc
    return good / c["pairs"]


class AgreementRatio(NamedTuple):
    """An agreement ratio with its interval (``ci=True``): ``ratio``, ``low``, ``high``,
    ``n_effective`` (the number of independent pairs the interval is worth, see
    :func:`agreement_ratio`) and ``confidence``."""

    ratio: float
    low: float
    high: float
    n_effective: float
    confidence: float


def _smaller_before(v: np.ndarray) -> np.ndarray:
    """For each position i, the number of j < i with v[j] < v[i] (integers >= 0).

    Bottom-up merge counting, vectorised per level: at block width w, every element of a
    right half-block counts the elements of its left half-block below it with one global
    ``searchsorted`` (block number times a stride plus the value keeps the blocks apart).
    O(t log^2 t) time, O(t) memory.
    """
    t = v.size
    out = np.zeros(t, dtype=np.int64)
    if t < 2:
        return out
    v = v.astype(np.int64) - int(v.min())
    stride = int(v.max()) + 1
    pos = np.arange(t, dtype=np.int64)
    srt = v.copy()  # values sorted within blocks of width w
    w = 1
    while w < t:
        pair = pos // (2 * w)
        right = (pos // w) % 2 == 1
        left_keys = (pair * stride + srt)[~right]  # sorted: pairs in order, sorted inside
        q = pair[right] * stride + v[right]
        start = np.searchsorted(left_keys, pair[right] * stride, side="left")
        out[right] += np.searchsorted(left_keys, q, side="left") - start
        srt = np.sort(pair * stride + srt) - pair * stride
        w *= 2
    return out


def _dominated(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """For each i, the number of j with a[j] < a[i] and b[j] < b[i] (both strict)."""
    order = np.lexsort((-b, a))  # by a, and by b descending among equal a
    counts = np.empty(a.size, dtype=np.int64)
    counts[order] = _smaller_before(b[order])
    return counts


def per_element_counts(x, y) -> dict:
    """For each sample element, how the pairs it belongs to split: concordant, discordant, tied.

    The per-element version of :func:`concordance_counts`: for element i, ``concordant[i]``
    counts the j with both differences of the same strict sign, ``discordant[i]`` of opposite
    signs, ``tied_x[i]`` (``tied_y[i]``) those tied in x (y) only and ``tied_both[i]`` those
    tied in both; the five add up to T - 1 and their halved sums are the pair counts. Used for
    the standard error of an agreement ratio (a U-statistic). From the contingency table when
    the two variables take few values, else by merge counting in O(T log^2 T).

    Parameters
    ----------
    x, y : array_like of shape (T,)
        No nan (drop them first).

    Returns
    -------
    dict
        ``concordant``, ``discordant``, ``tied_x``, ``tied_y``, ``tied_both``: int arrays of
        shape (T,).

    Examples
    --------
    >>> c = per_element_counts([1, 2, 2, 3], [1, 3, 2, 2])
    >>> c["concordant"].tolist(), c["discordant"].tolist()
    ([3, 1, 1, 1], [0, 1, 0, 1])
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same number of values, got {x.size} and {y.size}")
    if np.isnan(x).any() or np.isnan(y).any():
        raise ValueError("per_element_counts: drop the nan values first")
    a, da = _dense_codes(x)
    b, db = _dense_codes(y)
    t = a.size
    if t == 0:
        z = np.zeros(0, dtype=np.int64)
        return dict(concordant=z, discordant=z, tied_x=z, tied_y=z, tied_both=z)
    if da * db <= _concordance._TABLE_CELLS_PER_VALUE * max(t, 512):
        table = np.bincount(a * db + b, minlength=da * db).reshape(da, db)
        def excl(m, axis):
            c = np.cumsum(m, axis=axis)
            return c - m

        ll = excl(excl(table, 0), 1)  # a' < a and b' < b
        hh = excl(excl(table[::-1, ::-1], 0), 1)[::-1, ::-1]
        lh = excl(excl(table[:, ::-1], 0), 1)[:, ::-1]  # a' < a and b' > b
        hl = excl(excl(table[::-1, :], 0), 1)[::-1, :]
        conc = (ll + hh)[a, b]
        disc = (lh + hl)[a, b]
        same = table[a, b]
        per_a, per_b = table.sum(axis=1)[a], table.sum(axis=0)[b]
    else:
        conc = _dominated(a, b) + _dominated(-a, -b)
        disc = _dominated(a, -b) + _dominated(-a, b)
        _, inv, cnt = np.unique(a * db + b, return_inverse=True, return_counts=True)
        same = cnt[inv.ravel()]
        per_a, per_b = np.bincount(a, minlength=da)[a], np.bincount(b, minlength=db)[b]
    both = same - 1
    tx = per_a - same
    ty = per_b - same
    return dict(concordant=conc.astype(np.int64), discordant=disc.astype(np.int64),
                tied_x=tx.astype(np.int64), tied_y=ty.astype(np.int64),
                tied_both=both.astype(np.int64))


def _interval(x, y, ties, flip, confidence):
    """Wilson interval of an agreement ratio with the effective number of pairs of its
    U-statistic variance (Hoeffding), see agreement_ratio."""
    from .stats import wilson_interval

    keep = ~(np.isnan(x) | np.isnan(y))
    pe = per_element_counts(x[keep], y[keep])
    t = int(keep.sum())
    if t < 2:
        return float("nan"), float("nan"), float("nan")
    conc, disc = (pe["discordant"], pe["concordant"]) if flip else (pe["concordant"], pe["discordant"])
    if ties == "def1":
        good = conc + pe["tied_both"]
    elif ties == "def1_ordered":
        good = conc + pe["tied_both"] + pe["tied_y"]
    else:
        good = (t - 1) - disc
    h = good / (t - 1)  # each element's share of consistent partners
    u = float(h.mean())
    zeta1 = float(((h - u) ** 2).sum() / (t - 1)) if t > 2 else 0.0
    pairs = t * (t - 1) / 2
    var = 4 * (t - 2) / (t * (t - 1)) * zeta1 + 2 / (t * (t - 1)) * u * (1 - u)
    if u * (1 - u) > 0 and var > 0:
        n_eff = float(np.clip(u * (1 - u) / var, t / 2, pairs))
    else:
        n_eff = t / 2  # a ratio of exactly 0 or 1: the most conservative size
    low, high = wilson_interval(u * n_eff, n_eff, confidence)
    return low, high, n_eff


def _check_orient(orient) -> None:
    """``orient`` is a pair of booleans (higher is closer, for m1 and m2)."""
    if (not isinstance(orient, (tuple, list)) or len(orient) != 2
            or not all(isinstance(o, (bool, np.bool_)) for o in orient)):
        raise ValueError(f"orient must be a pair of booleans (higher is closer for m1, for m2), "
                         f"such as (True, False); got {orient!r}")


def agreement_ratio_from_values(x, y, ties="def1", reverse="none", orient=(True, True), *,
                                ci=False, confidence=0.95):
    """Agreement ratio of two metrics from their values on the sample T (Def. 2).

    Parameters
    ----------
    x, y : array_like of shape (T,)
        Values of m1 and m2 on the same T elements.
    ties : {"def1", "def1_ordered", "lenient"}
        See the module docstring.
    reverse : {"none", "auto", "orient"}
        ``"auto"``: use -m2 where AR(m1, m2) < 1/2 (the paper's rule). ``"orient"``: negate each
        metric whose ``orient`` flag (higher is closer) is False.
    orient : tuple of bool
        ``higher_is_closer`` of m1 and m2, used with ``reverse="orient"``.
    ci : bool
        Also return the interval (see :func:`agreement_ratio`).
    confidence : float

    Returns
    -------
    ratio : float or AgreementRatio
        In [0, 1]; nan if fewer than two values are defined in both. With ``ci=True`` an
        :class:`AgreementRatio` (ratio, low, high, n_effective, confidence).

    Examples
    --------
    >>> agreement_ratio_from_values([1, 2, 3, 4], [1, 2, 4, 3])
    0.8333333333333334
    >>> agreement_ratio_from_values([1, 2, 3, 4], [4, 3, 2, 1], reverse="auto")
    1.0
    """
    check_choice(ties, TIES, "ties")
    check_choice(reverse, REVERSE, "reverse")
    _check_orient(orient)
    c = concordance_counts(x, y)
    flip = False
    if reverse == "orient":
        flip = bool(orient[0]) != bool(orient[1])
    ratio = _ratio(c, ties, flip)
    if reverse == "auto" and ratio < 0.5:
        ratio, flip = _ratio(c, ties, True), True
    if not ci:
        return ratio
    xv = np.asarray(x, dtype=np.float64).ravel()
    yv = np.asarray(y, dtype=np.float64).ravel()
    low, high, n_eff = _interval(xv, yv, ties, flip, confidence)
    return AgreementRatio(ratio, low, high, n_eff, float(confidence))


def agreement_ratio_bruteforce(x, y, ties="def1", reverse="none", orient=(True, True)):
    """O(T^2) reference for :func:`agreement_ratio_from_values` (for tests and small samples).

    Sums the Def. 2 indicator over all ordered pairs mu != nu and divides by T (T - 1).

    Parameters
    ----------
    x, y : array_like of shape (T,)
        The two metrics' values on the same sample elements.
    ties, reverse, orient
        As in :func:`agreement_ratio_from_values`.

    Returns
    -------
    float

    Examples
    --------
    >>> agreement_ratio_bruteforce([1, 2, 3, 4], [1, 2, 4, 3])
    0.8333333333333334
    """
    check_choice(ties, TIES, "ties")
    check_choice(reverse, REVERSE, "reverse")
    _check_orient(orient)
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    t = x.size
    if t < 2:
        return float("nan")
    if reverse == "orient" and bool(orient[0]) != bool(orient[1]):
        y = -y
    off = ~np.eye(t, dtype=bool)

    def ratio(yy):
        # the literal double sum over ordered pairs (i, j), i != j, as a T x T table
        ok = _consistent_from_diffs(x[:, None] - x[None, :], yy[:, None] - yy[None, :], ties)
        return ok[off].sum() / (t * (t - 1))

    r = ratio(y)
    if reverse == "auto" and r < 0.5:
        r = ratio(-y)
    return float(r)


def agreement_ratio(m1, m2, rankings, k=None, reference=None, ties="def1", reverse="auto", *,
                    ci=False, confidence=0.95, numbering=None):
    """The sigma agreement ratio AR^sigma_{m1, m2} of Def. 2 over the sample T = ``rankings``.

    The defaults are those of :func:`agreement_matrix` and of Figure 1 of the paper:
    ``reverse="auto"`` (compare with -m2 where most pairs disagree) and ``ties="def1"``.

    Interval (``ci=True``). The ratio averages an indicator over all
    :math:`|T|(|T|-1)/2` pairs of sample elements, but those pairs share elements, so they
    are not independent trials: a binomial interval with that many trials would be far too
    narrow. The ratio is a U-statistic of order 2, and its variance is (Hoeffding
    :cite:`hoeffding1948class`)

    .. math::

        \\operatorname{Var}(U) \\approx \\frac{4(t-2)}{t(t-1)} \\zeta_1
            + \\frac{2}{t(t-1)} U(1-U),

    with :math:`t = |T|` and :math:`\\zeta_1` the variance over elements of each element's
    share of consistent partners (:func:`per_element_counts`). The interval is the Wilson
    interval (:func:`rankbook.stats.wilson_interval`) with the *effective* number of pairs
    :math:`n_{eff} = U(1-U)/\\operatorname{Var}(U)`, clipped to
    :math:`[t/2, t(t-1)/2]` (the bounds :math:`0 \\le \\zeta_1 \\le U(1-U)/2` allow), the
    design-effect construction of Korn and Graubard :cite:`korn1998confidence`. A ratio of
    exactly 0 or 1 gets :math:`n_{eff} = t/2`, the conservative end. The interval describes
    the sampling error of T, so it is valid for the random samples of Figure 1, not for a
    fixed set of rankings.

    Parameters
    ----------
    m1, m2 : str or callable
        Names of :data:`rankbook.metrics.NAMES`, or functions ``f(sigma, nu)`` of two
        rankings (or of a ranking and a batch of them, one value per ranking), with a ``k``
        parameter if they take a cut-off, as :func:`rankbook.pairwise.pairwise` takes them.
    rankings : array_like of shape (T, n), or T label lists
        The sample T of S_n; label lists are numbered by the reference (which they then need).
    k : int, optional
        The cut-off of the metrics that take one.
    reference : array_like of shape (n,), or a label list, optional
        sigma of Def. 2; the identity by default.
    ties, reverse : str
        See :func:`agreement_ratio_from_values`; ``reverse="none"`` gives the raw ratio.
    ci : bool
        Return the ratio with its interval (above) instead of the ratio alone.
    confidence : float
        The interval's level, 0 < confidence < 1.
    numbering : {None, "given", "pair"}
        The reading of the rankings, as in :func:`rankbook.metrics.evaluate`: permutation
        arrays as given by default (paper A's reading), label lists numbered by the reference;
        ``"pair"`` numbers permutation arrays by the reference too (the same values when the
        reference is the identity).

    Returns
    -------
    float
        The ratio; with ``ci=True`` an :class:`AgreementRatio` (``ratio``, ``low``, ``high``,
        ``n_effective``, ``confidence``).

    Examples
    --------
    >>> T = [[1, 2, 3, 4], [2, 1, 3, 4], [1, 2, 4, 3], [1, 4, 3, 2], [2, 3, 4, 1]]
    >>> agreement_ratio("mse", "rmse", T)
    1.0
    >>> # MSE 2 < 3 on the last two rankings where tau ties at 0: one pair of ten disagrees
    >>> agreement_ratio("mse", "kendall_tau", T, reverse="auto")
    0.9
    >>> agreement_ratio("mse", "kendall_tau", T, reverse="auto", ties="lenient")
    1.0
    >>> r = agreement_ratio("mse", "kendall_tau", T, ci=True)
    >>> round(r.ratio, 2), round(r.low, 3), round(r.high, 3), round(r.n_effective, 2)
    (0.9, 0.439, 0.99, 4.44)
    """
    r, ref, numbering = _checked_rankings(rankings, reference, numbering)
    _metric_func(m1), _metric_func(m2)
    orient = tuple(
        _metrics.REGISTRY[m].higher_is_closer if isinstance(m, str) else True for m in (m1, m2)
    )
    if reverse == "orient" and not (isinstance(m1, str) and isinstance(m2, str)):
        raise ValueError('reverse="orient" needs metric names (to look up higher_is_closer)')
    return agreement_ratio_from_values(
        _values(m1, ref, r, k, numbering), _values(m2, ref, r, k, numbering), ties=ties,
        reverse=reverse, orient=orient,
        ci=ci, confidence=confidence,
    )


def are_consistent(m1, m2, n, k=None, reference=None, numbering=None) -> bool:
    """Def. 1 decided exhaustively over S_n (n <= 8): True if no triple satisfies eq. 1.

    Uses the literal (one-sided) tie rule of eq. 1, so the answer may depend on the order of
    m1 and m2 (e.g. a metric that is constant where the other is not).

    Parameters
    ----------
    m1, m2 : str or callable
        Metric names from :data:`rankbook.metrics.NAMES` or callables ``f(ref, r, k=None)``.
    n : int
        The size of the symmetric group enumerated, 1 <= n <= 8.
    k : int, optional
        Passed to both metrics.
    reference : array_like of shape (n,), optional
        The reference ranking; the identity by default.
    numbering : {None, "given", "pair"}
        The reading of the rankings, as in :func:`triple_inconsistent`.

    Returns
    -------
    bool

    Examples
    --------
    >>> are_consistent("dcg", "ndcg", 5), are_consistent("mse", "kendall_tau", 4)
    (True, False)
    """
    n = check_int(n, "n", low=1, high=8, explain="are_consistent enumerates S_n")
    allp = _perm.all_permutations(n)
    ref = _reference(reference, n)
    numbering = _metrics.check_numbering(numbering)
    _metric_func(m1), _metric_func(m2)
    x, y = _values(m1, ref, allp, k, numbering), _values(m2, ref, allp, k, numbering)
    c = concordance_counts(x, y)
    return c["discordant"] + c["tied_x"] == 0


#: Readings of eq. 1 for :func:`inconsistency_witness`: ``"literal"`` lets mu be sigma (then
#: the first line of eq. 1 always holds); ``"distinct"`` asks sigma, mu, nu to be three
#: different rankings, the reading under which the first line constrains anything.
WITNESS_READINGS = ("literal", "distinct")


def witness_from_values(x, y, reading: str = "literal"):
    """Indices (s, u, v) of a triple satisfying eq. 1 of Def. 1 on given values, or None.

    ``x[i]`` and ``y[i]`` are the values :math:`m_1(\\mathrm{id}, \\pi_i)` and
    :math:`m_2(\\mathrm{id}, \\pi_i)` of the same rankings (e.g. all of S_n); the triple is
    returned as indices into them. ``"literal"``: sort by x ascending and y descending; a
    witness (s, s, v) exists iff some element has a smaller y than an element before it (x
    weakly smaller there, y strictly larger), O(N log N). ``"distinct"``: rows of the N x N
    comparison tables, chunked. nan values witness nothing. :func:`inconsistency_witness`
    computes the values for two metrics.

    Parameters
    ----------
    x, y : array_like of shape (N,)
        The two metrics' values on the same rankings.
    reading : {"literal", "distinct"}
        See :data:`WITNESS_READINGS`.

    Returns
    -------
    tuple of three int, or None
        Indices ``(s, u, v)`` of sigma, mu and nu.

    Examples
    --------
    >>> witness_from_values([0, 1, 2], [0, 1, 2]) is None
    True
    >>> witness_from_values([0, 1, 2], [0, 2, 1])   # mu = sigma = 1, nu = 2
    (1, 1, 2)
    >>> witness_from_values([0, 1, 2, 3], [0, 2, 1, 3], "distinct")   # mu = 3 now
    (1, 3, 2)
    """
    check_choice(reading, WITNESS_READINGS, "reading")
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same number of values, got {x.size} and {y.size}")
    keep = np.flatnonzero(~(np.isnan(x) | np.isnan(y)))
    x, y = x[keep], y[keep]
    if reading == "literal":
        order = np.lexsort((-y, x))
        ys = y[order]
        run = np.maximum.accumulate(ys)
        bad = np.flatnonzero(ys < run)
        if bad.size == 0:
            return None
        j = int(bad[0])
        i = int(np.flatnonzero(ys[:j] == run[j])[0])  # an earlier element with the larger y
        s, v = keep[order[i]], keep[order[j]]
        return int(s), int(s), int(v)
    N = x.size
    step = max(1, (1 << 22) // max(N, 1))
    for a in range(0, N, step):
        xs, ys = x[a : a + step, None], y[a : a + step, None]
        second = (xs <= x[None, :]) & (ys > y[None, :])  # nu: m1 weakly, m2 strictly against
        first = (xs <= x[None, :]) & (ys <= y[None, :])  # mu: both weakly for
        rows = np.arange(len(xs))
        first[rows, a + rows] = False  # mu != sigma (mu != nu holds: ys > y there)
        ok = second.any(axis=1) & first.any(axis=1)
        if ok.any():
            r = int(np.flatnonzero(ok)[0])
            u, v = int(np.flatnonzero(first[r])[0]), int(np.flatnonzero(second[r])[0])
            return int(keep[a + r]), int(keep[u]), int(keep[v])
    return None


def inconsistency_witness(m1, m2, n, k=None, reference=None, reading="literal", numbering=None):
    """Three rankings (sigma, mu, nu) satisfying eq. 1 of Def. 1, found exhaustively on S_n, or None.

    Def. 1 of :cite:`paperA` calls m1 and m2 inconsistent when some triple satisfies

    .. math::
        m_1(\\mathrm{id}, \\sigma) \\le m_1(\\mathrm{id}, \\mu) \\wedge
        m_2(\\mathrm{id}, \\sigma) \\le m_2(\\mathrm{id}, \\mu), \\quad
        m_1(\\mathrm{id}, \\sigma) \\le m_1(\\mathrm{id}, \\nu) \\wedge
        m_2(\\mathrm{id}, \\sigma) > m_2(\\mathrm{id}, \\nu).

    ``reading="literal"`` (the text as printed) allows :math:`\\mu = \\sigma`, and then the
    answer is ``None`` exactly when :func:`are_consistent` is True; ``"distinct"`` asks for
    three different rankings (n <= 7). Undefined (nan) values witness nothing.

    Parameters
    ----------
    m1, m2 : str or callable
        Metric names from :data:`rankbook.metrics.NAMES` or callables ``f(ref, r, k=None)``.
    n : int
        The size of the symmetric group enumerated (n <= 8, or 7 for the distinct reading).
    k : int, optional
        Passed to both metrics.
    reference : array_like of shape (n,), optional
        The reference ranking; the identity by default.
    reading : {"literal", "distinct"}
        See :data:`WITNESS_READINGS`.
    numbering : {None, "given", "pair"}
        The reading of the rankings, as in :func:`triple_inconsistent`.

    Returns
    -------
    tuple of three int arrays, or None

    Examples
    --------
    >>> from rankbook.metrics import kendall_tau
    >>> flip = lambda ref, r, k=None: 0.5 - kendall_tau(ref, r)   # a decreasing linear image
    >>> [r.tolist() for r in inconsistency_witness("kendall_tau", flip, 3)]
    [[3, 2, 1], [3, 2, 1], [2, 3, 1]]
    >>> inconsistency_witness("dcg", "ndcg", 4) is None
    True
    """
    check_choice(reading, WITNESS_READINGS, "reading")
    top = 8 if reading == "literal" else 7
    n = check_int(n, "n", low=1, high=top,
                  explain=f"inconsistency_witness enumerates S_n for reading {reading!r}")
    allp = _perm.all_permutations(n)
    ref = _reference(reference, n)
    numbering = _metrics.check_numbering(numbering)
    _metric_func(m1), _metric_func(m2)
    x, y = _values(m1, ref, allp, k, numbering), _values(m2, ref, allp, k, numbering)
    hit = witness_from_values(x, y, reading)
    if hit is None:
        return None
    return tuple(allp[i].copy() for i in hit)


# ----------------------------------------------------------------------------------------------
# Figure 1
# ----------------------------------------------------------------------------------------------


class ReversedMatrix:
    """Which entries of an agreement matrix were computed with -m2 (``df.attrs["reversed"]``).

    A small immutable object rather than a DataFrame, because pandas compares ``attrs`` with
    ``==`` when it combines frames (``concat``, ``melt``), which a DataFrame cannot answer.

    Examples
    --------
    >>> r = ReversedMatrix(["a", "b"], [[False, True], [True, False]])
    >>> r.to_numpy().tolist(), bool(r.loc["a", "b"])
    ([[False, True], [True, False]], True)
    """

    def __init__(self, names, mask):
        self.names = tuple(names)
        self._mask = tuple(tuple(bool(v) for v in row) for row in np.asarray(mask, dtype=bool))

    def to_numpy(self) -> np.ndarray:
        return np.array(self._mask, dtype=bool).reshape(len(self.names), len(self.names))

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.to_numpy(), index=list(self.names), columns=list(self.names))

    @property
    def loc(self):
        return self.to_frame().loc

    def __eq__(self, other):
        return isinstance(other, ReversedMatrix) and (self.names, self._mask) == (other.names, other._mask)

    def __hash__(self):
        return hash((self.names, self._mask))

    def __repr__(self):
        return f"ReversedMatrix({sum(map(sum, self._mask))} of {len(self.names) ** 2} entries reversed)"


def sample(n: int, n_pairs: int, seed=None, protocol: str = "reference"):
    """Draw the sample T of :func:`agreement_matrix`: (references, rankings), each (n_pairs, n).

    ``"reference"``: every reference is the identity, the rankings are uniform. ``"independent"``:
    references and rankings are independent uniform permutations.

    Parameters
    ----------
    n : int
        Length of the rankings.
    n_pairs : int
        Size of the sample, at least 2.
    seed : int, numpy.random.Generator or None
        Seed of the draw.
    protocol : {"reference", "independent"}
        See :data:`PROTOCOLS`.

    Returns
    -------
    references, rankings : ndarray of int64, shape (n_pairs, n)
        (the references a read-only broadcast of the identity under ``"reference"``).

    Examples
    --------
    >>> ref, r = sample(4, 3, seed=0)
    >>> ref.tolist()
    [[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]]
    """
    check_choice(protocol, PROTOCOLS, "protocol")
    n_pairs = check_int(n_pairs, "n_pairs", low=2)
    rng = np.random.default_rng(seed)
    if protocol == "reference":
        refs = np.broadcast_to(_perm.identity(n), (int(n_pairs), int(n)))
        return refs, _perm.random(n, size=int(n_pairs), rng=rng)
    refs = _perm.random(n, size=int(n_pairs), rng=rng)
    return refs, _perm.random(n, size=int(n_pairs), rng=rng)


def agreement_matrix(
    names: Optional[Iterable[str]] = None,
    n: int = 100,
    n_pairs: int = 10000,
    k: Optional[int] = 30,
    seed=0,
    protocol: str = "reference",
    reverse: str = "auto",
    ties: str = "def1",
    pairs=None,
    numbering: Optional[str] = None,
) -> pd.DataFrame:
    """The agreement ratios of all pairs of metrics on one random sample (Figure 1 of paper A).

    The defaults (``reverse="auto"``, ``ties="def1"``) are those of :func:`agreement_ratio`.
    ``pairs`` replaces the random sample by your own: a tuple ``(references, rankings)`` of
    arrays of shape (T, n) (or one reference of shape (n,)), each a permutation of 1..n, or one
    reference label list and T label lists of the same items, numbered by the reference
    (:func:`rankbook.permutations.from_labels`). ``n``, ``n_pairs``, ``seed`` and
    ``protocol`` are then ignored.

    Parameters
    ----------
    names : iterable of str, optional
        Metric names; all 33 (:data:`rankbook.metrics.NAMES`) by default.
    n : int
        Length of the rankings (100 in the paper).
    n_pairs : int
        Size of the sample T (10000 in the paper).
    k : int or None
        Relevant = retrieved items (30 in the paper); required if a metric needs it.
    seed : int or None
        Seed of the sample.
    protocol : {"reference", "independent"}
        How the 10000 "random pairs of rankings" are read (see the module docstring).
    reverse : {"auto", "none", "orient"}
        The paper's rule is ``"auto"`` (use -m2 where most pairs disagree).
    ties : {"def1", "def1_ordered", "lenient"}
        How a tie in one metric is read (see the module docstring).
    pairs : tuple (references, rankings), optional
        Your own sample instead of the random one (see above).
    numbering : {None, "given", "pair"}
        The reading of the rankings, as in :func:`rankbook.metrics.evaluate`: as given by
        default (paper A's reading; under ``protocol="independent"`` the metrics that read the
        item numbers then depend on each reference), or each pair numbered by its reference
        (``"pair"``). Label lists in ``pairs`` are numbered by their reference.

    Returns
    -------
    pandas.DataFrame
        Square, indexed and labelled by ``names``, values in [0, 1]. With ``ties`` "def1" or
        "lenient" it is symmetric with 1 on the diagonal. ``df.attrs`` records the parameters,
        ``df.attrs["reversed"]`` (a :class:`ReversedMatrix`, with ``to_numpy()``, ``to_frame()``
        and ``loc``) which entries used -m2, and ``df.attrs["dropped"]`` how many sample
        elements were left out as nan per metric.

    Examples
    --------
    >>> df = agreement_matrix(["dcg", "ndcg", "mse", "rmse", "kendall_tau"], n=20, n_pairs=300, k=5)
    >>> df.loc["dcg", "ndcg"], df.loc["mse", "rmse"], bool((df.values == df.values.T).all())
    (1.0, 1.0, True)
    """
    check_choice(reverse, REVERSE, "reverse")
    check_choice(ties, TIES, "ties")
    smp = evaluate_sample(names, n=n, n_pairs=n_pairs, k=k, seed=seed, protocol=protocol,
                          pairs=pairs, numbering=numbering)
    return agreement_matrix_from_values(smp.values, smp.names, reverse=reverse, ties=ties,
                                        sample=smp)


class AgreementSample(NamedTuple):
    """The sample of :func:`agreement_matrix` with every metric's values on it
    (:func:`evaluate_sample`): ``references`` and ``rankings`` (int64 arrays of shape
    (n_pairs, n)), ``values`` (``{name: array of shape (n_pairs,)}``), ``names``, and what
    describes the sample: ``n``, ``n_pairs``, ``k``, ``seed``, ``protocol`` (``"given"`` for
    your own pairs) and ``numbering`` (the reading used)."""

    references: np.ndarray
    rankings: np.ndarray
    values: dict
    names: list
    n: int
    n_pairs: int
    k: Optional[int]
    seed: object
    protocol: str
    numbering: str

    def attrs(self) -> dict:
        """What ``agreement_matrix``'s ``attrs`` record about the sample.

        Returns
        -------
        dict
            ``n``, ``n_pairs``, ``k``, ``seed``, ``protocol`` (and ``numbering`` when it is not
            ``"given"``).
        """
        out = dict(n=self.n, n_pairs=self.n_pairs, k=self.k, seed=self.seed,
                   protocol=self.protocol)
        if self.numbering != "given":
            out["numbering"] = self.numbering
        return out


def evaluate_sample(names: Optional[Iterable[str]] = None, n: int = 100, n_pairs: int = 10000,
                    k: Optional[int] = 30, seed=0, protocol: str = "reference", pairs=None,
                    numbering: Optional[str] = None) -> AgreementSample:
    """Draw the sample of :func:`agreement_matrix` (or check your ``pairs``) and evaluate the
    metrics on it, once.

    The one place where the sample's arguments are checked: the rankings are drawn (or
    checked once) here and handed to the metrics' kernels, which do not check them again.
    :func:`agreement_matrix`, :func:`agreement_intervals` and the Figure 1 page share it, and
    :func:`agreement_matrix_from_values` turns it into the matrix.

    Parameters
    ----------
    names, n, n_pairs, k, seed, protocol, pairs, numbering
        As in :func:`agreement_matrix`.

    Returns
    -------
    AgreementSample

    Examples
    --------
    >>> smp = evaluate_sample(["mse", "ndpm"], n=6, n_pairs=4, seed=1)
    >>> smp.rankings.shape, sorted(smp.values), smp.protocol
    ((4, 6), ['mse', 'ndpm'], 'reference')
    """
    names = list(_metrics.NAMES if names is None else names)
    if not names:
        raise ValueError("names must hold at least one metric name")
    for name in names:
        if name not in _metrics.REGISTRY:
            raise _metrics._unknown(name)
    check_choice(protocol, PROTOCOLS, "protocol")
    if pairs is None:
        numbering = _metrics.check_numbering(numbering)
        refs, rankings = sample(n, n_pairs, seed=seed, protocol=protocol)
    else:
        if not (isinstance(pairs, tuple) and len(pairs) == 2):
            raise TypeError("pairs must be a tuple (references, rankings) of permutation arrays "
                            "(or of one reference label list and label lists)")
        labels = _perm.is_label_ranking(pairs[0]) or _perm.is_label_ranking(pairs[1])
        if labels:  # numbered by the one reference, the reading of label lists
            rankings, ref, numbering = _checked_rankings(pairs[1], pairs[0], numbering,
                                                         what="pairs: the rankings")
            refs = ref
        else:
            numbering = _metrics.check_numbering(numbering)
            rankings = _perm.validate(pairs[1])
            refs = _perm.validate(pairs[0])
        if rankings.ndim != 2 or len(rankings) < 2:
            raise ValueError(f"pairs: the rankings must have shape (T, n) with T >= 2, got "
                             f"{rankings.shape}")
        refs = np.broadcast_to(refs, rankings.shape) if refs.ndim == 1 else refs
        if refs.shape != rankings.shape:
            raise ValueError(f"pairs: references of shape {refs.shape} do not match rankings of "
                             f"shape {rankings.shape}")
        n, n_pairs, seed, protocol = rankings.shape[1], rankings.shape[0], None, "given"
    # sampled or checked above: the kernels need not check the permutations again
    values = _metrics._evaluate(names, refs, rankings, k, numbering, checked=True)
    return AgreementSample(refs, rankings, values, names, int(n), int(n_pairs), k, seed,
                           protocol, numbering)


def agreement_matrix_from_values(values, names=None, *, reverse: str = "auto",
                                 ties: str = "def1", sample: Optional[AgreementSample] = None
                                 ) -> pd.DataFrame:
    """The agreement matrix of metrics whose values on one sample are already computed.

    :func:`agreement_matrix` draws the sample, evaluates the metrics and calls this; call it
    directly to reuse values, e.g. those of the metrics without a cut-off across several k.

    Parameters
    ----------
    values : mapping of str to array_like of shape (T,)
        Each metric's values on the same T sample elements (nan where undefined).
    names : iterable of str, optional
        The metrics to compare, in this order; all keys of ``values`` by default. With
        ``reverse="orient"`` they must be names of :data:`rankbook.metrics.NAMES`.
    reverse, ties : str
        As in :func:`agreement_matrix`.
    sample : AgreementSample, optional
        The sample the values come from (:func:`evaluate_sample`): its description goes into
        ``attrs`` as :func:`agreement_matrix` records it.

    Returns
    -------
    pandas.DataFrame
        As :func:`agreement_matrix`, with ``attrs`` ``n_pairs``, ``reverse``, ``ties``,
        ``reversed`` and ``dropped`` (and the sample's ``n``, ``k``, ``seed``, ``protocol``
        with ``sample``).

    Examples
    --------
    >>> x = np.array([0.1, 0.4, 0.3, 0.9])
    >>> df = agreement_matrix_from_values({"a": x, "b": 2 * x + 1, "c": -x}, reverse="none")
    >>> df.to_numpy().tolist()
    [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    check_choice(reverse, REVERSE, "reverse")
    check_choice(ties, TIES, "ties")
    if not hasattr(values, "keys"):  # a 2-D array or a list of lists: no metric names
        raise ValueError(f"values must map each metric name to its values (a dict or a "
                         f"DataFrame with one column per metric), got {type(values).__name__}")
    names = list(values.keys() if names is None else names)
    if not names:
        raise ValueError("names must hold at least one metric")
    missing = [name for name in names if name not in values]
    if missing:
        raise ValueError(f"no values given for {', '.join(map(repr, missing))}")
    try:
        arrays = [np.asarray(values[name], dtype=np.float64) for name in names]
    except (TypeError, ValueError):
        raise ValueError("every metric's values must be numbers (nan where undefined)") from None
    flat = [(name, a.shape) for name, a in zip(names, arrays) if a.ndim != 1]
    if flat:
        raise ValueError(f"the values of {flat[0][0]!r} have shape {flat[0][1]}; each metric "
                         "needs one value per sample element (a 1-D array)")
    if len({a.size for a in arrays}) != 1:
        raise ValueError("every metric needs values on the same sample: got lengths "
                         + ", ".join(f"{name} {a.size}" for name, a in zip(names, arrays)))
    if reverse == "orient":
        unknown = [name for name in names if name not in _metrics.REGISTRY]
        if unknown:
            raise ValueError(f'reverse="orient" needs metric names (to look up higher_is_closer); '
                             f"unknown: {', '.join(map(repr, unknown))}")
    m = len(names)
    out = np.full((m, m), np.nan)
    rev = np.zeros((m, m), dtype=bool)
    counts_of = _PairCounts(arrays)

    def entry(i, j):
        c = counts_of(i, j)
        flip = False
        if reverse == "orient":
            flip = (_metrics.REGISTRY[names[i]].higher_is_closer
                    != _metrics.REGISTRY[names[j]].higher_is_closer)
        r = _ratio(c, ties, flip)
        if reverse == "auto" and r < 0.5:
            r, flip = _ratio(c, ties, True), True
        return r, flip

    for i in range(m):
        for j in range(i, m):
            out[i, j], rev[i, j] = entry(i, j)
            if ties == "def1_ordered" and i != j:  # the literal rule is one-sided
                out[j, i], rev[j, i] = entry(j, i)
            else:
                out[j, i], rev[j, i] = out[i, j], rev[i, j]
    counts = {name: int(np.isnan(a).sum()) for name, a in zip(names, arrays)}
    df = pd.DataFrame(out, index=pd.Index(names, name="m1"), columns=pd.Index(names, name="m2"))
    if sample is not None:
        df.attrs.update(sample.attrs())
    df.attrs.update(n_pairs=int(arrays[0].size), reverse=reverse, ties=ties,
                    reversed=ReversedMatrix(names, rev), dropped=counts)
    return df


def agreement_intervals_from_values(values, names=None, *, reverse: str = "auto",
                                    ties: str = "def1", confidence: float = 0.95) -> pd.DataFrame:
    """:func:`agreement_intervals` from metric values already computed on one sample.

    ``values``, ``names``, ``reverse`` and ``ties`` as in :func:`agreement_matrix_from_values`;
    the ratios and reversals are that function's. Returns the tidy table of
    :func:`agreement_intervals`.

    Parameters
    ----------
    values : mapping of str to array_like of shape (T,)
        Each metric's values on the same T sample elements.
    names : iterable of str, optional
        The metrics compared, in this order; all keys of ``values`` by default.
    reverse, ties : str
        As in :func:`agreement_matrix_from_values`.
    confidence : float
        The level of every interval, 0 < confidence < 1.

    Returns
    -------
    pandas.DataFrame
        The table of :func:`agreement_intervals`.

    Examples
    --------
    >>> x = np.array([0.1, 0.4, 0.3, 0.9, 0.5, 0.2])
    >>> t = agreement_intervals_from_values({"a": x, "b": x ** 2, "c": -x})
    >>> t[["m1", "m2", "ratio", "reversed"]].values.tolist()
    [['a', 'b', 1.0, False], ['a', 'c', 1.0, True], ['b', 'c', 1.0, True]]
    """
    df = agreement_matrix_from_values(values, names, reverse=reverse, ties=ties)
    names = list(df.index)
    arrays = [np.asarray(values[name], dtype=np.float64).ravel() for name in names]
    groups = _PairCounts(arrays)
    rev = df.attrs["reversed"].to_numpy()
    cache: dict = {}
    first: dict = {}
    for i, c in enumerate(groups._cls):
        first.setdefault(c, i)  # the member that defined the class (its own order, flip False)
    rows = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            ci, cj = groups._cls[i], groups._cls[j]
            # concordance of (i, j) is that of the class representatives, swapped once per
            # reversed member and once more when the ratio was taken with -m2
            flip = bool(rev[i, j]) ^ groups._flip[i] ^ groups._flip[j]
            key = (ci, cj, flip)
            if key not in cache:
                cache[key] = _interval(arrays[first[ci]], arrays[first[cj]], ties, flip,
                                       confidence)
            low, high, n_eff = cache[key]
            rows.append({"m1": names[i], "m2": names[j], "ratio": float(df.iat[i, j]),
                         "low": low, "high": high, "n_effective": n_eff,
                         "reversed": bool(rev[i, j]),
                         "excludes_half": bool(low > 0.5 or high < 0.5)})
    out = pd.DataFrame(rows, columns=["m1", "m2", "ratio", "low", "high", "n_effective",
                                      "reversed", "excludes_half"])
    out.attrs.update({key: v for key, v in df.attrs.items() if key != "reversed"})
    out.attrs["confidence"] = float(confidence)
    return out


def agreement_intervals(
    names: Optional[Iterable[str]] = None,
    n: int = 100,
    n_pairs: int = 10000,
    k: Optional[int] = 30,
    seed=0,
    protocol: str = "reference",
    reverse: str = "auto",
    ties: str = "def1",
    pairs=None,
    confidence: float = 0.95,
    numbering: Optional[str] = None,
) -> pd.DataFrame:
    """Every agreement ratio of :func:`agreement_matrix` with its interval, as a tidy table.

    The same sample, ratios and reversals as :func:`agreement_matrix` (same arguments); each
    pair of metrics (``m1`` before ``m2`` in ``names``) gets the interval of
    :func:`agreement_ratio` with ``ci=True``: a Wilson interval with the effective number of
    pairs of the U-statistic. Metrics whose values order the sample identically (or exactly
    reversed) share their per-element counts, so the work is one count per distinct pair of
    orders, not per pair of metrics. :func:`agreement_intervals_from_values` does the same
    from values already computed.

    Parameters
    ----------
    names, n, n_pairs, k, seed, protocol, reverse, ties, pairs, numbering
        As in :func:`agreement_matrix`.
    confidence : float
        The level of every interval, 0 < confidence < 1.

    Returns
    -------
    pandas.DataFrame
        Columns ``m1``, ``m2``, ``ratio``, ``low``, ``high``, ``n_effective``, ``reversed``
        (computed with -m2) and ``excludes_half`` (the interval lies entirely above or below
        1/2); ``attrs`` holds the parameters and ``confidence``.

    Examples
    --------
    >>> t = agreement_intervals(["dcg", "mse", "kendall_tau"], n=12, n_pairs=200, k=4)
    >>> t[["m1", "m2"]].values.tolist()
    [['dcg', 'mse'], ['dcg', 'kendall_tau'], ['mse', 'kendall_tau']]
    >>> bool((t.low <= t.ratio).all() and (t.ratio <= t.high).all())
    True
    """
    check_choice(reverse, REVERSE, "reverse")
    check_choice(ties, TIES, "ties")
    smp = evaluate_sample(names, n=n, n_pairs=n_pairs, k=k, seed=seed, protocol=protocol,
                          pairs=pairs, numbering=numbering)
    out = agreement_intervals_from_values(smp.values, smp.names, reverse=reverse, ties=ties,
                                          confidence=confidence)
    dropped = out.attrs.get("dropped")
    out.attrs.update(smp.attrs())
    out.attrs.update(reverse=reverse, ties=ties, dropped=dropped, confidence=float(confidence))
    return out
