"""Paper B, Section V-B: Table VI, Figure 4 and the conclusions drawn from them; the logic of
the page ``consensus_search_engines``.

The top-25 lists (Table V), the published grids and the numbers the text states are the data
of the claims' ledger entries (``claim.path("rankings")``, ``claim.path("google")`` ...); the
page's own inputs are its parameters. Each ``check_*`` receives one claim's ledger entry and
returns its Evidence, with its published values injectable for the mutation test
(``[claims.test]`` in the ledger, with the ``perturb`` functions below).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rankbook import aggregation_formats, consensus
from rankbook.ledger import claims
from rankbook.ledger.limits import within_time

from .common import agreement, stated_values
from .grids import (DEVIATION_NAMES, check_grid, curves, decline, grids, published_grid_path,
                    read_published_grid, spread_finding)

__all__ = ["load", "paper_inputs", "counts", "check_table_vi", "figure_4", "check_figure_4", "check_spread",
           "crossing", "agreement", "grids"]

#: The two groups of Table V, in the order the paper names them.
ENGINES = ("Google", "Bing")


def _paper_sets(claim: claims.Claim) -> dict:
    groups = consensus.read_rankings_csv(claim.path("rankings"))
    return {g: list(named.values()) for g, named in groups.items()}


def _grid(claim: claims.Claim, gammas, lams):
    return (list(claim.params["gammas"] if gammas is None else gammas),
            list(claim.params["lams"] if lams is None else lams))


def paper_inputs(claim: claims.Claim, rankings_path, published_dir, table_stem: str) -> tuple:
    """Whether the page runs on the paper's inputs, as ``claim`` (the claim of Table VI) names
    them: ``(is_paper, checked)``, the lists of Table V, and with them the published grids of
    Table VI under their names (``published_dir`` resolved, or None)."""
    same = lambda a, b: a is not None and Path(a).resolve() == Path(b).resolve()
    is_paper = same(rankings_path, claim.path("rankings"))
    checked = is_paper and all(same(published_grid_path(published_dir, table_stem, role), claim.path(role))
                               for role in ("google", "bing"))
    return is_paper, checked


def load(rankings_path) -> claims.Section:
    """The groups of rankings (one per engine) of a resolved file; ``values``: ``sets``,
    ``labels``."""
    groups = aggregation_formats.read_rankings_file(rankings_path)
    sets = {g: list(named.values()) for g, named in groups.items()}
    out = claims.Section(values={"sets": sets, "labels": {g: f"its {len(R)} rankings" for g, R in sets.items()}})
    out.add_table("search_rankings", pd.DataFrame([{"group": g, "name": n, "ranking": consensus.format_ranking(r)}
                                                   for g, named in groups.items() for n, r in named.items()]),
                  title="The rankings of each group (Table V: top-25 link ids)")
    return out


def counts(sets: dict) -> claims.Section:
    """The items all rankings of a group share and their plain counts."""
    rows = []
    for g, R in sets.items():
        graph = consensus.consensus_graph(R)
        rows.append({"group": g, "rankings": len(R), "common items": ", ".join(map(str, graph.items)),
                     "kappa": consensus.kappa(R), "kappa_p (p = 1, 2, ...)": ", ".join(f"{x:g}" for x in consensus.kappa_p(R)),
                     "longest common subsequence": graph.longest})
    out = claims.Section()
    out.add_table("search_counts", pd.DataFrame(rows), float_format="{:g}",
                  title="Items common to all rankings of each group and their common subsequences (gamma = lambda = 1)")
    return out


def _published_vi(claim: claims.Claim) -> dict:
    return {g: read_published_grid(claim.path(g.lower())) for g in ENGINES}


def check_table_vi(claim: claims.Claim, *, gammas=None, lams=None, deviation: str = "std", published_grids=None,
                   table_stem: str = "table_vi") -> claims.Evidence:
    """Every printed cell of Table VI against κ of each engine's six lists at the claim's
    printed ``decimals``. The finding ``spread`` belongs to Table IV's claim; this claim's
    ledger entry confirms it (``confirms``), so it is reported with this evidence too."""
    gammas, lams = _grid(claim, gammas, lams)
    ev = check_grid(claim, _paper_sets(claim), published_grids or _published_vi(claim), gammas, lams, deviation,
                    "Table VI", table_stem)
    finding = spread_finding(claim, ev.values["readings"], "Table VI")
    if finding is not None and ev.status == "holds":
        ev.findings.append(finding)
    return ev


def moved_vi(claim: claims.Claim, gammas=None, lams=None, **smoke) -> dict:
    """Mutant: the printed cell of Bing at the last γ and λ checked moved by two rounding units."""
    gammas, lams = _grid(claim, gammas, lams)
    pub = _published_vi(claim)
    bing = pub["Bing"].copy()
    bing.loc[float(gammas[-1]), f"{float(lams[-1]):g}"] += 2 * 10.0 ** -int(claim.params["decimals"])
    return {"published_grids": {**pub, "Bing": bing}}


def figure_4(sets: dict, gammas, lams, deviation: str = "std") -> claims.Section:
    """The curves of Figure 4 and their declines."""
    return curves(sets, gammas, lams, deviation, "figure_4_kappa_p")


def crossing(sets: dict, deviation: str = "std") -> float:
    """The γ at which Google's and Bing's κ_1 curves cross (κ_1 = Σ γ^d over the common
    items), or nan when they do not cross in (0.05, 1)."""
    from scipy.optimize import brentq

    d = {g: consensus.consensus_graph(sets[g], deviation=deviation).spread for g in ENGINES}
    diff = lambda x: float((x ** d["Google"]).sum() - (x ** d["Bing"]).sum())
    return brentq(diff, 0.05, 0.9999, xtol=1e-10) if diff(0.05) * diff(0.9999) < 0 else float("nan")


def _stated(claim: claims.Claim) -> pd.Series:
    return stated_values(claim.path("statements"))


def check_figure_4(claim: claims.Claim, *, gammas=None, lams=None, deviation: str = "std",
                   stated=None) -> claims.Evidence:
    """The six statements Section V-B draws from Table VI and Figure 4 (the numbers it states:
    the claim's data ``statements``), on the recomputed grids and curves. The γ threshold holds
    when the crossing of the two κ_1 curves is at or above it, less the claim's ``margin``
    (half a unit of its printed two decimals); within ``margin`` of it the result is
    borderline. Finding ``threshold`` when it fails."""
    stated = _stated(claim) if stated is None else stated
    margin = float(claim.param("margin"))
    gammas, lams = _grid(claim, gammas, lams)
    links = {g: float(stated[f"common links {g.lower()}"]) for g in ("Bing", "Google")}
    threshold = float(stated["gamma threshold google kappa_1 higher"])
    sets = _paper_sets(claim)
    G, B = (consensus.kappa_grid(sets[g], gammas, lams, deviation=deviation).to_numpy() for g in ENGINES)
    fig = curves(sets, gammas, lams, deviation, "figure_4_kappa_p").values
    sens, cur = fig["sensitivity"], fig["curves"]
    k1 = {g: float(consensus.kappa_p(sets[g])[0]) for g in ENGINES}
    cross = crossing(sets, deviation)
    rows = [("Google's $\\kappa$ above Bing's in every cell", bool((G > B).all()),
             f"Google higher in {int((G > B).sum())} cells, Bing in {int((G < B).sum())}, equal in {int((G == B).sum())}"),
            (f"Bing's lists share {links['Bing']:g} links, Google's {links['Google']:g}",
             k1["Bing"] == links["Bing"] and k1["Google"] == links["Google"], f"Bing {k1['Bing']:g}, Google {k1['Google']:g}"),
            ("Bing's $\\kappa_1$ more sensitive to $\\gamma$", decline(sens, "Bing", 1) > decline(sens, "Google", 1),
             f"relative decline over the grid: Bing {decline(sens, 'Bing', 1):.1%}, Google {decline(sens, 'Google', 1):.1%}"),
            (f"Google's $\\kappa_1$ higher once $\\gamma \\le {threshold:g}$", bool(cross >= threshold - margin),
             f"the curves cross at γ = {cross:.4f}; Google is higher below it")]
    for p in (2, 3):
        cg, cb = (cur[g][cur[g].p == p].kappa_p.to_numpy() for g in ENGINES)
        rows.append((f"Google's $\\kappa_{p}$ above Bing's for every $\\lambda$", bool((cg > cb).all()),
                     f"Google higher at {int((cg > cb).sum())} values of λ, Bing at {int((cg < cb).sum())}, "
                     f"equal at {int((cg == cb).sum())}"))
    table = pd.DataFrame(rows, columns=["claim", "holds", "computed"])
    near = abs(cross - threshold) <= margin
    ev = claim.evidence(
        comparison="claim", matched=int(table.holds.sum()), total=len(table), unit="statements",
        published=f"{len(table)} statements in the text",
        reproduced=f"the two $\\kappa_1$ curves cross at $\\gamma$ = {cross:.4f}",
        failures=[f"{s} ({c})" for s, ok, c in table.itertuples(index=False) if not ok],
        borderline=(f"the crossing, {cross:.4f}, lies within {margin:g} of the stated {threshold:g}" if near else ""),
        detail=f"each statement recomputed from the curves and the grids (the figure's own data points are not published); the γ threshold "
               f"is decided to half a unit of its printed precision ({margin:g})")
    ev.add_table("search_claims", table, markdown=["claim"],
                 title="The paper's conclusions from Table VI and Figure 4, recomputed")
    ev.say(f"The two $\\kappa_1$ curves cross at $\\gamma \\approx {cross:.4f}$: above it the group with more shared "
           f"links (Bing {k1['Bing']:g}, Google {k1['Google']:g}) has the larger $\\kappa_1$, below it the group whose "
           "shared links move less between queries does.")
    if cross < threshold - margin:
        at = {g: float(sum(threshold ** consensus.consensus_graph(sets[g], deviation=deviation).spread)) for g in ENGINES}
        pub = _published_vi(claim)
        lines = [f"κ₁ at γ = {threshold:g}, recomputed: Google {at['Google']:.4f}, Bing {at['Bing']:.4f}",
                 f"the two κ₁ curves cross at γ = {cross:.4f}, {threshold - cross:.4f} below the stated {threshold:g} "
                 f"(more than half a unit of its printed precision, {margin:g})"]
        if all(threshold in p.index for p in pub.values()):
            pk = {g: float(pub[g].loc[threshold, "1"] - pub[g].loc[1.0, "1"] + k1[g]) for g in ENGINES}
            lines.insert(1, f"from the published Table VI (κ({threshold:g}, 1) − κ(1, 1) + κ₁(1)): Google "
                            f"{pk['Google']:.3f}, Bing {pk['Bing']:.3f}")
        ev.findings.append(claim.finding("threshold", evidence="\n".join(lines)))
    return ev


def threshold_moved(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the stated γ threshold moved below the crossing, to 0.8."""
    return {"stated": _stated(claim).where(lambda s: s.index != "gamma threshold google kappa_1 higher", 0.8)}


def check_spread(claim: claims.Claim, *, deviation: str = "std", engines=None) -> claims.Evidence:
    """Section V-B: Bing's κ_1 is the more sensitive to γ because the positions of its shared
    links vary more than Google's. The spread d of each link all six lists of a group share,
    averaged over those links, must be larger for the first of ``engines`` (the claim's
    ``engines``: Bing, then Google) under the spread the page reads (``deviation``); the other
    printed spreads are counted beside it."""
    more, less = claim.params["engines"] if engines is None else engines
    sets = _paper_sets(claim)
    printed = ("std", "mad", "sqrt_mad")  # the heading of Section IV-B1, Eq. (13), Algorithm 1
    spreads = {dev: {g: consensus.consensus_graph(sets[g], deviation=dev).spread for g in (more, less)}
               for dev in dict.fromkeys((deviation, *printed))}
    holds = {dev: bool(np.mean(s[more]) > np.mean(s[less])) for dev, s in spreads.items()}
    rows = [{"group": g, "shared links": len(spreads[deviation][g]),
             **{f"mean spread d ({dev})": float(np.mean(spreads[dev][g])) for dev in spreads},
             f"spreads d ({deviation})": ", ".join(f"{x:.2f}" for x in spreads[deviation][g])} for g in (more, less)]
    ev = claim.evidence(
        comparison="claim", holds=holds[deviation],
        published=f"the positions of {more}'s shared links vary more than {less}'s",
        reproduced=f"mean spread d ({DEVIATION_NAMES[deviation]}) of the shared links: "
                   + ", ".join(f"{g} {np.mean(spreads[deviation][g]):.3f}" for g in (more, less)),
        failures=[] if holds[deviation] else [f"{less}'s shared links vary as much or more"],
        reading=f"spread d = {DEVIATION_NAMES[deviation]}, averaged over the links all six lists share",
        alternatives={DEVIATION_NAMES[dev]: ok for dev, ok in holds.items() if dev != deviation},
        detail="the spread of each shared link's positions over the six queries, as the weights θ = γ^d use it")
    ev.add_table("search_spreads", pd.DataFrame(rows), float_format="{:.3f}",
                 title="Section V-B: how much the positions of each group's shared links vary over the six queries")
    return ev


def engines_exchanged(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the two engines exchanged."""
    more, less = claim.params["engines"]
    return {"engines": [less, more]}


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
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
    """published_dir, when given, holds a published grid for some group; the grids of gammas x
    lams for every group fit in the time limit."""
    from rankbook import aggregation_formats
    from rankbook.ledger.paths import resolve_input_path

    groups = aggregation_formats.read_rankings_file(resolve_input_path(values["rankings_csv"], root))
    _published_files(values, root, list(groups))
    items = max(len(r) for g in groups.values() for r in g.values())
    within_time(_grid_time(values, len(groups), items), timeout,
                 f"the grids of {len(values['gammas'])} gammas x {len(values['lams'])} lams for "
                 f"{len(groups)} groups of up to {items} items", "give fewer gammas or lams")
