"""``rankbook compare``: TREC runs scored against qrels and compared with paired tests.

The command reads a qrels file and two or more run files with the TREC readers
(:func:`rankbook.ir.read_qrels`, :func:`rankbook.ir.read_run`), scores every run with
:func:`rankbook.ir.evaluate_run` under one tool's conventions, stacks the per-query tables with
a ``system`` column and hands them to :func:`rankbook.stats.compare`. It prints the report
(laid out like ranx's) and writes the table as CSV, and optionally as LaTeX.

Which queries a run is scored on is the convention's decision (trec_eval 10.0 stops on a
judged query the run does not answer and trec_eval 9.0.8, ``--convention trec_eval_9``, skips
it; ir_measures scores it 0; ranx refuses the run). A paired comparison then needs every run
scored on the same queries: when the convention leaves them scored on different queries, or
refuses them, the command stops and says which run lacks which query, unless ``--missing zero``
(score 0, as ``trec_eval -c`` and ranx's ``make_comparable=True`` do) or ``--missing drop``
(compare on the queries every run has) says what to do. ``--order rank`` scores each run as
the explicit order of its rank column, with no tie rule.

Every input is read once by the one reader of every command
(:func:`rankbook.trec_format.read_table`), so a pipe, ``/dev/fd/N`` from process substitution,
``-`` for standard input or a gzip, bz2 or xz file works like a plain file, and the run tag
comes from the table read. Files over :data:`DEFAULT_MAX_BYTES` (``--max-bytes``) and resample counts over
:data:`MAX_RESAMPLES` or :data:`MAX_RESAMPLE_CELLS` are refused before any file is read. File
names that are not UTF-8 are shown with ``\\xNN`` escapes.

Errors are :class:`CompareError` (bad input or usage, exit status 2) with one line that names
the file, and the line where the reader knows it; :mod:`rankbook.book.cli` turns them into
exit statuses.
"""

from __future__ import annotations

import errno
import os
import re
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import pandas as pd

from .. import conventions as _conv
from .. import preflight as _pf
from .. import stats as _stats
from .. import trec_format as _tf
from ..trec_format import display_name

#: Where a system's name comes from: the run file's name without its last suffix (and a
#: compression suffix: :func:`run_name`), or the run tag (sixth column of the file's first
#: line, as trec_eval reports it).
NAME_SOURCES = ("stem", "tag")
#: What to do with a query one run was scored on and another was not.
MISSING = ("error", "zero", "drop")
#: Measures compared when ``--measures`` is not given.
DEFAULT_MEASURES = "nDCG@10,AP"
#: Largest input file read without ``--max-bytes`` (bytes of text; a ``.gz`` file counts its
#: compressed size before reading and its text while reading). The command's peak memory is
#: at most about :data:`MEMORY_PER_BYTE` times the largest run: two 250 MB runs of 7 million
#: lines with integer document ids (MS MARCO's passages) take 0.38 GB
#: (``benchmarks/bench_compare_cli.py``), about 1.5 bytes per byte with the interpreter and
#: its libraries; text document ids (``msmarco_passage_123``) hold a Python string per
#: distinct id, about 4.5 bytes per byte (a run of 1 million such lines, measured).
DEFAULT_MAX_BYTES = 1 << 29
#: Peak memory of the command per byte of its largest run, as measured with text document ids
#: (the larger case; rounded up).
MEMORY_PER_BYTE = 5
#: Most bootstrap resamples and random sign flips ``--resamples`` takes.
MAX_RESAMPLES = 1_000_000
#: Most resampled means held at once: (systems + tests) x resamples, 8 bytes each (320 MB).
MAX_RESAMPLE_CELLS = 40_000_000


class CompareError(ValueError):
    """Bad input or usage: one line, exit status 2."""


@dataclass
class CompareResult:
    """What :func:`compare_runs` returns: the comparison and what the command tells the user."""

    comparison: _stats.Comparison
    table: pd.DataFrame  # comparison.table with the run file of each system
    notes: list = field(default_factory=list)  # queries skipped, scored 0 or dropped
    summary: str = ""  # what was scored, under which conventions, on how many queries
    #: every run's value per query and measure, as scored (``system, run_file, query_id,
    #: measure, value``): what ``--per-query FILE`` writes
    per_query: pd.DataFrame | None = None
    check: _pf.PreflightReport | None = None  # the pre-flight check of the inputs read


#: Findings of the pre-flight check that ``compare`` and ``reproduce`` report in their own
#: words already (a topic in one file only refuses or notes the run; an unreachable threshold
#: is a note): left out of the check's block they print.
OWN_FINDINGS = ("topics_only_in_qrels", "topics_only_in_run", "runs_differ_in_topics",
                "threshold_unreached")


def check_block(report: _pf.PreflightReport | None, command: str) -> list[str]:
    """The lines ``rankbook COMMAND`` prints before its report: each problem and warning of the
    pre-flight check (:mod:`rankbook.preflight`) it does not already report itself."""
    if report is None:
        return []
    return [f"rankbook {command}: check: {f.severity}: {f.subject}: {f.message}"
            for f in report.findings
            if f.severity in ("problem", "warning") and f.code not in OWN_FINDINGS]


def split_measures(text: str) -> list[str]:
    """Split ``"nDCG@10,P(rel=2)@5,AP"`` at the commas outside parentheses.

    Examples
    --------
    >>> split_measures("nDCG(dcg='exp-log2',rel=2)@10, AP")
    ["nDCG(dcg='exp-log2',rel=2)@10", 'AP']
    """
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur).strip())
    if any(not p for p in parts):
        raise CompareError(f"--measures {text!r} has an empty name; separate names with single "
                           "commas, e.g. nDCG@10,AP")
    return parts


def measure_refusal(text: str, conv) -> str | None:
    """Why the profile ``conv`` refuses the measure ``text`` (None: it takes it), the one
    wording of ``rankbook compare``, ``check`` and ``eval``: :func:`rankbook.conventions.
    parse_measure`'s message, and ``--convention chooses another tool`` when another profile
    computes the measure.

    Examples
    --------
    >>> measure_refusal("RR@10", "ir_measures") is None
    True
    >>> measure_refusal("RR@10", "trec_eval").endswith("; --convention chooses another tool")
    True
    """
    try:
        _conv.parse_measure(text, conv)
        return None
    except ValueError as exc:
        message = str(exc)
    for other in _conv.CONVENTIONS:
        try:
            _conv.parse_measure(text, other)
        except ValueError:
            continue
        return f"{message}; --convention chooses another tool"
    return message


#: Compressed files are named without their compression suffix (``bm25.run.gz`` is bm25).
_COMPRESSED = (".gz", ".bz2", ".xz")


def run_name(path, i: int) -> str:
    """A system's name from its run file: the file name without its suffix, a compression
    suffix first (``bm25.run.gz`` -> ``bm25``); a pipe or process substitution
    (``<(zcat bm25.run.gz)``, read as ``/dev/fd/63``) has no name of its own and is ``run``
    and its position, from 1.

    >>> run_name("runs/bm25.run.gz", 0), run_name("/dev/fd/63", 1), run_name("-", 2)
    ('bm25', 'run2', 'run3')
    """
    text = str(path)
    p = Path(text)
    if text == "-" or p.parent.as_posix() in ("/dev/fd", "/proc/self/fd", "/dev") \
            or text.startswith("/proc/") and "/fd/" in text:
        return f"run{i + 1}"
    if p.suffix.lower() in _COMPRESSED:
        p = p.with_suffix("")
    return display_name(p.stem)


def unique_names(names: Sequence[str]) -> list[str]:
    """Make names unique by appending ``-2``, ``-3``, ... to the second and later copies.

    Examples
    --------
    >>> unique_names(["bm25", "dense", "bm25", "bm25-2"])
    ['bm25', 'dense', 'bm25-3', 'bm25-2']
    """
    taken = set(names)
    seen: set[str] = set()
    out = []
    for name in names:
        if name in seen:
            i = 2
            while f"{name}-{i}" in taken:
                i += 1
            new = f"{name}-{i}"
            taken.add(new)
            name = new
        seen.add(name)
        out.append(name)
    return out


def _preview(ids, limit=3) -> str:
    ids = list(ids)
    shown = ", ".join(repr(x) for x in ids[:limit])
    return shown + (f", ... ({len(ids)} in all)" if len(ids) > limit else "")


def _natural(ids) -> list[str]:
    ids = [str(x) for x in ids]
    if all(re.fullmatch(r"-?[0-9]+", s) for s in ids):
        return sorted(ids, key=int)
    return sorted(ids)


def check_outputs(paths: dict[str, str | None], inputs: Sequence[str], force: bool) -> None:
    """Refuse, before any work, an output that exists (without ``force``), that names an input
    file, that two options share, or whose folder does not exist."""
    given = {opt: Path(p) for opt, p in paths.items() if p}
    resolved = {opt: p.resolve() for opt, p in given.items()}
    ins = {Path(p).resolve(): p for p in inputs}
    opts = list(given)
    for i, a in enumerate(opts):
        for b in opts[i + 1:]:
            if resolved[a] == resolved[b]:
                raise CompareError(f"{a} and {b} name the same file {display_name(given[a])!r}; "
                                   "give each output its own file")
    for opt, p in given.items():
        if resolved[opt] in ins:
            raise CompareError(f"{opt} {display_name(p)!r} is one of the input files; writing "
                               "there would destroy it, give another file")
        if p.is_dir():
            raise CompareError(f"{opt} {display_name(p)!r} is a folder; give a file name")
        if not p.parent.is_dir():
            raise CompareError(f"{opt} {display_name(p)!r}: the folder "
                               f"{display_name(p.parent)!r} does not exist")
        if p.exists() and not force:
            raise CompareError(f"{opt} {display_name(p)!r} exists; pass --force to replace it, "
                               "or give another file")
        _check_writable(opt, p)


def _check_writable(opt: str, p: Path) -> None:
    """Create and remove a temporary file beside ``p``: the way the output will be written, so
    a read-only folder (or mount, or ACL) is found before any work."""
    try:
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    except OSError as exc:
        raise CompareError(f"{opt} {display_name(p)!r}: cannot write in the folder "
                           f"{display_name(p.parent)!r} ({exc.strerror or exc}); give a file "
                           "in a folder you can write") from None
    os.close(fd)
    os.unlink(tmp)


def file_mode() -> int:
    """The mode a new file gets from ``open`` under the current umask (``0o644`` under the
    usual ``022``): temporary files are created ``0o600``, and an output renamed into place
    must not keep that."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(path, text: str, written: list | None = None) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it into place: a reader
    sees the old file or the new one, never half of one; on any error the old file stays. The
    file gets the mode of any new file (:func:`file_mode`), not the temporary file's 0o600.

    ``written``: a list that receives ``path`` in the same step as the rename (no signal can
    fall between the two: :func:`rankbook.book.interrupts.deferred`), so that a command
    interrupted at any moment names exactly the outputs that are in place."""
    from .interrupts import checkpoint, deferred

    given, path = str(path), Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            os.fchmod(fh.fileno(), file_mode())
        checkpoint("before-rename")
        with deferred():
            os.replace(tmp, path)
            if written is not None:
                written.append(given)
            checkpoint("renamed")  # a signal here is raised once the rename is recorded
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _be(n: int, one: str = "is", more: str = "are") -> str:
    """The verb agreeing with a count: ``is``/``are`` (or ``one``/``more``)."""
    return one if n == 1 else more


def _queries(n: int, adjective: str = "") -> str:
    """``1 judged query``, ``3 judged queries``."""
    return f"{n} {adjective}{'query' if n == 1 else 'queries'}"


def check_limits(qrels_path, run_paths: Sequence, *, max_bytes: int | None, resamples: int, n_systems: int,
                 all_pairs: bool, confidence: float = 0.95) -> None:
    """Refuse, before any file is read, a resample count over :data:`MAX_RESAMPLES` or one that
    would hold more than :data:`MAX_RESAMPLE_CELLS` resampled means, and an input file larger
    than ``max_bytes`` (a pipe is counted while it is read).

    Examples
    --------
    >>> check_limits("q.txt", ["a.run", "b.run"], max_bytes=None, resamples=2_000_000,
    ...              n_systems=2, all_pairs=False)
    Traceback (most recent call last):
    ...
    rankbook.book.compare_cmd.CompareError: --resamples 2,000,000 is over the limit of 1,000,000; the default 10,000 resolves p-values down to 1/10,001
    """
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise CompareError(f"--resamples must be a positive whole number, got {resamples!r}")
    if isinstance(confidence, (int, float)) and 0 < confidence < 1:
        need = _stats.min_resamples(confidence, test=True)
        if resamples < need:
            raise CompareError(
                f"--resamples {resamples} is too few: a {confidence:.10g} interval needs a resample "
                f"in each tail and a randomization test's p-value is at least 1/(resamples + 1); "
                f"use at least {need}")
    if resamples > MAX_RESAMPLES:
        raise CompareError(f"--resamples {resamples:,} is over the limit of {MAX_RESAMPLES:,}; "
                           "the default 10,000 resolves p-values down to 1/10,001")
    tests = n_systems * (n_systems - 1) // 2 if all_pairs else n_systems - 1
    cells = (n_systems + tests) * resamples
    if cells > MAX_RESAMPLE_CELLS:
        most = MAX_RESAMPLE_CELLS // (n_systems + tests)
        raise CompareError(
            f"--resamples {resamples:,} with {n_systems} systems and {tests:,} tests would hold "
            f"{cells:,} resampled means ({cells * 8 / 2**30:.1f} GiB), over the limit of "
            f"{MAX_RESAMPLE_CELLS:,}; use --resamples {most:,} or fewer"
            + ("" if not all_pairs else ", or a --baseline instead of --all-pairs"))
    if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, int)
                                  or max_bytes < 1):
        raise CompareError(f"--max-bytes must be a positive whole number, got {max_bytes!r}")
    try:  # the checks of the one reader: missing, folders, sizes, a pipe or - given twice
        _tf.check_sources([qrels_path, *run_paths], max_bytes=max_bytes,
                          what=["qrels"] + ["run"] * len(run_paths))
    except _tf.InputTooLarge as exc:
        raise CompareError(f"{exc}; --max-bytes raises it (the command needs about "
                           f"{MEMORY_PER_BYTE} bytes of memory per byte of its largest run)"
                           ) from None
    except ValueError as exc:
        raise CompareError(str(exc)) from None


def _read(path, what, max_bytes, notes, order="score") -> _tf.TrecTable:
    """One input read once by the one reader of every command
    (:func:`rankbook.trec_format.read_table`), its notes kept, every refusal a
    :class:`CompareError` naming ``file:line``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", _tf.InputNote)
        try:
            table = _tf.read_table(path, what, max_bytes=max_bytes, order=order)
        except _tf.InputTooLarge as exc:
            raise CompareError(f"{exc}; --max-bytes raises it") from None
        except ValueError as exc:  # path:line: problem, from the reader
            raise CompareError(str(exc)) from None
    notes.extend(str(w.message) for w in caught if issubclass(w.category, UserWarning))
    if not len(table):
        raise CompareError(f"{table.name}: holds no {what} lines (only blank lines or # "
                           "comments)")
    return table


def compare_runs(qrels_path, run_paths: Sequence[str], measures: str | Sequence[str], *,
                 convention: str = "trec_eval", names: str = "stem",
                 baseline: str | None = None, all_pairs: bool = False,
                 test: str = "randomization", correction: str = "holm", alpha: float = 0.05,
                 confidence: float = 0.95, resamples: int = 10000, seed: int = 0,
                 missing: str = "error", max_bytes: int | None = DEFAULT_MAX_BYTES,
                 order: str = "score", delta: float | None = None,
                 power: float = 0.8, tie_range: bool = False) -> CompareResult:
    """Score TREC runs against a qrels file and compare them (what ``rankbook compare`` does).

    Parameters
    ----------
    qrels_path, run_paths : path
        A TREC qrels file and at least two TREC run files: paths, pipes (``/dev/fd/N``) or
        ``.gz`` files, each read once.
    measures : str or list of str
        ir_measures names, as a list or one comma-separated string.
    convention : str
        A profile of :data:`rankbook.conventions.CONVENTIONS`: ``trec_eval`` is trec_eval
        10.0, ``trec_eval_9`` trec_eval 9.0.8.
    names : {"stem", "tag"}
        System names from the file names or from the run tags (sixth column of the first line,
        as trec_eval reports it), made unique with ``-2``, ...; ``"tag"`` refuses a run whose
        lines carry more than one tag.
    baseline : str, optional
        A system name (or a run path as given); default the first run. ``all_pairs=True``
        tests every pair instead.
    test, correction, alpha, confidence, resamples, seed
        As in :func:`rankbook.stats.compare`; ``resamples`` at most :data:`MAX_RESAMPLES`, and
        (systems + tests) x resamples at most :data:`MAX_RESAMPLE_CELLS`.
    missing : {"error", "zero", "drop"}
        A query that some runs were scored on and this one was not. Under a profile that
        refuses a judged query the run lacks (trec_eval 10.0 without ``-c``, ranx), ``"zero"``
        applies the peer's own option (``trec_eval -c``, ranx's ``make_comparable=True``) and
        ``"drop"`` scores each run on the judged queries it has.
    max_bytes : int or None
        Largest input, in bytes (:data:`DEFAULT_MAX_BYTES`); ``None``: no limit.
    order : {"score", "rank"}
        ``"rank"``: every run is an explicit order, read from the rank column (the fourth) and
        scored as given, with no tie rule (:func:`rankbook.conventions.evaluate_run`).
    delta, power : float, optional
        Topic set sizes (``--topic-set-size DELTA``, ``--power``): the topics that would
        detect a difference ``delta`` with probability ``power`` (``comparison.sizes``,
        :func:`rankbook.stats.compare`).
    tie_range : bool
        ``--tie-range``: the lowest, highest and expected mean of each system and measure over
        the orders of tied documents (``evaluate_run(..., ties="range")``), on the queries
        compared: the columns ``tie_low``, ``tie_high`` and ``tie_expected`` of the table.

    Returns
    -------
    CompareResult

    Raises
    ------
    CompareError
        Malformed files (``path:line: problem``), an unknown measure or one the convention
        does not offer (the message lists the valid names), fewer than two runs, a run without
        any judged query, runs scored on different queries with ``missing="error"``, a file
        over ``max_bytes``, too many resamples.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q.txt").write_text("1 0 a 1\\n1 0 b 0\\n2 0 c 1\\n2 0 d 0\\n")
    >>> _ = (d / "good.txt").write_text("1 Q0 a 1 2 g\\n1 Q0 b 2 1 g\\n2 Q0 c 1 2 g\\n2 Q0 d 2 1 g\\n")
    >>> _ = (d / "bad.txt").write_text("1 Q0 b 1 2 x\\n1 Q0 a 2 1 x\\n2 Q0 d 1 2 x\\n2 Q0 c 2 1 x\\n")
    >>> res = compare_runs(d / "q.txt", [d / "good.txt", d / "bad.txt"], "AP", resamples=100)
    >>> res.table[["system", "measure", "mean", "diff"]]
      system measure  mean  diff
    0   good      AP   1.0   NaN
    1    bad      AP   0.5  -0.5
    """
    if missing not in MISSING:
        raise CompareError(f"--missing must be one of {', '.join(MISSING)}; got {missing!r}")
    if order not in _conv.ORDERS:
        raise CompareError(f"--order must be one of {', '.join(_conv.ORDERS)}; got {order!r}")
    if names not in NAME_SOURCES:
        raise CompareError(f"--names must be one of {', '.join(NAME_SOURCES)}; got {names!r}")
    if convention not in _conv.CONVENTIONS:
        raise CompareError(f"--convention {convention!r} is not one of "
                           f"{', '.join(_conv.CONVENTIONS)}")
    if _stats._TEST_ALIASES.get(test, test) not in _stats.TESTS:
        raise CompareError(f"--test {test!r} is not one of {_stats.TESTS_TEXT}")
    if correction not in _stats.COMPARE_CORRECTIONS:
        raise CompareError(f"--correction {correction!r} is not one of "
                           f"{', '.join(_stats.COMPARE_CORRECTIONS)}")
    if delta is not None and (isinstance(delta, bool) or not isinstance(delta, (int, float))
                              or not 0 < delta < float("inf")):
        raise CompareError(f"--topic-set-size must be a positive difference, e.g. 0.05; got "
                           f"{delta!r}")
    if isinstance(power, bool) or not isinstance(power, (int, float)) or not 0 < power < 1:
        raise CompareError(f"--power must be a number strictly between 0 and 1, e.g. 0.8; got "
                           f"{power!r}")
    for opt, value in (("--alpha", alpha), ("--confidence", confidence)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            raise CompareError(f"{opt} must be a number strictly between 0 and 1, got {value!r}")
    run_paths = [p if isinstance(p, str) else os.fsdecode(p) for p in run_paths]
    qrels_path = qrels_path if isinstance(qrels_path, str) else os.fsdecode(qrels_path)
    shown = [_tf._source_name(p) for p in run_paths]  # as the reader names them: <stdin>
    qrels_shown = _tf._source_name(qrels_path)
    if len(run_paths) < 2:
        raise CompareError(f"compare needs at least two run files, got {len(run_paths)}: "
                           f"{', '.join(shown) or '(none)'}")
    conv = _conv.profile(convention)
    # trec_eval 10.0 stops on a judged query a run lacks: the comparison below names every such
    # query (of each run, and those of no run) before anything is compared
    strict = conv.qrels_only == "error" and conv.name.startswith("trec_eval")
    applied = ""
    if strict and missing == "error":
        conv = _conv.profile(conv, qrels_only="skip")
    elif missing != "error":  # the user said what a missing query is: the peer's own option
        if conv.qrels_only == "error" and missing == "zero":
            option = next(iter(_conv.PEER_OPTIONS.get(conv.name, {})), None)
            conv = (_conv.profile(conv, **{option: True}) if option
                    else _conv.profile(conv, qrels_only="zero"))
            applied = (f"--missing zero: a judged query a run lacks scores 0, with {conv.name}'s "
                       f"own option {_conv.PEER_OPTIONS[conv.name][option][0] if option else ''}")
        elif conv.qrels_only == "error":
            conv = _conv.profile(conv, qrels_only="skip")
            applied = ("--missing drop: each run is scored on the judged queries it has, then "
                       "compared on the queries every run has")
    wanted = split_measures(measures) if isinstance(measures, str) else list(measures)
    for m in wanted:  # before reading any file: an unknown measure lists the valid names
        refusal = measure_refusal(m, conv)
        if refusal:
            raise CompareError(refusal)
    if len(set(wanted)) != len(wanted):
        dup = next(m for m in wanted if wanted.count(m) > 1)
        raise CompareError(f"measure {dup!r} is listed twice in --measures")
    if all_pairs and baseline is not None:
        raise CompareError("give --baseline or --all-pairs, not both")
    check_limits(qrels_path, run_paths, max_bytes=max_bytes, resamples=resamples,
                 n_systems=len(run_paths), all_pairs=all_pairs, confidence=confidence)

    # names from the file names are known now: a bad --baseline is refused before any reading
    stems = [run_name(p, i) or s for i, (p, s) in enumerate(zip(run_paths, shown))]
    if names == "stem":
        _baseline_index(baseline, unique_names(stems), run_paths, shown, names)

    try:
        return _score_and_compare(qrels_path, qrels_shown, run_paths, shown, stems, wanted,
                                  conv, names, baseline, all_pairs, test, correction, alpha,
                                  confidence, resamples, seed, missing, max_bytes, order,
                                  strict, applied, delta=delta, power=power,
                                  tie_range=tie_range)
    except MemoryError:
        raise OSError(errno.ENOMEM, "out of memory while reading or scoring the runs; the "
                      f"command needs about {MEMORY_PER_BYTE} bytes of memory per byte of its "
                      "largest run (--max-bytes bounds the size it accepts)") from None


def _score_and_compare(qrels_path, qrels_shown, run_paths, shown, stems, wanted, conv, names,
                       baseline, all_pairs, test, correction, alpha, confidence, resamples,
                       seed, missing, max_bytes, order="score", strict=False,
                       applied="", delta=None, power=0.8, tie_range=False) -> CompareResult:
    notes: list[str] = [applied] if applied else []
    first_of: dict[str, tuple[int, str]] = {}
    for i, (path, name) in enumerate(zip(run_paths, shown), start=1):  # a file given twice
        real = (os.path.realpath(path) if isinstance(path, (str, os.PathLike))
                and os.path.isfile(path) else None)
        if real is not None and real in first_of:
            j, first = first_of[real]
            same = f"{name} is given twice" if name == first else f"{name} is the same file as {first}"
            notes.append(f"{same} (runs {j} and {i}): the same system is compared with itself")
        elif real is not None:
            first_of[real] = (i, name)
    qrels = _read(qrels_path, "qrels", max_bytes, notes)
    check = _pf.Preflight(qrels, wanted, convention=conv, qrels_name=qrels_shown,
                          tie_ranges=False)  # --tie-range scores the ranges, once
    judged = set(qrels.qnames)
    top = float(qrels.values.max()) if len(qrels) else 0.0
    for m in wanted:  # a threshold no judgement reaches: every system scores 0, said once
        level = _conv.parse_measure(m, conv).rel
        if top < level:
            notes.append(f"{m}: no document in {qrels_shown} has relevance {level} or more (the "
                         f"highest is {top:g}), so every system scores 0 on it")
    tables, scored_queries, labels, ranges = [], [], [], []
    for path, name, stem in zip(run_paths, shown, stems):
        run = _read(path, "run", max_bytes, notes, order)
        if names == "tag" and run.other_tag is not None:
            raise CompareError(
                f"{name}: its lines carry more than one run tag ({run.tag!r} on its first line, "
                f"{run.other_tag!r} later), so --names tag cannot name it; give each system its "
                "own file with one tag, or name the runs by file (--names stem)")
        labels.append(run.tag if names == "tag" and run.tag else stem)
        check.add_run(run, labels[-1])
        in_run = set(run.qnames)
        if not (in_run & judged) and conv.run_only != "unjudged":
            raise CompareError(
                f"{name}: none of its {len(in_run)} queries ({_preview(_natural(in_run))}) is "
                f"judged in {qrels_shown} ({_preview(_natural(judged))}); query ids are compared "
                "as text")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", _tf.InputNote)
            try:
                res = _conv.evaluate_run(qrels, run, wanted, convention=conv,
                                         order="rank" if order == "rank" else None,
                                         ties="range" if tie_range else None)
            except ValueError as exc:
                hint = ""
                if "absent from the run" in str(exc) or "has no judgements" in str(exc):
                    hint = ("; --missing zero scores it 0 (" + (
                        "trec_eval -c" if conv.name.startswith("trec_eval")
                        else "make_comparable=True") + "), --missing drop leaves it out")
                raise CompareError(f"{name} scored against {qrels_shown}: {exc}{hint}") from None
        notes.extend(f"{name}: {w.message}" for w in caught if issubclass(w.category, UserWarning)
                     and not str(w.message).startswith("no query of the run"))
        del run
        _tf.release_memory()  # the run's columns and the scorer's blocks: before the next run
        unjudged = len(in_run - judged)
        if unjudged and conv.run_only == "skip":
            notes.append(f"{name}: {unjudged} of its {len(in_run)} queries {_be(unjudged, 'has', 'have')} "
                         f"no judgements in {qrels_shown} and {_be(unjudged)} skipped, as {conv.name} does")
        pq = res.per_query
        scored_queries.append(list(pd.unique(pq["query_id"])))
        tables.append(pq)
        if tie_range:
            ranges.append(pq[["query_id", "measure", "low", "high", "expected"]])
    systems = unique_names(labels)
    b = _baseline_index(baseline, systems, run_paths, shown, names)
    if not all_pairs:
        baseline = systems[b]
    scored = {s: (name, q) for s, name, q in zip(systems, shown, scored_queries)}
    tables = [pq.assign(system=s) for pq, s in zip(tables, systems)]

    union = set().union(*(set(q) for _, q in scored.values()))
    short = {s: union - set(q) for s, (_, q) in scored.items() if len(set(q)) < len(union)}
    if short:
        system, lacking = next(iter(short.items()))
        path = scored[system][0]
        rule = {"skip": (f"{conv.name} (trec_eval 10.0) stops on a judged query a run does "
                         "not answer" if strict else
                         f"{conv.name} skips a judged query a run does not answer"),
                "zero": f"{conv.name} scores such a query 0",
                "error": f"{conv.name} refuses it"}[conv.qrels_only]
        if missing == "error":
            raise CompareError(
                f"{path}: no score for {len(lacking)} of the {len(union)} queries other runs are "
                f"scored on ({_preview(_natural(lacking))}); {rule}, so the runs would be "
                "compared on different queries. Pass --missing zero (score them 0, as "
                "trec_eval -c does) or --missing drop (compare on the queries every run has)")
        common = set.intersection(*(set(q) for _, q in scored.values()))
        for s, lack in short.items():
            what = "scored 0" if missing == "zero" else "dropped from the comparison"
            notes.append(f"{scored[s][0]}: {len(lack)} of the {len(union)} queries "
                         f"{_be(len(lack), 'has', 'have')} no score ({_preview(_natural(lack))}), "
                         f"{what} (--missing {missing})")
        if missing == "drop" and len(common) < 2:
            raise CompareError(f"only {_queries(len(common))} {_be(len(common))} scored for every "
                               "run; a paired comparison needs at least 2")
    not_run = judged - union
    if not_run and strict and missing == "error":
        raise CompareError(
            f"{_queries(len(not_run), 'judged ')} of {qrels_shown} {_be(len(not_run))} in none of the runs "
            f"({_preview(_natural(not_run))}); {conv.name} (trec_eval 10.0) stops on them "
            "without -c. Pass --missing zero (score them 0, as trec_eval -c does), --missing "
            "drop (leave them out) or --convention trec_eval_9 (skip them, as trec_eval 9 does)")
    if not_run and conv.qrels_only == "skip":
        notes.append(f"{_queries(len(not_run), 'judged ')} of {qrels_shown} {_be(len(not_run))} in none "
                     f"of the runs ({_preview(_natural(not_run))}); "
                     f"{'it is' if len(not_run) == 1 else 'they are'} skipped, as {conv.name} does")

    per_query = pd.concat(tables, ignore_index=True)[["system", "query_id", "measure", "value"]]
    if tie_range:
        kept = (set.intersection(*(set(q) for _, q in scored.values())) if missing == "drop"
                else union)
        ranges = [r.assign(system=s) for r, s in zip(ranges, systems)]
    try:
        comparison = _stats.compare(
            per_query, baseline=None if all_pairs else baseline, measures=wanted, test=test,
            correction=correction, alpha=alpha, confidence=confidence, n_resamples=resamples,
            seed=seed, missing=missing, delta=delta, power=power)
    except ValueError as exc:
        raise CompareError(str(exc)) from None
    comparison.settings["convention"] = conv.name
    table = comparison.table.copy()
    files = {s: p for s, (p, _) in scored.items()}
    table.insert(1, "run_file", table["system"].map(files))
    if tie_range:
        table = table.join(_tie_means(ranges, kept), on=["system", "measure"])
    n_queries = sorted(set(table["n_queries"]))
    as_given = (", each run an explicit order (its rank column, no tie rule)"
                if order == "rank" else "")
    summary = (f"{len(run_paths)} runs scored against {qrels_shown} under {conv.name}'s "
               f"conventions{as_given}, compared on {' or '.join(map(str, n_queries))} queries")
    comparison.settings["order"] = order
    scored_table = per_query.copy()
    scored_table.insert(1, "run_file", scored_table["system"].map(files))
    return CompareResult(comparison=comparison, table=table, notes=notes, summary=summary,
                         check=check.report(), per_query=scored_table)


def _tie_means(ranges: list, queries: set) -> pd.DataFrame:
    """Mean ``low``, ``high`` and ``expected`` per system and measure over ``queries`` (a query
    a run lacks scores 0 there, as ``--missing zero`` makes it), indexed by (system, measure),
    columns ``tie_low``, ``tie_high``, ``tie_expected``."""
    out = []
    for r in ranges:
        r = r[r["query_id"].isin(queries)]
        sums = r.groupby(["system", "measure"], sort=False)[["low", "high", "expected"]].sum()
        out.append(sums / max(len(queries), 1))
    return pd.concat(out).rename(columns=lambda c: f"tie_{c}")


def tie_statement(table: pd.DataFrame, decimals: int = 4) -> str:
    """One line per measure: each system's mean as scored and the range the orders of its
    tied documents allow (``--tie-range``)."""
    if "tie_low" not in table.columns:
        return ""
    f = f"{{:.{decimals}f}}".format
    out = []
    for m, g in table.groupby("measure", sort=False):
        parts = [f"{r.system} {f(r.mean)} in [{f(r.tie_low)}, {f(r.tie_high)}], expected "
                 f"{f(r.tie_expected)}" for r in g.itertuples()]
        moved = [r.system for r in g.itertuples() if r.tie_high - r.tie_low > 0]
        tail = (f"; the tie order can move {', '.join(moved)}" if moved else
                "; no tie order moves any system")
        out.append(f"{m}: mean as scored, and its lowest and highest over the orders of tied "
                   f"documents: {'; '.join(parts)}{tail}")
    return "\n".join(out)


def _baseline_index(baseline, systems, run_paths, shown, names) -> int:
    """Index of the baseline among the systems (a system name, or a run path as given)."""
    if baseline is None:
        return 0
    if baseline in systems:
        return systems.index(baseline)
    for paths in (run_paths, shown):
        if baseline in paths:
            return paths.index(baseline)
    raise CompareError(f"--baseline {display_name(baseline)!r} is not one of the systems: "
                       f"{', '.join(systems)} (names from --names {names})")


def table_csv(table: pd.DataFrame) -> str:
    """The comparison table as CSV text (full precision, yes/no left as True/False; a text
    cell that a spreadsheet would run as a formula is quoted: :mod:`rankbook.book.csvsafe`)."""
    from .csvsafe import csv_text

    return csv_text(table)
