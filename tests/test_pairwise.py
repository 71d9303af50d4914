"""Tests for rankbook.pairwise: every metric against a double loop of the scalar call, the RBO
measures against rankbook.rbo, functions of your own, label lists, the condensed form with
scipy's squareform and linkage, symmetry against rankbook.properties, the memory bound, both
backends bit for bit, and the refusals."""

import math

import numpy as np
import pytest
import scipy.stats
from scipy.cluster.hierarchy import linkage
from scipy.spatial.distance import squareform

import rankbook
from rankbook import metrics as M
from rankbook import permutations as P
from rankbook import properties
from rankbook import rbo as RBO
from rankbook.pairwise import (ASYMMETRIC, MEMORY_ARRAYS, RBO_MEASURES, SYMMETRIC, pairwise,
                               pairwise_to)

HAVE_NUMBA = P._load_numba() is not None


def _kw(name, k=3):
    if name in RBO_MEASURES:
        return {"p": 0.8}
    return {"k": k} if M.REGISTRY[name].needs_k else {}


def _oriented(a, b, symmetric):
    """The pair numbered by its first ranking; for a symmetric metric, of (a, b) and (b, a)
    the one whose relative permutation is lexicographically smaller (as pairwise chooses)."""
    s, v = P.from_labels(a, b)
    if symmetric:
        s2, v2 = P.from_labels(b, a)
        if tuple(v2) < tuple(v):
            return s2, v2
    return s, v


def _double_loop(R, name, numbering="pair", **kw):
    """The scalar call on every ordered pair; "pair" numbers each pair by its first ranking."""
    N = len(R)
    out = np.empty((N, N))
    for i in range(N):
        for j in range(N):
            if name in RBO_MEASURES:
                out[i, j] = getattr(RBO, name)(R[i].tolist(), R[j].tolist(), kw["p"])
            elif numbering == "pair":
                out[i, j] = M.evaluate(name, *_oriented(R[i], R[j], name in SYMMETRIC), k=kw.get("k"))
            else:
                out[i, j] = M.evaluate(name, R[i], R[j], k=kw.get("k"))
    return out


@pytest.fixture(params=["numpy", "numba"])
def backend(request):
    if request.param == "numba" and not HAVE_NUMBA:
        pytest.skip("numba is not installed: only the numpy backend runs here")
    previous = P.set_backend(request.param)
    yield request.param
    P.set_backend(previous)


@pytest.mark.parametrize("numbering", ["pair", "given"])
@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_every_metric_equals_a_double_loop_of_the_scalar_call(n, numbering, backend):
    """All 33 metrics bit for bit (same kernels), with blocks of one pair and one block, and
    two threads, under both numberings; the RBO measures equal rankbook.rbo's scalar
    functions."""
    R = P.random(n, size=7, rng=n)
    for name in list(M.NAMES) + list(RBO_MEASURES):
        kw = _kw(name, k=min(3, n))
        if name in ("rbo_min", "rbo_res") and n == 1:
            continue
        want = _double_loop(R, name, numbering, **kw)
        if numbering == "pair" and name in SYMMETRIC:
            # either orientation: the scalar call on (j, i) sums the same terms in another order
            plain = np.array([[M.evaluate(name, *P.from_labels(a, b), k=kw.get("k")) for b in R]
                              for a in R])
            np.testing.assert_allclose(plain, want, rtol=1e-13, atol=1e-13, err_msg=name)
        kw["numbering"] = numbering
        for chunk, jobs in ((1, 1), (1 << 16, 1), (2 * n, 2)):
            got = pairwise(R, name, chunk=chunk, n_jobs=jobs, **kw)
            if name in RBO_MEASURES:
                np.testing.assert_allclose(got, want, rtol=0, atol=1e-15, err_msg=name)
            else:
                np.testing.assert_array_equal(got, want, err_msg=f"{name} chunk={chunk}")
        if name in SYMMETRIC or name in RBO_MEASURES:
            cond = pairwise(R, name, condensed=True, **kw)
            iu = np.triu_indices(len(R), 1)
            np.testing.assert_array_equal(cond, pairwise(R, name, **kw)[iu])
        to = pairwise_to(R[1:], R[0], name, **kw)
        np.testing.assert_array_equal(to, pairwise(R, name, **kw)[0, 1:])


def test_rbo_measures_match_the_scalar_functions_exactly_on_a_larger_sample():
    R = P.random(40, size=6, rng=3)
    for name in RBO_MEASURES:
        got = pairwise(R, name, p=0.95)
        want = _double_loop(R, name, p=0.95)
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_symmetric_split_matches_properties_symmetry_exhaustively():
    """SYMMETRIC / ASYMMETRIC against rankbook.properties.symmetry over S_4 and S_5 (every pair),
    with several k."""
    assert set(SYMMETRIC) | set(ASYMMETRIC) == set(M.NAMES) and not set(SYMMETRIC) & set(ASYMMETRIC)
    assert len(SYMMETRIC) == 27
    for name in M.NAMES:
        for n in (4, 5):
            for k in ((1, 2, n - 1) if M.REGISTRY[name].needs_k else (None,)):
                res = properties.symmetry(name, n, k=k, method="exhaustive")
                if name in SYMMETRIC:
                    assert res.holds, (name, n, k)
                elif not res.holds:
                    break
            else:
                continue
            break
        else:
            assert name in SYMMETRIC, f"{name} is listed asymmetric but is symmetric on S_4, S_5"


@pytest.mark.parametrize("numbering", ["pair", "given"])
def test_symmetric_metrics_give_symmetric_matrices_and_asymmetric_ones_do_not(numbering):
    R = P.random(12, size=9, rng=4)
    for name in M.NAMES:
        D = pairwise(R, name, k=4, numbering=numbering, symmetric=False)  # every ordered pair
        if name in SYMMETRIC:
            # numbered by the pair, (j, i) sums the same terms in another order
            np.testing.assert_allclose(D, D.T, rtol=1e-13, atol=1e-13, err_msg=name)
            Dsym = pairwise(R, name, k=4, numbering=numbering)
            np.testing.assert_array_equal(Dsym, Dsym.T, err_msg=name)
            np.testing.assert_allclose(Dsym, D, rtol=1e-13, atol=1e-13, err_msg=name)
        else:
            assert not np.allclose(D, D.T, equal_nan=True), name


def test_condensed_form_goes_to_squareform_and_linkage():
    R = P.random(30, size=12, rng=5)
    cond = pairwise(R, "ndpm", condensed=True)
    full = pairwise(R, "ndpm")
    np.testing.assert_array_equal(np.diag(full), 0.0)
    np.testing.assert_array_equal(squareform(cond), full)
    np.testing.assert_array_equal(squareform(full), cond)
    Z = linkage(cond, "average")
    assert Z.shape == (11, 4)
    assert pairwise(R[:1], "ndpm", condensed=True).shape == (0,)
    assert pairwise(R[:1], "ndpm").shape == (1, 1)


def test_kendall_against_a_double_loop_over_scipy():
    R = P.random(200, size=8, rng=6)
    inv = np.argsort(R, axis=1)  # the position of each item: the rank vectors
    got = pairwise(R, "kendall_tau", numbering="pair")
    given = pairwise(R, "kendall_tau")  # the default: as given
    np.testing.assert_array_equal(given, pairwise(R, "kendall_tau", numbering="given"))
    for i in range(len(R)):
        for j in range(len(R)):
            # item-based: scipy's tau of the two rank vectors; given: of the raw arrays
            assert got[i, j] == pytest.approx(scipy.stats.kendalltau(inv[i], inv[j]).statistic, abs=1e-14)
            assert given[i, j] == pytest.approx(scipy.stats.kendalltau(R[i], R[j]).statistic, abs=1e-14)
    # NDPM is the Kendall distance between the orders (the inverses), rescaled
    nd = pairwise(R, "ndpm")
    for i in range(len(R)):
        for j in range(i + 1, len(R)):
            tau = scipy.stats.kendalltau(inv[i], inv[j]).statistic
            assert nd[i, j] == pytest.approx((1 - tau) / 2, abs=1e-14)


def test_functions_of_your_own_vectorised_or_not():
    R = P.random(7, size=6, rng=7)

    def footrule(sigma, nu):  # vectorised over a batch
        return np.abs(np.asarray(sigma) - np.asarray(nu)).sum(axis=-1) / 1.0

    def first_item(sigma, nu):  # one pair only (float() of a batch fails)
        return float(sigma[0] - 2 * nu[0])

    def top_k_overlap(sigma, nu, k):  # takes k
        return len(set(sigma[:k]) & set(nu[:k])) / k

    for f, kw, sym in ((footrule, {}, True), (first_item, {}, False), (top_k_overlap, {"k": 3}, True)):
        # by default the function sees each pair as given; numbering="pair" numbers it by its
        # first ranking
        want = np.array([[f(*P.from_labels(a, b), **kw) for b in R] for a in R])
        given = np.array([[f(a, b, **kw) for b in R] for a in R])
        for s in (None, False) + ((True,) if sym else ()):
            np.testing.assert_array_equal(pairwise(R, f, symmetric=s, numbering="pair", **kw), want)
            np.testing.assert_array_equal(pairwise(R, f, symmetric=s, **kw), given)
        np.testing.assert_array_equal(pairwise_to(R[1:], R[0], f, numbering="pair", **kw),
                                      want[0, 1:])
        np.testing.assert_array_equal(pairwise_to(R[1:], R[0], f, **kw), given[0, 1:])
    assert pairwise(R, footrule, symmetric=True, condensed=True).shape == (15,)
    with pytest.raises(ValueError, match="not declared symmetric"):
        pairwise(R, footrule, condensed=True)

    def broken(sigma, nu):
        raise RuntimeError("boom")

    with pytest.raises(ValueError, match=r"metric 'broken' raised RuntimeError: boom for sigma="):
        pairwise(R, broken)
    with pytest.raises(ValueError, match="returned 7 values for one pair"):
        pairwise(R, lambda s, v: s)
    # a function that returns nan is allowed (undefined values are nan, as for the 33)
    assert np.isnan(pairwise(R, lambda s, v: math.nan)).all()


def test_label_lists_equal_their_permutations_in_any_numbering():
    lists = ["fbcead", "febacd", "abcdef", "dacbfe"]
    perms = P.from_labels(*lists)
    for name in ("kendall_tau", "mse", "ndpm", "mrr"):
        kw = _kw(name)
        want = pairwise(perms, name, numbering="pair", **kw)  # label lists: numbered by the pair
        np.testing.assert_array_equal(pairwise(lists, name, **kw), want)
        np.testing.assert_array_equal(pairwise(lists, name, numbering="pair", **kw), want)
        np.testing.assert_array_equal(pairwise([list(x) for x in lists], name, **kw), want)
    # pairwise_to numbers by the reference
    ref_num = P.from_labels("abcdef", *lists)
    np.testing.assert_array_equal(pairwise_to(lists, "abcdef", "kendall_tau"),
                                  M.kendall_tau(ref_num[0], ref_num[1:]))
    # integer items that are not 1..n are labels when asked
    ids = [[101, 205, 333], [333, 101, 205]]
    with pytest.raises(ValueError, match="outside 1..3"):
        pairwise(ids, "ndpm")
    assert pairwise(ids, "ndpm", labels=True)[0, 1] == pytest.approx(2 / 3)
    # RBO on labels equals rankbook.rbo on the lists
    assert pairwise(lists, "rbo_ext", p=0.9)[0, 1] == RBO.rbo_ext(lists[0], lists[1], 0.9)


def test_package_exports():
    """rankbook.pairwise is the module, callable as its function; rankbook.pairwise_to the
    function. Both load on first use: `import rankbook` alone does not import numpy."""
    import subprocess
    import sys

    import rankbook.pairwise as module

    R = P.random(6, size=4, rng=12)
    assert rankbook.pairwise is module and callable(rankbook.pairwise)
    np.testing.assert_array_equal(rankbook.pairwise(R, "ndpm", condensed=True),
                                  pairwise(R, "ndpm", condensed=True))
    assert rankbook.pairwise.SYMMETRIC is SYMMETRIC and rankbook.pairwise_to is pairwise_to
    code = "import sys, rankbook; print('numpy' in sys.modules, rankbook.__version__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split()[0] == "False"
    for first in ("pairwise", "pairwise_to"):  # either name first, in a fresh interpreter
        code = ("import rankbook; rankbook." + first + "; "
                "print(rankbook.pairwise([[1, 2, 3], [3, 2, 1]], 'ndpm', condensed=True).tolist(), "
                "rankbook.pairwise_to([[3, 2, 1]], [1, 2, 3], 'ndpm').tolist())")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert out.stdout.strip() == "[1.0] [1.0]", out.stderr[-500:]
    with pytest.raises(AttributeError, match="has no attribute 'pairwise_from'"):
        rankbook.pairwise_from


@pytest.mark.parametrize("jobs", [1, 2])
def test_memory_beyond_the_result_is_bounded_by_the_block(jobs):
    """The stated bound: beyond the N x N result, the rankings and their inverses, at most
    MEMORY_ARRAYS arrays of max(chunk, n) entries per job, for every metric and both backends
    (two threads: the costliest metrics)."""
    import tracemalloc

    N, n, chunk = 60, 50, 1 << 11
    R = P.random(n, size=N, rng=8)
    backends = ["numpy"] + (["numba"] if HAVE_NUMBA else [])
    names = list(M.NAMES) + list(RBO_MEASURES) if jobs == 1 else ["kendall_tau", "smape", "rbo_min"]
    for be in backends:
        previous = P.set_backend(be)
        try:
            for name in names:
                kw = _kw(name, k=10)
                # compile or load kernels, start the threads' machinery, outside the measure
                pairwise(R, name, chunk=chunk, n_jobs=jobs, **kw)
                tracemalloc.start()
                try:
                    out = pairwise(R, name, chunk=chunk, n_jobs=jobs, **kw)
                    peak = tracemalloc.get_traced_memory()[1]
                finally:
                    tracemalloc.stop()
                extra = peak - out.nbytes - 2 * R.nbytes  # the result, the inverses
                assert extra < jobs * MEMORY_ARRAYS * 8 * max(chunk, n), (be, name, extra)
        finally:
            P.set_backend(previous)
    # the bound does not grow with N: the block does
    big = P.random(n, size=4 * N, rng=9)
    tracemalloc.start()
    try:
        out = pairwise(big, "ndpm", chunk=chunk, condensed=True, n_jobs=jobs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak - out.nbytes - 2 * big.nbytes < jobs * MEMORY_ARRAYS * 8 * chunk


def test_refusals_name_the_problem():
    R = P.random(6, size=4, rng=10)
    with pytest.raises(ValueError, match="unknown metric 'hamming'; valid: one of the 33"):
        pairwise(R, "hamming")
    with pytest.raises(ValueError, match="this metric needs k"):
        pairwise(R, "recall")
    with pytest.raises(ValueError, match="rbo_ext needs the persistence p"):
        pairwise(R, "rbo_ext")
    with pytest.raises(ValueError, match="p must be a number with 0 < p < 1 .*got 1.0"):
        pairwise(R, "rbo", p=1.0)
    with pytest.raises(ValueError, match="dcg is not symmetric, so it has no condensed form"):
        pairwise(R, "dcg", condensed=True)
    with pytest.raises(ValueError, match="symmetric=False asks for every ordered pair of ndpm"):
        pairwise(R, "ndpm", symmetric=False, condensed=True)
    np.testing.assert_array_equal(pairwise(R, "ndpm", symmetric=False), pairwise(R, "ndpm"))
    with pytest.raises(ValueError, match="mrr is not symmetric"):
        pairwise(R, "mrr", k=2, symmetric=True)
    with pytest.raises(ValueError, match=r"rankings has duplicate values \[1\] \(row \(2,\)\)"):
        bad = R.copy()
        bad[2, :2] = 1
        pairwise(bad, "ndpm")
    with pytest.raises(ValueError, match=r"shape \(N, n\).*for one ranking use \[ranking\]"):
        pairwise(R[0], "ndpm")
    with pytest.raises(ValueError, match="do not all hold the same items.*'ndpm' needs rankings "
                                         "of the same items; the measures for lists with different "
                                         "items are rbo, rbo_ext"):
        pairwise(["abc", "abd"], "ndpm")
    with pytest.raises(ValueError, match="ranking 1 repeats item 'b'"):
        pairwise(["abc", "abb"], "rbo", p=0.9)
    with pytest.raises(ValueError, match="k=3 exceeds the shortest ranking \\(2 items\\)"):
        pairwise(["abc", "ab"], "recall", k=3)
    with pytest.raises(ValueError, match="numbering='given' reads the numbers of permutation arrays"):
        pairwise(["abc", "cab"], "ndpm", numbering="given")
    with pytest.raises(ValueError, match="numbering must be one of 'given', 'pair'"):
        pairwise(R, "ndpm", numbering="first")
    with pytest.raises(ValueError, match="n_jobs must be an integer >= 1 \\(or -1\\)"):
        pairwise(R, "ndpm", n_jobs=0)
    with pytest.raises(ValueError, match="chunk must be an integer >= 1"):
        pairwise(R, "ndpm", chunk=0)
    with pytest.raises(ValueError, match="reference ranks n=5 items and the rankings n=6"):
        pairwise_to(R, [1, 2, 3, 4, 5], "ndpm")
    with pytest.raises(ValueError, match="metric must be a name"):
        pairwise(R, 3)
    with pytest.raises(ValueError, match="labels must be True, False or None"):
        pairwise(R, "ndpm", labels="yes")


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")
def test_numba_and_numpy_backends_agree_bit_for_bit_on_pairs():
    R = P.random(37, size=25, rng=11)
    out = {}
    for be in ("numpy", "numba"):
        previous = P.set_backend(be)
        try:
            out[be] = {name: pairwise(R, name, **_kw(name, k=9)) for name in M.NAMES}
        finally:
            P.set_backend(previous)
    for name in M.NAMES:
        np.testing.assert_array_equal(out["numpy"][name], out["numba"][name], err_msg=name)


# --------------------------------------------------------------------------------------------
# issue 30, finding 14: every entry a function of its two rankings alone


ALL_MEASURES = list(M.NAMES) + list(RBO_MEASURES)


def _brute_tau(a, b):
    """1 - 2 d_K / C(n, 2), d_K the item pairs the two label rankings order differently."""
    pa = {x: i for i, x in enumerate(a)}
    pb = {x: i for i, x in enumerate(b)}
    items = list(a)
    n = len(items)
    d = sum((pa[x] - pa[y]) * (pb[x] - pb[y]) < 0
            for i, x in enumerate(items) for y in items[i + 1:])
    return 1 - 2 * d / (n * (n - 1) / 2)


def test_the_reported_sign_flip_is_gone():
    """Moving an unrelated list to the front changed tau(r_1, r_2) from 0.1429 to -0.1429."""
    rng = np.random.default_rng(30)
    items = list("abcdefg")
    lists = [list(rng.permutation(items)) for _ in range(5)]
    D = pairwise(lists, "kendall_tau")
    for front in range(5):
        order = [front] + [i for i in range(5) if i != front]
        E = pairwise([lists[i] for i in order], "kendall_tau")
        np.testing.assert_array_equal(E, D[np.ix_(order, order)])
    for i in range(5):
        for j in range(5):
            assert D[i, j] == pytest.approx(_brute_tau(lists[i], lists[j]), abs=1e-14)


@pytest.mark.parametrize("numbering", ["pair", "given"])
def test_permuting_the_rows_permutes_the_matrix(numbering, backend):
    """Every measure, permutations and label lists: D(R[perm]) = D(R)[perm][:, perm] exactly."""
    rng = np.random.default_rng(31)
    R = P.random(8, size=9, rng=31)
    labels = [[f"item {x}" for x in r] for r in R]
    for name in ALL_MEASURES:
        kw = _kw(name, k=3)
        for _ in range(3):
            perm = rng.permutation(len(R))
            want = pairwise(R, name, numbering=numbering, **kw)[np.ix_(perm, perm)]
            np.testing.assert_array_equal(pairwise(R[perm], name, numbering=numbering, **kw), want,
                                          err_msg=name)
            if numbering == "pair":  # label lists, whatever item comes first in the first list
                np.testing.assert_array_equal(pairwise([labels[i] for i in perm], name, **kw), want,
                                              err_msg=name)


def test_numbered_by_the_pair_every_metric_ignores_how_items_are_numbered():
    """Renumbering the items (g o r for every row) changes no value under numbering="pair"."""
    R = P.random(7, size=6, rng=32)
    g = P.random(7, rng=33)
    renumbered = g[R - 1]
    for name in ALL_MEASURES:
        kw = _kw(name, k=3)
        np.testing.assert_array_equal(pairwise(renumbered, name, numbering="pair", **kw),
                                      pairwise(R, name, numbering="pair", **kw), err_msg=name)


def test_item_based_tau_in_2000_random_pairs_against_brute_force_and_scipy():
    """The issue's check: n = 7, 2000 random pairs (it found the old value wrong in 1619)."""
    rng = np.random.default_rng(34)
    R = np.array([rng.permutation(7) + 1 for _ in range(4000)])
    got = pairwise_to(R[1::2], R[0], "kendall_tau", numbering="pair")  # row 0 against 2000
    inv = np.argsort(R, axis=1)
    for i, r in enumerate(R[1::2]):
        want = scipy.stats.kendalltau(inv[0], inv[2 * i + 1]).statistic
        assert got[i] == pytest.approx(want, abs=1e-14)
        assert got[i] == pytest.approx(_brute_tau(R[0].tolist(), r.tolist()), abs=1e-14)
    D = pairwise(R[:60], "kendall_tau", numbering="pair")
    for i in range(60):
        for j in range(60):
            assert D[i, j] == pytest.approx(_brute_tau(R[i].tolist(), R[j].tolist()), abs=1e-14)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hst  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(hst.integers(2, 9).flatmap(
    lambda n: hst.lists(hst.permutations(list(range(n))), min_size=2, max_size=6)),
    hst.randoms(use_true_random=False))
def test_hypothesis_tau_is_item_based_and_rows_are_independent(rows, rnd):
    labels = [[f"x{v}" for v in r] for r in rows]
    D = pairwise(labels, "kendall_tau")
    for i in range(len(rows)):
        for j in range(len(rows)):
            assert D[i, j] == pytest.approx(_brute_tau(labels[i], labels[j]), abs=1e-12)
    perm = list(range(len(rows)))
    rnd.shuffle(perm)
    np.testing.assert_array_equal(pairwise([labels[i] for i in perm], "kendall_tau"),
                                  D[np.ix_(perm, perm)])


# top-k lists over different item sets

def _top_k_lists(seed, N=6, k=10, pool=40, ragged=False):
    rng = np.random.default_rng(seed)
    lens = rng.integers(max(1, k - 4), k + 1, size=N) if ragged else [k] * N
    return [[f"doc{d}" for d in rng.choice(pool, size=m, replace=False)] for m in lens]


@pytest.mark.parametrize("ragged", [False, True])
def test_rbo_on_top_k_lists_over_different_items_equals_the_scalar_functions(ragged):
    lists = _top_k_lists(35, ragged=ragged)
    for name in RBO_MEASURES:
        want = np.array([[getattr(RBO, name)(a, b, 0.9) for b in lists] for a in lists])
        got = pairwise(lists, name, p=0.9)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-14, err_msg=name)
        to = pairwise_to(lists[1:], lists[0], name, p=0.9)
        np.testing.assert_allclose(to, want[0, 1:], rtol=0, atol=1e-14, err_msg=name)
        perm = np.random.default_rng(36).permutation(len(lists))
        np.testing.assert_array_equal(pairwise([lists[i] for i in perm], name, p=0.9),
                                      got[np.ix_(perm, perm)])


def test_overlap_metrics_on_top_k_lists_count_the_shared_top_k_items():
    lists = _top_k_lists(37, ragged=True)
    for k in (1, 3, 6):
        tp = np.array([[len(set(a[:k]) & set(b[:k])) for b in lists] for a in lists], dtype=float)
        want = {"recall": tp / k, "precision": tp / k, "fnr": 1 - tp / k, "fdr": 1 - tp / k,
                "f1": tp / k, "fowlkes_mallows": tp / k, "jaccard": tp / (2 * k - tp)}
        for name, w in want.items():
            np.testing.assert_allclose(pairwise(lists, name, k=k), w, rtol=1e-15, err_msg=name)
    # on lists of the same items, the overlap path gives the permutation path's values
    same = [list(r) for r in P.random(8, size=5, rng=38)]
    for name in ("recall", "jaccard", "fowlkes_mallows"):
        from rankbook import pairwise as module

        L, _, _ = module._numbered([[str(x) for x in r] for r in same] + [["a"]], None)
        L.codes, L.lengths = L.codes[:-1, :8], L.lengths[:-1]
        ev = module._resolve(name, 3, None, None, 8, "pair", L)
        I, J = module._upper_pairs(5)(0, 10)
        np.testing.assert_array_equal(ev(L, None, I, J), pairwise(same, name, k=3, condensed=True))


@settings(max_examples=60, deadline=None)
@given(hst.integers(2, 8), hst.integers(1, 9), hst.integers(2, 30), hst.booleans(),
       hst.integers(0, 2**32 - 1))
def test_hypothesis_top_k_lists_rbo_and_row_order(N, k, pool, ragged, seed):
    k = min(k, pool)
    rng = np.random.default_rng(seed)
    lens = rng.integers(1, k + 1, size=N) if ragged else [k] * N
    lists = [[int(x) for x in rng.choice(pool, size=m, replace=False)] for m in lens]
    for name in ("rbo", "rbo_ext", "rbo_min", "rbo_res"):
        want = np.array([[getattr(RBO, name)(a, b, 0.8) for b in lists] for a in lists])
        got = pairwise(lists, name, p=0.8, labels=True)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-13, err_msg=name)
    perm = rng.permutation(N)
    np.testing.assert_array_equal(pairwise([lists[i] for i in perm], "rbo_ext", p=0.8, labels=True),
                                  pairwise(lists, "rbo_ext", p=0.8, labels=True)[np.ix_(perm, perm)])


def test_an_output_larger_than_memory_is_refused_with_its_size(monkeypatch):
    """numpy's bare MemoryError (or the system's kill) became a ValueError naming the size."""
    from rankbook import agreement
    from rankbook import permutations as perm

    R = P.random(5, size=20, rng=0)
    assert pairwise(R, "kendall_tau").shape == (20, 20)
    monkeypatch.setattr(perm, "physical_memory", lambda: 1000)  # 20 x 20 x 8 = 3200 bytes
    with pytest.raises(ValueError, match="the 20 x 20 matrix of kendall_tau would need 3,200 bytes "
                                         "of memory, more than this machine's 1,000 bytes"):
        pairwise(R, "kendall_tau")
    with pytest.raises(ValueError, match="100 random rankings of 5 items would need 4,000 bytes"):
        agreement.sample(5, 100, seed=0)
    monkeypatch.setattr(perm, "physical_memory", lambda: None)  # unknown: no refusal
    assert pairwise(R, "kendall_tau").shape == (20, 20)
