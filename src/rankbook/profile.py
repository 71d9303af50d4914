"""Profile your own metric: its full Table 2 row of paper A, and how it agrees with the 33.

A metric is a function ``f(sigma, nu)`` or ``f(sigma, nu, k=...)`` of two rankings given as
permutations of 1..n (one-line arrays, ``r[i-1]`` the item at position i), returning one number
per pair. It may be vectorised over a batch (arrays of shape ``(B, n)`` giving shape ``(B,)``);
a function that only takes one pair is wrapped automatically (:func:`load_metric` tries a batch
and compares it with pair-by-pair calls).

:func:`profile` computes, each with the method it used (exhaustive on a small symmetric group
where that is feasible, otherwise seeded random), the properties of Table 2 of
:cite:`paperA`: identity of indiscernibles, symmetry, Type I robustness (I(a), one swap, and
I(b), one slide) at several n, left and right Type II invariance, width-swap dependency,
sensitivity under both readings of Definition 9, stability, the triangle inequality and being a
distance. :func:`agreement_with_metrics` gives its agreement ratio with each of the 33 metrics.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from . import metrics as _metrics
from . import permutations as _perm

__all__ = ["Profiled", "load_metric", "check_metric_spec", "profile", "type_i_profile",
           "agreement_with_metrics", "PROPERTIES"]

#: The properties :func:`profile` reports, in Table 2's order.
PROPERTIES = ("identity_of_indiscernibles", "symmetry", "type_ii_right", "type_ii_left",
              "width_swap_dependency", "sensitivity_exists", "sensitivity_forall", "stability",
              "triangle_inequality", "is_distance")


@dataclass(frozen=True)
class Profiled:
    """A metric ready to profile: a batch function ``f(sigma, nu, k)``, its name and whether it
    takes a cut-off ``k``."""

    name: str
    func: Callable
    takes_k: bool

    def __call__(self, sigma, nu, k=None):
        return self.func(sigma, nu, k)


def _import_function(spec: str):
    if ":" not in spec:
        raise ValueError(f"metric {spec!r}: give a registered name ({', '.join(_metrics.NAMES)}), "
                         "module:function or path/to/file.py:function")
    where, func = spec.rsplit(":", 1)
    if where.endswith(".py"):
        path = Path(where).expanduser()
        if not path.is_file():
            raise ValueError(f"metric {spec!r}: no such file {where} (a relative path is read "
                             f"from the current folder {Path.cwd()})")
        mod_spec = importlib.util.spec_from_file_location(f"rankbook_user_{path.stem}", path)
        module = importlib.util.module_from_spec(mod_spec)
        try:
            mod_spec.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001 - report what broke while loading the file
            raise ValueError(f"metric {spec!r}: loading {path} raised "
                             f"{type(exc).__name__}: {exc}") from None
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise ValueError(f"metric {spec!r}: cannot import {where} ({exc})") from None
    f = getattr(module, func, None)
    if not callable(f):
        raise ValueError(f"metric {spec!r}: {where} has no function {func!r}")
    return f


def _batch(f, takes_k: bool, name: str) -> Callable:
    """A batch evaluator, wrapping ``f`` row by row when it is not vectorised."""
    rng = np.random.default_rng(0)
    s = _perm.random(5, 4, rng)
    v = _perm.random(5, 4, rng)
    kw = {"k": 2} if takes_k else {}
    singles = []
    for a, b in zip(s, v):
        try:
            singles.append(float(np.asarray(f(a, b, **kw), dtype=float)))
        except Exception as exc:  # noqa: BLE001
            raise ValueError(f"metric {name!r} raised {type(exc).__name__}: {exc} for "
                             f"sigma={a.tolist()}, nu={b.tolist()}") from None
    vectorised = False
    try:
        out = np.asarray(f(s, v, **kw), dtype=float)
        vectorised = out.shape == (len(s),) and np.allclose(out, singles, equal_nan=True)
    except Exception:  # noqa: BLE001 - not vectorised: wrap it
        vectorised = False

    def call(sigma, nu, k=None):
        sigma = np.atleast_2d(np.asarray(sigma))
        nu = np.atleast_2d(np.asarray(nu))
        sigma, nu = np.broadcast_arrays(sigma, nu)
        kwargs = {"k": k} if takes_k and k is not None else ({"k": 2} if takes_k else {})
        if takes_k and k is None:
            kwargs = {"k": max(1, sigma.shape[-1] // 4)}
        try:
            if vectorised:
                out = np.asarray(f(sigma, nu, **kwargs), dtype=float)
            else:
                out = np.array([float(np.asarray(f(a, b, **kwargs), dtype=float))
                                for a, b in zip(sigma, nu)])
        except Exception as exc:  # noqa: BLE001
            raise ValueError(f"metric {name!r} raised {type(exc).__name__}: {exc} on a batch "
                             f"starting sigma={sigma[0].tolist()}, nu={nu[0].tolist()}") from None
        if out.shape != (len(sigma),):
            raise ValueError(f"metric {name!r} returned shape {out.shape} for {len(sigma)} pairs; "
                             "it must return one number per pair")
        bad = ~np.isfinite(out)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"metric {name!r} returned {out[i]} for sigma={sigma[i].tolist()}, "
                             f"nu={nu[i].tolist()}; a metric must return finite numbers")
        return out

    return call


def load_metric(spec) -> Profiled:
    """A registered metric name, ``module:function`` or ``path/to/file.py:function``, or a
    callable, as a :class:`Profiled` batch function.

    Raises ``ValueError`` naming the metric when it cannot be found or loaded, raises on a
    small test batch, or returns values of the wrong shape.

    Parameters
    ----------
    spec : str or callable
        A name of :data:`rankbook.metrics.NAMES`, ``module:function``,
        ``path/to/file.py:function``, or a function ``f(sigma, nu)`` (of one pair or a batch,
        with a ``k`` parameter if it takes a cut-off).

    Returns
    -------
    Profiled
        A batch function ``f(sigma, nu, k=None)`` with its ``name`` and ``takes_k``.

    Examples
    --------
    >>> m = load_metric("kendall_tau")
    >>> m.name, m.takes_k, float(m([1, 2, 3], [1, 2, 3])[0])
    ('kendall_tau', False, 1.0)
    >>> load_metric(lambda s, v: float(abs(s - v).sum()))([1, 2, 3], [3, 2, 1]).tolist()
    [4.0]
    """
    if isinstance(spec, str) and spec in _metrics.REGISTRY:
        info = _metrics.REGISTRY[spec]

        def registered(sigma, nu, k=None, _name=spec):
            return np.atleast_1d(np.asarray(_metrics.evaluate(_name, sigma, nu, k=k), dtype=float))

        return Profiled(spec, registered, bool(info.needs_k))
    if isinstance(spec, str):
        f = _import_function(spec)
        name = spec
    elif callable(spec):
        f = spec
        name = getattr(spec, "__name__", type(spec).__name__)
    else:
        raise TypeError(f"metric must be a name, module:function, path.py:function or a callable, "
                        f"got {type(spec).__name__}")
    try:
        params = inspect.signature(f).parameters
    except (TypeError, ValueError):
        params = {}
    takes_k = "k" in params
    return Profiled(name, _batch(f, takes_k, name), takes_k)


def check_metric_spec(value: str) -> str:
    """Check a ``metric`` parameter before a run (the command line calls it): load the metric,
    and return the value with a relative file made absolute, so that the notebook, which runs
    in another folder, finds the same file.


    Parameters
    ----------
    value : str
        The ``metric`` parameter, as :func:`load_metric` takes it.

    Returns
    -------
    str
        ``value``, with a relative file path made absolute.

    Examples
    --------
    >>> check_metric_spec("kendall_tau")
    'kendall_tau'
    >>> check_metric_spec("no_such_metric")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...
    """
    if ":" in value:
        where, func = value.rsplit(":", 1)
        if where.endswith(".py") and Path(where).expanduser().exists():
            value = f"{Path(where).expanduser().resolve()}:{func}"
    load_metric(value)
    return value


def _evidence(res) -> str:
    ev = getattr(res, "evidence", None)
    return "" if ev is None else str(ev)


def profile(metric, *, k: int | None = None, n_exhaustive: int = 5, n_swap: int = 8,
            stability_n: int = 200, stability_pairs: int = 200, stability_ks=(1, 2, 5, 10, 20),
            seed: int = 0) -> pd.DataFrame:
    """The yes/no rows of Table 2 for one metric, each with its method and evidence.

    ``k`` is the cut-off of a metric that takes one (default ``max(1, n // 4)`` at each n).
    Checks run exhaustively on :math:`S_{n}` with ``n = n_exhaustive`` (all pairs, all triples for
    the triangle inequality at ``n_exhaustive - 1``), the swap properties against the identity
    on :math:`S_{n\\_swap}`, stability on ``stability_pairs`` random pairs of
    :math:`S_{stability\\_n}` at the cut-offs ``stability_ks`` (a metric without k is stable).

    Returns a DataFrame with columns ``property, holds, method, evidence``.

    Parameters
    ----------
    metric : str or callable
        As :func:`load_metric` takes it.
    k : int, optional
        The cut-off of a metric that takes one.
    n_exhaustive : int
        Size of the symmetric group checked exhaustively.
    n_swap : int
        Size for the swap properties.
    stability_n : int
        Length of the rankings of the stability check.
    stability_pairs : int
        Random pairs of the stability check.
    stability_ks : sequence of int
        Cut-offs of the stability check.
    seed : int
        Seed of the random pairs.

    Returns
    -------
    pandas.DataFrame
        Columns ``property, holds, method, evidence``, one row per yes/no row of Table 2.
    """
    from . import properties as pr

    m = load_metric(metric)
    f = m if m.takes_k else (lambda s, v: m(s, v))
    kk = (k or None) if m.takes_k else None

    def kw(n):
        return {"k": kk if kk is not None else max(1, n // 4)} if m.takes_k else {}

    rows = []

    def add(prop, holds, method, evidence=""):
        rows.append({"property": prop, "holds": bool(holds), "method": method,
                     "evidence": evidence})

    n = n_exhaustive
    r = pr.identity_of_indiscernibles(f, n, **kw(n))
    add("identity_of_indiscernibles", r.holds, r.method_detail, _evidence(r))
    r = pr.symmetry(f, n, **kw(n))
    add("symmetry", r.holds, r.method_detail, _evidence(r))
    r = pr.type_ii_robustness(f, n, **kw(n))
    add("type_ii_right", r.holds, r.method_detail, _evidence(r))
    add("type_ii_left", r.left_invariant, r.method_detail,
        "" if r.left_evidence is None else str(r.left_evidence))
    r = pr.width_swap_dependency(f, n_swap, **kw(n_swap))
    add("width_swap_dependency", r.holds, r.method_detail, _evidence(r))
    r = pr.sensitivity(f, n_swap, **kw(n_swap))
    add("sensitivity_exists", r.exists, r.method_detail + ", some pair of swaps", _evidence(r))
    add("sensitivity_forall", r.forall, r.method_detail + ", every pair of swaps", _evidence(r))
    if m.takes_k:
        ks = [x for x in stability_ks if x < stability_n - 1]
        r = pr.stability(f, stability_n, k=ks, n_pairs=stability_pairs, seed=seed)
        add("stability", r.holds, r.method_detail + f", k in {list(ks)}", _evidence(r))
    else:
        add("stability", True, "the metric takes no cut-off k, so m@k = m@k+1", "")
    r = pr.triangle_inequality(f, n - 1, **kw(n - 1))
    add("triangle_inequality", r.holds, r.method_detail, _evidence(r))
    r = pr.is_distance(f, n - 1, **kw(n - 1))
    add("is_distance", r.holds, r.method_detail + (f", {r.note}" if getattr(r, "note", "") else ""),
        _evidence(r))
    return pd.DataFrame(rows, columns=["property", "holds", "method", "evidence"])


def type_i_profile(metric, ns: Sequence[int] = (10, 50, 100), *, k: int | None = None,
                   n_pairs: int = 1000, n_runs: int = 5, seed: int = 0) -> pd.DataFrame:
    """Type I robustness of one metric (Table 2's numeric rows): the mean absolute change under one
    swap (I(a)) and one slide (I(b)) over ``n_pairs`` random pairs, ``n_runs`` seeded runs.

    Columns ``change, n, k, reproduced, sd`` (``sd`` the spread of one run).

    Parameters
    ----------
    metric : str or callable
        As :func:`load_metric` takes it.
    ns : sequence of int
        Lengths of the rankings.
    k : int, optional
        The cut-off of a metric that takes one (``max(1, n // 4)`` at each n by default).
    n_pairs : int
        Random pairs per run.
    n_runs : int
        Seeded runs.
    seed : int
        Seed of the runs.

    Returns
    -------
    pandas.DataFrame
        Columns ``change, n, k, reproduced, sd``.

    Examples
    --------
    >>> from rankbook import metrics
    >>> table = type_i_profile(metrics.kendall_tau, ns=(10,), n_pairs=100, n_runs=2)
    >>> table[["change", "n"]].values.tolist()
    [['swap', 10], ['slide', 10]]
    """
    from . import robustness

    m = load_metric(metric)

    def evaluate(names, s, v, k=None):
        flat_s = s.reshape(-1, s.shape[-1])
        flat_v = np.broadcast_to(v, s.shape).reshape(-1, s.shape[-1])
        return {names[0]: m(flat_s, flat_v, k).reshape(s.shape[:-1])}

    frames = []
    for n in ns:
        kk = (k or max(1, n // 4)) if m.takes_k else None
        runs = robustness.type_i_runs([m.name], n, kk, n_pairs=n_pairs, n_runs=n_runs,
                                      seed=seed, evaluate=evaluate)
        frames.append(robustness.summarize_runs(runs))
    out = pd.concat(frames, ignore_index=True)
    return out[["change", "n", "k", "reproduced", "sd"]]


def agreement_with_metrics(metric, *, n: int = 100, n_pairs: int = 2000, k: int = 30,
                           seed: int = 0, reverse: str = "auto", ties: str = "def1") -> pd.DataFrame:
    """The agreement ratio (Def. 2 of :cite:`paperA`) of ``metric`` with each of the 33 metrics
    on one random sample of ``n_pairs`` rankings of length ``n`` against the identity.

    Returns columns ``metric, label, ratio, reversed``, sorted by ratio (highest first).

    Parameters
    ----------
    metric : str or callable
        As :func:`load_metric` takes it.
    n : int
        Length of the rankings.
    n_pairs : int
        Size of the sample.
    k : int
        The cut-off of the metrics that take one.
    seed : int
        Seed of the sample.
    reverse, ties : str
        As in :func:`rankbook.agreement.agreement_ratio`.

    Returns
    -------
    pandas.DataFrame
        Columns ``metric, label, ratio, reversed``, highest ratio first.

    Examples
    --------
    >>> from rankbook import metrics
    >>> table = agreement_with_metrics(metrics.kendall_tau, n=10, n_pairs=50, k=3)
    >>> len(table), table.columns.tolist()
    (33, ['metric', 'label', 'ratio', 'reversed'])
    >>> float(table.set_index("metric").loc["kendall_tau", "ratio"])
    1.0
    """
    from . import agreement

    m = load_metric(metric)
    refs, rankings = agreement.sample(n, n_pairs, seed=seed, protocol="reference")
    mine = m(refs, rankings, k if m.takes_k else None)
    values = _metrics.evaluate_many(list(_metrics.NAMES), refs, rankings, k=k)
    rows = []
    for name in _metrics.NAMES:
        raw = agreement.agreement_ratio_from_values(mine, values[name], ties=ties, reverse="none")
        ratio = agreement.agreement_ratio_from_values(mine, values[name], ties=ties, reverse=reverse)
        rows.append({"metric": name, "label": _metrics.REGISTRY[name].label, "ratio": ratio,
                     "reversed": bool(reverse == "auto" and raw < 0.5)})
    return pd.DataFrame(rows).sort_values(["ratio", "metric"], ascending=[False, True],
                                          ignore_index=True)
