"""Tests for rankbook.agreement: Def. 1 on triples, the agreement ratio against the O(T^2)
definition and against scipy's tau-b counts, tie rules, reversal, and the Figure 1 matrix."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import agreement as A
from rankbook import concordance as C
from rankbook import metrics as M
from rankbook import permutations as P


def tied_values(rng, size, levels):
    return rng.integers(0, levels, size).astype(float)


@pytest.mark.parametrize("ties", A.TIES)
@pytest.mark.parametrize("reverse", ["none", "auto"])
def test_sorting_equals_bruteforce_with_many_ties(ties, reverse):
    rng = np.random.default_rng(0)
    for trial in range(40):
        t = int(rng.integers(2, 40))
        x = tied_values(rng, t, int(rng.integers(1, 6)))
        y = tied_values(rng, t, int(rng.integers(1, 6)))
        if trial % 5 == 0:
            y[rng.integers(0, t)] = np.nan
        fast = A.agreement_ratio_from_values(x, y, ties=ties, reverse=reverse)
        slow = A.agreement_ratio_bruteforce(x, y, ties=ties, reverse=reverse)
        assert fast == pytest.approx(slow, abs=1e-12) or (math.isnan(fast) and math.isnan(slow))


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=30),
       st.sampled_from(A.TIES), st.sampled_from(A.REVERSE), st.booleans(), st.booleans())
@settings(max_examples=150, deadline=None)
def test_sorting_equals_bruteforce_property(xy, ties, reverse, o1, o2):
    x = [a for a, _ in xy]
    y = [b for _, b in xy]
    fast = A.agreement_ratio_from_values(x, y, ties=ties, reverse=reverse, orient=(o1, o2))
    slow = A.agreement_ratio_bruteforce(x, y, ties=ties, reverse=reverse, orient=(o1, o2))
    assert fast == pytest.approx(slow, abs=1e-12)


def test_concordance_counts_match_scipy_tau_b():
    rng = np.random.default_rng(1)
    for _ in range(30):
        t = int(rng.integers(3, 300))
        x = tied_values(rng, t, int(rng.integers(2, 20)))
        y = tied_values(rng, t, int(rng.integers(2, 20)))
        c = A.concordance_counts(x, y)
        assert c["concordant"] + c["discordant"] + c["tied_x"] + c["tied_y"] + c["tied_both"] == c["pairs"]
        tx, ty = c["tied_x"] + c["tied_both"], c["tied_y"] + c["tied_both"]
        if tx == c["pairs"] or ty == c["pairs"]:
            continue
        tau_b = (c["concordant"] - c["discordant"]) / math.sqrt((c["pairs"] - tx) * (c["pairs"] - ty))
        assert tau_b == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)


def test_symmetric_tie_rules_are_symmetric_and_ordered_rule_is_not():
    x = [1, 1, 2, 3]
    y = [1, 2, 3, 4]
    for ties in ("def1", "lenient"):
        assert A.agreement_ratio_from_values(x, y, ties=ties) == A.agreement_ratio_from_values(y, x, ties=ties)
    # tie in m1 against a strict order in m2 is a disagreement, the reverse is not (literal eq. 1)
    assert A.agreement_ratio_from_values(x, y, ties="def1_ordered") == pytest.approx(5 / 6)
    assert A.agreement_ratio_from_values(y, x, ties="def1_ordered") == 1.0
    assert A.agreement_ratio_from_values(x, y, ties="def1") == pytest.approx(5 / 6)
    assert A.agreement_ratio_from_values(x, y, ties="lenient") == 1.0


def test_reversal_rules():
    x = np.arange(10.0)
    assert A.agreement_ratio_from_values(x, -x) == 0.0
    assert A.agreement_ratio_from_values(x, -x, reverse="auto") == 1.0
    assert A.agreement_ratio_from_values(x, -x, reverse="orient", orient=(True, False)) == 1.0
    assert A.agreement_ratio_from_values(x, -x, reverse="orient", orient=(False, False)) == 0.0


def test_triple_definition_brute_force_s4():
    """Def. 1 is decided by are_consistent exactly as by enumerating all triples of S_4."""
    allp = P.all_permutations(4)
    for m1, m2 in [("mse", "rmse"), ("mse", "kendall_tau"), ("dcg", "ndcg"), ("precision", "recall"),
                   ("recall", "mse"), ("mse", "recall"), ("spearman_rho", "r2")]:
        x = M.evaluate(m1, P.identity(4), allp, k=2)
        y = M.evaluate(m2, P.identity(4), allp, k=2)
        witness = False
        for s, mu, nu in itertools.product(range(24), repeat=3):
            if x[s] <= x[mu] and y[s] <= y[mu] and x[s] <= x[nu] and y[s] > y[nu]:
                witness = True
                break
        assert A.are_consistent(m1, m2, 4, k=2) == (not witness), (m1, m2)
    # vectorised triple check agrees with the scalar definition on a few triples
    s, mu, nu = allp[3], allp[3], allp[17]
    expect = bool(M.mse(P.identity(4), s) <= M.mse(P.identity(4), nu)
                  and M.kendall_tau(P.identity(4), s) > M.kendall_tau(P.identity(4), nu))
    assert bool(A.triple_inconsistent("mse", "kendall_tau", s, mu, nu)) == expect
    batch = A.triple_inconsistent("mse", "kendall_tau", allp[:, None], allp[:, None], allp[None, :])
    assert batch.shape == (24, 24) and batch.any() and not batch.all()


def test_confusion_metrics_pairwise_consistent_exhaustive():
    cm = [m for m in M.NAMES if M.REGISTRY[m].family == "confusion"]
    for m1, m2 in [("recall", "mcc"), ("prevalence_threshold", "jaccard"), ("lr_minus", "accuracy"),
                   ("markedness", "fowlkes_mallows")]:
        assert m1 in cm and m2 in cm
        x = M.evaluate(m1, P.identity(6), P.all_permutations(6), k=2)
        y = M.evaluate(m2, P.identity(6), P.all_permutations(6), k=2)
        flip = M.REGISTRY[m1].higher_is_closer != M.REGISTRY[m2].higher_is_closer
        assert A.are_consistent(m1, m2 if not flip else (lambda r, s, k=None: -M.evaluate(m2, r, s, k=k)), 6, k=2)
        assert A.agreement_ratio_from_values(x, y, reverse="auto") == 1.0


def test_constant_metric_breaks_symmetry_of_def1():
    """Recall with k = n is constant: by eq. 1 read literally, (recall, mse) is inconsistent but
    (mse, recall) is consistent."""
    assert A.are_consistent("recall", "mse", 4, k=4) is False
    assert A.are_consistent("mse", "recall", 4, k=4) is True


def test_pair_consistent_indicator():
    ref = P.identity(5)
    T = P.random(5, size=30, rng=2)
    f = A.pair_consistent("mse", "dcg", T[:, None], T[None, :])
    assert f.shape == (30, 30)
    x, y = M.mse(ref, T), M.dcg(ref, T)
    off = ~np.eye(30, dtype=bool)
    assert f[off].mean() == pytest.approx(A.agreement_ratio_from_values(x, y))


def test_agreement_ratio_equals_reference_on_samples():
    rng = np.random.default_rng(3)
    T = P.random(7, size=60, rng=rng)
    for m1, m2 in itertools.combinations(["recall", "mcc", "mse", "mape", "kendall_tau", "ndpm",
                                          "dcg", "mrr", "gmr", "lr_plus"], 2):
        x, y = M.evaluate(m1, P.identity(7), T, k=2), M.evaluate(m2, P.identity(7), T, k=2)
        for ties in A.TIES:
            fast = A.agreement_ratio(m1, m2, T, k=2, ties=ties, reverse="auto")
            slow = A.agreement_ratio_bruteforce(x, y, ties=ties, reverse="auto")
            assert fast == pytest.approx(slow, abs=1e-12), (m1, m2, ties)


def test_agreement_matrix_small_equals_reference():
    names = ["precision", "recall", "mcc", "lr_plus", "mse", "rmse", "kendall_tau", "ndpm", "dcg",
             "ndcg", "mean_rank"]
    for protocol in A.PROTOCOLS:
        for reverse in A.REVERSE:
            df = A.agreement_matrix(names, n=12, n_pairs=80, k=3, seed=5, protocol=protocol,
                                    reverse=reverse)
            refs, rankings = A.sample(12, 80, seed=5, protocol=protocol)
            vals = M.evaluate_many(names, refs, rankings, k=3)
            for a, b in itertools.product(names, repeat=2):
                orient = (M.REGISTRY[a].higher_is_closer, M.REGISTRY[b].higher_is_closer)
                slow = A.agreement_ratio_bruteforce(vals[a], vals[b], reverse=reverse, orient=orient)
                assert df.loc[a, b] == pytest.approx(slow, abs=1e-12), (protocol, reverse, a, b)


def test_agreement_matrix_expected_entries():
    df = A.agreement_matrix(n=30, n_pairs=500, k=8, seed=0)
    assert list(df.index) == list(M.NAMES) == list(df.columns)
    assert np.array_equal(df.values, df.values.T)
    assert np.all(np.diag(df.values) == 1.0)
    assert ((df.values >= 0) & (df.values <= 1)).all()
    for a, b in [("dcg", "ndcg"), ("mse", "rmse"), ("precision", "recall"), ("spearman_rho", "r2")]:
        assert df.loc[a, b] == 1.0
    # with |R| = |S| = k every confusion-matrix metric is a monotone function of TP alone
    # (e.g. MCC = (n TP - k^2) / (k (n - k))), so the 19 agree perfectly once reversed
    cm = [m for m in M.NAMES if M.REGISTRY[m].family == "confusion"]
    assert (df.loc[cm, cm].values == 1.0).all()
    # with the identity as reference, tau on the raw arrays and NDPM on item positions count the
    # inversions of the same permutation (reversed); with independent pairs they differ
    assert df.loc["kendall_tau", "ndpm"] == 1.0 and df.attrs["reversed"].loc["kendall_tau", "ndpm"]
    ind = A.agreement_matrix(["kendall_tau", "ndpm"], n=30, n_pairs=500, seed=0, protocol="independent")
    assert ind.loc["kendall_tau", "ndpm"] < 1.0
    assert df.attrs["protocol"] == "reference" and df.attrs["reverse"] == "auto"
    rev = df.attrs["reversed"]
    assert rev.loc["mse", "kendall_tau"] and not rev.loc["mse", "rmse"]


def test_agreement_matrix_deterministic_and_protocols_differ():
    a = A.agreement_matrix(["mse", "recall", "kendall_tau", "dcg"], n=20, n_pairs=400, k=5, seed=9)
    b = A.agreement_matrix(["mse", "recall", "kendall_tau", "dcg"], n=20, n_pairs=400, k=5, seed=9)
    pd.testing.assert_frame_equal(a, b)
    c = A.agreement_matrix(["mse", "recall", "kendall_tau", "dcg"], n=20, n_pairs=400, k=5, seed=9,
                           protocol="independent")
    assert not np.allclose(a.values, c.values)


def test_sample_protocols():
    ref, r = A.sample(6, 5, seed=1)
    assert (ref == P.identity(6)).all() and r.shape == (5, 6)
    ref2, r2 = A.sample(6, 5, seed=1, protocol="independent")
    assert not (ref2 == P.identity(6)).all()


def test_bad_arguments():
    with pytest.raises(ValueError, match="protocol must be one of 'reference', 'independent'"):
        A.agreement_matrix(["mse"], n=5, n_pairs=10, protocol="pairs")
    with pytest.raises(ValueError, match="reverse must be one of"):
        A.agreement_matrix(["mse"], n=5, n_pairs=10, reverse="yes")
    with pytest.raises(ValueError, match="ties must be one of"):
        A.agreement_ratio_from_values([1, 2], [1, 2], ties="strict")
    with pytest.raises(ValueError, match="unknown metric 'msa'"):
        A.agreement_matrix(["msa"], n=5, n_pairs=10)
    with pytest.raises(ValueError, match="needs k"):
        A.agreement_matrix(["recall"], n=5, n_pairs=10, k=None)
    with pytest.raises(ValueError, match="n_pairs must be an integer >= 2"):
        A.agreement_matrix(["mse"], n=5, n_pairs=1)
    with pytest.raises(ValueError, match="same number of values"):
        A.concordance_counts([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="metric must be a callable or one of the names"):
        A.agreement_ratio("mse", "nope", [[1, 2], [2, 1]])
    with pytest.raises(ValueError, match="n must be an integer in 1..8"):
        A.are_consistent("mse", "rmse", 9)


def test_matrix_survives_pandas_reshaping():
    df = A.agreement_matrix(["mse", "rmse", "kendall_tau"], n=10, n_pairs=50, seed=1)
    long = df.melt(ignore_index=False)
    assert len(long) == 9
    assert pd.concat([df, df]).shape == (6, 3)
    rev = df.attrs["reversed"]
    assert rev.to_numpy().dtype == bool and rev.to_numpy().shape == (3, 3)
    assert rev.to_frame().loc["mse", "kendall_tau"] == rev.loc["mse", "kendall_tau"]
    assert rev == A.agreement_matrix(["mse", "rmse", "kendall_tau"], n=10, n_pairs=50, seed=1).attrs["reversed"]


# ----------------------------------------------------------------------------------------------
# the counting engine: contingency-table and sorting paths, and the shared per-class counts
# ----------------------------------------------------------------------------------------------


def brute_counts(x, y):
    """concordance_counts by the definition: every unordered pair of defined values."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    i, j = np.triu_indices(x.size, 1)
    sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    return dict(pairs=int(i.size), concordant=int(((sx * sy) > 0).sum()),
                discordant=int(((sx * sy) < 0).sum()), tied_x=int(((sx == 0) & (sy != 0)).sum()),
                tied_y=int(((sx != 0) & (sy == 0)).sum()), tied_both=int(((sx == 0) & (sy == 0)).sum()),
                dropped=int((~keep).sum()))


@pytest.mark.parametrize("path", ["table", "sort"])
@given(xy=st.lists(st.tuples(st.one_of(st.integers(-3, 3).map(float), st.just(float("nan"))),
                             st.one_of(st.integers(0, 5).map(float), st.just(float("nan")),
                                       st.floats(-1e3, 1e3))),
                   min_size=0, max_size=40))
@settings(max_examples=150, deadline=None)
def test_both_counting_paths_equal_the_definition(path, xy):
    x = [a for a, _ in xy]
    y = [b for _, b in xy]
    old = C._TABLE_CELLS_PER_VALUE
    C._TABLE_CELLS_PER_VALUE = 10**9 if path == "table" else 0
    try:
        assert A.concordance_counts(x, y) == brute_counts(x, y)
        assert A.concordance_counts(y, x) == brute_counts(y, x)
    finally:
        C._TABLE_CELLS_PER_VALUE = old


@pytest.mark.parametrize("cells", [0, 8, 10**9])
def test_counting_paths_on_large_tied_samples(cells, monkeypatch):
    """Few levels against many, both ways round, with nan: both paths give the definition's counts."""
    monkeypatch.setattr(C, "_TABLE_CELLS_PER_VALUE", cells)
    rng = np.random.default_rng(11)
    for levels in (1, 2, 18, 300):
        x = rng.integers(0, levels, 1500).astype(float)
        y = np.round(rng.normal(size=1500), 2)
        y[rng.integers(0, 1500, 20)] = np.nan
        assert A.concordance_counts(x, y) == brute_counts(x, y)
        assert A.concordance_counts(y, x) == brute_counts(y, x)
        assert A.concordance_counts(x, x) == brute_counts(x, x)


@given(base=st.lists(st.integers(0, 4), min_size=2, max_size=30),
       other=st.lists(st.integers(0, 6), min_size=30, max_size=30),
       nan_at=st.sets(st.integers(0, 29), max_size=4))
@settings(max_examples=60, deadline=None)
def test_pair_counts_share_work_exactly(base, other, nan_at):
    """_PairCounts (one class per distinct/reversed code vector) equals concordance_counts on
    every ordered pair, including the diagonal, monotone copies, reversed copies and nan."""
    t = len(base)
    x = np.array(base, dtype=float)
    y = np.array(other[:t], dtype=float)
    x_nan = x.copy()
    x_nan[[i for i in nan_at if i < t]] = np.nan
    arrays = [x, -x, 2 * x + 1, np.exp(-x), x_nan, -x_nan, y, -y, x * y, (x - 2) ** 2, np.zeros(t),
              np.full(t, np.nan)]
    pc = A._PairCounts(arrays)
    for i, j in itertools.product(range(len(arrays)), repeat=2):
        assert pc(i, j) == A.concordance_counts(arrays[i], arrays[j]), (i, j)
    assert len(pc._codes) < len(arrays)  # monotone and reversed copies share a class


@pytest.mark.parametrize("ties", A.TIES)
@pytest.mark.parametrize("protocol", A.PROTOCOLS)
def test_agreement_matrix_every_option_equals_definition(ties, protocol):
    """Every tie rule x reversal rule x protocol, with nan-producing metrics (LR+, small n):
    each entry, diagonal included, is exactly (==) the O(|T|^2) double sum of Def. 2."""
    names = ["precision", "recall", "mcc", "lr_plus", "lr_minus", "prevalence_threshold", "mse",
             "rmse", "r2", "mae", "kendall_tau", "ndpm", "dcg", "ndcg", "mrr", "mean_rank"]
    for n, k, n_pairs in [(6, 2, 90), (12, 3, 150)]:
        refs, rankings = A.sample(n, n_pairs, seed=7, protocol=protocol)
        vals = M.evaluate_many(names, refs, rankings, k=k)
        if n == 6:
            assert np.isnan(vals["lr_plus"]).any()  # the nan path is exercised
        for reverse in A.REVERSE:
            df = A.agreement_matrix(names, n=n, n_pairs=n_pairs, k=k, seed=7, protocol=protocol,
                                    reverse=reverse, ties=ties)
            for a, b in itertools.product(names, repeat=2):
                orient = (M.REGISTRY[a].higher_is_closer, M.REGISTRY[b].higher_is_closer)
                slow = A.agreement_ratio_bruteforce(vals[a], vals[b], ties=ties, reverse=reverse,
                                                    orient=orient)
                assert df.loc[a, b] == slow, (n, reverse, a, b)
            assert df.attrs["dropped"] == {m: int(np.isnan(vals[m]).sum()) for m in names}


def test_ratio_and_matrix_share_their_defaults_and_the_matrix_takes_your_pairs():
    import inspect

    for key in ("reverse", "ties"):
        assert (inspect.signature(A.agreement_ratio).parameters[key].default
                == inspect.signature(A.agreement_matrix).parameters[key].default)
    names = ["mse", "kendall_tau", "recall", "dcg"]
    refs, rankings = A.sample(12, 200, seed=4, protocol="independent")
    df = A.agreement_matrix(names, k=3, pairs=(refs, rankings))
    one_ref = rankings[0]
    df_ref = A.agreement_matrix(names, k=3, pairs=(one_ref, rankings))
    for m1, m2 in [("mse", "kendall_tau"), ("recall", "dcg")]:
        assert df_ref.loc[m1, m2] == A.agreement_ratio(m1, m2, rankings, k=3, reference=one_ref)
    assert df.attrs["protocol"] == "given" and df.shape == (4, 4)
    with pytest.raises(TypeError, match="tuple"):
        A.agreement_matrix(names, k=3, pairs=rankings)


def test_matrix_from_values_equals_matrix_and_refuses_bad_input():
    names = ["mse", "kendall_tau", "recall", "lr_plus"]
    refs, rankings = A.sample(9, 70, seed=5)
    values = M.evaluate_many(names, refs, rankings, k=2)
    for reverse in A.REVERSE:
        got = A.agreement_matrix_from_values(values, names, reverse=reverse)
        want = A.agreement_matrix(names, n=9, n_pairs=70, k=2, seed=5, reverse=reverse)
        np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
        assert got.attrs["reversed"] == want.attrs["reversed"]
        assert got.attrs["dropped"] == want.attrs["dropped"]
    assert list(want.attrs) == ["n", "n_pairs", "k", "seed", "protocol", "reverse", "ties",
                                "reversed", "dropped"]
    with pytest.raises(ValueError, match="no values given for 'mae'"):
        A.agreement_matrix_from_values(values, names + ["mae"])
    with pytest.raises(ValueError, match="same sample"):
        A.agreement_matrix_from_values({"a": [1, 2, 3], "b": [1, 2]})
    with pytest.raises(ValueError, match="unknown: 'a'"):
        A.agreement_matrix_from_values({"a": [1, 2, 3], "mse": [1, 2, 3]}, reverse="orient")
    with pytest.raises(ValueError, match="reverse"):
        A.agreement_matrix_from_values(values, reverse="sometimes")


# ----------------------------------------------------------------------------------------------
# intervals of agreement ratios (issue 22)


def _per_element_brute(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    dx = np.sign(x[:, None] - x[None, :])
    dy = np.sign(y[:, None] - y[None, :])
    off = ~np.eye(x.size, dtype=bool)
    return dict(concordant=((dx * dy > 0) & off).sum(1), discordant=((dx * dy < 0) & off).sum(1),
                tied_x=((dx == 0) & (dy != 0) & off).sum(1),
                tied_y=((dy == 0) & (dx != 0) & off).sum(1),
                tied_both=((dx == 0) & (dy == 0) & off).sum(1))


@pytest.mark.parametrize("levels", [3, 40, 10_000])
def test_per_element_counts_equal_the_pairwise_definition(levels):
    """Both paths (contingency table for few levels, merge counting for many) against the
    T x T definition, and their sums against concordance_counts."""
    from rankbook.agreement import concordance_counts, per_element_counts

    rng = np.random.default_rng(levels)
    for t in (1, 2, 7, 300):
        x, y = rng.integers(0, levels, t), rng.integers(0, levels, t)
        got, ref = per_element_counts(x, y), _per_element_brute(x, y)
        for key in ref:
            np.testing.assert_array_equal(got[key], ref[key], err_msg=key)
        c = concordance_counts(x, y)
        assert got["concordant"].sum() == 2 * c["concordant"]
        assert got["discordant"].sum() == 2 * c["discordant"]


def test_agreement_interval_is_backward_compatible_and_covers():
    """ci=False (default) still returns a float. The interval of a U-statistic covers the
    true ratio about 95% of the time: x, y bivariate normal with correlation 0.5, where the
    concordance probability is 1/2 + arcsin(0.5)/pi = 2/3; 400 samples of 150 elements."""
    from rankbook.agreement import AgreementRatio, agreement_ratio_from_values

    rng = np.random.default_rng(7)
    assert isinstance(agreement_ratio_from_values([1, 2, 3], [1, 3, 2]), float)
    truth = 0.5 + np.arcsin(0.5) / np.pi
    hits, naive_hits = 0, 0
    for _ in range(400):
        z = rng.normal(size=(2, 150))
        x, y = z[0], 0.5 * z[0] + np.sqrt(0.75) * z[1]
        r = agreement_ratio_from_values(x, y, ci=True)
        assert isinstance(r, AgreementRatio) and r.low <= r.ratio <= r.high
        assert 75 <= r.n_effective <= 150 * 149 / 2
        hits += r.low <= truth <= r.high
        # the binomial interval with every pair a trial is far too narrow
        from rankbook.stats import wilson_interval
        lo, hi = wilson_interval(r.ratio * 150 * 149 / 2, 150 * 149 / 2)
        naive_hits += lo <= truth <= hi
    assert 0.92 <= hits / 400 <= 0.98, hits / 400
    assert naive_hits / 400 < 0.5


def test_agreement_ratio_ci_through_metric_names():
    from rankbook.agreement import agreement_ratio, sample

    _, T = sample(8, 200, seed=3)
    r = agreement_ratio("mse", "kendall_tau", T, ci=True, confidence=0.9)
    assert r.ratio == agreement_ratio("mse", "kendall_tau", T)
    assert r.low < r.ratio < r.high and r.confidence == 0.9


def test_agreement_intervals_equal_the_pairwise_calls():
    """The matrix version shares counts between metrics that order the sample alike; each row
    equals agreement_ratio_from_values(..., ci=True) on the same values."""
    from rankbook.agreement import agreement_intervals, agreement_ratio_from_values, sample

    names = ["precision", "recall", "mse", "rmse", "kendall_tau", "spearman_rho", "dcg"]
    t = agreement_intervals(names, n=15, n_pairs=300, k=5, seed=2)
    refs, rankings = sample(15, 300, seed=2)
    values = M.evaluate_many(names, refs, rankings, k=5)
    assert len(t) == len(names) * (len(names) - 1) // 2
    for r in t.itertuples():
        ref = agreement_ratio_from_values(values[r.m1], values[r.m2], reverse="auto", ci=True)
        assert (r.ratio, r.low, r.high) == pytest.approx((ref.ratio, ref.low, ref.high))


def test_flags_and_shapes_are_checked_not_coerced():
    """orient="no" read as true and 2-D values silently flattened before (a new user's finding)."""
    from rankbook import agreement as A
    from rankbook import consensus

    with pytest.raises(ValueError, match="orient must be a pair of booleans"):
        A.agreement_ratio_from_values([1, 2, 3], [3, 2, 1], reverse="orient", orient="no")
    with pytest.raises(ValueError, match=r"1-D arrays of numbers, got shapes \(2, 2\)"):
        A.agreement_ratio_from_values([[1, 2], [3, 4]], [[1, 2], [4, 3]])
    with pytest.raises(ValueError, match="1-D arrays of numbers"):
        A.agreement_ratio_from_values(["a", "b"], [1, 2])
    for bad in ("no", "False", None, 1):
        with pytest.raises(ValueError, match="ties must be True"):
            consensus.kendall_w(["abc", "acb", "bca"], ties=bad)


def test_a_users_metric_of_one_pair_works_as_pairwise_takes_it():
    """The examples' per-pair metrics crashed agreement_ratio and properties with raw numpy
    errors (a new user's finding): a function of two rankings is now called pair by pair, a
    batch function once per block, and both give the values of a hand loop."""
    from rankbook import properties

    def footrule(sigma, nu):  # one pair at a time, no k
        return float(np.abs(np.asarray(sigma) - np.asarray(nu)).sum())

    def footrule_batch(sigma, nu):
        return np.abs(np.asarray(sigma) - np.asarray(nu)).sum(axis=-1).astype(float)

    T = P.random(6, size=60, rng=3)
    ref = P.identity(6)
    by_hand = np.array([footrule(ref, t) for t in T])
    tau = M.kendall_tau(ref, T)
    want = A.agreement_ratio_from_values(by_hand, tau, reverse="auto")  # its default
    assert A.agreement_ratio(footrule, "kendall_tau", T) == want
    assert A.agreement_ratio(footrule_batch, "kendall_tau", T) == want
    for f in (footrule, footrule_batch):
        r = properties.symmetry(f, 4)
        assert r.holds and r.checked == 576
    with pytest.raises(ValueError, match=r"metric 'broken' raised ZeroDivisionError: .* for sigma="):
        def broken(sigma, nu):
            return 1 / 0
        properties.symmetry(broken, 3)


def test_agreement_matrix_from_values_names_the_input_it_needs():
    with pytest.raises(ValueError, match="values must map each metric name to its values"):
        A.agreement_matrix_from_values(np.ones((2, 5)))
    with pytest.raises(ValueError, match=r"the values of 'a' have shape \(2, 2\)"):
        A.agreement_matrix_from_values({"a": [[1, 2], [3, 4]], "b": [[1, 2], [3, 4]]})
    x = np.arange(5.0)
    got = A.agreement_matrix_from_values(pd.DataFrame({"a": x, "b": -x}), reverse="none")
    assert got.to_numpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_shape_messages_use_the_callers_words():
    with pytest.raises(ValueError, match="reference ranks 3 items and the rankings 4"):
        A.agreement_ratio("kendall_tau", "spearman_rho", P.random(4, size=20, rng=0),
                          reference=[1, 2, 3])
    with pytest.raises(ValueError, match=r"rows of equal length\); its rows have lengths 2, 3"):
        P.validate([[1, 2, 3], [1, 2]])


def test_a_users_metric_on_single_rankings_in_the_triple_and_pair_checks():
    def footrule(sigma, nu):
        return float(np.abs(np.asarray(sigma) - np.asarray(nu)).sum())

    def footrule_k(sigma, nu, k=None):  # the old contract: f(ref, r, k=None) on a batch
        return np.abs(np.asarray(sigma) - np.asarray(nu)).sum(axis=-1).astype(float)

    for f in (footrule, footrule_k):
        assert bool(A.triple_inconsistent(f, "kendall_tau", [1, 2, 3], [1, 2, 3], [2, 1, 3])) == bool(
            A.triple_inconsistent("mse", "kendall_tau", [1, 2, 3], [1, 2, 3], [2, 1, 3]))
        assert float(A.pair_consistent(f, "kendall_tau", [2, 1, 3, 4], [4, 3, 2, 1])) == 0.0
