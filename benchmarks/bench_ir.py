"""IR measures (nDCG@10, AP, RR over 10^4 queries of 100 documents) against ranx and
ir_measures, and RBO on 10^4 list pairs against the ``rbo`` package.

Inputs: each query returns 100 documents; their graded relevance (0-3, about 15 % relevant,
at least one relevant per query) is drawn at random; the run scores are 100, 99, ..., 1 in rank
order (no ties). Every relevant document is in the list, so every library's AP denominator
(relevant documents judged) equals rankbook's default, and nDCG's ideal list is the same.

Each library gets the same data in its own native form, built outside the timings:

* rankbook: the 10^4 x 100 relevance matrix in rank order, scored by one
  ``ir.evaluate(rel, ["ndcg@10", "ap", "rr"])`` call (validates the batch once); each measure's
  own helper (``ir.mean_ndcg``, ``ir.mean_average_precision``, ``ir.mean_reciprocal_rank``) is
  also timed alone, and the three separate calls together;
* ranx: ``Qrels``/``Run`` built from dicts (its documented use; building them is timed
  separately), and the numpy fast path (arrays of (doc id, score) rows, passed straight to its
  numba kernels);
* ir_measures: qrels and run dicts (``calc_aggregate``; pytrec_eval backend).

ranx compiles its numba kernels on first use. ``cold`` is the first evaluation in a fresh
process whose numba cache directory (NUMBA_CACHE_DIR) is empty, so the compile time is
included; ``cold_cached`` the same with the on-disk cache filled by a previous process; ``warm``
the median of later calls in the same process. rankbook's and ir_measures' ``cold`` is likewise
the first call in a fresh process (after import). Import times are reported separately.
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np

from common import fit_slope, log, per_item_time, run_child, timed

METRICS_RANX = ["ndcg@10", "map", "mrr"]


def make_queries(Q: int, D: int = 100, seed: int = 0):
    rng = np.random.default_rng(seed)
    rel = rng.choice([0, 1, 2, 3], p=[0.85, 0.08, 0.05, 0.02], size=(Q, D)).astype(np.float64)
    none = rel.sum(axis=1) == 0
    rel[none, rng.integers(0, D, size=int(none.sum()))] = 1.0
    ids = rng.permuted(np.tile(np.arange(D), (Q, 1)), axis=1)  # doc id at each rank
    return rel, ids


def as_dicts(rel, ids):
    Q, D = rel.shape
    qrels, run = {}, {}
    for q in range(Q):
        key = f"q{q}"
        qrels[key] = {f"d{int(ids[q, j])}": int(rel[q, j]) for j in range(D) if rel[q, j] > 0}
        run[key] = {f"d{int(ids[q, j])}": float(D - j) for j in range(D)}
    return qrels, run


def as_ranx_arrays(rel, ids):
    Q, D = rel.shape
    order = np.argsort(-rel, axis=1, kind="stable")
    qr = np.empty((Q, D, 2))
    qr[:, :, 0] = np.take_along_axis(ids, order, axis=1)
    qr[:, :, 1] = np.take_along_axis(rel, order, axis=1)
    rn = np.empty((Q, D, 2))
    rn[:, :, 0] = ids
    rn[:, :, 1] = D - np.arange(D)[None, :]
    return qr, rn


def child_rankbook(Qs: list, seed: int = 0) -> dict:
    t0 = time.perf_counter()
    from rankbook import ir

    t_import = time.perf_counter() - t0
    out = {"import_s": t_import, "warm": {}}
    for i, Q in enumerate(Qs):
        rel, _ = make_queries(Q, seed=seed)

        def call():
            out = ir.evaluate(rel, ["ndcg@10", "ap", "rr"])
            return out["ndcg@10"], out["ap"], out["rr"]

        def separate():
            return (ir.mean_ndcg(rel, k=10), ir.mean_average_precision(rel),
                    ir.mean_reciprocal_rank(rel))

        if i == 0:
            t0 = time.perf_counter()
            vals = call()
            out["cold_s"] = time.perf_counter() - t0
            out["values"] = [float(v) for v in vals]
            out["Q"] = Q
        t = timed(call, repeats=5, budget=10)
        out["warm"][str(Q)] = t["median"]
        if i == 0:
            out["warm_each"] = {
                "ndcg@10": timed(lambda: ir.mean_ndcg(rel, k=10), repeats=5)["median"],
                "map": timed(lambda: ir.mean_average_precision(rel), repeats=5)["median"],
                "mrr": timed(lambda: ir.mean_reciprocal_rank(rel), repeats=5)["median"],
            }
            sep = timed(separate, repeats=5)
            assert list(sep["value"]) == list(vals), "evaluate differs from the single helpers"
            out["warm_three_calls"] = sep["median"]
            # fractional grades take the sorting path of the ideal top-k instead of counting
            frac = rel + 0.5 * (rel > 0)
            out["warm_fractional_grades"] = timed(
                lambda: ir.evaluate(frac, ["ndcg@10", "ap", "rr"]), repeats=5)["median"]
    return out


def child_ranx(Qs: list, path: str, seed: int = 0) -> dict:
    t0 = time.perf_counter()
    import ranx

    t_import = time.perf_counter() - t0
    out = {"import_s": t_import, "warm": {}, "path": path,
           "numba_threads": int(__import__("numba").get_num_threads())}
    for i, Q in enumerate(Qs):
        rel, ids = make_queries(Q, seed=seed)
        if path == "dict":
            qd, rd = as_dicts(rel, ids)
            t0 = time.perf_counter()
            qrels, run = ranx.Qrels.from_dict(qd), ranx.Run.from_dict(rd)
            build = time.perf_counter() - t0

            def call():
                return ranx.evaluate(qrels, run, METRICS_RANX, save_results_in_run=False)
        else:
            qrels, run = as_ranx_arrays(rel, ids)
            build = 0.0

            def call():
                return ranx.evaluate(qrels, run, METRICS_RANX)
        if i == 0:
            t0 = time.perf_counter()
            vals = call()
            out["cold_s"] = time.perf_counter() - t0
            out["build_s"] = build
            out["values"] = [float(vals[m]) for m in METRICS_RANX]
            out["Q"] = Q
        t = timed(call, repeats=5, budget=10)
        out["warm"][str(Q)] = t["median"]
        if i == 0 and path == "numpy":
            import numba

            threads = numba.get_num_threads()
            one = timed(lambda: ranx.evaluate(qrels, run, METRICS_RANX, threads=1), repeats=5)
            numba.set_num_threads(threads)
            out["warm_1thread"] = one["median"]
    return out


def child_irm(Qs: list, seed: int = 0) -> dict:
    t0 = time.perf_counter()
    import ir_measures
    from ir_measures import AP, RR, nDCG

    t_import = time.perf_counter() - t0
    measures = [nDCG @ 10, AP, RR]
    out = {"import_s": t_import, "warm": {}}
    for i, Q in enumerate(Qs):
        rel, ids = make_queries(Q, seed=seed)
        qd, rd = as_dicts(rel, ids)

        def call():
            return ir_measures.calc_aggregate(measures, qd, rd)
        if i == 0:
            t0 = time.perf_counter()
            vals = call()
            out["cold_s"] = time.perf_counter() - t0
            out["values"] = [float(vals[m]) for m in measures]
            out["Q"] = Q
        t = timed(call, repeats=3, budget=10)
        out["warm"][str(Q)] = t["median"]
    return out


def rbo_pairs(count: int, depth: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    universe = int(depth * 1.5)
    out = []
    for _ in range(count):
        perm = rng.permutation(universe)
        S = perm[:depth].tolist()
        noisy = np.argsort(np.arange(universe) + rng.normal(0, depth / 5, universe), kind="stable")
        T = perm[noisy][:depth].tolist()
        out.append((S, T))
    return out


def run_rbo(quick: bool) -> dict:
    import rbo as rbo_pkg

    from rankbook import rbo as R

    P = 0.9
    count = 1000 if quick else 10_000
    pairs = rbo_pairs(count, 100, seed=1)
    ours = lambda: [(R.rbo(S, T, P), R.rbo_ext(S, T, P)) for S, T in pairs]  # noqa: E731

    def theirs():
        out = []
        for S, T in pairs:
            rs = rbo_pkg.RankingSimilarity(S, T)
            out.append((rs.rbo(p=P), rs.rbo_ext(p=P)))
        return out

    log(f"[rbo] {count} pairs of depth 100")
    t_ours = timed(ours, repeats=3, budget=20)
    t_theirs = timed(theirs, repeats=3, budget=30)
    a, b = np.array(t_ours["value"]), np.array(t_theirs["value"])
    diff = float(np.max(np.abs(a - b)))
    depths = [10, 100, 1000] if not quick else [10, 100, 300]
    scal_ours, scal_theirs = [], []
    for d in depths:
        ps = rbo_pairs(200, d, seed=2)
        scal_ours.append(per_item_time(lambda st: (R.rbo(st[0], st[1], P), R.rbo_ext(st[0], st[1], P)),
                                       ps, budget=0.3)["per_item"])
        scal_theirs.append(per_item_time(
            lambda st: (lambda rs: (rs.rbo(p=P), rs.rbo_ext(p=P)))(rbo_pkg.RankingSimilarity(st[0], st[1])),
            ps, budget=0.3)["per_item"])
    return {
        "pairs": count, "depth": 100, "p": P, "rankbook_s": t_ours["median"],
        "rankbook_times": t_ours["times"], "rbo_package_s": t_theirs["median"],
        "rbo_package_times": t_theirs["times"], "speedup": t_theirs["median"] / t_ours["median"],
        "max_abs_diff": diff,
        "notes": ("Both libraries are called once per pair in a Python loop over the same lists "
                  "of integer items (rankbook has no batch API for RBO): rankbook rbo.rbo + "
                  "rbo.rbo_ext, the rbo package RankingSimilarity(S, T).rbo(p) + .rbo_ext(p), "
                  "p = 0.9, depth 100."),
        "scaling": [
            {"case": "rbo", "series": "rankbook rbo + rbo_ext, per pair", "x_name": "depth",
             "x": depths, "t": scal_ours, "slope": fit_slope(depths, scal_ours),
             "theory": "O(depth)", "theory_slope": 1.0,
             "comment": "per-call overhead dominates at small depth"},
            {"case": "rbo", "series": "rbo package rbo + rbo_ext, per pair", "x_name": "depth",
             "x": depths, "t": scal_theirs, "slope": fit_slope(depths, scal_theirs),
             "theory": "O(depth)", "theory_slope": 1.0, "comment": ""},
        ],
    }


def run(quick: bool = False) -> dict:
    Qs = [1000, 3000] if quick else [10_000, 1000, 3000, 30_000]
    Q = Qs[0]
    log(f"[ir] rankbook, Q = {Q}")
    rb = run_child("bench_ir", "child_rankbook", {"Qs": Qs})
    res = {"Q": Q, "docs": 100, "rankbook": rb}
    paths = ("numpy",) if quick else ("dict", "numpy")
    for path in paths:
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
            env = {"NUMBA_CACHE_DIR": cache}
            log(f"[ir] ranx ({path}), empty numba cache")
            cold = run_child("bench_ir", "child_ranx", {"Qs": Qs, "path": path}, env=env)
            if not quick:
                log(f"[ir] ranx ({path}), numba cache filled")
                cached = run_child("bench_ir", "child_ranx", {"Qs": Qs[:1], "path": path}, env=env)
                cold["cold_cached_s"] = cached["cold_s"]
        res[f"ranx_{path}"] = cold
    log("[ir] ir_measures")
    res["ir_measures"] = run_child("bench_ir", "child_irm", {"Qs": Qs})
    ref = np.array(rb["values"])
    names = [f"ranx_{p}" for p in paths] + ["ir_measures"]
    res["check"] = {name: float(np.max(np.abs(np.array(res[name]["values"]) - ref)))
                    for name in names}
    rk_warm = rb["warm"][str(Q)]
    ranx_cold = min(res[f"ranx_{p}"]["cold_s"] for p in paths)
    res["speedup_vs_ranx_cold"] = ranx_cold / rk_warm
    res["speedup_vs_ranx_warm"] = min(res[f"ranx_{p}"]["warm"][str(Q)] for p in paths) / rk_warm
    res["speedup_cold_vs_cold"] = ranx_cold / rb["cold_s"]
    xs = sorted(int(q) for q in rb["warm"])
    res["scaling"] = []
    for name, label in (("rankbook", "rankbook (warm)"), ("ranx_numpy", "ranx numpy path (warm)"),
                        ("ranx_dict", "ranx Qrels/Run (warm)"), ("ir_measures", "ir_measures (warm)")):
        if name not in res:
            continue
        t = [res[name]["warm"][str(q)] for q in xs]
        res["scaling"].append({"case": "ir", "series": label, "x_name": "queries", "x": xs, "t": t,
                               "slope": fit_slope(xs, t),
                               # rankbook counts grades for whole grades <= 16 instead of sorting
                               "theory": ("O(Q D G), G = top grade (O(Q D log D) for fractional "
                                          "grades)" if name == "rankbook" else "O(Q D log D)"),
                               "theory_slope": 1.0, "comment": ""})
    res["notes"] = (
        "All three measures together per call (rankbook: one ir.evaluate call; warm_each = each "
        "measure's own helper alone, warm_three_calls = the three helpers called one after the "
        "other, warm_fractional_grades = the evaluate call on the same lists with 0.5 added to "
        "every positive grade, which sorts for the ideal nDCG instead of counting grades). "
        "ranx runs its numba kernels on "
        f"{res['ranx_numpy']['numba_threads']} threads (its default); rankbook is numpy on one "
        "thread. speedup_vs_ranx_cold = the faster of ranx's two cold first calls (compile "
        "included) / rankbook warm; speedup_vs_ranx_warm = faster ranx warm / rankbook warm; "
        "speedup_cold_vs_cold compares first calls in fresh processes on both sides. check = "
        "largest absolute difference of the three means from rankbook's.")
    res["rbo"] = run_rbo(quick)
    return res
