"""Paper A on linear equivalence (Definition 3, Sections 6 and 6.6, Proposition 7.1): the
page ``linear_equivalence``. Each check receives the ledger entry of the claim it grades (its
sizes, cut-offs and maps in ``claim.params``, its errata through ``claim.finding(role)``):

* :func:`check_prop_7_1`: the four statements of Proposition 7.1, exhaustively on :math:`S_n`
  for the 33 metrics and given linear maps (:func:`rankbook.equivalence.proposition_7_1_cases`),
  each under the paper's readings (findings ``statements`` and ``notions``);
* :func:`check_equivalence_relation`: linear equivalence is reflexive, symmetric and transitive,
  true by definition for an exact test; the paper's converse of transitivity is the finding
  ``converse``;
* :func:`check_distance_equivalence`: Section 6.6's "a metric without the identity of
  indiscernibles or symmetry is not even linearly equivalent to a distance" (finding
  ``distance``);
* :func:`check_no_distance`: the introduction's "none of the metrics is a distance";
* :func:`check_kendall_distance`: Section 6's answer to Hassanzadeh and Milenkovic, Kendall's τ
  lacks the identity of indiscernibles and is no distance;
* :func:`check_eq7_consistency`: Section 6.6's "eq. 7 still preserves the consistency
  definition" (finding ``decreasing``).

The ``perturb`` functions are the faults of the mutation test (``[claims.test]`` of the ledger).
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from rankbook import equivalence as eq
from rankbook import metrics, permutations, properties
from rankbook.ledger import claims
from rankbook.ledger.names import display, evidence_text
from rankbook.papers.paper_a.injectivity import identity_notions

#: How the page words each statement of Proposition 7.1 (Markdown maths).
PAPER_WORDS = {
    "maximal_agreement": r"(1) maximal agreement of $m$ passes to $|\tilde m|$",
    "symmetry": r"(1) symmetry of $m$ passes to $\tilde m$",
    "identity": r"(1) the identity of indiscernibles of $m$ passes to $\tilde m$",
    "consistency": r"(2) $\tilde m$ and $m$ are consistent",
}
SHORT = {"maximal_agreement": "maximal agreement of $|\\tilde m|$", "symmetry": "symmetry",
         "identity": "the identity of indiscernibles", "consistency": "consistency"}
#: The other readings, as the verdict names them.
ALT_NAMES = {
    ("identity", "unique maximum"): "identity as a unique maximum (the proof)",
    ("identity", "Definition 11"): "identity as a zero set (Definition 11)",
    ("consistency", "distinct"): "consistency over distinct triples",
    ("consistency", "up to sign"): "consistency up to sign (Figure 1)",
}
_SYMBOL = {"kendall_tau": r"\tau", "spearman_rho": r"\rho", "r2": r"R^2"}


def symbol(metric: str) -> str:
    r"""The metric as a maths symbol (``\tau``, ``\mathrm{MSE}``)."""
    return _SYMBOL.get(metric, r"\mathrm{" + display(metric).replace(" ", r"\ ") + "}")


def tex(fmap, metric: str) -> str:
    """A linear map applied to a metric, as maths."""
    return eq.LinearMap.parse(fmap.replace("m(id, id)", "m0")).tex(symbol(metric)) \
        if isinstance(fmap, str) else fmap.tex(symbol(metric))


def where(row) -> str:
    k = "" if pd.isna(row["k"]) else f", $k = {int(row['k'])}$"
    return f"{display(row['metric'])} on $S_{{{row['n']}}}${k}"


def pretty(text: str, metric: str) -> str:
    """An evidence string as the page shows it: Greek letters, the metric's own label."""
    text = re.sub(r"\bsigma\b", "σ", re.sub(r"\bnu\b", "ν", re.sub(r"\bmu\b", "μ", text)))
    text = text.replace("m_max", "mₘₐₓ")
    return re.sub(rf"(?<![A-Za-z_]){metric}(?![A-Za-z_])", display(metric), text)


def first_case(cases: pd.DataFrame, statement: str, reading: str | None = None,
               prefer=("kendall_tau", "−m + 0.5")):
    """The counterexample the page shows: Kendall's τ under −m + 0.5 when it fails, else
    another failing case of Kendall's τ, else the first failing case (None when none fails)."""
    g = cases[(cases["statement"] == statement)
              & (cases["reading"] == (reading or eq.PRIMARY[statement]))
              & (cases["holds"] == False)]  # noqa: E712 (object column: None, True, False)
    for sub in (g[(g["metric"] == prefer[0]) & (g["map"] == prefer[1])], g[g["metric"] == prefer[0]], g):
        if len(sub):
            return sub.iloc[0]
    return None


def example(cases: pd.DataFrame, statement: str, reading: str | None = None) -> str:
    r = first_case(cases, statement, reading)
    return "" if r is None else (f"{where(r)}, $\\tilde m = {tex(r['map'], r['metric'])}$: "
                                 f"{pretty(r['evidence'], r['metric'])}")


def _failed(cases, statement, reading):
    return cases[(cases["statement"] == statement) & (cases["reading"] == reading)
                 & (cases["holds"] == False)]  # noqa: E712


def _by_map(cases, fmaps) -> pd.DataFrame:
    ma = cases[(cases["statement"] == "maximal_agreement") & cases["premise"]]
    rows = []
    for f in fmaps:
        g = ma[ma["map"] == str(f)]
        stated, proved = g[g["reading"] == "as stated"], g[g["reading"] == "as proved"]
        bad = stated[stated["holds"] == False]  # noqa: E712
        rows.append({"map": str(f), "direction": "increasing" if f.increasing else "decreasing",
                     "cases": len(stated), "|m̃| loses it": len(bad),
                     "sign(a)·m̃ loses it": int((proved["holds"] == False).sum()),  # noqa: E712
                     "metrics where |m̃| loses it": ", ".join(display(m) for m in dict.fromkeys(bad["metric"]))})
    return pd.DataFrame(rows)


def _consistency_by_map(cases, fmaps) -> pd.DataFrame:
    co = cases[cases["statement"] == "consistency"]
    rows = []
    for f in fmaps:
        g = co[co["map"] == str(f)]
        row = {"map": str(f), "direction": "increasing" if f.increasing else "decreasing",
               "cases": int((g["reading"] == "as printed").sum())}
        for reading, col in (("as printed", "inconsistent, Definition 1 as printed"),
                             ("distinct", "inconsistent, three distinct rankings"),
                             ("up to sign", "inconsistent, up to the sign flip")):
            row[col] = int((g[g["reading"] == reading]["holds"] == False).sum())  # noqa: E712
        rows.append(row)
    return pd.DataFrame(rows)


def _consistency_notes(cases) -> str:
    co = cases[cases["statement"] == "consistency"]
    printed = co[co["reading"] == "as printed"]
    down_ok = printed[(~printed["increasing"]) & (printed["holds"] == True)]  # noqa: E712
    distinct_ok = co[(co["reading"] == "distinct") & (~co["increasing"]) & (co["holds"] == True)]  # noqa: E712
    parts = []
    w = first_case(cases, "consistency")
    if w is not None:
        parts.append(f"For {where(w)} and $\\tilde m = {tex(w['map'], w['metric'])}$, a witness "
                     f"of eq. 1 is {pretty(w['evidence'], w['metric'])}.")
    if len(down_ok):
        parts.append("The decreasing cases that stay consistent are metrics that take a single value "
                     "where they are defined on the row of the identity: "
                     + ", ".join(sorted({f"{display(m)} ($k = {int(k)}$)" if pd.notna(k) else display(m)
                                         for m, k in zip(down_ok["metric"], down_ok["k"])})) + ".")
    key = ["metric", "n", "k", "map"]
    constant = set(map(tuple, down_ok[key].astype(str).to_numpy()))
    no_ties = distinct_ok[[tuple(r) not in constant for r in distinct_ok[key].astype(str).to_numpy()]]
    if len(no_ties):
        parts.append("With three distinct rankings, the decreasing maps also leave these metrics "
                     "consistent, because they have no ties at all on the row of the identity: "
                     + ", ".join(dict.fromkeys(display(m) for m in no_ties["metric"])) + ".")
    return " ".join(parts)


def _kendall_figure_data(fmaps, n0: int) -> tuple[pd.DataFrame, str]:
    rows = []
    for f in fmaps:
        t = eq.linear_image("kendall_tau", f, n0, absolute=True)
        rows.append({"map": f"$|{f.tex(symbol('kendall_tau'))}|$", "diagonal": float(t.values[0, 0]),
                     "largest": float(np.nanmax(t.values))})
    text = ""
    if any(str(f) == "−m + 0.5" for f in fmaps):
        t = eq.linear_image("kendall_tau", "-m + 0.5", n0, absolute=True)
        P = permutations.all_permutations(n0)
        top = int(np.nanargmax(t.values[0]))
        text = (f"For example, $|-\\tau + 0.5|$ on $S_{{{n0}}}$ is {t.values[0, 0]:g} on the diagonal "
                f"and reaches {t.values[0, top]:g} at $\\sigma = \\mathrm{{id}}$, "
                f"$\\nu = {list(map(int, P[top]))}$, the reversed ranking.")
    return pd.DataFrame(rows), text


def largest_off_diagonal(values: np.ndarray, n: int) -> str:
    """Where a tabulated function on :math:`S_n \\times S_n` (rows σ, columns ν, in the order of
    :func:`rankbook.permutations.all_permutations`) exceeds its value on the diagonal: the value
    there, the largest value and the pairs that reach it, in words.

    Examples
    --------
    >>> t = eq.linear_image("kendall_tau", "-m + 0.5", 3, absolute=True)
    >>> largest_off_diagonal(t.values, 3)
    '0.5 on the diagonal and 1.5 at most, reached on 6 of 36 pairs, one for each σ; for σ = id only at ν = [3, 2, 1], the reversed ranking'
    """
    v = np.asarray(values, dtype=float)
    top = np.nanmax(v)
    at = np.argwhere(v == top)
    P = permutations.all_permutations(n)
    text = f"{v[0, 0]:.4g} on the diagonal and {top:.4g} at most, reached on {len(at)} of {v.size} pairs"
    per_row = np.bincount(at[:, 0], minlength=len(v))
    if (per_row == 1).all():
        text += ", one for each σ"
    first = at[at[:, 0] == 0][:, 1]
    if len(first) == 1:
        nu = P[first[0]].tolist()
        text += f"; for σ = id only at ν = {nu}"
        if nu == list(range(n, 0, -1)):
            text += ", the reversed ranking"
    return text


def check_prop_7_1(claim: claims.Claim, *, ns: Sequence[int] | None = None,
                   ks: Sequence[int] | None = None, maps: Sequence[str] | None = None,
                   names: Sequence[str] | None = None, readings: dict | None = None) -> claims.Evidence:
    """Proposition 7.1, statement by statement, exhaustively on :math:`S_n`.

    Each metric of ``names`` (default the 33) is tabulated on every pair of :math:`S_n` for
    ``n`` in ``ns`` (and every ``k`` of ``ks`` below ``n`` where a cut-off is needed); each map
    of ``maps`` is applied and the four statements are decided under each reading of
    :data:`rankbook.equivalence.READINGS`. ``ns``, ``ks`` and ``maps`` default to the claim's.
    ``readings`` replaces the book's reading of a statement (``{"maximal_agreement": "as
    proved"}``). A statement holds when none of its cases fails; the claim holds when all four
    hold. The failing statements are the finding ``statements``; the notions of identity that
    disagree, the finding ``notions``.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> ev = check_prop_7_1(checked_by(check_prop_7_1), ns=[3], ks=[1], maps=["2m + 1", "-m + 0.5"],
    ...                     names=["kendall_tau"])
    >>> ev.status, ev.matched, ev.total
    ('false', 2, 4)
    """
    ns = list(claim.params["ns"] if ns is None else ns)
    ks = list(claim.params["ks"] if ks is None else ks)
    maps = list(claim.params["maps"] if maps is None else maps)
    names = list(metrics.NAMES if names is None else names)
    fmaps = [eq.LinearMap.parse(f) if isinstance(f, str) else f for f in maps]
    primary = {**eq.PRIMARY, **(readings or {})}
    for s, r in primary.items():
        if r not in eq.READINGS[s]:
            raise ValueError(f"unknown reading {r!r} of {s}; valid: {list(eq.READINGS[s])}")
    cases = eq.proposition_7_1_cases(names, ns=ns, maps=fmaps, ks=ks)
    summary = eq.proposition_7_1_summary(cases)
    ok = {(r.statement, r.reading): bool(r.holds) for r in summary.itertuples()}
    row = {(r.statement, r.reading): r for r in summary.itertuples()}
    book = [row[s, primary[s]] for s in eq.STATEMENTS]
    failed = [r.statement for r in book if not r.holds]
    held = len(eq.STATEMENTS) - len(failed)
    statements = pd.DataFrame({
        "statement": [PAPER_WORDS[r.statement] for r in book],
        "cases": [r.cases for r in book], "failing cases": [r.failures for r in book],
        "verdict": ["holds" if r.holds else "fails" for r in book],
        "failing maps": [getattr(r, "_7") for r in book],
        "a counterexample": [example(cases, r.statement, r.reading) for r in book]})
    alternatives = {name: held - int(ok[s, primary[s]]) + int(ok[s, r])
                    for (s, r), name in ALT_NAMES.items() if (s, r) in ok}
    corrected = sum(ok[s, r] for s, r in (("maximal_agreement", "as proved"),
                                          ("symmetry", "as stated"), ("identity", "Definition 4"),
                                          ("consistency", "up to sign")))
    alternatives["the proof's corrected form: sign(a)·m̃ and consistency up to sign"] = int(corrected)
    readings_table = pd.DataFrame(
        [{"reading": "the book's: as stated, Definition 4, Definition 1 as printed",
          "statements that hold": sum(ok[s, eq.PRIMARY[s]] for s in eq.STATEMENTS)}]
        + [{"reading": k, "statements that hold": v} for k, v in alternatives.items()])
    notions = summary[summary["statement"] == "identity"]
    meaning = eq.READINGS["identity"]
    identity_table = pd.DataFrame({
        "notion": notions["reading"].to_numpy(),
        "what it asks of $\\tilde m$": [meaning[r] for r in notions["reading"]],
        "cases (premise holds)": notions["cases"].to_numpy(),
        "failing cases": notions["failures"].to_numpy(),
        "failing maps": notions["failing maps"].to_numpy(),
        "metrics with the premise": [", ".join(dict.fromkeys(display(m) for m in cases[
            (cases["statement"] == "identity") & (cases["reading"] == r) & cases["premise"]]["metric"]))
            for r in notions["reading"]]})
    n0 = min(ns)
    kendall, kendall_text = _kendall_figure_data(fmaps, n0) if "kendall_tau" in names else (pd.DataFrame(), "")
    ident_n = min(max(ns), properties.MATRIX_MAX_N)
    three = identity_notions(ident_n)
    cols = list(three.columns[2:])
    disagree = three[three[cols].nunique(axis=1) > 1]
    detail = (f"exhaustive on {', '.join(f'$S_{{{n}}}$' for n in ns)}: {len(names)} metrics, "
              f"{len(fmaps)} linear maps ({sum(not f.increasing for f in fmaps)} decreasing); "
              + "; ".join(f"{SHORT[r.statement]} "
                          + (f"fails in {r.failures} cases out of {r.cases}" if r.failures
                             else f"holds in all {r.cases} cases") for r in book))
    findings = []
    if failed:
        lines = [f"{PAPER_WORDS[r.statement]}: fails in {r.failures} cases out of {r.cases}, maps "
                 f"{getattr(r, '_7')}; e.g. {example(cases, r.statement, r.reading)}"
                 for r in book if not r.holds]
        lines.append(f"what the proof shows, sign(a)·m̃ for maximal agreement and consistency up to "
                     f"the sign flip: {corrected} of 4 statements hold")
        lines.append(f"exhaustive on {', '.join(f'S_{n}' for n in ns)}; {len(names)} metrics; "
                     f"maps {', '.join(map(str, fmaps))}")
        findings.append(claim.finding(
            "statements", evidence="\n".join(lines),
            readings=["identity of indiscernibles as Definition 4",
                      "consistency as Definition 1 prints it (μ may equal σ)"]))
    id_counts = {r.reading: (r.cases, r.failures) for r in notions.itertuples()}
    if len(disagree) or len({v[1] > 0 for v in id_counts.values() if v[0]}) > 1:
        findings.append(claim.finding("notions", evidence="\n".join(
            [f"{r['metric']} on S_{ident_n}: " + ", ".join(
                f"{c.split(':')[0]} {'holds' if r[c] else 'fails'}" for c in cols)
             for _, r in disagree.iterrows()]
            + [f"the identity statement of Proposition 7.1 under {k}: {v[1]} failing cases of {v[0]}"
               for k, v in id_counts.items()])))
    described = {}
    if "maximal_agreement" in failed:
        r = first_case(cases, "maximal_agreement", primary["maximal_agreement"])
        f = eq.LinearMap.parse(r["map"].replace("m(id, id)", "m0"))
        t = eq.linear_image(r["metric"], f, int(r["n"]), k=None if pd.isna(r["k"]) else int(r["k"]),
                            absolute=True)
        described["maximal_agreement"] = (
            f"maximal agreement of $|\\tilde m|$ ($|{tex(f, r['metric'])}|$ on $S_{{{r['n']}}}$: "
            f"{largest_off_diagonal(t.values, int(r['n']))})")
    if "consistency" in failed:
        r = first_case(cases, "consistency", primary["consistency"])
        described["consistency"] = (
            f"consistency under decreasing maps (${symbol(r['metric'])}$ and "
            f"${tex(r['map'], r['metric'])}$ on $S_{{{r['n']}}}$)")
    failures = [described.get(s, f"{PAPER_WORDS[s]} ({row[s, primary[s]].failures} failing cases)")
                for s in failed]
    ev = claim.evidence(
        comparison="claim", published="true for every linear map",
        reproduced=(f"{held} statements hold, {len(failed)} fail" if failed else f"all {held} statements hold"),
        matched=held, total=len(eq.STATEMENTS), unit="statements", failures=failures or None,
        reading=("identity of indiscernibles as Definition 4; consistency as Definition 1 prints it"
                 if not readings else "; ".join(f"{SHORT[s]}: {r}" for s, r in readings.items())),
        alternatives=alternatives, detail=detail,
        values={"cases": cases, "summary": summary, "failed": failed, "held": held,
                "fmaps": fmaps, "n0": n0, "kendall": kendall, "kendall_text": kendall_text,
                "notions": three, "consistency_text": _consistency_notes(cases),
                "proved_fail": int(len(_failed(cases, "maximal_agreement", "as proved"))),
                "symmetry_cases": int(row["symmetry", "as stated"].cases),
                "intro": (f"Checked exhaustively on {' and '.join(f'$S_{{{n}}}$' for n in ns)}: "
                          f"{len(names)} metrics"
                          + (f" (with $k$ = {', '.join(map(str, sorted({int(k) for k in cases['k'].dropna()})))}"
                             " where a cut-off is needed)" if cases["k"].notna().any() else "")
                          + f", {sum(f.increasing for f in fmaps)} increasing and "
                          f"{sum(not f.increasing for f in fmaps)} decreasing linear maps, "
                          f"{int(cases['premise'].sum())} cases in all over the statements and their readings.")})
    ev.findings += findings
    ev.add_table("statements", statements, title="Proposition 7.1, statement by statement",
                 markdown=["statement", "a counterexample"])
    ev.add_table("maximal_agreement_by_map", _by_map(cases, fmaps),
                 title="Maximal agreement under each map: the absolute value against the proof's sign(a)·m̃")
    ev.add_table("consistency_by_map", _consistency_by_map(cases, fmaps),
                 title="Cases where $m$ and $\\tilde m$ are inconsistent, per map and reading")
    ev.add_table("identity_notions", identity_table, markdown=["what it asks of $\\tilde m$"],
                 title="The identity statement under the three notions the paper uses")
    ev.add_table("readings", readings_table,
                 title=f"How many of the {len(eq.STATEMENTS)} statements hold under each reading")
    return ev


def absolute_value_figure(ev: claims.Evidence) -> claims.Section:
    """The value of Kendall's τ's images on the diagonal against their largest value, one pair
    of bars per map of the check of Proposition 7.1 (``ev``), and what the proof does show."""
    import matplotlib.pyplot as plt

    out = claims.Section()
    V = ev.values
    ex = V["kendall"]
    if len(ex):
        fig, ax = plt.subplots(figsize=(7.0, 3.6))
        x = np.arange(len(ex))
        ax.bar(x - 0.2, ex["diagonal"], 0.4, label="value on the diagonal (any σ = ν)")
        ax.bar(x + 0.2, ex["largest"], 0.4, label="largest value over all pairs")
        ax.set_xticks(x, ex["map"], rotation=30, ha="right")
        ax.set_ylabel("value")
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2, frameon=False)
        ax.grid(axis="y", alpha=0.3)
        broken = int((ex["largest"] > ex["diagonal"]).sum())
        out.add_figure("kendall_absolute", fig, caption=(
            f"Kendall's $\\tau$ on $S_{{{V['n0']}}}$ under each map: the absolute value "
            f"$|\\tilde m|$ on the diagonal against its largest value. Where the second bar is "
            f"higher, $|\\tilde m|$ has no maximal agreement: {broken} maps out of {len(ex)}."),
            alt=(f"Grouped bar chart with one pair of bars per linear map of Kendall's tau; for "
                 f"{broken} maps the largest value exceeds the value on the diagonal."))
    out.say(V["kendall_text"] + " What the proof does show, $\\operatorname{sign}(a)\\,\\tilde m$ "
            "(that is $\\tilde m$ for $a > 0$ and $-\\tilde m$ for $a < 0$), "
            + ("holds in every case checked." if V["proved_fail"] == 0 else f"fails in {V['proved_fail']} cases."))
    return out


# --------------------------------------------------------------------------------------------
def _linear(first: str, second: str, n: int, k) -> bool:
    return bool(properties.linearly_equivalent(first, second, n, k=k).holds)


def check_equivalence_relation(claim: claims.Claim, *, ns: Sequence[int] | None = None,
                               ks: Sequence[int] | None = None, names: Sequence[str] | None = None,
                               equivalent: Callable | None = None) -> claims.Evidence:
    """Section 6, after Definition 3: linear equivalence is an equivalence relation (reflexive,
    symmetric, transitive).

    True by definition: ``m2 = a m1 + b`` with ``a != 0`` holds for ``a = 1, b = 0``, inverts
    to ``m1 = m2 / a - b / a`` and composes, so an exact test of Definition 3 cannot give a
    relation that is not an equivalence; no computation can contradict the sentence. The
    evidence shows the relation: for each ``n`` of ``ns`` and cut-off ``k`` of ``ks`` below ``n``
    (default the claim's), ``equivalent(first, second, n, k)`` (default
    :func:`rankbook.properties.linearly_equivalent`, exhaustive) in both orders for every pair of
    ``names`` (default the 33), and its classes. A matrix that is not reflexive, symmetric and
    transitive can only come from a wrong test; it makes the sentence false with the case named.
    The paper writes transitivity as an equivalence (``m1 ~ m2 and m2 ~ m3`` *if and only if*
    ``m1 ~ m3``); that converse fails, the finding ``converse``.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> claim = checked_by(check_equivalence_relation)
    >>> check_equivalence_relation(claim, ns=[3], ks=[1], names=["dcg", "ndcg", "kendall_tau"]).status
    'true by definition'
    """
    ns = list(claim.params["ns"] if ns is None else ns)
    ks = list(claim.params["ks"] if ks is None else ks)
    names = list(metrics.NAMES if names is None else names)
    equivalent = equivalent or _linear
    rows, converse, classes = [], [], {}
    for n in ns:
        for k in [k for k in ks if 1 <= k < n]:
            E = np.array([[bool(equivalent(a, b, n, k)) for b in names] for a in names])
            refl = bool(np.diag(E).all())
            sym = bool((E == E.T).all())
            two = (E.astype(int) @ E.astype(int)) > 0
            trans_bad = np.argwhere(two & ~E)
            # the converse the paper also writes: m1 ~ m3 implies m1 ~ m2 and m2 ~ m3 for every m2
            conv = [(i, j, l) for i, l in np.argwhere(E) for j in range(len(names))
                    if not (E[i, j] and E[j, l])]
            asym = np.argwhere(E != E.T)
            rows.append({"n": n, "k": k, "equivalent pairs": int(E.sum() - np.trace(E)) // 2,
                         "reflexive": refl, "symmetric": sym, "transitive": not len(trans_bad),
                         "converse of transitivity": not conv,
                         "first asymmetric pair": "" if not len(asym) else
                         f"{display(names[asym[0][0]])} ~ {display(names[asym[0][1]])} only one way",
                         "first intransitive triple": "" if not len(trans_bad) else
                         f"{display(names[trans_bad[0][0]])}, {display(names[trans_bad[0][1]])}"})
            if conv:
                converse.append((n, k, conv[0], len(conv)))
            seen = set()
            for i in range(len(names)):
                if i in seen:
                    continue
                group = [j for j in range(len(names)) if E[i, j] and E[j, i]]
                seen.update(group)
                if len(group) > 1:
                    classes.setdefault(" ~ ".join(display(names[j]) for j in group), []).append(f"n = {n}, k = {k}")
    table = pd.DataFrame(rows)
    props = ["reflexive", "symmetric", "transitive"]
    matched = int(table[props].to_numpy().sum())
    total = 3 * len(table)
    failures = [f"{p} fails at n = {r['n']}, k = {r['k']}" for _, r in table.iterrows()
                for p in props if not r[p]]
    where = (f"every ordered pair of {len(names)} metrics, exhaustive on "
             + ", ".join(f"$S_{{{n}}}$" for n in ns) + f", k = {', '.join(map(str, ks))}")
    common = dict(published="reflexive, symmetric and transitive", reading="transitivity as an implication")
    if failures:  # a test of Definition 3 that is not exact
        ev = claim.evidence(
            comparison="claim", **common, matched=matched, total=total, unit="properties",
            reproduced=f"{matched} of {total} properties hold over {len(table)} sizes and cut-offs",
            failures=failures, detail=where + "; a wrong test of Definition 3 can break the relation")
    else:
        ev = claim.evidence(
            comparison="definition", **common,
            reproduced=(f"reflexive, symmetric and transitive on all {len(table)} sizes and cut-offs "
                        f"checked ({claims.plural(len(classes), 'class', 'classes')} of equivalent metrics)"),
            alternatives={"transitivity as printed, an equivalence": not converse},
            detail=("an exact test of Definition 3 is an equivalence relation by construction: the "
                    "identity map, the inverse of a non-constant linear map and the composition of two "
                    "are linear; shown on " + where))
    if converse:
        n, k, (i, j, l), count = converse[0]
        ev.findings.append(claim.finding("converse", evidence=(
            f"S_{n}, k = {k}: {display(names[i])} ~ {display(names[l])}, yet {display(names[j])} is "
            f"not equivalent to both; {count} such triples at this n and k")))
    ev.add_table("equivalence_relation", table,
                 title="Linear equivalence on the metrics, per size and cut-off")
    ev.add_table("equivalence_classes", pd.DataFrame(
        [{"class": c, "where": "; ".join(w)} for c, w in classes.items()], columns=["class", "where"]),
        collapse=True, title="The classes of linearly equivalent metrics")
    return ev


def one_way_test(a: str, b: str, n: int, k) -> bool:
    """A wrong test of Definition 3 for the unit tests: the fitted slope must be at least 1 in
    size, so the relation loses its symmetry."""
    r = properties.linearly_equivalent(a, b, n, k=k)
    return bool(r.holds) and abs(r.slope or 1.0) >= 1 - 1e-9


# --------------------------------------------------------------------------------------------
def check_distance_equivalence(claim: claims.Claim, *, n: int | None = None, k: int | None = None,
                               names: Sequence[str] | None = None, reading: str = "Definition 4",
                               transformable: Callable | None = None) -> claims.Evidence:
    """Section 6.6: a metric without the identity of indiscernibles or without symmetry is not
    a distance, "not even linearly equivalent to a distance" (``n`` and ``k`` default the
    claim's; the metrics that contradict it are the finding ``distance``).

    For each metric of ``names`` (default the 33), exhaustively on :math:`S_n`: the identity
    of indiscernibles under ``reading`` (``"Definition 4"``, rows injective, or ``"unique
    extreme"``, the metric's best value reached only on the diagonal, the proof of
    Proposition 7.1's notion), symmetry (Definition 5), and whether the metric itself
    (``transform="none"``) or an affine image of it (Definition 12) is a distance
    (``transformable(name, n, k)``, default :func:`rankbook.properties.is_distance`). One case
    per metric: a metric with both properties agrees with the sentence (it says nothing of it);
    one that lacks either agrees when neither it nor a linear image of it is a distance.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> check_distance_equivalence(checked_by(check_distance_equivalence), n=4, k=1,
    ...                            names=["kendall_tau", "mape"]).status
    'false'
    """
    n = int(claim.params["n"] if n is None else n)
    k = int(claim.params["k"] if k is None else k)
    if reading not in ("Definition 4", "unique extreme"):
        raise ValueError(f"reading must be 'Definition 4' or 'unique extreme', got {reading!r}")
    names = list(metrics.NAMES if names is None else names)
    rows = []
    for name in names:
        kk = k if metrics.REGISTRY[name].needs_k else None
        d4 = bool(properties.identity_of_indiscernibles(name, n, k=kk).holds)
        strict = properties.maximal_agreement(name, n, k=kk, orientation="closeness").strict is True
        ioi, other = (d4, strict) if reading == "Definition 4" else (strict, d4)
        sym = bool(properties.symmetry(name, n, k=kk).holds)
        if transformable is None:
            itself = properties.is_distance(name, n, k=kk, transform="none")
            image = properties.is_distance(name, n, k=kk)
            is_dist, lin, how = bool(itself.holds), bool(image.holds), image.note
        else:
            is_dist = lin = bool(transformable(name, n, kk))
            how = ""
        rows.append({"metric": display(name), "identity of indiscernibles": ioi, "other notion": other,
                     "symmetric": sym,
                     "a distance itself": is_dist, "linearly equivalent to a distance": lin,
                     "the distance": how if lin else ""})
    table = pd.DataFrame(rows)
    live = table[~table["identity of indiscernibles"] | ~table["symmetric"]]
    bad = live[live["a distance itself"] | live["linearly equivalent to a distance"]]
    live2 = table[~table["other notion"] | ~table["symmetric"]]
    bad2 = live2[live2["a distance itself"] | live2["linearly equivalent to a distance"]]
    other_name = ("identity as a unique best value on the diagonal (the proof of Proposition 7.1)"
                  if reading == "Definition 4" else "identity of indiscernibles as Definition 4")
    alternatives = {other_name: len(table) - len(bad2)}
    table = table.drop(columns=["other notion"])
    findings = []
    if len(bad):
        pure = bad[~bad["a distance itself"]]
        ex = (pure if len(pure) else bad).iloc[0]
        findings.append(claim.finding("distance", evidence="\n".join(
            [f"S_{n}, k = {k} (exhaustive), identity of indiscernibles as {reading}: "
             f"{len(bad)} of the {len(live)} metrics without it or without symmetry are "
             f"linearly equivalent to a distance: {', '.join(bad.metric)}",
             f"e.g. {ex.metric}: identity of indiscernibles {'holds' if ex['identity of indiscernibles'] else 'fails'}, "
             f"yet {ex['the distance'] or 'the metric itself'} is a distance"]
            + ([f"a distance without any transformation: {', '.join(bad[bad['a distance itself']].metric)}"]
               if bad["a distance itself"].any() else [])),
            readings=[f"identity of indiscernibles as {reading}"]))
    matched = len(table) - len(bad)
    if live.empty:
        ev = claim.evidence(
            comparison="claim", published="not linearly equivalent to a distance",
            reproduced="every metric has both properties", holds=True,
            detail=f"exhaustive on $S_{{{n}}}$; no case")
    else:
        ev = claim.evidence(
            comparison="claim", published="not linearly equivalent to a distance",
            reproduced=(f"{len(bad)} of the {len(live)} metrics without one of the two properties are "
                        "linearly equivalent to a distance"),
            matched=matched, total=len(table), unit="metrics",
            failures=list(bad.metric) or None,
            reading=f"identity of indiscernibles as {reading}",
            alternatives=alternatives,
            detail=(f"exhaustive on $S_{{{n}}}$, k = {k}: Definitions 4, 5, 11 and 12"))
    ev.findings += findings
    ev.add_table("distance_equivalence", table, collapse=True,
                 title="The identity of indiscernibles, symmetry and linear equivalence to a distance")
    return ev


def never_a_distance(claim: claims.Claim, **smoke) -> dict:
    """Mutant: a distance test that never succeeds."""
    return {"transformable": lambda name, n, k: False}


def check_no_distance(claim: claims.Claim, *, n: int | None = None, k: int | None = None,
                      names: Sequence[str] | None = None,
                      distance: Callable | None = None) -> claims.Evidence:
    """The introduction: in the paper's definitions none of the metrics is a mathematical
    distance (and DCG has to be modified to obtain one).

    One case per metric of ``names`` (default the 33), exhaustively on :math:`S_n` (``n`` and
    ``k`` default the claim's): it holds when the metric as it stands is no distance under
    Definition 11 (``distance(name, n, k)``, default :func:`rankbook.properties.is_distance`
    with no transform). The sentence holds when every metric is none; the metrics that are
    distances are the finding ``distances``. Beside it, the reading of Section 6 that a distance
    must also have the identity of indiscernibles of Definition 4.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> check_no_distance(checked_by(check_no_distance), n=4, k=1, names=["mae", "mse"]).status
    'false'
    """
    n = int(claim.params["n"] if n is None else n)
    k = int(claim.params["k"] if k is None else k)
    names = list(metrics.NAMES if names is None else names)
    rows = []
    for name in names:
        kk = k if metrics.REGISTRY[name].needs_k else None
        if distance is None:
            r = properties.is_distance(name, n, k=kk, transform="none")
            is_dist = bool(r.holds)
            why = "" if r.holds else evidence_text(r.evidence)
        else:
            is_dist, why = bool(distance(name, n, kk)), ""
        ioi = bool(properties.identity_of_indiscernibles(name, n, k=kk).holds)
        rows.append({"metric": display(name), "a distance as it stands (Definition 11)": is_dist,
                     "identity of indiscernibles (Definition 4)": ioi, "why not": why})
    table = pd.DataFrame(rows)
    dist = table[table["a distance as it stands (Definition 11)"]]
    both = dist[dist["identity of indiscernibles (Definition 4)"]]
    ev = claim.evidence(
        comparison="claim", published="no metric is a distance",
        reproduced=(f"{len(dist)} of the {len(table)} metrics "
                    + ("is a distance as it stands" if len(dist) == 1 else "are distances as they stand")
                    + (f": {', '.join(dist['metric'])}" if len(dist) else "")),
        matched=len(table) - len(dist), total=len(table), unit="metrics",
        failures=[f"{m} is a distance on $S_{{{n}}}$" for m in dist["metric"]] or None,
        reading="a distance as Definition 11 prints it",
        alternatives={"a distance must also have the identity of indiscernibles of Definition 4":
                      len(table) - len(both)},
        detail=f"every metric as it stands, exhaustive on $S_{{{n}}}$, k = {k}: Definitions 4 and 11")
    if len(dist):
        ev.findings.append(claim.finding("distances", cells=list(dist["metric"]), evidence=(
            f"S_{n}, k = {k} (exhaustive), Definition 11 with no transformation: "
            f"{', '.join(dist['metric'])} vanish only on equal rankings, are symmetric and meet the "
            f"triangle inequality; none of them has the identity of indiscernibles of Definition 4"
            if both.empty else f"S_{n}: distances as they stand: {', '.join(dist['metric'])}"),
            readings=["a distance as Definition 11 prints it"]))
    ev.add_table("metrics_as_distances", table, collapse=True,
                 title="Which metrics are a distance as they stand (Definition 11)")
    return ev


def no_distance_at_all(claim: claims.Claim, **smoke) -> dict:
    """Mutant: a distance test that never succeeds."""
    return {"distance": lambda name, n, k: False}


def check_kendall_distance(claim: claims.Claim, *, n: int | None = None,
                           metric: str = "kendall_tau") -> claims.Evidence:
    """Section 6, after Definition 3: against Hassanzadeh and Milenkovic, who accept Kendall's τ
    as a metric on rankings, the paper says τ does not have its identity of indiscernibles, so
    it cannot be considered a distance.

    Two statements about ``metric`` (default Kendall's τ), exhaustively on :math:`S_n` (``n``
    default the claim's): it lacks the identity of indiscernibles of Definition 4, and no linear
    map makes it a distance (Definitions 11 and 12, the paper's own sense of being a distance up
    to a linear map, as in Section 6.6). The claim holds when both do; the affine image that is a
    distance is the finding ``distance``. Beside it, the reading of τ as it stands, which is no
    distance (it is 1 on equal rankings).

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> check_kendall_distance(checked_by(check_kendall_distance), n=4).status
    'false'
    """
    n = int(claim.params["n"] if n is None else n)
    kk = properties.default_k(n) if metrics.REGISTRY[metric].needs_k else None
    ioi = properties.identity_of_indiscernibles(metric, n, k=kk)
    itself = properties.is_distance(metric, n, k=kk, transform="none")
    image = properties.is_distance(metric, n, k=kk)
    statements = {"lacks the identity of indiscernibles (Definition 4)": not ioi.holds,
                  "no linear map makes it a distance (Definitions 11 and 12)": not image.holds}
    held = sum(statements.values())
    name = display(metric)
    ev = claim.evidence(
        comparison="claim", published=f"{name} lacks the identity of indiscernibles, so no distance",
        reproduced="; ".join(f"{name} {k}: {'yes' if v else 'no'}" for k, v in statements.items()),
        matched=held, total=len(statements), unit="statements",
        failures=([f"{name} has the identity of indiscernibles (Definition 4)"] if ioi.holds else [])
                 + ([f"a linear map makes {name} a distance: {image.note}"] if image.holds else []) or None,
        reading="a distance up to a linear map (Definitions 11 and 12)",
        alternatives={f"{name} as it stands, with no map": held - int(not image.holds) + int(not itself.holds)},
        detail=(f"exhaustive on $S_{{{n}}}$" + ("" if ioi.evidence is None else
                f"; two rankings with one value against a third: {evidence_text(ioi.evidence)}")))
    if image.holds and not ioi.holds:
        ev.findings.append(claim.finding("distance", evidence=(
            f"S_{n} (exhaustive): {name} lacks the identity of indiscernibles of Definition 4, yet "
            f"{image.note} is a distance (Definition 11), so {name} is linearly transformable into "
            "one (Definition 12); as it stands it is none only because it is 1, not 0, on equal "
            "rankings"), readings=["a distance up to a linear map (Definitions 11 and 12)"]))
    return ev


def dcg_for_kendall(claim: claims.Claim, **smoke) -> dict:
    """Mutant: DCG in place of τ (it has the identity of indiscernibles for n up to 6)."""
    return {"metric": "dcg"}


# --------------------------------------------------------------------------------------------
def check_eq7_consistency(claim: claims.Claim, *, ns: Sequence[int] | None = None,
                          ks: Sequence[int] | None = None, names: Sequence[str] | None = None,
                          reading: str = "as printed", cases: pd.DataFrame | None = None) -> claims.Evidence:
    """Section 6.6, after eq. 7: :math:`m_{\\max} - m` reverses the disagreements "but still
    preserves the consistency definition".

    One case per metric, size and cut-off (``ns`` and ``ks`` default the claim's): :math:`m`
    and :math:`m(\\mathrm{id}, \\mathrm{id}) - m` are consistent under ``reading`` (``"as
    printed"``: Definition 1 as printed; ``"distinct"``: three different rankings; ``"up to
    sign"``: after the reversal Figure 1 applies). ``cases`` may pass
    :func:`rankbook.equivalence.proposition_7_1_cases` already computed with the map
    ``"m0 - m"``. The inconsistent cases are the finding ``decreasing``.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> check_eq7_consistency(checked_by(check_eq7_consistency), ns=[3], ks=[1], names=["kendall_tau"]).status
    'false'
    """
    ns = list(claim.params["ns"] if ns is None else ns)
    ks = list(claim.params["ks"] if ks is None else ks)
    if reading not in eq.READINGS["consistency"]:
        raise ValueError(f"unknown reading {reading!r}; valid: {list(eq.READINGS['consistency'])}")
    label = str(eq.LinearMap.parse("m0 - m"))
    if cases is None or not (cases["map"] == label).any():
        cases = eq.proposition_7_1_cases(names, ns=ns, maps=["m0 - m"], ks=ks)
    g = cases[(cases["map"] == label) & (cases["statement"] == "consistency")
              & (cases["reading"] == reading)]
    bad = g[g["holds"] == False]  # noqa: E712
    alternatives = {}
    for other, name in (("distinct", "three distinct rankings"), ("up to sign", "consistency up to sign (Figure 1)"),
                        ("as printed", "Definition 1 as printed")):
        if other != reading:
            h = cases[(cases["map"] == label) & (cases["statement"] == "consistency")
                      & (cases["reading"] == other)]
            alternatives[name] = int((h["holds"] == True).sum())  # noqa: E712
    ev = claim.evidence(
        comparison="claim", published="consistent",
        reproduced=f"{len(g) - len(bad)} of {len(g)} cases consistent",
        matched=len(g) - len(bad), total=len(g), unit="cases",
        failures=list(dict.fromkeys(display(m) for m in bad["metric"])) or None,
        reading=f"Definition 1 {reading}",
        alternatives=alternatives,
        detail=f"eq. 7 applied to every metric, exhaustive on {', '.join(f'$S_{{{n}}}$' for n in ns)}")
    if len(bad):
        r = bad.iloc[0]
        ev.findings.append(claim.finding("decreasing", evidence=(
            f"{len(bad)} of {len(g)} cases (metric, n, k) are inconsistent with their eq. 7 "
            f"transform under Definition 1 ({reading}); e.g. {display(r['metric'])} on S_{r['n']}: "
            f"{pretty(r['evidence'], r['metric'])}"), readings=[f"Definition 1 {reading}"]))
    shown = g.assign(metric=[display(m) for m in g["metric"]])[["metric", "n", "k", "holds", "evidence"]]
    ev.add_table("eq7_consistency", shown, collapse=True,
                 title="Each metric against its eq. 7 transform, Definition 1 as printed")
    return ev
