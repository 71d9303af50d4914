"""The atlas of disagreements: small qrels/run examples scored under every profile.

Code that exists for the book's atlas page (``notebooks/ir_atlas.ipynb``): it reads the
catalogue ``data/conventions/atlas.csv`` (one row per example, with the number the issue thread
reports where there is one), scores each example under every profile of
:mod:`rankbook.conventions` and checks the reported numbers.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from rankbook.conventions import VARIANTS, compare_conventions, evaluate_run, profile

__all__ = ["CATALOGUE_COLUMNS", "read_catalogue", "check_cited", "side_by_side", "distinct_values"]

#: Columns of the catalogue file.
CATALOGUE_COLUMNS = ("example", "source", "url", "qrels", "run", "measure", "query", "convention",
                     "cited", "decimals", "setting")


def read_catalogue(path) -> pd.DataFrame:
    """The catalogue of examples (a CSV with ``#`` comment lines), every column as text.

    Raises ``ValueError`` naming the missing columns, or the row whose cited value or number of
    decimals is not a number.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "atlas.csv"
    >>> _ = p.write_text("# demo\\nexample,source\\nx,y\\n")
    >>> read_catalogue(p)
    Traceback (most recent call last):
    ...
    ValueError: the catalogue needs columns ['url', 'qrels', 'run', 'measure', 'query', 'convention', 'cited', 'decimals', 'setting']
    """
    table = pd.read_csv(path, comment="#", dtype=str, keep_default_na=False)
    missing = [c for c in CATALOGUE_COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"the catalogue needs columns {missing}")
    for i, row in table.iterrows():
        if row["cited"]:
            try:
                float(row["cited"])
                int(row["decimals"])
            except ValueError:
                raise ValueError(
                    f"catalogue row {i} ({row['example']!r}): cited {row['cited']!r} and decimals "
                    f"{row['decimals']!r} must be numbers"
                ) from None
    return table


def _convention(name: str):
    if name in VARIANTS:
        base, changes = VARIANTS[name]
        return profile(base, **changes)
    return profile(name)


def check_cited(catalogue: pd.DataFrame, data_dir) -> pd.DataFrame:
    """Each reported number beside the value of the profile it was produced under.

    Returns one row per catalogue row with a cited value: ``example``, ``source``, ``measure``,
    ``query``, ``convention``, ``cited``, ``reproduced`` (at the cited number of decimals) and
    ``matched`` (equal at those decimals).

    Examples
    --------
    >>> cat = pd.DataFrame([{"example": "tie", "source": "demo", "url": "", "qrels": "q", "run": "r",
    ...     "measure": "P@1", "query": "all", "convention": "trec_eval", "cited": "1.0",
    ...     "decimals": "1", "setting": "ties"}])
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q").write_text("0 0 0 0\\n0 0 1 1\\n")
    >>> _ = (d / "r").write_text("0 Q0 0 1 0 x\\n0 Q0 1 2 0 x\\n")
    >>> check_cited(cat, d)[["reproduced", "matched"]].to_dict("records")
    [{'reproduced': '1.0', 'matched': True}]
    """
    data_dir = Path(data_dir)
    rows = []
    for _, row in catalogue.iterrows():
        if not row["cited"]:
            continue
        res = evaluate_run(data_dir / row["qrels"], data_dir / row["run"], row["measure"],
                           _convention(row["convention"]))
        if row["query"] == "all":
            value = float(res.aggregate[row["measure"]])
        else:
            pq = res.per_query
            value = float(pq.loc[pq["query_id"] == row["query"], "value"].iloc[0])
        d = int(row["decimals"])
        reproduced = f"{value:.{d}f}"
        rows.append({"example": row["example"], "source": row["source"], "measure": row["measure"],
                     "query": row["query"], "convention": row["convention"], "cited": row["cited"],
                     "reproduced": reproduced,
                     "matched": math.isclose(float(reproduced), float(row["cited"]), abs_tol=0.5 * 10**-d)})
    return pd.DataFrame(rows, columns=["example", "source", "measure", "query", "convention", "cited",
                                       "reproduced", "matched"])


def _cell(value, status, decimals):
    if status == "ok":
        return f"{value:.{decimals}f}"
    if status == "not offered":
        return "not offered"
    return "refused"


def side_by_side(catalogue: pd.DataFrame, data_dir, conventions, decimals: int = 4) -> pd.DataFrame:
    """Every example, every measure it names (``;``-separated), every profile's value.

    One row per (example, measure): ``example``, ``measure``, ``query``, ``setting``, ``source``
    and one column per convention holding the value at ``decimals`` decimals, ``not offered``
    or ``refused`` (the tool refuses the input).

    Examples
    --------
    >>> cat = pd.DataFrame([{"example": "tie", "source": "demo", "url": "", "qrels": "q", "run": "r",
    ...     "measure": "P@1", "query": "all", "convention": "trec_eval", "cited": "",
    ...     "decimals": "", "setting": "ties"}])
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q").write_text("0 0 0 0\\n0 0 1 1\\n")
    >>> _ = (d / "r").write_text("0 Q0 0 1 0 x\\n0 Q0 1 2 0 x\\n")
    >>> side_by_side(cat, d, ["trec_eval", "ranx", "sklearn"], decimals=2).iloc[0, -3:].tolist()
    ['1.00', '0.00', 'not offered']
    """
    data_dir = Path(data_dir)
    out = []
    for _, row in catalogue.iterrows():
        measures = [m.strip() for m in row["measure"].split(";") if m.strip()]
        table = compare_conventions(data_dir / row["qrels"], data_dir / row["run"], measures,
                                    list(conventions))
        for m in measures:
            rec = {"example": row["example"], "measure": m, "query": row["query"],
                   "setting": row["setting"], "source": row["source"]}
            for name in conventions:
                sel = table[(table["convention"] == name) & (table["measure"] == m)]
                hit = sel[sel["query_id"] == row["query"]]
                if hit.empty:  # pooled variants report only the mean; refusals report "all"
                    hit = sel[sel["query_id"] == "all"]
                rec[name] = _cell(float(hit["value"].iloc[0]), hit["status"].iloc[0], decimals)
            out.append(rec)
    return pd.DataFrame(out)


def distinct_values(table: pd.DataFrame, conventions) -> np.ndarray:
    """How many different numbers the profiles give on each row of :func:`side_by_side`."""
    vals = table[list(conventions)].to_numpy()
    return np.array([len({v for v in row if v not in ("not offered", "refused")}) for row in vals])
