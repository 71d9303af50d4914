r"""The 33 metrics of :mod:`rankbook.metrics` on rankings with ties (weak orders).

A weak order of the items ``1..n`` (see :mod:`rankbook.ties`) is a ranking some of whose
consecutive positions hold tied items: ``[3, {1, 4}, 2]``, or a :class:`rankbook.ties.WeakOrder`
for a batch. Every metric takes such rankings for ``sigma``, ``nu`` or both with
``ties="optimistic" | "pessimistic" | "expected"``; the two rankings' ties are broken
independently.

What the three rules mean
-------------------------
``"optimistic"`` / ``"pessimistic"``
    the best / worst value of the metric over every order of the tied items of both rankings,
    "best" in the metric's own direction (:attr:`rankbook.metrics.Metric.higher_is_closer`).
``"expected"``
    the exact mean over those orders, each order of each ranking equally likely.

How they are computed
---------------------
*Item metrics* (the 19 confusion-matrix metrics, NDPM, DCG, nDCG, MRR, GMR, meanRank) read the
rankings as orders of items. For them the best order puts each ranking's tied items in the
order of the *other* ranking (items tied in both: in the same order), and the worst in the
reverse order (:data:`ITEM_METRICS`); this is checked against the extremes over every
tie-breaking by brute force for every tie pattern up to ``n = 8``, and computed in
``O(n log n)`` per pair, vectorised.

*Position metrics* (MSE, RMSE, MAE, MAPE, SMAPE, R², Kendall's tau and Spearman's rho, which
paper A computes on the raw arrays position by position; :data:`POSITION_METRICS`) are not
extremal there: ordering the tied items as the other ranking orders them can be far from the
best value (it is, in about two thirds of random weak orders with ``n <= 6``). For them the
extremes are searched exactly: when only one ranking has ties, each of its tie groups is filled
independently, by the values sorted like the other ranking's values at those positions (best)
or against them (worst), which is optimal for the squared and absolute differences and for
Kendall's tau (each group's choice is best whatever the other groups hold); MAPE and SMAPE,
whose costs are not of that form, solve one assignment problem per group
(``scipy.optimize.linear_sum_assignment``). When both rankings have ties, the orders of the one
with fewer are enumerated and the other is filled as above; for the seven metrics that are sums
over positions this is done separately on each stretch of positions that no tie group of either
ranking crosses (the stretches do not interact), for Kendall's tau on the whole ranking (its
pairs of positions tie the stretches together). The enumeration is exact and refuses to go
beyond :data:`rankbook.ties.MAX_TIE_BREAKINGS` orders (``ValueError``).

Expected values, in closed form:

* confusion-matrix metrics: functions of ``TP``, the overlap of the two top-``k`` sets. Only the
  tie group straddling position ``k`` of each ranking is random; with ``F`` the items above it
  and ``B`` its items, ``c`` of which enter the top ``k``, the top-``k`` set is ``F`` plus a
  uniform ``c``-subset of ``B``, and ``TP = |F_s ∩ F_v| + X_a + Y`` where ``(X_a, X_b)`` count
  the items of ``nu``'s draw in ``F_s`` and in ``B_s`` (multivariate hypergeometric) and
  ``Y | X_b`` is hypergeometric with ``|B_s ∩ F_v| + X_b`` successes among ``|B_s|``. The exact
  law of ``TP`` gives ``E[f(TP)]`` for each of the 19 (nan when an order of positive
  probability makes the metric undefined);
* MSE, R², Spearman's rho: linear in :math:`\sum_i \sigma(i)\nu(i)`, and the value at a position
  is uniform over its tie group, independently in the two rankings:
  :math:`E[SSE] = 2\sum_x x^2 - 2\sum_i \bar\sigma_i \bar\nu_i` with the group means;
* MAE, MAPE, SMAPE: means over positions of ``f(sigma(i), nu(i))``; at position ``i`` the pair
  is uniform over (group of ``i`` in sigma) x (group of ``i`` in nu), so each term is a mean over
  those pairs;
* Kendall's tau: :math:`E[D] = \sum_{i<j} q^\sigma_{ij}(1-q^\nu_{ij}) + (1-q^\sigma_{ij})q^\nu_{ij}`
  with :math:`q_{ij} = P(\sigma(i) > \sigma(j))` (1/2 inside a group, else the share of pairs of
  the two groups' items in that order). With the expected signs ``e = 2q - 1`` (0 inside a
  group) this is :math:`E[D] = (\binom{n}{2} - Q)/2` with :math:`Q = \sum_{i<j} e^\sigma_{ij} e^\nu_{ij}`;
  ``e = J S J`` (``S`` the sign matrix of one tie-breaking, ``J`` the averaging over tie
  groups), so ``Q`` is a weighted Kendall S statistic of a cloud of points, one for each pair of
  positions whose sigma group and nu group meet, summed bit by bit of the values in
  ``O(P log n)`` for ``P`` points; the positions in tie groups of more than 21 items are summed
  over those groups instead, ``O(n)`` each (or all over the ``p`` groups of the ranking with
  fewer, ``O(p n)``, where the measured costs say so). Memory ``O(n)``; time ``O(n log n)``
  when the tie groups are small or few, ``O(n^2 / 21)`` at worst. From n = 128 on; below, the
  ``(n, n)`` matrices of ``q`` of a whole batch;
* NDPM: the same over item pairs, with probabilities 0, 1/2 or 1 from the group order: a pair
  tied in either ranking is discordant with probability 1/2, so the mean is the strictly
  discordant pairs (one inversion count) plus half the pairs tied in either ranking, the counts
  of Kendall's tau-b, ``O(n log n)`` per pair;
* DCG, nDCG: ``E[pi(i)]`` is the mean over sigma's group at ``i`` of each item's mean position
  in nu's group;
* MRR, meanRank: each item of sigma's top ``k`` (with its probability of being there) times the
  mean of ``1/p`` or ``p`` over its group's positions in nu;
* GMR: ``E[prod_x pos(x)^{1/k}]``. In each tie group of nu, ``t`` of the top-``k`` items take a
  uniform ``t``-subset of the group's positions, so the mean of the product is the elementary
  symmetric polynomial ``e_t`` of ``p^{1/k}`` over the group divided by ``C(g, t)`` (computed by
  a stable recursion on these means); the counts ``t`` follow the hypergeometric draw of
  sigma's straddling group, summed by a dynamic programme over nu's groups;
* RMSE: the square root of a sum has no closed form in the group means, so its expected value
  uses the exact law of the sum of squared differences: the stretches that no tie group crosses
  are independent, each stretch's law is found by enumerating its pairs of tie-breakings (at most
  :data:`rankbook.ties.MAX_TIE_BREAKINGS`, else ``ValueError``), and the laws are convolved. It
  never samples.

Cost. Rows without a tie take the tie-free kernels. With ties, the item metrics' best and worst
cost ``O(n log n)`` per pair; the expected values ``O(n log n)`` per pair for NDPM and for
Kendall's tau with small tie groups (see above for its other cases, all in ``O(n)`` memory),
``O(n)`` to ``O(n g)`` for the others (``g`` the largest tie group), and a loop over the pairs for
GMR and the RMSE. All but GMR, the RMSE and the position metrics' extremes are vectorised over
the batch.
"""

from __future__ import annotations

import math

import numpy as np

from . import _metric_core as _m
from . import permutations as _perm
from . import ties as _ties
from ._validation import check_k

__all__ = ["ITEM_METRICS", "POSITION_METRICS", "evaluate"]

#: Metrics computed on the raw arrays position by position (paper A's readings): the metrics that
#: read the item numbers (:data:`rankbook.metrics.NUMBERED`).
POSITION_METRICS = _m.NUMBERED
#: Metrics that read the rankings as orders of items; their extremes over tie-breakings come from
#: ordering each ranking's ties as the other ranking orders them (or against it).
ITEM_METRICS = tuple(name for name in _m.NAMES if name not in POSITION_METRICS)

_CONFUSION = tuple(name for name in _m.NAMES if _m.FAMILY[name] == "confusion")
_CHUNK = 1 << 21  # entries of the largest temporary of one block of rows


# --------------------------------------------------------------------------------------------
# inputs


def _weak(x, name):
    w = _ties.as_weak_order(x, name)
    if w is not None:
        return w
    arr = np.asarray(x) if not isinstance(x, np.ndarray) else x
    if arr.ndim == 0 or arr.size == 0:
        raise ValueError(f"{name} must be a ranking of 1..n (one-line notation), a list with sets for "
                         "tied items, or a rankbook.ties.WeakOrder")
    return _ties.WeakOrder(arr, np.broadcast_to(np.arange(arr.shape[-1]), arr.shape))


def _group_bounds(blocks):
    """Start and end (exclusive) column of every position's tie group, shape (m, n)."""
    m, n = blocks.shape
    new = np.ones((m, n), dtype=bool)
    new[:, 1:] = blocks[:, 1:] != blocks[:, :-1]
    cols = np.arange(n)
    start = np.maximum.accumulate(np.where(new, cols, 0), axis=1)
    nxt = np.concatenate([np.where(new[:, 1:], cols[1:], n), np.full((m, 1), n)], axis=1)
    end = np.minimum.accumulate(nxt[:, ::-1], axis=1)[:, ::-1]
    return start, end


def _by_item(order, x):
    """``x`` given per position, rearranged per item (column x - 1 for item x)."""
    out = np.empty_like(x)
    np.put_along_axis(out, order - 1, x, axis=1)
    return out


def _group_sum(x, start, end):
    """Sum of ``x`` (per position, shape (m, n) or (m, n, ...)) over each position's group."""
    cs = np.concatenate([np.zeros((x.shape[0], 1) + x.shape[2:]), np.cumsum(x, axis=1)], axis=1)
    idx_e = end.reshape(end.shape + (1,) * (x.ndim - 2))
    idx_s = start.reshape(start.shape + (1,) * (x.ndim - 2))
    return np.take_along_axis(cs, idx_e, axis=1) - np.take_along_axis(cs, idx_s, axis=1)


# --------------------------------------------------------------------------------------------
# optimistic / pessimistic


def _item_tie_break(s, bs, v, bv, best: bool):
    """Each ranking's tied items in the other ranking's order (best) or against it (worst)."""
    m, n = s.shape
    bsi, bvi = _by_item(s, bs), _by_item(v, bv)
    items = np.broadcast_to(np.arange(1, n + 1), (m, n))
    if best:
        so = np.lexsort((items, bvi, bsi), axis=1)
        vo = np.lexsort((items, bsi, bvi), axis=1)
    else:
        so = np.lexsort((items, -bvi, bsi), axis=1)
        vo = np.lexsort((-items, -bsi, bvi), axis=1)
    return so + 1, vo + 1


def _fill_sorted(fixed, other, other_blocks, best: bool):
    """Fill every tie group of ``other`` (for each row of ``fixed``, shape (N, n)) with its values
    sorted like ``fixed`` at those positions (best) or against them (worst)."""
    shape = fixed.shape
    blocks = np.broadcast_to(other_blocks, shape)
    where = np.lexsort((fixed if best else -fixed, blocks), axis=1)  # positions, group by group
    values = np.broadcast_to(other, shape)
    values = np.take_along_axis(values, np.lexsort((values, blocks), axis=1), axis=1)
    out = np.empty(shape, dtype=np.int64)
    np.put_along_axis(out, where, values, axis=1)
    return out


def _fill_assignment(name, fixed, fixed_is_sigma, other, other_blocks, best: bool):
    """Fill every tie group of ``other`` by an optimal assignment (MAPE, SMAPE), rows (N, n)."""
    from scipy.optimize import linear_sum_assignment

    out = np.repeat(other[None, :], fixed.shape[0], axis=0)
    groups = [g for g in _ties._groups(other_blocks) if g.shape[0] > 1]
    for r in range(fixed.shape[0]):
        for g in groups:
            f = fixed[r, g].astype(float)[:, None]  # the fixed ranking's values at the positions
            c = other[g].astype(float)[None, :]     # the values to place
            s_val, v_val = (f, c) if fixed_is_sigma else (c, f)
            cost = _COSTS[name](s_val, v_val)
            rows, cols = linear_sum_assignment(cost, maximize=not best)
            out[r, g[rows]] = other[g][cols]
    return out


#: Position-wise costs of the separable position metrics: the metric is a monotone function of
#: the sum of the cost over positions (``a`` = sigma's value, ``b`` = nu's).
_COSTS = {
    "sse": lambda a, b: (a - b) ** 2,
    "abs": lambda a, b: np.abs(a - b),
    "ape": lambda a, b: np.abs(a - b) / a,
    "sape": lambda a, b: 2.0 * np.abs(a - b) / (a + b),
}
_COST_OF = {"mse": "sse", "rmse": "sse", "r2": "sse", "spearman_rho": "sse", "mae": "abs",
            "mape": "ape", "smape": "sape"}


def _from_cost(name, total, n):
    """The metric value from the sum of its position-wise cost (the formulas of the kernels)."""
    if name == "mse":
        return total / n
    if name == "rmse":
        return math.sqrt(total / n)
    if name == "r2":
        return 1.0 - total / (n * (n * n - 1) / 12.0) if n > 1 else float("nan")
    if name == "spearman_rho":
        return 1.0 - 6.0 * total / (n * (n * n - 1.0)) if n > 1 else float("nan")
    if name == "mae":
        return total / n
    return 100.0 * total / n  # mape, smape


def _components(bs, bv):
    """Position ranges [lo, hi) that no tie group of either ranking crosses."""
    n = bs.shape[0]
    cut = np.flatnonzero((bs[1:] != bs[:-1]) & (bv[1:] != bv[:-1])) + 1
    edges = np.concatenate([[0], cut, [n]])
    return list(zip(edges[:-1], edges[1:]))


def _enumeration_side(bs, bv, what):
    n_s, n_v = _ties.n_tie_breakings(bs), _ties.n_tie_breakings(bv)
    if min(n_s, n_v) > _ties.MAX_TIE_BREAKINGS:
        raise ValueError(
            f"{what}: both rankings have ties ({n_s} and {n_v} orders where they overlap); the exact "
            "search enumerates the orders of one of them and allows at most "
            f"rankbook.ties.MAX_TIE_BREAKINGS = {_ties.MAX_TIE_BREAKINGS}; ties='expected' needs no "
            "enumeration"
        )
    return n_s <= n_v


def _separable_extreme(cost, s, bs, v, bv, best: bool, what: str) -> float:
    """Smallest (best) or largest (worst) sum of a position-wise cost over every tie-breaking:
    the positions split into stretches no tie group crosses, each optimised on its own."""
    f = _COSTS[cost]
    total = 0.0
    for lo, hi in _components(bs, bv):
        s_c, bs_c, v_c, bv_c = s[lo:hi], bs[lo:hi], v[lo:hi], bv[lo:hi]
        if hi - lo == 1:
            total += float(f(float(s_c[0]), float(v_c[0])))
            continue
        fixed_is_sigma = _enumeration_side(bs_c, bv_c, what)
        fixed = _ties._row_tie_breakings(*((s_c, bs_c) if fixed_is_sigma else (v_c, bv_c)))
        other, other_blocks = (v_c, bv_c) if fixed_is_sigma else (s_c, bs_c)
        if cost in ("sse", "abs"):  # convex in the difference: sorted (anti-sorted) is optimal
            filled = _fill_sorted(fixed, other, other_blocks, best)
        else:
            filled = _fill_assignment(cost, fixed, fixed_is_sigma, other, other_blocks, best)
        a, b = (fixed, filled) if fixed_is_sigma else (filled, fixed)
        sums = f(a.astype(float), b.astype(float)).sum(axis=1)
        total += float(sums.min() if best else sums.max())
    return total


def _position_extremes_batch(names, s, bs, v, bv, best: bool) -> dict:
    """:func:`_position_extremes` for rows of pairs; the rows where only one ranking has ties
    (nothing to enumerate) are filled for all of them at once."""
    m = s.shape[0]
    out = {name: np.empty(m) for name in names}
    tied_s = np.any(np.diff(bs, axis=1) == 0, axis=1)
    tied_v = np.any(np.diff(bv, axis=1) == 0, axis=1)
    one = np.flatnonzero(tied_s != tied_v)
    if one.size:
        fixed_is_sigma = ~tied_s[one][:, None]
        fixed = np.where(fixed_is_sigma, s[one], v[one])
        other = np.where(fixed_is_sigma, v[one], s[one])
        other_blocks = np.where(fixed_is_sigma, bv[one], bs[one])
        plain = [name for name in names if name not in ("mape", "smape")]
        if plain:
            filled = _fill_sorted(fixed, other, other_blocks, best)
            vals = _m._evaluate(plain, np.where(fixed_is_sigma, fixed, filled),
                                np.where(fixed_is_sigma, filled, fixed), None, checked=True)
            for name in plain:
                out[name][one] = vals[name]
        for name in ("mape", "smape"):
            if name not in names:
                continue
            for j, r in enumerate(one):
                filled = _fill_assignment(_COST_OF[name], fixed[j][None, :], bool(fixed_is_sigma[j, 0]),
                                          other[j], other_blocks[j], best)
                sig, nu = (fixed[j][None, :], filled) if fixed_is_sigma[j, 0] else (filled, fixed[j][None, :])
                out[name][r] = float(_m._evaluate([name], sig, nu, None, checked=True)[name][0])
    for r in np.flatnonzero(tied_s & tied_v):
        row = _position_extremes(names, s[r], bs[r], v[r], bv[r], best)
        for name in names:
            out[name][r] = row[name]
    return out


def _position_extremes(names, s, bs, v, bv, best: bool) -> dict:
    """Best or worst value of each position metric in ``names`` over every tie-breaking of one
    pair of rankings."""
    rule = "optimistic" if best else "pessimistic"
    n = s.shape[0]
    out, sums = {}, {}
    for name in names:
        if name == "kendall_tau":
            fixed_is_sigma = _enumeration_side(bs, bv, f"kendall_tau with ties='{rule}'")
            fixed = _ties._row_tie_breakings(*((s, bs) if fixed_is_sigma else (v, bv)))
            other, other_blocks = (v, bv) if fixed_is_sigma else (s, bs)
            filled = _fill_sorted(fixed, other, other_blocks, best)
            sig, nu = (fixed, filled) if fixed_is_sigma else (filled, fixed)
            values = _m._evaluate([name], sig, nu, None, checked=True)[name]
            out[name] = float(np.max(values) if best else np.min(values))
            continue
        cost = _COST_OF[name]
        # the metric decreases with the cost where higher is closer: best = smallest cost
        if cost not in sums:
            sums[cost] = _separable_extreme(cost, s, bs, v, bv, best, f"{name} with ties='{rule}'")
        out[name] = _from_cost(name, sums[cost], n)
    return out


# --------------------------------------------------------------------------------------------
# expected values


def _log_comb(n, k):
    return _ties._log_comb(n, k)


def _tp_law(s, bs, v, bv, k):
    """P(TP = t) for t = 0..k, shape (m, k + 1), for rows with ties."""
    from scipy.special import gammaln

    m, n = s.shape
    out = np.zeros((m, k + 1))
    ss, se = _group_bounds(bs)
    vs, ve = _group_bounds(bv)
    pos_s = _by_item(s, np.broadcast_to(np.arange(n), (m, n)))
    pos_v = _by_item(v, np.broadcast_to(np.arange(n), (m, n)))
    a_s, e_s = ss[:, k - 1], se[:, k - 1]
    a_v, e_v = vs[:, k - 1], ve[:, k - 1]
    g_s, g_v = e_s - a_s, e_v - a_v
    c_s, c_v = k - a_s, k - a_v
    in_fs = pos_s < a_s[:, None]
    in_bs = (pos_s >= a_s[:, None]) & (pos_s < e_s[:, None])
    in_fv = pos_v < a_v[:, None]
    in_bv = (pos_v >= a_v[:, None]) & (pos_v < e_v[:, None])
    t0 = (in_fs & in_fv).sum(axis=1)
    na = (in_bv & in_fs).sum(axis=1)
    nb = (in_bv & in_bs).sum(axis=1)
    nc = g_v - na - nb
    ne = (in_bs & in_fv).sum(axis=1)

    def lc(N, K):
        ok = (K >= 0) & (K <= N)
        val = gammaln(np.where(ok, N, 0) + 1.0) - gammaln(np.where(ok, K, 0) + 1.0) - gammaln(np.where(ok, N - K, 0) + 1.0)
        return np.where(ok, val, -np.inf)

    da = int(np.minimum(na, c_v).max()) + 1  # each count is at most its group's share of the draw
    db = int(np.minimum(nb, c_v).max()) + 1
    dy = int(c_s.max()) + 1
    step = max(1, _CHUNK // (da * db * dy))
    xa = np.arange(da)[None, :, None, None]
    xb = np.arange(db)[None, None, :, None]
    y = np.arange(dy)[None, None, None, :]
    for lo in range(0, m, step):
        r = slice(lo, lo + step)
        col = lambda a: a[r][:, None, None, None]  # noqa: E731
        log_p = (lc(col(na), xa) + lc(col(nb), xb) + lc(col(nc), col(c_v) - xa - xb) - lc(col(g_v), col(c_v))
                 + lc(col(ne) + xb, y) + lc(col(g_s) - col(ne) - xb, col(c_s) - y) - lc(col(g_s), col(c_s)))
        prob = np.exp(log_p)
        tp = col(t0) + xa + y
        rows = np.arange(prob.shape[0])[:, None, None, None]
        flat = np.broadcast_to(rows * (k + 1) + np.clip(tp, 0, k), prob.shape)
        keep = prob > 0
        out[r] = np.bincount(flat[keep], weights=prob[keep], minlength=prob.shape[0] * (k + 1)).reshape(-1, k + 1)
    return out


class _TPTable:
    """Stands in for the block of pairs of :mod:`rankbook.metrics` in the confusion kernels: one
    'pair' for each value TP = 0..k."""

    def __init__(self, n, k):
        self.n, self.k = n, k
        self.tp = np.arange(k + 1, dtype=np.float64)

    def counts(self):
        tp = self.tp
        fp = self.k - tp
        return tp, fp, fp, self.n - 2 * self.k + tp


def _expect_table(law, table):
    """E[f(TP)] per row from the law of TP and the table f(0..k); nan if an undefined value has
    positive probability."""
    undefined = np.isnan(table)[None, :] & (law > 0)
    val = (law * np.where(np.isnan(table), 0.0, table)[None, :]).sum(axis=1)
    return np.where(undefined.any(axis=1), np.nan, val)


def _group_mean(x, start, end):
    return _group_sum(x.astype(float), start, end) / (end - start)


def _expected_sse(s, bs, v, bv):
    n = s.shape[1]
    ss, se = _group_bounds(bs)
    vs, ve = _group_bounds(bv)
    mean_s, mean_v = _group_mean(s, ss, se), _group_mean(v, vs, ve)
    return 2.0 * (n * (n + 1) * (2 * n + 1) / 6.0) - 2.0 * np.einsum("ij,ij->i", mean_s, mean_v)


def _expected_pairwise_mean(s, bs, v, bv, f):
    """Mean over positions of E f(sigma(i), nu(i)), the pair uniform over the two tie groups."""
    m, n = s.shape
    ss, se = _group_bounds(bs)
    vs, ve = _group_bounds(bv)
    gs, gv = (se - ss).ravel(), (ve - vs).ravel()
    out = np.zeros(m)
    counts = gs * gv
    per_row = counts.reshape(m, n).sum(axis=1)
    row_starts = np.concatenate([[0], np.cumsum(per_row)])
    lo = 0
    while lo < m:  # blocks of rows holding at most _CHUNK pairs (at least one row)
        hi = int(np.searchsorted(row_starts, row_starts[lo] + _CHUNK, side="right")) - 1
        hi = max(hi, lo + 1)
        sel = slice(lo * n, hi * n)
        c = counts[sel]
        owner = np.repeat(np.arange(c.shape[0]), c)
        local = np.arange(owner.shape[0]) - np.repeat(np.cumsum(c) - c, c)
        row = lo + owner // n
        i_a = ss.ravel()[sel][owner] + local // gv[sel][owner]
        i_b = vs.ravel()[sel][owner] + local % gv[sel][owner]
        a = s[row, i_a].astype(float)
        b = v[row, i_b].astype(float)
        term = f(a, b) / c[owner]
        out[lo:hi] = np.bincount(row - lo, weights=term, minlength=hi - lo) / n
        lo = hi
    return out


def _q_greater(s, bs):
    """q[r, i, j] = P(value at position i > value at position j) under random tie orders."""
    m, n = s.shape
    start, end = _group_bounds(bs)
    g = (end - start).astype(float)
    onehot = np.zeros((m, n, n))
    np.put_along_axis(onehot, (s - 1)[:, :, None], 1.0, axis=2)  # [r, position, value]
    in_group = _group_sum(onehot, start, end)                      # [r, j, value]: value in group of j
    below = np.cumsum(in_group, axis=2) - in_group                 # [r, j, x]: group values < x
    y = np.take_along_axis(below, np.broadcast_to((s - 1)[:, None, :], (m, n, n)), axis=2)  # [r, j, t]
    z = _group_sum(np.swapaxes(y, 1, 2), start, end)              # [r, i, j]: sum over t in group(i)
    q = z / (g[:, :, None] * g[:, None, :])
    same = bs[:, :, None] == bs[:, None, :]
    return np.where(same, 0.5, q)


#: From this n on, the expected Kendall discordance of a pair is computed one pair at a time by
#: :func:`_expected_kendall_long` (O(n log n) time and O(n) memory when the tie groups are small)
#: instead of with the (n, n) probability matrices of a batch (:func:`_q_greater`).
_KENDALL_LONG_N = 128
#: :func:`_expected_kendall_long` uses its point cloud only while it holds at most this many
#: points per position (the sum over cells of sigma-group size x nu-group size, divided by n),
#: so its memory stays O(n); beyond, or where it would be slower, the sums run over the tie
#: groups of the ranking with fewer groups (:func:`_expected_kendall_groups`).
_KENDALL_POINTS_PER_ITEM = 64
#: Tie groups larger than this are summed by group, not as points, in
#: :func:`_expected_kendall_long` (so its point cloud stays under 3 x 21 = 63 points per item).
_KENDALL_SPLIT_SIZE = 21


def _expected_kendall(s, bs, v, bv):
    m, n = s.shape
    if n >= _KENDALL_LONG_N:
        return np.array([_expected_kendall_long(s[r], bs[r], v[r], bv[r]) for r in range(m)])
    out = np.empty(m)
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    step = max(1, _CHUNK // (4 * n * n))
    for lo in range(0, m, step):
        r = slice(lo, lo + step)
        qs, qv = _q_greater(s[r], bs[r]), _q_greater(v[r], bv[r])
        disc = qs * (1.0 - qv) + (1.0 - qs) * qv
        out[r] = (disc * upper).sum(axis=(1, 2))
    return out


def _runs(labels):
    """Start index of every run of equal labels, and every position's run number."""
    new = np.ones(labels.shape[0], dtype=bool)
    new[1:] = labels[1:] != labels[:-1]
    return np.flatnonzero(new), np.cumsum(new) - 1


def _weighted_s(x, y, w, nbits, n):
    """Sum over pairs of points with x_p < x_q of ``w_p w_q sign(y_q - y_p)`` (x, y in 0..n-1):
    for each bit of x, the pairs whose x first differ at that bit (the smaller x on the left),
    each right point against the weight of its group's left points below and above its y, from
    one sort by (group, y) and cumulative sums."""
    total = 0.0
    for b in range(nbits):
        grp = x >> (b + 1)
        right = ((x >> b) & 1).astype(bool)
        o = np.argsort(grp * n + y, kind="stable")
        go, yo, ro, wo = grp[o], y[o], right[o], w[o]
        c = np.concatenate([[0.0], np.cumsum(np.where(ro, 0.0, wo))])  # left weight before
        P = o.size
        idx = np.arange(P)
        gnew = np.ones(P, dtype=bool)
        gnew[1:] = go[1:] != go[:-1]
        knew = gnew.copy()
        knew[1:] |= yo[1:] != yo[:-1]
        gs = np.maximum.accumulate(np.where(gnew, idx, 0))
        ks = np.maximum.accumulate(np.where(knew, idx, 0))
        gend = np.append(np.flatnonzero(gnew)[1:], P)[np.cumsum(gnew) - 1]
        kend = np.append(np.flatnonzero(knew)[1:], P)[np.cumsum(knew) - 1]
        lt = c[ks] - c[gs]
        gt = c[gend] - c[kend]
        total += float(np.sum(np.where(ro, wo * (lt - gt), 0.0)))
    return total


class _Cells:
    """Tie groups of two weak orders of the same positions and the cells where they meet."""

    def __init__(self, bs, bv):
        n = bs.shape[0]
        self.n = n
        self.sg_start, self.sg = _runs(bs)
        self.vg_start, self.vg = _runs(bv)
        self.sg_end = np.append(self.sg_start[1:], n)
        self.vg_end = np.append(self.vg_start[1:], n)
        self.start, _ = _runs(self.sg * (self.vg.max() + 1) + self.vg)
        self.size = np.diff(np.append(self.start, n))
        self.G, self.K = self.sg[self.start], self.vg[self.start]
        self.g = self.sg_end[self.G] - self.sg_start[self.G]
        self.h = self.vg_end[self.K] - self.vg_start[self.K]


def _point_sum(s, v, c: _Cells, mask):
    """``sum_{i, j}`` over the positions of the cells in ``mask`` of ``Es[i, j] Ev[i, j]``: twice
    the weighted S statistic of their points (see :func:`_expected_kendall_long`)."""
    n = c.n
    per_cell = np.where(mask, c.g * c.h, 0)
    P = int(per_cell.sum())
    if P == 0:
        return 0.0
    rep = np.repeat(np.arange(c.start.size), per_cell)
    k = np.arange(P) - np.repeat(np.cumsum(per_cell) - per_cell, per_cell)
    h = c.h[rep]
    t = c.sg_start[c.G][rep] + k // h
    t2 = c.vg_start[c.K][rep] + k % h
    x = s[t].astype(np.int64) - 1
    y = v[t2].astype(np.int64) - 1
    w = (c.size / (c.g * c.h))[rep]
    return 2.0 * _weighted_s(x, y, w, int(n - 1).bit_length(), n)


def _expected_kendall_long(s, bs, v, bv):
    """Expected number of discordant pairs of positions of one pair of weak orders.

    With ``E[i, j]`` the expected sign of ``value(i) - value(j)`` (0 inside a tie group, else the
    mean sign over the two groups' values), ``E = J S J`` for the sign matrix ``S`` of the tie
    breaking given and ``J`` the averaging over tie groups; so the expected discordance is
    ``(C(n, 2) - Q) / 2`` with ``Q = sum_{i<j} Es[i, j] Ev[i, j]`` and, expanding both products,
    ``Q`` is a weighted Kendall S statistic of a point cloud: one point
    ``(sigma(t), nu(t'))`` for every t and t' whose sigma group and nu group meet, with weight
    ``|G(t) & K(t')| / (|G(t)| |K(t')|)``, summed in O(P log n) for P points by
    :func:`_weighted_s`. A cell (the positions where a sigma group and a nu group meet) brings
    ``|G| |K|`` points, so the cells of groups larger than ``tau`` are left out of the cloud; the
    pairs of positions that involve them are summed over those big groups instead
    (:func:`_masked_sums`, O(n) per big group). With ``tau`` = :data:`_KENDALL_SPLIT_SIZE` the
    cloud keeps fewer than ``3 tau n`` points, so the memory is O(n); the time is O(n log n)
    when the tie groups are small or few, and O(n^2 / tau) at worst (many groups just above
    ``tau`` on both sides). Whichever of the cloud, the group sums or the split is cheapest by
    the measured costs is used.
    """
    n = s.shape[0]
    c = _Cells(bs, bv)
    nbits = int(n - 1).bit_length()
    P = int((c.g * c.h).sum())
    fewer_groups = min(c.sg_start.size, c.vg_start.size)
    tau = _KENDALL_SPLIT_SIZE
    big_s, big_v = c.g > tau, c.h > tau
    big = big_s | big_v
    P_small = int((c.g * c.h)[~big].sum())
    units = np.unique(c.G[big_s]).size + np.unique(c.K[big_v & ~big_s]).size
    # measured on 2 shared cores: about 3.5e-7 s per point and bit, 2e-7 s per group and position
    costs = {"groups": 2.0 * fewer_groups * n,
             "points": 3.5 * P * nbits if P <= _KENDALL_POINTS_PER_ITEM * n else math.inf,
             "split": 3.5 * P_small * nbits + 2.0 * units * n}
    how = min(costs, key=costs.get)
    if how == "groups":
        q2 = _groups_sum(s, bs, v, bv)
    elif how == "points":
        q2 = _point_sum(s, v, c, np.ones(c.start.size, dtype=bool))
    else:
        return _expected_kendall_split(s, bs, v, bv, tau)
    return (n * (n - 1) / 2.0 - q2 / 2.0) / 2.0


def _sign_sum_by_value(weights_by_value, values):
    """``out[r, u] = sum_x weights_by_value[r, x] * sign(x - values[u])`` (values 0-based)."""
    cum = np.cumsum(weights_by_value, axis=1)
    total = cum[:, -1:]
    at = weights_by_value[:, values]
    le = cum[:, values]
    return (total - le) - (le - at)


def _masked_sums(s, bs, v, bv, rows, *cols):
    """``sum_{i in row cells, j in column cells} Es[i, j] Ev[i, j]`` (cells of :class:`_Cells`,
    selected by the boolean masks ``rows`` and ``cols``; one sum per column mask), by the sigma
    groups of the row cells.

    For a set R of positions inside one sigma group G, ``Es`` is constant on R x (a sigma group
    H), and ``sum_{i in R, j in d} Ev[i, j] = a_R' S a_d`` with ``a = J 1`` (nu's averaging of an
    indicator) and ``S`` nu's sign matrix: ``a_d`` is ``|d| / |K_d|`` on nu's group ``K_d`` of a
    cell d, so one sign sum by value per G gives every column cell. O(n) per sigma group of the
    row cells, in blocks of groups of O(n) memory each.
    """
    c = _Cells(bs, bv)
    n = c.n
    p = c.sg_start.size
    gsize = (c.sg_end - c.sg_start).astype(float)
    cw = c.size / c.h                                                 # |d| / |K_d|
    sval, vval = s.astype(np.int64) - 1, v.astype(np.int64) - 1
    groups = np.unique(c.G[rows])
    step = max(1, _CHUNK // (4 * n))
    total = [0.0] * len(cols)
    for lo in range(0, groups.size, step):
        blk = groups[lo:lo + step]
        k = blk.size
        slot = np.full(p, -1)
        slot[blk] = np.arange(k)
        gl = (c.sg_end - c.sg_start)[blk]
        pos = np.concatenate([np.arange(c.sg_start[G], c.sg_end[G]) for G in blk])
        onehot = np.zeros((k, n))
        onehot[np.repeat(np.arange(k), gl), sval[pos]] = 1.0
        sign_s = _sign_sum_by_value(onehot, sval)                     # [G, u]: sum_t sign(s_t - s_u)
        cs = np.concatenate([np.zeros((k, 1)), np.cumsum(sign_s, axis=1)], axis=1)
        es = (cs[:, c.sg_end] - cs[:, c.sg_start]) / (gsize[blk, None] * gsize[None, :])
        # a_R over positions: |d| / |K_d| on K_d for each row cell d of the group
        mine = np.flatnonzero(rows & (slot[c.G] >= 0))
        a = np.zeros((k, n + 1))
        np.add.at(a, (slot[c.G[mine]], c.vg_start[c.K[mine]]), cw[mine])
        np.add.at(a, (slot[c.G[mine]], c.vg_end[c.K[mine]]), -cw[mine])
        a = np.cumsum(a[:, :n], axis=1)
        by_value = np.zeros((k, n))
        by_value[:, vval] = a
        z = _sign_sum_by_value(by_value, vval)                        # [G, u']: sum_t' a(t') sign(v_t' - v_u')
        cz = np.concatenate([np.zeros((k, 1)), np.cumsum(z, axis=1)], axis=1)
        zsum = cz[:, c.vg_end] - cz[:, c.vg_start]                    # [G, K]
        for i, col in enumerate(cols):
            total[i] += float(np.sum((zsum[:, c.K[col]] * cw[col]) * es[:, c.G[col]]))
    return total


def _groups_sum(s, bs, v, bv):
    """``sum_{i, j} Es[i, j] Ev[i, j]`` over the tie groups of the ranking with fewer of them."""
    if _runs(bv)[0].size < _runs(bs)[0].size:
        s, bs, v, bv = v, bv, s, bs
    m = _Cells(bs, bv).start.size
    everywhere = np.ones(m, dtype=bool)
    return _masked_sums(s, bs, v, bv, everywhere, everywhere)[0]


def _expected_kendall_groups(s, bs, v, bv):
    """:func:`_expected_kendall_long` by :func:`_groups_sum` alone (O(p n), p the fewer groups)."""
    n = s.shape[0]
    return (n * (n - 1) / 2.0 - _groups_sum(s, bs, v, bv) / 2.0) / 2.0


def _expected_kendall_split(s, bs, v, bv, tau):
    """:func:`_expected_kendall_long` with the split at group size ``tau`` forced (for tests)."""
    n = s.shape[0]
    c = _Cells(bs, bv)
    big_s, big_v = c.g > tau, c.h > tau
    big = big_s | big_v
    rows_v = big_v & ~big_s
    everywhere = np.ones(c.start.size, dtype=bool)
    q2 = _point_sum(s, v, c, ~big)
    for rows, args in ((big_s, (s, bs, v, bv)), (rows_v, (v, bv, s, bs))):
        if rows.any():
            all_cols, big_cols = _masked_sums(*args, rows, everywhere, big)
            q2 += 2.0 * all_cols - big_cols
    return (n * (n - 1) / 2.0 - q2 / 2.0) / 2.0


def _expected_item_discordant(s, bs, v, bv):
    """Expected number of item pairs the two weak orders put in opposite orders, in
    O(n log n) per pair and O(n) memory: a pair tied in either ranking is discordant with
    probability 1/2 (its order there is a fair coin), a pair tied in neither is discordant or
    not, so the mean is (strictly discordant pairs) + (pairs tied in at least one) / 2, the
    counts of Kendall's tau-b (strict discordances by one inversion count)."""
    m, n = s.shape
    bsi, bvi = _by_item(s, bs), _by_item(v, bv)
    # items sorted by (sigma's group, nu's group); strict discordances are the strict
    # inversions of nu's groups along that order, the inversions of its stable ranking
    order = np.lexsort((bvi, bsi), axis=1)
    bv_sorted = np.take_along_axis(bvi, order, axis=1)
    rank = np.empty_like(order)
    np.put_along_axis(rank, np.argsort(bv_sorted, axis=1, kind="stable"),
                      np.broadcast_to(np.arange(n), (m, n)), axis=1)
    discordant = _perm._inversions_unchecked(rank + 1).astype(float)

    def tied_pairs(new):
        """Sum over the runs of each row (a run starts where ``new`` is True) of C(size, 2)."""
        new = new.copy()
        new[:, 0] = True
        starts = np.flatnonzero(new.ravel())
        size = np.diff(np.append(starts, m * n)).astype(float)
        return np.bincount(starts // n, weights=size * (size - 1) / 2, minlength=m)

    def changes(x):
        out = np.ones((m, n), dtype=bool)
        out[:, 1:] = x[:, 1:] != x[:, :-1]
        return out

    bs_sorted = np.take_along_axis(bsi, order, axis=1)
    t_s = tied_pairs(changes(bs_sorted))
    t_v = tied_pairs(changes(np.sort(bvi, axis=1)))
    t_sv = tied_pairs(changes(bs_sorted) | changes(bv_sorted))
    return discordant + 0.5 * (t_s + t_v - t_sv)


def _item_position_stats(v, bv):
    """Per item (column x - 1): start and end (exclusive) of its group's positions in v."""
    vs, ve = _group_bounds(bv)
    return _by_item(v, vs), _by_item(v, ve)


def _expected_dcg(s, bs, v, bv):
    m, n = s.shape
    st_v, en_v = _item_position_stats(v, bv)
    mean_pos = (st_v + en_v + 1) / 2.0                     # per item, 1-based
    at_position = np.take_along_axis(mean_pos, s - 1, axis=1)
    ss, se = _group_bounds(bs)
    rel = _group_mean(at_position, ss, se)
    return (rel * _m._discount(n)).sum(axis=1)


def _in_top_k(s, bs, k):
    """P(item in sigma's top k), per item."""
    ss, se = _group_bounds(bs)
    st, en = _by_item(s, ss), _by_item(s, se)
    return np.clip((k - st) / (en - st), 0.0, 1.0)


def _expected_rank_mean(s, bs, v, bv, k, kind):
    n = s.shape[1]
    p_in = _in_top_k(s, bs, k)
    st_v, en_v = _item_position_stats(v, bv)
    if kind == "mean_rank":
        f = (st_v + en_v + 1) / 2.0
    else:
        harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, n + 1))])
        f = (harmonic[en_v] - harmonic[st_v]) / (en_v - st_v)
    return (p_in * f).sum(axis=1) / k


def _mean_products(w):
    """m[t] = e_t(w) / C(len(w), t), t = 0..len(w): the mean product of a uniform t-subset."""
    g = w.shape[0]
    mt = np.zeros(g + 1)
    mt[0] = 1.0
    for j in range(1, g + 1):
        t = np.arange(1, j + 1)
        new = mt.copy()
        new[t] = (j - t) / j * mt[t] + t / j * w[j - 1] * mt[t - 1]
        mt = new
    return mt


def _hypergeom_pmf(y, population, successes, draws):
    """P(Y = y) for Y ~ Hypergeometric(population, successes, draws), elementwise in ``y``."""
    y = np.asarray(y)
    ok = (y >= 0) & (y <= successes) & (draws - y >= 0) & (draws - y <= population - successes)
    yy = np.where(ok, y, 0)
    val = np.exp(_log_comb(successes, yy) + _log_comb(population - successes, draws - yy)
                 - _log_comb(population, draws))
    return np.where(ok, val, 0.0)


def _expected_gmr_row(s, bs, v, bv, k):
    n = s.shape[0]
    ss, se = _group_bounds(bs[None, :])
    vs, ve = _group_bounds(bv[None, :])
    ss, se, vs, ve = ss[0], se[0], vs[0], ve[0]
    pos_s = np.empty(n, dtype=np.int64)
    pos_s[s - 1] = np.arange(n)
    a, e = ss[k - 1], se[k - 1]
    straddle = e > k  # sigma's group at position k runs past it: only part of it is in the top k
    fixed_top = pos_s < (a if straddle else k)
    in_b = (pos_s >= a) & (pos_s < e) if straddle else np.zeros(n, dtype=bool)
    # per nu group: how many of its items are surely in sigma's top k, and how many may be
    f_count = np.bincount(bv, weights=fixed_top[v - 1], minlength=bv[-1] + 1).astype(np.int64)
    h_count = np.bincount(bv, weights=in_b[v - 1], minlength=bv[-1] + 1).astype(np.int64)
    starts = np.flatnonzero(np.r_[True, bv[1:] != bv[:-1]])
    value, weights = 1.0, []
    for grp in np.flatnonzero((f_count > 0) | (h_count > 0)):  # the other groups contribute 1
        st = starts[grp]
        en = ve[st]
        f_b, h_b = int(f_count[grp]), int(h_count[grp])
        w = np.arange(st + 1, en + 1, dtype=float) ** (1.0 / k)
        mt = np.array([1.0, w[0]]) if en - st == 1 else _mean_products(w)
        if h_b == 0:
            value *= mt[f_b]
        else:
            weights.append((h_b, mt[f_b: f_b + h_b + 1]))
    if not straddle:
        return value
    c = k - a
    remaining = e - a
    dp = np.zeros(c + 1)
    dp[0] = 1.0
    for h_b, mts in weights:
        new = np.zeros(c + 1)
        for d in np.flatnonzero(dp):
            ys = np.arange(0, min(h_b, c - d) + 1)
            prob = _hypergeom_pmf(ys, remaining, h_b, c - d)
            new[d + ys] += dp[d] * prob * mts[ys]
        dp = new
        remaining -= h_b
    return value * dp[c]


#: Largest support of the law of the sum of squared differences that the RMSE's expected value
#: convolves (the sum is a whole number between 0 and about n^3 / 3).
_MAX_SSE_SUPPORT = 10**7


def _expected_rmse_row(s, bs, v, bv):
    """E[sqrt(SSE / n)] from the exact law of SSE: the stretches of positions that no tie group
    crosses are independent, so the law is the convolution of theirs, each found by enumerating
    the stretch's pairs of tie-breakings."""
    n = s.shape[0]
    law, offset = np.ones(1), 0
    for lo, hi in _components(bs, bv):
        s_c, bs_c, v_c, bv_c = s[lo:hi], bs[lo:hi], v[lo:hi], bv[lo:hi]
        if hi - lo == 1:
            offset += int((s_c[0] - v_c[0]) ** 2)
            continue
        n_s, n_v = _ties.n_tie_breakings(bs_c), _ties.n_tie_breakings(bv_c)
        if n_s * n_v > _ties.MAX_TIE_BREAKINGS:
            raise ValueError(
                "rmse with ties='expected' has no closed form (the square root of a sum of products); "
                f"its exact law enumerates the {n_s} x {n_v} = {n_s * n_v} pairs of tie-breakings of "
                f"positions {lo + 1}-{hi}, more than rankbook.ties.MAX_TIE_BREAKINGS = "
                f"{_ties.MAX_TIE_BREAKINGS}. Use 'mse' (closed form) or ties='optimistic'/'pessimistic'"
            )
        S, V = _ties._row_tie_breakings(s_c, bs_c), _ties._row_tie_breakings(v_c, bv_c)
        sse = ((S[:, None, :] - V[None, :, :]) ** 2).sum(axis=2).ravel()
        low = int(sse.min())
        offset += low
        law = np.convolve(law, np.bincount(sse - low) / sse.shape[0])
        if law.shape[0] > _MAX_SSE_SUPPORT:
            raise ValueError("rmse with ties='expected': the law of the squared differences has more "
                             f"than {_MAX_SSE_SUPPORT} values; use 'mse' or the optimistic/pessimistic values")
    support = offset + np.arange(law.shape[0], dtype=float)
    return float(law @ np.sqrt(support / n))


def _expected(names, s, bs, v, bv, k):
    m, n = s.shape
    out = {}
    pairs = n * (n - 1) / 2.0
    cache = {}

    def sse():
        if "sse" not in cache:
            cache["sse"] = _expected_sse(s, bs, v, bv)
        return cache["sse"]

    conf = [name for name in names if name in _CONFUSION]
    if conf:
        law = _tp_law(s, bs, v, bv, k)
        table = _TPTable(n, k)
        for name in conf:
            with np.errstate(invalid="ignore", divide="ignore"):
                out[name] = _expect_table(law, np.asarray(_m._KERNELS[name](table), dtype=float))
    for name in names:
        if name in out:
            continue
        if name == "mse":
            out[name] = sse() / n
        elif name == "r2":
            out[name] = 1.0 - _m._div(sse(), np.full(m, n * (n * n - 1) / 12.0))
        elif name == "spearman_rho":
            out[name] = 1.0 - _m._div(6.0 * sse(), np.full(m, n * (n * n - 1.0)))
        elif name == "mae":
            out[name] = _expected_pairwise_mean(s, bs, v, bv, lambda a, b: np.abs(a - b))
        elif name == "mape":
            out[name] = 100.0 * _expected_pairwise_mean(s, bs, v, bv, lambda a, b: np.abs(a - b) / a)
        elif name == "smape":
            out[name] = 100.0 * _expected_pairwise_mean(s, bs, v, bv, lambda a, b: 2.0 * np.abs(a - b) / (a + b))
        elif name == "kendall_tau":
            out[name] = 1.0 - _m._div(2.0 * _expected_kendall(s, bs, v, bv), np.full(m, pairs))
        elif name == "ndpm":
            out[name] = _m._div(_expected_item_discordant(s, bs, v, bv), np.full(m, pairs))
        elif name == "dcg":
            out[name] = _expected_dcg(s, bs, v, bv)
        elif name == "ndcg":
            out[name] = _expected_dcg(s, bs, v, bv) / _m._idcg(n)
        elif name in ("mrr", "mean_rank"):
            out[name] = _expected_rank_mean(s, bs, v, bv, k, name)
        elif name == "gmr":
            out[name] = np.array([_expected_gmr_row(s[r], bs[r], v[r], bv[r], k) for r in range(m)])
        elif name == "rmse":
            out[name] = np.array([_expected_rmse_row(s[r], bs[r], v[r], bv[r]) for r in range(m)])
        else:  # pragma: no cover - every name of NAMES is handled above
            raise AssertionError(name)
    return out


# --------------------------------------------------------------------------------------------
# entry point


def evaluate(names, sigma, nu, k, ties, numbering=None):
    """The metrics ``names`` of rankings with ties under the rule ``ties`` (see the module
    docstring); called by :func:`rankbook.metrics.evaluate_many` and the per-metric functions.

    Parameters
    ----------
    names : list of str
        Metric names of :data:`rankbook.metrics.NAMES` (the caller's checked list).
    sigma, nu : array_like of shape (n,) or (..., n), list with sets, or WeakOrder
        Rankings of the items 1..n: permutations, lists whose sets hold tied items, or
        :class:`rankbook.ties.WeakOrder`; batch axes broadcast.
    k : int or None
        The cut-off, required by the metrics that need one.
    ties : {None, "optimistic", "pessimistic", "expected"}
        The tie rule; ``None`` refuses rankings with ties.
    numbering : {None, "given", "pair"}
        The reading of the item numbers (:mod:`rankbook.metrics`, *Reading a ranking*; None,
        the default, is ``"given"`` for these numbered rankings). Rows
        without ties are read either way; rows with ties only as given for the metrics that read
        the numbers (:data:`POSITION_METRICS`), since the positions of tied items in sigma,
        which ``"pair"`` would number them by, are not fixed. The item metrics give the same
        value under both readings.

    Returns
    -------
    dict
        ``{name: float or ndarray of the batch shape}``.

    Examples
    --------
    >>> out = evaluate(["kendall_tau", "recall"], [1, 2, 3, 4], [{1, 2}, 3, 4], 1, "expected")
    >>> {name: round(float(v), 4) for name, v in out.items()}
    {'kendall_tau': 0.8333, 'recall': 0.5}
    """
    ws, wv = _weak(sigma, "sigma"), _weak(nu, "nu")
    n = ws.n
    if wv.n != n:
        raise ValueError(
            f"sigma and nu rank different numbers of items: sigma has n={n}, nu has n={wv.n}"
        )
    rule = _ties.check_ties(ties, allow_none=True)
    numbering = _m.check_numbering(numbering)
    try:
        batch = np.broadcast_shapes(ws.order.shape[:-1], wv.order.shape[:-1])
    except ValueError:
        raise ValueError(
            f"the batch shapes of sigma {ws.order.shape[:-1]} and nu {wv.order.shape[:-1]} do not broadcast"
        ) from None
    flat = lambda a: np.broadcast_to(a, batch + (n,)).reshape(-1, n)  # noqa: E731
    s, bs, v, bv = flat(ws.order), flat(ws.blocks), flat(wv.order), flat(wv.blocks)
    tied = np.any(np.diff(bs, axis=1) == 0, axis=1) | np.any(np.diff(bv, axis=1) == 0, axis=1)
    if rule is None and tied.any():
        which = "sigma" if np.any(np.diff(bs, axis=1) == 0) else "nu"
        raise ValueError(
            f"{which} has tied items; choose ties='optimistic', 'pessimistic' or 'expected' "
            "(see rankbook.tied_metrics)"
        )
    if numbering == "pair" and tied.any() and any(name in POSITION_METRICS for name in names):
        raise ValueError(
            "numbering='pair' numbers the items by their positions in sigma, which a ranking with "
            "ties does not fix; the metrics that read the item numbers ("
            + ", ".join(name for name in names if name in POSITION_METRICS)
            + ") take tied rankings as given only (numbering='given')")
    if any(_m.NEEDS_K[name] for name in names):
        k = check_k(k, n)
    rows = s.shape[0]
    out = {name: np.empty(rows) for name in names}
    plain = np.flatnonzero(~tied)
    if plain.size:
        vals = _m._evaluate(names, s[plain], v[plain], k, numbering=numbering, checked=True)
        for name in names:
            out[name][plain] = vals[name]
    t = np.flatnonzero(tied)
    if t.size:
        ts, tbs, tv, tbv = s[t], bs[t], v[t], bv[t]
        if rule == "expected":
            vals = _expected(names, ts, tbs, tv, tbv, k)
        else:
            best = rule == "optimistic"
            vals = {}
            item = [name for name in names if name in ITEM_METRICS]
            if item:
                so, vo = _item_tie_break(ts, tbs, tv, tbv, best)
                vals.update(_m._evaluate(item, so, vo, k, checked=True))
            position = [name for name in names if name in POSITION_METRICS]
            if position:
                vals.update(_position_extremes_batch(position, ts, tbs, tv, tbv, best))
        for name in names:
            out[name][t] = vals[name]
    return {name: _m._finish(val.reshape(batch)) for name, val in out.items()}
