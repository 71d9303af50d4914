r"""The measures of trec_eval's ``-m all_trec`` that need more than precision, recall, AP, RR
and nDCG, on rankings already put in trec_eval's order, every query at once.

:func:`rankbook.conventions.evaluate_run` ranks a run under a profile's rules and calls these
functions with a :class:`Ranking`; they can also be called directly on relevance codes in rank
order. Each follows the C source of trec_eval {cite}`trec_eval` (file named in its docstring),
quirks included, so that the number is the one trec_eval prints: every loop over a query's
documents is a cumulative sum or maximum along the rows of a padded matrix.

Relevance codes, as trec_eval's ``form_res_rels.c`` builds them: a judged level (``>= 0``),
:data:`NOT_POOLED` (``-1``) for a retrieved document the qrels do not list, :data:`UNJUDGED`
(``-2``) for one they list with a negative level (in the pool, not judged). A document is
relevant when its level is at least the relevance level (``rel``, trec_eval's ``-l``, default
1). The gain of a document in ``G``, ``ndcg_rel``, ``Rndcg`` and ``rbp`` is its level (0 for a
negative code), as trec_eval's default gains are.

Examples
--------
>>> r = ranking([[1, 0, -1, 2]], [[2, 1, 0, 0]])
>>> float(bpref(r)[0]), float(num_nonrel_judged_ret(r)[0]), relstring(r)
(0.75, 1.0, ['10-2'])
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

import numpy as np

__all__ = [
    "NOT_POOLED", "UNJUDGED", "RECALL_CUTOFF_RULES", "Ranking", "ranking",
    "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "bpref", "infap",
    "iprec_at_recall", "eleven_point_average", "rprec_mult", "utility", "set_precision",
    "set_recall", "set_relative_precision", "set_map", "set_f", "relative_precision",
    "bin_g", "g", "ndcg_rel", "rndcg", "rbp", "rbp_resid", "unjudged", "relstring", "err",
]

#: Code of a retrieved document the qrels do not list (trec_eval's ``RELVALUE_NONPOOL``).
NOT_POOLED = -1
#: Code of a retrieved document the qrels list with a negative level (``RELVALUE_UNJUDGED``).
UNJUDGED = -2
#: ``infAP``'s smoothing constant (``trec_eval.h: INFAP_EPSILON``).
INFAP_EPSILON = 0.00001
#: How a recall level x becomes a number of relevant documents in ``iprec_at_recall`` and
#: ``11pt_avg``: ``"plus_0.9"``, ``(long)(x * R + 0.9)`` in double (trec_eval 9 and earlier);
#: ``"plus_0.9_fused"``, the same with the multiply-add rounded once (what a compiler that fuses
#: it prints: trec_eval's own 10.0-line test outputs); ``"lround"``, ``lround(x * R)`` (trec_eval
#: 10.0, "11pt avg round fix", pull request 43).
RECALL_CUTOFF_RULES = ("plus_0.9", "plus_0.9_fused", "lround")


class Ranking(NamedTuple):
    """Every query's retrieved documents in rank order, and its judgements.

    Attributes
    ----------
    rel : numpy.ndarray
        (queries, width) relevance codes in rank order (module notes); cells at or after
        ``n`` are padding and are never read as documents.
    n : numpy.ndarray
        (queries,) documents retrieved (trec_eval's ``num_ret``).
    judged : numpy.ndarray
        (queries, J) the levels of the query's judgements (negative ones included), padded
        with NaN.
    """

    rel: np.ndarray
    n: np.ndarray
    judged: np.ndarray

    @property
    def valid(self) -> np.ndarray:
        return np.arange(self.rel.shape[1])[None, :] < self.n[:, None]


def ranking(rows, judged) -> Ranking:
    """A :class:`Ranking` from lists: each query's codes in rank order and its judged levels.

    Parameters
    ----------
    rows : sequence of sequences of int
        Each query's relevance codes in rank order (module notes): a judged level,
        :data:`NOT_POOLED` or :data:`UNJUDGED`.
    judged : sequence of sequences of int
        Each query's judged levels, retrieved or not, negative ones included; one sequence
        per query, in the order of ``rows``.

    Returns
    -------
    Ranking
        ``rel`` (queries, longest row) as float64, padded with :data:`NOT_POOLED`; ``n`` the
        length of each row (int64); ``judged`` (queries, most judgements) float64, padded with
        NaN.

    Raises
    ------
    ValueError
        ``rows`` and ``judged`` hold different numbers of queries.

    Examples
    --------
    >>> r = ranking([[1, -1], [0]], [[1, 0], [0, 2]])
    >>> r.n.tolist(), r.rel.shape, r.judged.shape
    ([2, 1], (2, 2), (2, 2))
    """
    rows, judged = [list(x) for x in rows], [list(x) for x in judged]
    if len(rows) != len(judged):
        raise ValueError(f"{len(rows)} rankings but {len(judged)} lists of judgements; give one "
                         "of each per query")
    w = max([len(x) for x in rows] + [1])
    wj = max([len(x) for x in judged] + [1])
    rel = np.full((len(rows), w), float(NOT_POOLED))
    jud = np.full((len(rows), wj), np.nan)
    for i, (x, y) in enumerate(zip(rows, judged)):
        rel[i, :len(x)] = x
        jud[i, :len(y)] = y
    return Ranking(rel, np.array([len(x) for x in rows], dtype=np.int64), jud)


# --------------------------------------------------------------------------------------------
# helpers


def _rowsum(x) -> np.ndarray:
    """Sum along each row from the first column on, one addition at a time (as trec_eval adds),
    so that a printed fourth decimal does not depend on numpy's pairwise summation."""
    x = np.asarray(x, dtype=float)
    if not x.shape[1]:
        return np.zeros(x.shape[0])
    return np.cumsum(x, axis=1)[:, -1].copy()


def _div(num, den):
    """num / den where den > 0, else 0 (trec_eval leaves such a value at its initial 0)."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def _is_rel(r: Ranking, rel: int) -> np.ndarray:
    return r.valid & (r.rel >= rel)


def _gains(r: Ranking) -> np.ndarray:
    """trec_eval's default gain of each ranked document: its level, 0 for a negative code."""
    return np.where(r.valid & (r.rel > 0), r.rel, 0.0)


def _ideal(r: Ranking, width: int) -> np.ndarray:
    """Each query's judged positive levels in decreasing order (the ideal ranking's gains), 0
    after them, ``width`` columns."""
    lv = np.where(np.isfinite(r.judged) & (r.judged > 0), r.judged, 0.0)
    ideal = -np.sort(-lv, axis=1)
    out = np.zeros((ideal.shape[0], max(width, 1)))
    m = min(ideal.shape[1], out.shape[1])
    out[:, :m] = ideal[:, :m]
    return out


def _discounts(width: int) -> np.ndarray:
    return np.log2(np.arange(2, width + 2, dtype=float))


def _powers(p: float, width: int) -> np.ndarray:
    """1, p, p*p, ...: each power from the one before, as trec_eval's ``cur_p *= p``."""
    if not width:
        return np.zeros(0)
    return np.cumprod(np.concatenate([[1.0], np.full(width - 1, p)]))


# --------------------------------------------------------------------------------------------
# counts


def num_ret(r: Ranking) -> np.ndarray:
    """Documents retrieved (``m_num_ret.c``); summed over queries, not averaged.

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query: its documents retrieved.

    Examples
    --------
    >>> num_ret(ranking([[1, 0, -1]], [[1]])).tolist()
    [3.0]
    """
    return r.n.astype(float)


def num_rel(r: Ranking, rel: int = 1) -> np.ndarray:
    """Judged relevant documents, retrieved or not: levels at least ``rel`` (``m_num_rel.c``).

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query: its judgements at level ``rel`` or above.

    Examples
    --------
    >>> num_rel(ranking([[1]], [[1, 2, 0, -1]])).tolist()
    [2.0]
    """
    with np.errstate(invalid="ignore"):
        return (np.nan_to_num(r.judged, nan=-np.inf) >= rel).sum(axis=1).astype(float)


def num_rel_ret(r: Ranking, rel: int = 1) -> np.ndarray:
    """Relevant documents retrieved (``m_num_rel_ret.c``).

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query: its relevant documents among those retrieved.

    Examples
    --------
    >>> num_rel_ret(ranking([[2, 0, 1]], [[2, 0, 1]])).tolist()
    [2.0]
    """
    return _is_rel(r, rel).sum(axis=1).astype(float)


def num_nonrel_judged_ret(r: Ranking, rel: int = 1) -> np.ndarray:
    """Judged non-relevant documents retrieved: level at least 0 and below ``rel``
    (``m_num_nonrel_judged_ret.c``).

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query: its retrieved documents judged non-relevant (level
        0 or more, below ``rel``).

    Examples
    --------
    >>> num_nonrel_judged_ret(ranking([[0, -1, -2, 1]], [[0, -3, 1]])).tolist()
    [1.0]
    """
    return (r.valid & (r.rel >= 0) & (r.rel < rel)).sum(axis=1).astype(float)


def _num_nonrel(r: Ranking, rel: int) -> np.ndarray:
    j = np.nan_to_num(r.judged, nan=-np.inf)
    return ((j >= 0) & (j < rel)).sum(axis=1).astype(float)


# --------------------------------------------------------------------------------------------
# incomplete judgements


def bpref(r: Ranking, rel: int = 1) -> np.ndarray:
    r"""Binary preference: how many judged non-relevant documents come before each relevant one
    (``m_bpref.c``), Buckley and Voorhees {cite}`buckley2004bpref`.

    .. math::

        \mathrm{bpref} = \frac{1}{R}\sum_{d\ \mathrm{relevant}}
        \Bigl(1 - \frac{\min(n_d, R)}{\min(N, R)}\Bigr)

    with :math:`n_d` the judged non-relevant documents ranked above :math:`d`, :math:`R` the
    relevant and :math:`N` the judged non-relevant documents of the query (a term is 1 when
    :math:`n_d = 0`). Unjudged documents are skipped.

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query, in [0, 1]; 0 for a query without relevant
        documents.

    Examples
    --------
    >>> float(bpref(ranking([[0, 1, -1, 1]], [[0, 1, 1]]))[0])
    0.0
    """
    isrel = _is_rel(r, rel)
    nonrel_so_far = np.cumsum(r.valid & (r.rel >= 0) & (r.rel < rel), axis=1)
    big_r = num_rel(r, rel)[:, None]
    den = np.minimum(_num_nonrel(r, rel)[:, None], big_r)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(nonrel_so_far > 0,
                        1.0 - np.minimum(nonrel_so_far, big_r) / np.where(den > 0, den, 1.0), 1.0)
    total = _rowsum(np.where(isrel, term, 0.0))
    big_r = big_r[:, 0]
    return np.where(big_r > 0, total / np.where(big_r > 0, big_r, 1.0), total)


def infap(r: Ranking, rel: int = 1) -> np.ndarray:
    r"""Inferred AP of Yilmaz and Aslam {cite}`yilmaz2006infap` (``m_infap.c``): at each
    relevant document, the precision estimated from the judged documents above it, with the
    documents outside the pool counted as non-relevant.

    At the relevant document at rank :math:`k > 1`, with :math:`r, n, u` the relevant, judged
    non-relevant and pooled-unjudged documents above it and :math:`\epsilon = 10^{-5}`:

    .. math::

        \frac{1}{k} + \frac{k-1}{k}\cdot\frac{r + n + u}{k - 1}\cdot
        \frac{r + \epsilon}{r + n + 2\epsilon}

    (1 at rank 1); their sum over relevant documents, divided by :math:`R`.

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query; 0 for a query without relevant documents.

    Examples
    --------
    >>> round(float(infap(ranking([[1, -1, 1]], [[1, 1]]))[0]), 4)
    0.8333
    """
    valid = r.valid
    isrel = _is_rel(r, rel)
    rel_so_far = np.cumsum(isrel, axis=1) - 1.0  # relevant above the document
    nonrel = np.cumsum(valid & (r.rel >= 0) & (r.rel < rel), axis=1).astype(float)
    unj = np.cumsum(valid & (r.rel == UNJUDGED), axis=1).astype(float)
    j = np.arange(r.rel.shape[1], dtype=float)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        term = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_so_far + nonrel + unj) / j)
                * ((rel_so_far + INFAP_EPSILON) / (rel_so_far + nonrel + 2 * INFAP_EPSILON)))
    term = np.where(j == 0, 1.0, term)
    total = _rowsum(np.where(isrel, term, 0.0))
    big_r = num_rel(r, rel)
    return np.where(big_r > 0, total / np.where(big_r > 0, big_r, 1.0), total)


# --------------------------------------------------------------------------------------------
# interpolated precision


def recall_cutoffs(x: float, big_r: np.ndarray, rule: str = "plus_0.9") -> np.ndarray:
    """The number of relevant documents a recall level ``x`` stands for, under one of
    :data:`RECALL_CUTOFF_RULES`.

    Parameters
    ----------
    x : float
        Recall level, such as 0.3.
    big_r : array_like of float
        The number of relevant documents of each query (:func:`num_rel`), any shape.
    rule : str, default "plus_0.9"
        One of :data:`RECALL_CUTOFF_RULES`.

    Returns
    -------
    numpy.ndarray
        int64, the shape of ``big_r``: the number of relevant documents ``x`` stands for in
        each query.

    Raises
    ------
    ValueError
        ``rule`` is not one of :data:`RECALL_CUTOFF_RULES` (the message lists them).

    Examples
    --------
    >>> r = np.array([77.0])
    >>> [int(recall_cutoffs(0.3, r, rule)[0]) for rule in RECALL_CUTOFF_RULES]
    [23, 24, 23]
    """
    if rule not in RECALL_CUTOFF_RULES:
        raise ValueError(f"recall cut-off rule {rule!r} is not known; choose one of "
                         f"{list(RECALL_CUTOFF_RULES)}")
    big_r = np.asarray(big_r, dtype=float)
    prod = np.float64(x) * big_r
    if rule == "plus_0.9":
        return np.floor(prod + 0.9).astype(np.int64)
    if rule == "lround":
        whole = np.floor(prod)
        return (whole + (prod - whole >= 0.5)).astype(np.int64)
    # one rounding of x * R + 0.9: exact arithmetic on the few distinct R
    uniq, inv = np.unique(big_r, return_inverse=True)
    fx, f9 = Fraction(float(x)), Fraction(0.9)
    vals = np.array([int(float(fx * Fraction(float(v)) + f9) // 1) for v in uniq], dtype=np.int64)
    return vals[inv].reshape(big_r.shape)


def _interpolated(r: Ranking, rel: int, cuts: np.ndarray) -> np.ndarray:
    """trec_eval's interpolated precision at ``cuts[i]`` relevant documents of query i
    (``m_iprec_at_recall.c``): the largest precision at or below the rank of that relevant
    document; 0 when fewer are retrieved; for a cut of 0, the value at the first one."""
    isrel = _is_rel(r, rel)
    found = np.cumsum(isrel, axis=1)
    rr = found[:, -1] if found.shape[1] else np.zeros(r.n.shape, dtype=np.int64)
    w = r.rel.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(r.valid, found / np.arange(1, w + 1)[None, :], -np.inf)
        best_below = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1] if w else prec
        target = np.maximum(cuts, 1)
        pos = np.argmax(found >= target[:, None], axis=1) if w else np.zeros(r.n.shape, np.int64)
        at = best_below[np.arange(pos.size), pos] if w else np.zeros(r.n.shape)
        empty = rr / r.n.astype(float)  # no relevant retrieved: num_rel_ret / num_ret
    return np.where(cuts > rr, 0.0, np.where(rr > 0, at, empty))


def iprec_at_recall(r: Ranking, level: float, rel: int = 1, rule: str = "plus_0.9") -> np.ndarray:
    r"""Interpolated precision at a recall level (``m_iprec_at_recall.c``):

    .. math::

        \mathrm{iprec}(x) = \max_{i \ge k_c} P@i, \quad c = \mathrm{cut}(x, R)

    with :math:`k_c` the rank of the :math:`c`-th relevant document and :math:`\mathrm{cut}` one
    of :data:`RECALL_CUTOFF_RULES`; 0 when fewer than :math:`c` are retrieved.

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    level : float
        Recall level :math:`x`, in [0, 1].
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.
    rule : str, default "plus_0.9"
        How a recall level becomes a number of relevant documents: one of
        :data:`RECALL_CUTOFF_RULES`.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query.

    Examples
    --------
    >>> r = ranking([[0, 1, 0, 1]], [[1, 1, 0]])
    >>> [float(iprec_at_recall(r, x)[0]) for x in (0.0, 0.5, 1.0)]
    [0.5, 0.5, 0.5]
    """
    return _interpolated(r, rel, recall_cutoffs(level, num_rel(r, rel), rule))


#: trec_eval's recall levels of ``iprec_at_recall`` and ``11pt_avg``: 0.0, 0.1, ..., 1.0.
ELEVEN_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def eleven_point_average(r: Ranking, rel: int = 1, rule: str = "plus_0.9",
                         levels=ELEVEN_LEVELS) -> np.ndarray:
    r"""The mean of :func:`iprec_at_recall` over recall levels 0, 0.1, ..., 1 (``m_11pt_avg.c``).

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.
    rule : str, default "plus_0.9"
        How a recall level becomes a number of relevant documents: one of
        :data:`RECALL_CUTOFF_RULES`.
    levels : sequence of float, default ELEVEN_LEVELS
        The recall levels averaged over (trec_eval's eleven: 0, 0.1, ..., 1).

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query: the mean of the interpolated precisions at
        ``levels``.

    Examples
    --------
    >>> float(eleven_point_average(ranking([[1, 0]], [[1]]))[0])
    1.0
    """
    big_r = num_rel(r, rel)
    total = np.zeros(r.n.shape)
    for x in levels:
        total = total + _interpolated(r, rel, recall_cutoffs(x, big_r, rule))
    return total / len(levels)


def rprec_mult(r: Ranking, mult: float, rel: int = 1, fused: bool = False) -> np.ndarray:
    r"""Precision at a multiple of :math:`R` (``m_Rprec_mult.c``): :math:`P@c` with
    :math:`c = \lfloor m R + 0.9 \rfloor` (0 when :math:`c = 0`); ``fused`` rounds the
    multiply-add once, as a build that fuses it does.

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    mult : float
        The multiple :math:`m` of :math:`R` (0.2, 1, 2, ...).
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.
    fused : bool, default False
        Round :math:`m R + 0.9` once (the ``"plus_0.9_fused"`` rule of
        :func:`recall_cutoffs`) instead of twice.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query, in [0, 1].

    Examples
    --------
    >>> r = ranking([[1, 0, 1, 0]], [[1, 1]])
    >>> [float(rprec_mult(r, m)[0]) for m in (0.2, 1.0, 2.0)]
    [1.0, 0.5, 0.5]
    """
    big_r = num_rel(r, rel)
    cuts = recall_cutoffs(mult, big_r, "plus_0.9_fused" if fused else "plus_0.9")
    found = np.concatenate([np.zeros((r.n.size, 1)), np.cumsum(_is_rel(r, rel), axis=1)], axis=1)
    w = r.rel.shape[1]
    hits = found[np.arange(r.n.size), np.minimum(cuts, w)]
    return _div(hits, cuts)


# --------------------------------------------------------------------------------------------
# set measures


def utility(r: Ranking, rel: int = 1, coefficients=(1.0, -1.0, 0.0, 0.0),
            num_docs: int = 0) -> np.ndarray:
    r"""Set utility (``m_utility.c``): :math:`a\,RR + b\,(n - RR) + c\,(R - RR) + d\,(N + RR - n
    - R)` with the coefficients :math:`(a, b, c, d)` (default 1, -1, 0, 0), :math:`RR` the
    relevant retrieved, :math:`n` the retrieved and :math:`N` the collection size (``-N``).

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.
    coefficients : sequence of four floats, default (1.0, -1.0, 0.0, 0.0)
        :math:`(a, b, c, d)`: the weights of relevant retrieved, non-relevant retrieved,
        relevant not retrieved and non-relevant not retrieved documents.
    num_docs : int, default 0
        :math:`N`, the number of documents in the collection (trec_eval's ``-N``).

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query: the utility, not normalised.

    Examples
    --------
    >>> utility(ranking([[1, 0, 0]], [[1]])).tolist()
    [-1.0]
    """
    a, b, c, d = (float(v) for v in coefficients)
    rr, n, big_r = num_rel_ret(r, rel), num_ret(r), num_rel(r, rel)
    return a * rr + b * (n - rr) + c * (big_r - rr) + d * (num_docs + rr - n - big_r)


def set_precision(r: Ranking, rel: int = 1) -> np.ndarray:
    """Relevant retrieved over retrieved (``m_set_P.c``); 0 without retrieved documents.

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query, in [0, 1].

    Examples
    --------
    >>> set_precision(ranking([[1, 0, -1, 1]], [[1, 1, 0]])).tolist()
    [0.5]
    """
    return _div(num_rel_ret(r, rel), num_ret(r))


def set_recall(r: Ranking, rel: int = 1) -> np.ndarray:
    """Relevant retrieved over relevant (``m_set_recall.c``); 0 without relevant documents.

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query, in [0, 1].

    Examples
    --------
    >>> set_recall(ranking([[1, 0]], [[1, 1, 0]])).tolist()
    [0.5]
    """
    return _div(num_rel_ret(r, rel), num_rel(r, rel))


def set_relative_precision(r: Ranking, rel: int = 1) -> np.ndarray:
    """Relevant retrieved over the most that could be: min(retrieved, relevant)
    (``m_set_rel_P.c``); 0 when that is 0.

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query, in [0, 1].

    Examples
    --------
    >>> set_relative_precision(ranking([[1, 0, 0]], [[1, 1]])).tolist()
    [0.5]
    """
    return _div(num_rel_ret(r, rel), np.minimum(num_ret(r), num_rel(r, rel)))


def set_map(r: Ranking, rel: int = 1) -> np.ndarray:
    r"""Unranked AP: :math:`RR^2 / (n\,R)`, set precision times set recall (``m_set_map.c``).

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query, in [0, 1]; 0 when nothing is retrieved or nothing
        is relevant.

    Examples
    --------
    >>> set_map(ranking([[1, 0]], [[1, 1]])).tolist()
    [0.25]
    """
    rr = num_rel_ret(r, rel)
    return _div(rr * rr, num_ret(r) * num_rel(r, rel))


def set_f(r: Ranking, rel: int = 1, beta: float = 1.0) -> np.ndarray:
    r"""Set F (``m_set_F.c``): :math:`(\beta + 1) P R / (\beta P + R)` of set precision and
    recall; 0 when nothing relevant is retrieved (or nothing is, or nothing is relevant).

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.
    beta : float, default 1.0
        :math:`\beta`, the weight of recall against precision, used as ``m_set_F.c`` uses it
        (not squared, as in the formula above).

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query (in [0, 1] when ``beta >= 0``).

    Examples
    --------
    >>> set_f(ranking([[1, 0]], [[1, 1]])).tolist()
    [0.5]
    """
    rr, n, big_r = num_rel_ret(r, rel), num_ret(r), num_rel(r, rel)
    p, rc = _div(rr, n), _div(rr, big_r)
    return _div((beta + 1.0) * p * rc, beta * p + rc)


def relative_precision(r: Ranking, k: int, rel: int = 1) -> np.ndarray:
    """Relevant documents in the top ``k`` over min(k, R) (``m_relative_P.c``): precision up to
    R, recall after it; 0 without relevant documents.

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    k : int
        Cut-off: the top ``k`` documents of each query.
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query, in [0, 1].

    Examples
    --------
    >>> relative_precision(ranking([[1, 0, 1]], [[1, 1]]), 3).tolist()
    [1.0]
    """
    hits = _is_rel(r, rel)[:, :k].sum(axis=1)
    return _div(hits, np.minimum(float(k), num_rel(r, rel)))


# --------------------------------------------------------------------------------------------
# gain-based measures


def bin_g(r: Ranking, rel: int = 1) -> np.ndarray:
    r"""Binary G (``m_binG.c``): the mean over relevant documents of
    :math:`1 / \log_2(2 + n_d)`, :math:`n_d` the non-relevant documents above :math:`d`
    (unretrieved relevant documents add 0).

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    rel : int, default 1
        Relevance level (trec_eval's ``-l``): a document whose level is at least ``rel`` is
        relevant.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query, in [0, 1]; 0 when no relevant document is
        retrieved.

    Examples
    --------
    >>> round(float(bin_g(ranking([[0, 1]], [[1, 0]]))[0]), 4)
    0.6309
    """
    isrel = _is_rel(r, rel)
    w = r.rel.shape[1]
    before = np.arange(w)[None, :] - (np.cumsum(isrel, axis=1) - 1)  # non-relevant above
    term = np.where(isrel, 1.0 / np.log2(2.0 + before), 0.0)
    return _div(_rowsum(term), np.where(isrel.any(axis=1), num_rel(r, rel), 0.0))


def g(r: Ranking) -> np.ndarray:
    r"""G (``m_G.c``): each document's gain over :math:`\log_2(2 + C_i - S_i)`, with
    :math:`S_i` the gain retrieved down to rank :math:`i` and :math:`C_i` the sum of
    :math:`\max(g^*_j, 1)` over the ideal gains :math:`g^*_j` down to it; the total divided by
    the ideal total gain.

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query; 0 for a query without a positive judgement.

    Examples
    --------
    >>> round(float(g(ranking([[0, 1]], [[1, 0]]))[0]), 4)
    0.6309
    """
    w = r.rel.shape[1]
    gains = _gains(r)
    ideal = _ideal(r, max(w, r.judged.shape[1]))
    cost = np.cumsum(np.maximum(ideal[:, :w], 1.0), axis=1)
    got = np.cumsum(gains, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(gains != 0, gains / np.log2(2.0 + cost - got), 0.0)
    return _div(_rowsum(term), _rowsum(ideal))


def _dcg_curves(r: Ranking):
    """(gains, cumulative DCG at each rank, cumulative ideal DCG at each rank, ideal), the
    ideal ranking as long as the longer of the run and the judgements."""
    w = r.rel.shape[1]
    width = max(w, r.judged.shape[1], 1)
    gains = np.zeros((r.n.size, width))
    gains[:, :w] = _gains(r)
    ideal = _ideal(r, width)
    disc = _discounts(width)
    return gains, np.cumsum(gains / disc, axis=1), np.cumsum(ideal / disc, axis=1), ideal


def ndcg_rel(r: Ranking) -> np.ndarray:
    r"""nDCG averaged over the relevant documents (``m_ndcg_rel.c``): the nDCG at the rank of
    each retrieved document with a positive gain, and the final nDCG for each such document
    not retrieved, over the number of positive judgements.

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query, in [0, 1]; 0 for a query without a positive
        judgement.

    Examples
    --------
    >>> round(float(ndcg_rel(ranking([[0, 1]], [[1, 1]]))[0]), 4)
    0.3869
    """
    gains, dcg, idcg, ideal = _dcg_curves(r)
    n_pos = (ideal > 0).sum(axis=1).astype(float)
    got = (gains > 0) & (np.arange(gains.shape[1])[None, :] < r.n[:, None])
    with np.errstate(divide="ignore", invalid="ignore"):
        at_rel = _rowsum(np.where(got, dcg / idcg, 0.0))
        last = np.minimum(r.n, gains.shape[1]) - 1
        final = np.where(r.n > 0, dcg[np.arange(r.n.size), np.maximum(last, 0)], 0.0)
        total = at_rel + ((n_pos - got.sum(axis=1)) * final) / idcg[:, -1]
        return np.where(total > 0, total / n_pos, 0.0)


def rndcg(r: Ranking, rel: int = 1) -> np.ndarray:
    r"""nDCG averaged at the R levels (``m_Rndcg.c``): at each rank where the ideal gain drops
    to the next level (and to 0), the nDCG there (the run's DCG taken at most at its last
    document), and the final nDCG when documents follow the last relevant rank of the ideal;
    0 without relevant documents.

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    rel : int, default 1
        Relevance level: a query without a judgement at level ``rel`` or above scores 0 (the
        gains are the levels, whatever ``rel``).

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query, in [0, 1].

    Examples
    --------
    >>> round(float(rndcg(ranking([[0, 1, 0]], [[1]]))[0]), 4)
    0.3155
    """
    gains, dcg, idcg, ideal = _dcg_curves(r)
    q, width = ideal.shape
    prev = np.concatenate([ideal[:, :1], ideal[:, :-1]], axis=1)
    # a drop at rank t (0-based: between t-1 and t); t = width: the drop after a full ideal row
    drop = np.zeros((q, width + 1), dtype=bool)
    drop[:, 1:width] = ideal[:, 1:] != prev[:, 1:]
    drop[:, width] = ideal[:, -1] > 0
    t = np.arange(width + 1)
    at = np.clip(np.minimum(t[None, :], r.n[:, None]) - 1, 0, width - 1)
    run_dcg = np.where(np.minimum(t[None, :], r.n[:, None]) > 0,
                       np.take_along_axis(dcg, at, axis=1), 0.0)
    ideal_dcg = np.concatenate([np.zeros((q, 1)), idcg], axis=1)  # through rank t - 1
    use = drop & (ideal_dcg > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        points = _rowsum(np.where(use, run_dcg / np.where(use, ideal_dcg, 1.0), 0.0))
        n_pos = (ideal > 0).sum(axis=1)
        total_idcg = idcg[:, -1]
        final = (n_pos + 1 < r.n) & (total_idcg > 0)
        last = np.clip(r.n - 1, 0, width - 1)
        points = points + np.where(final, dcg[np.arange(q), last] / np.where(final, total_idcg, 1.0), 0.0)
        value = points / (use.sum(axis=1) + final)
    return np.where(num_rel(r, rel) > 0, value, 0.0)


def rbp(r: Ranking, p: float = 0.9) -> np.ndarray:
    r"""Rank-biased precision of Moffat and Zobel {cite}`moffat2008rbp` (``m_rbp.c``):
    :math:`(1 - p)\sum_i g_i\, p^{i-1}`, the gains divided by the query's largest level when
    it exceeds 1.

    ``m_rbp.c`` starts the smallest and largest gain uninitialised; rankbook takes 0 and the
    largest judged level, what a zeroed start gives.

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    p : float, default 0.9
        Persistence: the probability that a reader who looked at one document looks at the
        next one.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query, in [0, 1].

    Examples
    --------
    >>> round(float(rbp(ranking([[1, 0, 1]], [[1, 1]]))[0]), 4)
    0.181
    """
    gains = _gains(r)
    top = np.nanmax(np.where(np.isfinite(r.judged), r.judged, 0.0), axis=1, initial=0.0)
    gains = np.where((top > 1)[:, None], gains / np.where(top > 1, top, 1.0)[:, None], gains)
    return (1.0 - p) * _rowsum(gains * _powers(p, gains.shape[1])[None, :])


def rbp_resid(r: Ranking, p: float = 0.9) -> np.ndarray:
    r"""RBP's residual (``m_rbp_resid.c``): :math:`p^n + (1 - p)\sum_{i\ \mathrm{unjudged}}
    p^{i-1}`, the most RBP could still grow; 0 when every retrieved document is judged (the
    source's rule, although :math:`p^n` remains).

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    p : float, default 0.9
        Persistence, as in :func:`rbp`.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query; 0 for a query whose retrieved documents are all
        judged.

    Examples
    --------
    >>> round(float(rbp_resid(ranking([[1, -1]], [[1]]))[0]), 4)
    0.9
    """
    w = r.rel.shape[1]
    unj = r.valid & (r.rel < 0)
    pw = _powers(p, w + 1)
    tail = pw[np.minimum(r.n, w)]
    value = tail + (1.0 - p) * _rowsum(np.where(unj, pw[None, :w], 0.0))
    return np.where(unj.any(axis=1), value, 0.0)


def unjudged(r: Ranking, k: int) -> np.ndarray:
    """Unjudged documents (not in the qrels, or judged negative) in the top ``k``, over ``k``
    (``m_unjudged.c``).

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    k : int
        Cut-off, also the denominator (a query that retrieves fewer than ``k`` documents is
        still divided by ``k``).

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query, in [0, 1].

    Examples
    --------
    >>> unjudged(ranking([[1, -1, -2, 0]], [[1, 0, -1]]), 5).tolist()
    [0.4]
    """
    return (r.valid & (r.rel < 0))[:, :k].sum(axis=1) / float(k)


def relstring(r: Ranking, length: int = 10) -> list[str]:
    """The codes of the first ``length`` documents as text (``m_relstring.c``): the level when
    it is 0 to 9, ``>`` above 9, ``-`` not in the pool, ``.`` judged negative.

    Parameters
    ----------
    r : Ranking
        Every query's retrieved documents in rank order and its judgements (:func:`ranking`
        builds one from lists).
    length : int, default 10
        The most documents shown per query.

    Returns
    -------
    list of str
        One string per query, one character per retrieved document down to rank ``length``
        (``<`` for a negative code other than :data:`NOT_POOLED` and :data:`UNJUDGED`).

    Examples
    --------
    >>> relstring(ranking([[3, 0, -1, -2, 12]], [[3, 0, -1, 12]]))
    ['30-.>']
    """
    out = []
    for row, n in zip(r.rel, r.n):
        chars = []
        for v in row[:min(int(n), length)]:
            v = int(v)
            chars.append(">" if v > 9 else str(v) if v >= 0 else "-" if v == NOT_POOLED
                         else "." if v == UNJUDGED else "<")
        out.append("".join(chars))
    return out


# --------------------------------------------------------------------------------------------
# ERR (gdeval)


#: gdeval.pl's largest relevance level: the gain 2^g - 1 of a level g is divided by 2^4.
GDEVAL_MAX_JUDGMENT = 4


def err(gains: np.ndarray, n: np.ndarray, k: int | None = None,
        max_judgment: int = GDEVAL_MAX_JUDGMENT) -> np.ndarray:
    r"""Expected reciprocal rank of Chapelle et al. {cite}`chapelle2009err` as gdeval.pl
    computes it (the TREC Web track's script, ir_measures' provider of ``ERR@k``):

    .. math::

        \mathrm{ERR@k} = \sum_{i=1}^{k} \frac{R_i}{i}\prod_{j<i}(1 - R_j), \quad
        R_i = \frac{2^{g_i} - 1}{2^{4}}

    with :math:`g_i` the positive level of the document at rank :math:`i` (0 otherwise).

    Parameters
    ----------
    gains : numpy.ndarray
        (queries, width) levels in rank order (negative levels count as 0).
    n : numpy.ndarray
        (queries,) documents retrieved.
    k : int or None, default None
        Cut-off: the top ``k`` documents; None: every document.
    max_judgment : int, default GDEVAL_MAX_JUDGMENT
        The largest relevance level :math:`g_{\max}` (gdeval.pl's 4): the gain
        :math:`2^{g_i} - 1` is divided by :math:`2^{g_{\max}}`, the :math:`2^4` of the formula.

    Returns
    -------
    numpy.ndarray
        (queries,) float64, one value per query; 0 for a query without a positive level in its
        top ``k``.

    Examples
    --------
    >>> round(float(err(np.array([[3.0, 0.0, 4.0]]), np.array([3]))[0]), 4)
    0.6133
    """
    gains = np.asarray(gains, dtype=float)
    w = gains.shape[1] if k is None else min(k, gains.shape[1])
    valid = np.arange(w)[None, :] < np.asarray(n)[:, None]
    g_ = np.where(valid & (gains[:, :w] > 0), gains[:, :w], 0.0)
    stop = (2.0 ** g_ - 1.0) / 2.0 ** max_judgment
    decay = np.cumprod(np.concatenate([np.ones((g_.shape[0], 1)), 1.0 - stop[:, :-1]], axis=1),
                       axis=1) if w else stop
    return _rowsum(stop * decay / np.arange(1, w + 1)[None, :])
