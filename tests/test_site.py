"""Generated pages: the dashboard, errata, summary and verdict boxes come from notebook records,
and every status follows one rule (issue 11)."""

from __future__ import annotations

import itertools
import json

import nbformat
import pytest

from rankbook.book import outputs, present, site
from rankbook.ledger import claims


LEDGER_A = """[source]
key = "A"
prefix = "A"
title = "Paper A: a test source"
short = "Paper A"
chapter = "paper_a"
order = 1

[[claims]]
id = "A-TX"
where = "Table X"
kind = "table"
claim = "claim of Table X"
page = "nb_one"
section = "The table"
rule = "r"
{extra_a}
"""

LEDGER_B = """[source]
key = "B"
prefix = "B"
title = "Paper B: another test source"
short = "Paper B"
chapter = "paper_b"
order = 2

[[claims]]
id = "B-FY"
where = "Figure Y"
kind = "figure"
claim = "claim of Figure Y"
page = "nb_two"
section = "s"
rule = "r"

[[claims]]
id = "B-EZ"
where = "Example Z"
kind = "example"
claim = "claim of Example Z"
page = "nb_two"
section = "s"
rule = "r"

[[claims]]
id = "B-TI"
where = "Table I"
kind = "table"
claim = "what the measures handle"
reason = "it compares other methods' features in words"

[[errata]]
id = "B-E1"
claim = "B-FY"
where = "Eq. 13"
kind = "typo"
severity = "imprecise"
finding = "a finding with TP*TN - FP*FN"

[[errata]]
id = "B-E2"
claim = "B-EZ"
where = "Example Z"
kind = "false statement"
severity = "false"
finding = "it fails"
"""

#: Extra claims of paper A for the tests of the record rules (no page checks them in the
#: generated-pages tests, so they are ledger entries with a reason there).
EXTRA_A = "\n".join(
    f'[[claims]]\nid = "A-{i}"\nwhere = "{name}"\nkind = "table"\nclaim = "claim of {name}"\n'
    f'reason = "tested elsewhere"\n'
    for i, name in enumerate(["x", "Figure 4", "Proposition 6.2", "Lemma", "Table 2", "rob II",
                              "Prop 1"]))


def write_ledger(root, extra_a=EXTRA_A, b=LEDGER_B):
    folder = root / "data" / "claims"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "A.toml").write_text(LEDGER_A.format(extra_a=extra_a))
    (folder / "B.toml").write_text(b)


@pytest.fixture
def ledger_root(tmp_path, monkeypatch):
    write_ledger(tmp_path)
    monkeypatch.setenv("RANKBOOK_ROOT", str(tmp_path))
    return tmp_path


#: The claims of the test ledger by the place they sit in their source.
IDS = {"Table X": "A-TX", "Figure Y": "B-FY", "Example Z": "B-EZ",
       **{name: f"A-{i}" for i, name in enumerate(["x", "Figure 4", "Proposition 6.2", "Lemma",
                                                   "Table 2", "rob II", "Prop 1"])}}


def _result(artifact, paper, comparison, matched=None, total=None, holds=None, **kw):
    """Report the evidence of the claim that sits at ``artifact`` (``paper`` only documents
    which source the test means)."""
    return claims.report(claims.Evidence(
        claim=IDS.get(artifact, artifact), comparison=comparison, published="p", reproduced="r",
        matched=matched, total=total, holds=holds, detail="d", **kw))


def _erratum(eid, evidence="ev"):
    """Record the evidence of one ledger erratum (the page confirms it)."""
    return claims.confirm(claims.Finding(id=eid, evidence=evidence))


@pytest.fixture
def generated(ledger_root, monkeypatch):
    tmp_path = ledger_root
    gen = tmp_path / "book" / "generated"
    monkeypatch.setenv("RANKBOOK_OUTPUT_DIR", str(gen / "nb_one"))
    _result("Table X", "A", "exact", 10, 10)
    monkeypatch.setenv("RANKBOOK_OUTPUT_DIR", str(gen / "nb_two"))
    _result("Figure Y", "B", "noise", 3, 7)
    _result("Example Z", "B", "claim", holds=False)
    _erratum("B-E1", "line one\nline two")
    _erratum("B-E2")
    _notebooks(tmp_path, "nb_one", "nb_two")
    return tmp_path


def _notebooks(root, *names):
    """Source notebooks for the records (the pages are made from the notebooks that exist)."""
    (root / "notebooks").mkdir(exist_ok=True)
    for name in names:
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
            f"# {name}\n\n## The table\n\n## s")])
        nbformat.write(nb, root / "notebooks" / f"{name}.ipynb")


def test_pages_are_generated_from_the_ledger_and_the_records(generated):
    site.write_generated_pages(generated)
    gen = generated / "book" / "generated"
    dash = (gen / "dashboard.md").read_text()
    assert '<a href="nb_one.html#claim-a-tx">A-TX · Table X</a>' in dash
    assert "{bdg-success}`holds`<br>10 of 10 cells match" in dash
    assert "{bdg-warning}`imprecise`" in dash and "{bdg-danger}`false`" in dash
    # every ledger claim is on the dashboard, the unchecked ones with their reason
    assert "not checked: it compares other methods' features in words" in dash
    assert 'data-status="not checkable"' in dash and 'class="rb-filter"' in dash
    summary = (gen / "summary.md").read_text()
    assert "**11 claims**" in summary and "**2 errata**" in summary
    # every status is counted on the summary line, not only the first (a spent generator did)
    assert "{bdg-danger}`false` 1" in summary and "{bdg-warning}`imprecise` 1" in summary
    assert "3 of 7 cells match" in summary and "errata B-E1" in summary
    assert summary.index("Claims that are false (1)") < summary.index("or imprecise (1)")
    assert "Each stated result of the sources is one claim" in summary
    # the false and imprecise claims stay open, the rest is counted and folded; every claim's
    # id links to its dashboard row (reader report, item 7)
    false = summary.index("Claims that are false (1)")
    fold = summary.index("::::{dropdown}", false)  # the fold of the same source follows
    folded = summary[fold:summary.index("\n::::\n", fold)]
    assert "Claims that are false" not in folded and "{bdg-secondary}`not checkable`" in folded
    assert "  - {bdg-success}`holds`" not in summary[:summary.index("::::{dropdown}")]
    assert summary.count("::::{dropdown}") == summary.count("\n::::\n")
    assert '<a href="generated/dashboard.html#claim-a-tx" title="This claim on the dashboard">A-TX</a>' in summary
    assert "not checked: it compares other methods' features in words" in summary
    sources = (gen / "sources.md").read_text()
    assert sources.index("**Paper A**") < sources.index("**Paper B**")
    assert "[Paper B](paper_b.md)" in sources and "3 claims" in sources
    chapter_b = (gen / "summary_paper_b.md").read_text()
    assert "**3 claims**" in chapter_b and "Table X" not in chapter_b
    errata = (gen / "errata.md").read_text()
    assert ":class: errata-summary" in errata and "| Paper B |" in errata
    # a slip is counted under a column that says so, as the page's section does (item 8)
    slip = {"id": "B-E7", "claim": "B-FY", "paper": "B", "where": "Eq. 2", "kind": "typo",
            "severity": "holds", "finding": "f", "evidence": "e", "notebook": "nb_two"}
    page = site.errata_markdown([slip])
    header = next(line for line in page.splitlines() if line.startswith("| Source |"))
    assert "slip (no verdict change)" in header and "| holds |" not in header
    assert "## Slips that do not change the verdict (1)" in page
    assert "(data/claims/)" not in dash
    assert "(erratum-b-e1)=" in errata and "**B-E1 · Paper B, Eq. 13** (typo)" in errata
    assert r"TP\*TN - FP\*FN" in errata  # no Markdown emphasis eats the products
    assert "- line one\n- line two" in errata
    assert 'Belongs to the claim <a href="nb_two.html#claim-b-fy">B-FY · Figure Y</a>' in errata
    csv_text = (gen / "claims.csv").read_text()
    assert csv_text.splitlines()[0].startswith("id,paper,where")
    assert "B-FY" in csv_text and "B-E1" in csv_text and "B-TI" in csv_text


def test_pages_change_when_a_notebook_output_changes(generated, monkeypatch):
    site.write_generated_pages(generated)
    gen = generated / "book" / "generated"
    before = (gen / "summary.md").read_text()
    monkeypatch.setenv("RANKBOOK_OUTPUT_DIR", str(gen / "nb_two"))
    _result("Figure Y", "B", "noise", 7, 7)
    # the erratum of severity imprecise now contradicts a claim that holds: the build says so
    with pytest.raises(ValueError, match="milder than its erratum"):
        site.write_generated_pages(generated)
    errata = json.loads((gen / "nb_two" / "errata.json").read_text())
    (gen / "nb_two" / "errata.json").write_text(json.dumps([e for e in errata if e["id"] != "B-E1"]))
    write_ledger(generated, b=LEDGER_B.replace('id = "B-E1"\nclaim = "B-FY"\nwhere = "Eq. 13"\nkind = "typo"\nseverity = "imprecise"',
                                               'id = "B-E1"\nclaim = "B-FY"\nwhere = "Eq. 13"\nkind = "typo"\nseverity = "holds"'))
    monkeypatch.setenv("RANKBOOK_OUTPUT_DIR", str(gen / "nb_two"))
    _erratum("B-E1")
    site.write_generated_pages(generated)
    after = (gen / "summary.md").read_text()
    assert after != before
    assert "{bdg-success}`holds within tolerance`" in after


def test_status_rule():
    assert outputs.status_for("exact", 4, 4) == "holds"
    assert outputs.status_for("noise", 4, 4) == "holds within tolerance"
    assert outputs.status_for("exact", 1, 4) == "imprecise"
    assert outputs.status_for("noise", 0, 4) == "not reproduced"
    assert outputs.status_for("claim", holds=True) == "holds"
    assert outputs.status_for("claim", 3, 4) == "false"
    assert outputs.status_for("none") == "not checkable"
    assert outputs.status_for("unavailable") == "not checkable"
    assert outputs.status_for("definition") == "true by definition"
    # "holds" from numbers only when published numbers existed and all matched
    for comparison, m, t in itertools.product(outputs.COMPARISONS, range(4), range(1, 4)):
        if m > t:
            continue
        try:
            status = outputs.status_for(comparison, m, t)
        except ValueError:
            continue
        if comparison in ("exact", "noise"):
            assert (status in ("holds", "holds within tolerance")) == (m == t)
            assert (status == "imprecise") == (0 < m < t)
    with pytest.raises(ValueError, match="compares nothing"):
        outputs.status_for("none", 1, 2)
    with pytest.raises(ValueError, match="contradicts"):
        outputs.status_for("claim", 1, 2, holds=True)


def test_a_stale_status_fails_the_build(generated):
    path = generated / "book" / "generated" / "nb_one" / "results.json"
    records = json.loads(path.read_text())
    records[0]["status"] = "imprecise"
    path.write_text(json.dumps(records))
    with pytest.raises(ValueError, match="status rule gives 'holds'"):
        site.write_generated_pages(generated)


def test_the_build_lists_every_disagreement_with_the_ledger(generated):
    gen = generated / "book" / "generated"
    site.write_generated_pages(generated)
    # a checked claim without evidence
    (gen / "nb_one" / "results.json").write_text("[]")
    with pytest.raises(ValueError, match="A-TX: its page nb_one recorded no evidence"):
        site.write_generated_pages(generated)
    # a section the page does not have
    _notebooks(generated, "nb_one")
    nb = generated / "notebooks" / "nb_one.ipynb"
    nb.write_text(nb.read_text().replace("## The table", "## Another heading"))
    with pytest.raises(ValueError, match="section 'The table' is no heading of nb_one"):
        site.write_generated_pages(generated)


def test_records_are_validated(ledger_root, monkeypatch):
    tmp_path = ledger_root
    monkeypatch.setenv("RANKBOOK_OUTPUT_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="unknown comparison"):
        _result("x", "A", "fine")
    with pytest.raises(ValueError, match="matched=8 must lie in 0..total=7"):
        _result("x", "A", "exact", 8, 7)
    with pytest.raises(ValueError, match="unknown claim id 'not in the ledger'"):
        _result("not in the ledger", "A", "exact", 1, 1)
    with pytest.raises(ValueError, match="needs both a caption and alt text"):
        outputs.save_figure(object(), "fig", caption="", alt="")
    with pytest.raises(ValueError, match="not a plain file stem"):
        outputs.save_table(None, "../escape", title="t")
    # re-recording the same artifact replaces it instead of duplicating it
    _result("x", "A", "exact", 1, 2)
    _result("x", "A", "exact", 2, 2)
    assert len(json.loads((tmp_path / "results.json").read_text())) == 1


def _page(*cells):
    nb = nbformat.v4.new_notebook(cells=list(cells))
    return nb


def test_present_folds_code_drops_raw_values_and_leads_with_the_verdict():
    code = nbformat.v4.new_code_cell("x = 1\nx")
    code.outputs = [
        nbformat.v4.new_output("execute_result", data={"text/plain": "PosixPath('/x/.stage-1')"}),
        nbformat.v4.new_output("display_data", data={"text/html": "<b>t</b>",
                                                     "text/plain": "t"}),
        nbformat.v4.new_output("stream", name="stderr", text="a warning"),
    ]
    shown = nbformat.v4.new_code_cell("consensus.kappa(R)")
    shown.metadata["tags"] = ["show-input"]
    nb = _page(nbformat.v4.new_markdown_cell("# Title\n\nFraming.\n\nMore text."), code, shown)
    rec = {"id": "A-T1", "artifact": "Table 1", "paper": "A", "claim": "a claim", "published": "1",
           "reproduced": "1", "status": "holds", "matched": 1, "total": 1, "unit": "cells",
           "detail": "why", "section": "The table"}
    present.present(nb, [rec], provenance="PROVENANCE")
    sources = [c.source for c in nb.cells]
    assert sources[0].strip() == "# Title\n\nFraming."
    assert ":class: verdict" in sources[1] and "[A-T1 · Table 1](#the-table)" in sources[1]
    assert sources[2] == "More text." and sources[-1] == "PROVENANCE"
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    assert code_cells[0].metadata["tags"] == ["hide-input"]
    assert [o.get("output_type") for o in code_cells[0].outputs] == ["display_data"]
    assert code_cells[1].metadata["tags"] == ["show-input"]
    too_many = _page(*[nbformat.v4.new_code_cell("x") for _ in range(3)])
    for c in too_many.cells:
        c.metadata["tags"] = ["show-input"]
    with pytest.raises(ValueError, match="at most 2 open"):
        present.present(too_many)


def test_slugs_match_myst():
    from myst_parser.mdit_to_docutils.base import default_slugify

    for title in ["The yes/no rows", "Which k gives the published row?",
                  "Table 2, rob II row vs Proposition 6.2", "Published beside recomputed"]:
        assert present.slugify(title) == default_slugify(title)


def test_split_figures_keep_their_outputs_visible_to_myst_nb():
    """A figure gets a code cell of its own; myst-nb drops a cell whose source is blank,
    outputs included, so every cell that carries outputs must have some source."""
    code = nbformat.v4.new_code_cell("fig = plot()\nsave_figure(fig)\ntable")
    code.outputs = [
        nbformat.v4.new_output("display_data", data={"text/markdown": "before"}),
        nbformat.v4.new_output("display_data", data={"image/png": "iVBOR"},
                               metadata={present.FIGURE_KEY: {"name": "f", "caption": "c", "alt": "a"}}),
        nbformat.v4.new_output("display_data", data={"text/markdown": "after"}),
    ]
    nb = _page(nbformat.v4.new_markdown_cell("# Title\n\nFraming."), code)
    present.present(nb)
    carrying = [c for c in nb.cells if c.cell_type == "code" and c.outputs]
    assert len(carrying) == 3 and all(c.source.strip() for c in carrying)
    figure = next(c for c in carrying if "mystnb" in c.metadata)
    assert figure.metadata["mystnb"]["figure"]["caption"] == "c"
    assert figure.metadata["tags"] == ["remove-input", "rankbook-figure"]


def test_statements_are_graded_as_claims(ledger_root, monkeypatch):
    tmp_path = ledger_root
    """One grading rule: a set of statements is a claim (it holds only when all hold), never
    "partly" (issue 19: Figure 4's 5 of 6 statements and the notes' 3 of 6 got two statuses)."""
    monkeypatch.setenv("RANKBOOK_OUTPUT_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="graded with comparison='claim'"):
        _result("Figure 4", "A", "exact", 5, 6, unit="statements")
    with pytest.raises(ValueError, match="must name them"):
        _result("Figure 4", "A", "claim", 5, 6, unit="statements")
    rec = _result("Figure 4", "A", "claim", 5, 6, unit="statements",
                  failures=["Bing's curve falls faster"])
    assert rec["status"] == "false"
    assert outputs.count_phrase(rec) == "fails for 1 of 6 statements: Bing's curve falls faster"
    rec = _result("Proposition 6.2", "A", "claim", 32, 33, unit="metrics", failures=["SMAPE"])
    assert outputs.count_phrase(rec) == "fails for 1 of 33 metrics: SMAPE"
    assert "32" not in outputs.count_phrase(rec)  # never a count of successes for a false claim
    with pytest.raises(ValueError, match="lists failures but its status is 'holds'"):
        _result("Lemma", "A", "claim", 3, 3, unit="cases", failures=["x"])
    with pytest.raises(ValueError, match="names 2 failures but only 1"):
        _result("Lemma", "A", "claim", 2, 3, unit="cases", failures=["x", "y"])


def test_counts_over_seeds_are_the_median_with_their_range(ledger_root, monkeypatch):
    tmp_path = ledger_root
    monkeypatch.setenv("RANKBOOK_OUTPUT_DIR", str(tmp_path))
    seeds = [139, 144, 149, 140, 147, 150, 141, 146, 143, 145, 148]
    with pytest.raises(ValueError, match="not the median 145"):
        _result("Table 2", "A", "noise", 149, 198, per_seed=seeds)
    rec = _result("Table 2", "A", "noise", 145, 198, per_seed=seeds)
    assert outputs.count_phrase(rec) == "median 145 of 198 cells match (139–150 over 11 seeds)"
    assert outputs.allowed_counts(rec) >= set(seeds) | {145, 53}


def test_readings_are_named_with_the_count_under_each(ledger_root, monkeypatch):
    tmp_path = ledger_root
    monkeypatch.setenv("RANKBOOK_OUTPUT_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="need reading="):
        _result("rob II", "A", "exact", 27, 33, unit="symbols", alternatives={"B": 33})
    rec = _result("rob II", "A", "exact", 28, 33, unit="symbols", reading="uniform",
                  alternatives={"mixed": 27, "B": 33})
    box = present.verdict_markdown([rec])
    assert "reading: uniform" in box and "other readings: mixed: 27 of 33; B: 33 of 33" in box
    assert site.count_conflicts("the row agrees on 27 of 33 symbols, 33 of 33 under B", [rec]) == []
    assert site.count_conflicts("the row agrees on 26 of 33 symbols", [rec])


def test_one_count_per_artifact():
    rec = {"artifact": "Table 2, stability row", "matched": 28, "total": 33, "unit": "symbols",
           "comparison": "exact"}
    assert site.count_conflicts("stability: 28 of 33 agree; 5 of 33 differ", [rec]) == []
    bad = site.count_conflicts("inside the yes/no rows the stability row counts 16 of 33", [rec])
    assert len(bad) == 1 and "16 of 33" in bad[0]
    assert site.count_conflicts("3 of 7 bins", [rec]) == []  # another total: not this artifact
    assert site.count_conflicts("6 of 33 cells", [rec]) == []  # another unit: not this artifact


def test_a_false_claim_needs_its_erratum_and_the_verdict_links_it(generated):
    gen = generated / "book" / "generated"
    site.write_generated_pages(generated)
    rec = next(r for r in json.loads((gen / "nb_two" / "results.json").read_text())
               if r["id"] == "B-EZ")
    err = json.loads((gen / "nb_two" / "errata.json").read_text())
    box = present.verdict_markdown([rec], errata=err)
    assert "{ref}`B-E2 <erratum-b-e2>`" in box and '<span id="claim-b-ez"></span>' in box
    # without its erratum, a false claim fails the build
    (gen / "nb_two" / "errata.json").write_text(json.dumps([e for e in err if e["id"] != "B-E2"]))
    with pytest.raises(ValueError, match="B-EZ: status 'false' but no recorded erratum"):
        site.write_generated_pages(generated)


def test_the_same_erratum_from_two_pages_is_listed_once(generated, monkeypatch):
    gen = generated / "book" / "generated"
    _notebooks(generated, "nb_vi")
    monkeypatch.setenv("RANKBOOK_OUTPUT_DIR", str(gen / "nb_vi"))
    _erratum("B-E1")
    site.write_generated_pages(generated)
    errata = (gen / "errata.md").read_text()
    assert errata.count("(erratum-b-e1)=") == 1
    assert "nb_two.ipynb" in errata and "nb_vi.ipynb" in errata


def test_the_lead_figure_and_its_explorer_move_up_with_a_pointer_left_behind():
    """Issue 20: a page's main figure sits near its start; the explorer after it moves along."""
    import nbformat

    def figure(name, caption):
        cell = nbformat.v4.new_code_cell(f"# figure {name}")
        cell.metadata["tags"] = ["remove-input", "rankbook-figure"]
        cell.metadata["mystnb"] = {"figure": {"caption": caption, "name": f"fig-{name}_x"}}
        return cell

    explorer = nbformat.v4.new_code_cell("explorer.show(...)")
    explorer.outputs = [nbformat.v4.new_output(
        "display_data", data={"text/markdown": "::::{div} rankbook-explorer\n::::"})]
    cells = [nbformat.v4.new_markdown_cell("# Title\n\nFraming.")]
    cells += [nbformat.v4.new_markdown_cell(f"## Part {i}") for i in range(5)]
    cells += [figure("a", "A side figure."), figure("b", "Paper B, Figure 3, recomputed: $\\kappa_p$ against $\\lambda$; two curves."),
              explorer]
    nb = _page(*cells)
    present.present(nb, [{"id": "B-F3", "artifact": "Figure 3", "paper": "B", "claim": "c",
                          "published": "p", "reproduced": "r", "status": "not checkable", "matched": None,
                          "total": None, "unit": "curves", "detail": "", "section": None}])
    tags = [c.metadata.get("tags", []) for c in nb.cells]
    at = next(i for i, t in enumerate(tags) if "rankbook-verdict" in t)
    moved = nb.cells[at + 1]
    assert moved.metadata["mystnb"]["figure"]["caption"].startswith("Paper B, Figure 3")
    assert "rankbook-explorer" in nb.cells[at + 2].outputs[0]["data"]["text/markdown"]
    assert any("rankbook-figure-pointer" in t for t in tags)
    # the pointer gives the whole caption (not one cut at its first colon) and links the figure
    pointer = next(c for c, t in zip(nb.cells, tags) if "rankbook-figure-pointer" in t).source
    assert "recomputed: $\\kappa_p$ against $\\lambda$; two curves." in pointer
    assert '<a href="#fig-b-x">near the top of the page</a>, with its explorer' in pointer


def test_rerun_box_lists_parameters_constraints_and_a_valid_example(tmp_path):
    """Issue 20: the rerun box of every notebook names each parameter with its default and the
    constraints between parameters, and its example command passes the notebook's checks."""
    import shlex

    from rankbook.book import specs

    for spec in specs.discover():
        box = present.rerun_markdown(spec)
        assert ":class: dropdown rerun" in box
        for name, p in spec.parameters.items():
            assert f"| `{name}` |" in box
            if p.constraint.get("lt") or p.constraint.get("le"):
                assert f"`{name}` must be" in box
        example = present.example_overrides(spec)
        assert example, f"{spec.name}: no example that changes a parameter"
        cmd = shlex.split(present.command_for(spec.name, example))
        pairs = [(cmd[i + 1], cmd[i + 2]) for i, tok in enumerate(cmd) if tok == "-p"]
        specs.resolve_parameters(spec, pairs)  # raises ParameterError when the example is refused


def test_landing_page_defines_its_words_before_the_status_list():
    """Reader report, item 5: "reading", "other readings" and "borderline" are defined under
    How to read it, which comes before the status list that uses them; every source, the tool
    issues included, is introduced (item 9)."""
    from pathlib import Path

    intro = (Path(__file__).resolve().parents[1] / "book" / "intro.md").read_text()
    how, status = intro.index("## How to read it"), intro.index("## Reproduction status")
    assert how < status
    for word in ("reading", "other readings", "borderline"):
        assert intro.index(f"**{word}**:", how) < status, word
    sources = intro[intro.index("## The sources"):how]
    assert "generated/sources.md" in sources  # every source of the ledger, from its [source] table
    from rankbook.ledger import claims

    book = claims.load_ledger(Path(__file__).resolve().parents[1])
    assert all(s.about for s in book.sources.values()), "each source says what the book takes from it"


def test_plain_subscripts_read_as_maths_and_links_keep_them():
    """Reader report, item 20: ``κ_p``, ``d_ρ``, ``f_r`` beside maths are maths too."""
    from rankbook.book import present

    assert present.md_escape("Section III, the footrule d_ρ") == r"Section III, the footrule $d_{\rho}$"
    assert present.md_escape(r"user a\_1") == r"user a\_1"  # escaped user text stays literal
    assert "reads_nu_only" in present.md_escape("reads_nu_only")
    link = site._claim_link({"id": "B-X", "where": "κ_p & d_τ", "notebook": "nb"})
    assert r'<span class="math notranslate nohighlight">\(\kappa_{p}\)</span> &amp;' in link


def test_ledger_text_reaches_pages_as_literal_text(generated):
    """Issue 37: a claim worded with a MyST role published a project file; the ledger's words
    are text on every page (verdict box, dashboard, summary, errata), its maths still maths."""
    ledger = generated / "data" / "claims" / "A.toml"
    ledger.write_text(ledger.read_text().replace(
        'claim = "claim of Table X"',
        'claim = "claim of Table X, see {download}`notes </.gitignore>` and {{ x }} with $\\\\mathcal{R}_c$"'))
    site.write_generated_pages(generated)
    gen = generated / "book" / "generated"
    for page in ("dashboard.md", "summary.md"):
        rows = [line for line in (gen / page).read_text().splitlines() if "claim of Table X" in line]
        for text in rows:  # the page's own download link is a role, on purpose
            assert "{download}`" not in text and "\\{download\\}" in text, page
            assert "{{ x }}" not in text and "$\\mathcal{R}_c$" in text, page
    from rankbook.ledger import claims as _claims

    rec = _claims.worded(json.loads((gen / "nb_one" / "results.json").read_text())[0],
                         _claims.load_ledger(generated))
    box = present.verdict_markdown([rec])
    assert "{download}`" not in box and "\\{download\\}" in box
