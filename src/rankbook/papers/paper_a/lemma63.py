"""Paper A, Lemma 6.3 and Appendix B: Kendall's τ (and Spearman's ρ, NDPM) on one transposition.

The page ``kendall_width_swap`` shows what these functions compute, each check grading one
ledger claim it receives (its numbers in ``claim.params``, its errata through
``claim.finding(role)``):

* :func:`check_lemma_6_3`: Lemma 6.3's closed form
  :math:`\\tau(\\mathrm{id}, (i\\ j)) = (\\binom{n}{2} - 4d + 2)/\\binom{n}{2}` on every
  transposition of :math:`S_n`, with the proof's printed arithmetic as the finding ``proof``;
* :func:`check_width_dependency`: Appendix B's remark that Spearman's ρ and NDPM, like τ, give
  every transposition of one width the same value;
* :func:`check_adjacent_swaps`: Section 5's description of Kendall's τ as a measure of the
  smallest number of swaps of neighbours that turns one ranking into the other, against a
  breadth-first search of :math:`S_n`.

The ``perturb`` functions below are the faults of the mutation test (``[claims.test]`` of the
ledger entries): each returns keyword arguments that a correct check must catch.
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from rankbook import metrics, permutations
from rankbook.papers.paper_a import transpositions
from rankbook.ledger import claims
from rankbook.ledger.names import display


def _sizes(ns) -> str:
    return ", ".join(str(int(n)) for n in ns)


def check_lemma_6_3(claim: claims.Claim, *, ns: Sequence[int] | None = None,
                    kendall: Callable | None = None,
                    formula: Callable | None = None) -> claims.Evidence:
    """Lemma 6.3 on every transposition of :math:`S_n`, ``n`` in ``ns`` (default the claim's).

    ``kendall(sigma, nu)`` is the implementation of τ checked (default
    :func:`rankbook.metrics.kendall_tau`); ``formula(n, width)`` the closed form compared
    (default the lemma's, :func:`rankbook.papers.paper_a.transpositions.lemma_6_3_tau`). A
    transposition agrees when τ lies within the claim's ``tolerance`` of the closed form. The
    evidence carries the table of every transposition (``tables["all"]``), its summary per size
    and width
    (``tables["by_width"]``) and the proof's printed expressions (``tables["proof"]``), whose
    departure from the values they claim is the finding ``proof``.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> ev = check_lemma_6_3(checked_by(check_lemma_6_3), ns=[4, 5])
    >>> ev.status, ev.matched, ev.total
    ('holds', 16, 16)
    """
    ns = list(claim.params["ns"] if ns is None else ns)
    tol = float(claim.param("tolerance"))
    table = transpositions.kendall_transposition_table(ns, kendall=kendall)
    if formula is not None:
        table["formula"] = [float(formula(int(n), int(d))) for n, d in zip(table.n, table.width)]
        table["abs_error"] = (table.tau - table.formula).abs()
    ok = table.abs_error <= tol
    by_width = (table.groupby(["n", "width"])
                .agg(transpositions=("tau", "size"), inversions=("inversions", "first"),
                     distinct_tau=("tau", lambda s: int((np.diff(np.sort(s)) > tol).sum()) + 1),
                     tau=("tau", "first"), formula=("formula", "first"),
                     max_abs_error=("abs_error", "max"))
                .reset_index())
    proof = pd.concat([transpositions.lemma_6_3_proof_check(n) for n in ns], ignore_index=True)
    wrong = proof[(proof.printed_value - proof.claimed_value).abs() > tol]
    right = bool(((proof.correct_value - proof.claimed_value).abs() <= tol).all())
    inversions_ok = bool((table.inversions == 2 * table.width - 1).all())
    bad = table[~ok]
    ev = claim.evidence(
        comparison="claim", published="a closed form in n and the width d",
        reproduced=(f"exact for all {len(table)} transpositions checked" if ok.all() else
                    f"exact for {int(ok.sum())} of {len(table)} transpositions"),
        matched=int(ok.sum()), total=len(table), unit="transpositions",
        failures=[f"n = {int(r.n)}, ({int(r.i)} {int(r.j)}): τ = {r.tau:.6g}, formula {r.formula:.6g}"
                  for r in bad.head(5).itertuples()] or None,
        detail=(f"every transposition of $S_n$ for n = {_sizes(ns)}; largest difference "
                f"{float(table.abs_error.max()):.1e}; a swap of width d reverses 2d − 1 pairs "
                f"{'in every case' if inversions_ok else 'not in every case'}"),
        values={"worst": float(table.abs_error.max()), "inversions_ok": inversions_ok,
                "wrong_steps": len(wrong), "ns": ns})
    if len(wrong):
        e = wrong.iloc[0]
        ev.findings.append(claim.finding("proof", evidence=(
            f"{len(wrong)} of {len(proof)} printed expressions (n = {_sizes(ns)}) differ from the "
            f"value they claim, e.g. n = {int(e.n)}, d = {int(e.width)}: printed "
            f"{e.printed_value:.4f} against claimed {e.claimed_value:.4f}\n"
            f"concordant minus discordant pairs reproduces "
            f"{'every' if right else 'not every'} claimed value")))
    ev.add_table("all_transpositions", table, show=False)
    ev.add_table("kendall_by_width", by_width, float_format="{:.6g}", collapse=True,
                 title="Kendall's τ between the identity and a transposition, by size n and width d")
    ev.add_table("lemma63_proof_check", proof, float_format="{:.6g}", collapse=True,
                 title="The proof's printed intermediate expressions, evaluated, against the value "
                       "they claim")
    return ev


def wrong_kendall(claim: claims.Claim, **smoke) -> dict:
    """Mutant: Spearman's ρ in place of τ (it is not linear in the width)."""
    return {"kendall": metrics.spearman_rho}


def wrong_formula(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the closed form with 4d in place of 4d − 2."""
    return {"formula": lambda n, d: (n * (n - 1) / 2 - 4 * d) / (n * (n - 1) / 2)}


def _ndpm(sigma, nu):
    return metrics.ndpm(sigma, nu)


def check_width_dependency(claim: claims.Claim, *, ns: Sequence[int] | None = None,
                           implementations: dict | None = None) -> claims.Evidence:
    """Appendix B: Spearman's ρ and NDPM, like Kendall's τ, give every transposition of one
    width the same value (width swap dependency, Definition 8).

    ``implementations`` maps a metric id to the function checked (default the registered
    ``spearman_rho`` and ``ndpm``). One case per metric and size of ``ns`` (default the
    claim's): it holds when all transpositions of each width give one value, rounded to the
    claim's ``decimals``.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> check_width_dependency(checked_by(check_width_dependency), ns=[4, 6]).status
    'holds'
    """
    ns = list(claim.params["ns"] if ns is None else ns)
    decimals = int(claim.param("decimals"))
    impl = implementations or {"spearman_rho": metrics.spearman_rho, "ndpm": _ndpm}
    rows, failures = [], []
    for name, f in impl.items():
        t = transpositions.kendall_transposition_table(ns, kendall=f)
        spread = t.groupby(["n", "width"]).tau.agg(lambda s: int(np.unique(s.round(decimals)).size))
        for n in ns:
            worst = int(spread.loc[int(n)].max())
            rows.append({"metric": display(name), "n": int(n), "transpositions": int((t.n == n).sum()),
                         "most values at one width": worst, "depends on the width only": worst == 1})
            if worst != 1:
                failures.append(f"{display(name)} on $S_{{{int(n)}}}$")
    table = pd.DataFrame(rows)
    ok = int(table["depends on the width only"].sum())
    ev = claim.evidence(
        comparison="claim", published="width swap dependent",
        reproduced=f"{ok} of {len(table)} metric and size cases depend on the width only",
        matched=ok, total=len(table), unit="cases", failures=failures or None,
        detail=f"every transposition of $S_n$ against the identity, n = {_sizes(ns)}")
    ev.add_table("rho_ndpm_width", table,
                 title="Spearman's ρ and NDPM on every transposition: one value per width?")
    return ev


def _position_weighted(sigma, nu):
    """A metric that weighs the swapped positions by where they sit (not width swap dependent)."""
    s, v = np.asarray(sigma, float), np.asarray(nu, float)
    n = s.shape[-1]
    return (np.abs(s - v) * np.arange(1, n + 1)).sum(axis=-1)


def position_weighted(claim: claims.Claim, **smoke) -> dict:
    """Mutant: NDPM replaced by a metric that weighs positions."""
    return {"implementations": {"spearman_rho": metrics.spearman_rho, "ndpm": _position_weighted}}


def adjacent_swap_distance(n: int) -> np.ndarray:
    """The smallest number of swaps of neighbours that turns the identity into each permutation
    of :math:`S_n` (in the order of :func:`rankbook.permutations.all_permutations`), by a
    breadth-first search over the graph whose edges are the swaps of two neighbours: a count
    that does not go through inversions.

    Examples
    --------
    >>> adjacent_swap_distance(3).tolist()
    [0, 1, 1, 2, 2, 3]
    """
    if not 1 <= int(n) <= 8:
        raise ValueError(f"the search enumerates S_n: n must lie in 1..8, got {n!r}")
    n = int(n)
    start = tuple(range(1, n + 1))
    dist = {start: 0}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        for i in range(n - 1):
            q = p[:i] + (p[i + 1], p[i]) + p[i + 2:]
            if q not in dist:
                dist[q] = dist[p] + 1
                queue.append(q)
    return np.array([dist[tuple(int(x) for x in p)] for p in permutations.all_permutations(n)])


def check_adjacent_swaps(claim: claims.Claim, *, ns: Sequence[int] | None = None,
                         kendall: Callable | None = None) -> claims.Evidence:
    """Section 5: Kendall's τ measures the smallest number of swaps of neighbours that turns one
    ranking into the other.

    On every permutation π of :math:`S_n`, ``n`` in ``ns`` (default the claim's), the number
    ``s`` of swaps of neighbours from the identity to π is found by a breadth-first search
    (:func:`adjacent_swap_distance`), and τ(id, π) (``kendall``, default
    :func:`rankbook.metrics.kendall_tau`) is compared with :math:`1 - 2s/\\binom{n}{2}`, the
    decreasing affine function of ``s`` that takes 1 on equal rankings, to the claim's
    ``tolerance``. One case per permutation; the claim holds when τ is that function of the
    count everywhere. The other reading, τ equal to the count itself, is shown beside it.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> check_adjacent_swaps(checked_by(check_adjacent_swaps), ns=[3, 4]).status
    'holds'
    """
    ns = list(claim.params["ns"] if ns is None else ns)
    tol = float(claim.param("tolerance"))
    f = kendall or metrics.kendall_tau
    rows, equal_count, total = [], 0, 0
    for n in ns:
        P = permutations.all_permutations(int(n))
        s = adjacent_swap_distance(int(n))
        tau = np.asarray(f(np.broadcast_to(permutations.identity(int(n)), P.shape), P), dtype=float)
        affine = 1.0 - 2.0 * s / (n * (n - 1) / 2)
        ok = np.abs(tau - affine) <= tol
        equal_count += int(np.sum(np.abs(tau - s) <= tol))
        total += len(P)
        bad = np.flatnonzero(~ok)
        rows.append({"n": int(n), "permutations": len(P), "largest number of swaps": int(s.max()),
                     "τ = 1 − 2s / C(n, 2)": int(ok.sum()), "τ = s": int(np.sum(np.abs(tau - s) <= tol)),
                     "first exception": "" if not bad.size else
                     f"{P[bad[0]].tolist()}: s = {int(s[bad[0]])}, τ = {tau[bad[0]]:.4g}"})
    table = pd.DataFrame(rows)
    matched = int(table["τ = 1 − 2s / C(n, 2)"].sum())
    ev = claim.evidence(
        comparison="claim", published="τ measures the smallest number of swaps of neighbours",
        reproduced=(f"τ = 1 − 2s / C(n, 2) on all {total} permutations" if matched == total else
                    f"τ = 1 − 2s / C(n, 2) on {matched} of {total} permutations"),
        matched=matched, total=total, unit="permutations",
        failures=[f"$S_{{{r['n']}}}$: {r['first exception']}" for r in rows if r["first exception"]] or None,
        reading="measures: τ is a decreasing affine function of the count s, 1 on equal rankings",
        alternatives={"τ equal to the count s itself": equal_count},
        detail=(f"every permutation of $S_n$ against the identity, n = {_sizes(ns)}; s by a "
                "breadth-first search over swaps of neighbours, not through inversions"))
    ev.add_table("kendall_adjacent_swaps", table,
                 title="Kendall's τ against the smallest number s of swaps of neighbours, every "
                       "permutation of S_n")
    return ev


def spearman_for_kendall(claim: claims.Claim, **smoke) -> dict:
    """Mutant: Spearman's ρ in place of τ (not an affine function of the number of swaps)."""
    return {"kendall": metrics.spearman_rho}
