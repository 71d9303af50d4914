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


def test_compare_with_tukey_takes_its_adjusted_pvalues():
    df = stats.simulate_benchmark([0, 0, 0.3, 0.6], n_queries=12, seed=4)
    wide = df.pivot(index="system", columns="query_id", values="value")
    wide = wide.loc[["s1", "s2", "s3", "s4"], list(pd.unique(df.query_id))].to_numpy()
    ref = stats.tukey_hsd(wide)
    res = stats.compare(df, correction="tukey", n_resamples=200)
    for r in res.pairs.itertuples():
        i, j = int(r.system[1]) - 1, int(r.other[1]) - 1
        assert r.p_corrected == pytest.approx(ref.pvalue[i, j], rel=1e-12)
        assert r.significant == (ref.pvalue[i, j] < 0.05)
    plain = stats.compare(df, correction="none", n_resamples=200)
    np.testing.assert_array_equal(res.pairs.p_value, plain.pairs.p_value)  # the paired test's
    rnd = stats.compare(df, correction="randomized-tukey", n_resamples=2000, seed=1)
    ref = stats.randomized_tukey_hsd(wide, n_resamples=2000, seed=1)
    for r in rnd.pairs.itertuples():
        i, j = int(r.system[1]) - 1, int(r.other[1]) - 1
        assert r.p_corrected == ref.pvalue[i, j]
    # with a baseline the family is still every pair of the four systems
    base = stats.compare(df, baseline="s1", correction="tukey", n_resamples=200)
    assert list(base.pairs.p_corrected) == [stats.tukey_hsd(wide).pvalue[k, 0] for k in (1, 2, 3)]
    best = base.best.set_index("system")
    b = best.loc["s1", "best"]
    for s_, row in best.iterrows():
        if s_ != b:
            k, kb = int(s_[1]) - 1, int(b[1]) - 1
            assert row.p_corrected == pytest.approx(stats.tukey_hsd(wide).pvalue[k, kb])
    assert "Tukey's HSD over every pair" in base.footer()
    with pytest.raises(ValueError, match="family='measure'"):
        stats.compare(df, correction="tukey", family="all", n_resamples=200)


def test_compare_topic_set_sizes_use_each_pairs_variance():
    df = stats.simulate_benchmark([0, 0.2, 0.5], n_queries=25, seed=2)
    res = stats.compare(df, baseline="s1", n_resamples=200, delta=0.04, power=0.9, alpha=0.01)
    wide = df.pivot(index="system", columns="query_id", values="value").loc[["s1", "s2", "s3"]]
    M = wide.to_numpy()
    pairs = res.sizes[res.sizes.design == "paired t-test"]
    assert list(pairs.systems) == ["s2 vs s1", "s3 vs s1"]
    for (a, row) in zip((1, 2), pairs.itertuples()):
        sd = np.std(M[a] - M[0], ddof=1)
        assert row.variance == pytest.approx(sd ** 2)
        assert row.topics == stats.topic_set_size(0.04, sd, 0.01, 0.9)
        assert row.topics_normal == stats.topic_set_size(0.04, sd, 0.01, 0.9, "normal")
    anova = res.sizes[res.sizes.design == "one-way ANOVA"].iloc[0]
    var = np.var(M, axis=1, ddof=1).mean()
    assert anova.variance == pytest.approx(var)
    assert anova.topics == stats.topic_set_size_anova(0.04, var, 3, 0.01, 0.9)
    assert "topics needed to detect a difference of 0.04" in res.sizes_statement()
    assert stats.compare(df, n_resamples=200).sizes.empty


def test_rankbook_compare_offers_tukey_and_topic_set_sizes(tmp_path, capsys, monkeypatch):
    from rankbook.book import cli

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(1)
    q, runs = [], {"a": [], "b": [], "c": []}
    for t in range(1, 9):
        for d in range(8):
            q.append(f"{t} 0 d{d} {int(rng.integers(0, 3))}")
        for s_, shift in zip(runs, (0.0, 0.5, 1.0)):
            sc = rng.permutation(8) + shift * rng.random(8)
            runs[s_] += [f"{t} Q0 d{d} 0 {sc[d]:.4f} {s_}" for d in range(8)]
    (tmp_path / "q").write_text("\n".join(q) + "\n")
    for s_, lines in runs.items():
        (tmp_path / f"{s_}.run").write_text("\n".join(lines) + "\n")
    argv = ["compare", "a.run", "b.run", "c.run", "--qrels", "q", "--measures", "AP",
            "--correction", "randomized-tukey", "--resamples", "500", "--topic-set-size",
            "0.05", "--power", "0.9", "--pairs", "pairs.csv"]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert "randomised Tukey HSD over every pair" in out
    assert "topics needed to detect a difference of 0.05 with power 0.9" in out
    pairs = pd.read_csv(tmp_path / "pairs.csv")
    per_query = [conventions_evaluate(tmp_path / "q", tmp_path / f"{s_}.run") for s_ in "abc"]
    M = np.array(per_query)
    ref = stats.randomized_tukey_hsd(M, n_resamples=500, seed=0)
    assert list(pairs.p_corrected) == [ref.pvalue[1, 0], ref.pvalue[2, 0]]
    with pytest.raises(SystemExit) as exc:  # argparse refuses it, status 2
        cli.main(["compare", "a.run", "b.run", "--qrels", "q", "--topic-set-size", "0",
                  "--force"])
    assert exc.value.code == 2


def conventions_evaluate(qrels, run):
    from rankbook.conventions import evaluate_run

    pq = evaluate_run(qrels, run, "AP").per_query
    return pq.value.to_numpy()
