"""``rankbook compare`` at MS MARCO size: two runs of 7 million lines (issue 30, finding 4).

Inputs (seeded, generated in a temporary work folder, never committed): 7,000 queries, each
with 1,000 retrieved passages out of 8,841,823 (MS MARCO's passage ids are integers), written
in rank order with decreasing scores and a tag, as a retrieval system writes a TREC run; two
such runs (the second a noisier copy of the first's scores) and a qrels file with about 1.06
judged passages per query (relevance 1), as MS MARCO dev's. About 250 MB per run.

Measured, each in a fresh process:

* ``rankbook``: ``rankbook compare RUN1 RUN2 --qrels QRELS --measures nDCG@10,AP,RR``
  (trec_eval conventions, 1,000 resamples): wall time and peak resident memory of the whole
  command (its ``VmHWM``, read every 10 ms while it runs: ``wait4``'s ``ru_maxrss`` would
  include this benchmark process's own resident size, carried over by vfork + exec), then the same command sent SIGINT at a
  quarter of its time and SIGTERM at 60 %: how long it takes to exit, and with which status
  (130 and 143 expected).
* ``ranx`` (if installed): ``Qrels.from_file`` and ``Run.from_file(kind="trec")`` of the same
  two runs, each scored with ``ranx.evaluate`` (ndcg@10, map, mrr: the means are checked
  against rankbook's), with the same peak-memory figure; stopped past
  :data:`RANX_RSS_LIMIT_MB` on this shared machine, which the result then records.

``--quick`` uses 200 queries (200,000 lines per run); ``tests/test_compare_cli.py`` runs the
same generator and command on a few thousand lines.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from common import PYTHON, ROOT, log, maxrss_mb

N_PASSAGES = 8_841_823
MEASURES = "nDCG@10,AP,RR"


def write_collection(folder, n_queries: int, depth: int = 1000, seed: int = 0,
                     block: int = 500) -> tuple[Path, list[Path]]:
    """Write ``qrels.txt`` and ``run1.txt``, ``run2.txt`` (``n_queries * depth`` lines each)
    into ``folder``, a block of queries at a time (bounded memory). Returns the paths."""
    folder = Path(folder)
    rng = np.random.default_rng(seed)
    qrels, runs = folder / "qrels.txt", [folder / "run1.txt", folder / "run2.txt"]
    with open(qrels, "w") as fq, open(runs[0], "w") as f1, open(runs[1], "w") as f2:
        for start in range(0, n_queries, block):
            nq = min(block, n_queries - start)
            qids = np.arange(start, start + nq) * 7 + 3  # ids with gaps, as MS MARCO's
            docs = rng.integers(0, N_PASSAGES, size=(nq, depth))
            docs.sort(axis=1)
            dup = np.zeros_like(docs, dtype=bool)
            dup[:, 1:] = docs[:, 1:] == docs[:, :-1]
            docs[dup] = N_PASSAGES + np.flatnonzero(dup)  # distinct per query
            docs = rng.permuted(docs, axis=1)
            n_rel = 1 + (rng.random(nq) < 0.06)
            for i, q in enumerate(qids):
                # judged passages: mostly among the retrieved ones, near the top
                pos = np.minimum(rng.geometric(0.05, size=n_rel[i]) - 1, depth - 1)
                rel = np.unique(docs[i, pos])
                fq.write("".join(f"{q} 0 {d} 1\n" for d in rel))
            base = -np.sort(-(rng.random((nq, depth)) * 30), axis=1)
            for f, noise, tag in ((f1, 0.0, "bm25"), (f2, 3.0, "dense")):
                # the second run: the first's scores plus noise, documents re-ranked by them
                score = base + rng.normal(0, noise, base.shape) if noise else base
                order = np.argsort(-score, axis=1, kind="stable")
                ranked = np.take_along_axis(docs, order, axis=1)
                score = np.take_along_axis(score, order, axis=1)
                lines = np.char.add(np.repeat(qids, depth).astype(str), " Q0 ")
                lines = np.char.add(lines, ranked.ravel().astype(str))
                lines = np.char.add(lines, " ")
                lines = np.char.add(lines, np.tile(np.arange(1, depth + 1), nq).astype(str))
                lines = np.char.add(lines, " ")
                lines = np.char.add(lines, np.char.mod("%.6f", score.ravel()))
                lines = np.char.add(lines, f" {tag}\n")
                f.write("".join(lines.tolist()))
    return qrels, runs


def _command(qrels, runs, out, resamples=1000):
    return [PYTHON, "-m", "rankbook.book.cli", "compare", *map(str, runs), "--qrels", str(qrels),
            "--measures", MEASURES, "--resamples", str(resamples), "--out", str(out), "--force",
            "--max-bytes", "4GiB"]


def _env():
    return {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep
            + os.environ.get("PYTHONPATH", "")}


def _run_measured(cmd, *, interrupt_after=None, cwd=None, sig=signal.SIGINT) -> dict:
    """Run ``cmd``; wall time, peak RSS (MB) of the child, exit status; with
    ``interrupt_after`` seconds, send ``sig`` then and time the exit (a command that finished
    first shows as its own status, not 128 + sig)."""
    import threading

    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(),
                            cwd=cwd)
    # the child's own high-water mark, VmHWM, read every 10 ms until it exits: wait4's
    # ru_maxrss carries over the resident size of this (large) process across vfork + exec
    peak, done = [0.0], threading.Event()

    def watch():
        path = f"/proc/{proc.pid}/status"
        while not done.is_set():
            try:
                with open(path) as fh:
                    for line in fh:
                        if line.startswith("VmHWM:"):
                            peak[0] = max(peak[0], int(line.split()[1]) / 1024.0)
                            break
            except (OSError, ValueError):
                pass
            done.wait(0.01)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    sent = None
    if interrupt_after is not None:
        time.sleep(interrupt_after)
        sent = time.perf_counter()
        os.kill(proc.pid, sig)  # not send_signal: it reaps a finished child, and wait4 fails
    _, status, usage = os.wait4(proc.pid, 0)
    end = time.perf_counter()
    done.set()
    watcher.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    out, err = proc.stdout.read().decode(), proc.stderr.read().decode()
    res = {"wall_s": end - t0, "peak_rss_mb": peak[0],
           "ru_maxrss_mb": usage.ru_maxrss / 1024.0,  # an upper bound: this process's included
           "status": proc.returncode, "stderr_tail": err[-400:]}
    if sent is not None:
        res["signal"], res["expected_status"] = signal.Signals(sig).name, 128 + sig
        res["interrupt_at_s"] = sent - t0
        res["exit_after_interrupt_s"] = end - sent
    else:
        res["stdout_tail"] = out[-600:]
    return res


#: ranx's reader is stopped past this resident size (the machine is shared); the result says so
RANX_RSS_LIMIT_MB = 8192


def _watch_memory(limit_mb: float) -> None:
    import threading

    def watch():
        while True:
            for line in open("/proc/self/status"):
                if line.startswith("VmRSS:") and int(line.split()[1]) / 1024 > limit_mb:
                    sys.stderr.write(f"stopped: resident memory over {limit_mb:.0f} MB\n")
                    sys.stderr.flush()
                    os._exit(3)
            time.sleep(0.2)

    threading.Thread(target=watch, daemon=True).start()


def child_ranx(qrels: str, runs: list) -> dict:
    """ranx reading the same files (``Qrels.from_file``, ``Run.from_file``) and scoring them
    (``evaluate``, for the cross-check of the means), in a fresh process."""
    _watch_memory(RANX_RSS_LIMIT_MB)
    t0 = time.perf_counter()
    from ranx import Qrels, Run, evaluate

    t_import = time.perf_counter() - t0
    t1 = time.perf_counter()
    q = Qrels.from_file(qrels, kind="trec")
    t_qrels = time.perf_counter() - t1
    times, means = [], {}
    for p in runs:
        t1 = time.perf_counter()
        run = Run.from_file(p, kind="trec")
        times.append(time.perf_counter() - t1)
        means[run.name] = {k: float(v) for k, v in evaluate(
            q, run, ["ndcg@10", "map", "mrr"], make_comparable=True).items()}
        del run
    return {"import_s": t_import, "qrels_from_file_s": t_qrels, "run_from_file_s": times,
            "run_from_file_total_s": sum(times), "total_s": time.perf_counter() - t0,
            "peak_rss_mb": maxrss_mb(),  # VmHWM: ru_maxrss would include the parent's
            "means": means}


def run(quick: bool = False) -> dict:
    n_queries = 200 if quick else 7000
    work = Path(tempfile.mkdtemp(prefix="rankbook-bench-compare-"))
    try:
        log(f"[compare_7m] writing two runs of {n_queries * 1000:,} lines into {work}")
        t0 = time.perf_counter()
        qrels, runs = write_collection(work, n_queries)
        gen_s = time.perf_counter() - t0
        sizes = {p.name: p.stat().st_size for p in [qrels, *runs]}
        log(f"[compare_7m] rankbook compare ({gen_s:.0f} s to write the files)")
        full = _run_measured(_command(qrels, runs, work / "out.csv"), cwd=work)
        if full["status"] != 0:
            raise RuntimeError(f"rankbook compare failed: {full['stderr_tail']}")
        import pandas as pd

        table = pd.read_csv(work / "out.csv")
        means = {s: {m: float(g.loc[g.measure == m, "mean"].iloc[0]) for m in g.measure}
                 for s, g in table.groupby("system", sort=False)}
        log(f"[compare_7m] {full['wall_s']:.1f} s, {full['peak_rss_mb']:.0f} MB; now Ctrl-C")
        interrupts = []
        for share, sig in ((0.25, signal.SIGINT), (0.6, signal.SIGTERM)):
            # Ctrl-C while the first run is read, a kill while the second is scored
            interrupts.append(_run_measured(_command(qrels, runs, work / "out2.csv"),
                                            interrupt_after=max(0.5, share * full["wall_s"]),
                                            cwd=work, sig=sig))
        worst = max(interrupts, key=lambda r: (r["status"] != r["expected_status"],
                                               r["exit_after_interrupt_s"]))
        result = {"lines_per_run": n_queries * 1000, "queries": n_queries, "bytes": sizes,
                  "generate_s": gen_s, "rankbook": full, "rankbook_means": means,
                  "interrupt": worst, "interrupts": interrupts, "measures": MEASURES,
                  "resamples": 1000}
        if _has("ranx"):
            log("[compare_7m] ranx Qrels/Run.from_file and compare")
            from common import run_child

            try:
                rx = run_child("bench_compare_cli", "child_ranx",
                               {"qrels": str(qrels), "runs": [str(p) for p in runs]},
                               timeout=7200)
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                result["ranx"] = {"failed": str(exc)[-500:]}
                return result
            # the same means: rankbook's systems are the file stems, ranx's the run tags
            ours = [means[s] for s in ("run1", "run2")]
            theirs = [rx["means"][n] for n in ("bm25", "dense")]
            rx["max_abs_diff_of_means"] = max(
                abs(o[m] - th[r]) for o, th in zip(ours, theirs)
                for m, r in zip(MEASURES.split(","), ("ndcg@10", "map", "mrr")))
            result["ranx"] = rx
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


if __name__ == "__main__":  # python benchmarks/bench_compare_cli.py [--quick]
    import json

    print(json.dumps(run(quick="--quick" in sys.argv), indent=1))
