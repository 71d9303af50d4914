"""Paper A, Proposition 6.2 and Table 2's rob II row: which metrics are right-invariant (page
``right_invariance``).

Definition 7 of :cite:`paperA` calls a metric Type II robust when composing both rankings on
the right with one permutation leaves it unchanged. Proposition 6.2 names seven metrics as the
only ones with the property, and Table 2 has a row for it. This module checks every metric
exhaustively on S_n, on both sides (:func:`invariance_table`), under the three readings of the
formulas that decide six verdicts (:func:`readings_table`), and grades the proposition
(:func:`check_proposition_6_2`) and the row (:func:`check_rob2_row`). Each check receives its
claim's ledger entry: the proposition's list of metrics and the size of S_n in its params, the
printed row through ``claim.path("printed")``, its errata through ``claim.finding(role)``.
"""

from __future__ import annotations

import math

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import pandas as pd

from rankbook.ledger import claims
from rankbook.ledger.names import display

from . import tables as T
from rankbook.ledger.limits import MEMORY_BUDGET, within_memory, within_time

#: The readings of :data:`tables.ROB2_READINGS`, in reader's words (no internal spellings).
READINGS = {
    "A": "A: DCG and the rank metrics through ν⁻¹∘σ; NDPM on item positions (Yao)",
    "U": "U: as A, with NDPM = (1 − τ)/2 on the arrays, like Kendall's τ",
    "B": "B: DCG and the rank metrics through ν∘σ⁻¹; NDPM as Appendix C.2 prints it",
}

#: The metrics whose verdict depends on the reading.
READING_DEPENDENT = ("ndpm", "dcg", "ndcg", "mrr", "gmr", "mean_rank")


def printed_row(path: Path) -> pd.Series:
    """Table 2's rob II row as transcribed in the CSV ``path`` (the ``printed`` data of the
    row's ledger entry): metric -> printed symbol (bool)."""
    pub = pd.read_csv(path, comment="#")
    return pub[pub["property"] == "type_ii_robustness"].set_index("metric")["published"].astype(bool)


def _short(ev) -> str:
    if ev is None:
        return ""
    first, second = [k for k, _ in ev.values]
    return (f"σ = {ev.ranking('sigma').tolist()}, ν = {ev.ranking('nu').tolist()}, "
            f"{ev.what.split(' with ')[1].split(' changes')[0]}: "
            f"{ev.value(first):.4g} → {ev.value(second):.4g}")


def invariance_table(names: Sequence[str] | None = None, n: int = 6, *, extra_k: int = 3,
                     n_random: Sequence[int] = (), n_samples: int = 2000,
                     seed: int = 0, listed: Sequence[str] | None = None,
                     printed: pd.Series | None = None) -> pd.DataFrame:
    """Right and left invariance of every metric, exhaustive on S_n (and at a second cut-off
    ``extra_k`` for the metrics with one), and by a seeded random search at the sizes of
    ``n_random``, with a counterexample for each failure. ``listed`` (Proposition 6.2's
    metrics) and ``printed`` (:func:`printed_row`) add the paper's two answers as columns.

    Examples
    --------
    >>> t = invariance_table(["kendall_tau", "recall"], 4, extra_k=2)
    >>> t[["metric", "right, S_4", "left, S_4"]].values.tolist()
    [['kendall_tau', True, False], ['recall', False, True]]
    """
    from rankbook import metrics, properties

    names = list(metrics.NAMES) if names is None else list(names)
    if n <= properties.MATRIX_MAX_N:
        properties.precompute(names, n)
    rows = []
    for m in names:
        r = properties.type_ii_robustness(m, n)
        row = {"metric": m, "family": metrics.REGISTRY[m].family}
        if listed is not None:
            row["Prop. 6.2 lists it"] = m in set(listed)
        if printed is not None:
            row["Table 2 rob II"] = bool(printed[m])
        row.update({f"right, S_{n}": r.holds, f"left, S_{n}": r.left_invariant})
        if metrics.REGISTRY[m].needs_k:
            rk = properties.type_ii_robustness(m, n, k=extra_k)
            row[f"right, S_{n}, k={extra_k}"] = rk.holds
            row[f"left, S_{n}, k={extra_k}"] = rk.left_invariant
        for nn in n_random:
            rr = properties.type_ii_robustness(m, nn, n_samples=n_samples, seed=seed)
            row[f"right, S_{nn} (random)"] = rr.holds
            row[f"left, S_{nn} (random)"] = rr.left_invariant
        row["counterexample (right)"] = _short(r.evidence)
        row["counterexample (left)"] = _short(r.left_evidence)
        row["method"] = r.method_detail + (f", k = {r.k}" if r.k is not None else "")
        rows.append(row)
    return pd.DataFrame(rows)


def consistent_over_sizes(table: pd.DataFrame, n: int) -> bool:
    """Whether every size and cut-off gives the verdicts of the exhaustive check on S_n."""
    ok = True
    for side in ("right", "left"):
        ref = table[f"{side}, S_{n}"]
        for c in [c for c in table.columns if c.startswith(side)]:
            ok &= bool((table[c].isna() | (table[c] == ref)).all())
    return ok


@dataclass
class Readings:
    """Right-invariant metrics under each reading, and the per-reading table."""

    right_by: dict
    table: pd.DataFrame


def readings_table(table: pd.DataFrame, n: int, printed: pd.Series | None = None) -> Readings:
    """The reading-dependent metrics under readings A, U and B (:func:`tables.rob2_readings`),
    and the set of right-invariant metrics under each; ``printed`` (:func:`printed_row`) adds
    Table 2's symbols as a column."""
    under = T.rob2_readings(n)
    wide = under.pivot(index="metric", columns="reading", values="right").reindex(list(READING_DEPENDENT))
    right = set(table.loc[table[f"right, S_{n}"], "metric"])
    shown = pd.DataFrame({"metric": [display(m) for m in wide.index],
                          **({"Table 2 rob II": [bool(printed[m]) for m in wide.index]}
                             if printed is not None else {}),
                          **{f"right-invariant, reading {r}": wide[r].to_numpy() for r in READINGS}})
    right_by = {r: (right - set(wide.index)) | {m for m in wide.index if wide.loc[m, r]}
                for r in READINGS}
    return Readings(right_by, shown)


def _size(table: pd.DataFrame) -> int:
    return int(next(c for c in table.columns if c.startswith("right, S_")).split("S_")[1].split(",")[0])


def _inputs(claim, table, n, readings):
    if table is None:
        table = invariance_table(n=int(claim.params["n"] if n is None else n))
    if readings is None:
        readings = readings_table(table, _size(table))
    return table, readings


def check_proposition_6_2(claim: claims.Claim, *, table: pd.DataFrame | None = None,
                          n: int | None = None, readings: Readings | None = None) -> claims.Evidence:
    """Proposition 6.2: the metrics right-invariant on S_n (reading A) are exactly the
    proposition's list (the claim's ``listed``).

    ``table`` is :func:`invariance_table` (computed on S_n, ``n`` default the claim's, when not
    given). Each metric is a case; the finding ``unlisted`` names the metrics the list gets
    wrong."""
    table, readings = _inputs(claim, table, n, readings)
    n = _size(table)
    names = list(table["metric"])
    listed = set(claim.params["listed"])
    right = readings.right_by["A"]
    missing = [m for m in names if m in right and m not in listed]
    extra = [m for m in names if m in listed and m not in right]
    agree = {r: len(names) - len(readings.right_by[r] ^ listed) for r in READINGS}
    ev = claim.evidence(
        comparison="claim", published=f"{len(listed)} metrics, the only ones",
        reproduced=f"{len(right)} metrics right-invariant", matched=agree["A"], total=len(names),
        unit="metrics", reading=READINGS["A"],
        alternatives={READINGS[r]: agree[r] for r in ("U", "B")},
        failures=([f"{display(m)} (invariant, not listed)" for m in missing]
                  + [f"{display(m)} (listed, not invariant)" for m in extra]) or None,
        detail=f"exhaustive on S_{n}: right-invariant are " + ", ".join(display(m) for m in names if m in right))
    if missing or extra:
        only_b = [m for m in names if m in readings.right_by["B"] and m not in listed and m not in missing]
        ev.findings.append(claim.finding("unlisted", cells=[display(m) for m in missing + extra],
                                         evidence="\n".join([
            f"exhaustive on S_{n}, reading A: right-invariant but not listed: "
            + (", ".join(display(m) for m in missing) or "none") + "; listed but not right-invariant: "
            + (", ".join(display(m) for m in extra) or "none"),
            "SMAPE is a mean over positions of 2|σ(i) − ν(i)|/(σ(i) + ν(i)), which a common "
            "reordering of the positions leaves unchanged" if "smape" in missing else "",
            "under reading B the list also misses " + (", ".join(display(m) for m in only_b) or "nothing")
        ]).strip()))
    return ev


def check_rob2_row(claim: claims.Claim, *, table: pd.DataFrame | None = None, n: int | None = None,
                   readings: Readings | None = None,
                   published: pd.Series | None = None) -> claims.Evidence:
    """Table 2's rob II row (the claim's ``printed`` data) against the exhaustive check on S_n
    (reading A), with the counts under readings U and B beside it. ``published`` replaces the
    printed row (the mutation test). The findings ``proposition`` (the row and Proposition 6.2,
    the claim's ``proposition``, contradict each other) and ``symbols`` (the symbols wrong under
    reading A) are reported for the printed row only. The evidence's tables compare both with
    the check (``right_invariance_vs_paper``) and count under each reading
    (``rob2_counts_by_reading``)."""
    table, readings = _inputs(claim, table, n, readings)
    n = _size(table)
    names = list(table["metric"])
    right = readings.right_by["A"]
    printed = printed_row(claim.path("printed")).reindex(names)
    row = printed if published is None else published.reindex(names).astype(bool)
    wrong = {r: [m for m in names if bool(row[m]) != (m in readings.right_by[r])] for r in READINGS}
    prop = set(claim.params["proposition"])
    ev = claim.evidence(
        comparison="exact", published=f"{int(row.sum())} ✓ of {len(names)}",
        reproduced=f"{len(right)} ✓ of {len(names)}", matched=len(names) - len(wrong["A"]),
        total=len(names), unit="symbols", reading=READINGS["A"],
        alternatives={READINGS[r]: len(names) - len(wrong[r]) for r in ("U", "B")},
        detail=f"symbols that disagree with the exhaustive check on S_{n}: "
               + (", ".join(display(m) for m in wrong["A"]) or "none"))
    inconsistent = [m for m in names if bool(row[m]) != (m in prop)]
    if published is None and inconsistent:
        table_right = [m for m in inconsistent if bool(row[m]) == (m in right)]
        prop_right = [m for m in inconsistent if (m in prop) == (m in right)]
        ev.findings.append(claim.finding("proposition", cells=[display(m) for m in inconsistent],
                                         evidence="\n".join([
            f"exhaustive check on S_{n}, reading A: the table is right for "
            + (", ".join(display(m) for m in table_right) or "none") + ", the proposition for "
            + (", ".join(display(m) for m in prop_right) or "none"),
            f"reading B: the table is wrong on {len(wrong['B'])} metrics, the proposition on "
            f"{len(readings.right_by['B'] ^ prop)}"])))
    if published is None and wrong["A"]:
        ev.findings.append(claim.finding(
            "symbols", cells=[display(m) for m in wrong["A"]],
            evidence=f"exhaustive check on S_{n}, right invariance (Definition 7)\n"
                     + "\n".join(f"{READINGS[r]}: {len(wrong[r])} symbols wrong"
                                 + (": " + ", ".join(display(m) for m in wrong[r]) if wrong[r] else "")
                                 for r in READINGS),
            readings=[READINGS["A"]],
            under={READINGS[r]: f"{len(wrong[r])} symbols wrong" for r in ("A", "B")}))
    ev.add_table("right_invariance_vs_paper", comparison_table(table, readings, prop, printed),
                 title="The exhaustive verdicts against Proposition 6.2 and the rob II row of Table 2")
    ev.add_table("rob2_counts_by_reading", counts_by_reading(table, readings, prop, printed),
                 title="The counts under each reading: right-invariant metrics, agreement with "
                       "Table 2's rob II row and with Proposition 6.2")
    return ev


def comparison_table(table: pd.DataFrame, readings: Readings, listed, printed: pd.Series) -> pd.DataFrame:
    """The exhaustive verdicts (reading A) against Proposition 6.2 (``listed``) and the rob II
    row (``printed``)."""
    names = list(table["metric"])
    right = readings.right_by["A"]
    prop = set(listed)
    rob2 = printed.reindex(names)
    row_wrong = [m for m in names if bool(rob2[m]) != (m in right)]
    return pd.DataFrame([
        {"source": "Proposition 6.2", "metrics it calls right-invariant": len(prop),
         f"agree with the check (of {len(names)})": len(names) - len(prop ^ right),
         "right-invariant but not listed": ", ".join(display(m) for m in names if m in right - prop),
         "listed but not right-invariant": ", ".join(display(m) for m in names if m in prop - right)},
        {"source": "Table 2, rob II row", "metrics it calls right-invariant": int(rob2.sum()),
         f"agree with the check (of {len(names)})": len(names) - len(row_wrong),
         "right-invariant but not listed": ", ".join(display(m) for m in row_wrong if m in right),
         "listed but not right-invariant": ", ".join(display(m) for m in row_wrong if m not in right)}])


def counts_by_reading(table: pd.DataFrame, readings: Readings, listed, printed: pd.Series) -> pd.DataFrame:
    """Per reading: the right-invariant metrics, the rob II symbols that agree and the metrics
    Proposition 6.2 (``listed``) is right about."""
    names = list(table["metric"])
    rob2 = printed.reindex(names)
    prop = set(listed)
    return pd.DataFrame([
        {"reading": READINGS[r], "right-invariant metrics": len(s),
         f"rob II symbols that agree (of {len(names)})": sum(bool(rob2[m]) == (m in s) for m in names),
         f"Proposition 6.2 right about (of {len(names)})": len(names) - len(s ^ prop)}
        for r, s in readings.right_by.items()])


def _recomputed(claim: claims.Claim, n: int | None) -> pd.Series:
    table, readings = _inputs(claim, None, n, None)
    return pd.Series({m: m in readings.right_by["A"] for m in table["metric"]})


def recomputed_row(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the printed row replaced by the recomputed one."""
    return {"published": _recomputed(claim, smoke.get("n"))}


def negated_row(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the printed row replaced by the negation of the recomputed one."""
    return {"published": ~_recomputed(claim, smoke.get("n"))}


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
def limits(values: dict, root, timeout: float) -> None:
    """the random search (n_samples triples of every size in n_random, for 33 metrics and both
    sides) fits in memory and in the time limit."""
    n_samples = values["n_samples"]
    sizes = list(values["n_random"])
    if not sizes:
        return
    big = max(sizes)
    # sigma, nu, tau, the two compositions, and the metrics' own work arrays (sorts, ranks)
    within_memory(10 * n_samples * big * 8,
                   f"the random search with n_samples = {n_samples} at n = {big}",
                   f"keep n_samples x max(n_random) below {MEMORY_BUDGET // 80:,}")
    # measured: about 60 ns per element and metric on one core (n log n metrics), times 3
    seconds = sum(3 * 60e-9 * 33 * 2 * n_samples * n * max(1.0, math.log2(n)) for n in sizes)
    within_time(seconds, timeout,
                 f"the random search of {n_samples} triples at n = {', '.join(map(str, sizes))}",
                 "lower n_samples or the sizes in n_random")
