"""Pages generated from the executed notebooks' outputs: dashboard, errata, summary, parameters.

Every number on these pages comes from the JSON records the notebooks wrote with
:func:`rankbook.book.outputs.record_result` and :func:`rankbook.book.outputs.record_erratum`, and from the
notebooks' parameter cells. Nothing is typed in: rerun a notebook and the pages change.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .outputs import (
    ERRATA_FILE,
    PAPERS,
    RESULTS_FILE,
    SEVERITIES,
    STATUS_RULE,
    STATUSES,
    allowed_counts,
    alternatives_phrase,
    check_status,
    count_phrase,
    erratum_anchor,
    record_anchor,
)
from .present import anchor_link, badge, md_escape, slugify

PAPER_ORDER = ["A", "B", "notes", "rankdcg", "blog", "tools"]

#: Short names of the sources in tables.
PAPER_SHORT = {"A": "Paper A", "B": "Paper B", "notes": "Notes", "rankdcg": "RankDCG poster",
               "blog": "LTR note", "tools": "Tool issues"}

#: The order in which the errata page ranks its entries, gravest first.
SEVERITY_ORDER = SEVERITIES

SEVERITY_TITLE = {
    "false claim": "False claims",
    "wrong formula": "Wrong formulas",
    "inconsistent table": "Inconsistent table entries",
    "imprecise": "Imprecise statements",
    "omission": "Omissions",
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
        try:
            loaded = json.loads(path.read_text())
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path} is corrupt ({exc}); `rankbook build` executes "
                             f"{notebook} again to rewrite it") from None
        for rec in loaded:
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


def _status_line(results: list[dict]) -> str:
    counts = {s: sum(r["status"] == s for r in results) for s in STATUSES}
    return " ".join(f"{badge(s)} {c}" for s, c in counts.items() if c)


def _severity_line(errata: list[dict]) -> str:
    counts = {s: sum(_severity(e) == s for e in errata) for s in SEVERITY_ORDER}
    return ", ".join(f"{c} {SEVERITY_TITLE[s].lower()}" for s, c in counts.items() if c)


def dashboard_markdown(results: list[dict]) -> str:
    lines = [
        "# Reproducibility dashboard",
        "",
        "Every published artifact the notebooks check, with the paper's claim, the published and",
        "the reproduced values, and a status set by one rule. " + STATUS_RULE,
        "",
        "Each artifact links to the page section that shows it. The page is generated at build",
        "time from the records the notebooks write, so rerunning a notebook updates it; the",
        "coverage table at the end lists every stated result of the sources.",
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
            counts = count_phrase(r)
            reading = f"<br>reading: {_cell(r['reading'])}" if r.get("reading") else ""
            if r.get("alternatives"):
                reading += f"<br>other readings: {_cell(alternatives_phrase(r))}"
            lines.append(
                f"| <span id=\"{record_anchor(r)}\"></span>{anchor_link(record_anchor(r))}"
                f"{_link(r, r['artifact'])} | {_cell(r.get('claim', ''))} "
                f"| {_cell(r.get('published', ''))} | {_cell(r.get('reproduced', ''))} "
                f"| {badge(r['status'])}{'<br>' + _cell(counts) if counts else ''}{reading} "
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
    errata = merge_errata(errata)
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
            lines += [f"({erratum_anchor(e)})=", "",
                      f"{anchor_link(erratum_anchor(e), 'this erratum')}"
                      f"**{source}, {_cell(e['where'])}.** {md_escape(e['finding'])}", ""]
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
            shown = []
            for nb in e["notebooks"]:
                one = {**e, "notebook": nb}
                page = (titles or {}).get(nb, nb.replace("_", " "))
                where = f"{page}, section {e['section']}" if e.get("section") else page
                shown.append(_link(one, where))
            lines += [f"Shown on: {'; '.join(shown)}.", ""]
            if e.get("artifact"):
                row = {**e, "notebook": e["notebooks"][0]}
                lines += [f"Reported by the verdict row {_row_link(row, e['artifact'])}.", ""]
    return "\n".join(lines) + "\n"


#: The coverage list: every table, figure, proposition, lemma, theorem, corollary, example and
#: stated result of each source, with the artifact that checks it or why it is not checked.
COVERAGE_FILE = ("data", "coverage.csv")
COVERAGE_COLUMNS = ["source", "item", "kind", "artifact", "reason"]


def read_coverage(root: Path) -> list[dict]:
    """The rows of ``data/coverage.csv`` (``[]`` when the file is absent); ValueError naming the
    line when a row names both an artifact and a reason, or neither, or an unknown source."""
    import csv

    path = root.joinpath(*COVERAGE_FILE)
    if not path.is_file():
        return []
    lines = [ln for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    rows = list(csv.DictReader(lines))
    if rows and list(rows[0]) != COVERAGE_COLUMNS:
        raise ValueError(f"{path}: columns must be {COVERAGE_COLUMNS}, found {list(rows[0])}")
    for i, row in enumerate(rows, 2):
        if row["source"] not in PAPERS:
            raise ValueError(f"{path}: row {i}: unknown source {row['source']!r}; valid: "
                             f"{sorted(PAPERS)}")
        if bool(row["artifact"].strip()) == bool(row["reason"].strip()):
            raise ValueError(f"{path}: row {i} ({row['item']}): give an artifact or a reason, "
                             "not both and not neither")
    return rows


def check_coverage(coverage: list[dict], results: list[dict]) -> None:
    """Every artifact the coverage list names was recorded by a notebook, and every recorded
    artifact is on the list; ValueError naming the first ones that are not."""
    if not coverage:
        return
    named = {(c["source"], c["artifact"]) for c in coverage if c["artifact"]}
    recorded = {(r["paper"], r["artifact"]) for r in results}
    missing = sorted(named - recorded)
    unlisted = sorted(recorded - named)
    if missing or unlisted:
        raise ValueError(
            "data/coverage.csv and the notebooks' records disagree: "
            + (f"listed but recorded by no notebook: {missing[:5]}; " if missing else "")
            + (f"recorded but not listed: {unlisted[:5]}" if unlisted else ""))


def coverage_markdown(coverage: list[dict], results: list[dict]) -> str:
    """The dashboard's coverage table: every stated result of each source, with its status and
    page, or the reason it is not checked."""
    if not coverage:
        return ""
    by_key = {(r["paper"], r["artifact"]): r for r in results}
    lines = ["## Coverage: every stated result of the sources", "",
             "Each table, figure, proposition, lemma, theorem, corollary and example of the "
             "sources, and each checkable statement of the informal notes, with the verdict row "
             "that checks it or the reason it is not checked. The list is `data/coverage.csv`; "
             "the build fails when it names an artifact no notebook checks, or when a notebook "
             "checks an artifact it does not list.", ""]
    for paper in sorted({c["source"] for c in coverage}, key=lambda p: _paper_key({"paper": p})):
        rows = [c for c in coverage if c["source"] == paper]
        checked = sum(1 for c in rows if c["artifact"])
        lines += [f"### {PAPERS.get(paper, paper)}", "",
                  f"{checked} items checked, {len(rows) - checked} not checked (with the reason).", "",
                  "| Item | Kind | Where | Status |", "|---|---|---|---|"]
        for c in rows:
            rec = by_key.get((c["source"], c["artifact"])) if c["artifact"] else None
            if rec is not None:
                where = _row_link(rec, rec["artifact"])
                status = badge(rec["status"])
                phrase = count_phrase(rec)
                if phrase:
                    status += f"<br>{md_escape(phrase)}"
            elif c["artifact"]:
                where, status = md_escape(c["artifact"]), "no record"
            else:
                where, status = "not checked", f"because {md_escape(c['reason'])}"
            lines.append(f"| {md_escape(c['item'])} | {md_escape(c['kind'])} | {where} "
                         f"| {status} |")
        lines.append("")
    return "\n".join(lines) + "\n"


_N_OF_M = re.compile(r"(?<![\d.])(\d[\d,]*) of (?:the |all )?(\d[\d,]*)(?![\d.])"
                     r"(?:\s+([A-Za-z-]+))?(?:\s+([A-Za-z-]+))?")


def count_conflicts(text: str, records: list[dict]) -> list[str]:
    """Every "N of M [unit]" in ``text`` whose M (and unit, when one follows) is that of one of
    ``records`` but whose N is no count of any such record
    (:func:`~rankbook.book.outputs.allowed_counts`): the same artifact counted two ways.
    Returns the offending phrases with their context."""
    from .outputs import UNITS

    by_total: dict[tuple[int, str], set[int]] = {}
    for r in records:
        if r.get("total") is not None:
            key = (int(r["total"]), r.get("unit", "cells"))
            by_total.setdefault(key, set()).update(allowed_counts(r))
    bad = []
    for m in _N_OF_M.finditer(text):
        n, total = (int(g.replace(",", "")) for g in m.groups()[:2])
        words = [(w or "").lower() for w in m.groups()[2:]]
        unit = next((w for w in words if w in UNITS), None)  # "198 printed cells" counts cells
        allowed = [v for (t, u), v in by_total.items() if t == total and unit in (None, u)]
        if allowed and not any(n in v for v in allowed):
            bad.append(text[max(0, m.start() - 60):m.end() + 30].replace("\n", " "))
    return bad


def _row_link(rec: dict, text: str) -> str:
    """A link to a verdict row (an HTML id inside the verdict table, which MyST cannot see as a
    target, so the link is raw HTML; the browser test checks every anchor)."""
    import html

    return (f'<a href="{rec["notebook"]}.html#{record_anchor(rec)}">'
            f"{html.escape(str(text))}</a>")


def merge_errata(errata: list[dict]) -> list[dict]:
    """One entry per finding: the same erratum recorded by several notebooks (the spread of
    paper B's Eq. 13 is shown beside Table IV and Table VI) is listed once, with every page that
    shows it (``notebooks``)."""
    merged: dict[str, dict] = {}
    for e in errata:
        key = erratum_anchor(e)
        if key in merged:
            if e["notebook"] not in merged[key]["notebooks"]:
                merged[key]["notebooks"].append(e["notebook"])
            continue
        merged[key] = {**e, "notebooks": [e["notebook"]]}
    return list(merged.values())


def check_errata_reported(results: list[dict], errata: list[dict]) -> None:
    """Every false claim in the errata is reported by a verdict row of its own page, whose
    status says the claim fails; ValueError naming the entry otherwise."""
    rows = {(r["notebook"], r["paper"], r["artifact"]): r for r in results}
    for e in errata:
        if _severity(e) != "false claim":
            continue
        rec = rows.get((e["notebook"], e["paper"], e.get("artifact")))
        if rec is None:
            raise ValueError(
                f"erratum {e['where']!r} of {e['notebook']} is a false claim but names no verdict "
                f"row of its page (artifact={e.get('artifact')!r}); pass artifact= the artifact of "
                "a record_result of the same notebook")
        if rec["status"] != "claim false":
            raise ValueError(
                f"erratum {e['where']!r} of {e['notebook']} is a false claim, but its verdict row "
                f"{rec['artifact']!r} has status {rec['status']!r}: the verdict must say it fails")


#: The chapter pages that include a status summary of their own sources (``summary_<KEY>.md``).
CHAPTER_SOURCES = {"A": ("A",), "B": ("B",), "scoring": ("notes", "rankdcg", "blog", "tools")}


#: How the landing page groups a source's artifacts, worst first.
SUMMARY_GROUPS = (
    ("Claims that fail", ("claim false",)),
    ("Numbers not reproduced, or only in part", ("not reproduced", "partly")),
    ("Reproduced, or claims that hold", ("reproduced exactly", "within sampling noise",
                                          "claim holds")),
    ("Recomputed or not checkable", ("recomputed", "not checkable")),
)


def summary_markdown(results: list[dict], prefix: str = "generated/",
                     lead: str = "The notebooks check", errata: list[dict] | None = None) -> str:
    """The status summary included by the landing page and, one source at a time, by the chapter
    pages (links relative to ``book/``): the counts by status and by errata severity, then each
    source's artifacts grouped worst first, so a reader sees which claims fail without opening
    the errata."""
    if not results:
        return "No notebook has reported a result yet.\n"
    # No grand total of cells: a "cell" is a printed number in one table and a checked
    # transposition in another, so adding them up would mean nothing.
    lines = [f"{lead} **{len(results)} published artifacts**: {_status_line(results)}", ""]
    if errata:
        merged = merge_errata(errata)
        lines += [f"The [errata]({prefix}errata.md) hold **{len(merged)} findings**: "
                  f"{_severity_line(merged)}.", ""]
    papers = sorted({r["paper"] for r in results}, key=lambda p: _paper_key({"paper": p}))
    for paper in papers:
        mine = _sorted_results([r for r in results if r["paper"] == paper])
        if len(papers) > 1:
            lines += [f"**{PAPERS.get(paper, paper)}**", ""]
        for title, statuses in SUMMARY_GROUPS:
            group = [r for r in mine if r["status"] in statuses]
            if not group:
                continue
            lines.append(f"- {title} ({len(group)}):")
            for r in group:
                counts = count_phrase(r)
                lines.append(f"  - {badge(r['status'])} {_link(r, r['artifact'], prefix)}"
                             + (f": {md_escape(counts)}" if counts else ""))
        lines.append("")
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
    from .specs import discover

    gen = root / "book" / "generated"
    gen.mkdir(parents=True, exist_ok=True)
    # only the notebooks that exist: the outputs of one deleted since (a branch switch) stay on
    # disk but never reach the pages
    existing = {spec.name for spec in discover(root)}
    results = [r for r in collect(gen, RESULTS_FILE) if r["notebook"] in existing]
    for rec in results:  # one status rule for every page: a stale or hand-made status fails
        check_status(rec)
    errata = [e for e in collect(gen, ERRATA_FILE) if e["notebook"] in existing]
    check_errata_reported(results, errata)
    coverage = read_coverage(root)
    check_coverage(coverage, results)
    _write_if_changed(gen / DASHBOARD_CSV, dashboard_csv(results))
    _write_if_changed(gen / ERRATA_CSV, errata_csv(errata))
    _write_if_changed(gen / "dashboard.md",
                      with_download(dashboard_markdown(results), DASHBOARD_CSV, "every row")
                      + coverage_markdown(coverage, results))
    _write_if_changed(gen / "errata.md", with_download(errata_markdown(errata, notebook_titles(root)),
                                                      ERRATA_CSV, "every entry"))
    _write_if_changed(gen / "summary.md", summary_markdown(results, errata=errata))
    for key, sources in CHAPTER_SOURCES.items():
        mine = [r for r in results if r["paper"] in sources]
        theirs = [e for e in errata if e["paper"] in sources]
        _write_if_changed(gen / f"summary_{key}.md",
                          summary_markdown(mine, lead="The notebooks of this chapter check",
                                           errata=theirs))
    _write_if_changed(gen / "parameters.md", parameters_markdown(root))
    _write_if_changed(gen / "status_rule.md", STATUS_RULE + "\n")
    _write_if_changed(gen / "cite.md", cite_markdown(root))


# --------------------------------------------------------------------------------------------
# Stable anchors, downloads and the repository setting (issue 20)
# --------------------------------------------------------------------------------------------
#: The dashboard and the errata as CSV, written beside their pages and linked from them.
DASHBOARD_CSV = "dashboard.csv"
ERRATA_CSV = "errata.csv"


def dashboard_csv(results: list[dict]) -> str:
    """Every result record as one CSV row: the dashboard's columns plus the counts."""
    import csv
    import io

    buf = io.StringIO()
    cols = ["anchor", "paper", "artifact", "claim", "published", "reproduced", "status",
            "matched", "total", "unit", "detail", "notebook", "section"]
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for r in _sorted_results(results):
        w.writerow({**{c: r.get(c) for c in cols}, "anchor": record_anchor(r)})
    return buf.getvalue()


def errata_csv(errata: list[dict]) -> str:
    import csv
    import io

    buf = io.StringIO()
    cols = ["anchor", "paper", "where", "severity", "finding", "evidence", "readings", "notebooks",
            "section"]
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for e in sorted(merge_errata(errata), key=lambda e: (_paper_key(e), e["where"], e["finding"])):
        w.writerow({**{c: e.get(c) for c in cols}, "anchor": erratum_anchor(e),
                    "severity": _severity(e), "readings": "; ".join(e.get("readings") or []),
                    "notebooks": "; ".join(e.get("notebooks") or [])})
    return buf.getvalue()


def with_download(page: str, filename: str, what: str) -> str:
    """A generated page with a download link to its CSV after the first paragraph."""
    link = f"Download {what} as CSV: {{download}}`{filename} <{filename}>`.\n"
    head, sep, tail = page.partition("\n\n")
    body_start = tail.find("\n\n")
    if not sep or body_start < 0:
        return page + "\n" + link
    return head + sep + tail[:body_start] + "\n\n" + link + tail[body_start:]


#: The placeholder repository that ``_config.yml`` once named; it does not exist.
PLACEHOLDER_URLS = {"https://github.com/rankbook/rankbook",
                    "https://github.com/executablebooks/jupyter-book"}


def repository_url(root: Path | None = None) -> str:
    """The repository URL: ``repository.url`` in ``_config.yml``, the one setting that the
    repository and Binder buttons, the rerun boxes and the citation read. Empty when unset
    (or a placeholder): then no button points anywhere."""
    import yaml

    from .paths import project_root

    try:
        conf = yaml.safe_load(((root or project_root()) / "_config.yml").read_text()) or {}
    except (OSError, yaml.YAMLError):
        return ""
    url = str(((conf.get("repository") or {}).get("url")) or "").strip()
    return "" if url in PLACEHOLDER_URLS else url


def citation(root: Path | None = None) -> dict:
    """``CITATION.cff`` read as a dict (empty when missing)."""
    import yaml

    from .paths import project_root

    path = (root or project_root()) / "CITATION.cff"
    try:
        return yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError):
        return {}


def bibtex_entry(cff: dict, url: str = "") -> str:
    """The BibTeX entry of the book, from ``CITATION.cff`` (and the repository URL when set).

    >>> print(bibtex_entry({"title": "T", "authors": [{"name": "A team"}], "version": "1.0",
    ...                     "date-released": "2026-01-02"}))
    @software{rankbook,
      author  = {{A team}},
      title   = {T},
      version = {1.0},
      year    = {2026},
      month   = {1},
      note    = {Code: MIT licence; text, tables and figures: CC BY 4.0}
    }
    """
    names = []
    for a in cff.get("authors") or []:
        if a.get("name"):
            names.append("{" + a["name"] + "}")
        else:
            names.append(f"{a.get('family-names', '')}, {a.get('given-names', '')}".strip(", "))
    date = str(cff.get("date-released") or "")
    fields = [("author", " and ".join(names)), ("title", cff.get("title", "rankbook")),
              ("version", cff.get("version", ""))]
    if len(date) >= 7:
        fields += [("year", date[:4]), ("month", str(int(date[5:7])))]
    if url:
        fields.append(("url", url))
    fields.append(("note", "Code: MIT licence; text, tables and figures: CC BY 4.0"))
    body = ",\n".join(f"  {k:<7} = {{{v}}}" for k, v in fields if v)
    return "@software{rankbook,\n" + body + "\n}"


def cite_markdown(root: Path | None = None) -> str:
    """The "How to cite" text of the landing page (included by ``book/intro.md``, so its links
    are relative to ``book/``): the BibTeX entry, CITATION.cff, the licences and how to point
    at one result."""
    cff = citation(root)
    url = repository_url(root)
    where = f" ({url})" if url else ""
    return "\n".join([
        f"Cite the book and its library{where} with this entry, generated from "
        "{download}`CITATION.cff <../CITATION.cff>` (the same metadata in the Citation File "
        "Format):",
        "",
        "```bibtex",
        bibtex_entry(cff, url),
        "```",
        "",
        "To point at one result, link its anchor: every row of a verdict box and of the "
        "[dashboard](generated/dashboard.md), and every entry of the [errata](generated/errata.md), has a stable "
        "link (the **#** before it) that does not change between builds. The provenance box at "
        "the end of each page gives the git commit and the exact command that produced it.",
        "",
        "The code is under the MIT licence, the text, tables and figures under CC BY 4.0 (the "
        "LICENSE file of the source); the papers reproduced here are cited on each page and in "
        "the [bibliography](references.md).",
        "",
    ])
