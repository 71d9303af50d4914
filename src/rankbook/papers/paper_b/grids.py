"""Paper B's γ × λ grids (Tables IV and VI) and curves (Figures 3 and 4): what the pages of
Section V share.

The published grids are read (:func:`read_published_grid`) and compared cell by cell with the
recomputed ones at the printed precision (:func:`compare_grid`); each printed reading of the
spread ``d`` is tried on them (:func:`reading_comparison`); the curves of
:math:`\\kappa_1, \\kappa_2, \\kappa_3` are summarised by how much each falls over the grid
(:func:`sensitivity_table`), the measure of "more sensitive" that the paper's conclusions are
read with. These functions exist to reproduce paper B, so they live here and not in
:mod:`rankbook.consensus`, which keeps the measures (:func:`~rankbook.consensus.kappa_grid`,
:func:`~rankbook.consensus.kappa_p_curves`).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from rankbook import consensus
from rankbook.ledger import claims

__all__ = ["DEVIATION_NAMES", "read_published_grid", "compare_grid", "reading_comparison",
           "sensitivity_table", "published_grid_path", "grids", "check_grid", "spread_finding",
           "curves", "decline"]

#: A reader's name for each spread in :data:`rankbook.consensus.DEVIATIONS`, for tables and
#: captions: where paper B prints each one.
DEVIATION_NAMES = {
    "std": "population standard deviation",
    "mad": "mean absolute deviation (Eq. 13)",
    "sqrt_mad": "square root of the mean absolute deviation (Algorithm 1)",
    "sample_std": "sample standard deviation",
}


def _fmt(x: float) -> str:
    return f"{x:g}"


def read_published_grid(path) -> pd.DataFrame:
    """Read a published gamma x lam grid (Tables IV and VI of ``lin2017consensus``).

    Header ``gamma,<lam1>,<lam2>,...``; one row per gamma; lines starting with ``#`` are
    comments. Index: gamma (float); columns: the lam values as text, as in
    :func:`rankbook.consensus.kappa_grid`. ``path`` is a path (absolute, or relative to the
    current folder) or an open text file.

    Examples
    --------
    >>> import io
    >>> read_published_grid(io.StringIO("# a grid\\ngamma,1,0.5\\n1,19,11.344\\n")).loc[1.0, "0.5"]
    11.344
    """
    if isinstance(path, (str, Path)):
        p = Path(path).expanduser()
        if not p.is_file():
            raise ValueError(f"no such file: {p} (a relative path is read from the current folder "
                             f"{Path.cwd()})")
        path = p
    df = pd.read_csv(path, comment="#")
    if df.columns[0] != "gamma":
        raise ValueError(f"{path}: the first column must be 'gamma', found {df.columns[0]!r}")
    df = df.set_index("gamma")
    df.index = df.index.astype(float)
    df.columns = [_fmt(float(c)) for c in df.columns]
    return df.astype(float)


def compare_grid(reproduced: pd.DataFrame, published: pd.DataFrame, decimals: int = 3) -> dict:
    """Cell-by-cell comparison of a reproduced grid with a published one.

    Only the cells present in both (matching gamma rows and lam columns) are compared. A cell
    matches when the reproduced value rounded half-up to ``decimals`` equals the printed value,
    i.e. ``|reproduced - published| <= 0.5 * 10**-decimals`` (with a 1e-9 slack for binary
    floating point).

    Returns
    -------
    dict
        ``matched``, ``total`` (cells compared), ``max_abs_diff``, ``diff`` (reproduced minus
        published, a DataFrame of the common cells) and ``mismatches`` (a list of
        ``(gamma, lam, reproduced, published)``).

    Examples
    --------
    >>> a = pd.DataFrame([[1.0004, 2.0]], index=[1.0], columns=["1", "0.5"])
    >>> b = pd.DataFrame([[1.0, 2.001]], index=[1.0], columns=["1", "0.5"])
    >>> r = compare_grid(a, b)
    >>> r["matched"], r["total"]
    (1, 2)
    """
    rows = [g for g in reproduced.index if any(np.isclose(g, published.index))]
    pub_rows = [published.index[np.isclose(g, published.index)][0] for g in rows]
    cols = [c for c in reproduced.columns if c in published.columns]
    rep = reproduced.loc[rows, cols].to_numpy(dtype=float)
    pub = published.loc[pub_rows, cols].to_numpy(dtype=float)
    diff = rep - pub
    ok = np.abs(diff) <= 0.5 * 10.0 ** -decimals + 1e-9
    mism = [(float(rows[i]), cols[j], float(rep[i, j]), float(pub[i, j])) for i, j in zip(*np.nonzero(~ok))]
    return {
        "matched": int(ok.sum()),
        "total": int(ok.size),
        "max_abs_diff": float(np.abs(diff).max()) if diff.size else float("nan"),
        "diff": pd.DataFrame(diff, index=pd.Index(rows, name="gamma"), columns=cols),
        "mismatches": mism,
    }


def reading_comparison(sets: dict, gammas, lams, deviations=consensus.DEVIATIONS,
                       decimals: int = 3) -> pd.DataFrame:
    """Cells of published grids matched by each reading of the position spread.

    ``sets`` maps a table name to ``(rankings, published_grid)``. Returns a DataFrame with one
    row per (table, deviation): ``matched``, ``total`` and ``max_abs_diff``.

    Examples
    --------
    >>> R = ["abc", "bac"]
    >>> pub = consensus.kappa_grid(R, [1.0, 0.5], [1.0]).round(3)
    >>> reading_comparison({"toy": (R, pub)}, [1.0, 0.5], [1.0], ["std", "mad"])[["deviation", "matched"]].values.tolist()
    [['std', 2], ['mad', 2]]
    """
    rows = []
    for dev in deviations:
        if dev not in consensus.DEVIATIONS:
            raise ValueError(f"unknown deviation {dev!r}; valid: {list(consensus.DEVIATIONS)}")
        for name, (rankings, published) in sets.items():
            res = compare_grid(consensus.kappa_grid(rankings, gammas, lams, deviation=dev), published,
                               decimals=decimals)
            rows.append({"table": name, "deviation": dev, "matched": res["matched"],
                         "total": res["total"], "max_abs_diff": res["max_abs_diff"]})
    return pd.DataFrame(rows, columns=["table", "deviation", "matched", "total", "max_abs_diff"])


def sensitivity_table(curves: dict) -> pd.DataFrame:
    """How much each :math:`\\kappa_p` falls from the largest to the smallest weight of a curve.

    ``curves`` maps a set name to the output of :func:`rankbook.consensus.kappa_p_curves`.
    Returns one row per (set, p): the parameter range (``largest``, ``smallest``; 1 and 0.45 in
    the paper), the values at both ends (``at_largest``, ``at_smallest``) and the relative
    decline ``1 - at_smallest / at_largest`` (``nan`` when ``at_largest`` is 0).

    Examples
    --------
    >>> R = [["a", "b", "c"], ["b", "a", "c"], ["a", "c", "b"]]
    >>> curves = consensus.kappa_p_curves(R, gammas=[0.9, 1.0], lams=[0.5, 1.0], ps=(1, 2))
    >>> table = sensitivity_table({"toy": curves})
    >>> table[["set", "p", "parameter"]].values.tolist()
    [['toy', 1, 'gamma'], ['toy', 2, 'lam']]
    >>> round(float(table["relative_decline"].iloc[1]), 3)
    0.603
    """
    rows = []
    for name, frame in curves.items():
        for p, sub in frame.groupby("p", sort=True):
            sub = sub.sort_values("value")
            lo, hi = float(sub.kappa_p.iloc[0]), float(sub.kappa_p.iloc[-1])
            rows.append({"set": name, "p": int(p), "parameter": sub.parameter.iloc[0],
                         "largest": float(sub.value.iloc[-1]), "smallest": float(sub.value.iloc[0]),
                         "at_largest": hi, "at_smallest": lo,
                         "relative_decline": 1 - lo / hi if hi else float("nan")})
    return pd.DataFrame(rows)


def published_grid_path(folder, table_stem: str, name: str) -> Path | None:
    """The published grid ``<table_stem>_<name in lower case>.csv`` in ``folder`` (a resolved
    folder, or None), or None when there is none."""
    if not folder:
        return None
    path = Path(folder) / f"{table_stem}_{str(name).lower()}.csv"
    return path if path.is_file() else None


def grids(sets: dict, gammas, lams, deviation: str, table_stem: str, published_dir, table: str,
          labels: dict) -> claims.Section:
    """κ over the γ × λ grid for each set, saved rounded and in full, and the comparison grid
    beside the published one where ``published_dir`` (a resolved folder, or None) holds it.
    ``values``: ``grids``, ``comparison_grids`` (arguments of ``save_comparison_grid``)."""
    out = claims.Section(values={"grids": {}, "comparison_grids": []})
    for name, R in sets.items():
        grid = consensus.kappa_grid(R, gammas, lams, deviation=deviation)
        out.values["grids"][name] = grid
        stem = re.sub(r"[^a-z0-9._-]+", "_", f"{table_stem}_{name.lower()}")
        out.add_table(f"{stem}_full", grid.reset_index(), show=False)
        out.add_table(stem, grid.round(3).reset_index(), show=False)
        path = published_grid_path(published_dir, table_stem, name)
        pub = read_published_grid(path) if path is not None else grid * float("nan")
        out.values["comparison_grids"].append((
            grid.rename(index=lambda g: f"{g:g}"), pub.rename(index=lambda g: f"{g:g}"), f"{stem}_comparison",
            f"{'Paper B, ' + table if path is not None else 'Not in the paper'}: κ for {name} "
            f"({labels.get(name, name)}), rows γ, columns λ"))
    return out


def check_grid(claim: claims.Claim, sets: dict, published_grids: dict, gammas, lams, deviation: str,
               table: str, table_stem: str) -> claims.Evidence:
    """Every published cell of a γ × λ grid (``published_grids``: set name -> grid) against
    the recomputed one at the printed ``claim.params["decimals"]``; the cells each reading of
    the spread d reproduces, in ``values["readings"]``."""
    decimals = int(claim.params["decimals"])
    rows, diffs = [], []
    for name, R in sets.items():
        res = compare_grid(consensus.kappa_grid(R, gammas, lams, deviation=deviation), published_grids[name],
                           decimals)
        rows.append({"set": name, "cells compared": res["total"], f"cells matching to {decimals} decimals": res["matched"],
                     "largest |reproduced - published|": res["max_abs_diff"]})
        diffs.append(res["diff"].to_numpy().ravel())
    summary = pd.DataFrame(rows)
    matching = f"cells matching to {decimals} decimals"
    n_ok, n_all = int(summary[matching].sum()), int(summary["cells compared"].sum())
    printed = sum(g.size for g in published_grids.values())
    readings_title = f"Cells of {table} reproduced by each reading of the position spread d"
    if not n_all:  # other γ and λ than the printed ones: nothing to compare, said on the page
        ev = claim.evidence(
            comparison="none", published=f"{table}: printed at other γ and λ",
            reproduced="recomputed; none of these γ and λ is printed, so nothing is compared",
            detail="rerun with γ and λ from the printed grid to compare cell by cell")
        empty = pd.DataFrame(columns=["deviation", "matched", "total", "max_abs_diff"])
        ev.values.update(spans="None of these γ and λ is printed, so no cell is compared.",
                         readings=empty, readings_shown=empty.rename(columns={
                             "deviation": "spread d", "max_abs_diff": "largest |reproduced - published|"}),
                         readings_title=readings_title)
        ev.add_table(f"{table_stem}_match", summary, float_format="{:.6f}",
                     title=f"Reproduced against published {table}, cell by cell")
        return ev
    d = np.concatenate(diffs) * 10.0 ** decimals
    lo, hi = float(np.nanmin(d)), float(np.nanmax(d))
    ev = claim.evidence(
        comparison="exact", matched=n_ok, total=n_all, published=f"{n_all} values, {decimals} decimals",
        reproduced=f"{n_ok} of {n_all} equal to {decimals} decimals",
        detail=(f"spread d of the positions: {DEVIATION_NAMES[deviation]}; " + "; ".join(
            f"{r['set']}: {r[matching]}/{r['cells compared']} cells, max |diff| "
            f"{r['largest |reproduced - published|']:.6f}" for r in rows)
            + ("" if n_all == printed else f"; only {n_all} of the {printed} printed cells computed with these "
                                           "parameters")))
    ev.add_table(f"{table_stem}_match", summary, float_format="{:.6f}",
                 title=f"Reproduced against published {table}, cell by cell")
    unit = {3: "thousandths"}.get(decimals, f"units of the {decimals}th decimal")
    ev.values["spans"] = (f"Reproduced minus published spans {lo:+.3f} to {hi:+.3f} {unit}, "
                          + ("on both sides of zero, as rounding to nearest leaves them; truncation would leave them all "
                             "in [0, 1)" if lo < 0 < hi else "on one side of zero only") + ".")
    readings = reading_comparison({n: (R, published_grids[n]) for n, R in sets.items()}, gammas, lams,
                                  decimals=decimals)
    ev.values["readings"] = readings
    ev.values["readings_shown"] = readings.assign(deviation=readings.deviation.map(DEVIATION_NAMES)).rename(
        columns={"deviation": "spread d", "max_abs_diff": "largest |reproduced - published|"})
    ev.values["readings_title"] = readings_title
    return ev


def spread_finding(claim: claims.Claim, readings: pd.DataFrame, table: str) -> claims.Finding | None:
    """The finding of the claim's erratum ``spread`` (the spread d printed three ways, only the
    population standard deviation reproduces the table), or None when the readings do not
    single it out."""
    by = readings.groupby("deviation", sort=False).agg(matched=("matched", "sum"), total=("total", "sum"),
                                                       max_abs_diff=("max_abs_diff", "max"))
    winners = [dev for dev, row in by.iterrows() if row.matched == row.total]
    if winners != ["std"]:
        return None
    return claim.finding("spread", evidence=f"{table}, {int(by.total.iloc[0])} cells: " + "; ".join(
        f"{DEVIATION_NAMES[dev]}: {int(row.matched)}/{int(row.total)} cells, max |diff| {row.max_abs_diff:.4f}"
        for dev, row in by.iterrows()))


def curves(sets: dict, gammas, lams, deviation: str, stem: str) -> claims.Section:
    """The curves of κ_1 (against γ), κ_2 and κ_3 (against λ) of each set, and how much each
    falls over the grid. ``values``: ``curves``, ``sensitivity``."""
    cur = {name: consensus.kappa_p_curves(R, gammas, lams, ps=(1, 2, 3), deviation=deviation)
           for name, R in sets.items()}
    sens = sensitivity_table(cur)
    out = claims.Section(values={"curves": cur, "sensitivity": sens})
    out.add_table(f"{stem}_curves", pd.concat([c.assign(set=name) for name, c in cur.items()]), show=False)
    out.add_table(f"{stem}_sensitivity", sens, float_format="{:.4f}",
                  title="Relative decline of κ_p from the largest to the smallest weight parameter")
    return out


def decline(sens: pd.DataFrame, name: str, p: int) -> float:
    """The relative decline of κ_p of set ``name`` over the grid (nan when absent)."""
    row = sens[(sens.set == name) & (sens.p == p)]
    return float(row.relative_decline.iloc[0]) if len(row) else float("nan")
