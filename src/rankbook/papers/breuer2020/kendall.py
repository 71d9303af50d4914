"""Which Kendall's τ the authors' files hold.

The main paper defines Kendall's τ Union (KTU) as Kendall's τ between the two runs' rankings of
the union of their documents. Kendall's τ between two rankings of ``k`` items without ties is a
multiple of :math:`1/\\binom{k}{2}`; over the union of two top-``k`` lists that share some but
not all documents there are more than ``k`` items and ties (the documents a run lacks), so the
value almost never lies on that grid. The statistic repro_eval and the authors' Matlab code
compute instead pairs the ``i``-th document of one run with the ``i``-th of the other
(:func:`rankbook.repro.ktu` with ``convention="repro_eval"``): ``k`` pairs without ties, always on
the grid. :func:`grid_share` measures how many values lie on it; :func:`check_tau_kind` compares
the authors' per-topic values with both statistics on simulated lists.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankbook import repro

from .data import SYSTEMS
from .tables import scores_of, show_table

__all__ = ["grid_share", "simulated_shares", "check_tau_kind"]


def grid_share(values, k: int, tolerance: float) -> float:
    """The share of ``values`` within ``tolerance`` (in units of :math:`1/\\binom{k}{2}`) of a
    multiple of :math:`1/\\binom{k}{2}`.

    Examples
    --------
    >>> grid_share([1.0, -1 / 45, 0.5 / 45], 10, 1e-6)
    0.6666666666666666
    """
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    x = v * (k * (k - 1) / 2)
    return float(np.mean(np.abs(x - np.round(x)) <= tolerance)) if len(v) else float("nan")


def _pair(rng, k, overlap, swaps):
    """Two top-k lists of random names: the second keeps each document of the first with
    probability ``overlap`` (a new one takes its place otherwise), then ``swaps`` pairs of
    neighbours are exchanged."""
    pool = [f"doc-{x:06x}" for x in rng.choice(16 ** 6, size=2 * k, replace=False)]
    a = list(pool[:k])
    keep = rng.random(k) < overlap
    b = [d if kept else pool[k + i] for i, (d, kept) in enumerate(zip(a, keep))]
    for i in rng.choice(k - 1, size=min(int(swaps), k - 1), replace=False):
        b[i], b[i + 1] = b[i + 1], b[i]
    return a, b


def simulated_shares(pairs: int, k: int, tolerance: float, seed: int, overlap, swaps) -> dict:
    """On ``pairs`` simulated pairs of overlapping top-``k`` lists (the share of documents kept
    drawn uniformly from the interval ``overlap``, ``swaps`` neighbour swaps), the share of
    values on the grid of Kendall's τ over the union, and of the position-paired statistic."""
    rng = np.random.default_rng(seed)
    union, paired = [], []
    for _ in range(int(pairs)):
        a, b = _pair(rng, int(k), rng.uniform(*overlap), swaps)
        union.append(repro.ktu(a, b))
        paired.append(repro.ktu(a, b, convention="repro_eval"))
    return {"union": grid_share(union, k, tolerance), "paired": grid_share(paired, k, tolerance)}


def check_tau_kind(claim, *, tokens=None, simulated=None):
    """The τ of appendix Table 1 and Figure 1 is Kendall's τ over the union of the two runs'
    documents (KTU). False when every per-topic value of the authors' files lies on the grid of a
    τ over ``k`` untied pairs at each cut-off (as the position-paired statistic always does)
    while τ over the union of overlapping lists lies on it at most ``union_share_max`` of the
    time (``claim.params``: ``cutoffs``, ``grid_tolerance``, ``pairs``, ``sim_k``, ``seed``,
    ``overlap``, ``swaps``, ``union_share_max``)."""
    p = claim.params
    scores = scores_of(claim, tokens)
    names = list(scores.constellations["name"])
    rows = []
    for role, system in SYSTEMS.items():
        for k in p["cutoffs"]:
            t = scores.frame("replicated", system, f"tau@{int(k)}")
            rbo = scores.runs("replicated", system, f"RBO@{int(k)}", names).to_numpy().mean()
            rows.append({"system": role, "cut-off": int(k), "values": int(t.size),
                         "on the grid": grid_share(t.to_numpy().ravel(), int(k),
                                                   p["grid_tolerance"]),
                         "mean τ (all 50 runs)": float(np.nanmean(t.to_numpy())),
                         "mean RBO (appendix runs)": float(rbo)})
    table = pd.DataFrame(rows)
    sim = simulated if simulated is not None else simulated_shares(
        p["pairs"], p["sim_k"], p["grid_tolerance"], p["seed"], p["overlap"], p["swaps"])
    authors_on_grid = bool((table["on the grid"] == 1.0).all())
    separates = sim["union"] <= p["union_share_max"] and sim["paired"] == 1.0
    holds = not (authors_on_grid and separates)
    ev = claim.evidence(
        comparison="claim", holds=holds,
        published="τ is Kendall's τ over the union of the two runs' documents (KTU)",
        reproduced=(f"{table['values'].sum()} per-topic values: "
                    f"{'all' if authors_on_grid else 'not all'} lie on the grid of a τ over k "
                    f"untied pairs at every cut-off; on {int(p['pairs'])} simulated pairs of "
                    f"overlapping top-{int(p['sim_k'])} lists, τ over the union lies on it "
                    f"{sim['union']:.0%} of the time, the position-paired statistic "
                    f"{sim['paired']:.0%}"))
    if not holds:
        at = table[table["cut-off"] == max(p["cutoffs"])]
        text = (f"every one of the {table['values'].sum()} per-topic τ values is a multiple of "
                "1/C(k, 2) at its cut-off k, as τ over k position pairs is and τ over the union "
                f"of overlapping lists is not ({sim['union']:.0%} of simulated pairs); at "
                f"k = {max(p['cutoffs'])} the mean τ is "
                + " and ".join(f"{r['mean τ (all 50 runs)']:.4f} ({r['system']})"
                               for _, r in at.iterrows())
                + " beside a mean RBO of "
                + " and ".join(f"{r['mean RBO (appendix runs)']:.2f}" for _, r in at.iterrows()))
        try:
            ev.findings.append(claim.finding("position_paired", evidence=text))
        except (KeyError, ValueError):
            pass
    show_table(ev, "grid", table, title="The authors' per-topic τ values on the grid of a τ over "
                                        "k untied pairs, per system and cut-off")
    return ev
