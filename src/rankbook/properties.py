"""The properties of paper A (Sections 6-7, Appendix A) as executable checks on S_n.

Each function takes a metric -- a name of :data:`rankbook.metrics.NAMES` or a callable
``f(sigma, nu) -> values`` vectorised over a leading batch axis -- and the number of items
``n``, searches S_n for a counterexample, and returns a frozen result object with

``holds``
    the verdict (``bool``);
``method``
    ``"exhaustive"`` (every case of S_n was examined, or the enumeration stopped at a
    counterexample, which settles the verdict) or ``"random"`` (a seeded random sample; a
    ``True`` verdict then only means that no counterexample was found);
``checked``, ``seed``
    how many cases were evaluated and the seed of a random search
    (:attr:`PropertyResult.method_detail` says it in words);
``evidence``
    an :class:`Evidence` with the rankings and the metric values of a counterexample when the
    property fails (or a witness when an existential property holds).

Conventions of the property checks
----------------------------------
Rankings are one-line arrays with values ``1..n`` (:mod:`rankbook.permutations`); the group
operation is paper A's ``(s o t)(i) = s(t(i))``, so *right* composition ``sigma o tau``
reorders positions and *left* composition ``tau o sigma`` relabels items. Metrics that need a
cut-off get ``k = max(1, n // 4)`` unless ``k`` is given (a quarter of the list: Table 2 of
:cite:`paperA` never states its k, see :mod:`rankbook.metrics`); a callable is called as ``f(sigma, nu)``, or as
``f(sigma, nu, k=k)`` when ``k`` is given.

Equality of metric values
-------------------------
Values are floats. Two values are treated as equal when
``|a - b| <= ATOL + RTOL * max(|a|, |b|)`` with ``ATOL = RTOL = 1e-9`` (sums of n <= 10^3
terms in double precision are exact to about 1e-13 relative, while distinct values of the
metrics on S_n with n <= 10 differ by far more than 1e-9, with the one family of exceptions
below). Two undefined values (``nan``, e.g. LR+ when FPR = 0) are treated as equal -- the metric
returns the same thing for both inputs -- and ``nan`` never equals a number. For DCG and nDCG a
float collision is not accepted on its own: :func:`dcg_exact` rewrites DCG as a sum of rational
multiples of ``1 / log2(m)`` and two permutations are declared equal only when those rational
coefficients coincide group by group (an exact proof of equality), see
:func:`dcg_collisions`.

Exhaustive search and the group structure used
----------------------------------------------
``S_n x S_n`` has ``(n!)^2`` pairs: 518,400 for n = 6, 25.4 million for n = 7. For a metric
given as a black box, every pair has to be evaluated to prove a property that quantifies over
all pairs. The functions evaluate each pair once and use the group structure so that no pair
(or triple) is looked at more often than needed:

* For n <= :data:`MATRIX_MAX_N` (6) the ``(n!)^2`` values are computed once per metric and
  cached (:func:`precompute` fills the cache for many metrics in one
  :func:`rankbook.metrics.evaluate_many` pass, about 1 s for all 33 at n = 6); every property
  is then array indexing on that matrix.
* Right invariance ``m(sigma o tau, nu o tau) = m(sigma, nu)`` for all ``tau`` (Def. 7): the
  set of ``tau`` under which ``m`` is invariant is closed under composition, hence a subgroup,
  so the two generators ``(1 2)`` and ``FC_n`` settle it (and the transpositions, which also
  generate S_n, are searched for a counterexample of the form Prop. 6.2 uses). Without the
  matrix (n = 7) the orbits of the diagonal action are scanned: the orbit of ``(sigma, nu)``
  is fixed by ``pi = nu o sigma^-1`` and holds the ``n!`` pairs ``(sigma, pi o sigma)``, so
  ``m(sigma, pi o sigma)`` must not depend on ``sigma``. Left invariance (renaming items,
  ``m(tau o sigma, tau o nu)``) likewise with ``rho = sigma^-1 o nu``. Once one side is
  proved, the other holds iff ``h = m(id, .)`` is constant on conjugacy classes, an ``n!``
  check.
* Triangle inequality: for a left- or right-invariant ``f`` the triple ``(sigma, nu, mu)`` has
  the same three values as one with ``sigma = id``, so ``(n!)^2`` triples suffice instead of
  ``(n!)^3``.
* Identity of indiscernibles (Def. 4) is checked row by row, ``sigma`` fixed, by sorting the
  ``n!`` values ``m(sigma, .)`` and comparing neighbours. The row ``sigma = id`` comes first,
  so a counterexample there ends the search at once.

With ``method="auto"`` (the default) a property is searched exhaustively when the number of
pair evaluations is at most ``max_cases`` (default 26 million: all pairs up to n = 7; the
distance checks, which need the matrix, up to n = 6) and by a seeded random search otherwise;
``method`` in the result says which was used. Measured on the project's 2-core machine: any
property of any metric on S_6 well under a second (after :func:`precompute`); on S_7 a failing
property stops within a second, a property that holds costs one pass over the 25.4 million
pairs, 5-30 s depending on the metric; DCG collisions on S_8 and S_9 in about 1 s
(:func:`dcg_collisions`, which uses the exact form instead of the metric).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from . import permutations as _perm
from ._validation import check_choice, check_int, check_seed

__all__ = [
    "ATOL",
    "RTOL",
    "Evidence",
    "PropertyResult",
    "InvarianceResult",
    "SwapResult",
    "SensitivityResult",
    "StabilityResult",
    "DistanceResult",
    "AgreementResult",
    "EquivalenceResult",
    "TypeIResult",
    "identity_of_indiscernibles",
    "symmetry",
    "type_ii_robustness",
    "width_swap_dependency",
    "sensitivity",
    "stability",
    "triangle_inequality",
    "is_distance",
    "maximal_agreement",
    "minimal_agreement",
    "linearly_equivalent",
    "type_i_robustness",
    "default_k",
    "dcg_single",
    "dcg_exact",
    "dcg_exact_compare",
    "dcg_collisions",
    "dcg_distinct_values",
    "precompute",
    "tabulate",
    "TabulatedMetric",
    "stability_curves",
    "MATRIX_MAX_N",
]

#: Absolute and relative tolerance for treating two metric values as equal (see module doc).
ATOL = 1e-9
RTOL = 1e-9

#: Default budget of metric evaluations for an exhaustive search (all pairs of S_7 fit).
MAX_CASES = 26_000_000

#: Evaluate at most this many entries (pairs x n) per call to the metric.
_CHUNK_ELEMENTS = 1 << 20

_METHODS = ("auto", "exhaustive", "random")
Metric = Union[str, Callable[..., Any]]


# --------------------------------------------------------------------------------------------
# results


def _tuple(r) -> tuple:
    return tuple(int(x) for x in np.asarray(r).ravel())


@dataclass(frozen=True)
class Evidence:
    """A counterexample (or witness): named rankings and the metric values computed on them.

    ``rankings`` and ``values`` are tuples of ``(name, ...)`` pairs so that the object is
    immutable; :attr:`ranking` gives a ranking as an array. ``exact`` holds an exact-arithmetic
    certificate when one was made (DCG and nDCG collisions).
    """

    what: str
    rankings: tuple = ()
    values: tuple = ()
    exact: str = ""

    @classmethod
    def make(cls, what: str, rankings: dict, values: dict, exact: str = "") -> "Evidence":
        return cls(
            what,
            tuple((k, _tuple(v)) for k, v in rankings.items()),
            tuple((k, float(v)) for k, v in values.items()),
            exact,
        )

    def ranking(self, name: str) -> np.ndarray:
        """The ranking called ``name`` as an int64 array."""
        for key, r in self.rankings:
            if key == name:
                return np.array(r, dtype=np.int64)
        raise ValueError(f"no ranking {name!r} in this evidence; valid: {[k for k, _ in self.rankings]}")

    def value(self, name: str) -> float:
        """The metric value called ``name``."""
        for key, v in self.values:
            if key == name:
                return v
        raise ValueError(f"no value {name!r} in this evidence; valid: {[k for k, _ in self.values]}")

    def format(self, text=str, value_name=str, value=lambda v: f"{v:.12g}") -> str:
        """The evidence as one line, each part passed through its own function: ``text`` for
        the description, ranking names and the exact form, ``value_name`` for the names of
        the values and ``value`` for the values (``str`` uses the defaults: 12 digits)."""
        parts = [text(self.what)]
        if self.rankings:
            parts.append(", ".join(f"{text(k)}={list(r)}" for k, r in self.rankings))
        if self.values:
            parts.append(", ".join(f"{value_name(k)}={value(v)}" for k, v in self.values))
        if self.exact:
            parts.append(f"exact: {text(self.exact)}")
        return "; ".join(parts)

    def __str__(self) -> str:
        return self.format()


@dataclass(frozen=True, kw_only=True)
class PropertyResult:
    """Verdict of one property for one metric on S_n (see the module docstring)."""

    property: str
    metric: str
    n: int
    k: Optional[int]
    holds: bool
    method: str
    checked: int
    seed: Optional[int] = None
    evidence: Optional[Evidence] = None
    note: str = ""

    @property
    def method_detail(self) -> str:
        """The method in words, e.g. ``"exhaustive: 518400 cases of S_6"``."""
        if self.method == "exhaustive":
            return f"exhaustive: {self.checked} cases of S_{self.n}"
        return f"random: {self.checked} cases of S_{self.n}, seed {self.seed}"

    def summary(self) -> str:
        """One line: property, metric, verdict, method and evidence."""
        kk = "" if self.k is None else f", k={self.k}"
        ev = f"; {self.evidence}" if self.evidence is not None else ""
        return f"{self.property}({self.metric}, n={self.n}{kk}) = {self.holds} [{self.method_detail}]{ev}"

    def to_dict(self) -> dict:
        """Fields as plain Python values (evidence as its string), e.g. for a DataFrame row."""
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, Evidence):
                v = str(v)
            out[f.name] = v
        out["method_detail"] = self.method_detail
        return out


@dataclass(frozen=True, kw_only=True)
class InvarianceResult(PropertyResult):
    """Type II robustness: ``holds`` is right invariance (Def. 7); left invariance alongside."""

    left_invariant: bool
    left_evidence: Optional[Evidence] = None


@dataclass(frozen=True, kw_only=True)
class SwapResult(PropertyResult):
    """Width-swap dependency: ``swaps`` lists ``(i, j, m(ref, ref o (i j)))`` for ``ref = id``."""

    reference: str
    swaps: tuple = ()


@dataclass(frozen=True, kw_only=True)
class SensitivityResult(SwapResult):
    """Sensitivity (Def. 9) under both readings; ``holds`` follows ``reading``."""

    reading: str
    exists: bool
    forall: bool
    forall_evidence: Optional[Evidence] = None


@dataclass(frozen=True, kw_only=True)
class StabilityResult(PropertyResult):
    """Stability (Def. 10): per k the share of pairs with ``|m@k - m@k+1| < 1/k``."""

    ks: tuple
    pass_rates: tuple
    mean_abs_diff: tuple
    n_undefined: tuple
    threshold: float
    n_pairs: int


@dataclass(frozen=True, kw_only=True)
class DistanceResult(PropertyResult):
    """Distance axioms (Def. 11) of ``f = sign * (m - offset)``; ``None`` = not examined."""

    transform: str
    sign: int
    offset: float
    nonnegative: Optional[bool]
    identity: Optional[bool]
    symmetric: Optional[bool]
    triangle: Optional[bool]


@dataclass(frozen=True, kw_only=True)
class AgreementResult(PropertyResult):
    """Maximal / minimal agreement (Def. 15)."""

    orientation: str
    bound: float
    constant_on_diagonal: Optional[bool] = None
    strict: Optional[bool] = None
    attained_at_reverse: Optional[bool] = None
    attained_at_complement: Optional[bool] = None


@dataclass(frozen=True, kw_only=True)
class EquivalenceResult(PropertyResult):
    """Linear equivalence (Def. 3): ``second = slope * first + intercept`` when it holds."""

    second: str
    slope: float = float("nan")
    intercept: float = float("nan")


@dataclass(frozen=True, kw_only=True)
class TypeIResult(PropertyResult):
    """Type I robustness (eqs. 5-6): mean and spread of ``|m(s, v) - m(s, v')|``."""

    change: str
    mean: float
    sd: float
    se: float
    n_valid: int
    n_undefined: int
    threshold: float


# --------------------------------------------------------------------------------------------
# validation and metric resolution


def _check_n(n, minimum: int = 2) -> int:
    return check_int(n, "n", low=minimum)


def _check_int(x, name: str, lo: int, hi: Optional[int] = None) -> int:
    return check_int(x, name, low=lo, high=hi)


def _check_seed(seed) -> Optional[int]:
    return check_seed(seed, generator=False)


def default_k(n: int) -> int:
    """The cut-off used when a metric needs ``k`` and none is given: ``max(1, n // 4)``.

    Parameters
    ----------
    n : int
        The size of the rankings.

    Returns
    -------
    int

    Examples
    --------
    >>> default_k(10), default_k(3), default_k(100)
    (2, 1, 25)
    """
    return max(1, _check_n(n, 1) // 4)


@dataclass(frozen=True)
class _Resolved:
    name: str
    k: Optional[int]
    needs_k: bool
    higher_is_closer: Optional[bool]
    _fn: Callable
    registered: bool = False
    table: Optional[np.ndarray] = None

    def __call__(self, sigma, nu) -> np.ndarray:
        return self.at(sigma, nu, self.k)

    def at(self, sigma, nu, k) -> np.ndarray:
        """Evaluate with cut-off ``k`` (ignored by metrics without one), chunked."""
        sigma = np.asarray(sigma)
        nu = np.asarray(nu)
        shape = np.broadcast_shapes(sigma.shape, nu.shape)
        s = np.broadcast_to(sigma, shape).reshape(-1, shape[-1])
        v = np.broadcast_to(nu, shape).reshape(-1, shape[-1])
        step = max(1, _CHUNK_ELEMENTS // shape[-1])
        out = np.empty(s.shape[0], dtype=float)
        for a in range(0, s.shape[0], step):
            r = np.asarray(self._fn(s[a : a + step], v[a : a + step], k), dtype=float)
            if r.shape != (min(step, s.shape[0] - a),):
                raise ValueError(
                    f"metric {self.name!r} returned shape {r.shape} for a batch of "
                    f"{min(step, s.shape[0] - a)} pairs; it must return one value per pair"
                )
            out[a : a + step] = r
        return out.reshape(shape[:-1])


def _batch_of(func: Callable, name: str) -> Callable:
    """A user's metric as a batch evaluator ``fn(sigma_rows, nu_rows, k)``: a function of two
    batches (one value per pair) is called once per block; a function of two single rankings
    (as :func:`rankbook.pairwise.pairwise` accepts) pair by pair. Which one is decided on the
    first block, by comparing the batch call with calls on its first pairs."""
    mode = {}

    def single(a, b, kw):
        try:
            r = np.asarray(func(a, b, **kw), dtype=float)
        except Exception as exc:  # noqa: BLE001 - name the function and the pair
            raise ValueError(
                f"metric {name!r} raised {type(exc).__name__}: {exc} for sigma={a.tolist()}, "
                f"nu={b.tolist()}; a metric is f(sigma, nu){' with a k parameter' if kw else ''} "
                "of two rankings, or of two batches of them with one value per pair") from None
        if r.size != 1:
            raise ValueError(f"metric {name!r} returned {r.size} values for one pair; it must "
                             "return one number per pair")
        return float(r.reshape(()))

    def fn(s, v, kk):
        kw = {} if kk is None else {"k": kk}
        if mode.get("batch", True):
            try:
                with np.errstate(all="ignore"):
                    out = np.asarray(func(s, v, **kw), dtype=float)
            except Exception:  # noqa: BLE001 - not a batch function: one pair at a time
                out = None
            if out is not None and out.shape == (s.shape[0],):
                if "batch" not in mode:  # the first block: the batch agrees with single calls
                    head = min(4, s.shape[0])
                    singles = np.array([single(s[i], v[i], kw) for i in range(head)])
                    mode["batch"] = bool(np.allclose(out[:head], singles, rtol=1e-12,
                                                     atol=1e-12, equal_nan=True))
                if mode["batch"]:
                    return out
            mode["batch"] = False
        return np.array([single(a, b, kw) for a, b in zip(s, v)], dtype=float)

    return fn


def _resolve(metric: Metric, n: int, k=None, higher_is_closer=None) -> _Resolved:
    """A metric name or callable -> a batch evaluator with its cut-off fixed."""
    if isinstance(metric, str):
        from . import metrics as _metrics

        if metric not in _metrics.REGISTRY:
            raise _metrics._unknown(metric)
        info = _metrics.REGISTRY[metric]
        needs_k = bool(info.needs_k)
        if needs_k:
            k = default_k(n) if k is None else _check_int(k, "k", 1, n)
        elif k is not None:
            k = _check_int(k, "k", 1, n)
        name = metric

        def fn(s, v, kk, _name=name):
            return _metrics.evaluate(_name, s, v, k=kk)

        hic = bool(info.higher_is_closer) if higher_is_closer is None else bool(higher_is_closer)
        return _Resolved(name, k if needs_k else None, needs_k, hic, fn, True)
    if callable(metric):
        if k is not None:
            k = _check_int(k, "k", 1, n)
        name = getattr(metric, "__name__", None) or type(metric).__name__
        fn = _batch_of(metric, name)

        table = metric.values if isinstance(metric, TabulatedMetric) and metric.n == n else None
        return _Resolved(name, k, k is not None, higher_is_closer, fn, table=table)
    raise ValueError(
        f"metric must be a name of rankbook.metrics.NAMES or a callable f(sigma, nu), got {metric!r}"
    )


def _choose(method: str, cost: int, max_cases: int) -> str:
    check_choice(method, _METHODS, "method")
    if method == "auto":
        return "exhaustive" if cost <= max_cases else "random"
    return method


def _rng(seed):
    return np.random.default_rng(seed)


# --------------------------------------------------------------------------------------------
# comparisons


def _close(a, b) -> np.ndarray:
    """Elementwise equality up to ATOL/RTOL; nan equals nan, nan never equals a number."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        scale = np.maximum(np.abs(a), np.abs(b))
        near = np.abs(a - b) <= ATOL + RTOL * scale
    return (a == b) | near | (np.isnan(a) & np.isnan(b))


def _fmt(x: float) -> str:
    return f"{x:.12g}"


# --------------------------------------------------------------------------------------------
# S_n as arrays, with an index of every permutation


@lru_cache(maxsize=4)
def _sn(n: int):
    """All permutations of S_n (lexicographic) and their base-n codes (sorted)."""
    perms = _perm.all_permutations(n)
    perms.setflags(write=False)
    codes = _codes(perms)
    assert np.all(np.diff(codes) > 0)
    return perms, codes


def _codes(p: np.ndarray) -> np.ndarray:
    n = p.shape[-1]
    w = n ** np.arange(n - 1, -1, -1, dtype=np.int64)
    return (p - 1) @ w


def _index(p: np.ndarray, codes: np.ndarray) -> np.ndarray:
    return np.searchsorted(codes, _codes(p))


def _take(s: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``s o t`` for valid permutation arrays (no validation, broadcasting batch axes)."""
    shape = np.broadcast_shapes(s.shape, t.shape)
    return np.take_along_axis(np.broadcast_to(s, shape), np.broadcast_to(t, shape) - 1, axis=-1)


def _transpositions(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    i, j = np.triu_indices(n, 1)
    return i + 1, j + 1, _perm.transposition(n, i + 1, j + 1)


def _n_fact(n: int) -> int:
    return math.factorial(n)


#: Up to this n, exhaustive checks work on the full (n!)^2 matrix of values (n = 6: 4 MB).
MATRIX_MAX_N = 6
_MATRIX_CACHE: "dict[tuple, np.ndarray]" = {}
_MATRIX_CACHE_SIZE = 40


def _compute_matrix(m: _Resolved, n: int) -> np.ndarray:
    P, _ = _sn(n)
    N = len(P)
    out = np.empty((N, N))
    step = max(1, (_CHUNK_ELEMENTS * 4) // (N * n))
    for a in range(0, N, step):
        out[a : a + step] = m(P[a : a + step, None, :], P[None, :, :])
    out.setflags(write=False)
    return out


def _store(key, M):
    if key in _MATRIX_CACHE:
        _MATRIX_CACHE.pop(key)
    _MATRIX_CACHE[key] = M
    while len(_MATRIX_CACHE) > _MATRIX_CACHE_SIZE:
        _MATRIX_CACHE.pop(next(iter(_MATRIX_CACHE)))


def _full_matrix(m: _Resolved, n: int) -> np.ndarray:
    """``M[a, b] = m(P[a], P[b])`` over S_n in lexicographic order (cached for registered names)."""
    if m.table is not None:
        return m.table
    if not m.registered:
        return _compute_matrix(m, n)
    key = (m.name, n, m.k)
    if key not in _MATRIX_CACHE:
        _store(key, _compute_matrix(m, n))
    else:
        _store(key, _MATRIX_CACHE[key])  # mark as recently used
    return _MATRIX_CACHE[key]


def precompute(names: Optional[Sequence[str]] = None, n: int = 6, k: Optional[int] = None) -> None:
    """Evaluate registered metrics on all pairs of S_n at once and cache the value matrices.

    Only for ``n <= MATRIX_MAX_N`` (6). Every exhaustive check of this module on such n reuses
    the matrix, so checking many properties of many metrics costs one pass of
    :func:`rankbook.metrics.evaluate_many` over the ``(n!)^2`` pairs (about 2.5 s for all 33
    metrics at n = 6). ``k`` as in the property functions (default ``max(1, n // 4)``).

    Parameters
    ----------
    names : sequence of str, optional
        Registered metric names; all 33 by default.
    n : int
        The size of the rankings, at most :data:`MATRIX_MAX_N`.
    k : int, optional
        The cut-off of the metrics that take one (default ``max(1, n // 4)``).

    Raises
    ------
    ValueError
        For an unknown name, ``n`` beyond :data:`MATRIX_MAX_N` or an invalid ``k``.

    Examples
    --------
    >>> precompute(["mse", "kendall_tau"], 4)
    >>> symmetry("mse", 4).holds
    True
    """
    from . import metrics as _metrics

    n = _check_n(n)
    if n > MATRIX_MAX_N:
        raise ValueError(f"precompute is for n <= {MATRIX_MAX_N} (the (n!)^2 matrix), got n={n}")
    names = list(_metrics.NAMES if names is None else names)
    resolved = [_resolve(name, n, k) for name in names]
    todo = [r for r in resolved if (r.name, n, r.k) not in _MATRIX_CACHE]
    if not todo:
        return None
    kk = next((r.k for r in todo if r.k is not None), None)
    P, _ = _sn(n)
    N = len(P)
    mats = {r.name: np.empty((N, N)) for r in todo}
    step = max(1, (_CHUNK_ELEMENTS * 4) // (N * n))
    for a in range(0, N, step):
        s = np.broadcast_to(P[a : a + step, None, :], (min(step, N - a), N, n)).reshape(-1, n)
        v = np.broadcast_to(P[None, :, :], (min(step, N - a), N, n)).reshape(-1, n)
        out = _metrics.evaluate_many([r.name for r in todo], s, v, k=kk)
        for r in todo:
            mats[r.name][a : a + step] = np.asarray(out[r.name], dtype=float).reshape(-1, N)
    for r in todo:
        mats[r.name].setflags(write=False)
        _store((r.name, n, r.k), mats[r.name])
    return None


class TabulatedMetric:
    """A metric on S_n read from its ``(n!)^2`` table of values (see :func:`tabulate`).

    Calling it with rankings ``sigma``, ``nu`` (one-line arrays of length ``n``, batch axes
    broadcast) looks the values up instead of recomputing them; ``values`` is the table in the
    lexicographic order of :func:`rankbook.permutations.all_permutations`. A ranking of another
    length, or an array that is not a permutation of 1..n, raises ValueError.
    """

    def __init__(self, name: str, n: int, values: np.ndarray):
        self.__name__ = self.name = str(name)
        self.n = int(n)
        self.values = values

    def __call__(self, sigma, nu, k=None) -> np.ndarray:
        P, codes = _sn(self.n)
        sigma, nu = np.asarray(sigma), np.asarray(nu)
        shape = np.broadcast_shapes(sigma.shape, nu.shape)
        if shape[-1] != self.n:
            raise ValueError(f"{self.name} is tabulated on S_{self.n}: rankings must have length "
                             f"{self.n}, got {shape[-1]}")
        idx = []
        for r in (sigma, nu):
            c = _codes(np.broadcast_to(r, shape).astype(np.int64))
            i = np.clip(np.searchsorted(codes, c), 0, len(codes) - 1)
            if not (codes[i] == c).all() or not ((r >= 1) & (r <= self.n)).all():
                raise ValueError(f"{self.name}: the rankings must be permutations of 1..{self.n}")
            idx.append(i)
        out = self.values[idx[0], idx[1]]
        return out[()] if out.ndim == 0 else out

    def __repr__(self) -> str:
        return f"TabulatedMetric({self.name!r}, n={self.n})"


def tabulate(metric: Metric, n: int, *, k: Optional[int] = None, apply=None,
             name: Optional[str] = None) -> TabulatedMetric:
    """Tabulate a metric on all pairs of S_n once, optionally transformed, for fast exhaustive checks.

    The ``(n!)^2`` values are computed once (and shared with the other checks of this module
    for a registered name, :func:`precompute`); ``apply``, a function of the whole value table,
    transforms them (e.g. ``lambda v: 2 * v + 1``, a linear image of the metric,
    :mod:`rankbook.equivalence`). Every property check of this module accepts the result in
    place of the metric, and then costs array indexing only. ``n <= MATRIX_MAX_N`` (6).

    Parameters
    ----------
    metric : str or callable
        A name of :data:`rankbook.metrics.NAMES`, a function ``f(sigma, nu)`` (of one pair or of
        a batch, with ``k`` if it takes a cut-off), registered or not.
    n : int
        The size of the rankings, at most :data:`MATRIX_MAX_N`.
    k : int, optional
        The cut-off of a metric that takes one (default ``max(1, n // 4)``).
    apply : callable, optional
        A function of the whole ``(n!, n!)`` table of values, applied once.
    name : str, optional
        The name the result reports.

    Returns
    -------
    TabulatedMetric
        A callable ``f(sigma, nu)`` that every check of this module accepts.

    Examples
    --------
    >>> t = tabulate("kendall_tau", 4, apply=lambda v: -v + 0.5, name="0.5 - tau")
    >>> float(t([1, 2, 3, 4], [4, 3, 2, 1]))
    1.5
    >>> maximal_agreement(t, 4).holds
    False
    """
    n = _check_n(n)
    if n > MATRIX_MAX_N:
        raise ValueError(f"tabulate is for n <= {MATRIX_MAX_N} (the (n!)^2 table), got n={n}")
    m = _resolve(metric, n, k)
    values = _full_matrix(m, n)
    if apply is not None:
        values = np.asarray(apply(values), dtype=float)
        if values.shape != (_n_fact(n), _n_fact(n)):
            raise ValueError(f"apply must return a table of the same shape {(_n_fact(n),) * 2}, "
                             f"got {values.shape}")
        values.setflags(write=False)
    return TabulatedMetric(name or m.name, n, values)


def _matrix_ok(n: int, how: str) -> bool:
    return how == "exhaustive" and n <= MATRIX_MAX_N


# --------------------------------------------------------------------------------------------
# invariance (Type II robustness)


def _orbit_scan(m: _Resolved, n: int, side: str):
    """Exhaustive invariance check on every orbit; returns (holds, evidence, checked)."""
    P, codes = _sn(n)
    N = len(P)
    rows = max(1, (_CHUNK_ELEMENTS * 4) // (N * n))
    checked = 0
    for a in range(0, N, rows):
        g = P[a : a + rows]  # orbit labels: pi (right) or rho (left)
        if side == "right":
            nu = _take(g[:, None, :], P[None, :, :])  # pi o sigma
        else:
            nu = _take(P[None, :, :], g[:, None, :])  # sigma o rho
        sig = np.broadcast_to(P[None], nu.shape)
        vals = m(sig, nu)
        checked += vals.size
        ok = _close(vals, vals[:, :1]).all(axis=1)
        if not ok.all():
            r = int(np.flatnonzero(~ok)[0])
            return False, _orbit_witness(m, n, side, g[r], vals[r]), checked
    return True, None, checked


def _orbit_witness(m: _Resolved, n: int, side: str, label: np.ndarray, row: np.ndarray) -> Evidence:
    """Inside a non-constant orbit, find sigma and a transposition tau that break invariance."""
    P, codes = _sn(n)
    ii, jj, T = _transpositions(n)
    for t_i, t_j, tau in zip(ii, jj, T):
        if side == "right":
            moved = _take(P, tau[None])  # sigma o tau; orbit pair (sigma o tau, pi o sigma o tau)
        else:
            moved = _take(tau[None], P)  # tau o sigma; orbit pair (tau o sigma, tau o sigma o rho)
        other = row[_index(moved, codes)]
        bad = ~_close(row, other)
        if bad.any():
            s = P[int(np.flatnonzero(bad)[0])]
            v = _take(label, s) if side == "right" else _take(s, label)
            if side == "right":
                s2, v2 = _take(s, tau), _take(v, tau)
                what = f"right composition with tau = ({t_i} {t_j}) changes the value"
                names = ("sigma o tau", "nu o tau")
            else:
                s2, v2 = _take(tau, s), _take(tau, v)
                what = f"left composition with tau = ({t_i} {t_j}) changes the value"
                names = ("tau o sigma", "tau o nu")
            a, b = float(m(s, v)), float(m(s2, v2))
            return Evidence.make(
                what,
                {"sigma": s, "nu": v, "tau": tau, names[0]: s2, names[1]: v2},
                {"m(sigma, nu)": a, f"m({names[0]}, {names[1]})": b},
            )
    raise AssertionError("non-constant orbit without a transposition witness")  # pragma: no cover


def _invariance_random(m: _Resolved, n: int, side: str, n_samples: int, rng):
    sigma = _perm.random(n, n_samples, rng)
    nu = _perm.random(n, n_samples, rng)
    i = rng.integers(0, n, n_samples)
    j = (i + rng.integers(1, n, n_samples)) % n
    tau = _perm.transposition(n, i + 1, j + 1)
    # half the sample with a transposition, half with a uniformly random tau
    half = n_samples // 2
    tau[half:] = _perm.random(n, n_samples - half, rng)
    if side == "right":
        s2, v2 = _take(sigma, tau), _take(nu, tau)
    else:
        s2, v2 = _take(tau, sigma), _take(tau, nu)
    a, b = m(sigma, nu), m(s2, v2)
    bad = ~_close(a, b)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        names = ("sigma o tau", "nu o tau") if side == "right" else ("tau o sigma", "tau o nu")
        ev = Evidence.make(
            f"{side} composition with tau changes the value",
            {"sigma": sigma[r], "nu": nu[r], "tau": tau[r], names[0]: s2[r], names[1]: v2[r]},
            {"m(sigma, nu)": a[r], f"m({names[0]}, {names[1]})": b[r]},
        )
        return False, ev, 2 * n_samples
    return True, None, 2 * n_samples


def _reindex(n: int, tau: np.ndarray, side: str) -> np.ndarray:
    """Index map a -> index of P[a] o tau (right) or tau o P[a] (left)."""
    P, codes = _sn(n)
    moved = _take(P, tau[None]) if side == "right" else _take(tau[None], P)
    return _index(moved, codes)


def _generators_invariant(M: np.ndarray, n: int, side: str) -> bool:
    """Is the value matrix invariant under the generators (1 2) and FC_n (hence all of S_n)?"""
    for g in (_perm.transposition(n, 1, 2), _perm.full_cycle(n)):
        R = _reindex(n, g, side)
        if not _close(M, M[np.ix_(R, R)]).all():
            return False
    return True


def _invariance_matrix(m: _Resolved, n: int, M: np.ndarray, side: str):
    """Invariance on the full matrix.

    The set of tau leaving M invariant is a subgroup, so the two generators (1 2) and FC_n
    settle it; when it fails, the transpositions (which also generate S_n) are searched for a
    counterexample of the form used by Prop. 6.2.
    """
    if _generators_invariant(M, n, side):
        return True, None
    P, codes = _sn(n)
    ii, jj, T = _transpositions(n)
    for t_i, t_j, tau in zip(ii, jj, T):
        R = _reindex(n, tau, side)
        bad = ~_close(M, M[np.ix_(R, R)])
        if bad.any():
            r, c = np.argwhere(bad)[0]
            names = ("sigma o tau", "nu o tau") if side == "right" else ("tau o sigma", "tau o nu")
            return False, Evidence.make(
                f"{side} composition with tau = ({t_i} {t_j}) changes the value",
                {"sigma": P[r], "nu": P[c], "tau": tau, names[0]: P[R[r]], names[1]: P[R[c]]},
                {"m(sigma, nu)": M[r, c], f"m({names[0]}, {names[1]})": M[R[r], R[c]]},
            )
    raise AssertionError("not invariant under a generator but under every transposition")  # pragma: no cover


def _class_function(m: _Resolved, n: int, other_side: str):
    """Given invariance on one side, invariance on ``other_side`` <=> h = m(id, .) is a class function.

    With right invariance m(sigma, nu) = h(nu o sigma^-1), so m(tau o sigma, tau o nu) =
    h(tau o (nu o sigma^-1) o tau^-1); with left invariance m(sigma, nu) = h(sigma^-1 o nu) and
    m(sigma o tau, nu o tau) = h(tau^-1 o (sigma^-1 o nu) o tau). Either way the other side
    holds iff h is constant on conjugacy classes, and conjugation by transpositions suffices
    (they generate S_n). n! evaluations.
    """
    P, codes = _sn(n)
    ident = _perm.identity(n)
    h = m(np.broadcast_to(ident, P.shape), P)
    ii, jj, T = _transpositions(n)
    for t_i, t_j, tau in zip(ii, jj, T):
        conj = _take(_take(tau[None], P), tau[None])  # tau o pi o tau (tau^-1 = tau)
        bad = ~_close(h, h[_index(conj, codes)])
        if bad.any():
            pi = P[int(np.flatnonzero(bad)[0])]
            if other_side == "left":
                s2, v2, names = tau, _take(tau, pi), ("tau o sigma", "tau o nu")
            else:
                s2, v2, names = tau, _take(pi, tau), ("sigma o tau", "nu o tau")
            return False, Evidence.make(
                f"{other_side} composition with tau = ({t_i} {t_j}) changes the value",
                {"sigma": ident, "nu": pi, "tau": tau, names[0]: s2, names[1]: v2},
                {"m(sigma, nu)": float(m(ident, pi)), f"m({names[0]}, {names[1]})": float(m(s2, v2))},
            ), len(P)
    return True, None, len(P)


def type_ii_robustness(
    metric: Metric,
    n: int,
    *,
    k: Optional[int] = None,
    method: str = "auto",
    max_cases: int = MAX_CASES,
    n_samples: int = 20_000,
    seed: int = 0,
) -> InvarianceResult:
    """Type II robustness (Def. 7 of :cite:`paperA`): right invariance, and left invariance.

    Right invariance: :math:`m(\\sigma \\circ \\tau, \\nu \\circ \\tau) = m(\\sigma, \\nu)` for all
    :math:`\\sigma, \\nu, \\tau \\in S_n` -- reordering the positions of both rankings in the same
    way does not change the value (Diaconis's right invariance; Prop. 6.2 states it with
    transpositions, which is equivalent). Left invariance:
    :math:`m(\\tau \\circ \\sigma, \\tau \\circ \\nu) = m(\\sigma, \\nu)`, i.e. renaming the items.

    Exhaustive (``(n!)^2 <= max_cases``, i.e. n <= 7 by default):

    * n <= 6: the matrix of all ``(n!)^2`` values is compared with itself re-indexed by each
      transposition ``tau`` (transpositions generate S_n, and the set of ``tau`` that leave
      ``m`` invariant is a subgroup, so this is equivalent to all ``tau``);
    * n = 7: every orbit of the diagonal action is scanned for constancy (``(n!)^2``
      evaluations, see the module docstring). Once one side is proved, the other reduces to
      ``h = m(id, .)`` being constant on conjugacy classes (``n!`` evaluations, see
      ``_class_function``). A side that fails usually stops within the first chunk; a side
      that holds costs the full scan (5-45 s per metric for n = 7 on this project's 2-core
      reference machine).

    Random: ``n_samples`` triples ``(sigma, nu, tau)`` per side, half of them with ``tau`` a
    uniform transposition, half a uniform permutation.

    Parameters
    ----------
    metric : str or callable
        A name of :data:`rankbook.metrics.NAMES`, a function ``f(sigma, nu)`` (of one pair or of
        a batch, with ``k`` if it takes a cut-off), or a :class:`TabulatedMetric`.
    n : int
        The size of the rankings.
    k : int, optional
        The cut-off of a metric that takes one (default ``max(1, n // 4)``).
    method : {"auto", "exhaustive", "random"}
        Exhaustive over S_n when the cases fit ``max_cases`` (``"auto"``), or random.
    max_cases : int
        The most evaluations an exhaustive check may take.
    n_samples : int
        Random cases drawn when not exhaustive.
    seed : int
        Seed of the random cases.

    Returns
    -------
    InvarianceResult
        ``holds`` is right invariance; ``left_invariant`` and ``left_evidence`` the left one.
        ``evidence`` names ``sigma, nu, tau`` and the two values.

    Examples
    --------
    >>> mse = lambda s, v: ((s - v) ** 2).mean(axis=-1)
    >>> r = type_ii_robustness(mse, 4)
    >>> r.holds, r.left_invariant, r.method
    (True, False, 'exhaustive')
    >>> print(r.left_evidence.what)
    left composition with tau = (1 2) changes the value
    """
    n = _check_n(n)
    m = _resolve(metric, n, k)
    seed = _check_seed(seed)
    _check_int(n_samples, "n_samples", 1)
    how = _choose(method, _n_fact(n) ** 2 if n <= 10 else 1 << 62, max_cases)
    base = dict(property="type_ii_robustness", metric=m.name, n=n, k=m.k, method=how)
    if _matrix_ok(n, how):
        M = _full_matrix(m, n)
        r_ok, r_ev = _invariance_matrix(m, n, M, "right")
        l_ok, l_ev = _invariance_matrix(m, n, M, "left")
        return InvarianceResult(holds=r_ok, checked=M.size, evidence=r_ev, left_invariant=l_ok,
                                left_evidence=l_ev, **base)
    if how == "exhaustive":
        r_ok, r_ev, c1 = _orbit_scan(m, n, "right")
        if r_ok:
            l_ok, l_ev, c2 = _class_function(m, n, "left")
        else:
            l_ok, l_ev, c2 = _orbit_scan(m, n, "left")
        return InvarianceResult(holds=r_ok, checked=c1 + c2, evidence=r_ev, left_invariant=l_ok,
                                left_evidence=l_ev, **base)
    rng = _rng(seed)
    r_ok, r_ev, c1 = _invariance_random(m, n, "right", n_samples, rng)
    l_ok, l_ev, c2 = _invariance_random(m, n, "left", n_samples, rng)
    return InvarianceResult(holds=r_ok, checked=c1 + c2, seed=seed, evidence=r_ev,
                            left_invariant=l_ok, left_evidence=l_ev, **base)


# --------------------------------------------------------------------------------------------
# identity of indiscernibles


def _row_collision(vals: np.ndarray, cand: np.ndarray, skip=()):
    """First pair of distinct candidates with equal values (tolerance), or None.

    ``vals`` (M,) values, ``cand`` (M, n) the rankings they belong to; index pairs in ``skip``
    (already rejected, e.g. float near-misses refuted in exact arithmetic) are passed over.
    """
    order = np.argsort(vals, kind="stable")
    sv = vals[order]
    eq = _close(sv[:-1], sv[1:])
    for p in np.flatnonzero(eq):
        a, b = int(order[p]), int(order[p + 1])
        if (a, b) in skip:
            continue
        if not np.array_equal(cand[a], cand[b]):
            return a, b
    return None


def identity_of_indiscernibles(
    metric: Metric,
    n: int,
    *,
    k: Optional[int] = None,
    method: str = "auto",
    max_cases: int = MAX_CASES,
    n_samples: int = 200_000,
    seed: int = 0,
    exact: bool = True,
) -> PropertyResult:
    """Identity of indiscernibles (Def. 4 of :cite:`paperA`): ``m(sigma, .)`` is injective.

    For every fixed :math:`\\sigma`, :math:`m(\\sigma, \\tau) = m(\\sigma, \\nu) \\Rightarrow
    \\tau = \\nu`. Each row ``sigma`` is checked by sorting its ``n!`` values and comparing
    neighbours (tolerance: module docstring; two ``nan`` count as equal). The row ``sigma = id``
    comes first. Exhaustive when ``(n!)^2 <= max_cases`` (n <= 7 by default); otherwise the
    row ``sigma = id`` plus random rows (whole rows while n <= 9, random ``nu`` beyond), about
    ``n_samples`` evaluations in all; a counterexample found in the full row ``sigma = id``
    (n <= 9) is reported as ``"exhaustive"``, since that row is enumerated deterministically. For ``"dcg"`` and ``"ndcg"`` (and ``exact=True``) a
    colliding pair is confirmed in exact arithmetic (:func:`dcg_exact_compare`) and the
    certificate is stored in ``evidence.exact``; float near-misses are skipped.

    Parameters
    ----------
    metric : str or callable
        A name of :data:`rankbook.metrics.NAMES`, a function ``f(sigma, nu)`` (of one pair or of
        a batch, with ``k`` if it takes a cut-off), or a :class:`TabulatedMetric`.
    n : int
        The size of the rankings.
    k : int, optional
        The cut-off of a metric that takes one (default ``max(1, n // 4)``).
    method : {"auto", "exhaustive", "random"}
        Exhaustive over S_n when the cases fit ``max_cases`` (``"auto"``), or random.
    max_cases : int
        The most evaluations an exhaustive check may take.
    n_samples : int
        Random cases drawn when not exhaustive.
    seed : int
        Seed of the random cases.
    exact : bool
        Confirm a DCG or nDCG collision in exact arithmetic.

    Returns
    -------
    PropertyResult
        ``evidence`` names ``sigma``, ``tau``, ``nu`` with ``m(sigma, tau) = m(sigma, nu)``.

    Examples
    --------
    >>> sq = lambda s, v: ((s - v) ** 2).sum(axis=-1)
    >>> r = identity_of_indiscernibles(sq, 3)
    >>> r.holds, r.evidence.value("m(sigma, tau)")
    (False, 2.0)
    """
    n = _check_n(n)
    m = _resolve(metric, n, k)
    seed = _check_seed(seed)
    _check_int(n_samples, "n_samples", 1)
    certify = exact and m.name in ("dcg", "ndcg") and isinstance(metric, str)
    how = _choose(method, _n_fact(n) ** 2 if n <= 10 else 1 << 62, max_cases)
    rng = _rng(seed)
    checked = 0
    near_misses = 0

    def rows():
        if how == "exhaustive":
            P, _ = _sn(n)
            step = max(1, (_CHUNK_ELEMENTS * 4) // (len(P) * n))
            for a in range(0, len(P), step):  # P[0] is the identity
                yield P[a : a + step], P
            return
        # random design: the row sigma = id first, then random rows sigma
        P = _sn(n)[0] if n <= 9 else None
        budget = n_samples
        first = True
        while budget > 0:
            s = _perm.identity(n) if first else _perm.random(n, rng=rng)
            first = False
            cand = P if P is not None else _perm.random(n, min(budget, 50_000), rng)
            budget -= len(cand)
            yield s[None], cand

    def found(s, t, v, a_val, b_val, cert, checked, first_row=False):
        ev = Evidence.make(
            "two distinct rankings get the same value against sigma",
            {"sigma": s, "tau": t, "nu": v},
            {"m(sigma, tau)": a_val, "m(sigma, nu)": b_val},
            cert,
        )
        # a counterexample in the row sigma = id, searched in full before any random row, is a
        # deterministic exhaustive find even when the design is random
        how_found = "exhaustive" if (how == "exhaustive" or (first_row and n <= 9)) else how
        note = "; ".join(x for x in (
            _nm(near_misses),
            "found in the row sigma = id, searched in full" if how_found != how else "") if x)
        return PropertyResult(
            property="identity_of_indiscernibles", metric=m.name, n=n, k=m.k, holds=False,
            method=how_found, checked=checked, seed=None if how_found == "exhaustive" else seed,
            evidence=ev, note=note,
        )

    if _matrix_ok(n, how):
        M = _full_matrix(m, n)
        P, _ = _sn(n)
        order = np.argsort(M, axis=1, kind="stable")
        sv = np.take_along_axis(M, order, axis=1)
        eq = _close(sv[:, :-1], sv[:, 1:])
        for r in np.flatnonzero(eq.any(axis=1)):  # row 0 (sigma = id) first
            for p in np.flatnonzero(eq[r]):
                a, b = order[r, p], order[r, p + 1]
                cert = ""
                if certify:
                    ok, cert = _dcg_pair_certificate(m, P[r], P[a], P[b])
                    if not ok:
                        near_misses += 1
                        continue
                return found(P[r], P[a], P[b], M[r, a], M[r, b], cert, M.size)
        return PropertyResult(
            property="identity_of_indiscernibles", metric=m.name, n=n, k=m.k, holds=True,
            method=how, checked=M.size, note=_nm(near_misses),
        )

    for row_no, (sig_block, cand) in enumerate(rows()):
        vals = m(sig_block[:, None, :], cand[None, :, :])
        checked += vals.size
        for r in range(len(sig_block)):
            row = vals[r]
            skip = set()
            while True:
                hit = _row_collision(row, cand, skip)
                if hit is None:
                    break
                a, b = hit
                s, t, v = sig_block[r], cand[a], cand[b]
                cert = ""
                if certify:
                    ok, cert = _dcg_pair_certificate(m, s, t, v)
                    if not ok:
                        near_misses += 1
                        skip.add((a, b))
                        continue
                return found(s, t, v, row[a], row[b], cert, checked,
                             first_row=row_no == 0 and how == "random")
    return PropertyResult(
        property="identity_of_indiscernibles", metric=m.name, n=n, k=m.k, holds=True, method=how,
        checked=checked, seed=None if how == "exhaustive" else seed, note=_nm(near_misses),
    )


def _nm(near_misses: int) -> str:
    return f"{near_misses} float near-misses rejected in exact arithmetic" if near_misses else ""


# --------------------------------------------------------------------------------------------
# symmetry


def symmetry(
    metric: Metric,
    n: int,
    *,
    k: Optional[int] = None,
    method: str = "auto",
    max_cases: int = MAX_CASES,
    n_samples: int = 20_000,
    seed: int = 0,
) -> PropertyResult:
    """Symmetry (Def. 5 of :cite:`paperA`): :math:`m(\\sigma, \\nu) = m(\\nu, \\sigma)`.

    Exhaustive over the ``n!(n!-1)/2`` unordered pairs of distinct rankings (two evaluations
    each) when that fits ``max_cases``; otherwise ``n_samples`` random pairs.

    Parameters
    ----------
    metric : str or callable
        A name of :data:`rankbook.metrics.NAMES`, a function ``f(sigma, nu)`` (of one pair or of
        a batch, with ``k`` if it takes a cut-off), or a :class:`TabulatedMetric`.
    n : int
        The size of the rankings.
    k : int, optional
        The cut-off of a metric that takes one (default ``max(1, n // 4)``).
    method : {"auto", "exhaustive", "random"}
        Exhaustive over S_n when the cases fit ``max_cases`` (``"auto"``), or random.
    max_cases : int
        The most evaluations an exhaustive check may take.
    n_samples : int
        Random cases drawn when not exhaustive.
    seed : int
        Seed of the random cases.

    Returns
    -------
    PropertyResult
        ``evidence`` names a pair with ``m(sigma, nu) != m(nu, sigma)`` when it fails.

    Examples
    --------
    >>> first = lambda s, v: s[..., 0] - 2.0 * v[..., 0]
    >>> r = symmetry(first, 3)
    >>> r.holds, r.evidence.value("m(sigma, nu)"), r.evidence.value("m(nu, sigma)")
    (False, -3.0, 0.0)
    """
    n = _check_n(n)
    m = _resolve(metric, n, k)
    seed = _check_seed(seed)
    _check_int(n_samples, "n_samples", 1)
    cost = _n_fact(n) * (_n_fact(n) - 1) if n <= 10 else 1 << 62
    how = _choose(method, cost, max_cases)
    checked = 0
    if _matrix_ok(n, how):
        M = _full_matrix(m, n)
        P, _ = _sn(n)
        bad = ~_close(M, M.T)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            return _sym_fail(m, n, how, M.size, None, P[r], P[c], M[r, c], M[c, r])
        return PropertyResult(property="symmetry", metric=m.name, n=n, k=m.k, holds=True,
                              method=how, checked=M.size)
    if how == "exhaustive":
        P, _ = _sn(n)
        N = len(P)
        step = max(1, (_CHUNK_ELEMENTS * 2) // (N * n))
        for a in range(0, N - 1, step):
            b = min(N - 1, a + step)
            # rows a..b-1 against every later column (upper triangle only)
            s_idx, v_idx = [], []
            for r in range(a, b):
                s_idx.append(np.full(N - r - 1, r))
                v_idx.append(np.arange(r + 1, N))
            si, vi = np.concatenate(s_idx), np.concatenate(v_idx)
            x, y = m(P[si], P[vi]), m(P[vi], P[si])
            checked += 2 * len(si)
            bad = ~_close(x, y)
            if bad.any():
                q = int(np.flatnonzero(bad)[0])
                return _sym_fail(m, n, how, checked, None, P[si[q]], P[vi[q]], x[q], y[q])
        return PropertyResult(property="symmetry", metric=m.name, n=n, k=m.k, holds=True,
                              method=how, checked=checked)
    rng = _rng(seed)
    s, v = _perm.random(n, n_samples, rng), _perm.random(n, n_samples, rng)
    x, y = m(s, v), m(v, s)
    bad = ~_close(x, y)
    if bad.any():
        q = int(np.flatnonzero(bad)[0])
        return _sym_fail(m, n, how, 2 * n_samples, seed, s[q], v[q], x[q], y[q])
    return PropertyResult(property="symmetry", metric=m.name, n=n, k=m.k, holds=True,
                          method=how, checked=2 * n_samples, seed=seed)


def _sym_fail(m, n, how, checked, seed, s, v, x, y):
    ev = Evidence.make("swapping the two arguments changes the value", {"sigma": s, "nu": v},
                       {"m(sigma, nu)": x, "m(nu, sigma)": y})
    return PropertyResult(property="symmetry", metric=m.name, n=n, k=m.k, holds=False, method=how,
                          checked=checked, seed=seed, evidence=ev)


# --------------------------------------------------------------------------------------------
# swaps: width-swap dependency and sensitivity


def _swap_values(m: _Resolved, n: int, reference: str, n_samples: int, rng, max_cases: int):
    """Values m(ref, ref o (i j)) for every transposition; shape (R, T) for R references."""
    ii, jj, T = _transpositions(n)
    if reference == "identity":
        refs = _perm.identity(n)[None]
        how = "exhaustive"
    else:
        if n <= 10 and _n_fact(n) * len(T) <= max_cases:
            refs, _ = _sn(n)
            how = "exhaustive"
        else:
            refs = _perm.random(n, max(1, n_samples // len(T)), rng)
            how = "random"
    moved = _take(refs[:, None, :], T[None, :, :])
    vals = m(np.broadcast_to(refs[:, None, :], moved.shape), moved)
    return ii, jj, refs, vals, how


def width_swap_dependency(
    metric: Metric,
    n: int,
    *,
    k: Optional[int] = None,
    reference: str = "identity",
    max_cases: int = MAX_CASES,
    n_samples: int = 20_000,
    seed: int = 0,
) -> SwapResult:
    """Width-swap dependency (Def. 8 of :cite:`paperA`): equal widths, equal values.

    ``m`` is WSD when transpositions ``(i j)`` of equal width ``|i - j|`` get equal values
    ``m(ref, ref o (i j))``. ``reference="identity"`` compares with ``ref = id``, as Lemma 6.3
    and Table 3 do (all ``n(n-1)/2`` transpositions, exhaustive). ``reference="all"`` asks it for
    every ``ref`` in S_n (exhaustive while ``n! n(n-1)/2 <= max_cases``, otherwise random refs).

    Parameters
    ----------
    metric : str or callable
        A name of :data:`rankbook.metrics.NAMES`, a function ``f(sigma, nu)`` (of one pair or of
        a batch, with ``k`` if it takes a cut-off), or a :class:`TabulatedMetric`.
    n : int
        The size of the rankings.
    k : int, optional
        The cut-off of a metric that takes one (default ``max(1, n // 4)``).
    reference : {"identity", "all"}
        Compare with ``ref = id`` or with every ``ref`` of S_n.
    max_cases : int
        The most evaluations an exhaustive check may take.
    n_samples : int
        Random references drawn when not exhaustive.
    seed : int
        Seed of the random references.

    Returns
    -------
    SwapResult
        The verdict, with two transpositions of equal width and different values when it fails.

    Examples
    --------
    >>> l1 = lambda s, v: np.abs(s - v).sum(axis=-1)
    >>> width_swap_dependency(l1, 5).holds
    True
    >>> r = width_swap_dependency(lambda s, v: (np.abs(s - v) / s).sum(axis=-1), 4)
    >>> r.holds, r.evidence.what
    (False, 'two transpositions of width 1 get different values')
    """
    n = _check_n(n, 3)
    m = _resolve(metric, n, k)
    check_choice(reference, ("identity", "all"), "reference")
    seed = _check_seed(seed)
    rng = _rng(seed)
    ii, jj, refs, vals, how = _swap_values(m, n, reference, n_samples, rng, max_cases)
    width = jj - ii
    ev = None
    for d in range(1, n):
        cols = np.flatnonzero(width == d)
        block = vals[:, cols]
        bad = ~_close(block, block[:, :1])
        if bad.any():
            r, c = np.argwhere(bad)[0]
            a, b = cols[0], cols[c]
            ref = refs[r]
            ev = Evidence.make(
                f"two transpositions of width {d} get different values",
                {"reference": ref, f"ref o ({ii[a]} {jj[a]})": _take(ref, _perm.transposition(n, ii[a], jj[a])),
                 f"ref o ({ii[b]} {jj[b]})": _take(ref, _perm.transposition(n, ii[b], jj[b]))},
                {f"m(ref, ref o ({ii[a]} {jj[a]}))": vals[r, a],
                 f"m(ref, ref o ({ii[b]} {jj[b]}))": vals[r, b]},
            )
            break
    swaps = tuple((int(i), int(j), float(x)) for i, j, x in zip(ii, jj, vals[0]))
    return SwapResult(
        property="width_swap_dependency", metric=m.name, n=n, k=m.k, holds=ev is None, method=how,
        checked=vals.size, seed=None if how == "exhaustive" else seed, evidence=ev,
        reference=reference, swaps=swaps,
    )


def sensitivity(
    metric: Metric,
    n: int,
    *,
    k: Optional[int] = None,
    reading: str = "forall",
    reference: str = "identity",
    max_cases: int = MAX_CASES,
    n_samples: int = 20_000,
    seed: int = 0,
) -> SensitivityResult:
    """Sensitivity (Def. 9 of :cite:`paperA`): disjoint swaps of equal width, different impact.

    For positions ``i < j < k < l`` with ``j - i = l - k``, compare ``m(ref, ref o (i j))`` with
    ``m(ref, ref o (k l))`` (``ref = id`` by default, as in Table 3; ``reference="all"``: every
    ref). Def. 9 does not say whether one such pair suffices, so both readings are computed:

    ``exists``
        some pair of disjoint equal-width swaps gets different values;
    ``forall``
        every such pair does (the definition read as a universally quantified statement; the
        default, because the paper motivates sensitivity as weighing the top of the ranking
        differently from the rest, which one lucky pair does not show).

    ``holds`` follows ``reading``; ``evidence`` is a witness pair for ``exists`` (when it holds)
    or a counterexample to ``forall`` is in ``forall_evidence``. Needs n >= 4.

    Parameters
    ----------
    metric : str or callable
        A name of :data:`rankbook.metrics.NAMES`, a function ``f(sigma, nu)`` (of one pair or of
        a batch, with ``k`` if it takes a cut-off), or a :class:`TabulatedMetric`.
    n : int
        The size of the rankings.
    k : int, optional
        The cut-off of a metric that takes one (default ``max(1, n // 4)``).
    reading : {"forall", "exists"}
        Which reading of Def. 9 ``holds`` follows.
    reference : {"identity", "all"}
        As in :func:`width_swap_dependency`.
    max_cases, n_samples, seed
        As in :func:`width_swap_dependency`.

    Returns
    -------
    SensitivityResult
        Both readings' verdicts and their evidence.

    Examples
    --------
    >>> pos = lambda s, v: (v / np.arange(1, s.shape[-1] + 1)).sum(axis=-1)
    >>> r = sensitivity(pos, 5)
    >>> r.exists, r.forall
    (True, True)
    >>> r = sensitivity(lambda s, v: ((s - v) ** 2).sum(axis=-1), 5)
    >>> r.exists, r.forall
    (False, False)
    """
    n = _check_n(n, 4)
    m = _resolve(metric, n, k)
    check_choice(reading, ("exists", "forall"), "reading")
    check_choice(reference, ("identity", "all"), "reference")
    seed = _check_seed(seed)
    rng = _rng(seed)
    ii, jj, refs, vals, how = _swap_values(m, n, reference, n_samples, rng, max_cases)
    # all pairs of disjoint equal-width swaps (i j), (k l) with j < k
    a_idx, b_idx = [], []
    for a in range(len(ii)):
        for b in range(len(ii)):
            if jj[a] < ii[b] and jj[a] - ii[a] == jj[b] - ii[b]:
                a_idx.append(a)
                b_idx.append(b)
    a_idx, b_idx = np.array(a_idx), np.array(b_idx)
    differ = ~_close(vals[:, a_idx], vals[:, b_idx])

    def ev_at(r, p, what):
        a, b = a_idx[p], b_idx[p]
        ref = refs[r]
        return Evidence.make(
            what,
            {"reference": ref,
             f"ref o ({ii[a]} {jj[a]})": _take(ref, _perm.transposition(n, ii[a], jj[a])),
             f"ref o ({ii[b]} {jj[b]})": _take(ref, _perm.transposition(n, ii[b], jj[b]))},
            {f"m(ref, ref o ({ii[a]} {jj[a]}))": vals[r, a], f"m(ref, ref o ({ii[b]} {jj[b]}))": vals[r, b]},
        )

    exists = bool(differ.any())
    forall = bool(differ.all())
    ex_ev = ev_at(*np.argwhere(differ)[0], "disjoint swaps of equal width get different values") if exists else None
    fa_ev = None if forall else ev_at(*np.argwhere(~differ)[0], "disjoint swaps of equal width get the same value")
    holds = exists if reading == "exists" else forall
    swaps = tuple((int(i), int(j), float(x)) for i, j, x in zip(ii, jj, vals[0]))
    return SensitivityResult(
        property="sensitivity", metric=m.name, n=n, k=m.k, holds=holds, method=how,
        checked=vals.size, seed=None if how == "exhaustive" else seed,
        evidence=ex_ev if reading == "exists" else (fa_ev if not forall else ex_ev),
        reference=reference, swaps=swaps, reading=reading, exists=exists, forall=forall,
        forall_evidence=fa_ev,
    )


# --------------------------------------------------------------------------------------------
# stability


def _strictly_below(d: np.ndarray, eps: float) -> np.ndarray:
    """``d < eps`` where a ``d`` equal to ``eps`` up to the tolerance counts as equal (not below).

    Differences of confusion-matrix metrics often equal 1/k exactly (e.g. recall@999 - recall@1000
    = 1/999), and float rounding would otherwise decide such cases either way.
    """
    return (d < eps) & ~_close(d, eps)


def stability(
    metric: Metric,
    n: int = 1000,
    *,
    k: Union[int, Sequence[int], None] = None,
    n_pairs: int = 1000,
    seed: int = 0,
    threshold: float = 0.975,
) -> StabilityResult:
    """Stability (Def. 10 of :cite:`paperA`) with :math:`\\epsilon_k = 1/k`, as in Section 6.5.

    Draws ``n_pairs`` independent uniform pairs ``(sigma, nu)`` of S_n (paper: 1000 pairs of
    S_1000) and, for each ``k``, counts the pairs with
    :math:`|m_{@k}(\\sigma, \\nu) - m_{@k+1}(\\sigma, \\nu)| < 1/k`. The metric is stable at ``k``
    when that share is at least ``threshold`` (the paper's 97.5 %); ``holds`` is true when it is
    stable at every ``k`` given. ``k`` is an int or a sequence (default ``max(1, n // 4)``), each
    in ``1..n-1``. Pairs where either value is undefined (nan) are left out of the share and
    counted in ``n_undefined``. The inequality is strict and a difference equal to ``1/k`` within
    the module tolerance counts as equal (it fails). A registered metric that does not use ``k`` has
    ``m@k = m@k+1`` identically (difference 0, share 1) and is not evaluated; a callable is
    always evaluated and must accept ``k=``.

    Parameters
    ----------
    metric : str or callable
        A name of :data:`rankbook.metrics.NAMES`, a function ``f(sigma, nu)`` (of one pair or of
        a batch, with ``k`` if it takes a cut-off), or a :class:`TabulatedMetric`.
    n : int
        The size of the rankings.
    k : int, optional
        The cut-off of a metric that takes one or several (default ``max(1, n // 4)``), each in 1..n-1.
    n_pairs : int
        Random pairs drawn.
    seed : int
        Seed of the pairs.
    threshold : float
        The share of pairs, in [0, 1], that must pass.

    Returns
    -------
    StabilityResult
        The verdict, with the pass rate at each ``k``.

    Examples
    --------
    >>> top = lambda s, v, k: (s[..., :k] == v[..., :k]).mean(axis=-1)
    >>> r = stability(top, 20, k=[1, 5], n_pairs=200)
    >>> r.ks, r.pass_rates[1] > 0.9
    ((1, 5), True)
    """
    n = _check_n(n)
    seed = _check_seed(seed)
    _check_int(n_pairs, "n_pairs", 1)
    if not (isinstance(threshold, (int, float)) and 0 <= threshold <= 1):
        raise ValueError(f"threshold must be a share in [0, 1], got {threshold!r}")
    if k is None:
        ks = (default_k(n),)
    elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
        ks = (int(k),)
    else:
        ks = tuple(k)
        if not ks:
            raise ValueError("k must be an int or a non-empty sequence of ints")
    ks = tuple(_check_int(x, "k", 1, n - 1) for x in ks)
    m = _resolve(metric, n, ks[0])
    rng = _rng(seed)
    sigma = _perm.random(n, n_pairs, rng)
    nu = _perm.random(n, n_pairs, rng)
    rates, means, undef = [], [], []
    evaluate = m.needs_k or not isinstance(metric, str)
    worst = None
    for kk in ks:
        if evaluate:
            d = np.abs(m.at(sigma, nu, kk) - m.at(sigma, nu, kk + 1))
        else:
            d = np.zeros(n_pairs)
        ok = ~np.isnan(d)
        passed = _strictly_below(d[ok], 1.0 / kk)
        rate = float(passed.mean()) if ok.any() else float("nan")
        rates.append(rate)
        means.append(float(d[ok].mean()) if ok.any() else float("nan"))
        undef.append(int((~ok).sum()))
        if not (rate >= threshold) and worst is None:
            q = int(np.flatnonzero(ok)[~passed][0]) if (~passed).any() else 0
            worst = Evidence.make(
                f"at k={kk} only {rate:.1%} of {int(ok.sum())} pairs have |m@k - m@k+1| < 1/k",
                {"sigma": sigma[q], "nu": nu[q]},
                {"m@k": m.at(sigma[q], nu[q], kk), "m@k+1": m.at(sigma[q], nu[q], kk + 1), "1/k": 1.0 / kk},
            )
    holds = all(r >= threshold for r in rates)
    note = "" if evaluate else "metric does not use k: m@k = m@k+1 identically"
    return StabilityResult(
        property="stability", metric=m.name, n=n, k=ks[0] if len(ks) == 1 else None, holds=holds,
        method="random", checked=n_pairs * len(ks), seed=seed, evidence=worst, note=note, ks=ks,
        pass_rates=tuple(rates), mean_abs_diff=tuple(means), n_undefined=tuple(undef),
        threshold=float(threshold), n_pairs=n_pairs,
    )


def stability_curves(
    names: Optional[Sequence[str]] = None,
    n: int = 1000,
    ks: Optional[Sequence[int]] = None,
    *,
    n_pairs: int = 1000,
    seed: int = 0,
    threshold: float = 0.975,
    confidence: float = 0.95,
):
    """Pass rates of Def. 10 with eps_k = 1/k for many registered metrics and many k at once.

    The same pairs as :func:`stability` with the same ``seed`` (so each row equals
    ``stability(name, n, k=k, ...)``), but every ``m@k`` is computed once for all metrics with
    :func:`rankbook.metrics.evaluate_many`. ``ks`` defaults to ``1..n-1``.

    Parameters
    ----------
    names : sequence of str, optional
        Registered metric names; all 33 by default (those without a cut-off pass at every k).
    n : int
        The size of the rankings.
    ks : sequence of int, optional
        The cut-offs, in 1..n-1 (default: all).
    n_pairs, seed, threshold
        As in :func:`stability`.
    confidence : float
        The level of the Wilson intervals, 0 < confidence < 1.

    Returns
    -------
    pandas.DataFrame
        Columns ``metric, family, k, pass_rate, mean_abs_diff, n_valid, n_undefined, stable``
        (``stable`` = ``pass_rate >= threshold``), one row per metric and k, then
        ``n_passed`` and ``pass_low``, ``pass_high``: the Wilson interval
        (:func:`rankbook.stats.wilson_interval`, level ``confidence``) of the pass rate, whose
        pairs are independent draws. The intervals are pointwise: the same pairs serve every k.

    Examples
    --------
    >>> t = stability_curves(["recall", "mse"], n=50, ks=[2, 10], n_pairs=100)
    >>> t.shape, bool(t[t.metric == "mse"].stable.all())
    ((4, 11), True)
    >>> bool((t.pass_low <= t.pass_rate).all() and (t.pass_rate <= t.pass_high).all())
    True
    """
    import pandas as pd

    from . import metrics as _metrics

    n = _check_n(n)
    seed = _check_seed(seed)
    _check_int(n_pairs, "n_pairs", 1)
    if not (isinstance(threshold, (int, float)) and 0 <= threshold <= 1):
        raise ValueError(f"threshold must be a share in [0, 1], got {threshold!r}")
    names = list(_metrics.NAMES if names is None else names)
    for name in names:
        if name not in _metrics.REGISTRY:
            raise _metrics._unknown(name)
    ks = tuple(range(1, n)) if ks is None else tuple(ks)
    if not ks:
        raise ValueError("ks must be a non-empty sequence of ints")
    ks = tuple(_check_int(x, "k", 1, n - 1) for x in ks)
    rng = _rng(seed)
    sigma = _perm.random(n, n_pairs, rng)
    nu = _perm.random(n, n_pairs, rng)
    need = [name for name in names if _metrics.REGISTRY[name].needs_k]
    cache: dict = {}
    # every k-dependent metric at every cut-off in one pass, bit for bit the values the metrics
    # return at each k (rankbook.cutoffs, exact=True), so that the strict comparison with 1/k
    # sees exactly those values
    from . import cutoffs as _cutoffs

    all_k = sorted(set(ks) | {kk + 1 for kk in ks})
    column = {kk: j for j, kk in enumerate(all_k)}
    table = _cutoffs.evaluate_cutoffs(need, sigma, nu, all_k, exact=True) if need else {}

    def at(kk):
        if kk not in cache:
            cache[kk] = {name: table[name][..., column[kk]] for name in need}
        return cache[kk]

    rows = []
    for kk in ks:
        lo, hi = at(kk), at(kk + 1)
        for name in names:
            if name in need:
                d = np.abs(np.asarray(lo[name], dtype=float) - np.asarray(hi[name], dtype=float))
            else:
                d = np.zeros(n_pairs)
            ok = ~np.isnan(d)
            rate = float(_strictly_below(d[ok], 1.0 / kk).mean()) if ok.any() else float("nan")
            rows.append((name, _metrics.REGISTRY[name].family, kk, rate,
                         float(d[ok].mean()) if ok.any() else float("nan"), int(ok.sum()),
                         int((~ok).sum()), bool(rate >= threshold)))
        for key in [x for x in cache if x < kk]:
            del cache[key]
    cols = ["metric", "family", "k", "pass_rate", "mean_abs_diff", "n_valid", "n_undefined", "stable"]
    out = pd.DataFrame(rows, columns=cols)
    from .stats import wilson_interval

    out["n_passed"] = np.rint(out["pass_rate"].fillna(0) * out["n_valid"]).astype(np.int64)
    low, high = wilson_interval(out["n_passed"].to_numpy(), out["n_valid"].to_numpy(), confidence)
    out["pass_low"], out["pass_high"] = low, high
    return out


# --------------------------------------------------------------------------------------------
# distance: triangle inequality and Def. 11/12


_TRANSFORMS = ("none", "eq7", "linear")


def _orientation(m: _Resolved, transform: str, d0: float):
    """(sign, offset) of f = sign * (m - offset) for a transform; None for 'linear' (both)."""
    if transform == "none":
        return [(1, 0.0)]
    if transform == "eq7":
        if m.higher_is_closer is None:
            raise ValueError(
                f"transform 'eq7' needs to know whether higher values of {m.name!r} mean closer: "
                "pass higher_is_closer=True or False"
            )
        return [(-1, d0)] if m.higher_is_closer else [(1, d0)]
    return [(1, d0), (-1, d0)]


def _triangle_matrix(F: np.ndarray, tol: float, n: int):
    """All triples, or only sigma = id when F is left- or right-invariant.

    If f(sigma o t, nu o t) = f(sigma, nu) for all t, the triple (sigma, nu, mu) has the same
    three values as (id, nu o sigma^-1, mu o sigma^-1); with left invariance as
    (id, sigma^-1 o nu, sigma^-1 o mu). Either way the triples with sigma = id (row 0 of the
    lexicographic order) cover every case: (n!)^2 comparisons instead of (n!)^3.
    """
    N = len(F)
    invariant = _generators_invariant(F, n, "right") or _generators_invariant(F, n, "left")
    rows = 1 if invariant else N
    step = max(1, (1 << 22) // (N * N))
    for a in range(0, rows, step):
        b = min(rows, a + step)
        lhs = F[a:b, None, :]  # f(sigma, mu)
        rhs = F[a:b, :, None] + F[None, :, :]  # f(sigma, nu) + f(nu, mu)
        bad = lhs > rhs + tol
        if bad.any():
            s, v, u = np.argwhere(bad)[0]
            return False, (a + s, v, u)
    return True, None


def _distance_exhaustive(F: np.ndarray, P: np.ndarray, want: str):
    """Check Def. 11 axioms on the full matrix F; returns dict of verdicts and evidence.

    The triangle inequality is examined when it is cheap (F left- or right-invariant) or when
    the other three axioms hold; otherwise it is reported as None (not examined).
    """
    n = P.shape[-1]
    finite = np.isfinite(F)
    tol = ATOL + RTOL * (float(np.abs(F[finite]).max()) if finite.any() else 0.0)
    res = {}
    ev = None
    if want == "all":
        neg = F < -tol
        res["nonnegative"] = not (neg.any() or np.isnan(F).any())
        if not res["nonnegative"]:
            bad = neg | np.isnan(F)
            s, v = np.argwhere(bad)[0]
            ev = ("f takes a negative or undefined value", P[s], P[v], None)
        diag = np.diag(F)
        zero_diag = np.abs(diag) <= tol
        off = np.abs(F) <= tol
        np.fill_diagonal(off, False)
        res["identity"] = bool(zero_diag.all() and not off.any())
        if not res["identity"] and ev is None:
            if not zero_diag.all():
                s = int(np.flatnonzero(~zero_diag)[0])
                ev = ("f(sigma, sigma) is not 0", P[s], P[s], None)
            else:
                s, v = np.argwhere(off)[0]
                ev = ("f vanishes on two distinct rankings", P[s], P[v], None)
        asym = ~_close(F, F.T)
        res["symmetric"] = not asym.any()
        if not res["symmetric"] and ev is None:
            s, v = np.argwhere(asym)[0]
            ev = ("f(sigma, nu) != f(nu, sigma)", P[s], P[v], None)
        cheap = _generators_invariant(F, n, "right") or _generators_invariant(F, n, "left")
        if not (cheap or all(res.values())):
            res["triangle"] = None
            return res, ev
    ok, w = _triangle_matrix(F, tol, n)
    res["triangle"] = ok
    if not ok and ev is None:
        s, v, u = w
        ev = ("triangle inequality fails: f(sigma, mu) > f(sigma, nu) + f(nu, mu)", P[s], P[v], P[u])
    return res, ev


def _distance_random(f, n, want, n_samples, rng):
    s = _perm.random(n, n_samples, rng)
    v = _perm.random(n, n_samples, rng)
    u = _perm.random(n, n_samples, rng)
    fsv, fvs, fvu, fsu, fss = f(s, v), f(v, s), f(v, u), f(s, u), f(s, s)
    allv = np.concatenate([fsv, fvu, fsu, fss])
    scale = np.nanmax(np.abs(allv)) if np.isfinite(allv).any() else 0.0
    tol = ATOL + RTOL * scale
    res = {}
    ev = None
    distinct = ~np.all(s == v, axis=-1)
    if want == "all":
        bad = (fsv < -tol) | np.isnan(fsv)
        res["nonnegative"] = not bad.any()
        if bad.any():
            q = int(np.flatnonzero(bad)[0])
            ev = ("f takes a negative or undefined value", s[q], v[q], None)
        zd = np.abs(fss) <= tol
        zo = (np.abs(fsv) <= tol) & distinct
        res["identity"] = bool(zd.all() and not zo.any())
        if not res["identity"] and ev is None:
            if not zd.all():
                q = int(np.flatnonzero(~zd)[0])
                ev = ("f(sigma, sigma) is not 0", s[q], s[q], None)
            else:
                q = int(np.flatnonzero(zo)[0])
                ev = ("f vanishes on two distinct rankings", s[q], v[q], None)
        asym = ~_close(fsv, fvs)
        res["symmetric"] = not asym.any()
        if asym.any() and ev is None:
            q = int(np.flatnonzero(asym)[0])
            ev = ("f(sigma, nu) != f(nu, sigma)", s[q], v[q], None)
    bad = fsu > fsv + fvu + tol
    res["triangle"] = not bad.any()
    if bad.any() and ev is None:
        q = int(np.flatnonzero(bad)[0])
        ev = ("triangle inequality fails: f(sigma, mu) > f(sigma, nu) + f(nu, mu)", s[q], v[q], u[q])
    return res, ev


def _distance_core(prop, metric, n, k, transform, want, method, max_cases, n_samples, seed,
                   higher_is_closer):
    n = _check_n(n)
    m = _resolve(metric, n, k, higher_is_closer)
    check_choice(transform, _TRANSFORMS, "transform")
    seed = _check_seed(seed)
    _check_int(n_samples, "n_samples", 1)
    # all triples: (n!)^3 comparisons on the (n!)^2 matrix, only for n <= MATRIX_MAX_N
    check_choice(method, _METHODS, "method")
    how = method if method != "auto" else ("exhaustive" if n <= MATRIX_MAX_N else "random")
    if how == "exhaustive" and n > MATRIX_MAX_N:
        raise ValueError(
            f"an exhaustive distance check needs all (n!)^3 triples; n={n} is too large "
            f"(exhaustive for n <= {MATRIX_MAX_N}, use method='random' or 'auto')"
        )
    ident = _perm.identity(n)
    d0 = float(m(ident, ident))
    best = None
    if how == "exhaustive":
        P, _ = _sn(n)
        M = _full_matrix(m, n)
        checked = M.size
    else:
        P = None  # each orientation draws the same samples from a fresh _rng(seed)
        checked = 5 * n_samples
    for sign, offset in _orientation(m, transform, d0):
        if how == "exhaustive":
            res, ev = _distance_exhaustive(sign * (M - offset), P, want)
        else:
            f = lambda s, v, _s=sign, _o=offset: _s * (m(s, v) - _o)  # noqa: E731
            res, ev = _distance_random(f, n, want, n_samples, _rng(seed))
        ok = all(v is True for v in res.values())
        cand = (ok, sign, offset, res, ev)
        if best is None or (ok and not best[0]):
            best = cand
        if ok:
            break
    ok, sign, offset, res, ev = best
    evidence = None
    if ev is not None:
        what, s, v, u = ev
        f = lambda a, b: sign * (float(m(a, b)) - offset)  # noqa: E731
        ranks = {"sigma": s, "nu": v} if u is None else {"sigma": s, "nu": v, "mu": u}
        vals = {"f(sigma, nu)": f(s, v)}
        if what.startswith("f(sigma, nu) !="):
            vals["f(nu, sigma)"] = f(v, s)
        if u is not None:
            vals = {"f(sigma, mu)": f(s, u), "f(sigma, nu)": f(s, v), "f(nu, mu)": f(v, u)}
        evidence = Evidence.make(what, ranks, vals)
    form = {1: "m - {c}", -1: "{c} - m"}[sign].format(c=_fmt(offset)) if transform != "none" else "m"
    return DistanceResult(
        property=prop, metric=m.name, n=n, k=m.k, holds=ok, method=how, checked=checked,
        seed=None if how == "exhaustive" else seed, evidence=evidence, note=f"f = {form}",
        transform=transform, sign=sign, offset=offset,
        nonnegative=res.get("nonnegative"), identity=res.get("identity"),
        symmetric=res.get("symmetric"), triangle=res.get("triangle"),
    )


def triangle_inequality(
    metric: Metric,
    n: int,
    *,
    k: Optional[int] = None,
    transform: str = "none",
    method: str = "auto",
    max_cases: int = MAX_CASES,
    n_samples: int = 200_000,
    seed: int = 0,
    higher_is_closer: Optional[bool] = None,
) -> DistanceResult:
    """Triangle inequality (Def. 14 of :cite:`paperA`) for ``f = m`` or a linear transform.

    :math:`f(\\sigma, \\mu) \\le f(\\sigma, \\nu) + f(\\nu, \\mu)` for all triples. ``transform``:

    ``"none"``
        ``f = m``;
    ``"eq7"``
        eq. 7, :math:`f = m_{\\max} - m` with :math:`m_{\\max} = m(\\mathrm{id}, \\mathrm{id})`,
        for metrics where higher means closer; for the others (errors, NDPM, meanRank) eq. 7 is
        applied to :math:`-m`, i.e. :math:`f = m - m(\\mathrm{id}, \\mathrm{id})`;
    ``"linear"``
        both signs of :math:`\\pm(m - m(\\mathrm{id}, \\mathrm{id}))`; holds if either does.

    Exhaustive: the ``(n!)^2`` matrix of values and all ``(n!)^3`` triples (n <= 6 with the
    default budget, about 3.7e8 comparisons). Random: ``n_samples`` random triples.

    Parameters
    ----------
    metric : str or callable
        A name of :data:`rankbook.metrics.NAMES`, a function ``f(sigma, nu)`` (of one pair or of
        a batch, with ``k`` if it takes a cut-off), or a :class:`TabulatedMetric`.
    n : int
        The size of the rankings.
    k : int, optional
        The cut-off of a metric that takes one (default ``max(1, n // 4)``).
    transform : {"none", "eq7", "linear"}
        The function ``f`` of ``m`` checked (above).
    method : {"auto", "exhaustive", "random"}
        Exhaustive over S_n when the cases fit ``max_cases`` (``"auto"``), or random.
    max_cases : int
        The most evaluations an exhaustive check may take.
    n_samples : int
        Random cases drawn when not exhaustive.
    seed : int
        Seed of the random cases.
    higher_is_closer : bool, optional
        The direction of a callable (a registered metric's is known).

    Returns
    -------
    DistanceResult
        The verdict, with a violating triple when it fails.

    Examples
    --------
    >>> l2 = lambda s, v: np.sqrt(((s - v) ** 2).sum(axis=-1))
    >>> triangle_inequality(l2, 4).holds
    True
    >>> triangle_inequality(lambda s, v: ((s - v) ** 2).sum(axis=-1), 4).holds
    False
    """
    return _distance_core("triangle_inequality", metric, n, k, transform, "triangle", method,
                          max_cases, n_samples, seed, higher_is_closer)


def is_distance(
    metric: Metric,
    n: int,
    *,
    k: Optional[int] = None,
    transform: str = "linear",
    method: str = "auto",
    max_cases: int = MAX_CASES,
    n_samples: int = 200_000,
    seed: int = 0,
    higher_is_closer: Optional[bool] = None,
) -> DistanceResult:
    """Distance (Def. 11) of ``m`` itself or of a linear transform of it (Def. 12, eq. 7).

    Checks non-negativity, :math:`f(\\sigma, \\nu) = 0 \\Leftrightarrow \\sigma = \\nu`,
    symmetry and the triangle inequality for ``f`` given by ``transform`` (see
    :func:`triangle_inequality`). The default ``"linear"`` answers Def. 12: an affine ``f(m)``
    that is a distance must vanish on the diagonal, which forces the offset
    ``m(sigma, sigma)`` (it must not depend on sigma), and a positive factor does not change
    any axiom, so only the two signs of :math:`\\pm(m - m(\\mathrm{id}, \\mathrm{id}))` need
    checking. Exhaustive for n <= 6 by default, random triples beyond.

    Parameters
    ----------
    metric : str or callable
        A name of :data:`rankbook.metrics.NAMES`, a function ``f(sigma, nu)`` (of one pair or of
        a batch, with ``k`` if it takes a cut-off), or a :class:`TabulatedMetric`.
    n : int
        The size of the rankings.
    k : int, optional
        The cut-off of a metric that takes one (default ``max(1, n // 4)``).
    transform : {"none", "eq7", "linear"}
        As in :func:`triangle_inequality`.
    method : {"auto", "exhaustive", "random"}
        Exhaustive over S_n when the cases fit ``max_cases`` (``"auto"``), or random.
    max_cases : int
        The most evaluations an exhaustive check may take.
    n_samples : int
        Random cases drawn when not exhaustive.
    seed : int
        Seed of the random cases.
    higher_is_closer : bool, optional
        The direction of a callable (a registered metric's is known).

    Returns
    -------
    DistanceResult
        The four axiom verdicts, the sign and offset used, and a counterexample.

    Examples
    --------
    >>> agree = lambda s, v: (s == v).sum(axis=-1).astype(float)   # higher = closer
    >>> r = is_distance(agree, 4)
    >>> r.holds, r.note
    (True, 'f = 4 - m')
    """
    return _distance_core("is_distance", metric, n, k, transform, "all", method, max_cases,
                          n_samples, seed, higher_is_closer)


# --------------------------------------------------------------------------------------------
# maximal / minimal agreement (Def. 15)


def _oriented(m: _Resolved, orientation: str) -> tuple[Callable, int]:
    check_choice(orientation, ("as_defined", "closeness"), "orientation")
    if orientation == "as_defined":
        return m, 1
    if m.higher_is_closer is None:
        raise ValueError(
            f"orientation 'closeness' needs to know whether higher values of {m.name!r} mean "
            "closer: pass higher_is_closer=True or False"
        )
    s = 1 if m.higher_is_closer else -1
    return (lambda a, b: s * m(a, b)), s


def _pair_extreme(m, sign, n, how, n_samples, rng, largest: bool, target=None, hits=None):
    """(value, sigma, nu, checked) of the max (or min) of sign*m over pairs; nan ignored.

    With ``target`` and a one-element list ``hits`` (scan path only), ``hits[0]`` records
    whether ``target`` is reached off the diagonal, in the same pass.
    """
    f = lambda a, b: sign * m(a, b)  # noqa: E731
    if _matrix_ok(n, how):
        P, _ = _sn(n)
        M = sign * _full_matrix(m, n)
        if np.isnan(M).all():
            return (float("nan"), P[0], P[0], M.size)
        r, c = np.unravel_index(np.nanargmax(M) if largest else np.nanargmin(M), M.shape)
        return (float(M[r, c]), P[r], P[c], M.size)
    if how == "exhaustive":
        P, _ = _sn(n)
        N = len(P)
        step = max(1, (_CHUNK_ELEMENTS * 4) // (N * n))
        best = (-np.inf if largest else np.inf, None, None)
        for a in range(0, N, step):
            vals = f(P[a : a + step, None, :], P[None, :, :])
            if target is not None and not hits[0]:
                hit = _close(vals, target)
                hit[np.arange(len(hit)), np.arange(a, a + len(hit))] = False
                hits[0] = bool(hit.any())
            if np.isnan(vals).all():
                continue
            idx = np.nanargmax(vals) if largest else np.nanargmin(vals)
            r, c = np.unravel_index(idx, vals.shape)
            x = vals[r, c]
            if (x > best[0]) if largest else (x < best[0]):
                best = (float(x), P[a + r], P[c])
        return best + (N * N,)
    s, v = _perm.random(n, n_samples, rng), _perm.random(n, n_samples, rng)
    vals = f(s, v)
    if np.isnan(vals).all():
        return (float("nan"), s[0], v[0], n_samples)
    q = int(np.nanargmax(vals) if largest else np.nanargmin(vals))
    return (float(vals[q]), s[q], v[q], n_samples)


def _strict_max(m, sign, n, m_max) -> bool:
    """Is m_max reached only on the diagonal (exhaustive)?"""
    P, _ = _sn(n)
    N = len(P)
    if n <= MATRIX_MAX_N:
        hit = _close(sign * _full_matrix(m, n), m_max)
        np.fill_diagonal(hit, False)
        return not hit.any()
    step = max(1, (_CHUNK_ELEMENTS * 4) // (N * n))
    for a in range(0, N, step):
        vals = sign * m(P[a : a + step, None, :], P[None, :, :])
        hit = _close(vals, m_max)
        hit[np.arange(len(hit)), np.arange(a, a + len(hit))] = False
        if hit.any():
            return False
    return True


def _diagonal(f, n, rng, n_samples):
    if n <= 9:
        P, _ = _sn(n)
        return P, f(P, P), "exhaustive"
    s = _perm.random(n, min(n_samples, 20_000), rng)
    return s, f(s, s), "random"


def maximal_agreement(
    metric: Metric,
    n: int,
    *,
    k: Optional[int] = None,
    orientation: str = "as_defined",
    method: str = "auto",
    max_cases: int = MAX_CASES,
    n_samples: int = 200_000,
    seed: int = 0,
    higher_is_closer: Optional[bool] = None,
) -> AgreementResult:
    """Maximal agreement (Def. 15(a)-(b) of :cite:`paperA`).

    (a) :math:`m(\\sigma, \\sigma) = m_{\\max}` for every :math:`\\sigma` and (b)
    :math:`m(\\sigma, \\nu) \\le m_{\\max}` for all pairs. ``orientation="as_defined"`` tests
    ``m`` as it is (error metrics then fail: their diagonal is the minimum);
    ``"closeness"`` tests ``-m`` for metrics where lower means closer. Also reported:
    ``strict`` -- the maximum is reached only on the diagonal (``m(sigma, nu) = m_max`` iff
    ``sigma = nu``, the notion of identity used in the proof of Prop. 7.1) -- and ``bound``
    (``m_max`` = ``m(id, id)``, in the orientation used). Pairs are searched exhaustively when
    ``(n!)^2 <= max_cases``, else ``n_samples`` random pairs; ``strict`` is only examined
    exhaustively.

    Parameters
    ----------
    metric : str or callable
        A name of :data:`rankbook.metrics.NAMES`, a function ``f(sigma, nu)`` (of one pair or of
        a batch, with ``k`` if it takes a cut-off), or a :class:`TabulatedMetric`.
    n : int
        The size of the rankings.
    k : int, optional
        The cut-off of a metric that takes one (default ``max(1, n // 4)``).
    orientation : {"as_defined", "closeness"}
        Test ``m`` as it is, or ``-m`` for the metrics where lower is closer.
    method : {"auto", "exhaustive", "random"}
        Exhaustive over S_n when the cases fit ``max_cases`` (``"auto"``), or random.
    max_cases : int
        The most evaluations an exhaustive check may take.
    n_samples : int
        Random cases drawn when not exhaustive.
    seed : int
        Seed of the random cases.
    higher_is_closer : bool, optional
        The direction of a callable (a registered metric's is known).

    Returns
    -------
    AgreementResult
        ``holds``, ``bound`` (``m_max``), ``strict`` and the evidence.

    Examples
    --------
    >>> agree = lambda s, v: (s == v).mean(axis=-1)
    >>> r = maximal_agreement(agree, 4)
    >>> r.holds, r.bound, r.strict
    (True, 1.0, True)
    """
    n = _check_n(n)
    m = _resolve(metric, n, k, higher_is_closer)
    seed = _check_seed(seed)
    f, sign = _oriented(m, orientation)
    rng = _rng(seed)
    how = _choose(method, _n_fact(n) ** 2 if n <= 10 else 1 << 62, max_cases)
    D, dv, _ = _diagonal(f, n, rng, n_samples)
    m_max = float(dv[0])
    const = _close(dv, m_max)
    ev = None
    if not const.all():
        q = int(np.flatnonzero(~const)[0])
        ev = Evidence.make("m(sigma, sigma) is not constant", {"id-row": D[0], "sigma": D[q]},
                           {"m(first, first)": dv[0], "m(sigma, sigma)": dv[q]})
    if np.isnan(m_max) and ev is None:
        ev = Evidence.make("m(sigma, sigma) is undefined, so there is no maximal value",
                           {"sigma": D[0]}, {"m(sigma, sigma)": dv[0]})
    hits = [False]
    scan = how == "exhaustive" and not _matrix_ok(n, how) and const.all() and not np.isnan(m_max)
    top, s, v, checked = _pair_extreme(m, sign, n, how, n_samples, rng, largest=True,
                                       target=m_max if scan else None, hits=hits)
    above = top > m_max and not _close(top, m_max)
    if above and ev is None:
        ev = Evidence.make("a pair scores above the diagonal value", {"sigma": s, "nu": v},
                           {"m(sigma, nu)": top, "m_max = m(id, id)": m_max})
    strict = None
    if how == "exhaustive" and const.all() and not above and not np.isnan(m_max):
        strict = (not hits[0]) if scan else _strict_max(m, sign, n, m_max)
    holds = bool(const.all() and not above and not np.isnan(m_max))
    return AgreementResult(
        property="maximal_agreement", metric=m.name, n=n, k=m.k, holds=holds, method=how,
        checked=checked + len(D), seed=None if how == "exhaustive" else seed, evidence=ev,
        orientation=orientation, bound=m_max, constant_on_diagonal=bool(const.all()), strict=strict,
    )


def minimal_agreement(
    metric: Metric,
    n: int,
    *,
    k: Optional[int] = None,
    orientation: str = "as_defined",
    method: str = "auto",
    max_cases: int = MAX_CASES,
    n_samples: int = 200_000,
    seed: int = 0,
    higher_is_closer: Optional[bool] = None,
) -> AgreementResult:
    """Minimal agreement (Def. 15 of :cite:`paperA`): a lower bound ``m_min`` on S_n x S_n.

    On a finite S_n every real-valued metric is bounded below, so ``holds`` is only false when
    the minimum is ``-inf`` (or every value is undefined). The informative outputs are
    ``bound`` (the minimum found: exact when exhaustive, an upper estimate when random) and
    ``attained_at_reverse`` -- whether ``m(sigma, reverse(sigma)) = m_min`` for every sigma,
    the "ideal" of Appendix A. Appendix A itself notes that "the reverse" of a ranking is
    ambiguous; two candidates are checked: ``reverse(sigma) = sigma o w0`` (the list read
    backwards, ``sigma[::-1]``; ``attained_at_reverse``) and ``w0 o sigma`` (every item label
    ``x`` replaced by ``n + 1 - x``; ``attained_at_complement``), ``w0 = (n, ..., 1)``. A metric
    that reads the arrays as scores by position (Kendall's tau on the raw arrays, as scipy does)
    reaches its minimum at the second, not the first. The evidence shows a pair scoring below
    the reversed list. ``orientation`` as in :func:`maximal_agreement`.

    Parameters
    ----------
    metric : str or callable
        A name of :data:`rankbook.metrics.NAMES`, a function ``f(sigma, nu)`` (of one pair or of
        a batch, with ``k`` if it takes a cut-off), or a :class:`TabulatedMetric`.
    n : int
        The size of the rankings.
    k : int, optional
        The cut-off of a metric that takes one (default ``max(1, n // 4)``).
    orientation : {"as_defined", "closeness"}
        As in :func:`maximal_agreement`.
    method : {"auto", "exhaustive", "random"}
        Exhaustive over S_n when the cases fit ``max_cases`` (``"auto"``), or random.
    max_cases : int
        The most evaluations an exhaustive check may take.
    n_samples : int
        Random cases drawn when not exhaustive.
    seed : int
        Seed of the random cases.
    higher_is_closer : bool, optional
        The direction of a callable (a registered metric's is known).

    Returns
    -------
    AgreementResult
        ``holds``, ``bound`` (``m_min``), ``attained_at_reverse``, ``attained_at_complement`` and
        the evidence.

    Examples
    --------
    >>> def tau(s, v):   # Kendall's tau of the arrays as scores, n = 4
    ...     ds = s[..., :, None] - s[..., None, :]
    ...     dv = v[..., :, None] - v[..., None, :]
    ...     return np.sign(ds * dv).sum(axis=(-1, -2)) / 12.0
    >>> r = minimal_agreement(tau, 4)
    >>> r.holds, r.bound, r.attained_at_reverse, r.attained_at_complement
    (True, -1.0, False, True)
    """
    n = _check_n(n)
    m = _resolve(metric, n, k, higher_is_closer)
    seed = _check_seed(seed)
    f, sign = _oriented(m, orientation)
    rng = _rng(seed)
    how = _choose(method, _n_fact(n) ** 2 if n <= 10 else 1 << 62, max_cases)
    low, s, v, checked = _pair_extreme(m, sign, n, how, n_samples, rng, largest=False)
    D, _, _ = _diagonal(f, n, rng, n_samples)
    rev = f(D, D[:, ::-1])
    at_rev = _close(rev, low)
    at_comp = _close(f(D, D.shape[-1] + 1 - D), low)
    ev = None
    if not at_rev.all():
        q = int(np.flatnonzero(~at_rev)[0])
        ev = Evidence.make(
            "the reversed ranking does not reach the minimum",
            {"sigma": D[q], "reverse(sigma)": D[q][::-1], "argmin sigma": s, "argmin nu": v},
            {"m(sigma, reverse(sigma))": rev[q], "m_min": low},
        )
    holds = bool(np.isfinite(low))
    return AgreementResult(
        property="minimal_agreement", metric=m.name, n=n, k=m.k, holds=holds, method=how,
        checked=checked + len(D), seed=None if how == "exhaustive" else seed, evidence=ev,
        orientation=orientation, bound=low, attained_at_reverse=bool(at_rev.all()),
        attained_at_complement=bool(at_comp.all()),
    )


# --------------------------------------------------------------------------------------------
# linear equivalence (Def. 3)


class _PairRows:
    """``sigma`` (``part`` 0) or ``nu`` (``part`` 1) of the pairs of S_n x S_n in the order of
    :func:`_full_matrix` (pair ``q`` is ``(P[q // N], P[q % N])``), read row by row without
    building them; a boolean mask keeps the selected pairs, as on an array."""

    def __init__(self, P: np.ndarray, part: int, index: Optional[np.ndarray] = None):
        self.P, self.part, self.index = P, part, index

    def __getitem__(self, q):
        if isinstance(q, np.ndarray) and q.dtype == bool:
            kept = np.flatnonzero(q) if self.index is None else self.index[q]
            return _PairRows(self.P, self.part, kept)
        q = int(q) if self.index is None else int(self.index[q])
        return self.P[divmod(q, len(self.P))[self.part]]


def linearly_equivalent(
    first: Metric,
    second: Metric,
    n: int,
    *,
    k: Optional[int] = None,
    method: str = "auto",
    max_cases: int = MAX_CASES,
    n_samples: int = 200_000,
    seed: int = 0,
) -> EquivalenceResult:
    """Linear equivalence (Def. 3 of :cite:`paperA`): ``second = a * first + b`` with ``a != 0``.

    Evaluates both metrics on every pair (exhaustive when ``(n!)^2 <= max_cases``) or on
    ``n_samples`` random pairs, fits the line through the points ``(first, second)`` and accepts
    when every point lies on it (tolerance ``ATOL + RTOL * scale`` on the residual) with a
    non-zero slope. Undefined values must occur on the same pairs for both. Two constant metrics
    are equivalent (any line through the one point). A non-constant ``f`` with
    ``f(m1) = m2`` exists iff one with ``m1 = f(m2)`` does, so one direction suffices.

    Parameters
    ----------
    first, second : str or callable
        The two metrics, as ``metric`` of :func:`symmetry`.
    n : int
        The size of the rankings.
    k : int, optional
        The cut-off of a metric that takes one (default ``max(1, n // 4)``).
    method : {"auto", "exhaustive", "random"}
        Exhaustive over S_n when the cases fit ``max_cases`` (``"auto"``), or random.
    max_cases : int
        The most evaluations an exhaustive check may take.
    n_samples : int
        Random cases drawn when not exhaustive.
    seed : int
        Seed of the random cases.

    Returns
    -------
    EquivalenceResult
        The verdict, the slope and intercept of ``second = a * first + b``, and a counterexample.

    Examples
    --------
    >>> l1 = lambda s, v: np.abs(s - v).sum(axis=-1)
    >>> mean_l1 = lambda s, v: 1 - np.abs(s - v).mean(axis=-1)
    >>> r = linearly_equivalent(l1, mean_l1, 4)
    >>> r.holds, round(r.slope, 6), r.intercept
    (True, -0.25, 1.0)
    """
    n = _check_n(n)
    m1 = _resolve(first, n, k)
    m2 = _resolve(second, n, k)
    seed = _check_seed(seed)
    how = _choose(method, _n_fact(n) ** 2 if n <= 10 else 1 << 62, max_cases)
    if how == "exhaustive":
        P, _ = _sn(n)
        N = len(P)
        if n <= MATRIX_MAX_N:
            # the cached value matrices hold every pair; the pairs themselves are read only for
            # the evidence, so they are indexed when needed instead of building 2 (n!)^2 x n
            # integers on every call (33^2 calls at n = 6 took 84 s, issue 27)
            x, y = _full_matrix(m1, n).ravel(), _full_matrix(m2, n).ravel()
            s, v = _PairRows(P, 0), _PairRows(P, 1)
        else:
            si, vi = np.divmod(np.arange(N * N), N)
            s, v = P[si], P[vi]
            x, y = m1(s, v), m2(s, v)
    else:
        rng = _rng(seed)
        s, v = _perm.random(n, n_samples, rng), _perm.random(n, n_samples, rng)
        x, y = m1(s, v), m2(s, v)
    base = dict(property="linearly_equivalent", metric=m1.name, n=n,
                k=m1.k if m1.k is not None else m2.k, method=how, checked=2 * len(x),
                seed=None if how == "exhaustive" else seed, second=m2.name)
    nx, ny = np.isnan(x), np.isnan(y)
    if (nx != ny).any():
        q = int(np.flatnonzero(nx != ny)[0])
        ev = Evidence.make("one metric is undefined where the other is not", {"sigma": s[q], "nu": v[q]},
                           {"first": x[q], "second": y[q]})
        return EquivalenceResult(holds=False, evidence=ev, **base)
    ok = ~nx
    x, y, s, v = x[ok], y[ok], s[ok], v[ok]
    if len(x) == 0:
        return EquivalenceResult(holds=True, note="both undefined everywhere", **base)
    tol_x = ATOL + RTOL * np.abs(x).max()
    tol_y = ATOL + RTOL * np.abs(y).max()
    spread_x = x.max() - x.min() > tol_x
    spread_y = y.max() - y.min() > tol_y
    if not spread_x and not spread_y:
        return EquivalenceResult(holds=True, note="both constant", slope=1.0,
                                 intercept=float(y[0] - x[0]), **base)
    if spread_x != spread_y:
        # one constant, the other not: only a constant f would map one onto the other
        a, b = int(np.argmin(x if spread_x else y)), int(np.argmax(x if spread_x else y))
        ev = Evidence.make("one metric is constant and the other is not", {"sigma 1": s[a], "nu 1": v[a],
                           "sigma 2": s[b], "nu 2": v[b]},
                           {"first 1": x[a], "second 1": y[a], "first 2": x[b], "second 2": y[b]})
        return EquivalenceResult(holds=False, evidence=ev, **base)
    i0, i1 = int(np.argmin(x)), int(np.argmax(x))
    slope = (y[i1] - y[i0]) / (x[i1] - x[i0])
    intercept = y[i0] - slope * x[i0]
    resid = np.abs(y - (slope * x + intercept))
    worst = int(np.argmax(resid))
    if resid[worst] > tol_y * 10 or abs(slope) * (x.max() - x.min()) <= tol_y:
        ev = Evidence.make(
            "three pairs whose values are not on one line",
            {"sigma 1": s[i0], "nu 1": v[i0], "sigma 2": s[i1], "nu 2": v[i1],
             "sigma 3": s[worst], "nu 3": v[worst]},
            {"first 1": x[i0], "second 1": y[i0], "first 2": x[i1], "second 2": y[i1],
             "first 3": x[worst], "second 3": y[worst]},
        )
        return EquivalenceResult(holds=False, evidence=ev, **base)
    return EquivalenceResult(holds=True, slope=float(slope), intercept=float(intercept), **base)


# --------------------------------------------------------------------------------------------
# Type I robustness (eqs. 5 and 6)


def type_i_robustness(
    metric: Metric,
    n: int,
    *,
    k: Optional[int] = None,
    change: str = "swap",
    n_pairs: int = 1000,
    seed: int = 0,
    threshold: float = 0.05,
) -> TypeIResult:
    """Type I robustness (Def. 6, eqs. 5-6 of :cite:`paperA`): mean ``|m(s, v) - m(s, v')|``.

    ``n_pairs`` independent uniform pairs ``(sigma, nu)`` are drawn from a generator seeded with
    ``seed`` (sigma block, then nu block, then the swap positions, so ``"swap"`` and
    ``"slide"`` with the same seed use the same pairs). ``v'`` is

    ``"swap"`` (eq. 5)
        ``nu o (i j)``: the entries at two uniformly chosen distinct positions exchanged;
    ``"slide"`` (eq. 6)
        ``nu o FC_n`` = ``np.roll(nu, -1)``: the list slid up one place.

    ``mean`` and ``sd`` (sample standard deviation, ddof=1) are over the pairs where both values
    are defined (``n_valid``; undefined ones are counted in ``n_undefined``); ``se = sd /
    sqrt(n_valid)``. ``holds`` is ``mean < threshold`` (Table 2 colours values below 0.05).

    Parameters
    ----------
    metric : str or callable
        A name of :data:`rankbook.metrics.NAMES`, a function ``f(sigma, nu)`` (of one pair or of
        a batch, with ``k`` if it takes a cut-off), or a :class:`TabulatedMetric`.
    n : int
        The size of the rankings.
    k : int, optional
        The cut-off of a metric that takes one (default ``max(1, n // 4)``).
    change : {"swap", "slide"}
        The change of eq. 5 or eq. 6.
    n_pairs : int
        Random pairs drawn.
    seed : int
        Seed of the pairs and the swaps.
    threshold : float
        ``holds`` when the mean change is below it.

    Returns
    -------
    TypeIResult
        ``mean``, ``sd``, ``se``, ``n_valid``, ``n_undefined`` and ``holds``.

    Examples
    --------
    >>> l1 = lambda s, v: np.abs(s - v).mean(axis=-1)
    >>> r = type_i_robustness(l1, 10, change="slide", n_pairs=500)
    >>> r.n_valid, 0 < r.mean < 5
    (500, True)
    """
    n = _check_n(n)
    m = _resolve(metric, n, k)
    check_choice(change, ("swap", "slide"), "change")
    seed = _check_seed(seed)
    _check_int(n_pairs, "n_pairs", 1)
    rng = _rng(seed)
    sigma = _perm.random(n, n_pairs, rng)
    nu = _perm.random(n, n_pairs, rng)
    i = rng.integers(0, n, n_pairs)
    j = (i + rng.integers(1, n, n_pairs)) % n
    if change == "swap":
        moved = nu.copy()
        rows = np.arange(n_pairs)
        moved[rows, i], moved[rows, j] = nu[rows, j], nu[rows, i]
    else:
        moved = np.roll(nu, -1, axis=-1)
    d = np.abs(m(sigma, nu) - m(sigma, moved))
    ok = ~np.isnan(d)
    dv = d[ok]
    mean = float(dv.mean()) if dv.size else float("nan")
    sd = float(dv.std(ddof=1)) if dv.size > 1 else float("nan")
    se = sd / math.sqrt(dv.size) if dv.size > 1 else float("nan")
    return TypeIResult(
        property="type_i_robustness", metric=m.name, n=n, k=m.k, holds=bool(mean < threshold),
        method="random", checked=n_pairs, seed=seed, change=change, mean=mean, sd=sd, se=se,
        n_valid=int(ok.sum()), n_undefined=int((~ok).sum()), threshold=float(threshold),
    )


# --------------------------------------------------------------------------------------------
# DCG in exact arithmetic (Prop. 6.1)


def dcg_single(pi) -> np.ndarray:
    """The one-argument DCG of the proof of Prop. 6.1: :math:`\\sum_i \\pi(i) / \\log_2(i + 1)`.

    Vectorised over a batch of permutations (floats). The two-argument metric ``dcg`` of
    :mod:`rankbook.metrics` applies this to the relative permutation of its two arguments.

    Parameters
    ----------
    pi : array_like of shape (n,) or (..., n)
        Permutations of 1..n.

    Returns
    -------
    ndarray of float, the batch shape

    Examples
    --------
    >>> round(float(dcg_single([1, 2, 3])), 6)   # 1/1 + 2/log2(3) + 3/2
    3.76186
    """
    p = _perm.validate(pi)
    disc = 1.0 / np.log2(np.arange(2, p.shape[-1] + 2))
    return p @ disc


def _log2_form(m: int) -> tuple[int, tuple]:
    """log2(m) = g * L, L = (e_2, e_3, e_5, ...)/g primitive: returns (g, L as a key)."""
    exps = {}
    x, p = m, 2
    while x > 1:
        while x % p == 0:
            exps[p] = exps.get(p, 0) + 1
            x //= p
        p += 1
    primes = tuple(sorted(exps))
    g = math.gcd(*exps.values())
    return g, tuple((q, exps[q] // g) for q in primes)


def _form_text(key: tuple) -> str:
    terms = []
    for q, e in key:
        c = "" if e == 1 else f"{e}*"
        terms.append(f"{c}log2({q})" if q != 2 else (f"{e}" if e != 1 else "1"))
    return " + ".join(terms)


def dcg_exact(pi) -> dict:
    """DCG of one permutation in exact form: ``{log-form: Fraction}``.

    :math:`\\log_2(i + 1)` factors as :math:`g \\cdot L` with ``L`` a primitive integer
    combination of :math:`1, \\log_2 3, \\log_2 5, \\ldots` (e.g. :math:`\\log_2 9 = 2 \\log_2 3`,
    :math:`\\log_2 6 = 1 + \\log_2 3`, :math:`\\log_2 8 = 3 \\cdot 1`), so
    :math:`\\sum_i \\pi(i)/\\log_2(i+1) = \\sum_L c_L / L` with rational :math:`c_L`. The key
    ``(("2", 1),)``-style tuple ``((2, 1),)`` is the rational part (:math:`L = 1`, positions
    1, 3, 7, 15, ... whose discounts are 1, 1/2, 1/3, 1/4, ...). Two permutations whose
    dictionaries are equal have exactly equal DCG (the sums agree term by term).

    Parameters
    ----------
    pi : sequence of int
        One permutation of 1..n.

    Returns
    -------
    dict
        ``{log-form: Fraction}``, the exact DCG.

    Examples
    --------
    >>> e = dcg_exact([4, 2, 5, 3, 6, 7, 1])
    >>> e[((2, 1),)]
    Fraction(41, 6)
    """
    p = _perm.validate(pi)
    if p.ndim != 1:
        raise ValueError(f"dcg_exact takes one permutation of shape (n,), got shape {p.shape}")
    out: dict = {}
    for i, v in enumerate(p.tolist(), start=1):
        g, key = _log2_form(i + 1)
        out[key] = out.get(key, Fraction(0)) + Fraction(v, g)
    return out


@lru_cache(maxsize=16)
def _decimal_discounts(n: int, digits: int) -> tuple:
    with localcontext() as ctx:
        ctx.prec = digits + 5
        two = Decimal(2).ln()
        return tuple(two / Decimal(i + 1).ln() for i in range(1, n + 1))


def _dcg_decimal(p, digits: int = 60) -> Decimal:
    disc = _decimal_discounts(len(p), digits)
    with localcontext() as ctx:
        ctx.prec = digits
        return sum((Decimal(int(v)) * d for v, d in zip(p, disc)), Decimal(0))


def _equal_certificate(p, q) -> str:
    """Why two permutations with equal exact forms have equal DCG, position group by group."""
    p, q = np.asarray(p).tolist(), np.asarray(q).tolist()
    differ = [i for i in range(1, len(p) + 1) if p[i - 1] != q[i - 1]]
    groups: dict = {}
    for i in differ:
        g, key = _log2_form(i + 1)
        groups.setdefault(key, []).append((i, g))
    parts = [f"the items differ at positions {', '.join(map(str, differ))} only"]
    for key, members in groups.items():
        pos = ", ".join(str(i) for i, _ in members)
        tp = " + ".join(f"{p[i - 1]}/{g}" for i, g in members)
        tq = " + ".join(f"{q[i - 1]}/{g}" for i, g in members)
        vp = sum((Fraction(p[i - 1], g) for i, g in members), Fraction(0))
        vq = sum((Fraction(q[i - 1], g) for i, g in members), Fraction(0))
        if key == ((2, 1),):
            parts.append(f"positions {pos} have the rational discounts 1/log2(i+1) = "
                         f"{', '.join(f'1/{g}' for _, g in members)}: {tp} = {vp} and {tq} = {vq}")
        else:
            L = _form_text(key)
            parts.append(f"positions {pos} share the factor 1/({L}) (log2(i+1) = "
                         f"{', '.join(f'{g}*({L})' if g != 1 else f'({L})' for _, g in members)}): "
                         f"({tp})/({L}) and ({tq})/({L}), both {vp}/({L})")
    return "; ".join(parts)


def dcg_exact_compare(p, q) -> tuple[str, str]:
    """Compare the DCG of two permutations exactly: ``("equal" | "different" | "undecided", why)``.

    ``"equal"``: the exact forms of :func:`dcg_exact` coincide, a proof; ``why`` spells out the
    sums over the positions where the two differ. ``"different"``: a 60-digit evaluation of the
    difference is larger than 1e-40 in absolute value (far beyond the rounding error of that
    evaluation, about 1e-57). ``"undecided"`` otherwise.

    Parameters
    ----------
    p, q : sequence of int
        Two permutations of 1..n.

    Returns
    -------
    tuple of str
        ``(verdict, why)``.

    Examples
    --------
    >>> verdict, why = dcg_exact_compare([4, 2, 5, 3, 6, 7, 1], [5, 2, 1, 3, 6, 7, 4])
    >>> verdict
    'equal'
    >>> print(why)
    the items differ at positions 1, 3, 7 only; positions 1, 3, 7 have the rational discounts 1/log2(i+1) = 1/1, 1/2, 1/3: 4/1 + 5/2 + 1/3 = 41/6 and 5/1 + 1/2 + 4/3 = 41/6
    >>> dcg_exact_compare([1, 2, 3], [2, 1, 3])[0]
    'different'
    """
    a, b = dcg_exact(p), dcg_exact(q)
    keys = sorted(set(a) | set(b))
    if all(a.get(key, 0) == b.get(key, 0) for key in keys):
        return "equal", _equal_certificate(p, q)
    diff = _dcg_decimal(np.asarray(p).tolist()) - _dcg_decimal(np.asarray(q).tolist())
    if abs(diff) > Decimal("1e-40"):
        return "different", f"DCG difference {float(diff):.3e} at 60 digits"
    return "undecided", f"exact forms differ but |difference| < 1e-40 at 60 digits ({diff:.3e})"


def _relative(s, t):
    """t^-1 o s: the DCG reading DCG(sigma, nu) = D(nu^-1 o sigma) of rankbook.metrics."""
    return _take(_perm.inverse(t), s)


def _dcg_pair_certificate(m: _Resolved, s, t, v) -> tuple[bool, str]:
    """Certify m(s, t) = m(s, v) exactly for the DCG metrics, via the relative permutations."""
    pt, pv = _relative(s, t), _relative(s, v)
    verdict, why = dcg_exact_compare(pt, pv)
    ratio_t = float(m(s, t)) / float(dcg_single(pt))
    ratio_v = float(m(s, v)) / float(dcg_single(pv))
    if not _close(ratio_t, ratio_v):
        return False, "metric values are not a fixed multiple of D(nu^-1 o sigma); no certificate"
    if verdict != "equal":
        return False, why
    return True, (f"D(tau^-1 o sigma) = D(nu^-1 o sigma) with tau^-1 o sigma = {pt.tolist()}, "
                  f"nu^-1 o sigma = {pv.tolist()}: {why}")


def _exact_weights(n: int):
    """Integer weights W (n, G) with DCG = sum_g (P @ W)[g] / (lcm_g * L_g), and the group keys."""
    forms = [_log2_form(i + 1) for i in range(1, n + 1)]
    keys = []
    for _, key in forms:
        if key not in keys:
            keys.append(key)
    lcm = {key: math.lcm(*[g for g, k2 in forms if k2 == key]) for key in keys}
    W = np.zeros((n, len(keys)), dtype=np.int64)
    for i, (g, key) in enumerate(forms):
        W[i, keys.index(key)] = lcm[key] // g
    return W, keys


def _exact_classes(n: int):
    P, _ = _sn(n)
    W, _ = _exact_weights(n)
    _, cls, counts = np.unique(P @ W, axis=0, return_inverse=True, return_counts=True)
    return P, cls.ravel(), counts


def dcg_distinct_values(n: int) -> int:
    """How many distinct values the one-argument DCG takes on S_n, counted exactly.

    Permutations are grouped by the integer vectors of :func:`dcg_collisions` (equal vectors:
    equal DCG, proved). Groups with different vectors are counted as different values, which
    the float comparison in :func:`dcg_collisions` confirms up to n = 9 (no float near-miss
    there).

    Parameters
    ----------
    n : int
        The size of the permutations.

    Returns
    -------
    int

    Examples
    --------
    >>> dcg_distinct_values(6), dcg_distinct_values(7)
    (720, 4896)
    """
    n = _check_n(n, 1)
    if n > 10:
        raise ValueError(f"dcg_distinct_values enumerates S_n and is limited to n <= 10, got n={n}")
    return int(len(_exact_classes(n)[2]))


def dcg_collisions(n: int, *, certificates: bool = True):
    """All pairs of distinct permutations of S_n with equal one-argument DCG, exhaustively.

    Exact part: with :math:`\\log_2(i+1) = g_i L_i` as in :func:`dcg_exact`, the DCG of
    :math:`\\pi` is :math:`\\sum_L Z_L(\\pi) / (c_L L)` with integers
    :math:`Z_L(\\pi) = \\sum_{i: L_i = L} \\pi(i)\\, c_L / g_i` (:math:`c_L` the lcm of the
    :math:`g_i` of the group). Permutations with the same integer vector ``Z`` have exactly the
    same DCG (a proof, no floating point involved); they are found by sorting the ``n!`` integer
    vectors. Float part, for the converse: the ``n!`` float DCG values are sorted and every
    pair of neighbours within the tolerance whose ``Z`` differ is decided at 60 digits
    (:func:`dcg_exact_compare`) and reported as a near-miss; pairs farther apart than the
    tolerance differ by far more than the float error. Feasible up to n = 10 (n = 9: 362,880
    permutations in a few seconds).

    Parameters
    ----------
    n : int
        1 <= n <= 10.
    certificates : bool
        Spell out each equality (``certificate`` column); False leaves it empty (faster).

    Returns
    -------
    pandas.DataFrame
        One row per pair with columns ``n, first, second, dcg_first, dcg_second, float_diff,
        verdict, certificate``; ``verdict`` is ``"equal"`` (proved), ``"different"`` (a float
        near-miss) or ``"undecided"``.

    Examples
    --------
    >>> t = dcg_collisions(7)
    >>> int((t.verdict == "equal").sum()), int((dcg_collisions(6).verdict == "equal").sum())
    (144, 0)
    """
    import pandas as pd

    n = _check_n(n, 1)
    if n > 10:
        raise ValueError(f"dcg_collisions enumerates S_n and is limited to n <= 10, got n={n}")
    P, cls, counts = _exact_classes(n)
    vals = dcg_single(P)
    rows = []
    shared = np.flatnonzero(counts[cls] > 1)
    order = shared[np.argsort(cls[shared], kind="stable")]
    bounds = np.flatnonzero(np.diff(cls[order])) + 1
    pairs = [ab for members in (np.split(order, bounds) if len(order) else [])
             for ab in itertools.combinations(members.tolist(), 2)]
    if pairs:
        ia, ib = np.array(pairs).T
        if not _close(vals[ia], vals[ib]).all():  # pragma: no cover - would be a float bug
            raise AssertionError("exactly equal DCG forms but float values differ")
    for a, b in pairs:
        rows.append((a, b, "equal", _equal_certificate(P[a], P[b]) if certificates else ""))
    fo = np.argsort(vals, kind="stable")
    near = np.flatnonzero(_close(vals[fo[:-1]], vals[fo[1:]]) & (cls[fo[:-1]] != cls[fo[1:]]))
    for p in near:
        a, b = sorted((int(fo[p]), int(fo[p + 1])))
        verdict, why = dcg_exact_compare(P[a], P[b])
        rows.append((a, b, verdict, why))
    cols = ["n", "first", "second", "dcg_first", "dcg_second", "float_diff", "verdict", "certificate"]
    out = pd.DataFrame(
        [(n, P[a].tolist(), P[b].tolist(), float(vals[a]), float(vals[b]), float(vals[a] - vals[b]), v, c)
         for a, b, v, c in rows],
        columns=cols,
    )
    return out
