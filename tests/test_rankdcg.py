"""rankbook.rankdcg: the poster's test table, brute force over orderings, scipy's Kendall tau,
properties of the measure and the tie rules."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import ir
from rankbook import rankdcg as K
from rankbook.ledger.paths import data_path

REFERENCE = [9, 4, 4, 2, 2, 2, 1, 1, 1, 1]


def _published():
    df = pd.read_csv(data_path("published", "rankdcg", "test_results.csv"), comment="#")
    df["hypothesis"] = df["hypothesis"].map(lambda s: [int(v) for v in s.split()])
    return df


def test_published_reference_is_row_one():
    assert _published()["hypothesis"][0] == REFERENCE


@pytest.mark.parametrize("ties", K.TIES)
def test_poster_table_reproduced_cell_by_cell(ties):
    pub = _published()
    ours = K.poster_table(REFERENCE, pub["hypothesis"], ties=ties)
    for col in K.POSTER_COLUMNS:
        got = [K.truncate(v) for v in ours[col]]
        assert got == pytest.approx(pub[col].tolist(), abs=1e-12), col
    # the rankDCG values are exact (multiples of 1/40), not only to three places
    assert ours["rankdcg"].tolist() == pytest.approx([1.0, 0.975, 0.65, 0.325, 0.325, 0.0], abs=1e-12)


def test_poster_values_are_truncated_not_rounded():
    pub = _published()
    ours = K.poster_table(REFERENCE, pub["hypothesis"])
    rounded = ours.round(3)
    mismatches = int((rounded[list(K.POSTER_COLUMNS)].to_numpy() != pub[list(K.POSTER_COLUMNS)].to_numpy()).sum())
    assert mismatches > 0  # e.g. AveP of list 3 is 0.45464: printed 0.454


def test_printed_normalisation_is_upside_down():
    pub = _published()
    for hyp, printed in zip(pub["hypothesis"], pub["rankdcg"]):
        value, lo, hi = K.rankdcg_components(REFERENCE, hyp)
        as_printed = (hi - value) / (hi - lo)
        assert as_printed == pytest.approx(1 - printed, abs=1e-12)


def test_tie_rules_differ_only_off_the_table():
    assert K.rankdcg([2, 1], [5, 5]) == 0.0
    assert K.rankdcg([2, 1], [5, 5], ties="optimistic") == 1.0
    assert K.rankdcg([2, 1], [5, 5], ties="average") == 0.5
    assert K.rankdcg([2, 1], [5, 5], ties="order") == 1.0
    assert K.rankdcg([1, 2], [5, 5], ties="order") == 0.0


def _dcg_prime(reference, order):
    levels = sorted(set(reference), reverse=True)
    m = len(levels)
    rel = [m - levels.index(v) for v in reference]
    ideal = sorted(rel, reverse=True)
    disc = [m - r + 1 for r in ideal]
    return sum(rel[i] / disc[pos] for pos, i in enumerate(order))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=6), st.data())
def test_min_max_and_tie_average_brute_force(reference, data):
    hyp = data.draw(st.lists(st.integers(0, 2), min_size=len(reference), max_size=len(reference)))
    n = len(reference)
    all_orders = [_dcg_prime(reference, perm) for perm in itertools.permutations(range(n))]
    value, lo, hi = K.rankdcg_components(reference, hyp)
    assert lo == pytest.approx(min(all_orders)) and hi == pytest.approx(max(all_orders))
    # orders consistent with the hypothesis (ties in every order): their mean, min and max
    consistent = [
        _dcg_prime(reference, perm)
        for perm in itertools.permutations(range(n))
        if all(hyp[perm[i]] >= hyp[perm[i + 1]] for i in range(n - 1))
    ]
    assert K.rankdcg_components(reference, hyp, "average")[0] == pytest.approx(np.mean(consistent))
    assert K.rankdcg_components(reference, hyp, "pessimistic")[0] == pytest.approx(min(consistent))
    assert K.rankdcg_components(reference, hyp, "optimistic")[0] == pytest.approx(max(consistent))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(-3, 3)), min_size=1, max_size=30), st.sampled_from(K.TIES))
def test_value_in_unit_interval_perfect_one_reversed_zero(pairs, ties):
    ref = [p[0] for p in pairs]
    hyp = [p[1] for p in pairs]
    v = K.rankdcg(ref, hyp, ties=ties)
    if len(set(ref)) == 1:
        assert math.isnan(v)
        return
    assert 0.0 <= v <= 1.0
    assert K.rankdcg(ref, ref, ties=ties) == 1.0
    assert K.rankdcg(ref, [-r for r in ref], ties=ties) == 0.0
    # only the order of the levels matters
    assert K.rankdcg([10 * r**3 + 1 for r in ref], [2 * h - 7 for h in hyp], ties=ties) == pytest.approx(v)


@pytest.mark.parametrize("seed", range(15))
def test_poster_kendall_tau_is_scipy_tau_b(seed):
    from scipy.stats import kendalltau

    rng = np.random.default_rng(3000 + seed)
    n = int(rng.integers(3, 40))
    a, b = rng.integers(0, 4, n), rng.integers(0, 5, n)
    expected = kendalltau(a, b).statistic
    got = K.poster_kendall_tau(a, b)
    assert (math.isnan(got) and math.isnan(expected)) or got == pytest.approx(expected)


def test_poster_ndcg_equals_ndcg_when_reference_is_sorted():
    rng = np.random.default_rng(7)
    for _ in range(10):
        hyp = rng.permutation(REFERENCE)
        assert K.poster_ndcg(REFERENCE, hyp) == pytest.approx(ir.ndcg(hyp))


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: K.rankdcg([1, 2], [1]), ["aligned", "lengths 2 and 1"]),
        (lambda: K.rankdcg([], []), ["empty"]),
        (lambda: K.rankdcg([1, 2], [1, 2], ties="random"), ["ties must be one of 'pessimistic'", "'average'", "got 'random'"]),
        (lambda: K.rankdcg([1, float("nan")], [1, 2]), ["finite"]),
        (lambda: K.poster_kendall_tau([1, 2, 3], [1, 2]), ["aligned"]),
    ],
)
def test_bad_input_raises_value_error_naming_the_problem(call, words):
    with pytest.raises(ValueError) as info:
        call()
    for w in words:
        assert w in str(info.value)


def test_constant_reference_is_nan():
    assert math.isnan(K.rankdcg([3, 3, 3], [1, 2, 3]))
