"""The tour of the IR measures (``notebooks/ir_metrics_tour.ipynb``): one toy query scored by
every measure of :mod:`rankbook.ir`, and the statements of the ranking-metrics notes and of the
learning-to-rank note, each checked against an independent computation.

The tables are built by :func:`measures_table`, :func:`gain_table`, :func:`ties_table`,
:func:`conventions_table` and :func:`batch_table`; each ``check_*`` function receives one claim
of the ledgers ``data/claims/notes.toml`` and ``blog.toml`` (its numbers in ``claim.params``,
its errata by role) and returns its :class:`~rankbook.ledger.claims.Evidence`; the ledger holds
how the mutation test perturbs it (``[claims.test]``, with the perturbing functions here).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from rankbook import ir
from rankbook.ledger import claims
from rankbook.ledger.claims import Evidence
from rankbook.ledger.limits import within_memory, within_time

__all__ = ["measures_table", "gain_table", "gain_figure", "ties_table", "conventions_table",
           "batch_table", "page_arguments", "statements_table", "check_dcg_gains",
           "check_order_blind", "check_fewer_relevant", "check_topk_order", "check_cg_order",
           "check_ap_two_forms", "check_precision_recall", "check_log_base", "check_idcg",
           "check_ideal_is_best", "check_ndpm", "check_ndpm_location", "check_fcp_perfect",
           "check_fcp_random", "check_ap_front_loading", "check_kendall_at_k",
           "ascending_ideal", "pairs_normaliser", "tie_as_reversal", "order_blind_ap"]

#: A graded list that every statement about gains is also checked on, so that a binary toy
#: query (where the two gains coincide) cannot hide a counterexample.
WITNESS = (3, 0, 2, 1, 0)


#: The panels of the tour's explorer, one per scale: every measure of :func:`measures_table`
#: belongs to exactly one, so that the sums of gains (which grow with k and the grades) do not
#: squeeze the measures between 0 and 1 into a corner of one axis.
SCALES = {
    "between 0 and 1": (
        "P@k", "R@k", "F1@k", "hit@k (Accuracy@K)", "AP@k", "AP", "RR",
        "nDCG@k, ideal from the list", "nDCG@k, ideal from all judged", "R-score / best",
        "NDPM of the ranking against the grades", "FCP of the ranking against the grades"),
    "sums of gains, no upper bound": (
        "CG@k", "DCG@k, linear gain", "DCG@k, exponential gain", "R-score"),
}


def scale_of(measure: str) -> str:
    """The panel of :data:`SCALES` that holds a measure of :func:`measures_table`.

    Examples
    --------
    >>> scale_of("DCG@k, linear gain")
    'sums of gains, no upper bound'
    """
    for scale, measures in SCALES.items():
        if measure in measures:
            return scale
    raise ValueError(f"measure {measure!r} has no scale; known: "
                     f"{', '.join(m for ms in SCALES.values() for m in ms)}")


def scale_column(table: pd.DataFrame) -> pd.Series:
    """The scale of every row of a table with a ``measure`` column (the explorer's panels)."""
    return table["measure"].map(scale_of)


def judged_of(relevance, unreturned) -> list:
    """Every judged grade of the query: the returned ones, then the relevant ones not returned."""
    return list(relevance) + list(unreturned)


def measures_table(relevance, unreturned, k: int, r_neutral: float, r_half_life: float) -> pd.DataFrame:
    """The toy query scored by every measure of :mod:`rankbook.ir` (section "One query, every
    measure"). Measures that need the number of relevant items count every judged one.

    Examples
    --------
    >>> t = measures_table([1, 0, 1], [], 2, 0, 2)
    >>> float(t.set_index("measure").loc["P@k", "value"])
    0.5
    """
    judged = judged_of(relevance, unreturned)
    m = sum(g > 0 for g in judged)
    positions = -np.arange(len(relevance))
    rows = [
        ("P@k", ir.precision_at_k(relevance, k), "share of the top k that is relevant"),
        ("R@k", ir.recall_at_k(relevance, k, n_relevant=m), "share of all relevant items found in the top k"),
        ("F1@k", ir.f1_at_k(relevance, k, n_relevant=m), "harmonic mean of P@k and R@k"),
        ("hit@k (Accuracy@K)", ir.hit_at_k(relevance, k), "1 if any of the top k is relevant"),
        ("AP@k", ir.average_precision(relevance, n_relevant=m, k=k), "precision at each relevant rank up to k, over all relevant"),
        ("AP", ir.average_precision(relevance, n_relevant=m), "the same over the whole list"),
        ("RR", ir.reciprocal_rank(relevance), "one over the rank of the first relevant item"),
        ("CG@k", ir.cg(relevance, k), "sum of grades in the top k (order-blind)"),
        ("DCG@k, linear gain", ir.dcg(relevance, k), "grades discounted by log2(rank + 1)"),
        ("DCG@k, exponential gain", ir.dcg(relevance, k, gain="exponential"), "2^grade - 1, discounted"),
        ("nDCG@k, ideal from the list", ir.ndcg(relevance, k), "scikit-learn's ideal"),
        ("nDCG@k, ideal from all judged", ir.ndcg(relevance, k, ideal=judged), "trec_eval's ideal"),
        ("R-score", ir.r_score(relevance, d=r_neutral, alpha=r_half_life),
         f"half-life utility, d = {r_neutral}, alpha = {r_half_life}"),
        ("R-score / best", ir.r_score(relevance, d=r_neutral, alpha=r_half_life, normalize=True),
         "over the best order of the same items"),
        ("NDPM of the ranking against the grades", ir.ndpm(relevance, positions),
         "pairs of different grades put in the wrong order (2) or tied (1), over 2 x pairs"),
        ("FCP of the ranking against the grades", ir.fcp(relevance, positions),
         "share of pairs of different grades in the right order"),
    ]
    return pd.DataFrame(rows, columns=["measure", "value", "what it counts"])


def gain_table(relevance, k: int) -> pd.DataFrame:
    """nDCG@k of variants of the toy list under both gains and two log bases."""
    top = max(relevance)
    variants = {
        "as returned": list(relevance),
        "best item moved to the end": [g for g in relevance if g != top] + [g for g in relevance if g == top],
        "reversed ideal": sorted(relevance),
        "binary grades": [int(g > 0) for g in relevance],
    }
    rows = []
    for name, rel in variants.items():
        row = {"list": name}
        for gain in ir.GAINS:
            for base in (2, 10):
                row[f"nDCG@{k} {gain}, log base {base}"] = ir.ndcg(rel, k, gain=gain, log_base=base)
        rows.append(row)
    return pd.DataFrame(rows)


def gain_figure():
    """The two gain functions of DCG against the grade (a matplotlib figure)."""
    import matplotlib.pyplot as plt

    grades = np.arange(0, 5)
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.plot(grades, grades, marker="o", label="linear: g")
    ax.plot(grades, 2.0**grades - 1, marker="s", label="exponential: 2^g - 1")
    ax.set_xlabel("relevance grade g")
    ax.set_ylabel("gain")
    ax.legend(frameon=False)
    return fig


def ties_table(relevance, unreturned, scores, k: int) -> pd.DataFrame:
    """DCG@k and nDCG@k of the toy query ranked by scores with ties, each tie rule against each
    ideal (section "Ties and the ideal")."""
    judged = judged_of(relevance, unreturned)
    rows = []
    for rule in ir.TIES:
        rows.append({"tie rule": rule,
                     f"DCG@{k}": ir.dcg(relevance, k, scores=scores, ties=rule),
                     f"nDCG@{k}, own ideal": ir.ndcg(relevance, k, scores=scores, ties=rule),
                     f"nDCG@{k}, judged ideal": ir.ndcg(relevance, k, scores=scores, ties=rule, ideal=judged),
                     f"nDCG@{k}, judged ideal, uncut": ir.ndcg(relevance, k, scores=scores, ties=rule,
                                                              ideal=judged, ideal_cut="full")})
    return pd.DataFrame(rows)


def conventions_table() -> pd.DataFrame:
    """rankbook settings and the library conventions they reproduce."""
    return pd.DataFrame(ir.CONVENTIONS, columns=["choice", "rankbook setting", "matches"])


def batch_table(relevance, k: int) -> pd.DataFrame:
    """MAP, MRR and mean nDCG over four queries of different lengths, given as a list of lists
    and as a padded array with lengths (both must agree)."""
    batch = [list(relevance), list(relevance)[:3], [0, 0, 0, 1], [0, 0]]
    width = max(len(b) for b in batch)
    padded = np.full((len(batch), width), -1.0)
    for i, b in enumerate(batch):
        padded[i, : len(b)] = b
    lengths = np.array([len(b) for b in batch])
    both = [(batch, {}), (padded, {"lengths": lengths})]
    return pd.DataFrame({
        "input": ["list of lists", "padded array + lengths"],
        f"MAP@{k} (omit)": [ir.mean_average_precision(x, k=k, nan_policy="omit", **kw) for x, kw in both],
        f"MAP@{k} (zero, as trec_eval)": [ir.mean_average_precision(x, k=k, nan_policy="zero", **kw) for x, kw in both],
        "MRR": [ir.mean_reciprocal_rank(x, **kw) for x, kw in both],
        f"mean nDCG@{k} (omit)": [ir.mean_ndcg(x, k=k, nan_policy="omit", **kw) for x, kw in both],
        f"mean nDCG@{k} (zero)": [ir.mean_ndcg(x, k=k, nan_policy="zero", **kw) for x, kw in both],
    })


# --------------------------------------------------------------------------------------------
# The statements of the notes and of the learning-to-rank note (ledgers notes.toml, blog.toml).
# Every check takes its claim's ledger entry: numbers from ``claim.params``, errata by role.
# --------------------------------------------------------------------------------------------
def _f(x: float, d: int = 4) -> str:
    return "undefined" if x != x else f"{x:.{d}f}"


def page_arguments(claim: claims.Claim, **page) -> dict:
    """The page's parameters that ``claim``'s check takes (the tour calls every check of its
    page with the same parameters: the toy query, the cut-off and the simulation's size)."""
    import inspect

    _, function = claims.resolve_check(claim.check)
    names = inspect.signature(function).parameters
    return {k: v for k, v in page.items() if k in names}


def check_dcg_gains(claim: claims.Claim, *, relevance=WITNESS) -> Evidence:
    """The two gains give the same DCG on grades 0 and 1.

    True by definition: :math:`2^g - 1 = g` for ``g`` in {0, 1}, so no computation could
    contradict it; the evidence shows the two DCGs of the toy query cut to 0/1 grades."""
    binary = [int(g > 0) for g in relevance]
    lin, exp = ir.dcg(binary), ir.dcg(binary, gain="exponential")
    return claim.evidence(
        comparison="definition", published="the same DCG on grades 0 and 1",
        reproduced=f"{lin:.6f} (linear) and {exp:.6f} (exponential) on the toy query cut to 0/1 grades",
        detail="$2^g - 1$ equals $g$ for $g = 0$ and $g = 1$, so the two gains agree term by term",
        values={"linear": lin, "exponential": exp})


def check_order_blind(claim: claims.Claim, *, relevance=WITNESS, k: int = 3) -> Evidence:
    """Precision and recall at k count the relevant items of a set, the top k: true by
    definition. The evidence shows P@k and R@k of the toy query's top k as returned and with
    the top k reversed."""
    rel = list(relevance)
    flipped = rel[:k][::-1] + rel[k:]
    m = sum(g > 0 for g in rel)
    p, q = ir.precision_at_k(rel, k), ir.precision_at_k(flipped, k)
    r, s = ir.recall_at_k(rel, k, n_relevant=m), ir.recall_at_k(flipped, k, n_relevant=m)
    return claim.evidence(
        comparison="definition", published="P@k and R@k ignore the order inside the top k",
        reproduced=f"the toy query at k = {k}: P@k {_f(p)} as returned, {_f(q)} with the top k reversed; "
                   f"R@k {_f(r)} and {_f(s)}",
        detail="both count the relevant items in the set of the top k")


def check_fewer_relevant(claim: claims.Claim, *, relevance=WITNESS, unreturned=()) -> Evidence:
    """With fewer relevant items than k, even the ideal order has P@k below 1: true by
    definition (P@k is at most the number of relevant items over k). The evidence shows the
    ideal order of the toy query's judged grades at k one more than its relevant items."""
    judged = sorted(judged_of(relevance, unreturned), reverse=True)
    m = sum(g > 0 for g in judged)
    k = m + 1
    ideal = judged + [0] * max(0, k - len(judged))
    value = ir.precision_at_k(ideal, k)
    return claim.evidence(
        comparison="definition", published="P@k below 1 when fewer than k items are relevant",
        reproduced=f"the ideal order of the toy query ({m} relevant) at k = {k}: P@k {_f(value)}",
        detail="P@k is at most the number of relevant items over k")


def check_topk_order(claim: claims.Claim, *, relevance=WITNESS, k: int = 3) -> Evidence:
    """Top-k accuracy only asks whether a relevant item is in the top k: blind to the order
    inside it, by definition. The evidence shows hit@k of the toy query's top k as returned
    and reversed."""
    rel = list(relevance)
    flipped = rel[:k][::-1] + rel[k:]
    a, b = ir.hit_at_k(rel, k), ir.hit_at_k(flipped, k)
    return claim.evidence(
        comparison="definition", published="top-k accuracy is blind to the order inside the top k",
        reproduced=f"the toy query at k = {k}: {_f(a, 0)} as returned, {_f(b, 0)} with the top k reversed",
        detail="it asks only whether a relevant item is among the top k")


def check_cg_order(claim: claims.Claim, *, relevance=WITNESS, k: int = 3) -> Evidence:
    """Cumulative gain is a sum over the top p, so reordering the top p leaves it unchanged:
    true by definition. The evidence shows CG@k of the toy query's top k as returned and with
    its best item moved to the end of the top k."""
    rel = list(relevance)
    top = rel[:k]
    moved = [g for i, g in enumerate(top) if i != int(np.argmax(top))] + [max(top)] + rel[k:]
    a, b = ir.cg(rel, k), ir.cg(moved, k)
    return claim.evidence(
        comparison="definition", published="CG does not change when the results are reordered",
        reproduced=f"the toy query at k = {k}: CG@k {_f(a)} as returned, {_f(b)} with the best item "
                   "moved to the end of the top k",
        detail="CG sums the grades of the top k, whatever their order")


def check_ap_two_forms(claim: claims.Claim, *, relevance=WITNESS, unreturned=(), k: int = 3) -> Evidence:
    """AP@K written as the mean of P(k) over the relevant ranks and as the sum of P(k) times
    the change in recall: the change is :math:`1/m` at a relevant rank and 0 elsewhere, so the
    two sums agree term by term, and the area under the step precision-recall curve through the
    points (R(k), P(k)) is the second sum. True by definition; the evidence shows both sums and
    rankbook's AP@K on the toy query."""
    rel = [int(g > 0) for g in relevance]
    m = sum(g > 0 for g in judged_of(relevance, unreturned))
    top = rel[:k]
    precision = np.cumsum(top) / np.arange(1, len(top) + 1)
    first = float(np.sum(precision * np.array(top)) / m) if m else float("nan")
    recall = np.cumsum(top) / m if m else np.full(len(top), np.nan)
    delta = np.diff(np.concatenate([[0.0], recall]))
    second = float(np.sum(precision * delta))
    return claim.evidence(
        comparison="definition", published="$\\frac{1}{m}\\sum_k P(k) I(k) = \\sum_k P(k) \\Delta R(k)$, "
                                            "the area under the precision-recall curve",
        reproduced=f"the toy query at K = {k} ({m} relevant judged): {_f(first)} and {_f(second)}; "
                   f"rankbook's AP@K {_f(ir.average_precision(list(relevance), n_relevant=m, k=k))}",
        detail="the recall grows by $1/m$ exactly at the relevant ranks")


def _confusion(relevance, k: int, m: int, catalogue: int) -> dict:
    tp = sum(g > 0 for g in list(relevance)[:k])
    fp, fn = k - tp, m - tp
    tn = catalogue - tp - fp - fn
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn}


def _rates(c: dict) -> dict:
    div = lambda a, b: a / b if b else float("nan")  # noqa: E731
    return {"precision": div(c["tp"], c["tp"] + c["fp"]), "recall": div(c["tp"], c["tp"] + c["fn"]),
            "false positive rate": div(c["fp"], c["fp"] + c["tn"]),
            "false negative rate": div(c["fn"], c["fn"] + c["tp"]),
            "false discovery rate": div(c["fp"], c["fp"] + c["tp"])}


def check_precision_recall(claim: claims.Claim, *, relevance=WITNESS, unreturned=(), k: int = 3,
                           identities=None) -> Evidence:
    """"Precision = 1 − false positive rate" and "recall = 1 − false negative rate".

    Each identity is checked, within ``claim.params["tolerance"]``, on the confusion counts of
    the toy query's top ``k`` in a catalogue of ``claim.params["catalogue"]`` items and on a
    fixed witness (a relevant then an irrelevant item, the top two of
    ``claim.params["witness_catalogue"]``), so a toy query without a false positive cannot hide
    the counterexample. ``identities`` maps each measure to the rate the notes subtract from 1
    (the mutation test gives the right one). Finding ``fdr``: precision is one minus the false
    discovery rate."""
    tolerance = claim.params["tolerance"]
    catalogue, witness = claim.params["catalogue"], claim.params["witness_catalogue"]
    identities = identities or {"precision": "false positive rate", "recall": "false negative rate"}
    m = sum(g > 0 for g in judged_of(relevance, unreturned))
    cases = {f"the toy query's top {k} in {catalogue} items": _rates(_confusion(relevance, k, m, catalogue)),
             f"a relevant then an irrelevant item in {witness}": _rates(_confusion([1, 0], 2, 1, witness))}
    lines, failures, held, total = [], [], 0, 0
    for measure, rate in identities.items():
        for case, r in cases.items():
            if r[measure] != r[measure] or r[rate] != r[rate]:
                continue
            total += 1
            ok = abs(r[measure] - (1 - r[rate])) <= tolerance
            held += ok
            lines.append(f"{case}: {measure} {_f(r[measure])}, 1 − {rate} {_f(1 - r[rate])}")
            if not ok:
                failures.append(f"{measure} = 1 − {rate} ({case}: {_f(r[measure])} against {_f(1 - r[rate])})")
    toy = next(iter(cases.values()))
    ev = claim.evidence(
        comparison="claim", published="precision = 1 − FPR; recall = 1 − FNR",
        reproduced="; ".join(lines[:2]), matched=held, total=total, unit="cases",
        failures=failures or None, detail="precision is 1 − the false discovery rate "
        f"({_f(1 - toy['false discovery rate'])} on the toy query)")
    if failures and identities.get("precision") == "false positive rate":
        ev.findings.append(claim.finding("fdr", evidence="\n".join(
            [f"{case}: precision {_f(r['precision'])}, 1 − FPR {_f(1 - r['false positive rate'])}, "
             f"1 − FDR {_f(1 - r['false discovery rate'])}" for case, r in cases.items()])))
    return ev


#: What the notes state for each part of their sentence on the log base (True: the base
#: changes the value).
LOG_BASE_STATED = {"nDCG, linear gain": False, "nDCG, exponential gain": True,
                   "DCG, linear gain": True, "DCG, exponential gain": True}


def check_log_base(claim: claims.Claim, *, relevance=WITNESS, k: int = 3, stated=None,
                   ndcg=ir.ndcg, dcg=ir.dcg) -> Evidence:
    """The log base cancels in nDCG with the linear gain, changes nDCG with the exponential
    gain, and changes DCG under both (:data:`LOG_BASE_STATED`).

    Each part is computed on the toy query (the fixed graded :data:`WITNESS` when the toy query
    holds no relevant item) at ``claim.params["bases"]``; a value changes when its spread over
    the bases exceeds ``claim.params["tolerance"]``. ``stated`` replaces what the notes state
    (the mutation test). Finding ``base_cancels``: the base cancels for either gain."""
    bases, tolerance = claim.params["bases"], claim.params["tolerance"]
    stated = stated or LOG_BASE_STATED
    own = any(relevance)
    rel = list(relevance) if own else list(WITNESS)
    on = "the toy query" if own else f"the fixed ranking {list(WITNESS)} (the toy query holds no relevant item)"
    values = {}
    for part in stated:
        measure, gain = part.split(", ")
        fn = ndcg if measure == "nDCG" else dcg
        values[part] = [fn(rel, k, gain=gain.split()[0], log_base=b) for b in bases]
    changes = {p: max(v) - min(v) > tolerance for p, v in values.items()}
    failures = [f"{p}: the notes say the base {'changes' if stated[p] else 'does not change'} it; "
                f"it {'does' if changes[p] else 'does not'} ({', '.join(_f(x, 6) for x in values[p])})"
                for p in stated if changes[p] != stated[p]]
    ev = claim.evidence(
        comparison="claim", published="base matters for exponential-gain nDCG and for DCG, "
        "not for linear-gain nDCG",
        reproduced=("" if own else f"on {on}: ")
        + "; ".join(f"{p}: {'changes' if changes[p] else 'unchanged'}" for p in stated),
        matched=len(stated) - len(failures), total=len(stated), unit="cases",
        failures=failures or None, detail=f"on {on}, bases {', '.join(f'{b:.3g}' for b in bases)}; "
        "every discount is divided by the same factor ln(b), which cancels in the ratio DCG/IDCG")
    part = "nDCG, exponential gain"
    if stated.get(part) and not changes.get(part, True):
        spread = max(values[part]) - min(values[part])
        ev.findings.append(claim.finding("base_cancels", evidence=f"nDCG@{k} of {on}, exponential gain: "
            + ", ".join(f"base {b:.3g}: {v:.4g}" for b, v in zip(bases, values[part]))
            + (f" (they differ by at most {spread:.1g})" if spread else " (identical in every digit)")))
    return ev


def check_idcg(claim: claims.Claim, *, relevance=WITNESS, unreturned=(), idcg_gain: str = "linear") -> Evidence:
    """The notes' IDCG (printed with the linear gain) normalises DCG.

    For each gain of DCG, the ideal order of the query's judged grades and of the
    :data:`WITNESS` is scored DCG/IDCG with the IDCG as printed (``idcg_gain="linear"``) or
    with the gain of the DCG (``"same"``, the corrected formula): the normaliser is right for a
    gain when the ideal order scores 1 within ``claim.params["tolerance"]``. Finding
    ``exponential_ideal``: the exponential gain needs its own ideal."""
    tolerance = claim.params["tolerance"]
    lists = {"the query's ideal order": sorted(judged_of(relevance, unreturned), reverse=True),
             "the witness's ideal order": sorted(WITNESS, reverse=True)}
    scores, ok = {}, {}
    for gain in ir.GAINS:
        ideal_gain = gain if idcg_gain == "same" else idcg_gain
        scores[gain] = {name: (ir.dcg(rel, gain=gain) / ir.dcg(rel, gain=ideal_gain)
                               if ir.dcg(rel, gain=ideal_gain) > 0 else float("nan"))
                        for name, rel in lists.items()}
        ok[gain] = all(abs(v - 1) <= tolerance for v in scores[gain].values() if v == v)
    ev = claim.evidence(
        comparison="exact", published="the ideal order scores 1",
        reproduced="; ".join(f"{g} gain: " + ", ".join(
            f"{name} scores {_f(v)}" if v == v else f"{name} has no relevant item"
            for name, v in scores[g].items()) for g in ir.GAINS),
        matched=sum(ok.values()), total=len(ok), unit="gains",
        detail="IDCG as printed (linear gain) against DCG of each gain" if idcg_gain == "linear"
        else "IDCG with the gain of the DCG")
    if not ok["exponential"] and idcg_gain == "linear":
        ev.findings.append(claim.finding("exponential_ideal", evidence="\n".join(
            f"{name}: exponential DCG / linear IDCG = {_f(v)}" for name, v in scores["exponential"].items())))
    return ev


def _all_dcgs(grades, gain: str) -> np.ndarray:
    """DCG@p, p = 1..n, of every order of ``grades`` (one row per distinct order), summed
    directly with the discount :math:`1/\\log_2(i + 1)`."""
    orders = np.array(sorted(set(itertools.permutations(grades))), dtype=float)
    g = orders if gain == "linear" else 2.0 ** orders - 1
    discount = 1 / np.log2(np.arange(2, orders.shape[1] + 2))
    return np.cumsum(g * discount, axis=1)


def check_ideal_is_best(claim: claims.Claim, *, max_items: int | None = None, ideal=None) -> Evidence:
    """Sorting the judged items by relevance gives the largest DCG at every cut-off p, so the
    IDCG is the largest DCG possible.

    For every multiset of grades 0 to ``claim.params["levels"]`` of 1 to ``max_items`` items
    (default ``claim.params["max_items"]``), every order is scored by a direct sum; the claim
    holds when no order's DCG@p exceeds rankbook's DCG@p of the ideal order by more than
    ``claim.params["tolerance"]``, for both gains. ``ideal`` replaces the ideal order (the
    mutation test)."""
    max_items = claim.params["max_items"] if max_items is None else max_items
    levels, tolerance = claim.params["levels"], claim.params["tolerance"]
    ideal = ideal or (lambda grades: sorted(grades, reverse=True))
    cases, failures = 0, []
    for n in range(1, max_items + 1):
        for grades in itertools.combinations_with_replacement(range(levels + 1), n):
            for gain in ir.GAINS:
                best = _all_dcgs(grades, gain).max(axis=0)
                top = list(ideal(list(grades)))
                ideal_dcg = np.array([ir.dcg(top, p, gain=gain) for p in range(1, n + 1)])
                cases += 1
                worse = np.nonzero(best > ideal_dcg + tolerance)[0]
                if len(worse):
                    p = int(worse[0]) + 1
                    failures.append(f"grades {list(grades)}, {gain} gain: an order reaches DCG@{p} "
                                    f"{best[p - 1]:.4f} above the ideal's {ideal_dcg[p - 1]:.4f}")
    return claim.evidence(
        comparison="claim", published="the ideal order gives the largest DCG through position p",
        reproduced=f"{cases - len(failures)} of {cases} multisets of grades (both gains): no order beats the ideal",
        matched=cases - len(failures), total=cases, unit="cases", failures=failures[:10] or None,
        detail=f"every order of every multiset of grades 0 to {levels} of 1 to {max_items} items, every cut-off")


def ascending_ideal(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the ideal order sorted the wrong way."""
    return {"ideal": lambda grades: sorted(grades)}


def _ndpm_distance(reference, system) -> int:
    """Yao's distance: 0 per pair both order alike, 1 per pair the system ties, 2 per pair it
    reverses, over the pairs the reference orders (the notes' definition, counted directly)."""
    total = 0
    for i, j in itertools.combinations(range(len(reference)), 2):
        if reference[i] == reference[j]:
            continue
        a = np.sign(reference[i] - reference[j])
        b = np.sign(system[i] - system[j])
        total += 0 if a == b else (1 if b == 0 else 2)
    return total


def check_ndpm(claim: claims.Claim, *, reference=None, levels: int | None = None, normaliser=None,
               ndpm=ir.ndpm) -> Evidence:
    """NDPM, the distance over its largest value, is 0 for a ranking that agrees with the
    reference and 1 for one that reverses it.

    Every score vector on ``levels`` levels is scored against ``reference`` (defaults from
    ``claim.params``); the normaliser is the largest distance found (``normaliser`` injects
    another) and :func:`rankbook.ir.ndpm` (``ndpm`` injects another) must equal the distance over
    it for every vector, within ``claim.params["tolerance"]``. Finding ``argmax``: the notes
    write the normaliser as an argmax, which is a ranking."""
    ref = list(claim.params["reference"] if reference is None else reference)
    levels = claim.params["levels"] if levels is None else levels
    tolerance = claim.params["tolerance"]
    vectors = list(itertools.product(range(levels), repeat=len(ref)))
    dist = np.array([_ndpm_distance(ref, w) for w in vectors])
    largest = int(dist.max())
    norm = largest if normaliser is None else normaliser(ref)
    ordered = sum(1 for i, j in itertools.combinations(range(len(ref)), 2) if ref[i] != ref[j])
    argmax = [w for w, d in zip(vectors, dist) if d == largest]
    lib = np.array([ndpm(ref, w) for w in vectors])
    agree = int((np.abs(lib - dist / norm) <= tolerance).sum())
    reversed_ = [-x for x in ref]
    cases = {"a ranking that agrees scores 0": _ndpm_distance(ref, ref) / norm == 0,
             "the reversed ranking scores 1": _ndpm_distance(ref, reversed_) / norm == 1,
             f"rankbook's NDPM equals the distance over the largest one ({agree} of {len(vectors)})":
                 agree == len(vectors)}
    ev = claim.evidence(
        comparison="claim", published="0 when the rankings agree, 1 for the reversal",
        reproduced=f"largest distance {largest} (2 × {ordered} ordered pairs); reversal {_f(_ndpm_distance(ref, reversed_) / norm, 3)}",
        matched=sum(cases.values()), total=len(cases), unit="cases",
        failures=[c for c, ok in cases.items() if not ok] or None,
        detail=f"all {len(vectors)} score vectors on {levels} levels against the reference {ref}")
    if normaliser is None:
        ev.findings.append(claim.finding("argmax", evidence=(
            f"reference {ref}: over all {len(vectors)} score vectors on {levels} levels the largest distance is "
            f"{largest} = 2 × {ordered} ordered pairs; the argmax is a ranking, not a number: "
            f"{claims.plural(len(argmax), 'score vector')} {'reaches' if len(argmax) == 1 else 'reach'} it, "
            f"e.g. {list(argmax[0])}")))
    return ev


def pairs_normaliser(claim: claims.Claim, **smoke) -> dict:
    """Mutant: NDPM normalised by the number of ordered pairs instead of the largest distance."""
    return {"normaliser": lambda ref: sum(1 for i, j in itertools.combinations(range(len(ref)), 2)
                                          if ref[i] != ref[j])}


def tie_as_reversal(claim: claims.Claim, **smoke) -> dict:
    """Mutant: a wrong NDPM that scores any ranking with a tie as a reversal."""
    return {"ndpm": lambda a, b: ir.ndpm(a, b) if len(set(b)) == len(b) else 1.0}


def check_ndpm_location(claim: claims.Claim, *, reference=None) -> Evidence:
    """NDPM sums one cost per pair with no weight for where the pair sits, so a swap at the top
    costs as much as one at the bottom: true by definition. The evidence shows both swaps of
    the reference (default ``claim.params["reference"]``)."""
    ref = list(claim.params["reference"] if reference is None else reference)
    top, bottom = list(ref), list(ref)
    top[0], top[1] = top[1], top[0]
    bottom[-1], bottom[-2] = bottom[-2], bottom[-1]
    a, b = ir.ndpm(ref, top), ir.ndpm(ref, bottom)
    return claim.evidence(
        comparison="definition", published="NDPM ignores where a disagreement sits",
        reproduced=f"reference {ref}: the top two swapped {_f(a)}, the bottom two swapped {_f(b)}",
        detail="one cost per pair, with no weight for its position")


def check_fcp_perfect(claim: claims.Claim, *, relevance=WITNESS) -> Evidence:
    """A ranking that agrees with the reference on every pair has FCP 1: every pair it orders
    is concordant, true by definition. The evidence shows the toy query's grades against
    themselves and against the ideal order's positions."""
    grades = list(relevance)
    order = np.argsort(np.argsort(-np.asarray(grades, dtype=float), kind="stable"), kind="stable")
    a, b = ir.fcp(grades, grades), ir.fcp(grades, -order)
    return claim.evidence(
        comparison="definition", published="FCP 1 for perfect agreement",
        reproduced=f"the toy query's grades against themselves {_f(a)}; against the ideal order {_f(b)}",
        detail="every pair the reference orders is concordant")


def _fcp_means(n_users: int, seed: int, reading: str, items: int, levels: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if reading == "strict":
        true, pred = (np.argsort(rng.random((n_users, items)), axis=1) for _ in range(2))
        values = [ir.fcp(t, p) for t, p in zip(true, pred)]
    else:
        true, pred = (rng.integers(1, levels + 1, size=(n_users, items)) for _ in range(2))
        values = [ir.fcp(t, p, ties="discordant" if reading == "ties discordant" else "half")
                  for t, p in zip(true, pred)]
    return np.array([v for v in values if v == v])


FCP_READINGS = {"strict": "strict random rankings",
                "ties discordant": "random ratings 1 to 5, a tie in the prediction counted discordant",
                "ties half": "random ratings 1 to 5, a tie counted half"}


def check_fcp_random(claim: claims.Claim, *, n_users: int | None = None, seed: int | None = None,
                     n_seeds: int | None = None, reading: str = "strict") -> Evidence:
    """A completely random ranking has FCP 1/2.

    A "no difference" statement, decided by an equivalence test (two one-sided tests at level
    ``alpha``): on each seed, ``n_users`` simulated users with ``items`` items each; the
    statement holds on a seed when the confidence interval of level :math:`1 - 2\\alpha` of the
    mean FCP lies within ``margin`` of ``published``, and it holds when it holds on every seed
    (seeds that disagree mark it borderline). Every number comes from ``claim.params``; the page
    passes its own ``n_users``, ``seed`` and ``n_seeds``. Finding ``ties``: with tied ratings
    counted discordant, random ratings score well below 1/2."""
    from scipy import stats

    p = claim.params
    n_users = p["n_users"] if n_users is None else n_users
    seed = p["seed"] if seed is None else seed
    n_seeds = p["n_seeds"] if n_seeds is None else n_seeds
    published, margin, alpha = p["published"], p["margin"], p["alpha"]
    if reading not in FCP_READINGS:
        raise ValueError(f"unknown reading {reading!r}; valid: {list(FCP_READINGS)}")

    def run(r):
        out = []
        for s in range(seed, seed + n_seeds):
            v = _fcp_means(n_users, s, r, p["items"], p["levels"])
            half = stats.t.ppf(1 - alpha, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))
            out.append((s, float(v.mean()), float(half), abs(v.mean() - published) + half < margin))
        return out

    runs = {r: run(r) for r in FCP_READINGS}
    mine = runs[reading]
    n_pass = sum(ok for *_, ok in mine)
    means = [m for _, m, _, _ in mine]
    first = {r: runs[r][0][1] for r in FCP_READINGS}
    ev = claim.evidence(
        comparison="claim", published=f"FCP {published:g} for a random ranking",
        reproduced=f"mean FCP {min(means):.3f} to {max(means):.3f}; the equivalence test passes on "
                   f"{claims.seeds_phrase(n_pass, n_seeds)}",
        matched=n_pass, total=n_seeds, unit="seeds", seeds_passed=(n_pass, n_seeds),
        borderline=(f"the seeds disagree: the equivalence test passes on {claims.seeds_phrase(n_pass, n_seeds)}"
                    if 0 < n_pass < n_seeds else ""),
        failures=[f"seed {s}: mean {m:.4f} ± {h:.4f} is not within {margin:g} of {published:g}"
                  for s, m, h, ok in mine if not ok][:5] or None,
        reading=FCP_READINGS[reading],
        alternatives={FCP_READINGS[r]: sum(ok for *_, ok in runs[r]) for r in FCP_READINGS if r != reading},
        detail=f"equivalence test on each seed: the {1 - 2 * alpha:.0%} interval of the mean FCP lies within "
               f"{margin:g} of {published:g}; {n_users} users of {p['items']} items per seed",
        values={"runs": runs})
    if reading == "strict" and abs(first["ties discordant"] - published) >= margin:
        ev.findings.append(claim.finding("ties", readings=[FCP_READINGS[r] for r in FCP_READINGS],
                                         evidence="\n".join(
            [f"{n_users} simulated users, {p['items']} items each (seed {seed})"]
            + [f"{FCP_READINGS[r]}: mean FCP {first[r]:.3f}" for r in FCP_READINGS])))
    return ev


def check_ap_front_loading(claim: claims.Claim, *, max_len: int | None = None, ap=None) -> Evidence:
    """AP rewards front-loading: moving a relevant item one rank up, past an irrelevant one,
    raises AP.

    Every binary list of length ``claim.params["min_len"]`` to ``max_len`` (default
    ``claim.params["max_len"]``) and every such swap is checked, with ``m`` the number of
    relevant items of the list (``ap`` injects another implementation)."""
    min_len = claim.params["min_len"]
    max_len = claim.params["max_len"] if max_len is None else max_len
    ap = ap or (lambda rel: ir.average_precision(rel))
    total, failures = 0, []
    for n in range(min_len, max_len + 1):
        for rel in itertools.product((0, 1), repeat=n):
            base = ap(list(rel))
            for i in range(n - 1):
                if rel[i] == 0 and rel[i + 1] == 1:
                    moved = list(rel)
                    moved[i], moved[i + 1] = 1, 0
                    total += 1
                    if not ap(moved) > base:
                        failures.append(f"{list(rel)} → {moved}")
    return claim.evidence(
        comparison="claim", published="a relevant item moved up raises AP",
        reproduced=f"{total - len(failures)} of {total} swaps raise AP",
        matched=total - len(failures), total=total, unit="swaps", failures=failures[:10] or None,
        detail=f"every binary list of length {min_len} to {max_len}, every relevant item moved one rank up "
               "past an irrelevant one")


def order_blind_ap(claim: claims.Claim, **smoke) -> dict:
    """Mutant: a wrong AP, blind to order (1 when any item is relevant)."""
    return {"ap": lambda rel: 1.0 if any(rel) else 0.0}


KT_READINGS = {"items": "n = the number of items ranked",
               "union": "n = the items in the two top-K lists",
               "k": "n = K"}


def _kt_max(n: int, K: int, reading: str, distance) -> float:
    items = list(range(n))
    best = float("nan")
    for perm in itertools.permutations(items):
        union = len(set(items[:K]) | set(perm[:K]))
        v = distance(items, list(perm), k=K)
        disc = 0.0 if v != v else v * union * (union - 1) / 2
        size = {"items": n, "union": union, "k": K}[reading]
        if size < 2:
            continue
        value = disc / (size * (size - 1) / 2)
        best = value if best != best else max(best, value)
    return best


def check_kendall_at_k(claim: claims.Claim, *, n_max: int | None = None, reading: str = "items",
                       distance=ir.kendall_tau_distance_at_k) -> Evidence:
    """The note's normalised Kendall tau distance at K, which divides the discordant pairs among
    the top-K items by n(n−1)/2 with n unstated, lies in [0, 1] and reaches 1.

    For n = ``claim.params["n_min"]`` to ``n_max`` items (default ``claim.params["n_max"]``)
    and each K < n, every permutation is compared with the identity; a case holds when the
    largest distance is 1 within ``claim.params["tolerance"]``. ``reading`` says what n is
    (:data:`KT_READINGS`). Finding ``n_unstated``: the note leaves n unstated."""
    if reading not in KT_READINGS:
        raise ValueError(f"unknown reading {reading!r}; valid: {list(KT_READINGS)}")
    n_min, tolerance = claim.params["n_min"], claim.params["tolerance"]
    n_max = claim.params["n_max"] if n_max is None else n_max

    def count(r):
        cases = [(n, K, _kt_max(n, K, r, distance)) for n in range(n_min, n_max + 1) for K in range(1, n)]
        return cases, [c for c in cases if c[2] == c[2] and abs(c[2] - 1) <= tolerance]

    cases, good = count(reading)
    short = [(n, K) for n, K, v in cases if not (v == v and abs(v - 1) <= tolerance)]
    alternatives = {KT_READINGS[r]: len(count(r)[1]) for r in KT_READINGS if r != reading}
    ev = claim.evidence(
        comparison="exact", published="a distance normalised to [0, 1]",
        reproduced=f"the largest distance is 1 in {len(good)} of {len(cases)} cases (n items, top K)",
        matched=len(good), total=len(cases), unit="cases", reading=KT_READINGS[reading],
        alternatives=alternatives, detail=f"every permutation of n = {n_min} to {n_max} items against the "
        "identity, each K < n; it falls short of 1 exactly when the two tops cannot cover every item (2K < n)")
    if reading == "items" and short:
        a, b = "abcdefgh", "bacdefhg"
        val = ir.kendall_tau_distance_at_k(a, b, k=2)
        union = len(set(a[:2]) | set(b[:2]))
        disc = val * union * (union - 1) / 2
        full = ir.kendall_tau_distance_at_k("abcd", "dcba", k=2)
        ev.findings.append(claim.finding("n_unstated", readings=list(KT_READINGS.values())[:2], evidence="\n".join([
            f"{a} vs {b} at K = 2: {disc:g} discordant {'pair' if disc == 1 else 'pairs'}; divided by the pairs of "
            f"the union ({union} items): {val:.4f}; by the pairs of all {len(a)} items: "
            f"{disc / (len(a) * (len(a) - 1) / 2):.4f}",
            f"abcd vs dcba at K = 2: the tops cover all 4 items and the distance is {full:.1f} under both",
            "cases (n, K) where the largest distance stays below 1 with n the number of items: "
            + claims.cases_phrase(short)])))
    return ev


def statements_table(evidence: list) -> pd.DataFrame:
    """One row per statement: the source, the claim in the ledger's words, what was computed and
    its status."""
    book = claims.ledger()
    return pd.DataFrame([{"source": book.short(book.claim(e.claim).source), "statement": book.claim(e.claim).claim,
                          "computed": e.reproduced, "status": e.status} for e in evidence])


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
def limits(values: dict, root, timeout: float) -> None:
    """n_pairs_sim simulated users x n_seeds (one FCP per user and seed) fit in a cell's time
    limit."""
    users, seeds = values["n_pairs_sim"], values["n_seeds"]
    # measured (the notebook's code in process, loaded 2-core machine): 494 s for 100,000 users
    # x 100 seeds, about 50 us per user and seed; margin 2
    within_time(1e-4 * users * seeds, timeout,
                 f"the FCP check on n_pairs_sim = {users} simulated users x n_seeds = {seeds} "
                 "seeds", "lower n_pairs_sim or n_seeds")
