"""Pages generated from the executed notebooks' outputs: dashboard, errata, summary, parameters.

Every number on these pages comes from the JSON records the notebooks wrote with
:func:`rankbook.book.outputs.record_result` and :func:`rankbook.book.outputs.record_erratum`, and from the
notebooks' parameter cells. Nothing is typed in: rerun a notebook and the pages change.
"""

from __future__ import annotations

import json
from pathlib import Path

from .outputs import ERRATA_FILE, PAPERS, RESULTS_FILE, STATUSES, check_status
from .present import badge, md_escape, slugify

PAPER_ORDER = ["A", "B", "notes", "rankdcg", "blog"]

#: Short names of the sources in tables.
PAPER_SHORT = {"A": "Paper A", "B": "Paper B", "notes": "Notes", "rankdcg": "RankDCG poster",
               "blog": "LTR note"}

#: The order in which the errata page ranks its entries, gravest first.
SEVERITY_ORDER = ("false claim", "wrong formula", "inconsistent table", "imprecise", "typo",
                  "convention")

SEVERITY_TITLE = {
    "false claim": "False claims",
    "wrong formula": "Wrong formulas",
    "inconsistent table": "Inconsistent table entries",
    "imprecise": "Imprecise statements",
    "typo": "Typos",
    "convention": "Conventions and caveats",
}


def _cell(text) -> str:
    return md_escape(text)


def collect(generated: Path, filename: str) -> list[dict]:
    """Records from every ``generated/NAME/filename``, each tagged with its notebook name."""
    records = []
    for path in sorted(generated.glob(f"*/{filename}")):
        notebook = path.parent.name
        if notebook.startswith((".", "_")):
            continue
        for rec in json.loads(path.read_text()):
            records.append({**rec, "notebook": notebook})
    return records


def _paper_key(rec) -> int:
    p = rec.get("paper")
    return PAPER_ORDER.index(p) if p in PAPER_ORDER else len(PAPER_ORDER)


def _link(rec: dict, text: str, prefix: str = "") -> str:
    target = f"{prefix}{rec['notebook']}.ipynb"
    if rec.get("section"):
        target += f"#{slugify(rec['section'])}"
    return f"[{md_escape(text)}]({target})"


def _sorted_results(results: list[dict]) -> list[dict]:
    return sorted(results, key=lambda r: (_paper_key(r), r["notebook"], r["artifact"]))


def _counts(rec: dict) -> str:
    if rec.get("total") is None:
        return ""
    return f"{rec['matched']} of {rec['total']} {rec.get('unit', 'cells')}"


def _status_line(results: list[dict]) -> str:
    counts = {s: sum(r["status"] == s for r in results) for s in STATUSES}
    return " ".join(f"{badge(s)} {c}" for s, c in counts.items() if c)


def dashboard_markdown(results: list[dict]) -> str:
    lines = [
        "# Reproducibility dashboard",
        "",
        "Every published artifact the notebooks check, with the paper's claim, the published and",
        "the reproduced values, and a status set by one rule: *reproduced exactly* or *within",
        "sampling noise* when every compared value matched, *partly* when some did, *not",
        "reproduced* when none did, *claim holds* or *claim false* for stated claims, and",
        "*recomputed* where the paper printed nothing to compare point by point. Each artifact",
        "links to the page section that shows it. The page is generated at build time from the",
        "records the notebooks write, so rerunning a notebook updates it.",
        "",
    ]
    if not results:
        lines.append("No notebook has reported a result yet.")
        return "\n".join(lines) + "\n"
    lines += [f"**{len(results)} artifacts:** {_status_line(results)}", ""]
    for paper in sorted({r["paper"] for r in results}, key=lambda p: _paper_key({"paper": p})):
        lines += [f"## {PAPERS.get(paper, paper)}", "",
                  "::::{div} full-width",  # the theme's wide layout: six columns stay readable
                  "",
                  "| Artifact | Paper's claim | Published | Reproduced | Status | Why |",
                  "|---|---|---|---|---|---|"]
        for r in _sorted_results([r for r in results if r["paper"] == paper]):
            counts = _counts(r)
            lines.append(
                f"| {_link(r, r['artifact'])} | {_cell(r.get('claim', ''))} "
                f"| {_cell(r.get('published', ''))} | {_cell(r.get('reproduced', '') or counts)} "
                f"| {badge(r['status'])}{'<br>' + counts if counts else ''} "
                f"| {_cell(r.get('detail'))} |"
            )
        lines += ["", "::::", ""]
    return "\n".join(lines) + "\n"


def _severity(e: dict) -> str:
    sev = e.get("severity") or e.get("kind") or "convention"
    return sev if sev in SEVERITY_ORDER else "convention"


def _evidence_block(evidence: str) -> list[str]:
    lines = [ln.strip() for ln in str(evidence).split("\n") if ln.strip()]
    body = [f"- {md_escape(ln)}" for ln in lines] if len(lines) > 1 else [md_escape(lines[0])]
    return ["::::{dropdown} Evidence", ":color: light", "", *body, "::::", ""]


def notebook_titles(root: Path) -> dict[str, str]:
    """The page title (first ``# `` heading) of every source notebook, by notebook name."""
    from .specs import discover

    return {spec.name: spec.title for spec in discover(root)}


def errata_markdown(errata: list[dict], titles: dict[str, str] | None = None) -> str:
    lines = [
        "# Errata",
        "",
        "Where the source papers are wrong, ranked by severity: false claims and wrong formulas",
        "first, then inconsistent table entries, imprecise statements, typos and conventions.",
        "Each entry says where it sits in the paper, what is wrong, the reading of the paper it",
        "depends on (when another reading would change it), and the evidence computed by the",
        "notebook that shows it. Nothing here is typed in: the page is generated at build time",
        "from the records the notebooks write.",
        "",
    ]
    if not errata:
        lines.append("No notebook has reported a discrepancy yet.")
        return "\n".join(lines) + "\n"
    papers = sorted({e["paper"] for e in errata}, key=lambda p: _paper_key({"paper": p}))
    sevs = [s for s in SEVERITY_ORDER if any(_severity(e) == s for e in errata)]
    lines += [
        ":::{table} Errata by source and severity",
        ":class: errata-summary",
        "",
        "| Source | " + " | ".join(sevs) + " | all |",
        "|---|" + "---|" * (len(sevs) + 1),
    ]
    for p in papers:
        row = [sum(_severity(e) == s and e["paper"] == p for e in errata) for s in sevs]
        lines.append(f"| {PAPER_SHORT.get(p, p)} | " + " | ".join(str(c) if c else "" for c in row)
                     + f" | {sum(row)} |")
    lines += [":::", ""]
    for sev in sevs:
        entries = sorted((e for e in errata if _severity(e) == sev),
                         key=lambda e: (_paper_key(e), e["notebook"], e["where"]))
        lines += [f"## {SEVERITY_TITLE[sev]} ({len(entries)})", ""]
        for e in entries:
            source = PAPER_SHORT.get(e["paper"], e["paper"])
            lines += [f"**{source}, {_cell(e['where'])}.** {md_escape(e['finding'])}", ""]
            readings = list(e.get("readings") or [])
            if readings:
                lines += ["*Under the reading:* " + "; ".join(md_escape(r) for r in readings), ""]
            under = e.get("under") or {}
            if under:
                lines += ["| Reading | Verdict |", "|---|---|"]
                lines += [f"| {md_escape(k)} | {md_escape(v)} |" for k, v in under.items()]
                lines.append("")
            cells = list(e.get("cells") or [])
            if cells:
                lines += [f"*Cells ({len(cells)}):* " + "; ".join(md_escape(c) for c in cells), ""]
            lines += _evidence_block(e["evidence"])
            page = (titles or {}).get(e["notebook"], e["notebook"].replace("_", " "))
            where = f"{page}, section {e['section']}" if e.get("section") else page
            lines += [f"Shown on: {_link(e, where)}.", ""]
    return "\n".join(lines) + "\n"


#: The chapter pages that include a status summary of their own sources (``summary_<KEY>.md``).
CHAPTER_SOURCES = {"A": ("A",), "B": ("B",), "scoring": ("notes", "rankdcg", "blog")}


def summary_markdown(results: list[dict], prefix: str = "generated/",
                     lead: str = "The notebooks check") -> str:
    """The short status summary included by the landing page and, one source at a time, by
    the chapter pages (links relative to ``book/``)."""
    if not results:
        return "No notebook has reported a result yet.\n"
    # No grand total of cells: a "cell" is a printed number in one table and a checked
    # transposition in another, so adding them up would mean nothing.
    lines = [f"{lead} **{len(results)} published artifacts**: "
             f"{_status_line(results)}", ""]
    one_source = len({r["paper"] for r in results}) == 1
    for r in _sorted_results(results):
        counts = _counts(r)
        source = "" if one_source else f"{PAPER_SHORT.get(r['paper'], r['paper'])}: "
        lines.append(f"- {badge(r['status'])} {source}"
                     f"{_link(r, r['artifact'], prefix)}" + (f" ({counts})" if counts else ""))
    return "\n".join(lines) + "\n"


def parameters_markdown(root: Path) -> str:
    from .specs import discover

    lines = ["Every notebook, with its parameters, their types and defaults (the papers' settings).",
             "This list is generated from the notebooks' `parameters` cells, like `rankbook list`.",
             ""]
    for spec in discover(root):
        lines += [f"**`{spec.name}`**: {spec.description}", ""]
        if spec.parameters:
            lines += ["| parameter | type | default | meaning |", "|---|---|---|---|"]
            for p in spec.parameters.values():
                lines.append(
                    f"| `{p.name}` | {p.type_name} | `{_cell(repr(p.default))}` | {_cell(p.comment)} |"
                )
        else:
            lines.append("(no parameters)")
        lines.append("")
    return "\n".join(lines) + "\n"


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def write_generated_pages(root: Path) -> None:
    gen = root / "book" / "generated"
    gen.mkdir(parents=True, exist_ok=True)
    results = collect(gen, RESULTS_FILE)
    for rec in results:  # one status rule for every page: a stale or hand-made status fails
        check_status(rec)
    errata = collect(gen, ERRATA_FILE)
    _write_if_changed(gen / "dashboard.md", dashboard_markdown(results))
    _write_if_changed(gen / "errata.md", errata_markdown(errata, notebook_titles(root)))
    _write_if_changed(gen / "summary.md", summary_markdown(results))
    for key, sources in CHAPTER_SOURCES.items():
        mine = [r for r in results if r["paper"] in sources]
        _write_if_changed(gen / f"summary_{key}.md",
                          summary_markdown(mine, lead="The notebooks of this chapter check"))
    _write_if_changed(gen / "parameters.md", parameters_markdown(root))
