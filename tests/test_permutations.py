"""Tests for rankbook.permutations: construction, the group law as paper A writes it, validation."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import permutations as P


def perms(min_n=1, max_n=9):
    return st.integers(min_n, max_n).flatmap(lambda n: st.permutations(list(range(1, n + 1))))


def test_identity_and_full_cycle():
    assert P.identity(5).tolist() == [1, 2, 3, 4, 5]
    assert P.identity(5).dtype == np.int64
    assert P.full_cycle(5).tolist() == [2, 3, 4, 5, 1]
    nu = np.array([4, 2, 5, 1, 3])
    assert P.compose(nu, P.full_cycle(5)).tolist() == np.roll(nu, -1).tolist()


def test_random_shapes_seed_and_uniformity():
    assert P.random(6, rng=3).shape == (6,)
    assert P.random(6, size=4, rng=3).shape == (4, 6)
    b = P.random(6, size=(2, 3), rng=3)
    assert b.shape == (2, 3, 6) and b.dtype == np.int64
    assert np.array_equal(np.sort(b, axis=-1), np.broadcast_to(np.arange(1, 7), b.shape))
    assert np.array_equal(P.random(6, size=10, rng=7), P.random(6, size=10, rng=7))
    g = np.random.default_rng(7)
    assert np.array_equal(P.random(6, size=10, rng=g), P.random(6, size=10, rng=7))
    # all 6 permutations of S_3 appear with roughly equal frequency
    x = P.random(3, size=6000, rng=0)
    codes = (x * np.array([9, 3, 1])).sum(-1)
    _, counts = np.unique(codes, return_counts=True)
    assert len(counts) == 6 and counts.min() > 850 and counts.max() < 1150


def test_all_permutations_lexicographic():
    a = P.all_permutations(4)
    assert a.shape == (24, 4)
    assert a.tolist() == [list(p) for p in itertools.permutations(range(1, 5))]
    assert P.all_permutations(1).tolist() == [[1]]
    with pytest.raises(ValueError, match="n <= 10"):
        P.all_permutations(11)


def test_compose_matches_paper_definition_on_s4():
    a = P.all_permutations(4)
    s = a[:, None, :]
    t = a[None, :, :]
    c = P.compose(s, t)
    assert c.shape == (24, 24, 4)
    for x, y in [(3, 17), (5, 5), (23, 0), (11, 8)]:
        sig, nu = a[x], a[y]
        expected = [sig[nu[i] - 1] for i in range(4)]  # (sigma o nu)(i) = sigma(nu(i))
        assert c[x, y].tolist() == expected
    # not commutative
    assert not np.array_equal(c, c.transpose(1, 0, 2))


def test_transposition_and_inverse():
    assert P.transposition(5, 2, 4).tolist() == [1, 4, 3, 2, 5]
    assert P.transposition(5, 4, 2).tolist() == [1, 4, 3, 2, 5]
    nu = np.array([5, 3, 1, 2, 4])
    assert P.compose(nu, P.transposition(5, 1, 5)).tolist() == [4, 3, 1, 2, 5]
    batch = P.transposition(5, np.array([1, 2]), np.array([2, 5]))
    assert batch.tolist() == [[2, 1, 3, 4, 5], [1, 5, 3, 4, 2]]
    with pytest.raises(ValueError, match="distinct"):
        P.transposition(5, 2, 2)
    with pytest.raises(ValueError, match="1..5"):
        P.transposition(5, 0, 2)
    assert P.inverse([3, 1, 2]).tolist() == [2, 3, 1]


@given(perms(), st.data())
@settings(max_examples=200, deadline=None)
def test_group_laws(sigma, data):
    n = len(sigma)
    nu = data.draw(st.permutations(list(range(1, n + 1))))
    mu = data.draw(st.permutations(list(range(1, n + 1))))
    e = P.identity(n)
    assert P.compose(sigma, P.inverse(sigma)).tolist() == e.tolist()
    assert P.compose(P.inverse(sigma), sigma).tolist() == e.tolist()
    assert P.compose(sigma, e).tolist() == list(sigma)
    assert P.compose(e, sigma).tolist() == list(sigma)
    assert P.compose(P.compose(sigma, nu), mu).tolist() == P.compose(sigma, P.compose(nu, mu)).tolist()
    assert P.inverse(P.compose(sigma, nu)).tolist() == P.compose(P.inverse(nu), P.inverse(sigma)).tolist()


def test_batch_broadcasting():
    s = P.random(5, size=(3, 1), rng=1)
    t = P.random(5, size=(4,), rng=2)
    c = P.compose(s, t)
    assert c.shape == (3, 4, 5)
    for a in range(3):
        for b in range(4):
            assert c[a, b].tolist() == P.compose(s[a, 0], t[b]).tolist()
    vs, vt = P.validate(s, t)
    assert vs.shape == vt.shape == (3, 4, 5)


@pytest.mark.parametrize(
    "bad, message",
    [
        ([1.5, 2.0], "non-integer"),
        ([True, False], "booleans"),
        (["a", "b"], "dtype"),
        ("12", "string"),
        ([], "empty"),
        (np.zeros((3, 0), dtype=int), "empty"),
        (4, "scalar"),
        ([1, 2, 4], "outside 1..3"),
        ([0, 1, 2], "outside 1..3"),
        ([1, 2, 2], "duplicate"),
        ([[1, 2, 3], [3, 3, 1]], r"duplicate values \[3\] \(row \(1,\)\)"),
        ([1.0, float("nan")], "nan"),
        ([[1, 2], [1, 2, 3]], "rectangular"),
    ],
)
def test_validate_errors(bad, message):
    with pytest.raises(ValueError, match=message):
        P.validate(bad)


def test_validate_pair_errors_and_floats():
    with pytest.raises(ValueError, match="n=2, nu has n=3"):
        P.validate([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="nu has duplicate"):
        P.validate([1, 2, 3], [1, 1, 3])
    with pytest.raises(ValueError, match="do not broadcast"):
        P.validate(np.tile([1, 2, 3], (2, 1)), np.tile([1, 2, 3], (3, 1)))
    out = P.validate([2.0, 1.0, 3.0])
    assert out.dtype == np.int64 and out.tolist() == [2, 1, 3]
    s, v = P.validate(np.array([1, 2, 3], dtype=np.int32), [3, 2, 1])
    assert s.dtype == v.dtype == np.int64


def test_bad_n():
    for bad in (0, -1, 2.0, True, "3"):
        with pytest.raises(ValueError, match="n must be an integer >= 1, got"):
            P.identity(bad)
    assert math.factorial(5) == P.all_permutations(5).shape[0]


def test_from_labels_numbers_items_by_their_reference_position():
    from hypothesis import given, strategies as st

    @given(st.permutations(list("abcdefg")), st.permutations(list("abcdefg")))
    def check(ref, other):
        out = P.from_labels(ref, other)
        assert out[0].tolist() == list(range(1, 8))
        assert [ref[i - 1] for i in out[1]] == list(other)  # decoding gives the labels back

    check()
    with pytest.raises(ValueError, match="repeats item 'a'"):
        P.from_labels("abc", "aab")
    with pytest.raises(ValueError, match="missing c; not in the reference: d"):
        P.from_labels("abc", "abd")
