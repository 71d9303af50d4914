"""``rankbook reproduce`` against repro_eval 0.5.0 on the same four run files and qrels.

Inputs (seeded, written to a temporary folder outside the timings), five measures: AP,
nDCG@10, P@10, RR, R@100.

* the target's shape, a user's reproduction (issue 38, :func:`write_realistic`): 300 topics,
  about 530 documents per topic with Web-track ids, scores with one decimal (many ties, broken
  by document id), most retrieved documents unjudged, levels -2 to 3;
* the earlier synthetic shape, reported beside it (``synthetic``): 250 topics, four runs of
  1,000 documents per topic (an original baseline and advanced run, and reproductions of both
  with the scores perturbed and some documents replaced), 200 judgements per topic (relevance
  0-2), no ties.

* rankbook: the command line ``rankbook reproduce`` in a child process, start-up, reading and
  checking included, with its defaults (KTU over the union, RBO, RMSE, nRMSE, ER, ΔRI, the
  t-tests, and a bootstrap interval with 9,999 resamples for every value, which repro_eval does
  not compute);
* repro_eval: its Python API in a child process, on the same files: ``RpdEvaluator`` with the
  four paths and the qrels, its measures set to the same five (its default is every trec_eval
  measure), then ``trim``, ``evaluate``, ``ktu``, ``rbo``, ``rmse``, ``nrmse``, ``er``, ``dri``
  and ``ttest``, as its README's example calls them.

Both children are timed wall clock from start to exit (Python start-up and imports included in
both), three times each, interleaved; rankbook's modules are byte-compiled first, as
repro_eval's are in site-packages (with ``PYTHONDONTWRITEBYTECODE`` set, Python would otherwise
compile rankbook's sources again in every child, about 0.1 s that an installed copy never pays); the CPU time of each child (user + system) is kept too,
since the machine is shared. The five ER values of the two are compared (``check``: largest absolute difference).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from common import PYTHON, ROOT, log

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@100"]

_REPRO_EVAL = r"""
import json, sys, time
t0 = time.perf_counter()
import ir_measures
from repro_eval.Evaluator import RpdEvaluator
d, measures = sys.argv[1], sys.argv[2].split(",")
ev = RpdEvaluator(qrels_orig_path=f"{d}/qrels.txt", run_b_orig_path=f"{d}/orig_baseline.txt",
                  run_a_orig_path=f"{d}/orig_advanced.txt", run_b_rep_path=f"{d}/rep_baseline.txt",
                  run_a_rep_path=f"{d}/rep_advanced.txt")
ev.measures = [ir_measures.parse_measure(m) for m in measures]
ev.trim()
ev.evaluate()
out = {"ktu": ev.ktu(), "rbo": ev.rbo(), "rmse": ev.rmse(), "nrmse": ev.nrmse(), "er": ev.er(),
       "dri": ev.dri(), "ttest": ev.ttest()}
print(json.dumps({"er": out["er"], "seconds_inside": time.perf_counter() - t0}))
"""


def write_files(folder: Path, topics: int, docs: int, seed: int = 0) -> None:
    """Four runs and qrels as TREC files (scores in rank order, as retrieval systems write)."""
    rng = np.random.default_rng(seed)
    pool = docs + docs // 2
    names = np.array([f"doc{i:07d}" for i in range(topics * pool)]).reshape(topics, pool)
    for r in range(topics):
        rng.shuffle(names[r])  # names do not sort in rank order
    rel = rng.choice([0, 0, 0, 1, 2], size=(topics, 200))
    judged_idx = np.stack([rng.choice(pool, 200, replace=False) for _ in range(topics)])
    with open(folder / "qrels.txt", "w") as fh:
        for t in range(topics):
            fh.writelines(f"{t + 1} 0 {names[t, j]} {rel[t, i]}\n"
                          for i, j in enumerate(judged_idx[t]))
    gain = np.zeros((topics, pool))
    np.put_along_axis(gain, judged_idx, rel, axis=1)
    base = rng.normal(0, 1, (topics, pool))
    runs = {"orig_baseline": base + 0.8 * gain, "orig_advanced": base + 1.6 * gain}
    runs["rep_baseline"] = runs["orig_baseline"] + rng.normal(0, 0.3, (topics, pool))
    runs["rep_advanced"] = runs["orig_advanced"] + rng.normal(0, 0.3, (topics, pool))
    for name, sc in runs.items():
        top = np.argsort(-sc, axis=1)[:, :docs]
        with open(folder / f"{name}.txt", "w") as fh:
            for t in range(topics):
                fh.writelines(f"{t + 1} Q0 {names[t, j]} {k + 1} {sc[t, j]:.6f} {name}\n"
                              for k, j in enumerate(top[t]))


def write_realistic(folder: Path, topics: int = 300, seed: int = 0) -> None:
    """Four runs and qrels of the shape a user's reproduction has (issue 38): Web-track-like ids
    (``wt-201``, ``clueweb12-0000tw-05-12114``), 400 to 660 documents per topic (about 530),
    scores with one decimal (many ties, broken by document id), about 150 judgements per topic
    of which a third on documents no run retrieves (so most retrieved documents are unjudged),
    levels -2 to 3. The reproductions rerun the same topics with perturbed scores, some
    documents replaced."""
    rng = np.random.default_rng(seed)

    def docids(n):
        return [f"clueweb12-{a:04d}tw-{b:02d}-{c:05d}" for a, b, c in
                zip(rng.integers(0, 2000, n), rng.integers(0, 100, n), rng.integers(0, 100_000, n))]

    runs = {r: [] for r in ("orig_baseline", "orig_advanced", "rep_baseline", "rep_advanced")}
    qrels = []
    for t in range(topics):
        qid = f"wt-{201 + t}"
        n = int(rng.integers(400, 661))
        pool = list(dict.fromkeys(docids(n + 200)))[: n + 100]
        judged_idx = rng.choice(min(len(pool), 300), size=100, replace=False)
        extra = [d for d in docids(60) if d not in set(pool)][:50]
        rel = {pool[i]: int(rng.choice([-2, 0, 0, 0, 0, 1, 1, 2, 3])) for i in judged_idx}
        rel.update({d: int(rng.choice([0, 0, 1, 2])) for d in extra})
        qrels += [f"{qid} 0 {d} {r}\n" for d, r in rel.items()]
        gain = np.array([max(rel.get(d, 0), 0) for d in pool], dtype=float)
        base = rng.gamma(4.0, 1.5, len(pool))
        scores = {"orig_baseline": base + 0.8 * gain, "orig_advanced": base + 1.6 * gain}
        scores["rep_baseline"] = scores["orig_baseline"] + rng.normal(0, 0.5, len(pool))
        scores["rep_advanced"] = scores["orig_advanced"] + rng.normal(0, 0.5, len(pool))
        for name, sc in scores.items():
            sc = np.round(sc, 1)  # one decimal: ties
            top = np.argsort(-sc, kind="stable")[:n]
            runs[name] += [f"{qid} Q0 {pool[j]} {k + 1} {sc[j]:.1f} {name}\n"
                           for k, j in enumerate(top)]
    (folder / "qrels.txt").write_text("".join(qrels))
    for name, lines in runs.items():
        (folder / f"{name}.txt").write_text("".join(lines))


def _child(argv, env=None) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall clock and CPU time (user + system of the child) of one child process."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), proc


def _measure(d: Path, repeats: int) -> dict:
    """rankbook reproduce and repro_eval on the files in ``d``, interleaved: wall and CPU."""
    import os

    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    rankbook = [PYTHON, "-m", "rankbook", "reproduce", "--qrels", str(d / "qrels.txt"),
                "--measures", ",".join(MEASURES), "--out", str(d / "out.csv"), "--force"]
    for role in ("orig_baseline", "orig_advanced", "rep_baseline", "rep_advanced"):
        rankbook += [f"--{role.replace('_', '-')}", str(d / f"{role}.txt")]
    ours, theirs, ours_cpu, theirs_cpu = [], [], [], []
    for _ in range(repeats):  # interleaved: the machine is shared
        s, c, p = _child(rankbook, env)
        if p.returncode:
            raise RuntimeError(f"rankbook reproduce failed: {p.stderr.strip()}")
        ours.append(s)
        ours_cpu.append(c)
        s, c, p = _child([PYTHON, "-c", _REPRO_EVAL, str(d), ",".join(MEASURES)])
        if p.returncode:
            raise RuntimeError(f"repro_eval failed: {p.stderr.strip()[-500:]}")
        theirs.append(s)
        theirs_cpu.append(c)
    import pandas as pd

    table = pd.read_csv(d / "out.csv")
    er_ours = table[table.statistic == "ER"].set_index("measure")["value"]
    er_theirs = json.loads(p.stdout.strip().splitlines()[-1])["er"]
    check = max(abs(er_ours[m] - er_theirs[m]) for m in MEASURES)
    out = {"measures": MEASURES, "runs": 4,
           "rankbook_s": float(np.median(ours)), "repro_eval_s": float(np.median(theirs)),
           "rankbook_times": [round(t, 3) for t in ours],
           "repro_eval_times": [round(t, 3) for t in theirs],
           "rankbook_cpu_s": float(np.median(ours_cpu)),
           "repro_eval_cpu_s": float(np.median(theirs_cpu)), "check_er_max_abs_diff": check}
    out["speedup"] = out["repro_eval_s"] / out["rankbook_s"]
    out["speedup_cpu"] = out["repro_eval_cpu_s"] / out["rankbook_cpu_s"]
    return out


#: The target of both shapes: rankbook reproduce at least this many times faster than
#: repro_eval (wall and CPU time of the whole command).
SPEEDUP = 5.0


def run(quick: bool = False) -> dict:
    """The target's shape is a user's (issue 38): :func:`write_realistic`, 300 topics with
    ties and unjudged documents; the earlier synthetic shape (:func:`write_files`, no ties,
    every retrieved document judged or not at random) is measured beside it."""
    import compileall

    compileall.compile_dir(str(ROOT / "src" / "rankbook"), quiet=1)  # as pip install does
    topics = 60 if quick else 300
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        write_realistic(d, topics)
        out = _measure(d, 1 if quick else 3)
        rows = sum(1 for _ in open(d / "orig_baseline.txt"))
    out.update(shape="realistic", topics=topics, documents=round(rows / topics),
               target=SPEEDUP)
    log(f"reproduce (realistic): rankbook {out['rankbook_s']:.2f} s, repro_eval "
        f"{out['repro_eval_s']:.2f} s ({out['speedup']:.1f}x wall, {out['speedup_cpu']:.1f}x "
        f"CPU), ER max diff {out['check_er_max_abs_diff']:.2e}")
    s_topics, s_docs = (50, 200) if quick else (250, 1000)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        write_files(d, s_topics, s_docs)
        syn = _measure(d, 1)
    syn.update(shape="synthetic", topics=s_topics, documents=s_docs)
    out["synthetic"] = syn
    log(f"reproduce (synthetic): {syn['speedup']:.1f}x wall, {syn['speedup_cpu']:.1f}x CPU")
    return out


if __name__ == "__main__":
    print(json.dumps(run(quick="--quick" in sys.argv), indent=1))
