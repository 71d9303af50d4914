"""Exact pair counts of two value arrays: concordant, discordant and tied pairs.

The counting core shared by :mod:`rankbook.agreement` (agreement of metrics over samples) and
:mod:`rankbook.metrics` (Kendall's tau-b and tau-a of score vectors). It depends on
:mod:`rankbook.permutations` only, so both can import it without importing each other.

Reading. ``x`` and ``y`` are values of the same elements, ``x[i]`` and ``y[i]`` the same one
(scores of items, or two metrics' values on one sample), compared position by position: no
ranking and no numbering is involved. For two permutations in one-line notation, the counts of
``(sigma, nu)`` are those of paper A's Kendall's tau as given, and the counts of their inverses
(each item's position) those of the item-based tau (``numbering="pair"`` in
:mod:`rankbook.metrics`).
"""

from __future__ import annotations

import numpy as np

from . import permutations as _perm

__all__ = ["concordance_counts"]




#: A pair is counted from its contingency table (levels of x times levels of y cells) when the
#: table has at most this many cells per sample element (or 4096 cells), else by sorting; the
#: table is faster up to roughly 10 cells per element (measured at ``|T| = 10^4``). Either path
#: gives the same integer counts.
_TABLE_CELLS_PER_VALUE = 8


def _dense_codes(x: np.ndarray):
    """Dense ranks 0..D-1 of the values of x (equal values share a code), -1 where x is nan."""
    nan = np.isnan(x)
    codes = np.full(x.size, -1, dtype=np.int64)
    levels, inv = np.unique(x[~nan], return_inverse=True)
    codes[~nan] = inv.ravel()
    return codes, int(levels.size)


def _pairs_in(counts: np.ndarray) -> int:
    counts = counts.astype(np.int64, copy=False)
    return int((counts * (counts - 1) // 2).sum())


def _counts_from_codes(a: np.ndarray, da: int, b: np.ndarray, db: int) -> dict:
    """concordance_counts on dense codes a in 0..da-1 and b in 0..db-1 (no missing values).

    Two exact paths. When da * db is small compared with t (e.g. a metric of TP alone against
    one with a few hundred levels) a da x db contingency table N is built with one bincount; the
    concordant (discordant) pairs are sum N[l, m] times the number of elements with a smaller
    level of a and a smaller (larger) level of b, read off exclusive cumulative sums:
    O(t + da db), no sort. Otherwise the sample
    is sorted by (a, b) and by (b, a), and the discordant pairs are the inversions of the
    permutation mapping one order to the other (pairs tied in a or in b keep their relative
    order in both sorts, so they are never inversions): O(t log t).
    """
    t = int(a.size)
    pairs = t * (t - 1) // 2
    if t < 2:
        return dict(pairs=pairs, concordant=0, discordant=0, tied_x=0, tied_y=0, tied_both=0)
    if da * db <= _TABLE_CELLS_PER_VALUE * max(t, 512):
        table = np.bincount(a * db + b, minlength=da * db).reshape(da, db)
        below = np.cumsum(table, axis=0)
        below -= table  # elements with a smaller level of a, per level of b
        lower = np.cumsum(below, axis=1)
        lower -= below  # ... and a smaller level of b
        discordant = int((table * (below.sum(axis=1, keepdims=True) - lower - below)).sum())
        tx = _pairs_in(table.sum(axis=1))
        ty = _pairs_in(table.sum(axis=0))
        txy = _pairs_in(table.ravel())
    else:
        key = a * db + b
        order = np.argsort(key, kind="stable")
        pos = np.empty(t, dtype=np.int64)
        pos[np.argsort(b * da + a, kind="stable")] = np.arange(1, t + 1)
        discordant = int(_perm._inversions_unchecked(pos[order][None, :])[0])
        sk = key[order]
        bounds = np.flatnonzero(np.r_[True, sk[1:] != sk[:-1], True])
        txy = _pairs_in(np.diff(bounds))
        tx = _pairs_in(np.bincount(a, minlength=da))
        ty = _pairs_in(np.bincount(b, minlength=db))
    concordant = pairs - discordant - tx - ty + txy
    return dict(pairs=pairs, concordant=concordant, discordant=discordant, tied_x=tx - txy,
                tied_y=ty - txy, tied_both=txy)


def concordance_counts(x, y) -> dict:
    """Pair counts of two value arrays: concordant, discordant and tied pairs.

    Pairs where x or y is nan are dropped first. The values are replaced by their dense ranks;
    when both take few distinct values the pairs are counted from their contingency table
    without sorting, otherwise in O(T log T) by sorting on (x, y) and (y, x) and counting the
    inversions between the two orders with :func:`rankbook.permutations.inversion_count`.
    Tie counts come from group sizes.

    Parameters
    ----------
    x, y : array_like of shape (T,)
        Values of the same T elements (``x[i]`` and ``y[i]`` belong to element i), any real
        numbers; nan marks a missing value.

    Returns
    -------
    dict
        ``pairs`` (all unordered pairs), ``concordant``, ``discordant`` (strict), ``tied_x``
        (tied in x only), ``tied_y`` (tied in y only), ``tied_both``, ``dropped`` (values left
        out as nan).

    Examples
    --------
    >>> concordance_counts([1, 2, 2, 3], [1, 3, 2, 2])
    {'pairs': 6, 'concordant': 3, 'discordant': 1, 'tied_x': 1, 'tied_y': 1, 'tied_both': 0, 'dropped': 0}
    """
    try:
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("x and y must be 1-D arrays of numbers (one value per sample)") from None
    if x.ndim != 1 or y.ndim != 1:  # a 2-D array was silently flattened before
        raise ValueError(f"x and y must be 1-D arrays of numbers, got shapes {x.shape} and "
                         f"{y.shape}")
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same number of values, got {x.size} and {y.size}")
    keep = ~(np.isnan(x) | np.isnan(y))
    dropped = int(x.size - keep.sum())
    a, da = _dense_codes(x[keep])
    b, db = _dense_codes(y[keep])
    c = _counts_from_codes(a, da, b, db)
    c["dropped"] = dropped
    return c
