"""Readers and writers for the file formats of rank-aggregation tools.

Each tool keeps rankings its own way, and the same numbers mean different things in each:

========== ============================================ =============================
format     a row (or line) holds                        kind
========== ============================================ =============================
rankaggreg one ordering, most preferred first (R         ``"ordering"``
           package RankAggreg, ``x`` of ``RankAggreg``)
consrank   one rank vector over the item columns, ties  ``"ranks"``
           sharing a value, ``NA`` unranked (R package
           ConsRank, ``X`` of ``consrank``)
corankco   one list of buckets ``[[1], [2, 3]]``, a      ``"ordering"``
           bucket holding tied items (Python corankco,
           ``Dataset.from_file``)
ranky      one candidate; the columns are the judges     ``"scores"`` or ``"ranks"``
           (ranky's convention), or the transpose        and ``judges_axis``
pyflagr    ``Query,Voter,Item,Score[,Dataset]`` with no   ``"scores"`` (higher first)
           header (PyFLAGR, ``input_file``)
========== ============================================ =============================

Every reader returns ``{group: {name: ranking}}`` as
:func:`rankbook.consensus.read_rankings_csv` does (the group is ``"all"`` except in PyFLAGR,
whose groups are its queries), a ranking being a list of labels with ties as ``frozenset``:
pass ``list(groups["all"].values())`` to :func:`rankbook.consensus.kappa` or
:func:`rankbook.consensus.kendall_w`. Every writer takes rankings as those measures do (a
sequence, or a mapping name to ranking; ties as sets or in braces) and returns the text it wrote.

The orientation guard. Where a format leaves the reading open, the reader takes ``kind``
(``"ordering"``: a row lists items, best first; ``"ranks"``: a row gives each item its rank,
1 best; ``"scores"``: a row gives each item a score, higher better) and, for a matrix,
``judges_axis`` (0: judges are rows, 1: judges are columns). A file whose reading is not fixed
by its format and its header (a matrix of integers under positional column names ``V1, V2, ...``
reads both as orderings of item numbers and as rank vectors; a ranky matrix reads with judges
as rows or as columns) is refused with a ``ValueError`` that names the two readings; so is a
``kind`` the format contradicts. On ranky's own example the two orientations give different
Kendall's W, and only one of them is the W of the judges.

Ties and partial lists keep their meaning both ways: an item missing from a ranking is
unranked there (an empty cell, ``NA``, or absent from the line), and tied items share a
bucket, a rank or a score. A format that cannot hold ties (RankAggreg's orderings) refuses to
write them instead of breaking them silently. Reading what a writer wrote gives back the same
rankings (:func:`same_rankings`).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ._validation import check_choice

__all__ = [
    "FORMATS",
    "KINDS",
    "FORMAT_CHOICES",
    "read_rankaggreg",
    "write_rankaggreg",
    "read_consrank",
    "write_consrank",
    "read_corankco",
    "write_corankco",
    "read_ranky",
    "write_ranky",
    "read_pyflagr",
    "write_pyflagr",
    "read_rankings_file",
    "check_rankings_file",
    "check_format",
    "format_of",
    "same_rankings",
    "canonical",
    "aggregate_scores",
    "ranky_matrix",
]

#: The formats read and written here.
FORMATS = ("rankaggreg", "consrank", "corankco", "ranky", "pyflagr")

#: What the numbers or labels of a row mean.
KINDS = ("ordering", "ranks", "scores")

#: The values of a ``rankings_format`` setting (:func:`read_rankings_file`): ``"auto"`` (by
#: the file's name), ``"rankbook"`` (:func:`rankbook.consensus.read_rankings_csv`), the
#: formats whose reading is fixed (each refused when the file fits the other orientation
#: better), the same with the orientation stated (``-as-written``: the format's layout;
#: ``-transposed``: the other one), and ranky with its kind and the axis of its judges.
FORMAT_CHOICES = ("auto", "rankbook", "rankaggreg", "consrank", "corankco", "pyflagr",
                  "rankaggreg-as-written", "rankaggreg-transposed", "consrank-as-written",
                  "consrank-transposed", "corankco-as-written", "pyflagr-as-written",
                  "pyflagr-transposed",
                  "ranky-scores-judges-columns", "ranky-scores-judges-rows",
                  "ranky-ranks-judges-columns", "ranky-ranks-judges-rows")

_POSITIONAL = re.compile(r"^(V\d+|X?\d+|pos\d+|position\d+|rank\d+)$", re.IGNORECASE)
_NA = {"", "NA", "na", "NaN", "nan", "<NA>"}


# --------------------------------------------------------------------------------------------
# the common form


def canonical(ranking) -> list:
    """A ranking as buckets in order: a plain label, or a ``frozenset`` of tied labels.

    Accepts what :func:`rankbook.consensus.kappa` accepts (ties as sets, lists or braces).

    Parameters
    ----------
    ranking : sequence or str
        Labels best first; ties as sets, lists or braces.

    Returns
    -------
    list
        Labels and ``frozenset`` tie groups, best first.

    Examples
    --------
    >>> canonical("a{cb}d") == ["a", frozenset({"b", "c"}), "d"]
    True
    >>> canonical(["x", ("y",)])
    ['x', 'y']
    """
    from .consensus import _parse_ranking

    pos = _parse_ranking(ranking, 0)
    return _from_positions(pos)


def _from_positions(pos: Mapping) -> list:
    """Buckets from a mapping label -> position (equal positions tie; lower first)."""
    groups: dict = {}
    for label, p in pos.items():
        groups.setdefault(p, []).append(label)
    return [g[0] if len(g) == 1 else frozenset(g) for _, g in sorted(groups.items())]


def same_rankings(a, b, *, as_text: bool = False) -> bool:
    """Whether two collections of rankings hold the same rankings (ties compared as sets).

    ``a`` and ``b`` are sequences or mappings name -> ranking; mappings compare their names
    too. Labels compare as they are (the item ``1`` is not the item ``"1"``); every format of
    this module but corankco stores labels as text, so rankings of numbers written and read
    back hold their labels as text: ``as_text=True`` compares ``str`` of each label and name.

    Parameters
    ----------
    a, b : sequence or mapping of rankings
        The two collections (``{name: ranking}`` compares the names too).
    as_text : bool
        Compare ``str`` of every label and name.

    Returns
    -------
    bool

    Examples
    --------
    >>> same_rankings([["a", {"b", "c"}]], ["a{cb}"])
    True
    >>> same_rankings({"j1": "ab"}, {"j2": "ab"})
    False
    >>> same_rankings({"j1": [3, 1, 2]}, {"j1": ["3", "1", "2"]}, as_text=True)
    True
    """
    if isinstance(a, Mapping) != isinstance(b, Mapping):
        return False

    def form(r):
        c = canonical(r)
        if not as_text:
            return c
        return [frozenset(map(str, x)) if isinstance(x, frozenset) else str(x) for x in c]

    if isinstance(a, Mapping):
        names = (lambda m: [str(k) for k in m]) if as_text else list
        return names(a) == names(b) and all(form(x) == form(y)
                                            for x, y in zip(a.values(), b.values()))
    a, b = list(a), list(b)
    return len(a) == len(b) and all(form(x) == form(y) for x, y in zip(a, b))


def _named(rankings, what: str = "rankings") -> dict:
    """``{name: canonical ranking}`` from a sequence (names r1, r2, ...) or a mapping."""
    if isinstance(rankings, (str, bytes)):
        raise ValueError(f"{what} is a single str: pass a list of rankings, e.g. ['abc', 'bca']")
    if isinstance(rankings, Mapping):
        if any(isinstance(v, Mapping) for v in rankings.values()):
            raise ValueError(f"{what} is a mapping of groups: this format holds one set of "
                             "rankings; pass one group (groups['all'])")
        items = [(str(k), v) for k, v in rankings.items()]
    else:
        items = [(f"r{i + 1}", r) for i, r in enumerate(rankings)]
    if not items:
        raise ValueError(f"{what} is empty: give at least one ranking")
    out = {}
    for name, r in items:
        if name in out:
            raise ValueError(f"ranking name {name!r} is repeated")
        try:
            out[name] = canonical(r)
        except ValueError as exc:
            raise ValueError(f"ranking {name!r}: {exc}".replace("rankings[0]", "it")) from None
    return out


def _check_kind(kind, fmt: str, allowed: tuple, readings: dict) -> str | None:
    """``kind`` checked against what ``fmt`` allows; ``readings`` says what each kind means."""
    if kind is None:
        return None
    check_choice(kind, KINDS, "kind", allow_none=True)
    if kind not in allowed:
        other = " or ".join(repr(k) for k in allowed)
        raise ValueError(
            f"{fmt} rows are read as kind={other} ({readings[allowed[0]]}); kind={kind!r} "
            f"would read them as {readings.get(kind, kind)}, which this format does not hold")
    return kind


def _text_of(path) -> tuple[Path, str]:
    from .consensus import _resolve_input

    p = _resolve_input(path)
    try:
        return p, p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{p} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ValueError(f"cannot read {p}: {exc.strerror or exc}") from None


def _csv_rows(text: str, comment: str = "#") -> list[tuple[int, list[str]]]:
    """Non-empty, non-comment lines parsed as CSV: ``(line number, cells)``."""
    kept = [(i, ln) for i, ln in enumerate(text.splitlines(), start=1)
            if ln.strip() and not ln.lstrip().startswith(comment)]
    rows = list(csv.reader(io.StringIO("\n".join(ln for _, ln in kept))))
    return [(i, [c.strip() for c in row]) for (i, _), row in zip(kept, rows)]


def _write(text: str, path) -> str:
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


def _csv_text(rows: list[list]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerows(rows)
    return buf.getvalue()


def _is_number(x: str) -> bool:
    try:
        float(x)
    except ValueError:
        return False
    return True


def _labels_in_order(named: dict) -> list:
    seen: dict = {}
    for r in named.values():
        for b in r:
            for x in (sorted(b, key=lambda v: (type(v).__name__, str(v)))
                      if isinstance(b, frozenset) else (b,)):
                seen.setdefault(x, None)
    return list(seen)


def _check_text_labels(labels, fmt: str, forbidden: str = "") -> None:
    for x in labels:
        s = str(x)
        if s != s.strip() or not s or s in _NA or any(c in s for c in forbidden + "\n\r"):
            raise ValueError(f"{fmt} cannot hold the label {x!r}: a label must be non-empty "
                             f"text without leading or trailing spaces, line breaks"
                             + (f" or any of {forbidden!r}" if forbidden else "")
                             + " and other than NA")


# --------------------------------------------------------------------------------------------
# matrices (RankAggreg, ConsRank): header, optional names column


def _matrix(path, fmt: str, names_first: bool = False):
    """``(path, header, names, cells, lines)`` of a CSV matrix as R's ``write.csv`` writes it:
    a header row, and a first column of row names when the header's first cell is empty."""
    p, text = _text_of(path)
    rows = _csv_rows(text)
    if len(rows) < 2:
        raise ValueError(f"{p} holds no {fmt} rows: it needs a header and one row per ranking")
    (_, header), body = rows[0], rows[1:]
    has_names = names_first or header[0] in ("", "name", "names")
    cols = header[1:] if has_names else header
    names, cells, lines = [], [], []
    for line, row in body:
        if len(row) != len(header):
            raise ValueError(f"{p}, line {line}: {len(row)} fields where the header has "
                             f"{len(header)}; quote labels that contain commas")
        name = row[0] if has_names else f"r{len(names) + 1}"
        if not name:
            raise ValueError(f"{p}, line {line}: the row has no name in the first column")
        if name in names:
            raise ValueError(f"{p}, line {line}: row name {name!r} is repeated")
        names.append(name)
        cells.append(row[1:] if has_names else row)
        lines.append(line)
    if not cols:
        raise ValueError(f"{p} has no columns after the row names")
    return p, cols, names, cells, lines


def _positional(cols) -> bool:
    return all(_POSITIONAL.match(c) for c in cols)


def _integer_rows(cells) -> bool:
    vals = [c for row in cells for c in row if c not in _NA]
    return bool(vals) and all(re.fullmatch(r"[+-]?\d+(\.0*)?", v) for v in vals)


def _two_readings(p, cells, cols, fmt: str) -> str:
    row = cells[0]
    as_order = [c for c in row if c not in _NA]
    as_ranks = sorted(((float(c), col) for c, col in zip(row, cols) if c not in _NA))
    return (f"{p}: the {fmt} rows are integers under positional column names "
            f"({', '.join(cols[:3])}{', ...' if len(cols) > 3 else ''}), so the file reads two ways: "
            f"as orderings (kind='ordering': the first row ranks item {as_order[0]} first) or as "
            f"rank vectors (kind='ranks': the first row ranks column {as_ranks[0][1]} first); "
            "pass kind to say which")


def _repeats(row) -> bool:
    items = [c for c in row if c not in _NA]
    return len(set(items)) < len(items)


def _an_ordering(cells) -> bool:
    """Distinct items, ``NA`` only after the last one, and at least one item."""
    items = list(cells)
    while items and items[-1] in _NA:
        items.pop()
    return bool(items) and not any(c in _NA for c in items) and len(set(items)) == len(items)


def _numbers(cells):
    """The cells as a float matrix (``NA`` as nan), or None when one is not a number."""
    try:
        return np.array([[np.nan if c in _NA else float(c) for c in row] for row in cells])
    except ValueError:
        return None


def _ordering_rows(p, names, cells, lines) -> dict:
    out = {}
    for name, row, line in zip(names, cells, lines):
        while row and row[-1] in _NA:
            row = row[:-1]
        if not row:
            raise ValueError(f"{p}, line {line}: ranking {name!r} is empty")
        if any(c in _NA for c in row):
            raise ValueError(f"{p}, line {line}: ranking {name!r} has an empty or NA cell before "
                             "its last item; only the trailing cells of a top-k list may be NA")
        dup = next((c for c in row if row.count(c) > 1), None)
        if dup is not None:
            raise ValueError(f"{p}, line {line}: ranking {name!r} repeats item {dup!r}; an "
                             "ordering lists each item once (ties need a format that holds them: "
                             "consrank or corankco)")
        out[name] = list(row)
    return out


def _rank_rows(p, names, cells, lines, cols, higher_first: bool) -> dict:
    out = {}
    for name, row, line in zip(names, cells, lines):
        pos = {}
        for col, c in zip(cols, row):
            if c in _NA:
                continue
            try:
                v = float(c)
            except ValueError:
                raise ValueError(f"{p}, line {line}: ranking {name!r} holds {c!r} under {col!r}, "
                                 "not a number") from None
            if not np.isfinite(v):
                raise ValueError(f"{p}, line {line}: ranking {name!r} holds {c!r} under {col!r}")
            pos[col] = -v if higher_first else v
        if not pos:
            raise ValueError(f"{p}, line {line}: ranking {name!r} ranks no item (all NA)")
        out[name] = _from_positions(pos)
    return out


# --------------------------------------------------------------------------------------------
# the orientation guard: a file that reads better the other way round


def _check_transposed(transposed) -> None:
    if transposed not in (None, True, False):
        raise ValueError(f"transposed must be None (the format's layout, refused when the file "
                         f"fits the other orientation better), False or True; got {transposed!r}")


def _strict(vec, values=None) -> bool:
    """A complete ranking without ties (and, with ``values``, exactly those values)."""
    v = np.asarray(vec, dtype=float)
    if v.size == 0 or np.isnan(v).any() or len(np.unique(v)) != v.size:
        return False
    return values is None or np.array_equal(np.sort(v), np.asarray(values, dtype=float))


def _tied(vec) -> bool:
    v = np.asarray(vec, dtype=float)
    v = v[~np.isnan(v)]
    return len(np.unique(v)) < v.size


def _fits_transposed(M, permutations: bool = False, most_rows=None) -> str | None:
    """Why the matrix ``M`` (rows: the rankings as the format reads them; columns: their items;
    nan where an item is missing) reads better transposed, or None. It does when there are at
    least 3 rows and 2 columns, every column is a complete ranking without ties (with
    ``permutations``, a permutation of 1..rows), and more than half of the rows hold ties (or,
    given, ``most_rows`` says why the rows do not read as rankings)."""
    M = np.asarray(M, dtype=float)
    rows, cols = M.shape
    if rows < 3 or cols < 2:
        return None
    values = np.arange(1, rows + 1) if permutations else None
    if not all(_strict(M[:, j], values) for j in range(cols)):
        return None
    tied = sum(_tied(row) for row in M)
    if most_rows is None and 2 * tied <= rows:
        return None
    col_text = (f"each of its {cols} columns is a permutation of 1..{rows}" if permutations
                else f"each of its {cols} columns is a complete ranking of the {rows} rows "
                     "without ties")
    share = f"all {rows} of its rows" if tied == rows else f"{tied} of its {rows} rows"
    return f"{col_text}, while {most_rows or f'{share} hold ties'}"


def _orientation_refusal(p, fmt: str, why: str, as_written: str, other: str,
                         other_ok: bool = True) -> ValueError:
    choice = fmt.lower()
    if other_ok:
        state = (f"say which: transposed=False or transposed=True (as a file setting, "
                 f"rankings_format '{choice}-as-written' or '{choice}-transposed', or a file "
                 f"named x.{choice}-as-written{_EXT[choice]} / x.{choice}-transposed{_EXT[choice]})")
    else:
        state = (f"{fmt} cannot hold that reading (a line of buckets does not keep the ranks): "
                 f"write one ranking per line, or say transposed=False (rankings_format "
                 f"'{choice}-as-written', or a file named x.{choice}-as-written{_EXT[choice]}) "
                 "if the file is right as it is")
    return ValueError(f"{p}: this {fmt} file reads better transposed: {why}. It reads two ways: "
                      f"as {fmt} writes it ({as_written}) or transposed ({other}); {state}")


#: The file ending of each format in the names that state a reading.
_EXT = {"rankaggreg": ".csv", "consrank": ".csv", "corankco": "", "pyflagr": ".csv"}


# --------------------------------------------------------------------------------------------
# RankAggreg


def read_rankaggreg(path, kind: str | None = None, transposed: bool | None = None) -> dict:
    """Read RankAggreg's matrix of ordered lists (one ordering per row, best first).

    The file is the CSV R's ``write.csv(x)`` writes for the ``x`` of ``RankAggreg(x, k)``: a
    header (``"",V1,V2,...``; the first cell empty when a column of row names follows) and one
    row per list. A top-k list shorter than the others ends in ``NA`` (or empty) cells. An
    ordering holds no ties.

    Parameters
    ----------
    path : str or path
    kind : {"ordering", None}
        RankAggreg's rows are orderings. ``None`` accepts that, except for a matrix of
        integers under positional column names, which reads as rank vectors too: there it must
        be given. ``"ranks"`` or ``"scores"`` is refused (read such a file with
        :func:`read_consrank` or :func:`read_ranky`).
    transposed : {None, False, True}
        ``True``: the file is transposed, one column per ranking (the header names them), each
        listing items from the top row down. ``None`` reads one row per ranking but refuses a
        file that fits the other orientation better (rows that repeat an item while every
        column lists distinct items), naming both readings; ``False`` reads one row per
        ranking without that check.

    Returns
    -------
    dict
        ``{"all": {name: ranking}}``; names are the row names, or r1, r2, ...

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "x.rankaggreg.csv"
    >>> _ = path.write_text('"","V1","V2","V3"\\n"1","A","B","C"\\n"2","B","A",NA\\n')
    >>> read_rankaggreg(path)["all"]
    {'1': ['A', 'B', 'C'], '2': ['B', 'A']}
    >>> _ = path.write_text('V1,V2,V3\\n3,1,2\\n')
    >>> read_rankaggreg(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...reads two ways: as orderings (kind='ordering'...) or as rank vectors (kind='ranks'...
    >>> read_rankaggreg(path, kind="ordering")["all"]
    {'r1': ['3', '1', '2']}
    """
    _check_kind(kind, "RankAggreg", ("ordering",),
                {"ordering": "each row lists items, best first",
                 "ranks": "rank vectors (use read_consrank)",
                 "scores": "scores (use read_ranky)"})
    _check_transposed(transposed)
    p, cols, names, cells, lines = _matrix(path, "RankAggreg")
    if transposed:
        columns = [[row[j] for row in cells] for j in range(len(cols))]
        where = [f"{lines[0]}-{lines[-1]}, column {j + 1}" for j in range(len(cols))]
        dup = next((c for c in cols if cols.count(c) > 1), None)
        if dup is not None:
            raise ValueError(f"{p}: ranking {dup!r} is named twice in the header")
        return {"all": _ordering_rows(p, cols, columns, where)}
    if kind is None and _positional(cols) and _integer_rows(cells):
        raise ValueError(_two_readings(p, cells, cols, "RankAggreg"))
    if transposed is None and len(cols) >= 2 and len(cells) >= 2:
        repeats = [n for n, row in zip(names, cells) if _repeats(row)]
        columns = [[row[j] for row in cells] for j in range(len(cols))]
        if repeats and all(_an_ordering(c) for c in columns):
            raise _orientation_refusal(
                p, "RankAggreg", f"{len(repeats)} of its {len(cells)} rows repeat an item (an "
                f"ordering lists each item once; row {repeats[0]!r} first), while each of its "
                f"{len(cols)} columns lists distinct items", f"{len(cells)} orderings, one "
                f"per row", f"{len(cols)} orderings, one per column ({', '.join(cols[:3])}"
                f"{', ...' if len(cols) > 3 else ''}), best at the top")
    shared = sorted({c for row in cells for c in row} & set(cols) - _NA)
    if shared and not _positional(cols):
        raise ValueError(f"{p}: the first line ({', '.join(cols[:4])}{', ...' if len(cols) > 4 else ''}) "
                         f"names items the rows rank ({', '.join(shared[:3])}): it reads as a "
                         "ranking, not as a header. RankAggreg files start with a header "
                         "(V1,V2,... as write.csv writes it); add one rather than lose the first list")
    return {"all": _ordering_rows(p, names, cells, lines)}


def write_rankaggreg(rankings, path=None) -> str:
    """Write rankings as RankAggreg's matrix of ordered lists (``write.csv`` layout).

    Shorter (top-k) lists are padded with ``NA``. RankAggreg's orderings hold no ties: a
    ranking with a tie is refused (write it with :func:`write_consrank` or
    :func:`write_corankco`).

    Parameters
    ----------
    rankings : sequence or mapping of rankings
        Rankings as :func:`rankbook.consensus.kappa` takes them, or ``{name: ranking}``.
    path : str or path-like, optional
        The file written; the text is returned either way.

    Returns
    -------
    str
        The file's text.

    Examples
    --------
    >>> print(write_rankaggreg({"j1": "ABC", "j2": "BA"}), end="")
    ,V1,V2,V3
    j1,A,B,C
    j2,B,A,NA
    >>> write_rankaggreg(["a{bc}"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: RankAggreg holds no ties: ranking 'r1' ties ['b', 'c']...
    """
    named = _named(rankings)
    _check_text_labels(_labels_in_order(named), "RankAggreg")
    for name, r in named.items():
        tie = next((b for b in r if isinstance(b, frozenset)), None)
        if tie is not None:
            raise ValueError(f"RankAggreg holds no ties: ranking {name!r} ties "
                             f"{sorted(map(str, tie))}; write it with write_consrank or "
                             "write_corankco, which keep ties")
    k = max(len(r) for r in named.values())
    rows = [[""] + [f"V{i + 1}" for i in range(k)]]
    rows += [[name] + [str(x) for x in r] + ["NA"] * (k - len(r)) for name, r in named.items()]
    return _write(_csv_text(rows), path)


# --------------------------------------------------------------------------------------------
# ConsRank


def read_consrank(path, kind: str | None = None, transposed: bool | None = None) -> dict:
    """Read ConsRank's data matrix (one rank vector per row, items in columns).

    The file is the CSV ``write.csv(X)`` writes for the ``X`` of ``consrank(X)``: the header
    names the items (its first cell empty when a column of row names follows), each row gives
    every item its rank (1 best). Tied items share a value (ConsRank writes ``1 2 2 3``;
    mid-ranks ``1 2.5 2.5 4`` read the same); ``NA`` marks an item the judge did not rank.

    Parameters
    ----------
    path : str or path
    kind : {"ranks", "ordering", None}
        ``None`` reads rank vectors, except for integers under positional column names
        (``V1, V2, ...``: R's names for a matrix without column names), which read as
        orderings of item numbers too: there it must be given. ``"ordering"`` reads each row
        as an ordering of the labels in its cells.
    transposed : {None, False, True}
        ``True``: the file is transposed, items as rows (named in the first column) and one
        column per ranking (named in the header). ``None`` reads one row per ranking but
        refuses a file that fits the other orientation better, naming both readings: every
        column a permutation of 1..rows while most rows hold ties (or a row holds a rank
        beyond its number of item columns); ``False`` reads one row per ranking without that
        check.

    Returns
    -------
    dict
        ``{group: {name: ranking}}``, a ranking a list of labels with ``frozenset`` tie groups.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "x.consrank.csv"
    >>> _ = path.write_text('"","a","b","c","d"\\n"j1",1,2,2,3\\n"j2",2,1,NA,3\\n')
    >>> got = read_consrank(path)["all"]
    >>> got["j1"] == ["a", frozenset({"b", "c"}), "d"], got["j2"]
    (True, ['b', 'a', 'd'])
    """
    _check_kind(kind, "ConsRank", ("ranks", "ordering"),
                {"ranks": "each row gives every item column its rank, 1 best",
                 "ordering": "each row lists items, best first",
                 "scores": "scores, higher better (use read_ranky)"})
    _check_transposed(transposed)
    p, cols, names, cells, lines = _matrix(path, "ConsRank")
    if transposed:
        columns = [[row[j] for row in cells] for j in range(len(cols))]
        where = [f"{lines[0]}-{lines[-1]}, column {j + 1}" for j in range(len(cols))]
        for labels, what in ((cols, "ranking"), (names, "item")):
            dup = next((c for c in labels if labels.count(c) > 1), None)
            if dup is not None:
                raise ValueError(f"{p}: {what} {dup!r} is named twice")
        if kind == "ordering":
            return {"all": _ordering_rows(p, cols, columns, where)}
        return {"all": _rank_rows(p, cols, columns, where, names, higher_first=False)}
    if kind is None and _positional(cols) and _integer_rows(cells):
        raise ValueError(_two_readings(p, cells, cols, "ConsRank"))
    M = _numbers(cells) if transposed is None and kind != "ordering" else None
    if M is not None:
        over = [(n, v) for n, row in zip(names, M) for v in row if v == v and v > len(cols)]
        why = _fits_transposed(M, permutations=True, most_rows=(
            f"row {over[0][0]!r} holds rank {over[0][1]:g} with only {len(cols)} item columns"
            if over else None))
        if why:
            raise _orientation_refusal(
                p, "ConsRank", why, f"{len(cells)} rank vectors, one per row, over the "
                f"{len(cols)} item columns", f"{len(cols)} rank vectors, one per column, over "
                f"the {len(cells)} items named in the first column")
    if kind == "ordering":
        return {"all": _ordering_rows(p, names, cells, lines)}
    dup = next((c for c in cols if cols.count(c) > 1), None)
    if dup is not None:
        raise ValueError(f"{p}: item column {dup!r} is repeated in the header")
    return {"all": _rank_rows(p, names, cells, lines, cols, higher_first=False)}


def write_consrank(rankings, path=None) -> str:
    """Write rankings as ConsRank's data matrix: items in columns, dense ranks (1 best; tied
    items share a rank), ``NA`` for an item a ranking leaves out.

    Parameters
    ----------
    rankings : sequence or mapping of rankings
        Rankings as :func:`rankbook.consensus.kappa` takes them, or ``{name: ranking}``.
    path : str or path-like, optional
        The file written; the text is returned either way.

    Returns
    -------
    str
        The file's text.

    Examples
    --------
    >>> print(write_consrank({"j1": "a{bc}d", "j2": "bad"}), end="")
    ,a,b,c,d
    j1,1,2,2,3
    j2,2,1,NA,3
    """
    named = _named(rankings)
    labels = _labels_in_order(named)
    _check_text_labels(labels, "ConsRank")
    rows = [[""] + [str(x) for x in labels]]
    if len({str(x) for x in labels}) != len(labels):
        raise ValueError("ConsRank names items by text: two labels print the same "
                         f"({[x for x in labels if [str(y) for y in labels].count(str(x)) > 1]})")
    for name, r in named.items():
        rank = {}
        for i, b in enumerate(r, start=1):
            for x in (b if isinstance(b, frozenset) else (b,)):
                rank[x] = i
        rows.append([name] + [str(rank[x]) if x in rank else "NA" for x in labels])
    return _write(_csv_text(rows), path)


# --------------------------------------------------------------------------------------------
# corankco


def _corankco_line(line: str, where: str, as_int: bool | None):
    """``(name or None, buckets of str)`` of one corankco line."""
    name = None
    body = line.strip()
    if ":" in body:
        name, body = body.rsplit(":", 1)
        name, body = name.strip(), body.strip()
    s = body.replace("{", "[").replace("}", "]")
    if not (s.startswith("[") and s.endswith("]")):
        raise ValueError(f"{where}: a corankco ranking is a bracketed list of buckets, "
                         f"[[1], [2, 3]]; got {line.strip()!r}")
    inner = s[1:-1].strip()
    buckets = []
    for m in re.finditer(r"\[([^\[\]]*)\]|([^\s,])", inner):
        if m.group(2) is not None:
            raise ValueError(f"{where}: text outside a bucket in {line.strip()!r}; every item "
                             "sits in a bucket ([a], [b, c])")
        items = [x.strip() for x in m.group(1).split(",")]
        if any(not x for x in items):
            raise ValueError(f"{where}: an empty bucket or item in {line.strip()!r}")
        buckets.append(items)
    if not buckets:
        raise ValueError(f"{where}: the ranking {line.strip()!r} is empty")
    flat = [x for b in buckets for x in b]
    dup = next((x for x in flat if flat.count(x) > 1), None)
    if dup is not None:
        raise ValueError(f"{where}: item {dup!r} appears twice in one ranking")
    return name, buckets


def read_corankco(path, labels: str = "auto", transposed: bool | None = None) -> dict:
    """Read corankco's dataset file: one ranking per line, a list of buckets of tied items.

    ``[[1], [2, 3], [4]]`` (or ``[{1}, {2, 3}, {4}]``) ranks 1 first, then 2 and 3 tied,
    then 4; an item missing from a line is not ranked by it (an incomplete ranking). A line
    may start with ``name:``; lines starting with ``%`` (corankco's comments) or ``#`` are
    skipped. The kind is fixed (``"ordering"``: buckets best first).

    Parameters
    ----------
    labels : {"auto", "int", "str"}
        ``"auto"`` as corankco: integers when every item of the file is an integer, text
        otherwise.
    transposed : {None, False}
        ``None`` refuses a file that looks written the other way round (one line per item, its
        buckets grouping the judges), naming both readings: every label sits in every line at
        a bucket position no other line gives it, while most lines hold ties. ``False`` reads
        it as written. ``True`` is refused: a line of buckets keeps no ranks, so a file written
        that way cannot be read back.

    Returns
    -------
    dict
        ``{group: {name: ranking}}``, a ranking a list of labels with ``frozenset`` tie groups.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "d.corankco"
    >>> _ = path.write_text("[[1], [2, 3], [4]]\\n[{2}, {1}]\\n")
    >>> got = read_corankco(path)["all"]
    >>> got["r1"] == [1, frozenset({2, 3}), 4], got["r2"]
    (True, [2, 1])
    """
    check_choice(labels, ("auto", "int", "str"), "labels")
    _check_transposed(transposed)
    if transposed:
        raise ValueError(f"{path}: a corankco file cannot be read transposed: a line of "
                         "buckets orders its own labels and keeps no ranks, so one line per "
                         "item does not say where each judge put it; write one ranking per "
                         "line (or a ConsRank matrix, which read_consrank reads either way)")
    p, text = _text_of(path)
    parsed = []
    for i, ln in enumerate(text.splitlines(), start=1):
        if len(ln.strip()) == 0 or ln.lstrip()[:1] in ("%", "#"):
            continue
        parsed.append((i,) + _corankco_line(ln, f"{p}, line {i}", None))
    if not parsed:
        raise ValueError(f"{p} holds no corankco ranking: one line per ranking, [[1], [2, 3]]")
    every = [x for _, _, bs in parsed for b in bs for x in b]
    is_int = all(re.fullmatch(r"[+-]?\d+", x) for x in every)
    if labels == "int" and not is_int:
        bad = next(x for x in every if not re.fullmatch(r"[+-]?\d+", x))
        raise ValueError(f"{p}: labels='int' but item {bad!r} is not an integer")
    conv = int if (is_int and labels != "str") else str
    out = {}
    for i, name, bs in parsed:
        name = name or f"r{len(out) + 1}"
        if name in out:
            raise ValueError(f"{p}, line {i}: ranking name {name!r} is repeated")
        r = [[conv(x) for x in b] for b in bs]
        if conv is int and len({x for b in r for x in b}) != sum(map(len, r)):
            raise ValueError(f"{p}, line {i}: two items are the same integer")
        out[name] = [b[0] if len(b) == 1 else frozenset(b) for b in r]
    if transposed is None:
        every_label = list(dict.fromkeys(every))
        col = {x: j for j, x in enumerate(every_label)}
        B = np.full((len(parsed), len(every_label)), np.nan)
        for i, (_, _, bs) in enumerate(parsed):
            for b, bucket in enumerate(bs, start=1):
                for x in bucket:
                    B[i, col[x]] = b
        why = _fits_transposed(B)
        if why:
            why = why.replace("columns", "labels").replace("rows", "lines")
            raise _orientation_refusal(
                p, "corankco", why, f"{len(parsed)} rankings, one per line", f"one line per "
                f"item, its buckets grouping the {len(every_label)} judges by the place they "
                "give it", other_ok=False)
    return {"all": out}


def write_corankco(rankings, path=None, *, names: bool = True) -> str:
    """Write rankings as corankco's dataset file (``name: [[a], [b, c]]`` per line).

    Labels are all integers or all text (corankco reads a file of integers as integers); text
    labels may not hold brackets, braces, commas or colons. ``names=False`` leaves the names
    out, as corankco's own writer does.

    Parameters
    ----------
    rankings : sequence or mapping of rankings
        Rankings as :func:`rankbook.consensus.kappa` takes them, or ``{name: ranking}``.
    path : str or path-like, optional
        The file written; the text is returned either way.
    names : bool
        Write each ranking's name before it.

    Returns
    -------
    str
        The file's text.

    Examples
    --------
    >>> print(write_corankco({"j1": [1, {3, 2}, 4], "j2": [2, 1]}), end="")
    j1: [[1], [2, 3], [4]]
    j2: [[2], [1]]
    """
    named = _named(rankings)
    labels = _labels_in_order(named)
    if len({isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in labels}) > 1:
        raise ValueError("corankco labels are all integers or all text; these rankings mix "
                         "both: convert them to one type")
    _check_text_labels(labels, "corankco", "[]{},:")
    if names:
        _check_text_labels(list(named), "a corankco ranking name", "[]{},:")
    lines = []
    for name, r in named.items():
        bs = ["[" + ", ".join(str(x) for x in (sorted(b, key=lambda v: (str(type(v)), v))
                                                 if isinstance(b, frozenset) else [b])) + "]"
              for b in r]
        lines.append((f"{name}: " if names else "") + "[" + ", ".join(bs) + "]")
    return _write("\n".join(lines) + "\n", path)


# --------------------------------------------------------------------------------------------
# ranky


_RANKY_READINGS = ("judges in columns (judges_axis=1, ranky's convention and its axis=1: one "
                   "column per judge, one row per candidate)",
                   "judges in rows (judges_axis=0: one row per judge; ranky's kendall_w "
                   "default axis=0)")


def read_ranky(path, kind: str | None = None, judges_axis: int | None = None) -> dict:
    """Read a ranky preference matrix (CSV of a DataFrame, candidates x judges).

    ranky's README keeps one row per candidate and one column per judge, with the candidate
    names in the first column (``pd.read_csv(path, index_col=0)``), and higher scores better;
    but its functions take an ``axis`` whose default differs between them (``kendall_w`` has
    ``axis=0``), so the same matrix gives two different Kendall's W. Here both readings are
    explicit and required.

    Parameters
    ----------
    kind : {"scores", "ranks"}
        ``"scores"``: higher is better (ranky's default); ``"ranks"``: 1 is best.
    judges_axis : {1, 0}
        1: the columns are the judges (ranky's layout); 0: the rows are.

    Missing cells (empty, ``NA``) are items a judge did not rank. Equal values tie.

    Returns
    -------
    dict
        ``{group: {name: ranking}}``, a ranking a list of labels with ``frozenset`` tie groups.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "m.ranky.csv"
    >>> _ = path.write_text("index,judge1,judge2\\nc1,0.4,0.8\\nc2,0.8,0.7\\nc3,0.7,0.7\\n")
    >>> got = read_ranky(path, kind="scores", judges_axis=1)["all"]
    >>> got["judge1"], got["judge2"] == ["c1", frozenset({"c2", "c3"})]
    (['c2', 'c3', 'c1'], True)
    >>> read_ranky(path, kind="scores")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...needs judges_axis: the matrix reads two ways: judges in columns (judges_axis=1...) or judges in rows (judges_axis=0...
    """
    if kind is None:
        raise ValueError(f"{path}: a ranky matrix needs kind: its values read two ways: "
                         "kind='scores' (higher is better, ranky's default) or kind='ranks' "
                         "(1 is best)")
    _check_kind(kind, "ranky", ("scores", "ranks"),
                {"scores": "scores, higher better", "ranks": "ranks, 1 best",
                 "ordering": "orderings (use read_rankaggreg)"})
    if judges_axis is None:
        raise ValueError(f"{path}: a ranky matrix needs judges_axis: the matrix reads two ways: "
                         f"{_RANKY_READINGS[0]} or {_RANKY_READINGS[1]}")
    if judges_axis not in (0, 1) or isinstance(judges_axis, bool):
        raise ValueError(f"judges_axis must be 0 (judges in rows) or 1 (judges in columns); got "
                         f"{judges_axis!r}")
    p, cols, names, cells, lines = _matrix(path, "ranky", names_first=True)
    return {"all": _ranky_from_cells(p, cols, names, cells, lines, kind, judges_axis)}


def _ranky_from_cells(p, cols, names, cells, lines, kind, judges_axis) -> dict:
    M = np.full((len(cells), len(cols)), np.nan)
    for i, (row, line) in enumerate(zip(cells, lines)):
        for j, c in enumerate(row):
            if c in _NA:
                continue
            try:
                M[i, j] = float(c)
            except ValueError:
                raise ValueError(f"{p}, line {line}: {c!r} under {cols[j]!r} is not a number") \
                    from None
            if not np.isfinite(M[i, j]):
                raise ValueError(f"{p}, line {line}: {c!r} under {cols[j]!r} is not finite")
    if judges_axis == 1:
        judges, items, M = cols, names, M.T
    else:
        judges, items = names, cols
    for lab, what in ((judges, "judge"), (items, "candidate")):
        dup = next((x for x in lab if lab.count(x) > 1), None)
        if dup is not None:
            raise ValueError(f"{p}: {what} {dup!r} is repeated")
    out = {}
    for judge, row in zip(judges, M):
        pos = {x: (-v if kind == "scores" else v) for x, v in zip(items, row) if v == v}
        if not pos:
            raise ValueError(f"{p}: judge {judge!r} ranks no candidate (all cells empty)")
        out[judge] = _from_positions(pos)
    return out


def ranky_matrix(rankings, kind: str = "scores") -> tuple[list, list, np.ndarray]:
    """``(candidates, judges, matrix)``: the candidates x judges matrix ranky expects.

    ``kind="scores"``: the best bucket scores the number of buckets, the next one less, down
    to 1 (higher better, ranky's default); ``kind="ranks"``: mid-ranks among the ranked
    candidates (1 best, ties share the mean of their places, as ``ranky.rank``). An item a
    judge leaves out is ``nan``.

    Parameters
    ----------
    rankings : sequence or mapping of rankings
        As :func:`rankbook.consensus.kappa` takes them, or ``{name: ranking}``.
    kind : {"scores", "ranks"}
        Scores (higher is better) or mid-ranks (1 best).

    Returns
    -------
    candidates : list
        The items, in first-seen order.
    judges : list
        The rankings' names.
    matrix : ndarray of float, shape (len(candidates), len(judges))
        nan where a judge leaves an item out.

    Examples
    --------
    >>> c, j, M = ranky_matrix({"j1": "a{bc}", "j2": "ba"}, kind="ranks")
    >>> c, j, M.tolist()
    (['a', 'b', 'c'], ['j1', 'j2'], [[1.0, 2.0], [2.5, 1.0], [2.5, nan]])
    """
    if kind not in ("scores", "ranks"):
        raise ValueError(f"kind must be 'scores' or 'ranks' for a ranky matrix; got {kind!r}")
    named = _named(rankings)
    labels = _labels_in_order(named)
    idx = {x: i for i, x in enumerate(labels)}
    M = np.full((len(labels), len(named)), np.nan)
    for j, r in enumerate(named.values()):
        place = 0
        for b, bucket in enumerate(r):
            members = bucket if isinstance(bucket, frozenset) else (bucket,)
            val = (len(r) - b) if kind == "scores" else place + (len(members) + 1) / 2
            for x in members:
                M[idx[x], j] = val
            place += len(members)
    return labels, list(named), M


def write_ranky(rankings, path=None, *, kind: str = "scores", judges_axis: int = 1) -> str:
    """Write rankings as a ranky preference matrix (CSV, candidate names in the first column
    when ``judges_axis=1``, ranky's layout; judge names there when ``judges_axis=0``).

    Parameters
    ----------
    rankings : sequence or mapping of rankings
        Rankings as :func:`rankbook.consensus.kappa` takes them, or ``{name: ranking}``.
    path : str or path-like, optional
        The file written; the text is returned either way.
    kind : {"scores", "ranks"}
        As in :func:`ranky_matrix`.
    judges_axis : {1, 0}
        1: judges in columns (ranky's layout); 0: judges in rows.

    Returns
    -------
    str
        The file's text.

    Examples
    --------
    >>> print(write_ranky({"j1": "a{bc}", "j2": "ba"}), end="")
    index,j1,j2
    a,2,1
    b,1,2
    c,1,
    """
    if judges_axis not in (0, 1) or isinstance(judges_axis, bool):
        raise ValueError(f"judges_axis must be 0 (judges in rows) or 1 (judges in columns); got "
                         f"{judges_axis!r}")
    labels, judges, M = ranky_matrix(rankings, kind)
    _check_text_labels(labels, "ranky")
    _check_text_labels(judges, "ranky")
    if judges_axis == 0:
        labels, judges, M = judges, labels, M.T
    fmt = (lambda v: "" if v != v else (str(int(v)) if float(v).is_integer() else repr(float(v))))
    rows = [["index"] + [str(x) for x in judges]]
    rows += [[str(x)] + [fmt(v) for v in row] for x, row in zip(labels, M)]
    return _write(_csv_text(rows), path)


# --------------------------------------------------------------------------------------------
# PyFLAGR


def read_pyflagr(path, kind: str | None = None, transposed: bool | None = None) -> dict:
    """Read PyFLAGR's input (or output) lists: ``Query,Voter,Item,Score[,Algorithm/Dataset]``
    without a header, one item per line.

    Each (query, voter) pair is one ranking; higher scores come first (PyFLAGR: "the top
    rankings receive higher scores"), equal scores tie. Groups are the queries, so the result
    is ``{query: {voter: ranking}}``. A header line ``Query,Voter,Item,Score`` (as a DataFrame
    saved with its column names) is skipped.

    Parameters
    ----------
    kind : {"scores", None}
        PyFLAGR scores are higher-better; ``"ranks"`` (1 best) would reverse every list and is
        refused: convert rank numbers to scores first (PyFLAGR's "reverse ranking").
    transposed : {None, False, True}
        ``True``: the Voter and Item columns are swapped (each line ``Query,Item,Voter,Score``).
        ``None`` reads PyFLAGR's layout but refuses a file that fits the swap better, naming
        both readings: for a query, every item is scored by every voter with no two voters
        giving it the same score, while most voters' lists hold ties. ``False`` reads the
        layout without that check.

    Returns
    -------
    dict
        ``{group: {name: ranking}}``, a ranking a list of labels with ``frozenset`` tie groups.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "lists.pyflagr.csv"
    >>> _ = path.write_text("q1,v1,d1,3,ds\\nq1,v1,d2,2,ds\\nq1,v1,d3,2,ds\\nq1,v2,d2,9,ds\\n")
    >>> got = read_pyflagr(path)["q1"]
    >>> got["v1"] == ["d1", frozenset({"d2", "d3"})], got["v2"]
    (True, ['d2'])
    """
    _check_kind(kind, "PyFLAGR", ("scores",),
                {"scores": "the Score column, higher first",
                 "ranks": "rank numbers, 1 first, which reverses every list",
                 "ordering": "orderings"})
    _check_transposed(transposed)
    p, text = _text_of(path)
    rows = _csv_rows(text)
    if rows and [c.lower() for c in rows[0][1][:4]] in (["query", "voter", "item", "score"],
                                                        ["query", "voter", "itemid", "score"]):
        rows = rows[1:]
    if not rows:
        raise ValueError(f"{p} holds no PyFLAGR line: Query,Voter,Item,Score per line, no header")
    scores: dict = {}
    for line, row in rows:
        if len(row) not in (4, 5):
            raise ValueError(f"{p}, line {line}: {len(row)} fields; PyFLAGR lines are "
                             "Query,Voter,Item,Score with an optional Algorithm/Dataset field")
        q, v, item, s = row[:4]
        if transposed:
            v, item = item, v
        if not q or not v or not item:
            raise ValueError(f"{p}, line {line}: an empty query, voter or item")
        try:
            val = float(s)
        except ValueError:
            raise ValueError(f"{p}, line {line}: score {s!r} is not a number") from None
        if not np.isfinite(val):
            raise ValueError(f"{p}, line {line}: score {s!r} is not finite")
        lst = scores.setdefault(q, {}).setdefault(v, {})
        if item in lst:
            raise ValueError(f"{p}, line {line}: voter {v!r} lists item {item!r} twice for "
                             f"query {q!r}")
        lst[item] = -val
    if transposed is None:
        for q, voters in scores.items():
            items = list(dict.fromkeys(x for pos in voters.values() for x in pos))
            S = np.array([[pos.get(x, np.nan) for x in items] for pos in voters.values()])
            why = _fits_transposed(S)
            if why:
                why = (why.replace("columns", "items").replace("rows", "voters")
                       .replace("complete ranking of the", "complete ranking (distinct scores) "
                                "of the"))
                raise _orientation_refusal(
                    p, "PyFLAGR", f"for query {q!r}, {why}", f"{len(voters)} voters each "
                    f"scoring items: Query,Voter,Item,Score", f"the Voter and Item columns "
                    f"swapped: {len(items)} voters each scoring the {len(voters)} items of "
                    "the Voter column")
    return {q: {v: _from_positions(pos) for v, pos in voters.items()}
            for q, voters in scores.items()}


def write_pyflagr(rankings, path=None, *, query: str = "1", dataset: str = "rankbook") -> str:
    """Write rankings as PyFLAGR input lists (no header). ``rankings``: one set of rankings
    (query ``query``) or a mapping ``{query: {voter: ranking}}``. The score of a bucket is the
    number of buckets below it plus one (PyFLAGR's "reverse ranking"; tied items share it).

    Parameters
    ----------
    rankings : sequence or mapping of rankings
        One set of rankings, or ``{query: {voter: ranking}}``.
    path : str or path-like, optional
        The file written; the text is returned either way.
    query : str
        The query id of a single set.
    dataset : str
        The last column of every line.

    Returns
    -------
    str
        The file's text.

    Examples
    --------
    >>> print(write_pyflagr({"v1": "a{bc}", "v2": "ca"}), end="")
    1,v1,a,2,rankbook
    1,v1,b,1,rankbook
    1,v1,c,1,rankbook
    1,v2,c,2,rankbook
    1,v2,a,1,rankbook
    """
    if isinstance(rankings, Mapping) and rankings and all(isinstance(v, Mapping)
                                                          for v in rankings.values()):
        groups = {str(q): _named(r, f"query {q!r}") for q, r in rankings.items()}
    else:
        groups = {str(query): _named(rankings)}
    rows = []
    for q, named in groups.items():
        # FLAGR's reader splits each line at every comma and knows no quoting
        _check_text_labels([q, dataset] + list(named) + _labels_in_order(named), "PyFLAGR",
                           ',"')
        for v, r in named.items():
            for b, bucket in enumerate(r):
                for x in (sorted(bucket, key=lambda y: (str(type(y)), str(y)))
                          if isinstance(bucket, frozenset) else (bucket,)):
                    rows.append([q, v, str(x), str(len(r) - b), dataset])
    return _write(_csv_text(rows), path)


# --------------------------------------------------------------------------------------------
# one entry point: by file name or by a format setting


_SUFFIXES = {".rankaggreg.csv": "rankaggreg", ".consrank.csv": "consrank",
             ".corankco": "corankco", ".corankco.txt": "corankco", ".pyflagr.csv": "pyflagr",
             ".ranky.csv": "ranky"}


def format_of(path, rankings_format: str = "auto") -> str:
    """The format a file is read in: ``rankings_format`` unless ``"auto"``; then by its name
    (``x.rankaggreg.csv``, ``x.consrank.csv``, ``x.corankco`` or ``x.corankco.txt``,
    ``x.pyflagr.csv``, ``x.ranky.csv``, or ``x.ranky-scores-judges-columns.csv`` and the
    other ranky choices of :data:`FORMAT_CHOICES`), else ``"rankbook"``.

    Parameters
    ----------
    path : str or path-like
        The file.
    rankings_format : str
        One of :data:`FORMAT_CHOICES`.

    Returns
    -------
    str
        The format's name.

    Examples
    --------
    >>> format_of("votes.consrank.csv"), format_of("m.ranky-ranks-judges-rows.csv")
    ('consrank', 'ranky-ranks-judges-rows')
    >>> format_of("critics.csv"), format_of("x.csv", "corankco")
    ('rankbook', 'corankco')
    """
    check_format(rankings_format)
    if rankings_format != "auto":
        return rankings_format
    name = Path(path).name.lower()
    for choice in FORMAT_CHOICES:
        if "-" in choice and any(name.endswith(f".{choice}{ext}") for ext in (".csv", ".txt", "")):
            return choice
    for suffix, fmt in _SUFFIXES.items():
        if name.endswith(suffix):
            return fmt
    if ".ranky" in name:  # e.g. m.ranky-scores.csv: ranky, but not which of its readings
        choices = [c for c in FORMAT_CHOICES if c.startswith("ranky-")]
        raise ValueError(f"{path}: the name says ranky but not how to read the matrix; name it "
                         f"x.<choice>.csv with <choice> one of {choices} (its kind and the "
                         "axis of its judges), or give rankings_format")
    return "rankbook"


def check_format(value) -> None:
    """A ``rankings_format`` setting is one of :data:`FORMAT_CHOICES` (ValueError listing them).

    Parameters
    ----------
    value : object
        The setting.

    Raises
    ------
    ValueError
        Listing :data:`FORMAT_CHOICES`.

    Examples
    --------
    >>> check_format("consrank")
    >>> check_format("ranky")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: rankings_format must be one of 'auto', ..., 'ranky-ranks-judges-rows' (a ranky matrix needs its kind and the axis of its judges); got 'ranky'
    """
    hint = ("a ranky matrix needs its kind and the axis of its judges"
            if str(value).startswith("ranky") else "")
    check_choice(value, FORMAT_CHOICES, "rankings_format", explain=hint)


def read_rankings_file(path, rankings_format: str = "auto") -> dict:
    """Read rankings in any format of this module or rankbook's CSV, as ``{group: {name:
    ranking}}`` (see :func:`format_of` for ``rankings_format``).

    Naming the tool (by the file's name or ``rankings_format``) states the reading: a
    RankAggreg file is read as orderings and a ConsRank file as rank vectors even where the
    readers alone (``kind=None``) would refuse a matrix of integers under positional column
    names. It does not state the orientation: a file that fits the other one better (a ConsRank
    file written transposed) is refused, naming both readings, unless the name or the setting
    says ``-as-written`` or ``-transposed`` (``x.consrank-transposed.csv``). A ranky file whose
    name does not say its kind and orientation is refused, naming the readings (give
    ``rankings_format="ranky-scores-judges-columns"`` or one of the others).

    Parameters
    ----------
    path : str or path-like
        The file.
    rankings_format : str
        One of :data:`FORMAT_CHOICES` (``"auto"``: by the file's name).

    Returns
    -------
    dict
        ``{group: {name: ranking}}``, a ranking a list of labels with ``frozenset`` tie groups.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "d.corankco"
    >>> _ = path.write_text("% two judges\\n[[1], [2, 3]]\\n[[2], [1], [3]]\\n")
    >>> list(read_rankings_file(path)["all"].values())[1]
    [2, 1, 3]
    """
    from .consensus import read_rankings_csv

    fmt = format_of(path, rankings_format)
    if fmt == "rankbook":
        return read_rankings_csv(path)
    fmt, _, orientation = fmt.partition("-") if not fmt.startswith("ranky") else (fmt, "", "")
    transposed = {"as-written": False, "transposed": True}.get(orientation)
    if fmt.startswith("ranky"):
        if fmt == "ranky":
            raise ValueError(f"{path}: a ranky matrix reads four ways: give rankings_format "
                             "ranky-scores-judges-columns (ranky's convention), "
                             "ranky-scores-judges-rows, ranky-ranks-judges-columns or "
                             f"ranky-ranks-judges-rows; the orientations are "
                             f"{_RANKY_READINGS[0]} and {_RANKY_READINGS[1]}")
        _, kind, _, axis = fmt.split("-")
        return read_ranky(path, kind=kind, judges_axis=1 if axis == "columns" else 0)
    if fmt == "rankaggreg":  # naming the tool states the reading: its rows are orderings
        return read_rankaggreg(path, kind="ordering", transposed=transposed)
    if fmt == "consrank":  # and ConsRank's are rank vectors
        return read_consrank(path, kind="ranks", transposed=transposed)
    reader = {"corankco": read_corankco, "pyflagr": read_pyflagr}[fmt]
    return reader(path, transposed=transposed)


def check_rankings_file(path, rankings_format: str = "auto") -> dict:
    """The check of an input file of kind ``rankings`` (``rankbook.book.specs.FILE_KINDS``):
    :func:`read_rankings_file` by the file's name, or by ``rankings_format`` (a notebook's
    parameter of that name, when it has one). A file named ``x.ranky.csv`` is only read as
    a number matrix here (its kind and orientation may come from a ``rankings_format``
    setting checked later); every other file is read fully.

    Parameters
    ----------
    path : str or path-like
        The file.

    Returns
    -------
    dict
        ``{group: {name: ranking}}``, a ranking a list of labels with ``frozenset`` tie groups. (a ranky file's in its default orientation)

    Examples
    --------
    A ranky matrix (candidates x judges, higher scores first) is read with the judges in
    columns, its default orientation:

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "votes.ranky.csv"
    >>> _ = path.write_text("index,j1,j2\\na,3,2\\nb,2,3\\nc,1,1\\n")
    >>> check_rankings_file(path)
    {'all': {'j1': ['a', 'b', 'c'], 'j2': ['b', 'a', 'c']}}
    """
    if format_of(path, rankings_format) == "ranky":
        p, cols, names, cells, lines = _matrix(path, "ranky", names_first=True)
        return {"all": _ranky_from_cells(p, cols, names, cells, lines, "scores", 1)}
    return read_rankings_file(path, rankings_format)


# --------------------------------------------------------------------------------------------
# scoring an aggregation


def aggregate_scores(inputs, aggregate, *, items: str = "union", gamma: float = 1.0,
                     lam: float = 1.0):
    """How far an aggregation's inputs agree, and how far each lies from the aggregate.

    Returns a :class:`pandas.DataFrame`: one row per input with its Kendall :math:`\\tau_b`
    with the aggregate and its Kendall distance to it (the number of pairs of items in
    opposite orders, each pair tied in one and not the other counting 1/2, on the items of
    ``items``), then a row ``"inputs"`` with :func:`rankbook.consensus.kappa` and
    :func:`rankbook.consensus.kendall_w` of the inputs, and a row ``"inputs + aggregate"``
    with the same for all rankings together. Kendall's W is ``nan`` where it is undefined
    (fewer than 2 items common to the rankings, with ``items="common"``). An input may not be
    named like a summary row.

    Parameters
    ----------
    inputs : sequence or mapping of rankings
        The rankings that were aggregated (``{name: ranking}`` names the rows).
    aggregate : sequence
        The aggregated ranking.
    items : {"union", "common"}
        The items the taus and distances are computed on (see
        :func:`rankbook.consensus.rank_matrix`).
    gamma, lam : float in (0, 1]
        The weights of :func:`rankbook.consensus.kappa`.

    Returns
    -------
    pandas.DataFrame
        The rows described above.

    Examples
    --------
    >>> t = aggregate_scores({"j1": "abc", "j2": "bac"}, "abc")
    >>> t.loc["j1", "distance to aggregate"], t.loc["j2", "distance to aggregate"]
    (0.0, 1.0)
    >>> round(float(t.loc["inputs", "Kendall W"]), 4)
    0.75
    """
    import pandas as pd
    from scipy.stats import kendalltau

    from .consensus import kappa, kendall_w, rank_matrix

    named = _named(inputs, "inputs")
    taken = [n for n in named if n in ("inputs", "inputs + aggregate")]
    if taken:
        raise ValueError(f"an input is named {taken[0]!r}, the name of a summary row of the "
                         "table; rename it")
    agg = canonical(aggregate)
    held = set(_labels_in_order(named))
    extra = [x for x in _labels_in_order({"aggregate": agg}) if x not in held]
    if extra:
        what = "item" if len(extra) == 1 else "items"
        raise ValueError(f"the aggregate ranks {len(extra)} {what} that no input ranks: "
                         f"{', '.join(map(repr, extra[:5]))}{', ...' if len(extra) > 5 else ''}; "
                         "an aggregate orders the items of its inputs")
    rows = []
    for name, r in named.items():
        _, R = rank_matrix([r, agg], items)
        a, b = R
        da, db = np.sign(a[:, None] - a[None, :]), np.sign(b[:, None] - b[None, :])
        iu = np.triu_indices(len(a), 1)
        disc = np.abs(da[iu] - db[iu]) / 2  # 1 for opposite orders, 1/2 tied in one only
        tau = kendalltau(a, b).statistic if len(a) > 1 else float("nan")
        rows.append({"": name, "tau_b with aggregate": float(tau),
                     "distance to aggregate": float(disc.sum()),
                     "kappa": np.nan, "Kendall W": np.nan})
    for label, rs in (("inputs", list(named.values())),
                      ("inputs + aggregate", list(named.values()) + [agg])):
        try:
            w = kendall_w(rs, items=items).w
        except ValueError:
            w = float("nan")
        rows.append({"": label, "tau_b with aggregate": np.nan, "distance to aggregate": np.nan,
                     "kappa": float(kappa(rs, gamma, lam)), "Kendall W": float(w)})
    return pd.DataFrame(rows).set_index("")
