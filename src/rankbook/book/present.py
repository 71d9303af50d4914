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
* **provenance last**: the provenance box (parameters, commit, versions) closes the page.

The executed notebook stays a valid notebook: opened in Jupyter it shows the same figures and
tables, with the verdict box as a Markdown cell.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .outputs import (  # noqa: F401 - md_escape re-exported
    ERRATA_FILE,
    FIGURE_KEY,
    RESULTS_FILE,
    alternatives_phrase,
    count_phrase,
    erratum_anchor,
    md_escape,
    record_anchor,
)

#: Code cells a page may leave open (tag ``show-input`` in the source notebook).
MAX_OPEN_CELLS = 2

_HIDDEN = {"hide-input", "remove-input", "remove-cell", "hide-cell"}

#: sphinx-design badge colour for each status.
BADGE = {
    "reproduced exactly": "success",
    "within sampling noise": "success",
    "claim holds": "success",
    "partly": "warning",
    "recomputed": "info",
    "not checkable": "secondary",
    "not reproduced": "danger",
    "claim false": "danger",
}


def badge(status: str) -> str:
    """A coloured MyST badge for a status (sphinx-design's ``bdg-*`` roles)."""
    return f"{{bdg-{BADGE.get(status, 'secondary')}}}`{status}`"


def slugify(title: str) -> str:
    """The anchor MyST gives a heading (``myst_heading_anchors``), GitHub style."""
    return re.sub(r"[^\w\u4e00-\u9fff\- ]", "", title.strip().lower().replace(" ", "-"))


def _status_cell(rec: dict, errata=()) -> str:
    """Badge, the count as :func:`~rankbook.book.outputs.count_phrase` words it, the reading the
    verdict uses, and links to the errata entries that report this artifact."""
    parts = [badge(rec["status"])]
    phrase = count_phrase(rec)
    if phrase:
        parts.append(md_escape(phrase))
    if rec.get("reading"):
        parts.append(f"reading: {md_escape(rec['reading'])}")
    if rec.get("alternatives"):
        parts.append(f"other readings: {md_escape(alternatives_phrase(rec))}")
    links = [f"{{ref}}`erratum <{erratum_anchor(e)}>`" for e in errata
             if e.get("artifact") == rec["artifact"] and e.get("paper") == rec["paper"]]
    if links:
        parts.append(", ".join(links))
    return "<br>".join(parts)


def verdict_markdown(results: list[dict], link_prefix: str = "", errata=()) -> str:
    """The verdict box of a page: one row per artifact the notebook reported, each with a stable
    anchor (:func:`~rankbook.book.outputs.record_anchor`), its status and count, the reading it
    uses and links to the errata entries that report it."""
    if not results:
        return ""
    rows = ["| Paper's claim | Published | Reproduced | Status | Why |", "|---|---|---|---|---|"]
    for rec in results:
        claim = rec.get("claim") or rec["artifact"]
        name = md_escape(rec["artifact"])
        if rec.get("section"):
            name = f"[{name}]({link_prefix}#{slugify(rec['section'])})"
        anchor = f'<span id="{record_anchor(rec)}"></span>'
        reproduced = md_escape(rec.get("reproduced") or "")
        rows.append(
            f"| {anchor}**{name}**: {md_escape(claim)} "
            f"| {md_escape(rec.get('published') or '')} | {reproduced} "
            f"| {_status_cell(rec, errata)} "
            f"| {md_escape(rec.get('detail', ''))} |"
        )
    body = "\n".join(rows)
    return f":::{{admonition}} Verdict\n:class: verdict\n\n{body}\n:::\n"


def _errata_for(nb_path: Path) -> list[dict]:
    """The errata records the run wrote, beside its results."""
    for folder in (nb_path.parent / nb_path.stem, nb_path.parent):
        path = folder / ERRATA_FILE
        if path.is_file():
            try:
                return json.loads(path.read_text())
            except (OSError, json.JSONDecodeError):
                return []
    return []


def _results_for(nb_path: Path) -> list[dict]:
    """The records the run wrote: beside the notebook (a run folder) or in ``NAME/``."""
    for folder in (nb_path.parent / nb_path.stem, nb_path.parent):
        path = folder / RESULTS_FILE
        if path.is_file():
            try:
                return json.loads(path.read_text())
            except (OSError, json.JSONDecodeError):
                return []
    return []


def _prose(output: dict):
    """A cell's printed lines as a Markdown output, so the page reads them as text: each line
    escaped for Markdown, True/False read as yes/no."""
    import nbformat

    text = output.get("text", "")
    text = "".join(text) if isinstance(text, list) else text
    lines = [re.sub(r"\bTrue\b", "yes", re.sub(r"\bFalse\b", "no", md_escape(ln)))
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


def _figure_cell(output):
    """A code cell of its own (input removed) that shows one figure with caption and alt text."""
    import nbformat

    info = output.get("metadata", {}).get(FIGURE_KEY, {})
    # myst-nb skips a cell whose source is blank, outputs included: the source must say something
    cell = nbformat.v4.new_code_cell(f"# figure {info.get('name', '')}, saved by the cell above")
    cell.outputs = [output]
    figure = {"caption": info.get("caption", ""), "name": f"fig-{info.get('name', 'figure')}"}
    if info.get("wide"):
        figure["classes"] = "rb-wide"
    cell.metadata["tags"] = ["remove-input"]
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


def present(nb, results: list[dict] | None = None, provenance: str | None = None,
            errata: list[dict] | None = None):
    """Fold code, drop raw values, add the verdict box and the provenance box (see module doc).

    ``nb`` is an ``nbformat`` notebook node, changed in place and returned. Raises
    ``ValueError`` when more than :data:`MAX_OPEN_CELLS` code cells are tagged ``show-input``.
    """
    import nbformat

    nb.cells = _split_figures(nb.cells)
    open_cells = 0
    for cell in nb.cells:
        tags = cell.metadata.setdefault("tags", [])
        if cell.cell_type == "code":
            if "show-input" in tags:
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
    for at, cell in reversed(new_cells):
        nb.cells.insert(at, cell)
    if provenance:
        box = nbformat.v4.new_markdown_cell(provenance)
        box.metadata["tags"] = ["rankbook-provenance"]
        nb.cells.append(box)
    return nb


def present_file(nb_path: Path, provenance: str | None = None) -> None:
    """:func:`present` an executed notebook file in place, with the records of its run."""
    import nbformat

    nb_path = Path(nb_path)
    nb = nbformat.read(nb_path, as_version=4)
    present(nb, _results_for(nb_path), provenance, _errata_for(nb_path))
    nbformat.write(nb, nb_path)
