"""Paper A, Propositions 6.1, 6.4 and 7.2: is DCG injective, is the difference of DCGs a
distance, and does the identity of indiscernibles give maximal agreement (page
``dcg_injectivity``).

Each check receives the ledger entry of the claim it grades (its sizes in ``claim.params``, its
errata through ``claim.finding(role)``):

* :func:`check_prop_6_1`: an exhaustive search of :math:`S_n` for two permutations with exactly
  equal DCG, decided in exact arithmetic (findings ``collision`` and ``proof``);
* :func:`check_identity_minimum`: the proof's eq. 4, the identity as the unique minimiser of DCG;
* :func:`check_prop_6_4` and :func:`check_signed_difference`: the axioms of Definition 11 for
  :math:`|\\mathrm{DCG}(\\sigma) - \\mathrm{DCG}(\\nu)|` (finding ``identity``) and for the signed
  difference, which the proposition says is no distance;
* :func:`check_prop_7_2`: identity of indiscernibles (Definition 4) against maximal agreement
  (Definition 15) (finding ``counterexample``); :func:`check_converse_7_2`: the proof's example,
  precision@k, has maximal agreement without the identity of indiscernibles;
* :func:`check_dcg_ndcg_scale` and :func:`check_binary_gains`: two statements true by
  definition, shown on the page (nDCG is DCG times a constant; binary gains cannot tell apart two
  relevant items);
* :func:`identity_notions`: the three notions the paper calls identity of indiscernibles, side
  by side (used by the check of Proposition 7.1).

The ``perturb`` functions are the faults of the mutation test (``[claims.test]`` of the ledger).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import factorial
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from rankbook import metrics, permutations, properties
from rankbook.ledger import claims
from rankbook.ledger.names import display, evidence_text


def reads_nu_only(sigma, nu):
    """A metric built to test Proposition 7.2: the base-(n+1) number whose digits are
    :math:`\\nu(1), \\dots, \\nu(n)`. Injective in ``nu`` (Definition 4 holds) and blind to
    ``sigma``, so :math:`m(\\sigma, \\sigma)` is not constant.

    Examples
    --------
    >>> float(reads_nu_only([1, 2], [2, 1]))
    7.0
    """
    v = np.asarray(nu, dtype=float)
    n = v.shape[-1]
    return (v * (n + 1.0) ** np.arange(n - 1, -1, -1)).sum(axis=-1)


def _float_collisions(score: Callable, n: int) -> list[tuple]:
    """Pairs of distinct permutations whose ``score`` agrees to 1e-9 (a stand-in search for an
    injected score; the default DCG is searched exactly)."""
    P = permutations.all_permutations(n)
    x = np.asarray(score(P), dtype=float)
    order = np.argsort(x, kind="stable")
    close = np.flatnonzero(np.diff(x[order]) <= 1e-9 * (1 + np.abs(x[order][1:])))
    return [(P[order[i]], P[order[i + 1]]) for i in close]


def collision_counts(n_min: int, n_max: int, *, against_identity: bool = False) -> dict:
    """Exact collisions of the one-argument DCG on :math:`S_n`, ``n_min <= n <= n_max``:
    ``{n: pairs}`` with the proved pairs (``verdict == "equal"``) of
    :func:`rankbook.properties.dcg_collisions`, the summary table, and the near-misses.
    ``against_identity=True`` keeps only pairs involving the identity: the reduction the proof
    of Proposition 6.1 makes "without loss of generality"."""
    if not 2 <= n_min <= n_max <= 10:
        raise ValueError(f"need 2 <= n_min <= n_max <= 10, got n_min={n_min}, n_max={n_max}")
    found, rows = {}, []
    for n in range(n_min, n_max + 1):
        t = properties.dcg_collisions(n, certificates=False)
        if against_identity:
            ident = tuple(range(1, n + 1))
            t = t[np.array([tuple(a) == ident or tuple(b) == ident
                            for a, b in zip(t["first"], t["second"])], dtype=bool)]
        proved = t[t.verdict == "equal"]
        found[n] = proved
        involved = {tuple(p) for p in proved["first"]} | {tuple(p) for p in proved["second"]}
        rows.append({
            "n": n, "permutations": factorial(n),
            "distinct DCG values": properties.dcg_distinct_values(n),
            "pairs with equal DCG (proved)": len(proved),
            "permutations in such a pair": len(involved),
            "float near-misses (different at 60 digits)": int((t.verdict == "different").sum()),
            "undecided": int((t.verdict == "undecided").sum()),
        })
    return {"pairs": found, "summary": pd.DataFrame(rows)}


def _terms(p1, p2) -> tuple[pd.DataFrame, str]:
    n = len(p1)

    def rational(i):
        return (i + 1) & i == 0  # log2(i + 1) is an integer exactly when i + 1 is a power of 2

    rows = [{"position i": i,
             "discount 1/log2(i+1)": f"1/{(i + 1).bit_length() - 1}" if rational(i) else f"1/log2({i + 1})",
             "pi_1(i)": int(p1[i - 1]), "pi_2(i)": int(p2[i - 1]),
             "same item": bool(p1[i - 1] == p2[i - 1])} for i in range(1, n + 1)]
    rat = [i for i in range(1, n + 1) if rational(i) and p1[i - 1] != p2[i - 1]]
    other = [i for i in range(1, n + 1) if not rational(i) and p1[i - 1] != p2[i - 1]]
    s1 = sum(Fraction(int(p1[i - 1]), (i + 1).bit_length() - 1) for i in rat)
    s2 = sum(Fraction(int(p2[i - 1]), (i + 1).bit_length() - 1) for i in rat)
    text = (f"Positions where the items differ and the discount is irrational: "
            f"{', '.join(map(str, other)) or 'none'}. Positions where they differ and the discount "
            f"is rational: {', '.join(map(str, rat))}. There the sums are {s1} and {s2}, "
            f"{'equal' if s1 == s2 else 'different'}; the float DCGs are "
            f"{float(properties.dcg_single(p1))!r} and {float(properties.dcg_single(p2))!r}.")
    return pd.DataFrame(rows), text


def check_prop_6_1(claim: claims.Claim, *, n_min: int | None = None, n_max: int | None = None,
                   n_examples: int = 4, n_metric: int | None = None,
                   reduction: str = "all pairs") -> claims.Evidence:
    """Proposition 6.1: DCG and nDCG satisfy the identity of indiscernibles.

    Every :math:`S_n`, ``n_min <= n <= n_max`` (default the claim's), is searched for two
    distinct permutations with exactly equal one-argument DCG (:func:`collision_counts`).
    ``reduction="to the identity"`` searches only pairs involving the identity, as the proof
    reduces to :math:`\\sigma_1 = \\mathrm{id}` (a wrong search, for the mutation test). The
    two-argument metrics ``dcg`` and ``ndcg`` are checked against Definition 4 at
    ``n_metric - 1`` and ``n_metric``. The claim holds when no collision exists for any ``n``
    searched; otherwise the findings ``collision`` (the first colliding pairs) and ``proof``
    (neither permutation is the identity) say why. Tables: ``dcg_collision_counts``,
    ``dcg_collision_examples``, ``dcg_collision_terms``, ``dcg_ndcg_identity_check``.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> claim = checked_by(check_prop_6_1)
    >>> check_prop_6_1(claim, n_min=5, n_max=6, n_metric=4).status
    'holds'
    >>> check_prop_6_1(claim, n_min=7, n_max=7, n_examples=1, n_metric=4).status
    'false'
    """
    if reduction not in ("all pairs", "to the identity"):
        raise ValueError(f"reduction must be 'all pairs' or 'to the identity', got {reduction!r}")
    n_min = int(claim.params["n_min"] if n_min is None else n_min)
    n_max = int(claim.params["n_max"] if n_max is None else n_max)
    n_metric = int(claim.params["n_metric"] if n_metric is None else n_metric)
    found = collision_counts(n_min, n_max, against_identity=reduction == "to the identity")
    summary = found["summary"]
    hit = summary[summary["pairs with equal DCG (proved)"] > 0]
    n_first = int(hit["n"].min()) if len(hit) else None
    checks = []
    for n in sorted({max(2, n_metric - 1), n_metric}):
        for name in ("dcg", "ndcg"):
            r = properties.identity_of_indiscernibles(name, n)
            ev = r.evidence
            checks.append({
                "metric": display(name), "n": n, "identity of indiscernibles": r.holds,
                "method": r.method_detail,
                "sigma": "" if ev is None else str(ev.ranking("sigma").tolist()),
                "tau": "" if ev is None else str(ev.ranking("tau").tolist()),
                "nu": "" if ev is None else str(ev.ranking("nu").tolist())})
    common = dict(comparison="claim", published="true for every n")
    if n_first is None:
        out = claim.evidence(
            **common, reproduced=f"no collision in $S_n$ for n = {n_min}..{n_max}", holds=True,
            detail=f"exhaustive search in exact arithmetic ({reduction})",
            values={"n_first": None})
    else:
        pairs = found["pairs"][n_first]
        p1, p2 = (np.asarray(x) for x in pairs.iloc[0][["first", "second"]])
        first, last = summary[summary.n == n_first].iloc[0], summary.iloc[-1]
        count = int(first["pairs with equal DCG (proved)"])
        out = claim.evidence(
            **common, reproduced=f"true for n ≤ {n_first - 1}; false from n = {n_first}", holds=False,
            failures=[f"every n ≥ {n_first}: distinct rankings share a DCG"],
            detail=(f"{count} pairs of distinct permutations of $S_{{{n_first}}}$ have exactly equal "
                    "DCG (exhaustive, exact arithmetic)"),
            values={"n_first": n_first, "p1": p1, "p2": p2})
        out.findings += [
            claim.finding("collision", evidence=(
                f"exhaustive over S_n, n = {n_min}..{n_max}: DCG is injective for n < {n_first}\n"
                f"S_{n_first} has {count} pairs of distinct permutations with exactly equal DCG, "
                f"S_{int(last.n)} has {int(last['pairs with equal DCG (proved)'])}\n"
                f"e.g. {p1.tolist()} and {p2.tolist()}: {properties.dcg_exact_compare(p1, p2)[1]}")),
            claim.finding("proof", evidence=(
                f"first collision: {p1.tolist()} and {p2.tolist()}, neither is the identity\n"
                f"DCG(id) = {float(properties.dcg_single(permutations.identity(n_first))):.4f} is "
                f"smaller than both ({float(properties.dcg_single(p1)):.4f})")),
        ]
    out.add_table("dcg_collision_counts", summary,
                  title="Exhaustive search of S_n: permutations with exactly equal DCG")
    if n_first is not None:
        ex = properties.dcg_collisions(n_first)
        ex = ex[ex.verdict == "equal"].head(n_examples)
        out.add_table("dcg_collision_examples", pd.DataFrame({
            "pi_1": [str(p) for p in ex["first"]], "pi_2": [str(p) for p in ex["second"]],
            "DCG(pi_1)": ex["dcg_first"], "DCG(pi_2)": ex["dcg_second"],
            "certificate": ex["certificate"]}), float_format="{:.12f}",
            title=f"Pairs of distinct permutations of S_{n_first} with exactly equal DCG")
        terms, out.values["terms_text"] = _terms(out.values["p1"], out.values["p2"])
        out.add_table("dcg_collision_terms", terms,
                      title=f"The first collision of S_{n_first}, position by position")
    out.add_table("dcg_ndcg_identity_check", pd.DataFrame(checks),
                  title="Def. 4 for the two-argument dcg and ndcg (exhaustive)")
    return out


def check_identity_minimum(claim: claims.Claim, *, n_min: int | None = None,
                           n_max: int | None = None, score: Callable | None = None) -> claims.Evidence:
    """The proof of Proposition 6.1, eq. 4 and its base case: every permutation other than the
    identity has a strictly larger one-argument DCG than the identity, so the identity is its
    unique minimiser.

    ``score`` (default :func:`rankbook.properties.dcg_single`) is evaluated on every permutation
    of :math:`S_n`, ``n_min <= n <= n_max`` (default the claim's); one case per ``n``, holding
    when the smallest difference ``score(σ) − score(id)`` over ``σ ≠ id`` is positive. The
    evidence's table gives that smallest difference and where it is reached.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> check_identity_minimum(checked_by(check_identity_minimum), n_max=6).status
    'holds'
    """
    n_min = int(claim.params["n_min"] if n_min is None else n_min)
    n_max = int(claim.params["n_max"] if n_max is None else n_max)
    f = score or properties.dcg_single
    rows = []
    for n in range(max(2, n_min), n_max + 1):
        P = permutations.all_permutations(n)
        x = np.asarray(f(P), dtype=float)
        ident = np.all(P == permutations.identity(n), axis=1)
        gap = x[~ident] - x[ident][0]
        at = int(np.argmin(gap))
        rows.append({"n": n, "permutations": len(P), "smallest DCG(σ) − DCG(id)": float(gap[at]),
                     "reached at σ": str(P[~ident][at].tolist()), "identity the unique minimum": bool(gap[at] > 0)})
    table = pd.DataFrame(rows)
    bad = table[~table["identity the unique minimum"]]
    ev = claim.evidence(
        comparison="claim", published="eq. 4: every σ ≠ id has a larger DCG than the identity",
        reproduced=(f"the identity is the unique minimiser on every $S_n$, n = {n_min}..{n_max}" if bad.empty
                    else f"fails on {claims.plural(len(bad), 'size')}"),
        matched=len(table) - len(bad), total=len(table), unit="sizes",
        failures=[f"$S_{{{r['n']}}}$: {r['reached at σ']} gives {r['smallest DCG(σ) − DCG(id)']:.4g}"
                  for _, r in bad.iterrows()] or None,
        detail="every permutation, exhaustively; the smallest gap is far above the rounding error")
    ev.add_table("dcg_identity_minimum", table, float_format="{:.4f}",
                 title="Eq. 4 of the proof: how much larger than DCG(id) the DCG of every other "
                       "permutation is")
    return ev


def negated_dcg(claim: claims.Claim, **smoke) -> dict:
    """Mutant: −DCG in place of DCG (the identity becomes the maximum)."""
    return {"score": lambda p: -properties.dcg_single(p)}


def _absolute(f):
    return lambda s, v: np.abs(f(s) - f(v))


def _signed(f):
    return lambda s, v: f(s) - f(v)


_INDUCED = {"|DCG(σ) − DCG(ν)|": _absolute, "DCG(σ) − DCG(ν)": _signed}


@lru_cache(maxsize=16)
def _dcg_distance(n: int, name: str) -> dict:
    """Definition 11 for an induced function of the one-argument DCG on S_n (cached: the page
    checks the two induced functions for two claims)."""
    r = properties.is_distance(_INDUCED[name](properties.dcg_single), n, transform="none")
    return {"function": name, "n": n, "distance": r.holds, "nonnegative": r.nonnegative,
            "identity": r.identity, "symmetric": r.symmetric, "triangle": r.triangle,
            "method": r.method_detail, "evidence": "" if r.holds else evidence_text(r.evidence)}


def _distance_rows(n_from: int, n_distance: int, score: Callable | None) -> list[dict]:
    rows = []
    for n in range(max(3, n_from), n_distance + 1):
        for name, make in _INDUCED.items():
            if score is None:
                rows.append(dict(_dcg_distance(n, name)))
            else:
                r = properties.is_distance(make(score), n, transform="none")
                rows.append({"function": name, "n": n, "distance": r.holds, "nonnegative": r.nonnegative,
                             "identity": r.identity, "symmetric": r.symmetric, "triangle": r.triangle,
                             "method": r.method_detail,
                             "evidence": "" if r.holds else evidence_text(r.evidence)})
    return rows


def check_prop_6_4(claim: claims.Claim, *, n_distance: int | None = None, n_max: int | None = None,
                   score: Callable | None = None) -> claims.Evidence:
    """Proposition 6.4: :math:`|\\mathrm{DCG}(\\sigma) - \\mathrm{DCG}(\\nu)|` is a distance on
    :math:`S_n`.

    All axioms of Definition 11 are checked exhaustively for ``n_from <= n <= n_distance`` (the
    signed difference beside it), and the identity axiom on the first collision of ``score``
    (default the one-argument DCG, searched exactly up to ``n_max``; an injected ``score`` is
    searched in floating point). Sizes default to the claim's. One case per ``n``; a failing
    case is the finding ``identity``.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> check_prop_6_4(checked_by(check_prop_6_4), n_distance=4, n_max=7).status
    'false'
    """
    n_distance = int(claim.params["n_distance"] if n_distance is None else n_distance)
    n_max = int(claim.params["n_max"] if n_max is None else n_max)
    f = score or properties.dcg_single
    rows = _distance_rows(int(claim.param("n_from")), n_distance, score)
    cases = [(r["n"], bool(r["distance"]), r["evidence"]) for r in rows
             if r["function"] == "|DCG(σ) − DCG(ν)|"]
    pair = None
    for n in range(n_distance + 1, n_max + 1):
        if score is None:
            t = properties.dcg_collisions(n, certificates=False)
            t = t[t.verdict == "equal"]
            if len(t):
                pair = tuple(np.asarray(x) for x in t.iloc[0][["first", "second"]])
        else:
            hits = _float_collisions(f, n)
            pair = hits[0] if hits else None
        if pair is not None:
            break
    if pair is not None:
        zero = float(_absolute(f)(pair[0], pair[1]))
        ok = not (abs(zero) <= 1e-9 and not np.array_equal(*pair))
        n = len(pair[0])
        rows.append({"function": "|DCG(σ) − DCG(ν)|", "n": n, "distance": ok, "nonnegative": None,
                     "identity": ok, "symmetric": None, "triangle": None,
                     "method": f"f(π₁, π₂) = {zero:.3g} for π₁ = {pair[0].tolist()}, "
                               f"π₂ = {pair[1].tolist()}", "evidence": ""})
        cases.append((n, ok, f"f({pair[0].tolist()}, {pair[1].tolist()}) = {zero:.1g}"))
    table = pd.DataFrame(rows).drop(columns="evidence", errors="ignore")
    if not cases:  # no size checked (n_max below 3): nothing to compare, said on the page
        ev = claim.evidence(
            comparison="none", published="true for every n",
            reproduced="no size from 3 up was checked with these parameters",
            detail="rerun with a larger largest n")
        ev.add_table("dcg_distance_check", table,
                     title="Proposition 6.4: the two induced functions against Definition 11")
        return ev
    ok = sum(c[1] for c in cases)
    bad = [c for c in cases if not c[1]]
    ev = claim.evidence(
        comparison="claim", published="true for every n",
        reproduced=(f"a distance for n = {claim.param('n_from')}..{n_distance}"
                    + (f", not at n = {bad[0][0]}" if bad else "")),
        matched=ok, total=len(cases), unit="cases",
        failures=[f"n = {c[0]}: it vanishes on distinct rankings" for c in bad] or None,
        detail="all axioms exhaustively for small n, the identity axiom on the first collision")
    if bad:
        ev.findings.append(claim.finding("identity", evidence=(
            "; ".join(f"n = {c[0]}: {c[2]}" for c in bad)
            + (f"\nthe axioms hold exhaustively for n = {claim.param('n_from')}..{n_distance}"
               if all(c[1] for c in cases if c[0] <= n_distance) else ""))))
    ev.add_table("dcg_distance_check", table,
                 title="Proposition 6.4: the two induced functions against Definition 11")
    return ev


def injective_score(claim: claims.Claim, **smoke) -> dict:
    """Mutant: an injective score (base-(n+1) digits) in place of DCG."""
    return {"score": lambda p: reads_nu_only(p, p)}


def check_signed_difference(claim: claims.Claim, *, n_distance: int | None = None,
                            induced: str = "DCG(σ) − DCG(ν)") -> claims.Evidence:
    """Proposition 6.4, first half, and its proof: the signed difference
    :math:`f_m(\\sigma, \\nu) = \\mathrm{DCG}(\\sigma) - \\mathrm{DCG}(\\nu)` is not a distance
    (it takes negative values and is antisymmetric).

    One case per ``n`` from the claim's ``n_from`` to ``n_distance`` (default the claim's): all axioms of
    Definition 11, exhaustively on :math:`S_n` for the function ``induced`` (the signed
    difference; the absolute one for the mutation test); a case holds when the function is no
    distance. The same computation as :func:`check_prop_6_4` (cached).

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> check_signed_difference(checked_by(check_signed_difference), n_distance=4).status
    'holds'
    """
    if induced not in _INDUCED:
        raise ValueError(f"induced must be one of {list(_INDUCED)}, got {induced!r}")
    n_distance = int(claim.params["n_distance"] if n_distance is None else n_distance)
    n_from = int(claim.param("n_from"))
    rows = [r for r in _distance_rows(n_from, n_distance, None) if r["function"] == induced]
    if not rows:  # n_distance below the claim's first size: nothing checked, said on the page
        return claim.evidence(
            comparison="none", published="no distance",
            reproduced=f"no size from {n_from} up was checked with these parameters",
            detail=f"rerun with n_distance of at least {n_from}")
    bad = [r for r in rows if r["distance"]]
    axioms = {"nonnegative": "takes negative values", "symmetric": "is not symmetric",
              "triangle": "violates the triangle inequality"}
    broken = [words for axiom, words in axioms.items() if any(r[axiom] is False for r in rows)]
    return claim.evidence(
        comparison="claim", published="no distance",
        reproduced=(f"no distance on any $S_n$, n = {n_from}..{n_distance}: it " + " and ".join(broken)
                    if not bad else f"a distance on {claims.plural(len(bad), 'size')}"),
        matched=len(rows) - len(bad), total=len(rows), unit="sizes",
        failures=[f"$S_{{{r['n']}}}$: {induced} is a distance" for r in bad] or None,
        detail=f"{induced}, the axioms of Definition 11 exhaustively on every $S_n$ checked")


def absolute_difference(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the absolute difference checked in place of the signed one."""
    return {"induced": "|DCG(σ) − DCG(ν)|"}


#: How a page names a metric this book built to test a statement (not one of the paper's).
BUILT_HERE = "a test metric built here, not in the paper"


def _candidates():
    return {"dcg": "dcg", "ndcg": "ndcg", "reads_nu_only": reads_nu_only}


def check_prop_7_2(claim: claims.Claim, *, n: int | None = None,
                   candidates: dict | None = None) -> claims.Evidence:
    """Proposition 7.2: the identity of indiscernibles (Definition 4) implies maximal
    agreement (Definition 15).

    Each candidate metric (default DCG, nDCG and :func:`reads_nu_only`) is checked
    exhaustively on :math:`S_n` (``n`` default the claim's, at most 6, where DCG is
    injective); registered metrics in both orientations (as defined, and turned so that higher
    is closer). A case is a candidate and orientation with the identity of indiscernibles; it
    holds when maximal agreement holds too. Failing cases are the finding ``counterexample``.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> check_prop_7_2(checked_by(check_prop_7_2), n=4).status
    'false'
    """
    n = int(claim.params["n"] if n is None else n)
    rows = []
    for name, f in (candidates or _candidates()).items():
        ioi = properties.identity_of_indiscernibles(f, n)
        for orientation in ("as_defined", "closeness"):
            if orientation == "closeness" and not isinstance(f, str):
                continue
            ma = properties.maximal_agreement(f, n, orientation=orientation)
            rows.append({"metric": display(name), "n": n,
                         "identity of indiscernibles (Def. 4)": bool(ioi.holds),
                         "orientation": "as defined" if orientation == "as_defined"
                         else "higher is closer",
                         "maximal agreement (Def. 15)": bool(ma.holds),
                         "m(σ, σ) constant": ma.constant_on_diagonal, "mₘₐₓ": ma.bound,
                         "counterexample": evidence_text(ma.evidence)})
    rel = pd.DataFrame(rows)
    live = rel[rel["identity of indiscernibles (Def. 4)"]]
    broken = live[~live["maximal agreement (Def. 15)"]]
    built = {display(name) for name, f in (candidates or _candidates()).items() if not isinstance(f, str)}
    common = dict(comparison="claim", published="true for every metric")
    if live.empty:
        ev = claim.evidence(**common, reproduced="no candidate has the identity of indiscernibles",
                            holds=True, detail=f"exhaustive on $S_{{{n}}}$; the implication holds vacuously")
    else:
        ours = broken[broken["metric"].isin(built)]
        theirs = broken[~broken["metric"].isin(built)]

        def said(frame):
            return ", ".join(f"{r['metric']} ({r['orientation']})" for _, r in frame.iterrows())

        ev = claim.evidence(
            **common,
            reproduced=("metrics of the paper: " + (f"{said(theirs)} lack" if len(theirs) else "none lacks")
                        + " maximal agreement" + (f"; {BUILT_HERE}: {said(ours)} lacks it too" if len(ours) else "")),
            matched=len(live) - len(broken), total=len(live), unit="cases",
            failures=[f"{r['metric']} ({r['orientation']}" + (f"; {BUILT_HERE})" if r["metric"] in built else ")")
                      for _, r in pd.concat([theirs, ours]).iterrows()] or None,
            detail=f"identity of indiscernibles against maximal agreement on $S_{{{n}}}$ (exhaustive)")
    if len(broken):
        ev.findings.append(claim.finding("counterexample", evidence="\n".join(
            f"{r['metric']}{' (' + BUILT_HERE + ')' if r['metric'] in built else ''} on S_{n} "
            f"({r['orientation']}, exhaustive): identity of "
            f"indiscernibles holds, maximal agreement fails: {r['counterexample']}"
            for _, r in broken.drop_duplicates("metric", keep="last").iterrows())))
    ev.add_table("proposition_7_2", rel, float_format="{:.6g}",
                 title="Identity of indiscernibles against maximal agreement")
    return ev


def minus_dcg_only(claim: claims.Claim, **smoke) -> dict:
    """Mutant: a single candidate with both properties (−DCG)."""
    return {"candidates": {"dcg": lambda s, v: -metrics.dcg(s, v)}}


def check_converse_7_2(claim: claims.Claim, *, n: int | None = None, k: int | None = None,
                       metric="precision") -> claims.Evidence:
    """The proof of Proposition 7.2: precision@k has maximal agreement but not the identity of
    indiscernibles, so the converse of the proposition fails. Checked exhaustively on
    :math:`S_n` (``n`` and ``k`` default the claim's).

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> claim = checked_by(check_converse_7_2)
    >>> check_converse_7_2(claim, n=4, k=1).status, check_converse_7_2(claim, n=4, metric="dcg").status
    ('holds', 'false')
    """
    n = int(claim.params["n"] if n is None else n)
    k = int(claim.params["k"] if k is None else k)
    kk = k if isinstance(metric, str) and metrics.REGISTRY[metric].needs_k else None
    ma = properties.maximal_agreement(metric, n, k=kk)
    ioi = properties.identity_of_indiscernibles(metric, n, k=kk)
    holds = bool(ma.holds) and not bool(ioi.holds)
    name = display(metric) if isinstance(metric, str) else getattr(metric, "__name__", "m")
    ev = claim.evidence(
        comparison="claim", published="maximal agreement without the identity of indiscernibles",
        reproduced=(f"{name}: maximal agreement {'holds' if ma.holds else 'fails'}, identity of "
                    f"indiscernibles {'holds' if ioi.holds else 'fails'}"),
        holds=holds, failures=None if holds else [f"{name} on $S_{{{n}}}$"],
        detail=(f"exhaustive on $S_{{{n}}}$" + (f", k = {kk}" if kk else "")
                + ("" if ioi.evidence is None else f"; two rankings with one value: {evidence_text(ioi.evidence)}")))
    ev.add_table("proposition_7_2_converse", pd.DataFrame([{
        "metric": name, "n": n, "k": kk, "maximal agreement": bool(ma.holds),
        "identity of indiscernibles": bool(ioi.holds)}]),
        title="The proof's example: precision@k, maximal agreement without the identity of indiscernibles")
    return ev


def check_dcg_ndcg_scale(claim: claims.Claim, *, n: int | None = None) -> claims.Evidence:
    """Section 6.6 and Appendix C.3: DCG and nDCG are linearly equivalent, so they never disagree.

    True by definition: the normaliser IDCG depends on n only, so nDCG is DCG times a positive
    constant, and an increasing linear map keeps every comparison. The evidence shows the
    factor fitted exhaustively on :math:`S_n` (``n`` default the claim's) by
    :func:`rankbook.properties.linearly_equivalent`.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> check_dcg_ndcg_scale(checked_by(check_dcg_ndcg_scale), n=4).status
    'true by definition'
    """
    n = int(claim.params["n"] if n is None else n)
    eq = properties.linearly_equivalent("dcg", "ndcg", n)
    ev = claim.evidence(
        comparison="definition", published="linearly equivalent, never disagree",
        reproduced=(f"nDCG = DCG / {1 / eq.slope:.6f} on $S_{{{n}}}$ (the IDCG of n = {n}), intercept "
                    f"{abs(eq.intercept):.1e}" if eq.holds else f"no linear fit on $S_{{{n}}}$"),
        detail="the normaliser depends on n only, so the two order every pair of rankings alike")
    ev.say(f"DCG and nDCG linearly equivalent on $S_{{{n}}}$ (exhaustive): {'yes' if eq.holds else 'no'}"
           + (f"; nDCG = DCG / {1 / eq.slope:.6f} (IDCG of n = {n}), intercept {abs(eq.intercept):.1e}."
              if eq.holds else "."))
    return ev


def binary_dcg(perms, k: int) -> np.ndarray:
    """DCG with binary gains: 1 at each position whose item is among the ``k`` relevant items
    1..k of the identity, discounted by :math:`1/\\log_2(i + 1)`.

    Examples
    --------
    >>> binary_dcg([[1, 2, 3], [2, 1, 3], [3, 1, 2]], 2).round(4).tolist()
    [1.6309, 1.6309, 1.1309]
    """
    p = np.asarray(perms)
    disc = 1.0 / np.log2(np.arange(2, p.shape[-1] + 2))
    return ((p <= k) * disc).sum(axis=-1)


def check_binary_gains(claim: claims.Claim, *, n: int | None = None, k: int | None = None) -> claims.Evidence:
    """Appendix C.3: with the gain 1 for every relevant item, DCG and nDCG would lose the identity
    of indiscernibles.

    True by construction: two rankings that differ by a swap of two relevant items put the same
    gains at the same positions. The evidence shows it on :math:`S_n` (``n``, ``k`` default the
    claim's): the number of distinct binary DCG values against the number of permutations, and
    the swaps of two relevant items that leave it unchanged.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> check_binary_gains(checked_by(check_binary_gains), n=4, k=2).status
    'true by definition'
    """
    n = int(claim.params["n"] if n is None else n)
    k = int(claim.params["k"] if k is None else k)
    P = permutations.all_permutations(n)
    x = binary_dcg(P, k)
    swapped = P.copy()
    first, second = np.argsort(P > k, axis=1, kind="stable")[:, :2].T  # two positions of relevant items
    rows = np.arange(len(P))
    swapped[rows, first], swapped[rows, second] = P[rows, second], P[rows, first]
    same = int(np.sum(binary_dcg(swapped, k) == x))
    return claim.evidence(
        comparison="definition", published="binary gains lose the identity of indiscernibles",
        reproduced=(f"on $S_{{{n}}}$ with {k} relevant items: {len(np.unique(x))} distinct values for "
                    f"{len(P)} permutations; a swap of two relevant items leaves it unchanged on {same} "
                    f"of {len(P)}"),
        detail="the swap exchanges two gains of 1, so every position keeps its gain")


def identity_notions(n: int = 6, names: Sequence = ("kendall_tau", "mse", "precision", "dcg",
                                                    "reads_nu_only")) -> pd.DataFrame:
    """The three notions paper A calls identity of indiscernibles, evaluated exhaustively on
    :math:`S_n` for a few metrics: Definition 4 (each row injective), Definition 11 (zero only
    on the diagonal) and the proof of Proposition 7.1 (a maximum reached only on the diagonal,
    with the metric turned so that higher is closer).

    Examples
    --------
    >>> t = identity_notions(4, ["kendall_tau", "dcg"])
    >>> t.iloc[:, 2:].values.tolist()
    [[False, False, True], [True, False, True]]
    """
    rows = []
    for name in names:
        f = reads_nu_only if name == "reads_nu_only" else name
        d4 = properties.identity_of_indiscernibles(f, n).holds
        d11 = properties.is_distance(f, n, transform="none").identity
        ma = properties.maximal_agreement(f, n, orientation="closeness" if isinstance(f, str)
                                          else "as_defined")
        rows.append({"metric": display(name), "n": n, "Def. 4: m(σ, ·) injective": bool(d4),
                     "Def. 11: zero only on the diagonal": bool(d11),
                     "proof of Prop. 7.1: unique maximum on the diagonal": ma.strict is True})
    return pd.DataFrame(rows)


