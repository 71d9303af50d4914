"""Agreement matrix: the 33 x 33 agreement ratios of Figure 1 on |T| = 10^4 rankings of S_100.

rankbook: ``agreement.agreement_matrix(n=100, n_pairs=|T|, k=30, seed=0)`` (the paper's setting,
including drawing the sample and evaluating the 33 metrics). Each entry is a concordance count
in O(|T| log |T|).

Reference: the O(|T|^2) definition, ``agreement.agreement_ratio_bruteforce`` (the double sum of
Def. 2 over all ordered pairs of the sample), on the same metric values. At |T| = 10^4 one entry
needs a 10^8-cell table, so it is timed on subsamples of the values for a fixed set of metric
pairs, and extrapolated by (|T| / m)^2 and to all 528 off-diagonal pairs of metrics (plus the 33
diagonal ones). On each subsample its ratios are checked to equal rankbook's.
"""

from __future__ import annotations

import numpy as np

from common import fit_slope, log, timed


def run(quick: bool = False) -> dict:
    from rankbook import agreement as A
    from rankbook import metrics as M

    names = list(M.NAMES)
    T = 2000 if quick else 10_000
    sizes = [500, 1000, 2000] if quick else [1000, 3000, 10_000, 30_000]
    brute_m = [100, 200, 400] if quick else [250, 500, 1000, 2000]
    log(f"[agreement] rankbook agreement_matrix, |T| = {T}")
    main = timed(lambda: A.agreement_matrix(names, n=100, n_pairs=T, k=30, seed=0), repeats=3,
                 budget=30)
    df = main["value"]
    # where the time goes: the 33 metrics vs the 561 concordance counts
    refs, rankings = A.sample(100, T, seed=0)
    t_values = timed(lambda: M.evaluate_many(names, refs, rankings, k=30), repeats=3, budget=10)
    values = t_values["value"]

    scal_t = []
    for size in sizes:
        log(f"[agreement] scaling |T| = {size}")
        scal_t.append(timed(lambda: A.agreement_matrix(names, n=100, n_pairs=size, k=30, seed=0),
                            repeats=3 if size <= 10_000 else 1, budget=20)["median"])

    # brute force on subsamples, a fixed spread of metric pairs
    pairs = [(names[i], names[j]) for i in range(len(names)) for j in range(i, len(names))]
    pick = pairs[:: max(1, len(pairs) // 12)][:12]
    brute = []
    max_diff = 0.0
    for m in brute_m:
        per_pair = []
        for a, b in pick:
            x, y = values[a][:m], values[b][:m]
            tb = timed(lambda: A.agreement_ratio_bruteforce(x, y, reverse="auto"), repeats=3, budget=5)
            fast = A.agreement_ratio_from_values(x, y, reverse="auto")
            if not (np.isnan(tb["value"]) and np.isnan(fast)):
                max_diff = max(max_diff, abs(tb["value"] - fast))
            per_pair.append(tb["median"])
        brute.append({"m": m, "seconds_per_metric_pair": float(np.median(per_pair)),
                      "metric_pairs_timed": len(pick)})
        log(f"[agreement] brute force m = {m}: {np.median(per_pair) * 1e3:.1f} ms per metric pair")
    # extrapolate from the largest subsample, quadratically in |T|
    last = brute[-1]
    n_entries = len(pairs)
    brute_full = last["seconds_per_metric_pair"] * (T / last["m"]) ** 2 * n_entries
    # the symmetric matrix equals its transpose and dcg-ndcg etc. are 1, as a sanity check
    sym = bool(np.allclose(df.values, df.values.T, equal_nan=True))
    return {
        "T": T, "n": 100, "k": 30, "rankbook_s": main["median"], "rankbook_times": main["times"],
        "metric_values_s": t_values["median"],
        "concordance_s": main["median"] - t_values["median"],
        "bruteforce_s": brute_full, "bruteforce_extrapolated": True,
        "bruteforce_from_m": last["m"], "bruteforce_subsamples": brute,
        "speedup": brute_full / main["median"],
        "check": {"max_abs_diff_bruteforce_vs_rankbook": max_diff, "symmetric": sym,
                  "dcg_ndcg": float(df.loc["dcg", "ndcg"]), "mse_rmse": float(df.loc["mse", "rmse"])},
        "scaling_T": sizes, "scaling_t": scal_t,
        "notes": (
            "rankbook time includes drawing T and evaluating all 33 metrics (metric_values_s) "
            "plus 561 concordance counts. The brute-force reference is agreement_ratio_bruteforce "
            f"timed on {len(pick)} metric pairs at subsample sizes m, extrapolated by (T/m)^2 "
            f"from m = {last['m']} to T = {T} and to all {n_entries} entries of the upper "
            "triangle; on every subsample it gives the same ratio as the O(T log T) count "
            "(check.max_abs_diff_bruteforce_vs_rankbook)."),
        "scaling": [
            {"case": "agreement", "series": "rankbook agreement_matrix (33 x 33)", "x_name": "|T|",
             "x": sizes, "t": scal_t, "slope": fit_slope(sizes, scal_t),
             "theory": "O(33 |T| n log n + 561 |T| log |T|)", "theory_slope": 1.0, "comment": ""},
            {"case": "agreement", "series": "O(|T|^2) definition, one metric pair", "x_name": "|T|",
             "x": [b["m"] for b in brute], "t": [b["seconds_per_metric_pair"] for b in brute],
             "slope": fit_slope([b["m"] for b in brute], [b["seconds_per_metric_pair"] for b in brute]),
             "theory": "O(|T|^2)", "theory_slope": 2.0, "comment": ""},
        ],
    }
