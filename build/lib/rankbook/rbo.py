"""Rank-biased overlap (RBO) of Webber, Moffat and Zobel, for two ranked lists of items.

RBO compares two rankings that may be incomplete (prefixes of longer, possibly endless lists),
of different lengths, and that need not hold the same items {cite}`webber2010rbo`. At each depth
``d`` the *agreement* is the share of the top ``d`` items the two lists have in common,
``A_d = X_d / d`` with ``X_d = |S_{:d} ∩ T_{:d}|``, and RBO averages the agreements with the
geometric weights ``(1 - p) p^{d-1}``:

.. math:: RBO(S, T, p) = (1 - p) \\sum_{d=1}^{\\infty} p^{d-1} A_d .

The ranking notes {cite}`rankingnotes` describe it, with its lower bound ``RBO_min``, the
residual ``RBO_res`` and the extrapolated point estimate ``RBO_ext``.

Conventions
-----------
* Lists are sequences of hashable items, best first; a ``str`` is read as its characters, so
  ``rbo("abc", "acb", 0.9)`` works. An item repeated within one list raises ``ValueError``.
* Ties are refused: a position holding a ``set``/``frozenset``/``list`` of items raises
  ``ValueError``. Webber et al. extend RBO to ties (their Section 4.4, with agreement
  ``2 X_d / (|S_{:d}| + |T_{:d}|)``); this module does not implement that variant, so break ties
  first (e.g. by item id) and say how.
* Uneven lists: with ``s <= l`` the lengths of the shorter and the longer list, the shorter one
  is considered unknown beyond depth ``s`` (Webber et al. Section 4.3). ``rbo_min``,
  ``rbo_res`` and ``rbo_ext`` use everything seen, up to depth ``l``.
* Every value lies in [0, 1] without clipping: each is computed as a weighted mean of
  agreements in [0, 1] whose weights are summed in the same order as the total weight (which
  is 1 in exact arithmetic), and ``rbo_min`` and the upper bound share one summation, so that
  ``0 <= rbo_min <= rbo_min + rbo_res <= 1`` up to one rounding of the final addition.
* ``p`` must satisfy ``0 < p < 1``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "rbo",
    "rbo_min",
    "rbo_res",
    "rbo_ext",
    "rbo_bounds",
    "rbo_weight",
    "depth_for_weight",
    "p_for_weight",
    "overlaps",
    "random_extension_rbo",
]

_TIE_TYPES = (set, frozenset, list, dict)
_FAR = np.iinfo(np.int64).max  # position of an item absent from a list


# --------------------------------------------------------------------------------------------
# validation


def _check_p(p) -> float:
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not (0.0 < float(p) < 1.0):
        raise ValueError(f"p={p!r} must be a real number with 0 < p < 1 (the persistence)")
    return float(p)


def _as_items(values, name: str) -> list:
    if isinstance(values, str):
        return list(values)
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(f"{name} must be a 1-D list of items, got shape {values.shape}")
        values = values.tolist()
    try:
        items = list(values)
    except TypeError:
        raise ValueError(f"{name} must be a sequence of items (list, tuple, array or str)") from None
    if any(issubclass(t, _TIE_TYPES) for t in set(map(type, items))):
        i = next(i for i, item in enumerate(items) if isinstance(item, _TIE_TYPES))
        raise ValueError(
            f"{name}[{i}] is a {type(items[i]).__name__}: tied items are not supported; break the "
            "tie (for example by item id) so that each position holds one item"
        )
    return items


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
    if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 0:
        raise ValueError(f"depth={depth!r} must be an integer >= 0 (or None)")
    if depth > longest:
        raise ValueError(
            f"depth={depth} exceeds the longer list ({longest} items): nothing is known there"
        )
    return int(depth)


def overlaps(S, T, depth=None) -> np.ndarray:
    """The overlaps ``X_d = |S_{:d} ∩ T_{:d}|`` for ``d = 1 .. depth`` (default: longer length).

    Beyond the end of a list only its seen items count.

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


def _prepare(S, T, p, depth):
    p = _check_p(p)
    S, T = _as_items(S, "S"), _as_items(T, "T")
    depth = _check_depth(depth, max(len(S), len(T)))
    if depth is not None:
        S, T = S[:depth], T[:depth]
    s, l = sorted((len(S), len(T)))
    X = _overlaps(S, T, l)
    return p, s, l, X


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


def rbo(S, T, p: float, depth=None) -> float:
    r"""Base RBO of a prefix: the part of RBO that the first ``depth`` ranks already fix.

    .. math:: RBO@k = (1 - p) \sum_{d=1}^{k} p^{d-1} \frac{X_d}{d}

    {cite}`webber2010rbo` {cite}`rankingnotes`. It is a lower bound of the full RBO, looser
    than :func:`rbo_min`. ``depth`` defaults to the shorter list's length (as in the ``rbo``
    package); it may go up to the longer length, with the shorter list's unseen ranks matching
    nothing. Ties refused; value in [0, 1 - p^k].

    Parameters
    ----------
    S, T : sequence of hashable
        Rankings, best first, each item at most once.
    p : float, 0 < p < 1
        Persistence: the weight of rank ``d`` is proportional to ``p^{d-1}``.
    depth : int, optional

    Examples
    --------
    >>> round(rbo("abcdefg", "zcavwxy", p=0.9), 4)
    0.1516
    >>> rbo("abc", "abc", p=0.5)  # 1 - 0.5**3
    0.875
    """
    p = _check_p(p)
    S, T = _as_items(S, "S"), _as_items(T, "T")
    depth = _check_depth(depth, max(len(S), len(T)))
    k = min(len(S), len(T)) if depth is None else depth
    X = _overlaps(S, T, k)
    w = _weights(p, k)
    tail = math.exp(k * math.log(p))
    d = np.arange(1, k + 1, dtype=float)
    return float(np.sum(w * (X / d)) / (np.sum(w) + tail))


def _bounds(p, s, l, X):
    """(min, max, total weight) of RBO over all extensions of the two prefixes."""
    X_l = int(X[-1]) if l else 0
    f = l + s - X_l  # depth from which the upper bound's agreement is 1
    F = max(f, l + 1)  # the bound arrays run over d = 1 .. F-1, then the tail
    d = np.arange(1, F, dtype=float)
    x_seen = np.empty(F - 1)
    x_seen[:l] = X
    x_seen[l:] = X_l
    a_min = x_seen / d
    x_max = x_seen.copy()
    mid = (d > s) & (d <= l)
    x_max[mid] = x_seen[mid] + d[mid] - s  # unseen ranks of the short list match the long one
    far = d > l
    x_max[far] = X_l + 2 * d[far] - s - l  # both lists' unseen ranks match seen items
    a_max = x_max / d
    w = _weights(p, F - 1)
    tail_w = math.exp((F - 1) * math.log(p))
    tail_min = X_l * (1.0 - p) / p * _log_tail(p, F - 1)
    total = np.sum(w) + tail_w
    lo = (np.sum(w * a_min) + tail_min) / total
    hi = (np.sum(w * a_max) + tail_w) / total
    return float(lo), float(hi), (w, d, total, tail_w)


def rbo_min(S, T, p: float, depth=None) -> float:
    r"""Tight lower bound of the RBO of any two lists that begin with ``S`` and ``T``.

    For equal lengths ``k`` (Webber et al., eq. 11; the ranking notes):

    .. math::

        RBO_{min} = \frac{1-p}{p}\left(\sum_{d=1}^{k} (X_d - X_k)\frac{p^d}{d}
                    - X_k \ln(1-p)\right)

    i.e. no item beyond the prefixes ever matches. For uneven lists (``s < l``) the shorter
    list's unseen ranks match nothing either, which gives the same formula with ``k = l``.
    ``depth`` truncates both lists first. Ties refused; value in [0, 1].

    Examples
    --------
    >>> round(rbo_min("abcdefg", "zcavwxy", p=0.9), 4)
    0.2217
    """
    p, s, l, X = _prepare(S, T, p, depth)
    return _bounds(p, s, l, X)[0]


def rbo_res(S, T, p: float, depth=None) -> float:
    r"""Residual: the most that the unseen ranks can add to :func:`rbo_min`.

    For equal lengths ``k``, with ``f = 2k - X_k`` (notes; Webber et al. eq. 13):

    .. math::

        RBO_{res} = (1-p)\left(\sum_{d=k+1}^{f} \frac{2(d-k)}{d} p^{d-1}
                    + \sum_{d=f+1}^{\infty}\left(1 - \frac{X_k}{d}\right)p^{d-1}\right)

    The maximum is reached when every unseen rank of each list holds an item seen in the other
    list, or a new item shared by both. For uneven lists (``s < l``) the shorter list's ranks
    ``s+1..l`` first match the longer list's unmatched items, and ``f = l + s - X_l``
    (Webber et al. eq. 30). Ties refused; value in [0, 1 - rbo_min].

    Examples
    --------
    >>> round(rbo_res("abcdefg", "zcavwxy", p=0.9), 4)
    0.359
    >>> round(rbo_min("abc", "abc", 0.9) + rbo_res("abc", "abc", 0.9), 12)
    1.0
    """
    p, s, l, X = _prepare(S, T, p, depth)
    lo, hi, _ = _bounds(p, s, l, X)
    return hi - lo


def rbo_bounds(S, T, p: float, depth=None) -> tuple[float, float]:
    """``(rbo_min, rbo_min + rbo_res)``: the range of the full RBO, computed together.

    Examples
    --------
    >>> tuple(round(v, 4) for v in rbo_bounds("abcdefg", "zcavwxy", p=0.9))
    (0.2217, 0.5807)
    """
    p, s, l, X = _prepare(S, T, p, depth)
    lo, hi, _ = _bounds(p, s, l, X)
    return lo, hi


def rbo_ext(S, T, p: float, depth=None) -> float:
    r"""Extrapolated RBO: assume the agreement seen at the end of the prefixes continues.

    Webber et al. eq. 32, with ``s <= l`` the two lengths:

    .. math::

        RBO_{ext} = \frac{1-p}{p}\left(\sum_{d=1}^{l}\frac{X_d}{d}p^d
          + \sum_{d=s+1}^{l}\frac{X_s (d-s)}{s\,d}p^d\right)
          + \left(\frac{X_l - X_s}{l} + \frac{X_s}{s}\right)p^l

    For equal lengths ``k`` it is ``(1-p)/p * sum_d X_d/d p^d + X_k/k * p^k``; it agrees with
    the ``rbo`` package's ``rbo_ext``. ``nan`` when a list is empty (nothing to extrapolate).
    Ties refused; value in [0, 1].

    Examples
    --------
    >>> round(rbo_ext("abcdefg", "zcavwxy", p=0.9), 4)
    0.2882
    >>> rbo_ext("abcd", "abcd", p=0.9)
    1.0
    """
    p, s, l, X = _prepare(S, T, p, depth)
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

    Examples
    --------
    >>> depth_for_weight(0.9, 0.85)
    10
    >>> depth_for_weight(0.98, 0.86)
    52
    """
    p = _check_p(p)
    if isinstance(w, bool) or not isinstance(w, numbers.Real) or not (0.0 < float(w) < 1.0):
        raise ValueError(f"w={w!r} must satisfy 0 < w < 1 (weight 1 needs infinite depth)")
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

    Examples
    --------
    >>> round(p_for_weight(10, 0.8556), 3)
    0.9
    """
    from scipy.optimize import brentq

    d = int(_check_d(d))
    if isinstance(w, bool) or not isinstance(w, numbers.Real) or not (0.0 < float(w) < 1.0):
        raise ValueError(f"w={w!r} must satisfy 0 < w < 1")
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
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n={n!r} must be an integer >= 1")
    if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < max(len(S), len(T)):
        raise ValueError(f"depth={depth!r} must be an integer >= the longer prefix ({max(len(S), len(T))})")
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
