"""Kendall's tau near the floor, and distance matrices (issue 23).

Three measurements:

* **Batched tau at n = 1000** (``metrics.kendall_tau`` on B pairs, validation included) against
  a Python loop over ``scipy.stats.kendalltau`` (timed on a subsample of pairs, extrapolated),
  and against an estimate of the hardware floor. The floor estimate is the measured time of
  sorting every row of sigma with numpy (``ndarray.sort(axis=1)``, copied block by block into
  a buffer that stays in cache, the block size rankbook uses): one O(n log n) pass over one of
  the two inputs, by numpy's vectorised (AVX-512 where the CPU has it) sort, with no validation
  and no second array. Any exact tau must at least read both rankings and do O(n log n) work
  per pair, so a method within a small factor of one such sort is near what the machine
  allows. The numpy backend (no numba) is timed too.
* **Pairwise tau**: ``rankbook.pairwise(R, "kendall_tau")`` for N = 200 rankings of n = 100,
  against the double loop a user writes, ``scipy.stats.kendalltau`` over the N(N-1)/2 pairs
  i < j (timed on a subsample of pairs, extrapolated; the loop over all N^2 ordered pairs
  would take twice as long).
* **Peak memory** of ``pairwise(R, "kendall_tau")`` for N = 2000, n = 100 in a fresh process:
  the peak resident set size (VmHWM) of the whole process, interpreter, numpy, scipy and numba
  included, and the peak traced by ``tracemalloc`` during the call.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from common import log, maxrss_mb, per_item_time, run_child


def _interleaved(fns: dict, repeats: int) -> dict:
    """Median wall time of each function, the calls interleaved so that load changes on a shared
    machine hit all of them alike."""
    times = {k: [] for k in fns}
    for _ in range(repeats):
        for k, f in fns.items():
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
    return {k: {"median": statistics.median(v), "times": [round(t, 6) for t in v]}
            for k, v in times.items()}


def _warm(call):
    """Run ``call`` once with numba's kernels forced (where numba is installed), so they are
    compiled before the timing: under "auto" a small warm-up call no longer loads them
    (rankbook.permutations.NUMBA_LOAD_ENTRIES), and the first timed call would compile."""
    from rankbook import permutations as P

    try:
        previous = P.set_backend("numba")
    except ValueError:  # numba not installed: numpy throughout
        call()
        return
    try:
        call()
    finally:
        P.set_backend(previous)


def batched_tau(B: int, n: int, repeats: int, budget: float) -> dict:
    import scipy.stats as st

    from rankbook import metrics as M
    from rankbook import permutations as P

    rng = np.random.default_rng(n)
    base = np.tile(np.arange(1, n + 1, dtype=np.int64), (B, 1))
    s, v = rng.permuted(base, axis=1), rng.permuted(base, axis=1)
    backend = P.get_backend()
    _warm(lambda: M.kendall_tau(s[:50], v[:50]))  # compile the kernels outside the timing

    def numpy_tau():
        previous = P.set_backend("numpy")
        try:
            return M.kendall_tau(s, v)
        finally:
            P.set_backend(previous)

    # size the scipy subsample (about `budget` seconds), then time everything interleaved
    m = per_item_time(lambda i: st.kendalltau(s[i], v[i]), range(B), budget=budget,
                      repeats=1)["subsample"]

    def scipy_loop():
        for i in range(m):
            st.kendalltau(s[i], v[i])

    rows = max(1, M._CHUNK_ELEMENTS // n)  # the block size rankbook uses
    buf = np.empty((rows, n), dtype=np.int64)

    def floor_sort():
        # read every ranking once and sort it, block by block in a buffer that stays in cache
        # (a whole-batch np.sort would also time allocating and faulting in a 160 MB result)
        for a in range(0, B, rows):
            blk = buf[: min(rows, B - a)]
            np.copyto(blk, s[a : a + rows])
            blk.sort(axis=1)

    t = _interleaved({"rankbook": lambda: M.kendall_tau(s, v),
                      "floor_sort": floor_sort,
                      "scipy_subsample": scipy_loop}, repeats)
    t_np = _interleaved({"numpy_backend": numpy_tau}, max(1, repeats // 2))["numpy_backend"]
    ours = M.kendall_tau(s, v)
    ref = np.array([st.kendalltau(s[i], v[i]).statistic for i in range(m)])
    rb, fl = t["rankbook"]["median"], t["floor_sort"]["median"]
    sc = {"per_item": t["scipy_subsample"]["median"] / m}
    scipy_s = sc["per_item"] * B
    return {
        "B": B, "n": n, "backend": backend,
        "rankbook_s": rb, "rankbook_times": t["rankbook"]["times"],
        "numpy_backend_s": t_np["median"], "numpy_backend_times": t_np["times"],
        "floor_sort_s": fl, "floor_sort_times": t["floor_sort"]["times"],
        "floor_ratio": rb / fl, "numpy_backend_floor_ratio": t_np["median"] / fl,
        "scipy_s": scipy_s, "scipy_per_pair_s": sc["per_item"], "scipy_subsample": m,
        "extrapolated": True, "speedup": scipy_s / rb, "numpy_backend_speedup": scipy_s / t_np["median"],
        "max_abs_diff_vs_scipy": float(np.max(np.abs(ours[:m] - ref))),
    }


def pairwise_tau(N: int, n: int, repeats: int, budget: float) -> dict:
    import scipy.stats as st

    import rankbook
    from rankbook import permutations as P

    R = P.random(n, size=N, rng=N + n)
    _warm(lambda: rankbook.pairwise(R[:20], "kendall_tau"))  # compile outside the timing
    ours = rankbook.pairwise(R, "kendall_tau")
    iu, ju = np.triu_indices(N, 1)
    pairs = len(iu)
    m = per_item_time(lambda q: st.kendalltau(R[iu[q]], R[ju[q]]), range(pairs), budget=budget,
                      repeats=1)["subsample"]

    def scipy_loop():
        for q in range(m):
            st.kendalltau(R[iu[q]], R[ju[q]])

    both = _interleaved({"rankbook": lambda: rankbook.pairwise(R, "kendall_tau"),
                         "scipy_subsample": scipy_loop}, repeats)
    t = both["rankbook"]
    sc = {"per_item": both["scipy_subsample"]["median"] / m}
    ref = np.array([st.kendalltau(R[iu[q]], R[ju[q]]).statistic for q in range(m)])
    loop_s = sc["per_item"] * pairs
    return {
        "N": N, "n": n, "pairs": pairs, "backend": P.get_backend(),
        "rankbook_s": t["median"], "rankbook_times": t["times"],
        "scipy_double_loop_s": loop_s, "scipy_per_pair_s": sc["per_item"], "scipy_subsample": m,
        "extrapolated": True, "speedup": loop_s / t["median"],
        "max_abs_diff_vs_scipy": float(np.max(np.abs(ours[iu[:m], ju[:m]] - ref))),
    }


def pairwise_memory(N: int, n: int) -> dict:
    """Run in a fresh process: peak memory of one pairwise call (VmHWM and tracemalloc)."""
    import tracemalloc

    import rankbook
    from rankbook import permutations as P

    R = P.random(n, size=N, rng=7)
    before = maxrss_mb()
    t0 = time.perf_counter()
    rankbook.pairwise(R[:50], "kendall_tau")  # first call: imports numba, loads its kernels
    first = time.perf_counter() - t0
    tracemalloc.start()
    t0 = time.perf_counter()
    D = rankbook.pairwise(R, "kendall_tau")
    seconds = time.perf_counter() - t0
    traced = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return {"N": N, "n": n, "backend": P.get_backend(), "peak_rss_mb": maxrss_mb(),
            "rss_before_call_mb": before, "tracemalloc_peak_mb": traced,
            "result_mb": D.nbytes / 2**20, "seconds_traced": seconds,
            "first_call_s": first}


def run(quick: bool = False) -> dict:
    if quick:
        B, reps, budget, mem = 2000, 3, 0.3, (500, 100)
    else:
        B, reps, budget, mem = 20_000, 5, 2.0, (2000, 100)
    log(f"[pairwise] batched tau, B={B}, n=1000")
    bt = batched_tau(B, 1000, reps, budget)
    log("[pairwise] pairwise tau, N=200, n=100")
    pw = pairwise_tau(200, 100, reps, budget)
    log(f"[pairwise] peak memory, N={mem[0]}, n={mem[1]} (fresh process)")
    mm = run_child("bench_pairwise", "pairwise_memory", {"N": mem[0], "n": mem[1]})
    return {
        "batched_tau": bt, "pairwise_tau": pw, "memory": mm,
        "floor_note": (
            "Floor estimate: every row of sigma (the same B x n int64 batch) copied block by block "
            "into a buffer that stays in cache and sorted in place by numpy, i.e. one O(n log n) "
            "pass over one of the two inputs by numpy's vectorised sort, with no validation, no "
            "inverse and no second array; an exact tau has to read both rankings and do at least "
            "that much work per pair."),
        "notes": (
            "rankbook times include validating both rankings of every pair (range, duplicates, "
            "inverses). scipy loops are timed on subsamples and extrapolated linearly; the "
            "pairwise loop covers the N(N-1)/2 pairs i < j only. The memory case runs in a fresh "
            "process; peak_rss_mb is the whole process's VmHWM."),
    }
