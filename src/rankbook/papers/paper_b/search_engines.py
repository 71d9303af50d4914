"""Paper B, Section V-B: Table VI, Figure 4 and the conclusions drawn from them; the logic of
the page ``consensus_search_engines``.

The top-25 lists (Table V) are read from ``data/rankings``, the published grids and the
numbers the text states from ``data/published/paper_b``. Each ``check_*`` returns the
Evidence of one ledger claim with its published values injectable (:data:`CHECKS`).
"""

from __future__ import annotations

import pandas as pd

from rankbook import aggregation_formats, consensus
from rankbook.ledger import claims
from rankbook.ledger.paths import data_path

from .common import (TABLE_V, Section, add_table, agreement, check_grid, curves, decline, grids, say, spread_finding,
                     stated_values)
from rankbook.ledger.limits import within_memory, within_time

__all__ = ["load", "counts", "check_table_vi", "figure_4", "check_figure_4", "crossing", "CHECKS", "GRID"]

#: The γ and λ of Table VI.
GRID = (1.0, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45)
ENGINES = ("Google", "Bing")


def _paper_sets() -> dict:
    groups = consensus.read_rankings_csv(data_path(*TABLE_V.split("/")))
    return {g: list(named.values()) for g, named in groups.items()}


def load(rankings_csv: str, *, resolve=None) -> Section:
    """The groups of rankings (one per engine); ``values``: ``sets``, ``labels``,
    ``is_paper``."""
    groups = aggregation_formats.read_rankings_file(resolve(rankings_csv) if resolve else rankings_csv)
    sets = {g: list(named.values()) for g, named in groups.items()}
    out = Section(values={"sets": sets, "labels": {g: f"its {len(R)} rankings" for g, R in sets.items()},
                          "is_paper": rankings_csv == TABLE_V})
    add_table(out, "search_rankings", pd.DataFrame([{"group": g, "name": n, "ranking": consensus.format_ranking(r)}
                                                    for g, named in groups.items() for n, r in named.items()]),
              title="The rankings of each group (Table V: top-25 link ids)")
    return out


def counts(sets: dict) -> Section:
    """The items all rankings of a group share and their plain counts."""
    rows = []
    for g, R in sets.items():
        graph = consensus.consensus_graph(R)
        rows.append({"group": g, "rankings": len(R), "common items": ", ".join(map(str, graph.items)),
                     "kappa": consensus.kappa(R), "kappa_p (p = 1, 2, ...)": ", ".join(f"{x:g}" for x in consensus.kappa_p(R)),
                     "longest common subsequence": graph.longest})
    out = Section()
    add_table(out, "search_counts", pd.DataFrame(rows), float_format="{:g}",
              title="Items common to all rankings of each group and their common subsequences (gamma = lambda = 1)")
    return out


def _published_vi():
    return {g: consensus.read_published_grid(data_path("published", "paper_b", f"table_vi_{g.lower()}.csv")) for g in ENGINES}


def check_table_vi(gammas=GRID, lams=GRID, deviation: str = "std", *, published_grids=None,
                   table_stem: str = "table_vi") -> claims.Evidence:
    """B-TVI: every printed cell of Table VI against κ of each engine's six lists.
    ``values["confirms"]`` holds the finding B-E6 (owned by Table IV's claim), which this page
    confirms too (:func:`rankbook.ledger.claims.confirm`)."""
    ev = check_grid("B-TVI", _paper_sets(), published_grids or _published_vi(), list(gammas), list(lams), deviation,
                    "Table VI", table_stem)
    finding = spread_finding(ev.values["readings"], "Table VI")
    ev.values["confirms"] = [finding] if finding is not None and ev.status == "holds" else []
    return ev


def figure_4(sets: dict, gammas, lams, deviation: str = "std") -> Section:
    """The curves of Figure 4 and their declines."""
    return curves(sets, gammas, lams, deviation, "figure_4_kappa_p")


def crossing(sets: dict, deviation: str = "std") -> float:
    """The γ at which Google's and Bing's κ_1 curves cross (κ_1 = Σ γ^d over the common
    items), or nan when they do not cross in (0.05, 1)."""
    from scipy.optimize import brentq

    d = {g: consensus.consensus_graph(sets[g], deviation=deviation).spread for g in ENGINES}
    diff = lambda x: float((x ** d["Google"]).sum() - (x ** d["Bing"]).sum())
    return brentq(diff, 0.05, 0.9999, xtol=1e-10) if diff(0.05) * diff(0.9999) < 0 else float("nan")


def check_figure_4(gammas=GRID, lams=GRID, deviation: str = "std", *, stated=None,
                   margin: float = 0.005) -> claims.Evidence:
    """B-F4: the six statements Section V-B draws from Table VI and Figure 4, on the
    recomputed grids and curves. The γ threshold holds when the crossing of the two κ_1 curves
    is at or above it, less ``margin`` (half a unit of its printed two decimals); within
    ``margin`` of it the result is borderline. Finding B-E9 when it fails."""
    stated = stated_values("section_v_b_statements.csv") if stated is None else stated
    links = {g: float(stated[f"common links {g.lower()}"]) for g in ("Bing", "Google")}
    threshold = float(stated["gamma threshold google kappa_1 higher"])
    sets = _paper_sets()
    G, B = (consensus.kappa_grid(sets[g], list(gammas), list(lams), deviation=deviation).to_numpy() for g in ENGINES)
    sens = curves(sets, gammas, lams, deviation, "figure_4_kappa_p").values["sensitivity"]
    cur = curves(sets, gammas, lams, deviation, "figure_4_kappa_p").values["curves"]
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
    ev = claims.Evidence(
        claim="B-F4", comparison="claim", matched=int(table.holds.sum()), total=len(table), unit="statements",
        published=f"{len(table)} statements in the text",
        reproduced=f"the two $\\kappa_1$ curves cross at $\\gamma$ = {cross:.4f}",
        failures=[f"{s} ({c})" for s, ok, c in table.itertuples(index=False) if not ok],
        borderline=(f"the crossing, {cross:.4f}, lies within {margin:g} of the stated {threshold:g}" if near else ""),
        detail=f"each statement recomputed from the curves and the grids (the figure's own data points are not published); the γ threshold "
               f"is decided to half a unit of its printed precision ({margin:g})")
    add_table(ev, "search_claims", table, markdown=["claim"],
              title="The paper's conclusions from Table VI and Figure 4, recomputed")
    say(ev, f"The two $\\kappa_1$ curves cross at $\\gamma \\approx {cross:.4f}$: above it the group with more shared "
            f"links (Bing {k1['Bing']:g}, Google {k1['Google']:g}) has the larger $\\kappa_1$, below it the group whose "
            "shared links move less between queries does.")
    if cross < threshold - margin:
        at = {g: float(sum(threshold ** consensus.consensus_graph(sets[g], deviation=deviation).spread)) for g in ENGINES}
        pub = _published_vi()
        lines = [f"κ₁ at γ = {threshold:g}, recomputed: Google {at['Google']:.4f}, Bing {at['Bing']:.4f}",
                 f"the two κ₁ curves cross at γ = {cross:.4f}, {threshold - cross:.4f} below the stated {threshold:g} "
                 f"(more than half a unit of its printed precision, {margin:g})"]
        if all(threshold in p.index for p in pub.values()):
            pk = {g: float(pub[g].loc[threshold, "1"] - pub[g].loc[1.0, "1"] + k1[g]) for g in ENGINES}
            lines.insert(1, f"from the published Table VI (κ({threshold:g}, 1) − κ(1, 1) + κ₁(1)): Google "
                            f"{pk['Google']:.3f}, Bing {pk['Bing']:.3f}")
        ev.findings.append(claims.Finding(id="B-E9", evidence="\n".join(lines)))
    return ev


SMOKE = {"gammas": (1.0, 0.85, 0.5), "lams": (1.0, 0.45)}


def _moved_vi():
    pub = _published_vi()
    pub["Bing"] = pub["Bing"].copy()
    pub["Bing"].loc[0.5, pub["Bing"].columns[-1]] += 0.002  # a cell of the smoke grid (γ = 0.5, λ = 0.45)
    return pub


CHECKS = {
    "B-TVI": claims.Check(check_table_vi, smoke=SMOKE, mutants={
        "a printed cell moved by two rounding units": {"published_grids": _moved_vi()},
        "the spread of Eq. (13) (mean absolute deviation)": {"deviation": "mad"}}),
    "B-F4": claims.Check(check_figure_4, smoke=SMOKE, mutants={
        "the stated γ threshold moved below the crossing (0.8)": {
            "stated": stated_values("section_v_b_statements.csv").where(
                lambda s: s.index != "gamma threshold google kappa_1 higher", 0.8)}}),
}


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
