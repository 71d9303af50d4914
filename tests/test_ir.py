"""rankbook.ir against scikit-learn, ir_measures (pytrec_eval), ranx and scipy, brute force on
small inputs, the statements of seeds 001 and 004, and hypothesis properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import ir

RNG_SEED = 20240607

relevance_lists = st.lists(st.integers(0, 4), min_size=0, max_size=12)
nonempty_relevance = st.lists(st.integers(0, 4), min_size=1, max_size=12)
ks = st.integers(1, 15)


# ------------------------------------------------------------------------------------------
# scikit-learn: dcg_score / ndcg_score share our linear gain, ideal from the list itself, the
# ideal cut at k and (by default) tie averaging.


def _random_query(rng, n):
    y_true = rng.integers(0, 4, size=n).astype(float)
    y_score = np.round(rng.random(n), 1)  # coarse scores: many ties
    return y_true, y_score


@pytest.mark.parametrize("seed", range(40))
def test_ndcg_and_dcg_match_scikit_learn_with_tie_averaging(seed):
    from sklearn.metrics import dcg_score, ndcg_score

    rng = np.random.default_rng(RNG_SEED + seed)
    n = int(rng.integers(2, 15))
    y_true, y_score = _random_query(rng, n)
    k = None if seed % 3 == 0 else int(rng.integers(1, n + 2))
    for base in (2, 10):
        ours = ir.dcg(y_true, k=k, scores=y_score, ties="average", log_base=base)
        theirs = dcg_score([y_true], [y_score], k=k, log_base=base)
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12)
    if y_true.sum() > 0:
        ours = ir.ndcg(y_true, k=k, scores=y_score, ties="average")
        assert ours == pytest.approx(ndcg_score([y_true], [y_score], k=k), rel=1e-12)
    else:  # scikit-learn returns 0 where nDCG is undefined; we return nan
        assert math.isnan(ir.ndcg(y_true, k=k, scores=y_score))
        assert ndcg_score([y_true], [y_score], k=k) == 0.0


@pytest.mark.parametrize("seed", range(20))
def test_every_tie_rule_matches_scikit_learn_without_ties(seed):
    from sklearn.metrics import dcg_score, ndcg_score

    rng = np.random.default_rng(RNG_SEED + 100 + seed)
    n = int(rng.integers(2, 12))
    y_true, y_score = rng.integers(0, 4, size=n).astype(float), rng.permutation(n) / n
    k = int(rng.integers(1, n + 1))
    for ties in ir.TIES:
        for ignore_ties in (True, False):
            theirs = dcg_score([y_true], [y_score], k=k, ignore_ties=ignore_ties)
            assert ir.dcg(y_true, k=k, scores=y_score, ties=ties) == pytest.approx(theirs, abs=1e-12)
            if y_true.sum() > 0:
                theirs = ndcg_score([y_true], [y_score], k=k, ignore_ties=ignore_ties)
                assert ir.ndcg(y_true, k=k, scores=y_score, ties=ties) == pytest.approx(theirs)


def test_tie_average_is_the_mean_over_all_tie_orders():
    rng = np.random.default_rng(RNG_SEED + 7)
    for _ in range(20):
        n = int(rng.integers(2, 7))
        y_true, y_score = _random_query(rng, n)
        y_score = np.round(y_score * 3) / 3  # at most 4 levels: big tie groups
        k = int(rng.integers(1, n + 1))
        values = []
        for perm in itertools.permutations(range(n)):
            perm = np.array(perm)
            order = perm[np.argsort(-y_score[perm], kind="stable")]
            values.append(ir.dcg(y_true[order], k=k, gain="exponential"))
        assert ir.dcg(y_true, k=k, scores=y_score, gain="exponential") == pytest.approx(np.mean(values))


def test_pessimistic_and_optimistic_bracket_average():
    y_true, y_score = np.array([0, 3, 1, 2.0]), np.array([0.5, 0.5, 0.5, 0.1])
    lo = ir.dcg(y_true, scores=y_score, ties="pessimistic")
    mid = ir.dcg(y_true, scores=y_score, ties="average")
    hi = ir.dcg(y_true, scores=y_score, ties="optimistic")
    assert lo < mid < hi


# ------------------------------------------------------------------------------------------
# ir_measures (pytrec_eval, i.e. trec_eval): ideal from all judged items, binary relevance
# rel > 0, P@k divides by k, AP divides by all relevant items.


def _trec_query(rng, qid):
    n_judged = int(rng.integers(1, 12))
    judged = {f"d{j}": int(rng.integers(0, 4)) for j in range(n_judged)}
    judged[f"d{int(rng.integers(0, n_judged))}"] = int(rng.integers(1, 4))  # >= 1 relevant
    pool = [f"d{j}" for j in range(n_judged + 6)]  # some retrieved items are unjudged
    n_ret = int(rng.integers(0, len(pool) + 1))
    retrieved = list(rng.permutation(pool)[:n_ret])
    scores = {doc: float(len(retrieved) - i) for i, doc in enumerate(retrieved)}  # no ties
    return judged, retrieved, scores


@pytest.mark.parametrize("seed", range(30))
def test_measures_match_ir_measures(seed):
    import ir_measures
    from ir_measures import AP, P, R, RR, Qrel, ScoredDoc, nDCG

    rng = np.random.default_rng(RNG_SEED + 200 + seed)
    judged, retrieved, scores = _trec_query(rng, "q")
    qrels = [Qrel("q", d, r) for d, r in judged.items()]
    run = [ScoredDoc("q", d, s) for d, s in scores.items()]
    rel = [judged.get(d, 0) for d in retrieved]
    ideal = list(judged.values())
    m = sum(r > 0 for r in ideal)
    k = int(rng.integers(1, 12))
    gains = {g: 2**g - 1 for g in range(4)}
    measures = [P @ k, R @ k, AP, AP @ k, RR, nDCG, nDCG @ k]
    expected = {}
    if run:
        # the custom-gain nDCG goes in its own call: evaluated together with plain nDCG,
        # ir_measures 0.4.3 applies the custom gains to the plain nDCG as well
        for group in (measures, [nDCG(gains=gains) @ k]):
            expected.update({str(r.measure): r.value for r in ir_measures.iter_calc(group, qrels, run)})
    got = {
        str(P @ k): ir.precision_at_k(rel, k),
        str(R @ k): ir.recall_at_k(rel, k, n_relevant=m),
        str(AP): ir.average_precision(rel, n_relevant=m),
        str(AP @ k): ir.average_precision(rel, n_relevant=m, k=k),
        str(RR): ir.reciprocal_rank(rel),
        str(nDCG): ir.ndcg(rel, ideal=ideal),
        str(nDCG @ k): ir.ndcg(rel, k=k, ideal=ideal),
        str(nDCG(gains=gains) @ k): ir.ndcg(rel, k=k, ideal=ideal, gain="exponential"),
    }
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name
    if not run:  # trec_eval has nothing to score; ours: every measure is 0
        assert all(v == 0 for v in got.values())


def test_batch_helpers_match_ir_measures_aggregates():
    import ir_measures
    from ir_measures import AP, RR, Qrel, ScoredDoc, nDCG

    rng = np.random.default_rng(RNG_SEED + 300)
    qrels, run, rels, ideals, ms = [], [], [], [], []
    for q in range(60):
        judged, retrieved, scores = _trec_query(rng, str(q))
        if not retrieved:
            continue
        qrels += [Qrel(str(q), d, r) for d, r in judged.items()]
        run += [ScoredDoc(str(q), d, s) for d, s in scores.items()]
        rels.append([judged.get(d, 0) for d in retrieved])
        ideals.append(list(judged.values()))
        ms.append(sum(r > 0 for r in judged.values()))
    agg = ir_measures.calc_aggregate([AP @ 5, RR, nDCG @ 5], qrels, run)
    assert ir.mean_average_precision(rels, n_relevant=ms, k=5) == pytest.approx(agg[AP @ 5])
    assert ir.mean_reciprocal_rank(rels) == pytest.approx(agg[RR])
    assert ir.mean_ndcg(rels, k=5, ideal=ideals) == pytest.approx(agg[nDCG @ 5])


@pytest.mark.slow
def test_padded_batch_matches_ranx():
    from ranx import Qrels, Run, evaluate

    rng = np.random.default_rng(RNG_SEED + 400)
    n_q, width = 300, 30
    rel = rng.integers(0, 3, size=(n_q, width)) * (rng.random((n_q, width)) < 0.3)
    rel[:, 0] += rel.sum(axis=1) == 0  # every query has a relevant item
    lengths = np.full(n_q, width)
    qrels = {f"q{q}": {f"d{j}": int(rel[q, j]) for j in range(width) if rel[q, j] > 0} for q in range(n_q)}
    run = {f"q{q}": {f"d{j}": float(width - j) for j in range(width)} for q in range(n_q)}
    res = evaluate(Qrels(qrels), Run(run), ["map@10", "mrr", "ndcg@10", "ndcg_burges@10"])
    padded = np.where(np.arange(width + 5)[None, :] < width, np.pad(rel, ((0, 0), (0, 5))), 7.0)
    assert ir.mean_average_precision(padded, lengths=lengths, k=10) == pytest.approx(res["map@10"])
    assert ir.mean_reciprocal_rank(padded, lengths=lengths) == pytest.approx(res["mrr"])
    assert ir.mean_ndcg(padded, lengths=lengths, k=10) == pytest.approx(res["ndcg@10"])
    assert ir.mean_ndcg(padded, lengths=lengths, k=10, gain="exponential") == pytest.approx(res["ndcg_burges@10"])


# ------------------------------------------------------------------------------------------
# scipy for Kendall's tau: distance, FCP and NDPM on tie-free inputs


@pytest.mark.parametrize("seed", range(20))
def test_pair_measures_against_scipy_kendall(seed):
    from scipy.stats import kendalltau

    rng = np.random.default_rng(RNG_SEED + 500 + seed)
    n = int(rng.integers(2, 40))
    a = list(rng.permutation(n))
    b = list(rng.permutation(n))
    pos_a = np.argsort(a)
    pos_b = np.argsort(b)
    tau = kendalltau(pos_a, pos_b).statistic
    assert ir.kendall_tau_distance_at_k(a, b) == pytest.approx((1 - tau) / 2)
    ref, sys_ = rng.random(n), rng.random(n)
    tau = kendalltau(ref, sys_).statistic
    assert ir.fcp(ref, sys_) == pytest.approx((1 + tau) / 2)
    assert ir.ndpm(ref, sys_) == pytest.approx((1 - tau) / 2)


def _pairs_brute(ref, sys_):
    agree = disagree = compatible = 0
    for i, j in itertools.combinations(range(len(ref)), 2):
        if ref[i] == ref[j]:
            continue
        hi, lo = (i, j) if ref[i] > ref[j] else (j, i)
        if sys_[hi] > sys_[lo]:
            agree += 1
        elif sys_[hi] < sys_[lo]:
            disagree += 1
        else:
            compatible += 1
    return agree, disagree, compatible


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=0, max_size=15))
def test_ndpm_and_fcp_with_ties_brute_force(pairs):
    ref = [p[0] for p in pairs]
    sys_ = [p[1] for p in pairs]
    a, d, c = _pairs_brute(ref, sys_)
    total = a + d + c
    if total == 0:
        assert math.isnan(ir.ndpm(ref, sys_))
        assert math.isnan(ir.fcp(ref, sys_))
        return
    assert ir.ndpm(ref, sys_) == pytest.approx((2 * d + c) / (2 * total))
    assert ir.fcp(ref, sys_) == pytest.approx(a / total)
    assert ir.fcp(ref, sys_, ties="half") == pytest.approx((a + c / 2) / total)
    if a + d:
        assert ir.fcp(ref, sys_, ties="omit") == pytest.approx(a / (a + d))


def _weak_orders(n):
    """All weak orders of n items as score vectors (levels 0..n-1)."""
    seen = set()
    for levels in itertools.product(range(n), repeat=n):
        used = sorted(set(levels))
        canon = tuple(used.index(v) for v in levels)
        if canon not in seen:
            seen.add(canon)
            yield canon


@pytest.mark.parametrize("ref", [[3, 2, 1], [2, 2, 1, 0], [1, 0, 1, 0], [3, 2, 1, 0]])
def test_ndpm_normaliser_is_the_largest_distance(ref):
    """Seed 001 normalises by the distance of the farthest ranking: brute force over all weak
    orders confirms it is 2 x (pairs ordered by the reference), reached by the reversal."""
    a, d, c = _pairs_brute(ref, ref)
    dists = [2 * _pairs_brute(ref, w)[1] + _pairs_brute(ref, w)[2] for w in _weak_orders(len(ref))]
    assert max(dists) == 2 * a
    assert ir.ndpm(ref, [-v for v in ref]) == 1.0


def test_kendall_tau_distance_at_k_uses_union_of_tops():
    # top-2 of a = {a, b}, of b = {c, a}: union {a, b, c}; a: a<b<c, b: c<a<b -> 2 of 3 pairs flip
    assert ir.kendall_tau_distance_at_k("abcd", "cabd", k=2) == pytest.approx(2 / 3)
    assert ir.kendall_tau_distance_at_k("abcd", "abcd", k=2) == 0.0
    assert math.isnan(ir.kendall_tau_distance_at_k("a", "a"))


# ------------------------------------------------------------------------------------------
# statements of the seeds


def test_notes_two_dcg_formulations_agree_on_binary_relevance():
    rel = [1, 0, 1, 1, 0]
    assert ir.dcg(rel) == ir.dcg(rel, gain="exponential")


def test_log_base_cancels_in_ndcg_for_both_gains():
    """Seed 001 says the log base matters for nDCG with exponential gain; it does not."""
    rel = [2, 3, 0, 1, 3]
    for gain in ir.GAINS:
        values = [ir.ndcg(rel, gain=gain, log_base=b) for b in (2, math.e, 10)]
        assert values == pytest.approx([values[0]] * 3, rel=1e-14)
        assert ir.dcg(rel, gain=gain, log_base=2) != pytest.approx(ir.dcg(rel, gain=gain, log_base=10))


def test_cg_ignores_order_and_reciprocal_rank_examples():
    assert ir.cg([3, 0, 1]) == ir.cg([0, 1, 3]) == 4
    assert [ir.reciprocal_rank(r) for r in ([1], [0, 1], [0, 0, 1], [0, 0])] == [1, 0.5, 1 / 3, 0]
    assert ir.mean_reciprocal_rank([[1], [0, 1], [0, 0, 1], [0, 0]]) == pytest.approx((1 + 0.5 + 1 / 3) / 4)


def test_average_precision_examples():
    # blog note / notes: AP@N = (1/m) sum_k P@k I(k)
    assert ir.average_precision([1, 0, 1, 0, 1], n_relevant=4) == pytest.approx((1 + 2 / 3 + 3 / 5) / 4)
    assert ir.average_precision([1, 0, 1, 0, 1], n_relevant=4, k=3) == pytest.approx((1 + 2 / 3) / 4)
    assert math.isnan(ir.average_precision([0, 0]))
    assert ir.average_precision([], n_relevant=2) == 0.0


def test_r_score_half_life():
    # the item at position alpha is worth half the first one
    assert ir.r_score([0, 0, 0, 4], d=2, alpha=4) == pytest.approx(ir.r_score([4], d=2, alpha=4) / 2)
    assert ir.r_score([1, 2], d=3, alpha=2) == 0.0
    assert math.isnan(ir.r_score([1, 2], d=3, alpha=2, normalize=True))


def test_ideal_cut_full_lowers_ndcg_at_k():
    rel = [3, 2, 1, 0]
    assert ir.ndcg(rel, k=2) == 1.0
    assert ir.ndcg(rel, k=2, ideal_cut="full") < 1.0
    assert ir.ndcg(rel, k=2, ideal=[3, 3, 2, 1]) < 1.0  # a relevant item was not returned


# ------------------------------------------------------------------------------------------
# properties


@settings(max_examples=150, deadline=None)
@given(relevance_lists, ks, st.integers(0, 6))
def test_bounded_measures_lie_in_unit_interval(rel, k, extra):
    m = sum(r > 0 for r in rel) + extra
    values = [
        ir.precision_at_k(rel, k),
        ir.recall_at_k(rel, k, n_relevant=m),
        ir.f1_at_k(rel, k, n_relevant=m),
        ir.hit_at_k(rel, k),
        ir.average_precision(rel, n_relevant=m, k=k),
        ir.average_precision(rel, n_relevant=m),
        ir.reciprocal_rank(rel, k=k),
        ir.r_score(rel, d=1, alpha=1 + k / 3, normalize=True),
    ]
    for gain in ir.GAINS:
        values += [
            ir.ndcg(rel, k=k, gain=gain),
            ir.ndcg(rel, k=k, gain=gain, ideal=list(rel) + [4] * extra),
            ir.ndcg(rel, k=k, gain=gain, ideal_cut="full"),
        ]
    for v in values:
        assert math.isnan(v) or 0.0 <= v <= 1.0


@settings(max_examples=100, deadline=None)
@given(nonempty_relevance, ks)
def test_ndcg_is_one_for_the_ideal_order(rel, k):
    ideal = sorted(rel, reverse=True)
    v = ir.ndcg(ideal, k=k, gain="exponential")
    assert math.isnan(v) or v == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(relevance_lists, min_size=1, max_size=6), st.one_of(st.none(), ks))
def test_batch_padded_and_list_agree_with_single_list_functions(batch, k):
    per_q_ap = ir.mean_average_precision(batch, k=k, reduce=False)
    per_q_rr = ir.mean_reciprocal_rank(batch, k=k, reduce=False)
    per_q_nd = ir.mean_ndcg(batch, k=k, reduce=False, gain="exponential")
    for q, rel in enumerate(batch):
        np.testing.assert_allclose(per_q_ap[q], ir.average_precision(rel, k=k))
        np.testing.assert_allclose(per_q_rr[q], ir.reciprocal_rank(rel, k=k))
        np.testing.assert_allclose(per_q_nd[q], ir.ndcg(rel, k=k, gain="exponential"))
    width = max(len(r) for r in batch) + 2
    padded = np.full((len(batch), width), -5.0)  # garbage padding is ignored
    for q, rel in enumerate(batch):
        padded[q, : len(rel)] = rel
    lengths = np.array([len(r) for r in batch])
    np.testing.assert_allclose(ir.mean_average_precision(padded, lengths=lengths, k=k, reduce=False), per_q_ap)
    np.testing.assert_allclose(ir.mean_ndcg(padded, lengths=lengths, k=k, gain="exponential", reduce=False), per_q_nd)
    for policy in ir.NAN_POLICIES:
        ir.mean_ndcg(batch, k=k, nan_policy=policy)


def test_nan_policies():
    batch = [[1, 0], [0, 0]]
    assert math.isnan(ir.mean_ndcg(batch))
    assert ir.mean_ndcg(batch, nan_policy="omit") == 1.0
    assert ir.mean_ndcg(batch, nan_policy="zero") == 0.5


# ------------------------------------------------------------------------------------------
# evaluate: several batch measures in one call equal the individual helpers exactly


def _random_batch(rng, n_q, width, kind):
    """A ragged batch (list of lists, some empty, some all zero) of one of three value kinds."""
    lengths = rng.integers(0, width + 1, size=n_q)
    lengths[rng.random(n_q) < 0.15] = 0  # empty lists
    batch = []
    for n in lengths:
        if kind == "grades":  # whole grades: the counting path of the ideal top-k
            rel = rng.choice([0, 0, 0, 1, 2, 3], size=n).astype(float)
        elif kind == "many grades":  # whole numbers above the counting limit: sorted instead
            rel = rng.integers(0, 40, size=n) * (rng.random(n) < 0.4).astype(float)
        else:  # fractional relevance (e.g. averaged judgements): sorted
            rel = np.round(rng.random(n) * 3, 2) * (rng.random(n) < 0.4)
        if rng.random() < 0.2:
            rel[:] = 0.0  # all-zero relevance: AP and nDCG undefined
        batch.append(rel)
    return batch, lengths


def _padded(batch, lengths, extra, fill):
    out = np.full((len(batch), max(lengths, default=0) + extra), fill)
    for q, rel in enumerate(batch):
        out[q, : len(rel)] = rel
    return out


@pytest.mark.parametrize("seed", range(12))
def test_evaluate_equals_the_individual_helpers_exactly(seed):
    rng = np.random.default_rng(RNG_SEED + 500 + seed)
    kind = ("grades", "many grades", "fractional")[seed % 3]
    batch, lengths = _random_batch(rng, int(rng.integers(1, 40)), int(rng.integers(0, 25)), kind)
    fill = (np.nan, -3.0, 7.0, np.inf)[seed % 4]  # whatever the padding holds is ignored
    padded = _padded(batch, lengths, extra=int(rng.integers(0, 4)), fill=fill)
    n_rel = np.array([int((r > 0).sum()) for r in batch]) + rng.integers(0, 3, size=len(batch))
    ideal = [np.concatenate([r, rng.integers(0, 4, size=int(rng.integers(0, 4)))]) for r in batch]
    measures = ["ndcg", "ndcg@1", "ndcg@5", "ndcg@10", "ap", "ap@3", "ap@10", "rr", "rr@2", "rr@10"]
    for nan_policy in ir.NAN_POLICIES:
        for gain in ir.GAINS:
            for ideal_cut in ir.IDEAL_CUTS:
                for use_ideal in (False, True):
                    extra = dict(ideal=ideal) if use_ideal else {}
                    for reduce in (True, False):
                        for data, lens in ((batch, None), (padded, lengths)):
                            opts = dict(nan_policy=nan_policy, reduce=reduce)
                            got = ir.evaluate(data, measures, lengths=lens, n_relevant=n_rel, gain=gain,
                                              ideal_cut=ideal_cut, **extra, **opts)
                            assert list(got) == measures
                            for name in measures:
                                base, _, cut = name.partition("@")
                                k = int(cut) if cut else None
                                if base == "ap":
                                    want = ir.mean_average_precision(data, lengths=lens, n_relevant=n_rel, k=k, **opts)
                                elif base == "rr":
                                    want = ir.mean_reciprocal_rank(data, lengths=lens, k=k, reduce=reduce)
                                else:
                                    want = ir.mean_ndcg(data, lengths=lens, k=k, gain=gain, ideal_cut=ideal_cut,
                                                        **extra, **opts)
                                # same kernels on the same arrays: equal to the last bit
                                np.testing.assert_array_equal(got[name], want, err_msg=name)


@settings(max_examples=80, deadline=None)
@given(st.lists(relevance_lists, min_size=0, max_size=7), st.one_of(st.none(), ks),
       st.sampled_from(ir.NAN_POLICIES), st.sampled_from(ir.GAINS))
def test_evaluate_agrees_with_single_list_functions(batch, k, nan_policy, gain):
    measures = ["ap", "rr", "ndcg"] if k is None else [f"ap@{k}", f"rr@{k}", f"ndcg@{k}"]
    per_q = ir.evaluate(batch, measures, gain=gain, reduce=False)
    for q, rel in enumerate(batch):
        np.testing.assert_allclose(per_q[measures[0]][q], ir.average_precision(rel, k=k))
        np.testing.assert_allclose(per_q[measures[1]][q], ir.reciprocal_rank(rel, k=k))
        np.testing.assert_allclose(per_q[measures[2]][q], ir.ndcg(rel, k=k, gain=gain))
    means = ir.evaluate(batch, measures, gain=gain, nan_policy=nan_policy)
    for name, values in per_q.items():
        values = np.asarray(values)
        if nan_policy == "zero":
            values = np.nan_to_num(values, nan=0.0)
        elif nan_policy == "omit" or name.startswith("rr"):
            values = values[~np.isnan(values)]
        want = values.mean() if values.size else math.nan
        if math.isnan(want):
            assert math.isnan(means[name])
        else:
            assert means[name] == pytest.approx(want, rel=1e-12)


def test_evaluate_edge_cases():
    # no queries, only empty lists, only zero relevance
    assert all(math.isnan(v) for v in ir.evaluate([], ["ap", "rr", "ndcg@3"]).values())
    out = ir.evaluate([[], []], ["ap", "rr", "ndcg@3"], reduce=False)
    assert np.isnan(out["ap"]).all() and (out["rr"] == 0).all() and np.isnan(out["ndcg@3"]).all()
    out = ir.evaluate(np.zeros((3, 4)), ["ap", "rr", "ndcg"], nan_policy="zero")
    assert out == {"ap": 0.0, "rr": 0.0, "ndcg": 0.0}
    assert math.isnan(ir.evaluate(np.zeros((3, 4)), "ndcg", nan_policy="omit")["ndcg"])
    assert ir.evaluate(np.zeros((0, 5)), "rr", reduce=False)["rr"].shape == (0,)
    # a single name is accepted; a cut beyond the list length is the whole list
    assert ir.evaluate([[0, 2, 1]], "ndcg@50") == {"ndcg@50": ir.mean_ndcg([[0, 2, 1]])}
    # the caller's array is neither copied into nor written to
    rel = np.array([[3.0, 0.0, 1.0], [0.0, 0.0, 2.0]])
    before = rel.copy()
    ir.evaluate(rel, ["ap", "rr", "ndcg@2"], gain="exponential")
    np.testing.assert_array_equal(rel, before)


@pytest.mark.parametrize("seed", range(6))
def test_ideal_top_k_counting_path_equals_sorting(seed):
    rng = np.random.default_rng(RNG_SEED + 600 + seed)
    top = 1 + seed * 3  # grades 0..top: counted up to the limit, sorted above it
    values = rng.integers(0, top + 1, size=(50, 30)).astype(float)
    values[rng.random(values.shape) < 0.5] = 0.0
    expected = -np.sort(-values, axis=1)
    for k in (None, 1, 5, 30, 100):
        got = ir._top_k(values, k)
        np.testing.assert_array_equal(got, expected[:, : (30 if k is None else min(k, 30))])
        np.testing.assert_array_equal(ir._top_k(values + 0.25 * (values > 0), k),
                                      (expected + 0.25 * (expected > 0))[:, : got.shape[1]])


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: ir.evaluate([[1, 0]], ["map"]), ["'map'", "'ap'", "'rr'", "'ndcg'", "ndcg@10"]),
        (lambda: ir.evaluate([[1, 0]], ["ndcg@0"]), ["'ndcg@0'", "k >= 1"]),
        (lambda: ir.evaluate([[1, 0]], ["ndcg@x"]), ["'ndcg@x'"]),
        (lambda: ir.evaluate([[1, 0]], [10]), ["10", "string"]),
        (lambda: ir.evaluate([[1, 0]], []), ["empty", "'ap'"]),
        (lambda: ir.evaluate([[1, 0]], ["ap"], nan_policy="drop"), ["nan_policy", "omit"]),
        (lambda: ir.evaluate([[1, 0]], ["ndcg"], gain="exp"), ["gain must be one of 'linear', 'exponential'", "got 'exp'"]),
        (lambda: ir.evaluate([[1, 0]], ["ndcg"], ideal_cut="none"), ["ideal_cut", "'full'"]),
        (lambda: ir.evaluate([[3, 0]], ["ndcg"], ideal=[[1, 1]]), ["not a valid ideal"]),
        (lambda: ir.evaluate([[1, 1]], ["ap"], n_relevant=[1]), ["smaller than the 2 relevant"]),
        (lambda: ir.evaluate(np.array([[1.0, np.nan]]), ["rr"]), ["finite"]),
        (lambda: ir.evaluate(np.array([[1.0, np.inf]]), ["rr"]), ["finite"]),
        (lambda: ir.evaluate(np.array([[1.0, -0.5]]), ["rr"]), ["must be >= 0", "-0.5"]),
        (lambda: ir.evaluate(np.array([[1.0, -0.5, 2.0]]), ["rr"], lengths=[3]), ["must be >= 0"]),
        (lambda: ir.mean_reciprocal_rank(np.array([[np.nan, 1.0]]), lengths=[1]), ["finite"]),
    ],
)
def test_evaluate_bad_input_raises_value_error_naming_the_problem(call, words):
    with pytest.raises(ValueError) as info:
        call()
    for w in words:
        assert w in str(info.value)


# ------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: ir.precision_at_k([1, -1], 1), ["must be >= 0", "position 1"]),
        (lambda: ir.precision_at_k([1, 0], 0), ["k must be an integer >= 1", "got 0"]),
        (lambda: ir.precision_at_k([1, 0], 1.5), ["integer >= 1"]),
        (lambda: ir.precision_at_k([1, 0], None), ["k is required"]),
        (lambda: ir.precision_at_k([[1, 0]], 1), ["1-D"]),
        (lambda: ir.precision_at_k([1, float("nan")], 1), ["finite"]),
        (lambda: ir.dcg([1, 0], gain="exp"), ["gain must be one of 'linear', 'exponential'", "got 'exp'"]),
        (lambda: ir.dcg([1, 0], scores=[1, 2], ties="random"), ["ties must be one of", "'average'", "got 'random'"]),
        (lambda: ir.dcg([1, 0], log_base=1), ["log_base", "> 1"]),
        (lambda: ir.dcg([1, 0], scores=[1]), ["scores has 1"]),
        (lambda: ir.ndcg([1, 0], ideal_cut="none"), ["ideal_cut", "'k'", "'full'"]),
        (lambda: ir.ndcg([3, 0], ideal=[1, 1]), ["not a valid ideal"]),
        (lambda: ir.recall_at_k([1, 1], 1, n_relevant=1), ["smaller than the 2 relevant"]),
        (lambda: ir.average_precision([1, 1], n_relevant=-1), ["n_relevant", ">= 0"]),
        (lambda: ir.r_score([1, 2], d=1, alpha=1), ["alpha", "> 1"]),
        (lambda: ir.fcp([1, 2], [1, 2], ties="skip"), ["ties must be one of 'discordant', 'half', 'omit'; got 'skip'"]),
        (lambda: ir.ndpm([1, 2], [1]), ["same items"]),
        (lambda: ir.kendall_tau_distance_at_k("ab", "ac"), ["same set of items"]),
        (lambda: ir.kendall_tau_distance_at_k("aab", "aba"), ["repeated"]),
        (lambda: ir.mean_ndcg([[1, 0]], nan_policy="drop"), ["nan_policy", "omit"]),
        (lambda: ir.mean_ndcg(np.ones((2, 3)), lengths=[1, 4]), ["lengths must lie in 0..3"]),
        (lambda: ir.mean_ndcg([[1, 0]], lengths=[2]), ["padded 2-D array"]),
        (lambda: ir.mean_average_precision([[1, -2]]), ["must be >= 0"]),
    ],
)
def test_bad_input_raises_value_error_naming_the_problem(call, words):
    with pytest.raises(ValueError) as info:
        call()
    for w in words:
        assert w in str(info.value)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3)), min_size=1, max_size=14),
       st.one_of(st.none(), ks), st.sampled_from(ir.TIES), st.sampled_from(ir.GAINS))
def test_ndcg_from_tied_scores_stays_in_unit_interval(pairs, k, ties, gain):
    rel = [p[0] for p in pairs]
    scores = [p[1] for p in pairs]
    v = ir.ndcg(rel, k=k, scores=scores, ties=ties, gain=gain)
    # up to rounding: ties="expected" sums a tie group's mean gain times its discounts, the
    # ideal DCG each gain times its own discount (five tied 4s, exponential: 0.9999999999999997)
    assert math.isnan(v) or -1e-12 <= v <= 1.0 + 1e-12
    if len(set(rel)) == 1 and rel[0] > 0:  # every order is ideal
        assert v == pytest.approx(1.0, abs=1e-12)


def test_judged_queries_without_relevant_items_count_zero_in_the_peers():
    """trec_eval (via pytrec_eval), ir_measures and ranx score a judged query with no relevant
    document 0 and count it in the mean; only queries absent from the judgements are skipped.
    ``nan_policy="zero"`` matches them."""
    import ir_measures
    import pytrec_eval
    from ir_measures import AP, nDCG
    from ranx import Qrels, Run, evaluate as ranx_evaluate

    from rankbook import ir

    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 0, "d4": 0}}
    run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 2.0, "d4": 1.0}, "q3": {"d5": 1.0}}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "map"}).evaluate(run)
    assert set(per_query) == {"q1", "q2"} and per_query["q2"]["ndcg"] == 0.0
    agg = ir_measures.calc_aggregate([nDCG, AP], qrels, run)
    ranx_mean = ranx_evaluate(Qrels.from_dict(qrels), Run.from_dict({q: run[q] for q in qrels}),
                              ["ndcg", "map"])
    ours = ir.evaluate([[1, 0], [0, 0]], ["ndcg", "ap"], nan_policy="zero")
    assert ours["ndcg"] == agg[nDCG] == ranx_mean["ndcg"] == 0.5
    assert ours["ap"] == agg[AP] == ranx_mean["map"] == 0.5
    assert np.isnan(ir.evaluate([[1, 0], [0, 0]], ["ndcg"])["ndcg"])  # the default shows it
