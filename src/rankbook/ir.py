"""Scoring one ranked list against relevance judgements, and comparing a list with a reference.

The measures collected by the ranking notes {cite}`rankingnotes` and the learning-to-rank blog
note {cite}`ltrmetricsblog`: precision, recall, F1 and hit rate at a cut-off, average precision,
reciprocal rank, cumulated gain and its discounted and normalised forms, the R-score of
Breese et al. {cite}`breese1998empirical`, the normalised Kendall tau distance at K, the fraction
of concordant pairs (FCP) of Koren and Sill {cite}`koren2011ordrec` and Yao's NDPM
{cite}`yao1995ndpm`.

Input conventions
-----------------
``relevance`` is the graded relevance (a finite number >= 0) of the returned items *in rank
order*: ``relevance[0]`` belongs to the item ranked first. An item counts as *relevant* for the
binary measures (precision, recall, AP, RR, hit) when its relevance is > 0; for integer grades
this is trec_eval's default ``relevance_level=1``.

Tied scores
-----------
Every measure of a list (and every batch helper) also takes ``scores``: then ``relevance`` is
*aligned* with ``scores`` (entry ``i`` of each belongs to item ``i``), the items are ranked by
decreasing score, and ``ties`` says what a group of equal scores means (see :mod:`rankbook.ties`):

``"expected"`` (default; alias ``"average"``)
    the exact mean over all orders of the tied items, in closed form (McSherry and Najork
    {cite}`mcsherry2008computing`): no order is enumerated and no random order is drawn;
``"optimistic"`` / ``"pessimistic"``
    the best / worst value over those orders, reached by ranking the most / least relevant of
    the tied items first;
``"order"``
    the tied items keep their input order (sort them yourself first to reproduce a tool's
    rule: trec_eval breaks score ties by descending document id).

Without ``scores`` the list is already an order and ``ties`` has nothing to resolve.

``n_relevant`` is the number of relevant items judged for the query, returned or not. When it
is ``None`` the list is assumed to contain all of them.

Undefined values (a zero denominator) are ``nan`` and are documented per function. The
aggregation helpers :func:`mean_average_precision`, :func:`mean_reciprocal_rank` and
:func:`mean_ndcg` take a batch of lists of different lengths, either as a list of sequences or as
a padded 2-D array with ``lengths``; the padded path is vectorised over queries. :func:`evaluate`
computes several of them in one call and validates the batch once.
"""

from __future__ import annotations


import numpy as np

from . import ties as _ties
from ._validation import check_choice, check_finite, check_int, check_number

__all__ = [
    "GAINS",
    "TIES",
    "IDEAL_CUTS",
    "NAN_POLICIES",
    "FCP_TIES",
    "precision_at_k",
    "recall_at_k",
    "f1_at_k",
    "hit_at_k",
    "average_precision",
    "reciprocal_rank",
    "cg",
    "dcg",
    "ndcg",
    "r_score",
    "r_score_aggregate",
    "kendall_tau_distance_at_k",
    "fcp",
    "ndpm",
    "mean_average_precision",
    "mean_reciprocal_rank",
    "mean_ndcg",
    "evaluate",
    "BATCH_MEASURES",
    "order_by_scores",
    "CONVENTIONS",
    "evaluate_run",
    "read_qrels",
    "read_run",
]

#: Gain functions of (n)DCG: ``"linear"`` uses the relevance itself (Järvelin and Kekäläinen;
#: trec_eval, ir_measures' default nDCG, ranx ``ndcg``, scikit-learn), ``"exponential"`` uses
#: ``2**rel - 1`` (Burges et al.; ranx ``ndcg_burges``, the blog note's NDCG@K).
GAINS = ("linear", "exponential")
#: How tied scores are resolved when a measure ranks items by ``scores``: the three rules of
#: :data:`rankbook.ties.TIES`, ``"order"`` (input order among ties) and the alias ``"average"``
#: of ``"expected"``.
TIES = ("expected", "optimistic", "pessimistic", "order", "average")
#: Where the ideal DCG of :func:`ndcg` is cut: at the same ``k`` as the DCG, or not at all.
IDEAL_CUTS = ("k", "full")
#: What the aggregation helpers do with undefined (nan) per-query values, i.e. with a query
#: that is judged but has no relevant item:
#:
#: ``"propagate"`` (default)
#:     the mean is nan, so the undefined query is seen rather than averaged in silently;
#: ``"zero"``
#:     the query scores 0 and counts in the mean, as trec_eval, pytrec_eval, ir_measures, ranx
#:     and scikit-learn all do (trec_eval skips only queries *absent* from the judgements; a
#:     judged query with no relevant document scores 0);
#: ``"omit"``
#:     the query is left out of the mean, as if it had not been judged (none of those
#:     libraries does this; some papers report means this way).
NAN_POLICIES = ("propagate", "omit", "zero")
#: How :func:`fcp` counts pairs that the reference orders but the system ties.
FCP_TIES = ("discordant", "half", "omit")
#: Measures of :func:`evaluate`; each may be cut at k as ``"name@k"`` (``"ndcg@10"``).
BATCH_MEASURES = ("ap", "rr", "ndcg")

_PAIR_CHUNK = 1024  # rows per block in the pairwise counts: memory is _PAIR_CHUNK * n


# --------------------------------------------------------------------------------------------
# validation


def _check_k(k, name: str = "k", allow_none: bool = True):
    if k is None and not allow_none:
        raise ValueError(f"{name} is required: give an integer >= 1")
    return check_int(k, name, low=1, allow_none=allow_none,
                     explain="None for the whole list" if allow_none else "")


def _as_float_1d(values, name: str) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-D sequence of numbers: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one list), got shape {arr.shape}")
    return check_finite(arr, name)


def _check_relevance(relevance, name: str = "relevance") -> np.ndarray:
    arr = _as_float_1d(relevance, name)
    if np.any(arr < 0):
        bad = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(
            f"{name} must be >= 0 (graded relevance: 0 = not relevant); "
            f"position {bad} holds {arr[bad]}"
        )
    return arr


def _check_log_base(log_base) -> float:
    return check_number(log_base, "log_base", low=1, low_open=True)


def _check_n_relevant(n_relevant, n_queries: int, name: str = "n_relevant"):
    """None, or an int array of shape (n_queries,) with values >= 0."""
    if n_relevant is None:
        return None
    arr = np.asarray(n_relevant)
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer)
        or (np.issubdtype(arr.dtype, np.floating) and np.all(arr == np.round(arr)))
    ):
        raise ValueError(f"{name} must be a whole number >= 0 (or None), got {n_relevant!r}")
    arr = np.broadcast_to(arr.astype(np.int64), (n_queries,)) if arr.ndim == 0 else arr
    if arr.shape != (n_queries,):
        raise ValueError(f"{name} must be a scalar or one value per query ({n_queries}), got shape {arr.shape}")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0, got {arr[arr < 0][0]}")
    return arr.astype(np.int64)


# --------------------------------------------------------------------------------------------
# batches: list of lists, or padded array + lengths


def _pad(batch, lengths, name: str):
    """Return ``(values, lengths)`` for a batch of lists, padded with 0 to a 2-D float array.

    Every measure of the batch helpers treats a 0 exactly like a missing position (not
    relevant, zero gain), so once the padding holds 0 no mask is needed. A full float64 array
    without ``lengths`` (or with every length equal to the width) is returned as it is, without
    a copy: the kernels below never write into ``values``.
    """
    if isinstance(batch, np.ndarray) and batch.ndim == 2:
        values = np.asarray(batch, dtype=float)
        n_q, width = values.shape
        if lengths is None:
            lengths = np.full(n_q, width, dtype=np.int64)
        else:
            lengths = np.asarray(lengths)
            if lengths.shape != (n_q,) or not np.issubdtype(lengths.dtype, np.integer):
                raise ValueError(
                    f"lengths must hold one integer per row of {name} ({n_q}), got {lengths!r}"
                )
            if np.any((lengths < 0) | (lengths > width)):
                raise ValueError(f"lengths must lie in 0..{width} (the padded width of {name})")
            lengths = lengths.astype(np.int64)
            if np.any(lengths < width):
                mask = np.arange(width)[None, :] < lengths[:, None]
                values = np.where(mask, values, 0.0)
    else:
        if isinstance(batch, np.ndarray) and batch.ndim != 1:
            raise ValueError(f"{name} must be a list of 1-D lists or a 2-D padded array")
        if lengths is not None:
            raise ValueError(f"lengths is only meaningful with a padded 2-D array {name}")
        try:
            rows = [np.asarray(r, dtype=float) for r in batch]
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a list of sequences of numbers: {exc}") from None
        if any(r.ndim != 1 for r in rows):
            raise ValueError(f"every list in {name} must be 1-D")
        lengths = np.array([r.shape[0] for r in rows], dtype=np.int64)
        n_q = len(rows)
        width = int(lengths.max()) if n_q else 0
        values = np.zeros((n_q, width))
        if n_q and width:
            flat = np.concatenate(rows)
            row_id = np.repeat(np.arange(n_q), lengths)
            starts = np.cumsum(lengths) - lengths
            col_id = np.arange(flat.shape[0]) - np.repeat(starts, lengths)
            values[row_id, col_id] = flat
    # the padding is 0 now, so checking the whole array checks every list; two reductions
    # decide the common case (min is nan if any value is nan, max is inf if any is inf)
    if values.size:
        lo, hi = values.min(), values.max()
        if not (lo >= 0 and hi < np.inf):
            if not np.all(np.isfinite(values)):
                raise ValueError(f"{name} must hold finite numbers inside each list's length")
            raise ValueError(
                f"{name} must be >= 0 (graded relevance: 0 = not relevant); "
                f"found {values[values < 0][0]}"
            )
    return values, lengths


def _reduce(per_query: np.ndarray, nan_policy: str, reduce: bool):
    check_choice(nan_policy, NAN_POLICIES, "nan_policy")
    if nan_policy == "zero":
        per_query = np.where(np.isnan(per_query), 0.0, per_query)
    if not reduce:
        return per_query
    if nan_policy == "omit":
        kept = per_query[~np.isnan(per_query)]
        return float(kept.mean()) if kept.size else float("nan")
    return float(per_query.mean()) if per_query.size else float("nan")


def _cut_mask(mask: np.ndarray, k):
    if k is None:
        return mask
    return mask & (np.arange(mask.shape[1])[None, :] < k)


# --------------------------------------------------------------------------------------------
# vectorised kernels over a padded batch (values >= 0, and 0 outside each list's length, so a
# cut at k is a slice of the first k columns)


def _ap_divisor(relevant, n_relevant):
    """The AP divisor m per query (all relevant judged), checked against the list's count."""
    total_rel_in_list = relevant.sum(axis=1, dtype=np.int64).astype(float)
    m = total_rel_in_list if n_relevant is None else n_relevant.astype(float)
    if n_relevant is not None and np.any(total_rel_in_list > m):
        q = int(np.flatnonzero(total_rel_in_list > m)[0])
        raise ValueError(
            f"n_relevant={int(m[q])} is smaller than the {int(total_rel_in_list[q])} relevant "
            f"items present in list {q}: n_relevant counts all relevant items judged for the query"
        )
    return m


def _ap_kernel(values, k, n_relevant, relevant=None):
    """AP per query; ``relevant`` is ``values > 0`` if the caller already has it."""
    relevant = values > 0 if relevant is None else relevant
    m = _ap_divisor(relevant, n_relevant)
    rel = relevant if k is None else relevant[:, :k]
    # precision at each rank times the relevance of that rank; the relevant count so far is an
    # exact integer, so dividing it by the rank rounds once, as P@i = hits / i does
    # (an int32 running count is several times faster than int64 and exact below 2**31 items)
    hits = np.cumsum(rel, axis=1, dtype=np.int32 if rel.shape[1] < 2**31 else np.int64)
    prec_at_i = hits / np.arange(1, rel.shape[1] + 1, dtype=float)
    num = np.multiply(prec_at_i, rel, out=prec_at_i).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(m > 0, num / np.where(m > 0, m, 1.0), np.nan)


def _rr_kernel(values, k, relevant=None):
    rel = values > 0 if relevant is None else relevant
    if k is not None:
        rel = rel[:, :k]
    if rel.shape[1] == 0:
        return np.zeros(rel.shape[0])
    any_rel = rel.any(axis=1)
    first = np.argmax(rel, axis=1)
    return np.where(any_rel, 1.0 / (first + 1.0), 0.0)


def _gain(values, gain):
    check_choice(gain, GAINS, "gain")
    if gain == "linear":
        return values
    return np.expm1(values * np.log(2.0))  # 2**rel - 1, accurate for small rel


def _discounts(n: int, log_base: float) -> np.ndarray:
    return np.log(log_base) / np.log(np.arange(2, n + 2, dtype=float))


def _dcg_kernel(values, k, gain, log_base):
    if k is not None:
        values = values[:, :k]
    return _dcg_of_gains(_gain(values, gain), None, log_base)


def _dcg_of_gains(gains, k, log_base):
    if k is not None:
        gains = gains[:, :k]
    if not gains.shape[1]:
        return np.zeros(gains.shape[0])
    return gains @ _discounts(gains.shape[1], log_base)


#: Largest integer grade for which :func:`_top_k` counts grades instead of sorting.
_COUNT_GRADES = 16


def _top_k(values, k):
    """The ``k`` largest values of each row, in decreasing order (0 where a row runs out).

    For whole-number grades up to ``_COUNT_GRADES`` (the usual qrels) this is a counting sort:
    with ``C_g`` the number of values >= g in a row, the j-th largest value is the number of
    grades g >= 1 with ``C_g > j``. Otherwise the rows are sorted. Both give the same array.
    """
    n_q, width = values.shape
    k = width if k is None else min(k, width)
    if not values.size or k == 0:
        return np.zeros((n_q, k))
    hi = values.max()
    if hi <= _COUNT_GRADES:
        grades = values.astype(np.uint8)
        if np.array_equal(grades, values):
            j = np.arange(k)
            top = np.zeros((n_q, k))
            for g in range(1, int(hi) + 1):
                at_least = (grades >= g).sum(axis=1, dtype=np.int64)
                top += at_least[:, None] > j
            return top
    return np.sort(values, axis=1)[:, : -k - 1 : -1]


def _check_ideal_dominates(values, ideal_values):
    """Each i-th largest ideal relevance must be >= the list's i-th largest (else DCG > IDCG)."""
    width = max(values.shape[1], ideal_values.shape[1])
    a = np.zeros((values.shape[0], width))
    b = np.zeros((values.shape[0], width))
    a[:, : values.shape[1]] = -np.sort(-values, axis=1)
    b[:, : ideal_values.shape[1]] = -np.sort(-ideal_values, axis=1)
    bad = np.any(a > b + 1e-12, axis=1)
    if np.any(bad):
        q = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"ideal for query {q} is not a valid ideal list: it must hold the relevance of every "
            "judged item, including the returned ones, so that its i-th largest value is at least "
            "the list's i-th largest"
        )


def _ideal_batch(values, ideal, ideal_lengths, n_q):
    """The padded ideal batch: the lists themselves, or ``ideal`` checked against them."""
    if ideal is None:
        if ideal_lengths is not None:
            raise ValueError("ideal_lengths is only meaningful together with ideal")
        return values
    ideal_values, _ = _pad(ideal, ideal_lengths, "ideal")
    if ideal_values.shape[0] != n_q:
        raise ValueError(f"ideal must hold one list per query ({n_q}), got {ideal_values.shape[0]}")
    _check_ideal_dominates(values, ideal_values)
    return ideal_values


def _ndcg_kernel(values, k, gain, log_base, ideal_values, ideal_cut):
    num = _dcg_kernel(values, k, gain, log_base)
    ordered = _top_k(ideal_values, k if ideal_cut == "k" else None)
    den = _dcg_kernel(ordered, None, gain, log_base)
    return _unit_ratio(num, den)


def _unit_ratio(num, den):
    """``num / den`` for DCG over ideal DCG (nan where den == 0).

    DCG <= IDCG holds exactly (the ideal dominates the list), so a ratio above 1 can only be
    rounding in the two sums; it is at most a few ulp and is returned as 1. Anything larger is a
    bug and raises.
    """
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    over = ratio > 1.0
    if np.any(ratio[over] - 1.0 > 1e-12):
        raise RuntimeError("nDCG above 1 beyond rounding: please report this as a bug")
    return np.where(over, 1.0, ratio)


def _one(relevance, name="relevance"):
    arr = _check_relevance(relevance, name)
    values = arr[None, :]
    mask = np.ones_like(values, dtype=bool)
    return values, mask


# --------------------------------------------------------------------------------------------
# ranking by scores, with a rule for tied scores


def _check_tie_rule(ties) -> str:
    return _ties.check_ties(ties, extra=("order",))


def _pad_scores(scores, lengths, width, name="scores"):
    """Scores padded like the relevance batch (one finite number per relevance value), and the
    mask of valid positions."""
    n_q = lengths.shape[0]
    valid = np.arange(width)[None, :] < lengths[:, None]
    if isinstance(scores, np.ndarray) and scores.ndim == 2:
        try:
            sc = np.asarray(scores, dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must hold numbers: {exc}") from None
        if sc.shape[0] != n_q or sc.shape[1] < width:
            raise ValueError(
                f"{name} must be aligned with the relevance batch: shape ({n_q}, >= {width}), "
                f"got {sc.shape}"
            )
        sc = sc[:, :width]
    else:
        if isinstance(scores, np.ndarray) and scores.ndim != 1:
            raise ValueError(f"{name} must be a list of 1-D lists or a 2-D array, like the relevance batch")
        try:
            rows = [np.asarray(r, dtype=float) for r in scores]
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a list of sequences of numbers: {exc}") from None
        if len(rows) != n_q:
            raise ValueError(f"{name} must hold one list per query ({n_q}), got {len(rows)}")
        sc = np.zeros((n_q, width))
        for q, r in enumerate(rows):
            if r.ndim != 1 or r.shape[0] != lengths[q]:
                raise ValueError(
                    f"{name}[{q}] must score each of the {int(lengths[q])} items of list {q} "
                    f"(aligned with its relevance), got shape {r.shape}"
                )
            sc[q, : r.shape[0]] = r
    bad = valid & ~np.isfinite(sc)
    if np.any(bad):
        q, i = (int(x[0]) for x in np.nonzero(bad))
        raise ValueError(f"{name} must be finite numbers; list {q}, position {i} holds {sc[q, i]}")
    return sc, valid


def _rank(values, valid, sc, ties):
    """Relevance values ranked by decreasing score under the tie rule, and the tie groups
    (a :class:`rankbook.ties.ScoreBlocks`) when ``ties="expected"`` and some list has a tie."""
    if ties == "expected":
        blocks = _ties.ScoreBlocks(sc, valid)
        return blocks.ranked(values), (blocks if blocks.tied_rows.any() else None)
    primary = np.where(valid, -sc, np.inf)
    if ties == "order":
        order = np.argsort(primary, axis=1, kind="stable")
    else:
        secondary = values if ties == "pessimistic" else -values
        order = np.lexsort((secondary, primary), axis=1)
    return np.take_along_axis(values, order, axis=1), None


def _rank_batch(values, lengths, scores, ties):
    if scores is None:
        return values, None
    sc, valid = _pad_scores(scores, lengths, values.shape[1])
    return _rank(values, valid, sc, ties)


def _one_ranked(relevance, scores, ties):
    """One list as a (1, n) batch in rank order, and its tie groups (see :func:`_rank`)."""
    ties = _check_tie_rule(ties)
    values, _ = _one(relevance)
    if scores is None:
        return values, None
    sc = _as_float_1d(scores, "scores")
    if sc.shape[0] != values.shape[1]:
        raise ValueError(f"scores has {sc.shape[0]} entries but relevance has {values.shape[1]}")
    return _rank(values, np.ones(values.shape, dtype=bool), sc[None, :], ties)


def _expected_rows(per_query, blocks, fn):
    """``per_query`` with the rows that have tied scores replaced by ``fn(rows, their blocks)``."""
    if blocks is None:
        return per_query
    rows = np.flatnonzero(blocks.tied_rows)
    out = np.array(per_query, dtype=float, copy=True)
    out[rows] = fn(rows, blocks.subset(rows))
    return out



# --------------------------------------------------------------------------------------------
# one list


def precision_at_k(relevance, k, scores=None, ties: str = "expected") -> float:
    r"""Precision at k: the share of the first ``k`` positions that hold a relevant item.

    .. math:: P@k = \frac{1}{k} \sum_{i=1}^{k} [\mathrm{rel}_i > 0]

    as in {cite}`rankingnotes` and {cite}`ltrmetricsblog`. A list shorter than ``k`` is padded
    with non-relevant items (the divisor stays ``k``), as trec_eval, ir_measures and ranx do.

    Ties (with ``scores``): ``"expected"`` counts each position with the share of relevant
    items in its group of tied scores, :math:`E[P@k] = \frac{1}{k}\sum_{i \le k} r_i / g_i`
    (``g_i`` tied items at position ``i``, ``r_i`` of them relevant) {cite}`mcsherry2008computing`.

    Parameters
    ----------
    relevance : sequence of float >= 0
        Relevance of the returned items in rank order, or aligned with ``scores``.
    k : int >= 1
        The cut-off.
    scores : sequence of float, optional
        Predicted scores, aligned with ``relevance``; the items are then ranked by decreasing
        score (see *Tied scores* in the module docstring).
    ties : {"expected", "optimistic", "pessimistic", "order"}
        Rule for equal scores (``"average"`` is an alias of ``"expected"``); used only with
        ``scores``.

    Returns
    -------
    float in [0, 1].

    Examples
    --------
    >>> precision_at_k([1, 0, 2, 0], k=2)
    0.5
    >>> precision_at_k([1], k=3)  # missing positions count as not relevant
    0.3333333333333333
    >>> precision_at_k([1, 0, 0], k=1, scores=[0.5, 0.5, 0.5])  # 1 of 3 tied items relevant
    0.3333333333333333
    """
    k = _check_k(k, allow_none=False)
    values, blocks = _one_ranked(relevance, scores, ties)
    hits = (values[:, :k] > 0).sum(axis=1).astype(float)
    hits = _expected_rows(hits, blocks, lambda rows, b: _ties.expected_hits(values[rows] > 0, b, k))
    return float(hits[0] / k)


def recall_at_k(relevance, k, n_relevant=None, scores=None, ties: str = "expected") -> float:
    r"""Recall at k: the share of all relevant items that appear among the first ``k``.

    .. math:: R@k = \frac{1}{m} \sum_{i=1}^{k} [\mathrm{rel}_i > 0]

    with ``m = n_relevant`` {cite}`rankingnotes` {cite}`ltrmetricsblog`. Ties (with
    ``scores``): linear in the number of hits, so ``"expected"`` is the expected hits over ``m``
    (see :func:`precision_at_k`).

    Parameters
    ----------
    relevance : sequence of float >= 0
    k : int >= 1
    n_relevant : int >= 0, optional
        Relevant items judged for the query; default: those present in ``relevance``.
    scores, ties
        As in :func:`precision_at_k`.

    Returns
    -------
    float in [0, 1]; ``nan`` when there is no relevant item (``m = 0``; trec_eval, ir_measures
    and ranx score such a judged query 0 and count it in their mean, see :data:`NAN_POLICIES`).

    Examples
    --------
    >>> recall_at_k([1, 0, 2, 0], k=2, n_relevant=4)
    0.25
    >>> recall_at_k([1, 0, 2, 0], k=2, scores=[3, 2, 2, 1], ties="optimistic")
    1.0
    """
    k = _check_k(k, allow_none=False)
    values, blocks = _one_ranked(relevance, scores, ties)
    hits = (values[:, :k] > 0).sum(axis=1).astype(float)
    hits = _expected_rows(hits, blocks, lambda rows, b: _ties.expected_hits(values[rows] > 0, b, k))
    total = float((values > 0).sum())
    m = _check_n_relevant(n_relevant, 1)
    m = total if m is None else float(m[0])
    if total > m:
        raise ValueError(
            f"n_relevant={int(m)} is smaller than the {int(total)} relevant items in the list"
        )
    return float(hits[0]) / m if m > 0 else float("nan")


def f1_at_k(relevance, k, n_relevant=None, scores=None, ties: str = "expected") -> float:
    r"""F1 at k, the harmonic mean of :func:`precision_at_k` and :func:`recall_at_k`.

    .. math:: F_1@k = 2\,\frac{P@k \cdot R@k}{P@k + R@k} = \frac{2\,h}{k + m}

    with ``h`` the relevant items among the first ``k`` {cite}`rankingnotes`. It is 0 when
    both are 0, and ``nan`` when recall is undefined (no relevant item). Ties (with ``scores``):
    F1 is linear in ``h``, so ``"expected"`` is :math:`2E[h]/(k+m)`, the harmonic mean of the
    expected precision and recall; ``scores`` and ``ties`` as in :func:`precision_at_k`.

    Parameters
    ----------
    relevance : sequence of float >= 0
        Relevance of the returned items in rank order, or aligned with ``scores``.
    k : int >= 1
        The cut-off.
    n_relevant : int, optional
        Relevant items judged for the query (default: those in the list).
    scores : sequence of float, optional
        Predicted scores, aligned with ``relevance``; the items are then ranked by decreasing
        score.
    ties : {"expected", "optimistic", "pessimistic", "order"}
        Rule for equal scores, as in :func:`precision_at_k`; used only with ``scores``.

    Returns
    -------
    float
        In [0, 1]; nan when no item is relevant.

    Examples
    --------
    >>> round(f1_at_k([1, 0, 2, 0], k=2, n_relevant=4), 6)
    0.333333
    """
    p = precision_at_k(relevance, k, scores=scores, ties=ties)
    r = recall_at_k(relevance, k, n_relevant, scores=scores, ties=ties)
    if np.isnan(r):
        return float("nan")
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def hit_at_k(relevance, k, scores=None, ties: str = "expected") -> float:
    r"""Hit at k (Accuracy@K, top-k accuracy, Success@k): 1 if a relevant item is among the first ``k``.

    .. math:: A@k = \left[\sum_{i=1}^{k} [\mathrm{rel}_i > 0] > 0\right]

    {cite}`rankingnotes` {cite}`ltrmetricsblog`. Averaged over queries it is the share of users
    who see at least one relevant item. Empty list: 0. Ties (with ``scores``): only the group of
    tied items that straddles the cut is random; with ``c`` of its ``g`` positions above the cut
    and ``r`` relevant items, ``"expected"`` is :math:`1 - \binom{g-r}{c}/\binom{g}{c}`
    (hypergeometric) unless an earlier group holds a relevant item. ``scores`` and ``ties`` as
    in :func:`precision_at_k`.

    Parameters
    ----------
    relevance : sequence of float >= 0
        Relevance of the returned items in rank order, or aligned with ``scores``.
    k : int >= 1
        The cut-off.
    scores : sequence of float, optional
        Predicted scores, aligned with ``relevance``; the items are then ranked by decreasing
        score.
    ties : {"expected", "optimistic", "pessimistic", "order"}
        Rule for equal scores, as in :func:`precision_at_k`; used only with ``scores``.

    Returns
    -------
    float
        In [0, 1] (0 or 1 without tied scores).

    Examples
    --------
    >>> hit_at_k([0, 0, 3], k=2), hit_at_k([0, 0, 3], k=3)
    (0.0, 1.0)
    >>> round(hit_at_k([0, 0, 3], k=2, scores=[1, 1, 1]), 6)  # 1 - C(2,2)/C(3,2)
    0.666667
    """
    k = _check_k(k, allow_none=False)
    values, blocks = _one_ranked(relevance, scores, ties)
    hit = (values[:, :k] > 0).any(axis=1).astype(float)
    hit = _expected_rows(hit, blocks, lambda rows, b: _ties.expected_hit(values[rows] > 0, b, k))
    return float(hit[0])


def average_precision(relevance, n_relevant=None, k=None, scores=None, ties: str = "expected") -> float:
    r"""Average precision AP@N as the notes and the blog note define it.

    .. math::

        AP@N = \frac{1}{m} \sum_{i=1}^{N} P@i \cdot [\mathrm{rel}_i > 0]

    with ``N = k`` (default: the whole list) and ``m = n_relevant``, the number of relevant
    items judged for the query {cite}`rankingnotes` {cite}`ltrmetricsblog`. This is trec_eval's
    ``map`` / ``map_cut_k`` (ir_measures ``AP`` / ``AP@k``) and ranx ``map@k``: the divisor is
    all relevant items, not ``min(m, k)`` as in some recommender-system code.

    Ties (with ``scores``), after McSherry and Najork {cite}`mcsherry2008computing`: a position
    ``i`` in a group of ``g`` tied items holding ``r`` relevant ones, at offset ``o`` in the
    group, after ``R`` relevant items in earlier groups, holds a relevant item with probability
    ``r/g``, and two of its group's positions both do with probability ``r(r-1)/(g(g-1))``, so

    .. math:: E[AP@N] = \frac{1}{m}\sum_{i \le N} \frac{r}{g\,i}
              \left(1 + R + o\,\frac{r - 1}{g - 1}\right).

    This differs from ``sklearn.metrics.average_precision_score`` when scores tie: scikit-learn
    takes one threshold per tied group (the group counts as retrieved all at once), the mean
    over the group's orders is another number. Relevance ``[1, 0, 1, 0]`` with scores
    ``[.5, .5, .5, .1]`` gives 0.8056 here (the mean over the 6 orders of the tied three),
    0.6667 in scikit-learn; without ties the two agree.

    Parameters
    ----------
    relevance : sequence of float >= 0
    n_relevant : int >= 0, optional
        Default: the number of relevant items in ``relevance``.
    k : int >= 1, optional
    scores, ties
        As in :func:`precision_at_k`.

    Returns
    -------
    float in [0, 1]; ``nan`` when ``m = 0``.

    Examples
    --------
    >>> average_precision([1, 0, 1, 0])  # (1/1 + 2/3) / 2
    0.8333333333333333
    >>> average_precision([1, 0, 1, 0], n_relevant=4)
    0.41666666666666663
    >>> average_precision([1, 0], scores=[0.5, 0.5])  # (1 + 1/2) / 2 over the two orders
    0.75
    >>> round(average_precision([1, 0, 1, 0], scores=[.5, .5, .5, .1]), 4)  # sklearn: 0.6667
    0.8056
    """
    k = _check_k(k)
    values, blocks = _one_ranked(relevance, scores, ties)
    n_rel = _check_n_relevant(n_relevant, 1)
    ap = _ap_kernel(values, k, n_rel)
    m = _ap_divisor(values > 0, n_rel)
    ap = _expected_rows(ap, blocks, lambda rows, b: _ties.expected_ap(values[rows] > 0, b, k, m[rows]))
    return float(ap[0])


def reciprocal_rank(relevance, k=None, scores=None, ties: str = "expected") -> float:
    r"""Reciprocal rank: one over the rank of the first relevant item, 0 if there is none.

    .. math:: RR = \frac{1}{\min\{i : \mathrm{rel}_i > 0\}}

    {cite}`rankingnotes` {cite}`ltrmetricsblog`. With ``k``, only the first ``k`` positions are
    searched (RR@k). Empty list: 0. Ties (with ``scores``): only the first group of tied items
    that holds a relevant item matters; with ``g`` items from rank ``a + 1`` on, ``r`` of them
    relevant, the first relevant one is at rank ``a + 1 + j`` with probability
    :math:`\binom{g-1-j}{r-1}/\binom{g}{r}` {cite}`mcsherry2008computing`; ``"expected"`` sums
    those probabilities over the ranks (up to ``k``). ``scores`` and ``ties`` as in
    :func:`precision_at_k`.

    Parameters
    ----------
    relevance : sequence of float >= 0
        Relevance of the returned items in rank order, or aligned with ``scores``.
    k : int, optional
        Search only the first ``k`` positions.
    scores : sequence of float, optional
        Predicted scores, aligned with ``relevance``; the items are then ranked by decreasing
        score.
    ties : {"expected", "optimistic", "pessimistic", "order"}
        Rule for equal scores, as in :func:`precision_at_k`; used only with ``scores``.

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> reciprocal_rank([0, 0, 1, 1])
    0.3333333333333333
    >>> reciprocal_rank([0, 0, 1], k=2)
    0.0
    >>> reciprocal_rank([1, 0], scores=[2, 2])  # (1 + 1/2) / 2
    0.75
    """
    k = _check_k(k)
    values, blocks = _one_ranked(relevance, scores, ties)
    rr = _rr_kernel(values, k)
    rr = _expected_rows(rr, blocks, lambda rows, b: _ties.expected_rr(values[rows] > 0, b, k))
    return float(rr[0])


def cg(relevance, k=None, scores=None, ties: str = "expected") -> float:
    r"""Cumulated gain: the sum of the relevance of the first ``k`` items (default: all).

    .. math:: CG_k = \sum_{i=1}^{k} \mathrm{rel}_i

    {cite}`jarvelin2002cumulated`. It ignores the order inside the top ``k``. Ties (with
    ``scores``): only the group straddling the cut matters; ``"expected"`` gives each of its
    positions the group's mean relevance. ``scores`` and ``ties`` as in :func:`precision_at_k`.

    Parameters
    ----------
    relevance : sequence of float >= 0
        Relevance of the returned items in rank order, or aligned with ``scores``.
    k : int, optional
        The cut-off (default: the whole list).
    scores : sequence of float, optional
        Predicted scores, aligned with ``relevance``; the items are then ranked by decreasing
        score.
    ties : {"expected", "optimistic", "pessimistic", "order"}
        Rule for equal scores, as in :func:`precision_at_k`; used only with ``scores``.

    Returns
    -------
    float

    Examples
    --------
    >>> cg([3, 2, 0, 1], k=2)
    5.0
    >>> cg([3, 2, 0, 1], k=2, scores=[1, 0, 0, 0])  # 3 + mean(2, 0, 1)
    4.0
    """
    k = _check_k(k)
    values, blocks = _one_ranked(relevance, scores, ties)
    total = values[:, :k].sum(axis=1)
    total = _expected_rows(
        total, blocks, lambda rows, b: _ties.expected_gain(values[rows], b)[:, :k].sum(axis=1)
    )
    return float(total[0])


def order_by_scores(relevance, scores, ties: str = "pessimistic") -> np.ndarray:
    """Relevance of the items ranked by decreasing ``scores``, with a rule for tied scores.

    ``ties``: ``"pessimistic"`` puts the least relevant of tied items first, ``"optimistic"``
    the most relevant, ``"order"`` keeps input order (a stable sort). ``"expected"`` (alias
    ``"average"``) has no single order; pass ``scores`` to the measures instead. (scikit-learn's
    ``ignore_ties=True`` leaves tied items in the order of numpy's default, unstable argsort,
    which none of these rules reproduces in general; without ties all rules agree.)

    Parameters
    ----------
    relevance : sequence of float
        Relevance of the items, aligned with ``scores``.
    scores : sequence of float
        Predicted scores.
    ties : {"pessimistic", "optimistic", "order"}
        Rule for equal scores.

    Returns
    -------
    ndarray of float
        The relevance values in ranked order.

    Examples
    --------
    >>> order_by_scores([0, 2, 1], [0.5, 0.5, 0.9], ties="pessimistic")
    array([1., 0., 2.])
    """
    ties = _check_tie_rule(ties)
    if ties == "expected":
        raise ValueError(
            "ties='expected' has no single order: pass scores= and ties='expected' to the measure "
            "itself; order_by_scores takes 'pessimistic', 'optimistic' or 'order'"
        )
    rel = _check_relevance(relevance)
    sc = _as_float_1d(scores, "scores")
    if sc.shape != rel.shape:
        raise ValueError(f"scores has {sc.shape[0]} entries but relevance has {rel.shape[0]}")
    idx = np.arange(rel.shape[0])
    secondary = {"pessimistic": rel, "optimistic": -rel, "order": idx}[ties]
    return rel[np.lexsort((secondary, -sc))]


def _ranked_dcg(values, blocks, k, gain, log_base):
    """DCG of ranked rows; rows with tied scores get each group's mean gain at its positions."""
    gains = _gain(values, gain)
    out = _dcg_of_gains(gains, k, log_base)
    return _expected_rows(
        out, blocks, lambda rows, b: _dcg_of_gains(_ties.expected_gain(gains[rows], b), k, log_base)
    )


def dcg(relevance, k=None, gain: str = "linear", log_base: float = 2, scores=None, ties: str = "expected") -> float:
    r"""Discounted cumulated gain of the first ``k`` positions.

    .. math:: DCG_k = \sum_{i=1}^{k} \frac{g(\mathrm{rel}_i)}{\log_b(i+1)}

    with ``g(r) = r`` (``gain="linear"``, Järvelin and Kekäläinen {cite}`jarvelin2002cumulated`;
    trec_eval, ir_measures' default nDCG, ranx ``ndcg``, scikit-learn ``dcg_score``) or
    ``g(r) = 2**r - 1`` (``gain="exponential"``, Burges et al. {cite}`burges2005learning`; ranx
    ``ndcg_burges``, the blog note {cite}`ltrmetricsblog`). The two agree on binary relevance.
    ``log_base`` is ``b`` (scikit-learn's ``log_base``); every position, the first included, is
    discounted by ``log_b(i+1)``.

    Parameters
    ----------
    relevance : sequence of float >= 0
        In rank order, or aligned with ``scores`` when they are given.
    k : int >= 1, optional
    gain : {"linear", "exponential"}
    log_base : float > 1
    scores : sequence of float, optional
        Predicted scores; the items are then ranked by decreasing score.
    ties : {"expected", "optimistic", "pessimistic", "order"}
        Only used with ``scores``. ``"expected"`` (alias ``"average"``) gives every position of
        a group of tied items the group's mean gain (McSherry and Najork
        {cite}`mcsherry2008computing`), the exact expected DCG over the orders of the group:
        scikit-learn's default (``ignore_ties=False``). trec_eval (hence ir_measures) breaks ties
        by descending document id: sort by it yourself and use ``"order"``.
        ``"pessimistic"``/``"optimistic"`` give the range over all tie orders. See
        :func:`order_by_scores`.

    Returns
    -------
    float >= 0.

    Examples
    --------
    >>> round(dcg([3, 2, 3, 0, 1, 2]), 4)
    6.8611
    >>> round(dcg([3, 2, 3, 0, 1, 2], gain="exponential", k=3), 4)
    12.3928
    >>> dcg([1, 0], scores=[0.5, 0.5])  # tie: mean gain 1/2 at positions 1 and 2
    0.8154648767857288
    """
    k = _check_k(k)
    log_base = _check_log_base(log_base)
    check_choice(gain, GAINS, "gain")
    values, blocks = _one_ranked(relevance, scores, ties)
    return float(_ranked_dcg(values, blocks, k, gain, log_base)[0])


def ndcg(
    relevance,
    k=None,
    gain: str = "linear",
    ideal=None,
    ideal_cut: str = "k",
    log_base: float = 2,
    scores=None,
    ties: str = "expected",
) -> float:
    r"""Normalised DCG: :func:`dcg` divided by the DCG of the ideal order.

    .. math:: nDCG_k = \frac{DCG_k}{IDCG_k}

    {cite}`jarvelin2002cumulated` {cite}`rankingnotes`. Two choices decide the ideal, and
    libraries differ on them:

    * ``ideal=None`` sorts the list's own relevance values: scikit-learn ``ndcg_score``
      convention (only the scored items exist). ``ideal=`` *all judged relevances of the query*
      (returned or not) is the trec_eval ``ndcg_cut`` / ir_measures ``nDCG@k`` / ranx ``ndcg@k``
      convention; then a relevant item the system failed to return lowers the score.
    * ``ideal_cut="k"`` cuts the ideal at the same ``k`` (all four libraries);
      ``ideal_cut="full"`` uses the whole ideal list, so nDCG@k < 1 whenever relevant items lie
      beyond ``k`` in the ideal order (no library above does this; some papers do).

    The log base cancels in the ratio for both gains (it rescales DCG and IDCG alike). Ties:
    the ideal does not depend on the order, so ``"expected"`` is the expected DCG over IDCG.

    Parameters
    ----------
    relevance, k, gain, log_base, scores, ties
        As in :func:`dcg`; ``ties="expected"`` is scikit-learn's default.
    ideal : sequence of float >= 0, optional
        All judged relevance values of the query. Must dominate the list (its i-th largest value
        is >= the list's i-th largest), else ``ValueError``.
    ideal_cut : {"k", "full"}

    Returns
    -------
    float in [0, 1]; ``nan`` when the ideal DCG is 0 (no relevant item). trec_eval, pytrec_eval,
    ir_measures, ranx and scikit-learn return 0 there; use ``nan_policy="zero"`` in
    :func:`mean_ndcg` to match them. The two sums are rounded
    separately, so a list as good as the ideal can come out a few ulp above 1 (with tie
    averaging, say); that rounding excess is returned as exactly 1.

    Examples
    --------
    >>> round(ndcg([3, 2, 3, 0, 1, 2]), 4)
    0.9608
    >>> round(ndcg([1, 0, 1], k=2, ideal=[1, 1, 1, 1]), 4)  # trec_eval convention
    0.6131
    >>> ndcg([0, 0])
    nan
    """
    k = _check_k(k)
    log_base = _check_log_base(log_base)
    check_choice(gain, GAINS, "gain")
    check_choice(ideal_cut, IDEAL_CUTS, "ideal_cut")
    num = dcg(relevance, k=k, gain=gain, log_base=log_base, scores=scores, ties=ties)
    rel = _check_relevance(relevance)
    ideal_arr = rel if ideal is None else _check_relevance(ideal, "ideal")
    if ideal is not None:
        _check_ideal_dominates(rel[None, :], ideal_arr[None, :])
    ordered = -np.sort(-ideal_arr)
    den = dcg(ordered, k=k if ideal_cut == "k" else None, gain=gain, log_base=log_base)
    return float(_unit_ratio(num, den))


def r_score(ratings, d: float, alpha: float, normalize: bool = False, scores=None, ties: str = "expected") -> float:
    r"""The R-score (half-life utility) of one list, Breese et al. {cite}`breese1998empirical`.

    .. math:: R_u = \sum_{j=1}^{n} \frac{\max(r_{j} - d, 0)}{2^{(j-1)/(\alpha-1)}}

    where ``r_j`` is the user's rating of the item at position ``j``, ``d`` the neutral rating
    and ``alpha`` the half-life: the item at position ``alpha`` is worth half the item at
    position 1 {cite}`rankingnotes`. With ``normalize=True`` the value is divided by that of the
    best order of the same ratings, ``R_u / R_u^*`` (``nan`` if every rating is <= ``d``).
    Tied ratings give the same utility in either order. With ``scores`` (aligned with
    ``ratings``) the items are ranked by decreasing score; ``"expected"`` gives each position
    the mean utility of its group of tied scores (the R-score is linear in the positions, like
    DCG), ``"optimistic"`` / ``"pessimistic"`` rank the highest / lowest rating first.

    Parameters
    ----------
    ratings : sequence of float
        Ratings of the listed items in rank order (any finite numbers), or aligned with
        ``scores``.
    d : float
        Neutral rating.
    alpha : float > 1
        Half-life in positions.
    normalize : bool
    scores, ties
        As in :func:`precision_at_k`.

    Returns
    -------
    float
        nan when normalised and every rating is <= ``d``.

    Examples
    --------
    >>> r_score([5, 3, 4], d=3, alpha=2)  # 2/1 + 0/2 + 1/4
    2.25
    >>> round(r_score([5, 3, 4], d=3, alpha=2, normalize=True), 4)
    0.9
    >>> r_score([5, 3, 4], d=3, alpha=2, scores=[1, 1, 0])  # mean utility 1 at positions 1, 2
    1.75
    """
    ties = _check_tie_rule(ties)
    r = _as_float_1d(ratings, "ratings")
    d = check_number(d, "d", example="the neutral rating")
    alpha = check_number(alpha, "alpha", low=1, low_open=True, example="half-life in positions")
    disc = np.exp2(-np.arange(r.shape[0]) / (alpha - 1.0))
    util = np.maximum(r - d, 0.0)
    if scores is None:
        value = float(util @ disc)
    else:
        sc = _as_float_1d(scores, "scores")
        if sc.shape != r.shape:
            raise ValueError(f"scores has {sc.shape[0]} entries but ratings has {r.shape[0]}")
        ranked, blocks = _rank(util[None, :], np.ones((1, r.shape[0]), bool), sc[None, :], ties)
        per = _expected_rows(ranked @ disc, blocks, lambda rows, b: _ties.expected_gain(ranked[rows], b) @ disc)
        value = float(per[0])
    if not normalize:
        return value
    best = float(-np.sort(-util) @ disc)
    return value / best if best > 0 else float("nan")


def r_score_aggregate(batch, d: float, alpha: float) -> float:
    r"""The aggregated R-score :math:`R = \sum_u R_u / \sum_u R_u^*` over users.

    Breese et al. multiply it by 100; we do not. ``nan`` if every user's best utility is 0.

    Parameters
    ----------
    batch : list of sequences of float
        Each user's ratings in rank order.
    d : float
        Neutral rating.
    alpha : float > 1
        Half-life in positions.

    Returns
    -------
    float

    Examples
    --------
    >>> r_score_aggregate([[5, 3, 4], [1, 5]], d=3, alpha=2)  # (2.25 + 1) / (2.5 + 2)
    0.7222222222222222
    """
    num = sum(r_score(r, d, alpha) for r in batch)
    den = sum(r_score(sorted(np.asarray(r, float), reverse=True), d, alpha) for r in batch)
    return num / den if den > 0 else float("nan")


# --------------------------------------------------------------------------------------------
# pairwise measures


def _pair_counts(x: np.ndarray, y: np.ndarray) -> dict:
    """Counts over unordered pairs i < j of how ``x`` and ``y`` order them.

    Keys: ``concordant``, ``discordant``, ``tied_x`` (tied in x only), ``tied_y`` (in y only),
    ``tied_both``. Blocks of rows bound memory to ``_PAIR_CHUNK * n``.
    """
    n = x.shape[0]
    out = dict(concordant=0, discordant=0, tied_x=0, tied_y=0, tied_both=0)
    cols = np.arange(n)
    for start in range(0, n, _PAIR_CHUNK):
        stop = min(n, start + _PAIR_CHUNK)
        upper = cols[None, :] > np.arange(start, stop)[:, None]
        sx = np.sign(x[start:stop, None] - x[None, :])
        sy = np.sign(y[start:stop, None] - y[None, :])
        prod = sx * sy
        out["concordant"] += int(np.count_nonzero((prod > 0) & upper))
        out["discordant"] += int(np.count_nonzero((prod < 0) & upper))
        zx, zy = sx == 0, sy == 0
        out["tied_x"] += int(np.count_nonzero(zx & ~zy & upper))
        out["tied_y"] += int(np.count_nonzero(~zx & zy & upper))
        out["tied_both"] += int(np.count_nonzero(zx & zy & upper))
    return out


def _paired_scores(reference, system, names=("reference_scores", "system_scores")):
    a = _as_float_1d(reference, names[0])
    b = _as_float_1d(system, names[1])
    if a.shape != b.shape:
        raise ValueError(f"{names[0]} and {names[1]} must score the same items: lengths {a.shape[0]} and {b.shape[0]}")
    return a, b


def ndpm(reference_scores, system_scores) -> float:
    r"""Yao's normalised distance-based performance measure (NDPM), with ties.

    Over the pairs that the reference strictly orders (``C`` of them), a pair costs 0 when the
    system orders it the same way, 1 when the system ties it ("compatible") and 2 when the
    system reverses it. The worst possible total is ``2C`` (the system reversing every such
    pair), so

    .. math:: NDPM = \frac{2 C^{-} + C^{u}}{2 C}

    {cite}`yao1995ndpm` {cite}`rankingnotes`. Ties: pairs tied in the reference carry no
    preference and are left out; pairs tied by the system only cost 1. 0 is perfect, 1 the
    reversal, 0.5 a system that ties everything. ``nan`` when the reference orders no pair.
    Higher scores mean "ranked higher" in both arguments.

    Parameters
    ----------
    reference_scores : sequence of float
        The reference's scores of the items (higher is ranked higher).
    system_scores : sequence of float
        The system's scores of the same items.

    Returns
    -------
    float
        In [0, 1]; nan when the reference orders no pair.

    Examples
    --------
    >>> ndpm([3, 2, 1], [3, 2, 1]), ndpm([3, 2, 1], [1, 2, 3]), ndpm([3, 2, 1], [0, 0, 0])
    (0.0, 1.0, 0.5)
    >>> ndpm([2, 1, 1], [1, 2, 1])  # pairs (a,b) reversed, (a,c) tied; (b,c) not ordered
    0.75
    """
    a, b = _paired_scores(reference_scores, system_scores)
    c = _pair_counts(a, b)
    n_ordered = c["concordant"] + c["discordant"] + c["tied_y"]
    if n_ordered == 0:
        return float("nan")
    return (2 * c["discordant"] + c["tied_y"]) / (2 * n_ordered)


def fcp(reference_scores, system_scores, ties: str = "discordant") -> float:
    r"""Fraction of concordant pairs (FCP) of Koren and Sill {cite}`koren2011ordrec`.

    Over the pairs that the reference strictly orders, ``n_c`` are ordered the same way by the
    system and ``n_d`` are not:

    .. math:: FCP = \frac{n_c}{n_c + n_d}

    {cite}`rankingnotes`. Pairs tied in the reference are left out. Pairs the system ties are
    counted according to ``ties``: ``"discordant"`` (Koren and Sill's definition, ``>=`` in the
    discordant set; the Surprise library), ``"half"`` (half concordant, half discordant: the
    expected value of random tie-breaking, as in ROC AUC) or ``"omit"``. ``nan`` when no pair
    remains. A random tie-free order has expected FCP 1/2.

    Parameters
    ----------
    reference_scores : sequence of float
        The reference's scores of the items.
    system_scores : sequence of float
        The system's scores of the same items.
    ties : {"discordant", "half", "omit"}
        How a pair the system ties counts.

    Returns
    -------
    float
        In [0, 1]; nan when no pair remains.

    Examples
    --------
    >>> fcp([3, 2, 1], [0.9, 0.5, 0.7])
    0.6666666666666666
    >>> fcp([3, 2, 1], [1, 1, 0]), fcp([3, 2, 1], [1, 1, 0], ties="half")
    (0.6666666666666666, 0.8333333333333334)
    """
    check_choice(ties, FCP_TIES, "ties")
    a, b = _paired_scores(reference_scores, system_scores)
    c = _pair_counts(a, b)
    nc, nd, nt = c["concordant"], c["discordant"], c["tied_y"]
    if ties == "discordant":
        nd = nd + nt
    elif ties == "half":
        nc, nd = nc + nt / 2, nd + nt / 2
    total = nc + nd
    return nc / total if total > 0 else float("nan")


def kendall_tau_distance_at_k(a, b, k=None) -> float:
    r"""Normalised Kendall tau distance between two orderings, over the union of their tops.

    ``a`` and ``b`` list the same distinct items, best first. Let ``K`` be the items in the top
    ``k`` of ``a`` or of ``b`` (all items when ``k`` is None) and ``n = |K|``; the distance is
    the share of the ``n(n-1)/2`` pairs of ``K`` that the two orderings put in opposite order:

    .. math:: K_n@k = \frac{2}{n(n-1)} \sum_{\{i,j\} \subset K} \bar K_{i,j}

    {cite}`ltrmetricsblog`. The blog note leaves ``n`` undefined; we take ``n = |K|`` so that the
    value lies in [0, 1]. For ``k=None`` it equals ``(1 - tau)/2`` with Kendall's tau of the two
    position vectors. Ties: none (orderings of distinct items). ``nan`` if ``n < 2``.

    Parameters
    ----------
    a, b : sequence of hashable
        Orderings of the same distinct items, best first.
    k : int, optional
        The top considered (default: all items).

    Returns
    -------
    float
        In [0, 1]; nan if fewer than two items are considered.

    Examples
    --------
    >>> kendall_tau_distance_at_k("abcd", "abdc")
    0.16666666666666666
    >>> kendall_tau_distance_at_k("abcd", "bacd", k=2)
    1.0
    """
    k = _check_k(k)
    a_list, b_list = list(a), list(b)
    if len(set(a_list)) != len(a_list) or len(set(b_list)) != len(b_list):
        raise ValueError("a and b must be orderings of distinct items: an item is repeated")
    if set(a_list) != set(b_list):
        raise ValueError("a and b must order the same set of items (full rankings of one item set)")
    pos_b = {item: i for i, item in enumerate(b_list)}
    pa = np.arange(len(a_list), dtype=float)
    pb = np.array([pos_b[item] for item in a_list], dtype=float)
    if k is None:
        keep = np.ones(len(a_list), bool)
    else:
        keep = (pa < k) | (pb < k)
    n = int(keep.sum())
    if n < 2:
        return float("nan")
    c = _pair_counts(pa[keep], pb[keep])
    return c["discordant"] / (n * (n - 1) / 2)


# --------------------------------------------------------------------------------------------
# aggregation over queries


def mean_average_precision(batch, lengths=None, n_relevant=None, k=None, nan_policy: str = "propagate", reduce: bool = True,
                           scores=None, ties: str = "expected"):
    r"""Mean average precision over queries {cite}`rankingnotes`.

    .. math:: MAP = \frac{1}{|Q|} \sum_{q \in Q} AP_q

    Parameters
    ----------
    batch : list of sequences, or 2-D array
        Relevance lists in rank order, of any lengths; or a padded array whose row ``q`` is
        valid up to ``lengths[q]`` (the padding is ignored).
    lengths : array of int, optional
        Only with a padded array; default: every row is full.
    n_relevant : int or array of int, optional
        Relevant items judged per query (default: those in each list).
    k : int, optional
    nan_policy : {"propagate", "omit", "zero"}
        For queries without relevant items (AP is nan): keep nan (default: the undefined query
        is seen), drop them (no library does), or count 0 (as trec_eval, pytrec_eval,
        ir_measures and ranx do). See :data:`NAN_POLICIES`.
    reduce : bool
        False returns the per-query values.
    scores : list of sequences, or 2-D array, optional
        Predicted scores aligned with ``batch`` (same lengths); each list is then ranked by
        decreasing score.
    ties : {"expected", "optimistic", "pessimistic", "order"}
        Rule for equal scores, as in :func:`average_precision` (``"average"`` is an alias of
        ``"expected"``); used only with ``scores``.

    The padded path is vectorised over queries (no Python loop per query), tied scores
    included: the expected values are closed forms over the tie groups of every list at once.

    Returns
    -------
    float, or ndarray of float of shape (n_queries,) when ``reduce=False``

    Examples
    --------
    >>> mean_average_precision([[1, 0, 1], [0, 1]])  # (5/6 + 1/2) / 2
    0.6666666666666666
    >>> import numpy as np
    >>> mean_average_precision(np.array([[1, 0, 1], [0, 1, 9]]), lengths=[3, 2])
    0.6666666666666666
    """
    k = _check_k(k)
    check_choice(nan_policy, NAN_POLICIES, "nan_policy")
    ties = _check_tie_rule(ties)
    values, lengths = _pad(batch, lengths, "batch")
    values, blocks = _rank_batch(values, lengths, scores, ties)
    n_rel = _check_n_relevant(n_relevant, values.shape[0])
    per_query = _batch_ap(values, k, n_rel, blocks)
    return _reduce(per_query, nan_policy, reduce)


def _batch_ap(values, k, n_rel, blocks, relevant=None):
    relevant = values > 0 if relevant is None else relevant
    per_query = _ap_kernel(values, k, n_rel, relevant)
    if blocks is None:
        return per_query
    m = _ap_divisor(relevant, n_rel)
    return _expected_rows(per_query, blocks,
                          lambda rows, b: _ties.expected_ap(relevant[rows], b, k, m[rows]))


def _batch_rr(values, k, blocks, relevant=None):
    relevant = values > 0 if relevant is None else relevant
    per_query = _rr_kernel(values, k, relevant)
    return _expected_rows(per_query, blocks, lambda rows, b: _ties.expected_rr(relevant[rows], b, k))


def _batch_ndcg(values, k, gain, log_base, ideal_values, ideal_cut, blocks):
    if blocks is None:
        return _ndcg_kernel(values, k, gain, log_base, ideal_values, ideal_cut)
    num = _ranked_dcg(values, blocks, k, gain, log_base)
    ordered = _top_k(ideal_values, k if ideal_cut == "k" else None)
    return _unit_ratio(num, _dcg_kernel(ordered, None, gain, log_base))


def mean_reciprocal_rank(batch, lengths=None, k=None, reduce: bool = True, scores=None, ties: str = "expected"):
    r"""Mean reciprocal rank over queries {cite}`rankingnotes`.

    .. math:: MRR = \frac{1}{|Q|} \sum_{q \in Q} \frac{1}{\mathrm{rank}_q}

    A query without a relevant item contributes 0. ``batch``, ``lengths``, ``scores`` and
    ``ties`` as in :func:`mean_average_precision`; the expected RR of a list with tied scores is
    that of :func:`reciprocal_rank`.

    Parameters
    ----------
    batch : list of sequences, or 2-D array
        Relevance lists in rank order, as in :func:`mean_average_precision`.
    lengths : array of int, optional
        Only with a padded array.
    k : int, optional
        Search only the first ``k`` positions.
    reduce : bool
        False returns the per-query values.
    scores : list of sequences, or 2-D array, optional
        Predicted scores aligned with ``batch``.
    ties : {"expected", "optimistic", "pessimistic", "order"}
        Rule for equal scores; used only with ``scores``.

    Returns
    -------
    float, or ndarray of float of shape (n_queries,) when ``reduce=False``

    Examples
    --------
    >>> mean_reciprocal_rank([[0, 1], [1], [0, 0, 0]])
    0.5
    """
    k = _check_k(k)
    ties = _check_tie_rule(ties)
    values, lengths = _pad(batch, lengths, "batch")
    values, blocks = _rank_batch(values, lengths, scores, ties)
    return _reduce(_batch_rr(values, k, blocks), "propagate", reduce)


def mean_ndcg(
    batch,
    lengths=None,
    k=None,
    gain: str = "linear",
    ideal=None,
    ideal_lengths=None,
    ideal_cut: str = "k",
    log_base: float = 2,
    nan_policy: str = "propagate",
    reduce: bool = True,
    scores=None,
    ties: str = "expected",
):
    r"""Mean nDCG over queries; see :func:`ndcg` for ``gain``, ``ideal`` and ``ideal_cut``.

    ``ideal`` is a batch like ``batch`` (a list of lists, or a padded array with
    ``ideal_lengths``) holding every judged relevance per query; default: each list's own
    values. ``nan_policy="zero"`` scores queries without relevant items 0, as trec_eval,
    pytrec_eval, ir_measures, ranx and scikit-learn's ``ndcg_score`` do (see
    :data:`NAN_POLICIES`). ``scores`` and ``ties`` as in :func:`mean_average_precision`; with
    ties, each list's expected DCG (its tie groups' mean gains) over its ideal DCG.

    Parameters
    ----------
    batch : list of sequences, or 2-D array
        Relevance lists in rank order, as in :func:`mean_average_precision`.
    lengths : array of int, optional
        Only with a padded array.
    k : int, optional
        The cut-off.
    gain : {"linear", "exponential"}
        As in :func:`ndcg`.
    ideal : list of sequences, or 2-D array, optional
        Every judged relevance per query (see above).
    ideal_lengths : array of int, optional
        Only with a padded ``ideal``.
    ideal_cut : {"k", "full"}
        As in :func:`ndcg`.
    log_base : float > 1
        Base of the discount's logarithm.
    nan_policy : {"propagate", "omit", "zero"}
        For queries without relevant items, as in :func:`mean_average_precision`.
    reduce : bool
        False returns the per-query values.
    scores : list of sequences, or 2-D array, optional
        Predicted scores aligned with ``batch``.
    ties : {"expected", "optimistic", "pessimistic", "order"}
        Rule for equal scores; used only with ``scores``.

    Returns
    -------
    float, or ndarray of float of shape (n_queries,) when ``reduce=False``

    Examples
    --------
    >>> round(mean_ndcg([[3, 2, 3, 0, 1, 2], [0, 1]]), 4)
    0.7959
    """
    k = _check_k(k)
    log_base = _check_log_base(log_base)
    check_choice(gain, GAINS, "gain")
    check_choice(ideal_cut, IDEAL_CUTS, "ideal_cut")
    check_choice(nan_policy, NAN_POLICIES, "nan_policy")
    ties = _check_tie_rule(ties)
    values, lengths = _pad(batch, lengths, "batch")
    ideal_values = _ideal_batch(values, ideal, ideal_lengths, values.shape[0])
    values, blocks = _rank_batch(values, lengths, scores, ties)
    per_query = _batch_ndcg(values, k, gain, log_base, ideal_values, ideal_cut, blocks)
    return _reduce(per_query, nan_policy, reduce)


def _parse_measure(name):
    if not isinstance(name, str):
        raise ValueError(f"measure {name!r} must be a string such as 'ndcg@10'; "
                         f"choose from {list(BATCH_MEASURES)}, optionally cut as 'name@k'")
    base, at, cut = name.partition("@")
    if base not in BATCH_MEASURES or (at and not (cut.isdigit() and cut.isascii() and int(cut) >= 1)):
        raise ValueError(
            f"measure {name!r} is not valid; choose one of {list(BATCH_MEASURES)}, optionally cut "
            "at an integer k >= 1 as in 'ndcg@10'"
        )
    return base, (int(cut) if at else None)


def evaluate(
    batch,
    measures,
    lengths=None,
    n_relevant=None,
    gain: str = "linear",
    ideal=None,
    ideal_lengths=None,
    ideal_cut: str = "k",
    log_base: float = 2,
    nan_policy: str = "propagate",
    reduce: bool = True,
    scores=None,
    ties: str = "expected",
) -> dict:
    r"""Several batch measures of the same queries in one call, validating the batch once.

    The data come first, then the measures, as in ranx's and ir_measures' ``evaluate(run,
    metrics)``; :func:`rankbook.metrics.evaluate` takes the metric first (``name, sigma, nu``)
    like ``scipy.stats``. Both orders are kept on purpose, each matching its users' habits.

    Each entry of ``measures`` is ``"ap"``, ``"rr"`` or ``"ndcg"``, optionally cut at ``k`` as
    ``"ndcg@10"``. The result for ``"ap@k"`` equals
    ``mean_average_precision(batch, lengths, n_relevant=n_relevant, k=k, nan_policy=nan_policy,
    reduce=reduce)`` exactly (same kernels, same rounding), ``"rr@k"`` equals
    :func:`mean_reciprocal_rank` and ``"ndcg@k"`` equals :func:`mean_ndcg` with the same
    ``gain``, ``ideal``, ``ideal_lengths``, ``ideal_cut``, ``log_base`` and ``nan_policy``.
    Parameters a measure does not use are ignored by it (``n_relevant`` only affects AP, the
    nDCG options only nDCG; RR is never nan, so ``nan_policy`` does not change it).

    What is shared: the batch is converted, padded and checked once (instead of once per
    measure); the relevant/not-relevant matrix is computed once for AP and RR; ``ideal`` is
    padded and checked once for all nDCG cut-offs.

    Parameters
    ----------
    batch : list of sequences, or 2-D array
        Relevance lists in rank order, as in :func:`mean_average_precision`.
    measures : str or iterable of str
        Measure names, e.g. ``["ndcg@10", "ap", "rr"]`` (see :data:`BATCH_MEASURES`).
    lengths, n_relevant, gain, ideal, ideal_lengths, ideal_cut, log_base, nan_policy, reduce
        As in :func:`mean_average_precision` and :func:`mean_ndcg`.
    scores, ties
        Predicted scores aligned with ``batch`` and the rule for equal scores, as in
        :func:`mean_average_precision`; the lists are ranked (and their tie groups found) once
        for all measures.

    Returns
    -------
    dict
        ``{name: value}`` in the order of ``measures``: a float, or the per-query array if
        ``reduce`` is False.

    Examples
    --------
    >>> out = evaluate([[3, 2, 3, 0, 1, 2], [0, 1]], ["ndcg@3", "ap", "rr"])
    >>> {name: round(v, 4) for name, v in out.items()}
    {'ndcg@3': 0.8044, 'ap': 0.7133, 'rr': 0.75}
    >>> evaluate([[1, 0]], ["ap", "rr"], scores=[[0.5, 0.5]], ties="expected")
    {'ap': 0.75, 'rr': 0.75}
    """
    names = [measures] if isinstance(measures, str) else list(measures)
    if not names:
        raise ValueError(f"measures is empty; give at least one of {list(BATCH_MEASURES)}")
    parsed = {name: _parse_measure(name) for name in names}
    log_base = _check_log_base(log_base)
    check_choice(gain, GAINS, "gain")
    check_choice(ideal_cut, IDEAL_CUTS, "ideal_cut")
    check_choice(nan_policy, NAN_POLICIES, "nan_policy")
    ties = _check_tie_rule(ties)
    values, lengths = _pad(batch, lengths, "batch")
    n_q = values.shape[0]
    n_rel = _check_n_relevant(n_relevant, n_q)
    kinds = {base for base, _ in parsed.values()}
    ideal_values = _ideal_batch(values, ideal, ideal_lengths, n_q) if "ndcg" in kinds else None
    values, blocks = _rank_batch(values, lengths, scores, ties)
    relevant = values > 0 if kinds & {"ap", "rr"} else None
    out = {}
    for name, (base, k) in parsed.items():
        if base == "ap":
            per_query = _batch_ap(values, k, n_rel, blocks, relevant)
        elif base == "rr":
            per_query = _batch_rr(values, k, blocks, relevant)
        else:
            per_query = _batch_ndcg(values, k, gain, log_base, ideal_values, ideal_cut, blocks)
        out[name] = _reduce(per_query, nan_policy, reduce)
    return out


#: Which library each setting of this module reproduces; every "matches" entry is checked by
#: tests/test_ir.py against the installed library (scikit-learn 1.9, ir_measures 0.4 with
#: pytrec_eval, ranx 0.3).
CONVENTIONS = [
    ("gain", '"linear"', "trec_eval ndcg / ndcg_cut, ir_measures nDCG@k, ranx ndcg@k, scikit-learn dcg_score / ndcg_score"),
    ("gain", '"exponential"', "ranx ndcg_burges@k; ir_measures nDCG(gains={g: 2**g - 1})@k; the blog note's NDCG@K"),
    ("ideal", "None (the list's own values)", "scikit-learn ndcg_score: only the scored items exist"),
    ("ideal", "all judged relevances of the query", "trec_eval, ir_measures, ranx: relevant items not returned lower nDCG"),
    ("ideal_cut", '"k"', "all four libraries: the ideal DCG is cut at the same k"),
    ("ideal_cut", '"full"', "none of the four; some papers normalise DCG@k by the uncut ideal DCG"),
    ("ties (with scores)", '"expected" (alias "average")', "scikit-learn default (ignore_ties=False): McSherry-Najork tie averaging"),
    ("ties (with scores)", '"order" after sorting by score, then document id descending', "trec_eval and ir_measures (they break score ties by descending document id)"),
    ("ties (with scores)", "any rule, on tie-free scores", "scikit-learn ignore_ties=True (its order among ties is numpy's unstable argsort)"),
    ("judged query without relevant items", "nan (nan_policy='propagate'); nan_policy='zero' counts it 0",
     "0, counted in the mean: trec_eval, pytrec_eval, ir_measures, ranx, scikit-learn; only queries absent from the judgements are skipped"),
    ("AP divisor", "n_relevant (all relevant judged)", "trec_eval map / map_cut, ir_measures AP and AP@k, ranx map@k"),
    ("P@k of a short list", "divide by k", "trec_eval, ir_measures, ranx"),
]


# qrels and runs in, scored under one tool's conventions: see rankbook.conventions
from rankbook.conventions import evaluate_run, read_qrels, read_run  # noqa: E402
