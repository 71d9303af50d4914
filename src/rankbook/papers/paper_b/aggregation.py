"""Paper B, Section V-A: Table IV, Figure 3 and what the paper concludes from them; the logic
of the page ``consensus_rank_aggregation``.

The rankings to aggregate (Table II), the aggregates (Table III) and the published grids are
the data of the claims' ledger entries (``claim.path("base")``, ``claim.path("candidates")``,
``claim.path("ga")`` ...); the page's own inputs are its parameters. Each ``check_*`` receives
one claim's ledger entry and returns its Evidence, with its published values, reading and grid
injectable for the mutation test (``[claims.test]`` in the ledger, with the ``perturb``
functions below).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rankbook import aggregation_formats, consensus
from rankbook.ledger import claims
from rankbook.ledger.limits import within_time

from .common import agreement
from .grids import (DEVIATION_NAMES, check_grid, curves, decline, grids, published_grid_path,
                    read_published_grid, spread_finding)

__all__ = ["load", "paper_inputs", "counts", "check_table_iv", "check_eq3", "figure_3", "check_figure_3",
           "check_sensitivity", "check_figure_3_reading", "conclusions", "fit", "agreement", "grids"]


def _paper_sets(claim: claims.Claim):
    """R_c and the aggregates of the paper, from the claim's data ``base`` and ``candidates``."""
    base = next(iter(consensus.read_rankings_csv(claim.path("base")).values()))
    cands = next(iter(consensus.read_rankings_csv(claim.path("candidates")).values()))
    return base, cands


def _grid(claim: claims.Claim, gammas, lams):
    return (list(claim.params["gammas"] if gammas is None else gammas),
            list(claim.params["lams"] if lams is None else lams))


def paper_inputs(claim: claims.Claim, base_path, candidates_path, published_dir, table_stem: str) -> tuple:
    """Whether the page runs on the paper's inputs, as ``claim`` (the claim of Table IV) names
    them: ``(is_paper, checked)``, the rankings of Tables II and III, and with them the
    published grids of Table IV under their names (``published_dir`` resolved, or None)."""
    same = lambda a, b: a is not None and Path(a).resolve() == Path(b).resolve()
    is_paper = same(base_path, claim.path("base")) and same(candidates_path, claim.path("candidates"))
    checked = is_paper and all(same(published_grid_path(published_dir, table_stem, role), claim.path(role))
                               for role in ("ga", "ce"))
    return is_paper, checked


def load(base_path, candidates_path) -> claims.Section:
    """R_c, the candidate aggregates and the sets R_c plus each, from two resolved files;
    ``values``: ``base``, ``candidates``, ``sets``, ``labels``."""
    base = next(iter(aggregation_formats.read_rankings_file(base_path).values()))
    cands = next(iter(aggregation_formats.read_rankings_file(candidates_path).values()))
    out = claims.Section(values={"base": base, "candidates": cands,
                                 "sets": {n: list(base.values()) + [r] for n, r in cands.items()},
                                 "labels": {n: f"R_c plus the {n} aggregate" for n in cands}})
    out.add_table("rank_aggregation_rankings", pd.DataFrame(
        [{"set": "R_c", "name": n, "ranking": consensus.format_ranking(r)} for n, r in base.items()]
        + [{"set": "aggregate", "name": n, "ranking": consensus.format_ranking(r)} for n, r in cands.items()]),
        title="The rankings R_c (Table II) and the candidate aggregates (Table III)")
    return out


def counts(base: dict, sets: dict) -> claims.Section:
    """The plain counts of R_c and of R_c with each aggregate."""
    rows = []
    for label, R in {"R_c": list(base.values()), **{f"R_c + {n}": S for n, S in sets.items()}}.items():
        rows.append({"set": label, "rankings": len(R), "kappa": consensus.kappa(R),
                     "kappa_p (p = 1, 2, ...)": ", ".join(f"{x:g}" for x in consensus.kappa_p(R)),
                     "longest common subsequence": consensus.longest_common(R)})
    table = pd.DataFrame(rows)
    out = claims.Section(values={"kappa": dict(zip(table.set, table.kappa))})
    out.add_table("rank_aggregation_counts", table, float_format="{:g}",
                  title="Common subsequences of R_c and of R_c with each aggregate (γ = λ = 1)")
    k0 = table.kappa.iloc[0]
    holds = bool((table.kappa.iloc[1:] <= k0).all())
    out.say(f"Unweighted, Eq. (3) {'holds' if holds else 'fails'}: adding an aggregate "
            f"{'never raises' if holds else 'can raise'} $\\kappa$ above {k0:g}, its value for $\\mathcal{{R}}_c$ alone.")
    return out


def _published_iv(claim: claims.Claim, names) -> dict:
    return {n: read_published_grid(claim.path(n.lower())) for n in names}


def check_table_iv(claim: claims.Claim, *, gammas=None, lams=None, deviation: str = "std", published_grids=None,
                   table_stem: str = "table_iv") -> claims.Evidence:
    """Every printed cell of Table IV against κ of R_c plus GA and R_c plus CE at the claim's
    printed ``decimals`` (γ and λ: the claim's ``gammas`` and ``lams`` unless given); the
    finding ``spread`` (which spread d reproduces it)."""
    base, cands = _paper_sets(claim)
    sets = {n: list(base.values()) + [r] for n, r in cands.items()}
    gammas, lams = _grid(claim, gammas, lams)
    ev = check_grid(claim, sets, published_grids or _published_iv(claim, cands), gammas, lams, deviation,
                    "Table IV", table_stem)
    finding = spread_finding(claim, ev.values["readings"], "Table IV")
    if finding is not None and ev.status == "holds":
        ev.findings.append(finding)
    return ev


def moved_iv(claim: claims.Claim, gammas=None, lams=None, **smoke) -> dict:
    """Mutant: the printed cell of GA at the last γ and λ checked moved by two rounding units."""
    gammas, lams = _grid(claim, gammas, lams)
    pub = _published_iv(claim, ("GA", "CE"))
    ga = pub["GA"].copy()
    ga.loc[float(gammas[-1]), f"{float(lams[-1]):g}"] += 2 * 10.0 ** -int(claim.params["decimals"])
    return {"published_grids": {**pub, "GA": ga}}


def check_eq3(claim: claims.Claim, *, gammas=None, lams=None, deviation: str = "std") -> claims.Evidence:
    """The weighted κ of R_c with each aggregate never exceeds that of R_c alone by more than
    the claim's ``tolerance``, cell by cell over the grid (finding ``weighted`` where it does)."""
    base, cands = _paper_sets(claim)
    gammas, lams = _grid(claim, gammas, lams)
    tol = float(claim.param("tolerance"))
    R_c = list(base.values())
    base_grid = consensus.kappa_grid(R_c, gammas, lams, deviation=deviation)
    rows = []
    for name, r in cands.items():
        grid = consensus.kappa_grid(R_c + [r], gammas, lams, deviation=deviation)
        rows.append({"aggregate": name, "cells": grid.size,
                     "cells where kappa grows": int((grid.to_numpy() > base_grid.to_numpy() + tol).sum()),
                     "largest growth": float((grid - base_grid).to_numpy().max()),
                     "largest decline": float((base_grid - grid).to_numpy().max())})
    growth = pd.DataFrame(rows)
    grows = growth[growth["cells where kappa grows"] > 0]
    plain = {n: consensus.kappa(R_c + [r]) for n, r in cands.items()}
    ev = claim.evidence(
        comparison="claim", unit="cells",
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
    ev.add_table("rank_aggregation_growth", growth, float_format="{:.4f}",
                 title="Weighted κ of R_c with each aggregate, against R_c alone, over the grid")
    if len(grows):
        ev.findings.append(claim.finding("weighted", evidence="; ".join(
            f"R_c + {r['aggregate']}: κ above κ(R_c) in {r['cells where kappa grows']} of {r['cells']} (γ, λ) cells, "
            f"by up to {r['largest growth']:.4f}" for r in growth.to_dict("records"))
            + f" (γ in {min(gammas):g}..{max(gammas):g}, λ in {min(lams):g}..{max(lams):g}; spread d = "
              f"{DEVIATION_NAMES[deviation]})"))
    return ev


def figure_3(sets: dict, gammas, lams, deviation: str = "std") -> claims.Section:
    """The curves of Figure 3 and their declines (``values``: ``curves``, ``sensitivity``)."""
    return curves(sets, gammas, lams, deviation, "figure_3_kappa_p")


def check_figure_3(claim: claims.Claim, *, gammas=None, lams=None, deviation: str = "std") -> claims.Evidence:
    """Figure 3: recomputed, with nothing published to compare (not checkable)."""
    base, cands = _paper_sets(claim)
    gammas, lams = _grid(claim, gammas, lams)
    cur = figure_3({n: list(base.values()) + [r] for n, r in cands.items()}, gammas, lams, deviation)
    ev = claim.evidence(
        comparison="none", published="curves (the figure's data points are not published)",
        reproduced=f"recomputed: the three curves of each aggregate ({', '.join(cur.values['curves'])})",
        detail="recomputed; the curves cannot be compared point by point with the printed figure")
    return ev


def check_sensitivity(claim: claims.Claim, *, gammas=None, lams=None, deviation: str = "std") -> claims.Evidence:
    """Section IV-D1: κ_1 depends only on γ and the spread of each common item's positions, and
    falls as the spreads grow; κ_p for p > 1 only on λ and the gaps. True by definition (Eq. 10
    and 11: the trace holds the item weights only, L the edge weights only). The evidence shows
    it on R_c plus each aggregate of the paper: κ_1 over λ at each γ, κ_p (p > 1) over γ at each λ,
    and κ_1 of the set at γ < 1 against its items' spreads."""
    base, cands = _paper_sets(claim)
    gammas, lams = _grid(claim, gammas, lams)
    rows = []
    for name, r in cands.items():
        R = list(base.values()) + [r]
        kp = consensus.kappa_p(R, [g for g in gammas for _ in lams], [lm for _ in gammas for lm in lams],
                               deviation=deviation).reshape(len(gammas), len(lams), -1)
        spread = consensus.consensus_graph(R, deviation=deviation).spread
        rows.append({"set": f"R_c + {name}", "common items": len(spread),
                     "largest change of κ_1 over λ": float((kp[:, :, 0].max(axis=1) - kp[:, :, 0].min(axis=1)).max()),
                     "largest change of κ_p (p > 1) over γ": float((kp[:, :, 1:].max(axis=0)
                                                                   - kp[:, :, 1:].min(axis=0)).max())
                     if kp.shape[-1] > 1 else 0.0,
                     "mean spread d": float(spread.mean()) if len(spread) else float("nan")})
    table = pd.DataFrame(rows)
    ev = claim.evidence(
        comparison="definition", published="$\\kappa_1$ reacts to $\\gamma$ only, $\\kappa_p$ ($p > 1$) to $\\lambda$ only",
        reproduced=f"over the {len(gammas)} × {len(lams)} grid: κ_1 changes by at most "
                   f"{table['largest change of κ_1 over λ'].max():.3g} with λ, κ_p (p > 1) by at most "
                   f"{table['largest change of κ_p (p > 1) over γ'].max():.3g} with γ",
        detail="by Eq. (10) and (11) $\\kappa_1$ is the trace, which holds the item weights $\\gamma^d$ only (smaller as "
               "$d$ grows, for $\\gamma < 1$), and $\\kappa_p$ for $p > 1$ sums products of the edge weights only")
    ev.add_table("figure_3_sensitivity_definition", table, float_format="{:.3g}",
                 title="Section IV-D1 on Table IV's sets: κ_1 against λ, κ_p (p > 1) against γ")
    return ev


def check_figure_3_reading(claim: claims.Claim, *, gammas=None, lams=None, deviation: str = "std",
                           names=None) -> claims.Evidence:
    """The first of the claim's ``names`` (CE) falls more with γ (κ_1), the second (GA) more with
    λ (κ_2 and κ_3), over the grid."""
    base, cands = _paper_sets(claim)
    gammas, lams = _grid(claim, gammas, lams)
    sens = curves({n: list(base.values()) + [r] for n, r in cands.items()}, gammas, lams, deviation,
                  "figure_3_kappa_p").values["sensitivity"]
    g_name, l_name = claim.params["names"] if names is None else names
    gamma_ok = decline(sens, g_name, 1) > decline(sens, l_name, 1)
    lam_ok = all(decline(sens, l_name, p) > decline(sens, g_name, p) for p in (2, 3))
    shown = (g_name, l_name)
    return claim.evidence(
        comparison="claim", matched=int(gamma_ok) + int(lam_ok), total=2, unit="statements",
        published="2 statements", reproduced=f"{g_name} to γ: {'yes' if gamma_ok else 'no'}; "
                                              f"{l_name} to λ: {'yes' if lam_ok else 'no'}",
        failures=[s for s, ok in ((f"{g_name} more sensitive to γ", gamma_ok), (f"{l_name} more sensitive to λ", lam_ok))
                  if not ok],
        detail="measured as the fall of each curve over the grid: κ_1 by " + ", ".join(
            f"{n} {decline(sens, n, 1):.1%}" for n in shown) + "; κ_2 by " + ", ".join(
            f"{n} {decline(sens, n, 2):.1%}" for n in shown) + "; κ_3 by " + ", ".join(
            f"{n} {decline(sens, n, 3):.1%}" for n in shown))


def conclusions(sets: dict, grids: dict, sens: pd.DataFrame, gammas, lams, k_base: float) -> claims.Section:
    """The sentences of "What the paper concludes, checked" for the GA and CE aggregates."""
    out = claims.Section()
    if not {"GA", "CE"} <= set(sets):
        out.say("The paper's conclusions concern its GA and CE aggregates; with other inputs they are not checked.")
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
    out.say("\n".join(lines))
    return out


def fit(base: dict, candidates: dict) -> claims.Section:
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
    out = claims.Section(values={"table": table, "closest": sums.idxmin(), "distance": float(sums.min())})
    out.add_table("aggregate_fit", table, float_format="{:.4g}",
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
