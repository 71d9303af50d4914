"""Linear equivalence of metrics (Def. 3 of paper A) and what it preserves (Proposition 7.1).

Two metrics are *linearly equivalent* when one is an affine function of the other on every pair
of rankings, :math:`\\tilde m(\\sigma, \\nu) = a\\, m(\\sigma, \\nu) + b` with :math:`a \\ne 0`.
Proposition 7.1 of :cite:`paperA` states that then

1. if :math:`m` has the maximal agreement property (Def. 15), so has :math:`|\\tilde m|`; if
   :math:`m` is symmetric (Def. 5), so is :math:`\\tilde m`; if :math:`m` has the identity of
   indiscernibles, so has :math:`\\tilde m`;
2. :math:`\\tilde m` and :math:`m` are consistent (Def. 1).

:func:`proposition_7_1_cases` decides every statement exhaustively on S_n for given metrics and
linear maps (:class:`LinearMap`), with the property checks of :mod:`rankbook.properties` and the
consistency test of :mod:`rankbook.agreement` applied to the tabulated image
(:func:`rankbook.properties.tabulate`), so each metric is evaluated once per n and k.

How the statements are read
---------------------------
The paper's own words admit more than one reading for three of the four statements, and the
checks report each (:data:`READINGS`):

- *maximal agreement*: the proposition says :math:`|\\tilde m|`; its proof shows the property
  for :math:`\\tilde m` when :math:`a > 0` and for :math:`-\\tilde m` when :math:`a < 0`
  (``"as proved"``: :math:`\\operatorname{sign}(a)\\,\\tilde m`).
- *identity of indiscernibles*: the paper uses three notions under this name. Definition 4
  (each row :math:`m(\\sigma, \\cdot)` injective), the proof of Proposition 7.1
  (:math:`m(\\sigma, \\nu) = m_{\\max}` only for :math:`\\sigma = \\nu`, a maximum reached only on
  the diagonal) and Definition 11 (:math:`m(\\sigma, \\nu) = 0` only for :math:`\\sigma = \\nu`).
- *consistency*: eq. 1 as printed lets :math:`\\mu = \\sigma`, which makes its first line void;
  the reading ``"distinct"`` asks for three different rankings
  (:func:`rankbook.agreement.inconsistency_witness`); ``"up to sign"`` compares :math:`m` with
  :math:`\\operatorname{sign}(a)\\,\\tilde m`, the reversal that Figure 1 applies before it counts
  agreements.

A statement with a premise ("if m is symmetric ...") is a case only where the premise holds;
consistency has no premise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Optional, Sequence

import numpy as np
import pandas as pd

from . import agreement as _agreement
from . import metrics as _metrics
from . import properties as _properties

__all__ = [
    "LinearMap",
    "DEFAULT_MAPS",
    "STATEMENTS",
    "READINGS",
    "PRIMARY",
    "linear_image",
    "proposition_7_1_cases",
    "proposition_7_1_summary",
]

#: The four statements of Proposition 7.1, in the paper's order, with how the book names them.
STATEMENTS = {
    "maximal_agreement": "(1) if m has maximal agreement, so has the absolute value of m̃",
    "symmetry": "(1) if m is symmetric, so is m̃",
    "identity": "(1) if m has the identity of indiscernibles, so has m̃",
    "consistency": "(2) m̃ and m are consistent (Definition 1)",
}

#: The readings of each statement (key -> description); the first of each is the book's.
READINGS = {
    "maximal_agreement": {
        "as stated": "the absolute value |m̃| has maximal agreement",
        "as proved": "m̃ for a > 0 and −m̃ for a < 0 has maximal agreement (what the proof shows)",
    },
    "symmetry": {"as stated": "m̃ is symmetric"},
    "identity": {
        "Definition 4": "each row m̃(σ, ·) is injective (Definition 4)",
        "unique maximum": "the maximum of m̃ is reached only on the diagonal (the proof's notion)",
        "Definition 11": "m̃ is zero only on the diagonal (Definition 11)",
    },
    "consistency": {
        "as printed": "no triple satisfies eq. 1, μ = σ allowed (Definition 1 as printed)",
        "distinct": "no triple of three different rankings satisfies eq. 1",
        "up to sign": "m and sign(a)·m̃ are consistent (the reversal of Figure 1)",
    },
}

#: The book's reading of each statement (the first of :data:`READINGS`).
PRIMARY = {s: next(iter(r)) for s, r in READINGS.items()}

_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_TERM = re.compile(rf"^([+-]?)({_NUMBER})?(\*?)(m0|m)?$")


@dataclass(frozen=True)
class LinearMap:
    """The affine map :math:`x \\mapsto a x + b + c\\, m(\\mathrm{id}, \\mathrm{id})` of Def. 3.

    ``slope`` is :math:`a` (non-zero: Def. 3 asks for a non-constant function), ``offset``
    :math:`b`, and ``diagonal`` :math:`c` a multiple of the metric's value on the diagonal, so
    that eq. 7 of the paper, :math:`m_{\\max} - m`, is one map for every metric
    (``LinearMap.parse("m0 - m")``).

    Examples
    --------
    >>> f = LinearMap.parse("-m + 0.5")
    >>> f.slope, f.offset, f.increasing, str(f)
    (-1.0, 0.5, False, '−m + 0.5')
    >>> LinearMap.parse("m0 - m").bind(1.0)
    (-1.0, 1.0)
    """

    slope: float
    offset: float = 0.0
    diagonal: float = 0.0

    def __post_init__(self):
        for name in ("slope", "offset", "diagonal"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                    or not np.isfinite(v):
                raise ValueError(f"LinearMap {name} must be a finite number, got {v!r}")
            object.__setattr__(self, name, float(v))
        if self.slope == 0:
            raise ValueError("LinearMap slope must be non-zero: Definition 3 asks for a "
                             "non-constant linear function")

    @classmethod
    def parse(cls, text: str) -> "LinearMap":
        """A map written as a sum of terms in ``m`` (the metric), ``m0`` (its value
        :math:`m(\\mathrm{id}, \\mathrm{id})`) and numbers, e.g. ``"2m + 1"``, ``"-0.5*m"``,
        ``"m0 - m"``; ValueError naming the problem otherwise."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"a linear map must be a non-empty string like '2m + 1', got {text!r}")
        s = text.replace("−", "-").replace(" ", "")
        coef = {"m": 0.0, "m0": 0.0, "": 0.0}
        seen = False
        for term in re.split(r"(?=[+-])", s):
            if not term:
                continue
            hit = _TERM.match(term)
            if not hit or not (hit.group(2) or hit.group(4)) or (hit.group(3) and not
                                                                  (hit.group(2) and hit.group(4))):
                raise ValueError(
                    f"cannot read the linear map {text!r} at {term!r}: write a sum of terms "
                    "like '2m', '-0.5*m', 'm0' (the metric's value on the diagonal) and numbers")
            sign = -1.0 if hit.group(1) == "-" else 1.0
            number = float(hit.group(2)) if hit.group(2) else 1.0
            coef[hit.group(4) or ""] += sign * number
            seen = True
        if not seen:
            raise ValueError(f"cannot read the linear map {text!r}")
        if coef["m"] == 0:
            raise ValueError(f"the map {text!r} does not depend on m: Definition 3 asks for a "
                             "non-constant linear function")
        return cls(coef["m"], coef[""], coef["m0"])

    @property
    def increasing(self) -> bool:
        """True for a positive slope."""
        return self.slope > 0

    def bind(self, diagonal_value: float) -> tuple[float, float]:
        """The slope and the intercept :math:`b + c\\, m(\\mathrm{id}, \\mathrm{id})` for a
        metric whose value on the diagonal is ``diagonal_value``."""
        return self.slope, self.offset + (self.diagonal * float(diagonal_value)
                                          if self.diagonal else 0.0)

    def label(self, metric: str = "m") -> str:
        """The map applied to a named metric, e.g. ``"2·kendall_tau + 1"`` for ``"2m + 1"``."""
        text = str(self).replace("m(id, id)", "\0")
        text = re.sub(r"(\d)(m|\0)", r"\1·\2", text).replace("m", metric)
        return text.replace("\0", f"{metric}(id, id)")

    def tex(self, symbol: str = "m") -> str:
        r"""The map as LaTeX maths for a metric written ``symbol``, e.g. ``-\tau + 0.5``.

        Examples
        --------
        >>> print(LinearMap.parse("m0 - m").tex(r"\tau"))
        \tau(\mathrm{id}, \mathrm{id}) - \tau
        """
        text = str(self).replace("m(id, id)", "\0").replace("−", "-")
        text = re.sub(r"(\d)(m|\0)", r"\1\\,\2", text).replace("m", "\1")
        return text.replace("\1", symbol).replace("\0", symbol + r"(\mathrm{id}, \mathrm{id})")

    def __str__(self) -> str:
        def term(coef, sym, first):
            size = f"{abs(coef):g}" if (abs(coef) != 1 or not sym) else ""
            sign = ("−" if coef < 0 else "") if first else ("− " if coef < 0 else "+ ")
            return f"{sign}{size}{sym}"

        terms = [(self.slope, "m")]
        if self.diagonal:
            terms.append((self.diagonal, "m(id, id)"))
        if self.offset:
            terms.append((self.offset, ""))
        if self.slope < 0 and self.diagonal > 0:  # eq. 7 reads m(id, id) − m
            terms.insert(0, terms.pop(1))
        return " ".join(term(c, sym, i == 0) for i, (c, sym) in enumerate(terms))


#: The maps checked by default: four increasing and four decreasing, with and without offsets,
#: and eq. 7 of the paper (:math:`m_{\max} - m`) with its increasing counterpart.
DEFAULT_MAPS = ("2m + 1", "0.5m", "m - 0.5", "m - m0", "-m", "-m + 0.5", "-2m + 1", "m0 - m")


def _as_map(f) -> LinearMap:
    return f if isinstance(f, LinearMap) else LinearMap.parse(f)


def _k_for(metric: str, k):
    return k if _metrics.REGISTRY[metric].needs_k else None


def _snap(values: np.ndarray) -> np.ndarray:
    """Values equal up to float rounding made exactly equal (the first of each run of sorted
    values closer than ``ATOL + RTOL * |x|`` stands for the run; nan stays nan).

    Sums of the same terms in another order (MRR, DCG) differ in the last bits; the statements
    checked here are about exact ties and orders, so such values must compare equal, as they
    do in :mod:`rankbook.properties`.
    """
    flat = np.asarray(values, dtype=float).ravel()
    ok = np.flatnonzero(~np.isnan(flat))
    order = ok[np.argsort(flat[ok], kind="stable")]
    x = flat[order]
    if x.size == 0:
        return flat.reshape(np.shape(values))
    gap = np.diff(x) > _properties.ATOL + _properties.RTOL * np.abs(x[1:])
    start = np.concatenate([[0], np.flatnonzero(gap) + 1])
    rep = np.repeat(x[start], np.diff(np.concatenate([start, [x.size]])))
    out = flat.copy()
    out[order] = rep
    return out.reshape(np.shape(values))


@lru_cache(maxsize=8)
def _snapped(metric: str, n: int, k) -> np.ndarray:
    values = _snap(_properties.tabulate(metric, n, k=k).values)
    values.setflags(write=False)
    return values


def linear_image(metric: str, fmap, n: int, *, k: Optional[int] = None, absolute: bool = False,
                 sign: bool = False) -> _properties.TabulatedMetric:
    """The metric :math:`\\tilde m = a\\, m + b` on S_n, tabulated once (n <= 6).

    ``fmap`` is a :class:`LinearMap` or its text (``"2m + 1"``); ``absolute=True`` gives
    :math:`|\\tilde m|` and ``sign=True`` gives :math:`\\operatorname{sign}(a)\\,\\tilde m`. The
    result is a callable ``f(sigma, nu)`` that every check of :mod:`rankbook.properties` and
    :mod:`rankbook.agreement` accepts. Values of :math:`m` that differ only by float rounding
    are made equal first (sums of the same terms in another order, as in MRR), so that ties
    are exact.

    Parameters
    ----------
    metric : str
        A metric of :data:`rankbook.metrics.NAMES`.
    fmap : LinearMap or str
        The map :math:`m \\mapsto a m + b` (``"2m + 1"``, ``"-m + 0.5"``, ``"m - m0"``).
    n : int
        The size of the rankings, at most 6 (S_n is tabulated).
    k : int, optional
        The cut-off of a metric that needs one.
    absolute : bool
        Tabulate :math:`|\\tilde m|` instead.
    sign : bool
        Tabulate :math:`\\operatorname{sign}(a)\\,\\tilde m` instead.

    Returns
    -------
    rankbook.properties.TabulatedMetric
        A callable ``f(sigma, nu)`` over S_n with a ``name`` (the map applied to the metric).

    Examples
    --------
    >>> t = linear_image("kendall_tau", "-m + 0.5", 4, absolute=True)
    >>> t.name, float(t([1, 2, 3, 4], [1, 2, 3, 4])), float(t([1, 2, 3, 4], [4, 3, 2, 1]))
    ('|−kendall_tau + 0.5|', 0.5, 1.5)
    """
    f = _as_map(fmap)
    if metric not in _metrics.REGISTRY:
        raise _metrics._unknown(metric)
    if absolute and sign:
        raise ValueError("choose absolute=True or sign=True, not both")
    n = _properties._check_n(n)
    if n > _properties.MATRIX_MAX_N:
        raise ValueError(f"linear_image tabulates S_n for n <= {_properties.MATRIX_MAX_N}, got {n}")
    kk = _k_for(metric, k)
    if kk is None and _metrics.REGISTRY[metric].needs_k:
        kk = _properties.default_k(n)
    base = _snapped(metric, n, kk)
    a, b = f.bind(base[0, 0])
    label = f.label(metric)
    values = a * base + b
    if absolute:
        values, label = np.abs(values), f"|{label}|"
    elif sign and a < 0:
        values, label = -values, f"−({label})"
    values.setflags(write=False)
    return _properties.TabulatedMetric(label, n, values)


def _rankings(triple) -> str:
    return ", ".join(f"{name} = {list(map(int, r))}" for name, r in zip(("σ", "μ", "ν"), triple))


def _consistency(metric, image, reading):
    """(holds, evidence) of Def. 1 for two metrics tabulated on S_n, in both orders.

    Row 0 of a table is the reference ``id`` (lexicographic order), so it holds the values
    :math:`m(\\mathrm{id}, \\pi)` of every ranking.
    """
    P = _properties._sn(metric.n)[0]
    for m1, m2 in ((metric, image), (image, metric)):
        x, y = m1.values[0], m2.values[0]
        hit = _agreement.witness_from_values(x, y, reading)
        if hit is not None:
            v1, v2 = ", ".join(f"{x[i]:.4g}" for i in hit), ", ".join(f"{y[i]:.4g}" for i in hit)
            return False, f"{_rankings(P[list(hit)])}: {m1.name} = ({v1}), {m2.name} = ({v2})"
    return True, ""


def _evidence(result) -> str:
    return "" if result.evidence is None else str(result.evidence)


def proposition_7_1_cases(names: Optional[Iterable[str]] = None, ns: Sequence[int] = (4, 5),
                          maps: Sequence = DEFAULT_MAPS, ks: Sequence[int] = (1, 2, 3)
                          ) -> pd.DataFrame:
    """Every case of Proposition 7.1, decided exhaustively on S_n.

    For each metric of ``names`` (all 33 by default), each ``n`` of ``ns`` (at most 6), each
    ``k`` of ``ks`` below ``n`` for metrics that need one, each linear map of ``maps`` and each
    reading of :data:`READINGS`: whether the premise holds for :math:`m` and, where it does,
    whether the conclusion holds for :math:`\\tilde m`, with a counterexample when it does not.

    Parameters
    ----------
    names : iterable of str, optional
        Metrics of :data:`rankbook.metrics.NAMES`; all 33 by default.
    ns : sequence of int
        Sizes of the symmetric groups, each at most 6.
    maps : sequence of str or LinearMap
        The linear maps :math:`\\tilde m = a m + b` tried.
    ks : sequence of int
        Cut-offs of the metrics that need one (those below n).

    Returns
    -------
    pandas.DataFrame
        ``metric, n, k, map, slope, intercept, increasing, statement, reading, premise, holds,
        evidence``; ``holds`` is None where the premise fails (no case).

    Examples
    --------
    >>> cases = proposition_7_1_cases(["kendall_tau"], ns=(4,), maps=("2m + 1", "-m + 0.5"))
    >>> book = cases[cases["reading"] == cases["statement"].map(PRIMARY)]
    >>> book.pivot(index="statement", columns="map", values="holds").loc[list(STATEMENTS)]
    map                2m + 1  −m + 0.5
    statement
    maximal_agreement    True     False
    symmetry             True      True
    identity             None      None
    consistency          True     False
    """
    names = list(_metrics.NAMES if names is None else names)
    for name in names:
        if name not in _metrics.REGISTRY:
            raise _metrics._unknown(name)
    fmaps = [_as_map(f) for f in maps]
    if not fmaps:
        raise ValueError("maps must hold at least one linear map")
    ns = [int(n) for n in ns]
    for n in ns:
        if not 2 <= n <= _properties.MATRIX_MAX_N:
            raise ValueError(f"ns must lie in 2..{_properties.MATRIX_MAX_N} (exhaustive checks on "
                             f"the (n!)^2 table), got {n}")
    rows = []
    for n in ns:
        for name in names:
            needs = _metrics.REGISTRY[name].needs_k
            for k in ([kk for kk in ks if 1 <= kk < n] if needs else [None]):
                rows += _cases_of(name, n, k, fmaps)
    return pd.DataFrame(rows, columns=["metric", "n", "k", "map", "slope", "intercept",
                                       "increasing", "statement", "reading", "premise", "holds",
                                       "evidence"])


def _cases_of(name, n, k, fmaps):
    P = _properties
    ma = P.maximal_agreement(name, n, k=k)
    premise = {
        ("maximal_agreement", "as stated"): ma.holds,
        ("maximal_agreement", "as proved"): ma.holds,
        ("symmetry", "as stated"): P.symmetry(name, n, k=k).holds,
        ("identity", "Definition 4"): P.identity_of_indiscernibles(name, n, k=k).holds,
        ("identity", "unique maximum"): ma.strict is True,
        ("identity", "Definition 11"): P.is_distance(name, n, k=k, transform="none").identity
        is True,
    }
    itself = linear_image(name, "m", n, k=k)
    out = []
    for f in fmaps:
        a, b = f.bind(itself.values[0, 0])
        if not np.isfinite(b):
            continue  # the map uses m(id, id), which this metric leaves undefined (LR+)
        image = linear_image(name, f, n, k=k)
        base = {"metric": name, "n": n, "k": k, "map": str(f), "slope": a, "intercept": b,
                "increasing": f.increasing}

        def add(statement, reading, holds, evidence=""):
            pre = premise.get((statement, reading), True)
            out.append({**base, "statement": statement, "reading": reading, "premise": bool(pre),
                        "holds": (bool(holds) if pre else None), "evidence": evidence if pre else ""})

        if ma.holds:
            r = P.maximal_agreement(linear_image(name, f, n, k=k, absolute=True), n)
            add("maximal_agreement", "as stated", r.holds, _evidence(r))
            r = P.maximal_agreement(linear_image(name, f, n, k=k, sign=True), n)
            add("maximal_agreement", "as proved", r.holds, _evidence(r))
        else:
            add("maximal_agreement", "as stated", None)
            add("maximal_agreement", "as proved", None)
        if premise[("symmetry", "as stated")]:
            r = P.symmetry(image, n)
            add("symmetry", "as stated", r.holds, _evidence(r))
        else:
            add("symmetry", "as stated", None)
        if premise[("identity", "Definition 4")]:
            r = P.identity_of_indiscernibles(image, n)
            add("identity", "Definition 4", r.holds, _evidence(r))
        else:
            add("identity", "Definition 4", None)
        if premise[("identity", "unique maximum")]:
            r = P.maximal_agreement(image, n)
            add("identity", "unique maximum", r.strict is True,
                _evidence(r) or ("" if r.strict else "the maximum is reached off the diagonal"))
        else:
            add("identity", "unique maximum", None)
        if premise[("identity", "Definition 11")]:
            r = P.is_distance(image, n, transform="none")
            add("identity", "Definition 11", r.identity is True,
                "" if r.identity else _evidence(r))
        else:
            add("identity", "Definition 11", None)
        for reading in ("as printed", "distinct"):
            holds, ev = _consistency(itself, image, "literal" if reading == "as printed"
                                     else "distinct")
            add("consistency", reading, holds, ev)
        holds, ev = _consistency(itself, linear_image(name, f, n, k=k, sign=True), "literal")
        add("consistency", "up to sign", holds, ev)
    return out


def proposition_7_1_summary(cases: pd.DataFrame) -> pd.DataFrame:
    """One row per statement and reading: how many cases, how many fail, and a first counterexample.

    Parameters
    ----------
    cases : pandas.DataFrame
        The table of :func:`proposition_7_1_cases`.

    Returns
    -------
    pandas.DataFrame
        ``statement, reading, primary, cases, failures, holds, failing maps, failing metrics,
        example``; ``holds`` is True when no case fails (a statement with no case holds
        vacuously and says so in ``example``).

    Examples
    --------
    >>> cases = proposition_7_1_cases(["kendall_tau"], ns=(4,), maps=("-m + 0.5",))
    >>> s = proposition_7_1_summary(cases)
    >>> s[s["primary"]][["statement", "cases", "failures", "holds"]].to_string(index=False)
    '        statement  cases  failures  holds\\nmaximal_agreement      1         1  False\\n         symmetry      1         0   True\\n         identity      0         0   True\\n      consistency      1         1  False'
    """
    rows = []
    for statement, readings in READINGS.items():
        for reading in readings:
            g = cases[(cases["statement"] == statement) & (cases["reading"] == reading)]
            live = g[g["premise"]]
            bad = live[live["holds"] == False]  # noqa: E712 (object column: None, True, False)
            first = bad.iloc[0] if len(bad) else None
            example = ""
            if first is not None:
                kk = "" if pd.isna(first["k"]) or first["k"] is None else f", k = {int(first['k'])}"
                example = (f"{first['metric']} on S_{first['n']}{kk}, m̃ = {first['map']}: "
                           f"{first['evidence']}")
            elif live.empty:
                example = "no metric satisfies the premise, so no case"
            rows.append({
                "statement": statement, "reading": reading,
                "primary": reading == PRIMARY[statement],
                "cases": int(len(live)), "failures": int(len(bad)), "holds": bool(bad.empty),
                "failing maps": ", ".join(dict.fromkeys(bad["map"])),
                "failing metrics": ", ".join(dict.fromkeys(bad["metric"])),
                "example": example,
            })
    return pd.DataFrame(rows)
