"""A source is data: the code that reproduces a source (``src/rankbook/papers/``) holds no claim
id, no erratum id, no numeric threshold of a decision rule and no data path. Each of these lives
in the claims ledger (``data/claims/<source>.toml``) and reaches the check through its ledger
entry (``claim.id``, ``claim.finding(role)``, ``claim.params``, ``claim.path(role)``).

Every scan here is shown to fail on a planted literal (the ``*_is_caught`` tests), and the
rules' numbers are checked from the other side: every number a decision rule states is a
placeholder filled from its ``params`` (so code reads it), or a reference into the source
(Table 2, Eq. 13, Section IV-B1).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from rankbook.ledger import claims

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT / "src" / "rankbook" / "papers"
LEDGER = claims.load_ledger(ROOT)


def _strings(tree: ast.AST):
    """Every string literal of a module (docstrings and the constant parts of f-strings too),
    with its line."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def _ids_pattern(book: claims.Ledger) -> re.Pattern:
    prefixes = "|".join(sorted((re.escape(s.prefix) for s in book.sources.values()), key=len,
                               reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_-])(?:{prefixes})-[A-Za-z0-9][A-Za-z0-9.]*(?:-[A-Za-z0-9.]+)*")


def id_literals(source: str, book: claims.Ledger) -> list[str]:
    """Claim and erratum ids of ``book`` written in the code ``source``."""
    known = set(book.claims) | set(book.errata)
    pattern = _ids_pattern(book)
    found = []
    for line, text in _strings(ast.parse(source)):
        for m in pattern.finditer(text):
            word = m.group(0).rstrip(".")
            if word in known:
                found.append(f"line {line}: {word}")
    return found


#: A string that names a file of the project's data: a path under a data folder, or a file name
#: with a data extension.
_DATA_PATH = re.compile(r"(^|/)(data|published|rankings|conventions|claims|trec_eval_tests)/"
                        r"|^[\w.-]+\.(csv|toml|json|qrels|run|txt)$")
#: Calls that find data by a path the code spells out.
_DATA_CALLS = ("data_path", "data_dir")


def data_literals(source: str) -> list[str]:
    """Data paths spelled out in ``source``: path-like strings, calls of the path helpers, and
    lookups relative to the module's own file."""
    tree = ast.parse(source)
    found = [f"line {line}: {text!r}" for line, text in _strings(tree)
             if _DATA_PATH.search(text) and "\n" not in text]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in _DATA_CALLS:
                found.append(f"line {node.lineno}: {name}(...)")
        if isinstance(node, ast.Attribute) and node.attr == "parents" and "__file__" in ast.unparse(node):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


#: Literals allowed in a comparison: identities and the halves and doubles that definitions use
#: (1 - x, x / 2), never a rule's tolerance.
_ALLOWED_NUMBERS = {0, 1, 2, -1, 0.5}
#: Below this, a literal is a floating-point guard (``x > 1e-12``), not a threshold of a rule.
_FLOAT_GUARD = 1e-8
_THRESHOLD_NAME = re.compile(r"(^|_)(TOL|TOLERANCE|ATOL|RTOL|THRESHOLD|ALPHA|N_SD|MARGIN|"
                             r"LEVEL|CUTOFF|BAND|SEEDS?)($|_)", re.I)


def _number(node) -> float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return node.value
    return None


def threshold_literals(source: str) -> list[str]:
    """Numbers of a decision rule written in ``source``: a literal compared with a value
    (``diff <= 0.005``, ``share > 0.9``), a module constant named like a threshold
    (``ABS_TOL = 0.005``, ``N_SD = 2.5``), or a threshold-named parameter's literal default
    (``def check(..., tol=0.005)``)."""
    tree = ast.parse(source)
    found = []

    def bad(value) -> bool:
        return value is not None and value not in _ALLOWED_NUMBERS and abs(value) >= _FLOAT_GUARD

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in [node.left, *node.comparators]:
                value = _number(operand)
                if bad(value) and isinstance(value, float):
                    found.append(f"line {node.lineno}: compared with {value!r}")
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            for t in targets:
                if isinstance(t, ast.Name) and _THRESHOLD_NAME.search(t.id):
                    numbers = [_number(v) for v in ([value] if not isinstance(value, (ast.Tuple, ast.List))
                                                    else value.elts)]
                    if any(n is not None for n in numbers):
                        found.append(f"line {node.lineno}: {t.id} = {ast.unparse(value)}")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            pairs = list(zip(args.args[len(args.args) - len(args.defaults):], args.defaults))
            pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
            for arg, default in pairs:
                if _THRESHOLD_NAME.search(arg.arg) and bad(_number(default)):
                    found.append(f"line {node.lineno}: {node.name}({arg.arg}={ast.unparse(default)})")
    return found


MODULES = sorted(PAPERS.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PAPERS)) for p in MODULES])
def test_paper_code_holds_no_ids_thresholds_or_data_paths(path):
    source = path.read_text(encoding="utf-8")
    problems = ([f"claim or erratum id, {x}" for x in id_literals(source, LEDGER)]
                + [f"data path, {x}" for x in data_literals(source)]
                + [f"threshold, {x}" for x in threshold_literals(source)])
    assert not problems, (f"{path.relative_to(ROOT)}: these belong in the claims ledger "
                          "(claim.id, claim.finding(role), claim.params, claim.path(role)):\n  "
                          + "\n  ".join(problems))


def test_id_scan_is_caught():
    assert id_literals('x = "A-T2-rob"\n', LEDGER) == ["line 1: A-T2-rob"]
    assert id_literals('"""Checks A-E7."""\n', LEDGER) == ["line 1: A-E7"]
    assert id_literals('x = f"{n}-E7 and BA-T2-rob"\n', LEDGER) == []


def test_data_scan_is_caught():
    assert data_literals('p = "data/published/x.csv"\n')
    assert data_literals('p = "rankings/paper_b_table_ii_clustering.csv"\n')
    assert data_literals('p = data_path("published", "paper_b", name)\n')
    assert data_literals("from pathlib import Path\nR = Path(__file__).resolve().parents[4]\n")
    assert not data_literals('stem = f"{name}_comparison"\nfmt = "{:.3f}"\n')


def test_threshold_scan_is_caught():
    assert threshold_literals("ok = abs(a - b) <= 0.005\n")
    assert threshold_literals("ABS_TOL = 0.005\nN_SD = 2.5\n")
    assert threshold_literals("def check(claim, tol=0.01):\n    pass\n")
    assert not threshold_literals("ok = x > 1e-12 and y == 0.5 and n >= 2\n")
    assert not threshold_literals("def check(claim, seed=0):\n    pass\n")


# ----------------------------------------------------------------------------------------------
# the other side: every number of a decision rule is read by code
# ----------------------------------------------------------------------------------------------
#: Numbers that only point into a source or name a thing: Table 2, Eq. (13), Section IV-B1,
#: Definition 10, S_10's subscript inside maths, a claim id.
_REFERENCE = re.compile(
    r"(Tables?|Eqs?\.|Equations?|Sections?|§|Definitions?|Def\.|Propositions?|Prop\.|Lemmas?|"
    r"Theorems?|Corollar(?:y|ies)|Figures?|Fig\.|Appendix|App\.|Algorithm|lines?|pages?|Examples?|"
    r"Remarks?|Rows?|Columns?|Paper|C\.)\s*\(?[0-9IVXivx][0-9IVXivx.\-–]*(?:[a-z])?\)?"
    r"(?:\s*(?:,|and|or|to|–|-)\s*\(?[0-9IVX][0-9IVX.\-]*\)?)*")
_MATHS = re.compile(r"\$[^$]*\$")


def rule_numbers(claim: claims.Claim) -> list[str]:
    """The numbers of ``claim``'s rule that are not placeholders of its params nor references."""
    text = claims._PLACEHOLDER.sub(" ", claim.rule)
    text = _MATHS.sub(" ", text)
    text = _ids_pattern(LEDGER).sub(" ", text)
    text = _REFERENCE.sub(" ", text)
    return re.findall(r"(?<![A-Za-z_])\d+(?:[.,]\d+)*", text)


RULED = [c for c in LEDGER.claims.values() if c.rule]


@pytest.mark.parametrize("claim", RULED, ids=[c.id for c in RULED])
def test_every_number_of_a_rule_comes_from_its_params(claim):
    stray = rule_numbers(claim)
    assert not stray, (f"{claim.id}: the rule states {stray} as prose; give each number a name in "
                       "params and write it {{name}} in the rule, so that the check reads it")


def test_rule_scan_is_caught():
    c = claims.Claim(id="A-X", source="A", where="w", kind="table", claim="c",
                     rule="within {{tol}} of Table 2 (Eq. 13), at most 0.5 off", params={"tol": 0.005})
    assert rule_numbers(c) == ["0.5"]
    assert claims.render_rule(c.rule, c.params).startswith("within 0.005 of Table 2")
