"""Relevance judgements (qrels) and runs as the IR tools write them, read into tidy tables.

Three spellings of the same data are accepted everywhere in :mod:`rankbook.conventions`:

* TREC files: a qrels file has four whitespace-separated columns
  ``query iteration document relevance`` and a run file six,
  ``query Q0 document rank score tag`` (trec_eval's formats {cite}`trec_eval`; the iteration,
  ``Q0``, rank and tag columns are read and ignored, as trec_eval ignores them). A line whose
  first character is ``#`` is a comment (trec_eval 10 does the same); a ``#`` inside a line is
  data, so a document id may contain one.
* dicts of dicts, ``{query: {document: relevance}}`` and ``{query: {document: score}}``, the
  input of pytrec_eval, ir_measures and ranx.
* pandas DataFrames with columns ``query_id, doc_id, relevance`` and ``query_id, doc_id,
  score`` (ir_measures' column names).

Query and document ids are compared as strings, as trec_eval compares them: the integer ``7``
in a DataFrame and the string ``"7"`` in a file are the same query. The order of the documents
of a query is kept as given (some tools break ties by it, see :mod:`rankbook.conventions`).

Every reader raises :class:`ValueError` for bad input, naming the problem, the query and the
document; the file readers also name ``path:line``.
"""

from __future__ import annotations

import io
import math
import os
from typing import Mapping

import numpy as np
import pandas as pd

__all__ = ["read_qrels", "read_run", "as_qrels", "as_run", "QRELS_COLUMNS", "RUN_COLUMNS"]

#: Columns of the table :func:`read_qrels` and :func:`as_qrels` return.
QRELS_COLUMNS = ("query_id", "doc_id", "relevance")
#: Columns of the table :func:`read_run` and :func:`as_run` return.
RUN_COLUMNS = ("query_id", "doc_id", "score")


# --------------------------------------------------------------------------------------------
# files


def _lines(path) -> list[str]:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read().splitlines()
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not a UTF-8 text file ({exc.reason} at byte {exc.start})") from None


def _scan(path, lines, n_cols: int, what: str, value_col: int, value_name: str):
    """Split every line; raise ``path:line: problem`` at the first bad one."""
    queries, docs, values, line_nos = [], [], [], []
    for no, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split()
        if len(fields) != n_cols:
            raise ValueError(
                f"{path}:{no}: a {what} line has {n_cols} whitespace-separated columns "
                f"({_COLUMN_NAMES[what]}), this one has {len(fields)}: {line.strip()!r}"
            )
        q, d, v = fields[0], fields[2], fields[value_col]
        try:
            x = float(v)
        except ValueError:
            raise ValueError(
                f"{path}:{no}: the {value_name} of document {d!r} for query {q!r} is not a "
                f"number: {v!r}"
            ) from None
        if not math.isfinite(x):
            raise ValueError(
                f"{path}:{no}: the {value_name} of document {d!r} for query {q!r} must be a "
                f"finite number, got {v!r}"
            )
        queries.append(q)
        docs.append(d)
        values.append(x)
        line_nos.append(no)
    return queries, docs, values, line_nos


_COLUMN_NAMES = {
    "qrels": "query iteration document relevance",
    "run": "query Q0 document rank score tag",
}


def _read(path, what: str) -> pd.DataFrame:
    path = os.fspath(path)
    lines = _lines(path)
    value_col, value_name = (3, "relevance") if what == "qrels" else (4, "score")
    n_cols = 4 if what == "qrels" else 6
    queries, docs, values, line_nos = _scan(path, lines, n_cols, what, value_col, value_name)
    df = pd.DataFrame({"query_id": queries, "doc_id": docs, value_name: np.asarray(values, float)})
    dup = df.duplicated(["query_id", "doc_id"], keep="first").to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        q, d = df.at[i, "query_id"], df.at[i, "doc_id"]
        first = int(np.flatnonzero((df["query_id"].to_numpy() == q) & (df["doc_id"].to_numpy() == d))[0])
        raise ValueError(
            f"{path}:{line_nos[i]}: document {d!r} appears twice for query {q!r} (first on line "
            f"{line_nos[first]}); trec_eval refuses duplicate documents too"
        )
    return df


def read_qrels(path) -> pd.DataFrame:
    """Read a TREC qrels file: ``query iteration document relevance`` per line.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id`` (str), ``doc_id`` (str), ``relevance`` (float), in file order.

    Raises
    ------
    ValueError
        ``path:line: problem`` for a line without four columns, a relevance that is not a finite
        number, or a document judged twice for the same query (each message names the query and
        the document).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = p.write_text("# judged by hand\\n1 0 a 0\\n1 0 b 2\\n")
    >>> read_qrels(p)
      query_id doc_id  relevance
    0        1      a        0.0
    1        1      b        2.0
    >>> _ = p.write_text("1 0 a 0\\n1 0 b high\\n")
    >>> read_qrels(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...qrels.txt:2: the relevance of document 'b' for query '1' is not a number: 'high'
    """
    return _read(path, "qrels")


def read_run(path) -> pd.DataFrame:
    """Read a TREC run file: ``query Q0 document rank score tag`` per line.

    The rank column is ignored: every tool ranks by score (trec_eval does too), and what
    happens to equal scores is a convention of each tool (:mod:`rankbook.conventions`).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id`` (str), ``doc_id`` (str), ``score`` (float), in file order.

    Raises
    ------
    ValueError
        ``path:line: problem`` for a line without six columns, a score that is not a finite
        number, or a document retrieved twice for the same query.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = p.write_text("1 Q0 b 1 1.0 mine\\n1 Q0 a 2 1.0 mine\\n")
    >>> read_run(p)
      query_id doc_id  score
    0        1      b    1.0
    1        1      a    1.0
    >>> _ = p.write_text("1 Q0 b 1 1.0 mine\\n1 Q0 b 2 0.5 mine\\n")
    >>> read_run(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...run.txt:2: document 'b' appears twice for query '1' (first on line 1); trec_eval refuses duplicate documents too
    """
    return _read(path, "run")


# --------------------------------------------------------------------------------------------
# any spelling -> tidy table


def _ids_as_str(values: pd.Series) -> np.ndarray:
    """Ids as an object array of str; only the distinct values are converted (fast for ints)."""
    arr = values.to_numpy()
    if arr.dtype == object and all(isinstance(x, str) for x in arr[: min(len(arr), 64)]):
        if all(isinstance(x, str) for x in arr):
            return arr
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    if (codes < 0).any():
        raise ValueError("an id is missing (None or NaN); every row needs a query id and a document id")
    as_str = np.array([str(u) for u in np.asarray(uniques, dtype=object)], dtype=object)
    return as_str[codes]


def _from_mapping(obj: Mapping, value_name: str, what: str) -> pd.DataFrame:
    queries, docs, values = [], [], []
    for q, inner in obj.items():
        if not isinstance(inner, Mapping):
            raise ValueError(
                f"{what} as a dict must map each query to a dict {{document: {value_name}}}; "
                f"query {q!r} maps to {type(inner).__name__}"
            )
        n = len(inner)
        queries.extend([q] * n)
        docs.extend(inner.keys())
        values.extend(inner.values())
    return pd.DataFrame({"query_id": pd.Series(queries, dtype=object),
                         "doc_id": pd.Series(docs, dtype=object),
                         value_name: pd.Series(values, dtype=object)})


def _raw_columns(obj, value_name: str, what: str):
    """(query ids, document ids, values) of any accepted spelling, as arrays in input order.

    File ids come back as text; DataFrame and dict ids as given (the callers compare them as
    text).
    """
    if isinstance(obj, (str, os.PathLike)):
        df = _read(obj, "qrels" if what == "qrels" else "run")
    elif isinstance(obj, pd.DataFrame):
        need = ["query_id", "doc_id", value_name]
        missing = [c for c in need if c not in obj.columns]
        if missing:
            raise ValueError(
                f"the {what} DataFrame needs columns {need}; missing {missing} "
                f"(it has {list(obj.columns)})"
            )
        df = obj
    elif isinstance(obj, Mapping):
        df = _from_mapping(obj, value_name, what)
    else:
        raise ValueError(
            f"{what} must be a dict of dicts, a path to a TREC {what} file or a DataFrame with "
            f"columns query_id, doc_id, {value_name}; got {type(obj).__name__}"
        )
    return df["query_id"].to_numpy(), df["doc_id"].to_numpy(), df[value_name].to_numpy()


def _tidy(obj, value_name: str, what: str) -> pd.DataFrame:
    if isinstance(obj, (str, os.PathLike)):
        return _read(obj, "qrels" if what == "qrels" else "run")
    rq, rd, raw = _raw_columns(obj, value_name, what)
    df = pd.DataFrame({"query_id": rq, "doc_id": rd, value_name: raw})
    q = _ids_as_str(df["query_id"])
    d = _ids_as_str(df["doc_id"])
    vals = _as_numbers(raw, lambda i: (q[i], d[i]), value_name, what)
    out = pd.DataFrame({"query_id": q, "doc_id": d, value_name: vals})
    dup = out.duplicated(["query_id", "doc_id"], keep="first").to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        verb = "retrieved" if what == "run" else "judged"
        raise ValueError(
            f"document {d[i]!r} is {verb} twice for query {q[i]!r} in the {what} (rows "
            f"{int(np.flatnonzero((q == q[i]) & (d == d[i]))[0])} and {i}); trec_eval refuses "
            "duplicate documents, and no measure is defined with them"
        )
    return out


def _as_numbers(raw, who, value_name: str, what: str) -> np.ndarray:
    """``raw`` as finite floats; ``who(i)`` names (query, document) of row i for the message."""
    raw = np.asarray(raw)
    if raw.dtype.kind in "iuf":
        vals = raw.astype(float)
    else:
        vals = np.empty(raw.shape[0])
        for i, x in enumerate(raw):
            ok = isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))
            if not ok and isinstance(x, str):
                try:
                    vals[i] = float(x)
                    continue
                except ValueError:
                    pass
            if not ok:
                q, d = who(i)
                raise ValueError(
                    f"the {value_name} of document {d!r} for query {q!r} in the {what} is not a "
                    f"number: {x!r}"
                )
            vals[i] = float(x)
    bad = ~np.isfinite(vals)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        q, d = who(i)
        raise ValueError(
            f"the {value_name} of document {d!r} for query {q!r} in the {what} must be a finite "
            f"number, got {raw[i]!r}"
        )
    return vals


def as_qrels(qrels) -> pd.DataFrame:
    """Relevance judgements in any accepted spelling as a tidy table (see the module notes).

    Returns a DataFrame with columns ``query_id`` (str), ``doc_id`` (str), ``relevance``
    (float), in input order. Raises :class:`ValueError` naming the query and the document for a
    relevance that is not a finite number or a document judged twice.

    Examples
    --------
    >>> as_qrels({"q1": {"d1": 1, "d2": 0}, 7: {"d3": 2}})
      query_id doc_id  relevance
    0       q1     d1        1.0
    1       q1     d2        0.0
    2        7     d3        2.0
    """
    return _tidy(qrels, "relevance", "qrels")


def as_run(run) -> pd.DataFrame:
    """A run in any accepted spelling as a tidy table (see the module notes).

    Returns a DataFrame with columns ``query_id`` (str), ``doc_id`` (str), ``score`` (float),
    in input order. Raises :class:`ValueError` naming the query and the document for a score
    that is not a finite number or a document retrieved twice.

    Examples
    --------
    >>> as_run({"q1": {"d1": 0.5, "d2": "high"}})
    Traceback (most recent call last):
    ...
    ValueError: the score of document 'd2' for query 'q1' in the run is not a number: 'high'
    """
    return _tidy(run, "score", "run")


def _to_text(df: pd.DataFrame, what: str) -> str:  # used by tests and the atlas to write files
    buf = io.StringIO()
    if what == "qrels":
        for q, d, r in df[["query_id", "doc_id", "relevance"]].itertuples(index=False):
            buf.write(f"{q} 0 {d} {int(r) if float(r).is_integer() else r}\n")
    else:
        for i, (q, d, s) in enumerate(df[["query_id", "doc_id", "score"]].itertuples(index=False)):
            buf.write(f"{q} Q0 {d} {i + 1} {s!r} rankbook\n")
    return buf.getvalue()
