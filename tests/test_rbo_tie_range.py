"""RBO^low, RBO^high and RBO^avg (the range and the mean of RBO over the orders of the tied
items) against brute force: every order of both lists, each score's tie-free function."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import rbo as R
from rankbook.ties import tie_breakings

SCORES = {"rbo": R.rbo, "rbo_min": R.rbo_min, "rbo_max": R.rbo_max, "rbo_res": R.rbo_res,
          "rbo_ext": R.rbo_ext}


@st.composite
def tied_pair(draw, pool=8, max_orders=720):
    """Two rankings with ties over a small pool (equal or unequal lengths, overlapping or not),
    with few enough orders to enumerate."""
    items = list(range(pool))
    out = []
    for _ in range(2):
        perm = draw(st.permutations(items))[: draw(st.integers(1, pool))]
        cuts = draw(st.lists(st.booleans(), min_size=len(perm), max_size=len(perm)))
        ranking, group = [], []
        for x, cut in zip(perm, cuts):
            group.append(x)
            if cut:
                ranking.append(set(group) if len(group) > 1 else group[0])
                group = []
        if group:
            ranking.append(set(group) if len(group) > 1 else group[0])
        out.append(ranking)
    orders = [math.prod(math.factorial(len(e)) for e in r if isinstance(e, set)) for r in out]
    if orders[0] * orders[1] > max_orders:
        from hypothesis import assume
        assume(False)
    return out


def _brute(S, T, p, score, depth=None):
    f = SCORES[score]
    vals = np.array([f(a, b, p, depth=depth) for a in tie_breakings(S) for b in tie_breakings(T)])
    return vals.min(), vals.mean(), vals.max()


ps = st.sampled_from([0.3, 0.5, 0.8, 0.9, 0.95])


@settings(max_examples=120, deadline=None)
@given(tied_pair(), ps, st.sampled_from(list(SCORES)))
def test_low_avg_high_equal_brute_force(pair, p, score):
    S, T = pair
    lo, avg, hi = _brute(S, T, p, score)
    assert R.rbo_low(S, T, p, score=score) == pytest.approx(lo, abs=1e-12)
    assert R.rbo_high(S, T, p, score=score) == pytest.approx(hi, abs=1e-12)
    assert R.rbo_avg(S, T, p, score=score) == pytest.approx(avg, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(tied_pair(), ps)
def test_the_extreme_orders_reach_the_extremes_of_every_score_at_once(pair, p):
    S, T = pair
    for which, pick in (("low", np.argmin), ("high", np.argmax)):
        So, To = R.rbo_tie_orders(S, T, which)
        assert So in tie_breakings(S) and To in tie_breakings(T)
        for score, f in SCORES.items():
            brute = _brute(S, T, p, score)
            assert f(So, To, p) == pytest.approx(brute[0] if which == "low" else brute[2], abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(tied_pair(), ps, st.integers(1, 8))
def test_base_rbo_at_a_depth_inside_a_tie_group(pair, p, depth):
    S, T = pair
    longest = max(sum(len(e) if isinstance(e, set) else 1 for e in r) for r in (S, T))
    depth = min(depth, longest)
    lo, avg, hi = _brute(S, T, p, "rbo", depth=depth)
    assert R.rbo_low(S, T, p, depth=depth, score="rbo") == pytest.approx(lo, abs=1e-12)
    assert R.rbo_high(S, T, p, depth=depth, score="rbo") == pytest.approx(hi, abs=1e-12)
    assert R.rbo_avg(S, T, p, depth=depth, score="rbo") == pytest.approx(avg, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(tied_pair(), ps)
def test_avg_is_rbo_a_where_the_authors_mean_holds(pair, p):
    """RBO^avg is RBO^a for the base RBO and RBO_min, and for RBO_ext of equal lengths; RBO_res
    does not depend on the order of the ties."""
    S, T = pair
    assert R.rbo_avg(S, T, p, score="rbo") == pytest.approx(R.rbo(S, T, p, ties="a"), abs=1e-12)
    assert R.rbo_avg(S, T, p, score="rbo_min") == pytest.approx(R.rbo_min(S, T, p, ties="a"), abs=1e-12)
    n = [sum(len(e) if isinstance(e, set) else 1 for e in r) for r in (S, T)]
    if n[0] == n[1]:
        assert R.rbo_avg(S, T, p) == pytest.approx(R.rbo_ext(S, T, p, ties="a"), abs=1e-12)
    assert R.rbo_low(S, T, p, score="rbo_res") == pytest.approx(R.rbo_high(S, T, p, score="rbo_res"), abs=1e-12)


def test_uneven_lists_where_avg_and_rbo_a_differ():
    """For lists of different lengths RBO^a_ext continues the short list at the agreement of
    depth s times the mean contribution of the unmatched items, which is not the mean over the
    orders: the two differ here, and brute force sides with rbo_avg."""
    S, T = [0], [{0, 1, 2}]
    lo, avg, hi = _brute(S, T, 0.8, "rbo_ext")
    assert R.rbo_avg(S, T, 0.8) == pytest.approx(avg, abs=1e-12)
    assert abs(R.rbo_ext(S, T, 0.8, ties="a") - avg) > 1e-3
    assert R.rbo_avg(S, T, 0.8, score="rbo_max") == pytest.approx(_brute(S, T, 0.8, "rbo_max")[1], abs=1e-12)


def test_without_ties_low_avg_high_are_the_score():
    S, T = list("abcdefg"), list("zcavwxy")
    for score, f in SCORES.items():
        v = f(S, T, 0.9)
        assert R.rbo_low(S, T, 0.9, score=score) == v
        assert R.rbo_high(S, T, 0.9, score=score) == v
        assert R.rbo_avg(S, T, 0.9, score=score) == pytest.approx(v, abs=1e-15)


def test_many_orders_no_enumeration():
    """Two lists of 60 items in groups of 6: (6!)^20 orders, far beyond enumeration."""
    rng = np.random.default_rng(3)
    chosen = rng.permutation(90)[:60]
    S = [set(chosen[i:i + 6].tolist()) for i in range(0, 60, 6)]
    T = [set(x.tolist()) for x in np.array_split(rng.permutation(90)[:60], 10)]
    lo, avg, hi = (f(S, T, 0.95) for f in (R.rbo_low, R.rbo_avg, R.rbo_high))
    assert 0.0 <= lo <= avg <= hi <= 1.0 and hi > lo
    # a random order of the ties lands inside the range
    for seed in range(20):
        r = np.random.default_rng(seed)
        So = [x for g in S for x in r.permutation(sorted(g)).tolist()]
        To = [x for g in T for x in r.permutation(sorted(g)).tolist()]
        assert lo - 1e-12 <= R.rbo_ext(So, To, 0.95) <= hi + 1e-12


@pytest.mark.parametrize("bad, match", [({"score": "ext"}, "score='ext' is not valid"),
                                        ({"p": 1.0}, "0 < p < 1")])
def test_bad_input(bad, match):
    kwargs = {"p": 0.9, **bad}
    for f in (R.rbo_low, R.rbo_high, R.rbo_avg):
        with pytest.raises(ValueError, match=match):
            f("a{bc}", "abc", **kwargs)
    with pytest.raises(ValueError, match="which='mid'"):
        R.rbo_tie_orders("a{bc}", "abc", "mid")
