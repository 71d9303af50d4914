"""Exact counts at large n (issue 24, finding 1): every count that grows with n stays exact.

Before the fix the inversion count summed its weights in int32 and Kendall's tau of the
reversed ranking came out as 1.56 at n = 81 921 and 21.33 at n = 100 000 (NDPM -10.17). These
tests sweep every one of the 33 metrics over n up to 10**6 (all of them are O(n log n) per pair)
against closed forms for the identity and the reversed ranking, computed here in Python
integers and ``math.fsum``, and against scipy on random pairs of large rankings.
"""

import math

import numpy as np
import pytest
import scipy.stats

from rankbook import metrics as M
from rankbook import permutations as P
from rankbook.papers.paper_a import transpositions as T

#: n around every width where a count used to change type or could overflow: 2**16 (int32
#: C(n,2) limit at 65 536), the reported first failure 81 921, 10**5 and 10**6.
SIZES = [1, 2, 3, 10, 1000, 65_536, 65_537, 81_920, 81_921, 100_000, 1_000_000]


def _confusion(tp, k, n):
    """The 19 confusion-matrix metrics from TP in exact rational arithmetic (nan for x/0)."""
    from fractions import Fraction as F

    fp = fn = k - tp
    tn = n - 2 * k + tp

    def div(a, b):
        return F(a) / F(b) if b != 0 else None

    tpr, fpr, tnr, fnr = div(tp, tp + fn), div(fp, fp + tn), div(tn, tn + fp), div(fn, tp + fn)
    prec, npv = div(tp, tp + fp), div(tn, tn + fn)

    def opt(f, *xs):
        return None if any(x is None for x in xs) else f(*xs)

    mcc_den = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    out = {
        "recall": tpr, "fnr": fnr, "fallout": fpr, "tnr": tnr, "precision": prec,
        "fdr": div(fp, tp + fp), "npv": npv, "for": div(fn, tn + fn),
        "accuracy": F(tp + tn, n), "balanced_accuracy": opt(lambda a, b: (a + b) / 2, tpr, tnr),
        "f1": div(2 * tp, 2 * tp + fp + fn),
        "fowlkes_mallows": opt(lambda a, b: math.sqrt(a * b), prec, tpr),
        "mcc": None if mcc_den == 0 else (tp * tn - fp * fn) / math.sqrt(mcc_den),
        "jaccard": div(tp, tp + fp + fn), "markedness": opt(lambda a, b: a + b - 1, prec, npv),
        "lr_minus": opt(lambda a, b: div(a, b) if b != 0 else None, fnr, tnr),
        "informedness": opt(lambda a, b: a + b - 1, tpr, tnr),
        "prevalence_threshold": opt(
            lambda a, b: (math.sqrt(b) / (math.sqrt(a) + math.sqrt(b))) if a + b > 0 else None,
            tpr, fpr),
        "lr_plus": opt(lambda a, b: div(a, b) if b != 0 else None, tpr, fpr),
    }
    return {m: (math.nan if v is None else float(v)) for m, v in out.items()}


def closed_form(n, k, reversed_):
    """Every metric for sigma = id and nu = id (or reversed), from its definition, in Python."""
    if reversed_:
        tp = max(0, 2 * k - n)  # nu's top k are n..n-k+1
        d = [abs(2 * i - n - 1) for i in range(1, n + 1)]  # |sigma(i) - nu(i)|
        rel = [n + 1 - i for i in range(1, n + 1)]  # position in nu of sigma's i-th item
        pairs = n * (n - 1) // 2
        disc = pairs
        sse = n * (n * n - 1) // 3
    else:
        tp, d, rel, disc, sse = k, [0] * n, list(range(1, n + 1)), 0, 0
        pairs = n * (n - 1) // 2
    out = _confusion(tp, k, n)
    disc_f = [1.0 / math.log2(i + 1) for i in range(1, n + 1)]
    idcg = math.fsum((n + 1 - i) * disc_f[i - 1] for i in range(1, n + 1))
    dcg = math.fsum(r * w for r, w in zip(rel, disc_f))
    top = rel[:k]
    out.update({
        "mse": sse / n, "rmse": math.sqrt(sse / n), "mae": sum(d) / n,
        "mape": 100.0 * math.fsum(x / i for i, x in enumerate(d, start=1)) / n,
        "smape": 100.0 * math.fsum(2.0 * x / (n + 1) for x in d) / n,
        "r2": math.nan if n == 1 else 1.0 - 12 * sse / (n * (n * n - 1)),
        "kendall_tau": math.nan if n == 1 else 1.0 - 2 * disc / pairs,
        "spearman_rho": math.nan if n == 1 else 1.0 - 6 * sse / (n * (n * n - 1)),
        "ndpm": math.nan if n == 1 else disc / pairs,
        "dcg": dcg, "ndcg": dcg / idcg,
        "mrr": math.fsum(1.0 / x for x in top) / k,
        "gmr": math.exp(math.fsum(math.log(x) for x in top) / k),
        "mean_rank": sum(top) / k,
    })
    assert set(out) == set(M.NAMES)
    return out


def _close(got, want, rel=1e-9):
    got, want = float(got), float(want)
    if math.isnan(want):
        return math.isnan(got)
    return abs(got - want) <= rel * max(1.0, abs(want))


@pytest.mark.parametrize("n", SIZES)
def test_every_metric_matches_its_closed_form_up_to_a_million(n):
    """All 33 metrics on (id, id) and (id, reversed) against the definitions, k in {1, n/4, n}."""
    ident = P.identity(n)
    sigma = np.stack([ident, ident])
    nu = np.stack([ident, ident[::-1]])
    ks = sorted({1, max(1, n // 4), n})
    k_free = [m for m in M.NAMES if not M.REGISTRY[m].needs_k]
    k_metrics = [m for m in M.NAMES if M.REGISTRY[m].needs_k]
    for i, k in enumerate(ks):
        names = M.NAMES if i == 0 else k_metrics  # the others do not depend on k
        got = M.evaluate_many(names, sigma, nu, k=k)
        for row, rev in ((0, False), (1, True)):
            want = closed_form(n, k, rev)
            bad = [(m, float(got[m][row]), want[m]) for m in names if not _close(got[m][row], want[m])]
            assert not bad, (n, k, "reversed" if rev else "identity", bad)
    assert set(k_free) | set(k_metrics) == set(M.NAMES)


@pytest.mark.parametrize("n", [81_921, 100_000, 1_000_000])
def test_reversed_ranking_is_exactly_minus_one(n):
    """The reported failure: tau of the reversed ranking is exactly -1 and NDPM exactly 1
    (1.56 / 21.33 / 15.87 and -10.17 before the fix), and the count is C(n, 2) exactly."""
    ident = P.identity(n)
    rev = ident[::-1].copy()
    assert M.kendall_tau(ident, rev) == -1.0
    assert M.ndpm(ident, rev) == 1.0
    assert M.evaluate("kendall_tau", ident, rev) == -1.0
    assert M.evaluate_many(["ndpm", "kendall_tau"], ident, rev) == {"ndpm": 1.0, "kendall_tau": -1.0}
    assert int(P.inversion_count(rev)) == T.n_pairs(n) == n * (n - 1) // 2
    assert M.spearman_rho(ident, rev) == -1.0


@pytest.mark.parametrize("n", [100_000, 1_000_000])
def test_random_large_pairs_match_scipy(n):
    """Kendall's tau and Spearman's rho on random pairs against scipy.stats (O(n log n) there
    too), and the discordant count read back from scipy's tau exactly."""
    r = P.random(n, size=(2, 2), rng=n)
    for s, v in r:
        tau = float(M.kendall_tau(s, v))
        assert tau == pytest.approx(scipy.stats.kendalltau(s, v).statistic, abs=1e-12)
        assert float(M.spearman_rho(s, v)) == pytest.approx(scipy.stats.spearmanr(s, v).statistic, abs=1e-12)
        pairs = n * (n - 1) // 2
        disc_scipy = round((1.0 - scipy.stats.kendalltau(s, v).statistic) * pairs / 2)
        r_rel = np.empty(n, dtype=np.int64)
        r_rel[s - 1] = v  # nu o sigma^-1: its inversions are the discordant position pairs
        assert int(P.inversion_count(r_rel)) == disc_scipy
        # NDPM = discordant item pairs / C(n, 2) = tau's discordant share of the positions
        pos_s, pos_v = P.inverse(s), P.inverse(v)
        assert float(M.ndpm(s, v)) == pytest.approx(
            (1.0 - scipy.stats.kendalltau(pos_s, pos_v).statistic) / 2, abs=1e-12)


def test_inversion_count_across_the_int32_boundary():
    """Structured permutations with known counts around n = 65 536 (C(n, 2) = 2**31 - 32 768)
    and 81 921: reversed blocks of width w hold n/w * C(w, 2) inversions, the reversal C(n, 2),
    a rotation by one n - 1."""
    for n in (65_535, 65_536, 65_537, 81_921, 131_072):
        ident = P.identity(n)
        assert int(P.inversion_count(ident[::-1].copy())) == n * (n - 1) // 2
        assert int(P.inversion_count(np.roll(ident, 1))) == n - 1
        w = 4096
        blocks = np.concatenate([ident[a:a + w][::-1] for a in range(0, n, w)])
        want = sum(len(ident[a:a + w]) * (len(ident[a:a + w]) - 1) // 2 for a in range(0, n, w))
        assert int(P.inversion_count(blocks)) == want
        # two halves swapped: every pair across the halves is an inversion
        h = n // 2
        assert int(P.inversion_count(np.r_[ident[h:], ident[:h]])) == h * (n - h)


def test_square_sums_stay_exact_beyond_int64_reach():
    """n(n^2 - 1)/3, the squared differences of the reversal, passes 2**63 from n = 3 024 617 on: the
    sums there are exact Python integers, rounded once (MSE, Spearman, R2 of the reversal)."""
    n = 3_100_000
    assert n * (n * n - 1) // 3 > np.iinfo(np.int64).max
    ident = P.identity(n)
    rev = ident[::-1].copy()
    got = M.evaluate_many(["mse", "rmse", "spearman_rho", "r2"], ident, rev)
    assert got["mse"] == pytest.approx((n * n - 1) / 3, rel=1e-15)
    assert got["rmse"] == pytest.approx(math.sqrt((n * n - 1) / 3), rel=1e-15)
    assert got["spearman_rho"] == pytest.approx(-1.0, abs=1e-15)
    assert got["r2"] == pytest.approx(-3.0, abs=1e-15)
    d = (ident - rev)[None, :]
    assert M._square_sums(d)[0] == n * (n * n - 1) // 3  # the exact integer


def test_small_integer_types_do_not_overflow():
    """Counts computed from numpy integers of small width: C(n, 2) from an int32 n (NumPy 2
    keeps int32 scalar arithmetic in int32), rankings given as int32 arrays."""
    assert T.n_pairs(np.int32(100_000)) == 4_999_950_000
    rev = P.identity(100_000)[::-1].astype(np.int32)
    assert int(P.inversion_count(rev)) == 100_000 * 99_999 // 2
    assert M.kendall_tau(P.identity(100_000).astype(np.int32), rev) == -1.0


def test_bruteforce_reference_memory_is_bounded():
    """The O(n^2) reference compares shifted copies, so a long row no longer needs C(n, 2)
    index pairs in memory (n = 20 000 would have needed 3.2 GB)."""
    import tracemalloc

    r = P.random(20_000, rng=5)
    tracemalloc.start()
    try:
        got = int(T.count_inversions_bruteforce(r))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got == int(P.inversion_count(r))
    assert peak < 10 * r.nbytes, peak
