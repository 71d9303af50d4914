"""The 33 ranking evaluation metrics of paper A, as functions of two permutations.

Paper A (``paperA`` in ``book/references.bib``) compares two rankings ``sigma`` and ``nu`` of
the same n items with 33 metrics (Table 1, Table 2, Appendix C). This module implements each
one, vectorised over batches, with the readings that reproduce the paper's printed numbers.

Reading a ranking
-----------------
A ranking is a permutation in one-line notation, ``sigma[i - 1]`` the item at position i (see
:mod:`rankbook.permutations`), or a list of labels, best first. Every function of rankbook that
takes rankings reads them the same way, and takes the other reading through the same
parameter, ``numbering``:

- ``numbering=None`` (the default): permutation arrays are read *as given*, paper A's reading:
  the 8 metrics that read the item numbers (:data:`NUMBERED`: MSE, RMSE, MAE, MAPE, SMAPE, R²,
  Kendall's tau, Spearman's rho) compare the two arrays position by position, as
  ``scipy.stats.kendalltau(sigma, nu)`` does. Label lists carry no numbers: each pair is
  numbered by its reference sigma (:func:`rankbook.permutations.label_pairs`), the only way to
  read them.
- ``numbering="pair"``: permutation arrays are numbered by sigma too, so that every metric is a
  function of the two orders alone (Kendall's tau is then the item-based
  ``1 - 2 d_K / C(n, 2)``, d_K the item pairs the two rankings order differently).
- ``numbering="given"``: as given; refused for label lists.

The other 25 metrics read the rankings as orders of items and give the same value under both
readings. The numbers matter to the 8: the same two rankings of labelled items give different
values under different numberings. For the label rankings ``fbcead`` and ``febacd``, Kendall's
tau is 0.600 when each item is numbered by its position in the first ranking (the reading of
label lists) and 0.067 when the items are numbered alphabetically.

>>> round(float(kendall_tau("fbcead", "febacd")), 3)
0.6
>>> from rankbook.permutations import from_labels
>>> sigma, nu = from_labels("fbcead", "febacd")
>>> round(float(kendall_tau(sigma, nu)), 3)
0.6
>>> alpha = {x: i + 1 for i, x in enumerate("abcdef")}
>>> s, v = [alpha[x] for x in "fbcead"], [alpha[x] for x in "febacd"]
>>> round(float(kendall_tau(s, v)), 3), round(float(kendall_tau(s, v, numbering="pair")), 3)
(0.067, 0.6)

:func:`rankbook.pairwise.pairwise`, :mod:`rankbook.agreement` and :mod:`rankbook.tied_metrics`
take the same ``numbering``, with the same default; ``pairwise(X, m)[i, j] == evaluate(m, X[i],
X[j])`` holds for every metric under each reading (tests/test_reading.py).

Metric conventions
------------------
- A ranking is a permutation in one-line notation (see :mod:`rankbook.permutations`):
  ``sigma[i - 1]`` is the item at position i, or a label list (see *Reading a ranking*).
  ``sigma`` plays the reference ("ground truth") and ``nu`` the ranking being evaluated
  wherever the two roles differ.
- Every metric takes ``(sigma, nu, k=None)`` with shapes ``(n,)`` or ``(..., n)`` (batch axes
  broadcast) and returns a float (one pair) or a float array of the batch shape.
- Metrics that need ``k`` (the 19 confusion-matrix metrics, MRR, GMR, meanRank) raise
  ``ValueError`` without it or for k outside 1..n; the others ignore k, so one loop can
  evaluate all 33 with the same k.
- Undefined values (0/0 or x/0) are ``nan``, never an exception and never a silent 0; each
  metric's ``Metric.undefined`` says when.

Ties
----
Every metric (and :func:`evaluate`, :func:`evaluate_many`) also takes rankings with ties (weak
orders): a list in which a set holds tied items, ``[3, {1, 4}, 2]`` (items 1 and 4 share positions
2 and 3), or a :class:`rankbook.ties.WeakOrder` for a batch, with
``ties="optimistic" | "pessimistic" | "expected"``: the best, the worst or the exact mean value
over every order of the tied items of both rankings. :mod:`rankbook.tied_metrics` says how each
is computed (closed forms for the expected values, except the RMSE's) and where ordering the
ties as the other ranking does is not the best order. Without ``ties`` a tied ranking is refused.

>>> float(kendall_tau([1, 2, 3, 4], [{1, 2}, 3, 4], ties="expected"))  # tau 1 or 2/3, equally likely
0.8333333333333334

Readings
--------
Each reading is verified against Table 2 by recomputing the Type I robustness means of eqs. 5
and 6; the book's Table 2 page shows the comparison.

- Confusion matrix: relevant set R = the first k items of sigma, retrieved set S = the first k
  items of nu (Appendix C.1 with j = k). ``TP = |R ∩ S|``, ``FP = FN = k - TP``, ``TN = n - 2k + TP``.
  The paper never states k for Table 2; the Table 2 page fits it to the printed cells on
  held-out seeds and shows how firmly the cells pin it down.
- MCC uses the square root in the denominator (Appendix C.1 omits it; without it MCC is not
  in [-1, 1]). F1 = 2 TP / (2 TP + FP + FN) (the printed F-beta has a sum where the product
  belongs). PT = sqrt(FPR) / (sqrt(TPR) + sqrt(FPR)), algebraically the printed
  (sqrt(TPR FPR) - FPR) / (TPR - FPR) wherever that is defined, and its continuous value 1/2
  where TPR = FPR > 0 (the printed form is 0/0 there).
- Error metrics are means over positions of the raw arrays (Appendix C.3.1 writes sums: a sum
  gives 26.8 / 581 / 2313 for MSE I(a) where 2.70 / 11.61 / 23.19 is printed). MAPE, never
  defined in the paper, is ``100 mean(|sigma - nu| / sigma)`` in percent.
- Kendall's tau and Spearman's rho are computed on the raw arrays (as
  ``scipy.stats.kendalltau(sigma, nu)``); NDPM on item positions (Yao's count of discordant item
  pairs over C(n, 2)); Appendix C.2's sign sums, read literally, give 1/2 - tau, which does not
  fit the printed numbers.
- DCG applies the paper's DCG(pi) = sum_i pi(i) / log2(i + 1) to the relative permutation
  pi = nu^-1 o sigma (pi(i) = position in nu of sigma's i-th item); nDCG = DCG / IDCG with
  IDCG = sum_i (n + 1 - i) / log2(i + 1). With these gains the identity *minimises* DCG (the
  paper's proof of Prop. 6.1 argues exactly this), so lower means closer. This is the closest
  reading found; several Table 2 cells stay 10-25 % off.
- MRR, GMR, meanRank: harmonic-type, geometric and arithmetic means of the positions in nu of
  sigma's first k items (as ``rexmex.metrics.ranking``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, Optional

import numpy as np

from . import permutations as _perm
from . import tied_metrics
from .concordance import concordance_counts
from . import _metric_core as _core
from ._metric_core import NUMBERINGS, NUMBERED, check_numbering  # noqa: F401
from ._validation import check_choice
from .ties import WeakOrder, check_ties
from ._metric_core import (  # noqa: F401  (the computational core, re-exported: see _metric_core)
    _C1, _CM_READING, _KERNELS, _KN, _NEVER, _SPECS, FAMILIES, NAMES, _checked,
    _discount, _div, _finish, _idcg, _Pair, _square_sums, _unknown,
)

#: Rows evaluated together by :func:`_evaluate` hold about this many entries (a copy of
#: :data:`rankbook._metric_core._CHUNK_ELEMENTS` that tests and benchmarks may change here).
_CHUNK_ELEMENTS = _core._CHUNK_ELEMENTS


def _evaluate(names, sigma, nu, k, numbering="given", checked=False):
    """:func:`rankbook._metric_core._evaluate` in blocks of :data:`_CHUNK_ELEMENTS` entries."""
    return _core._evaluate(names, sigma, nu, k, chunk=_CHUNK_ELEMENTS, numbering=numbering,
                           checked=checked)


__all__ = [
    "NAMES", "REGISTRY", "FAMILIES", "Metric", "evaluate", "evaluate_many",
    "recall", "fnr", "fallout", "tnr", "precision", "fdr", "npv", "for_", "accuracy",
    "balanced_accuracy", "f1", "fowlkes_mallows", "mcc", "jaccard", "markedness", "lr_minus",
    "informedness", "prevalence_threshold", "lr_plus", "mse", "rmse", "mae", "mape", "smape",
    "r2", "kendall_tau", "spearman_rho", "ndpm", "dcg", "ndcg", "mrr", "gmr", "mean_rank",
    "kendall_tau_b", "kendall_tau_a", "NAN_POLICIES", "NUMBERINGS", "NUMBERED",
]


@dataclass(frozen=True)
class Metric:
    """What the registry records about one metric.

    Attributes
    ----------
    name : str
        Registry key (``"for"`` for the false omission rate; its function is ``for_``).
    label : str
        The paper's display name (Table 2 header).
    family : str
        One of :data:`FAMILIES`.
    higher_is_closer : bool
        True when larger values mean the two rankings are more alike.
    needs_k : bool
        True when the metric uses the cut-off k.
    defined_in : str
        Where paper A defines it.
    func : callable
        ``func(sigma, nu, k=None)``.
    undefined : str
        When the metric returns nan.
    reading : str
        The reading chosen where the paper is ambiguous or wrong, with its evidence.
    """

    name: str
    label: str
    family: str
    higher_is_closer: bool
    needs_k: bool
    defined_in: str
    func: Callable
    undefined: str
    reading: str


def _compute(name, sigma, nu, k, ties=None, numbering=None):
    return _evaluate_ties([name], sigma, nu, k, ties, numbering)[name]


def _is_weak(x) -> bool:
    return isinstance(x, WeakOrder) or (
        isinstance(x, (list, tuple)) and any(isinstance(e, (set, frozenset)) for e in x))


def _as_array(x):
    """A list or tuple without tie groups as an array (a ragged one stays as it is, for the
    permutation check to word the problem); anything else unchanged."""
    if isinstance(x, (list, tuple)) and not any(isinstance(e, (set, frozenset)) for e in x):
        try:
            return np.asarray(x)
        except (ValueError, TypeError):
            return x
    return x


def _evaluate_ties(names, sigma, nu, k, ties, numbering=None):
    """The one entry point of every public function of this module (``names`` checked).

    Checks ``ties`` and ``numbering`` once, reads label lists as the pair numbered by sigma,
    and hands the rankings to :func:`_evaluate` (which checks them, block by block) or, when a
    ranking is a weak order (a list holding sets, or a :class:`rankbook.ties.WeakOrder`), to
    :func:`rankbook.tied_metrics.evaluate`.
    """
    sigma, nu = _as_array(sigma), _as_array(nu)  # lists converted once, not per check
    labels = _perm.is_label_ranking(sigma) or _perm.is_label_ranking(nu)
    numbering = _core.check_numbering(numbering, labels)
    if labels:
        if _is_weak(sigma) or _is_weak(nu):
            raise ValueError("a ranking with ties (a list holding sets) is a weak order of the "
                             "items 1..n; number label lists first "
                             "(rankbook.permutations.from_labels) to score them with ties")
        sigma, nu = _perm.label_pairs(sigma, nu)  # checked permutations, numbered by sigma
        check_ties(ties, allow_none=True)
        return _evaluate(names, sigma, nu, k, numbering, checked=True)
    if _is_weak(sigma) or _is_weak(nu):
        return tied_metrics.evaluate(names, sigma, nu, k, ties, numbering=numbering)
    check_ties(ties, allow_none=True)
    try:
        return _evaluate(names, sigma, nu, k, numbering)
    except ValueError as exc:
        if "duplicate values" not in str(exc):
            raise
        message = str(exc)
    raise ValueError(
        f"{message}; a ranking with ties is a weak order: a list holding sets of tied items "
        "(or rankbook.ties.WeakOrder.from_ranks(ranks)), scored under ties='optimistic', "
        "'pessimistic' or 'expected'; kendall_tau_b takes score vectors with ties as scipy does")


# --------------------------------------------------------------------------------------------
# public functions, one per metric
# --------------------------------------------------------------------------------------------



def recall(sigma, nu, k=None, ties=None, numbering=None):
    """Recall (true positive rate): ``TP / (TP + FN) = |R ∩ S| / |R|``.

    R is the set of sigma's first k items, S the set of nu's first k items (Appendix C.1 of
    ``paperA``). Always defined for 1 <= k <= n.

    Examples
    --------
    >>> sigma, nu = [1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5]
    >>> float(recall(sigma, nu, k=2))
    0.5
    """
    return _compute("recall", sigma, nu, k, ties, numbering)


def fnr(sigma, nu, k=None, ties=None, numbering=None):
    """False negative rate: FN / (TP + FN) = 1 - recall. Always defined for 1 <= k <= n.

    Examples
    --------
    >>> float(fnr([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    0.5
    """
    return _compute("fnr", sigma, nu, k, ties, numbering)


def fallout(sigma, nu, k=None, ties=None, numbering=None):
    """Fall-out (false positive rate): FP / (FP + TN). nan when k = n (no non-relevant item).

    Examples
    --------
    >>> float(fallout([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    0.25
    """
    return _compute("fallout", sigma, nu, k, ties, numbering)


def tnr(sigma, nu, k=None, ties=None, numbering=None):
    """True negative rate (specificity): TN / (TN + FP). nan when k = n.

    Examples
    --------
    >>> float(tnr([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    0.75
    """
    return _compute("tnr", sigma, nu, k, ties, numbering)


def precision(sigma, nu, k=None, ties=None, numbering=None):
    """Precision: ``TP / (TP + FP) = |R ∩ S| / |S|``. Equals recall here since ``|R| = |S| = k``.

    Examples
    --------
    >>> float(precision([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    0.5
    """
    return _compute("precision", sigma, nu, k, ties, numbering)


def fdr(sigma, nu, k=None, ties=None, numbering=None):
    """False discovery rate: FP / (TP + FP) = 1 - precision.

    Examples
    --------
    >>> float(fdr([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    0.5
    """
    return _compute("fdr", sigma, nu, k, ties, numbering)


def npv(sigma, nu, k=None, ties=None, numbering=None):
    """Negative predictive value: TN / (TN + FN). nan when k = n.

    Examples
    --------
    >>> float(npv([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    0.75
    """
    return _compute("npv", sigma, nu, k, ties, numbering)


def for_(sigma, nu, k=None, ties=None, numbering=None):
    """False omission rate (registry name ``"for"``): FN / (FN + TN) = 1 - NPV. nan when k = n.

    Examples
    --------
    >>> float(for_([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    0.25
    """
    return _compute("for", sigma, nu, k, ties, numbering)


def accuracy(sigma, nu, k=None, ties=None, numbering=None):
    """Accuracy: ``(TP + TN) / n = (|S ∩ R| + n - |S ∪ R|) / n``. Always defined.

    Examples
    --------
    >>> round(float(accuracy([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2)), 4)
    0.6667
    """
    return _compute("accuracy", sigma, nu, k, ties, numbering)


def balanced_accuracy(sigma, nu, k=None, ties=None, numbering=None):
    """Balanced accuracy: (TPR + TNR) / 2. nan when k = n.

    Examples
    --------
    >>> float(balanced_accuracy([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    0.625
    """
    return _compute("balanced_accuracy", sigma, nu, k, ties, numbering)


def f1(sigma, nu, k=None, ties=None, numbering=None):
    """F1 score: 2 TP / (2 TP + FP + FN), the harmonic mean of precision and recall.

    Appendix C.1 prints F_beta = (1 + beta^2)(precision + recall) / (beta^2 precision + recall),
    whose numerator should be the product precision * recall (with the sum, F1 would be the
    constant 2 for beta = 1). Always defined for k >= 1.

    Examples
    --------
    >>> float(f1([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    0.5
    """
    return _compute("f1", sigma, nu, k, ties)


def fowlkes_mallows(sigma, nu, k=None, ties=None, numbering=None):
    """Fowlkes-Mallows index: sqrt(precision * recall) = sqrt((1 - FDR) TPR).

    Examples
    --------
    >>> float(fowlkes_mallows([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    0.5
    """
    return _compute("fowlkes_mallows", sigma, nu, k, ties, numbering)


def mcc(sigma, nu, k=None, ties=None, numbering=None):
    """Matthews correlation coefficient (``matthews1975comparison``).

    MCC = (TP TN - FP FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN)). Appendix C.1 of
    ``paperA`` omits the square root; the root is needed for MCC(sigma, sigma) = 1 and to
    reproduce Table 2. nan when the denominator is 0 (k = n); scikit-learn returns 0 there.

    Examples
    --------
    >>> float(mcc([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    0.25
    """
    return _compute("mcc", sigma, nu, k, ties, numbering)


def jaccard(sigma, nu, k=None, ties=None, numbering=None):
    """Jaccard index: ``|S ∩ R| / |S ∪ R| = TP / (TP + FP + FN)``. Always defined for k >= 1.

    Examples
    --------
    >>> round(float(jaccard([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2)), 4)
    0.3333
    """
    return _compute("jaccard", sigma, nu, k, ties, numbering)


def markedness(sigma, nu, k=None, ties=None, numbering=None):
    """Markedness: precision + NPV - 1 (Appendix C.1 writes 1 - FDR + NPV - 1). nan when k = n.

    Examples
    --------
    >>> float(markedness([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    0.25
    """
    return _compute("markedness", sigma, nu, k, ties, numbering)


def lr_minus(sigma, nu, k=None, ties=None, numbering=None):
    """Negative likelihood ratio: FNR / TNR. nan when TNR = 0 or k = n.

    Examples
    --------
    >>> round(float(lr_minus([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2)), 4)
    0.6667
    """
    return _compute("lr_minus", sigma, nu, k, ties, numbering)


def informedness(sigma, nu, k=None, ties=None, numbering=None):
    """Informedness (Youden's J): TPR + TNR - 1. nan when k = n.

    Examples
    --------
    >>> float(informedness([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    0.25
    """
    return _compute("informedness", sigma, nu, k, ties, numbering)


def prevalence_threshold(sigma, nu, k=None, ties=None, numbering=None):
    """Prevalence threshold: PT = sqrt(FPR) / (sqrt(TPR) + sqrt(FPR)).

    Appendix C.1 of ``paperA`` prints (sqrt(TPR FPR) - FPR) / (TPR - FPR); dividing numerator
    and denominator by sqrt(TPR) - sqrt(FPR) gives the form used here, equal wherever the
    printed one is defined. Where TPR = FPR > 0 the printed form is 0/0 and this one gives its
    limit 1/2 (this happens, e.g., whenever TP = k^2 / n, the expected overlap of two random
    rankings). nan when k = n (FPR undefined); TPR = FPR = 0 cannot occur for k < n.

    Examples
    --------
    >>> round(float(prevalence_threshold([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2)), 4)
    0.4142
    """
    return _compute("prevalence_threshold", sigma, nu, k, ties, numbering)


def lr_plus(sigma, nu, k=None, ties=None, numbering=None):
    """Positive likelihood ratio: TPR / FPR.

    nan when FPR = 0, i.e. whenever nu retrieves exactly sigma's first k items (TP = k), in
    particular for sigma = nu; and when k = n.

    Examples
    --------
    >>> float(lr_plus([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    2.0
    >>> import math; math.isnan(lr_plus([1, 2, 3], [2, 1, 3], k=2))
    True
    """
    return _compute("lr_plus", sigma, nu, k, ties, numbering)


def mse(sigma, nu, k=None, ties=None, numbering=None):
    """Mean squared error over positions: (1/n) sum_i (sigma(i) - nu(i))^2.

    Appendix C.3.1 of ``paperA`` writes the sum; the mean reproduces Table 2 (a sum would give
    26.8, 581 and 2313 for the single-swap rows where 2.70, 11.61 and 23.19 are printed).
    Always defined. k is ignored.

    Examples
    --------
    >>> float(mse([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5]))
    2.0
    """
    return _compute("mse", sigma, nu, k, ties, numbering)


def rmse(sigma, nu, k=None, ties=None, numbering=None):
    """Root mean squared error: sqrt(MSE). Always defined. k is ignored.

    Examples
    --------
    >>> round(float(rmse([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5])), 4)
    1.4142
    """
    return _compute("rmse", sigma, nu, k, ties, numbering)


def mae(sigma, nu, k=None, ties=None, numbering=None):
    """Mean absolute error over positions: ``(1/n) sum_i |sigma(i) - nu(i)|`` (mean, not sum).

    Examples
    --------
    >>> round(float(mae([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5])), 4)
    1.3333
    """
    return _compute("mae", sigma, nu, k, ties, numbering)


def mape(sigma, nu, k=None, ties=None, numbering=None):
    """Mean absolute percentage error: ``(100/n) sum_i |sigma(i) - nu(i)| / sigma(i)``.

    Listed in Table 1 of ``paperA`` but never defined; this is the usual definition with the
    reference sigma in the denominator, in percent (Table 2's values are percentages, and the
    nu-denominator variant has the same Type I means, so the table cannot tell them apart).
    Not symmetric. Always defined (sigma(i) >= 1). k is ignored.

    Examples
    --------
    >>> round(float(mape([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5])), 4)
    61.6667
    """
    return _compute("mape", sigma, nu, k, ties, numbering)


def smape(sigma, nu, k=None, ties=None, numbering=None):
    """Symmetric MAPE: ``(100/n) sum_i 2 |sigma(i) - nu(i)| / (sigma(i) + nu(i))``. Always defined.

    Examples
    --------
    >>> round(float(smape([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5])), 4)
    47.8451
    """
    return _compute("smape", sigma, nu, k, ties, numbering)


def r2(sigma, nu, k=None, ties=None, numbering=None):
    """Coefficient of determination: 1 - sum_i (sigma(i) - nu(i))^2 / sum_i (sigma(i) - mean)^2.

    The mean is (n + 1)/2 for every permutation (Appendix C.3.1 prints the mean of nu, the same
    number), so R2 = 2 rho - 1 exactly, with rho Spearman's. nan for n = 1 (0/0).

    Examples
    --------
    >>> round(float(r2([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5])), 4)
    0.3143
    """
    return _compute("r2", sigma, nu, k, ties)


def kendall_tau(sigma, nu, k=None, ties=None, numbering=None):
    """Kendall's tau (``kendall1938new``) of the raw arrays: (concordant - discordant) / C(n, 2).

    A pair of positions i < j is concordant when sigma(i) - sigma(j) and nu(i) - nu(j) have the
    same sign (Appendix C.2), as ``scipy.stats.kendalltau(sigma, nu)``. The discordant pairs are
    the inversions of nu o sigma^-1, counted in O(n log n) per pair
    (:func:`rankbook.permutations.inversion_count`) exactly in int64 for every n (at most
    C(n, 2)), and rounded to float64 once, so the reversed ranking gives exactly -1 at any n.
    nan for n = 1.

    Examples
    --------
    >>> round(float(kendall_tau([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5])), 4)
    0.4667
    """
    return _compute("kendall_tau", sigma, nu, k, ties, numbering)


#: The choices of ``nan_policy`` in :func:`kendall_tau_b` and :func:`kendall_tau_a` (scipy's).
NAN_POLICIES = ("propagate", "omit", "raise")


def _score_counts(x, y, nan_policy):
    """Pair counts of two score vectors (:func:`rankbook.concordance.concordance_counts`), or None
    when a nan propagates."""
    check_choice(nan_policy, NAN_POLICIES, "nan_policy")
    xa = np.asarray(x, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64)
    if xa.ndim != 1 or ya.ndim != 1 or xa.shape != ya.shape:
        raise ValueError(f"x and y must be 1-D score vectors of the same length, got shapes "
                         f"{xa.shape} and {ya.shape}")
    nan = np.isnan(xa) | np.isnan(ya)
    if nan.any():
        if nan_policy == "raise":
            raise ValueError(f"x or y holds nan at {int(nan.sum())} positions; nan_policy: "
                             "'propagate' gives nan, 'omit' drops those pairs")
        if nan_policy == "propagate":
            return None
    return concordance_counts(xa, ya)


def kendall_tau_b(x, y, nan_policy="propagate"):
    """Kendall's tau-b of two score vectors with ties, as ``scipy.stats.kendalltau(x, y)``.

    ``tau_b = (C - D) / sqrt((P - T_x) (P - T_y))``, with ``C`` and ``D`` the concordant and
    discordant pairs, ``P = n (n - 1) / 2`` all pairs, and ``T_x``, ``T_y`` the pairs tied in
    x and in y (pairs tied in both count in each). The counts are exact integers, in
    O(n log n) time and O(n) memory (one inversion count between two sorted orders; ties from
    group sizes; :func:`rankbook.agreement.concordance_counts`). Unlike the 33 metrics of this
    module, x and y are scores of the same n items (any real values, ties allowed), not
    permutations. nan when fewer than two pairs remain or when x or y is constant (0/0).

    Parameters
    ----------
    x, y : array_like of shape (n,)
        Scores of the same items.
    nan_policy : {"propagate", "omit", "raise"}
        As scipy's: nan if any value is nan, drop the items where x or y is nan, or
        ``ValueError``.

    Returns
    -------
    float

    Examples
    --------
    >>> kendall_tau_b([1, 2, 2, 3], [1, 3, 2, 2])
    0.4
    >>> kendall_tau_b([1, 1, 1], [1, 2, 3])
    nan
    """
    c = _score_counts(x, y, nan_policy)
    if c is None:
        return float("nan")
    tx = c["tied_x"] + c["tied_both"]
    ty = c["tied_y"] + c["tied_both"]
    den = (c["pairs"] - tx) * (c["pairs"] - ty)
    if den == 0:
        return float("nan")
    return float((c["concordant"] - c["discordant"]) / math.sqrt(den))


def kendall_tau_a(x, y, nan_policy="propagate"):
    """Kendall's tau-a of two score vectors with ties: ``(C - D) / (n (n - 1) / 2)``.

    Tied pairs count in the denominator and in neither ``C`` nor ``D``, so tau-a of vectors with
    ties cannot reach 1 (tau-b corrects for that, :func:`kendall_tau_b`). Exact counts in
    O(n log n) time and O(n) memory. nan for fewer than two items.

    Parameters
    ----------
    x, y : array_like of shape (n,)
        Scores of the same items.
    nan_policy : {"propagate", "omit", "raise"}
        As in :func:`kendall_tau_b`.

    Returns
    -------
    float

    Examples
    --------
    >>> kendall_tau_a([1, 2, 2, 3], [1, 3, 2, 2])
    0.3333333333333333
    >>> kendall_tau_a([1, 2, 3], [3, 2, 1])
    -1.0
    """
    c = _score_counts(x, y, nan_policy)
    if c is None or c["pairs"] == 0:
        return float("nan")
    return float((c["concordant"] - c["discordant"]) / c["pairs"])


def spearman_rho(sigma, nu, k=None, ties=None, numbering=None):
    """Spearman's rho (``spearman1904proof``) of the raw arrays: 1 - 6 sum_i d_i^2 / (n (n^2 - 1)).

    d_i = sigma(i) - nu(i); equals the Pearson correlation of the arrays since both are
    permutations (no ties). The sum of squares (at most n(n^2 - 1)/3) is an exact integer for
    every n: int64 up to n = 3 024 616, Python integers beyond. nan for n = 1.

    Examples
    --------
    >>> round(float(spearman_rho([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5])), 4)
    0.6571
    """
    return _compute("spearman_rho", sigma, nu, k, ties, numbering)


def ndpm(sigma, nu, k=None, ties=None, numbering=None):
    """Normalized distance-based performance measure (``yao1995ndpm``) on item positions.

    NDPM = (C- + C_u0 / 2) / C_u with item pairs compared by their positions in sigma and in nu;
    for two full rankings C_u0 = 0 and C_u = C(n, 2), so NDPM = (# discordant item pairs) /
    C(n, 2), as ``rexmex`` computes it. The discordant item pairs are the inversions of
    nu^-1 o sigma. Appendix C.2's printed sums, read literally over all ordered pairs (i, j)
    of positions, give C- = -C+ and C_u0 = C_u, hence NDPM = 1/2 - tau (tau of the raw
    arrays), which lies in [-1/2, 3/2] and changes twice as much as the printed Table 2 cells
    (e.g. 0.12 instead of 0.06 for a swap at n = 10). Under one slide
    (nu -> nu o FC_n) nu's top item x moves to the bottom and only the n - 1 pairs with x flip,
    so NDPM changes by exactly (n + 1 - 2p) / C(n, 2), p the position of x in sigma; over
    uniformly random pairs the mean absolute change is exactly 1/(n - 1) for even n and
    (n + 1)/n^2 for odd n (Table 2's 1.11 for n = 10 is then 0.11). nan for n = 1.

    Examples
    --------
    >>> round(float(ndpm([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5])), 4)
    0.2667
    """
    return _compute("ndpm", sigma, nu, k, ties, numbering)


def dcg(sigma, nu, k=None, ties=None, numbering=None):
    """Discounted cumulative gain (``jarvelin2002cumulated``) as paper A uses it.

    DCG(sigma, nu) = sum_i pi(i) / log2(i + 1) with pi = nu^-1 o sigma: the gain at position i
    of sigma is the position in nu of sigma's i-th item (``paperA`` Appendix C.3 sets
    rel_i = sigma(i) and applies DCG to a single permutation; pi is the permutation that takes
    sigma to nu). By the rearrangement inequality the identity pi = id, i.e. sigma = nu, is the
    unique minimiser for n <= 6 and a minimiser for all n, so *lower is closer*. Never nan.
    The closest reading to Table 2 found; several cells remain 10-25 % off.

    Examples
    --------
    >>> round(float(dcg([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5])), 4)
    10.2921
    """
    return _compute("dcg", sigma, nu, k, ties, numbering)


def ndcg(sigma, nu, k=None, ties=None, numbering=None):
    """Paper A's reading of nDCG between two permutations: not the IR measure.

    .. warning::
       This is the nDCG of paper A's Table 2, a distance-like value between two permutations
       where *lower is closer*: a ranking scores about 0.749 against itself at n = 4 (and less
       as n grows), never 1. To score a ranked list against relevance grades (1 for the ideal
       order), use :func:`rankbook.ir.ndcg`.

    DCG / IDCG with IDCG = sum_i (n + 1 - i) / log2(i + 1). IDCG is the largest DCG over S_n
    (gains sorted in decreasing order), so this nDCG is in (0, 1], a constant multiple of
    :func:`dcg` (the two are linearly equivalent, Def. 3).

    Examples
    --------
    >>> round(float(ndcg([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5])), 4)
    0.7581
    >>> round(float(ndcg([1, 2, 3, 4], [1, 2, 3, 4])), 3)  # a ranking against itself
    0.749
    >>> from rankbook import ir
    >>> float(ir.ndcg([3, 2, 1, 0]))  # the IR measure: the ideal order scores 1
    1.0
    """
    return _compute("ndcg", sigma, nu, k, ties, numbering)


def mrr(sigma, nu, k=None, ties=None, numbering=None):
    """Mean reciprocal rank: (1/k) sum over sigma's first k items x of 1 / (position of x in nu).

    As ``rexmex.metrics.ranking.mean_reciprocal_rank(sigma[:k], nu)``. Always defined.

    Examples
    --------
    >>> round(float(mrr([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2)), 4)
    0.4167
    """
    return _compute("mrr", sigma, nu, k, ties, numbering)


def gmr(sigma, nu, k=None, ties=None, numbering=None):
    """Geometric mean rank: geometric mean of the positions in nu of sigma's first k items.

    Examples
    --------
    >>> round(float(gmr([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2)), 4)
    2.4495
    """
    return _compute("gmr", sigma, nu, k, ties, numbering)


def mean_rank(sigma, nu, k=None, ties=None, numbering=None):
    """Mean rank: arithmetic mean of the positions in nu of sigma's first k items.

    Examples
    --------
    >>> float(mean_rank([1, 2, 3, 4, 5, 6], [3, 1, 2, 6, 4, 5], k=2))
    2.5
    """
    return _compute("mean_rank", sigma, nu, k, ties, numbering)


# --------------------------------------------------------------------------------------------
# registry
# --------------------------------------------------------------------------------------------

_FUNCS = {name: globals()[name] for name in NAMES if name != "for"}
_FUNCS["for"] = for_

_PARAMS_DOC = """
    Parameters
    ----------
    sigma : array_like of shape (n,) or (..., n), or label list(s)
        Reference ranking(s), one-line notation with values 1..n (``sigma[i - 1]`` is the item
        at position i), or labels best first (a string: one label per character).
    nu : array_like of shape (n,) or (..., n), or label list(s)
        Evaluated ranking(s) of the same items; batch axes broadcast against sigma's.
    k : int, optional
        {k}
    ties : {{None, "optimistic", "pessimistic", "expected"}}
        Rule for rankings with ties (a list holding sets, ``[1, {{2, 3}}, 4]``, or a
        :class:`rankbook.ties.WeakOrder`): the best, the worst or the exact mean value over the
        orders of the tied items (:mod:`rankbook.tied_metrics`). ``None`` refuses tied rankings.
    numbering : {{None, "given", "pair"}}
        {numbering}

    Returns
    -------
    float or ndarray of float64
        One value per pair (batch shape); nan when undefined: {undefined}.

    References
    ----------
    ``paperA`` ({defined_in}).{extra}

"""


def _complete_docstrings():
    """Add the shared Parameters / Returns / References sections before each Examples section."""
    extra_refs = {"kendall_tau": " ``kendall1938new``.", "spearman_rho": " ``spearman1904proof``.",
                  "ndpm": " ``yao1995ndpm``.", "dcg": " ``jarvelin2002cumulated``.",
                  "ndcg": " ``jarvelin2002cumulated``.", "mcc": " ``matthews1975comparison``.",
                  "mrr": " ``rozemberczki2022rexmex``.", "gmr": " ``rozemberczki2022rexmex``.",
                  "mean_rank": " ``rozemberczki2022rexmex``."}
    for name, spec in zip(NAMES, _SPECS):
        func = _FUNCS[name]
        k_doc = ("Number of relevant (= retrieved) items, 1 <= k <= n; required."
                 if spec[4] else "Ignored (accepted so that all 33 metrics share one call).")
        numbering_doc = (
            "Reading of the rankings (module docstring, *Reading a ranking*): ``None`` "
            "(default) reads permutation arrays as given and label lists numbered by sigma; "
            "``\"pair\"`` numbers permutation arrays by sigma too (the item-based value). "
            + ("This metric reads the item numbers, so the two readings differ."
               if name in NUMBERED else
               "This metric reads the rankings as orders of items: both readings give the "
               "same value."))
        section = _PARAMS_DOC.format(k=k_doc, undefined=spec[6], defined_in=spec[5],
                                     extra=extra_refs.get(name, ""), numbering=numbering_doc)
        doc = func.__doc__
        at = doc.index("\n    Examples\n")
        func.__doc__ = doc[:at].rstrip() + "\n" + section + doc[at + 1 :]

REGISTRY: Dict[str, Metric] = {}
for _name, _label, _fam, _hic, _nk, _def, _und, _extra in _SPECS:
    _reading = (_CM_READING + _extra) if _fam == "confusion" else _extra
    REGISTRY[_name] = Metric(_name, _label, _fam, _hic, _nk, _def, _FUNCS[_name], _und, _reading)
del _name, _label, _fam, _hic, _nk, _def, _und, _extra, _reading
assert tuple(REGISTRY) == NAMES
_complete_docstrings()


# --------------------------------------------------------------------------------------------
# evaluation entry points
# --------------------------------------------------------------------------------------------


def _check_names(names) -> list:
    if isinstance(names, str):
        names = [names]
    names = list(names)
    for name in names:
        if name not in REGISTRY:
            raise _unknown(name)
    return names


def evaluate(name: str, sigma, nu, k: Optional[int] = None, ties: Optional[str] = None,
             numbering: Optional[str] = None):
    """Evaluate one metric by name.

    The metric comes first, then the two rankings, as in ``scipy.stats`` functions and
    :func:`evaluate_many` (``names, sigma, nu``). :func:`rankbook.ir.evaluate` takes the data
    first (``batch, measures``) because it follows ranx's and ir_measures' ``evaluate(run,
    metrics)``, the libraries its users come from.

    Parameters
    ----------
    name : str
        One of :data:`NAMES`.
    sigma, nu : array_like of shape (n,) or (..., n)
        Rankings (batch axes broadcast).
    k : int, optional
        Cut-off, required by the metrics with ``REGISTRY[name].needs_k``; ignored otherwise.
    ties : {None, "optimistic", "pessimistic", "expected"}
        For rankings with ties (weak orders, see *Ties* in the module docstring); ``None``
        refuses them.
    numbering : {None, "given", "pair"}
        How the items are numbered before the metric reads the numbers (see *Reading a ranking*
        in the module docstring): ``None`` (default) reads permutation arrays as given and
        label lists numbered by sigma; ``"pair"`` numbers permutation arrays by sigma too.

    Returns
    -------
    float or ndarray of float64
        One value per pair (the batch shape); nan where the metric is undefined.

    Examples
    --------
    >>> float(evaluate("precision", [1, 2, 3, 4], [2, 1, 4, 3], k=2))
    1.0
    >>> round(float(evaluate("kendall_tau", [1, 2, 4, 3], [1, 3, 4, 2])), 4)  # as given
    0.6667
    >>> float(evaluate("kendall_tau", [1, 2, 4, 3], [1, 3, 4, 2], numbering="pair"))  # item-based
    0.0
    >>> round(float(evaluate("kendall_tau", "fbcead", "febacd")), 3)  # labels: numbered by sigma
    0.6
    >>> evaluate("hamming", [1, 2], [2, 1])
    Traceback (most recent call last):
    ...
    ValueError: unknown metric 'hamming'; valid names: recall, fnr, fallout, tnr, precision, fdr, npv, for, accuracy, balanced_accuracy, f1, fowlkes_mallows, mcc, jaccard, markedness, lr_minus, informedness, prevalence_threshold, lr_plus, mse, rmse, mae, mape, smape, r2, kendall_tau, spearman_rho, ndpm, dcg, ndcg, mrr, gmr, mean_rank
    """
    if not isinstance(name, str) or name not in REGISTRY:
        raise _unknown(name)
    return _compute(name, sigma, nu, k, ties, numbering)


def evaluate_many(names: Iterable[str], sigma, nu, k: Optional[int] = None,
                  ties: Optional[str] = None, numbering: Optional[str] = None
                  ) -> Dict[str, np.ndarray]:
    """Evaluate several metrics on the same rankings, sharing the work between them.

    Validation, inverse permutations, confusion counts, squared differences and the two
    inversion counts are computed once per block of rows; the batch is processed in blocks of
    about 65 536 entries (``65536 // n`` rows, at least one; validation and inverses included)
    so the memory used beyond the inputs and outputs stays bounded (a few MB, or a few arrays
    of one row when n is larger) whatever the batch size and n.
    This is the entry point for batches.

    Parameters
    ----------
    names : iterable of str
        Metric names (e.g. :data:`NAMES`).
    sigma, nu : array_like of shape (n,) or (..., n)
    k : int, optional
        Required if any of the metrics needs it.
    ties : {None, "optimistic", "pessimistic", "expected"}
        For rankings with ties, as in :func:`evaluate`. Rows without a tie take the path above;
        the others are computed by :mod:`rankbook.tied_metrics`.
    numbering : {None, "given", "pair"}
        As in :func:`evaluate`.

    Returns
    -------
    dict
        ``{name: value}``, each value a float or an array of the batch shape.

    Examples
    --------
    >>> out = evaluate_many(["mse", "rmse", "recall"], [1, 2, 3, 4], [2, 1, 3, 4], k=2)
    >>> {name: round(float(v), 4) for name, v in out.items()}
    {'mse': 0.5, 'rmse': 0.7071, 'recall': 1.0}
    >>> out = evaluate_many(["mse", "recall"], [1, 2, 3, 4], [{1, 2}, 3, 4], k=1, ties="expected")
    >>> {name: round(float(v), 4) for name, v in out.items()}
    {'mse': 0.25, 'recall': 0.5}
    """
    return _evaluate_ties(_check_names(names), sigma, nu, k, ties, numbering)
