"""rankbook.rbo against the ``rbo`` package, the formulas printed in seed 001 and Webber et al.,
worked examples, and the defining property of the bounds: every extension of two prefixes has
its RBO inside [rbo_min, rbo_min + rbo_res], and both ends are reached."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import rbo as R

ps = st.sampled_from([0.5, 0.8, 0.9, 0.95])


@st.composite
def two_prefixes(draw, max_len=10, pool=16):
    """Two tie-free lists over a small pool (so that they overlap), of uneven lengths."""
    items = list(range(pool))
    s = draw(st.permutations(items))[: draw(st.integers(0, max_len))]
    t = draw(st.permutations(items))[: draw(st.integers(0, max_len))]
    return list(s), list(t)


# ------------------------------------------------------------------------------------------
# the rbo package (tie-free lists)


@pytest.mark.parametrize("seed", range(30))
def test_base_and_ext_match_rbo_package(seed):
    from rbo import RankingSimilarity

    rng = np.random.default_rng(1000 + seed)
    pool = int(rng.integers(3, 30))
    S = list(rng.permutation(pool)[: int(rng.integers(1, pool + 1))])
    T = list(rng.permutation(pool)[: int(rng.integers(1, pool + 1))])
    p = float(rng.choice([0.5, 0.7, 0.9, 0.98]))
    rs = RankingSimilarity(S, T)
    assert R.rbo(S, T, p) == pytest.approx(rs.rbo(p=p), abs=1e-12)
    k = int(rng.integers(1, min(len(S), len(T)) + 1))
    assert R.rbo(S, T, p, depth=k) == pytest.approx(rs.rbo(k=k, p=p), abs=1e-12)
    assert R.rbo_ext(S, T, p) == pytest.approx(rs.rbo_ext(p=p), abs=1e-12)


def test_rank_weight_matches_rbo_package():
    from rbo import RankingSimilarity

    long = list(range(200))
    rs = RankingSimilarity(long, long)
    for p, d in [(0.5, 3), (0.9, 10), (0.98, 50), (0.99, 120)]:
        assert R.rbo_weight(p, d) == pytest.approx(rs.top_weightness(p=p, d=d), rel=1e-12)


# ------------------------------------------------------------------------------------------
# worked examples


def test_webber_figure_5_example_abcdefg_zcavwxy():
    """S = abcdefg, T = zcavwxy: overlaps and average overlap at depths 1..7 (the example the
    ``rbo`` package and others test against: AO = 0, 0, .222, .292, .313, .317, .312)."""
    X = R.overlaps("abcdefg", "zcavwxy")
    assert X.tolist() == [0, 0, 2, 2, 2, 2, 2]
    A = X / np.arange(1, 8)
    ao = np.cumsum(A) / np.arange(1, 8)
    assert np.round(ao, 3).tolist() == [0.0, 0.0, 0.222, 0.292, 0.313, 0.317, 0.312]
    lo, hi = R.rbo_bounds("abcdefg", "zcavwxy", 0.9)
    assert lo <= R.rbo_ext("abcdefg", "zcavwxy", 0.9) <= hi


def test_notes_example_overlap_at_depth_7():
    """Seed 001: S = [1..7], T = [1,3,2,4,5,7,6,8] share all 7 items at depth 7."""
    S, T = [1, 2, 3, 4, 5, 6, 7], [1, 3, 2, 4, 5, 7, 6, 8]
    X = R.overlaps(S, T)
    assert X[6] == 7 and X[6] / 7 == 1.0
    assert X.tolist() == [1, 1, 3, 4, 5, 5, 7, 7]


def test_identical_and_disjoint_lists():
    S = list("abcdef")
    assert R.rbo_ext(S, S, 0.9) == 1.0
    assert R.rbo_min(S, S, 0.9) + R.rbo_res(S, S, 0.9) == pytest.approx(1.0, abs=1e-15)
    assert R.rbo(S, S, 0.9) == pytest.approx(1 - 0.9**6)
    assert R.rbo(S, list("uvwxyz"), 0.9) == 0.0
    assert R.rbo_min(S, list("uvwxyz"), 0.9) == 0.0
    assert R.rbo_ext(S, list("uvwxyz"), 0.9) == 0.0
    assert math.isnan(R.rbo_ext([], S, 0.9))
    assert R.rbo_res([], [], 0.9) == 1.0


# ------------------------------------------------------------------------------------------
# printed formulas


def _notes_min(S, T, p, k):
    X = [len(set(S[:d]) & set(T[:d])) for d in range(1, k + 1)]
    Xk = X[-1]
    return (1 - p) / p * (sum((X[d - 1] - Xk) * p**d / d for d in range(1, k + 1)) - Xk * math.log(1 - p))


def _notes_res(S, T, p, k, far=6000):
    Xk = len(set(S[:k]) & set(T[:k]))
    f = 2 * k - Xk
    first = sum(2 * (d - k) / d * p ** (d - 1) for d in range(k + 1, f + 1))
    second = sum((1 - Xk / d) * p ** (d - 1) for d in range(f + 1, far))
    return (1 - p) * (first + second)


def _webber_res_uneven(S, L, p):
    """Webber et al. eq. 30 (closed form, uneven lengths s <= l)."""
    s, l = len(S), len(L)
    X_l = len(set(S) & set(L))
    f = l + s - X_l
    tail = lambda a, b: sum(p**d / d for d in range(a, b + 1))  # noqa: E731
    return (
        p**s + p**l - p**f
        - (1 - p) / p * (s * tail(s + 1, f) + l * tail(l + 1, f) + X_l * (math.log(1 / (1 - p)) - tail(1, f)))
    )


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 9), ps, st.randoms(use_true_random=False))
def test_min_and_res_match_the_notes_formulas_for_equal_lengths(k, p, rnd):
    pool = list(range(2 * k + 2))
    S, T = rnd.sample(pool, k), rnd.sample(pool, k)
    assert R.rbo_min(S, T, p) == pytest.approx(_notes_min(S, T, p, k), abs=1e-12)
    assert R.rbo_res(S, T, p) == pytest.approx(_notes_res(S, T, p, k), abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(two_prefixes(), ps)
def test_res_matches_webber_closed_form_for_uneven_lengths(lists, p):
    S, T = lists
    if not S or not T:
        return
    short, long_ = sorted((S, T), key=len)
    assert R.rbo_res(S, T, p) == pytest.approx(_webber_res_uneven(short, long_, p), abs=1e-12)


# ------------------------------------------------------------------------------------------
# the bounds: random extensions stay inside, extreme extensions reach them


def _extend(S, T, rng, depth, pool):
    """Extend S and T at random (fresh items and each other's items), no repeats."""
    out = []
    for own in (S, T):
        rest = [x for x in rng.permutation(pool).tolist() if x not in set(own)]
        out.append(list(own) + rest[: depth - len(own)])
    return out


@settings(max_examples=100, deadline=None)
@given(two_prefixes(), ps, st.integers(0, 2**32 - 1))
def test_long_random_extensions_lie_within_bounds(lists, p, seed):
    S, T = lists
    rng = np.random.default_rng(seed)
    depth = 700  # p**700 < 1e-30 for p <= 0.95: the base RBO at this depth is the full RBO
    pool = list(range(depth + 30))  # small pool: extensions overlap a lot
    SE, TE = _extend(S, T, rng, depth, pool)
    lo, res = R.rbo_min(S, T, p), R.rbo_res(S, T, p)
    full = R.rbo(SE, TE, p, depth=depth)
    assert lo - 1e-12 <= full <= lo + res + 1e-12
    assert 0.0 <= lo <= 1.0 and 0.0 <= res <= 1.0 and lo + res <= 1.0 + 1e-15


@settings(max_examples=60, deadline=None)
@given(two_prefixes(), ps)
def test_bounds_are_tight(lists, p):
    S, T = lists
    depth = 700
    # minimum: every later item is new to both lists
    SE = S + [("s", i) for i in range(depth - len(S))]
    TE = T + [("t", i) for i in range(depth - len(T))]
    assert R.rbo(SE, TE, p, depth=depth) == pytest.approx(R.rbo_min(S, T, p), abs=1e-12)
    # maximum: each list first takes the other's unmatched seen items, then shared new items
    S_need = [x for x in T if x not in S]
    T_need = [x for x in S if x not in T]
    SE = S + S_need + [("z", i) for i in range(depth)]
    TE = T + T_need + [("z", i) for i in range(depth)]
    lo, hi = R.rbo_bounds(S, T, p)
    assert R.rbo(SE[:depth], TE[:depth], p, depth=depth) == pytest.approx(hi, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(two_prefixes(max_len=14, pool=20), st.floats(0.01, 0.999))
def test_all_values_in_unit_interval(lists, p):
    S, T = lists
    lo, hi = R.rbo_bounds(S, T, p)
    values = [R.rbo(S, T, p), lo, hi, R.rbo_res(S, T, p), R.rbo_ext(S, T, p)]
    for v in values:
        assert math.isnan(v) or 0.0 <= v <= 1.0
    assert lo <= hi
    ext = values[-1]
    assert R.rbo(S, T, p) <= lo + 1e-15
    if not math.isnan(ext) and len(S) == len(T):
        assert lo - 1e-12 <= ext <= hi + 1e-12


# ------------------------------------------------------------------------------------------
# rank weights


@pytest.mark.parametrize("p", [0.5, 0.9, 0.98])
def test_prefix_weight_is_the_sum_of_rank_weights(p):
    i = np.arange(1, 20000)
    terms = p**i / i
    per_rank = [(1 - p) / p * terms[d - 1 :].sum() for d in range(1, 31)]
    np.testing.assert_allclose(R.rbo_weight(p, np.arange(1, 31)), np.cumsum(per_rank), rtol=1e-10)
    w = R.rbo_weight(p, np.arange(1, 400))
    assert np.all(np.diff(w) >= 0) and np.all(w <= 1.0)  # increasing until it rounds to 1
    assert np.all(np.diff(w)[w[1:] < 1 - 1e-9] > 0)


@pytest.mark.parametrize("p, w", [(0.9, 0.86), (0.98, 0.86), (0.5, 0.99), (0.95, 0.5)])
def test_depth_and_p_invert_the_weight(p, w):
    d = R.depth_for_weight(p, w)
    assert R.rbo_weight(p, d) >= w
    assert d == 1 or R.rbo_weight(p, d - 1) < w
    q = R.p_for_weight(d, w)
    assert R.rbo_weight(q, d) == pytest.approx(w, abs=1e-9)


# ------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: R.rbo("ab", "ba", 0), ["p must be a number with 0 < p < 1", "got 0"]),
        (lambda: R.rbo("ab", "ba", 1), ["p must be a number with 0 < p < 1", "got 1"]),
        (lambda: R.rbo_min("ab", "ba", 1.5), ["0 < p < 1"]),
        (lambda: R.rbo_res("ab", "ba", True), ["0 < p < 1"]),
        (lambda: R.rbo("aba", "ab", 0.9), ["'a' occurs more than once in S"]),
        (lambda: R.rbo_ext("ab", ["x", "y", "x"], 0.9), ["'x' occurs more than once in T"]),
        (lambda: R.rbo(["a", ["b", "c"]], ["a", "b"], 0.9), ["S[1] is a list", "as a set"]),
        (lambda: R.rbo(["a", {"b", "c"}], ["a", "b"], 0.9, ties="x"), ["ties must be one of 'w', 'a', 'b'", "got 'x'"]),
        (lambda: R.rbo_min(["a", {"b", "c"}], ["a", "b"], 0.9, depth=2), ["depth=2 cuts the tie group", "ranks 2-3"]),
        (lambda: R.rbo_ext("a{bc", "abc", 0.9), ["never closed"]),
        (lambda: R.rbo_ext(["a", {"b", "a"}], "abc", 0.9), ["'a'", "more than once in S"]),
        (lambda: R.overlaps(["a", {"b", "c"}], "abc"), ["S[1] is a tie group", "tie-free"]),
        (lambda: R.rbo("ab", "ab", 0.9, depth=3), ["depth=3 exceeds"]),
        (lambda: R.rbo("ab", "ab", 0.9, depth=-1), ["depth must be an integer >= 0", "got -1"]),
        (lambda: R.rbo_weight(0.9, 0), ["d=0", ">= 1"]),
        (lambda: R.depth_for_weight(0.9, 1.0), ["0 < w < 1"]),
        (lambda: R.p_for_weight(3, 0), ["0 < w < 1"]),
    ],
)
def test_bad_input_raises_value_error_naming_the_problem(call, words):
    with pytest.raises(ValueError) as info:
        call()
    for w in words:
        assert w in str(info.value)
