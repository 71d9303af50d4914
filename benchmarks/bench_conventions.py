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
with text ids as it reads them (each run row looked up in its query's judgements) and reads two
plain TREC files (ASCII, one layout, at most ``trec_format.PLAIN_FILE_BYTES``) whole with numpy,
joining (query, document) pairs by a hash of their bytes; other input takes its general reader.

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
            "its timing (rankbook: dicts joined as read, plain files read whole with numpy and "
            "joined by a hash of the ids' bytes); first_s is the first call (ranx: numba "
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
