"""Optional compiled kernels (numba) for permutation checks and inversion counts.

Imported lazily by :mod:`rankbook.permutations` only when numba is installed and the backend
allows it (``rankbook.permutations.set_backend``); the library never needs it. Every kernel
has a numpy twin in :mod:`rankbook.permutations` that returns the same integers, and the tests
compare the two bit for bit.

The inversion count is a binary trie of counters, one level per bit of the values: for a value
``x`` and bit ``b``, the group ``x >> (b + 1)`` holds the earlier values that agree with ``x``
above bit ``b``. A pair is an inversion exactly when, at the highest bit where the two values
differ, the earlier one has a 1 and the later one a 0; so each value adds, at every level where
its bit is 0, the number of earlier values of its group whose bit is 1, and then counts itself
in at the levels where its bit is 1. The six lowest levels together are the pairs within one
block of 64 consecutive values: a 64-bit mask per block marks the values already seen, and the
earlier values of the block that are larger than ``x`` are the population count of the mask
above ``x``'s bit. So a value costs one population count plus one counter update per bit above
the sixth, with no data movement: O(n log n) per row (O(n) for n <= 64) and O(n) scratch memory
(int32 counters and uint64 masks, reused from row to row). Counts are int64 (at most
n(n-1)/2).
"""

from __future__ import annotations

import numba as nb
import numpy as np

_OPTS = dict(cache=True, nogil=True)


#: The lowest bits of a value handled by one 64-bit mask per block of 64 values.
_LOW = 6


@nb.njit(**_OPTS)
def _trie_offsets(n):
    """Start of each counter level above the lowest ``_LOW`` bits in one flat array, and the
    number of bits of n - 1."""
    levels = 0
    while (1 << levels) < n:
        levels += 1
    offs = np.zeros(max(levels, _LOW) + 1, np.int64)
    for b in range(_LOW, levels):
        offs[b + 1] = offs[b] + ((n - 1) >> (b + 1)) + 1
    return offs, levels


@nb.njit(**_OPTS)
def _popcount(x):
    """Number of 1 bits of a uint64 (SWAR; LLVM emits the popcnt instruction where it exists)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@nb.njit(**_OPTS)
def _count_row(buf, n, offs, levels, cnt, masks):
    """Inversions of ``buf[:n]`` (a permutation of 0..n-1); ``cnt`` and ``masks`` are scratch."""
    cnt[:] = 0
    masks[:] = 0
    acc = 0
    one = np.uint64(1)
    for i in range(n):
        v = buf[i]
        t = np.uint64(v & 63)
        g = v >> _LOW
        mk = masks[g]
        acc += _popcount((mk >> t) >> one)  # earlier, larger values of the same 64-block
        masks[g] = mk | (one << t)
        for b in range(_LOW, levels):
            bit = g & 1
            g >>= 1  # the group above bit b
            idx = offs[b] + g
            c = cnt[idx]
            acc += c * (1 - bit)
            cnt[idx] = c + bit
    return acc


@nb.njit(**_OPTS)
def inversions(x, base, out):
    """``out[r]`` = inversions of row r of ``x`` (values ``base .. base + n - 1``)."""
    m, n = x.shape
    offs, levels = _trie_offsets(n)
    cnt = np.zeros(max(1, offs[-1]), np.int32)
    masks = np.zeros(((n - 1) >> _LOW) + 1, np.uint64)
    buf = np.empty(n, np.int32)
    for r in range(m):
        for i in range(n):
            buf[i] = x[r, i] - base
        out[r] = _count_row(buf, n, offs, levels, cnt, masks)


@nb.njit(**_OPTS)
def inversions_gather(vals, val_base, idx, idx_base, out):
    """``out[r]`` = inversions of ``vals[r, idx[r, i] - idx_base] - val_base`` over i.

    The composition of two permutations without building it: with ``vals = nu`` and ``idx`` the
    0-based inverse of sigma this counts the inversions of ``nu o sigma^-1``.
    """
    m, n = vals.shape
    offs, levels = _trie_offsets(n)
    cnt = np.zeros(max(1, offs[-1]), np.int32)
    masks = np.zeros(((n - 1) >> _LOW) + 1, np.uint64)
    buf = np.empty(n, np.int32)
    for r in range(m):
        for i in range(n):
            buf[i] = vals[r, idx[r, i] - idx_base] - val_base
        out[r] = _count_row(buf, n, offs, levels, cnt, masks)


@nb.njit(**_OPTS)
def check_perms(x, inv):
    """Fill ``inv`` with the 0-based inverses of the rows of ``x`` (values 1..n).

    Returns -1 when every row is a permutation of 1..n, otherwise the index of the first row
    that is not (the caller then reports the problem with the numpy check's message).
    """
    m, n = x.shape
    for r in range(m):
        for i in range(n):
            inv[r, i] = -1
        for i in range(n):
            v = x[r, i]
            if v < 1 or v > n:
                return r
            if inv[r, v - 1] >= 0:
                return r
            inv[r, v - 1] = i
    return -1
