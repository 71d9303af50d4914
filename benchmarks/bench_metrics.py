"""Metric batch: all 33 metrics of paper A on B pairs of S_n, rankbook against per-pair loops.

rankbook evaluates the batch with one call, ``metrics.evaluate_many(NAMES, sigma, nu, k)``.
The peers have no batch API for permutations, so a user loops over the pairs in Python:

* ``scipy``: ``scipy.stats.kendalltau`` and ``spearmanr`` per pair;
* ``sklearn``: the confusion-matrix metrics (one scikit-learn function per metric, or
  ``confusion_matrix`` once and the 19 ratios by arithmetic), the error metrics and
  ``dcg_score``/``ndcg_score``;
* ``rexmex``: its classification, rating and ranking functions.

Each peer *unit* (one function computing one or several metrics, including building its inputs
from the two permutations) is timed per pair on a subsample of pairs. The fastest per-pair loop
over all 33 metrics is assembled from the fastest unit for every metric (the confusion metrics
from one ``confusion_matrix`` call when that is faster than the single functions), run end to
end on the subsample, checked against rankbook's values, and extrapolated linearly to B pairs
(a per-pair loop costs the same for every pair of the same n).
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np

from common import fit_slope, log, per_item_time, timed

# rankbook metric name -> (sklearn function, transform) etc. are built lazily (imports are slow)

CONFUSION = [
    "recall", "fnr", "fallout", "tnr", "precision", "fdr", "npv", "for", "accuracy",
    "balanced_accuracy", "f1", "fowlkes_mallows", "mcc", "jaccard", "markedness", "lr_minus",
    "informedness", "prevalence_threshold", "lr_plus",
]


def _k_for(n: int) -> int:
    """The cut-off used for the k-metrics: max(1, n // 4), the value that fits Table 2."""
    return max(1, n // 4)


def random_pairs(B: int, n: int, seed: int):
    rng = np.random.default_rng(seed)
    base = np.tile(np.arange(1, n + 1, dtype=np.int64), (B, 1))
    return rng.permuted(base, axis=1), rng.permuted(base, axis=1)


def _div(a, b):
    return a / b if b else math.nan


def _indicators(s, v, k):
    n = len(s)
    y_true = np.zeros(n, dtype=int)
    y_pred = np.zeros(n, dtype=int)
    y_true[s[:k] - 1] = 1
    y_pred[v[:k] - 1] = 1
    return y_true, y_pred


def _confusion_from_counts(tn, fp, fn, tp):
    tn, fp, fn, tp = float(tn), float(fp), float(fn), float(tp)
    n = tn + fp + fn + tp
    tpr, fpr = _div(tp, tp + fn), _div(fp, fp + tn)
    tnr_, fnr_ = _div(tn, tn + fp), _div(fn, tp + fn)
    prec, npv_ = _div(tp, tp + fp), _div(tn, tn + fn)
    out = {
        "recall": tpr, "fnr": fnr_, "fallout": fpr, "tnr": tnr_, "precision": prec,
        "fdr": _div(fp, tp + fp), "npv": npv_, "for": _div(fn, tn + fn),
        "accuracy": (tp + tn) / n, "balanced_accuracy": (tpr + tnr_) / 2,
        "f1": _div(2 * tp, 2 * tp + fp + fn), "fowlkes_mallows": math.sqrt(prec * tpr),
        "mcc": _div(tp * tn - fp * fn, math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
        "jaccard": _div(tp, tp + fp + fn), "markedness": prec + npv_ - 1,
        "lr_minus": _div(fnr_, tnr_), "informedness": tpr + tnr_ - 1,
        "prevalence_threshold": _div(math.sqrt(fpr), math.sqrt(tpr) + math.sqrt(fpr))
        if not (math.isnan(fpr) or math.isnan(tpr)) else math.nan,
        "lr_plus": _div(tpr, fpr) if not math.isnan(fpr) else math.nan,
    }
    return out


def peer_units():
    """Peer units: (library, unit name, metrics it gives, fn(s, v, k) -> {metric: value})."""
    import scipy.stats as st
    import sklearn.metrics as skm
    from rexmex.metrics import classification as rc
    from rexmex.metrics import ranking as rr
    from rexmex.metrics import rating as rt

    units = []

    def add(lib, name, metrics, fn):
        units.append((lib, name, tuple(metrics), fn))

    # scipy ---------------------------------------------------------------------------------
    add("scipy", "kendalltau", ["kendall_tau"],
        lambda s, v, k: {"kendall_tau": st.kendalltau(s, v).statistic})
    add("scipy", "spearmanr", ["spearman_rho"],
        lambda s, v, k: {"spearman_rho": st.spearmanr(s, v).statistic})

    def ndpm_via_tau(s, v, k):
        # NDPM of two full rankings = share of discordant item pairs = (1 - tau) / 2 of the
        # items' positions (no ties): no library has a fast NDPM, scipy's tau is O(n log n)
        n = len(s)
        ps = np.empty(n, dtype=np.int64)
        ps[s - 1] = np.arange(n)
        pv = np.empty(n, dtype=np.int64)
        pv[v - 1] = np.arange(n)
        return {"ndpm": (1.0 - st.kendalltau(ps, pv).statistic) / 2.0}

    add("scipy", "kendalltau on positions (NDPM)", ["ndpm"], ndpm_via_tau)

    # scikit-learn --------------------------------------------------------------------------
    def sk_cm(s, v, k):
        yt, yp = _indicators(s, v, k)
        tn, fp, fn, tp = skm.confusion_matrix(yt, yp, labels=[0, 1]).ravel()
        return _confusion_from_counts(tn, fp, fn, tp)

    add("sklearn", "confusion_matrix+arithmetic", CONFUSION, sk_cm)
    for metric, f in [("recall", skm.recall_score), ("precision", skm.precision_score),
                      ("f1", skm.f1_score), ("accuracy", skm.accuracy_score),
                      ("jaccard", skm.jaccard_score),
                      ("balanced_accuracy", skm.balanced_accuracy_score),
                      ("mcc", skm.matthews_corrcoef)]:
        add("sklearn", f.__name__, [metric],
            (lambda f, metric: lambda s, v, k: {metric: f(*_indicators(s, v, k))})(f, metric))

    def sk_lr(s, v, k):
        lrp, lrm = skm.class_likelihood_ratios(*_indicators(s, v, k))
        return {"lr_plus": lrp, "lr_minus": lrm}

    add("sklearn", "class_likelihood_ratios", ["lr_plus", "lr_minus"], sk_lr)
    add("sklearn", "mean_squared_error", ["mse"],
        lambda s, v, k: {"mse": skm.mean_squared_error(s, v)})
    add("sklearn", "root_mean_squared_error", ["rmse"],
        lambda s, v, k: {"rmse": skm.root_mean_squared_error(s, v)})
    add("sklearn", "mean_absolute_error", ["mae"],
        lambda s, v, k: {"mae": skm.mean_absolute_error(s, v)})
    add("sklearn", "mean_absolute_percentage_error", ["mape"],
        lambda s, v, k: {"mape": 100 * skm.mean_absolute_percentage_error(s, v)})
    add("sklearn", "r2_score", ["r2"], lambda s, v, k: {"r2": skm.r2_score(s, v)})

    def _gain_inputs(s, v):
        n = len(s)
        pos_nu = np.empty(n, dtype=np.int64)
        pos_nu[v - 1] = np.arange(1, n + 1)
        pos_sigma = np.empty(n, dtype=np.int64)
        pos_sigma[s - 1] = np.arange(1, n + 1)
        return pos_nu[None, :].astype(float), (n + 1 - pos_sigma)[None, :].astype(float)

    add("sklearn", "dcg_score", ["dcg"], lambda s, v, k: {"dcg": skm.dcg_score(*_gain_inputs(s, v))})
    add("sklearn", "ndcg_score", ["ndcg"],
        lambda s, v, k: {"ndcg": skm.ndcg_score(*_gain_inputs(s, v))})

    # rexmex --------------------------------------------------------------------------------
    rex_cls = {
        "recall": rc.recall_score, "fnr": rc.false_negative_rate, "fallout": rc.false_positive_rate,
        "tnr": rc.true_negative_rate, "precision": rc.precision_score,
        "fdr": rc.false_discovery_rate, "npv": rc.negative_predictive_value,
        "for": rc.false_omission_rate, "accuracy": rc.accuracy_score,
        "balanced_accuracy": rc.balanced_accuracy_score, "f1": rc.f1_score,
        "fowlkes_mallows": rc.fowlkes_mallows_index, "mcc": rc.matthews_correlation_coefficient,
        "markedness": rc.markedness, "informedness": rc.informedness,
        "prevalence_threshold": rc.prevalence_threshold, "lr_plus": rc.positive_likelihood_ratio,
        "lr_minus": rc.negative_likelihood_ratio, "jaccard": rc.threat_score,
    }
    for metric, f in rex_cls.items():
        add("rexmex", f.__name__, [metric],
            (lambda f, metric: lambda s, v, k: {metric: f(*_indicators(s, v, k))})(f, metric))
    for metric, f, scale in [("mse", rt.mean_squared_error, 1), ("rmse", rt.root_mean_squared_error, 1),
                             ("mae", rt.mean_absolute_error, 1),
                             ("mape", rt.mean_absolute_percentage_error, 100),
                             ("smape", rt.symmetric_mean_absolute_percentage_error, 1),
                             ("r2", rt.r2_score, 1)]:
        add("rexmex", f.__name__, [metric],
            (lambda f, metric, scale: lambda s, v, k: {metric: scale * f(s, v)})(f, metric, scale))
    add("rexmex", "mean_reciprocal_rank", ["mrr"],
        lambda s, v, k: {"mrr": rr.mean_reciprocal_rank(list(s[:k]), list(v))})
    add("rexmex", "mean_rank", ["mean_rank"],
        lambda s, v, k: {"mean_rank": rr.mean_rank(list(s[:k]), list(v))})
    add("rexmex", "gmean_rank", ["gmr"],
        lambda s, v, k: {"gmr": rr.gmean_rank(list(s[:k]), list(v))})
    add("rexmex", "normalized_distance_based_performance_measure", ["ndpm"],
        lambda s, v, k: {"ndpm": rr.normalized_distance_based_performance_measure(list(s), list(v))})
    add("rexmex", "kendall_tau", ["kendall_tau"],
        lambda s, v, k: {"kendall_tau": rr.kendall_tau(s, v)[0]})
    add("rexmex", "spearmans_rho", ["spearman_rho"],
        lambda s, v, k: {"spearman_rho": rr.spearmans_rho(s, v)[0]})
    add("rexmex", "normalized_discounted_cumulative_gain", ["ndcg"],
        lambda s, v, k: {"ndcg": rr.normalized_discounted_cumulative_gain(*_gain_inputs(s, v))})
    add("rexmex", "discounted_cumulative_gain", ["dcg"],
        lambda s, v, k: {"dcg": rr.discounted_cumulative_gain(*_gain_inputs(s, v))})
    return units


def _quiet(fn):
    def wrapped(*a):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn(*a)
    return wrapped


def time_units(units, s, v, k, budget):
    """Seconds per pair of every unit on the leading pairs of (s, v)."""
    out = []
    for lib, name, metrics, fn in units:
        f = _quiet(fn)
        res = per_item_time(lambda i: f(s[i], v[i], k), range(len(s)), budget=budget, repeats=3)
        out.append({"library": lib, "unit": name, "metrics": list(metrics),
                    "seconds_per_pair": res["per_item"], "subsample": res["subsample"]})
    return out


def fastest_loop(units, unit_times, names):
    """Choose, for every metric, the unit of the fastest per-pair loop over all ``names``."""
    per = {(t["library"], t["unit"]): t["seconds_per_pair"] for t in unit_times}
    chosen = {}
    # the confusion group: one confusion_matrix call vs the fastest single functions
    best_single = {}
    for lib, name, metrics, fn in units:
        if len(metrics) <= 2:
            for m in metrics:
                cost = per[(lib, name)]
                if m not in best_single or cost < best_single[m][0]:
                    best_single[m] = (cost, (lib, name, metrics, fn))
    cm = next(u for u in units if u[1] == "confusion_matrix+arithmetic")
    singles_cost = sum(best_single[m][0] for m in CONFUSION if m in best_single)
    missing = [m for m in CONFUSION if m not in best_single]
    use_cm = missing or per[(cm[0], cm[1])] < singles_cost
    plan = []
    for m in names:
        if m in CONFUSION and use_cm:
            unit = cm
        else:
            unit = best_single[m][1]
        chosen[m] = f"{unit[0]}.{unit[1]}"
        if unit not in plan:
            plan.append(unit)
    return plan, chosen


def run_loop(plan, s, v, k):
    out = {}
    for lib, name, metrics, fn in plan:
        out.update(fn(s, v, k))
    return out


def compare(ours: dict, theirs_rows: list, names) -> dict:
    """Largest relative difference between rankbook and the peer loop, and nan mismatches."""
    worst, worst_name, nan_mismatch = 0.0, None, 0
    for i, row in enumerate(theirs_rows):
        for m in names:
            a = float(np.asarray(ours[m])[i])
            b = float(row[m])
            if math.isnan(a) or math.isnan(b) or math.isinf(b):
                # rexmex/scikit-learn give inf or warn where rankbook's policy is nan
                nan_mismatch += int(math.isnan(a) != (math.isnan(b) or math.isinf(b)))
                continue
            d = abs(a - b) / max(1.0, abs(b))
            if d > worst:
                worst, worst_name = d, m
    return {"max_rel_diff": worst, "worst_metric": worst_name, "nan_mismatches": nan_mismatch}


def rankbook_batch(names, s, v, k):
    """One ``evaluate_many`` call on the whole batch (it works in bounded blocks of rows)."""
    from rankbook import metrics as M

    return lambda: M.evaluate_many(names, s, v, k=k)


def run(quick: bool = False) -> dict:
    from rankbook import metrics as M

    names = list(M.NAMES)
    if quick:
        Bs, ns, budget, unit_budget = [1000, 10_000], [10, 100, 300], 3.0, 0.03
    else:
        Bs, ns, budget, unit_budget = [10_000, 100_000], [10, 100, 1000], 20.0, 0.1
    units = peer_units()
    rows, kendall_rows, unit_table = [], [], []
    for n in ns:
        k = _k_for(n)
        sub_s, sub_v = random_pairs(400 if not quick else 60, n, seed=1000 + n)
        log(f"[metrics] n={n}: timing {len(units)} peer units per pair")
        ut = time_units(units, sub_s, sub_v, k, unit_budget)
        for t in ut:
            t["n"] = n
        unit_table.extend(ut)
        plan, chosen = fastest_loop(units, ut, names)
        loop = _quiet(run_loop)
        res = per_item_time(lambda i: loop(plan, sub_s[i], sub_v[i], k), range(len(sub_s)),
                            budget=unit_budget * 8, repeats=3)
        m = res["subsample"]
        theirs = [loop(plan, sub_s[i], sub_v[i], k) for i in range(m)]
        ours_sub = M.evaluate_many(names, sub_s[:m], sub_v[:m], k=k)
        check = compare(ours_sub, theirs, names)
        # scipy alone (Kendall) for the Kendall-only comparison
        kt = next(t for t in ut if t["unit"] == "kendalltau")
        # fastest loop per library over the metrics it covers
        by_lib = {}
        for lib in ("scipy", "sklearn", "rexmex"):
            lib_units = [u for u in units if u[0] == lib]
            cover = {}
            for (l, nm, ms, _), t in zip(units, ut):
                if l != lib:
                    continue
                for mm in ms:
                    cover.setdefault(mm, []).append((t["seconds_per_pair"], nm, ms))
            # cheapest way to cover each metric, counting a shared unit once
            chosen_units = {}
            for mm, opts in cover.items():
                c, nm, ms = min(opts)
                chosen_units[nm] = c
            # confusion: scikit-learn's confusion_matrix unit covers all 19 at once
            if lib == "sklearn":
                cm_cost = next(t["seconds_per_pair"] for t in ut if t["unit"] == "confusion_matrix+arithmetic")
                singles = {nm: c for nm, c in chosen_units.items() if nm != "confusion_matrix+arithmetic"}
                # every confusion metric is covered by the cm unit; keep the non-confusion ones
                keep = {nm: c for nm, c in singles.items()
                        if not set(next(u[2] for u in units if u[1] == nm and u[0] == lib)) <= set(CONFUSION)}
                chosen_units = {**keep, "confusion_matrix+arithmetic": cm_cost}
            by_lib[lib] = {"metrics_covered": sorted(cover), "n_metrics": len(cover),
                           "seconds_per_pair": sum(chosen_units.values())}
        for B in Bs:
            s, v = random_pairs(B, n, seed=B + n)
            call = rankbook_batch(names, s, v, k)
            log(f"[metrics] rankbook all 33, B={B}, n={n}")
            t_rb = timed(call, repeats=3, budget=budget)
            peer_total = res["per_item"] * B
            rows.append({
                "B": B, "n": n, "k": k, "rankbook_s": t_rb["median"], "rankbook_times": t_rb["times"],
                "fastest_loop_s": peer_total, "fastest_loop_per_pair_s": res["per_item"],
                "fastest_loop_subsample": m, "extrapolated": True,
                "speedup": peer_total / t_rb["median"],
                "per_library_s": {lib: d["seconds_per_pair"] * B for lib, d in by_lib.items()},
                "per_library_metrics": {lib: d["n_metrics"] for lib, d in by_lib.items()},
                "fastest_loop_units": chosen, "check": check,
            })
            del call
            kcall = rankbook_batch(["kendall_tau"], s, v, None)
            t_k = timed(kcall, repeats=3, budget=budget)
            kendall_rows.append({
                "B": B, "n": n, "rankbook_s": t_k["median"], "rankbook_times": t_k["times"],
                "scipy_s": kt["seconds_per_pair"] * B, "scipy_per_pair_s": kt["seconds_per_pair"],
                "scipy_subsample": kt["subsample"], "extrapolated": True,
                "speedup": kt["seconds_per_pair"] * B / t_k["median"],
            })
            del kcall
            del s, v
    # scaling: time against n at the largest B, and against B at n = 100 (or the middle n)
    scaling = []
    Bmax = max(Bs)
    sel = [r for r in rows if r["B"] == Bmax]
    scaling.append(_scal("metric_batch", f"rankbook, all 33, B={Bmax}", "n", [r["n"] for r in sel],
                         [r["rankbook_s"] for r in sel], "O(B n log n)", 1.0,
                         "two inversion counts (Kendall, NDPM) are O(n log n) per pair; all other metrics O(n)"))
    scaling.append(_scal("metric_batch", f"fastest per-pair peer loop, extrapolated to B={Bmax}", "n",
                         [r["n"] for r in sel], [r["fastest_loop_s"] for r in sel],
                         "O(B n log n) + B x constant call overhead", 1.0,
                         "the peers' per-call overhead dominates for small n, so the slope is far below 1"))
    ksel = [r for r in kendall_rows if r["B"] == Bmax]
    scaling.append(_scal("kendall", f"rankbook kendall_tau, B={Bmax}", "n", [r["n"] for r in ksel],
                         [r["rankbook_s"] for r in ksel], "O(B n log n)", 1.0, ""))
    scaling.append(_scal("kendall", f"scipy kendalltau loop, extrapolated to B={Bmax}", "n",
                         [r["n"] for r in ksel], [r["scipy_s"] for r in ksel],
                         "O(B n log n) + B x constant call overhead", 1.0,
                         "scipy's per-call overhead hides its n log n term at these sizes"))
    nmid = ns[1]
    bsel = [r for r in rows if r["n"] == nmid]
    scaling.append(_scal("metric_batch_B", f"rankbook, all 33, n={nmid}", "B", [r["B"] for r in bsel],
                         [r["rankbook_s"] for r in bsel], "O(B n log n)", 1.0, ""))
    profile = profile_target(names, Bmax, nmid, budget=budget)
    return {"rows": rows, "kendall": kendall_rows, "units": unit_table, "scaling": scaling,
            "profile": profile,
            "notes": (
                "rankbook: one metrics.evaluate_many(NAMES, sigma, nu, k) call on the whole batch "
                "(it validates and evaluates in blocks of rows, so its working memory stays "
                "bounded), k = max(1, n // 4). Peers: per-pair "
                "Python loops timed on a subsample of pairs (see fastest_loop_subsample and each "
                "unit's subsample) and extrapolated linearly to B pairs. The fastest loop takes, "
                "for every metric, the fastest peer unit; its values are checked against rankbook "
                "on the subsample (check.max_rel_diff; nan_mismatches counts pairs where rankbook "
                "gives nan by policy and the peer does not, or the reverse; inf from a peer counts "
                "as nan).")}


def _scal(case, series, x_name, x, t, theory, theory_slope, comment):
    return {"case": case, "series": series, "x_name": x_name, "x": list(x), "t": list(t),
            "slope": fit_slope(x, t), "theory": theory, "theory_slope": theory_slope,
            "comment": comment}


def profile_target(names, B, n, budget=20.0):
    """Where rankbook's time goes at (B, n): validation of both batches, then each metric alone.

    ``metrics.evaluate(name, ...)`` validates and computes one metric; subtracting the time of
    ``permutations.validate(sigma, nu)`` leaves that metric's own cost (the intermediates it
    needs included, so metrics sharing an intermediate each show it).
    """
    from rankbook import metrics as M
    from rankbook import permutations as P

    k = _k_for(n)
    s, v = random_pairs(B, n, seed=B + n)
    t_val = timed(lambda: P.validate(s, v), repeats=3, budget=budget)["median"]
    own = {}
    for name in names:
        t = timed(lambda: M.evaluate(name, s, v, k=k), repeats=1)["median"]
        own[name] = max(0.0, t - t_val)
    top = sorted(own.items(), key=lambda kv: -kv[1])
    return {"B": B, "n": n, "validate_both_s": t_val, "metric_own_s": dict(top),
            "notes": "validate_both_s = permutations.validate(sigma, nu); metric_own_s = "
                     "metrics.evaluate(name) minus validate_both_s, one run each."}
