"""Pages generated from the executed notebooks' outputs: dashboard, errata, summary, parameters.

Every number on these pages comes from the JSON records the notebooks wrote with
:func:`rankbook.ledger.claims.report`, their words from the claims ledger, and the notebooks'
parameter cells. Nothing is typed in: rerun a notebook and the pages change. Nothing here names
a source: the sources, their order, names and chapters come from the ``[source]`` tables of
the ledger files.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..ledger import claims as _claims
from ..ledger.claims import COUNTING_RULE, READING_RULE, SEVERITIES, STATUSES, plural
from .outputs import (
    ERRATA_FILE,
    RESULTS_FILE,
    STATUS_RULE,
    allowed_counts,
    check_status,
    erratum_anchor,
    record_anchor,
)
from .csvsafe import neutral_row
from .citation import bibtex_entry, citation, cite_markdown, repository_url  # noqa: F401
from .present import anchor_link, badge, html_with_maths, md_escape, slugify, status_details
from .present import code_markdown
from .present import link_ids as _link_ids_of

#: The project whose ledger names the sources of the pages being written (set by
#: :func:`write_generated_pages`; the package's own project otherwise).
_ROOT: list = []


def _book() -> "_claims.Ledger":
    return _claims.ledger(_ROOT[-1] if _ROOT else None)


def _link_ids(text: str, prefix: str = "") -> str:
    """:func:`rankbook.book.present.link_ids` with the ledger of the project being written."""
    return _link_ids_of(text, prefix, _ROOT[-1] if _ROOT else None)

#: The errata page's sections, gravest first: an erratum's severity is the status it gives
#: its claim (one scale, :data:`rankbook.ledger.claims.SEVERITIES`).
SEVERITY_TITLE = {
    "false": "Claims that are false",
    "not reproduced": "Results that could not be reproduced",
    "imprecise": "Imprecise results",
    "holds": "Slips that do not change the verdict",
}

#: The errata summary table's column for each severity: the words of the page's sections, so
#: that a slip is never counted under a column that reads "holds" (a contradiction).
SEVERITY_COLUMN = {
    "false": "false",
    "not reproduced": "not reproduced",
    "imprecise": "imprecise",
    "holds": "slip (no verdict change)",
}


#: The word for each severity in errata.csv, as the errata page says it: a slip is a slip
#: (its claim's status is unchanged), never "holds".
SEVERITY_WORD = {"false": "false", "not reproduced": "not reproduced", "imprecise": "imprecise",
                 "holds": "slip"}


def _cell(text) -> str:
    return md_escape(text)


def collect(generated: Path, filename: str, book: "_claims.Ledger | None" = None) -> list[dict]:
    """Records from every ``generated/NAME/filename`` (:func:`rankbook.ledger.claims.read_records`:
    a corrupt file is an error naming it), each tagged with its notebook name and worded from
    the ledger (:func:`~rankbook.ledger.claims.worded`)."""
    book = book if book is not None else _book()
    word = _claims.worded_erratum if filename == ERRATA_FILE else _claims.worded
    records = []
    for path in sorted(generated.glob(f"*/{filename}")):
        notebook = path.parent.name
        if notebook.startswith((".", "_")):
            continue
        for rec in _claims.read_records(path):
            records.append({**word(rec, book), "notebook": notebook})
    return records


def _paper_key(rec) -> int:
    return _book().order(rec.get("paper"))


def _link(rec: dict, text: str, prefix: str = "") -> str:
    target = f"{prefix}{rec['notebook']}.ipynb"
    if rec.get("section"):
        target += f"#{slugify(rec['section'])}"
    return f"[{md_escape(text)}]({target})"


def _sorted_results(results: list[dict]) -> list[dict]:
    return sorted(results, key=lambda r: (_paper_key(r), r["notebook"], r["artifact"]))


def _status_line(statuses) -> str:
    statuses = list(statuses)  # counted once per status: a generator would be spent after one
    counts = {s: sum(x == s for x in statuses) for s in STATUSES}
    return " ".join(f"{badge(s)} {c}" for s, c in counts.items() if c)


def _severity_line(errata: list[dict]) -> str:
    counts = {s: sum(e.get("severity") == s for e in errata) for s in SEVERITIES}
    words = {"false": "making a claim false", "not reproduced": "leaving a result not reproduced",
             "imprecise": "making a result imprecise", "holds": "slips that change no verdict"}
    return ", ".join(f"{c} {words[s]}" for s, c in counts.items() if c)


def claim_rows(book: "_claims.Ledger", results: list[dict]) -> list[dict]:
    """One row per ledger claim, in ledger order: the claim merged with its evidence record
    (``status``), or, for a claim not checked, status ``not checkable`` with its reason."""
    by_id = {r["id"]: r for r in results if r.get("id")}
    rows = []
    for c in book.claims.values():
        rec = by_id.get(c.id)
        row = {"id": c.id, "paper": c.source, "where": c.where, "kind": c.kind,
               "claim": c.claim, "page": c.page, "section": c.section, "reason": c.reason,
               "rule": c.rule_text, "readings": "; ".join(c.readings),
               "data": "; ".join(c.data_files)}
        if rec is not None:
            row.update({k: v for k, v in rec.items() if k not in row or k in ("section",)})
            row["notebook"] = rec["notebook"]
            row["section"] = c.section or rec.get("section")
        elif c.page:
            row.update(status="no result", notebook=c.page)
        else:
            row.update(status="not checkable", notebook="")
        rows.append(row)
    return rows


def _errata_links(row: dict, errata_by_claim: dict, prefix: str = "") -> str:
    return ", ".join(erratum_link(i, prefix) for i in errata_by_claim.get(row["id"], []))


def _claim_link(row: dict, prefix: str = "") -> str:
    """The claim's id and place, linked to its verdict row on its page (or not linked). The
    link is raw HTML around Markdown text, so the place's maths is typeset like the rest of the
    row (a TeX string inside a raw HTML element would lose its backslashes to Markdown)."""
    text = f"{row['id']} · {row['where']}"
    if not row.get("notebook"):  # not checked: its own row on the dashboard
        return f'<a href="#{_claims.claim_anchor(row["id"])}">{md_escape(text)}</a>'
    return (f'<a href="{prefix}{row["notebook"]}.html#{_claims.claim_anchor(row["id"])}">'
            f"{md_escape(text)}</a>")


def errata_by_claim(errata: list[dict]) -> dict:
    out: dict = {}
    for e in merge_errata(errata):
        if e.get("claim"):
            out.setdefault(e["claim"], []).append(e["id"])
    for ids in out.values():
        ids.sort(key=_erratum_order)
    return out


def _erratum_order(eid: str):
    head, _, num = eid.rpartition("-E")
    return (head, int(num) if num.isdigit() else 0)


def dashboard_markdown(rows: list[dict], errata: list[dict] | None = None) -> str:
    lines = [
        "# Reproducibility dashboard",
        "",
        "Every stated result of the sources, one row per claim of the claims ledger, with "
        "the published and the reproduced values and a status set by one "
        "rule. " + STATUS_RULE + " " + COUNTING_RULE,
        "",
        "Each claim links to the page section that checks it, and lists its errata by id. The "
        "page is generated at build time from the ledger and the evidence the notebooks record, "
        "so rerunning a notebook updates it. Use the filter to show one status.",
        "",
    ]
    if not rows:
        lines.append("The ledger holds no claim yet.")
        return "\n".join(lines) + "\n"
    by_claim = errata_by_claim(errata or [])
    lines += [f"**{plural(len(rows), 'claim')}:** {_status_line(r['status'] for r in rows)}", "",
              status_filter_html(sorted({r["status"] for r in rows}, key=_status_rank)), ""]
    for paper in sorted({r["paper"] for r in rows}, key=lambda p: _paper_key({"paper": p})):
        lines += [f"## {_book().title(paper)}", "",
                  "::::{div} full-width",
                  "",
                  "| Claim | Published | Reproduced | Status | Why |",
                  "|---|---|---|---|---|"]
        for r in rows:
            if r["paper"] != paper:
                continue
            status = _row_status(r, by_claim)
            if r.get("reason"):
                why = "not checked: " + _link_ids(md_escape(r["reason"]))
            else:
                why = _link_ids(md_escape(r.get("detail") or ""))
            lines.append(
                f"| <span id=\"{_claims.claim_anchor(r['id'])}\" class=\"rb-status\" "
                f"data-status=\"{r['status']}\"></span>"
                f"{anchor_link(_claims.claim_anchor(r['id']))}**{_claim_link(r)}**: "
                f"{_link_ids(md_escape(r['claim']))} | {_link_ids(md_escape(r.get('published') or ''))} "
                f"| {_link_ids(md_escape(r.get('reproduced') or ''))} | {status} | {why} |")
        lines += ["", "::::", ""]
    return "\n".join(lines) + "\n"


def _status_rank(status: str) -> int:
    return STATUSES.index(status) if status in STATUSES else len(STATUSES)


def status_filter_html(statuses) -> str:
    """A row of buttons that shows only the claims of one status (rankbook-filter.js)."""
    import html

    buttons = ['<button type="button" data-status="" aria-pressed="true">all</button>']
    buttons += [f'<button type="button" data-status="{html.escape(s)}" aria-pressed="false">'
                f"{html.escape(s)}</button>" for s in statuses]
    return ('<div class="rb-filter" role="group" aria-label="Show only the claims of one '
            'status">Show: ' + " ".join(buttons) + "</div>")


def _row_status(r: dict, by_claim: dict, prefix: str = "") -> str:
    parts = [badge(r["status"])]
    parts += [_link_ids(d, prefix) for d in status_details(r)]
    links = _errata_links(r, by_claim, prefix)
    if links:
        parts.append("errata: " + links)
    return "<br>".join(parts)


def _severity(e: dict) -> str:
    return e.get("severity") or "holds"


def _evidence_block(evidence: str) -> list[str]:
    out = []
    for line in str(evidence).splitlines():
        if line.strip():
            out += [f"- {md_escape(line.strip())}"]
    return out + [""] if out else []


def notebook_titles(root: Path) -> dict[str, str]:
    """The page title (first ``# `` heading) of every source notebook, by notebook name."""
    from .specs import discover

    return {spec.name: spec.title for spec in discover(root)}


#: The anchors errata had before they had ids (``data/claims/legacy_anchors.csv``).
LEGACY_ANCHORS = ("data", "claims", "legacy_anchors.csv")


def legacy_anchors(root: Path | None = None) -> list[dict]:
    """The old anchors of the errata entries (``anchor``, ``erratum`` it leads to now or "",
    ``was``, ``claim``), kept on the errata page as aliases."""
    import csv

    base = Path(root) if root is not None else (Path(_ROOT[-1]) if _ROOT else None)
    if base is None:
        from ..ledger.paths import project_root

        base = project_root()
    path = base.joinpath(*LEGACY_ANCHORS)
    try:
        lines = [ln for ln in path.read_text(encoding="utf-8").splitlines()
                 if ln and not ln.startswith("#")]
    except OSError:
        return []
    return list(csv.DictReader(lines))


def _alias(anchor: str, target: str) -> str:
    """An old anchor kept beside the new one: the link lands here, and the page's script puts
    the new anchor in the address bar (rankbook-filter.js)."""
    return f'<span id="{anchor}" class="rb-alias" data-target="{target}"></span>'


def _class_word(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")


def errata_filter_html(errata: list[dict]) -> str:
    """The errata page's filter (rankbook-filter.js): a search field over the entries' text,
    and buttons by severity and by source; it says how many entries it shows."""
    import html

    sevs = [s for s in SEVERITIES if any(_severity(e) == s for e in errata)]
    papers = sorted({e["paper"] for e in errata}, key=lambda p: _paper_key({"paper": p}))

    def group(label: str, kind: str, values: list[tuple[str, str]]) -> str:
        buttons = [f'<button type="button" data-{kind}="" aria-pressed="true">all</button>']
        buttons += [f'<button type="button" data-{kind}="{html.escape(v)}" aria-pressed="false">'
                    f"{html.escape(w)}</button>" for v, w in values]
        return (f'<span class="rb-filter-group" role="group" aria-label="{label}">'
                f"{label}: " + " ".join(buttons) + "</span>")

    return ('<div class="rb-filter rb-errata-filter">'
            '<label>Find: <input type="search" placeholder="id, place, word" '
            'aria-label="Show only the errata whose text holds these words"></label> '
            + group("Severity", "severity",
                    [(_class_word(s), SEVERITY_COLUMN.get(s, s)) for s in sevs]) + " "
            + group("Source", "source", [(_class_word(p), _book().short(p)) for p in papers])
            + f' <span class="rb-filter-count" aria-live="polite">{len(errata)} of {len(errata)} '
              "errata shown</span></div>")


def errata_markdown(errata: list[dict], titles: dict[str, str] | None = None,
                    book: "_claims.Ledger | None" = None, legacy: list[dict] | None = None) -> str:
    """The errata page: the summary table, a filter (search, severity, source), then one
    section per severity, gravest first, whose anchor never holds a count, and each erratum
    with its stable anchor (and the anchors it had before, :func:`legacy_anchors`)."""
    lines = [
        "# Errata",
        "",
        "Where the sources are wrong. Each erratum has an immutable id and belongs to one claim of "
        "the claims ledger; its severity is the status it gives that claim, on the same scale as "
        "the verdicts: false first, then not reproduced, imprecise, and slips (typos, unstated "
        "conventions) that change no verdict. Each entry says where it sits in the source, what "
        "kind of discrepancy it is, the reading it depends on, and the evidence computed by the "
        "page that shows it. Nothing here is typed in: the wording comes from the ledger and "
        "the evidence from the build.",
        "",
    ]
    if not errata:
        lines.append("No notebook has reported a discrepancy yet.")
        return "\n".join(lines) + "\n"
    errata = merge_errata(errata)
    aliases: dict[str, list[str]] = {}
    retired = []
    for row in legacy or []:
        if row.get("erratum"):
            aliases.setdefault(row["erratum"], []).append(row["anchor"])
        else:
            retired.append(row)
    papers = sorted({e["paper"] for e in errata}, key=lambda p: _paper_key({"paper": p}))
    sevs = [s for s in SEVERITIES if any(_severity(e) == s for e in errata)]
    lines += [
        ":::{table} Errata by source and severity",
        ":class: errata-summary",
        "",
        "| Source | " + " | ".join(SEVERITY_COLUMN.get(s, s) for s in sevs) + " | all |",
        "|---|" + "---|" * (len(sevs) + 1),
    ]
    for p in papers:
        row = [sum(_severity(e) == s and e["paper"] == p for e in errata) for s in sevs]
        lines.append(f"| {_book().short(p)} | " + " | ".join(str(c) if c else "" for c in row)
                     + f" | {sum(row)} |")
    lines += [":::", "", errata_filter_html(errata), ""]
    for sev in sevs:
        entries = sorted((e for e in errata if _severity(e) == sev),
                         key=lambda e: (_paper_key(e), _erratum_order(e["id"])))
        # the heading holds no count, so its anchor (#claims-that-are-false) never moves
        lines += [f"## {SEVERITY_TITLE[sev]}", "",
                  f"{plural(len(entries), 'erratum', 'errata')} of this severity.", ""]
        for e in entries:
            source = _book().short(e["paper"])
            old = "".join(_alias(a, erratum_anchor(e)) for a in aliases.get(e["id"], []))
            lines += [f"::::{{div}} rb-erratum rb-severity-{_class_word(sev)} "
                      f"rb-source-{_class_word(e['paper'])}", "",
                      f"({erratum_anchor(e)})=", "",
                      f"{old}{anchor_link(erratum_anchor(e), 'this erratum')}"
                      f"**<a class=\"rb-id\" href=\"#{erratum_anchor(e)}\">{e['id']}</a> · "
                      f"{source}, {_cell(e['where'])}** ({md_escape(e.get('kind', ''))}). "
                      f"{_link_ids(md_escape(e['finding']))}", ""]
            readings = list(e.get("readings") or [])
            if readings:
                lines += ["*Under the reading:* " + "; ".join(_link_ids(md_escape(r)) for r in readings), ""]
            under = e.get("under") or {}
            if under:
                lines += ["| Reading | Verdict |", "|---|---|"]
                lines += [f"| {_link_ids(md_escape(k))} | {_link_ids(md_escape(v))} |"
                          for k, v in under.items()]
                lines.append("")
            cells = list(e.get("cells") or [])
            if cells:
                lines += [f"*Cells ({len(cells)}):* " + "; ".join(md_escape(c) for c in cells), ""]
            lines += [_link_ids(line) for line in _evidence_block(e["evidence"])]
            shown = []
            owner = book.claims.get(e.get("claim")) if book is not None else None
            for nb in e["notebooks"]:
                # the section is the owner claim's; another page that confirms the erratum is
                # linked as a page
                one = {**e, "notebook": nb,
                       "section": e.get("section") if owner is None or owner.page in ("", nb) else None}
                page = (titles or {}).get(nb, nb.replace("_", " "))
                where = f"{page}, section {one['section']}" if one.get("section") else page
                shown.append(_link(one, where))
            lines += [f"Shown on: {'; '.join(shown)}.", ""]
            if e.get("claim"):
                claim = book.claims.get(e["claim"]) if book is not None else None
                owner_page = claim.page if claim is not None and claim.page else e["notebooks"][0]
                row = {"id": e["claim"], "notebook": owner_page}
                words = e["claim"] + (" · " + claim.where if claim else "")
                lines += [f"Belongs to the claim {_row_link(row, words)}.", ""]
            lines += ["::::", ""]
    if retired:
        lines += ["## Withdrawn errata", "",
                  "Errata of earlier builds that no check finds any more; their old links land "
                  "here.", ""]
        for row in retired:
            claim = book.claims.get(row["claim"]) if book is not None else None
            link = (_row_link({"id": row["claim"], "notebook": claim.page},
                              f"{row['claim']} · {claim.where}")
                    if claim is not None and claim.page else md_escape(row["claim"]))
            lines += [f'<span id="{row["anchor"]}"></span>**{md_escape(row["was"])}**, of the '
                      f"claim {link}: withdrawn; the claim's verdict gives the current evidence.",
                      ""]
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
        if words and words[0] in ("seed", "seeds"):  # a seed pass rate, not a claim's count
            continue
        unit = next((w for w in words if w in UNITS), None)  # "198 printed cells" counts cells
        allowed = [v for (t, u), v in by_total.items() if t == total and unit in (None, u)]
        if allowed and not any(n in v for v in allowed):
            bad.append(text[max(0, m.start() - 60):m.end() + 30].replace("\n", " "))
    return bad


def row_count_conflicts(text: str, records: list[dict]) -> list[str]:
    """:func:`count_conflicts` of a page that lists many artifacts (the landing page, a chapter,
    the dashboard): each "N of M" is held against the record whose id opens its row (the text
    from one record id to the next), not against every record of the site with the same total,
    where two sources' unrelated artifacts of 7 statements or 120 cells would read as one
    artifact counted two ways. Text before the first id is not checked.

    Examples
    --------
    >>> a = {"id": "A-1", "total": 6, "matched": 5, "unit": "metrics"}
    >>> b = {"id": "B-2", "total": 7, "matched": 7}
    >>> row_count_conflicts("A-1: 5 of 6 metrics; MAPE has 3 of 7 | B-2: 7 of 7", [a, b])
    []
    >>> row_count_conflicts("A-1: 4 of 6 metrics | B-2: 7 of 7", [a, b])
    ['A-1: 4 of 6 metrics | ']
    """
    at = []
    for rec in records:
        if rec.get("id"):
            pattern = re.compile(rf"(?<![\w-]){re.escape(str(rec['id']))}(?![\w-])")
            at += [(m.start(), rec) for m in pattern.finditer(text)]
    at.sort(key=lambda x: x[0])
    bad = []
    for i, (start, rec) in enumerate(at):
        end = at[i + 1][0] if i + 1 < len(at) else len(text)
        bad += count_conflicts(text[start:end], [rec])
    return bad


def _row_link(rec: dict, text: str) -> str:
    """A link to a verdict row (an HTML id inside the verdict table, which MyST cannot see as a
    target, so the link is raw HTML around Markdown text, whose maths is typeset; the browser
    test checks every anchor)."""
    return f'<a href="{rec["notebook"]}.html#{record_anchor(rec)}">{md_escape(str(text))}</a>'


def erratum_link(eid: str, prefix: str = "") -> str:
    """An erratum's id linked to its entry on the errata page (raw HTML: the page's anchors
    are MyST targets, but this link sits in pages that include generated Markdown)."""
    import html

    return (f'<a class="rb-id" href="{prefix}errata.html#{_claims.erratum_anchor_of(eid)}" '
            f'title="This erratum on the errata page">{html.escape(eid)}</a>')


def merge_errata(errata: list[dict]) -> list[dict]:
    """One entry per erratum id: the same erratum recorded by several notebooks (the spread of
    paper B's Eq. 13 is shown beside Table IV and Table VI) is listed once, with every page that
    shows it (``notebooks``)."""
    merged: dict[str, dict] = {}
    for e in errata:
        key = e.get("id") or e["key"]
        if key in merged:
            if e["notebook"] not in merged[key]["notebooks"]:
                merged[key]["notebooks"].append(e["notebook"])
            continue
        merged[key] = {**e, "notebooks": [e["notebook"]]}
    return list(merged.values())


def adhoc_ledger(results: list[dict], errata: list[dict]) -> "_claims.Ledger":
    """The ledger of a project without ``data/claims/``: one claim per record, one erratum per
    erratum record, as the records word them."""
    book = _claims.Ledger()
    for r in results:
        book.claims[r["id"]] = _claims.Claim(
            id=r["id"], source=r["paper"], where=r.get("artifact") or r["id"], kind="statements",
            claim=r.get("claim") or "", page=r["notebook"], section=r.get("section") or "",
            rule="the status rule of the book")
    for e in errata:
        if e.get("id") and e.get("claim") in book.claims:
            book.errata[e["id"]] = _claims.Erratum(
                id=e["id"], claim=e["claim"], where=e["where"], kind="imprecise statement",
                severity=e.get("severity") or "holds", finding=e["finding"])
    return book


def notebook_path(name: str) -> Path:
    from ..ledger.paths import project_root

    return project_root() / "notebooks" / f"{name}.ipynb"


def page_headings(path: Path) -> set[str]:
    """The heading texts of a notebook's Markdown cells (what a ledger ``section`` names)."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    out = set()
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "markdown":
            continue
        for line in "".join(cell.get("source", [])).splitlines():
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                out.add(m.group(1))
    return out


def ledger_problems(book: "_claims.Ledger", results: list[dict], errata: list[dict],
                    existing: set[str]) -> list[str]:
    """Everything that keeps the site from agreeing with the ledger: the consistency rules of
    :func:`rankbook.ledger.claims.check_consistency`, a checked claim whose page recorded no
    evidence, a page of the ledger that does not exist, an erratum the ledger does not hold,
    and a ledger erratum that no evidence confirmed."""
    problems = _claims.check_consistency(book, results, errata)
    have = {r.get("id") for r in results}
    confirmed = {e.get("id") for e in errata}
    headings = {}
    for c in book.claims.values():
        if not c.page:
            continue
        if c.page in existing and c.section:
            if c.page not in headings:
                headings[c.page] = page_headings(notebook_path(c.page))
            if c.section not in headings[c.page]:
                problems.append(f"{c.id}: section {c.section!r} is no heading of {c.page} "
                                "(the verdict row links to it)")
        if c.page not in existing:
            problems.append(f"{c.id}: checked by page {c.page!r}, which has no notebook")
        elif c.id not in have:
            problems.append(f"{c.id}: its page {c.page} recorded no evidence for it")
    for e in errata:
        if not e.get("id"):
            problems.append(f"{e['notebook']}: a discrepancy the ledger does not hold "
                            f"({e['where']}: {e['finding'][:80]}); give it an id in data/claims/")
    for r in results:
        for key in VISIBLE_FIELDS:
            value = r.get(key)
            texts = value if isinstance(value, list) else list(value) if isinstance(value, dict) else [value]
            for text in texts:
                for word in internal_words(text):
                    problems.append(f"{r.get('id')}: the visible {key} shows the internal word "
                                    f"{word!r}; use rankbook.ledger.names.display")
    for e in book.errata.values():
        owner = book.claims[e.claim]
        if owner.page in existing and e.id not in confirmed:
            problems.append(f"{e.id} ({e.where}): no evidence from {owner.page or 'any page'} "
                            "confirms it")
    return problems


#: The fields of a record that a reader sees in a verdict row.
VISIBLE_FIELDS = ("claim", "published", "reproduced", "detail", "reading", "failures",
                  "alternatives", "borderline")

_MATHS_OR_CODE = re.compile(r"\$[^$]*\$|`[^`]*`")
_INTERNAL = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\bnu\^-1\b|\bsigma\^-1\b|\bnu o sigma\b")


#: Names of real tools and formats that are spelled with underscores (not internal ids).
PRODUCT_NAMES = frozenset({"trec_eval", "pytrec_eval", "ir_measures", "repro_eval",
                           "ir_metadata", "ir_datasets"})


def internal_words(text) -> list[str]:
    """Ids and internal spellings in visible text (outside maths and code): snake_case ids such
    as ``reads_nu_only`` or ``lr_minus``, and ASCII readings such as ``nu^-1 o sigma``.

    Examples
    --------
    >>> internal_words("fails: dcg, ndcg, reads_nu_only"), internal_words("$\\nu^{-1}$ and `a_b`")
    (['reads_nu_only'], [])
    """
    if not isinstance(text, str):
        return []
    return [w for w in _INTERNAL.findall(_MATHS_OR_CODE.sub(" ", text)) if w not in PRODUCT_NAMES]



#: How the landing page groups a source's claims, worst first.
SUMMARY_GROUPS = (
    ("Claims that are false", ("false",)),
    ("Results not reproduced, or imprecise", ("not reproduced", "imprecise")),
    ("Claims that hold", ("holds", "holds within tolerance")),
    ("True by definition, or not checkable", ("true by definition", "not checkable")),
)

#: The groups of :data:`SUMMARY_GROUPS` a summary shows open; the others are folded into one
#: dropdown per source, so that the page leads with what the sources got wrong.
SUMMARY_OPEN = ("Claims that are false", "Results not reproduced, or imprecise")


def _dashboard_link(row: dict, prefix: str) -> str:
    """The claim's id linked to its dashboard row (raw HTML: the row's anchor is a span inside
    a table, which MyST cannot see as a target; the browser test checks every anchor)."""
    import html

    return (f'<a href="{prefix}dashboard.html#{_claims.claim_anchor(row["id"])}" '
            f'title="This claim on the dashboard">{html.escape(row["id"])}</a>')


def _summary_entry(r: dict, prefix: str, by_claim: dict) -> str:
    details = [_link_ids(d, prefix) for d in status_details(r)]
    where = (_link(r, r["where"], prefix) if r.get("notebook") else md_escape(r["where"]))
    extra = "; ".join(details)
    if r.get("reason") and not r.get("notebook"):
        extra += ("; " if extra else "") + "not checked: " + _link_ids(md_escape(r["reason"]), prefix)
    ids = by_claim.get(r["id"])
    if ids:
        extra += ("; " if extra else "") + "errata " + ", ".join(erratum_link(i, prefix)
                                                               for i in ids)
    # status_details escaped each part already and marks "borderline" in bold
    return (f"  - {badge(r['status'])} {_dashboard_link(r, prefix)} · {where}"
            + (f": {extra}" if extra else ""))


def summary_markdown(rows: list[dict], prefix: str = "generated/",
                     lead: str = "The ledger holds", errata: list[dict] | None = None) -> str:
    """The status summary included by the landing page and, one source at a time, by the
    chapter pages (links relative to ``book/``): the counts by status and by errata severity,
    the counting rule in one sentence, then each source's claims grouped worst first. The
    false, not reproduced and imprecise claims are listed open; the claims that hold, hold by
    definition or are not checkable are counted, and listed in a fold. Each entry links its id
    to its dashboard row and its place to the page section that checks it."""
    if not rows:
        return "No claim is in the ledger yet.\n"
    lines = [f"{lead} **{plural(len(rows), 'claim')}**: {_status_line(r['status'] for r in rows)}", ""]
    merged = merge_errata(errata or [])
    if merged:
        lines += [f"The [errata]({prefix}errata.md) hold **{plural(len(merged), 'erratum', 'errata')}**: "
                  f"{_severity_line(merged)}.", ""]
    lines += [COUNTING_RULE, ""]
    papers = sorted({r["paper"] for r in rows}, key=lambda p: _paper_key({"paper": p}))
    by_claim = errata_by_claim(errata or [])
    for paper in papers:
        mine = [r for r in rows if r["paper"] == paper]
        if len(papers) > 1:
            lines += [f"**{_book().title(paper)}** ({plural(len(mine), 'claim')})", ""]
        shown, folded = [], []
        for title, statuses in SUMMARY_GROUPS:
            group = [r for r in mine if r["status"] in statuses]
            if not group:
                continue
            block = [f"- {title} ({len(group)}):"] + [_summary_entry(r, prefix, by_claim) for r in group]
            (shown if title in SUMMARY_OPEN else folded).append((title, len(group), block))
        for _, _, block in shown:
            lines += block
        if shown:
            lines.append("")
        if folded:
            counts = "; ".join(f"{t.lower() if i else t} ({n})" for i, (t, n, _) in enumerate(folded))
            lines += [f"::::{{dropdown}} {counts}", ""]
            for _, _, block in folded:
                lines += block
            lines += ["", "::::", ""]
        lines.append("")
    return "\n".join(lines) + "\n"


def glance_markdown(rows: list[dict], errata: list[dict], book: "_claims.Ledger",
                    prefix: str = "generated/") -> str:
    """The counts the landing page opens with, on its first screen: the claims of the ledger
    by status, the errata by severity, and where to read them (links relative to ``book/``)."""
    if not rows:
        return "The ledger holds no claim yet.\n"
    merged = merge_errata(errata)
    n = len(book.sources)
    line = (f"The claims ledger holds **{plural(len(rows), 'claim')}** of "
            f"{plural(n, 'source')}: {_status_line(r['status'] for r in rows)}.")
    if merged:
        line += (f" The [errata]({prefix}errata.md) hold **{plural(len(merged), 'erratum', 'errata')}**: "
                 f"{_severity_line(merged)}.")
    line += (f" Every claim is on the [dashboard]({prefix}dashboard.md); the list by source "
             "is <a href=\"#reproduction-status\">below</a>.")
    return "::::{div} rb-glance\n" + line + "\n::::\n"


def parameters_markdown(root: Path) -> str:
    """Every notebook's parameters, one fold per notebook: type, default, the allowed values
    (the constraints ``rankbook run`` checks, as in each page's rerun box) and the meaning."""
    from .present import _code_cell, cli_value
    from .specs import discover

    lines = ["Every notebook, with its parameters, their types, defaults (the papers' settings) "
             "and allowed values; open a notebook to see its table. This list is generated from "
             "the notebooks' `parameters` cells and constraints, like `rankbook list NAME`.",
             ""]
    for spec in discover(root):
        lines += [f":::{{dropdown}} `{spec.name}`: {code_markdown(spec.description)}", ""]
        if spec.parameters:
            lines += ["| Parameter | Type | Default | Allowed values | Meaning |",
                      "|---|---|---|---|---|"]
            for p in spec.parameters.values():
                allowed = p.constraint_text() or f"any {p.type_name}"
                lines.append(f"| `{p.name}` | {p.type_name} | {_code_cell(cli_value(p.default))} "
                             f"| {code_markdown(allowed)} | {code_markdown(p.comment)} |")
        else:
            lines.append("(no parameters)")
        lines += ["", ":::", ""]
    return "\n".join(lines) + "\n"


def sources_markdown(book: "_claims.Ledger", rows: list[dict], prefix: str = "") -> str:
    """The landing page's list of sources, from their ``[source]`` tables: each one's title,
    citation, what the book takes from it, its claims by status and its chapter."""
    if not book.sources:
        return "No source is in the ledger yet.\n"
    lines = []
    for s in book.sources.values():
        mine = [r for r in rows if r["paper"] == s.key]
        cite = f" {{cite:p}}`{s.cite}`" if s.cite else ""
        about = f" {s.about}" if s.about else ""
        lines.append(f"- **{md_escape(s.short)}**, *{md_escape(s.title)}*{cite}.{about} "
                     f"{plural(len(mine), 'claim')}: {_status_line(r['status'] for r in mine)}; "
                     f"see the chapter [{md_escape(s.short)}]({prefix}{s.chapter}.md).")
    return "\n".join(lines) + "\n"


#: The packages of code that reproduces one source each: every module gets its section on the
#: library reference page ``book/reference/papers_<package>.md``.
PAPERS_PACKAGE = "rankbook.papers"


def package_reference(package: str) -> str:
    """The library reference of a package of :data:`PAPERS_PACKAGE`, one section per module
    (autodoc, every public function with or without a docstring; the ``[source]`` link of
    each leads to its code on the site), included by the package's reference page. Written at
    build time, so that a module added to the package is documented without a page edit."""
    import importlib
    import pkgutil

    pkg = importlib.import_module(package)
    lines = [f"<!-- generated by rankbook.book.site.package_reference({package!r}) -->", "",
             "```{eval-rst}", f".. automodule:: {package}", "   :no-value:", "```", ""]
    for mod in sorted(pkgutil.walk_packages(pkg.__path__, package + "."), key=lambda m: m.name):
        lines += [f"## `{mod.name}`", "", "```{eval-rst}", f".. automodule:: {mod.name}",
                  "   :members:", "   :undoc-members:", "   :ignore-module-all:",
                  "   :no-value:", "```", ""]
    return "\n".join(lines)


def paper_packages() -> list[str]:
    """Every subpackage of :data:`PAPERS_PACKAGE` (one per source or group of sources)."""
    import importlib
    import pkgutil

    pkg = importlib.import_module(PAPERS_PACKAGE)
    return sorted(m.name for m in pkgutil.iter_modules(pkg.__path__, PAPERS_PACKAGE + ".")
                  if m.ispkg)


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def write_generated_pages(root: Path) -> None:
    """The pages generated from the claims ledger and the build's evidence. ValueError listing
    every disagreement between them (:func:`ledger_problems`)."""
    _ROOT.append(Path(root))
    try:
        _write_generated_pages(Path(root))
    finally:
        _ROOT.pop()


def _write_generated_pages(root: Path) -> None:
    from .specs import discover

    gen = root / "book" / "generated"
    gen.mkdir(parents=True, exist_ok=True)
    book = _claims.ledger(root)
    # only the notebooks that exist: the outputs of one deleted since (a branch switch) stay on
    # disk but never reach the pages
    existing = {spec.name for spec in discover(root)}
    results = [r for r in collect(gen, RESULTS_FILE, book) if r["notebook"] in existing]
    for rec in results:  # one status rule for every page: a stale or hand-made status fails
        check_status(rec)
    errata = [e for e in collect(gen, ERRATA_FILE, book) if e["notebook"] in existing]
    if book.claims:
        problems = ledger_problems(book, results, errata, existing)
    else:  # a project of one's own keeps no ledger: its records are its claims
        book, problems = adhoc_ledger(results, errata), []
    if problems:
        raise ValueError("the claims ledger (data/claims/) and the build's evidence disagree:\n  "
                         + "\n  ".join(problems))
    rows = claim_rows(book, results)
    _write_if_changed(gen / CLAIMS_CSV, claims_csv(rows, errata))
    _write_if_changed(gen / ERRATA_CSV, errata_csv(errata))
    _write_if_changed(gen / "dashboard.md",
                      with_download(dashboard_markdown(rows, errata), CLAIMS_CSV, "every claim"))
    _write_if_changed(gen / "errata.md", with_download(
        errata_markdown(errata, notebook_titles(root), book, legacy_anchors(root)), ERRATA_CSV,
        "every erratum"))
    _write_if_changed(gen / "summary.md", summary_markdown(rows, errata=errata))
    _write_if_changed(gen / "glance.md", glance_markdown(rows, errata, book))
    _write_if_changed(gen / "sources.md", sources_markdown(book, rows))
    for chapter, sources in book.chapters().items():
        mine = [r for r in rows if r["paper"] in sources]
        theirs = [e for e in errata if e["paper"] in sources]
        _write_if_changed(gen / f"summary_{chapter}.md",
                          summary_markdown(mine, lead="For this chapter's sources, the ledger holds",
                                           errata=theirs))
    from .prose import NUMBERS_FILE, build_numbers

    _write_if_changed(gen / NUMBERS_FILE, json.dumps(
        build_numbers(rows, merge_errata(errata), book), indent=1, sort_keys=True) + "\n")
    _write_if_changed(gen / "parameters.md", parameters_markdown(root))
    for package in paper_packages():
        _write_if_changed(gen / f"reference_{package.rpartition('.')[2]}.md",
                          package_reference(package))
    _write_if_changed(gen / "status_rule.md", STATUS_RULE + "\n\n" + READING_RULE + "\n")
    from .source_archive import read_description, write_source_archive

    _, commit = write_source_archive(root, gen)
    source = read_description(gen)
    swhid = source.swhid if source is not None else {}
    _write_if_changed(gen / "cite.md", cite_markdown(root, commit=commit, swhid=swhid))
    _write_if_changed(gen / "source.md", source_page_markdown(book, swhid))


def source_page_markdown(book: "_claims.Ledger", swhid: dict) -> str:
    """The page of the source archive (``book/generated/source.md``): what it holds, how to run
    it without git (unpack, ``make venv``, run), its Software Heritage identifiers, and the
    machine-readable files at the site's root (the citation, the RO-Crate, each source's
    ReScience-style ``metadata.yaml``, the lock file)."""
    from .crate import CRATE_NAME, SOURCES_DIR
    from .source_archive import ARCHIVE_NAME, FOLDER_TOKEN, MANIFEST_NAME, SOURCE_TOKEN

    up = "../../"  # from book/generated/ to the site's root
    lines = [
        "# The source of this book",
        "",
        f"Download {{download}}`the source <{ARCHIVE_NAME}>` {SOURCE_TOKEN}. It holds the "
        f"files the pages were built from and nothing else; `{MANIFEST_NAME}` at its top lists "
        "each with its SHA-256.",
        "",
        "## Run it without git",
        "",
        "A copy of the archive needs no git and no account: Python 3.11 and `make`.",
        "",
        "```bash",
        f"tar xzf {ARCHIVE_NAME}",
        f"cd {FOLDER_TOKEN}",
        "make venv          # the pinned environment into .venv (about 3 minutes)",
        ".venv/bin/rankbook run agreement_heatmap -p n 20 -p k 6 --page   # one page, your values",
        "make book          # every page",
        "```",
        "",
        "Every page's provenance box gives the same steps with that page's own command, and each "
        "figure and table names the cell of its executed notebook that made it.",
        "",
        "## Software Heritage identifiers",
        "",
        "SWHIDs (ISO/IEC 18670) name content, not a place: they are git's own object ids, so "
        "any copy of the same files has the same identifier, archived or not.",
        "",
    ]
    words = {"rev": "the commit the pages were built from (its files are exactly the archive's)",
             "dir": f"the archive's files as a directory (`{MANIFEST_NAME}` aside): the git tree "
                    "of a commit, or of the working tree with its changes"}
    for kind, value in sorted(swhid.items(), key=lambda kv: kv[0] != "rev"):
        lines.append(f"- `{value}`: {words.get(kind, kind)}.")
    if "rev" not in swhid:
        lines.append("- No commit identifier: the archive does not hold exactly one commit "
                     "(uncommitted changes, or a copy without git).")
    lines += ["",
              "To check the directory identifier, unpack the archive and run, in its folder, "
              "`git init -q && git add -A -f . && git rm -q --cached SOURCE-FILES.txt && git write-tree`: "
              "git prints the same tree id.",
              "",
              "## Machine-readable provenance",
              "",
              f'- <a href="{up}{CRATE_NAME}">{CRATE_NAME}</a>: the site as an RO-Crate (1.2, '
              "Process Run Crate profile): each executed page is a run, with its notebook, its "
              "parameters, the lock file and every table and figure it wrote, each with its "
              "SHA-256;",
              f'- <a href="{up}CITATION.cff">CITATION.cff</a> and <a href="{up}citation.bib">'
              "citation.bib</a>: how to cite this build, with its version, commit and "
              "identifiers;",
              f'- <a href="{up}requirements.lock">requirements.lock</a>: the pinned environment '
              "every page ran in;"]
    sources = list(book.sources.values())
    for i, src in enumerate(sources):
        end = "." if i == len(sources) - 1 else ";"
        lines.append(f'- <a href="{up}{SOURCES_DIR}/{src.key}/metadata.yaml">'
                     f"{SOURCES_DIR}/{src.key}/metadata.yaml</a>: the replication of "
                     f"{md_escape(src.short)} in ReScience's format (the article, the code, the "
                     f"data, its claims counted by status){end}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Stable anchors, downloads and the repository setting (issue 20)
# --------------------------------------------------------------------------------------------
#: The ledger's claims and errata as CSV, with their status and evidence, written beside the
#: dashboard and the errata page and linked from them.
CLAIMS_CSV = "claims.csv"
ERRATA_CSV = "errata.csv"


def claims_csv(rows: list[dict], errata: list[dict]) -> str:
    """Every ledger claim as one CSV row: id, place, status, evidence and errata ids."""
    import csv
    import io

    by_claim = errata_by_claim(errata)
    buf = io.StringIO()
    cols = ["id", "paper", "where", "kind", "claim", "status", "published", "reproduced",
            "matched", "total", "unit", "borderline", "detail", "rule", "readings", "reason",
            "errata", "notebook", "section", "anchor"]
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow(neutral_row({**{c: r.get(c) for c in cols}, "anchor": _claims.claim_anchor(r["id"]),
                                "errata": "; ".join(by_claim.get(r["id"], []))}))
    return buf.getvalue()


def errata_csv(errata: list[dict]) -> str:
    import csv
    import io

    buf = io.StringIO()
    cols = ["id", "claim", "paper", "where", "kind", "severity", "finding", "evidence",
            "readings", "notebooks", "section", "anchor"]
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for e in sorted(merge_errata(errata), key=lambda e: (_paper_key(e), _erratum_order(e["id"]))):
        w.writerow(neutral_row({**{c: e.get(c) for c in cols}, "anchor": erratum_anchor(e),
                                "severity": SEVERITY_WORD[_severity(e)],
                                "readings": "; ".join(e.get("readings") or []),
                                "notebooks": "; ".join(e.get("notebooks") or [])}))
    return buf.getvalue()


def with_download(page: str, filename: str, what: str) -> str:
    """A generated page with a download link to its CSV after the first paragraph."""
    link = f"Download {what} as CSV: {{download}}`{filename} <{filename}>`.\n"
    head, sep, tail = page.partition("\n\n")
    body_start = tail.find("\n\n")
    if not sep or body_start < 0:
        return page + "\n" + link
    return head + sep + tail[:body_start] + "\n\n" + link + tail[body_start:]
