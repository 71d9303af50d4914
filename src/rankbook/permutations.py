"""Permutations of ``{1, ..., n}`` as rankings: construction, validation and the group operation.

Permutation conventions
-----------------------
A ranking of ``n`` items is an integer array in one-line notation with values ``1..n``:
``r[i - 1]`` is the item at position ``i`` (top first). Read as a function on positions,
``r(i) = r[i - 1]``; the position of item ``x`` is ``r^{-1}(x)``, i.e. ``inverse(r)[x - 1]``.

Every function accepts one permutation of shape ``(n,)`` or a batch of shape ``(..., n)``;
when two arguments are given their batch axes broadcast against each other (numpy rules), the
last axis being the permutation axis. All results are ``int64``.

The group operation follows paper A (``paperA`` in ``book/references.bib``,
Section 3): ``(sigma o nu)(i) = sigma(nu(i))``. In array terms
``compose(sigma, nu)[..., i] = sigma[..., nu[..., i] - 1]``: *right* composition ``sigma o nu``
reorders the positions of ``sigma`` (``sigma o (i j)`` swaps the entries at positions ``i`` and
``j``; ``sigma o FC_n`` slides the list up by one place, ``np.roll(sigma, -1)``), while *left*
composition ``nu o sigma`` relabels the items.
"""

from __future__ import annotations

import itertools
import math
import numbers
import os
from typing import Tuple, Union

import numpy as np

from ._validation import check_choice, check_int

__all__ = [
    "identity",
    "random",
    "inverse",
    "compose",
    "transposition",
    "full_cycle",
    "all_permutations",
    "validate",
    "inversion_count",
    "from_labels",
    "label_pairs",
    "is_label_ranking",
    "set_backend",
    "get_backend",
    "BACKENDS",
    "NUMBA_MIN_ENTRIES",
    "NUMBA_LOAD_ENTRIES",
    "NUMBA_CACHED_LOAD_ENTRIES",
    "load_cost",
]

#: Largest n for which :func:`all_permutations` builds S_n in memory (10! rows).
MAX_EXHAUSTIVE_N = 10


def _check_n(n, what: str = "n") -> int:
    return check_int(n, what, low=1)


def _as_int_array(x, name: str) -> np.ndarray:
    """Convert to an int64 array, refusing bools, strings, objects and non-integral floats."""
    if isinstance(x, (str, bytes)):
        raise ValueError(f"{name} must be an array of integers 1..n, got a string {x!r}")
    try:
        arr = np.asarray(x)
    except ValueError:  # ragged nested lists
        lengths = sorted({len(r) for r in x if hasattr(r, "__len__")}) if hasattr(x, "__iter__") else []
        raise ValueError(
            f"{name} must be a rectangular array of integers 1..n (rows of equal length)"
            + (f"; its rows have lengths {', '.join(map(str, lengths[:5]))}" if lengths else "")
        ) from None
    if arr.dtype.kind == "b":
        raise ValueError(f"{name} must contain integers 1..n, got booleans (dtype {arr.dtype})")
    if arr.dtype.kind in "iu":
        pass
    elif arr.dtype.kind == "f":
        if arr.size and not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must contain integers 1..n, got nan or inf")
        if arr.size and not np.all(arr == np.round(arr)):
            raise ValueError(
                f"{name} must contain integers 1..n, got non-integer floats "
                f"(e.g. {arr[arr != np.round(arr)].flat[0]!r})"
            )
    else:
        raise ValueError(
            f"{name} must be an array of integers 1..n, got dtype {arr.dtype} "
            "(valid: integer dtypes, or floats with integral values)"
        )
    if arr.ndim == 0:
        raise ValueError(
            f"{name} must have shape (n,) or (..., n), got a scalar {arr.item()!r}"
        )
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); a ranking needs n >= 1 items")
    return arr.astype(np.int64, copy=False)


# --------------------------------------------------------------------------------------------
# backends: numpy always, numba's compiled kernels when installed


#: The backends :func:`set_backend` accepts.
BACKENDS = ("auto", "numba", "numpy")
#: Under ``"auto"``, a block (one call's batch of rankings, ``rows x n`` entries) smaller than
#: this stays on numpy; from this size a kernel that is already compiled in this process is used
#: (measured warm: at 4096 entries numba takes 0.06-0.07 ms against numpy's 0.27-0.59 ms, for
#: every n from 10 to 1000).
NUMBA_MIN_ENTRIES = 1 << 12
#: Under ``"auto"``, numba's kernels are loaded (numba imported, each kernel compiled) only once
#: the blocks that could have used them hold this many entries in all, counted over the process,
#: when numba's on-disk cache does not hold them yet. Compiling costs 1.7-3 s in a fresh process
#: (2.0-3.0 s in benchmarks/bench_cold.py on 2 shared cores); a block saves 35-380 ms per million
#: entries on numba against numpy (measured with ``kendall_tau`` on B x n batches, n = 10 to
#: 10 000; the saving grows with n), so about 2**24 = 16.8 million entries are needed to earn a
#: compile back. Below it a one-off call never pays a compile it cannot earn back; a process that
#: keeps calling pays it once the numpy work done so far is of the same size as the compile (at
#: most twice the time of the better choice made in hindsight).
NUMBA_LOAD_ENTRIES = 1 << 24
#: Seconds to load the kernels when numba's on-disk cache holds them (the kernels are compiled
#: with ``cache=True``: importing numba and reading each kernel back), against
#: :data:`NUMBA_COMPILE_S` to compile them; measured by benchmarks/bench_cold.py
#: (``load_cost``): importing numba takes 0.2-0.7 s and its first call of a kernel read from the
#: cache 0.3-0.8 s (it sets up the compiler either way); the other kernels read back in about
#: 20 ms each.
NUMBA_CACHED_LOAD_S = 0.8
#: Seconds to compile the kernels (numba's cache empty).
NUMBA_COMPILE_S = 2.5
#: Under ``"auto"``, when numba's on-disk cache holds the kernels (:func:`load_cost`), they are
#: loaded once the eligible blocks of the process hold this many entries (2**19, about half a
#: call on 300 pairs of rankings of 1000, which holds 9e5): a read of about
#: :data:`NUMBA_CACHED_LOAD_S`, paid once, within the first call of that size, so that every
#: later call runs the kernels (20 to 30 times a loop over scipy.stats.kendalltau there, against
#: 3 to 11 times on numpy). A one-off call below it never loads them; and a fresh machine, whose
#: cache is empty, waits for :data:`NUMBA_LOAD_ENTRIES`.
NUMBA_CACHED_LOAD_ENTRIES = 1 << 19
_backend = "auto"
_numba_module = None  # the kernels once imported; False when numba cannot be imported
_numba_error = ""
_eligible_entries = 0  # entries of blocks of >= NUMBA_MIN_ENTRIES done on numpy under "auto"
_load_cost = None  # (seconds, "cache" | "compile" | "unavailable"), found once per process
_load_seconds = None  # measured: how long importing and loading the kernels took here


def _check_backend(name, what: str = "backend") -> str:
    return check_choice(name, BACKENDS, what)


def set_backend(name: str) -> str:
    """Choose how permutations are checked and inversions counted; return the previous choice.

    ``"auto"`` (the default, or the environment variable ``RANKBOOK_BACKEND``) uses numba's
    compiled kernels when numba can be imported and a block holds at least
    :data:`NUMBA_MIN_ENTRIES` (4096) entries, but loads them only when the work pays the load
    (:func:`load_cost`): read from numba's on-disk cache, once the blocks that could use them
    hold :data:`NUMBA_CACHED_LOAD_ENTRIES` (2**19) entries in all; compiled, once they hold
    :data:`NUMBA_LOAD_ENTRIES` (2**24, about 16.8 million), so that a one-off call never pays a
    2-second compile it cannot earn back; numpy
    otherwise; ``"numba"`` always uses them (``ValueError`` if numba cannot be imported);
    ``"numpy"`` never does. numba is optional (it is not a dependency of rankbook). Both
    backends give the same integers, so every metric value is the same bit for bit; only the
    speed differs (the compiled inversion count is about 10 times faster at n = 1000, see the
    benchmarks page).

    Parameters
    ----------
    name : {"auto", "numba", "numpy"}
        The backend.

    Returns
    -------
    str
        The previous choice.

    Examples
    --------
    >>> previous = set_backend("numpy")
    >>> get_backend()
    'numpy'
    >>> int(inversion_count([3, 1, 2]))
    2
    >>> _ = set_backend(previous)
    >>> set_backend("fortran")
    Traceback (most recent call last):
    ...
    ValueError: backend must be one of 'auto', 'numba', 'numpy'; got 'fortran'
    """
    global _backend
    _check_backend(name)
    if name == "numba" and _load_numba() is None:
        raise ValueError(f"backend 'numba' needs numba, which cannot be imported ({_numba_error}); "
                         f"valid backends here: auto, numpy")
    previous, _backend = _backend, name
    return previous


def get_backend() -> str:
    """The backend large blocks use now: ``"numba"`` or ``"numpy"``.

    Returns
    -------
    str
        ``"numba"`` or ``"numpy"``.

    Examples
    --------
    >>> get_backend() in ("numba", "numpy")
    True
    """
    if _current() == "numpy":
        return "numpy"
    return "numba" if _load_numba() is not None else "numpy"


def _current() -> str:
    env = os.environ.get("RANKBOOK_BACKEND")
    if _backend == "auto" and env:
        return _check_backend(env.strip().lower(), "the environment variable RANKBOOK_BACKEND")  # NUMPY as numpy
    return _backend


def _load_numba():
    global _numba_module, _numba_error, _load_seconds
    if _numba_module is None:
        import time

        t0 = time.perf_counter()
        try:
            from . import _numba_kernels
        except ImportError as exc:  # numba missing or incompatible with this numpy
            _numba_module, _numba_error = False, str(exc)
        except Exception as exc:  # noqa: BLE001 - e.g. numba finds no writable cache folder
            _numba_module, _numba_error = False, f"{type(exc).__name__}: {exc}"
        else:
            _numba_module = _numba_kernels
            _load_seconds = time.perf_counter() - t0
    return _numba_module or None


def _cache_folders() -> list:
    """Where numba would look for its on-disk cache of the kernels, as its locators do: under
    ``NUMBA_CACHE_DIR`` when set (a sub-folder per source folder), else the ``__pycache__``
    beside the module, then the user's cache folder."""
    here = os.path.dirname(os.path.abspath(__file__))
    given = os.environ.get("NUMBA_CACHE_DIR")
    roots = [given] if given else [os.path.join(os.path.expanduser("~"), ".cache", "numba")]
    out = [] if given else [os.path.join(here, "__pycache__")]
    for root in roots:
        if root and os.path.isdir(root):
            out.append(root)
            try:
                out += [e.path for e in os.scandir(root) if e.is_dir()]
            except OSError:
                pass
    return out


def load_cost() -> tuple:
    """What loading numba's kernels would cost in this process: ``(seconds, source)``, source
    ``"cache"`` when numba's on-disk cache holds the kernels (a cheap read,
    :data:`NUMBA_CACHED_LOAD_S`), ``"compile"`` when it does not (:data:`NUMBA_COMPILE_S`),
    ``"loaded"`` once they are loaded (0; the measured seconds of the load are kept in
    ``_load_seconds``), or
    ``"unavailable"`` without numba (``inf``). Found once per process, from the cache's index
    files (no numba import).

    Returns
    -------
    tuple of (float, str)
        ``(seconds, source)``: :data:`NUMBA_CACHED_LOAD_S` and ``"cache"``,
        :data:`NUMBA_COMPILE_S` and ``"compile"``, ``0.0`` and ``"loaded"``, or ``inf`` and
        ``"unavailable"``.

    Examples
    --------
    >>> load_cost()[1] in ("cache", "compile", "loaded", "unavailable")
    True
    """
    if _numba_module:
        return (0.0, "loaded")
    return _disk_cost()


def _disk_cost() -> tuple:
    """(seconds, "cache" | "compile" | "unavailable") from numba's cache on disk, found once."""
    global _load_cost
    if _load_cost is None:
        import importlib.util

        if _numba_module is False or importlib.util.find_spec("numba") is None:
            _load_cost = (float("inf"), "unavailable")
        else:
            kernels = ("inversions", "inversions_gather", "check_perms")
            found = set()
            for folder in _cache_folders():
                try:
                    names = os.listdir(folder)
                except OSError:
                    continue
                for k in kernels:
                    if any(n.startswith(f"_numba_kernels.{k}-") and n.endswith(".nbi") for n in names):
                        found.add(k)
            # one kernel cached: the kernels were loaded before, and another one is read back
            # or compiled on its first call (tens of milliseconds once numba runs)
            _load_cost = ((NUMBA_CACHED_LOAD_S, "cache") if found
                          else (NUMBA_COMPILE_S, "compile"))
    return _load_cost


def _kernels(entries: int, kernel: str):
    """The compiled kernels if a block of ``entries`` entries should use ``kernel``, else None.

    ``"auto"``: numpy below :data:`NUMBA_MIN_ENTRIES`; numba from there when ``kernel`` is
    already loaded in this process; otherwise the cost of loading decides (:func:`load_cost`):
    read from numba's cache, the kernels are loaded once the eligible entries of the process
    reach :data:`NUMBA_CACHED_LOAD_ENTRIES`; compiled, once they reach
    :data:`NUMBA_LOAD_ENTRIES` (the size at which a compile is earned back).
    """
    global _eligible_entries
    choice = _current()
    if choice == "numpy":
        return None
    if choice == "auto":
        if entries < NUMBA_MIN_ENTRIES or _numba_module is False:
            return None
        compiled = _numba_module is not None and bool(getattr(_numba_module, kernel).signatures)
        if not compiled:
            _eligible_entries += entries
            limit = NUMBA_CACHED_LOAD_ENTRIES if _disk_cost()[1] == "cache" else NUMBA_LOAD_ENTRIES
            if _eligible_entries < limit:
                return None
            return _load_numba()  # each kernel is read back from the cache on its first call
    kernels = _load_numba()
    if kernels is None and choice == "numba":
        raise ValueError(f"backend 'numba' needs numba, which cannot be imported ({_numba_error})")
    return kernels


def _rows(arr: np.ndarray) -> np.ndarray:
    """The rows of ``arr`` as a C-contiguous int64 2-D array (a view when it already is one)."""
    return np.ascontiguousarray(arr.reshape(-1, arr.shape[-1]), dtype=np.int64)


def _inverse_unchecked(arr: np.ndarray) -> np.ndarray:
    """The 0-based inverses of rows already known to be permutations of 1..n (no check)."""
    n = arr.shape[-1]
    flat = arr.reshape(-1, n)
    inv = np.empty(flat.shape, dtype=np.int64)
    np.put_along_axis(inv, flat - 1, np.broadcast_to(np.arange(n, dtype=np.int64), flat.shape), -1)
    return inv.reshape(arr.shape)


def _check_perm(arr: np.ndarray, name: str) -> np.ndarray:
    """Check that every row of ``arr`` is a permutation of 1..n; return the inverse (0-based)."""
    n = arr.shape[-1]
    kernels = _kernels(arr.size, "check_perms")
    if kernels is not None:
        flat = _rows(arr)
        inv = np.empty(flat.shape, dtype=np.int64)
        if kernels.check_perms(flat, inv) < 0:
            return inv.reshape(arr.shape)
        # else: a row is not a permutation; the numpy check below words the error
    lo, hi = arr.min(), arr.max()
    if lo < 1 or hi > n:
        bad = arr[(arr < 1) | (arr > n)].flat[0]
        raise ValueError(
            f"{name} has value {bad} outside 1..{n}: a ranking of n={n} items uses each of 1..{n} once"
        )
    flat = arr.reshape(-1, n)
    inv = np.full(flat.shape, -1, dtype=np.int64)
    np.put_along_axis(inv, flat - 1, np.broadcast_to(np.arange(n, dtype=np.int64), flat.shape), -1)
    missing = inv < 0
    if missing.any():
        row = int(np.flatnonzero(missing.any(axis=1))[0])
        vals, counts = np.unique(flat[row], return_counts=True)
        dup = vals[counts > 1]
        where = f" (row {np.unravel_index(row, arr.shape[:-1])})" if arr.ndim > 1 else ""
        raise ValueError(
            f"{name} has duplicate values {dup.tolist()}{where}: a ranking of n={n} items uses each "
            f"of 1..{n} exactly once"
        )
    return inv.reshape(arr.shape)


def validate(sigma, nu=None) -> Union[np.ndarray, Tuple[np.ndarray, np.ndarray]]:
    """Check rankings and return them as int64 arrays.

    Parameters
    ----------
    sigma : array_like of shape (n,) or (..., n)
        One ranking or a batch, values 1..n, each exactly once per row.
    nu : array_like of shape (n,) or (..., n), optional
        A second ranking (or batch) with the same n. Batch axes broadcast against ``sigma``'s.

    Returns
    -------
    sigma : ndarray of int64
        If ``nu`` is None.
    sigma, nu : tuple of ndarray of int64
        If ``nu`` is given: both broadcast to the common shape ``(..., n)`` (read-only views
        where broadcasting repeats data).

    Raises
    ------
    ValueError
        For booleans, strings, objects or non-integral floats; a scalar or empty input; values
        outside 1..n; duplicates; ``sigma`` and ``nu`` of different lengths n; batch shapes that
        do not broadcast.

    Examples
    --------
    >>> validate([2, 1, 3])
    array([2, 1, 3])
    >>> validate([1, 2, 2])
    Traceback (most recent call last):
    ...
    ValueError: sigma has duplicate values [2]: a ranking of n=3 items uses each of 1..3 exactly once
    """
    s = _as_int_array(sigma, "sigma")
    _check_perm(s, "sigma")
    if nu is None:
        return s
    v = _as_int_array(nu, "nu")
    if v.shape[-1] != s.shape[-1]:
        raise ValueError(
            f"sigma and nu rank different numbers of items: sigma has n={s.shape[-1]}, "
            f"nu has n={v.shape[-1]} (shapes {s.shape} and {v.shape})"
        )
    _check_perm(v, "nu")
    try:
        s, v = np.broadcast_arrays(s, v)
    except ValueError:
        raise ValueError(
            f"the batch shapes of sigma {s.shape[:-1]} and nu {v.shape[:-1]} do not broadcast"
        ) from None
    return s, v


def identity(n: int) -> np.ndarray:
    """The identity ranking ``id = (1, 2, ..., n)``.

    Parameters
    ----------
    n : int
        The number of items, at least 1.

    Returns
    -------
    ndarray of int64, shape (n,)

    Examples
    --------
    >>> identity(4)
    array([1, 2, 3, 4])
    """
    n = _check_n(n)
    return np.arange(1, n + 1, dtype=np.int64)


def is_missing_label(x) -> bool:
    """``None``, ``nan`` (numpy's too) or ``pandas.NA``: a missing value, not an item's label.

    Parameters
    ----------
    x : object
        One entry of a ranking.

    Returns
    -------
    bool

    Examples
    --------
    >>> [is_missing_label(x) for x in (None, float("nan"), "a", 0)]
    [True, True, False, False]
    """
    if x is None or isinstance(x, (str, int)):
        return x is None
    if isinstance(x, (float, np.floating)):
        return bool(x != x)
    return type(x).__name__ in ("NAType", "NaTType")


def physical_memory() -> int | None:
    """This machine's physical memory in bytes, or None where the system does not say.

    Returns
    -------
    int or None
        Bytes of physical memory.
    """
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def check_memory(nbytes: int, what: str, hint: str = "") -> None:
    """Refuse, with a ValueError naming the size, an array larger than this machine's physical
    memory (numpy would raise a bare MemoryError, or the system kill the process).

    Parameters
    ----------
    nbytes : int
        The size of the array about to be allocated.
    what : str
        What it holds, for the message.
    hint : str
        What to do instead, appended to the message.

    Raises
    ------
    ValueError
        When ``nbytes`` exceeds the physical memory.

    Examples
    --------
    >>> check_memory(8, "one number")
    >>> check_memory(2**80, "a huge matrix")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: a huge matrix would need ... of memory, more than this machine's ...
    """
    total = physical_memory()
    if total is not None and nbytes > total:
        size = lambda b: next((f"{b / 2**e:.1f} {u}" for e, u in ((40, "TiB"), (30, "GiB"),
                                                                   (20, "MiB")) if b >= 2**e),
                              f"{int(b):,} bytes")
        raise ValueError(f"{what} would need {size(nbytes)} of memory, more than this machine's "
                         f"{size(total)}" + (f"; {hint}" if hint else ""))


def random(n: int, size=None, rng=None) -> np.ndarray:
    """Uniformly random rankings of n items.

    Parameters
    ----------
    n : int
        Number of items.
    size : int or tuple of int, optional
        Batch shape. None gives one ranking of shape ``(n,)``; otherwise shape ``(*size, n)``.
    rng : int, numpy.random.Generator or None
        A seed or a Generator (``numpy.random.default_rng(rng)`` is used for seeds).

    Returns
    -------
    ndarray of int64, shape (n,), or ``size + (n,)``
        Permutations of 1..n in one-line notation.

    Examples
    --------
    >>> random(5, rng=0).shape, random(5, size=(2, 3), rng=0).shape
    ((5,), (2, 3, 5))
    >>> sorted(random(5, rng=1).tolist())
    [1, 2, 3, 4, 5]
    """
    n = _check_n(n)
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    if size is None:
        shape: Tuple[int, ...] = ()
    elif isinstance(size, (int, np.integer)) and not isinstance(size, (bool, np.bool_)):
        shape = (int(size),)
    else:
        try:
            shape = tuple(int(s) for s in size)
        except TypeError:
            raise ValueError(f"size must be None, an int or a tuple of ints, got {size!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"size must be non-negative, got {size!r}")
    check_memory(8 * n * math.prod(shape), f"{math.prod(shape):,} random rankings of {n:,} items")
    base = np.broadcast_to(np.arange(1, n + 1, dtype=np.int64), shape + (n,)).copy()
    return gen.permuted(base, axis=-1)


def inverse(r) -> np.ndarray:
    """The inverse permutation: ``inverse(r)[x - 1]`` is the position of item x in r.

    Parameters
    ----------
    r : array_like of shape (n,) or (..., n)
        Permutations of 1..n.

    Returns
    -------
    ndarray of int64, the shape of ``r``

    Examples
    --------
    >>> inverse([3, 1, 2])
    array([2, 3, 1])
    """
    arr = _as_int_array(r, "r")
    return _check_perm(arr, "r") + 1


def compose(s, t) -> np.ndarray:
    """The composition ``s o t`` as paper A writes it: ``(s o t)(i) = s(t(i))``.

    In arrays, ``compose(s, t)[..., i - 1] = s[..., t[..., i - 1] - 1]``: the entries of ``s``
    read in the order of positions given by ``t``. Batch axes broadcast.

    Parameters
    ----------
    s, t : array_like of shape (n,) or (..., n)
        Permutations of 1..n (batch axes broadcast).

    Returns
    -------
    ndarray of int64, shape (..., n)

    Examples
    --------
    >>> compose([3, 1, 2], [2, 1, 3])   # s o (1 2): swap positions 1 and 2 of s
    array([1, 3, 2])
    >>> compose([2, 1, 3], [3, 1, 2])   # (1 2) o t: exchange the items 1 and 2 in t
    array([3, 2, 1])
    """
    s, t = validate(s, t)
    return np.take_along_axis(s, t - 1, axis=-1)


def transposition(n: int, i, j) -> np.ndarray:
    """The transposition ``(i j)`` of S_n, exchanging the (1-based) positions i and j.

    ``i`` and ``j`` may be integer arrays (they broadcast); the result then has shape
    ``(*broadcast(i, j).shape, n)``. ``compose(nu, transposition(n, i, j))`` swaps the entries
    of ``nu`` at positions i and j (eq. 5 of paper A).

    Parameters
    ----------
    n : int
        The number of items, at least 2.
    i, j : int or array_like of int
        Distinct 1-based positions in 1..n (arrays broadcast).

    Returns
    -------
    ndarray of int64, shape (n,), or the broadcast shape of i and j plus ``(n,)``

    Examples
    --------
    >>> transposition(4, 1, 3)
    array([3, 2, 1, 4])
    """
    n = _check_n(n)
    ii = np.asarray(i)
    jj = np.asarray(j)
    for name, a in (("i", ii), ("j", jj)):
        if a.dtype.kind not in "iu":
            raise ValueError(f"{name} must be an integer position in 1..{n}, got {a!r}")
        if a.size and (a.min() < 1 or a.max() > n):
            raise ValueError(f"{name} must be a position in 1..{n}, got {a.tolist()!r}")
    ii, jj = np.broadcast_arrays(ii, jj)
    if np.any(ii == jj):
        raise ValueError("a transposition (i j) needs two distinct positions i != j")
    out = np.broadcast_to(np.arange(1, n + 1, dtype=np.int64), ii.shape + (n,)).copy()
    np.put_along_axis(out, (ii - 1)[..., None], (jj[..., None]).astype(np.int64), -1)
    np.put_along_axis(out, (jj - 1)[..., None], (ii[..., None]).astype(np.int64), -1)
    return out


def full_cycle(n: int) -> np.ndarray:
    """The full cycle ``FC_n = (1 2 ... n)``: ``FC_n(i) = i + 1`` for i < n and ``FC_n(n) = 1``.

    ``compose(nu, full_cycle(n))`` is nu slid up one place (``np.roll(nu, -1)``), the "slide" of
    eq. 6 of paper A.

    Parameters
    ----------
    n : int
        The number of items, at least 1.

    Returns
    -------
    ndarray of int64, shape (n,)

    Examples
    --------
    >>> full_cycle(4)
    array([2, 3, 4, 1])
    """
    n = _check_n(n)
    return np.roll(np.arange(1, n + 1, dtype=np.int64), -1)


def all_permutations(n: int) -> np.ndarray:
    """All n! permutations of S_n, shape ``(n!, n)``, in lexicographic order.

    For exhaustive checks; limited to ``n <= MAX_EXHAUSTIVE_N`` (10! rows = 290 MB as int64).

    Parameters
    ----------
    n : int
        The number of items, 1 <= n <= :data:`MAX_EXHAUSTIVE_N`.

    Returns
    -------
    ndarray of int64, shape (n!, n)

    Examples
    --------
    >>> all_permutations(3)
    array([[1, 2, 3],
           [1, 3, 2],
           [2, 1, 3],
           [2, 3, 1],
           [3, 1, 2],
           [3, 2, 1]])
    """
    n = _check_n(n)
    if n > MAX_EXHAUSTIVE_N:
        raise ValueError(
            f"all_permutations(n) is limited to n <= {MAX_EXHAUSTIVE_N} ({math.factorial(n)} rows "
            f"asked); use random(n, size, rng) for a sample"
        )
    out = np.fromiter(
        itertools.chain.from_iterable(itertools.permutations(range(1, n + 1))),
        dtype=np.int64,
        count=math.factorial(n) * n,
    )
    return out.reshape(math.factorial(n), n)


#: Rows processed together by :func:`inversion_count` hold about this many entries (bounded memory).
_CHUNK_ELEMENTS = 1 << 17
#: Group size at which :func:`inversion_count` stops the radix levels and compares directly.
_BRUTE_GROUP = 16


def _inversions_gather(vals: np.ndarray, val_base: int, idx: np.ndarray, idx_base: int) -> np.ndarray:
    """Inversion counts of the rows ``vals[r, idx[r, i] - idx_base]`` (a composition of two valid
    permutations, values ``val_base .. val_base + n - 1``; both of shape (m, n)).

    With numba the composition is never built; with numpy it is one ``take_along_axis``.
    """
    kernels = _kernels(vals.size, "inversions_gather")
    if kernels is None or vals.shape[-1] < 2:
        comp = np.take_along_axis(vals, idx - idx_base if idx_base else idx, axis=-1)
        if val_base != 1:
            comp = comp + (1 - val_base)
        return _inversions_unchecked(comp)
    vals, idx = np.broadcast_arrays(vals, idx)
    v, i = _rows(vals), _rows(idx)
    out = np.empty(v.shape[0], dtype=np.int64)
    kernels.inversions_gather(v, val_base, i, idx_base, out)
    return out.reshape(vals.shape[:-1])


def _inversions_unchecked(p: np.ndarray) -> np.ndarray:
    """Inversion counts of the rows of ``p`` (valid permutations of 1..n, shape (..., n))."""
    n = p.shape[-1]
    kernels = _kernels(p.size, "inversions")
    if kernels is not None and n >= 2:
        flat = _rows(p)
        out = np.empty(flat.shape[0], dtype=np.int64)
        kernels.inversions(flat, 1, out)
        return out.reshape(p.shape[:-1])
    flat = p.reshape(-1, n)
    nrows = flat.shape[0]
    out = np.zeros(nrows, dtype=np.int64)
    if n < 2 or nrows == 0:
        return out.reshape(p.shape[:-1])
    # Exact counts (issue 24): values, positions and per-group counts are below n, so int32
    # holds them while n < 2**31; the per-level sum ``bit @ weight`` reaches n(n-1)/2 (every
    # later position of every one), which passes 2**31 - 1 from n = 65 537 on, so the weights are
    # int64 there (a row with more than 2**31 items would not fit in memory anyway). Totals are
    # int64: at most n(n-1)/2 < 2**63 for any n below 4.29e9.
    dt = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    wdt = np.int32 if n * (n - 1) // 2 <= np.iinfo(np.int32).max else np.int64
    G = _BRUTE_GROUP
    n_bits = int(n - 1).bit_length()
    g_bits = G.bit_length() - 1
    levels = list(range(n_bits - 1, g_bits - 1, -1))
    idx = np.arange(n, dtype=dt)
    weight = (n - 1 - idx).astype(wdt)
    vals = np.arange(n, dtype=np.int64)
    consts = {}
    for b in levels:
        bit = (vals >> b) & 1
        ones = int(bit.sum())
        consts[b] = ones * (ones - 1) // 2 + int((((vals >> (b + 1)) << b) * (1 - bit)).sum())
    words = 255 // (G - 1)  # uint64 words summed per byte lane without overflow
    width = -(-n // (8 * words)) * (8 * words)
    rows_per = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, nrows, rows_per):
        x = flat[start : start + rows_per].astype(dt) - 1
        m = x.shape[0]
        acc = np.zeros(m, dtype=np.int64)
        rowoff = (np.arange(m, dtype=np.int64) * n)[:, None]
        for b in levels:
            # x is stably grouped by the bits above b. Pairs that first differ at bit b are
            # inversions when the 1 comes first: sum over ones of the later positions, minus
            # the pairs (1 before 1) and the cross-group pairs, both known in closed form.
            bit = (x >> b) & 1
            acc += bit @ weight
            acc -= consts[b]
            # stably partition each group by bit b; group starts are known since x is a permutation
            gshift = (x >> (b + 1)) << b
            before = np.cumsum(bit, axis=1, dtype=dt)
            before -= bit
            zeros_in_group = np.minimum(1 << b, n - 2 * gshift)
            pos = np.where(bit == 0, idx - before + gshift, gshift + zeros_in_group + before)
            nxt = np.empty_like(x)
            nxt.reshape(-1)[(pos + rowoff).reshape(-1)] = x.reshape(-1)
            x = nxt
        # groups of at most G consecutive values now lie in increasing order of their value
        # ranges, so an inversion is a pair less than G positions apart
        cnt = np.zeros((m, width), dtype=np.uint8)
        for s in range(1, min(G, n)):
            cnt[:, : n - s] += x[:, : n - s] > x[:, s:]
        # row sums of the small counts: add 8 byte lanes at once (each lane stays below 256)
        lanes = cnt.view(np.uint64).reshape(m, -1, words).sum(axis=2, dtype=np.uint64)
        acc += lanes.view(np.uint8).reshape(m, -1).sum(axis=1, dtype=np.int64)
        out[start : start + m] = acc
    return out.reshape(p.shape[:-1])


def inversion_count(r) -> np.ndarray:
    """Number of inversions of each ranking: pairs of positions ``i < j`` with ``r(i) > r(j)``.

    Vectorised over the batch and O(n log n) per ranking with O(n) memory: a most-significant-bit
    first radix partition counts, level by level, the pairs that first differ at that bit and
    are out of order; once the groups hold at most 16 values, the remaining inversions are pairs
    less than 16 positions apart and are compared directly. Rows are
    processed in chunks of about 131 072 entries, so memory stays bounded for any batch.
    The counts are exact int64 for every n (at most n(n-1)/2, below 2**63 for n < 4.29e9).

    Parameters
    ----------
    r : array_like of shape (n,) or (..., n)
        Permutations of 1..n.

    Returns
    -------
    ndarray of int64, the batch shape (a 0-d array for one ranking)

    Examples
    --------
    >>> int(inversion_count([3, 1, 2]))
    2
    >>> inversion_count([[1, 2, 3], [3, 2, 1]]).tolist()
    [0, 3]
    """
    arr = validate(r)
    out = _inversions_unchecked(arr)
    return out[()] if out.ndim == 0 else out


def from_labels(reference, *others) -> np.ndarray:
    """Number the items of label rankings by their position in ``reference``.

    Paper A's metrics take rankings as permutations of 1..n, and their values depend on how the
    items are numbered (see :mod:`rankbook.metrics`, "Reading a ranking"). The natural
    numbering gives each item its position in the reference ranking: the reference becomes the
    identity and every other ranking the list of its items' reference positions. Returns an
    int array of shape ``(1 + len(others), n)``: the reference first, then each other ranking.

    Raises ``ValueError`` when a ranking repeats an item or does not hold exactly the reference's
    items, naming the items that differ.

    Parameters
    ----------
    reference : sequence of hashable
        The reference ranking, best first (a string: one label per character).
    *others : sequence of hashable
        Rankings of the same items.

    Returns
    -------
    ndarray of int64, shape (1 + len(others), n)
        The reference (the identity), then each other ranking numbered by the reference.

    Examples
    --------
    >>> from_labels(["b", "a", "c"], ["a", "b", "c"], ["c", "b", "a"]).tolist()
    [[1, 2, 3], [2, 1, 3], [3, 1, 2]]
    >>> from_labels("abc", "abd")
    Traceback (most recent call last):
    ...
    ValueError: ranking 1 does not hold the reference's items: missing c; not in the reference: d
    """
    ref = list(reference)
    seen: dict = {}
    for i, x in enumerate(ref):
        if x in seen:
            raise ValueError(f"the reference repeats item {x!r} (positions {seen[x] + 1} and {i + 1})")
        seen[x] = i
    rows = [np.arange(1, len(ref) + 1)]
    for j, other in enumerate(others, start=1):
        items = list(other)
        if len(set(items)) != len(items):
            dup = next(x for x in items if items.count(x) > 1)
            raise ValueError(f"ranking {j} repeats item {dup!r}")
        if set(items) != set(ref):
            missing = ", ".join(map(str, sorted(set(ref) - set(items), key=str))) or "none"
            extra = ", ".join(map(str, sorted(set(items) - set(ref), key=str))) or "none"
            raise ValueError(f"ranking {j} does not hold the reference's items: missing {missing}; "
                             f"not in the reference: {extra}")
        rows.append(np.array([seen[x] + 1 for x in items]))
    return np.vstack(rows)


def is_label_ranking(x) -> bool:
    """Whether ``x`` is a ranking (or a batch) of labels rather than of item numbers.

    A string (one label per character), or a list or array whose entries are not all numbers
    (strings, any hashable labels). A list holding sets is a weak order
    (:mod:`rankbook.ties`), not a label list. Numbers are item numbers, never labels: that is how
    every function of rankbook that takes rankings tells them apart (``labels=True`` in
    :func:`rankbook.pairwise.pairwise` overrides it).

    Parameters
    ----------
    x : object
        A ranking, a batch of rankings, or anything else.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_label_ranking("bac"), is_label_ranking(["b", "a"]), is_label_ranking([2, 1, 3])
    (True, True, False)
    """
    if isinstance(x, (str, bytes)):
        return True
    if isinstance(x, np.ndarray):
        arr = x
    elif isinstance(x, (list, tuple)):
        if any(isinstance(e, (set, frozenset)) for e in x):
            return False
        try:
            arr = np.asarray(x)
        except (ValueError, TypeError):  # ragged: the numeric reader says so
            return False
    else:
        return False
    if arr.dtype.kind in "US":
        return True
    if arr.dtype.kind == "O":
        return any(isinstance(e, (str, bytes)) or not isinstance(e, (numbers.Number, type(None)))
                   for e in arr.ravel()) and not any(isinstance(e, (set, frozenset))
                                                      for e in arr.ravel())
    return False


def _label_rows(x, name: str) -> np.ndarray:
    """Label rankings as an object array of shape (..., n) (a string: one label per character)."""
    if isinstance(x, (str, bytes)):
        x = list(x)
    if isinstance(x, np.ndarray):
        arr = x.astype(object)
    else:
        try:
            arr = np.array(x, dtype=object)
        except ValueError:
            raise ValueError(f"{name} must be one label list or a rectangular batch of them "
                             "(rows of equal length)") from None
    if arr.ndim == 0 or arr.size == 0:
        raise ValueError(f"{name} must list at least one item, got {x!r}")
    return arr


def label_pairs(sigma, nu):
    """Number the items of label rankings pair by pair, by their position in ``sigma``.

    The reading of label lists everywhere in rankbook (``numbering="pair"``, the only one label
    lists have: they carry no numbers of their own): each row of sigma becomes the identity and
    the matching row of nu the positions in sigma of its items, as
    :func:`from_labels` does for one reference. Batch axes broadcast.

    Parameters
    ----------
    sigma, nu : str, sequence of labels, or array_like of shape (..., n)
        Label rankings, best first; a string holds one label per character. Each pair must hold
        the same n items, each once.

    Returns
    -------
    sigma, nu : ndarray of int64, shape (..., n)
        The pairs numbered by sigma: permutations of 1..n.

    Raises
    ------
    ValueError
        A missing label (None, nan), a repeated item, a pair whose rankings hold different
        items (naming them), or shapes that do not broadcast.

    Examples
    --------
    >>> s, v = label_pairs("fbcead", "febacd")
    >>> s.tolist(), v.tolist()
    ([1, 2, 3, 4, 5, 6], [1, 4, 2, 5, 3, 6])
    """
    S, V = _label_rows(sigma, "sigma"), _label_rows(nu, "nu")
    if S.shape[-1] != V.shape[-1]:
        raise ValueError(f"sigma and nu rank different numbers of items: sigma has "
                         f"n={S.shape[-1]}, nu has n={V.shape[-1]}")
    try:
        batch = np.broadcast_shapes(S.shape[:-1], V.shape[:-1])
    except ValueError:
        raise ValueError(f"the batch shapes of sigma {S.shape[:-1]} and nu {V.shape[:-1]} do "
                         "not broadcast") from None
    n = S.shape[-1]
    S2 = np.broadcast_to(S, batch + (n,)).reshape(-1, n)
    V2 = np.broadcast_to(V, batch + (n,)).reshape(-1, n)
    out = np.empty(S2.shape, dtype=np.int64)
    for r in range(S2.shape[0]):
        where = f" (row {np.unravel_index(r, batch)})" if batch else ""
        position: dict = {}
        for i, x in enumerate(S2[r]):
            if is_missing_label(x):
                raise ValueError(f"sigma{where} holds a missing label ({x!r}) at position "
                                 f"{i + 1}; every label must name an item")
            try:
                if x in position:
                    raise ValueError(f"sigma{where} repeats item {x!r} (positions "
                                     f"{position[x] + 1} and {i + 1})")
            except TypeError:
                raise ValueError(f"sigma{where}: labels must be hashable, got {x!r}") from None
            position[x] = i
        try:
            row = [position[x] + 1 for x in V2[r]]
        except (KeyError, TypeError):
            row = None
        if row is None or len(set(row)) != n:
            items = list(V2[r])
            dup = next((x for x in items if items.count(x) > 1), None) if all(
                not is_missing_label(x) for x in items) else None
            if dup is not None:
                raise ValueError(f"nu{where} repeats item {dup!r}")
            missing = ", ".join(map(str, sorted(set(position) - set(items), key=str))) or "none"
            extra = ", ".join(map(str, sorted(set(items) - set(position), key=str))) or "none"
            raise ValueError(f"nu{where} does not hold sigma's items: missing {missing}; not in "
                             f"sigma: {extra}")
        out[r] = row
    ident = np.broadcast_to(np.arange(1, n + 1, dtype=np.int64), batch + (n,)).copy()
    return ident, out.reshape(batch + (n,))
