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
    for summary in ("intro", "paper_a", "paper_b", "scoring", "generated/dashboard"):
        pages[SITE / "book" / f"{summary}.html"] = records
    bad = {}
    for page, recs in pages.items():
        assert page.exists(), page
        conflicts = site.count_conflicts(_text(page), recs)
        if conflicts:
            bad[page.name] = conflicts[:3]
    assert not bad, f"counts that are not their artifact's own: {json.dumps(bad, indent=1)}"


def test_every_record_follows_the_status_rule_and_false_claims_are_reported():
    records = _records()
    for rec in records:
        outputs.check_status(rec)
    site.check_errata_reported(records, site.collect(GENERATED, outputs.ERRATA_FILE))


def test_the_coverage_table_names_no_missing_record():
    dashboard = _text(SITE / "book" / "generated" / "dashboard.html")
    assert "Coverage: every stated result of the sources" in dashboard
    assert "no record" not in dashboard
    assert "in progress" not in dashboard, "coverage rows still marked in progress"
