"""Tests of rankbook.consensus (paper B) against brute-force enumeration, properties of the
measure, scipy's Kendall tau, and the published tables of the paper."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from rankbook import consensus as c
from rankbook.papers.paper_b import grids as paper_b_grids
from rankbook.ledger.paths import data_path

EXAMPLE_1 = ["abcdef", "bdcefa", "bcdeghijkf", "badefc"]
GRID = [1.0, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45]


# ------------------------------------------------------------------------------------------
# an independent brute-force implementation (no code shared with the module)


def _positions(ranking):
    """label -> 1-based position, tie groups sharing one position."""
    if isinstance(ranking, str):
        ranking = list(ranking)
    pos = {}
    for j, el in enumerate(ranking, start=1):
        group = el if isinstance(el, (set, frozenset, tuple, list)) else [el]
        for x in group:
            pos[x] = j
    return pos


def _spread(values, deviation):
    v = np.asarray(values, dtype=float)
    mu = v.mean()
    if deviation == "std":
        return math.sqrt(sum((x - mu) ** 2 for x in v) / len(v))
    if deviation == "mad":
        return sum(abs(x - mu) for x in v) / len(v)
    if deviation == "sqrt_mad":
        return math.sqrt(sum(abs(x - mu) for x in v) / len(v))
    raise AssertionError(deviation)


def brute_force(rankings, gamma=1.0, lam=1.0, deviation="std"):
    """Enumerate every ordered tuple of distinct common items; return (kappa, [kappa_p])."""
    P = [_positions(r) for r in rankings]
    common = [x for x in P[0] if all(x in p for p in P)]
    by_len = []
    for length in range(1, len(common) + 1):
        total = 0.0
        for seq in itertools.permutations(common, length):
            if not all(p[a] < p[b] for p in P for a, b in zip(seq, seq[1:])):
                continue
            if length == 1:
                w = gamma ** _spread([p[seq[0]] for p in P], deviation)
            else:
                w = 1.0
                for a, b in zip(seq, seq[1:]):
                    w *= lam ** (sum(abs(p[b] - p[a]) for p in P) / len(P))
            total += w
        if total == 0:
            break
        by_len.append(total)
    return sum(by_len), by_len


def random_rankings(rng, max_items=6, max_rankings=4, ties=True, partial=True):
    universe = list("abcdefgh"[: rng.integers(1, max_items + 1)])
    out = []
    for _ in range(rng.integers(1, max_rankings + 1)):
        if partial and rng.random() < 0.5:
            k = int(rng.integers(1, len(universe) + 1))
            items = list(rng.choice(universe, size=k, replace=False))
        else:
            items = list(rng.permutation(universe))
        ranking = []
        i = 0
        while i < len(items):
            size = 1
            if ties and rng.random() < 0.3:
                size = int(rng.integers(1, 4))
            group = items[i : i + size]
            i += size
            if len(group) == 1:
                ranking.append(str(group[0]))
            else:
                kind = [set, frozenset, tuple, list][int(rng.integers(4))]
                ranking.append(kind(str(x) for x in group))
        out.append(ranking)
    return out


# ------------------------------------------------------------------------------------------
# Example 1


def test_example_1_counts():
    assert c.kappa_p(EXAMPLE_1).tolist() == [5.0, 7.0, 4.0, 1.0]
    assert c.kappa(EXAMPLE_1) == 17.0
    assert c.longest_common(EXAMPLE_1) == 4


def test_example_1_matrices():
    A = c.consensus_matrix(EXAMPLE_1).to_numpy()
    expected_A = np.array(
        [
            [0, 0, 0, 0, 0, 0],
            [0, 1, 0, 0, 0, 0],
            [0, 1, 1, 0, 0, 0],
            [0, 1, 0, 1, 0, 0],
            [0, 1, 0, 1, 1, 0],
            [0, 1, 0, 1, 1, 1],
        ]
    )
    np.testing.assert_array_equal(A, expected_A)
    L = np.tril(A, -1)
    L2 = L @ L
    L3 = L2 @ L
    assert L2[5, 1] == 2 and L2[5, 3] == 1 and L2[4, 1] == 1 and L2.sum() == 4
    assert L3[5, 1] == 1 and L3.sum() == 1
    assert not (L3 @ L).any()


def test_example_1_typo_variants():
    # Section IV-A prints r3 = bcdghijklf (no e): then e is not common and kappa changes
    variant = ["abcdef", "bdcefa", "bcdghijklf", "badefc"]
    assert c.kappa_p(variant).tolist() != [5.0, 7.0, 4.0, 1.0]
    # Example 1 prints r4 = badeffc, which repeats f
    with pytest.raises(ValueError, match="repeated"):
        c.kappa(["abcdef", "bdcefa", "bcdeghijkf", "badeffc"])


def test_example_1_position_and_gap_tables():
    g = c.consensus_graph(EXAMPLE_1, base=0)
    f = g.items.index("f")
    assert g.positions[:, f].tolist() == [6, 5, 10, 5]
    b, cc = g.items.index("b"), g.items.index("c")
    assert (g.positions[:, cc] - g.positions[:, b]).tolist() == [1, 2, 1, 5]
    assert (g.positions[:, f] - g.positions[:, b]).tolist() == [4, 4, 9, 4]


# ------------------------------------------------------------------------------------------
# brute force


@pytest.mark.parametrize("seed", range(3))
def test_brute_force_unweighted(seed):
    rng = np.random.default_rng(seed)
    n_nonzero = 0
    for _ in range(120):
        R = random_rankings(rng)
        expected, by_len = brute_force(R)
        assert c.kappa(R) == expected, R
        assert c.kappa_p(R).tolist() == by_len, R
        assert c.longest_common(R) == len(by_len), R
        n_nonzero += expected > 0
    assert n_nonzero > 60  # the random sets are not trivially empty


@pytest.mark.parametrize("deviation", ["std", "mad", "sqrt_mad"])
def test_brute_force_weighted(deviation):
    rng = np.random.default_rng(42)
    for _ in range(120):
        R = random_rankings(rng)
        gamma, lam = rng.uniform(0.3, 1.0, size=2)
        expected, by_len = brute_force(R, gamma, lam, deviation)
        assert c.kappa(R, gamma, lam, deviation=deviation) == pytest.approx(expected, rel=1e-12)
        np.testing.assert_allclose(c.kappa_p(R, gamma, lam, deviation=deviation), by_len,
                                   rtol=1e-12)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.permutations("abcdef"), min_size=1, max_size=4),
    st.lists(st.integers(1, 6), min_size=4, max_size=4),
    st.floats(0.2, 1.0),
    st.floats(0.2, 1.0),
)
def test_brute_force_hypothesis(perms, cuts, gamma, lam):
    R = ["".join(p[:k]) for p, k in zip(perms, cuts)]  # partial (top-k) rankings
    expected, by_len = brute_force(R, gamma, lam)
    assert c.kappa(R, gamma, lam) == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(c.kappa_p(R, gamma, lam), by_len, rtol=1e-12)


# ------------------------------------------------------------------------------------------
# properties


@pytest.mark.parametrize("n", [1, 2, 5, 10, 30, 52])
def test_single_ranking_gives_2n_minus_1(n):
    assert c.kappa([list(range(n))]) == 2.0**n - 1
    assert c.kappa([list(range(n))] * 3) == 2.0**n - 1
    assert c.longest_common([list(range(n))]) == n


def test_single_ranking_with_ties():
    # one item from each tie group at most: prod(1 + |T|) - 1
    R = [["a", {"b", "c"}, "d", ("e", "f", "g")]]
    assert c.kappa(R) == 2 * 3 * 2 * 4 - 1


def test_adding_a_ranking_never_increases_kappa():
    rng = np.random.default_rng(7)
    for _ in range(200):
        R = random_rankings(rng, max_rankings=4)
        extra = random_rankings(rng, max_rankings=1)[0]
        assert c.kappa(R + [extra]) <= c.kappa(R)
        assert c.longest_common(R + [extra]) <= c.longest_common(R)


def test_weighted_kappa_can_grow_when_a_ranking_is_added():
    # Eq. (3) is about counts: a new ranking can pull an item's positions together
    R = ["ab", "xa"]  # a at positions 1, 2: spread 0.5
    grown = R + ["ya"]  # a at 1, 2, 2: spread sqrt(2)/3 < 0.5
    assert c.kappa(grown) <= c.kappa(R)
    assert c.kappa(grown, gamma=0.5) == pytest.approx(0.5 ** (math.sqrt(2) / 3))
    assert c.kappa(grown, gamma=0.5) > c.kappa(R, gamma=0.5) == pytest.approx(0.5**0.5)


def test_kappa_independent_of_base_and_order():
    rng = np.random.default_rng(3)
    for _ in range(100):
        R = random_rankings(rng)
        gamma, lam = rng.uniform(0.4, 1.0, size=2)
        values = [c.kappa(R, gamma, lam, base=b) for b in range(len(R))]
        np.testing.assert_allclose(values, values[0], rtol=1e-12)
        kps = [c.kappa_p(R, gamma, lam, base=b) for b in range(len(R))]
        for kp in kps:
            np.testing.assert_allclose(kp, kps[0], rtol=1e-12)
        np.testing.assert_allclose(c.kappa(R[::-1], gamma, lam), values[0], rtol=1e-12)


def test_kappa_p_sums_to_kappa_and_sparse_path():
    rng = np.random.default_rng(5)
    base = rng.permutation(400)
    R = [base.copy() for _ in range(4)]
    for r in R[1:]:  # a few adjacent swaps: long common subsequences, many edges
        i = 2 * rng.choice(199, size=20, replace=False)  # disjoint adjacent swaps
        r[i], r[i + 1] = r[i + 1].copy(), r[i].copy()
    g = c.consensus_graph(R)
    assert g.n_items > c._DENSE_MAX  # exercises the sparse triangular solve
    for lam in (0.3, 0.5):
        k = c.kappa(R, 0.9, lam)
        kp = c.kappa_p(R, 0.9, lam)
        assert k == pytest.approx(kp.sum(), rel=1e-9)


def test_edges_chunking_matches_dense():
    rng = np.random.default_rng(11)
    M = np.stack([rng.permutation(60) for _ in range(2)])
    M[1] = np.where(rng.random(60) < 0.7, M[0], M[1])
    dense = np.ones((60, 60), dtype=bool)
    for row in M:
        dense &= row[:, None] > row[None, :]
    # many disagreeing rankings: the dense phase hands over to the pair list
    many = np.stack([rng.permutation(60) for _ in range(8)])
    dense_many = np.ones((60, 60), dtype=bool)
    for row in many:
        dense_many &= row[:, None] > row[None, :]
    for matrix, expected in ((M, np.tril(dense, -1)), (many, np.tril(dense_many, -1))):
        for chunk in (1, 7, 100, 10_000):
            rows, cols = c._edges(matrix, chunk_pairs=chunk)
            got = np.zeros_like(expected)
            got[rows, cols] = True
            np.testing.assert_array_equal(got, expected)
            assert len(set(zip(rows.tolist(), cols.tolist()))) == rows.size


def test_kendall_tau_cross_check():
    """For two full rankings without ties, kappa_2 counts the concordant pairs."""
    rng = np.random.default_rng(2)
    for n in (2, 5, 20, 60):
        for _ in range(10):
            x, y = rng.permutation(n), rng.permutation(n)
            kp = c.kappa_p([x, y])
            k2 = kp[1] if kp.size > 1 else 0.0
            # positions of item i in each ranking
            px, py = np.argsort(x), np.argsort(y)
            tau = kendalltau(px, py).statistic
            assert k2 == pytest.approx(math.comb(n, 2) * (1 + tau) / 2, abs=1e-9)


def _lcs(a, b):
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def test_longest_common_matches_lcs_dynamic_programming():
    rng = np.random.default_rng(9)
    for _ in range(100):
        n = int(rng.integers(1, 30))
        a = rng.permutation(n).tolist()
        b = rng.permutation(n)[: rng.integers(1, n + 1)].tolist()
        assert c.longest_common([a, b]) == _lcs(a, b)


def test_broadcasting_over_grid():
    R = EXAMPLE_1
    G = np.array(GRID)[:, None]
    Lm = np.array(GRID)[None, :]
    grid = c.kappa(R, G, Lm)
    assert grid.shape == (12, 12)
    assert grid[3, 5] == pytest.approx(c.kappa(R, GRID[3], GRID[5]))
    kp = c.kappa_p(R, G, Lm)
    assert kp.shape == (12, 12, 4)
    np.testing.assert_allclose(kp.sum(axis=-1), grid)


def test_no_common_item():
    assert c.kappa(["ab", "cd"]) == 0.0
    assert c.kappa_p(["ab", "cd"]).shape == (0,)
    assert c.longest_common(["ab", "cd"]) == 0


def test_overflow_gives_inf_not_nan():
    R = [list(range(1100))] * 2
    assert c.kappa(R) == np.inf


# ------------------------------------------------------------------------------------------
# duplicates and top-k


def test_kappa_hat_example():
    R = EXAMPLE_1
    Rp = R + ["badefc"] * 3
    assert c.kappa_hat(Rp) == 17 + 7 * 4 / 4
    assert c.kappa(Rp) == c.kappa(R)
    # rankings equal up to the order inside a tie group are duplicates
    assert c.kappa_hat([["a", {"b", "c"}], ["a", ("c", "b")]]) == 5 + 2 * 2 / 1


def test_kappa_1_topk_brute_force():
    rng = np.random.default_rng(4)
    for _ in range(100):
        R = random_rankings(rng, ties=False)
        zeta, p, gamma = rng.uniform(1, 7), rng.uniform(0.2, 1), rng.uniform(0.2, 1)
        P = [_positions(r) for r in R]
        common = [x for x in P[0] if all(x in q for q in P)]
        expected = 0.0
        for x in common:
            pos = [q[x] for q in P]
            mu, d = np.mean(pos), _spread(pos, "std")
            if zeta - mu - d > 0:
                expected += p**mu * gamma**d
        assert c.kappa_1_topk(R, zeta, p, gamma) == pytest.approx(expected, rel=1e-12)


def test_kappa_1_topk_claim_counterexample():
    # item a (the only common item) is 19th, below the cut-off 10, in one ranking, yet counts
    R = [["a"] + [f"x{k}.{i}" for i in range(10)] for k in range(9)]
    R.append([f"x9.{i}" for i in range(18)] + ["a"])
    assert c.consensus_graph(R).items == ["a"]
    mu, d = 2.8, math.sqrt((9 * 1.8**2 + 16.2**2) / 10)  # 5.4
    assert c.kappa_1_topk(R, zeta=10, p=0.9) == pytest.approx(0.9**mu)
    assert c.kappa_1_topk(R, zeta=10, p=0.9, gamma=0.5) == pytest.approx(0.9**mu * 0.5**d)
    assert c.kappa_1_topk(R, zeta=mu + d, p=0.9) == 0.0  # H(0) = 0


# ------------------------------------------------------------------------------------------
# the paper's tables


def _sets():
    base = list(c.read_rankings_csv(data_path("rankings", "paper_b_table_ii_clustering.csv"))["all"].values())
    agg = c.read_rankings_csv(data_path("rankings", "paper_b_table_iii_aggregations.csv"))["all"]
    search = c.read_rankings_csv(data_path("rankings", "paper_b_table_v_search.csv"))
    return {
        "table_iv_ga": base + [agg["GA"]],
        "table_iv_ce": base + [agg["CE"]],
        "table_vi_google": list(search["Google"].values()),
        "table_vi_bing": list(search["Bing"].values()),
    }


def test_published_tables_reproduced_with_std_only():
    for stem, R in _sets().items():
        pub = paper_b_grids.read_published_grid(data_path("published", "paper_b", f"{stem}.csv"))
        assert pub.shape == (12, 12)
        res = paper_b_grids.compare_grid(c.kappa_grid(R, GRID, GRID), pub)
        assert (res["matched"], res["total"]) == (144, 144), stem
        for dev in ("mad", "sqrt_mad"):
            other = paper_b_grids.compare_grid(c.kappa_grid(R, GRID, GRID, deviation=dev), pub)
            assert other["matched"] < 144, (stem, dev)


def test_kappa_grid_p_matches_kappa_p():
    R = _sets()["table_vi_bing"]
    for p in (1, 2, 3, 4):
        grid = c.kappa_grid(R, [1.0, 0.7], [1.0, 0.6], p=p)
        kp = c.kappa_p(R, 0.7, 0.6)
        expected = kp[p - 1] if p <= kp.size else 0.0
        assert grid.iloc[1, 1] == pytest.approx(expected)


# ------------------------------------------------------------------------------------------
# input checks


@pytest.mark.parametrize(
    "rankings, kwargs, message",
    [
        ([], {}, "empty"),
        (["abc", ""], {}, r"rankings\[1\] is empty"),
        (["abca"], {}, "repeated"),
        ([["a", {"a", "b"}]], {}, "repeated"),
        (["abc"], {"gamma": 0.0}, "gamma must lie in"),
        (["abc"], {"gamma": 1.5}, "gamma must lie in"),
        (["abc"], {"lam": -0.1}, "lam must lie in"),
        (["abc"], {"lam": float("nan")}, "lam must lie in"),
        (["abc"], {"gamma": "x"}, "gamma must be"),
        ([["a", {"x": 1}]], {}, "unhashable"),
        ([["a", ["b", {"c": 1}]]], {}, "unhashable"),
        ([["a", set()]], {}, "empty tie group"),
        ([{"a", "b"}], {}, "no order"),
        ([5], {}, "not a sequence"),
        (["abc"], {"deviation": "var"}, "deviation must be one of 'std', 'mad'"),
        (["abc", "cab"], {"base": 2}, "base=2"),
    ],
)
def test_bad_input_raises_value_error(rankings, kwargs, message):
    with pytest.raises(ValueError, match=message):
        c.kappa(rankings, **kwargs)


def test_bad_p_and_zeta():
    with pytest.raises(ValueError, match="p must lie in"):
        c.kappa_1_topk(["abc"], zeta=2, p=0)
    with pytest.raises(ValueError, match="p must lie in"):
        c.kappa_1_topk(["abc"], zeta=2, p=1.2)
    with pytest.raises(ValueError, match="zeta"):
        c.kappa_1_topk(["abc"], zeta="top", p=0.5)
    with pytest.raises(ValueError, match=r"p must be an integer >= 1 \(a subsequence length\), got 0"):
        c.kappa_grid(["abc"], [1.0], [1.0], p=0)


def test_read_rankings_csv(tmp_path):
    f = tmp_path / "r.csv"
    f.write_text("# comment\ngroup,name,1,2,3\ng1,x,a,b|c,d\ng1,y,d,a,\ng2,z,a,b,c\n")
    got = c.read_rankings_csv(f)
    assert list(got) == ["g1", "g2"]
    assert got["g1"]["x"] == ["a", frozenset({"b", "c"}), "d"]
    assert got["g1"]["y"] == ["d", "a"]
    assert c.kappa(list(got["g1"].values())) == 2.0  # a and d, opposite orders
    bad = tmp_path / "bad.csv"
    bad.write_text("name,1,2,3\nx,a,,c\n")
    with pytest.raises(ValueError, match="empty cell"):
        c.read_rankings_csv(bad)
    noname = tmp_path / "noname.csv"
    noname.write_text("who,1\nx,a\n")
    with pytest.raises(ValueError, match="'name' column"):
        c.read_rankings_csv(noname)


def test_draw_consensus_graph():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rankbook import plotting

    ax = plotting.draw_consensus_graph(EXAMPLE_1, 0.9, 0.8)
    texts = [t.get_text() for t in ax.texts]
    assert "a" in texts and "f" in texts
    assert len([p for p in ax.patches if type(p).__name__ == "FancyArrowPatch"]) == 7
    plt.close(ax.figure)


# ------------------------------------------------------------------ containers and the strict reader
@pytest.mark.parametrize("rankings, message", [
    ("abc", "single str"),
    ({"all": {"r1": "abc", "r2": "bca"}}, r"list\(groups\['all'\].values\(\)\)"),
    ({"r1": "abc", "r2": "bca"}, "pass a list of rankings"),
])
def test_the_wrong_container_is_a_type_error(rankings, message):
    with pytest.raises(TypeError, match=message):
        c.kappa(rankings)


def test_the_reader_output_gives_the_right_kappa_when_passed_as_told(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("name,1,2,3,4,5,6\nr1,a,b,c,d,e,f\nr2,b,d,c,e,f,a\nr3,b,a,d,e,f,c\n")
    groups = c.read_rankings_csv(path)
    assert c.kappa(list(groups["all"].values())) == c.kappa(["abcdef", "bdcefa", "badefc"])


BAD_FILES = [
    ("comma.csv", "name,1,2,3\nr1,Smith, J.,b,c\n", r"line 2: 5 fields where the header has 4; quote labels"),
    ("trailing.csv", "name,1,2,3\nr1,a,b,c,d\n", r"line 2: 5 fields where the header has 4"),
    ("short.csv", "name,1,2,3\nr1,a,b\n", r"line 2: 3 fields where the header has 4"),
    ("empty.csv", "", r"empty.csv is empty"),
    ("comments_only.csv", "# only a comment\n\n", r"comments_only.csv is empty"),
    ("header.csv", "name,1,2,3\n", r"header.csv holds only a header"),
    ("dup.csv", "name,1,2,3\nr1,a,b,a\n", r"line 2: ranking 'r1' repeats item 'a'"),
    ("tie.csv", "name,1,2\nr1,a,b|b\n", r"line 2: ranking 'r1' repeats item 'b' inside the tie group 'b\|b'"),
    ("tie2.csv", "name,1,2\nr1,a|b,b\n", r"line 2: ranking 'r1' repeats item 'b'"),
    ("gap.csv", "# c\nname,1,2,3\nr1,a,,c\n", r"line 3: ranking 'r1' has an empty cell"),
    ("noname.csv", "who,1\nx,a\n", r"no 'name' column"),
    ("names.csv", "name,1,2\nr1,a,b\nr1,b,a\n", r"line 3: ranking name 'r1' repeated"),
]


@pytest.mark.parametrize("name, content, message", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_the_reader_refuses_malformed_files_naming_file_and_line(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(ValueError, match=message) as err:
        c.read_rankings_csv(path)
    assert str(path) in str(err.value)


def test_the_reader_refuses_a_folder_and_a_missing_path(tmp_path):
    with pytest.raises(ValueError, match="is a folder"):
        c.read_rankings_csv(tmp_path)
    with pytest.raises(ValueError, match="no such file"):
        c.read_rankings_csv(tmp_path / "missing.csv")


def test_the_reader_accepts_quoted_commas_ties_and_partial_rankings(tmp_path):
    path = tmp_path / "ok.csv"
    path.write_text('# a comment\nname,group,1,2,3\n"Smith, J.",g1,"x, y",b|c,\nr2,g2,a,b,c\n')
    got = c.read_rankings_csv(path)
    assert got == {"g1": {"Smith, J.": ["x, y", frozenset({"b", "c"})]}, "g2": {"r2": ["a", "b", "c"]}}


def test_kappa_bootstrap_bound_is_inf_not_nan_when_resamples_overflow():
    """A resample repeating one ranking of more than 1023 items has kappa inf (float64): the
    upper bound is that inf, never nan, and no warning is raised."""
    import warnings

    rng = np.random.default_rng(0)
    rs = [list(rng.permutation(1100)) for _ in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = c.kappa_bootstrap(rs, n_resamples=200)
    assert np.isinf(r.distribution).any() and r.high == np.inf and np.isfinite(r.low)
    assert not np.isnan([r.low, r.high]).any()


def test_kappa_bootstrap_refuses_resamples_beyond_memory(monkeypatch):
    from rankbook import permutations as perm

    monkeypatch.setattr(perm, "physical_memory", lambda: 10_000)
    with pytest.raises(ValueError, match="1,000 resamples of 3 rankings would need 48,000 bytes"):
        c.kappa_bootstrap(["abc", "acb", "bca"], n_resamples=1000)
    monkeypatch.setattr(perm, "physical_memory", lambda: None)
    assert c.kappa_bootstrap(["abc", "acb", "bca"], n_resamples=1000).n_resamples == 1000


@pytest.mark.parametrize("bad", ["0.5", True, b"1"])
def test_weights_given_as_text_or_bool_are_refused_as_rbo_refuses_them(bad):
    with pytest.raises(ValueError, match="gamma must be a number in"):
        c.kappa(["abc", "acb"], gamma=bad)
