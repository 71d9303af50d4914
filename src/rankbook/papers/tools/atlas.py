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

from rankbook.ledger import claims
from rankbook.conventions import VARIANTS, compare_conventions, evaluate_run, profile

__all__ = ["CATALOGUE_COLUMNS", "read_catalogue", "check_cited", "check_cited_values", "side_by_side",
           "distinct_values", "profile_correlations", "versions", "moved_catalogue"]

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


def versions(conventions) -> pd.DataFrame:
    """The tool and version each profile (or variant) of the page reproduces.

    Returns a DataFrame with columns ``convention`` and ``tool and version`` (the profile's
    ``peer``), one row per name, in the order given.

    Examples
    --------
    >>> versions(["trec_eval", "trec_eval_9", "ranx (plain dicts)"])["tool and version"].tolist()
    ['trec_eval 10.0 (usnistgov/trec_eval, tag v10.0)', 'trec_eval 9.0.8 (usnistgov/trec_eval, tag v9.0.8)', 'ranx 0.3.21 (numba kernels; Qrels/Run or dicts)']
    """
    return pd.DataFrame({"convention": list(conventions),
                         "tool and version": [_convention(c).peer for c in conventions]})


def check_cited(catalogue: pd.DataFrame, data_dir) -> pd.DataFrame:
    """Each reported number beside the value of the profile it was produced under.

    Returns one row per catalogue row with a cited value: ``example``, ``source``, ``measure``,
    ``query``, ``convention``, ``version`` (the tool and version the profile reproduces),
    ``cited``, ``reproduced`` (at the cited number of decimals) and ``matched`` (equal at those
    decimals).

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
                     "query": row["query"], "convention": row["convention"],
                     "version": _convention(row["convention"]).peer, "cited": row["cited"],
                     "reproduced": reproduced,
                     "matched": math.isclose(float(reproduced), float(row["cited"]), abs_tol=0.5 * 10**-d)})
    return pd.DataFrame(rows, columns=["example", "source", "measure", "query", "convention", "version",
                                       "cited", "reproduced", "matched"])


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


def profile_correlations(table: pd.DataFrame, conventions, reference: str | None = None) -> pd.DataFrame:
    r"""How alike two profiles order the examples: Kendall's :math:`\tau_b` and the AP
    correlation :math:`\tau_{AP,b}` between the reference profile's values and each other
    profile's, over the rows of :func:`side_by_side` where both give a number.

    :math:`\tau_b` counts every pair of rows alike; :math:`\tau_{AP,b}`
    (:func:`rankbook.tau_ap.tau_ap_b`, the tie-aware AP correlation) weighs the pairs near the
    top of each ordering more, so a profile that reorders the highest-scoring examples scores
    lower. Both take ties (many examples score exactly 1). ``reference`` defaults to the first
    convention. Columns: ``profile``, ``rows`` compared, ``tau_b``, ``tau_AP_b`` (nan when a
    profile gives the same value everywhere).

    Examples
    --------
    >>> t = pd.DataFrame({"a": ["0.1", "0.5", "0.9", "not offered"], "b": ["0.2", "0.4", "0.8", "0.3"]})
    >>> profile_correlations(t, ["a", "b"])[["profile", "rows", "tau_b", "tau_AP_b"]].values.tolist()
    [['b', 3, 1.0, 1.0]]
    """
    from rankbook.metrics import kendall_tau_b
    from rankbook.tau_ap import tau_ap_b

    conventions = list(conventions)
    reference = conventions[0] if reference is None else reference
    num = table[conventions].apply(pd.to_numeric, errors="coerce")
    rows = []
    for name in conventions:
        if name == reference:
            continue
        both = num[[reference, name]].dropna()
        x, y = both[reference].to_numpy(), both[name].to_numpy()
        rows.append({"profile": name, "reference": reference, "rows": len(both),
                     "tau_b": kendall_tau_b(x, y) if len(both) > 1 else float("nan"),
                     "tau_AP_b": tau_ap_b(x, y) if len(both) > 1 else float("nan")})
    return pd.DataFrame(rows, columns=["profile", "reference", "rows", "tau_b", "tau_AP_b"])


def check_cited_values(claim: claims.Claim, *, catalogue: pd.DataFrame | None = None,
                       convention: str | None = None) -> claims.Evidence:
    """Every number the tools' issue reports print, recomputed under the profile of the tool
    that printed it, at the printed decimals.

    The catalogue is the claim's data ``catalogue`` (its qrels and run files lie beside it);
    ``catalogue`` replaces its rows (the mutation test moves the printed values), and
    ``convention`` recomputes every row under that one profile instead of its own tool's.

    Examples
    --------
    >>> from rankbook.ledger import claims
    >>> c = claims.ledger().for_page("ir_atlas")[0]
    >>> check_cited_values(c).status
    'holds'
    """
    path = claim.path("catalogue")
    catalogue = read_catalogue(path) if catalogue is None else catalogue
    if convention is not None:
        catalogue = catalogue.assign(convention=convention)
    cited = check_cited(catalogue, path.parent)
    matched, total = int(cited["matched"].sum()), len(cited)
    reports = cited["source"].nunique()
    ev = claim.evidence(
        comparison="exact", published=f"{total} values in {reports} reports",
        reproduced=f"{matched} of {total} equal at the printed decimals", matched=matched, total=total,
        unit="values", detail="each value recomputed under the profile of "
        + ("the tool that printed it" if convention is None else f"`{convention}`"))
    ev.add_table("atlas_cited", cited.assign(matched=cited["matched"].map({True: "yes", False: "no"})),
                 title="Numbers printed in the issue threads, recomputed under the tool's profile")
    return ev


def moved_catalogue(claim: claims.Claim, **smoke) -> dict:
    """Mutant: every printed value moved by three units of its last printed digit."""
    catalogue = read_catalogue(claim.path("catalogue"))

    def move(row):
        if not row["cited"]:
            return row["cited"]
        d = int(row["decimals"])
        return f"{float(row['cited']) + 3 * 10 ** -d:.{d}f}"

    return {"catalogue": catalogue.assign(cited=[move(r) for _, r in catalogue.iterrows()])}
