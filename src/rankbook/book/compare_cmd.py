"""``rankbook compare``: TREC runs scored against qrels and compared with paired tests.

The command reads a qrels file and two or more run files with the TREC readers
(:func:`rankbook.ir.read_qrels`, :func:`rankbook.ir.read_run`), scores every run with
:func:`rankbook.ir.evaluate_run` under one tool's conventions, stacks the per-query tables with
a ``system`` column and hands them to :func:`rankbook.stats.compare`. It prints the report
(laid out like ranx's) and writes the table as CSV, and optionally as LaTeX.

Which queries a run is scored on is the convention's decision (trec_eval skips a judged query
the run does not answer; ir_measures scores it 0; ranx refuses the run). A paired comparison
then needs every run scored on the same queries: when the convention leaves them scored on
different queries, the command stops and says which run lacks which query, unless
``--missing zero`` (score 0, as ``trec_eval -c`` does) or ``--missing drop`` (compare on the
queries every run has) says what to do.

Errors are :class:`CompareError` (bad input or usage, exit status 2) with one line that names
the file, and the line where the reader knows it; :mod:`rankbook.book.cli` turns them into
exit statuses.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import pandas as pd

from .. import conventions as _conv
from .. import stats as _stats

#: Where a system's name comes from: the run file's name without its last suffix, or the run
#: tag (sixth column of the file's first line, as trec_eval reports it).
NAME_SOURCES = ("stem", "tag")
#: What to do with a query one run was scored on and another was not.
MISSING = ("error", "zero", "drop")
#: Measures compared when ``--measures`` is not given.
DEFAULT_MEASURES = "nDCG@10,AP"


class CompareError(ValueError):
    """Bad input or usage: one line, exit status 2."""


@dataclass
class CompareResult:
    """What :func:`compare_runs` returns: the comparison and what the command tells the user."""

    comparison: _stats.Comparison
    table: pd.DataFrame  # comparison.table with the run file of each system
    notes: list = field(default_factory=list)  # queries skipped, scored 0 or dropped
    summary: str = ""  # what was scored, under which conventions, on how many queries


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


def run_tag(path) -> str | None:
    """The tag (sixth column) of the first data line of a TREC run file, as trec_eval reports
    it; ``None`` for a file without data lines."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = line.split()
            return fields[5] if len(fields) >= 6 else None
    return None


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
                raise CompareError(f"{a} and {b} name the same file {str(given[a])!r}; give "
                                   "each output its own file")
    for opt, p in given.items():
        if resolved[opt] in ins:
            raise CompareError(f"{opt} {str(p)!r} is one of the input files; writing there "
                               "would destroy it, give another file")
        if p.is_dir():
            raise CompareError(f"{opt} {str(p)!r} is a folder; give a file name")
        if not p.parent.is_dir():
            raise CompareError(f"{opt} {str(p)!r}: the folder {str(p.parent)!r} does not exist")
        if p.exists() and not force:
            raise CompareError(f"{opt} {str(p)!r} exists; pass --force to replace it, or give "
                               "another file")


def write_atomic(path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it into place: a reader
    sees the old file or the new one, never half of one; on any error the old file stays."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _read(reader, path, what):
    try:
        df = reader(path)
    except IsADirectoryError:
        raise CompareError(f"{path}: is a folder, not a {what} file") from None
    except PermissionError:
        raise CompareError(f"{path}: cannot be read (permission denied)") from None
    except ValueError as exc:  # path:line: problem, from the reader
        raise CompareError(str(exc)) from None
    if df.empty:
        raise CompareError(f"{path}: holds no {what} lines (only blank lines or # comments)")
    return df


def compare_runs(qrels_path, run_paths: Sequence[str], measures: str | Sequence[str], *,
                 convention: str = "trec_eval", names: str = "stem",
                 baseline: str | None = None, all_pairs: bool = False,
                 test: str = "randomization", correction: str = "holm", alpha: float = 0.05,
                 confidence: float = 0.95, resamples: int = 10000, seed: int = 0,
                 missing: str = "error") -> CompareResult:
    """Score TREC runs against a qrels file and compare them (what ``rankbook compare`` does).

    Parameters
    ----------
    qrels_path, run_paths : path
        A TREC qrels file and at least two TREC run files.
    measures : str or list of str
        ir_measures names, as a list or one comma-separated string.
    convention : str
        A profile of :data:`rankbook.conventions.CONVENTIONS`.
    names : {"stem", "tag"}
        System names from the file names or from the run tags, made unique with ``-2``, ...
    baseline : str, optional
        A system name (or a run path as given); default the first run. ``all_pairs=True``
        tests every pair instead.
    test, correction, alpha, confidence, resamples, seed
        As in :func:`rankbook.stats.compare`.
    missing : {"error", "zero", "drop"}
        A query that some runs were scored on and this one was not.

    Returns
    -------
    CompareResult

    Raises
    ------
    CompareError
        Malformed files (``path:line: problem``), an unknown measure or one the convention
        does not offer (the message lists the valid names), fewer than two runs, a run without
        any judged query, runs scored on different queries with ``missing="error"``.

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
    if names not in NAME_SOURCES:
        raise CompareError(f"--names must be one of {', '.join(NAME_SOURCES)}; got {names!r}")
    if convention not in _conv.CONVENTIONS:
        raise CompareError(f"--convention {convention!r} is not one of "
                           f"{', '.join(_conv.CONVENTIONS)}")
    if _stats._TEST_ALIASES.get(test, test) not in _stats.TESTS:
        raise CompareError(f"--test {test!r} is not one of {', '.join(_stats.TESTS)}")
    if correction not in _stats.CORRECTIONS:
        raise CompareError(f"--correction {correction!r} is not one of "
                           f"{', '.join(_stats.CORRECTIONS)}")
    run_paths = [str(p) for p in run_paths]
    if len(run_paths) < 2:
        raise CompareError(f"compare needs at least two run files, got {len(run_paths)}: "
                           f"{', '.join(run_paths) or '(none)'}")
    conv = _conv.profile(convention)
    wanted = split_measures(measures) if isinstance(measures, str) else list(measures)
    for m in wanted:  # before reading any file: an unknown measure lists the valid names
        try:
            _conv.parse_measure(m, conv)
        except ValueError as exc:
            hint = "; --convention chooses another tool" if "is not offered" in str(exc) else ""
            raise CompareError(f"{exc}{hint}") from None
    if len(set(wanted)) != len(wanted):
        dup = next(m for m in wanted if wanted.count(m) > 1)
        raise CompareError(f"measure {dup!r} is listed twice in --measures")

    # names first: cheap, and a bad --baseline is refused before the files are scored
    if names == "tag":
        labels = []
        for p in run_paths:
            try:
                tag = run_tag(p)
            except (OSError, UnicodeDecodeError):
                tag = None  # the reader below says what is wrong with the file
            labels.append(tag if tag else Path(p).stem)
    else:
        labels = [Path(p).stem or p for p in run_paths]
    systems = unique_names(labels)
    if all_pairs and baseline is not None:
        raise CompareError("give --baseline or --all-pairs, not both")
    if not all_pairs:
        if baseline is None:
            baseline = systems[0]
        elif baseline not in systems:
            if baseline in run_paths:
                baseline = systems[run_paths.index(baseline)]
            else:
                raise CompareError(f"--baseline {baseline!r} is not one of the systems: "
                                   f"{', '.join(systems)} (names from --names {names})")

    qrels = _read(_conv.read_qrels, str(qrels_path), "qrels")
    judged = set(qrels["query_id"].unique())
    notes = []
    tables, scored = [], {}
    for path, system in zip(run_paths, systems):
        run = _read(_conv.read_run, path, "run")
        try:
            res = _conv.evaluate_run(qrels, run, wanted, convention=conv)
        except ValueError as exc:
            raise CompareError(f"{path} scored against {qrels_path}: {exc}") from None
        in_run = set(run["query_id"].unique())
        if not (in_run & judged) and conv.run_only != "unjudged":
            raise CompareError(
                f"{path}: none of its {len(in_run)} queries ({_preview(_natural(in_run))}) is "
                f"judged in {qrels_path} ({_preview(_natural(judged))}); query ids are compared "
                "as text")
        unjudged = len(in_run - judged)
        if unjudged and conv.run_only == "skip":
            notes.append(f"{path}: {unjudged} of its {len(in_run)} queries have no judgements "
                         f"in {qrels_path} and are skipped, as {conv.name} does")
        pq = res.per_query
        scored[system] = (path, list(pd.unique(pq["query_id"])))
        tables.append(pq.assign(system=system))

    union = set().union(*(set(q) for _, q in scored.values()))
    short = {s: union - set(q) for s, (_, q) in scored.items() if len(set(q)) < len(union)}
    if short:
        system, lacking = next(iter(short.items()))
        path = scored[system][0]
        rule = {"skip": f"{conv.name} skips a judged query a run does not answer",
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
            notes.append(f"{scored[s][0]}: {len(lack)} of the {len(union)} queries have no "
                         f"score ({_preview(_natural(lack))}), {what} (--missing {missing})")
        if missing == "drop" and len(common) < 2:
            raise CompareError(f"only {len(common)} queries are scored for every run; a paired "
                               "comparison needs at least 2")
    not_run = judged - union
    if not_run and conv.qrels_only == "skip":
        notes.append(f"{len(not_run)} judged queries of {qrels_path} are in none of the runs "
                     f"({_preview(_natural(not_run))}); they are skipped, as {conv.name} does")

    per_query = pd.concat(tables, ignore_index=True)[["system", "query_id", "measure", "value"]]
    try:
        comparison = _stats.compare(
            per_query, baseline=None if all_pairs else baseline, measures=wanted, test=test,
            correction=correction, alpha=alpha, confidence=confidence, n_resamples=resamples,
            seed=seed, missing=missing)
    except ValueError as exc:
        raise CompareError(str(exc)) from None
    comparison.settings["convention"] = conv.name
    table = comparison.table.copy()
    files = {s: p for s, (p, _) in scored.items()}
    table.insert(1, "run_file", table["system"].map(files))
    n_queries = sorted(set(table["n_queries"]))
    summary = (f"{len(run_paths)} runs scored against {qrels_path} under {conv.name}'s "
               f"conventions, compared on {' or '.join(map(str, n_queries))} queries")
    return CompareResult(comparison=comparison, table=table, notes=notes, summary=summary)


def table_csv(table: pd.DataFrame) -> str:
    """The comparison table as CSV text (full precision, yes/no left as True/False)."""
    return table.to_csv(index=False, lineterminator="\n")
