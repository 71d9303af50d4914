"""The 33 metrics on rankings with ties: every tie pattern up to n = 8 against brute force over
every order of the tied items (exact mean, best and worst), the tie-free values when there is no
tie, the order pessimistic <= expected <= optimistic, and the errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import metrics as M
from rankbook import tied_metrics as TM
from rankbook import ties as T


def compositions(n):
    """Every way to cut 1..n into consecutive tie groups (2**(n-1) of them)."""
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


def blocks_of(sizes):
    return np.repeat(np.arange(len(sizes)), sizes)


def n_orders(sizes):
    return math.prod(math.factorial(g) for g in sizes)


def brute_force(s, bs, v, bv, k):
    """Mean, best and worst of every metric over every pair of tie-breakings."""
    S, V = T._row_tie_breakings(s, bs), T._row_tie_breakings(v, bv)
    sig, nu = np.repeat(S, V.shape[0], axis=0), np.tile(V, (S.shape[0], 1))
    values = M.evaluate_many(M.NAMES, sig, nu, k=k)
    out = {}
    for name, x in values.items():
        hi_closer = M.REGISTRY[name].higher_is_closer
        finite = x[~np.isnan(x)]
        best = (finite.max() if hi_closer else finite.min()) if finite.size else np.nan
        worst = (finite.min() if hi_closer else finite.max()) if finite.size else np.nan
        out[name] = dict(expected=x.mean(), optimistic=best, pessimistic=worst, any_nan=bool(np.isnan(x).any()),
                         values=x)
    return out


def _cases(n, rng, limit=5_000):
    """Every composition of n as sigma's tie pattern and as nu's, the other side drawn at random
    among the patterns that keep the enumeration below ``limit``."""
    comps = list(compositions(n))
    cases = []
    for sizes in comps:
        for side in ("sigma", "nu"):
            others = [c for c in comps if n_orders(c) * n_orders(sizes) <= max(limit, n_orders(sizes))]
            other = others[int(rng.integers(len(others)))]
            bs, bv = (sizes, other) if side == "sigma" else (other, sizes)
            cases.append((rng.permutation(n) + 1, blocks_of(bs), rng.permutation(n) + 1, blocks_of(bv),
                          int(rng.integers(1, n + 1))))
    return cases


def _close(a, b):
    return bool(np.isclose(a, b, rtol=1e-9, atol=1e-10))


def _check(ours, truth, rule, name, case):
    t = truth[name]
    if rule == "expected":
        if t["any_nan"]:
            assert np.isnan(ours), (name, case)
        else:
            assert _close(ours, t["expected"]), (name, ours, t["expected"], case)
        return
    if np.isnan(ours):
        # the best (worst) order leaves the metric undefined (LR+ at TP = k, LR- at TN = 0, k = n)
        assert t["any_nan"], (name, rule, case)
        return
    assert _close(ours, t[rule]), (name, rule, ours, t[rule], case)


@pytest.mark.parametrize("n", range(1, 9))
def test_every_tie_pattern_against_brute_force(n):
    """Each composition of n into tie groups, as sigma's pattern and as nu's, with random items
    and k; all cases of one n go through one batch call per rule."""
    rng = np.random.default_rng(2008 + n)
    cases = _cases(n, rng)
    s, bs, v, bv = (np.array([c[i] for c in cases]) for i in range(4))
    ks = np.array([c[4] for c in cases])
    ours = {}
    for k in np.unique(ks):
        rows = np.flatnonzero(ks == k)
        for rule in T.TIES:
            out = M.evaluate_many(M.NAMES, T.WeakOrder(s[rows], bs[rows]), T.WeakOrder(v[rows], bv[rows]),
                                  k=int(k), ties=rule)
            for j, r in enumerate(rows):
                ours[(r, rule)] = {name: float(out[name][j]) for name in M.NAMES}
    for r, case in enumerate(cases):
        truth = brute_force(*case)
        for rule in T.TIES:
            for name in M.NAMES:
                _check(ours[(r, rule)][name], truth, rule, name, case)


def test_a_batch_of_weak_orders_equals_one_pair_at_a_time():
    rng = np.random.default_rng(7)
    cases = _cases(6, rng, limit=2000)
    s = np.array([c[0] for c in cases])
    bs = np.array([c[1] for c in cases])
    v = np.array([c[2] for c in cases])
    bv = np.array([c[3] for c in cases])
    k = 3
    for rule in T.TIES:
        batch = M.evaluate_many(M.NAMES, T.WeakOrder(s, bs), T.WeakOrder(v, bv), k=k, ties=rule)
        for r in range(0, len(cases), 7):
            one = M.evaluate_many(M.NAMES, T.WeakOrder(s[r], bs[r]), T.WeakOrder(v[r], bv[r]), k=k, ties=rule)
            for name in M.NAMES:
                np.testing.assert_allclose(batch[name][r], one[name], rtol=1e-12, equal_nan=True)


def test_where_tied_items_ordered_as_the_other_ranking_are_not_the_extremes():
    """The position metrics are exactly those where ordering ties as the other ranking does can
    miss the best value; the item metrics never do (every pattern up to n = 6 here, n = 8 in the
    test above through the optimistic/pessimistic values)."""
    rng = np.random.default_rng(3)
    missed = set()
    for n in range(2, 7):
        for s, bs, v, bv, k in _cases(n, rng, limit=5000):
            truth = brute_force(s, bs, v, bv, k)
            so, vo = TM._item_tie_break(s[None], bs[None], v[None], bv[None], True)
            as_other = M.evaluate_many(M.NAMES, so, vo, k=k)
            for name in M.NAMES:
                x, best = float(as_other[name][0]), truth[name]["optimistic"]
                if not (np.isnan(x) or np.isclose(x, best, rtol=1e-9, atol=1e-12)):
                    missed.add(name)
    assert missed == set(TM.POSITION_METRICS)


# ------------------------------------------------------------------------------------------
# properties


@st.composite
def weak_pair(draw, max_n=7):
    n = draw(st.integers(1, max_n))
    out = []
    for _ in range(2):
        perm = np.array(draw(st.permutations(range(1, n + 1))))
        cuts = draw(st.lists(st.booleans(), min_size=n - 1, max_size=n - 1))
        out.append(T.WeakOrder(perm, np.concatenate([[0], np.cumsum(cuts)])))
    k = draw(st.integers(1, n))
    return out[0], out[1], k


@settings(max_examples=60, deadline=None)
@given(weak_pair())
def test_pessimistic_expected_optimistic_are_ordered(pair):
    sigma, nu, k = pair
    names = list(M.NAMES)
    if T.n_tie_breakings(sigma.blocks) * T.n_tie_breakings(nu.blocks) > T.MAX_TIE_BREAKINGS:
        names.remove("rmse")  # its expected value enumerates (tested in test_errors_name_the_problem)
    vals = {rule: M.evaluate_many(names, sigma, nu, k=k, ties=rule) for rule in T.TIES}
    for name in names:
        lo, mid, hi = (float(vals[r][name]) for r in ("pessimistic", "expected", "optimistic"))
        if np.isnan([lo, mid, hi]).any():
            continue
        if not M.REGISTRY[name].higher_is_closer:
            lo, hi = -lo, -hi
            mid = -mid
        assert lo - 1e-9 <= mid <= hi + 1e-9, name


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30).flatmap(lambda n: st.tuples(st.permutations(range(1, n + 1)),
                                                     st.permutations(range(1, n + 1)),
                                                     st.integers(1, n))),
       st.sampled_from(T.TIES))
def test_without_ties_all_three_equal_todays_values(case, rule):
    s, v, k = (np.array(case[0]), np.array(case[1]), case[2])
    today = M.evaluate_many(M.NAMES, s, v, k=k)
    n = s.shape[0]
    for sigma, nu in ((T.WeakOrder(s, np.arange(n)), v), (s, T.WeakOrder(v, np.arange(n))),
                      (list(s), [set([int(v[0])])] + list(v[1:]))):
        tied = M.evaluate_many(M.NAMES, sigma, nu, k=k, ties=rule)
        for name in M.NAMES:
            np.testing.assert_array_equal(tied[name], today[name])
    assert M.evaluate("mse", s, v, ties=rule) == today["mse"]


def test_list_notation_and_ranks():
    sigma = [1, 2, 3, 4, 5]
    nu = [2, {1, 3}, 5, 4]
    w = T.WeakOrder.from_ranks([2, 1, 2, 4, 3])  # item 1 and 3 share rank 2
    assert w.to_list() == nu
    for rule in T.TIES:
        a = M.evaluate_many(M.NAMES, sigma, nu, k=2, ties=rule)
        b = M.evaluate_many(M.NAMES, sigma, w, k=2, ties=rule)
        for name in M.NAMES:
            np.testing.assert_array_equal(a[name], b[name])
    # the per-metric functions route the same way
    assert M.kendall_tau(sigma, nu, ties="expected") == a_k if (a_k := float(
        M.evaluate_many(["kendall_tau"], sigma, nu, ties="expected")["kendall_tau"])) else True


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="nu has tied items; choose ties="):
        M.recall([1, 2, 3], [1, {2, 3}], k=1)
    with pytest.raises(ValueError, match="ties must be one of 'optimistic', 'pessimistic', 'expected'.*; got 'random'"):
        M.recall([1, 2, 3], [1, {2, 3}], k=1, ties="random")
    with pytest.raises(ValueError, match="ties must be one of .*; got 'median'"):
        M.recall([1, 2, 3], [1, 2, 3], k=1, ties="median")
    with pytest.raises(ValueError, match="entry 1 is a list"):
        M.mse([1, 2, 3], [{1}, [2, 3]], ties="expected")
    with pytest.raises(ValueError, match="value 4 outside 1..3"):
        M.mse([1, 2, 3], [1, {2, 4}], ties="expected")
    with pytest.raises(ValueError, match="non-decreasing"):
        T.WeakOrder([1, 2, 3], [0, 1, 0])
    with pytest.raises(ValueError, match="positions 1-10, more than rankbook.ties.MAX_TIE_BREAKINGS"):
        M.rmse(list(range(1, 21)), [set(range(1, 11)), set(range(11, 21))], ties="expected")
    both = [set(range(1, 11)), set(range(11, 21))]
    with pytest.raises(ValueError, match="both rankings have ties"):
        M.mse(both, both, ties="optimistic")
    with pytest.raises(ValueError, match="kendall_tau with ties='pessimistic': both rankings have ties"):
        M.kendall_tau([1, {2, 3}] + [{2 * i, 2 * i + 1} for i in range(2, 20)] + [40],
                      [{1, 2}] + [{2 * i + 1, 2 * i + 2} for i in range(1, 20)], ties="pessimistic")


def test_separable_extremes_and_rmse_scale_by_stretches():
    """Two rankings of 60 items with ties of two everywhere on both sides: 2**30 orders each,
    but no tie group crosses position 2j, so the exact search and the law of the RMSE work
    stretch by stretch (checked against brute force on the first 8 items)."""
    sigma = [{2 * i + 1, 2 * i + 2} for i in range(30)]
    nu = [{2 * i + 2, 2 * i + 1} for i in range(30)][::-1]
    for rule in T.TIES:
        big = M.evaluate_many(["mse", "rmse", "mae", "mape", "smape"], sigma, nu, ties=rule)
        assert all(np.isfinite(float(x)) for x in big.values())
    s8, v8 = sigma[:4], [{1, 2}, {3, 4}, {5, 6}, {7, 8}][::-1]
    truth = brute_force(*_arrays(s8), *_arrays(v8), 1)
    for rule in T.TIES:
        ours = M.evaluate_many(TM.POSITION_METRICS, s8, v8, ties=rule)
        for name in TM.POSITION_METRICS:
            _check(float(ours[name]), truth, rule, name, (s8, v8))


def _arrays(ranking):
    w = T.WeakOrder.from_list(ranking)
    return w.order, w.blocks


def test_closed_forms_scale_where_enumeration_cannot():
    """n = 60 with two groups of 30 tied items on each side: 30!**4 orders; the closed forms are
    still exact (checked here against their tie-free limits and symmetric cases)."""
    n = 60
    sigma = list(range(1, n + 1))
    nu = [set(range(1, 31)), set(range(31, 61))]
    out = M.evaluate_many([x for x in M.NAMES if x != "rmse"], sigma, nu, k=30, ties="expected")
    # the two top-30 sets coincide whatever the orders: every confusion metric is at its best
    assert float(out["recall"]) == 1.0 and float(out["precision"]) == 1.0
    assert np.isnan(out["lr_plus"])  # FPR = 0 in every order
    # Spearman: E[sum d^2] = sum over the two groups of 2 * 30 * var(1..30)
    var = (30**2 - 1) / 12
    assert float(out["mse"]) == pytest.approx(2 * 2 * 30 * var / n, rel=1e-12)
    # Kendall: the 2 * C(30, 2) pairs inside a group are discordant with probability 1/2
    assert float(out["kendall_tau"]) == pytest.approx(1 - 2 * (2 * 435 * 0.5) / (n * (n - 1) / 2), rel=1e-12)


# --------------------------------------------------------------------------------------------
# issue 31: the O(n)-memory kernels of the expected Kendall discordance and NDPM


def _weak_pair(data, n):
    sizes_s = data.draw(st.lists(st.integers(1, n), min_size=1).filter(lambda x: sum(x) >= n))
    sizes_v = data.draw(st.lists(st.integers(1, n), min_size=1).filter(lambda x: sum(x) >= n))
    def cut(sizes):
        out, total = [], 0
        for g in sizes:
            g = min(g, n - total)
            if g <= 0:
                break
            out.append(g)
            total += g
        return blocks_of(out)
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    return rng.permutation(n) + 1, cut(sizes_s), rng.permutation(n) + 1, cut(sizes_v)


def _quadratic_kendall(s, bs, v, bv):
    """The O(n^2)-memory formula the kernels replace: sum over i < j of qs(1-qv) + (1-qs)qv."""
    qs, qv = TM._q_greater(s[None], bs[None]), TM._q_greater(v[None], bv[None])
    n = s.size
    return float(((qs * (1 - qv) + (1 - qs) * qv) * np.triu(np.ones((n, n), bool), 1)).sum())


@settings(max_examples=150, deadline=None)
@given(st.data(), st.integers(1, 40))
def test_kendall_kernels_equal_the_quadratic_formula(data, n):
    s, bs, v, bv = _weak_pair(data, n)
    want = _quadratic_kendall(s, bs, v, bv)
    chosen = TM._expected_kendall_long(s, bs, v, bv)
    groups = TM._expected_kendall_groups(s, bs, v, bv)
    assert chosen == pytest.approx(want, rel=1e-12, abs=1e-9)
    assert groups == pytest.approx(want, rel=1e-12, abs=1e-9)
    for tau in (0, 1, 2, 4, n):  # every split between point cloud and group sums
        split = TM._expected_kendall_split(s, bs, v, bv, tau)
        assert split == pytest.approx(want, rel=1e-12, abs=1e-9), tau


@pytest.mark.parametrize("n", [3, 5, 7])
def test_kendall_kernels_against_every_tie_breaking(n):
    """Both kernels against the mean over every pair of tie-breakings (brute force)."""
    rng = np.random.default_rng(n)
    for _ in range(12):
        s, v = rng.permutation(n) + 1, rng.permutation(n) + 1
        bs = np.cumsum(np.r_[True, rng.random(n - 1) < 0.4])
        bv = np.cumsum(np.r_[True, rng.random(n - 1) < 0.4])
        S, V = T._row_tie_breakings(s, bs), T._row_tie_breakings(v, bv)
        tau = M.kendall_tau(np.repeat(S, V.shape[0], axis=0), np.tile(V, (S.shape[0], 1)))
        want = (1 - tau.mean()) * n * (n - 1) / 4  # mean discordant pairs
        assert TM._expected_kendall_long(s, bs, v, bv) == pytest.approx(want, rel=1e-12, abs=1e-12)
        assert TM._expected_kendall_groups(s, bs, v, bv) == pytest.approx(want, rel=1e-12, abs=1e-12)
        assert TM._expected_kendall_split(s, bs, v, bv, 1) == pytest.approx(want, rel=1e-12, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.data(), st.integers(1, 40))
def test_ndpm_counts_equal_the_pairwise_formula(data, n):
    s, bs, v, bv = _weak_pair(data, n)
    bsi, bvi = TM._by_item(s[None], bs[None]), TM._by_item(v[None], bv[None])
    ps = 0.5 * (np.sign(bsi[:, :, None] - bsi[:, None, :]) + 1)
    pv = 0.5 * (np.sign(bvi[:, :, None] - bvi[:, None, :]) + 1)
    want = ((ps * (1 - pv) + (1 - ps) * pv) * np.triu(np.ones((n, n), bool), 1)).sum()
    assert TM._expected_item_discordant(s[None], bs[None], v[None], bv[None])[0] == want


@pytest.mark.parametrize("pattern", ["small", "big_and_small"])
def test_long_weak_orders_take_linear_memory(pattern):
    """n = 3000 (the old formula held several n x n float arrays, 290 MB here): the traced peak
    stays under 40 MB, and the value is the group sums' too. "big_and_small": a tie of half the
    items in each ranking, offset, among singletons (the point cloud alone would hold n^2 / 4
    points)."""
    import tracemalloc

    rng = np.random.default_rng(31)
    n = 3000
    s, v = rng.permutation(n) + 1, rng.permutation(n) + 1
    if pattern == "small":
        bs = np.cumsum(np.r_[True, rng.random(n - 1) < 0.3])
        bv = np.cumsum(np.r_[True, rng.random(n - 1) < 0.3])
    else:
        bs = blocks_of([n // 2] + [1] * (n - n // 2))
        bv = blocks_of([1] * (n // 4) + [n // 2] + [1] * (n - n // 4 - n // 2))
    sigma, nu = T.WeakOrder(s, bs), T.WeakOrder(v, bv)
    tracemalloc.start()
    try:
        tau = float(M.kendall_tau(sigma, nu, ties="expected"))
        ndpm = float(M.ndpm(sigma, nu, ties="expected"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40e6, peak
    groups = TM._expected_kendall_groups(s, bs, v, bv)
    assert tau == pytest.approx(1 - 4 * groups / (n * (n - 1)), rel=1e-12)
    assert 0 <= ndpm <= 1


def test_a_ranking_with_repeated_ranks_is_refused_with_the_way_to_give_ties():
    from rankbook import metrics

    with pytest.raises(ValueError, match=r"duplicate values \[2\].*a list holding sets of tied items") as exc:
        metrics.kendall_tau([1, 2, 2, 3], [1, 2, 3, 4])
    assert exc.value.__context__ is None and exc.value.__cause__ is None  # one traceback
    assert metrics.kendall_tau([{1, 2}, 3, 4], [1, 2, 3, 4], ties="expected") == pytest.approx(5 / 6)
