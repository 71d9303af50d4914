"""IR measures with tied scores: for every tie pattern up to n = 8 the exact mean, best and worst
over every order of the tied items against brute force; the batch helpers against the list
functions; tie-free inputs unchanged; pessimistic <= expected <= optimistic; input errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import ir


def compositions(n):
    for cuts in itertools.product((False, True), repeat=n - 1):
        sizes, size = [], 1
        for cut in cuts:
            if cut:
                sizes.append(size)
                size = 1
            else:
                size += 1
        sizes.append(size)
        yield sizes


def all_orders(sizes):
    """Every ranking (as positions 0..n-1) consistent with the tie groups, shape (count, n)."""
    starts = np.cumsum([0] + sizes[:-1])
    rows = [list(itertools.chain(*choice)) for choice in
            itertools.product(*(itertools.permutations(range(a, a + g)) for a, g in zip(starts, sizes)))]
    return np.array(rows)


# brute-force definitions, written from the formulas on rows of ranked relevance R (count, n)


def _hits(R, k):
    return (R[:, :k] > 0).sum(axis=1)


def _ap(R, k, m):
    rel = (R > 0)[:, :k]
    prec = np.cumsum(rel, axis=1) / np.arange(1, rel.shape[1] + 1)
    return (prec * rel).sum(axis=1) / m if m else np.full(R.shape[0], np.nan)


def _rr(R, k):
    rel = (R > 0)[:, :k]
    first = np.argmax(rel, axis=1)
    return np.where(rel.any(axis=1), 1.0 / (first + 1), 0.0)


def _dcg(R, k, gain):
    g = R if gain == "linear" else 2.0**R - 1
    g = g[:, :k]
    return (g / np.log2(np.arange(2, g.shape[1] + 2))).sum(axis=1)


def _rscore(R, d, alpha):
    return (np.maximum(R - d, 0) * 2.0 ** (-np.arange(R.shape[1]) / (alpha - 1))).sum(axis=1)


def _measures(rel, scores, k, n_rel, ideal):
    """(name, brute force on ranked rows, our function of the tie rule)."""
    m = n_rel
    idcg = float(_dcg(-np.sort(-ideal)[None, :], k, "linear")[0])
    return [
        ("P@k", lambda R: _hits(R, k) / k, lambda t: ir.precision_at_k(rel, k, scores=scores, ties=t)),
        ("R@k", lambda R: _hits(R, k) / m if m else np.full(len(R), np.nan),
         lambda t: ir.recall_at_k(rel, k, n_relevant=m, scores=scores, ties=t)),
        ("F1@k", lambda R: 2 * _hits(R, k) / (k + m) if m else np.full(len(R), np.nan),
         lambda t: ir.f1_at_k(rel, k, n_relevant=m, scores=scores, ties=t)),
        ("hit@k", lambda R: (_hits(R, k) > 0).astype(float), lambda t: ir.hit_at_k(rel, k, scores=scores, ties=t)),
        ("AP@k", lambda R: _ap(R, k, m), lambda t: ir.average_precision(rel, n_relevant=m, k=k, scores=scores, ties=t)),
        ("RR@k", lambda R: _rr(R, k), lambda t: ir.reciprocal_rank(rel, k=k, scores=scores, ties=t)),
        ("CG@k", lambda R: R[:, :k].sum(axis=1), lambda t: ir.cg(rel, k=k, scores=scores, ties=t)),
        ("DCG@k", lambda R: _dcg(R, k, "linear"), lambda t: ir.dcg(rel, k=k, scores=scores, ties=t)),
        ("DCG@k exp", lambda R: _dcg(R, k, "exponential"),
         lambda t: ir.dcg(rel, k=k, gain="exponential", scores=scores, ties=t)),
        ("nDCG@k", lambda R: _dcg(R, k, "linear") / idcg if idcg else np.full(len(R), np.nan),
         lambda t: ir.ndcg(rel, k=k, ideal=ideal, scores=scores, ties=t)),
        ("R-score", lambda R: _rscore(R, 1, 2.5), lambda t: ir.r_score(rel, 1, 2.5, scores=scores, ties=t)),
    ]


@pytest.mark.parametrize("n", range(1, 9))
def test_every_tie_pattern_against_brute_force(n):
    rng = np.random.default_rng(84 + n)
    for sizes in compositions(n):
        orders = all_orders(sizes)
        for _ in range(2 if n <= 6 else 1):
            # items in a random input order; the tie groups come from equal scores
            group_score = np.repeat(np.arange(len(sizes), 0, -1), sizes).astype(float)
            perm = rng.permutation(n)
            scores = group_score[perm]
            rel = rng.integers(0, 4, n).astype(float)[perm] * (rng.random(n) < 0.7)
            ranked_input = np.argsort(-scores, kind="stable")  # item at each position, ties in input order
            R = rel[ranked_input][orders]
            n_rel = int((rel > 0).sum()) + int(rng.integers(0, 2))
            ideal = np.concatenate([rel, [2.0] * (n_rel - int((rel > 0).sum()))])
            for k in sorted({int(rng.integers(1, n + 1)), n, n + 1}):
                for name, brute, ours in _measures(rel, scores, k, n_rel, ideal):
                    vals = brute(R)
                    truth = {"expected": vals.mean(), "optimistic": vals.max(), "pessimistic": vals.min()}
                    for rule, want in truth.items():
                        got = ours(rule)
                        assert (np.isnan(got) and np.isnan(want)) or math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12), \
                            (name, rule, k, sizes, rel, scores, got, want)


@pytest.mark.parametrize("seed", range(12))
def test_batch_helpers_match_the_list_functions(seed):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 9, 25)
    batch = [rng.integers(0, 3, L).astype(float) for L in lengths]
    scores = [np.round(rng.random(L), 1) for L in lengths]  # coarse: many ties
    n_rel = np.array([int((b > 0).sum()) + int(rng.integers(0, 2)) for b in batch])
    k = int(rng.integers(1, 9))
    for ties in ("expected", "optimistic", "pessimistic", "order", "average"):
        ap = ir.mean_average_precision(batch, n_relevant=n_rel, k=k, scores=scores, ties=ties, reduce=False)
        rr = ir.mean_reciprocal_rank(batch, k=k, scores=scores, ties=ties, reduce=False)
        nd = ir.mean_ndcg(batch, k=k, scores=scores, ties=ties, reduce=False)
        for q, (b, s) in enumerate(zip(batch, scores)):
            assert ap[q] == pytest.approx(ir.average_precision(b, n_relevant=n_rel[q], k=k, scores=s, ties=ties),
                                          abs=1e-12, nan_ok=True)
            assert rr[q] == pytest.approx(ir.reciprocal_rank(b, k=k, scores=s, ties=ties), abs=1e-12)
            assert nd[q] == pytest.approx(ir.ndcg(b, k=k, scores=s, ties=ties), abs=1e-12, nan_ok=True)
        out = ir.evaluate(batch, [f"ap@{k}", f"rr@{k}", f"ndcg@{k}", "ndcg"], n_relevant=n_rel, scores=scores,
                          ties=ties, reduce=False)
        np.testing.assert_array_equal(out[f"ap@{k}"], ap)
        np.testing.assert_array_equal(out[f"rr@{k}"], rr)
        np.testing.assert_array_equal(out[f"ndcg@{k}"], nd)
        # the padded 2-D form of the same batch
        width = max(lengths)
        pad_b = np.zeros((len(batch), width))
        pad_s = np.full((len(batch), width), 7.0)  # padding is ignored, whatever it holds
        for q, (b, s) in enumerate(zip(batch, scores)):
            pad_b[q, : len(b)], pad_s[q, : len(s)] = b, s
        ap2 = ir.mean_average_precision(pad_b, lengths=lengths, n_relevant=n_rel, k=k, scores=pad_s, ties=ties,
                                        reduce=False)
        np.testing.assert_array_equal(ap2, ap)


def test_scikit_learn_tie_averaged_ndcg_and_dcg():
    from sklearn.metrics import dcg_score, ndcg_score

    rng = np.random.default_rng(1)
    for _ in range(30):
        n = int(rng.integers(2, 15))
        y_true, y_score = rng.integers(0, 4, n).astype(float), np.round(rng.random(n), 1)
        k = int(rng.integers(1, n + 1))
        assert ir.dcg(y_true, k=k, scores=y_score) == pytest.approx(dcg_score([y_true], [y_score], k=k), abs=1e-12)
        if y_true.any():
            assert ir.ndcg(y_true, k=k, scores=y_score) == pytest.approx(ndcg_score([y_true], [y_score], k=k))


@st.composite
def scored_list(draw, max_n=10):
    n = draw(st.integers(0, max_n))
    rel = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    scores = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return np.array(rel, float), np.array(scores, float), draw(st.integers(1, max_n + 1))


def _all(rel, scores, k, ties):
    return [ir.precision_at_k(rel, k, scores=scores, ties=ties), ir.recall_at_k(rel, k, scores=scores, ties=ties),
            ir.f1_at_k(rel, k, scores=scores, ties=ties), ir.hit_at_k(rel, k, scores=scores, ties=ties),
            ir.average_precision(rel, k=k, scores=scores, ties=ties), ir.reciprocal_rank(rel, k=k, scores=scores, ties=ties),
            ir.cg(rel, k=k, scores=scores, ties=ties), ir.dcg(rel, k=k, scores=scores, ties=ties),
            ir.ndcg(rel, k=k, scores=scores, ties=ties), ir.r_score(rel, 1, 2, scores=scores, ties=ties)]


@settings(max_examples=150, deadline=None)
@given(scored_list())
def test_pessimistic_expected_optimistic_are_ordered(case):
    rel, scores, k = case
    lo, mid, hi = (np.array(_all(rel, scores, k, t)) for t in ("pessimistic", "expected", "optimistic"))
    ok = ~np.isnan(mid)
    assert np.all(lo[ok] <= mid[ok] + 1e-12) and np.all(mid[ok] <= hi[ok] + 1e-12)
    np.testing.assert_array_equal(np.isnan(lo), np.isnan(mid))


@settings(max_examples=150, deadline=None)
@given(scored_list(), st.sampled_from(ir.TIES))
def test_without_ties_every_rule_is_the_ranked_list(case, ties):
    rel, _, k = case
    scores = -np.arange(rel.shape[0], dtype=float)  # distinct scores: already in rank order
    perm = np.random.default_rng(rel.shape[0]).permutation(rel.shape[0])
    plain = _all(rel, None, k, "expected")
    shuffled = _all(rel[perm], scores[perm], k, ties)
    np.testing.assert_array_equal(plain, shuffled)


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: ir.precision_at_k([1, 0], 1, scores=[1.0]), ["scores has 1 entries", "relevance has 2"]),
        (lambda: ir.precision_at_k([1, 0], 1, scores=[1.0, np.nan]), ["scores must be finite"]),
        (lambda: ir.average_precision([1, 0], scores=[1, 1], ties="random"), ["ties must be one of", "'expected'", "'order'", "got 'random'"]),
        (lambda: ir.order_by_scores([1, 0], [1, 1], ties="expected"), ["no single order"]),
        (lambda: ir.mean_ndcg([[1, 0], [1]], scores=[[1, 1]]), ["one list per query (2)"]),
        (lambda: ir.mean_ndcg([[1, 0], [1]], scores=[[1, 1], [1, 2]]), ["scores[1]", "1 items of list 1"]),
        (lambda: ir.evaluate([[1, 0]], ["ap"], scores=[["a", "b"]]), ["scores must be a list of sequences of numbers"]),
    ],
)
def test_bad_scores_raise_value_error(call, words):
    with pytest.raises(ValueError) as info:
        call()
    for w in words:
        assert w in str(info.value)


# ------------------------------------------------------------------------------------------
# rankDCG


@pytest.mark.parametrize("n", range(1, 9))
def test_rankdcg_every_tie_pattern_against_brute_force(n):
    from rankbook.rankdcg import rankdcg_components

    rng = np.random.default_rng(300 + n)
    for sizes in compositions(n):
        orders = all_orders(sizes)
        reference = rng.integers(0, 4, n).astype(float)
        perm = rng.permutation(n)
        hyp = np.repeat(np.arange(len(sizes), 0, -1), sizes).astype(float)[perm]
        ref = reference[perm]
        ranked = np.argsort(-hyp, kind="stable")
        lo, hi = rankdcg_components(ref, hyp)[1:]
        if hi == lo:
            assert all(np.isnan(rankdcg(ref, hyp, t)) for t in ("expected", "optimistic", "pessimistic"))
            continue
        # DCG' of every order, from the definition: rel' = dense rank of the reference value
        # from the bottom, position i discounted by the dense rank from the top of the value the
        # ideal order puts there
        levels = np.unique(ref)[::-1]
        rel = (len(levels) - np.searchsorted(-levels, -ref)).astype(float)
        discount = len(levels) - np.sort(rel)[::-1] + 1
        values = ((rel[ranked][orders] / discount).sum(axis=1) - lo) / (hi - lo)
        # spot check: one order scored as its own tie-free hypothesis
        h = np.empty(n)
        h[ranked[orders[-1]]] = -np.arange(n, dtype=float)
        assert rankdcg(ref, h) == pytest.approx(values[-1], abs=1e-12)
        assert rankdcg(ref, hyp, "expected") == pytest.approx(values.mean(), abs=1e-12)
        assert rankdcg(ref, hyp, "average") == rankdcg(ref, hyp, "expected")
        assert rankdcg(ref, hyp, "optimistic") == pytest.approx(values.max(), abs=1e-12)
        assert rankdcg(ref, hyp, "pessimistic") == pytest.approx(values.min(), abs=1e-12)


def rankdcg(ref, hyp, ties="pessimistic"):
    from rankbook.rankdcg import rankdcg as f

    return f(ref, hyp, ties=ties)
