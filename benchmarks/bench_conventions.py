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
    ref = np.array(rb["values"])
    diff = lambda a, b: float(np.max(np.abs(np.array(a) - np.array(b))))  # noqa: E731
    out = {
        "Q": Q, "documents": 1000, "measures": MEASURES, "rankbook": rb, "rankbook_str_ids": rb_str,
        "ranx": rx, "pytrec_eval": pt,
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
            "matches the trec_eval_9 profile, and differs slightly from trec_eval 10.0 and ranx."),
    }
    return out
