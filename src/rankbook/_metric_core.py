"""The computational core of :mod:`rankbook.metrics` (private): the 33 metric names, what
each needs, the kernels and the block-wise evaluator.

:mod:`rankbook.metrics` (the public functions, the registry) and :mod:`rankbook.tied_metrics`
(the same metrics on rankings with ties) both build on this module, which imports neither, so
the package has no import cycle between them. Every name here is re-exported by
:mod:`rankbook.metrics`; import from there.

Validation happens once, going down the layers ``_validation <- permutations <- ties <-
_metric_core <- tied_metrics <- metrics`` (each imports only those before it): the public
functions check their arguments (:mod:`rankbook._validation`) and hand the rankings to
:func:`_evaluate`, which checks them block by block (the permutation check and the inverse
are one pass) unless the caller says they are checked already (``checked=True``: sampled
permutations, or rankings a caller validated once, as :mod:`rankbook.agreement` and
:mod:`rankbook.tied_metrics` do). The kernels and :class:`_Pair` trust their inputs.
"""

from __future__ import annotations

import numpy as np

from . import permutations as _perm
from ._validation import check_choice, check_k

#: The 33 metric names, in the column order of Table 2 of paper A.
NAMES = (
    "recall", "fnr", "fallout", "tnr", "precision", "fdr", "npv", "for", "accuracy",
    "balanced_accuracy", "f1", "fowlkes_mallows", "mcc", "jaccard", "markedness", "lr_minus",
    "informedness", "prevalence_threshold", "lr_plus", "mse", "rmse", "mae", "mape", "smape",
    "r2", "kendall_tau", "spearman_rho", "ndpm", "dcg", "ndcg", "mrr", "gmr", "mean_rank",
)

#: The metric families of Table 1 (``rank_position`` are MRR, GMR and meanRank, which the
#: paper colours separately).
FAMILIES = ("confusion", "error", "correlation", "cumulative_gain", "rank_position")


_C1 = "Table 1; Appendix C.1"
_CM_READING = (
    "R = set of sigma's first k items, S = set of nu's first k items (Appendix C.1 with j = k); "
    "TP = |R & S|, FP = FN = k - TP, TN = n - 2k + TP. k is not stated for Table 2 (its page fits "
    "k to the printed cells on held-out seeds); Figure 1 uses k = 30 at n = 100."
)
_NEVER = "never for 1 <= k <= n"
_KN = "k = n (no non-relevant items: 0/0)"

_SPECS = [
    # name, label, family, higher_is_closer, needs_k, defined_in, undefined, extra reading
    ("recall", "recall", "confusion", True, True, _C1, _NEVER, ""),
    ("fnr", "FNR", "confusion", False, True, _C1, _NEVER, ""),
    ("fallout", "fallout", "confusion", False, True, _C1, _KN, ""),
    ("tnr", "TNR", "confusion", True, True, _C1, _KN, ""),
    ("precision", "precision", "confusion", True, True, _C1, _NEVER, ""),
    ("fdr", "FDR", "confusion", False, True, _C1, _NEVER, ""),
    ("npv", "NPV", "confusion", True, True, _C1, _KN, ""),
    ("for", "FOR", "confusion", False, True, _C1, _KN, ""),
    ("accuracy", "accuracy", "confusion", True, True, _C1, _NEVER, ""),
    ("balanced_accuracy", "BA", "confusion", True, True, _C1, _KN, ""),
    ("f1", "F1 score", "confusion", True, True, _C1, _NEVER,
     " F1 = 2TP/(2TP+FP+FN): the printed F-beta has precision + recall in the numerator where "
     "the product belongs (with the sum, F1 would be the constant 2)."),
    ("fowlkes_mallows", "FM", "confusion", True, True, _C1, _NEVER, ""),
    ("mcc", "MCC", "confusion", True, True, _C1, _KN,
     " MCC with the square root in the denominator, which Appendix C.1 omits (without it "
     "MCC(sigma, sigma) = 1/(k(n-k)), not 1); the root reproduces Table 2."),
    ("jaccard", "Jaccard index", "confusion", True, True, _C1, _NEVER, ""),
    ("markedness", "markedness", "confusion", True, True, _C1, _KN, ""),
    ("lr_minus", "LR-", "confusion", False, True, _C1, "TNR = 0 (TN = 0, possible only when 2k >= n) or k = n", ""),
    ("informedness", "informedness", "confusion", True, True, _C1, _KN, ""),
    ("prevalence_threshold", "PT", "confusion", False, True, _C1, _KN,
     " PT = sqrt(FPR)/(sqrt(TPR)+sqrt(FPR)), equal to the printed (sqrt(TPR FPR)-FPR)/(TPR-FPR) "
     "wherever that is defined, and its limit 1/2 where TPR = FPR > 0 (printed form 0/0)."),
    ("lr_plus", "LR+", "confusion", True, True, _C1,
     "FPR = 0, i.e. TP = k (nu retrieves exactly sigma's first k items, e.g. sigma = nu), or k = n",
     " Undefined (nan) values are left out of averages; only LR+ has them in Table 2's setting."),
    ("mse", "MSE", "error", False, False, "Table 1; Appendix C.3.1", "never",
     "Mean over positions of (sigma(i) - nu(i))^2 (Appendix C.3.1 writes a sum; a sum gives "
     "26.8/581/2313 for rob. I(a) where 2.70/11.61/23.19 is printed)."),
    ("rmse", "RMSE", "error", False, False, "Table 1; Appendix C.3.1", "never",
     "sqrt of the mean squared error (mean, not sum, as for MSE)."),
    ("mae", "MAE", "error", False, False, "Table 1; Appendix C.3.1", "never",
     "Mean over positions of |sigma(i) - nu(i)| (Appendix C.3.1 writes a sum)."),
    ("mape", "MAPE", "error", False, False, "Table 1 only (never defined)", "never",
     "Never defined in the paper: 100 * mean(|sigma(i) - nu(i)| / sigma(i)), in percent, with the "
     "reference sigma as denominator; the nu-denominator variant has the same Type I means, so "
     "Table 2 cannot tell them apart."),
    ("smape", "SMAPE", "error", False, False, "Table 1; Appendix C.3.1", "never",
     "100/n * sum 2|sigma(i) - nu(i)|/(sigma(i) + nu(i)), as printed."),
    ("r2", "R² score", "error", True, False, "Table 1; Appendix C.3.1", "n = 1 (0/0)",
     "1 - sum (sigma(i)-nu(i))^2 / sum (sigma(i) - (n+1)/2)^2; since both arrays are "
     "permutations, R2 = 2 rho - 1 exactly."),
    ("kendall_tau", "Kendall's τ", "correlation", True, False, "Table 1; Appendix C.2; Lemma 6.3",
     "n = 1 (0/0)",
     "Computed on the raw arrays (pairs of positions), as scipy.stats.kendalltau(sigma, nu); "
     "this reading is right-invariant (Type II robust), as Prop. 6.2 states."),
    ("spearman_rho", "Spearman ρ", "correlation", True, False, "Table 1; Appendix C.2",
     "n = 1 (0/0)", "Computed on the raw arrays: 1 - 6 sum d_i^2 / (n(n^2-1)), as scipy.stats.spearmanr."),
    ("ndpm", "NDPM", "correlation", False, False, "Table 1; Appendix C.2", "n = 1 (0/0)",
     "Yao's count on item positions: discordant item pairs / C(n,2) (as rexmex). Under one slide "
     "it changes by (n+1-2p)/C(n,2), p = position in sigma of nu's top item, so its mean absolute "
     "change over random pairs is exactly 1/(n-1) for even n ((n+1)/n^2 for odd n): Table 2's "
     "I(b) n=10 cell 1.11 > 1 is then 0.11. Appendix C.2's sign sums, read literally, give "
     "1/2 - tau (raw arrays), whose changes are twice the printed ones."),
    ("dcg", "DCG", "cumulative_gain", False, False, "Table 1; Appendix C.3; Prop. 6.1", "never",
     "sum_i pi(i)/log2(i+1) with pi = nu^-1 o sigma (the paper's DCG of one permutation applied "
     "to the permutation relating the two rankings). Identity minimises it (lower is closer), as "
     "the proof of Prop. 6.1 argues. Closest reading to Table 2 found; several cells 10-25 % off."),
    ("ndcg", "nDCG", "cumulative_gain", False, False, "Table 1; Appendix C.3", "never",
     "DCG / IDCG with IDCG = sum_i (n+1-i)/log2(i+1), the largest DCG over S_n."),
    ("mrr", "MRR", "rank_position", True, True, "Table 1; Appendix C.3", "never",
     "Mean of 1/position in nu of sigma's first k items (as rexmex mean_reciprocal_rank). "
     "Reproduces Table 2's single-swap rows, not the sliding rows nor MRR at n = 10."),
    ("gmr", "GMR", "rank_position", False, True, "Table 1; Appendix C.3", "never",
     "Geometric mean of the positions in nu of sigma's first k items (as rexmex gmean_rank)."),
    ("mean_rank", "meanRank", "rank_position", False, True, "Table 1; Appendix C.3", "never",
     "Arithmetic mean of the positions in nu of sigma's first k items (as rexmex mean_rank)."),
]

#: Family and cut-off of each metric, read from :data:`_SPECS` (the registry's source).
FAMILY = {spec[0]: spec[2] for spec in _SPECS}
NEEDS_K = {spec[0]: spec[4] for spec in _SPECS}
assert tuple(FAMILY) == NAMES

#: The metrics that read the item numbers, position by position (paper A computes them on the
#: raw arrays): their values depend on how the items are numbered, so on ``numbering``. The
#: other 25 read the rankings as orders of items and give the same value under every numbering.
NUMBERED = ("mse", "rmse", "mae", "mape", "smape", "r2", "kendall_tau", "spearman_rho")
#: The metrics with ``m(sigma, nu) != m(nu, sigma)`` for some pairs (see
#: :data:`rankbook.pairwise.ASYMMETRIC`, which says why).
ASYMMETRIC = ("mape", "dcg", "ndcg", "mrr", "gmr", "mean_rank")

#: The two readings of a pair of permutation arrays (the parameter ``numbering`` of every
#: function that takes rankings): ``"given"`` reads the item numbers as they are (paper A's
#: reading, the default for permutation arrays); ``"pair"`` first numbers the items of each pair
#: by their position in its first ranking, the reference ``sigma``, so that every metric is a
#: function of the two orders alone (the item-based reading, the only one label lists have).
NUMBERINGS = ("given", "pair")


def check_numbering(numbering, labels: bool = False) -> str:
    """The numbering to use: ``None`` (the default) is ``"given"`` for permutation arrays and
    ``"pair"`` for label lists, which carry no numbers; ``"given"`` is refused for label lists."""
    if numbering is None:
        return "pair" if labels else "given"
    numbering = check_choice(numbering, NUMBERINGS, "numbering", explain=(
        "'given': the item numbers of permutation arrays as they are, paper A's reading; "
        "'pair': the items of each pair numbered by its first ranking, the item-based reading"))
    if labels and numbering == "given":
        raise ValueError("numbering='given' reads the numbers of permutation arrays; label "
                         "lists have none: use numbering='pair' (items numbered by the first "
                         "ranking of each pair) or leave numbering unset")
    return numbering


# --------------------------------------------------------------------------------------------
# shared validation and intermediate quantities
# --------------------------------------------------------------------------------------------


def _div(a, b):
    """a / b with nan wherever b == 0 (0/0 and x/0 are undefined, not 0 and not inf)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = a / b
    return np.where(b == 0, np.nan, out)


#: Rows evaluated together hold about this many entries: temporaries stay bounded (and in cache;
#: 2**16 int64 entries are 512 KiB, which measured faster than 2**18 with the compiled kernels).
_CHUNK_ELEMENTS = 1 << 16


def _checked(sigma, nu):
    """Validate both rankings once; return them, their 0-based inverses and the batch shape."""
    s = _perm._as_int_array(sigma, "sigma")
    inv_s = _perm._check_perm(s, "sigma")
    v = _perm._as_int_array(nu, "nu")
    if v.shape[-1] != s.shape[-1]:
        raise ValueError(
            f"sigma and nu rank different numbers of items: sigma has n={s.shape[-1]}, "
            f"nu has n={v.shape[-1]} (shapes {s.shape} and {v.shape})"
        )
    inv_v = _perm._check_perm(v, "nu")
    try:
        batch = np.broadcast_shapes(s.shape[:-1], v.shape[:-1])
    except ValueError:
        raise ValueError(
            f"the batch shapes of sigma {s.shape[:-1]} and nu {v.shape[:-1]} do not broadcast"
        ) from None
    return s, v, inv_s, inv_v, batch


_INT64_MAX = int(np.iinfo(np.int64).max)


def _square_sums(d: np.ndarray) -> np.ndarray:
    """Exact row sums of ``d**2`` for differences of two permutations of 1..n (``abs(d) < n``).

    The sum is at most n(n^2 - 1)/3 (the reversed ranking), which fits int64 up to
    n = 3 024 616; there one int64 ``einsum`` is exact. Beyond, the rows are summed in int64
    slices short enough that no slice sum can overflow (``(n - 1)**2`` per entry) and the slice
    sums are added as Python integers: the result is the exact integer, returned as an object
    array so that the one rounding happens in the caller's conversion to float64.
    """
    n = d.shape[-1]
    if n * (n * n - 1) // 3 <= _INT64_MAX:
        return np.einsum("...i,...i->...", d, d)
    step = max(1, _INT64_MAX // ((n - 1) * (n - 1)))
    flat = d.reshape(-1, n)
    total = [0] * flat.shape[0]
    for a in range(0, n, step):
        part = np.einsum("ij,ij->i", flat[:, a : a + step], flat[:, a : a + step])
        total = [t + int(x) for t, x in zip(total, part)]
    out = np.empty(len(total), dtype=object)
    out[:] = total
    return out.reshape(d.shape[:-1])


class _Pair:
    """A block of validated pairs (rows of shape (m, n)) plus lazily computed intermediates
    shared by several metrics."""

    def __init__(self, s, v, inv_s, inv_v, k=None):
        self.s, self.v = s, v
        self.inv_s, self.inv_v = inv_s, inv_v  # 0-based positions of items
        self.n = s.shape[-1]
        self._k = k
        self._cache: dict[str, np.ndarray] = {}

    @property
    def k(self) -> int:
        """The cut-off, checked by the caller (:func:`_evaluate`, :mod:`rankbook.pairwise`,
        :mod:`rankbook.tied_metrics`) before any block is built."""
        return self._k

    def _get(self, key, fn):
        if key not in self._cache:
            self._cache[key] = fn()
        return self._cache[key]

    # confusion matrix ------------------------------------------------------------------------
    @property
    def tp(self):
        def f():
            k = self.k
            # positions in sigma of nu's first k items; relevant iff position < k
            pos = np.take_along_axis(self.inv_s, self.v[..., :k] - 1, axis=-1)
            return (pos < k).sum(axis=-1).astype(np.float64)
        return self._get("tp", f)

    def counts(self):
        tp = self.tp
        k, n = self.k, self.n
        fp = k - tp
        return tp, fp, fp, n - 2 * k + tp  # tp, fp, fn, tn

    # positional differences -------------------------------------------------------------------
    @property
    def d(self):
        return self._get("d", lambda: self.s - self.v)

    @property
    def absd(self):
        return self._get("absd", lambda: np.abs(self.d))

    @property
    def sse(self):
        return self._get("sse", lambda: _square_sums(self.d).astype(np.float64))

    # relative permutations --------------------------------------------------------------------
    @property
    def rel(self):
        """nu^-1 o sigma, 1-based: position in nu of the item at each position of sigma."""
        return self._get("rel", lambda: np.take_along_axis(self.inv_v, self.s - 1, axis=-1) + 1)

    @property
    def kendall_discordant(self):
        # discordant position pairs of the raw arrays = inversions of nu o sigma^-1 (exact int64
        # counts, at most C(n, 2); one rounding to float64)
        return self._get(
            "kd", lambda: _perm._inversions_gather(self.v, 1, self.inv_s, 0).astype(np.float64))

    @property
    def item_discordant(self):
        # discordant item pairs (positions in sigma vs in nu) = inversions of nu^-1 o sigma
        return self._get(
            "id", lambda: _perm._inversions_gather(self.inv_v, 0, self.s, 1).astype(np.float64))

    @property
    def topk_positions(self):
        """Positions (1-based) in nu of sigma's first k items, shape (..., k)."""
        return self._get(
            "tkp",
            lambda: (np.take_along_axis(self.inv_v, self.s[..., : self.k] - 1, axis=-1) + 1).astype(
                np.float64
            ),
        )


def _number_pair(s, v, inv_s, inv_v, orient: bool = False):
    """Blocks of checked pairs numbered by their first ranking (``numbering="pair"``).

    Returns ``(ident, nu, inv_ident, inv_nu)``: sigma becomes the identity and nu lists the
    positions in sigma (1-based) of nu's items, as ``rankbook.permutations.from_labels(s, v)``
    for each row; the inverses are 0-based. With ``orient`` (for a symmetric metric), each row
    takes, of the relative permutation and its inverse (the pair numbered the other way round),
    the lexicographically smaller: the value is then the same, bit for bit, for ``(s, v)`` and
    ``(v, s)``, which otherwise agree only to rounding for sums of floats such as SMAPE's.
    """
    m, n = s.shape
    ident = np.broadcast_to(np.arange(1, n + 1, dtype=np.int64), (m, n)).copy()
    inv_ident = ident - 1
    nu = np.take_along_axis(inv_s, v - 1, axis=1)
    nu += 1
    inv_nu = np.take_along_axis(inv_v, s - 1, axis=1)
    if orient and m:
        other = inv_nu + 1
        diff = nu - other
        first = np.argmax(diff != 0, axis=1)
        swap = diff[np.arange(m), first] > 0
        if swap.any():
            nu[swap], inv_nu[swap] = other[swap], nu[swap] - 1
    return ident, nu, inv_ident, inv_nu


def _blocks(names, s, v, inv_s, inv_v, k, numbering):
    """``[(names, _Pair)]`` to evaluate: one block as given, or under ``numbering="pair"`` the
    metrics that read the numbers on the renumbered pair (oriented for the symmetric ones) and
    the others as given (they do not depend on the numbering)."""
    if numbering != "pair":
        return [(names, _Pair(s, v, inv_s, inv_v, k=k))]
    out = []
    plain = [name for name in names if name not in NUMBERED]
    if plain:
        out.append((plain, _Pair(s, v, inv_s, inv_v, k=k)))
    for orient in (True, False):
        group = [name for name in names if name in NUMBERED and (name not in ASYMMETRIC) == orient]
        if group:
            out.append((group, _Pair(*_number_pair(s, v, inv_s, inv_v, orient), k=k)))
    return out


def _discount(n: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64))


def _finish(x):
    x = np.asarray(x, dtype=np.float64)
    return x[()] if x.ndim == 0 else x


# --------------------------------------------------------------------------------------------
# kernels on a _Pair
# --------------------------------------------------------------------------------------------


def _k_recall(p):
    tp, fp, fn, tn = p.counts()
    return _div(tp, tp + fn)


def _k_fnr(p):
    tp, fp, fn, tn = p.counts()
    return _div(fn, tp + fn)


def _k_fallout(p):
    tp, fp, fn, tn = p.counts()
    return _div(fp, fp + tn)


def _k_tnr(p):
    tp, fp, fn, tn = p.counts()
    return _div(tn, tn + fp)


def _k_precision(p):
    tp, fp, fn, tn = p.counts()
    return _div(tp, tp + fp)


def _k_fdr(p):
    tp, fp, fn, tn = p.counts()
    return _div(fp, tp + fp)


def _k_npv(p):
    tp, fp, fn, tn = p.counts()
    return _div(tn, tn + fn)


def _k_for(p):
    tp, fp, fn, tn = p.counts()
    return _div(fn, tn + fn)


def _k_accuracy(p):
    tp, fp, fn, tn = p.counts()
    return (tp + tn) / p.n


def _k_balanced_accuracy(p):
    return (_k_recall(p) + _k_tnr(p)) / 2


def _k_f1(p):
    tp, fp, fn, tn = p.counts()
    return _div(2 * tp, 2 * tp + fp + fn)


def _k_fowlkes_mallows(p):
    return np.sqrt(_k_precision(p) * _k_recall(p))


def _k_mcc(p):
    tp, fp, fn, tn = p.counts()
    return _div(tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))


def _k_jaccard(p):
    tp, fp, fn, tn = p.counts()
    return _div(tp, tp + fp + fn)


def _k_markedness(p):
    return _k_precision(p) + _k_npv(p) - 1


def _k_lr_minus(p):
    return _div(_k_fnr(p), _k_tnr(p))


def _k_informedness(p):
    return _k_recall(p) + _k_tnr(p) - 1


def _k_prevalence_threshold(p):
    tpr, fpr = _k_recall(p), _k_fallout(p)
    return _div(np.sqrt(fpr), np.sqrt(tpr) + np.sqrt(fpr))


def _k_lr_plus(p):
    return _div(_k_recall(p), _k_fallout(p))


def _k_mse(p):
    return p.sse / p.n


def _k_rmse(p):
    return np.sqrt(p.sse / p.n)


def _k_mae(p):
    # int64 sum of abs(d), at most floor(n^2 / 2): exact for n < 4.29e9
    return p.absd.sum(axis=-1) / p.n


def _k_mape(p):
    return 100.0 * (p.absd / p.s).mean(axis=-1)


def _k_smape(p):
    return 100.0 * (2.0 * p.absd / (p.s + p.v)).mean(axis=-1)


def _k_r2(p):
    n = p.n
    sst = n * (n * n - 1) / 12.0  # sum (sigma(i) - mean)^2 for any permutation
    return 1.0 - _div(p.sse, np.full_like(p.sse, sst))


def _k_kendall_tau(p):
    n = p.n
    pairs = n * (n - 1) / 2.0
    return 1.0 - _div(2.0 * p.kendall_discordant, np.full_like(p.kendall_discordant, pairs))


def _k_spearman_rho(p):
    n = p.n
    return 1.0 - _div(6.0 * p.sse, np.full_like(p.sse, n * (n * n - 1.0)))


def _k_ndpm(p):
    n = p.n
    return _div(p.item_discordant, np.full_like(p.item_discordant, n * (n - 1) / 2.0))


def _k_dcg(p):
    # elementwise product then a sum over the last axis: the same bits whatever the batch shape
    return p._get("dcg", lambda: (p.rel * _discount(p.n)).sum(axis=-1))


def _idcg(n: int) -> float:
    return float(np.arange(n, 0, -1, dtype=np.float64) @ _discount(n))


def _k_ndcg(p):
    return _k_dcg(p) / _idcg(p.n)


def _k_mrr(p):
    return (1.0 / p.topk_positions).mean(axis=-1)


def _k_gmr(p):
    return np.exp(np.log(p.topk_positions).mean(axis=-1))


def _k_mean_rank(p):
    return p.topk_positions.mean(axis=-1)


_KERNELS = {name: globals()["_k_" + name] for name in NAMES if name != "for"}
_KERNELS["for"] = _k_for


def _unknown(name) -> ValueError:
    return ValueError(f"unknown metric {name!r}; valid names: {', '.join(NAMES)}")


def _evaluate(names, sigma, nu, k, chunk=None, numbering="given", checked=False):
    """Evaluate the metrics block by block over the flattened batch.

    The one validation of the rankings: conversion, the permutation check and the inverse
    permutations are done per block (the check and the inverse are one pass), so the memory used
    beyond the inputs and the outputs is bounded by the block size (about ``_CHUNK_ELEMENTS``
    entries per array, i.e. ``_CHUNK_ELEMENTS // n`` rows), whatever the batch size and n.
    Whenever anything is invalid, :func:`_checked` runs on the whole input so the error (and
    which problem is reported first) is the same as for a whole-array validation. ``names``,
    ``numbering`` and (for the metrics that need it) ``k`` are the caller's checked values;
    ``checked=True`` says the rankings are int64 permutations already checked by the caller
    (sampled or validated once upstream): only their inverses are computed.
    """
    if checked:
        s_raw, v_raw = sigma, nu
        n = s_raw.shape[-1]
        batch = np.broadcast_shapes(s_raw.shape[:-1], v_raw.shape[:-1])
    else:
        try:
            s_raw, v_raw = np.asarray(sigma), np.asarray(nu)
            if min(s_raw.ndim, v_raw.ndim, s_raw.size, v_raw.size) == 0:
                raise ValueError
            n = s_raw.shape[-1]
            if v_raw.shape[-1] != n:
                raise ValueError
            batch = np.broadcast_shapes(s_raw.shape[:-1], v_raw.shape[:-1])
        except ValueError:
            _checked(sigma, nu)  # raises the precise message
            raise
    if any(NEEDS_K[name] for name in names):
        try:
            k = check_k(k, n)
        except ValueError:
            if not checked:
                _checked(sigma, nu)  # invalid rankings are reported before an invalid k
            raise
    rows = int(np.prod(batch, dtype=np.int64))
    full = [np.broadcast_to(x, batch + (n,)) for x in (s_raw, v_raw)]
    if len(batch) <= 1:
        full = [x.reshape(rows, n) for x in full]  # views
    out = {name: np.empty(rows, dtype=np.float64) for name in names}
    step = max(1, (_CHUNK_ELEMENTS if chunk is None else chunk) // n)
    for start in range(0, rows, step):
        stop = min(rows, start + step)
        if len(batch) <= 1:
            raw = [x[start:stop] for x in full]
        else:  # gather the block's rows without materialising the whole broadcast batch
            where = np.unravel_index(np.arange(start, stop), batch)
            raw = [x[where] for x in full]
        if checked:
            s_blk, v_blk = raw
            inv_s, inv_v = _perm._inverse_unchecked(s_blk), _perm._inverse_unchecked(v_blk)
        else:
            try:
                s_blk = _perm._as_int_array(raw[0], "sigma")
                inv_s = _perm._check_perm(s_blk, "sigma")
                v_blk = _perm._as_int_array(raw[1], "nu")
                inv_v = _perm._check_perm(v_blk, "nu")
                block_error = None
            except ValueError as exc:
                block_error = exc
            if block_error is not None:  # outside the except: one traceback, not two chained
                _checked(sigma, nu)  # the error as whole-array validation reports it
                raise block_error
        for group, block in _blocks(names, s_blk, v_blk, inv_s, inv_v, k, numbering):
            for name in group:
                out[name][start:stop] = _KERNELS[name](block)
    return {name: _finish(val.reshape(batch)) for name, val in out.items()}
