"""Many systems at once (issue 40, item 2): Tukey's HSD, the randomised Tukey HSD and topic
set sizes, against code we did not write.

- one-way Tukey HSD equals ``scipy.stats.tukey_hsd`` on 10 random designs (differences,
  p-values, intervals); the two-way (topic-blocked) form takes its error term from
  statsmodels' two-way ANOVA (``anova_lm`` of ``value ~ C(system) + C(topic)``);
- the randomised Tukey HSD's exact p-values equal a brute-force count over every
  within-topic permutation (itertools, the first topic not fixed), and its Monte Carlo
  p-values agree with them within sampling error;
- the paired t-test power and the ANOVA power equal statsmodels' ``TTestPower`` and
  ``FTestAnovaPower``; the topic set sizes are the smallest sizes reaching the power, and the
  normal approximation equals rankkit 0.1.0's ``queries_needed``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from rankbook import stats

DESIGNS = [(int(m), int(n), seed) for seed, (m, n) in enumerate(
    [(2, 5), (3, 4), (3, 12), (4, 6), (5, 10), (6, 25), (7, 15), (8, 50), (4, 8), (9, 30)])]


def _design(m, n, seed, ties=False):
    rng = np.random.default_rng(seed)
    topic = rng.normal(0, 1, size=n)
    effect = rng.normal(0, 0.3, size=m)
    x = effect[:, None] + topic[None, :] + rng.normal(0, 0.5, size=(m, n))
    return np.round(x, 1) if ties else x


@pytest.mark.parametrize("m, n, seed", DESIGNS)
def test_one_way_equals_scipy_tukey_hsd(m, n, seed):
    x = _design(m, n, seed)
    ours = stats.tukey_hsd(x, "one-way", confidence=0.9)
    ref = sps.tukey_hsd(*x)
    ci = ref.confidence_interval(0.9)
    np.testing.assert_allclose(ours.statistic, ref.statistic, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.pvalue, ref.pvalue, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.low, ci.low, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.high, ci.high, rtol=1e-9, atol=1e-12)
    assert ours.df == m * (n - 1)


@pytest.mark.parametrize("m, n, seed", DESIGNS[:6])
def test_two_way_error_term_is_statsmodels_two_way_anova(m, n, seed):
    smf = pytest.importorskip("statsmodels.formula.api")
    sm = pytest.importorskip("statsmodels.api")
    x = _design(m, n, seed)
    df = pd.DataFrame({"value": x.ravel(), "system": np.repeat(np.arange(m), n),
                       "topic": np.tile(np.arange(n), m)})
    fit = smf.ols("value ~ C(system) + C(topic)", data=df).fit()
    table = sm.stats.anova_lm(fit, typ=2)
    mse = table.loc["Residual", "sum_sq"] / table.loc["Residual", "df"]
    ours = stats.tukey_hsd(x)  # two-way is the default
    assert ours.mse == pytest.approx(mse, rel=1e-10)
    assert ours.df == table.loc["Residual", "df"] == (m - 1) * (n - 1)
    # every pair: the studentized range of the difference on that error term
    means = x.mean(axis=1)
    for i, j in itertools.combinations(range(m), 2):
        q = abs(means[i] - means[j]) / math.sqrt(mse / n)
        assert ours.pvalue[i, j] == pytest.approx(sps.studentized_range.sf(q, m, fit.df_resid),
                                                  rel=1e-9, abs=1e-14)
    # blocking by topic takes the topics' sum of squares out of the one-way error
    one = stats.tukey_hsd(x, "one-way")
    topic_ss = m * ((x.mean(axis=0) - x.mean()) ** 2).sum()
    assert ours.mse * ours.df == pytest.approx(one.mse * one.df - topic_ss, rel=1e-10)


def _brute_force_pvalues(x):
    """Share of all (m!)^n within-topic permutations whose range of means reaches each
    observed difference (the first topic permuted too)."""
    m, n = x.shape
    means = x.mean(axis=1)
    perms = list(itertools.permutations(range(m)))
    ranges = []
    for combo in itertools.product(perms, repeat=n):
        sums = np.zeros(m)
        for j, p in enumerate(combo):
            sums += x[list(p), j]
        mu = sums / n
        ranges.append(mu.max() - mu.min())
    ranges = np.array(ranges)
    p = np.ones((m, m))
    for i, j in itertools.combinations(range(m), 2):
        d = abs(means[i] - means[j])
        p[i, j] = p[j, i] = np.mean(ranges >= d - 1e-12)
    return p


@pytest.mark.parametrize("m, n, seed, ties", [(2, 6, 0, False), (3, 3, 1, False),
                                              (3, 4, 2, True), (3, 5, 3, False),
                                              (4, 3, 4, True), (4, 3, 5, False)])
def test_randomized_tukey_exact_equals_brute_force(m, n, seed, ties):
    x = _design(m, n, seed, ties)
    res = stats.randomized_tukey_hsd(x)
    assert res.resamples.startswith("exact")
    np.testing.assert_allclose(res.pvalue, _brute_force_pvalues(x), rtol=0, atol=1e-12)


def test_randomized_tukey_monte_carlo_agrees_with_exact():
    x = _design(4, 5, 9)
    exact = stats.randomized_tukey_hsd(x)
    mc = stats.randomized_tukey_hsd(x, exact=False, n_resamples=20000, seed=3)
    assert mc.resamples.startswith("Monte Carlo")
    iu = np.triu_indices(4, 1)
    se = np.sqrt(exact.pvalue[iu] * (1 - exact.pvalue[iu]) / 20000)
    assert np.all(np.abs(mc.pvalue[iu] - exact.pvalue[iu]) <= 4 * se + 1 / 20001)
    again = stats.randomized_tukey_hsd(x, exact=False, n_resamples=20000, seed=3)
    np.testing.assert_array_equal(mc.pvalue, again.pvalue)  # seeded: the same numbers


def test_randomized_tukey_controls_the_familywise_error():
    """Exchangeable systems: the share of designs with some adjusted p < 0.05 stays near 0.05
    (each design's exact test has size at most alpha; 200 designs)."""
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(200):
        topic = rng.normal(size=4)
        x = topic[None, :] + rng.normal(size=(3, 4))
        hits += bool((stats.randomized_tukey_hsd(x).pvalue < 0.05).any())
    lo, hi = stats.wilson_interval(hits, 200, 0.99)
    assert lo <= 0.05


def test_tukey_refuses_bad_input():
    with pytest.raises(ValueError, match="design must be one of"):
        stats.tukey_hsd(np.ones((3, 4)), "three-way")
    with pytest.raises(ValueError, match="at least 2 systems"):
        stats.tukey_hsd(np.ones((1, 4)))
    with pytest.raises(ValueError, match="not feasible"):
        stats.randomized_tukey_hsd(np.random.default_rng(0).random((6, 20)), exact=True)


@pytest.mark.parametrize("seed", range(12))
def test_power_equals_statsmodels(seed):
    power_mod = pytest.importorskip("statsmodels.stats.power")
    rng = np.random.default_rng(seed)
    delta, sd, alpha = rng.uniform(0.01, 0.2), rng.uniform(0.05, 0.4), rng.choice([0.01, 0.05, 0.1])
    n = int(rng.integers(3, 400))
    ref = power_mod.TTestPower().power(delta / sd, n, alpha, alternative="two-sided")
    ours = stats.paired_t_power(n, delta, sd, alpha)
    if np.isnan(ref):  # scipy's nct.cdf fails far in the lower tail, where it is 0
        ref = sps.nct.sf(sps.t.ppf(1 - alpha / 2, n - 1), n - 1, math.sqrt(n) * delta / sd)
    assert ours == pytest.approx(ref, rel=1e-9, abs=1e-12)
    m = int(rng.integers(2, 12))
    var = sd ** 2 / 2
    f = math.sqrt(delta ** 2 / (2 * m * var))
    ref = power_mod.FTestAnovaPower().power(f, m * n, alpha, k_groups=m)
    assert stats.anova_power(n, delta, var, m, alpha) == pytest.approx(ref, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_topic_set_sizes_are_the_smallest_with_the_power(seed):
    power_mod = pytest.importorskip("statsmodels.stats.power")
    rng = np.random.default_rng(100 + seed)
    delta, sd = rng.uniform(0.02, 0.15), rng.uniform(0.05, 0.35)
    alpha, power = rng.choice([0.01, 0.05]), rng.choice([0.7, 0.8, 0.9])
    n = stats.topic_set_size(delta, sd, alpha, power)
    assert stats.paired_t_power(n, delta, sd, alpha) >= power
    assert n == 2 or stats.paired_t_power(n - 1, delta, sd, alpha) < power
    solved = power_mod.TTestPower().solve_power(delta / sd, None, alpha, power)
    assert n == math.ceil(solved - 1e-9)
    m = int(rng.integers(2, 10))
    var = sd ** 2 / 2
    na = stats.topic_set_size_anova(delta, var, m, alpha, power)
    assert stats.anova_power(na, delta, var, m, alpha) >= power
    assert na == 2 or stats.anova_power(na - 1, delta, var, m, alpha) < power
    f = math.sqrt(delta ** 2 / (2 * m * var))
    total = power_mod.FTestAnovaPower().solve_power(f, None, alpha, power, k_groups=m)
    assert na == math.ceil(total / m - 1e-9)


def test_normal_approximation_equals_rankkit():
    """rankkit 0.1.0 prints 'to detect +d at this per-query spread you would need N queries'
    from the standard deviation of the per-query differences: the same N, on 200 inputs."""
    compare = pytest.importorskip("rankkit.compare")
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(200):
        a = {f"q{i}": float(v) for i, v in enumerate(rng.random(30))}
        b = {k: float(np.clip(v + rng.normal(0.03, rng.uniform(0.02, 0.3)), 0, 1))
             for k, v in a.items()}
        peer = compare.paired_compare(a, b, reps=19, boot_reps=40)
        target = float(rng.uniform(0.005, 0.1))
        level, power = float(rng.choice([0.9, 0.95, 0.99])), float(rng.choice([0.8, 0.9]))
        sd = float(np.std([b[k] - a[k] for k in a], ddof=1))
        raw = ((sps.norm.ppf(1 - (1 - level) / 2) + sps.norm.ppf(power)) * sd / target) ** 2
        if abs(raw - round(raw)) < 1e-6:  # rankkit's bisected quantile may round either way
            continue
        ours = stats.topic_set_size(target, sd, 1 - level, power, method="normal")
        assert ours == peer.queries_needed(target, level=level, power=power)
        checked += 1
    assert checked > 190


def test_sizes_refuse_bad_input():
    with pytest.raises(ValueError, match="delta must be a positive"):
        stats.topic_set_size(0, 0.2)
    with pytest.raises(ValueError, match="power must be in"):
        stats.topic_set_size(0.05, 0.2, power=1.5)
    with pytest.raises(ValueError, match="method must be one of"):
        stats.topic_set_size(0.05, 0.2, method="z")
    with pytest.raises(ValueError, match="n_systems"):
        stats.topic_set_size_anova(0.05, 0.04, 1)
