"""The one way notebooks save what they show: tables as CSV, figures as PNG and SVG.

Every table a notebook shows goes through :func:`save_table`, every figure through
:func:`save_figure`. Both write into :func:`rankbook.ledger.paths.output_dir` (``book/generated/NAME/``
during a build, the run folder with ``rankbook run``) and display the result in the page with a
title or a caption and alt text.

The files are deterministic: the same data gives the same bytes. CSVs use ``\\n`` line ends and
full float precision; PNGs carry no software stamp; SVGs carry no date and use a fixed hash
salt for their element ids.

What a notebook reproduced, and what it found wrong in a source, is reported through the
claims ledger (:func:`rankbook.ledger.claims.report`), never typed in by hand.
"""

from __future__ import annotations

import html as _html
import os
import re
from pathlib import Path
from typing import Any, Callable

from ..ledger.paths import notebook_dir, output_dir
from .csvsafe import write_csv

from ..ledger.claims import (  # noqa: E402  (the one scale and the records, see rankbook.ledger.claims)
    COMPARISONS,
    ERRATA_FILE,
    RESULTS_FILE,
    STATUSES,
    _append_record,
    _check_record_shape,
    _jsonable,
    median_count,
)

#: The units a record counts in (``matched`` of ``total`` ...).
UNITS = ("cells", "values", "symbols", "entries", "statements", "transpositions", "rows",
         "curves", "claims", "metrics", "cases", "pairs", "matrices", "edges", "subsequences")

from ..ledger.claims import CLAIM_UNITS  # noqa: E402,F401  (units only a stated claim can count)

#: The status rule in one sentence, as the landing page and the dashboard state it.
STATUS_RULE = (
    "Published numbers *hold* (or *hold within tolerance*: the printed rounding, or the spread "
    "of a random experiment's rerun) when every compared value matches, are *imprecise* when "
    "some do and *not reproduced* when none do; a stated claim, however many cases it covers, "
    "*holds* only when every case checked holds and is otherwise *false*, with its failing "
    "cases named; a statement that no computation could contradict is *true by definition* "
    "and is not counted among those that hold; *not checkable* marks a result with nothing "
    "published to compare or whose inputs are not distributed."
)

def check_status(record: dict) -> str:
    """Re-apply the status rule to a stored result record; ValueError when it disagrees.

    Checks the status (:func:`status_for`), that a failing claim names its failing cases, that
    statements are graded as claims, and that a count over seeds is the median of its seeds.
    """
    key = record.get("key")
    want = status_for(record.get("comparison", "?"), record.get("matched"), record.get("total"),
                      record.get("holds"))
    if record.get("status") != want:
        raise ValueError(
            f"record {key!r} has status {record.get('status')!r} but the status "
            f"rule gives {want!r}"
        )
    _check_record_shape(key, record.get("comparison"), record.get("unit", "cells"),
                        record.get("matched"), record.get("total"), want,
                        record.get("failures"), record.get("per_seed"))
    return want


_CASE = re.compile(r"^(\([^()]*\)),\s*(.+)$")


def _listing(items, limit: int = 6) -> str:
    """Items in a row a reader can parse: cases written as tuples with the same remark are
    listed together and the remark said once; items holding a comma are separated by ``;``.

    Examples
    --------
    >>> _listing(["SMAPE", "MAPE"])
    'SMAPE, MAPE'
    >>> _listing(["(20, 2), similar on 0 of 10 seeds", "(50, 5), similar on 0 of 10 seeds"])
    '(20, 2); (50, 5), each similar on 0 of 10 seeds'
    >>> _listing(["(20, 2), similar on 0 of 10 seeds", "(20, 6), similar on 9 of 10 seeds"])
    '(20, 2) (similar on 0 of 10 seeds); (20, 6) (similar on 9 of 10 seeds)'
    """
    items = [str(i) for i in items]
    cases = [_CASE.match(i) for i in items]
    if len(items) > 1 and all(cases):
        remarks: dict[str, list[str]] = {}
        for m in cases:
            remarks.setdefault(m.group(2), []).append(m.group(1))
        if len(remarks) == 1:
            (remark, tuples), = remarks.items()
            shown = tuples if len(tuples) <= limit else tuples[:limit] + [
                f"{len(tuples) - limit} more"]
            return "; ".join(shown) + f", each {remark}"
        items = [f"{'; '.join(t)} ({'each ' if len(t) > 1 else ''}{r})" for r, t in remarks.items()]
    sep = "; " if any("," in i for i in items) else ", "
    if len(items) <= limit:
        return sep.join(items)
    return sep.join(items[:limit]) + f" and {len(items) - limit} more"


def count_phrase(record: dict) -> str:
    """How a record's count reads, the same on the page, the dashboard and the landing page.

    Numbers are counted as matches (``149 of 198 cells match``, with the median and range when
    the count was repeated over seeds); a claim is counted by its failures, never by its
    successes, so a false claim never reads like a pass (``fails for 1 of 33 metrics: SMAPE``).

    Examples
    --------
    >>> count_phrase({"comparison": "noise", "matched": 144, "total": 198, "unit": "cells",
    ...               "per_seed": [139, 144, 149]})
    'median 144 of 198 cells match (139–149 over 3 seeds)'
    >>> count_phrase({"comparison": "claim", "matched": 32, "total": 33, "unit": "metrics",
    ...               "status": "false", "failures": ["SMAPE"]})
    'fails for 1 of 33 metrics: SMAPE'
    >>> count_phrase({"comparison": "claim", "matched": 1470, "total": 1470,
    ...               "unit": "transpositions", "status": "holds"})
    'holds for all 1470 transpositions'
    """
    total, matched = record.get("total"), record.get("matched")
    unit = record.get("unit", "cells")
    failures = list(record.get("failures") or [])
    if record.get("comparison") == "claim":
        if total is None:
            return f"fails: {_listing(failures)}" if failures else ""
        failed = int(total) - int(matched)
        if failed == 0:
            return f"holds for all {total} {unit}" if total > 1 else ""
        named = f": {_listing(failures)}" if failures else ""
        return f"fails for {failed} of {total} {unit}{named}"
    if total is None:
        return ""
    seeds = record.get("per_seed")
    if seeds:
        lo, hi = min(seeds), max(seeds)
        if lo == hi:
            return f"{matched} of {total} {unit} match on each of {len(seeds)} seeds"
        return f"median {matched} of {total} {unit} match ({lo}–{hi} over {len(seeds)} seeds)"
    phrase = f"{matched} of {total} {unit} match"
    return phrase


def alternatives_phrase(record: dict) -> str:
    """The counts under the other readings of a record, counted the same way as its main line
    (:func:`count_phrase`) and saying which: a claim by its failures (``uniform reading: fails
    for 5 of 33 metrics``, or ``holds for all 33``), numbers by their matches (``uniform
    reading: 28 of 33 cells match``); a single statement (no count) reads ``holds`` or
    ``fails`` under each other reading.

    Examples
    --------
    >>> alternatives_phrase({"total": 33, "alternatives": {"uniform reading": 28}})
    'uniform reading: 28 of 33 cells match'
    >>> alternatives_phrase({"comparison": "claim", "total": 4, "unit": "pairs",
    ...                      "alternatives": {"up to sign": 3, "strict": 4}})
    'up to sign: fails for 1 of 4 pairs; strict: holds for all 4 pairs'
    >>> alternatives_phrase({"total": None, "alternatives": {"weighted": False}})
    'weighted: fails'
    """
    alt = record.get("alternatives") or {}
    total = record.get("total")
    if total is None:
        return "; ".join(f"{k}: {'holds' if v else 'fails'}" if isinstance(v, bool)
                         else f"{k}: {v}" for k, v in alt.items())
    unit = record.get("unit", "cells")
    if record.get("comparison") == "claim":
        def one(v):
            failed = int(total) - int(v)
            return f"holds for all {total} {unit}" if failed == 0 else (
                f"fails for {failed} of {total} {unit}")
        return "; ".join(f"{k}: {one(v)}" for k, v in alt.items())
    return "; ".join(f"{k}: {v} of {total} {unit} match" for k, v in alt.items())


def allowed_counts(record: dict) -> set[int]:
    """Every count a page may print as "N of total" for this record: the count, the failures,
    the per-seed counts and the counts under the other readings."""
    if record.get("total") is None:
        return set()
    total, matched = int(record["total"]), int(record["matched"])
    out = {matched, total - matched}
    out.update(int(x) for x in record.get("per_seed") or [])
    for v in (record.get("alternatives") or {}).values():
        out.update({int(v), total - int(v)})
    return out


def status_for(comparison: str, matched: int | None = None, total: int | None = None,
               holds: bool | None = None) -> str:
    """The one status rule of the book (:func:`rankbook.ledger.claims.grade`).

    Examples
    --------
    >>> status_for("exact", 5, 5), status_for("noise", 3, 5), status_for("exact", 0, 4)
    ('holds', 'imprecise', 'not reproduced')
    >>> status_for("claim", holds=False), status_for("none")
    ('false', 'not checkable')
    """
    from ..ledger.claims import grade

    return grade(comparison, matched, total, holds)


def _slug(text: str) -> str:
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9]+", "-", str(text).lower())).strip("-")


def record_anchor(record: dict) -> str:
    """The stable anchor of a verdict row, from its claim's immutable ledger id, e.g.
    ``claim-a-t2-rob`` (the same in every build, on every page, whatever the wording).

    Examples
    --------
    >>> record_anchor({"id": "A-T2-rob", "paper": "A", "artifact": "Table 2, robustness rows"})
    'claim-a-t2-rob'
    """
    from ..ledger.claims import claim_anchor

    if not record.get("id"):
        raise ValueError(f"record {record.get('artifact')!r} has no ledger id (data/claims/)")
    return claim_anchor(record["id"])


def erratum_anchor(erratum: dict) -> str:
    """The stable anchor of an errata entry, from its immutable ledger id, e.g. ``erratum-a-e7``.

    Examples
    --------
    >>> erratum_anchor({"id": "A-E7", "paper": "A", "where": "Proposition 6.2"})
    'erratum-a-e7'
    """
    from ..ledger.claims import erratum_anchor_of

    if not erratum.get("id"):
        raise ValueError(f"erratum {erratum.get('where')!r} has no ledger id (data/claims/)")
    return erratum_anchor_of(erratum["id"])



_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(
            f"output name {name!r} is not a plain file stem: use letters, digits, '_', '-' or '.'"
        )
    return name


def _display(obj: Any, metadata: dict | None = None) -> None:
    try:
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython is a dependency
        return
    if metadata:
        display(obj, metadata=metadata)
    else:
        display(obj)


#: Output metadata key that marks the last output of a table (:func:`save_table`,
#: :func:`save_comparison_grid`) or an explorer: the page puts its provenance line after it
#: (:mod:`rankbook.book.present`). Its value: ``{"kind", "name", "files": {kind: path}}``, each
#: path relative to the executed notebook.
OUTPUT_KEY = "rankbook_output"


def output_metadata(kind: str, name: str, *paths: Path) -> dict:
    """The :data:`OUTPUT_KEY` metadata of a table or an explorer saved as ``paths``."""
    return {OUTPUT_KEY: {"kind": kind, "name": name,
                         "files": {p.suffix.lstrip(".") or p.name: _relative(p) for p in paths}}}


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return False
    return get_ipython() is not None


#: Every ASCII punctuation character: CommonMark lets a backslash make each of them literal.
_MD_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def escape_markdown(value: Any) -> str:
    r"""User text (a label, a file name, a value) as literal text in MyST Markdown.

    The one escaping point for text that is data, never markup: every ASCII punctuation
    character gets a backslash, so nothing in it can open HTML (``<script>``, ``<img
    onerror=...>``), an entity (``&lt;``), a link (``[x](javascript:...)``), emphasis, a code
    span, maths (``$x$``), a MyST role or directive (a ``{cite}`` role, a ``:::`` fence), a substitution or a
    table cell (``|``); line breaks become spaces, so the text stays in its cell or line.
    Use it for every label, file name or parameter value a notebook puts into a title, a
    caption, a record string or ``display(Markdown(...))``; :func:`save_table` applies it to
    every cell and header itself. The book turns typographic ("smart") quotes off in every
    notebook output, verdict and generated page, so ``"hi"`` reads back as typed
    (``book/_ext/rankbook_sphinx.py``). For HTML use :func:`escape_html`.

    Examples
    --------
    >>> escape_markdown("<b>R&D</b> | $x$")
    '\\<b\\>R\\&D\\<\\/b\\> \\| \\$x\\$'
    >>> escape_markdown("two\nlines")
    'two lines'
    """
    text = "" if value is None else str(value)
    text = " ".join(text.splitlines())
    return _MD_PUNCTUATION.sub(r"\\\1", text)


def escape_html(value: Any) -> str:
    """User text as literal text in HTML (element content or a quoted attribute value).

    The HTML counterpart of :func:`escape_markdown`: ``&``, ``<``, ``>``, ``"`` and ``'``
    become character references, so a label never opens an element or an attribute.

    Examples
    --------
    >>> escape_html('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    """
    return _html.escape("" if value is None else str(value), quote=True)


#: A backslash pair (kept as it is), a maths span ``$...$`` (kept), or a character
#: :func:`md_escape` escapes outside maths.
_MD_TRUSTED = re.compile(r"\\.|\$(?:\\.|[^$\\])+\$|[*|{}]|<(?=[A-Za-z/!?])|\r\n|[\r\n]")


def md_escape(value: Any) -> str:
    r"""Text the book itself writes (Markdown with ``$...$`` maths) made safe for one table cell
    or one line: ``|`` escaped, newlines joined, and ``*`` kept literal outside maths, so
    ``TP*TN - FP*FN`` is not read as emphasis; a ``<`` that would open an HTML tag is escaped,
    so a placeholder such as ``<name>`` or ``<group>`` reads as typed instead of vanishing as
    markup (the one escaping point of placeholders: parameter comments, rerun boxes, the rerun
    page and the verdicts all pass through it).

    Braces are escaped outside maths, so no MyST role (``{download}`...```), substitution
    (``{{ x }}``) or directive written in the ledger's prose is live on a page: the ledger's
    words reach the pages as literal text, its maths as maths.

    Characters already escaped with a backslash stay as they are, so a string that holds user
    text escaped by :func:`escape_markdown` keeps it literal (nothing is escaped twice).
    Text from a user goes through :func:`escape_markdown` first.

    Examples
    --------
    >>> md_escape("TP*TN | $a*b$")
    'TP\\*TN \\| $a*b$'
    >>> md_escape("notes {download}`x </.env>` and $\\mathcal{R}_c$")
    'notes \\{download\\}`x \\</.env>` and $\\mathcal{R}_c$'
    >>> md_escape("saved as <table_stem>_<name>.csv; p < 0.05")
    'saved as \\<table_stem>_\\<name>.csv; p < 0.05'
    >>> md_escape("ranking " + escape_markdown("a|b"))
    'ranking a\\|b'
    >>> md_escape("of $|-\\tau + 0.5|$ and $\\|x\\|$")
    'of $\\vert -\\tau + 0.5\\vert $ and $\\Vert x\\Vert $'
    """
    text = "" if value is None else str(value)

    def one(match: re.Match) -> str:
        token = match.group()
        if token.startswith("\\"):
            return token
        if token.startswith("$"):
            # a table cell ends at a bare |, and a \| left in maths would read as a norm
            # (MathJax shows \| as a double bar): the bars become \vert and \Vert
            return token.replace("\\|", "\\Vert ").replace("|", "\\vert ")
        if token in ("\r\n", "\r", "\n"):
            return " "
        return "\\" + token

    return _MD_TRUSTED.sub(one, text)


def _markdown_cell_text(value: Any) -> str:
    """A table cell or header: data, escaped in full (:func:`escape_markdown`); a value the
    notebook marked as Markdown with :class:`MarkdownText` keeps its maths (:func:`md_escape`)."""
    if isinstance(value, MarkdownText):
        return md_escape(value)
    return escape_markdown(value)


class MarkdownText(str):
    """A string a notebook wrote as Markdown (maths, emphasis) for a table cell.

    :func:`save_table` escapes every cell as data; wrap the cells of a column the notebook
    composed itself (with any user text in them escaped by :func:`escape_markdown`) with
    ``save_table(..., markdown=["column"])`` to keep their maths.
    """


#: How an undefined value (``nan``, ``None``) reads in a page table.
NOT_APPLICABLE = "not applicable"


def _number_text(value: Any) -> str:
    """A number as a reader expects it: an integer-valued float without ``.0``, others in
    their shortest exact form."""
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        v = float(value)
        if v != v:
            return NOT_APPLICABLE
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return repr(v)
    return str(value)


def _shown_value(value: Any) -> Any:
    """How a value reads in a page table: booleans as yes / no, never ``True`` / ``False``;
    ``nan`` and ``None`` as "not applicable"; ``10.0`` as ``10``; a list as its elements
    separated by commas, never a Python list.

    >>> [_shown_value(v) for v in (True, float("nan"), 10.0, 0.25, [4.0, 4.0, 1.0], ("a", "b"))]
    ['yes', 'not applicable', '10', '0.25', '4, 4, 1', 'a, b']
    """
    if isinstance(value, (bool,)) or type(value).__name__ == "bool_":
        return "yes" if value else "no"
    if value is None:
        return NOT_APPLICABLE
    if isinstance(value, (list, tuple)) or type(value).__name__ == "ndarray":
        return ", ".join(str(_shown_value(v)) for v in list(value))
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        return _number_text(value)
    if isinstance(value, str):
        return readable(value)
    return value


# three or more: a pair like [0.0, 1.0] may be an interval, whose brackets mean something
_FLOAT_LIST = re.compile(r"\[(-?\d+\.0(?:, -?\d+\.0){2,})\]")
_NAMED_INT_FLOAT = re.compile(r"(\b[A-Za-z_][\w]* = -?\d+)\.0\b(?![.\d])")
_BARE_NAN = re.compile(r"(?<![\w.\'\"`])nan(?![\w(])")


def readable(text: Any) -> str:
    """Prose with Python's spellings replaced by a reader's: a list of integer-valued floats
    ``[4.0, 4.0, 1.0]`` reads ``(4, 4, 1)``, ``n = 10.0`` reads ``n = 10``, a bare ``nan`` reads
    "not applicable". Applied to printed lines, verdicts and errata.

    >>> readable("kappa_p = [4.0, 4.0, 1.0], n = 10.0, ratio nan")
    'kappa_p = (4, 4, 1), n = 10, ratio not applicable'
    """
    out = "" if text is None else str(text)
    out = _FLOAT_LIST.sub(lambda m: "(" + ", ".join(x[:-2] for x in m.group(1).split(", ")) + ")",
                          out)
    out = _NAMED_INT_FLOAT.sub(r"\1", out)
    return _BARE_NAN.sub(NOT_APPLICABLE, out)


#: A snake_case id (``lr_minus``, ``cumulative_gain``): shown as the name a reader knows.
_SNAKE_ID = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
#: A name of code inside a cell's text: a snake_case word, or a dotted name holding one
#: (``rexmex.mean_rank``, ``time.perf_counter``); shown as code, or as its reader's name.
_CODE_WORD = re.compile(r"(?<![\w.$\\`])(?:[A-Za-z]\w*\.)*[a-z][a-z0-9]*(?:_[a-z0-9]+)+"
                        r"(?:\.[A-Za-z_]\w*)*(?![\w`])")


_LOG2 = re.compile(r"\blog2\(")
_SQRT = re.compile(r"\bsqrt\(")
_RANKINGS = re.compile(r"\b(?:sigma|nu)\b")


def ascii_maths(text: str, rankings: bool = False) -> str:
    """ASCII maths as plain text reads it: ``log2(`` as ``log₂(``, ``sqrt(`` as ``√(``, and
    with ``rankings`` the names of rankings and their composition as symbols (``nu o sigma``
    reads ``ν ∘ σ``, :func:`rankbook.ledger.names.symbols`).

    Examples
    --------
    >>> ascii_maths("1/log2(i+1) and sqrt(x); nu o sigma", rankings=True)
    '1/log₂(i+1) and √(x); ν ∘ σ'
    """
    text = _SQRT.sub("√(", _LOG2.sub("log₂(", str(text)))
    if rankings and _RANKINGS.search(text):
        from ..ledger.names import symbols

        text = symbols(text)
    return text


def reader_markdown(text: Any) -> Any:
    """Markdown a notebook composed (a ``markdown=`` column, an explorer's caption) as a reader
    reads it: ids with a reader's name written as it and ASCII maths as symbols, outside its
    maths and code; the rest unchanged.

    Examples
    --------
    >>> reader_markdown("cells of prevalence_threshold read 0.06; `lr_minus` stays; $x_1$")
    'cells of PT read 0.06; `lr_minus` stays; $x_1$'
    """
    if not isinstance(text, str):
        return text
    from ..ledger.names import display

    def plain(part: str) -> str:
        part = _CODE_WORD.sub(lambda m: display(m.group()) if display(m.group()) != m.group()
                              else m.group(), part)
        return ascii_maths(part, rankings=True)

    out, at = [], 0
    for m in re.finditer(r"\$[^$]*\$|`[^`]*`", text):
        out += [plain(text[at:m.start()]), m.group()]
        at = m.end()
    result = "".join(out + [plain(text[at:])])
    return MarkdownText(result) if isinstance(text, MarkdownText) else result


def reader_text(value: Any, html: bool = False) -> Any:
    """A table cell or header as a reader reads it: a snake_case id that
    :mod:`rankbook.ledger.names` knows becomes its name (``lr_minus`` reads "LR−",
    ``cumulative_gain`` "cumulative gain"), and an ASCII formula of
    :data:`rankbook.ledger.names.FORMULAS` becomes maths (a :class:`MarkdownText` cell whose
    other text stays escaped; plain Unicode symbols for an HTML table, ``html=True``). Other
    values come back unchanged; the CSV keeps the ids.

    Examples
    --------
    >>> reader_text("lr_minus"), reader_text("pairs_csv"), reader_text(3)
    ('LR−', '`pairs_csv`', 3)
    >>> reader_text("metric lr_minus and rexmex.mean_rank")
    'metric LR− and `rexmex.mean_rank`'
    >>> reader_text("z^T (I - L)^-1 z")
    '$z^T (I - L)^{-1} z$'
    >>> reader_text("x*y: sum_i pi(i)/log2(i+1)", html=True)
    'x*y: Σᵢ π(i)/log₂(i+1)'
    """
    if not isinstance(value, str) or isinstance(value, MarkdownText):
        return value
    from ..ledger.names import FORMULAS, display, display_markdown, formulas

    if _SNAKE_ID.match(value):
        shown = display(value) if html else display_markdown(value)
        if shown == value:
            return value if html else MarkdownText(f"`{value}`")  # a name of code, as code
        return MarkdownText(shown) if "$" in shown and not html else shown
    found = [f for f in FORMULAS if f in value]
    words = _CODE_WORD.findall(value)
    if not found and not words:
        return ascii_maths(value, rankings=True)
    if html:
        return ascii_maths(_CODE_WORD.sub(lambda m: display(m.group()),
                                          formulas(value, markdown=False)), rankings=True)
    parts = [re.escape(f) for f in sorted(found, key=len, reverse=True)] + [_CODE_WORD.pattern]
    pattern = re.compile("|".join(parts))
    out, at = [], 0
    for m in pattern.finditer(value):
        token = m.group()
        if token in FORMULAS:
            shown = FORMULAS[token][0]
        else:  # an id with a reader's name reads as it; any other name of code as code
            name = display_markdown(token)
            shown = md_escape(name) if name != token else f"`{token}`"
        out += [escape_markdown(ascii_maths(value[at:m.start()], rankings=True)), shown]
        at = m.end()
    return MarkdownText("".join(out + [escape_markdown(ascii_maths(value[at:], rankings=True))]))


def table_markdown(df, title: str, index: bool = False, markdown=()) -> str:
    """A MyST ``{table}`` directive with ``title`` holding ``df`` as a Markdown table.

    Every header and cell is data, escaped in full (:func:`escape_markdown`), except cells
    wrapped in :class:`MarkdownText`; ``title`` is the notebook's own Markdown (maths kept, user
    text in it escaped by the caller with :func:`escape_markdown`).
    """
    frame = df.reset_index() if index else df
    header = "| " + " | ".join(md_escape(c) if c in markdown or isinstance(c, MarkdownText)
                               else escape_markdown(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = [
        "| " + " | ".join(_markdown_cell_text(v) for v in row) + " |"
        for row in frame.itertuples(index=False, name=None)
    ]
    body = "\n".join([header, rule, *rows])
    from ..ledger.names import formulas

    return f":::{{table}} {md_escape(formulas(title))}\n\n{body}\n:::\n"


def _relative(path: Path) -> str:
    """``path`` relative to the executed notebook, as its page links it."""
    return os.path.relpath(path, notebook_dir()).replace(os.sep, "/")


def download_markdown(path: Path, what: str = "this table") -> str:
    """One line with a download link (MyST ``{download}``) to ``path``, shown next to it."""
    return (f"<span class=\"rb-download\">Download {what}: "
            f"{{download}}`{path.name} <{_relative(path)}>`</span>\n")


def _readable_colours(html: str) -> str:
    """Give every coloured cell of a styled table a text colour that keeps at least 4.5:1
    contrast with its background, in light and dark mode alike (the theme's dark mode would
    otherwise write light text on a light cell)."""
    def text_for(colour: str) -> str | None:
        m = re.fullmatch(r"#([0-9a-fA-F]{6})", colour.strip())
        if not m:
            return None
        rgb = [int(m.group(1)[i:i + 2], 16) / 255 for i in (0, 2, 4)]
        lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
        return "#1a1a1a" if (lum + 0.05) / (0.0103 + 0.05) >= (1.05) / (lum + 0.05) else "#ffffff"

    def fix(m: re.Match) -> str:
        body = m.group(2)
        if re.search(r"(?<![-\w])color\s*:", body):
            return m.group(0)
        bg = re.search(r"background(?:-color)?\s*:\s*(#[0-9a-fA-F]{6})", body)
        colour = text_for(bg.group(1)) if bg else None
        if not colour:
            return m.group(0)
        return f"{m.group(1)}{{{body.rstrip().rstrip(';')}; color: {colour};}}"

    return _CSS_RULE_WITH_BACKGROUND.sub(fix, html)


#: One CSS rule (selector, body) whose body sets a background. A rule starts at the beginning
#: of the text or right after the previous rule's ``}``: without that anchor every position of
#: the table's markup after the last rule was tried and scanned to the end, which took seconds
#: (quadratic) on a table of 40 rows; the matches are the same, since a match could only begin
#: there.
_CSS_RULE_WITH_BACKGROUND = re.compile(r"(?:^|(?<=\}))([^{}]+)\{([^{}]*background[^{}]*)\}")


def save_table(
    df,
    name: str,
    title: str | None = None,
    *,
    show: bool = True,
    index: bool = False,
    style: Callable | None = None,
    float_format: str | None = None,
    collapse: bool = False,
    max_rows: int = 40,
    markdown=(),
) -> Path:
    """Write ``df`` to ``NAME.csv`` in the output folder and show it in the page with a title.

    Every cell and header is shown as data, never markup: labels such as ``<script>``, ``$x$``
    or ``[a](javascript:...)`` read back exactly (:func:`escape_markdown`, :func:`escape_html`).

    Parameters
    ----------
    df : pandas.DataFrame
        The table. It is written in full; ``float_format`` only affects the page.
    name : str
        File stem, e.g. ``"table2_robustness"``.
    title : str
        The table's title in the page. Required when ``show`` is true.
    show : bool
        Display the table in the notebook (default) or only save it.
    index : bool
        Write and show the index as a column.
    style : callable, optional
        ``style(styler) -> styler`` to colour cells; the table is then shown as HTML with the
        title as its caption. Without it, the table is shown as a MyST table directive.
    float_format : str, optional
        Format for floats in the page, e.g. ``"{:.3f}"``.
    collapse : bool
        Show the table folded in a dropdown titled ``title`` (for long lists a reader opens on
        demand: reasons, per-pair rows). Booleans always read as yes / no in the page.
    max_rows : int
        The page shows at most this many rows, then says how many more the CSV holds and
        links to it; the CSV always holds every row. A page never grows with the input.
    markdown : sequence of str
        Columns whose cells (and header) the notebook composed as Markdown (maths such as
        ``$\\mathrm{FDR}$``): they keep their maths (:func:`md_escape`). Any user text inside
        them must be escaped with :func:`escape_markdown` first. Ignored with ``style``.
    """
    _check_name(name)
    markdown = [markdown] if isinstance(markdown, str) else list(markdown)
    unknown = [c for c in markdown if c not in df.columns]
    if unknown:
        raise ValueError(f"markdown columns {unknown} are not columns of table {name!r}; "
                         f"columns: {list(df.columns)}")
    if show and not title:
        raise ValueError(f"table {name!r} is shown without a title: pass title='...'")
    path = write_csv(df, output_dir() / f"{name}.csv", index=index)  # no cell a formula
    if show and _in_kernel():
        total = len(df)
        more = ""
        if total > max_rows:
            df = df.head(max_rows)
            more = f"Showing the first {max_rows} of {total} rows; all rows are in {name}.csv."
        if style is not None:
            import pandas as pd

            df = df.map(lambda v: reader_text(v, html=True)) if hasattr(df, "map") else df
            # cells, index and column labels are data: HTML-escaped, whatever the style does
            with pd.option_context("styler.format.escape", "html"):
                styler = df.style.format_index(escape="html", axis=0).format_index(
                    escape="html", axis=1)
                if not index:
                    styler = styler.hide(axis="index")
                if float_format:
                    styler = styler.format(float_format, subset=df.select_dtypes("number").columns)
                from ..ledger.names import formulas

                styler = style(styler).set_caption(
                    escape_html(formulas(title, markdown=False))).set_uuid(name)
                html = _readable_colours(styler.to_html())
            from IPython.display import HTML, Markdown

            if more:
                html += f"<p class=\"rb-legend\">{escape_html(more)}</p>"
            if collapse:
                html = (f"<details class=\"rb-table\"><summary>{escape_html(title)}</summary>"
                        f"<div class=\"rb-scroll\">{html}</div></details>")
            _display(HTML(f"<div class=\"rb-table-wrap rb-scroll\">{html}</div>"))
            _display(Markdown(download_markdown(path)), output_metadata("table", name, path))
        else:
            shown = df.copy()
            if float_format:
                for col in df.select_dtypes("float").columns:
                    shown[col] = df[col].map(
                        lambda v: "" if v != v else float_format.format(v)  # nan -> empty
                    ).astype(object)
            shown = shown.map(_shown_value) if hasattr(shown, "map") else shown
            from IPython.display import Markdown

            plain = [c for c in shown.columns if c not in markdown]
            shown = shown.copy() if shown is df else shown
            for col in plain:  # ids and ASCII formulas read as the names and maths a reader knows
                shown[col] = shown[col].map(reader_text)
            shown.columns = [c if c in markdown else reader_text(c) for c in shown.columns]
            for col in markdown:
                shown[col] = shown[col].map(
                    lambda v: MarkdownText(reader_markdown("" if v is None else v)))
            text = table_markdown(shown, title, index=index, markdown=markdown)
            if more:
                text += f"\n{more.removesuffix(f'all rows are in {name}.csv.')}"
                text += download_markdown(path, "all rows")
            else:
                text += "\n" + download_markdown(path)
            if collapse:
                text = f"::::{{dropdown}} {md_escape(title)}\n\n{text}\n::::\n"
            _display(Markdown(text), output_metadata("table", name, path))
    return path


#: CSS class of a grid cell by how far the reproduced value is from the published one.
GRID_CLASSES = {"match": "rb-ok", "close": "rb-close", "differs": "rb-off", "not in the paper": "rb-na"}
#: The symbol that tells the same as the cell's colour (colour alone is not enough).
GRID_SYMBOLS = {"match": "✓", "close": "≈", "differs": "✗", "not in the paper": ""}


def grid_status(reproduced, published, decimals: int):
    """``match`` within half a unit of the last printed decimal, ``close`` within 1.5 units,
    ``differs`` beyond, ``not in the paper`` where nothing was published."""
    import numpy as np
    import pandas as pd

    rep = reproduced.to_numpy(dtype=float)
    pub = published.reindex(index=reproduced.index, columns=reproduced.columns).to_numpy(dtype=float)
    unit = 10.0 ** -decimals
    diff = np.abs(rep - pub)
    out = np.where(np.isnan(pub), "not in the paper",
                   np.where(diff <= 0.5 * unit + 1e-12, "match",
                            np.where(diff <= 1.5 * unit + 1e-12, "close", "differs")))
    return pd.DataFrame(out, index=reproduced.index, columns=reproduced.columns)


def save_comparison_grid(
    reproduced,
    published,
    name: str,
    title: str,
    *,
    decimals: int = 3,
    status=None,
    row_name: str = "",
    legend: dict | None = None,
    collapse: bool = False,
    published_decimals: int | None = None,
) -> Path:
    """Show a grid with the published value beside the reproduced one in every cell.

    Each cell shows the reproduced value, coloured by how far it is from the published value,
    with the published value in small type below it; one table per grid, not one grid for
    each. ``reproduced`` and ``published`` are DataFrames on the same rows and columns
    (``published`` may miss cells: "not in the paper"; ``published_decimals`` shows them as
    printed). ``status`` (same shape, values keys of
    :data:`GRID_CLASSES`) overrides the colour rule of :func:`grid_status`, for grids graded
    within sampling noise. Writes ``NAME.csv`` in tidy form: row, column, reproduced,
    published, difference, status.
    """
    import pandas as pd

    _check_name(name)
    pub = published.reindex(index=reproduced.index, columns=reproduced.columns)
    state = grid_status(reproduced, pub, decimals) if status is None else status.reindex(
        index=reproduced.index, columns=reproduced.columns).fillna("not in the paper")
    bad = set(state.to_numpy().ravel()) - set(GRID_CLASSES)
    if bad:
        raise ValueError(f"unknown grid status {sorted(bad)}; valid: {list(GRID_CLASSES)}")
    tidy = pd.DataFrame({
        "row": [r for r in reproduced.index for _ in reproduced.columns],
        "column": [c for _ in reproduced.index for c in reproduced.columns],
        "reproduced": reproduced.to_numpy(dtype=float).ravel(),
        "published": pub.to_numpy(dtype=float).ravel(),
        "status": state.to_numpy().ravel(),
    })
    tidy.insert(4, "difference", tidy["reproduced"] - tidy["published"])
    path = write_csv(tidy, output_dir() / f"{name}.csv")
    if _in_kernel():
        import numpy as np

        fmt = f"{{:.{decimals}f}}"

        def fmt_pub(value):  # the paper's digits: never pad a printed 0.998 to 0.9980
            if published_decimals is not None:
                return f"{value:.{published_decimals}f}"
            return np.format_float_positional(float(value), precision=decimals, unique=True,
                                              trim="-")
        esc = escape_html
        head = "".join(f"<th>{esc(str(c))}</th>" for c in reproduced.columns)
        rows = []
        for r in reproduced.index:
            cells = []
            for c in reproduced.columns:
                v, p, st = reproduced.at[r, c], pub.at[r, c], state.at[r, c]
                shown = "" if v != v else fmt.format(v)
                small = "" if p != p else f"<span class=\"rb-pub\">{fmt_pub(p)}</span>"
                sym = (f"<span class=\"rb-sym\" aria-label=\"{esc(st)}\">{GRID_SYMBOLS[st]}</span>"
                       if GRID_SYMBOLS.get(st) else "")
                cells.append(f"<td class=\"{GRID_CLASSES[st]}\" title=\"{esc(st)}\">{sym}{shown}{small}</td>")
            rows.append(f"<tr><th class=\"rb-row\">{esc(str(r))}</th>{''.join(cells)}</tr>")
        counts = state.stack().value_counts()
        words = legend or {"match": "within half a unit of the printed value's last decimal",
                           "close": "off by about one unit "
                           "of the last printed decimal", "differs": "differs",
                           "not in the paper": "not in the paper"}
        key = " ".join(f"<span class=\"{GRID_CLASSES[k]}\">"
                       + (f"<span class=\"rb-sym\">{GRID_SYMBOLS[k]}</span>" if GRID_SYMBOLS.get(k) else "")
                       + f"{esc(words.get(k, k))}: {int(counts.get(k, 0))}</span>"
                       for k in GRID_CLASSES if counts.get(k, 0))
        table = (f"<table class=\"rb-grid\"><caption>{esc(title)}</caption>"
                 f"<thead><tr><th class=\"rb-row\">{esc(row_name)}</th>{head}</tr></thead>"
                 f"<tbody>{''.join(rows)}</tbody></table>"
                 f"<p class=\"rb-legend\">Each cell: reproduced value, published value below. {key}</p>")
        if collapse:
            table = f"<details class=\"rb-table\"><summary>{esc(title)}</summary>{table}</details>"
        from IPython.display import HTML, Markdown

        _display(HTML(f"<div class=\"rb-scroll\">{table}</div>"))
        _display(Markdown(download_markdown(path, "this grid")), output_metadata("grid", name, path))
    return path


def _deterministic_savefig(fig, path: Path, fmt: str, dpi: int, box) -> None:
    import matplotlib

    tmp = path.with_name(path.name + ".tmp")
    with matplotlib.rc_context({"svg.hashsalt": "rankbook", "svg.fonttype": "path"}):
        if fmt == "svg":
            metadata = {"Date": None}
        else:
            metadata = {"Software": None}
        fig.savefig(tmp, format=fmt, dpi=dpi, metadata=metadata, bbox_inches=box)
    os.replace(tmp, path)


def _settle_layout(fig) -> None:
    """Run a figure's layout engine (constrained layout) and keep the positions it found.
    Left in place, the engine runs again in each pass of each save (a tight box is measured,
    then the figure drawn, for the PNG and again for the SVG): four layouts, which took about
    a sixth of the time the benchmark page's scaling figure cost. It runs twice, as it did
    before the PNG was drawn: a legend placed under its axes moves with them, so one run does
    not yet give it its room."""
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    engine = fig.get_layout_engine()
    if engine is not None and not isinstance(engine, PlaceHolderLayoutEngine):
        for _ in range(2):
            engine.execute(fig)
        fig.set_layout_engine("none")


#: Width of the book's text column (CSS pixels at 1400 px), where a figure is shown at 100 %.
COLUMN_PX = 768
#: Smallest text size, in points as the reader sees it in the column, that a figure may use.
MIN_DISPLAY_PT = 9.0
#: A PNG is written with at least this many pixels per displayed pixel (sharp on HiDPI screens).
PNG_OVERSAMPLE = 2.0

#: The book's figure style: readable sizes and the Okabe-Ito palette, safe for colour-blind
#: readers. Applied when this module is imported, before a notebook draws.
BOOK_STYLE = {
    "figure.figsize": (7.0, 4.0),
    "font.size": 10.0,
    "axes.titlesize": 11.0,
    "axes.labelsize": 10.0,
    "xtick.labelsize": 9.5,
    "ytick.labelsize": 9.5,
    "legend.fontsize": 9.5,
    "axes.prop_cycle": None,  # filled in by _apply_book_style
    "image.cmap": "viridis",
}
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
             "#000000")


def _apply_book_style() -> None:
    try:
        import matplotlib
        from cycler import cycler
    except ImportError:  # pragma: no cover - matplotlib comes with the book extra
        return
    style = dict(BOOK_STYLE, **{"axes.prop_cycle": cycler(color=list(OKABE_ITO))})
    matplotlib.rcParams.update(style)


_apply_book_style()


def _tight_box(fig):
    """The box, in inches, that ``savefig(bbox_inches="tight")`` would measure (before its
    padding)."""
    return fig.get_tightbbox(fig.canvas.get_renderer())


def png_dpi(width_in: float) -> int:
    """The resolution a figure ``width_in`` inches wide is saved at: at least
    :data:`PNG_OVERSAMPLE` pixels per pixel of the column it is shown in, and at least 100.

    Examples
    --------
    >>> png_dpi(10.0), png_dpi(4.0)
    (155, 385)
    """
    return max(100, int(-(-PNG_OVERSAMPLE * COLUMN_PX // width_in)) + 1)


def legible_fontsize(width_in: float) -> float:
    """The smallest font size, in points, that stays readable (:data:`MIN_DISPLAY_PT` as shown)
    in a figure ``width_in`` inches wide, with a 10 % margin for text beyond the axes.

    Examples
    --------
    >>> round(legible_fontsize(8.0), 1)
    9.9
    """
    return 1.1 * MIN_DISPLAY_PT * 96.0 * float(width_in) / COLUMN_PX


def check_figure_text(fig, name: str = "figure", box=None) -> float:
    """Refuse a figure whose smallest text would show below :data:`MIN_DISPLAY_PT` points.

    A figure is shown at the column's width (:data:`COLUMN_PX` CSS pixels, 96 per inch), so
    a figure ``W`` inches wide is scaled by ``COLUMN_PX / (96 W)``: its text must be at least
    ``MIN_DISPLAY_PT`` divided by that scale. Returns the figure's width in inches. ``box`` is
    the figure's tight box when the caller measured it already.
    """
    import matplotlib.text

    width = float((_tight_box(fig) if box is None else box).width)
    scale = COLUMN_PX / (96.0 * width)
    small = []
    hidden = set()  # tick and axis labels of axes turned off (ax.axis("off")) are never drawn
    for ax in fig.axes:
        if not ax.axison:
            for axis in ax._axis_map.values() if hasattr(ax, "_axis_map") else (ax.xaxis, ax.yaxis):
                hidden.update(id(t) for t in axis.findobj(matplotlib.text.Text))
    for t in fig.findobj(matplotlib.text.Text):
        if not t.get_visible() or not t.get_text().strip() or id(t) in hidden:
            continue
        shown = t.get_fontsize() * scale
        if shown < MIN_DISPLAY_PT - 1e-6:
            small.append((shown, t.get_fontsize(), t.get_text()))
    if small:
        shown, size, text = min(small)
        need = MIN_DISPLAY_PT / scale
        raise ValueError(
            f"figure {name!r}: {len(small)} text(s) would show below {MIN_DISPLAY_PT:g} pt in the "
            f"{COLUMN_PX} px column, e.g. {text[:40]!r} at {size:g} pt shows as {shown:.1f} pt; "
            f"the figure is {width:.1f} in wide, so use at least {need:.1f} pt or a narrower figure"
        )
    return width


def save_figure(
    fig,
    name: str,
    caption: str,
    alt: str,
    *,
    show: bool = True,
    wide: bool = False,
) -> Path:
    """Save ``fig`` as ``NAME.png`` and ``NAME.svg`` and show it in the page as a captioned figure.

    ``caption`` is MyST Markdown (math allowed); ``alt`` is the plain-text description for
    screen readers. Both are required; a caption that reproduces a paper's figure names it
    ("Paper A, Figure 1, recomputed"), because the book does not number its own figures.

    The figure is shown as a real image output (so the executed notebook shows it in Jupyter
    too); the page turns it into a captioned figure (:mod:`rankbook.book.present`). Its text
    must stay readable in the column (:func:`check_figure_text`); the PNG is written at twice
    the displayed size. ``wide=True`` keeps a dense figure (a heat map) at a readable size on
    a phone, in its own horizontal scroll box. The figure is closed afterwards.
    """
    _check_name(name)
    if not caption or not alt:
        raise ValueError(f"figure {name!r} needs both a caption and alt text")
    import matplotlib

    # the layout is fixed and the tight box measured once, for the text check and both files
    # (savefig measures it again for each file when asked for "tight")
    _settle_layout(fig)
    box = _tight_box(fig)
    width = check_figure_text(fig, name, box)
    dpi = png_dpi(width)
    padded = box.padded(matplotlib.rcParams["savefig.pad_inches"])
    out = output_dir()
    png = out / f"{name}.png"
    _deterministic_savefig(fig, png, "png", dpi, padded)
    _deterministic_savefig(fig, out / f"{name}.svg", "svg", dpi, padded)
    if show and _in_kernel():
        import base64

        import matplotlib.pyplot as plt
        from IPython.display import display

        plt.close(fig)
        alt_text = " ".join(str(alt).split())
        display(
            {"image/png": base64.b64encode(png.read_bytes()).decode("ascii"),
             "text/plain": f"[figure {name}: {alt_text}]"},
            raw=True,
            metadata={FIGURE_KEY: {"name": name, "caption": caption, "alt": alt_text,
                                   "wide": bool(wide),
                                   "files": {"png": _relative(png),
                                             "svg": _relative(out / f"{name}.svg")}}},
        )
    return png


#: Output metadata key that marks a figure shown by :func:`save_figure`.
FIGURE_KEY = "rankbook_figure"


def show(section, *stems) -> None:
    """Save and show what one page section computed (a :class:`rankbook.ledger.claims.Section`
    or :class:`~rankbook.ledger.claims.Evidence`), in the order it was added: each table
    through :func:`save_table`, each figure through :func:`save_figure`, each sentence as
    Markdown. With ``stems``, only those tables and figures, in that order, and no sentence.
    The one ``show`` every notebook uses."""
    from IPython.display import Markdown, display

    if stems:
        for stem in stems:
            if stem in section.tables:
                save_table(section.tables[stem], stem, **section.options(stem))
            elif stem in section.figures:
                save_figure(section.figures[stem], stem, **section.options(stem))
            else:
                raise ValueError(f"the section shows no table or figure {stem!r}; it shows "
                                 f"{sorted({**section.tables, **section.figures})}")
        return
    for kind, what, options in section.items:
        if kind == "table":
            save_table(section.tables[what], what, **options)
        elif kind == "figure":
            save_figure(section.figures[what], what, **options)
        else:
            display(Markdown(what))
