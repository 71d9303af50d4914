"""Breuer et al., SIGIR 2020, appendix: transcriptions, recomputation, checks and mutants.

The checks are written against the ledger-driven API (``check(claim, **kwargs)`` reading
``claim.params``, ``claim.path(role)``, ``claim.evidence``, ``claim.finding``); until
``rankbook.ledger.claims.Claim`` exists, :class:`StandIn` plays it, built from
``data/claims/breuer2020.toml``. The authors' per-topic files are read through
:func:`rankbook.ledger.fetch.files` from the mirror ``../shared`` beside the project root (the
tests that need them skip when it is absent); nothing here uses the network.
"""

from __future__ import annotations

import importlib
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from rankbook import repro
from rankbook.ledger import claims as book_claims
from rankbook.ledger import fetch
from rankbook.papers.breuer2020 import data as bdata
from rankbook.papers.breuer2020 import figures, kendall, printed, tables
from rankbook.papers.breuer2020 import repro_eval_example as rx

ROOT = Path(__file__).absolute().parents[1]
PUB = ROOT / "data" / "published" / "breuer2020"
LEDGER = tomllib.loads((ROOT / "data" / "claims" / "breuer2020.toml").read_text())
SHARED = ROOT / "../shared/sources/breuer2020"

try:
    FOLDER = fetch.files("breuer2020", ROOT, download=False)
except fetch.DataUnavailable:
    FOLDER = None
needs_data = pytest.mark.skipif(FOLDER is None, reason="the appendix files are not available "
                                "(no mirror at ../shared, no cache)")


@dataclass
class StandIn:
    """What the tests need of ``rankbook.ledger.claims.Claim``."""

    id: str
    params: dict
    data: dict
    errata: dict = field(default_factory=dict)  # role -> erratum id
    root: Path = ROOT

    def path(self, role):
        if role not in self.data:
            raise ValueError(f"{self.id} has no data role {role!r}; roles: {sorted(self.data)}")
        spec = self.data[role]
        if spec.startswith("fetch:"):
            return fetch.files(spec[len("fetch:"):], self.root, download=False)
        return self.root / spec

    def evidence(self, **kwargs):
        return book_claims.Evidence(claim=self.id, **kwargs)

    def finding(self, role, evidence, **kwargs):
        if role not in self.errata:
            raise ValueError(f"{self.id}: no erratum of role {role!r}")
        return book_claims.Finding(id=self.errata[role], evidence=evidence, **kwargs)

    def has_finding(self, role):
        return role in self.errata


CLAIMS = {c["id"]: c for c in LEDGER["claims"]}
CHECKED = [c for c in LEDGER["claims"] if "check" in c]


def stand_in(cid: str, params: dict | None = None) -> StandIn:
    c = CLAIMS[cid]
    errata = {e["role"]: e["id"] for e in LEDGER["errata"] if e["claim"] == cid}
    return StandIn(cid, {**c.get("params", {}), **(params or {})}, dict(c.get("data", {})),
                   errata)


def run_check(cid: str, params: dict | None = None, **kwargs):
    mod, fn = CLAIMS[cid]["check"].split(":")
    return getattr(importlib.import_module(mod), fn)(stand_in(cid, params), **kwargs)


# ------------------------------------------------------------------------ transcriptions

@pytest.mark.parametrize("n, rows, cells", [(1, 21, 231), (2, 20, 120), (3, 20, 120)])
def test_every_printed_cell_is_transcribed_with_its_source(n, rows, cells):
    path = PUB / f"table_{n}.csv"
    head = "".join(line for line in path.read_text().splitlines(True) if line.startswith("#"))
    for must in ("irgroup/sigir2020-measure-reproducibility",
                 "8a44294f6b4e00acf4ad3182782c7e185035b5cc", f"Table {n}", "appendix",
                 "Transcribed"):
        assert must in head
    t = tables.read_published(path)
    assert len(t) == cells and t["row"].nunique() == rows
    assert t.groupby("row").size().nunique() == 1  # every row has all its cells
    for r in t.itertuples():
        printed.parse(r.printed)
        assert math.isclose(float(r.printed), r.value, rel_tol=1e-12)
    assert (t["printed"] == "54E-06").sum() == (n == 2)  # the printed typo is kept as printed


def test_the_transcription_agrees_with_the_appendix_text():
    text_path = SHARED / "appendix.txt"
    if not text_path.is_file():
        pytest.skip("no ../shared appendix text")
    text = text_path.read_text(encoding="utf-8").replace("\U0001d438\u2212", "E-")
    lines = text.splitlines()
    for n in (1, 2, 3):
        t = tables.read_published(PUB / f"table_{n}.csv")
        for run, g in t.groupby("run", sort=False):
            printed_line = " ".join([run, *g["printed"]])
            assert printed_line in lines, printed_line


def test_constellations_match_the_repository_readme():
    t = bdata.read_constellations(PUB / "constellations.csv")
    assert len(t) == 20 and set(t["family"]) == {"tf", "df", "tol", "C"}
    readme = SHARED / "repository-README.md"
    if readme.is_file():
        pairs = re.findall(r"\| rpl/rpd_(\w+_\d) \| (\d+) \|", readme.read_text())
        assert dict((a, int(b)) for a, b in pairs) == dict(zip(t["name"], t["constellation"]))


# ------------------------------------------------------------------------ printed numbers

STYLE = dict(decimals=3, switch=0.001, digits=1)


def test_shortening_rules_on_cells_of_the_appendix():
    assert printed.fixed(0.42326498, 4) == "0.4233"
    assert printed.p_value(0.0799662, "cut", **STYLE) == "0.079"
    assert printed.p_value(0.0799662, "round", **STYLE) == "0.080"
    assert printed.p_value(5.833503e-4, "cut", **STYLE) == "5E-04"
    assert printed.p_value(5.833503e-4, "round", **STYLE) == "6E-04"
    assert printed.p_value(9.9999e-5, "round", **STYLE) == "1E-04"
    assert printed.p_value(2.334325e-34, "cut", **STYLE) == "2E-34"
    assert printed.parse("54E-06")["mantissa"] == "54"
    with pytest.raises(ValueError, match="rule"):
        printed.fixed(0.5, 2, "banker")
    with pytest.raises(ValueError, match="not a printed number"):
        printed.parse("0,5")


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=1e-30, max_value=0.999, allow_nan=False))
def test_cut_never_exceeds_and_rounding_stays_within_half_a_unit(v):
    for rule in ("cut", "round"):
        s = printed.p_value(v, rule, **STYLE)
        unit = printed.parse(s)["unit"]
        if rule == "cut":
            assert float(s) <= v * (1 + 1e-12) and v - float(s) < unit * (1 + 1e-9)
        else:
            assert abs(float(s) - v) <= unit / 2 * (1 + 1e-9)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["0.7760", "5E-04", "0.046", "1", "54E-06", "3E-15"]),
       st.integers(min_value=-3, max_value=3))
def test_bump_moves_by_whole_units(s, k):
    moved = printed.bump(s, k)
    unit = printed.parse(s)["unit"]
    assert math.isclose(float(moved) - float(s), k * unit, rel_tol=1e-9, abs_tol=1e-30)


# ------------------------------------------------------------------------ the ledger

def test_the_ledger_draft_covers_every_table_figure_and_statement():
    ids = set(CLAIMS)
    assert {"BR-T1-arp", "BR-T1-corr", "BR-T1-rmse", "BR-T1-p", "BR-T2-arp", "BR-T2-p",
            "BR-T3-p", "BR-T3-low", "BR-F1a", "BR-F1b", "BR-F2a", "BR-F2b", "BR-F3a",
            "BR-F3b", "BR-tau-union", "BR-text-coherent", "BR-text-design"} <= ids
    src = LEDGER["source"]
    assert src["key"] == "breuer2020" and src["prefix"] == "BR"
    bib = (ROOT / "book" / "references.bib").read_text()
    assert f"@inproceedings{{{src['cite']}," in bib
    for c in LEDGER["claims"]:
        assert c["id"].startswith("BR-")
        assert ("check" in c) != ("reason" in c), c["id"]
        if "check" in c:
            names = re.findall(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}", c["rule"])
            assert names and set(names) <= set(c["params"]), (c["id"], names)
            assert not re.search(r"(?<!\{)\{[A-Za-z_]+\}(?!\})", c["rule"]), c["id"]
            assert {m["expect"] for m in c["test"]["mutants"]} <= set(book_claims.STATUSES)
            assert "not checkable" not in {m["expect"] for m in c["test"]["mutants"]}
    for e in LEDGER["errata"]:
        assert e["claim"] in ids and e["severity"] in book_claims.SEVERITIES
        assert e["kind"] in book_claims.ERRATUM_KINDS


def test_no_claim_or_erratum_id_and_no_project_data_path_in_the_paper_code():
    code = "\n".join(p.read_text() for p in
                     (ROOT / "src/rankbook/papers/breuer2020").glob("*.py"))
    for c in LEDGER["claims"]:
        assert f'"{c["id"]}"' not in code
    for e in LEDGER["errata"]:
        assert f'"{e["id"]}"' not in code
    assert "published/breuer2020" not in code and "data/claims" not in code


# ------------------------------------------------------------------------ the checks

EXPECTED = {"BR-T1-arp": "holds", "BR-T1-corr": "holds", "BR-T1-rmse": "holds",
            "BR-T1-p": "holds", "BR-T2-arp": "holds", "BR-T2-p": "imprecise",
            "BR-T3-p": "imprecise", "BR-T3-low": "holds", "BR-F1a": "holds",
            "BR-F1b": "holds", "BR-F2a": "holds", "BR-F2b": "holds", "BR-F3a": "holds",
            "BR-F3b": "holds", "BR-tau-union": "false"}


@needs_data
@pytest.mark.parametrize("cid", [c["id"] for c in CHECKED])
def test_each_check_gives_its_status_and_confirms_its_errata(cid):
    ev = run_check(cid, **CLAIMS[cid]["test"]["smoke"])
    assert ev.status == EXPECTED[cid], (cid, ev.status, ev.reproduced, ev.failures)
    mine = {e["id"]: e for e in LEDGER["errata"] if e["claim"] == cid}
    found = {f.id for f in ev.findings}
    assert found == set(mine), (cid, found)
    worst = max((book_claims.GRAVITY[mine[i]["severity"]] for i in found), default=0)
    assert book_claims.GRAVITY[ev.status] >= worst


@needs_data
@pytest.mark.parametrize("cid, k", [(c["id"], k) for c in CHECKED
                                    for k in range(len(c["test"]["mutants"]))])
def test_each_mutant_produces_the_status_it_states(cid, k):
    c = CLAIMS[cid]
    m = c["test"]["mutants"][k]
    assert m["expect"] != EXPECTED[cid], "a mutant must change the status"
    kwargs = dict(c["test"]["smoke"])
    if "perturb" in m:
        mod = importlib.import_module(c["check"].split(":")[0])
        kwargs.update(getattr(mod, m["perturb"])(stand_in(cid), **kwargs))
    kwargs.update(m.get("args", {}))
    ev = run_check(cid, m.get("params"), **kwargs)
    assert ev.status == m["expect"], (cid, m["what"], ev.status, ev.reproduced)


@needs_data
def test_the_rounding_rule_and_the_discrepancies():
    """p-values are cut in Tables 1, 2 and Table 3's WCrobust04 half, rounded in its
    WCrobust0405 half; the other cells are rounded to 4 decimals; two cells disagree."""
    counts = {}
    for cid in ("BR-T1-arp", "BR-T1-corr", "BR-T1-rmse", "BR-T1-p", "BR-T2-arp", "BR-T2-p",
                "BR-T3-p"):
        ev = run_check(cid)
        for r in ev.tables["rules"].itertuples():
            counts[(cid, r.block)] = (r.cells, r.round, r.cut)
    for key in [("BR-T1-arp", "ARP"), ("BR-T1-corr", "Correlation"), ("BR-T1-rmse", "RMSE"),
                ("BR-T2-arp", "ARP")]:
        n, rounded, cut = counts[key]
        assert rounded == n and cut < n
    assert counts[("BR-T1-p", "p-value")][2] == 63 > counts[("BR-T1-p", "p-value")][1]
    assert counts[("BR-T2-p", "p-value")][2] == 59 > counts[("BR-T2-p", "p-value")][1]
    assert counts[("BR-T3-p", "WCrobust04")][2] == 60 > counts[("BR-T3-p", "WCrobust04")][1]
    assert counts[("BR-T3-p", "WCrobust0405")][1] == 59 > counts[("BR-T3-p", "WCrobust0405")][2]
    d2 = tables.discrepancies(run_check("BR-T2-p").values["graded"])
    d3 = tables.discrepancies(run_check("BR-T3-p").values["graded"])
    assert list(d2["printed"]) == ["54E-06"] and list(d2["kind"]) == ["typo"]
    assert list(d3["printed"]) == ["0.030"] and list(d3["kind"]) == ["inconsistent table"]


@needs_data
def test_recomputation_against_code_we_did_not_write():
    sc = tables.scores_of(stand_in("BR-T1-p"))
    o = sc.original("wcrobust0405", "AP")
    x = sc.run("replicated", "wcrobust0405", "AP", "df_2").loc[o.index]
    assert math.isclose(tables._paired_p(o.values, x.values),
                        stats.ttest_rel(o.values, x.values).pvalue, rel_tol=1e-9)
    assert math.isclose(repro.rmse(o.values, x.values),
                        float(np.sqrt(np.mean((o.values - x.values) ** 2))), rel_tol=1e-12)
    from repro_eval.measure import overall_effects
    eff = figures.effects(sc, ["tol_3"], kind="reproduced")
    for r in eff.itertuples():
        d = {}
        for key, s in (("ob", sc.original("wcrobust04", r.measure)),
                       ("oa", sc.original("wcrobust0405", r.measure)),
                       ("rb", sc.run("reproduced", "wcrobust04", r.measure, "tol_3")),
                       ("ra", sc.run("reproduced", "wcrobust0405", r.measure, "tol_3"))):
            d[key] = {t: {"m": float(v)} for t, v in s.items()}
        er = overall_effects.ER(d["oa"], d["ob"], d["ra"], d["rb"])["m"]
        dri = overall_effects.DRI(d["oa"], d["ob"], d["ra"], d["rb"])["m"]
        assert math.isclose(r.er, er, rel_tol=1e-9) and math.isclose(r.dri, dri, rel_tol=1e-9)


def test_check_without_data_raises_data_unavailable(tmp_path, monkeypatch):
    for var in (fetch.mirror_env("breuer2020"), fetch.MIRROR_ENV):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(fetch.CACHE_ENV, str(tmp_path / "cache"))
    root = tmp_path / "project"
    (root / "data" / "fetch").mkdir(parents=True)
    reg = (ROOT / "data" / "fetch" / "breuer2020.toml").read_text()
    (root / "data" / "fetch" / "breuer2020.toml").write_text(
        re.sub(r'(?m)^mirror = ".*"$', 'mirror = ""', reg))
    c = stand_in("BR-T1-arp")
    c.root = root
    tables._SCORES.clear()
    with pytest.raises(fetch.DataUnavailable, match="rankbook fetch breuer2020"):
        tables.check_table_1(c, published=tables.read_published(PUB / "table_1.csv"))


# ------------------------------------------------------------------------ figures, τ, repro_eval

@needs_data
def test_figures_are_redrawn():
    import matplotlib
    matplotlib.use("Agg")
    sc = tables.scores_of(stand_in("BR-F1a"))
    d = figures.figure_1_data(sc, [f"tf_{i}" for i in range(1, 6)], [5, 10, 1000])
    assert len(d) == 15
    fig = figures.draw_figure_1(d)
    assert len(fig.axes) == 2
    fig2 = figures.draw_er_dri({"tol": figures.effects(sc, ["tol_1", "tol_2"]),
                                "C": figures.effects(sc, ["C_1"])})
    assert len(fig2.axes) == 2
    panels, sts = figures.read_readings(PUB / "figure_readings.toml")
    assert set(panels) == {"1a", "1b", "2a", "2b", "3a", "3b"} and len(sts) >= 30


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=3, max_value=12), st.randoms(use_true_random=False))
def test_position_paired_tau_always_lies_on_the_grid(k, rnd):
    docs = [f"d{i}" for i in range(2 * k)]
    a = rnd.sample(docs, k)
    b = rnd.sample(docs, k)
    assert kendall.grid_share([repro.ktu(a, b, convention="repro_eval")], k, 1e-6) == 1.0


def test_tau_over_the_union_of_overlapping_lists_leaves_the_grid():
    a = ["a", "b", "c", "d", "e"]
    b = ["a", "c", "b", "x", "y"]
    assert kendall.grid_share([repro.ktu(a, b)], 5, 1e-6) == 0.0
    shares = kendall.simulated_shares(30, 20, 1e-6, 0, [0.3, 0.95], 4)
    assert shares["paired"] == 1.0 and shares["union"] < 0.2


@needs_data
def test_repro_eval_readme_against_the_appendix_data():
    sc = tables.scores_of(stand_in("BR-T1-p"))
    t = rx.readme_against_appendix(
        sc, rx.read_readme_order(PUB / "repro_eval_readme_order.csv"),
        rx.read_readme_effects(ROOT / "data/published/repro_eval/core17_readme.csv"),
        decimals=4)
    assert t.attrs["run"] == "df_1"
    rbo = t[t["statistic"] == "RBO"]
    assert rbo["agrees"].all()  # the README's RBO is the files' RBO at p = 0.8
    paired = t[t["statistic"].str.startswith("p-value (paired")]
    assert len(paired) == 6 and not paired["agrees"].any()
    # ... and pairing topics by position reproduces every printed value
    assert all(r["note"].endswith(f"gives {r['printed']}") for _, r in paired.iterrows())
    others = t[~t["statistic"].str.startswith("p-value (paired") & (t["measure"] != "per topic")]
    assert others["agrees"].all()
    computed = t[~t["repro_eval today"].isin(["needs the runs", "not installed"])]
    assert (computed["repro_eval today"] == computed["printed"]).all()
