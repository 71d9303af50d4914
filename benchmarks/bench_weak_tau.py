"""Kendall's tau between weak orders at n = 20 000 (issue 31): time and peak memory.

``metrics.kendall_tau(sigma, nu, ties="expected")`` and ``metrics.ndpm(..., ties="expected")``
on one pair of weak orders of n items, each in a fresh process: the wall time of the call and
the process's peak resident set size (VmHWM, interpreter and imports included), beside the
same process's resident size before the call. Three tie patterns: random tie groups (a new group
at each position with probability 0.3, mean size 3.3), groups of 100 offset by 50 between the
two rankings, ten singletons followed by one tie of all the others against a ranking without
ties, and a tie of half the items in each ranking (positions 1 to n/2 and n/4 to 3n/4) among
singletons. Before issue 31 the expected tau held several n x n float arrays (2.2 GB at
n = 6 000; killed at n = 20 000).

Beside them, ``metrics.kendall_tau_b`` of two score vectors with ties (n = 20 000 and 10^6)
against ``scipy.stats.kendalltau`` on the same vectors (variant b), both in this process.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from common import maxrss_mb, run_child


def _pattern(name: str, n: int, rng):
    if name == "random_groups":
        return (np.cumsum(np.r_[True, rng.random(n - 1) < 0.3]),
                np.cumsum(np.r_[True, rng.random(n - 1) < 0.3]))
    if name == "groups_of_100":
        return np.arange(n) // 100, (np.arange(n) + 50) // 100
    if name == "top10_then_tie":
        return np.r_[np.arange(10), np.full(n - 10, 10)], np.arange(n)
    if name == "half_ties_offset":
        h, q = n // 2, n // 4
        return (np.r_[np.zeros(h, int), np.arange(1, n - h + 1)],
                np.r_[np.arange(q), np.full(h, q), np.arange(q + 1, q + 1 + n - q - h)])
    raise ValueError(name)


def child(pattern: str, n: int, metric: str) -> dict:
    from rankbook import metrics as M
    from rankbook import ties as T

    rng = np.random.default_rng(31)
    bs, bv = _pattern(pattern, n, rng)
    sigma = T.WeakOrder(rng.permutation(n) + 1, bs)
    nu = T.WeakOrder(rng.permutation(n) + 1, bv)
    before = maxrss_mb()
    t0 = time.perf_counter()
    val = float(getattr(M, metric)(sigma, nu, ties="expected"))
    t1 = time.perf_counter()
    return {"seconds": t1 - t0, "peak_rss_mb": maxrss_mb(), "rss_before_mb": before, "value": val}


def tau_b_vs_scipy(n: int, repeats: int) -> dict:
    import scipy.stats as st

    from rankbook import metrics as M

    rng = np.random.default_rng(n)
    x = rng.integers(0, 50, n).astype(float)
    y = np.round(x + rng.normal(0, 20, n))
    times = {"rankbook": [], "scipy": []}
    for _ in range(repeats):
        t0 = time.perf_counter()
        a = M.kendall_tau_b(x, y)
        t1 = time.perf_counter()
        b = st.kendalltau(x, y).statistic
        t2 = time.perf_counter()
        times["rankbook"].append(t1 - t0)
        times["scipy"].append(t2 - t1)
    return {"n": n, "rankbook_s": statistics.median(times["rankbook"]),
            "scipy_s": statistics.median(times["scipy"]), "abs_diff": abs(a - b),
            "times": {k: [round(t, 5) for t in v] for k, v in times.items()}}


def run(quick: bool = False) -> dict:
    n = 5000 if quick else 20_000
    rows = []
    for pattern in ("random_groups", "groups_of_100", "top10_then_tie", "half_ties_offset"):
        for metric in ("kendall_tau", "ndpm"):
            r = run_child("bench_weak_tau", "child", {"pattern": pattern, "n": n, "metric": metric})
            r.update(pattern=pattern, metric=metric, n=n)
            rows.append(r)
    tau_b = [tau_b_vs_scipy(m, 3) for m in ((20_000, 100_000) if quick else (20_000, 1_000_000))]
    return {"n": n, "rows": rows, "tau_b": tau_b}


if __name__ == "__main__":  # pragma: no cover
    import json
    import sys

    print(json.dumps(run(quick="--quick" in sys.argv), indent=1))
