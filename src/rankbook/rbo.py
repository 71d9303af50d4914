"""Rank-biased overlap (RBO) of Webber, Moffat and Zobel, for two ranked lists of items.

RBO compares two rankings that may be incomplete (prefixes of longer, possibly endless lists),
of different lengths, and that need not hold the same items {cite}`webber2010rbo`. At each depth
``d`` the *agreement* is the share of the top ``d`` items the two lists have in common,
``A_d = X_d / d`` with ``X_d = |S_{:d} ∩ T_{:d}|``, and RBO averages the agreements with the
geometric weights ``(1 - p) p^{d-1}``:

.. math:: RBO(S, T, p) = (1 - p) \\sum_{d=1}^{\\infty} p^{d-1} A_d .

The ranking notes {cite}`rankingnotes` describe it, with its lower bound ``RBO_min``, the
residual ``RBO_res`` and the extrapolated point estimate ``RBO_ext``.

RBO conventions
---------------
* Lists are sequences of hashable items, best first; a ``str`` is read as its characters, so
  ``rbo("abc", "acb", 0.9)`` works. An item repeated within one list raises ``ValueError``.
* Ties: a ``set`` inside a list holds tied items, ``["a", {"b", "c"}, "d"]`` (in a ``str``,
  braces: ``"a{bc}d"``, see :func:`rankbook.ties.parse_ranking`); a group occupies as many ranks
  as it has items. The measures :func:`rbo`, :func:`rbo_min`, :func:`rbo_max`,
  :func:`rbo_res`, :func:`rbo_bounds` and :func:`rbo_ext` take ``ties="w" | "a" | "b"``, the
  variants RBO^w, RBO^a and RBO^b of Corsi and Urbano {cite}`corsi2024ties` (see
  :func:`rbo_ext`; ``"a"``, the expected RBO over the orders of the tied items, is the default,
  as in the authors' code). Without ties the three are the tie-free RBO. :func:`rbo_low`,
  :func:`rbo_high` and :func:`rbo_avg` give instead the lowest, highest and mean tie-free RBO
  over every order of the tied items {cite}`corsi2024tiesrange`, and :func:`rbo_batch` every
  variant of many pairs at once. :func:`overlaps` and :func:`random_extension_rbo` take
  tie-free lists only.
* Uneven lists: with ``s <= l`` the lengths of the shorter and the longer list, the shorter one
  is considered unknown beyond depth ``s`` (Webber et al. Section 4.3). ``rbo_min``,
  ``rbo_res`` and ``rbo_ext`` use everything seen, up to depth ``l``.
* Every value lies in [0, 1] without clipping: each is computed as a weighted mean of
  agreements in [0, 1] whose weights are summed in the same order as the total weight (which
  is 1 in exact arithmetic), and ``rbo_min`` and the upper bound share one summation, so that
  ``0 <= rbo_min <= rbo_min + rbo_res <= 1`` up to one rounding of the final addition.
* ``p`` must satisfy ``0 < p < 1``.
* Reading (as everywhere in rankbook, see :mod:`rankbook.metrics`, *Reading a ranking*): a list
  names items, best first, and a number in it is an item's label, never compared as a number.
  RBO depends on the orders alone, so it is the same under both readings of
  :func:`rankbook.pairwise.pairwise` (``numbering``), whose RBO measures equal these functions
  on every pair of rows.
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import check_choice, check_int, check_probability
from .permutations import is_missing_label
from .ties import parse_ranking

__all__ = [
    "TIES",
    "rbo",
    "rbo_min",
    "rbo_max",
    "rbo_res",
    "rbo_ext",
    "rbo_bounds",
    "rbo_batch",
    "BATCH_SCORES",
    "rbo_low",
    "rbo_high",
    "rbo_avg",
    "rbo_tie_orders",
    "RBO_SCORES",
    "rbo_weight",
    "depth_for_weight",
    "p_for_weight",
    "overlaps",
    "random_extension_rbo",
]

_TIE_TYPES = (set, frozenset, list, dict)

#: The tie-aware variants of Corsi and Urbano {cite}`corsi2024ties`: ``"w"`` (ties mean equal
#: rank; Webber et al.'s own treatment), ``"a"`` (ties mean an unknown order; the expected RBO
#: over the orders of the tied items) and ``"b"`` (``"a"`` corrected for the information the
#: ties lose, so that a ranking with ties scores 1 against itself). Without ties all three are
#: the tie-free RBO.
TIES = ("w", "a", "b")


def _check_rbo_ties(ties) -> str:
    return check_choice(ties, TIES, "ties", explain=(
        "Corsi and Urbano's RBO^w, RBO^a, RBO^b: ties as equal ranks, as an unknown order "
        "averaged over, or averaged and corrected for the information lost"))
_FAR = np.iinfo(np.int64).max  # position of an item absent from a list


# --------------------------------------------------------------------------------------------
# validation


def _check_p(p) -> float:
    return check_probability(p, "p", meaning="the persistence")


def _as_ranking(values, name: str) -> list:
    """A ranking as a list of entries: items, or ``frozenset`` tie groups of two or more items.

    A ``str`` is read one character per item, or with :func:`rankbook.ties.parse_ranking` when
    it holds a brace (``"a{bc}d"``, ``"a {b c} d"``). A set of one item is that item.
    """
    if isinstance(values, str):
        if "{" not in values and "}" not in values:
            return list(values)
        values = parse_ranking(values)
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(f"{name} must be a 1-D list of items, got shape {values.shape}")
        values = values.tolist()
    if isinstance(values, (set, frozenset, dict)):
        raise ValueError(f"{name} is a {type(values).__name__}, which has no order: a ranking is a "
                         "sequence of items (a set inside the list holds tied items)")
    try:
        entries = list(values)
    except TypeError:
        raise ValueError(f"{name} must be a sequence of items (list, tuple, array or str)") from None
    gap = next((i for i, e in enumerate(entries) if not isinstance(e, (set, frozenset, str))
                and is_missing_label(e)), None)
    if gap is not None:  # a nan matched only itself (the same object), None any None
        raise ValueError(f"{name}[{gap}] is a missing label ({entries[gap]!r}); every entry must "
                         "name an item (end a top-k list early instead)")
    if not any(issubclass(t, _TIE_TYPES) for t in set(map(type, entries))):
        return entries
    out = []
    for i, entry in enumerate(entries):
        if isinstance(entry, (set, frozenset)):
            if not entry:
                raise ValueError(f"{name}[{i}] is an empty tie group")
            if any(isinstance(x, _TIE_TYPES) for x in entry):
                raise ValueError(f"{name}[{i}] nests a tie group inside a tie group")
            out.append(next(iter(entry)) if len(entry) == 1 else frozenset(entry))
        elif isinstance(entry, _TIE_TYPES):
            raise ValueError(
                f"{name}[{i}] is a {type(entry).__name__}: write tied items as a set inside the "
                "list, e.g. ['a', {'b', 'c'}, 'd']"
            )
        else:
            out.append(entry)
    return out


def _has_ties(entries) -> bool:
    return any(isinstance(e, frozenset) for e in entries)


def _as_items(values, name: str) -> list:
    """A tie-free ranking as a list of items (``ValueError`` for a tie group)."""
    items = _as_ranking(values, name)
    if _has_ties(items):
        i = next(i for i, item in enumerate(items) if isinstance(item, frozenset))
        raise ValueError(
            f"{name}[{i}] is a tie group: this function takes tie-free lists (the RBO measures "
            "rbo, rbo_min, rbo_max, rbo_res, rbo_ext and rbo_bounds take ties)"
        )
    return items


def _flatten(entries):
    """Items in rank order with the first (``t``) and last (``b``) 0-based rank of their group."""
    ids, t, b = [], [], []
    r = 0
    for e in entries:
        if isinstance(e, frozenset):
            g = len(e)
            try:
                members = sorted(e)
            except TypeError:
                members = sorted(e, key=repr)
            ids.extend(members)
            t.extend([r] * g)
            b.extend([r + g - 1] * g)
            r += g
        else:
            ids.append(e)
            t.append(r)
            b.append(r)
            r += 1
    return ids, np.array(t, dtype=np.int64), np.array(b, dtype=np.int64)


def _n_items(entries) -> int:
    return sum(len(e) if isinstance(e, frozenset) else 1 for e in entries)


def _truncate(entries, depth: int, name: str) -> list:
    """The first ``depth`` ranks; a tie group may not be cut."""
    out, r = [], 0
    for e in entries:
        g = len(e) if isinstance(e, frozenset) else 1
        if r >= depth:
            break
        if r + g > depth:
            raise ValueError(
                f"depth={depth} cuts the tie group of {name} at ranks {r + 1}-{r + g}: the items "
                f"of a group are unordered, so choose a depth at a group boundary ({r} or {r + g})"
            )
        out.append(e)
        r += g
    return out


def _contribution(d, t, b, variant):
    """Share of an item (group ranks t..b) counted in the top d+1 ranks (0-based d)."""
    if variant == "w":
        return (d >= t).astype(float)
    g = (b - t + 1).astype(float)
    return np.where(d >= b, 1.0, np.where(d >= t, (d - t + 1) / g, 0.0))


def _windows(lo, hi):
    """Flat (index, depth) pairs for depth in [lo, hi) of every entry."""
    lengths = np.maximum(hi - lo, 0)
    idx = np.repeat(np.arange(lo.shape[0]), lengths)
    starts = np.cumsum(lengths) - lengths
    d = lo[idx] + np.arange(int(lengths.sum())) - starts[idx]
    return idx, d


def _sum_contrib(t, b, n_depths, variant, power=1):
    """sum over items of contribution**power at each depth d = 0..n_depths-1."""
    full = np.cumsum(np.bincount(b, minlength=n_depths)[:n_depths]).astype(float)
    if variant == "w":
        return np.cumsum(np.bincount(t, minlength=n_depths)[:n_depths]).astype(float)
    tied = b > t
    idx, d = _windows(t[tied], b[tied])
    c = (d - t[tied][idx] + 1) / (b[tied][idx] - t[tied][idx] + 1)
    return full + np.bincount(d, weights=c**power, minlength=n_depths)[:n_depths]


class _TieCore:
    """What every tie variant of one pair shares: the two lists flattened (shorter first), their
    common items, and per contribution family (``"w"``: whole groups; ``"a"``: the ramps of
    RBO^a and RBO^b) the overlaps and the sums of contributions, each computed once."""

    def __init__(self, S, T):
        fS, fT = _flatten(S), _flatten(T)
        _codes(fS[0], fT[0])  # an item repeated in one list is refused, naming the list
        if len(fS[0]) >= len(fT[0]):  # the second list is the shorter one on equal lengths, as
            fS, fT = fT, fS            # the authors' code does (the values do not depend on it)
        (idS, self.tS, self.bS), (idL, self.tL, self.bL) = fS, fT
        cs, cl, n_codes = _codes(idS, idL)
        self.s, self.l = len(idS), len(idL)
        where_S = np.full(n_codes, -1)
        where_S[cs] = np.arange(self.s)
        self.in_S = where_S[cl] >= 0
        jl = np.flatnonzero(self.in_S)
        js = where_S[cl[jl]]
        self.common = (self.tS[js], self.bS[js], self.tL[jl], self.bL[jl])
        self.X_l = int(jl.shape[0])
        self._family = {}

    def family(self, variant):
        """``(X, sum_S, sq_S, sum_L, sq_L)`` at depths 1..l for the contributions of ``variant``."""
        if variant in self._family:
            return self._family[variant]
        l = self.l
        ct_s, cb_s, ct_l, cb_l = self.common
        lo = np.maximum(ct_s, ct_l)
        if variant == "w":
            X = np.cumsum(np.bincount(lo, minlength=l)[:l]).astype(float)
        else:
            hi = np.maximum(cb_s, cb_l)
            X = np.cumsum(np.bincount(hi, minlength=l)[:l]).astype(float)
            idx, d = _windows(lo, hi)
            prod = (_contribution(d, ct_s[idx], cb_s[idx], "a") * _contribution(d, ct_l[idx], cb_l[idx], "a"))
            X += np.bincount(d, weights=prod, minlength=l)[:l]
        out = (X, _sum_contrib(self.tS, self.bS, l, variant), _sum_contrib(self.tS, self.bS, l, variant, power=2),
               _sum_contrib(self.tL, self.bL, l, variant), _sum_contrib(self.tL, self.bL, l, variant, power=2))
        self._family[variant] = out
        return out


def _tied_agreements(S, T, p, ties, core=None):
    """The tie-aware agreements of Corsi and Urbano at depths 1..l, for two rankings with ties.

    Returns ``(s, l, X_l, a_min, a_max, a_ext, a_ext_tail)``: the lengths of the shorter and the
    longer list, the number of items they share, and the agreement of the lower bound, the upper
    bound and the extrapolation at each seen depth, plus the extrapolated agreement beyond ``l``.
    ``core`` (a :class:`_TieCore` of the pair) shares the work between variants.
    """
    core = _TieCore(S, T) if core is None else core
    s, l, X_l = core.s, core.l, core.X_l
    tL, bL = core.tL, core.bL
    variant = "w" if ties == "w" else "a"
    X, sum_S, sq_S, sum_L, sq_L = core.family(variant)
    depth = np.arange(1, l + 1, dtype=float)

    def agree(x, dd, sum_s, sq_s, sl, ql):
        if ties == "w":
            return 2 * x / (sum_s + sl)
        if ties == "a":
            return x / dd
        # at most 1 by Cauchy-Schwarz (one square root of the product, so that a ranking
        # against itself gets exactly 1; rounding can still leave a hair above 1)
        return np.minimum(x / np.sqrt(sq_s * ql), 1.0)

    a1 = agree(X[:s], depth[:s], sum_S[:s], sq_S[:s], sum_L[:s], sq_L[:s])
    d2 = np.arange(s, l)
    dd2 = depth[s:]
    # unseen ranks of the short list: the long list's items that the short one lacks, in order
    miss = ~core.in_S
    tm, bm = tL[miss], bL[miss]
    n_t = np.searchsorted(tm, d2, side="right")  # missing items with t <= d
    n_b = np.searchsorted(bm, d2, side="right")  # ... with b <= d (fully in the top d+1)
    if variant == "w":
        u_max = np.minimum(d2 - s + 1, n_t).astype(float)
        unseen_mean = np.ones(d2.shape[0])
    else:
        ramp = _contribution(d2, tL[d2], bL[d2], "a") if l > s else np.zeros(0)
        take = d2 - s + 1
        full = np.minimum(take, n_b)
        u_max = full + ramp * (np.minimum(take, n_t) - full)
        with np.errstate(invalid="ignore", divide="ignore"):
            unseen_mean = (n_b + ramp * (n_t - n_b)) / n_t
    x2 = X[s:]
    a_s = float(a1[-1]) if s else float("nan")
    x_ext = x2 + (d2 - s + 1) * a_s * unseen_mean
    sl2, ql2 = sum_L[s:], sq_L[s:]
    a_min = np.concatenate([a1, agree(x2, dd2, dd2, dd2, sl2, ql2)])
    a_max = np.concatenate([a1, agree(x2 + u_max, dd2, dd2, dd2, sl2, ql2)])
    a_ext = np.concatenate([a1, agree(x_ext, dd2, dd2, dd2, sl2, ql2)])
    a_tail = (X_l + (l - s) * a_s) / l if l else float("nan")
    return s, l, X_l, a_min, a_max, a_ext, a_tail


def _codes(S, T):
    """Integer codes for the items of S and T (shared dictionary), with repeats refused."""
    try:
        keys = dict.fromkeys(S)
        n_s = len(keys)
        keys.update(dict.fromkeys(T))
    except TypeError as exc:
        raise ValueError(f"list items must be hashable: {exc}") from None
    for name, items, n_unique in (("S", S, n_s), ("T", T, len(dict.fromkeys(T)))):
        if n_unique != len(items):
            seen: set = set()
            item = next(x for x in items if x in seen or seen.add(x))
            raise ValueError(
                f"item {item!r} occurs more than once in {name}: a ranking lists each item once"
            )
    index = dict(zip(keys, range(len(keys))))
    cs = np.fromiter(map(index.__getitem__, S), dtype=np.int64, count=len(S))
    ct = np.fromiter(map(index.__getitem__, T), dtype=np.int64, count=len(T))
    return cs, ct, len(keys)


def _check_depth(depth, longest: int):
    if depth is None:
        return None
    depth = check_int(depth, "depth", low=0)
    if depth > longest:
        raise ValueError(
            f"depth={depth} exceeds the longer list ({longest} items): nothing is known there"
        )
    return int(depth)


def overlaps(S, T, depth=None) -> np.ndarray:
    """The overlaps ``X_d = |S_{:d} ∩ T_{:d}|`` for ``d = 1 .. depth`` (default: longer length).

    Beyond the end of a list only its seen items count.

    Parameters
    ----------
    S, T : sequence of hashable
        Tie-free rankings, best first (a ``str``: one item per character).
    depth : int, optional
        The last depth, at most the longer length (the default).

    Returns
    -------
    ndarray of int64, shape (depth,)
        ``X_1, ..., X_depth``.

    Examples
    --------
    >>> overlaps("abcdefg", "zcavwxy").tolist()
    [0, 0, 2, 2, 2, 2, 2]
    """
    S, T = _as_items(S, "S"), _as_items(T, "T")
    depth = _check_depth(depth, max(len(S), len(T)))
    return _overlaps(S, T, max(len(S), len(T)) if depth is None else depth)


def _overlaps(S, T, depth: int) -> np.ndarray:
    cs, ct, n_items = _codes(S, T)
    pos_s = np.full(n_items, _FAR)
    pos_t = np.full(n_items, _FAR)
    pos_s[cs] = np.arange(cs.size)
    pos_t[ct] = np.arange(ct.size)
    enters = np.maximum(pos_s, pos_t)  # 0-based depth at which the item is in both tops
    enters = enters[enters < depth]
    return np.cumsum(np.bincount(enters, minlength=depth)[:depth]).astype(np.int64)


def _prepare(S, T, p, depth, ties="a"):
    """Validated ``(p, S, T, ties)``, the lists cut at ``depth`` (at a tie-group boundary)."""
    p = _check_p(p)
    ties = _check_rbo_ties(ties)
    S, T = _as_ranking(S, "S"), _as_ranking(T, "T")
    depth = _check_depth(depth, max(_n_items(S), _n_items(T)))
    if depth is not None:
        S, T = _truncate(S, depth, "S"), _truncate(T, depth, "T")
    return p, S, T, ties


def _bounds_of(S, T, p, ties):
    """(min, max) of the prepared lists: the tie-free path when neither has a tie group."""
    if not (_has_ties(S) or _has_ties(T)):
        s, l = sorted((len(S), len(T)))
        lo, hi, _ = _bounds(p, s, l, _overlaps(S, T, l))
        return lo, hi
    s, l, X_l, a_min, a_max, _, _ = _tied_agreements(S, T, p, ties)
    lo, hi, _ = _bounds_from(p, s, l, X_l, a_min, a_max)
    return lo, hi


# --------------------------------------------------------------------------------------------
# series


def _weights(p: float, n: int) -> np.ndarray:
    """``w_d = (1 - p) p^(d-1)`` for d = 1..n."""
    return (1.0 - p) * np.exp(np.arange(n) * math.log(p))


def _log_tail(p: float, m: int) -> float:
    """``sum_{d > m} p^d / d`` (the tail of the series of -ln(1-p)), accurately."""
    n_terms = math.ceil(-40.0 / math.log(p)) + 1  # p**n_terms < 1e-17
    if n_terms <= 2_000_000:
        j = np.arange(n_terms, dtype=float)
        return float(math.exp((m + 1) * math.log(p)) * np.sum(np.exp(j * math.log(p)) / (m + 1 + j)))
    d = np.arange(1, m + 1, dtype=float)
    return float(-math.log1p(-p) - np.sum(np.exp(d * math.log(p)) / d))


# --------------------------------------------------------------------------------------------
# the measures


def rbo(S, T, p: float, depth=None, ties: str = "a") -> float:
    r"""Base RBO of a prefix: the part of RBO that the first ``depth`` ranks already fix.

    .. math:: RBO@k = (1 - p) \sum_{d=1}^{k} p^{d-1} A_d, \qquad A_d = \frac{X_d}{d}

    {cite}`webber2010rbo` {cite}`rankingnotes`. It is a lower bound of the full RBO, looser
    than :func:`rbo_min`. ``depth`` defaults to the shorter list's length (as in the ``rbo``
    package); it may go up to the longer length, with the shorter list's unseen ranks matching
    nothing. With tie groups the agreement ``A_d`` is that of the variant ``ties`` (see
    :func:`rbo_ext`). Value in [0, 1 - p^k]: 0 for an empty list (k = 0 fixes no part of RBO;
    the ``rbo`` package returns 1 there, and :func:`rbo_ext` gives ``nan``).

    Parameters
    ----------
    S, T : sequence of hashable
        Rankings, best first, each item at most once; a ``set`` inside the list holds tied items
        (``["a", {"b", "c"}, "d"]``), and a ``str`` may write them in braces (``"a{bc}d"``).
    p : float, 0 < p < 1
        Persistence: the weight of rank ``d`` is proportional to ``p^{d-1}``.
    depth : int, optional
    ties : {"a", "w", "b"}
        Corsi and Urbano's variant for tied items (see :data:`TIES` and :func:`rbo_ext`).

    Returns
    -------
    float
        In [0, 1 - p^k].

    Examples
    --------
    >>> round(rbo("abcdefg", "zcavwxy", p=0.9), 4)
    0.1516
    >>> rbo("abc", "abc", p=0.5)  # 1 - 0.5**3
    0.875
    >>> rbo("a{bc}", "abc", p=0.5)  # the mean of rbo("abc", ...) = 0.875 and rbo("acb", ...) = 0.75
    0.8125
    >>> rbo([], [], p=0.9)
    0.0
    """
    p = _check_p(p)
    ties = _check_rbo_ties(ties)
    S, T = _as_ranking(S, "S"), _as_ranking(T, "T")
    n_s, n_t = _n_items(S), _n_items(T)
    depth = _check_depth(depth, max(n_s, n_t))
    k = min(n_s, n_t) if depth is None else depth
    w = _weights(p, k)
    tail = math.exp(k * math.log(p))
    if _has_ties(S) or _has_ties(T):
        a_min = _tied_agreements(S, T, p, ties)[3]
        return float(np.sum(w * a_min[:k]) / (np.sum(w) + tail))
    X = _overlaps(S, T, k)
    d = np.arange(1, k + 1, dtype=float)
    return float(np.sum(w * (X / d)) / (np.sum(w) + tail))


def _bounds(p, s, l, X):
    """(min, max, total weight) of RBO over all extensions of two tie-free prefixes."""
    X_l = int(X[-1]) if l else 0
    d = np.arange(1, l + 1, dtype=float)
    x_max = X.astype(float)
    mid = d > s
    x_max[mid] = X[mid] + d[mid] - s  # unseen ranks of the short list match the long one
    return _bounds_from(p, s, l, X_l, X / d, x_max / d)


def _bounds_from(p, s, l, X_l, a_min_seen, a_max_seen):
    """(min, max, total weight) from the agreements of the bounds at the seen depths 1..l."""
    f = l + s - X_l  # depth from which the upper bound's agreement is 1
    F = max(f, l + 1)  # the bound arrays run over d = 1 .. F-1, then the tail
    d = np.arange(1, F, dtype=float)
    a_min = np.empty(F - 1)
    a_min[:l] = a_min_seen
    a_min[l:] = X_l / d[l:]
    a_max = np.empty(F - 1)
    a_max[:l] = a_max_seen
    far = d > l
    a_max[far] = (X_l + 2 * d[far] - s - l) / d[far]  # both lists' unseen ranks match seen items
    w = _weights(p, F - 1)
    tail_w = math.exp((F - 1) * math.log(p))
    tail_min = X_l * (1.0 - p) / p * _log_tail(p, F - 1)
    total = np.sum(w) + tail_w
    lo = (np.sum(w * a_min) + tail_min) / total
    hi = (np.sum(w * a_max) + tail_w) / total
    return float(lo), float(hi), (w, d, total, tail_w)


def rbo_min(S, T, p: float, depth=None, ties: str = "a") -> float:
    r"""Tight lower bound of the RBO of any two lists that begin with ``S`` and ``T``.

    For equal lengths ``k`` (Webber et al., eq. 11; the ranking notes):

    .. math::

        RBO_{min} = \frac{1-p}{p}\left(\sum_{d=1}^{k} (X_d - X_k)\frac{p^d}{d}
                    - X_k \ln(1-p)\right)

    i.e. no item beyond the prefixes ever matches. For uneven lists (``s < l``) the shorter
    list's unseen ranks match nothing either, which gives the same formula with ``k = l``.
    ``depth`` truncates both lists first (at a tie-group boundary). With tie groups the seen
    depths use the agreement of the variant ``ties`` (see :func:`rbo_ext`); ``RBO^a_min`` is
    then exactly the mean of the tie-free ``RBO_min`` over the orders of the tied items. Value in
    [0, 1].

    Parameters
    ----------
    S, T : sequence of hashable
        Rankings, best first, each item at most once; a ``set`` inside the list holds tied items
        and a ``str`` may write them in braces (``"a{bc}d"``).
    p : float, 0 < p < 1
        Persistence.
    depth : int, optional
        Truncate both lists to this depth first (at a tie-group boundary).
    ties : {"a", "w", "b"}
        Corsi and Urbano's variant for tied items (see :func:`rbo_ext`).

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> round(rbo_min("abcdefg", "zcavwxy", p=0.9), 4)
    0.2217
    >>> lo_a = rbo_min("a{bc}", "abc", p=0.9)
    >>> round(lo_a, 6), round((rbo_min("abc", "abc", 0.9) + rbo_min("acb", "abc", 0.9)) / 2, 6)
    (0.500028, 0.500028)
    """
    p, S, T, ties = _prepare(S, T, p, depth, ties)
    return _bounds_of(S, T, p, ties)[0]


def rbo_max(S, T, p: float, depth=None, ties: str = "a") -> float:
    r"""Tight upper bound of the RBO of any two lists that begin with ``S`` and ``T``:
    :func:`rbo_min` plus :func:`rbo_res`.

    The unseen ranks of each list hold items seen in the other list, then items new to both
    and shared (Webber et al. eqs. 13 and 30); with ``f = l + s - X_l``,

    .. math::

        RBO_{max} = \frac{1-p}{p}\left(\sum_{d=1}^{l} A^{max}_d p^d
          + \sum_{d=l+1}^{f} \frac{2d - l - s + X_l}{d}\, p^d\right) + p^f

    where ``A^max_d`` is the agreement at the seen depths with the shorter list's ranks
    ``s+1..d`` filled by the longer list's unmatched items in order. With tie groups the
    agreement is the variant ``ties``'s (see :func:`rbo_ext`) and those unmatched items count
    with their contribution at depth ``d``, as in Corsi and Urbano's reference code
    {cite}`corsi2024ties`. One continuation has to serve every order of the ties, so
    ``RBO^a_max`` can be lower than the mean of the tie-free maxima over those orders (for
    ``[0]`` and ``[{0, 1, 2}]`` at ``p = 0.8``: 0.8133 against 0.84). Value in [rbo_min, 1].

    Parameters
    ----------
    S, T : sequence of hashable
        Rankings, best first, each item at most once; a ``set`` inside the list holds tied items
        and a ``str`` may write them in braces (``"a{bc}d"``).
    p : float, 0 < p < 1
        Persistence.
    depth : int, optional
        Truncate both lists to this depth first (at a tie-group boundary).
    ties : {"a", "w", "b"}
        Corsi and Urbano's variant for tied items (see :func:`rbo_ext`).

    Returns
    -------
    float
        In [rbo_min, 1].

    Examples
    --------
    >>> round(rbo_max("abcdefg", "zcavwxy", p=0.9), 4)
    0.5807
    >>> rbo_max("abc", "abc", p=0.9)
    1.0
    """
    p, S, T, ties = _prepare(S, T, p, depth, ties)
    return _bounds_of(S, T, p, ties)[1]


def rbo_res(S, T, p: float, depth=None, ties: str = "a") -> float:
    r"""Residual: the most that the unseen ranks can add to :func:`rbo_min`.

    For equal lengths ``k``, with ``f = 2k - X_k`` (notes; Webber et al. eq. 13):

    .. math::

        RBO_{res} = (1-p)\left(\sum_{d=k+1}^{f} \frac{2(d-k)}{d} p^{d-1}
                    + \sum_{d=f+1}^{\infty}\left(1 - \frac{X_k}{d}\right)p^{d-1}\right)

    The maximum is reached when every unseen rank of each list holds an item seen in the other
    list, or a new item shared by both. For uneven lists (``s < l``) the shorter list's ranks
    ``s+1..l`` first match the longer list's unmatched items, and ``f = l + s - X_l``
    (Webber et al. eq. 30). It is ``rbo_max - rbo_min``, for every variant ``ties`` (see
    :func:`rbo_max`); value in [0, 1 - rbo_min].

    Parameters
    ----------
    S, T : sequence of hashable
        Rankings, best first, each item at most once; a ``set`` inside the list holds tied items
        and a ``str`` may write them in braces (``"a{bc}d"``).
    p : float, 0 < p < 1
        Persistence.
    depth : int, optional
        Truncate both lists to this depth first (at a tie-group boundary).
    ties : {"a", "w", "b"}
        Corsi and Urbano's variant for tied items (see :func:`rbo_ext`).

    Returns
    -------
    float
        In [0, 1 - rbo_min].

    Examples
    --------
    >>> round(rbo_res("abcdefg", "zcavwxy", p=0.9), 4)
    0.359
    >>> round(rbo_min("abc", "abc", 0.9) + rbo_res("abc", "abc", 0.9), 12)
    1.0
    """
    p, S, T, ties = _prepare(S, T, p, depth, ties)
    lo, hi = _bounds_of(S, T, p, ties)
    return hi - lo


def rbo_bounds(S, T, p: float, depth=None, ties: str = "a") -> tuple[float, float]:
    """``(rbo_min, rbo_max)``: the range of the full RBO, computed together.

    ``ties`` as in :func:`rbo_ext`.

    Parameters
    ----------
    S, T : sequence of hashable
        Rankings, best first, each item at most once; a ``set`` inside the list holds tied items
        and a ``str`` may write them in braces (``"a{bc}d"``).
    p : float, 0 < p < 1
        Persistence.
    depth : int, optional
        Truncate both lists to this depth first (at a tie-group boundary).
    ties : {"a", "w", "b"}
        Corsi and Urbano's variant for tied items (see :func:`rbo_ext`).

    Returns
    -------
    tuple of float
        ``(rbo_min, rbo_max)``.

    Examples
    --------
    >>> tuple(round(v, 4) for v in rbo_bounds("abcdefg", "zcavwxy", p=0.9))
    (0.2217, 0.5807)
    """
    p, S, T, ties = _prepare(S, T, p, depth, ties)
    return _bounds_of(S, T, p, ties)


def rbo_ext(S, T, p: float, depth=None, ties: str = "a") -> float:
    r"""Extrapolated RBO: assume the agreement seen at the end of the prefixes continues.

    Webber et al. eq. 32, with ``s <= l`` the two lengths:

    .. math::

        RBO_{ext} = \frac{1-p}{p}\left(\sum_{d=1}^{l}\frac{X_d}{d}p^d
          + \sum_{d=s+1}^{l}\frac{X_s (d-s)}{s\,d}p^d\right)
          + \left(\frac{X_l - X_s}{l} + \frac{X_s}{s}\right)p^l

    For equal lengths ``k`` it is ``(1-p)/p * sum_d X_d/d p^d + X_k/k * p^k``; it agrees with
    the ``rbo`` package's ``rbo_ext``. ``nan`` when a list is empty (nothing to extrapolate).

    Ties: a ``set`` inside a list holds tied items, which occupy as many ranks as they are
    items. Corsi and Urbano {cite}`corsi2024ties` count an item ``i`` into the top ``d`` of a
    list with a contribution ``c_d(i)``, set the overlap to
    :math:`X_d = \sum_i c^S_d(i)\, c^T_d(i)` and define three variants (``ties``):

    ``"w"`` (RBO^w; ties are equal ranks)
        ``c_d(i) = 1`` as soon as the first rank of ``i``'s group is within ``d`` (the whole
        group enters at once) and :math:`A_d = 2X_d / (\sum_i c^S_d(i) + \sum_i c^T_d(i))`:
        Webber et al.'s own treatment (their Section 4.4);
    ``"a"`` (RBO^a, the default; ties are an unknown order)
        ``c_d(i)`` is the probability that ``i`` is within the top ``d`` when its group is put
        in a random order (0 before the group, ``(d - t + 1)/g`` inside a group of ``g`` items
        starting at rank ``t``, 1 after) and :math:`A_d = X_d/d`. The seen part is the exact
        mean over the orders of the tied items, so ``RBO^a_min`` and the base :func:`rbo` are
        the means of their tie-free values, and so is ``RBO^a_ext`` for lists of equal length;
    ``"b"`` (RBO^b; ``"a"`` corrected for the information lost)
        the same ``c_d(i)``, with
        :math:`A_d = X_d / \sqrt{\sum_i c^S_d(i)^2 \sum_i c^T_d(i)^2}`, which scores a ranking
        with ties 1 against itself and is never below RBO^a.

    At depths the shorter list has not reached, its unseen ranks count as whole items; the
    extrapolation fills them at the agreement of depth ``s`` times the mean contribution of the
    longer list's unmatched items, and the tail at ``(X_l + (l - s) A_s)/l``, as in the authors'
    reference code. Without ties all three variants are the formula above.

    Parameters
    ----------
    S, T : sequence of hashable
        Rankings, best first, each item at most once; a ``set`` inside the list holds tied items
        and a ``str`` may write them in braces (``"a{bc}d"``).
    p : float, 0 < p < 1
        Persistence.
    depth : int, optional
        Truncate both lists to this depth first (at a tie-group boundary).
    ties : {"a", "w", "b"}
        Corsi and Urbano's variant for tied items (see :func:`rbo_ext`).

    Returns
    -------
    float
        In [0, 1]; nan when a list is empty.

    Examples
    --------
    >>> round(rbo_ext("abcdefg", "zcavwxy", p=0.9), 4)
    0.2882
    >>> rbo_ext("abcd", "abcd", p=0.9)
    1.0
    >>> x = ["a", {"b", "c"}, "d"]
    >>> [round(rbo_ext(x, x, p=0.9, ties=v), 4) for v in TIES]
    [1.0, 0.9775, 1.0]
    """
    p, S, T, ties = _prepare(S, T, p, depth, ties)
    if _has_ties(S) or _has_ties(T):
        s, l, _, _, _, a_ext, a_tail = _tied_agreements(S, T, p, ties)
        return _ext_tied(p, s, l, a_ext, a_tail)
    s, l = sorted((len(S), len(T)))
    return _ext_free(p, s, l, _overlaps(S, T, l))


def _ext_tied(p, s, l, a_ext, a_tail):
    """RBO_ext from the tie-aware extrapolated agreements (``nan`` for an empty list)."""
    if s == 0:
        return float("nan")
    w = _weights(p, l)
    tail_w = math.exp(l * math.log(p))
    return float((np.sum(w * a_ext) + tail_w * a_tail) / (np.sum(w) + tail_w))


def _ext_free(p, s, l, X):
    """Webber et al.'s RBO_ext (eq. 32) from the overlaps ``X`` at depths 1..l of lists of
    ``s <= l`` items (linear in ``X``; ``nan`` for an empty list)."""
    if s == 0:
        return float("nan")
    d = np.arange(1, l + 1, dtype=float)
    X_s, X_l = float(X[s - 1]), float(X[-1])
    x = X.astype(float)
    mid = d > s
    x[mid] = X[mid] + X_s * (d[mid] - s) / s  # the short list keeps agreeing at rate X_s / s
    a = x / d
    w = _weights(p, l)
    tail_w = math.exp(l * math.log(p))
    a_tail = (X_l - X_s) / l + X_s / s
    return float((np.sum(w * a) + tail_w * a_tail) / (np.sum(w) + tail_w))


#: The scores :func:`rbo_batch` returns for each tie variant, in the column order of Corsi and
#: Urbano's test file (``ext``, ``min``, ``max``, ``res``).
BATCH_SCORES = ("ext", "min", "max", "res")


def rbo_batch(S_lists, T_lists, p, ties=TIES) -> dict:
    r"""RBO_ext, RBO_min, RBO_max and RBO_res of many pairs, for every tie variant at once.

    The values of :func:`rbo_ext`, :func:`rbo_min`, :func:`rbo_max` and :func:`rbo_res` (the
    same formulas, equal to rounding: the sums run in another order), vectorised over the pairs:
    every pair's depths are laid end to end, so the overlaps of the whole-group contributions
    (RBO^w) and of the ramps (RBO^a and RBO^b), the agreements and the series of all pairs are a
    few array operations, and the variants share them. Only reading and flattening the lists is
    a loop over the pairs. Use it for tables of many pairs, such as Corsi and Urbano's 10,000
    test vectors {cite}`corsi2024ties` (about 0.5 s for all twelve values of each).

    Parameters
    ----------
    S_lists, T_lists : sequence of rankings
        The pairs, ``S_lists[i]`` against ``T_lists[i]``; each ranking as in :func:`rbo`
        (a ``set`` inside a list holds tied items, a ``str`` may write them in braces).
    p : float or sequence of float
        One persistence for every pair, or one per pair (``0 < p < 1``).
    ties : sequence of {"w", "a", "b"}
        The variants to compute (default all three).

    Returns
    -------
    dict of str to numpy.ndarray
        Keys ``"<variant>.<score>"`` (``"w.ext"``, ``"a.min"``, ...; the column names of the
        authors' test file), each an array with one value per pair.

    Examples
    --------
    >>> out = rbo_batch(["a{bc}d", "abc"], ["abcd", "acb"], 0.9)
    >>> sorted(out)[:4]
    ['a.ext', 'a.max', 'a.min', 'a.res']
    >>> bool(abs(out["a.ext"][0] - rbo_ext("a{bc}d", "abcd", 0.9, ties="a")) < 1e-15)
    True
    """
    if isinstance(ties, str):
        ties = (ties,)
    variants = [_check_rbo_ties(v) for v in ties]
    S_lists, T_lists = list(S_lists), list(T_lists)
    n = len(S_lists)
    if len(T_lists) != n:
        raise ValueError(f"S_lists and T_lists must hold as many rankings, got {n} and {len(T_lists)}")
    ps = np.broadcast_to(np.asarray(p, dtype=object), (n,)) if np.ndim(p) == 0 else list(p)
    if len(ps) != n:
        raise ValueError(f"p must be one number or one per pair ({n}), got {len(ps)} values")
    pv = np.empty(n)
    flat = []
    for i in range(n):
        try:
            pv[i] = _check_p(ps[i])
            S, T = _as_ranking(S_lists[i], "S"), _as_ranking(T_lists[i], "T")
            fS, fT = _flatten(S), _flatten(T)
            if len(set(fS[0])) != len(fS[0]) or len(set(fT[0])) != len(fT[0]):
                _codes(fS[0], fT[0])  # raises, naming the list and the item
        except (ValueError, TypeError) as exc:
            raise ValueError(f"pair {i}: {exc}") from None
        flat.append((fT, fS) if len(fS[0]) >= len(fT[0]) else (fS, fT))  # shorter first
    return _batch(flat, pv, variants)


def _seg_cumsum(v, starts, lengths):
    """Cumulative sums of ``v`` restarted at every segment (segments laid end to end)."""
    c = np.cumsum(v)
    if c.size == 0:
        return c
    first = np.flatnonzero(lengths > 0)
    base = np.zeros(lengths.shape[0])
    base[first] = c[starts[first]] - v[starts[first]]
    return c - np.repeat(base, lengths)


def _seg_sum(v, seg, K):
    """Sum of ``v`` per segment id ``seg`` (0 for an empty segment)."""
    return np.bincount(seg, weights=v, minlength=K)[:K]


def _batch(flat, p, variants):
    """:func:`rbo_batch` on pairs already flattened (shorter list first): every pair's depths
    laid end to end, the overlaps, sums of contributions, agreements and series of
    :func:`_tied_agreements`, :func:`_bounds_from` and :func:`_ext_tied` computed for all pairs
    at once (the same formulas; sums in another order, so equal to rounding)."""
    K = len(flat)
    s = np.array([len(a[0]) for a, _ in flat], dtype=np.int64)
    l = np.array([len(b[0]) for _, b in flat], dtype=np.int64)
    offL = np.cumsum(l) - l  # each pair's depths (and its longer list's items) start here
    offS = np.cumsum(s) - s
    D = int(l.sum())
    pd_ = np.repeat(np.arange(K), l)  # pair of each depth entry
    d = np.arange(D) - offL[pd_]  # 0-based depth
    dd = d + 1.0
    tS = np.concatenate([a[1] for a, _ in flat]) if K else np.zeros(0, np.int64)
    bS = np.concatenate([a[2] for a, _ in flat]) if K else np.zeros(0, np.int64)
    tL = np.concatenate([b[1] for _, b in flat]) if K else np.zeros(0, np.int64)
    bL = np.concatenate([b[2] for _, b in flat]) if K else np.zeros(0, np.int64)
    pS = np.repeat(np.arange(K), s)
    # the common items of each pair: positions in the short and the long list
    js, jl, in_S = [], [], np.zeros(D, dtype=bool)
    for k, ((idS, _, _), (idL, _, _)) in enumerate(flat):
        where = {x: i for i, x in enumerate(idS)}
        for i, x in enumerate(idL):
            j = where.get(x)
            if j is not None:
                js.append(offS[k] + j)
                jl.append(offL[k] + i)
    js, jl = np.array(js, dtype=np.int64), np.array(jl, dtype=np.int64)
    in_S[jl] = True
    pc = pd_[jl] if jl.size else np.zeros(0, np.int64)
    X_l = np.bincount(pc, minlength=K)[:K].astype(np.int64)
    ct_s, cb_s, ct_l, cb_l = tS[js], bS[js], tL[jl], bL[jl]
    lo_c = np.maximum(ct_s, ct_l)
    hi_c = np.maximum(cb_s, cb_l)

    def counts(at, pair):  # number of entries at each depth of their pair
        return np.bincount(offL[pair] + at, minlength=D)[:D].astype(float)

    def sum_contrib(t, b, pair, fam, power=1):
        if fam == "w":
            return _seg_cumsum(counts(t, pair), offL, l)
        full = _seg_cumsum(counts(b, pair), offL, l)
        tied = b > t
        idx, dw = _windows(t[tied], b[tied])
        c = (dw - t[tied][idx] + 1) / (b[tied][idx] - t[tied][idx] + 1)
        return full + np.bincount(offL[pair[tied][idx]] + dw, weights=c ** power, minlength=D)[:D]

    fams = {}
    for fam in {"w" if v == "w" else "a" for v in variants}:
        if fam == "w":
            X = _seg_cumsum(counts(lo_c, pc), offL, l)
        else:
            X = _seg_cumsum(counts(hi_c, pc), offL, l)
            idx, dw = _windows(lo_c, hi_c)
            prod = (_contribution(dw, ct_s[idx], cb_s[idx], "a") * _contribution(dw, ct_l[idx], cb_l[idx], "a"))
            X = X + np.bincount(offL[pc[idx]] + dw, weights=prod, minlength=D)[:D]
        fams[fam] = (X, sum_contrib(tS, bS, pS, fam), sum_contrib(tS, bS, pS, fam, 2),
                     sum_contrib(tL, bL, pd_, fam), sum_contrib(tL, bL, pd_, fam, 2))
    # the longer list's items missing from the shorter one, counted by depth
    miss = ~in_S
    n_t = _seg_cumsum(counts(tL[miss], pd_[miss]), offL, l)
    n_b = _seg_cumsum(counts(bL[miss], pd_[miss]), offL, l)
    s_d = s[pd_]
    seen = d < s_d
    take = (d - s_d + 1).astype(float)
    # the series: weights of the seen depths, their tail, the bounds' extra depths
    pw = np.exp(d * np.log(p[pd_]))
    w = (1.0 - p[pd_]) * pw
    sum_w = _seg_sum(w, pd_, K)
    tail_l = np.exp(l * np.log(p))
    # the bounds beyond the seen depths (the same for every variant): depths l+1 .. F-1, where
    # the upper bound's agreement reaches 1 at F - 1 = l + s - X_l, then the tails
    F = np.maximum(l + s - X_l, l + 1)
    extra = F - 1 - l
    pe = np.repeat(np.arange(K), extra)
    de = (np.arange(int(extra.sum())) - np.repeat(np.cumsum(extra) - extra, extra)
          + l[pe] + 1).astype(float)  # 1-based depths beyond l
    we = (1.0 - p[pe]) * np.exp((de - 1) * np.log(p[pe]))
    tail_F = np.exp((F - 1) * np.log(p))
    total = sum_w + _seg_sum(we, pe, K) + tail_F
    beyond_min = _seg_sum(we * X_l[pe] / de, pe, K) + X_l * (1.0 - p) / p * _log_tails(p, F - 1)
    beyond_max = _seg_sum(we * (X_l[pe] + 2 * de - s[pe] - l[pe]) / de, pe, K) + tail_F
    out = {}
    for v in variants:
        fam = "w" if v == "w" else "a"
        X, sum_S, sq_S, sum_L, sq_L = fams[fam]

        def agree(x, ss, qs):
            if v == "w":
                return 2 * x / (ss + sum_L)
            if v == "a":
                return x / dd
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.minimum(x / np.sqrt(qs * sq_L), 1.0)

        with np.errstate(invalid="ignore", divide="ignore"):
            a_seen = agree(X, sum_S, sq_S)
            if fam == "w":
                u_max = np.minimum(take, n_t)
                unseen_mean = np.ones(D)
            else:
                ramp = _contribution(d, tL[np.minimum(offL[pd_] + d, max(D - 1, 0))],
                                     bL[np.minimum(offL[pd_] + d, max(D - 1, 0))], "a")
                full = np.minimum(take, n_b)
                u_max = full + ramp * (np.minimum(take, n_t) - full)
                unseen_mean = (n_b + ramp * (n_t - n_b)) / n_t
        a_s = np.full(K, np.nan)
        has = s > 0
        a_s[has] = a_seen[offL[has] + s[has] - 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            x_ext = X + take * a_s[pd_] * unseen_mean
            a_min = np.where(seen, a_seen, agree(X, dd, dd))
            a_max = np.where(seen, a_seen, agree(X + u_max, dd, dd))
            a_ext = np.where(seen, a_seen, agree(x_ext, dd, dd))
            a_tail = np.where(l > 0, (X_l + (l - s) * a_s) / np.maximum(l, 1), np.nan)
        # extrapolation
        ext = (_seg_sum(w * a_ext, pd_, K) + tail_l * a_tail) / (sum_w + tail_l)
        ext[s == 0] = np.nan
        lo = (_seg_sum(w * a_min, pd_, K) + beyond_min) / total
        hi = (_seg_sum(w * a_max, pd_, K) + beyond_max) / total
        out[f"{v}.ext"], out[f"{v}.min"], out[f"{v}.max"], out[f"{v}.res"] = ext, lo, hi, hi - lo
    return {f"{v}.{score}": out[f"{v}.{score}"] for v in variants for score in BATCH_SCORES}


def _log_tails(p: np.ndarray, m: np.ndarray, block: int = 256) -> np.ndarray:
    """:func:`_log_tail` of many ``(p, m)`` at once, in blocks of pairs of bounded memory."""
    out = np.empty(p.shape[0])
    for a in range(0, p.shape[0], block):
        pb, mb = p[a:a + block], m[a:a + block].astype(float)
        n_terms = int(np.ceil(-40.0 / np.log(pb)).max()) + 1 if pb.size else 0
        if n_terms > 2_000_000:  # p extremely close to 1: the scalar function's other branch
            out[a:a + block] = [_log_tail(float(x), int(y)) for x, y in zip(pb, mb)]
            continue
        j = np.arange(n_terms, dtype=float)
        lp = np.log(pb)[:, None]
        terms = np.exp(j * lp) / (mb[:, None] + 1 + j)
        out[a:a + block] = np.exp((mb + 1) * np.log(pb)) * terms.sum(axis=1)
    return out


# --------------------------------------------------------------------------------------------
# the range a tie order can move RBO


#: The scores whose range over the orders of the tied items :func:`rbo_low`, :func:`rbo_high` and
#: :func:`rbo_avg` compute: the functions of the same names.
RBO_SCORES = ("rbo", "rbo_min", "rbo_max", "rbo_res", "rbo_ext")


def _check_score(score) -> str:
    if not isinstance(score, str) or score not in RBO_SCORES:
        raise ValueError(f"score={score!r} is not valid; choose one of {list(RBO_SCORES)} (the base "
                         "RBO of the prefix, its lower bound, upper bound, residual, or the "
                         "extrapolated RBO)")
    return score


def rbo_tie_orders(S, T, which: str = "high") -> tuple:
    r"""The orders of the tied items of ``S`` and ``T`` that give the highest (or lowest) RBO.

    Every RBO score of two tie-free lists (:data:`RBO_SCORES`) is a sum of the overlaps
    :math:`X_d = |S_{:d} \cap T_{:d}|` with non-negative weights, given the lengths and the
    number of shared items, which no order changes. One pair of orders makes every
    :math:`X_d` as large as it can be at once, and another every :math:`X_d` as small, so each
    score reaches its maximum (minimum) over the orders of the ties there:

    ``"high"``
        inside a tie group of ``S``, items go by the group of ``T`` they belong to (earlier
        groups first, items missing from ``T`` last), and the same in ``T`` by the groups of
        ``S``; items that share both a group of ``S`` and a group of ``T`` come in the same
        order in both lists;
    ``"low"``
        inside a group of ``S``, items missing from ``T`` first, then items of later groups of
        ``T`` before earlier ones (and the same in ``T``); items that share both groups come in
        opposite orders in the two lists.

    At a depth ``d`` the overlap counts items both lists hold in their top ``d``: a tie group
    that straddles ``d`` contributes its items already complete in the other list's top ``d``
    before any other (each is a sure match), then items of the other list's straddling group
    in a common order (the two choices overlap as much as possible). Reversing every preference
    gives the least overlap. The tests check both against every order of small lists.

    Parameters
    ----------
    S, T : sequence
        Rankings with ties, as in :func:`rbo`.
    which : {"high", "low"}

    Returns
    -------
    tuple of two lists
        Tie-free orders of ``S`` and ``T`` (each a list of items).

    Examples
    --------
    >>> rbo_tie_orders([{"a", "b"}, "c"], ["b", "c", "a"], "high")
    (['b', 'a', 'c'], ['b', 'c', 'a'])
    >>> rbo_tie_orders([{"a", "b"}, "c"], ["b", "c", "a"], "low")
    (['a', 'b', 'c'], ['b', 'c', 'a'])
    """
    if which not in ("high", "low"):
        raise ValueError(f"which={which!r} is not valid; choose 'high' or 'low'")
    S, T = _as_ranking(S, "S"), _as_ranking(T, "T")
    idS, tS, _ = _flatten(S)
    idT, tT, _ = _flatten(T)
    _codes(idS, idT)  # repeats refused, naming the list
    group_S = dict(zip(idS, tS.tolist()))  # the group of an item: its first rank
    group_T = dict(zip(idT, tT.tolist()))
    canon = {x: i for i, x in enumerate(dict.fromkeys(idS + idT))}
    far = len(canon) + 1  # beyond every group: the item is missing from the other list
    high = which == "high"

    def order(entries, other_group, flip_canon):
        out = []
        for e in entries:
            if not isinstance(e, frozenset):
                out.append(e)
                continue
            def key(x):
                g = other_group.get(x, far)
                c = -canon[x] if flip_canon else canon[x]
                return (g, c) if high else (-g, c)
            out.extend(sorted(e, key=key))
        return out

    return order(S, group_T, False), order(T, group_S, not high)


def _score_free(score, S, T, p, depth):
    """A tie-free RBO score of two tie-free lists (``depth`` as the function takes it)."""
    return {"rbo": rbo, "rbo_min": rbo_min, "rbo_max": rbo_max, "rbo_res": rbo_res,
            "rbo_ext": rbo_ext}[score](S, T, p, depth=depth)


def _extreme(S, T, p, depth, score, which):
    p = _check_p(p)
    score = _check_score(score)
    if score != "rbo":  # the bounds and the extrapolation cut the lists at a group boundary
        S, T = _prepare(S, T, p, depth, "a")[1:3]
        depth = None
    So, To = rbo_tie_orders(S, T, which)
    return _score_free(score, So, To, p, depth)


def rbo_low(S, T, p: float, depth=None, score: str = "rbo_ext") -> float:
    r"""RBO^low: the lowest value of an RBO score over every order of the tied items.

    .. math:: RBO^{low} = \min_{\sigma \in O(S),\, \tau \in O(T)} RBO(\sigma, \tau)

    where :math:`O(S)` holds the tie-free lists that order each tie group of ``S``, and RBO is
    the tie-free ``score`` (:data:`RBO_SCORES`: :func:`rbo`, :func:`rbo_min`,
    :func:`rbo_max`, :func:`rbo_res` or :func:`rbo_ext`, default the extrapolated RBO). With
    :func:`rbo_high` and :func:`rbo_avg` it says how far the order of the ties alone can move
    the score: the quantities of Corsi and Urbano's follow-up to their tie-aware RBO
    {cite}`corsi2024ties` {cite}`corsi2024tiesrange`. Exact and without enumerating: the
    minimising orders are known (:func:`rbo_tie_orders`), so the cost is one tie-free RBO
    (O(n log n)) whatever the number of orders. ``rbo_res`` is the same for every order (it
    depends on the lengths and the number of shared items only). ``depth`` as in the score's
    function. Without ties, the tie-free score.

    Parameters
    ----------
    S, T : sequence
        Rankings, a ``set`` inside a list holding tied items (see :func:`rbo`).
    p : float, 0 < p < 1
    depth : int, optional
    score : {"rbo_ext", "rbo", "rbo_min", "rbo_max", "rbo_res"}

    Returns
    -------
    float

    Examples
    --------
    >>> S, T = [{"a", "b"}, "c"], ["b", "c", "a"]
    >>> round(rbo_low(S, T, 0.9), 4), round(rbo_ext(["a", "b", "c"], T, 0.9), 4)
    (0.855, 0.855)
    """
    return _extreme(S, T, p, depth, score, "low")


def rbo_high(S, T, p: float, depth=None, score: str = "rbo_ext") -> float:
    r"""RBO^high: the highest value of an RBO score over every order of the tied items.

    .. math:: RBO^{high} = \max_{\sigma \in O(S),\, \tau \in O(T)} RBO(\sigma, \tau)

    Exact, from the maximising orders of :func:`rbo_tie_orders`; everything else as in
    :func:`rbo_low` {cite}`corsi2024tiesrange`.

    Parameters
    ----------
    S, T : sequence
    p : float, 0 < p < 1
    depth : int, optional
    score : {"rbo_ext", "rbo", "rbo_min", "rbo_max", "rbo_res"}

    Returns
    -------
    float

    Examples
    --------
    >>> S, T = [{"a", "b"}, "c"], ["b", "c", "a"]
    >>> round(rbo_high(S, T, 0.9), 4), round(rbo_ext(["b", "a", "c"], T, 0.9), 4)
    (0.955, 0.955)
    """
    return _extreme(S, T, p, depth, score, "high")


def rbo_avg(S, T, p: float, depth=None, score: str = "rbo_ext") -> float:
    r"""RBO^avg: the mean of an RBO score over every order of the tied items, each order of
    each list equally likely.

    .. math:: RBO^{avg} = \frac{1}{|O(S)|\,|O(T)|}\sum_{\sigma \in O(S),\, \tau \in O(T)} RBO(\sigma, \tau)

    Each score is linear in the overlaps :math:`X_d` (given the lengths and the number of
    shared items), so the mean is the score of the expected overlaps,
    :math:`E[X_d] = \sum_i c^S_d(i)\, c^T_d(i)` with :math:`c_d(i)` the probability that item
    ``i`` is in a list's top ``d`` (the contributions of RBO^a, see :func:`rbo_ext`): exact, in
    O(n log n). It equals Corsi and Urbano's RBO^a for the base RBO and ``RBO_min``, and for
    ``RBO_ext`` of lists of equal length; for ``RBO_max``, and for ``RBO_ext`` of lists of
    different lengths, RBO^a uses other continuations and the two differ
    {cite}`corsi2024ties` {cite}`corsi2024tiesrange`. ``depth`` and ``score`` as in
    :func:`rbo_low`.

    Parameters
    ----------
    S, T : sequence
    p : float, 0 < p < 1
    depth : int, optional
    score : {"rbo_ext", "rbo", "rbo_min", "rbo_max", "rbo_res"}

    Returns
    -------
    float

    Examples
    --------
    >>> S, T = [{"a", "b"}, "c"], ["b", "c", "a"]
    >>> orders = (["a", "b", "c"], ["b", "a", "c"])
    >>> round(rbo_avg(S, T, 0.9), 4), round(sum(rbo_ext(o, T, 0.9) for o in orders) / 2, 4)
    (0.905, 0.905)
    """
    p = _check_p(p)
    score = _check_score(score)
    if score == "rbo":
        return rbo(S, T, p, depth=depth, ties="a")  # the expected overlaps at depths <= k
    S, T = _prepare(S, T, p, depth, "a")[1:3]
    if not (_has_ties(S) or _has_ties(T)):
        return _score_free(score, S, T, p, None)
    core = _TieCore(S, T)
    s, l = core.s, core.l
    X = core.family("a")[0]  # the expected overlaps E[X_d], d = 1..l
    if score == "rbo_ext":
        return _ext_free(p, s, l, X)
    lo, hi, _ = _bounds(p, s, l, X)
    return {"rbo_min": lo, "rbo_max": hi, "rbo_res": hi - lo}[score]


def _check_d(d, name="d") -> np.ndarray:
    arr = np.asarray(d)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer) or np.any(arr < 1):
        raise ValueError(f"{name}={d!r} must be an integer >= 1 (a depth)")
    return arr.astype(np.int64)


def rbo_weight(p: float, d):
    r"""The weight of the prefix of length ``d`` in RBO, :math:`W_{RBO}(1{:}d)`.

    The share of the full score decided by the first ``d`` ranks (Webber et al. eq. 21):

    .. math::

        W_{RBO}(1{:}d) = 1 - p^{d-1} + \frac{1-p}{p}\, d
            \left(\ln\frac{1}{1-p} - \sum_{i=1}^{d-1}\frac{p^i}{i}\right)

    ``d`` may be an array. Value in (0, 1], increasing in ``d``, decreasing in ``p``.

    Parameters
    ----------
    p : float, 0 < p < 1
        Persistence.
    d : int or array_like of int
        Prefix lengths, at least 1.

    Returns
    -------
    float or ndarray of float
        In (0, 1], the shape of ``d``.

    Examples
    --------
    >>> round(rbo_weight(0.9, 10), 4)  # the first 10 ranks carry about 86% at p = 0.9
    0.8556
    >>> round(float(rbo_weight(0.98, 50)), 4)  # often quoted as 86%
    0.8522
    """
    p = _check_p(p)
    darr = _check_d(d)
    flat = darr.ravel()
    out = np.empty(flat.shape, dtype=float)
    n_terms = math.ceil(-45.0 / math.log(p)) + 1
    for i, di in enumerate(flat):  # one series per requested depth (not a hot path)
        di = int(di)
        if n_terms <= 2_000_000:
            # 1 - W(1:d) is the weight of the ranks below d: (1-p)/p sum_{i>d} (1 - d/i) p^i,
            # a series of positive terms, summed directly to avoid cancellation near 1
            j = np.arange(n_terms, dtype=float)
            rest = (1.0 - p) / p * math.exp((di + 1) * math.log(p)) * np.sum(
                (j + 1) / (di + 1 + j) * np.exp(j * math.log(p))
            )
            out[i] = 1.0 - rest
        else:  # p extremely close to 1: the closed form of the notes
            out[i] = 1.0 - p ** (di - 1) + (1.0 - p) / p * di * _log_tail(p, di - 1)
    out = out.reshape(darr.shape)
    return float(out) if out.ndim == 0 else out


def depth_for_weight(p: float, w: float) -> int:
    """The smallest depth ``d`` whose prefix carries at least weight ``w``: the inverse of
    :func:`rbo_weight` in ``d``.

    ``w`` must satisfy ``0 < w < 1`` (weight 1 is reached only at infinite depth).

    Parameters
    ----------
    p : float, 0 < p < 1
        Persistence.
    w : float, 0 < w < 1
        The weight the prefix must carry.

    Returns
    -------
    int

    Examples
    --------
    >>> depth_for_weight(0.9, 0.85)
    10
    >>> depth_for_weight(0.98, 0.86)
    52
    """
    p = _check_p(p)
    w = check_probability(w, "w", meaning="weight 1 needs infinite depth")
    if rbo_weight(p, 1) >= w:
        return 1
    hi = 2
    while rbo_weight(p, hi) < w:
        hi *= 2
    lo = hi // 2  # W(lo) < w <= W(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if rbo_weight(p, mid) >= w:
            hi = mid
        else:
            lo = mid
    return hi


def p_for_weight(d: int, w: float) -> float:
    """The persistence ``p`` for which the first ``d`` ranks carry weight ``w`` in RBO.

    Solves ``rbo_weight(p, d) = w`` for ``p`` (the weight decreases as ``p`` grows). Requires
    ``0 < w < 1``; for ``d = 1`` and ``w`` near 1 the answer tends to 0.

    Parameters
    ----------
    d : int
        The prefix length, at least 1.
    w : float, 0 < w < 1
        Its weight.

    Returns
    -------
    float
        In (0, 1).

    Examples
    --------
    >>> round(p_for_weight(10, 0.8556), 3)
    0.9
    """
    from scipy.optimize import brentq

    d = int(_check_d(d))
    w = check_probability(w, "w", meaning="a weight")
    lo, hi = 1e-9, 1.0 - 1e-9
    f = lambda p: rbo_weight(p, d) - w  # noqa: E731
    if f(lo) < 0 or f(hi) > 0:
        raise ValueError(f"no p in (0, 1) gives weight {w} to the top {d} ranks")
    return float(brentq(f, lo, hi, xtol=1e-12))


def random_extension_rbo(S, T, p: float, n: int, depth: int, seed: int = 0, shared: float = 0.5) -> np.ndarray:
    """RBO at ``depth`` of ``n`` random extensions of the prefixes ``S`` and ``T``.

    Each extension continues both lists to ``depth`` items: every new rank takes, with
    probability ``shared``, an item from a pool common to both lists (which includes the
    other list's prefix), and otherwise an item private to that list. With ``p**depth``
    negligible the value is the full RBO of the extended lists, so it must lie within
    :func:`rbo_bounds` of the prefixes. Deterministic for a given ``seed``.

    Parameters
    ----------
    S, T : sequence of hashable
        Tie-free prefixes, best first.
    p : float, 0 < p < 1
        Persistence.
    n : int
        Number of extensions.
    depth : int
        Length of the extended lists, at least the longer prefix.
    seed : int
        Seed of the extensions.
    shared : float
        Probability, in [0, 1], that a new rank takes a shared item.

    Returns
    -------
    ndarray of float, shape (n,)

    Examples
    --------
    >>> v = random_extension_rbo("abc", "cax", 0.9, n=5, depth=400, seed=1)
    >>> lo, hi = rbo_bounds("abc", "cax", 0.9)
    >>> bool(((v >= lo - 1e-12) & (v <= hi + 1e-12)).all())
    True
    """
    p = _check_p(p)
    S, T = _as_items(S, "S"), _as_items(T, "T")
    _codes(S, T)  # validation: repeats
    n = check_int(n, "n", low=1)
    depth = check_int(depth, "depth", low=max(len(S), len(T)), explain="the longer prefix")
    if not 0.0 <= shared <= 1.0:
        raise ValueError(f"shared={shared!r} must lie in [0, 1]")
    rng = np.random.default_rng(seed)
    out = np.empty(n)
    for r in range(n):  # one extension per draw; each is built with numpy permutations
        common = [("c", i) for i in rng.permutation(depth)] + list(S) + list(T)
        common = [common[i] for i in rng.permutation(len(common))]
        lists = []
        for tag, own in (("s", S), ("t", T)):
            seen = set(own)
            pool = [x for x in common if x not in seen]
            take_shared = rng.random(depth) < shared
            ext, i_c, i_p = list(own), 0, 0
            for use in take_shared[: depth - len(own)]:
                if use and i_c < len(pool):
                    ext.append(pool[i_c])
                    i_c += 1
                else:
                    ext.append((tag, i_p))
                    i_p += 1
            lists.append(ext)
        out[r] = rbo(lists[0], lists[1], p, depth=depth)
    return out
