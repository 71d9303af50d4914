"""Paper A, Lemma 6.3 and Appendix B: Kendall's τ (and Spearman's ρ, NDPM) on one transposition.

The page ``kendall_width_swap`` shows what these functions compute: Lemma 6.3's closed form
:math:`\\tau(\\mathrm{id}, (i\\ j)) = (\\binom{n}{2} - 4d + 2)/\\binom{n}{2}` checked on every
transposition of :math:`S_n` (claim ``A-L6.3``, with the proof's printed arithmetic as erratum
``A-E9``), and Appendix B's remark that Spearman's ρ and NDPM depend on the width of a swap only
(claim ``A-B-wsd``).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pandas as pd

from rankbook import metrics, transpositions
from rankbook.ledger import claims
from rankbook.ledger.names import display

#: A transposition's value agrees with the closed form within this absolute tolerance.
TOL = 1e-12


def _sizes(ns) -> str:
    return ", ".join(str(int(n)) for n in ns)


def check_lemma_6_3(ns: Sequence[int] = (5, 10, 20, 50), *, kendall: Callable | None = None,
                    formula: Callable | None = None) -> claims.Evidence:
    """Lemma 6.3 on every transposition of :math:`S_n`, ``n`` in ``ns`` (claim ``A-L6.3``).

    ``kendall(sigma, nu)`` is the implementation of τ checked (default
    :func:`rankbook.metrics.kendall_tau`); ``formula(n, width)`` the closed form compared
    (default the lemma's, :func:`rankbook.transpositions.lemma_6_3_tau`). The evidence carries
    the table of every transposition (``tables["all"]``), its summary per size and width
    (``tables["by_width"]``) and the proof's printed expressions (``tables["proof"]``), whose
    departure from the values they claim confirms erratum ``A-E9``.

    Examples
    --------
    >>> ev = check_lemma_6_3([4, 5])
    >>> ev.status, ev.matched, ev.total
    ('holds', 16, 16)
    """
    table = transpositions.kendall_transposition_table(ns, kendall=kendall)
    if formula is not None:
        table["formula"] = [float(formula(int(n), int(d))) for n, d in zip(table.n, table.width)]
        table["abs_error"] = (table.tau - table.formula).abs()
    ok = table.abs_error < TOL
    by_width = (table.groupby(["n", "width"])
                .agg(transpositions=("tau", "size"), inversions=("inversions", "first"),
                     distinct_tau=("tau", lambda s: int(np.unique(s.round(12)).size)),
                     tau=("tau", "first"), formula=("formula", "first"),
                     max_abs_error=("abs_error", "max"))
                .reset_index())
    proof = pd.concat([transpositions.lemma_6_3_proof_check(n) for n in ns], ignore_index=True)
    wrong = proof[(proof.printed_value - proof.claimed_value).abs() > TOL]
    right = bool(((proof.correct_value - proof.claimed_value).abs() < TOL).all())
    inversions_ok = bool((table.inversions == 2 * table.width - 1).all())
    bad = table[~ok]
    findings = []
    if len(wrong):
        e = wrong.iloc[0]
        findings.append(claims.Finding(
            id="A-E9",
            evidence=(f"{len(wrong)} of {len(proof)} printed expressions (n = {_sizes(ns)}) differ "
                      f"from the value they claim, e.g. n = {int(e.n)}, d = {int(e.width)}: printed "
                      f"{e.printed_value:.4f} against claimed {e.claimed_value:.4f}\n"
                      f"concordant minus discordant pairs reproduces "
                      f"{'every' if right else 'not every'} claimed value")))
    worst = float(table.abs_error.max())
    return claims.Evidence(
        claim="A-L6.3", comparison="claim", published="a closed form in n and the width d",
        reproduced=(f"exact for all {len(table)} transpositions checked" if ok.all() else
                    f"exact for {int(ok.sum())} of {len(table)} transpositions"),
        matched=int(ok.sum()), total=len(table), unit="transpositions",
        failures=[f"n = {int(r.n)}, ({int(r.i)} {int(r.j)}): τ = {r.tau:.6g}, formula {r.formula:.6g}"
                  for r in bad.head(5).itertuples()] or None,
        detail=(f"every transposition of $S_n$ for n = {_sizes(ns)}; largest difference "
                f"{worst:.1e}; a swap of width d reverses 2d − 1 pairs "
                f"{'in every case' if inversions_ok else 'not in every case'}"),
        findings=findings,
        tables={"all": table, "by_width": by_width, "proof": proof},
        values={"worst": worst, "inversions_ok": inversions_ok, "wrong_steps": len(wrong)})


def _ndpm(sigma, nu):
    return metrics.ndpm(sigma, nu)


def check_width_dependency(ns: Sequence[int] = (5, 10, 20, 50), *,
                           implementations: dict | None = None) -> claims.Evidence:
    """Appendix B: Spearman's ρ and NDPM, like Kendall's τ, give every transposition of one
    width the same value (width swap dependency, Definition 8; claim ``A-B-wsd``).

    ``implementations`` maps a metric id to the function checked (default the registered
    ``spearman_rho`` and ``ndpm``). One case per metric and size: it holds when all
    transpositions of each width give one value (to 12 decimals).

    Examples
    --------
    >>> check_width_dependency([4, 6]).status
    'holds'
    """
    impl = implementations or {"spearman_rho": metrics.spearman_rho, "ndpm": _ndpm}
    rows, failures = [], []
    for name, f in impl.items():
        t = transpositions.kendall_transposition_table(ns, kendall=f)
        spread = t.groupby(["n", "width"]).tau.agg(lambda s: int(np.unique(s.round(12)).size))
        for n in ns:
            worst = int(spread.loc[int(n)].max())
            rows.append({"metric": display(name), "n": int(n), "transpositions": int((t.n == n).sum()),
                         "most values at one width": worst, "depends on the width only": worst == 1})
            if worst != 1:
                failures.append(f"{display(name)} on $S_{{{int(n)}}}$")
    table = pd.DataFrame(rows)
    ok = int(table["depends on the width only"].sum())
    return claims.Evidence(
        claim="A-B-wsd", comparison="claim", published="width swap dependent",
        reproduced=f"{ok} of {len(table)} metric and size cases depend on the width only",
        matched=ok, total=len(table), unit="cases", failures=failures or None,
        detail=f"every transposition of $S_n$ against the identity, n = {_sizes(ns)}",
        tables={"wsd": table})


def _wrong_kendall(sigma, nu):
    """A deliberately wrong τ: Spearman's ρ in its place (it is not linear in the width)."""
    return metrics.spearman_rho(sigma, nu)


def _position_weighted(sigma, nu):
    """A deliberately wrong metric: the swapped positions weighted by where they sit."""
    s, v = np.asarray(sigma, float), np.asarray(nu, float)
    n = s.shape[-1]
    return (np.abs(s - v) * np.arange(1, n + 1)).sum(axis=-1)


CHECKS = {
    "A-L6.3": claims.Check(
        check_lemma_6_3, smoke={"ns": [4, 6]},
        mutants={"a wrong implementation of τ (Spearman's ρ)": {"kendall": _wrong_kendall},
                 "a wrong closed form (4d in place of 4d − 2)":
                     {"formula": lambda n, d: (n * (n - 1) / 2 - 4 * d) / (n * (n - 1) / 2)}}),
    "A-B-wsd": claims.Check(
        check_width_dependency, smoke={"ns": [4, 6]},
        mutants={"a metric that weights positions (not width swap dependent)":
                 {"implementations": {"spearman_rho": metrics.spearman_rho,
                                      "ndpm": _position_weighted}}}),
}
