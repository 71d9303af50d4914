"""Tests for rankbook.properties: the done-when verdicts of issue 3, brute force on S_4,
exact DCG arithmetic, hypothesis invariants and validation."""

import itertools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import metrics as M
from rankbook import permutations as P
from rankbook import properties as pr

RIGHT_INVARIANT = ("mse", "rmse", "mae", "mape", "smape", "r2", "kendall_tau", "spearman_rho")
# metrics that are symmetric in (sigma, nu) when relevant = retrieved (same k for both)
SYMMETRIC = tuple(
    name for name in M.NAMES if name not in ("mape", "dcg", "ndcg", "mrr", "gmr", "mean_rank")
)


def value(name, s, v, k):
    return float(M.evaluate(name, np.asarray(s), np.asarray(v), k=k))


# ------------------------------------------------------------------------------------------
# the done-when checks of issue 3


def test_dcg_identity_of_indiscernibles_fails_at_7_with_exact_evidence():
    r = pr.identity_of_indiscernibles("dcg", 7)
    assert r.holds is False and r.method == "exhaustive"
    ev = r.evidence
    s, t, v = ev.ranking("sigma"), ev.ranking("tau"), ev.ranking("nu")
    assert not np.array_equal(t, v)
    a, b = value("dcg", s, t, None), value("dcg", s, v, None)
    assert a == pytest.approx(b, abs=1e-12)
    assert ev.value("m(sigma, tau)") == pytest.approx(a) and ev.value("m(sigma, nu)") == pytest.approx(b)
    assert ev.exact, "the collision must carry an exact-arithmetic certificate"
    # independent exact check: the relative permutations differ only where log2(i+1) is an
    # integer (positions 1, 3, 7), and there the rational sums agree
    pt = P.compose(P.inverse(t), s)
    pv = P.compose(P.inverse(v), s)
    diff = np.flatnonzero(pt != pv) + 1
    assert set(diff.tolist()) <= {1, 3, 7}
    exact = lambda p: sum(Fraction(int(p[i - 1]), int(math.log2(i + 1))) for i in (1, 3, 7))  # noqa: E731
    assert exact(pt) == exact(pv)


def test_dcg_identity_of_indiscernibles_holds_at_6():
    r = pr.identity_of_indiscernibles("dcg", 6)
    assert r.holds is True and r.method == "exhaustive" and r.evidence is None
    assert r.checked == math.factorial(6) ** 2


def test_ndcg_behaves_like_dcg():
    assert pr.identity_of_indiscernibles("ndcg", 6).holds is True
    r = pr.identity_of_indiscernibles("ndcg", 7)
    assert r.holds is False and r.evidence.exact


def test_symmetry_kendall_and_dcg():
    assert pr.symmetry("kendall_tau", 6).holds is True
    r = pr.symmetry("dcg", 6)
    assert r.holds is False
    s, v = r.evidence.ranking("sigma"), r.evidence.ranking("nu")
    assert value("dcg", s, v, None) != pytest.approx(value("dcg", v, s, None))


@pytest.mark.parametrize("n", [4, 5])
def test_type_ii_robustness_exactly_the_eight(n):
    holds = {name for name in M.NAMES if pr.type_ii_robustness(name, n).holds}
    assert holds == set(RIGHT_INVARIANT)


def test_type_ii_robustness_n6_and_random_n12():
    pr.precompute(None, 6)
    for name in M.NAMES:
        r6 = pr.type_ii_robustness(name, 6)
        r12 = pr.type_ii_robustness(name, 12, n_samples=400)
        assert r6.method == "exhaustive" and r12.method == "random"
        assert r6.holds == r12.holds == (name in RIGHT_INVARIANT), name
        # every one of the 33 is invariant on exactly one side
        assert r6.left_invariant == (name not in RIGHT_INVARIANT), name
        if not r6.holds:
            ev = r6.evidence
            k = pr.default_k(6) if M.REGISTRY[name].needs_k else None
            before = value(name, ev.ranking("sigma"), ev.ranking("nu"), k)
            after = value(name, ev.ranking("sigma o tau"), ev.ranking("nu o tau"), k)
            assert np.array_equal(ev.ranking("sigma o tau"), P.compose(ev.ranking("sigma"), ev.ranking("tau")))
            assert not (before == after or (np.isnan(before) and np.isnan(after)))
            assert sorted(ev.ranking("tau").tolist()) == list(range(1, 7))
            assert int((ev.ranking("tau") != P.identity(6)).sum()) == 2  # a transposition


def test_type_ii_scan_path_matches_matrix_path(monkeypatch):
    # force the orbit scan (used for n = 7) on small n and compare with the matrix verdicts
    expected = {name: pr.type_ii_robustness(name, 5) for name in M.NAMES}
    monkeypatch.setattr(pr, "MATRIX_MAX_N", 3)
    for name in M.NAMES:
        r = pr.type_ii_robustness(name, 5)
        assert r.method == "exhaustive"
        assert (r.holds, r.left_invariant) == (expected[name].holds, expected[name].left_invariant), name
        for ev, side in ((r.evidence, "right"), (r.left_evidence, "left")):
            if ev is None:
                continue
            k = pr.default_k(5) if M.REGISTRY[name].needs_k else None
            names = ("sigma o tau", "nu o tau") if side == "right" else ("tau o sigma", "tau o nu")
            a = value(name, ev.ranking("sigma"), ev.ranking("nu"), k)
            b = value(name, ev.ranking(names[0]), ev.ranking(names[1]), k)
            assert not (a == b or (np.isnan(a) and np.isnan(b))), (name, side)


def test_type_ii_scan_at_n7_stops_early():
    f = lambda s, v: 10.0 * s[..., 0] + v[..., 1]  # noqa: E731  invariant on neither side
    r = pr.type_ii_robustness(f, 7)
    assert r.method == "exhaustive" and not r.holds and not r.left_invariant
    assert r.checked < math.factorial(7) ** 2


# ------------------------------------------------------------------------------------------
# brute force on S_4 with plain Python loops, for every metric


def _brute(name, n, k):
    perms = [tuple(p) for p in itertools.permutations(range(1, n + 1))]
    arr = np.array(perms)
    S = np.repeat(arr, len(arr), axis=0)
    V = np.tile(arr, (len(arr), 1))
    vals = np.asarray(M.evaluate(name, S, V, k=k), dtype=float)
    table = {(a, b): vals[i * len(perms) + j] for i, a in enumerate(perms) for j, b in enumerate(perms)}

    def eq(x, y):
        return (np.isnan(x) and np.isnan(y)) or abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))

    def comp(s, t):
        return tuple(s[t[i] - 1] for i in range(n))

    sym = all(eq(table[a, b], table[b, a]) for a in perms for b in perms)
    right = all(eq(table[a, b], table[comp(a, t), comp(b, t)]) for a in perms for b in perms for t in perms)
    left = all(eq(table[a, b], table[comp(t, a), comp(t, b)]) for a in perms for b in perms for t in perms)
    ioi = all(
        not eq(table[s, a], table[s, b]) for s in perms for a in perms for b in perms if a != b
    )
    diag = [table[a, a] for a in perms]
    top = max(x for x in table.values() if not np.isnan(x))
    maxagree = all(eq(d, diag[0]) for d in diag) and top <= diag[0] + 1e-9  # nan diagonal: False
    return dict(symmetry=sym, right=right, left=left, ioi=ioi, maximal=maxagree)


@pytest.mark.parametrize("k", [1, 2])
def test_against_brute_force_on_s4(k):
    n = 4
    for name in M.NAMES:
        kk = k if M.REGISTRY[name].needs_k else None
        b = _brute(name, n, k)
        t2 = pr.type_ii_robustness(name, n, k=kk)
        assert pr.symmetry(name, n, k=kk).holds == b["symmetry"], name
        assert t2.holds == b["right"], name
        assert t2.left_invariant == b["left"], name
        assert pr.identity_of_indiscernibles(name, n, k=kk).holds == b["ioi"], name
        assert pr.maximal_agreement(name, n, k=kk).holds == b["maximal"], name


def test_triangle_against_brute_force_on_s4():
    n = 4
    perms = [np.array(p) for p in itertools.permutations(range(1, n + 1))]
    for name in ("mse", "rmse", "mae", "smape", "kendall_tau", "ndpm", "dcg", "mape", "precision"):
        k = 1 if M.REGISTRY[name].needs_k else None
        d0 = value(name, perms[0], perms[0], k)
        sign = -1 if M.REGISTRY[name].higher_is_closer else 1
        f = {(tuple(a), tuple(b)): sign * (value(name, a, b, k) - d0) for a in perms for b in perms}
        brute = all(
            f[tuple(a), tuple(c)] <= f[tuple(a), tuple(b)] + f[tuple(b), tuple(c)] + 1e-9
            for a in perms for b in perms for c in perms
        )
        assert pr.triangle_inequality(name, n, k=k, transform="eq7").triangle == brute, name


# ------------------------------------------------------------------------------------------
# distance, agreement, equivalence


def test_is_distance_verdicts():
    expected_true = {"rmse", "mae", "smape", "kendall_tau", "ndpm"}
    for name in ("mse", "rmse", "mae", "mape", "smape", "r2", "kendall_tau", "spearman_rho", "ndpm", "dcg"):
        r = pr.is_distance(name, 5)
        assert r.holds == (name in expected_true), (name, r)
        if not r.holds:
            assert r.evidence is not None
    r = pr.is_distance("kendall_tau", 5)
    assert r.sign == -1 and r.offset == 1.0 and r.note == "f = 1 - m"
    mse = pr.is_distance("mse", 5)
    assert mse.nonnegative and mse.identity and mse.symmetric and mse.triangle is False
    trip = mse.evidence
    s, v, u = trip.ranking("sigma"), trip.ranking("nu"), trip.ranking("mu")
    assert value("mse", s, u, None) > value("mse", s, v, None) + value("mse", v, u, None)
    assert pr.is_distance("mae", 5, transform="none").holds is True
    assert pr.is_distance("kendall_tau", 5, transform="none").holds is False


def test_is_distance_random_path_agrees():
    for name, want in (("rmse", True), ("mse", False), ("mape", False)):
        assert pr.is_distance(name, 9, n_samples=20_000).holds == want, name


def test_dcg_absolute_difference_is_not_a_distance_from_7():
    # Prop. 6.4: f(sigma, nu) = |DCG(sigma) - DCG(nu)| with the one-argument DCG
    f = lambda s, v: np.abs(pr.dcg_single(s) - pr.dcg_single(v))  # noqa: E731
    f.__name__ = "abs_dcg_difference"
    assert pr.is_distance(f, 6, transform="none").holds is True
    r = pr.is_distance(f, 7, transform="none", n_samples=2000)
    # random triples rarely hit a collision, so check the exhaustive collision list instead
    hits = pr.dcg_collisions(7)
    first, second = hits[hits.verdict == "equal"].iloc[0][["first", "second"]]
    assert f(np.array(first), np.array(second)) == pytest.approx(0, abs=1e-12)
    assert r.method == "random"


def test_maximal_and_minimal_agreement():
    r = pr.maximal_agreement("kendall_tau", 5)
    assert r.holds and r.bound == 1.0 and r.strict is True
    assert pr.maximal_agreement("mse", 5).holds is False
    r = pr.maximal_agreement("mse", 5, orientation="closeness")
    assert r.holds and r.bound == 0.0 and r.strict is True
    r = pr.maximal_agreement("precision", 5, k=2)
    assert r.holds and r.strict is False  # Prop. 7.2: maximal agreement without IoI
    # Prop. 7.2 direction: IoI (dcg, n = 6) comes with a strict maximum in closeness orientation
    r = pr.maximal_agreement("dcg", 6, orientation="closeness")
    assert r.holds and r.strict
    lo = pr.minimal_agreement("kendall_tau", 5)
    assert lo.holds and lo.bound == -1.0
    # tau on the raw arrays: the complement n+1-sigma reaches -1, the reversed list does not
    assert lo.attained_at_complement is True and lo.attained_at_reverse is False
    lo = pr.minimal_agreement("ndpm", 5, orientation="closeness")
    assert lo.bound == -1.0 and lo.attained_at_reverse is True


def test_linear_equivalence():
    assert pr.linearly_equivalent("dcg", "ndcg", 5).holds
    r = pr.linearly_equivalent("recall", "fnr", 6, k=2)
    assert r.holds and r.slope == pytest.approx(-1) and r.intercept == pytest.approx(1)
    assert pr.linearly_equivalent("precision", "recall", 6, k=2).holds
    r = pr.linearly_equivalent("spearman_rho", "r2", 5)  # R2 = 2 rho - 1 on permutations
    assert r.holds and r.slope == pytest.approx(2) and r.intercept == pytest.approx(-1)
    r = pr.linearly_equivalent("mse", "rmse", 5)
    assert not r.holds and "line" in r.evidence.what
    assert not pr.linearly_equivalent("kendall_tau", "ndpm", 5).holds
    assert pr.linearly_equivalent("mse", "spearman_rho", 12, n_samples=3000).holds


# ------------------------------------------------------------------------------------------
# swaps: WSD, sensitivity, Lemma 6.3


def test_width_swap_dependency_and_lemma_6_3():
    n = 9
    r = pr.width_swap_dependency("kendall_tau", n)
    assert r.holds and r.method == "exhaustive"
    c = n * (n - 1) / 2
    for i, j, tau in r.swaps:
        assert tau == pytest.approx((c - 4 * (j - i) + 2) / c)
    assert len(r.swaps) == n * (n - 1) // 2
    for name in ("mse", "rmse", "mae", "r2", "spearman_rho", "ndpm"):
        assert pr.width_swap_dependency(name, n).holds, name
    for name in ("mape", "smape", "dcg", "ndcg"):
        r = pr.width_swap_dependency(name, n)
        assert not r.holds and "width" in r.evidence.what
    # the all-references reading fails for Kendall: swaps of equal width in other rankings differ
    assert not pr.width_swap_dependency("kendall_tau", 5, reference="all").holds


def test_sensitivity_readings():
    r = pr.sensitivity("dcg", 8)
    assert r.exists and r.forall and r.holds
    r = pr.sensitivity("kendall_tau", 8)
    assert not r.exists and not r.forall and r.forall_evidence is not None
    r = pr.sensitivity("precision", 8, k=2, reading="exists")
    # (1 2) stays inside the top 2, (2 3) crosses the cut, (5 6) stays outside: exists, not forall
    assert r.exists and not r.forall and r.holds
    assert pr.sensitivity("precision", 8, k=2).holds is False


# ------------------------------------------------------------------------------------------
# stability and Type I robustness


def test_stability_matches_direct_computation():
    n, pairs, seed = 60, 300, 3
    r = pr.stability("recall", n, k=[1, 5, 14], n_pairs=pairs, seed=seed)
    rng = np.random.default_rng(seed)
    s, v = P.random(n, pairs, rng), P.random(n, pairs, rng)
    for kk, rate in zip(r.ks, r.pass_rates):
        d = np.abs(M.evaluate("recall", s, v, k=kk) - M.evaluate("recall", s, v, k=kk + 1))
        assert rate == pytest.approx(np.mean(d < 1 / kk))
    assert r.holds == all(x >= 0.975 for x in r.pass_rates)
    flat = pr.stability("kendall_tau", n, n_pairs=10)
    assert flat.holds and flat.pass_rates == (1.0,) and "does not use k" in flat.note


def test_type_i_robustness_matches_direct_computation():
    n, pairs, seed = 10, 500, 7
    sw = pr.type_i_robustness("mse", n, n_pairs=pairs, seed=seed)
    sl = pr.type_i_robustness("mse", n, change="slide", n_pairs=pairs, seed=seed)
    rng = np.random.default_rng(seed)
    s, v = P.random(n, pairs, rng), P.random(n, pairs, rng)
    i = rng.integers(0, n, pairs)
    j = (i + rng.integers(1, n, pairs)) % n
    tau = P.transposition(n, i + 1, j + 1)
    d_swap = np.abs(M.mse(s, v) - M.mse(s, P.compose(v, tau)))
    d_slide = np.abs(M.mse(s, v) - M.mse(s, np.roll(v, -1, axis=-1)))
    assert sw.mean == pytest.approx(d_swap.mean()) and sw.sd == pytest.approx(d_swap.std(ddof=1))
    assert sl.mean == pytest.approx(d_slide.mean())
    assert sw.se == pytest.approx(sw.sd / math.sqrt(pairs))
    assert pr.type_i_robustness("mse", n, n_pairs=pairs, seed=seed) == sw  # deterministic
    # NDPM under a slide: only the pairs with the item x = nu(1) change order, so the change is
    # |n + 1 - 2 p| / C(n, 2) with p the position of x in sigma; its mean over p is 1/(n-1)
    n2 = 10
    r = pr.type_i_robustness("ndpm", n2, change="slide", n_pairs=400, seed=1)
    rng = np.random.default_rng(1)
    s, v = P.random(n2, 400, rng), P.random(n2, 400, rng)
    p = P.inverse(s)[np.arange(400), v[:, 0] - 1]
    closed = np.abs(n2 + 1 - 2 * p) / (n2 * (n2 - 1) / 2)
    assert r.mean == pytest.approx(closed.mean(), abs=1e-12)
    assert np.mean(np.abs(n2 + 1 - 2 * np.arange(1, n2 + 1))) / 45 == pytest.approx(1 / 9)
    lr = pr.type_i_robustness("lr_plus", 10, k=3, n_pairs=2000)
    assert lr.n_undefined > 0 and lr.n_valid + lr.n_undefined == 2000


# ------------------------------------------------------------------------------------------
# exact DCG arithmetic


def test_dcg_collisions_exact():
    assert (pr.dcg_collisions(6).verdict == "equal").sum() == 0
    t7 = pr.dcg_collisions(7)
    eq = t7[t7.verdict == "equal"]
    assert len(eq) > 0
    with localcontext() as ctx:
        ctx.prec = 50
        for first, second in zip(eq["first"], eq["second"]):
            assert first != second
            d = sum(Decimal(a - b) * Decimal(2).ln() / Decimal(i + 1).ln()
                    for i, (a, b) in enumerate(zip(first, second), start=1))
            assert abs(d) < Decimal("1e-45")
    # every proved collision at n = 7 moves items only between positions 1, 3 and 7
    for first, second in zip(eq["first"], eq["second"]):
        moved = {i + 1 for i in range(7) if first[i] != second[i]}
        assert moved <= {1, 3, 7}


def test_dcg_exact_compare():
    assert pr.dcg_exact_compare([4, 2, 5, 3, 6, 7, 1], [5, 2, 1, 3, 6, 7, 4])[0] == "equal"
    assert pr.dcg_exact_compare([2, 1, 3], [1, 2, 3])[0] == "different"
    e = pr.dcg_exact([1, 2, 3, 4, 5, 6, 7, 8])
    # positions 2 and 8 share log2(3) (log2 9 = 2 log2 3): 2 + 8/2
    assert e[((3, 1),)] == Fraction(6)


# ------------------------------------------------------------------------------------------
# hypothesis: invariants of the metrics themselves


def perm_pairs(min_n=3, max_n=25):
    def build(n):
        p = st.permutations(list(range(1, n + 1)))
        return st.tuples(st.just(n), p, p, p, st.integers(1, max(1, n - 1)))
    return st.integers(min_n, max_n).flatmap(build)


@settings(max_examples=60, deadline=None)
@given(perm_pairs())
def test_symmetric_metrics_are_symmetric(case):
    n, s, v, _, k = case
    for name in SYMMETRIC:
        a, b = value(name, s, v, k), value(name, v, s, k)
        assert (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-12), name


@settings(max_examples=60, deadline=None)
@given(perm_pairs())
def test_right_invariance_where_it_holds(case):
    n, s, v, t, k = case
    s, v, t = np.array(s), np.array(v), np.array(t)
    for name in RIGHT_INVARIANT:
        a = value(name, s, v, k)
        b = value(name, P.compose(s, t), P.compose(v, t), k)
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12), name


@settings(max_examples=60, deadline=None)
@given(perm_pairs())
def test_left_invariance_of_the_other_25(case):
    n, s, v, t, k = case
    s, v, t = np.array(s), np.array(v), np.array(t)
    for name in M.NAMES:
        if name in RIGHT_INVARIANT:
            continue
        a = value(name, s, v, k)
        b = value(name, P.compose(t, s), P.compose(t, v), k)
        assert (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-12), name


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 5), st.integers(0, 10**6))
def test_property_functions_on_callables_match_brute_force(n, seed):
    # a random lookup-table metric: properties computed by the module vs plain loops
    rng = np.random.default_rng(seed)
    perms = P.all_permutations(n)
    N = len(perms)
    codes = {tuple(p): i for i, p in enumerate(perms.tolist())}
    table = rng.integers(0, 3, size=(N, N)).astype(float)
    if seed % 2:
        table = (table + table.T) / 2  # make it symmetric half of the time

    def f(s, v):
        s, v = np.asarray(s), np.asarray(v)
        si = np.array([codes[tuple(x)] for x in s.reshape(-1, n).tolist()])
        vi = np.array([codes[tuple(x)] for x in v.reshape(-1, n).tolist()])
        return table[si, vi].reshape(s.shape[:-1])

    sym = bool(np.allclose(table, table.T))
    assert pr.symmetry(f, n).holds == sym
    ioi = all(len(set(row.tolist())) == N for row in table)
    assert pr.identity_of_indiscernibles(f, n).holds == ioi


# ------------------------------------------------------------------------------------------
# validation


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: pr.symmetry("hamming", 4), "unknown metric 'hamming'; valid names: recall, fnr"),
        (lambda: pr.symmetry("mse", 1), "n must be an integer >= 2"),
        (lambda: pr.symmetry("mse", "5"), "n must be an integer"),
        (lambda: pr.symmetry("mse", 4.0), "n must be an integer"),
        (lambda: pr.symmetry("precision", 4, k=0), "k must be an integer in 1..4, got 0"),
        (lambda: pr.symmetry("precision", 4, k=5), "k must be an integer in 1..4, got 5"),
        (lambda: pr.symmetry("mse", 4, method="brute"), "method must be one of 'auto', 'exhaustive', 'random'; got 'brute'"),
        (lambda: pr.symmetry(42, 4), "metric must be a name"),
        (lambda: pr.symmetry("mse", 4, seed=-1), "seed must be a non-negative integer or None; got -1"),
        (lambda: pr.sensitivity("dcg", 5, reading="some"), "reading must be one of 'exists', 'forall'; got 'some'"),
        (lambda: pr.sensitivity("dcg", 3), "n must be an integer >= 4"),
        (lambda: pr.width_swap_dependency("dcg", 5, reference="x"), "reference must be one of 'identity', 'all'; got 'x'"),
        (lambda: pr.is_distance("mse", 4, transform="log"), "transform must be one of 'none', 'eq7', 'linear'; got 'log'"),
        (lambda: pr.is_distance("mse", 8, method="exhaustive"), "too large"),
        (lambda: pr.is_distance(lambda s, v: s[..., 0] * 1.0, 4, transform="eq7"), "higher_is_closer"),
        (lambda: pr.maximal_agreement("mse", 4, orientation="up"), "orientation must be one of 'as_defined', 'closeness'; got 'up'"),
        (lambda: pr.type_i_robustness("mse", 5, change="flip"), "change must be one of 'swap', 'slide'; got 'flip'"),
        (lambda: pr.type_i_robustness("mse", 5, n_pairs=0), "n_pairs must be an integer >= 1, got 0"),
        (lambda: pr.stability("recall", 10, k=10), "k must be an integer in 1..9, got 10"),
        (lambda: pr.stability("recall", 10, k=[]), "non-empty"),
        (lambda: pr.stability("recall", 10, threshold=2), "threshold must be a share"),
        (lambda: pr.dcg_collisions(11), "n <= 10"),
        (lambda: pr.dcg_exact([[1, 2], [2, 1]]), "one permutation"),
        (lambda: pr.dcg_exact([1, 1, 2]), "duplicate"),
        (lambda: pr.precompute(["mse"], 7), "n <= 6"),
    ],
)
def test_bad_input_raises_valueerror(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_callable_with_wrong_output_shape():
    with pytest.raises(ValueError, match="one number per pair"):
        pr.symmetry(lambda s, v: np.zeros(3), 4)


def test_results_are_frozen_and_summarised():
    r = pr.symmetry("dcg", 4)
    with pytest.raises(Exception):
        r.holds = True  # type: ignore[misc]
    d = r.to_dict()
    assert d["method_detail"].startswith("exhaustive") and isinstance(d["evidence"], str)
    assert "symmetry(dcg, n=4)" in r.summary()
    rr = pr.symmetry("dcg", 12, n_samples=50, seed=5)
    assert rr.method == "random" and rr.seed == 5 and "seed 5" in rr.method_detail


def test_scan_paths_match_matrix_paths(monkeypatch):
    # n = 7 runs without the (n!)^2 matrix; force that path on n = 5 and compare every verdict
    names = ("kendall_tau", "mse", "precision", "dcg", "mape", "lr_plus")

    def verdicts():
        out = {}
        for name in names:
            mx = pr.maximal_agreement(name, 5, orientation="closeness")
            mn = pr.minimal_agreement(name, 5)
            out[name] = (
                pr.symmetry(name, 5).holds,
                pr.identity_of_indiscernibles(name, 5).holds,
                mx.holds, mx.strict, mx.bound,
                mn.bound, mn.attained_at_reverse,
                pr.linearly_equivalent(name, "mse", 5).holds,
            )
        return out

    expected = verdicts()
    monkeypatch.setattr(pr, "MATRIX_MAX_N", 3)
    got = verdicts()
    for name in names:
        a, b = expected[name], got[name]
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert x == y or (isinstance(x, float) and np.isnan(x) and np.isnan(y)), name


def _batch(fn):
    def wrapped(s, v):
        s, v = np.broadcast_arrays(np.asarray(s), np.asarray(v))
        flat = [fn(a, b) for a, b in zip(s.reshape(-1, s.shape[-1]), v.reshape(-1, v.shape[-1]))]
        return np.array(flat, dtype=float).reshape(s.shape[:-1])
    wrapped.__name__ = fn.__name__
    return wrapped


def test_property_machinery_on_scipy_metrics():
    # metrics we did not write: scipy's Kendall tau and Spearman rho, one pair at a time
    from scipy import stats

    def scipy_kendall(a, b):
        return stats.kendalltau(a, b).statistic

    def scipy_spearman(a, b):
        return stats.spearmanr(a, b).statistic

    for fn in (scipy_kendall, scipy_spearman):
        f = _batch(fn)
        r = pr.type_ii_robustness(f, 4)
        assert r.holds and not r.left_invariant, fn.__name__
        assert pr.symmetry(f, 4).holds
        assert pr.linearly_equivalent(f, fn.__name__.replace("scipy_", "").replace("spearman", "spearman_rho")
                                      .replace("kendall", "kendall_tau"), 4).holds
    # 1 - tau is a distance (Kendall's distance, normalised); 1 - rho is not (a squared distance)
    assert pr.is_distance(_batch(scipy_kendall), 4).holds
    assert not pr.is_distance(_batch(scipy_spearman), 4).holds


def test_dcg_ioi_n8_n9_found_in_identity_row():
    for n in (8, 9):
        r = pr.identity_of_indiscernibles("dcg", n)
        assert r.holds is False and r.method == "exhaustive" and r.evidence.exact
        assert np.array_equal(r.evidence.ranking("sigma"), P.identity(n))
