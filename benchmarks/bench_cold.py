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
    out["numba_min_entries"] = P.NUMBA_MIN_ENTRIES
    return out


if __name__ == "__main__":  # pragma: no cover
    import json

    print(json.dumps(run(quick="--quick" in sys.argv), indent=1))
