"""Type I robustness (Definition 6 of :cite:`paperA`): how far a metric moves when one ranking
of a random pair is changed a little.

The two small changes are those of paper A's Table 2: one swap of two uniformly drawn
positions (eq. 5, ``"swap"``, rows I(a)) and the slide of the whole list up one place (eq. 6,
``"slide"``, rows I(b)). :func:`type_i_runs` simulates the mean absolute change of any metric
over independent runs of random pairs, :func:`summarize_runs` gives their mean and the spread
of one run, and :func:`cutoff_means` does the same for the metrics with a cut-off at many k at
once. The machinery is general (any metric, any n, any k); paper A's Table 2 page and
:func:`rankbook.profile.type_i_profile` both use it.

Conventions (those of :mod:`rankbook.permutations`): a ranking is a one-line array, ``r[i-1]``
the item at position i. The swap is ``nu o (i j)`` with a uniform pair of distinct positions;
the slide is ``nu o FC_n``, i.e. ``np.roll(nu, -1)``. Run r of size n with seed s draws its
rankings from the generator ``[s, n, r]``, so runs depend neither on k nor on the other sizes.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from rankbook import permutations
from rankbook._validation import check_choice

__all__ = ["CHANGES", "perturb", "type_i_runs", "summarize_runs", "draw_pairs", "moved_pairs",
           "type_i_means", "cutoff_means"]

#: The two small changes: ``swap`` = I(a), eq. 5 of paper A; ``slide`` = I(b), eq. 6.
CHANGES = ("swap", "slide")


def _evaluate_many(evaluate: Callable | None):
    if evaluate is not None:
        return evaluate
    from rankbook import metrics

    return metrics.evaluate_many


def _check_change(change: str) -> str:
    return check_choice(change, CHANGES, "change")


def perturb(nu: np.ndarray, change: str, rng: np.random.Generator | None = None,
            side: str = "right") -> np.ndarray:
    """Apply the small change of eq. 5 (``"swap"``) or eq. 6 (``"slide"``) to a batch of rankings.

    ``side="right"`` (the paper's ``nu o (i j)`` and ``nu o FC_n``) acts on positions: a swap
    exchanges the items at two uniformly drawn distinct positions, a slide moves every item up one
    place and the top item to the bottom. ``side="left"`` (``(i j) o nu``, ``FC_n o nu``) relabels
    items instead; it is one of the alternative readings tried for cells that do not reproduce.

    Parameters
    ----------
    nu : ndarray of int, shape (..., n)
        Rankings in one-line notation.
    change : {"swap", "slide"}
        The change of eq. 5 or eq. 6.
    rng : numpy.random.Generator, optional
        Draws the swapped positions (a fresh unseeded generator by default).
    side : {"right", "left"}
        Act on positions (the paper's) or on item labels.

    Returns
    -------
    ndarray of int64, shape of ``nu``
        The changed rankings.

    Examples
    --------
    >>> perturb(np.array([3, 1, 2, 4]), "slide")
    array([1, 2, 4, 3])
    >>> perturb(np.array([3, 1, 2, 4]), "slide", side="left")
    array([4, 2, 3, 1])
    """
    _check_change(change)
    check_choice(side, ("right", "left"), "side")
    nu = np.asarray(nu)
    n = nu.shape[-1]
    if change == "slide":
        fc = permutations.full_cycle(n)
        return np.roll(nu, -1, axis=-1) if side == "right" else fc[nu - 1]
    if rng is None:
        raise ValueError("a swap needs a random generator rng to draw the two positions")
    if n < 2:
        raise ValueError("a swap needs n >= 2")
    batch = nu.shape[:-1]
    i = rng.integers(1, n + 1, size=batch)
    j = (i - 1 + rng.integers(1, n, size=batch)) % n + 1  # uniform j != i
    t = permutations.transposition(n, i, j)
    if side == "right":
        return np.take_along_axis(nu, t - 1, axis=-1)  # nu o (i j)
    return np.take_along_axis(t, nu - 1, axis=-1)  # (i j) o nu


def _draw(n: int, n_pairs: int, n_runs: int, seed: int):
    """sigma and nu of shape (n_runs, n_pairs, n); run r uses the generator [seed, n, r].

    Parameters
    ----------
    n : int
        Length of the rankings.
    n_pairs : int
        Pairs per run.
    n_runs : int
        Runs.
    seed : int
        Seed; run r uses the generator ``[seed, n, r]``.

    Returns
    -------
    sigma, nu : ndarray of int64, shape (n_runs, n_pairs, n)
    """
    gens = [np.random.default_rng([seed, n, r]) for r in range(n_runs)]
    sigma = np.stack([permutations.random(n, n_pairs, rng=g) for g in gens])
    nu = np.stack([permutations.random(n, n_pairs, rng=g) for g in gens])
    return sigma, nu


def _moved(nu, change: str, seed: int, side: str = "right"):
    """nu after the change; the swap positions use the generator [seed, n, 10000 + change index].

    Parameters
    ----------
    nu : ndarray of int, shape (..., n)
        Rankings in one-line notation.
    change : {"swap", "slide"}
        The change.
    seed : int
        Seed of the swap positions.
    side : {"right", "left"}
        As in :func:`perturb`.

    Returns
    -------
    ndarray of int64, shape of ``nu``
    """
    rng = np.random.default_rng([seed, nu.shape[-1], 10_000 + CHANGES.index(change)])
    return perturb(nu, change, rng, side=side)


def _type_i_means(names, sigma, nu, moved: dict, k, ev, swap_args: bool = False):
    """{(metric, change): (per-run mean absolute change, per-run share of defined pairs)}.

    Parameters
    ----------
    names : sequence of str
        Metric names.
    sigma, nu : ndarray of int, shape (runs, pairs, n)
        The pairs of :func:`draw_pairs`.
    moved : dict
        ``{change: nu after the change}`` (:func:`moved_pairs`).
    k : int or None
        The cut-off.
    ev : callable
        ``ev(names, sigma, nu, k=k)`` returning ``{name: values}``.
    swap_args : bool
        Evaluate ``m(nu, sigma)`` instead.

    Returns
    -------
    dict
        ``{(metric, change): (means, defined)}``, two arrays of shape (runs,).
    """
    first, second = (nu, sigma) if swap_args else (sigma, nu)
    before = ev(names, first, second, k=k)
    out = {}
    for change, nu2 in moved.items():
        after = ev(names, nu2, sigma, k=k) if swap_args else ev(names, sigma, nu2, k=k)
        for m in names:
            with np.errstate(invalid="ignore"):
                d = np.abs(np.asarray(after[m], float) - np.asarray(before[m], float))
            ok = np.isfinite(d)
            with np.errstate(invalid="ignore", divide="ignore"):
                means = np.where(ok.any(-1), np.where(ok, d, 0).sum(-1) / ok.sum(-1), np.nan)
            out[(m, change)] = (means, ok.mean(-1))
    return out


def type_i_runs(names: Sequence[str], n: int, k: int | None, n_pairs: int = 1000,
                n_runs: int = 20, seed: int = 0, changes: Iterable[str] = CHANGES,
                evaluate: Callable | None = None, side: str = "right",
                swap_args: bool = False) -> pd.DataFrame:
    """Mean absolute change of each metric over ``n_runs`` independent runs of ``n_pairs`` random pairs.

    Each run draws sigma and nu uniformly from S_n (seed ``[seed, n, run]``, so runs do not depend
    on k or on the other sizes), applies the change to nu and averages
    ``|m(sigma, nu') - m(sigma, nu)|`` over the pairs. Undefined values (nan, e.g. LR+ when no
    false positive exists) are left out of that pair's average (``nanmean``); the column
    ``defined`` gives the share of pairs kept. All runs are evaluated as one batch.

    Returns a long table with columns ``metric, change, n, k, run, mean_abs_change, defined``.

    Parameters
    ----------
    names : sequence of str
        Metrics of :data:`rankbook.metrics.NAMES`.
    n : int
        Length of the rankings.
    k : int or None
        The cut-off of the metrics that need one.
    n_pairs : int
        Pairs per run.
    n_runs : int
        Independent runs.
    seed : int
        Seed of the runs.
    changes : iterable of {"swap", "slide"}
        The changes applied.
    evaluate : callable, optional
        ``evaluate(names, sigma, nu, k=k)`` returning ``{name: values}``;
        :func:`rankbook.metrics.evaluate_many` by default.
    side : {"right", "left"}
        As in :func:`perturb`.
    swap_args : bool
        Evaluate ``m(nu, sigma)`` instead of ``m(sigma, nu)`` (an alternative reading).

    Returns
    -------
    pandas.DataFrame
        The long table described above.

    Examples
    --------
    >>> runs = type_i_runs(["kendall_tau", "recall"], n=10, k=3, n_pairs=100, n_runs=2, changes=["swap"])
    >>> runs.columns.tolist()
    ['metric', 'change', 'n', 'k', 'run', 'mean_abs_change', 'defined']
    >>> len(runs)
    4
    """
    if n_pairs < 1 or n_runs < 1:
        raise ValueError(f"n_pairs and n_runs must be >= 1, got {n_pairs}, {n_runs}")
    changes = [_check_change(c) for c in changes]
    names = list(names)
    sigma, nu = _draw(n, n_pairs, n_runs, seed)
    moved = {c: _moved(nu, c, seed, side) for c in changes}
    res = _type_i_means(names, sigma, nu, moved, k, _evaluate_many(evaluate), swap_args)
    keys = [(m, c) for c in changes for m in names]
    return pd.DataFrame({
        "metric": np.repeat([m for m, _ in keys], n_runs),
        "change": np.repeat([c for _, c in keys], n_runs),
        "n": n, "k": k if k is not None else -1,
        "run": np.tile(np.arange(n_runs), len(keys)),
        "mean_abs_change": np.concatenate([res[key][0] for key in keys]),
        "defined": np.concatenate([res[key][1] for key in keys]),
    })


def summarize_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """Reproduced value (mean over runs) and sd (spread of one run) per metric, change, n, k.


    Parameters
    ----------
    runs : pandas.DataFrame
        The table of :func:`type_i_runs`.

    Returns
    -------
    pandas.DataFrame
        Columns ``metric, change, n, k, reproduced, sd, defined``.

    Examples
    --------
    >>> runs = type_i_runs(["kendall_tau"], n=10, k=None, n_pairs=100, n_runs=2, changes=["swap"])
    >>> summarize_runs(runs)[["metric", "change", "n"]].values.tolist()
    [['kendall_tau', 'swap', 10]]
    """
    g = runs.groupby(["metric", "change", "n", "k"], sort=False)
    out = g.agg(reproduced=("mean_abs_change", "mean"), sd=("mean_abs_change", "std"),
                defined=("defined", "mean")).reset_index()
    return out


def _cutoff_means(names, sigma, nu, moved: dict, ks) -> dict:
    """{(metric, change): per-run mean absolute change at every k of ``ks``, shape (runs, K)}.

    The k-dependent metrics at every cut-off in one pass per pair (:mod:`rankbook.cutoffs`),
    one run (block of pairs) at a time so that memory stays at one run's worth.

    Parameters
    ----------
    names : sequence of str
        The k-dependent metric names.
    sigma, nu : ndarray of int, shape (runs, pairs, n)
        The pairs of :func:`draw_pairs`.
    moved : dict
        ``{change: nu after the change}``.
    ks : sequence of int
        The cut-offs.

    Returns
    -------
    dict
        ``{(metric, change): ndarray of shape (runs, len(ks))}``.
    """
    from rankbook import cutoffs

    runs = sigma.shape[0]
    out = {(m, c): np.empty((runs, len(ks))) for m in names for c in moved}
    for r in range(runs):
        before = cutoffs.evaluate_cutoffs(names, sigma[r], nu[r], ks)
        for change, nu2 in moved.items():
            after = cutoffs.evaluate_cutoffs(names, sigma[r], nu2[r], ks)
            for m in names:
                with np.errstate(invalid="ignore"):
                    d = np.abs(after[m] - before[m])
                ok = np.isfinite(d)
                with np.errstate(invalid="ignore", divide="ignore"):
                    out[(m, change)][r] = np.where(ok.any(0), np.where(ok, d, 0).sum(0) / ok.sum(0),
                                                   np.nan)
    return out


#: Public names of the building blocks (the papers layer fits k and grades cells with them).
draw_pairs = _draw
moved_pairs = _moved
type_i_means = _type_i_means
cutoff_means = _cutoff_means
