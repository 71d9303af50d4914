"""The page "RBO implementations compared" (rankbook.papers.tools.rbo_compare): each peer's
numbers are the formula the page says it computes, ranked-overlap's published numbers, and the
behaviour when a peer is missing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankbook import rbo as R
from rankbook.ledger import claims
from rankbook.ledger.paths import data_path
from rankbook.papers.tools import rbo_compare as C

from shared_sources import shared_file

#: Two values agree within the tolerance of the tools ledger's claim on the extrapolated RBO.
TOLERANCE = claims.ledger().claim("T-RBO-ext").params["tolerance"]


@pytest.fixture(scope="module")
def committed():
    return C.load_vectors(data_path("published", "corsi_urbano", "rbo_test_vectors.csv"))


def test_ranked_overlap_prints_what_its_readme_says_and_why_it_differs():
    pub = pd.read_csv(data_path("published", "rbo_implementations", "ranked_overlap_readme.csv"), comment="#")
    ro = pytest.importorskip("ranked_overlap")
    for _, row in pub.iterrows():
        a = [int(v) for v in row["first"].split()]
        b = [int(v) for v in row["second"].split()]
        assert ro.rbo(a, b, p=row["p"]) == pytest.approx(row["printed"], abs=1e-10)
        assert C.ext_without_short_list(a, b, row["p"]) == pytest.approx(row["printed"], abs=1e-12)
    # the README example is of unequal length: Webber's RBO_ext (the reference) is 0.9452
    readme = pub[pub["source"] == "README"].iloc[0]
    a, b = readme["first"].split(), readme["second"].split()
    assert round(R.rbo_ext(a, b, 0.9), 4) == 0.9452


def test_every_peer_is_its_explaining_formula_on_the_committed_vectors(committed):
    values = C.vector_values(committed)
    summary = C.summary_table(values, tolerance=TOLERANCE).set_index("implementation")
    assert list(summary.index) == list(C.IMPLEMENTATIONS)
    assert (summary["version"] != "not installed").all()
    assert (summary["largest difference from it"] <= 1e-12).all()
    # Webber's RBO_ext: rankbook and the rbo package everywhere; the others differ somewhere
    assert summary.loc["rankbook rbo_ext", "largest difference"] <= TOLERANCE
    assert summary.loc["rbo: RankingSimilarity.rbo_ext", "largest difference"] <= TOLERANCE
    for name in C.IMPLEMENTATIONS[2:]:
        assert summary.loc[name, "largest difference"] > 0.01, name


def test_on_the_authors_vectors(tmp_path):
    vectors = C.load_vectors(shared_file("sources", "corsi-urbano-2024", "rbo-test.csv"), 400)
    ref = C.reference_table(vectors)
    assert int(ref["agree"].sum()) == 12 * 400
    values = C.vector_values(vectors)
    summary = C.summary_table(values, tolerance=TOLERANCE).set_index("implementation")
    assert (summary["largest difference from it"] <= 1e-12).all()
    # a value of Webber's RBO_ext on an order of the ties lies in [RBO^low, RBO^high]
    assert summary.loc["rankbook rbo_ext", "inside the tie range"] == "400 of 400"
    # equal lengths: ranked-overlap and rbo(ext=True) are RBO_ext; unequal: they are not
    eq = values["equal lengths"]
    for name in ("ranked-overlap: rbo", "rbo: RankingSimilarity.rbo(ext=True)"):
        assert np.allclose(values.loc[eq, name], values.loc[eq, "reference"], atol=1e-12, rtol=0)
        assert not np.allclose(values.loc[~eq, name], values.loc[~eq, "reference"], atol=1e-3, rtol=0)
    lines = C.findings(summary.reset_index(), C.examples_table(0.9), ref, C.tie_range_table(vectors, values, 0.05),
                       tolerance=TOLERANCE)
    assert lines[0].startswith("rankbook's tie-aware RBO equals the authors' reference on 4,800 of 4,800")
    assert any("`ranked-overlap: rbo` (0.1.0)" in s and "0.8854 where $\\mathrm{RBO}_{\\mathrm{ext}}$ is 0.9452" in s for s in lines)


def test_ir_measures_public_measure_is_the_function_compared():
    """The page calls the RBO function of ir_measures' Compat measure directly; through the
    public measure (qrels ranking the second list, the run the first, no normalisation) the
    values are the same."""
    ir_measures = pytest.importorskip("ir_measures")
    for S, T in (("abcdefg", "zcavwxy"), ("NHMACFL", "CGNA"), ("abcde", "abcdefghij")):
        qrels = {"q": {x: len(T) - i for i, x in enumerate(T)}}
        run = {"q": {x: float(len(S) - i) for i, x in enumerate(S)}}
        measure = ir_measures.Compat(p=0.9, normalize=False)
        public = ir_measures.calc_aggregate([measure], qrels, run)[measure]
        assert public == pytest.approx(C._ir_measures(list(S), list(T), 0.9), abs=1e-15)


def test_repro_eval_default_persistence_is_0_95():
    repro_eval = pytest.importorskip("repro_eval")
    assert repro_eval.RBO_P == 0.95 and repro_eval.RBO_DEPTH == 1000


def test_a_missing_peer_is_named_not_skipped(monkeypatch, committed):
    real = C._missing
    monkeypatch.setattr(C, "_missing", lambda dist, module: "x is not installed" if dist == "ranked-overlap" else real(dist, module))
    impls = C.implementations()
    missing = [i for i in impls if i.call is None]
    assert [i.name for i in missing] == ["ranked-overlap: rbo"] and missing[0].missing
    summary = C.summary_table(C.vector_values(committed, impls), impls, tolerance=TOLERANCE)
    assert summary.set_index("implementation").loc["ranked-overlap: rbo", "version"] == "not installed"
    lines = C.findings(summary, C.examples_table(0.9, impls), C.reference_table(committed), tolerance=TOLERANCE)
    assert "`ranked-overlap: rbo`: not installed, so not compared." in lines


def test_a_file_that_is_not_the_reference_vectors(tmp_path):
    path = tmp_path / "v.csv"
    path.write_text("x,y,p\na b,b a,0.9\n")
    with pytest.raises(ValueError, match="lacks the columns"):
        C.load_vectors(path)


def test_the_page_claims_through_the_ledger(committed):
    """The page's findings are claims of the tools ledger: rankbook equals the authors' values,
    the two peers that stop extrapolating at the shorter list are imprecise with their formula
    named, repro_eval's RBO is Clarke et al.'s truncated one, and ranked-overlap's README example
    is not the extrapolated RBO of its lists (0.8854 printed, 0.9452)."""
    impls = C.implementations()
    values = C.vector_values(committed, impls)
    ref = claims.check("T-RBO-ref", vectors=committed)
    assert ref.status == "holds" and ref.total == 12 * len(committed)
    ext = claims.check("T-RBO-ext", vectors=committed, values=values, impls=impls)
    assert ext.status == "imprecise" and ext.total == 3 * len(committed)
    book = claims.ledger()
    roles = {book.errata[f.id].role if book.errata[f.id].claim == "T-RBO-ext" else "confirmed" for f in ext.findings}
    assert roles == {"cut_to_shorter", "confirmed"}
    rep = claims.check("T-RBO-repro", vectors=committed, values=values, impls=impls)
    assert rep.status == "false" and rep.failures
    assert {book.errata[f.id].role for f in rep.findings} == {"clarke_truncated", "rbo_default"}
    assert rep.values["defaults"][0] == book.claim("T-RBO-repro").params["readme_p"]
    readme = claims.check("T-RBO-readme", impls=impls)
    assert (readme.status, readme.matched, readme.total) == ("imprecise", 1, 2)
    assert "0.9452" in readme.reproduced and "0.8853713875" in readme.published
    # the installed package prints what its documentation says, the other reading
    assert list(readme.alternatives.values()) == [2]


def test_vectors_source_falls_back_to_the_committed_file(tmp_path, monkeypatch):
    committed = claims.ledger().claim("T-RBO-ref").path("vectors")
    monkeypatch.setenv("RANKBOOK_SHARED", str(tmp_path))
    path, text = C.vectors_source("shared", committed, "nowhere/rbo-test.csv")
    assert path == committed and "not found" in text
    with pytest.raises(ValueError, match="choose one of"):
        C.vectors_source("elsewhere", committed, "")
