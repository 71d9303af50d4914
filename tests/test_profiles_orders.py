"""Versioned trec_eval profiles, the peers' own options, and explicit orders (issue 31, items 1-2).

Oracles: the installed pytrec_eval (trec_eval 9's code), ir_measures 0.4.3 (its gdeval provider
for nDCG(dcg='exp-log2')@k) and ranx 0.3.21 (make_comparable=True); trec_eval 10.0's documented
behaviours (double-precision scores, exit on a judged query the run lacks unless -c).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankbook import trec_format
from rankbook.book import compare_cmd
from rankbook.ledger.paths import data_path
from rankbook.conventions import (CONVENTIONS, PEER_OPTIONS, compare_conventions, evaluate_run,
                                  parse_measure, profile)

DATA = data_path("conventions")


# --------------------------------------------------------------------------------------------
# trec_eval 10.0 and 9.0.8


def _two_lines(tmp_path):
    """A non-relevant 'a' scored 1 + 1e-9 above a relevant 'b': distinct as doubles, one float."""
    q = tmp_path / "q.txt"
    r = tmp_path / "r.txt"
    q.write_text("q 0 a 0\nq 0 b 1\n")
    r.write_text("q Q0 a 1 1.000000001 run\nq Q0 b 2 1.0 run\n")
    return q, r


def test_two_line_case_under_each_trec_eval_version(tmp_path):
    import pytrec_eval

    q, r = _two_lines(tmp_path)
    assert np.float32(1.000000001) == np.float32(1.0) and 1.000000001 != 1.0
    ten = evaluate_run(q, r, "P@1", "trec_eval").aggregate["P@1"]
    nine = evaluate_run(q, r, "P@1", "trec_eval_9").aggregate["P@1"]
    assert (ten, nine) == (0.0, 1.0)
    # trec_eval 9's code (pytrec_eval) ties them and takes 'b' first (document id descending)
    theirs = pytrec_eval.RelevanceEvaluator({"q": {"a": 0, "b": 1}}, {"P.1"}).evaluate(
        {"q": {"a": 1.000000001, "b": 1.0}})["q"]["P_1"]
    assert theirs == nine
    # the profiles differ in exactly these settings: the precision of scores, a judged query
    # the run lacks, the recall cut-off of iprec_at_recall and 11pt_avg (lround in 10.0), and
    # 10.0's new measures (rbp, rbp_resid, unj)
    import dataclasses

    diff = {f.name for f in dataclasses.fields(CONVENTIONS["trec_eval"])
            if getattr(CONVENTIONS["trec_eval"], f.name) != getattr(CONVENTIONS["trec_eval_9"], f.name)}
    assert diff == {"name", "peer", "sources", "score_dtype", "qrels_only", "recall_cutoff", "measures"}
    assert (set(CONVENTIONS["trec_eval"].measures) - set(CONVENTIONS["trec_eval_9"].measures)
            == {"rbp", "rbp_resid", "unj@k"})


def test_trec_eval_10_stops_on_a_missing_judged_query_unless_complete():
    qrels, run = DATA / "missing_query.qrels", DATA / "missing_query.run"
    with pytest.raises(ValueError, match=r"query '2' is judged.*trec_eval 10.0 stops \(exit status 4\) "
                                         r"without -c.*complete=True"):
        evaluate_run(qrels, run, "P@1", "trec_eval")
    c = evaluate_run(qrels, run, "P@1", profile("trec_eval", complete=True))
    assert c.per_query["query_id"].tolist() == ["1", "2"] and c.aggregate["P@1"] == 0.5
    nine = evaluate_run(qrels, run, "P@1", "trec_eval_9")
    assert nine.per_query["query_id"].tolist() == ["1"] and nine.aggregate["P@1"] == 1.0
    assert evaluate_run(qrels, run, "P@1", profile("trec_eval_9", complete=True)).aggregate["P@1"] == 0.5
    # a query in the run without judgements is still skipped by both versions
    extra = {"1": {"a": 1.0}, "2": {"b": 1.0}, "9": {"z": 1.0}}
    assert evaluate_run(qrels, extra, "P@1", "trec_eval").per_query["query_id"].tolist() == ["1", "2"]


def test_peer_options_are_checked():
    with pytest.raises(ValueError, match="'make_comparable' is not an option of the trec_eval profile; "
                                         "its options are: complete"):
        profile("trec_eval", make_comparable=True)
    with pytest.raises(ValueError, match="must be True or False"):
        profile("ranx", make_comparable="yes")
    assert profile("ranx", make_comparable=False) == CONVENTIONS["ranx"]
    assert set(PEER_OPTIONS) <= set(CONVENTIONS)


# --------------------------------------------------------------------------------------------
# ir_measures: nDCG(dcg='exp-log2')@k (gdeval provider)


def _random_case(rng, n_q=4, numeric=True, max_label=4):
    qrels, run = {}, {}
    for i in range(n_q):
        q = str(100 + i) if numeric else f"q{i}"
        docs = [f"d{j}" for j in range(int(rng.integers(1, 12)))]
        lab = {d: int(rng.integers(-1, max_label + 1)) for d in docs if rng.random() < 0.7}
        if lab:
            qrels[q] = lab
        if rng.random() < 0.9:
            ret = [d for d in docs if rng.random() < 0.8] or docs[:1]
            pool = [0.5, 1.0, 1.5] if rng.random() < 0.5 else list(rng.normal(size=8).round(3))
            run[q] = {d: float(rng.choice(pool)) for d in ret}
    if not qrels:
        qrels[next(iter(run), "100")] = {"d0": 1}
    if not run:
        run[next(iter(qrels))] = {"d0": 1.0}
    return qrels, run


@pytest.mark.parametrize("seed", range(6))
def test_exp_log2_ndcg_agrees_with_ir_measures(seed):
    import ir_measures

    rng = np.random.default_rng(seed)
    qrels, run = _random_case(rng, n_q=5)
    names = ["nDCG(dcg='exp-log2')@10", "nDCG(dcg='exp-log2')@3"]
    ms = [ir_measures.parse_measure(n) for n in names]
    theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(ms, qrels, run)}
    ours = evaluate_run(qrels, run, names, "ir_measures").per_query
    assert len(ours) == len(theirs)
    for q, name, v in ours.itertuples(index=False):
        assert v == pytest.approx(theirs[(q, name)], abs=1e-12), (q, name)


def test_exp_log2_forms_and_refusals():
    assert parse_measure("nDCG(dcg='exp-log2')@10", "ir_measures").exp_gain
    with pytest.raises(ValueError, match="takes dcg='exp-log2' for nDCG with a cut-off only"):
        parse_measure("nDCG(dcg='exp-log2')", "ir_measures")
    with pytest.raises(ValueError, match="dcg='exp-log2' is an option of ranx and of ir_measures"):
        parse_measure("nDCG(dcg='exp-log2')@10", "trec_eval")
    with pytest.raises(ValueError, match="gdeval.pl, which refuses relevance above 4"):
        evaluate_run({"1": {"a": 5}}, {"1": {"a": 1.0}}, "nDCG(dcg='exp-log2')@10", "ir_measures")
    with pytest.raises(ValueError, match="query id 'q1'.*gdeval.pl"):
        evaluate_run({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, "nDCG(dcg='exp-log2')@10", "ir_measures")


# --------------------------------------------------------------------------------------------
# ranx: make_comparable=True


@pytest.mark.parametrize("seed", range(6))
def test_ranx_make_comparable_agrees_with_ranx(seed):
    import ranx

    rng = np.random.default_rng(100 + seed)
    qrels, run = _random_case(rng, n_q=6, numeric=False)
    run["unjudged"] = {"x": 1.0, "y": 0.5}
    qrels = {q: {d: v for d, v in lab.items() if v >= 0} or {"zz": 1} for q, lab in qrels.items()}
    metrics = {"ndcg@5": "nDCG@5", "map": "AP", "precision@3": "P@3", "mrr": "RR", "recall@5": "R@5"}
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), list(metrics), make_comparable=True)
    ours = evaluate_run(qrels, run, list(metrics.values()), profile("ranx", make_comparable=True))
    for k, name in metrics.items():
        assert ours.aggregate[name] == pytest.approx(theirs[k], abs=1e-12), name
    with pytest.raises(ValueError, match="make_comparable=True"):
        evaluate_run(qrels, run, "AP", "ranx")


def test_ranx_make_comparable_resorts_ties_as_ranx_does():
    """make_comparable=True sorts the Run a second time (Run.make_comparable -> Run.sort):
    tied documents of a query with more than 15 come out of numba's quicksort twice, in an
    order the single sort does not give. Every per-query value equals ranx's; one sort only
    differs on many."""
    import warnings

    import ranx

    rng = np.random.default_rng(5)
    qrels, run = {}, {}
    for i in range(40):
        docs = [f"d{j}" for j in range(int(rng.integers(1, 45)))]
        qrels[f"q{i}"] = ({d: int(rng.choice([0, 0, 1, 2])) for d in docs if rng.random() < 0.6}
                          or {docs[0]: 1})
        if rng.random() < 0.9:  # some judged queries are not run: make_comparable scores them 0
            run[f"q{i}"] = {d: float(rng.choice([0.5, 1.0, 1.5])) for d in docs}
    run["unjudged"] = {"x": 1.0}  # left out by make_comparable
    metrics = {"ndcg@10": "nDCG@10", "map": "AP", "precision@3": "P@3", "mrr": "RR",
               "recall@5": "R@5", "ndcg": "nDCG"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = ranx.Run(run)
        theirs = ranx.evaluate(ranx.Qrels(qrels), r, list(metrics), make_comparable=True,
                               return_mean=False, save_results_in_run=False)
    qids = list(r.get_query_ids())

    def wrong(conv):
        ours = evaluate_run(qrels, run, list(metrics.values()), conv)
        got = {(q, m): v for q, m, v in ours.per_query.itertuples(index=False)}
        assert {q for q, _ in got} == set(qids)
        return sum(abs(got[(q, name)] - float(v)) > 1e-12
                   for k, name in metrics.items() for q, v in zip(qids, theirs[k]))

    assert wrong(profile("ranx", make_comparable=True)) == 0
    assert wrong(profile("ranx", make_comparable=True, ties="numba_quicksort")) > 20


# --------------------------------------------------------------------------------------------
# explicit orders


def _issue56_spellings():
    qrels = trec_format.read_qrels(DATA / "pytrec_eval_issue56.qrels")
    lists = {"q1": ["d1", "d2", "d3"], "q2": ["d3", "d2"]}
    frame = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2"],
                          "doc_id": ["d3", "d1", "d2", "d2", "d3"], "rank": [3, 1, 2, 2, 1]})
    return qrels, {"dict of lists": (lists, None),
                   "file, rank column": (DATA / "pytrec_eval_issue56.run", "rank"),
                   "DataFrame, rank column": (frame, "rank"),
                   "dict of ranks": ({"q1": {"d3": 3, "d2": 2, "d1": 1}, "q2": {"d3": 1, "d2": 2}}, "rank")}


@pytest.mark.parametrize("convention", list(CONVENTIONS))
def test_pytrec_eval_issue_56_order_under_every_profile(convention):
    qrels, spellings = _issue56_spellings()
    for what, (run, order) in spellings.items():
        res = evaluate_run(qrels, run, ["AP", "nDCG"], convention, order=order)
        q1 = res.per_query[res.per_query["query_id"] == "q1"].set_index("measure")["value"]
        assert q1["AP"] == pytest.approx(1 / 3, abs=1e-15), what
        assert q1["nDCG"] == pytest.approx(0.5, abs=1e-15), what
    # by score (every score 1), trec_eval's tie rule (document id descending) puts d3 first:
    # the AP of 1.0 the issue reports
    if convention in ("trec_eval", "trec_eval_9", "pytrec_eval", "ir_measures"):
        by_score = evaluate_run(qrels, DATA / "pytrec_eval_issue56.run", ["AP"], convention)
        assert by_score.per_query.query("query_id == 'q1'")["value"].iloc[0] == 1.0


def test_compare_conventions_takes_an_order():
    qrels, spellings = _issue56_spellings()
    t = compare_conventions(qrels, spellings["dict of lists"][0], ["AP"])
    mine = t[(t["query_id"] == "q1") & (t["status"] == "ok")]
    assert len(mine) == len(CONVENTIONS) + 1  # ranx (plain dicts) too; the pooled variant refuses
    assert np.allclose(mine["value"], 1 / 3)
    t = compare_conventions(qrels, spellings["file, rank column"][0], ["AP"], order="rank")
    assert np.allclose(t[(t["query_id"] == "q1") & (t["status"] == "ok")]["value"], 1 / 3)


def test_explicit_order_ignores_score_quirks():
    qrels = {"1": {"a": 1, "b": 0}}
    # torchmetrics: a relevant document scored 0 never counts; an order has no scores
    assert evaluate_run(qrels, {"1": {"a": 0.0, "b": -1.0}}, "AP", "torchmetrics").aggregate["AP"] == 0.0
    assert evaluate_run(qrels, {"1": ["a", "b"]}, "AP", "torchmetrics").aggregate["AP"] == 1.0
    # ranks far beyond single precision stay distinct
    big = {"1": {"b": 2**25, "a": 2**25 + 1}}
    for conv in ("trec_eval_9", "pytrec_eval", "ir_measures"):
        assert evaluate_run(qrels, big, "P@1", conv, order="rank").aggregate["P@1"] == 0.0


def test_explicit_order_refusals(tmp_path):
    qrels = {"1": {"a": 1}}
    with pytest.raises(ValueError, match="documents 'a' and 'b' of query '1' share rank 1"):
        evaluate_run(qrels, {"1": {"a": 1, "b": 1}}, "AP", order="rank")
    # from a file, the refusal names the file and both lines
    run = tmp_path / "ranked.run"
    run.write_text("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4 r\n2 Q0 c 1 0.3 r\n1 Q0 d 2 0.2 r\n")
    with pytest.raises(ValueError, match=r"ranked.run:4: documents 'b' and 'd' of query '1' share "
                                         r"rank 2 \(the first on line 2\)"):
        evaluate_run(qrels, run, "AP", order="rank")
    for rank in ("0", "-1", "1.5", "nan"):
        run.write_text(f"1 Q0 a 1 0.5 r\n1 Q0 b {rank} 0.4 r\n")
        with pytest.raises(ValueError, match=f"ranked.run:2: document 'b' of query '1' has rank|"
                                             f"ranked.run:2: the rank"):
            evaluate_run(qrels, run, "AP", order="rank")
    for rank in (0, -1, 1.5):
        with pytest.raises(ValueError, match="document 'b' of query '1' has rank .*whole numbers from 1"):
            evaluate_run(qrels, {"1": {"a": 1, "b": rank}}, "AP", order="rank")
    run.write_text("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4 r\n2 Q0 c 2 0.3 r\n")  # rank 2 in two queries
    assert evaluate_run(qrels, run, "AP", order="rank").aggregate["AP"] == 1.0
    with pytest.raises(ValueError, match="mixes ordered lists and dicts: query '2'"):
        evaluate_run(qrels, {"1": ["a"], "2": {"b": 1.0}}, "AP")
    with pytest.raises(ValueError, match="explicit order without scores"):
        evaluate_run(qrels, {"1": ["a"]}, "AP", order="score")
    with pytest.raises(ValueError, match="has none .*add a 'rank' column"):
        evaluate_run(qrels, pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1.0]}), "AP",
                     order="rank")
    with pytest.raises(ValueError, match="order must be one of 'score', 'rank' \\('score': rank by score.*; got 'ranks'"):
        evaluate_run(qrels, {"1": ["a"]}, "AP", order="ranks")
    # a mistyped order is refused for every kind of input, the fast paths included
    score_file = tmp_path / "scored.run"
    score_file.write_text("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.5 r\n")
    qrels_file = tmp_path / "q.qrels"
    qrels_file.write_text("1 0 a 1\n")
    for q, r in [(qrels, {"1": {"a": 1.0, "b": 1.0}}), (qrels_file, score_file)]:
        for bad in ("rnk", "RANK", 42):
            with pytest.raises(ValueError, match=f"order must be one of 'score', 'rank' .*; got {bad!r}"):
                evaluate_run(q, r, "AP", order=bad)
    with pytest.raises(ValueError, match="retrieved twice"):
        evaluate_run(qrels, {"1": ["a", "a"]}, "AP")
    with pytest.raises(ValueError, match="averaging='pooled'"):
        evaluate_run(qrels, {"1": ["a"]}, "AP", profile("torchmetrics", averaging="pooled"))
    p = tmp_path / "r.txt"
    p.write_text("1 Q0 a 1 0.5 t\n1 Q0 b x 0.4 t\n")
    with pytest.raises(ValueError, match=r"r.txt:2: the rank of document 'b' for query '1' is not a number"):
        evaluate_run(qrels, p, "AP", order="rank")
    with pytest.raises(ValueError, match="order='rank' reads the rank column of a run"):
        trec_format.read_table(p, "qrels", order="rank")


def _agreeing(rng, n_q=8):
    """qrels, scores and the same order as lists: distinct scores, far apart in single precision."""
    qrels, scores, lists = {}, {}, {}
    for i in range(n_q):
        q = f"q{i}"
        docs = [f"d{j:02d}" for j in range(int(rng.integers(2, 25)))]
        qrels[q] = {d: int(rng.integers(0, 3)) for d in docs if rng.random() < 0.6} or {docs[0]: 1}
        ret = [d for d in docs if rng.random() < 0.8]
        ret = ret if len(ret) >= 2 else docs[:2]  # scikit-learn's nDCG needs two documents
        s = rng.permutation(len(ret)).astype(float) + 1.0
        scores[q] = dict(zip(ret, s))
        lists[q] = [d for _, d in sorted(zip(-s, ret))]
    return qrels, scores, lists


@pytest.mark.parametrize("seed", range(5))
def test_orders_agree_with_pytrec_eval_ranx_and_ir_measures(seed):
    import ir_measures
    import pytrec_eval
    import ranx

    rng = np.random.default_rng(1000 + seed)
    qrels, scores, lists = _agreeing(rng)
    # pytrec_eval
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg", "P.5", "recip_rank", "ndcg_cut.5"})
    theirs = ev.evaluate(scores)
    ours = evaluate_run(qrels, lists, ["AP", "nDCG", "P@5", "RR", "nDCG@5"], "pytrec_eval").per_query
    key = {"AP": "map", "nDCG": "ndcg", "P@5": "P_5", "RR": "recip_rank", "nDCG@5": "ndcg_cut_5"}
    for q, m, v in ours.itertuples(index=False):
        assert v == pytest.approx(theirs[q][key[m]], abs=1e-12), (q, m)
    # ranx
    metrics = {"ndcg@5": "nDCG@5", "map": "AP", "precision@5": "P@5", "mrr": "RR", "recall@10": "R@10"}
    rx = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(scores), list(metrics))
    ours = evaluate_run(qrels, lists, list(metrics.values()), "ranx").aggregate
    for k, name in metrics.items():
        assert ours[name] == pytest.approx(rx[k], abs=1e-12), name
    # ir_measures (pytrec_eval, msmarco and judged providers)
    names = ["nDCG@5", "AP", "P@5", "RR@5", "Judged@5"]
    agg = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names], qrels, scores)
    ours = evaluate_run(qrels, lists, names, "ir_measures").aggregate
    for n in names:
        assert ours[n] == pytest.approx(agg[ir_measures.parse_measure(n)], abs=1e-12), n
    # and under every profile the order equals the profile's own scoring of agreeing scores
    for conv in CONVENTIONS:
        forms = [m for m in ("nDCG@5", "AP", "P@5", "RR") if parse_ok(m, conv)]
        a = evaluate_run(qrels, lists, forms, conv).per_query
        b = evaluate_run(qrels, scores, forms, conv).per_query
        pd.testing.assert_frame_equal(a, b)


def parse_ok(m, conv):
    try:
        parse_measure(m, conv)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# rankbook compare: --order rank and the versioned profiles by name


def _compare_files(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text("1 0 a 1\n1 0 b 0\n1 0 c 0\n2 0 d 1\n2 0 e 0\n2 0 f 0\n3 0 g 1\n3 0 h 0\n")
    runs = []
    for name, firsts in (("good", ("a", "d", "g")), ("bad", ("c", "f", "h"))):
        lines = []
        for qid, docs, first in (("1", "abc", firsts[0]), ("2", "def", firsts[1]), ("3", "gh", firsts[2])):
            order = [first] + [d for d in docs if d != first]
            # every score equal: only the rank column tells the runs apart
            lines += [f"{qid} Q0 {d} {i + 1} 1.0 {name}" for i, d in enumerate(order)]
        p = tmp_path / f"{name}.run"
        p.write_text("\n".join(lines) + "\n")
        runs.append(p)
    return q, runs


def test_compare_order_rank_and_trec_eval_9(tmp_path):
    q, runs = _compare_files(tmp_path)
    by_rank = compare_cmd.compare_runs(q, runs, "RR", order="rank", resamples=100)
    means = by_rank.table.set_index("system")["mean"]
    assert means["good"] == 1.0 and means["bad"] == 0.5  # the relevant document second, each time
    assert "each run an explicit order (its rank column, no tie rule)" in by_rank.summary
    assert by_rank.comparison.settings["order"] == "rank"
    by_score = compare_cmd.compare_runs(q, runs, "RR", convention="trec_eval_9", resamples=100)
    s = by_score.table.set_index("system")["mean"]
    assert s["good"] == s["bad"]  # ties broken by document id: the same order for both runs
    assert "explicit order" not in by_score.summary
    with pytest.raises(compare_cmd.CompareError, match="--order must be one of score, rank"):
        compare_cmd.compare_runs(q, runs, "RR", order="ranks")


def test_compare_trec_eval_10_missing_query(tmp_path):
    q, runs = _compare_files(tmp_path)
    (tmp_path / "q2.txt").write_text(q.read_text() + "4 0 z 1\n")
    with pytest.raises(compare_cmd.CompareError, match=r"1 judged query .* is in none of the runs \('4'\); "
                                                       r"trec_eval \(trec_eval 10.0\) stops"):
        compare_cmd.compare_runs(tmp_path / "q2.txt", runs, "RR", resamples=100)
    zero = compare_cmd.compare_runs(tmp_path / "q2.txt", runs, "RR", resamples=100, missing="zero")
    assert set(zero.table["n_queries"]) == {4} and any("trec_eval -c" in n for n in zero.notes)
    nine = compare_cmd.compare_runs(tmp_path / "q2.txt", runs, "RR", resamples=100,
                                    convention="trec_eval_9")
    assert set(nine.table["n_queries"]) == {3}


# --------------------------------------------------------------------------------------------
# scores from dicts: plain numbers converted at once, anything else checked one by one


def test_dict_values_fast_path_keeps_every_refusal():
    qrels = {"1": {"a": 1, "b": 0}}
    mixed = {"1": {"a": 2, "b": np.float32(1.5)}}
    assert evaluate_run(qrels, mixed, "RR").aggregate["RR"] == 1.0
    with pytest.raises(ValueError, match=r"the score of document 'b' for query '1' in the run is not a number: True"):
        evaluate_run(qrels, {"1": {"a": 1.0, "b": True}}, "RR")
    with pytest.raises(ValueError, match=r"not a number: 'high'"):
        evaluate_run(qrels, {"1": {"a": 1.0, "b": "high"}}, "RR")
    with pytest.raises(ValueError, match=r"must be a finite number, got inf"):
        evaluate_run(qrels, {"1": {"a": 1.0, "b": float("inf")}}, "RR")
    # text that spells a number is read as before
    assert evaluate_run(qrels, {"1": {"a": "2", "b": 1.0}}, "RR").aggregate["RR"] == 1.0
