"""RankDCG of Katerenchuk and Rosenberg: an nDCG variant for rank-ordering with many ties.

The poster {cite}`katerenchuk_rankdcg` scores how well predicted scores order a set of items
whose true ranks (``reference``) contain many ties and few distinct levels, such as users ranked
by karma. Read so that it reproduces the poster's test table (see ``book/scoring.md`` and the
errata page for the discrepancies with the printed text):

1. ``reference`` and ``hypothesis`` are *aligned*: entry ``i`` of each belongs to item ``i``;
   ``reference`` holds true rank values (higher is better), ``hypothesis`` predicted scores.
2. The distinct reference values, from the highest down, get the relative relevance
   ``rel' = m, m-1, ..., 1`` (``m`` distinct values) and the *reverse rank* ``D = 1, 2, ..., m``.
   Position ``i`` of a ranking is discounted by the reverse rank of the reference value that
   the ideal ranking puts there, so every position of one tie group shares one discount.
3. :math:`DCG' = \\sum_i \\mathrm{rel}'(i) / D(i)` for the items ranked by decreasing
   ``hypothesis``; its maximum is the ideal order and its minimum the reversed ideal order.
4. :math:`\\mathrm{rankDCG} = (DCG' - \\min DCG')/(\\max DCG' - \\min DCG')`, so that a perfect
   order scores 1 and the reversed order 0. (The poster prints the numerator as
   :math:`\\max DCG' - DCG'`, which scores the perfect order 0.)

The module also computes the poster's other columns the way the table's numbers show they were
computed (:func:`poster_kendall_tau`, :func:`poster_average_precision`, :func:`poster_ndcg`).
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import check_choice
from .ir import _as_float_1d, _pair_counts
from .ties import ALIASES

__all__ = [
    "TIES",
    "rankdcg",
    "rankdcg_components",
    "poster_kendall_tau",
    "poster_average_precision",
    "poster_ndcg",
    "poster_table",
    "truncate",
    "reading_comparison",
    "other_measures",
]

#: Rules for items with equal ``hypothesis`` scores (the three of :data:`rankbook.ties.TIES`, plus
#: two). ``"pessimistic"`` (the default) ranks the lower reference value first, as the authors'
#: released code does (it sorts the items by ascending reference before a stable sort on the
#: hypothesis), which gives the lowest rankDCG over the orders of the tied items;
#: ``"optimistic"`` the higher first (the highest rankDCG); ``"expected"`` is the exact mean over
#: those orders (``"average"`` is its older name, kept as an alias); ``"order"`` keeps the input
#: order.
TIES = ("pessimistic", "optimistic", "expected", "average", "order")


def _aligned(reference, hypothesis):
    ref = _as_float_1d(reference, "reference")
    hyp = _as_float_1d(hypothesis, "hypothesis")
    if ref.shape != hyp.shape:
        raise ValueError(
            "reference and hypothesis must be aligned (entry i of each belongs to item i): "
            f"lengths {ref.shape[0]} and {hyp.shape[0]}"
        )
    return ref, hyp


def rankdcg_components(reference, hypothesis, ties: str = "pessimistic") -> tuple[float, float, float]:
    r"""``(DCG', min DCG', max DCG')`` of the hypothesis ordering (see the module docstring).

    Sums are taken per discount group with exactly summed integer numerators, so that an order
    equivalent to the ideal one gives exactly ``max`` and rankDCG stays within [0, 1].

    Parameters
    ----------
    reference : sequence of float
        True rank values of the items (higher is better).
    hypothesis : sequence of float
        Predicted scores of the same items, aligned with ``reference``.
    ties : {"pessimistic", "optimistic", "expected", "order"}
        Rule for equal predicted scores, as in :func:`rankdcg`.

    Returns
    -------
    tuple of float
        ``(DCG', min DCG', max DCG')``.

    Examples
    --------
    >>> rankdcg_components([9, 4, 4, 2, 2, 2, 1, 1, 1, 1], [9, 4, 4, 2, 2, 2, 1, 1, 1, 1])
    (10.0, 6.666666666666666, 10.0)
    """
    ties = check_choice(ties, TIES, "ties")
    ties = ALIASES.get(ties, ties)
    ref, hyp = _aligned(reference, hypothesis)
    n = ref.shape[0]
    if n == 0:
        raise ValueError("reference is empty: rankDCG needs at least one item")
    levels, level_of = np.unique(-ref, return_inverse=True)  # 0 = highest reference value
    m = levels.shape[0]
    rel = (m - level_of).astype(float)  # relative relevance rel' of each item
    ideal_rel = np.sort(rel)[::-1]
    disc_group = (m - ideal_rel).astype(np.int64)  # D - 1 at each position (0-based group)
    g = np.arange(1, m + 1, dtype=float)

    def total(rel_at_position):
        sums = np.bincount(disc_group, weights=rel_at_position, minlength=m)
        return math.fsum(sums / g)

    idx = np.arange(n)
    if ties == "expected":
        _, grp, counts = np.unique(-hyp, return_inverse=True, return_counts=True)
        order = np.argsort(grp, kind="stable")
        mean_rel = np.bincount(grp, weights=rel) / counts
        at_pos = mean_rel[grp[order]]
    else:
        secondary = {"pessimistic": rel, "optimistic": -rel, "order": idx}[ties]
        order = np.lexsort((secondary, -hyp))
        at_pos = rel[order]
    return total(at_pos), total(ideal_rel[::-1].copy()), total(ideal_rel)


def rankdcg(reference, hypothesis, ties: str = "pessimistic") -> float:
    r"""RankDCG of predicted scores against true rank values {cite}`katerenchuk_rankdcg`.

    .. math::

        \mathrm{rankDCG} = \frac{DCG' - \min DCG'}{\max DCG' - \min DCG'}, \qquad
        DCG' = \sum_{i=1}^{n} \frac{\mathrm{rel}'(i)}{D(i)}

    with ``rel'`` the dense rank of the reference value counted from the bottom (1 for the
    lowest level) and ``D`` the dense rank, counted from the top, of the reference value the
    ideal order puts at position ``i``. The value lies in [0, 1]: 1 for any order that sorts the
    reference, 0 for the reversed order. Only the order of the reference levels matters, not
    their size. ``nan`` when all reference values are equal (max = min).

    Parameters
    ----------
    reference : sequence of float
        True rank values of the items (higher is better), e.g. ``[9, 4, 4, 2, 1]``.
    hypothesis : sequence of float
        Predicted scores of the same items, aligned with ``reference``.
    ties : {"pessimistic", "optimistic", "expected", "order"}
        Rule for equal predicted scores; see :data:`TIES`. The poster does not state one; the
        default matches the authors' released code. (None of the six test lists depends on it.)
        DCG' is linear in the positions and rankDCG affine in DCG', so ``"expected"`` gives each
        position the mean ``rel'`` of its group of tied scores: the exact mean rankDCG over the
        orders of the tied items, without enumerating them.

    Returns
    -------
    float
        In [0, 1]; nan when all reference values are equal.

    Examples
    --------
    >>> ref = [9, 4, 4, 2, 2, 2, 1, 1, 1, 1]
    >>> rankdcg(ref, [9, 4, 4, 2, 2, 1, 2, 1, 1, 1])
    0.975
    >>> round(rankdcg(ref, [4, 4, 2, 9, 2, 2, 1, 1, 1, 1]), 6)
    0.65
    >>> rankdcg([2, 1], [5, 5]), rankdcg([2, 1], [5, 5], ties="optimistic")
    (0.0, 1.0)
    >>> rankdcg([2, 1], [5, 5], ties="expected")
    0.5
    """
    value, lo, hi = rankdcg_components(reference, hypothesis, ties)
    if hi == lo:
        return float("nan")
    # value lies in [lo, hi] exactly; the expected reading sums fractions of positions, whose
    # rounding can leave it 1e-16 outside (hypothesis found -8.9e-16): clip that error only
    return min(1.0, max(0.0, (value - lo) / (hi - lo)))


def poster_kendall_tau(reference, hypothesis) -> float:
    r"""Kendall's tau-b of the aligned reference and hypothesis, the poster's tau column.

    .. math:: \tau_b = \frac{n_c - n_d}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    with ``n_0 = n(n-1)/2`` and ``n_1``, ``n_2`` the pairs tied in the reference and in the
    hypothesis {cite}`kendall1938new`. The poster prints tau-a, ``(n_c - n_d) / n_0``, but its
    numbers are tau-b (tau-a scores the perfect list 0.778, not 1). ``nan`` if either side is
    constant. Ties: the tau-b correction above.

    Parameters
    ----------
    reference : sequence of float
        True rank values of the items (higher is better).
    hypothesis : sequence of float
        Predicted scores of the same items, aligned with ``reference``.

    Returns
    -------
    float
        In [-1, 1]; nan when either side is constant.

    Examples
    --------
    >>> poster_kendall_tau([9, 4, 4, 2, 2, 2, 1, 1, 1, 1], [9, 4, 4, 2, 2, 1, 2, 1, 1, 1])
    0.8
    """
    ref, hyp = _aligned(reference, hypothesis)
    c = _pair_counts(ref, hyp)
    n0 = ref.shape[0] * (ref.shape[0] - 1) // 2
    n1 = c["tied_x"] + c["tied_both"]
    n2 = c["tied_y"] + c["tied_both"]
    den = math.sqrt((n0 - n1) * (n0 - n2))
    return (c["concordant"] - c["discordant"]) / den if den > 0 else float("nan")


def poster_average_precision(reference, hypothesis) -> float:
    r"""The poster's "AveP" column: mean over ``k`` of the share of the first ``k`` positions
    where the hypothesis list holds the same value as the reference list.

    .. math:: \mathrm{AveP} = \frac{1}{n}\sum_{k=1}^{n}\frac{1}{k}\sum_{i=1}^{k}
              [h_i = r_i]

    Here both lists are read position by position, *not* as aligned scores. This is not the
    average precision the poster prints (:math:`\sum_k P(k)\,\Delta R(k)`, which needs binary
    relevance the poster never defines); it is the reading that reproduces the column, and the
    one in the authors' released code. Ties: values are compared for equality.

    Parameters
    ----------
    reference : sequence of float
        The reference list, in rank order.
    hypothesis : sequence of float
        The hypothesis list, in rank order, of the same length.

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> round(poster_average_precision([9, 4, 4, 2], [9, 4, 2, 4]), 4)  # (1 + 1 + 2/3 + 2/4)/4
    0.7917
    """
    ref, hyp = _aligned(reference, hypothesis)
    if ref.shape[0] == 0:
        return float("nan")
    match = (ref == hyp).astype(float)
    k = np.arange(1, ref.shape[0] + 1)
    return float(np.mean(np.cumsum(match) / k))


def poster_ndcg(reference, hypothesis) -> float:
    r"""The poster's "nDCG" column: DCG of the hypothesis *list* over DCG of the reference list.

    .. math:: \frac{\sum_i h_i / \log_2(i+1)}{\sum_i r_i / \log_2(i+1)}

    Both lists are read as relevance values in rank order (the hypothesis is not re-sorted and
    not aligned with the reference), with linear gain. When the hypothesis is not a
    permutation of the reference values this can exceed 1, as in the poster's real-data table.
    Compare :func:`rankbook.ir.ndcg`, which normalises by the ideal order. ``nan`` if the
    reference DCG is 0.

    Parameters
    ----------
    reference : sequence of float
        Relevance values in rank order (the reference list).
    hypothesis : sequence of float
        Relevance values in rank order (the hypothesis list), of the same length.

    Returns
    -------
    float
        nan when the reference DCG is 0.

    Examples
    --------
    >>> round(poster_ndcg([9, 4, 4, 2, 2, 2, 1, 1, 1, 1], [1, 1, 1, 1, 2, 2, 2, 4, 4, 9]), 4)
    0.5717
    """
    ref, hyp = _aligned(reference, hypothesis)
    disc = 1.0 / np.log2(np.arange(2, ref.shape[0] + 2))
    den = float(ref @ disc)
    return float(hyp @ disc) / den if den != 0 else float("nan")


def truncate(x: float, decimals: int = 3) -> float:
    """``x`` cut (not rounded) to ``decimals`` places, towards zero, as the poster's table is.

    A tolerance of 1e-9 absorbs binary noise (0.975 is stored as 0.97499999...).

    Parameters
    ----------
    x : float
        The value.
    decimals : int
        Places kept.

    Returns
    -------
    float

    Examples
    --------
    >>> truncate(0.45464), truncate(-0.7999999999), round(0.45464, 3)
    (0.454, -0.8, 0.455)
    """
    if x != x:
        return x
    scale = 10**decimals
    return math.copysign(math.floor(abs(x) * scale + 1e-9) / scale, x)


#: The columns of the poster's test table, in order, with the function computing each.
POSTER_COLUMNS = {
    "kendall_tau": poster_kendall_tau,
    "avep": poster_average_precision,
    "ndcg": poster_ndcg,
    "rankdcg": rankdcg,
}


def poster_table(reference, hypotheses, ties: str = "pessimistic"):
    """The poster's four columns for each hypothesis list, as a ``pandas.DataFrame``.

    Parameters
    ----------
    reference : sequence of float
        True rank values of the items.
    hypotheses : sequence of sequences of float
        Predicted scores, one list per row, aligned with ``reference``.
    ties : str
        As in :func:`rankdcg`.

    Returns
    -------
    pandas.DataFrame
        Columns ``kendall_tau, avep, ndcg, rankdcg``, one row per hypothesis.

    Examples
    --------
    >>> ref = [9, 4, 4, 2, 2, 2, 1, 1, 1, 1]
    >>> poster_table(ref, [ref]).round(3).to_dict("records")
    [{'kendall_tau': 1.0, 'avep': 1.0, 'ndcg': 1.0, 'rankdcg': 1.0}]
    """
    import pandas as pd

    rows = []
    for hyp in hypotheses:
        row = {name: f(reference, hyp) for name, f in POSTER_COLUMNS.items() if name != "rankdcg"}
        row["rankdcg"] = rankdcg(reference, hyp, ties=ties)
        rows.append(row)
    return pd.DataFrame(rows, columns=list(POSTER_COLUMNS))


def reading_comparison(reference, hypotheses):
    """The poster's lists scored under the readings its text suggests but its table rules out.

    Columns (one row per hypothesis list):

    ``rankdcg_as_printed``
        ``(max - DCG') / (max - min)``, the normalisation as printed (aligned reading).
    ``rankdcg_as_ordering``
        rankDCG when the hypothesis list is read as the reference values in the system's rank
        order (position ``i`` holds the true value of the item ranked ``i``), not as scores.
    ``tau_a``
        the printed Kendall formula ``(c - d) / (n(n-1)/2)``, without the tie correction.
    ``ndcg_aligned``
        :func:`rankbook.ir.ndcg` of the reference values ranked by the hypothesis scores, tied
        scores averaged (scikit-learn's convention).
    ``ap_binary``
        :func:`rankbook.ir.average_precision` with "relevant" = above the lowest reference level,
        items ranked by the hypothesis scores with pessimistic tie-breaking: an AP of the form
        the poster prints, sum of P(k) dR(k).

    Parameters
    ----------
    reference : sequence of float
        True rank values of the items.
    hypotheses : sequence of sequences of float
        Predicted scores, one list per row.

    Returns
    -------
    pandas.DataFrame
        The columns above, one row per hypothesis.

    Examples
    --------
    >>> table = reading_comparison([5, 4, 3, 2, 1], [[5, 4, 3, 2, 1], [1, 2, 3, 4, 5]])
    >>> table[["rankdcg_as_printed", "tau_a"]].values.tolist()
    [[0.0, 1.0], [1.0, -1.0]]
    """
    import pandas as pd

    from . import ir

    ref = np.asarray(reference, dtype=float)
    rows = []
    for hyp in hypotheses:
        h = np.asarray(hyp, dtype=float)
        value, lo, hi = rankdcg_components(ref, h)
        c = _pair_counts(ref, h)
        n0 = ref.shape[0] * (ref.shape[0] - 1) / 2
        binary = (ref > ref.min()).astype(float)
        rows.append(
            {
                "rankdcg_as_printed": (hi - value) / (hi - lo),
                "rankdcg_as_ordering": rankdcg(h, -np.arange(h.shape[0])),
                "tau_a": (c["concordant"] - c["discordant"]) / n0,
                "ndcg_aligned": ir.ndcg(ref, scores=h, ties="average"),
                "ap_binary": ir.average_precision(ir.order_by_scores(binary, h, "pessimistic")),
            }
        )
    return pd.DataFrame(rows)


def other_measures(reference, hypotheses, p: float = 0.9):
    """The poster's lists scored by other measures of this book (aligned reading).

    ``ndcg_linear`` / ``ndcg_exponential``: :func:`rankbook.ir.ndcg` of the reference values
    ranked by the hypothesis, ties averaged; ``ndpm`` and ``fcp`` (ties counted as discordant):
    :func:`rankbook.ir.ndpm`, :func:`rankbook.ir.fcp`; ``rbo_ext``: :func:`rankbook.rbo.rbo_ext`
    of the item orders given by the reference and by the hypothesis, ties in either broken by
    item index (RBO refuses ties).

    Parameters
    ----------
    reference : sequence of float
        True rank values of the items.
    hypotheses : sequence of sequences of float
        Predicted scores, one list per row.
    p : float
        RBO's persistence, 0 < p < 1.

    Returns
    -------
    pandas.DataFrame
        Columns ``ndcg_linear, ndcg_exponential, ndpm, fcp, rbo_ext``, one row per hypothesis.

    Examples
    --------
    >>> table = other_measures([5, 4, 3, 2, 1], [[5, 4, 3, 2, 1], [1, 2, 3, 4, 5]])
    >>> table[["ndpm", "fcp"]].values.tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    import pandas as pd

    from . import ir
    from .rbo import rbo_ext

    ref = np.asarray(reference, dtype=float)
    idx = np.arange(ref.shape[0])
    ref_order = np.lexsort((idx, -ref)).tolist()
    rows = []
    for hyp in hypotheses:
        h = np.asarray(hyp, dtype=float)
        rows.append(
            {
                "ndcg_linear": ir.ndcg(ref, scores=h),
                "ndcg_exponential": ir.ndcg(ref, scores=h, gain="exponential"),
                "ndpm": ir.ndpm(ref, h),
                "fcp": ir.fcp(ref, h),
                "rbo_ext": rbo_ext(ref_order, np.lexsort((idx, -h)).tolist(), p),
            }
        )
    return pd.DataFrame(rows)
