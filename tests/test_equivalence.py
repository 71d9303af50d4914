"""Tests for rankbook.equivalence (Proposition 7.1 of paper A), the consistency witness of
rankbook.agreement and properties.tabulate: brute force over every triple of S_3 and S_4 with
code written here (scipy's Kendall tau, plain loops), closed forms checked with hypothesis, and
the referee's counterexamples."""

import itertools

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import agreement as A
from rankbook import equivalence as E
from rankbook import metrics as M
from rankbook import properties as PR


def perms(n):
    return [np.array(p) for p in itertools.permutations(range(1, n + 1))]


def tau(p):
    """Kendall's tau of the identity against p, by scipy (code we did not write)."""
    return scipy.stats.kendalltau(np.arange(1, len(p) + 1), p).statistic


def eq1_triples(f1, f2, n, distinct=False):
    """Every triple (sigma, mu, nu) of S_n satisfying eq. 1 of Def. 1, by plain loops."""
    ps = perms(n)
    v1 = [f1(p) for p in ps]
    v2 = [f2(p) for p in ps]
    out = []
    for s, u, v in itertools.product(range(len(ps)), repeat=3):
        if distinct and len({s, u, v}) < 3:
            continue
        if v1[s] <= v1[u] and v2[s] <= v2[u] and v1[s] <= v1[v] and v2[s] > v2[v]:
            out.append((s, u, v))
    return ps, out


# ---------------------------------------------------------------------------------------------
# the referee's counterexamples, by brute force


@pytest.mark.parametrize("n", [3, 4])
def test_decreasing_image_of_tau_is_inconsistent_and_increasing_is_not(n):
    for (a, b), consistent in (((-1, 0.5), False), ((2, 1), True), ((0.5, -3), True), ((-2, 1), False)):
        ps, hits = eq1_triples(tau, lambda p: a * tau(p) + b, n)
        assert (not hits) == consistent
        g = lambda ref, r, k=None: a * M.kendall_tau(ref, r) + b  # noqa: E731
        assert A.are_consistent("kendall_tau", g, n) == consistent
        w = A.inconsistency_witness("kendall_tau", g, n)
        assert (w is None) == consistent
        if w is not None:  # the witness is one of the brute-force triples
            idx = tuple(next(i for i, p in enumerate(ps) if np.array_equal(p, r)) for r in w)
            assert idx in hits
        _, distinct = eq1_triples(tau, lambda p: a * tau(p) + b, n, distinct=True)
        assert (A.inconsistency_witness("kendall_tau", g, n, reading="distinct") is None) == (not distinct)


def test_absolute_value_breaks_maximal_agreement_on_s4():
    ps = perms(4)
    vals = {tuple(p): abs(-tau(p) + 0.5) for p in ps}
    assert vals[(1, 2, 3, 4)] == pytest.approx(0.5)
    assert max(vals.values()) == pytest.approx(1.5) and vals[(4, 3, 2, 1)] == pytest.approx(1.5)
    r = PR.maximal_agreement(E.linear_image("kendall_tau", "-m + 0.5", 4, absolute=True), 4)
    assert not r.holds and r.bound == pytest.approx(0.5)
    # the proof's form, -m~, does have it
    assert PR.maximal_agreement(E.linear_image("kendall_tau", "-m + 0.5", 4, sign=True), 4).holds


def test_dcg_is_consistent_with_its_negative_only_when_triples_are_distinct():
    # DCG(id, .) is injective on S_4: no tie, so no mu != sigma ties with sigma
    neg = lambda ref, r, k=None: -M.dcg(ref, r)  # noqa: E731
    assert A.inconsistency_witness("dcg", neg, 4) is not None
    assert A.inconsistency_witness("dcg", neg, 4, reading="distinct") is None
    _, hits = eq1_triples(lambda p: M.dcg(np.arange(1, 5), p), lambda p: -M.dcg(np.arange(1, 5), p),
                          4, distinct=True)
    assert hits == []


# ---------------------------------------------------------------------------------------------
# the witness on values, against brute force


def brute_witness(x, y, distinct):
    idx = range(len(x))
    for s, u, v in itertools.product(idx, repeat=3):
        if distinct and len({s, u, v}) < 3:
            continue
        if any(np.isnan(z) for z in (x[s], x[u], x[v], y[s], y[u], y[v])):
            continue
        if x[s] <= x[u] and y[s] <= y[u] and x[s] <= x[v] and y[s] > y[v]:
            return True
    return False


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=8),
       st.sampled_from(A.WITNESS_READINGS), st.booleans())
@settings(max_examples=300, deadline=None)
def test_witness_from_values_equals_brute_force(xy, reading, with_nan):
    x = np.array([a for a, _ in xy], float)
    y = np.array([b for _, b in xy], float)
    if with_nan:
        y[0] = np.nan
    hit = A.witness_from_values(x, y, reading)
    assert (hit is not None) == brute_witness(x, y, reading == "distinct")
    if hit is not None:
        s, u, v = hit
        assert x[s] <= x[u] and y[s] <= y[u] and x[s] <= x[v] and y[s] > y[v]
        if reading == "distinct":
            assert len({s, u, v}) == 3
    if reading == "literal" and not with_nan:
        c = A.concordance_counts(x, y)
        assert (hit is None) == (c["discordant"] + c["tied_x"] == 0)


def test_witness_refuses_bad_input():
    with pytest.raises(ValueError, match="reading"):
        A.witness_from_values([1, 2], [1, 2], "loose")
    with pytest.raises(ValueError, match="same number"):
        A.witness_from_values([1, 2], [1])
    with pytest.raises(ValueError, match="1..7"):
        A.inconsistency_witness("mse", "mae", 8, reading="distinct")


# ---------------------------------------------------------------------------------------------
# tabulated metrics


def test_tabulated_metric_equals_the_metric_and_refuses_other_input():
    t = PR.tabulate("spearman_rho", 4)
    ps = np.array(perms(4))
    assert np.allclose(t(ps[:, None, :], ps[None, :, :]), M.spearman_rho(ps[:, None, :], ps[None, :, :]))
    assert PR.symmetry(t, 4).holds and PR.maximal_agreement(t, 4).holds
    with pytest.raises(ValueError, match="length 4"):
        t([1, 2, 3], [1, 2, 3])
    with pytest.raises(ValueError, match="permutations of 1..4"):
        t([1, 1, 2, 3], [1, 2, 3, 4])
    with pytest.raises(ValueError, match="permutations of 1..4"):
        t([0, 2, 3, 4], [1, 2, 3, 4])
    with pytest.raises(ValueError, match="n <= 6"):
        PR.tabulate("mse", 7)
    with pytest.raises(ValueError, match="same shape"):
        PR.tabulate("mse", 3, apply=lambda v: v[0])


# ---------------------------------------------------------------------------------------------
# linear maps


def test_linear_map_parsing_and_errors():
    assert E.LinearMap.parse("2m + 1") == E.LinearMap(2.0, 1.0)
    assert E.LinearMap.parse("m0 − m") == E.LinearMap(-1.0, 0.0, 1.0)
    assert str(E.LinearMap.parse("m0 - m")) == "m(id, id) − m"
    assert E.LinearMap.parse("-0.5*m+.25").bind(3.0) == (-0.5, 0.25)
    assert E.LinearMap.parse("m - m0").bind(2.0) == (1.0, -2.0)
    for bad, msg in (("", "non-empty"), ("3", "does not depend on m"), ("m*m", "cannot read"),
                     ("2x", "cannot read"), ("m - m", "does not depend on m")):
        with pytest.raises(ValueError, match=msg):
            E.LinearMap.parse(bad)
    with pytest.raises(ValueError, match="non-zero"):
        E.LinearMap(0.0)
    with pytest.raises(ValueError, match="finite"):
        E.LinearMap(1.0, float("nan"))
    with pytest.raises(ValueError, match="unknown metric"):
        E.linear_image("taux", "m", 4)
    with pytest.raises(ValueError, match="not both"):
        E.linear_image("mse", "m", 4, absolute=True, sign=True)
    with pytest.raises(ValueError, match="ns must lie"):
        E.proposition_7_1_cases(["mse"], ns=(7,))


def test_snapping_makes_float_ties_exact():
    x = np.array([0.1 + 0.2, 0.3, 1.0, np.nan, 1.0 + 1e-15, 2.0])
    s = E._snap(x)
    assert s[0] == s[1] and s[2] == s[4] and np.isnan(s[3]) and s[5] == 2.0 and s[1] != s[2]


@given(a=st.sampled_from([-3.0, -1.0, -0.5, 0.5, 1.0, 2.0]),
       b=st.sampled_from([-2.0, -0.5, 0.0, 0.5, 1.0]),
       metric=st.sampled_from(["kendall_tau", "spearman_rho", "mse", "precision", "dcg", "r2"]))
@settings(max_examples=40, deadline=None)
def test_each_statement_against_its_closed_form(a, b, metric):
    """On S_4: symmetry and Definition 4 carry over for every a != 0; Definition 1 consistency
    holds iff a > 0 (the metrics are not constant on the row of the identity); |a m + b| has
    maximal agreement iff m has it and its diagonal value has the largest magnitude."""
    f = E.LinearMap(a, b)
    cases = E.proposition_7_1_cases([metric], ns=(4,), maps=(f,), ks=(2,))
    got = {(r.statement, r.reading): r.holds for r in cases.itertuples()}
    k = 2 if M.REGISTRY[metric].needs_k else None
    ps = np.array(perms(4))
    V = M.evaluate(metric, ps[:, None, :], ps[None, :, :], k=k)
    assert got["consistency", "as printed"] is (a > 0)
    assert got["consistency", "up to sign"] is True
    if np.allclose(V, V.T):
        assert got["symmetry", "as stated"] is True
    else:
        assert got["symmetry", "as stated"] is None
    diag = V[0, 0]
    has_max = np.allclose(np.diag(V), diag) and V.max() <= diag + 1e-9
    if has_max:
        W = np.abs(a * V + b)
        assert got["maximal_agreement", "as stated"] is bool(W.max() <= abs(a * diag + b) + 1e-9)
        assert got["maximal_agreement", "as proved"] is True
    else:
        assert got["maximal_agreement", "as stated"] is None
    if got["identity", "Definition 4"] is not None:
        assert got["identity", "Definition 4"] is True


def test_summary_counts_and_names_failures():
    cases = E.proposition_7_1_cases(["kendall_tau", "dcg"], ns=(4,), maps=("2m + 1", "-m + 0.5"))
    s = E.proposition_7_1_summary(cases).set_index(["statement", "reading"])
    assert s.loc[("consistency", "as printed"), "failures"] == 2  # both metrics, the decreasing map
    assert s.loc[("consistency", "as printed"), "failing maps"] == "−m + 0.5"
    assert s.loc[("consistency", "distinct"), "failing metrics"] == "kendall_tau"
    assert s.loc[("identity", "Definition 4"), "cases"] == 2 and s.loc[("identity", "Definition 4"), "holds"]
    assert not s.loc[("maximal_agreement", "as stated"), "holds"]
    assert s.loc[("maximal_agreement", "as proved"), "holds"]
    assert "σ = " in s.loc[("consistency", "as printed"), "example"]
    assert set(s.reset_index()["statement"]) == set(E.STATEMENTS)
