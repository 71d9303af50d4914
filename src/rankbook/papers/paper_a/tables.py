"""Published against reproduced: the logic behind the paper A notebooks (Table 2, Table 3, Figure 1).

Paper A (``paperA`` in ``book/references.bib``) reports, in Table 2, the mean absolute change of 33
metrics under a small change of one ranking (Type I robustness, eq. 5 and eq. 6), over 1000 random
pairs of rankings of length n = 10, 50 and 100. This module

* simulates those cells (:func:`rankbook.robustness.type_i_runs`, re-exported here), repeating the 1000-pair
  experiment with independent seeds to estimate the spread of one run;
* grades each published cell against its reproduction (:func:`cell_status`);
* grades every k of relevant (= retrieved) items, which the paper never states
  (:func:`fit_k`; the Table 2 page fits k by distance, :mod:`rankbook.papers.paper_a.table2`);
* explains the cells that do not reproduce: identities between metrics that every implementation
  obeys but the published table violates (:func:`identity_violations`), cells copied between
  rows (:func:`copied_cells`), and other readings of the metric or of the change
  (:func:`alternative_readings`), all computed (:func:`explain_mismatches`);
* recomputes Table 3 (:func:`indiscernibility_table`) and gives the family split of Figure 1.

Conventions (those of :mod:`rankbook.permutations`): a ranking is a one-line array, ``r[i-1]`` the
item at position i. The single swap of eq. 5 is ``nu o (i j)`` with a uniform pair of distinct
*positions*; the slide of eq. 6 is ``nu o FC_n``, i.e. ``np.roll(nu, -1)``.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from rankbook import permutations

__all__ = [
    "CHANGES",
    "K_DEPENDENT",
    "FIGURE1_GROUPS",
    "perturb",
    "type_i_runs",
    "summarize_runs",
    "cell_status",
    "confusion_change_exact",
    "fit_k",
    "IDENTITIES",
    "identity_violations",
    "copied_cells",
    "alternative_readings",
    "typo_candidates",
    "explain_mismatches",
    "parse_cycle",
    "indiscernibility_table",
    "equivalence_kind",
    "FIGURE1_SETTING",
    "figure1_group_means",
    "figure1_statements",
    "figure1_similarity",
    "figure1_seeds",
    "figure1_over_seeds",
    "figure1_grid_k",
    "figure1_grid",
]

# The general Type I robustness machinery lives in the library (rankbook.robustness); its names
# stay importable from here for the pages and tests that use them.
from rankbook.robustness import (  # noqa: E402,F401
    CHANGES, _check_change, _cutoff_means, _draw, _evaluate_many, _moved, _type_i_means,
    perturb, summarize_runs, type_i_runs,
)

#: Metrics of Table 2 whose value depends on k (the confusion-matrix metrics and the three
#: rank-position metrics computed on the first k items of the ground truth).
K_DEPENDENT = (
    "recall", "fnr", "fallout", "tnr", "precision", "fdr", "npv", "for", "accuracy",
    "balanced_accuracy", "f1", "fowlkes_mallows", "mcc", "jaccard", "markedness", "lr_minus",
    "informedness", "prevalence_threshold", "lr_plus", "mrr", "gmr", "mean_rank",
)

#: Figure 1 (right) of paper A: the split of the metrics into ranking-aware metrics, flat
#: metrics giving equal importance to every position, and flat set-based metrics.
FIGURE1_GROUPS = {
    "ranking aware": ("ndcg", "dcg", "mean_rank", "gmr", "mrr"),
    "equal importance": ("smape", "mape", "mae", "rmse", "mse", "r2", "spearman_rho",
                         "kendall_tau", "ndpm"),
    "set based": ("markedness", "prevalence_threshold", "recall", "lr_plus", "jaccard", "f1",
                  "accuracy", "fdr", "precision", "tnr", "fallout", "fnr", "lr_minus",
                  "informedness", "npv", "for", "balanced_accuracy", "fowlkes_mallows", "mcc"),
}

def cell_status(published, reproduced, sd, *, abs_tol: float, n_sd: float) -> np.ndarray:
    """Grade published cells: ``match`` or ``no``.

    ``match`` when ``|published - reproduced| <= abs_tol + n_sd * sd``, ``no`` otherwise (also
    when the reproduction is undefined). Table 2's claim gives both numbers in its ledger entry
    (``tolerance.abs``, half a unit of the printed last decimal, and ``tolerance.n_sd``).

    Examples
    --------
    >>> cell_status([0.07, 0.07, 0.07], [0.071, 0.085, np.nan], [0.002, 0.002, 0.002],
    ...             abs_tol=0.005, n_sd=2.5).tolist()
    ['match', 'no', 'no']
    """
    p = np.asarray(published, float)
    r = np.asarray(reproduced, float)
    s = np.nan_to_num(np.asarray(sd, float), nan=0.0)
    match = np.abs(p - r) <= abs_tol + n_sd * s
    return np.where(np.isfinite(r) & match, "match", "no")


def fit_k(published: pd.DataFrame, n: int, k_grid: Iterable[int], n_pairs: int = 1000,
          n_runs: int = 10, seed: int = 0, names: Sequence[str] = K_DEPENDENT,
          evaluate: Callable | None = None, seeds: Sequence[int] | None = None, *,
          abs_tol: float, n_sd: float) -> pd.DataFrame:
    """How well each k reproduces the published k-dependent cells of size n.

    For every k in ``k_grid`` the k-dependent metrics are simulated and graded
    (:func:`cell_status`) against the published swap and slide cells of size n, once per seed
    of ``seeds`` (default: ``[seed]``), each seed a fresh set of ``n_runs`` runs. Returns one
    row per k: ``n, k, match, no, cells, seeds, score``, with the counts summed over the
    seeds and ``score`` the median over cells and seeds of
    ``|published - reproduced| / (abs_tol + n_sd sd)`` (below 1 means a match). This grading
    counts cells within a tolerance that grows with the spread of each k, so choosing k by it
    rewards noisy k: the Table 2 page chooses k by distance instead
    (:func:`rankbook.papers.paper_a.table2.fit_k_by_distance`). All cut-offs are evaluated at once (:mod:`rankbook.cutoffs`); a
    custom ``evaluate`` takes the slower path of one evaluation per k.
    """
    pub = published[(published["n"] == n) & published["metric"].isin(names)]
    names = list(names)
    ks = [int(k) for k in k_grid]
    for k in ks:
        if not 1 <= k < n:
            raise ValueError(f"k must lie in 1..n-1 = 1..{n - 1}, got {k}")
    seeds = [seed] if seeds is None else [int(x) for x in seeds]
    keys = list(zip(pub["metric"], pub["change"]))
    pubv = pub["published"].to_numpy(float)
    tally = {k: {"match": 0, "no": 0, "z": []} for k in ks}
    for sd_seed in seeds:
        sigma, nu = _draw(n, n_pairs, n_runs, sd_seed)
        moved = {c: _moved(nu, c, sd_seed) for c in CHANGES}
        if evaluate is None:
            res = _cutoff_means(names, sigma, nu, moved, ks)
            per_k = {k: {key: res[key][:, j] for key in keys} for j, k in enumerate(ks)}
        else:
            per_k = {}
            for k in ks:
                r = _type_i_means(names, sigma, nu, moved, k, evaluate)
                per_k[k] = {key: r[key][0] for key in keys}
        for k in ks:
            means = [per_k[k][key] for key in keys]
            rep = np.array([np.mean(x) for x in means])
            sd = np.array([np.std(x, ddof=1) if len(x) > 1 else np.nan for x in means])
            st = cell_status(pubv, rep, sd, abs_tol=abs_tol, n_sd=n_sd)
            tol = abs_tol + n_sd * np.nan_to_num(sd)
            z = np.abs(pubv - rep) / tol
            for label in ("match", "no"):
                tally[k][label] += int((st == label).sum())
            tally[k]["z"].extend(np.where(np.isfinite(z), z, np.inf).tolist())
    rows = [{"n": n, "k": k, "match": t["match"], "no": t["no"],
             "cells": len(pub) * len(seeds), "seeds": len(seeds),
             "score": float(np.median(t["z"])) if t["z"] else float("nan")}
            for k, t in tally.items()]
    return pd.DataFrame(rows)


def seed_sets(seed: int, n_seeds: int, fit_seeds: int) -> tuple[list[int], list[int]]:
    """The seeds a verdict is scored on and the disjoint, held-out seeds its k is fitted on.

    Scored: ``seed, seed + 1, ...``; fitted: ``seed + 10000, seed + 10001, ...``. Each seed
    draws its own rankings (generators ``[seed, n, run]``), so the two sets share no pair.

    Examples
    --------
    >>> seed_sets(0, 3, 2)
    ([0, 1, 2], [10000, 10001])
    """
    if n_seeds < 1 or fit_seeds < 0:
        raise ValueError(f"need n_seeds >= 1 and fit_seeds >= 0, got {n_seeds}, {fit_seeds}")
    return ([seed + i for i in range(n_seeds)], [seed + 10_000 + j for j in range(fit_seeds)])


#: The name under which :func:`robustness_over_seeds` reports NDPM read like Kendall's tau.
NDPM_UNIFORM = "ndpm (uniform)"


def uniform_ndpm_evaluate(names, sigma, nu, k=None):
    """``metrics.evaluate_many`` that also answers for ``"ndpm (uniform)"``: NDPM read on the
    arrays like Kendall's tau, NDPM = (1 - tau) / 2, the uniform reading of the two (for strict
    rankings, Yao's count of discordant pairs taken over positions instead of items). Use it
    as the ``evaluate`` of :func:`type_i_runs`; tau is computed once for both."""
    from rankbook import metrics

    real = [m for m in names if m != NDPM_UNIFORM]
    extra = ["kendall_tau"] if NDPM_UNIFORM in names and "kendall_tau" not in real else []
    out = metrics.evaluate_many(real + extra, sigma, nu, k=k)
    if NDPM_UNIFORM in names:
        out[NDPM_UNIFORM] = (1.0 - np.asarray(out["kendall_tau"], float)) / 2.0
    return {m: out[m] for m in names}


def robustness_over_seeds(published: pd.DataFrame, names: Sequence[str], ns: Sequence[int],
                          k_of: dict, seeds: Sequence[int], n_pairs: int = 1000,
                          n_runs: int = 20, k_alternative: dict | None = None, *,
                          abs_tol: float, n_sd: float,
                          k_others: dict | None = None) -> pd.DataFrame:
    """Type I robustness cells simulated once per seed and graded against the published cells.

    For every seed, size and change: ``n_runs`` runs of ``n_pairs`` pairs (:func:`type_i_runs`),
    their mean (``reproduced``), the spread of one run (``sd``) and the grade
    (:func:`cell_status` with ``abs_tol`` and ``n_sd``). The k-dependent metrics are graded at
    ``k_of[n]`` and, when given, also at ``k_alternative[n]`` (rows with ``k_reading``
    "alternative") and at each ``k_others[label][n]`` (rows with ``k_reading`` ``label``; a size
    the label does not name is not repeated); NDPM is also graded under the uniform reading
    (:func:`uniform_ndpm_evaluate`, ``metric`` "ndpm (uniform)").

    Returns a long table ``metric, change, n, seed, k, k_reading, published, reproduced, sd,
    status`` (published cells only).
    """
    names = list(names)
    kdep = [m for m in names if m in K_DEPENDENT]
    flat = [m for m in names if m not in K_DEPENDENT]
    frames = []
    for n in ns:
        ks = [int(k_of[n])] + ([int(k_alternative[n])] if k_alternative else [])
        labels = ["fitted"] + (["alternative"] if k_alternative else [])
        for label, k_by_n in (k_others or {}).items():
            if n in k_by_n:
                ks.append(int(k_by_n[n]))
                labels.append(label)
        for sd_seed in seeds:
            sigma, nu = _draw(n, n_pairs, n_runs, sd_seed)
            moved = {c: _moved(nu, c, sd_seed) for c in CHANGES}
            rows = []
            if flat:
                flat_names = flat + ([NDPM_UNIFORM] if "ndpm" in flat else [])
                res = _type_i_means(flat_names, sigma, nu, moved, None, uniform_ndpm_evaluate)
                rows += [(m, c, -1, "any", v[0]) for (m, c), v in res.items()]
            if kdep:
                res = _cutoff_means(kdep, sigma, nu, moved, ks)
                rows += [(m, c, k, lab, v[:, j]) for (m, c), v in res.items()
                         for j, (k, lab) in enumerate(zip(ks, labels))]
            for m, c, k, lab, means in rows:
                frames.append({"metric": m, "change": c, "n": n, "seed": sd_seed, "k": k,
                               "k_reading": lab, "reproduced": float(np.mean(means)),
                               "sd": float(np.std(means, ddof=1)) if len(means) > 1 else np.nan})
    out = pd.DataFrame(frames)
    pub = published[["metric", "change", "n", "published"]]
    pub_uniform = pub[pub["metric"] == "ndpm"].assign(metric=NDPM_UNIFORM)
    out = out.merge(pd.concat([pub, pub_uniform]), on=["metric", "change", "n"], how="inner")
    out["status"] = cell_status(out["published"], out["reproduced"], out["sd"], abs_tol=abs_tol,
                                n_sd=n_sd)
    return out.sort_values(["n", "change", "metric", "k_reading", "seed"]).reset_index(drop=True)


def seed_counts(cells: pd.DataFrame, reading: dict) -> pd.Series:
    """Per seed, the number of published cells that match under one reading: ``reading`` picks,
    per metric, the ``k_reading`` ("fitted", "alternative" or a label of ``k_others``) and
    whether NDPM is read uniformly (``{"k": "fitted", "ndpm": "ndpm"}`` or
    ``"ndpm (uniform)"``). A label of ``k_others`` that leaves a size out takes the fitted k
    there."""
    k_lab = reading.get("k", "fitted")
    ndpm = reading.get("ndpm", "ndpm")
    chosen = cells[cells["k_reading"] == k_lab]
    if k_lab not in ("fitted", "alternative"):  # a label for some sizes only: fitted elsewhere
        chosen = pd.concat([chosen, cells[(cells["k_reading"] == "fitted")
                                          & ~cells["n"].isin(set(chosen["n"]))]])
    keep = pd.concat([cells[cells["k_reading"] == "any"], chosen])
    keep = keep[(keep["metric"] != (NDPM_UNIFORM if ndpm == "ndpm" else "ndpm"))]
    return (keep["status"] == "match").groupby(keep["seed"]).sum().astype(int)


# --- explaining the cells that do not reproduce ---------------------------------------------------

#: Identities between the absolute changes of two metrics that hold for every pair of rankings, given the
#: paper's set-up (relevant = retrieved = k items, so FP = FN and TP + FP = k) and Appendix C's
#: own formulas (MSE, R2 and Spearman's rho all computed on the same arrays sigma(i), nu(i)).
#: Each entry: (metric a, metric b, factor, statement): ``|Δa| = factor(n) * |Δb|``. Not included:
#: NDPM = (1 - tau)/2, which needs both computed on the same representation; the published
#: slide cells of tau and NDPM are reproduced with tau on the arrays and NDPM on item positions,
#: where no such identity holds (tests/test_paper_a_tables.py checks every identity listed here).
IDENTITIES = (
    ("fnr", "recall", lambda n: 1.0, r"$\mathrm{FNR} = 1 - \mathrm{recall}$"),
    ("precision", "recall", lambda n: 1.0,
     r"$\mathrm{precision} = \mathrm{recall}$ ($= TP/k$ when relevant = retrieved)"),
    ("fdr", "precision", lambda n: 1.0, r"$\mathrm{FDR} = 1 - \mathrm{precision}$"),
    ("f1", "recall", lambda n: 1.0,
     r"$F_1 = 2TP/(2TP+FP+FN) = TP/k = \mathrm{recall}$ when $FP = FN$"),
    ("fowlkes_mallows", "recall", lambda n: 1.0,
     r"$\mathrm{FM} = \sqrt{\mathrm{precision} \cdot \mathrm{recall}} = \mathrm{recall}$"),
    ("tnr", "fallout", lambda n: 1.0, r"$\mathrm{TNR} = 1 - \mathrm{fallout}$"),
    ("npv", "tnr", lambda n: 1.0,
     r"$\mathrm{NPV} = \mathrm{TNR}$ ($= TN/(n-k)$ when relevant = retrieved)"),
    ("for", "npv", lambda n: 1.0, r"$\mathrm{FOR} = 1 - \mathrm{NPV}$"),
    ("markedness", "informedness", lambda n: 1.0,
     r"markedness $= \mathrm{precision} + \mathrm{NPV} - 1 = \mathrm{recall} + \mathrm{TNR} - 1 =$"
     r" informedness"),
    ("mcc", "informedness", lambda n: 1.0,
     r"$\mathrm{MCC} = (TP \cdot TN - FP \cdot FN)/(k(n-k)) =$ informedness when relevant ="
     r" retrieved $= k$"),
    ("balanced_accuracy", "informedness", lambda n: 0.5,
     r"$\mathrm{BA} = (1 + \mathrm{informedness})/2$"),
    ("r2", "mse", lambda n: 12.0 / (n * n - 1),
     r"$R^2 = 1 - 12\,\mathrm{MSE}/(n^2 - 1)$ (the sum of squares about the mean $(n+1)/2$ is"
     r" $n(n^2-1)/12$)"),
    ("spearman_rho", "r2", lambda n: 0.5, r"$R^2 = 2\rho - 1$ ($\rho = 1 - 6\,\mathrm{MSE}/(n^2 - 1)$)"),
)

#: Sums: ``|Δ informedness| = |Δ recall| + |Δ fallout|`` (informedness = TP/k - (k-TP)/(n-k), and
#: TP moves both terms in the same direction).
SUM_IDENTITIES = (
    ("informedness", ("recall", "fallout"),
     r"informedness $=$ recall $-$ fallout, and $TP$ moves both terms the same way, so"
     r" $|\Delta\,\mathrm{informedness}| = |\Delta\,\mathrm{recall}| + |\Delta\,\mathrm{fallout}|$"),
)

#: Bounds: a metric with values in [lo, hi] cannot change by more than hi - lo.
BOUNDS = {"ndpm": 1.0, "kendall_tau": 2.0, "spearman_rho": 2.0, "recall": 1.0, "precision": 1.0,
          "ndcg": 1.0, "mrr": 1.0}

def identity_violations(published: pd.DataFrame, decimals: int) -> pd.DataFrame:
    """Places where the published table contradicts itself, allowing for its rounding to
    ``decimals`` decimals.

    A published value v stands for the interval [v - h, v + h], h half a unit of the last
    printed decimal (0.005 for two decimals). For each identity
    ``|Δa| = c |Δb|`` of :data:`IDENTITIES` (and the sum of :data:`SUM_IDENTITIES`) the intervals
    of both sides must overlap; for each bound of :data:`BOUNDS` the value must not exceed it.
    For rounded values of NDCG and DCG the ratio DCG/nDCG (= IDCG(n), one constant per n) must have
    a common value for the swap and the slide row. Returns ``metric, change, n, identity, detail``,
    one row per violated identity and per metric involved.

    Examples
    --------
    >>> pub = pd.DataFrame({"metric": ["recall", "fnr"], "change": "swap", "n": 10,
    ...                     "published": [0.07, 0.03]})
    >>> v = identity_violations(pub, 2)
    >>> v["metric"].tolist(), print(v["identity"].iloc[0])
    $\\mathrm{FNR} = 1 - \\mathrm{recall}$
    (['fnr', 'recall'], None)
    """
    pub = published.set_index(["metric", "change", "n"])["published"].astype(float)
    rows = []
    half = 0.5 * 10.0 ** -int(decimals)

    def _interval(v: float) -> tuple[float, float]:
        return max(0.0, v - half), v + half

    def has(m, c, n):
        return (m, c, n) in pub.index

    for (change, n) in sorted({(c, n) for _, c, n in pub.index}):
        for a, b, factor, text in IDENTITIES:
            if not (has(a, change, n) and has(b, change, n)):
                continue
            va, vb = pub[(a, change, n)], pub[(b, change, n)]
            lo_a, hi_a = _interval(va)
            lo_b, hi_b = _interval(vb)
            f = factor(n)
            if hi_a < f * lo_b - 1e-12 or lo_a > f * hi_b + 1e-12:
                detail = (f"{text}: published {a} = {va:.2f} but {b} = {vb:.2f} implies "
                          f"{f * lo_b:.4g}..{f * hi_b:.4g} ({change}, n = {n})")
                for m in (a, b):
                    rows.append((m, change, n, text, detail))
        for a, (b1, b2), text in SUM_IDENTITIES:
            if not all(has(m, change, n) for m in (a, b1, b2)):
                continue
            va = pub[(a, change, n)]
            lo = _interval(pub[(b1, change, n)])[0] + _interval(pub[(b2, change, n)])[0]
            hi = _interval(pub[(b1, change, n)])[1] + _interval(pub[(b2, change, n)])[1]
            lo_a, hi_a = _interval(va)
            if hi_a < lo - 1e-12 or lo_a > hi + 1e-12:
                detail = (f"{text}: published {a} = {va:.2f} but {b1} + {b2} = "
                          f"{pub[(b1, change, n)]:.2f} + {pub[(b2, change, n)]:.2f} "
                          f"({change}, n = {n})")
                for m in (a, b1, b2):
                    rows.append((m, change, n, text, detail))
        for m, hi in BOUNDS.items():
            if has(m, change, n) and pub[(m, change, n)] > hi + 1e-12:
                rows.append((m, change, n, f"$|\\Delta|$ of {m} at most {hi:g} (the width of its range)",
                             f"published mean |Δ {m}| = {pub[(m, change, n)]:.2f} exceeds {hi:g}, "
                             f"the largest change {m} can make ({change}, n = {n})"))
    # DCG / nDCG share one constant per n
    ns = sorted({n for _, _, n in pub.index})
    for n in ns:
        ratios = {}
        for change in CHANGES:
            if has("dcg", change, n) and has("ndcg", change, n):
                lo_d, hi_d = _interval(pub[("dcg", change, n)])
                lo_n, hi_n = _interval(pub[("ndcg", change, n)])
                if lo_n > 0:
                    ratios[change] = (lo_d / hi_n, hi_d / lo_n)
        if len(ratios) == 2 and (ratios["swap"][1] < ratios["slide"][0]
                                 or ratios["slide"][1] < ratios["swap"][0]):
            detail = ("nDCG = DCG/IDCG(n) with one constant IDCG(n), so DCG/nDCG must agree "
                      f"between the rows; published ratio swap {ratios['swap'][0]:.1f}.."
                      f"{ratios['swap'][1]:.1f}, slide {ratios['slide'][0]:.1f}.."
                      f"{ratios['slide'][1]:.1f} (n = {n})")
            for change in CHANGES:
                for m in ("dcg", "ndcg"):
                    rows.append((m, change, n, r"$\mathrm{nDCG} = \mathrm{DCG}/\mathrm{IDCG}(n)$", detail))
    return pd.DataFrame(rows, columns=["metric", "change", "n", "identity", "detail"])


def copied_cells(published: pd.DataFrame, reproduced: pd.DataFrame, rel_change: float
                 ) -> pd.DataFrame:
    """Published cells that repeat another size's value while the reproduction changes a lot.

    A cell of size n > min(n) is flagged when it equals the published value of the same metric and
    change at the smallest n, while the reproduced values of the two sizes differ by more than
    ``rel_change`` (relative). A metric whose six published cells are all equal is flagged too
    when its reproduced cells vary by more than that factor. Returns ``metric, change, n, detail``.
    """
    pub = published.set_index(["metric", "change", "n"])["published"].astype(float)
    rep = reproduced.set_index(["metric", "change", "n"])["reproduced"].astype(float)
    n0 = min(n for _, _, n in pub.index)
    rows = []
    for (m, c, n), v in pub.items():
        if n == n0 or (m, c, n0) not in pub.index or (m, c, n) not in rep.index:
            continue
        r, r0 = rep[(m, c, n)], rep[(m, c, n0)]
        if v == pub[(m, c, n0)] and v > 0 and abs(r - r0) > rel_change * max(abs(r), abs(r0)):
            rows.append((m, c, n, f"likely copied cell: the published value {v:.2f} repeats the "
                                  f"n = {n0} cell, while the reproduction falls from {r0:.4f} "
                                  f"(n = {n0}) to {r:.4f} (n = {n})"))
    for m, g in published.groupby("metric"):
        vals = g["published"].astype(float)
        if len(vals) > 1 and vals.nunique() == 1 and vals.iloc[0] > 0:
            reps = [rep.get((m, c, n), np.nan) for c, n in zip(g["change"], g["n"])]
            lo, hi = np.nanmin(reps), np.nanmax(reps)
            if hi - lo > rel_change * hi:
                for c, n in zip(g["change"], g["n"]):
                    rows.append((m, c, n, f"likely copied cell: all {len(vals)} published cells of "
                                          f"{m} read {vals.iloc[0]:.2f}, while the reproduction "
                                          f"ranges from {lo:.4f} to {hi:.4f}"))
    return pd.DataFrame(rows, columns=["metric", "change", "n", "detail"])


def alternative_readings(metric: str, change: str, n: int, k: int | None, n_pairs: int = 1000,
                         seed: int = 0, k_grid: Iterable[int] | None = None,
                         evaluate: Callable | None = None) -> dict[str, float]:
    """The mean absolute change of one cell under other readings of the experiment (one run each).

    Readings: the default (``nu o change``), the change applied on the left (``change o nu``,
    relabelling items), the arguments exchanged (``m(nu, sigma)``: the first ranking taken as the
    retrieved list), and, for k-dependent metrics, every k of ``k_grid`` (the closest is kept).
    """
    out = {}
    base = dict(names=[metric], n=n, k=k, n_pairs=n_pairs, n_runs=1, seed=seed,
                changes=[change], evaluate=evaluate)
    out["default"] = float(type_i_runs(**base)["mean_abs_change"].iloc[0])
    out["change on the left"] = float(type_i_runs(**base, side="left")["mean_abs_change"].iloc[0])
    out["arguments exchanged"] = float(
        type_i_runs(**base, swap_args=True)["mean_abs_change"].iloc[0])
    if k_grid is not None and metric in K_DEPENDENT:
        vals = {}
        for kk in k_grid:
            b = dict(base, k=int(kk))
            vals[int(kk)] = float(type_i_runs(**b)["mean_abs_change"].iloc[0])
        out["k range"] = vals
    return out


def _format_readings(readings: dict, published: float) -> str:
    parts = []
    for name, v in readings.items():
        if name == "k range":
            finite = {k: x for k, x in v.items() if np.isfinite(x)}
            if finite:
                kbest = min(finite, key=lambda kk: abs(finite[kk] - published))
                lo, hi = min(finite.values()), max(finite.values())
                parts.append(f"k in {min(v)}..{max(v)} gives {lo:.3f}..{hi:.3f} "
                             f"(closest k = {kbest}: {finite[kbest]:.3f})")
        else:
            parts.append(f"{name} {v:.3f}")
    return "; ".join(parts)


def typo_candidates(value: float) -> dict[str, float]:
    """Values a two-decimal number could have had before a one-keystroke slip.

    Edits of the printed string that keep two decimals: exchanging two adjacent digits
    (``0.31`` -> ``0.13``) and, for values of 1 or more, dropping the leading digit
    (``1.11`` -> ``0.11``). Candidates equal to the value or to 0 are left out.

    Examples
    --------
    >>> typo_candidates(1.11)
    {'leading digit dropped': 0.11}
    >>> typo_candidates(0.31)
    {'digits 3 and 1 exchanged': 0.13}
    """
    text = f"{value:.2f}"
    out: dict[str, float] = {}
    if abs(value) >= 1:
        out["leading digit dropped"] = float("0" + text[1:] if text[1] == "." else text[1:])
    for a in range(len(text) - 1):
        if text[a].isdigit() and text[a + 1].isdigit() and text[a] != text[a + 1]:
            t = text[:a] + text[a + 1] + text[a] + text[a + 2:]
            out[f"digits {text[a]} and {text[a + 1]} exchanged"] = float(t)
    return {k: v for k, v in out.items() if np.isfinite(v) and v not in (value, 0.0)}


def explain_mismatches(table: pd.DataFrame, published: pd.DataFrame,
                       readings: Callable[[str, str, int], dict] | None = None, *,
                       abs_tol: float, n_sd: float, decimals: int,
                       rel_change: float) -> pd.Series:
    """A computed reason for every row of ``table`` whose status is ``no`` (empty otherwise).

    ``table`` has ``metric, change, n, published, reproduced, sd, status``. In order: identities
    the published table violates (naming the identity; :func:`identity_violations` at the
    printed ``decimals``), copied cells (:func:`copied_cells` with ``rel_change``),
    one-keystroke typos that would make the cell reproduce (:func:`typo_candidates`, graded by
    :func:`cell_status` with ``abs_tol`` and ``n_sd``), and otherwise ``no reading found``
    followed by the readings tried (``readings(metric, change, n)`` returns a dict as
    :func:`alternative_readings`).
    """
    viol = identity_violations(published, decimals)
    copies = copied_cells(published, table, rel_change)
    reasons = []
    for row in table.itertuples(index=False):
        if row.status != "no":
            reasons.append("")
            continue
        parts = []
        if not np.isfinite(row.reproduced):
            parts.append("the reproduction is undefined (nan) for every pair")
        key = (viol.metric == row.metric) & (viol.change == row.change) & (viol.n == row.n)
        for d in dict.fromkeys(viol.loc[key, "detail"]):
            parts.append("internal contradiction: " + d)
        key = (copies.metric == row.metric) & (copies.change == row.change) & (copies.n == row.n)
        parts.extend(dict.fromkeys(copies.loc[key, "detail"]))
        fixes = []
        if not copies.loc[key].shape[0]:
            fixes = [f"{edit} gives {v:.2f}" for edit, v in typo_candidates(row.published).items()
                     if cell_status(v, row.reproduced, row.sd, abs_tol=abs_tol,
                                    n_sd=n_sd)[()] == "match"]
        explained = bool(parts) and not all(p.startswith("the reproduction") for p in parts)
        if fixes and explained:
            parts.append(f"likely typo: {' or '.join(fixes)}, which reproduces "
                         f"({row.reproduced:.4f} +- {row.sd:.4f})")
        if not explained:
            tried = ""
            if readings is not None:
                tried = _format_readings(readings(row.metric, row.change, row.n), row.published)
            text = (f"no reading found (published {row.published:.2f}); readings tried: "
                    + (tried or "the default reading only"))
            if fixes:
                text += (f"; a one-keystroke slip would explain it ({' or '.join(fixes)}, "
                         f"reproduced {row.reproduced:.4f} +- {row.sd:.4f})")
            parts.append(text)
        reasons.append(" | ".join(parts))
    return pd.Series(reasons, index=table.index, name="reason")


# --- Table 3 --------------------------------------------------------------------------------------

def parse_cycle(text: str, n: int) -> np.ndarray:
    """A permutation of S_n in one-line notation from the paper's cycle notation.

    ``"id"`` is the identity; ``"(1 2)"`` a transposition; ``"(1 2 3)(4 5)"`` products of cycles.
    A cycle ``(a b c)`` sends position a to b, b to c and c to a, read as the one-line array
    ``r[a-1] = b``; for transpositions both directions agree.

    Examples
    --------
    >>> parse_cycle("(2 4)", 5).tolist()
    [1, 4, 3, 2, 5]
    >>> parse_cycle("id", 3).tolist()
    [1, 2, 3]
    """
    r = permutations.identity(n)
    text = text.strip()
    if text == "id":
        return r
    if not (text.startswith("(") and text.endswith(")")):
        raise ValueError(f"cannot read {text!r} as cycle notation: use 'id' or '(a b)(c d ...)'")
    for cyc in text[1:-1].split(")("):
        try:
            items = [int(x) for x in cyc.split()]
        except ValueError:
            raise ValueError(f"cycle {cyc!r} in {text!r} holds a non-integer") from None
        if len(set(items)) != len(items) or any(not 1 <= x <= n for x in items):
            raise ValueError(f"cycle {cyc!r} must hold distinct positions in 1..{n}")
        for a, b in zip(items, items[1:] + items[:1]):
            r[a - 1] = b
    return permutations.validate(r)


def indiscernibility_table(rows: pd.DataFrame, names: Sequence[str], cmb: Sequence[str],
                           rtol: float = 1e-12, evaluate: Callable | None = None) -> pd.DataFrame:
    """Recompute Table 3: does m(baseline, sigma) differ from m(baseline, tau)?

    ``rows`` has ``n, relevant, baseline, sigma, tau`` (cycle notation). For each row and metric
    the two values are compared with relative tolerance ``rtol`` (two nan count as equal: the
    metric returns the same "undefined" for both rankings). The ``cmb`` column of the paper
    stands for the confusion-matrix metrics ``cmb``: it distinguishes when any of them does, and
    ``note`` says whether they all agree. Returns ``n, relevant, baseline, sigma, tau, metric,
    value_sigma, value_tau, distinguishes, note``.
    """
    ev = _evaluate_many(evaluate)
    out = []
    for r in rows.drop_duplicates(["n", "relevant", "baseline", "sigma", "tau"]).itertuples():
        n, k = int(r.n), int(r.relevant)
        base = parse_cycle(r.baseline, n)
        s, t = parse_cycle(r.sigma, n), parse_cycle(r.tau, n)
        allnames = list(dict.fromkeys([*names, *cmb]))
        vs = ev(allnames, base, s, k=k)
        vt = ev(allnames, base, t, k=k)
        diff = {m: not np.isclose(float(vs[m]), float(vt[m]), rtol=rtol, atol=0.0, equal_nan=True)
                for m in allnames}
        desc = dict(n=n, relevant=k, baseline=r.baseline, sigma=r.sigma, tau=r.tau)
        d_cmb = [m for m in cmb if diff[m]]
        note = ("all confusion-matrix metrics agree" if len(d_cmb) in (0, len(cmb))
                else f"only {', '.join(d_cmb)} distinguish")
        out.append({**desc, "metric": "cmb", "value_sigma": np.nan, "value_tau": np.nan,
                    "distinguishes": bool(d_cmb), "note": note})
        for m in names:
            out.append({**desc, "metric": m, "value_sigma": float(vs[m]),
                        "value_tau": float(vt[m]), "distinguishes": diff[m], "note": ""})
    return pd.DataFrame(out)


# --- Figure 1 -------------------------------------------------------------------------------------

def equivalence_kind(x, y, tol: float = 1e-9) -> str:
    """How two samples of metric values are related: ``linear``, ``monotone`` or ``none``.

    ``linear`` when y = a x + b exactly (up to ``tol``, relative to the spread) on the sample;
    ``monotone`` when sorting by x sorts y (ascending or descending) with no reversed pair;
    otherwise ``none``. Pairs with a nan in either sample are dropped.

    Examples
    --------
    >>> x = np.array([0.1, 0.5, 0.2, 0.9])
    >>> equivalence_kind(x, 1 - x), equivalence_kind(x, x ** 2), equivalence_kind(x, np.sin(9 * x))
    ('linear', 'monotone', 'none')
    """
    x = np.asarray(x, float).ravel()
    y = np.asarray(y, float).ravel()
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return "none"
    a, b = np.polyfit(x, y, 1)
    if np.max(np.abs(a * x + b - y)) <= tol * np.ptp(y):
        return "linear"
    order = np.argsort(x, kind="stable")
    dx = np.diff(x[order])
    dy = np.diff(y[order])
    eps = tol * np.ptp(y)
    tie = dx == 0
    if np.any(np.abs(dy[tie]) > eps):  # equal x with different y: not a function of x
        return "none"
    if np.all(dy[~tie] >= -eps) or np.all(dy[~tie] <= eps):
        return "monotone"
    return "none"


# --- Figure 1's text, measured over seeds ---------------------------------------------------
#
# The text beside Figure 1 says that the agreement ratios are evenly distributed (as many
# pairs of metrics agree highly as disagree highly, "not significantly different") and that
# other lengths n and numbers k of relevant items give similar results. The definitions below
# make both measurable. They were fixed, with their thresholds, before any result was computed,
# and are not tuned to the outcome.

#: The paper's setting of Figure 1: rankings of length 100, 30 relevant = retrieved items.
FIGURE1_SETTING = {"n": 100, "k": 30}


def _upper(ar: pd.DataFrame) -> np.ndarray:
    a = ar.to_numpy(dtype=float)
    return a[np.triu_indices(len(a), 1)]


def figure1_group_means(ar: pd.DataFrame, groups: dict | None = None) -> pd.DataFrame:
    """Mean agreement ratio within (diagonal) and between the groups of Figure 1 (right).

    Within a group the diagonal of the matrix (a metric with itself) is left out; metrics that
    the matrix does not hold are skipped, and a mean over no pair is nan.

    Examples
    --------
    >>> ar = pd.DataFrame([[1, .9, .5], [.9, 1, .6], [.5, .6, 1]], index=list("abc"), columns=list("abc"))
    >>> figure1_group_means(ar, {"x": ("a", "b"), "y": ("c",)}).round(2).to_dict()
    {'x': {'x': 0.9, 'y': 0.55}, 'y': {'x': 0.55, 'y': nan}}
    """
    groups = FIGURE1_GROUPS if groups is None else groups
    present = set(ar.index)
    groups = {g: [m for m in ms if m in present] for g, ms in groups.items()}
    names = list(groups)
    gm = pd.DataFrame(index=names, columns=names, dtype=float)
    for a in names:
        for b in names:
            block = ar.loc[groups[a], groups[b]].to_numpy(dtype=float)
            if a == b:
                block = block[~np.eye(len(block), dtype=bool)]
            gm.loc[a, b] = float(np.nanmean(block)) if np.isfinite(block).any() else np.nan
    return gm


def figure1_statements(ar: pd.DataFrame) -> dict:
    """The two statements of Figure 1 and its text that can be read off one agreement matrix.

    ``"DCG and nDCG never disagree"`` (Appendix C.3: the ratio is exactly 1) and ``"metrics of
    one group agree more than metrics of different groups"`` (Figure 1, right: the mean ratio
    within the groups exceeds the mean between them). Returns ``{statement: (holds, value)}``.
    """
    if not {"dcg", "ndcg"} <= set(ar.index):
        raise ValueError("figure1_statements needs the ratios of DCG and nDCG in the matrix")
    gm = figure1_group_means(ar)
    g = gm.to_numpy()
    within = float(np.nanmean(np.diag(g)))
    between = float(np.nanmean(g[~np.eye(len(g), dtype=bool)]))
    dcg = float(ar.loc["dcg", "ndcg"])
    return {
        "DCG and nDCG never disagree (Appendix C.3)": (dcg == 1.0, dcg),
        "metrics of the same group agree more than metrics of different groups":
            (within > between, (within, between)),
    }


def figure1_similarity(reference: pd.DataFrame, other: pd.DataFrame, *,
                       min_rank_corr: float | None = None,
                       max_mean_abs_diff: float | None = None) -> dict:
    """How alike two agreement matrices are: rank correlation and mean absolute difference.

    Compares the ratios of the distinct pairs of metrics (upper triangles, same metric order;
    pairs undefined in either are left out) by their Spearman rank correlation
    (``scipy.stats.spearmanr``, ties averaged) and their mean absolute difference. ``similar``
    holds when the correlation is at least ``min_rank_corr`` and the difference at most
    ``max_mean_abs_diff`` (the thresholds of Figure 1's claim, from the ledger); without them
    ``similar`` is None.

    Examples
    --------
    >>> up = np.array([0.9, 0.6, 0.7, 0.8, 0.55, 1.0])
    >>> def matrix(u):
    ...     m = np.eye(4); m[np.triu_indices(4, 1)] = u
    ...     return pd.DataFrame(np.maximum(m, m.T), index=list("abcd"), columns=list("abcd"))
    >>> r = figure1_similarity(matrix(up), matrix(up - 0.04), min_rank_corr=0.9,
    ...                        max_mean_abs_diff=0.05)
    >>> round(r["rank_corr"], 3), round(r["mean_abs_diff"], 3), r["similar"]
    (1.0, 0.04, True)
    >>> figure1_similarity(matrix(up), matrix(up[::-1]), min_rank_corr=0.9,
    ...                    max_mean_abs_diff=0.05)["similar"]
    False
    """
    from scipy.stats import spearmanr

    if list(reference.index) != list(other.index) or list(reference.columns) != list(other.columns):
        raise ValueError("the two agreement matrices must list the same metrics in the same order")
    x, y = _upper(reference), _upper(other)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        rho = float("nan")
    else:
        rho = float(spearmanr(x, y).statistic)
    mad = float(np.mean(np.abs(x - y))) if x.size else float("nan")
    similar = (None if min_rank_corr is None or max_mean_abs_diff is None else
               bool(np.isfinite(rho) and rho >= min_rank_corr and mad <= max_mean_abs_diff))
    return {"pairs": int(x.size), "rank_corr": rho, "mean_abs_diff": mad, "similar": similar}


def figure1_seeds(seed: int, n_seeds: int) -> list[int]:
    """The seeds of the repeated Figure 1 samples: ``seed, seed + 1, ..., seed + n_seeds - 1``.

    NumPy turns each integer seed into an independent stream (``SeedSequence`` hashes it), so
    consecutive seeds give independent samples; the first is the page's own sample.

    Examples
    --------
    >>> figure1_seeds(0, 3)
    [0, 1, 2]
    """
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, (int, np.integer)) or n_seeds < 2:
        raise ValueError(f"n_seeds must be an integer >= 2, got {n_seeds!r}")
    return [int(seed) + i for i in range(int(n_seeds))]


def figure1_over_seeds(seeds: Sequence[int], *, n: int = 100, n_pairs: int = 10000,
                       k: int = 30, **options) -> tuple[pd.DataFrame, dict]:
    """Figure 1 recomputed on independent samples, with its statements checked on each.

    ``options`` go to :func:`rankbook.agreement.agreement_matrix` (``protocol``, ``reverse``,
    ``ties``, ``names``). Returns one row per seed (the ratio of DCG and nDCG, the mean ratios
    within and between the groups of Figure 1, right, and whether each statement holds) and the
    matrices by seed.
    """
    from rankbook import agreement

    rows, mats = [], {}
    for s in seeds:
        ar = agreement.agreement_matrix(n=n, n_pairs=n_pairs, k=k, seed=int(s), **options)
        mats[int(s)] = ar
        st = figure1_statements(ar)
        (dcg_ok, dcg), (grp_ok, (within, between)) = st.values()
        rows.append({"seed": int(s), "dcg_ndcg": dcg, "within": within, "between": between,
                     "dcg_ndcg_holds": dcg_ok, "groups_holds": grp_ok})
    return pd.DataFrame(rows), mats


def figure1_grid_k(n: int, share: float) -> int:
    """The number of relevant items for a length ``n`` and a share of it: ``round(share n)``,
    kept within 1..n-1.

    Examples
    --------
    >>> figure1_grid_k(100, 0.3), figure1_grid_k(20, 0.01), figure1_grid_k(10, 0.99)
    (30, 1, 9)
    """
    if not 0 < share < 1:
        raise ValueError(f"a share of relevant items must lie strictly between 0 and 1, got {share!r}")
    return int(min(n - 1, max(1, round(share * n))))


def figure1_grid(references: dict, ns: Sequence[int], k_shares: Sequence[float],
                 n_pairs: int = 1000, *, protocol: str = "reference", reverse: str = "auto",
                 ties: str = "def1") -> pd.DataFrame:
    """Figure 1 at other lengths n and numbers k of relevant items, compared with the paper's.

    For every seed of ``references`` (``{seed: agreement matrix at the paper's setting}``, as
    returned by :func:`figure1_over_seeds`), every ``n`` of ``ns`` and every share of
    ``k_shares`` (k = :func:`figure1_grid_k`), the matrix is recomputed on ``n_pairs`` rankings
    drawn with that seed and compared with the reference of the same seed by
    :func:`figure1_similarity`. The point at the paper's own n and k measures what sampling
    alone changes. For each seed and n the sample is drawn once and the metrics without a
    cut-off are evaluated once for all k; the matrices are those of
    :func:`rankbook.agreement.agreement_matrix` with the same arguments.

    Returns
    -------
    pandas.DataFrame
        ``seed, n, k, share, rank_corr, mean_abs_diff`` (the claim's thresholds decide which
        settings are similar, :func:`rankbook.papers.paper_a.figure1.check_other`).
    """
    from rankbook import agreement
    from rankbook import metrics as _metrics

    if not references:
        raise ValueError("references must hold at least one seed's matrix")
    rows = []
    for s, ref in references.items():
        names = list(ref.index)
        flat = [m for m in names if not _metrics.REGISTRY[m].needs_k]
        cut = [m for m in names if _metrics.REGISTRY[m].needs_k]
        for n in ns:
            refs, rankings = agreement.sample(int(n), n_pairs, seed=int(s), protocol=protocol)
            base = _metrics.evaluate_many(flat, refs, rankings) if flat else {}
            for share in k_shares:
                k = figure1_grid_k(int(n), float(share))
                values = dict(base)
                if cut:
                    values.update(_metrics.evaluate_many(cut, refs, rankings, k=k))
                ar = agreement.agreement_matrix_from_values(values, names, reverse=reverse,
                                                            ties=ties)
                sim = figure1_similarity(ref, ar)
                rows.append({"seed": int(s), "n": int(n), "k": k, "share": float(share),
                             "rank_corr": sim["rank_corr"], "mean_abs_diff": sim["mean_abs_diff"]})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------
# Checks behind the errata page: the formulas as printed, readings, k scans, alignments


def _confusion_counts(sigma, nu, k: int):
    """TP, FP, FN, TN of relevant = top k of sigma, retrieved = top k of nu (batched)."""
    sigma, nu = permutations.validate(sigma, nu)
    n = sigma.shape[-1]
    if not 1 <= k <= n:
        raise ValueError(f"k must lie in 1..{n}, got {k}")
    rel = np.zeros(sigma.shape[:-1] + (n,), dtype=bool)
    ret = np.zeros_like(rel)
    np.put_along_axis(rel, sigma[..., :k] - 1, True, axis=-1)
    np.put_along_axis(ret, nu[..., :k] - 1, True, axis=-1)
    tp = (rel & ret).sum(-1)
    fp = (~rel & ret).sum(-1)
    fn = (rel & ~ret).sum(-1)
    tn = n - tp - fp - fn
    return tp, fp, fn, tn


def printed_ndpm(sigma, nu) -> np.ndarray:
    """NDPM exactly as Appendix C.2 of :cite:`paperA` prints it, with sums over all ordered
    pairs ``(i, j)`` of positions of the two arrays.

    :math:`C_\\pm = \\sum_{i,j} \\mathrm{sgn}(\\sigma_i - \\sigma_j)\\,\\mathrm{sgn}(\\pm(\\nu_i - \\nu_j))`,
    :math:`C_u = \\sum_{i,j} \\mathrm{sgn}(\\sigma_i - \\sigma_j)^2`,
    :math:`C_{u0} = C_u - C_+ - C_-`, and NDPM :math:`= (C_- + C_{u0}/2)/C_u`. Since
    :math:`C_- = -C_+` and :math:`C_{u0} = C_u`, this is :math:`1/2 - \\tau` of the raw arrays,
    which ranges over :math:`[-1/2, 3/2]` (Yao's NDPM, :func:`rankbook.metrics.ndpm`, counts
    discordant item pairs and ranges over :math:`[0, 1]`). Literal O(n^2) sums, for checks on
    small inputs.

    Examples
    --------
    >>> float(printed_ndpm([1, 2, 3], [1, 2, 3])), float(printed_ndpm([1, 2, 3], [3, 2, 1]))
    (-0.5, 1.5)
    """
    s = np.asarray(sigma, dtype=np.int64)
    v = np.asarray(nu, dtype=np.int64)
    ds = np.sign(s[..., :, None] - s[..., None, :])
    dv = np.sign(v[..., :, None] - v[..., None, :])
    c_plus = (ds * dv).sum((-1, -2))
    c_minus = (ds * -dv).sum((-1, -2))
    c_u = (ds ** 2).sum((-1, -2))
    c_u0 = c_u - c_plus - c_minus
    return (c_minus + 0.5 * c_u0) / c_u


def printed_f_beta(sigma, nu, k: int, beta: float = 1.0) -> np.ndarray:
    """F-beta as Appendix C.1 prints it: (1 + b^2)(precision + recall) / (b^2 precision + recall).

    The harmonic mean needs the product precision * recall in the numerator; with the sum, F1
    is 2 for every pair with a relevant item retrieved.

    Examples
    --------
    >>> printed_f_beta([[1, 2, 3, 4], [1, 2, 3, 4]], [[1, 2, 3, 4], [4, 3, 2, 1]], k=2).tolist()
    [2.0, nan]
    """
    tp, fp, fn, tn = _confusion_counts(sigma, nu, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), np.nan)
        recall = tp / (tp + fn)
        out = (1 + beta ** 2) * (precision + recall) / (beta ** 2 * precision + recall)
    return np.where((precision + recall) > 0, out, np.nan)


def printed_mcc(sigma, nu, k: int) -> np.ndarray:
    """MCC as Appendix C.1 prints it: ``(TP TN - |S \\ R| |R \\ S|) / (|S| |R| (n - |R|) (n - |S|))``.

    The standard MCC takes the square root of that denominator. With relevant = retrieved = k
    the printed one is the standard one divided by k (n - k): MCC(sigma, sigma) is
    1 / (k (n - k)), not 1.

    Examples
    --------
    >>> float(printed_mcc([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], k=2))  # 1 / (2 * 3)
    0.16666666666666666
    """
    tp, fp, fn, tn = _confusion_counts(sigma, nu, k)
    n = np.asarray(sigma).shape[-1]
    return (tp * tn - fp * fn) / (k * k * (n - k) * (n - k))


def expected_abs_change_accuracy_swap(n: int, k) -> np.ndarray:
    """Exact mean absolute change of accuracy under one uniform swap of positions in nu (rows I(a)).

    With relevant = retrieved = k, accuracy = (2 TP + n - 2k) / n, so it moves by 2/n whenever
    TP moves, and TP moves (by one) exactly when one swapped position lies in the top k and the
    other does not, *and* one of the two swapped items is relevant and the other is not. For
    uniform sigma, nu and swap both events have probability q = 2k(n - k) / (n(n - 1)), so the
    mean is (2/n) q^2, at most n / (2 (n - 1)^2) (at k = n/2). Recall moves by 1/k at the same
    events, so ``|change of accuracy| = (2k/n) |change of recall| <= 2 |change of recall|``.

    Examples
    --------
    >>> round(float(expected_abs_change_accuracy_swap(10, 3)), 5)
    0.04356
    """
    k = np.asarray(k, dtype=float)
    q = 2 * k * (n - k) / (n * (n - 1))
    return 2.0 / n * q ** 2


def confusion_change_exact(metric: str, n: int, ks: Iterable[int], change: str = "swap",
                           n_pairs: int = 1000) -> pd.DataFrame:
    """Exact Type I robustness cell of a confusion-matrix metric at every k of ``ks``: the
    mean absolute change over uniform pairs of rankings, and the spread of a run of
    ``n_pairs`` pairs, with nothing simulated.

    With relevant = retrieved = k items, a confusion-matrix metric depends on TP alone
    (FP = FN = k - TP), and TP of a uniform pair is hypergeometric. One change moves TP by at
    most one. A slide (eq. 6) drops the item at position 1 from the top k and lets in the
    item at position k + 1; given TP = t, TP rises when the first is not relevant and the
    second is (probability ``(1 - t/k)(k - t)/(n - k)``) and falls in the opposite case
    (``(t/k)(1 - (k - t)/(n - k))``). A swap (eq. 5) moves TP only when one of its two
    positions lies in the top k and the other does not (probability ``2k(n - k)/(n(n - 1))``),
    and then as a slide does with those two items. The metric's values at every TP come from
    :mod:`rankbook.metrics`, so undefined values (0/0) are left out as the simulation leaves
    them out.

    Returns ``metric, change, n, k, reproduced`` (the exact mean) and ``sd`` (the standard
    deviation of the mean of ``n_pairs`` pairs).

    Examples
    --------
    >>> t = confusion_change_exact("accuracy", 10, [3])
    >>> round(float(t["reproduced"].iloc[0]), 5) == round(float(expected_abs_change_accuracy_swap(10, 3)), 5)
    True
    """
    from scipy.stats import hypergeom

    from rankbook import metrics as _metrics

    if metric not in K_DEPENDENT or _metrics.REGISTRY[metric].family != "confusion":
        raise ValueError(f"{metric!r} is not a confusion-matrix metric; valid: "
                         f"{[m for m in K_DEPENDENT if _metrics.REGISTRY[m].family == 'confusion']}")
    _check_change(change)
    rows = []
    for k in ks:
        k = int(k)
        if not 1 <= k < n:
            raise ValueError(f"k must lie in 1..n-1 = 1..{n - 1}, got {k}")
        ts = np.arange(max(0, 2 * k - n), k + 1)
        nu = np.tile(permutations.identity(n), (len(ts), 1))
        for row, t in zip(nu, ts):  # the top k holds items 1..t and k+1..2k-t
            top = np.r_[np.arange(1, t + 1), np.arange(k + 1, 2 * k - t + 1)]
            row[:] = np.r_[top, np.setdiff1d(np.arange(1, n + 1), top)]
        sigma = np.tile(permutations.identity(n), (len(ts), 1))
        with np.errstate(all="ignore"):
            value = np.asarray(_metrics.evaluate(metric, sigma, nu, k=k), dtype=float)
        p_t = hypergeom(n, k, k).pmf(ts)
        move = 2 * k * (n - k) / (n * (n - 1)) if change == "swap" else 1.0
        up = move * (1 - ts / k) * (k - ts) / (n - k)
        down = move * (ts / k) * (1 - (k - ts) / (n - k))
        nxt, prv = np.r_[value[1:], np.nan], np.r_[np.nan, value[:-1]]
        d_up, d_down = np.abs(nxt - value), np.abs(prv - value)
        stay = np.where(np.isfinite(value), 0.0, np.nan)
        parts = [(1 - up - down, stay), (up, d_up), (down, d_down)]
        mass = sum(np.sum(p_t * w * np.isfinite(d)) for w, d in parts)
        mean = sum(np.nansum(p_t * w * np.where(np.isfinite(d), d, 0.0)) for w, d in parts) / mass
        second = sum(np.nansum(p_t * w * np.where(np.isfinite(d), d, 0.0) ** 2)
                     for w, d in parts) / mass
        rows.append({"metric": metric, "change": change, "n": int(n), "k": k,
                     "reproduced": float(mean),
                     "sd": float(np.sqrt(max(second - mean ** 2, 0.0) / (n_pairs * mass)))})
    return pd.DataFrame(rows)


def k_scan(metrics_: Sequence[str], n: int, ks: Iterable[int], *, change: str = "swap",
           n_pairs: int = 1000, n_runs: int = 3, seed: int = 0,
           evaluate: Callable | None = None) -> pd.DataFrame:
    """The Type I robustness cells of ``metrics_`` for every k in ``ks`` (mean over runs).

    Columns ``metric, change, n, k, reproduced, sd``. Use it to ask whether *any* k reaches a
    printed value: a printed cell above the largest value over all k (beyond the noise) is
    impossible under the paper's set-up, not merely a cell copied for the fitted k.
    """
    frames = [summarize_runs(type_i_runs(metrics_, n, int(kk), n_pairs=n_pairs, n_runs=n_runs,
                                         seed=seed, changes=[change], evaluate=evaluate))
              for kk in ks]
    return pd.concat(frames, ignore_index=True)


def stability_text_reading(curves: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Stability as Section 6.5's text describes the experiment, from ``stability_curves``.

    The text averages ``|m@k - m@k+1|`` over the trials first and then counts how often the bound
    1/k holds: here, for each metric, the share of the cut-offs k in ``curves`` at which the
    *mean* difference is below 1/k, and ``stable`` when that share reaches ``threshold``.
    (The per-k reading of Definition 10 instead counts the pairs below 1/k at each k.)

    Returns a DataFrame indexed by metric with ``share_of_k`` and ``stable``.
    """
    wide = curves.pivot(index="metric", columns="k", values="mean_abs_diff")
    order = list(dict.fromkeys(curves["metric"]))
    wide = wide.reindex(order)
    ks = wide.columns.to_numpy(dtype=float)
    below = wide.to_numpy(dtype=float) < 1.0 / ks
    share = below.mean(axis=1)
    return pd.DataFrame({"share_of_k": share, "stable": share >= threshold},
                        index=pd.Index(order, name="metric"))


def stability_ks(n: int, k_step: int = 10) -> list[int]:
    """The cut-offs the stability experiments use: k = 1..10, then every ``k_step``-th k below
    n - 1 (k + 1 = n is left out: there every item is relevant and retrieved, and most
    confusion metrics are 0/0).

    Examples
    --------
    >>> stability_ks(60, 20)
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 40]
    """
    if n < 3 or k_step < 1:
        raise ValueError(f"need n >= 3 and k_step >= 1, got n={n}, k_step={k_step}")
    return sorted({k for k in range(1, min(10, n - 2) + 1)} | set(range(k_step, n - 1, k_step)))


def stability_over_seeds(names: Sequence[str], n: int, seeds: Sequence[int], *,
                         n_pairs: int = 1000, threshold: float, k_step: int = 10,
                         k_single: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Section 6.5's stability experiment repeated on independent seeds, under every reading.

    For each seed: :func:`rankbook.properties.stability_curves` on ``n_pairs`` random pairs of
    S_n at the cut-offs :func:`stability_ks`, then the verdict of each metric under four
    readings: ``text`` (:func:`stability_text_reading`: mean change first, then the share of k
    below 1/k), ``single_k`` (Definition 10 per pair at one k, default n/4), ``every_k``
    (stable at every k of the grid) and ``pooled`` (the pass rate averaged over the grid).

    Returns ``(curves, verdicts)``: the curves with a ``seed`` column, and one row per metric
    and seed with the four verdicts.
    """
    from rankbook import properties

    ks = stability_ks(n, k_step)
    k_single = k_single or properties.default_k(n)
    k_star = min(ks, key=lambda k: abs(k - k_single))
    curves, rows = [], []
    for sd in seeds:
        c = properties.stability_curves(list(names), n, ks, n_pairs=n_pairs, seed=int(sd),
                                        threshold=threshold)
        curves.append(c.assign(seed=int(sd)))
        wide = c.pivot(index="metric", columns="k", values="pass_rate").reindex(list(names))
        text = stability_text_reading(c, threshold).reindex(list(names))["stable"]
        for m in names:
            rates = wide.loc[m].to_numpy(dtype=float)
            rows.append({"metric": m, "seed": int(sd), "text": bool(text[m]),
                         "single_k": bool(wide.loc[m, k_star] >= threshold),
                         "every_k": bool((rates >= threshold).all()),
                         "pooled": bool(np.nanmean(rates) >= threshold)})
    return pd.concat(curves, ignore_index=True), pd.DataFrame(rows)


#: The readings of the stability row that :func:`stability_over_seeds` computes, in words.
STABILITY_READINGS = {
    "text": "the text's: mean change over the pairs, then the share of k where it is below 1/k",
    "single_k": "Definition 10 per pair, at one k (about n/4)",
    "every_k": "stable at every k of the grid",
    "pooled": "pass rate pooled over the k of the grid",
}


def stability_row_counts(verdicts: pd.DataFrame, published: pd.Series) -> pd.DataFrame:
    """Per seed and reading, how many of the printed stability symbols agree.

    ``published`` maps each metric to its printed symbol (one alignment of the extracted row).
    Returns one row per seed with a column per reading of :data:`STABILITY_READINGS`.
    """
    pub = verdicts["metric"].map(published).astype(bool)
    agree = verdicts[list(STABILITY_READINGS)].eq(pub, axis=0)
    return agree.groupby(verdicts["seed"]).sum().astype(int)


def table3_alignments(raw: Sequence[Sequence[str]], columns: Sequence[str],
                      recomputed: Sequence[Sequence[bool]]) -> pd.DataFrame:
    """Every way to read the extracted rows of Table 3 onto its columns.

    The extracted rows hold more symbols than the table has columns (17 for 15). For every
    choice of the surplus positions (dropped the same way in every row), count per row the
    entries that agree with the recomputation. ``raw`` holds the symbols (``"o"`` or
    ``"dot"``) of each row, ``recomputed`` the recomputed *distinguishes* flags per column.

    Returns one row per choice: ``dropped`` (1-based positions), and ``row i`` agreement counts,
    ``total``.

    Examples
    --------
    >>> t = table3_alignments([["o", "dot", "dot"]], ["a", "b"], [[False, True]])
    >>> t[["dropped", "total"]].values.tolist()
    [[(1,), 1], [(2,), 2], [(3,), 2]]
    """
    import itertools

    n_sym = len(raw[0])
    if any(len(r) != n_sym for r in raw):
        raise ValueError("every extracted row must hold the same number of symbols")
    surplus = n_sym - len(columns)
    if surplus < 0:
        raise ValueError(f"{n_sym} symbols cannot fill {len(columns)} columns")
    marks = np.array([[s == "dot" for s in r] for r in raw])
    want = np.asarray(recomputed, dtype=bool)
    rows = []
    for drop in itertools.combinations(range(n_sym), surplus):
        keep = [i for i in range(n_sym) if i not in drop]
        agree = (marks[:, keep] == want).sum(axis=1)
        rows.append({"dropped": tuple(i + 1 for i in drop),
                     **{f"row {r + 1}": int(a) for r, a in enumerate(agree)},
                     "total": int(agree.sum())})
    return pd.DataFrame(rows)


def relative_permutation(sigma, nu, reading: str) -> np.ndarray:
    """The permutation through which DCG and the rank-position metrics compare two rankings.

    ``"nu^-1 o sigma"`` (this book's reading, which reproduces the robustness cells best): entry
    i is the position in nu of sigma's i-th item. ``"nu o sigma^-1"``: the relabelling that takes
    sigma to nu. Appendix C.3 applies DCG to one permutation and does not say which.
    """
    if reading == "nu^-1 o sigma":
        return permutations.compose(permutations.inverse(nu), sigma)
    if reading == "nu o sigma^-1":
        return permutations.compose(nu, permutations.inverse(sigma))
    raise ValueError(f"reading must be 'nu^-1 o sigma' or 'nu o sigma^-1', got {reading!r}")


RELATIVE_READINGS = ("nu^-1 o sigma", "nu o sigma^-1")


def rank_metric_under(name: str, reading: str, k: int | None = None) -> Callable:
    """DCG, nDCG, MRR, GMR or meanRank of two rankings through the relative permutation of
    ``reading`` (see :func:`relative_permutation`), as a batch function ``f(sigma, nu)``."""
    from rankbook import properties

    def positions(s, v):
        return relative_permutation(s, v, reading).astype(float)

    if name == "dcg":
        return lambda s, v: properties.dcg_single(relative_permutation(s, v, reading))
    if name == "ndcg":
        def ndcg(s, v):
            pi = relative_permutation(s, v, reading)
            ideal = properties.dcg_single(np.arange(pi.shape[-1], 0, -1))  # gains decreasing
            return properties.dcg_single(pi) / ideal
        return ndcg
    kk = k

    def top(s, v):
        p = positions(s, v)
        return p[..., : (kk or max(1, p.shape[-1] // 4))]

    if name == "mrr":
        return lambda s, v: (1.0 / top(s, v)).mean(axis=-1)
    if name == "gmr":
        return lambda s, v: np.exp(np.log(top(s, v)).mean(axis=-1))
    if name == "mean_rank":
        return lambda s, v: top(s, v).mean(axis=-1)
    raise ValueError(f"no relative-permutation reading for {name!r}; valid: dcg, ndcg, mrr, gmr, "
                     "mean_rank")


#: The two readings of the metrics whose Type II robustness depends on how paper A's formulas
#: are read: the relative permutation of DCG and the rank metrics, and which NDPM.
ROB2_READINGS = {
    "A": "DCG and the rank metrics through nu^-1 o sigma; NDPM on item positions (Yao)",
    "U": "DCG and the rank metrics through nu^-1 o sigma; NDPM = (1 - tau)/2 on the arrays, like tau",
    "B": "DCG and the rank metrics through nu o sigma^-1; NDPM as Appendix C.2 prints it",
}


def rob2_readings(n: int, k: int | None = None) -> pd.DataFrame:
    """Right and left invariance of the reading-dependent metrics under both readings of
    :data:`ROB2_READINGS`, exhaustively on S_n (``properties.type_ii_robustness``).

    Returns ``metric, reading, right, left``. Under reading A (this book's, which reproduces
    the robustness cells) NDPM, DCG, nDCG, MRR, GMR and meanRank are left- but not
    right-invariant; under reading B it is the other way round. Reading U is A with NDPM read
    on the arrays like Kendall's tau (NDPM = (1 - tau)/2), the uniform reading of the two; it
    makes NDPM right-invariant like tau.

    Examples
    --------
    >>> t = rob2_readings(4)
    >>> t.groupby("reading", sort=False)["right"].sum().to_dict()
    {'A': 0, 'U': 1, 'B': 6}
    """
    from rankbook import metrics as _metrics
    from rankbook import properties

    k = k or max(1, n // 4)
    rows = []
    ndpms = {"A": lambda s, v: _metrics.ndpm(s, v),
             "U": lambda s, v: (1.0 - np.asarray(_metrics.kendall_tau(s, v), float)) / 2.0,
             "B": printed_ndpm}
    for reading, rel in (("A", RELATIVE_READINGS[0]), ("U", RELATIVE_READINGS[0]),
                         ("B", RELATIVE_READINGS[1])):
        funcs = {name: rank_metric_under(name, rel, k)
                 for name in ("dcg", "ndcg", "mrr", "gmr", "mean_rank")}
        funcs["ndpm"] = ndpms[reading]
        for name in ("ndpm", "dcg", "ndcg", "mrr", "gmr", "mean_rank"):
            r = properties.type_ii_robustness(funcs[name], n)
            rows.append({"metric": name, "reading": reading, "right": bool(r.holds),
                         "left": bool(r.left_invariant)})
    return pd.DataFrame(rows)


def self_values(names: Sequence[str], ns: Iterable[int], n_samples: int = 200,
                seed: int = 0) -> pd.DataFrame:
    """``m(sigma, sigma)`` of each metric for each n, over ``n_samples`` random sigma (and the
    identity), with ``k = max(1, n // 4)`` for the metrics that need it.

    Returns ``metric, n, min, max``: a metric whose self-value is one constant for every sigma
    and every n has the first interpretability property of Appendix A of :cite:`paperA`
    (:math:`m(\\sigma, \\sigma) = m_{\\max}`, independent of the length).
    """
    from rankbook import metrics as _metrics

    rng = np.random.default_rng(seed)
    rows = []
    for n in ns:
        sigma = np.vstack([permutations.identity(n), permutations.random(n, n_samples, rng=rng)])
        values = _metrics.evaluate_many(list(names), sigma, sigma, k=max(1, n // 4))
        for m in names:
            v = np.asarray(values[m], dtype=float)
            rows.append({"metric": m, "n": n, "min": float(np.nanmin(v)) if np.isfinite(v).any()
                         else float("nan"), "max": float(np.nanmax(v)) if np.isfinite(v).any()
                         else float("nan")})
    return pd.DataFrame(rows)
