"""``rankbook check QRELS RUN...``: the pre-flight check of :mod:`rankbook.preflight`.

Reads a qrels file and one or more run files (paths, ``.gz`` files or pipes, each read once)
and prints :func:`rankbook.preflight.check_inputs`'s report: a table of the runs (topics in one
file only, judged@k, documents ranked twice, tied scores), what each measure asked for
(``--measures``) reads from the relevance levels, and the findings. ``--json`` prints the same
report as JSON instead.

Exit status (documented in :mod:`rankbook.book.cli`): 0 when nothing found would change a
number (warnings and notes may be printed), 1 when some finding is a problem that would change
a number (a topic in one file only, a document listed twice, tied documents of different
relevance, a threshold no judgement reaches, levels the profile refuses), 2 for bad usage or an
input that cannot be read (one line naming ``file:line`` where the reader knows it).
"""

from __future__ import annotations

import json
import os
import stat
import warnings
from typing import Sequence

from .. import conventions as _conv
from .. import preflight as _pf
from .. import trec_format as _tf
from . import compare_cmd as _cc


class CheckError(ValueError):
    """Bad input or usage: one line, exit status 2."""


def parse_depths(text: str) -> tuple[int, ...]:
    """``"10,100,1000"`` as depths; anything else is a :class:`CheckError`.

    >>> parse_depths("5, 20")
    (5, 20)
    """
    try:
        out = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise CheckError(f"--depths {text!r}: give whole numbers >= 1 separated by commas, e.g. "
                         "10,100,1000") from None
    if not out or any(d < 1 for d in out):
        raise CheckError(f"--depths {text!r}: give whole numbers >= 1 separated by commas, e.g. "
                         "10,100,1000")
    return out


def check_runs(qrels_path, run_paths: Sequence[str], measures: str | None = None, *,
               convention: str = "trec_eval", depths: str | Sequence[int] = "10,100,1000",
               max_bytes: int | None = _cc.DEFAULT_MAX_BYTES) -> tuple[_pf.PreflightReport, list]:
    """What ``rankbook check`` does: the report and the reader's notes (a byte-order mark
    removed, ...). Bad usage or an unreadable input raises :class:`CheckError`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q.txt").write_text("1 0 a 1\\n1 0 b 0\\n2 0 c 1\\n")
    >>> _ = (d / "r.run").write_text("1 Q0 a 1 2 x\\n1 Q0 b 2 1 x\\n2 Q0 c 1 1 x\\n")
    >>> rep, notes = check_runs(d / "q.txt", [d / "r.run"], "AP")
    >>> rep.exit_status, rep.runs.loc[0, "run"]
    (0, 'r')
    """
    if convention not in _conv.CONVENTIONS:
        raise CheckError(f"--convention {convention!r} is not one of "
                         f"{', '.join(_conv.CONVENTIONS)}")
    conv = _conv.profile(convention)
    wanted = []
    if measures:
        try:
            wanted = _cc.split_measures(measures)
        except _cc.CompareError as exc:
            raise CheckError(str(exc)) from None
        for m in wanted:
            refusal = _cc.measure_refusal(m, conv)
            if refusal:
                raise CheckError(f"--measures: {refusal}")
    if isinstance(depths, str):
        depths = parse_depths(depths)
    if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, int)
                                  or max_bytes < 1):
        raise CheckError(f"--max-bytes must be a positive whole number, got {max_bytes!r}")
    run_paths = [p if isinstance(p, str) else os.fsdecode(p) for p in run_paths]
    qrels_path = qrels_path if isinstance(qrels_path, str) else os.fsdecode(qrels_path)
    if not run_paths:
        raise CheckError("check needs a qrels file and at least one run file")
    for p, what in [(qrels_path, "qrels"), *((r, "run") for r in run_paths)]:
        if _tf._is_stdin(p):  # '-': the reader takes standard input, as every command's
            continue
        try:
            st = os.stat(p)
        except FileNotFoundError:
            raise CheckError(f"{_tf.display_name(p)}: no such file") from None
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            raise CheckError(f"{_tf.display_name(p)}: is a folder, not a {what} file")
        if max_bytes is not None and stat.S_ISREG(st.st_mode) and st.st_size > max_bytes:
            raise CheckError(f"{_tf.display_name(p)}: {st.st_size:,} bytes, over the limit of "
                             f"{max_bytes:,}; --max-bytes raises it")
    names = _cc.unique_names([_cc.run_name(p, i) for i, p in enumerate(run_paths)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", _tf.InputNote)
        try:
            report = _pf.check_inputs(qrels_path, run_paths, wanted, convention=conv,
                                      depths=depths, names=names, max_bytes=max_bytes)
        except _tf.InputTooLarge as exc:
            raise CheckError(f"{exc}; --max-bytes raises it") from None
        except IsADirectoryError as exc:
            raise CheckError(f"{_tf.display_name(exc.filename)}: is a folder") from None
        except PermissionError as exc:
            raise CheckError(f"{_tf.display_name(exc.filename)}: cannot be read (permission "
                             "denied)") from None
        except ValueError as exc:
            raise CheckError(str(exc)) from None
    notes = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    report.qrels["name"] = _tf._source_name(qrels_path)
    return report, notes


def to_json(report: _pf.PreflightReport) -> str:
    """The report as JSON text (``nan`` as ``null``)."""
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"


def warnings_block(report: _pf.PreflightReport, command: str) -> list[str]:
    """The lines ``compare`` and ``reproduce`` print before their report: one per problem or
    warning of the check, prefixed ``rankbook COMMAND: check:``."""
    return [f"rankbook {command}: check: {f.severity}: {f.subject}: {f.message}"
            for f in report.findings if f.severity in ("problem", "warning")]
