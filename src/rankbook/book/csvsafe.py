"""CSV files that a spreadsheet opens as data: no cell of ours is ever run as a formula.

A spreadsheet (Excel, LibreOffice Calc, Google Sheets) reads a cell that starts with ``=``,
``+``, ``-`` or ``@`` as a formula, and a leading tab or carriage return can hide such a start;
a run tag or a label such as ``=HYPERLINK("http://x")`` then becomes a live link or a command
(CSV injection). Every CSV the project writes goes through this module: a *text* cell with such
a start is written with a single quote in front (OWASP's rule), which spreadsheets show as the
text itself (a text that already starts with quotes before such a character gets one more, so
:func:`restore_cell` gives back the exact value). Numbers stay numbers: a float column is never touched, and a text cell that is a
plain number (``-0.5``, ``+3``, ``-inf``) is no formula and is left as it is. A table with a
carriage return inside a text cell is written with its text cells quoted, so that the cell
does not split its row.

:func:`neutral_cell` is the rule for one value, :func:`neutral_frame` applies it to a
DataFrame (cells, column names and, when written, the index), :func:`neutral_row` to a row
of ``csv.writer`` / ``csv.DictWriter``, and :func:`write_csv` / :func:`csv_text` write a
DataFrame through it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: The first characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|nan)",
                     re.IGNORECASE)


def neutral_cell(value):
    """``value`` as a spreadsheet must show it: a text starting with ``=``, ``+``, ``-``,
    ``@``, a tab or a carriage return gets a single quote in front, unless it is a plain
    number; anything else (numbers, None, other text) is returned unchanged.

    Examples
    --------
    >>> neutral_cell('=HYPERLINK("http://x")'), neutral_cell("@SUM(A1)"), neutral_cell("\\t=1")
    ('\\'=HYPERLINK("http://x")', "'@SUM(A1)", "'\\t=1")
    >>> neutral_cell(-1.5), neutral_cell("-1.5"), neutral_cell("-1+2"), neutral_cell("bm25")
    (-1.5, '-1.5', "'-1+2", 'bm25')
    """
    if isinstance(value, str) and _guarded(value.lstrip("'")):
        return "'" + value  # a text that already starts with quotes gets one more: reversible
    return value


def _guarded(text: str) -> bool:
    return text[:1] in FORMULA_STARTS and not _NUMBER.fullmatch(text)


def restore_cell(text: str) -> str:
    """The value :func:`neutral_cell` was given, from the text it wrote (for our own readers
    of our CSVs: the explorer's charts show the label, not the guard).

    Examples
    --------
    >>> all(restore_cell(neutral_cell(v)) == v for v in ["=1", "'=1", "''@x", "'a", "-2", "x"])
    True
    """
    if isinstance(text, str) and text[:1] == "'" and _guarded(text.lstrip("'")):
        return text[1:]
    return text


def neutral_row(row):
    """A ``csv.writer`` row (a list) or a ``csv.DictWriter`` row (a dict: its values) with
    every text cell through :func:`neutral_cell`.

    Examples
    --------
    >>> neutral_row({"tag": "=1+1", "score": -2})
    {'tag': "'=1+1", 'score': -2}
    """
    if isinstance(row, dict):
        return {k: neutral_cell(v) for k, v in row.items()}
    return [neutral_cell(v) for v in row]


def neutral_frame(df, index: bool = False):
    """A copy of ``df`` whose text cells and column names (and index labels, when ``index``)
    are :func:`neutral_cell`-ed; numeric columns are left as they are.

    Examples
    --------
    >>> import pandas as pd
    >>> t = neutral_frame(pd.DataFrame({"run": ["=cmd|' /C calc'!A0", "bm25"], "d": [-0.5, 1.0]}))
    >>> t["run"].tolist(), t["d"].tolist()
    (["'=cmd|' /C calc'!A0", 'bm25'], [-0.5, 1.0])
    """
    import pandas as pd

    out = df.copy()
    for i in range(out.shape[1]):
        col = out.iloc[:, i]
        if not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_datetime64_any_dtype(col)):
            out.isetitem(i, col.map(neutral_cell))
    if isinstance(out.columns, pd.MultiIndex):
        out.columns = pd.MultiIndex.from_tuples(
            [tuple(neutral_cell(x) for x in c) for c in out.columns], names=out.columns.names)
    else:
        out.columns = [neutral_cell(c) for c in out.columns]
    if index:
        if isinstance(out.index, pd.MultiIndex):
            out.index = pd.MultiIndex.from_tuples(
                [tuple(neutral_cell(x) for x in i) for i in out.index], names=out.index.names)
        elif not pd.api.types.is_numeric_dtype(out.index):
            out.index = pd.Index([neutral_cell(x) for x in out.index], name=out.index.name)
    return out


def _quoting(df, index: bool, kwargs: dict) -> dict:
    """Python's CSV writer quotes a cell holding a line feed but not one holding only a
    carriage return (with ``\\n`` line ends), so such a cell would split its row in any
    reader: a table with one is written with every text cell quoted."""
    import csv

    import pandas as pd

    if "quoting" in kwargs:
        return kwargs
    texts = [*map(str, df.columns), *(map(str, df.index) if index else ())]
    for i in range(df.shape[1]):
        col = df.iloc[:, i]
        if not pd.api.types.is_numeric_dtype(col):
            texts += [v for v in col if isinstance(v, str)]
    if any("\r" in t for t in texts):
        return {**kwargs, "quoting": csv.QUOTE_NONNUMERIC}
    return kwargs


def csv_text(df, *, index: bool = False, **kwargs) -> str:
    """``df`` as CSV text (``\\n`` line ends) with every text cell neutralised.

    Examples
    --------
    >>> import pandas as pd
    >>> print(csv_text(pd.DataFrame({"run": ["+x", "y"], "delta": [-1, 2]})), end="")
    run,delta
    '+x,-1
    y,2
    """
    out = neutral_frame(df, index)
    return out.to_csv(index=index, lineterminator="\n", **_quoting(out, index, kwargs))


def write_csv(df, path, *, index: bool = False, **kwargs) -> Path:
    """Write ``df`` to ``path`` through :func:`csv_text`, atomically (a temporary file beside
    it, then a rename), so a reader never sees half a table. Returns the path."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        out = neutral_frame(df, index)
        out.to_csv(tmp, index=index, lineterminator="\n", **_quoting(out, index, kwargs))
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path
