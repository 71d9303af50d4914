"""Tie-aware RBO (Corsi and Urbano, SIGIR 2024): the authors' own test vectors, a plain
re-implementation from the definitions, exact means over the orders of the tied items, and the
tie-free values when there is no tie."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import rbo as R
from rankbook.ledger.paths import data_path
from rankbook.ties import parse_ranking, tie_breakings

FUNCS = {"min": R.rbo_min, "max": R.rbo_max, "res": R.rbo_res, "ext": R.rbo_ext}


def _vectors():
    df = pd.read_csv(data_path("published", "corsi_urbano", "rbo_test_vectors.csv"), comment="#")
    return [row for _, row in df.iterrows()]


@pytest.mark.parametrize("row", _vectors(), ids=lambda r: r["x"][:20])
def test_the_authors_test_vectors(row):
    # their notation writes a tie group in parentheses; ours in braces
    x = parse_ranking(row["x"].replace("(", "{").replace(")", "}"))
    y = parse_ranking(row["y"].replace("(", "{").replace(")", "}"))
    for variant in R.TIES:
        for score, f in FUNCS.items():
            assert f(x, y, row["p"], ties=variant) == pytest.approx(row[f"{variant}.{score}"], abs=1e-10)


# ------------------------------------------------------------------------------------------
# a plain implementation of the three variants, item by item and depth by depth


def _flat(ranking):
    out, r = [], 0
    for e in ranking:
        group = sorted(e) if isinstance(e, (set, frozenset)) else [e]
        for x in group:
            out.append((x, r, r + len(group) - 1))
        r += len(group)
    return out


def _contrib(t, b, d, variant):  # d is the 1-based depth
    if variant == "w":
        return 1.0 if t + 1 <= d else 0.0
    if d >= b + 1:
        return 1.0
    if d >= t + 1:
        return (d - t) / (b - t + 1)
    return 0.0


def _plain(S, T, p, variant, tail_terms=4000):
    fS, fT = _flat(S), _flat(T)
    if len(fS) >= len(fT):
        fS, fT = fT, fS
    s, l = len(fS), len(fT)
    cS = {x: (t, b) for x, t, b in fS}
    cT = {x: (t, b) for x, t, b in fT}
    common = set(cS) & set(cT)
    missing = [x for x, _, _ in fT if x not in cS]  # the long list's items the short one lacks

    def c(table, x, d, v=variant):
        return _contrib(*table[x], d, "w" if v == "w" else "a")

    def agreement(x_d, d, short_sum, short_sq, long_sum, long_sq):
        if variant == "w":
            return 2 * x_d / (short_sum + long_sum)
        if variant == "a":
            return x_d / d
        return min(1.0, x_d / math.sqrt(short_sq * long_sq))

    a_min, a_max, a_ext = [], [], []
    for d in range(1, l + 1):
        x_d = sum(c(cS, x, d) * c(cT, x, d) for x in common)
        long_sum = sum(c(cT, x, d) for x in cT)
        long_sq = sum(c(cT, x, d) ** 2 for x in cT)
        if d <= s:
            short_sum = sum(c(cS, x, d) for x in cS)
            short_sq = sum(c(cS, x, d) ** 2 for x in cS)
            a = agreement(x_d, d, short_sum, short_sq, long_sum, long_sq)
            a_min.append(a), a_max.append(a), a_ext.append(a)
            continue
        a_s = a_ext[s - 1]
        extra = sum(c(cT, x, d) for x in missing[: d - s])
        nonzero = [c(cT, x, d) for x in missing if c(cT, x, d) > 0]
        a_min.append(agreement(x_d, d, d, d, long_sum, long_sq))
        a_max.append(agreement(x_d + extra, d, d, d, long_sum, long_sq))
        a_ext.append(agreement(x_d + (d - s) * a_s * np.mean(nonzero), d, d, d, long_sum, long_sq))
    x_l = len(common)
    w = [(1 - p) * p ** (d - 1) for d in range(1, l + 1)]
    seen = lambda a: sum(wi * ai for wi, ai in zip(w, a))  # noqa: E731
    lo = seen(a_min) + sum((1 - p) * p ** (d - 1) * x_l / d for d in range(l + 1, l + tail_terms))
    f = l + s - x_l
    hi = seen(a_max) + sum((1 - p) * p ** (d - 1) * (2 * d - l - s + x_l) / d for d in range(l + 1, f + 1)) + p**f
    ext = float("nan") if s == 0 else seen(a_ext) + (x_l + (l - s) * a_ext[s - 1]) / l * p**l
    return {"min": lo, "max": hi, "res": hi - lo, "ext": ext}


def _random_ranking(rng, pool, length, tie_share=0.5):
    items = [int(x) for x in rng.permutation(pool)[:length]]
    out, i = [], 0
    while i < len(items):
        g = min(int(rng.integers(2, 4)) if rng.random() < tie_share else 1, len(items) - i)
        out.append(set(items[i : i + g]) if g > 1 else items[i])
        i += g
    return out


@pytest.mark.parametrize("seed", range(40))
def test_every_variant_matches_a_plain_implementation(seed):
    rng = np.random.default_rng(seed)
    pool = int(rng.integers(3, 14))
    S = _random_ranking(rng, pool, int(rng.integers(1, pool + 1)))
    T = _random_ranking(rng, pool, int(rng.integers(1, pool + 1)))
    p = float(rng.choice([0.5, 0.8, 0.9, 0.95]))
    for variant in R.TIES:
        plain = _plain(S, T, p, variant)
        for score, f in FUNCS.items():
            assert f(S, T, p, ties=variant) == pytest.approx(plain[score], abs=1e-9), (variant, score, S, T)


# ------------------------------------------------------------------------------------------
# RBO^a as the mean over the orders of the tied items


@pytest.mark.parametrize("seed", range(60))
def test_rbo_a_is_the_mean_over_tie_breakings(seed):
    """RBO^a of the seen part (base RBO, RBO_min; RBO_ext for lists of equal length) is exactly
    the mean of the tie-free value over every order of the tied items of both lists."""
    rng = np.random.default_rng(100 + seed)
    pool = int(rng.integers(3, 9))
    n_s = int(rng.integers(1, pool + 1))
    n_t = n_s if seed % 2 else int(rng.integers(1, pool + 1))
    S, T = _random_ranking(rng, pool, n_s), _random_ranking(rng, pool, n_t)
    p = float(rng.choice([0.5, 0.9]))
    orders = [(a, b) for a in tie_breakings(S) for b in tie_breakings(T)]
    mean = lambda f: float(np.mean([f(a, b, p) for a, b in orders]))  # noqa: E731
    assert R.rbo(S, T, p, ties="a") == pytest.approx(mean(R.rbo), abs=1e-12)
    assert R.rbo_min(S, T, p, ties="a") == pytest.approx(mean(R.rbo_min), abs=1e-12)
    if n_s == n_t:
        assert R.rbo_ext(S, T, p, ties="a") == pytest.approx(mean(R.rbo_ext), abs=1e-12)


def test_rbo_a_max_can_fall_below_the_mean_of_the_tie_free_maxima():
    """The authors' upper bound uses one continuation for every order of the ties, so it can be
    lower than the mean of the tie-free upper bounds (a continuation cannot suit every order)."""
    S, T = [0], [{0, 1, 2}]
    orders = [(a, b) for a in tie_breakings(S) for b in tie_breakings(T)]
    mean_max = float(np.mean([R.rbo_max(a, b, 0.8) for a, b in orders]))  # 0.84
    assert R.rbo_max(S, T, 0.8, ties="a") == pytest.approx(0.8133333333333334, abs=1e-12)
    assert mean_max == pytest.approx(0.84, abs=1e-12)
    # it still bounds the expected RBO of every continuation of the short list by the long
    # list's two missing items (either order), then new items shared by both
    for tail in ([1, 2], [2, 1]):
        full = [(list(a) + tail + list(range(10, 400)), list(b) + list(range(10, 400))) for a, b in orders]
        expected = float(np.mean([R.rbo(a, b, 0.8) for a, b in full]))
        assert expected <= R.rbo_max(S, T, 0.8, ties="a") + 1e-12


# ------------------------------------------------------------------------------------------
# properties


@st.composite
def tied_pair(draw, pool=10):
    items = list(range(pool))
    out = []
    for _ in range(2):
        perm = draw(st.permutations(items))[: draw(st.integers(0, pool))]
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
    return out


ps = st.sampled_from([0.5, 0.8, 0.9, 0.95])


@settings(max_examples=150, deadline=None)
@given(tied_pair(), ps)
def test_bounds_order_and_variants(pair, p):
    S, T = pair
    for variant in R.TIES:
        lo, hi = R.rbo_bounds(S, T, p, ties=variant)
        assert 0.0 <= lo <= hi <= 1.0
        assert R.rbo_min(S, T, p, ties=variant) == lo and R.rbo_max(S, T, p, ties=variant) == hi
        assert R.rbo_res(S, T, p, ties=variant) == hi - lo
        ext = R.rbo_ext(S, T, p, ties=variant)
        assert math.isnan(ext) or 0.0 <= ext <= 1.0
        assert 0.0 <= R.rbo(S, T, p, ties=variant) <= lo + 1e-12
    # the correction of RBO^b never lowers RBO^a
    for f in FUNCS.values():
        if f is not R.rbo_res:
            a, b = f(S, T, p, ties="a"), f(S, T, p, ties="b")
            assert math.isnan(a) or b >= a - 1e-12


@settings(max_examples=100, deadline=None)
@given(tied_pair(), ps)
def test_a_ranking_with_ties_against_itself(pair, p):
    S, _ = pair
    if not S:
        return
    assert R.rbo_ext(S, S, p, ties="b") == 1.0
    assert R.rbo_ext(S, S, p, ties="w") == 1.0
    assert R.rbo_ext(S, S, p, ties="a") <= 1.0


@st.composite
def tie_free_pair(draw, pool=12):
    items = list(range(pool))
    s = draw(st.permutations(items))[: draw(st.integers(0, pool))]
    t = draw(st.permutations(items))[: draw(st.integers(0, pool))]
    return list(s), list(t)


@settings(max_examples=150, deadline=None)
@given(tie_free_pair(), ps, st.sampled_from(R.TIES))
def test_without_ties_every_variant_is_todays_rbo(pair, p, variant):
    S, T = pair
    # a set of one item is not a tie
    S1 = [{x} if i % 2 else x for i, x in enumerate(S)]
    for f in (R.rbo, R.rbo_min, R.rbo_max, R.rbo_res, R.rbo_ext, R.rbo_bounds):
        base, tied = f(S, T, p), f(S1, T, p, ties=variant)
        assert (base == tied) or (np.isnan(base).all() and np.isnan(tied).all())


def test_text_notation_and_depth_at_a_group_boundary():
    # A_2 = (1 + 1/4 + 1/4) / 2 and every other agreement is 1: 1 - w_2 / 4
    assert R.rbo_ext("a{bc}d", ["a", {"b", "c"}, "d"], 0.9) == pytest.approx(1.0 - 0.1 * 0.9 / 4, abs=1e-12)
    assert R.rbo_ext("a {b c} d", "a{bc}d", 0.9) == R.rbo_ext("a{bc}d", "a{bc}d", 0.9)
    assert R.rbo_min("a{bc}de", "abcde", 0.9, depth=3) == R.rbo_min("a{bc}", "abc", 0.9)
    with pytest.raises(ValueError, match="cuts the tie group"):
        R.rbo_ext("a{bc}de", "abcde", 0.9, depth=2)
