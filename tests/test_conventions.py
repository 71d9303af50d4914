"""rankbook.conventions.evaluate_run against the installed pytrec_eval, ir_measures, ranx and
scikit-learn, each under its own profile, on generated qrels and runs that stress ties (small
score sets, lists longer than 15 for ranx's quicksort), queries without relevant documents,
negative labels, k larger than the list and queries present in one input only; plus the input
errors and the TREC readers."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from rankbook import conventions as C
from rankbook import trec_format
from rankbook.conventions import evaluate_run, profile

SEED = 20250921
N_CASES = 1000  # generated queries per profile, each with its own judgements and ranking
BATCH = 100  # cases evaluated together in one qrels/run pair

# document ids whose text order differs from their numeric order, so that trec_eval's
# strcmp tie-break is exercised ("d10" < "d9")
DOC_IDS = [f"d{i}" for i in range(1, 45)] + ["a", "B", "b", "x10", "x9", "Z", "doc-é"]


def _case(rng, q, *, max_docs=12, labels=(-2, -1, 0, 0, 0, 1, 1, 2, 3), long_lists=False):
    """One query: its judgements and its scored documents (many ties, k > n, empty queries)."""
    n_pool = int(rng.integers(1, 45 if long_lists else max_docs + 1))
    pool = list(rng.choice(DOC_IDS, size=min(n_pool, len(DOC_IDS)), replace=False))
    kind = rng.random()
    judged = [d for d in pool if rng.random() < 0.7] or [pool[0]]
    if kind < 0.15:  # nothing relevant
        lab = {d: int(rng.choice([-2, -1, 0])) for d in judged}
    else:
        lab = {d: int(rng.choice(labels)) for d in judged}
    if max(lab.values()) < 0:
        # trec_eval sizes its table of relevance levels by the largest label + 1, so a query
        # judged only with negative labels is undefined behaviour there (labels <= -2: a memset
        # of negative size, pytrec_eval segfaults; -1: the previous query's table is read, and
        # pytrec_eval can loop for minutes). See test_trec_eval_fails_on_negative_only_queries.
        lab[judged[0]] = 0
    retrieved = [d for d in pool if rng.random() < 0.8] or [pool[-1]]
    order = rng.permutation(len(retrieved))
    retrieved = [retrieved[i] for i in order]
    draw = rng.random()
    if draw < 0.6:  # coarse scores: ties everywhere
        scores = rng.choice([0.0, 0.5, 1.0, 2.0, -1.0], size=len(retrieved))
    elif draw < 0.75:  # distinct in double precision, tied in single (trec_eval keeps C floats)
        scores = 1.0 + rng.integers(0, 4, size=len(retrieved)) * 1e-9
    else:
        scores = np.round(rng.normal(size=len(retrieved)), 3)
    return {q: lab}, {q: {d: float(s) for d, s in zip(retrieved, scores)}}


def test_trec_eval_compares_scores_in_single_precision():
    """Scores 1e-9 apart are distinct doubles but one float: trec_eval (hence pytrec_eval and
    the ir_measures measures it serves) ties them and breaks the tie by document id, while
    ir_measures' own RR@k keeps double precision."""
    import ir_measures
    import pytrec_eval

    qrels, run = {"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"P.1"}).evaluate(run)["q"]["P_1"]
    assert theirs == evaluate_run(qrels, run, "P@1", "trec_eval_9").aggregate["P@1"] == 0.0
    agg = ir_measures.calc_aggregate([ir_measures.RR, ir_measures.RR @ 1], qrels, run)
    ours = evaluate_run(qrels, run, ["RR", "RR@1"], "ir_measures").aggregate
    assert (agg[ir_measures.RR], agg[ir_measures.RR @ 1]) == (ours["RR"], ours["RR@1"]) == (0.5, 1.0)


def _batches(seed, *, missing=True, **kw):
    """N_CASES generated queries in qrels/run pairs of BATCH queries each."""
    rng = np.random.default_rng(seed)
    out = []
    for b in range(N_CASES // BATCH):
        qrels, run = {}, {}
        for c in range(BATCH):
            q = f"q{b}_{c}"
            qq, rr = _case(rng, q, **kw)
            r = rng.random()
            if missing and r < 0.05:
                qrels.update(qq)  # judged, not retrieved
            elif missing and r < 0.10:
                run.update(rr)  # retrieved, not judged
            else:
                qrels.update(qq)
                run.update(rr)
        out.append((qrels, run))
    return out


def _per_query(res):
    return {(q, m): v for q, m, v in res.per_query.itertuples(index=False)}


def _close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


# ------------------------------------------------------------------------------------------
# pytrec_eval (trec_eval's code) under the trec_eval and pytrec_eval profiles

TREC_MEASURES = ["nDCG", "nDCG@3", "nDCG@20", "AP", "AP@5", "RR", "P@1", "P@5", "P@20", "R@3",
                 "R@20", "Rprec", "Success@1", "Success@5"]
TREC_REL2 = ["AP(rel=2)", "P(rel=2)@5", "RR(rel=2)", "Rprec(rel=2)", "R(rel=2)@5", "Success(rel=2)@3"]


def _trec_name(m):
    p = C.parse_measure(m, "trec_eval")
    base = {"nDCG": "ndcg", "AP": "map", "RR": "recip_rank", "P": "P", "R": "recall",
            "Rprec": "Rprec", "Success": "success"}[p.family]
    if p.k is None:
        return base, base
    base = {"ndcg": "ndcg_cut", "map": "map_cut"}.get(base, base)
    return f"{base}.{p.k}", f"{base}_{p.k}"


@pytest.mark.parametrize("convention", ["trec_eval_9", "pytrec_eval"])
def test_trec_eval_profiles_agree_with_pytrec_eval(convention):
    import pytrec_eval

    checked = 0
    for qrels, run in _batches(SEED):
        for rel, measures in ((1, TREC_MEASURES), (2, TREC_REL2)):
            names = [_trec_name(m) for m in measures]
            ev = pytrec_eval.RelevanceEvaluator(qrels, {n for n, _ in names}, relevance_level=rel)
            theirs = ev.evaluate(run)
            ours = evaluate_run(qrels, run, measures, convention)
            got = _per_query(ours)
            assert {q for q, _ in got} == set(theirs), "the evaluated queries differ"
            for q, vals in theirs.items():
                for m, (_, key) in zip(measures, names):
                    assert _close(got[(q, m)], vals[key]), (q, m, got[(q, m)], vals[key])
                    checked += 1
            for m, (_, key) in zip(measures, names):
                assert _close(ours.aggregate[m], np.mean([v[key] for v in theirs.values()]))
    assert checked > N_CASES * len(TREC_MEASURES) * 0.8


# ------------------------------------------------------------------------------------------
# ir_measures (pytrec_eval, msmarco and judged providers) under the ir_measures profile

IRM_MEASURES = ["nDCG", "nDCG@5", "AP", "AP@3", "RR", "RR@3", "RR@20", "P@2", "P@20", "R@5",
                "Rprec", "Success@3", "Judged", "Judged@3", "Judged@20", "RR(rel=2)@5",
                "P(rel=2)@3", "AP(rel=3)"]


def test_ir_measures_profile_agrees_with_ir_measures():
    import ir_measures

    parsed = {m: ir_measures.parse_measure(m) for m in IRM_MEASURES}
    checked = 0
    for qrels, run in _batches(SEED + 1):
        ours = evaluate_run(qrels, run, IRM_MEASURES, "ir_measures")
        got = _per_query(ours)
        theirs = {}
        for metric in ir_measures.iter_calc(list(parsed.values()), qrels, run):
            theirs[(metric.query_id, str(metric.measure))] = metric.value
        keys = {(q, str(parsed[m])) for q, m in got}
        assert keys == set(theirs), "the evaluated queries differ"
        for (q, m), v in got.items():
            assert _close(v, theirs[(q, str(parsed[m]))]), (q, m, v, theirs[(q, str(parsed[m]))])
            checked += 1
        agg = ir_measures.calc_aggregate(list(parsed.values()), qrels, run)
        for m in IRM_MEASURES:
            assert _close(ours.aggregate[m], agg[parsed[m]])
    assert checked >= 0.9 * N_CASES * len(IRM_MEASURES)  # run-only queries are not scored


# ------------------------------------------------------------------------------------------
# ranx under the ranx profile (Qrels/Run objects) and with plain dicts


RANX_MEASURES = {"nDCG": "ndcg", "nDCG@5": "ndcg@5", "nDCG@30": "ndcg@30",
                 "nDCG(dcg='exp-log2')@10": "ndcg_burges@10", "DCG@5": "dcg@5",
                 "DCG(dcg='exp-log2')": "dcg_burges", "AP": "map", "AP@5": "map@5", "RR": "mrr",
                 "RR@3": "mrr@3", "P@3": "precision@3", "P@30": "precision@30", "R@5": "recall@5",
                 "Rprec": "r-precision", "Success@2": "hit_rate@2", "P(rel=2)@5": "precision@5-l2",
                 "AP(rel=2)": "map-l2", "nDCG(rel=2)@10": "ndcg@10-l2"}


def _ranx_eval(qrels, run, objects):
    from ranx import Qrels, Run, evaluate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if objects:
            r = Run.from_dict(run)
            res = evaluate(Qrels.from_dict(qrels), r, list(RANX_MEASURES.values()), return_mean=False,
                           save_results_in_run=False)
            qids = list(r.get_query_ids())
        else:
            res = evaluate(qrels, run, list(RANX_MEASURES.values()), return_mean=False)
            qids = list(run)
    return res, qids


@pytest.mark.parametrize("objects", [True, False], ids=["Qrels-Run", "dicts"])
def test_ranx_profile_agrees_with_ranx(objects):
    conv = profile("ranx") if objects else profile("ranx", ties="numba_quicksort_reversed")
    checked = 0
    for qrels, run in _batches(SEED + 2, missing=False, long_lists=True,
                               labels=(-1, 0, 0, 1, 1, 2, 3)):
        ours = evaluate_run(qrels, run, list(RANX_MEASURES), conv)
        got = _per_query(ours)
        theirs, qids = _ranx_eval(qrels, run, objects)
        for m, key in RANX_MEASURES.items():
            for q, v in zip(qids, theirs[key]):
                assert _close(got[(q, m)], float(v)), (q, m, got[(q, m)], float(v))
                checked += 1
            assert _close(ours.aggregate[m], float(np.mean(theirs[key])))
    assert checked == N_CASES * len(RANX_MEASURES)


def test_trec_eval_fails_on_negative_only_queries():
    """The peer's own failure that the generator above steers around: a query whose judgements
    are all below -1 after a query with relevance levels crashes pytrec_eval (trec_eval's
    form_res_rels.c clears max_rel + 1 entries, a negative count). rankbook scores it 0."""
    import subprocess
    import sys

    code = ("import pytrec_eval\n"
            "ev = pytrec_eval.RelevanceEvaluator({'a': {'x': 1, 'y': 3}, 'b': {'d': -2}}, {'map'})\n"
            "print(ev.evaluate({'a': {'x': 1.0, 'y': 0.5}, 'b': {'d': 0.0}}))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert proc.returncode != 0  # SIGSEGV
    ours = evaluate_run({"a": {"x": 1, "y": 3}, "b": {"d": -2}}, {"a": {"x": 1.0, "y": 0.5}, "b": {"d": 0.0}}, "AP")
    assert list(ours.per_query["value"]) == [1.0, 0.0]


def test_numba_quicksort_port_matches_ranx_sort():
    """The transcription against the compiled function ranx sorts with (typed_list_argosrt:
    numba's np.argsort), on tie-heavy arrays on both sides of the 16-item insertion-sort limit."""
    from numba.typed import List as TypedList
    from ranx.data_structures.common import typed_list_argosrt

    rng = np.random.default_rng(SEED)
    for n in [1, 2, 15, 16, 17, 40, 200]:
        for _ in range(5):
            a = rng.choice([-2.0, -1.0, 0.0, 1.0, 3.0], size=n)
            assert list(C._numba_quicksort(a)) == list(typed_list_argosrt(TypedList(a.tolist())))


# ------------------------------------------------------------------------------------------
# scikit-learn under the sklearn profile


def test_sklearn_profile_agrees_with_scikit_learn():
    """Per query against the row scores scikit-learn averages: _ndcg_sample_scores and
    _dcg_sample_scores (behind ndcg_score and dcg_score; scikit-learn's own tests call them),
    average_precision_score per column of the transposed rows, and
    label_ranking_average_precision_score per row; rows are grouped by length so that each
    group is one call."""
    from sklearn.metrics import (average_precision_score, label_ranking_average_precision_score,
                                 ndcg_score)
    from sklearn.metrics._ranking import _dcg_sample_scores, _ndcg_sample_scores

    measures = ["nDCG", "nDCG@3", "nDCG@20", "DCG", "DCG@2", "AP", "AP(rel=2)", "LRAP"]
    checked = 0
    rng = np.random.default_rng(SEED + 3)
    for qrels, run in _batches(SEED + 3, labels=(0, 0, 0, 1, 1, 2, 3)):
        # scikit-learn refuses rows of one document and negative y_true in ndcg_score
        run = {q: d for q, d in run.items() if len(d) >= 2}
        qrels = {q: {d: max(v, 0) for d, v in j.items()} for q, j in qrels.items()}
        if rng.random() < 0.3:  # fractional relevance is fine for scikit-learn
            qrels = {q: {d: v / 2 for d, v in j.items()} for q, j in qrels.items()}
        ours = evaluate_run(qrels, run, measures, "sklearn")
        got = _per_query(ours)
        assert {q for q, _ in got} == set(run)
        by_len = {}
        for q, docs in run.items():
            by_len.setdefault(len(docs), []).append(q)
        for n, qs in by_len.items():
            S = np.array([list(run[q].values()) for q in qs])
            Y = np.array([[qrels.get(q, {}).get(d, 0) for d in run[q]] for q in qs], dtype=float)
            theirs = {
                "nDCG": _ndcg_sample_scores(Y, S),
                "nDCG@3": _ndcg_sample_scores(Y, S, k=3),
                "nDCG@20": _ndcg_sample_scores(Y, S, k=20),
                "DCG": _dcg_sample_scores(Y, S),
                "DCG@2": _dcg_sample_scores(Y, S, k=2),
            }
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs["AP"] = np.atleast_1d(average_precision_score((Y >= 1).T, S.T, average=None))
                theirs["AP(rel=2)"] = np.atleast_1d(average_precision_score((Y >= 2).T, S.T, average=None))
            theirs["LRAP"] = [label_ranking_average_precision_score([y >= 1], [s]) for y, s in zip(Y, S)]
            for m, vals in theirs.items():
                for q, v in zip(qs, vals):
                    assert _close(got[(q, m)], float(v)), (q, m, got[(q, m)], float(v))
                    checked += 1
            # the public function is the mean of those rows
            assert _close(np.mean([got[(q, "nDCG@3")] for q in qs]), ndcg_score(Y, S, k=3))
    assert checked >= 0.8 * N_CASES * len(measures)  # one-document queries are left out


# ------------------------------------------------------------------------------------------
# the interface contract, errors and readers


def test_result_shape_order_and_types():
    qrels = {"10": {"a": 1}, "9": {"b": 1}, "x": {"c": 2}}
    run = {"x": {"c": 1.0}, "10": {"a": 0.5, "z": 0.7}, "9": {"b": 0.1}}
    res = evaluate_run(qrels, run, ["P@1", "nDCG", "AP"])
    assert list(res.per_query.columns) == ["query_id", "measure", "value"]
    assert list(res.per_query["query_id"]) == ["10"] * 3 + ["9"] * 3 + ["x"] * 3
    assert list(res.per_query["measure"][:3]) == ["P@1", "nDCG", "AP"]
    assert list(res.aggregate.index) == ["P@1", "nDCG", "AP"]
    assert res.aggregate["P@1"] == pytest.approx(2 / 3)
    # numeric query ids sort by value
    res = evaluate_run({2: {"a": 1}, 10: {"a": 1}}, {10: {"a": 1}, 2: {"a": 1}}, "P@1")
    assert list(res.per_query["query_id"]) == ["2", "10"]


def test_three_spellings_give_the_same_result(tmp_path):
    qrels = {"1": {"a": 0, "b": 2, "c": 1}, "2": {"a": 1}}
    run = {"1": {"b": 0.5, "c": 0.5, "a": 0.9}, "2": {"a": 0.1, "b": 0.2}}
    qdf = pd.DataFrame([(q, d, r) for q, j in qrels.items() for d, r in j.items()],
                       columns=["query_id", "doc_id", "relevance"])
    rdf = pd.DataFrame([(q, d, s) for q, j in run.items() for d, s in j.items()],
                       columns=["query_id", "doc_id", "score"])
    (tmp_path / "q.txt").write_text(trec_format._to_text(qdf, "qrels"))
    (tmp_path / "r.txt").write_text(trec_format._to_text(rdf, "run"))
    ms = ["nDCG@2", "AP", "P@3"]
    a = evaluate_run(qrels, run, ms)
    b = evaluate_run(qdf, rdf, ms)
    c = evaluate_run(tmp_path / "q.txt", str(tmp_path / "r.txt"), ms)
    pd.testing.assert_frame_equal(a.per_query, b.per_query)
    pd.testing.assert_frame_equal(a.per_query, c.per_query)
    pd.testing.assert_frame_equal(trec_format.read_run(tmp_path / "r.txt"), trec_format.as_run(run))


@pytest.mark.parametrize("qrels, run, measures, convention, message", [
    ({"1": {"a": 1}}, {"1": {"a": "high"}}, "P@1", "trec_eval",
     "score of document 'a' for query '1' in the run is not a number: 'high'"),
    ({"1": {"a": 1}}, {"1": {"a": float("nan")}}, "P@1", "trec_eval",
     "score of document 'a' for query '1' in the run must be a finite number"),
    ({"1": {"a": "x"}}, {"1": {"a": 1.0}}, "P@1", "trec_eval",
     "relevance of document 'a' for query '1' in the qrels is not a number"),
    ({"1": {"a": 0.5}}, {"1": {"a": 1.0}}, "P@1", "trec_eval",
     "relevance of document 'a' for query '1' is 0.5"),
    ({"1": {"a": 1}}, {"1": {"a": 1.0}}, "P@k", "trec_eval", "measure 'P@k'"),
    ({"1": {"a": 1}}, {"1": {"a": 1.0}}, "MRR", "trec_eval", "measure 'MRR' is not known"),
    ({"1": {"a": 1}}, {"1": {"a": 1.0}}, "Judged@5", "trec_eval",
     "not supported by the trec_eval profile (Judged@k: ir_measures); the nearest it offers is"),
    ({"1": {"a": 1}}, {"1": {"a": 1.0}}, "P", "trec_eval", "needs a cut-off"),
    ({"1": {"a": 1}}, {"1": {"a": 1.0}}, "P(rel=0)@5", "trec_eval", "rel must be an integer >= 1"),
    ({"1": {"a": 1}}, {"1": {"a": 1.0}}, "P(gain=2)@5", "trec_eval", "parameter 'gain=2'"),
    ({"1": {"a": 1}, "2": {"a": 1}}, {"1": {"a": 1.0}}, "P@1", "ranx",
     "query '2' is judged in the qrels but absent from the run"),
    ({"1": {"a": 1}}, {"1": {"a": 1.0}, "3": {"a": 1.0}}, "P@1", "ranx",
     "query '3' is in the run but has no judgements"),
    ({"1": {"a": -1}}, {"1": {"a": 1.0, "b": 0.0}}, "nDCG", "sklearn",
     "document 'a' of query '1' has relevance -1"),
    ({"1": {"a": 1}}, {"1": {"a": 1.0}}, "nDCG", "sklearn", "query '1' has 1 scored document"),
    ({"1": {"a": 1}}, {"1": {"a": 1.0}}, "P@1", "lucene", "convention 'lucene' is not known"),
])
def test_errors_name_the_problem(qrels, run, measures, convention, message):
    with pytest.raises(ValueError, match=re_escape(message)):
        evaluate_run(qrels, run, measures, convention)


@pytest.mark.parametrize("name", list(C.CONVENTIONS))
def test_every_form_a_refusal_offers_is_a_name_the_profile_takes(name):
    """The list a refusal gives ("it offers ...") writes each form as it must be named: with
    its cut-off (nDCG@k), or its level (IPrec@level, Rprec_mult@multiple), never a bare IPrec
    that the next call refuses for want of a level."""
    import re

    def written(form):
        return re.sub("@k$", "@10", form).replace("@level", "@0.1").replace("@multiple", "@0.2")

    conv = C.profile(name)
    other = next(f for c in C.CONVENTIONS.values() for f in c.measures
                 if f not in conv.measures and "@" not in f)
    with pytest.raises(ValueError, match="; it offers ") as info:
        C.parse_measure(other, name)
    offered = str(info.value).split("; it offers ", 1)[1].split(", ")
    assert len(offered) == len(conv.measures) and "IPrec" not in offered
    for form in offered:
        assert C.parse_measure(written(form), name).form in conv.measures, form


def re_escape(s):
    import re

    return re.escape(s)


def test_duplicates_are_refused_with_query_and_document():
    run = pd.DataFrame({"query_id": ["1", "1", "1"], "doc_id": ["a", "b", "a"], "score": [1, 2, 3]})
    with pytest.raises(ValueError, match="document 'a' is retrieved twice for query '1' in the run"):
        evaluate_run({"1": {"a": 1}}, run, "P@1")
    qrels = pd.DataFrame({"query_id": [1, "1"], "doc_id": ["a", "a"], "relevance": [1, 0]})
    with pytest.raises(ValueError, match="document 'a' is judged twice for query '1' in the qrels"):
        evaluate_run(qrels, {"1": {"a": 1.0}}, "P@1")


def test_readers_name_path_and_line(tmp_path):
    p = tmp_path / "run.txt"
    p.write_text("1 Q0 a 1 0.5 r\n# comment\n1 Q0 b 2 0.4\n")
    with pytest.raises(ValueError, match=r"run.txt:3: a run line has 6 .* this one has 5"):
        trec_format.read_run(p)
    p.write_text("1 Q0 a 1 0.5 r\n1 Q0 b 2 inf r\n")
    with pytest.raises(ValueError, match=r"run.txt:2: the score of document 'b' for query '1' must be a finite"):
        trec_format.read_run(p)
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 a 1\n1 0 b 1\n1 0 a 0\n")
    with pytest.raises(ValueError, match=r"qrels.txt:3: document 'a' appears twice for query '1' \(first on line 1\)"):
        trec_format.read_qrels(q)
    with pytest.raises(ValueError, match="no such file"):
        trec_format.read_qrels(tmp_path / "missing.txt")
    # the run tags: the first line's, and another one if a later line has it, in every reader
    # path (split at once, pandas' reader, the line-by-line reading) and across blocks
    for text, other in [("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4 r\n", None),
                        ("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4 s\n", "s"),
                        ("1 Q0 a 1 0.5 r\n1  Q0 b 2 0.4 s\n", "s"),
                        ("1 Q0 a 1 0.5 r\n# note\n1 Q0 b 2 0.4 s\n", "s"),
                        ("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4 r\n2 Q0 c 1 0.4 t\n", "t")]:
        p.write_text(text)
        for chunk in (1 << 20, 16):
            t = trec_format.read_table(p, "run", chunk_bytes=chunk)
            assert (t.tag, t.other_tag) == ("r", other), (text, chunk)
    # a folder given for a file: a ValueError naming it, from the readers and from evaluate_run
    with pytest.raises(ValueError, match="is a folder; give the path of a file in it"):
        trec_format.read_run(tmp_path)
    with pytest.raises(ValueError, match="is a folder"):
        evaluate_run(tmp_path, tmp_path, ["nDCG"])
    # a '#' inside a line is data: trec_eval's own test qrels has a docno with '#'
    q.write_text("# header\n1 0 CR93E-18#60 1\n")
    assert list(trec_format.read_qrels(q)["doc_id"]) == ["CR93E-18#60"]


def test_missing_queries_follow_each_profile():
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    run = {"1": {"a": 1.0}, "3": {"c": 1.0}}
    assert list(evaluate_run(qrels, run, "P@1", "trec_eval_9").per_query["query_id"]) == ["1"]
    with pytest.raises(ValueError, match="trec_eval 10.0 stops"):
        evaluate_run(qrels, run, "P@1", "trec_eval")
    assert list(evaluate_run(qrels, run, "P@1", profile("trec_eval", complete=True))
                .per_query["query_id"]) == ["1", "2"]
    irm = evaluate_run(qrels, run, "P@1", "ir_measures")
    assert list(irm.per_query["query_id"]) == ["1", "2"] and irm.aggregate["P@1"] == 0.5
    sk = evaluate_run(qrels, {"1": {"a": 1.0, "x": 0.0}, "3": {"c": 1.0, "d": 0.5}}, "nDCG", "sklearn")
    assert list(sk.per_query["query_id"]) == ["1", "3"] and sk.aggregate["nDCG"] == 0.5
    tm = evaluate_run(qrels, run, "P@1", "torchmetrics")
    assert list(tm.per_query["query_id"]) == ["1", "3"] and tm.aggregate["P@1"] == 0.5


def test_pooled_averaging_is_torchmetrics_functional_2d():
    # torchmetrics issue 3216: two queries of three documents, flattened by the functional API
    run = {"1": {"a": 0.1, "b": 0.2, "c": 0.3}, "2": {"a": 0.8, "b": 0.1, "c": 0.05}}
    qrels = {"1": {"b": 1}, "2": {"a": 1}}
    per_query = evaluate_run(qrels, run, "nDCG", "torchmetrics").aggregate["nDCG"]
    pooled = evaluate_run(qrels, run, "nDCG", profile("torchmetrics", averaging="pooled"))
    assert round(per_query, 4) == 0.8155 and round(pooled.aggregate["nDCG"], 4) == 0.9197
    with pytest.raises(ValueError, match="averaging='pooled'"):
        profile("trec_eval", averaging="pooled")


def test_conventions_table_covers_every_profile_and_setting():
    t = C.conventions_table()
    assert list(t.columns) == ["setting", *C.CONVENTIONS]
    assert len(t) == len(C._SETTINGS)
    assert t.notna().all().all()
    # every profile names a source for every setting it documents
    for conv in C.CONVENTIONS.values():
        assert {k for k, _ in conv.sources} >= {"ties", "negative_labels", "qrels_only", "gain"}


def test_new_user_mistakes_get_a_value_error_that_helps():
    qrels, run = {"1": {"a": 1}}, {"1": {"a": 1.0}}
    for written, meant in [("ndcg@10", "nDCG@10"), ("MAP", "AP"), ("MRR", "RR"), ("recall@100", "R@100"),
                           ("BPREF", "Bpref")]:
        with pytest.raises(ValueError, match=rf"is not known \(did you mean '{meant}'\?\)"):
            evaluate_run(qrels, run, written)
    with pytest.raises(ValueError, match="'foo' is not supported by rankbook"):  # no guess fits
        evaluate_run(qrels, run, "foo")
    # trec_eval's names are measures too, and a comma inside one string is two names
    assert evaluate_run(qrels, run, ["map", "P_5"]).aggregate.to_dict() == {"map": 1.0, "P_5": 0.2}
    with pytest.raises(ValueError, match=r"holds 2 names separated by commas; pass a list, one "
                                         r"name per item: \['nDCG@10', 'AP'\]"):
        evaluate_run(qrels, run, "nDCG@10, AP")
    with pytest.raises(ValueError, match="the run holds no documents"):
        evaluate_run(qrels, {}, "AP")
    with pytest.raises(ValueError, match="measures must be a measure name or a list of them, got NoneType"):
        evaluate_run(qrels, run, None)
    with pytest.raises(ValueError, match="the qrels hold no judgements"):
        evaluate_run({}, run, "AP")
    from rankbook import stats

    assert stats.correct([]).size == 0 and stats.correct([], "bh").size == 0
