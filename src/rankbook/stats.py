"""Uncertainty and comparison: bootstrap intervals, paired tests, corrections, system reports.

How sure is a number? :func:`bootstrap_ci` gives a bootstrap confidence interval of any
per-query statistic (percentile or BCa, the same resamples as :func:`scipy.stats.bootstrap`
for the same seed), and :func:`wilson_interval` the Wilson interval of a binomial proportion
(a pass rate, an agreement ratio). Is system A better than system B over the same queries?
:func:`paired_test` runs a randomisation (sign-flip) test, exact by enumeration when the
number of queries allows, a paired t-test or a Wilcoxon signed-rank test, with the effect size
and the interval of the mean difference. :func:`correct` adjusts a family of p-values (Holm,
Bonferroni, Benjamini-Hochberg, Benjamini-Yekutieli, as
``statsmodels.stats.multitest.multipletests``), and :func:`compare` puts it all in one table
of systems by measures that prints like ranx's report and renders as LaTeX.

Resampling in one place
-----------------------
Bootstrap resamples are drawn exactly as :func:`scipy.stats.bootstrap` draws them:
``numpy.random.default_rng(seed).integers(0, q, size=(n_resamples, q))``, one row of query
indices per resample, drawn in order (drawing them in consecutive blocks gives the same
stream). The statistic of a 2-D input ``(systems, queries)`` uses the same index rows for
every system, as scipy does along ``axis=-1``, so the intervals of the systems and of their
differences come from one set of resamples. For the mean, a block of resamples is turned into
a matrix of counts and multiplied with the scores (one matrix product instead of
``n_resamples x q x systems`` look-ups); the results equal scipy's up to floating-point
rounding.

Sign flips for the randomisation test come from a second stream,
``numpy.random.default_rng(numpy.random.SeedSequence(seed).spawn(1)[0])``, so they are
independent of the bootstrap draws while the bootstrap still reproduces scipy's. Every
function takes ``seed`` (default 0), so the same call gives the same numbers.

Undefined values
----------------
Scores must be finite: a ``nan`` per-query score raises ``ValueError`` (a query that a system
does not answer needs a decision, see ``missing`` in :func:`compare`). Where the bootstrap
distribution is degenerate (every resample gives the same value), BCa's acceleration is 0/0;
scipy returns ``nan`` with a warning, :func:`bootstrap_ci` returns the percentile interval
there, which is the single value.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Callable, NamedTuple, Optional, Sequence

import numpy as np
import pandas as pd
from scipy import special as _special

from ._validation import check_choice, check_int, check_number, check_seed


class _LazyScipyStats:
    """``scipy.stats``, imported on first use: its import takes about 0.4 s of CPU, which
    ``rankbook reproduce`` and most library calls never need."""

    def __getattr__(self, name):
        from scipy import stats

        return getattr(stats, name)


_sps = _LazyScipyStats()

__all__ = [
    "CI_METHODS",
    "TESTS",
    "CORRECTIONS",
    "FAMILY_TESTS",
    "COMPARE_CORRECTIONS",
    "ALTERNATIVES",
    "BootstrapCI",
    "bootstrap_ci",
    "RANK_CORRELATIONS",
    "rank_correlation_ci",
    "PermutationResult",
    "weightedtau_test",
    "wilson_interval",
    "cohens_dz",
    "PairedTest",
    "randomization_test",
    "paired_test",
    "correct",
    "format_p",
    "Comparison",
    "compare",
    "simulate_benchmark",
    "decision_rates",
    "expected_scores",
    "TUKEY_DESIGNS",
    "TukeyHSD",
    "tukey_hsd",
    "randomized_tukey_hsd",
    "SIZE_METHODS",
    "paired_t_power",
    "topic_set_size",
    "anova_power",
    "topic_set_size_anova",
]

#: Bootstrap interval methods of :func:`bootstrap_ci` (``"bca"``: bias-corrected and
#: accelerated, Efron and Tibshirani 1993, Ch. 14; ``"percentile"``: the plain quantiles).
CI_METHODS = ("bca", "percentile")
#: Paired tests of :func:`paired_test` and :func:`compare`.
TESTS = ("randomization", "t", "wilcoxon")
#: Multiple-comparison corrections of :func:`correct` (``"none"`` leaves p-values as they are).
CORRECTIONS = ("holm", "bonferroni", "bh", "by", "none")
#: Alternative hypotheses about the mean difference ``x - y``.
ALTERNATIVES = ("two-sided", "greater", "less")
#: Tests of a whole family of systems that :func:`compare` takes as its ``correction``:
#: Tukey's HSD (:func:`tukey_hsd`, two-way) and the randomised Tukey HSD
#: (:func:`randomized_tukey_hsd`).
FAMILY_TESTS = ("tukey", "randomized-tukey")
#: What :func:`compare` takes as ``correction``.
COMPARE_CORRECTIONS = CORRECTIONS + FAMILY_TESTS
#: How each correction is named in reports.
CORRECTION_NAMES = {"none": "uncorrected", "holm": "Holm-corrected",
                    "bonferroni": "Bonferroni-corrected", "bh": "Benjamini-Hochberg-corrected",
                    "by": "Benjamini-Yekutieli-corrected", "tukey": "Tukey-HSD-adjusted",
                    "randomized-tukey": "randomised-Tukey-HSD-adjusted"}

_STATSMODELS_NAMES = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh", "by": "fdr_by"}
_TEST_ALIASES = {"randomization": "randomization", "randomisation": "randomization",
                 "permutation": "randomization", "t": "t", "ttest": "t", "t-test": "t",
                 "wilcoxon": "wilcoxon"}
#: The tests and their other spellings, as messages and help texts name them.
TESTS_TEXT = (", ".join(TESTS) + " (also spelled "
              + ", ".join(a for a, t in _TEST_ALIASES.items() if a != t) + ")")
_BLOCK_CELLS = 1 << 22  # cells of one block of resamples (about 32 MB of float64)
_SUPERSCRIPTS = dict(zip("abcdefghijklmnoprstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ"))


# ----------------------------------------------------------------------------------------------
# validation


def _check_test(test) -> str:
    """The test's name, its other spellings (``ttest``, ``permutation``, ...) mapped to it."""
    name = _TEST_ALIASES.get(test, test) if isinstance(test, str) else test
    if name not in TESTS:
        raise ValueError(f"test must be one of {TESTS_TEXT}; got {test!r}")
    return name


def _check_confidence(confidence) -> float:
    try:
        c = float(confidence)
    except (TypeError, ValueError):
        raise ValueError(f"confidence must be a number in (0, 1), got {confidence!r}") from None
    if not 0 < c < 1:
        raise ValueError(f"confidence must be in (0, 1), e.g. 0.95; got {confidence!r}")
    return c


#: The fewest resamples of a Monte Carlo test: its p-value is at least 1/(n_resamples + 1), so
#: with fewer than 19 it could never fall below 0.05.
MIN_TEST_RESAMPLES = 19


def min_resamples(confidence: float | None = None, test: bool = False) -> int:
    """The fewest resamples rankbook accepts: a bootstrap interval at ``confidence`` needs one
    resample in each tail, ``ceil(2 / (1 - confidence))`` (40 at 95%); a Monte Carlo test
    (``test``) needs :data:`MIN_TEST_RESAMPLES`.

    Parameters
    ----------
    confidence : float, optional
        The level of a bootstrap interval, 0 < confidence < 1.
    test : bool
        A Monte Carlo test will use the resamples.

    Returns
    -------
    int

    Examples
    --------
    >>> min_resamples(0.95), min_resamples(0.99), min_resamples(test=True)
    (40, 200, 19)
    """
    need = 1
    if confidence is not None:
        need = max(need, math.ceil(round(2 / (1 - float(confidence)), 9)))
    if test:
        need = max(need, MIN_TEST_RESAMPLES)
    return need


def _check_resamples(n_resamples, confidence: float | None = None, test: bool = False,
                     name: str = "n_resamples") -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) \
            or n_resamples < 1:
        raise ValueError(f"{name} must be a positive integer, got {n_resamples!r}")
    need = min_resamples(confidence, test)
    if n_resamples < need:
        why = []
        if confidence is not None and need > 1:
            why.append(f"a {confidence:.10g} interval needs a resample in each tail")
        if test:
            why.append(f"a test's p-value is at least 1/({name} + 1)")
        raise ValueError(f"{name}={int(n_resamples)} is too few: {'; '.join(why)}; use at least "
                         f"{need}")
    return int(n_resamples)


def _check_seed(seed):
    return check_seed(seed)


def _scores(values, name="values", min_len=2) -> np.ndarray:
    try:
        x = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers") from None
    if x.ndim == 0:
        raise ValueError(f"{name} must have at least one axis (the queries), got a scalar")
    if x.shape[-1] < min_len:
        raise ValueError(f"{name} needs at least {min_len} values along its last axis (the "
                         f"queries), got {x.shape[-1]}")
    if not np.isfinite(x).all():
        bad = np.argwhere(~np.isfinite(x))[0]
        raise ValueError(f"{name} holds a non-finite value at index {tuple(int(i) for i in bad)}: "
                         "every per-query score must be a finite number")
    return x


def _bootstrap_rng(seed):
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _sign_rng(seed):
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])


def _is_mean(statistic) -> bool:
    return statistic is np.mean or statistic is np.average or statistic == "mean"


# ----------------------------------------------------------------------------------------------
# bootstrap


class BootstrapCI(NamedTuple):
    """A bootstrap interval: ``estimate``, ``low``, ``high`` (arrays for a batch of rows),
    ``standard_error`` (standard deviation of the bootstrap distribution, ``ddof=1``),
    ``n_resamples``, ``method`` (what was computed: ``"bca"`` only when every row is BCa),
    ``confidence`` and ``fallback`` (why rows got the percentile interval, or "")."""

    estimate: np.ndarray | float
    low: np.ndarray | float
    high: np.ndarray | float
    standard_error: np.ndarray | float
    n_resamples: int
    method: str
    confidence: float
    fallback: str = ""


#: Resample means closer than this (relative) to the estimate are recomputed the way scipy
#: computes them (``np.mean`` of the resampled values, in resample order): the count-matrix
#: product rounds differently, and BCa's bias correction counts the resamples below the
#: estimate, so a difference in the last bit there moves the interval (up to 0.025 on 8 values).
_TIE_RTOL = 1e-9


def _resample_means(X: np.ndarray, n_resamples: int, rng,
                    theta_hat: np.ndarray | None = None) -> np.ndarray:
    """Bootstrap means of each row of X (rows, q): an array (rows, n_resamples).

    Index rows are drawn as scipy draws them; each block becomes a count matrix (resamples x
    q) multiplied with X.T. With ``theta_hat``, the means within :data:`_TIE_RTOL` of it are
    recomputed exactly as ``np.mean(X[row, idx], axis=-1)`` (scipy's arithmetic).
    """
    return _resample_means_many([X], n_resamples, rng, [theta_hat])[0]


def _resample_means_many(Xs, n_resamples: int, rng, theta_hats) -> list:
    """:func:`_resample_means` of several matrices of the same q on one set of draws: each
    result equals a call of its own with a generator in the same state (the same index
    blocks, the same product per matrix)."""
    q = Xs[0].shape[1]
    outs = [np.empty((X.shape[0], n_resamples)) for X in Xs]
    block = max(1, _BLOCK_CELLS // q)
    offsets = None
    for start in range(0, n_resamples, block):
        b = min(block, n_resamples - start)
        idx = rng.integers(0, q, size=(b, q))
        if offsets is None or offsets.shape[0] != b:
            offsets = (np.arange(b, dtype=np.int64) * q)[:, None]
        counts = np.bincount((idx + offsets).ravel(), minlength=b * q).reshape(b, q)
        for X, theta_hat, out in zip(Xs, theta_hats, outs):
            means = (X @ counts.T.astype(np.float64)) / q
            if theta_hat is not None:
                tol = _TIE_RTOL * np.maximum(1.0, np.abs(theta_hat))[:, None]
                near = np.abs(means - theta_hat[:, None]) <= tol
                cols = np.flatnonzero(near.any(axis=0))
                if cols.size:  # scipy's arithmetic: the mean of the resampled array
                    exact = np.mean(X[:, idx[cols]], axis=-1)
                    means[:, cols] = np.where(near[:, cols], exact, means[:, cols])
            out[:, start:start + b] = means
    return outs


def _resample_stat(X: np.ndarray, statistic: Callable, n_resamples: int, rng) -> np.ndarray:
    rows, q = X.shape
    out = np.empty((rows, n_resamples))
    block = max(1, _BLOCK_CELLS // (q * rows))
    for start in range(0, n_resamples, block):
        b = min(block, n_resamples - start)
        idx = rng.integers(0, q, size=(b, q))
        out[:, start:start + b] = np.asarray(statistic(X[:, idx], axis=-1), dtype=np.float64)
    return out


#: Above this many cells (rows x q x q), BCa's acceleration of the mean uses its closed form
#: instead of scipy's leave-one-out means (same value up to rounding).
_EXACT_JACKKNIFE_CELLS = 5 * 10**8


def _jackknife(X: np.ndarray, statistic: Callable, exact: bool = False) -> np.ndarray:
    """Leave-one-out values of the statistic per row: (rows, q). ``exact`` computes the mean
    as scipy does (the statistic of each leave-one-out sample), not from the sum."""
    rows, q = X.shape
    if _is_mean(statistic) and not exact:
        return (X.sum(axis=1, keepdims=True) - X) / (q - 1)
    out = np.empty((rows, q))
    block = max(1, _BLOCK_CELLS // (q * rows))
    base = np.arange(q)
    for start in range(0, q, block):
        stop = min(q, start + block)
        keep = np.ones((stop - start, q), dtype=bool)
        keep[np.arange(stop - start), np.arange(start, stop)] = False
        idx = np.broadcast_to(base, keep.shape)[keep].reshape(stop - start, q - 1)
        out[:, start:stop] = np.asarray(statistic(X[:, idx], axis=-1), dtype=np.float64)
    return out


def _quantile_rows(sorted_b: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Linear-interpolation quantiles (numpy's default) of each sorted row at its own probs."""
    B = sorted_b.shape[-1]
    h = np.clip(probs, 0.0, 1.0) * (B - 1)
    lo = np.floor(h).astype(np.int64)
    hi = np.minimum(lo + 1, B - 1)
    frac = h - lo
    a = np.take_along_axis(sorted_b, lo, axis=-1)
    b = np.take_along_axis(sorted_b, hi, axis=-1)
    return a + (b - a) * frac


def _accel_from_jackknife(jack: np.ndarray) -> np.ndarray:
    """BCa acceleration per row from leave-one-out values: sum U^3 / (6 (sum U^2)^1.5)."""
    U = jack.mean(axis=1, keepdims=True) - jack  # the factor (n - 1) cancels in the ratio
    U2 = U * U
    with np.errstate(invalid="ignore", divide="ignore"):
        return (U2 * U).sum(axis=1) / (6.0 * U2.sum(axis=1) ** 1.5)


def _accel_of_mean(X: np.ndarray) -> np.ndarray:
    """The acceleration of the mean: its jackknife values are (sum - x_i) / (n - 1), so U_i is
    proportional to x_i - mean and a = sum (x - mean)^3 / (6 (sum (x - mean)^2)^1.5)."""
    C = X - X.mean(axis=1, keepdims=True)
    C2 = C * C
    with np.errstate(invalid="ignore", divide="ignore"):
        return (C2 * C).sum(axis=1) / (6.0 * C2.sum(axis=1) ** 1.5)


def _accel_mean(X: np.ndarray) -> np.ndarray:
    """BCa acceleration of the mean of each row as :func:`bootstrap_ci` computes it: scipy's
    leave-one-out means, or the closed form above :data:`_EXACT_JACKKNIFE_CELLS`."""
    if X.shape[0] * X.shape[1] ** 2 > _EXACT_JACKKNIFE_CELLS:
        return _accel_of_mean(X)
    return _accel_from_jackknife(_jackknife(X, np.mean, exact=True))


def _exact_near_ties(theta_b: np.ndarray, theta_hat: np.ndarray, rows, q: int, rng) -> None:
    """Recompute in place, in scipy's arithmetic, the bootstrap means of ``theta_b`` (rows,
    resamples) that lie within :data:`_TIE_RTOL` of ``theta_hat``: ``rows(ks)`` gives the data
    rows ``ks`` (len(ks), q) whose resample means ``theta_b`` holds, drawn as
    :func:`_resample_means` draws them from ``rng`` (a generator in the state it had before
    those draws: the index blocks are drawn again).
    Used where ``theta_b`` was not computed from the rows themselves (a difference of two
    systems' resample means), so that BCa counts the resamples tied with the estimate as
    ``scipy.stats.bootstrap`` of those rows does."""
    tol = _TIE_RTOL * np.maximum(1.0, np.abs(theta_hat))[:, None]
    near = np.abs(theta_b - theta_hat[:, None]) <= tol
    if not near.any():
        return
    n_resamples = theta_b.shape[1]
    block = max(1, _BLOCK_CELLS // q)
    for start in range(0, n_resamples, block):
        b = min(block, n_resamples - start)
        idx = rng.integers(0, q, size=(b, q))
        sub = near[:, start:start + b]
        ks = np.flatnonzero(sub.any(axis=1))
        if not ks.size:
            continue
        X = rows(ks)
        for j, k in enumerate(ks):
            cols = np.flatnonzero(sub[k])
            theta_b[k, start + cols] = np.mean(X[j][idx[cols]], axis=-1)


def _interval_from_distribution(theta_hat, theta_b, a_hat, confidence, method):
    """Percentile or BCa endpoints, row by row (scipy's formulas, Efron & Tibshirani 14.3)."""
    alpha = (1 - confidence) / 2
    rows, B = theta_b.shape
    sorted_b = np.sort(theta_b, axis=-1)
    probs = np.broadcast_to(np.array([alpha, 1 - alpha]), (rows, 2)).copy()
    if method == "bca":
        th = theta_hat[:, None]
        share = (np.count_nonzero(theta_b < th, axis=-1)
                 + np.count_nonzero(theta_b <= th, axis=-1)) / (2 * B)
        z0 = _special.ndtri(share)
        with np.errstate(invalid="ignore", divide="ignore"):
            z_lo, z_hi = _special.ndtri(alpha), _special.ndtri(1 - alpha)
            p_lo = _special.ndtr(z0 + (z0 + z_lo) / (1 - a_hat * (z0 + z_lo)))
            p_hi = _special.ndtr(z0 + (z0 + z_hi) / (1 - a_hat * (z0 + z_hi)))
        bca = np.stack([p_lo, p_hi], axis=-1)
        ok = np.isfinite(bca).all(axis=-1)  # degenerate rows keep the percentile levels
        probs[ok] = bca[ok]
    else:
        ok = np.ones(rows, dtype=bool)
    ends = _quantile_rows(sorted_b, probs)
    return ends[:, 0], ends[:, 1], ok


def bootstrap_ci(values, statistic: Callable = np.mean, confidence: float = 0.95,
                 method: str = "bca", n_resamples: int = 9999, seed=0) -> BootstrapCI:
    """Bootstrap confidence interval of a statistic of per-query values.

    The queries (last axis) are resampled with replacement ``n_resamples`` times and the
    statistic recomputed on each resample. ``"percentile"`` takes the
    :math:`\\alpha/2` and :math:`1-\\alpha/2` quantiles of the bootstrap distribution
    (:math:`\\alpha = 1 -` ``confidence``). ``"bca"`` (default) moves those levels to

    .. math::

        \\alpha_{1,2} = \\Phi\\left(\\hat z_0 + \\frac{\\hat z_0 + z_{\\alpha/2,\\,1-\\alpha/2}}
                        {1 - \\hat a (\\hat z_0 + z_{\\alpha/2,\\,1-\\alpha/2})}\\right),

    with the bias correction :math:`\\hat z_0 = \\Phi^{-1}(\\#\\{\\theta^*_b < \\hat\\theta\\}/B)`
    (ties count half) and the acceleration
    :math:`\\hat a = \\sum_i U_i^3 / (6 (\\sum_i U_i^2)^{3/2})` from the jackknife values
    :math:`U_i = \\bar\\theta_{(\\cdot)} - \\hat\\theta_{(i)}` (Efron and Tibshirani
    :cite:`efron1993bootstrap`, Ch. 14). The same seed gives the same resamples, and so the
    same interval, as ``scipy.stats.bootstrap((values,), statistic, n_resamples=n_resamples,
    rng=seed, method=method, confidence_level=confidence)`` (along ``axis=-1``), to 1e-12:
    the fast path of the mean recomputes, in scipy's arithmetic, the resample means that lie
    within 1e-9 of the estimate (BCa's bias correction counts them), and the acceleration uses
    scipy's leave-one-out means. One documented exception: above 5e8 cells (rows x q x q) the
    acceleration of the mean uses its closed form, equal up to rounding (about 1e-15), which
    can move a BCa endpoint to the neighbouring resample value in rare cases.

    Parameters
    ----------
    values : array_like of shape (..., q)
        Per-query values; leading axes are a batch (e.g. systems), each row its own interval,
        all rows resampled with the same query indices.
    statistic : callable
        ``statistic(x, axis=-1)``, vectorised like numpy reductions. ``np.mean`` (default)
        takes a fast path (count matrices times scores).
    confidence : float
        Two-sided confidence level in (0, 1).
    method : {"bca", "percentile"}
    n_resamples : int
        Number of bootstrap resamples (scipy's default 9999).
    seed : int, numpy.random.Generator or None
        Seed of the resamples (default 0: deterministic).

    Returns
    -------
    BootstrapCI
        Floats for a 1-D input, arrays of the batch shape otherwise. Where BCa is undefined
        (a degenerate bootstrap distribution: all-equal values, a median of binary data),
        those rows get the percentile interval (scipy returns ``nan``), ``method`` says
        ``"percentile"`` (``"bca"`` only when every row is BCa) and ``fallback`` gives the
        reason and the rows.

    Examples
    --------
    >>> x = np.array([0.2, 0.5, 0.9, 0.4, 0.7, 0.1, 0.6, 0.8])
    >>> ci = bootstrap_ci(x, n_resamples=2000, seed=1)
    >>> round(ci.estimate, 4), round(ci.low, 4), round(ci.high, 4)
    (0.525, 0.325, 0.6875)
    >>> from scipy import stats
    >>> ref = stats.bootstrap((x,), np.mean, n_resamples=2000, rng=1).confidence_interval
    >>> bool(np.isclose(ci.low, ref.low) and np.isclose(ci.high, ref.high))
    True
    """
    check_choice(method, CI_METHODS, "method")
    confidence = _check_confidence(confidence)
    n_resamples = _check_resamples(n_resamples, confidence)
    seed = _check_seed(seed)
    if not callable(statistic) and statistic != "mean":
        raise ValueError(f"statistic must be a callable statistic(x, axis=-1) or 'mean', got "
                         f"{statistic!r}")
    x = _scores(values)
    shape = x.shape[:-1]
    X = x.reshape(-1, x.shape[-1])
    stat = np.mean if _is_mean(statistic) else statistic
    theta_hat = np.asarray(stat(X, axis=-1), dtype=np.float64).reshape(-1)
    rng = _bootstrap_rng(seed)
    if _is_mean(statistic):
        theta_b = _resample_means(X, n_resamples, rng, theta_hat if method == "bca" else None)
    else:
        theta_b = _resample_stat(X, stat, n_resamples, rng)
    a_hat = None
    if method == "bca":
        if _is_mean(statistic) and X.shape[0] * X.shape[1] ** 2 > _EXACT_JACKKNIFE_CELLS:
            a_hat = _accel_of_mean(X)  # closed form: rounding differs from scipy's jackknife
        else:  # scipy's arithmetic: the statistic of every leave-one-out sample
            a_hat = _accel_from_jackknife(_jackknife(X, stat, exact=True))
    return _finish_ci(theta_hat, theta_b, a_hat, shape, confidence, method, n_resamples)


def _finish_ci(theta_hat, theta_b, a_hat, shape, confidence, method, n_resamples) -> BootstrapCI:
    """The interval of :func:`bootstrap_ci` from the estimates (rows,), the bootstrap
    distribution (rows, n_resamples) and the acceleration (rows,; BCa)."""
    low, high, bca_ok = _interval_from_distribution(theta_hat, theta_b, a_hat, confidence, method)
    fallback = ""
    if method == "bca" and not bca_ok.all():
        bad = np.flatnonzero(~bca_ok)
        which = "every row" if len(bad) == len(bca_ok) else (
            f"{len(bad)} of {len(bca_ok)} rows (first: {np.unravel_index(bad[0], shape) if shape else 0})")
        fallback = (f"BCa is undefined for {which}: the bootstrap distribution is degenerate (every "
                    "resample on one side of the estimate, or no spread), so the percentile "
                    "interval is given there")
        method = "percentile" if len(bad) == len(bca_ok) else "bca, percentile where undefined"
    se = theta_b.std(axis=-1, ddof=1) if n_resamples > 1 else np.full(len(theta_hat), np.nan)

    def out(a):
        a = np.asarray(a).reshape(shape)
        return float(a) if a.ndim == 0 else a

    return BootstrapCI(out(theta_hat), out(low), out(high), out(se), n_resamples, method,
                       confidence, fallback)


def _bootstrap_ci_of_mean_series(series, confidence: float = 0.95, method: str = "bca",
                                 n_resamples: int = 9999, seed=0) -> list:
    """``[bootstrap_ci(x, np.mean, ...) for x in series]``, each equal to its own call, with
    the index draws shared by series of one length when ``seed`` is a number or a
    SeedSequence (the same seed draws the same indices for every call); with a Generator or
    ``None`` each series draws its own, as separate calls would."""
    check_choice(method, CI_METHODS, "method")
    confidence = _check_confidence(confidence)
    n_resamples = _check_resamples(n_resamples, confidence)
    seed = _check_seed(seed)
    Xs = [_scores(x).reshape(1, -1) for x in series]
    if any(np.ndim(x) != 1 for x in series):
        raise ValueError("each series must be one-dimensional")
    thetas = [np.mean(X, axis=-1).reshape(-1) for X in Xs]
    share = seed is not None and not isinstance(seed, np.random.Generator)
    groups = ([[i for i in range(len(Xs)) if Xs[i].shape[1] == n]
               for n in dict.fromkeys(X.shape[1] for X in Xs)] if share
              else [[i] for i in range(len(Xs))])
    theta_b = [None] * len(Xs)
    for g in groups:
        got = _resample_means_many([Xs[i] for i in g], n_resamples, _bootstrap_rng(seed),
                                   [thetas[i] if method == "bca" else None for i in g])
        for i, tb in zip(g, got):
            theta_b[i] = tb
    out = []
    for X, th, tb in zip(Xs, thetas, theta_b):
        a_hat = None
        if method == "bca":
            if X.shape[0] * X.shape[1] ** 2 > _EXACT_JACKKNIFE_CELLS:
                a_hat = _accel_of_mean(X)
            else:
                a_hat = _accel_from_jackknife(_jackknife(X, np.mean, exact=True))
        out.append(_finish_ci(th, tb, a_hat, (), confidence, method, n_resamples))
    return out


def _bootstrap_ci_of_means(q: int, cases, confidence: float = 0.95, method: str = "bca",
                           n_resamples: int = 9999, seed=0) -> list:
    """Bootstrap intervals of statistics of topic means, for several batches on one set of
    resamples of the ``q`` topics.

    ``cases`` is a list of ``(data, fn)``: ``data`` of shape (k, rows, q) holds k cases of
    ``rows`` per-topic series each, and ``fn`` maps the row means (k, rows), or (k, rows, b) for
    b resamples, to the statistic (k,) or (k, b). Each case's :class:`BootstrapCI` (arrays of
    shape (k,)) equals ``bootstrap_ci(np.broadcast_to(np.arange(q.), (k, q)), statistic, ...)``
    with a statistic that looks the series up by the resampled topic indices: the same index
    draws (the generator's stream does not depend on how it is cut into blocks), the means of a
    resample taken as ``data @ (counts.T / n)`` with ``counts`` the frequency of each topic in
    it, the same leave-one-out samples for BCa. The indices are drawn and counted once for all
    cases of one block size (:func:`rankbook.repro.reproduce` resamples every measure this
    way); no array of resampled values is built, only the counts.
    """
    check_choice(method, CI_METHODS, "method")
    confidence = _check_confidence(confidence)
    n_resamples = _check_resamples(n_resamples, confidence)
    seed = _check_seed(seed)
    cases = [(np.asarray(d, dtype=np.float64), fn) for d, fn in cases]
    # the estimate from the series looked up by the topic indices 0..q-1 (the copy that lookup
    # makes is laid out so that its mean rounds as the lookup's does)
    everyone = np.arange(q)
    thetas = [np.asarray(fn(d[..., everyone].mean(axis=-1)), dtype=np.float64).reshape(-1)
              for d, fn in cases]
    out = [np.empty((len(t), n_resamples)) for t in thetas]
    jack = [np.empty((len(t), q)) for t in thetas]
    # bootstrap_ci cuts the resamples into blocks of _BLOCK_CELLS // (q * rows) and the
    # matrix product rounds a column by where it falls in its block: cases of one block size
    # share the draws, each block size gets its own (same seed: the same draws, as the stream
    # does not depend on the cut); a Generator as seed is drawn from case after case, as
    # successive calls of bootstrap_ci would draw from it
    blocks = [max(1, _BLOCK_CELLS // (q * max(1, len(t)))) for t in thetas]
    if isinstance(seed, np.random.Generator):
        groups = [[i] for i in range(len(cases))]
    else:
        groups = [[i for i in range(len(cases)) if blocks[i] == blk]
                  for blk in dict.fromkeys(blocks)]
    for group in groups:
        block = blocks[group[0]]
        rng = _bootstrap_rng(seed)
        for start in range(0, n_resamples, block):
            b = min(block, n_resamples - start)
            idx = rng.integers(0, q, size=(b, q))
            counts = np.bincount((idx + (np.arange(b, dtype=np.int64) * q)[:, None]).ravel(),
                                 minlength=b * q).reshape(b, q)
            w = counts.T / q
            for i in group:
                d, fn = cases[i]
                out[i][:, start:start + b] = fn(d @ w)
        if method != "bca":
            continue
        base = np.arange(q)  # leave-one-out samples, as _jackknife builds them
        for start in range(0, q, block):
            stop = min(q, start + block)
            keep = np.ones((stop - start, q), dtype=bool)
            keep[np.arange(stop - start), np.arange(start, stop)] = False
            idx = np.broadcast_to(base, keep.shape)[keep].reshape(stop - start, q - 1)
            b = stop - start
            counts = np.bincount((idx + (np.arange(b, dtype=np.int64) * q)[:, None]).ravel(),
                                 minlength=b * q).reshape(b, q)
            w = counts.T / (q - 1)
            for i in group:
                d, fn = cases[i]
                jack[i][:, start:stop] = fn(d @ w)
    a_hats = ([_accel_from_jackknife(j) for j in jack] if method == "bca"
              else [None] * len(cases))
    if method == "bca":  # exact ties: BCa counts them half below the estimate
        for t, o in zip(thetas, out):
            _snap_ties(o, t)
    return [_finish_ci(t, o, a, (len(t),), confidence, method, n_resamples)
            for t, o, a in zip(thetas, out, a_hats)]


def _snap_ties(theta_b: np.ndarray, theta_hat: np.ndarray) -> None:
    """Set to the estimate, in place, the resample values within :data:`_TIE_RTOL` of it.

    A statistic of topic means taken through the count matrix (a ratio of differences of
    means, a root of a mean) rounds differently from the same statistic written over the
    resampled arrays, and differently again for another way of writing it: a resample that
    equals the estimate exactly (common with few topics) lands on either side of it by one
    bit, and BCa's bias correction counts it fully below or above instead of half. On the
    six-topic example of ``rankbook reproduce``, 166 of 9,999 resamples tie the ER estimate
    exactly; ``mean(ra - rb) / mean(oa - ob)`` in floating point keeps all 166,
    ``(mean(ra) - mean(rb)) / (mean(oa) - mean(ob))`` 121 and the count matrix none, and the
    BCa intervals differ by up to 0.02. Snapping gives the exact-arithmetic count whatever
    the rounding (the interval of ``scipy.stats.bootstrap`` with a statistic that snaps the
    same way, checked in the tests)."""
    with np.errstate(invalid="ignore"):
        tol = _TIE_RTOL * np.maximum(1.0, np.abs(theta_hat))[:, None]
        near = np.abs(theta_b - theta_hat[:, None]) <= tol
    np.copyto(theta_b, np.broadcast_to(theta_hat[:, None], theta_b.shape), where=near)


# ----------------------------------------------------------------------------------------------
# binomial proportions


def wilson_interval(successes, trials, confidence: float = 0.95):
    """Wilson score interval of a binomial proportion, vectorised over arrays of counts.

    .. math::

        \\frac{\\hat p + \\frac{z^2}{2n} \\pm z \\sqrt{\\frac{\\hat p (1-\\hat p)}{n}
        + \\frac{z^2}{4n^2}}}{1 + \\frac{z^2}{n}}, \\qquad \\hat p = k / n,

    with :math:`z` the :math:`1 - \\alpha/2` normal quantile (Wilson
    :cite:`wilson1927probable`). Unlike the Wald interval it stays inside [0, 1] and does not
    collapse at :math:`\\hat p = 0` or 1. ``trials`` may be fractional: with an *effective*
    sample size (successes scaled alike) it is the design-effect version used for
    dependent data (see :func:`rankbook.agreement.agreement_ratio` with ``ci=True``).

    Parameters
    ----------
    successes, trials : array_like
        Broadcast against each other; ``0 <= successes <= trials``.
    confidence : float

    Returns
    -------
    low, high : float or numpy.ndarray
        ``nan`` where ``trials`` is 0.

    Examples
    --------
    >>> low, high = wilson_interval(62, 100)
    >>> round(low, 4), round(high, 4)
    (0.5222, 0.7091)
    >>> wilson_interval([0, 10], [10, 10])[0].round(4).tolist()
    [0.0, 0.7225]
    """
    confidence = _check_confidence(confidence)
    try:
        k = np.asarray(successes, dtype=np.float64)
        n = np.asarray(trials, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("successes and trials must be numbers or arrays of numbers") from None
    k, n = np.broadcast_arrays(k, n)
    if np.isnan(k).any() or np.isnan(n).any():
        raise ValueError("successes and trials must not be nan")
    if (n < 0).any() or (k < 0).any() or (k > n).any():
        raise ValueError("need 0 <= successes <= trials (and trials >= 0) for every entry")
    z = _special.ndtri(1 - (1 - confidence) / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        center = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        low = np.where(n > 0, np.clip(center - half, 0.0, 1.0), np.nan)
        high = np.where(n > 0, np.clip(center + half, 0.0, 1.0), np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


# ----------------------------------------------------------------------------------------------
# paired tests


def cohens_dz(x, y=None):
    """Standardised mean difference of paired values, Cohen's :math:`d_z`.

    .. math::

        d_z = \\frac{\\bar d}{s_d}, \\qquad d_i = x_i - y_i,

    with :math:`s_d` the standard deviation of the differences (``ddof=1``), Cohen
    :cite:`cohen1988statistical`. Vectorised over leading axes. 0 when every difference is 0;
    ``±inf`` when all differences are equal and non-zero.

    Parameters
    ----------
    x : array_like of shape (..., q)
        Paired scores, or the differences when ``y`` is None.
    y : array_like of shape (..., q), optional
        The other system's scores.

    Returns
    -------
    float or ndarray of float
        The batch shape.

    Examples
    --------
    >>> round(cohens_dz([0.5, 0.6, 0.9, 0.4], [0.4, 0.6, 0.7, 0.2]), 4)
    1.3056
    """
    d = _scores(x, "x") if y is None else _scores(x, "x") - _scores(y, "y")
    mean = d.mean(axis=-1)
    sd = d.std(axis=-1, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0),
                       np.where(mean == 0, 0.0, np.sign(mean) * np.inf))
    return float(out) if out.ndim == 0 else out


class PairedTest(NamedTuple):
    """Result of :func:`paired_test` (arrays for a batch): ``mean_difference`` (x - y),
    ``ci_low``, ``ci_high`` (bootstrap interval of the mean difference), ``effect_size``
    (Cohen's :math:`d_z`), ``statistic`` (sum of differences, t or Wilcoxon's W), ``pvalue``,
    ``test``, ``n_queries``, ``resamples`` (``"exact: 2^q sign assignments"``, the number of
    Monte Carlo sign flips, or ``"-"``)."""

    mean_difference: np.ndarray | float
    ci_low: np.ndarray | float
    ci_high: np.ndarray | float
    effect_size: np.ndarray | float
    statistic: np.ndarray | float
    pvalue: np.ndarray | float
    test: str
    n_queries: int
    resamples: str


def _signflip_counts(X, pa, pb, alternative, exact, n_resamples, seed, max_exact, T=None,
                     absd=None):
    """p-values of the sign-flip test of mean(X[pa] - X[pb]) = 0 for every pair, and how.

    The null statistic of one assignment s in {-1, 1}^q is sum_i s_i d_i. It is linear in the
    scores, so for all pairs at once it is P[:, a] - P[:, b] with P = S @ X.T (one matrix
    product per block of assignments, whatever the number of pairs). Exact: every s with
    s_0 = +1 (the null distribution is symmetric: s and -s give opposite sums), in blocks.
    Monte Carlo: n_resamples seeded assignments; p = (hits + 1) / (n_resamples + 1)
    (Phipson and Smyth).
    """
    S_, q = X.shape
    if T is None:
        T = X[pa].sum(axis=1) - X[pb].sum(axis=1)
        absd = np.abs(X[pa] - X[pb]).sum(axis=1)
    tol = (q + 8) * np.finfo(float).eps * np.maximum(absd, np.abs(T))
    use_exact = exact if exact is not None else q <= max_exact
    if use_exact and q > 30:
        raise ValueError(f"exact enumeration of 2^{q} sign assignments is not feasible; use "
                         "exact=None (automatic) or exact=False (Monte Carlo)")
    K = len(pa)
    hits_ge = np.zeros(K)
    hits_le = np.zeros(K)
    hits_abs = np.zeros(K)

    def tally(P, weight):
        step = max(1, _BLOCK_CELLS // max(1, P.shape[0]))
        for k0 in range(0, K, step):
            sl = slice(k0, k0 + step)
            null = P[:, pa[sl]] - P[:, pb[sl]]
            t, g = T[sl], tol[sl]
            ge = (null >= t - g).sum(axis=0)
            le = (null <= t + g).sum(axis=0)
            ab = (np.abs(null) >= np.abs(t) - g).sum(axis=0)
            if weight == "symmetric":  # also count -s for every s enumerated
                ge, le = ge + (-null >= t - g).sum(axis=0), le + (-null <= t + g).sum(axis=0)
                ab = 2 * ab
            hits_ge[sl] += ge
            hits_le[sl] += le
            hits_abs[sl] += ab

    if use_exact:
        total = 2 ** q
        half = total // 2
        block = max(1, min(half, _BLOCK_CELLS // max(q, S_)))
        bits = np.arange(q - 1, dtype=np.int64)
        for start in range(0, half, block):
            codes = np.arange(start, min(half, start + block), dtype=np.int64)
            signs = np.empty((codes.size, q))
            signs[:, 0] = 1.0
            signs[:, 1:] = ((codes[:, None] >> bits) & 1) * 2.0 - 1.0
            tally(signs @ X.T, "symmetric")
        how = f"exact: all 2^{q} = {total} sign assignments"
        denom, add = float(total), 0.0
    else:
        rng = _sign_rng(seed)
        block = max(1, _BLOCK_CELLS // q)
        for start in range(0, n_resamples, block):
            b = min(block, n_resamples - start)
            signs = rng.integers(0, 2, size=(b, q)).astype(np.float64) * 2.0 - 1.0
            tally(signs @ X.T, "plain")
        how = f"Monte Carlo: {n_resamples} seeded sign assignments"
        denom, add = float(n_resamples + 1), 1.0
    hits = {"two-sided": hits_abs, "greater": hits_ge, "less": hits_le}[alternative]
    return T, np.minimum(1.0, (hits + add) / denom), how


def randomization_test(x, y=None, *, alternative: str = "two-sided", n_resamples: int = 10000,
                       exact: Optional[bool] = None, max_exact: int = 20, seed=0):
    """Paired randomisation (sign-flip permutation) test of a zero mean difference.

    Under the null hypothesis that the two systems are exchangeable on every query, each
    difference :math:`d_i = x_i - y_i` is equally likely to carry either sign. The p-value is
    the share of sign assignments :math:`s \\in \\{-1, 1\\}^q` whose statistic is at least
    as extreme as the observed one,

    .. math::

        p = \\frac{\\#\\{s : |\\sum_i s_i d_i| \\ge |\\sum_i d_i|\\}}{2^q}

    (two-sided; ``"greater"`` and ``"less"`` count one tail). With ``q <= max_exact`` (or
    ``exact=True``, at most 30) all :math:`2^q` assignments are enumerated; otherwise
    ``n_resamples`` seeded random assignments are drawn and :math:`p = (h + 1)/(B + 1)`,
    which is never 0 (Phipson and Smyth :cite:`phipson2010permutation`). This is the test
    Smucker, Allan and Carterette recommend for IR evaluation
    :cite:`smucker2007comparison`. Sums equal up to rounding count as ties.

    Parameters
    ----------
    x, y : array_like of shape (..., q)
        Paired scores (or ``x`` alone: the differences). Leading axes are a batch.

    Returns
    -------
    statistic, pvalue, resamples
        The observed sum of differences, the p-value, and how it was computed.

    Examples
    --------
    >>> d = [0.1, 0.3, -0.05, 0.2, 0.15]
    >>> stat, p, how = randomization_test(d)
    >>> round(stat, 2), p, how  # sums 0.7 and 0.8, and their negatives: 4 of 32
    (0.7, 0.125, 'exact: all 2^5 = 32 sign assignments')
    """
    check_choice(alternative, ALTERNATIVES, "alternative")
    n_resamples = _check_resamples(n_resamples, test=True)
    seed = _check_seed(seed)
    d = _scores(x, "x", 1) if y is None else _scores(x, "x", 1) - _scores(y, "y", 1)
    shape = d.shape[:-1]
    D = d.reshape(-1, d.shape[-1])
    X = np.concatenate([D, np.zeros((1, D.shape[1]))])
    pa = np.arange(len(D))
    pb = np.full(len(D), len(D))
    T, p, how = _signflip_counts(X, pa, pb, alternative, exact, n_resamples, seed, max_exact)
    T, p = T.reshape(shape), p.reshape(shape)
    if T.ndim == 0:
        return float(T), float(p), how
    return T, p, how


def _p_t(D, alternative):
    n = D.shape[1]
    mean, sd = D.mean(axis=1), D.std(axis=1, ddof=1)
    zero = (sd == 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = mean / (sd / math.sqrt(n))
        t = np.where(zero & (mean == 0), 0.0, np.where(zero, np.sign(mean) * np.inf, t))
    if alternative == "two-sided":
        p = 2 * _sps.t.sf(np.abs(t), n - 1)
    elif alternative == "greater":
        p = _sps.t.sf(t, n - 1)
    else:
        p = _sps.t.cdf(t, n - 1)
    p = np.where(zero & (mean == 0), 1.0, p)
    return t, np.minimum(p, 1.0)


def _p_wilcoxon(D, alternative):
    stat = np.full(len(D), np.nan)
    p = np.ones(len(D))
    nonzero = (D != 0).any(axis=1)
    if nonzero.any():
        res = _sps.wilcoxon(D[nonzero], axis=1, alternative=alternative, zero_method="wilcox")
        stat[nonzero] = res.statistic
        p[nonzero] = res.pvalue
    return stat, p


def paired_test(x, y, test: str = "randomization", *, alternative: str = "two-sided",
                confidence: float = 0.95, ci_method: str = "bca", n_resamples: int = 10000,
                exact: Optional[bool] = None, max_exact: int = 20, seed=0) -> PairedTest:
    """Compare two systems scored on the same queries: test, effect size and interval.

    ``test`` is ``"randomization"`` (sign-flip, see :func:`randomization_test`), ``"t"`` (the
    paired t-test, :math:`t = \\bar d / (s_d/\\sqrt q)` with :math:`q-1` degrees of freedom,
    as ``scipy.stats.ttest_rel``) or ``"wilcoxon"`` (signed-rank test on the non-zero
    differences, as ``scipy.stats.wilcoxon`` with ``zero_method="wilcox"``). Where every
    difference is 0 the p-value is 1 for all three (scipy's t-test gives ``nan`` there). The
    effect size is Cohen's :math:`d_z` (:func:`cohens_dz`) and the interval is the bootstrap
    interval of the mean difference (:func:`bootstrap_ci`, same seed).

    Parameters
    ----------
    x, y : array_like of shape (..., q)
        Scores of the two systems; ``x`` may carry a batch of leading axes (many systems
        against one ``y``).
    test : {"randomization", "t", "wilcoxon"}
        The test (other spellings such as ``"ttest"`` are accepted).
    alternative : {"two-sided", "greater", "less"}
        The alternative hypothesis on the mean of ``x - y``.
    confidence : float
        The interval's level, 0 < confidence < 1.
    ci_method : {"bca", "percentile"}
        The bootstrap interval (:func:`bootstrap_ci`).
    n_resamples : int
        Resamples of the bootstrap and of a Monte Carlo randomisation test.
    exact, max_exact
        As in :func:`randomization_test`.
    seed : int, numpy.random.Generator or None
        Seed of the resamples.

    Returns
    -------
    PairedTest
        Floats for one pair of systems, arrays for a batch.

    Examples
    --------
    >>> x = [0.42, 0.55, 0.61, 0.38, 0.70, 0.52, 0.47, 0.66]
    >>> y = [0.40, 0.50, 0.60, 0.41, 0.62, 0.45, 0.47, 0.58]
    >>> r = paired_test(x, y)
    >>> round(r.mean_difference, 4), round(r.pvalue, 4), r.resamples
    (0.035, 0.0781, 'exact: all 2^8 = 256 sign assignments')
    >>> round(paired_test(x, y, "t").pvalue, 4)  # scipy.stats.ttest_rel(x, y)
    0.0467
    """
    test = _check_test(test)
    check_choice(alternative, ALTERNATIVES, "alternative")
    xs, ys = _scores(x, "x"), _scores(y, "y")
    if xs.shape[-1] != ys.shape[-1]:
        raise ValueError(f"x and y must hold the same queries: {xs.shape[-1]} and "
                         f"{ys.shape[-1]} values")
    xs, ys = np.broadcast_arrays(xs, ys)
    shape = xs.shape[:-1]
    D = (xs - ys).reshape(-1, xs.shape[-1])
    ci = bootstrap_ci(D, confidence=confidence, method=ci_method, n_resamples=n_resamples,
                      seed=seed)
    if test == "randomization":
        X = np.concatenate([D, np.zeros((1, D.shape[1]))])
        stat, p, how = _signflip_counts(X, np.arange(len(D)), np.full(len(D), len(D)),
                                        alternative, exact, n_resamples, _check_seed(seed),
                                        max_exact)
    elif test == "t":
        (stat, p), how = _p_t(D, alternative), "-"
    else:
        (stat, p), how = _p_wilcoxon(D, alternative), "-"

    def out(a):
        a = np.asarray(a, dtype=np.float64).reshape(shape)
        return float(a) if a.ndim == 0 else a

    return PairedTest(out(D.mean(axis=1)), out(ci.low), out(ci.high), out(cohens_dz(D)),
                      out(stat), out(p), test, int(D.shape[1]), how)


# ----------------------------------------------------------------------------------------------
# multiple comparisons


def format_p(p: float, digits: int = 4) -> str:
    """A p-value as a report prints it: ``p = 0.0123``, or ``p < 0.0001`` when it rounds to 0
    at ``digits`` decimals (a p-value is never 0; a Monte Carlo one is at least
    1/(resamples + 1)).

    Parameters
    ----------
    p : float
        The p-value.
    digits : int, default 4
        Decimals printed.

    Returns
    -------
    str
        ``"p = 0.0123"``; ``"p < 0.0001"`` (one unit of the last decimal) when ``p`` rounds to
        0; ``"p undefined"`` for nan or an infinite ``p``.

    Examples
    --------
    >>> format_p(0.01234), format_p(1e-7), format_p(0.00006)
    ('p = 0.0123', 'p < 0.0001', 'p = 0.0001')
    """
    if not np.isfinite(p):
        return "p undefined"
    if round(float(p), digits) == 0:
        return f"p < {10.0 ** -digits:.{digits}f}"
    return f"p = {float(p):.{digits}f}"


def correct(pvalues, method: str = "holm"):
    """Adjust a family of p-values for multiple comparisons.

    With the m p-values sorted, :math:`p_{(1)} \\le \\dots \\le p_{(m)}`:

    - ``"bonferroni"``: :math:`\\min(1, m p_i)`;
    - ``"holm"`` (step-down, controls the family-wise error rate, Holm
      :cite:`holm1979simple`): :math:`\\max_{j \\le i} \\min(1, (m - j + 1) p_{(j)})`;
    - ``"bh"`` (controls the false discovery rate, Benjamini and Hochberg
      :cite:`benjamini1995controlling`): :math:`\\min_{j \\ge i} \\min(1, m p_{(j)} / j)`;
    - ``"by"`` (false discovery rate under any dependence, Benjamini and Yekutieli
      :cite:`benjamini2001control`): ``"bh"`` times :math:`\\sum_{k=1}^m 1/k`, capped at 1;
    - ``"none"``: unchanged.

    The values equal ``statsmodels.stats.multitest.multipletests(p, method=...)[1]`` with
    ``holm``, ``bonferroni``, ``fdr_bh`` and ``fdr_by``. A family is the last axis; ``nan``
    entries (tests that could not be run) stay ``nan`` and do not count in m.

    Parameters
    ----------
    pvalues : array_like of float
        The p-values; the last axis is a family.
    method : {"holm", "bonferroni", "bh", "by", "none"}
        The correction.

    Returns
    -------
    ndarray of float
        The adjusted p-values, the shape of ``pvalues``.

    Examples
    --------
    >>> correct([0.01, 0.04, 0.03, 0.20], "holm").round(4).tolist()
    [0.04, 0.09, 0.09, 0.2]
    >>> correct([0.01, 0.04, 0.03, 0.20], "bh").round(4).tolist()
    [0.04, 0.0533, 0.0533, 0.2]
    """
    check_choice(method, CORRECTIONS, "correction")
    try:
        p = np.array(pvalues, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("pvalues must be numbers") from None
    scalar = p.ndim == 0
    p = np.atleast_1d(p)
    if ((p < 0) | (p > 1)).any():
        raise ValueError("p-values must lie in [0, 1]")
    if method == "none":
        return float(p[0]) if scalar else p
    if p.size == 0:  # no tests, nothing to correct
        return p
    flat = p.reshape(-1, p.shape[-1])
    out = np.full_like(flat, np.nan)
    for r, row in enumerate(flat):
        ok = ~np.isnan(row)
        v = row[ok]
        m = v.size
        if m == 0:
            continue
        order = np.argsort(v, kind="stable")
        s = v[order]
        rank = np.arange(1, m + 1)
        if method == "bonferroni":
            adj = np.minimum(1.0, m * s)
        elif method == "holm":
            adj = np.minimum(1.0, np.maximum.accumulate((m - rank + 1) * s))
        else:
            c = 1.0 if method == "bh" else float(np.sum(1.0 / rank))
            adj = np.minimum(1.0, np.minimum.accumulate((c * m * s / rank)[::-1])[::-1])
        res = np.empty(m)
        res[order] = adj
        out[r, ok] = res
    out = out.reshape(p.shape)
    return float(out[0]) if scalar else out


# ----------------------------------------------------------------------------------------------
# many systems at once: Tukey's HSD, its randomised form, topic set sizes

#: Designs of :func:`tukey_hsd`: ``"two-way"`` (topics are blocks, the IR literature's use) or
#: ``"one-way"`` (systems only, ``scipy.stats.tukey_hsd``).
TUKEY_DESIGNS = ("two-way", "one-way")
#: Most within-topic permutations :func:`randomized_tukey_hsd` enumerates for an exact p-value.
MAX_EXACT_PERMUTATIONS = 1_000_000


class TukeyHSD(NamedTuple):
    """Result of :func:`tukey_hsd` and :func:`randomized_tukey_hsd` for ``m`` systems.

    ``statistic[i, j]`` is the difference of mean scores ``mean_i - mean_j``; ``pvalue[i, j]``
    its adjusted p-value (the diagonal is 1); ``low`` and ``high`` the simultaneous interval of
    each difference at ``confidence`` (``nan`` for the randomised form); ``mse`` and ``df`` the
    error mean square and its degrees of freedom (``nan`` for the randomised form); ``design``;
    ``resamples`` says how the randomised p-values were computed (``"-"`` otherwise).
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    low: np.ndarray
    high: np.ndarray
    mse: float
    df: float
    design: str
    confidence: float
    resamples: str = "-"


def _systems_by_topics(scores, name="scores") -> np.ndarray:
    X = _scores(scores, name)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a matrix of systems (rows) by topics (columns), got "
                         f"{X.ndim} axes")
    if X.shape[0] < 2:
        raise ValueError(f"{name} needs at least 2 systems (rows), got {X.shape[0]}")
    return X


def tukey_hsd(scores, design: str = "two-way", confidence: float = 0.95) -> TukeyHSD:
    """Tukey's honestly significant difference test of every pair of systems.

    With ``m`` systems scored on the same ``n`` topics (``scores`` of shape ``(m, n)``), the
    difference of two mean scores is studentized by one error variance shared by all pairs,

    .. math::

        q_{ij} = \\frac{|\\bar x_i - \\bar x_j|}{\\sqrt{\\mathrm{MSE}/n}}, \\qquad
        p_{ij} = P(Q_{m, \\nu} \\ge q_{ij}),

    with :math:`Q_{m,\\nu}` the studentized range of ``m`` means on :math:`\\nu` degrees of
    freedom (Tukey :cite:`tukey1949comparing`), and the simultaneous interval
    :math:`\\bar x_i - \\bar x_j \\pm Q_{m,\\nu}^{(1-\\alpha)} \\sqrt{\\mathrm{MSE}/n}`. The two
    designs differ only in the error term:

    ``"two-way"`` (default)
        the IR use (Carterette :cite:`carterette2012multiple`, Sakai
        :cite:`sakai2018laboratory`): topics are blocks, the residual of the additive model system + topic,
        :math:`\\mathrm{MSE} = \\sum_{ij} (x_{ij} - \\bar x_{i\\cdot} - \\bar x_{\\cdot j} +
        \\bar x)^2 / ((m-1)(n-1))` on :math:`\\nu = (m-1)(n-1)`. The variation between topics
        (some topics are hard for every system) is taken out, as a paired test takes it out.
    ``"one-way"``
        the topics are ignored: :math:`\\mathrm{MSE}` is the pooled within-system variance on
        :math:`\\nu = m(n-1)`, exactly ``scipy.stats.tukey_hsd(*scores)``. On IR data it is
        much larger than the two-way term, and the test far less powerful.

    Parameters
    ----------
    scores : array_like of shape (m, n)
        Systems by topics.
    design : {"two-way", "one-way"}
    confidence : float
        Level of the simultaneous intervals.

    Returns
    -------
    TukeyHSD

    Examples
    --------
    >>> x = [[0.50, 0.61, 0.42, 0.70, 0.33, 0.58],
    ...      [0.40, 0.55, 0.30, 0.61, 0.20, 0.49],
    ...      [0.52, 0.60, 0.45, 0.69, 0.35, 0.57]]
    >>> res = tukey_hsd(x)
    >>> res.pvalue[0].round(5).tolist()
    [1.0, 3e-05, 0.85027]
    >>> from scipy import stats
    >>> bool(np.allclose(tukey_hsd(x, "one-way").pvalue, stats.tukey_hsd(*x).pvalue))
    True
    """
    check_choice(design, TUKEY_DESIGNS, "design")
    confidence = _check_confidence(confidence)
    X = _systems_by_topics(scores)
    m, n = X.shape
    means = X.mean(axis=1)
    if design == "one-way":
        sse = float(((X - means[:, None]) ** 2).sum())
        df = m * (n - 1)
    else:
        resid = X - means[:, None] - X.mean(axis=0)[None, :] + X.mean()
        sse = float((resid ** 2).sum())
        df = (m - 1) * (n - 1)
    mse = sse / df
    se = math.sqrt(mse / n)
    diff = means[:, None] - means[None, :]
    pvalue = np.ones((m, m))
    iu = np.triu_indices(m, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.abs(diff[iu]) / se if se > 0 else np.where(diff[iu] == 0, 0.0, np.inf)
    p = np.where(q == 0, 1.0, _sps.studentized_range.sf(q, m, df)) if q.size else q
    pvalue[iu] = p
    pvalue[iu[1], iu[0]] = p
    crit = float(_sps.studentized_range.ppf(confidence, m, df))
    return TukeyHSD(diff, pvalue, diff - crit * se, diff + crit * se, mse, float(df), design,
                    confidence)


def _range_tolerance(X: np.ndarray) -> float:
    """Differences of means closer than this count as equal (the same sums added in another
    order round differently)."""
    return 8.0 * (X.shape[1] + 1) * np.finfo(float).eps * max(1.0, float(np.abs(X).max()))


def _exact_ranges(X: np.ndarray):
    """Every value of the largest minus the smallest system mean over the within-topic
    permutations of the system labels, in blocks: the first topic's labels stay (relabelling
    the systems leaves the range unchanged, so each of its m! orders gives the same
    distribution); yields arrays of ranges."""
    import itertools

    m, n = X.shape
    perms = np.array(list(itertools.permutations(range(m))), dtype=np.int64)  # (m!, m)
    f = perms.shape[0]
    per_topic = X.T[:, perms] if n > 1 else np.zeros((0, f, m))  # (n, m!, m)
    total = f ** (n - 1)
    block = max(1, _BLOCK_CELLS // (m * max(n, 1)))
    for start in range(0, total, block):
        codes = np.arange(start, min(total, start + block), dtype=np.int64)
        sums = np.broadcast_to(X[:, 0], (codes.size, m)).copy()
        rest = codes.copy()
        for j in range(1, n):
            sums += per_topic[j][rest % f]
            rest //= f
        means = sums / n
        yield means.max(axis=1) - means.min(axis=1)


def randomized_tukey_hsd(scores, *, n_resamples: int = 10000, exact: Optional[bool] = None,
                         max_exact: int = MAX_EXACT_PERMUTATIONS, seed=0) -> TukeyHSD:
    """The randomised Tukey HSD test of IR: a permutation test of every pair of systems that
    controls the family-wise error over all of them.

    Under the null hypothesis that the ``m`` systems are exchangeable, the scores of one topic
    could have come from the systems in any order. Each resample permutes the system labels
    within every topic independently and records the largest minus the smallest system mean,
    :math:`R^* = \\max_i \\bar x^*_i - \\min_i \\bar x^*_i`; a pair's adjusted p-value is the
    share of resamples with :math:`R^* \\ge |\\bar x_i - \\bar x_j|` (Carterette
    :cite:`carterette2012multiple`; Sakai :cite:`sakai2018laboratory`, who calls it the
    randomised Tukey HSD test). Comparing every pair with the distribution of the *largest*
    difference is what controls the family-wise error. When the :math:`(m!)^{n-1}` label
    orders (the first topic's order is fixed: relabelling the systems leaves :math:`R^*`
    unchanged) number at most ``max_exact`` (or ``exact=True``), they are all enumerated and
    the p-value is exact; otherwise ``n_resamples`` seeded resamples give :math:`p = (h +
    1)/(B + 1)` (Phipson and Smyth :cite:`phipson2010permutation`). Differences equal up to
    rounding count as reached.

    Parameters
    ----------
    scores : array_like of shape (m, n)
        Systems by topics.
    n_resamples, seed
        Monte Carlo resamples and their seed (a stream of its own, as the sign flips of
        :func:`randomization_test`).
    exact : bool, optional
        Force (True) or forbid (False) enumeration; default: enumerate when feasible.

    Returns
    -------
    TukeyHSD
        ``low``, ``high``, ``mse`` and ``df`` are ``nan`` (no interval is inverted).

    Examples
    --------
    >>> x = [[0.50, 0.61, 0.42, 0.70], [0.40, 0.55, 0.30, 0.61], [0.52, 0.60, 0.45, 0.69]]
    >>> res = randomized_tukey_hsd(x)
    >>> res.resamples
    'exact: all 6^3 = 216 within-topic label orders (the first topic fixed)'
    >>> res.pvalue[1].round(4).tolist()  # 9 and 5 of the 216 orders reach the differences
    [0.0417, 1.0, 0.0231]
    """
    n_resamples = _check_resamples(n_resamples, test=True)
    seed = _check_seed(seed)
    X = _systems_by_topics(scores)
    m, n = X.shape
    means = X.mean(axis=1)
    diff = means[:, None] - means[None, :]
    iu = np.triu_indices(m, 1)
    observed = np.abs(diff[iu])
    tol = _range_tolerance(X)
    order = np.argsort(observed)
    thresholds = observed[order] - tol
    hits = np.zeros(observed.size)
    f = math.factorial(m)
    total = f ** (n - 1) if m <= 20 else math.inf
    use_exact = exact if exact is not None else total <= max_exact
    if use_exact and total > 50 * MAX_EXACT_PERMUTATIONS:
        raise ValueError(f"exact enumeration of ({m}!)^{n - 1} label orders is not feasible; use "
                         "exact=None (automatic) or exact=False (Monte Carlo)")

    def tally(ranges):
        # ranges >= threshold, for every pair at once: a sorted search
        ranges = np.sort(ranges)
        counts = ranges.size - np.searchsorted(ranges, thresholds, side="left")
        hits[order] += counts

    if use_exact:
        for ranges in _exact_ranges(X):
            tally(ranges)
        p = hits / total
        how = (f"exact: all {f}^{n - 1} = {total} within-topic label orders (the first topic "
               "fixed)")
    else:
        rng = _sign_rng(seed)
        block = max(1, _BLOCK_CELLS // (m * n))
        base = np.arange(m)
        cols = np.arange(n)[None, :, None]
        Xt = X.T  # (n, m)
        for start in range(0, n_resamples, block):
            b = min(block, n_resamples - start)
            perm = rng.permuted(np.broadcast_to(base, (b, n, m)), axis=-1)
            sums = Xt[cols, perm].sum(axis=1)
            means_b = sums / n
            tally(means_b.max(axis=1) - means_b.min(axis=1))
        p = (hits + 1.0) / (n_resamples + 1.0)
        how = f"Monte Carlo: {n_resamples} seeded within-topic permutations"
    pvalue = np.ones((m, m))
    pvalue[iu] = np.minimum(p, 1.0)
    pvalue[iu[1], iu[0]] = pvalue[iu]
    nan = np.full((m, m), np.nan)
    return TukeyHSD(diff, pvalue, nan, nan.copy(), float("nan"), float("nan"), "randomized",
                    float("nan"), how)


#: Methods of :func:`topic_set_size`: ``"t"`` (the paired t-test's exact power, Sakai's
#: design) and ``"normal"`` (the normal approximation rankkit 0.1.0 prints).
SIZE_METHODS = ("t", "normal")


def _check_positive(value, name):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive number, got {value!r}") from None
    if not v > 0 or not math.isfinite(v):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return v


def _check_level(value, name, example):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in (0, 1), e.g. {example}; got {value!r}") from None
    if not 0 < v < 1:
        raise ValueError(f"{name} must be in (0, 1), e.g. {example}; got {value!r}")
    return v


def paired_t_power(n_topics, delta: float, sd: float, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t-test at level ``alpha`` on ``n_topics`` topics, when
    the true mean difference is ``delta`` and the per-topic differences have standard
    deviation ``sd``.

    .. math::

        1 - \\beta = P(|T'| > t_{1-\\alpha/2,\\,n-1}), \\qquad
        T' \\sim t'_{n-1}(\\lambda = \\sqrt{n}\\,\\delta/\\sigma_d),

    the noncentral t distribution (Sakai :cite:`sakai2016topic`), as
    ``statsmodels.stats.power.TTestPower().power(delta / sd, n, alpha)`` computes it (which
    returns ``nan`` where scipy's ``nct.cdf`` fails far in its lower tail; the lower tail is
    taken here as the upper tail of :math:`-T'`, which is 0 there).

    Parameters
    ----------
    n_topics : int or array_like of int
        Number of topics :math:`n`, each a whole number >= 2; an array gives one power per
        entry.
    delta : float
        True mean difference :math:`\\delta` between the two systems, > 0.
    sd : float
        Standard deviation :math:`\\sigma_d` of the per-topic differences, > 0.
    alpha : float, default 0.05
        Significance level, in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        The power, in [0, 1]: a float for a single ``n_topics``, else an array of its shape.

    Raises
    ------
    ValueError
        ``n_topics`` not whole or below 2, ``delta`` or ``sd`` not a positive finite number,
        ``alpha`` outside (0, 1).

    Examples
    --------
    >>> round(paired_t_power(50, 0.05, 0.2), 4)
    0.4104
    """
    n = np.asarray(n_topics, dtype=float)
    if (n < 2).any() or (n != np.round(n)).any():
        raise ValueError(f"n_topics must be whole numbers >= 2, got {n_topics!r}")
    delta = _check_positive(delta, "delta")
    sd = _check_positive(sd, "sd")
    alpha = _check_level(alpha, "alpha", 0.05)
    df = n - 1
    crit = _sps.t.ppf(1 - alpha / 2, df)
    nc = np.sqrt(n) * delta / sd
    # the lower tail as the upper tail of -T' (scipy's nct.cdf gives nan far in its tail)
    lower = np.nan_to_num(_sps.nct.sf(crit, df, -nc), nan=0.0)
    out = _sps.nct.sf(crit, df, nc) + lower
    return float(out) if out.ndim == 0 else out


#: The most topics a topic set size may ask for: beyond it the difference is too small for its
#: spread to be detected by any test collection, and the answer is refused rather than printed.
MAX_TOPICS = 10**7


def _too_many(needed) -> ValueError:
    return ValueError(f"about {needed:,.0f} topics would be needed, more than {MAX_TOPICS:,}: "
                      "the difference is too small against the spread of the per-topic scores "
                      "to be detected; ask for a larger difference (delta), or lower power")


def _smallest_n(power_of, target: float, start: int, limit: int = MAX_TOPICS) -> int:
    """The smallest n >= 2 with power_of(n) >= target (power grows with n), searched from
    ``start`` (an estimate) by doubling and bisection; ValueError beyond ``limit``."""
    if start > limit:
        raise _too_many(start)
    lo = max(2, int(start))
    if power_of(lo) >= target:
        if lo == 2 or power_of(lo - 1) < target:
            return lo
        lo, hi = 1, lo - 1  # power(hi) >= target: bisect below
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if mid < 2 or power_of(mid) < target else (lo, mid)
        return max(2, hi)
    hi = lo * 2
    while power_of(hi) < target:
        lo, hi = hi, hi * 2
        if hi > limit:
            raise _too_many(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if power_of(mid) < target else (lo, mid)
    return hi


def topic_set_size(delta: float, sd: float, alpha: float = 0.05, power: float = 0.8,
                   method: str = "t") -> int:
    """How many topics a paired comparison of two systems needs to detect a difference
    ``delta`` with probability ``power`` at level ``alpha``, given the standard deviation
    ``sd`` of the per-topic differences (Sakai's topic set size design :cite:`sakai2016topic`).

    ``"t"`` (default): the smallest :math:`n \\ge 2` whose two-sided paired t-test has power
    at least ``power`` (:func:`paired_t_power`, exact noncentral t). ``"normal"``: the normal
    approximation :math:`\\lceil ((z_{1-\\alpha/2} + z_{1-\\beta})\\,\\sigma_d/\\delta)^2 \\rceil`,
    which ignores that the variance is estimated and so asks for slightly fewer topics; it is
    what rankkit 0.1.0 prints ("to detect ... you would need N queries").

    Parameters
    ----------
    delta : float
        Smallest mean difference worth detecting, > 0.
    sd : float
        Standard deviation :math:`\\sigma_d` of the per-topic differences, > 0 (from a
        pilot collection, for instance).
    alpha : float, default 0.05
        Significance level of the two-sided test, in (0, 1).
    power : float, default 0.8
        Required probability :math:`1 - \\beta` of detecting ``delta``, in (0, 1).
    method : {"t", "normal"}
        One of :data:`SIZE_METHODS`, as above.

    Returns
    -------
    int
        The number of topics.

    Raises
    ------
    ValueError
        An unknown ``method``, ``delta`` or ``sd`` not a positive finite number, ``alpha`` or
        ``power`` outside (0, 1).

    Examples
    --------
    >>> topic_set_size(0.05, 0.2), topic_set_size(0.05, 0.2, method="normal")
    (128, 126)
    """
    check_choice(method, SIZE_METHODS, "method")
    delta = _check_positive(delta, "delta")
    sd = _check_positive(sd, "sd")
    alpha = _check_level(alpha, "alpha", 0.05)
    power = _check_level(power, "power", 0.8)
    z = _special.ndtri(1 - alpha / 2) + _special.ndtri(power)
    approx = math.ceil((z * sd / delta) ** 2)
    if approx > MAX_TOPICS:
        raise _too_many(approx)
    if method == "normal":
        return int(approx)
    return _smallest_n(lambda n: paired_t_power(n, delta, sd, alpha), power, approx)


def anova_power(n_topics, min_range: float, variance: float, n_systems: int,
                alpha: float = 0.05) -> float:
    """Power of the one-way ANOVA F-test of ``n_systems`` systems on ``n_topics`` topics each,
    when the best and the worst system differ by ``min_range`` and the others lie at the grand
    mean (the least favourable configuration of that range), with error variance ``variance``.

    .. math::

        1 - \\beta = P(F' > F_{1-\\alpha;\\,m-1,\\,m(n-1)}), \\qquad
        F' \\sim F'_{m-1,\\,m(n-1)}\\Big(\\lambda = n\\,\\frac{D^2}{2\\sigma^2}\\Big),

    Sakai's ANOVA-based design :cite:`sakai2016topic`; equal to
    ``statsmodels.stats.power.FTestAnovaPower().power(f, m * n, alpha, m)`` with Cohen's
    :math:`f^2 = D^2 / (2 m \\sigma^2)`.

    Parameters
    ----------
    n_topics : int or array_like of int
        Number of topics :math:`n`, each a whole number >= 2; an array gives one power per
        entry.
    min_range : float
        Difference :math:`D` between the best and the worst system's means, > 0.
    variance : float
        Error variance :math:`\\sigma^2` of the ANOVA (within systems), > 0.
    n_systems : int
        Number of systems :math:`m`, a whole number >= 2.
    alpha : float, default 0.05
        Significance level, in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        The power, in [0, 1]: a float for a single ``n_topics``, else an array of its shape.

    Raises
    ------
    ValueError
        ``n_topics`` or ``n_systems`` not whole or below 2, ``min_range`` or ``variance`` not a
        positive finite number, ``alpha`` outside (0, 1).

    Examples
    --------
    >>> round(anova_power(100, 0.1, 0.04, 5), 4)
    0.8162
    """
    n = np.asarray(n_topics, dtype=float)
    if (n < 2).any() or (n != np.round(n)).any():
        raise ValueError(f"n_topics must be whole numbers >= 2, got {n_topics!r}")
    min_range = _check_positive(min_range, "min_range")
    variance = _check_positive(variance, "variance")
    alpha = _check_level(alpha, "alpha", 0.05)
    if isinstance(n_systems, bool) or not isinstance(n_systems, (int, np.integer)) \
            or n_systems < 2:
        raise ValueError(f"n_systems must be a whole number >= 2, got {n_systems!r}")
    m = int(n_systems)
    df1, df2 = m - 1, m * (n - 1)
    crit = _sps.f.ppf(1 - alpha, df1, df2)
    out = _sps.ncf.sf(crit, df1, df2, n * min_range ** 2 / (2 * variance))
    return float(out) if np.ndim(out) == 0 else out


def topic_set_size_anova(min_range: float, variance: float, n_systems: int,
                         alpha: float = 0.05, power: float = 0.8) -> int:
    """How many topics a one-way ANOVA of ``n_systems`` systems needs to detect a range
    ``min_range`` between the best and the worst system with probability ``power``
    (:func:`anova_power`; Sakai :cite:`sakai2016topic`): the smallest such :math:`n \\ge 2`.

    Parameters
    ----------
    min_range : float
        Difference :math:`D` between the best and the worst system's means worth detecting,
        > 0.
    variance : float
        Error variance :math:`\\sigma^2` of the ANOVA (within systems), > 0.
    n_systems : int
        Number of systems :math:`m`, a whole number >= 2.
    alpha : float, default 0.05
        Significance level, in (0, 1).
    power : float, default 0.8
        Required probability :math:`1 - \\beta` of detecting ``min_range``, in (0, 1).

    Returns
    -------
    int
        The number of topics per system.

    Raises
    ------
    ValueError
        The arguments :func:`anova_power` refuses, or ``power`` outside (0, 1).

    Examples
    --------
    >>> topic_set_size_anova(0.1, 0.04, 5)
    97
    """
    power = _check_level(power, "power", 0.8)
    anova_power(2, min_range, variance, n_systems, alpha)  # validates the arguments
    z = _special.ndtri(1 - alpha / 2) + _special.ndtri(power)
    start = max(2, math.ceil(2 * (z / min_range) ** 2 * variance))
    return _smallest_n(lambda n: anova_power(n, min_range, variance, n_systems, alpha), power,
                       start)


# ----------------------------------------------------------------------------------------------
# compare many systems


def _letters(n):
    """Codes of ``n`` systems: a, b, ..., z (no q), then aa, ab, ..., zz, then aaa, ... (as
    spreadsheet columns are named), so any number of systems has one code each.

    >>> _letters(3), _letters(27)[-2:], _letters(651)[-2:]
    (['a', 'b', 'c'], ['aa', 'ab'], ['zz', 'aaa'])
    """
    base = "abcdefghijklmnoprstuvwxyz"
    k = len(base)
    out = []
    for i in range(n):
        code = ""
        while True:
            code = base[i % k] + code
            i = i // k - 1
            if i < 0:
                break
        out.append(code)
    return out


def _superscript(text):
    return "".join(_SUPERSCRIPTS.get(c, c) for c in text)


@dataclass
class Comparison:
    """The result of :func:`compare`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (system, measure): ``system``, ``letter``, ``measure``, ``mean``,
        ``ci_low``, ``ci_high``, and, against the baseline (``nan`` for the baseline itself
        and without one), ``diff``, ``diff_low``, ``diff_high``, ``effect_size``, ``p_value``,
        ``p_corrected``, ``significant``; ``mark`` holds the letters of the systems this one
        is significantly better than, after correction (ranx's convention).
    pairs : pandas.DataFrame
        Every test run: ``measure``, ``system``, ``other``, ``diff`` (system minus other),
        ``diff_low``, ``diff_high``, ``effect_size``, ``p_value``, ``p_corrected``,
        ``significant_uncorrected`` (``p_value < alpha``), ``significant`` (corrected).
    settings : dict
        The test, the correction, alpha, the confidence level, the resampling used.
    best : pandas.DataFrame
        The tied-with-the-best tests: per measure, each system against the system of highest
        mean (``best``): ``measure``, ``system``, ``best``, ``diff`` (system minus best),
        ``p_value``, ``p_corrected`` (the ``correction`` over these tests of one measure) and
        ``tied`` (``p_corrected >= alpha``, and the best itself). ``table["tied_with_best"]``
        holds the same flag.
    sizes : pandas.DataFrame
        With ``delta`` (:func:`compare`): topic set sizes, one row per tested pair (``design``
        "paired t-test") and one per measure ("one-way ANOVA"): ``measure``, ``design``,
        ``systems``, ``variance`` (of the per-topic differences, or pooled within systems),
        ``delta``, ``alpha``, ``power``, ``topics`` (needed), ``topics_normal`` (the normal
        approximation, rankkit's), ``n_queries`` (in the data). Empty without ``delta``.
    """

    table: pd.DataFrame
    pairs: pd.DataFrame
    settings: dict = field(default_factory=dict)
    best: pd.DataFrame = field(default_factory=pd.DataFrame)
    sizes: pd.DataFrame = field(default_factory=pd.DataFrame)

    def tied_with_best(self) -> dict:
        """``{measure: [systems]}``: the best system and those whose difference from it is not
        significant after correction (see :func:`compare`)."""
        return {m: list(g.loc[g.tied, "system"]) for m, g in self.best.groupby("measure", sort=False)}

    def tied_statement(self) -> str:
        """One sentence per measure naming the tied-with-the-best set, the test and the
        correction used."""
        s = self.settings
        corr = CORRECTION_NAMES
        out = []
        for m, g in self.best.groupby("measure", sort=False):
            best = g["best"].iloc[0]
            tied = list(g.loc[g.tied, "system"])
            others = len(g) - 1
            if others == 0:
                out.append(f"{m}: {best} is the only system")
                continue
            same = list(g.loc[(g.system != best) & (g["diff"] == 0.0), "system"])
            head = (f"highest mean, shared with {', '.join(same)}; the first listed is taken"
                    if same else "highest mean")
            against = ("against the other system" if others == 1 else
                       f"against each of the {others} other systems")
            over = "" if others == 1 else f" over those {others} tests"
            if s["correction"] in FAMILY_TESTS:  # the family test decides, not the paired one
                name = ("Tukey's HSD" if s["correction"] == "tukey"
                        else "the randomised Tukey HSD test")
                tests = f"{name} over every pair of the {others + 1} systems"
                if tied == [best]:
                    out.append(f"{m}: {best} is the best ({head}) and no system is tied with it "
                               f"(each other system differs significantly from it: {tests}, "
                               f"p < {s['alpha']:g})")
                else:
                    out.append(f"{m}: tied with the best ({best}, {head}): {', '.join(tied)} "
                               f"(difference from {best} not significant: {tests}, "
                               f"p >= {s['alpha']:g})")
                continue
            if tied == [best]:
                every = "the other system differs" if others == 1 else "each other system differs"
                out.append(f"{m}: {best} is the best ({head}) and no system is tied with it "
                           f"({every} significantly: {s['test']} test of {best} {against}, "
                           f"{corr[s['correction']]}{over}, p < {s['alpha']:g}; these tests are a "
                           "family of their own, apart from the table's marks)")
                continue
            out.append(f"{m}: tied with the best ({best}, {head}): {', '.join(tied)} "
                       f"(difference from {best} not significant: {s['test']} test of {best} "
                       f"{against}, {corr[s['correction']]}{over}, p >= {s['alpha']:g}; "
                       "these tests are a family of their own, apart from the table's marks)")
        return "\n".join(out)

    def wide(self, decimals: int = 4) -> pd.DataFrame:
        """Systems by measures, each cell the mean with its superscript marks (as printed)."""
        t = self.table
        cells = {}
        for m, g in t.groupby("measure", sort=False):
            heads = [f"{r.mean:.{decimals}f}{_superscript(r.mark)}" for r in g.itertuples()]
            width = max(len(h) for h in heads)
            col = []
            for h, r in zip(heads, g.itertuples()):
                text = h
                if self.settings.get("baseline") is not None and r.system != self.settings["baseline"]:
                    text = h.ljust(width) + f" ({r.diff:+.{decimals}f})"
                col.append(text)
            cells[m] = col
        systems = list(dict.fromkeys(t.system))
        letters = list(dict.fromkeys(t.letter))
        frame = pd.DataFrame(cells)
        frame.insert(0, "System", systems)
        frame.insert(0, "#", letters)
        return frame

    def footer(self) -> str:
        s = self.settings
        corr = CORRECTION_NAMES
        against = (f"against the baseline {s['baseline']!r}" if s.get("baseline") is not None
                   else "between every pair of systems")
        marked = bool((self.table["mark"] != "").any()) if "mark" in self.table else True
        if s["correction"] in FAMILY_TESTS:
            name = "Tukey's HSD" if s["correction"] == "tukey" else "randomised Tukey HSD"
            how = (f"({name} over every pair of the systems of each measure, p < "
                   f"{s['alpha']:g}; the p_value column holds the uncorrected {s['test']} "
                   f"test {against}; {s['resamples']})")
        else:
            how = (f"({s['test']} test {against}, {corr[s['correction']]} p < {s['alpha']:g} "
                   f"within each {s['family']}; {s['resamples']})")
        head = (f"Superscripts: significantly better than that system {how}." if marked else
                f"No superscripts: no difference is significant {how}.")
        return (f"{head} Intervals (in the table's ci and diff columns): "
                f"{s['confidence']:.0%} {s['ci_method']} bootstrap, {s['n_resamples']} "
                f"resamples, seed {s['seed']}.")

    def sizes_statement(self) -> str:
        """One sentence per measure: how many topics would detect ``delta`` (empty without
        it; see :func:`compare`)."""
        if self.sizes is None or not len(self.sizes):
            return ""
        s = self.settings
        out = []
        for m, g in self.sizes.groupby("measure", sort=False):
            pairs = g[g.design == "paired t-test"]
            anova = g[g.design == "one-way ANOVA"].iloc[0]
            n = lambda v: "-" if v != v else f"{int(v):,}"
            each = "; ".join(f"{r.systems} {n(r.topics)} (normal approximation {n(r.topics_normal)})"
                             for r in pairs.itertuples())
            out.append(f"{m}: topics needed to detect a difference of {s['delta']:g} with power "
                       f"{s['power']:g} at level {s['alpha']:g} (Sakai's topic set size design; "
                       f"{int(anova.n_queries)} in the data): paired t-test, from each pair's "
                       f"observed variance: {each}; one-way ANOVA over the "
                       f"{anova.systems.removeprefix('all ')}, a range of {s['delta']:g} "
                       f"between the best and the worst: {n(anova.topics)}")
        return "\n".join(out)

    def report(self, decimals: int = 4) -> str:
        """The table as text, laid out like ranx's report, with a footer saying how."""
        frame = self.wide(decimals)
        cols = list(frame.columns)
        rows = [[str(v) for v in r] for r in frame.itertuples(index=False)]
        width = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
        line = lambda vals: "  ".join(v.ljust(w) for v, w in zip(vals, width)).rstrip()
        out = [line(cols), line(["-" * w for w in width])] + [line(r) for r in rows]
        import textwrap

        return "\n".join(out) + "\n\n" + textwrap.fill(self.footer(), width=92)

    def __str__(self) -> str:
        return self.report()

    def to_latex(self, decimals: int = 4, caption: Optional[str] = None,
                 label: Optional[str] = None) -> str:
        """A booktabs LaTeX table: systems by measures, marks as superscripts."""
        t = self.table
        measures = list(dict.fromkeys(t.measure))
        systems = list(dict.fromkeys(t.system))

        def esc(s):
            for a, b in (("\\", "\\textbackslash{}"), ("&", "\\&"), ("%", "\\%"), ("_", "\\_"),
                         ("#", "\\#"), ("$", "\\$"), ("{", "\\{"), ("}", "\\}")):
                s = s.replace(a, b)
            return s

        lines = []
        if caption or label:
            lines += ["\\begin{table}", "\\centering"]
        lines += ["\\begin{tabular}{ll" + "r" * len(measures) + "}", "\\toprule",
                  " & System & " + " & ".join(esc(m) for m in measures) + " \\\\", "\\midrule"]
        for s in systems:
            g = t[t.system == s].set_index("measure")
            cells = []
            for m in measures:
                r = g.loc[m]
                cell = f"{r['mean']:.{decimals}f}"
                if r["mark"]:
                    cell += f"$^{{{r['mark']}}}$"
                cells.append(cell)
            lines.append(f"{g['letter'].iloc[0]} & {esc(s)} & " + " & ".join(cells) + " \\\\")
        lines += ["\\bottomrule", "\\end{tabular}"]
        if caption:
            lines.append(f"\\caption{{{esc(caption)}}}")
        if label:
            lines.append(f"\\label{{{label}}}")
        if caption or label:
            lines.append("\\end{table}")
        return "\n".join(lines) + "\n"

    def _repr_markdown_(self) -> str:
        frame = self.wide()
        head = "| " + " | ".join(frame.columns) + " |\n|" + "---|" * len(frame.columns) + "\n"
        body = "".join("| " + " | ".join(str(v) for v in r) + " |\n"
                       for r in frame.itertuples(index=False))
        return head + body + "\n" + self.footer()


def _tidy_input(per_query, measures, missing):
    """{measure: (systems list, queries list, matrix systems x queries)} from either layout."""
    if not isinstance(per_query, pd.DataFrame):
        raise ValueError("per_query must be a pandas DataFrame: systems x queries (wide) or a "
                         "tidy table with columns system, query_id, measure, value")
    tidy_cols = {"system", "query_id", "value"}
    if tidy_cols <= set(per_query.columns):
        df = per_query
        if "measure" not in df.columns:
            df = df.assign(measure="value" if measures is None or isinstance(measures, (list, tuple))
                           else measures)
        dup = df.duplicated(["system", "query_id", "measure"])
        if dup.any():
            r = df[dup].iloc[0]
            raise ValueError(f"per_query repeats system {r.system!r}, query {r.query_id!r}, "
                             f"measure {r.measure!r}: give each score once")
        found = list(pd.unique(df["measure"]))
        if measures is None:
            wanted = found
        else:
            wanted = [measures] if isinstance(measures, str) else list(measures)
            unknown = [m for m in wanted if m not in found]
            if unknown:
                raise ValueError(f"measure(s) {unknown} not in per_query; it holds {found}")
        try:
            values = pd.to_numeric(df["value"])
        except (TypeError, ValueError):
            raise ValueError("per_query's value column must hold numbers") from None
        df = df.assign(value=values.astype(float))
        out = {}
        for m in wanted:
            sub = df[df["measure"] == m]
            wide = sub.pivot(index="system", columns="query_id", values="value")
            wide = wide.reindex(index=list(pd.unique(sub["system"])),
                                columns=list(pd.unique(sub["query_id"])))
            out[m] = wide
    else:
        wide = per_query
        if measures is not None and not isinstance(measures, str):
            if len(measures) != 1:
                raise ValueError("a wide per_query table (systems x queries) holds one measure; "
                                 "give measures as one name, or pass the tidy layout (system, "
                                 "query_id, measure, value)")
            measures = measures[0]
        try:
            wide = wide.apply(pd.to_numeric).astype(float)
        except (TypeError, ValueError):
            raise ValueError("a wide per_query table (systems x queries) must hold numbers only; "
                             "for the tidy layout give columns system, query_id, measure, value"
                             ) from None
        out = {measures or "value": wide}
    result = {}
    for m, wide in out.items():
        systems = [str(s) for s in wide.index]
        if len(set(systems)) != len(systems):
            raise ValueError(f"measure {m!r}: system names repeat: {systems}")
        M = wide.to_numpy(dtype=float)
        bad = ~np.isfinite(M)
        queries = list(wide.columns)
        if bad.any():
            if missing == "error":
                i, j = np.argwhere(bad)[0]
                n_bad = int(bad.any(axis=0).sum())
                raise ValueError(
                    f"measure {m!r}: system {systems[i]!r} has no (finite) score for query "
                    f"{queries[j]!r}, and {n_bad} queries lack a score for some system. Paired "
                    "tests need every system scored on the same queries: pass missing='zero' "
                    "(trec_eval's convention: an unanswered query scores 0) or missing='drop' "
                    "(compare on the queries every system has)")
            if missing == "zero":
                M = np.where(bad, 0.0, M)
            else:
                keep = ~bad.any(axis=0)
                M = M[:, keep]
                queries = [q for q, k in zip(queries, keep) if k]
        if M.shape[1] < 2:
            raise ValueError(f"measure {m!r}: at least 2 queries are needed, found {M.shape[1]}")
        if M.shape[0] < 2:
            raise ValueError(f"measure {m!r}: at least 2 systems are needed to compare, found "
                             f"{M.shape[0]}")
        result[m] = (systems, queries, M)
    return result


def compare(per_query, baseline: Optional[str] = None, measures=None,
            test: str = "randomization", correction: str = "holm", *, alpha: float = 0.05,
            confidence: float = 0.95, ci_method: str = "bca", n_resamples: int = 10000,
            seed=0, missing: str = "error", family: str = "measure",
            max_exact: int = 20, delta: Optional[float] = None,
            power: float = 0.8) -> Comparison:
    """Compare systems scored on the same queries: means, intervals, tests, corrected p-values.

    For every measure: the mean of each system with its bootstrap interval; then either the
    difference of each system to ``baseline`` (interval, effect size :math:`d_z`, p-value of
    the paired ``test``) or, without a baseline, every pair of systems. The p-values of one
    family (``family="measure"``: the tests of one measure; ``"all"``: every test in the
    table) are adjusted with :func:`correct`, and a system is marked with the letter of each
    system it beats at corrected p < ``alpha`` (the convention of ranx's report,
    Bassani :cite:`bassani2022ranx`). ``str(result)`` prints that report; ``result.table``
    and ``result.pairs`` hold every number, and ``result.to_latex()`` renders it.

    The tied-with-the-best set (``result.tied_with_best()``, ``result.tied_statement()``,
    ``table["tied_with_best"]``): for each measure, the system of highest mean and every system
    whose difference from it is not significant, testing the best against each of the ``S - 1``
    others with ``test`` (two-sided) and applying ``correction`` to those ``S - 1`` p-values.
    These tests are run whether or not a baseline is given, so the set does not depend on it.
    The best is chosen from the same data, so "tied" reads as "not shown worse than the best",
    not as "equal".

    All systems are resampled with the same query indices (bootstrap) and the same sign
    assignments (randomisation test), and the work is shared: one matrix product per block of
    resamples whatever the number of systems or pairs.

    Parameters
    ----------
    per_query : pandas.DataFrame
        Either *tidy*, with columns ``system``, ``query_id``, ``measure``, ``value`` (e.g.
        several ``rankbook.ir`` per-query tables stacked with a ``system`` column), or *wide*:
        one row per system (index) and one column per query, for one measure.
    baseline : str, optional
        The system the others are compared with; without it every pair is tested.
    measures : str or list of str, optional
        Measures to compare (default: all, in order of appearance); the name of the measure
        of a wide table.
    test : {"randomization", "t", "wilcoxon"}
        See :func:`paired_test`.
    correction : {"holm", "bonferroni", "bh", "by", "none", "tukey", "randomized-tukey"}
        A correction of the paired tests' p-values (:func:`correct`), or a test of the whole
        family of one measure's systems at once: ``"tukey"`` (Tukey's HSD, topics as blocks,
        :func:`tukey_hsd`) or ``"randomized-tukey"`` (:func:`randomized_tukey_hsd`, with
        ``n_resamples`` and ``seed``), whose adjusted p-value of each pair is ``p_corrected``
        (``p_value`` stays the paired test's). These always take every pair of the measure's
        systems as the family, with a baseline too, and need ``family="measure"``.
    alpha, confidence : float
    ci_method : {"bca", "percentile"}
    n_resamples : int
        Bootstrap resamples, and Monte Carlo sign assignments when the randomisation test is
        not exact (exact when the number of queries is at most ``max_exact``).
    seed : int
    missing : {"error", "zero", "drop"}
        A system without a score for a query: refuse (default), score it 0 (trec_eval), or
        drop the query for that measure.
    family : {"measure", "all"}
    delta, power : float, optional
        With ``delta``, ``result.sizes`` holds topic set sizes (Sakai
        :cite:`sakai2016topic`): the topics each tested pair needs to detect a difference
        ``delta`` with probability ``power`` at level ``alpha``, from its observed variance of
        per-topic differences (:func:`topic_set_size`, also its normal approximation), and the
        topics a one-way ANOVA of all the systems needs to detect a range ``delta``, from their
        pooled within-system variance (:func:`topic_set_size_anova`).

    Returns
    -------
    Comparison

    Examples
    --------
    >>> scores = pd.DataFrame({"q1": [0.50, 0.40, 0.52], "q2": [0.61, 0.55, 0.60],
    ...                        "q3": [0.42, 0.30, 0.45], "q4": [0.70, 0.61, 0.69],
    ...                        "q5": [0.33, 0.20, 0.35], "q6": [0.58, 0.49, 0.57]},
    ...                       index=["bm25", "tfidf", "dense"])
    >>> res = compare(scores, measures="nDCG@10", correction="none")
    >>> print(res.report().split("\\n\\n")[0])
    #  System  nDCG@10
    -  ------  -------
    a  bm25    0.5233ᵇ
    b  tfidf   0.4250
    c  dense   0.5300ᵇ
    >>> res.pairs[["system", "other", "p_value"]].values.tolist()
    [['bm25', 'tfidf', 0.03125], ['bm25', 'dense', 0.5], ['tfidf', 'dense', 0.03125]]
    >>> res.tied_with_best()
    {'nDCG@10': ['bm25', 'dense']}
    >>> print(res.tied_statement())  # doctest: +NORMALIZE_WHITESPACE
    nDCG@10: tied with the best (dense, highest mean): bm25, dense (difference from dense not
    significant: randomization test of dense against each of the 2 other systems, uncorrected
    over those 2 tests, p >= 0.05; these tests are a family of their own, apart from the
    table's marks)
    """
    args = _compare_args(test, correction, ci_method, missing, family, confidence, alpha,
                         n_resamples, seed, delta, power)
    data = _tidy_input(per_query, measures, missing)
    rows, pair_rows, best_rows, size_rows, how = [], [], [], [], set()
    for m, (systems, queries, M) in data.items():
        if baseline is not None and baseline not in systems:
            raise ValueError(f"baseline {baseline!r} is not among the systems of measure {m!r}: "
                             f"{systems}")
        pa, pb = _pairs_to_test(systems, baseline)
        means, lo, hi, theta_b, again = _system_intervals(M, args)
        pairs, h = _pair_tests(M, pa, pb, theta_b, again, args, max_exact)
        how |= h
        family_p = _family_pvalues(M, args, max_exact)
        best_rows.extend(_tied_with_best(M, systems, means, m, args["test"], correction, alpha,
                                         n_resamples, args["seed"], max_exact, family_p))
        S, q = M.shape
        for k in range(len(pa)):
            row = {"measure": m, "system": systems[pa[k]], "other": systems[pb[k]]}
            row.update({c: pairs[c][k] for c in ("diff", "diff_low", "diff_high",
                                                 "effect_size")})
            row.update(p_value=float(pairs["p"][k]), n_queries=q)
            if family_p is not None:
                row["p_family"] = float(family_p[pa[k], pb[k]])
            pair_rows.append(row)
        letters = _letters(S)
        for i, s in enumerate(systems):
            rows.append({"system": s, "letter": letters[i], "measure": m, "mean": means[i],
                         "ci_low": lo[i], "ci_high": hi[i], "n_queries": q})
        if args["delta"] is not None:
            size_rows.extend(_size_rows(m, M, systems, pa, pb, args))
    pairs = _corrected_pairs(pd.DataFrame(pair_rows), correction, family, alpha)
    table = _system_table(pd.DataFrame(rows), pairs, pd.DataFrame(best_rows), baseline)
    if args["test"] == "randomization":
        resamples = "; ".join(sorted(how))
    else:
        resamples = "no resampling for the test"
    if correction == "randomized-tukey":
        resamples += f"; randomised Tukey HSD: {args['family_how']}"
    settings = dict(baseline=baseline, test=args["test"], correction=correction,
                    alpha=float(alpha), confidence=args["confidence"], ci_method=ci_method,
                    n_resamples=n_resamples,
                    seed=seed if not isinstance(seed, np.random.Generator) else "generator",
                    family=family, missing=missing, resamples=resamples)
    if args["delta"] is not None:
        settings.update(delta=args["delta"], power=args["power"])
    sizes = pd.DataFrame(size_rows, columns=_SIZE_COLUMNS)
    return Comparison(table=table, pairs=pairs, settings=settings, best=pd.DataFrame(best_rows),
                      sizes=sizes)


def _compare_args(test, correction, ci_method, missing, family, confidence, alpha,
                  n_resamples, seed, delta, power) -> dict:
    """:func:`compare`'s options, checked, in one dict (``test`` under its canonical name)."""
    test = _check_test(test)
    check_choice(correction, COMPARE_CORRECTIONS, "correction")
    check_choice(ci_method, CI_METHODS, "ci_method")
    check_choice(missing, ("error", "zero", "drop"), "missing")
    check_choice(family, ("measure", "all"), "family")
    if family == "all" and correction in FAMILY_TESTS:
        raise ValueError(f"correction {correction!r} adjusts the pairs of the systems of one "
                         "measure at a time (a studentized range over them); use "
                         "family='measure', or a p-value correction (holm, bonferroni, bh, by) "
                         "for family='all'")
    confidence = _check_confidence(confidence)
    alpha = check_number(alpha, "alpha", low=0, high=1, low_open=True, high_open=True)
    n_resamples = _check_resamples(n_resamples, confidence, test=True)
    if delta is not None:
        delta = _check_positive(delta, "delta")
        power = _check_level(power, "power", 0.8)
    return dict(test=test, correction=correction, ci_method=ci_method, confidence=confidence,
                alpha=float(alpha), n_resamples=n_resamples, seed=_check_seed(seed),
                delta=delta, power=power, family_how="")


def _pairs_to_test(systems, baseline):
    """Indices (a, b) of the pairs tested: each system against the baseline, or every pair."""
    S = len(systems)
    if baseline is not None:
        b = systems.index(baseline)
        pa = np.array([i for i in range(S) if i != b], dtype=np.int64)
        return pa, np.full(pa.size, b, dtype=np.int64)
    return np.triu_indices(S, 1)


def _system_intervals(M, args):
    """Each system's mean and bootstrap interval, the bootstrap means (systems x resamples) and
    a generator in the state before the draws (the differences' near ties redraw them)."""
    rng = _bootstrap_rng(args["seed"])
    again = copy.deepcopy(rng)  # the same draws once more, for the differences' near ties
    means = M.mean(axis=1)
    bca = args["ci_method"] == "bca"  # BCa counts the resamples tied with the estimate: in
    theta_b = _resample_means(M, args["n_resamples"], rng, means if bca else None)  # scipy's
    accel = _accel_mean(M) if bca else None  # arithmetic, as bootstrap_ci does
    lo, hi, _ = _interval_from_distribution(means, theta_b, accel, args["confidence"],
                                            args["ci_method"])
    return means, lo, hi, theta_b, again


def _pair_tests(M, pa, pb, theta_b, again, args, max_exact):
    """Per tested pair: the mean difference with its bootstrap interval, the effect size and
    the paired test's p-value, in blocks of pairs (bounded memory)."""
    S, q = M.shape
    K = pa.size
    bca = args["ci_method"] == "bca"
    test = args["test"]
    diff, sums, absd = np.empty(K), np.empty(K), np.empty(K)
    eff, daccel, p = np.empty(K), np.empty(K), np.empty(K)
    step = max(1, _BLOCK_CELLS // q)
    for k0 in range(0, K, step):
        sl = slice(k0, k0 + step)
        D = M[pa[sl]] - M[pb[sl]]
        sums[sl] = D.sum(axis=1)
        diff[sl] = sums[sl] / q
        absd[sl] = np.abs(D).sum(axis=1)
        eff[sl] = cohens_dz(D)
        if bca:
            daccel[sl] = _accel_mean(D)
        if test == "t":
            p[sl] = _p_t(D, "two-sided")[1]
        elif test == "wilcoxon":
            p[sl] = _p_wilcoxon(D, "two-sided")[1]
    dboot = theta_b[pa] - theta_b[pb]
    if bca:  # the interval of a difference is scipy's bootstrap of the paired differences
        _exact_near_ties(dboot, diff, lambda ks: M[pa[ks]] - M[pb[ks]], q, again)
    dlo, dhi, _ = _interval_from_distribution(diff, dboot, daccel if bca else None,
                                              args["confidence"], args["ci_method"])
    how = set()
    if test == "randomization":
        _, p, h = _signflip_counts(M, pa, pb, "two-sided", None, args["n_resamples"],
                                   args["seed"], max_exact, T=sums, absd=absd)
        how.add(h)
    return {"diff": diff, "diff_low": dlo, "diff_high": dhi, "effect_size": eff, "p": p}, how


def _family_pvalues(M, args, max_exact):
    """Tukey's HSD p-values of every pair of systems (a matrix), for the corrections that test
    the whole family at once; ``None`` for the p-value corrections."""
    if args["correction"] == "tukey":
        return tukey_hsd(M, "two-way").pvalue
    if args["correction"] == "randomized-tukey":
        res = randomized_tukey_hsd(M, n_resamples=args["n_resamples"], seed=args["seed"])
        args["family_how"] = res.resamples
        return res.pvalue
    return None


def _corrected_pairs(pairs: pd.DataFrame, correction, family, alpha) -> pd.DataFrame:
    """``pairs`` with ``p_corrected`` (within each measure, or over the whole table) and the
    two significance flags."""
    if correction in FAMILY_TESTS:
        pairs["p_corrected"] = pairs.pop("p_family")
    elif family == "all":
        pairs["p_corrected"] = correct(pairs["p_value"].to_numpy(), correction)
    else:
        pairs["p_corrected"] = np.nan
        for m, idx in pairs.groupby("measure", sort=False).groups.items():
            pairs.loc[idx, "p_corrected"] = correct(pairs.loc[idx, "p_value"].to_numpy(),
                                                    correction)
    pairs["significant_uncorrected"] = pairs["p_value"] < alpha
    pairs["significant"] = pairs["p_corrected"] < alpha
    return pairs


def _system_table(table: pd.DataFrame, pairs: pd.DataFrame, best: pd.DataFrame,
                  baseline) -> pd.DataFrame:
    """One row per system and measure: means and intervals, the marks (the letters of the
    systems it beats), the baseline test's columns and the tied-with-the-best flag."""
    letter_of = dict(zip(table.system, table.letter))
    marks = {}
    for r in pairs.itertuples():
        if r.significant:
            winner, loser = (r.system, r.other) if r.diff > 0 else (r.other, r.system)
            marks.setdefault((r.measure, winner), []).append(letter_of[loser])
    # one-letter codes run together (ranx's "ab"); longer codes are separated by commas, so a
    # mark reads back unambiguously ("a,ab" is not "aa,b")
    sep = "" if all(len(c) == 1 for c in letter_of.values()) else ","
    table["mark"] = [sep.join(sorted(marks.get((m, s), []), key=lambda c: (len(c), c)))
                     for m, s in zip(table.measure, table.system)]
    cols = ["diff", "diff_low", "diff_high", "effect_size", "p_value", "p_corrected", "significant"]
    if baseline is not None:
        extra = pairs.set_index(["measure", "system"])[cols]
        table = table.join(extra, on=["measure", "system"])
        table["significant"] = table["significant"].astype("boolean")
    else:
        for c in cols:
            table[c] = np.nan if c != "significant" else pd.array([pd.NA] * len(table), "boolean")
    tied = dict(zip(zip(best.measure, best.system), best.tied))
    table["tied_with_best"] = [bool(tied[(m, s)]) for m, s in zip(table.measure, table.system)]
    return table[["system", "letter", "measure", "mean", "ci_low", "ci_high"] + cols
                 + ["mark", "tied_with_best", "n_queries"]]


#: Columns of :attr:`Comparison.sizes`.
_SIZE_COLUMNS = ["measure", "design", "systems", "variance", "delta", "alpha", "power",
                 "topics", "topics_normal", "n_queries"]


def _size_rows(measure, M, systems, pa, pb, args) -> list:
    """Topic set sizes for one measure: each tested pair from its paired variance (paired
    t-test; and the normal approximation), and all systems from the pooled within-system
    variance (one-way ANOVA, Sakai's design)."""
    S, q = M.shape
    delta, power, alpha = args["delta"], args["power"], args["alpha"]
    rows = []
    for a, b in zip(pa, pb):
        sd = float(np.std(M[a] - M[b], ddof=1))
        t = topic_set_size(delta, sd, alpha, power) if sd > 0 else np.nan
        z = topic_set_size(delta, sd, alpha, power, "normal") if sd > 0 else np.nan
        rows.append({"measure": measure, "design": "paired t-test",
                     "systems": f"{systems[a]} vs {systems[b]}", "variance": sd ** 2,
                     "delta": delta, "alpha": alpha, "power": power, "topics": t,
                     "topics_normal": z, "n_queries": q})
    var = float(((M - M.mean(axis=1, keepdims=True)) ** 2).sum() / (S * (q - 1)))
    n = topic_set_size_anova(delta, var, S, alpha, power) if var > 0 else np.nan
    rows.append({"measure": measure, "design": "one-way ANOVA",
                 "systems": f"all {S} systems", "variance": var, "delta": delta,
                 "alpha": alpha, "power": power, "topics": n, "topics_normal": np.nan,
                 "n_queries": q})
    return rows


def _tied_with_best(M, systems, means, measure, test, correction, alpha, n_resamples, seed,
                    max_exact, family_p=None) -> list[dict]:
    """Rows of :attr:`Comparison.best` for one measure: the system of highest mean (the first
    of equal means) against each other system, ``test`` two-sided, ``correction`` over these
    ``S - 1`` tests (Tukey's corrections: the pairs' family p-values, ``family_p``)."""
    S, q = M.shape
    b = int(np.argmax(means))
    pa = np.array([i for i in range(S) if i != b], dtype=np.int64)
    pb = np.full(pa.size, b, dtype=np.int64)
    rows = [{"measure": measure, "system": systems[b], "best": systems[b], "diff": 0.0,
             "p_value": np.nan, "p_corrected": np.nan, "tied": True}]
    if pa.size == 0:
        return rows
    D = M[pa] - M[pb]
    if test == "t":
        p = _p_t(D, "two-sided")[1]
    elif test == "wilcoxon":
        p = _p_wilcoxon(D, "two-sided")[1]
    else:
        _, p, _ = _signflip_counts(M, pa, pb, "two-sided", None, n_resamples, seed, max_exact,
                                   T=D.sum(axis=1), absd=np.abs(D).sum(axis=1))
    p = np.asarray(p, dtype=float)
    pc = family_p[pa, pb] if family_p is not None else correct(p, correction)
    for k, i in enumerate(pa):
        rows.append({"measure": measure, "system": systems[i], "best": systems[b],
                     "diff": float(D[k].mean()), "p_value": float(p[k]),
                     "p_corrected": float(pc[k]),
                     "tied": bool(not pc[k] < alpha)})
    order = {s: j for j, s in enumerate(systems)}
    return sorted(rows, key=lambda r: order[r["system"]])


# ----------------------------------------------------------------------------------------------
# a simulated benchmark


def _simulate(effects, n_queries, noise, difficulty, seed) -> np.ndarray:
    rng = np.random.default_rng(seed)
    u = rng.normal(0.0, difficulty, size=n_queries)
    eps = rng.normal(0.0, noise, size=(len(effects), n_queries))
    return _special.expit(np.asarray(effects, dtype=float)[:, None] + u[None, :] + eps)


def simulate_benchmark(effects: Sequence[float], n_queries: int = 50, *, noise: float = 0.5,
                       difficulty: float = 1.0, seed=0, names: Optional[Sequence[str]] = None,
                       measure: str = "score") -> pd.DataFrame:
    """Per-query scores of systems whose true differences are known, as a tidy table.

    Each query has a difficulty :math:`u_j \\sim N(0, \\text{difficulty}^2)` shared by all
    systems, and system :math:`i` scores

    .. math::

        x_{ij} = \\operatorname{logistic}(\\delta_i + u_j + \\varepsilon_{ij}), \\qquad
        \\varepsilon_{ij} \\sim N(0, \\text{noise}^2),

    a value in (0, 1) like nDCG or AP. Systems with equal :math:`\\delta_i` (``effects``) are
    exchangeable, so any significant difference between them is a false discovery; a larger
    :math:`\\delta` means a truly better system. The shared difficulty makes the scores of one
    query correlated across systems, as in real test collections, which is why paired tests
    are used.

    Parameters
    ----------
    effects : sequence of float
        The true effect :math:`\\delta_i` of each system.
    n_queries : int
        Queries, at least 2.
    noise : float
        Standard deviation of the per-score noise, >= 0.
    difficulty : float
        Standard deviation of the query difficulty, >= 0.
    seed : int, numpy.random.Generator or None
        Seed of the draw.
    names : sequence of str, optional
        The systems' names (default ``s1, s2, ...``).
    measure : str
        The value of the ``measure`` column.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``query_id``, ``measure``, ``value`` (the layout of
        :func:`compare`); ``attrs["effects"]`` maps each system to its :math:`\\delta`.

    Examples
    --------
    >>> df = simulate_benchmark([0.0, 0.0, 0.3], n_queries=4, seed=1)
    >>> df.shape, sorted(df.system.unique())
    ((12, 4), ['s1', 's2', 's3'])
    """
    effects = [float(e) for e in effects]
    if len(effects) < 2:
        raise ValueError("effects needs one value per system, at least 2 systems")
    n_queries = check_int(n_queries, "n_queries", low=2)
    if not noise >= 0 or not difficulty >= 0:
        raise ValueError("noise and difficulty must be >= 0")
    names = [f"s{i + 1}" for i in range(len(effects))] if names is None else [str(n) for n in names]
    if len(names) != len(effects) or len(set(names)) != len(names):
        raise ValueError("names must give one distinct name per effect")
    x = _simulate(effects, n_queries, noise, difficulty, _check_seed(seed))
    qids = [f"q{j + 1}" for j in range(n_queries)]
    df = pd.DataFrame({"system": np.repeat(names, n_queries), "query_id": qids * len(effects),
                       "measure": measure, "value": x.ravel()})
    df.attrs["effects"] = dict(zip(names, effects))
    return df


def decision_rates(effects: Sequence[float], n_queries: int = 50, n_repeats: int = 200, *,
                   test: str = "randomization", alpha: float = 0.05,
                   corrections: Sequence[str] = CORRECTIONS, noise: float = 0.5,
                   n_resamples: int = 2000, seed=0) -> pd.DataFrame:
    """How often corrected and uncorrected decisions are right, on simulated benchmarks.

    ``effects[0]`` is the baseline; every other system is compared with it on
    ``n_repeats`` benchmarks of :func:`simulate_benchmark` (seeds ``seed``, ``seed + 1``,
    ...). The p-values of one benchmark are computed once and adjusted with each correction.
    A system with the baseline's effect is a *null* system (any rejection is a false
    discovery); the others are truly different.

    Parameters
    ----------
    effects : sequence of float
        The true effect :math:`\\delta_i` of each system; the first is the baseline.
    n_queries : int
        Queries per benchmark, at least 2.
    n_repeats : int
        Benchmarks simulated.
    test : {"randomization", "t", "wilcoxon"}
        The paired test.
    alpha : float
        The significance level, 0 < alpha < 1.
    corrections : sequence of str
        The corrections compared (:data:`CORRECTIONS`).
    noise : float
        As in :func:`simulate_benchmark`.
    n_resamples : int
        Resamples of a Monte Carlo test.
    seed : int
        The first benchmark's seed (an integer).

    Returns
    -------
    pandas.DataFrame
        One row per correction: ``familywise error`` (share of benchmarks with at least one
        false discovery), ``false discovery rate`` (mean over benchmarks of false / all
        discoveries, 0 when nothing is discovered), ``mean false discoveries``, ``power``
        (share of truly different systems detected, in the right direction), and the Wilson
        intervals (level 0.95) ``familywise low`` / ``familywise high`` and ``power low`` /
        ``power high``.

    Examples
    --------
    >>> t = decision_rates([0, 0, 0, 0, 1.0], n_queries=30, n_repeats=20, n_resamples=500)
    >>> t.set_index("correction").loc["bonferroni", "familywise error"] <= \\
    ...     t.set_index("correction").loc["none", "familywise error"]
    True
    """
    for c in corrections:
        check_choice(c, CORRECTIONS, "correction")
    effects = [float(e) for e in effects]
    n_repeats = check_int(n_repeats, "n_repeats", low=1)
    seed = _check_seed(seed)
    if not isinstance(seed, int):
        raise ValueError("decision_rates needs an integer seed (one benchmark per seed)")
    null = np.array([e == effects[0] for e in effects[1:]])
    sign = np.sign(np.array(effects[1:]) - effects[0])
    test = _check_test(test)
    pv, dirs = [], []
    pa = np.arange(1, len(effects))
    pb = np.zeros(pa.size, dtype=np.int64)
    for r in range(int(n_repeats)):
        # the same scores and p-values as compare(simulate_benchmark(..., seed=seed + r),
        # baseline=first system, seed=seed + r), without the tables
        M = _simulate(effects, n_queries, noise, 1.0, seed + r)
        D = M[pa] - M[pb]
        if test == "randomization":
            p = _signflip_counts(M, pa, pb, "two-sided", None, n_resamples, seed + r, 20)[1]
        elif test == "t":
            p = _p_t(D, "two-sided")[1]
        else:
            p = _p_wilcoxon(D, "two-sided")[1]
        pv.append(p)
        dirs.append(np.sign(D.mean(axis=1)))
    pv, dirs = np.array(pv), np.array(dirs)
    rows = []
    for c in corrections:
        adj = correct(pv, c)
        rej = adj < alpha
        false = (rej & null).sum(axis=1)
        true = (rej & ~null & (dirs == sign)).sum(axis=1)
        found = rej.sum(axis=1)
        fw = int((false > 0).sum())
        n_alt = int((~null).sum()) * len(pv)
        hits = int(true.sum())
        fw_lo, fw_hi = wilson_interval(fw, len(pv))
        pw_lo, pw_hi = wilson_interval(hits, n_alt) if n_alt else (np.nan, np.nan)
        rows.append({"correction": c, "familywise error": fw / len(pv),
                     "familywise low": fw_lo, "familywise high": fw_hi,
                     "false discovery rate": float(np.mean(np.where(found > 0, false / np.maximum(found, 1), 0.0))),
                     "mean false discoveries": float(false.mean()),
                     "power": hits / n_alt if n_alt else float("nan"),
                     "power low": pw_lo, "power high": pw_hi})
    return pd.DataFrame(rows)


def expected_scores(effects: Sequence[float], *, noise: float = 0.5,
                    difficulty: float = 1.0) -> np.ndarray:
    """The true mean score of each system of :func:`simulate_benchmark`.

    .. math::

        \\mathbb E[x_i] = \\mathbb E[\\operatorname{logistic}(\\delta_i + \\sigma Z)], \\qquad
        \\sigma^2 = \\text{difficulty}^2 + \\text{noise}^2, \\; Z \\sim N(0, 1),

    by 101-point Gauss-Hermite quadrature (accurate to about 1e-12 here). The true
    difference of two systems is the difference of their expected scores.

    Parameters
    ----------
    effects : sequence of float
        The true effect :math:`\\delta_i` of each system.
    noise, difficulty : float
        As in :func:`simulate_benchmark`.

    Returns
    -------
    ndarray of float, shape (len(effects),)

    Examples
    --------
    >>> expected_scores([0.0, 1.0]).round(4).tolist()
    [0.5, 0.6905]
    """
    z, w = np.polynomial.hermite_e.hermegauss(101)
    sigma = math.sqrt(float(difficulty) ** 2 + float(noise) ** 2)
    e = np.asarray(effects, dtype=float)
    return (_special.expit(e[:, None] + sigma * z[None, :]) * w).sum(axis=1) / w.sum()


# ----------------------------------------------------------------------------------------------
# rank correlations: the intervals and tests scipy does not give (issue 31, item 4)

#: The rank correlations :func:`rank_correlation_ci` bootstraps, with the scipy function and
#: arguments each is computed with.
RANK_CORRELATIONS = ("tau_b", "tau_c", "somers_d")


def _rank_correlation(name: str) -> Callable:
    if name == "tau_b":
        return lambda x, y: _sps.kendalltau(x, y, variant="b").statistic
    if name == "tau_c":
        return lambda x, y: _sps.kendalltau(x, y, variant="c").statistic
    if name == "somers_d":
        return lambda x, y: _sps.somersd(x, y).statistic
    raise ValueError(f"unknown rank correlation {name!r}; valid: {list(RANK_CORRELATIONS)}")


def _paired_values(x, y, min_len: int = 3):
    try:
        a = np.asarray(x, dtype=np.float64).reshape(-1)
        b = np.asarray(y, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError("x and y must be sequences of numbers") from None
    if a.shape != b.shape:
        raise ValueError(f"x and y must have the same length, got {a.size} and {b.size}")
    if a.size < min_len:
        raise ValueError(f"need at least {min_len} pairs, got {a.size}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("x and y must be finite (no nan or inf)")
    return a, b


def rank_correlation_ci(x, y, measure: str = "tau_b", confidence: float = 0.95,
                        method: str = "bca", n_resamples: int = 9999, seed=0) -> BootstrapCI:
    """Bootstrap interval of Kendall's :math:`\\tau_b`, Stuart's :math:`\\tau_c` or Somers'
    :math:`D(Y \\mid X)` of paired observations, which ``scipy.stats.kendalltau`` and
    ``scipy.stats.somersd`` give without one.

    The pairs :math:`(x_i, y_i)` are resampled together (a case bootstrap), ``n_resamples``
    times, with the index rows :func:`scipy.stats.bootstrap` draws for ``paired=True`` and the
    same seed, and the statistic recomputed on each resample with scipy's own function (ties
    handled as scipy handles them: :math:`\\tau_b` divides by the geometric mean of the untied
    pair counts, :math:`\\tau_c = 2m(n_c - n_d)/(n^2 (m-1))` with :math:`m` the smaller number
    of distinct values, :math:`D = (n_c - n_d)/(\\text{pairs untied in } x)`). ``"bca"`` uses
    the jackknife over pairs for the acceleration. A resample whose statistic is undefined
    (every resampled x tied) is ``nan``; the interval is then undefined and returned as
    ``nan`` with the reason in ``fallback``.

    Parameters
    ----------
    x, y : array_like of shape (n,)
        Paired observations (scores or ranks), ties allowed.
    measure : {"tau_b", "tau_c", "somers_d"}
    confidence, method, n_resamples, seed
        As for :func:`bootstrap_ci`.

    Returns
    -------
    BootstrapCI

    Examples
    --------
    >>> x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    >>> y = [2, 1, 4, 3, 6, 5, 8, 7, 10, 9]
    >>> ci = rank_correlation_ci(x, y, n_resamples=999, seed=1)
    >>> round(ci.estimate, 4), bool(ci.low < ci.estimate < ci.high <= 1)
    (0.7778, True)
    """
    check_choice(method, CI_METHODS, "method")
    confidence = _check_confidence(confidence)
    n_resamples = _check_resamples(n_resamples, confidence)
    seed = _check_seed(seed)
    stat = _rank_correlation(measure)
    a, b = _paired_values(x, y)
    n = a.size
    theta_hat = np.array([stat(a, b)], dtype=np.float64)
    rng = _bootstrap_rng(seed)
    idx = rng.integers(0, n, size=(n_resamples, n))
    import warnings

    with warnings.catch_warnings():  # a resample with every x tied: scipy warns, we record nan
        warnings.simplefilter("ignore")
        theta_b = np.array([[stat(a[i], b[i]) for i in idx]], dtype=np.float64)
        a_hat = None
        if method == "bca":
            keep = ~np.eye(n, dtype=bool)
            jack = np.array([[stat(a[k], b[k]) for k in keep]], dtype=np.float64)
            a_hat = _accel_from_jackknife(jack)
    if not np.isfinite(theta_hat).all() or not np.isfinite(theta_b).all():
        nan = float("nan")
        return BootstrapCI(float(theta_hat[0]), nan, nan, nan, n_resamples, method, confidence,
                           f"{measure} is undefined on the data or on some resamples (every x "
                           "or every y tied): no interval")
    low, high, ok = _interval_from_distribution(theta_hat, theta_b, a_hat, confidence, method)
    fallback = ""
    if method == "bca" and not ok.all():
        method, fallback = "percentile", ("BCa is undefined: the bootstrap distribution is "
                                          "degenerate, so the percentile interval is given")
    se = float(theta_b.std(ddof=1)) if n_resamples > 1 else float("nan")
    return BootstrapCI(float(theta_hat[0]), float(low[0]), float(high[0]), se, n_resamples,
                       method, confidence, fallback)


class PermutationResult(NamedTuple):
    """A statistic with its permutation p-value: ``statistic``, ``pvalue``, ``n_resamples``
    (0 when every permutation was enumerated), ``alternative``."""

    statistic: float
    pvalue: float
    n_resamples: int
    alternative: str


def weightedtau_test(x, y, *, alternative: str = "two-sided", n_resamples: int = 9999,
                     seed=0, **weightedtau_kwargs) -> PermutationResult:
    """Weighted Kendall's :math:`\\tau` (``scipy.stats.weightedtau``, Vigna's
    :cite:`vigna2015weighted`) with a permutation p-value, where scipy always returns ``nan``.

    Under the null hypothesis that x and y are unrelated, every pairing of the y values with the
    x values is equally likely: y is permuted ``n_resamples`` times and the p-value is
    :math:`(1 + \\#\\{\\text{permuted statistic at least as extreme}\\}) / (1 +
    \\text{n\\_resamples})` (Phipson and Smyth :cite:`phipson2010permutation`); two-sided is
    twice the smaller one-sided p-value, capped at 1 (the null distribution of :math:`\\tau_w`
    is not symmetric), as ``scipy.stats.permutation_test(..., permutation_type="pairings")``
    computes it. With at most 8 pairs every permutation is enumerated and the p-value is exact
    (equal to scipy's enumeration); above that, y is permuted with this function's own stream
    of the seed.

    Parameters
    ----------
    x, y : array_like of float, shape (n,)
        Paired values.
    alternative : {"two-sided", "greater", "less"}
        The alternative hypothesis on :math:`\\tau_w`.
    n_resamples : int
        Permutations drawn above 8 pairs.
    seed : int, numpy.random.Generator or None
        Seed of the permutations.
    **weightedtau_kwargs
        Passed to ``scipy.stats.weightedtau`` (``rank``, ``weigher``, ``additive``).

    Returns
    -------
    PermutationResult

    Examples
    --------
    >>> x = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]
    >>> r = weightedtau_test(x, x, n_resamples=999, seed=2)
    >>> round(r.statistic, 4), r.pvalue < 0.01
    (1.0, True)
    """
    check_choice(alternative, ALTERNATIVES, "alternative")
    n_resamples = _check_resamples(n_resamples, test=True)
    seed = _check_seed(seed)
    a, b = _paired_values(x, y)

    def stat(yy):
        return _sps.weightedtau(a, yy, **weightedtau_kwargs).statistic

    observed = float(stat(b))
    if not np.isfinite(observed):
        raise ValueError("weighted tau is undefined on these values (every x or every y tied)")
    n = a.size
    if math.factorial(n) <= max(n_resamples, 40320):
        import itertools

        null = np.array([stat(b[list(p)]) for p in itertools.permutations(range(n))])
        count_from, extra, used = null, 0, 0
    else:
        rng = _bootstrap_rng(seed)
        null = np.array([stat(rng.permutation(b)) for _ in range(n_resamples)])
        count_from, extra, used = null, 1, n_resamples
    eps = 1e-14 * max(1.0, abs(observed))
    greater = (np.count_nonzero(count_from >= observed - eps) + extra) / (count_from.size + extra)
    less = (np.count_nonzero(count_from <= observed + eps) + extra) / (count_from.size + extra)
    p = {"greater": greater, "less": less}.get(alternative, 2 * min(greater, less))
    return PermutationResult(observed, float(min(1.0, p)), used, alternative)
