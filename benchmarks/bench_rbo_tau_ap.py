"""RBO^low, RBO^high and RBO^avg against brute force over the orders of the ties, and tau_AP
(with its tie forms) against the PyPI package tau-ap and brute force (issue 40).

* ``rbo_range``: two lists of 18 items in three tie groups of 3 each (46,656 pairs of orders):
  :func:`rankbook.rbo.rbo_low`, :func:`~rankbook.rbo.rbo_high` and
  :func:`~rankbook.rbo.rbo_avg` (RBO_ext) together, against enumerating every pair of orders
  with the tie-free :func:`~rankbook.rbo.rbo_ext` (timed on a subsample of orders and
  extrapolated; the values checked against the full enumeration of a pair with 1,296 orders).
  Then two lists of 10,000 items in tie groups of 1 to 10, where enumeration is impossible.
* ``tau_ap``: :func:`rankbook.tau_ap.tau_ap` on B pairs of n-item score vectors, batched,
  against a loop over tau-ap 0.1.0 (each pair first sorted by the estimate, which that package
  needs; timed on a subsample, extrapolated); ``tau_ap_a`` against the mean over the orders of
  the ties by brute force; and ``tau_ap_b`` of one pair of 10^6 items with ties.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

from common import per_item_time, timed


def _tied(rng, items, sizes):
    out, i = [], 0
    for g in sizes:
        grp = items[i:i + g]
        out.append(set(grp) if g > 1 else grp[0])
        i += g
    return out


def _orders(ranking):
    groups = [sorted(e) if isinstance(e, set) else [e] for e in ranking]
    for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [x for g in choice for x in g]


def _keep_groups(ranking, keep):
    """The ranking with its tie groups after the first ``keep`` written out in sorted order."""
    out, seen = [], 0
    for e in ranking:
        if isinstance(e, set):
            seen += 1
            if seen > keep:
                out.extend(sorted(e))
                continue
        out.append(e)
    return out


def _n_orders(ranking):
    return math.prod(math.factorial(len(e)) for e in ranking if isinstance(e, set))


def rbo_range(quick: bool) -> dict:
    from rankbook import rbo as R

    rng = np.random.default_rng(40)
    p = 0.9
    pool = [f"d{i}" for i in range(24)]
    # 18 items each: 3 groups of 3 and 9 singletons, the groups where the lists overlap most
    sizes = [3, 1, 1, 3, 1, 1, 1, 3, 1, 1, 1, 1]
    S = _tied(rng, list(rng.permutation(pool)[:18]), sizes)
    T = _tied(rng, list(rng.permutation(pool)[:18]), sizes[::-1])
    n_orders = _n_orders(S) * _n_orders(T)

    def ours():
        return (R.rbo_low(S, T, p), R.rbo_avg(S, T, p), R.rbo_high(S, T, p))

    rk = timed(ours, repeats=5)
    pairs = [(a, b) for a in _orders(S) for b in _orders(T)]
    rng.shuffle(pairs)
    brute = per_item_time(lambda ab: R.rbo_ext(ab[0], ab[1], p), pairs, budget=1.0 if quick else 3.0)
    brute_total = brute["per_item"] * n_orders
    # exact check on a pair small enough to enumerate: each list keeps two of its tie groups
    small_S, small_T = _keep_groups(S, 2), _keep_groups(T, 2)
    vals = [R.rbo_ext(a, b, p) for a in _orders(small_S) for b in _orders(small_T)]
    check = {"orders": len(vals),
             "abs_diff": max(abs(min(vals) - R.rbo_low(small_S, small_T, p)),
                             abs(max(vals) - R.rbo_high(small_S, small_T, p)),
                             abs(float(np.mean(vals)) - R.rbo_avg(small_S, small_T, p)))}
    # large lists: groups of 1 to 10
    n = 2000 if quick else 10_000
    items = [f"x{i}" for i in range(int(n * 1.3))]
    sizes_big = []
    while sum(sizes_big) < n:
        sizes_big.append(int(min(rng.integers(1, 11), n - sum(sizes_big))))
    SB = _tied(rng, list(rng.permutation(items)[:n]), sizes_big)
    TB = _tied(rng, list(rng.permutation(items)[:n]), sizes_big[::-1])
    cpu0 = time.process_time()
    big = timed(lambda: (R.rbo_low(SB, TB, p), R.rbo_avg(SB, TB, p), R.rbo_high(SB, TB, p)), repeats=3)
    cpu = (time.process_time() - cpu0) / big["repeats"]
    log10_orders = sum(math.lgamma(len(e) + 1) for r in (SB, TB) for e in r if isinstance(e, set)) / math.log(10)
    return {"p": p, "items": 18, "orders": n_orders, "rankbook_s": rk["median"],
            "rankbook_times": rk["times"], "brute_per_order_s": brute["per_item"],
            "brute_subsample": brute["subsample"], "brute_s": brute_total, "extrapolated": True,
            "speedup": brute_total / rk["median"], "check": check,
            "large": {"n": n, "groups": len(sizes_big), "log10_orders": log10_orders,
                      "rankbook_s": big["median"], "cpu_s": cpu, "times": big["times"]}}


def tau_ap_case(quick: bool) -> dict:
    from rankbook import tau_ap as TA

    rng = np.random.default_rng(41)
    B, n = (200, 100) if quick else (1000, 100)
    x = rng.random((B, n))
    y = x + rng.normal(0, 0.3, (B, n))
    rk = timed(lambda: TA.tau_ap(x, y), repeats=5)
    out = {"B": B, "n": n, "rankbook_s": rk["median"], "rankbook_times": rk["times"]}
    try:
        import tau_ap as pkg
    except ImportError:
        out["pypi"] = {"missing": "tau-ap is not installed (pip install tau-ap==0.1.0)"}
    else:
        def one(i):
            order = np.argsort(-y[i], kind="stable")
            return pkg.tau_ap(x[i][order], y[i][order])

        per = per_item_time(one, range(B), budget=1.0 if quick else 3.0)
        sample = np.array([one(i) for i in range(per["subsample"])])
        out["pypi"] = {"per_pair_s": per["per_item"], "subsample": per["subsample"],
                       "total_s": per["per_item"] * B, "extrapolated": True,
                       "abs_diff": float(np.abs(sample - rk["value"][:per["subsample"]]).max())}
        out["speedup"] = out["pypi"]["total_s"] / rk["median"]
    # tau_AP_a against the mean over the orders of the ties (n = 9, ties in groups of 3)
    xs = rng.permutation(9).astype(float)
    ys = np.repeat([2.0, 1.0, 0.0], 3)
    groups = [np.flatnonzero(ys == v) for v in (2.0, 1.0, 0.0)]

    def brute_a():
        vals = []
        for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
            score = np.empty(9)
            score[np.concatenate(choice)] = np.arange(9, 0, -1)
            vals.append(TA.tau_ap(xs, score))
        return float(np.mean(vals))

    ba = timed(brute_a, repeats=3)
    ra = timed(lambda: TA.tau_ap_a(xs, ys), repeats=5)
    out["tau_ap_a"] = {"n": 9, "orders": 216, "rankbook_s": ra["median"], "brute_s": ba["median"],
                       "abs_diff": abs(ra["value"] - ba["value"])}
    # tau_AP_b on one large pair with ties
    m = 200_000 if quick else 1_000_000
    xl = np.round(rng.random(m) * 1000)
    yl = np.round(xl + rng.normal(0, 50, m))
    cpu0 = time.process_time()
    big = timed(lambda: TA.tau_ap_b(xl, yl), repeats=3)
    cpu = (time.process_time() - cpu0) / big["repeats"]
    out["large_b"] = {"n": m, "rankbook_s": big["median"], "cpu_s": cpu, "times": big["times"]}
    return out


def run(quick: bool = False) -> dict:
    t0 = time.perf_counter()
    out = {"rbo_range": rbo_range(quick), "tau_ap": tau_ap_case(quick)}
    out["seconds"] = time.perf_counter() - t0
    return out


if __name__ == "__main__":  # pragma: no cover
    import json
    import sys

    print(json.dumps(run(quick="--quick" in sys.argv), indent=1, default=float))
