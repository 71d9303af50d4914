"""The page modules of the scoring chapter (rankbook.papers.scoring) and the benchmarks page.

The mutation test (tests/test_claims.py) proves each check can fail; these tests pin what the
checks compute against independent arithmetic: the notes' closed forms of RBO against the
library on random prefixes, the rankDCG table's two readings, the Kendall distance's readings,
and the benchmarks page on a missing and a present results file.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook import rbo as R
from rankbook.book import benchmarks_page
from rankbook.ledger import claims
from rankbook.papers.scoring import rankdcg as D
from rankbook.papers.scoring import rbo as M
from rankbook.papers.scoring import tour as T


@st.composite
def prefixes(draw):
    k = draw(st.integers(1, 6))
    pool = list(range(2 * k))
    s = draw(st.permutations(pool))[:k]
    t = draw(st.permutations(pool))[:k]
    return list(s), list(t)


@settings(max_examples=40, deadline=None)
@given(prefixes(), st.sampled_from([0.3, 0.7, 0.9, 0.97]))
def test_the_notes_closed_forms_equal_the_library_bounds(pair, p):
    s, t = pair
    X = R.overlaps(s, t)
    assert M.printed_rbo_min(p, X) == pytest.approx(R.rbo_min(s, t, p), abs=1e-12)
    assert M.printed_rbo_res(p, X) == pytest.approx(R.rbo_res(s, t, p), abs=1e-12)


@pytest.mark.parametrize("p", [0.5, 0.9, 0.98])
@pytest.mark.parametrize("d", [1, 2, 7, 40])
def test_prefix_weight_three_ways(p, d):
    assert M.printed_weight(p, d) == pytest.approx(M.direct_weight(p, d, 1e-18), abs=1e-12)
    assert M.printed_weight(p, d) == pytest.approx(float(R.rbo_weight(p, d)), abs=1e-12)


def test_overlap_example_is_read_from_its_data_file():
    claim = claims.ledger().claim("N-RBO-ex")
    ex = M.read_overlap_example(claim.path("example"))
    assert ex["S"][:ex["depth"]] and ex["depth"] == min(len(ex["S"]), len(ex["T"]))
    assert claims.check("N-RBO-ex").matched == 2


def test_rankdcg_table_is_graded_against_the_printed_formulas():
    ev = claims.check("R-TR")
    assert (ev.status, ev.total) == ("imprecise", 24)
    assert ev.alternatives[D.READINGS["reproducing"]] == 24
    assert {f.id for f in ev.findings} == {f"R-E{i}" for i in range(1, 8)}
    # the printed normalisation is one minus the corrected one
    printed = D.printed_table(ev.values["reference"], ev.values["hypotheses"])
    ours = ev.tables["ours"]["rankDCG"].to_numpy()
    assert np.allclose(printed["rankdcg"].to_numpy(), 1 - ours)


def test_relative_relevance_by_hand():
    assert D.relative_relevance([9, 4, 4, 2, 2, 2, 1, 1, 1, 1]) == (
        [4, 3, 3, 2, 2, 2, 1, 1, 1, 1], [1, 2, 2, 3, 3, 3, 4, 4, 4, 4])


def test_kendall_distance_reaches_one_exactly_when_the_tops_cover_every_item():
    for n in range(2, 6):
        for k in range(1, n):
            best = T._kt_max(n, k, "items", T.ir.kendall_tau_distance_at_k)
            if 2 * k >= n:
                assert best == pytest.approx(1.0)
            else:
                assert best == pytest.approx(2 * k * (2 * k - 1) / (n * (n - 1)))


def test_ndpm_distance_counts_pairs_by_hand():
    assert T._ndpm_distance([3, 2, 1], [1, 2, 3]) == 6
    assert T._ndpm_distance([3, 2, 1], [1, 1, 1]) == 3
    assert T._ndpm_distance([2, 1, 1], [1, 2, 1]) == 3  # (a,b) reversed, (a,c) tied; (b,c) not ordered


def test_fcp_check_is_an_equivalence_test_that_reports_its_seeds():
    ev = claims.check("N-FCP", n_users=400, seed=1995, n_seeds=3)
    assert ev.seeds_passed == (ev.matched, 3)
    far = claims.check("N-FCP", n_users=400, seed=1995, n_seeds=3, reading="ties discordant")
    assert far.status == "false" and far.failures


def test_the_ideal_order_is_the_best_by_brute_force():
    """The notes' IDCG is the largest DCG: brute force over every order agrees with
    rankbook.ir.dcg of the sorted grades, and the check catches an ideal sorted the wrong way."""
    claim = claims.ledger().claim("N-IDCG-max")
    ev = claims.check("N-IDCG-max", max_items=3)
    assert ev.status == "holds" and ev.total == 2 * (4 + 10 + 20)
    bad = claims.check("N-IDCG-max", max_items=3, ideal=lambda g: sorted(g))
    assert bad.status == "false" and bad.failures
    assert T._all_dcgs((2, 0, 1), "linear").max(axis=0)[-1] == pytest.approx(T.ir.dcg([2, 1, 0]))
    assert claim.params["levels"] == 3


def test_every_tour_statement_runs_on_the_page_parameters():
    """The tour calls every check of its page with the page's parameters: each takes the ones it
    needs, and the statements of the notes come before those of the blog note."""
    book = claims.ledger()
    page = dict(relevance=[0, 0, 0], unreturned=[2], k=2, n_users=200, seed=0, n_seeds=1)
    mine = sorted(book.for_page("ir_metrics_tour"), key=lambda c: book.order(c.source))
    evidence = [claims.run_check(c, T.page_arguments(c, **page)) for c in mine]
    table = T.statements_table(evidence)
    assert list(table["source"].drop_duplicates()) == ["Notes", "LTR note"]
    assert "not checkable" not in set(table["status"])


def test_benchmarks_page_without_and_with_a_results_file(tmp_path):
    report, doc, path = benchmarks_page.load(tmp_path / "missing.json")
    assert doc is None and benchmarks_page.headline(doc, report) == []
    assert "missing" in benchmarks_page.run_table(doc, "missing.json")["value"].iloc[1]
    report, doc, path = benchmarks_page.load("benchmarks/fixtures/results_quick.json")
    table = benchmarks_page.run_table(doc, path)
    assert {"results file", "run", "commit", "timing"} <= set(table["item"])
    if "agreement" in doc["cases"]:
        agreement, title = benchmarks_page.agreement_table(doc, report)
        assert "by construction" in " ".join(agreement["quantity"])
    assert len(benchmarks_page.headline(doc, report)) == 2


def test_benchmarks_page_opens_with_a_verdict_box_and_one_value_per_target():
    """Reader report item 16: the count of targets met sits in a verdict box at the top; a
    target's limit reads as its description states it (1.7x, not 2x); no raw True; the rerun
    help of a page whose example only changes an input file does not speak of small values or
    the paper's setting."""
    from rankbook.book import present, specs

    report, doc, path = benchmarks_page.load("benchmarks/results.json")
    box = benchmarks_page.headline(doc, report)[0]
    assert box.startswith(":::{admonition} Verdict") and "speed targets met" in box
    frame = report.targets_frame(doc)
    for t, limit in zip(doc["targets"], frame["limit"]):
        if t["unit"] == "x":
            assert limit == f"{t['threshold']:,g}x"
    sweep = [t for t in doc["targets"] if t["id"] == "sweep_speedup"]
    if sweep:
        assert f"{sweep[0]['threshold']:g}x" in sweep[0]["description"]
    if "agreement" in doc["cases"]:
        values = benchmarks_page.agreement_table(doc, report)[0]["value"].tolist()
        assert "True" not in values and "False" not in values
    spec = next(s for s in specs.discover() if s.name == "benchmarks")
    rerun = present.rerun_markdown(spec)
    assert "another input file" in rerun and "paper's setting" not in rerun


def test_a_page_without_records_keeps_its_own_verdict_box_above_the_lead_figure():
    """The benchmarks page writes its own verdict box (no ledger records); the lead figure,
    moved up by the presentation, goes after it, not before (reader report item 16)."""
    import nbformat

    from rankbook.book import present

    def code(outputs=(), tags=()):
        c = nbformat.v4.new_code_cell("x = 1")
        c.outputs = [nbformat.v4.new_output("display_data", data=d) for d in outputs]
        c.metadata["tags"] = list(tags)
        return c

    verdict = {"text/markdown": ":::{admonition} Verdict\n:class: verdict\n\n**3 of 4 met**\n:::\n"}
    figure = code([{"text/plain": "<Figure>"}], tags=["rankbook-figure"])
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title\n\nFraming."), code(tags=["parameters"]),
                code([verdict]), nbformat.v4.new_markdown_cell("## A"), code(), code(),
                nbformat.v4.new_markdown_cell("## B"), code(), figure]
    out = present.present(nb)
    where = {id(c): i for i, c in enumerate(out.cells)}
    box = next(i for i, c in enumerate(out.cells) if any(
        ":class: verdict" in str(o.get("data", {})) for o in c.get("outputs", [])))
    fig = next(i for i, c in enumerate(out.cells) if "rankbook-figure" in c.metadata.get("tags", []))
    assert box < fig < where.get(id(out.cells[-1]), len(out.cells))
    assert fig == box + 1
