"""``rankbook reproduce``: did a rerun reproduce the original runs? (:mod:`rankbook.repro`).

The command reads four TREC runs (original baseline and advanced system, and their
reproductions) and a qrels file, or a second qrels file of other topics for replicability, with
the one reader of every command (:func:`rankbook.trec_format.read_table`: each input read once,
so gzip, bz2 and xz files, pipes and ``-`` for standard input read as plain files do; files
over ``--max-bytes`` refused before any is read), and hands the tables to
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

import errno
import os
import warnings
from pathlib import Path
from typing import Sequence

import pandas as pd

from .. import conventions as _conv
from .. import preflight as _pf
from .. import repro as _repro
from .. import stats as _stats
from .. import trec_format as _tf
from . import compare_cmd as _cc

#: Largest input file read without ``--max-bytes`` (``rankbook compare``'s limit).
DEFAULT_MAX_BYTES = _cc.DEFAULT_MAX_BYTES
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


def _read(path, what: str, max_bytes, order: str = "score") -> _tf.TrecTable:
    """One input read once by the one reader of every command
    (:func:`rankbook.trec_format.read_table`: gzip, bz2, xz, pipes and ``-`` for standard
    input): the table, with the line where each topic starts; every refusal a
    :class:`ReproduceError` naming ``file:line``."""
    try:
        table = _tf.read_table(path, what, max_bytes=max_bytes, order=order)
    except _tf.InputTooLarge as exc:
        raise ReproduceError(f"{exc}; --max-bytes raises it") from None
    except ValueError as exc:  # path:line: problem, from the reader
        raise ReproduceError(str(exc)) from None
    if not len(table):
        raise ReproduceError(f"{table.name}: holds no {what} lines (only blank lines or # "
                             "comments)")
    return table


def _topics_phrase(topics) -> str:
    return _cc._preview(_cc._natural(topics))


def check_inputs(paths: dict, qrels: str, qrels_rep: str | None, measures, convention: str,
                 order: str = "score", max_bytes: int | None = _cc.DEFAULT_MAX_BYTES):
    """Read and check everything before any score: returns (runs, qrels tables, measures, the
    run tables).
    Runs are the tables read (with ``order="rank"``, each an explicit order as a tidy run:
    minus its ranks as scores). Every file is read once; sizes over ``max_bytes``, a missing
    file and standard input or a pipe given twice are refused before any is read."""
    if order not in _repro.ORDERS:
        raise ReproduceError(f"--order {order!r} is not one of {', '.join(_repro.ORDERS)}")
    if convention not in _conv.CONVENTIONS:
        raise ReproduceError(f"--convention {convention!r} is not one of "
                             f"{', '.join(_conv.CONVENTIONS)}")
    if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, int)
                                  or max_bytes < 1):
        raise ReproduceError(f"--max-bytes must be a positive whole number, got {max_bytes!r}")
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
    sources = [qrels, *([qrels_rep] if qrels_rep else []), *(paths[r] for r in roles)]
    try:  # before any file is read: sizes, missing files, one pipe given twice
        _tf.check_sources(sources, max_bytes=max_bytes,
                          what=["qrels"] * (2 if qrels_rep else 1) + ["run"] * len(roles))
    except _tf.InputTooLarge as exc:
        raise ReproduceError(f"{exc}; --max-bytes raises it (the command needs about "
                             f"{_cc.MEMORY_PER_BYTE} bytes of memory per byte of its largest "
                             "run)") from None
    except ValueError as exc:
        raise ReproduceError(str(exc)) from None
    q_orig = _read(qrels, "qrels", max_bytes)
    q_rep = _read(qrels_rep, "qrels", max_bytes) if qrels_rep else None
    runs, lines, tables = {}, {}, {}
    for r in roles:
        tables[r] = table = _read(paths[r], "run", max_bytes, order)
        lines[r] = table.first_lines()
        if order == "rank":  # ranks as minus scores, each rank once per topic (or refused)
            try:
                runs[r] = _repro.explicit_order(table.frame(), f"{table.name} ({_option(r)})")
            except ValueError as exc:
                raise ReproduceError(str(exc)) from None
            runs[r].attrs[_repro._TIDY] = True  # validated by the reader: not again
        else:
            runs[r] = table
    topics = {r: list(lines[r]) for r in roles}
    shown = {r: tables[r].name for r in roles}  # as the reader names them ('<stdin>' for '-')

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
            f"{shown[where]}:{lines[where][t]}: runs for different topics: {shown[other]} "
            f"({_option(other)}) has no line for {len(lacking)} topic(s) of {shown[where]} "
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
        judged = set((q_rep if (q_rep is not None and r.startswith("rep")) else q_orig).qnames)
        qname = (q_rep if (q_rep is not None and r.startswith("rep")) else q_orig).name
        empty = [t for t in topics[r] if t not in judged]
        if empty:
            t = empty[0]
            raise ReproduceError(
                f"{shown[r]}:{lines[r][t]}: topic {t!r} has no judgements in {qname} (an empty "
                f"topic: nothing to score it against; {len(empty)} such topic(s): "
                f"{_topics_phrase(empty)}); judge it or remove it from the runs")
    return runs, q_orig, q_rep, wanted, tables


def reproduce_runs(paths: dict, qrels: str, *, qrels_rep: str | None = None,
                   measures: str | Sequence[str] = DEFAULT_MEASURES,
                   convention: str = "trec_eval", ktu_convention: str = "union",
                   rbo_p: float = 0.95, confidence: float = 0.95, resamples: int = 9999,
                   seed: int = 0, order: str = "score", rbo_form: str | None = None,
                   rbo_depth: int | None = None,
                   max_bytes: int | None = _cc.DEFAULT_MAX_BYTES) -> _repro.Reproduction:
    """What ``rankbook reproduce`` does: check the files, then :func:`rankbook.repro.reproduce`.

    Parameters
    ----------
    paths : dict
        ``{"orig_baseline": path, "orig_advanced": path or None, "rep_baseline": ...,
        "rep_advanced": ...}``.
    qrels, qrels_rep : path
        Judgements of the original topics, and of other topics for replicability.
    rbo_form, rbo_depth
        As in :func:`rankbook.repro.rbo`; ``None``: the extrapolated form at the lists' length,
        or repro_eval's (``"truncated"`` to depth 1000) with ``ktu_convention="repro_eval"``.
        The report says which, and what else differs from repro_eval (:func:`repro_eval_note`).
    max_bytes : int or None
        Largest input, in bytes (``rankbook compare``'s default, 512 MiB); ``None``: no limit.
        A larger regular file is refused before any file is read, a pipe or compressed file
        as soon as its text passes it.

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
    from .compare_cmd import MAX_RESAMPLES

    if isinstance(resamples, int) and not isinstance(resamples, bool) and resamples > MAX_RESAMPLES:
        # about 240 bytes a resample: 1e8 of them were killed by the system, without a word
        raise ReproduceError(f"--resamples {resamples:,} is over the limit of {MAX_RESAMPLES:,} "
                             "(about 240 bytes of memory each); the default 9,999 resolves the "
                             "intervals' ends to about 1/10,000")
    try:  # in the command's own words (--resamples, --confidence)
        _stats._check_resamples(resamples, _stats._check_confidence(confidence), name="--resamples")
    except ValueError as exc:
        raise ReproduceError(str(exc)
                             + ("" if "too few" not in str(exc) or confidence <= 0.9999 else
                                "; or lower --confidence")) from None
    rbo_form, rbo_depth, note = rbo_settings(ktu_convention, rbo_form, rbo_depth)
    paths = {k: (str(v) if v else None) for k, v in paths.items()}
    try:
        return _reproduce_runs(paths, qrels, qrels_rep, measures, convention, ktu_convention,
                               rbo_p, confidence, resamples, seed, order, max_bytes,
                               rbo_form, rbo_depth, note)
    except MemoryError:
        raise OSError(errno.ENOMEM, "out of memory while reading or scoring the runs; the "
                      f"command needs about {_cc.MEMORY_PER_BYTE} bytes of memory per byte of "
                      "its largest run (--max-bytes bounds the size it accepts)") from None


def _reproduce_runs(paths, qrels, qrels_rep, measures, convention, ktu_convention, rbo_p,
                    confidence, resamples, seed, order, max_bytes, rbo_form, rbo_depth, note):
    runs, q_orig, q_rep, wanted, tables = check_inputs(
        paths, str(qrels), str(qrels_rep) if qrels_rep else None, measures, convention, order,
        max_bytes)
    if q_rep is not None and set(q_rep.qnames) == set(q_orig.qnames):
        warnings.warn(f"--qrels-rep {qrels_rep} judges the same topics as {qrels}: the report is "
                      "a replicability one (the topics resampled apart, no per-topic pairing, no "
                      "KTU or RBO); leave out --qrels-rep for a paired reproducibility report",
                      UserWarning, stacklevel=2)
    names = {r: paths[r] for r in runs}
    try:
        res = _repro.reproduce(
            runs["orig_baseline"], runs.get("orig_advanced"), runs["rep_baseline"],
            runs.get("rep_advanced"), q_orig, qrels_rep=q_rep, measures=wanted,
            convention=convention, ktu_convention=ktu_convention, rbo_p=rbo_p,
            rbo_form=rbo_form, rbo_depth=rbo_depth,
            confidence=confidence, n_resamples=resamples, seed=seed, names=names, order=order)
    except ValueError as exc:
        hint = ""
        if "is judged in the qrels but absent from the run" in str(exc):
            hint = (" (on the command line: --convention trec_eval_9, pytrec_eval or ir_measures "
                    "skips such a topic; or judge only the topics the runs answer)")
        raise ReproduceError(f"{exc}{hint}") from None
    try:  # from the comment lines the reader kept: no file is opened again
        res.metadata = {paths[r]: _repro.read_ir_metadata(tables[r]) for r in runs}
    except ValueError as exc:
        raise ReproduceError(str(exc)) from None
    res.check = _check(tables, q_orig, q_rep, q_orig.name, wanted, convention)
    res.settings["files"] = dict(paths, qrels=str(qrels), qrels_rep=qrels_rep)
    res.settings["notes"] = [x for x in (note, repro_eval_note(res.settings, res.kind)) if x]
    return res


def _check(runs: dict, q_orig, q_rep, qrels_name: str, measures,
           convention: str) -> list:
    """The pre-flight check (:mod:`rankbook.preflight`) of the runs as read (their tables: an
    explicit order is checked by its scores' order too), against the qrels of their topics: one
    report, or two for a replicability (the reruns against ``--qrels-rep``)."""
    reports = []
    for group, q in (("orig", q_orig), ("rep", q_rep)):
        if q is None:
            continue
        roles = [r for r in ROLES if r in runs and (q_rep is None or r.startswith(group))]
        check = _pf.Preflight(q, measures, convention=convention,
                              qrels_name=qrels_name if group == "orig" else "--qrels-rep")
        for r in roles:
            check.add_run(runs[r], runs[r].name)  # the reader's name ('<stdin>' for '-')
        reports.append(check.report())
    return reports


def rbo_settings(ktu_convention: str, rbo_form: str | None, rbo_depth: int | None):
    """The RBO form and depth the command uses, and a note when ``--ktu repro_eval`` chose
    repro_eval's (truncated to depth 1000) because neither was given.

    Examples
    --------
    >>> rbo_settings("union", None, None)
    ('ext', None, '')
    >>> rbo_settings("repro_eval", None, None)[:2]
    ('truncated', 1000)
    """
    if rbo_form is not None and rbo_form not in _repro.RBO_FORMS:
        raise ReproduceError(f"--rbo-form must be one of {', '.join(_repro.RBO_FORMS)}; got {rbo_form!r}")
    if rbo_depth is not None and (isinstance(rbo_depth, bool) or not isinstance(rbo_depth, int)
                                  or rbo_depth < 1):
        raise ReproduceError(f"--rbo-depth must be a whole number >= 1, got {rbo_depth!r}")
    if ktu_convention == "repro_eval" and rbo_form is None and rbo_depth is None:
        return ("truncated", _repro.REPRO_EVAL_DEPTH,
                "--ktu repro_eval: RBO is repro_eval's too (--rbo-form truncated --rbo-depth "
                f"{_repro.REPRO_EVAL_DEPTH}); give --rbo-form ext for the extrapolated RBO")
    return rbo_form or "ext", rbo_depth, ""


def repro_eval_note(settings: dict, kind: str = "reproducibility") -> str:
    """What differs from repro_eval 0.5.0 under these settings, in one sentence: its KTU
    (position-paired) and RBO (truncated to depth 1000), for a reproducibility report, and its
    scores (pytrec_eval: trec_eval 9's code, ``--convention trec_eval_9``)."""
    differs = []
    paired = kind == "reproducibility"
    if paired and settings.get("ktu_convention") != "repro_eval":
        differs.append("KTU over the union of the documents (repro_eval pairs them by "
                       "position: --ktu repro_eval)")
    if paired and ((settings.get("rbo_form"), settings.get("rbo_depth"))
                   != ("truncated", _repro.REPRO_EVAL_DEPTH)):
        differs.append("RBO " + describe_rbo(settings) + " (repro_eval's: --rbo-form truncated "
                       f"--rbo-depth {_repro.REPRO_EVAL_DEPTH})")
    if settings.get("convention") not in ("trec_eval_9", "pytrec_eval"):
        differs.append(f"scores under {settings.get('convention')} (repro_eval scores with "
                       "pytrec_eval, trec_eval 9's code: --convention trec_eval_9 matches its "
                       "AP-based numbers)")
    if not differs:
        return (("KTU, RBO and scores" if paired else "scores")
                + " as repro_eval 0.5.0 computes them ("
                + (f"--ktu repro_eval, RBO truncated to depth {_repro.REPRO_EVAL_DEPTH}, "
                   if paired else "") + f"--convention {settings.get('convention')})")
    return "differs from repro_eval 0.5.0 in: " + "; ".join(differs)


def describe_rbo(settings: dict) -> str:
    """RBO's form in words: ``extrapolated (p = 0.95)``, ``truncated to depth 1000 (p = 0.95)``.

    >>> describe_rbo({"rbo_form": "truncated", "rbo_depth": 1000, "rbo_p": 0.95})
    'truncated and normalised to depth 1000 (p = 0.95)'
    """
    form = settings.get("rbo_form", "ext")
    depth = settings.get("rbo_depth")
    words = {"ext": "extrapolated", "base": "prefix sum (a lower bound)",
             "truncated": "truncated and normalised"}[form]
    where = f" to depth {depth}" if depth is not None else (
        " to the shorter list's length" if form != "ext" else "")
    return f"{words}{where} (p = {settings.get('rbo_p', 0.95):g})"


def table_csv(table: pd.DataFrame) -> str:
    """A table as CSV text (full precision; a text cell that a spreadsheet would run as a
    formula is quoted: :mod:`rankbook.book.csvsafe`)."""
    from .csvsafe import csv_text

    return csv_text(table)


#: The formats ``--plot`` writes, by file extension.
PLOT_FORMATS = ("png", "svg", "pdf")


def check_plot(path) -> None:
    """Refuse, before any work, a ``--plot`` file whose extension is not a format the plot is
    written in (matplotlib would fail only after the tables were written)."""
    ext = Path(str(path)).suffix.lower().lstrip(".")
    if ext not in PLOT_FORMATS:
        shown = f"'.{ext}'" if ext else "no extension"
        raise ReproduceError(f"--plot {path}: {shown} is not a plot format; give a file "
                             f"ending in {', '.join('.' + f for f in PLOT_FORMATS)}")


def plot_plane(res: _repro.Reproduction, path, written: list | None = None) -> None:
    """The ER–ΔRI plane: one point per measure with both intervals (matplotlib, imported here).

    ER = 1 and ΔRI = 0 (dashed) is a perfect reproduction of the effect; left of ER = 1 the
    improvement shrank, right of it grew. ``written`` receives ``path`` in the same step as
    its rename (as :func:`rankbook.book.compare_cmd.write_atomic`).
    """
    from .interrupts import deferred

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
    given, path = str(path), Path(path)
    fd_dir = path.parent
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=fd_dir, prefix=f".{path.name}.", suffix=path.suffix or ".png")
    os.close(fd)
    try:
        fig.savefig(tmp)
        os.chmod(tmp, _cc.file_mode())  # not the temporary file's 0o600
        with deferred():
            os.replace(tmp, path)
            if written is not None:
                written.append(given)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    finally:
        plt.close(fig)
