"""`make bench`: rankbook against the libraries users would otherwise pick, in one run.

Usage::

    .venv/bin/python benchmarks/run.py            # full sizes, writes benchmarks/results.json
    .venv/bin/python benchmarks/run.py --quick    # every case at reduced size (about 2 minutes)
    .venv/bin/python benchmarks/run.py --only consensus,ir   # re-run some cases, merge the rest

Cases (one module each): ``metric_batch`` (bench_metrics), ``agreement`` (bench_agreement),
``consensus`` (bench_consensus), ``ir`` (bench_ir, with RBO), ``conventions``
(bench_conventions: evaluate_run beside ranx and pytrec_eval, and on a realistic string-id
run beside pytrec_eval, ranx and ir_measures from the same dicts and files), ``book`` (bench_book),
``sweep`` (bench_sweep), ``compare`` (bench_stats), ``compare_7m`` (bench_compare_cli:
``rankbook compare`` on two 7-million-line runs, time, peak memory and Ctrl-C), ``cold_call``
(bench_cold: the first call in a fresh process against a scipy loop) and ``weak_tau``
(bench_weak_tau: Kendall's tau between weak orders at n = 20 000, time and peak memory),
``rbo_tau_ap`` (bench_rbo_tau_ap: RBO^low/high/avg against brute force over the orders of the
ties, tau_AP and its tie forms against the PyPI tau-ap and brute force), ``reader_10m`` and
``track_files`` (bench_conventions: from TREC files to numbers, 10 M run lines against
pytrec_eval's readers, and a TREC track's 10 runs against pytrec_eval and ir_measures) and
``ties_tukey`` (bench_ties_tukey: tie ranges against brute force over tie orders, Tukey's HSD
against scipy and the randomised one against brute force). The run
prints a table of medians and ratios and writes a JSON file read by the book's benchmark page
(notebooks/benchmarks.ipynb). Each target of issue 8 is evaluated in ``targets`` with the
measured figure, the threshold, whether it is met, and by how much and why where it is not.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# numba's on-disk cache goes to a private folder, never into the installed packages
os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="rankbook-bench-numba-"))
os.environ.setdefault("MPLBACKEND", "agg")

from common import ROOT, log, strip_values  # noqa: E402
from report import fmt_s, table_rows  # noqa: E402

CASES = ("metric_batch", "pairwise", "agreement", "consensus", "ir", "conventions", "book", "sweep",
         "compare", "compare_7m", "cold_call", "weak_tau", "reproduce", "rbo_tau_ap", "reader_10m",
         "track_files", "ties_tukey")


def _machine() -> dict:
    import numpy
    import scipy
    import sklearn

    info = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu_model"] = line.split(":", 1)[1].strip()
                break
        mem = Path("/proc/meminfo").read_text().splitlines()[0].split()[1]
        info["memory_gb"] = round(int(mem) / 2**20, 1)
    except OSError:
        pass
    from importlib import metadata

    for pkg in ("ranx", "ir_measures", "rbo", "rexmex", "numba", "pytrec_eval-terrier"):
        try:
            info[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            info[pkg] = None
    return info


def _commit() -> str:
    try:
        sha = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--",
                                "src"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        return sha + (" (src/ has uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def run_case(name: str, quick: bool) -> dict:
    t0 = time.perf_counter()
    if name == "metric_batch":
        import bench_metrics as m
    elif name == "pairwise":
        import bench_pairwise as m
    elif name == "agreement":
        import bench_agreement as m
    elif name == "consensus":
        import bench_consensus as m
    elif name == "ir":
        import bench_ir as m
    elif name == "conventions":
        import bench_conventions as m
    elif name == "book":
        import bench_book as m
    elif name == "sweep":
        import bench_sweep as m
    elif name == "compare":
        import bench_stats as m
    elif name == "compare_7m":
        import bench_compare_cli as m
    elif name == "cold_call":
        import bench_cold as m
    elif name == "weak_tau":
        import bench_weak_tau as m
    elif name == "reproduce":
        import bench_reproduce as m
    elif name == "rbo_tau_ap":
        import bench_rbo_tau_ap as m
    elif name in ("reader_10m", "track_files"):  # from files to numbers (bench_conventions)
        import bench_conventions as m
    elif name == "ties_tukey":
        import bench_ties_tukey as m
    else:
        raise ValueError(f"unknown case {name!r}; valid: {', '.join(CASES)}")
    load0 = os.getloadavg()[0]
    started = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    run = {"reader_10m": getattr(m, "run_files", None),
           "track_files": getattr(m, "run_track", None)}.get(name, m.run)
    out = run(quick=quick)
    out["case_seconds"] = time.perf_counter() - t0
    out["measured_utc"] = started
    out["load_average_1min"] = {"start": round(load0, 2), "end": round(os.getloadavg()[0], 2)}
    return strip_values(out)


# ------------------------------------------------------------------------------------------
# targets


#: The sweep target: ``rankbook sweep`` at least this many times faster than a sequential loop
#: of ``rankbook run`` over the same points. One value, used for the description and the limit.
SWEEP_SPEEDUP = 1.7


def _target(tid, description, measured, threshold, unit, met, why="", applies=True):
    t = {"id": tid, "description": description, "measured": measured, "threshold": threshold,
         "unit": unit, "met": bool(met) if applies else None, "why": why, "applies": applies}
    if applies and not met and measured is not None and threshold:
        if unit in ("s", "MB", "x of floor") and measured >= threshold:
            t["miss_by"] = f"{measured / threshold:.2f}x the limit ({measured - threshold:+.3g} {unit})"
        elif unit not in ("s", "MB", "x of floor") and measured < threshold:
            t["miss_by"] = f"{threshold / measured:.2f}x short ({measured:.3g} against {threshold:.3g})"
        else:
            t["miss_by"] = "failed (see why)"
    return t


def evaluate_targets(results: dict, quick: bool) -> list:
    applies = not quick
    targets = []
    sw = results.get("sweep")
    if sw:
        targets.append(_target(
            "sweep_speedup",
            f"rankbook sweep of {sw['points']} points on {sw['workers']} local workers: at least "
            f"{SWEEP_SPEEDUP:g}x faster than a sequential loop of rankbook run",
            sw["speedup"], SWEEP_SPEEDUP, "x", sw["speedup"] >= SWEEP_SPEEDUP,
            why=(f"loop {sw['loop_per_point_s']:.2f} s per point, sweep "
                 f"{sw['sweep_per_point_s']:.2f} s per point (cluster start-up included)"),
            applies=applies))
    mb = results.get("metric_batch")
    if mb:
        row = max((r for r in mb["rows"]), key=lambda r: (r["B"], r["n"] == 100))
        row = next((r for r in mb["rows"] if r["B"] == 100_000 and r["n"] == 100), row)
        prof = mb.get("profile", {})
        own = prof.get("metric_own_s", {})
        top = list(own.items())[:4]
        why = ""
        if prof:
            why = (f"At B={prof['B']}, n={prof['n']}: validating both batches (range, duplicates, "
                   f"inverses) takes {prof['validate_both_s']:.2f} s; the costliest metrics on "
                   "their own are " + ", ".join(f"{k} {v:.2f} s" for k, v in top) +
                   " (Kendall and NDPM each run an O(n log n) inversion count over the batch).")
        cfg = f"B={row['B']}, n={row['n']}"
        targets.append(_target(
            "metric_batch_speed", f"All 33 metrics, {cfg}: under 2 s",
            row["rankbook_s"], 2.0, "s", row["rankbook_s"] < 2.0, why, applies))
        targets.append(_target(
            "metric_batch_ratio", f"All 33 metrics, {cfg}: at least 100x the fastest per-pair loop",
            row["speedup"], 100.0, "x", row["speedup"] >= 100.0,
            "" if row["speedup"] >= 100 else why, applies))
    pw = results.get("pairwise")
    if pw:
        bt, pt, mm = pw["batched_tau"], pw["pairwise_tau"], pw["memory"]
        cfg = f"B={bt['B']} pairs of rankings of n={bt['n']}"
        floor = (f"floor estimate: numpy sorting every row of the same {bt['B']} x {bt['n']} batch, "
                 f"{bt['floor_sort_s'] * 1e3:.1f} ms ({bt['floor_sort_s'] / bt['B'] * 1e6:.1f} us per "
                 "ranking)")
        how = (f"rankbook {bt['rankbook_s'] * 1e3:.1f} ms with the {bt['backend']} backend "
               f"({bt['rankbook_s'] / bt['B'] * 1e6:.1f} us per pair, validation included); "
               f"the numpy backend alone {bt['numpy_backend_s'] * 1e3:.0f} ms "
               f"({bt['numpy_backend_speedup']:.1f}x scipy, {bt['numpy_backend_floor_ratio']:.1f}x the floor)")
        targets.append(_target(
            "kendall_batch_vs_scipy", f"Batched Kendall tau, {cfg}: at least 20x a loop over "
            "scipy.stats.kendalltau", bt["speedup"], 20.0, "x", bt["speedup"] >= 20.0,
            f"scipy {bt['scipy_per_pair_s'] * 1e6:.0f} us per pair; {how}", applies))
        targets.append(_target(
            "kendall_batch_floor", f"Batched Kendall tau, {cfg}: within 5x of the hardware floor "
            f"({floor})", bt["floor_ratio"], 5.0, "x of floor", bt["floor_ratio"] < 5.0,
            how, applies))
        targets.append(_target(
            "pairwise_kendall_vs_scipy", f"rankbook.pairwise Kendall tau, N={pt['N']} rankings of "
            f"n={pt['n']} ({pt['pairs']} pairs): at least 20x a double loop over "
            "scipy.stats.kendalltau", pt["speedup"], 20.0, "x", pt["speedup"] >= 20.0,
            f"rankbook {pt['rankbook_s'] * 1e3:.1f} ms, scipy {pt['scipy_double_loop_s']:.2f} s "
            "(pairs i < j only)", applies))
        targets.append(_target(
            "pairwise_memory", f"rankbook.pairwise Kendall tau, N={mm['N']}, n={mm['n']}: peak "
            "memory under 1 GB (VmHWM of the whole fresh process)", mm["peak_rss_mb"], 1024.0,
            "MB", mm["peak_rss_mb"] < 1024.0,
            f"result {mm['result_mb']:.0f} MB, tracemalloc peak {mm['tracemalloc_peak_mb']:.0f} MB",
            applies))
    ag = results.get("agreement")
    if ag:
        why = (f"Of {ag['rankbook_s']:.2f} s, evaluating the 33 metrics on T takes "
               f"{ag['metric_values_s']:.2f} s and the 561 concordance counts "
               f"{ag['concordance_s']:.2f} s ({ag['concordance_s'] / 561 * 1e3:.1f} ms each: "
               "three lexsorts for the tie counts, one lexsort and one inversion count per "
               "pair of metrics; the per-metric sorts and tie counts are recomputed for every pair).")
        targets.append(_target("agreement_speed", f"Agreement matrix 33x33 on |T|={ag['T']}: under 1 s",
                               ag["rankbook_s"], 1.0, "s", ag["rankbook_s"] < 1.0,
                               "" if ag["rankbook_s"] < 1.0 else why, applies))
    co = results.get("consensus")
    if co:
        N, n = co["target"]["N"], co["target"]["n"]
        for kind, label in (("uniform", "uniformly random rankings (the setting of the consensus target)"),
                            ("correlated", "correlated rankings (dense graph, worst case; beyond the stated target)")):
            r = next((r for r in co["rows"] if r["kind"] == kind and r["N"] == N and r["n"] == n), None)
            if r is None:
                continue
            rb = r["rankbook"]
            why = ""
            if rb["median"] >= 2.0 or rb["peak_rss_mb"] >= 1024:
                why = (f"kappa on {label}: the edge search examines all n(n-1)/2 = "
                       f"{n * (n - 1) // 2} candidate pairs against up to N = {N} rankings.")
            targets.append(_target(f"kappa_speed_{kind}", f"kappa, N={N}, n={n}, {label}: under 2 s",
                                   rb["median"], 2.0, "s", rb["median"] < 2.0, why, applies))
            targets.append(_target(f"kappa_memory_{kind}",
                                   f"kappa, N={N}, n={n}, {label}: peak memory under 1 GB "
                                   "(peak resident set size, VmHWM, of the whole child process)",
                                   rb["peak_rss_mb"], 1024.0, "MB", rb["peak_rss_mb"] < 1024.0, "",
                                   applies))
    ir = results.get("ir")
    if ir:
        Q = ir["Q"]
        rk = ir["rankbook"]
        ranx_cold = min(ir[p]["cold_s"] for p in ("ranx_dict", "ranx_numpy") if p in ir)
        targets.append(_target(
            "ir_vs_ranx_cold", f"nDCG@10 + AP + RR on {Q} queries: at least as fast as ranx "
            "including its compile time (first call in a fresh process on both sides)",
            ranx_cold / rk["cold_s"], 1.0, "x", ranx_cold >= rk["cold_s"], "", applies))
        ranx_warm = min(ir[p]["warm"][str(Q)] for p in ("ranx_dict", "ranx_numpy") if p in ir)
        why = ""
        if ranx_warm < rk["warm"][str(Q)]:
            each = rk.get("warm_each", {})
            why = ("ranx's compiled numpy-array path on all "
                   f"{ir['ranx_numpy'].get('numba_threads', '?')} cores takes "
                   f"{fmt_s(ir['ranx_numpy']['warm'][str(Q)])}")
            if "warm_1thread" in ir["ranx_numpy"]:
                why += f", on one thread {fmt_s(ir['ranx_numpy']['warm_1thread'])}"
            why += f"; rankbook (numpy, one thread) {fmt_s(rk['warm'][str(Q)])}"
            if each:
                why += (" (nDCG@10 " + fmt_s(each["ndcg@10"]) + ", AP " + fmt_s(each["map"]) +
                        ", RR " + fmt_s(each["mrr"]) + "; each call validates and pads the "
                        "whole batch again, and nDCG@10 computes gains and sorts all 100 columns "
                        "where 10 are needed)")
        targets.append(_target(
            "ir_vs_ranx_warm", f"nDCG@10 + AP + RR on {Q} queries: at least as fast as ranx "
            "already compiled (stricter than the target)",
            ranx_warm / rk["warm"][str(Q)], 1.0, "x", ranx_warm >= rk["warm"][str(Q)], why, applies))
    cv = results.get("conventions")
    if cv:
        rb = cv["rankbook"]
        ws = lambda d: f"{d['median_s']:.2f} s wall ({d['cpu_s']:.2f} s CPU)"  # noqa: E731
        why = (f"rankbook {ws(rb)} for {rb['rows']:,} run rows (string ids: "
               f"{ws(cv['rankbook_str_ids'])}); ranx warm {ws(cv['ranx'])}, first call "
               f"{cv['ranx']['first_call_s']:.2f} s; pytrec_eval {ws(cv['pytrec_eval'])}; load "
               f"average at start {cv.get('load_average_1min', {}).get('start', '?')}")
        targets.append(_target(
            "evaluate_run_speed",
            f"evaluate_run, {cv['Q']:,} queries x {cv['documents']:,} documents, five measures: "
            "under 2 s on 2 cores",
            rb["median_s"], 2.0, "s", rb["median_s"] < 2.0, why, applies))
        real = cv.get("realistic")
        if real:
            cpu = lambda k: real[k]["cpu_s"]  # noqa: E731
            each = "; ".join(
                f"{label} {real[k]['median_s']:.3f} s wall ({cpu(k):.3f} s CPU)"
                for label, k in (("rankbook dicts", "rankbook_dicts"),
                                 ("rankbook files", "rankbook_files"),
                                 ("pytrec_eval dicts", "pytrec_eval_dicts"),
                                 ("pytrec_eval files", "pytrec_eval_files"),
                                 ("ranx dicts warm", "ranx_dicts"),
                                 ("ranx files", "ranx_files"),
                                 ("ranx Qrels/Run built", "ranx_built"),
                                 ("ir_measures dicts", "ir_measures_dicts"),
                                 ("ir_measures files", "ir_measures_files")))
            each += f"; ranx cold (first call) {real['ranx_dicts']['first_s']:.2f} s"
            # CPU time: the peers run in the same process, one after the other, so the ratio
            # of CPU times is the one the load does not move
            ratio = min(cpu("pytrec_eval_dicts") / cpu("rankbook_dicts"),
                        cpu("pytrec_eval_files") / cpu("rankbook_files"))
            targets.append(_target(
                "evaluate_run_realistic_vs_pytrec_eval",
                f"evaluate_run on a realistic string-id run ({real['Q']} queries, "
                f"{real['rows']:,} rows, {len(real['measures'])} measures): at least as fast as "
                "pytrec_eval from the same dicts and from the same files (CPU ratio "
                "pytrec_eval/rankbook, the smaller of the two)",
                ratio, 1.0, "x", ratio >= 1.0, each, applies))
        shp = cv.get("shapes")
        if shp:
            for shape in ("tie-heavy", "tie-free", "mixed"):
                d = shp.get(shape)
                if not d:
                    continue
                targets.append(_target(
                    f"evaluate_run_dicts_{shape}_vs_pytrec_eval",
                    f"evaluate_run from dicts, {shape} run ({shp['Q']} queries, {d['rows']:,} rows, "
                    f"{d['tied_rows']:,} sharing a score, {len(shp['measures'])} measures): at "
                    "least as fast as pytrec_eval from the same dicts (CPU ratio pytrec_eval/"
                    "rankbook, medians of interleaved calls)",
                    d["ratio"], 1.0, "x", d["ratio"] >= 1.0,
                    f"rankbook {d['rankbook_cpu_s'] * 1000:.0f} ms CPU (min "
                    f"{d['rankbook_cpu_min_s'] * 1000:.0f}), pytrec_eval "
                    f"{d['pytrec_eval_cpu_s'] * 1000:.0f} ms (min {d['pytrec_eval_cpu_min_s'] * 1000:.0f}); "
                    f"largest difference from the trec_eval_9 profile {d['check_vs_trec_eval_9_profile']:.1e}",
                    applies))
    rp = results.get("reproduce")
    if rp:
        shape = ("runs with ties (one-decimal scores), unjudged documents and levels -2 to 3, "
                 if rp.get("shape") == "realistic" else "")
        targets.append(_target(
            "reproduce_speedup",
            f"rankbook reproduce, {shape}{rp['topics']} topics x {rp['documents']:,} documents x "
            f"4 runs x {len(rp['measures'])} measures (with bootstrap intervals): at least 5x "
            "faster than repro_eval on the same files",
            rp["speedup"], 5.0, "x", rp["speedup"] >= 5.0,
            why=(f"rankbook {rp['rankbook_s']:.2f} s wall ({rp['rankbook_cpu_s']:.2f} s CPU), "
                 f"repro_eval {rp['repro_eval_s']:.2f} s wall ({rp['repro_eval_cpu_s']:.2f} s CPU); "
                 f"CPU ratio {rp['speedup_cpu']:.1f}x"),
            applies=applies))
        if "speedup_cpu" in rp:  # the same runs by CPU time (user + system of each child),
            targets.append(_target(  # which a shared machine disturbs less than wall time
                "reproduce_speedup_cpu",
                f"rankbook reproduce, same runs as reproduce_speedup, by CPU time: at least 5x "
                "less than repro_eval",
                rp["speedup_cpu"], 5.0, "x", rp["speedup_cpu"] >= 5.0,
                why=(f"rankbook {rp['rankbook_cpu_s']:.2f} s CPU, repro_eval "
                     f"{rp['repro_eval_cpu_s']:.2f} s CPU (medians of "
                     f"{len(rp.get('rankbook_times', []))} interleaved runs each)"
                     + (f"; on the synthetic shape (no ties) {rp['synthetic']['speedup_cpu']:.1f}x"
                        if "synthetic" in rp else "")),
                applies=applies))
    rf = results.get("reader_10m")
    if rf:
        rb, pt = rf["rankbook"], rf["pytrec_eval"]
        cfg = (f"{rf['Q']:,} queries x {rf['documents']:,} documents ({rf['run_lines']:,} run "
               f"lines, {rf['run_bytes'] / 2**20:.0f} MiB), five measures, from the files")
        why = (f"rankbook {rb['cpu_s']:.1f} s CPU, peak {rb['peak_rss_mb']:.0f} MB; pytrec_eval "
               f"reading {pt['read_cpu_s']:.1f} s + scoring {pt['score_cpu_s']:.1f} s CPU, peak "
               f"{pt['peak_after_read_mb']:.0f} MB after reading, {pt['peak_rss_mb']:.0f} MB in "
               f"all; largest difference of the means {rf['check']:.1e}")
        targets.append(_target(
            "reader_10m_cpu", f"evaluate_run, {cfg}: within the CPU time of reading the files in "
            "Python into dicts (pytrec_eval.parse_qrel/parse_run) plus pytrec_eval (ratio "
            "pytrec_eval/rankbook)", rf["cpu_ratio"], rf["targets"]["reader_10m_cpu"], "x",
            rf["cpu_ratio"] >= rf["targets"]["reader_10m_cpu"], why, applies))
        targets.append(_target(
            "reader_10m_memory", f"evaluate_run, {cfg}: less peak memory than reading the files "
            "into dicts, and than pytrec_eval after it (ratio of the smaller of those peaks to "
            "rankbook's)", rf["memory_ratio"], rf["targets"]["reader_10m_memory"], "x",
            rf["memory_ratio"] > rf["targets"]["reader_10m_memory"], why, applies))
    tf = results.get("track_files")
    if tf:
        cfg = (f"{tf['topics']} topics x {tf['documents']:,} documents x {tf['runs']} runs "
               f"({tf['run_lines']:,} lines), {', '.join(tf['measures'])}, from the files")
        why = (f"rankbook {tf['rankbook']['cpu_s']:.2f} s CPU, pytrec_eval "
               f"{tf['pytrec_eval']['cpu_s']:.2f} s, ir_measures {tf['ir_measures']['cpu_s']:.2f} s "
               f"(each library's own readers, qrels read once); largest differences "
               f"{tf['check']['pytrec_eval']:.1e}, {tf['check']['ir_measures']:.1e}")
        for peer, key in (("pytrec-eval-terrier", "pytrec_eval"), ("ir_measures", "ir_measures")):
            ratio = tf[f"cpu_ratio_{key}"]
            limit = tf["targets"][f"track_vs_{key}"]
            targets.append(_target(
                f"track_files_vs_{key}", f"A TREC track's files to numbers, {cfg}: at least as "
                f"fast as {peer} (CPU ratio {peer}/rankbook)", ratio, limit, "x", ratio >= limit,
                why, applies))
    bk = results.get("book")
    if bk and not bk.get("skipped"):
        for key, limit, label in (("cold", 300.0, "Cold book build (nothing cached): under 5 minutes"),
                                  ("warm", 30.0, "Warm rebuild (nothing changed): under 30 s")):
            b = bk.get(key)
            if not b:
                continue
            ok = b["returncode"] == 0
            slow = sorted(b["notebooks"].items(), key=lambda kv: -(kv[1] or 0))[:3]
            site = "-" if b["site_s"] is None else f"{b['site_s']:.0f} s"
            why = ""
            if not ok:
                step = "notebooks" if b["notebooks_returncode"] else "jupyter-book"
                why = (f"the {step} step failed at commit {bk['commit']} (notebooks "
                       f"{b['notebooks_s']:.0f} s, jupyter-book {site}; the time shown is up to "
                       "the failure): " + " ".join(b.get("stderr_tail", "").split())[-400:])
            elif b["wall_s"] >= limit:
                why = (f"notebooks {b['notebooks_s']:.0f} s, jupyter-book {site}; slowest "
                       "notebooks: " + ", ".join(f"{k} {v:.0f} s" for k, v in slow))
            targets.append(_target(f"book_{key}", label, b["wall_s"], limit, "s",
                                   ok and b["wall_s"] < limit, why, applies))
    cp = results.get("compare")
    if cp:
        cfg = f"{cp['systems']} systems x {cp['queries']} queries, {cp['resamples']} resamples"
        targets.append(_target(
            "compare_speed", f"compare (intervals, randomisation test, Holm) against a baseline, "
            f"{cfg}: under 5 s on 2 cores", cp["rankbook_baseline_s"], 5.0, "s",
            cp["rankbook_baseline_s"] < 5.0, "", applies))
        targets.append(_target(
            "compare_all_pairs_speed", f"compare, every pair ({cp['all_pairs_tests']} tests), {cfg}: "
            "under 5 s on 2 cores (beyond the stated target)", cp["rankbook_all_pairs_s"], 5.0,
            "s", cp["rankbook_all_pairs_s"] < 5.0, "", applies))
    c7 = results.get("compare_7m")
    if c7:
        rb, intr = c7["rankbook"], c7["interrupt"]
        cfg = f"two runs of {c7['lines_per_run']:,} lines ({c7['measures']}, {c7['resamples']} resamples)"
        rx = c7.get("ranx")
        peer = ("; ranx not installed" if not rx else f"; ranx: {rx['failed']}" if "failed" in rx
                else f"; ranx: Run.from_file of both runs {rx['run_from_file_total_s']:.0f} s, "
                f"with Qrels.from_file and evaluate {rx['total_s']:.0f} s, peak "
                f"{rx['peak_rss_mb']:.0f} MB")
        targets.append(_target(
            "compare_7m_memory", f"rankbook compare, {cfg}: peak memory under 1 GB (VmHWM of "
            "the command, read while it runs)", rb["peak_rss_mb"], 1024.0, "MB", rb["peak_rss_mb"] < 1024.0,
            f"{rb['wall_s']:.0f} s in all{peer}", applies))
        targets.append(_target(
            "compare_7m_interrupt", f"rankbook compare, {cfg}: exits 130 or 143 within 2 s of "
            f"Ctrl-C or SIGTERM (the slower: {intr.get('signal', 'SIGINT')} sent after "
            f"{intr['interrupt_at_s']:.0f} s)", intr["exit_after_interrupt_s"],
            2.0, "s", intr["exit_after_interrupt_s"] < 2.0
            and intr["status"] == intr.get("expected_status", 130),
            f"exit status {intr['status']}", applies))
    cc = results.get("cold_call")
    if cc:
        rb, sc, nb = cc["rankbook"], cc["scipy_loop"], cc["rankbook_forced_numba"]
        targets.append(_target(
            "cold_first_call", f"First call in a fresh process, Kendall tau of {cc['B']} pairs of "
            f"S_{cc['n']} (import included): no slower than a loop over scipy.stats.kendalltau",
            sc["median_s"] / rb["median_s"], 1.0, "x", rb["median_s"] <= sc["median_s"],
            f"rankbook {rb['median_s']:.3f} s (numba imported: {rb['numba_imported']}), scipy loop "
            f"{sc['median_s']:.3f} s; with numba forced and an empty cache {nb['median_s']:.2f} s",
            applies))
        wc = cc.get("warm_cache")
        if wc:
            why = (f"CPU: scipy loop {wc['scipy_loop_cpu_s']:.3f} s, rankbook second call "
                   f"{wc['second_call_cpu_s']:.4f} s, later calls median "
                   f"{wc['later_calls_cpu_s']:.4f} s ({wc['speedup_later_calls_cpu']:.0f}x); wall: "
                   f"scipy loop {wc['scipy_loop_s']:.3f} s, rankbook first call "
                   f"{wc['first_call_s']:.3f} s (loads the kernels from numba's cache: "
                   f"{wc['load_from_cache_s']:.2f} s, against {wc['load_from_nothing_s']:.2f} s to "
                   f"compile them), second {wc['second_call_s']:.4f} s "
                   f"({wc['speedup_second_call']:.0f}x); load_cost saw "
                   f"{', '.join(wc['load_cost_source'])}")
            targets.append(_target(
                "kendall_second_call_vs_scipy",
                f"Kendall tau of {wc['B']} pairs of rankings of {wc['n']}, from the second call of "
                "a process (numba's cache holding the kernels): at least 20x a loop over "
                "scipy.stats.kendalltau (CPU time)", wc["speedup_second_call_cpu"], 20.0, "x",
                wc["speedup_second_call_cpu"] >= 20.0, why, applies))
    wt = results.get("weak_tau")
    if wt:
        worst = max(wt["rows"], key=lambda r: r["peak_rss_mb"])
        slow = max(wt["rows"], key=lambda r: r["seconds"])
        targets.append(_target(
            "weak_tau_memory", f"Expected Kendall tau and NDPM between weak orders, n={wt['n']}: "
            "peak memory under 1 GB (VmHWM of the fresh process)", worst["peak_rss_mb"], 1024.0,
            "MB", worst["peak_rss_mb"] < 1024.0,
            f"largest: {worst['metric']} on {worst['pattern']}; slowest: {slow['metric']} on "
            f"{slow['pattern']}, {slow['seconds']:.2f} s", applies))
    rt = results.get("rbo_tau_ap")
    if rt:
        rr, ta = rt["rbo_range"], rt["tau_ap"]
        targets.append(_target(
            "rbo_range_vs_brute",
            f"RBO^low, RBO^avg and RBO^high (RBO_ext) of two lists of {rr['items']} items with "
            f"{rr['orders']:,} pairs of tie orders: at least 1000x faster than enumerating the "
            "orders", rr["speedup"], 1000.0, "x", rr["speedup"] >= 1000.0,
            why=(f"rankbook {rr['rankbook_s'] * 1e3:.2f} ms; brute force "
                 f"{rr['brute_per_order_s'] * 1e6:.0f} us per pair of orders (extrapolated from "
                 f"{rr['brute_subsample']:,}); exact on {rr['check']['orders']:,} orders to "
                 f"{rr['check']['abs_diff']:.1e}"), applies=applies))
        lg = rr["large"]
        targets.append(_target(
            "rbo_range_large",
            f"RBO^low, RBO^avg and RBO^high of two lists of {lg['n']:,} items in {lg['groups']:,} "
            f"tie groups (10^{lg['log10_orders']:.0f} orders): under 1 s", lg["rankbook_s"], 1.0,
            "s", lg["rankbook_s"] < 1.0, why=f"{lg['cpu_s']:.2f} s CPU", applies=applies))
        if "speedup" in ta:
            targets.append(_target(
                "tau_ap_vs_pypi",
                f"tau_AP of {ta['B']:,} pairs of {ta['n']} items, batched: at least 100x faster "
                "than a loop over tau-ap 0.1.0 (each pair sorted by the estimate first)",
                ta["speedup"], 100.0, "x", ta["speedup"] >= 100.0,
                why=(f"rankbook {ta['rankbook_s'] * 1e3:.1f} ms; tau-ap {ta['pypi']['per_pair_s'] * 1e3:.1f} "
                     f"ms per pair (extrapolated from {ta['pypi']['subsample']}); values equal to "
                     f"{ta['pypi']['abs_diff']:.1e}"), applies=applies))
        a = ta["tau_ap_a"]
        targets.append(_target(
            "tau_ap_a_vs_brute",
            f"tau_AP_a with ties in groups of 3 ({a['orders']} orders of {a['n']} items): at least "
            "100x faster than the mean of tau_AP over the orders", a["brute_s"] / a["rankbook_s"],
            100.0, "x", a["brute_s"] >= 100.0 * a["rankbook_s"],
            why=f"equal to {a['abs_diff']:.1e}", applies=applies))
        b = ta["large_b"]
        targets.append(_target(
            "tau_ap_b_large",
            f"tau_AP_b of one pair of {b['n']:,} scores with ties: under 5 s of CPU (O(n log n))",
            b["cpu_s"], 5.0, "s", b["cpu_s"] < 5.0,
            why=f"wall {b['rankbook_s']:.2f} s on the shared machine", applies=applies))
    tt = results.get("ties_tukey")
    if tt:
        targets += _ties_tukey_targets(tt, applies)
    return targets


def _ties_tukey_targets(tt: dict, applies: bool) -> list:
    """The targets of issue 40: tie ranges and Tukey's HSD."""
    tr, tb, tk, kb = tt["tie_range"], tt["tie_brute_force"], tt["tukey"], tt["tukey_brute_force"]
    out = [
        _target("tie_range_speed",
                f"evaluate_run(ties='range'), reciprocal rank fusion of {tr['queries']:,} queries "
                f"({tr['rows']:,} rows), {', '.join(tr['measures'])}: under 2 s",
                tr["range_s"], 2.0, "s", tr["range_s"] < 2.0,
                f"{tr['overhead']:.1f}x evaluate_run without the range ({tr['plain_s']:.2f} s); "
                f"the tie order moves nDCG@10 on {tr['queries_moved_ndcg10']} queries", applies),
        _target("tie_range_vs_brute_force",
                f"evaluate_run(ties='range') on {tb['queries']} queries of {tb['documents']} "
                f"documents ({tb['orders_per_query']} tie orders each): at least 100x brute force "
                "over every order, with the same lowest, highest and mean values",
                tb["speedup"], 100.0, "x",
                tb["speedup"] >= 100.0 and tb["max_abs_difference"] < 1e-12,
                f"rankbook {tb['rankbook_s'] * 1e3:.1f} ms, brute force {tb['brute_force_s']:.2f} s; "
                f"largest difference {tb['max_abs_difference']:.1e}", applies),
        _target("tukey_vs_scipy",
                f"tukey_hsd, {tk['systems']} systems x {tk['topics']} topics: at least as fast as "
                "scipy.stats.tukey_hsd (one-way, the same p-values)",
                tk["speedup_vs_scipy"], 1.0, "x", tk["speedup_vs_scipy"] >= 1.0
                and tk["max_abs_p_difference_vs_scipy"] < 1e-9,
                f"scipy {tk['scipy_s']:.2f} s, rankbook one-way {tk['one_way_s']:.2f} s, two-way "
                f"{tk['two_way_s']:.2f} s (both evaluate the studentized range once per pair; "
                "scipy once per ordered pair and the diagonal)", applies),
        _target("randomized_tukey_speed",
                f"randomized_tukey_hsd, {tk['systems']} systems x {tk['topics']} topics, "
                f"{tk['randomized_resamples']:,} permutations: under 5 s",
                tk["randomized_s"], 5.0, "s", tk["randomized_s"] < 5.0, "", applies),
        _target("randomized_tukey_vs_brute_force",
                f"randomized_tukey_hsd exact, {kb['systems']} systems x {kb['topics']} topics "
                f"({kb['orders']:,} label orders): at least 50x a loop over itertools.product",
                kb["speedup"], 50.0, "x", kb["speedup"] >= 50.0,
                f"rankbook {kb['rankbook_s'] * 1e3:.1f} ms (the first topic fixed: "
                f"{kb['orders'] // 6:,} orders), brute force {kb['brute_force_s']:.2f} s", applies),
    ]
    return out


# ------------------------------------------------------------------------------------------
# the printed table


def print_table(results: dict) -> None:
    rows = table_rows(results)
    _fmt_s = fmt_s
    head = ("case", "configuration", "rankbook", "peer", "peer time", "peer/rankbook")
    body = [(a, b, _fmt_s(c), d, _fmt_s(e), f"{e / c:,.1f}x" if e and c else "-")
            for a, b, c, d, e in rows]
    widths = [max(len(str(x[i])) for x in [head] + body) for i in range(len(head))]
    line = "  ".join("{:<%d}" % w for w in widths)
    print(line.format(*head))
    print("  ".join("-" * w for w in widths))
    for r in body:
        print(line.format(*r))
    print()
    for t in results.get("targets", []):
        status = "n/a (quick)" if t["met"] is None else ("MET" if t["met"] else "MISSED")
        extra = f"  [{t['miss_by']}]" if t.get("miss_by") else ""
        meas = "-" if t["measured"] is None else f"{t['measured']:.3g} {t['unit']}"
        print(f"{status:12s} {t['description']}: {meas}{extra}")
        if t.get("why") and not t["met"]:
            print(f"             why: {t['why']}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="every case at reduced size")
    ap.add_argument("--only", default="", help=f"comma-separated cases ({', '.join(CASES)})")
    ap.add_argument("--out", default=None,
                    help="JSON output (default benchmarks/results.json, or "
                         "benchmarks/results_quick.json with --quick)")
    args = ap.parse_args(argv)
    only = [c.strip() for c in args.only.split(",") if c.strip()] or list(CASES)
    for c in only:
        if c not in CASES:
            ap.error(f"unknown case {c!r}; valid: {', '.join(CASES)}")
    out = Path(args.out) if args.out else ROOT / "benchmarks" / (
        "results_quick.json" if args.quick else "results.json")
    results = {}
    if args.only and out.exists():
        previous = json.loads(out.read_text())
        if previous.get("meta", {}).get("mode") == ("quick" if args.quick else "full"):
            results = previous.get("cases", {})
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    for case in only:
        log(f"== {case} ==")
        results[case] = run_case(case, args.quick)
        log(f"== {case}: {results[case]['case_seconds']:.1f} s ==")
    total = time.perf_counter() - t0
    doc = {
        "meta": {
            "mode": "quick" if args.quick else "full",
            "date_utc": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": _commit(),
            "seconds": total,
            "cases_run": only,
            "load_average_1_5_15min": {"start": [round(x, 2) for x in load_before],
                                       "end": [round(x, 2) for x in os.getloadavg()]},
            "machine": _machine(),
            "timing": ("wall clock (time.perf_counter) around each call; medians of up to 3 "
                       "repeats (fewer where one call takes longer than the case's budget; the "
                       "individual times are kept); per-pair peer loops are timed on a "
                       "subsample of pairs and extrapolated linearly (marked extrapolated)"),
        },
        "cases": results,
    }
    doc["targets"] = evaluate_targets(results, args.quick)
    doc["scaling"] = [s for c in CASES if c in results for s in _scalings(results[c])]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=False, default=float) + "\n")
    os.replace(tmp, out)
    print_table({**results, "targets": doc["targets"]})
    print(f"\nwrote {out} ({total:.0f} s)")
    return 0


def _scalings(case: dict) -> list:
    out = list(case.get("scaling", []))
    if "rbo" in case:
        out += case["rbo"].get("scaling", [])
    return out


if __name__ == "__main__":
    sys.exit(main())
