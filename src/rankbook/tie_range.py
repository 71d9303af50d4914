r"""How far the order of tied documents can move a score: the lowest, highest and expected
value of a measure over every order of the tied documents, exactly and without enumerating them.

A run ranks by score; documents with equal scores (in the precision the tool compares them in)
form a tie group, and each tool puts a group in an order of its own (trec_eval by document id,
ranx by input order, :mod:`rankbook.conventions`). :func:`tie_range` gives, for every query and
measure, what the tool prints (``value``) and the range every possible order of the tied
documents spans:

``high``
    the value with every tie group in its best order: the documents of higher relevance first
    (every measure here gains when a more relevant document moves up, since the gain, or the
    indicator of relevance at the measure's threshold, grows with the level; ``Judged``: the
    judged documents first);
``low``
    the value with every group in its worst order (the same documents last);
``expected``
    the mean over all orders of the tied documents, each equally likely, in closed form: the
    group's mean gain at each of its positions for the measures that add a gain per position
    (DCG, nDCG, P, R, R-precision, Judged), McSherry and Najork's formulas for AP and RR
    :cite:`mcsherry2008computing`, and the hypergeometric probability of a relevant document
    above the cut for Success (:mod:`rankbook.ties`).

One measure is not monotone in the order: torchmetrics' ``AP@k`` divides by the relevant
documents *found in the top k*, so a relevant document pushed below the cut can raise it. For
it the group that straddles the cut is taken apart: for each number ``j`` of its relevant
documents above the cut, the best and worst placements of those ``j`` (and the best and worst
orders of the other groups) give the extremes, and the expected value sums the conditional
means over the hypergeometric law of ``j``.

The profile's conventions hold throughout (what counts as judged, which queries are scored,
divisors, gains, single-precision scores); the one exception is ir_measures' gdeval
``nDCG(dcg='exp-log2')@k``, whose printed value is rounded to 5 decimals: its ``low`` and
``high`` are rounded the same way (rounding keeps the order), its ``expected`` is the mean of
the unrounded values. A run given as an explicit order has no ties: all four columns agree.

Where the tool's value sits: under a tie rule that orders the group (trec_eval, ranx, ...) it
is one of the orders, so between ``low`` and ``high``; scikit-learn's and torchmetrics'
tie-averaged nDCG is ``expected``; scikit-learn's AP takes one threshold per tied group and the
precision at its end for every relevant document of the group, which is the value of no order
and can exceed ``high`` (a non-relevant document, then two relevant ones tied: 2/3 against
7/12 for either order of the tie).

The tests compare every column with brute force over the orders of the tied documents, scored
by :func:`rankbook.conventions.evaluate_run` itself.
"""

from __future__ import annotations

import os
from typing import Mapping, NamedTuple

import numpy as np
import pandas as pd

from . import trec_format as _tf
from .ties import (ScoreBlocks, _comb_ratio, expected_ap, expected_gain, expected_hit,
                   expected_rr)

__all__ = ["TieRange", "tie_range_of", "check_range", "read_once", "SUPPORTED_FAMILIES"]

#: Measure families :func:`tie_range` computes.
SUPPORTED_FAMILIES = ("nDCG", "DCG", "AP", "RR", "P", "R", "Rprec", "Success", "Judged", "LRAP")
_COLUMNS = ("value", "low", "high", "expected")


class TieRange(NamedTuple):
    """What ``evaluate_run(..., ties="range")`` (:func:`tie_range_of`) returns.

    ``per_query``: one row per query and measure, columns ``query_id``, ``measure``, ``value``
    (what the tool prints), ``low``, ``high``, ``expected``. ``aggregate``: a DataFrame indexed
    by measure with the mean of each column over the scored queries (the mean of the lows is
    the lowest mean: the queries' orders are independent).
    """

    per_query: pd.DataFrame
    aggregate: pd.DataFrame


def _is_explicit(run, order) -> bool:
    if order == "rank":
        return True
    return order is None and isinstance(run, Mapping) and any(
        isinstance(v, (list, tuple)) or (isinstance(v, np.ndarray) and v.ndim == 1)
        for v in run.values())


def _discount(width):
    return 1.0 / np.log2(np.arange(2, width + 2, dtype=float))


def _gain(labels, m, conv):
    if conv.negative_labels == "gain":
        g = labels
    elif conv.negative_labels == "below_rel":
        g = np.where(labels >= m.rel, labels, 0.0)
    else:
        g = np.where(labels > 0, labels, 0.0)
    return np.expm1(g * np.log(2.0)) if m.exp_gain else g


class _Ranked(NamedTuple):
    """The scored queries of a run as padded matrices, ranked by score, ties in the order the
    key asks for: labels, judged, scores (in the measure's precision), valid cells, lengths."""

    lab: np.ndarray
    judged: np.ndarray
    score: np.ndarray
    valid: np.ndarray
    n: np.ndarray


def _ranked(frame: pd.DataFrame, n_q: int, key: np.ndarray, descending: bool) -> _Ranked:
    """``frame`` (columns q, score, label, judged; q in 0..n_q-1) as padded matrices, rows
    ranked by decreasing score and, within equal scores, by ``key`` (descending or not)."""
    q = frame["q"].to_numpy()
    sc = frame["score"].to_numpy()
    order = np.lexsort((-key if descending else key, -sc, q))
    q, sc = q[order], sc[order]
    lab = frame["label"].to_numpy()[order]
    jud = frame["judged"].to_numpy()[order]
    n = np.bincount(q, minlength=n_q).astype(np.int64)
    w = int(n.max()) if n.size else 0
    starts = np.concatenate([[0], np.cumsum(n)[:-1]])
    col = np.arange(q.size) - np.repeat(starts, n)
    shape = (n_q, max(w, 1))
    L = np.zeros(shape)
    J = np.zeros(shape, dtype=bool)
    S = np.full(shape, -np.inf)
    L[q, col], J[q, col], S[q, col] = lab, jud, sc
    valid = np.arange(shape[1])[None, :] < n[:, None]
    return _Ranked(L, J, S, valid, n)


def _strict_blocks(r: _Ranked) -> ScoreBlocks:
    """Tie groups of one position each: the expected value of an order is its value."""
    return ScoreBlocks(np.broadcast_to(-np.arange(r.valid.shape[1], dtype=float),
                                       r.valid.shape), r.valid)


def _relevant(r: _Ranked, m, conv, filtered: bool):
    rel = r.lab >= m.rel
    if filtered and not conv.nonpositive_scores_relevant:
        rel &= r.score > 0
    return rel


def _safe_div(num, den):
    den = np.asarray(den, dtype=float)
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def _mean_value(m, conv, r: _Ranked, b: ScoreBlocks, n_rel, ideal, label_sum):
    """The measure's mean over the orders of each row's tie groups ``b`` (with groups of one
    position: the value of the order ``r`` is in)."""
    k, fam = m.k, m.family
    w = r.lab.shape[1]
    kk = w if k is None else min(k, w)
    if fam == "P":
        out = expected_gain(_relevant(r, m, conv, True).astype(float), b)[:, :kk].sum(axis=1) / k
        return np.where(n_rel > 0, out, 0.0) if conv.judgments == "retrieved" else out
    if fam == "Success":
        return expected_hit(_relevant(r, m, conv, False), b, k)
    if fam == "R":
        hits = expected_gain(_relevant(r, m, conv, True).astype(float), b)[:, :kk].sum(axis=1)
        return _safe_div(hits, n_rel)
    if fam == "Rprec":
        e = np.cumsum(expected_gain(_relevant(r, m, conv, False).astype(float), b), axis=1)
        e = np.concatenate([np.zeros((e.shape[0], 1)), e], axis=1)
        cut = np.minimum(n_rel.astype(np.int64), w)
        return _safe_div(e[np.arange(e.shape[0]), cut], n_rel)
    if fam == "RR":
        return expected_rr(_relevant(r, m, conv, True), b, k)
    if fam in ("AP", "LRAP"):
        rel = _relevant(r, m, conv, fam == "AP")
        if fam == "AP" and conv.ap_divisor == "relevant_in_cut":
            den = rel[:, :kk].sum(axis=1).astype(float)  # fixed unless a group straddles k
        else:
            den = n_rel
        ap = np.nan_to_num(expected_ap(rel, b, k, np.asarray(den, dtype=float)), nan=0.0)
        if fam == "LRAP":
            return np.where((n_rel == 0) | (n_rel == r.n), conv.no_relevant_lrap, ap)
        return ap
    if fam == "Judged":
        if k is None:
            div = r.n
        elif conv.judged_cut_divisor == "list":
            div = np.minimum(k, r.n)
        else:
            div = np.full_like(r.n, k)
        return _safe_div(expected_gain(r.judged.astype(float), b)[:, :kk].sum(axis=1), div)
    if fam in ("nDCG", "DCG"):
        g = expected_gain(_gain(r.lab, m, conv), b)[:, :kk]
        dcg = np.cumsum(g * _discount(kk), axis=1)[:, -1] if kk else np.zeros(g.shape[0])
        if fam == "DCG":
            return dcg
        gi = ideal if k is None else ideal[:, :k]  # every judged document, not the run's width
        idcg = np.cumsum(gi * _discount(gi.shape[1]), axis=1)[:, -1] if gi.shape[1] \
            else np.zeros(gi.shape[0])
        out = np.where(idcg != 0, dcg / np.where(idcg != 0, idcg, 1.0), 0.0)
        if conv.name == "torchmetrics":
            out = np.where(label_sum != 0, out, 0.0)
        return out
    raise ValueError(f"ties='range' does not compute {fam}; it computes "
                     f"{', '.join(SUPPORTED_FAMILIES)}")


def _ap_in_cut_range(m, conv, best: _Ranked, worst: _Ranked, b: ScoreBlocks):
    """(low, high, expected) of AP@k divided by the relevant documents in the top k
    (torchmetrics), where a group straddling the cut makes the divisor depend on the order."""
    k = m.k
    rel_b = _relevant(best, m, conv, True)
    rel_w = _relevant(worst, m, conv, True)
    mq, w = rel_b.shape
    rows = np.arange(mq)
    if k >= w:  # the cut holds every position: the divisor is fixed
        den = rel_b.sum(axis=1).astype(float)
        lo = np.nan_to_num(expected_ap(rel_w, _strict_blocks(worst), None, den), nan=0.0)
        hi = np.nan_to_num(expected_ap(rel_b, _strict_blocks(best), None, den), nan=0.0)
        ex = np.nan_to_num(expected_ap(rel_b, b, None, den), nan=0.0)
        return lo, hi, ex
    a = b.start[:, k - 1]
    g = b.size[:, k - 1]
    c = k - a  # positions of the straddling group above the cut
    r = b.sum(rel_b.astype(float))[:, k - 1].round().astype(np.int64)
    before = np.cumsum(rel_b, axis=1)
    before = np.concatenate([np.zeros((mq, 1), np.int64), before], axis=1)
    H = before[rows, a]  # relevant documents in the groups above the straddling one
    pos = np.arange(w)
    head = pos[None, :] < a[:, None]

    def num_before(rel):  # sum over the groups above of rel_i * hits_i / i
        hits = np.cumsum(rel, axis=1)
        return np.where(head & rel, hits / (pos + 1.0), 0.0).sum(axis=1)

    nb_best, nb_worst = num_before(rel_b), num_before(rel_w)
    # the expected numerator of the groups above: McSherry and Najork's terms, left of a
    hb = expected_ap(rel_b, b, k, np.ones(mq))  # the whole cut's expected numerator ...
    straddle = np.zeros(mq)
    g_f = g.astype(float)
    rr = r.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        for o in range(int(c.max()) if c.size else 0):  # ... minus the straddling group's terms
            on = o < c
            i = a + o
            same = np.where(g_f > 1, o * (rr - 1) / np.where(g_f > 1, g_f - 1, 1), 0.0)
            term = (rr / g_f) * (1.0 + H + same) / (i + 1.0)
            straddle += np.where(on, term, 0.0)
    e_above = np.nan_to_num(hb) - straddle
    lo = np.full(mq, np.inf)
    hi = np.full(mq, -np.inf)
    ex = np.zeros(mq)
    cf = c.astype(float)
    for j in range(int(min(c.max(), r.max())) + 1 if mq else 0):
        ok = (j <= c) & (j <= r) & (c - j <= g - r)
        if not ok.any():
            continue
        t = np.arange(j, dtype=float)
        # j relevant documents first (best) or last (worst) among the c positions above the cut
        top = ((H[:, None] + t + 1) / (a[:, None] + t + 1)).sum(axis=1)
        bottom = ((H[:, None] + t + 1) / (a[:, None] + c[:, None] - j + t + 1)).sum(axis=1)
        den = H + j
        hi = np.where(ok, np.maximum(hi, _safe_div(nb_best + top, den)), hi)
        lo = np.where(ok, np.minimum(lo, _safe_div(nb_worst + bottom, den)), lo)
        # E[numerator | j]: the c positions above the cut as a group of c holding j relevant
        e_in = np.zeros(mq)
        with np.errstate(invalid="ignore", divide="ignore"):
            for o in range(int(c.max())):
                on = o < c
                same = np.where(cf > 1, o * (j - 1) / np.where(cf > 1, cf - 1, 1), 0.0)
                e_in += np.where(on, (j / np.maximum(cf, 1)) * (1.0 + H + same) / (a + o + 1.0),
                                 0.0)
        p_j = _comb_ratio(r, j, g, c) * _comb_ratio(g - r, c - j, np.ones(mq), np.zeros(mq))
        ex += np.where(ok, p_j * _safe_div(e_above + e_in, den), 0.0)
    # rows whose cut does not split a group: the divisor is fixed
    fixed = (a + g <= k) | (k >= best.n)
    den = rel_b[:, :k].sum(axis=1).astype(float)
    lo_f = np.nan_to_num(expected_ap(rel_w, _strict_blocks(worst), k, den), nan=0.0)
    hi_f = np.nan_to_num(expected_ap(rel_b, _strict_blocks(best), k, den), nan=0.0)
    ex_f = np.nan_to_num(expected_ap(rel_b, b, k, den), nan=0.0)
    return (np.where(fixed, lo_f, lo), np.where(fixed, hi_f, hi), np.where(fixed, ex_f, ex))


def _query_inputs(qrels_df, run_df, queries, conv):
    """The run's rows of the scored queries joined with their labels, and per query what the
    qrels say (labels of every judged document) under the profile's ``judgments``."""
    qidx = {q: i for i, q in enumerate(queries)}
    run = run_df[run_df["query_id"].isin(qidx)]
    labels = qrels_df.set_index(["query_id", "doc_id"])["relevance"]
    key = pd.MultiIndex.from_arrays([run["query_id"], run["doc_id"]])
    pos = labels.index.get_indexer(key)
    judged = pos >= 0
    lab = np.where(judged, labels.to_numpy()[np.maximum(pos, 0)] if len(labels) else 0.0, 0.0)
    frame = pd.DataFrame({"q": run["query_id"].map(qidx).to_numpy(np.int64),
                          "score": run["score"].to_numpy(np.float64), "label": lab,
                          "judged": judged})
    judged_q = qrels_df[qrels_df["query_id"].isin(qidx)]
    return frame, judged_q.assign(q=judged_q["query_id"].map(qidx).to_numpy(np.int64))


def _joined_inputs(joined, queries):
    """:func:`_query_inputs` from a join already made (``evaluate_run``'s of two tables): the
    same frame and judgements, from the query codes instead of the ids' text."""
    code = {q: i for i, q in enumerate(np.asarray(joined.qnames, dtype=object).tolist())}
    row_of = np.full(len(code), -1, dtype=np.int64)
    row_of[np.fromiter((code[q] for q in queries), np.int64, len(queries))] = \
        np.arange(len(queries), dtype=np.int64)
    rq = row_of[np.asarray(joined.rq, dtype=np.int64)]
    keep = rq >= 0
    rel = np.asarray(joined.run_rel, dtype=np.float64)[keep]
    judged = ~np.isnan(rel)
    frame = pd.DataFrame({"q": rq[keep], "score": np.asarray(joined.rv, np.float64)[keep],
                          "label": np.where(judged, rel, 0.0), "judged": judged})
    qq = row_of[np.asarray(joined.qq, dtype=np.int64)]
    hold = qq >= 0
    judged_q = pd.DataFrame({"relevance": np.asarray(joined.qv, np.float64)[hold],
                             "q": qq[hold]})
    return frame, judged_q


def _qrels_side(m, conv, judged_q, n_q, best: _Ranked):
    """Relevant documents per query at the measure's threshold and the ideal gains (rows)."""
    if conv.judgments == "retrieved":
        n_rel = (best.lab >= m.rel).sum(axis=1).astype(float)
        g = np.where(best.valid, _gain(best.lab, m, conv), -np.inf)
        ideal = -np.sort(-g, axis=1)
        return n_rel, np.where(np.isfinite(ideal), ideal, 0.0)
    lab = judged_q["relevance"].to_numpy(np.float64)
    q = judged_q["q"].to_numpy(np.int64)
    n_rel = np.bincount(q, weights=(lab >= m.rel).astype(float), minlength=n_q)
    if conv.negative_labels == "below_rel":
        g = np.where(lab >= m.rel, lab, 0.0)
    else:
        g = np.where(lab > 0, lab, 0.0)
    g = _gain(g, m, conv)
    counts = np.bincount(q, minlength=n_q)
    w = int(counts.max()) if counts.size else 0
    ideal = np.zeros((n_q, max(w, 1)))
    order = np.lexsort((-g, q))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    col = np.arange(q.size) - np.repeat(starts, counts)
    ideal[q[order], col] = g[order]
    return n_rel, ideal


def read_once(qrels, run, order=None):
    """``(qrels, run)`` with a pipe or a stream read into a table once
    (:func:`rankbook.trec_format.read_table`), so that it can be scored and ranged; paths,
    dicts and DataFrames are returned as they are.

    Parameters
    ----------
    qrels : str, path-like, stream, dict or pandas.DataFrame
        The judgements, as :func:`rankbook.conventions.evaluate_run` takes them.
    run : str, path-like, stream, dict or pandas.DataFrame
        The run, likewise.
    order : {None, "score", "rank"}
        As in ``evaluate_run``: ``"rank"`` reads a run source by its rank column (the
        fourth), anything else by its scores.

    Returns
    -------
    tuple
        ``(qrels, run)``: each a :class:`rankbook.trec_format.TrecTable` when it was read
        here (standard input, a pipe, a stream), else the argument itself (a regular file's
        path, a dict, a DataFrame).

    Raises
    ------
    ValueError
        What :func:`rankbook.trec_format.read_table` refuses in a source read here.

    Examples
    --------
    >>> import io
    >>> q, r = read_once({"1": {"a": 1}}, io.BytesIO(b"1 Q0 a 1 2.0 x\\n"))
    >>> type(r).__name__, len(r)
    ('TrecTable', 1)
    """
    def once(x, what, order_=None):
        if isinstance(x, (str, bytes, os.PathLike)):
            regular = os.path.isfile(x)
        else:
            regular = not hasattr(x, "read") or isinstance(x, (pd.DataFrame, Mapping))
        if regular:
            return x
        return _tf.read_table(x, what, order="rank" if order_ == "rank" else "score")

    return once(qrels, "qrels"), once(run, "run", order)


def tie_range_of(evaluation, qrels, run, measures, convention, order=None, *,
                 joined=None, expected: bool = True) -> TieRange:
    """The lowest, highest and expected value of each measure over the orders of tied
    documents, beside the value the tool prints: what ``evaluate_run(..., ties="range")``
    returns (it calls this with its own result).

    Parameters
    ----------
    evaluation : rankbook.conventions.RunEvaluation
        The run scored by :func:`rankbook.conventions.evaluate_run` (the ``value`` column, and
        the queries the profile scores).
    qrels, run, order
        As given to ``evaluate_run`` (a pipe read once: :func:`read_once`).
    joined : optional
        The run already joined with the qrels, as ``evaluate_run`` joins two tables read from
        files (attributes ``qnames``, ``rq``, ``rv``, ``run_rel``, NaN where a document is
        not judged, ``qq``, ``qv``; rows in the order of the tables): the ranges are then
        computed from its codes, without the text of the ids (the same numbers, faster).
    expected : bool
        False: the ``expected`` column is NaN throughout, not computed (for a caller that
        needs only the extremes, such as the pre-flight check).
    measures : list of rankbook.conventions.Measure
        The parsed measures, in the order of the evaluation.
    convention : rankbook.conventions.Convention
        The profile. Tie groups are the documents of a query with equal scores in the
        precision it compares them in for that measure (single precision for trec_eval 9,
        pytrec_eval, torchmetrics).

    Returns
    -------
    TieRange
        ``per_query`` and ``aggregate`` with columns ``value``, ``low``, ``high``,
        ``expected`` (module notes). For queries the profile scores 0 without looking at the
        run (a judged query missing from the run under ``trec_eval -c``, ir_measures) all
        four are 0.

    Raises
    ------
    ValueError
        What :func:`check_range` refuses: a profile that pools the queries into one list
        (``averaging="pooled"``) or cuts each ranking (``max_documents``), a measure family
        not in :data:`SUPPORTED_FAMILIES`. A profile with ``judged_only`` (trec_eval's -J) is
        taken: the unjudged documents leave every order of a tie alike.

    Examples
    --------
    A constant model: every document scored alike. trec_eval orders the tie by document id,
    descending, and here that puts the relevant document last:

    >>> from rankbook.conventions import evaluate_run
    >>> qrels = {"1": {"a": 1, "b": 0, "c": 0}}
    >>> run = {"1": {"a": 0.5, "b": 0.5, "c": 0.5}}
    >>> evaluate_run(qrels, run, ["nDCG", "P@1"], ties="range").aggregate.round(4)
             value  low  high  expected
    measure
    nDCG       0.5  0.5   1.0    0.7103
    P@1        0.0  0.0   1.0    0.3333
    """
    conv = convention
    parsed = list(measures)
    check_range(parsed, conv)
    names = [p.text for p in parsed]
    per = evaluation.per_query.copy()
    for col in ("low", "high", "expected"):
        per[col] = per["value"] if (col != "expected" or expected) else np.nan
    if _is_explicit(run, order) or per.empty:
        return _finish(per, names)
    if joined is not None:
        qnames = np.asarray(joined.qnames, dtype=object)
        in_run = set(qnames[np.unique(joined.rq)].tolist())
        queries = [q for q in pd.unique(per["query_id"]) if q in in_run]
        frame, judged_q = _joined_inputs(joined, queries)
    else:
        qrels_df = _tf.as_qrels(qrels)
        run_df = _tf.as_run(run)
        in_run = set(pd.unique(run_df["query_id"]).tolist())
        queries = [q for q in pd.unique(per["query_id"]) if q in in_run]
        frame, judged_q = _query_inputs(qrels_df, run_df, queries, conv)
    if conv.judged_only:  # trec_eval -J: only documents judged 0 or more are ranked; removing
        # documents from every order of a tie leaves every order of the rest, equally likely
        frame = frame[frame["judged"].to_numpy() & (frame["label"].to_numpy() >= 0)]
    n_q = len(queries)
    row_of = {q: i for i, q in enumerate(queries)}
    ranked = {}  # the rankings (and tie groups) measures of one precision and key share
    at = per["query_id"].map(row_of).to_numpy(np.float64)  # each row's query; NaN: not ranged
    measure = per["measure"].to_numpy()
    cols = {c: per[c].to_numpy(np.float64, copy=True) for c in ("low", "high", "expected")}
    for p in parsed:
        lo, hi, ex = _measure_range(p, conv, frame, judged_q, n_q, ranked, expected)
        sel = (measure == p.text) & ~np.isnan(at)
        rows = at[sel].astype(np.int64)
        cols["low"][sel] = lo[rows]
        cols["high"][sel] = hi[rows]
        if expected:
            cols["expected"][sel] = ex[rows]
    for c, v in cols.items():
        per[c] = v
    return _finish(per, names)


def check_range(measures, convention) -> None:
    """Refuse what :func:`tie_range_of` cannot compute exactly, before any work: a profile
    that pools the queries (``averaging="pooled"``), one that cuts each ranking after ordering
    it (``max_documents``, trec_eval's -M: which tied documents the cut keeps depends on their
    order), a measure family not in :data:`SUPPORTED_FAMILIES`.

    Parameters
    ----------
    measures : list of rankbook.conventions.Measure
        The parsed measures.
    convention : rankbook.conventions.Convention
        The profile.

    Raises
    ------
    ValueError
        One line naming what is refused and what the range takes instead.

    Examples
    --------
    >>> from rankbook.conventions import parse_measure, profile
    >>> check_range([parse_measure("AP")], profile("trec_eval", max_documents=10))
    Traceback (most recent call last):
    ...
    ValueError: ties='range' does not take max_documents=10 (trec_eval's -M): which tied documents the cut keeps depends on their order; use max_documents=None, or a cut-off in the measure (AP@10)
    """
    conv = convention
    if conv.averaging == "pooled":
        raise ValueError(f"ties='range' scores each query's list; the {conv.name} profile with "
                         "averaging='pooled' pools every query into one list (use "
                         "averaging='per_query')")
    if conv.max_documents is not None:
        raise ValueError(f"ties='range' does not take max_documents={conv.max_documents} "
                         "(trec_eval's -M): which tied documents the cut keeps depends on "
                         "their order; use max_documents=None, or a cut-off in the measure "
                         f"(AP@{conv.max_documents})")
    unsupported = [p.text for p in measures if p.family not in SUPPORTED_FAMILIES]
    if unsupported:
        raise ValueError(f"ties='range' does not compute {', '.join(unsupported)}; it computes "
                         f"the families {', '.join(SUPPORTED_FAMILIES)}")


def _measure_range(p, conv, frame, judged_q, n_q, ranked=None, expected=True):
    """(low, high, expected) of one measure for every scored query (rows); ``ranked`` (a
    dict) keeps the rankings for the next measure of the same precision and tie key."""
    gdeval = p.exp_gain and conv.exp_dcg == "gdeval"
    single = conv.score_precision(p.form) == "float32" and not gdeval
    by = "judged" if p.family == "Judged" else "label"
    cached = None if ranked is None else ranked.get((single, by))
    if cached is None:
        f = frame
        if single:
            with np.errstate(over="ignore"):
                f = frame.assign(score=frame["score"].to_numpy().astype(np.float32).astype(float))
        key = f[by].to_numpy().astype(float)
        best = _ranked(f, n_q, key, descending=True)
        worst = _ranked(f, n_q, key, descending=False)
        # groups of one position depend only on the lengths, alike for both orders
        cached = (best, worst, None, _strict_blocks(best))
        if ranked is not None:
            ranked[(single, by)] = cached
    best, worst, blocks, strict = cached
    ap_in_cut = p.family == "AP" and conv.ap_divisor == "relevant_in_cut" and p.k is not None
    if blocks is None and (expected or ap_in_cut):  # the tie groups, once asked for
        blocks = ScoreBlocks(best.score, best.valid)
        cached = (best, worst, blocks, strict)
        if ranked is not None:
            ranked[(single, by)] = cached
    # the qrels' side is alike for the measures of one level and gain
    at = ("qrels", p.rel, p.exp_gain) + (() if conv.judgments != "retrieved" else (single, by))
    side = None if ranked is None else ranked.get(at)
    if side is None:
        side = _qrels_side(p, conv, judged_q, n_q, best)
        if ranked is not None:
            ranked[at] = side
    n_rel, ideal = side
    label_sum = np.where(best.valid, best.lab, 0.0).sum(axis=1)
    if ap_in_cut:
        lo, hi, ex = _ap_in_cut_range(p, conv, best, worst, blocks)
    else:
        hi = _mean_value(p, conv, best, strict, n_rel, ideal, label_sum)
        lo = _mean_value(p, conv, worst, strict, n_rel, ideal, label_sum)
        ex = (_mean_value(p, conv, best, blocks, n_rel, ideal, label_sum) if expected
              else np.full(lo.shape, np.nan))
    if gdeval:  # gdeval.pl prints 5 decimals; rounding keeps the order of the values
        lo = np.array([float(f"{x:.5f}") for x in lo])
        hi = np.array([float(f"{x:.5f}") for x in hi])
    return lo, hi, ex


def _finish(per: pd.DataFrame, names) -> TieRange:
    agg = per.groupby("measure", sort=False)[list(_COLUMNS)].mean().reindex(names)
    agg.index.name = "measure"
    return TieRange(per.reset_index(drop=True), agg)
