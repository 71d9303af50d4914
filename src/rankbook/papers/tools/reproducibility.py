"""The page "Did it reproduce?": reproducibility measures on runs built with known perturbations.

The page builds an original pair of runs (a baseline and an advanced system) on simulated
topics, then reproductions of it with controlled perturbations, and measures each with
:func:`rankbook.repro.reproduce`. :func:`check_ktu` checks the tools ledger's claim that
repro_eval's KTU is Kendall's tau over the union of the two runs' documents, against
:func:`rankbook.repro.ktu`; :func:`core17_reference` reads the values repro_eval's README
prints for the TREC Common Core 2017 runs (the runs are not distributed). The README example
against the per-topic scores of the appendix of Breuer et al. 2020, which cover the same runs, is
checked by :func:`rankbook.papers.breuer2020.repro_eval_example.check_readme_example`;
:func:`core17_appendix_sentences` says what that evidence shows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankbook import repro
from rankbook.ledger import claims
from rankbook.ledger.claims import Section

__all__ = ["build_runs", "SCENARIOS", "measure_all", "rbo_depths", "check_ktu", "ktu_cases",
           "core17_reference", "core17_appendix_sentences", "plane_figure", "position_blind"]

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
    out = Section(values={"results": results,
                          "scenarios": pd.DataFrame(list(SCENARIOS.items()),
                                                    columns=["reproduction", "what changes"])})
    out.add_table("all_measures", table, title=(
        f"Every measure of every reproduction, with its {confidence:.0%} bootstrap interval over "
        "topics (B: baseline, A: advanced run; one column per reproduction)"))
    out.add_table("measures_tidy", pd.DataFrame(tidy), show=False)
    return out


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
    out = Section(values={"repro_eval_depth": rows[-1][1]})
    out.add_table("rbo_identical", t, title=f"RBO of a {n_docs}-document list with itself (p = {p:g})",
                  float_format="{:.4f}")
    return out


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


def check_ktu(claim: claims.Claim, *, n_docs: int = 20, seed: int = 0,
              tool_ktu=None) -> claims.Evidence:
    """repro_eval's KTU against Kendall's tau over the union, on every case of
    :func:`ktu_cases` (``claim.params["tolerance"]``); it is false: repro_eval pairs documents
    by position. ``tool_ktu`` replaces repro_eval's value (the mutation test)."""
    tolerance = claim.params["tolerance"]
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
    ev = claim.evidence(
        comparison="claim", matched=matched, total=total, unit="cases",
        published="KTU is Kendall's τ over the union of the two runs' documents",
        reproduced=(f"{matched} of {total} cases equal to τ over the union "
                    f"({n_docs} documents per run)"),
        detail=("repro_eval replaces each document by its index in the alphabetically sorted "
                "union and correlates the two index lists position by position, so the i-th "
                "document of one run is paired with the i-th of the other, not with itself"),
        failures=fails or None)
    if fails:
        ev.findings.append(claim.finding("position_pairing", evidence="\n".join(fails)))
    ev.add_table("ktu_cases", table.assign(equal=table["equal"].map({True: "yes", False: "no"})),
                 title=(f"KTU of pairs of {n_docs}-document runs: repro_eval's value against "
                        "Kendall's τ over the union"), float_format="{:.4f}")
    return ev


def position_blind(claim: claims.Claim, **smoke) -> dict:
    """Mutant: repro_eval's KTU replaced by τ over the union."""
    return {"tool_ktu": lambda a, b: repro.ktu(a, b)}


def core17_reference(path) -> Section:
    """The values repro_eval's README prints for the Core17 runs, as transcribed in the file
    ``path`` (the tools ledger's README example data)."""
    t = pd.read_csv(path, comment="#", dtype={"value": str})
    shown = t.pivot_table(index=["experiment", "statistic", "measure"], columns="system",
                          values="value", aggfunc="first", sort=False).reset_index()
    shown.columns.name = None
    cols = ["experiment", "statistic", "measure", "baseline", "advanced", "advanced vs baseline"]
    shown = shown.reindex(columns=cols).fillna("–")
    shown["measure"] = shown["measure"].replace({"ARP": "mean over topics"})
    ktu = t[(t.statistic == "KTU")].set_index("system")["value"]
    rbo = t[(t.statistic == "RBO")].set_index("system")["value"]
    out = Section(values={"ktu": ktu.to_dict(), "rbo": rbo.to_dict()})
    out.add_table("core17_readme", shown, title=(
        "repro_eval's own reference: the values its README prints for the Core17 runs "
        "(not recomputed here from the runs, which are not distributed)"))
    out.say(f"Printed means over topics: KTU {ktu['baseline']} (baseline) and {ktu['advanced']} "
            f"(advanced), RBO {rbo['baseline']} and {rbo['advanced']}.")
    return out


def core17_appendix_sentences(evidence: claims.Evidence, files_rbo_p: float) -> list[str]:
    """What the README example against the appendix data shows, one Markdown sentence per
    group of rows, every number read from the evidence's table (``readme``): which values the
    appendix data gives, under which persistence the printed RBO holds, and what today's
    repro_eval gives. Data that is not on this machine gives the one sentence saying so."""
    t = evidence.tables.get("readme")
    if t is None:
        return ["Not checkable: the appendix data is not on this machine; the verdict at the top of "
                "the page says why and names the command that fetches it."]
    out = []
    rbo = t[t["statistic"] == "RBO"]
    tool = t.attrs.get("tool")
    sentence = (f"The README's RBO lines agree with the appendix files' RBO, computed with "
                f"persistence $p = {files_rbo_p:g}$, on {int(rbo['agrees'].sum())} of {len(rbo)} "
                "rows (per-topic values and means)")
    if tool:
        sentence += (f"; repro_eval {tool}'s default persistence is ${t.attrs['tool_rbo_p']:g}$, and its "
                     "command line passes none, so the README's command run today prints other RBO "
                     "values (RBO needs the runs, which are not distributed, to say which)")
    out.append(sentence + ".")
    ktu = t[t["statistic"] == "KTU"]
    out.append(f"Its KTU lines agree on {int(ktu['agrees'].sum())} of {len(ktu)} rows; where a per-topic "
               "line differs, the table gives the largest difference.")
    paired = t[t["statistic"].str.startswith("p-value (paired")]
    others = t[~t["statistic"].isin(["KTU", "RBO"]) & ~t["statistic"].str.startswith("p-value (paired")]
    out.append(f"RMSE, ER, ΔRI and the unpaired p-values agree on {int(others['agrees'].sum())} of "
               f"{len(others)} rows; the paired p-values on {int(paired['agrees'].sum())} of {len(paired)}.")
    computed = t[~t["repro_eval today"].isin(["needs the runs", "not installed"])]
    if tool and len(computed):
        same = int((computed["repro_eval today"] == computed["printed"]).sum())
        both = computed[computed["statistic"].str.startswith("p-value (paired")]
        same_paired = int((both["repro_eval today"] == both["printed"]).sum())
        out.append(f"From the same per-topic scores, taken in the topic order of the README's runs, "
                   f"repro_eval {tool}'s own functions give {same} of the {len(computed)} values they "
                   f"can compute without the runs exactly as the README prints them ({same_paired} of "
                   f"the {len(both)} paired p-values among them): the printed example is what today's "
                   "repro_eval computes, misaligned topics included." if same == len(computed) else
                   f"From the same per-topic scores, taken in the topic order of the README's runs, "
                   f"repro_eval {tool}'s own functions give {same} of the {len(computed)} values they "
                   f"can compute without the runs as the README prints them ({same_paired} of the "
                   f"{len(both)} paired p-values).")
    elif not tool:
        out.append("repro_eval is not installed, so what it computes today is not shown.")
    return out


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
