"""Paper A, Propositions 6.1, 6.4 and 7.2: is DCG injective, is the difference of DCGs a
distance, and does the identity of indiscernibles give maximal agreement (page
``dcg_injectivity``).

* :func:`check_prop_6_1` (``A-P6.1``, errata ``A-E2``, ``A-E3``): an exhaustive search of
  :math:`S_n` for two permutations with exactly equal DCG, decided in exact arithmetic;
* :func:`check_prop_6_4` (``A-P6.4``, erratum ``A-E4``): the axioms of Definition 11 for
  :math:`|\\mathrm{DCG}(\\sigma) - \\mathrm{DCG}(\\nu)|`;
* :func:`check_prop_7_2` (``A-P7.2``, erratum ``A-E5``): identity of indiscernibles
  (Definition 4) against maximal agreement (Definition 15);
* :func:`check_converse_7_2` (``A-P7.2-converse``): the proof's example, precision@k, has
  maximal agreement without the identity of indiscernibles;
* :func:`identity_notions`: the three notions the paper calls identity of indiscernibles,
  side by side (used for erratum ``A-E6`` of Proposition 7.1).
"""

from __future__ import annotations

from fractions import Fraction
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


def check_prop_6_1(n_max: int = 9, n_min: int = 2, n_examples: int = 4, n_metric: int = 7, *,
                   reduction: str = "all pairs") -> claims.Evidence:
    """Proposition 6.1: DCG and nDCG satisfy the identity of indiscernibles (claim ``A-P6.1``).

    Every :math:`S_n`, ``n_min <= n <= n_max``, is searched for two distinct permutations with
    exactly equal one-argument DCG (:func:`collision_counts`). ``reduction="to the identity"``
    searches only pairs involving the identity, as the proof reduces to
    :math:`\\sigma_1 = \\mathrm{id}` (a wrong search, for the mutation test). The two-argument
    metrics ``dcg`` and ``ndcg`` are checked against Definition 4 at ``n_metric - 1`` and
    ``n_metric``. The claim holds when no collision exists for any ``n`` searched.

    Examples
    --------
    >>> check_prop_6_1(6, 5, 1, 4).status, check_prop_6_1(7, 7, 1, 4).status
    ('holds', 'false')
    """
    if reduction not in ("all pairs", "to the identity"):
        raise ValueError(f"reduction must be 'all pairs' or 'to the identity', got {reduction!r}")
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
    equiv = properties.linearly_equivalent("dcg", "ndcg", min(n_metric, 6))
    tables = {"summary": summary, "metric_checks": pd.DataFrame(checks)}
    values = {"n_first": n_first, "equiv": equiv, "equiv_n": min(n_metric, 6)}
    if n_first is None:
        return claims.Evidence(
            claim="A-P6.1", comparison="claim", published="true for every n",
            reproduced=f"no collision in $S_n$ for n = {n_min}..{n_max}", holds=True,
            detail=f"exhaustive search in exact arithmetic ({reduction})",
            tables=tables, values=values)
    pairs = found["pairs"][n_first]
    ex = properties.dcg_collisions(n_first)
    ex = ex[ex.verdict == "equal"].head(n_examples)
    tables["examples"] = pd.DataFrame({
        "pi_1": [str(p) for p in ex["first"]], "pi_2": [str(p) for p in ex["second"]],
        "DCG(pi_1)": ex["dcg_first"], "DCG(pi_2)": ex["dcg_second"],
        "certificate": ex["certificate"]})
    p1, p2 = (np.asarray(x) for x in pairs.iloc[0][["first", "second"]])
    tables["terms"], values["terms_text"] = _terms(p1, p2)
    values.update(p1=p1, p2=p2)
    first, last = summary[summary.n == n_first].iloc[0], summary.iloc[-1]
    count = int(first["pairs with equal DCG (proved)"])
    findings = [
        claims.Finding(id="A-E2", evidence=(
            f"exhaustive over S_n, n = {n_min}..{n_max}: DCG is injective for n < {n_first}\n"
            f"S_{n_first} has {count} pairs of distinct permutations with exactly equal DCG, "
            f"S_{int(last.n)} has {int(last['pairs with equal DCG (proved)'])}\n"
            f"e.g. {p1.tolist()} and {p2.tolist()}: {properties.dcg_exact_compare(p1, p2)[1]}")),
        claims.Finding(id="A-E3", evidence=(
            f"first collision: {p1.tolist()} and {p2.tolist()}, neither is the identity\n"
            f"DCG(id) = {float(properties.dcg_single(permutations.identity(n_first))):.4f} is "
            f"smaller than both ({float(properties.dcg_single(p1)):.4f})")),
    ]
    return claims.Evidence(
        claim="A-P6.1", comparison="claim", published="true for every n",
        reproduced=f"true for n ≤ {n_first - 1}; false from n = {n_first}", holds=False,
        failures=[f"every n ≥ {n_first}: distinct rankings share a DCG"],
        detail=(f"{count} pairs of distinct permutations of $S_{{{n_first}}}$ have exactly equal "
                "DCG (exhaustive, exact arithmetic)"),
        findings=findings, tables=tables, values=values)


def check_prop_6_4(n_distance: int = 6, n_max: int = 9, *,
                   score: Callable | None = None) -> claims.Evidence:
    """Proposition 6.4: :math:`|\\mathrm{DCG}(\\sigma) - \\mathrm{DCG}(\\nu)|` is a distance on
    :math:`S_n` (claim ``A-P6.4``).

    All axioms of Definition 11 are checked exhaustively for ``3 <= n <= n_distance`` (the
    signed difference beside it), and the identity axiom on the first collision of ``score``
    (default the one-argument DCG, searched exactly up to ``n_max``; an injected ``score`` is
    searched in floating point). One case per ``n``.

    Examples
    --------
    >>> check_prop_6_4(4, 7).status
    'false'
    """
    f = score or properties.dcg_single

    def absolute(s, v):
        return np.abs(f(s) - f(v))

    def signed(s, v):
        return f(s) - f(v)

    rows, cases = [], []
    for n in range(3, n_distance + 1):
        for name, g in (("|DCG(σ) − DCG(ν)|", absolute), ("DCG(σ) − DCG(ν)", signed)):
            r = properties.is_distance(g, n, transform="none")
            rows.append({"function": name, "n": n, "distance": r.holds,
                         "nonnegative": r.nonnegative, "identity": r.identity,
                         "symmetric": r.symmetric, "triangle": r.triangle,
                         "method": r.method_detail})
            if g is absolute:
                cases.append((n, bool(r.holds), "" if r.holds else evidence_text(r.evidence)))
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
        zero = float(absolute(pair[0], pair[1]))
        ok = not (abs(zero) <= 1e-9 and not np.array_equal(*pair))
        n = len(pair[0])
        rows.append({"function": "|DCG(σ) − DCG(ν)|", "n": n, "distance": ok, "nonnegative": None,
                     "identity": ok, "symmetric": None, "triangle": None,
                     "method": f"f(π₁, π₂) = {zero:.3g} for π₁ = {pair[0].tolist()}, "
                               f"π₂ = {pair[1].tolist()}"})
        cases.append((n, ok, f"f({pair[0].tolist()}, {pair[1].tolist()}) = {zero:.1g}"))
    ok = sum(c[1] for c in cases)
    bad = [c for c in cases if not c[1]]
    findings = []
    if bad:
        findings.append(claims.Finding(id="A-E4", evidence=(
            "; ".join(f"n = {c[0]}: {c[2]}" for c in bad)
            + f"\nthe axioms hold exhaustively for n = 3..{n_distance}"
            if all(c[1] for c in cases if c[0] <= n_distance) else
            "; ".join(f"n = {c[0]}: {c[2]}" for c in bad))))
    if not cases:  # no size checked (n_max below 3): nothing to compare, said on the page
        return claims.Evidence(
            claim="A-P6.4", comparison="none", published="true for every n",
            reproduced="no size from 3 up was checked with these parameters",
            detail="rerun with a larger largest n", tables={"distance": pd.DataFrame(rows)})
    return claims.Evidence(
        claim="A-P6.4", comparison="claim", published="true for every n",
        reproduced=(f"a distance for n = 3..{n_distance}" + (f", not at n = {bad[0][0]}" if bad else "")),
        matched=ok, total=len(cases), unit="cases",
        failures=[f"n = {c[0]}: it vanishes on distinct rankings" for c in bad] or None,
        detail=("all axioms exhaustively for small n, the identity axiom on the first collision"),
        findings=findings, tables={"distance": pd.DataFrame(rows)})


#: How a page names a metric this book built to test a statement (not one of the paper's).
BUILT_HERE = "a test metric built here, not in the paper"


def _candidates():
    return {"dcg": "dcg", "ndcg": "ndcg", "reads_nu_only": reads_nu_only}


def check_prop_7_2(n: int = 6, *, candidates: dict | None = None) -> claims.Evidence:
    """Proposition 7.2: the identity of indiscernibles (Definition 4) implies maximal
    agreement (Definition 15) (claim ``A-P7.2``).

    Each candidate metric (default DCG, nDCG and :func:`reads_nu_only`) is checked
    exhaustively on :math:`S_n` (``n <= 6``, where DCG is injective); registered metrics in
    both orientations (as defined, and turned so that higher is closer). A case is a candidate
    and orientation with the identity of indiscernibles; it holds when maximal agreement holds
    too.

    Examples
    --------
    >>> check_prop_7_2(4).status
    'false'
    """
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
    findings = []
    built = {display(name) for name, f in (candidates or _candidates()).items() if not isinstance(f, str)}
    if len(broken):
        findings.append(claims.Finding(id="A-E5", evidence="\n".join(
            f"{r['metric']}{' (' + BUILT_HERE + ')' if r['metric'] in built else ''} on S_{n} "
            f"({r['orientation']}, exhaustive): identity of "
            f"indiscernibles holds, maximal agreement fails: {r['counterexample']}"
            for _, r in broken.drop_duplicates("metric", keep="last").iterrows())))
    if live.empty:
        return claims.Evidence(
            claim="A-P7.2", comparison="claim", published="true for every metric",
            reproduced="no candidate has the identity of indiscernibles", holds=True,
            detail=f"exhaustive on $S_{{{n}}}$; the implication holds vacuously",
            tables={"relation": rel})
    built = {display(name) for name, f in (candidates or _candidates()).items() if not isinstance(f, str)}
    ours = broken[broken["metric"].isin(built)]
    theirs = broken[~broken["metric"].isin(built)]
    said = lambda rows: ", ".join(f"{r['metric']} ({r['orientation']})" for _, r in rows.iterrows())
    return claims.Evidence(
        claim="A-P7.2", comparison="claim", published="true for every metric",
        reproduced=("metrics of the paper: " + (f"{said(theirs)} lack" if len(theirs) else "none lacks")
                    + " maximal agreement"
                    + (f"; {BUILT_HERE}: {said(ours)} lacks it too" if len(ours) else "")),
        matched=len(live) - len(broken), total=len(live), unit="cases",
        failures=[f"{r['metric']} ({r['orientation']}" + (f"; {BUILT_HERE})" if r["metric"] in built else ")")
                  for _, r in pd.concat([theirs, ours]).iterrows()] or None,
        detail=f"identity of indiscernibles against maximal agreement on $S_{{{n}}}$ (exhaustive)",
        findings=findings, tables={"relation": rel})


def check_converse_7_2(n: int = 5, k: int = 2, *, metric="precision") -> claims.Evidence:
    """The proof of Proposition 7.2: precision@k has maximal agreement but not the identity of
    indiscernibles, so the converse of the proposition fails (claim ``A-P7.2-converse``).
    Checked exhaustively on :math:`S_n`.

    Examples
    --------
    >>> check_converse_7_2(4, 1).status, check_converse_7_2(4, metric="dcg").status
    ('holds', 'false')
    """
    kk = k if isinstance(metric, str) and metrics.REGISTRY[metric].needs_k else None
    ma = properties.maximal_agreement(metric, n, k=kk)
    ioi = properties.identity_of_indiscernibles(metric, n, k=kk)
    holds = bool(ma.holds) and not bool(ioi.holds)
    name = display(metric) if isinstance(metric, str) else getattr(metric, "__name__", "m")
    return claims.Evidence(
        claim="A-P7.2-converse", comparison="claim",
        published="maximal agreement without the identity of indiscernibles",
        reproduced=(f"{name}: maximal agreement {'holds' if ma.holds else 'fails'}, identity of "
                    f"indiscernibles {'holds' if ioi.holds else 'fails'}"),
        holds=holds, failures=None if holds else [f"{name} on $S_{{{n}}}$"],
        detail=(f"exhaustive on $S_{{{n}}}$" + (f", k = {kk}" if kk else "")
                + ("" if ioi.evidence is None else f"; two rankings with one value: {evidence_text(ioi.evidence)}")),
        tables={"converse": pd.DataFrame([{"metric": name, "n": n, "k": kk,
                                           "maximal agreement": bool(ma.holds),
                                           "identity of indiscernibles": bool(ioi.holds)}])})


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


CHECKS = {
    "A-P6.1": claims.Check(
        check_prop_6_1, smoke={"n_max": 7, "n_min": 5, "n_examples": 2, "n_metric": 5},
        mutants={"the proof's reduction: pairs with the identity only":
                 {"reduction": "to the identity"}}),
    "A-P6.4": claims.Check(
        check_prop_6_4, smoke={"n_distance": 4, "n_max": 7},
        mutants={"an injective score in place of DCG (base-(n+1) digits)":
                 {"score": lambda p: reads_nu_only(p, p)}}),
    "A-P7.2": claims.Check(
        check_prop_7_2, smoke={"n": 4},
        mutants={"a candidate with both properties only (−DCG)":
                 {"candidates": {"dcg": lambda s, v: -metrics.dcg(s, v)}}}),
    "A-P7.2-converse": claims.Check(
        check_converse_7_2, smoke={"n": 4, "k": 1},
        mutants={"DCG in place of precision (injective, no maximal agreement)":
                 {"metric": "dcg"}}),
}
