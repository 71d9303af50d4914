"""Paper A read literally: the formulas of Appendix C as printed, and general statements of
Sections 3 to 7 and Appendix A about all 33 metrics (page ``printed_formulas``).

One check per claim, each receiving its ledger entry (the numbers of its rule and the paper's
settings in ``claim.params``, data by role, errata by role) and returning
:class:`rankbook.ledger.claims.Evidence`:

* :func:`check_ndpm`: the printed NDPM of Appendix C.2 is :math:`1/2 - \\tau`;
* :func:`check_f_mcc`: the printed :math:`F_\\beta` and MCC of Appendix C.1;
* :func:`check_error_sums`: Appendix C.3.1 prints MSE and MAE as sums, Table 2 needs means;
* :func:`check_mrr_harmonic`: "MRR is the harmonic mean" of Appendix C.3;
* :func:`check_error_symmetry`: Section 3's "error metrics do not depend on which ranking is
  the truth";
* :func:`check_nonnegative`: Section 4's metric as a map into the non-negative reals;
* :func:`check_agreement_positive`: Section 7 and the proof of Proposition 7.2 call maximal
  agreement equivalent to positive definiteness;
* :func:`check_eq7_positive`: eq. 7 makes :math:`m_{\\max} - m` positive definite (true by
  definition);
* :func:`check_self_similarity`: Appendix A's "only τ and ρ" have one self-similarity for every
  length;
* :func:`check_reverse`: Appendix A's "τ gives its minimum to a ranking and its inverse, which
  most metrics do not";
* the statements true by definition of Appendices A and C and Section 6.6
  (:func:`check_upper_bound`, :func:`check_sets`, :func:`check_bounded`).

The ``perturb`` functions at the end serve the mutation test of the ledger.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pandas as pd

from rankbook import metrics, permutations, properties
from rankbook.ledger import claims
from rankbook.ledger.limits import within_memory, within_time
from rankbook.ledger.names import display, evidence_text
from rankbook.papers.paper_a import tables as paper_a_tables


def _pairs(n: int):
    perms = permutations.all_permutations(n)
    i, j = np.meshgrid(np.arange(len(perms)), np.arange(len(perms)), indexing="ij")
    return perms, perms[i.ravel()], perms[j.ravel()]


def _sub(n) -> str:
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def _k_of(name: str, k: int):
    return k if metrics.REGISTRY[name].needs_k else None


def _given(claim: claims.Claim, **values):
    """Each value given, or the paper's setting of the same name from the ledger entry."""
    out = [claim.params[key] if value is None else value for key, value in values.items()]
    return out[0] if len(out) == 1 else out


# --------------------------------------------------------------------------------------------
def check_ndpm(claim: claims.Claim, n: int | None = None, *, n_table: int | None = None,
               n_pairs: int | None = None, n_runs: int | None = None, seed: int = 0,
               published: pd.DataFrame | None = None,
               printed: Callable | None = None) -> claims.Evidence:
    """Appendix C.2: the NDPM built from the printed sign sums, on all pairs of :math:`S_n`
    (the printed formula is Yao's NDPM).

    ``printed(sigma, nu)`` is the formula checked (default
    :func:`rankbook.papers.paper_a.tables.printed_ndpm`); ``published`` the Table 2 robustness
    rows (default the file ``claim.path("printed")``) whose I(a) NDPM cell the printed formula
    is compared with. The claim holds when the printed formula equals Yao's NDPM
    (:func:`rankbook.metrics.ndpm`) within ``params.tolerance`` on every pair.
    """
    n, n_table, n_pairs, n_runs = _given(claim, n=n, n_table=n_table, n_pairs=n_pairs,
                                         n_runs=n_runs)
    tol = float(claim.params["tolerance"])
    printed = printed or paper_a_tables.printed_ndpm
    _, S, V = _pairs(n)
    value = np.asarray(printed(S, V), dtype=float)
    yao = metrics.ndpm(S, V)
    tau = metrics.kendall_tau(S, V)
    agree = np.abs(value - yao) <= tol
    gap = float(np.abs(value - (0.5 - tau)).max())
    lo, hi = float(value.min()), float(value.max())

    def evaluate(names_, s, v, k=None):
        return {"ndpm": np.asarray(printed(s, v), dtype=float)}

    runs = dict(n_pairs=n_pairs, n_runs=n_runs, seed=seed, changes=["swap"])
    cell = paper_a_tables.summarize_runs(paper_a_tables.type_i_runs(
        ["ndpm"], n_table, None, evaluate=evaluate, **runs)).iloc[0]
    yao_cell = paper_a_tables.summarize_runs(paper_a_tables.type_i_runs(
        ["ndpm"], n_table, None, **runs)).iloc[0]
    if published is None:
        published = pd.read_csv(claim.path("printed"), comment="#")
    pub = published[(published.metric == "ndpm") & (published.change == "swap")
                     & (published.n == n_table)]
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
    if not holds and claim.has_finding("formula"):
        lines = [f"all {len(S):,} pairs of S{_sub(n)}: |printed NDPM − (1/2 − τ)| ≤ {gap:.1e}; "
                 f"range [{lo:g}, {hi:g}]; equal to Yao's NDPM on {int(agree.sum()):,} pairs",
                 f"rob. I(a), n = {n_table}: the printed NDPM changes by {cell.reproduced:.4f} on "
                 f"average, Yao's by {yao_cell.reproduced:.4f}"
                 + (f"; Table 2 prints {pub_value:.2f}" if pub_value == pub_value else "")]
        findings.append(claim.finding("formula", evidence="\n".join(lines)))
    near_half_tau = gap <= tol
    return claim.evidence(
        comparison="claim", published="the sign sums of Appendix C.2",
        reproduced=("Yao's NDPM on every pair" if holds else
                    ("$1/2 - \\tau$ exactly" if near_half_tau else "another function")
                    + f", range [{lo:g}, {hi:g}]"),
        holds=holds, failures=None if holds else ["the printed sums are not Yao's NDPM"],
        detail=(f"all pairs of S{_sub(n)}; the printed formula would make the I(a) n = {n_table} "
                f"cell {cell.reproduced:.3f}"),
        findings=findings, tables={"ndpm": table},
        values={"gap": gap, "lo": lo, "hi": hi, "cell": float(cell.reproduced)})


# --------------------------------------------------------------------------------------------
def check_f_mcc(claim: claims.Claim, n: int | None = None, k: int | None = None, *,
                printed_f: Callable | None = None,
                printed_mcc: Callable | None = None) -> claims.Evidence:
    """Appendix C.1: the printed :math:`F_1` and MCC against the F-score and the Matthews
    correlation coefficient, on all pairs of :math:`S_n` with ``k`` relevant and ``k``
    retrieved items (two cases, one per formula; equal within ``params.tolerance``)."""
    n, k = _given(claim, n=n, k=k)
    tol = float(claim.params["tolerance"])
    printed_f = printed_f or paper_a_tables.printed_f_beta
    printed_mcc = printed_mcc or paper_a_tables.printed_mcc
    perms, S, V = _pairs(n)
    f1 = np.asarray(printed_f(S, V, k), dtype=float)
    std_f1 = metrics.f1(S, V, k=k)
    finite = np.isfinite(f1) & np.isfinite(std_f1)
    f_ok = bool(np.allclose(f1[finite], std_f1[finite], atol=tol))
    values_f1 = sorted({round(float(x), 12) for x in f1[np.isfinite(f1)]})
    undefined_f1 = int((~np.isfinite(f1)).sum())
    mcc = np.asarray(printed_mcc(S, V, k), dtype=float)
    std = metrics.mcc(S, V, k=k)
    both = np.isfinite(mcc) & np.isfinite(std)
    mcc_ok = bool(np.allclose(mcc[both], std[both], atol=tol))
    self_mcc = sorted({round(float(x), 12) for x in np.asarray(printed_mcc(perms, perms, k))})
    nz = both & (np.abs(mcc) > tol)
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
        if claim.has_finding("f_beta"):
            findings.append(claim.finding(
                "f_beta", evidence=f"all {len(S):,} pairs of S{_sub(n)}, k = {k}: F1 as printed "
                f"takes the values {', '.join(f'{x:g}' for x in values_f1)}"
                + (f" (undefined on {undefined_f1} pairs with nothing relevant retrieved)"
                   if undefined_f1 else "")
                + f"; it equals the F1 score on {int((np.abs(f1 - std_f1) <= tol)[finite].sum())} pairs"))
    if not mcc_ok:
        failures.append("MCC lacks its square root")
        if claim.has_finding("mcc"):
            findings.append(claim.finding(
                "mcc", evidence=f"all pairs of S{_sub(n)}, k = {k}: MCC(σ, σ) as printed = "
                f"{', '.join(f'{x:.4g}' for x in self_mcc)}, 1/(k(n − k)) = {1 / (k * (n - k)):.4g}; "
                f"standard / printed = {', '.join(f'{x:g}' for x in ratios)} on every pair where "
                "both are non-zero"))
    return claim.evidence(
        comparison="claim", published="two formulas",
        reproduced=(f"F1 = {', '.join(f'{x:g}' for x in values_f1)}; "
                    f"MCC(σ, σ) = {', '.join(f'{x:.4g}' for x in self_mcc)}"),
        matched=int(f_ok) + int(mcc_ok), total=2, unit="formulas", failures=failures or None,
        detail=f"every pair of S{_sub(n)} with k = {k} relevant and retrieved items",
        findings=findings, tables={"f_mcc": table})


# --------------------------------------------------------------------------------------------
#: The error metrics that Appendix C.3.1 prints as sums over the positions, and how each is
#: built from the sums (RMSE is the root of the printed MSE).
_SUMS = {
    "mse": lambda d: (d ** 2).sum(axis=-1),
    "rmse": lambda d: np.sqrt((d ** 2).sum(axis=-1)),
    "mae": lambda d: np.abs(d).sum(axis=-1),
}


def printed_error_sums(names, sigma, nu, k=None) -> dict:
    """MSE, RMSE and MAE as Appendix C.3.1 prints them: sums over the n positions,
    :math:`\\sum_i (\\sigma(i) - \\tau(i))^2`, its root, and :math:`\\sum_i |\\sigma(i) -
    \\tau(i)|` (the means of :mod:`rankbook.metrics` divided by nothing); an ``evaluate`` of
    :func:`rankbook.robustness.type_i_runs`.

    Examples
    --------
    >>> {m: float(v) for m, v in printed_error_sums(["mse", "mae"], [1, 2, 3], [3, 2, 1]).items()}
    {'mse': 8.0, 'mae': 4.0}
    """
    unknown = [m for m in names if m not in _SUMS]
    if unknown:
        raise ValueError(f"no printed sum for {unknown}; valid: {sorted(_SUMS)}")
    d = np.asarray(sigma, float) - np.asarray(nu, float)
    return {m: _SUMS[m](d) for m in names}


def check_error_sums(claim: claims.Claim, published: pd.DataFrame | None = None, *,
                     ns: Sequence[int] | None = None, n_pairs: int | None = None,
                     n_runs: int | None = None, seed: int = 0,
                     reading: str = "sums") -> claims.Evidence:
    """Appendix C.3.1 prints MSE and MAE as sums over the positions (and RMSE as the root of
    that MSE), while its own words say the error metrics "return an average". The claim: the
    printed formulas are the metrics behind Table 2's cells of MSE, RMSE and MAE. Each printed
    cell (``claim.path("printed")``, or ``published``) is simulated under the printed sums
    (``reading="sums"``) or the means (``"means"``, the other reading, shown beside it), on
    ``n_runs`` runs of ``n_pairs`` pairs, and matches within ``tolerance.abs`` +
    ``tolerance.n_sd`` sd; the claim holds when every cell matches under the printed sums."""
    if reading not in ("sums", "means"):
        raise ValueError(f"reading must be 'sums' or 'means', got {reading!r}")
    ns, n_pairs, n_runs = _given(claim, ns=ns, n_pairs=n_pairs, n_runs=n_runs)
    abs_tol, n_sd = float(claim.param("tolerance.abs")), float(claim.param("tolerance.n_sd"))
    names = list(claim.params["metrics"])
    if published is None:
        published = pd.read_csv(claim.path("printed"), comment="#")
    published = published[published["metric"].isin(names) & published["n"].isin(ns)]
    frames = []
    for n in ns:
        for label, evaluate in (("sums", printed_error_sums), ("means", None)):
            runs = paper_a_tables.type_i_runs(names, int(n), None, n_pairs=int(n_pairs),
                                              n_runs=int(n_runs), seed=seed, evaluate=evaluate)
            frames.append(paper_a_tables.summarize_runs(runs).assign(reading=label))
    sim = pd.concat(frames, ignore_index=True)
    both = published.merge(sim, on=["metric", "change", "n"], how="inner")
    both["status"] = paper_a_tables.cell_status(both["published"], both["reproduced"], both["sd"],
                                                abs_tol=abs_tol, n_sd=n_sd)
    wide = both.pivot_table(index=["metric", "change", "n", "published"], columns="reading",
                            values=["reproduced", "status"], aggfunc="first")
    counts = {r: int((both[both["reading"] == r]["status"] == "match").sum()) for r in ("sums", "means")}
    mine = both[both["reading"] == reading]
    failing = mine[mine["status"] != "match"]
    cell = lambda r: f"{display(r.metric)}, I({'a' if r.change == 'swap' else 'b'}) n = {r.n}"
    table = pd.DataFrame([{
        "cell": f"{display(m)}, I({'a' if c == 'swap' else 'b'}) n = {n}", "printed": p,
        "as sums (Appendix C.3.1)": wide.loc[(m, c, n, p), ("reproduced", "sums")],
        "as means": wide.loc[(m, c, n, p), ("reproduced", "means")],
        "matches as sums": wide.loc[(m, c, n, p), ("status", "sums")] == "match",
        "matches as means": wide.loc[(m, c, n, p), ("status", "means")] == "match"}
        for m, c, n, p in wide.index])
    findings = []
    if len(failing) and reading == "sums" and claim.has_finding("sums"):
        worst = failing.iloc[0]
        findings.append(claim.finding("sums", cells=[cell(r) for r in failing.itertuples()],
                                      evidence="\n".join([
            f"{len(failing)} of {len(mine)} printed cells of {', '.join(display(m) for m in names)} "
            f"are out of reach under the printed sums; the means reproduce {counts['means']} of "
            f"{len(mine)}",
            f"e.g. {cell(worst)}: printed {worst.published:.2f}, as a sum {worst.reproduced:.4g} "
            f"(the mean times n = {worst.n}, or its root for RMSE)",
            "Appendix C.3.1's own words say the error metrics compute the difference at each "
            "position, sum it and return an average"])))
    total = len(mine)
    return claim.evidence(
        comparison="claim", published="MSE, RMSE and MAE as printed sums behind Table 2",
        reproduced=f"{counts[reading]} of {total} printed cells reproduced as {reading}",
        matched=counts[reading], total=total, unit="cells",
        failures=[cell(r) for r in failing.itertuples()][:20] or None,
        reading=f"the printed {reading}" if reading == "sums" else "the means",
        alternatives={("the means (what rankbook.metrics computes)" if reading == "sums"
                       else "the printed sums"): counts["means" if reading == "sums" else "sums"]},
        detail=(f"{n_runs} runs of {n_pairs} pairs per size; a cell matches within "
                f"{abs_tol:g} + {n_sd:g} sd"),
        findings=findings, tables={"sums": table})


# --------------------------------------------------------------------------------------------
def check_mrr_harmonic(claim: claims.Claim, n: int | None = None, k: int | None = None, *,
                       reading: str = "harmonic mean") -> claims.Evidence:
    """Appendix C.3 calls MRR, :math:`\\frac{1}{|R|}\\sum_i 1/\\sigma(i)`, "the relevance
    scores' harmonic mean". Checked on every top-``k`` list of :math:`S_n`: the printed MRR
    against the harmonic mean of :math:`\\sigma(1), \\dots, \\sigma(k)` (``reading="harmonic
    mean"``, the sentence) or its reciprocal (``reading="reciprocal"``), equal within
    ``params.tolerance``."""
    if reading not in ("harmonic mean", "reciprocal"):
        raise ValueError(f"reading must be 'harmonic mean' or 'reciprocal', got {reading!r}")
    n, k = _given(claim, n=n, k=k)
    if not 1 <= k < n:
        raise ValueError(f"need 1 <= k < n, got k={k}, n={n}")
    tol = float(claim.params["tolerance"])
    top = np.unique(permutations.all_permutations(n)[:, :k], axis=0).astype(float)
    mrr = (1.0 / top).mean(axis=1)
    hm = k / (1.0 / top).sum(axis=1)
    target = hm if reading == "harmonic mean" else 1.0 / hm
    ok = np.abs(mrr - target) <= tol
    bad = np.flatnonzero(~ok)
    rows = [{"σ(1..k)": str(top[i].astype(int).tolist()), "MRR as printed": mrr[i],
             "harmonic mean": hm[i], "1 / harmonic mean": 1 / hm[i]} for i in range(min(4, len(top)))]
    findings = []
    if len(bad) and claim.has_finding("name"):
        i = int(bad[0])
        findings.append(claim.finding(
            "name", evidence=(f"S{_sub(n)}, k = {k}: the printed MRR equals the harmonic mean "
                              f"on {int(ok.sum())} of {len(ok)} top-k lists; e.g. σ(1..k) = "
                              f"{top[i].astype(int).tolist()}: MRR = {mrr[i]:.4g}, harmonic "
                              f"mean = {hm[i]:.4g}, MRR × harmonic mean = {mrr[i] * hm[i]:.4g}")))
    return claim.evidence(
        comparison="claim", published="MRR is the harmonic mean",
        reproduced=f"MRR equals the {reading} on {int(ok.sum())} of {len(ok)} top-k lists",
        matched=int(ok.sum()), total=len(ok), unit="cases",
        failures=[f"σ(1..k) = {top[i].astype(int).tolist()}" for i in bad[:5]] or None,
        reading=reading, detail=f"every top-k list of S{_sub(n)}, k = {k} relevant items",
        findings=findings, tables={"mrr": pd.DataFrame(rows)})


# --------------------------------------------------------------------------------------------
def check_error_symmetry(claim: claims.Claim, n: int | None = None, *,
                         names: Sequence[str] | None = None,
                         implementations: dict | None = None) -> claims.Evidence:
    """Section 3: the error-based metrics (``params.metrics``, the error metrics of Table 1)
    "do not depend on which are the predicted and the true labels", i.e. they are symmetric
    (Definition 5). Checked exhaustively on :math:`S_n`; ``implementations`` may replace a
    metric by another function (the mutation test)."""
    n, names = _given(claim, n=n, metrics=names)
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
    if failures and claim.has_finding("asymmetric"):
        findings.append(claim.finding(
            "asymmetric", evidence="\n".join(f"{r['metric']} on S{_sub(n)} (exhaustive): "
                                             f"{r['counterexample']}"
                                             for r in rows if not r["symmetric"])))
    return claim.evidence(
        comparison="claim", published="every error metric is symmetric",
        reproduced=f"{ok} of {len(table)} error metrics are symmetric",
        matched=ok, total=len(table), unit="metrics", failures=failures or None,
        detail=f"Definition 5 checked on every pair of S{_sub(n)}", findings=findings,
        tables={"symmetry": table})


# --------------------------------------------------------------------------------------------
def _agreement_rows(n: int, k: int, names: Sequence[str], tol: float) -> pd.DataFrame:
    rows = []
    for name in names:
        kk = _k_of(name, k)
        ma = properties.maximal_agreement(name, n, k=kk)
        values = properties.tabulate(name, n, k=kk).values
        low = float(np.nanmin(values))
        rows.append({"metric": name, "maximal agreement": bool(ma.holds),
                     "smallest value": low, "largest value": float(np.nanmax(values)),
                     "positive definite": bool(low >= -tol),
                     "m_max": ma.bound, "counterexample": "" if ma.evidence is None
                     else evidence_text(ma.evidence)})
    return pd.DataFrame(rows)


def check_nonnegative(claim: claims.Claim, n: int | None = None, k: int | None = None, *,
                      names: Sequence[str] | None = None) -> claims.Evidence:
    """Section 4 defines a ranking evaluation metric as a map :math:`S_n \\times S_n \\to
    \\mathbb{R}_+`. One case per metric of the paper (or ``names``): its smallest value over
    every pair of :math:`S_n` (k for the metrics that need it) is at least ``-params.tolerance``;
    holds when every metric is non-negative, otherwise false with the metrics named."""
    n, k = _given(claim, n=n, k=k)
    names = list(metrics.NAMES if names is None else names)
    tol = float(claim.params["tolerance"])
    t = _agreement_rows(n, k, names, tol)
    negative = t[~t["positive definite"]]
    table = pd.DataFrame({"metric": [display(m) for m in t.metric],
                          "smallest value": t["smallest value"],
                          "largest value": t["largest value"],
                          "never negative": t["positive definite"]})
    findings = []
    if len(negative) and claim.has_finding("negative"):
        findings.append(claim.finding("negative", evidence=(
            f"every pair of S{_sub(n)}, k = {k}: {len(negative)} of {len(t)} metrics take negative "
            "values: " + "; ".join(f"{display(m)} down to {v:.4g}"
                                   for m, v in zip(negative["metric"], negative["smallest value"])))))
    ev = claim.evidence(
        comparison="claim", published="every metric maps into the non-negative reals",
        reproduced=f"{len(t) - len(negative)} of {len(t)} metrics never take a negative value",
        matched=len(t) - len(negative), total=len(t), unit="metrics",
        failures=[display(m) for m in negative.metric] or None,
        detail=f"every pair of S{_sub(n)}, k = {k} for the metrics that need it",
        findings=findings)
    ev.add_table("metric_ranges", table, collapse=True, float_format="{:.4g}",
                 title=f"The range of each metric over every pair of S{_sub(n)}, k = {k}")
    return ev


# --------------------------------------------------------------------------------------------
def check_agreement_positive(claim: claims.Claim, n: int | None = None, k: int | None = None, *,
                             names: Sequence[str] | None = None,
                             reading: str = "m itself") -> claims.Evidence:
    """Section 7 (and the proof of Proposition 7.2 on precision@k) call maximal agreement
    (Definition 15) *equivalent* to positive definiteness, "the values assigned by m are all
    non-negative".

    ``reading="m itself"`` (the sentence) compares, for each metric exhaustively on
    :math:`S_n`, maximal agreement of ``m`` with ``m >= -tolerance``; ``reading="m_max - m"``
    compares it with Section 6.6's form, ``m(σ, σ)`` constant and ``m_max - m >= 0``, which
    restates Definition 15 (see :func:`check_eq7_positive`). One case per metric."""
    if reading not in ("m itself", "m_max - m"):
        raise ValueError(f"reading must be 'm itself' or 'm_max - m', got {reading!r}")
    n, k = _given(claim, n=n, k=k)
    names = list(metrics.NAMES if names is None else names)
    t = _agreement_rows(n, k, names, float(claim.params["tolerance"]))
    if reading == "m itself":
        t["agree"] = t["maximal agreement"] == t["positive definite"]
    else:
        t["agree"] = True  # m <= m_max everywhere is m_max - m >= 0: the same inequality
    both = t[t["maximal agreement"] & ~t["positive definite"]]
    other = t[~t["maximal agreement"] & t["positive definite"]]
    bad = t[~t["agree"]]
    findings = []
    if len(bad) and claim.has_finding("equivalence"):
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
        findings.append(claim.finding("equivalence", evidence="\n".join(lines),
                                      readings=["positive definiteness of m itself"]))
    shown = t.assign(metric=[display(m) for m in t.metric]).drop(
        columns=["agree", "largest value"]).rename(columns={"m_max": "mₘₐₓ"})
    return claim.evidence(
        comparison="claim", published="equivalent properties",
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


def check_eq7_positive(claim: claims.Claim, n: int | None = None, k: int | None = None, *,
                       names: Sequence[str] | None = None) -> claims.Evidence:
    """Section 6.6, eq. 7: if ``m`` has maximal agreement, :math:`m_{\\max} - m` is positive
    definite. True by definition: part (b) of Definition 15, :math:`m \\le m_{\\max}`, is the
    same inequality as :math:`m_{\\max} - m \\ge 0`. The table shows the smallest value of
    :math:`m_{\\max} - m` for the metrics with maximal agreement."""
    n, k = _given(claim, n=n, k=k)
    names = list(metrics.NAMES if names is None else names)
    t = _agreement_rows(n, k, names, 0.0)
    t = t[t["maximal agreement"]]
    rows = []
    for r in t.itertuples():
        values = properties.tabulate(r.metric, n, k=_k_of(r.metric, k)).values
        rows.append({"metric": display(r.metric), "mₘₐₓ": r.m_max,
                     "smallest value of mₘₐₓ − m": float(np.nanmin(r.m_max - values))})
    return claim.evidence(
        comparison="definition", published="$m_{\\max} - m \\ge 0$",
        reproduced=f"$m \\le m_{{\\max}}$ rearranged; {len(rows)} metrics with maximal agreement shown",
        detail="part (b) of Definition 15 is the inequality itself", tables={"eq7": pd.DataFrame(rows)})


# --------------------------------------------------------------------------------------------
def check_self_similarity(claim: claims.Claim, ns: Sequence[int] | None = None, *, seed: int = 0,
                          n_seeds: int | None = None, names: Sequence[str] | None = None
                          ) -> claims.Evidence:
    """Appendix A: only the metrics of ``params.published`` (Kendall's τ and Spearman's ρ)
    have one maximal value of :math:`m(\\sigma, \\sigma)`, the same for every length.

    Each metric's self-value is computed on ``params.samples`` random rankings of every
    length in ``ns``, on ``n_seeds`` seeds (:func:`rankbook.papers.paper_a.tables.self_values`);
    a metric counts as constant only when it is constant on every seed. The claim holds when
    the constant metrics whose diagonal is their maximum (higher is closer) are exactly the
    published ones."""
    ns, n_seeds = _given(claim, ns=ns, n_seeds=n_seeds)
    samples = int(claim.params["samples"])
    published = list(claim.params["published"])
    names = list(metrics.NAMES if names is None else names)
    sv = pd.concat([paper_a_tables.self_values(names, ns, n_samples=samples, seed=s).assign(seed=s)
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
    if extra and claim.has_finding("others"):
        findings.append(claim.finding("others", evidence="\n".join([
            f"random rankings of length {', '.join(map(str, ns))} (k = max(1, n // 4)), "
            f"{claims.plural(n_seeds, 'seed')}, m(σ, σ): "
            + "; ".join(f"{display(m)} = {const.loc[m, 'lo']:g}" for m in extra),
            "the metrics where lower means closer have a constant minimum instead: "
            + (", ".join(display(m) for m in lower) or "none")])))
    return claim.evidence(
        comparison="claim",
        published=f"{len(published)} metrics ({', '.join(display(m) for m in published)})",
        reproduced=(f"{len(maximal)} metrics with a constant maximum (of the {len(constant)} "
                    "whose m(σ, σ) is one constant)"),
        holds=holds, failures=[display(m) for m in extra + missing] or None,
        detail=(f"{samples} random rankings of each length {', '.join(map(str, ns))} on each of "
                f"{claims.plural(n_seeds, 'seed')}; a metric counts as constant only when it is "
                "constant on every seed"),
        findings=findings, tables={"self": table}, borderline=borderline,
        seeds_passed=(passed, n_seeds) if n_seeds > 1 else None,
        values={"constant": constant, "maximal": maximal})


# --------------------------------------------------------------------------------------------
#: The readings of "the inverse of a ranking" in Appendix A, in words.
REVERSE_READINGS = {
    "reversed": "the reversed order (Section 6.6), each metric reading its arrays as the book "
                "does: the values turned around (n + 1 − σ) for the metrics computed on the "
                "arrays as values, the list read backwards for the others",
    "group inverse": "the inverse σ⁻¹ in the group operation",
    "complement": "the values turned around (n + 1 − σ) for every metric",
    "backwards": "the list read backwards for every metric",
}


def _reversal(perms: np.ndarray, how: str, on_values: bool) -> np.ndarray:
    n = perms.shape[-1]
    if how == "group inverse":
        return np.argsort(perms, axis=-1) + 1
    if how == "complement" or (how == "reversed" and on_values):
        return n + 1 - perms
    return perms[..., ::-1].copy()


def check_reverse(claim: claims.Claim, n: int | None = None, k: int | None = None, *,
                  reading: str = "reversed", names: Sequence[str] | None = None
                  ) -> claims.Evidence:
    """Appendix A: Kendall's τ satisfies :math:`m(\\rho^{-1}, \\rho) = m_{\\min}`, which "is
    not true for most ranking evaluation metrics". Two statements: (1) τ takes its least
    value at every ranking and its inverse; (2) fewer than half of the metrics do. A metric
    takes its least value (the one farthest from agreement: its minimum where higher means
    closer, its maximum otherwise) at the pair when it does so for every ranking of
    :math:`S_n` (k for the metrics that need it), within ``params.tolerance``.

    ``reading`` says what the inverse is (:data:`REVERSE_READINGS`); the verdict's is the
    reversed order, each metric reading its arrays as the book does (``params.on_values``: the
    metrics computed on the arrays as values). The counts under the other readings stand
    beside it."""
    if reading not in REVERSE_READINGS:
        raise ValueError(f"reading must be one of {list(REVERSE_READINGS)}, got {reading!r}")
    n, k = _given(claim, n=n, k=k)
    tol = float(claim.params["tolerance"])
    on_values = set(claim.params["on_values"])
    names = list(metrics.NAMES if names is None else names)
    perms = permutations.all_permutations(n)
    reaches = {how: [] for how in REVERSE_READINGS}
    rows = []
    for m in names:
        kk = _k_of(m, k)
        values = properties.tabulate(m, n, k=kk).values
        far = np.nanmin(values) if metrics.REGISTRY[m].higher_is_closer else np.nanmax(values)
        row = {"metric": display(m), "least value over every pair": float(far)}
        for how in REVERSE_READINGS:
            inv = _reversal(perms, how, m in on_values)
            got = np.asarray(metrics.evaluate(m, inv, perms, k=kk), float)
            hit = bool(np.all(np.abs(got - far) <= tol))
            if hit:
                reaches[how].append(m)
            row[REVERSE_READINGS[how].split(" (")[0].split(",")[0]] = hit
        rows.append(row)
    tau = claim.params["metric"]

    def statements(how):
        few = len(reaches[how]) * 2 < len(names)
        return [(f"{display(tau)} takes its least value at every ranking and its inverse",
                 tau in reaches[how]),
                (f"most metrics do not ({len(reaches[how])} do, {len(names)} checked)", few)]

    mine = statements(reading)
    failures = [text for text, ok in mine if not ok]
    findings = []
    if failures and claim.has_finding("reverse"):
        findings.append(claim.finding("reverse", readings=[REVERSE_READINGS[reading]],
                                      under={REVERSE_READINGS[h]: "; ".join(
                                          f"{t}: {'holds' if ok else 'fails'}" for t, ok in statements(h))
                                          for h in REVERSE_READINGS},
                                      evidence="\n".join([
            f"every ranking of S{_sub(n)}, k = {k}; under {REVERSE_READINGS[reading]}: "
            + "; ".join(f"{t}: {'holds' if ok else 'fails'}" for t, ok in mine),
            "the metrics that take their least value there: "
            + (", ".join(display(m) for m in reaches[reading]) or "none"),
            "under the group inverse: " + ("; ".join(f"{t}: {'holds' if ok else 'fails'}"
                                                     for t, ok in statements("group inverse")))])))
    ev = claim.evidence(
        comparison="claim", published=f"{display(tau)} has the property, most metrics do not",
        reproduced=(f"{sum(ok for _, ok in mine)} of 2 statements hold; the property holds for "
                    f"{len(reaches[reading])} metrics ({len(names)} checked)"),
        matched=sum(ok for _, ok in mine), total=2, unit="statements", failures=failures or None,
        reading=REVERSE_READINGS[reading],
        alternatives={REVERSE_READINGS[h]: sum(ok for _, ok in statements(h))
                      for h in REVERSE_READINGS if h != reading},
        detail=f"every ranking of S{_sub(n)} and its inverse, k = {k} for the metrics that need it",
        findings=findings)
    ev.add_table("reverse_ranking", pd.DataFrame(rows), collapse=True, float_format="{:.4g}",
                 title=(f"Which metrics give their least value to a ranking and its inverse, on "
                        f"every ranking of S{_sub(n)} (k = {k})"))
    return ev


# --------------------------------------------------------------------------------------------
# Statements true by definition (no computation could contradict them; each page section
# shows what the definitions give on a small symmetric group)
# --------------------------------------------------------------------------------------------
def check_upper_bound(claim: claims.Claim, n: int | None = None, k: int | None = None, *,
                      names: Sequence[str] | None = None) -> claims.Evidence:
    """Appendix A: a metric with maximal agreement is bounded above. True by definition:
    part (b) of Definition 15 is an upper bound. The table shows, for each metric with maximal
    agreement on :math:`S_n`, its :math:`m_{\\max}` and its largest value."""
    n, k = _given(claim, n=n, k=k)
    names = list(metrics.NAMES if names is None else names)
    t = _agreement_rows(n, k, names, 0.0)
    t = t[t["maximal agreement"]]
    ev = claim.evidence(comparison="definition", published="bounded above by mₘₐₓ",
                        reproduced=f"{len(t)} metrics with maximal agreement on S{_sub(n)}",
                        detail="part (b) of Definition 15 is an upper bound")
    ev.add_table("upper_bound", pd.DataFrame({"metric": [display(m) for m in t.metric],
                                              "mₘₐₓ": t["m_max"], "largest value": t["largest value"]}),
                 float_format="{:.4g}", collapse=True,
                 title=f"The metrics with maximal agreement on S{_sub(n)}: mₘₐₓ and the largest value")
    return ev


def check_sets(claim: claims.Claim, n: int | None = None, k: int | None = None) -> claims.Evidence:
    """Appendix C.1: the confusion-matrix metrics ignore the order of the items before and
    after the cut-off. True by definition: they are functions of the two top-k sets. The table
    shows, for each of them on every pair of :math:`S_n`, the largest spread of its values
    among rankings with the same top k."""
    n, k = _given(claim, n=n, k=k)
    perms, S, V = _pairs(n)
    retrieved = np.sort(V[:, :k], axis=1) @ (n + 1) ** np.arange(k)  # the top-k set, coded
    first = np.repeat(np.arange(len(perms)), len(perms))  # the pairs of one sigma
    rows = []
    for m in [m for m in metrics.NAMES if metrics.REGISTRY[m].family == "confusion"]:
        v = np.round(np.asarray(metrics.evaluate(m, S, V, k=k), float), 12)
        frame = pd.DataFrame({"sigma": first, "set": retrieved, "v": v})
        distinct = frame.groupby(["sigma", "set"])["v"].nunique(dropna=False)
        rows.append({"metric": display(m), "most distinct values among rankings with the same top k":
                     int(distinct.max())})
    ev = claim.evidence(comparison="definition", published="only the top-k sets count",
                        reproduced=f"{len(rows)} confusion-matrix metrics on S{_sub(n)}, k = {k}",
                        detail="each is a function of the two top-k sets")
    ev.add_table("confusion_sets", pd.DataFrame(rows), collapse=True, float_format="{:g}",
                 title=(f"The confusion-matrix metrics on every pair of S{_sub(n)} (k = {k}): how "
                        "far apart their values lie among rankings with the same top k"))
    return ev


def check_bounded(claim: claims.Claim, n: int | None = None, k: int | None = None, *,
                  names: Sequence[str] | None = None) -> claims.Evidence:
    """Section 6.6: to see whether :math:`f_m` can be made positive definite it suffices that
    it is bounded. True by definition on a finite set: every function on
    :math:`S_n \\times S_n` is bounded, and adding minus its minimum makes it non-negative. The
    table gives each metric's range on :math:`S_n` and that offset."""
    n, k = _given(claim, n=n, k=k)
    names = list(metrics.NAMES if names is None else names)
    t = _agreement_rows(n, k, names, 0.0)
    ev = claim.evidence(comparison="definition", published="bounded, so an offset makes it ≥ 0",
                        reproduced=f"{len(t)} metrics, each bounded on the {len(permutations.all_permutations(n)) ** 2:,} pairs of S{_sub(n)}",
                        detail="a function on a finite set is bounded")
    ev.add_table("bounded", pd.DataFrame({
        "metric": [display(m) for m in t.metric], "smallest value": t["smallest value"],
        "largest value": t["largest value"],
        "offset that makes it non-negative": np.maximum(0.0, -t["smallest value"])}),
        float_format="{:.4g}", collapse=True, title=f"Each metric's range on S{_sub(n)} (k = {k})")
    return ev


# --------------------------------------------------------------------------------------------
# Faults of the mutation test (``perturb`` in the ledger's [claims.test])
# --------------------------------------------------------------------------------------------
def yao_printed(claim: claims.Claim, **_) -> dict:
    """A correct printed NDPM (Yao's)."""
    return {"printed": lambda sigma, nu: metrics.ndpm(sigma, nu)}


def standard_f_mcc(claim: claims.Claim, **_) -> dict:
    """Correct printed formulas: the F1 score and the MCC."""
    return {"printed_f": lambda s, v, k: metrics.f1(s, v, k=k),
            "printed_mcc": lambda s, v, k: metrics.mcc(s, v, k=k)}


def symmetric_stand_ins(claim: claims.Claim, **_) -> dict:
    """Symmetric stand-ins for MAPE and R² (SMAPE and MSE)."""
    return {"implementations": {"mape": "smape", "r2": "mse"}}


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
