"""The rankDCG poster of Katerenchuk and Rosenberg (``notebooks/rankdcg_table.ipynb``).

Checks of the poster's claims (ledger ``data/claims/rankdcg.toml``; each check receives its
claim's entry: the poster's tables by data role, every number from ``params``, errata by
role): the Test Results table
graded against the formulas the poster prints, with the reading that reproduces it side by side
(:func:`check_test_table`); the worked example of the relative relevance and reverse ranks
(:func:`check_example`); the abstract's point about lower bounds (:func:`check_lowest_scores`);
and the Real Data Results table, whose inputs are not distributed, so that only its values'
ranges can be checked (:func:`check_real_data`).
The measures themselves live in :mod:`rankbook.rankdcg`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankbook import rankdcg as RD
from rankbook.ledger import claims
from rankbook.ledger.claims import Evidence

__all__ = ["read_test_table", "printed_table", "check_test_table", "tie_rules_table",
           "other_readings_table", "other_measures_table", "check_example", "check_lowest_scores",
           "check_real_data", "moved_table", "top_counted", "raw_values", "printed_normalisation",
           "clipped_ndcg"]

COLUMNS = list(RD.POSTER_COLUMNS)

#: The columns as the poster names them.
COLUMN_NAMES = {"kendall_tau": "Kendall τ", "avep": "AveP", "ndcg": "nDCG", "rankdcg": "rankDCG"}

#: The columns of :func:`rankbook.rankdcg.reading_comparison`, in the reader's words.
READING_NAMES = {"rankdcg_as_printed": "rankDCG, printed normalisation",
                 "rankdcg_as_ordering": "rankDCG, lists as orderings",
                 "tau_a": "τ_a, the printed formula",
                 "ndcg_aligned": "nDCG, reference ranked by the scores",
                 "ap_binary": "AP, relevant = above the lowest level"}

#: The columns of :func:`rankbook.rankdcg.other_measures`, in the reader's words.
MEASURE_NAMES = {"ndcg_linear": "nDCG, linear gain", "ndcg_exponential": "nDCG, exponential gain",
                 "ndpm": "NDPM", "fcp": "FCP", "rbo_ext": "RBO_ext"}

#: What each reading of the test table computes, in the reader's words.
READINGS = {
    "printed": "the formulas as printed (τ_a, AP as the sum of P(k)ΔR(k), nDCG = DCG/IDCG, the printed "
               "rankDCG normalisation), lists as aligned scores",
    "reproducing": "the reading that reproduces the table (τ_b, the positional AveP, the list's DCG "
                   "over the reference's, the corrected rankDCG normalisation, values cut)",
}


def read_test_table(path):
    """The poster's Test Results table (the file ``path``, the ledger's data ``table``), the
    reference list (row 1, the perfect hypothesis) and the six hypothesis lists."""
    published = pd.read_csv(path, comment="#")
    hypotheses = [[int(v) for v in s.split()] for s in published["hypothesis"]]
    return published, hypotheses[0], hypotheses


def printed_table(reference, hypotheses, ties: str = "pessimistic") -> pd.DataFrame:
    """The four columns as the poster's printed formulas give them (lists as aligned scores).

    Examples
    --------
    >>> printed_table([3, 2, 1], [[3, 2, 1]]).round(3).to_dict("records")
    [{'kendall_tau': 1.0, 'avep': 1.0, 'ndcg': 1.0, 'rankdcg': 0.0}]
    """
    alt = RD.reading_comparison(reference, hypotheses)
    as_printed = []
    for hyp in hypotheses:
        value, lo, hi = RD.rankdcg_components(reference, hyp, ties)
        as_printed.append((hi - value) / (hi - lo))
    return pd.DataFrame({"kendall_tau": alt["tau_a"], "avep": alt["ap_binary"], "ndcg": alt["ndcg_aligned"],
                         "rankdcg": as_printed})


def _fmt(values) -> str:
    return "[" + ", ".join(f"{v:.4f}" for v in values) + "]"


def _matches(values: pd.DataFrame, published: pd.DataFrame, decimals: int, tolerance: float,
             how: str = "cut") -> np.ndarray:
    shown = values.map(lambda v: RD.truncate(v, decimals)) if how == "cut" else values.round(decimals)
    return np.isclose(shown[COLUMNS].to_numpy(float), published[COLUMNS].to_numpy(float), atol=tolerance, rtol=0)


def check_test_table(claim: claims.Claim, *, published=None, reading: str = "printed",
                     ties: str = "pessimistic", decimals: int | None = None) -> Evidence:
    """The values of the Test Results table (the claim's data ``table``), graded under the
    formulas the poster prints, with the reading that reproduces the table side by side.

    Each value is cut to ``decimals`` places (default ``claim.params["decimals"]``) and must
    equal the printed one within ``claim.params["tolerance"]``. ``published`` injects the
    printed values (a DataFrame shaped like the data file); ``reading`` is ``"printed"`` (the
    verdict's) or ``"reproducing"``. The errata found on the way are the evidence of the
    poster's formula slips (printed normalisation, τ_a, AP, nDCG), of the unstated reading of
    the lists, of the truncation and of the missing tie rule."""
    if reading not in READINGS:
        raise ValueError(f"unknown reading {reading!r}; valid: {list(READINGS)}")
    decimals = claim.params["decimals"] if decimals is None else decimals
    tolerance = claim.params["tolerance"]
    file_table, reference, hypotheses = read_test_table(claim.path("table"))
    pub = file_table if published is None else published
    ours = RD.poster_table(reference, hypotheses, ties=ties)
    printed = printed_table(reference, hypotheses, ties)
    counts = {"printed": _matches(printed, pub, decimals, tolerance),
              "reproducing": _matches(ours, pub, decimals, tolerance)}
    rounded = _matches(ours, pub, decimals, tolerance, "round")
    match = counts[reading]
    total = match.size
    other = "reproducing" if reading == "printed" else "printed"
    alternatives = {READINGS[other]: int(counts[other].sum()),
                    "the reading that reproduces the table, rounded instead of cut": int(rounded.sum())}
    findings = _test_table_findings(claim, pub, reference, hypotheses, ours, printed, counts, rounded,
                                    ties, decimals, tolerance) if reading == "printed" else []
    lists = pub["list"].tolist()
    row_names = [f"list {a}: {h}" for a, h in zip(pub["list"], pub["hypothesis"])]
    side = pd.DataFrame({"list": pub["list"], "hypothesis": pub["hypothesis"]})
    for col in COLUMNS:
        side[f"{col} (poster)"] = pub[col]
        side[f"{col} (printed formulas)"] = printed[col]
        side[f"{col} (reproducing reading)"] = ours[col]
    side["all match (reproducing reading)"] = counts["reproducing"].all(axis=1)
    summary = (f"Cut to {decimals} places, **{int(counts['printed'].sum())} of {total}** values follow from "
               f"the formulas as printed and {int(counts['reproducing'].sum())} from the reading that "
               f"reproduces the table; rounded instead of cut, that reading gives {int(rounded.sum())}.")
    n_printed, n_repro = int(counts["printed"].sum()), int(counts["reproducing"].sum())
    return claim.evidence(
        comparison="exact", published=f"{total} values, cut to {decimals} places",
        reproduced=(f"the printed formulas: {n_printed} of {total} equal; the reading that "
                    f"reproduces the table: {n_repro} of {total}"),
        matched=int(match.sum()), total=total, unit="values", reading=READINGS[reading],
        alternatives=alternatives,
        detail=("the status counts the formulas the poster prints, the only reading its reader has; the "
                "reproducing reading was found by fitting this table, so it stands beside the status and "
                "each of its departures from the print is an erratum. Columns that differ under the "
                "printed formulas: "
                + (", ".join(COLUMN_NAMES[col] for j, col in enumerate(COLUMNS) if not counts["printed"][:, j].all())
                   or "none") + f"; rankDCG with the tie rule '{ties}'"),
        findings=findings,
        tables={"side": side, "ours": ours[COLUMNS].set_axis(row_names).rename(columns=COLUMN_NAMES),
                "published": pub[COLUMNS].set_axis(row_names).rename(columns=COLUMN_NAMES),
                "state": pd.DataFrame(np.where(counts["reproducing"], "match", "differs"), index=row_names,
                                      columns=[COLUMN_NAMES[c] for c in COLUMNS])},
        values={"summary": summary, "lists": lists, "reference": reference, "hypotheses": hypotheses})


def _test_table_findings(claim, pub, reference, hypotheses, ours, printed, counts, rounded, ties,
                         decimals, tolerance):
    alt = RD.reading_comparison(reference, hypotheses)
    table_vals = {col: pub[col].tolist() for col in COLUMNS}
    findings = []
    j = {col: i for i, col in enumerate(COLUMNS)}
    if not counts["printed"][:, j["rankdcg"]].all():
        findings.append(claim.finding("normalisation", evidence=(
            f"as printed: {_fmt(printed['rankdcg'])}\ntable: {_fmt(table_vals['rankdcg'])}\n"
            f"corrected: {_fmt(ours['rankdcg'])}")))
    as_order = alt["rankdcg_as_ordering"].map(lambda v: RD.truncate(v, decimals))
    n_order = int(np.isclose(as_order, pub["rankdcg"], atol=tolerance, rtol=0).sum())
    if n_order < len(pub):
        findings.append(claim.finding("aligned_scores", readings=["lists as orderings", "lists as aligned scores"], evidence=(
            f"read as orderings, rankDCG is {_fmt(alt['rankdcg_as_ordering'])} ({n_order} of {len(pub)} lists "
            f"match); read as aligned scores it is {_fmt(ours['rankdcg'])} "
            f"({int(counts['reproducing'][:, j['rankdcg']].sum())} of {len(pub)})")))
    if not counts["printed"][:, j["kendall_tau"]].all():
        findings.append(claim.finding("tau_b", evidence=(
            f"tau-a: {_fmt(alt['tau_a'])}; tau-b: {_fmt(ours['kendall_tau'])}; table: {_fmt(table_vals['kendall_tau'])}")))
    if not counts["printed"][:, j["avep"]].all():
        findings.append(claim.finding("avep", evidence=(
            f"positional reading: {_fmt(ours['avep'])}; AP with relevant = above the lowest level, ranked by "
            f"the scores: {_fmt(alt['ap_binary'])}; table: {_fmt(table_vals['avep'])}")))
    if not counts["printed"][:, j["ndcg"]].all():
        findings.append(claim.finding("ndcg_ratio", evidence=(
            f"DCG(list)/DCG(reference): {_fmt(ours['ndcg'])}; nDCG of the reference ranked by the scores: "
            f"{_fmt(alt['ndcg_aligned'])}; table: {_fmt(table_vals['ndcg'])}")))
    cut_only = counts["reproducing"] & ~rounded
    if cut_only.any():
        cells = [f"{COLUMN_NAMES[COLUMNS[c]]} of list {pub['list'][r]}: {ours[COLUMNS[c]][r]:.5f} printed {pub[COLUMNS[c]][r]}"
                 for r, c in zip(*np.nonzero(cut_only))]
        findings.append(claim.finding("truncation", evidence=(
            f"{len(cells)} of {cut_only.size} cells differ from the rounded value, e.g. " + "; ".join(cells[:3]))))
    toy_ref, toy_hyp = [2, 1], [5, 5]
    toy = {rule: RD.rankdcg(toy_ref, toy_hyp, ties=rule) for rule in RD.TIES}
    same = all(np.allclose(RD.poster_table(reference, hypotheses, ties=r)["rankdcg"], ours["rankdcg"]) for r in RD.TIES)
    findings.append(claim.finding("tie_rule", evidence=(
        f"reference {toy_ref}, scores {toy_hyp}: " + ", ".join(f"{k} {v:.2f}" for k, v in toy.items())
        + "; the six test lists give " + ("the same values under every rule" if same else "different values"))))
    return findings


def tie_rules_table(reference, hypotheses, lists) -> tuple[pd.DataFrame, bool]:
    """rankDCG of the six lists under each tie rule, plus a two-item tie where the rule matters;
    and whether every rule gives the same six values."""
    table = pd.DataFrame({rule: RD.poster_table(reference, hypotheses, ties=rule)["rankdcg"] for rule in RD.TIES})
    same = bool(np.allclose(table.to_numpy(float), table.iloc[:, [0]].to_numpy(float)))
    table.insert(0, "list", [str(x) for x in lists])
    toy_ref, toy_hyp = [2, 1], [5, 5]
    table.loc[len(table)] = {"list": f"reference {toy_ref}, scores {toy_hyp}",
                             **{rule: RD.rankdcg(toy_ref, toy_hyp, ties=rule) for rule in RD.TIES}}
    return table, same


def other_readings_table(reference, hypotheses, lists) -> pd.DataFrame:
    """The six lists under the readings the table rules out (see
    :func:`rankbook.rankdcg.reading_comparison`)."""
    alt = RD.reading_comparison(reference, hypotheses).rename(columns=READING_NAMES)
    alt.insert(0, "list", lists)
    return alt


def other_measures_table(reference, hypotheses, lists, p: float = 0.9) -> pd.DataFrame:
    """The six lists under other measures of the book, beside rankDCG."""
    others = RD.other_measures(reference, hypotheses, p=p).rename(columns=MEASURE_NAMES)
    others.insert(0, "list", lists)
    others.insert(1, "rankDCG", [RD.rankdcg(reference, h) for h in hypotheses])
    return others


def relative_relevance(reference):
    """The poster's relative relevance ``L'`` (the dense rank of each value from the bottom) and
    reverse ranks ``D`` (from the top) of a reference list, computed directly.

    Examples
    --------
    >>> relative_relevance([9, 4, 4, 1])
    ([3, 2, 2, 1], [1, 2, 2, 3])
    """
    levels = sorted(set(reference), reverse=True)
    m = len(levels)
    return [m - levels.index(v) for v in reference], [levels.index(v) + 1 for v in reference]


def moved_table(claim: claims.Claim, **smoke) -> dict:
    """Mutant: every printed value of the test table moved by two hundredths."""
    table = read_test_table(claim.path("table"))[0].copy()
    table[COLUMNS] = table[COLUMNS] + 0.02
    return {"published": table}


def check_example(claim: claims.Claim, *, published=None, derive=relative_relevance) -> Evidence:
    """From ``L`` the poster derives ``L'`` and ``D`` (the claim's data ``lists``; ``published``
    replaces them); ``derive`` injects another derivation."""
    pub = published if published is not None else pd.read_csv(claim.path("lists"), comment="#")
    rel, rev = derive(pub["L"].tolist())
    table = pd.DataFrame({"position": pub["position"], "L": pub["L"], "L' (poster)": pub["L_prime"], "L' (ours)": rel,
                          "D (poster)": pub["D"], "D (ours)": rev})
    ok = np.concatenate([np.asarray(rel) == pub["L_prime"].to_numpy(), np.asarray(rev) == pub["D"].to_numpy()])
    ev = claim.evidence(
        comparison="exact", published=f"L' and D, {ok.size} values",
        reproduced=f"{int(ok.sum())} of {ok.size} equal", matched=int(ok.sum()), total=int(ok.size), unit="values",
        detail="L' is the rank of each value among the distinct values counted from the bottom, D counted from the top")
    ev.add_table("rankdcg_example_lists", table, title=f"The poster's L, L' and D, printed and recomputed: {ev.reproduced}")
    return ev


def top_counted(claim: claims.Claim, **smoke) -> dict:
    """Mutant: L' counted from the top instead of the bottom (and D from the bottom)."""
    return {"derive": lambda ref: tuple(reversed(relative_relevance(ref)))}


def raw_values(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the raw values taken as the relative relevance."""
    return {"derive": lambda ref: (list(ref), relative_relevance(ref)[1])}


def check_lowest_scores(claim: claims.Claim, *, rankdcg_fn=RD.rankdcg) -> Evidence:
    """The common measures give the reversed order a score above their lower bound
    (``claim.params["lower_bounds"]``), so "the worst" reads differently per measure, while
    rankDCG scores the perfect order 1 and the reversed order 0 (within
    ``claim.params["tolerance"]``).

    Computed on the poster's reference (the claim's data ``table``) and its reversed order,
    with the columns as the table computes them; ``rankdcg_fn`` injects another rankDCG."""
    bounds, tolerance = claim.params["lower_bounds"], claim.params["tolerance"]
    _, reference, hypotheses = read_test_table(claim.path("table"))
    worst = sorted(reference)
    tau, avep, ndcg = (RD.POSTER_COLUMNS[c](reference, worst) for c in ("kendall_tau", "avep", "ndcg"))
    best_r, worst_r = rankdcg_fn(reference, reference), rankdcg_fn(reference, worst)
    cases = {f"rankDCG of the perfect order is 1 ({best_r:.3f})": abs(best_r - 1) <= tolerance,
             f"rankDCG of the reversed order is 0 ({worst_r:.3f})": abs(worst_r) <= tolerance,
             f"Kendall τ of the reversed order is above its bound {bounds['kendall_tau']:g} ({tau:.3f})":
                 tau > bounds["kendall_tau"],
             f"AveP of the reversed order is above its bound {bounds['avep']:g} ({avep:.3f})": avep > bounds["avep"],
             f"nDCG of the reversed order is above its bound {bounds['ndcg']:g} ({ndcg:.3f})": ndcg > bounds["ndcg"]}
    ev = claim.evidence(
        comparison="claim", published="only rankDCG spans its whole range",
        reproduced=f"reversed order: τ {tau:.3f}, AveP {avep:.3f}, nDCG {ndcg:.3f}, rankDCG {worst_r:.3f}",
        matched=sum(cases.values()), total=len(cases), unit="cases",
        failures=[c for c, ok in cases.items() if not ok] or None,
        detail="the reference and its reversal, scored as the test table scores its lists")
    ev.add_table("rankdcg_lowest_scores", pd.DataFrame({"case": list(cases), "holds": list(cases.values())}),
                 title="The perfect and the reversed order under each measure")
    return ev


def printed_normalisation(claim: claims.Claim, **smoke) -> dict:
    """Mutant: rankDCG with the printed normalisation (one minus the corrected one)."""
    return {"rankdcg_fn": lambda r, h: 1 - RD.rankdcg(r, h)}


def check_real_data(claim: claims.Claim, *, published: pd.DataFrame | None = None) -> Evidence:
    """Each printed value of the Real Data Results table (the claim's data ``table``) is a value
    of the measure its column names under the poster's own formulas: it lies in that measure's
    range (``claim.params["ranges"]``; nDCG, DCG over the ideal DCG, never exceeds 1). The
    values themselves cannot be rerun (the threads are not distributed). A value outside its
    range makes the table contradict its own measure whatever the data: false, the values
    named (finding ``ndcg_above_one`` for nDCG above 1). ``published`` replaces the printed
    table (the mutation test)."""
    ranges = claim.params["ranges"]
    real = published if published is not None else pd.read_csv(claim.path("table"), comment="#")
    cells = [(r, col, float(v)) for col in COLUMNS for r, v in zip(real["row"], real[col]) if not np.isnan(v)]
    out = [(r, col, v) for r, col, v in cells if not ranges[col][0] <= v <= ranges[col][1]]
    named = [f"{COLUMN_NAMES[col]} of row {r} = {v:g}" for r, col, v in out]
    above = real[real["ndcg"] > ranges["ndcg"][1]]
    ev = claim.evidence(
        comparison="claim", matched=len(cells) - len(out), total=len(cells), unit="values",
        failures=named or None, published=f"{len(real)} rows, {len(cells)} printed values",
        reproduced=(f"{len(cells) - len(out)} of {len(cells)} printed values lie in the range of their "
                    "measure (the values themselves cannot be rerun: the threads are not published)"),
        detail=("printed nDCG above its largest value (" + ", ".join(f"row {r}: {v:g}" for r, v in zip(
            above["row"], above["ndcg"])) + "), which DCG over the ideal DCG cannot reach: the table "
                "contradicts its own measure, whatever the data") if len(above) else
               ("printed values outside the range of their measure" if out else
                "every printed value lies in the range of its measure"),
        values={"above": len(above), "rows": len(real)})
    if len(above):
        ev.findings.append(claim.finding("ndcg_above_one", evidence="printed nDCG above 1: " + ", ".join(
            f"row {r}: {v:g}" for r, v in zip(above["row"], above["ndcg"]))))
    ev.add_table("rankdcg_real_data", real.rename(columns=COLUMN_NAMES),
                 title="RankDCG poster, Real Data Results, as printed")
    return ev


def clipped_ndcg(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the printed nDCG values clipped to the measure's range."""
    real = pd.read_csv(claim.path("table"), comment="#")
    return {"published": real.assign(ndcg=real["ndcg"].clip(upper=claim.params["ranges"]["ndcg"][1]))}
