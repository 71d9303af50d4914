"""``conventions.evaluate_run`` on qrels and a run of 10^4 queries x 10^3 documents and five
measures, beside ranx (warm: numba already compiled) and pytrec_eval on the same data.

Inputs (seeded): every query retrieves 1,000 distinct documents out of 5,000,000, with random
scores (no ties), written in rank order as a retrieval system writes a run; 100 judgements per
query (half of them on retrieved documents), relevance 0-3. Measures: nDCG@10, AP, RR, P@5,
R@100 (ranx: ndcg@10, map, mrr, precision@5, recall@100; pytrec_eval: ndcg_cut.10, map,
recip_rank, P.5, recall.100). Each library gets the data in its own native form, built outside
the timings:

* rankbook: DataFrames ``query_id, doc_id, relevance`` / ``query_id, doc_id, score`` with
  integer ids (``rankbook_s``), and the same with string ids (``rankbook_str_ids_s``), scored by
  one ``evaluate_run(..., convention="trec_eval")`` call, which validates the input (numbers,
  duplicates), joins the judgements and computes the five measures;
* ranx: its numpy fast path (arrays of [doc id, value] rows per query), timed after a first call
  compiled the numba kernels (``ranx_warm_s``) and on its default threads;
* pytrec_eval: ``RelevanceEvaluator(qrels).evaluate(run)`` on dicts of dicts (one call; building
  the dicts is not timed).

A second part (``child_realistic``) scores a realistic run with string ids (ClueWeb12
document ids such as ``clueweb12-0000tw-05-12114``, query ids such as ``wt-201``; 300 queries,
about 530 documents each, 10 measures) with rankbook, pytrec_eval, ranx (its first call, cold,
and the calls after it, warm) and ir_measures in one process, each from the same dicts and from
the same TREC files read by its own reader, wall and CPU time. rankbook joins two dicts of dicts
with text ids as it reads them (each run row looked up in its query's judgements) and reads TREC
files with its one reader (``trec_format.read_table``: blocks parsed with numpy), joining
(query, document) pairs by a hash of their bytes.

Two more parts measure files to numbers (issue 38): ``run_files`` (``make bench`` case
``reader_10m``: the 10^4 x 10^3 data above as TREC files, ``evaluate_run`` on the paths
against pytrec_eval's own readers plus its evaluator, CPU time and peak memory of each fresh
process) and ``run_track`` (case ``track_files``: a TREC ad hoc track's 250 topics x 1,000
documents x 10 runs, AP, nDCG@10 and P@10, against pytrec-eval-terrier and ir_measures, each
with its own readers). Their targets are in :data:`FILES_TARGETS`.

The five means of the three libraries are compared (``check``: largest absolute difference).
Wall clock and the process CPU time of the call are both kept: the machine is shared, and CPU
time shows what the call costs when the cores are not contended.
"""

from __future__ import annotations

import time

import numpy as np

from common import log, run_child, timed

MEASURES = ["nDCG@10", "AP", "RR", "P@5", "R@100"]
RANX = ["ndcg@10", "map", "mrr", "precision@5", "recall@100"]
TREC = {"ndcg_cut.10": "ndcg_cut_10", "map": "map", "recip_rank": "recip_rank", "P.5": "P_5",
        "recall.100": "recall_100"}
VOCAB = 5_000_000


def make_data(Q: int, D: int = 1000, J: int = 100, seed: int = 0):
    """Distinct documents per query without a per-query draw: column j of a row is an id that is
    j modulo D (so a row never repeats one); judged-but-not-retrieved documents come from ids
    at or above VOCAB."""
    rng = np.random.default_rng(seed)
    docs = rng.integers(0, VOCAB // D, size=(Q, D), dtype=np.int64) * D + np.arange(D)
    docs = np.take_along_axis(docs, rng.permuted(np.tile(np.arange(D), (Q, 1)), axis=1), axis=1)
    scores = -np.sort(-rng.random((Q, D)), axis=1)  # rank order, no ties
    inside = docs[:, : J // 2]  # the positions are random: docs is shuffled per row
    outside = VOCAB + rng.integers(0, VOCAB // J, size=(Q, J - J // 2), dtype=np.int64) * J \
        + np.arange(J - J // 2)
    judged = np.concatenate([inside, outside], axis=1)
    rel = rng.choice([0, 0, 1, 2, 3], size=(Q, J))
    return docs, scores, judged, rel


def _frames(Q, str_ids=False, seed=0):
    import pandas as pd

    docs, scores, judged, rel = make_data(Q, seed=seed)
    D, J = docs.shape[1], judged.shape[1]
    qid = np.arange(Q)
    run = pd.DataFrame({"query_id": np.repeat(qid, D), "doc_id": docs.ravel(), "score": scores.ravel()})
    qrels = pd.DataFrame({"query_id": np.repeat(qid, J), "doc_id": judged.ravel(), "relevance": rel.ravel()})
    if str_ids:
        for df in (run, qrels):
            df["query_id"] = "q" + df["query_id"].astype(str)
            df["doc_id"] = "d" + df["doc_id"].astype(str)
    return qrels, run


def child_rankbook(Q: int, str_ids: bool = False, seed: int = 0) -> dict:
    qrels, run = _frames(Q, str_ids=str_ids, seed=seed)
    t0 = time.perf_counter()
    from rankbook.conventions import evaluate_run

    t_import = time.perf_counter() - t0
    cpu = []

    def call():
        c0 = time.process_time()
        res = evaluate_run(qrels, run, MEASURES, convention="trec_eval")
        cpu.append(time.process_time() - c0)
        return res

    t = timed(call, repeats=3, budget=60)
    res = t["value"]
    as_ranx = evaluate_run(qrels, run, MEASURES, convention="ranx")  # for the check, not timed
    as_nine = evaluate_run(qrels, run, MEASURES, convention="trec_eval_9")  # pytrec_eval's code
    return {"import_s": t_import, "median_s": t["median"], "times": t["times"],
            "cpu_s": float(np.median(cpu)), "cpu_times": [round(c, 6) for c in cpu],
            "values": [float(res.aggregate[m]) for m in MEASURES],
            "values_ranx_profile": [float(as_ranx.aggregate[m]) for m in MEASURES],
            "values_trec_eval_9_profile": [float(as_nine.aggregate[m]) for m in MEASURES],
            "rows": int(len(run)), "judgements": int(len(qrels))}


def child_ranx(Q: int, seed: int = 0) -> dict:
    docs, scores, judged, rel = make_data(Q, seed=seed)
    import numba
    import ranx

    order = np.argsort(-rel, axis=1, kind="stable")  # ranx expects qrels sorted by relevance
    qr = np.stack([np.take_along_axis(judged, order, axis=1).astype(float),
                   np.take_along_axis(rel, order, axis=1).astype(float)], axis=2)
    rn = np.stack([docs.astype(float), scores], axis=2)
    t0 = time.perf_counter()
    ranx.evaluate(qr, rn, RANX)
    cold = time.perf_counter() - t0
    cpu = []

    def call():
        c0 = time.process_time()
        out = ranx.evaluate(qr, rn, RANX)
        cpu.append(time.process_time() - c0)
        return out

    t = timed(call, repeats=3, budget=60)
    return {"first_call_s": cold, "median_s": t["median"], "times": t["times"],
            "cpu_s": float(np.median(cpu)), "numba_threads": int(numba.get_num_threads()),
            "values": [float(t["value"][m]) for m in RANX]}


def child_pytrec_eval(Q: int, seed: int = 0) -> dict:
    docs, scores, judged, rel = make_data(Q, seed=seed)
    import pytrec_eval

    qrels = {str(q): {str(int(d)): int(r) for d, r in zip(judged[q], rel[q])} for q in range(Q)}
    run = {str(q): {str(int(d)): float(s) for d, s in zip(docs[q], scores[q])} for q in range(Q)}
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(TREC))
    cpu = []

    def call():
        c0 = time.process_time()
        out = ev.evaluate(run)
        cpu.append(time.process_time() - c0)
        return out

    t = timed(call, repeats=2, budget=120)
    res = t["value"]
    return {"median_s": t["median"], "times": t["times"], "cpu_s": float(np.median(cpu)),
            "values": [float(np.mean([v[k] for v in res.values()])) for k in TREC.values()]}


def run(quick: bool = False) -> dict:
    Q = 1000 if quick else 10_000
    log(f"[conventions] rankbook evaluate_run, {Q} queries x 1000 documents, integer ids")
    rb = run_child("bench_conventions", "child_rankbook", {"Q": Q})
    log("[conventions] rankbook evaluate_run, string ids")
    rb_str = run_child("bench_conventions", "child_rankbook", {"Q": Q, "str_ids": True})
    log("[conventions] ranx numpy path (warm)")
    rx = run_child("bench_conventions", "child_ranx", {"Q": Q})
    log("[conventions] pytrec_eval")
    pt = run_child("bench_conventions", "child_pytrec_eval", {"Q": Q})
    log("[conventions] realistic string-id run: rankbook, pytrec_eval, ranx, ir_measures")
    real = run_child("bench_conventions", "child_realistic", {"Q": 300, "repeats": 3 if quick else 7})
    log("[conventions] run shapes from dicts (tie-heavy, tie-free, mixed): rankbook, pytrec_eval")
    shapes = run_child("bench_conventions", "child_shapes", {"Q": 300, "repeats": 5 if quick else 15})
    ref = np.array(rb["values"])
    diff = lambda a, b: float(np.max(np.abs(np.array(a) - np.array(b))))  # noqa: E731
    out = {
        "Q": Q, "documents": 1000, "measures": MEASURES, "rankbook": rb, "rankbook_str_ids": rb_str,
        "ranx": rx, "pytrec_eval": pt, "realistic": real, "shapes": shapes,
        "check": {"rankbook_str_ids": diff(rb_str["values"], ref),
                  "pytrec_eval vs trec_eval_9 profile": diff(pt["values"],
                                                              rb["values_trec_eval_9_profile"]),
                  "pytrec_eval vs trec_eval profile": diff(pt["values"], ref),
                  "ranx vs ranx profile": diff(rx["values"], rb["values_ranx_profile"]),
                  "ranx vs trec_eval profile": diff(rx["values"], ref)},
        "notes": (
            "One evaluate_run call (trec_eval profile) on DataFrames: input validation, the join "
            "of judgements and run, and five measures. ranx: numba kernels on numpy arrays, "
            "compiled by a first call before timing, on its default threads. pytrec_eval: one "
            "evaluate call on dicts. cpu_s is the process CPU time of the call (the machine is "
            "shared: wall time rises with other users' load). check: largest difference of the "
            "five means. The timed call is the trec_eval profile (trec_eval 10.0, scores in "
            "double precision); pytrec_eval runs trec_eval 9's code, which compares scores in "
            "single precision (about 3% of the queries hold two scores equal as floats): it "
            "matches the trec_eval_9 profile, and differs slightly from trec_eval 10.0 and ranx. "
            "realistic: a Web-track-like run (300 queries with ids like wt-201, about 530 "
            "ClueWeb12 document ids per query, 10 measures), every library in one process, from "
            "the same dicts and the same TREC files, each library converting or reading inside "
            "its timing (rankbook: dicts joined as read, files read by its one reader in numpy "
            "blocks and joined by a hash of the ids' bytes); first_s is the first call (ranx: numba "
            "compile or cache load), median_s and cpu_s the median of the calls after it. "
            "shapes: the realistic run's documents rescored three ways (tie-heavy: scores with one "
            "decimal; tie-free: distinct scores; mixed: half the queries with two decimals, half "
            "with six), rankbook and pytrec_eval from the same dicts, interleaved, CPU time."),
    }
    return out


# --------------------------------------------------------------------------------------------
# realistic string-id runs: every library in one process, from the same dicts and files

REAL = ["nDCG@10", "nDCG@20", "nDCG", "AP", "RR", "P@5", "P@10", "R@100", "R@1000", "Rprec"]
REAL_TREC = {"ndcg_cut.10,20": ["ndcg_cut_10", "ndcg_cut_20"], "ndcg": ["ndcg"], "map": ["map"],
             "recip_rank": ["recip_rank"], "P.5,10": ["P_5", "P_10"],
             "recall.100,1000": ["recall_100", "recall_1000"], "Rprec": ["Rprec"]}
REAL_TREC_ORDER = ["ndcg_cut_10", "ndcg_cut_20", "ndcg", "map", "recip_rank", "P_5", "P_10",
                   "recall_100", "recall_1000", "Rprec"]
REAL_RANX = ["ndcg@10", "ndcg@20", "ndcg", "map", "mrr", "precision@5", "precision@10",
             "recall@100", "recall@1000", "r-precision"]


def make_realistic(Q: int = 300, seed: int = 0):
    """Qrels and a run as a TREC Web track gives them: query ids like ``"wt-201"``, ClueWeb12
    document ids like ``"clueweb12-0000tw-05-12114"``, 400 to 660 documents per query (about
    530), scores printed with 4 decimals as a BM25 run writes them (so a few scores tie), about
    150 judgements per query (two thirds of them on retrieved documents), relevance 0-3 mostly
    0. Returns (qrels dict, run dict)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}

    def docids(n):
        seg = rng.integers(0, 2000, n)
        sub = rng.integers(0, 100, n)
        num = rng.integers(0, 100_000, n)
        return [f"clueweb12-{a:04d}tw-{b:02d}-{c:05d}" for a, b, c in zip(seg, sub, num)]

    for q in range(Q):
        qid = f"wt-{201 + q}"
        n = int(rng.integers(400, 661))
        docs = list(dict.fromkeys(docids(n + 20)))[:n]
        scores = np.round(np.sort(rng.gamma(4.0, 3.0, n))[::-1], 4)
        run[qid] = {d: float(s) for d, s in zip(docs, scores)}
        top = rng.choice(min(n, 300), size=100, replace=False)
        judged = [docs[i] for i in top] + [d for d in docids(60) if d not in run[qid]][:50]
        rel = rng.choice([0, 0, 0, 0, 1, 1, 2, 3], size=len(judged))
        qrels[qid] = {d: int(r) for d, r in zip(judged, rel)}
    return qrels, run


def _write_trec(qrels, run, folder):
    from pathlib import Path

    folder = Path(folder)
    qp, rp = folder / "web.qrels", folder / "web.run"
    with open(qp, "w") as f:
        for q, docs in qrels.items():
            f.writelines(f"{q} 0 {d} {r}\n" for d, r in docs.items())
    with open(rp, "w") as f:
        for q, docs in run.items():
            f.writelines(f"{q} Q0 {d} {i} {s:.4f} bm25\n"
                         for i, (d, s) in enumerate(docs.items(), start=1))
    return str(qp), str(rp)


def _clock(fn, repeats):
    """Wall and CPU seconds of ``fn()``: the first call, then the median of ``repeats`` more."""
    walls, cpus, value = [], [], None
    for _ in range(repeats + 1):
        t0, c0 = time.perf_counter(), time.process_time()
        value = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    rest_w, rest_c = walls[1:] or walls, cpus[1:] or cpus
    return {"first_s": walls[0], "first_cpu_s": cpus[0], "median_s": float(np.median(rest_w)),
            "cpu_s": float(np.median(rest_c)), "times": [round(t, 6) for t in walls]}, value


def child_realistic(Q: int = 300, seed: int = 0, repeats: int = 7) -> dict:
    """Every library on the same realistic run, in this one process: from dicts (each library's
    own dict input, converted by it inside the timing) and from the same TREC files (read by
    each library's own reader inside the timing). The first call of each is kept apart (ranx's
    first call compiles or loads its numba kernels; rankbook's imports nothing more)."""
    import tempfile

    qrels, run = make_realistic(Q, seed)
    folder = tempfile.mkdtemp(prefix="rankbook-bench-web-")
    qpath, rpath = _write_trec(qrels, run, folder)
    rows = sum(len(v) for v in run.values())
    out = {"Q": Q, "rows": rows, "judgements": sum(len(v) for v in qrels.values()),
           "measures": REAL}

    import rankbook.conventions as rc

    t, res = _clock(lambda: rc.evaluate_run(qrels, run, REAL), repeats)
    out["rankbook_dicts"] = {**t, "values": [float(res.aggregate[m]) for m in REAL]}
    t, res = _clock(lambda: rc.evaluate_run(qpath, rpath, REAL), repeats)
    out["rankbook_files"] = {**t, "values": [float(res.aggregate[m]) for m in REAL]}
    nine = rc.evaluate_run(qrels, run, REAL, convention="trec_eval_9")
    as_ranx = rc.evaluate_run(qrels, run, REAL, convention="ranx")

    import pytrec_eval

    def pte(q, r):
        res = pytrec_eval.RelevanceEvaluator(q, set(REAL_TREC)).evaluate(r)
        return [float(np.mean([v[k] for v in res.values()])) for k in REAL_TREC_ORDER]

    t, vals = _clock(lambda: pte(qrels, run), repeats)
    out["pytrec_eval_dicts"] = {**t, "values": vals}

    def pte_files():
        with open(qpath) as fq, open(rpath) as fr:
            return pte(pytrec_eval.parse_qrel(fq), pytrec_eval.parse_run(fr))

    t, vals = _clock(pte_files, repeats)
    out["pytrec_eval_files"] = {**t, "values": vals}

    import ranx

    def rx(q, r):
        res = ranx.evaluate(q, r, REAL_RANX)
        return [float(res[m]) for m in REAL_RANX]

    t, vals = _clock(lambda: rx(ranx.Qrels(qrels), ranx.Run(run)), repeats)
    out["ranx_dicts"] = {**t, "values": vals}  # first_s: the cold call (numba compile or load)
    t, vals = _clock(lambda: rx(ranx.Qrels.from_file(qpath, kind="trec"),
                                ranx.Run.from_file(rpath, kind="trec")), repeats)
    out["ranx_files"] = {**t, "values": vals}
    rq, rr = ranx.Qrels(qrels), ranx.Run(run)
    t, vals = _clock(lambda: rx(rq, rr), repeats)
    out["ranx_built"] = {**t, "values": vals}  # Qrels/Run built outside the timing

    import ir_measures

    parsed = [ir_measures.parse_measure(m) for m in REAL]

    def irm(q, r):
        agg = ir_measures.calc_aggregate(parsed, q, r)
        return [float(agg[m]) for m in parsed]

    t, vals = _clock(lambda: irm(qrels, run), repeats)
    out["ir_measures_dicts"] = {**t, "values": vals}
    t, vals = _clock(lambda: irm(ir_measures.read_trec_qrels(qpath),
                                 ir_measures.read_trec_run(rpath)), repeats)
    out["ir_measures_files"] = {**t, "values": vals}

    diff = lambda a, b: float(np.max(np.abs(np.array(a) - np.array(b))))  # noqa: E731
    nine_v = [float(nine.aggregate[m]) for m in REAL]
    out["check"] = {
        "pytrec_eval vs trec_eval_9 profile": diff(out["pytrec_eval_dicts"]["values"], nine_v),
        "ir_measures vs trec_eval_9 profile": diff(out["ir_measures_dicts"]["values"], nine_v),
        "ranx vs ranx profile": diff(out["ranx_dicts"]["values"],
                                     [float(as_ranx.aggregate[m]) for m in REAL]),
        "rankbook files vs dicts": diff(out["rankbook_files"]["values"],
                                        out["rankbook_dicts"]["values"]),
    }
    return out


# --------------------------------------------------------------------------------------------
# from files to numbers (issue 38, item 5): the one reader against reading in Python

#: Targets of the file cases, each a ratio peer / rankbook (CPU seconds or peak memory).
FILES_TARGETS = {"reader_10m_cpu": 1.0, "reader_10m_memory": 1.0, "track_vs_pytrec_eval": 1.0,
                 "track_vs_ir_measures": 1.0}


def write_files(folder, Q: int, seed: int = 0):
    """The data of :func:`make_data` as TREC files (scores with 6 decimals, as a retrieval
    system prints them; a run in rank order): (qrels path, run path)."""
    from pathlib import Path

    folder = Path(folder)
    docs, scores, judged, rel = make_data(Q, seed=seed)
    qp, rp = folder / "big.qrels", folder / "big.run"
    with open(qp, "w") as fh:
        for q in range(Q):
            fh.write("".join(f"{q} 0 {d} {r}\n" for d, r in zip(judged[q].tolist(), rel[q].tolist())))
    with open(rp, "w") as fh:
        for q in range(Q):
            fh.write("".join(f"{q} Q0 {d} {i} {s:.6f} bench\n" for i, (d, s) in
                             enumerate(zip(docs[q].tolist(), scores[q].tolist()), start=1)))
    return str(qp), str(rp)


def child_files_rankbook(qrels: str, run: str) -> dict:
    """``evaluate_run`` from the two paths (reading, joining, scoring), in a fresh process."""
    from common import maxrss_mb

    import rankbook.conventions as rc

    base = maxrss_mb()
    c0, t0 = time.process_time(), time.perf_counter()
    res = rc.evaluate_run(qrels, run, MEASURES, convention="trec_eval_9")
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    return {"cpu_s": cpu, "wall_s": wall, "peak_rss_mb": maxrss_mb(), "base_rss_mb": base,
            "values": [float(res.aggregate[m]) for m in MEASURES]}


def child_files_pytrec_eval(qrels: str, run: str) -> dict:
    """pytrec_eval's own readers (``parse_qrel``, ``parse_run``: a Python loop into dicts),
    then ``RelevanceEvaluator.evaluate``, in a fresh process."""
    from common import maxrss_mb

    import pytrec_eval

    base = maxrss_mb()
    c0, t0 = time.process_time(), time.perf_counter()
    with open(qrels) as fh:
        q = pytrec_eval.parse_qrel(fh)
    with open(run) as fh:
        r = pytrec_eval.parse_run(fh)
    read_cpu, read_peak = time.process_time() - c0, maxrss_mb()
    res = pytrec_eval.RelevanceEvaluator(q, set(TREC)).evaluate(r)
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    return {"cpu_s": cpu, "wall_s": wall, "read_cpu_s": read_cpu, "score_cpu_s": cpu - read_cpu,
            "peak_after_read_mb": read_peak, "peak_rss_mb": maxrss_mb(), "base_rss_mb": base,
            "values": [float(np.mean([v[k] for v in res.values()])) for k in TREC.values()]}


def run_files(quick: bool = False) -> dict:
    """10,000 queries x 1,000 documents (10 M run lines, 1 M judgements) from files to the five
    means: rankbook's ``evaluate_run`` on the paths against pytrec_eval's readers plus its
    evaluator, each in its own process (CPU time and peak resident memory, VmHWM)."""
    import tempfile

    Q = 1000 if quick else 10_000
    with tempfile.TemporaryDirectory(prefix="rankbook-bench-files-") as tmp:
        log(f"[files] writing {Q:,} x 1,000 lines")
        qp, rp = write_files(tmp, Q)
        import os

        size = os.path.getsize(rp)
        log("[files] rankbook evaluate_run from the paths")
        rb = run_child("bench_conventions", "child_files_rankbook", {"qrels": qp, "run": rp},
                       timeout=1800)
        log("[files] pytrec_eval: parse_qrel + parse_run + evaluate")
        pt = run_child("bench_conventions", "child_files_pytrec_eval", {"qrels": qp, "run": rp},
                       timeout=3600)
    return {"Q": Q, "documents": 1000, "run_lines": Q * 1000, "run_bytes": size,
            "measures": MEASURES, "rankbook": rb, "pytrec_eval": pt,
            "cpu_ratio": pt["cpu_s"] / rb["cpu_s"],
            "memory_ratio": min(pt["peak_rss_mb"], pt["peak_after_read_mb"]) / rb["peak_rss_mb"],
            "check": float(np.max(np.abs(np.array(rb["values"]) - np.array(pt["values"])))),
            "targets": FILES_TARGETS,
            "notes": ("Each side in a fresh process, from the paths to the five means; CPU time "
                      "of the process around the call (reading included), peak memory the "
                      "process's VmHWM (interpreter and imports included: base_rss_mb). "
                      "rankbook under the trec_eval_9 profile (pytrec_eval runs trec_eval 9's "
                      "code). memory_ratio: pytrec_eval's smaller peak (after reading the dicts, "
                      "or after scoring) over rankbook's.")}


TRACK = ["AP", "nDCG@10", "P@10"]
TRACK_TREC = {"map": "map", "ndcg_cut.10": "ndcg_cut_10", "P.10": "P_10"}


def write_track(folder, topics: int = 250, depth: int = 1000, n_runs: int = 10, seed: int = 0):
    """A TREC ad hoc track's files: ``topics`` topics (401, 402, ...), ``n_runs`` runs of
    ``depth`` documents each with ids like ``FBIS3-10082``, scores with 4 decimals (some
    ties), and a qrels of about 1,200 judgements per topic, pooled from the runs' tops (levels
    0-2, most 0). Returns (qrels path, run paths)."""
    from pathlib import Path

    folder = Path(folder)
    rng = np.random.default_rng(seed)
    pool = 3 * depth
    prefixes = np.array(["FBIS3", "FBIS4", "FT921", "FT944", "LA0101", "FR940104"])
    qlines, runs = [], [[] for _ in range(n_runs)]
    for t in range(topics):
        q = str(401 + t)
        ids = [f"{prefixes[a]}-{b}" for a, b in zip(rng.integers(0, prefixes.size, pool),
                                                     rng.choice(10**6, size=pool, replace=False))]
        quality = rng.normal(0, 1, pool)
        judged = set()
        for k in range(n_runs):
            sc = np.round(quality + rng.normal(0, 1.5, pool) + 5, 4)
            top = np.argsort(-sc, kind="stable")[:depth]
            runs[k] += [f"{q} Q0 {ids[j]} {i + 1} {sc[j]:.4f} run{k}\n" for i, j in enumerate(top)]
            judged.update(top[:120].tolist())
        for j in sorted(judged):
            level = 0 if quality[j] < 1.0 else (1 if quality[j] < 1.8 else 2)
            qlines.append(f"{q} 0 {ids[j]} {level}\n")
    qp = folder / "track.qrels"
    qp.write_text("".join(qlines))
    paths = []
    for k, lines in enumerate(runs):
        p = folder / f"run{k}.txt"
        p.write_text("".join(lines))
        paths.append(str(p))
    return str(qp), paths


def child_track(tool: str, qrels: str, runs: list) -> dict:
    """From the files to AP, nDCG@10 and P@10 of every run with one library, its own readers,
    the qrels read once: CPU and wall seconds of the whole loop, the means of each run."""
    c0, t0 = time.process_time(), time.perf_counter()
    values = []
    if tool == "rankbook":
        import rankbook.conventions as rc
        from rankbook import trec_format

        c0, t0 = time.process_time(), time.perf_counter()  # the imports are not timed
        q = trec_format.read_table(qrels, "qrels")
        for r in runs:
            agg = rc.evaluate_run(q, r, TRACK, convention="trec_eval_9").aggregate
            values.append([float(agg[m]) for m in TRACK])
    elif tool == "pytrec_eval":
        import pytrec_eval

        c0, t0 = time.process_time(), time.perf_counter()
        with open(qrels) as fh:
            ev = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(fh), set(TRACK_TREC))
        for r in runs:
            with open(r) as fh:
                res = ev.evaluate(pytrec_eval.parse_run(fh))
            values.append([float(np.mean([v[k] for v in res.values()]))
                           for k in TRACK_TREC.values()])
    elif tool == "ir_measures":
        import ir_measures

        parsed = [ir_measures.parse_measure(m) for m in TRACK]
        c0, t0 = time.process_time(), time.perf_counter()
        q = list(ir_measures.read_trec_qrels(qrels))
        for r in runs:
            agg = ir_measures.calc_aggregate(parsed, q, ir_measures.read_trec_run(r))
            values.append([float(agg[m]) for m in parsed])
    else:
        raise ValueError(tool)
    return {"cpu_s": time.process_time() - c0, "wall_s": time.perf_counter() - t0,
            "values": values}


def run_track(quick: bool = False) -> dict:
    """A TREC track's size from files to numbers: 250 topics x 1,000 documents x 10 runs,
    AP, nDCG@10 and P@10, rankbook against pytrec-eval-terrier and ir_measures (each in its own
    process, imports not timed, the qrels read once, every run read by the library's reader)."""
    import os
    import tempfile

    topics, n_runs = (50, 3) if quick else (250, 10)
    with tempfile.TemporaryDirectory(prefix="rankbook-bench-track-") as tmp:
        qp, rps = write_track(tmp, topics=topics, n_runs=n_runs)
        lines = sum(1 for r in rps for _ in open(r))
        judgements = sum(1 for _ in open(qp))
        out = {"topics": topics, "documents": 1000, "runs": n_runs, "run_lines": lines,
               "judgements": judgements, "bytes": sum(os.path.getsize(r) for r in rps),
               "measures": TRACK}
        for tool in ("rankbook", "pytrec_eval", "ir_measures"):
            log(f"[track] {tool}")
            best = None
            for _ in range(1 if quick else 3):  # the smallest CPU time of three fresh processes
                res = run_child("bench_conventions", "child_track",
                                {"tool": tool, "qrels": qp, "runs": rps}, timeout=1800)
                if best is None or res["cpu_s"] < best["cpu_s"]:
                    best = res
            out[tool] = best
    ref = np.array(out["rankbook"]["values"])
    out["check"] = {t: float(np.max(np.abs(np.array(out[t]["values"]) - ref)))
                    for t in ("pytrec_eval", "ir_measures")}
    for t in ("pytrec_eval", "ir_measures"):
        out[f"cpu_ratio_{t}"] = out[t]["cpu_s"] / out["rankbook"]["cpu_s"]
        del out[t]["values"]
    del out["rankbook"]["values"]
    out["targets"] = FILES_TARGETS
    out["notes"] = ("CPU seconds of the loop over the runs in a fresh process per library (the "
                    "least of three), the qrels read once, imports not timed; rankbook under "
                    "the trec_eval_9 profile (trec_eval 9's code is what pytrec_eval and "
                    "ir_measures run); check: largest difference of the 3 x runs means.")
    return out


# run shapes: the same documents and judgements, scores with many ties, none, or a mix


SHAPES = ("tie-heavy", "tie-free", "mixed")


def shaped_run(run: dict, shape: str, seed: int = 1) -> dict:
    """``run``'s documents per query, rescored in rank order: ``tie-heavy`` (one decimal, as a
    coarse score or a rounded probability gives: about a quarter of the documents share their
    score with another), ``tie-free`` (distinct scores) or ``mixed`` (each query drawn: two
    decimals or six)."""
    rng = np.random.default_rng(seed)
    out = {}
    for q, docs in run.items():
        n = len(docs)
        base = np.sort(rng.gamma(4.0, 3.0, n))[::-1]
        if shape == "tie-heavy":
            s = np.round(base, 1)
        elif shape == "tie-free":
            s = base + np.arange(n)[::-1] * 1e-9
        elif shape == "mixed":
            s = np.round(base, 2 if rng.random() < 0.5 else 6)
        else:
            raise ValueError(f"shape {shape!r} is not one of {SHAPES}")
        out[q] = {d: float(v) for d, v in zip(docs, s)}
    return out


def child_shapes(Q: int = 300, seed: int = 0, repeats: int = 15) -> dict:
    """rankbook (trec_eval profile) and pytrec_eval on each run shape from the same dicts, in
    one process, interleaved call by call; CPU time (process_time) of each call, median and
    minimum. Both read the dicts inside the timing (pytrec_eval builds its evaluator from the
    qrels, as a user does for a new qrels)."""
    import pytrec_eval

    import rankbook.conventions as rc

    qrels, base = make_realistic(Q, seed)
    out = {"Q": Q, "measures": REAL, "repeats": repeats}
    for shape in SHAPES:
        run = shaped_run(base, shape)
        tied = sum(len(v) - len(set(v.values())) for v in run.values())
        ours, theirs = [], []
        rc.evaluate_run(qrels, run, REAL)  # first calls: imports and caches, not timed
        pytrec_eval.RelevanceEvaluator(qrels, set(REAL_TREC)).evaluate(run)
        for _ in range(repeats):
            c0 = time.process_time()
            res = rc.evaluate_run(qrels, run, REAL)
            ours.append(time.process_time() - c0)
            c0 = time.process_time()
            pt = pytrec_eval.RelevanceEvaluator(qrels, set(REAL_TREC)).evaluate(run)
            theirs.append(time.process_time() - c0)
        nine = rc.evaluate_run(qrels, run, REAL, convention="trec_eval_9")
        pt_means = [float(np.mean([v[k] for v in pt.values()])) for k in REAL_TREC_ORDER]
        out[shape] = {
            "rows": sum(len(v) for v in run.values()), "tied_rows": tied,
            "rankbook_cpu_s": float(np.median(ours)), "rankbook_cpu_min_s": float(min(ours)),
            "pytrec_eval_cpu_s": float(np.median(theirs)), "pytrec_eval_cpu_min_s": float(min(theirs)),
            "ratio": float(np.median(theirs) / np.median(ours)),
            "check_vs_trec_eval_9_profile": float(np.max(np.abs(
                np.array(pt_means) - np.array([float(nine.aggregate[m]) for m in REAL])))),
            "values": [float(res.aggregate[m]) for m in REAL],
        }
    return out
