"""Paper B, Section V-A: Table IV, Figure 3 and what the paper concludes from them; the logic
of the page ``consensus_rank_aggregation``.

The rankings to aggregate (Table II) and the aggregates (Table III) are read from
``data/rankings``; the published grids from ``data/published/paper_b``. Each ``check_*``
returns the Evidence of one ledger claim with its published values, reading and grid
injectable (:data:`CHECKS`).
"""

from __future__ import annotations

import pandas as pd

from rankbook import aggregation_formats, consensus
from rankbook.ledger import claims

from .common import (TABLE_II, TABLE_III, Section, add_table, agreement, check_grid, curves, decline, grids, say,
                     spread_finding)
from rankbook.ledger.paths import data_path
from rankbook.ledger.limits import within_memory, within_time

__all__ = ["load", "counts", "check_table_iv", "check_eq3", "figure_3", "check_figure_3_reading",
           "conclusions", "CHECKS", "GRID"]

#: The γ and λ of Table IV.
GRID = (1.0, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45)


def _paper_sets():
    base = next(iter(consensus.read_rankings_csv(data_path(*TABLE_II.split("/"))).values()))
    cands = next(iter(consensus.read_rankings_csv(data_path(*TABLE_III.split("/"))).values()))
    return base, cands


def load(base_csv: str, candidates_csv: str, *, resolve=None) -> Section:
    """R_c, the candidate aggregates and the sets R_c plus each; ``values``: ``base``,
    ``candidates``, ``sets``, ``labels``, ``is_paper``."""
    resolve = resolve or (lambda p: p)
    base = next(iter(aggregation_formats.read_rankings_file(resolve(base_csv)).values()))
    cands = next(iter(aggregation_formats.read_rankings_file(resolve(candidates_csv)).values()))
    out = Section(values={"base": base, "candidates": cands,
                          "sets": {n: list(base.values()) + [r] for n, r in cands.items()},
                          "labels": {n: f"R_c plus the {n} aggregate" for n in cands},
                          "is_paper": base_csv == TABLE_II and candidates_csv == TABLE_III})
    add_table(out, "rank_aggregation_rankings", pd.DataFrame(
        [{"set": "R_c", "name": n, "ranking": consensus.format_ranking(r)} for n, r in base.items()]
        + [{"set": "aggregate", "name": n, "ranking": consensus.format_ranking(r)} for n, r in cands.items()]),
        title="The rankings R_c (Table II) and the candidate aggregates (Table III)")
    return out


def counts(base: dict, sets: dict) -> Section:
    """The plain counts of R_c and of R_c with each aggregate."""
    rows = []
    for label, R in {"R_c": list(base.values()), **{f"R_c + {n}": S for n, S in sets.items()}}.items():
        rows.append({"set": label, "rankings": len(R), "kappa": consensus.kappa(R),
                     "kappa_p (p = 1, 2, ...)": ", ".join(f"{x:g}" for x in consensus.kappa_p(R)),
                     "longest common subsequence": consensus.longest_common(R)})
    table = pd.DataFrame(rows)
    out = Section(values={"kappa": dict(zip(table.set, table.kappa))})
    add_table(out, "rank_aggregation_counts", table, float_format="{:g}",
              title="Common subsequences of R_c and of R_c with each aggregate (γ = λ = 1)")
    k0 = table.kappa.iloc[0]
    holds = bool((table.kappa.iloc[1:] <= k0).all())
    say(out, f"Unweighted, Eq. (3) {'holds' if holds else 'fails'}: adding an aggregate "
             f"{'never raises' if holds else 'can raise'} $\\kappa$ above {k0:g}, its value for $\\mathcal{{R}}_c$ alone.")
    return out


def _published_iv():
    return {n: consensus.read_published_grid(data_path("published", "paper_b", f"table_iv_{n.lower()}.csv"))
            for n in ("GA", "CE")}


def check_table_iv(gammas=GRID, lams=GRID, deviation: str = "std", *, published_grids=None,
                   table_stem: str = "table_iv") -> claims.Evidence:
    """B-TIV: every printed cell of Table IV against κ of R_c plus GA and R_c plus CE; the
    finding B-E6 (which spread d reproduces it)."""
    base, cands = _paper_sets()
    sets = {n: list(base.values()) + [r] for n, r in cands.items()}
    ev = check_grid("B-TIV", sets, published_grids or _published_iv(), list(gammas), list(lams), deviation,
                    "Table IV", table_stem)
    finding = spread_finding(ev.values["readings"], "Table IV")
    if finding is not None and ev.status == "holds":
        ev.findings.append(finding)
    return ev


def check_eq3(gammas=GRID, lams=GRID, deviation: str = "std") -> claims.Evidence:
    """B-Eq3: the weighted κ of R_c with each aggregate never exceeds that of R_c alone, cell by
    cell over the grid (finding B-E7 where it does)."""
    base, cands = _paper_sets()
    R_c = list(base.values())
    base_grid = consensus.kappa_grid(R_c, list(gammas), list(lams), deviation=deviation)
    rows = []
    for name, r in cands.items():
        grid = consensus.kappa_grid(R_c + [r], list(gammas), list(lams), deviation=deviation)
        rows.append({"aggregate": name, "cells": grid.size,
                     "cells where kappa grows": int((grid.to_numpy() > base_grid.to_numpy() + 1e-12).sum()),
                     "largest growth": float((grid - base_grid).to_numpy().max()),
                     "largest decline": float((base_grid - grid).to_numpy().max())})
    growth = pd.DataFrame(rows)
    grows = growth[growth["cells where kappa grows"] > 0]
    plain = {n: consensus.kappa(R_c + [r]) for n, r in cands.items()}
    ev = claims.Evidence(
        claim="B-Eq3", comparison="claim", unit="cells",
        matched=int(growth.cells.sum() - growth["cells where kappa grows"].sum()), total=int(growth.cells.sum()),
        published="applied to both aggregates at every $(\\gamma, \\lambda)$ of Table IV",
        reproduced=("the weighted $\\kappa$ never rises when an aggregate joins $\\mathcal{R}_c$" if grows.empty else
                    f"the weighted $\\kappa$ rises in {claims.plural(int(grows['cells where kappa grows'].sum()), 'cell')} when an aggregate joins $\\mathcal{{R}}_c$"),
        failures=[f"$\\mathcal{{R}}_c$ + {r['aggregate']}: $\\kappa$ rises above that of $\\mathcal{{R}}_c$ in "
                  f"{r['cells where kappa grows']} of its {r['cells']} cells, by up to {r['largest growth']:.4f}"
                  for r in grows.to_dict("records")],
        detail=(f"Eq. (3) holds for the plain counts ($\\kappa$ = {consensus.kappa(R_c):g} for $\\mathcal{{R}}_c$, "
                + ", ".join(f"{k:g} with {n}" for n, k in plain.items())
                + "); the weights average positions and gaps over all rankings, so a new ranking can raise them"))
    add_table(ev, "rank_aggregation_growth", growth, float_format="{:.4f}",
              title="Weighted κ of R_c with each aggregate, against R_c alone, over the grid")
    if len(grows):
        ev.findings.append(claims.Finding(id="B-E7", evidence="; ".join(
            f"R_c + {r['aggregate']}: κ above κ(R_c) in {r['cells where kappa grows']} of {r['cells']} (γ, λ) cells, "
            f"by up to {r['largest growth']:.4f}" for r in growth.to_dict("records"))
            + f" (γ in {min(gammas):g}..{max(gammas):g}, λ in {min(lams):g}..{max(lams):g}; spread d = "
              f"{consensus.DEVIATION_NAMES[deviation]})"))
    return ev


def figure_3(sets: dict, gammas, lams, deviation: str = "std") -> Section:
    """The curves of Figure 3 and their declines; ``values["evidence"]`` is the Evidence of
    B-F3 (nothing published to compare)."""
    out = curves(sets, gammas, lams, deviation, "figure_3_kappa_p")
    out.values["evidence"] = claims.Evidence(
        claim="B-F3", comparison="none", published="curves (the figure's data points are not published)",
        reproduced="recomputed: the three curves of each aggregate",
        detail="recomputed; the curves cannot be compared point by point with the printed figure")
    return out


def check_figure_3(gammas=GRID, lams=GRID, deviation: str = "std") -> claims.Evidence:
    """B-F3: recomputed, with nothing published to compare."""
    base, cands = _paper_sets()
    return figure_3({n: list(base.values()) + [r] for n, r in cands.items()}, gammas, lams, deviation).values["evidence"]


def check_figure_3_reading(gammas=GRID, lams=GRID, deviation: str = "std", *,
                           names=("CE", "GA")) -> claims.Evidence:
    """B-F3-reading: the first of ``names`` (CE) falls more with γ (κ_1), the second (GA) more
    with λ (κ_2 and κ_3)."""
    base, cands = _paper_sets()
    sens = curves({n: list(base.values()) + [r] for n, r in cands.items()}, gammas, lams, deviation,
                  "figure_3_kappa_p").values["sensitivity"]
    g_name, l_name = names
    gamma_ok = decline(sens, g_name, 1) > decline(sens, l_name, 1)
    lam_ok = all(decline(sens, l_name, p) > decline(sens, g_name, p) for p in (2, 3))
    return claims.Evidence(
        claim="B-F3-reading", comparison="claim", matched=int(gamma_ok) + int(lam_ok), total=2, unit="statements",
        published="2 statements", reproduced=f"{g_name} to γ: {'yes' if gamma_ok else 'no'}; "
                                              f"{l_name} to λ: {'yes' if lam_ok else 'no'}",
        failures=[s for s, ok in ((f"{g_name} more sensitive to γ", gamma_ok), (f"{l_name} more sensitive to λ", lam_ok))
                  if not ok],
        detail="measured as the fall of each curve over the grid: κ_1 by " + ", ".join(
            f"{n} {decline(sens, n, 1):.1%}" for n in names) + "; κ_2 by " + ", ".join(
            f"{n} {decline(sens, n, 2):.1%}" for n in names) + "; κ_3 by " + ", ".join(
            f"{n} {decline(sens, n, 3):.1%}" for n in names))


def conclusions(sets: dict, grids: dict, sens: pd.DataFrame, gammas, lams, k_base: float) -> Section:
    """The sentences of "What the paper concludes, checked" for the GA and CE aggregates."""
    out = Section()
    if not {"GA", "CE"} <= set(sets):
        say(out, "The paper's conclusions concern its GA and CE aggregates; with other inputs they are not checked.")
        return out
    g1, c1 = decline(sens, "GA", 1), decline(sens, "CE", 1)
    lines = [f"- $\\kappa_1$ falls by {c1:.1%} for CE and {g1:.1%} for GA as $\\gamma$ goes from {max(gammas):g} to "
             f"{min(gammas):g}: CE is {'more' if c1 > g1 else 'not more'} sensitive to $\\gamma$, "
             f"{'as' if c1 > g1 else 'contrary to what'} the paper says."]
    for p in (2, 3):
        gp, cp = decline(sens, "GA", p), decline(sens, "CE", p)
        lines.append(f"- $\\kappa_{p}$ falls by {gp:.1%} for GA and {cp:.1%} for CE as $\\lambda$ goes from "
                     f"{max(lams):g} to {min(lams):g}: GA is {'more' if gp > cp else 'not more'} sensitive to $\\lambda$.")
    ga, ce = grids["GA"].to_numpy(), grids["CE"].to_numpy()
    gi, li = list(grids["GA"].index), list(grids["GA"].columns)
    row1 = [l for l in li if float(l) < 1 and ce[gi.index(1.0), li.index(l)] > ga[gi.index(1.0), li.index(l)]] if 1.0 in gi else []
    col1 = [g for g in gi if g < 1 and ga[gi.index(g), li.index("1")] > ce[gi.index(g), li.index("1")]] if "1" in li else []
    lines.append(f"- Unweighted, both aggregates leave $\\kappa$ at {consensus.kappa(sets['GA']):g} and "
                 f"{consensus.kappa(sets['CE']):g} ($\\mathcal{{R}}_c$ alone: {k_base:g}), so the plain count cannot rank "
                 f"them. Over the grid GA keeps the higher kappa in {int((ga > ce).sum())} cells, CE in "
                 f"{int((ce > ga).sum())}, with {int((ga == ce).sum())} ties, of {ga.size}. With $\\gamma = 1$ (only gaps "
                 f"penalised) CE is higher at {len(row1)} of {sum(float(l) < 1 for l in li)} values of $\\lambda$ below 1; "
                 f"with $\\lambda = 1$ (only positions penalised) GA is higher at {len(col1)} of {sum(g < 1 for g in gi)} "
                 "values of $\\gamma$ below 1.")
    if (ga > ce).any() and (ce > ga).any():
        lines.append("- So which aggregate 'loses less consensus' depends on the kind of disagreement one penalises; "
                     "the paper's criterion does not single out one of them on these data.")
    say(out, "\n".join(lines))
    return out


SMOKE = {"gammas": (1.0, 0.5), "lams": (1.0, 0.45)}


def _moved_iv():
    pub = _published_iv()
    pub["GA"] = pub["GA"].copy()
    pub["GA"].loc[0.5, pub["GA"].columns[-1]] += 0.002  # a cell of the smoke grid (γ = 0.5, λ = 0.45)
    return pub


CHECKS = {
    "B-TIV": claims.Check(check_table_iv, smoke=SMOKE, mutants={
        "a printed cell moved by two rounding units": {"published_grids": _moved_iv()},
        "the spread of Eq. (13) (mean absolute deviation)": {"deviation": "mad"}}),
    "B-Eq3": claims.Check(check_eq3, smoke=SMOKE, mutants={
        "the plain counts instead of the weighted grid": {"gammas": (1.0,), "lams": (1.0,)}}),
    "B-F3": claims.Check(check_figure_3, smoke=SMOKE, mutants={}),
    "B-F3-reading": claims.Check(check_figure_3_reading, smoke=SMOKE, mutants={
        "the two aggregates exchanged": {"names": ("GA", "CE")}}),
}



def fit(base: dict, candidates: dict) -> Section:
    """Each candidate aggregate scored against the rankings it aggregates, in one table: per
    aggregate, the Kendall distance and tau_b of every input to it, and kappa and W of the
    inputs with and without it (:func:`rankbook.aggregation_formats.aggregate_scores`, all
    items). ``values["closest"]``: the aggregate with the smallest summed distance."""
    frames = []
    for name, agg in candidates.items():
        t = aggregation_formats.aggregate_scores(base, agg).reset_index().rename(columns={"": "ranking"})
        frames.append(t.assign(aggregate=name)[["aggregate"] + list(t.columns)])
    table = pd.concat(frames, ignore_index=True)
    sums = table.groupby("aggregate", sort=False)["distance to aggregate"].sum()
    out = Section(values={"table": table, "closest": sums.idxmin(), "distance": float(sums.min())})
    add_table(out, "aggregate_fit", table, float_format="{:.4g}",
              title="Each aggregate against its inputs: each input's Kendall distance and τ_b to it "
                    "(items a list lacks tie after its last), then κ (γ = λ = 1) and Kendall's W of "
                    "the inputs alone and with the aggregate")
    return out


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
def _rankings_from(values: dict, key_csv: str, root):
    """The first group of a rankings file, in rankbook's CSV or an aggregation tool's format
    (by the file's name, or the notebook's ``rankings_format`` parameter when it has one)."""
    from rankbook import aggregation_formats
    from rankbook.ledger.paths import resolve_input_path

    if values.get(key_csv):
        groups = aggregation_formats.read_rankings_file(resolve_input_path(values[key_csv], root),
                                                        values.get("rankings_format", "auto"))
        named = next(iter(groups.values()))
        return list(named.values()), list(named)
    return None, None


def _grid_time(values: dict, sets: int, items: int) -> float:
    """Seconds for the kappa grids: one triangular solve per cell and set (measured: about
    0.2 ms for 25 items, growing as the cube of the item count), with a margin of 4."""
    cells = len(values["gammas"]) * len(values["lams"]) * max(1, sets)
    return 4 * cells * 2e-4 * max(1.0, (items / 25) ** 3)


def _published_files(values: dict, root, names) -> None:
    from rankbook.ledger.paths import resolve_input_path

    folder = values.get("published_dir")
    if not folder:
        return
    path = resolve_input_path(folder, root)
    stem = values["table_stem"]
    wanted = [f"{stem}_{str(n).lower()}.csv" for n in names]
    found = [w for w in wanted if (path / w).is_file()]
    if not found:
        have = sorted(p.name for p in path.glob("*.csv"))[:8]
        raise ValueError(f"published_dir = {folder!r} holds none of the published grids "
                         f"{', '.join(wanted[:4])}{' ...' if len(wanted) > 4 else ''} (table_stem "
                         f"= {stem!r}); it holds {', '.join(have) or 'no CSV file'}; give "
                         "published_dir = \"\" to skip the comparison")


def limits(values: dict, root, timeout: float) -> None:
    """published_dir, when given, holds a published grid for some candidate; the grids of gammas x
    lams for every candidate fit in the time limit."""
    base, _ = _rankings_from(values, "base_csv", root)
    cand, cand_names = _rankings_from(values, "candidates_csv", root)
    _published_files(values, root, cand_names)
    items = max(len(r) for r in base + cand)
    within_time(_grid_time(values, len(cand), items), timeout,
                 f"the grids of {len(values['gammas'])} gammas x {len(values['lams'])} lams for "
                 f"{len(cand)} candidates of up to {items} items",
                 "give fewer gammas or lams")
