"""rankbook.papers.paper_a.tables: grading, identities, k fit, explanations and the Table 3 recomputation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from rankbook import metrics, permutations
from rankbook.papers.paper_a import tables as R
from rankbook.ledger.paths import data_path


@pytest.fixture(scope="module")
def published():
    return pd.read_csv(data_path("published", "paper_a", "table2_robustness.csv"), comment="#")


# --- grading ----------------------------------------------------------------------------------

#: Table 2's tolerance, as its ledger entry gives it (A-T2-rob): half a unit of the printed two
#: decimals plus 2.5 standard deviations of one run.
TOL = dict(abs_tol=0.005, n_sd=2.5)


def test_cell_status_boundaries():
    from rankbook.ledger import claims

    assert claims.ledger().claim("A-T2-rob").params["tolerance"] == {"abs": 0.005, "n_sd": 2.5}
    assert R.cell_status(1.0, 1.0 + 0.005 + 2.5 * 0.01 - 1e-9, 0.01, **TOL).item() == "match"
    assert R.cell_status(1.0, 1.0 + 0.005 + 2.5 * 0.01 + 1e-6, 0.01, **TOL).item() == "no"
    assert R.cell_status(1.0, 1.004, 0.0, **TOL).item() == "match"
    assert R.cell_status(1.0, 1.004, 0.0, abs_tol=0.001, n_sd=2.5).item() == "no"
    assert R.cell_status(0.05, np.nan, 0.0, **TOL).item() == "no"


def test_choose_k_by_distance_takes_the_pooled_minimum_and_reports_the_spread():
    from rankbook.papers.paper_a import table2

    fit = pd.DataFrame({"n": 10, "k": [2, 3, 4] * 3, "fit_set": ["1"] * 3 + ["2"] * 3 + ["pooled"] * 3,
                        "distance": [0.9, 1.0, 2.0, 2.0, 0.5, 0.6, 1.2, 0.7, 0.75], "within": 0,
                        "cells": 44})
    out = table2.choose_k_by_distance(fit, 0.1).iloc[0]
    assert out["k"] == 3 and out["k_per_set"] == [2, 3]
    assert (out["k_min"], out["k_max"]) == (2, 3)
    assert out["near"] == "3-4"  # within 10 % of the best distance 0.7
    assert out["others"] == []  # one run of k, which holds the fitted one
    fit.loc[fit["fit_set"].eq("pooled") & fit["k"].eq(4), "distance"] = 5.0
    fit.loc[fit["fit_set"].eq("pooled") & fit["k"].eq(2), "distance"] = 0.72
    out = table2.choose_k_by_distance(fit, 0.1).iloc[0]
    assert out["near"] == "2-3" and out["others"] == []
    fit = pd.concat([fit, pd.DataFrame({"n": 10, "k": [6], "fit_set": ["pooled"], "distance": [0.71],
                                        "within": 0, "cells": 44})])
    out = table2.choose_k_by_distance(fit, 0.1).iloc[0]
    assert out["near"] == "2-3, 6" and out["others"] == [6]  # a second run of k, almost as near


def test_fit_k_by_distance_recovers_a_known_k(published):
    """Cells simulated at a known k on one seed are printed to two decimals; the fit on other,
    disjoint seeds must find that k again (the distance ignores the noise of each k)."""
    from rankbook import robustness
    from rankbook.papers.paper_a import table2

    n, k_true = 10, 3
    runs = robustness.summarize_runs(robustness.type_i_runs(R.K_DEPENDENT, n, k_true, n_pairs=1000,
                                                            n_runs=10, seed=77))
    fake = runs.assign(published=runs["reproduced"].round(2))[["metric", "change", "n", "published"]]
    fit = table2.fit_k_by_distance(fake, n, range(1, n), [5, 6], unit=0.005, n_pairs=1000,
                                   n_runs=5)
    chosen = table2.choose_k_by_distance(fit, 0.1).iloc[0]
    assert chosen["k"] == k_true and chosen["k_per_set"] == [k_true, k_true]
    with pytest.raises(ValueError, match="k must lie in 1..n-1"):
        table2.fit_k_by_distance(published, 10, [0, 3], [5], unit=0.005, n_pairs=10, n_runs=2)


def test_fit_k_rejects_bad_k(published):
    with pytest.raises(ValueError, match="k must lie in 1..n-1"):
        R.fit_k(published, 10, [0, 3], n_pairs=10, n_runs=2, **TOL)


# --- the simulation ----------------------------------------------------------------------------

def test_perturb_swap_and_slide():
    rng = np.random.default_rng(1)
    nu = permutations.random(9, 500, rng=rng)
    swapped = R.perturb(nu, "swap", np.random.default_rng(2))
    permutations.validate(swapped)
    assert ((swapped != nu).sum(axis=1) == 2).all()
    np.testing.assert_array_equal(R.perturb(nu, "slide"), np.roll(nu, -1, axis=1))
    # the left action relabels items: the positions that change hold the two swapped labels
    left = R.perturb(nu, "swap", np.random.default_rng(2), side="left")
    changed = left != nu
    assert (changed.sum(axis=1) == 2).all()
    assert (np.sort(left[changed].reshape(-1, 2), 1) == np.sort(nu[changed].reshape(-1, 2), 1)).all()
    with pytest.raises(ValueError, match="change must be one of 'swap', 'slide'; got"):
        R.perturb(nu, "shuffle")
    with pytest.raises(ValueError, match="needs a random generator"):
        R.perturb(nu, "swap")


def test_type_i_runs_deterministic_and_k_independent_pairs():
    a = R.type_i_runs(["mse", "recall"], 12, 3, n_pairs=50, n_runs=3, seed=7)
    b = R.type_i_runs(["mse", "recall"], 12, 3, n_pairs=50, n_runs=3, seed=7)
    pd.testing.assert_frame_equal(a, b)
    c = R.type_i_runs(["mse", "recall"], 12, 5, n_pairs=50, n_runs=3, seed=7)
    # the pairs do not depend on k, so a k-free metric gives the same numbers
    np.testing.assert_array_equal(a[a.metric == "mse"]["mean_abs_change"],
                                  c[c.metric == "mse"]["mean_abs_change"])
    assert len(a) == 2 * 2 * 3
    s = R.summarize_runs(a)
    assert set(s.columns) >= {"metric", "change", "n", "k", "reproduced", "sd"}


def test_slide_ndpm_matches_closed_form():
    # under nu o FC_n the top item of nu drops to the bottom: if it sits at position p of sigma,
    # NDPM changes by (n + 1 - 2p) / C(n, 2), with p uniform on 1..n.
    n = 10
    exact = np.mean([abs(n + 1 - 2 * p) for p in range(1, n + 1)]) / math.comb(n, 2)
    s = R.summarize_runs(R.type_i_runs(["ndpm"], n, None, n_pairs=1000, n_runs=8, seed=3,
                                       changes=["slide"]))
    assert abs(s["reproduced"].item() - exact) < 4 * s["sd"].item() / math.sqrt(8) + 1e-3


@pytest.mark.parametrize("change", ["swap", "slide"])
def test_identities_hold_for_the_library(change):
    """Every identity used to call a published cell contradictory holds pair by pair."""
    n, k = 20, 5
    rng = np.random.default_rng(11)
    sigma = permutations.random(n, 400, rng=rng)
    nu = permutations.random(n, 400, rng=rng)
    moved = R.perturb(nu, change, rng)
    names = list(metrics.NAMES)
    before = metrics.evaluate_many(names, sigma, nu, k=k)
    after = metrics.evaluate_many(names, sigma, moved, k=k)
    d = {m: np.abs(after[m] - before[m]) for m in names}
    for a, b, factor, text in R.IDENTITIES:
        np.testing.assert_allclose(d[a], factor(n) * d[b], atol=1e-9, err_msg=text)
    for a, (b1, b2), text in R.SUM_IDENTITIES:
        np.testing.assert_allclose(d[a], d[b1] + d[b2], atol=1e-9, err_msg=text)
    for m, hi in R.BOUNDS.items():
        assert np.nanmax(d[m]) <= hi + 1e-12
    moved_any = d["ndcg"] > 0
    ratio = d["dcg"][moved_any] / d["ndcg"][moved_any]  # IDCG(n), one constant
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-9)


def test_no_violation_in_a_rounded_consistent_table():
    runs = R.type_i_runs(list(metrics.NAMES), 12, 3, n_pairs=300, n_runs=1, seed=5)
    table = R.summarize_runs(runs)
    table["published"] = table["reproduced"].round(2)
    assert R.identity_violations(table, 2).empty


def test_violations_found_in_the_published_table(published):
    v = R.identity_violations(published, 2)
    def has(metric, change, n, word):
        sub = v[(v.metric == metric) & (v.change == change) & (v.n == n)]
        return sub["identity"].str.contains(word, regex=False).any()
    assert has("fdr", "swap", 10, r"\mathrm{FDR} = 1 - \mathrm{precision}")
    assert has("spearman_rho", "swap", 50, r"R^2 = 2\rho - 1")
    assert has("spearman_rho", "slide", 100, r"R^2 = 2\rho - 1")
    assert has("ndpm", "slide", 10, "at most 1")
    assert has("mcc", "swap", 50, "informedness")
    assert not has("recall", "swap", 10, "FNR")  # recall and FNR agree at 0.07


def test_copied_cells_and_typos():
    pub = pd.DataFrame({"metric": "x", "change": "swap", "n": [10, 50, 100],
                        "published": [0.10, 0.10, 0.01]})
    rep = pub.assign(reproduced=[0.10, 0.015, 0.008])
    c = R.copied_cells(pub, rep, 0.5)
    assert c["n"].tolist() == [50]
    assert R.typo_candidates(2.19) == {"leading digit dropped": 0.19, "digits 1 and 9 exchanged": 2.91}


def test_explain_gives_every_no_cell_a_reason(published):
    fake = published.assign(reproduced=published["published"] * 0.5 + 0.05, sd=0.001)
    fake["status"] = R.cell_status(fake["published"], fake["reproduced"], fake["sd"], **TOL)
    reasons = R.explain_mismatches(fake, published, **TOL, decimals=2, rel_change=0.5)
    assert (reasons[fake["status"] == "no"].str.len() > 0).all()
    assert (reasons[fake["status"] != "no"] == "").all()
    assert reasons.str.contains("no reading found").any()


# --- Table 3 and Figure 1 helpers ----------------------------------------------------------------

def test_parse_cycle():
    assert R.parse_cycle("(1 2 3)", 4).tolist() == [2, 3, 1, 4]
    assert R.parse_cycle("(1 2)(3 4)", 4).tolist() == [2, 1, 4, 3]
    for bad in ["1 2", "(1 1)", "(1 9)", "(a b)"]:
        with pytest.raises(ValueError):
            R.parse_cycle(bad, 4)


def test_indiscernibility_row():
    rows = pd.DataFrame({"n": [10], "relevant": [5], "baseline": ["id"], "sigma": ["(1 2)"],
                         "tau": ["(3 4)"]})
    cmb = [m for m in metrics.NAMES if metrics.REGISTRY[m].family == "confusion"]
    t = R.indiscernibility_table(rows, ["mse", "mape", "kendall_tau", "mrr"], cmb).set_index("metric")
    # two width-1 swaps inside the top 5: same squared error and tau, different MAPE
    assert not t.loc["mse", "distinguishes"] and not t.loc["kendall_tau", "distinguishes"]
    assert t.loc["mape", "distinguishes"]
    assert not t.loc["mrr", "distinguishes"] and not t.loc["cmb", "distinguishes"]


def test_equivalence_kind():
    x = np.linspace(0.1, 2, 50)
    assert R.equivalence_kind(x, 3 - 2 * x) == "linear"
    assert R.equivalence_kind(x, np.sqrt(x)) == "monotone"
    assert R.equivalence_kind(x, -np.log(x)) == "monotone"
    assert R.equivalence_kind(x, np.cos(5 * x)) == "none"
    assert R.equivalence_kind(np.r_[x, x], np.r_[x, x + 1]) == "none"  # not a function of x


def test_figure1_groups_cover_every_metric_once():
    members = [m for ms in R.FIGURE1_GROUPS.values() for m in ms]
    assert sorted(members) == sorted(metrics.NAMES)
    assert set(R.K_DEPENDENT) == {m for m in metrics.NAMES if metrics.REGISTRY[m].needs_k}


# --- Figure 1's text, over seeds ----------------------------------------------------------------

def test_figure1_similarity_against_scipy_and_thresholds():
    import scipy.stats

    names = list("abcde")
    rng = np.random.default_rng(1)
    u = rng.uniform(0.5, 1, 10)

    def mat(v):
        a = np.eye(5)
        a[np.triu_indices(5, 1)] = v
        return pd.DataFrame(np.maximum(a, a.T), index=names, columns=names)

    r = R.figure1_similarity(mat(u), mat(u + 0.06), min_rank_corr=0.9, max_mean_abs_diff=0.05)
    assert r["rank_corr"] == pytest.approx(1.0) and r["mean_abs_diff"] == pytest.approx(0.06)
    assert not r["similar"]  # the difference is above 0.05
    assert R.figure1_similarity(mat(u), mat(u + 0.06))["similar"] is None  # no thresholds, no verdict
    v = u.copy()
    v[[0, 1]] = v[[1, 0]]
    r = R.figure1_similarity(mat(u), mat(v))
    assert r["rank_corr"] == pytest.approx(scipy.stats.spearmanr(u, v).statistic)
    with pytest.raises(ValueError, match="same metrics"):
        R.figure1_similarity(mat(u), mat(u).iloc[::-1, ::-1])


def test_figure1_seeds_grid_k_and_validation():
    assert R.figure1_seeds(5, 10) == list(range(5, 15))
    with pytest.raises(ValueError, match="n_seeds"):
        R.figure1_seeds(0, 1)
    assert R.figure1_grid_k(20, 0.1) == 2 and R.figure1_grid_k(200, 0.5) == 100
    with pytest.raises(ValueError, match="strictly between"):
        R.figure1_grid_k(20, 1.0)
    with pytest.raises(ValueError, match="at least one seed"):
        R.figure1_grid({}, [10], [0.3])


def test_figure1_over_seeds_and_grid_are_deterministic_and_seeds_differ():
    names = ["dcg", "ndcg", "mse", "kendall_tau", "precision", "recall", "mrr"]
    rows, mats = R.figure1_over_seeds([0, 1], n=12, n_pairs=80, k=3, names=names)
    assert list(rows["seed"]) == [0, 1] and rows["dcg_ndcg_holds"].all()
    assert not mats[0].equals(mats[1])  # independent samples, different ratios
    rows2, mats2 = R.figure1_over_seeds([0, 1], n=12, n_pairs=80, k=3, names=names)
    assert rows.equals(rows2) and mats[1].equals(mats2[1])
    grid = R.figure1_grid(mats, [12], [0.25], n_pairs=80)
    # the grid point at the reference's own n, k and sample size is the reference itself
    assert (grid["k"] == 3).all() and (grid["rank_corr"] == 1.0).all() and (grid["mean_abs_diff"] == 0).all()
    assert "similar" not in grid  # the claim's thresholds decide, from the ledger


def test_figure1_grid_matrices_are_those_of_agreement_matrix(monkeypatch):
    """The grid shares the values of the metrics without a cut-off across k; its matrices must be
    exactly those agreement_matrix computes from scratch."""
    from rankbook import agreement

    names = ["dcg", "ndcg", "mse", "kendall_tau", "precision", "mrr", "lr_plus"]
    _, mats = R.figure1_over_seeds([4], n=10, n_pairs=60, k=3, names=names, ties="lenient")
    seen = []
    real = agreement.agreement_matrix_from_values
    monkeypatch.setattr(agreement, "agreement_matrix_from_values",
                        lambda *a, **kw: seen.append(real(*a, **kw)) or seen[-1])
    R.figure1_grid(mats, [8, 12], [0.25, 0.5], n_pairs=50, ties="lenient", reverse="none")
    monkeypatch.undo()
    ks = [(n, R.figure1_grid_k(n, s)) for n in (8, 12) for s in (0.25, 0.5)]
    assert len(seen) == len(ks)
    for df, (n, k) in zip(seen, ks):
        full = agreement.agreement_matrix(names, n=n, n_pairs=50, k=k, seed=4, ties="lenient",
                                          reverse="none")
        np.testing.assert_array_equal(df.to_numpy(), full.to_numpy())
        assert df.attrs["reversed"] == full.attrs["reversed"]


def test_table2_explorer_rows_mark_the_k_used_and_print_a_flat_line(published):
    from rankbook.papers.paper_a import table2

    kfit = table2.fit_k_section(published, [10], fit_seeds=[10000], fit_runs=2, n_pairs=100,
                                unit=0.005, band=0.1, k_ratio=0.25)
    rows = table2.explorer_rows(kfit)
    sim = rows[rows["series"] == "simulated"]
    assert set(sim.loc[sim["k used"] == "fitted k", "k"]) == {kfit.k_of[10]}
    assert set(sim.loc[sim["k used"] == "k = n/4", "k"]) == {kfit.k_quarter[10]} - {kfit.k_of[10]}
    printed = rows[rows["series"] == "printed in Table 2"]
    assert (printed.groupby(["row of Table 2", "metric"])["value"].nunique() == 1).all()
    assert not any("_" in c for c in rows.columns)  # reader's words in controls and tooltips


def test_table2_cells_explorer_plots_every_published_cell_under_every_reading(published):
    """The cells explorer (issue 28): every published robustness cell of the sizes run, under
    each reading the page compares, with its printed value, the reproduced mean over the seeds
    and the status the seeds give it; nothing else."""
    from rankbook.ledger.names import display
    from rankbook.papers.paper_a import table2

    names = ["recall", "mcc", "ndpm", "mse", "kendall_tau"]
    cells = R.robustness_over_seeds(published, names, [10], {10: 3}, [0, 1], n_pairs=60,
                                    n_runs=2, k_alternative={10: 2}, **TOL)
    kfit = table2.KFit({10: 3}, {10: 2}, pd.DataFrame())
    rows = table2.cells_explorer_rows(cells, kfit)
    pub = published[(published["n"] == 10) & published["metric"].isin(names)]
    want = {(display(m), c, float(v)) for m, c, v in zip(pub["metric"], pub["change"],
                                                          pub["published"])}
    assert list(dict.fromkeys(rows["reading"])) == list(table2.CELL_READINGS)
    words = {"one swap, I(a)": "swap", "one slide, I(b)": "slide"}
    for reading, g in rows.groupby("reading"):
        got = {(m, words[c], v) for m, c, v in zip(g["metric"], g["row of Table 2"], g["published"])}
        assert got == want, reading
        assert len(g) == len(want)
    # the k of each reading, and none for a metric that does not depend on k
    recall = rows[rows["metric"] == display("recall")].groupby("reading")["k"].first()
    assert recall.to_dict() == {"fitted k": 3.0, "k = n/4": 2.0, "fitted k, NDPM read uniformly": 3.0}
    assert rows.loc[rows["metric"] == display("mse"), "k"].isna().all()
    # the reproduced mean and the status follow the seeds of that reading
    one = cells[(cells["metric"] == "recall") & (cells["change"] == "swap")
                & (cells["k_reading"] == "alternative")]
    row = rows[(rows["metric"] == display("recall")) & (rows["row of Table 2"] == "one swap, I(a)")
               & (rows["reading"] == "k = n/4")].iloc[0]
    assert row["reproduced"] == pytest.approx(one["reproduced"].mean(), abs=1e-5)
    matched = int((one["status"] == "match").sum())
    assert row["seeds matched"] == f"{matched} of 2"
    assert row["status"] == table2.STATUS_WORDS[{2: "match", 1: "loose", 0: "no"}[matched]]
    # NDPM read uniformly: only in its own reading
    uni = cells[(cells["metric"] == R.NDPM_UNIFORM) & (cells["change"] == "swap")]
    nd = rows[(rows["metric"] == display("ndpm")) & (rows["row of Table 2"] == "one swap, I(a)")]
    assert nd.set_index("reading").loc["fitted k, NDPM read uniformly", "reproduced"] == \
        pytest.approx(uni["reproduced"].mean(), abs=1e-5)
    # MSE's cells run above 1: its panel is not the one of the shares; each metric keeps one
    panels = list(table2.CELL_PANELS.values())
    assert set(rows.loc[rows["metric"] == display("mse"), "panel"]) <= set(panels[1:])
    assert set(rows.loc[rows["metric"] == display("recall"), "panel"]) == {panels[0]}
    assert (rows.groupby("metric")["panel"].nunique() == 1).all()
    top = rows[["published", "reproduced"]].abs().max(axis=1).groupby(rows["metric"]).max()
    for metric, panel in rows.groupby("metric")["panel"].first().items():
        bound = next(b for b, v in table2.CELL_PANELS.items() if v == panel)
        lower = max([0.0] + [b for b in table2.CELL_PANELS if b < bound])
        assert lower < top[metric] <= bound or (lower == 0 and top[metric] <= bound), metric
    assert not any("_" in c for c in rows.columns)


def test_printed_error_sums_are_n_times_the_means():
    from rankbook.papers.paper_a import formulas

    rng = np.random.default_rng(1)
    s, v = permutations.random(7, 20, rng), permutations.random(7, 20, rng)
    sums = formulas.printed_error_sums(["mse", "rmse", "mae"], s, v)
    np.testing.assert_allclose(sums["mse"], 7 * metrics.mse(s, v))
    np.testing.assert_allclose(sums["mae"], 7 * metrics.mae(s, v))
    np.testing.assert_allclose(sums["rmse"], np.sqrt(7) * metrics.rmse(s, v))
    with pytest.raises(ValueError, match="no printed sum"):
        formulas.printed_error_sums(["r2"], s, v)
