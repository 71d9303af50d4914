"""The two backends of rankbook.permutations (numpy always, numba's compiled kernels when
installed) give the same integers, so every metric is the same bit for bit; errors are worded
the same; numba stays optional."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import agreement as A
from rankbook import metrics as M
from rankbook import permutations as P
from rankbook.papers.paper_a import transpositions as T

HAVE_NUMBA = P._load_numba() is not None
needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")


def _both(fn):
    out = {}
    for be in ("numpy", "numba"):
        previous = P.set_backend(be)
        try:
            out[be] = fn()
        finally:
            P.set_backend(previous)
    return out["numpy"], out["numba"]


@needs_numba
@pytest.mark.parametrize("n", [1, 2, 3, 15, 16, 17, 100, 1000, 4099])
def test_inversion_counts_agree_with_each_other_and_brute_force(n):
    B = max(1, 20_000 // n)
    r = P.random(n, size=B, rng=n)
    a, b = _both(lambda: P.inversion_count(r))
    np.testing.assert_array_equal(a, b)
    if n <= 100:
        np.testing.assert_array_equal(a, T.count_inversions_bruteforce(r))


@needs_numba
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_all_metrics_bit_for_bit(n, B, seed):
    s, v = P.random(n, size=B, rng=seed), P.random(n, size=B, rng=seed + 1)
    k = max(1, n // 3)
    a, b = _both(lambda: M.evaluate_many(M.NAMES, s, v, k=k))
    for name in M.NAMES:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


@needs_numba
def test_large_batches_and_broadcasting_bit_for_bit():
    s = P.random(300, size=(3, 1, 40), rng=1)
    v = P.random(300, size=(5, 40), rng=2)
    a, b = _both(lambda: M.evaluate_many(M.NAMES, s, v, k=75))
    for name in M.NAMES:
        assert a[name].shape == (3, 5, 40)
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    ident = P.identity(200_000)
    rev = ident[::-1].copy()
    a, b = _both(lambda: (M.kendall_tau(ident, rev), M.ndpm(ident, rev)))
    assert a == b == (-1.0, 1.0)


@needs_numba
def test_agreement_counts_bit_for_bit():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=3000), rng.normal(size=3000)
    a, b = _both(lambda: A.concordance_counts(x, y))
    assert a == b


@needs_numba
@pytest.mark.parametrize("bad, message", [
    (lambda s: s.__setitem__((70, 3), 0), "sigma has value 0 outside 1..100"),
    (lambda s: s.__setitem__((70, 3), s[70, 4]), r"sigma has duplicate values .* \(row \(70,\)\)"),
])
def test_errors_are_worded_the_same(bad, message):
    s, v = P.random(100, size=80, rng=4), P.random(100, size=80, rng=5)
    bad(s)
    for be in ("numpy", "numba"):
        previous = P.set_backend(be)
        try:
            with pytest.raises(ValueError, match=message):
                M.evaluate_many(M.NAMES, s, v, k=5)
            with pytest.raises(ValueError, match=message.replace("sigma", "r")):
                P.inverse(s)
        finally:
            P.set_backend(previous)


def test_numba_is_optional(monkeypatch):
    """Without numba, "auto" falls back to numpy with the same values and "numba" is refused
    with a message naming the valid choices."""
    s, v = P.random(200, size=50, rng=6), P.random(200, size=50, rng=7)
    want = M.evaluate_many(["kendall_tau", "ndpm"], s, v)
    monkeypatch.setattr(P, "_numba_module", False)
    monkeypatch.setattr(P, "_numba_error", "No module named 'numba'")
    assert P.get_backend() == "numpy"
    got = M.evaluate_many(["kendall_tau", "ndpm"], s, v)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name])
    with pytest.raises(ValueError, match=r"backend 'numba' needs numba.*valid backends here: auto, numpy"):
        P.set_backend("numba")


def test_environment_variable_and_choices(monkeypatch):
    monkeypatch.setenv("RANKBOOK_BACKEND", "numpy")
    assert P.get_backend() == "numpy"
    monkeypatch.setenv("RANKBOOK_BACKEND", " NumPy ")  # any case, as the command line's choices
    assert P.get_backend() == "numpy"
    monkeypatch.setenv("RANKBOOK_BACKEND", "cuda")
    with pytest.raises(ValueError, match="the environment variable RANKBOOK_BACKEND must be one of 'auto', 'numba', 'numpy'; got 'cuda'"):
        P.get_backend()
    monkeypatch.delenv("RANKBOOK_BACKEND")
    with pytest.raises(ValueError, match="backend must be one of 'auto', 'numba', 'numpy'; got 'fast'"):
        P.set_backend("fast")


def test_the_library_does_not_import_numba_for_small_inputs():
    import subprocess
    import sys

    code = ("import sys; from rankbook import metrics; "
            "metrics.evaluate_many(metrics.NAMES, [1, 2, 3, 4], [2, 1, 4, 3], k=2); "
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_one_off_call_of_200_pairs_of_s100_stays_on_numpy():
    """Issue 31: a fresh process scoring 200 pairs of S_100 (20 000 entries, below
    NUMBA_LOAD_ENTRIES) must not import numba, whose load and compile costs about 2 s."""
    import subprocess
    import sys

    code = ("import sys; from rankbook import metrics, permutations as P; "
            "s = P.random(100, size=200, rng=1); v = P.random(100, size=200, rng=2); "
            "metrics.kendall_tau(s, v); metrics.evaluate_many(metrics.NAMES, s, v, k=10); "
            "print('numba' in sys.modules, P._eligible_entries < P.NUMBA_LOAD_ENTRIES)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False True"


@needs_numba
def test_auto_loads_the_kernels_once_the_work_earns_the_compile_back(monkeypatch):
    """Under "auto", blocks below NUMBA_MIN_ENTRIES never use numba; larger ones use it only once
    the kernel is compiled or the eligible entries reach NUMBA_LOAD_ENTRIES."""
    monkeypatch.delenv("RANKBOOK_BACKEND", raising=False)
    previous = P.set_backend("auto")
    try:
        monkeypatch.setattr(P, "_eligible_entries", 0)
        monkeypatch.setattr(P, "NUMBA_LOAD_ENTRIES", 3 * P.NUMBA_MIN_ENTRIES)
        monkeypatch.setattr(P, "_load_cost", (P.NUMBA_COMPILE_S, "compile"))  # an empty cache
        kernels = P._load_numba()

        class Fresh:  # the kernels module as if nothing were compiled yet
            def __getattr__(self, name):
                return type("K", (), {"signatures": []})()

        monkeypatch.setattr(P, "_numba_module", Fresh())
        assert P._kernels(P.NUMBA_MIN_ENTRIES - 1, "inversions") is None
        assert P._eligible_entries == 0
        assert P._kernels(P.NUMBA_MIN_ENTRIES, "inversions") is None
        assert P._kernels(P.NUMBA_MIN_ENTRIES, "inversions") is None
        assert P._kernels(P.NUMBA_MIN_ENTRIES, "inversions") is not None  # 3 x MIN reached
        monkeypatch.setattr(P, "_numba_module", kernels)
        monkeypatch.setattr(P, "_eligible_entries", 0)
        kernels.inversions(np.array([[2, 1]]), 1, np.empty(1, np.int64))  # compiled now
        assert P._kernels(P.NUMBA_MIN_ENTRIES, "inversions") is kernels
        assert P._kernels(P.NUMBA_MIN_ENTRIES - 1, "inversions") is None
        # numba's cache on disk holds the kernels: the cheaper load comes sooner
        monkeypatch.setattr(P, "_numba_module", Fresh())
        monkeypatch.setattr(P, "_eligible_entries", 0)
        monkeypatch.setattr(P, "_load_cost", (P.NUMBA_CACHED_LOAD_S, "cache"))
        monkeypatch.setattr(P, "NUMBA_CACHED_LOAD_ENTRIES", 2 * P.NUMBA_MIN_ENTRIES)
        assert P._kernels(P.NUMBA_MIN_ENTRIES, "inversions") is None
        assert P._kernels(P.NUMBA_MIN_ENTRIES, "inversions") is not None  # 2 x MIN reached
    finally:
        P.set_backend(previous)


@needs_numba
def test_load_cost_reads_numba_cache_on_disk(tmp_path, monkeypatch):
    """load_cost: "compile" with an empty NUMBA_CACHE_DIR, "cache" once numba's index files of
    a kernel are there (as numba leaves them: a sub-folder per source folder)."""
    monkeypatch.setattr(P, "_numba_module", None)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(P, "_load_cost", None)
    assert P.load_cost() == (P.NUMBA_COMPILE_S, "compile")
    (tmp_path / "rankbook_0123").mkdir()
    (tmp_path / "rankbook_0123" / "_numba_kernels.check_perms-112.py311.nbi").write_bytes(b"")
    monkeypatch.setattr(P, "_load_cost", None)
    assert P.load_cost() == (P.NUMBA_CACHED_LOAD_S, "cache")
    assert P.NUMBA_MIN_ENTRIES < P.NUMBA_CACHED_LOAD_ENTRIES < P.NUMBA_LOAD_ENTRIES
