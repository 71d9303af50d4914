"""One reading of a ranking across the library (issue 37, item 5).

Every function that takes rankings reads a permutation array as given by default (paper A's
reading) and numbers label lists by the pair's first ranking, and takes the other reading
through the same parameter, ``numbering``. The same two rows give the same number in
``rankbook.pairwise``, ``rankbook.metrics.evaluate``, ``evaluate_many``, ``pairwise_to`` and
the agreement functions, for every metric and under each reading.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankbook
from rankbook import agreement as A
from rankbook import metrics as M
from rankbook import permutations as P
from rankbook import rbo as RBO
from rankbook.pairwise import RBO_MEASURES, pairwise_to

READINGS = [None, "given", "pair"]


def _k(name, n):
    return min(3, n) if M.REGISTRY[name].needs_k else None


def _scalar(name, a, b, numbering, n):
    if name in RBO_MEASURES:
        return getattr(RBO, name)(list(a), list(b), 0.9)
    return M.evaluate(name, a, b, k=_k(name, n), numbering=numbering)


@pytest.mark.parametrize("numbering", READINGS)
@pytest.mark.parametrize("name", list(M.NAMES) + list(RBO_MEASURES))
def test_pairwise_equals_evaluate_for_every_metric_under_each_reading(name, numbering):
    """``pairwise(X, m)[i, j] == evaluate(m, X[i], X[j])`` bit for bit (the RBO measures: the
    functions of rankbook.rbo), and ``pairwise_to`` and ``evaluate_many`` agree with them."""
    for n in (2, 5, 6):
        X = P.random(n, size=6, rng=10 * n + 1)
        kw = {"p": 0.9} if name in RBO_MEASURES else {"k": _k(name, n)}
        D = rankbook.pairwise(X, name, numbering=numbering, **kw)
        want = np.array([[_scalar(name, a, b, numbering, n) for b in X] for a in X])
        if name in RBO_MEASURES:  # the vectorised sums of the matrix, the scalar function's loop
            np.testing.assert_allclose(D, want, rtol=0, atol=1e-15, err_msg=name)
            continue
        np.testing.assert_array_equal(D, want, err_msg=f"{name} n={n} numbering={numbering}")
        np.testing.assert_array_equal(pairwise_to(X, X[0], name, numbering=numbering, **kw),
                                      want[0], err_msg=name)
        I, J = np.divmod(np.arange(len(X) ** 2), len(X))
        batch = M.evaluate_many([name], X[I], X[J], k=_k(name, n), numbering=numbering)[name]
        np.testing.assert_array_equal(batch.reshape(D.shape), want, err_msg=name)


@pytest.mark.parametrize("name", list(M.NAMES) + list(RBO_MEASURES))
def test_label_lists_read_alike_everywhere(name):
    """Label lists have one reading, the pair numbered by its first ranking: pairwise, evaluate
    (default or numbering='pair') and the numbered permutations agree; numbering='given' is
    refused for them everywhere."""
    X = P.random(5, size=5, rng=3)
    items = np.array(list("vwxyz"))
    L = ["".join(items[r - 1]) for r in X]  # the same orders, as strings of labels
    kw = {"p": 0.9} if name in RBO_MEASURES else {"k": _k(name, 5)}
    D = rankbook.pairwise(L, name, **kw)
    np.testing.assert_array_equal(D, rankbook.pairwise(X, name, numbering="pair", **kw),
                                  err_msg=name)
    if name in RBO_MEASURES:
        return
    want = np.array([[M.evaluate(name, a, b, k=_k(name, 5)) for b in L] for a in L])
    np.testing.assert_array_equal(D, want, err_msg=name)
    want_lists = np.array([[M.evaluate(name, list(a), list(b), k=_k(name, 5), numbering="pair")
                            for b in L] for a in L])
    np.testing.assert_array_equal(D, want_lists, err_msg=name)


def test_the_defaults_are_the_given_reading_for_arrays():
    """The issue's pair of rows: 0.1535 item-based, -0.0444 as given, and now the same default
    in pairwise and evaluate."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        X = P.random(8, size=2, rng=rng)
        pair, given = (float(rankbook.pairwise(X, "kendall_tau", numbering=r)[0, 1])
                       for r in ("pair", "given"))
        if pair != given:
            break
    assert pair != given
    assert float(rankbook.pairwise(X, "kendall_tau")[0, 1]) == given
    assert float(M.evaluate("kendall_tau", X[0], X[1])) == given
    assert float(M.kendall_tau(X[0], X[1], numbering="pair")) == pair
    # the item-based value is scipy's tau of the item positions, the given one of the arrays
    from scipy.stats import kendalltau

    assert np.isclose(pair, kendalltau(P.inverse(X[0]), P.inverse(X[1])).statistic)
    assert np.isclose(given, kendalltau(X[0], X[1]).statistic)


def test_the_25_order_metrics_do_not_depend_on_the_reading():
    X = P.random(7, size=9, rng=5)
    for name in M.NAMES:
        a, b = (rankbook.pairwise(X, name, k=_k(name, 7), numbering=r) for r in ("given", "pair"))
        if name in M.NUMBERED:
            assert not np.array_equal(a, b), name
        else:
            np.testing.assert_array_equal(a, b, err_msg=name)


def test_agreement_reads_rankings_as_the_metrics_do():
    """The agreement ratio over a sample with a reference that is not the identity: computed from
    metrics.evaluate_many's values under the same reading, and label lists numbered by the
    reference."""
    T = P.random(6, size=40, rng=2)
    ref = P.random(6, rng=9)
    for numbering in ("given", "pair"):
        got = A.agreement_ratio("mse", "ndpm", T, reference=ref, numbering=numbering)
        values = M.evaluate_many(["mse", "ndpm"], ref, T, numbering=numbering)
        want = A.agreement_ratio_from_values(values["mse"], values["ndpm"], reverse="auto")
        assert got == want, numbering
    assert A.agreement_ratio("mse", "ndpm", T, reference=ref) == A.agreement_ratio(
        "mse", "ndpm", T, reference=ref, numbering="given")
    labels = np.array(list("abcdef"))
    T_lab = ["".join(labels[r - 1]) for r in T]
    ref_lab = "".join(labels[ref - 1])
    assert A.agreement_ratio("mse", "ndpm", T_lab, reference=ref_lab) == A.agreement_ratio(
        "mse", "ndpm", T, reference=ref, numbering="pair")
    df = A.agreement_matrix(["mse", "kendall_tau"], pairs=(ref, T), numbering="pair",
                            reverse="none")
    dl = A.agreement_matrix(["mse", "kendall_tau"], pairs=(ref_lab, T_lab), reverse="none")
    np.testing.assert_array_equal(df.to_numpy(), dl.to_numpy())


def test_rankings_with_ties_take_the_pair_reading_only_for_the_order_metrics():
    s, v = [1, 2, 3, 4], [{1, 2}, 4, 3]
    for name in M.NAMES:
        if name in M.NUMBERED:
            with pytest.raises(ValueError, match="numbering='pair' numbers the items by their "
                                                 "positions in sigma, which a ranking with ties"):
                M.evaluate(name, s, v, k=2, ties="expected", numbering="pair")
        else:
            np.testing.assert_array_equal(
                M.evaluate(name, s, v, k=2, ties="expected", numbering="pair"),
                M.evaluate(name, s, v, k=2, ties="expected"), err_msg=name)


def test_one_parameter_name_and_one_message_everywhere():
    X = P.random(4, size=3, rng=1)
    calls = [
        lambda r: M.evaluate("mse", X[0], X[1], numbering=r),
        lambda r: M.evaluate_many(["mse"], X[0], X[1], numbering=r),
        lambda r: M.kendall_tau(X[0], X[1], numbering=r),
        lambda r: rankbook.pairwise(X, "mse", numbering=r),
        lambda r: pairwise_to(X, X[0], "mse", numbering=r),
        lambda r: A.agreement_ratio("mse", "ndpm", X, numbering=r),
        lambda r: A.pair_consistent("mse", "ndpm", X[0], X[1], numbering=r),
        lambda r: A.triple_inconsistent("mse", "ndpm", X[0], X[1], X[2], numbering=r),
        lambda r: A.are_consistent("mse", "ndpm", 3, numbering=r),
        lambda r: A.inconsistency_witness("mse", "ndpm", 3, numbering=r),
        lambda r: A.agreement_matrix(["mse"], pairs=(X[0], X), numbering=r),
        lambda r: A.agreement_intervals(["mse", "ndpm"], pairs=(X[0], X), numbering=r),
    ]
    for call in calls:
        for r in READINGS:
            call(r)
        with pytest.raises(ValueError, match="numbering must be one of 'given', 'pair' .*; "
                                             "got 'first'"):
            call("first")
    for call in (lambda: M.evaluate("mse", "abc", "bca", numbering="given"),
                 lambda: rankbook.pairwise(["abc", "bca"], "mse", numbering="given")):
        with pytest.raises(ValueError, match="numbering='given' reads the numbers of "
                                             "permutation arrays; label lists have none"):
            call()
