"""rankbook.cutoffs: the k-dependent metrics at every cut-off at once equal the per-k values
(bit for bit where documented), and the seed-robust Table 2 helpers built on them (issue 19)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import cutoffs, metrics, permutations, properties
from rankbook.papers.paper_a import tables as paper_a_tables

KDEP = list(cutoffs.CONFUSION + cutoffs.RANK_POSITION)


@pytest.mark.parametrize("n", [2, 3, 7, 20])
def test_every_cutoff_equals_the_per_k_metrics(n):
    rng = np.random.default_rng(n)
    s, v = permutations.random(n, 40, rng), permutations.random(n, 40, rng)
    ks = list(range(1, n + 1))
    fast = cutoffs.evaluate_cutoffs(KDEP, s, v, ks)
    exact = cutoffs.evaluate_cutoffs(KDEP, s, v, ks, exact=True)
    for j, k in enumerate(ks):
        ref = metrics.evaluate_many(KDEP, s, v, k=k)
        for m in KDEP:
            want = np.asarray(ref[m])
            assert np.array_equal(exact[m][:, j], want, equal_nan=True), (m, k)
            if m in cutoffs.CONFUSION:  # the same kernels on the same numbers: the same bits
                assert np.array_equal(fast[m][:, j], want, equal_nan=True), (m, k)
            else:  # running sums: rounding only
                np.testing.assert_allclose(fast[m][:, j], want, rtol=1e-13)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9).flatmap(lambda n: st.tuples(st.permutations(range(1, n + 1)),
                                                     st.permutations(range(1, n + 1)))))
def test_true_positives_count_the_shared_top_k(pair):
    s, v = (np.array(x) for x in pair)
    n = len(s)
    tp = cutoffs.true_positives(s, v, range(1, n + 1))
    brute = [len(set(s[:k]) & set(v[:k])) for k in range(1, n + 1)]
    assert tp.tolist() == brute


def test_batches_and_bad_input():
    rng = np.random.default_rng(0)
    s, v = permutations.random(6, (2, 3), rng), permutations.random(6, (2, 3), rng)
    assert cutoffs.evaluate_cutoffs(["recall"], s, v, [1, 6])["recall"].shape == (2, 3, 2)
    with pytest.raises(ValueError, match="does not depend on k"):
        cutoffs.evaluate_cutoffs(["mse"], s, v, [1])
    with pytest.raises(ValueError, match=r"cut-offs must lie in 1..n=6"):
        cutoffs.evaluate_cutoffs(["recall"], s, v, [0, 3])
    with pytest.raises(ValueError, match="unknown metric"):
        cutoffs.evaluate_cutoffs(["nope"], s, v, [1])
    with pytest.raises(ValueError, match="not a permutation|duplicate|permutation"):
        cutoffs.true_positives([1, 1, 2], [1, 2, 3], [1])


def test_stability_curves_unchanged_by_the_fast_path():
    """stability_curves now evaluates every cut-off at once; each row still equals the
    one-k-at-a-time stability() on the same pairs (the strict comparison with 1/k included)."""
    names = ["recall", "mcc", "mrr", "gmr", "mean_rank", "mse"]
    curves = properties.stability_curves(names, 40, [1, 5, 10, 38], n_pairs=200, seed=3)
    for m in names:
        for k in (1, 10, 38):
            one = properties.stability(m, 40, k=k, n_pairs=200, seed=3)
            assert k in one.ks
            row = curves[(curves.metric == m) & (curves.k == k)].iloc[0]
            assert row.pass_rate == one.pass_rates[one.ks.index(k)], (m, k)


def test_fit_k_over_seeds_sums_the_seeds():
    pub = pd.read_csv(paper_a_tables.__file__.replace("src/rankbook/papers/paper_a/tables.py",
                                                      "data/published/paper_a/table2_robustness.csv"),
                      comment="#")
    tol = dict(abs_tol=0.005, n_sd=2.5)
    one = [paper_a_tables.fit_k(pub, 10, [2, 3], n_pairs=100, n_runs=3, seeds=[s], **tol)
           for s in (5, 6)]
    both = paper_a_tables.fit_k(pub, 10, [2, 3], n_pairs=100, n_runs=3, seeds=[5, 6], **tol)
    assert both["match"].tolist() == (one[0]["match"] + one[1]["match"]).tolist()
    assert (both["cells"] == 2 * one[0]["cells"]).all()
    # the fast path (all cut-offs at once) and the per-k path agree
    slow = paper_a_tables.fit_k(pub, 10, [2, 3], n_pairs=100, n_runs=3, seeds=[5],
                                evaluate=metrics.evaluate_many, **tol)
    assert slow["match"].tolist() == one[0]["match"].tolist()


def test_scoring_and_fit_seeds_never_overlap():
    score, fit = paper_a_tables.seed_sets(0, 11, 3)
    assert len(score) == 11 and len(fit) == 3 and not set(score) & set(fit)


def test_robustness_over_seeds_and_readings():
    pub = pd.read_csv(paper_a_tables.__file__.replace("src/rankbook/papers/paper_a/tables.py",
                                                      "data/published/paper_a/table2_robustness.csv"),
                      comment="#")
    pub = pub[pub["n"] == 10]
    names = ["recall", "ndpm", "kendall_tau"]
    cells = paper_a_tables.robustness_over_seeds(pub, names, [10], {10: 3}, [0, 1], n_pairs=100,
                                                 n_runs=3, k_alternative={10: 2}, abs_tol=0.005,
                                                 n_sd=2.5, k_others={"k = 5 at n = 10": {10: 5}})
    assert set(cells["seed"]) == {0, 1}
    assert set(cells["metric"]) == {"recall", "ndpm", "kendall_tau", paper_a_tables.NDPM_UNIFORM}
    uniform = cells[cells.metric == paper_a_tables.NDPM_UNIFORM].set_index(["change", "seed"])
    tau = cells[cells.metric == "kendall_tau"].set_index(["change", "seed"])
    # NDPM = (1 - tau)/2 on the arrays, so its mean change is half of tau's
    np.testing.assert_allclose(uniform["reproduced"], tau["reproduced"] / 2, rtol=1e-12)
    main = paper_a_tables.seed_counts(cells, {"k": "fitted", "ndpm": "ndpm"})
    alt = paper_a_tables.seed_counts(cells, {"k": "alternative", "ndpm": paper_a_tables.NDPM_UNIFORM})
    assert main.index.tolist() == [0, 1] and (main <= 6).all() and (alt <= 6).all()
    # another k for one size: its own cells there, the fitted k's elsewhere
    other = paper_a_tables.seed_counts(cells, {"k": "k = 5 at n = 10", "ndpm": "ndpm"})
    fives = cells[(cells.k_reading == "k = 5 at n = 10") | (cells.k_reading == "any")]
    fives = fives[fives.metric != paper_a_tables.NDPM_UNIFORM]
    assert other.tolist() == (fives.status == "match").groupby(fives.seed).sum().tolist()
    assert set(cells.loc[cells.k_reading == "k = 5 at n = 10", "k"]) == {5}


def test_stability_row_counts_per_reading():
    names = ["recall", "fnr", "mse", "mrr"]
    _, verdicts = paper_a_tables.stability_over_seeds(names, 60, [0, 1], n_pairs=100, k_step=20,
                                                      threshold=0.975)
    published = pd.Series([True, True, True, False], index=names)
    counts = paper_a_tables.stability_row_counts(verdicts, published)
    assert list(counts.columns) == list(paper_a_tables.STABILITY_READINGS)
    assert counts.index.tolist() == [0, 1] and ((counts >= 0) & (counts <= 4)).all().all()
    assert bool(verdicts.loc[verdicts.metric == "mse", "text"].all())  # no k: always stable
