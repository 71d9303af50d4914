r"""Ties: the three tie rules, weak orders, and exact expected values over tie-breakings.

Two rankings with ties can be scored in three ways, and every measure of rankbook that can meet
a tie takes the same keyword ``ties``:

``"optimistic"``
    the best value the measure takes over all orders of the tied items (the largest, or the
    smallest for a measure where lower is better);
``"pessimistic"``
    the worst value over all those orders;
``"expected"``
    the exact mean over all orders of the tied items, every order equally likely and the ties
    of two rankings broken independently. It is computed in closed form wherever the measure
    allows (McSherry and Najork {cite}`mcsherry2008computing` for AP, nDCG, RR and P@k; the
    derivations for the others are in each function's docstring). No Monte Carlo is ever used.

Where the order of the tied items matters to a measure through one reference only (the IR
measures: relevance; the item metrics of :mod:`rankbook.metrics`: the other ranking), the best
order is the one that sorts the tied items *as the reference* and the worst the one that sorts
them *against* it; :mod:`rankbook.tied_metrics` lists the metrics where that is not so.

Weak orders
-----------
A ranking with ties is written as a list whose entries are items or *sets* of tied items,
best first: ``["a", {"b", "c"}, "d"]`` ranks ``a`` first, ``b`` and ``c`` tied on positions 2
and 3, ``d`` fourth. A tie group occupies as many positions as it holds items. As text (on the
command line, in a notebook parameter) tie groups are written in braces:
``"a {b c} d"`` (labels separated by spaces), or ``"a{bc}d"`` when every label is one character
(:func:`parse_ranking`; :func:`rankbook.consensus.format_ranking` writes the first form).

The 33 metrics of :mod:`rankbook.metrics` number the items ``1..n`` and take permutations in
one-line notation; a weak order of ``1..n`` is then either such a list with sets
(``[3, {1, 4}, 2]``) or, for a batch, a :class:`WeakOrder`: one tie-breaking ``order`` plus the
tie-group label of every position (``blocks``, non-decreasing along the ranking).
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass

import numpy as np

from ._validation import check_choice
from .permutations import _as_int_array, _check_perm

__all__ = [
    "TIES",
    "ALIASES",
    "MAX_TIE_BREAKINGS",
    "check_ties",
    "parse_ranking",
    "check_ranking_texts",
    "check_tie_free_texts",
    "WeakOrder",
    "tie_breakings",
    "n_tie_breakings",
]

#: The three tie rules shared by every tie-aware measure.
TIES = ("optimistic", "pessimistic", "expected")

#: Older names that stay valid: ``"average"`` (scikit-learn's word, and the name this package used
#: for the tie-averaged DCG before version 0.3) is the same thing as ``"expected"``.
ALIASES = {"average": "expected"}

#: Largest number of tie-breakings a measure without a tractable closed form (the RMSE's expected
#: value, the extremes of the position-wise error metrics when both rankings have ties) enumerates
#: for one pair of rankings. Beyond it the measure raises ``ValueError`` instead of sampling.
MAX_TIE_BREAKINGS = 200_000


def check_ties(ties, extra=(), allow_none: bool = False):
    """Validate a tie rule and return its canonical name (aliases resolved).

    ``extra`` lists further rules a caller accepts besides :data:`TIES` (``"order"`` for the IR
    measures). ``allow_none`` lets ``None`` through (meaning: the inputs must have no ties).

    Parameters
    ----------
    ties : object
        The tie rule to check.
    extra : iterable of str
        Further rules the caller accepts.
    allow_none : bool
        Let ``None`` through.

    Returns
    -------
    str or None
        The canonical rule (``"average"`` becomes ``"expected"``).

    Examples
    --------
    >>> check_ties("average"), check_ties("optimistic")
    ('expected', 'optimistic')
    >>> check_ties("random")
    Traceback (most recent call last):
    ...
    ValueError: ties must be one of 'optimistic', 'pessimistic', 'expected' (or the alias 'average' of 'expected'); got 'random'
    """
    return check_choice(ties, tuple(TIES) + tuple(extra), "ties", aliases=ALIASES,
                        allow_none=allow_none, none_means="no ties allowed")


# --------------------------------------------------------------------------------------------
# the text notation


def parse_ranking(text: str) -> list:
    """A ranking written as text, with tie groups in braces, as a list with sets.

    Labels are separated by white space (``"a {b c} d"``); a text without white space is read one
    character per label (``"a{bc}d"``), as a plain ``str`` ranking is everywhere in rankbook.
    Braces may not nest, must close, and may not be empty; a label may not repeat.

    Parameters
    ----------
    text : str
        The ranking, best first, tie groups in braces.

    Returns
    -------
    list
        Labels (str) and sets of tied labels.

    Examples
    --------
    >>> parse_ranking("a{bc}d") == ["a", {"b", "c"}, "d"]
    True
    >>> parse_ranking("red {blue green} yellow") == ["red", {"blue", "green"}, "yellow"]
    True
    >>> parse_ranking("a{b")
    Traceback (most recent call last):
    ...
    ValueError: ranking 'a{b': the brace opened at character 2 is never closed
    """
    if not isinstance(text, str):
        raise ValueError(f"a ranking as text must be a str, got {type(text).__name__}")
    spaced = any(ch.isspace() for ch in text)
    if spaced:
        tokens = text.replace("{", " { ").replace("}", " } ").split()
    else:
        tokens = list(text)
    out: list = []
    group = None
    opened = 0
    seen: set = set()
    where = 0
    for tok in tokens:
        where = text.find(tok, where) + 1 if tok else where
        if tok == "{":
            if group is not None:
                raise ValueError(f"ranking {text!r}: tie groups cannot nest (brace at character {where})")
            group, opened = [], where
        elif tok == "}":
            if group is None:
                raise ValueError(f"ranking {text!r}: the brace at character {where} closes no group")
            if not group:
                raise ValueError(f"ranking {text!r}: empty tie group {{}} at character {opened}")
            out.append(set(group) if len(group) > 1 else group[0])
            group = None
        else:
            if tok in seen:
                raise ValueError(f"ranking {text!r}: item {tok!r} occurs more than once")
            seen.add(tok)
            (out if group is None else group).append(tok)
    if group is not None:
        raise ValueError(f"ranking {text!r}: the brace opened at character {opened} is never closed")
    return out


def check_ranking_texts(value) -> None:
    """Check rankings given as text on the command line: each ``str`` (or each ``str`` of a
    list) must read with :func:`parse_ranking` when it holds a brace. ``ValueError`` naming the
    problem otherwise (``rankbook run`` then exits with status 2 before any kernel starts).

    Parameters
    ----------
    value : str or list of str
        The parameter's value.

    Raises
    ------
    ValueError
        Naming the ranking and the misplaced brace.

    Examples
    --------
    >>> check_ranking_texts(["a{bc}d", "abcd"])
    >>> check_ranking_texts("a}bc")
    Traceback (most recent call last):
    ...
    ValueError: ranking 'a}bc': the brace at character 2 closes no group
    """
    texts = [value] if isinstance(value, str) else list(value)
    for text in texts:
        if isinstance(text, str) and ("{" in text or "}" in text):
            parse_ranking(text)


def check_tie_free_texts(value) -> None:
    """Refuse a tie group (a brace) in rankings given as text where a page takes tie-free lists.

    Parameters
    ----------
    value : str or list of str
        The parameter's value.

    Raises
    ------
    ValueError
        When a ranking holds a tie group.

    Examples
    --------
    >>> check_tie_free_texts("a{bc}d")
    Traceback (most recent call last):
    ...
    ValueError: 'a{bc}d' holds a tie group (braces): this parameter takes a tie-free list; give rankings with ties to the parameters that take them (rankbook list NAME)
    """
    texts = [value] if isinstance(value, str) else list(value)
    for text in texts:
        if isinstance(text, str) and ("{" in text or "}" in text):
            raise ValueError(
                f"{text!r} holds a tie group (braces): this parameter takes a tie-free list; give "
                "rankings with ties to the parameters that take them (rankbook list NAME)"
            )


# --------------------------------------------------------------------------------------------
# weak orders of 1..n for the permutation metrics


def _as_int(x, name):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Integral, np.integer)):
        raise ValueError(f"{name} holds {x!r}: items of a weak order of 1..n are integers")
    return int(x)


@dataclass(frozen=True)
class WeakOrder:
    """Rankings of the items ``1..n`` with ties, one or a batch.

    Attributes
    ----------
    order : ndarray of int64, shape (..., n)
        One tie-breaking in one-line notation: ``order[..., i]`` is the item at position ``i + 1``.
    blocks : ndarray of int64, shape (..., n)
        Tie-group label of each position, non-decreasing along the last axis; positions with the
        same label hold tied items (``[0, 1, 1, 2]``: positions 2 and 3 tied). Stored relabelled
        as ``0, 1, 2, ...`` within each ranking.

    Build one with ``WeakOrder(order, blocks)``, :meth:`from_list` (``[3, {1, 4}, 2]``) or
    :meth:`from_ranks` (a rank per item, tied items sharing a rank, as ``scipy.stats.rankdata``
    gives). ``order`` is checked to be a permutation of ``1..n`` in every row.

    Examples
    --------
    >>> w = WeakOrder.from_list([3, {1, 4}, 2])
    >>> w.order.tolist(), w.blocks.tolist()
    ([3, 1, 4, 2], [0, 1, 1, 2])
    >>> WeakOrder.from_ranks([2, 4, 1, 2]).to_list()
    [3, {1, 4}, 2]
    """

    order: np.ndarray
    blocks: np.ndarray

    def __post_init__(self):
        order = _as_int_array(self.order, "order")
        _check_perm(order, "order")
        blocks = _as_int_array(self.blocks, "blocks")
        if blocks.shape[-1:] != order.shape[-1:]:
            raise ValueError(
                f"blocks must label each of the n={order.shape[-1]} positions, got shape {blocks.shape}"
            )
        try:
            shape = np.broadcast_shapes(order.shape, blocks.shape)
        except ValueError:
            raise ValueError(f"order {order.shape} and blocks {blocks.shape} do not broadcast") from None
        order, blocks = np.broadcast_to(order, shape), np.broadcast_to(blocks, shape)
        step = np.diff(blocks, axis=-1)
        if np.any(step < 0):
            raise ValueError(
                "blocks must be non-decreasing along each ranking (tied positions are consecutive), "
                f"e.g. [0, 1, 1, 2]; got {blocks.tolist() if blocks.ndim == 1 else 'a decreasing row'}"
            )
        labels = np.concatenate([np.zeros(shape[:-1] + (1,), np.int64), np.cumsum(step > 0, axis=-1)], axis=-1)
        object.__setattr__(self, "order", np.ascontiguousarray(order, dtype=np.int64))
        object.__setattr__(self, "blocks", labels.astype(np.int64))

    @classmethod
    def from_list(cls, ranking) -> "WeakOrder":
        """One weak order written as a list whose entries are items or sets of tied items.

        The items must be ``1..n``, each once. The order inside a set does not matter; it is
        stored sorted.
        """
        if isinstance(ranking, (str, bytes)):
            raise ValueError("a weak order of 1..n is a list of integers and sets of integers, not a str")
        order, blocks = [], []
        for j, entry in enumerate(ranking):
            if isinstance(entry, (set, frozenset)):
                if not entry:
                    raise ValueError(f"entry {j} is an empty tie group")
                group = sorted(_as_int(x, f"tie group {j}") for x in entry)
            elif isinstance(entry, (list, tuple, dict, np.ndarray)):
                raise ValueError(
                    f"entry {j} is a {type(entry).__name__}: write a tie group as a set, e.g. [3, {{1, 4}}, 2]"
                )
            else:
                group = [_as_int(entry, f"entry {j}")]
            order.extend(group)
            blocks.extend([j] * len(group))
        if not order:
            raise ValueError("the ranking is empty")
        return cls(np.array(order), np.array(blocks))

    @classmethod
    def from_ranks(cls, ranks) -> "WeakOrder":
        """A weak order from the rank of each item: ``ranks[x - 1]`` is item ``x``'s rank
        (smaller is better; equal ranks are tied), any real numbers, shape ``(..., n)``."""
        r = np.asarray(ranks, dtype=float)
        if r.ndim == 0 or r.shape[-1] == 0:
            raise ValueError("ranks must hold one rank per item, shape (..., n)")
        if not np.all(np.isfinite(r)):
            raise ValueError("ranks must be finite numbers")
        idx = np.argsort(r, axis=-1, kind="stable")
        sorted_r = np.take_along_axis(r, idx, axis=-1)
        blocks = np.concatenate(
            [np.zeros(r.shape[:-1] + (1,), np.int64), np.cumsum(np.diff(sorted_r, axis=-1) > 0, axis=-1)], axis=-1
        )
        return cls(idx + 1, blocks)

    @property
    def n(self) -> int:
        return self.order.shape[-1]

    @property
    def has_ties(self) -> np.ndarray:
        """Whether each ranking of the batch has a tie (bool array of the batch shape)."""
        return np.any(np.diff(self.blocks, axis=-1) == 0, axis=-1)

    def to_list(self) -> list:
        """The (single) weak order as a list with sets; ``ValueError`` for a batch."""
        if self.order.ndim != 1:
            raise ValueError("to_list needs a single weak order (order of shape (n,))")
        out: list = []
        for b in np.unique(self.blocks):
            items = self.order[self.blocks == b].tolist()
            out.append(set(items) if len(items) > 1 else items[0])
        return out


def as_weak_order(x, name: str):
    """``x`` as a :class:`WeakOrder` if it is one or a list holding sets, else ``None``.

    ``None`` means: a plain permutation (or a batch of them), to be validated by the caller.

    Parameters
    ----------
    x : object
        A ranking, a batch, a list holding sets, or a :class:`WeakOrder`.
    name : str
        The argument's name, for the messages.

    Returns
    -------
    WeakOrder or None
    """
    if isinstance(x, WeakOrder):
        return x
    if isinstance(x, (list, tuple)) and any(isinstance(e, (set, frozenset)) for e in x):
        try:
            return WeakOrder.from_list(x)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None
    return None


# --------------------------------------------------------------------------------------------
# enumeration


def _groups(blocks_row):
    cuts = np.flatnonzero(np.diff(blocks_row)) + 1
    return np.split(np.arange(blocks_row.shape[0]), cuts)


def n_tie_breakings(blocks) -> int:
    """How many orders a weak order (its ``blocks`` row) allows: the product of ``g!`` over its
    tie groups of ``g`` positions.

    Parameters
    ----------
    blocks : array_like of int, shape (n,)
        The tie-group label of each position (:attr:`WeakOrder.blocks`).

    Returns
    -------
    int

    Examples
    --------
    >>> n_tie_breakings([0, 1, 1, 2, 2, 2])
    12
    """
    b = np.asarray(blocks)
    return math.prod(math.factorial(len(g)) for g in _groups(b))


def tie_breakings(ranking, limit: int = MAX_TIE_BREAKINGS) -> list:
    """Every order of the tied items of one ranking written as a list with sets.

    The orders come in a fixed (lexicographic) order; a set's items are first sorted (by their
    ``repr`` when they do not compare). Raises ``ValueError`` when there are more than ``limit``.

    Parameters
    ----------
    ranking : list
        Items and sets of tied items, best first.
    limit : int
        The most orders returned.

    Returns
    -------
    list of list
        Every order, each a list of items.

    Examples
    --------
    >>> tie_breakings(["a", {"b", "c"}])
    [['a', 'b', 'c'], ['a', 'c', 'b']]
    """
    entries = parse_ranking(ranking) if isinstance(ranking, str) and "{" in ranking else list(ranking)
    groups = []
    for e in entries:
        if isinstance(e, (set, frozenset)):
            try:
                groups.append(sorted(e))
            except TypeError:
                groups.append(sorted(e, key=repr))
        else:
            groups.append([e])
    count = math.prod(math.factorial(len(g)) for g in groups)
    if count > limit:
        raise ValueError(
            f"the ranking has {count} tie-breakings, more than the limit {limit} for exact enumeration"
        )
    return [[x for part in choice for x in part]
            for choice in itertools.product(*(itertools.permutations(g) for g in groups))]


def _row_tie_breakings(order_row, blocks_row) -> np.ndarray:
    """All orders of one :class:`WeakOrder` row, shape (count, n), in lexicographic order of the
    groups' permutations."""
    order_row = np.asarray(order_row)
    groups = [g for g in _groups(np.asarray(blocks_row)) if g.shape[0] > 1]
    perms = [np.array(list(itertools.permutations(order_row[g]))) for g in groups]
    counts = [p.shape[0] for p in perms]
    total = math.prod(counts)
    out = np.repeat(order_row[None, :].astype(np.int64), total, axis=0)
    if groups:
        idx = np.unravel_index(np.arange(total), counts)
        for g, p, i in zip(groups, perms, idx):
            out[:, g] = p[i]
    return out


# --------------------------------------------------------------------------------------------
# tied scores in a padded batch (the IR measures)


class ScoreBlocks:
    """Tie groups of a padded batch of lists ranked by decreasing score.

    Built from the scores (``(m, w)``, finite) and the valid-position mask; the padding is
    ranked last in a group of its own. Exposes, for every position of the *ranked* rows, the
    group's start column (``start``), size (``size``), the position's offset in its group
    (``offset``), and ``sum(x)``, the group sum of a per-position quantity (summed exactly in
    position order, so that a group of one returns the value itself).
    """

    def __init__(self, scores: np.ndarray, valid: np.ndarray):
        m, w = scores.shape
        key = np.where(valid, -scores, np.inf)
        self.order = np.argsort(key, axis=1, kind="stable")
        skey = np.take_along_axis(key, self.order, axis=1)
        new = np.ones((m, w), dtype=bool)
        if w:
            new[:, 1:] = skey[:, 1:] != skey[:, :-1]
        flat = new.ravel()
        self._starts = np.flatnonzero(flat)
        self._id = np.cumsum(flat) - 1
        sizes = np.diff(np.append(self._starts, flat.size))
        self.size = sizes[self._id].reshape(m, w)
        row0 = np.repeat(np.arange(m, dtype=np.int64) * w, w)
        self.start = (self._starts[self._id] - row0).reshape(m, w)
        self.offset = np.arange(w)[None, :] - self.start
        self.tied_rows = np.any((self.size > 1) & np.take_along_axis(valid, self.order, axis=1), axis=1)

    def ranked(self, x: np.ndarray) -> np.ndarray:
        """``x`` (aligned with the input rows) in ranked order (ties in input order)."""
        return np.take_along_axis(x, self.order, axis=1)

    def sum(self, x_ranked: np.ndarray) -> np.ndarray:
        if not x_ranked.size:
            return np.zeros_like(x_ranked, dtype=float)
        sums = np.add.reduceat(np.asarray(x_ranked, dtype=float).ravel(), self._starts)
        return sums[self._id].reshape(x_ranked.shape)

    def subset(self, rows: np.ndarray) -> "ScoreBlocks":
        if rows.shape[0] == self.size.shape[0]:
            return self
        out = object.__new__(ScoreBlocks)
        out.order = self.order[rows]
        out.size, out.start, out.offset = self.size[rows], self.start[rows], self.offset[rows]
        m, w = out.size.shape
        new = out.offset == 0
        flat = new.ravel()
        out._starts = np.flatnonzero(flat)
        out._id = np.cumsum(flat) - 1
        out.tied_rows = self.tied_rows[rows]
        return out


def _log_comb(n, k):
    """log C(n, k) elementwise for 0 <= k <= n (arrays of whole numbers)."""
    from scipy.special import gammaln

    n = np.asarray(n, dtype=float)
    k = np.asarray(k, dtype=float)
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def _comb_ratio(n1, k1, n2, k2):
    """C(n1, k1) / C(n2, k2), 0 where k1 is outside 0..n1 (C(n2, k2) > 0 assumed)."""
    n1, k1 = np.broadcast_arrays(np.asarray(n1, float), np.asarray(k1, float))
    ok = (k1 >= 0) & (k1 <= n1)
    with np.errstate(invalid="ignore"):
        val = np.exp(_log_comb(np.where(ok, n1, 0), np.where(ok, k1, 0)) - _log_comb(n2, k2))
    return np.where(ok, val, 0.0)


# expected values of the IR measures over the orders of tied scores. Every function takes the
# relevance (or gain) in ranked order, ``rel`` (m, w), with its ScoreBlocks ``b``, and the cut-off
# ``k`` (None: the whole width).


def expected_gain(x_ranked, b: ScoreBlocks) -> np.ndarray:
    """The expected value at each ranked position of a per-item quantity: its group's mean.

    Parameters
    ----------
    x_ranked : ndarray of float, shape (m, w)
        A per-item quantity at each ranked position.
    b : ScoreBlocks
        The tie groups of the ranked rows.

    Returns
    -------
    ndarray of float, shape (m, w)
    """
    return np.where(b.size == 1, x_ranked, b.sum(x_ranked) / b.size)


def expected_hits(relevant, b: ScoreBlocks, k) -> np.ndarray:
    """E[number of relevant items in the top k]: each position holds a relevant item with
    probability r/g, its group's share of relevant items.

    Parameters
    ----------
    relevant : ndarray of bool, shape (m, w)
        Whether each ranked position holds a relevant item.
    b : ScoreBlocks
        The tie groups of the ranked rows.
    k : int or None
        The cut-off (None: the whole list).

    Returns
    -------
    ndarray of float, shape (m,)
    """
    p = expected_gain(relevant.astype(float), b)
    return p[:, :k].sum(axis=1)


def expected_hit(relevant, b: ScoreBlocks, k) -> np.ndarray:
    """P(some relevant item in the top k). Only the group that straddles the cut is random: with
    ``c`` of its ``g`` positions above the cut and ``r`` relevant items, no relevant item is above
    it with probability C(g - r, c) / C(g, c) (hypergeometric).

    Parameters
    ----------
    relevant : ndarray of bool, shape (m, w)
        Whether each ranked position holds a relevant item.
    b : ScoreBlocks
        The tie groups of the ranked rows.
    k : int or None
        The cut-off (None: the whole list).

    Returns
    -------
    ndarray of float, shape (m,)
    """
    m, w = relevant.shape
    if w == 0:
        return np.zeros(m)
    kk = w if k is None else min(k, w)
    rel = relevant.astype(np.int64)
    before = np.concatenate([np.zeros((m, 1), np.int64), np.cumsum(rel, axis=1)], axis=1)
    col = kk - 1
    a = b.start[:, col]
    g = b.size[:, col]
    c = kk - a
    r = b.sum(rel)[:, col].round().astype(np.int64)
    none_in_cut = _comb_ratio(g - r, c, g, c)
    rows = np.arange(m)
    return np.where(before[rows, a] > 0, 1.0, 1.0 - none_in_cut)


def expected_rr(relevant, b: ScoreBlocks, k) -> np.ndarray:
    """E[1 / rank of the first relevant item] (0 when it lies beyond k). Only the first group
    holding a relevant item matters: with ``g`` positions from rank ``a + 1`` and ``r`` relevant
    items, the first relevant one is at offset ``j`` with probability C(g-1-j, r-1) / C(g, r).

    Parameters
    ----------
    relevant : ndarray of bool, shape (m, w)
        Whether each ranked position holds a relevant item.
    b : ScoreBlocks
        The tie groups of the ranked rows.
    k : int or None
        The cut-off (None: the whole list).

    Returns
    -------
    ndarray of float, shape (m,)
    """
    m, w = relevant.shape
    if w == 0:
        return np.zeros(m)
    rel = relevant.astype(np.int64)
    cum = np.concatenate([np.zeros((m, 1), np.int64), np.cumsum(rel, axis=1)], axis=1)
    kk = w if k is None else min(k, w)
    r = b.sum(rel)[:, :kk].round().astype(np.int64)
    before = np.take_along_axis(cum, b.start[:, :kk], axis=1)
    rows, cols = np.nonzero((before == 0) & (r > 0))  # positions of the first group with a relevant item
    g, j, rr = b.size[rows, cols], b.offset[rows, cols], r[rows, cols]
    term = _comb_ratio(g - 1 - j, rr - 1, g, rr) / (cols + 1.0)
    return np.bincount(rows, weights=term, minlength=m)


def expected_ap(relevant, b: ScoreBlocks, k, m_rel) -> np.ndarray:
    r"""E[AP@k] in closed form (McSherry and Najork).

    AP@k = (1/m) sum_{i<=k} rel_i (1 + sum_{j<i} rel_j) / i. For position i in a group of g
    positions holding r relevant items, at offset o, with R relevant items in earlier groups,
    E[rel_i] = r/g and E[rel_i rel_j] = r(r-1)/(g(g-1)) for j < i in the same group, so

    .. math:: E[AP@k] = \frac{1}{m}\sum_{i \le k} \frac{r}{g\,i}
              \left(1 + R + o\,\frac{r-1}{g-1}\right).

    Parameters
    ----------
    relevant : ndarray of bool, shape (m, w)
        Whether each ranked position holds a relevant item.
    b : ScoreBlocks
        The tie groups of the ranked rows.
    k : int or None
        The cut-off (None: the whole list).
    m_rel : ndarray of float, shape (m,)
        The number of relevant items of each query (AP's denominator).

    Returns
    -------
    ndarray of float, shape (m,)
        nan where ``m_rel`` is 0.
    """
    mq, w = relevant.shape
    kk = w if k is None else min(k, w)
    rel = relevant.astype(np.int64)
    cum = np.concatenate([np.zeros((mq, 1), np.int64), np.cumsum(rel, axis=1)], axis=1)
    r = b.sum(rel)[:, :kk]
    g = b.size[:, :kk].astype(float)
    before = np.take_along_axis(cum, b.start[:, :kk], axis=1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        same = np.where(g > 1, b.offset[:, :kk] * (r - 1) / np.where(g > 1, g - 1, 1), 0.0)
    term = (r / g) * (1.0 + before + same) / np.arange(1, kk + 1, dtype=float)
    num = term.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(m_rel > 0, num / np.where(m_rel > 0, m_rel, 1.0), np.nan)
