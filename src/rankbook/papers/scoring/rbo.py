"""The notes' section on rank-biased overlap (``notebooks/rbo_bounds.ipynb``).

The tables and figures of the page (worked examples, depth by depth, as a function of p,
random continuations, rank weights, tied items) and the checks of the notes' RBO claims
(ledger ``data/claims/notes.toml``; every number from the claim's ``params``, the notes'
example from its data ``example``): the overlap example; the printed formulas of
:math:`\\mathrm{RBO}_{\\min}`, :math:`\\mathrm{RBO}_{\\mathrm{res}}` and
:math:`W_{\\mathrm{RBO}}(1{:}d)`, each against a direct sum; the claim that the bounds contain
every continuation; the claim that a smaller p is more top-weighted; and, true by definition,
the range of RBO and the lower bounds of a prefix.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from rankbook import rbo as R
from rankbook.ledger import claims
from rankbook.ledger.claims import Evidence
from rankbook.ledger.limits import within_memory, within_time

__all__ = ["read_overlap_example", "examples_table", "check_range", "check_overlap_example",
           "by_depth_table", "check_base_lower", "p_figure", "check_min_formula",
           "check_res_formula", "check_weight_formula", "check_bounds", "continuations_figure",
           "check_top_weight", "weight_figure", "weight_tables", "tie_variants"]


def read_overlap_example(path) -> dict:
    """The notes' overlap example as published (the file ``path``): lists ``S`` and ``T``
    (integers), ``depth``, ``intersection`` (a set) and ``overlap``.

    Examples
    --------
    >>> from rankbook.ledger import claims
    >>> notes = [c for c in claims.ledger().for_page("rbo_bounds") if "example" in c.data][0]
    >>> read_overlap_example(notes.path("example"))["overlap"]
    7
    """
    table = pd.read_csv(path, comment="#", dtype=str)
    raw = dict(zip(table["quantity"], table["value"]))
    ints = lambda text: [int(x) for x in text.split()]  # noqa: E731
    return {"S": ints(raw["S"]), "T": ints(raw["T"]), "depth": int(raw["depth"]),
            "intersection": set(ints(raw["intersection"])), "overlap": int(raw["overlap"])}


def _summary(name, s, t, p):
    lo, hi = R.rbo_bounds(s, t, p)
    return {"example": name, "S": " ".join(map(str, s)), "T": " ".join(map(str, t)),
            "base": R.rbo(s, t, p), "min": lo, "res": hi - lo, "min + res": hi, "ext": R.rbo_ext(s, t, p)}


def examples_table(S, T, p: float, example: dict) -> pd.DataFrame:
    """Base, bounds and extrapolation of the worked example, the notes' example (``example``,
    :func:`read_overlap_example`) and four small cases."""
    ex = example
    return pd.DataFrame([
        _summary("worked example", list(S), list(T), p),
        _summary("notes' example", ex["S"], ex["T"], p),
        _summary("identical", list("abcde"), list("abcde"), p),
        _summary("one swap at the top", list("abcde"), list("bacde"), p),
        _summary("uneven lengths", list("abcde"), list("abxcdyzw"), p),
        _summary("disjoint", list("abcde"), list("vwxyz"), p),
    ])


def check_range(claim: claims.Claim, *, S, T, p: float) -> Evidence:
    """The overlap lies between 0 and the depth, so the agreement and RBO lie in [0, 1], 0 for
    disjoint and 1 for identical lists: true by definition. The evidence shows the base, bounds
    and extrapolation of the worked example ``S``, ``T`` at ``p``, of the notes' example (the
    claim's data ``example``) and of four small cases, identical and disjoint lists among them."""
    table = examples_table(S, T, p, read_overlap_example(claim.path("example")))
    rows = table.set_index("example")
    ev = claim.evidence(
        comparison="definition", published="RBO in [0, 1]: 0 for disjoint lists, 1 for identical ones",
        reproduced=(f"identical lists: base {rows.loc['identical', 'base']:.4f}, extrapolated "
                    f"{rows.loc['identical', 'ext']:.4f}; disjoint lists: minimum {rows.loc['disjoint', 'min']:.4f}, "
                    f"extrapolated {rows.loc['disjoint', 'ext']:.4f}"),
        detail="an intersection of two d-prefixes has at most d items, and the weights sum to 1")
    ev.add_table("rbo_examples", table, title=f"RBO base, bounds and extrapolation at p = {p}",
                 float_format="{:.4f}")
    return ev


def check_overlap_example(claim: claims.Claim, *, published=None, overlaps=R.overlaps) -> Evidence:
    """The notes' overlap example (intersection and overlap at the shorter length, the claim's
    data ``example``).

    The intersection is computed directly from the two prefixes (set intersection) and the
    overlap by :func:`rankbook.rbo.overlaps` (``overlaps`` injects another implementation);
    both are compared with the published values (``published`` replaces them). The agreement
    :math:`A_d = X_d/d` follows from the overlap by definition and is shown, not counted."""
    ex = published or read_overlap_example(claim.path("example"))
    S, T, d = ex["S"], ex["T"], ex["depth"]
    inter = set(S[:d]) & set(T[:d])
    X = np.asarray(overlaps(S, T))
    x_d = int(X[d - 1])
    same = {"intersection": inter == ex["intersection"], "overlap": x_d == ex["overlap"]}
    return claim.evidence(
        comparison="exact",
        published=f"$I_{{{d}}}$ = {{{', '.join(map(str, sorted(ex['intersection'])))}}}, $X_{{{d}}}$ = {ex['overlap']}",
        reproduced=f"$I_{{{d}}}$ = {{{', '.join(map(str, sorted(inter)))}}}, $X_{{{d}}}$ = {x_d}",
        matched=sum(same.values()), total=len(same), unit="values",
        detail=f"intersection of the two prefixes at depth {d} and rankbook's overlap count; the agreement "
               f"$A_{{{d}}} = X_{{{d}}}/{d}$ = {x_d / d:.3f} follows by definition",
        values={"overlaps": X.tolist(), "depth": d})


def moved_overlap(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the published overlap moved down by one."""
    ex = read_overlap_example(claim.path("example"))
    return {"published": {**ex, "overlap": ex["overlap"] - 1}}


def same_rank_overlaps(claim: claims.Claim, **smoke) -> dict:
    """Mutant: a wrong overlap count (the items at the same rank only)."""
    return {"overlaps": lambda S, T: np.cumsum([a == b for a, b in zip(S, T)])}


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


def check_base_lower(claim: claims.Claim, *, S, T, p: float) -> Evidence:
    """RBO@k, the prefix sum, is a lower bound of the full RBO, and RBO_min improves on it: true
    by definition (the prefix sum drops non-negative terms; RBO_min adds the smallest agreement
    the unseen ranks can have). The evidence shows :func:`by_depth_table` of ``S`` and ``T``."""
    table = by_depth_table(S, T, p)
    gap = table["min"] - table["base"]
    ev = claim.evidence(
        comparison="definition", published="base ≤ minimum ≤ full RBO of any continuation",
        reproduced=(f"the worked example at p = {p:g}: the minimum exceeds the base by {gap.min():.4f} to "
                    f"{gap.max():.4f} over the depths 1 to {len(table)}"),
        detail="the prefix sum drops non-negative terms; the minimum adds $X_k/d$ at each depth $d > k$")
    ev.add_table("rbo_by_depth", table, title=f"The worked example prefix by prefix (p = {p})",
                 float_format="{:.4f}", collapse=True)
    return ev


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


def _depth_for(p: float, start: int, tail: float) -> int:
    """A depth past ``start`` where :math:`p^d` falls below ``tail``."""
    return start + int(math.ceil(math.log(tail) / math.log(p)))


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


def _formula_cases(ps, ex):
    for name, (s, t) in FORMULA_CASES.items():
        if s is None:
            s, t = ex["S"][: ex["depth"]], ex["T"][: ex["depth"]]
        for p in ps:
            yield name, list(s), list(t), float(p)


#: How the page names each closed form's table (its stem) and the formula in its title.
FORMULA_TABLES = {"check_min_formula": ("rbo_formula_min", "RBO_min"),
                  "check_res_formula": ("rbo_formula_res", "RBO_res"),
                  "check_weight_formula": ("rbo_formula_w", "W_RBO(1:d)")}


def _formula_evidence(claim: claims.Claim, function: str, rows, detail: str = "") -> Evidence:
    tolerance = claim.params["tolerance"]
    stem, label = FORMULA_TABLES[function]
    bad = [r for r in rows if not abs(r["printed"] - r["direct"]) <= tolerance]
    worst = max(abs(r["printed"] - r["direct"]) for r in rows)
    ev = claim.evidence(
        comparison="exact", published=f"the closed form of {label}",
        reproduced=f"{len(rows) - len(bad)} of {len(rows)} cases agree with the direct sum "
                   f"(largest difference {worst:.1e})",
        matched=len(rows) - len(bad), total=len(rows), unit="cases",
        detail=detail or (f"agreement within {tolerance:g}; cases: " + "; ".join(sorted({r['case'] for r in rows}))))
    ev.add_table(stem, pd.DataFrame(rows), float_format="{:.6f}", collapse=True,
                 title=f"The notes' closed form of {label} against the direct sum: {ev.reproduced}")
    return ev


def check_min_formula(claim: claims.Claim, *, ps=None, formula=printed_rbo_min) -> Evidence:
    """The notes' closed form of :math:`\\mathrm{RBO}_{\\min}` equals the full RBO of the
    continuation in which nothing unseen ever matches, summed directly to a depth where
    :math:`p^d` is below ``claim.params["tail"]``, within ``claim.params["tolerance"]``, for the
    persistences ``ps`` (default ``claim.params["ps"]``). ``formula`` replaces the printed form
    (the mutation test)."""
    ps = claim.params["ps"] if ps is None else ps
    rows = []
    for name, s, t, p in _formula_cases(ps, read_overlap_example(claim.path("example"))):
        depth = _depth_for(p, len(s), claim.params["tail"])
        (ls, lt), _ = _extreme_lists(s, t, depth)
        rows.append({"case": name, "p": p, "printed": formula(p, R.overlaps(s, t)),
                     "direct": R.rbo(ls, lt, p, depth=depth), "rankbook": R.rbo_min(s, t, p)})
    return _formula_evidence(claim, "check_min_formula", rows)


def min_log_flipped(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the printed RBO_min with the sign of its logarithm flipped."""
    return {"formula": lambda p, X: printed_rbo_min(p, X) + 2 * (1 - p) / p * X[-1] * math.log(1 - p)}


def min_shifted(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the printed RBO_min moved by a millionth."""
    return {"formula": lambda p, X: printed_rbo_min(p, X) + 1e-6}


def check_res_formula(claim: claims.Claim, *, ps=None, formula=printed_rbo_res) -> Evidence:
    """The notes' closed form of :math:`\\mathrm{RBO}_{\\mathrm{res}}` (with
    :math:`f = 2k - X_k`) equals the full RBO of the continuation that matches every unseen
    item as early as possible minus that of the one that matches none, summed directly (numbers
    as for :func:`check_min_formula`)."""
    ps = claim.params["ps"] if ps is None else ps
    rows = []
    for name, s, t, p in _formula_cases(ps, read_overlap_example(claim.path("example"))):
        depth = _depth_for(p, 2 * len(s), claim.params["tail"])
        (ls, lt), (hs, ht) = _extreme_lists(s, t, depth)
        rows.append({"case": name, "p": p, "printed": formula(p, R.overlaps(s, t)),
                     "direct": R.rbo(hs, ht, p, depth=depth) - R.rbo(ls, lt, p, depth=depth),
                     "rankbook": R.rbo_res(s, t, p)})
    return _formula_evidence(claim, "check_res_formula", rows)


def res_without_overlap(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the printed RBO_res with f = 2k instead of 2k − X_k."""
    return {"formula": lambda p, X: printed_rbo_res(p, X, f=2 * len(X))}


def direct_weight(p: float, d: int, tail: float) -> float:
    """:math:`\\sum_{j \\le d} W_{\\mathrm{RBO}}(j)` with the rank weights summed directly,
    each to a depth where :math:`p^i` is below ``tail``."""
    n = _depth_for(p, d, tail)
    i = np.arange(1, n + 1)
    terms = p**i / i
    tails = np.cumsum(terms[::-1])[::-1]  # tails[j-1] = sum_{i >= j} p^i / i
    return float((1 - p) / p * np.sum(tails[:d]))


def check_weight_formula(claim: claims.Claim, *, ps=None, depths=None, formula=printed_weight) -> Evidence:
    """The notes' closed form of the prefix weight :math:`W_{\\mathrm{RBO}}(1{:}d)` equals the
    sum of the rank weights :math:`W_{\\mathrm{RBO}}(j)`, :math:`j \\le d`, each summed
    directly (``ps``, ``depths``, the tail and the tolerance default to ``claim.params``)."""
    ps = claim.params["ps"] if ps is None else ps
    depths = claim.params["depths"] if depths is None else depths
    tail, tolerance = claim.params["tail"], claim.params["tolerance"]
    rows = [{"case": f"p = {p:g}, d = {d}", "p": p, "d": d, "printed": formula(p, d),
             "direct": direct_weight(p, d, tail), "rankbook": float(R.rbo_weight(p, d))}
            for p in ps for d in depths]
    return _formula_evidence(claim, "check_weight_formula", rows, detail=(
        f"agreement within {tolerance:g}; p in {', '.join(f'{p:g}' for p in ps)}, "
        f"d in {', '.join(map(str, depths))}"))


def weight_without_head(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the printed prefix weight without its leading 1 − p^(d−1)."""
    return {"formula": lambda p, d: printed_weight(p, d) - 1 + p ** (d - 1)}


# --------------------------------------------------------------------------------------------
# Bounds against random continuations
# --------------------------------------------------------------------------------------------
def check_bounds(claim: claims.Claim, *, S, T, p: float, n_random: int, ext_depth: int, seed: int,
                 n_seeds: int, bounds=R.rbo_bounds) -> Evidence:
    """The full RBO of every continuation of two prefixes lies within
    :math:`[\\mathrm{RBO}_{\\min}, \\mathrm{RBO}_{\\min} + \\mathrm{RBO}_{\\mathrm{res}}]`.

    Random continuations (``n_random`` per seed, ``n_seeds`` seeds) must fall inside within
    ``claim.params["inside"]``, and, for prefixes of equal length, the two extreme
    continuations (summed until :math:`p^d` is below ``claim.params["tail"]``) must reach the
    bounds within ``claim.params["tight"]``. ``bounds`` injects another implementation of the
    bounds (the mutation test)."""
    margin, reach = claim.params["inside"], claim.params["tight"]
    values = np.concatenate([R.random_extension_rbo(S, T, p, n=n_random, depth=ext_depth, seed=s)
                             for s in range(seed, seed + n_seeds)])
    lo, hi = bounds(S, T, p)
    inside = (values >= lo - margin) & (values <= hi + margin)
    failures = [f"a random continuation scores {v:.4f}" for v in values[~inside]][:20]
    total, matched = len(values), int(inside.sum())
    tight = ""
    if len(S) == len(T):
        depth = max(ext_depth, _depth_for(p, 2 * len(S), claim.params["tail"]))
        (ls, lt), (hs, ht) = _extreme_lists(S, T, depth)
        ends = {"the continuation that never matches reaches the minimum": (R.rbo(ls, lt, p, depth=depth), lo),
                "the continuation that matches as early as possible reaches the maximum": (R.rbo(hs, ht, p, depth=depth), hi)}
        for name, (v, b) in ends.items():
            total += 1
            if abs(v - b) <= reach:
                matched += 1
            else:
                failures.append(f"{name.replace('reaches', 'misses')} ({v:.6f} against {b:.6f})")
        tight = "; both extreme continuations reach the bounds" if not failures else ""
    return claim.evidence(
        comparison="claim", published="every continuation within the bounds",
        reproduced=f"[{lo:.4f}, {hi:.4f}]; {int(inside.sum())} of {len(values)} random continuations inside{tight}",
        matched=matched, total=total, unit="continuations", failures=failures or None,
        detail=f"{claims.plural(n_seeds, 'seed')} of {n_random} random "
               f"continuations to depth {ext_depth} at p = {p}, and the two extreme continuations",
        values={"values": values, "first_seed": values[:n_random], "lo": lo, "hi": hi,
                "tail": p**ext_depth})


def residual_halved(claim: claims.Claim, **smoke) -> dict:
    """Mutant: bounds whose residual is halved."""
    return {"bounds": lambda S, T, p: (R.rbo_min(S, T, p), R.rbo_min(S, T, p) + R.rbo_res(S, T, p) / 2)}


def raised_minimum(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the lower bound raised to half way between the base value and the upper bound."""
    def bounds(S, T, p):
        hi = R.rbo_bounds(S, T, p)[1]
        return (R.rbo(S, T, p) + hi) / 2, hi
    return {"bounds": bounds}


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
def check_top_weight(claim: claims.Claim, *, ps=None, depths=None, weight=R.rbo_weight) -> Evidence:
    """The smaller p, the more top-weighted RBO: for every prefix length d, the weight
    :math:`W_{\\mathrm{RBO}}(1{:}d)` falls strictly as p grows (``ps`` and ``depths`` default to
    ``claim.params``; ``weight`` injects another implementation)."""
    ps = sorted(float(p) for p in (claim.params["ps"] if ps is None else ps))
    depths = claim.params["depths"] if depths is None else depths
    failures = []
    for d in depths:
        w = [float(weight(p, d)) for p in ps]
        failures += [f"d = {d}: W = {w[i]:.4f} at p = {ps[i]:g} but {w[i + 1]:.4f} at p = {ps[i + 1]:g}"
                     for i in range(len(ps) - 1) if not w[i + 1] < w[i]]
    total = len(depths) * (len(ps) - 1)
    if total == 0:  # one value of p: no step in p to compare, said on the page
        return claim.evidence(
            comparison="none", published="a smaller p weights the top ranks more",
            reproduced="one value of p: no step in p to compare",
            detail="rerun with two or more values of p")
    return claim.evidence(
        comparison="claim", published="a smaller p weights the top ranks more",
        reproduced=f"{total - len(failures)} of {total} steps in p lower the weight of the prefix",
        matched=total - len(failures), total=total, unit="steps", failures=failures[:10] or None,
        detail=f"p in {', '.join(f'{p:g}' for p in ps)}; prefix lengths {', '.join(map(str, depths))}")


def weight_of_complement(claim: claims.Claim, **smoke) -> dict:
    """Mutant: a wrong weight, that of the persistence 1 − p."""
    return {"weight": lambda p, d: R.rbo_weight(1 - p, d)}


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
