"""Paper A, Table 2: the computation and the grading behind the page ``properties_table``.

Table 2 of :cite:`paperA` has six rows of numbers per metric (Type I robustness: the mean
absolute change under one swap, rows I(a), or one slide, rows I(b), at n = 10, 50, 100) and
seven yes/no rows. This module

* fits the number k of relevant (= retrieved) items, which the paper never states, by the
  *distance* between the printed and the simulated k-dependent cells, in units of half the
  printed rounding unit, on held-out seeds that the verdict is never scored on
  (:func:`fit_k_by_distance`, :func:`choose_k_by_distance`), and reports how far k moves over
  disjoint fit seeds and which other k lie almost as near;
* grades the robustness cells on independent scoring seeds, under the fitted k, under
  k = n/4 with nothing fitted and under the other k almost as near
  (:func:`check_robustness`);
* grades the yes/no rows that have no page of their own (:func:`check_property_row`, one
  claim per row) and the conclusion's sentence on the error-based metrics
  (:func:`check_error_properties`).

Each check receives its claim's ledger entry (the numbers of its rule in ``claim.params``, the
printed table by ``claim.path("printed")``, its errata by role) and returns a
:class:`rankbook.ledger.claims.Evidence`; the ``perturb`` functions below serve the mutation
test of the ledger (``[claims.test]``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from rankbook import metrics, robustness
from rankbook.ledger import claims
from rankbook.ledger.names import display, evidence_text

from . import tables as T
from rankbook.ledger.limits import within_memory, within_time

#: Short names of the yes/no rows, as the page's grid heads them.
PROP_LABELS = {"identity_of_indiscernibles": "id. indisc.", "symmetry": "symmetry",
               "type_ii_robustness": "rob II", "width_swap_dependency": "WSD",
               "sensitivity": "sensitivity", "stability": "stability", "is_distance": "distance"}

#: The yes/no rows this page grades, one claim each (the ledger entry's ``params.property``).
ROWS = ("identity_of_indiscernibles", "symmetry", "width_swap_dependency", "is_distance")


def read_published(path) -> pd.DataFrame:
    """A transcribed part of Table 2 (the robustness cells or the yes/no rows), from the file
    a claim's ledger entry names (``claim.path("printed")``)."""
    return pd.read_csv(path, comment="#")


def half_unit(decimals: int) -> float:
    """Half a unit of the last printed decimal: the widest rounding error of a printed cell.

    Examples
    --------
    >>> half_unit(2)
    0.005
    """
    return 0.5 * 10.0 ** -int(decimals)


def _label(m: str) -> str:
    return display(m)


def _readable(text: str) -> str:
    """Metric ids in a computed sentence (``published balanced_accuracy = 0.08``) as labels."""
    import re

    from rankbook import metrics

    ids = sorted(metrics.NAMES, key=len, reverse=True)
    return re.sub(r"\b(" + "|".join(map(re.escape, ids)) + r")\b(?= =| \+)",
                  lambda m: _label(m.group(1)), text)


# --------------------------------------------------------------------------------------------
# Fitting k by distance, on held-out seeds
# --------------------------------------------------------------------------------------------
def simulate_k_cells(published: pd.DataFrame, n: int, k_grid: Iterable[int],
                     fit_seeds: Sequence[int], *, n_pairs: int = 1000, n_runs: int = 10,
                     names: Sequence[str] = T.K_DEPENDENT):
    """The printed k-dependent cells of size n and their simulated values at every k of
    ``k_grid`` on each fit seed: ``(ks, keys, printed values, {seed: array (k, cell)})``."""
    ks = [int(k) for k in k_grid]
    if not ks or any(not 1 <= k < n for k in ks):
        raise ValueError(f"k must lie in 1..n-1 = 1..{n - 1}, got {ks}")
    if not fit_seeds:
        raise ValueError("fitting k needs at least one fit seed")
    pub = published[(published["n"] == n) & published["metric"].isin(names)]
    if pub.empty:
        raise ValueError(f"no printed k-dependent cell of size n = {n} to fit k to")
    keys = list(zip(pub["metric"], pub["change"]))
    pubv = pub["published"].to_numpy(float)
    names = sorted(set(pub["metric"]))
    per_set = {}
    for s in fit_seeds:
        sigma, nu = robustness.draw_pairs(n, n_pairs, n_runs, int(s))
        moved = {c: robustness.moved_pairs(nu, c, int(s)) for c in robustness.CHANGES}
        res = robustness.cutoff_means(names, sigma, nu, moved, ks)
        per_set[str(int(s))] = np.array([[res[key][:, j].mean() for key in keys]
                                         for j in range(len(ks))])
    return ks, keys, pubv, per_set


def fit_k_by_distance(published: pd.DataFrame, n: int, k_grid: Iterable[int],
                      fit_seeds: Sequence[int], *, unit: float, n_pairs: int = 1000,
                      n_runs: int = 10, names: Sequence[str] = T.K_DEPENDENT,
                      with_curves: bool = False):
    """How far the simulated k-dependent cells of size n lie from the printed ones, for each k.

    For every fit seed (each a fresh set of ``n_runs`` runs of ``n_pairs`` pairs) and every k of
    ``k_grid``, the k-dependent cells are simulated at once (:func:`rankbook.robustness.cutoff_means`)
    and compared with the printed swap and slide cells of size n. ``distance`` is the median
    over the cells of ``|published - reproduced|`` in units of ``unit`` (half a unit of the
    printed last decimal, :func:`half_unit`); a cell the simulation leaves undefined counts as infinitely far. The
    median is robust to the printed cells that no k can reach. Rows with ``fit_set`` "pooled"
    compare the mean over every fit seed. The spread of one run plays no part: a k whose cells
    are noisier is not favoured.

    Returns ``n, k, fit_set, distance, within`` (``within``: cells within one rounding unit),
    and with ``with_curves`` also the pooled simulated value of every cell at every k
    (``n, metric, change, k, reproduced, published``).

    Examples
    --------
    >>> pub = pd.DataFrame({"metric": ["recall", "recall"], "change": ["swap", "slide"],
    ...                     "n": 10, "published": [0.07, 0.16]})
    >>> fit = fit_k_by_distance(pub, 10, [2, 3], [10000], unit=0.005, n_pairs=100, n_runs=2)
    >>> fit[["k", "fit_set"]].values.tolist()
    [[2, '10000'], [3, '10000'], [2, 'pooled'], [3, 'pooled']]
    """
    ks, keys, pubv, per_set = simulate_k_cells(published, n, k_grid, fit_seeds, n_pairs=n_pairs,
                                               n_runs=n_runs, names=names)
    per_set["pooled"] = np.mean(list(per_set.values()), axis=0)
    curves = pd.DataFrame([{"n": int(n), "metric": m, "change": c, "k": k,
                            "reproduced": float(per_set["pooled"][j, i]), "published": float(pubv[i])}
                           for j, k in enumerate(ks) for i, (m, c) in enumerate(keys)])
    rows = []
    for label, rep in per_set.items():
        d = np.abs(rep - pubv) / unit
        d = np.where(np.isfinite(d), d, np.inf)
        for j, k in enumerate(ks):
            rows.append({"n": int(n), "k": k, "fit_set": label,
                         "distance": float(np.median(d[j])), "within": int((d[j] <= 1).sum()),
                         "cells": len(pubv)})
    out = pd.DataFrame(rows)
    return (out, curves) if with_curves else out


def k_ranges(ks) -> str:
    """Integers written as runs: ``"3, 5-7, 10"``.

    Examples
    --------
    >>> k_ranges([3, 5, 6, 7, 10])
    '3, 5-7, 10'
    """
    ks = sorted({int(k) for k in ks})
    runs, start = [], None
    for i, k in enumerate(ks):
        if start is None:
            start = k
        if i + 1 == len(ks) or ks[i + 1] != k + 1:
            runs.append(str(start) if start == k else f"{start}-{k}")
            start = None
    return ", ".join(runs)


def choose_k_by_distance(fit: pd.DataFrame, band: float) -> pd.DataFrame:
    """Per n, the k nearest the printed cells over the pooled fit seeds, and its spread.

    ``k`` minimises the pooled distance (ties: the smaller k); ``k_per_set`` is the k each fit
    seed alone would choose, and ``k_min``, ``k_max`` their range: a wide range means the
    printed cells pin k down only loosely. ``near`` lists the k whose pooled distance lies
    within ``band`` (a share) of the best; where they form several runs, ``others`` holds the
    nearest k of each run that does not hold the fitted k.

    Examples
    --------
    >>> fit = pd.DataFrame({"n": 100, "k": [20, 25, 30, 20, 25, 30, 20, 25, 30],
    ...                     "fit_set": ["1"] * 3 + ["2"] * 3 + ["pooled"] * 3,
    ...                     "distance": [1.2, 1.1, 1.4, 1.0, 1.3, 1.4, 1.05, 1.2, 1.1],
    ...                     "within": 0, "cells": 44})
    >>> r = choose_k_by_distance(fit, 0.1).iloc[0]
    >>> int(r.k), int(r.k_min), int(r.k_max), r.near, r.others
    (20, 20, 25, '20, 30', [30])
    """
    rows = []
    for n, g in fit.groupby("n", sort=True):
        best = {}
        for label, h in g.groupby("fit_set", sort=False):
            h = h.sort_values(["distance", "k"])
            best[label] = (int(h.iloc[0]["k"]), float(h.iloc[0]["distance"]))
        k, dist = best.pop("pooled")
        ks = [v[0] for v in best.values()]
        pooled = g[g["fit_set"] == "pooled"]
        near = pooled[pooled["distance"] <= (1 + band) * dist].sort_values("k")
        cuts = [0, *(np.flatnonzero(np.diff(near["k"].to_numpy()) != 1) + 1), len(near)]
        runs = [near.iloc[a:b] for a, b in zip(cuts, cuts[1:])]
        others = [int(r.sort_values(["distance", "k"])["k"].iloc[0]) for r in runs
                  if len(r) and k not in set(r["k"])]
        rows.append({"n": int(n), "k": k, "distance": dist, "k_per_set": ks,
                     "k_min": min(ks), "k_max": max(ks), "fit_sets": len(ks),
                     "near_lo": int(near["k"].min()), "near_hi": int(near["k"].max()),
                     "near": k_ranges(near["k"]), "others": others})
    return pd.DataFrame(rows)


@dataclass
class KFit:
    """The k used per n, how it was chosen, and the tables the page shows."""

    k_of: dict
    k_quarter: dict
    chosen: pd.DataFrame
    fit: pd.DataFrame = field(default_factory=pd.DataFrame)
    fit_seeds: list = field(default_factory=list)
    curves: pd.DataFrame = field(default_factory=pd.DataFrame)
    unit: float = float("nan")
    band: float = float("nan")

    def others(self) -> dict:
        """The other k almost as near as the fitted one (:func:`choose_k_by_distance`), each as
        its own reading: ``{label: {n: k}}``, the fitted k kept at every other size."""
        if "others" not in self.chosen:
            return {}
        return {f"k = {k} at n = {r.n} (also within {self.band:.0%} of the best distance), "
                "fitted elsewhere": {int(r.n): int(k)}
                for r in self.chosen.itertuples() if isinstance(r.others, list) for k in r.others}

    def phrase(self, ns: Sequence[int] | None = None) -> str:
        """``"3 at n = 10 (3 to 3 over 5 fit seeds), ..."``."""
        out = []
        for r in self.chosen.itertuples():
            if ns is not None and r.n not in ns:
                continue
            spread = ("" if not isinstance(r.k_per_set, list) else
                      f" ({int(r.k_min)} to {int(r.k_max)} over "
                      f"{claims.plural(int(r.fit_sets), 'fit seed')}; within {self.band:.0%} "
                      f"of the best distance: {r.near})")
            out.append(f"{r.k} at n = {r.n}{spread}")
        return ", ".join(out)


def fit_k_section(published: pd.DataFrame, ns: Sequence[int], *, fit_seeds: Sequence[int],
                  unit: float, band: float, k_ratio: float, k_fixed: Sequence[int] = (),
                  fit_runs: int = 10, n_pairs: int = 1000,
                  fit_max_fraction: float = 0.99) -> KFit:
    """The k of every size: given (``k_fixed``), fitted by distance on ``fit_seeds``
    (:func:`fit_k_by_distance` over k = 1 .. ``fit_max_fraction`` n, distances in units of
    ``unit``; the k within ``band`` of the best distance are noted), or, for a size the paper
    does not print, ``k_ratio`` n. ``k_quarter`` holds ``k_ratio`` n for every size, the
    unfitted alternative."""
    ns = [int(n) for n in ns]
    if k_fixed and len(k_fixed) != len(ns):
        raise ValueError(f"k_fixed must hold one k per n in ns={ns}, got {list(k_fixed)}")
    k_quarter = {n: max(1, round(k_ratio * n)) for n in ns}
    paper_ns = sorted(set(published["n"]) & set(ns))
    if k_fixed:
        k_of = dict(zip(ns, (int(k) for k in k_fixed)))
        chosen = pd.DataFrame({"n": ns, "k": [k_of[n] for n in ns], "why": "given in k_fixed",
                               "k_per_set": None, "k_min": np.nan, "k_max": np.nan,
                               "fit_sets": 0, "distance": np.nan})
        return KFit(k_of, k_quarter, chosen, unit=unit, band=band)
    k_of = {n: k_quarter[n] for n in ns if n not in paper_ns}
    rest = pd.DataFrame({"n": list(k_of), "k": list(k_of.values()),
                         "why": f"not in the paper, so nothing to fit: k = {k_ratio:g} n"})
    if not paper_ns:
        rest = rest.assign(k_per_set=None, k_min=np.nan, k_max=np.nan, fit_sets=0, distance=np.nan)
        return KFit(k_of, k_quarter, rest, unit=unit, band=band)
    both = [fit_k_by_distance(published, n, range(1, max(1, int(fit_max_fraction * n)) + 1),
                              fit_seeds, unit=unit, n_pairs=n_pairs, n_runs=fit_runs,
                              with_curves=True)
            for n in paper_ns]
    fit = pd.concat([f for f, _ in both], ignore_index=True)
    curves = pd.concat([c for _, c in both], ignore_index=True)
    chosen = choose_k_by_distance(fit, band)
    k_of.update(dict(zip(chosen["n"], chosen["k"])))
    pooled = fit[fit["fit_set"] == "pooled"].set_index(["n", "k"])["distance"]
    chosen["why"] = [
        f"median distance {r.distance:.2f} rounding units over the pooled fit seeds "
        f"(k = {k_quarter[r.n]}, i.e. {k_ratio:g} n: "
        + (f"{pooled[(r.n, k_quarter[r.n])]:.2f}" if (r.n, k_quarter[r.n]) in pooled.index
           else "outside the k tried") + "); "
        f"each fit seed alone gives k = {', '.join(map(str, r.k_per_set))}; within {band:.0%} of "
        f"the best distance: k = {r.near}"
        for r in chosen.itertuples()]
    chosen = pd.concat([chosen, rest], ignore_index=True).sort_values("n").reset_index(drop=True)
    chosen = chosen.astype({"n": int, "k": int})
    return KFit(k_of, k_quarter, chosen, fit, [int(s) for s in fit_seeds], curves, unit, band)


def explorer_rows(kfit: KFit) -> pd.DataFrame:
    """Table 2's k-dependent robustness cells over k, for the page's explorer: per size, row
    (one swap or one slide) and metric, the simulated mean change at every k tried (the fit
    seeds pooled) at every k up to 20 and every fifth k beyond, and the printed value (a flat
    line), with the fitted k and k = n/4 marked."""
    if kfit.curves.empty:
        return pd.DataFrame()
    c = kfit.curves
    used = c["n"].map(kfit.k_of), c["n"].map(kfit.k_quarter)
    keep = (c["k"] <= 20) | (c["k"] % 5 == 0) | (c["k"] == used[0]) | (c["k"] == used[1])
    c = c[keep].reset_index(drop=True)  # every k up to 20, then every fifth: a light page
    row = c["change"].map({"swap": "one swap, I(a)", "slide": "one slide, I(b)"})
    base = pd.DataFrame({"n": c["n"], "row of Table 2": row, "metric": c["metric"].map(_label),
                         "k": c["k"]})
    marks = np.where(c["k"] == c["n"].map(kfit.k_of), "fitted k",
                     np.where(c["k"] == c["n"].map(kfit.k_quarter), "k = n/4", ""))
    sim = base.assign(value=c["reproduced"].round(5), series="simulated", **{"k used": marks})
    ends = (c["k"] == c.groupby("n")["k"].transform("min")) | (c["k"] == c.groupby("n")["k"].transform("max"))
    pub = base[ends].assign(value=c.loc[ends, "published"], series="printed in Table 2",
                            **{"k used": ""})
    return pd.concat([sim, pub], ignore_index=True)


#: The readings of the robustness cells the page compares, as the cells explorer names them:
#: reading -> (the k of the k-dependent metrics, how NDPM is read).
CELL_READINGS = {"fitted k": ("fitted", "ndpm"), "k = n/4": ("alternative", "ndpm"),
                 "fitted k, NDPM read uniformly": ("fitted", T.NDPM_UNIFORM)}

#: The panels of the cells explorer, by the largest cell of a metric (printed or reproduced):
#: up to 1, up to 10, and above (errors such as MSE, whose mean change runs to the hundreds).
CELL_PANELS = {1.0: "metrics whose cells lie between 0 and 1",
               10.0: "metrics with cells between 1 and 10",
               float("inf"): "metrics with cells above 10"}


def cells_explorer_rows(cells: pd.DataFrame, kfit: KFit) -> pd.DataFrame:
    """Every published robustness cell under each reading the page compares
    (:data:`CELL_READINGS`), for the cells explorer: per size, row of Table 2, reading and
    metric, the printed value, the reproduced mean over the scoring seeds, the k used (empty for
    a metric that does not depend on k), how many seeds match and the status in words
    (:data:`STATUS_WORDS`, the rule of :func:`robustness_run`). ``panel`` splits the metrics by
    scale (:data:`CELL_PANELS`), from their largest cell, printed or reproduced.

    Examples
    --------
    >>> cells = pd.DataFrame({"metric": ["recall", "recall", "ndpm", "ndpm (uniform)"],
    ...     "change": "swap", "n": 10, "seed": 0, "k": [3, 2, -1, -1],
    ...     "k_reading": ["fitted", "alternative", "any", "any"], "published": 0.1,
    ...     "reproduced": [0.1, 0.3, 0.1, 0.5], "sd": 0.01,
    ...     "status": ["match", "no", "match", "no"]})
    >>> kfit = KFit({10: 3}, {10: 2}, pd.DataFrame())
    >>> rows = cells_explorer_rows(cells, kfit)
    >>> for r in rows[["reading", "metric", "k", "status"]].values.tolist():
    ...     print(r)
    ['fitted k', 'recall', 3.0, 'matches on every seed']
    ['fitted k', 'NDPM', nan, 'matches on every seed']
    ['k = n/4', 'recall', 2.0, 'matches on no seed']
    ['k = n/4', 'NDPM', nan, 'matches on every seed']
    ['fitted k, NDPM read uniformly', 'recall', 3.0, 'matches on every seed']
    ['fitted k, NDPM read uniformly', 'NDPM', nan, 'matches on no seed']
    """
    if cells is None or cells.empty:
        return pd.DataFrame()
    frames = []
    for reading, (k_lab, ndpm) in CELL_READINGS.items():
        keep = cells[cells["k_reading"].isin(["any", k_lab])]
        if not (keep["k_reading"] == k_lab).any():
            continue  # a reading this run did not compute (no alternative k)
        keep = keep[keep["metric"] != (T.NDPM_UNIFORM if ndpm == "ndpm" else "ndpm")]
        seeds = keep["seed"].nunique()
        pooled = (keep.assign(metric=keep["metric"].replace({T.NDPM_UNIFORM: "ndpm"}))
                  .groupby(["n", "change", "metric"], sort=False)
                  .agg(k=("k", "first"), published=("published", "first"),
                       reproduced=("reproduced", "mean"),
                       matched=("status", lambda v: int((v == "match").sum())))
                  .reset_index())
        pooled["status"] = np.where(pooled["matched"] == seeds, "match",
                                    np.where(pooled["matched"] > 0, "loose", "no"))
        pooled["seeds"] = seeds
        pooled["reading"] = reading
        frames.append(pooled)
    both = pd.concat(frames, ignore_index=True)
    order = {m: i for i, m in enumerate(dict.fromkeys([*metrics.NAMES, *both["metric"]]))}
    readings = {r: i for i, r in enumerate(CELL_READINGS)}
    ranks = {"metric": order, "reading": readings}
    both = both.sort_values(["reading", "n", "change", "metric"], kind="stable",
                            key=lambda c: c.map(ranks[c.name]) if c.name in ranks else c
                            ).reset_index(drop=True)
    top = both[["published", "reproduced"]].abs().max(axis=1).groupby(both["metric"]).max()
    panel = both["metric"].map(lambda m: next(v for bound, v in CELL_PANELS.items()
                                              if top[m] <= bound))
    return pd.DataFrame({
        "n": both["n"].astype(int),
        "row of Table 2": both["change"].map({"swap": "one swap, I(a)",
                                              "slide": "one slide, I(b)"}),
        "reading": both["reading"], "metric": both["metric"].map(_label),
        "k": both["k"].where(both["k"] > 0).astype(float),
        "published": both["published"].astype(float),
        "reproduced": both["reproduced"].round(5),
        "seeds matched": both["matched"].astype(str) + " of " + both["seeds"].astype(str),
        "status": both["status"].map(STATUS_WORDS), "panel": panel})


def cells_explorer(kfit: KFit) -> dict:
    """The keyword arguments of :func:`rankbook.book.explorer.show_rows` for the cells
    explorer of :func:`cells_explorer_rows`: one row per metric, the reproduced mean as a dot,
    the printed value as an open diamond, a mismatch marked, metrics split by scale."""
    return dict(
        name="table2_cells_explorer", kind="dots", x="metric", y="reproduced",
        overlay="published", status="status", panel="panel",
        marks={"differs": STATUS_WORDS["no"], "close": STATUS_WORDS["loose"]},
        controls={"n": max(kfit.k_of), "row of Table 2": "one swap, I(a)",
                  "reading": "fitted k"},
        title="Table 2's robustness cells, printed and reproduced, by reading",
        y_title="mean absolute change",
        tooltip=["metric", "published", "reproduced", "k", "seeds matched", "status", "reading"],
        what=("Pick a size, a row of Table 2 and a reading: the fitted $k$, $k = n/4$ with "
              "nothing fitted, or the fitted $k$ with NDPM read uniformly. Each line of the chart "
              "is one metric: the filled dot is the mean over the scoring seeds, the open diamond "
              "the printed value; a red cross marks a printed cell that matches on no seed, an "
              "orange ring one that matches on some seeds. The metrics are split by the size of "
              "their largest cell (up to 1, up to 10, above) into panels, each on its own axis; "
              "the tooltip gives the $k$ each cell used."))


def k_fit_section(kfit: KFit) -> claims.Section:
    """What the page shows of the fit of k: the distance figure (:func:`k_fit_figure`) and
    the fit's table when k was fitted, and the k used for each size with the reason."""
    out = claims.Section()
    if len(kfit.fit):
        out.add_figure("k_fit", k_fit_figure(kfit), caption=(
            "Median distance between the printed and the simulated k-dependent cells of each "
            f"size, in units of {kfit.unit:g}, against $k/n$: thick, the fit seeds pooled; "
            "thin, each fit seed alone; dotted, the $k$ used."),
            alt="Line plot of the median distance against k over n, one curve per n; "
                + "; ".join(f"for n = {n} the k used is {kfit.k_of[n]}" for n in sorted(kfit.k_of))
                + ".")
        out.add_table("k_fit", kfit.fit, show=False)
    out.add_table("k_used", kfit.chosen[["n", "k", "why"]], title="The k used for each n, and why")
    return out


def k_fit_figure(kfit: KFit):
    """Median distance against k/n, one curve per size, with the k used marked (a figure)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for n, g in kfit.fit.groupby("n"):
        for label, h in g.groupby("fit_set", sort=False):
            pooled = label == "pooled"
            line, = ax.plot(h["k"] / n, h["distance"], lw=1.4 if pooled else 0.6,
                            alpha=1.0 if pooled else 0.35, label=f"n = {n}" if pooled else None,
                            color=f"C{sorted(kfit.fit['n'].unique()).index(n)}")
        ax.axvline(kfit.k_of[n] / n, color=line.get_color(), ls=":", lw=1)
    ax.set_xlabel("k / n")
    ax.set_ylabel(f"median distance (units of {kfit.unit:g})")
    ax.set_ylim(0, min(8, float(kfit.fit["distance"].replace(np.inf, np.nan).max()) + 0.5))
    ax.grid(alpha=0.3)
    ax.legend()
    return fig


# --------------------------------------------------------------------------------------------
# The robustness rows
# --------------------------------------------------------------------------------------------
@dataclass
class RobustnessRun:
    """Everything the robustness section shows (the evidence carries it too)."""

    cells: pd.DataFrame
    robust: pd.DataFrame
    per_seed: dict
    scan: pd.DataFrame | None
    extra: pd.DataFrame
    violations: pd.DataFrame


def robustness_run(published: pd.DataFrame, names: Sequence[str], ns: Sequence[int], kfit: KFit,
                   score_seeds: Sequence[int], *, n_pairs: int, n_runs: int, seed: int,
                   readings_points: int, abs_tol: float, n_sd: float, decimals: int,
                   copied_change: float, alternative_k: bool = True) -> RobustnessRun:
    """Simulate every cell on every scoring seed, pool, grade (a cell matches on a seed when
    ``|published - reproduced| <= abs_tol + n_sd sd``) and explain them."""
    names = list(names)
    others = kfit.others() if alternative_k else {}
    cells = T.robustness_over_seeds(published, names, ns, kfit.k_of, score_seeds, n_pairs=n_pairs,
                                    n_runs=n_runs, abs_tol=abs_tol, n_sd=n_sd,
                                    k_alternative=kfit.k_quarter if alternative_k else None,
                                    k_others=others)
    readings_run = {"main": {"k": "fitted", "ndpm": "ndpm"},
                    "k": {"k": "alternative", "ndpm": "ndpm"},
                    "ndpm": {"k": "fitted", "ndpm": T.NDPM_UNIFORM},
                    **{label: {"k": label, "ndpm": "ndpm"} for label in others}}
    per_seed = {key: T.seed_counts(cells, r) for key, r in readings_run.items()
                if len(cells) and (key != "k" or alternative_k)}
    main = cells[cells["k_reading"].isin(["any", "fitted"]) & (cells["metric"] != T.NDPM_UNIFORM)] \
        if len(cells) else cells
    if len(main):
        pooled = (main.groupby(["metric", "change", "n"], sort=False)
                  .agg(published=("published", "first"), reproduced=("reproduced", "mean"),
                       sd=("sd", lambda s: float(np.sqrt(np.mean(np.square(s))))),
                       seeds_matched=("status", lambda s: int((s == "match").sum())))
                  .reset_index())
    else:
        pooled = pd.DataFrame(columns=["metric", "change", "n", "published", "reproduced", "sd",
                                       "seeds_matched"])
    pooled["seeds"] = len(score_seeds)
    pooled["lo"] = pooled["reproduced"] - abs_tol - n_sd * pooled["sd"]
    pooled["hi"] = pooled["reproduced"] + abs_tol + n_sd * pooled["sd"]
    pooled["status"] = np.where(pooled["seeds_matched"] == len(score_seeds), "match",
                                np.where(pooled["seeds_matched"] > 0, "loose", "no"))

    def readings(metric, change, n):
        grid = np.unique(np.linspace(1, max(1, n // 2), readings_points).round().astype(int))
        return T.alternative_readings(metric, change, n, kfit.k_of[n], n_pairs=n_pairs,
                                      seed=seed, k_grid=grid)

    pooled["reason"] = (T.explain_mismatches(pooled, published, readings, abs_tol=abs_tol,
                                             n_sd=n_sd, decimals=decimals,
                                             rel_change=copied_change).map(_readable)
                        if len(pooled) else pd.Series(dtype=str))
    robust = pooled[["metric", "change", "n", "published", "reproduced", "sd", "lo", "hi",
                     "seeds_matched", "seeds", "status", "reason"]]
    copied = robust[(robust["status"] == "no")
                    & robust["reason"].str.contains("likely copied cell", regex=False)
                    & robust["metric"].isin(T.K_DEPENDENT)]
    scan = pd.concat([_k_scan_exact(sorted(set(g["metric"])), n, c, n_pairs=n_pairs, seed=seed)
                      for (c, n), g in copied.groupby(["change", "n"])], ignore_index=True) \
        if len(copied) else None
    paper_ns = set(published["n"])
    extra_ns = [n for n in ns if n not in paper_ns]
    extra = pd.concat([robustness.summarize_runs(robustness.type_i_runs(
        names, n, kfit.k_of[n], n_pairs=n_pairs, n_runs=n_runs, seed=seed)) for n in extra_ns],
        ignore_index=True) if extra_ns else pd.DataFrame(columns=["metric", "change", "n", "reproduced"])
    return RobustnessRun(cells, robust, per_seed, scan, extra,
                         T.identity_violations(published, decimals))


def _k_scan_exact(names: Sequence[str], n: int, change: str, *, n_pairs: int,
                  seed: int) -> pd.DataFrame:
    """Every k = 1..n-1 of ``names`` for one change: exact for the confusion-matrix metrics
    (:func:`tables.confusion_change_exact`, ``how`` "exact"), simulated on two runs for the
    others (``how`` "simulated")."""
    from rankbook import metrics as _metrics

    exact = [m for m in names if _metrics.REGISTRY[m].family == "confusion"]
    rest = [m for m in names if m not in exact]
    frames = [T.confusion_change_exact(m, n, range(1, n), change, n_pairs=n_pairs).assign(how="exact")
              for m in exact]
    if rest:
        frames.append(T.k_scan(rest, n, range(1, n), change=change, n_pairs=n_pairs, n_runs=2,
                               seed=seed).assign(how="simulated"))
    return pd.concat(frames, ignore_index=True)


def _cell_name(change: str, n: int) -> str:
    return f"I({'a' if change == 'swap' else 'b'}) n = {n}"


def robustness_findings(claim: claims.Claim, published: pd.DataFrame, run: RobustnessRun, *,
                        abs_tol: float, n_sd: float, n_pairs: int) -> list[claims.Finding]:
    """The errata of the robustness rows this run confirms, by their roles in ``claim``'s
    ledger entry.

    * ``identity_<metric>``: an identity the printed cells break
      (:func:`tables.identity_violations`, keyed by the identity's first metric), listing the
      cells and the simulated values; the MCC one also gives the printed MCC, which has no
      square root;
    * ``ndpm_above_one``: the NDPM cell above 1, under both readings of NDPM;
    * ``unreachable``: the cells of the larger sizes that repeat the n = 10 row and that no k
      reaches, from every k = 1..n-1 (exact for the confusion-matrix metrics, simulated with its
      spread for the others; nothing here depends on the fitted k): no k's value lies within
      ``abs_tol + n_sd sd`` of the printed one.
    """
    out: list[claims.Finding] = []
    robust = run.robust
    pub = published.set_index(["metric", "change", "n"])["published"].astype(float)
    rep = robust.set_index(["metric", "change", "n"])
    order = list(dict.fromkeys(published["metric"]))
    first = {text: a for a, _, _, text in T.IDENTITIES}
    first.update({text: a for a, _, text in T.SUM_IDENTITIES})
    first[r"$\mathrm{nDCG} = \mathrm{DCG}/\mathrm{IDCG}(n)$"] = "dcg"
    for ident, g in run.violations.groupby("identity", sort=False):
        role = f"identity_{first.get(ident, '')}"
        if not claim.has_finding(role):
            continue
        lines = [_readable(d) for d in dict.fromkeys(g["detail"])]
        cells = []
        for (c, n), gg in g.groupby(["change", "n"], sort=False):
            ms = sorted(set(gg["metric"]), key=order.index)
            cells.append(f"{_cell_name(c, n)}: " + ", ".join(_label(m) for m in ms))
            reps = [f"{_label(m)} {rep.loc[(m, c, n), 'reproduced']:.4f}" for m in ms
                    if (m, c, n) in rep.index]
            if reps:
                lines.append(f"simulated, {_cell_name(c, n)}: " + ", ".join(reps))
        if first.get(ident) == "mcc":
            lines.append("Appendix C prints MCC without the square root of its denominator; that "
                         "MCC is the standard one divided by k(n - k), at least n - 1 for every k, "
                         "so its changes would be smaller still than the informedness cells")
        out.append(claim.finding(role, evidence="\n".join(lines), cells=cells))
    for (m, c, n), v in pub.items():
        if m != "ndpm" or v <= 1 or (m, c, n) not in rep.index or not claim.has_finding("ndpm_above_one"):
            continue
        tau = pub.get(("kendall_tau", c, n), float("nan"))
        yao = rep.loc[(m, c, n), "reproduced"]
        tau_rep = rep.loc[("kendall_tau", c, n), "reproduced"] if ("kendall_tau", c, n) in rep.index \
            else float("nan")
        out.append(claim.finding("ndpm_above_one", cells=[f"{_cell_name(c, n)}: NDPM"],
                                 evidence="\n".join([
            f"NDPM as Appendix C.2 prints it equals 1/2 - τ (range [-1/2, 3/2]), so its mean "
            f"change equals τ's: the same row prints {tau:.2f} for Kendall's τ, and the "
            f"simulation gives {tau_rep:.4f} for both",
            f"Yao's NDPM counts discordant item pairs (range [0, 1]), so it cannot change by "
            f"more than 1; the simulation gives {yao:.4f}, so {v:.2f} may be {v - 1:.2f} with a "
            "digit slipped"])))
    copied = robust[(robust["status"] == "no")
                    & robust["reason"].str.contains("likely copied cell", regex=False)]
    n0 = int(published["n"].min())
    lines, cells = [], []
    for r in copied.itertuples():
        same = r.n != n0 and pub.get((r.metric, r.change, n0)) == r.published
        line = f"{_label(r.metric)}, {_cell_name(r.change, r.n)}: printed {r.published:.2f}" \
            + (f" (as at n = {n0})" if same else "")
        if r.metric in T.K_DEPENDENT:
            if run.scan is None:
                continue
            g = run.scan[(run.scan["metric"] == r.metric) & (run.scan["change"] == r.change)
                         & (run.scan["n"] == r.n)]
            reach = abs_tol + n_sd * g["sd"]
            if not len(g) or ((g["reproduced"] - r.published).abs() <= reach).any():
                continue  # some k reaches it: not a cell that no k gives
            best = g.loc[g["reproduced"].idxmax()]
            top = float((g["reproduced"] + reach).max())
            if (g["how"] == "exact").all():
                line += (f"; exactly, its mean change over k = 1..{r.n - 1} is at most "
                         f"{best['reproduced']:.4f} (k = {int(best['k'])}), and with the spread "
                         f"of one run of {n_pairs} pairs no k comes within the tolerance of the "
                         f"printed value (the largest value the tolerance admits is {top:.4f})")
            else:
                line += (f"; simulated over k = 1..{r.n - 1}, its mean change is at most "
                         f"{best['reproduced']:.4f} ± {best['sd']:.4f} (k = {int(best['k'])}), "
                         f"and no k comes within the tolerance of the printed value (the largest "
                         f"value the tolerance admits is {top:.4f})")
        else:
            line += f", simulated {r.reproduced:.4f}; the metric does not depend on k"
        lines.append(line)
        cells.append(f"{_cell_name(r.change, r.n)}: {_label(r.metric)}")
    if lines and claim.has_finding("unreachable"):
        out.append(claim.finding("unreachable", evidence="\n".join(lines), cells=cells,
                                 readings=["relevant = retrieved = k items, the paper's set-up"]))
    return out


def _robustness_setting(claim: claims.Claim, values: dict) -> dict:
    """The experiment's settings: each given value, or the paper's from the ledger entry."""
    return {key: claim.params[key] if value is None else value for key, value in values.items()}


def check_robustness(claim: claims.Claim, published: pd.DataFrame | None = None, *,
                     names: Sequence[str] | None = None, ns: Sequence[int] | None = None,
                     n_pairs: int | None = None, n_runs: int | None = None,
                     n_seeds: int | None = None, fit_seeds: int | None = None, seed: int = 0,
                     k_fixed: Sequence[int] = (), fit_runs: int | None = None,
                     fit_max_fraction: float | None = None, k_ratio: float | None = None,
                     readings_points: int | None = None) -> claims.Evidence:
    """Table 2's robustness rows: the printed cells (``claim.path("printed")``, or
    ``published``) against the simulation.

    k is fitted by distance on ``fit_seeds`` held-out seeds (:func:`fit_k_section`); the cells
    are simulated on ``n_seeds`` scoring seeds (:func:`tables.seed_sets`) and a cell matches on a
    seed when ``|published - reproduced| <= tolerance.abs + tolerance.n_sd sd`` (the ledger
    entry's numbers). The status is that of the median count over the scoring seeds; the
    counts under k = ``k_ratio`` n, under each other k almost as near as the fitted one
    (within ``band`` of its distance) and under the uniform reading of NDPM are given beside
    it. The settings left ``None`` are the paper's, from the ledger entry. ``evidence.values``
    holds the :class:`KFit` and the :class:`RobustnessRun` the page shows.
    """
    from rankbook import metrics

    cfg = _robustness_setting(claim, dict(
        ns=ns, n_pairs=n_pairs, n_runs=n_runs, n_seeds=n_seeds, fit_seeds=fit_seeds,
        fit_runs=fit_runs, fit_max_fraction=fit_max_fraction, k_ratio=k_ratio,
        readings_points=readings_points))
    ns, n_pairs, n_runs = [int(n) for n in cfg["ns"]], int(cfg["n_pairs"]), int(cfg["n_runs"])
    abs_tol, n_sd = float(claim.param("tolerance.abs")), float(claim.param("tolerance.n_sd"))
    decimals, band = int(claim.params["decimals"]), float(claim.params["band"])
    published = read_published(claim.path("printed")) if published is None else published
    published = published[published["n"].isin(ns)].reset_index(drop=True)
    names = list(metrics.NAMES) if names is None else list(names)
    score_seeds, fit_list = T.seed_sets(seed, int(cfg["n_seeds"]), int(cfg["fit_seeds"]))
    kfit = fit_k_section(published, ns, fit_seeds=fit_list, k_fixed=k_fixed,
                         fit_runs=int(cfg["fit_runs"]), n_pairs=n_pairs,
                         fit_max_fraction=float(cfg["fit_max_fraction"]),
                         k_ratio=float(cfg["k_ratio"]), unit=half_unit(decimals), band=band)
    run = robustness_run(published, names, ns, kfit, score_seeds, n_pairs=n_pairs, n_runs=n_runs,
                         seed=seed, readings_points=int(cfg["readings_points"]), abs_tol=abs_tol,
                         n_sd=n_sd, decimals=decimals,
                         copied_change=float(claim.params["copied_change"]),
                         alternative_k=not k_fixed)
    robust = run.robust
    values = {"kfit": kfit, "run": run, "score_seeds": score_seeds}
    if not len(robust):
        return claim.evidence(comparison="none", published="no printed cell at these sizes",
                              reproduced="simulated only", values=values)
    counts = run.per_seed["main"]
    med = claims.median_count(counts)
    every, some, none_ = (int((robust["status"] == w).sum()) for w in ("match", "loose", "no"))
    quarter = ", ".join(str(kfit.k_quarter[n]) for n in ns)
    alternatives = {}
    if "k" in run.per_seed:
        alternatives[f"k = {float(cfg['k_ratio']):g} n ({quarter}), nothing fitted"] = \
            claims.median_count(run.per_seed["k"])
    alternatives["NDPM read like τ, on the arrays"] = claims.median_count(run.per_seed["ndpm"])
    for label in kfit.others():
        if label in run.per_seed:
            alternatives[label] = claims.median_count(run.per_seed[label])
    how = ("k given" if k_fixed else
           f"k fitted by the median distance to the printed cells, in units of "
           f"{kfit.unit:g} (half the printed rounding unit), on "
           f"{claims.plural(len(fit_list), 'held-out seed')}")
    # The fitted k and the counts under the other k are in the status line (reading, other
    # readings); the Why column says how, not again what.
    detail = (f"{how}, disjoint from the "
              + f"{claims.plural(len(score_seeds), 'scoring seed')} of {n_runs} runs of {n_pairs} "
              f"pairs; a cell matches within {abs_tol:g} + {n_sd:g} sd; "
              f"{len(run.violations.drop_duplicates('detail'))} identity violations inside the "
              "printed table")
    findings = robustness_findings(claim, published, run, abs_tol=abs_tol, n_sd=n_sd,
                                   n_pairs=n_pairs)
    fitted = kfit.chosen[kfit.chosen["fit_sets"].fillna(0) > 0] if "fit_sets" in kfit.chosen else []
    if len(fitted) and claim.has_finding("k_unstated"):
        band_counts = {label: v for label, v in alternatives.items() if label in kfit.others()}
        findings.append(claim.finding("k_unstated", evidence="\n".join(
            [f"n = {r.n}: fitted k = {r.k}; each of the {int(r.fit_sets)} fit seeds alone gives "
             f"{', '.join(map(str, r.k_per_set))}; within {band:.0%} of the best median distance "
             f"({r.distance:.2f} rounding units): k = {r.near}"
             for r in fitted.itertuples()]
            + [f"matching cells (median over the scoring seeds) under {label}: {v} of "
               f"{len(robust)}, against {med} under the fitted k" for label, v in band_counts.items()])))
    return claim.evidence(
        comparison="noise", published=f"{len(robust)} cells, {decimals} decimals",
        reproduced=f"{every} cells match on every seed, {some} on some, {none_} on none",
        matched=med, total=len(robust), per_seed=counts.tolist(), detail=detail,
        reading=(("k given" if k_fixed else "k fitted by distance on held-out seeds")
                 + f": {kfit.phrase(ns)}; NDPM on item positions, τ on the arrays"),
        alternatives=alternatives, seeds_passed=None,
        findings=findings, values=values,
        tables={"robust": robust, "cells": run.cells, "chosen": kfit.chosen, "fit": kfit.fit,
                "band": band_table(kfit, run, len(robust))})


def band_table(kfit: KFit, run: RobustnessRun, total: int) -> pd.DataFrame:
    """The matching cells (median and range over the scoring seeds) under the fitted k and
    under each other k almost as near the printed cells (:meth:`KFit.others`), with k = n/4."""
    rows = []
    names = {"main": "the fitted k at every size", "k": "k = n/4 at every size, nothing fitted",
             **{label: label for label in kfit.others()}}
    for key, words in names.items():
        if key in run.per_seed:
            c = run.per_seed[key]
            rows.append({"k used": words, f"matching cells (of {total}), median": claims.median_count(c),
                         "range over the seeds": f"{int(c.min())}–{int(c.max())}"})
    return pd.DataFrame(rows)


def robustness_grid(robust: pd.DataFrame, extra: pd.DataFrame, names: Sequence[str],
                    ns: Sequence[int]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Reproduced, printed and graded grids (metric by cell) for ``save_comparison_grid``."""
    grade = {"match": "match", "loose": "close", "no": "differs"}
    rows_ = [_label(m) for m in names]
    rep_grid, pub_grid, state = (pd.DataFrame(index=rows_) for _ in range(3))
    for c in robustness.CHANGES:
        for n in ns:
            h = _cell_name(c, n).replace(" n", " n")
            sub = robust[(robust["change"] == c) & (robust["n"] == n)].set_index("metric").reindex(names)
            if n in set(extra["n"]):
                sub["reproduced"] = extra[(extra["change"] == c) & (extra["n"] == n)] \
                    .set_index("metric").reindex(names)["reproduced"].to_numpy()
            rep_grid[h] = sub["reproduced"].to_numpy()
            pub_grid[h] = sub["published"].to_numpy()
            state[h] = sub["status"].map(grade).fillna("not in the paper").to_numpy()
    return rep_grid, pub_grid, state


def matches_figure(per_seed: dict, kfit: KFit, ns: Sequence[int], score_seeds, total: int):
    """Matching cells per scoring seed under the fitted k and the other readings (a figure)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2 + 0.3 * max(0, len(per_seed) - 3)),
                           layout="constrained")
    names_r = {"main": f"k fitted by distance ({', '.join(str(kfit.k_of[n]) for n in ns)})",
               "k": f"k = n/4 ({', '.join(str(kfit.k_quarter[n]) for n in ns)}), nothing fitted",
               "ndpm": "NDPM read like τ, on the arrays"}
    step = 0.6 / max(1, len(per_seed))
    for i, (key, c) in enumerate(per_seed.items()):
        ax.plot(np.arange(len(c)) + (i - (len(per_seed) - 1) / 2) * step, c.to_numpy(),
                "os^Dvp"[i % 6], ms=5, label=names_r.get(key, key))
        ax.axhline(claims.median_count(c), color=ax.lines[-1].get_color(), lw=0.8, ls=":")
    ax.set_xticks(range(len(score_seeds)), [str(s) for s in score_seeds])
    ax.set_xlabel("scoring seed")
    ax.set_ylabel(f"matching cells (of {total})")
    ax.grid(alpha=0.3)
    # under the axes, never over the points
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1, fontsize=9, frameon=False)
    return fig


# --------------------------------------------------------------------------------------------
# The yes/no rows
# --------------------------------------------------------------------------------------------
def property_rows(names: Sequence[str], *, stability: claims.Claim | None, prop_n: int,
                  ioi_n: int, swap_n: int, swap_k: int, distance_n: int, stability_n: int,
                  stability_pairs: int, score_seeds: Sequence[int],
                  printed=None) -> pd.DataFrame:
    """Every yes/no row of Table 2 checked by :mod:`rankbook.properties`, beside the printed
    symbol (the file ``printed``, by default the stability claim's ``printed`` data):
    ``metric, property, published, reproduced, method, how, evidence``.

    The stability row follows Section 6.5's text on ``stability_pairs`` pairs of
    ``S_stability_n``, with the stability claim's threshold and cut-offs (``stability``: its
    ledger entry). Without that claim, only metrics that do not use k can be graded: their
    change from k to k + 1 is 0, below every bound (Section 6.5's last sentence)."""
    from rankbook import metrics, properties

    names = list(names)
    if stability is None and printed is None:
        raise ValueError("give the printed table: printed=<path>, or the stability claim")
    printed = stability.path("printed") if printed is None else printed
    plan = {"identity_of_indiscernibles": (ioi_n, {}), "symmetry": (prop_n, {}),
            "type_ii_robustness": (prop_n, {}), "width_swap_dependency": (swap_n, {"k": swap_k}),
            "sensitivity": (swap_n, {"k": swap_k}), "is_distance": (distance_n, {})}
    properties.precompute(names, n=prop_n)
    rows = []
    for prop, (n_p, kw) in plan.items():
        for m in names:
            kk = kw if metrics.REGISTRY[m].needs_k else {}
            res = getattr(properties, prop)(m, n_p, **kk)
            extra = {"sensitivity": f", reading {getattr(res, 'reading', 'forall')}",
                     "is_distance": f", {res.note}" if res.note else "",
                     "width_swap_dependency": ", reference identity"}.get(prop, "")
            k_text = f", k = {res.k}" if res.k is not None and metrics.REGISTRY[m].needs_k else ""
            ev = evidence_text(res.evidence)
            rows.append({"metric": m, "property": prop, "reproduced": bool(res.holds),
                         "method": res.method_detail + k_text + extra, "how": res.method_detail,
                         "evidence": ev if len(ev) <= 600 else ev[:600] + " ..."})
    if stability is None:
        needs_k = [m for m in names if metrics.REGISTRY[m].needs_k]
        if needs_k:
            raise ValueError(f"the stability row of {needs_k} needs the stability claim "
                             "(its threshold and cut-offs): pass stability=<claim>")
        for m in names:
            rows.append({"metric": m, "property": "stability", "reproduced": True,
                         "method": "does not use k: its change from k to k + 1 is 0",
                         "how": "Section 6.5's last sentence", "evidence": ""})
    else:
        _, stab = T.stability_over_seeds(names, stability_n, score_seeds, n_pairs=stability_pairs,
                                         threshold=float(stability.params["threshold"]),
                                         k_step=int(stability.params["k_step"]))
        share = stab.groupby("metric")["text"].mean().reindex(names)
        for m in names:
            rows.append({"metric": m, "property": "stability", "reproduced": bool(share[m] >= 0.5),
                         "method": (f"Section 6.5's reading on {stability_pairs} pairs of "
                                    f"S_{stability_n}, stable on "
                                    f"{int(round(share[m] * len(score_seeds)))} of "
                                    f"{len(score_seeds)} seeds"),
                         "how": "the text's reading, over the scoring seeds", "evidence": ""})
    published = read_published(printed)
    return published.merge(pd.DataFrame(rows), on=["metric", "property"], how="inner")


def properties_view(props: pd.DataFrame, names: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame,
                                                                        pd.DataFrame]:
    """The grid of symbols (with the paper's where it differs), the mask of differing cells,
    and the per-row summary."""
    mark = {True: "✓", False: "✗"}
    grid = pd.DataFrame({"metric": [_label(m) for m in names]})
    differs = pd.DataFrame(index=grid.index)
    for prop, title in PROP_LABELS.items():
        sub = props[props["property"] == prop].set_index("metric").reindex(names)
        grid[title] = [mark[bool(r)] + ("" if r == p else f" (paper {mark[bool(p)]})")
                       for r, p in zip(sub["reproduced"], sub["published"])]
        differs[title] = (sub["reproduced"] != sub["published"]).to_numpy()
    per = (props.assign(agree=props["published"] == props["reproduced"])
           .groupby("property", sort=False)
           .agg(agree=("agree", "sum"), published_yes=("published", "sum"),
                reproduced_yes=("reproduced", "sum"), method=("how", "first")).reset_index())
    per["row"] = per["property"].map(PROP_LABELS)
    return grid, differs, per[["row", "agree", "published_yes", "reproduced_yes", "method"]]


def _one_row(claim: claims.Claim, prop: str, names: Sequence[str], n: int, k) -> pd.DataFrame:
    """One yes/no row checked on S_n alone (the page computes every row at once instead)."""
    from rankbook import metrics, properties

    printed = read_published(claim.path("printed"))
    printed = printed[printed["property"] == prop].set_index("metric")["published"]
    rows = []
    for m in names:
        kw = {"k": k} if (k and metrics.REGISTRY[m].needs_k
                          and prop in ("width_swap_dependency", "sensitivity")) else {}
        res = getattr(properties, prop)(m, n, **kw)
        rows.append({"metric": m, "property": prop, "published": bool(printed[m]),
                     "reproduced": bool(res.holds), "method": res.method_detail,
                     "how": res.method_detail, "evidence": evidence_text(res.evidence)[:600]})
    return pd.DataFrame(rows)


def check_property_row(claim: claims.Claim, props: pd.DataFrame | None = None, *,
                       published: pd.Series | Callable | None = None,
                       names: Sequence[str] | None = None, n: int | None = None,
                       k: int | None = None) -> claims.Evidence:
    """One printed yes/no row of Table 2 (the ledger entry's ``params.property``) against the
    check of :mod:`rankbook.properties`.

    ``props`` is :func:`property_rows` (the page passes it, so every row is computed once);
    without it the one property is checked on S_n (``n``, default the entry's ``params.n``,
    with ``k`` its ``params.k`` where the property takes one). ``published`` overrides the
    printed row: a Series (metric -> bool) or a function of the recomputed Series (the
    mutation test moves the printed symbols with it). The row's erratum has the role
    ``row``; the identity row's disagreement with Proposition 6.1 the role ``proposition``.
    """
    from rankbook import metrics

    prop = claim.params["property"]
    if prop not in ROWS:
        raise ValueError(f"{claim.id}: unknown row {prop!r}; valid: {list(ROWS)}")
    names = list(metrics.NAMES) if names is None else list(names)
    if props is None:
        props = _one_row(claim, prop, names, int(n or claim.params["n"]),
                         k if k is not None else claim.params.get("k"))
        if prop == "is_distance":  # the notion of identity the row's other reading needs
            props = pd.concat([props, _one_row(claim.with_params({"property": "identity_of_indiscernibles"}),
                                               "identity_of_indiscernibles", names,
                                               int(n or claim.params["n"]), None)])
    g = props[props["property"] == prop].set_index("metric").reindex(names).copy()
    rec = g["reproduced"].astype(bool)
    if published is not None:
        pub = published(rec) if callable(published) else published
        g["published"] = pd.Series(pub).reindex(names).astype(bool)
    g["published"] = g["published"].astype(bool)
    agree = int((g["published"] == rec).sum())
    wrong = [m for m in names if bool(g.loc[m, "published"]) != bool(rec[m])]
    mark = {True: "✓", False: "✗"}
    method = str(g["method"].iloc[0]).split(",")[0]
    kw = {}
    findings = []
    listing = ", ".join(f"{_label(m)} {mark[bool(g.loc[m, 'published'])]}→{mark[bool(rec[m])]}"
                        for m in wrong)
    if wrong and claim.has_finding("row"):
        first = g.loc[wrong[0]]
        evidence = [f"{len(wrong)} of {len(names)} printed symbols differ: {listing}",
                    f"method: {first['method']}",
                    f"e.g. {_label(wrong[0])}: "
                    + (first["evidence"] or "no counterexample exists (the property holds)")]
        under = None
        if prop == "is_distance":
            ioi = props[props["property"] == "identity_of_indiscernibles"].set_index("metric")
            fail4 = [m for m in names if m in ioi.index and not bool(ioi.loc[m, "reproduced"])]
            evidence.append(f"Definition 4's identity of indiscernibles fails for {len(fail4)} of "
                            f"{len(names)} metrics, so under it no metric can be a distance")
            under = {"Definition 11: d(x, y) = 0 only for x = y": f"{len(wrong)} symbols wrong: "
                     + ", ".join(_label(m) for m in wrong),
                     "Definition 4: m(id, σ) = m(id, ν) only for σ = ν":
                         "no metric qualifies, so the all-✗ row stands"}
        findings.append(claim.finding(
            "row", evidence="\n".join(evidence), cells=[_label(m) for m in wrong],
            under=under, readings=["a distance has the identity of indiscernibles of Definition 11"]
            if under else []))
    if prop == "is_distance":
        # The reading is a choice of notion (Definitions 4 and 11), not a margin: the count under
        # the other notion stands beside the status, and no borderline mark (which is kept for a
        # result within a stated margin of its threshold, or seeds that disagree).
        ioi = props[props["property"] == "identity_of_indiscernibles"].set_index("metric")
        def4 = sum(not bool(g.loc[m, "published"]) or bool(ioi.loc[m, "reproduced"])
                   for m in names if m in ioi.index) if len(ioi) else agree
        kw = {"reading": "a distance vanishes only on equal rankings (Definition 11)",
              "alternatives": {"Definition 4's identity of indiscernibles, which no metric has": int(def4)}}
    if prop == "identity_of_indiscernibles" and claim.has_finding("proposition"):
        dcgs = [m for m in ("dcg", "ndcg") if m in g.index]
        if dcgs and not any(bool(g.loc[m, "published"]) for m in dcgs) and not any(rec[m] for m in dcgs):
            findings.append(claim.finding("proposition", evidence="\n".join([
                "Table 2, identity row: " + ", ".join(f"{_label(m)} {mark[bool(g.loc[m, 'published'])]}"
                                                     for m in dcgs),
                "check: " + ", ".join(f"{_label(m)} {mark[bool(rec[m])]}" for m in dcgs)
                + f" ({g.loc[dcgs[0], 'method']})",
                "Proposition 6.1 names DCG and nDCG as the metrics with the property; its "
                "collisions are on the page on DCG's identity of indiscernibles"])))
    return claim.evidence(
        comparison="exact", published=f"{int(g['published'].sum())} ✓ of {len(names)}",
        reproduced=f"{int(rec.sum())} ✓ of {len(names)}", matched=agree, total=len(names),
        unit="symbols", detail=f"{method}; differ: " + (", ".join(_label(m) for m in wrong) or "none"),
        findings=findings, tables={"row": g.reset_index()}, **kw)


def check_error_properties(claim: claims.Claim, props: pd.DataFrame | None = None, *,
                           n: int | None = None, swap_n: int | None = None,
                           swap_k: int | None = None,
                           verdicts: Callable | None = None) -> claims.Evidence:
    """The conclusion's "metrics based on errors satisfy most of the proposed properties":
    for each error metric of Table 1 (``params.metrics``), the share of Table 2's yes/no rows
    (``params.properties``) it has must exceed ``params.most``. Decided by the book's verdicts
    (``props`` from :func:`property_rows`, or the rows recomputed on S_n with ``n``, ``swap_n``
    and ``swap_k``); the count under Table 2's printed symbols stands beside it. ``verdicts``
    (a function of the verdict table) replaces the verdicts (the mutation test)."""
    names = list(claim.params["metrics"])
    wanted = list(claim.params["properties"])
    most = float(claim.params["most"])
    if props is None:
        n = int(n or claim.params["n"])
        props = property_rows(names, stability=None, printed=claim.path("printed"), prop_n=n,
                              ioi_n=n, swap_n=int(swap_n or claim.params["swap_n"]),
                              swap_k=int(swap_k or claim.params["swap_k"]), distance_n=n,
                              stability_n=n, stability_pairs=0, score_seeds=[])
    t = props[props["metric"].isin(names) & props["property"].isin(wanted)]
    book = t.pivot(index="metric", columns="property", values="reproduced").reindex(
        index=names, columns=wanted).astype(bool)
    paper = t.pivot(index="metric", columns="property", values="published").reindex(
        index=names, columns=wanted).astype(bool)
    if verdicts is not None:
        book = verdicts(book)
    mark = {True: "✓", False: "✗"}
    share = book.mean(axis=1)
    passed = share > most
    paper_passed = paper.mean(axis=1) > most
    table = pd.DataFrame({"metric": [_label(m) for m in names],
                          **{PROP_LABELS.get(p, p): [mark[bool(book.loc[m, p])]
                                                      + ("" if book.loc[m, p] == paper.loc[m, p]
                                                         else f" (paper {mark[bool(paper.loc[m, p])]})")
                                                      for m in names] for p in wanted},
                          "properties held (book)": [f"{int(book.loc[m].sum())} of {len(wanted)}"
                                                     for m in names],
                          "properties held (Table 2)": [f"{int(paper.loc[m].sum())} of {len(wanted)}"
                                                        for m in names]})
    failing = [m for m in names if not passed[m]]
    findings = []
    if failing and claim.has_finding("few"):
        findings.append(claim.finding("few", evidence="\n".join(
            f"{_label(m)}: {int(book.loc[m].sum())} of {len(wanted)} rows of Table 2 hold "
            f"({', '.join(PROP_LABELS.get(p, p) for p in wanted if book.loc[m, p]) or 'none'})"
            for m in failing)))
    ev = claim.evidence(
        comparison="claim", published=f"each error metric has most of the {len(wanted)} properties",
        reproduced=(f"{int(passed.sum())} of {len(names)} error metrics have more than "
                    f"{most:.0%} of them"),
        matched=int(passed.sum()), total=len(names), unit="metrics",
        failures=[f"{_label(m)}: {int(book.loc[m].sum())} of {len(wanted)}" for m in failing] or None,
        reading="the book's verdict on each row of Table 2",
        alternatives={"Table 2's printed symbols": int(paper_passed.sum())},
        detail=("rows: " + ", ".join(PROP_LABELS.get(p, p) for p in wanted)
                + f"; a metric has most of them when it has more than {most:.0%}"),
        findings=findings, tables={"errors": table})
    ev.add_table("error_metrics_properties", table, title=(
        "The error-based metrics of Table 1 against the yes/no rows of Table 2, as checked on this "
        "page; in brackets the paper's symbol where it differs"))
    return ev


def flipped(claim: claims.Claim, **_) -> dict:
    """The mutation test's fault: every printed symbol the opposite of the recomputed one."""
    return {"published": lambda rec: ~rec.astype(bool)}


def recomputed(claim: claims.Claim, **_) -> dict:
    """The mutation test's fault: the printed row replaced by the recomputed one."""
    return {"published": lambda rec: rec.astype(bool)}


def shifted(claim: claims.Claim, **_) -> dict:
    """The mutation test's fault: every printed robustness cell moved by 10, far beyond any
    tolerance."""
    pub = read_published(claim.path("printed"))
    return {"published": pub.assign(published=pub["published"] + 10.0)}


def all_hold(claim: claims.Claim, **_) -> dict:
    """The mutation test's fault: verdicts under which every metric has every property."""
    return {"verdicts": lambda book: book | True}


# --------------------------------------------------------------------------------------------
# Presentation helpers (strings and styles the page shows)
# --------------------------------------------------------------------------------------------
STATUS_WORDS = {"match": "matches on every seed", "loose": "matches on some seeds",
                "no": "matches on no seed"}


def robustness_summary(rob: claims.Evidence, ns: Sequence[int]) -> str:
    """The paragraph under the grid: the median count, the k used, the other readings."""
    kfit = rob.values["kfit"]
    other = "; ".join(f"{k}: {v}" for k, v in (rob.alternatives or {}).items())
    return (f"On a typical seed **{rob.matched} of the {rob.total}** printed cells match, with "
            f"$k$ = {kfit.phrase(ns)} ({rob.reproduced}). Median counts under other readings: "
            f"{other}. The CSV `table2_robustness.csv` gives each cell's sampling interval (`lo`, "
            "`hi`) and the number of seeds on which it matches.")


def grid_title(kfit: KFit, ns: Sequence[int], runs: int, n_pairs: int) -> str:
    return (f"Paper A, Table 2, robustness rows: mean change of each metric over all {runs} runs "
            f"of {n_pairs} pairs (k = {', '.join(f'{kfit.k_of[n]} at n = {n}' for n in ns)}), "
            "with the printed value below")


def style_differs(differs: pd.DataFrame) -> Callable:
    """A ``save_table`` style that paints the cells where the check differs from the paper."""
    def paint(styler):
        return styler.apply(
            lambda frame: pd.DataFrame(
                {c: ["background-color: #f4b6b6; color: #1a1a1a" if d else "" for d in differs[c]]
                 if c in differs else "" for c in frame.columns}, index=frame.index),
            axis=None)
    return paint


#: The legend of the robustness grid.
GRID_LEGEND = {"match": "matches on every seed", "close": "matches on some seeds",
               "differs": "matches on no seed", "not in the paper": "not in the paper"}


def metric_readings(names: Sequence[str]) -> pd.DataFrame:
    """How each metric is computed here: the reading :mod:`rankbook.metrics` records, with the
    metrics that share it."""
    from rankbook import metrics

    return (pd.DataFrame({"metric": [metrics.REGISTRY[m].label for m in names],
                          "family": [metrics.REGISTRY[m].family for m in names],
                          "reading": [metrics.REGISTRY[m].reading for m in names]})
            .groupby("reading", sort=False)
            .agg(metrics=("metric", ", ".join), family=("family", "first"))
            .reset_index()[["metrics", "family", "reading"]])


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
def limits(values: dict, root, timeout: float) -> None:
    """the Type I rows (n_seeds x n_runs x n_pairs x ns) and the stability experiment
    (stability_n x stability_pairs) fit in memory and in a cell's time limit."""
    from rankbook.papers.paper_a.tables import stability_ks

    timeout = timeout
    ns, n_pairs, n_runs = values["ns"], values["n_pairs"], values["n_runs"]
    # estimated as metric_profile's Type I rows (about 37 bytes per run, pair and item held at
    # once, 0.6 us each; margins of 1.7 and 1.6), once per scored seed
    within_memory(64 * n_runs * n_pairs * max(ns), f"the Type I rows (n_runs = {n_runs} x "
                   f"n_pairs = {n_pairs} x max(ns) = {max(ns)} items)",
                   "lower n_runs, n_pairs or the largest of ns")
    within_time(1e-6 * values["n_seeds"] * n_runs * n_pairs * sum(ns), timeout,
                 f"the Type I rows on n_seeds = {values['n_seeds']} seeds (n_runs = {n_runs} x "
                 f"n_pairs = {n_pairs} x sum(ns) = {sum(ns)})",
                 "lower n_seeds, n_runs, n_pairs or ns")
    # the stability experiment, as stability_sensitivity's on one seed at k_step = 10
    n, pairs = values["stability_n"], values["stability_pairs"]
    ks = len(stability_ks(n, 10))
    within_memory(96 * n * pairs + 512 * pairs * ks,
                   f"the stability experiment (stability_n = {n} items x stability_pairs = "
                   f"{pairs} pairs at {ks} cut-offs)", "lower stability_n or stability_pairs")
    within_time(3e-6 * n * pairs + 1.2e-5 * pairs * ks, timeout,
                 f"the stability experiment (stability_n = {n} x stability_pairs = {pairs})",
                 "lower stability_n or stability_pairs")
