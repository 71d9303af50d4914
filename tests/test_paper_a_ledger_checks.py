"""Paper A's checks driven by their ledger entries (issue 36): the stated results that gained an
entry (Section 5's description of Kendall's τ, eq. 4 of the proof of Proposition 6.1, the first
half of Proposition 6.4, Section 6's sentence on Kendall's τ as a distance, the introduction's
"none of the metrics is a distance"), the sentences graded true by definition (A-D3-equiv,
A-S5.1-one, A-C3-dcg-ndcg, A-C3-binary), and the referee's findings (A-T2-rob2's borderline,
A-E160's grade, Proposition 7.1's headline), each against an independent computation or a fault
it must catch."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import kendalltau

from rankbook import metrics, permutations
from rankbook.ledger import claims
from rankbook.papers.paper_a import equivalence, figure1, injectivity, lemma63, right_invariance
from rankbook.papers.paper_a.entries import checked_by

BOOK = claims.ledger()


def _inversions(p) -> int:
    return sum(1 for i, j in itertools.combinations(range(len(p)), 2) if p[i] > p[j])


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_adjacent_swap_distance_is_the_inversion_count(n):
    """The breadth-first search over swaps of neighbours against a count of inversions by hand
    (bubble sort needs exactly one swap of neighbours per inversion)."""
    got = lemma63.adjacent_swap_distance(n)
    want = [_inversions(p) for p in permutations.all_permutations(n).tolist()]
    assert got.tolist() == want


def test_adjacent_swaps_claim_against_scipy_and_a_fault():
    claim = BOOK.claim("A-S5-kendall")
    ev = lemma63.check_adjacent_swaps(claim, ns=[4, 5])
    assert ev.status == "holds" and ev.total == 24 + 120
    assert ev.alternatives == {"τ equal to the count s itself": 0}
    P = permutations.all_permutations(5)
    s = lemma63.adjacent_swap_distance(5)
    tau = [kendalltau(list(range(1, 6)), p).statistic for p in P.tolist()]
    np.testing.assert_allclose(tau, 1 - 2 * s / 10, atol=1e-12)  # scipy's τ, the same rescaling
    wrong = lemma63.check_adjacent_swaps(claim, ns=[4], kendall=metrics.spearman_rho)
    assert wrong.status == "false" and wrong.failures
    with pytest.raises(ValueError, match="1..8"):
        lemma63.adjacent_swap_distance(9)


def test_lemma_6_3_reads_its_tolerance_from_the_ledger():
    claim = BOOK.claim("A-L6.3")
    assert lemma63.check_lemma_6_3(claim, ns=[4, 6]).status == "holds"
    # float noise of the last bit on some transpositions: no tolerance at all fails them
    assert lemma63.check_lemma_6_3(claim.with_params({"tolerance": 0.0}), ns=[4, 6]).status == "false"


def test_identity_is_the_unique_minimiser_of_dcg():
    claim = BOOK.claim("A-P6.1-eq4")
    ev = injectivity.check_identity_minimum(claim, n_min=2, n_max=7)
    assert ev.status == "holds" and ev.total == 6
    table = ev.tables["dcg_identity_minimum"]
    # S_2: DCG(id) = 1 + 2/log2(3), DCG((1 2)) = 2 + 1/log2(3): the gap is 1 - 1/log2(3)
    assert table.iloc[0]["smallest DCG(σ) − DCG(id)"] == pytest.approx(1 - 1 / math.log2(3))
    assert injectivity.check_identity_minimum(
        claim, n_max=5, **injectivity.negated_dcg(claim)).status == "false"


def test_the_signed_difference_is_no_distance_and_the_absolute_one_is_up_to_5():
    claim = BOOK.claim("A-P6.4-signed")
    ev = injectivity.check_signed_difference(claim, n_distance=5)
    assert ev.status == "holds" and (ev.matched, ev.total) == (3, 3)
    assert "takes negative values" in ev.reproduced and "is not symmetric" in ev.reproduced
    absolute = injectivity.check_signed_difference(claim, n_distance=5,
                                                   **injectivity.absolute_difference(claim))
    assert absolute.status == "false"


def test_binary_gains_by_hand_and_true_by_definition():
    # positions 1..3, discounts 1, 1/log2(3), 1/2; relevant items 1 and 2
    d = [1.0, 1 / math.log2(3), 0.5]
    assert injectivity.binary_dcg([[3, 1, 2]], 2).tolist() == pytest.approx([d[1] + d[2]])
    ev = injectivity.check_binary_gains(BOOK.claim("A-C3-binary"), n=4, k=2)
    assert ev.status == "true by definition"
    assert "leaves it unchanged on 24 of 24" in ev.reproduced
    scale = injectivity.check_dcg_ndcg_scale(BOOK.claim("A-C3-dcg-ndcg"), n=4)
    assert scale.status == "true by definition" and "intercept" in scale.reproduced


def test_kendall_lacks_the_identity_but_its_linear_image_is_a_distance():
    claim = BOOK.claim("A-S6-kendall")
    ev = equivalence.check_kendall_distance(claim, n=4)
    assert ev.status == "false" and (ev.matched, ev.total) == (1, 2)
    assert ev.failures == ["a linear map makes Kendall's τ a distance: f = 1 - m"]
    assert ev.alternatives == {"Kendall's τ as it stands, with no map": 2}
    assert [f.id for f in ev.findings] == ["A-E201"]
    # 1 - τ by hand on S_4: zero only on the diagonal, symmetric, the triangle inequality
    P = permutations.all_permutations(4)
    tau = np.array([[kendalltau(a, b).statistic for b in P.tolist()] for a in P.tolist()])
    d = 1 - tau
    assert np.allclose(d[np.eye(len(P), dtype=bool)], 0) and (d[~np.eye(len(P), dtype=bool)] > 0).all()
    assert np.allclose(d, d.T) and (d[:, None, :] <= d[:, :, None] + d[None, :, :] + 1e-12).all()
    assert equivalence.check_kendall_distance(claim, n=4, metric="mape").status == "holds"


def test_some_metrics_are_distances_as_they_stand():
    """The introduction's "none of the metrics is a distance": MAE is an L1 distance on the
    arrays, checked here by hand on every triple of S_4."""
    ev = equivalence.check_no_distance(BOOK.claim("A-S1-distance"), n=4, k=1,
                                       names=["mae", "mse", "kendall_tau"])
    assert ev.status == "false" and ev.failures == ["MAE is a distance on $S_{4}$"]
    assert [f.id for f in ev.findings] == ["A-E200"]
    P = permutations.all_permutations(4)
    d = np.abs(P[:, None, :] - P[None, :, :]).mean(axis=-1)
    assert (d[~np.eye(len(P), dtype=bool)] > 0).all() and (d == d.T).all()
    assert (d[:, None, :] <= d[:, :, None] + d[None, :, :] + 1e-12).all()  # d(a,c) <= d(a,b) + d(b,c)


def test_linear_equivalence_is_true_by_definition_and_a_wrong_test_shows():
    claim = BOOK.claim("A-D3-equiv")
    names = ["dcg", "ndcg", "kendall_tau", "ndpm", "recall", "precision"]
    ev = equivalence.check_equivalence_relation(claim, ns=[4], ks=[1], names=names)
    assert ev.status == "true by definition" and ev.matched is None
    # the old mutant: a one-way test breaks symmetry, and the sentence reads false
    wrong = equivalence.check_equivalence_relation(claim, ns=[4], ks=[1], names=names,
                                                   equivalent=equivalence.one_way_test)
    assert wrong.status == "false" and any("symmetric" in f for f in wrong.failures)


def test_proposition_7_1_names_where_the_absolute_value_peaks():
    ev = equivalence.check_prop_7_1(BOOK.claim("A-P7.1"), ns=[3], ks=[1], maps=["-m + 0.5"],
                                    names=["kendall_tau"])
    text = ev.failures[0]
    assert "elsewhere" not in text
    assert "0.5 on the diagonal and 1.5 at most, reached on 6 of 36 pairs" in text
    assert "ν = [3, 2, 1], the reversed ranking" in text


def test_consistent_pairs_have_the_ratio_one():
    ev = figure1.check_consistent_ratio(BOOK.claim("A-S5.1-one"), n=10, n_pairs=60, k=3,
                                        names=["recall", "precision", "fdr", "dcg", "ndcg", "mse"])
    assert ev.status == "true by definition"
    pairs = ev.tables["consistent_pairs"]
    assert {("DCG", "nDCG"), ("recall", "precision")} <= set(zip(pairs["metric"], pairs["other metric"]))
    assert (pairs["ratio"] == 1.0).all()


def test_referee_findings_in_the_ledger():
    assert BOOK.erratum("A-E160").severity == "imprecise"
    row = right_invariance.check_rob2_row(BOOK.claim("A-T2-rob2"), n=4)
    assert row.status == "imprecise" and row.borderline == ""
    assert row.alternatives[right_invariance.READINGS["B"]] == row.total  # shown, not borderline
    assert BOOK.erratum("A-E200").severity == BOOK.erratum("A-E201").severity == "false"
    for cid in ("A-D3-equiv", "A-S5.1-one", "A-C3-dcg-ndcg", "A-C3-binary"):
        assert BOOK.claim(cid).check and not BOOK.claim(cid).reason


def test_checked_by_finds_one_entry_or_refuses():
    assert checked_by(lemma63.check_lemma_6_3).id == "A-L6.3"
    with pytest.raises(ValueError, match="0 ledger claims"):
        checked_by(lemma63.adjacent_swap_distance)
