"""The claims ledger (issue 27): its structure, and every check's ability to fail.

* the ledger parses, its ids are immutable-looking and unique, every erratum belongs to a
  claim, every checked claim names an existing notebook and a check function;
* the mutation test: for every ledger claim with a check, the check runs with small arguments,
  and every registered perturbation of its evidence changes the status;
* the structure: no notebook over 80 code lines outside its parameters cell, no import cycle in
  the package, no erratum without a claim.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from rankbook.ledger import claims

ROOT = Path(__file__).resolve().parents[1]
LEDGER = claims.load_ledger(ROOT)
NOTEBOOKS = {p.stem for p in (ROOT / "notebooks").glob("*.ipynb")}
CHECKED = [c for c in LEDGER.claims.values() if c.check]

#: Comparisons that compare nothing, so a mutation cannot move them.
_NO_MUTANT = ("definition", "none", "unavailable")


def test_ledger_loads_with_every_source():
    assert {c.source for c in LEDGER.claims.values()} == set(LEDGER.sources)
    assert len(LEDGER.claims) >= 60 and len(LEDGER.errata) >= 50
    orders = [s.order for s in LEDGER.sources.values()]
    assert orders == sorted(orders), "sources come in their stated order"
    assert len({s.prefix for s in LEDGER.sources.values()}) == len(LEDGER.sources)


def test_every_erratum_belongs_to_a_claim_of_its_source():
    for e in LEDGER.errata.values():
        owner = LEDGER.claims[e.claim]
        assert e.id.split("-")[0] == owner.id.split("-")[0], e


def test_every_checked_claim_names_a_notebook_and_a_check():
    for c in LEDGER.claims.values():
        if c.page:
            assert c.page in NOTEBOOKS, (c.id, c.page)
            assert c.check, f"{c.id}: a checked claim names its check (module:function)"
            assert c.section, f"{c.id}: a checked claim names the section that shows it"


def test_ledger_refuses_malformed_entries(tmp_path):
    folder = tmp_path / "data" / "claims"
    folder.mkdir(parents=True)
    good = ('[source]\nkey = "A"\nprefix = "A"\ntitle = "t"\nshort = "s"\nchapter = "c"\n'
            'order = 1\n[[claims]]\nid = "A-P1"\nwhere = "Prop 1"\nkind = "proposition"\n'
            'claim = "x"\nreason = "not a result"\n')
    (folder / "A.toml").write_text(good)
    assert list(claims.load_ledger(tmp_path).claims) == ["A-P1"]
    for bad, message in (
        (good.replace('id = "A-P1"', 'id = "B-P1"'), "must look like"),
        (good + '[[claims]]\nid = "A-P1"\nwhere = "w"\nkind = "lemma"\nclaim = "y"\nreason = "r"\n',
         "used twice"),
        (good.replace('kind = "proposition"', 'kind = "rumour"'), "unknown kind"),
        (good.replace('reason = "not a result"', 'page = "nb"'), "decision rule"),
        (good + '[[errata]]\nid = "A-E1"\nclaim = "A-P9"\nwhere = "w"\nkind = "typo"\n'
                'severity = "holds"\nfinding = "f"\n', "not in A.toml"),
        (good + '[[errata]]\nid = "A-E1"\nclaim = "A-P1"\nwhere = "w"\nkind = "typo"\n'
                'severity = "claim false"\nfinding = "f"\n', "unknown severity"),
    ):
        (folder / "A.toml").write_text(bad)
        with pytest.raises(ValueError, match=message):
            claims.load_ledger(tmp_path)


def test_consistency_rules_catch_each_disagreement():
    book = claims.Ledger()
    book.claims["A-P1"] = claims.Claim(id="A-P1", source="A", where="Prop 1", kind="proposition",
                                       claim="x", page="nb", section="s", rule="r")
    book.errata["A-E1"] = claims.Erratum(id="A-E1", claim="A-P1", where="Prop 1",
                                         kind="false statement", severity="false", finding="f")
    ok = [{"id": "A-P1", "status": "false", "notebook": "nb"}]
    errata = [{"id": "A-E1", "claim": "A-P1", "notebook": "nb"}]
    assert claims.check_consistency(book, ok, errata) == []
    milder = [{"id": "A-P1", "status": "holds", "notebook": "nb"}]
    assert "milder" in claims.check_consistency(book, milder, errata)[0]
    assert "no recorded erratum" in claims.check_consistency(book, ok, [])[0]
    elsewhere = [{"id": "A-P1", "status": "false", "notebook": "other"}]
    assert "checked by other" in claims.check_consistency(book, elsewhere, errata)[0]
    assert "does not hold" in claims.check_consistency(
        book, ok + [{"id": "A-P9", "status": "holds", "notebook": "nb"}], errata)[0]


def _assert_renders(evidence):
    """The verdict box of the evidence (the page's, the dashboard's words) prints no raw Python
    value: no "of None" count, no None, nan or True/False where a reader expects words."""
    from rankbook.book.present import verdict_markdown

    record = claims.record_of(evidence, ROOT)
    text = verdict_markdown([record])
    for raw in ("of None", "None", "True", "False"):
        assert not re.search(rf"(?<![\w$]){raw}(?![\w$])", text), (
            f"{evidence.claim}: the verdict text shows a raw {raw!r}: {text}")
    for finding in evidence.findings:
        assert not re.search(r"(?<!\w)(None|True|False)(?!\w)", finding.evidence), (
            f"{finding.id}: raw Python value in its evidence: {finding.evidence}")


def test_alternatives_refuse_counts_without_a_total():
    """A single statement (no count) under another reading takes a verdict, not a count, so that
    no page can print "0 of None" (reader report, item 1)."""
    ev = claims.Evidence(claim="B-IVD2", comparison="claim", holds=True, unit="statements",
                         published="p", reproduced="r", reading="plain",
                         alternatives={"weighted": 0})
    with pytest.raises(ValueError, match="total=None"):
        claims.record_of(ev, ROOT)
    ev.alternatives = {"weighted": False}
    from rankbook.book.present import status_details

    assert "weighted: fails" in " ".join(status_details(claims.record_of(ev, ROOT)))
    ev = claims.Evidence(claim="A-T1", comparison="exact", matched=3, total=4, unit="cells",
                         published="p", reproduced="r", reading="a", alternatives={"b": 5})
    with pytest.raises(ValueError, match="0..4"):
        claims.record_of(ev, ROOT)


@pytest.mark.parametrize("claim", CHECKED, ids=[c.id for c in CHECKED])
def test_every_check_can_fail(claim):
    """The mutation test: run the check through the ledger's entry point with the smoke
    arguments of its ``[claims.test]``, then each mutant, and require the status the mutant
    states; a fault that lands on "not checkable", or on the status the check already had, is a
    failure of the test, never a pass."""
    evidence = claims.run_check(claim, claim.test.get("smoke", {}))
    assert evidence.claim == claim.id
    _assert_renders(evidence)
    cases = list(claims.mutants(claim))
    if evidence.comparison in _NO_MUTANT:
        assert not cases or evidence.comparison == "definition"
        return
    assert cases, (f"{claim.id}: a check with no perturbation that changes its status cannot be "
                   "shown to fail; give [claims.test] mutants in its ledger entry, or grade it "
                   "true by definition")
    base = evidence.status
    for what, variant, kwargs, expect in cases:
        assert expect != base, f"{claim.id}: the mutant {what!r} expects the status it already has ({base!r})"
        mutated = claims.run_check(variant, kwargs)
        assert mutated.status == expect, (
            f"{claim.id}: the fault {what!r} gives {mutated.status!r}, the ledger expects {expect!r}")


def _code_lines(path: Path) -> int:
    nb = json.loads(path.read_text())
    return sum(len("".join(c.get("source", [])).splitlines()) for c in nb["cells"]
               if c["cell_type"] == "code" and "parameters" not in c.get("metadata", {}).get("tags", []))


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebooks_only_show(name):
    lines = _code_lines(ROOT / "notebooks" / f"{name}.ipynb")
    assert lines <= 80, (f"{name}: {lines} code lines outside the parameters cell; the logic "
                         "belongs in src/rankbook (at most 80)")


def _imports(path: Path, module: str) -> set[str]:
    tree = ast.parse(path.read_text())
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            found.add(stem)
            found.update(f"{stem}.{a.name}" for a in node.names)
    return {m for m in found if m.startswith("rankbook")}


def import_graph(src: Path) -> dict[str, set[str]]:
    modules = {}
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    graph = {}
    for name, path in modules.items():
        graph[name] = {m for m in _imports(path, name) if m in modules and m != name
                       and not name.startswith(m + ".")}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph``, or None (imports inside functions count too)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_package_has_no_import_cycle():
    cycle = find_cycle(import_graph(ROOT / "src"))
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


#: The layers, bottom first: a module may import its own layer and the layers below it.
LAYERS = ("measures", "ledger", "papers", "book")


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS[1:] else "measures"


def climbing_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import that runs back up the layers (measures <- ledger <- papers <- book)."""
    return sorted(f"{a} -> {b}" for a, targets in graph.items() for b in targets
                  if a not in ("rankbook", "rankbook.__main__") and LAYERS.index(layer_of(b)) > LAYERS.index(layer_of(a)))


def test_no_import_climbs_the_layers():
    assert climbing_imports({"rankbook.metrics": {"rankbook.book.outputs"}}) == [
        "rankbook.metrics -> rankbook.book.outputs"]
    assert climbing_imports({"rankbook.papers.paper_a.x": {"rankbook.ledger.claims"}}) == []
    climbs = climbing_imports(import_graph(ROOT / "src"))
    assert not climbs, "imports that run back up the layers:\n  " + "\n  ".join(climbs)


def test_internal_words_are_caught():
    from rankbook.book.site import internal_words

    assert internal_words("fails: dcg, ndcg, reads_nu_only") == ["reads_nu_only"]
    assert internal_words("reading nu^-1 o sigma") != []
    assert internal_words("LR− and $\\nu^{-1}\\circ\\sigma$") == []


def test_claims_command_lists_filters_and_refuses(capsys):
    from rankbook.book import cli

    assert cli.main(["claims", "--source", "B"]) == 0
    out = capsys.readouterr().out
    assert "B-TIV" in out and "A-P7.1" not in out
    assert cli.main(["claims", "A-P7.1"]) == 0
    out = capsys.readouterr().out
    assert "Proposition 7.1" in out and "rankbook run linear_equivalence" in out
    assert cli.main(["claims", "Z-9"]) == 2
    assert "unknown claim id 'Z-9'" in capsys.readouterr().err
    assert cli.main(["claims", "--status", "wrong"]) == 2
    assert "valid: 'holds'" in capsys.readouterr().err
    assert cli.main(["claims", "--source", "C"]) == 2
    assert "valid: A, B, notes" in capsys.readouterr().err
    # a header and columns as wide as their longest entry; ids and statuses in any case
    assert cli.main(["claims", "--source", "a"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["claim", "status"]
    starts = {line.index(line.split()[1]) for line in lines[1:] if line.startswith("A-")}
    assert len(starts) == 1, "the status column starts at one place on every line"
    assert cli.main(["claims", "a-p7.1"]) == 0 and "Proposition 7.1" in capsys.readouterr().out
    assert cli.main(["claims", "--status", "FALSE"]) == 0
    assert cli.main(["claims", "--status", "no result"]) == 0  # checked, not yet built
