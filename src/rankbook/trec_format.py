"""Relevance judgements (qrels) and runs as the IR tools write them, read into tidy tables.

Three spellings of the same data are accepted everywhere in :mod:`rankbook.conventions`:

* TREC files: a qrels file has four whitespace-separated columns
  ``query iteration document relevance`` and a run file six,
  ``query Q0 document rank score tag`` (trec_eval's formats {cite}`trec_eval`; the iteration,
  ``Q0``, rank and tag columns are read and ignored, as trec_eval ignores them). A line whose
  first field starts with ``#`` is a comment (trec_eval 10 does the same); a ``#`` inside a
  line is data, so a document id may contain one.
* dicts of dicts, ``{query: {document: relevance}}`` and ``{query: {document: score}}``, the
  input of pytrec_eval, ir_measures and ranx.
* pandas DataFrames with columns ``query_id, doc_id, relevance`` and ``query_id, doc_id,
  score`` (ir_measures' column names).

Query and document ids are compared as strings, as trec_eval compares them: the integer ``7``
in a DataFrame and the string ``"7"`` in a file are the same query. The order of the documents
of a query is kept as given (some tools break ties by it, see :mod:`rankbook.conventions`).

Every reader raises :class:`ValueError` for bad input, naming the problem, the query and the
document; the file readers also name ``path:line``.

One reader for every command
----------------------------
Every TREC file rankbook reads goes through :func:`read_table`, which opens it with
:func:`open_input`: ``rankbook compare``, ``rankbook reproduce``,
:func:`rankbook.conventions.evaluate_run` and :func:`rankbook.repro.reproduce` given paths,
the notebooks, and any new command (``rankbook eval``, ``rankbook check``), which should call
the same functions:

* :func:`open_input` ``(source, max_bytes=None)``: an :class:`Input` to read once: its
  ``name`` for messages, its ``kind`` and ``compression``;
* :func:`read_table` ``(source, "qrels" | "run", max_bytes=None, order="score")``: the
  columns of a whole file (:class:`TrecTable`: query codes and names, document ids, values,
  the line of each row, the run tag, the comment lines on top, where each query starts);
* :func:`read_qrels`, :func:`read_run`: the same as tidy DataFrames;
* :func:`check_sources` ``(sources, max_bytes)``: the checks a command makes on all its
  inputs before reading any (missing files, folders, sizes over the limit, standard input or
  one pipe given twice).

The guarantees are the same whoever reads:

* **sources**: a path; ``-`` for standard input (a file named ``-`` is ``./-``); a pipe or
  ``/dev/fd/N`` from process substitution (``<(zcat run.gz)``); an open binary or text
  stream. Each is read exactly once, from start to end, in blocks of :data:`CHUNK_BYTES`:
  nothing is reopened or read again, so a pipe gives what a file gives.
* **compression**: gzip, bzip2 and xz are recognised by their first bytes (not by the file
  name) and read as they are decompressed. zstd, lz4, ``compress``, zip and 7-Zip data, a
  file compressed twice and UTF-16 text are refused in one line that names what the file is
  and the command that makes it readable.
* **size**: with ``max_bytes``, a regular file larger than the limit is refused before a byte
  is read, and any other input (a pipe, a compressed file) as soon as its text passes the
  limit, so that memory stays bounded (:class:`InputTooLarge`).
* **lines**: fields are separated by spaces and tabs; lines end with ``\\n``, ``\\r\\n`` or
  ``\\r``; a UTF-8 byte-order mark at the start is removed with an :class:`InputNote`; blank
  lines and comments are skipped, and the comment lines on top (an ``ir_metadata`` block) are
  kept in :attr:`TrecTable.header`.
* **refusals**, each a :class:`ValueError` ``name:line: problem``: a line with other columns;
  a value that is not a decimal number as C reads one (digits with an optional sign, point and
  exponent: ``1_0``, ``١`` and ``0x1p3`` are refused, which Python's ``float`` would take);
  ``inf`` and ``nan``; a control character (NUL, ``\\x0b``, DEL, ...) anywhere in the text;
  text that is not UTF-8; a document listed twice for a query. A relevance level written with
  an exponent (``1e2``) is read as its value (100) and remembered
  (:attr:`TrecTable.exponent`): the profiles that take whole levels refuse it, since trec_eval
  reads ``1e2`` as 1 (:func:`rankbook.conventions.evaluate_run`).
* **speed**: each block is split into columns with numpy (field boundaries found from the
  blanks, numbers parsed digit by digit, document ids kept as bytes and hashed); only a block
  with something to refuse, or lines ended by a lone ``\\r``, is read line by line, and that
  reading names the line. Reading takes about 10 s of CPU per gigabyte of text (a run of 10 M
  lines, 0.35 GB, in 3 s), and the columns kept take the bytes of the document ids (padded to
  a multiple of 8) plus 12 bytes per line.
"""

from __future__ import annotations

import io
import math
import os
import re
import stat
import sys
import warnings
import zlib
from typing import Mapping, NamedTuple

import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import sliding_window_view

from ._validation import check_no_nul

__all__ = ["read_qrels", "read_run", "read_table", "read_header", "open_input", "check_sources",
           "Input", "as_qrels", "as_run", "QRELS_COLUMNS", "RUN_COLUMNS", "TrecTable",
           "InputNote", "InputTooLarge", "display_name", "id_text", "STDIN"]

#: Columns of the table :func:`read_qrels` and :func:`as_qrels` return.
QRELS_COLUMNS = ("query_id", "doc_id", "relevance")
#: Columns of the table :func:`read_run` and :func:`as_run` return.
RUN_COLUMNS = ("query_id", "doc_id", "score")


# --------------------------------------------------------------------------------------------
# opening a source


class InputNote(UserWarning):
    """Something a reader changed on the way in, and says so (a byte-order mark removed, float
    ids written as whole numbers). Callers that report notes (``rankbook compare``) collect
    these warnings; others see them as ordinary warnings."""


class InputTooLarge(ValueError):
    """An input over the byte limit a reader was given (``max_bytes``)."""

    def __init__(self, message, name, limit):
        super().__init__(message)
        self.name, self.limit = name, limit


#: Bytes of text parsed at once: the reader never holds more than one such block as raw text,
#: whatever the size of the file.
CHUNK_BYTES = 4 << 20
#: The name a source gives for standard input, and the name of standard input in messages.
STDIN = "-"
_STDIN_NAME = "<stdin>"
_BOM = b"\xef\xbb\xbf"
#: Compressions read as they are decompressed: (first bytes, name, Python module).
_READ = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"))
#: Data refused with what to do: (first bytes, what it is, command to decompress, to pipe).
_REFUSED = (
    (b"\x28\xb5\x2f\xfd", "zstd-compressed", "zstd -d FILE", "zstd -dc FILE"),
    (b"\x04\x22\x4d\x18", "lz4-compressed", "lz4 -d FILE", "lz4 -dc FILE"),
    (b"\x1f\x9d", "compressed with compress (.Z)", "uncompress FILE", "zcat FILE"),
    (b"PK\x03\x04", "a zip archive", "unzip FILE", "unzip -p FILE"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "7z x FILE", "7z e -so FILE"),
)
_SNIFF = 10  # bytes looked at to recognise a compression


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


def _is_stdin(source) -> bool:
    return isinstance(source, (str, bytes)) and source in (STDIN, STDIN.encode())


def _source_name(source) -> str:
    if _is_stdin(source):
        return _STDIN_NAME
    if isinstance(source, (str, bytes, os.PathLike)):
        return display_name(source)
    name = getattr(source, "name", None)
    if isinstance(name, (str, bytes)):
        return display_name(name)
    return "<stream>"


class _Prefixed(io.RawIOBase):
    """A binary stream whose first bytes were already read (to sniff a compression), put
    back in front."""

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


def _read_exactly(read, n: int) -> bytes:
    out = b""
    while len(out) < n:
        part = read(n - len(out))
        if not part:
            break
        out += part
    return out


def _compression(head: bytes) -> str | None:
    for magic, name in _READ:
        if head.startswith(magic):
            if name == "bz2" and not (len(head) > 3 and head[3:4] in b"123456789"):
                continue  # "BZh" then a block size: anything else is text
            return name
    return None


def _refused(head: bytes):
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return ("UTF-16 text (it starts with a UTF-16 byte-order mark)",
                "rankbook reads UTF-8: convert it, e.g. iconv -f UTF-16 -t UTF-8 FILE > FILE.txt")
    for magic, what, unpack, pipe in _REFUSED:
        if head.startswith(magic):
            return (what, f"rankbook reads plain text, gzip, bz2 and xz: decompress it first "
                          f"({unpack}) or give it as <({pipe})")
    return None


class Input:
    """A source opened by :func:`open_input`, to be read once with :meth:`read`.

    Attributes
    ----------
    name : str
        The source as messages name it: the path as given (bytes that are not UTF-8 escaped),
        ``<stdin>`` for standard input, a stream's ``name`` or ``<stream>``.
    kind : {"file", "pipe", "stdin", "stream"}
        A regular file; a pipe, FIFO or device (``/dev/fd/N``); standard input; an open
        stream.
    compression : {None, "gzip", "bz2", "xz"}
        Recognised from the first bytes; :meth:`read` gives the decompressed text.
    size : int or None
        Bytes on disk of a regular file.
    """

    def __init__(self, name, kind, size, max_bytes):
        self.name, self.kind, self.size, self.max_bytes = name, kind, size, max_bytes
        self.compression = None
        self.bytes_read = 0  # bytes of text given so far (after decompression)
        self._read = None
        self._close = []

    def read(self, n: int) -> bytes:
        """Up to ``n`` bytes of text (``b""`` at the end). Raises :class:`InputTooLarge` as
        soon as the text passes ``max_bytes``, and ``ValueError`` for damaged compressed
        data."""
        try:
            data = self._read(n)
        except (OSError, EOFError, zlib.error) as exc:
            if self.compression is None:
                raise ValueError(f"{self.name}: cannot be read ({exc})") from None
            raise ValueError(f"{self.name}: a damaged {self.compression} file ({exc}); check "
                             "it with the tool that wrote it, or give the decompressed text")
        self.bytes_read += len(data)
        if self.max_bytes is not None and self.bytes_read > self.max_bytes:
            after = " once decompressed" if self.compression else ""
            raise InputTooLarge(f"{self.name}: more than {self.max_bytes:,} bytes of text{after}, "
                                f"over the limit of {self.max_bytes:,} bytes", self.name,
                                self.max_bytes)
        return data

    def close(self) -> None:
        for fh in reversed(self._close):
            try:
                fh.close()
            except OSError:
                pass
        self._close = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _stat_kind(fh):
    try:
        st = os.fstat(fh.fileno())
    except (OSError, AttributeError, io.UnsupportedOperation, ValueError):
        return "stream", None
    if stat.S_ISREG(st.st_mode):
        return "file", st.st_size
    return "pipe", None


def open_input(source, *, max_bytes: int | None = None) -> Input:
    """Open a qrels or run source to read it once: the one entry of every reader.

    Parameters
    ----------
    source : str, bytes, path-like or file object
        A path; ``"-"`` for standard input; a pipe or ``/dev/fd/N``; an open binary or text
        stream (read from where it is, never closed here).
    max_bytes : int, optional
        A regular file larger than this is refused at once, before anything is read; any
        source whose text passes it while it is read is refused then
        (:class:`InputTooLarge`).

    Returns
    -------
    Input
        Use it in a ``with`` block; :meth:`Input.read` gives the text, decompressed.

    Raises
    ------
    ValueError
        ``name: problem``: no such file, a folder, permission denied, a compression or
        encoding rankbook does not read (naming it and the command that makes it readable).

    Examples
    --------
    >>> import gzip, io
    >>> with open_input(io.BytesIO(gzip.compress(b"1 0 a 1\\n"))) as inp:
    ...     inp.compression, inp.read(100)
    ('gzip', b'1 0 a 1\\n')
    >>> open_input(io.BytesIO(b"\\x28\\xb5\\x2f\\xfd...")).name  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: <stream>: zstd-compressed; rankbook reads plain text, gzip, bz2 and xz: ...
    """
    name = _source_name(source)
    own = None
    if _is_stdin(source):
        if sys.stdin is None:
            raise ValueError(f"{name}: this process has no standard input to read '-' from")
        fh = getattr(sys.stdin, "buffer", sys.stdin)
        kind, size = "stdin", None
    elif isinstance(source, (str, bytes, os.PathLike)):
        try:
            own = fh = open(source, "rb")
        except FileNotFoundError:
            raise ValueError(f"{name}: no such file") from None
        except IsADirectoryError:
            raise ValueError(f"{name}: is a folder; give the path of a file in it") from None
        except PermissionError:
            raise ValueError(f"{name}: cannot be read (permission denied)") from None
        except OSError as exc:
            raise ValueError(f"{name}: cannot be opened ({exc.strerror or exc})") from None
        kind, size = _stat_kind(fh)
    elif hasattr(source, "read"):
        fh = source
        kind, size = "stream", None
    else:
        raise ValueError(f"expected a path, '-' for standard input, or a stream; got "
                         f"{type(source).__name__}")
    inp = Input(name, kind, size, max_bytes)
    if own is not None:
        inp._close.append(own)
    try:
        if size is not None and max_bytes is not None and size > max_bytes:
            raise InputTooLarge(f"{name}: {size:,} bytes, over the limit of {max_bytes:,} "
                                "bytes", name, max_bytes)
        probe = fh.read(0)
        if isinstance(probe, str):  # a text stream: its characters as UTF-8
            def read_text(n, fh=fh):
                try:
                    return fh.read(n).encode("utf-8", "surrogateescape")
                except UnicodeDecodeError as exc:
                    raise ValueError(f"{name}: not a UTF-8 text file ({exc.reason})") from None
            inp._read = read_text
            return inp
        head = _read_exactly(fh.read, _SNIFF)
        refused = _refused(head)
        if refused:
            raise ValueError(f"{name}: {refused[0]}; {refused[1]}")
        comp = _compression(head)
        if comp is None:
            pending = [head]

            def read_plain(n, fh=fh):
                if pending:
                    first = pending.pop()
                    if n <= len(first):
                        pending.append(first[n:]) if first[n:] else None
                        return first[:n]
                    return first + fh.read(n - len(first))
                return fh.read(n)
            inp._read = read_plain
            return inp
        raw = io.BufferedReader(_Prefixed(head, fh))
        if comp == "gzip":
            import gzip

            z = gzip.GzipFile(fileobj=raw, mode="rb")
        else:
            try:
                if comp == "bz2":
                    import bz2 as module
                else:
                    import lzma as module
            except ImportError:  # a Python built without the library
                raise ValueError(f"{name}: {comp}-compressed, and this Python has no {comp} "
                                 f"module; decompress it first or give it as "
                                 f"<({'bzcat' if comp == 'bz2' else 'xzcat'} FILE)") from None
            z = module.open(raw, "rb")
        inp._close.append(z)
        inp.compression = comp
        inp._read = z.read
        inner = _read_exactly(inp.read, _SNIFF)
        twice = _compression(inner) or (_refused(inner) or (None,))[0]
        if twice:
            raise ValueError(f"{name}: {comp}-compressed data that holds {twice} data again; "
                             "decompress it to its text first")
        pending = [inner]
        base = z.read

        def read_comp(n):
            if pending:
                first = pending.pop()
                if n <= len(first):
                    pending.append(first[n:]) if first[n:] else None
                    return first[:n]
                return first + base(n - len(first))
            return base(n)
        inp._read = read_comp
        inp.bytes_read = 0
        return inp
    except BaseException:
        inp.close()
        raise


def check_sources(sources, *, max_bytes: int | None = None, what=None) -> None:
    """The checks a command makes on all its inputs before it reads any: a missing file, a
    folder, a regular file larger than ``max_bytes``, and standard input or one pipe given
    twice (it can be read once). ``what`` names each source's role in messages (``"qrels"``,
    ``"run"``); the default is ``"input"``.

    Parameters
    ----------
    sources : sequence of str, bytes, path-like or stream
        The command's inputs: paths, ``"-"`` for standard input, pipes (``/dev/fd/N``). An
        open stream or any other object is passed over (its reader checks it).
    max_bytes : int, optional
        A regular file larger than this is refused; None: no limit.
    what : sequence of str, optional
        The role of each source, in the order of ``sources`` (``"input"`` for every one when
        not given).

    Raises
    ------
    InputTooLarge, ValueError
        ``name: problem``.

    Examples
    --------
    >>> check_sources(["-", "-"])
    Traceback (most recent call last):
    ...
    ValueError: <stdin>: standard input is given twice, and it can be read once; give each input its own file or pipe
    """
    what = list(what) if what is not None else ["input"] * len(sources)
    seen = {}
    for src, role in zip(sources, what):
        name = _source_name(src)
        if _is_stdin(src):
            key = ("stdin",)
        elif isinstance(src, (str, bytes, os.PathLike)):
            try:
                st = os.stat(src)
            except FileNotFoundError:
                raise ValueError(f"{name}: no such file") from None
            except OSError:
                continue  # the reader says what is wrong
            if stat.S_ISDIR(st.st_mode):
                raise ValueError(f"{name}: is a folder, not a {role} file")
            if stat.S_ISREG(st.st_mode):
                if max_bytes is not None and st.st_size > max_bytes:
                    raise InputTooLarge(f"{name}: {st.st_size:,} bytes, over the limit of "
                                        f"{max_bytes:,} bytes", name, max_bytes)
                continue  # a file can be read again
            key = ("pipe", st.st_dev, st.st_ino)
        else:
            continue
        if key in seen:
            first = seen[key]
            if key == ("stdin",):
                raise ValueError(f"{name}: standard input is given twice, and it can be read "
                                 "once; give each input its own file or pipe")
            same = "is given twice" if first == name else f"is the same pipe as {first}"
            raise ValueError(f"{name}: {same}, and a pipe can be read once; give each input "
                             "its own file or pipe")
        seen[key] = name


def _blocks(inp: Input, chunk_bytes: int):
    """The text of ``inp`` as byte blocks that end after a ``\\n`` (the last one may not),
    reading it once. A leading byte-order mark is removed with an :class:`InputNote`."""
    head = _read_exactly(inp.read, 3)
    if head.startswith(_BOM):
        head = head[3:]
        warnings.warn(f"{inp.name}: a UTF-8 byte-order mark at the start of the file was "
                      "removed (it is not part of the first id)", InputNote, stacklevel=3)
    pending = head
    while True:
        block = inp.read(chunk_bytes)
        data = pending + block if pending else block
        if not block:
            if data:
                yield data
            return
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            pending = data
            continue
        yield data[:cut] if cut < len(data) else data
        pending = data[cut:]


# --------------------------------------------------------------------------------------------
# parsing blocks

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
#: A number as C's strtod reads a decimal one (and as trec_eval writes one): Python's float()
#: also takes ``1_0``, other scripts' digits, ``infinity`` and ``nan``.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NUMBER_BYTES = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NOT_FINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
#: Control characters refused anywhere in a line (tab and the line ends are blanks).
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_C1_BYTES = re.compile(rb"\xc2[\x80-\x9f]")  # C1 control characters written in UTF-8


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
    try:
        float(v)
    except ValueError:
        return ValueError(f"{name}:{no}: the {value_name} of document {d!r} for query {q!r} is "
                          f"not a number: {v!r}")
    return ValueError(f"{name}:{no}: the {value_name} of document {d!r} for query {q!r} is not a "
                      f"number as trec_eval reads one: {v!r} (write digits with an optional "
                      "sign, decimal point and exponent)")


def _control_error(name, no, line, m):
    ch = m.group()
    label = "NUL" if ch == "\x00" else "DEL" if ch == "\x7f" else f"U+{ord(ch):04X}"
    return ValueError(
        f"{name}:{no}: a control character {ch!r} ({label}) at column {m.start() + 1} of the "
        f"line {line.strip(' ' + chr(9))[:80]!r}; ids and values are printable text (a NUL or "
        "other control byte usually means a binary, UTF-16 or damaged file)")


def _scan_text(text: str, name: str, what: str, line0: int):
    """The exact line-by-line reading of one block (fields split at spaces and tabs, lines at
    ``\\n``, ``\\r\\n`` or ``\\r``): used for a block the columnar reader leaves (something to
    refuse, lines ended by a lone ``\\r``), which names the first bad line. Returns (queries,
    documents, values, line numbers, run tags, lines in the block, first row whose value has
    an exponent that C's ``atol`` reads otherwise, or -1); raises ``name:line: problem``."""
    n_cols, value_col, _ = _LAYOUT[what]
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    queries, docs, values, line_nos, tag, exp_row = [], [], [], [], None, -1
    for no, line in enumerate(lines, start=line0):
        bad = _CONTROL.search(line)
        if bad:
            raise _control_error(name, no, line, bad)
        fields = [f for f in _FIELD_SEP.split(line) if f]
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != n_cols:
            raise _bad_line(name, no, line, what, len(fields))
        q, d, v = fields[0], fields[2], fields[value_col]
        if not _NUMBER.fullmatch(v):
            raise _bad_value(name, no, what, q, d, v, finite=bool(_NOT_FINITE.fullmatch(v)))
        x = float(v)
        if not math.isfinite(x):
            raise _bad_value(name, no, what, q, d, v, finite=True)
        if exp_row < 0 and ("e" in v or "E" in v) and _atol(v) != x:
            exp_row = len(values)
        if what != "qrels":
            if tag is None:
                tag = (fields[5], None)
            elif tag[1] is None and fields[5] != tag[0]:
                tag = (tag[0], fields[5])
        queries.append(q)
        docs.append(d)
        values.append(x)
        line_nos.append(no)
    return (queries, docs, np.array(values, dtype=float), np.array(line_nos, dtype=np.int64),
            tag, len(lines), exp_row)


def _atol(text) -> int:
    """What C's ``atol`` reads from a number's text (str or bytes): its leading sign and
    digits (``"1e2"`` is 1), as trec_eval reads a relevance level."""
    if isinstance(text, bytes):
        text = text.decode("ascii")
    m = re.match(r"[+-]?[0-9]+", text)
    return int(m.group()) if m else 0


_POW10 = 10.0 ** np.arange(23)
_NUMBER_CHARS = np.zeros(256, dtype=bool)
_NUMBER_CHARS[list(b"0123456789.+-eE\x00")] = True


def _parse_numbers(col: np.ndarray, width: int | None = None):
    """The values of a fixed-width bytes column of numbers (zero-padded), parsed as C's strtod
    reads decimal numbers, and the first row written with an exponent that C's ``atol`` reads
    as another number (``1e2``; -1: none); None when a field is not such a number or not
    finite (the line-by-line reading names it).

    Most fields (at most 15 digits, no exponent) are parsed digit by digit across the whole
    column: the digits make an integer below 2**53 and the point a power of ten, both exact
    in binary, so one division rounds correctly (as ``float`` does). The others are checked
    against the grammar and parsed by numpy, which rounds correctly too."""
    n, w = col.size, col.dtype.itemsize
    if n == 0:
        return np.zeros(0), -1
    w = min(w, width or w)  # the bytes past the widest field are zeros
    # a row per character position
    m = np.ascontiguousarray(col.view(np.uint8).reshape(n, col.dtype.itemsize)[:, :w].T)
    if not _NUMBER_CHARS[m].all():
        return None
    digit = (m >= 48) & (m <= 57)
    dot = m == 46
    n_digits = digit.sum(axis=0, dtype=np.int16)
    odd = (n_digits == 0) | (n_digits > 15) | (dot.sum(axis=0, dtype=np.int16) > 1)
    if w > 1:
        letters = (m[1:] == 101) | (m[1:] == 69) | (m[1:] == 43) | (m[1:] == 45)
        odd |= letters.any(axis=0) | (m[0] == 101) | (m[0] == 69)
        del letters
    mant = np.zeros(n)
    after = np.zeros(n, dtype=np.int16)  # digits after the point
    seen_dot = np.zeros(n, dtype=bool)
    for j in range(w):
        dj = digit[j]
        mant *= np.where(dj, 10.0, 1.0)
        mant += np.where(dj, m[j] - 48.0, 0.0)
        seen_dot |= dot[j]
        after += dj & seen_dot
    values = mant / _POW10[np.minimum(after, 22)]
    neg = m[0] == 45
    values[neg] = -values[neg]
    exp_row = -1
    rows = np.flatnonzero(odd)
    if rows.size:
        texts = col[rows]
        if not all(_NUMBER_BYTES.fullmatch(t) for t in texts.tolist()):
            return None
        try:
            values[rows] = texts.astype(np.float64)
        except ValueError:
            return None
        if not np.isfinite(values[rows]).all():
            return None
        for i, t in zip(rows.tolist(), texts.tolist()):
            if (b"e" in t or b"E" in t) and _atol(t) != values[i]:
                exp_row = i
                break
    return values, exp_row


_LITTLE = sys.byteorder == "little"
#: The low ``r`` bytes of a little-endian 64-bit word, for r = 0 ... 8.
_LOW_BYTES = np.array([(1 << (8 * r)) - 1 for r in range(9)], dtype=np.uint64)


def _byte_column(arr: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The fields ``arr[starts[i]:ends[i]]`` as one fixed-width ``S`` array, zero-padded to a
    multiple of 8 bytes (``arr``, contiguous, ends with that many spare bytes). Each 8 bytes of
    a field are one unaligned 64-bit load, masked to the field's length."""
    n = starts.size
    lengths = ends - starts
    k = max(-(-int(lengths.max()) // 8), 1) if n else 1
    if not _LITTLE:  # one copy of n x width bytes
        mat = sliding_window_view(arr, 8 * k)[starts]
        mat *= np.arange(8 * k, dtype=np.int64)[None, :] < lengths[:, None]
        return mat.view(f"S{8 * k}").ravel()
    words = np.ndarray((arr.size - 7,), dtype="<u8", buffer=arr, strides=(1,))
    out = np.empty((n, k), dtype=np.uint64)
    for j in range(k):
        out[:, j] = words[starts + 8 * j] if j else words[starts]
        rest = lengths - 8 * j
        if j or not np.all(rest >= 8):
            out[:, j] &= _LOW_BYTES[np.clip(rest, 0, 8)]
    return out.view(f"S{8 * k}").ravel()


class _Rows(NamedTuple):
    """The data lines of one block: the first row of each run of equal query ids and those
    ids (text), document ids (bytes, width a multiple of 8), values, each row's line within
    the block (0-based; None when every line is a data line), run tags (first, another or
    None), the first row whose value has an exponent that C's ``atol`` reads as another number
    (-1: none), the value's text there, and the lines of the block."""

    heads: np.ndarray
    head_names: list
    docs: np.ndarray
    values: np.ndarray
    lines: np.ndarray | None
    tag: tuple | None
    exp_row: int
    exp_text: str
    n_lines: int


def _empty_rows(n_lines):
    return _Rows(np.zeros(0, np.int64), [], np.zeros(0, "S8"), np.zeros(0), None, None, -1, "",
                 n_lines)


def _numpy_block(block: bytes, what: str) -> _Rows | None:
    """One block split into columns with numpy, or None when it holds something the
    line-by-line reading must name (or lines ended by a lone ``\\r``).

    Blanks (bytes below 33) separate fields. In the usual file, one space or tab separates the
    fields and every ``n``-th blank is a line end: the fields are read off the blanks at once.
    Otherwise a field starts where a run of blanks ends, the fields of each line are counted,
    and blank and comment lines are left out."""
    n_cols, value_col, _ = _LAYOUT[what]
    if b"\x7f" in block:
        return None
    if not block.isascii():
        try:
            block.decode("utf-8")
        except UnicodeDecodeError:
            return None
        if _C1_BYTES.search(block):
            return None
    if not block.endswith(b"\n"):
        block += b"\n"
    arr = np.frombuffer(block, dtype=np.uint8)
    blank = arr < 33
    seps = np.flatnonzero(blank)
    kinds = np.bincount(arr[seps], minlength=33)
    if kinds[9] + kinds[10] + kinds[13] + kinds[32] != seps.size:
        return None  # another control byte: refused, with its line
    cr = int(kinds[13])
    if cr and cr != block.count(b"\r\n"):
        return None  # a lone \r ends a line: the line-by-line reading
    n_lines = int(kinds[10])
    lines = None
    cols = (0, 2, value_col) + ((n_cols - 1,) if what != "qrels" else ())
    simple = (cr == 0 and seps.size == n_lines * n_cols and seps[0] > 0
              and bool(np.all(seps[1:] - seps[:-1] > 1)))
    if simple:
        ends = seps[n_cols - 1::n_cols]
        simple = bool(np.all(arr[ends] == 10))
    if simple:
        line_starts = np.empty(n_lines, dtype=np.int64)
        line_starts[0] = 0
        line_starts[1:] = ends[:-1] + 1
        simple = not bool((arr[line_starts] == 35).any())  # a comment line
    if simple:
        bounds = {c: ((seps[c - 1::n_cols] + 1) if c else line_starts, seps[c::n_cols])
                  for c in cols}
    else:
        edges = np.flatnonzero(blank[1:] != blank[:-1]) + 1
        if not blank[0]:
            edges = np.concatenate([[0], edges])
        starts, ends = edges[0::2], edges[1::2]  # the text ends with a blank: as many ends
        if not starts.size:
            return _empty_rows(n_lines)
        line = np.searchsorted(np.flatnonzero(arr == 10), starts)  # the line of each field
        first = np.flatnonzero(np.concatenate([[True], line[1:] != line[:-1]]))
        counts = np.diff(np.append(first, starts.size))
        data = arr[starts[first]] != 35  # lines whose first field does not start with '#'
        if np.any(counts[data] != n_cols):
            return None
        if not data.all():
            keep = np.repeat(data, counts)
            starts, ends = starts[keep], ends[keep]
        data_lines = line[first[data]]
        if data_lines.size != n_lines:
            lines = data_lines
        if not data_lines.size:
            return _empty_rows(n_lines)
        bounds = {c: (starts[c::n_cols], ends[c::n_cols]) for c in cols}
    del blank, seps
    spare = -(-max(int((e - s).max()) for s, e in bounds.values()) // 8) * 8 + 8
    arr = np.concatenate([arr, np.zeros(spare, dtype=np.uint8)])
    vs, ve = bounds[value_col]
    parsed = _parse_numbers(_byte_column(arr, vs, ve), int((ve - vs).max()))
    if parsed is None:
        return None
    values, exp_row = parsed
    exp_text = ""
    if exp_row >= 0:
        s, e = bounds[value_col]
        exp_text = bytes(arr[s[exp_row]:e[exp_row]]).decode("ascii")
    queries = _byte_column(arr, *bounds[0])
    heads = np.flatnonzero(np.concatenate([[True], queries[1:] != queries[:-1]]))
    head_names = [b.decode("utf-8") for b in queries[heads].tolist()]
    del queries
    tag = None
    if what != "qrels":
        tags = _byte_column(arr, *bounds[n_cols - 1])
        other = tags[tags != tags[0]]
        tag = (tags[0].decode("utf-8"), other[0].decode("utf-8") if other.size else None)
        del tags, other
    docs = _byte_column(arr, *bounds[2])
    return _Rows(heads, head_names, docs, values, lines, tag, exp_row, exp_text, n_lines)


def _careful_block(block: bytes, name: str, what: str, line0: int, offset: int) -> _Rows:
    """One block read line by line (:func:`_scan_text`): a message naming the line of the
    first problem, or the rows of a block the columnar reader leaves to it."""
    try:
        text = block.decode("utf-8")
    except UnicodeDecodeError as exc:
        no = line0 + len(_LINE_BREAK.findall(block[:exc.start].decode("utf-8", "replace")))
        raise ValueError(f"{name}:{no}: not a UTF-8 text file ({exc.reason} at byte "
                         f"{offset + exc.start}); rankbook reads UTF-8: convert it, e.g. "
                         "iconv -f LATIN1 -t UTF-8") from None
    q, d, v, line_nos, tag, n_lines, exp_row = _scan_text(text, name, what, line0)
    if not v.size:
        return _empty_rows(n_lines)
    qa = np.array(q, dtype=object)
    heads = np.flatnonzero(np.concatenate([[True], qa[1:] != qa[:-1]]))
    raw = [x.encode("utf-8") for x in d]
    width = -(-max(map(len, raw)) // 8) * 8
    exp_text = ""
    if exp_row >= 0:
        fields = [f for f in _FIELD_SEP.split(_LINE_BREAK.split(text)[line_nos[exp_row] - line0])
                  if f]
        exp_text = fields[_LAYOUT[what][1]]
    return _Rows(heads, qa[heads].tolist(), np.array(raw, dtype=f"S{width}"), v,
                 line_nos - line0, tag, exp_row, exp_text, n_lines)


def _peel_header(block: bytes):
    """(lines, bytes) of the blank and comment lines at the start of a block; a line with a
    lone ``\\r`` stops it (the line-by-line reading takes such text)."""
    pos, lines = 0, []
    while pos < len(block):
        end = block.find(b"\n", pos)
        end = len(block) if end < 0 else end + 1
        line = block[pos:end]
        body = line.rstrip(b"\n").rstrip(b"\r")
        if b"\r" in body:
            break
        s = body.strip(b" \t")
        if s and not s.startswith(b"#"):
            break
        lines.append(body)
        pos = end
    return lines, pos


_MIX = np.uint64(0x9E3779B97F4A7C15)
_SEED = np.uint64(0x243F6A8885A308D3)


def _doc_hash(docs: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each id of a bytes column whose width is a multiple of 8: a
    multiply-xorshift round per 8-byte word, the zero words of the padding skipped, so an id
    hashes alike in columns of any width (an id holds no NUL)."""
    n = docs.size
    if not n:
        return np.zeros(0, dtype=np.uint64)
    words = docs.view(np.uint64).reshape(n, docs.dtype.itemsize // 8)
    h = np.full(n, _SEED, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(words.shape[1]):
            w = words[:, j]
            x = (h ^ w) * _MIX
            x ^= x >> np.uint64(29)
            if j == 0:  # the first word of an id is never zero
                h = x
            else:
                h = np.where(w != 0, x, h)
    return h


def text_ranks(raw: np.ndarray) -> np.ndarray:
    """Dense ranks (int64, from 0) of ids given as UTF-8 bytes (an ``S`` array), in the order
    of their text: byte order is code point order, and the zero padding sorts a prefix first.
    One lexsort of big-endian 64-bit words, no string compared.

    Parameters
    ----------
    raw : numpy.ndarray
        (n,) ids as a fixed-width bytes (``S``) array, zero-padded, such as
        :attr:`TrecTable.dbytes`.

    Returns
    -------
    numpy.ndarray
        (n,) int64: 0 for the first id in text order, equal ids equal ranks, no gap.

    Examples
    --------
    >>> text_ranks(np.array([b"d10", b"d1", b"e", b"d10", b"D"])).tolist()
    [2, 1, 3, 2, 0]
    """
    n = raw.size
    if not n:
        return np.zeros(0, dtype=np.int64)
    w = raw.dtype.itemsize
    k = max(-(-w // 8), 1)
    if w == 8 * k and raw.flags.c_contiguous:  # the reader's columns: no copy
        words = raw.view(">u8").reshape(n, k)
    else:
        mat = np.zeros((n, 8 * k), dtype=np.uint8)
        mat[:, :w] = raw.view(np.uint8).reshape(n, w)
        words = mat.view(">u8")  # (n, k), the first bytes most significant
    words = words.astype(np.uint64)  # native order sorts faster
    varies = [j for j in range(k) if not (words[:, j] == words[0, j]).all()]  # not a prefix
    if not varies:
        return np.zeros(n, dtype=np.int64)
    words = words[:, varies]
    order = np.lexsort(words.T[::-1])
    srt = words[order]
    new = np.ones(n, dtype=np.int64)
    new[1:] = (srt[1:] != srt[:-1]).any(axis=1)
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = np.cumsum(new) - 1
    return ranks


def pair_keys(qcodes: np.ndarray, dhash: np.ndarray) -> np.ndarray:
    """64-bit keys of (query code, document) pairs from :meth:`TrecTable.dhash`: equal pairs
    have equal keys; unequal pairs almost never do (callers confirm a match byte for byte).

    Parameters
    ----------
    qcodes : numpy.ndarray
        (n,) integer query codes, such as :attr:`TrecTable.qcodes` (codes of one table: map
        another table's codes to them before comparing keys).
    dhash : numpy.ndarray
        (n,) uint64 hashes of the document ids, from :meth:`TrecTable.dhash`.

    Returns
    -------
    numpy.ndarray
        (n,) uint64, one key per pair.

    Examples
    --------
    >>> import io
    >>> t = read_table(io.BytesIO(b"1 0 a 1\\n1 0 b 0\\n2 0 a 1\\n"), "qrels")
    >>> k = pair_keys(t.qcodes, t.dhash())
    >>> k.dtype, len(set(k.tolist()))
    (dtype('uint64'), 3)
    >>> run = read_table(io.BytesIO(b"2 Q0 a 1 3.0 x\\n"), "run")  # query 2: code 0 here, 1 above
    >>> bool(pair_keys(run.qcodes + 1, run.dhash())[0] == k[2])
    True
    """
    with np.errstate(over="ignore"):
        k = (qcodes.astype(np.uint64) + np.uint64(1)) * _MIX
        k ^= dhash
        k *= _MIX
        k ^= k >> np.uint64(31)
    return k


# --------------------------------------------------------------------------------------------
# a whole file


def _canonical_ints(docs: np.ndarray):
    """Document ids (bytes) as int64 when every one is a non-negative integer written
    canonically (no sign, no leading zero, at most 18 digits), so that ``str(int(x)) == x``;
    else None."""
    if docs.size == 0 or not docs[0][:1].isdigit():
        return None  # the first id tells most text ids apart without converting any
    m = docs.view(np.uint8).reshape(docs.size, docs.dtype.itemsize)
    if m.shape[1] > 18:
        if m[:, 18:].any():
            return None
        m = m[:, :18]
    n = (m != 0).sum(axis=1)
    digit = (m >= 48) & (m <= 57)
    inside = np.arange(m.shape[1])[None, :] < n[:, None]
    if not (np.array_equal(digit, inside) and np.all(n > 0)):
        return None
    if np.any((m[:, 0] == 48) & (n > 1)):
        return None
    out = np.zeros(docs.size, dtype=np.int64)
    for j in range(m.shape[1]):
        out = np.where(inside[:, j], out * 10 + (m[:, j].astype(np.int64) - 48), out)
    return out


def _decode(raw: np.ndarray) -> np.ndarray:
    """A bytes column as an object array of str (UTF-8; ASCII converted by numpy at once)."""
    if raw.size and raw.dtype.itemsize and bool((raw.view(np.uint8) < 128).all()):
        return raw.astype("U").astype(object)
    out = np.empty(raw.size, dtype=object)
    out[:] = [b.decode("utf-8") for b in raw.tolist()]
    return out


class TrecTable:
    """A qrels or run file read into columns by :func:`read_table`.

    Attributes
    ----------
    name : str
        The source as messages name it.
    what : {"qrels", "run", "run_rank"}
        ``run_rank``: a run read by its rank column (an explicit order).
    qcodes, qnames : numpy.ndarray
        The query of each row as a code (int32) into ``qnames`` (text, in order of first
        appearance).
    dbytes : numpy.ndarray
        Each row's document id as UTF-8 bytes (a fixed-width ``S`` array, zero-padded to a
        multiple of 8 bytes).
    values : numpy.ndarray
        Relevance, scores, or ranks (``run_rank``), float64.
    tag, other_tag : str or None
        The run tag of the first line, and a different tag some later line carries.
    header : list of str
        The blank and comment lines before the first data line (an ``ir_metadata`` block),
        at most :data:`HEADER_LINES` of them.
    exponent : tuple or None
        ``(row, text)`` of the first value written with an exponent (``1e2``): a qrels level
        that trec_eval would read otherwise (C's ``atol`` stops at the ``e``).
    docs, dnames
        Document ids as int64 (``dnames`` None) when every one is an integer written
        canonically, else codes into ``dnames`` (text); computed when first asked for.
    """

    def __init__(self, name, what, qcodes, qnames, dbytes, values, line_map, tag,
                 other_tag=None, header=(), exponent=None):
        self.name, self.what = name, what
        self.qcodes, self.qnames, self.dbytes = qcodes, qnames, dbytes
        self.values, self.tag, self.other_tag = values, tag, other_tag
        self.header, self.exponent = list(header), exponent
        self._line_map = line_map  # per block: (first row, first line, line numbers or None)
        self._docs = None

    def __len__(self):
        return self.values.size

    def dhash(self, rows: slice = slice(None)) -> np.ndarray:
        """A 64-bit hash of the document id of each row (of ``rows``), computed when asked
        for (uint64; :func:`pair_keys` makes keys of (query, document) pairs)."""
        return _doc_hash(self.dbytes[rows])

    def line_of(self, row: int) -> int:
        """The line of the file that row ``row`` was read from."""
        return int(self.lines_of(np.array([row]))[0])

    def lines_of(self, rows) -> np.ndarray:
        """The lines of the file that rows ``rows`` were read from."""
        rows = np.asarray(rows, dtype=np.int64)
        starts = np.array([s for s, _, _ in self._line_map], dtype=np.int64)
        k = np.searchsorted(starts, rows, side="right") - 1
        out = np.empty(rows.size, dtype=np.int64)
        for b in np.unique(k):
            start, line0, lines = self._line_map[b]
            at = k == b
            out[at] = (lines[rows[at] - start] if lines is not None
                       else line0 + rows[at] - start)
        return out

    def first_rows(self) -> np.ndarray:
        """The first row of each query, in the order of ``qnames``."""
        q = self.qcodes
        if not q.size:
            return np.zeros(0, dtype=np.int64)
        top = np.maximum.accumulate(q)  # codes count up in order of first appearance
        return np.flatnonzero(np.concatenate([[True], top[1:] > top[:-1]]))

    def first_lines(self) -> dict:
        """``{query: line}``: the line where each query first appears."""
        return dict(zip(self.qnames.tolist(), self.lines_of(self.first_rows()).tolist()))

    def _codes(self):
        if self._docs is None:
            ints = (_canonical_ints(self.dbytes) if self.dbytes.size
                    else np.zeros(0, dtype=np.int64))
            if ints is not None:
                self._docs = (ints, None)
            else:
                codes, uniq = pd.factorize(self.dhash())  # numbered in order of appearance
                top = np.maximum.accumulate(codes)
                first = np.flatnonzero(np.concatenate([[True], top[1:] > top[:-1]]))
                if np.array_equal(self.dbytes[first][codes], self.dbytes):
                    self._docs = (codes.astype(np.int32 if uniq.size < 2**31 else np.int64),
                                  _decode(self.dbytes[first]))
                else:  # two ids with one hash: factorize the ids themselves
                    codes, uniq = pd.factorize(self.dbytes.astype(object))
                    self._docs = (codes, _decode(np.asarray(uniq, dtype=self.dbytes.dtype)))
        return self._docs

    @property
    def docs(self) -> np.ndarray:
        return self._codes()[0]

    @property
    def dnames(self):
        return self._codes()[1]

    def query_ids(self) -> np.ndarray:
        return self.qnames[self.qcodes]

    def doc_ids(self, compact: bool = False) -> np.ndarray:
        docs, dnames = self._codes()
        if dnames is not None:
            return dnames[docs]
        if compact:
            return docs
        codes, uniq = pd.factorize(docs)
        return np.array([str(u) for u in uniq], dtype=object)[codes]

    def frame(self, compact: bool = False) -> pd.DataFrame:
        """The tidy table; ``compact`` keeps integer document ids as int64 (the scorer compares
        ids as text, and these write back exactly). ``attrs`` carries ``source`` (the name),
        ``tag`` for a run and ``exponent`` (file, line, text) for a level written with an
        exponent."""
        value_name = _LAYOUT[self.what][2]
        df = pd.DataFrame({"query_id": self.query_ids(), "doc_id": self.doc_ids(compact),
                           value_name: self.values})
        df.attrs["source"] = self.name
        if self.what != "qrels":
            df.attrs["tag"] = self.tag
        if self.exponent is not None:
            df.attrs["exponent"] = self.exponent_note()
        return df

    def exponent_note(self):
        """``(name, line, query, document, text)`` of the first value written with an
        exponent, or None."""
        if self.exponent is None:
            return None
        row, text = self.exponent
        return (self.name, self.line_of(row), str(self.qnames[self.qcodes[row]]),
                self.dbytes[row].decode("utf-8"), text)


#: Comment lines on top of a file kept in :attr:`TrecTable.header` (an ir_metadata block is a
#: few dozen); more are skipped without being kept.
HEADER_LINES = 10_000


def read_table(source, what: str, *, max_bytes: int | None = None,
               chunk_bytes: int = CHUNK_BYTES, order: str = "score") -> TrecTable:
    """Read a qrels (``what="qrels"``) or run (``"run"``) source once, block by block, into
    columns (see :class:`TrecTable`): the one reader of every command (see the module notes
    for what it takes, refuses and guarantees).

    ``source`` is anything :func:`open_input` opens: a path (gzip, bz2 and xz recognised by
    their first bytes), ``"-"`` for standard input, a pipe, a binary or text stream.
    ``max_bytes`` bounds the text read (after decompression): :class:`InputTooLarge` is raised
    before reading a larger regular file, and as soon as the limit is passed otherwise. A run
    read with ``order="rank"`` keeps its rank column (the fourth) as its values instead of the
    scores, and is refused if a rank is not a whole number from 1 or repeats within a query.

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
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, int) or chunk_bytes < 1:
        raise ValueError(f"chunk_bytes must be a positive whole number, got {chunk_bytes!r}")
    with open_input(source, max_bytes=max_bytes) as inp:
        name = inp.name
        index = {}  # query id -> code
        qparts, dparts, vparts, line_map = [], [], [], []
        header, in_header, tag, other_tag, exponent = [], True, None, None, None
        line0, offset, rows = 1, 0, 0
        for block in _blocks(inp, chunk_bytes):
            if in_header:
                top, cut = _peel_header(block)
                if top:
                    _check_header(top, name, line0)
                    header.extend(x.decode("utf-8") for x in top[:max(0, HEADER_LINES - len(header))])
                    line0 += len(top)
                    offset += cut
                    block = block[cut:]
                if not block:
                    continue
                in_header = False
            r = _numpy_block(block, what)
            if r is None:
                r = _careful_block(block, name, what, line0, offset)
            n = r.values.size
            if n:
                if len(r.heads) > 64:
                    local, uniq = pd.factorize(np.array(r.head_names, dtype=object))
                    glob = np.array([index.setdefault(u, len(index)) for u in uniq.tolist()],
                                    dtype=np.int32)[local]
                else:
                    glob = np.array([index.setdefault(u, len(index)) for u in r.head_names],
                                    dtype=np.int32)
                qparts.append(np.repeat(glob, np.diff(np.append(r.heads, n))))
                dparts.append(r.docs)
                vparts.append(r.values)
                line_map.append((rows, line0, None if r.lines is None else r.lines + line0))
                if r.tag is not None:
                    if tag is None:
                        tag, other_tag = r.tag
                    elif other_tag is None:
                        other_tag = r.tag[0] if r.tag[0] != tag else r.tag[1]
                if exponent is None and r.exp_row >= 0:
                    exponent = (rows + r.exp_row, r.exp_text)
                rows += n
            line0 += r.n_lines
            offset += len(block)
            del r
    if not line_map:
        line_map = [(0, 1, None)]
    # each column joined from its blocks, whose memory goes back before the next is joined
    # (a few milliseconds a call: only for a large file)
    large = offset > TRIM_BYTES
    if large:
        release_memory()
    qcodes = np.concatenate(qparts) if qparts else np.zeros(0, dtype=np.int32)
    del qparts
    dbytes = np.concatenate(dparts) if dparts else np.zeros(0, dtype="S8")
    del dparts
    if large:
        release_memory()
    values = np.concatenate(vparts) if vparts else np.zeros(0)
    del vparts
    qnames = np.empty(len(index), dtype=object)
    qnames[:] = list(index)
    table = TrecTable(name, what, qcodes, qnames, dbytes, values, line_map, tag, other_tag,
                      header, exponent)
    _refuse_duplicates(table)
    if what == "run_rank":
        _refuse_shared_ranks(table)
    if large:
        release_memory()
    return table


def read_header(source, *, max_lines: int = HEADER_LINES) -> list:
    """The blank and comment lines at the top of a source (an ``ir_metadata`` block), read up
    to its first data line only, as :func:`read_table` keeps them in
    :attr:`TrecTable.header` (from a table already read, take that instead: a pipe can be read
    once).

    Parameters
    ----------
    source : str, path-like or stream
        Anything :func:`open_input` opens; read up to the first data line only.
    max_lines : int, default HEADER_LINES
        The most lines kept; the lines after them are read but not kept.

    Returns
    -------
    list of str
        The lines, without their line breaks, blank lines included.

    Raises
    ------
    ValueError
        What :func:`open_input` refuses, or a line that is not UTF-8 text or holds a control
        character.

    Examples
    --------
    >>> import io
    >>> read_header(io.BytesIO(b"# ir_metadata.start\\n# tag: x\\n# ir_metadata.end\\n1 Q0 a 1 1 x\\n"))
    ['# ir_metadata.start', '# tag: x', '# ir_metadata.end']
    """
    lines, line0 = [], 1
    with open_input(source) as inp:
        name = inp.name
        for block in _blocks(inp, 1 << 16):
            top, cut = _peel_header(block)
            _check_header(top, name, line0)
            lines.extend(x.decode("utf-8") for x in top[:max(0, max_lines - len(lines))])
            line0 += len(top)
            if cut < len(block):
                break
    return lines


def _check_header(lines, name, line0):
    """The comment lines on top: UTF-8 text without control characters, as every line."""
    for i, raw in enumerate(lines):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{name}:{line0 + i}: not a UTF-8 text file ({exc.reason}); "
                             "rankbook reads UTF-8: convert it, e.g. iconv -f LATIN1 -t UTF-8"
                             ) from None
        bad = _CONTROL.search(text)
        if bad:
            raise _control_error(name, line0 + i, text, bad)


_MALLOC_TRIM = []
#: Text above which :func:`read_table` gives freed memory back (:func:`release_memory`).
TRIM_BYTES = 64 << 20
#: Rows whose duplicate check is one sort (a run whose queries' lines are together): a bounded
#: key (8 MB) however long the run, and a signal answered between blocks.
DUPLICATE_BLOCK_ROWS = 1 << 20


def release_memory() -> None:
    """Give the memory freed so far back to the operating system (glibc's ``malloc_trim``).

    Parsing a run block by block frees many buffers; glibc keeps such memory in its heap,
    where the large arrays that follow (allocated apart, with ``mmap``) cannot use it. Where
    the C library has no ``malloc_trim`` (macOS, musl), this does nothing.

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
    the first. Hash tables of the keys of (query, document) pairs find whether there is one: when
    every query's lines are together (query codes, numbered in order of appearance, never
    decrease), a block of whole queries at a time (:data:`DUPLICATE_BLOCK_ROWS`), else the
    whole file; equal keys are confirmed byte for byte (two pairs may share a key)."""
    n = len(t)
    if n < 2:
        return
    q = t.qcodes
    contiguous = bool(np.all(q[1:] >= q[:-1]))
    step = DUPLICATE_BLOCK_ROWS if contiguous else n
    start = 0
    while start < n:
        end = min(start + step, n)
        if end < n:  # up to the end of the block's last query
            end = int(np.searchsorted(q, q[end - 1], side="right"))
        key = pair_keys(q[start:end], t.dhash(slice(start, end)))
        if not pd.Index(key).is_unique:
            dup = pd.Series(key).duplicated(keep=False).to_numpy()
            _name_duplicate(t, start, key, np.unique(key[dup]))
        del key
        start = end


def _name_duplicate(t: TrecTable, start: int, key: np.ndarray, shared: np.ndarray) -> None:
    """Raise for the earliest second listing among rows whose keys are shared, if any pair of
    them is truly the same (query, document)."""
    rows = start + np.flatnonzero(np.isin(key, shared))
    best = None
    df = pd.DataFrame({"q": t.qcodes[rows], "d": t.dbytes[rows].astype(object)})
    dup = df.duplicated(keep="first").to_numpy()
    if dup.any():
        i = int(rows[np.flatnonzero(dup)[0]])
        same = rows[(t.qcodes[rows] == t.qcodes[i]) & (t.dbytes[rows] == t.dbytes[i])]
        best = (i, int(same[0]))
    if best is None:
        return
    i, first = best
    qn = t.qnames[t.qcodes[i]]
    dn = t.dbytes[i].decode("utf-8")
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
    doc = lambda row: t.dbytes[row].decode("utf-8")  # noqa: E731
    bad = np.flatnonzero(bad_ranks(t.values))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{t.name}:{t.line_of(i)}: document {doc(i)!r} of query {t.qnames[t.qcodes[i]]!r} has "
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
    raise ValueError(
        f"{t.name}:{t.line_of(i)}: documents {doc(first)!r} and {doc(i)!r} of query "
        f"{t.qnames[q[i]]!r} share rank {t.values[i]:g} (the first on line {t.line_of(first)}); "
        "an explicit order needs distinct ranks (order='score' ranks by score and breaks ties "
        "by the profile's rule)")


def _read(path, what: str, max_bytes: int | None = None, order: str = "score") -> pd.DataFrame:
    return read_table(path, what, max_bytes=max_bytes, order=order).frame()


def read_qrels(path, *, max_bytes: int | None = None) -> pd.DataFrame:
    """Read a TREC qrels file: ``query iteration document relevance`` per line.

    The file is read once by :func:`read_table` (see the module notes): a path, ``"-"`` for
    standard input, a gzip, bz2 or xz file (recognised by its first bytes), a pipe or
    ``/dev/fd/N`` from process substitution, or an open stream. Fields are separated by spaces
    and tabs. A UTF-8 byte-order mark at the start is removed with an :class:`InputNote`
    warning naming the file.

    Parameters
    ----------
    path : str, path-like or file object
    max_bytes : int, optional
        Refuse (:class:`InputTooLarge`) a file with more bytes of text than this.

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id`` (str), ``doc_id`` (str), ``relevance`` (float), in file order;
        ``attrs["exponent"]`` names the first level written with an exponent, if any.

    Raises
    ------
    ValueError
        ``path:line: problem`` for a line without four columns, a relevance that is not a finite
        number, a control character, or a document judged twice for the same query (each
        message names the query and the document).

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
    check_no_nul(qnames, f"the query ids of the {what}")
    check_no_nul(docs, f"the document ids of the {what}")
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
    q, d = df["query_id"].to_numpy(), df["doc_id"].to_numpy()
    check_no_nul(q, f"the query ids of the {what}")
    check_no_nul(d, f"the document ids of the {what}")
    return q, d, df[value_name].to_numpy()


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
