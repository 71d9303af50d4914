"""The first call in a fresh process (issue 31): rankbook against a plain scipy loop.

A fresh interpreter scores B = 200 pairs of rankings of n = 100 (S_100) once and exits, the
way a script or a notebook cell does. Timed inside each child, from before the library's import
to after the call (numpy is imported first on every side; both sides need it):

* ``rankbook`` -- ``import rankbook.metrics``; ``metrics.kendall_tau(sigma, nu)`` on the batch,
  backend ``"auto"`` (the default), with an empty numba cache folder;
* ``rankbook_forced_numba`` -- the same with ``RANKBOOK_BACKEND=numba`` and an empty cache: what
  the first call cost before issue 31 (numba imported and the kernels compiled);
* ``scipy_loop`` -- ``import scipy.stats``; ``kendalltau(sigma[i], nu[i])`` for each pair.

Each child also reports whether numba was imported. Whole-process wall times (interpreter
start to exit, measured by the parent) are kept too. The three are run in turn, ``repeats``
times, and the medians compared: the target is a first call no slower than the scipy loop.

A second part (``warm_cache``) follows a process that keeps calling, on a machine where numba's
on-disk cache already holds the kernels (any earlier use leaves them there): B = 300 pairs of
rankings of n = 1000, ten calls of ``kendall_tau`` on the default backend, each timed, against
a loop over ``scipy.stats.kendalltau`` on the same pairs (the median of three loops); and the
cost of loading the kernels from the cache and from nothing (numba's import, then the first
call of a kernel), which ``rankbook.permutations.load_cost`` stands for. The target: from the
second call, at least 20 times the scipy loop, by CPU time (wall times are kept too).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

from common import run_child


def child(which: str, B: int, n: int, seed: int) -> dict:
    import numpy as np

    rng = np.random.default_rng(seed)
    base = np.tile(np.arange(1, n + 1, dtype=np.int64), (B, 1))
    s, v = rng.permuted(base, axis=1), rng.permuted(base, axis=1)
    t0 = time.perf_counter()
    if which == "scipy_loop":
        import scipy.stats as st

        vals = np.array([st.kendalltau(s[i], v[i]).statistic for i in range(B)])
    else:
        from rankbook import metrics as M

        vals = np.asarray(M.kendall_tau(s, v), dtype=float)
    t1 = time.perf_counter()
    return {"seconds": t1 - t0, "numba_imported": "numba" in sys.modules,
            "checksum": float(np.round(vals.sum(), 9))}


def child_calls(B: int, n: int, calls: int, seed: int) -> dict:
    """``calls`` calls of kendall_tau on the same B pairs of S_n in this process, each timed."""
    import numpy as np

    rng = np.random.default_rng(seed)
    base = np.tile(np.arange(1, n + 1, dtype=np.int64), (B, 1))
    s, v = rng.permuted(base, axis=1), rng.permuted(base, axis=1)
    from rankbook import metrics as M
    from rankbook import permutations as P

    cost = P.load_cost()
    times, cpu, vals = [], [], None
    for _ in range(calls):
        t0, c0 = time.perf_counter(), time.process_time()
        vals = np.asarray(M.kendall_tau(s, v), dtype=float)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return {"times": times, "cpu": cpu, "load_cost_source": cost[1], "load_cost_s": cost[0],
            "measured_load_s": P._load_seconds, "numba_imported": "numba" in sys.modules,
            "checksum": float(np.round(vals.sum(), 9))}


def child_scipy_loops(B: int, n: int, loops: int, seed: int) -> dict:
    import numpy as np
    import scipy.stats as st

    rng = np.random.default_rng(seed)
    base = np.tile(np.arange(1, n + 1, dtype=np.int64), (B, 1))
    s, v = rng.permuted(base, axis=1), rng.permuted(base, axis=1)
    times, cpu, vals = [], [], None
    for _ in range(loops):
        t0, c0 = time.perf_counter(), time.process_time()
        vals = np.array([st.kendalltau(s[i], v[i]).statistic for i in range(B)])
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return {"times": times, "cpu": cpu, "checksum": float(np.round(vals.sum(), 9))}


def child_load(n: int) -> dict:
    """Seconds to import numba, then to call one kernel for the first time (a read from the
    cache, or a compile), then another kernel."""
    import numpy as np

    t0 = time.perf_counter()
    import numba  # noqa: F401

    t1 = time.perf_counter()
    from rankbook import _numba_kernels as K

    x = np.tile(np.arange(1, n + 1, dtype=np.int64), (2, 1))
    x.flags.writeable = False
    t2 = time.perf_counter()
    K.check_perms(x, np.empty(x.shape, dtype=np.int64))
    t3 = time.perf_counter()
    K.inversions_gather(x, 1, np.ascontiguousarray(x - 1), 0, np.empty(2, dtype=np.int64))
    t4 = time.perf_counter()
    return {"import_numba_s": t1 - t0, "first_kernel_s": t3 - t2, "second_kernel_s": t4 - t3,
            "total_s": t4 - t0}


def warm_cache(B: int = 300, n: int = 1000, calls: int = 10, repeats: int = 3) -> dict:
    """The kernels in numba's cache (filled by a first process), then fresh processes calling
    kendall_tau ``calls`` times each; the scipy loop; the load from the cache and from nothing."""
    cache = tempfile.mkdtemp(prefix="rankbook-warm-numba-")
    fill = run_child("bench_cold", "child_calls", {"B": B, "n": n, "calls": 1, "seed": 0},
                     env={"NUMBA_CACHE_DIR": cache, "RANKBOOK_BACKEND": "numba"})
    runs = [run_child("bench_cold", "child_calls", {"B": B, "n": n, "calls": calls, "seed": r},
                      env={"NUMBA_CACHE_DIR": cache, "RANKBOOK_BACKEND": ""})
            for r in range(repeats)]
    scipy = [run_child("bench_cold", "child_scipy_loops", {"B": B, "n": n, "loops": 3, "seed": r})
             for r in range(repeats)]
    loads = {"cache": [run_child("bench_cold", "child_load", {"n": n}, env={"NUMBA_CACHE_DIR": cache})
                       for _ in range(repeats)],
             "empty": [run_child("bench_cold", "child_load", {"n": n},
                                 env={"NUMBA_CACHE_DIR": tempfile.mkdtemp(prefix="rankbook-empty-")})
                       for _ in range(repeats)]}
    scipy_s = statistics.median(t for x in scipy for t in x["times"])
    first = statistics.median(x["times"][0] for x in runs)
    second = statistics.median(x["times"][1] for x in runs)
    later = statistics.median(t for x in runs for t in x["times"][1:])
    # CPU time (the machine is shared: wall time moves with other users' load, CPU time less)
    scipy_cpu = statistics.median(t for x in scipy for t in x["cpu"])
    second_cpu = statistics.median(x["cpu"][1] for x in runs)
    later_cpu = statistics.median(t for x in runs for t in x["cpu"][1:])
    return {
        "B": B, "n": n, "calls": calls, "repeats": repeats, "scipy_loop_s": scipy_s,
        "first_call_s": first, "second_call_s": second, "later_calls_median_s": later,
        "speedup_second_call": scipy_s / second, "speedup_later_calls": scipy_s / later,
        "speedup_first_call": scipy_s / first,
        "scipy_loop_cpu_s": scipy_cpu, "second_call_cpu_s": second_cpu,
        "later_calls_cpu_s": later_cpu, "speedup_second_call_cpu": scipy_cpu / second_cpu,
        "speedup_later_calls_cpu": scipy_cpu / later_cpu,
        "times": [[round(t, 4) for t in x["times"]] for x in runs],
        "load_cost_source": sorted({x["load_cost_source"] for x in runs}),
        "filled_cache": fill["numba_imported"],
        "same_values": all(abs(x["checksum"] - y["checksum"]) < 1e-6 for x, y in zip(runs, scipy)),
        "load_from_cache_s": statistics.median(x["total_s"] for x in loads["cache"]),
        "load_from_nothing_s": statistics.median(x["total_s"] for x in loads["empty"]),
        "loads": loads,
    }


def _one(which: str, B: int, n: int, seed: int) -> dict:
    env = {"NUMBA_CACHE_DIR": tempfile.mkdtemp(prefix="rankbook-cold-numba-")}
    if which == "rankbook_forced_numba":
        env["RANKBOOK_BACKEND"] = "numba"
    else:
        env["RANKBOOK_BACKEND"] = ""
    t0 = time.perf_counter()
    out = run_child("bench_cold", "child",
                    {"which": "scipy_loop" if which == "scipy_loop" else "rankbook",
                     "B": B, "n": n, "seed": seed}, env=env)
    out["process_seconds"] = time.perf_counter() - t0
    return out


def run(quick: bool = False) -> dict:
    B, n = 200, 100
    repeats = 3 if quick else 5
    kinds = ("rankbook", "rankbook_forced_numba", "scipy_loop")
    runs = {k: [] for k in kinds}
    for r in range(repeats):
        for k in kinds:
            runs[k].append(_one(k, B, n, seed=r))
    out = {"B": B, "n": n, "repeats": repeats}
    for k in kinds:
        secs = [x["seconds"] for x in runs[k]]
        proc = [x["process_seconds"] for x in runs[k]]
        out[k] = {"median_s": statistics.median(secs), "times": [round(t, 4) for t in secs],
                  "process_median_s": statistics.median(proc),
                  "process_times": [round(t, 4) for t in proc],
                  "numba_imported": sorted({x["numba_imported"] for x in runs[k]})}
    sums = {k: runs[k][0]["checksum"] for k in kinds}
    out["same_values"] = abs(sums["rankbook"] - sums["scipy_loop"]) < 1e-6 and \
        abs(sums["rankbook_forced_numba"] - sums["scipy_loop"]) < 1e-6
    out["speedup_vs_scipy"] = out["scipy_loop"]["median_s"] / out["rankbook"]["median_s"]
    from rankbook import permutations as P

    out["numba_load_entries"] = P.NUMBA_LOAD_ENTRIES
    out["numba_cached_load_entries"] = P.NUMBA_CACHED_LOAD_ENTRIES
    out["numba_min_entries"] = P.NUMBA_MIN_ENTRIES
    out["warm_cache"] = warm_cache(repeats=2 if quick else 3)
    return out


if __name__ == "__main__":  # pragma: no cover
    import json

    print(json.dumps(run(quick="--quick" in sys.argv), indent=1))
