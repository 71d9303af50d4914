"""Paper A read literally: the formulas of Appendix C as printed, and general statements of
Sections 3, 6.6 and 7 and Appendix A about all 33 metrics (page ``printed_formulas``).

One check per claim, each returning :class:`rankbook.ledger.claims.Evidence`:

* :func:`check_ndpm` (``A-C2``): the printed NDPM of Appendix C.2 is :math:`1/2 - \\tau`;
* :func:`check_f_mcc` (``A-C1``): the printed :math:`F_\\beta` and MCC of Appendix C.1;
* :func:`check_mrr_harmonic` (``A-C3-mrr``): "MRR is the harmonic mean" of Appendix C.3;
* :func:`check_error_symmetry` (``A-S3-error``): Section 3's "error metrics do not depend on
  which ranking is the truth";
* :func:`check_agreement_positive` (``A-P7.2-proof``): Section 7 and the proof of
  Proposition 7.2 call maximal agreement equivalent to positive definiteness;
* :func:`check_eq7_positive` (``A-S6.6-eq7``): eq. 7 makes :math:`m_{\\max} - m` positive
  definite (true by definition);
* :func:`check_self_similarity` (``A-AppA-self``): Appendix A's "only τ and ρ" have one
  self-similarity for every length.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pandas as pd

from rankbook import metrics, permutations, properties
from rankbook.ledger import claims
from rankbook.ledger.names import display, evidence_text
from rankbook.papers.paper_a import tables as paper_a_tables
from rankbook.ledger.limits import within_memory, within_time

#: Values closer than this count as equal (float sums of the same terms).
TOL = 1e-9

#: The error-based metrics of Table 1 (italic).
ERROR_METRICS = ("smape", "mape", "mae", "rmse", "mse", "r2")


def _pairs(n: int):
    perms = permutations.all_permutations(n)
    i, j = np.meshgrid(np.arange(len(perms)), np.arange(len(perms)), indexing="ij")
    return perms, perms[i.ravel()], perms[j.ravel()]


def _sub(n) -> str:
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def _k_of(name: str, k: int):
    return k if metrics.REGISTRY[name].needs_k else None


# --------------------------------------------------------------------------------------------
def check_ndpm(n: int = 5, *, n_table: int = 10, n_pairs: int = 1000, n_runs: int = 5,
               seed: int = 0, published: pd.DataFrame | None = None,
               printed: Callable | None = None) -> claims.Evidence:
    """Appendix C.2: the NDPM built from the printed sign sums, on all pairs of :math:`S_n`
    (claim ``A-C2``: the printed formula is Yao's NDPM).

    ``printed(sigma, nu)`` is the formula checked (default
    :func:`rankbook.papers.paper_a.tables.printed_ndpm`); ``published`` the Table 2 robustness
    rows (columns ``metric, change, n, published``) whose I(a) NDPM cell the printed formula is
    compared with. The claim holds when the printed formula equals Yao's NDPM
    (:func:`rankbook.metrics.ndpm`) on every pair.

    Examples
    --------
    >>> check_ndpm(3, n_table=5, n_pairs=50, n_runs=2, published=pd.DataFrame(
    ...     columns=["metric", "change", "n", "published"])).status
    'false'
    """
    printed = printed or paper_a_tables.printed_ndpm
    _, S, V = _pairs(n)
    value = np.asarray(printed(S, V), dtype=float)
    yao = metrics.ndpm(S, V)
    tau = metrics.kendall_tau(S, V)
    agree = np.abs(value - yao) <= TOL
    gap = float(np.abs(value - (0.5 - tau)).max())
    lo, hi = float(value.min()), float(value.max())

    def evaluate(names_, s, v, k=None):
        return {"ndpm": np.asarray(printed(s, v), dtype=float)}

    runs = dict(n_pairs=n_pairs, n_runs=n_runs, seed=seed, changes=["swap"])
    cell = paper_a_tables.summarize_runs(paper_a_tables.type_i_runs(
        ["ndpm"], n_table, None, evaluate=evaluate, **runs)).iloc[0]
    yao_cell = paper_a_tables.summarize_runs(paper_a_tables.type_i_runs(
        ["ndpm"], n_table, None, **runs)).iloc[0]
    pub = pd.DataFrame() if published is None else published[
        (published.metric == "ndpm") & (published.change == "swap") & (published.n == n_table)]
    pub_value = float(pub.published.iloc[0]) if len(pub) else float("nan")
    table = pd.DataFrame([
        {"check": f"all {len(S):,} pairs of S{_sub(n)}: largest |printed NDPM − (1/2 − τ)|",
         "value": f"{gap:.1e}"},
        {"check": f"all {len(S):,} pairs of S{_sub(n)}: pairs where it equals Yao's NDPM",
         "value": f"{int(agree.sum()):,}"},
        {"check": f"range of the printed NDPM on S{_sub(n)}", "value": f"[{lo:g}, {hi:g}]"},
        {"check": f"rob. I(a), n = {n_table}: mean change of the printed NDPM",
         "value": f"{cell.reproduced:.4f}"},
        {"check": f"rob. I(a), n = {n_table}: mean change of Yao's NDPM",
         "value": f"{yao_cell.reproduced:.4f}"},
        {"check": f"rob. I(a), n = {n_table}: printed in Table 2",
         "value": f"{pub_value:.2f}" if pub_value == pub_value else "not in the paper"},
    ])
    holds = bool(agree.all())
    findings = []
    if not holds:
        lines = [f"all {len(S):,} pairs of S{_sub(n)}: |printed NDPM − (1/2 − τ)| ≤ {gap:.1e}; "
                 f"range [{lo:g}, {hi:g}]; equal to Yao's NDPM on {int(agree.sum()):,} pairs",
                 f"rob. I(a), n = {n_table}: the printed NDPM changes by {cell.reproduced:.4f} on "
                 f"average, Yao's by {yao_cell.reproduced:.4f}"
                 + (f"; Table 2 prints {pub_value:.2f}" if pub_value == pub_value else "")]
        findings.append(claims.Finding(id="A-E11", evidence="\n".join(lines)))
    near_half_tau = gap <= TOL
    return claims.Evidence(
        claim="A-C2", comparison="claim", published="the sign sums of Appendix C.2",
        reproduced=("Yao's NDPM on every pair" if holds else
                    ("$1/2 - \\tau$ exactly" if near_half_tau else "another function")
                    + f", range [{lo:g}, {hi:g}]"),
        holds=holds, failures=None if holds else ["the printed sums are not Yao's NDPM"],
        detail=(f"all pairs of S{_sub(n)}; the printed formula would make the I(a) n = {n_table} "
                f"cell {cell.reproduced:.3f}"),
        findings=findings, tables={"ndpm": table},
        values={"gap": gap, "lo": lo, "hi": hi, "cell": float(cell.reproduced)})


# --------------------------------------------------------------------------------------------
def check_f_mcc(n: int = 5, k: int = 2, *, printed_f: Callable | None = None,
                printed_mcc: Callable | None = None) -> claims.Evidence:
    """Appendix C.1: the printed :math:`F_1` and MCC against the F-score and the Matthews
    correlation coefficient, on all pairs of :math:`S_n` with ``k`` relevant and ``k``
    retrieved items (claim ``A-C1``; two cases, one per formula).

    Examples
    --------
    >>> ev = check_f_mcc(4, 1)
    >>> ev.status, ev.matched, ev.total
    ('false', 0, 2)
    """
    printed_f = printed_f or paper_a_tables.printed_f_beta
    printed_mcc = printed_mcc or paper_a_tables.printed_mcc
    perms, S, V = _pairs(n)
    f1 = np.asarray(printed_f(S, V, k), dtype=float)
    std_f1 = metrics.f1(S, V, k=k)
    finite = np.isfinite(f1) & np.isfinite(std_f1)
    f_ok = bool(np.allclose(f1[finite], std_f1[finite], atol=TOL))
    values_f1 = sorted({round(float(x), 12) for x in f1[np.isfinite(f1)]})
    undefined_f1 = int((~np.isfinite(f1)).sum())
    mcc = np.asarray(printed_mcc(S, V, k), dtype=float)
    std = metrics.mcc(S, V, k=k)
    both = np.isfinite(mcc) & np.isfinite(std)
    mcc_ok = bool(np.allclose(mcc[both], std[both], atol=TOL))
    self_mcc = sorted({round(float(x), 12) for x in np.asarray(printed_mcc(perms, perms, k))})
    nz = both & (np.abs(mcc) > TOL)
    ratios = sorted({round(float(x), 9) for x in std[nz] / mcc[nz]})
    table = pd.DataFrame([
        {"formula": "F1 as printed", "values on all pairs": ", ".join(f"{x:g}" for x in values_f1)
         + (f"; undefined on {undefined_f1} pairs (nothing relevant retrieved)" if undefined_f1 else ""),
         "equals the standard one": f_ok},
        {"formula": "MCC as printed, on identical rankings",
         "values on all pairs": ", ".join(f"{x:.6g}" for x in self_mcc)
         + f" (1/(k(n−k)) = {1 / (k * (n - k)):.6g})", "equals the standard one": mcc_ok},
        {"formula": "standard MCC / printed MCC", "values on all pairs":
         ", ".join(f"{x:g}" for x in ratios) + f" (k(n−k) = {k * (n - k)})",
         "equals the standard one": mcc_ok},
    ])
    findings, failures = [], []
    if not f_ok:
        failures.append("$F_\\beta$ has a sum where a product belongs")
        findings.append(claims.Finding(
            id="A-E12", evidence=f"all {len(S):,} pairs of S{_sub(n)}, k = {k}: F1 as printed takes "
            f"the values {', '.join(f'{x:g}' for x in values_f1)}"
            + (f" (undefined on {undefined_f1} pairs with nothing relevant retrieved)"
               if undefined_f1 else "")
            + f"; it equals the F1 score on {int((np.abs(f1 - std_f1) <= TOL)[finite].sum())} pairs"))
    if not mcc_ok:
        failures.append("MCC lacks its square root")
        findings.append(claims.Finding(
            id="A-E13", evidence=f"all pairs of S{_sub(n)}, k = {k}: MCC(σ, σ) as printed = "
            f"{', '.join(f'{x:.4g}' for x in self_mcc)}, 1/(k(n − k)) = {1 / (k * (n - k)):.4g}; "
            f"standard / printed = {', '.join(f'{x:g}' for x in ratios)} on every pair where "
            "both are non-zero"))
    return claims.Evidence(
        claim="A-C1", comparison="claim", published="two formulas",
        reproduced=(f"F1 = {', '.join(f'{x:g}' for x in values_f1)}; "
                    f"MCC(σ, σ) = {', '.join(f'{x:.4g}' for x in self_mcc)}"),
        matched=int(f_ok) + int(mcc_ok), total=2, unit="formulas", failures=failures or None,
        detail=f"every pair of S{_sub(n)} with k = {k} relevant and retrieved items",
        findings=findings, tables={"f_mcc": table})


# --------------------------------------------------------------------------------------------
def check_mrr_harmonic(n: int = 5, k: int = 2, *, reading: str = "harmonic mean"
                       ) -> claims.Evidence:
    """Appendix C.3 calls MRR, :math:`\\frac{1}{|R|}\\sum_i 1/\\sigma(i)`, "the relevance
    scores' harmonic mean" (claim ``A-C3-mrr``). Checked on every top-``k`` list of :math:`S_n`: the printed MRR against the harmonic mean of
    :math:`\\sigma(1), \\dots, \\sigma(k)` (``reading="harmonic mean"``, the sentence) or its
    reciprocal (``reading="reciprocal"``).

    Examples
    --------
    >>> check_mrr_harmonic(4, 2).status, check_mrr_harmonic(4, 2, reading="reciprocal").status
    ('false', 'holds')
    """
    if reading not in ("harmonic mean", "reciprocal"):
        raise ValueError(f"reading must be 'harmonic mean' or 'reciprocal', got {reading!r}")
    if not 1 <= k < n:
        raise ValueError(f"need 1 <= k < n, got k={k}, n={n}")
    top = np.unique(permutations.all_permutations(n)[:, :k], axis=0).astype(float)
    mrr = (1.0 / top).mean(axis=1)
    hm = k / (1.0 / top).sum(axis=1)
    target = hm if reading == "harmonic mean" else 1.0 / hm
    ok = np.abs(mrr - target) <= TOL
    bad = np.flatnonzero(~ok)
    rows = [{"σ(1..k)": str(top[i].astype(int).tolist()), "MRR as printed": mrr[i],
             "harmonic mean": hm[i], "1 / harmonic mean": 1 / hm[i]} for i in range(min(4, len(top)))]
    findings = []
    if len(bad):
        i = int(bad[0])
        findings.append(claims.Finding(
            id="A-E153", evidence=(f"S{_sub(n)}, k = {k}: the printed MRR equals the harmonic mean "
                                   f"on {int(ok.sum())} of {len(ok)} top-k lists; e.g. σ(1..k) = "
                                   f"{top[i].astype(int).tolist()}: MRR = {mrr[i]:.4g}, harmonic "
                                   f"mean = {hm[i]:.4g}, MRR × harmonic mean = {mrr[i] * hm[i]:.4g}")))
    return claims.Evidence(
        claim="A-C3-mrr", comparison="claim", published="MRR is the harmonic mean",
        reproduced=f"MRR equals the {reading} on {int(ok.sum())} of {len(ok)} top-k lists",
        matched=int(ok.sum()), total=len(ok), unit="cases",
        failures=[f"σ(1..k) = {top[i].astype(int).tolist()}" for i in bad[:5]] or None,
        reading=reading, detail=f"every top-k list of S{_sub(n)}, k = {k} relevant items",
        findings=findings, tables={"mrr": pd.DataFrame(rows)})


# --------------------------------------------------------------------------------------------
def check_error_symmetry(n: int = 5, *, names: Sequence[str] = ERROR_METRICS,
                         implementations: dict | None = None) -> claims.Evidence:
    """Section 3: the error-based metrics "do not depend on which are the predicted and the
    true labels" (claim ``A-S3-error``), i.e. they are symmetric (Definition 5). Checked
    exhaustively on :math:`S_n` for each error metric of Table 1; ``implementations`` may
    replace a metric by another function (the mutation test).

    Examples
    --------
    >>> check_error_symmetry(3, names=("mse", "mae")).status
    'holds'
    """
    impl = implementations or {}
    rows, failures = [], []
    for name in names:
        r = properties.symmetry(impl.get(name, name), n)
        ev = evidence_text(r.evidence)
        rows.append({"metric": display(name), "symmetric": bool(r.holds), "counterexample": ev})
        if not r.holds:
            failures.append(display(name))
    table = pd.DataFrame(rows)
    ok = int(table["symmetric"].sum())
    findings = []
    if failures:
        findings.append(claims.Finding(
            id="A-E154", evidence="\n".join(f"{r['metric']} on S{_sub(n)} (exhaustive): "
                                            f"{r['counterexample']}"
                                            for r in rows if not r["symmetric"])))
    return claims.Evidence(
        claim="A-S3-error", comparison="claim", published="every error metric is symmetric",
        reproduced=f"{ok} of {len(table)} error metrics are symmetric",
        matched=ok, total=len(table), unit="metrics", failures=failures or None,
        detail=f"Definition 5 checked on every pair of S{_sub(n)}", findings=findings,
        tables={"symmetry": table})


# --------------------------------------------------------------------------------------------
def _agreement_rows(n: int, k: int, names: Sequence[str]) -> pd.DataFrame:
    rows = []
    for name in names:
        kk = _k_of(name, k)
        ma = properties.maximal_agreement(name, n, k=kk)
        values = properties.tabulate(name, n, k=kk).values
        low = float(np.nanmin(values))
        rows.append({"metric": name, "maximal agreement": bool(ma.holds),
                     "smallest value": low, "positive definite": bool(low >= -TOL),
                     "m_max": ma.bound, "counterexample": "" if ma.evidence is None
                     else evidence_text(ma.evidence)})
    return pd.DataFrame(rows)


def check_agreement_positive(n: int = 5, k: int = 2, *, names: Sequence[str] | None = None,
                             reading: str = "m itself") -> claims.Evidence:
    """Section 7 (and the proof of Proposition 7.2 on precision@k) call maximal agreement
    (Definition 15) *equivalent* to positive definiteness, "the values assigned by m are all
    non-negative" (claim ``A-P7.2-proof``).

    ``reading="m itself"`` (the sentence) compares, for each metric exhaustively on
    :math:`S_n`, maximal agreement of ``m`` with ``m >= 0``; ``reading="m_max - m"`` compares it
    with Section 6.6's form, ``m(σ, σ)`` constant and ``m_max - m >= 0``, which restates
    Definition 15 (see :func:`check_eq7_positive`). One case per metric.

    Examples
    --------
    >>> check_agreement_positive(3, 1, names=["kendall_tau", "mse"]).status
    'false'
    """
    if reading not in ("m itself", "m_max - m"):
        raise ValueError(f"reading must be 'm itself' or 'm_max - m', got {reading!r}")
    names = list(metrics.NAMES if names is None else names)
    t = _agreement_rows(n, k, names)
    if reading == "m itself":
        t["agree"] = t["maximal agreement"] == t["positive definite"]
    else:
        t["agree"] = True  # m <= m_max everywhere is m_max - m >= 0: the same inequality
    both = t[t["maximal agreement"] & ~t["positive definite"]]
    other = t[~t["maximal agreement"] & t["positive definite"]]
    bad = t[~t["agree"]]
    findings = []
    if len(bad):
        lines = []
        if len(both):
            r = both.iloc[0]
            lines.append(f"maximal agreement without positive definiteness on S{_sub(n)}: "
                         f"{', '.join(display(m) for m in both.metric)}; e.g. {display(r.metric)} "
                         f"has mₘₐₓ = {r.m_max:.4g} and reaches {r['smallest value']:.4g}")
        if len(other):
            r = other.iloc[0]
            lines.append(f"positive definite without maximal agreement: "
                         f"{', '.join(display(m) for m in other.metric)}; e.g. {display(r.metric)}: "
                         f"{r.counterexample}")
        findings.append(claims.Finding(id="A-E14", evidence="\n".join(lines),
                                       readings=["positive definiteness of m itself"]))
    shown = t.assign(metric=[display(m) for m in t.metric]).drop(columns=["agree"]).rename(
        columns={"m_max": "mₘₐₓ"})
    return claims.Evidence(
        claim="A-P7.2-proof", comparison="claim", published="equivalent properties",
        reproduced=(f"they agree on {int(t['agree'].sum())} of {len(t)} metrics; "
                    f"{len(both)} have maximal agreement and negative values, {len(other)} are "
                    "non-negative without maximal agreement"),
        matched=int(t["agree"].sum()), total=len(t), unit="metrics",
        failures=[display(m) for m in list(both.metric) + list(other.metric)
                  if m in set(bad.metric)] or None,
        reading=("positive definiteness of m itself, as Section 7 words it"
                 if reading == "m itself" else "positive definiteness of mₘₐₓ − m"),
        alternatives={"positive definiteness of mₘₐₓ − m (Section 6.6, true by definition)": len(t)},
        detail=f"Definition 15 and $m \\ge 0$ checked on every pair of S{_sub(n)}, k = {k}",
        findings=findings, tables={"agreement": shown},
        values={"both": list(both.metric), "other": list(other.metric)})


def check_eq7_positive(n: int = 5, k: int = 2, *, names: Sequence[str] | None = None
                       ) -> claims.Evidence:
    """Section 6.6, eq. 7: if ``m`` has maximal agreement, :math:`m_{\\max} - m` is positive
    definite (claim ``A-S6.6-eq7``). True by definition: part (b) of Definition 15,
    :math:`m \\le m_{\\max}`, is the same inequality as :math:`m_{\\max} - m \\ge 0`. The table
    shows the smallest value of :math:`m_{\\max} - m` for the metrics with maximal agreement.

    Examples
    --------
    >>> check_eq7_positive(3, 1, names=["kendall_tau"]).status
    'true by definition'
    """
    names = list(metrics.NAMES if names is None else names)
    t = _agreement_rows(n, k, names)
    t = t[t["maximal agreement"]]
    rows = []
    for r in t.itertuples():
        values = properties.tabulate(r.metric, n, k=_k_of(r.metric, k)).values
        rows.append({"metric": display(r.metric), "mₘₐₓ": r.m_max,
                     "smallest value of mₘₐₓ − m": float(np.nanmin(r.m_max - values))})
    return claims.Evidence(
        claim="A-S6.6-eq7", comparison="definition", published="$m_{\\max} - m \\ge 0$",
        reproduced=f"$m \\le m_{{\\max}}$ rearranged; {len(rows)} metrics with maximal agreement shown",
        detail="part (b) of Definition 15 is the inequality itself", tables={"eq7": pd.DataFrame(rows)})


# --------------------------------------------------------------------------------------------
def check_self_similarity(ns: Sequence[int] = (3, 5, 8, 13, 21), *, seed: int = 0,
                          n_seeds: int = 11, names: Sequence[str] | None = None,
                          published: Sequence[str] = ("kendall_tau", "spearman_rho")
                          ) -> claims.Evidence:
    """Appendix A: only Kendall's τ and Spearman's ρ (``published``) have one maximal value
    of :math:`m(\\sigma, \\sigma)`, the same for every length (claim ``A-AppA-self``).

    Each metric's self-value is computed on random rankings of every length in ``ns``, on
    ``n_seeds`` seeds (:func:`rankbook.papers.paper_a.tables.self_values`); a metric counts as
    constant only when it is constant on every seed. The claim holds when the constant metrics
    whose diagonal is their maximum (higher is closer) are exactly ``published``.

    Examples
    --------
    >>> check_self_similarity([3, 5], n_seeds=1, names=["kendall_tau", "recall"]).status
    'false'
    """
    names = list(metrics.NAMES if names is None else names)
    sv = pd.concat([paper_a_tables.self_values(names, ns, seed=s).assign(seed=s)
                    for s in range(seed, seed + n_seeds)], ignore_index=True)
    const = sv.groupby("metric").agg(lo=("min", "min"), hi=("max", "max"))
    constant = [m for m in names if np.isfinite(const.loc[m, "lo"])
                and const.loc[m, "lo"] == const.loc[m, "hi"]]
    maximal = [m for m in constant if metrics.REGISTRY[m].higher_is_closer]
    lower = [m for m in constant if not metrics.REGISTRY[m].higher_is_closer]
    extra = [m for m in maximal if m not in published]
    missing = [m for m in published if m in names and m not in maximal]
    holds = not extra and not missing
    per = sv.groupby(["seed", "metric"]).agg(lo=("min", "min"), hi=("max", "max"))
    by_seed = {sd: {m for m in names if metrics.REGISTRY[m].higher_is_closer
                    and np.isfinite(per.loc[(sd, m), "lo"]) and per.loc[(sd, m), "lo"] == per.loc[(sd, m), "hi"]}
               for sd in range(seed, seed + n_seeds)}
    wanted = {m for m in published if m in names}
    passed = sum(v == wanted for v in by_seed.values())
    wavering = sorted({m for v in by_seed.values() for m in v} - set(maximal), key=names.index)
    borderline = ""
    if wavering:
        borderline = ("constant on some seeds only: " + ", ".join(
            f"{display(m)} ({claims.seeds_phrase(sum(m in v for v in by_seed.values()), n_seeds)})"
            for m in wavering))
    table = pd.DataFrame({
        "metric": [display(m) for m in names],
        "m(σ, σ) over all n": [f"{const.loc[m, 'lo']:g}" if const.loc[m, "lo"] == const.loc[m, "hi"]
                                else f"{const.loc[m, 'lo']:g} .. {const.loc[m, 'hi']:g}" for m in names],
        "one constant": [m in constant for m in names],
        "the maximum": [m in maximal for m in names],
    })
    findings = []
    if extra:
        findings.append(claims.Finding(id="A-E15", evidence="\n".join([
            f"random rankings of length {', '.join(map(str, ns))} (k = max(1, n // 4)), "
            f"{claims.plural(n_seeds, 'seed')}, m(σ, σ): "
            + "; ".join(f"{display(m)} = {const.loc[m, 'lo']:g}" for m in extra),
            "the metrics where lower means closer have a constant minimum instead: "
            + (", ".join(display(m) for m in lower) or "none")])))
    return claims.Evidence(
        claim="A-AppA-self", comparison="claim",
        published=f"{len(published)} metrics ({', '.join(display(m) for m in published)})",
        reproduced=(f"{len(maximal)} metrics with a constant maximum (of the {len(constant)} "
                    "whose m(σ, σ) is one constant)"),
        holds=holds, failures=[display(m) for m in extra + missing] or None,
        detail=(f"200 random rankings of each length {', '.join(map(str, ns))} on each of "
                f"{claims.plural(n_seeds, 'seed')}; a metric counts as constant only when it is "
                "constant on every seed"),
        findings=findings, tables={"self": table}, borderline=borderline,
        seeds_passed=(passed, n_seeds) if n_seeds > 1 else None,
        values={"constant": constant, "maximal": maximal})


def _printed_is_yao(sigma, nu):
    return metrics.ndpm(sigma, nu)


CHECKS = {
    "A-C2": claims.Check(
        check_ndpm, smoke={"n": 4, "n_table": 6, "n_pairs": 100, "n_runs": 2},
        mutants={"a correct printed formula (Yao's NDPM)": {"printed": _printed_is_yao}}),
    "A-C1": claims.Check(
        check_f_mcc, smoke={"n": 4, "k": 2},
        mutants={"correct printed formulas (the F1 score and the MCC)": {
            "printed_f": lambda s, v, k: metrics.f1(s, v, k=k),
            "printed_mcc": lambda s, v, k: metrics.mcc(s, v, k=k)}}),
    "A-C3-mrr": claims.Check(
        check_mrr_harmonic, smoke={"n": 4, "k": 2},
        mutants={"the reading 'reciprocal of the harmonic mean'": {"reading": "reciprocal"}}),
    "A-S3-error": claims.Check(
        check_error_symmetry, smoke={"n": 4},
        mutants={"symmetric stand-ins for MAPE and R²": {
            "implementations": {"mape": "smape", "r2": "mse"}}}),
    "A-P7.2-proof": claims.Check(
        check_agreement_positive, smoke={"n": 4, "k": 2},
        mutants={"the reading of Section 6.6 (m_max − m)": {"reading": "m_max - m"},
                 "only metrics where the two coincide": {"names": ["precision", "recall"]}}),
    "A-S6.6-eq7": claims.Check(check_eq7_positive, smoke={"n": 4, "k": 2}),
    "A-AppA-self": claims.Check(
        check_self_similarity, smoke={"ns": [3, 5], "n_seeds": 2},
        mutants={"the metrics the paper names only": {"names": ["kendall_tau", "spearman_rho", "mse"]}}),
}


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
def limits(values: dict, root, timeout: float) -> None:
    """the printed NDPM's n_pairs x n_table^2 sign matrices fit in memory; the Type I cell
    (n_runs x n_pairs x n_table^2) and the self values (sum(ns_self) x n_seeds) fit in a cell's
    time limit."""
    n_table, n_pairs, n_runs = values["n_table"], values["n_pairs"], values["n_runs"]
    timeout = timeout
    # paper_a_tables.printed_ndpm holds about four int64 arrays of 2 x n_pairs x n_table^2
    # (the sums over all ordered pairs of positions, as printed) for a run's pairs at once
    within_memory(2 * 4 * 8 * n_pairs * n_table ** 2,
                   f"the printed NDPM (n_pairs = {n_pairs} pairs x n_table^2 = {n_table}^2 "
                   f"position pairs, as Appendix C.2 sums them)", "lower n_table or n_pairs")
    # measured: about 0.33 us per run, pair and position pair
    within_time(6e-7 * n_runs * n_pairs * n_table ** 2, timeout,
                 f"the printed NDPM (n_runs = {n_runs} x n_pairs = {n_pairs} x n_table^2 = "
                 f"{n_table}^2)", "lower n_runs, n_pairs or n_table")
    # measured: about 60 us per item of each length, per seed
    total = sum(values["ns_self"])
    within_time(1.2e-4 * total * values["n_seeds"], timeout,
                 f"the self values (sum(ns_self) = {total} items x n_seeds = "
                 f"{values['n_seeds']} seeds)", "use fewer or shorter ns_self, or fewer n_seeds")
