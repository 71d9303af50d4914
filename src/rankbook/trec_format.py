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

import csv
import gzip
import io
import math
import os
import re
import warnings
import zlib
from typing import Mapping, NamedTuple

import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["read_qrels", "read_run", "read_table", "as_qrels", "as_run", "QRELS_COLUMNS",
           "RUN_COLUMNS", "TrecTable", "InputNote", "InputTooLarge", "display_name", "id_text"]

#: Columns of the table :func:`read_qrels` and :func:`as_qrels` return.
QRELS_COLUMNS = ("query_id", "doc_id", "relevance")
#: Columns of the table :func:`read_run` and :func:`as_run` return.
RUN_COLUMNS = ("query_id", "doc_id", "score")


# --------------------------------------------------------------------------------------------
# files


class InputNote(UserWarning):
    """Something a reader changed on the way in, and says so (a byte-order mark removed, float
    ids written as whole numbers). Callers that report notes (``rankbook compare``) collect
    these warnings; others see them as ordinary warnings."""


class InputTooLarge(ValueError):
    """An input over the byte limit a reader was given (``max_bytes``)."""

    def __init__(self, message, name, limit):
        super().__init__(message)
        self.name, self.limit = name, limit


#: Bytes of text parsed at once: the reader never holds more than one such block as Python
#: strings, whatever the size of the file.
CHUNK_BYTES = 4 << 20
_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"


def display_name(path) -> str:
    """A file name as printable text: bytes that are not UTF-8 are shown as ``\\xNN``.

    File names are bytes on POSIX; Python decodes those that are not UTF-8 with lone
    surrogates (:func:`os.fsdecode`), which cannot be printed or written as UTF-8.

    Parameters
    ----------
    path : str, bytes or path-like
        The file name.

    Returns
    -------
    str

    Examples
    --------
    >>> display_name(b"bm25\\xff.run")
    'bm25\\\\xff.run'
    >>> display_name("dense.run")
    'dense.run'
    """
    raw = path if isinstance(path, bytes) else os.fsencode(os.fspath(path))
    return raw.decode("utf-8", "backslashreplace")


def _source_name(source) -> str:
    if isinstance(source, (str, bytes, os.PathLike)):
        return display_name(source)
    name = getattr(source, "name", None)
    if isinstance(name, (str, bytes)):
        return display_name(name)
    return "<stream>"


class _Prefixed(io.RawIOBase):
    """A binary stream whose first bytes were already read (to sniff gzip), put back in front."""

    def __init__(self, head: bytes, rest):
        self._head, self._rest = head, rest

    def readable(self):
        return True

    def readinto(self, b):
        if self._head:
            n = min(len(b), len(self._head))
            b[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(b))
        if not data:
            return 0
        n = len(data)
        b[:n] = data
        return n


def _read_exactly(fh, n: int) -> bytes:
    out = b""
    while len(out) < n:
        part = fh.read(n - len(out))
        if not part:
            break
        out += part
    return out


def _blocks(source, name: str, max_bytes, chunk_bytes: int):
    """Yield the text of ``source`` as UTF-8 byte blocks that end after a ``\\n`` (the last one
    may not), reading it once: a path (gzip recognised by its first two bytes), a binary or a
    text stream. A leading byte-order mark is removed with an :class:`InputNote`."""
    own = None
    if isinstance(source, (str, bytes, os.PathLike)):
        try:
            own = fh = open(source, "rb")
        except FileNotFoundError:
            raise ValueError(f"{name}: no such file") from None
        except IsADirectoryError:
            raise ValueError(f"{name}: is a folder; give the path of a file in it") from None
        except PermissionError:
            raise ValueError(f"{name}: cannot be read (permission denied)") from None
    elif hasattr(source, "read"):
        fh = source
    else:
        raise ValueError(f"expected a path or a stream, got {type(source).__name__}")
    try:
        if isinstance(fh.read(0), str):
            def read(n):
                try:
                    return fh.read(n).encode("utf-8", "surrogateescape")
                except UnicodeDecodeError as exc:
                    raise ValueError(f"{name}: not a UTF-8 text file ({exc.reason})") from None
            head = b""
        else:
            head = _read_exactly(fh, 2)
            if head == _GZIP_MAGIC:
                z = gzip.GzipFile(fileobj=io.BufferedReader(_Prefixed(head, fh)), mode="rb")
                head = b""

                def read(n):
                    try:
                        return z.read(n)
                    except (OSError, EOFError, zlib.error) as exc:
                        raise ValueError(f"{name}: a damaged gzip file ({exc})") from None
            else:
                read = fh.read
        while len(head) < 3:
            more = read(3 - len(head))
            if not more:
                break
            head += more
        if head.startswith(_BOM):
            head = head[3:]
            warnings.warn(f"{name}: a UTF-8 byte-order mark at the start of the file was removed "
                          "(it is not part of the first id)", InputNote, stacklevel=2)
        pending, total = head, len(head)
        while True:
            block = read(chunk_bytes)
            total += len(block)
            if max_bytes is not None and total > max_bytes:
                raise InputTooLarge(f"{name}: more than {max_bytes:,} bytes of text, over the "
                                    f"limit of {max_bytes:,} bytes", name, max_bytes)
            data = pending + block if pending else block
            if not block:
                if data:
                    yield data
                return
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                pending = data
                continue
            yield data[:cut]
            pending = data[cut:]
    finally:
        if own is not None:
            own.close()


_COLUMN_NAMES = {
    "qrels": "query iteration document relevance",
    "run": "query Q0 document rank score tag",
    "run_rank": "query Q0 document rank score tag",
}
_LAYOUT = {  # what -> (columns, value column, value name); run_rank: a run read by its ranks
    "qrels": (4, 3, "relevance"),
    "run": (6, 4, "score"),
    "run_rank": (6, 3, "rank"),
}
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_FIELD_SEP = re.compile(r"[ \t]+")
_COMMENT = re.compile(rb"(?:^|[\r\n])[ \t]*#")


def _bad_line(name, no, line, what, n_fields):
    n_cols = _LAYOUT[what][0]
    shown = line.strip(" \t")
    return ValueError(
        f"{name}:{no}: a {what.split('_')[0]} line has {n_cols} whitespace-separated columns "
        f"({_COLUMN_NAMES[what]}), this one has {n_fields}: {shown!r}")


def _bad_value(name, no, what, q, d, v, finite):
    value_name = _LAYOUT[what][2]
    if finite:
        return ValueError(f"{name}:{no}: the {value_name} of document {d!r} for query {q!r} must "
                          f"be a finite number, got {v!r}")
    return ValueError(f"{name}:{no}: the {value_name} of document {d!r} for query {q!r} is not a "
                      f"number: {v!r}")


def _scan_text(text: str, name: str, what: str, line0: int):
    """The exact line-by-line reading of one block (fields split at spaces and tabs, lines at
    ``\\n``, ``\\r\\n`` or ``\\r``): used for a block the columnar reader cannot take as it is,
    and to name the first bad line. Raises ``name:line: problem``."""
    n_cols, value_col, _ = _LAYOUT[what]
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    queries, docs, values, line_nos, tag = [], [], [], [], None
    for no, line in enumerate(lines, start=line0):
        fields = [f for f in _FIELD_SEP.split(line) if f]
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != n_cols:
            raise _bad_line(name, no, line, what, len(fields))
        q, d, v = fields[0], fields[2], fields[value_col]
        try:
            x = float(v)
        except ValueError:
            raise _bad_value(name, no, what, q, d, v, finite=False) from None
        if not math.isfinite(x):
            raise _bad_value(name, no, what, q, d, v, finite=True)
        if what != "qrels":
            if tag is None:
                tag = (fields[5], None)
            elif tag[1] is None and fields[5] != tag[0]:
                tag = (tag[0], fields[5])
        queries.append(q)
        docs.append(d)
        values.append(x)
        line_nos.append(no)
    return (np.array(queries, dtype=object), np.array(docs, dtype=object),
            np.array(values, dtype=float), np.array(line_nos, dtype=np.int64), tag, len(lines))


def _tags(column) -> tuple[str, str | None]:
    """The first run tag of a block's tag column and another one, if any line has one."""
    first = column[0]
    if isinstance(column, list):
        if column.count(first) == len(column):
            return first, None
        return first, next(t for t in column if t != first)
    other = column[column != first]
    return first, (other[0] if other.size else None)


def _field_count(block: bytes, n_lines: int) -> int:
    """Fields in a block with no blank line: spaces + lines when single spaces separate the
    fields (the common case, a few byte searches), else the starts of runs of non-blanks."""
    if (b"\t" not in block and b"  " not in block and not block.startswith(b" ")
            and b"\n " not in block and b" \n" not in block and b"\r " not in block
            and b" \r" not in block and not block.endswith(b" ")):
        return block.count(b" ") + n_lines
    arr = np.frombuffer(block, dtype=np.uint8)
    blank = (arr == 32) | (arr == 9) | (arr == 10) | (arr == 13)
    return int(np.count_nonzero(~blank[1:] & blank[:-1])) + int(arr.size > 0 and not blank[0])


#: Bytes that :func:`_split_block` leaves to the other readers: line breaks other than ``\n``,
#: the blanks that ``str.split`` would take for separators and the careful reader would not,
#: and NUL (its line-end marker).
_SPLIT_UNSAFE = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f", b"\x00")
_COMMENT_TEXT = re.compile(r"(?:^|\n)[ \t]*#")


def _split_block(block: bytes, what: str):
    """The columns of a plain block, split in one call, or None: every line ASCII with exactly
    the layout's columns separated by spaces or tabs, no comment, no blank line, every value a
    finite number. Anything else (None) goes to the pandas reader and, if need be, the careful
    line-by-line reading, so what is refused and how it is named does not change.

    Each line end becomes a NUL field (a byte no such block holds), so a single ``split`` gives
    every field and the check that each line has exactly its columns: the NUL fields must fall
    at every (columns + 1)-th place, and nowhere else."""
    if not block.isascii() or any(c in block for c in _SPLIT_UNSAFE):
        return None
    n_cols, value_col, _ = _LAYOUT[what]
    text = block.decode("ascii")
    if not text.endswith("\n"):
        text += "\n"
    n_lines = text.count("\n")
    if "#" in text and _COMMENT_TEXT.search(text):
        return None
    fields = text.replace("\n", " \x00 ").split()
    del text
    stride = n_cols + 1
    if len(fields) != stride * n_lines or fields[n_cols::stride].count("\x00") != n_lines:
        return None
    try:  # float() as the careful reader parses values
        v = np.fromiter(map(float, fields[value_col::stride]), dtype=np.float64, count=n_lines)
    except ValueError:
        return None
    if not np.isfinite(v).all():
        return None
    q = np.array(fields[0::stride], dtype=object)
    d = np.array(fields[2::stride], dtype=object)
    tag = _tags(fields[n_cols - 1::stride]) if what != "qrels" and n_lines else None
    return q, d, v, None, tag, n_lines


#: Largest file :func:`plain_columns` reads whole (bytes of text): its arrays take some five
#: times the file's size for a moment (80 MB); a larger file is read in blocks by
#: :func:`read_table`, whose memory does not grow with the file.
PLAIN_FILE_BYTES = 16 << 20
_COMMENT_BYTES = re.compile(rb"(?:^|\n)[ \t]*#")


class PlainColumns(NamedTuple):
    """The columns of a plain TREC file as :func:`plain_columns` reads them: query codes
    (int64) into ``qnames`` (text, in order of first appearance), document ids as bytes (a
    fixed-width ``S`` array, ASCII) and the values (float64)."""

    qcodes: np.ndarray
    qnames: np.ndarray
    docs: np.ndarray
    values: np.ndarray


def _byte_column(arr: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The fields ``arr[starts[i]:ends[i]]`` as one fixed-width ``S`` array (``arr`` ends with
    at least the widest field's length of spare bytes)."""
    lengths = ends - starts
    width = max(int(lengths.max()) if starts.size else 1, 1)
    mat = sliding_window_view(arr, width)[starts]  # one copy of n x width bytes
    if not np.all(lengths == width):  # ids of one width (the usual) need no zeros
        mat *= np.arange(width) < lengths[:, None]
    return mat.view(f"S{width}").ravel()


def plain_columns(source, what: str) -> PlainColumns | None:
    """The query, document and value columns of a plain TREC file, read whole with numpy, or
    None for any other file (the caller then reads it with :func:`read_table`, whose messages
    name what is wrong).

    Plain: a path to an uncompressed file of at most :data:`PLAIN_FILE_BYTES` bytes of ASCII
    without a byte-order mark, lines ended by ``\\n`` (the last may not be), every line the
    layout's columns separated by spaces or tabs, no comment or blank line, no other control
    byte (``\\r`` among them: the careful reader ends a line there), every value a finite
    number as ``float()`` reads it. Duplicates are not checked here.

    The fields are found from the blanks: with one blank between fields, a field ends at each
    blank and every line has its columns when every (columns)-th blank is a line end; else a
    field starts where a run of blanks ends, and every line has its columns when the line ends
    fall between the last field of one line and the first of the next.

    Parameters
    ----------
    source : object
        What :func:`read_table` takes; only a path can be plain.
    what : {"qrels", "run"}
        The layout.

    Returns
    -------
    PlainColumns or None
    """
    if what not in _LAYOUT or not isinstance(source, (str, os.PathLike)):
        return None
    try:
        if not os.path.isfile(source) or os.path.getsize(source) > PLAIN_FILE_BYTES:
            return None
        with open(source, "rb") as fh:
            data = fh.read(PLAIN_FILE_BYTES + 1)
    except OSError:
        return None
    if (not data or len(data) > PLAIN_FILE_BYTES or data.startswith((_GZIP_MAGIC, _BOM))
            or not data.isascii() or (b"#" in data and _COMMENT_BYTES.search(data))):
        return None
    n_cols, value_col, _ = _LAYOUT[what]
    if not data.endswith(b"\n"):
        data += b"\n"
    arr = np.frombuffer(data, dtype=np.uint8)
    blank = arr < 33
    seps = np.flatnonzero(blank)
    kinds = np.bincount(arr[seps], minlength=33)
    if kinds[9] + kinds[10] + kinds[32] != seps.size:
        return None  # another control byte: the careful reader's business
    n = int(kinds[10])
    if seps.size == n * n_cols and seps[0] > 0 and np.all(seps[1:] - seps[:-1] > 1):
        # one blank between fields (the usual file): each field ends at a blank, and each
        # line has its columns when every n_cols-th blank is a line end
        if not np.all(arr[seps[n_cols - 1::n_cols]] == 10):
            return None
        line_starts = np.concatenate([[0], seps[n_cols - 1:-1:n_cols] + 1])
        fields = {c: (seps[c - 1::n_cols] + 1 if c else line_starts, seps[c::n_cols])
                  for c in (0, 2, value_col)}
    else:  # runs of blanks: a field starts where a run ends
        edges = np.flatnonzero(blank[1:] != blank[:-1]) + 1
        if not blank[0]:
            edges = np.concatenate([[0], edges])
        starts, ends = edges[0::2], edges[1::2]  # the text ends with a blank: as many ends
        lines = np.flatnonzero(arr == 10)
        if (starts.size != n * n_cols or not np.all(ends[n_cols - 1::n_cols] <= lines)
                or not np.all(starts[n_cols::n_cols] > lines[:-1])):
            return None
        fields = {c: (starts[c::n_cols], ends[c::n_cols]) for c in (0, 2, value_col)}
    del blank, seps
    spare = max(int((e - s).max()) for s, e in fields.values())
    arr = np.concatenate([arr, np.zeros(spare, dtype=np.uint8)])
    try:  # numpy reads bytes as float() does
        values = _byte_column(arr, *fields[value_col]).astype(np.float64)
    except ValueError:
        return None
    if not np.isfinite(values).all():
        return None
    queries = _byte_column(arr, *fields[0])
    docs = _byte_column(arr, *fields[2])
    heads = np.flatnonzero(np.concatenate([[True], queries[1:] != queries[:-1]]))
    codes, qnames = pd.factorize(queries[heads].astype("U").astype(object))
    qcodes = np.repeat(codes.astype(np.int64), np.diff(np.append(heads, n)))
    return PlainColumns(qcodes, np.asarray(qnames, dtype=object), docs, values)


def _parse_block(block: bytes, name: str, what: str, line0: int, offset: int):
    """(queries, documents, values, line numbers or None, run tags, lines in the block) of one
    block, the run tags being the first line's and another one or None: split at once when the block is plain (:func:`_split_block`), else read column by
    column with pandas' C reader (line numbers None: every line is a data line). A block
    neither can take exactly as it is (comments, blank lines, any bad line) is read line by
    line instead (:func:`_scan_text`), which names the first bad line."""
    plain = _split_block(block, what)
    if plain is not None:
        return plain
    try:
        text = block.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name}: not a UTF-8 text file ({exc.reason} at byte "
                         f"{offset + exc.start})") from None
    n_cols, value_col, _ = _LAYOUT[what]
    if b"\x00" in block:
        return _scan_text(text, name, what, line0)
    del text
    last = n_cols - 1
    use = sorted({0, 2, value_col, last})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            df = pd.read_csv(io.BytesIO(block), sep=r"\s+", header=None, names=list(range(n_cols)),
                             usecols=use, index_col=False,
                             dtype={c: (np.float64 if c == value_col else object) for c in use},
                             float_precision="round_trip", na_filter=False,
                             quoting=csv.QUOTE_NONE, skip_blank_lines=False, engine="c",
                             encoding="utf-8")
    except (pd.errors.ParserError, pd.errors.ParserWarning, ValueError, TypeError):
        return _scan_text(block.decode("utf-8"), name, what, line0)
    n_lines = len(df)
    q = df[0].to_numpy(dtype=object)
    d = df[2].to_numpy(dtype=object)
    v = df[value_col].to_numpy(dtype=np.float64)
    tail = df[last].to_numpy(dtype=object) if last != value_col else None
    del df
    fine = (np.isfinite(v).all()
            and not (b"#" in block and any(s.startswith("#") for s in pd.unique(q)))
            and (tail is None or not (tail == "").any())
            and not (q == "").any()
            and _field_count(block, n_lines) == n_cols * n_lines)
    if not fine:
        return _scan_text(block.decode("utf-8"), name, what, line0)
    tag = _tags(tail) if what != "qrels" and n_lines else None
    return q, d, v, None, tag, n_lines


def _canonical_ints(ids: np.ndarray):
    """``ids`` (text) as int64 when every one is a non-negative integer written canonically
    (no sign, no leading zero, at most 18 digits), so that ``str(int(x)) == x``; else None."""
    if ids.size == 0 or not (isinstance(ids[0], str) and ids[0].isdigit()):
        return None  # the first id tells most text ids apart without converting any
    try:
        b = ids.astype("S")
    except (UnicodeEncodeError, ValueError):
        return None
    w = b.dtype.itemsize
    if w > 18:
        return None
    m = b.view(np.uint8).reshape(ids.size, w)
    n = (m != 0).sum(axis=1)
    digit = (m >= 48) & (m <= 57)
    inside = np.arange(w)[None, :] < n[:, None]
    if not (np.all(digit == inside) and np.all(n > 0)):
        return None
    if np.any((m[:, 0] == 48) & (n > 1)):
        return None
    out = np.zeros(ids.size, dtype=np.int64)
    d = m.astype(np.int64) - 48
    for j in range(w):
        out = np.where(inside[:, j], out * 10 + d[:, j], out)
    return out


def _factorize_runs(ids: np.ndarray):
    """``pd.factorize(ids)``, hashing only the first id of each run of equal ids when the ids
    come in runs (a file's query ids: a query's lines are together); the same codes."""
    if ids.size > 1:
        starts = np.flatnonzero(np.concatenate([[True], ids[1:] != ids[:-1]]))
        if starts.size * 4 <= ids.size:
            codes, uniq = pd.factorize(ids[starts])
            return np.repeat(codes, np.diff(np.append(starts, ids.size))), uniq
    return pd.factorize(ids)


class _Ids:
    """Ids of a whole file built block by block: factorized per block, merged at the end."""

    def __init__(self, try_ints: bool, in_runs: bool = False):
        self.ints = try_ints
        self.in_runs = in_runs  # ids that come in runs of equal ids (a file's query ids)
        self.parts = []  # int64 arrays, or (codes, uniques)

    def add(self, ids: np.ndarray):
        if self.ints:
            as_int = _canonical_ints(ids)
            if as_int is not None:
                self.parts.append(as_int)
                return
            self.ints = False
        codes, uniq = _factorize_runs(ids) if self.in_runs else pd.factorize(ids)
        self.parts.append((codes.astype(np.int32), np.asarray(uniq, dtype=object)))

    def finish(self):
        """(codes, names) with names text; or (int64 ids, None) when every id is an integer.
        The blocks are released: only the merged columns stay."""
        blocks, self.parts = self.parts, []
        if self.ints:
            return (np.concatenate(blocks) if blocks else np.zeros(0, np.int64)), None
        parts = []
        for p in blocks:
            if isinstance(p, tuple):
                parts.append(p)
            else:  # a block of integer ids before the first block that was not
                codes, uniq = pd.factorize(p)
                parts.append((codes, np.array([str(u) for u in uniq], dtype=object)))
        if not parts:
            return np.zeros(0, np.int64), np.zeros(0, dtype=object)
        if len(parts) == 1:  # one block: its distinct values are already the names
            codes, names = parts[0]
            small = np.int32 if len(names) < 2**31 else np.int64
            return codes.astype(small, copy=False), np.asarray(names, dtype=object)
        allu = np.concatenate([u for _, u in parts])
        merged, names = pd.factorize(allu)
        small = np.int32 if len(names) < 2**31 else np.int64
        merged = merged.astype(small)
        offsets = np.cumsum([0] + [u.size for _, u in parts[:-1]])
        codes = np.empty(sum(c.size for c, _ in parts), dtype=small)
        at = 0
        for (c, _), off in zip(parts, offsets):
            codes[at:at + c.size] = merged[off + c]
            at += c.size
        return codes, np.asarray(names, dtype=object)


class TrecTable:
    """A qrels or run file read into columns: query codes and their names, document ids (int64
    when every id is an integer written canonically, else codes and names), values, the line
    of each row, the run tag of the first line (``None`` for qrels or an empty file) and
    ``other_tag``, a different tag some later line carries (``None`` when every line has the
    first line's)."""

    def __init__(self, name, what, qcodes, qnames, docs, dnames, values, line_map, tag,
                 other_tag=None):
        self.name, self.what = name, what
        self.qcodes, self.qnames, self.docs, self.dnames = qcodes, qnames, docs, dnames
        self.values, self.tag, self.other_tag = values, tag, other_tag
        self._line_map = line_map  # per block: (first row, first line, line numbers or None)

    def __len__(self):
        return self.values.size

    def line_of(self, row: int) -> int:
        """The line of the file that row ``row`` was read from."""
        starts = [s for s, _, _ in self._line_map]
        k = int(np.searchsorted(starts, row, side="right")) - 1
        start, line0, lines = self._line_map[k]
        return int(lines[row - start]) if lines is not None else line0 + row - start

    def query_ids(self) -> np.ndarray:
        return self.qnames[self.qcodes]

    def doc_ids(self, compact: bool = False) -> np.ndarray:
        if self.dnames is not None:
            return self.dnames[self.docs]
        if compact:
            return self.docs
        codes, uniq = pd.factorize(self.docs)
        return np.array([str(u) for u in uniq], dtype=object)[codes]

    def frame(self, compact: bool = False) -> pd.DataFrame:
        """The tidy table; ``compact`` keeps integer document ids as int64 (the scorer compares
        ids as text, and these write back exactly)."""
        value_name = _LAYOUT[self.what][2]
        return pd.DataFrame({"query_id": self.query_ids(), "doc_id": self.doc_ids(compact),
                             value_name: self.values})


def read_table(source, what: str, *, max_bytes: int | None = None,
               chunk_bytes: int = CHUNK_BYTES, order: str = "score") -> TrecTable:
    """Read a qrels (``what="qrels"``) or run (``"run"``) file once, block by block, into
    columns (see :class:`TrecTable`); the engine of :func:`read_qrels` and :func:`read_run`.

    ``source`` is a path (a gzip file is recognised by its first bytes and read directly), or a
    binary or text stream (a pipe, ``/dev/fd/N`` from process substitution, standard input):
    it is read once, from the start. ``max_bytes`` bounds the text read (after
    decompression): :class:`InputTooLarge` is raised as soon as it is passed. A run read with
    ``order="rank"`` keeps its rank column (the fourth) as its values instead of the scores.

    Parameters
    ----------
    source : str, path-like or stream
        The file, as above.
    what : {"qrels", "run"}
        The layout.
    max_bytes : int, optional
        The most text read.
    chunk_bytes : int
        Bytes per block.
    order : {"score", "rank"}
        A run's values: its scores, or its rank column.

    Returns
    -------
    TrecTable

    Examples
    --------
    >>> import gzip, io
    >>> t = read_table(io.BytesIO(gzip.compress(b"1 Q0 7 1 2.5 bm25\\n1 Q0 12 2 1.5 bm25\\n")), "run")
    >>> len(t), t.tag, t.docs.dtype, t.line_of(1)
    (2, 'bm25', dtype('int64'), 2)
    >>> t.frame()
      query_id doc_id  score
    0        1      7    2.5
    1        1     12    1.5
    """
    if what not in ("qrels", "run"):
        raise ValueError(f"what must be 'qrels' or 'run', got {what!r}")
    if order not in ("score", "rank"):
        raise ValueError(f"order must be 'score' or 'rank', got {order!r}")
    if order == "rank":
        if what != "run":
            raise ValueError("order='rank' reads the rank column of a run; a qrels file has none")
        what = "run_rank"
    name = _source_name(source)
    qids, dids = _Ids(try_ints=False, in_runs=True), _Ids(try_ints=True)
    values, line_map, tag, other_tag = [], [], None, None
    line0, offset, rows = 1, 0, 0
    for block in _blocks(source, name, max_bytes, chunk_bytes):
        q, d, v, ln, t, n_lines = _parse_block(block, name, what, line0, offset)
        if v.size:
            qids.add(q)
            dids.add(d)
            values.append(v)
            line_map.append((rows, line0, ln))
            rows += v.size
            if t is not None:
                if tag is None:
                    tag, other_tag = t
                elif other_tag is None:
                    other_tag = t[0] if t[0] != tag else t[1]
        del q, d
        line0 += n_lines
        offset += len(block)
    # each column merged from its blocks, whose memory goes back before the next is merged
    release_memory()
    qcodes, qnames = qids.finish()
    release_memory()
    docs, dnames = dids.finish()
    release_memory()
    values = np.concatenate(values) if values else np.zeros(0)
    release_memory()
    table = TrecTable(name, what, qcodes, qnames, docs, dnames, values, line_map, tag, other_tag)
    del qids, dids, values
    _refuse_duplicates(table)
    if what == "run_rank":
        _refuse_shared_ranks(table)
    release_memory()
    return table


_MALLOC_TRIM = []
#: Rows whose duplicate check is one sort (a run whose queries' lines are together): a bounded
#: key (8 MB) however long the run, and a signal answered between blocks.
DUPLICATE_BLOCK_ROWS = 1 << 20


def release_memory() -> None:
    """Give the memory freed so far back to the operating system (glibc's ``malloc_trim``).

    Parsing a run block by block frees many small buffers and strings; glibc keeps such memory
    in its heap, where the large arrays that follow (allocated apart, with ``mmap``) cannot use
    it: after a 7-million-line run is read, some 200 MB of the resident size is memory already
    freed. Where the C library has no ``malloc_trim`` (macOS, musl), this does nothing.

    Examples
    --------
    >>> release_memory()
    """
    if not _MALLOC_TRIM:
        trim = None
        try:
            import ctypes

            trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
        except (OSError, AttributeError, ImportError):
            pass
        if trim is not None:
            trim.argtypes = [ctypes.c_size_t]
            trim.restype = ctypes.c_int
        _MALLOC_TRIM.append(trim)
    if _MALLOC_TRIM[0] is not None:
        _MALLOC_TRIM[0](0)


def _refuse_duplicates(t: TrecTable) -> None:
    """A document listed twice for a query: ``name:line`` of the second listing and the line of
    the first. Sorts of a packed (query, document) key find whether there is one: when every
    query's lines are together (query codes, numbered in order of appearance, never decrease),
    a block of whole queries at a time (:data:`DUPLICATE_BLOCK_ROWS`), else the whole file."""
    if len(t) < 2:
        return
    q, d = t.qcodes, t.docs
    if d.size and d.min() >= 0 and d.max() < 2**40 and q.max() < 2**23:
        n = q.size
        step = n if not bool(np.all(q[1:] >= q[:-1])) else DUPLICATE_BLOCK_ROWS
        start, clean = 0, True
        while start < n and clean:
            end = min(start + step, n)
            if end < n:  # up to the end of the block's last query
                end = int(np.searchsorted(q, q[end - 1], side="right"))
            key = q[start:end].astype(np.int64)
            key <<= 40
            key |= d[start:end]
            key.sort()
            clean = not (key[1:] == key[:-1]).any()
            del key
            start = end
        if clean:
            return
    q = q.astype(np.int64)
    dup = pd.DataFrame({"q": q, "d": d}).duplicated(keep="first").to_numpy()
    if not dup.any():
        return
    i = int(np.flatnonzero(dup)[0])
    first = int(np.flatnonzero((q == q[i]) & (d == d[i]))[0])
    qn = t.qnames[q[i]]
    dn = t.dnames[d[i]] if t.dnames is not None else str(int(d[i]))
    raise ValueError(
        f"{t.name}:{t.line_of(i)}: document {dn!r} appears twice for query {qn!r} (first on line "
        f"{t.line_of(first)}); trec_eval refuses duplicate documents too"
    )


def bad_ranks(ranks, max_rank: float | None = None) -> np.ndarray:
    """Where the ranks of an explicit order are not whole numbers from 1 (and up to
    ``max_rank``): a boolean mask, true for nan and inf too. The one rule of every reader and
    scorer of explicit orders.

    Parameters
    ----------
    ranks : array_like of float
        The ranks.
    max_rank : float, optional
        The largest valid rank.

    Returns
    -------
    ndarray of bool, the shape of ``ranks``

    Examples
    --------
    >>> bad_ranks([1, 2, 0, 2.5, -3, float("nan")]).tolist()
    [False, False, True, True, True, True]
    """
    r = np.asarray(ranks, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(r) & (r >= 1) & (r == np.floor(r))
        if max_rank is not None:
            ok &= r <= max_rank
    return ~ok


def _refuse_shared_ranks(t: TrecTable) -> None:
    """An explicit order (``order="rank"``) with a rank that is not a whole number from 1, or
    two documents of a query at the same rank: ``name:line`` of the (second) row."""
    bad = np.flatnonzero(bad_ranks(t.values))
    if bad.size:
        i = int(bad[0])
        doc = t.dnames[t.docs[i]] if t.dnames is not None else str(int(t.docs[i]))
        raise ValueError(
            f"{t.name}:{t.line_of(i)}: document {doc!r} of query {t.qnames[t.qcodes[i]]!r} has "
            f"rank {t.values[i]:g}; an explicit order numbers its documents 1, 2, ... (whole "
            "numbers from 1)")
    if len(t) < 2:
        return
    q = t.qcodes.astype(np.int64)
    dup = pd.DataFrame({"q": q, "r": t.values}).duplicated(keep="first").to_numpy()
    if not dup.any():
        return
    i = int(np.flatnonzero(dup)[0])
    first = int(np.flatnonzero((q == q[i]) & (t.values == t.values[i]))[0])
    name = lambda row: t.dnames[t.docs[row]] if t.dnames is not None else str(int(t.docs[row]))
    raise ValueError(
        f"{t.name}:{t.line_of(i)}: documents {name(first)!r} and {name(i)!r} of query "
        f"{t.qnames[q[i]]!r} share rank {t.values[i]:g} (the first on line {t.line_of(first)}); "
        "an explicit order needs distinct ranks (order='score' ranks by score and breaks ties "
        "by the profile's rule)")


def _read(path, what: str, max_bytes: int | None = None, order: str = "score") -> pd.DataFrame:
    table = read_table(path, what, max_bytes=max_bytes, order=order)
    df = table.frame()
    if what == "run":
        df.attrs["tag"] = table.tag
    return df


def read_qrels(path, *, max_bytes: int | None = None) -> pd.DataFrame:
    """Read a TREC qrels file: ``query iteration document relevance`` per line.

    The file is read once, in blocks, column by column: a path, a ``.gz`` file (recognised by
    its first bytes), a pipe or ``/dev/fd/N`` from process substitution, or an open stream.
    Fields are separated by spaces and tabs. A UTF-8 byte-order mark at the start is removed
    with an :class:`InputNote` warning naming the file.

    Parameters
    ----------
    path : str, path-like or file object
    max_bytes : int, optional
        Refuse (:class:`InputTooLarge`) a file with more bytes of text than this.

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
    return _read(path, "qrels", max_bytes)


def read_run(path, *, max_bytes: int | None = None, order: str = "score") -> pd.DataFrame:
    """Read a TREC run file: ``query Q0 document rank score tag`` per line.

    By default the rank column is ignored: every tool ranks by score (trec_eval does too), and
    what happens to equal scores is a convention of each tool (:mod:`rankbook.conventions`).
    With ``order="rank"`` the rank column is read instead of the scores: the run is an explicit
    order, which :func:`rankbook.conventions.evaluate_run` scores as given with
    ``order="rank"``. The file is read once, as :func:`read_qrels` reads it; the tag of the
    first line is kept in ``attrs["tag"]``.

    Parameters
    ----------
    path : str, path-like or file object
    max_bytes : int, optional
        Refuse (:class:`InputTooLarge`) a file with more bytes of text than this.
    order : {"score", "rank"}
        Which column holds the values: the scores (fifth) or the ranks (fourth).

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id`` (str), ``doc_id`` (str), ``score`` (float), in file order;
        ``rank`` (float) instead of ``score`` with ``order="rank"``.

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
    >>> read_run(p, order="rank")
      query_id doc_id  rank
    0        1      b   1.0
    1        1      a   2.0
    >>> _ = p.write_text("1 Q0 b 1 1.0 mine\\n1 Q0 b 2 0.5 mine\\n")
    >>> read_run(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...run.txt:2: document 'b' appears twice for query '1' (first on line 1); trec_eval refuses duplicate documents too
    """
    return _read(path, "run", max_bytes, order)


# --------------------------------------------------------------------------------------------
# any spelling -> tidy table


def id_text(uniques, where: str = "ids") -> np.ndarray:
    """Distinct ids as text, as trec_eval compares them: a str stays as it is, an integer is
    written in decimal, and a float that is exactly a whole number is written without its
    ``.0`` (pandas turns an integer id column with a gap into floats: ``1.0`` is query ``"1"``),
    with an :class:`InputNote` warning naming ``where``. Other floats keep Python's shortest
    spelling (``1.5``).

    Parameters
    ----------
    uniques : array_like
        The distinct ids (str, int or float).
    where : str
        What they are, for the note.

    Returns
    -------
    ndarray of object
        The ids as str.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     list(id_text([1.0, 2.5, "07", 3]))
    ['1', '2.5', '07', '3']
    """
    if isinstance(uniques, np.ndarray) and uniques.dtype == object and \
            pd.api.types.infer_dtype(uniques, skipna=False) == "string":
        return uniques.copy()  # every id is already text: nothing to convert
    out = np.empty(len(uniques), dtype=object)
    whole = []
    for i, u in enumerate(uniques):
        if isinstance(u, str):
            out[i] = u
        elif isinstance(u, (float, np.floating)) and math.isfinite(u) and float(u).is_integer():
            out[i] = str(int(u))
            whole.append(u)
        else:
            out[i] = str(u)
    if whole:
        shown = ", ".join(repr(float(x)) for x in whole[:3]) + (", ..." if len(whole) > 3 else "")
        warnings.warn(f"{where}: {len(whole)} id(s) are floats with a whole value ({shown}); ids "
                      f"are compared as text, so they are read as {str(int(whole[0]))!r} and so "
                      "on", InputNote, stacklevel=3)
    return out


def _ids_as_str(values: pd.Series, where: str = "ids") -> np.ndarray:
    """Ids as an object array of str; only the distinct values are converted (fast for ints)."""
    arr = values.to_numpy()
    if arr.dtype == object and all(isinstance(x, str) for x in arr[: min(len(arr), 64)]):
        if all(isinstance(x, str) for x in arr):
            return arr
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    if (codes < 0).any():
        raise ValueError("an id is missing (None or NaN); every row needs a query id and a document id")
    as_str = id_text(np.asarray(uniques, dtype=object), where)
    return as_str[codes]


def _mapping_columns(obj: Mapping, value_name: str, what: str):
    """(query ids, document ids, values) of ``{query: {document: value}}`` as object arrays,
    without building a DataFrame."""
    names, counts, docs, values = [], [], [], []
    for q, inner in obj.items():
        if not isinstance(inner, Mapping):
            raise ValueError(
                f"{what} as a dict must map each query to a dict {{document: {value_name}}}; "
                f"query {q!r} maps to {type(inner).__name__}"
            )
        names.append(q)
        counts.append(len(inner))
        docs.extend(inner.keys())
        values.extend(inner.values())
    qnames = np.empty(len(names), dtype=object)
    for i, q in enumerate(names):  # one by one: an id may itself be a sequence
        qnames[i] = q
    n = len(docs)
    return (np.repeat(qnames, counts), np.fromiter(docs, dtype=object, count=n),
            np.fromiter(values, dtype=object, count=n))


def _raw_columns(obj, value_name: str, what: str):
    """(query ids, document ids, values) of any accepted spelling, as arrays in input order.

    File ids come back as a :class:`pandas.Categorical` of their text (integer document ids
    that write back exactly as int64); DataFrame and dict ids as given (the callers compare
    them as text).
    """
    if _is_file(obj):
        obj = read_table(obj, "qrels" if what == "qrels" else "run")
    if isinstance(obj, TrecTable):  # ids as codes of their distinct values: nothing per row
        docs = (obj.docs if obj.dnames is None
                else pd.Categorical.from_codes(obj.docs, obj.dnames, validate=False))
        return (pd.Categorical.from_codes(obj.qcodes, obj.qnames, validate=False), docs,
                obj.values)
    if isinstance(obj, pd.DataFrame):
        need = ["query_id", "doc_id", value_name]
        missing = [c for c in need if c not in obj.columns]
        if missing:
            raise ValueError(
                f"the {what} DataFrame needs columns {need}; missing {missing} "
                f"(it has {list(obj.columns)})"
            )
        df = obj
    elif isinstance(obj, Mapping):
        return _mapping_columns(obj, value_name, what)
    else:
        raise ValueError(
            f"{what} must be a dict of dicts, a path to a TREC {what} file or a DataFrame with "
            f"columns query_id, doc_id, {value_name}; got {type(obj).__name__}"
        )
    return df["query_id"].to_numpy(), df["doc_id"].to_numpy(), df[value_name].to_numpy()


def _is_file(obj) -> bool:
    return isinstance(obj, (str, bytes, os.PathLike)) or (
        hasattr(obj, "read") and not isinstance(obj, (pd.DataFrame, Mapping)))


def _tidy(obj, value_name: str, what: str) -> pd.DataFrame:
    if isinstance(obj, TrecTable):
        return obj.frame()
    if _is_file(obj):
        return _read(obj, "qrels" if what == "qrels" else "run")
    rq, rd, raw = _raw_columns(obj, value_name, what)
    df = pd.DataFrame({"query_id": rq, "doc_id": rd, value_name: raw})
    q = _ids_as_str(df["query_id"], f"the query ids of the {what}")
    d = _ids_as_str(df["doc_id"], f"the document ids of the {what}")
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


_PLAIN_NUMBERS = {float, int, np.float64, np.float32, np.float16, np.int64, np.int32, np.int16,
                  np.int8, np.uint64, np.uint32, np.uint16, np.uint8}


def _as_numbers(raw, who, value_name: str, what: str) -> np.ndarray:
    """``raw`` as finite floats; ``who(i)`` names (query, document) of row i for the message."""
    raw = np.asarray(raw)
    vals = None
    if raw.dtype.kind in "iuf":
        vals = raw.astype(float, copy=False)
    elif raw.dtype == object and raw.size and set(map(type, raw)) <= _PLAIN_NUMBERS:
        try:  # every value a plain int or float (no bool, no text): one conversion in C
            vals = raw.astype(float)
        except (OverflowError, TypeError, ValueError):
            vals = None
    if vals is None:
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

    Parameters
    ----------
    qrels : str, path-like, pandas.DataFrame or dict
        A qrels file, a table, or ``{query: {doc: relevance}}``.

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id``, ``doc_id``, ``relevance``.

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

    Parameters
    ----------
    run : str, path-like, pandas.DataFrame or dict
        A run file, a table, or ``{query: {doc: score}}``.

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id``, ``doc_id``, ``score``.

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
