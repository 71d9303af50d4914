"""Consensus kappa of paper B: N rankings of n items, rankbook against a dense numpy solve and,
for n <= 15, brute-force enumeration of the common subsequences.

rankbook: ``consensus.kappa(rankings)`` (gamma = lam = 1: the number of common subsequences),
which builds the edge list of Theorem 1 in blocks (O(N n^2) worst case, bounded memory) and
solves one sparse lower-triangular system (O(n + |E|)).

Dense peer: the adjacency matrix by broadcasting, ``L = AND_k (pos_k[:, None] > pos_k[None, :])``
(O(N n^2) time, n^2 memory), then ``numpy.linalg.solve(I - L, 1)`` (O(n^3)) and
kappa = sum of the solution.

Brute force: every non-empty subset of the first ranking's items, taken in that ranking's order,
is tested against every ranking (O(2^n N n)).

Two kinds of input: ``uniform`` (independent uniformly random permutations, as the consensus target's "50
random rankings of 2000 items"; very few pairs survive all rankings, so the graph is sparse) and
``correlated`` (each ranking is the order of i + noise with noise ~ Normal(0, n/20): most pairs
keep their order in every ranking, the graph is dense and the count overflows to inf for large
n; the worst case for the edge search).

Every configuration runs in its own child process so that peak memory is that of the
computation: ``peak_rss_mb`` is the child's peak resident set size at the end (``VmHWM`` of
``/proc/self/status``, the whole process: interpreter, numpy and scipy included; not
``ru_maxrss``, which on Linux inherits the parent's size across fork + exec), ``base_rss_mb`` the same
just before the first call (after imports and input generation), and ``tracemalloc_peak_mb``
the peak of memory traced by ``tracemalloc`` during one extra call (Python objects and numpy
buffers; allocations inside scipy's compiled code are not all traced).
"""

from __future__ import annotations

import math

import numpy as np

from common import fit_slope, log, maxrss_mb, run_child, timed


def make_rankings(N: int, n: int, kind: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        return rng.permuted(np.tile(np.arange(n), (N, 1)), axis=1)
    if kind == "correlated":
        noisy = np.arange(n)[None, :] + rng.normal(0.0, n / 20.0, size=(N, n))
        return np.argsort(noisy, axis=1, kind="stable")
    raise ValueError(f"kind must be 'uniform' or 'correlated', got {kind!r}")


def dense_kappa(R: np.ndarray) -> float:
    """kappa (gamma = lam = 1) by a dense adjacency matrix and numpy.linalg.solve."""
    N, n = R.shape
    pos = np.empty_like(R)
    rows = np.arange(N)[:, None]
    pos[rows, R] = np.arange(n)[None, :]
    pos = pos[:, R[0]]  # positions of the items, in the order of the first ranking
    L = np.tril(np.ones((n, n), dtype=bool), -1)
    for k in range(N):
        L &= pos[k][:, None] > pos[k][None, :]
    M = np.eye(n) - L
    with np.errstate(over="ignore", invalid="ignore"):
        v = np.linalg.solve(M, np.ones(n))
        return float(v.sum())


def brute_kappa(R: np.ndarray) -> int:
    """Count the common subsequences by enumerating every subset of the first ranking."""
    N, n = R.shape
    pos = [dict((int(x), i) for i, x in enumerate(r)) for r in R]
    first = [int(x) for x in R[0]]
    count = 0
    for mask in range(1, 1 << n):
        seq = [first[i] for i in range(n) if mask >> i & 1]
        ok = True
        for p in pos[1:]:
            last = -1
            for x in seq:
                q = p[x]
                if q < last:
                    ok = False
                    break
                last = q
            if not ok:
                break
        count += ok
    return count


def child(N: int, n: int, kind: str, method: str, repeats: int = 3, budget: float = 20.0) -> dict:
    """One configuration in a fresh process: time, result and peak memory."""
    import tracemalloc

    R = make_rankings(N, n, kind, seed=N * 100_003 + n)
    if method == "rankbook":
        from rankbook import consensus as C

        rankings = [r.tolist() for r in R]  # the API takes sequences of labels
        fn = lambda: C.kappa(rankings)  # noqa: E731
    elif method == "dense":
        fn = lambda: dense_kappa(R)  # noqa: E731
    elif method == "brute":
        fn = lambda: brute_kappa(R)  # noqa: E731
    else:
        raise ValueError(method)
    base = maxrss_mb()
    t = timed(fn, repeats=repeats, budget=budget)
    peak = maxrss_mb()
    tracemalloc.start()
    fn()
    _, traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"N": N, "n": n, "kind": kind, "method": method, "median": t["median"],
            "times": t["times"], "kappa": float(t["value"]), "base_rss_mb": base, "peak_rss_mb": peak,
            "tracemalloc_peak_mb": traced / 2**20}


def _agree(a, b):
    if math.isinf(a) or math.isinf(b) or math.isnan(a) or math.isnan(b):
        return None  # overflowed: nothing to compare
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def run(quick: bool = False) -> dict:
    if quick:
        Ns, ns, target, brute_ns = [10, 50], [100, 1000], (50, 1000), [8, 10, 12]
    else:
        Ns, ns, target, brute_ns = [10, 50, 100], [100, 1000, 5000], (50, 2000), [9, 11, 13, 15]
    configs = [(N, n) for N in Ns for n in ns]
    if target not in configs:
        configs.append(target)
    rows = []
    for kind in ("uniform", "correlated"):
        for N, n in configs:
            log(f"[consensus] {kind} N={N} n={n}")
            rb = run_child("bench_consensus", "child", dict(N=N, n=n, kind=kind, method="rankbook"))
            de = run_child("bench_consensus", "child", dict(N=N, n=n, kind=kind, method="dense",
                                                            repeats=3 if n <= 2000 else 1))
            rows.append({"kind": kind, "N": N, "n": n, "rankbook": rb, "dense": de,
                         "speedup": de["median"] / rb["median"],
                         "agree": _agree(rb["kappa"], de["kappa"])})
    brute = []
    for kind in ("uniform", "correlated"):
        for n in brute_ns:
            log(f"[consensus] brute force {kind} N=10 n={n}")
            rb = run_child("bench_consensus", "child", dict(N=10, n=n, kind=kind, method="rankbook"))
            bf = run_child("bench_consensus", "child", dict(N=10, n=n, kind=kind, method="brute",
                                                            repeats=3, budget=10))
            brute.append({"kind": kind, "N": 10, "n": n, "rankbook": rb, "brute": bf,
                          "speedup": bf["median"] / rb["median"],
                          "agree": rb["kappa"] == bf["kappa"]})
    scaling = []
    for kind in ("uniform", "correlated"):
        for method in ("rankbook", "dense"):
            Nfix = 50
            sel = sorted((r for r in rows if r["kind"] == kind and r["N"] == Nfix), key=lambda r: r["n"])
            x = [r["n"] for r in sel]
            t = [r[method]["median"] for r in sel]
            theory = ("O(N n^2) build + O(n + |E|) sparse solve" if method == "rankbook"
                      else "O(N n^2) build + O(n^3) dense solve")
            scaling.append({"case": "consensus", "series": f"{method}, {kind}, N={Nfix}",
                            "x_name": "n", "x": x, "t": t, "slope": fit_slope(x, t),
                            "theory": theory, "theory_slope": 2.0 if method == "rankbook" else 3.0,
                            "comment": ("uniform rankings drop most candidate pairs after a few "
                                        "rankings, so the build is far below its worst case"
                                        if kind == "uniform" and method == "rankbook" else "")})
        sel = [b for b in brute if b["kind"] == kind]
        x = [b["n"] for b in sel]
        t = [b["brute"]["median"] for b in sel]
        # exponential in n: report the slope of log2(time) per item as well
        l2 = None
        if len(x) >= 2:
            xs, ys = np.array(x, float), np.log2(np.array(t))
            l2 = float(np.polyfit(xs, ys, 1)[0])
        scaling.append({"case": "consensus_brute", "series": f"brute force, {kind}, N=10", "x_name": "n",
                        "x": x, "t": t, "slope": fit_slope(x, t), "theory": "O(2^n N n)",
                        "theory_slope": None, "log2_time_per_item": l2, "axis": "semilogy",
                        "comment": "exponential: log2(time) grows by about 1 per item"})
        rt = [b["rankbook"]["median"] for b in sel]
        scaling.append({"case": "consensus_brute", "series": f"rankbook, {kind}, N=10", "x_name": "n",
                        "x": x, "t": rt, "slope": fit_slope(x, rt), "theory": "O(N n^2)",
                        "theory_slope": None, "axis": "semilogy",
                        "log2_time_per_item": float(np.polyfit(np.array(x, float), np.log2(np.array(rt)), 1)[0]) if len(x) >= 2 else None,
                        "comment": "at these sizes rankbook's time is mostly fixed per-call cost"})
    return {"rows": rows, "brute": brute, "target": {"N": target[0], "n": target[1]},
            "scaling": scaling,
            "notes": ("Each entry ran in a fresh child process. Times are medians of up to 3 "
                      "calls. Memory: peak_rss_mb = peak resident set size (VmHWM) of the child process (whole "
                      "process, includes about 100 MB of interpreter and libraries), "
                      "tracemalloc_peak_mb = peak traced allocation during one call. "
                      "'agree' compares rankbook with the dense solve (None where the count "
                      "overflows to inf, as it does for correlated rankings of many items).")}
