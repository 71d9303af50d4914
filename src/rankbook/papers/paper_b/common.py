"""What the four paper B pages share: a section's tables and text, the published files.

A page section that states no claim returns a :class:`Section`; a claim returns a
:class:`rankbook.ledger.claims.Evidence`. Both carry ``tables`` (stem -> DataFrame) and
``values``; ``values["show"]`` holds, per table stem, how the page saves it (title, number
format, folded or hidden), and ``values["markdown"]`` the sentences the page displays. The
notebook passes each table to ``rankbook.book.outputs.save_table`` and each sentence to
``display(Markdown(...))``: it computes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from rankbook.ledger.paths import data_path

if TYPE_CHECKING:
    from rankbook.ledger import claims

#: The four rankings of the running example (Sections IV-B and IV-D2).
EXAMPLE_1 = ("abcdef", "bdcefa", "bcdeghijkf", "badefc")
#: The same example as Section IV-A prints it (``r3`` lacks ``e``).
SECTION_IV_A = ("abcdef", "bdcefa", "bcdghijklf", "badefc")
#: The rankings of the search-engine and aggregation pages.
TABLE_V = "rankings/paper_b_table_v_search.csv"
TABLE_II = "rankings/paper_b_table_ii_clustering.csv"
TABLE_III = "rankings/paper_b_table_iii_aggregations.csv"


@dataclass
class Section:
    """The tables and sentences of one page section that checks no claim."""

    tables: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)


def add_table(obj, stem: str, frame: pd.DataFrame, **options) -> pd.DataFrame:
    """Attach ``frame`` to a :class:`Section` or an Evidence, with its save options."""
    obj.tables[stem] = frame
    obj.values.setdefault("show", {})[stem] = options
    return frame


def say(obj, text: str) -> None:
    """Attach one Markdown sentence the page displays."""
    obj.values.setdefault("markdown", []).append(text)


def published(name: str):
    """The path of one file of ``data/published/paper_b``."""
    return data_path("published", "paper_b", name)


def stated_values(name: str) -> pd.Series:
    """The ``quantity,value`` file ``name`` of ``data/published/paper_b`` as a float Series."""
    from .checks import read_published_values

    return read_published_values(published(name)).set_index("quantity")["value"].astype(float)


def fmt(values, spec: str = "g") -> str:
    """Numbers joined by commas: ``fmt([5.0, 7.0]) == '5, 7'``."""
    return ", ".join(format(float(x), spec) for x in values)


# --------------------------------------------------------------------------------------------
# the grids of Tables IV and VI, and the curves of Figures 3 and 4


def published_grid_path(published_dir: str, filename: str):
    """The published grid ``filename`` in ``published_dir`` (absolute or under data/), or None
    when there is none (or ``published_dir`` is empty)."""
    from pathlib import Path

    from rankbook.ledger.paths import data_dir

    if not published_dir:
        return None
    folder = Path(published_dir) if Path(published_dir).is_absolute() else data_dir() / published_dir
    path = folder / filename
    return path if path.exists() else None


def grids(sets: dict, gammas, lams, deviation: str, table_stem: str, published_dir: str, table: str,
          labels: dict) -> Section:
    """κ over the γ × λ grid for each set, saved rounded and in full, and the comparison grid
    beside the published one where ``published_dir`` holds it. ``values``: ``grids``,
    ``comparison_grids`` (arguments of ``save_comparison_grid``)."""
    import re

    from rankbook import consensus

    out = Section(values={"grids": {}, "comparison_grids": []})
    for name, R in sets.items():
        grid = consensus.kappa_grid(R, gammas, lams, deviation=deviation)
        out.values["grids"][name] = grid
        stem = re.sub(r"[^a-z0-9._-]+", "_", f"{table_stem}_{name.lower()}")
        add_table(out, f"{stem}_full", grid.reset_index(), show=False)
        add_table(out, stem, grid.round(3).reset_index(), show=False)
        path = published_grid_path(published_dir, f"{table_stem}_{name.lower()}.csv")
        pub = consensus.read_published_grid(path) if path is not None else grid * float("nan")
        out.values["comparison_grids"].append((
            grid.rename(index=lambda g: f"{g:g}"), pub.rename(index=lambda g: f"{g:g}"), f"{stem}_comparison",
            f"{'Paper B, ' + table if path is not None else 'Not in the paper'}: κ for {name} "
            f"({labels.get(name, name)}), rows γ, columns λ"))
    return out


def check_grid(claim_id: str, sets: dict, published_grids: dict, gammas, lams, deviation: str, table: str,
               table_stem: str) -> "claims.Evidence":
    """Every published cell of a γ × λ grid (``published_grids``: set name -> grid) against
    the recomputed one at the printed three decimals; the cells each reading of the spread d
    reproduces, in ``values["readings"]``."""
    import numpy as np

    from rankbook import consensus
    from rankbook.ledger import claims

    rows, diffs = [], []
    for name, R in sets.items():
        res = consensus.compare_grid(consensus.kappa_grid(R, gammas, lams, deviation=deviation), published_grids[name])
        rows.append({"set": name, "cells compared": res["total"], "cells matching to 3 decimals": res["matched"],
                     "largest |reproduced - published|": res["max_abs_diff"]})
        diffs.append(res["diff"].to_numpy().ravel())
    summary = pd.DataFrame(rows)
    n_ok, n_all = int(summary["cells matching to 3 decimals"].sum()), int(summary["cells compared"].sum())
    if not n_all:  # other γ and λ than the printed ones: nothing to compare, said on the page
        ev = claims.Evidence(
            claim=claim_id, comparison="none", published=f"{table}: printed at other γ and λ",
            reproduced="recomputed; none of these γ and λ is printed, so nothing is compared",
            detail="rerun with γ and λ from the printed grid to compare cell by cell")
        empty = pd.DataFrame(columns=["deviation", "matched", "total", "max_abs_diff"])
        ev.values.update(spans="None of these γ and λ is printed, so no cell is compared.",
                         readings=empty, readings_shown=empty.rename(columns={
                             "deviation": "spread d", "max_abs_diff": "largest |reproduced - published|"}),
                         readings_title=f"Cells of {table} reproduced by each reading of the position spread d")
        add_table(ev, f"{table_stem}_match", summary, float_format="{:.6f}",
                  title=f"Reproduced against published {table}, cell by cell")
        return ev
    d = np.concatenate(diffs) * 1e3
    lo, hi = float(np.nanmin(d)), float(np.nanmax(d))
    full = n_all == 144 * len(sets)
    ev = claims.Evidence(
        claim=claim_id, comparison="exact", matched=n_ok, total=n_all, published=f"{n_all} values, 3 decimals",
        reproduced=f"{n_ok} of {n_all} equal to 3 decimals",
        detail=(f"spread d of the positions: {consensus.DEVIATION_NAMES[deviation]}; " + "; ".join(
            f"{r['set']}: {r['cells matching to 3 decimals']}/{r['cells compared']} cells, max |diff| "
            f"{r['largest |reproduced - published|']:.6f}" for r in rows)
            + ("" if full else f"; only {n_all} of {144 * len(sets)} cells computed with these parameters")))
    add_table(ev, f"{table_stem}_match", summary, float_format="{:.6f}",
              title=f"Reproduced against published {table}, cell by cell")
    ev.values["spans"] = (f"Reproduced minus published spans {lo:+.3f} to {hi:+.3f} thousandths, "
                          + ("on both sides of zero, as rounding to nearest leaves them; truncation would leave them all "
                             "in [0, 1)" if lo < 0 < hi else "on one side of zero only") + ".")
    readings = consensus.reading_comparison({n: (R, published_grids[n]) for n, R in sets.items()}, gammas, lams)
    ev.values["readings"] = readings
    ev.values["readings_shown"] = readings.assign(deviation=readings.deviation.map(consensus.DEVIATION_NAMES)).rename(
        columns={"deviation": "spread d", "max_abs_diff": "largest |reproduced - published|"})
    ev.values["readings_title"] = f"Cells of {table} reproduced by each reading of the position spread d"
    return ev


def spread_finding(readings: pd.DataFrame, table: str):
    """The finding B-E6 (the spread d printed three ways, only the population standard
    deviation reproduces the table), or None when the readings do not single it out."""
    from rankbook.ledger import claims

    by = readings.groupby("deviation", sort=False).agg(matched=("matched", "sum"), total=("total", "sum"),
                                                       max_abs_diff=("max_abs_diff", "max"))
    winners = [dev for dev, row in by.iterrows() if row.matched == row.total]
    if winners != ["std"]:
        return None
    from rankbook import consensus

    return claims.Finding(id="B-E6", evidence=f"{table}, {int(by.total.iloc[0])} cells: " + "; ".join(
        f"{consensus.DEVIATION_NAMES[dev]}: {int(row.matched)}/{int(row.total)} cells, max |diff| {row.max_abs_diff:.4f}"
        for dev, row in by.iterrows()))


def curves(sets: dict, gammas, lams, deviation: str, stem: str) -> Section:
    """The curves of κ_1 (against γ), κ_2 and κ_3 (against λ) of each set, and how much each
    falls over the grid. ``values``: ``curves``, ``sensitivity``."""
    from rankbook import consensus

    cur = {name: consensus.kappa_p_curves(R, gammas, lams, ps=(1, 2, 3), deviation=deviation)
           for name, R in sets.items()}
    sens = consensus.sensitivity_table(cur)
    out = Section(values={"curves": cur, "sensitivity": sens})
    add_table(out, f"{stem}_curves", pd.concat([c.assign(set=name) for name, c in cur.items()]), show=False)
    add_table(out, f"{stem}_sensitivity", sens, float_format="{:.4f}",
              title="Relative decline of κ_p from the largest to the smallest weight parameter")
    return out


def decline(sens: pd.DataFrame, name: str, p: int) -> float:
    """The relative decline of κ_p of set ``name`` over the grid (nan when absent)."""
    row = sens[(sens.set == name) & (sens.p == p)]
    return float(row.relative_decline.iloc[0]) if len(row) else float("nan")


def agreement(sets: dict, key: str = "set") -> Section:
    """κ with its bootstrap interval, Kendall's W and the mean pairwise τ_b of each set."""
    from rankbook import consensus

    agree = consensus.agreement_summary(sets, n_resamples=1000, seed=0)
    out = Section()
    add_table(out, "agreement_measures", pd.DataFrame({
        key: agree["set"], "rankings": agree["rankings"], "common items": agree["common items"],
        "κ": agree["kappa"].map("{:g}".format),
        "κ, 95% bootstrap interval": [f"[{lo:g}, {hi:g}]" for lo, hi in zip(agree["kappa low"], agree["kappa high"])],
        "W (common items)": agree["W (common)"], "p of W (common)": agree["p (common)"], "W (all items)": agree["W (union)"],
        "mean τ_b (common items)": agree["mean tau_b (common)"], "mean τ_b (all items)": agree["mean tau_b (union)"]}),
        float_format="{:.4g}", title="κ, Kendall's W and the mean pairwise τ_b of "
                                     + ("R_c and of R_c with each aggregate" if key == "set" else "each group's rankings"))
    order = lambda column: " > ".join(agree.sort_values(column, ascending=False)["set"].tolist())
    say(out, f"Ordered from most to least agreement: by $\\kappa$ {order('kappa')}; by $W$ on the common items "
             f"{order('W (common)')}; by $W$ on all items {order('W (union)')}; by the mean $\\tau_b$ on the common "
             f"items {order('mean tau_b (common)')}. Kendall's $W$ and the mean Spearman correlation $\\bar\\rho$ of $m$ "
             f"judges are tied by $\\bar\\rho = (mW - 1)/(m - 1)$ (without ties), so $W$ ranks the "
             f"{'sets' if key == 'set' else 'groups'} as the average pairwise rank correlation does, while $\\kappa$ "
             "also grows with the number of items all lists share.")
    return out
