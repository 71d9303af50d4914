"""Every measure of trec_eval's ``-m all_trec`` (rankbook.trec_measures through
rankbook.conventions.evaluate_run) against pytrec_eval (trec_eval 9's C code) value by value,
on generated runs full of ties, unjudged and negatively judged documents, k beyond the list and
queries without relevant documents; with trec_eval's -l and -J; the ir_measures names against
ir_measures, ERR against gdeval.pl itself; and the properties of the kernels on small inputs
computed by hand."""

from __future__ import annotations

import math
import shutil
import subprocess

import numpy as np
import pytest

from rankbook import trec_measures as tm
from rankbook.conventions import (CONVENTIONS, TREC_EVAL_NAMES, evaluate_run, parse_measure,
                                  profile)

SEED = 20251127
N_QUERIES = 240
DOCS = [f"d{i}" for i in range(1, 40)] + ["a", "B", "b", "x10", "x9", "Z"]


def _case(rng):
    n_pool = int(rng.integers(1, 40))
    pool = list(rng.choice(DOCS, size=n_pool, replace=False))
    judged = [d for d in pool if rng.random() < 0.7] or [pool[0]]
    if rng.random() < 0.15:  # nothing relevant
        lab = {d: int(rng.choice([-1, 0])) for d in judged}
    else:
        lab = {d: int(rng.choice([-1, 0, 0, 0, 1, 1, 2, 3])) for d in judged}
    if max(lab.values()) < 0:  # pytrec_eval crashes on a query judged only negatively
        lab[judged[0]] = 0
    retrieved = [d for d in pool if rng.random() < 0.8] or [pool[-1]]
    retrieved = [retrieved[i] for i in rng.permutation(len(retrieved))]
    if rng.random() < 0.6:
        scores = rng.choice([0.0, 0.5, 1.0, 2.0], size=len(retrieved))
    else:
        scores = np.round(rng.normal(size=len(retrieved)), 2)
    return lab, {d: float(s) for d, s in zip(retrieved, scores)}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(SEED)
    qrels, run = {}, {}
    for i in range(N_QUERIES):
        lab, ranked = _case(rng)
        qrels[f"q{i}"] = lab
        run[f"q{i}"] = ranked
    return qrels, run


def _pytrec(qrels, run, **kw):
    import pytrec_eval

    res = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}, **kw).evaluate(run)
    names = sorted(set(next(iter(res.values()))) - {"runid", "relstring"})
    return res, names


#: trec_eval 9's all_trec names rankbook computes (every one the installed pytrec_eval prints,
#: checked below: none is left out).
ALL_TREC_9 = None


@pytest.mark.parametrize("options, name", [({}, "trec_eval_9"), ({}, "pytrec_eval"),
                                           ({"relevance_level": 2}, "trec_eval_9"),
                                           ({"judged_docs_only_flag": True}, "trec_eval_9")],
                         ids=["default", "pytrec_eval profile", "-l 2", "-J"])
def test_every_all_trec_measure_equals_pytrec_eval(data, options, name):
    qrels, run = data
    theirs, names = _pytrec(qrels, run, **options)
    assert len(names) >= 90 and {"bpref", "infAP", "G", "Rndcg", "set_F", "utility",
                                 "iprec_at_recall_0.10", "Rprec_mult_2.00", "11pt_avg",
                                 "relative_P_1000", "num_nonrel_judged_ret"} <= set(names)
    conv = profile(name, relevance_level=options.get("relevance_level", 1),
                   judged_only=options.get("judged_docs_only_flag", False))
    ours = evaluate_run(qrels, run, names, conv)
    got = {(q, m): v for q, m, v in ours.per_query.itertuples(index=False)}
    assert {q for q, _ in got} == set(theirs)
    bad = []
    for q, vals in theirs.items():
        for m in names:
            want = vals[m]
            have = got[(q, m)]
            if m.startswith("gm_"):  # trec_eval keeps log(max(v, 0.00001)) per query
                have = math.log(max(have, 1e-5))
            if not math.isclose(have, want, rel_tol=1e-9, abs_tol=1e-12):
                bad.append((q, m, have, want))
    assert bad == []
    import pytrec_eval

    for m in names:
        want = pytrec_eval.compute_aggregated_measure(m, [v[m] for v in theirs.values()])
        assert math.isclose(ours.aggregate[m], want, rel_tol=1e-9, abs_tol=1e-12), m


def test_every_measure_name_is_offered_and_parsed():
    """Each name of TREC_EVAL_NAMES parses under the trec_eval profile (the text measures are
    refused with where to find them); the 9.x profiles lack exactly 10.0's new measures."""
    for name, family in TREC_EVAL_NAMES.items():
        text = name.replace("{k}", "10").replace("{x}", "0.20")
        if family is None:
            with pytest.raises(ValueError, match="is text, not a number"):
                parse_measure(text)
            continue
        assert parse_measure(text).family == family
    new = set(CONVENTIONS["trec_eval"].measures) - set(CONVENTIONS["trec_eval_9"].measures)
    assert new == {"rbp", "rbp_resid", "unj@k"}


def test_max_documents_cuts_after_ordering(data):
    """-M 5: only the first 5 documents of each ranking count (trec_eval cuts after sorting):
    the same as a run that holds only its top 5 under trec_eval's order."""
    qrels, run = data
    measures = ["map", "P_10", "num_ret", "bpref", "ndcg", "recall_1000", "Rndcg"]
    cut = evaluate_run(qrels, run, measures, profile("trec_eval", max_documents=5))
    top5 = {}
    for q, docs in run.items():
        order = sorted(docs, key=lambda d: (docs[d], d), reverse=True)  # trec_eval's order
        top5[q] = {d: docs[d] for d in order[:5]}
    assert all(len(v) <= 5 for v in top5.values())
    direct = evaluate_run(qrels, top5, measures, "trec_eval")
    assert cut.per_query.equals(direct.per_query)
    assert cut.aggregate["num_ret"] <= 5 * len(run)


# ---- ir_measures' names and providers ---------------------------------------------------------

IRM = ["Bpref", "infAP", "IPrec@0.1", "IPrec@0.5", "IPrec@1.0", "NumRet", "NumRelRet", "NumRel",
       "NumQ", "SetP", "SetR", "SetF", "SetAP", "SetRelP", "Bpref(rel=2)", "SetP(rel=2)",
       "SetF(beta=2.0)", "ERR@5", "ERR@20"]


def test_ir_measures_names_equal_ir_measures(data):
    import ir_measures

    if not shutil.which("perl"):
        pytest.skip("gdeval.pl (ERR@k) needs perl")
    qrels, run = data
    qrels = {q: {d: min(v, 4) for d, v in docs.items()} for q, docs in qrels.items()}
    qrels["extra"] = {"d1": 1}  # judged, not run: ir_measures scores it 0
    run = {("9" + q[1:] if q != "extra" else q): v for q, v in run.items()}  # gdeval: digits
    qrels = {("9" + q[1:] if q != "extra" else "99999"): v for q, v in qrels.items()}
    parsed = {m: ir_measures.parse_measure(m) for m in IRM}
    theirs = {(x.query_id, str(x.measure)): x.value for x in ir_measures.iter_calc(list(parsed.values()), qrels, run)}
    ours = evaluate_run(qrels, run, IRM, "ir_measures")
    got = {(q, m): v for q, m, v in ours.per_query.itertuples(index=False)}
    assert {(q, str(parsed[m])) for q, m in got} == set(theirs)
    bad = [(q, m, v, theirs[(q, str(parsed[m]))]) for (q, m), v in got.items()
           if not math.isclose(v, theirs[(q, str(parsed[m]))], rel_tol=1e-9, abs_tol=1e-12)]
    assert bad == []
    agg = ir_measures.calc_aggregate(list(parsed.values()), qrels, run)
    for m in IRM:
        assert math.isclose(ours.aggregate[m], agg[parsed[m]], rel_tol=1e-9, abs_tol=1e-12), m


def _gdeval(qrels, run, k, tmp_path):
    import importlib.resources

    script = importlib.resources.files("ir_measures") / "bin" / "gdeval.pl"
    qp, rp = tmp_path / "q.txt", tmp_path / "r.txt"
    qp.write_text("".join(f"{q} 0 {d} {v}\n" for q, docs in qrels.items() for d, v in docs.items()))
    rp.write_text("".join(f"{q} Q0 {d} {i} {s!r} t\n" for q, docs in run.items()
                          for i, (d, s) in enumerate(docs.items(), start=1)))
    out = subprocess.run(["perl", str(script), str(qp), str(rp), str(k)], capture_output=True,
                         text=True, check=True).stdout.splitlines()[1:]
    return {line.split(",")[1]: float(line.split(",")[3]) for line in out if line}


def test_err_without_a_cut_off_is_gdeval_over_the_whole_ranking(data, tmp_path):
    """ERR (no cut-off): gdeval.pl with a depth past every ranking; ERR@3: its depth 3."""
    if not shutil.which("perl"):
        pytest.skip("gdeval.pl needs perl")
    qrels, run = data
    qrels = {str(100 + i): {d: min(v, 4) for d, v in docs.items()} for i, docs in enumerate(qrels.values())}
    run = {str(100 + i): docs for i, docs in enumerate(run.values())}
    for k, name in ((10_000, "ERR"), (3, "ERR@3")):
        theirs = _gdeval(qrels, run, k, tmp_path)
        ours = evaluate_run(qrels, run, name, "ir_measures").per_query.set_index("query_id")["value"]
        assert theirs and all(ours[q] == v for q, v in theirs.items())
        # queries gdeval does not print (no positive judgement) score 0, as in ir_measures
        assert (ours.drop(list(theirs)) == 0).all()


# ---- the kernels on inputs computed by hand ------------------------------------------------------


def test_kernels_by_hand():
    # codes: relevant 2, not pooled, judged 0, pooled-unjudged, relevant 1; judged: 2, 1, 1, 0, -1
    r = tm.ranking([[2, -1, 0, -2, 1]], [[2, 1, 1, 0, -1]])
    assert tm.num_rel(r).tolist() == [3.0] and tm.num_rel_ret(r).tolist() == [2.0]
    assert tm.num_nonrel_judged_ret(r).tolist() == [1.0]
    # bpref: first relevant 1; second after 1 non-relevant: 1 - min(1,3)/min(1,3) = 0 -> 1/3
    assert tm.bpref(r).tolist() == [pytest.approx(1 / 3)]
    assert tm.set_precision(r).tolist() == [0.4] and tm.set_recall(r).tolist() == [pytest.approx(2 / 3)]
    assert tm.utility(r).tolist() == [2 - 3]
    assert tm.unjudged(r, 5).tolist() == [0.4] and tm.unjudged(r, 2).tolist() == [0.5]
    assert tm.relstring(r) == ["2-0.1"]
    # rbp with levels 0..2, normalised by 2: (1-p)(1 + 0.5 p^4)
    assert tm.rbp(r).tolist() == [pytest.approx(0.1 * (1 + 0.5 * 0.9 ** 4))]
    # residual: unjudged at ranks 2 and 4, p^5 remains
    assert tm.rbp_resid(r).tolist() == [pytest.approx(0.9 ** 5 + 0.1 * (0.9 + 0.9 ** 3))]
    # interpolated precision: precisions at the relevant ranks 1 and 5: 1 and 2/5
    assert [float(tm.iprec_at_recall(r, x)[0]) for x in (0.0, 0.3, 0.5, 0.7, 1.0)] == \
        [1.0, 1.0, 0.4, 0.4, 0.0]


@pytest.mark.parametrize("rule, cuts", [("plus_0.9", [0, 8, 16, 23]), ("plus_0.9_fused", [0, 8, 16, 24]),
                                        ("lround", [0, 8, 15, 23])])
def test_recall_cutoff_rules(rule, cuts):
    """R = 77 (query 302 of trec_eval's test files): 0.3 * 77 + 0.9 is 23.999999999999996 in
    double, 24 with one rounding; lround(0.2 * 77) = 15 where + 0.9 gives 16."""
    assert [int(tm.recall_cutoffs(x, np.array([77.0]), rule)[0]) for x in (0.0, 0.1, 0.2, 0.3)] == cuts


def test_tied_documents_of_equal_gain_are_not_reordered_needlessly(data):
    """Measures that see only gains skip ordering tied documents of equal gain; asked with a
    measure that sees judgements (bpref), every tied group is put in id order. The values
    are the same either way, and equal pytrec_eval's (above)."""
    qrels, run = data
    gains = ["ndcg_cut_10", "map", "P_5", "recip_rank", "Rndcg", "G", "set_F"]
    alone = evaluate_run(qrels, run, gains, "trec_eval_9").per_query
    both = evaluate_run(qrels, run, gains + ["bpref"], "trec_eval_9").per_query
    assert alone.equals(both[both["measure"] != "bpref"].reset_index(drop=True))


def test_document_ids_order_as_strcmp_orders_them():
    """Ties broken by id as bytes: prefixes first ("ab" < "abc"), digits as text ("d10" <
    "d9"), UTF-8 bytes above ASCII ("é" after "z"), ids of different lengths; a file's ids
    (bytes) and a dict's (text) give the same order."""
    ids = ["abc", "ab", "d10", "d9", "z", "é", "a", "b\u00e9", "B"]
    qrels = {"q": {d: 1 for d in ids[::2]} | {d: 0 for d in ids[1::2]}}
    run = {"q": {d: 1.0 for d in ids}}
    want = sorted(ids, key=lambda s: s.encode(), reverse=True)  # trec_eval: id descending
    ranked = evaluate_run(qrels, run, [f"P_{k}" for k in range(1, len(ids) + 1)], "trec_eval")
    rel = [qrels["q"][d] for d in want]
    expect = [sum(rel[:k]) / k for k in range(1, len(ids) + 1)]
    assert ranked.aggregate.tolist() == pytest.approx(expect)
