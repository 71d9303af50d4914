"""compare: 50 systems x 10,000 queries, 1,000 resamples (issue 22).

rankbook: ``stats.compare`` on the tidy table of ``stats.simulate_benchmark`` (50 systems,
10,000 queries), BCa intervals of every mean and difference from 1,000 bootstrap resamples and
the randomisation test with 1,000 Monte Carlo sign assignments, Holm-corrected; once against a
baseline (49 tests) and once for every pair (1,225 tests). The time includes reading the tidy
table (500,000 rows) into the systems x queries matrix.

Peer: what the same numbers cost with scipy alone, on the same matrix: ``scipy.stats.bootstrap``
(BCa, 1,000 resamples, vectorised over the 50 systems and over the 49 differences) plus
``scipy.stats.permutation_test`` (paired, 1,000 resamples, vectorised over the 49 pairs).
scipy's BCa jackknife materialises q x (q - 1) values per row (37 GB here without ``batch``),
so it runs with ``batch=40``.
"""

from __future__ import annotations

import numpy as np

from common import log, timed


def run(quick: bool = False) -> dict:
    from scipy import stats as sps

    from rankbook import stats as S

    n_sys, q, B = (20, 2000, 1000) if quick else (50, 10_000, 1000)
    effects = np.linspace(0.0, 0.2, n_sys)
    df = S.simulate_benchmark(effects, n_queries=q, seed=0)
    log(f"[compare] rankbook compare, {n_sys} systems x {q} queries, {B} resamples, baseline")
    base = timed(lambda: S.compare(df, baseline="s1", n_resamples=B, seed=0), repeats=3, budget=30)
    log("[compare] rankbook compare, every pair")
    allp = timed(lambda: S.compare(df, n_resamples=B, seed=0), repeats=3, budget=40)
    n_pairs = len(allp["value"].pairs)
    M = df.pivot(index="system", columns="query_id", values="value").reindex(
        [f"s{i + 1}" for i in range(n_sys)]).to_numpy()

    def scipy_peer():
        # batch bounds scipy's memory: its BCa jackknife builds q x (q - 1) values per row
        sps.bootstrap((M,), np.mean, n_resamples=B, rng=0, axis=-1, method="BCa", batch=40)
        D = M[1:] - M[0]
        sps.bootstrap((D,), np.mean, n_resamples=B, rng=0, axis=-1, method="BCa", batch=40)
        return sps.permutation_test((M[1:], np.broadcast_to(M[0], M[1:].shape)),
                                    lambda a, b, axis=-1: np.mean(a - b, axis=axis),
                                    permutation_type="samples", n_resamples=B, rng=0, axis=-1)

    log("[compare] scipy bootstrap + permutation_test, baseline")
    peer = timed(scipy_peer, repeats=1, budget=120)
    # the same decisions: rankbook's Monte Carlo p-values against scipy's, within MC error
    p_ours = base["value"].pairs.p_value.to_numpy()
    p_scipy = np.asarray(peer["value"].pvalue)
    return {
        "systems": n_sys, "queries": q, "resamples": B,
        "rankbook_baseline_s": base["median"], "rankbook_baseline_times": base["times"],
        "rankbook_all_pairs_s": allp["median"], "rankbook_all_pairs_times": allp["times"],
        "all_pairs_tests": n_pairs,
        "scipy_baseline_s": peer["median"],
        "speedup_vs_scipy": peer["median"] / base["median"],
        "check": {"max_abs_p_difference_vs_scipy": float(np.max(np.abs(p_ours - p_scipy)))},
        "notes": ("rankbook's times include turning the 500,000-row tidy table into the "
                  "systems x queries matrix, BCa intervals for every mean and difference, the "
                  "randomisation test and the Holm correction; the scipy peer computes the same "
                  "intervals and p-values (Monte Carlo, so p-values agree within resampling "
                  "error) on the matrix directly."),
    }
