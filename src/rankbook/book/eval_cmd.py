"""``rankbook eval QRELS RUN...``: trec_eval's interface on :func:`rankbook.conventions.evaluate_run`.

The command takes trec_eval's options where users know them: ``-m`` (repeatable; trec_eval's
names, with parameters after a dot as trec_eval takes them, ``-m P.5,10``; its nicknames
``official`` (the default), ``all_trec`` and ``set``; ir_measures' names, ``-m nDCG@10,AP``),
``-q`` (a line per query before the summary), ``-n`` (no summary), ``-c`` (a judged query the
run lacks scores 0 and counts in the mean), ``-M N`` (the first N documents of each ranking),
``-l N`` (the level a relevant document needs) and ``-J`` (only judged documents). It prints
trec_eval's three columns (the name left-aligned in 22 characters, a tab, the query or
``all``, a tab, the value with 4 decimals; counts as whole numbers, ``runid`` and ``relstring``
as text), in trec_eval's order: the queries in byte order of their ids, each query's measures
in the order of trec_eval's table of measures (a measure's cut-offs ascending), then the
summary; names trec_eval does not have (ir_measures') follow in the order given. ``--format
csv`` or ``json`` writes a table instead: ``run, runid, measure, query, value``.

Several runs are scored in one call against the same qrels, read once: in trec_eval's layout
each run's block is preceded by a line ``# run: FILE``; CSV and JSON carry the run in a column.
Every input is read once by :func:`rankbook.trec_format.read_table`, so a ``.gz`` file, a pipe
or ``-`` (standard input) works like a plain file. ``--convention`` scores under another
profile of :mod:`rankbook.conventions` (``trec_eval`` is trec_eval 10.0, the default;
``trec_eval_9`` is 9.0.8, pytrec_eval's code).

Errors are :class:`EvalError` (bad input or usage, exit status 2), one line naming the file
and line where the reader knows them.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import warnings
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from .. import conventions as _conv
from .. import trec_format as _tf
from ..trec_format import display_name
from .compare_cmd import (DEFAULT_MAX_BYTES, CompareError, _read, check_outputs,  # noqa: F401
                          measure_refusal, run_name, split_measures, unique_names, write_atomic)

#: Output layouts: trec_eval's three columns, CSV or JSON records.
FORMATS = ("trec", "csv", "json")

#: trec_eval's nicknames (measures.c: off_names, trec_names, set_names).
NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP",
                 "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel",
                 "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
                 "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid",
                 "unj"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
}

#: trec_eval's families that take a list of cut-offs or levels (``-m P.5,10``) and their
#: defaults; the printed name is the family, an underscore and the value (levels with 2
#: decimals).
CUTOFF_FAMILIES = {
    "P": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "recall": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "ndcg_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "map_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "relative_P": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "success": (1, 5, 10),
    "unj": (5, 10, 20),
    "iprec_at_recall": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    "Rprec_mult": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
}
_LEVEL_FAMILIES = ("iprec_at_recall", "Rprec_mult")

#: trec_eval's order of measures (measures.c: te_trec_measures), by the family of the name.
TABLE_ORDER = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
               "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP",
               "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel",
               "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
               "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid",
               "unj")
#: Printed only in the summary (runid, num_q, the geometric means) or only per query.
SUMMARY_ONLY = frozenset({"runid", "num_q", "gm_map", "gm_bpref"})
QUERY_ONLY = frozenset({"relstring"})
#: Families printed as whole numbers (trec_eval's %ld).
COUNTS = frozenset({"NumRet", "NumRel", "NumRelRet", "NumQ", "num_nonrel_judged_ret"})


class EvalError(CompareError):
    """Bad input or usage: one line, exit status 2."""


@dataclass
class RunScores:
    """One run's values: ``table`` (``measure, query, value``; text for runid and relstring)."""

    name: str
    path: str
    runid: str
    table: pd.DataFrame


@dataclass
class EvalResult:
    runs: list
    measures: list  # names in output order
    notes: list = field(default_factory=list)


def _fmt_level(x: float) -> str:
    return f"{x:.2f}"


def _trec_family(name: str) -> str:
    """The trec_eval family of a printed name (``P_10`` -> ``P``, ``iprec_at_recall_0.10`` ->
    ``iprec_at_recall``), or the name."""
    for fam in sorted(CUTOFF_FAMILIES, key=len, reverse=True):
        if re.fullmatch(re.escape(fam) + r"_[0-9.]+", name):
            return fam
    return name


def expand_measures(args: Sequence[str] | None, convention) -> tuple[list[str], list[str]]:
    """The measure names ``-m`` asks for, in output order, and notes on the names left out.

    Each argument is a nickname (``official``, ``all_trec``, ``set``), a trec_eval family with
    or without parameters (``P``, ``P.5,10``, ``iprec_at_recall..25,.5``, ``map``), or
    ir_measures names separated by commas (``nDCG@10,AP``).

    Examples
    --------
    >>> expand_measures(["P.10,5", "map", "nDCG@10,ERR@20"], "ir_measures")[0]
    ['map', 'P_5', 'P_10', 'nDCG@10', 'ERR@20']
    >>> expand_measures(["official"], "trec_eval")[0][:6]
    ['runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map']
    """
    conv = _conv.profile(convention)
    args = list(args) if args else ["official"]
    trec, other, notes = [], [], []
    for arg in args:
        arg = arg.strip()
        if arg in NICKNAMES:
            names = [n for fam in NICKNAMES[arg] for n in _defaults(fam)]
            offered = [n for n in names if _offered(n, conv)]
            dropped = [n for n in names if not _offered(n, conv)]
            if dropped:
                notes.append(f"-m {arg}: the {conv.name} profile does not compute "
                             f"{', '.join(dict.fromkeys(_trec_family(n) for n in dropped))}; "
                             "left out")
            trec.extend(offered)
            continue
        head, dot, params = arg.partition(".")
        if head in TABLE_ORDER and (dot or head in CUTOFF_FAMILIES):
            if not dot:
                trec.extend(_defaults(head))
                continue
            if head not in CUTOFF_FAMILIES:
                raise EvalError(f"-m {arg}: rankbook takes {head} without parameters (trec_eval's "
                                "default); parameters are taken for "
                                + ", ".join(CUTOFF_FAMILIES))
            values = []
            for p in params.split(","):
                try:
                    v = float(p) if head in _LEVEL_FAMILIES else int(p)
                except ValueError:
                    raise EvalError(f"-m {arg}: {p!r} is not a "
                                    + ("number" if head in _LEVEL_FAMILIES else "whole number")
                                    + f", e.g. -m {head}." + ("0.1,0.5" if head in _LEVEL_FAMILIES
                                                              else "5,10")) from None
                values.append(v)
            trec.extend(_named(head, v) for v in sorted(set(values)))
            continue
        try:
            parts = split_measures(arg)
        except CompareError as exc:
            raise EvalError(str(exc).replace("--measures", "-m")) from None
        for p in parts:
            (trec if _trec_family(p) in TABLE_ORDER else other).append(p)
    trec = list(dict.fromkeys(trec))
    order = {f: i for i, f in enumerate(TABLE_ORDER)}
    trec.sort(key=lambda n: (order[_trec_family(n)], _param_key(n)))
    out = list(dict.fromkeys(trec + other))
    for n in out:
        if n not in ("runid", "relstring"):
            refusal = measure_refusal(n, conv)
            if refusal:
                raise EvalError(refusal)
    return out, notes


def _param_key(name: str) -> float:
    fam = _trec_family(name)
    return float(name[len(fam) + 1:]) if fam != name else 0.0


def _named(family: str, v) -> str:
    return f"{family}_{_fmt_level(v) if family in _LEVEL_FAMILIES else v}"


def _defaults(family: str) -> list[str]:
    if family in CUTOFF_FAMILIES:
        return [_named(family, v) for v in CUTOFF_FAMILIES[family]]
    return [family]


def _offered(name: str, conv) -> bool:
    if name == "runid":
        return True
    if name == "relstring":  # trec_eval's (and pytrec_eval's) text measure: their order
        return conv.name in ("trec_eval", "trec_eval_9", "pytrec_eval")
    try:
        _conv.parse_measure(name, conv)
    except ValueError:
        return False
    return True


def _profile(convention: str, complete: bool, max_docs, level, judged_only, recall_cutoff=None):
    if convention not in _conv.CONVENTIONS:
        raise EvalError(f"--convention {convention!r} is not one of {', '.join(_conv.CONVENTIONS)}")
    conv = _conv.profile(convention)
    changes = {}
    if complete:
        option = next((o for o, (_, f) in _conv.PEER_OPTIONS.get(conv.name, {}).items()
                       if f.get("qrels_only") == "zero"), None)
        if option:
            changes[option] = True
        else:
            changes["qrels_only"] = "zero"
    if max_docs is not None:
        if max_docs < 1:
            raise EvalError(f"-M must be a whole number >= 1, got {max_docs}")
        changes["max_documents"] = int(max_docs)
    if level is not None:
        if level < 1:
            raise EvalError(f"-l must be a whole number >= 1 (the level a relevant document "
                            f"needs), got {level}")
        changes["relevance_level"] = int(level)
    if judged_only:
        changes["judged_only"] = True
    if recall_cutoff is not None:
        from ..trec_measures import RECALL_CUTOFF_RULES

        if recall_cutoff not in RECALL_CUTOFF_RULES:
            raise EvalError(f"--recall-cutoff must be one of {', '.join(RECALL_CUTOFF_RULES)}; "
                            f"got {recall_cutoff!r}")
        changes["recall_cutoff"] = recall_cutoff
    return _conv.profile(conv, **changes) if changes else conv


def evaluate_runs(qrels_path, run_paths: Sequence[str], measures=None, *,
                  convention: str = "trec_eval", complete: bool = False,
                  max_docs: int | None = None, level: int | None = None,
                  judged_only: bool = False, max_bytes: int | None = None,
                  order: str = "score", recall_cutoff: str | None = None) -> EvalResult:
    """Score each run against the qrels with every measure asked for (what ``rankbook eval``
    does).

    Parameters
    ----------
    qrels_path, run_paths : path
        A TREC qrels file and one or more TREC run files: paths, ``-`` (standard input, once),
        pipes or ``.gz`` files, each read once.
    measures : list of str, optional
        ``-m`` arguments (:func:`expand_measures`); default trec_eval's ``official`` set.
    convention : str
        A profile of :data:`rankbook.conventions.CONVENTIONS`.
    complete, max_docs, level, judged_only
        trec_eval's ``-c``, ``-M``, ``-l``, ``-J``.
    recall_cutoff : str, optional
        :attr:`rankbook.conventions.Convention.recall_cutoff` (default: the profile's).
    max_bytes : int or None
        Largest input, in bytes.
    order : {"score", "rank"}
        ``"rank"``: each run is the explicit order of its rank column.

    Returns
    -------
    EvalResult

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q.txt").write_text("1 0 a 1\\n1 0 b 0\\n")
    >>> _ = (d / "r.txt").write_text("1 Q0 b 1 2 run\\n1 Q0 a 2 1 run\\n")
    >>> res = evaluate_runs(d / "q.txt", [d / "r.txt"], ["map", "P.1,2"])
    >>> print(format_trec(res), end="")
    map                   	all	0.5000
    P_1                   	all	0.0000
    P_2                   	all	0.5000
    """
    conv = _profile(convention, complete, max_docs, level, judged_only, recall_cutoff)
    if order not in _conv.ORDERS:
        raise EvalError(f"--order must be one of {', '.join(_conv.ORDERS)}; got {order!r}")
    names, notes = expand_measures(measures, conv)
    if not names:
        raise EvalError(f"no measure to compute: the {conv.name} profile computes none of "
                        "those asked for")
    run_paths = [p if isinstance(p, str) else os.fsdecode(p) for p in run_paths]
    qrels_path = qrels_path if isinstance(qrels_path, str) else os.fsdecode(qrels_path)
    if not run_paths:
        raise EvalError("eval needs a qrels file and at least one run file")
    if sum(p == "-" for p in [qrels_path, *run_paths]) > 1:
        raise EvalError("standard input (-) can be read once only; give it for one file")
    shown = [display_name(p) for p in run_paths]
    for p, what in [(qrels_path, "qrels"), *((r, "run") for r in run_paths)]:
        if p != "-" and not os.path.exists(p):
            raise EvalError(f"{display_name(p)}: no such file")
        if p != "-" and os.path.isdir(p):
            raise EvalError(f"{display_name(p)}: is a folder, not a {what} file")
    numeric = [n for n in names if n not in ("runid", "relstring")]
    qrels = _read(_source(qrels_path), "qrels", max_bytes, notes)
    runs = []
    for path, name, stem in zip(run_paths, shown, unique_names([run_name(p, i) for i, p in enumerate(run_paths)])):
        run = _read(_source(path), "run", max_bytes, notes, order)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", _tf.InputNote)
            try:
                res = (_conv.evaluate_run(qrels, run, numeric, convention=conv,
                                          order="rank" if order == "rank" else None)
                       if numeric else None)
                texts = (_conv.relstrings(qrels, run, conv, order="rank" if order == "rank" else None)
                         if "relstring" in names else {})
            except ValueError as exc:
                text = str(exc).replace(f"profile({conv.name!r}, complete=True) scores such a "
                                        "query 0, as -c does", "-c scores such a query 0")
                text = text.replace(f"profile({conv.name!r}, make_comparable=True) scores such "
                                    "a query 0, as make_comparable=True does",
                                    "-c scores such a query 0 (make_comparable=True)")
                raise EvalError(f"{name} scored against {display_name(qrels_path)}: {text}") from None
        notes.extend(f"{name}: {w.message}" for w in caught if issubclass(w.category, UserWarning))
        runs.append(RunScores(stem, name, run.tag or "", _table(res, texts, run.tag or "", names)))
        del run
        _tf.release_memory()
    return EvalResult(runs, names, notes)


def _source(path: str):
    return sys.stdin.buffer if path == "-" else path


def _table(res, texts: dict, runid: str, names: list) -> pd.DataFrame:
    """One run's rows: (measure, query, value), per query then ``all``."""
    rows = []
    if res is not None:
        per = res.per_query
        for m, q, v in zip(per["measure"], per["query_id"], per["value"]):
            rows.append((m, str(q), float(v)))
        for m, v in res.aggregate.items():
            rows.append((m, "all", float(v)))
    for q, s in texts.items():
        rows.append(("relstring", q, f"'{s}'"))
    if "runid" in names:
        rows.append(("runid", "all", runid))
    return pd.DataFrame(rows, columns=["measure", "query", "value"])


def _value_text(name: str, family: str | None, value) -> str:
    if isinstance(value, str):
        return value
    if family in COUNTS and np.isfinite(value):
        return str(int(round(value)))
    return f"{value:6.4f}"


def _families(names) -> dict:
    out = {}
    for n in names:
        if n in ("runid", "relstring"):
            out[n] = None
            continue
        for conv in _conv.CONVENTIONS:
            try:
                out[n] = _conv.parse_measure(n, conv).family
                break
            except ValueError:
                continue
        else:
            out[n] = None
    return out


def _query_order(queries) -> list[str]:
    """trec_eval's order of queries: byte order of their ids (strcmp)."""
    return sorted(set(queries), key=lambda q: q.encode("utf-8", "surrogateescape"))


def format_trec(result: EvalResult, per_query: bool = False, summary: bool = True) -> str:
    """trec_eval's three columns: each run's per-query lines (``per_query``), then its summary."""
    fams = _families(result.measures)
    out = io.StringIO()
    for i, run in enumerate(result.runs):
        if len(result.runs) > 1:
            out.write(f"# run: {run.path}\n")
        t = run.table
        values = {(m, q): v for m, q, v in zip(t["measure"], t["query"], t["value"])}
        if per_query:
            for q in _query_order(x for x in t["query"] if x != "all"):
                for m in result.measures:
                    if m in SUMMARY_ONLY or fams[m] == "NumQ" or fams[m] in ("gm_map", "gm_bpref"):
                        continue
                    if (m, q) in values:
                        out.write(f"{m:<22}\t{q}\t{_value_text(m, fams[m], values[(m, q)])}\n")
        if summary:
            for m in result.measures:
                if m in QUERY_ONLY or (m, "all") not in values:
                    continue
                out.write(f"{m:<22}\tall\t{_value_text(m, fams[m], values[(m, 'all')])}\n")
    return out.getvalue()


def records(result: EvalResult, per_query: bool = False, summary: bool = True) -> pd.DataFrame:
    """The table CSV and JSON write: ``run, runid, measure, query, value``."""
    fams = _families(result.measures)
    frames = []
    rank = {m: i for i, m in enumerate(result.measures)}
    for run in result.runs:
        t = run.table
        keep = ((t["query"] == "all") & summary) | ((t["query"] != "all") & per_query)
        t = t[keep].copy()
        t = t[~((t["query"] != "all") & t["measure"].map(
            lambda m: m in SUMMARY_ONLY or fams.get(m) in ("NumQ", "gm_map", "gm_bpref")))]
        t = t[~((t["query"] == "all") & t["measure"].isin(QUERY_ONLY))]
        order = {q: i for i, q in enumerate(_query_order(x for x in t["query"] if x != "all"))}
        t["_q"] = t["query"].map(lambda q: order.get(q, len(order)))
        t["_m"] = t["measure"].map(rank)
        t = t.sort_values(["_q", "_m"], kind="stable").drop(columns=["_q", "_m"])
        t.insert(0, "runid", run.runid)
        t.insert(0, "run", run.name)
        frames.append(t)
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["run", "runid", "measure", "query", "value"])
    return table


def format_csv(result: EvalResult, per_query: bool = False, summary: bool = True) -> str:
    """:func:`records` as CSV text; a run tag or query id a spreadsheet would run as a formula
    is written as text (:mod:`rankbook.book.csvsafe`)."""
    from .csvsafe import csv_text

    return csv_text(records(result, per_query, summary))


def format_json(result: EvalResult, per_query: bool = False, summary: bool = True) -> str:
    fams = _families(result.measures)
    rows = []
    for r in records(result, per_query, summary).itertuples(index=False):
        v = r.value
        if not isinstance(v, str):
            v = (int(round(v)) if fams.get(r.measure) in COUNTS and np.isfinite(v)
                 else (float(v) if np.isfinite(v) else None))
        rows.append({"run": r.run, "runid": r.runid, "measure": r.measure, "query": r.query,
                     "value": v})
    return json.dumps(rows, indent=1, ensure_ascii=False) + "\n"


def render(result: EvalResult, fmt: str, per_query: bool, summary: bool) -> str:
    if fmt not in FORMATS:
        raise EvalError(f"--format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    return {"trec": format_trec, "csv": format_csv, "json": format_json}[fmt](
        result, per_query, summary)
