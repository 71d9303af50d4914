"""Shared helpers for the benchmark cases: timing with repeats and medians, child processes.

Every timing is wall-clock ``time.perf_counter`` around one call, repeated; the median is the
reported figure and every individual time is kept in ``results.json``. Peer loops that would
take minutes at full size are timed on a subsample of pairs and extrapolated linearly; such
entries carry ``"extrapolated": true`` and the subsample size.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH_DIR = Path(__file__).resolve().parent
PYTHON = sys.executable


def timed(fn, *, repeats: int = 3, budget: float = 20.0, warmup: int = 0) -> dict:
    """Call ``fn()`` ``repeats`` times (fewer if the total passes ``budget`` seconds; at least once).

    Returns ``{"median": s, "min": s, "times": [...], "repeats": r, "value": last result}``.
    """
    for _ in range(warmup):
        fn()
    times = []
    value = None
    spent = 0.0
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        value = fn()
        dt = time.perf_counter() - t0
        times.append(dt)
        spent += dt
        if spent > budget:
            break
    return {
        "median": statistics.median(times),
        "min": min(times),
        "times": [round(t, 6) for t in times],
        "repeats": len(times),
        "value": value,
    }


def per_item_time(fn, items, *, budget: float = 0.5, min_items: int = 3, repeats: int = 3) -> dict:
    """Seconds per item of ``for x in items: fn(x)``, on as many items as fit in ``budget``.

    The loop is run ``repeats`` times over the same leading subsample; the subsample grows until
    one pass takes ``budget`` seconds or ``items`` run out. Returns the median seconds per item
    and the subsample size.
    """
    items = list(items)
    m = min(min_items, len(items))
    # grow the subsample geometrically until one pass reaches the budget
    while True:
        t0 = time.perf_counter()
        for x in items[:m]:
            fn(x)
        dt = time.perf_counter() - t0
        if dt >= budget or m >= len(items):
            break
        grow = budget / max(dt, 1e-6)
        m = min(len(items), max(m + 1, int(m * min(grow * 1.1, 10))))
    per = [dt / m]
    for _ in range(repeats - 1):
        t0 = time.perf_counter()
        for x in items[:m]:
            fn(x)
        per.append((time.perf_counter() - t0) / m)
    return {"per_item": statistics.median(per), "subsample": m, "times_per_item": per}


def fit_slope(x, t) -> float | None:
    """Least-squares slope of log(t) against log(x): the empirical complexity exponent."""
    pts = [(math.log(a), math.log(b)) for a, b in zip(x, t) if a and b and a > 0 and b > 0]
    if len(pts) < 2 or len({p[0] for p in pts}) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    sxy = sum((p[0] - mx) * (p[1] - my) for p in pts)
    return sxy / sxx


def run_child(module: str, func: str, kwargs: dict, *, env: dict | None = None,
              timeout: float = 900) -> dict:
    """Run ``benchmarks/<module>.py:<func>(**kwargs)`` in a fresh interpreter; return its dict.

    Used where a fresh process matters: peak memory (per process), numba's
    compile on first call, and imports.
    """
    code = (
        "import json, sys; sys.path.insert(0, %r); import %s as m; "
        "out = m.%s(**json.loads(sys.argv[1])); "
        "sys.stdout.write('\\n@@RESULT@@' + json.dumps(out) + '\\n')"
    ) % (str(BENCH_DIR), module, func)
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [PYTHON, "-c", code, json.dumps(kwargs)], capture_output=True, text=True,
        env=full_env, timeout=timeout,
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"child {module}.{func}({kwargs}) failed with status {proc.returncode}:\n"
            f"{proc.stderr[-3000:]}"
        )
    marker = proc.stdout.rfind("@@RESULT@@")
    if marker < 0:
        raise RuntimeError(f"child {module}.{func} printed no result:\n{proc.stdout[-2000:]}")
    return json.loads(proc.stdout[marker + len("@@RESULT@@"):].strip())


def maxrss_mb() -> float:
    """Peak resident set size of this process so far, in MB (2**20 bytes).

    Read from ``VmHWM`` in ``/proc/self/status`` (the high-water mark of the process's own
    address space). ``getrusage(RUSAGE_SELF).ru_maxrss`` is the fallback off Linux; on Linux it
    is not used because it carries over the parent's resident size across fork + exec, so a
    child of a large benchmark process would report the parent's memory.
    """
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def strip_values(d):
    """Drop the ``value`` entries of timing dicts (results.json keeps timings, not outputs)."""
    if isinstance(d, dict):
        return {k: strip_values(v) for k, v in d.items() if k != "value"}
    if isinstance(d, list):
        return [strip_values(v) for v in d]
    return d


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)
