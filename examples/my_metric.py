"""Example metrics to profile with the metric_profile notebook (rankbook run metric_profile).

A metric takes two rankings as permutations of 1..n (arrays, r[i-1] the item at position i) and
returns one number per pair; it may work on a batch of pairs (arrays of shape (B, n)). Add a
keyword argument k if the metric has a cut-off.

    rankbook run metric_profile -p metric examples/my_metric.py:footrule
"""

import numpy as np


def footrule(sigma, nu):
    """Spearman's footrule on the arrays: the sum over positions of |sigma(i) - nu(i)|."""
    return np.abs(np.asarray(sigma) - np.asarray(nu)).sum(axis=-1)


def top_weighted_kendall(sigma, nu, k=None):
    """A top-weighted Kendall distance: each discordant pair of positions (i, j), i < j, counts
    1 / i, so disagreements near the top weigh more (one pair at a time: not vectorised)."""
    sigma, nu = np.asarray(sigma), np.asarray(nu)
    n = len(sigma)
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            if (sigma[i] - sigma[j]) * (nu[i] - nu[j]) < 0:
                total += 1.0 / (i + 1)
    return total
