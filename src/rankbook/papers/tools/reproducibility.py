"""The page "Did it reproduce?": reproducibility measures on runs built with known perturbations.

The page builds an original pair of runs (a baseline and an advanced system) on simulated
topics, then reproductions of it with controlled perturbations, and measures each with
:func:`rankbook.repro.reproduce`. :func:`check_ktu` checks the ledger claim ``T-KTU`` (that
repro_eval's KTU is Kendall's tau over the union of the two runs' documents) against
:func:`rankbook.repro.ktu`; :func:`core17_reference` reads the values repro_eval's README
prints for the TREC Common Core 2017 runs (the runs are not distributed), and
:func:`core17_against_appendix` sets them beside the per-topic scores of the appendix of Breuer
et al. 2020, which cover the same runs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankbook import repro
from rankbook.ledger import claims
from rankbook.ledger.paths import data_path, project_root

from rankbook.ledger.claims import Section

__all__ = ["build_runs", "SCENARIOS", "measure_all", "rbo_depths", "check_ktu", "ktu_cases",
           "core17_reference", "core17_against_appendix", "plane_figure", "CHECKS"]

#: The reproductions the page builds, in the order shown, with what each changes.
SCENARIOS = {
    "exact rerun": "the same runs",
    "shifted score scale": "every score times the scale plus the offset: the same order",
    "swapped neighbours": "every pair of neighbours at ranks 1-2, 5-6, 9-10, ... swapped",
    "renamed documents": "swapped neighbours, with every document of the experiment renamed "
                         "(original runs and qrels too)",
    "truncated lists": "the last documents of every list cut",
    "noisy rerun": "Gaussian noise added to every score",
    "other topics": "the same systems on other topics (replicability, other qrels)",
}


def _names(rng, n):
    """Document names in random alphabetical order (real ids do not sort in rank order)."""
    return [f"doc-{x:05x}" for x in rng.choice(16 ** 5, size=n, replace=False)]


def _collection(rng, n_topics, n_docs, first_topic):
    qrels, docs = {}, {}
    for t in range(first_topic, first_topic + n_topics):
        names = _names(rng, n_docs + n_docs // 2)  # a pool larger than the lists
        rel = rng.choice([0, 0, 0, 1, 2], size=len(names))
        if t == first_topic:
            rel[:] = 0  # a topic without relevant documents
        qrels[str(t)] = dict(zip(names, rel.tolist()))
        docs[str(t)] = names
    return qrels, docs


def _system(rng, qrels, n_docs, boost):
    """Scores: relevance times ``boost`` plus noise; each topic keeps its best ``n_docs``."""
    run = {}
    for t, judged in qrels.items():
        s = {d: float(r * boost + rng.normal(0, 1)) for d, r in judged.items()}
        run[t] = dict(sorted(s.items(), key=lambda kv: -kv[1])[:n_docs])
    return run


def build_runs(n_topics: int = 12, n_docs: int = 20, *, noise: float = 0.3, truncate: int = 5,
               scale: float = 2.0, offset: float = 1.0, seed: int = 0) -> dict:
    """The original pair and every reproduction of :data:`SCENARIOS`.

    Returns
    -------
    dict
        ``{"qrels": ..., "original": (baseline, advanced), scenario: (baseline, advanced,
        qrels, qrels_rep or None)}``; runs as ``{topic: {doc: score}}``.

    Examples
    --------
    >>> runs = build_runs(4, 6, seed=1)
    >>> sorted(runs) == sorted(["qrels", "original", *SCENARIOS])
    True
    """
    if not (0 <= truncate < n_docs):
        raise ValueError(f"truncate must lie in 0..n_docs-1 = {n_docs - 1}, got {truncate}")
    rng = np.random.default_rng(seed)
    qrels, _ = _collection(rng, n_topics, n_docs, 1)
    ob, oa = _system(rng, qrels, n_docs, 0.6), _system(rng, qrels, n_docs, 1.4)
    out = {"qrels": qrels, "original": (ob, oa)}

    def each(f, runs=(ob, oa)):
        return tuple({t: f(dict(d)) for t, d in r.items()} for r in runs)

    out["exact rerun"] = (*each(lambda d: d), qrels, None)
    out["shifted score scale"] = (*each(lambda d: {k: scale * v + offset for k, v in d.items()}),
                                  qrels, None)
    def swap(d):
        items = list(d.items())
        for i in range(0, len(items) - 1, 4):
            (a, sa), (b, sb) = items[i], items[i + 1]
            items[i], items[i + 1] = (a, sb), (b, sa)
        return dict(items)

    out["swapped neighbours"] = (*each(swap), qrels, None)
    ren = {d: f"renamed-{x:05x}" for t in qrels for d, x in
           zip(qrels[t], rng.choice(16 ** 5, size=len(qrels[t]), replace=False))}
    out["renamed documents"] = (
        *({t: {ren[k]: v for k, v in swap(d).items()} for t, d in r.items()} for r in (ob, oa)),
        {t: {ren[k]: v for k, v in j.items()} for t, j in qrels.items()}, "renamed")
    out["truncated lists"] = (*each(lambda d: dict(list(d.items())[:n_docs - truncate])),
                              qrels, None)
    out["noisy rerun"] = (*each(lambda d: {k: v + float(rng.normal(0, noise))
                                           for k, v in d.items()}), qrels, None)
    other, _ = _collection(rng, n_topics, n_docs, 1001)
    out["other topics"] = (_system(rng, other, n_docs, 0.6), _system(rng, other, n_docs, 1.4),
                           qrels, other)
    return out


def _fmt(v, lo, hi):
    if np.isnan(v):
        return "–"
    if np.isnan(lo) or np.isnan(hi):
        return f"{v:.3f} [undefined]"
    return f"{v:.3f} [{lo:.3f}, {hi:.3f}]"


def measure_all(runs: dict, measures, *, convention: str = "trec_eval", rbo_p: float = 0.95,
                confidence: float = 0.95, n_resamples: int = 2000, seed: int = 0) -> Section:
    """Every measure of every reproduction with its interval: one table, one row per
    scenario, one column per statistic (baseline and advanced run side by side).

    ``values["results"]`` holds each scenario's :class:`rankbook.repro.Reproduction`.
    """
    ob, oa = runs["original"]
    results, rows, tidy = {}, [], []
    for name in SCENARIOS:
        rb, ra, qrels, other = runs[name]
        renamed = other == "renamed"
        qr = None if (other is None or renamed) else other
        o_b, o_a = ob, oa
        q_orig = runs["qrels"]
        if renamed:  # the original pair under the new names: the same experiment renamed
            ren = _renaming(runs["qrels"], qrels)
            o_b, o_a = ({t: {ren[t][k]: v for k, v in d.items()} for t, d in r.items()}
                        for r in (ob, oa))
            q_orig = qrels
        res = repro.reproduce(o_b, o_a, rb, ra, q_orig, qrels_rep=qr, measures=measures,
                              convention=convention, rbo_p=rbo_p, confidence=confidence,
                              n_resamples=n_resamples, seed=seed)
        results[name] = res
        tidy += _tidy_rows(name, res, o_b, o_a, rb, ra, paired=qr is None)
        row = {"reproduction": name, "what changes": SCENARIOS[name],
               "KTU as repro_eval computes it (B)": _tool_ktu_mean(o_b, rb) if qr is None else "–"}
        for r in res.aggregate.itertuples():
            if r.statistic in ("mean (original)",):
                continue
            who = {"baseline": "B", "advanced": "A"}.get(r.system, "")
            key = f"{r.statistic.replace(' mean', '')} {r.measure if r.level != 'order' else ''}"
            key = " ".join(key.split()) + (f" ({who})" if who else "")
            row[key] = _fmt(r.value, r.low, r.high)
        rows.append(row)
    table = pd.DataFrame(rows).fillna("–").set_index("reproduction").drop(columns="what changes")
    table = table.T.rename_axis("measure").reset_index()
    return Section(tables={"all_measures": table, "measures_tidy": pd.DataFrame(tidy)},
                   values={"results": results,
                           "show": {"all_measures": dict(title=(
                               f"Every measure of every reproduction, with its "
                               f"{confidence:.0%} bootstrap interval over topics "
                               "(B: baseline, A: advanced run; one column per reproduction)")),
                                    "measures_tidy": dict(show=False)},
                           "scenarios": pd.DataFrame(list(SCENARIOS.items()),
                                                     columns=["reproduction", "what changes"])})


#: The reader's names of the order measures in the tidy table (the explorer's lines).
ORDER_NAMES = {"KTU": "KTU over the union", "RBO": "RBO"}
TOOL_KTU = "KTU as repro_eval computes it"


def _tidy_rows(name, res, o_b, o_a, rb, ra, *, paired: bool) -> list[dict]:
    """One row per system and measure of one reproduction, numbers only (the explorer's table):
    the order measures, repro_eval's KTU (mean over topics; empty where it refuses lists of
    unequal length) and the RMSE of each effectiveness measure, each with its interval."""
    rows = []
    agg = res.aggregate
    for system, orig, rep in (("baseline", o_b, rb), ("advanced", o_a, ra)):
        mine = agg[agg["system"] == system]
        for r in mine[mine["level"] == "order"].itertuples():
            rows.append({"reproduction": name, "system": system,
                         "measure": ORDER_NAMES.get(r.measure, r.measure),
                         "value": r.value, "low": r.low, "high": r.high})
        if paired:
            rows.append({"reproduction": name, "system": system, "measure": TOOL_KTU,
                         "value": _tool_ktu_or_nan(orig, rep), "low": np.nan, "high": np.nan})
        for r in mine[mine["statistic"] == "RMSE"].itertuples():
            rows.append({"reproduction": name, "system": system, "measure": f"RMSE of {r.measure}",
                         "value": r.value, "low": r.low, "high": r.high})
    return rows


def _tool_ktu(orig, rep) -> float:
    """Mean of repro_eval's KTU over topics; ValueError where it refuses (lists of unequal
    length)."""
    ro, rr = repro.rankings(orig), repro.rankings(rep)
    return float(np.nanmean([repro.ktu(ro[t], rr[t], convention="repro_eval") for t in ro]))


def _tool_ktu_or_nan(orig, rep) -> float:
    try:
        return _tool_ktu(orig, rep)
    except ValueError:
        return float("nan")


def _tool_ktu_mean(orig, rep) -> str:
    """Mean of repro_eval's KTU over topics, or why it is refused (lists of unequal length)."""
    try:
        return f"{_tool_ktu(orig, rep):.3f}"
    except ValueError:
        return "refused: lists of unequal length"


def _renaming(qrels_old, qrels_new):
    """Map each topic's old document names to the new ones (same order of judgements)."""
    return {t: dict(zip(qrels_old[t], qrels_new[t])) for t in qrels_old}


def rbo_depths(n_docs: int = 20, p: float = 0.95) -> Section:
    """RBO of a list against itself under each form: repro_eval's depth of 1000 runs past
    the end of short lists."""
    docs = [f"d{i}" for i in range(n_docs)]
    rows = [("Webber's extrapolated RBO (default)", repro.rbo(docs, docs, p)),
            ("base RBO, prefix sum to the list's length", repro.rbo(docs, docs, p, form="base")),
            ("truncated and normalised, to the list's length",
             repro.rbo(docs, docs, p, form="truncated")),
            ("truncated and normalised, to depth 1000 (repro_eval's default)",
             repro.rbo(docs, docs, p, form="truncated", depth=repro.REPRO_EVAL_DEPTH))]
    t = pd.DataFrame(rows, columns=["form", "RBO of a list with itself"])
    return Section(tables={"rbo_identical": t}, values={
        "show": {"rbo_identical": dict(title=f"RBO of a {n_docs}-document list with itself "
                                             f"(p = {p:g})", float_format="{:.4f}")},
        "repro_eval_depth": rows[-1][1]})


def ktu_cases(n_docs: int = 20, seed: int = 0) -> dict:
    """Pairs of equal-length rankings with names that do not sort in rank order."""
    rng = np.random.default_rng(seed)
    docs = _names(rng, n_docs)
    swap2 = [docs[1], docs[0], *docs[2:]]
    neighbours = list(docs)
    for i in range(0, n_docs - 1, 4):
        neighbours[i], neighbours[i + 1] = neighbours[i + 1], neighbours[i]
    other = _names(rng, 2)
    replaced = [*docs[:-2], *other]  # the last two documents replaced by unseen ones
    return {"identical runs": (docs, list(docs)),
            "top two documents swapped": (docs, swap2),
            "neighbours swapped": (docs, neighbours),
            "full reversal": (docs, docs[::-1]),
            "last two documents replaced": (docs, replaced)}


def check_ktu(n_docs: int = 20, seed: int = 0, *, tool_ktu=None,
              tolerance: float = 1e-9) -> claims.Evidence:
    """``T-KTU``: repro_eval's KTU equals Kendall's tau over the union on every case of
    :func:`ktu_cases` (it is false: repro_eval pairs documents by position)."""
    if tool_ktu is None:
        def tool_ktu(a, b):
            return repro.ktu(a, b, convention="repro_eval")
    rows, fails = [], []
    for case, (a, b) in ktu_cases(n_docs, seed).items():
        tool, union = float(tool_ktu(a, b)), repro.ktu(a, b)
        same = abs(tool - union) <= tolerance
        rows.append({"case": case, "KTU as repro_eval computes it": tool,
                     "Kendall's τ over the union": union, "equal": same})
        if not same:
            fails.append(f"{case}: repro_eval {tool:.4f}, τ over the union {union:.4f}")
    table = pd.DataFrame(rows)
    matched, total = int(table["equal"].sum()), len(table)
    ev = claims.Evidence(
        claim="T-KTU", comparison="claim", matched=matched, total=total, unit="cases",
        published="KTU is Kendall's τ over the union of the two runs' documents",
        reproduced=(f"{matched} of {total} cases equal to τ over the union "
                    f"({n_docs} documents per run)"),
        detail=("repro_eval replaces each document by its index in the alphabetically sorted "
                "union and correlates the two index lists position by position, so the i-th "
                "document of one run is paired with the i-th of the other, not with itself"),
        failures=fails or None)
    if fails:
        ev.findings.append(claims.Finding(id="T-E200", evidence="\n".join(fails)))
    ev.tables["ktu_cases"] = table
    ev.values["show"] = {"ktu_cases": dict(title=(
        f"KTU of pairs of {n_docs}-document runs: repro_eval's value against Kendall's τ over "
        "the union"), float_format="{:.4f}")}
    return ev


def core17_reference() -> Section:
    """The values repro_eval's README prints for the Core17 runs, as transcribed in
    ``data/published/repro_eval/core17_readme.csv``."""
    t = pd.read_csv(data_path("published", "repro_eval", "core17_readme.csv"), comment="#",
                    dtype={"value": str})
    shown = t.pivot_table(index=["experiment", "statistic", "measure"], columns="system",
                          values="value", aggfunc="first", sort=False).reset_index()
    shown.columns.name = None
    cols = ["experiment", "statistic", "measure", "baseline", "advanced", "advanced vs baseline"]
    shown = shown.reindex(columns=cols).fillna("–")
    shown["measure"] = shown["measure"].replace({"ARP": "mean over topics"})
    ktu = t[(t.statistic == "KTU")].set_index("system")["value"]
    rbo = t[(t.statistic == "RBO")].set_index("system")["value"]
    return Section(tables={"core17_readme": shown}, values={
        "show": {"core17_readme": dict(title=(
            "repro_eval's own reference: the values its README prints for the Core17 runs "
            "(not recomputed: the runs are not distributed)"))},
        "ktu": ktu.to_dict(), "rbo": rbo.to_dict()})


def core17_against_appendix(order_path, effects_path, constellations_path, root=None, *,
                            decimals: int) -> Section:
    """repro_eval's README example beside the appendix data of Breuer et al. 2020
    (:func:`rankbook.papers.breuer2020.repro_eval_example.readme_against_appendix`): the per-topic
    scores of the same runs, fetched by SHA-256 (:func:`rankbook.ledger.fetch.files`), the
    README's per-topic KTU and RBO lines (``order_path``), its RMSE, ER, ΔRI and p-value lines
    (``effects_path``) and the appendix's run names (``constellations_path``). Without the
    fetched files the section holds one sentence saying so and the command that fetches them."""
    from rankbook.ledger import fetch

    from ..breuer2020 import data as bdata
    from ..breuer2020 import repro_eval_example as rx

    try:
        folder = fetch.files("breuer2020", root or project_root())
    except fetch.DataUnavailable as exc:
        return Section(values={"summary": f"Not checkable: data unavailable. Run "
                                          f"`{exc.command}` to fetch the appendix files"})
    scores = bdata.Scores(folder, bdata.read_constellations(constellations_path))
    t = rx.readme_against_appendix(scores, rx.read_readme_order(order_path),
                                   rx.read_readme_effects(effects_path), decimals=decimals)
    shown = t.assign(agrees=t["agrees"].map({True: "yes", False: "no"}))
    return Section(tables={"core17_appendix": shown}, values={
        "show": {"core17_appendix": dict(title=(
            "repro_eval's Core17 example beside the appendix data (run "
            f"`{t.attrs['run']}`, constellation {t.attrs['constellation']})"))},
        "summary": rx.readme_summary(t, bdata.files_rbo_p()), "table": t})


def _bars(row):
    """Error bar lengths of an interval; none when an end is undefined. A BCa interval need not
    contain its estimate (a skewed bootstrap distribution): the bar then stops at the estimate."""
    if not np.isfinite([row.value, row.low, row.high]).all():
        return None
    return [[max(row.value - row.low, 0.0)], [max(row.high - row.value, 0.0)]]


def plane_figure(results: dict):
    """The ER–ΔRI plane of every reproduction, one panel per measure, with both intervals."""
    import matplotlib.pyplot as plt

    measures = list(dict.fromkeys(m for r in results.values()
                                  for m in r.aggregate.query("level == 'effect'").measure))
    fig, axes = plt.subplots(len(measures), 1, figsize=(7, 3.4 * len(measures)), squeeze=False)
    for ax, m in zip(axes[:, 0], measures):
        for i, (name, res) in enumerate(results.items()):
            agg = res.aggregate.query("level == 'effect' and measure == @m").set_index("statistic")
            er, dri = agg.loc["ER"], agg.loc["ΔRI"]
            xerr, yerr = _bars(er), _bars(dri)
            ax.errorbar([er.value], [dri.value], xerr=xerr, yerr=yerr, fmt="os^vDPX"[i % 7],
                        capsize=3, label=name, color=f"C{i}")
        ax.axvline(1, color="grey", ls="--", lw=1)
        ax.axhline(0, color="grey", ls="--", lw=1)
        ax.set_xlabel("effect ratio ER", fontsize=11)
        ax.set_ylabel("ΔRI", fontsize=11)
        ax.set_title(m, fontsize=11)
        ax.tick_params(labelsize=10)
    axes[0][0].legend(fontsize=10, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    return fig


def _position_blind(a, b):
    return repro.ktu(a, b)  # a fault: the union's tau in place of repro_eval's value


CHECKS = {
    "T-KTU": claims.Check(check_ktu, smoke={"n_docs": 8, "seed": 1}, mutants={
        "repro_eval's KTU replaced by tau over the union": {"tool_ktu": _position_blind}}),
}
