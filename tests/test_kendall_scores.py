"""Kendall's tau-b and tau-a of score vectors with ties (issue 31): against
scipy.stats.kendalltau (variant "b") and a brute-force tau-a over every pair, nan handling,
and the refusals."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hst

from rankbook import metrics as M


def brute_tau_a(x, y):
    n = len(x)
    s = sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i, j in itertools.combinations(range(n), 2))
    return s / (n * (n - 1) / 2)


def brute_tau_b(x, y):
    n = len(x)
    pairs = list(itertools.combinations(range(n), 2))
    s = sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i, j in pairs)
    tx = sum(x[i] == x[j] for i, j in pairs)
    ty = sum(y[i] == y[j] for i, j in pairs)
    den = (len(pairs) - tx) * (len(pairs) - ty)
    return s / math.sqrt(den) if den else math.nan


scores = hst.lists(hst.integers(0, 4), min_size=2, max_size=30)


@settings(max_examples=200, deadline=None)
@given(hst.data())
def test_tau_b_and_a_against_scipy_and_brute_force(data):
    x = data.draw(scores)
    y = data.draw(hst.lists(hst.integers(0, 4), min_size=len(x), max_size=len(x)))
    x, y = np.array(x, float), np.array(y, float)
    b, a = M.kendall_tau_b(x, y), M.kendall_tau_a(x, y)
    want_b = brute_tau_b(x, y)
    if math.isnan(want_b):
        assert math.isnan(b)
    else:
        assert b == pytest.approx(want_b, abs=1e-12)
        assert b == pytest.approx(st.kendalltau(x, y, variant="b").statistic, abs=1e-12)
    assert a == pytest.approx(brute_tau_a(x, y), abs=1e-12)


def test_large_vectors_with_many_ties_against_scipy():
    rng = np.random.default_rng(31)
    for n, levels in ((50_000, 7), (20_000, 20_000), (10_000, 2)):
        x = rng.integers(0, levels, n).astype(float)
        y = np.round(x + rng.normal(0, levels / 3, n))
        assert M.kendall_tau_b(x, y) == pytest.approx(st.kendalltau(x, y).statistic, abs=1e-12)
        # tau-a from scipy's tau-b and tie counts taken with numpy: tau_b sqrt((P-Tx)(P-Ty)) / P
        P = n * (n - 1) / 2
        tx = sum(c * (c - 1) / 2 for c in np.unique(x, return_counts=True)[1])
        ty = sum(c * (c - 1) / 2 for c in np.unique(y, return_counts=True)[1])
        want_a = st.kendalltau(x, y).statistic * math.sqrt((P - tx) * (P - ty)) / P
        assert M.kendall_tau_a(x, y) == pytest.approx(want_a, abs=1e-12)


def test_tau_a_of_permutations_is_the_metric():
    rng = np.random.default_rng(3)
    s, v = rng.permutation(40) + 1, rng.permutation(40) + 1
    assert M.kendall_tau_a(s, v) == pytest.approx(float(M.kendall_tau(s, v)), abs=1e-15)
    assert M.kendall_tau_b(s, v) == pytest.approx(float(M.kendall_tau(s, v)), abs=1e-15)


def test_nan_policies_and_refusals():
    x, y = [1.0, 2.0, np.nan, 4.0, 5.0], [2.0, 1.0, 3.0, 5.0, 4.0]
    assert math.isnan(M.kendall_tau_b(x, y)) and math.isnan(M.kendall_tau_a(x, y))
    want = st.kendalltau(x, y, nan_policy="omit").statistic
    assert M.kendall_tau_b(x, y, nan_policy="omit") == pytest.approx(want, abs=1e-12)
    assert M.kendall_tau_a(x, y, nan_policy="omit") == pytest.approx(brute_tau_a(
        np.array([1, 2, 4, 5.0]), np.array([2, 1, 5, 4.0])), abs=1e-12)
    with pytest.raises(ValueError, match=r"nan at 1 positions; nan_policy: 'propagate' gives nan"):
        M.kendall_tau_b(x, y, nan_policy="raise")
    with pytest.raises(ValueError, match=r"nan_policy must be one of 'propagate', 'omit', 'raise'; got 'drop'"):
        M.kendall_tau_a(x, y, nan_policy="drop")
    with pytest.raises(ValueError, match=r"same length, got shapes \(3,\) and \(2,\)"):
        M.kendall_tau_b([1, 2, 3], [1, 2])
    assert math.isnan(M.kendall_tau_a([1.0], [2.0])) and math.isnan(M.kendall_tau_b([1.0], [2.0]))
    assert math.isnan(M.kendall_tau_b([1, 1, 1], [1, 2, 3]))
