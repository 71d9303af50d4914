"""The k-dependent metrics of paper A at many cut-offs k at once.

Twenty-two of the 33 metrics of :mod:`rankbook.metrics` depend on the cut-off k (relevant =
the first k items of sigma, retrieved = the first k items of nu): the 19 confusion-matrix
metrics and MRR, GMR and meanRank. Fitting k to Table 2 of paper A (``paperA``) or following a
metric's stability over k (Definition 10) evaluates them at dozens of cut-offs. Evaluating
each k separately costs O(k) per pair and cut-off; this module does all cut-offs in one pass
over the n items.

How
---
Item x is a true positive at cut-off k when it is among the first k items of both rankings,
that is when ``max(pos_sigma(x), pos_nu(x)) < k`` (0-based positions). Counting, for each pair,
how many items have each value of that maximum and summing the counts up gives TP(k) for every
k at once (:func:`true_positives`). The confusion-matrix metrics are functions of TP, k and n
only; they are computed here with the very kernels of :mod:`rankbook.metrics`, so every value is
bit for bit the one ``metrics.evaluate_many(names, sigma, nu, k=k)`` gives. MRR, GMR and
meanRank at k are means over the positions in nu of sigma's first k items; here they are
running sums divided by k, equal to the per-k means up to floating-point rounding (a few units
in the last place), which :func:`evaluate_cutoffs` documents and the tests bound.

Memory is bounded by evaluating the pairs in blocks of about ``_CHUNK_ELEMENTS`` entries.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from . import metrics as _metrics

__all__ = ["CONFUSION", "RANK_POSITION", "true_positives", "evaluate_cutoffs"]

#: The confusion-matrix metrics (functions of TP, k and n): exact at every cut-off.
CONFUSION = tuple(m for m in _metrics.NAMES if _metrics.REGISTRY[m].family == "confusion")
#: The rank-position metrics (means over the first k positions): running sums.
RANK_POSITION = ("mrr", "gmr", "mean_rank")

_CHUNK_ELEMENTS = 1 << 20


class _CutoffPair:
    """The part of :class:`rankbook.metrics._Pair` that the confusion kernels read, with TP of
    shape ``(rows, K)`` and ``k`` a vector of K cut-offs (broadcast along the last axis)."""

    def __init__(self, tp: np.ndarray, ks: np.ndarray, n: int):
        self.tp, self.k, self.n = tp, ks, n

    def counts(self):
        tp, k, n = self.tp, self.k, self.n
        fp = k - tp
        return tp, fp, fp, n - 2 * k + tp  # tp, fp, fn, tn, as metrics._Pair.counts


def _check_ks(ks: Iterable[int], n: int) -> np.ndarray:
    ks = np.asarray(list(ks))
    if ks.ndim != 1 or ks.size == 0:
        raise ValueError("ks must be a non-empty sequence of cut-offs")
    if ks.dtype.kind not in "iu" or ks.dtype == bool:
        raise ValueError(f"cut-offs must be integers in 1..n={n}, got {ks.tolist()[:5]}")
    if ks.min() < 1 or ks.max() > n:
        raise ValueError(f"cut-offs must lie in 1..n={n}, got {int(ks.min())}..{int(ks.max())}")
    return ks.astype(np.int64)


def _blocks(s, v, inv_s, inv_v, batch):
    """Validated rows of (sigma, nu) and their 0-based inverses, in blocks of bounded size."""
    n = s.shape[-1]
    arrays = [np.broadcast_to(x, batch + (n,)).reshape(-1, n) for x in (s, v, inv_s, inv_v)]
    step = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, arrays[0].shape[0], step):
        yield [x[start:start + step] for x in arrays]


def _batch_of(checked) -> tuple:
    return checked[4]


def _tp_block(inv_s: np.ndarray, inv_v: np.ndarray, ks: np.ndarray) -> np.ndarray:
    rows, n = inv_s.shape
    top = np.maximum(inv_s, inv_v)  # the first cut-off index at which the item is a TP
    flat = (np.arange(rows, dtype=np.int64)[:, None] * n + top).ravel()
    hist = np.bincount(flat, minlength=rows * n).reshape(rows, n)
    return np.cumsum(hist, axis=1)[:, ks - 1].astype(np.float64)


def true_positives(sigma, nu, ks: Sequence[int]) -> np.ndarray:
    """TP(k) = the number of items among the first k of both rankings, for every k in ``ks``.

    Parameters
    ----------
    sigma, nu : array_like of int, shape (..., n)
        Rankings in one-line notation (``sigma[i - 1]`` is the item at position i).
    ks : sequence of int
        Cut-offs in 1..n.

    Returns
    -------
    numpy.ndarray of float, shape (..., len(ks))

    Examples
    --------
    >>> true_positives([1, 2, 3, 4], [2, 1, 4, 3], [1, 2, 3, 4]).tolist()
    [0.0, 2.0, 2.0, 4.0]
    """
    checked = _metrics._checked(sigma, nu)
    ks = _check_ks(ks, checked[0].shape[-1])
    out = [_tp_block(b[2], b[3], ks) for b in _blocks(*checked)]
    return np.concatenate(out).reshape(_batch_of(checked) + (len(ks),))


class _TopK:
    """What the MRR, GMR and meanRank kernels of :mod:`rankbook.metrics` read: the positions
    (1-based, float) in nu of sigma's first k items."""

    def __init__(self, topk_positions: np.ndarray):
        self.topk_positions = topk_positions


def evaluate_cutoffs(names: Sequence[str], sigma, nu, ks: Sequence[int], *,
                     exact: bool = False) -> dict:
    """Every k-dependent metric in ``names`` at every cut-off in ``ks``, in one pass per pair.

    Equals ``metrics.evaluate_many(names, sigma, nu, k=k)[name]`` at each ``k``: bit for bit for
    the confusion-matrix metrics (:data:`CONFUSION`); for MRR, GMR and meanRank bit for bit with
    ``exact=True`` (the metrics' own kernels on the first k positions, O(k) per cut-off) and
    otherwise up to floating-point rounding (running sums divided by k, O(1) per cut-off;
    relative differences of order 1e-15).

    Parameters
    ----------
    names : sequence of str
        Metric names, each one that needs k (:data:`rankbook.metrics.NAMES`).
    sigma, nu : array_like of int, shape (..., n)
        Rankings in one-line notation.
    ks : sequence of int
        Cut-offs in 1..n.

    Returns
    -------
    dict
        ``{name: array of shape (..., len(ks))}``.

    Examples
    --------
    >>> out = evaluate_cutoffs(["recall", "mean_rank"], [1, 2, 3, 4], [2, 1, 4, 3], [1, 2, 4])
    >>> out["recall"].tolist(), out["mean_rank"].tolist()
    ([0.0, 1.0, 1.0], [2.0, 1.5, 2.5])
    """
    names = list(names)
    for name in names:
        if name not in _metrics.REGISTRY:
            raise _metrics._unknown(name)
        if not _metrics.REGISTRY[name].needs_k:
            raise ValueError(f"{name!r} does not depend on k; valid: the k-dependent metrics "
                             f"{', '.join(CONFUSION + RANK_POSITION)}")
    checked = _metrics._checked(sigma, nu)
    n, batch = checked[0].shape[-1], _batch_of(checked)
    ks = _check_ks(ks, n)
    parts: dict = {name: [] for name in names}
    # a confusion-matrix metric is a function of TP in 0..k: tabulate it once per cut-off with
    # the kernels of rankbook.metrics (the same arithmetic, so the same bits), then look it up
    grid = _CutoffPair(np.arange(n + 1, dtype=np.float64)[None, :], ks[:, None], n)
    with np.errstate(invalid="ignore", divide="ignore"):
        tables = {name: np.broadcast_to(_metrics._KERNELS[name](grid), (len(ks), n + 1))
                  for name in names if name in CONFUSION}
    for s, v, inv_s, inv_v in _blocks(*checked):
        if any(name in CONFUSION for name in names):
            tp = _tp_block(inv_s, inv_v, ks).astype(np.int64)
            cols = np.arange(len(ks))[None, :]
            for name in names:
                if name in CONFUSION:
                    parts[name].append(tables[name][cols, tp])
        if any(name in RANK_POSITION for name in names):
            # positions (1-based) in nu of sigma's items, in sigma's order
            pos = (np.take_along_axis(inv_v, s - 1, axis=-1) + 1).astype(np.float64)
            kf = ks.astype(np.float64)
            for name in names:
                if name not in RANK_POSITION:
                    continue
                if exact:
                    parts[name].append(np.stack(
                        [_metrics._KERNELS[name](_TopK(np.ascontiguousarray(pos[:, :k])))
                         for k in ks], axis=-1))
                elif name == "mrr":
                    parts[name].append(np.cumsum(1.0 / pos, axis=-1)[:, ks - 1] / kf)
                elif name == "gmr":
                    parts[name].append(np.exp(np.cumsum(np.log(pos), axis=-1)[:, ks - 1] / kf))
                elif name == "mean_rank":
                    parts[name].append(np.cumsum(pos, axis=-1)[:, ks - 1] / kf)
    return {name: np.concatenate(parts[name]).reshape(batch + (len(ks),)) for name in names}
