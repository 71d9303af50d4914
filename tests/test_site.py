"""Generated pages (issue 7): the dashboard, errata and summary come from notebook records."""

from __future__ import annotations

import json

import pytest

from rankbook.book import outputs, site


@pytest.fixture
def generated(tmp_path, monkeypatch):
    gen = tmp_path / "book" / "generated"
    for name, records in {
        "nb_one": [("Table X", "A", "reproduced exactly", 10, 10)],
        "nb_two": [("Figure Y", "B", "partly", 3, 7), ("Example Z", "B", "claim false", None, None)],
    }.items():
        monkeypatch.setenv("RANKBOOK_OUTPUT_DIR", str(gen / name))
        for artifact, paper, status, m, t in records:
            outputs.record_result(artifact, paper, status, matched=m, total=t, detail="d")
    monkeypatch.setenv("RANKBOOK_OUTPUT_DIR", str(gen / "nb_two"))
    outputs.record_erratum("B", "Eq. 13", "a finding", "computed evidence", kind="typo")
    (tmp_path / "notebooks").mkdir()
    return tmp_path


def test_pages_are_generated_from_records(generated):
    site.write_generated_pages(generated)
    gen = generated / "book" / "generated"
    dash = (gen / "dashboard.md").read_text()
    assert "| A | Table X | reproduced exactly | 10 / 10 |" in dash
    assert "[nb_two](nb_two.ipynb)" in dash
    summary = (gen / "summary.md").read_text()
    assert "**3 published artifacts**: 1 reproduced exactly, 1 partly, 1 claim false." in summary
    assert "- Figure Y: 3 of 7 cells reproduced (partly)" in summary
    errata = (gen / "errata.md").read_text()
    assert "**Eq. 13** (typo): a finding" in errata and "computed evidence" in errata


def test_pages_change_when_a_notebook_output_changes(generated, monkeypatch):
    site.write_generated_pages(generated)
    gen = generated / "book" / "generated"
    before = (gen / "summary.md").read_text()
    monkeypatch.setenv("RANKBOOK_OUTPUT_DIR", str(gen / "nb_two"))
    outputs.record_result("Figure Y", "B", "reproduced exactly", matched=7, total=7)
    site.write_generated_pages(generated)
    after = (gen / "summary.md").read_text()
    assert after != before and "- Figure Y: 7 of 7 cells reproduced (reproduced exactly)" in after


def test_records_are_validated(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKBOOK_OUTPUT_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="unknown status"):
        outputs.record_result("x", "A", "fine")
    with pytest.raises(ValueError, match="unknown paper"):
        outputs.record_result("x", "Z", "partly")
    with pytest.raises(ValueError, match="matched=8 must lie in 0..total=7"):
        outputs.record_result("x", "A", "partly", matched=8, total=7)
    with pytest.raises(ValueError, match="needs both a caption and alt text"):
        outputs.save_figure(object(), "fig", caption="", alt="")
    with pytest.raises(ValueError, match="not a plain file stem"):
        outputs.save_table(None, "../escape", title="t")
    # re-recording the same artifact replaces it instead of duplicating it
    outputs.record_result("x", "A", "partly", matched=1, total=2)
    outputs.record_result("x", "A", "partly", matched=2, total=2)
    assert len(json.loads((tmp_path / "results.json").read_text())) == 1
