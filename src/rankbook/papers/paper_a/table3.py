"""Paper A, Table 3 and Section 6.1: rankings the metrics cannot tell apart (page
``indiscernibility_examples``).

Table 3 of :cite:`paperA` marks, for three pairs of rankings of length 10 compared with the
identity (5 relevant = retrieved items), whether each metric gives the two rankings different
values. This module recomputes every mark exactly (:func:`check_table3`), reads the extracted
rows under every choice of their surplus symbols, and checks what Section 6.1 says of them:
Table 3 holds an example for every metric but DCG and nDCG (:func:`check_examples`), the
confusion-matrix metrics behave alike on its rows (:func:`check_cmb_column`), and a swap of two
items inside the top k leaves every confusion-matrix metric unchanged
(:func:`check_top_k_swaps`).

Each check receives its claim's ledger entry: Table 3's rows and the relative tolerance of an
exact comparison in ``claim.params``, the transcription by ``claim.path("printed")`` and the
extracted rows by ``claim.path("extracted")``, the errata of the rows by role (``row1`` for the
first row ...). The ``perturb`` functions serve the mutation test of the ledger.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from rankbook.ledger import claims
from rankbook.ledger.names import display

from . import tables as T

SYMBOL = {True: "•", False: "o"}

#: The settings of a page's rows of Table 3, in the order of the ledger's params.
ROW_KEYS = ("n", "relevant", "sigma", "taus", "baseline")


def read(path) -> pd.DataFrame:
    """The transcribed Table 3 or its extracted rows, from the file a claim's ledger entry
    names (``claim.path("printed")``, ``claim.path("extracted")``)."""
    return pd.read_csv(path, comment="#")


def rows_of(claim: claims.Claim, given: dict) -> tuple[dict, bool]:
    """The rows to check: each setting given, or Table 3's own from the ledger entry; and
    whether they are Table 3's own rows."""
    paper = {key: claim.params[key] for key in ROW_KEYS}
    rows = {key: paper[key] if given.get(key) is None else given[key] for key in ROW_KEYS}
    rows["taus"] = list(rows["taus"])
    same = all(rows[key] == (list(paper[key]) if key == "taus" else paper[key]) for key in ROW_KEYS)
    return rows, same


def confusion_metrics() -> list[str]:
    from rankbook import metrics

    return [m for m in metrics.NAMES if metrics.REGISTRY[m].family == "confusion"]


def _label(m: str) -> str:
    return "CMB metrics" if m == "cmb" else display(m)


def _relevant_positions(cycle: str, n: int, baseline: str, relevant: int) -> list[int]:
    r = T.parse_cycle(cycle, n)
    base = T.parse_cycle(baseline, n)
    inv = np.argsort(r) + 1  # position of each item in r
    return sorted(int(inv[x - 1]) for x in base[:relevant])


def explain_differences(both: pd.DataFrame, columns: Sequence[str], *, n: int, relevant: int,
                        sigma: str, baseline: str, taus: Sequence[str]) -> pd.DataFrame:
    """For every entry that differs: both values, the relevant positions (rank metrics), and
    neighbouring columns whose printed marks are the recomputed ones exchanged."""
    from rankbook import metrics

    rows = []
    for row in both[both["differs"]].itertuples():
        if row.metric == "cmb":
            why = (f"top-{relevant} sets: {sorted(T.parse_cycle(sigma, n)[:relevant].tolist())} "
                   f"and {sorted(T.parse_cycle(row.tau, n)[:relevant].tolist())}; {row.note}")
        else:
            why = (f"m(id, {sigma}) = {row.value_sigma:.4g}, m(id, {row.tau}) = {row.value_tau:.4g}: "
                   + ("equal, so the metric cannot tell the rankings apart" if not row.distinguishes
                      else "different, so the metric does tell them apart"))
            if metrics.REGISTRY[row.metric].needs_k:
                why += (f"; the {relevant} relevant items sit at positions "
                        f"{_relevant_positions(sigma, n, baseline, relevant)} and "
                        f"{_relevant_positions(row.tau, n, baseline, relevant)}")
        rows.append({"tau": row.tau, "metric": _label(row.metric),
                     "published": SYMBOL[bool(row.published)],
                     "recomputed": SYMBOL[bool(row.distinguishes)], "why": why})
    out = pd.DataFrame(rows, columns=["tau", "metric", "published", "recomputed", "why"])
    for tau in taus:
        sub = both[both["tau"] == tau].set_index("metric").reindex(columns)
        for a, b in zip(columns, columns[1:]):
            if (sub.loc[a, "differs"] and sub.loc[b, "differs"]
                    and sub.loc[a, "published"] == sub.loc[b, "distinguishes"]
                    and sub.loc[b, "published"] == sub.loc[a, "distinguishes"]):
                hit = (out["tau"] == tau) & out["metric"].isin([_label(a), _label(b)])
                out.loc[hit, "why"] += (f"; the printed marks of the neighbouring columns "
                                        f"{_label(a)} and {_label(b)} are exactly the recomputed "
                                        "ones exchanged, as if the two cells were swapped")
    return out


def alignments(both: pd.DataFrame, columns: Sequence[str], extracted, *, n: int, relevant: int,
               sigma: str, taus: Sequence[str], baseline: str
               ) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Every choice of the surplus symbols of the extracted rows (the file ``extracted``,
    :func:`tables.table3_alignments`): the full table, a summary per row, and per row
    ``(agree under the last-two rule, choices that make the row agree exactly)``."""
    raw = read(extracted)
    raw = raw[(raw["sigma"] == sigma) & raw["tau"].isin(taus) & (raw["n"] == n)
              & (raw["relevant"] == relevant) & (raw["baseline"] == baseline)]
    if not len(raw):
        return pd.DataFrame(), pd.DataFrame(), {}
    want = [[bool(both[(both["tau"] == t) & (both["metric"] == c)]["distinguishes"].iloc[0])
             for c in columns] for t in raw["tau"]]
    symbols = [s.split() for s in raw["symbols"]]
    al = T.table3_alignments(symbols, columns, want)
    rule = tuple(range(len(columns) + 1, len(symbols[0]) + 1))  # the last ones, as table3.csv
    summary, per_row = [], {}
    for i, t in enumerate(raw["tau"]):
        col = f"row {i + 1}"
        exact = (al[al[col] == len(columns)]
                 .sort_values(["total", "dropped"], ascending=[False, False])["dropped"].tolist())
        under_rule = int(al.loc[al["dropped"] == rule, col].iloc[0])
        per_row[t] = (under_rule, exact)
        summary.append({
            "row": f"{sigma} vs {t}",
            f"agree, symbols {rule[0]} and {rule[1]} dropped": f"{under_rule} of {len(columns)}",
            "best over every choice": f"{int(al[col].max())} of {len(columns)}",
            "choices that make the row agree exactly": (
                f"{len(exact)} of {len(al)}: " + ", ".join(f"{a} and {b}" for a, b in exact[:6])
                + (" ..." if len(exact) > 6 else "")) if exact else "none"})
    return al, pd.DataFrame(summary), per_row


def check_table3(claim: claims.Claim, published: pd.DataFrame | None = None, *,
                 n: int | None = None, relevant: int | None = None, sigma: str | None = None,
                 taus: Sequence[str] | None = None, baseline: str | None = None,
                 cmb: Sequence[str] | None = None) -> claims.Evidence:
    """Every printed mark of Table 3 against an exact recomputation (two values are equal
    within the relative ``params.rtol``), on Table 3's rows or the ones given.

    ``published`` overrides the transcription (``claim.path("printed")``): a table, or a
    function of the recomputed marks (the mutation test moves the marks with it).
    ``evidence.tables`` holds the merged table (``both``), the differences explained
    (``explain``) and the alignments of the extracted rows (``claim.path("extracted")``)."""
    setting, _ = rows_of(claim, dict(n=n, relevant=relevant, sigma=sigma, taus=taus,
                                     baseline=baseline))
    n, relevant, sigma, taus, baseline = (setting[k] for k in ROW_KEYS)
    # a row of Table 3 (its erratum, if any, applies) whatever the other rows chosen
    paper_rows = all(setting[k] == claim.params[k] for k in ("n", "relevant", "sigma", "baseline"))
    printed = read(claim.path("printed"))
    columns = list(printed["metric"].unique())
    others = [c for c in columns if c != "cmb"]
    cmb = confusion_metrics() if cmb is None else list(cmb)
    rows = pd.DataFrame({"n": n, "relevant": relevant, "baseline": baseline, "sigma": sigma,
                         "tau": list(taus)})
    ours = T.indiscernibility_table(rows, others, cmb, rtol=float(claim.params["rtol"]))
    if published is None:
        published = printed
    elif callable(published):  # a function of the recomputed marks (the mutation test)
        published = published(ours)
    both = ours.merge(published[["n", "relevant", "baseline", "sigma", "tau", "metric",
                                 "distinguishes"]].rename(columns={"distinguishes": "published"}),
                      on=["n", "relevant", "baseline", "sigma", "tau", "metric"], how="left")
    both["differs"] = both["published"].notna() & (both["published"] != both["distinguishes"])
    compared = int(both["published"].notna().sum())
    n_diff = int(both["differs"].sum())
    kw = dict(n=n, relevant=relevant, sigma=sigma, baseline=baseline, taus=list(taus))
    explain = explain_differences(both, columns, **kw)
    al, summary, per_row = alignments(both, columns, claim.path("extracted"), **kw)
    tables = {"both": both, "explain": explain, "alignments": al, "alignment_summary": summary,
              "columns": columns}
    if not compared:
        return claim.evidence(comparison="none", published="no printed row",
                              reproduced="recomputed only", tables=tables)
    findings = []
    for tau, grp in explain.groupby("tau", sort=False):
        role = f"row{list(claim.params['taus']).index(tau) + 1}" \
            if tau in claim.params["taus"] else ""
        if not paper_rows or not claim.has_finding(role):
            continue
        under_rule, exact = per_row.get(tau, (None, []))
        entries = claims.plural(len(grp), "entry", "entries")
        under = None
        if exact:
            under = {"the last two symbols dropped": f"{entries} differ: {', '.join(grp['metric'])}",
                     f"symbols {exact[0][0]} and {exact[0][1]} dropped (or {len(exact) - 1} other "
                     "choices)": "the row agrees exactly"}
        findings.append(claim.finding(
            role, cells=[f"{sigma} vs {tau}: {m}" for m in grp["metric"]],
            under=under,
            readings=["the two surplus symbols of each extracted row are its last two"] if exact else [],
            evidence="\n".join(f"{m}: printed {p}, recomputed {r} ({w})" for m, p, r, w in
                               zip(grp["metric"], grp["published"], grp["recomputed"], grp["why"]))))
    return claim.evidence(
        comparison="exact", published=f"{compared} marks",
        reproduced=f"{compared - n_diff} agree, {n_diff} differ", matched=compared - n_diff,
        total=compared, unit="entries",
        detail=(f"recomputed exactly with n = {n}, k = {relevant}; differ: "
                + ("; ".join(f"{sigma} vs {t}: {', '.join(g['metric'])}"
                             for t, g in explain.groupby("tau", sort=False)) or "none")),
        findings=findings, tables=tables)


def check_examples(claim: claims.Claim, *, n: int | None = None, relevant: int | None = None,
                   sigma: str | None = None, taus: Sequence[str] | None = None,
                   baseline: str | None = None) -> claims.Evidence:
    """Table 3 holds, for every metric column except the ledger entry's ``params.exempt``
    (DCG and nDCG), a row whose two rankings the metric cannot tell apart (recomputed exactly).
    Other rows than the paper's compare nothing (the statement is about Table 3's own rows)."""
    setting, paper_rows = rows_of(claim, dict(n=n, relevant=relevant, sigma=sigma, taus=taus,
                                              baseline=baseline))
    n, relevant, sigma, taus, baseline = (setting[k] for k in ROW_KEYS)
    exempt = list(claim.params["exempt"])
    if not paper_rows:
        return claim.evidence(comparison="none", published="examples in Table 3's own rows",
                              reproduced="other rows chosen, so nothing to compare")
    columns = list(read(claim.path("printed"))["metric"].unique())
    rows = pd.DataFrame({"n": n, "relevant": relevant, "baseline": baseline, "sigma": sigma,
                         "tau": list(taus)})
    both = T.indiscernibility_table(rows, [c for c in columns if c != "cmb"], confusion_metrics(),
                                    rtol=float(claim.params["rtol"]))
    always = both.groupby("metric", sort=False)["distinguishes"].all()
    others = [m for m in always.index if m not in exempt]
    missing = [m for m in others if always[m]]
    return claim.evidence(
        comparison="claim",
        published=f"an example for every metric but {', '.join(display(m) for m in exempt)}",
        reproduced=f"{len(others) - len(missing)} of {len(others)} columns have one",
        matched=len(others) - len(missing), total=len(others), unit="columns",
        failures=[f"{_label(m)}: tells the rankings apart on every row" for m in missing] or None,
        detail=(f"exact on the rows {', '.join(f'{sigma} vs {t}' for t in taus)}; columns with no "
                "pair they cannot tell apart: "
                + (", ".join(_label(m) for m in always.index if always[m]) or "none")))


def check_cmb_column(claim: claims.Claim, *, n: int | None = None, relevant: int | None = None,
                     sigma: str | None = None, taus: Sequence[str] | None = None,
                     baseline: str | None = None,
                     cmb: Sequence[str] | None = None) -> claims.Evidence:
    """The confusion-matrix metrics share one column of Table 3 because they behave alike: on
    each row (Table 3's, or the ones given), either all of them tell the two rankings apart or
    none. ``cmb`` replaces the metrics of the column (the mutation test)."""
    setting, _ = rows_of(claim, dict(n=n, relevant=relevant, sigma=sigma, taus=taus,
                                     baseline=baseline))
    n, relevant, sigma, taus, baseline = (setting[k] for k in ROW_KEYS)
    cmb = confusion_metrics() if cmb is None else list(cmb)
    rows = pd.DataFrame({"n": n, "relevant": relevant, "baseline": baseline, "sigma": sigma,
                         "tau": list(taus)})
    t = T.indiscernibility_table(rows, [], cmb, rtol=float(claim.params["rtol"]))
    split = t[(t["metric"] == "cmb") & (t["note"] != "all confusion-matrix metrics agree")]
    return claim.evidence(
        comparison="claim", published="one column for the confusion-matrix metrics",
        reproduced=f"{len(t) - len(split)} of {len(t)} rows: all {len(cmb)} metrics agree",
        matched=len(t) - len(split), total=len(t), unit="rows",
        failures=[f"{sigma} vs {r.tau}: {r.note}" for r in split.itertuples()] or None,
        detail=f"exact values on the rows of Table 3 (n = {n}, k = {relevant}); metrics: "
               + ", ".join(display(m) for m in cmb))


def check_top_k_swaps(claim: claims.Claim, *, ns: Sequence[int] | None = None,
                      cmb: Sequence[str] | None = None, where: str = "inside") -> claims.Evidence:
    """For every confusion-matrix metric, every k and every swap ``(i j)`` with ``i, j <= k``
    (``where="inside"``, the sentence of Section 6.1), ``m(id, id) = m(id, (i j))`` within the
    relative ``params.rtol``, on every length of ``ns`` (the ledger entry's ``params.ns`` when
    not given). ``where="across"`` (one position inside the top k, one outside) is the wrong
    reading the mutation test substitutes."""
    from rankbook import metrics, permutations

    if where not in ("inside", "across"):
        raise ValueError(f"where must be 'inside' or 'across', got {where!r}")
    ns = [int(n) for n in (claim.params["ns"] if ns is None else ns)]
    rtol = float(claim.params["rtol"])
    cmb = confusion_metrics() if cmb is None else list(cmb)
    cases, failures = 0, []
    for n in ns:
        ident = permutations.identity(n)
        for k in range(2, n):
            pairs = [(i, j) for i in range(1, n + 1) for j in range(i + 1, n + 1)
                     if (j <= k if where == "inside" else i <= k < j)]
            swaps = np.stack([permutations.transposition(n, i, j) for i, j in pairs])
            base = metrics.evaluate_many(cmb, ident, ident, k=k)
            after = metrics.evaluate_many(cmb, np.broadcast_to(ident, swaps.shape), swaps, k=k)
            for m in cmb:
                a, b = np.asarray(after[m], float), float(base[m])
                same = np.isclose(a, b, rtol=rtol, atol=0) | (np.isnan(a) & np.isnan(b))
                cases += len(pairs)
                failures += [f"{display(m)}, n = {n}, k = {k}, ({i} {j})"
                             for (i, j), ok in zip(pairs, same) if not ok]
    return claim.evidence(
        comparison="claim",
        published="a swap inside the top k leaves every confusion-matrix metric unchanged",
        reproduced=f"{cases - len(failures)} of {cases} cases unchanged", matched=cases - len(failures),
        total=cases, unit="cases", failures=failures[:20] or None,
        detail=f"exact on n = {', '.join(map(str, ns))}, every k from 2 to n - 1, every swap of two "
               f"positions {'inside the top k' if where == 'inside' else 'across the cut-off'}, "
               f"{len(cmb)} metrics")


def _marks_from(recomputed: pd.DataFrame, flip: bool) -> pd.DataFrame:
    marks = recomputed["distinguishes"].astype(bool)
    return recomputed.assign(distinguishes=~marks if flip else marks)


def opposite_marks(claim: claims.Claim, **_) -> dict:
    """The mutation test's fault: every printed mark the opposite of the recomputed one."""
    return {"published": lambda ours: _marks_from(ours, True)}


def recomputed_marks(claim: claims.Claim, **_) -> dict:
    """The mutation test's fault: the printed marks replaced by the recomputed ones."""
    return {"published": lambda ours: _marks_from(ours, False)}


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
def limits(values: dict, root, timeout: float) -> None:
    """sigma, every tau and the baseline are permutations of S_n in cycle notation."""
    from rankbook.papers.paper_a import tables as paper_a_tables

    n = values["n"]
    for key, texts in (("sigma", [values["sigma"]]), ("taus", values["taus"]),
                       ("baseline", [values["baseline"]])):
        for text in texts:
            try:
                paper_a_tables.parse_cycle(text, n)
            except ValueError as exc:
                raise ValueError(f"{key}: {exc} (n = {n})") from None
