"""tau_AP (Yilmaz et al.) and its tie-aware forms tau_AP_a and tau_AP_b (Urbano and Marrero):
ircor's published test values, brute force over the definitions and over tie orders, batches,
and the PyPI package tau-ap."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import tau_ap as TA
from rankbook.ledger.paths import data_path

FUNCS = {"tauAP": TA.tau_ap, "tauAP_a": TA.tau_ap_a, "tauAP_b": TA.tau_ap_b}


def _ircor():
    vec = pd.read_csv(data_path("published", "ircor", "tau_ap_vectors.csv"), comment="#")
    vectors = {(r.set, r.vector): np.array([float(v) for v in r.values.split()]) for r in vec.itertuples()}
    values = pd.read_csv(data_path("published", "ircor", "tau_ap_values.csv"), comment="#")
    return vectors, values


VECTORS, VALUES = _ircor()


@pytest.mark.parametrize("row", [r for _, r in VALUES.iterrows()],
                         ids=lambda r: f"{r['function']}-{r['set']}-{r['x']}-{r['y']}")
def test_ircor_published_values(row):
    x, y = VECTORS[(row["set"], row["x"])], VECTORS[(row["set"], row["y"])]
    got = FUNCS[row["function"]](x, y)
    assert abs(got - row["value"]) <= row["tolerance"], (got, row["value"])


def test_every_published_value_is_used():
    assert len(VALUES) == 21 and set(VALUES["function"]) == set(FUNCS)


# ------------------------------------------------------------------------------------------
# brute force from the definitions (score vectors; larger ranks higher)


def _brute_tau_ap(x, y):
    """Yilmaz et al.: walk down y's ranking; C(i) = items above i in y that x also puts above."""
    order = sorted(range(len(y)), key=lambda i: -y[i])
    n = len(order)
    total = 0.0
    for k in range(1, n):
        i = order[k]
        total += sum(1 for j in order[:k] if x[j] > x[i]) / k
    return 2 * total / (n - 1) - 1


def _orders(y):
    """Every strict order of y's tied items: score vectors without ties, same group order."""
    levels = sorted(set(y), reverse=True)
    groups = [[i for i in range(len(y)) if y[i] == v] for v in levels]
    for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
        flat = [i for g in choice for i in g]
        out = [0.0] * len(y)
        for r, i in enumerate(flat):
            out[i] = float(len(y) - r)
        yield out


def _brute_tau_ap_b_half(x, y):
    n = len(y)
    above = [sum(1 for j in range(n) if y[j] > y[i]) for i in range(n)]
    idx = [i for i in range(n) if above[i] > 0]
    total = sum(sum(1 for j in range(n) if y[j] > y[i] and x[j] > x[i]) / above[i] for i in idx)
    return 2 * total / len(idx) - 1 if idx else math.nan


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 12).flatmap(lambda n: st.tuples(st.permutations(range(n)), st.permutations(range(n)))))
def test_tau_ap_equals_the_definition(pair):
    x, y = [float(v) for v in pair[0]], [float(v) for v in pair[1]]
    assert TA.tau_ap(x, y) == pytest.approx(_brute_tau_ap(x, y), abs=1e-12)
    assert TA.tau_ap(x, y) == pytest.approx(TA.tau_ap(-np.array(x), -np.array(y), decreasing=False), abs=1e-15)


tied_scores = st.integers(2, 7).flatmap(
    lambda n: st.tuples(st.permutations(range(n)), st.lists(st.integers(0, 3), min_size=n, max_size=n)))


@settings(max_examples=200, deadline=None)
@given(tied_scores)
def test_tau_ap_a_is_the_mean_over_the_orders_of_the_ties(pair):
    x = [float(v) for v in pair[0]]
    y = [float(v) for v in pair[1]]
    mean = float(np.mean([_brute_tau_ap(x, o) for o in _orders(y)]))
    assert TA.tau_ap_a(x, y) == pytest.approx(mean, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 9).flatmap(lambda n: st.tuples(st.lists(st.integers(0, 3), min_size=n, max_size=n),
                                                     st.lists(st.integers(0, 3), min_size=n, max_size=n))))
def test_tau_ap_b_equals_the_definition(pair):
    x, y = [float(v) for v in pair[0]], [float(v) for v in pair[1]]
    want = 0.5 * (_brute_tau_ap_b_half(x, y) + _brute_tau_ap_b_half(y, x))
    got = TA.tau_ap_b(x, y)
    if math.isnan(want):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(want, abs=1e-12)
        assert TA.tau_ap_b(y, x) == pytest.approx(got, abs=1e-15)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 12).flatmap(lambda n: st.tuples(st.permutations(range(n)), st.permutations(range(n)))))
def test_without_ties_the_tie_forms_are_tau_ap(pair):
    x, y = np.array(pair[0], float), np.array(pair[1], float)
    assert TA.tau_ap_a(x, y) == pytest.approx(TA.tau_ap(x, y), abs=1e-12)
    assert TA.tau_ap_b(x, y) == pytest.approx(0.5 * (TA.tau_ap(x, y) + TA.tau_ap(y, x)), abs=1e-12)


def test_the_counting_kernel_against_brute_force():
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 5, 8, 16, 17, 33, 100):
        v = np.array([rng.permutation(n) for _ in range(7)])
        want = np.array([[sum(1 for j in range(i) if row[j] < row[i]) for i in range(n)] for row in v])
        assert np.array_equal(TA._smaller_before(v), want.reshape(7, n))


def test_batches_and_a_large_pair():
    rng = np.random.default_rng(5)
    x = rng.random((4, 3, 40))
    y = np.round(rng.random((4, 3, 40)) * 6)
    for f in (TA.tau_ap_a, TA.tau_ap_b):
        got = f(x, y)
        assert got.shape == (4, 3)
        assert np.array_equal(got, np.array([[f(x[i, j], y[i, j]) for j in range(3)] for i in range(4)]))
    # broadcasting one reference against many estimates
    assert TA.tau_ap(x[0, 0], rng.permutation(40)[None, :].repeat(5, 0).astype(float)).shape == (5,)
    # n = 500: the O(n log n) count against the O(n^2) definition
    a, b = rng.random(500), rng.random(500)
    assert TA.tau_ap(a, b) == pytest.approx(_brute_tau_ap(a, b), abs=1e-12)
    # blocks of two rows give the same values as one block
    whole = [f(x, y) for f in (TA.tau_ap_a, TA.tau_ap_b)]
    old = TA._CHUNK_ELEMENTS
    try:
        TA._CHUNK_ELEMENTS = 80
        small = [f(x, y) for f in (TA.tau_ap_a, TA.tau_ap_b)]
    finally:
        TA._CHUNK_ELEMENTS = old
    assert all(np.array_equal(a, b) for a, b in zip(small, whole))


def test_edges():
    assert math.isnan(TA.tau_ap([1.0], [2.0]))
    assert TA.tau_ap([1, 2], [1, 2]) == 1.0 and TA.tau_ap([1, 2], [2, 1]) == -1.0
    assert math.isnan(TA.tau_ap_b([1, 1, 1], [1, 2, 3]))  # x ties every item: nothing above
    assert TA.tau_ap_a([3, 2, 1], [1, 1, 1]) == pytest.approx(0.0, abs=1e-15)  # all orders equally likely


@pytest.mark.parametrize("call, match", [
    (lambda: TA.tau_ap([1, 2, 2], [1, 2, 3]), "x has tied values: tau_ap takes rankings without ties"),
    (lambda: TA.tau_ap([1, 2, 3], [1, 1, 3]), "y has tied values"),
    (lambda: TA.tau_ap_a([1, 1, 3], [1, 2, 3]), "x has tied values: tau_ap_a takes a reference without ties"),
    (lambda: TA.tau_ap_b([1, 2, np.nan], [1, 2, 3]), "x holds nan"),
    (lambda: TA.tau_ap([1, 2, 3], [1, 2]), "must score the same items: got 3 and 2"),
    (lambda: TA.tau_ap([1, 2], [1, 2], decreasing="yes"), "decreasing must be True"),
    (lambda: TA.tau_ap(1.0, [1, 2]), "one score per item"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ------------------------------------------------------------------------------------------
# the PyPI package tau-ap 0.1.0


def test_pypi_tau_ap_matches_ircor_only_after_sorting_by_the_estimate():
    """tau-ap 0.1.0 walks the items in the order it is given, as if the input were already
    sorted by the estimate: on ircor's unsorted test vectors it gives other numbers, and the
    published values once the items are sorted by y, best first."""
    pkg = pytest.importorskip("tau_ap")
    rows = VALUES[VALUES["function"] == "tauAP"]
    for _, row in rows.iterrows():
        x, y = VECTORS[(row["set"], row["x"])], VECTORS[(row["set"], row["y"])]
        order = np.argsort(-y, kind="stable")
        assert pkg.tau_ap(x[order], y[order]) == pytest.approx(TA.tau_ap(x, y), abs=1e-12)
        assert abs(pkg.tau_ap(x[order], y[order]) - row["value"]) <= row["tolerance"]
        assert abs(pkg.tau_ap(x, y) - row["value"]) > 0.01  # as given: not ircor's value


# ------------------------------------------------------------------------------------------
# rankbook.pairwise's "tau_ap"


def _positions(r):
    out = np.empty(len(r))
    out[np.asarray(r) - 1] = np.arange(len(r))
    return out


def test_pairwise_tau_ap_is_the_scalar_with_row_as_reference():
    from rankbook import permutations as P
    from rankbook.pairwise import pairwise, pairwise_to

    R = P.random(11, size=7, rng=3)
    D = pairwise(R, "tau_ap")
    want = np.array([[TA.tau_ap(_positions(a), _positions(b), decreasing=False) for b in R] for a in R])
    assert np.array_equal(D, want)
    assert not np.allclose(D, D.T)  # asymmetric
    assert np.array_equal(pairwise(R, "tau_ap", numbering="given"), D)  # item-based either way
    assert np.array_equal(pairwise_to(R[1:], R[0], "tau_ap"), D[0, 1:])
    labels = [["a", "b", "c", "d"], ["b", "a", "c", "d"], ["d", "c", "b", "a"]]
    assert pairwise(labels, "tau_ap")[0].tolist() == pytest.approx([1.0, 1 / 3, -1.0])
    with pytest.raises(ValueError, match="has no condensed form"):
        pairwise(R, "tau_ap", condensed=True)
    with pytest.raises(ValueError, match="needs rankings of the same items"):
        pairwise([["a", "b"], ["a", "c"]], "tau_ap")


def test_pairwise_tau_ap_memory_is_bounded_by_the_block():
    import tracemalloc

    from rankbook import permutations as P
    from rankbook.pairwise import MEMORY_ARRAYS, pairwise

    N, n, chunk = 60, 50, 1 << 11
    R = P.random(n, size=N, rng=8)
    pairwise(R, "tau_ap", chunk=chunk)
    tracemalloc.start()
    try:
        out = pairwise(R, "tau_ap", chunk=chunk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak - out.nbytes - 2 * R.nbytes < MEMORY_ARRAYS * 8 * max(chunk, n)
