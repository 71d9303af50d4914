"""The verdicts of the built site, as a referee reads them (issue 19).

* one count per artifact: every "N of M" a page prints for an artifact is that artifact's own
  count (its matches, its failures, a per-seed count or its count under another named
  reading), on the artifact's page, its chapter, the dashboard and the landing page;
* every status on the built site follows the one rule;
* every false claim of the errata is reported by a verdict row of its page that says it fails;
* the coverage table has no artifact without a record.
"""

from __future__ import annotations

import html
import json
import re

from rankbook.book import outputs, site

from conftest import ROOT, SITE

GENERATED = ROOT / "book" / "generated"


def _text(path) -> str:
    raw = path.read_text(errors="ignore")
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S | re.I)
    return html.unescape(re.sub(r"<[^>]+>", " ", raw))


def _records():
    return site.collect(GENERATED, outputs.RESULTS_FILE)


def test_one_count_per_artifact_on_every_page():
    records = _records()
    assert records, "no records: build the book first"
    by_notebook: dict[str, list] = {}
    for r in records:
        by_notebook.setdefault(r["notebook"], []).append(r)
    pages = {SITE / "book" / "generated" / f"{nb}.html": recs for nb, recs in by_notebook.items()}
    from rankbook.ledger import claims

    # a page that lists many artifacts holds each count against the record whose row it is in
    summaries = ["intro", "generated/dashboard", *claims.load_ledger(ROOT).chapters()]
    bad = {}
    for page, recs in pages.items():
        assert page.exists(), page
        conflicts = site.count_conflicts(_text(page), recs)
        if conflicts:
            bad[page.name] = conflicts[:3]
    for summary in summaries:
        page = SITE / "book" / f"{summary}.html"
        assert page.exists(), page
        conflicts = site.row_count_conflicts(_text(page), records)
        if conflicts:
            bad[page.name] = conflicts[:3]
    assert not bad, f"counts that are not their artifact's own: {json.dumps(bad, indent=1)}"


def test_every_record_follows_the_status_rule_and_agrees_with_the_ledger():
    from rankbook.ledger import claims
    from rankbook.book.specs import discover

    records = _records()
    for rec in records:
        outputs.check_status(rec)
    book = claims.load_ledger(ROOT)
    existing = {spec.name for spec in discover(ROOT)}
    errata = site.collect(GENERATED, outputs.ERRATA_FILE)
    assert site.ledger_problems(book, records, errata, existing) == []


def _statuses_shown(page: str) -> dict[str, int]:
    """The status counts a page's summary line shows ("N claims: holds 12 imprecise 3 ...")."""
    from rankbook.ledger.claims import STATUSES

    text = _text(SITE / "book" / page)
    m = re.search(r"\d+ claims?\s*:(.*?)(?:The errata|Each stated|Show:)", text, flags=re.S)
    assert m, f"{page}: no status summary"
    seg, counts = m.group(1), {}
    for status in sorted(STATUSES, key=len, reverse=True):
        for hit in re.finditer(re.escape(status) + r"\s+(\d+)", seg):
            counts[status] = int(hit.group(1))
        seg = re.sub(re.escape(status) + r"\s+\d+", " ", seg)
    return counts


def test_landing_dashboard_and_chapters_count_the_ledger():
    """Every count on the site comes from the ledger and the build's evidence: the landing page,
    the dashboard and each chapter show the statuses of claims.csv, every ledger claim is on the
    dashboard, every erratum on the errata page, and each verdict box holds ledger ids only."""
    import csv
    from collections import Counter

    from rankbook.ledger import claims

    book = claims.load_ledger(ROOT)
    rows = list(csv.DictReader((GENERATED / "claims.csv").read_text().splitlines()))
    assert [r["id"] for r in rows] == list(book.claims), "claims.csv is not the ledger"
    want = Counter(r["status"] for r in rows)
    assert _statuses_shown("intro.html") == dict(want)
    assert _statuses_shown("generated/dashboard.html") == dict(want)
    for chapter, sources in book.chapters().items():
        page = f"{chapter}.html"
        mine = Counter(r["status"] for r in rows if r["paper"] in sources)
        assert _statuses_shown(page) == dict(mine), page
    dashboard = (SITE / "book" / "generated" / "dashboard.html").read_text()
    for cid in book.claims:
        assert f'id="{claims.claim_anchor(cid)}"' in dashboard, cid
    errata_page = (SITE / "book" / "generated" / "errata.html").read_text()
    for eid in book.errata:
        assert f'id="{claims.erratum_anchor_of(eid)}"' in errata_page, eid
    for path in (SITE / "book" / "generated").glob("*.html"):
        for anchor in re.findall(r'<span id="(claim-[a-z0-9-]+)"', path.read_text()):
            assert anchor in {claims.claim_anchor(c) for c in book.claims}, (path.name, anchor)
