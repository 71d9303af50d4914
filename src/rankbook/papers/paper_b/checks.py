"""Checks of paper B's stated results against brute force: the logic behind its notebooks.

Paper B (``lin2017consensus``) counts the common subsequences of a set of rankings with a
matrix (Theorem 1, Corollaries 1 and 2) and claims in its Table I that the measure handles
full, partial and weighted rankings and ties. This module checks those statements with code
that shares nothing with :mod:`rankbook.consensus`:

* :func:`brute_force_subsequences` lists the common subsequences by the definition (every
  subset of one ranking, kept when every ranking contains it in that order);
  :func:`brute_force_kappa_p` weighs them as Eq. (7) does;
* :func:`theorem_1_matrix` builds the matrix ``A`` of Eq. (10) entry by entry, and
  :func:`theorem_1_counts`, :func:`corollary_1_length`, :func:`corollary_2_kappa` apply the
  paper's formulas to it literally (matrix powers, ``max{p : kappa_p > 0}``, the triangular
  solve with its ``- n``);
* :func:`exhaustive_cases` and :func:`random_cases` generate the sets of rankings checked (all
  pairs of full rankings, of partial rankings and of rankings with ties over a few items, and
  seeded random sets), :func:`check_cases` checks each, :func:`claim_counts` and
  :func:`table_i_cells` turn the checks into the verdicts of Theorem 1, the corollaries and
  Table I;
* :func:`read_published_matrices`, :func:`compare_matrices`, :func:`compare_sets` and
  :func:`read_published_values` compare the printed matrices, edges and numbers of Example 1
  with the computed ones; :func:`topk_remark_cases` tests the top-k remark of Section IV-D4.

Rankings are given as in :mod:`rankbook.consensus` (a ``str`` is a ranking of one-letter items;
a ``set``, ``frozenset``, ``tuple`` or ``list`` inside a ranking is a tie group). Positions are
1-based and count tie groups (Eq. 16).

Two readings of a tie are supported where the paper leaves it open (``ties``):

``"strict"``
    a sequence is a subsequence of a ranking when its items sit at strictly increasing
    positions, so two tied items are in neither order (what Eq. 16 with ``H(0) = 0`` computes);
``"either"``
    tied items may be read in either order (positions non-decreasing).
"""

from __future__ import annotations

import itertools
import math
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "TIE_READINGS",
    "positions",
    "brute_force_subsequences",
    "brute_force_kappa_p",
    "theorem_1_matrix",
    "theorem_1_counts",
    "corollary_1_length",
    "corollary_2_kappa",
    "proof_entry_counts",
    "exhaustive_cases",
    "random_cases",
    "check_case",
    "check_cases",
    "claim_counts",
    "top_bottom_swap",
    "table_i_cells",
    "section_ii_b_properties",
    "eq3_cases",
    "kernel_checks",
    "eq7_as_printed",
    "library_matrices",
    "read_published_matrices",
    "read_published_values",
    "compare_matrices",
    "compare_sets",
    "topk_remark_cases",
]

#: The readings of a tie group, see the module docstring.
TIE_READINGS = ("strict", "either")

_TIES = (set, frozenset, tuple, list)


# --------------------------------------------------------------------------------------------
# rankings as position maps (Eq. 9 and Eq. 16), written independently of rankbook.consensus


def positions(ranking) -> dict:
    """The position map :math:`\\eta` of one ranking: ``{item: 1-based tie-group index}``.

    Raises ``ValueError`` for an empty ranking or an item given twice.

    Examples
    --------
    >>> positions("bad")
    {'b': 1, 'a': 2, 'd': 3}
    >>> sorted(positions(["a", {"b", "c"}, "d"]).items())
    [('a', 1), ('b', 2), ('c', 2), ('d', 3)]
    """
    groups = list(ranking) if isinstance(ranking, str) else list(ranking)
    if not groups:
        raise ValueError("a ranking needs at least one item")
    out: dict = {}
    for j, group in enumerate(groups, start=1):
        members = list(group) if isinstance(group, _TIES) else [group]
        if not members:
            raise ValueError(f"empty tie group at position {j}")
        for item in members:
            if item in out:
                raise ValueError(f"item {item!r} appears twice in the ranking {ranking!r}")
            out[item] = j
    return out


def _check_ties(ties: str) -> str:
    if ties not in TIE_READINGS:
        raise ValueError(f"unknown tie reading {ties!r}; valid: {list(TIE_READINGS)}")
    return ties


def _maps(rankings) -> list[dict]:
    if isinstance(rankings, str):
        raise ValueError("rankings is a single str: pass a list of rankings, e.g. ['abc', 'bca']")
    maps = [positions(r) for r in rankings]
    if not maps:
        raise ValueError("the set of rankings is empty")
    return maps


def brute_force_subsequences(rankings, ties: str = "strict") -> list[tuple]:
    """Every common subsequence of ``rankings``, found by the definition.

    Each non-empty subset of the items of the shortest ranking is arranged in every order that
    ranking allows (its own order; tied items also swapped under ``ties="either"``) and kept
    when each ranking contains it as a subsequence: its items in strictly increasing positions
    (``"strict"``) or non-decreasing positions (``"either"``). Exponential in the length of the
    shortest ranking: meant for small inputs.

    Returns
    -------
    list of tuple
        Sorted by length, then as the shortest ranking orders them.

    Examples
    --------
    >>> ["".join(s) for s in brute_force_subsequences(["abc", "acb"])]
    ['a', 'b', 'c', 'ab', 'ac']
    >>> len(brute_force_subsequences([["a", {"b", "c"}]])), len(
    ...     brute_force_subsequences([["a", {"b", "c"}]], ties="either"))
    (5, 9)
    """
    return _subsequences(_maps(rankings), _check_ties(ties))


def _subsequences(maps: list[dict], ties: str) -> list[tuple]:
    shortest = min(range(len(maps)), key=lambda k: len(maps[k]))
    base = maps[shortest]
    by_group: dict[int, list] = {}
    for item, pos in base.items():
        by_group.setdefault(pos, []).append(item)
    groups = [sorted(by_group[g], key=repr) for g in sorted(by_group)]

    def ok(seq) -> bool:
        for m in maps:
            prev = 0
            for item in seq:
                pos = m.get(item)
                if pos is None or pos < prev or (pos == prev and ties == "strict"):
                    return False
                prev = pos
        return True

    # the orders the shortest ranking itself allows: per tie group, a subset in some order
    def choices(group):
        out = [()]
        top = 1 if ties == "strict" else len(group)
        for size in range(1, top + 1):
            for subset in itertools.combinations(group, size):
                out.extend(itertools.permutations(subset) if ties == "either" else [subset])
        return out

    found = []
    for pick in itertools.product(*(choices(g) for g in groups)):
        seq = tuple(x for part in pick for x in part)
        if seq and ok(seq):
            found.append(seq)
    order = {x: i for i, x in enumerate(x for g in groups for x in g)}
    return sorted(found, key=lambda s: (len(s), [order[x] for x in s]))


def _spread(pos: np.ndarray, deviation: str) -> float:
    mu = pos.mean()
    if deviation == "std":
        return float(np.sqrt(((pos - mu) ** 2).mean()))
    if deviation == "mad":
        return float(np.abs(pos - mu).mean())
    if deviation == "sqrt_mad":
        return float(np.sqrt(np.abs(pos - mu).mean()))
    if deviation == "sample_std":
        return float(np.sqrt(((pos - mu) ** 2).sum() / (pos.size - 1))) if pos.size > 1 else math.nan
    raise ValueError(f"unknown deviation {deviation!r}; valid: std, mad, sqrt_mad, sample_std")


def _theta(maps, item, gamma, deviation) -> float:
    return float(gamma) ** _spread(np.array([m[item] for m in maps], dtype=float), deviation)


def _psi(maps, s, t, lam) -> float:
    gap = sum(abs(m.get(t, 0) - m.get(s, 0)) for m in maps) / len(maps)
    return float(lam) ** gap


def brute_force_kappa_p(rankings, gamma: float = 1.0, lam: float = 1.0, *,
                        deviation: str = "std", ties: str = "strict") -> np.ndarray:
    """:math:`[\\kappa_1, \\dots, \\kappa_\\ell]` summed over the listed common subsequences.

    .. math::

        \\kappa_1 = \\sum_{\\sigma \\in \\mathcal{S}_1} \\gamma^{d(\\sigma)}, \\qquad
        \\kappa_p = \\sum_{s \\in \\mathcal{S}_p} \\prod_{i=1}^{p-1} \\lambda^{g(s_i, s_{i+1})}

    (Eq. 7 with the weights of Eq. 13 and Eq. 14, each subsequence weighed once), with the
    common subsequences of :func:`brute_force_subsequences`, ``d`` the spread of an item's
    positions (``deviation``) and ``g`` the mean absolute gap. With ``gamma = lam = 1`` these
    are the counts :math:`|\\mathcal{S}_p(\\mathcal{R})|`. Reference: ``lin2017consensus``.

    Examples
    --------
    >>> brute_force_kappa_p(["abcdef", "bdcefa", "bcdeghijkf", "badefc"]).tolist()
    [5.0, 7.0, 4.0, 1.0]
    >>> brute_force_kappa_p(["ab", "ab"], lam=0.5).tolist()  # a, b, and ab with gap 1
    [2.0, 0.5]
    """
    return _kappa_p_brute(_maps(rankings), gamma, lam, deviation, _check_ties(ties))


def _kappa_p_brute(maps, gamma, lam, deviation, ties, seqs=None, power: int = 1) -> np.ndarray:
    """Brute-force sums; ``power`` raises each path weight (``N`` gives Eq. 7 with the printed
    feature weights of Section IV-B2, see :func:`eq7_as_printed`)."""
    seqs = _subsequences(maps, ties) if seqs is None else seqs
    if not seqs:
        return np.zeros(0)
    out = np.zeros(max(len(s) for s in seqs))
    for s in seqs:
        if len(s) == 1:
            out[0] += 1.0 if gamma == 1 else _theta(maps, s[0], gamma, deviation)
        else:
            out[len(s) - 1] += math.prod(_psi(maps, a, b, lam) for a, b in zip(s, s[1:])) ** power
    return out


# --------------------------------------------------------------------------------------------
# Theorem 1 and its corollaries, applied literally


def _heaviside(x) -> float:
    return 1.0 if x > 0 else 0.0  # Eq. (8)


def theorem_1_matrix(rankings, base: int = 0, gamma: float = 1.0, lam: float = 1.0, *,
                     deviation: str = "std") -> pd.DataFrame:
    """The matrix ``A`` of Eq. (10), entry by entry, with the base ranking ``r_x = rankings[base]``.

    .. math::

        A_{ii} = \\theta(x_i) \\prod_k H(\\eta_k(x_i)), \\qquad
        A_{ij} = \\psi(x_i, x_j) \\prod_k H(\\eta_k(x_i) - \\eta_k(x_j))\\, H(A_{ii}) H(A_{jj})
        \\quad (i > j)

    and 0 above the diagonal, over all ``n = |r_x|`` items of the base ranking (tied items of
    the base in a fixed order), with :math:`\\eta_k = 0` for an item missing from ranking ``k``
    (Eq. 9) and ``H`` the Heaviside function of Eq. (8). Reference: ``lin2017consensus``,
    Theorem 1.

    Examples
    --------
    >>> A = theorem_1_matrix(["abcdef", "bdcefa", "bcdeghijkf", "badefc"])
    >>> A.to_numpy().astype(int)[5].tolist()  # row f: b, d, e precede f in every ranking
    [0, 1, 0, 1, 1, 1]
    """
    maps = _maps(rankings)
    if not (isinstance(base, (int, np.integer)) and 0 <= base < len(maps)):
        raise ValueError(f"base must be the index of a ranking, 0..{len(maps) - 1}, got {base!r}")
    A, items = _eq10(maps, base, gamma, lam, deviation)
    names = [str(x) for x in items]
    return pd.DataFrame(A, index=names, columns=names)


def _eq10(maps, base, gamma, lam, deviation):
    bx = maps[base]
    items = sorted(bx, key=lambda x: (bx[x], repr(x)))
    n = len(items)
    A = np.zeros((n, n))
    for i, x in enumerate(items):
        if all(_heaviside(m.get(x, 0)) for m in maps):
            A[i, i] = 1.0 if gamma == 1 else _theta(maps, x, gamma, deviation)
    for i, x in enumerate(items):
        for j in range(i):
            y = items[j]
            h = math.prod(_heaviside(m.get(x, 0) - m.get(y, 0)) for m in maps)
            h *= _heaviside(A[i, i]) * _heaviside(A[j, j])
            if h:
                A[i, j] = 1.0 if lam == 1 else _psi(maps, y, x, lam)
    return A, items


def theorem_1_counts(A) -> np.ndarray:
    """:math:`\\kappa_p` by Eq. (11), as Algorithm 1 computes it: ``tr(A)``, then
    :math:`z^T L^{p-1} z` for ``p = 2, 3, ...`` while the value is positive.

    Returns the values up to the last positive one (Corollary 1 reads ``ell`` off its length).

    Examples
    --------
    >>> theorem_1_counts(theorem_1_matrix(["abcdef", "bdcefa", "bcdeghijkf", "badefc"])).tolist()
    [5.0, 7.0, 4.0, 1.0]
    """
    A = np.asarray(A, dtype=float)
    L = np.tril(A, -1)
    z = np.ones(A.shape[0])
    out = [float(np.trace(A))]
    if out[0] <= 0:
        return np.zeros(0)
    y = z
    for _ in range(A.shape[0]):
        y = L @ y
        value = float(z @ y)
        if value <= 0:
            break
        out.append(value)
    return np.array(out)


def corollary_1_length(A) -> int:
    """:math:`\\ell = \\max\\{p : \\kappa_p > 0\\}` with the :math:`\\kappa_p` of Eq. (11) (0
    when no item is common). Reference: ``lin2017consensus``, Corollary 1.

    Examples
    --------
    >>> corollary_1_length(theorem_1_matrix(["abcdef", "bdcefa", "bcdeghijkf", "badefc"]))
    4
    """
    return int(theorem_1_counts(A).size)


def corollary_2_kappa(A) -> float:
    """:math:`\\kappa = \\kappa_1 + z^T (I - L)^{-1} z - n` with ``n`` the size of ``A``
    (the length of the base ranking), solved as a triangular system. Reference:
    ``lin2017consensus``, Corollary 2.

    Examples
    --------
    >>> corollary_2_kappa(theorem_1_matrix(["abcdef", "bdcefa", "bcdeghijkf", "badefc"]))
    17.0
    """
    A = np.asarray(A, dtype=float)
    n = A.shape[0]
    L = np.tril(A, -1)
    v = np.linalg.solve(np.eye(n) - L, np.ones(n)) if n else np.zeros(0)
    return float(np.trace(A) + v.sum() - n)


def proof_entry_counts(rankings, base: int = 0) -> pd.DataFrame:
    """Entry ``(i, j)``, ``i > j``, of :math:`L^{p-1}` beside the common subsequences of
    length ``p`` that begin with the ``i``-th item and end with the ``j``-th (the proof of
    Theorem 1 as printed) and those that begin with the ``j``-th and end with the ``i``-th.

    One row per ``(p, i, j)`` with a non-zero entry or a non-zero count.

    Examples
    --------
    >>> t = proof_entry_counts(["abcdef", "bdcefa", "bcdeghijkf", "badefc"])
    >>> t[(t.p == 3) & (t.row == "f") & (t.column == "b")].iloc[0].tolist()
    [3, 'f', 'b', 2.0, 0, 2]
    """
    A = theorem_1_matrix(rankings, base)
    items = list(A.index)
    L = np.tril(A.to_numpy(), -1)
    seqs = [tuple(str(x) for x in s) for s in brute_force_subsequences(rankings)]
    rows = []
    P = np.eye(len(items))
    for p in range(2, len(items) + 1):
        P = P @ L
        for i in range(len(items)):
            for j in range(i):
                printed = sum(1 for s in seqs if len(s) == p and s[0] == items[i] and s[-1] == items[j])
                swapped = sum(1 for s in seqs if len(s) == p and s[0] == items[j] and s[-1] == items[i])
                if P[i, j] or printed or swapped:
                    rows.append({"p": p, "row": items[i], "column": items[j], "entry": float(P[i, j]),
                                 "begin with row item": printed, "begin with column item": swapped})
    return pd.DataFrame(rows, columns=["p", "row", "column", "entry", "begin with row item",
                                       "begin with column item"])


# --------------------------------------------------------------------------------------------
# the sets of rankings checked


def _weak_orders(items: Sequence) -> list[list]:
    """Every ranking with ties of all of ``items`` (ordered set partitions)."""
    items = list(items)
    if not items:
        return [[]]
    out = []
    for size in range(1, len(items) + 1):
        for first in itertools.combinations(items, size):
            rest = [x for x in items if x not in first]
            head = first[0] if size == 1 else frozenset(first)
            out.extend([head] + tail for tail in _weak_orders(rest))
    return out


def exhaustive_cases(n: int) -> list[tuple[str, list]]:
    """Every unordered pair (repeats allowed) of rankings over the items ``a, b, ...`` (``n``
    of them), in three families, plus every triple of full rankings of three items:

    * ``"full"``: full rankings without ties (:math:`n!` of them);
    * ``"partial"``: partial rankings, any non-empty sequence of distinct items;
    * ``"ties"``: full rankings with ties (ordered partitions of the items);
    * ``"full, three rankings"``: all :math:`6^3` triples of full rankings of ``abc``.

    Returns ``[(family, rankings), ...]``.

    Examples
    --------
    >>> cases = exhaustive_cases(2)
    >>> sorted({f for f, _ in cases}), len(cases)
    (['full', 'full, three rankings', 'partial', 'ties'], 232)
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 6:
        raise ValueError(f"n must be an integer in 1..6 (the cases grow like (n!)^2), got {n!r}")
    items = [chr(ord("a") + i) for i in range(n)]
    full = [list(p) for p in itertools.permutations(items)]
    partial = [list(p) for k in range(1, n + 1) for p in itertools.permutations(items, k)]
    ties = [r for r in _weak_orders(items) if any(isinstance(g, frozenset) for g in r)] + full
    cases = []
    for family, pool in (("full", full), ("partial", partial), ("ties", ties)):
        cases += [(family, [a, b]) for a, b in itertools.combinations_with_replacement(pool, 2)
                  if family != "ties" or any(isinstance(g, frozenset) for g in a + b)]
    three = [list(p) for p in itertools.permutations("abc")]
    cases += [("full, three rankings", list(t)) for t in itertools.product(three, repeat=3)]
    return cases


def random_cases(seed: int, n_sets: int, *, max_items: int = 8, max_rankings: int = 5,
                 p_missing: float = 0.15, p_tie: float = 0.15) -> list[tuple[str, list]]:
    """``n_sets`` random sets of rankings from ``numpy.random.default_rng(seed)``.

    Each set has 2 to ``max_rankings`` rankings over a universe of 2 to ``max_items`` items;
    each ranking shuffles the universe, drops each item with probability ``p_missing`` (a
    partial ranking; at least one item stays) and ties each item with the one before it with
    probability ``p_tie``. The family says what the set holds: ``"random, full"``,
    ``"random, partial"``, ``"random, ties"`` or ``"random, partial and ties"``.

    Examples
    --------
    >>> [family for family, _ in random_cases(0, 3)]
    ['random, partial and ties', 'random, partial and ties', 'random, partial']
    """
    if max_items < 2 or max_rankings < 2 or n_sets < 0:
        raise ValueError("need max_items >= 2, max_rankings >= 2 and n_sets >= 0")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_sets):
        m = int(rng.integers(2, max_items + 1))
        universe = [chr(ord("a") + i) for i in range(m)]
        rankings, partial, tied = [], False, False
        for _ in range(int(rng.integers(2, max_rankings + 1))):
            order = [universe[i] for i in rng.permutation(m)]
            kept = [x for x in order if rng.random() >= p_missing] or order[:1]
            partial |= len(kept) < m
            groups: list[list] = []
            for x in kept:
                if groups and rng.random() < p_tie:
                    groups[-1].append(x)
                else:
                    groups.append([x])
            tied |= any(len(g) > 1 for g in groups)
            rankings.append([g[0] if len(g) == 1 else frozenset(g) for g in groups])
        kind = {(False, False): "full", (True, False): "partial", (False, True): "ties",
                (True, True): "partial and ties"}[(partial, tied)]
        out.append((f"random, {kind}", rankings))
    return out


# --------------------------------------------------------------------------------------------
# checking


def _close(a, b, rtol: float) -> bool:
    a = [float(a)] if np.ndim(a) == 0 else [float(x) for x in a]
    b = [float(b)] if np.ndim(b) == 0 else [float(x) for x in b]
    return len(a) == len(b) and all(abs(x - y) <= rtol * max(1.0, abs(y)) for x, y in zip(a, b))


def check_case(rankings, gamma: float = 0.8, lam: float = 0.7, *, deviation: str = "std",
               either: bool = True, rtol: float = 1e-9) -> dict:
    """Check Theorem 1, Corollaries 1 and 2 and :mod:`rankbook.consensus` on one set.

    The reference is :func:`brute_force_kappa_p` (plain counts and weights ``gamma``, ``lam``).
    Theorem 1 and the corollaries are applied to :func:`theorem_1_matrix` with *every*
    ranking as the base ``r_x`` (the theorem says any will do).
    Two values agree when they differ by at most ``rtol`` times the larger of 1 and the
    reference (plain counts are integers; the weighted sums are summed in other orders).

    Returns
    -------
    dict
        ``kappa``, ``ell`` (brute force), ``theorem_1``, ``corollary_1``, ``corollary_2``,
        ``library`` (each True when it agrees, plain and weighted, for every base), the same
        under the other tie reading (``*_either``; equal to the strict ones without ties, and
        only computed when ``either``), ``theorem_1_printed_weights`` (Theorem 1 against Eq. (7)
        with the feature weights Section IV-B2 prints, :func:`eq7_as_printed`) and ``why``
        (the disagreements, or "").

    Examples
    --------
    >>> r = check_case(["abcdef", "bdcefa", "bcdeghijkf", "badefc"])
    >>> r["kappa"], r["ell"], r["theorem_1"], r["corollary_2"], r["library"]
    (17.0, 4, True, True, True)
    """
    from rankbook import consensus

    maps = _maps(rankings)
    seqs = _subsequences(maps, "strict")
    ref = _kappa_p_brute(maps, 1.0, 1.0, deviation, "strict", seqs)
    ref_w = _kappa_p_brute(maps, gamma, lam, deviation, "strict", seqs)
    why = []
    t1 = c1 = c2 = True
    t1_e = c1_e = c2_e = True
    has_ties = any(len(set(m.values())) < len(m) for m in maps)
    ref_e = _kappa_p_brute(maps, 1.0, 1.0, deviation, "either") if (either and has_ties) else ref
    ref_printed = _kappa_p_brute(maps, gamma, lam, deviation, "strict", seqs, power=len(maps))
    t1_p = True
    for b in range(len(maps)):
        A = _eq10(maps, b, 1.0, 1.0, deviation)[0]
        Aw = _eq10(maps, b, gamma, lam, deviation)[0]
        kp, kpw = theorem_1_counts(A), theorem_1_counts(Aw)
        if not (_close(kp, ref, rtol) and _close(kpw, ref_w, rtol)):
            t1 = False
            why.append(f"Theorem 1 with base r{b + 1}: {kp.tolist()} / {kpw.round(6).tolist()} "
                       f"against {ref.tolist()} / {ref_w.round(6).tolist()}")
        ell = kp.size  # Corollary 1: max{p : kappa_p > 0}
        if ell != ref.size:
            c1 = False
            why.append(f"Corollary 1 with base r{b + 1}: {ell} against {ref.size}")
        k2, k2w = corollary_2_kappa(A), corollary_2_kappa(Aw)
        if not (_close(k2, ref.sum(), rtol) and _close(k2w, ref_w.sum(), rtol)):
            c2 = False
            why.append(f"Corollary 2 with base r{b + 1}: {k2:g} / {k2w:.6f} against "
                       f"{ref.sum():g} / {ref_w.sum():.6f}")
        t1_e &= _close(kp, ref_e, rtol)
        t1_p &= _close(kp, ref, rtol) and _close(kpw, ref_printed, rtol)
        c1_e &= ell == ref_e.size
        c2_e &= _close(k2, ref_e.sum(), rtol)
    lib = consensus.kappa_p(rankings, [1.0, gamma], [1.0, lam], deviation=deviation)
    lib_k = consensus.kappa(rankings, [1.0, gamma], [1.0, lam], deviation=deviation)
    lib_ok = (_close(lib[0], ref, rtol) and _close(lib[1], ref_w, rtol) and _close(lib_k[0], ref.sum(), rtol)
              and _close(lib_k[1], ref_w.sum(), rtol) and lib.shape[-1] == ref.size)
    lib, lib_w = lib[0], lib[1]
    if not lib_ok:
        why.append(f"rankbook.consensus: {lib.tolist()} / {np.round(lib_w, 6).tolist()} against "
                   f"{ref.tolist()} / {ref_w.round(6).tolist()}")
    return {"kappa": float(ref.sum()), "ell": int(ref.size), "kappa_weighted": float(ref_w.sum()),
            "kappa_either": float(ref_e.sum()), "theorem_1": t1, "corollary_1": c1,
            "corollary_2": c2, "library": lib_ok, "theorem_1_either": t1_e,
            "theorem_1_printed_weights": t1_p,
            "corollary_1_either": c1_e, "corollary_2_either": c2_e, "why": "; ".join(why)}


def _describe(rankings) -> str:
    from rankbook.consensus import format_ranking

    return " / ".join(format_ranking(r).replace(" ", "") if all(
        len(str(x)) == 1 for g in r for x in (g if isinstance(g, _TIES) else [g]))
        else format_ranking(r) for r in rankings)


def check_cases(cases: Iterable[tuple[str, list]], gamma: float = 0.8, lam: float = 0.7, *,
                deviation: str = "std", seed: int | None = None, rtol: float = 1e-9) -> pd.DataFrame:
    """:func:`check_case` on each ``(family, rankings)``; one row per set.

    Columns: ``family``, ``seed``, ``rankings`` (as text, ``/`` between rankings, tie groups in
    braces), ``n_rankings``, ``shortest`` (items in the shortest ranking), ``ties`` (the set
    holds a tie), then the keys of
    :func:`check_case`.

    Examples
    --------
    >>> t = check_cases([("toy", ["abc", "acb"]), ("toy", [["a", {"b", "c"}], "abc"])])
    >>> t[["rankings", "kappa", "kappa_either", "theorem_1", "theorem_1_either"]].values.tolist()
    [['abc / acb', 5.0, 5.0, True, True], ['a{bc} / abc', 5.0, 7.0, True, False]]
    """
    rows = []
    for family, rankings in cases:
        res = check_case(rankings, gamma, lam, deviation=deviation, rtol=rtol)
        ties = any(isinstance(g, _TIES) for r in rankings if not isinstance(r, str) for g in r)
        shortest = min(len(positions(r)) for r in rankings)
        rows.append({"family": family, "seed": seed, "rankings": _describe(rankings),
                     "n_rankings": len(rankings), "shortest": shortest, "ties": ties, **res})
    return pd.DataFrame(rows)


#: The claims :func:`claim_counts` counts, with the column of :func:`check_case` behind each.
CLAIMS = {"Theorem 1": "theorem_1", "Corollary 1": "corollary_1", "Corollary 2": "corollary_2",
          "rankbook.consensus": "library"}


def claim_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Per family of sets: how many sets each claim holds for, under each tie reading.

    One row per family with ``sets``, then for each claim of :data:`CLAIMS` the number of sets
    it holds for (strict reading), and ``<claim> (either)`` for the other reading.

    Examples
    --------
    >>> t = claim_counts(check_cases([("toy", ["abc", "acb"]), ("toy", [["a", {"b", "c"}], "abc"])]))
    >>> t[["family", "sets", "Theorem 1", "Theorem 1 (either)"]].values.tolist()
    [['toy', 2, 2, 1]]
    """
    rows = []
    for family, sub in frame.groupby("family", sort=False):
        row = {"family": family, "sets": len(sub)}
        for name, col in CLAIMS.items():
            row[name] = int(sub[col].sum())
        for name, col in CLAIMS.items():
            if col != "library":
                row[f"{name} (either)"] = int(sub[f"{col}_either"].sum())
        rows.append(row)
    return pd.DataFrame(rows)


def top_bottom_swap(n: int, gammas: Sequence[float], lams: Sequence[float], *,
                    deviation: str = "std", zeta: float | None = None, p: float = 0.9) -> pd.DataFrame:
    """The same disagreement at the top and at the bottom of ``n`` items.

    Set "top" is the identity with the ranking that swaps its first two items; set "bottom"
    the identity with the ranking that swaps its last two. A measure that weighs the top more
    should find less consensus in "top". Returns one row per ``(gamma, lam)`` with
    :math:`\\kappa` of each set, :math:`\\kappa_p` (``p >= 2``) summed, and the top-k
    :math:`\\kappa_1` of Section IV-D4 (cut-off ``zeta``, default ``n + 1``; discount ``p``).

    Examples
    --------
    >>> t = top_bottom_swap(5, [1.0, 0.5], [0.5])
    >>> bool((t["kappa top"] == t["kappa bottom"]).all())
    True
    >>> bool((t["top-k kappa_1 top"] < t["top-k kappa_1 bottom"]).all())
    True
    """
    from rankbook import consensus

    if n < 3:
        raise ValueError(f"n must be at least 3, got {n}")
    ident = list(range(1, n + 1))
    top = [2, 1] + ident[2:]
    bottom = ident[:-2] + [n, n - 1]
    sets = {"top": [ident, top], "bottom": [ident, bottom]}
    cut = n + 1 if zeta is None else zeta
    rows = []
    for g in gammas:
        for lm in lams:
            row = {"gamma": float(g), "lam": float(lm)}
            for name, R in sets.items():
                kp = consensus.kappa_p(R, g, lm, deviation=deviation)
                row[f"kappa {name}"] = float(kp.sum())
                row[f"kappa_p, p >= 2, {name}"] = float(kp[1:].sum())
                row[f"top-k kappa_1 {name}"] = float(consensus.kappa_1_topk(R, cut, p, g, deviation=deviation))
            rows.append(row)
    return pd.DataFrame(rows)


def table_i_cells(frame: pd.DataFrame, swap: pd.DataFrame, rtol: float = 1e-9) -> pd.DataFrame:
    """The marks of Table I for :math:`\\kappa_p` and :math:`\\kappa` (full, partial, weighted,
    ties), each checked under the book's reading and under the other reasonable one.

    ``frame`` is :func:`check_cases` output; ``swap`` is :func:`top_bottom_swap` output.

    * full, partial, ties: ``rankbook.consensus`` equals brute force on every set of that kind
      (plain and weighted); for ties the book reads a tie strictly, the other reading lets tied
      items appear in either order;
    * weighted: the book reads it as "carries the weights of Section IV-B", checked as the
      weighted values equal the weighted brute-force sums; the other reading is "items near the
      top weigh more" (as for :math:`\\tau_{ap}`, :math:`\\rho_w` and RBO), checked by
      :func:`top_bottom_swap`: a swap at the top must cost more than one at the bottom.
      For :math:`\\kappa_p` that holds for ``p = 1`` only, with the top-k variant of Section IV-D4.

    Returns one row per cell: ``index``, ``column``, ``holds`` (book's reading), ``holds under
    the other reading``, ``sets`` (checked), ``evidence``.
    """
    kinds = {
        "full": frame[~frame.ties & ~frame.family.str.contains("partial")],
        "partial": frame[~frame.ties & frame.family.str.contains("partial")],
        "ties": frame[frame.ties],
    }
    top_same = bool(np.isclose(swap["kappa top"], swap["kappa bottom"], rtol=rtol).all())
    paths_same = bool(np.isclose(swap["kappa_p, p >= 2, top"], swap["kappa_p, p >= 2, bottom"],
                                 rtol=rtol).all())
    topk_favours = bool((swap["top-k kappa_1 top"] < swap["top-k kappa_1 bottom"]).all())
    rows = []
    for index in ("κ_p", "κ"):
        for column in ("full", "partial", "weighted", "ties"):
            if column == "weighted":
                sub = frame
                holds = bool(sub.library.all())
                if index == "κ":
                    other = not top_same
                    ev_other = ("a swap of the two top items and of the two bottom items give the "
                                f"same κ for all {len(swap)} (γ, λ) tried" if top_same else
                                "a swap at the top lowers κ more than one at the bottom")
                else:
                    other = topk_favours and not paths_same
                    ev_other = (("only κ_1 with the top-k weighting of Section IV-D4 penalises the "
                                 "top swap more" if topk_favours else "no κ_p penalises the top swap more")
                                + ("; κ_p for p ≥ 2 gives the same value for both swaps"
                                   if paths_same else ""))
                evidence = (f"weighted values equal the weighted brute-force sums on {len(sub)} sets"
                            if holds else "weighted values differ from brute force")
                rows.append({"index": index, "column": column, "holds": holds,
                             "holds under the other reading": other, "sets": len(sub),
                             "evidence": f"{evidence}; other reading: {ev_other}"})
                continue
            sub = kinds[column]
            holds = bool(len(sub)) and bool(sub.library.all())
            other = holds
            evidence = (f"equal to brute force on all {len(sub)} sets" if holds
                        else f"differs from brute force on {int((~sub.library).sum())} sets")
            if column == "ties":
                wrong = int((sub.kappa_either != sub.kappa).sum())
                other = holds and wrong == 0
                evidence += (f"; with tied items read in either order the counts differ on "
                             f"{wrong} sets")
            rows.append({"index": index, "column": column, "holds": holds,
                         "holds under the other reading": other, "sets": len(sub),
                         "evidence": evidence})
    return pd.DataFrame(rows)


def _two_to_the(n: int) -> int:
    return 2 ** n - 1


def _bound(m: int, n: int) -> int:
    return 2 ** min(m, n) - 1


def section_ii_b_properties(frame: pd.DataFrame, eq3: pd.DataFrame, max_n: int = 10, *,
                            single=_two_to_the, bound=_bound) -> pd.DataFrame:
    """The three properties Section II-B states right after defining :math:`\\kappa`.

    * one ranking of ``n`` items has :math:`\\kappa = 2^n - 1` (``rankbook.consensus`` and brute
      force, ``n = 1..max_n``);
    * two rankings of lengths ``m`` and ``n`` have :math:`0 \\le \\kappa \\le 2^{\\min(m, n)} - 1`
      (every two-ranking set of ``frame``, the output of :func:`check_cases`, without ties);
    * Eq. (3): a set never has more common subsequences than a subset of it (``eq3``, the
      output of :func:`eq3_cases`).

    ``single(n)`` and ``bound(m, n)`` are the statement's two formulas, replaceable so that a
    test can give a wrong one and see the check fail.

    Returns one row per property: ``property``, ``holds``, ``checked``, ``evidence``.
    """
    from rankbook import consensus

    bad_single = []
    for n in range(1, max_n + 1):
        r = [f"x{i}" for i in range(n)]
        if not (consensus.kappa([r]) == single(n) == brute_force_kappa_p([r]).sum()):
            bad_single.append(n)
    pairs = frame[(frame.n_rankings == 2) & ~frame.ties]
    # the sets hold full rankings of one length: min(m, n) is the shortest
    inside = np.array([0 <= k <= bound(s, s) for k, s in zip(pairs.kappa, pairs.shortest)],
                      dtype=bool)
    rows = [
        {"property": "one ranking of $n$ items: $\\kappa = 2^n - 1$", "holds": not bad_single,
         "checked": f"n = 1 to {max_n}",
         "evidence": "equal for every n" if not bad_single else
         "differs for n = " + ", ".join(map(str, bad_single))},
        {"property": "two rankings of lengths $m$ and $n$: $0 \\le \\kappa \\le 2^{\\min(m, n)} - 1$",
         "holds": bool(inside.all()), "checked": f"{len(pairs)} sets",
         "evidence": "within the bounds for every set" if inside.all() else
         f"outside the bounds for {int((~inside).sum())} sets, e.g. {pairs[~inside].rankings.iloc[0]}"},
        {"property": "Eq. (3): adding a ranking never increases $\\kappa$ (plain counts)",
         "holds": bool(eq3.holds.all()), "checked": f"{len(eq3)} (set, ranking) pairs",
         "evidence": "never increases" if eq3.holds.all() else
         f"increases for {int((~eq3.holds).sum())}, e.g. {eq3[~eq3.holds].rankings.iloc[0]}"},
    ]
    return pd.DataFrame(rows)


def eq3_cases(cases: Iterable[tuple[str, list]]) -> pd.DataFrame:
    """Eq. (3) on the plain counts: for every set of at least two rankings and every ranking
    in it, the count of the set is at most that of the set without the ranking (brute force).

    Returns one row per (set, removed ranking): ``rankings``, ``removed``, ``kappa``,
    ``kappa without``, ``holds``.

    Examples
    --------
    >>> eq3_cases([("toy", ["abc", "acb"])])["holds"].tolist()
    [True, True]
    """
    rows = []
    for _, rankings in cases:
        if len(rankings) < 2:
            continue
        k = brute_force_kappa_p(rankings).sum()
        for i in range(len(rankings)):
            rest = rankings[:i] + rankings[i + 1:]
            k_rest = brute_force_kappa_p(rest).sum()
            rows.append({"rankings": _describe(rankings), "removed": i + 1, "kappa": float(k),
                         "kappa without": float(k_rest), "holds": bool(k <= k_rest)})
    return pd.DataFrame(rows, columns=["rankings", "removed", "kappa", "kappa without", "holds"])


def eq7_as_printed(rankings, lam: float, *, deviation: str = "std") -> pd.DataFrame:
    """:math:`\\kappa_p` of Theorem 1 beside Eq. (7) with the feature weights Section IV-B2
    prints, :math:`f_{\\mathbf{r}}(y) = \\prod_i \\psi(y_i, y_{i+1})` for every ranking.

    Eq. (7) multiplies :math:`f_{\\mathbf{r}}(y)` over the ``N`` rankings, so with the same
    factor for every ranking each subsequence weighs :math:`(\\prod_i \\psi)^N`, while the
    matrix of Theorem 1 weighs it :math:`\\prod_i \\psi` once. One row per ``p >= 2``:
    ``theorem 1`` (the brute-force sum that Theorem 1 equals) and ``eq. (7) as printed``.

    Examples
    --------
    >>> eq7_as_printed(["ab", "ab"], 0.5).values.tolist()  # ab: gap 1; N = 2 rankings
    [[2.0, 0.5, 0.25]]
    """
    maps = _maps(rankings)
    seqs = _subsequences(maps, "strict")
    longest = max((len(s) for s in seqs), default=0)
    rows = []
    for p in range(2, longest + 1):
        weights = [math.prod(_psi(maps, a, b, lam) for a, b in zip(s, s[1:]))
                   for s in seqs if len(s) == p]
        rows.append({"p": float(p), "theorem 1": float(sum(weights)),
                     "eq. (7) as printed": float(sum(w ** len(maps) for w in weights))})
    return pd.DataFrame(rows, columns=["p", "theorem 1", "eq. (7) as printed"])


def library_matrices(rankings, powers: int = 4, *, base: int = 0) -> dict[str, pd.DataFrame]:
    """``A`` as :func:`rankbook.consensus.consensus_matrix` computes it (``gamma = lam = 1``),
    its strictly lower part ``L`` and the powers ``L^2 .. L^powers``, labelled by item, named as
    paper B prints them (``"A"``, ``"L"``, ``"L^2"``, ...).

    Examples
    --------
    >>> m = library_matrices(["abcdef", "bdcefa", "bcdeghijkf", "badefc"])
    >>> list(m), int(m["L^2"].loc["f", "b"])
    (['A', 'L', 'L^2', 'L^3', 'L^4'], 2)
    """
    from rankbook import consensus

    A = consensus.consensus_matrix(rankings, base=base)
    L = np.tril(A.to_numpy(), -1)
    out = {"A": A, "L": pd.DataFrame(L, index=A.index, columns=A.columns)}
    P = L
    for k in range(2, powers + 1):
        P = P @ L
        out[f"L^{k}"] = pd.DataFrame(P, index=A.index, columns=A.columns)
    return out


def kernel_checks(n_values: Iterable[int] = (3, 4), weights: Iterable[tuple] = ((1.0, 1.0),), *,
                  deviation: str = "std") -> pd.DataFrame:
    """Section II-C: :math:`\\kappa` of two rankings as a kernel, i.e. its Gram matrix over a set
    of rankings is positive semi-definite.

    For each ``n`` of ``n_values`` and each family (every full ranking of ``n`` items, every
    partial ranking of them), the Gram matrix :math:`G_{ij} = \\kappa(\\{r_i, r_j\\})` is built
    with :func:`rankbook.consensus.kappa` for each ``(gamma, lam)`` of ``weights``. One row per
    matrix: ``items``, ``family``, ``rankings`` (its size), ``gamma``, ``lam``,
    ``smallest eigenvalue`` and ``psd`` (smallest eigenvalue above ``-1e-9`` times the largest).

    Examples
    --------
    >>> kernel_checks([3])[["family", "rankings", "psd"]].values.tolist()
    [['full', 6, True], ['partial', 15, True]]
    """
    from rankbook import consensus

    rows = []
    for n in n_values:
        items = [chr(ord("a") + i) for i in range(n)]
        pools = {"full": [list(p) for p in itertools.permutations(items)],
                 "partial": [list(p) for k in range(1, n + 1) for p in itertools.permutations(items, k)]}
        for family, pool in pools.items():
            pairs = [(i, j) for i in range(len(pool)) for j in range(i, len(pool))]
            ws = list(weights)
            values = np.array([consensus.kappa([pool[i], pool[j]], [g for g, _ in ws], [lm for _, lm in ws],
                                               deviation=deviation) for i, j in pairs]).reshape(len(pairs), len(ws))
            for w, (g, lm) in enumerate(ws):
                G = np.zeros((len(pool), len(pool)))
                for (i, j), v in zip(pairs, values[:, w]):
                    G[i, j] = G[j, i] = v
                eig = np.linalg.eigvalsh(G)
                rows.append({"items": n, "family": family, "rankings": len(pool), "gamma": float(g),
                             "lam": float(lm), "smallest eigenvalue": float(eig[0]),
                             "psd": bool(eig[0] >= -1e-9 * max(1.0, float(eig[-1])))})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------
# published matrices, sets and values


def _read_csv(source, what: str) -> pd.DataFrame:
    try:
        return pd.read_csv(source, comment="#", dtype=str, keep_default_na=False)
    except FileNotFoundError:
        raise ValueError(f"{what}: no such file {source}") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ValueError(f"{what}: cannot read {source}: {exc}") from None


def read_published_matrices(source) -> dict[str, pd.DataFrame]:
    """Read printed square matrices from a CSV: columns ``matrix``, ``row``, then one column
    per item; the rows of one matrix are consecutive, in the item order of the columns.

    ``source`` is a path (absolute, or relative to the current folder) or an open file.
    Returns ``{matrix name: DataFrame}`` with float entries, rows and columns labelled by item.
    Raises ``ValueError`` naming the matrix when it is not square or its rows are not labelled
    as its columns, or when an entry is not a number.

    Examples
    --------
    >>> import io
    >>> m = read_published_matrices(io.StringIO("# A\\nmatrix,row,a,b\\nA,a,1,0\\nA,b,1,1\\n"))
    >>> m["A"].to_numpy().tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    df = _read_csv(source, "published matrices")
    if list(df.columns[:2]) != ["matrix", "row"] or len(df.columns) < 3:
        raise ValueError(f"published matrices: the header must be matrix,row,<item>,..., "
                         f"found {list(df.columns)}")
    items = list(df.columns[2:])
    out = {}
    for name, sub in df.groupby("matrix", sort=False):
        if list(sub["row"]) != items:
            raise ValueError(f"published matrix {name!r}: rows {list(sub['row'])} must be the "
                             f"items {items} in that order")
        try:
            values = sub[items].astype(float).to_numpy()
        except ValueError as exc:
            raise ValueError(f"published matrix {name!r}: an entry is not a number ({exc})") from None
        out[str(name)] = pd.DataFrame(values, index=items, columns=items)
    return out


def read_published_values(source) -> pd.DataFrame:
    """Read printed values from a CSV with a ``quantity`` column (and any others), keeping the
    cells as text, so that the caller converts what it compares. ``source`` is a path or an
    open file.

    Examples
    --------
    >>> import io
    >>> read_published_values(io.StringIO("# x\\nquantity,value\\nkappa,17\\n")).value.tolist()
    ['17']
    """
    df = _read_csv(source, "published values")
    if "quantity" not in df.columns:
        raise ValueError(f"published values: no 'quantity' column (found {list(df.columns)})")
    if df["quantity"].duplicated().any():
        dup = df.loc[df["quantity"].duplicated(), "quantity"].iloc[0]
        raise ValueError(f"published values: quantity {dup!r} is given twice")
    return df


def compare_matrices(reproduced: dict, published: dict) -> pd.DataFrame:
    """Entry-by-entry comparison of matrices with the same names and labels.

    Returns one row per entry: ``matrix``, ``row``, ``column``, ``reproduced``,
    ``published``, ``match``. A matrix missing on either side, or labelled differently, raises
    ``ValueError``.

    Examples
    --------
    >>> a = pd.DataFrame([[1.0, 0.0], [1.0, 1.0]], index=list("ab"), columns=list("ab"))
    >>> b = pd.DataFrame([[1.0, 0.0], [0.0, 1.0]], index=list("ab"), columns=list("ab"))
    >>> t = compare_matrices({"A": a}, {"A": b})
    >>> int(t.match.sum()), len(t)
    (3, 4)
    """
    if set(reproduced) != set(published):
        raise ValueError(f"matrices differ: reproduced {sorted(reproduced)}, published "
                         f"{sorted(published)}")
    rows = []
    for name in published:
        rep, pub = reproduced[name], published[name]
        if list(rep.index) != list(pub.index) or list(rep.columns) != list(pub.columns):
            raise ValueError(f"matrix {name!r}: labels differ ({list(rep.index)} against "
                             f"{list(pub.index)})")
        for r in pub.index:
            for c in pub.columns:
                a, b = float(rep.at[r, c]), float(pub.at[r, c])
                rows.append({"matrix": name, "row": r, "column": c, "reproduced": a,
                             "published": b, "match": bool(abs(a - b) <= 1e-9)})
    return pd.DataFrame(rows)


def compare_sets(stated: Iterable, computed: Iterable) -> dict:
    """A stated set against a computed one: ``matched`` (in both), ``total`` (in either),
    ``missing`` (stated only, sorted) and ``extra`` (computed only, sorted).

    Examples
    --------
    >>> compare_sets(["bc", "bd"], ["bd", "be"])
    {'matched': 1, 'total': 3, 'missing': ['bc'], 'extra': ['be']}
    """
    s, c = set(stated), set(computed)
    return {"matched": len(s & c), "total": len(s | c), "missing": sorted(s - c, key=repr),
            "extra": sorted(c - s, key=repr)}


def topk_remark_cases(rankings, zetas: Iterable[float], p: float, gamma: float = 1.0, *,
                      deviation: str = "std") -> pd.DataFrame:
    """The remark of Section IV-D4 on each item common to all rankings and each cut-off.

    The paper says that an item ranked after the cut-off :math:`\\zeta` in one of the rankings
    gets weight 0 in the top-k :math:`\\kappa_1`. For each cut-off and each common item that
    some ranking places after it, the row gives the positions, :math:`\\mu + d` and the
    weight :math:`H(\\zeta - \\mu - d)\\, p^{\\mu} \\gamma^{d}`; ``holds`` is True when the
    weight is 0.

    Examples
    --------
    >>> t = topk_remark_cases(["abcdef", "bdcefa", "bcdeghijkf", "badefc"], [9], 0.9)
    >>> t[["zeta", "item", "holds"]].values.tolist()
    [[9.0, 'f', False]]
    >>> topk_remark_cases(["abc", "def"], [2], 0.9).holds.dtype  # no common item: no case, typed
    dtype('bool')
    """
    maps = _maps(rankings)
    common = [x for x in maps[0] if all(x in m for m in maps)]
    rows = []
    for zeta in zetas:
        for x in common:
            pos = np.array([m[x] for m in maps], dtype=float)
            if not (pos > zeta).any():
                continue
            mu, d = float(pos.mean()), _spread(pos, deviation)
            weight = (float(p) ** mu * float(gamma) ** d) if zeta - mu - d > 0 else 0.0
            rows.append({"zeta": float(zeta), "item": str(x),
                         "positions": ", ".join(str(int(v)) for v in pos),
                         "mu + d": mu + d, "weight": weight, "holds": weight == 0.0})
    # typed columns even without a row: rankings that share no item (top-k lists drawn from a
    # large pool) give no case, and an empty frame of object columns turned ``~holds`` into
    # the integers -1 / -2 once concatenated with another set's cases (issue 30, finding 13)
    return pd.DataFrame(rows, columns=list(_TOPK_CASE_COLUMNS)).astype(_TOPK_CASE_COLUMNS)


#: Column types of :func:`topk_remark_cases`, kept when it finds no case.
_TOPK_CASE_COLUMNS = {"zeta": float, "item": object, "positions": object, "mu + d": float,
                      "weight": float, "holds": bool}
