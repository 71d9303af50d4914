"""Paper A, Proposition 6.2 and Table 2's rob II row: which metrics are right-invariant (page
``right_invariance``).

Definition 7 of :cite:`paperA` calls a metric Type II robust when composing both rankings on
the right with one permutation leaves it unchanged. Proposition 6.2 names seven metrics as the
only ones with the property, and Table 2 has a row for it. This module checks every metric
exhaustively on S_n, on both sides (:func:`invariance_table`), under the three readings of the
formulas that decide six verdicts (:func:`readings_table`), and grades the proposition
(:func:`check_proposition_6_2`, claim ``A-P6.2``) and the row (:func:`check_rob2_row`,
``A-T2-rob2``).
"""

from __future__ import annotations

import math

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

from rankbook.ledger import claims
from rankbook.ledger.names import display

from . import tables as T
from rankbook.ledger.limits import MEMORY_BUDGET, within_memory, within_time

_ROOT = Path(__file__).resolve().parents[4]

#: Proposition 6.2 as printed: the metrics it names as the only right-invariant ones.
PROPOSITION_6_2 = ("mse", "rmse", "mae", "mape", "r2", "kendall_tau", "spearman_rho")

#: The readings of :data:`tables.ROB2_READINGS`, in reader's words (no internal spellings).
READINGS = {
    "A": "A: DCG and the rank metrics through ν⁻¹∘σ; NDPM on item positions (Yao)",
    "U": "U: as A, with NDPM = (1 − τ)/2 on the arrays, like Kendall's τ",
    "B": "B: DCG and the rank metrics through ν∘σ⁻¹; NDPM as Appendix C.2 prints it",
}

#: The metrics whose verdict depends on the reading.
READING_DEPENDENT = ("ndpm", "dcg", "ndcg", "mrr", "gmr", "mean_rank")


def printed_row(root: Path | None = None) -> pd.Series:
    """Table 2's rob II row as transcribed: metric -> printed symbol (bool)."""
    pub = pd.read_csv((root or _ROOT) / "data" / "published" / "paper_a" / "table2_properties.csv",
                      comment="#")
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
                     seed: int = 0) -> pd.DataFrame:
    """Right and left invariance of every metric, exhaustive on S_n (and at a second cut-off
    ``extra_k`` for the metrics with one), and by a seeded random search at the sizes of
    ``n_random``, with a counterexample for each failure.

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
    rob2 = printed_row()
    rows = []
    for m in names:
        r = properties.type_ii_robustness(m, n)
        row = {"metric": m, "family": metrics.REGISTRY[m].family,
               "Prop. 6.2 lists it": m in PROPOSITION_6_2, "Table 2 rob II": bool(rob2[m]),
               f"right, S_{n}": r.holds, f"left, S_{n}": r.left_invariant}
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


def readings_table(table: pd.DataFrame, n: int) -> Readings:
    """The reading-dependent metrics under readings A, U and B (:func:`tables.rob2_readings`),
    and the set of right-invariant metrics under each."""
    under = T.rob2_readings(n)
    wide = under.pivot(index="metric", columns="reading", values="right").reindex(list(READING_DEPENDENT))
    right = set(table.loc[table[f"right, S_{n}"], "metric"])
    rob2 = printed_row()
    shown = pd.DataFrame({"metric": [display(m) for m in wide.index],
                          "Table 2 rob II": [bool(rob2[m]) for m in wide.index],
                          **{f"right-invariant, reading {r}": wide[r].to_numpy() for r in READINGS}})
    right_by = {r: (right - set(wide.index)) | {m for m in wide.index if wide.loc[m, r]}
                for r in READINGS}
    return Readings(right_by, shown)


def _inputs(table, n, readings):
    if table is None:
        table = invariance_table(n=n)
    if readings is None:
        readings = readings_table(table, n)
    return table, readings


def check_proposition_6_2(table: pd.DataFrame | None = None, *, n: int = 4,
                          readings: Readings | None = None,
                          listed: Sequence[str] = PROPOSITION_6_2) -> claims.Evidence:
    """Claim ``A-P6.2``: the metrics right-invariant on S_n (reading A) are exactly ``listed``.

    ``table`` is :func:`invariance_table` (computed on S_n when not given); ``listed`` is the
    proposition's list, which the mutation test replaces."""
    table, readings = _inputs(table, n, readings)
    n = int(next(c for c in table.columns if c.startswith("right, S_")).split("S_")[1].split(",")[0])
    names = list(table["metric"])
    listed = set(listed)
    right = readings.right_by["A"]
    missing = [m for m in names if m in right and m not in listed]
    extra = [m for m in names if m in listed and m not in right]
    agree = {r: len(names) - len(readings.right_by[r] ^ listed) for r in READINGS}
    findings = []
    if missing or extra:
        only_b = [m for m in names if m in readings.right_by["B"] and m not in listed and m not in missing]
        findings.append(claims.Finding(id="A-E30", cells=[display(m) for m in missing + extra],
                                       evidence="\n".join([
            f"exhaustive on S_{n}, reading A: right-invariant but not listed: "
            + (", ".join(display(m) for m in missing) or "none") + "; listed but not right-invariant: "
            + (", ".join(display(m) for m in extra) or "none"),
            "SMAPE is a mean over positions of 2|σ(i) − ν(i)|/(σ(i) + ν(i)), which a common "
            "reordering of the positions leaves unchanged" if "smape" in missing else "",
            "under reading B the list also misses " + (", ".join(display(m) for m in only_b) or "nothing")
        ]).strip()))
    return claims.Evidence(
        claim="A-P6.2", comparison="claim", published=f"{len(listed)} metrics, the only ones",
        reproduced=f"{len(right)} metrics right-invariant", matched=agree["A"], total=len(names),
        unit="metrics", reading=READINGS["A"],
        alternatives={READINGS[r]: agree[r] for r in ("U", "B")},
        failures=([f"{display(m)} (invariant, not listed)" for m in missing]
                  + [f"{display(m)} (listed, not invariant)" for m in extra]) or None,
        detail=f"exhaustive on S_{n}: right-invariant are " + ", ".join(display(m) for m in names if m in right),
        findings=findings)


def check_rob2_row(table: pd.DataFrame | None = None, *, n: int = 4, readings: Readings | None = None,
                   published: pd.Series | Callable | None = None) -> claims.Evidence:
    """Claim ``A-T2-rob2``: Table 2's rob II row against the exhaustive check (reading A), with
    the counts under readings U and B beside it. ``published`` replaces the printed row (a
    Series, or a function of the recomputed one: the mutation test)."""
    table, readings = _inputs(table, n, readings)
    n = int(next(c for c in table.columns if c.startswith("right, S_")).split("S_")[1].split(",")[0])
    names = list(table["metric"])
    right = readings.right_by["A"]
    rec = pd.Series({m: m in right for m in names})
    row = printed_row().reindex(names)
    if published is not None:
        row = (published(rec) if callable(published) else published).reindex(names).astype(bool)
    wrong = {r: [m for m in names if bool(row[m]) != (m in readings.right_by[r])] for r in READINGS}
    prop = set(PROPOSITION_6_2)
    findings = []
    inconsistent = [m for m in names if bool(row[m]) != (m in prop)]
    if published is None and inconsistent:
        table_right = [m for m in inconsistent if bool(row[m]) == (m in right)]
        prop_right = [m for m in inconsistent if (m in prop) == (m in right)]
        findings.append(claims.Finding(id="A-E31", cells=[display(m) for m in inconsistent], evidence="\n".join([
            f"exhaustive check on S_{n}, reading A: the table is right for "
            + (", ".join(display(m) for m in table_right) or "none") + ", the proposition for "
            + (", ".join(display(m) for m in prop_right) or "none"),
            f"reading B: the table is wrong on {len(wrong['B'])} metrics, the proposition on "
            f"{len(readings.right_by['B'] ^ prop)}"])))
    if published is None and wrong["A"]:
        findings.append(claims.Finding(
            id="A-E32", cells=[display(m) for m in wrong["A"]],
            evidence=f"exhaustive check on S_{n}, right invariance (Definition 7)\n"
                     + "\n".join(f"{READINGS[r]}: {len(wrong[r])} symbols wrong"
                                 + (": " + ", ".join(display(m) for m in wrong[r]) if wrong[r] else "")
                                 for r in READINGS),
            readings=[READINGS["A"]],
            under={READINGS[r]: f"{len(wrong[r])} symbols wrong" for r in ("A", "B")}))
    full = [r for r in ("U", "B") if not wrong[r]]
    edge = (f"the verdict depends on the reading: under reading {' and '.join(full)} "
            "every printed symbol agrees" if wrong["A"] and full else "")
    return claims.Evidence(
        claim="A-T2-rob2", borderline=edge, comparison="exact", published=f"{int(row.sum())} ✓ of {len(names)}",
        reproduced=f"{len(right)} ✓ of {len(names)}", matched=len(names) - len(wrong["A"]),
        total=len(names), unit="symbols", reading=READINGS["A"],
        alternatives={READINGS[r]: len(names) - len(wrong[r]) for r in ("U", "B")},
        detail=f"symbols that disagree with the exhaustive check on S_{n}: "
               + (", ".join(display(m) for m in wrong["A"]) or "none"),
        findings=findings)


def comparison_table(table: pd.DataFrame, readings: Readings) -> pd.DataFrame:
    """The exhaustive verdicts (reading A) against Proposition 6.2 and the rob II row."""
    names = list(table["metric"])
    right = readings.right_by["A"]
    prop = set(PROPOSITION_6_2)
    rob2 = printed_row().reindex(names)
    row_wrong = [m for m in names if bool(rob2[m]) != (m in right)]
    return pd.DataFrame([
        {"source": "Proposition 6.2", "metrics it calls right-invariant": len(prop),
         "agree with the check (of 33)": len(names) - len(prop ^ right),
         "right-invariant but not listed": ", ".join(display(m) for m in names if m in right - prop),
         "listed but not right-invariant": ", ".join(display(m) for m in names if m in prop - right)},
        {"source": "Table 2, rob II row", "metrics it calls right-invariant": int(rob2.sum()),
         "agree with the check (of 33)": len(names) - len(row_wrong),
         "right-invariant but not listed": ", ".join(display(m) for m in row_wrong if m in right),
         "listed but not right-invariant": ", ".join(display(m) for m in row_wrong if m not in right)}])


def counts_by_reading(table: pd.DataFrame, readings: Readings) -> pd.DataFrame:
    names = list(table["metric"])
    rob2 = printed_row().reindex(names)
    prop = set(PROPOSITION_6_2)
    return pd.DataFrame([
        {"reading": READINGS[r], "right-invariant metrics": len(s),
         "rob II symbols that agree (of 33)": sum(bool(rob2[m]) == (m in s) for m in names),
         "Proposition 6.2 right about (of 33)": len(names) - len(s ^ prop)}
        for r, s in readings.right_by.items()])


def _same(rec: pd.Series) -> pd.Series:
    return rec


def _flip(rec: pd.Series) -> pd.Series:
    return ~rec


CHECKS = {
    "A-P6.2": claims.Check(
        check_proposition_6_2, smoke={"n": 4},
        mutants={"the list replaced by the metrics the check finds invariant":
                 {"listed": ("mse", "rmse", "mae", "mape", "smape", "r2", "kendall_tau",
                             "spearman_rho")}}),
    "A-T2-rob2": claims.Check(
        check_rob2_row, smoke={"n": 4},
        mutants={"every printed symbol flipped": {"published": _flip},
                 "the printed row replaced by the recomputed one": {"published": _same}}),
}


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
