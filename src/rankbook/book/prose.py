"""Numbers in the book's prose (``book/*.md``): each either comes from the build or is a
constant of the sources on a short reviewed list.

A number the build produces (a count of claims, a claim's matched or failed cells) is written
in the prose as the role ``{build}`KEY``` (``book/_ext/rankbook_sphinx.py``), which the site
fills from ``book/generated/numbers.json`` (:func:`build_numbers`, written with the other
generated pages): ``all but {build}`BR-T2-p.failed + BR-T3-p.failed``` reads "all but 2". A
key the file does not hold fails the build.

:func:`typed_numbers` finds every other number of a page's prose (outside code, maths, roles,
link targets and directives' options); each must be a reference to a numbered part of a source
(Table 2, Eq. 13, Section IV-B1, Core 2018, ...), a year, or one of :data:`CONSTANTS`, the
reviewed list of numbers that are facts of the sources or of the tools, not results
(``tests/test_prose_numbers.py``).
"""

from __future__ import annotations

import re
from pathlib import Path

#: The file the ``{build}`` role reads, under ``book/generated/``.
NUMBERS_FILE = "numbers.json"

#: Words after which a number names a part of a source or of the book, not a result.
_REFERENCE_WORDS = (
    r"Tables?|Figures?|Fig\.|Eqs?\.|Equations?|eq\.|Sections?|Propositions?|Lemmas?|Theorems?|"
    r"Corollar(?:y|ies)|Definitions?|Defs?\.|Appendix|Appendices|Examples?|Remarks?|Algorithm|"
    r"lines?|Core|Python|step|[Pp]art|Chapter|version|trec_eval|pytrec_eval|ir_measures|ranx|"
    r"repro_eval|Issue|issue|SHA")
#: A reference with its number(s): ``Table 2``, ``Tables 1 and 2``, ``Figures 1 to 3``,
#: ``Eq. (13)``, ``Section IV-B1``, ``Proposition 7.1``, ``Figure 2a``.
_REFERENCE = re.compile(
    rf"\b(?:{_REFERENCE_WORDS})\s+\(?[\dIVX]+(?:[-.][\dA-Za-z]+)*[a-z]?\)?"
    r"(?:(?:,|,? and|,? or| to|–|-)\s*\(?\d+(?:\.\d+)*[a-z]?\)?)*")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
#: The numbers of definitions (a score of 0, 1 or 1/2, a cost of 2, positions 1, 2 and 3):
#: mathematics, not results.
_DEFINITIONAL = re.compile(r"(?<![\w.,/])(?:[0-3]|1/2|0/1)(?![\w/%]|[.,]\d)|\bSHA-256\b")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*%?(?![\w])")

#: The reviewed numbers that are facts of the sources, the tools or the machine, not results
#: of the build: (page, the phrase that holds the number, why it is a constant). A phrase
#: matches where it occurs in the page's prose (whitespace normalised).
CONSTANTS = (
    ("breuer2020.md", "built 50 variants", "the paper's design: the authors built 50 runs"),
    ("breuer2020.md", "reports 20 of these runs in three tables",
     "the appendix's size: what it prints, not a count the build makes"),
    ("breuer2020.md", "rounded to four decimals", "how the authors' scripts print"),
    ("paper_a.md", "studies 33 metrics", "the paper's Table 1 lists 33 metrics"),
    ("paper_a.md", "(19 of them", "the paper's Table 1: 19 confusion-matrix metrics"),
    ("paper_a.md", "97.5% of random pairs", "the share the paper states"),
    ("paper_a.md", "with 30 relevant items", "the paper's setting of Figure 1 (k = 30)"),
    ("paper_a.md", "the 33 metrics", "the paper's Table 1 lists 33 metrics"),
    ("paper_b.md", "the 33 metrics of paper A", "paper A's Table 1 lists 33 metrics"),
    ("paper_b.md", "up to 256 common items", "a constant of rankbook.consensus (the dense solver)"),
    ("paper_b.md", "more than 1023 items", "a constant of rankbook.consensus (exact integers)"),
    ("paper_b.md", "at position 20 in another", "an illustration, not a result"),
    ("scoring.md", "multiply by 100", "Breese et al.'s scale"),
    ("rerun.md", "default 20 minutes", "the default time limit per cell (1200 s)"),
    ("paper_b.md", "top-25 lists", "the paper's Table V: 25 results per query"),
    ("rerun.md", "exit status 2", "the command line's exit status for bad input"),
    ("rerun.md", "exits with 130 or 143", "the exit statuses after SIGINT and SIGTERM"),
)


def _strip(text: str) -> str:
    """A page's prose: without code (fenced and inline), maths, roles and their text, HTML
    comments and tags, link targets, directives' option lines, substitutions and table rules."""
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"^(```|~~~).*?^\1\s*$", " ", text, flags=re.S | re.M)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"(?<!\\)\$[^$]*?(?<!\\)\$", " ", text)
    text = re.sub(r"\{[\w:-]+\}`[^`]*`", " ", text)  # roles, {build} included
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"^\s*:[\w-]+:.*$", " ", text, flags=re.M)  # a directive's options
    text = re.sub(r"^:{3,}.*$", " ", text, flags=re.M)
    text = re.sub(r"\{\{[^}]*\}\}", " ", text)
    text = re.sub(r"<[^>]+>", " ", text)
    text = re.sub(r"^\s*\|[-|: ]+\|\s*$", " ", text, flags=re.M)
    return text


def typed_numbers(page: Path) -> list[str]:
    """Every number of ``page``'s prose that neither the build fills in (``{build}`` role) nor
    a reference, a year or a reviewed constant (:data:`CONSTANTS`) explains, each with its
    context."""
    page = Path(page)
    text = " ".join(_strip(page.read_text(encoding="utf-8")).split())
    allowed = []
    for name, phrase, _why in CONSTANTS:
        if name == page.name:
            allowed += [(m.start(), m.end()) for m in re.finditer(re.escape(phrase), text)]
    for pattern in (_REFERENCE, _YEAR, _DEFINITIONAL):
        allowed += [(m.start(), m.end()) for m in pattern.finditer(text)]
    found = []
    for m in _NUMBER.finditer(text):
        if any(a <= m.start() and m.end() <= b for a, b in allowed):
            continue
        found.append(f"{page.name}: {m.group()!r} in ...{text[max(0, m.start() - 50):m.end() + 30]}...")
    return found


def build_numbers(rows: list[dict], errata: list[dict], book) -> dict[str, int | str]:
    """The numbers the prose may cite with the ``{build}`` role, from the ledger and the
    build's records: ``claims`` and ``claims.<status>``, ``errata`` and
    ``errata.<severity>`` (``errata.slip`` for the slips), ``sources``, ``<source>.claims``,
    and for every claim ``<id>.status``, ``<id>.total``, ``<id>.matched`` and ``<id>.failed``
    (a claim whose data was unavailable has no count: its keys hold "not computed")."""
    from ..ledger.claims import SEVERITIES, STATUSES

    out: dict[str, int | str] = {"claims": len(rows), "sources": len(book.sources),
                                 "errata": len(errata)}
    for status in STATUSES:
        out[f"claims.{status}"] = sum(r.get("status") == status for r in rows)
    for severity in SEVERITIES:
        n = sum((e.get("severity") or "holds") == severity for e in errata)
        out[f"errata.{'slip' if severity == 'holds' else severity}"] = n
    for key in book.sources:
        out[f"{key}.claims"] = sum(r.get("paper") == key for r in rows)
        out[f"{key}.errata"] = sum(e.get("paper") == key for e in errata)
    for r in rows:
        out[f"{r['id']}.status"] = r.get("status") or ""
        total, matched = r.get("total"), r.get("matched")
        if total is None or matched is None:
            for part in ("total", "matched", "failed"):
                out[f"{r['id']}.{part}"] = "not computed"
            continue
        out[f"{r['id']}.total"] = int(total)
        out[f"{r['id']}.matched"] = int(matched)
        out[f"{r['id']}.failed"] = int(total) - int(matched)
    return out


def evaluate(expression: str, numbers: dict) -> str:
    """The text of a ``{build}`` role: one key of ``numbers``, or keys joined by ``+`` (summed).
    ``KeyError`` naming the key when the file does not hold it.

    Examples
    --------
    >>> evaluate("X-1.failed + X-2.failed", {"X-1.failed": 1, "X-2.failed": 1})
    '2'
    >>> evaluate("X-1.status", {"X-1.status": "holds"})
    'holds'
    """
    keys = [k.strip() for k in expression.split("+")]
    for k in keys:
        if k not in numbers:
            raise KeyError(k)
    values = [numbers[k] for k in keys]
    if len(values) == 1:
        return str(values[0])
    if not all(isinstance(v, int) for v in values):
        return "not computed"
    return str(sum(values))
