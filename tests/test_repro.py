"""``rankbook.repro`` (issue 29): reproducibility measures for ranked runs.

KTU over the union is checked against brute force over document pairs and for its invariants
(renaming, reversal, identity); the repro_eval-compatible parts are checked against repro_eval
0.5.0 itself (a test-only dependency) on generated run quadruples with ties, missing documents
and topics without relevant documents; the intervals of ER and ΔRI are checked for coverage on
simulated data with a known effect.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import conventions, repro

ir_measures = pytest.importorskip("ir_measures")
re_order = pytest.importorskip("repro_eval.measure.document_order")
re_eff = pytest.importorskip("repro_eval.measure.effectiveness")
re_oe = pytest.importorskip("repro_eval.measure.overall_effects")
re_stats = pytest.importorskip("repro_eval.measure.statistics")
re_util = pytest.importorskip("repro_eval.util")

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "R@10"]


# ------------------------------------------------------------------------------------------
# KTU over the union


def _brute_ktu(a, b):
    """tau_b by counting every pair of documents of the union; a document missing from a
    list sits tied below that list's last document."""
    union = list(dict.fromkeys(list(a) + list(b)))
    ra = {d: (a.index(d) if d in a else len(a)) for d in union}
    rb = {d: (b.index(d) if d in b else len(b)) for d in union}
    C = D = Ta = Tb = 0
    for x, y in itertools.combinations(union, 2):
        sa = np.sign(ra[x] - ra[y])
        sb = np.sign(rb[x] - rb[y])
        if sa == 0:
            Ta += 1
        if sb == 0:
            Tb += 1
        if sa and sb:
            C += sa == sb
            D += sa != sb
    n0 = len(union) * (len(union) - 1) // 2
    den = math.sqrt((n0 - Ta) * (n0 - Tb))
    return (C - D) / den if den else float("nan")


lists = st.lists(st.integers(0, 14), unique=True, max_size=12).map(lambda xs: [f"d{x}" for x in xs])


@settings(max_examples=300, deadline=None)
@given(lists, lists)
def test_ktu_equals_brute_force_over_pairs(a, b):
    got, want = repro.ktu(a, b), _brute_ktu(a, b)
    if math.isnan(want):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(want, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(lists, lists, st.randoms(use_true_random=False))
def test_ktu_is_invariant_under_renaming(a, b, rnd):
    names = sorted(set(a) | set(b))
    new = names[:]
    rnd.shuffle(new)
    ren = dict(zip(names, [f"x{n}" for n in new]))
    got = repro.ktu([ren[d] for d in a], [ren[d] for d in b])
    want = repro.ktu(a, b)
    assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, abs=1e-12)


#: Text ids without NUL (ids with one are refused: test_ids_with_a_nul_are_refused_everywhere).
_IDS = st.text(st.characters(exclude_characters="\x00"), min_size=1, max_size=4)


@settings(max_examples=100, deadline=None)
@given(st.lists(_IDS, unique=True, min_size=2, max_size=30))
def test_ktu_identity_is_one_and_reversal_minus_one(docs):
    assert repro.ktu(docs, docs) == pytest.approx(1.0)
    assert repro.ktu(docs, docs[::-1]) == pytest.approx(-1.0)
    assert repro.ktu(docs, docs[::-1], convention="union") == repro.ktu(docs[::-1], docs)


@pytest.mark.parametrize("docs", [["0", "0\x00"], ["a", "a\x00b", "c"], ["\x00", "\x00\x00"]])
def test_ids_with_a_nul_are_refused_everywhere(docs):
    # pandas 3 compares text up to its first NUL: ktu(docs, docs) came out nan, a reversal 1.0
    with pytest.raises(ValueError, match="NUL character"):
        repro.ktu(docs, docs)
    with pytest.raises(ValueError, match="NUL character"):
        repro.ktu(docs, docs[::-1], convention="repro_eval")
    qrels = {"q": {d: i % 2 for i, d in enumerate(docs)}}
    scores = {d: float(len(docs) - i) for i, d in enumerate(docs)}
    frame = pd.DataFrame({"query_id": "q", "doc_id": docs, "score": list(scores.values())})
    for run in ({"q": scores}, {"q": list(docs)}, frame):
        with pytest.raises(ValueError, match="NUL character"):
            conventions.evaluate_run(qrels, run, ["map"])
    with pytest.raises(ValueError, match="query ids must not hold a NUL"):
        conventions.evaluate_run({"q\x00": {"a": 1}}, {"q\x00": {"a": 1.0}}, ["map"])


def test_ktu_issue_examples_and_repro_eval_name_dependence():
    rng = np.random.default_rng(3)
    docs = [f"doc{x}" for x in rng.permutation(20)]  # names that do not sort in rank order
    swapped = [docs[1], docs[0], *docs[2:]]
    assert repro.ktu(docs, swapped) == pytest.approx(1 - 2 / 190)  # one discordant pair of 190
    assert repro.ktu(docs, docs[::-1]) == pytest.approx(-1.0)
    # repro_eval's value is not -1 for a reversal and depends on the names
    rev = repro.ktu(docs, docs[::-1], convention="repro_eval")
    assert rev > -0.99
    ren = {d: f"z{i:02d}" for i, d in enumerate(docs)}  # names sorted in rank order
    assert repro.ktu([ren[d] for d in docs], [ren[d] for d in docs[::-1]],
                     convention="repro_eval") == -1.0


def test_ktu_refusals():
    with pytest.raises(ValueError, match="equal lengths"):
        repro.ktu(["a", "b", "c"], ["a", "b"], convention="repro_eval")
    with pytest.raises(ValueError, match="twice"):
        repro.ktu(["a", "a"], ["a", "b"])
    with pytest.raises(ValueError, match="convention must be one of 'union', 'repro_eval'; got"):
        repro.ktu(["a"], ["a"], convention="positional")
    with pytest.raises(ValueError, match="one string"):
        repro.ktu("abc", ["a"])
    assert math.isnan(repro.ktu(["a"], ["a"]))


# ------------------------------------------------------------------------------------------
# RBO


@settings(max_examples=150, deadline=None)
@given(lists, lists, st.floats(0.05, 0.99))
def test_rbo_forms_are_in_unit_interval_and_identity_is_one(a, b, p):
    if a and b:
        for form in repro.RBO_FORMS:
            v = repro.rbo(a, b, p, form=form)
            assert -1e-12 <= v <= 1 + 1e-12
        assert repro.rbo(a, a, p) == pytest.approx(1.0)
        assert repro.rbo(a, a, p, form="truncated") == pytest.approx(1.0)
    else:
        assert math.isnan(repro.rbo(a, b, p))


@settings(max_examples=200, deadline=None)
@given(lists, lists, st.floats(0.05, 0.99))
def test_rbo_ext_equals_rankbook_rbo_ext(a, b, p):
    from rankbook import rbo as rbo_module

    if a and b:
        assert repro.rbo(a, b, p) == pytest.approx(rbo_module.rbo_ext(a, b, p), abs=1e-12)
        assert repro.rbo(a, b, p, form="base") == pytest.approx(rbo_module.rbo(a, b, p),
                                                                abs=1e-12)


def test_rbo_default_depth_stays_within_the_lists():
    docs = [f"d{i}" for i in range(20)]
    assert repro.rbo(docs, docs) == 1.0
    assert repro.rbo(docs, docs, form="truncated") == 1.0
    assert repro.rbo(docs, docs, form="truncated", depth=1000) < 0.86  # repro_eval's default
    with pytest.raises(ValueError, match="form must be one of 'ext', 'base', 'truncated'; got"):
        repro.rbo(docs, docs, form="clarke")
    with pytest.raises(ValueError, match="0 < p < 1"):
        repro.rbo(docs, docs, p=1.0)


# ------------------------------------------------------------------------------------------
# repro_eval 0.5.0 as the oracle


def _quadruple(seed):
    """Four runs and two qrels (original topics, other topics) with score ties, documents one
    run lacks, topics without relevant documents and runs of different lengths."""
    rng = np.random.default_rng(seed)
    n_topics = int(rng.integers(3, 9))
    pool = int(rng.integers(6, 25))

    def qrels(prefix):
        out = {}
        for t in range(n_topics):
            rel = rng.choice([0, 0, 1, 2], size=pool) * (rng.random() > 0.2)  # some all zero
            out[f"{prefix}{t}"] = {f"d{i}": int(r) for i, r in enumerate(rel)}
        return out

    def run(prefix, equal_len=None):
        out = {}
        for t in range(n_topics):
            k = equal_len if equal_len else int(rng.integers(2, pool + 1))
            docs = rng.permutation(pool + 3)[:k]  # d{pool}.. are unjudged
            scores = np.round(rng.random(k), 1)  # ties
            order = np.lexsort((-docs, -scores))  # score order as a sorted file would hold it
            out[f"{prefix}{t}"] = {f"d{docs[i]}": float(scores[i]) for i in order}
        return out

    return qrels("q"), qrels("r"), [run("q") for _ in range(4)], [run("r") for _ in range(2)]


def _re_sorted(run):
    """A run dict in trec_eval order (score descending, ties by doc id descending)."""
    return {q: dict(sorted(d.items(), key=lambda kv: (-kv[1], tuple(-ord(c) for c in kv[0]))))
            for q, d in run.items()}


def _re_scores(qrels, run):
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    return re_util.evaluate_run(measures, qrels, run)


def _agg(res, system, measure, statistic):
    """The one aggregate row of (system, measure, statistic); the table is indexed once per
    result (a boolean filter per lookup was a quarter of the oracle's time)."""
    if _LAST_AGG[0] is not res:
        t = res.aggregate
        keys = list(zip(t.system, t.measure, t.statistic))
        _LAST_AGG[:] = [res, dict(zip(keys, t.itertuples(index=False))), Counter(keys)]
    key = (system, measure, statistic)
    assert _LAST_AGG[2][key] == 1, key
    return _LAST_AGG[1][key]


#: The last result read by :func:`_agg`, its rows by key and how many rows each key has.
_LAST_AGG: list = [None, {}, Counter()]


def _close(ours, theirs, what):
    if theirs is None or (isinstance(theirs, float) and math.isnan(theirs)):
        assert math.isnan(ours), what
    else:
        assert ours == pytest.approx(theirs, rel=1e-6, abs=1e-6), what  # float32 of trec_eval


N_ORACLE = 520


@pytest.mark.parametrize("block", range(4))
def test_repro_eval_oracle_reproducibility(block):
    checked = 0
    for seed in range(block * N_ORACLE // 4, (block + 1) * N_ORACLE // 4):
        qrels, _, (ob, oa, rb, ra), _ = _quadruple(seed)
        res = repro.reproduce(ob, oa, rb, ra, qrels, measures=MEASURES, n_resamples=50,
                              rbo_form="truncated", rbo_depth=1000, ktu_convention="union")
        sc = {k: _re_scores(qrels, _re_sorted(r)) for k, r in
              dict(ob=ob, oa=oa, rb=rb, ra=ra).items()}
        if set(sc["ob"]) != set(sc["rb"]) or set(sc["oa"]) != set(sc["ob"]) \
                or set(sc["ra"]) != set(sc["rb"]):
            continue  # repro_eval needs every run scored on the same topics
        for sys_, o, r in (("baseline", "ob", "rb"), ("advanced", "oa", "ra")):
            rmse, nrmse = re_eff.RMSE(sc[o], sc[r]), re_eff.nRMSE(sc[o], sc[r])
            pvals = re_stats.ttest(sc[o], sc[r], rpd=True)
            for m in MEASURES:
                _close(_agg(res, sys_, m, "RMSE").value, rmse[m], (seed, sys_, m, "RMSE"))
                _close(_agg(res, sys_, m, "nRMSE").value, nrmse[m], (seed, sys_, m, "nRMSE"))
                p_ours = _agg(res, sys_, m, "RMSE").p_value
                if math.isnan(pvals[m]):  # repro_eval: nan unless every measure is identical
                    same = all(sc[o][t][m] == sc[r][t][m] for t in sc[o])
                    assert p_ours == 1.0 if same else math.isnan(p_ours), (seed, m)
                else:
                    _close(p_ours, pvals[m], (seed, sys_, m, "p"))
            runs = dict(baseline=(ob, rb), advanced=(oa, ra))[sys_]
            rbo_re = re_order.RBO(_re_sorted(runs[0]), _re_sorted(runs[1]), p=0.95, depth=1000,
                                  pbar=False, per_topic=True)
            pt = res.per_topic
            ours = pt[(pt.system == sys_) & (pt.measure == "RBO")].set_index("query_id").value
            for t, v in rbo_re.items():
                assert ours[t] == v, (seed, t, "RBO")  # the same arithmetic: bit for bit
        er = re_oe.ER(orig_score_a=sc["oa"], orig_score_b=sc["ob"], rep_score_a=sc["ra"],
                      rep_score_b=sc["rb"])
        dri = re_oe.DRI(orig_score_a=sc["oa"], orig_score_b=sc["ob"], rep_score_a=sc["ra"],
                        rep_score_b=sc["rb"])
        for m in MEASURES:
            mi = np.mean([sc["oa"][t][m] - sc["ob"][t][m] for t in sc["ob"]])
            if abs(mi) > 1e-6:  # ER of a zero original improvement is 0/0 or x/0
                _close(_agg(res, "advanced vs baseline", m, "ER").value, er[m], (seed, m, "ER"))
            if min(np.mean([s[t][m] for t in s]) for s in (sc["ob"], sc["rb"])) > 1e-6:
                _close(_agg(res, "advanced vs baseline", m, "ΔRI").value, dri[m],
                       (seed, m, "ΔRI"))
        checked += 1
    assert checked >= N_ORACLE // 4 * 0.9


def test_repro_eval_oracle_replicability():
    checked = 0
    for seed in range(1000, 1000 + 130):
        qrels, qrels_r, (ob, oa, _, _), (rb, ra) = _quadruple(seed)
        res = repro.reproduce(ob, oa, rb, ra, qrels, qrels_rep=qrels_r, measures=MEASURES,
                              n_resamples=50)
        sc = {"ob": _re_scores(qrels, _re_sorted(ob)), "oa": _re_scores(qrels, _re_sorted(oa)),
              "rb": _re_scores(qrels_r, _re_sorted(rb)), "ra": _re_scores(qrels_r, _re_sorted(ra))}
        if set(sc["oa"]) != set(sc["ob"]) or set(sc["ra"]) != set(sc["rb"]):
            continue
        er = re_oe.ER(orig_score_a=sc["oa"], orig_score_b=sc["ob"], rep_score_a=sc["ra"],
                      rep_score_b=sc["rb"])
        dri = re_oe.DRI(orig_score_a=sc["oa"], orig_score_b=sc["ob"], rep_score_a=sc["ra"],
                        rep_score_b=sc["rb"])
        for sys_, o, r in (("baseline", "ob", "rb"), ("advanced", "oa", "ra")):
            pvals = re_stats.ttest(sc[o], sc[r], rpd=False)
            for m in MEASURES:
                p_ours = _agg(res, sys_, m, "mean (original)").p_value
                if not math.isnan(pvals[m]):
                    _close(p_ours, pvals[m], (seed, sys_, m, "p unpaired"))
        for m in MEASURES:
            mi = np.mean([sc["oa"][t][m] - sc["ob"][t][m] for t in sc["ob"]])
            if abs(mi) > 1e-6:
                _close(_agg(res, "advanced vs baseline", m, "ER").value, er[m], (seed, m, "ER"))
            if min(np.mean([s[t][m] for t in s]) for s in (sc["ob"], sc["rb"])) > 1e-6:
                _close(_agg(res, "advanced vs baseline", m, "ΔRI").value, dri[m], (seed, m))
        checked += 1
    assert checked >= 100


def test_repro_eval_ktu_convention_is_bit_for_bit_on_equal_lengths():
    for seed in range(300):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(2, 40))
        orig, rep = {}, {}
        for t in range(3):
            for run in (orig, rep):
                docs = rng.permutation(n + 10)[:n]
                scores = np.round(rng.random(n), 1)
                order = np.lexsort((-docs, -scores))
                run[str(t)] = {f"d{docs[i]}": float(scores[i]) for i in order}
        theirs = re_order.KTU(_re_sorted(orig), _re_sorted(rep), per_topic=True)
        ro, rr = repro.rankings(orig), repro.rankings(rep)
        for t, v in theirs.items():
            ours = repro.ktu(ro[t], rr[t], convention="repro_eval")
            assert (math.isnan(v) and math.isnan(ours)) or ours == v, (seed, t)


def test_rankings_match_repro_eval_order():
    run = {"1": {"a": 0.5, "c": 0.5, "b": 0.9, "d": 0.1}}
    assert repro.rankings(run)["1"] == list(re_util.break_ties(_re_sorted(run))["1"])


# ------------------------------------------------------------------------------------------
# interval coverage of ER and ΔRI


def _simulate(rng, q, paired):
    b_o = rng.uniform(0.2, 0.6, q)
    a_o = b_o + 0.10 + rng.normal(0, 0.05, q)
    topics_r = b_o if paired else rng.uniform(0.2, 0.6, q)
    b_r = topics_r + rng.normal(0, 0.05, q)
    a_r = b_r + 0.08 + rng.normal(0, 0.05, q)
    return b_o, a_o, b_r, a_r


@pytest.mark.parametrize("paired", [True, False])
def test_interval_coverage_of_er_and_delta_ri(paired):
    # population values: mean improvements 0.10 and 0.08 on baselines of mean 0.4
    truth = {"ER": 0.08 / 0.10, "ΔRI": 0.10 / 0.4 - 0.08 / 0.4}
    n_sim, q = 400, 50
    rng = np.random.default_rng(29 if paired else 2029)
    hits = {k: 0 for k in truth}
    for i in range(n_sim):
        cis = repro.effect_ci(*_simulate(rng, q, paired), paired=paired, n_resamples=499,
                              seed=i)
        for k, ci in cis.items():
            hits[k] += ci.low <= truth[k] <= ci.high
    se = math.sqrt(0.95 * 0.05 / n_sim)
    for k, h in hits.items():
        assert abs(h / n_sim - 0.95) <= 2 * se, (k, h / n_sim)


# ------------------------------------------------------------------------------------------
# the tables, errors and ir_metadata


def test_reproduce_tables_and_refusals():
    qrels, _, (ob, oa, rb, ra), _ = _quadruple(5)
    res = repro.reproduce(ob, oa, rb, ra, qrels, measures="AP,P@5", n_resamples=200)
    assert set(res.aggregate.level) == {"order", "effectiveness", "effect"}
    assert list(res.per_topic.columns) == ["level", "system", "query_id", "measure", "orig",
                                           "rep", "value"]
    row = _agg(res, "baseline", "AP", "RMSE")
    assert row.low <= row.value <= row.high
    pt = res.per_topic.set_index(["system", "measure", "query_id"])["value"]
    ro, rr = repro.rankings(ob), repro.rankings(rb)  # by name; reproduce uses integer codes
    for t in ro:
        assert pt["baseline", "KTU", t] == pytest.approx(repro.ktu(ro[t], rr[t]), abs=1e-15)
        assert pt["baseline", "RBO", t] == pytest.approx(repro.rbo(ro[t], rr[t]), abs=1e-15)
    eff = res.per_topic[res.per_topic.level == "effectiveness"]
    assert np.allclose(eff.value, eff.rep - eff.orig)
    # the batched intervals are those of one call per case (the same resamples)
    sc = {k: repro._scores(qrels, repro._as_run(r), ["P@5"], repro._conv.profile("trec_eval"))
          for k, r in dict(ob=ob, oa=oa, rb=rb, ra=ra).items()}
    one = repro.effect_ci(*(sc[k]["P@5"] for k in ("ob", "oa", "rb", "ra")), n_resamples=200)
    for stat in ("ER", "ΔRI"):
        row = _agg(res, "advanced vs baseline", "P@5", stat)
        assert (row.value, row.low, row.high) == pytest.approx(
            (one[stat].estimate, one[stat].low, one[stat].high), nan_ok=True)
    short = {k: v for k, v in rb.items() if k != next(iter(rb))}
    with pytest.raises(ValueError, match="different topics"):
        repro.reproduce(ob, oa, short, ra, qrels, measures="AP")
    with pytest.raises(ValueError, match="rep_advanced is missing"):
        repro.reproduce(ob, oa, rb, None, qrels, measures="AP")
    base_only = repro.reproduce(ob, None, rb, None, qrels, measures="AP", n_resamples=100)
    assert "effect" not in set(base_only.aggregate.level)


topic_runs = st.lists(st.tuples(st.lists(st.integers(0, 20), unique=True, max_size=15),
                                st.lists(st.integers(0, 20), unique=True, max_size=15),
                                st.lists(st.integers(0, 3), min_size=30, max_size=30)),
                      min_size=1, max_size=5)


@settings(max_examples=200, deadline=None)
@given(topic_runs, st.sampled_from([0.5, 0.9, 0.95]), st.randoms(use_true_random=False),
       st.booleans())
def test_order_measures_of_all_topics_at_once_equal_ktu_and_rbo_bit_for_bit(spec, p, rnd,
                                                                            in_order):
    """reproduce's batched KTU and RBO (every topic in one pass) against ktu() and rbo() of
    each topic's rankings: ties in the scores, missing documents, empty and one-sided topics,
    rows in any order or as a system writes them (by topic, best first)."""
    rows = {"a": [], "b": []}
    topics = [f"t{i}" for i in range(len(spec))]
    for t, (da, db, sc) in zip(topics, spec):
        rows["a"] += [(t, f"x{d}", float(sc[i])) for i, d in enumerate(da)]
        rows["b"] += [(t, f"x{d}", float(sc[-1 - i])) for i, d in enumerate(db)]
    for k in rows:
        rnd.shuffle(rows[k])
        if in_order:  # grouped by topic (first appearance), scores descending, ties as shuffled
            first = {}
            for r in rows[k]:
                first.setdefault(r[0], len(first))
            rows[k].sort(key=lambda r: (first[r[0]], -r[2]))
    a, b = (pd.DataFrame(rows[k], columns=["query_id", "doc_id", "score"]) for k in "ab")
    if a.empty or b.empty:
        return
    # the rankings do not depend on the order of the rows (written in order: no sort at all)
    assert repro.rankings(a) == repro.rankings(a.iloc[::-1].reset_index(drop=True))
    kt, rb = repro._order_by_topic(a, b, topics, p)
    ra, rr = repro.rankings(a), repro.rankings(b)
    for i, t in enumerate(topics):
        x, y = ra.get(t, []), rr.get(t, [])
        want_k = repro.ktu(x, y) if x and y else float("nan")
        assert np.array_equal([kt[i]], [want_k], equal_nan=True), (t, x, y)
        assert np.array_equal([rb[i]], [repro.rbo(x, y, p)], equal_nan=True), (t, x, y)


def test_batched_intervals_equal_one_bootstrap_ci_each_bit_for_bit():
    """RMSE, nRMSE, ER and ΔRI share their resamples in reproduce; each interval equals
    rankbook.stats.bootstrap_ci of a statistic that looks the series up by resampled topic
    indices, one call per statistic (resamples within 1e-9 of the estimate count as ties
    with it, as reproduce counts them)."""
    from rankbook import stats

    rng = np.random.default_rng(3)
    o = rng.random((4, 60))
    r = np.clip(o + rng.normal(0, 0.1, o.shape), 0, 1)
    r[:, ::3] = o[:, ::3]  # ties at the estimate
    sq = np.stack([np.vstack([(x - y) ** 2, np.maximum(x, 1 - x) ** 2]) for x, y in zip(o, r)])
    eff = np.stack([np.vstack([o[0], o[1], r[0], r[1]]), np.vstack([o[2], o[3], r[2], r[3]])])
    cases = [(sq[:, :1], repro._rmse_stat), (sq, repro._nrmse_stat), (eff, repro._er_stat),
             (eff, repro._dri_stat)]
    got = repro._index_cis(cases, 0.95, 999, 7)
    for (data, fn), ci in zip(cases, got):
        q = data.shape[-1]

        def statistic(idx, axis=-1, data=data, fn=fn):
            idx = np.asarray(idx, dtype=np.int64)[0]
            if idx.ndim == 1:
                return fn(data[:, :, idx].mean(axis=-1))
            b, n = idx.shape
            counts = np.bincount((idx + (np.arange(b) * q)[:, None]).ravel(),
                                 minlength=b * q).reshape(b, q)
            values = fn(data @ (counts.T / n))
            if n < q:  # leave-one-out samples of the acceleration: as they are
                return values
            est = fn(data.mean(axis=-1))[:, None]
            return np.where(np.abs(values - est) <= 1e-9 * np.maximum(1, np.abs(est)), est,
                            values)

        with np.errstate(all="ignore"):
            want = stats.bootstrap_ci(np.broadcast_to(np.arange(q, dtype=float),
                                                      (data.shape[0], q)), statistic,
                                      n_resamples=999, seed=7)
        for f in ("estimate", "low", "high", "standard_error"):
            assert np.array_equal(getattr(ci, f), getattr(want, f), equal_nan=True), f
        assert ci.method == want.method


def test_mean_intervals_with_shared_draws_equal_one_bootstrap_ci_each_bit_for_bit():
    """The KTU and RBO means of reproduce share their index draws; each interval equals its
    own bootstrap_ci call (series of different lengths, values tied at the mean, percentile)."""
    from rankbook import stats

    rng = np.random.default_rng(4)
    series = [rng.random(50), np.round(rng.random(50), 1), rng.random(31),
              np.r_[np.zeros(25), np.ones(25)], np.full(50, 0.5)]
    for method in ("bca", "percentile"):
        got = stats._bootstrap_ci_of_mean_series(series, n_resamples=999, seed=11,
                                                 method=method)
        for x, ci in zip(series, got):
            want = stats.bootstrap_ci(x, n_resamples=999, seed=11, method=method)
            for f in ("estimate", "low", "high", "standard_error"):
                assert np.array_equal(getattr(ci, f), getattr(want, f), equal_nan=True), f
            assert (ci.method, ci.fallback, ci.n_resamples) == (want.method, want.fallback,
                                                                want.n_resamples)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1 / 3, 1.0]),
                          st.floats(0, 1)), min_size=2, max_size=40),
       st.sampled_from(["free", "equal", "shifted", "rounded"]))
def test_paired_t_test_p_value_equals_scipy_bit_for_bit(pairs, kind):
    """reproduce's paired t-test (without importing scipy.stats) against scipy's ttest_rel:
    free, identical, constantly shifted and coarse (tied) scores."""
    from scipy import stats

    o = np.array([a for a, _ in pairs])
    r = {"free": np.array([b for _, b in pairs]), "equal": o.copy(), "shifted": o + 0.125,
         "rounded": np.round(np.array([b for _, b in pairs]), 1)}[kind]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's precision-loss warning on equal scores
        want = float(stats.ttest_rel(o, r).pvalue)
    assert np.array_equal([repro._ttest_rel_p(o, r)], [want], equal_nan=True)


def test_ir_metadata_round_trip(tmp_path):
    meta = {"tag": "bm25-rerun", "research goal": {"description": "reproduce: Core17"},
            "platform": {"software": {"libraries": ["numpy", "scipy 1.17"]}}, "empty": None}
    path = tmp_path / "run.txt"
    repro.write_run(path, {"1": {"a": 1.5, "b": 2.0}}, meta)
    got = repro.read_ir_metadata(path)
    assert got.fields == {"tag": "bm25-rerun", "research goal": {"description":
                          "reproduce: Core17"}, "platform": {"software": {"libraries":
                          ["numpy", "scipy 1.17"]}}, "empty": None}
    from repro_eval.metadata import MetadataHandler
    assert MetadataHandler.read_metadata(str(path)) == got.fields  # repro_eval reads it too
    assert repro.rankings(path) == {"1": ["b", "a"]}  # the run reads past its header
    (tmp_path / "open.txt").write_text("# ir_metadata.start\n# tag: x\n1 Q0 a 1 1 t\n")
    with pytest.raises(ValueError, match="open.txt:1: .*never closed"):
        repro.read_ir_metadata(tmp_path / "open.txt")
    (tmp_path / "flow.txt").write_text("# ir_metadata.start\n# tags: [a, b]\n"
                                       "# ir_metadata.end\n1 Q0 a 1 1 t\n")
    flow = repro.read_ir_metadata(tmp_path / "flow.txt")
    assert flow.fields is None and "tags: [a, b]" in flow.text
    assert repro.read_ir_metadata(tmp_path / "run.txt").flat()[0] == ("tag", "bm25-rerun")


def test_the_page_tidy_table_is_the_explorer_data():
    """The page's numbers-only table (``measures_tidy``, plotted by its explorer) repeats the
    aggregate values, and gives repro_eval's KTU where the tool gives one."""
    from rankbook.papers.tools import reproducibility as page

    runs = page.build_runs(4, 8, noise=0.5, truncate=2, seed=2)
    section = page.measure_all(runs, ["AP", "P@5"], n_resamples=100)
    tidy = section.tables["measures_tidy"]
    assert section.options("measures_tidy") == {"show": False}
    assert list(tidy.columns) == ["reproduction", "system", "measure", "value", "low", "high"]
    for name, res in section.values["results"].items():
        agg = res.aggregate
        mine = tidy[tidy.reproduction == name].set_index(["system", "measure"])["value"]
        for r in agg[(agg.level == "order") | (agg.statistic == "RMSE")].itertuples():
            label = (page.ORDER_NAMES[r.measure] if r.level == "order"
                     else f"RMSE of {r.measure}")
            assert mine[r.system, label] == r.value
    tool = tidy[tidy.measure == page.TOOL_KTU].set_index(["reproduction", "system"])["value"]
    assert tool["exact rerun", "baseline"] == 1.0 == tool["exact rerun", "advanced"]
    assert np.isnan(tool["truncated lists", "baseline"])  # repro_eval refuses unequal lengths
    ob, _ = runs["original"]
    rb = runs["noisy rerun"][0]
    ro, rr = repro.rankings(ob), repro.rankings(rb)
    assert tool["noisy rerun", "baseline"] == pytest.approx(
        np.mean([repro.ktu(ro[t], rr[t], convention="repro_eval") for t in ro]))
    assert "other topics" not in set(tool.index.get_level_values(0))  # no pairing: no KTU


def test_explicit_order_is_scored_as_given_under_every_profile():
    """pytrec_eval #56: the list [d1, d2, d3] with only d3 relevant has AP 1/3 as given; every
    profile scores the explicit order so, whatever scores would say."""
    qrels = {"1": {"d1": 0, "d2": 0, "d3": 1}, "2": {"a": 1}}
    given = {"1": ["d1", "d2", "d3"], "2": ["a"]}
    for conv in ("trec_eval", "trec_eval_9", "pytrec_eval", "ir_measures", "ranx"):
        res = repro.reproduce(given, None, given, None, qrels, measures="AP", order="rank",
                              convention=conv, n_resamples=100)
        pt = res.per_topic[(res.per_topic.measure == "AP") & (res.per_topic.query_id == "1")]
        assert pt["orig"].iloc[0] == pytest.approx(1 / 3), conv
    with pytest.raises(ValueError, match="list of documents"):
        repro.explicit_order({"1": {"d1": 1.0}})
    with pytest.raises(ValueError, match="appears twice"):
        repro.explicit_order(pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"],
                                           "rank": [1, 1]}))
    with pytest.raises(ValueError, match="order must be one of 'score', 'rank'; got 'sideways'"):
        repro.reproduce(given, None, given, None, qrels, order="sideways")


def test_an_effect_ratio_without_original_improvement_is_said_undefined():
    """The original advanced run equals the baseline: ER divides by 0. The table keeps the
    division's inf or nan (as repro_eval), and the text report says why, not ``inf``."""
    qrels, _, (ob, _, rb, ra), _ = _quadruple(5)
    res = repro.reproduce(ob, ob, rb, ra, qrels, measures="AP", n_resamples=100)
    er = _agg(res, "advanced vs baseline", "AP", "ER")
    assert not np.isfinite(er.value)
    text = res.report()
    assert "undefined (no original improvement)" in text
    assert er.interval == "none"  # no interval, and the table does not claim a method for it
    assert " inf " not in text and " nan " not in text
    fine = repro.reproduce(ob, ra, rb, ra, qrels, measures="AP", n_resamples=100)
    assert np.isfinite(_agg(fine, "advanced vs baseline", "AP", "ER").value)
    assert "undefined (no original" not in fine.report()


@pytest.mark.parametrize("measure", ["AP", "nDCG@10"])
def test_effect_and_error_intervals_equal_scipy_bootstrap_with_exact_ties(measure):
    """The six-topic example: many resamples tie the ER, ΔRI or RMSE estimate exactly, and
    floating point puts some of them one bit off, on a side that depends on how the statistic
    is written (a new user got ER intervals 0.01 apart from scipy's). reproduce counts exact
    ties as ties: its intervals equal scipy.stats.bootstrap (paired, same seed) of the
    statistic written over the resampled arrays, with values within 1e-9 of the estimate
    taken as the estimate."""
    import warnings

    import scipy.stats as ss

    from rankbook.conventions import evaluate_run

    folder = "examples/reproduce/"
    names = ["orig_baseline", "orig_advanced", "rep_baseline", "rep_advanced"]
    paths = [f"{folder}{n}.txt" for n in names]
    res = repro.reproduce(*paths, f"{folder}qrels.txt", measures=measure, n_resamples=9999,
                          seed=0)
    ob, oa, rb, ra = [evaluate_run(f"{folder}qrels.txt", p, [measure]).per_query.value.values
                      for p in paths]

    def snapped(f, est):
        def g(*a, axis=-1):
            x = np.asarray(f(*a, axis=axis), dtype=float)
            return np.where(np.abs(x - est) <= 1e-9 * max(1, abs(est)), est, x)
        return g

    def er(ob, oa, rb, ra, axis=-1):
        return (ra - rb).mean(axis) / (oa - ob).mean(axis)

    def dri(ob, oa, rb, ra, axis=-1):
        return ((oa.mean(axis) - ob.mean(axis)) / ob.mean(axis)
                - (ra.mean(axis) - rb.mean(axis)) / rb.mean(axis))

    def rmse(o, r, axis=-1):
        return np.sqrt(((r - o) ** 2).mean(axis))

    cases = [("advanced vs baseline", "ER", er, (ob, oa, rb, ra)),
             ("advanced vs baseline", "ΔRI", dri, (ob, oa, rb, ra)),
             ("baseline", "RMSE", rmse, (ob, rb)), ("advanced", "RMSE", rmse, (oa, ra))]
    ties = 0
    for system, stat, f, data in cases:
        est = float(f(*data))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = ss.bootstrap(data, snapped(f, est), paired=True, n_resamples=9999,
                                rng=0).confidence_interval
        row = _agg(res, system, measure, stat)
        assert (row.low, row.high) == pytest.approx(tuple(want), abs=1e-9), (stat, system)
        idx = np.random.default_rng(0).integers(0, len(ob), size=(9999, len(ob)))
        ties += int(np.sum(snapped(f, est)(*[x[idx] for x in data], axis=-1) == est))
    assert ties > 100  # the example does test ties


def test_the_page_says_what_the_appendix_shows_about_the_readme_example():
    """The tools ledger's claim on repro_eval's Core17 example, checked against the appendix data
    of Breuer et al. (fetched): imprecise (the misaligned paired t-tests), its RBO lines at the
    files' persistence while repro_eval's default differs, and the page's sentences read from the
    evidence; without the data, one sentence says it is not checkable."""
    from rankbook.ledger import claims, fetch
    from rankbook.papers.tools import reproducibility as page

    claim = claims.ledger().claim("T-Core17")
    try:
        fetch.files("breuer2020", download=False)
    except fetch.DataUnavailable:
        ev = claims.check("T-Core17")
        assert ev.status == "not checkable"
        assert page.core17_appendix_sentences(ev, 0.8)[0].startswith("Not checkable")
        pytest.skip("the appendix files are not available (no mirror, no cache)")
    ev = claims.check("T-Core17")
    assert (ev.status, ev.matched, ev.total) == ("imprecise", 30, 38)
    book = claims.ledger()
    assert {book.errata[f.id].role for f in ev.findings} == {"misaligned_ttest", "rbo_default"}
    lines = page.core17_appendix_sentences(ev, claim.params["files_rbo_p"])
    assert f"$p = {claim.params['files_rbo_p']:g}$, on 4 of 4 rows" in lines[0]
    assert "paired p-values on 0 of 6" in lines[2]
    if ev.tables["readme"].attrs.get("tool"):
        assert "give 30 of the 30 values" in lines[3] and "misaligned topics included" in lines[3]
    unavailable = claims.unavailable(claim, "no data here")
    assert page.core17_appendix_sentences(unavailable, 0.8)[0].startswith("Not checkable")
