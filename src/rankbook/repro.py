r"""Did a run reproduce? Reproducibility measures for pairs of ranked runs.

Breuer et al. {cite}`breuer2020repro` measure how closely a rerun system reproduces an original
one at three levels, and their tool repro_eval computes them:

* **the order of documents**, per topic: Kendall's :math:`\tau` Union (:func:`ktu`) and
  rank-biased overlap (:func:`rbo`);
* **effectiveness**, per measure over topics: the root mean square error of the per-topic
  scores (:func:`rmse`) and its normalised form (:func:`nrmse`);
* **the overall effect** of an advanced system over a baseline: the effect ratio
  (:func:`effect_ratio`) and the difference of relative improvements (:func:`delta_ri`).

*Reproducibility* reruns the systems on the same topics and judgements, so original and
reproduced scores pair by topic; *replicability* runs them on other topics (another qrels), so
they do not pair and only the effects and unpaired tests apply. :func:`reproduce` computes every
measure with a bootstrap interval over topics (:func:`rankbook.stats.bootstrap_ci`) and the
t-test of repro_eval (paired or unpaired), as a tidy per-topic table and an aggregate table.

Where this module departs from repro_eval 0.5.0 (each departure is available by name):

* repro_eval's KTU maps every document to its index in the alphabetically sorted union of the
  two lists and correlates the two index arrays *position by position*: the i-th document of
  one run is paired with the i-th of the other, not with itself, so the value depends on the
  document names and is defined only for lists of equal length. :func:`ktu` computes
  :math:`\tau` over the union by default; ``convention="repro_eval"`` gives repro_eval's value.
* repro_eval's RBO is a weighted mean of the agreements to depth 1000 (Clarke et al.'s
  normalised, truncated form), which runs past the end of short lists: two identical
  20-document lists score below 1. :func:`rbo` stops at the lists' length by default and offers
  Webber's extrapolated form, the base prefix form and repro_eval's truncated form by name.

Run files may carry an ``ir_metadata`` block {cite}`breuer2022irmetadata` (PRIMAD metadata in
YAML, between ``# ir_metadata.start`` and ``# ir_metadata.end`` comment lines at the top of the
file). :func:`read_ir_metadata` reads it, :func:`write_run` writes it with the run, and
:func:`reproduce` keeps it with each run and shows it in its report.

Reading. A run gives each topic a list of document ids ordered by score (ties broken as
:func:`explicit_order` says), and the measures read these lists as orders of documents, as every
function of rankbook reads label lists (:mod:`rankbook.metrics`, *Reading a ranking*): a
document id is a label, never a number, and :func:`ktu`'s default is the item-based tau over the
documents' positions (``numbering="pair"`` in :func:`rankbook.pairwise.pairwise`);
``convention="repro_eval"`` is the one value here that reads the ids' sorted indices position by
position.

Only numpy, scipy and pandas are used.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from dataclasses import dataclass, field
from typing import Mapping, NamedTuple, Sequence

import numpy as np
import pandas as pd
from scipy import special as _special

from . import conventions as _conv
from . import rbo as _rbo
from . import stats as _stats
from .stats import _sps  # scipy.stats, imported on first use (see rankbook.stats)
from . import trec_format as _tf
from ._validation import check_choice, check_int, check_no_nul, check_probability

__all__ = [
    "KTU_CONVENTIONS",
    "RBO_FORMS",
    "REPRO_EVAL_DEPTH",
    "ranking",
    "rankings",
    "ktu",
    "rbo",
    "rmse",
    "nrmse",
    "effect_ratio",
    "delta_ri",
    "effect_ci",
    "IrMetadata",
    "read_ir_metadata",
    "ir_metadata_block",
    "write_run",
    "Reproduction",
    "reproduce",
]

#: How :func:`ktu` pairs the two lists: ``"union"`` (Kendall's tau over the union of the
#: documents, each document paired with itself) or ``"repro_eval"`` (repro_eval 0.5.0: index
#: arrays in the sorted union, paired by position).
KTU_CONVENTIONS = ("union", "repro_eval")
#: Forms of :func:`rbo`: ``"ext"`` (Webber's extrapolated RBO), ``"base"`` (the prefix sum, a
#: lower bound), ``"truncated"`` (repro_eval's weighted mean of agreements to a depth).
RBO_FORMS = ("ext", "base", "truncated")
#: repro_eval's default depth for KTU (trim threshold) and RBO.
REPRO_EVAL_DEPTH = 1000

META_START = "# ir_metadata.start"
META_END = "# ir_metadata.end"


def _as_list(docs, name) -> list:
    if isinstance(docs, str):
        raise ValueError(f"{name} must be a sequence of document ids, best first, not one "
                         f"string {docs!r}")
    if isinstance(docs, np.ndarray) and docs.dtype.kind in "iu" and docs.ndim == 1:
        if len(np.unique(docs)) != len(docs):  # integer codes (reproduce passes them)
            vals, counts = np.unique(docs, return_counts=True)
            raise ValueError(f"{name} lists document {vals[counts > 1][0]!r} twice; a ranking "
                             "holds each document once")
        return docs
    out = list(docs)
    check_no_nul(out, f"the document ids of {name}")
    if len(set(out)) != len(out):
        seen = set()
        for d in out:
            if d in seen:
                raise ValueError(f"{name} lists document {d!r} twice; a ranking holds each "
                                 "document once")
            seen.add(d)
    return out


def _check_depth(depth):
    return check_int(depth, "depth", low=1, allow_none=True)


# --------------------------------------------------------------------------------------------
# rankings from runs


_TIDY = "rankbook.repro.tidy"
_TIDY_QRELS = "rankbook.repro.tidy_qrels"


def _as_run(run) -> pd.DataFrame:
    """:func:`rankbook.trec_format.as_run`, once: a table this module already validated (marked
    in its ``attrs``) is not validated again."""
    if isinstance(run, pd.DataFrame) and run.attrs.get(_TIDY):
        return run
    df = _tf.as_run(run)
    df.attrs[_TIDY] = True
    return df


#: How a run gives its order: ``"score"`` (highest first, ties by the profile's rule) or
#: ``"rank"`` (an explicit order: the rank column of a TREC run or a DataFrame, or lists).
ORDERS = ("score", "rank")

#: Ranks above this are refused in an explicit order: minus the rank is the score that carries
#: the order, and float32 (trec_eval 9's scores) holds every integer up to 2**24 exactly.
MAX_RANK = 2 ** 24


def explicit_order(run, what: str = "run") -> pd.DataFrame:
    """A run given as an explicit order, as a tidy run whose scores are minus the ranks.

    ``run`` is a TREC run file (its rank column, the fourth, is read; the scores are ignored),
    a DataFrame with columns ``query_id``, ``doc_id`` and ``rank``, or ``{query: [doc, ...]}``
    (best first). Within a query every rank must be distinct, so the scores hold no tie and
    every convention profile scores the documents in exactly the given order.

    Parameters
    ----------
    run : str, path-like, pandas.DataFrame or dict
        The run, as above.
    what : str
        What the run is, for the messages.

    Returns
    -------
    pandas.DataFrame
        A tidy run: ``query_id``, ``doc_id``, ``score`` (minus the rank).

    Examples
    --------
    >>> explicit_order({"1": ["b", "a", "c"]})
      query_id doc_id  score
    0        1      b   -1.0
    1        1      a   -2.0
    2        1      c   -3.0
    """
    if isinstance(run, (str, os.PathLike)):
        df = _tf.read_run(run, order="rank")
    elif isinstance(run, Mapping):
        bad = next((q for q, v in run.items() if not isinstance(v, (list, tuple, np.ndarray))), None)
        if bad is not None:
            raise ValueError(f"{what}: an explicit order maps each query to a list of documents, "
                             f"best first; query {bad!r} maps to {type(run[bad]).__name__}")
        df = pd.DataFrame([(str(q), d, float(i + 1)) for q, docs in run.items()
                           for i, d in enumerate(docs)], columns=["query_id", "doc_id", "rank"])
    elif isinstance(run, pd.DataFrame):
        missing = {"query_id", "doc_id", "rank"} - set(run.columns)
        if missing:
            raise ValueError(f"{what}: an explicit order needs the columns query_id, doc_id and "
                             f"rank; missing: {', '.join(sorted(missing))}")
        df = run[["query_id", "doc_id", "rank"]].copy()
    else:
        raise ValueError(f"{what}: an explicit order is a TREC run file, a DataFrame with a rank "
                         f"column or {{query: [doc, ...]}}; got {type(run).__name__}")
    rank = pd.to_numeric(df["rank"], errors="coerce").to_numpy(np.float64)
    bad = _tf.bad_ranks(rank, MAX_RANK)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{what}: document {str(df['doc_id'].iloc[i])!r} of query "
                         f"{str(df['query_id'].iloc[i])!r} has rank {df['rank'].iloc[i]!r}; an "
                         f"explicit order numbers its documents 1, 2, ... (whole numbers up to "
                         f"{MAX_RANK})")
    dup = pd.DataFrame({"q": df["query_id"].astype(str).to_numpy(), "r": rank}).duplicated()
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        raise ValueError(f"{what}: rank {rank[i]:g} appears twice for query "
                         f"{str(df['query_id'].iloc[i])!r}; an explicit order gives each document "
                         "its own rank (order='score' ranks by score with the profile's tie rule)")
    out = pd.DataFrame({"query_id": df["query_id"].astype(str).to_numpy(),
                        "doc_id": df["doc_id"].to_numpy(), "score": -rank})
    return _as_run(out)


def _pair_columns(orig, rep):
    """The columns two runs' order measures need: ``([(query codes, query names, scores)] per
    run, document codes shared by both runs (orig's rows, then rep's), the rank of each code's
    id as text)``. Runs read from files are matched on their ids' bytes (hashed, confirmed
    byte for byte) and ordered by them (byte order is code point order); other runs on the
    ids' text, with one sort for both."""
    tables = [r.table if isinstance(r, _Run) and r.scored is r.table else None
              for r in (orig, rep)]
    if all(t is not None for t in tables):
        a, b = tables
        codes, _ = pd.factorize(np.concatenate([a.dhash(), b.dhash()]))
        raw = np.concatenate([a.dbytes, b.dbytes])
        top = np.maximum.accumulate(codes)  # codes are numbered in order of appearance
        first = np.flatnonzero(np.concatenate([[True], top[1:] > top[:-1]]))
        if np.array_equal(raw[first][codes], raw):
            return ([(t.qcodes, t.qnames, t.values) for t in tables], codes,
                    _tf.text_ranks(raw[first]))
    frames = [r.frame if isinstance(r, _Run) else r for r in (orig, rep)]
    codes, uniq = pd.factorize(np.concatenate([np.asarray(f["doc_id"], dtype=object)
                                               for f in frames]))
    ids = uniq.tolist()
    text_rank = np.empty(len(ids), dtype=np.int64)
    text_rank[sorted(range(len(ids)), key=ids.__getitem__)] = np.arange(len(ids))
    cols = []
    for f in frames:
        qcode, qnames = pd.factorize(np.asarray(f["query_id"]), sort=False)
        cols.append((qcode, np.asarray(qnames, dtype=object), f["score"].to_numpy(np.float64)))
    return cols, codes, text_rank


def _rank_order_columns(qcode, qnames, sc, text_rank):
    """The rows of a run in trec_eval's order: ``(order, qcode, qnames)``, rows grouped by
    query (codes in order of first appearance), best first, equal scores by document id
    descending (``text_rank``: the rank of each row's id as text)."""
    order, qcode, qnames, _ = _rank_order_of(qcode, qnames, sc, None, text_rank)
    return order, qcode, qnames


def _rank_order(df: pd.DataFrame, text_rank=None):
    """The rows of a tidy run table in trec_eval's order: ``(order, qcode, qnames, d)``, rows
    grouped by query (first appearance; ``qcode`` per row, ``qnames`` per code), best first.
    ``text_rank``: the rank of each row's document id as text, when the caller has it."""
    q = np.asarray(df["query_id"])  # the column's own array: no copy, no missing-value scan
    d = np.asarray(df["doc_id"])
    sc = df["score"].to_numpy(np.float64)
    qcode, qnames = pd.factorize(q, sort=False)
    return _rank_order_of(qcode, qnames, sc, d, text_rank)


def _rank_order_of(qcode, qnames, sc, d, text_rank):
    """:func:`_rank_order` on columns; ties by ``text_rank`` or, without it, by ``d``."""
    new_q = qcode[1:] != qcode[:-1]
    if np.all(qcode[1:] >= qcode[:-1]) and np.all(new_q | (sc[1:] <= sc[:-1])):
        # a run written in its order (grouped by query, scores descending), as systems
        # write them: the (stable) lexsort below would return the rows as they are
        order = np.arange(len(sc))
    else:
        order = np.lexsort((-sc, qcode))  # by query (first appearance), then score descending
    qs, ss = qcode[order], sc[order]
    same = (qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1])
    if same.any():  # ties: by document id, descending, within each tied group
        tied = np.zeros(len(order), dtype=bool)
        tied[1:] |= same
        tied[:-1] |= same
        at = np.flatnonzero(tied)  # the rows of every tied group, group after group
        group = np.cumsum(~np.concatenate([[False], same])[at])
        rows = order[at]
        if text_rank is None:  # the ids of the tied rows ranked as text (code points)
            _, tr = np.unique(np.asarray(d[rows], dtype=str), return_inverse=True)
        else:
            tr = np.asarray(text_rank)[rows]
        order[at] = rows[np.lexsort((-tr.ravel(), group))]
    return order, qcode, qnames, d


def _as_qrels(qrels) -> pd.DataFrame:
    """:func:`rankbook.trec_format.as_qrels`, once (a table marked as validated, as
    :func:`_as_run` marks runs, is taken as it is)."""
    if isinstance(qrels, pd.DataFrame) and qrels.attrs.get(_TIDY_QRELS):
        return qrels
    df = _tf.as_qrels(qrels)
    df.attrs[_TIDY_QRELS] = True
    return df


def _ranked(df: pd.DataFrame, codes=None) -> dict:
    """``{query: list of docs}`` in trec_eval's order from a tidy run table; with ``codes``
    (one integer per row), each list holds the codes of the documents instead (an array)."""
    order, qcode, qnames, d = _rank_order(df)
    docs = d[order] if codes is None else np.asarray(codes)[order]
    bounds = np.flatnonzero(np.diff(qcode[order])) + 1
    convert = list if codes is None else (lambda x: x)
    return {str(qnames[qcode[order[s]]]): convert(chunk) for s, chunk in
            zip(np.concatenate([[0], bounds]).astype(int), np.split(docs, bounds)) if len(chunk)}


def rankings(run) -> dict:
    """Every query's documents of a run, best first, in trec_eval's order.

    Documents are ordered by score, highest first; equal scores by document id, descending
    (trec_eval's rule, which repro_eval's ``break_ties`` also applies to a file written in score
    order).

    Parameters
    ----------
    run : dict, path or pandas.DataFrame
        Any spelling :func:`rankbook.trec_format.as_run` reads (a TREC run file, a dict
        ``{query: {doc: score}}``, a DataFrame ``query_id, doc_id, score``).

    Returns
    -------
    dict
        ``{query_id: list of doc ids}``, queries in the order they first appear.

    Examples
    --------
    >>> rankings({"1": {"a": 0.5, "b": 0.9, "c": 0.5}})
    {'1': ['b', 'c', 'a']}
    """
    return _ranked(_as_run(run))


def ranking(run, query) -> list:
    """The documents of one query of a run, best first (see :func:`rankings`).

    Parameters
    ----------
    run : str, path-like, pandas.DataFrame or dict
        A TREC run file, a tidy run (``query_id``, ``doc_id``, ``score``) or
        ``{query: {doc: score}}``.
    query : str
        The query id.

    Returns
    -------
    list
        Document ids, best first.

    Examples
    --------
    >>> ranking({"7": {"x": 1.0, "y": 2.0}}, "7")
    ['y', 'x']
    """
    ranked = rankings(run)
    if str(query) not in ranked:
        raise ValueError(f"query {query!r} is not in the run; it has {', '.join(map(repr, ranked))}")
    return ranked[str(query)]


# --------------------------------------------------------------------------------------------
# order of documents


def _joined(a, b) -> np.ndarray:
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype.kind in "iu" \
            and b.dtype.kind in "iu":
        return np.concatenate([a, b])
    return np.array([*a, *b], dtype=object)


def _ktu_union(a: list, b: list) -> float:
    codes, union = pd.factorize(_joined(a, b), sort=False)
    if len(union) < 2:
        return float("nan")
    ra = np.full(len(union), len(a), dtype=np.int64)  # missing from a: tied below its last
    rb = np.full(len(union), len(b), dtype=np.int64)
    ra[codes[:len(a)]] = np.arange(len(a))
    rb[codes[len(a):]] = np.arange(len(b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(_sps.kendalltau(ra, rb).statistic)


def _ktu_repro_eval(a: list, b: list) -> float:
    if len(a) != len(b):
        raise ValueError(
            f"convention='repro_eval' pairs the two lists by position and needs equal lengths, "
            f"got {len(a)} and {len(b)} documents (repro_eval 0.5.0 raises a shape error "
            "there); convention='union' handles lists of any length")
    union = sorted(set(a) | set(b))
    index = {d: i for i, d in enumerate(union)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = _sps.kendalltau([index[d] for d in a], [index[d] for d in b]).statistic
    return float(round(value, 14))


def ktu(orig, rep, *, convention: str = "union", depth: int | None = None) -> float:
    r"""Kendall's :math:`\tau` Union of two rankings of documents.

    With ``convention="union"`` (default) every document of either list is ranked in both: at
    its position where the list holds it, and tied below the list's last document where it does
    not (all missing documents share one rank). The value is Kendall's :math:`\tau_b` of the two
    rank vectors over the union :math:`U`:

    .. math::

        \tau_b = \frac{C - D}{\sqrt{(n_0 - T_o)(n_0 - T_r)}}, \qquad
        n_0 = \binom{|U|}{2},

    with :math:`C` and :math:`D` the concordant and discordant pairs of documents, and
    :math:`T_o`, :math:`T_r` the pairs tied in the original and in the reproduced list (a pair
    of two documents missing from a list is tied there; a pair tied in both lists counts in both
    :math:`T`). Each document is paired with itself, so renaming documents leaves the value
    unchanged; identical lists give 1 and a reversal -1. It is ``nan`` when fewer than two
    documents are listed or one list ranks them all equal (0/0).

    ``convention="repro_eval"`` gives repro_eval 0.5.0's value bit for bit: both lists cut at
    ``depth`` (default 1000), every document replaced by its index in the alphabetically sorted
    union, and :math:`\tau_b` of the two index arrays *paired by position*, rounded to 14
    decimals. The i-th document of one list is paired with the i-th of the other, not with
    itself, so the value depends on the names and lists of different lengths are refused
    (repro_eval raises a shape error) {cite}`breuer2020repro`.

    Parameters
    ----------
    orig, rep : sequence of hashable
        Document ids, best first, each at most once (see :func:`rankings` for runs).
    convention : {"union", "repro_eval"}
    depth : int, optional
        Compare only the first ``depth`` documents of each list (default: all for ``"union"``,
        1000 for ``"repro_eval"``).

    Returns
    -------
    float

    Examples
    --------
    >>> ktu(["d1", "d2", "d3"], ["d1", "d2", "d3"])
    1.0
    >>> ktu(["d1", "d2", "d3"], ["d3", "d2", "d1"])
    -1.0
    >>> orig, swapped = ["c", "a", "d", "b"], ["a", "c", "d", "b"]  # top two swapped
    >>> round(ktu(orig, swapped), 4)
    0.6667
    >>> ktu(orig, swapped, convention="repro_eval")  # depends on the names
    0.0
    """
    check_choice(convention, KTU_CONVENTIONS, "convention")
    depth = _check_depth(depth)
    a, b = _as_list(orig, "orig"), _as_list(rep, "rep")
    if convention == "repro_eval":
        d = REPRO_EVAL_DEPTH if depth is None else depth
        return _ktu_repro_eval(a[:d], b[:d])
    if depth is not None:
        a, b = a[:depth], b[:depth]
    return _ktu_union(a, b)


def _overlap_counts(a: list, b: list, depth: int) -> np.ndarray:
    """X_d, d = 1..depth: documents in both top-d lists (a list shorter than d adds nothing)."""
    codes, _ = pd.factorize(_joined(a, b), sort=False)
    pos_b = np.full(len(a) + len(b), -1, dtype=np.int64)
    pos_b[codes[len(a):]] = np.arange(len(b))
    j = pos_b[codes[:len(a)]]  # position in b of each document of a, -1 if missing
    both = j >= 0
    enter = np.maximum(np.arange(len(a))[both], j[both])  # depth - 1 at which it is shared
    return np.cumsum(np.bincount(enter[enter < depth], minlength=depth)[:depth])


def _rbo_truncated(a: list, b: list, p: float, depth: int) -> float:
    X = _overlap_counts(a, b, depth)
    w = np.empty(depth)
    w[0] = 1.0
    if depth > 1:
        w[1:] = p
        w = np.cumprod(w)  # 1, p, p*p, ... multiplied in sequence, as a running product
    d = np.arange(1, depth + 1, dtype=np.float64)
    score = np.cumsum(w * X / d)[-1]  # summed in rank order, as repro_eval's loop sums
    normalizer = np.cumsum(w)[-1]
    return float(score / normalizer)


def rbo(orig, rep, p: float = 0.95, *, form: str = "ext", depth: int | None = None) -> float:
    r"""Rank-biased overlap of two rankings of documents, no deeper than the lists by default.

    With the agreement :math:`A_d = X_d / d` (:math:`X_d` the documents the two top-:math:`d`
    lists share) {cite}`webber2010rbo`:

    ``form="ext"`` (default)
        Webber et al.'s extrapolated RBO (:func:`rankbook.rbo.rbo_ext`): the agreement seen at
        the end of the lists is assumed to continue. Identical lists score 1.
    ``form="base"``
        The prefix sum :math:`(1-p)\sum_{d\le k} p^{d-1} A_d` (:func:`rankbook.rbo.rbo`), a lower
        bound of RBO; ``k`` defaults to the shorter list's length.
    ``form="truncated"``
        repro_eval's normalised, truncated form (after Clarke et al.'s code):

        .. math:: \frac{\sum_{d=1}^{k} p^{d-1} A_d}{\sum_{d=1}^{k} p^{d-1}},

        a weighted mean of the agreements down to depth :math:`k`. A list shorter than
        :math:`k` adds nothing past its end, so its agreement decays as :math:`X/d`.
        ``k`` defaults to the shorter list's length (identical lists score 1); repro_eval uses
        ``depth=1000`` whatever the lists' lengths, which is :data:`REPRO_EVAL_DEPTH`.

    Parameters
    ----------
    orig, rep : sequence of hashable
        Document ids, best first, each at most once.
    p : float, 0 < p < 1
        Persistence (repro_eval's default 0.95).
    form : {"ext", "base", "truncated"}
    depth : int, optional
        ``"ext"``: cut both lists at ``depth`` first; ``"base"``, ``"truncated"``: the depth
        of the sum.

    Returns
    -------
    float
        ``nan`` for an empty list (nothing to compare).

    Examples
    --------
    >>> docs = [f"d{i}" for i in range(20)]
    >>> rbo(docs, docs), rbo(docs, docs, form="truncated")
    (1.0, 1.0)
    >>> round(rbo(docs, docs, form="truncated", depth=1000), 4)  # repro_eval's default depth
    0.8534
    """
    check_choice(form, RBO_FORMS, "form")
    p = _check_p(p)
    depth = _check_depth(depth)
    a, b = _as_list(orig, "orig"), _as_list(rep, "rep")
    if len(a) == 0 or len(b) == 0:
        return float("nan")
    if form == "truncated":
        return _rbo_truncated(a, b, p, min(len(a), len(b)) if depth is None else depth)
    if form == "base":
        k = None if depth is None else min(depth, max(len(a), len(b)))
        return _rbo.rbo(list(a), list(b), p, depth=k, ties="w")
    if depth is not None:
        a, b = a[:depth], b[:depth]
    return _rbo_ext(a, b, p)


def _check_p(p) -> float:
    return check_probability(p, "p", meaning="RBO's persistence")


def _rbo_ext(a: list, b: list, p: float) -> float:
    """:func:`rankbook.rbo.rbo_ext` of two tie-free lists (Webber et al. eq. 32), with the
    overlaps counted in one pass; the tests check it equals rbo_ext."""
    s, l = sorted((len(a), len(b)))
    return _rbo_ext_of_counts(_overlap_counts(a, b, l), s, l, p)


def _rbo_ext_of_counts(X: np.ndarray, s: int, l: int, p: float) -> float:
    """:func:`_rbo_ext` from the overlaps ``X`` at depths 1..l of lists of s <= l documents."""
    d = np.arange(1, l + 1, dtype=float)
    X_s, X_l = float(X[s - 1]), float(X[-1])
    x = X.astype(float)
    mid = d > s
    x[mid] = X[mid] + X_s * (d[mid] - s) / s  # the short list keeps agreeing at rate X_s / s
    w = _rbo._weights(p, l)
    tail_w = math.exp(l * math.log(p))
    a_tail = (X_l - X_s) / l + X_s / s
    return float((np.sum(w * (x / d)) + tail_w * a_tail) / (np.sum(w) + tail_w))


# --------------------------------------------------------------------------------------------
# effectiveness and effects


def _order_by_topic(orig: pd.DataFrame, rep: pd.DataFrame, topics: Sequence[str], p: float):
    """KTU over the union (:func:`ktu`) and extrapolated RBO (:func:`rbo`, ``form="ext"``) of
    every topic of two tidy runs at once: ``(ktu, rbo)``, arrays over ``topics`` (``nan`` where
    a run lacks the topic).

    The documents are matched by topic and id in one sort; the discordant pairs of a topic are
    counted in closed form, with one batched inversion count
    (:func:`rankbook.permutations._inversions_unchecked`) for the documents both lists hold,
    and KTU takes scipy's ``kendalltau`` arithmetic on those integer counts, so each value
    equals ``ktu(a, b)`` bit for bit (the tests compare them); RBO's overlaps are counted for
    every topic in one ``bincount`` and each value is :func:`_rbo_ext` of them.
    """
    from . import permutations as _perm

    T = len(topics)
    where = {t: i for i, t in enumerate(topics)}
    cols, codes, text_rank = _pair_columns(orig, rep)
    n_codes = int(codes.max()) + 1 if len(codes) else 1
    sides = []
    n0 = len(cols[0][2])
    for (q, qn, sc), c in ((cols[0], codes[:n0]), (cols[1], codes[n0:])):
        order, qcode, qnames = _rank_order_columns(q, qn, sc, text_rank[c])
        tmap = np.array([where.get(str(x), -1) for x in qnames], dtype=np.int64)
        t = tmap[qcode[order]] if len(order) else np.empty(0, dtype=np.int64)
        keep = t >= 0
        t, doc = t[keep], np.asarray(c, dtype=np.int64)[order][keep]
        by_topic = np.argsort(t, kind="stable")  # topics in the order of ``topics``, each
        t, doc = t[by_topic], doc[by_topic]  # still best first
        n = np.bincount(t, minlength=T)
        start = np.concatenate([[0], np.cumsum(n)[:-1]]).astype(np.int64)
        pos = np.arange(len(t), dtype=np.int64) - start[t]  # rows are grouped by topic
        sides.append((t, doc, pos, n))
    (ta, da, pa, na), (tb, db, pb, nb) = sides
    key_a, key_b = ta * n_codes + da, tb * n_codes + db
    sort_b = np.argsort(key_b, kind="stable")
    at = np.searchsorted(key_b[sort_b], key_a)
    at = np.minimum(at, max(len(key_b) - 1, 0))
    hit = (key_b[sort_b][at] == key_a) if len(key_b) else np.zeros(len(key_a), dtype=bool)
    j = np.where(hit, pb[sort_b][at] if len(key_b) else 0, -1)  # position in b, -1 if missing
    in_a = np.zeros(len(key_b), dtype=bool)
    in_a[sort_b[at[hit]]] = True
    k = np.bincount(ta[hit], minlength=T)  # documents both lists hold
    only_a, only_b = na - k, nb - k
    # discordant pairs: (a document of a only, one of b only) always; (common, a only) where
    # the common one is ranked below in a; (common, b only) likewise in b; common pairs whose
    # order the lists swap (inversions)
    after_a = k[ta] - np.cumsum(hit) + _group_start_values(np.cumsum(hit), na)[ta]
    after_b = k[tb] - np.cumsum(in_a) + _group_start_values(np.cumsum(in_a), nb)[tb]
    dis = (only_a * only_b
           + np.bincount(ta[~hit], weights=after_a[~hit], minlength=T).astype(np.int64)
           + np.bincount(tb[~in_a], weights=after_b[~in_a], minlength=T).astype(np.int64))
    if hit.any():  # ranks in b of the common documents, listed in a's order, topic by topic
        tc, jc = ta[hit], j[hit]
        by_b = np.lexsort((jc, tc))
        rank = np.empty(len(jc), dtype=np.int64)
        cstart = np.concatenate([[0], np.cumsum(k)[:-1]]).astype(np.int64)
        rank[by_b] = np.arange(len(jc), dtype=np.int64) - cstart[tc[by_b]] + 1
        col = np.arange(len(jc), dtype=np.int64) - cstart[tc]
        rows = np.flatnonzero(k >= 2)
        chunk_cells = 1 << 22
        i = 0
        while i < len(rows):  # topics in chunks of bounded size, each padded to its longest
            K = int(k[rows[i]])
            m = 1
            while i + m < len(rows) and max(K, int(k[rows[i + m]])) * (m + 1) <= chunk_cells:
                K = max(K, int(k[rows[i + m]]))
                m += 1
            part = rows[i:i + m]
            P = np.broadcast_to(np.arange(1, K + 1, dtype=np.int64), (m, K)).copy()
            slot = np.full(T, -1, dtype=np.int64)
            slot[part] = np.arange(m)
            sel = slot[tc] >= 0  # padding K past a topic's own count adds no inversion
            P[slot[tc[sel]], col[sel]] = rank[sel]
            dis[part] += _perm._inversions_unchecked(P)
            i += m
    size = k + only_a + only_b
    tot = size * (size - 1) // 2
    xtie, ytie = only_b * (only_b - 1) // 2, only_a * (only_a - 1) // 2  # tied below the end
    cmd = tot - xtie - ytie - 2 * dis
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = cmd / np.sqrt((tot - xtie).astype(np.float64)) / np.sqrt(
            (tot - ytie).astype(np.float64))
    tau = np.minimum(1.0, np.maximum(-1.0, tau))
    tau[(size < 2) | (xtie == tot) | (ytie == tot) | (na == 0) | (nb == 0)] = np.nan
    # RBO: X_d of each topic from one bincount of the depths at which documents are shared
    L = np.maximum(na, nb)
    off = np.concatenate([[0], np.cumsum(L)[:-1]]).astype(np.int64)
    enter = np.maximum(pa[hit], j[hit])
    X = np.cumsum(np.bincount(off[ta[hit]] + enter, minlength=int(L.sum())))
    rb = np.full(T, np.nan)
    for q in np.flatnonzero((na > 0) & (nb > 0)):
        s, l = sorted((int(na[q]), int(nb[q])))
        Xq = X[off[q]:off[q] + l] - (X[off[q] - 1] if off[q] > 0 else 0)
        rb[q] = _rbo_ext_of_counts(Xq, s, l, p)
    return tau, rb


def _group_start_values(c: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The running total ``c`` just before each group of ``n`` consecutive rows starts."""
    start = np.concatenate([[0], np.cumsum(n)[:-1]]).astype(np.int64)
    c0 = np.concatenate([[0], c])
    return c0[start]


def _pair(orig, rep, name="scores"):
    o = np.asarray(orig, dtype=np.float64)
    r = np.asarray(rep, dtype=np.float64)
    if o.ndim != 1 or r.ndim != 1 or len(o) != len(r) or len(o) == 0:
        raise ValueError(f"{name}: original and reproduced scores must be two non-empty 1-D "
                         f"arrays of the same topics, got shapes {o.shape} and {r.shape}")
    return o, r


def rmse(orig, rep) -> float:
    r"""Root mean square error of reproduced per-topic scores against the original ones.

    .. math:: RMSE = \sqrt{\frac{1}{n}\sum_{j=1}^{n} (o_j - r_j)^2}

    over the :math:`n` topics both were scored on {cite}`breuer2020repro`.

    Parameters
    ----------
    orig, rep : array_like of float, shape (n,)
        Per-topic scores of the original and the reproduced run, aligned by topic.

    Returns
    -------
    float

    Examples
    --------
    >>> rmse([0.2, 0.4], [0.2, 0.8])
    0.28284271247461906
    """
    o, r = _pair(orig, rep)
    return float(np.sqrt(np.mean((o - r) ** 2)))


def nrmse(orig, rep) -> float:
    r"""RMSE divided by the largest RMSE the original scores allow (repro_eval's nRMSE).

    .. math:: nRMSE = RMSE / \sqrt{\frac{1}{n}\sum_j \max(o_j, 1 - o_j)^2}

    The denominator is the RMSE of the worst reproduction of scores in [0, 1]. ``nan`` when it
    is 0 (impossible for scores in [0, 1]).

    Parameters
    ----------
    orig, rep : mapping or sequence of float
        Per-topic scores, as in :func:`rmse`.

    Returns
    -------
    float
        nan when the denominator is 0.

    Examples
    --------
    >>> round(nrmse([0.2, 0.4], [0.2, 0.8]), 4)
    0.4
    """
    o, r = _pair(orig, rep)
    den = math.sqrt(float(np.mean(np.maximum(o, 1 - o) ** 2)))
    return float(np.sqrt(np.mean((o - r) ** 2)) / den) if den > 0 else float("nan")


#: What the text report prints for a statistic that is not a number (the tables keep the
#: ``inf`` or ``nan`` of the division, as repro_eval gives it).
_UNDEFINED = {
    "ER": "undefined (no original improvement)",
    "ΔRI": "undefined (a baseline mean of 0)",
}


def _ratio(num, den):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(num, dtype=np.float64) / np.asarray(den, dtype=np.float64)


def effect_ratio(orig_baseline, orig_advanced, rep_baseline, rep_advanced) -> float:
    r"""Effect ratio: the reproduced mean improvement over the original one.

    .. math::

        ER = \frac{\frac{1}{n'}\sum_j (r^a_j - r^b_j)}{\frac{1}{n}\sum_j (o^a_j - o^b_j)}

    1 when the improvement of the advanced system over the baseline is reproduced exactly,
    below 1 when it shrinks, negative when it flips {cite}`breuer2020repro`. Original and
    reproduced scores may be on different topics (replicability); within each, baseline and
    advanced pair by topic. ``nan`` or infinite when the original improvement is 0.

    Parameters
    ----------
    orig_baseline, orig_advanced : array_like of float, shape (n,)
        The original per-topic scores of the baseline and the advanced system (paired by topic).
    rep_baseline, rep_advanced : array_like of float, shape (n',)
        The reproduced ones (paired by topic; other topics allowed).

    Returns
    -------
    float
        nan or infinite when the original improvement is 0.

    Examples
    --------
    >>> effect_ratio([0.2, 0.4], [0.4, 0.6], [0.2, 0.4], [0.3, 0.5])
    0.5
    """
    ob, oa = _pair(orig_baseline, orig_advanced, "original")
    rb, ra = _pair(rep_baseline, rep_advanced, "reproduced")
    return float(_ratio(np.mean(ra - rb), np.mean(oa - ob)))


def delta_ri(orig_baseline, orig_advanced, rep_baseline, rep_advanced) -> float:
    r"""Difference of relative improvements: original minus reproduced.

    .. math::

        \Delta RI = RI_o - RI_r, \qquad RI = \frac{\bar a - \bar b}{\bar b}

    with :math:`\bar a`, :math:`\bar b` the mean scores of the advanced system and the baseline
    over the topics of each experiment. 0 when the relative improvement is reproduced; positive
    when it shrinks {cite}`breuer2020repro`.

    Parameters
    ----------
    orig_baseline, orig_advanced : array_like of float, shape (n,)
        The original per-topic scores of the baseline and the advanced system (paired by topic).
    rep_baseline, rep_advanced : array_like of float, shape (n',)
        The reproduced ones (paired by topic; other topics allowed).

    Returns
    -------
    float

    Examples
    --------
    >>> delta_ri([0.2, 0.4], [0.4, 0.6], [0.2, 0.4], [0.3, 0.5])
    0.3333333333333332
    """
    ob, oa = _pair(orig_baseline, orig_advanced, "original")
    rb, ra = _pair(rep_baseline, rep_advanced, "reproduced")
    ri_o = _ratio(np.mean(oa) - np.mean(ob), np.mean(ob))
    ri_r = _ratio(np.mean(ra) - np.mean(rb), np.mean(rb))
    return float(ri_o - ri_r)


# --------------------------------------------------------------------------------------------
# ir_metadata


class IrMetadata(NamedTuple):
    """The ``ir_metadata`` block of a run file: ``text`` (the YAML, comment marks removed),
    ``fields`` (the block read as nested dicts and lists of text, or ``None`` when it uses YAML
    beyond the simple subset this reader knows) and ``note`` (why ``fields`` is ``None``)."""

    text: str
    fields: dict | None
    note: str = ""

    def flat(self) -> list[tuple[str, str]]:
        """``(dotted.key, value)`` pairs of ``fields``, in order, for a report.

        Examples
        --------
        >>> IrMetadata("", {"tag": "x", "platform": {"os": "linux"}}).flat()
        [('tag', 'x'), ('platform.os', 'linux')]
        """
        out: list[tuple[str, str]] = []

        def walk(obj, prefix):
            if isinstance(obj, dict):
                for k, v in obj.items():
                    walk(v, f"{prefix}.{k}" if prefix else str(k))
            elif isinstance(obj, list):
                out.append((prefix, ", ".join(str(x) for x in obj)))
            else:
                out.append((prefix, "" if obj is None else str(obj)))

        walk(self.fields or {}, "")
        return out


_KEY = re.compile(r"^(?P<key>[^\s#'\"\-{}\[\]][^:]*?|'[^']*'|\"[^\"]*\"):(?:\s+(?P<value>.*))?$")


def _scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        inner = text[1:-1]
        return inner.replace("''", "'") if text[0] == "'" else inner.replace('\\"', '"')
    return text


class _Unsupported(Exception):
    pass


def _parse_yaml_subset(lines: list[str]):
    """Block mappings and sequences of plain or quoted scalars, nested by indentation."""
    items = [(len(s) - len(s.lstrip(" ")), s.strip()) for s in lines
             if s.strip() and not s.strip().startswith("#")]

    def block(i, indent):
        if i >= len(items):
            return None, i
        if items[i][1].startswith("- ") or items[i][1] == "-":
            out = []
            while i < len(items) and items[i][0] == indent and items[i][1].startswith("-"):
                val = items[i][1][1:].strip()
                if not val or _KEY.match(val):
                    raise _Unsupported("a list of mappings")
                out.append(_scalar(val))
                i += 1
            return out, i
        out = {}
        while i < len(items) and items[i][0] == indent:
            m = _KEY.match(items[i][1])
            if not m:
                raise _Unsupported(f"the line {items[i][1]!r}")
            key, value = _scalar(m.group("key")), m.group("value")
            i += 1
            if value is not None and value.strip():
                if value.strip()[0] in "[{|>&*!":
                    raise _Unsupported(f"the value {value.strip()!r}")
                out[key] = _scalar(value)
            elif i < len(items) and (items[i][0] > indent
                                     or (items[i][0] == indent and items[i][1].startswith("-"))):
                out[key], i = block(i, items[i][0])
            else:
                out[key] = None
        return out, i

    if not items:
        return {}
    parsed, end = block(0, items[0][0])
    if end != len(items):
        raise _Unsupported(f"the indentation of {items[end][1]!r}")
    return parsed


def read_ir_metadata(source) -> IrMetadata | None:
    """The ``ir_metadata`` block at the top of a run file, or ``None`` without one.

    The block sits between the lines ``# ir_metadata.start`` and ``# ir_metadata.end`` (the
    first line of the file, as repro_eval writes it); each line in between is a ``#`` followed
    by YAML. Comment lines are skipped by every TREC reader, so an annotated run still reads as a
    run. ``fields`` reads block mappings and lists of scalars, values kept as text; a block with
    other YAML (flow collections, anchors, multi-line strings) keeps ``fields=None`` and its
    ``text``.

    ``source`` is a path or stream (only its comment lines on top are read, as
    :func:`rankbook.trec_format.read_header` reads them: gzip, bz2 and xz included) or a table
    :func:`rankbook.trec_format.read_table` read, whose ``header`` holds those lines (a pipe
    is read once, by the table's reader).

    Parameters
    ----------
    source : str, path-like, stream or TrecTable
        The run: a file (its comment lines on top), or a table already read.

    Returns
    -------
    IrMetadata or None
        ``text`` (the YAML) and ``fields`` (the parsed mapping, or None).

    Raises
    ------
    ValueError
        ``path:line`` when the block is opened and never closed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> write_run(p, {"1": {"a": 2.0, "b": 1.0}}, {"tag": "bm25", "method": {"k1": "0.9"}})
    >>> read_ir_metadata(p).fields
    {'tag': 'bm25', 'method': {'k1': '0.9'}}
    """
    if isinstance(source, _tf.TrecTable):
        top, name = source.header, source.name
    else:
        top, name = _tf.read_header(source), _tf._source_name(source)
    if not top or top[0].rstrip() != META_START:
        return None
    lines, closed = [], False
    for line in top[1:]:
        if line.rstrip() == META_END:
            closed = True
            break
        text = line
        if text.startswith("#"):
            text = text[1:]
            text = text[1:] if text.startswith(" ") else text
        lines.append(text.rstrip())
    if not closed:
        raise ValueError(f"{name}:1: the ir_metadata block opened here is never closed with a "
                         f"line {META_END!r} (the comment lines at the top of the file end at "
                         f"line {len(top)})")
    text = "\n".join(lines)
    try:
        return IrMetadata(text, _parse_yaml_subset(lines))
    except _Unsupported as exc:
        return IrMetadata(text, None, f"kept as text: uses YAML beyond block mappings and lists "
                                      f"of scalars ({exc})")


def _yaml_scalar(value) -> str:
    s = "" if value is None else str(value)
    if s == "" or s != s.strip() or re.search(r":\s|\s#|^[\-?:,\[\]{}#&*!|>'\"%@`]|:$", s) \
            or "\n" in s:
        if "\n" in s:
            raise ValueError(f"ir_metadata values are single lines; got {s!r}")
        return "'" + s.replace("'", "''") + "'"
    return s


def ir_metadata_block(metadata) -> str:
    """The ``ir_metadata`` block for a run file: start line, YAML lines each prefixed by ``#``
    and a space, end line.

    Parameters
    ----------
    metadata : dict or str
        Nested dicts and lists of scalars (written as YAML), or YAML text (written as is).

    Returns
    -------
    str
        The block, ending with a newline.

    Examples
    --------
    >>> print(ir_metadata_block({"tag": "bm25", "data": {"test collection": "core17"}}), end="")
    # ir_metadata.start
    # tag: bm25
    # data:
    #   test collection: core17
    # ir_metadata.end
    """
    if isinstance(metadata, str):
        body = metadata.splitlines()
    elif isinstance(metadata, Mapping):
        body = []

        def walk(obj, indent):
            for k, v in obj.items():
                key = _yaml_scalar(k)
                if isinstance(v, Mapping):
                    body.append(f"{' ' * indent}{key}:")
                    walk(v, indent + 2)
                elif isinstance(v, (list, tuple)):
                    body.append(f"{' ' * indent}{key}:")
                    body.extend(f"{' ' * (indent + 2)}- {_yaml_scalar(x)}" for x in v)
                elif v is None:
                    body.append(f"{' ' * indent}{key}:")  # YAML's null
                else:
                    body.append(f"{' ' * indent}{key}: {_yaml_scalar(v)}")

        walk(metadata, 0)
    else:
        raise ValueError(f"metadata must be a dict or YAML text, got {type(metadata).__name__}")
    return "".join(f"{line}\n" for line in [META_START, *(f"# {b}" for b in body), META_END])


def write_run(path, run, metadata=None, tag: str = "rankbook") -> None:
    """Write a run as a TREC file, best first per query, with an ``ir_metadata`` block on top.

    Parameters
    ----------
    path : str or path-like
        The file written.
    run : pandas.DataFrame or dict
        A tidy run or ``{query: {doc: score}}``.
    metadata : dict or str, optional
        The ``ir_metadata`` block (:func:`ir_metadata_block`); none by default.
    tag : str
        The run tag of every line.

    Raises
    ------
    ValueError
        For a run that cannot be read, or a tag with white space.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> write_run(p, {"1": {"a": 1.0, "b": 2.0}}, tag="x")
    >>> print(p.read_text(), end="")
    1 Q0 b 1 2 x
    1 Q0 a 2 1 x
    """
    if not re.fullmatch(r"\S+", str(tag)):
        raise ValueError(f"tag must be one word without spaces, got {tag!r}")
    df = _tf.as_run(run)
    out = [ir_metadata_block(metadata)] if metadata is not None else []
    for q, docs in rankings(df).items():
        sc = df[df["query_id"] == q].set_index("doc_id")["score"]
        out.extend(f"{q} Q0 {d} {r} {sc[d]:.17g} {tag}\n" for r, d in enumerate(docs, start=1))
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write("".join(out))


# --------------------------------------------------------------------------------------------
# everything at once

_SYSTEMS = ("baseline", "advanced")


def _index_ci(data: np.ndarray, fn, confidence, n_resamples, seed):
    """Bootstrap intervals of ``fn`` of the row means of ``data`` over topics, for a batch.

    ``data`` has shape (k, rows, q): k cases (systems, measures) of ``rows`` per-topic series
    each; ``fn(m)`` maps the row means ``m`` (shape (k, rows) or (k, rows, b)) to the statistic
    (k,) or (k, b). The topics are resampled as :func:`rankbook.stats.bootstrap_ci` resamples
    them (every case gets the resamples a call of its own with the same seed would get); each
    resample becomes counts per topic and the means a matrix product, so statistics of several
    series, such as ratios of means, resample the topics together
    (:func:`rankbook.stats._bootstrap_ci_of_means`, which :func:`_index_cis` calls for several
    statistics on one set of resamples).
    """
    return _index_cis([(data, fn)], confidence, n_resamples, seed)[0]


def _index_cis(cases, confidence, n_resamples, seed):
    """:func:`_index_ci` of several ``(data, fn)`` on one set of resamples (same seed, same
    topics: the same intervals as one call each)."""
    q = cases[0][0].shape[-1]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # a resample whose ratio is 0/0 leaves the interval nan
        return _stats._bootstrap_ci_of_means(q, cases, confidence=confidence,
                                             n_resamples=n_resamples, seed=seed)


def _case(ci, i):
    """Case ``i`` of a batch of intervals, as a BootstrapCI of floats."""
    pick = (lambda a: float(np.asarray(a).reshape(-1)[i]))
    return _stats.BootstrapCI(pick(ci.estimate), pick(ci.low), pick(ci.high),
                              pick(ci.standard_error), ci.n_resamples, ci.method, ci.confidence,
                              ci.fallback)


def _two_sample_ci(orig: np.ndarray, rep: np.ndarray, fn, confidence, n_resamples, seed):
    """Bootstrap interval of ``fn(orig[..., i], rep[..., j])`` with the original and the
    reproduced topics resampled independently (replicability: the topic sets differ).
    :func:`rankbook.stats.bootstrap_ci` resamples one set of topics, so this uses scipy's
    multi-sample bootstrap (BCa), which bootstrap_ci mirrors for one sample."""

    def statistic(i, j, axis=-1):
        i = np.asarray(i, dtype=np.int64)
        j = np.asarray(j, dtype=np.int64)
        return fn(orig[:, i], rep[:, j])

    est = float(fn(orig[:, np.arange(orig.shape[1])], rep[:, np.arange(rep.shape[1])]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = _sps.bootstrap((np.arange(orig.shape[1]), np.arange(rep.shape[1])), statistic,
                             n_resamples=n_resamples, confidence_level=confidence, rng=seed,
                             vectorized=True, method="bca")
    low, high = res.confidence_interval
    method = "bca (two samples)"
    if not (np.isfinite(low) and np.isfinite(high)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = _sps.bootstrap((np.arange(orig.shape[1]), np.arange(rep.shape[1])), statistic,
                                 n_resamples=n_resamples, confidence_level=confidence, rng=seed,
                                 vectorized=True, method="percentile")
        low, high = res.confidence_interval
        method = "percentile (two samples)"
    return _stats.BootstrapCI(est, float(low), float(high), float(res.standard_error),
                              n_resamples, method, confidence)


def _er_of(o, r):
    """ER from stacked [baseline, advanced] rows; broadcasts over resamples."""
    return _ratio(np.mean(r[1] - r[0], axis=-1), np.mean(o[1] - o[0], axis=-1))


def _dri_of(o, r):
    mo, mr = np.mean(o, axis=-1), np.mean(r, axis=-1)
    return _ratio(mo[1] - mo[0], mo[0]) - _ratio(mr[1] - mr[0], mr[0])


def _rmse_stat(m):  # rows: squared differences
    return np.sqrt(m[:, 0])


def _nrmse_stat(m):  # rows: squared differences, squared largest errors
    return _ratio(np.sqrt(m[:, 0]), np.sqrt(m[:, 1]))


def _er_stat(m):  # rows: orig baseline, orig advanced, rep baseline, rep advanced
    return _ratio(m[:, 3] - m[:, 2], m[:, 1] - m[:, 0])


def _dri_stat(m):
    return _ratio(m[:, 1] - m[:, 0], m[:, 0]) - _ratio(m[:, 3] - m[:, 2], m[:, 2])


def _ttest_rel_p(o: np.ndarray, r: np.ndarray) -> float:
    """The two-sided p-value of ``scipy.stats.ttest_rel(o, r)`` in scipy's own arithmetic (its
    ``ttest_1samp`` of the differences: the mean, the second central moment times n/(n-1),
    ``stdtr``), without importing scipy.stats; the tests compare the two."""
    d = np.asarray(o, dtype=np.float64) - np.asarray(r, dtype=np.float64)
    n = d.shape[-1]
    mean = np.mean(d, axis=-1)
    v = np.mean((d - np.mean(d, axis=-1, keepdims=True)) ** 2, axis=-1)
    v *= np.float64(n) / (np.float64(n) - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.divide(mean - 0.0, np.sqrt(v / n))
    return float(2 * _special.stdtr(np.float64(n - 1), -np.abs(t)))


def _ttest(o, r, paired):
    """repro_eval's test: paired (ttest_rel) or unpaired (ttest_ind) two-sided t-test of the
    original against the reproduced scores; 1.0 where scipy gives nan on identical scores."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = _ttest_rel_p(o, r) if paired else float(_sps.ttest_ind(o, r).pvalue)
    if math.isnan(p) and (np.array_equal(o, r) if paired else
                          (np.ptp(np.concatenate([o, r])) == 0)):
        p = 1.0
    return p


def effect_ci(orig_baseline, orig_advanced, rep_baseline, rep_advanced, *, paired: bool = True,
              confidence: float = 0.95, n_resamples: int = 9999, seed: int = 0) -> dict:
    """Bootstrap intervals of :func:`effect_ratio` and :func:`delta_ri` over topics.

    ``paired=True`` (reproducibility: the same topics in both experiments, in the same order)
    resamples the topics once for all four runs, with :func:`rankbook.stats.bootstrap_ci` (BCa;
    the statistic looks the four score series up by the resampled topic indices). A resample
    within 1e-9 (relative) of the estimate counts as tied with it, so that BCa's bias
    correction does not depend on rounding: the interval equals ``scipy.stats.bootstrap``'s
    (``paired=True``, the same seed) for a statistic that counts ties that way; without it,
    scipy's own interval depends on how the statistic is written (on six topics with many
    tied resamples, by up to 0.02).
    ``paired=False`` (replicability: other topics) resamples the original and the reproduced
    topics independently, with scipy's two-sample bootstrap (BCa; percentile where BCa is
    undefined). An endpoint is ``nan`` when resamples give 0/0 (no original improvement).

    Parameters
    ----------
    orig_baseline, orig_advanced : array_like of float, shape (n,)
        The original per-topic scores of the baseline and the advanced system (paired by topic).
    rep_baseline, rep_advanced : array_like of float, shape (n',)
        The reproduced ones (paired by topic; other topics allowed).
    paired : bool
        Resample the topics once for all four runs (reproducibility), or the two experiments
        independently (replicability).
    confidence : float
        The intervals' level, 0 < confidence < 1.
    n_resamples : int
        Bootstrap resamples.
    seed : int
        Seed of the resamples.

    Returns
    -------
    dict
        ``{"ER": BootstrapCI, "ΔRI": BootstrapCI}``.

    Examples
    --------
    >>> ob, oa = [0.2, 0.4, 0.3, 0.5], [0.4, 0.5, 0.5, 0.6]
    >>> rb, ra = [0.2, 0.4, 0.3, 0.5], [0.3, 0.5, 0.4, 0.6]
    >>> cis = effect_ci(ob, oa, rb, ra, n_resamples=500)
    >>> round(cis["ER"].estimate, 4) == round(effect_ratio(ob, oa, rb, ra), 4)
    True
    """
    ob, oa = _pair(orig_baseline, orig_advanced, "original")
    rb, ra = _pair(rep_baseline, rep_advanced, "reproduced")
    O, R = np.vstack([ob, oa]), np.vstack([rb, ra])
    out = {}
    for stat, fn in (("ER", _er_of), ("ΔRI", _dri_of)):
        if paired:
            if O.shape != R.shape:
                raise ValueError(f"paired=True needs the same topics in both experiments, got "
                                 f"{O.shape[1]} and {R.shape[1]}")
            out[stat] = _case(_index_ci(np.vstack([O, R])[None],
                                        _er_stat if stat == "ER" else _dri_stat,
                                        confidence, n_resamples, seed), 0)
        else:
            out[stat] = _two_sample_ci(O, R, fn, confidence, n_resamples, seed)
    return out


@dataclass
class Reproduction:
    """What :func:`reproduce` returns.

    ``per_topic``: one row per system, topic and measure (``level``: order, effectiveness);
    columns ``level, system, query_id, measure, orig, rep, value``. For order rows ``value``
    is KTU or RBO of the topic; for effectiveness rows ``orig`` and ``rep`` are the scores and
    ``value`` their difference (rep - orig; ``nan`` for replicability, where topics differ).

    ``aggregate``: one row per statistic, system and measure; columns ``level, system, measure,
    statistic, value, low, high, standard_error, n_topics, p_value, test, interval``.
    """

    kind: str
    per_topic: pd.DataFrame
    aggregate: pd.DataFrame
    metadata: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)

    def report(self, digits: int = 4) -> str:
        """The aggregate table as plain text, with the runs' ir_metadata below it."""
        f = f"{{:.{digits}f}}".format
        rows = []
        for r in self.aggregate.itertuples():
            if np.isnan(r.low) and np.isnan(r.high):
                ci = ""
            elif np.isnan(r.low) or np.isnan(r.high):
                ci = "undefined (0/0 in resamples)"
            else:
                ci = f"[{f(r.low)}, {f(r.high)}]"
            p = "" if np.isnan(r.p_value) else f"{_stats.format_p(r.p_value, digits)} ({r.test})"
            value = f(r.value) if np.isfinite(r.value) else _UNDEFINED.get(
                r.statistic, "undefined (division by 0)")
            rows.append((r.level, r.system, r.measure, r.statistic, value, ci, p))
        widths = [max(len(str(x[i])) for x in rows + [("level", "system", "measure",
                                                       "statistic", "value", "interval", "test")])
                  for i in range(7)]
        head = ("level", "system", "measure", "statistic", "value",
                f"{self.settings.get('confidence', 0.95):.0%} interval", "test")
        lines = [f"{self.kind.capitalize()}: {self.settings.get('summary', '')}".rstrip()]
        lines += [f"Note: {n}" for n in self.settings.get("notes", ())]
        lines.append("")
        for row in [head, *rows]:
            lines.append("  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip())
        for name, meta in self.metadata.items():
            if meta is None:
                continue
            lines += ["", f"ir_metadata of {name}:"]
            if meta.fields is None:
                lines += [f"  ({meta.note})", *(f"  {t}" for t in meta.text.splitlines())]
            else:
                lines += [f"  {k}: {v}" for k, v in meta.flat()]
        return "\n".join(lines)


def _scores(qrels, run, measures, conv) -> pd.DataFrame:
    pq = _conv.evaluate_run(qrels, run, measures, convention=conv).per_query
    wide = pq.pivot(index="query_id", columns="measure", values="value")
    return wide.loc[pd.unique(pq["query_id"]), list(measures)]  # evaluate_run's topic order


def _same_topics(ta: set, tb: set, what_a: str, what_b: str):
    """Refuse two tables scored (or runs written) for different topics, naming them."""
    if ta != tb:
        only_a, only_b = sorted(ta - tb), sorted(tb - ta)
        parts = []
        if only_a:
            parts.append(f"{what_a} only: {', '.join(only_a[:5])}{' ...' if len(only_a) > 5 else ''}")
        if only_b:
            parts.append(f"{what_b} only: {', '.join(only_b[:5])}{' ...' if len(only_b) > 5 else ''}")
        raise ValueError(f"{what_a} and {what_b} are scored on different topics ({'; '.join(parts)})"
                         "; they must cover the same topics")


def _options(convention, measures, ktu_convention, rbo_form, order, confidence, n_resamples):
    """The profile and the measures, every option checked before any input is read."""
    conv = _conv.profile(convention)
    _stats._check_resamples(n_resamples, _stats._check_confidence(confidence))
    check_choice(ktu_convention, KTU_CONVENTIONS, "ktu_convention")
    check_choice(rbo_form, RBO_FORMS, "rbo_form")
    check_choice(order, ORDERS, "order")
    wanted = ([m.strip() for m in measures.split(",")] if isinstance(measures, str)
              else list(measures))
    for m in wanted:
        _conv.parse_measure(m, conv)
    return conv, wanted


class _Run:
    """One run as :func:`reproduce` uses it: ``scored`` goes to the scorer (the table read from
    a file, read once, or the tidy run); ``table`` is that table (None for other spellings);
    ``frame`` is the tidy run (scores; minus the ranks of an explicit order), built from the
    table only if asked for."""

    def __init__(self, scored, frame=None, table=None):
        self.scored, self.table, self._frame = scored, table, frame

    @property
    def frame(self) -> pd.DataFrame:
        if self._frame is None:
            self._frame = self.table.frame()
            self._frame.attrs[_TIDY] = True  # read and checked by the reader: not again
        return self._frame

    def topics(self) -> set:
        if self._frame is None and self.table is not None:
            return set(self.table.qnames.tolist())
        return set(pd.unique(self.frame["query_id"]))


def _read_run(run, key: str, order: str) -> _Run:
    """A run given as a file (read once, by the one reader), a table already read, a tidy
    DataFrame, a dict or lists."""
    table = None
    if _tf._is_file(run):
        table = _tf.read_table(run, "run", order=order)
    elif isinstance(run, _tf.TrecTable):
        table = run
        if (order == "rank") != (table.what == "run_rank"):
            raise ValueError(f"{key}: {table.name} was read by its "
                             f"{'ranks' if table.what == 'run_rank' else 'scores'}; read it "
                             f"with order={order!r}")
    if table is not None:
        if order == "rank":
            frame = explicit_order(table.frame(), f"{table.name} ({key})")
            return _Run(frame, frame, table)
        return _Run(table, None, table)
    if order == "rank" and not (isinstance(run, pd.DataFrame) and run.attrs.get(_TIDY)):
        frame = explicit_order(run, key)
    else:
        frame = _as_run(run)
    return _Run(frame, frame)


def _read_qrels(qrels):
    """Judgements given as a file (read once), a table already read, or any other spelling."""
    if _tf._is_file(qrels):
        return _tf.read_table(qrels, "qrels")
    if isinstance(qrels, _tf.TrecTable):
        return qrels
    return _as_qrels(qrels)


def _check_topics(topics: dict, systems, paired: bool) -> None:
    """Refuse runs of one experiment, or (paired) an original run and its reproduction, that
    cover different topics (``topics``: the topics of each run or score table), naming them."""
    # the runs' own topics first: a run short of a topic is named as such, before a profile
    # that refuses a judged topic missing from one run (trec_eval 10.0) says it otherwise
    for exp in ("orig", "rep"):
        if topics.get(f"{exp}_advanced") is not None:
            _same_topics(topics[f"{exp}_baseline"], topics[f"{exp}_advanced"],
                         f"{exp}_baseline", f"{exp}_advanced")
    if paired:
        for s in systems:
            _same_topics(topics[f"orig_{s}"], topics[f"rep_{s}"], f"orig_{s}", f"rep_{s}")


class _Aggregate:
    """The rows of the aggregate table, added one statistic at a time."""

    COLUMNS = ["level", "system", "measure", "statistic", "value", "low", "high",
               "standard_error", "n_topics", "p_value", "test", "interval"]

    def __init__(self):
        self.rows = []

    def add(self, level, system, measure, statistic, ci, n, p=float("nan"), test=""):
        self.rows.append(dict(level=level, system=system, measure=measure, statistic=statistic,
                              value=float(ci.estimate), low=float(ci.low), high=float(ci.high),
                              standard_error=float(ci.standard_error), n_topics=n, p_value=p,
                              test=test, interval=(ci.method if np.isfinite(ci.low)
                                                   or np.isfinite(ci.high) else "none")))

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=self.COLUMNS)


def _order_level(runs, scores, systems, agg, topic_rows, *, ktu_convention, rbo_p, rbo_form,
                 rbo_depth, ci_args):
    """KTU and RBO per topic of each system's original and reproduced run, and their means
    with bootstrap intervals (reproducibility only: the same topics)."""
    means = []  # (system, KTU or RBO, finite per-topic values)
    for s in systems:
        topics = [q for q in scores[f"orig_{s}"].index]
        if ktu_convention == "union" and rbo_form == "ext" and rbo_depth is None:
            kt, rb = _order_by_topic(runs[f"orig_{s}"], runs[f"rep_{s}"], topics,
                                     _check_p(rbo_p))
        else:
            pair = (runs[f"orig_{s}"].frame, runs[f"rep_{s}"].frame)
            if ktu_convention == "union":  # integer codes shared by the pair: the
                codes = pd.factorize(pd.concat([r["doc_id"] for r in pair]))[0]  # measures
                n0 = len(pair[0])  # ignore names
                ro, rr = _ranked(pair[0], codes[:n0]), _ranked(pair[1], codes[n0:])
            else:  # repro_eval's KTU depends on the names
                ro, rr = _ranked(pair[0]), _ranked(pair[1])
            kt, rb = [], []
            for q in topics:
                a, b = ro.get(q, []), rr.get(q, [])
                kt.append(ktu(a, b, convention=ktu_convention) if len(a) and len(b)
                          else float("nan"))
                rb.append(rbo(a, b, rbo_p, form=rbo_form, depth=rbo_depth))
        for name, vals in (("KTU", kt), ("RBO", rb)):
            topic_rows.append(pd.DataFrame(dict(level="order", system=s, query_id=topics,
                                                measure=name, orig=np.nan, rep=np.nan,
                                                value=vals)))
            v = np.asarray(vals, dtype=np.float64)
            means.append((s, name, v[np.isfinite(v)]))
    # the mean of each (one bootstrap each; the series of one length share the draws)
    cis = _stats._bootstrap_ci_of_mean_series([v for *_, v in means if len(v) >= 2],
                                              **ci_args)[::-1]
    for s, name, v in means:
        if len(v) >= 2:
            agg.add("order", s, name, f"{name} mean", cis.pop(), len(v))
        else:
            agg.add("order", s, name, f"{name} mean", _stats.BootstrapCI(
                float(v.mean()) if len(v) else np.nan, np.nan, np.nan, np.nan,
                ci_args["n_resamples"], "-", ci_args["confidence"]), len(v))


def _effectiveness_level(scores, systems, wanted, paired, agg, topic_rows, ci_args) -> list:
    """Per-topic scores of each system and measure, and (replicability) the means of each
    experiment with the unpaired t-test; returns the paired cases for RMSE and nRMSE:
    ``(system, measure, n, p, [squared errors, squared largest errors])``."""
    batch = []
    for s in systems:
        so, sr = scores[f"orig_{s}"], scores[f"rep_{s}"]
        if paired:
            sr = sr.loc[so.index]
        for m in wanted:
            o, r = so[m].to_numpy(np.float64), sr[m].to_numpy(np.float64)
            if paired:
                topic_rows.append(pd.DataFrame(dict(level="effectiveness", system=s,
                                                    query_id=list(so.index), measure=m, orig=o,
                                                    rep=r, value=r - o)))
                if len(o) >= 2:
                    batch.append((s, m, len(o), _ttest(o, r, True),
                                  np.vstack([(o - r) ** 2, np.maximum(o, 1 - o) ** 2])))
            else:
                topic_rows.append(pd.DataFrame(dict(level="effectiveness", system=s,
                                                    query_id=list(so.index), measure=m, orig=o,
                                                    rep=np.nan, value=np.nan)))
                topic_rows.append(pd.DataFrame(dict(level="effectiveness", system=s,
                                                    query_id=list(sr.index), measure=m,
                                                    orig=np.nan, rep=r, value=np.nan)))
                for stat, vals in (("mean (original)", o), ("mean (reproduced)", r)):
                    if len(vals) >= 2:
                        agg.add("effectiveness", s, m, stat, _stats.bootstrap_ci(vals, **ci_args),
                                len(vals), _ttest(o, r, False), "unpaired t-test")
    return batch


def _errors_and_effects(scores, wanted, paired, batch, agg, ci_args) -> None:
    """RMSE and nRMSE (paired), ER and ΔRI, with intervals: one set of resamples of the topics
    for every RMSE, nRMSE, ER and ΔRI (paired: the same topics throughout; the same intervals
    as one bootstrap each with the same seed)."""
    cases = {}
    if batch:
        data = np.stack([x for *_, x in batch])
        cases["RMSE"] = (data[:, :1], _rmse_stat)
        cases["nRMSE"] = (data, _nrmse_stat)
    effects = "orig_advanced" in scores
    if effects:
        ob, oa = scores["orig_baseline"], scores["orig_advanced"].loc[scores["orig_baseline"].index]
        rb, ra = scores["rep_baseline"], scores["rep_advanced"].loc[scores["rep_baseline"].index]
        effects = min(len(ob), len(rb)) >= 2
        if effects and paired:
            data = np.stack([np.vstack([ob[m], oa[m], rb[m], ra[m]]).astype(np.float64)
                             for m in wanted])
            cases["ER"] = (data, _er_stat)
            cases["ΔRI"] = (data, _dri_stat)
    cis = dict(zip(cases, _index_cis(list(cases.values()), **ci_args))) if cases else {}
    for i, (s, m, n, p, _) in enumerate(batch):
        for stat in ("RMSE", "nRMSE"):
            agg.add("effectiveness", s, m, stat, _case(cis[stat], i), n, p, "paired t-test")
    if not effects:
        return
    n = len(ob) if paired else len(ob) + len(rb)
    if paired:
        for i, m in enumerate(wanted):
            for stat in ("ER", "ΔRI"):
                agg.add("effect", "advanced vs baseline", m, stat, _case(cis[stat], i), n)
    else:
        for m in wanted:
            for stat, ci in effect_ci(ob[m], oa[m], rb[m], ra[m], paired=False,
                                      **ci_args).items():
                agg.add("effect", "advanced vs baseline", m, stat, ci, n)


def reproduce(orig_baseline, orig_advanced, rep_baseline, rep_advanced, qrels, *,
              qrels_rep=None, measures: str | Sequence[str] = ("AP", "nDCG@10"),
              convention: str = "trec_eval", ktu_convention: str = "union", rbo_p: float = 0.95,
              rbo_form: str = "ext", rbo_depth: int | None = None, confidence: float = 0.95,
              n_resamples: int = 9999, seed: int = 0, names: Mapping | None = None,
              order: str = "score") -> Reproduction:
    """Every reproducibility measure of an original and a reproduced pair of runs.

    Parameters
    ----------
    orig_baseline, orig_advanced, rep_baseline, rep_advanced : path, table, dict or DataFrame
        The four runs (TREC run files, each read once by
        :func:`rankbook.trec_format.read_table`, or tables it read; ``{query: {doc: score}}``
        or tidy DataFrames). ``orig_advanced`` and ``rep_advanced`` may be ``None`` (no
        effects then).
    qrels : path, table, dict or DataFrame
        The judgements of the original topics.
    qrels_rep : optional
        Judgements of other topics: replicability (unpaired); default reproducibility (paired,
        the reproduced runs scored against ``qrels``).
    measures : str or sequence of str
        ir_measures names, any that :func:`rankbook.conventions.evaluate_run` knows under
        ``convention``.
    convention : str
        A profile of :data:`rankbook.conventions.CONVENTIONS` (repro_eval scores as trec_eval).
    ktu_convention, rbo_p, rbo_form, rbo_depth
        As in :func:`ktu` and :func:`rbo`.
    confidence, n_resamples, seed
        Of the bootstrap intervals over topics (:func:`rankbook.stats.bootstrap_ci`).
    names : mapping, optional
        Display names of the four runs in the report (keys ``orig_baseline``, ...).
    order : {"score", "rank"}
        ``"rank"``: every run is an explicit order (:func:`explicit_order`: a TREC run's rank
        column, a DataFrame's ``rank`` column, or lists), scored and compared as given, with no
        tie rule, under every profile.

    Returns
    -------
    Reproduction

    Raises
    ------
    ValueError
        Unknown options, or runs scored on different topics (naming them).

    Examples
    --------
    >>> qrels = {"1": {"a": 1, "b": 0, "c": 1}, "2": {"a": 0, "d": 1}, "3": {"e": 1}}
    >>> ob = {"1": {"b": 3, "a": 2, "c": 1}, "2": {"a": 2, "d": 1}, "3": {"x": 2, "e": 1}}
    >>> oa = {"1": {"a": 3, "c": 2, "b": 1}, "2": {"d": 2, "a": 1}, "3": {"e": 2, "x": 1}}
    >>> res = reproduce(ob, oa, ob, oa, qrels, measures="AP", n_resamples=200)
    >>> res.aggregate.set_index(["system", "statistic"]).loc["advanced", "value"].round(4)
    statistic
    KTU mean    1.0
    RBO mean    1.0
    RMSE        0.0
    nRMSE       0.0
    Name: value, dtype: float64
    """
    conv, wanted = _options(convention, measures, ktu_convention, rbo_form, order, confidence,
                            n_resamples)
    paired = qrels_rep is None
    kind = "reproducibility" if paired else "replicability"
    given = {"orig_baseline": orig_baseline, "orig_advanced": orig_advanced,
             "rep_baseline": rep_baseline, "rep_advanced": rep_advanced}
    if orig_baseline is None or rep_baseline is None:
        raise ValueError("both baselines are needed: orig_baseline and rep_baseline")
    if (orig_advanced is None) != (rep_advanced is None):
        missing = "orig_advanced" if orig_advanced is None else "rep_advanced"
        raise ValueError(f"{missing} is missing: the effects compare the advanced run with the "
                         "baseline in both experiments; give both advanced runs or neither")
    systems = _SYSTEMS if orig_advanced is not None else _SYSTEMS[:1]
    label = dict(names or {})
    runs, metadata = {}, {}
    for key, run in given.items():  # each input read once, here
        if run is None:
            continue
        runs[key] = _read_run(run, key, order)
        if runs[key].table is not None:
            metadata[label.get(key, runs[key].table.name)] = read_ir_metadata(runs[key].table)
    qrels_o = _read_qrels(qrels)
    qrels_r = qrels_o if paired else _read_qrels(qrels_rep)
    _check_topics({k: r.topics() for k, r in runs.items()}, systems, paired)
    scores = {key: _scores(qrels_o if key.startswith("orig") else qrels_r, r.scored, wanted,
                           conv) for key, r in runs.items()}
    _check_topics({k: set(v.index) for k, v in scores.items()}, systems, paired)
    ci_args = dict(confidence=confidence, n_resamples=n_resamples, seed=seed)
    topic_rows, agg = [], _Aggregate()
    if paired:  # the order of documents: the same topics only
        _order_level(runs, scores, systems, agg, topic_rows, ktu_convention=ktu_convention,
                     rbo_p=rbo_p, rbo_form=rbo_form, rbo_depth=rbo_depth, ci_args=ci_args)
    batch = _effectiveness_level(scores, systems, wanted, paired, agg, topic_rows, ci_args)
    _errors_and_effects(scores, wanted, paired, batch, agg, ci_args)
    per_topic = (pd.concat(topic_rows, ignore_index=True) if topic_rows else
                 pd.DataFrame(columns=["level", "system", "query_id", "measure", "orig", "rep",
                                       "value"]))
    n_o = len(scores["orig_baseline"])
    n_r = len(scores["rep_baseline"])
    rbo_words = {"ext": "extrapolated", "base": "prefix sum",
                 "truncated": "truncated and normalised"}[rbo_form]
    summary = (f"{len(wanted)} measure(s) under {conv.name}'s conventions"
               + (" (trec_eval 10.0)" if conv.name == "trec_eval" else
                  " (trec_eval 9.0.8)" if conv.name == "trec_eval_9" else "")
               + ", " + (f"{n_o} topics paired" if paired else f"{n_o} original and {n_r} other topics")
               + (f"; KTU {'over the union' if ktu_convention == 'union' else 'as repro_eval'}, "
                  f"RBO {rbo_words}" + (f" to depth {rbo_depth}" if rbo_depth is not None else "")
                  + f", p = {rbo_p:g}" if paired else "")
               + ("; every run an explicit order (its ranks, no tie rule)" if order == "rank" else ""))
    settings = dict(measures=wanted, convention=conv.name, order=order, ktu_convention=ktu_convention,
                    rbo_p=rbo_p, rbo_form=rbo_form, rbo_depth=rbo_depth, confidence=confidence,
                    n_resamples=n_resamples, seed=seed, summary=summary)
    return Reproduction(kind, per_topic, agg.frame(), metadata, settings)
