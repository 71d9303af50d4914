"""Tests for rankbook.metrics: cross-checks against scipy, scikit-learn and rexmex, brute force
from the definitions, closed forms of paper A, invariants (hypothesis) and input validation."""

import itertools
import math
import warnings

import numpy as np
import pytest
import scipy.stats
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import metrics as M
from rankbook import permutations as P

rexmex_cls = pytest.importorskip("rexmex.metrics.classification")
rexmex_rank = pytest.importorskip("rexmex.metrics.ranking")

CONFUSION = [m for m in M.NAMES if M.REGISTRY[m].family == "confusion"]
SYMMETRIC = CONFUSION + [
    "mse", "rmse", "mae", "smape", "r2", "kendall_tau", "spearman_rho", "ndpm",
]
RIGHT_INVARIANT = ["mse", "rmse", "mae", "mape", "smape", "r2", "kendall_tau", "spearman_rho"]


def random_pairs(count=300, seed=0, sizes=(2, 3, 5, 8, 13, 30)):
    """Hundreds of (sigma, nu, k) triples over several n, with every k in 1..n represented."""
    rng = np.random.default_rng(seed)
    out = []
    for t in range(count):
        n = sizes[t % len(sizes)]
        k = int(rng.integers(1, n + 1))
        out.append((P.random(n, rng=rng), P.random(n, rng=rng), k))
    return out


PAIRS = random_pairs()


def indicators(sigma, nu, k):
    """Binary relevance / retrieval vectors over the items 1..n, as the notes describe."""
    n = len(sigma)
    y_true = np.zeros(n, dtype=int)
    y_pred = np.zeros(n, dtype=int)
    y_true[np.asarray(sigma[:k]) - 1] = 1
    y_pred[np.asarray(nu[:k]) - 1] = 1
    return y_true, y_pred


def same(a, b, tol=1e-12):
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= tol * max(1.0, abs(b))


# ------------------------------------------------------------------------------------------
# registry and API
# ------------------------------------------------------------------------------------------


def test_registry_complete_and_ordered():
    assert len(M.NAMES) == 33 and len(set(M.NAMES)) == 33
    assert tuple(M.REGISTRY) == M.NAMES
    for name, m in M.REGISTRY.items():
        assert m.name == name
        assert m.family in M.FAMILIES
        assert isinstance(m.higher_is_closer, bool) and isinstance(m.needs_k, bool)
        assert m.label and m.defined_in and m.undefined and callable(m.func)
        assert m.reading or m.family != "error"
    assert M.REGISTRY["for"].func is M.for_
    assert sum(m.needs_k for m in M.REGISTRY.values()) == 22
    assert [m for m in M.NAMES if M.REGISTRY[m].family == "rank_position"] == ["mrr", "gmr", "mean_rank"]
    with pytest.raises(dataclasses_frozen_error()):
        M.REGISTRY["mse"].name = "x"


def dataclasses_frozen_error():
    import dataclasses

    return dataclasses.FrozenInstanceError


def test_function_evaluate_and_many_agree():
    s, v = P.random(9, size=50, rng=1), P.random(9, size=50, rng=2)
    many = M.evaluate_many(M.NAMES, s, v, k=3)
    for name in M.NAMES:
        a = M.evaluate(name, s, v, k=3)
        b = M.REGISTRY[name].func(s, v, k=3)
        np.testing.assert_array_equal(a, many[name])
        np.testing.assert_array_equal(b, many[name])
        assert many[name].shape == (50,) and many[name].dtype == np.float64


def test_single_pair_returns_float():
    out = M.evaluate("kendall_tau", [1, 2, 3], [1, 3, 2])
    assert isinstance(out, float)
    assert isinstance(M.recall([1, 2, 3], [1, 3, 2], k=1), float)


def test_higher_is_closer_matches_identity():
    """m(sigma, sigma) is the best value over S_5 for every metric, in the registry's direction."""
    allp = P.all_permutations(5)
    sigma = np.array([3, 1, 5, 2, 4])
    vals = M.evaluate_many(M.NAMES, sigma, allp, k=2)
    at_id = M.evaluate_many(M.NAMES, sigma, sigma, k=2)
    for name in M.NAMES:
        x, best = vals[name], at_id[name]
        if name == "lr_plus":  # TPR / 0 at nu = sigma: undefined, documented
            assert math.isnan(best)
            continue
        if M.REGISTRY[name].higher_is_closer:
            assert best >= np.nanmax(x) - 1e-12, name
        else:
            assert best <= np.nanmin(x) + 1e-12, name


# ------------------------------------------------------------------------------------------
# cross-checks against code we did not write
# ------------------------------------------------------------------------------------------


def test_correlations_against_scipy():
    for sigma, nu, _ in PAIRS:
        tau = scipy.stats.kendalltau(sigma, nu).statistic
        rho = scipy.stats.spearmanr(sigma, nu).statistic
        assert same(M.kendall_tau(sigma, nu), tau, 1e-12)
        assert same(M.spearman_rho(sigma, nu), rho, 1e-12)


def test_errors_against_sklearn():
    for sigma, nu, _ in PAIRS:
        assert same(M.mse(sigma, nu), skm.mean_squared_error(sigma, nu))
        assert same(M.rmse(sigma, nu), math.sqrt(skm.mean_squared_error(sigma, nu)))
        assert same(M.mae(sigma, nu), skm.mean_absolute_error(sigma, nu))
        assert same(M.mape(sigma, nu), 100 * skm.mean_absolute_percentage_error(sigma, nu))
        assert same(M.r2(sigma, nu), skm.r2_score(sigma, nu))


def test_cumulative_gain_against_sklearn():
    for sigma, nu, _ in PAIRS:
        n = len(sigma)
        if n < 2:
            continue
        # documents are the items; the gain of item x is its position in nu, the ranking that
        # scores them is sigma (item at position 1 scores highest)
        pos_nu = P.inverse(nu)
        pos_sigma = P.inverse(sigma)
        y_true = pos_nu[None, :].astype(float)
        y_score = (n + 1 - pos_sigma)[None, :].astype(float)
        assert same(M.dcg(sigma, nu), skm.dcg_score(y_true, y_score), 1e-10)
        assert same(M.ndcg(sigma, nu), skm.ndcg_score(y_true, y_score), 1e-10)


def test_confusion_against_sklearn():
    for sigma, nu, k in PAIRS[:200]:
        y_true, y_pred = indicators(sigma, nu, k)
        tn, fp, fn, tp = skm.confusion_matrix(y_true, y_pred, labels=[0, 1]).ravel()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = {
                "recall": skm.recall_score(y_true, y_pred),
                "precision": skm.precision_score(y_true, y_pred),
                "f1": skm.f1_score(y_true, y_pred),
                "accuracy": skm.accuracy_score(y_true, y_pred),
                "jaccard": skm.jaccard_score(y_true, y_pred),
                "fowlkes_mallows": math.sqrt(
                    skm.precision_score(y_true, y_pred) * skm.recall_score(y_true, y_pred)
                ),
                "tnr": tn / (tn + fp) if tn + fp else np.nan,
                "npv": tn / (tn + fn) if tn + fn else np.nan,
            }
            if tn + fp:  # scikit-learn needs both classes for these
                expected["balanced_accuracy"] = skm.balanced_accuracy_score(y_true, y_pred)
                expected["mcc"] = skm.matthews_corrcoef(y_true, y_pred)
                lrp, lrm = skm.class_likelihood_ratios(y_true, y_pred)
                expected["lr_minus"] = lrm
                if fp:
                    expected["lr_plus"] = lrp
        for name, value in expected.items():
            assert same(M.evaluate(name, sigma, nu, k=k), value, 1e-12), (name, sigma, nu, k)


def test_confusion_against_rexmex():
    cases = {
        "recall": rexmex_cls.recall_score,
        "fnr": rexmex_cls.false_negative_rate,
        "fallout": rexmex_cls.false_positive_rate,
        "tnr": rexmex_cls.true_negative_rate,
        "precision": rexmex_cls.precision_score,
        "fdr": rexmex_cls.false_discovery_rate,
        "npv": rexmex_cls.negative_predictive_value,
        "for": rexmex_cls.false_omission_rate,
        "accuracy": rexmex_cls.accuracy_score,
        "balanced_accuracy": rexmex_cls.balanced_accuracy_score,
        "f1": rexmex_cls.f1_score,
        "fowlkes_mallows": rexmex_cls.fowlkes_mallows_index,
        "mcc": rexmex_cls.matthews_correlation_coefficient,
        "markedness": rexmex_cls.markedness,
        "informedness": rexmex_cls.informedness,
        "prevalence_threshold": rexmex_cls.prevalence_threshold,
        "lr_plus": rexmex_cls.positive_likelihood_ratio,
        "lr_minus": rexmex_cls.negative_likelihood_ratio,
        "jaccard": rexmex_cls.threat_score,  # TP / (TP + FN + FP)
    }
    checked = 0
    for sigma, nu, k in PAIRS:
        n = len(sigma)
        if k >= n or 2 * k >= n and k - (n - k) >= 0 and False:
            continue
        if k == n:
            continue  # one class only: rexmex and scikit-learn raise or warn instead of nan
        y_true, y_pred = indicators(sigma, nu, k)
        ours = M.evaluate_many(list(cases), sigma, nu, k=k)
        for name, fn in cases.items():
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                theirs = float(fn(y_true, y_pred))
            if not np.isfinite(theirs):  # rexmex gives inf for x/0; we give nan by policy
                assert math.isnan(ours[name]), (name, sigma, nu, k)
                continue
            assert same(ours[name], theirs, 1e-9), (name, sigma, nu, k, ours[name], theirs)
            checked += 1
    assert checked > 4000


def test_rank_metrics_against_rexmex():
    for sigma, nu, k in PAIRS:
        rel, rec = list(sigma[:k]), list(nu)
        assert same(M.mrr(sigma, nu, k=k), rexmex_rank.mean_reciprocal_rank(rel, rec))
        assert same(M.mean_rank(sigma, nu, k=k), rexmex_rank.mean_rank(rel, rec))
        assert same(M.gmr(sigma, nu, k=k), rexmex_rank.gmean_rank(rel, rec), 1e-10)
        if len(sigma) >= 2:
            ndpm = rexmex_rank.normalized_distance_based_performance_measure(list(sigma), list(nu))
            assert same(M.ndpm(sigma, nu), ndpm)
            assert same(M.kendall_tau(sigma, nu), rexmex_rank.kendall_tau(sigma, nu)[0])
            assert same(M.spearman_rho(sigma, nu), rexmex_rank.spearmans_rho(sigma, nu)[0])


# ------------------------------------------------------------------------------------------
# brute force from the definitions
# ------------------------------------------------------------------------------------------


def brute(sigma, nu, k):
    n = len(sigma)
    R, S = set(sigma[:k]), set(nu[:k])
    tp = len(R & S)
    fp, fn, tn = len(S - R), len(R - S), n - len(R | S)
    disc_pos = sum(
        (sigma[i] - sigma[j]) * (nu[i] - nu[j]) < 0 for i, j in itertools.combinations(range(n), 2)
    )
    ps = {x: i + 1 for i, x in enumerate(sigma)}
    pn = {x: i + 1 for i, x in enumerate(nu)}
    disc_items = sum(
        (ps[a] - ps[b]) * (pn[a] - pn[b]) < 0 for a, b in itertools.combinations(range(1, n + 1), 2)
    )
    pairs = n * (n - 1) / 2
    gains = [pn[sigma[i]] for i in range(n)]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    idcg = sum((n - i) / math.log2(i + 2) for i in range(n))
    positions = [pn[x] for x in sigma[:k]]
    return {
        "tp": tp, "fp": fp, "fn": fn, "tn": tn,
        "kendall_tau": 1 - 2 * disc_pos / pairs if pairs else np.nan,
        "ndpm": disc_items / pairs if pairs else np.nan,
        "dcg": dcg, "ndcg": dcg / idcg,
        "smape": 100 / n * sum(2 * abs(a - b) / (a + b) for a, b in zip(sigma, nu)),
        "mrr": sum(1 / p for p in positions) / k,
        "gmr": math.prod(positions) ** (1 / k),
        "mean_rank": sum(positions) / k,
        "prevalence_threshold_printed": None,
    }


def test_brute_force_definitions():
    for sigma, nu, k in PAIRS[:150]:
        s, v = list(sigma), list(nu)
        b = brute(s, v, k)
        n = len(s)
        assert b["tp"] + b["fp"] + b["fn"] + b["tn"] == n and b["fp"] == b["fn"] == k - b["tp"]
        for name in ("kendall_tau", "ndpm", "dcg", "ndcg", "smape", "mrr", "gmr", "mean_rank"):
            assert same(M.evaluate(name, sigma, nu, k=k), b[name], 1e-10), name


def test_prevalence_threshold_equals_printed_formula_where_defined():
    for sigma, nu, k in PAIRS:
        tpr = M.recall(sigma, nu, k=k)
        fpr = M.fallout(sigma, nu, k=k)
        pt = M.prevalence_threshold(sigma, nu, k=k)
        if math.isnan(fpr):
            assert math.isnan(pt)
        elif tpr != fpr:
            printed = (math.sqrt(tpr * fpr) - fpr) / (tpr - fpr)
            assert same(pt, printed, 1e-9)
        else:
            assert pt == 0.5
    # TPR = FPR happens: n = 4, k = 2, TP = 1 -> TPR = FPR = 1/2
    assert M.prevalence_threshold([1, 2, 3, 4], [1, 3, 2, 4], k=2) == 0.5


def test_inversion_count_against_brute_force():
    for n in list(range(1, 40)) + [63, 64, 65, 100, 257]:
        p = P.random(n, size=20, rng=n)
        expected = [
            sum(r[i] > r[j] for i, j in itertools.combinations(range(n), 2)) for r in p.tolist()
        ]
        assert P.inversion_count(p).tolist() == expected
    assert P.inversion_count(np.arange(1000, 0, -1)) == 1000 * 999 // 2
    # several chunks: the result must not depend on how the batch is split
    many = P.random(300, size=500, rng=6)
    whole = P.inversion_count(many)
    monkey = pytest.MonkeyPatch()
    monkey.setattr(P, "_CHUNK_ELEMENTS", 1000)
    try:
        assert np.array_equal(P.inversion_count(many), whole)
    finally:
        monkey.undo()
    big = P.random(1000, size=3, rng=5)
    tau = [scipy.stats.kendalltau(np.arange(1000), r).statistic for r in big]
    assert np.allclose(1 - 4 * P.inversion_count(big) / (1000 * 999), tau)


# ------------------------------------------------------------------------------------------
# closed forms and identities from paper A
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(2, 14))
def test_lemma_6_3_kendall_on_transpositions(n):
    c = n * (n - 1) / 2
    for i, j in itertools.combinations(range(1, n + 1), 2):
        tau = M.kendall_tau(P.identity(n), P.transposition(n, i, j))
        assert same(tau, (c - 4 * abs(i - j) + 2) / c, 1e-12)


@pytest.mark.parametrize("n", [2, 3, 5, 10, 50, 100])
def test_ndpm_change_under_a_slide_closed_form(n):
    """A slide moves nu's top item x to the bottom: only the n - 1 pairs with x flip, so
    NDPM(sigma, nu o FC_n) - NDPM(sigma, nu) = (n + 1 - 2p) / C(n, 2), p = position of x in sigma."""
    s, v = P.random(n, size=200, rng=n), P.random(n, size=200, rng=n + 1)
    slid = P.compose(v, P.full_cycle(n))
    p = np.take_along_axis(P.inverse(s), v[:, :1] - 1, axis=-1)[:, 0]
    delta = M.ndpm(s, slid) - M.ndpm(s, v)
    np.testing.assert_allclose(delta, (n + 1 - 2 * p) / (n * (n - 1) / 2), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_ndpm_mean_change_under_a_slide_exhaustive(n):
    """Over all pairs of S_n the mean |change| is exactly 1/(n-1) for even n, (n+1)/n^2 for odd n
    (Table 2 prints 1.11 for n = 10, where 1/9 = 0.111 is expected)."""
    a = P.all_permutations(n)
    s, v = a[:, None, :], a[None, :, :]
    delta = np.abs(M.ndpm(s, P.compose(v, P.full_cycle(n))) - M.ndpm(s, v))
    expected = 1 / (n - 1) if n % 2 == 0 else (n + 1) / n**2
    assert delta.mean() == pytest.approx(expected, rel=1e-12)


def test_identities_between_metrics():
    s, v = P.random(12, size=400, rng=3), P.random(12, size=400, rng=4)
    out = M.evaluate_many(M.NAMES, s, v, k=4)
    np.testing.assert_allclose(out["fdr"], 1 - out["precision"])
    np.testing.assert_allclose(out["fnr"], 1 - out["recall"])
    np.testing.assert_allclose(out["precision"], out["recall"])
    np.testing.assert_allclose(out["for"], 1 - out["npv"])
    np.testing.assert_allclose(out["tnr"], 1 - out["fallout"])
    np.testing.assert_allclose(out["r2"], 2 * out["spearman_rho"] - 1)
    np.testing.assert_allclose(out["rmse"] ** 2, out["mse"])
    np.testing.assert_allclose(out["ndcg"] * M._idcg(12), out["dcg"])
    np.testing.assert_allclose(out["f1"], out["precision"])  # |R| = |S| = k
    np.testing.assert_allclose(out["mcc"], out["informedness"])  # FP = FN


def test_type_ii_right_invariance_exhaustive_s4():
    a = P.all_permutations(4)
    sigma = a[:, None, None, :]
    nu = a[None, :, None, :]
    g = a[None, None, :, :]
    base = M.evaluate_many(M.NAMES, sigma, nu, k=2)
    moved = M.evaluate_many(M.NAMES, P.compose(sigma, g), P.compose(nu, g), k=2)
    for name in M.NAMES:
        b = np.broadcast_to(base[name], moved[name].shape)
        # mathematically exact; sums over reordered positions may differ in the last bit
        equal = np.all(np.isclose(b, moved[name], rtol=1e-12, atol=1e-12, equal_nan=True))
        assert equal == (name in RIGHT_INVARIANT), name


def test_dcg_identity_minimises_and_dcg_not_injective_from_n7():
    a6 = P.all_permutations(6)
    v6 = M.dcg(P.identity(6), a6)
    # the identity is the unique minimiser (the proof of Prop. 6.1) and DCG is injective on S_6
    assert v6.argmin() == 0 and np.sum(np.isclose(v6, v6.min())) == 1
    assert np.min(np.diff(np.sort(v6))) > 1e-9
    a7 = P.all_permutations(7)
    v7 = np.sort(M.dcg(P.identity(7), a7))
    assert np.any(np.diff(v7) < 1e-9)  # two distinct permutations with equal DCG exist at n = 7


# ------------------------------------------------------------------------------------------
# undefined values
# ------------------------------------------------------------------------------------------


def test_nan_policy():
    s = [1, 2, 3, 4, 5]
    assert math.isnan(M.lr_plus(s, s, k=2))  # FPR = 0
    for name in ("fallout", "tnr", "npv", "for", "balanced_accuracy", "mcc", "markedness",
                 "lr_minus", "informedness", "prevalence_threshold", "lr_plus"):
        assert math.isnan(M.evaluate(name, s, [5, 4, 3, 2, 1], k=5)), name
    for name in ("recall", "precision", "accuracy", "f1", "jaccard", "fowlkes_mallows", "fdr", "fnr"):
        assert not math.isnan(M.evaluate(name, s, [5, 4, 3, 2, 1], k=5)), name
    for name in ("kendall_tau", "spearman_rho", "ndpm", "r2"):
        assert math.isnan(M.evaluate(name, [1], [1])), name
    for name in ("mse", "rmse", "mae", "mape", "smape", "dcg", "ndcg"):
        assert M.evaluate(name, [1], [1]) == (1.0 if name in ("dcg", "ndcg") else 0.0)
    # LR- with TN = 0 and FN > 0 (2k > n): x/0 is nan, not inf
    assert M.lr_minus([1, 2, 3, 4], [3, 1, 2, 4], k=3) == 0.0  # FNR = 0, TNR = 1
    assert math.isnan(M.lr_minus([1, 2, 3, 4], [3, 4, 1, 2], k=3))  # TN = 0: FNR / 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        M.evaluate_many(M.NAMES, s, s, k=5)  # no RuntimeWarning leaks


# ------------------------------------------------------------------------------------------
# property-based tests
# ------------------------------------------------------------------------------------------


@st.composite
def pair_and_k(draw, min_n=1, max_n=12):
    n = draw(st.integers(min_n, max_n))
    items = list(range(1, n + 1))
    sigma = draw(st.permutations(items))
    nu = draw(st.permutations(items))
    k = draw(st.integers(1, n))
    return np.array(sigma), np.array(nu), k


@given(pair_and_k())
@settings(max_examples=150, deadline=None)
def test_symmetric_metrics_are_symmetric(data):
    sigma, nu, k = data
    a = M.evaluate_many(SYMMETRIC, sigma, nu, k=k)
    b = M.evaluate_many(SYMMETRIC, nu, sigma, k=k)
    for name in SYMMETRIC:
        assert same(a[name], b[name], 1e-12), name


@given(pair_and_k(min_n=2))
@settings(max_examples=150, deadline=None)
def test_values_in_range(data):
    sigma, nu, k = data
    n = len(sigma)
    out = M.evaluate_many(M.NAMES, sigma, nu, k=k)
    unit = ["recall", "fnr", "fallout", "tnr", "precision", "fdr", "npv", "for", "accuracy",
            "balanced_accuracy", "f1", "fowlkes_mallows", "jaccard", "prevalence_threshold", "ndpm"]
    for name in unit:
        x = out[name]
        assert math.isnan(x) or -1e-12 <= x <= 1 + 1e-12, name
    for name in ("mcc", "markedness", "informedness", "kendall_tau", "spearman_rho"):
        x = out[name]
        assert math.isnan(x) or -1 - 1e-12 <= x <= 1 + 1e-12, name
    assert out["r2"] >= -3 - 1e-12 and out["r2"] <= 1 + 1e-12
    assert 0 <= out["mse"] <= (n - 1) ** 2 and 0 <= out["mae"] <= n - 1
    assert 0 <= out["smape"] <= 200 and out["mape"] >= 0
    assert 0 < out["ndcg"] <= 1 + 1e-12
    assert 1 / n <= out["mrr"] <= 1
    assert 1 <= out["gmr"] <= out["mean_rank"] + 1e-12 and out["mean_rank"] <= n
    for name in ("lr_plus", "lr_minus"):
        assert math.isnan(out[name]) or out[name] >= 0


@given(st.integers(1, 10), st.integers(1, 6), st.integers(0, 10**6))
@settings(max_examples=60, deadline=None)
def test_batch_equals_per_pair(n, batch, seed):
    rng = np.random.default_rng(seed)
    s = P.random(n, size=batch, rng=rng)
    v = P.random(n, size=(2, batch), rng=rng)  # broadcasts against s
    k = int(rng.integers(1, n + 1))
    out = M.evaluate_many(M.NAMES, s, v, k=k)
    for name in M.NAMES:
        assert out[name].shape == (2, batch)
        for a in range(2):
            for b in range(batch):
                # bit-identical: batch shape must not change a value (ties matter downstream)
                single = M.evaluate(name, s[b], v[a, b], k=k)
                assert out[name][a, b] == single or (math.isnan(single) and math.isnan(out[name][a, b])), name


# ------------------------------------------------------------------------------------------
# validation
# ------------------------------------------------------------------------------------------


def test_unknown_metric_lists_valid_names():
    with pytest.raises(ValueError, match="unknown metric 'ndgc'.*valid names: recall, fnr"):
        M.evaluate("ndgc", [1, 2], [2, 1])
    with pytest.raises(ValueError, match="unknown metric"):
        M.evaluate_many(["mse", "nope"], [1, 2], [2, 1])


@pytest.mark.parametrize("name", [m for m in M.NAMES if M.REGISTRY[m].needs_k])
def test_k_required_and_checked(name):
    s, v = [1, 2, 3, 4], [2, 1, 4, 3]
    with pytest.raises(ValueError, match="needs k"):
        M.evaluate(name, s, v)
    for bad in (0, 5, -1):
        with pytest.raises(ValueError, match=r"k must be an integer in 1..n=4, got"):
            M.evaluate(name, s, v, k=bad)
    for bad in (2.0, True, "2"):
        with pytest.raises(ValueError, match="k must be an integer"):
            M.evaluate(name, s, v, k=bad)


def test_k_ignored_where_unused():
    s, v = [1, 2, 3, 4], [2, 1, 4, 3]
    for name in M.NAMES:
        if not M.REGISTRY[name].needs_k:
            assert same(M.evaluate(name, s, v, k=99), M.evaluate(name, s, v))
    with pytest.raises(ValueError, match="needs k"):
        M.evaluate_many(["mse", "recall"], s, v)
    assert set(M.evaluate_many(["mse", "dcg"], s, v)) == {"mse", "dcg"}


@pytest.mark.parametrize(
    "sigma, nu, message",
    [
        ([1, 2, 3], [1, 2], "different numbers of items"),
        ([1, 2, 2], [1, 2, 3], "sigma has duplicate"),
        ([1, 2, 3], [0, 1, 2], "nu has value 0 outside 1..3"),
        ([1.5, 2, 3], [1, 2, 3], "non-integer"),
        ([True, False], [1, 2], "booleans"),
        ([], [], "empty"),
    ],
)
def test_bad_rankings(sigma, nu, message):
    with pytest.raises(ValueError, match=message):
        M.evaluate("mse", sigma, nu)
    with pytest.raises(ValueError, match=message):
        M.evaluate_many(M.NAMES, sigma, nu, k=1)


def test_blocks_do_not_change_values(monkeypatch):
    s = P.random(17, size=(3, 40), rng=11)
    v = P.random(17, size=40, rng=12)
    whole = M.evaluate_many(M.NAMES, s, v, k=4)
    monkeypatch.setattr(M, "_CHUNK_ELEMENTS", 50)  # blocks of 2 rows
    blocks = M.evaluate_many(M.NAMES, s, v, k=4)
    for name in M.NAMES:
        assert blocks[name].shape == (3, 40)
        np.testing.assert_array_equal(blocks[name], whole[name])


@pytest.mark.parametrize("chunk", [1, 50, 333, 1 << 18])
def test_block_size_never_changes_values_or_errors(chunk, monkeypatch):
    """Blocks of 1 row up to the whole batch: identical values for broadcast multi-axis batches,
    one-axis batches and float input; an invalid row in a late block gives the same error as
    whole-array validation (global row index, sigma's problems before nu's, rankings before k)."""
    s = P.random(9, size=(4, 1, 30), rng=21)
    v = P.random(9, size=(5, 30), rng=22)
    flat_s, flat_v = P.random(9, size=70, rng=23), P.random(9, size=70, rng=24)
    whole = M.evaluate_many(M.NAMES, s, v, k=3)
    whole_flat = M.evaluate_many(M.NAMES, flat_s, flat_v, k=3)
    monkeypatch.setattr(M, "_CHUNK_ELEMENTS", chunk)
    blocks = M.evaluate_many(M.NAMES, s, v, k=3)
    blocks_flat = M.evaluate_many(M.NAMES, flat_s.astype(float), flat_v.astype(np.int32), k=3)
    for name in M.NAMES:
        assert blocks[name].shape == (4, 5, 30)
        np.testing.assert_array_equal(blocks[name], whole[name])
        np.testing.assert_array_equal(blocks_flat[name], whole_flat[name])
    bad_v = flat_v.copy()
    bad_v[60, 1] = bad_v[60, 0]
    with pytest.raises(ValueError, match=r"nu has duplicate values .*\(row \(60,\)\)"):
        M.evaluate_many(["mse"], flat_s, bad_v)
    bad_s = flat_s.copy()
    bad_s[65, 3] = 10
    with pytest.raises(ValueError, match="sigma has value 10 outside 1..9"):
        M.evaluate_many(["mse"], bad_s, bad_v)
    with pytest.raises(ValueError, match="sigma has value 10 outside 1..9"):
        M.evaluate_many(["recall"], bad_s, flat_v, k=None)
    with pytest.raises(ValueError, match="non-integer floats"):
        M.evaluate_many(["mse"], flat_s + np.where(np.arange(70) == 69, 0.5, 0.0)[:, None], flat_v)


def test_memory_beyond_inputs_is_bounded_by_the_block(monkeypatch):
    """Validation, inverses and intermediates are per block: the extra memory does not grow
    with the batch (whole-array validation alone would allocate several times the inputs)."""
    import tracemalloc

    s, v = P.random(400, size=2000, rng=31), P.random(400, size=2000, rng=32)  # 6.4 MB each
    monkeypatch.setattr(M, "_CHUNK_ELEMENTS", 1 << 12)  # blocks of 10 rows: ~0.4 MB extra
    tracemalloc.start()
    try:
        out = M.evaluate_many(M.NAMES, s, v, k=100)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    outputs = sum(x.nbytes for x in out.values())
    assert peak - outputs < 0.25 * s.nbytes, (peak, outputs)


def test_appendix_c2_ndpm_sums_literally_give_half_minus_tau():
    """The printed NDPM sums over ordered position pairs reduce to 1/2 - tau (documented reading)."""
    for sigma, nu, _ in PAIRS[:60]:
        n = len(sigma)
        if n < 2:
            continue
        ss = np.sign(sigma[:, None] - sigma[None, :])
        tt = np.sign(nu[:, None] - nu[None, :])
        c_plus = (ss * tt).sum()
        c_minus = (ss * -tt).sum()
        c_u = (ss**2).sum()
        c_u0 = c_u - c_plus - c_minus
        literal = (c_minus + c_u0 / 2) / c_u
        assert literal == pytest.approx(0.5 - M.kendall_tau(sigma, nu), abs=1e-12)


def test_mcc_needs_the_square_root():
    """Without the root (as printed in Appendix C.1) MCC(sigma, sigma) would be 1/(k(n-k))."""
    n, k = 10, 3
    s = P.identity(n)
    tp, tn = k, n - k  # sigma = nu
    printed_mcc = (tp * tn - 0) / (k * k * (n - k) * (n - k))
    assert printed_mcc == pytest.approx(1 / (k * (n - k))) and M.mcc(s, s, k=k) == 1.0
