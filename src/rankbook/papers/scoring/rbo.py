"""The notes' section on rank-biased overlap (``notebooks/rbo_bounds.ipynb``).

The tables and figures of the page (worked examples, depth by depth, as a function of p,
random continuations, rank weights, tied items) and the checks of the notes' RBO claims
(ledger ``data/claims/notes.toml``): the overlap example, read from
``data/published/notes/rbo_overlap_example.csv``; the printed formulas of
:math:`\\mathrm{RBO}_{\\min}`, :math:`\\mathrm{RBO}_{\\mathrm{res}}` and
:math:`W_{\\mathrm{RBO}}(1{:}d)`, each against a direct sum; the claim that the bounds contain
every continuation; and the claim that a smaller p is more top-weighted.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from rankbook import rbo as R
from rankbook.ledger import claims
from rankbook.ledger.claims import Evidence
from rankbook.ledger.paths import data_path
from rankbook.ledger.limits import within_memory, within_time

__all__ = ["read_overlap_example", "examples_table", "check_overlap_example", "by_depth_table",
           "p_figure", "check_min_formula", "check_res_formula", "check_weight_formula",
           "check_bounds", "continuations_figure", "check_top_weight", "weight_figure",
           "weight_tables", "tie_variants", "CHECKS"]

EXAMPLE_FILE = ("published", "notes", "rbo_overlap_example.csv")


def read_overlap_example(path=None) -> dict:
    """The notes' overlap example as published: lists ``S`` and ``T`` (integers), ``depth``,
    ``intersection`` (a set) and ``overlap``.

    Examples
    --------
    >>> read_overlap_example()["overlap"]
    7
    """
    table = pd.read_csv(path or data_path(*EXAMPLE_FILE), comment="#", dtype=str)
    raw = dict(zip(table["quantity"], table["value"]))
    ints = lambda text: [int(x) for x in text.split()]  # noqa: E731
    return {"S": ints(raw["S"]), "T": ints(raw["T"]), "depth": int(raw["depth"]),
            "intersection": set(ints(raw["intersection"])), "overlap": int(raw["overlap"])}


def _summary(name, s, t, p):
    lo, hi = R.rbo_bounds(s, t, p)
    return {"example": name, "S": " ".join(map(str, s)), "T": " ".join(map(str, t)),
            "base": R.rbo(s, t, p), "min": lo, "res": hi - lo, "min + res": hi, "ext": R.rbo_ext(s, t, p)}


def examples_table(S, T, p: float) -> pd.DataFrame:
    """Base, bounds and extrapolation of the worked example, the notes' example and four
    small cases."""
    ex = read_overlap_example()
    return pd.DataFrame([
        _summary("worked example", list(S), list(T), p),
        _summary("notes' example", ex["S"], ex["T"], p),
        _summary("identical", list("abcde"), list("abcde"), p),
        _summary("one swap at the top", list("abcde"), list("bacde"), p),
        _summary("uneven lengths", list("abcde"), list("abxcdyzw"), p),
        _summary("disjoint", list("abcde"), list("vwxyz"), p),
    ])


def check_overlap_example(published=None, overlaps=R.overlaps) -> Evidence:
    """N-RBO-ex: the notes' overlap example (intersection and overlap at the shorter length).

    The intersection is computed directly from the two prefixes (set intersection) and the
    overlap by :func:`rankbook.rbo.overlaps` (``overlaps`` injects another implementation);
    both are compared with the published values. The agreement
    :math:`A_d = X_d/d` follows from the overlap by definition and is shown, not counted.

    Examples
    --------
    >>> check_overlap_example().status
    'holds'
    """
    ex = published or read_overlap_example()
    S, T, d = ex["S"], ex["T"], ex["depth"]
    inter = set(S[:d]) & set(T[:d])
    X = np.asarray(overlaps(S, T))
    x_d = int(X[d - 1])
    same = {"intersection": inter == ex["intersection"], "overlap": x_d == ex["overlap"]}
    return Evidence(
        claim="N-RBO-ex", comparison="exact",
        published=f"$I_{{{d}}}$ = {{{', '.join(map(str, sorted(ex['intersection'])))}}}, $X_{{{d}}}$ = {ex['overlap']}",
        reproduced=f"$I_{{{d}}}$ = {{{', '.join(map(str, sorted(inter)))}}}, $X_{{{d}}}$ = {x_d}",
        matched=sum(same.values()), total=len(same), unit="values",
        detail=f"intersection of the two prefixes at depth {d} and rankbook's overlap count; the agreement "
               f"$A_{{{d}}} = X_{{{d}}}/{d}$ = {x_d / d:.3f} follows by definition",
        values={"overlaps": X.tolist(), "depth": d})


def by_depth_table(S, T, p: float) -> pd.DataFrame:
    """The worked example cut at each depth: overlap, agreement, average overlap, base, bounds
    and extrapolation."""
    n = max(len(S), len(T))
    X = R.overlaps(S, T)
    rows = []
    for k in range(1, n + 1):
        lo, hi = R.rbo_bounds(S, T, p, depth=k)
        rows.append({"k": k, "S_k": S[k - 1] if k <= len(S) else "", "T_k": T[k - 1] if k <= len(T) else "",
                     "X_k": int(X[k - 1]), "A_k": X[k - 1] / k,
                     "average overlap": float(np.mean(X[:k] / np.arange(1, k + 1))),
                     "base": R.rbo(S, T, p, depth=k), "min": lo, "min + res": hi, "ext": R.rbo_ext(S, T, p, depth=k)})
    return pd.DataFrame(rows)


def p_figure(S, T):
    """Base, bounds and extrapolation of the worked example against p (a matplotlib figure)."""
    import matplotlib.pyplot as plt

    grid = np.linspace(0.05, 0.99, 95)
    lo_hi = [R.rbo_bounds(S, T, q) for q in grid]
    fig, ax = plt.subplots(figsize=(6.4, 4))
    ax.fill_between(grid, [a for a, _ in lo_hi], [b for _, b in lo_hi], color="tab:blue", alpha=0.2,
                    label="[min, min + res]")
    ax.plot(grid, [R.rbo(S, T, q) for q in grid], color="black", lw=1.5, label="base")
    ax.plot(grid, [R.rbo_ext(S, T, q) for q in grid], color="tab:red", lw=1.5, ls="--", label="ext")
    ax.set_xlabel("persistence p")
    ax.set_ylabel("RBO")
    ax.set_ylim(0, 1)
    ax.legend(frameon=False)
    return fig


# --------------------------------------------------------------------------------------------
# The notes' closed forms against direct sums
# --------------------------------------------------------------------------------------------
def printed_rbo_min(p: float, X) -> float:
    r"""The notes' :math:`\mathrm{RBO}_{\min}(p, k)` from the overlaps ``X`` (``X[d-1]`` is
    :math:`X_d`, ``k = len(X)``), as printed."""
    X = np.asarray(X, dtype=float)
    k = len(X)
    d = np.arange(1, k + 1)
    return (1 - p) / p * (float(np.sum((X - X[-1]) * p**d / d)) - X[-1] * math.log(1 - p))


def printed_rbo_res(p: float, X, f=None) -> float:
    r"""The notes' :math:`\mathrm{RBO}_{\mathrm{res}}(p, k)` with :math:`f = 2k - X_k`, as
    printed (the infinite tail summed in closed form); ``f`` overrides the depth where the
    agreement becomes complete."""
    X = np.asarray(X, dtype=float)
    k, xk = len(X), float(X[-1])
    f = int(2 * k - xk) if f is None else int(f)
    d = np.arange(k + 1, f + 1)
    head = float(np.sum(2 * (d - k) / d * p ** (d - 1)))
    # sum_{d>f} p^{d-1} = p^f/(1-p); sum_{d>f} p^{d-1}/d = (ln(1/(1-p)) - sum_{i<=f} p^i/i)/p
    i = np.arange(1, f + 1)
    tail_inv = (math.log(1 / (1 - p)) - float(np.sum(p**i / i))) / p
    return (1 - p) * (head + p**f / (1 - p) - xk * tail_inv)


def printed_weight(p: float, d: int) -> float:
    r"""The notes' :math:`W_{\mathrm{RBO}}(1{:}d)` in closed form, as printed."""
    i = np.arange(1, d)
    return 1 - p ** (d - 1) + d * (1 - p) / p * (math.log(1 / (1 - p)) - float(np.sum(p**i / i)))


def _depth_for(p: float, start: int) -> int:
    return start + int(math.ceil(math.log(1e-18) / math.log(p)))


def _extreme_lists(S, T, depth: int):
    """The two continuations of equal-length prefixes that reach the bounds: nothing unseen
    ever matches (minimum), or every unseen item of one prefix comes next in the other and the
    rest is shared (maximum)."""
    S, T = list(S), list(T)
    lo = (S + [("s", i) for i in range(depth)], T + [("t", i) for i in range(depth)])
    shared = [("c", i) for i in range(depth)]
    hi = (S + [x for x in T if x not in S] + shared, T + [x for x in S if x not in T] + shared)
    return lo, hi


FORMULA_CASES = {"worked example": ("abcdefg", "zcavwxy"), "notes' example, cut at 7": (None, None),
                 "one swap at the top": ("abcde", "bacde"), "disjoint": ("abcde", "vwxyz")}


def _formula_cases(ps):
    ex = read_overlap_example()
    for name, (s, t) in FORMULA_CASES.items():
        if s is None:
            s, t = ex["S"][: ex["depth"]], ex["T"][: ex["depth"]]
        for p in ps:
            yield name, list(s), list(t), float(p)


def _formula_evidence(claim_id, label, rows, tolerance):
    bad = [r for r in rows if not abs(r["printed"] - r["direct"]) <= tolerance]
    worst = max(abs(r["printed"] - r["direct"]) for r in rows)
    return Evidence(
        claim=claim_id, comparison="exact", published=f"the closed form of {label}",
        reproduced=f"{len(rows) - len(bad)} of {len(rows)} cases agree with the direct sum "
                   f"(largest difference {worst:.1e})",
        matched=len(rows) - len(bad), total=len(rows), unit="cases",
        detail=f"agreement within {tolerance:g}; cases: " + "; ".join(sorted({r['case'] for r in rows})),
        tables={"cases": pd.DataFrame(rows)})


def check_min_formula(ps=(0.5, 0.9, 0.98), formula=printed_rbo_min, tolerance: float = 1e-9) -> Evidence:
    """N-RBO-min: the notes' closed form of :math:`\\mathrm{RBO}_{\\min}` equals the full RBO
    of the continuation in which nothing unseen ever matches, summed directly to a depth where
    :math:`p^d` is below 1e-18.

    Examples
    --------
    >>> check_min_formula(ps=(0.9,)).status
    'holds'
    """
    rows = []
    for name, s, t, p in _formula_cases(ps):
        depth = _depth_for(p, len(s))
        (ls, lt), _ = _extreme_lists(s, t, depth)
        rows.append({"case": name, "p": p, "printed": formula(p, R.overlaps(s, t)),
                     "direct": R.rbo(ls, lt, p, depth=depth), "rankbook": R.rbo_min(s, t, p)})
    return _formula_evidence("N-RBO-min", "RBO_min", rows, tolerance)


def check_res_formula(ps=(0.5, 0.9, 0.98), formula=printed_rbo_res, tolerance: float = 1e-9) -> Evidence:
    """N-RBO-res: the notes' closed form of :math:`\\mathrm{RBO}_{\\mathrm{res}}` (with
    :math:`f = 2k - X_k`) equals the full RBO of the continuation that matches every unseen
    item as early as possible minus that of the one that matches none, summed directly.

    Examples
    --------
    >>> check_res_formula(ps=(0.9,)).status
    'holds'
    """
    rows = []
    for name, s, t, p in _formula_cases(ps):
        depth = _depth_for(p, 2 * len(s))
        (ls, lt), (hs, ht) = _extreme_lists(s, t, depth)
        rows.append({"case": name, "p": p, "printed": formula(p, R.overlaps(s, t)),
                     "direct": R.rbo(hs, ht, p, depth=depth) - R.rbo(ls, lt, p, depth=depth),
                     "rankbook": R.rbo_res(s, t, p)})
    return _formula_evidence("N-RBO-res", "RBO_res", rows, tolerance)


def direct_weight(p: float, d: int) -> float:
    """:math:`\\sum_{j \\le d} W_{\\mathrm{RBO}}(j)` with the rank weights summed directly."""
    n = _depth_for(p, d)
    i = np.arange(1, n + 1)
    terms = p**i / i
    tails = np.cumsum(terms[::-1])[::-1]  # tails[j-1] = sum_{i >= j} p^i / i
    return float((1 - p) / p * np.sum(tails[:d]))


def check_weight_formula(ps=(0.5, 0.9, 0.98), depths=(1, 3, 10, 50), formula=printed_weight,
                         tolerance: float = 1e-9) -> Evidence:
    """N-RBO-W: the notes' closed form of the prefix weight :math:`W_{\\mathrm{RBO}}(1{:}d)`
    equals the sum of the rank weights :math:`W_{\\mathrm{RBO}}(j)`, :math:`j \\le d`, each
    summed directly.

    Examples
    --------
    >>> check_weight_formula(ps=(0.9,), depths=(10,)).status
    'holds'
    """
    rows = [{"case": f"p = {p:g}, d = {d}", "p": p, "d": d, "printed": formula(p, d),
             "direct": direct_weight(p, d), "rankbook": float(R.rbo_weight(p, d))}
            for p in ps for d in depths]
    ev = _formula_evidence("N-RBO-W", "W_RBO(1:d)", rows, tolerance)
    ev.detail = f"agreement within {tolerance:g}; p in {', '.join(f'{p:g}' for p in ps)}, d in {', '.join(map(str, depths))}"
    return ev


# --------------------------------------------------------------------------------------------
# Bounds against random continuations
# --------------------------------------------------------------------------------------------
def check_bounds(S, T, p: float, n_random: int = 300, ext_depth: int = 500, seed: int = 0, n_seeds: int = 1,
                 bounds=R.rbo_bounds) -> Evidence:
    """N-RBO-bounds: the full RBO of every continuation of two prefixes lies within
    :math:`[\\mathrm{RBO}_{\\min}, \\mathrm{RBO}_{\\min} + \\mathrm{RBO}_{\\mathrm{res}}]`.

    Random continuations (``n_random`` per seed, ``n_seeds`` seeds) and, for prefixes of equal
    length, the two extreme continuations, which must reach the bounds within 1e-9.
    ``bounds`` injects another implementation of the bounds.

    Examples
    --------
    >>> check_bounds("abc", "cax", 0.9, n_random=20, ext_depth=400).status
    'holds'
    """
    values = np.concatenate([R.random_extension_rbo(S, T, p, n=n_random, depth=ext_depth, seed=s)
                             for s in range(seed, seed + n_seeds)])
    lo, hi = bounds(S, T, p)
    inside = (values >= lo - 1e-12) & (values <= hi + 1e-12)
    failures = [f"a random continuation scores {v:.4f}" for v in values[~inside]][:20]
    total, matched = len(values), int(inside.sum())
    tight = ""
    if len(S) == len(T):
        depth = max(ext_depth, _depth_for(p, 2 * len(S)))
        (ls, lt), (hs, ht) = _extreme_lists(S, T, depth)
        ends = {"the continuation that never matches reaches the minimum": (R.rbo(ls, lt, p, depth=depth), lo),
                "the continuation that matches as early as possible reaches the maximum": (R.rbo(hs, ht, p, depth=depth), hi)}
        for name, (v, b) in ends.items():
            total += 1
            if abs(v - b) <= 1e-9:
                matched += 1
            else:
                failures.append(f"{name.replace('reaches', 'misses')} ({v:.6f} against {b:.6f})")
        tight = "; both extreme continuations reach the bounds" if not failures else ""
    return Evidence(
        claim="N-RBO-bounds", comparison="claim", published="every continuation within the bounds",
        reproduced=f"[{lo:.4f}, {hi:.4f}]; {int(inside.sum())} of {len(values)} random continuations inside{tight}",
        matched=matched, total=total, unit="continuations", failures=failures or None,
        detail=f"{claims.plural(n_seeds, 'seed')} of {n_random} random "
               f"continuations to depth {ext_depth} at p = {p}, and the two extreme continuations",
        values={"values": values, "first_seed": values[:n_random], "lo": lo, "hi": hi,
                "tail": p**ext_depth})


def continuations_figure(S, T, p: float, evidence: Evidence):
    """Histogram of the first seed's continuations with the bounds, base and extrapolation."""
    import matplotlib.pyplot as plt

    values, lo, hi = evidence.values["first_seed"], evidence.values["lo"], evidence.values["hi"]
    ext, base = R.rbo_ext(S, T, p), R.rbo(S, T, p)
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    ax.hist(values, bins=30, color="tab:gray")
    for x, lab in [(lo, "min"), (hi, "min + res"), (ext, "ext"), (base, "base")]:
        ax.axvline(x, color="tab:red" if lab == "ext" else "black", ls="--" if lab in ("ext", "base") else "-", lw=1)
        ax.annotate(lab, (x, ax.get_ylim()[1] * 0.97), rotation=90, ha="right", va="top", fontsize=9)
    marks = [lo, hi, ext, base, values.min(), values.max()]
    pad = max(0.02, 0.05 * (max(marks) - min(marks)))
    ax.set_xlim(max(0.0, min(marks) - pad), min(1.0, max(marks) + pad))
    ax.set_xlabel("full RBO of a random continuation")
    ax.set_ylabel("continuations")
    return fig


# --------------------------------------------------------------------------------------------
# Rank weights
# --------------------------------------------------------------------------------------------
def check_top_weight(ps=(0.5, 0.7, 0.8, 0.9, 0.95, 0.98), depths=(1, 3, 5, 10, 20, 50), weight=R.rbo_weight) -> Evidence:
    """N-RBO-p: the smaller p, the more top-weighted RBO: for every prefix length d, the weight
    :math:`W_{\\mathrm{RBO}}(1{:}d)` falls strictly as p grows (``weight`` injects another
    implementation).

    Examples
    --------
    >>> check_top_weight(ps=(0.5, 0.9), depths=(1, 10)).status
    'holds'
    """
    ps = sorted(float(p) for p in ps)
    failures = []
    for d in depths:
        w = [float(weight(p, d)) for p in ps]
        failures += [f"d = {d}: W = {w[i]:.4f} at p = {ps[i]:g} but {w[i + 1]:.4f} at p = {ps[i + 1]:g}"
                     for i in range(len(ps) - 1) if not w[i + 1] < w[i]]
    total = len(depths) * (len(ps) - 1)
    if total == 0:  # one value of p: no step in p to compare, said on the page
        return Evidence(
            claim="N-RBO-p", comparison="none", published="a smaller p weights the top ranks more",
            reproduced="one value of p: no step in p to compare",
            detail="rerun with two or more values of p")
    return Evidence(
        claim="N-RBO-p", comparison="claim", published="a smaller p weights the top ranks more",
        reproduced=f"{total - len(failures)} of {total} steps in p lower the weight of the prefix",
        matched=total - len(failures), total=total, unit="steps", failures=failures[:10] or None,
        detail=f"p in {', '.join(f'{p:g}' for p in ps)}; prefix lengths {', '.join(map(str, depths))}")


def weight_figure(ps):
    """Weight of the first d ranks against d for several persistences (a matplotlib figure)."""
    import matplotlib.pyplot as plt

    d_grid = np.arange(1, 201)
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for q in ps:
        ax.plot(d_grid, R.rbo_weight(q, d_grid), label=f"p = {q}")
    ax.set_xscale("log")
    ax.set_xlabel("prefix length d")
    ax.set_ylabel("weight of the prefix, W(1:d)")
    ax.set_ylim(0, 1.02)
    ax.legend(frameon=False)
    return fig


def weight_tables(ps, weights, depths):
    """The smallest depth reaching each target weight for each p, and the p giving the top d
    ranks each weight (NaN where no p reaches it); and a sentence on the often-quoted setting."""
    depth_table = pd.DataFrame({"p": ps, **{f"w = {w}": [R.depth_for_weight(q, w) for q in ps] for w in weights}})
    p_table = pd.DataFrame({"d": depths, **{f"w = {w}": [R.p_for_weight(d, w) if R.rbo_weight(1e-9, d) > w else np.nan
                                                           for d in depths] for w in weights}})
    sentence = (f"At $p = 0.98$ the top 50 ranks carry {100 * float(R.rbo_weight(0.98, 50)):.1f}% of the weight; "
                "the figure of 86% is often quoted for this setting.")
    return depth_table, p_table, sentence


def tie_variants(S_ties, T_ties, p: float):
    """The three tie variants of Corsi and Urbano for two lists with ties, and a sentence
    comparing RBO^a_min with the mean over every way of breaking the ties."""
    from rankbook.ties import parse_ranking, tie_breakings

    tied_S, tied_T = parse_ranking(S_ties), parse_ranking(T_ties)
    label = {"w": "RBOʷ (ties as equal ranks)", "a": "RBOᵃ (mean over tie orders)", "b": "RBOᵇ (RBOᵃ corrected)"}
    table = pd.DataFrame([{"variant": label[v], "base": R.rbo(tied_S, tied_T, p, ties=v),
                           "min": R.rbo_min(tied_S, tied_T, p, ties=v), "max": R.rbo_max(tied_S, tied_T, p, ties=v),
                           "ext": R.rbo_ext(tied_S, tied_T, p, ties=v)} for v in R.TIES])
    orders = [(a, b) for a in tie_breakings(tied_S) for b in tie_breakings(tied_T)]
    mean_min = float(np.mean([R.rbo_min(a, b, p) for a, b in orders]))
    sentence = (f"Breaking the ties in each of the {len(orders)} possible ways and averaging the tie-free "
                f"$\\mathrm{{RBO}}_{{\\min}}$ gives {mean_min:.6f}; $\\mathrm{{RBO}}^a_{{\\min}}$ computed from the "
                f"tied lists is {R.rbo_min(tied_S, tied_T, p, ties='a'):.6f}.")
    return tied_S, tied_T, table, sentence


def _shifted_min(p, X):
    return printed_rbo_min(p, X) + 1e-6


CHECKS = {
    "N-RBO-ex": claims.Check(check_overlap_example, smoke={}, mutants={
        "the published overlap moved (6)": {"published": {**read_overlap_example(), "overlap": 6}},
        "a wrong overlap count (items at the same rank)":
            {"overlaps": lambda S, T: np.cumsum([a == b for a, b in zip(S, T)])}}),
    "N-RBO-min": claims.Check(check_min_formula, smoke={"ps": (0.9,)}, mutants={
        "the formula with the sign of the logarithm flipped":
            {"formula": lambda p, X: printed_rbo_min(p, X) + 2 * (1 - p) / p * X[-1] * math.log(1 - p)},
        "the printed value moved beyond the tolerance": {"formula": _shifted_min}}),
    "N-RBO-res": claims.Check(check_res_formula, smoke={"ps": (0.9,)}, mutants={
        "the formula with f = 2k instead of 2k − X_k":
            {"formula": lambda p, X: printed_rbo_res(p, X, f=2 * len(X))}}),
    "N-RBO-W": claims.Check(check_weight_formula, smoke={"ps": (0.9,), "depths": (10,)}, mutants={
        "the formula without its leading 1 − p^(d−1)":
            {"formula": lambda p, d: printed_weight(p, d) - 1 + p ** (d - 1)}}),
    "N-RBO-bounds": claims.Check(check_bounds, smoke={"S": "abcdefg", "T": "zcavwxy", "p": 0.9, "n_random": 20,
                                                      "ext_depth": 400}, mutants={
        "bounds with the residual halved": {"bounds": lambda S, T, p: (R.rbo_min(S, T, p),
                                                                      R.rbo_min(S, T, p) + R.rbo_res(S, T, p) / 2)},
        "the base value taken as the lower bound plus a margin":
            {"bounds": lambda S, T, p: (R.rbo(S, T, p) + 0.05, R.rbo_bounds(S, T, p)[1])}}),
    "N-RBO-p": claims.Check(check_top_weight, smoke={"ps": (0.5, 0.9), "depths": (1, 10)}, mutants={
        "a wrong weight (the weight at 1 − p)": {"weight": lambda p, d: R.rbo_weight(1 - p, d)}}),
}


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
def limits(values: dict, root, timeout: float) -> None:
    """S and T hold distinct items (one per character); ext_depth reaches past both lists;
    n_seeds x n_random continuations to depth ext_depth fit in the time limit."""
    for key in ("S", "T"):
        text = values[key]
        if len(set(text)) != len(text):
            dup = next(x for x in text if text.count(x) > 1)
            raise ValueError(f"{key} = {text!r} repeats {dup!r}: a list holds distinct items, one "
                             "per character")
    longest = max(len(values["S"]), len(values["T"]))
    if values["ext_depth"] < longest:
        raise ValueError(f"ext_depth = {values['ext_depth']} must reach the end of the longer list "
                         f"({longest} items)")
    # measured: about 2.5 microseconds per rank of a continuation (300 x 100,000 in 67 s and
    # 10,000 x 500 in 17 s on a loaded 2-core machine), with a margin of 2
    seeds = values.get("n_seeds", 1)
    seconds = 2 * 2.5e-6 * seeds * values["n_random"] * values["ext_depth"]
    within_time(seconds, timeout,
                 f"scoring {seeds} x {values['n_random']} continuations to depth "
                 f"{values['ext_depth']}", "lower n_seeds, n_random or ext_depth (their product "
                 "should stay below 10^8)")
