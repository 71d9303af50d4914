"""A parameter sweep: 16 points of one notebook on 2 local Dask workers (``rankbook sweep``),
against a sequential loop of ``rankbook run`` over the same points.

Both run in a fresh ``git clone`` of the committed HEAD (as the book case), so that neither
writes into the working checkout. The per-point overhead is the wall time per point of each
way; the target (``run.SWEEP_SPEEDUP``) is a sweep that many times faster than the loop on 2 cores.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench_book import _env
from common import PYTHON, ROOT, log

NOTEBOOK = "kendall_width_swap"


def run(quick: bool = False) -> dict:
    ns = list(range(5, 9 if quick else 21))  # 16 points (4 in a quick run)
    tmp = Path(tempfile.mkdtemp(prefix="rankbook-bench-sweep-"))
    clone = tmp / "repo"
    try:
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        env = _env(clone)
        t0 = time.perf_counter()
        for n in ns:
            subprocess.run([PYTHON, "-m", "rankbook", "run", NOTEBOOK, "-p", "ns", str(n)],
                           cwd=clone, env=env, check=True, capture_output=True)
        loop_s = time.perf_counter() - t0
        log(f"  loop of rankbook run over {len(ns)} points: {loop_s:.1f} s")
        shutil.rmtree(clone / "runs", ignore_errors=True)
        t0 = time.perf_counter()
        subprocess.run([PYTHON, "-m", "rankbook", "sweep", NOTEBOOK, "-p", "ns",
                        ";".join(map(str, ns)), "--jobs", "2", "--quiet"],
                       cwd=clone, env=env, check=True, capture_output=True)
        sweep_s = time.perf_counter() - t0
        log(f"  rankbook sweep --jobs 2 over {len(ns)} points: {sweep_s:.1f} s")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"notebook": NOTEBOOK, "points": len(ns), "workers": 2,
            "loop_s": loop_s, "sweep_s": sweep_s, "speedup": loop_s / sweep_s,
            "loop_per_point_s": loop_s / len(ns), "sweep_per_point_s": sweep_s / len(ns)}
