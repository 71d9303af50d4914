"""Tie ranges and Tukey's HSD (issue 40): against brute force and scipy.

Tie range: ``evaluate_run(..., ties="range")`` (the lowest, highest and expected value over the
orders of tied documents, in closed form) on a realistic tied run, reciprocal rank fusion of
two runs over 1,000 queries x 100 documents (about half of the top-10s hold a tie between
documents of different relevance), for nDCG@10, AP and P@10; beside the same call without the
range. Against brute force on a small run whose tie orders can be listed (10 queries of 10
documents in two tied groups of 5: 14,400 orders each): every order of every query's ties
scored by ``evaluate_run`` (one call per query, each order a query of its own, as
``tests/test_tie_range.py`` does), which grows as the product of the groups' factorials.

Tukey: ``stats.tukey_hsd`` against ``scipy.stats.tukey_hsd`` on the same 20 systems x 50
topics (both the one-way form, which scipy computes, and rankbook's two-way form, which costs
the same); ``stats.randomized_tukey_hsd`` with 10,000 within-topic permutations on that design;
its exact enumeration on a small design against a loop over ``itertools.product`` of every
topic's permutations (the brute force of ``tests/test_stats_many.py``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from common import log, timed


def _rrf_collection(n_queries, n_docs, seed=0):
    from rankbook.papers.tools import tie_range as T

    qrels, runs = T.simulate_collection(n_queries, n_docs, seed=seed)
    return qrels, T.rrf([runs["lexical"], runs["dense"]], k=60, depth=20)


def _small_tied_run(n_queries, seed=0):
    """Each query: 10 documents on two score levels (two groups of 5: 5!^2 = 14,400 orders),
    levels 0-2."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(10)]
        scores = rng.permutation([2.0] * 5 + [1.0] * 5)
        qrels[str(q)] = {d: int(rng.integers(0, 3)) for d in docs}
        run[str(q)] = dict(zip(docs, scores.tolist()))
    return qrels, run


def _brute_force(qrels, run, measures):
    """{measure: (low, high, mean)} of the mean over queries, by listing every order."""
    from rankbook.conventions import evaluate_run, profile

    plain = profile("trec_eval", ties="input_order")
    lows, highs, means = {m: [] for m in measures}, {m: [] for m in measures}, \
        {m: [] for m in measures}
    for q, scores in run.items():
        levels = sorted(set(scores.values()), reverse=True)
        groups = [[d for d in scores if scores[d] == v] for v in levels]
        rows_q, rows_r = [], []
        orders = [sum(map(list, combo), []) for combo in
                  itertools.product(*(itertools.permutations(g) for g in groups))]
        for i, o in enumerate(orders):
            rows_q += [(f"{q}.{i}", d, r) for d, r in qrels[q].items()]
            rows_r += [(f"{q}.{i}", d, scores[d]) for d in o]
        res = evaluate_run(pd.DataFrame(rows_q, columns=["query_id", "doc_id", "relevance"]),
                           pd.DataFrame(rows_r, columns=["query_id", "doc_id", "score"]),
                           measures, convention=plain).per_query
        for m in measures:
            v = res.loc[res.measure == m, "value"].to_numpy()
            lows[m].append(v.min())
            highs[m].append(v.max())
            means[m].append(v.mean())
    return {m: (float(np.mean(lows[m])), float(np.mean(highs[m])), float(np.mean(means[m])))
            for m in measures}


def _brute_force_tukey(x):
    m, n = x.shape
    perms = list(itertools.permutations(range(m)))
    ranges = []
    for combo in itertools.product(perms, repeat=n):
        sums = np.zeros(m)
        for j, p in enumerate(combo):
            sums += x[list(p), j]
        ranges.append(sums.max() - sums.min())
    return np.array(ranges) / n


def run(quick: bool = False) -> dict:
    from scipy import stats as sps

    from rankbook import stats as S
    from rankbook.conventions import evaluate_run

    measures = ["nDCG@10", "AP", "P@10"]
    nq, nd = (200, 100) if quick else (1000, 100)
    qrels, fused = _rrf_collection(nq, nd)
    rows = sum(len(v) for v in fused.values())
    log(f"[ties] evaluate_run(ties='range'), {nq} queries, {rows:,} rows, {len(measures)} measures")
    ranged = timed(lambda: evaluate_run(qrels, fused, measures, ties="range"), repeats=3,
                   budget=30)
    plain = timed(lambda: evaluate_run(qrels, fused, measures), repeats=3, budget=30)
    per = ranged["value"].per_query
    moved = int((per.loc[per.measure == "nDCG@10", "high"]
                 > per.loc[per.measure == "nDCG@10", "low"]).sum())

    nsmall = 2 if quick else 10
    q_small, r_small = _small_tied_run(nsmall)
    log(f"[ties] brute force over every tie order, {nsmall} queries of 10 documents")
    brute = timed(lambda: _brute_force(q_small, r_small, measures), repeats=1, budget=120)
    exact = timed(lambda: evaluate_run(q_small, r_small, measures, ties="range"), repeats=3,
                  budget=10)
    agg = exact["value"].aggregate
    agree = max(abs(agg.loc[m, c] - brute["value"][m][i]) for m in measures
                for i, c in enumerate(("low", "high", "expected")))

    m_sys, n_top = 20, 50
    rng = np.random.default_rng(0)
    x = rng.normal(0, 1, n_top)[None, :] + rng.normal(0, 0.3, (m_sys, 1)) \
        + rng.normal(0, 0.5, (m_sys, n_top))
    log(f"[tukey] {m_sys} systems x {n_top} topics")
    scipy_t = timed(lambda: sps.tukey_hsd(*x), repeats=3, budget=60)
    ours_one = timed(lambda: S.tukey_hsd(x, "one-way"), repeats=3, budget=60)
    ours_two = timed(lambda: S.tukey_hsd(x), repeats=3, budget=60)
    p_gap = float(np.max(np.abs(ours_one["value"].pvalue - scipy_t["value"].pvalue)))
    B = 2000 if quick else 10_000
    rand = timed(lambda: S.randomized_tukey_hsd(x, n_resamples=B, seed=0), repeats=3, budget=60)

    small = rng.normal(size=(3, 6))
    log("[tukey] exact randomised Tukey HSD against itertools, 3 systems x 6 topics")
    exact_t = timed(lambda: S.randomized_tukey_hsd(small), repeats=3, budget=10)
    brute_t = timed(lambda: _brute_force_tukey(small), repeats=1, budget=120)
    return {
        "tie_range": {
            "queries": nq, "rows": rows, "measures": measures,
            "queries_moved_ndcg10": moved,
            "range_s": ranged["median"], "range_times": ranged["times"],
            "plain_s": plain["median"], "plain_times": plain["times"],
            "overhead": ranged["median"] / plain["median"],
        },
        "tie_brute_force": {
            "queries": nsmall, "documents": 10, "orders_per_query": 120 * 120,
            "rankbook_s": exact["median"], "brute_force_s": brute["median"],
            "speedup": brute["median"] / exact["median"],
            "max_abs_difference": float(agree),
        },
        "tukey": {
            "systems": m_sys, "topics": n_top,
            "scipy_s": scipy_t["median"], "one_way_s": ours_one["median"],
            "two_way_s": ours_two["median"],
            "speedup_vs_scipy": scipy_t["median"] / ours_one["median"],
            "max_abs_p_difference_vs_scipy": p_gap,
            "randomized_resamples": B, "randomized_s": rand["median"],
            "randomized_times": rand["times"],
        },
        "tukey_brute_force": {
            "systems": 3, "topics": 6, "orders": 6 ** 6,
            "rankbook_s": exact_t["median"], "brute_force_s": brute_t["median"],
            "speedup": brute_t["median"] / exact_t["median"],
        },
    }
