"""The sweep page's claim ``A-F1-pairs`` (issue 28): every pair of metrics keeps its agreement
ratio as n changes, read pair by pair with a bound and a sampling allowance
(:func:`rankbook.papers.paper_a.sweep_pairs.check_lengths`, driven by the claim's ledger entry),
on tables built by hand. A length where pairs move makes the sentence imprecise, not false
(issue 36: it states no number and holds for the picture as a whole)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankbook.ledger import claims
from rankbook.papers.paper_a import sweep_pairs as S

CLAIM = claims.ledger().claim("A-F1-pairs")


def check(intervals=None, *, params=None, **kwargs):
    claim = CLAIM.with_params(params) if params else CLAIM
    return S.check_lengths(claim, intervals=intervals, **kwargs)


def _table(ratios: dict, n_effective: float = 1e6) -> pd.DataFrame:
    """``{(n, k): {pair: ratio}}`` as the table the sweep gives."""
    return pd.DataFrame([{"n": n, "k": k, "pair": p, "ratio": r, "n_effective": n_effective}
                         for (n, k), pairs in ratios.items() for p, r in pairs.items()])


BASE = {"A / B": 0.8, "A / C": 0.6, "B / C": 1.0}


def test_identical_lengths_hold_and_a_moved_pair_fails_by_name():
    ev = check(_table({(10, 3): BASE, (100, 30): BASE}))
    assert (ev.status, ev.matched, ev.total, ev.failures) == ("holds within tolerance", 1, 1, None)
    moved = {**BASE, "A / C": 0.8}
    ev = check(_table({(10, 3): moved, (20, 6): BASE, (100, 30): BASE}))
    assert ev.status == "imprecise" and (ev.matched, ev.total) == (1, 2)
    assert "(10, 3): 1 of 3 pairs move, most A / C (by 0.200)" in ev.detail
    assert ev.tables["sweep_moved_pairs"]["pair"].tolist() == ["A / C"]
    # the paper's setting (n = 100, k = 30) as reference: the failure confirms the erratum
    assert [f.id for f in ev.findings] == ["A-E160"]
    other = check(_table({(10, 3): moved, (50, 15): BASE}))
    assert other.status == "not reproduced" and other.findings == []  # not the paper's setting


def test_the_bound_and_the_sampling_allowance_decide():
    moved = {**BASE, "A / B": 0.86}  # 0.06 from the reference: above the bound of 0.05
    precise = _table({(10, 3): moved, (100, 30): BASE}, n_effective=1e7)
    assert check(precise).status == "not reproduced"
    assert check(precise, params={"bound": 0.07}).status == "holds within tolerance"
    # with 200 effective pairs the standard error of the difference is about 0.04: sampling
    # alone could give the 0.01 beyond the bound
    noisy = _table({(10, 3): moved, (100, 30): BASE}, n_effective=200)
    ev = check(noisy)
    assert ev.status == "holds within tolerance"
    se = np.sqrt(0.86 * 0.14 / 200 + 0.8 * 0.2 / 200)
    assert 0.06 < 0.05 + 1.96 * se  # the allowance that the verdict used
    assert check(noisy, params={"confidence": 1e-9}).status == "not reproduced"  # no allowance


def test_a_verdict_on_the_edge_of_the_allowance_is_borderline():
    se = np.sqrt(2 * 0.8 * 0.2 / 10000)
    just = {**BASE, "A / B": 0.8 + 0.05 + 1.96 * se + 0.5 * se}  # moves, by half an se
    ev = check(_table({(10, 3): just, (100, 30): BASE}, n_effective=10000))
    assert ev.status == "not reproduced" and "(10, 3)" in ev.borderline
    clear = {**BASE, "A / B": 0.5}
    ev = check(_table({(10, 3): clear, (100, 30): BASE}, n_effective=10000))
    assert ev.status == "not reproduced" and ev.borderline == ""


def test_refusals_name_the_problem():
    with pytest.raises(ValueError, match="at least two"):
        check(_table({(10, 3): BASE}))
    with pytest.raises(ValueError, match="reference length 50 is not swept; swept: \\[10, 100\\]"):
        check(_table({(10, 3): BASE, (100, 30): BASE}), reference=50)


def test_the_sample_table_has_every_pair_at_every_length():
    t = S.sample_intervals([6, 9], 0.3, 30)
    assert t.groupby("n").size().tolist() == [528, 528]
    assert t.groupby("n")["k"].first().tolist() == [2, 3]
    assert ((t["ratio"] >= 0) & (t["ratio"] <= 1)).all() and (t["n_effective"] > 0).all()
    ev = check(t)
    assert ev.values["reference"] == (9, 3) and ev.total == 1


def test_the_verdict_rests_on_the_majority_of_several_samples():
    moved = {**BASE, "A / C": 0.8}
    t_moved = _table({(10, 3): moved, (100, 30): BASE})
    t_same = _table({(10, 3): BASE, (100, 30): BASE})
    # one sample that moves among three that do not: similar, but borderline (they disagree)
    ev = check(t_moved, replicates=[t_same, t_same])
    assert ev.status == "holds within tolerance" and "samples disagree" in ev.borderline
    assert ev.values["samples"] == 3
    assert ev.tables["sweep_lengths"]["samples with a pair that moves (of 3)"].tolist() == [1]
    # two of three move: the length fails, named with its count of samples; still borderline
    ev = check(t_moved, replicates=[t_moved, t_same])
    assert ev.status == "not reproduced"
    assert "(10, 3): 1 of 3 pairs move, most A / C (by 0.200); it fails in 2 of 3 samples" in ev.detail
    assert "(10, 3)" in ev.borderline
    # all three move: fails and not borderline
    ev = check(t_moved, replicates=[t_moved, t_moved])
    assert ev.status == "not reproduced" and ev.borderline == ""


def test_a_replicate_of_other_lengths_is_refused():
    with pytest.raises(ValueError, match="replicate 1 has lengths \\[20, 100\\], not the swept"):
        check(_table({(10, 3): BASE, (100, 30): BASE}),
                        replicates=[_table({(20, 6): BASE, (100, 30): BASE})])


def test_drawn_replicates_use_the_seeds_after_the_first():
    one = check(ns=(6, 8), n_pairs=20, seed=0, n_seeds=1)
    three = check(ns=(6, 8), n_pairs=20, seed=0, n_seeds=3)
    assert (one.values["samples"], three.values["samples"]) == (1, 3)
    first = S.sample_intervals((6, 8), 0.3, 20, seed=1)
    again = S.replicates({6: 2, 8: 2}, 20, [1])[0]
    pd.testing.assert_frame_equal(first, again)
