"""The page "RBO implementations compared": every RBO implementation on the same lists.

Code that exists for the book's page ``notebooks/rbo_implementations.ipynb``. It runs rankbook,
the PyPI packages ``rbo`` and ``ranked-overlap``, repro_eval's RBO and ir_measures' RBO (the
function behind its ``Compat`` measure) on Corsi and Urbano's reference vectors
{cite}`corsi2024ties` and on small lists of equal and unequal length, and explains every
disagreement by naming the formula the implementation computes instead and showing that it
gives the implementation's numbers.

The reference vectors hold ties; only rankbook takes ties. The other implementations see each
vector with its tie groups read in the written order, a tie-free pair of the same items,
lengths and persistence. On those, Webber et al.'s extrapolated RBO (eq. 32), as
:func:`rankbook.rbo.rbo_ext` computes it, is the reference: it is the tie-aware code path of
rankbook without ties, which agrees with the authors' 10,000 values in every variant.

The peers are test dependencies of rankbook (installed by ``make venv`` from
``requirements.lock``); a missing one is reported as not installed, never silently skipped.

What the page states is graded as claims of the tools ledger (``data/claims/tools.toml``):
:func:`check_reference` (rankbook against the authors' values), :func:`check_extrapolated` (the
implementations that say they compute the extrapolated RBO), :func:`check_repro_eval`
(repro_eval's RBO and its default persistence) and :func:`check_readme` (ranked-overlap's
printed examples). Tolerances come from the ledger.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from rankbook import rbo as R
from rankbook import repro
from rankbook.ledger import claims
from rankbook.ties import parse_ranking

__all__ = ["IMPLEMENTATIONS", "EXTRAPOLATED", "EXAMPLES", "TIED_EXAMPLES", "SOURCES",
           "Implementation", "implementations", "vectors_source", "load_vectors", "written_order",
           "reference_table", "vector_values", "summary_table", "examples_table",
           "tied_examples_table", "tie_range_table", "readme_check", "findings",
           "check_reference", "check_extrapolated", "check_repro_eval", "check_readme",
           "moved_reference", "moved_ext", "printed_ext",
           "ext_without_short_list", "ext_of_the_shorter_prefixes", "truncated_normalised"]

#: Names of the scores in table cells (plain text that reads as the formula) and, by
#: :func:`_md`, as maths in prose.
_SCORE = {"ext": "RBOₑₓₜ", "min": "RBOₘᵢₙ", "max": "RBOₘₐₓ", "res": "RBOᵣₑₛ"}
_VARIANT = {"w": "RBOʷ", "a": "RBOᵃ", "b": "RBOᵇ"}
_MATH = {"RBOᵃₑₓₜ": r"$\mathrm{RBO}^{a}_{\mathrm{ext}}$", "RBOₑₓₜ": r"$\mathrm{RBO}_{\mathrm{ext}}$",
         "RBOₘᵢₙ": r"$\mathrm{RBO}_{\min}$", "RBOₘₐₓ": r"$\mathrm{RBO}_{\max}$",
         "RBOᵣₑₛ": r"$\mathrm{RBO}_{\mathrm{res}}$", "RBOˡᵒʷ": r"$\mathrm{RBO}^{\mathrm{low}}$",
         "RBOʰⁱᵍʰ": r"$\mathrm{RBO}^{\mathrm{high}}$", "RBOᵃᵛᵍ": r"$\mathrm{RBO}^{\mathrm{avg}}$",
         "RBOʷ": r"$\mathrm{RBO}^{w}$", "RBOᵃ": r"$\mathrm{RBO}^{a}$", "RBOᵇ": r"$\mathrm{RBO}^{b}$"}


def _md(text: str) -> str:
    """A sentence of this module with its formulas as maths (for display as Markdown)."""
    for plain, math_ in _MATH.items():
        text = text.replace(plain, math_)
    return text


# --------------------------------------------------------------------------------------------
# the formulas that explain the peers' numbers


def _lengths(S, T):
    return sorted((len(S), len(T)))


def _overlaps(S, T, depth):
    """X_d, d = 1..depth: items shared by the two top-d lists (a list ends where it ends)."""
    return R.overlaps(S, T, depth).astype(float)


def ext_without_short_list(S, T, p: float) -> float:
    r"""RBO_ext in which the shorter list's unseen ranks match nothing: the sum of eq. 32 stops
    extrapolating at depth ``s`` and the tail takes the agreement :math:`X_l / l` of depth
    ``l``:

    .. math:: \frac{1-p}{p}\sum_{d=1}^{l}\frac{X_d}{d}p^d + \frac{X_l}{l}p^l

    (ranked-overlap 0.1.0's loop). For lists of equal length it is RBO_ext.

    Examples
    --------
    >>> round(ext_without_short_list([1, 2, 3, 4, 5, 6, 7], [1, 3, 2, 4, 5, 7, 6, 8], 0.9), 10)
    0.8853713875
    """
    s, l = _lengths(S, T)
    X = _overlaps(S, T, l)
    d = np.arange(1, l + 1, dtype=float)
    return float((1 - p) / p * np.sum(X / d * p ** d) + X[-1] / l * p ** l)


def ext_of_the_shorter_prefixes(S, T, p: float) -> float:
    """RBO_ext of both lists cut to the shorter length (the ``rbo`` package's
    ``RankingSimilarity.rbo(p=p, ext=True)``, which stops at the shorter list).

    Examples
    --------
    >>> ext_of_the_shorter_prefixes("abc", "abcxyz", 0.9)  # "abc" against "abc"
    1.0
    """
    s, _ = _lengths(S, T)
    return R.rbo_ext(list(S)[:s], list(T)[:s], p)


def truncated_normalised(S, T, p: float, depth: int) -> float:
    r"""Clarke et al.'s normalised, truncated RBO to ``depth``: the mean of the agreements
    :math:`X_d / d`, :math:`d = 1..`\ ``depth``, with weights :math:`p^{d-1}`
    (:func:`rankbook.repro.rbo` with ``form="truncated"``). Past the end of a list nothing more
    is added to it, so two identical lists shorter than ``depth`` score below 1.

    Examples
    --------
    >>> round(truncated_normalised("abc", "abc", 0.9, 3), 4), round(truncated_normalised("abc", "abc", 0.9, 1000), 4)
    (1.0, 0.5225)
    """
    return repro.rbo(list(S), list(T), p, form="truncated", depth=depth)


# --------------------------------------------------------------------------------------------
# the implementations


@dataclass
class Implementation:
    """One implementation: its name, the distribution and version that provides it, how it is
    called on two tie-free lists, what it computes, and the formula that explains its values
    (``None`` when it is Webber's RBO_ext itself)."""

    name: str
    dist: str
    version: str | None
    call: Callable | None
    computes: str
    explained_by: str | None = None
    explain: Callable | None = None
    missing: str | None = None


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _missing(dist: str, module: str) -> str | None:
    import warnings

    try:
        with warnings.catch_warnings():  # repro_eval imports scipy.stats.stats (deprecated)
            warnings.simplefilter("ignore", DeprecationWarning)
            importlib.import_module(module)
    except ImportError as exc:
        return (f"{dist} is not installed ({exc}); it is a test dependency of rankbook: "
                f"`make venv` installs it from requirements.lock, or `pip install {dist}`")
    return None


def _rbo_pkg_ext(S, T, p):
    from rbo import RankingSimilarity

    return float(RankingSimilarity(list(S), list(T)).rbo_ext(p=p))


def _rbo_pkg_rbo_ext(S, T, p):
    from rbo import RankingSimilarity

    return float(RankingSimilarity(list(S), list(T)).rbo(p=p, ext=True))


def _ranked_overlap(S, T, p):
    import ranked_overlap

    return float(ranked_overlap.rbo(list(S), list(T), p=p))


def _repro_eval(S, T, p, depth=None):
    """repro_eval's public RBO on one topic (its runs are dicts in rank order; it compares the
    reproduced run with the original, so the first list is the original)."""
    import repro_eval
    from repro_eval.measure.document_order import RBO

    run = lambda items: {"q": {x: float(len(items) - i) for i, x in enumerate(items)}}  # noqa: E731
    depth = repro_eval.RBO_DEPTH if depth is None else depth
    return float(RBO(run(list(S)), run(list(T)), p=p, depth=depth, pbar=False, per_topic=True)["q"])


def _ir_measures(S, T, p):
    """The RBO function of ir_measures' Compat measure, at the depth Compat uses (the longer
    list)."""
    from ir_measures.providers.compat_provider import rbo

    return float(rbo(list(S), list(T), p, max(len(S), len(T))))


def implementations() -> list[Implementation]:
    """The implementations compared, each with its installed version (``missing`` says what
    to install when one is absent).

    Examples
    --------
    >>> [i.name for i in implementations()][:2]
    ['rankbook rbo_ext', 'rbo: RankingSimilarity.rbo_ext']
    """
    def repro_depth(S, T, p):
        import repro_eval

        return truncated_normalised(S, T, p, repro_eval.RBO_DEPTH)

    specs = [
        ("rankbook rbo_ext", "rankbook", "rankbook.rbo", lambda S, T, p: R.rbo_ext(S, T, p),
         "Webber et al.'s RBOₑₓₜ (eq. 32)", None, None),
        ("rbo: RankingSimilarity.rbo_ext", "rbo", "rbo", _rbo_pkg_ext,
         "Webber et al.'s RBOₑₓₜ (eq. 32)", None, None),
        ("rbo: RankingSimilarity.rbo(ext=True)", "rbo", "rbo", _rbo_pkg_rbo_ext,
         "RBOₑₓₜ of both lists cut to the shorter length", "RBOₑₓₜ of the shorter prefixes",
         ext_of_the_shorter_prefixes),
        ("ranked-overlap: rbo", "ranked-overlap", "ranked_overlap", _ranked_overlap,
         "RBOₑₓₜ without the shorter list's extrapolation",
         "RBOₑₓₜ whose shorter list matches nothing past its end", ext_without_short_list),
        ("repro_eval: RBO (depth 1000)", "repro-eval", "repro_eval.measure.document_order",
         _repro_eval, "Clarke et al.'s normalised RBO truncated at depth 1000",
         "normalised truncated RBO at depth 1000", repro_depth),
        ("ir_measures: Compat's rbo", "ir-measures", "ir_measures.providers.compat_provider",
         _ir_measures, "Clarke et al.'s normalised RBO truncated at the longer length",
         "normalised truncated RBO at the longer length",
         lambda S, T, p: truncated_normalised(S, T, p, max(len(S), len(T)))),
    ]
    out = []
    for name, dist, module, call, computes, expl_name, expl in specs:
        missing = _missing(dist, module)
        out.append(Implementation(name, dist, None if missing else _version(dist),
                                  None if missing else call, computes,
                                  expl_name, expl, missing))
    return out


#: The names of :func:`implementations`, in order.
IMPLEMENTATIONS = ("rankbook rbo_ext", "rbo: RankingSimilarity.rbo_ext",
                   "rbo: RankingSimilarity.rbo(ext=True)", "ranked-overlap: rbo",
                   "repro_eval: RBO (depth 1000)", "ir_measures: Compat's rbo")

#: The implementations whose documentation says they compute the extrapolated RBO, and the role
#: of the erratum that names the formula a departure of each comes from.
EXTRAPOLATED = {"rbo: RankingSimilarity.rbo_ext": "",
                "rbo: RankingSimilarity.rbo(ext=True)": "cut_to_shorter",
                "ranked-overlap: rbo": "shorter_list_stops"}

#: repro_eval's implementation and the role of the erratum naming the formula it computes.
REPRO_EVAL = ("repro_eval: RBO (depth 1000)", "clarke_truncated")


# --------------------------------------------------------------------------------------------
# the reference vectors


def _parse(text: str):
    # the authors write a tie group in parentheses; rankbook in braces
    return parse_ranking(text.replace("(", "{").replace(")", "}"))


def written_order(text: str) -> list:
    """A ranking written in the authors' notation (tie groups in parentheses) as a tie-free
    list, each group's items in the order written.

    Examples
    --------
    >>> written_order("i3 (i8 i1) i2")
    ['i3', 'i8', 'i1', 'i2']
    """
    return text.replace("(", " ").replace(")", " ").split()


#: Where the page reads the reference vectors from: ``"shared"``, the authors' 10,000 in
#: ``../shared`` beside the project (not distributed with rankbook), or ``"committed"``, the
#: first 20 of them in ``data/published/corsi_urbano/``.
SOURCES = ("shared", "committed")


def vectors_source(source: str, committed, shared_file: str):
    """``(path, description)`` of the reference vectors: for ``"shared"``, the authors' file
    ``shared_file`` under the shared folder beside the project (or the folder ``RANKBOOK_SHARED``
    names), falling back to the ``committed`` file, with a description saying so, when it is
    absent; for ``"committed"``, the committed file (the tools ledger's first 20 vectors).

    Examples
    --------
    >>> from rankbook.ledger import claims
    >>> first20 = claims.ledger().for_page("rbo_implementations")[0].path("vectors")
    >>> path, text = vectors_source("committed", first20, "")
    >>> path == first20, text.startswith("the first 20")
    (True, True)
    """
    import os

    from rankbook.ledger.paths import project_root

    if source not in SOURCES:
        raise ValueError(f"source={source!r} is not valid; choose one of {list(SOURCES)}")
    committed = Path(committed)
    n = len(pd.read_csv(committed, comment="#"))
    try:
        where = committed.relative_to(project_root())
    except ValueError:
        where = committed
    text = f"the first {n} of Corsi and Urbano's reference vectors, committed in {where.parent}"
    if source == "committed":
        return committed, text
    root = os.environ.get("RANKBOOK_SHARED") or project_root().parent / "shared"
    shared = Path(root) / shared_file
    if shared_file and shared.is_file():
        return shared, ("Corsi and Urbano's reference vectors (rbo/test.csv of their repository, "
                        "read from the shared folder beside the project)")
    return committed, (text + f" (the authors' full file was not found at {shared}: it is not "
                       "distributed with rankbook)")


def load_vectors(path, n: int | None = None) -> pd.DataFrame:
    """Corsi and Urbano's reference vectors (the first ``n``): the authors' columns, the
    rankings with ties (``S``, ``T``), the same rankings read in the written order (``S_free``,
    ``T_free``) and whether the two lists have equal length.

    Raises ``ValueError`` naming the columns a file lacks.
    """
    df = pd.read_csv(path, comment="#")
    need = ["x", "y", "p"] + [f"{v}.{s}" for v in R.TIES for s in R.BATCH_SCORES]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: not a file of Corsi and Urbano's reference vectors; it lacks "
                         f"the columns {missing}")
    if n is not None:
        df = df.head(int(n))
    df = df.reset_index(drop=True)
    df["S_tied"] = [_parse(t) for t in df["x"]]
    df["T_tied"] = [_parse(t) for t in df["y"]]
    df["S_free"] = [written_order(t) for t in df["x"]]
    df["T_free"] = [written_order(t) for t in df["y"]]
    df["equal lengths"] = [len(a) == len(b) for a, b in zip(df["S_free"], df["T_free"])]
    return df


def reference_table(vectors: pd.DataFrame, tol: float = 1e-10) -> pd.DataFrame:
    """rankbook's tie-aware RBO against the authors' value of every vector, variant and score
    (:func:`rankbook.rbo.rbo_batch`): how many agree within ``tol`` and the largest difference.
    """
    got = R.rbo_batch(list(vectors["S_tied"]), list(vectors["T_tied"]), vectors["p"].to_numpy())
    rows = []
    for v in R.TIES:
        for score in R.BATCH_SCORES:
            diff = np.abs(got[f"{v}.{score}"] - vectors[f"{v}.{score}"].to_numpy())
            rows.append({"variant": _VARIANT[v], "score": _SCORE[score], "vectors": len(diff),
                         "agree": int((diff <= tol).sum()), "largest difference": float(diff.max())})
    return pd.DataFrame(rows)


def vector_values(vectors: pd.DataFrame, impls=None) -> pd.DataFrame:
    """Every implementation's value on every vector read in the written order, with the
    reference (Webber's RBO_ext), each implementation's explaining formula, and RBO^low and
    RBO^high of the vector with its ties (the extrapolated RBO)."""
    impls = implementations() if impls is None else impls
    S, T, p = vectors["S_free"], vectors["T_free"], vectors["p"].to_numpy()
    out = pd.DataFrame({"vector": np.arange(len(vectors)), "equal lengths": vectors["equal lengths"],
                        "p": p})
    out["reference"] = [R.rbo_ext(a, b, q) for a, b, q in zip(S, T, p)]
    out["low"] = [R.rbo_low(a, b, q) for a, b, q in zip(vectors["S_tied"], vectors["T_tied"], p)]
    out["high"] = [R.rbo_high(a, b, q) for a, b, q in zip(vectors["S_tied"], vectors["T_tied"], p)]
    for impl in impls:
        if impl.call is None:
            continue
        out[impl.name] = [impl.call(a, b, q) for a, b, q in zip(S, T, p)]
        if impl.explain is not None:
            out[f"{impl.name} | explained"] = [impl.explain(a, b, q) for a, b, q in zip(S, T, p)]
    return out


def _agree_text(diff, mask, tolerance):
    d = diff[mask]
    return f"{int((d <= tolerance).sum())} of {int(mask.sum())}" if mask.any() else "none"


def summary_table(values: pd.DataFrame, impls=None, *, tolerance: float) -> pd.DataFrame:
    """One row per implementation: its version, what it computes, on how many vectors of equal
    and of unequal length it equals Webber's RBO_ext, the largest difference, the formula that
    explains its values with the largest difference from it, and how many of its values lie in
    the range a tie order can give (RBO^low to RBO^high). Two values agree when they differ by
    at most ``tolerance``."""
    impls = implementations() if impls is None else impls
    rows = []
    eq = values["equal lengths"].to_numpy()
    for impl in impls:
        row = {"implementation": impl.name, "version": impl.version or "not installed",
               "computes": impl.computes}
        if impl.call is None:
            rows.append(row)
            continue
        v = values[impl.name].to_numpy()
        diff = np.abs(v - values["reference"].to_numpy())
        row.update({"equal lengths: agree": _agree_text(diff, eq, tolerance),
                    "unequal lengths: agree": _agree_text(diff, ~eq, tolerance),
                    "largest difference": float(diff.max()),
                    "explained by": impl.explained_by or "(Webber's RBOₑₓₜ)"})
        if impl.explain is not None:
            row["largest difference from it"] = float(np.abs(v - values[f"{impl.name} | explained"]).max())
        else:
            row["largest difference from it"] = float(diff.max())
        inside = (v >= values["low"] - 1e-12) & (v <= values["high"] + 1e-12)
        row["inside the tie range"] = f"{int(inside.sum())} of {len(v)}"
        rows.append(row)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------
# small examples


#: Tie-free examples of equal and unequal length: ranked-overlap's README example (the value it
#: prints is the data of the tools ledger's claim on that README) and the lists of dlukes/rbo
#: issue 5 without ties.
EXAMPLES = (
    ("ranked-overlap README", [1, 2, 3, 4, 5, 6, 7], [1, 3, 2, 4, 5, 7, 6, 8]),
    ("dlukes/rbo #5, even", ["N", "H", "M", "A"], ["C", "G", "N", "A"]),
    ("dlukes/rbo #5, uneven", ["N", "H", "M", "A", "C", "F", "L"], ["C", "G", "N", "A"]),
    ("identical, 20 items", [f"d{i}" for i in range(20)], [f"d{i}" for i in range(20)]),
    ("a prefix of the other", list("abcde"), list("abcdefghij")),
)

#: The lists of dlukes/rbo issue 5 with ties (rankbook alone takes ties).
TIED_EXAMPLES = (
    ("dlukes/rbo #5, even with ties", [{"N", "H"}, "M", "A"], ["C", "G", {"N", "A"}]),
    ("dlukes/rbo #5, uneven with ties", [{"N", "H"}, "M", {"A", "C", "F"}, "L"], ["C", "G", {"N", "A"}]),
)


def examples_table(p: float, impls=None, defaults=()) -> pd.DataFrame:
    """Each example under every implementation at persistence ``p``, and repro_eval with each
    persistence of ``defaults`` (the one its README example was printed with and its current
    default, as :func:`check_repro_eval` reports them)."""
    impls = implementations() if impls is None else impls
    rows = []
    for name, S, T in EXAMPLES:
        row = {"example": name, "lengths": f"{len(S)} and {len(T)}"}
        for impl in impls:
            row[impl.name] = impl.call(S, T, p) if impl.call is not None else float("nan")
        repro_impl = next((i for i in impls if i.dist == "repro-eval"), None)
        for q in defaults:
            key = f"repro_eval, p = {q:g}"
            row[key] = (_repro_eval(S, T, q) if repro_impl is not None and repro_impl.call is not None
                        else float("nan"))
        rows.append(row)
    return pd.DataFrame(rows)


def tied_examples_table(p: float) -> pd.DataFrame:
    """rankbook on the tied examples: RBO_ext under each tie variant, and the lowest, mean and
    highest RBO_ext over the orders of the ties."""
    rows = []
    for name, S, T in TIED_EXAMPLES:
        row = {"example": name}
        for v in R.TIES:
            row[f"{_VARIANT[v]}ₑₓₜ"] = R.rbo_ext(S, T, p, ties=v)
        row["RBOˡᵒʷ"] = R.rbo_low(S, T, p)
        row["RBOᵃᵛᵍ"] = R.rbo_avg(S, T, p)
        row["RBOʰⁱᵍʰ"] = R.rbo_high(S, T, p)
        rows.append(row)
    return pd.DataFrame(rows)


def readme_check(printed, impls=None) -> tuple[pd.DataFrame, str]:
    """ranked-overlap's own printed examples (a file, or its table) beside the installed
    package, the formula that explains it, and Webber's RBO_ext."""
    pub = printed if isinstance(printed, pd.DataFrame) else pd.read_csv(printed, comment="#")
    impl = next(i for i in (implementations() if impls is None else impls) if i.dist == "ranked-overlap")
    rows = []
    for _, row in pub.iterrows():
        a, b = [int(v) for v in row["first"].split()], [int(v) for v in row["second"].split()]
        rows.append({"source": row["source"], "lists": f"{row['first']} | {row['second']}",
                     "p": row["p"], "printed": row["printed"],
                     "installed package": impl.call(a, b, row["p"]) if impl.call else float("nan"),
                     "RBOₑₓₜ without the shorter list's extrapolation": ext_without_short_list(a, b, row["p"]),
                     "Webber's RBOₑₓₜ": R.rbo_ext(a, b, row["p"])})
    table = pd.DataFrame(rows)
    same = np.isclose(table["printed"], table["installed package"], rtol=0, atol=1e-10)
    text = (f"The installed ranked-overlap {impl.version or '(not installed)'} prints its own "
            f"documentation's numbers on {int(same.sum())} of {len(table)} examples.")
    return table, text


def tie_range_table(vectors: pd.DataFrame, values: pd.DataFrame, wide: float) -> pd.DataFrame:
    """How far the order of the ties moves RBO_ext on the vectors: the width of
    [RBO^low, RBO^high] (how many vectors have a range wider than ``wide``), and where the
    authors' RBO^a_ext lies (it is the mean over the orders for lists of equal length; for
    unequal lengths it continues the shorter list otherwise)."""
    width = values["high"] - values["low"]
    a_ext = vectors["a.ext"].to_numpy()
    avg = np.array([R.rbo_avg(a, b, q) for a, b, q in zip(vectors["S_tied"], vectors["T_tied"], vectors["p"])])
    rows = []
    for label, mask in (("equal lengths", values["equal lengths"].to_numpy()),
                        ("unequal lengths", ~values["equal lengths"].to_numpy())):
        if not mask.any():
            continue
        w = width[mask]
        inside = (a_ext[mask] >= values["low"][mask] - 1e-12) & (a_ext[mask] <= values["high"][mask] + 1e-12)
        rows.append({"lists": label, "vectors": int(mask.sum()),
                     "mean width of [RBOˡᵒʷ, RBOʰⁱᵍʰ]": float(w.mean()),
                     "largest width": float(w.max()),
                     f"width above {wide:g}": int((w > wide).sum()),
                     "RBOᵃₑₓₜ inside the range": f"{int(inside.sum())} of {int(mask.sum())}",
                     "largest |RBOᵃₑₓₜ − RBOᵃᵛᵍ|": float(np.abs(a_ext[mask] - avg[mask]).max())})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------
# what it says


def _fmt(x: float) -> str:
    return f"{x:.4f}" if not math.isnan(x) else "nan"


def findings(summary: pd.DataFrame, examples: pd.DataFrame, reference: pd.DataFrame,
             tie_range: pd.DataFrame | None = None, *, tolerance: float) -> list[str]:
    """One Markdown sentence per finding, every number taken from the tables: rankbook against
    the authors, each implementation that disagrees with Webber's RBO_ext with its cause, what
    the default persistence of repro_eval does, and where the authors' RBO^a_ext lies in the
    range of the tie orders. Formulas are maths and names code; nothing in them comes from
    the user. An implementation equals Webber's RBO_ext when it is within ``tolerance``
    everywhere."""
    out = []
    agree, total = int(reference["agree"].sum()), int(reference["vectors"].sum())
    out.append(f"rankbook's tie-aware RBO equals the authors' reference on {agree:,} of {total:,} "
               f"values ({len(reference)} variant and score pairs of {int(reference['vectors'].iloc[0]):,} "
               f"vectors; largest difference {reference['largest difference'].max():.1e}).")
    readme = examples.set_index("example").loc["ranked-overlap README"]
    for _, row in summary.iterrows():
        name = row["implementation"]
        if row["version"] == "not installed":
            out.append(f"`{name}`: not installed, so not compared.")
            continue
        eq_text, uneq_text = row["equal lengths: agree"], row["unequal lengths: agree"]
        if row["largest difference"] <= tolerance:
            out.append(f"`{name}` ({row['version']}) equals Webber's RBOₑₓₜ on every vector "
                       f"(equal lengths {eq_text}, unequal lengths {uneq_text}).")
            continue
        out.append(
            f"`{name}` ({row['version']}) computes {row['computes']}: it equals Webber's RBOₑₓₜ on "
            f"{eq_text} vectors of equal length and {uneq_text} of unequal length (largest "
            f"difference {row['largest difference']:.4f}); the formula *{row['explained by']}* "
            f"gives its values to {row['largest difference from it']:.1e}. On ranked-overlap's "
            f"README example it gives {_fmt(readme[name])} where RBOₑₓₜ is "
            f"{_fmt(readme['rankbook rbo_ext'])}.")
    olds = [c for c in examples if c.startswith("repro_eval, p = ")]
    if len(olds) == 2:
        (old, p_old), (new, p_new) = ((c, c.rpartition("= ")[2]) for c in olds)
        shift = (examples[new] - examples[old]).abs()
        out.append(f"repro_eval's README example was printed with persistence {p_old}, and its default "
                   f"is now {p_new}: the same lists score differently by up to {shift.max():.4f} on the "
                   f"examples (ranked-overlap's README lists: {_fmt(readme[old])} against "
                   f"{_fmt(readme[new])}).")
    if tie_range is not None:
        for _, row in tie_range.iterrows():
            inside, n = (int(v) for v in row["RBOᵃₑₓₜ inside the range"].split(" of "))
            gap = row["largest |RBOᵃₑₓₜ − RBOᵃᵛᵍ|"]
            if inside == n:
                out.append(f"On the {n:,} vectors of {row['lists']}, the authors' RBOᵃₑₓₜ lies "
                           f"between RBOˡᵒʷ and RBOʰⁱᵍʰ every time, and differs from RBOᵃᵛᵍ by "
                           f"at most {gap:.1e}.")
            else:
                out.append(f"On {n - inside:,} of the {n:,} vectors of {row['lists']}, the "
                           f"authors' RBOᵃₑₓₜ lies outside [RBOˡᵒʷ, RBOʰⁱᵍʰ], the range of "
                           f"Webber's RBOₑₓₜ over the orders of the ties: for lists of unequal "
                           f"length it continues the shorter list at the agreement of its last "
                           f"depth times the mean contribution of the longer list's unmatched "
                           f"items, which is not the mean over the orders (it differs from "
                           f"RBOᵃᵛᵍ by up to {gap:.4f}).")
    return [_md(line) for line in out]


# --------------------------------------------------------------------------------------------
# the claims of the tools ledger that the page checks


def _said(name: str) -> str:
    """An implementation's name as verdict text writes it (code, without a Python ``True`` that
    the verdict box would show raw)."""
    base, on, _ = name.partition("(ext=True)")
    return f"`{base}`" + (", extrapolation on" if on else "")


def _vectors(claim: claims.Claim, vectors, n_vectors):
    return load_vectors(claim.path("vectors"), n_vectors) if vectors is None else vectors


def check_reference(claim: claims.Claim, *, vectors: pd.DataFrame | None = None,
                    n_vectors: int | None = None, described: str = "") -> claims.Evidence:
    """Corsi and Urbano's reference values against rankbook's tie-aware RBO
    (:func:`rankbook.rbo.rbo_batch`), every variant and score of every vector, within
    ``claim.params["tolerance"]``. ``vectors`` are the loaded vectors (default: the claim's
    committed file, its first ``n_vectors``); ``described`` says where they come from (Markdown: the page escapes it)."""
    vectors = _vectors(claim, vectors, n_vectors)
    ref = reference_table(vectors, tol=claim.params["tolerance"])
    matched, total = int(ref["agree"].sum()), int(ref["vectors"].sum())
    ev = claim.evidence(
        comparison="exact", matched=matched, total=total, unit="values",
        published=f"{total:,} values: {len(ref)} variant and score pairs of {len(vectors):,} vectors",
        reproduced=(f"{matched:,} of {total:,} equal to rankbook's within {claim.params['tolerance']:g} "
                    f"(largest difference {ref['largest difference'].max():.1e})"),
        detail=described or "the vectors given")
    ev.add_table("rbo_reference", ref, float_format="{:.1e}", title=(
        f"rankbook against the authors' values: {described or 'the vectors given'}, "
        f"{len(vectors):,} vectors"))
    return ev


def moved_reference(claim: claims.Claim, **smoke) -> dict:
    """Mutant: every value of the authors' vectors moved by a millionth."""
    vectors = _vectors(claim, None, smoke.get("n_vectors"))
    cols = [f"{v}.{sc}" for v in R.TIES for sc in R.BATCH_SCORES]
    return {"vectors": vectors.assign(**{c: vectors[c] + 1e-6 for c in cols})}


def _values(claim, vectors, values, impls, n_vectors):
    impls = implementations() if impls is None else impls
    vectors = _vectors(claim, vectors, n_vectors)
    values = vector_values(vectors, impls) if values is None else values
    return vectors, values, impls


def _departure(claim, name, values, tolerance, explained_by) -> str:
    """The evidence of one implementation's departure from RBO_ext, and the formula that gives
    its values instead; empty when the formula does not give them within ``tolerance``."""
    v = values[name].to_numpy()
    diff = np.abs(v - values["reference"].to_numpy())
    eq = values["equal lengths"].to_numpy()
    explained = np.abs(v - values[f"{name} | explained"].to_numpy()).max()
    if explained > tolerance:
        return ""
    return (f"{_said(name)} differs from Webber's RBOₑₓₜ on {int((diff[~eq] > tolerance).sum())} of "
            f"{int((~eq).sum())} vectors of unequal length and {int((diff[eq] > tolerance).sum())} of "
            f"{int(eq.sum())} of equal length (largest difference {diff.max():.4f}); the formula "
            f"*{explained_by}* gives its values to {explained:.1e}")


def check_extrapolated(claim: claims.Claim, *, vectors: pd.DataFrame | None = None,
                       values: pd.DataFrame | None = None, impls=None,
                       n_vectors: int | None = None) -> claims.Evidence:
    """The implementations of :data:`EXTRAPOLATED` (those whose documentation says they give the
    extrapolated RBO) against Webber's RBO_ext on every vector, ties read in the written order,
    within ``claim.params["tolerance"]``; each departure explained by another formula is the
    finding of its role. ``values`` is :func:`vector_values` of ``vectors`` (computed when not
    given). The evidence shows the summary of every implementation."""
    tolerance = claim.params["tolerance"]
    vectors, values, impls = _values(claim, vectors, values, impls, n_vectors)
    by_name = {i.name: i for i in impls}
    ran = [n for n in EXTRAPOLATED if n in values]
    missing = [n for n in EXTRAPOLATED if n not in values]
    summary = summary_table(values, impls, tolerance=tolerance)
    if not ran:
        ev = claim.evidence(comparison="none", published="the extrapolated RBO",
                            reproduced="none of the implementations is installed",
                            detail="; ".join(by_name[n].missing for n in missing))
        ev.add_table("rbo_implementations", summary, float_format="{:.2e}", title="The implementations")
        return ev
    ok = {n: np.abs(values[n] - values["reference"]).to_numpy() <= tolerance for n in ran}
    matched, total = sum(int(a.sum()) for a in ok.values()), sum(a.size for a in ok.values())
    ev = claim.evidence(
        comparison="exact", matched=matched, total=total, unit="values",
        published="Webber et al.'s RBOₑₓₜ from " + "; ".join(_said(n) for n in ran),
        reproduced="; ".join(f"{_said(n)}: {int(ok[n].sum()):,} of {ok[n].size:,} vectors" for n in ran),
        detail=(f"each vector's lists with their ties in the written order; agreement within "
                f"{tolerance:g}" + (f"; not installed: {'; '.join(_said(n) for n in missing)}" if missing else "")))
    for name in ran:
        role = EXTRAPOLATED[name]
        if role and not ok[name].all():
            text = _departure(claim, name, values, tolerance, by_name[name].explained_by)
            if text:
                ev.findings.append(claim.finding(role, evidence=text))
    ev.add_table("rbo_implementations", summary, float_format="{:.2e}", title=(
        f"Six implementations on {len(vectors):,} reference vectors, ties read in the written order"))
    return ev


def moved_ext(claim: claims.Claim, **smoke) -> dict:
    """Mutant: Webber's RBO_ext, the reference the implementations are compared with, moved by
    0.01 (the implementations' values unchanged)."""
    vectors, values, impls = _values(claim, None, None, None, smoke.get("n_vectors"))
    return {"vectors": vectors, "impls": impls, "values": values.assign(reference=values["reference"] + 0.01)}


def check_repro_eval(claim: claims.Claim, *, vectors: pd.DataFrame | None = None,
                     values: pd.DataFrame | None = None, impls=None,
                     n_vectors: int | None = None) -> claims.Evidence:
    """repro_eval's RBO against Webber's RBO_ext on every vector (``claim.params["tolerance"]``):
    a statement that holds only when every vector agrees, false with the failing vectors named;
    with the formula that gives its values instead (the finding ``clarke_truncated``); and its
    default persistence against the one its README example was printed with
    (``claim.params["readme_p"]``, the finding ``rbo_default``, which the README example's
    claim owns), on the page's small examples. ``values["defaults"]`` holds the two
    persistences for :func:`examples_table`."""
    tolerance = claim.params["tolerance"]
    vectors, values, impls = _values(claim, vectors, values, impls, n_vectors)
    name, role = REPRO_EVAL
    impl = next(i for i in impls if i.name == name)
    if name not in values:
        return claim.evidence(comparison="none", published="rank-biased overlap",
                              reproduced="repro_eval is not installed", detail=impl.missing or "")
    import repro_eval

    ok = np.abs(values[name] - values["reference"]).to_numpy() <= tolerance
    bad = np.nonzero(~ok)[0]
    ev = claim.evidence(  # one statement: its count of vectors would clash with the tables' counts
        comparison="claim", holds=bool(ok.all()), unit="statements",
        published="Webber et al.'s RBO (Breuer et al., 2020)",
        reproduced=(f"{int(ok.sum()):,} of {ok.size:,} vectors equal to Webber's RBOₑₓₜ within "
                    f"{tolerance:g}; repro_eval {impl.version} computes {impl.computes}"),
        failures=[f"vector {i}: repro_eval {values[name].iloc[i]:.4f}, Webber's RBOₑₓₜ "
                  f"{values['reference'].iloc[i]:.4f}" for i in bad[:5]] or None,
        detail="each vector's lists with their ties in the written order, at its persistence"
               + (f"; the {int(ok.sum()):,} vectors that agree are disjoint lists, where both give 0"
                  if ok.any() and (values["reference"][ok] == 0).all() else ""))
    if not ok.all():
        text = _departure(claim, name, values, tolerance, impl.explained_by)
        if text:
            ev.findings.append(claim.finding(role, evidence=text))
    former, now = float(claim.params["readme_p"]), float(repro_eval.RBO_P)
    ev.values["defaults"] = (former, now)
    if former != now:
        rows = [(n, _repro_eval(S, T, former), _repro_eval(S, T, now)) for n, S, T in EXAMPLES]
        shift = max(abs(b - a) for _, a, b in rows)
        ev.findings.append(claim.finding("rbo_default", evidence=(
            f"repro_eval {impl.version}'s default persistence is {now:g}; the README example was "
            f"printed with {former:g}. On the page's small examples the two give values up to "
            f"{shift:.4f} apart (" + "; ".join(f"{n}: {a:.4f} against {b:.4f}" for n, a, b in rows[:2])
            + ")")))
    return ev


def check_readme(claim: claims.Claim, *, printed: pd.DataFrame | None = None, impls=None) -> claims.Evidence:
    """ranked-overlap's printed examples (the claim's data ``printed``) against Webber's RBO_ext
    of their lists (the verdict's reading) within ``claim.params["tolerance"]``, with the count
    against the installed package beside it; the departure is the finding
    ``not_extrapolated``. ``printed`` replaces the printed values (the mutation test)."""
    tolerance = claim.params["tolerance"]
    impls = implementations() if impls is None else impls
    table, text = readme_check(claim.path("printed") if printed is None else printed, impls)
    ext = np.abs(table["printed"] - table["Webber's RBOₑₓₜ"]).to_numpy() <= tolerance
    own = np.abs(table["printed"] - table["installed package"]).to_numpy() <= tolerance
    readings = claim.readings
    ev = claim.evidence(
        comparison="exact", matched=int(ext.sum()), total=len(table), unit="values",
        published=", ".join(f"{v:.10g}" for v in table["printed"]),
        reproduced=("Webber's RBOₑₓₜ: " + ", ".join(f"{v:.4f}" for v in table["Webber's RBOₑₓₜ"])
                    + "; the installed package: " + ", ".join(f"{v:.10g}" for v in table["installed package"])),
        reading=readings[0] if readings else None,
        alternatives={readings[1]: int(own.sum())} if len(readings) > 1 else None,
        detail=text)
    if not ext.all():
        rows = table[~ext]
        ext_col, own_col = "Webber's RBOₑₓₜ", "RBOₑₓₜ without the shorter list's extrapolation"
        ev.findings.append(claim.finding("not_extrapolated", evidence="; ".join(
            f"{r['source']}, {r['lists']}: printed {r['printed']:.10g}, Webber's RBOₑₓₜ "
            f"{r[ext_col]:.4f}, RBOₑₓₜ without the shorter list's extrapolation {r[own_col]:.10g}"
            for _, r in rows.iterrows())))
    ev.add_table("rbo_ranked_overlap_readme", table, float_format="{:.10f}",
                 title="ranked-overlap's own printed examples against the installed package")
    ev.say(text)
    return ev


def printed_ext(claim: claims.Claim, **smoke) -> dict:
    """Mutant: printed values that are Webber's RBO_ext of their lists."""
    pub = pd.read_csv(claim.path("printed"), comment="#")
    ints = lambda t: [int(v) for v in t.split()]  # noqa: E731
    return {"printed": pub.assign(printed=[R.rbo_ext(ints(a), ints(b), q) for a, b, q
                                            in zip(pub["first"], pub["second"], pub["p"])])}
