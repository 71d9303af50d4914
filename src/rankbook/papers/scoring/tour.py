"""The tour of the IR measures (``notebooks/ir_metrics_tour.ipynb``): one toy query scored by
every measure of :mod:`rankbook.ir`, and the statements of the ranking-metrics notes and of the
learning-to-rank note, each checked against an independent computation.

The tables are built by :func:`measures_table`, :func:`gain_table`, :func:`ties_table`,
:func:`conventions_table` and :func:`batch_table`; each ``check_*`` function returns the
:class:`~rankbook.ledger.claims.Evidence` of one ledger claim (``data/claims/notes.toml`` and
``blog.toml``), and :data:`CHECKS` says how the mutation test perturbs it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from rankbook import ir
from rankbook.ledger import claims
from rankbook.ledger.claims import Evidence, Finding
from rankbook.ledger.limits import within_memory, within_time

__all__ = ["measures_table", "gain_table", "gain_figure", "ties_table", "conventions_table",
           "batch_table", "statements", "statements_table", "check_dcg_gains",
           "check_precision_recall", "check_log_base", "check_idcg", "check_ndpm",
           "check_fcp_random", "check_ap_front_loading", "check_kendall_at_k", "CHECKS"]

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
# The statements of the notes and of the learning-to-rank note
# --------------------------------------------------------------------------------------------
def _f(x: float, d: int = 4) -> str:
    return "undefined" if x != x else f"{x:.{d}f}"


def check_dcg_gains(relevance=(3, 0, 2, 1, 0)) -> Evidence:
    """N-DCG-gains: the two gains give the same DCG on grades 0 and 1.

    True by definition: :math:`2^g - 1 = g` for ``g`` in {0, 1}, so no computation could
    contradict it; the evidence shows the two DCGs of the toy query cut to 0/1 grades.

    Examples
    --------
    >>> check_dcg_gains([2, 0, 1]).status
    'true by definition'
    """
    binary = [int(g > 0) for g in relevance]
    lin, exp = ir.dcg(binary), ir.dcg(binary, gain="exponential")
    return Evidence(
        claim="N-DCG-gains", comparison="definition", published="the same DCG on grades 0 and 1",
        reproduced=f"{lin:.6f} (linear) and {exp:.6f} (exponential) on the toy query cut to 0/1 grades",
        detail="2^g − 1 equals g for g = 0 and g = 1, so the two gains agree term by term",
        values={"linear": lin, "exponential": exp})


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


def check_precision_recall(relevance=(3, 0, 2, 1, 0), unreturned=(), k: int = 3, catalogue: int = 100,
                           identities=None) -> Evidence:
    """N-PR: "precision = 1 − false positive rate" and "recall = 1 − false negative rate".

    Each identity is checked on the confusion counts of the toy query's top ``k`` in a
    catalogue of ``catalogue`` items and on a fixed witness (a relevant then an irrelevant
    item, top 2 of 10 items), so a toy query without a false positive cannot hide the
    counterexample. ``identities`` maps each measure to the rate the notes subtract from 1
    (injectable for the mutation test).

    Examples
    --------
    >>> check_precision_recall([1, 0, 1], k=2).status
    'false'
    """
    identities = identities or {"precision": "false positive rate", "recall": "false negative rate"}
    m = sum(g > 0 for g in judged_of(relevance, unreturned))
    cases = {f"the toy query's top {k} in {catalogue} items": _rates(_confusion(relevance, k, m, catalogue)),
             "a relevant then an irrelevant item in 10": _rates(_confusion([1, 0], 2, 1, 10))}
    lines, failures, held, total = [], [], 0, 0
    for measure, rate in identities.items():
        for case, r in cases.items():
            if r[measure] != r[measure] or r[rate] != r[rate]:
                continue
            total += 1
            ok = abs(r[measure] - (1 - r[rate])) < 1e-12
            held += ok
            lines.append(f"{case}: {measure} {_f(r[measure])}, 1 − {rate} {_f(1 - r[rate])}")
            if not ok:
                failures.append(f"{measure} = 1 − {rate} ({case}: {_f(r[measure])} against {_f(1 - r[rate])})")
    toy = next(iter(cases.values()))
    findings = []
    if failures and identities.get("precision") == "false positive rate":
        findings.append(Finding(id="N-E1", evidence="\n".join(
            [f"{case}: precision {_f(r['precision'])}, 1 − FPR {_f(1 - r['false positive rate'])}, "
             f"1 − FDR {_f(1 - r['false discovery rate'])}" for case, r in cases.items()])))
    return Evidence(
        claim="N-PR", comparison="claim", published="precision = 1 − FPR; recall = 1 − FNR",
        reproduced="; ".join(lines[:2]), matched=held, total=total, unit="cases",
        failures=failures or None, detail="precision is 1 − the false discovery rate "
        f"({_f(1 - toy['false discovery rate'])} on the toy query)", findings=findings)


def check_log_base(relevance=(3, 0, 2, 1, 0), k: int = 3, bases=(2, math.e, 10), stated=None,
                   ndcg=ir.ndcg, dcg=ir.dcg) -> Evidence:
    """N-logbase: the log base cancels in nDCG with the linear gain, changes nDCG with the
    exponential gain, and changes DCG under both.

    Each part is computed on the toy query (the fixed graded :data:`WITNESS` when the toy query
    holds no relevant item) at the ``bases``; ``stated`` maps each part to what the notes state
    (True: the base changes the value).

    Examples
    --------
    >>> check_log_base([2, 0, 1], k=3).status
    'false'
    """
    stated = stated or {"nDCG, linear gain": False, "nDCG, exponential gain": True,
                        "DCG, linear gain": True, "DCG, exponential gain": True}
    rel = list(relevance) if any(relevance) else list(WITNESS)
    values = {}
    for part in stated:
        measure, gain = part.split(", ")
        fn = ndcg if measure == "nDCG" else dcg
        values[part] = [fn(rel, k, gain=gain.split()[0], log_base=b) for b in bases]
    changes = {p: max(v) - min(v) > 1e-12 for p, v in values.items()}
    failures = [f"{p}: the notes say the base {'changes' if stated[p] else 'does not change'} it; "
                f"it {'does' if changes[p] else 'does not'} ({', '.join(_f(x, 6) for x in values[p])})"
                for p in stated if changes[p] != stated[p]]
    findings = []
    part = "nDCG, exponential gain"
    if stated.get(part) and not changes.get(part, True):
        spread = max(values[part]) - min(values[part])
        findings.append(Finding(id="N-E2", evidence=f"nDCG@{k} of the toy query, exponential gain: " + ", ".join(
            f"base {b:.3g}: {v:.4g}" for b, v in zip(bases, values[part]))
            + (f" (they differ by at most {spread:.1g})" if spread else " (identical in every digit)")))
    return Evidence(
        claim="N-logbase", comparison="claim", published="base matters for exponential-gain nDCG and for DCG, "
        "not for linear-gain nDCG",
        reproduced="; ".join(f"{p}: {'changes' if changes[p] else 'unchanged'}" for p in stated),
        matched=len(stated) - len(failures), total=len(stated), unit="cases",
        failures=failures or None, detail=f"bases {', '.join(f'{b:.3g}' for b in bases)}; every discount "
        "is divided by the same factor ln(b), which cancels in the ratio DCG/IDCG", findings=findings)


def check_idcg(relevance=(3, 0, 2, 1, 0), unreturned=(), idcg_gain="linear") -> Evidence:
    """N-IDCG: the notes' IDCG (printed with the linear gain) normalises DCG.

    For each gain of DCG, the ideal order of the query's judged grades and of the
    :data:`WITNESS` is scored DCG/IDCG with the IDCG as printed (``idcg_gain="linear"``) or
    with the gain of the DCG (``"same"``, the corrected formula): the normaliser is right for a
    gain when the ideal order scores exactly 1.

    Examples
    --------
    >>> check_idcg([2, 1, 0]).status, check_idcg([2, 1, 0], idcg_gain="same").status
    ('imprecise', 'holds')
    """
    lists = {"the query's ideal order": sorted(judged_of(relevance, unreturned), reverse=True),
             "the witness's ideal order": sorted(WITNESS, reverse=True)}
    scores, ok = {}, {}
    for gain in ir.GAINS:
        ideal_gain = gain if idcg_gain == "same" else idcg_gain
        scores[gain] = {name: (ir.dcg(rel, gain=gain) / ir.dcg(rel, gain=ideal_gain)
                               if ir.dcg(rel, gain=ideal_gain) > 0 else float("nan"))
                        for name, rel in lists.items()}
        ok[gain] = all(abs(v - 1) < 1e-12 for v in scores[gain].values() if v == v)
    findings = []
    if not ok["exponential"] and idcg_gain == "linear":
        findings.append(Finding(id="N-E3", evidence="\n".join(
            f"{name}: exponential DCG / linear IDCG = {_f(v)}" for name, v in scores["exponential"].items())))
    return Evidence(
        claim="N-IDCG", comparison="exact", published="the ideal order scores 1",
        reproduced="; ".join(f"{g} gain: the ideal order scores " + ", ".join(_f(v) for v in scores[g].values())
                             for g in ir.GAINS),
        matched=sum(ok.values()), total=len(ok), unit="gains",
        detail="IDCG as printed (linear gain) against DCG of each gain" if idcg_gain == "linear"
        else "IDCG with the gain of the DCG", findings=findings)


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


def check_ndpm(reference=(3, 2, 1, 0), levels: int = 4, normaliser=None, ndpm=ir.ndpm) -> Evidence:
    """N-NDPM: NDPM, the distance over its largest value, is 0 for a ranking that agrees with
    the reference and 1 for one that reverses it.

    Every score vector on ``levels`` levels is scored; the normaliser is the largest distance
    found (``normaliser`` injects another) and :func:`rankbook.ir.ndpm` must equal the
    distance over it for every vector.

    Examples
    --------
    >>> check_ndpm((2, 1, 0), levels=3).status
    'holds'
    """
    ref = list(reference)
    vectors = list(itertools.product(range(levels), repeat=len(ref)))
    dist = np.array([_ndpm_distance(ref, w) for w in vectors])
    largest = int(dist.max())
    norm = largest if normaliser is None else normaliser(ref)
    ordered = sum(1 for i, j in itertools.combinations(range(len(ref)), 2) if ref[i] != ref[j])
    argmax = [w for w, d in zip(vectors, dist) if d == largest]
    lib = np.array([ndpm(ref, w) for w in vectors])
    agree = int(np.isclose(lib, dist / norm, atol=1e-12).sum())
    reversed_ = [-x for x in ref]
    cases = {"a ranking that agrees scores 0": _ndpm_distance(ref, ref) / norm == 0,
             "the reversed ranking scores 1": _ndpm_distance(ref, reversed_) / norm == 1,
             f"rankbook's NDPM equals the distance over the largest one ({agree} of {len(vectors)})":
                 agree == len(vectors)}
    findings = [Finding(id="N-E4", evidence=(
        f"reference {ref}: over all {len(vectors)} score vectors on {levels} levels the largest distance is "
        f"{largest} = 2 × {ordered} ordered pairs; the argmax is a ranking, not a number: "
        f"{claims.plural(len(argmax), 'score vector')} {'reaches' if len(argmax) == 1 else 'reach'} it, e.g. {list(argmax[0])}"))] if normaliser is None else []
    return Evidence(
        claim="N-NDPM", comparison="claim", published="0 when the rankings agree, 1 for the reversal",
        reproduced=f"largest distance {largest} (2 × {ordered} ordered pairs); reversal {_f(_ndpm_distance(ref, reversed_) / norm, 3)}",
        matched=sum(cases.values()), total=len(cases), unit="cases",
        failures=[c for c, ok in cases.items() if not ok] or None,
        detail=f"all {len(vectors)} score vectors on {levels} levels against the reference {ref}",
        findings=findings)


def _fcp_means(n_users: int, seed: int, reading: str) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if reading == "strict":
        true, pred = (np.argsort(rng.random((n_users, 6)), axis=1) for _ in range(2))
        values = [ir.fcp(t, p) for t, p in zip(true, pred)]
    else:
        true, pred = rng.integers(1, 6, size=(n_users, 6)), rng.integers(1, 6, size=(n_users, 6))
        values = [ir.fcp(t, p, ties="discordant" if reading == "ties discordant" else "half")
                  for t, p in zip(true, pred)]
    return np.array([v for v in values if v == v])


FCP_READINGS = {"strict": "strict random rankings",
                "ties discordant": "random ratings 1 to 5, a tie in the prediction counted discordant",
                "ties half": "random ratings 1 to 5, a tie counted half"}


def check_fcp_random(n_users: int = 2000, seed: int = 1995, n_seeds: int = 11, published: float = 0.5,
                     margin: float = 0.05, reading: str = "strict") -> Evidence:
    """N-FCP: a completely random ranking has FCP 1/2.

    A "no difference" statement, decided by an equivalence test (two one-sided tests at 5%):
    on each seed, ``n_users`` simulated users with 6 items each; the statement holds on a
    seed when the 90% confidence interval of the mean FCP lies within ``margin`` of
    ``published``, and it holds when it holds on every seed (seeds that disagree mark it
    borderline).

    Examples
    --------
    >>> check_fcp_random(n_users=400, n_seeds=2).status
    'holds'
    """
    from scipy import stats

    if reading not in FCP_READINGS:
        raise ValueError(f"unknown reading {reading!r}; valid: {list(FCP_READINGS)}")
    def run(r):
        out = []
        for s in range(seed, seed + n_seeds):
            v = _fcp_means(n_users, s, r)
            half = stats.t.ppf(0.95, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))
            out.append((s, float(v.mean()), float(half), abs(v.mean() - published) + half < margin))
        return out

    runs = {r: run(r) for r in FCP_READINGS}
    mine = runs[reading]
    n_pass = sum(ok for *_, ok in mine)
    means = [m for _, m, _, _ in mine]
    first = {r: runs[r][0][1] for r in FCP_READINGS}
    findings = []
    if reading == "strict" and abs(first["ties discordant"] - 0.5) >= margin:
        findings.append(Finding(id="N-E5", evidence="\n".join(
            [f"{n_users} simulated users, 6 items each (seed {seed})"]
            + [f"{FCP_READINGS[r]}: mean FCP {first[r]:.3f}" for r in FCP_READINGS]),
            readings=[FCP_READINGS[r] for r in FCP_READINGS]))
    return Evidence(
        claim="N-FCP", comparison="claim", published=f"FCP {published:g} for a random ranking",
        reproduced=f"mean FCP {min(means):.3f} to {max(means):.3f}; the equivalence test passes on "
                   f"{claims.seeds_phrase(n_pass, n_seeds)}",
        matched=n_pass, total=n_seeds, unit="seeds", seeds_passed=(n_pass, n_seeds),
        borderline=(f"the seeds disagree: the equivalence test passes on {claims.seeds_phrase(n_pass, n_seeds)}"
                    if 0 < n_pass < n_seeds else ""),
        failures=[f"seed {s}: mean {m:.4f} ± {h:.4f} is not within {margin:g} of {published:g}"
                  for s, m, h, ok in mine if not ok][:5] or None,
        reading=FCP_READINGS[reading],
        alternatives={FCP_READINGS[r]: sum(ok for *_, ok in runs[r]) for r in FCP_READINGS if r != reading},
        detail=f"equivalence test on each seed: the 90% interval of the mean FCP lies within {margin:g} of "
               f"{published:g}; {n_users} users of 6 items per seed",
        findings=findings, values={"runs": runs})


def check_ap_front_loading(max_len: int = 8, ap=None) -> Evidence:
    """N-AP-front: AP rewards front-loading: moving a relevant item one rank up, past an
    irrelevant one, raises AP.

    Every binary list of length 2 to ``max_len`` and every such swap is checked, with ``m``
    the number of relevant items of the list (``ap`` injects another implementation).

    Examples
    --------
    >>> check_ap_front_loading(5).status
    'holds'
    """
    ap = ap or (lambda rel: ir.average_precision(rel))
    total, failures = 0, []
    for n in range(2, max_len + 1):
        for rel in itertools.product((0, 1), repeat=n):
            base = ap(list(rel))
            for i in range(n - 1):
                if rel[i] == 0 and rel[i + 1] == 1:
                    moved = list(rel)
                    moved[i], moved[i + 1] = 1, 0
                    total += 1
                    if not ap(moved) > base:
                        failures.append(f"{list(rel)} → {moved}")
    return Evidence(
        claim="N-AP-front", comparison="claim", published="a relevant item moved up raises AP",
        reproduced=f"{total - len(failures)} of {total} swaps raise AP",
        matched=total - len(failures), total=total, unit="swaps", failures=failures[:10] or None,
        detail=f"every binary list of length 2 to {max_len}, every relevant item moved one rank up past an irrelevant one")


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


def check_kendall_at_k(n_max: int = 5, reading: str = "items", distance=ir.kendall_tau_distance_at_k) -> Evidence:
    """L-stmts: the note's normalised Kendall tau distance at K, which divides the discordant
    pairs among the top-K items by n(n−1)/2 with n unstated, lies in [0, 1] and reaches 1.

    For n = 2 to ``n_max`` items and each K < n, every permutation is compared with the
    identity; a case holds when the largest distance is exactly 1. ``reading`` says what n is
    (:data:`KT_READINGS`).

    Examples
    --------
    >>> check_kendall_at_k(4).status, check_kendall_at_k(4, reading="union").status
    ('imprecise', 'holds')
    """
    if reading not in KT_READINGS:
        raise ValueError(f"unknown reading {reading!r}; valid: {list(KT_READINGS)}")
    def count(r):
        cases = [(n, K, _kt_max(n, K, r, distance)) for n in range(2, n_max + 1) for K in range(1, n)]
        return cases, [c for c in cases if c[2] == c[2] and abs(c[2] - 1) < 1e-12]
    cases, good = count(reading)
    short = [(n, K) for n, K, v in cases if not (v == v and abs(v - 1) < 1e-12)]
    alternatives = {}
    for r in KT_READINGS:
        if r != reading:
            c, g = count(r)
            alternatives[KT_READINGS[r]] = len(g)
    a, b = "abcdefgh", "bacdefhg"
    val = ir.kendall_tau_distance_at_k(a, b, k=2)
    union = len(set(a[:2]) | set(b[:2]))
    disc = val * union * (union - 1) / 2
    full = ir.kendall_tau_distance_at_k("abcd", "dcba", k=2)
    findings = [Finding(id="L-E1", readings=list(KT_READINGS.values())[:2], evidence="\n".join([
        f"{a} vs {b} at K = 2: {disc:g} discordant {'pair' if disc == 1 else 'pairs'}; divided by the pairs of the union "
        f"({union} items): {val:.4f}; by the pairs of all {len(a)} items: {disc / (len(a) * (len(a) - 1) / 2):.4f}",
        f"abcd vs dcba at K = 2: the tops cover all 4 items and the distance is {full:.1f} under both",
        "cases (n, K) where the largest distance stays below 1 with n the number of items: "
        + claims.cases_phrase(short)]))] if reading == "items" and short else []
    return Evidence(
        claim="L-stmts", comparison="exact", published="a distance normalised to [0, 1]",
        reproduced=f"the largest distance is exactly 1 in {len(good)} of {len(cases)} cases (n items, top K)",
        matched=len(good), total=len(cases), unit="cases", reading=KT_READINGS[reading],
        alternatives=alternatives, detail=f"every permutation of n = 2 to {n_max} items against the identity, "
        "each K < n; it falls short of 1 exactly when the two tops cannot cover every item (2K < n)",
        findings=findings)


def statements(relevance, unreturned, k: int, n_pairs_sim: int, seed: int, n_seeds: int) -> list:
    """The evidence of every statement checked on the page, in the order of the sources. The
    nDCG statements need a relevant item among those returned: without one they are left
    out (the page says so) rather than checked on a value that does not exist."""
    import numpy as np

    has_relevant = bool(np.any(np.asarray(relevance, dtype=float) > 0))
    ndcg_checks = [check_log_base(relevance, k), check_idcg(relevance, unreturned)] if has_relevant else []
    return [
        check_precision_recall(relevance, unreturned, k),
        check_ap_front_loading(),
        check_dcg_gains(relevance),
        *ndcg_checks,
        check_ndpm(),
        check_fcp_random(n_pairs_sim, seed, n_seeds),
        check_kendall_at_k(),
    ]


def statements_table(evidence: list) -> pd.DataFrame:
    """One row per statement: the source, the claim in the ledger's words, what was computed and
    its status."""
    book = claims.ledger()
    source = {"N": "the notes", "L": "the learning-to-rank note"}
    return pd.DataFrame([{"source": source[e.claim[0]], "statement": book.claim(e.claim).claim,
                          "computed": e.reproduced, "status": e.status} for e in evidence])


CHECKS = {
    "N-DCG-gains": claims.Check(check_dcg_gains, smoke={}),
    "N-PR": claims.Check(check_precision_recall, smoke={}, mutants={
        "the identity the notes should state (1 − false discovery rate)":
            {"identities": {"precision": "false discovery rate", "recall": "false negative rate"}}}),
    "N-logbase": claims.Check(check_log_base, smoke={}, mutants={
        "the statement corrected (the base does not change exponential-gain nDCG)":
            {"stated": {"nDCG, linear gain": False, "nDCG, exponential gain": False,
                        "DCG, linear gain": True, "DCG, exponential gain": True}}}),
    "N-IDCG": claims.Check(check_idcg, smoke={}, mutants={
        "the IDCG with the gain of the DCG (the corrected formula)": {"idcg_gain": "same"}}),
    "N-NDPM": claims.Check(check_ndpm, smoke={"reference": (2, 1, 0), "levels": 3}, mutants={
        "normalised by the number of ordered pairs instead of the largest distance":
            {"normaliser": lambda ref: sum(1 for i, j in itertools.combinations(range(len(ref)), 2)
                                           if ref[i] != ref[j])},
        "a wrong NDPM that counts a tie as a reversal":
            {"ndpm": lambda a, b: ir.ndpm(a, b) if len(set(b)) == len(b) else 1.0}}),
    "N-FCP": claims.Check(check_fcp_random, smoke={"n_users": 1000, "n_seeds": 2}, mutants={
        "the published value moved beyond the margin (0.55)": {"published": 0.55},
        "the reading with tied ratings counted discordant": {"reading": "ties discordant"}}),
    "N-AP-front": claims.Check(check_ap_front_loading, smoke={"max_len": 5}, mutants={
        "a wrong AP (recall at the end of the list, blind to order)":
            {"ap": lambda rel: 1.0 if any(rel) else 0.0}}),
    "L-stmts": claims.Check(check_kendall_at_k, smoke={"n_max": 4}, mutants={
        "the reading that makes it hold (n = the items in the two tops)": {"reading": "union"},
        "a wrong normaliser (n = K)": {"reading": "k"}}),
}


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
