"""Tables and figures of the benchmark results, shared by ``run.py`` (the printed table) and the
book's benchmark page (notebooks/benchmarks.ipynb).

Everything here reads the JSON written by ``benchmarks/run.py``; nothing is measured here.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

CASE_TITLES = {
    "metric_batch": "Metric batch (all 33 metrics) against n",
    "metric_batch_B": "Metric batch (all 33 metrics) against B",
    "kendall": "Kendall tau alone",
    "agreement": "Agreement matrix",
    "consensus": "Consensus kappa",
    "consensus_brute": "Consensus kappa, small n (log time, linear n)",
    "ir": "IR measures (nDCG@10 + AP + RR)",
    "rbo": "Rank-biased overlap",
}


def load(path) -> dict | None:
    """The results document, or None when the file does not exist."""
    path = Path(path)
    if not path.is_file():
        return None
    return json.loads(path.read_text())


def freshness(doc: dict, root) -> str:
    """One Markdown block: the commit and date of the numbers, and a warning when the code that
    is timed has changed since (the book is built from a newer commit than the measurement)."""
    import subprocess

    meta = doc["meta"]
    measured, when = meta.get("commit", "unknown"), meta.get("date_utc", "unknown date")

    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                                  check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return None

    head = git("rev-parse", "--short=12", "HEAD")
    line = f"These numbers were measured at commit `{measured}` on {when}."
    if head is None or measured == "unknown":
        return line + " The book's own commit is unknown, so their age cannot be checked.\n"
    if head.startswith(measured) or measured.startswith(head):
        return line + " The book is built from the same commit.\n"
    behind = git("rev-list", "--count", f"{measured}..HEAD")
    changed = git("diff", "--name-only", measured, "HEAD", "--", "src/rankbook", "benchmarks")
    if behind is None:
        return (f":::{{warning}}\n{line} The book is built from commit `{head}`, and that "
                "measurement commit is not in this checkout's history: rerun `make bench`.\n:::\n")
    files = [f for f in (changed or "").splitlines() if f.endswith(".py")]
    n_files = len(files)
    what = (f"since then {n_files} {'file' if n_files == 1 else 'files'} of the timed code or of the "
            "benchmarks changed, so some numbers may describe older code. `make bench` measures "
            "them again (it takes several minutes, so the book does not run it)"
            if files else "no timed code changed since, so the numbers still describe this code")
    kind = "warning" if files else "note"
    n_behind = int(behind) if str(behind).isdigit() else behind
    ago = f"{n_behind} {'commit' if n_behind == 1 else 'commits'}"
    return (f":::{{admonition}} Measured {ago} before this book\n:class: {kind}\n\n"
            f"{line} The book is built from commit `{head}`; {what}.\n:::\n")


def fmt_s(x) -> str:
    """A duration in s, ms or us with three significant digits."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if x >= 100:
        return f"{x:.0f} s"
    if x >= 1:
        return f"{x:.2f} s"
    if x >= 1e-3:
        return f"{x * 1e3:.1f} ms"
    return f"{x * 1e6:.0f} us"


def table_rows(cases: dict) -> list:
    """(case, configuration, rankbook median, peer, peer median) for every comparison."""
    rows = []
    cc = cases.get("cold_call")
    if cc:
        rows.append(("first call, fresh process", f"Kendall tau, {cc['B']} pairs of S_{cc['n']}",
                     cc["rankbook"]["median_s"], "loop over scipy.stats.kendalltau (fresh process)",
                     cc["scipy_loop"]["median_s"]))
    wt = cases.get("weak_tau")
    if wt:
        for r in wt.get("tau_b", []):
            rows.append(("Kendall tau-b, scores with ties", f"n={r['n']:,}", r["rankbook_s"],
                         "scipy.stats.kendalltau", r["scipy_s"]))
    rt = cases.get("rbo_tau_ap")
    if rt:
        rr, ta = rt["rbo_range"], rt["tau_ap"]
        rows.append(("RBO low, avg, high (ties)", f"2 x {rr['items']} items, {rr['orders']:,} tie orders",
                     rr["rankbook_s"], f"enumerating the orders (extrapolated from {rr['brute_subsample']:,})",
                     rr["brute_s"]))
        if "total_s" in ta.get("pypi", {}):
            rows.append(("tau_AP, batch", f"B={ta['B']}, n={ta['n']}", ta["rankbook_s"],
                         f"tau-ap 0.1.0 loop (extrapolated from {ta['pypi']['subsample']} pairs)",
                         ta["pypi"]["total_s"]))
        a = ta["tau_ap_a"]
        rows.append(("tau_AP_a (ties)", f"n={a['n']}, {a['orders']} orders", a["rankbook_s"],
                     "mean of tau_AP over the orders", a["brute_s"]))
    c7 = cases.get("compare_7m")
    if c7 and "total_s" in c7.get("ranx", {}):
        rows.append(("rankbook compare (command)", f"2 TREC runs x {c7['lines_per_run']:,} lines",
                     c7["rankbook"]["wall_s"], "ranx Run.from_file of both runs",
                     c7["ranx"]["run_from_file_total_s"]))
    mb = cases.get("metric_batch")
    if mb:
        for r in mb["rows"]:
            rows.append(("metric batch (33)", f"B={r['B']}, n={r['n']}", r["rankbook_s"],
                         f"fastest per-pair loop (extrapolated from {r['fastest_loop_subsample']} pairs)",
                         r["fastest_loop_s"]))
        for r in mb["kendall"]:
            rows.append(("Kendall tau", f"B={r['B']}, n={r['n']}", r["rankbook_s"],
                         f"scipy kendalltau loop (extrapolated from {r['scipy_subsample']} pairs)",
                         r["scipy_s"]))
    pw = cases.get("pairwise")
    if pw:
        bt, pt = pw["batched_tau"], pw["pairwise_tau"]
        rows.append(("Kendall tau, batch", f"B={bt['B']}, n={bt['n']}", bt["rankbook_s"],
                     f"scipy kendalltau loop (extrapolated from {bt['scipy_subsample']} pairs)",
                     bt["scipy_s"]))
        rows.append(("Kendall tau, batch", f"B={bt['B']}, n={bt['n']}", bt["rankbook_s"],
                     "floor estimate: numpy sorting every row of the same batch", bt["floor_sort_s"]))
        rows.append(("pairwise Kendall tau", f"N={pt['N']}, n={pt['n']}", pt["rankbook_s"],
                     f"scipy kendalltau double loop, i < j (extrapolated from "
                     f"{pt['scipy_subsample']} pairs)", pt["scipy_double_loop_s"]))
    ag = cases.get("agreement")
    if ag:
        rows.append(("agreement matrix", f"33x33, |T|={ag['T']}", ag["rankbook_s"],
                     f"O(|T|^2) definition (extrapolated from |T|={ag['bruteforce_from_m']})",
                     ag["bruteforce_s"]))
    co = cases.get("consensus")
    if co:
        for r in co["rows"]:
            rows.append((f"kappa ({r['kind']})", f"N={r['N']}, n={r['n']}", r["rankbook"]["median"],
                         "dense numpy solve", r["dense"]["median"]))
        for r in co["brute"]:
            rows.append((f"kappa ({r['kind']})", f"N={r['N']}, n={r['n']}", r["rankbook"]["median"],
                         "brute-force enumeration", r["brute"]["median"]))
    ir = cases.get("ir")
    if ir:
        Q = str(ir["Q"])
        rk = ir["rankbook"]
        for key, label in (("ranx_dict", "ranx Qrels/Run"), ("ranx_numpy", "ranx numpy path")):
            if key in ir:
                rows.append(("nDCG@10+AP+RR", f"{Q} queries, first call", rk["cold_s"],
                             f"{label}, first call (numba compile)", ir[key]["cold_s"]))
                rows.append(("nDCG@10+AP+RR", f"{Q} queries, warm", rk["warm"][Q],
                             f"{label}, warm", ir[key]["warm"][Q]))
        rows.append(("nDCG@10+AP+RR", f"{Q} queries, warm", rk["warm"][Q],
                     "ir_measures (pytrec_eval), warm", ir["ir_measures"]["warm"][Q]))
        rb = ir.get("rbo")
    cv = cases.get("conventions")
    if cv:
        cfg = f"{cv['Q']:,} queries x {cv['documents']:,} docs, 5 measures"
        rows.append(("evaluate_run (trec_eval)", cfg, cv["rankbook"]["median_s"], "ranx numpy path, warm",
                     cv["ranx"]["median_s"]))
        rows.append(("evaluate_run (trec_eval)", cfg, cv["rankbook"]["median_s"], "pytrec_eval",
                     cv["pytrec_eval"]["median_s"]))
        real = cv.get("realistic")
        if real:
            cfg = f"{real['Q']} queries, {real['rows']:,} string-id rows, {len(real['measures'])} measures"
            for src in ("dicts", "files"):
                for label, key in (("pytrec_eval", "pytrec_eval"), ("ranx, warm", "ranx"),
                                   ("ir_measures", "ir_measures")):
                    rows.append((f"evaluate_run from {src}", cfg, real[f"rankbook_{src}"]["median_s"],
                                 f"{label} from {src}", real[f"{key}_{src}"]["median_s"]))
    if ir:
        rb = ir.get("rbo")
        if rb:
            rows.append(("RBO + RBO_ext", f"{rb['pairs']} pairs, depth {rb['depth']}",
                         rb["rankbook_s"], "rbo package", rb["rbo_package_s"]))
    cp = cases.get("compare")
    if cp:
        cfg = f"{cp['systems']} systems x {cp['queries']} queries, {cp['resamples']} resamples"
        rows.append(("compare (baseline)", cfg, cp["rankbook_baseline_s"],
                     "scipy bootstrap (BCa) + permutation_test", cp["scipy_baseline_s"]))
        rows.append(("compare (every pair)", cfg, cp["rankbook_all_pairs_s"], "-", None))
    bk = cases.get("book")
    if bk and not bk.get("skipped"):
        rows.append(("book", "cold build", bk["cold"]["wall_s"], "-", None))
        if bk.get("warm"):
            rows.append(("book", "warm rebuild", bk["warm"]["wall_s"], "-", None))
    rp = cases.get("reproduce")
    if rp:
        rows.append(("rankbook reproduce", f"{rp['topics']} topics x {rp['documents']} documents "
                     f"x 4 runs x {len(rp['measures'])} measures", rp["rankbook_s"],
                     "repro_eval 0.5.0 (same files, same measures, no intervals)",
                     rp["repro_eval_s"]))
    rf = cases.get("reader_10m")
    if rf:
        rows.append(("evaluate_run from TREC files (CPU)", f"{rf['run_lines']:,} run lines, "
                     f"{len(rf['measures'])} measures", rf["rankbook"]["cpu_s"],
                     "pytrec_eval's parse_qrel/parse_run + evaluate (CPU)",
                     rf["pytrec_eval"]["cpu_s"]))
    tf = cases.get("track_files")
    if tf:
        for key, peer in (("pytrec_eval", "pytrec-eval-terrier"), ("ir_measures", "ir_measures")):
            rows.append(("a TREC track's files to numbers (CPU)",
                         f"{tf['topics']} topics x {tf['runs']} runs x {tf['documents']:,} "
                         f"documents", tf["rankbook"]["cpu_s"], f"{peer}, its own readers",
                         tf[key]["cpu_s"]))
    tt = cases.get("ties_tukey")
    if tt:
        tb, tk, kb = tt["tie_brute_force"], tt["tukey"], tt["tukey_brute_force"]
        rows.append(("tie range (ties='range')", f"{tb['queries']} queries x "
                     f"{tb['orders_per_query']:,} tie orders", tb["rankbook_s"],
                     "every tie order scored by evaluate_run", tb["brute_force_s"]))
        rows.append(("Tukey's HSD", f"{tk['systems']} systems x {tk['topics']} topics",
                     tk["one_way_s"], "scipy.stats.tukey_hsd", tk["scipy_s"]))
        rows.append(("randomised Tukey HSD, exact", f"{kb['systems']} systems x {kb['topics']} "
                     f"topics ({kb['orders']:,} orders)", kb["rankbook_s"],
                     "loop over itertools.product", kb["brute_force_s"]))
    return rows


# ------------------------------------------------------------------------------------------
# DataFrames for the page


def summary_frame(doc: dict):
    import pandas as pd

    rows = []
    for case, config, ours, peer, theirs in table_rows(doc["cases"]):
        rows.append({"case": case, "configuration": config, "rankbook": fmt_s(ours),
                     "peer": peer, "peer time": fmt_s(theirs),
                     "peer / rankbook": f"{theirs / ours:,.1f}x" if theirs and ours else "-"})
    return pd.DataFrame(rows)


def targets_frame(doc: dict):
    import pandas as pd

    rows = []
    for t in doc.get("targets", []):
        if t["measured"] is None:
            meas = "failed"
        elif t["unit"] == "s":
            meas = fmt_s(t["measured"])
        elif t["unit"] == "MB":
            meas = f"{t['measured']:.0f} MB"
        else:
            meas = f"{t['measured']:,.1f}x"
        limit = (fmt_s(t["threshold"]) if t["unit"] == "s" else
                 f"{t['threshold']:.0f} MB" if t["unit"] == "MB" else f"{t['threshold']:,g}x")
        status = "not evaluated (quick run)" if t["met"] is None else ("met" if t["met"] else "MISSED")
        rows.append({"target": t["description"], "limit": limit, "measured": meas,
                     "status": status, "missed by": t.get("miss_by", ""),
                     "why": t.get("why", "") if t["met"] is False else ""})
    return pd.DataFrame(rows)


def pairwise_frame(doc: dict):
    """Kendall's tau at the floor and the distance matrix: one row per quantity."""
    import pandas as pd

    pw = doc["cases"].get("pairwise")
    if not pw:
        return None
    bt, pt, mm = pw["batched_tau"], pw["pairwise_tau"], pw["memory"]
    per = lambda s, b: f"{fmt_s(s)} ({s / b * 1e6:.1f} us each)"  # noqa: E731
    rows = [
        ("batched tau: rankbook, " + bt["backend"] + " backend",
         f"B={bt['B']}, n={bt['n']}", per(bt["rankbook_s"], bt["B"])),
        ("batched tau: rankbook, numpy backend (no numba)", f"B={bt['B']}, n={bt['n']}",
         per(bt["numpy_backend_s"], bt["B"])),
        ("batched tau: floor estimate, numpy sorting every row of sigma", f"B={bt['B']}, n={bt['n']}",
         per(bt["floor_sort_s"], bt["B"])),
        ("batched tau: loop over scipy.stats.kendalltau",
         f"extrapolated from {bt['scipy_subsample']} pairs", per(bt["scipy_s"], bt["B"])),
        ("batched tau: rankbook / floor", "", f"{bt['floor_ratio']:.2f}x (numpy backend "
                                              f"{bt['numpy_backend_floor_ratio']:.1f}x)"),
        ("batched tau: scipy loop / rankbook", "", f"{bt['speedup']:.1f}x (numpy backend "
                                                    f"{bt['numpy_backend_speedup']:.1f}x)"),
        ("pairwise tau: rankbook.pairwise", f"N={pt['N']}, n={pt['n']}, {pt['pairs']} pairs",
         per(pt["rankbook_s"], pt["pairs"])),
        ("pairwise tau: double loop over scipy.stats.kendalltau (i < j)",
         f"extrapolated from {pt['scipy_subsample']} pairs", per(pt["scipy_double_loop_s"], pt["pairs"])),
        ("pairwise tau: scipy double loop / rankbook", "", f"{pt['speedup']:.0f}x"),
        ("pairwise tau: peak memory of a fresh process", f"N={mm['N']}, n={mm['n']}",
         f"{mm['peak_rss_mb']:.0f} MB (result {mm['result_mb']:.0f} MB, traced peak "
         f"{mm['tracemalloc_peak_mb']:.0f} MB)"),
        ("largest difference from scipy", "",
         f"{max(bt['max_abs_diff_vs_scipy'], pt['max_abs_diff_vs_scipy']):.1e}"),
    ]
    return pd.DataFrame(rows, columns=["quantity", "configuration", "value"])


def metric_rows_frame(doc: dict):
    import pandas as pd

    mb = doc["cases"]["metric_batch"]
    rows = []
    for r in mb["rows"]:
        lib = r["per_library_s"]
        cov = r["per_library_metrics"]
        rows.append({
            "B": r["B"], "n": r["n"], "k": r["k"], "rankbook (all 33)": fmt_s(r["rankbook_s"]),
            "fastest per-pair loop": fmt_s(r["fastest_loop_s"]),
            "per pair": fmt_s(r["fastest_loop_per_pair_s"]),
            "speedup": f"{r['speedup']:,.0f}x",
            **{f"{name} loop ({cov[name]} metrics)": fmt_s(v) for name, v in lib.items()},
            "max rel. diff": f"{r['check']['max_rel_diff']:.1e}",
        })
    return pd.DataFrame(rows)


def fastest_units_frame(doc: dict):
    """Which peer function the fastest per-pair loop uses for each metric, at each n."""
    import pandas as pd

    mb = doc["cases"]["metric_batch"]
    seen = {}
    for r in mb["rows"]:
        seen.setdefault(r["n"], r["fastest_loop_units"])
    names = list(next(iter(seen.values())))
    return pd.DataFrame({"metric": names,
                         **{f"n={n}": [units[m] for m in names] for n, units in seen.items()}})


def profile_frame(doc: dict):
    import pandas as pd

    p = doc["cases"]["metric_batch"].get("profile")
    if not p:
        return None
    rows = [{"step": "validate sigma and nu (values, duplicates, inverses)",
             "seconds": p["validate_both_s"]}]
    rows += [{"step": f"metric {k} on its own", "seconds": v}
             for k, v in p["metric_own_s"].items()]
    df = pd.DataFrame(rows)
    df["seconds"] = df["seconds"].map(lambda v: round(v, 4))
    return df


def consensus_frame(doc: dict):
    import pandas as pd

    co = doc["cases"]["consensus"]
    rows = []
    for r in co["rows"]:
        rows.append({"rankings": r["kind"], "N": r["N"], "n": r["n"],
                     "rankbook": fmt_s(r["rankbook"]["median"]),
                     "rankbook peak RSS": f"{r['rankbook']['peak_rss_mb']:.0f} MB",
                     "rankbook traced peak": f"{r['rankbook']['tracemalloc_peak_mb']:.1f} MB",
                     "dense solve": fmt_s(r["dense"]["median"]),
                     "dense peak RSS": f"{r['dense']['peak_rss_mb']:.0f} MB",
                     "dense / rankbook": f"{r['speedup']:,.1f}x",
                     "kappa": f"{r['rankbook']['kappa']:.6g}",
                     "same value": {True: "yes", False: "NO", None: "overflow"}[r["agree"]]})
    return pd.DataFrame(rows)


def brute_frame(doc: dict):
    import pandas as pd

    co = doc["cases"]["consensus"]
    return pd.DataFrame([{"rankings": r["kind"], "N": r["N"], "n": r["n"],
                          "rankbook": fmt_s(r["rankbook"]["median"]),
                          "brute force": fmt_s(r["brute"]["median"]),
                          "brute / rankbook": f"{r['speedup']:,.1f}x",
                          "kappa": int(r["rankbook"]["kappa"]),
                          "same count": "yes" if r["agree"] else "NO"} for r in co["brute"]])


def ir_frame(doc: dict):
    import pandas as pd

    ir = doc["cases"]["ir"]
    Q = str(ir["Q"])
    rows = [{"library": "rankbook (numpy)", "import": fmt_s(ir["rankbook"]["import_s"]),
             "build inputs": "-", "first call": fmt_s(ir["rankbook"]["cold_s"]),
             "first call, compiled cache": "-", "warm": fmt_s(ir["rankbook"]["warm"][Q]),
             "warm, one thread": fmt_s(ir["rankbook"]["warm"][Q]),
             "max abs. diff of the means": "0 (reference)"}]
    for key, label in (("ranx_dict", "ranx, Qrels/Run from dicts"), ("ranx_numpy", "ranx, numpy arrays"),
                       ("ir_measures", "ir_measures (pytrec_eval)")):
        if key not in ir:
            continue
        d = ir[key]
        rows.append({"library": label, "import": fmt_s(d["import_s"]),
                     "build inputs": fmt_s(d.get("build_s")) if d.get("build_s") else "-",
                     "first call": fmt_s(d["cold_s"]),
                     "first call, compiled cache": fmt_s(d.get("cold_cached_s")),
                     "warm": fmt_s(d["warm"][Q]),
                     "warm, one thread": fmt_s(d.get("warm_1thread")),
                     "max abs. diff of the means": f"{ir['check'][key]:.1e}"})
    return pd.DataFrame(rows)


def book_frame(doc: dict):
    import pandas as pd

    bk = doc["cases"].get("book")
    if not bk or bk.get("skipped"):
        return None
    cold, warm = bk["cold"], bk.get("warm") or {}
    names = sorted(set(cold.get("notebooks", {})) | set(warm.get("notebooks", {})))
    rows = [{"notebook": n, "cold: executed in": fmt_s(cold["notebooks"].get(n)),
             "warm": "reused" if n in warm.get("reused", []) else
             ("executed" if n in warm.get("executed", []) else "-")} for n in names]
    def status(b):
        return "" if b.get("returncode", 0) == 0 else " (failed)"

    rows.append({"notebook": "step 1: executing the notebooks (wall clock)",
                 "cold: executed in": fmt_s(cold["notebooks_s"]) + status({"returncode": cold["notebooks_returncode"]}),
                 "warm": fmt_s(warm.get("notebooks_s"))})
    rows.append({"notebook": "step 2: jupyter-book (wall clock)",
                 "cold: executed in": fmt_s(cold["site_s"]) + status({"returncode": cold["site_returncode"] or 0}),
                 "warm": fmt_s(warm.get("site_s")) + (status({"returncode": warm.get("site_returncode") or 0}) if warm else "")})
    rows.append({"notebook": "whole build", "cold: executed in": fmt_s(cold["wall_s"]) + status(cold),
                 "warm": fmt_s(warm.get("wall_s")) + (status(warm) if warm else "")})
    return pd.DataFrame(rows)


def scaling_frame(doc: dict):
    import pandas as pd

    rows = []
    for s in doc.get("scaling", []):
        rows.append({"case": CASE_TITLES.get(s["case"], s["case"]), "series": s["series"],
                     "size": f"{s['x_name']} = {min(s['x'])} .. {max(s['x'])}",
                     "points": len(s["x"]),
                     "fitted slope": ("-" if s["slope"] is None else f"{s['slope']:.2f}")
                     if s.get("axis") != "semilogy" else
                     f"log2(time) grows {s['log2_time_per_item']:.2f} per item",
                     "theory": s["theory"],
                     "theoretical slope": f"{s['theory_slope']:.0f}" if s.get("theory_slope")
                     else ("exponential: log2(time) +1 per item" if "2^n" in s["theory"] else "-"),
                     "comment": s.get("comment", "")})
    return pd.DataFrame(rows)
