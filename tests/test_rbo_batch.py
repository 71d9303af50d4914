"""rbo_batch, vectorised over pairs, against the functions of one pair on random lists with and
without ties, of equal and unequal length, empty, disjoint, with one p or one per pair."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import rbo as R

FUNCS = {"ext": R.rbo_ext, "min": R.rbo_min, "max": R.rbo_max, "res": R.rbo_res}


@st.composite
def ranking(draw, pool=12):
    items = draw(st.permutations(list(range(pool))))[: draw(st.integers(0, pool))]
    cuts = draw(st.lists(st.booleans(), min_size=len(items), max_size=len(items)))
    out, group = [], []
    for x, cut in zip(items, cuts):
        group.append(x)
        if cut:
            out.append(set(group) if len(group) > 1 else group[0])
            group = []
    if group:
        out.append(set(group) if len(group) > 1 else group[0])
    return out


pairs = st.lists(st.tuples(ranking(), ranking(), st.sampled_from([0.3, 0.5, 0.8, 0.9, 0.95, 0.99])),
                 min_size=1, max_size=12)


def _same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-13)


@settings(max_examples=150, deadline=None)
@given(pairs)
def test_batch_equals_the_single_functions(batch):
    S = [b[0] for b in batch]
    T = [b[1] for b in batch]
    p = [b[2] for b in batch]
    got = R.rbo_batch(S, T, p)
    for i, (a, b, q) in enumerate(batch):
        for v in R.TIES:
            for score, f in FUNCS.items():
                assert _same(got[f"{v}.{score}"][i], f(a, b, q, ties=v)), (v, score, a, b, q)


def test_one_p_for_all_a_subset_of_variants_and_no_pair():
    got = R.rbo_batch(["abc", "a{bc}"], ["acb", "cab"], 0.9, ties="b")
    assert sorted(got) == ["b.ext", "b.max", "b.min", "b.res"]
    assert got["b.ext"][0] == pytest.approx(R.rbo_ext("abc", "acb", 0.9), abs=1e-15)
    empty = R.rbo_batch([], [], 0.9)
    assert all(v.shape == (0,) for v in empty.values())


@pytest.mark.parametrize("S, T, p, match", [
    (["aba"], ["abc"], 0.9, "pair 0: item 'a' occurs more than once in S"),
    (["abc", "abc"], ["abc"], 0.9, "as many rankings, got 2 and 1"),
    (["abc"], ["abc"], [0.9, 0.8], "one per pair"),
    (["abc", "abc"], ["abc", "abc"], [0.9, 1.5], "pair 1: p must be a number with 0 < p < 1 "
                                                 r"\(the persistence\), got 1.5"),
    (["abc"], [[{"a"}, set()]], 0.9, "pair 0: T\\[1\\] is an empty tie group"),
])
def test_bad_input_names_the_pair(S, T, p, match):
    with pytest.raises(ValueError, match=match):
        R.rbo_batch(S, T, p)
    with pytest.raises(ValueError, match="ties must be one of 'w', 'a', 'b' .*; got 'x'"):
        R.rbo_batch(["a"], ["a"], 0.9, ties=("a", "x"))


def test_long_lists_and_extreme_p():
    rng = np.random.default_rng(4)
    S = [list(rng.permutation(300)[:200]) for _ in range(5)]
    T = [list(rng.permutation(300)[:250]) for _ in range(5)]
    p = [0.5, 0.9, 0.99, 0.999, 0.9999]
    got = R.rbo_batch(S, T, p, ties="w")
    for i in range(5):
        assert got["w.ext"][i] == pytest.approx(R.rbo_ext(S[i], T[i], p[i]), abs=1e-12)
        assert got["w.min"][i] == pytest.approx(R.rbo_min(S[i], T[i], p[i]), abs=1e-12)
        assert got["w.max"][i] == pytest.approx(R.rbo_max(S[i], T[i], p[i]), abs=1e-12)
