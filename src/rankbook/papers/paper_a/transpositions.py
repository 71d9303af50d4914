"""Closed forms for rankings that differ by one transposition (paper A, Lemma 6.3).

A transposition :math:`(i\\,j)` of two positions :math:`i < j` has *width* :math:`d = j - i`.
Swapping the items at positions :math:`i` and :math:`j` of the identity creates exactly
:math:`2d - 1` inversions: the pair :math:`(i, j)` itself, and for each of the :math:`d - 1`
positions :math:`l` strictly between them the two pairs :math:`(i, l)` and :math:`(l, j)`.
Pairs involving a position outside :math:`[i, j]` keep their order. Kendall's tau between the
identity and the transposition is therefore

.. math::

    \\tau = 1 - \\frac{2\\,(2d-1)}{\\binom{n}{2}}
          = \\frac{\\binom{n}{2} - 4d + 2}{\\binom{n}{2}},

which is the formula of Lemma 6.3 of :cite:`paperA`. It depends on the width only, not on where
the swap happens.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankbook._validation import check_int


def n_pairs(n: int) -> int:
    """The number of unordered pairs of positions, :math:`\\binom{n}{2}`.

    Parameters
    ----------
    n : int
        The number of positions, at least 2.

    Returns
    -------
    int

    Examples
    --------
    >>> n_pairs(10)
    45
    """
    n = int(n)  # a Python int: exact for any n (an int32 n would overflow from n = 65 537)
    return n * (n - 1) // 2


def _check_n(n) -> int:
    return check_int(n, "n", low=2, explain="a transposition needs two positions")


def lemma_6_3_tau(n: int, width) -> np.ndarray:
    """Kendall's tau between the identity of :math:`S_n` and a transposition of width ``width``.

    Parameters
    ----------
    n : int
        Number of items, at least 2.
    width : int or array_like of int
        :math:`|i - j|`, between 1 and ``n - 1``.

    Returns
    -------
    float or numpy.ndarray
        :math:`(\\binom{n}{2} - 4d + 2) / \\binom{n}{2}`.

    Examples
    --------
    >>> float(lemma_6_3_tau(10, 1))
    0.9555555555555556
    >>> lemma_6_3_tau(4, [1, 2, 3]).round(4).tolist()
    [0.6667, 0.0, -0.6667]
    """
    n = _check_n(n)
    d = np.asarray(width)
    if np.any(d < 1) or np.any(d > n - 1):
        raise ValueError(f"width must lie in 1..{n - 1} for n = {n}, got {width!r}")
    c = n_pairs(n)
    out = (c - 4 * d + 2) / c
    return out if out.ndim else out[()]


def all_transpositions(n: int) -> np.ndarray:
    """Every transposition of :math:`S_n` in one-line notation, shape ``(C(n,2), n)``, with the
    1-based positions ``(i, j)`` it swaps as a second array of shape ``(C(n,2), 2)``.

    Parameters
    ----------
    n : int
        The number of positions, at least 2.

    Returns
    -------
    perms : ndarray of int64, shape (C(n, 2), n)
        The transpositions in one-line notation.
    ij : ndarray of int64, shape (C(n, 2), 2)
        The 1-based positions each one swaps, ``i < j``.

    Examples
    --------
    >>> perms, ij = all_transpositions(3)
    >>> perms.tolist(), ij.tolist()
    ([[2, 1, 3], [3, 2, 1], [1, 3, 2]], [[1, 2], [1, 3], [2, 3]])
    """
    n = _check_n(n)
    i, j = np.triu_indices(n, k=1)
    return _transposition_block(n, i, j), np.stack([i + 1, j + 1], axis=1)


#: Elements (of a comparison matrix or a block of permutations) handled at once; keeps the
#: memory of the exhaustive checks bounded whatever ``n`` is.
CHUNK_ELEMENTS = 1 << 21


def count_inversions_bruteforce(perms: np.ndarray) -> np.ndarray:
    """Number of position pairs ``a < b`` with ``perm[a] > perm[b]``, by direct comparison.

    An O(n^2) reference used to check faster implementations. Blocks of rows holding at most
    :data:`CHUNK_ELEMENTS` entries are compared with themselves shifted by 1, 2, ..., n - 1
    positions, so memory stays bounded (``O(CHUNK_ELEMENTS)``, never ``O(n^2)``) for any
    ``n``; the counts are exact int64 (at most n(n-1)/2).

    Parameters
    ----------
    perms : ndarray of int, shape (m, n)
        Rows of integers (permutations, or any values).

    Returns
    -------
    ndarray of int64, shape (m,)
        The inversions of each row.

    Examples
    --------
    >>> count_inversions_bruteforce(np.array([[1, 2, 3], [3, 2, 1]])).tolist()
    [0, 3]
    """
    perms = np.asarray(perms)
    n = perms.shape[-1]
    flat = perms.reshape(-1, n)
    out = np.zeros(flat.shape[0], dtype=np.int64)
    rows = max(1, CHUNK_ELEMENTS // max(1, n))
    for start in range(0, flat.shape[0], rows):
        block = flat[start:start + rows]
        for shift in range(1, n):
            out[start:start + len(block)] += np.count_nonzero(
                block[:, :-shift] > block[:, shift:], axis=1)
    return out.reshape(perms.shape[:-1])


def _transposition_block(n: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    perms = np.tile(np.arange(1, n + 1, dtype=np.int64), (len(i), 1))
    rows = np.arange(len(i))
    perms[rows, i], perms[rows, j] = j + 1, i + 1
    return perms


def kendall_transposition_table(ns, kendall=None) -> pd.DataFrame:
    """Check Lemma 6.3 on every transposition of :math:`S_n` for each ``n`` in ``ns``.

    ``kendall(sigma, nu)`` computes Kendall's tau for a batch; by default
    :func:`rankbook.metrics.kendall_tau`. The table has one row per transposition: ``n``,
    ``i``, ``j``, ``width``, ``inversions`` (counted directly), ``tau`` (computed),
    ``formula`` (Lemma 6.3) and ``abs_error``. The transpositions are generated and checked in
    blocks of at most :data:`CHUNK_ELEMENTS` entries, so memory grows with the size of the
    table (:math:`\\binom{n}{2}` rows), not with :math:`\\binom{n}{2} \\cdot n`.

    Parameters
    ----------
    ns : iterable of int
        The sizes n, each at least 2.
    kendall : callable, optional
        ``kendall(sigma, nu)`` of a batch; :func:`rankbook.metrics.kendall_tau` by default.

    Returns
    -------
    pandas.DataFrame
        One row per transposition, with the columns listed above.

    Examples
    --------
    >>> t = kendall_transposition_table([4])
    >>> len(t), bool((t.inversions == 2 * t.width - 1).all()), float(t.abs_error.max()) < 1e-12
    (6, True, True)
    """
    if kendall is None:
        from rankbook.metrics import kendall_tau as kendall
    frames = []
    for n in ns:
        n = _check_n(n)
        i_all, j_all = np.triu_indices(n, k=1)
        rows = max(1, CHUNK_ELEMENTS // n)
        tau = np.empty(len(i_all))
        inversions = np.empty(len(i_all), dtype=np.int64)
        for start in range(0, len(i_all), rows):
            i, j = i_all[start:start + rows], j_all[start:start + rows]
            perms = _transposition_block(n, i, j)
            ident = np.broadcast_to(np.arange(1, n + 1), perms.shape)
            tau[start:start + len(i)] = np.asarray(kendall(ident, perms), dtype=float)
            inversions[start:start + len(i)] = count_inversions_bruteforce(perms)
        width = j_all - i_all
        formula = lemma_6_3_tau(n, width)
        frames.append(pd.DataFrame({
            "n": n, "i": i_all + 1, "j": j_all + 1, "width": width,
            "inversions": inversions,
            "tau": tau, "formula": formula, "abs_error": np.abs(tau - formula),
        }))
    return pd.concat(frames, ignore_index=True)


def lemma_6_3_proof_check(n: int) -> pd.DataFrame:
    """Evaluate the intermediate expressions printed in the proof of Lemma 6.3.

    The proof writes the base case as
    :math:`(\\binom{n}{2} - 1 + (\\binom{n}{2} - (\\binom{n}{2} - 1))) / \\binom{n}{2}` and the
    induction step as
    :math:`(\\binom{n}{2} - (2d+1) + (\\binom{n}{2} - (\\binom{n}{2} - (2d+1)))) / \\binom{n}{2}`.
    Both add the number of discordant pairs where it must be subtracted, so both evaluate to 1,
    not to the value they are said to equal. The lemma's final formula is right (see
    :func:`kendall_transposition_table`); only the proof's arithmetic is wrong.

    Returns one row per width ``d`` (the induction step proves width ``d + 1``) with the printed
    expression, the value it claims, and the correct concordant-minus-discordant count.

    Parameters
    ----------
    n : int
        The size of the rankings, at least 2.

    Returns
    -------
    pandas.DataFrame
        One row per width ``d``: the printed expression, its value, the value it claims, and the
        correct count.

    Examples
    --------
    >>> t = lemma_6_3_proof_check(5)
    >>> t.printed_value.tolist(), t.claimed_value.round(2).tolist()
    ([1.0, 1.0, 1.0, 1.0], [0.8, 0.4, 0.0, -0.4])
    """
    n = _check_n(n)
    c = n_pairs(n)
    rows = []
    for width in range(1, n):
        disc = 2 * width - 1  # discordant pairs of a swap of this width
        if width == 1:
            printed = (c - 1 + (c - (c - 1))) / c
            step = "base case d = 1"
        else:
            printed = (c - disc + (c - (c - disc))) / c
            step = f"induction step to d = {width}"
        rows.append({"n": n, "width": width, "step": step, "printed_value": printed,
                     "claimed_value": (c - 4 * width + 2) / c,
                     "correct_value": (c - disc - disc) / c})
    return pd.DataFrame(rows)
