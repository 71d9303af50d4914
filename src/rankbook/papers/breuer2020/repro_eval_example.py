"""repro_eval's published example against the appendix data.

repro_eval's README prints, as its example, the measures of the TREC Common Core 2017 runs
WCrobust04 and WCrobust0405 reproduced by the runs of constellation 14 (the appendix's ``df_1``)
on Core17, and replicated by them on Core18. The runs are not distributed, but the appendix's
per-topic scores are: they hold the KTU and RBO (p = 0.8) of every topic, and the P@10, AP and
nDCG from which RMSE, ER, ΔRI and the t-tests follow. :func:`readme_against_appendix` sets each
printed value beside

* the value recomputed from the appendix files with rankbook's measures, and
* what today's repro_eval computes from the same per-topic scores with its own functions
  (``repro_eval.measure``), where it needs no run file; KTU and RBO need the runs themselves.

RBO depends on the persistence ``p``: the README's RBO values are the files' values at p = 0.8,
while repro_eval's default (``repro_eval.RBO_P``) is now 0.95, so its command line, which passes
no ``p``, no longer prints them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as _sps

from rankbook import repro
from rankbook.stats import paired_test

from .data import SYSTEMS, Scores

__all__ = ["read_readme_order", "read_readme_effects", "readme_against_appendix",
           "readme_summary", "check_readme_example", "printed_as_appendix"]

#: trec_eval's names (the README's) of the appendix measures.
_TREC = {"map": "AP", "P_10": "P@10", "ndcg": "nDCG"}


def read_readme_order(path) -> pd.DataFrame:
    """The README's per-topic KTU and RBO lines (``repro_eval_readme_order.csv``)."""
    return pd.read_csv(path, comment="#", dtype={"topic": str, "baseline": str,
                                                 "advanced": str})


def read_readme_effects(path) -> pd.DataFrame:
    """The README's RMSE, ER, ΔRI and p-value lines (the tools source's ``core17_readme.csv``
    transcription), kept to the appendix's three measures."""
    t = pd.read_csv(path, comment="#", dtype={"value": str})
    return t[t["measure"].isin(list(_TREC))].reset_index(drop=True)


def _tool():
    try:
        import repro_eval
        from repro_eval.measure import effectiveness, overall_effects, statistics
    except ImportError:
        return None
    return {"version": getattr(repro_eval, "__version__", None) or _version(),
            "rbo_p": getattr(repro_eval, "RBO_P", None), "rmse": effectiveness.RMSE,
            "er": overall_effects.ER, "dri": overall_effects.DRI, "ttest": statistics.ttest}


def _version():
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("repro_eval")
    except PackageNotFoundError:
        return None


def _dicts(series_by_measure: dict) -> dict:
    """``{measure: Series}`` -> repro_eval's ``{topic: {measure: score}}``."""
    topics = next(iter(series_by_measure.values())).index
    return {t: {m: float(s.loc[t]) for m, s in series_by_measure.items()} for t in topics}


def readme_against_appendix(scores: Scores, order: pd.DataFrame, effects: pd.DataFrame, *,
                            decimals: int, use_tool: bool = True) -> pd.DataFrame:
    """Every README value of the appendix's measures beside its recomputation.

    Parameters
    ----------
    scores : Scores
        The appendix files.
    order : pandas.DataFrame
        :func:`read_readme_order` (per-topic KTU and RBO, with the constellation); the order of
        its topics is the order in which repro_eval met them in the reproduced run.
    effects : pandas.DataFrame
        :func:`read_readme_effects`.
    decimals : int
        The README's printed decimals.
    use_tool : bool
        Also compute with the installed repro_eval (when it is installed).

    Returns
    -------
    pandas.DataFrame
        One row per printed value (per-topic KTU and RBO as one row per system):
        ``experiment``, ``statistic``, ``measure``, ``system``, ``printed``, ``appendix data``
        (rankbook on the authors' files, topics paired by id), ``agrees`` (equal at
        ``decimals`` decimals), ``repro_eval today`` (repro_eval's functions on the same
        per-topic scores, the original's topics in ascending order and the reproduction's in its
        own order, as the README lists them), ``note``.
    """
    number = int(order["constellation"].iloc[0])
    run = dict(zip(scores.constellations["constellation"], scores.constellations["name"]))[number]
    tool = _tool() if use_tool else None
    rows = []

    def fmt(x):
        return f"{x:.{decimals}f}"

    rep_order = list(order[(order["statistic"] == order["statistic"].iloc[0])
                           & (order["topic"] != "ARP")]["topic"])
    # KTU and RBO: the files' per-topic values at depth 1000 (RBO at p = 0.8)
    for stat, m in (("KTU", "tau@1000"), ("RBO", "RBO@1000")):
        sub = order[order["statistic"] == stat]
        per = sub[sub["topic"] != "ARP"]
        for system, sys_ in SYSTEMS.items():
            vals = scores.run("replicated", sys_, m, run)
            got = np.array([vals.loc[t] for t in per["topic"]])
            pr = per[system].astype(float).to_numpy()
            same = int(sum(fmt(g) == p for g, p in zip(got, per[system])))
            worst = float(np.max(np.abs(got - pr)))
            rows.append({"experiment": "reproducibility (Core17)", "statistic": stat,
                         "measure": "per topic", "system": system,
                         "printed": f"{len(per)} values",
                         "appendix data": f"{same} of {len(per)} equal",
                         "agrees": same == len(per), "repro_eval today": "needs the runs",
                         "note": f"largest difference {worst:.4f}"})
            mean = sub[sub["topic"] == "ARP"][system].iloc[0]
            note = ""
            if stat == "RBO":
                note = "the files' RBO at depth 1000 with p = 0.8"
                if tool:
                    note += f"; repro_eval's default is now p = {tool['rbo_p']}"
            rows.append({"experiment": "reproducibility (Core17)", "statistic": stat,
                         "measure": "mean over topics", "system": system, "printed": mean,
                         "appendix data": fmt(vals.mean()), "agrees": fmt(vals.mean()) == mean,
                         "repro_eval today": "needs the runs", "note": note})
    # RMSE, ER, DRI and the t-tests of P@10, AP and nDCG
    b, a = SYSTEMS["baseline"], SYSTEMS["advanced"]
    for r in effects.itertuples():
        m = _TREC[r.measure]
        same_topics = r.experiment == "reproducibility"
        kind = "replicated" if same_topics else "reproduced"
        ob, oa = scores.original(b, m).sort_index(), scores.original(a, m).sort_index()
        rb, ra = scores.run(kind, b, m, run), scores.run(kind, a, m, run)
        if same_topics:
            rb, ra = rb.loc[rep_order], ra.loc[rep_order]
        else:
            ra = ra.loc[rb.index]
        o_sys, r_sys = ((ob, rb) if r.system == "baseline" else (oa, ra))
        label = "reproducibility (Core17)" if same_topics else "replicability (Core18)"
        note = ""
        if r.statistic == "RMSE":
            ours = repro.rmse(o_sys.values, r_sys.loc[o_sys.index].values)
        elif r.statistic == "ER":
            ours = repro.effect_ratio(ob.values, oa.values, rb.values, ra.values)
        elif r.statistic == "DRI":
            ours = repro.delta_ri(ob.values, oa.values, rb.values, ra.values)
        elif same_topics:
            ours = float(paired_test(o_sys.values, r_sys.loc[o_sys.index].values, "t",
                                     n_resamples=1000).pvalue)
            shifted = float(paired_test(o_sys.values, r_sys.values, "t",
                                        n_resamples=1000).pvalue)
            note = (f"pairing topic i of the original (ascending ids) with topic i of the "
                    f"reproduction (its own order) gives {fmt(shifted)}")
        else:
            ours = float(_sps.ttest_ind(o_sys.values, r_sys.values).pvalue)
        today = "not installed"
        if tool:
            d = {k: _dicts({r.measure: s}) for k, s in
                 (("ob", ob), ("oa", oa), ("rb", rb), ("ra", ra))}
            o_d, r_d = (d["ob"], d["rb"]) if r.system == "baseline" else (d["oa"], d["ra"])
            if r.statistic == "RMSE":
                val = tool["rmse"](o_d, r_d)[r.measure]
            elif r.statistic == "ER":
                val = tool["er"](d["oa"], d["ob"], d["ra"], d["rb"])[r.measure]
            elif r.statistic == "DRI":
                val = tool["dri"](d["oa"], d["ob"], d["ra"], d["rb"])[r.measure]
            else:
                val = tool["ttest"](o_d, r_d, rpd=same_topics)[r.measure]
            today = fmt(val)
        rows.append({"experiment": label, "statistic": r.statistic, "measure": m,
                     "system": r.system, "printed": r.value, "appendix data": fmt(ours),
                     "agrees": fmt(ours) == r.value, "repro_eval today": today, "note": note})
    out = pd.DataFrame(rows)
    out.attrs["run"] = run
    out.attrs["constellation"] = number
    out.attrs["tool"] = (tool or {}).get("version")
    out.attrs["tool_rbo_p"] = (tool or {}).get("rbo_p")
    return out


def readme_summary(table: pd.DataFrame, files_rbo_p: float) -> str:
    """One sentence on what the table shows."""
    agree = int(table["agrees"].sum())
    tool_rows = table[~table["repro_eval today"].isin(["needs the runs", "not installed"])]
    same_tool = int((tool_rows["repro_eval today"] == tool_rows["printed"]).sum())
    text = (f"{agree} of {len(table)} rows of repro_eval's README example (run "
            f"`{table.attrs.get('run')}`, constellation {table.attrs.get('constellation')}) equal "
            f"the appendix data; its RBO values are the files' RBO at p = {files_rbo_p:g}")
    if table.attrs.get("tool"):
        text += (f"; repro_eval {table.attrs['tool']} gives {same_tool} of {len(tool_rows)} of "
                 f"the values it can compute from per-topic scores as printed, and its RBO "
                 f"default is now p = {table.attrs['tool_rbo_p']}")
    return text


def check_readme_example(claim, *, order=None, effects=None, use_tool: bool = True):
    """repro_eval's README example: every KTU, RBO, RMSE, ER, ΔRI and p-value it prints for the
    Core17 runs of constellation 14, against the appendix data (``claim.params``:
    ``decimals``, ``files_rbo_p``). Findings: ``misaligned_ttest`` when printed paired p-values
    disagree and pairing the topics by position reproduces them; ``rbo_default`` when the
    printed RBO equals the files' RBO at ``files_rbo_p`` and repro_eval's default differs."""
    from .tables import scores_of, show_table

    p = claim.params
    order = order if order is not None else read_readme_order(claim.path("readme_order"))
    effects = effects if effects is not None else read_readme_effects(
        claim.path("readme_effects"))
    t = readme_against_appendix(scores_of(claim), order, effects, decimals=p["decimals"],
                                use_tool=use_tool)
    matched, total = int(t["agrees"].sum()), len(t)
    ev = claim.evidence(
        comparison="exact", matched=matched, total=total, unit="values",
        published=f"{total} values of repro_eval's README example (per-topic KTU and RBO "
                  "counted as one row per system)",
        reproduced=readme_summary(t, p["files_rbo_p"]),
        detail="; ".join(f"{r.statistic} {r.measure} {r.system}: printed {r.printed}, appendix "
                         f"data {r['appendix data']}" for _, r in t[~t["agrees"]].iterrows()))
    paired = t[t["statistic"].str.startswith("p-value (paired")]
    shifted = paired[~paired["agrees"] & paired.apply(
        lambda r: r["note"].endswith(f"gives {r['printed']}"), axis=1)]
    if len(shifted):
        text = (f"{len(shifted)} of {len(paired)} printed paired p-values are those of the "
                "t-test that pairs the i-th topic of the original (ascending ids) with the i-th "
                "of the reproduction in its own order; paired by topic they are "
                + ", ".join(f"{r['measure']} {r['system']} {r['appendix data']} (printed "
                            f"{r['printed']})" for _, r in shifted.iterrows()))
        try:
            ev.findings.append(claim.finding("misaligned_ttest", evidence=text))
        except (KeyError, ValueError):
            pass
    rbo = t[(t["statistic"] == "RBO") & t["agrees"]]
    if len(rbo) == 4 and t.attrs.get("tool_rbo_p") not in (None, p["files_rbo_p"]):
        try:
            ev.findings.append(claim.finding("rbo_default", evidence=(
                f"the printed RBO values (100 per topic, 2 means) equal the appendix files' RBO "
                f"at p = {p['files_rbo_p']:g}; repro_eval {t.attrs['tool']}'s default is "
                f"p = {t.attrs['tool_rbo_p']}, and its command line passes no p")))
        except (KeyError, ValueError):
            pass
    show_table(ev, "readme", t, title="repro_eval's README example beside the appendix data")
    return ev


def printed_as_appendix(claim, **smoke) -> dict:
    """Mutant of :func:`check_readme_example`: a README that prints what the appendix data gives,
    its per-topic KTU taken from the files and its paired p-values from the t-test that pairs the
    topics by id (every other printed value already agrees), so that every row agrees."""
    from .tables import scores_of

    order = read_readme_order(claim.path("readme_order"))
    effects = read_readme_effects(claim.path("readme_effects"))
    scores = scores_of(claim)
    decimals = claim.params["decimals"]
    number = int(order["constellation"].iloc[0])
    run = dict(zip(scores.constellations["constellation"], scores.constellations["name"]))[number]
    per = (order["statistic"] == "KTU") & (order["topic"] != "ARP")
    for system, sys_ in SYSTEMS.items():
        files = scores.run("replicated", sys_, "tau@1000", run)
        order.loc[per, system] = [f"{files.loc[t]:.{decimals}f}" for t in order.loc[per, "topic"]]
    t = readme_against_appendix(scores, order, effects, decimals=decimals, use_tool=False)
    paired = t[t["statistic"].str.startswith("p-value (paired")]
    names = {v: k for k, v in _TREC.items()}
    for _, r in paired.iterrows():
        hit = ((effects["experiment"] == "reproducibility") & (effects["measure"] == names[r["measure"]])
               & (effects["system"] == r["system"]) & (effects["statistic"] == r["statistic"]))
        effects.loc[hit, "value"] = r["appendix data"]
    return {"order": order, "effects": effects}
