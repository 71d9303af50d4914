r"""AP rank correlation: Yilmaz et al.'s :math:`\tau_{AP}` and Urbano and Marrero's tie-aware
:math:`\tau_{AP,a}` and :math:`\tau_{AP,b}`, batched over pairs of score vectors.

:math:`\tau_{AP}` {cite}`yilmaz2008tauap` compares an estimated ranking with a true one and, unlike
Kendall's :math:`\tau`, weighs the top: walking down the *estimated* ranking, each item is
asked which share of the items above it the true ranking also puts above it,

.. math::

    \tau_{AP} = \frac{2}{n-1}\sum_{i=2}^{n}\frac{C(i)}{i-1} - 1 ,

where :math:`C(i)` counts the items above rank :math:`i` of the estimated ranking that the true
ranking also ranks above that item. A swap near the top of the estimated ranking costs more
than one near the bottom. Urbano and Marrero {cite}`urbano2017tiesap` extend it to ties:
:math:`\tau_{AP,a}` (accuracy: a true ranking without ties against an estimate that may tie
items) is the expected :math:`\tau_{AP}` over the orders of the estimate's tied items, and
:math:`\tau_{AP,b}` (agreement between two rankings that both may tie) is the mean of the two
orientations of an asymmetric form that skips the top group and divides by the number of items
strictly above. The formulas are those of julian-urbano/ircor, the authors' R package; the
tests reproduce its published test values.

Orientation and conventions
---------------------------
- Every function takes ``(x, y)``: ``x`` the **reference** ("true") scores and ``y`` the
  **estimated** scores of the same ``n`` items, the order of ircor's ``tauAP(x, y)``. The sum
  runs over the positions of ``y``'s ranking. :math:`\tau_{AP}` and :math:`\tau_{AP,a}` are not
  symmetric: swapping ``x`` and ``y`` changes the value; :math:`\tau_{AP,b}` is symmetric.
- Scores: by default (``decreasing=True``) a larger value ranks higher, as for the
  effectiveness of systems; ``decreasing=False`` reads the values as ranks or positions (1 is
  the top). Equal values are ties.
- Shapes ``(..., n)`` with broadcast batch axes, like :mod:`rankbook.metrics`; a float for one
  pair, an array of the batch shape otherwise. ``nan`` for ``n < 2`` (no pair to compare), and
  for :math:`\tau_{AP,b}` when one ranking ties every item (nothing lies strictly above any
  item). A ``nan`` score raises ``ValueError``.
- Exact pair counts in O(n log n) per pair, vectorised over the batch in blocks of bounded
  memory (a radix count of the items above each item that the other ranking also puts above).
- :func:`rankbook.pairwise.pairwise` offers ``"tau_ap"`` over N rankings:
  ``D[i, j]`` takes ranking ``i`` as the reference and ranking ``j`` as the estimate.
"""

from __future__ import annotations

import numpy as np

__all__ = ["tau_ap", "tau_ap_a", "tau_ap_b"]

#: Entries (pairs x n) processed together; each block holds about a dozen int64 arrays of it.
_CHUNK_ELEMENTS = 1 << 17


# --------------------------------------------------------------------------------------------
# the counting kernel


def _smaller_before(v: np.ndarray) -> np.ndarray:
    """``L[r, i] = #{j < i : v[r, j] < v[r, i]}`` for rows of permutations of ``0..n-1``.

    Most significant bit first: the values are kept grouped by their bits above ``b`` (each
    group holds a known range of values, so it starts at a known index) and, inside a group, in
    their original order. A pair first differing at bit ``b`` counts for the later item when
    the earlier one has the 0: the zeros before an item with bit 1 in its group. Then each
    group is stably split by bit ``b``. O(n log n) per row, exact int64.
    """
    m, n = v.shape
    out = np.zeros((m, n), dtype=np.int64)
    if n < 2 or m == 0:
        return out
    rows = np.arange(m)[:, None]
    idx = np.arange(n, dtype=np.int64)
    x = v.astype(np.int64, copy=True)
    pos = np.broadcast_to(idx, (m, n)).copy()  # original position of each arranged entry
    acc = np.zeros((m, n), dtype=np.int64)
    for b in range(int(n - 1).bit_length() - 1, -1, -1):
        bit = (x >> b) & 1
        start = (x >> (b + 1)) << (b + 1)  # where the entry's group starts
        zeros = np.cumsum(1 - bit, axis=1)
        zeros -= 1 - bit  # zeros before each entry in the row
        zeros -= np.take_along_axis(zeros, start, axis=1)  # ... in its group
        acc += bit * zeros
        n_zeros = np.minimum(1 << b, n - start)  # the group's values with bit b = 0
        new = np.where(bit == 0, start + zeros, start + n_zeros + (idx - start - zeros))
        for arr in (x, pos, acc):
            tmp = np.empty_like(arr)
            tmp[rows, new] = arr
            arr[...] = tmp
    out[rows, pos] = acc
    return out


def _prepare(x, y, decreasing, names=("x", "y")):
    """Float arrays of one broadcast shape (..., n), oriented so that a smaller value ranks
    higher; ``ValueError`` for nan, infinite values of the wrong kind or shapes that differ."""
    if not isinstance(decreasing, (bool, np.bool_)):
        raise ValueError(f"decreasing must be True (larger values rank higher: scores) or False "
                         f"(smaller values rank higher: ranks), got {decreasing!r}")
    try:
        a = np.asarray(x, dtype=np.float64)
        b = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{names[0]} and {names[1]} must be arrays of numbers (one score per "
                         "item)") from None
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"{names[0]} and {names[1]} must hold one score per item (shape (..., n))")
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"{names[0]} and {names[1]} must score the same items: got "
                         f"{a.shape[-1]} and {b.shape[-1]} values")
    try:
        a, b = np.broadcast_arrays(a, b)
    except ValueError:
        raise ValueError(f"the batch shapes of {names[0]} {a.shape} and {names[1]} {b.shape} do "
                         "not broadcast") from None
    for name, arr in zip(names, (a, b)):
        if np.isnan(arr).any():
            raise ValueError(f"{name} holds nan: every item needs a score (drop the items "
                             "without one from both vectors)")
    if decreasing:
        a, b = -a, -b
    return a, b


def _ties(arr: np.ndarray) -> np.ndarray:
    """Rows with two equal values."""
    s = np.sort(arr, axis=-1)
    return (s[..., 1:] == s[..., :-1]).any(axis=-1)


def _counts(a: np.ndarray, b: np.ndarray):
    """For rows of keys (smaller ranks higher): walking down ``b``'s ranking (a tie group of
    ``b`` in any order), for each position the number ``C`` of items strictly above in ``b``
    that ``a`` also puts strictly above, the position's group start ``g`` (items strictly
    above in ``b``) and the group size ``t``. Arrays (m, n) in ``b``'s order."""
    m, n = a.shape
    # b ascending; inside a tie group of b, a descending (an earlier item never lies strictly
    # above a later one in a, so no pair within a group of b counts)
    order = np.lexsort((-a, b), axis=-1)
    a_o = np.take_along_axis(a, order, axis=-1)
    b_o = np.take_along_axis(b, order, axis=-1)
    # a permutation that breaks the ties of a against earlier positions: an earlier item with
    # an equal a gets the larger number, so "smaller number before me" means strictly above
    pos = np.broadcast_to(np.arange(n), (m, n))
    rank_order = np.lexsort((-pos, a_o), axis=-1)
    v = np.empty((m, n), dtype=np.int64)
    np.put_along_axis(v, rank_order, np.broadcast_to(np.arange(n, dtype=np.int64), (m, n)), axis=-1)
    C = _smaller_before(v)
    new = np.ones((m, n), dtype=bool)
    new[:, 1:] = b_o[:, 1:] != b_o[:, :-1]
    idx = np.arange(n)
    g = np.maximum.accumulate(np.where(new, idx, 0), axis=1)
    last = np.ones((m, n), dtype=bool)
    last[:, :-1] = new[:, 1:]
    end = np.minimum.accumulate(np.where(last, idx, n - 1)[:, ::-1], axis=1)[:, ::-1]
    return C, g, end - g + 1


def _blocks(a, b, kernel):
    """Apply ``kernel(a_rows, b_rows) -> values`` to blocks of rows of bounded size."""
    shape = a.shape[:-1]
    n = a.shape[-1]
    A, B = a.reshape(-1, n), b.reshape(-1, n)
    out = np.empty(A.shape[0])
    per = max(1, _CHUNK_ELEMENTS // max(n, 1))
    for s in range(0, A.shape[0], per):
        out[s:s + per] = kernel(A[s:s + per], B[s:s + per])
    out = out.reshape(shape)
    return float(out) if out.ndim == 0 else out


def _finish(C: np.ndarray) -> np.ndarray:
    """Yilmaz's tau_AP from the counts C at positions 0..n-1 of the estimated ranking."""
    n = C.shape[-1]
    if n < 2:
        return np.full(C.shape[0], np.nan)
    i = np.arange(1, n, dtype=np.float64)
    return 2.0 / (n - 1) * (C[:, 1:] / i).sum(axis=1) - 1.0


def _tau_ap_positions(v: np.ndarray) -> np.ndarray:
    """tau_AP of rows ``v``: the reference positions (0-based, 0 the top) of the estimated
    ranking's items, listed in the estimated order (the kernel of :func:`rankbook.pairwise`)."""
    return _finish(_smaller_before(v))


# --------------------------------------------------------------------------------------------
# the measures


def tau_ap(x, y, decreasing: bool = True):
    r"""Yilmaz et al.'s AP rank correlation of an estimated ranking ``y`` against a reference
    ``x``, neither with ties.

    .. math::

        \tau_{AP}(x, y) = \frac{2}{n-1}\sum_{i=2}^{n}\frac{C(i)}{i-1} - 1

    with the items in ``y``'s order and :math:`C(i)` the number of items above position
    :math:`i` that ``x`` also ranks above the item at :math:`i` {cite}`yilmaz2008tauap`. In
    [-1, 1]: 1 for the same order, -1 for the reverse. Asymmetric: ``x`` is the truth, ``y``
    the estimate (ircor's ``tauAP(x, y)``; see the module docstring).

    Parameters
    ----------
    x : array_like, shape (..., n)
        Reference ("true") scores of the n items, e.g. the systems' scores under the measure
        taken as the truth.
    y : array_like, shape (..., n)
        Estimated scores of the same items, in the same item order.
    decreasing : bool
        True (default): larger values rank higher (scores). False: smaller values rank higher
        (ranks, 1 at the top).

    Returns
    -------
    float or ndarray
        One value per pair (the broadcast batch shape); nan for fewer than 2 items.

    Raises
    ------
    ValueError
        Ties in ``x`` or ``y`` (use :func:`tau_ap_a` or :func:`tau_ap_b`), nan, or vectors of
        different lengths.

    Examples
    --------
    >>> x = [0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94]
    >>> y = [0.37, 0.06, 0.2, 0.27, 0.57, 0.66, 0.63, 0.91, 0.9, 0.94]
    >>> round(tau_ap(x, y), 7)  # ircor's README: tauAP(x, y) = 0.7491182
    0.7491182
    >>> tau_ap([[1, 2, 3], [1, 2, 3]], [[1, 2, 3], [3, 2, 1]]).tolist()
    [1.0, -1.0]
    """
    a, b = _prepare(x, y, decreasing)
    for name, arr, other in (("x", a, "tau_ap_b"), ("y", b, "tau_ap_a or tau_ap_b")):
        if _ties(arr).any():
            raise ValueError(f"{name} has tied values: tau_ap takes rankings without ties; use "
                             f"{other} (Urbano and Marrero's tie-aware forms)")
    return _blocks(a, b, lambda A, B: _finish(_counts(A, B)[0]))


def _harmonic(n: int) -> np.ndarray:
    """``H[k] = 1 + 1/2 + ... + 1/k`` for k = 0..n (H[0] = 0)."""
    H = np.zeros(n + 1)
    if n:
        H[1:] = np.cumsum(1.0 / np.arange(1, n + 1))
    return H


def _tau_ap_a_rows(A, B):
    C, g, t = _counts(A, B)
    n = A.shape[-1]
    if n < 2:
        return np.full(A.shape[0], np.nan)
    H = _harmonic(n)
    above = np.where(g > 0, (H[g + t - 1] - H[np.maximum(g - 1, 0)]) / t, 0.0)
    q = np.arange(n, dtype=np.float64)
    offset = q - g  # items of the same group above this position
    within = np.zeros_like(q)
    within[1:] = 1.0 / q[1:]
    total = (C * above).sum(axis=1) + 0.5 * (offset * within).sum(axis=1)
    return 2.0 / (n - 1) * total - 1.0


def tau_ap_a(x, y, decreasing: bool = True):
    r""":math:`\tau_{AP,a}`: the expected :math:`\tau_{AP}` of an estimate ``y`` that may tie
    items against a reference ``x`` without ties (Urbano and Marrero's accuracy form).

    Each order of ``y``'s tied items equally likely, the expectation in closed form: an item of
    a tie group of ``t`` items whose first position is :math:`g+1` (``g`` items strictly above)
    sits at each of the group's positions with probability :math:`1/t`, and a pair inside the
    group is concordant with probability 1/2,

    .. math::

        \tau_{AP,a} = \frac{2}{n-1}\left(\sum_i C_i\,\frac{1}{t_i}\sum_{k=1}^{t_i}\frac{1}{g_i+k-1}
            + \frac{1}{2}\sum_{\text{groups}}\sum_{k=1}^{t-1}\frac{k}{g+k}\right) - 1

    with :math:`C_i` the items strictly above ``i`` in ``y`` that ``x`` also ranks above it
    {cite}`urbano2017tiesap` (ircor's ``tauAP_a``). Without ties in ``y`` it is
    :func:`tau_ap`. Asymmetric: ``x`` is the truth.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Reference scores, without ties.
    y : array_like, shape (..., n)
        Estimated scores; equal values are ties.
    decreasing : bool
        As in :func:`tau_ap`.

    Returns
    -------
    float or ndarray

    Raises
    ------
    ValueError
        Ties in ``x`` (use :func:`tau_ap_b`), nan, or vectors of different lengths.

    Examples
    --------
    >>> x = [0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94]
    >>> y = [0.4, 0.0, 0.2, 0.2, 0.6, 0.6, 0.6, 1.0, 0.8, 1.0]  # ircor's README: round(y*5)/5
    >>> round(tau_ap_a(x, y), 7)  # ircor: 0.6074515
    0.6074515
    """
    a, b = _prepare(x, y, decreasing)
    if _ties(a).any():
        raise ValueError("x has tied values: tau_ap_a takes a reference without ties (ties in "
                         "the estimate y only); use tau_ap_b when both rankings may tie items")
    return _blocks(a, b, _tau_ap_a_rows)


def _tau_ap_b_half(A, B):
    """The asymmetric form: walking down B, items below B's top group only, each divided by
    the number of items strictly above it in B."""
    C, g, t = _counts(A, B)
    n = A.shape[-1]
    below = g > 0
    counted = below.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(below, C / np.where(below, g, 1), 0.0).sum(axis=1)
        return np.where(counted > 0, 2.0 / counted * s - 1.0, np.nan) if n >= 2 else np.full(A.shape[0], np.nan)


def tau_ap_b(x, y, decreasing: bool = True):
    r""":math:`\tau_{AP,b}`: AP correlation of two rankings that both may tie items (Urbano and
    Marrero's agreement form); symmetric.

    .. math::

        \tau_{AP,b}(x, y) = \tfrac{1}{2}\left(\tau^{*}(x, y) + \tau^{*}(y, x)\right),\qquad
        \tau^{*}(x, y) = \frac{2}{n - t_1}\sum_{i:\, p_i > 0}\frac{C_i}{p_i} - 1

    where, in :math:`\tau^{*}(x, y)`, :math:`p_i` is the number of items strictly above ``i``
    in ``y``, :math:`t_1` the size of ``y``'s top group (whose items have :math:`p_i = 0` and
    are skipped), and :math:`C_i` the items strictly above ``i`` in ``y`` that ``x`` also puts
    strictly above it {cite}`urbano2017tiesap` (ircor's ``tauAP_b``). Without ties it is the
    mean of :func:`tau_ap` in both orientations. nan when a ranking ties every item.

    Parameters
    ----------
    x, y : array_like, shape (..., n)
        Scores of the same items; equal values are ties.
    decreasing : bool
        As in :func:`tau_ap`.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> x = [0.0, 0.2, 0.2, 0.4, 0.6, 0.6, 0.6, 0.8, 1.0, 1.0]  # ircor's README: round(x*5)/5 in R
    >>> y = [0.4, 0.0, 0.2, 0.2, 0.6, 0.6, 0.6, 1.0, 0.8, 1.0]
    >>> round(tau_ap_b(x, y), 7)  # ircor: 0.6269841
    0.6269841
    """
    a, b = _prepare(x, y, decreasing)
    return _blocks(a, b, lambda A, B: 0.5 * (_tau_ap_b_half(A, B) + _tau_ap_b_half(B, A)))
