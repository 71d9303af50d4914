"""``rankbook reproduce``: did a rerun reproduce the original runs? (:mod:`rankbook.repro`).

The command reads four TREC runs (original baseline and advanced system, and their
reproductions) and a qrels file, or a second qrels file of other topics for replicability, with
the readers of ``rankbook compare`` (:mod:`rankbook.book.compare_cmd`), and hands them to
:func:`rankbook.repro.reproduce`. It prints the report (with each run's ``ir_metadata``) and
writes the aggregate table as CSV atomically (``--per-topic`` adds the per-topic table;
``--plot`` draws the ER–ΔRI plane with the intervals).

Every check on the input runs before any score is computed, and each refusal is a
:class:`ReproduceError` (exit status 2) whose one line names the file and the line:
malformed lines and duplicate documents (from the reader), runs of one experiment that cover
different topics (naming the topics), a topic of the runs that the qrels do not judge (an empty
topic: nothing to score it against), one advanced run without the other.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import pandas as pd

from .. import conventions as _conv
from .. import repro as _repro
from . import compare_cmd as _cc

#: Measures when ``--measures`` is not given.
DEFAULT_MEASURES = "AP,nDCG@10,P@10"
ROLES = ("orig_baseline", "orig_advanced", "rep_baseline", "rep_advanced")


write_atomic = _cc.write_atomic


class ReproduceError(_cc.CompareError):
    """Bad input or usage: one line, exit status 2."""


def check_outputs(paths: dict, inputs: Sequence[str], force: bool) -> None:
    """``rankbook compare``'s check of the output files (exists without --force, is an input,
    shared by two options, folder missing), as a :class:`ReproduceError`."""
    try:
        _cc.check_outputs(paths, inputs, force)
    except _cc.CompareError as exc:
        raise ReproduceError(str(exc)) from None


def _option(role: str) -> str:
    return "--" + role.replace("_", "-")


def _first_lines(path) -> dict:
    """The line number of each topic's first line in a TREC file (after the reader accepted it)."""
    first = {}
    with open(path, encoding="utf-8") as fh:
        for no, line in enumerate(fh, start=1):
            s = line.strip()
            if s and not s.startswith("#"):
                first.setdefault(s.split()[0], no)
    return first


def _topics_phrase(topics) -> str:
    return _cc._preview(_cc._natural(topics))


def check_inputs(paths: dict, qrels: str, qrels_rep: str | None, measures, convention: str):
    """Read and check everything before any score: returns (runs, qrels tables, measures)."""
    if convention not in _conv.CONVENTIONS:
        raise ReproduceError(f"--convention {convention!r} is not one of "
                             f"{', '.join(_conv.CONVENTIONS)}")
    conv = _conv.profile(convention)
    try:
        wanted = _cc.split_measures(measures) if isinstance(measures, str) else list(measures)
    except _cc.CompareError as exc:
        raise ReproduceError(str(exc)) from None
    for m in wanted:
        try:
            _conv.parse_measure(m, conv)
        except ValueError as exc:
            raise ReproduceError(f"--measures: {exc}") from None
    if len(set(wanted)) != len(wanted):
        dup = next(m for m in wanted if wanted.count(m) > 1)
        raise ReproduceError(f"measure {dup!r} is listed twice in --measures")
    for role in ("orig_baseline", "rep_baseline"):
        if not paths.get(role):
            raise ReproduceError(f"{_option(role)} is required: the baseline run of each "
                                 "experiment")
    adv = [r for r in ("orig_advanced", "rep_advanced") if paths.get(r)]
    if len(adv) == 1:
        given, missing = adv[0], ({"orig_advanced", "rep_advanced"} - set(adv)).pop()
        raise ReproduceError(f"{_option(missing)} is missing: {_option(given)} "
                             f"{paths[given]!r} has no counterpart, and the effects (ER, ΔRI) "
                             "compare the advanced run with the baseline in both experiments; "
                             "give both advanced runs or neither")
    roles = [r for r in ROLES if paths.get(r)]
    try:
        q_orig = _cc._read(_conv.read_qrels, qrels, "qrels")
        q_rep = _cc._read(_conv.read_qrels, qrels_rep, "qrels") if qrels_rep else None
        runs = {r: _cc._read(_conv.read_run, paths[r], "run") for r in roles}
    except _cc.CompareError as exc:
        raise ReproduceError(str(exc)) from None
    lines = {r: _first_lines(paths[r]) for r in roles}
    topics = {r: list(lines[r]) for r in roles}

    def same(a, b, why):
        ta, tb = set(topics[a]), set(topics[b])
        if ta == tb:
            return
        if ta - tb:
            t = _cc._natural(ta - tb)[0]
            where, other, lacking = a, b, ta - tb
        else:
            t = _cc._natural(tb - ta)[0]
            where, other, lacking = b, a, tb - ta
        raise ReproduceError(
            f"{paths[where]}:{lines[where][t]}: runs for different topics: {paths[other]} "
            f"({_option(other)}) has no line for {len(lacking)} topic(s) of {paths[where]} "
            f"({_topics_phrase(lacking)}); {why}")

    for exp in ("orig", "rep"):
        if f"{exp}_advanced" in runs:
            same(f"{exp}_baseline", f"{exp}_advanced",
                 "the baseline and the advanced run of one experiment must cover the same topics")
    if q_rep is None:
        for s in ("baseline", "advanced"):
            if f"orig_{s}" in runs:
                same(f"orig_{s}", f"rep_{s}", "a reproduction reruns the same topics (for "
                     "other topics, give their judgements with --qrels-rep: replicability)")
    for r in roles:
        judged = set((q_rep if (q_rep is not None and r.startswith("rep")) else q_orig)
                     ["query_id"])
        qname = qrels_rep if (q_rep is not None and r.startswith("rep")) else qrels
        empty = [t for t in topics[r] if t not in judged]
        if empty:
            t = empty[0]
            raise ReproduceError(
                f"{paths[r]}:{lines[r][t]}: topic {t!r} has no judgements in {qname} (an empty "
                f"topic: nothing to score it against; {len(empty)} such topic(s): "
                f"{_topics_phrase(empty)}); judge it or remove it from the runs")
    return runs, q_orig, q_rep, wanted


def reproduce_runs(paths: dict, qrels: str, *, qrels_rep: str | None = None,
                   measures: str | Sequence[str] = DEFAULT_MEASURES,
                   convention: str = "trec_eval", ktu_convention: str = "union",
                   rbo_p: float = 0.95, confidence: float = 0.95, resamples: int = 9999,
                   seed: int = 0) -> _repro.Reproduction:
    """What ``rankbook reproduce`` does: check the files, then :func:`rankbook.repro.reproduce`.

    Parameters
    ----------
    paths : dict
        ``{"orig_baseline": path, "orig_advanced": path or None, "rep_baseline": ...,
        "rep_advanced": ...}``.
    qrels, qrels_rep : path
        Judgements of the original topics, and of other topics for replicability.

    Raises
    ------
    ReproduceError
        Any bad input, with ``file:line``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q").write_text("1 0 a 1\\n1 0 b 0\\n2 0 c 1\\n2 0 d 0\\n")
    >>> _ = (d / "o").write_text("1 Q0 a 1 2 o\\n1 Q0 b 2 1 o\\n2 Q0 c 1 2 o\\n2 Q0 d 2 1 o\\n")
    >>> _ = (d / "r").write_text("1 Q0 a 1 2 o\\n1 Q0 b 2 1 o\\n")
    >>> reproduce_runs({"orig_baseline": d / "o", "rep_baseline": d / "r"}, d / "q",
    ...                measures="AP")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankbook.book.reproduce_cmd.ReproduceError: ...o:3: runs for different topics: ...r (--rep-baseline) has no line for 1 topic(s) of ...o ('2'); ...
    """
    paths = {k: (str(v) if v else None) for k, v in paths.items()}
    runs, q_orig, q_rep, wanted = check_inputs(paths, str(qrels),
                                               str(qrels_rep) if qrels_rep else None,
                                               measures, convention)
    names = {r: paths[r] for r in runs}
    try:
        res = _repro.reproduce(
            runs["orig_baseline"], runs.get("orig_advanced"), runs["rep_baseline"],
            runs.get("rep_advanced"), q_orig, qrels_rep=q_rep, measures=wanted,
            convention=convention, ktu_convention=ktu_convention, rbo_p=rbo_p,
            confidence=confidence, n_resamples=resamples, seed=seed, names=names)
    except ValueError as exc:
        raise ReproduceError(str(exc)) from None
    res.metadata = {paths[r]: _repro.read_ir_metadata(paths[r]) for r in runs}
    res.settings["files"] = dict(paths, qrels=str(qrels), qrels_rep=qrels_rep)
    return res


def table_csv(table: pd.DataFrame) -> str:
    """A table as CSV text (full precision)."""
    return table.to_csv(index=False, lineterminator="\n")


def plot_plane(res: _repro.Reproduction, path) -> None:
    """The ER–ΔRI plane: one point per measure with both intervals (matplotlib, imported here).

    ER = 1 and ΔRI = 0 (dashed) is a perfect reproduction of the effect; left of ER = 1 the
    improvement shrank, right of it grew.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agg = res.aggregate[res.aggregate.level == "effect"]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for m in pd.unique(agg["measure"]):
        er = agg[(agg.measure == m) & (agg.statistic == "ER")].iloc[0]
        dri = agg[(agg.measure == m) & (agg.statistic == "ΔRI")].iloc[0]
        xerr = [[max(er.value - er.low, 0)], [max(er.high - er.value, 0)]]
        yerr = [[max(dri.value - dri.low, 0)], [max(dri.high - dri.value, 0)]]
        ax.errorbar([er.value], [dri.value], xerr=xerr if pd.notna(er.low) else None,
                    yerr=yerr if pd.notna(dri.low) else None, fmt="o", capsize=3, label=m)
    ax.axvline(1.0, color="grey", ls="--", lw=1)
    ax.axhline(0.0, color="grey", ls="--", lw=1)
    ax.set_xlabel("effect ratio ER")
    ax.set_ylabel("ΔRI")
    ax.set_title(f"{res.kind.capitalize()}: ER and ΔRI with "
                 f"{res.settings.get('confidence', 0.95):.0%} intervals")
    if len(agg):
        ax.legend(fontsize=8)
    fig.tight_layout()
    path = Path(path)
    fd_dir = path.parent
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=fd_dir, prefix=f".{path.name}.", suffix=path.suffix or ".png")
    os.close(fd)
    try:
        fig.savefig(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    finally:
        plt.close(fig)
