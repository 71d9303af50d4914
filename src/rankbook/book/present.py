"""How an executed notebook is presented as a book page.

:func:`present` rewrites an executed notebook (in place) before jupyter-book renders it:

* **code folded**: every code cell is collapsed behind a toggle (tag ``hide-input``), the
  parameters cell included; a cell tagged ``show-input`` in the source stays open (at most
  :data:`MAX_OPEN_CELLS` per page) because its one library call teaches something;
* **no raw values**: outputs that are only a plain-text repr (a returned ``Path``, a dict, a
  ``True``), and everything a cell wrote to stderr, are dropped from the page; printed lines
  become Markdown text (booleans read yes/no);
* **verdict first**: a box with CSS class ``verdict`` is inserted after the title and its
  first paragraph, built from the records the notebook wrote with
  :func:`rankbook.book.outputs.record_result` (the same records as the dashboard);
* **rerun box**: a box with CSS class ``rerun`` (:func:`rerun_markdown`) gives the page's
  parameters with their defaults and allowed values, the constraints between them, and one
  example ``rankbook run`` command that changes a parameter and runs in seconds;
* **lead figure early**: the page's main figure (:func:`_lead_figure`) moves up to just after
  the verdict, with the explorer cell that follows it; a pointer stays where it was;
* **downloads**: every figure's caption links its PNG and SVG;
* **provenance last**: the provenance box (parameters, commit, command, versions) closes the
  page.

The executed notebook stays a valid notebook: opened in Jupyter it shows the same figures and
tables, with the verdict box as a Markdown cell.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from .outputs import (
    ERRATA_FILE,
    FIGURE_KEY,
    OUTPUT_KEY,
    RESULTS_FILE,
    alternatives_phrase,
    count_phrase,
    erratum_anchor,
    escape_markdown,
    readable,
    record_anchor,
)
from .outputs import md_escape as _md_escape


def md_escape(value) -> str:
    """:func:`rankbook.book.outputs.md_escape` of the :func:`~rankbook.book.outputs.readable`
    text: no Python spellings (``[4.0, 1.0]``, ``n = 10.0``, ``nan``) reach a page, and a
    subscript written as plain text reads as maths (:func:`subscript_maths`)."""
    from .outputs import ascii_maths

    return _md_escape(subscript_maths(ascii_maths(readable(value))))


_GREEK_TEX = dict(zip(
    "αβγδεζηθικλμνξπρστυφχψωΓΔΘΛΞΠΣΦΨΩ",
    r"\alpha \beta \gamma \delta \epsilon \zeta \eta \theta \iota \kappa \lambda \mu \nu \xi "
    r"\pi \rho \sigma \tau \upsilon \phi \chi \psi \omega \Gamma \Delta \Theta \Lambda \Xi \Pi "
    r"\Sigma \Phi \Psi \Omega".split()))
_LETTER = "A-Za-z" + "".join(_GREEK_TEX)
#: A one-letter symbol with a plain-text subscript (``κ_p``, ``d_ρ``, ``S_10``); an id such as
#: ``reads_nu_only`` or ``p_value`` (several letters on either side) does not match, nor an
#: escaped underscore (user text passed through escape_markdown).
_PLAIN_SUBSCRIPT = re.compile(rf"(?<![\w\\$])([{_LETTER}])_([0-9]+|[{_LETTER}])(?!\w)")
_MATHS_OR_CODE = re.compile(r"\$[^$]*\$|`[^`]*`")


def _tex(symbol: str) -> str:
    return "".join(_GREEK_TEX.get(ch, ch) for ch in symbol)


def subscript_maths(text) -> str:
    r"""Plain-text subscripts (``κ_p``, ``d_ρ``, ``f_r``, ``S_n``) as Markdown maths, outside
    the maths and code the text already holds, so that they read like the maths beside them.

    Examples
    --------
    >>> subscript_maths("the footrule d_ρ and κ_1; reads_nu_only, p_value, $x_1$, `a_b`")
    'the footrule $d_{\\rho}$ and $\\kappa_{1}$; reads_nu_only, p_value, $x_1$, `a_b`'
    """
    text = "" if text is None else str(text)
    if "_" not in text:
        return text

    def plain(part: str) -> str:
        return _PLAIN_SUBSCRIPT.sub(
            lambda m: f"${_tex(m.group(1))}_{{{_tex(m.group(2))}}}$", part)

    out, at = [], 0
    for m in _MATHS_OR_CODE.finditer(text):
        out += [plain(text[at:m.start()]), m.group()]
        at = m.end()
    return "".join(out + [plain(text[at:])])


def html_with_maths(text) -> str:
    r"""Text for raw HTML (a link inside a table cell): escaped, with its ``$...$`` maths and
    plain-text subscripts as the math spans MathJax typesets on the page.

    Examples
    --------
    >>> html_with_maths("Section III, d_τ & <b>")
    'Section III, <span class="math notranslate nohighlight">\\(d_{\\tau}\\)</span> &amp; &lt;b&gt;'
    """
    import html

    text = subscript_maths(text)
    out, at = [], 0
    for m in re.finditer(r"\$([^$]+)\$", text):
        out += [html.escape(text[at:m.start()], quote=False),
                f'<span class="math notranslate nohighlight">\\({html.escape(m.group(1), quote=False)}\\)</span>']
        at = m.end()
    return "".join(out + [html.escape(text[at:], quote=False)])

#: Code cells a page may leave open (tag ``show-input`` in the source notebook).
MAX_OPEN_CELLS = 2

_HIDDEN = {"hide-input", "remove-input", "remove-cell", "hide-cell"}

#: sphinx-design badge colour for each status (one scale, rankbook.ledger.claims.STATUSES).
BADGE = {
    "holds": "success",
    "holds within tolerance": "success",
    "true by definition": "info",
    "imprecise": "warning",
    "not reproduced": "danger",
    "false": "danger",
    "not checkable": "secondary",
}


def badge(status: str) -> str:
    """A coloured MyST badge for a status (sphinx-design's ``bdg-*`` roles)."""
    return f"{{bdg-{BADGE.get(status, 'secondary')}}}`{status}`"


def slugify(title: str) -> str:
    """The anchor MyST gives a heading (``myst_heading_anchors``), GitHub style."""
    return re.sub(r"[^\w\u4e00-\u9fff\- ]", "", title.strip().lower().replace(" ", "-"))


def status_details(rec: dict) -> list[str]:
    """What follows a status badge, as Markdown: the count as
    :func:`~rankbook.book.outputs.count_phrase` words it, a visible borderline mark with the
    seed pass rate, the reading the verdict uses and the counts under the other readings."""
    parts = []
    phrase = count_phrase(rec) if rec.get("comparison") else ""
    if phrase:
        parts.append(md_escape(phrase))
    if rec.get("borderline"):
        parts.append(f"**borderline**: {md_escape(rec['borderline'])}")
    if rec.get("reading"):
        parts.append(f"reading: {md_escape(rec['reading'])}")
    if rec.get("alternatives"):
        parts.append(f"other readings: {md_escape(alternatives_phrase(rec))}")
    return parts


def _status_cell(rec: dict, errata=(), root: Path | None = None) -> str:
    """Badge, the details of :func:`status_details`, and links to the errata of this claim by
    their ids."""
    parts = [badge(rec["status"])] + [link_ids(d, root=root) for d in status_details(rec)]
    ids = sorted({e["id"] for e in errata if e.get("id") and e.get("claim") == rec.get("id")},
                 key=lambda i: (i.rpartition("-E")[0], int(i.rpartition("-E")[2] or 0)))
    links = [f"{{ref}}`{i} <{erratum_anchor({'id': i})}>`" for i in ids]
    if links:
        parts.append("errata: " + ", ".join(links))
    return "<br>".join(parts)


def anchor_link(anchor: str, what: str = "this row") -> str:
    """A small visible link to a stable anchor (the id itself is set by the verdict row's span
    or the erratum's target), so a reader can copy a link to one result."""
    return (f'<a class="rb-anchor" href="#{anchor}" title="Link to {what}" '
            f'aria-label="Link to {what}">#</a>')


_IDS: dict = {}


def _ledger_ids(root: Path | None = None) -> tuple[frozenset, frozenset, "re.Pattern | None"]:
    """The claim ids and erratum ids of the ledger, and a pattern that finds any of them in
    text (longest first, so ``A-S6.1-swap`` is not read as ``A-S6.1``)."""
    from ..ledger import claims as _claims

    try:
        book = _claims.ledger(root)
    except Exception:  # noqa: BLE001 - a project without a ledger: no id to link
        return frozenset(), frozenset(), None
    key = (id(book), len(book.claims), len(book.errata))
    if _IDS.get("key") != key:
        ids = sorted(set(book.claims) | set(book.errata), key=len, reverse=True)
        pattern = (re.compile(r"(?<![\w-])(" + "|".join(re.escape(i) for i in ids)
                              + r")(?![\w.-]*\w)") if ids else None)
        _IDS.update(key=key, value=(frozenset(book.claims), frozenset(book.errata), pattern))
    return _IDS["value"]


def link_ids(text: str, prefix: str = "", root: Path | None = None) -> str:
    """Markdown text (ledger words, evidence) with every claim id linked to its dashboard row
    and every erratum id to its entry on the errata page (``prefix``: from the page to
    ``book/generated/``), outside maths and code, so that no id on a page is a dead end.

    Examples
    --------
    >>> link_ids("the same statement as A-P7.1; see `A-P7.1` and $A-P7.1$")  # doctest: +ELLIPSIS
    'the same statement as <a class="rb-id" href="dashboard.html#claim-a-p7-1" ...>A-P7.1</a>; see `A-P7.1` and $A-P7.1$'
    """
    from ..ledger.claims import claim_anchor, erratum_anchor_of

    claims, errata, pattern = _ledger_ids(root)
    if pattern is None or not text:
        return text

    def one(m: re.Match) -> str:
        i = m.group(1)
        if i in errata:
            return (f'<a class="rb-id" href="{prefix}errata.html#{erratum_anchor_of(i)}" '
                    f'title="This erratum on the errata page">{i}</a>')
        return (f'<a class="rb-id" href="{prefix}dashboard.html#{claim_anchor(i)}" '
                f'title="This claim on the dashboard">{i}</a>')

    out, at = [], 0
    for m in _MATHS_OR_CODE.finditer(text):
        out += [pattern.sub(one, text[at:m.start()]), m.group()]
        at = m.end()
    return "".join(out + [pattern.sub(one, text[at:])])


def verdict_markdown(results: list[dict], link_prefix: str = "", errata=(),
                     root: Path | None = None) -> str:
    """The verdict box of a page: one row per claim the notebook checked, with its ledger id
    and stable anchor (:func:`~rankbook.book.outputs.record_anchor`), its status and count, the
    reading it uses and links to its errata by id; an id in the ledger's words links to its
    row or entry (:func:`link_ids`)."""
    if not results:
        return ""
    rows = ["| Claim | Published | Reproduced | Status | Why |", "|---|---|---|---|---|"]

    def words(text) -> str:
        return link_ids(md_escape(text), root=root)

    for rec in results:
        claim = rec.get("claim") or rec["artifact"]
        name = md_escape(f"{rec.get('id') or ''} · {rec['artifact']}".strip(" ·"))
        if rec.get("section"):
            name = f"[{name}]({link_prefix}#{slugify(rec['section'])})"
        else:  # the row's own anchor: an id on a page always links somewhere
            name = f'<a href="#{record_anchor(rec)}">{name}</a>'
        anchor = f'<span id="{record_anchor(rec)}"></span>'
        rows.append(
            f"| {anchor}{anchor_link(record_anchor(rec))}**{name}**: {words(claim)} "
            f"| {words(rec.get('published') or '')} | {words(rec.get('reproduced') or '')} "
            f"| {_status_cell(rec, errata, root)} "
            f"| {words(rec.get('detail', ''))} |"
        )
    body = "\n".join(rows)
    return f":::{{admonition}} Verdict\n:class: verdict\n\n{body}\n:::\n"


def _records_for(nb_path: Path, filename: str, root: Path | None = None) -> list[dict]:
    """The records a run wrote, beside the notebook (a run folder) or in ``NAME/``, worded
    from the ledger (:func:`rankbook.ledger.claims.read_records`: a corrupt file is an error
    naming it)."""
    from ..ledger import claims as _claims

    for folder in (nb_path.parent / nb_path.stem, nb_path.parent):
        path = folder / filename
        if path.is_file():
            book = _claims.ledger(root)
            word = _claims.worded_erratum if filename == ERRATA_FILE else _claims.worded
            return [word(r, book) for r in _claims.read_records(path)]
    return []


def _errata_for(nb_path: Path, root: Path | None = None) -> list[dict]:
    """The errata records the run wrote, beside its results."""
    return _records_for(nb_path, ERRATA_FILE, root)


def _results_for(nb_path: Path, root: Path | None = None) -> list[dict]:
    """The result records the run wrote."""
    return _records_for(nb_path, RESULTS_FILE, root)


def _prose(output: dict):
    """A cell's printed lines as a Markdown output, so the page reads them as text: each line
    is data, escaped in full (:func:`~rankbook.book.outputs.escape_markdown`: a printed label
    never becomes markup), True/False read as yes/no."""
    import nbformat

    text = output.get("text", "")
    text = "".join(text) if isinstance(text, list) else text
    lines = [re.sub(r"\bTrue\b", "yes",
                    re.sub(r"\bFalse\b", "no", escape_markdown(readable(ln.strip()))))
             for ln in text.splitlines() if ln.strip()]
    return nbformat.v4.new_output("display_data", data={"text/markdown": "  \n".join(lines),
                                                        "text/plain": text})


def _is_raw_repr(output: dict) -> bool:
    if output.get("output_type") == "stream":
        return output.get("name") == "stderr"
    if output.get("output_type") in ("execute_result", "display_data"):
        data = output.get("data", {})
        return set(data) <= {"text/plain"}
    return False


def _split_after_framing(source: str) -> tuple[str, str]:
    """Split a title cell after the title and its first paragraph (or at ``<!-- verdict -->``)."""
    marker = "<!-- verdict -->"
    if marker in source:
        head, tail = source.split(marker, 1)
        return head.rstrip() + "\n", tail.lstrip("\n")
    lines = source.split("\n")
    i = 0
    while i < len(lines) and not lines[i].startswith("# "):
        i += 1
    i += 1
    while i < len(lines) and not lines[i].strip():  # blank lines after the title
        i += 1
    while i < len(lines) and lines[i].strip():  # the first paragraph
        i += 1
    return "\n".join(lines[:i]).rstrip() + "\n", "\n".join(lines[i:]).strip("\n")


# --------------------------------------------------------------------------------------------
# The provenance line of every figure, table and explorer
# --------------------------------------------------------------------------------------------
#: Tag of the Markdown cell that carries a figure's provenance line (a table's or an explorer's
#: is an output of its own cell, right after it).
PROVENANCE_LINE_TAG = "rankbook-provenance-line"
#: Output metadata key holding the provenance line computed for a figure, table or explorer.
_LINE_KEY = "rankbook_provenance"


def _file_digest(path: Path) -> str | None:
    import hashlib

    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _code(text: str) -> str:
    """Any text as literal inline code in a Markdown line (the text between the tags is
    Markdown, escaped in full)."""
    return "<code>" + escape_markdown(text) + "</code>"


def _function_link(path: str, documented: bool) -> str:
    """A library function as its module and name, linked to its reference page (a Sphinx
    cross-reference) when the reference documents it."""
    parts = path.split(".")
    short = ".".join(parts[-2:])
    if not documented:
        return _code(short)
    return f"{{py:obj}}`{short} <{path}>`"


def provenance_line(*, cell: int | None, notebook: str, commit: str, parameters: dict,
                    defaults: dict, calls: list[tuple[str, bool]],
                    through: list[tuple[str, bool]], files: list[tuple[str, str | None]]) -> str:
    r"""The provenance line under a figure, a table or an explorer (Markdown, class
    ``rb-prov``): the cell that made it, linked on the page (``#cell-N``, set by the book's
    Sphinx extension) and in the executed notebook offered for download, the commit, the
    parameters it depends on, the library functions it calls (each linked to the library
    reference when ``True`` beside it) and the SHA-256 of each file saved.

    Examples
    --------
    >>> print(provenance_line(cell=4, notebook="nb", commit="abc", parameters={"n": 5},
    ...       defaults={"n": 6}, calls=[("rankbook.metrics.evaluate", True)], through=[],
    ...       files=[("x.csv", "00ff")]))
    ::::{div} rb-prov
    Made by <a class="rb-cell-link" href="#cell-4">cell [4]</a> of the executed notebook ({download}`nb.ipynb <nb.ipynb>`), at commit <code>abc</code>, with <code>n \= 5</code> (changed from the default).
    Calls {py:obj}`metrics.evaluate <rankbook.metrics.evaluate>`.
    SHA-256 of <code>x\.csv</code>: <code>00ff</code>.
    ::::
    <BLANKLINE>
    """
    made = ("Made by " + (f'<a class="rb-cell-link" href="#cell-{cell}">cell [{cell}]</a>'
                          if cell is not None else "a cell")
            + f" of the executed notebook ({{download}}`{notebook}.ipynb <{notebook}.ipynb>`), "
            f"at commit {_code(commit)}")
    if parameters:
        shown = [_code(f"{k} = {v!r}") + ("" if defaults.get(k) == v or k not in defaults
                                          else " (changed from the default)")
                 for k, v in parameters.items()]
        made += ", with " + ", ".join(shown)
    else:
        made += ", with no parameter of the page"
    lines = [made + "."]
    if calls:
        line = "Calls " + ", ".join(_function_link(p, d) for p, d in calls)
        if through:
            line += "; through them " + ", ".join(_function_link(p, d) for p, d in through)
        lines.append(line + ".")
    hashed = [f"{_code(name)}: {_code(digest)}" for name, digest in files if digest]
    if hashed:
        lines.append("SHA-256 of " + "; of ".join(hashed) + ".")
    return "::::{div} rb-prov\n" + "\n".join(lines) + "\n::::\n"


def _mark_provenance(nb, *, notebook: str, params: dict, defaults: dict, commit: str,
                     folder: Path, root: Path | None) -> int:
    """Compute the provenance line of every figure, table and explorer output of ``nb`` (from
    the cell that shows it: :mod:`rankbook.book.lineage`) and keep it in the output's
    metadata, for :func:`_place_provenance`. Returns how many outputs got one."""
    from . import lineage

    book = None
    try:
        from ..ledger import claims as _claims

        book = _claims.ledger(root)
    except Exception:  # noqa: BLE001 - without a ledger, claims.check is not followed
        book = None
    modules = lineage.reference_modules(root) if root is not None else {}
    found = lineage.notebook_lineage(nb.cells, list(params), book)
    marked = 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        outs = [o for o in cell.get("outputs", [])
                if FIGURE_KEY in o.get("metadata", {}) or OUTPUT_KEY in o.get("metadata", {})]
        if not outs:
            continue
        lin = found.get(i)
        direct, through = lineage.library_calls(lin.calls if lin else [])
        # only what the reference documents is listed: each name links to its page
        if modules:
            direct = [p for p in direct if lineage.documented(p, modules)]
            through = [p for p in through if lineage.documented(p, modules)]
        for o in outs:
            info = o["metadata"].get(FIGURE_KEY) or o["metadata"].get(OUTPUT_KEY)
            files = []
            for kind, rel in sorted((info.get("files") or {}).items(),
                                    key=lambda kv: (kv[0] != "svg", kv[0])):
                files.append((Path(rel).name, _file_digest(Path(folder) / rel)))
            o["metadata"][_LINE_KEY] = provenance_line(
                cell=cell.get("execution_count"), notebook=notebook, commit=commit,
                parameters={k: params[k] for k in (lin.parameters if lin else []) if k in params},
                defaults=defaults,
                calls=[(p, lineage.documented(p, modules)) for p in direct],
                through=[(p, lineage.documented(p, modules)) for p in through], files=files)
            marked += 1
    return marked


def _place_provenance(cells: list) -> list:
    """Put each provenance line kept by :func:`_mark_provenance` under its output: a figure's
    as a Markdown cell right after the figure's own cell, a table's or an explorer's as an
    output right after it."""
    import nbformat

    out = []
    for cell in cells:
        out.append(cell)
        if cell.cell_type != "code":
            continue
        outputs = []
        line_cells = []
        for o in cell.get("outputs", []):
            outputs.append(o)
            text = o.get("metadata", {}).pop(_LINE_KEY, None)
            if not text:
                continue
            if FIGURE_KEY in o.get("metadata", {}):
                line = nbformat.v4.new_markdown_cell(text)
                line.metadata["tags"] = [PROVENANCE_LINE_TAG]
                line_cells.append(line)
            else:
                outputs.append(nbformat.v4.new_output(
                    "display_data", data={"text/markdown": text, "text/plain": ""},
                    metadata={"rankbook_provenance_line": True}))
        cell.outputs = outputs
        out += line_cells
    return out


def _is_provenance_line(cell) -> bool:
    return PROVENANCE_LINE_TAG in cell.metadata.get("tags", [])


def _figure_cell(output):
    """A code cell of its own (input removed) that shows one figure with caption and alt text."""
    import nbformat

    info = output.get("metadata", {}).get(FIGURE_KEY, {})
    # myst-nb skips a cell whose source is blank, outputs included: the source must say something
    cell = nbformat.v4.new_code_cell(f"# figure {info.get('name', '')}, saved by the cell above")
    cell.outputs = [output]
    caption = info.get("caption", "")
    files = info.get("files") or {}
    if files:  # the figure's own files, next to it: every figure downloads as SVG and PNG
        links = " · ".join(f"{{download}}`{kind.upper()} <{rel}>`"
                           for kind, rel in sorted(files.items(), key=lambda kv: kv[0] != "svg"))
        caption = f"{caption} Download: {links}." if caption else f"Download: {links}."
    figure = {"caption": caption, "name": f"fig-{info.get('name', 'figure')}"}
    if info.get("wide"):
        figure["classes"] = "rb-wide"
    cell.metadata["tags"] = ["remove-input", "rankbook-figure"]
    cell.metadata["mystnb"] = {"figure": figure,
                               "image": {"alt": info.get("alt", ""), "width": "100%"}}
    return cell


def _split_figures(cells: list) -> list:
    """Give every figure shown by ``save_figure`` a cell of its own, so that the page renders it
    as a captioned figure (myst-nb's cell-level ``figure`` options apply to a whole cell)."""
    out = []
    for cell in cells:
        if cell.cell_type != "code" or not any(
                FIGURE_KEY in o.get("metadata", {}) for o in cell.get("outputs", [])):
            out.append(cell)
            continue
        outputs, cell.outputs = list(cell.outputs), []
        out.append(cell)
        current = cell
        for o in outputs:
            if FIGURE_KEY in o.get("metadata", {}):
                out.append(_figure_cell(o))
                current = None
            else:
                if current is None:
                    import nbformat

                    current = nbformat.v4.new_code_cell("# more output of the cell above")
                    current.metadata["tags"] = ["remove-input"]
                    out.append(current)
                current.outputs.append(o)
    return out


def _is_figure(cell) -> bool:
    return cell.cell_type == "code" and "rankbook-figure" in cell.metadata.get("tags", [])


def _is_explorer(cell) -> bool:
    return cell.cell_type == "code" and any(
        "rankbook-explorer" in str(o.get("data", {}).get(kind, ""))
        for o in cell.get("outputs", []) for kind in ("text/html", "text/markdown"))


def _lead_figure(cells: list) -> int | None:
    """The page's main figure: the first whose caption names a paper's artifact ("Paper B,
    Figure 4 ..."), else the first parameter explorer, else the first figure."""
    figures = [i for i, c in enumerate(cells) if _is_figure(c)]
    for i in figures:
        caption = cells[i].metadata.get("mystnb", {}).get("figure", {}).get("caption", "")
        if re.match(r"\s*(Paper|The paper|Figure|Table|Analogue of)\b", caption):
            return i
    explorers = [i for i, c in enumerate(cells) if _is_explorer(c)]
    for i in explorers:  # a figure with its explorer right after it
        if i > 0 and _is_figure(cells[i - 1]):
            return i - 1
    if explorers:
        return explorers[0]
    return figures[0] if figures else None


#: A lead figure further down than this many cells after the verdict is moved up to it.
LEAD_FIGURE_SLACK = 2


def _after_own_verdict(cells: list, at: int) -> int:
    """A page with no ledger records may write its own verdict box (a Markdown output with the
    class ``verdict``, e.g. the benchmarks page's count of targets met) in one of its first
    cells: the lead figure then goes after that cell, so the verdict stays at the top."""
    for j in range(at, min(len(cells), at + LEAD_FIGURE_SLACK + 1)):
        if cells[j].cell_type == "code" and any(
                ":class: verdict" in str(o.get("data", {}).get("text/markdown", ""))
                for o in cells[j].get("outputs", [])):
            return j + 1
    return at


def _move_lead_figure(cells: list, at: int) -> list:
    """Move the lead figure (and an explorer cell right after it) to position ``at``, leaving
    a one-line pointer where it was."""
    import nbformat

    lead = _lead_figure(cells)
    if lead is None or lead <= at + LEAD_FIGURE_SLACK:
        return cells
    group = [cells[lead]]
    while lead + len(group) < len(cells) and _is_provenance_line(cells[lead + len(group)]):
        group.append(cells[lead + len(group)])
    if _is_figure(cells[lead]) and lead + len(group) < len(cells) and _is_explorer(
            cells[lead + len(group)]):
        group.append(cells[lead + len(group)])
    explorer = ", with its explorer" if any(_is_explorer(c) for c in group[1:]) else ""
    if _is_figure(cells[lead]):
        figure = cells[lead].metadata.get("mystnb", {}).get("figure", {})
        # the whole caption (a sentence cut at its first colon read as a broken reference), and
        # a link to the figure itself
        caption = figure.get("caption", "").split(" Download:")[0].strip()
        where = "near the top of the page"
        if figure.get("name"):  # the figure's HTML id, as docutils derives it from its name
            from docutils.nodes import make_id

            where = f'<a href="#{make_id(figure["name"])}">{where}</a>'

        text = f"*The figure of this section is shown {where}{explorer}.*"
        if caption:
            text += f" Its caption: {caption}"
    else:
        text = f"*The explorer of this section is shown near the top of the page{explorer}.*"
    # the caption is code-written text: no typographic quotes (book/_ext, DATA_CLASSES)
    pointer = nbformat.v4.new_markdown_cell(f"::::{{div}} rb-figure-pointer\n{text}\n::::")
    pointer.metadata["tags"] = ["rankbook-figure-pointer"]
    rest = cells[:lead] + [pointer] + cells[lead + len(group):]
    return rest[:at] + group + rest[at:]


def present(nb, results: list[dict] | None = None, provenance: str | None = None,
            errata: list[dict] | None = None, *, spec=None, duration: float | None = None,
            params: dict | None = None, folder: Path | None = None, commit: str | None = None,
            root: Path | None = None):
    """Fold code, drop raw values, add the verdict box, the rerun box (when ``spec``, the
    notebook's :class:`~rankbook.book.specs.NotebookSpec`, is given) and the provenance box,
    and move the lead figure up (see module doc).

    ``nb`` is an ``nbformat`` notebook node, changed in place and returned. Raises
    ``ValueError`` when more than :data:`MAX_OPEN_CELLS` code cells are tagged ``show-input``.

    With ``params`` (the values the notebook ran with), ``folder`` (where the paths of its
    saved files start: the executed notebook's folder) and ``commit`` (the provenance box's
    commit), every figure, table and explorer gets its provenance line
    (:func:`provenance_line`): the cell that made it, its parameters, the library functions it
    calls and the SHA-256 of its files.
    """
    import nbformat

    if params is not None and folder is not None and spec is not None:
        _mark_provenance(nb, notebook=Path(spec.path).stem, params=params,
                         defaults=spec.defaults(), commit=commit or "unknown", folder=folder,
                         root=root if root is not None else Path(spec.path).resolve().parent.parent)
    nb.cells = _place_provenance(_split_figures(nb.cells))
    open_cells = 0
    for cell in nb.cells:
        tags = cell.metadata.setdefault("tags", [])
        if cell.cell_type == "code":
            if "show-input" in tags and not {"remove-cell", "injected-parameters"} & set(tags):
                # a removed cell is not shown: papermill PR 892 copies the parameters cell's
                # other tags (show-input too) to the injected cell, which the page removes
                open_cells += 1
            elif not _HIDDEN & set(tags):
                tags.append("hide-input")
            cell.outputs = [_prose(o) if o.get("output_type") == "stream" else o
                            for o in cell.outputs if not _is_raw_repr(o)]
        if not tags:
            del cell.metadata["tags"]
    if open_cells > MAX_OPEN_CELLS:
        raise ValueError(
            f"{open_cells} code cells are tagged show-input; a page may leave at most "
            f"{MAX_OPEN_CELLS} open"
        )
    title_at = next((i for i, c in enumerate(nb.cells)
                     if c.cell_type == "markdown" and re.search(r"^#\s", c.source, flags=re.M)),
                    None)
    insert_at = 0 if title_at is None else title_at + 1
    new_cells = []
    if results:
        if title_at is not None:
            head, tail = _split_after_framing(nb.cells[title_at].source)
            nb.cells[title_at].source = head
            if tail.strip():
                rest = nbformat.v4.new_markdown_cell(tail)
                nb.cells.insert(title_at + 1, rest)
        box = nbformat.v4.new_markdown_cell(verdict_markdown(results, errata=errata or ()))
        box.metadata["tags"] = ["rankbook-verdict"]
        new_cells.append((insert_at, box))
    elif title_at is not None:  # no verdict: the rerun box follows the framing paragraph
        head, tail = _split_after_framing(nb.cells[title_at].source)
        if tail.strip():
            nb.cells[title_at].source = head
            nb.cells.insert(title_at + 1, nbformat.v4.new_markdown_cell(tail))
    if spec is not None and spec.parameters:
        box = nbformat.v4.new_markdown_cell(rerun_markdown(spec, duration))
        box.metadata["tags"] = ["rankbook-rerun"]
        new_cells.append((insert_at, box))
    for at, cell in reversed(new_cells):
        nb.cells.insert(at, cell)
    at = insert_at + len(new_cells)
    if not results:
        at = _after_own_verdict(nb.cells, at)
    nb.cells = _move_lead_figure(nb.cells, at)
    if provenance:
        box = nbformat.v4.new_markdown_cell(provenance)
        box.metadata["tags"] = ["rankbook-provenance"]
        nb.cells.append(box)
    return nb


def refresh(nb_path: Path, root: Path | None = None) -> bool:
    """Rewrite the verdict box of an executed page from its records and the ledger's words as
    they stand now (a claim reworded, an erratum's finding or severity edited), without
    executing the notebook. Returns whether the page changed; the caller updates the hash the
    key file records for it (:func:`rankbook.book.pipeline.refresh_pages`)."""
    import nbformat

    nb_path = Path(nb_path)
    nb = nbformat.read(nb_path, as_version=4)
    results = _results_for(nb_path, root)
    errata = _errata_for(nb_path, root)
    changed = False
    for cell in nb.cells:
        if "rankbook-verdict" in cell.metadata.get("tags", []):
            text = verdict_markdown(results, errata=errata, root=root)
            if cell.source != text:
                cell.source, changed = text, True
    if changed:
        nbformat.write(nb, nb_path)
    return changed


def present_file(nb_path: Path, provenance: str | None = None, spec=None) -> None:
    """:func:`present` an executed notebook file in place, with the records of its run."""
    import nbformat

    nb_path = Path(nb_path)
    nb = nbformat.read(nb_path, as_version=4)
    present(nb, _results_for(nb_path), provenance, _errata_for(nb_path), spec=spec)
    nbformat.write(nb, nb_path)


# --------------------------------------------------------------------------------------------
# Rerun box and the exact command
# --------------------------------------------------------------------------------------------
def cli_value(value) -> str:
    """A parameter value as ``rankbook run -p KEY VALUE`` reads it (unquoted for the shell):
    ``true``/``false``, ``5,6,7`` for a list, a list literal when an element holds a comma.

    >>> cli_value([5, 6, 7]), cli_value(True), cli_value(0.9), cli_value("")
    ('5,6,7', 'true', '0.9', '""')
    >>> cli_value(["a,b", "c"])
    '["a,b", "c"]'
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        if any(isinstance(v, str) and ("," in v or v.startswith("[") or not v.strip())
               for v in value) or not value:
            return json.dumps(list(value))
        return ",".join(cli_value(v) if isinstance(v, bool) else str(v) for v in value)
    if isinstance(value, str):
        return value if value else '""'
    return repr(value)


def _shell(text: str) -> str:
    """One shell word a reader can paste back (:func:`rankbook.book.specs.shell_word`)."""
    from .specs import shell_word

    return '""' if text == '""' else shell_word(text)


def command_for(name: str, overrides: dict, *, prefix: str = "rankbook") -> str:
    """The ``rankbook run`` command that reruns notebook ``name`` with ``overrides``.

    >>> command_for("agreement_heatmap", {"n": 20, "k": 5})
    'rankbook run agreement_heatmap -p n 20 -p k 5'
    """
    parts = [prefix, "run", name]
    for key, value in overrides.items():
        parts += ["-p", key, _shell(cli_value(value))]
    return " ".join(parts)


def example_overrides(spec) -> dict:
    """The example of a page's rerun box: the notebook's quick ``smoke`` values that differ
    from the defaults (else its ``alternate`` ones), in the order of the parameters cell. They
    are valid by construction (``make test`` runs both sets) and run in seconds."""
    import json as _json

    meta = {}
    try:
        meta = _json.loads(Path(spec.path).read_text()).get("metadata", {}).get("rankbook", {})
    except (OSError, ValueError):
        pass
    defaults = spec.defaults()
    for source in (spec.smoke or meta.get("smoke") or {}, meta.get("alternate") or {}):
        changed = {k: source[k] for k in spec.parameters if k in source and source[k] != defaults[k]}
        if changed:
            return changed
    return {}


def _relations(spec) -> list[str]:
    """The constraints between parameters, in words, with what to change when one is refused."""
    out = []
    for p in spec.parameters.values():
        for rel, word in (("lt", "below"), ("le", "at most")):
            other = p.constraint.get(rel)
            if not other:
                continue
            each = " (element by element)" if isinstance(p.default, list) else ""
            out.append(
                f"`{p.name}` must be {word} `{other}`{each}: when you lower `{other}`, give "
                f"`{p.name}` a value {word} it too (`-p {p.name} ...`), otherwise the run is "
                f"refused before it starts and the message names `{p.name}`.")
    return out


#: A quoted value (``'sqrt_mad'``), a snake_case name or a dotted name holding one
#: (``rankbook.ties:check_ranking_texts``): text that is code, in a parameter's constraints or
#: comment.
_CODE_TOKEN = re.compile(r"'[^'\s]+'|\"[^\"\s]+\"|(?<![\w.$\\`<])(?:[A-Za-z]\w*[.:])*"
                         r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:[.:][A-Za-z_]\w*)*(?![\w`])")


def code_markdown(text) -> str:
    """Prose about parameters as Markdown, with what is code in it as code: quoted values,
    parameter names, function paths (a reader types them; they never read as words).

    Examples
    --------
    >>> code_markdown("one of 'std', 'sqrt_mad'; below n_docs, see rankbook.ties:check_x")
    "one of `'std'`, `'sqrt_mad'`; below `n_docs`, see `rankbook.ties:check_x`"
    """
    text = "" if text is None else str(text)
    out, at = [], 0
    for m in _CODE_TOKEN.finditer(text):
        out += [md_escape(text[at:m.start()]), f"`{m.group()}`"]
        at = m.end()
    return "".join(out + [md_escape(text[at:])])


def _cell_text(text: str) -> str:
    return code_markdown(text)


def _code_cell(text: str) -> str:
    """Any value as inline code that is literal inside a Markdown table cell (the text between
    the tags is Markdown: :func:`~rankbook.book.outputs.escape_markdown`)."""
    return "<code>" + escape_markdown(text) + "</code>"


def repository_url(root: Path | None = None) -> str:
    """The repository URL, the one setting in ``_config.yml`` (``repository.url``); empty when
    it is not set or still the placeholder."""
    from .citation import repository_url as _url

    return _url(root)


def rerun_markdown(spec, duration: float | None = None, root: Path | None = None) -> str:
    """The rerun box of a notebook page (class ``rerun``): how to get the code, one example
    command that changes a parameter and works, the parameters with defaults and allowed
    values, and the constraints between them."""
    example = example_overrides(spec)
    url = repository_url(root)
    get = (f"In a copy of the source (`git clone {url}`), run `make venv` once"
           if url else "In a copy of the rankbook source, run `make venv` once")
    lines = [":::{admonition} Rerun this page with other parameters",
             ":class: dropdown rerun", ""]
    from .source_archive import commit_of, source_markdown

    if root is None:  # the project the notebook belongs to (notebooks/NAME.ipynb)
        root = Path(spec.path).resolve().parent.parent
    lines += [source_markdown(commit_of(root), notebook=spec.name), ""]
    lines += [f"{get} (about 3 minutes: it installs the pinned environment into `.venv`). "
              "Then, from the top folder of the source:", ""]
    if example:
        cmd = command_for(spec.name, example, prefix=".venv/bin/rankbook")
        changed = ", ".join(f"`{k}` = {_code_cell(cli_value(v))}" for k, v in example.items())
        files = [k for k in example if k in spec.parameters and spec.parameters[k].constraint.get("file")]
        if files and len(files) == len(example):
            # only input files change: "small values" and "the paper's setting" do not apply
            lines += ["```bash", cmd, "```", "",
                      f"This example reads another input file, {changed} (a small one, so it runs "
                      "in seconds); every other parameter keeps its default. Drop the `-p` to read "
                      "the default file again, or give the path of a file of your own. "]
        else:
            lines += ["```bash", cmd, "```", "",
                      f"This example sets {changed} (small values, so it runs in seconds); every "
                      "other parameter keeps its default. Change the values, or drop a `-p`, to "
                      "get the paper's setting back. "]
    else:
        lines += ["```bash", f".venv/bin/rankbook run {spec.name}", "```", ""]
    lines[-1] += (f"The command writes this page's tables (CSV) and figures (PNG and SVG) into "
                  f"`runs/{spec.name}/<folder named after the values>/` and prints that folder."
                  + (f" With the defaults it takes about {duration:.0f} s." if duration else "")
                  + f" Add `--page` to also get this page as it reads with your values (its "
                    f"verdict and provenance, in the site's style) as one file, "
                    f"`{spec.name}.html` in that folder, that opens in a browser without a "
                    f"server or a network.")
    lines.append("")
    if spec.parameters:
        lines += ["| Parameter | Default | Allowed values | Meaning |", "|---|---|---|---|"]
        for p in spec.parameters.values():
            allowed = p.constraint_text() or p.type_name
            lines.append(f"| `{p.name}` | {_code_cell(cli_value(p.default))} "
                         f"| {_cell_text(allowed)} | {_cell_text(p.comment)} |")
        lines.append("")
    relations = _relations(spec)
    if relations:
        lines += ["**Between parameters.** " + " ".join(relations), ""]
    # link the book's page on sweeps only where the book has it (a project of one's own may not)
    if root is None:  # the project the notebook belongs to (notebooks/NAME.ipynb)
        root = Path(spec.path).resolve().parent.parent
    has_rerun_page = (root / "book" / "rerun.md").is_file()
    sweeps_link = " ([Rerun it yourself](../rerun.md#sweeps))" if has_rerun_page else ""
    lines += ["A list is given with commas (`-p ns 5,6,7`), a flag as `true` or `false`. A value "
              "outside the allowed ones is refused with exit status 2 and a message that says "
              f"which parameter to change; `rankbook list {spec.name}` prints this table. "
              "`rankbook sweep` runs a whole grid of values" + sweeps_link + ".", ":::", ""]
    return "\n".join(lines)
