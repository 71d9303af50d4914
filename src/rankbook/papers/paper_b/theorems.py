"""Paper B, Theorem 1, its corollaries, Table I, Sections II-B, II-C and III, checked against
brute force: the logic of the page ``consensus_theorems``.

The sets of rankings checked (every small pair, seeded random sets, the user's own) are built
once per parameter set by :func:`cases` (cached), and each ``check_*`` function grades one
ledger claim from them: it receives the claim's ledger entry (its numbers in ``claim.params``,
its published data through ``claim.path(role)``, its errata through ``claim.finding(role)``).
The reading of a tie, the implementation and the statement's own formula are injectable, so the
mutation test of the ledger (``[claims.test]``, with the ``perturb`` functions below) can show
that each check fails when they are wrong.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np
import pandas as pd

from rankbook import aggregation_formats, consensus
from rankbook.ledger import claims

from rankbook.ledger.limits import within_time

from . import checks
from .common import EXAMPLE_1
from .grids import DEVIATION_NAMES

__all__ = [
    "cases", "check_theorem_1", "proof_entries", "check_feature_weights", "check_corollary_1",
    "check_corollary_2", "corollary_2_example", "check_table_i", "check_kernel", "check_inner_product",
    "check_properties", "check_footrule", "check_correlations",
]

#: The tie readings: the book's (what Eq. 16 computes) and the other one.
TIES = {"neither": "ties in neither order (Eq. 16)", "either": "ties in either order"}
_COLUMN = {"Theorem 1": "theorem_1", "Corollary 1": "corollary_1", "Corollary 2": "corollary_2"}


@lru_cache(maxsize=8)
def _cases(n_exhaustive, seeds, sets_per_seed, max_items, max_rankings, gamma, lam, deviation, yours, rtol):
    exhaustive = checks.exhaustive_cases(n_exhaustive)
    drawn = {s: checks.random_cases(s, sets_per_seed, max_items=max_items, max_rankings=max_rankings)
             for s in range(seeds)}
    frames = [checks.check_cases(exhaustive, gamma, lam, deviation=deviation, rtol=rtol)]
    frames += [checks.check_cases(c, gamma, lam, deviation=deviation, seed=s, rtol=rtol) for s, c in drawn.items()]
    if yours:
        frames.append(checks.check_cases(list(yours), gamma, lam, deviation=deviation, rtol=rtol))
    return exhaustive, drawn, pd.concat(frames, ignore_index=True)


def _yours(rankings_csv, resolve):
    if not rankings_csv:
        return ()
    groups = aggregation_formats.read_rankings_file(resolve(rankings_csv) if resolve else rankings_csv)
    return tuple((f"your rankings: {name}", tuple(named.values())) for name, named in groups.items()
                 if min(len(checks.positions(r)) for r in named.values()) <= 14)


def cases(*, rtol: float, n_exhaustive: int, seeds: int, sets_per_seed: int, max_items: int,
          max_rankings: int, gamma: float = 0.8, lam: float = 0.7, deviation: str = "std",
          rankings_csv: str = "", resolve=None) -> claims.Section:
    """The sets checked and, per set, whether each statement holds (:func:`checks.check_cases`,
    weighted values compared to the relative tolerance ``rtol`` of the claim that asks).

    ``values``: ``frame`` (one row per set), ``exhaustive``, ``drawn`` (per seed), ``yours``
    and ``sets`` (the sentence that describes them). Cached per parameter set."""
    yours = _yours(rankings_csv, resolve)
    exhaustive, drawn, frame = _cases(int(n_exhaustive), int(seeds), int(sets_per_seed), int(max_items),
                                      int(max_rankings), float(gamma), float(lam), deviation,
                                      tuple((f, tuple(map(_freeze, r))) for f, r in yours), float(rtol))
    n_random = sum(len(c) for c in drawn.values())
    out = claims.Section(values={"frame": frame, "exhaustive": exhaustive, "drawn": drawn, "yours": yours,
                          "sets": f"{len(exhaustive)} sets (all pairs over {n_exhaustive} items, all triples over 3) "
                                  f"and {n_random} random ones ({seeds} seeds)"
                                  + (f" and {len(yours)} of yours" if yours else "")})
    out.add_table("theorem_checks", frame, show=False)
    summary = checks.claim_counts(frame).rename(columns=lambda c: c.replace(" (either)", ", ties in either order"))
    out.add_table("theorem_summary", summary,
                  title=f"The sets of rankings checked, and how many of them each statement holds for "
                        f"(weights γ = {gamma:g}, λ = {lam:g}, spread d = {DEVIATION_NAMES[deviation]})")
    return out


def _freeze(r):
    return r if isinstance(r, str) else tuple(frozenset(g) if isinstance(g, (set, frozenset)) else g for g in r)


def _statement(claim: claims.Claim, name: str, reading: str, sets: dict, **fields) -> claims.Evidence:
    if reading not in TIES:
        raise ValueError(f"unknown tie reading {reading!r}; valid: {list(TIES)}")
    section = cases(rtol=claim.param("rtol"), **sets)
    frame = section.values["frame"]
    col = _COLUMN[name] + ("_either" if reading == "either" else "")
    other = _COLUMN[name] + ("" if reading == "either" else "_either")
    bad = frame[~frame[col]]
    what = fields.pop("what")
    fields.setdefault("reproduced", f"{what} equals the enumerated value on every set checked" if bad.empty
                      else f"{what} differs from the enumerated value on {claims.plural(len(bad), 'set')}")
    fields["detail"] = fields.pop("method") + "; " + section.values["sets"] + fields.pop("detail", "")
    ev = claim.evidence(
        comparison="claim", matched=int(frame[col].sum()), total=len(frame), unit="cases",
        published="every set of rankings", failures=[f"{r['family']}: {r['rankings']}" for r in bad.head(6).to_dict("records")],
        reading=TIES[reading], alternatives={TIES["either" if reading == "neither" else "neither"]: int(frame[other].sum()),
                                              **fields.pop("alternatives", {})},
        **fields)
    ev.values["cases"] = section
    return ev


def check_theorem_1(claim: claims.Claim, *, reading: str = "neither", **sets) -> claims.Evidence:
    """Theorem 1: Eq. (11) on the matrix of Eq. (10), every base ranking, plain and weighted,
    against enumeration on the sets of :func:`cases` (``sets``: its arguments); the finding
    ``proof`` (the proof's ends of a path exchanged). ``values["cases"]`` is the section of the
    sets checked."""
    ev = _statement(claim, "Theorem 1", reading, sets,
                    what="every $\\kappa_p$ of Eq. (11)", method="Eq. (10) entry by entry and its powers, against enumeration")
    entries = checks.proof_entry_counts(list(EXAMPLE_1))
    as_printed = bool((entries["entry"] == entries["begin with row item"]).all())
    swapped = bool((entries["entry"] == entries["begin with column item"]).all())
    if swapped and not as_printed:
        first = entries.loc[entries.entry.idxmax()]
        ev.findings.append(claim.finding("proof", evidence=(
            f"Example 1, {len(entries)} non-zero entries of L to L³: each equals the number of common subsequences "
            f"that begin with the column item and none equals the number that begin with the row item; e.g. entry "
            f"({first['row']}, {first['column']}) of L^{int(first['p']) - 1} is {first['entry']:g}: the common "
            f"subsequences of length {int(first['p'])} from {first['column']} to {first['row']} number "
            f"{int(first['begin with column item'])}, those from {first['row']} to {first['column']} "
            f"{int(first['begin with row item'])}")))
    ev.values["sets"] = len(ev.values["cases"].values["frame"])
    return ev


def proof_entries() -> claims.Section:
    """The entries of the powers of L for Example 1 beside the subsequences between the two
    items, in the proof's order and the other way round."""
    entries = checks.proof_entry_counts(list(EXAMPLE_1))
    out = claims.Section()
    out.add_table("theorem_1_proof_entries", entries.rename(columns={
        "entry": "entry of L^(p-1)", "begin with row item": "begin with the row item (as printed)",
        "begin with column item": "begin with the column item"}), collapse=True,
        title="Example 1: the entries of the powers of L beside the common subsequences between the two items")
    as_printed = bool((entries["entry"] == entries["begin with row item"]).all())
    swapped = bool((entries["entry"] == entries["begin with column item"]).all())
    out.say(f"As printed, the statement {'holds' if as_printed else 'fails'} for the example; with the two ends "
            f"exchanged it {'holds' if swapped else 'fails'}. The $j$-th item comes first in the base ranking, so a "
            "subsequence counted by entry $(i, j)$ starts with it.")
    return out


def printed_theta_factors(pos, gamma: float) -> np.ndarray:
    """Section IV-B1's feature weights of a single item, one per ranking:
    :math:`f_{\\mathbf{r}}(\\sigma) = |\\eta_k(\\sigma) - \\mu(\\sigma)| / N` (no ``gamma``)."""
    pos = np.asarray(pos, dtype=float)
    return np.abs(pos - pos.mean()) / len(pos)


def printed_path_factor(weight: float, n_rankings: int) -> float:
    """Section IV-B2's feature weight of a path, the same for every ranking: the product of
    ψ along it."""
    return weight


def root_theta_factors(pos, gamma: float) -> np.ndarray:
    """Feature weights that would make the identity hold: θ to the power 1/N for every ranking."""
    pos = np.asarray(pos, dtype=float)
    d = float(np.abs(pos - pos.mean()).mean())
    return np.full(len(pos), float(gamma) ** (d / len(pos)))


def root_path_factor(weight: float, n_rankings: int) -> float:
    """The path weight to the power 1/N (what would make Eq. 7 agree with Theorem 1)."""
    return weight ** (1.0 / n_rankings)


def check_feature_weights(claim: claims.Claim, *, rankings=EXAMPLE_1, lam: float = 0.7, gammas=None,
                          theta_factors=printed_theta_factors, path_factor=printed_path_factor) -> claims.Evidence:
    """The feature weights Sections IV-B1 and IV-B2 give Eq. (7).

    Case by case: for each common item and each γ of ``gammas`` (default the claim's), θ(σ) =
    γ^d (d of Eq. 13) against the product of ``theta_factors`` over the rankings; for each
    length p ≥ 2, Theorem 1's weighted κ_p against Eq. (7) with ``path_factor`` for every
    ranking; equal to the claim's relative tolerance ``rtol``. Findings ``theta`` and
    ``paths``."""
    gammas = claim.params["gammas"] if gammas is None else gammas
    rtol = claim.param("rtol")
    maps = checks._maps(list(rankings))
    N = len(maps)
    common = [x for x in maps[0] if all(x in m for m in maps)]
    theta_rows = []
    for g in gammas:
        for x in common:
            pos = np.array([m[x] for m in maps], dtype=float)
            theta = float(g) ** float(np.abs(pos - pos.mean()).mean())
            prod = float(np.prod(theta_factors(pos, g)))
            theta_rows.append({"item": str(x), "gamma": float(g), "positions": ", ".join(str(int(v)) for v in pos),
                               "theta = gamma^d": theta, "product of the f_r": prod,
                               "holds": bool(np.isclose(theta, prod, rtol=rtol, atol=0.0))})
    seqs = checks._subsequences(maps, "strict")
    path_rows = []
    for p in range(2, max((len(s) for s in seqs), default=0) + 1):
        w = [math.prod(checks._psi(maps, a, b, lam) for a, b in zip(s, s[1:])) for s in seqs if len(s) == p]
        t1, e7 = float(sum(w)), float(sum(path_factor(x, N) ** N for x in w))
        path_rows.append({"p": p, "Theorem 1": t1, "Eq. (7) with the printed f_r": e7,
                          "holds": bool(np.isclose(t1, e7, rtol=rtol, atol=0.0))})
    thetas = pd.DataFrame(theta_rows, columns=["item", "gamma", "positions", "theta = gamma^d", "product of the f_r",
                                               "holds"])
    paths = pd.DataFrame(path_rows, columns=["p", "Theorem 1", "Eq. (7) with the printed f_r", "holds"])
    ok = int(thetas.holds.sum()) + int(paths.holds.sum())
    total = len(thetas) + len(paths)
    ev = claim.evidence(
        comparison="claim", matched=ok, total=total, unit="cases",
        published="two identities, stated for every set of rankings",
        reproduced=f"Example 1: θ of {len(common)} items at γ = {', '.join(f'{g:g}' for g in gammas)}; "
                   f"κ_p for p = 2 to {len(paths) + 1} at λ = {lam:g}",
        failures=([f"θ(σ) as the product of the feature weights $f_{{\\mathbf{{r}}}}$ fails for {int((~thetas.holds).sum())} of {len(thetas)} "
                   "(item, γ) cases"] if not thetas.holds.all() else [])
                 + (["Eq. (7) with the printed path weights fails for p = "
                     + ", ".join(str(p) for p in paths.loc[~paths.holds, 'p'])] if not paths.holds.all() else []),
        detail="Eq. (7) multiplies each feature weight over the N rankings")
    ev.add_table("feature_weights_theta", thetas, float_format="{:.6g}", collapse=True,
                 title="Section IV-B1: θ = γ^d against the product over the rankings of the printed f_r")
    ev.add_table("theorem_1_eq7", paths, float_format="{:.6f}",
                 title=f"Example 1, λ = {lam:g}: the weighted κ_p of Theorem 1 and Eq. (7) with the feature weights "
                       "printed in Section IV-B2")
    if not thetas.holds.all():
        f = thetas[thetas.item == "f"] if (thetas.item == "f").any() else thetas
        ev.findings.append(claim.finding("theta", evidence="\n".join(
            f"item {r['item']} (positions {r['positions']}), γ = {r['gamma']:g}: product of the fᵣ = "
            f"{r['product of the f_r']:.4g}, γᵈ = {r['theta = gamma^d']:.4g}" for r in f.to_dict("records"))
            + "\nthe product does not change with γ"))
    if not paths.holds.all():
        ev.findings.append(claim.finding("paths", evidence=f"Example 1 (N = {N}), λ = {lam:g}: " + "; ".join(
            f"p = {int(r['p'])}: Theorem 1 {r['Theorem 1']:.4g}, Eq. (7) as printed "
            f"{r['Eq. (7) with the printed f_r']:.4g}" for r in paths.to_dict("records"))))
    return ev


def weights_that_hold(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the feature weights that would make both identities hold (θ and the path weight
    to the power 1/N for every ranking)."""
    return {"theta_factors": root_theta_factors, "path_factor": root_path_factor}


def check_corollary_1(claim: claims.Claim, *, reading: str = "neither", **sets) -> claims.Evidence:
    """Corollary 1: ℓ = max{p : κ_p > 0} against the longest enumerated subsequence."""
    return _statement(claim, "Corollary 1", reading, sets,
                      what="the length of the longest common subsequence",
                      method="the last positive $\\kappa_p$ of Eq. (11), against enumeration")


def check_corollary_2(claim: claims.Claim, *, reading: str = "neither", **sets) -> claims.Evidence:
    """Corollary 2: κ = κ_1 + zᵀ(I − L)⁻¹z − n against the enumerated total."""
    return _statement(claim, "Corollary 2", reading, sets, what="$\\kappa$ of Corollary 2",
                      method="the triangular solve, against enumeration",
                      detail="; with and without weights")


def corollary_2_example() -> claims.Section:
    """Corollary 2 on Example 1 with each ranking building the matrix."""
    rows = []
    for b, r in enumerate(EXAMPLE_1):
        A = checks.theorem_1_matrix(list(EXAMPLE_1), b).to_numpy()
        n = A.shape[0]
        rows.append({"base ranking": f"r{b + 1} = {r}", "n": n, "κ_1 = tr(A)": float(np.trace(A)),
                     "z^T (I - L)^-1 z": float(np.linalg.solve(np.eye(n) - np.tril(A, -1), np.ones(n)).sum()),
                     "κ (Corollary 2)": checks.corollary_2_kappa(A)})
    out = claims.Section()
    out.add_table("corollary_2_example", pd.DataFrame(rows), float_format="{:g}",
                  title="Example 1: Corollary 2 with each ranking building the matrix")
    return out


def read_table_i(path) -> pd.DataFrame:
    """The marks of Table I as transcribed in the file ``path`` (columns index, full, partial,
    weighted, ties; "x" for a mark): one row per index, a boolean per kind of ranking."""
    df = pd.read_csv(path, comment="#", dtype=str, keep_default_na=False)
    if list(df.columns) != ["index", "full", "partial", "weighted", "ties"]:
        raise ValueError(f"Table I marks: the header must be index,full,partial,weighted,ties, found {list(df.columns)}")
    bad = set(df.iloc[:, 1:].to_numpy().ravel()) - {"x", ""}
    if bad:
        raise ValueError(f"Table I marks: a cell is 'x' or empty, found {sorted(bad)}")
    return df.set_index("index").eq("x")


def check_table_i(claim: claims.Claim, *, marks=None, swap_n: int | None = None, **sets) -> claims.Evidence:
    """Each printed mark of the rows κ_p and κ (read from the claim's data ``marks``) against
    what the measure handles, on the sets of :func:`cases`; the other reading of "weighted" is
    tested by a swap at the top against one at the bottom of ``swap_n`` items (the claim's
    ``swap_n``, ``swap_weights`` and ``topk_p``). Findings ``weighted`` (the top-heavy reading)
    and ``ties``."""
    marks = read_table_i(claim.path("marks")) if marks is None else marks
    swap_n = int(claim.params["swap_n"] if swap_n is None else swap_n)
    topk_p = float(claim.params["topk_p"])
    rtol = claim.param("rtol")
    frame = cases(rtol=rtol, **sets).values["frame"]
    deviation = sets.get("deviation", "std")
    weights = claim.params["swap_weights"]
    swap = checks.top_bottom_swap(swap_n, weights, weights, deviation=deviation, zeta=swap_n + 1, p=topk_p)
    cells = checks.table_i_cells(frame, swap, rtol=rtol)
    cells["printed"] = [bool(marks.loc[r["index"], r["column"]]) for r in cells.to_dict("records")]
    cells["agrees"] = cells.printed == cells.holds
    cells["agrees under the other reading"] = cells.printed == cells["holds under the other reading"]
    other = lambda col: int(cells.loc[cells.column == col, "agrees under the other reading"].sum()
                            + cells.loc[cells.column != col, "agrees"].sum())
    ev = claim.evidence(
        comparison="claim", matched=int(cells.agrees.sum()), total=len(cells), unit="cells",
        published=f"{int(cells.printed.sum())} marks in {len(cells)} cells, as transcribed from the table",
        reproduced=f"{int(cells.holds.sum())} marks in {len(cells)} cells",
        failures=[f"{r['index']}, {r['column']}: printed {'a mark' if r['printed'] else 'no mark'}"
                  for r in cells[~cells.agrees].to_dict("records")],
        reading="weighted: carries the weights of Section IV-B; " + TIES["neither"],
        alternatives={"weighted: the top counts more": other("weighted"), TIES["either"]: other("ties")},
        detail="each mark recomputed by enumeration on each kind of set, and a swap at the top against one at "
               "the bottom; the other rows of Table I, other authors' indices, are not checked")
    ev.add_table("table_i_cells", cells.drop(columns=["agrees under the other reading"]),
                 title="Paper B, Table I, the marks of κ_p and κ, checked")
    ev.add_table("table_i_top_bottom", swap[["gamma", "lam", "kappa top", "kappa bottom", "top-k kappa_1 top",
                                             "top-k kappa_1 bottom"]].rename(columns={
        "lam": "λ", "gamma": "γ", "kappa top": "κ, swap at the top", "kappa bottom": "κ, swap at the bottom",
        "top-k kappa_1 top": "top-k κ_1, swap at the top", "top-k kappa_1 bottom": "top-k κ_1, swap at the bottom"}),
        float_format="{:.4f}", collapse=True,
        title=f"{swap_n} items: κ and the top-k κ_1 of Section IV-D4 (cut-off {swap_n + 1}, p = {topk_p:g}) with the "
              "first two or the last two items swapped")
    weighted = cells[cells.column == "weighted"]
    if not weighted["holds under the other reading"].all():
        ev.findings.append(claim.finding(
            "weighted", evidence="\n".join(f"{r['index']}: {r['evidence']}" for r in weighted.to_dict("records"))
            + "\n" + "; ".join(f"γ = {r['gamma']:g}, λ = {r['lam']:g}: κ {r['kappa top']:.4f} (top swap) and "
                               f"{r['kappa bottom']:.4f} (bottom swap)" for r in swap.head(4).to_dict("records")),
            readings=["weighted: the measure carries weights", "weighted: items near the top count more"],
            under={"weighted: the measure carries weights": "the mark holds",
                   "weighted: items near the top count more": "the mark fails for κ, and for κ_p beyond p = 1"}))
    tied = frame[frame.ties]
    differ = int((tied.kappa_either != tied.kappa).sum())
    if differ:
        example = tied[tied.kappa_either != tied.kappa].iloc[0]
        ev.findings.append(claim.finding(
            "ties", evidence=(f"{len(tied)} sets with ties checked: the theorem's count equals the enumeration with "
                              f"ties in neither order on {int(tied.theorem_1.sum())}, and differs from the "
                              f"enumeration with ties in either order on {differ}; e.g. {example['rankings']}: "
                              f"{example['kappa']:g} against {example['kappa_either']:g}"),
            readings=[TIES["neither"], TIES["either"]],
            under={TIES["neither"]: "the theorem holds", TIES["either"]: f"it fails on {differ} sets"}))
    return ev


def mark_removed(claim: claims.Claim, **smoke) -> dict:
    """Mutant: Table I as if it printed no mark for κ under "ties"."""
    marks = read_table_i(claim.path("marks"))
    return {"marks": marks.assign(ties=marks.ties & (marks.index != "κ"))}


def _kappa_pair(a, b, gamma=1.0, lam=1.0, deviation="std"):
    return float(consensus.kappa([a, b], gamma, lam, deviation=deviation))


def _negated(a, b, gamma=1.0, lam=1.0, deviation="std"):
    return -_kappa_pair(a, b, gamma, lam, deviation)


def negated_measure(claim: claims.Claim, **smoke) -> dict:
    """Mutant: a measure that is no kernel (minus κ)."""
    return {"measure": _negated}


def check_kernel(claim: claims.Claim, *, up_to: int | None = None, weights=((1.0, 1.0),), deviation: str = "std",
                 measure=_kappa_pair) -> claims.Evidence:
    """Section II-C: the matrix of ``measure`` (κ of two rankings) over every full and every
    partial ranking of the claim's ``min_items`` to ``max_items`` items (at most ``up_to``) is
    positive semi-definite: no eigenvalue below ``-tolerance`` times the largest. The claim
    covers the plain counts; the weighted matrices (other ``weights``) are shown beside it."""
    lo, hi = int(claim.params["min_items"]), int(claim.params["max_items"])
    hi = max(lo, min(hi, int(up_to))) if up_to is not None else hi
    tol = float(claim.param("tolerance"))
    rows = []
    for n in range(lo, hi + 1):
        items = [chr(ord("a") + i) for i in range(n)]
        pools = {"full": [list(p) for p in itertools.permutations(items)],
                 "partial": [list(p) for k in range(1, n + 1) for p in itertools.permutations(items, k)]}
        for family, pool in pools.items():
            for g, lm in weights:
                G = np.zeros((len(pool), len(pool)))
                for i in range(len(pool)):
                    for j in range(i, len(pool)):
                        G[i, j] = G[j, i] = measure(pool[i], pool[j], g, lm, deviation)
                eig = np.linalg.eigvalsh(G)
                rows.append({"items": n, "family": family, "rankings": len(pool), "γ": float(g), "λ": float(lm),
                             "smallest eigenvalue": float(eig[0]),
                             "positive semi-definite": bool(eig[0] >= -tol * max(1.0, abs(float(eig[-1]))))})
    table = pd.DataFrame(rows)
    plain = table[(table["γ"] == 1.0) & (table["λ"] == 1.0)]
    weighted = table[(table["γ"] != 1.0) | (table["λ"] != 1.0)]
    ev = claim.evidence(
        comparison="claim", matched=int(plain["positive semi-definite"].sum()), total=len(plain),
        unit="matrices", published="two rankings, unweighted",
        reproduced=(f"smallest eigenvalue {plain['smallest eigenvalue'].min():.3g}: "
                    + ("every matrix positive semi-definite" if plain["positive semi-definite"].all() else
                       f"{int((~plain['positive semi-definite']).sum())} matrices are not positive semi-definite")),
        failures=[f"{r['family']} rankings of {r['items']} items: smallest eigenvalue {r['smallest eigenvalue']:.3g}"
                  for r in plain[~plain["positive semi-definite"]].to_dict("records")],
        detail=("the matrix of κ over every full and every partial ranking of "
                + " and ".join(str(n) for n in sorted(set(plain["items"]))) + " items"
                + ((f"; with weights, which the claim does not cover, {'every' if weighted['positive semi-definite'].all() else 'not every'} "
                    "matrix is positive semi-definite too") if len(weighted) else "")))
    ev.add_table("section_ii_c_kernel", table, float_format="{:.6g}",
                 title="Paper B, Section II-C: the matrix of κ over all full or all partial rankings of a few items")
    return ev


def check_inner_product(claim: claims.Claim, *, rankings=EXAMPLE_1) -> claims.Evidence:
    """Eq. (5): κ as the sum over the features (every subsequence of some ranking) of the
    product of their 0/1 indicators over the rankings. True by definition: a product of 0/1
    indicators is 1 exactly for the subsequences every ranking holds, so the sum counts
    the common subsequences, which is Eq. (1). The table shows both sides on ``rankings``."""
    R = [list(r) for r in rankings]
    features = set()
    for r in R:
        features |= {tuple(s) for s in checks.brute_force_subsequences([r])}
    own = [{tuple(s) for s in checks.brute_force_subsequences([r])} for r in R]
    products = [math.prod(int(y in mine) for mine in own) for y in features]
    table = pd.DataFrame([{"features (subsequences of some ranking)": len(features),
                           "sum of the products of the indicators (Eq. 5)": int(sum(products)),
                           "κ (Eq. 1, rankbook.consensus)": consensus.kappa(R)}])
    ev = claim.evidence(
        comparison="definition", published="Eq. (5) rewrites Eq. (1)",
        reproduced=f"on Example 1: {int(sum(products))} of {len(features)} features are in every ranking, "
                   f"κ = {consensus.kappa(R):g}",
        detail="a product of 0/1 indicators is 1 exactly for a subsequence every ranking holds, so the sum counts "
               "the common subsequences")
    ev.add_table("section_ii_c_inner_product", table, float_format="{:g}",
                 title="Paper B, Eq. (5) on Example 1: the feature vectors' product summed, beside κ")
    return ev


def check_properties(claim: claims.Claim, *, single=checks._two_to_the, bound=checks._bound, max_n: int | None = None,
                     **sets) -> claims.Evidence:
    """The three properties of Section II-B on the sets of :func:`cases` (``single`` and
    ``bound`` are the statement's formulas, injectable; one ranking of up to the claim's
    ``max_n`` items)."""
    max_n = int(claim.params["max_n"] if max_n is None else max_n)
    section = cases(rtol=claim.param("rtol"), **sets)
    frame = section.values["frame"]
    pool = ([c for c in section.values["exhaustive"] if len(c[1]) > 2]
            + [c for cs in section.values["drawn"].values() for c in cs] + list(section.values["yours"]))
    eq3 = checks.eq3_cases(pool)
    props = checks.section_ii_b_properties(frame, eq3, max_n, single=single, bound=bound)
    ev = claim.evidence(
        comparison="claim", matched=int(props.holds.sum()), total=len(props), unit="statements",
        published=f"{len(props)} statements",
        reproduced=("hold: " + (", ".join(str(p) for p, ok in zip(props.property, props.holds) if ok) or "none")
                    + "; fail: " + (", ".join(str(p) for p, ok in zip(props.property, props.holds) if not ok) or "none")),
        failures=[str(p) for p, ok in zip(props.property, props.holds) if not ok],
        detail="by brute force against rankbook.consensus: " + "; ".join(props.checked))
    ev.add_table("section_ii_b_eq3", eq3, show=False)
    ev.add_table("section_ii_b_properties", props, markdown=["property"],
                 title="Paper B, Section II-B: the properties of κ, checked")
    return ev


def wrong_single(claim: claims.Claim, **smoke) -> dict:
    """Mutant: a wrong count for one ranking (2 to the n)."""
    return {"single": lambda n: 2 ** n}


def tight_bound(claim: claims.Claim, **smoke) -> dict:
    """Mutant: a bound for two rankings one too tight."""
    return {"bound": lambda m, n: 2 ** min(m, n) - 2}


def printed_footrule_divisor(n: int) -> int:
    """The divisor Section III prints for the footrule distance: :math:`n(n^2 - 1)`."""
    return n * (n * n - 1)


def largest_footrule_divisor(n: int) -> int:
    """The largest footrule over two full rankings of ``n`` items, ``floor(n² / 2)``
    (Diaconis and Graham): the divisor that makes the footrule run from 0 to 1."""
    return n * n // 2


def check_footrule(claim: claims.Claim, *, n_values=None, divisor=printed_footrule_divisor) -> claims.Evidence:
    """Section III's footrule distance d_ρ, the sum of |η_i − η_j| over ``divisor(n)``, against
    the measure it names, the Spearman footrule.

    Two cases per n (the claim's ``n_min`` to ``n_max``, every full ranking of n items against
    the identity: the footrule is right-invariant, so that is every pair): d_ρ is a constant
    multiple of the footrule, zero exactly for equal rankings (an L1 distance, as the text says);
    and d_ρ is the footrule on one of its usual scales, raw or over its largest value ⌊n²/2⌋
    (0 to 1, like the Kendall distance printed beside it), to the claim's ``tolerance``.
    Finding ``divisor`` where the scale is none of them."""
    if n_values is None:
        n_values = range(int(claim.params["n_min"]), int(claim.params["n_max"]) + 1)
    tol = float(claim.param("tolerance"))
    rows = []
    for n in n_values:
        ident = np.arange(n)
        foot = np.array([np.abs(np.array(p) - ident).sum() for p in itertools.permutations(range(n))], dtype=float)
        d = foot / divisor(n)
        largest = int(foot.max())
        same = foot == 0
        l1 = bool(np.all((d == 0) == same) and np.allclose(d[~same] / foot[~same], d[~same][0] / foot[~same][0],
                                                               rtol=0.0, atol=tol)) if (~same).any() else True
        scales = {"raw": foot, "over ⌊n²/2⌋": foot / largest}
        on = [k for k, v in scales.items() if np.max(np.abs(d - v)) <= tol]
        rows.append({"n": n, "largest footrule": largest, "printed divisor": divisor(n), "largest d_ρ": float(d.max()),
                     "an L1 distance (multiple of the footrule)": l1,
                     "on a footrule scale": ", ".join(on) or "none"})
    table = pd.DataFrame(rows)
    scaled = table["on a footrule scale"] != "none"
    l1 = table["an L1 distance (multiple of the footrule)"]
    ev = claim.evidence(
        comparison="exact", matched=int(l1.sum() + scaled.sum()), total=2 * len(table), unit="cases",
        published="$d_\\rho$ = the footrule over $n(n^2 - 1)$, named the Spearman footrule distance",
        reproduced=(("a multiple of the footrule for every n" if l1.all() else "not a multiple of the footrule for n = "
                     + ", ".join(str(n) for n in table.n[~l1]))
                    + "; on the footrule's own scale " + ("for every n" if scaled.all() else "for no n" if not scaled.any()
                                                          else "for n = " + ", ".join(str(n) for n in table.n[scaled]))
                    + ": largest $d_\\rho$ " + ", ".join(f"{x:.4g}" for x in table["largest d_ρ"])
                    + " for n = " + ", ".join(str(n) for n in table.n)),
        detail="the largest footrule of n items is ⌊n²/2⌋, so the footrule over it runs from 0 to 1 like $d_\\tau$; "
               "$n(n^2 - 1)$ is the divisor of Spearman's ρ without its 6")
    ev.add_table("section_iii_footrule", table, float_format="{:.4g}",
                 title="Section III: the footrule distance with the printed divisor, against the footrule's scales")
    if not scaled.all():
        ev.findings.append(claim.finding("divisor", evidence="\n".join(
            f"n = {r['n']}: largest footrule {r['largest footrule']} = ⌊n²/2⌋, divided by n(n² − 1) = "
            f"{r['printed divisor']} gives {r['largest d_ρ']:.4g}" for r in table[~scaled].to_dict("records"))))
    return ev


def normalising_divisor(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the divisor that puts the footrule on its 0-to-1 scale."""
    return {"divisor": largest_footrule_divisor}


def printed_rho(eta_i, eta_j) -> float:
    """Spearman's ρ as Section III prints it: 1 − 6 Σ (η_i − η_j)² / (n(n² − 1))."""
    n = len(eta_i)
    return 1 - 6 * float(((np.asarray(eta_i) - np.asarray(eta_j)) ** 2).sum()) / (n * (n * n - 1))


def printed_tau(r_i, r_j) -> float:
    """Kendall's τ as Section III prints it, from the common 2-long subsequences of the
    rankings and of the reversed first one, counted by :func:`rankbook.consensus.kappa_p`."""
    n = len(r_i)
    s2 = lambda a, b: float(consensus.kappa_p([a, b])[1]) if len(consensus.kappa_p([a, b])) > 1 else 0.0
    return (s2(r_i, r_j) - s2(r_i[::-1], r_j)) / math.comb(n, 2)


def check_correlations(claim: claims.Claim, *, n_values=None, tau=printed_tau, rho=printed_rho) -> claims.Evidence:
    """τ, d_τ = discordant pairs / C(n, 2) and ρ as Section III prints them, against scipy's
    ``kendalltau`` and ``spearmanr`` on every full ranking of n items (the claim's ``n_min`` to
    ``n_max``) against the identity (both are right-invariant, so that covers every pair), equal
    to the claim's ``tolerance``."""
    from scipy import stats

    if n_values is None:
        n_values = range(int(claim.params["n_min"]), int(claim.params["n_max"]) + 1)
    n_values = list(n_values)
    tol = float(claim.param("tolerance"))
    same = lambda a, b: abs(float(a) - float(b)) <= tol
    rows = []
    for n in n_values:
        items = [chr(ord("a") + i) for i in range(n)]
        bad = {"τ": 0, "d_τ": 0, "ρ": 0}
        perms = list(itertools.permutations(items))
        for p in perms:
            eta = [p.index(x) + 1 for x in items]
            t_ref = float(stats.kendalltau(range(1, n + 1), eta)[0])
            r_ref = float(stats.spearmanr(range(1, n + 1), eta)[0])
            t = tau(items, list(p))
            bad["τ"] += not same(t, t_ref)
            bad["d_τ"] += not same((1 - t) / 2, (1 - t_ref) / 2)
            bad["ρ"] += not same(rho(list(range(1, n + 1)), eta), r_ref)
        rows += [{"n": n, "index": k, "rankings": len(perms), "agree with scipy": len(perms) - v} for k, v in bad.items()]
    table = pd.DataFrame(rows)
    table["holds"] = table["agree with scipy"] == table["rankings"]
    ev = claim.evidence(
        comparison="claim", matched=int(table.holds.sum()), total=len(table), unit="cases",
        published="three formulas",
        reproduced=("τ, $d_\\tau$ and ρ equal scipy's" if table.holds.all() else
                    "differ from scipy's: " + ", ".join(sorted(set(table.loc[~table.holds, "index"]))))
                   + f" on every full ranking of n = {min(n_values)} to {max(n_values)} items",
        failures=[f"{r['index']}, n = {r['n']}: {r['rankings'] - r['agree with scipy']} of {r['rankings']} rankings differ"
                  for r in table[~table.holds].to_dict("records")],
        detail="τ from the common 2-long subsequences counted by the consensus measure; ρ from the positions")
    ev.add_table("section_iii_correlations", table,
                 title="Section III: Kendall's τ, the Kendall distance and Spearman's ρ as printed, against scipy")
    return ev


def wrong_rho(claim: claims.Claim, **smoke) -> dict:
    """Mutant: ρ with a wrong constant (4 for 6)."""
    return {"rho": lambda a, b: printed_rho(a, b) / 1.5 + 1 / 3}


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
def limits(values: dict, root, timeout: float) -> None:
    """seeds x sets_per_seed random sets, each checked by brute force over the subsets of up to
    max_items items, fit in a cell's time limit."""
    sets = values["seeds"] * values["sets_per_seed"]
    # measured (tests/extremes.py in process): about 0.12 s per set at max_items = 12 and
    # max_rankings = 20, 0.035 s at max_items = 6; the brute force doubles with each item
    per_set = 0.05 + 3e-5 * 2 ** values["max_items"]
    within_time(2 * sets * per_set, timeout,
                 f"seeds x sets_per_seed = {values['seeds']} x {values['sets_per_seed']} random "
                 f"sets of up to max_items = {values['max_items']} items",
                 "lower seeds, sets_per_seed or max_items")
