"""Paper A, Sections 6.4 and 6.5: Table 2's stability and sensitivity rows.

Everything the page ``stability_sensitivity`` computes lives here: the stability experiment of
Section 6.5 repeated over seeds (:func:`stability_runs`), its pass-rate curves
(:func:`pass_rate_figure`), the verdicts per metric (:func:`by_metric`), the swap properties of
Definitions 8 and 9 (:func:`swap_properties`), the clustering of the metrics by how they order
rankings (:func:`clusters`, shown beside Figure 1's groups), and one check per ledger claim:
the printed stability row (:func:`check_stability`), the metrics that do not use k
(:func:`check_flat`, true by definition), the printed sensitivity row
(:func:`check_sensitivity`) and Section 6.4's expectation per family of metrics
(:func:`check_families`).

Each check receives its claim's ledger entry: the paper's settings and the numbers of its rule
in ``claim.params``, the printed rows by ``claim.path("printed")`` (and the raw stability row by
``claim.path("raw")``), its errata by role. The ``perturb`` functions at the end serve the
mutation test of the ledger (``[claims.test]``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import pandas as pd

from rankbook.ledger import claims
from rankbook.ledger.limits import within_memory, within_time
from rankbook.ledger.names import display as label
from rankbook.ledger.names import evidence_text
from rankbook.papers.paper_a import tables as T

#: The groups of Figure 1 (right) of paper A, beside which the clusters are drawn.
GROUPS = T.FIGURE1_GROUPS

#: The two readings of Definition 9 (which pairs of disjoint equal-width swaps must differ).
SENSITIVITY_READINGS = {
    "forall": "every pair of disjoint equal-width swaps weighed differently",
    "exists": "some pair of disjoint equal-width swaps weighed differently",
}
#: The printed stability row has 34 symbols for 33 metrics: the two ways to match them.
ALIGNMENTS = {
    "left": "symbols matched to the metrics from the left (the last of the 34 printed symbols "
            "dropped)",
    "right": "symbols matched to the metrics from the right (the first of the 34 printed "
             "symbols dropped)",
}


def _span(lo, hi, fmt: str = "{}") -> str:
    """A range over seeds as the page writes it: one value when every seed gives the same."""
    a, b = fmt.format(lo), fmt.format(hi)
    return a if a == b else f"{a} to {b}"


def published_rows(printed, raw=None) -> dict:
    """The printed symbol rows of Table 2 (the file ``printed``), ``{property: Series(metric ->
    bool)}``, and, from the raw stability row (the file ``raw``), that row read from the right
    (``"stability_right"``)."""
    from rankbook import metrics

    names = list(metrics.NAMES)
    table = pd.read_csv(printed, comment="#")
    rows = {prop: g.set_index("metric")["published"].astype(bool).reindex(names)
            for prop, g in table.groupby("property")}
    if raw is not None:
        symbols = pd.read_csv(raw, comment="#")["published"].astype(bool).to_numpy()
        rows["stability_right"] = pd.Series(symbols[len(symbols) - len(names):], index=names)
    return rows


@dataclass
class StabilityRuns:
    """Section 6.5's experiment on several seeds: the curves and the verdicts per reading."""

    curves: pd.DataFrame
    verdicts: pd.DataFrame
    ks: list
    seeds: list
    n: int
    n_pairs: int
    threshold: float

    @property
    def names(self) -> list:
        return list(dict.fromkeys(self.verdicts["metric"]))

    def describe(self) -> str:
        return (f"{len(self.ks)} cut-offs $k$ from {self.ks[0]} to {self.ks[-1]}, {self.n_pairs} "
                f"pairs of $S_{{{self.n}}}$ on each of {claims.plural(len(self.seeds), 'seed')}; "
                "the figure draws the first seed.")


def stability_runs(*, n: int, n_pairs: int, threshold: float, k_step: int, n_seeds: int,
                   seed: int = 0, names: Sequence[str] | None = None) -> StabilityRuns:
    """Section 6.5's stability experiment on seeds ``seed .. seed + n_seeds - 1``
    (:func:`rankbook.papers.paper_a.tables.stability_over_seeds`): ``n_pairs`` pairs of S_n at
    the cut-offs of :func:`rankbook.papers.paper_a.tables.stability_ks` (``k_step``), a metric
    stable at a k when a share ``threshold`` of the pairs passes."""
    from rankbook import metrics

    names = list(names or metrics.NAMES)
    seeds = list(range(int(seed), int(seed) + int(n_seeds)))
    curves, verdicts = T.stability_over_seeds(names, n, seeds, n_pairs=n_pairs,
                                              threshold=threshold, k_step=k_step)
    return StabilityRuns(curves=curves, verdicts=verdicts, ks=T.stability_ks(n, k_step),
                         seeds=seeds, n=int(n), n_pairs=int(n_pairs), threshold=float(threshold))


def _runs_of(claim: claims.Claim, r: StabilityRuns | None, run_args: dict) -> StabilityRuns:
    """``r``, or the experiment at the given settings, the paper's (the ledger entry's) for
    the others."""
    if r is not None:
        return r
    known = ("n", "n_pairs", "threshold", "k_step", "n_seeds")
    unknown = set(run_args) - set(known) - {"seed", "names"}
    if unknown:
        raise ValueError(f"unknown settings {sorted(unknown)}; valid: {sorted(known)}, seed, names")
    settings = {key: run_args.get(key) if run_args.get(key) is not None else claim.params[key]
                for key in known}
    return stability_runs(**settings, seed=run_args.get("seed", 0), names=run_args.get("names"))


def pass_rate_figure(r: StabilityRuns) -> claims.Section:
    """The pass rate against k on the first seed, one panel per distinct curve."""
    from rankbook import plotting

    curves = r.curves[r.curves["seed"] == r.seeds[0]].drop(columns="seed")
    names = r.names
    fig, flat = plotting.curve_panels(curves, x="k", y="pass_rate", by="metric",
                                      labels={m: label(m) for m in names},
                                      reference=r.threshold, ncols=4, logx=True,
                                      xlabel="cut-off k", ylabel="pass rate",
                                      band=("pass_low", "pass_high"))
    flat_text = "; ".join(f"{', '.join(ms)} at {v:g}" for v, ms in flat.items())
    part = claims.Section()
    part.add_table("stability_pass_rates", r.curves, show=False)
    if fig is not None:
        part.add_figure("stability_pass_rate", fig, caption=(
            f"Share of {r.n_pairs} random pairs of $S_{{{r.n}}}$ for which moving the cut-off "
            f"from $k$ to $k+1$ changes the metric by less than $1/k$ (pass rate), one panel per "
            "distinct curve; metrics with identical curves share a panel. The shaded band is the "
            "95% Wilson interval of each pass rate (pointwise: the same pairs serve every $k$). "
            f"The dashed line is the paper's {r.threshold:.1%} criterion. Not drawn, because "
            f"their pass rate is the same at every $k$: {flat_text or 'none'}."),
            alt=(f"{len(fig.axes)} small panels of pass rate against k on a log axis, one per "
                 "distinct curve with a shaded interval band, each with a dashed line at "
                 f"{r.threshold:.3f}. Metrics whose curve is flat are listed in the caption."))
    return part


def _first_seed_wide(r: StabilityRuns) -> pd.DataFrame:
    c = r.curves[r.curves["seed"] == r.seeds[0]]
    return c.pivot(index="metric", columns="k", values="pass_rate").reindex(r.names)


def by_metric(r: StabilityRuns, published: pd.Series) -> claims.Section:
    """Per metric on the first seed: the printed symbol (``published``, metric -> bool), the
    verdict at k about n/4, the range of k where it is stable, and two readings that fix no k."""
    from rankbook import properties

    wide = _first_seed_wide(r)
    stable = wide >= r.threshold
    k_star = min(r.ks, key=lambda k: abs(k - properties.default_k(r.n)))
    names = r.names
    table = pd.DataFrame({
        "metric": [label(m) for m in names],
        "published": [bool(published[m]) for m in names],
        f"stable at k = {k_star}": stable[k_star].to_numpy(),
        "stable at every k": stable.all(axis=1).to_numpy(),
        "share of k where stable": stable.mean(axis=1).round(3).to_numpy(),
        "pooled pass rate": wide.mean(axis=1).round(4).to_numpy(),
        "first k where unstable": [str(next((k for k in r.ks if not stable.loc[m, k]), "never"))
                                   for m in names]})
    table["stable pooled"] = table["pooled pass rate"] >= r.threshold
    part = claims.Section()
    part.add_table("stability_by_metric", table,
                   title=f"Stability with eps_k = 1/k on {r.n_pairs} pairs of S_{r.n}, per metric")
    return part


def check_stability(claim: claims.Claim, r: StabilityRuns | None = None, *,
                    published: pd.Series | dict | None = None,
                    published_right: pd.Series | None = None, **run_args) -> claims.Evidence:
    """Table 2's printed stability row against Section 6.5's experiment (``r``, or run here at
    ``run_args``: ``n``, ``n_pairs``, ``threshold``, ``k_step``, ``n_seeds``, ``seed``, the
    paper's from the ledger entry where not given).

    The verdict reading is the one the text describes (mean change over the pairs first, then
    the share of k where it is below 1/k), with the printed symbols matched to the metrics from
    the left; the count is the median over seeds. The other readings and the other alignment
    are shown beside it. ``published`` and ``published_right`` override the printed row (the
    mutation test)."""
    r = _runs_of(claim, r, run_args)
    rows = published_rows(claim.path("printed"), claim.path("raw"))
    names = r.names
    left = pd.Series(published if published is not None else rows["stability"]).reindex(names)
    right = (rows["stability_right"] if published_right is None else published_right)
    left, right = left.astype(bool), right.reindex(names).astype(bool)
    by_seed = T.stability_row_counts(r.verdicts, left)
    by_seed_right = T.stability_row_counts(r.verdicts, right)
    counts = by_seed["text"].tolist()
    matched = claims.median_count(counts)
    total = len(names)
    share = r.verdicts.groupby("metric")["text"].mean().reindex(names)
    text_stable = share >= 0.5
    wrong = [m for m in names if bool(text_stable[m]) != bool(left[m])]
    # the best single k on the first seed (chosen to fit: an upper bound, not a verdict)
    stable = _first_seed_wide(r) >= r.threshold
    agree_by_k = pd.Series({k: int((stable[k].to_numpy() == left.to_numpy()).sum())
                            for k in r.ks})
    best = int(agree_by_k.max())
    best_ks = [int(k) for k in agree_by_k.index[agree_by_k == best]]
    impossible = [(a, b) for a in names for b in names if left[a] and not left[b]
                  and not any(stable.loc[a, k] and not stable.loc[b, k] for k in r.ks)]
    seed_rows = []
    for key, words in T.STABILITY_READINGS.items():
        for align, t in (("left", by_seed), ("right", by_seed_right)):
            c = t[key]
            seed_rows.append({"reading": words, "symbols matched": ALIGNMENTS[align],
                              f"median agree (of {total})": claims.median_count(c),
                              "range over seeds": f"{c.min()}–{c.max()}"})
    statuses = {claims.grade("exact", c, total) for c in counts}
    borderline = ""
    if len(statuses) > 1:
        same = sum(claims.grade("exact", c, total) == claims.grade("exact", matched, total)
                   for c in counts)
        borderline = (f"the seeds disagree on the status: the median's status on "
                      f"{claims.seeds_phrase(same, len(counts))}")
    paper = (published is None and published_right is None and r.n == int(claim.params["n"])
             and r.threshold == float(claim.params["threshold"]))
    findings = []
    if matched < total and paper and claim.has_finding("row"):
        findings.append(claim.finding("row", evidence="\n".join([
            f"the text's reading: {matched} of {total} printed symbols agree (median over "
            f"{claims.plural(len(counts), 'seed')}, {_span(min(counts), max(counts))}); "
            "unexplained: "
            + ", ".join(label(m) for m in wrong),
            f"matched from the right: {claims.median_count(by_seed_right['text'])} of {total}",
            f"Definition 10 per pair at one k: at most {best} agree on the first seed, at "
            + (f"k = {best_ks[0]}" if len(best_ks) == 1 else
               f"{len(best_ks)} values of k from {best_ks[0]} to {best_ks[-1]}"),
            f"{len(impossible)} printed pairs (one metric stable, another not) occur at no k of "
            "the grid, e.g. " + "; ".join(f"{label(a)} stable but {label(b)} not"
                                          for a, b in impossible[:3])]),
            readings=[T.STABILITY_READINGS["text"], ALIGNMENTS["left"]],
            under={T.STABILITY_READINGS["text"]: f"{matched} of {total} agree",
                   "Definition 10 per pair, at one k": f"at most {best} of {total} agree"}))
    summary = (f"Under the text's reading a median of **{matched} of {total}** printed symbols "
               f"agree over {claims.plural(len(counts), 'seed')} "
               f"({_span(min(counts), max(counts))}); "
               f"it leaves {', '.join(label(m) for m in wrong) or 'none'} unexplained. Under the "
               f"per-$k$ reading at most {best} agree at any single $k$, and "
               f"{len(impossible)} printed pairs (one metric stable, another not) occur at no $k$ "
               "of the grid" + (", for example " + "; ".join(
                   f"{label(a)} stable but {label(b)} not" for a, b in impossible[:4])
                   if impossible else "") + ".")
    return claim.evidence(
        comparison="exact", published=f"{int(left.astype(bool).sum())} ✓ of {total}",
        reproduced=(f"{matched} of {total} agree under the text's reading (median over "
                    f"{claims.plural(len(counts), 'seed')})"),
        matched=matched, total=total, unit="symbols", per_seed=counts if len(counts) > 1 else None,
        reading=T.STABILITY_READINGS["text"] + "; " + ALIGNMENTS["left"],
        alternatives={**{T.STABILITY_READINGS[k]: claims.median_count(by_seed[k])
                         for k in ("single_k", "every_k", "pooled")},
                      "the text's reading, " + ALIGNMENTS["right"]:
                          claims.median_count(by_seed_right["text"])},
        borderline=borderline,
        detail=(f"{r.n_pairs} pairs of $S_{{{r.n}}}$ on {claims.plural(len(counts), 'seed')}; no "
                f"single k does better than {best}, even with k chosen to fit the row"),
        findings=findings,
        tables={"readings": pd.DataFrame(seed_rows)}, values={"summary": summary, "published": left})


def check_flat(claim: claims.Claim, r: StabilityRuns | None = None, **run_args) -> claims.Evidence:
    """Section 6.5's last sentence: the metrics that do not use k (the error-based ones among
    them) satisfy Definition 10 in every case. True by definition: such a metric has the same
    value at k and k + 1, so its change is 0, below every bound. The table shows, for each of
    them, the smallest pass rate over every cut-off and seed of the experiment ``r`` (or run
    here at ``run_args``, the paper's settings from the ledger entry where not given)."""
    from rankbook import metrics

    r = _runs_of(claim, r, run_args)
    flat = [m for m in r.names if not metrics.REGISTRY[m].needs_k]
    low = r.curves[r.curves["metric"].isin(flat)].groupby("metric")["pass_rate"].min()
    table = pd.DataFrame({"metric": [label(m) for m in flat],
                          "family": [metrics.REGISTRY[m].family for m in flat],
                          "smallest pass rate (every k and seed)": [float(low[m]) for m in flat]})
    ev = claim.evidence(
        comparison="definition", published="Definition 10 holds in every case",
        reproduced=(f"{len(flat)} metrics do not use k: their change from k to k + 1 is 0; the "
                    f"smallest pass rate among them is {float(low.min()):g}"),
        detail=f"{r.n_pairs} pairs of $S_{{{r.n}}}$ on {claims.plural(len(r.seeds), 'seed')}")
    ev.add_table("stability_flat_metrics", table, float_format="{:g}", title=(
        "The metrics that do not use k: their smallest pass rate over every cut-off and seed"))
    return ev


def swap_properties(n: int, k: int, *, printed=None, sensitivity: Callable | None = None,
                    names: Sequence[str] | None = None) -> pd.DataFrame:
    """Width-swap dependency and sensitivity of every metric, exhaustively on the
    transpositions of S_n against the identity (k for the metrics that need it), beside the
    printed symbols of Table 2 when ``printed`` (its file) is given."""
    from rankbook import metrics, properties

    sensitivity = sensitivity or properties.sensitivity
    published = published_rows(printed) if printed is not None else None
    rows = []
    for m in names or metrics.NAMES:
        kk = k if metrics.REGISTRY[m].needs_k else None
        w = properties.width_swap_dependency(m, n, k=kk)
        s = sensitivity(m, n, k=kk)
        row = {"metric": label(m), "family": metrics.REGISTRY[m].family}
        if published is not None:
            row["WSD published"] = bool(published["width_swap_dependency"][m])
        row["WSD"] = bool(w.holds)
        if published is not None:
            row["sensitivity published"] = bool(published["sensitivity"][m])
        rows.append({**row, "sensitive (some pair)": bool(s.exists),
                     "sensitive (every pair)": bool(s.forall),
                     "example": evidence_text(w.evidence).split("; ")[-1]})
    return pd.DataFrame(rows)


def check_sensitivity(claim: claims.Claim, swaps: pd.DataFrame | None = None, *,
                      n_sensitivity: int | None = None, k_sensitivity: int | None = None,
                      sensitivity: Callable | None = None,
                      names: Sequence[str] | None = None) -> claims.Evidence:
    """Table 2's printed sensitivity row (no metric is sensitive) against an exhaustive check
    of Definition 9 on S_n (``n_sensitivity``, k = ``k_sensitivity``; the ledger entry's
    ``n`` and ``k`` when not given), under both of its readings; the verdict uses "every pair"
    (the default of :func:`rankbook.properties.sensitivity`). ``sensitivity`` replaces the
    library's check (the mutation test)."""
    n = int(n_sensitivity or claim.params["n"])
    k = int(k_sensitivity or claim.params["k"])
    if swaps is None:
        swaps = swap_properties(n, k, printed=claim.path("printed"), sensitivity=sensitivity,
                                names=names)
    total = len(swaps)
    pub = swaps["sensitivity published"]
    agree_forall = int((swaps["sensitive (every pair)"] == pub).sum())
    agree_exists = int((swaps["sensitive (some pair)"] == pub).sum())
    agree_wsd = int((swaps["WSD"] == swaps["WSD published"]).sum())
    forall = list(swaps.loc[swaps["sensitive (every pair)"], "metric"])
    exists = list(swaps.loc[swaps["sensitive (some pair)"], "metric"])
    findings = []
    paper = sensitivity is None and names is None and n == int(claim.params["n"])
    if agree_forall < total and paper and claim.has_finding("row"):
        findings.append(claim.finding("row", evidence="\n".join([
            f"every transposition of S_{n} against the identity (k = {k})",
            "sensitive when every pair of disjoint equal-width swaps is weighed differently: "
            + (", ".join(forall) or "none"),
            "sensitive when some pair is: " + (", ".join(exists) or "none")])))
    summary = (f"Printed sensitivity symbols reproduced: **{agree_exists} of {total}** when some "
               f"pair of swaps must differ, **{agree_forall} of {total}** when every pair must; "
               f"width-swap dependency: {agree_wsd} of {total}. Sensitive when every pair must "
               f"differ: {', '.join(forall) or 'none'}.")
    return claim.evidence(
        comparison="exact", published=f"{int(pub.astype(bool).sum())} ✓ of {total}",
        reproduced=f"{len(forall)} ✓ of {total}",
        matched=agree_forall, total=total, unit="symbols",
        reading=SENSITIVITY_READINGS["forall"] + " (the book's default)",
        alternatives={SENSITIVITY_READINGS["exists"]: agree_exists},
        detail=(f"every transposition of $S_{{{n}}}$ against the identity; sensitive "
                f"when every pair must differ: {', '.join(forall) or 'none'}"),
        findings=findings, tables={"swaps": swaps}, values={"summary": summary})


#: Section 6.4's expectation per family of Table 1: whether its metrics are sensitive.
FAMILY_EXPECTATIONS = {
    "confusion": (False, "confusion-matrix metrics ignore the order on each side of the cut-off"),
    "cumulative_gain": (True, "cumulative-gain metrics are sensitive to positional changes"),
    "correlation": (False, "correlation-based metrics, flat, weigh the order before and after "
                           "any index alike"),
    "error": (False, "error-based metrics, flat, weigh the order before and after any index "
                     "alike"),
}


def check_families(claim: claims.Claim, swaps: pd.DataFrame | None = None, *,
                   n_sensitivity: int | None = None, k_sensitivity: int | None = None,
                   sensitivity: Callable | None = None,
                   names: Sequence[str] | None = None) -> claims.Evidence:
    """Section 6.4's expectation of which families of metrics are sensitive
    (:data:`FAMILY_EXPECTATIONS`), against the exhaustive check of Definition 9 on S_n (the
    ledger entry's ``n`` and ``k`` when not given); one statement per family, under the
    "every pair" reading (the "some pair" count beside it). The error family's failure is the
    erratum of role ``errors``."""
    n = int(n_sensitivity or claim.params["n"])
    k = int(k_sensitivity or claim.params["k"])
    if swaps is None:
        swaps = swap_properties(n, k, sensitivity=sensitivity, names=names)
    rows, alt = [], 0
    for fam, (expected, words) in FAMILY_EXPECTATIONS.items():
        g = swaps[swaps["family"] == fam]
        if g.empty:
            continue
        off = g[g["sensitive (every pair)"] != expected]
        alt += int((g["sensitive (some pair)"] == expected).all())
        rows.append({"statement": words, "holds": off.empty,
                     "metrics against it": ", ".join(off["metric"])})
    t = pd.DataFrame(rows)
    total, matched = len(t), int(t["holds"].sum())
    findings = []
    error_off = t[(~t["holds"]) & t["statement"].eq(FAMILY_EXPECTATIONS["error"][1])]
    paper = sensitivity is None and names is None and n == int(claim.params["n"])
    if len(error_off) and paper and claim.has_finding("errors"):
        findings.append(claim.finding("errors", evidence=(
            f"every transposition of S_{n} against the identity: sensitive (every "
            f"pair of disjoint equal-width swaps weighed differently): "
            + error_off["metrics against it"].iloc[0])))
    return claim.evidence(
        comparison="claim", published=f"{total} statements",
        reproduced=f"{matched} of {total} statements hold on every transposition of "
                   f"$S_{{{n}}}$",
        matched=matched, total=total, unit="statements",
        failures=[f"{st} (against it: {who})" for st, who in
                  zip(t.loc[~t["holds"], "statement"], t.loc[~t["holds"], "metrics against it"])]
        or None,
        reading=SENSITIVITY_READINGS["forall"],
        alternatives={SENSITIVITY_READINGS["exists"]: alt},
        detail=f"k = {k} for the metrics that need it",
        findings=findings, tables={"families": t})


def clusters(*, n: int, n_pairs: int, seeds: Sequence[int] = (0,),
             names: Sequence[str] | None = None, k_share: float = 0.3) -> claims.Section:
    """The metrics clustered by how they order a random sample of rankings, against the groups
    of Figure 1 (right): a dendrogram and three tables, on each seed (shown, not graded: the
    verdict on Section 5.1's sentence is checked on the Figure 1 page). ``k_share`` n items are
    relevant, Figure 1's share."""
    from rankbook import clustering, metrics, plotting

    names = list(names or metrics.NAMES)
    k = max(1, round(k_share * n))
    runs = [clustering.cluster_metrics(names, n, n_pairs, k=k, seed=int(s),
                                       n_clusters=len(GROUPS)) for s in seeds]
    tree = runs[0]
    labels = {m: label(m) for m in names}
    part = claims.Section()
    fig = plotting.metric_dendrogram(tree.linkage, names, labels=labels, groups=GROUPS,
                                     cut=tree.cut_height(), legend_title="Figure 1 (right)",
                                     xlabel="share of sample pairs ordered differently")
    part.add_figure("metric_clusters", fig, caption=(
        f"The {len(names)} metrics clustered by how they order {n_pairs} random rankings of "
        f"$S_{{{n}}}$ (closest to the identity first, $k = {k}$): average linkage of the Kendall "
        "distance between the orders. Leaf labels are coloured by the group of paper A's "
        f"Figure 1 (right); the dashed line cuts the tree into {len(GROUPS)} clusters."),
        alt=(f"A horizontal dendrogram with {len(names)} leaves, one per metric, labels coloured "
             f"by the paper's three groups; a dashed vertical line at distance "
             f"{tree.cut_height():.2f} cuts it into {len(GROUPS)} clusters."))
    paper = clustering.group_labels(GROUPS, names)
    table = clustering.contingency_table(tree.labels, paper)[list(GROUPS)]
    table.insert(0, "members", [", ".join(labels[m] for m in tree.labels.index[tree.labels == c])
                                for c in table.index])
    table.index = pd.Index([f"cluster {c}" for c in table.index], name="cluster")
    part.add_table("metric_clusters_vs_figure1", table, index=True,
                   title=f"The {len(GROUPS)} clusters (rows) against the groups of Figure 1 "
                         "(right) (columns): number of metrics in each")
    ari_col = f"adjusted Rand index, {len(GROUPS)} clusters"
    per_seed = pd.DataFrame([{
        "seed": x.seed, **{f"{g} is a branch": x.is_branch(ms) for g, ms in GROUPS.items()},
        ari_col: round(clustering.adjusted_rand_index(x.labels, paper), 3)} for x in runs])
    part.add_table("metric_clusters_by_seed", per_seed,
                   title=f"The comparison on {len(runs)} samples of {n_pairs} rankings of S_{n}")
    part.add_table("metric_clusters_by_cut", pd.DataFrame([{
        "clusters": c,
        "adjusted Rand index": round(clustering.adjusted_rand_index(tree.labels_at(c), paper), 3),
        "groups of Figure 1 that are one cluster":
            sum(clustering.recovered_groups(tree.labels_at(c), GROUPS).values())}
        for c in range(2, 9)]),
        title=f"The tree of seed {tree.seed} cut into 2 to 8 clusters, against Figure 1 (right)")
    branch = {g: int(per_seed[f"{g} is a branch"].sum()) for g in GROUPS}
    held = [g for g in GROUPS if 2 * branch[g] > len(runs)]
    ari = per_seed[ari_col]
    part.say(
        f"{len(held)} of the paper's {len(GROUPS)} groups "
        + (f"({', '.join(held)}) " if held else "")
        + f"{'is a branch' if len(held) == 1 else 'are branches'} of this tree on most of the "
        f"{len(runs)} samples (" + ", ".join(f"{g} on {branch[g]}" for g in GROUPS) + "). Cut "
        f"into {len(GROUPS)} clusters, the tree of the first sample gives "
        + "; ".join("{" + ", ".join(labels[m] for m in c) + "}" for c in tree.clusters())
        + f"; the adjusted Rand index with Figure 1 (right) ranges from {ari.min():.2f} to "
        f"{ari.max():.2f}.")
    return part


# ----------------------------------------------------------------------------------------
# Faults of the mutation test (``perturb`` in the ledger's [claims.test])
# ----------------------------------------------------------------------------------------
def _fixed_sensitivity(which: Callable[[str], bool]) -> Callable:
    """A deliberately wrong implementation of :func:`rankbook.properties.sensitivity`: the
    metrics for which ``which`` is true are sensitive under both readings, the others not."""
    from types import SimpleNamespace

    def fake(metric, n, *, k=None, **_):
        hit = bool(which(metric))
        return SimpleNamespace(exists=hit, forall=hit)

    return fake


def only_gain_sensitive(claim: claims.Claim, **_) -> dict:
    """Only DCG and nDCG sensitive, as Section 6.4 expects."""
    return {"sensitivity": _fixed_sensitivity(lambda m: m in ("dcg", "ndcg"))}


def never_sensitive(claim: claims.Claim, **_) -> dict:
    """No metric sensitive."""
    return {"sensitivity": _fixed_sensitivity(lambda m: False)}


def always_sensitive(claim: claims.Claim, **_) -> dict:
    """Every metric sensitive."""
    return {"sensitivity": _fixed_sensitivity(lambda m: True)}


def all_stable(claim: claims.Claim, **_) -> dict:
    """A printed row that marks every metric stable."""
    from rankbook import metrics

    return {"published": {m: True for m in metrics.NAMES}}


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
def limits(values: dict, root, timeout: float) -> None:
    """n x n_pairs x the cut-offs x n_seeds (the stability curves and the clustering) fit in
    memory and in a cell's time limit."""
    n, n_pairs, n_seeds = values["n"], values["n_pairs"], values["n_seeds"]
    ks = len(T.stability_ks(n, values["k_step"]))
    # measured (tests/extremes.py in process, peak resident memory): about 70 bytes per pair
    # and item for the rankings and the clustering, about 370 per pair and cut-off for the
    # curves of the 33 metrics; time per seed about 1.5 us per pair and item and 6 us per pair
    # and cut-off
    need = 96 * n * n_pairs + 512 * n_pairs * ks
    within_memory(need, f"n = {n} items x n_pairs = {n_pairs} pairs at {ks} cut-offs "
                   f"(k_step = {values['k_step']})",
                   "lower n or n_pairs, or raise k_step (fewer cut-offs)")
    seconds = n_seeds * (3e-6 * n * n_pairs + 1.2e-5 * n_pairs * ks)
    within_time(seconds, timeout, f"the stability curves on n_seeds = {n_seeds} seeds of "
                 f"n_pairs = {n_pairs} pairs of S_{n} at {ks} cut-offs",
                 "lower n_seeds, n_pairs or n, or raise k_step")
