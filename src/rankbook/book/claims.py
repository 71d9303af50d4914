"""The claims ledger: every stated result of the sources, in one place, graded by one rule.

A *claim* is one result a source states: a table, a figure, a proposition, a sentence of the
text. It exists in exactly one place, the ledger ``data/claims/<source>.toml``, with an
immutable id (``A-P7.1``, ``B-TIV``), where it sits in the source, the claim in our own words,
its kind, the data file of its published values, the readings it depends on, the decision rule
fixed before any result, and the page and section that check it (or the reason it is not
checked). An *erratum* is one discrepancy found in a source; it has an immutable id
(``A-E7``) and belongs to one claim.

A notebook does not write verdict text: it passes the evidence it computed to
:func:`report` (one :class:`Evidence` per claim), and the build grades it with
:func:`grade`. The dashboard, the coverage table, the landing page, the chapter summaries, the
verdict boxes and the errata page are all generated from the ledger and that evidence.

One scale serves statuses and errata alike (:data:`STATUSES`). A claim's status is never
milder than its gravest erratum, and a claim that fails has an erratum that says why
(:func:`check_consistency`).
"""

from __future__ import annotations

import json
import numbers
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .paths import output_dir

#: The one scale of the book, best first. A claim has one of these statuses; an erratum's
#: severity is the status it gives its claim (one of :data:`SEVERITIES`).
STATUSES = (
    "holds",
    "holds within tolerance",
    "true by definition",
    "imprecise",
    "not reproduced",
    "false",
    "not checkable",
)

#: What each status means, as the landing page and the dashboard state it.
STATUS_MEANING = {
    "holds": "every published value or case checked agrees with the recomputation",
    "holds within tolerance": "every value agrees within the printed rounding or, for a random "
                              "experiment, within the spread of the rerun",
    "true by definition": "the statement follows from the definitions, so no computation "
                          "could contradict it; it is not counted among the claims that hold",
    "imprecise": "the claim is right in substance but some published values or details are "
                 "off (each departure is an erratum)",
    "not reproduced": "no published value could be reproduced",
    "false": "the claim as stated does not hold: a counterexample or a failed case is shown",
    "not checkable": "nothing published can be compared (no values, or inputs not "
                     "distributed); the reason is given",
}

#: How grave an erratum is: the status it gives its claim. ``"holds"`` marks a slip (a typo
#: in a proof, an unstated convention) that does not change whether the claim holds.
SEVERITIES = ("false", "not reproduced", "imprecise", "holds")

#: Gravity of each status for the rule "a claim is never milder than its gravest erratum".
GRAVITY = {"holds": 0, "holds within tolerance": 0, "true by definition": 0, "not checkable": 0,
           "imprecise": 1, "not reproduced": 2, "false": 3}

#: Statuses counted as "holds" on the landing page (true by definition is counted apart).
HOLDING = ("holds", "holds within tolerance")

#: What kind of result a claim is.
KINDS = ("table", "figure", "proposition", "lemma", "theorem", "corollary", "example",
         "algorithm", "sentence", "statements", "formula", "definition", "matrix")

#: What kind of discrepancy an erratum is (independent of its severity).
ERRATUM_KINDS = ("false statement", "wrong formula", "inconsistent table", "imprecise statement",
                 "omission", "typo", "convention")

#: The sources, their ledger file and their id prefix.
SOURCES = {
    "A": ("A.toml", "A"),
    "B": ("B.toml", "B"),
    "notes": ("notes.toml", "N"),
    "rankdcg": ("rankdcg.toml", "R"),
    "blog": ("blog.toml", "L"),
    "tools": ("tools.toml", "T"),
}

LEDGER_DIR = ("data", "claims")

#: The counting rule in one sentence (landing page, dashboard).
COUNTING_RULE = (
    "Each stated result of the sources is one claim, counted once under its status; each "
    "erratum is one discrepancy found in a source and belongs to one claim, whose status is "
    "never milder than the erratum's severity."
)

#: Which reading decides a verdict (landing page, CONVENTIONS.md): one rule for every claim.
READING_RULE = (
    "A *reading* is one way to take what a source leaves open (a convention it does not state, "
    "a formula it prints two ways). A verdict is graded under the reading the source itself "
    "states: its printed formulas and inputs, taken as the measures it names. Where the source "
    "states none, or contradicts itself, the ledger fixes the reading from the source alone "
    "before any result: the version it prints most often, the measure it names over a printed "
    "formula that is not that measure, or the reading another of its tables needs; the claim's "
    "rule says which. A reading found by fitting the very values being graded never decides: "
    "the counts under the *other readings* stand beside the status, so a reader sees when "
    "another reading would change it."
)

_CLAIM_ID = re.compile(r"^(A|B|N|R|L|T)-[A-Za-z0-9][A-Za-z0-9.]*(?:-[A-Za-z0-9.]+)*$")
_ERRATUM_ID = re.compile(r"^(A|B|N|R|L|T)-E[0-9]+$")


@dataclass(frozen=True)
class Claim:
    """One ledger entry (see the module docstring)."""

    id: str
    source: str
    where: str
    kind: str
    claim: str
    page: str = ""
    section: str = ""
    data: tuple = ()
    readings: tuple = ()
    rule: str = ""
    check: str = ""
    reason: str = ""
    artifact: str = ""

    @property
    def checked(self) -> bool:
        return bool(self.page)


@dataclass(frozen=True)
class Erratum:
    """One discrepancy found in a source, belonging to one claim."""

    id: str
    claim: str
    where: str
    kind: str
    severity: str
    finding: str
    legacy: str = ""


@dataclass
class Ledger:
    claims: dict = field(default_factory=dict)
    errata: dict = field(default_factory=dict)

    def claim(self, claim_id: str) -> Claim:
        try:
            return self.claims[claim_id]
        except KeyError:
            raise ValueError(f"unknown claim id {claim_id!r}; the ledger (data/claims/) has "
                             f"{len(self.claims)} claims, e.g. {sorted(self.claims)[:5]}") from None

    def erratum(self, erratum_id: str) -> Erratum:
        try:
            return self.errata[erratum_id]
        except KeyError:
            raise ValueError(f"unknown erratum id {erratum_id!r}; the ledger (data/claims/) has "
                             f"{len(self.errata)} errata, e.g. {sorted(self.errata)[:5]}") from None

    def by_artifact(self, source: str, artifact: str) -> Claim | None:
        for c in self.claims.values():
            if c.source == source and c.artifact and c.artifact == artifact:
                return c
        return None

    def errata_of(self, claim_id: str) -> list[Erratum]:
        return [e for e in self.errata.values() if e.claim == claim_id]

    def for_page(self, page: str) -> list[Claim]:
        return [c for c in self.claims.values() if c.page == page]


def _strs(value, what: str) -> tuple:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value else ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{what} must be a list of non-empty strings, got {value!r}")
    return tuple(value)


def _text(entry: dict, key: str, where: str, required: bool = True) -> str:
    value = entry.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise ValueError(f"{where}: needs a non-empty string {key!r}, got {value!r}")
    return value.strip()


_CLAIM_KEYS = {"id", "where", "kind", "claim", "page", "section", "data", "readings", "rule",
               "check", "reason", "artifact"}
_ERRATUM_KEYS = {"id", "claim", "where", "kind", "severity", "finding", "legacy"}


def parse_ledger_file(path: Path, source: str, root: Path | None = None) -> Ledger:
    """One source's ledger file, validated; ValueError naming the file and the entry."""
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the claims ledger: {exc}") from None
    prefix = SOURCES[source][1]
    if doc.get("source") != source:
        raise ValueError(f"{path}: must start with source = {source!r}")
    unknown_top = set(doc) - {"source", "claims", "errata"}
    if unknown_top:
        raise ValueError(f"{path}: unknown keys {sorted(unknown_top)}; valid: source, claims, errata")
    ledger = Ledger()
    for i, entry in enumerate(doc.get("claims", []), 1):
        where = f"{path.name}, claim {i} ({entry.get('id', '?')})"
        extra = set(entry) - _CLAIM_KEYS
        if extra:
            raise ValueError(f"{where}: unknown keys {sorted(extra)}; valid: {sorted(_CLAIM_KEYS)}")
        cid = _text(entry, "id", where)
        if not _CLAIM_ID.match(cid) or not cid.startswith(prefix + "-") or _ERRATUM_ID.match(cid):
            raise ValueError(f"{where}: id {cid!r} must look like {prefix}-P7.1 ({prefix}- then "
                             "letters, digits, dots and dashes; E<number> is for errata)")
        if cid in ledger.claims:
            raise ValueError(f"{where}: id {cid!r} is used twice")
        kind = _text(entry, "kind", where)
        if kind not in KINDS:
            raise ValueError(f"{where}: unknown kind {kind!r}; valid: {list(KINDS)}")
        claim = Claim(
            id=cid, source=source, where=_text(entry, "where", where), kind=kind,
            claim=_text(entry, "claim", where),
            page=_text(entry, "page", where, required=False),
            section=_text(entry, "section", where, required=False),
            data=_strs(entry.get("data"), f"{where}: data"),
            readings=_strs(entry.get("readings"), f"{where}: readings"),
            rule=_text(entry, "rule", where, required=False),
            check=_text(entry, "check", where, required=False),
            reason=_text(entry, "reason", where, required=False),
            artifact=_text(entry, "artifact", where, required=False),
        )
        if bool(claim.page) == bool(claim.reason):
            raise ValueError(f"{where}: give the page that checks it or the reason it is not "
                             "checked, not both and not neither")
        if claim.page and not claim.rule:
            raise ValueError(f"{where}: a checked claim states its decision rule (rule = ...)")
        if root is not None:
            for rel in claim.data:
                if not (root / rel).is_file():
                    raise ValueError(f"{where}: data file {rel!r} does not exist")
        ledger.claims[cid] = claim
    for i, entry in enumerate(doc.get("errata", []), 1):
        where = f"{path.name}, erratum {i} ({entry.get('id', '?')})"
        extra = set(entry) - _ERRATUM_KEYS
        if extra:
            raise ValueError(f"{where}: unknown keys {sorted(extra)}; valid: {sorted(_ERRATUM_KEYS)}")
        eid = _text(entry, "id", where)
        if not _ERRATUM_ID.match(eid) or not eid.startswith(prefix + "-"):
            raise ValueError(f"{where}: id {eid!r} must look like {prefix}-E7")
        if eid in ledger.errata:
            raise ValueError(f"{where}: id {eid!r} is used twice")
        kind = _text(entry, "kind", where)
        if kind not in ERRATUM_KINDS:
            raise ValueError(f"{where}: unknown kind {kind!r}; valid: {list(ERRATUM_KINDS)}")
        severity = _text(entry, "severity", where)
        if severity not in SEVERITIES:
            raise ValueError(f"{where}: unknown severity {severity!r}; valid: {list(SEVERITIES)}")
        owner = _text(entry, "claim", where)
        if owner not in ledger.claims:
            raise ValueError(f"{where}: belongs to claim {owner!r}, which is not in {path.name}")
        ledger.errata[eid] = Erratum(id=eid, claim=owner, where=_text(entry, "where", where),
                                     kind=kind, severity=severity,
                                     finding=_text(entry, "finding", where),
                                     legacy=_text(entry, "legacy", where, required=False))
    return ledger


def load_ledger(root: Path | None = None) -> Ledger:
    """Every source's ledger (``data/claims/*.toml``), validated and merged."""
    if root is None:
        from .paths import project_root

        root = project_root()
    folder = root.joinpath(*LEDGER_DIR)
    merged = Ledger()
    if not folder.is_dir():
        return merged
    names = {v[0]: k for k, v in SOURCES.items()}
    for path in sorted(folder.glob("*.toml")):
        if path.name not in names:
            raise ValueError(f"{path}: not a ledger file of a known source; valid: "
                             f"{sorted(names)}")
        one = parse_ledger_file(path, names[path.name], root)
        merged.claims.update(one.claims)
        merged.errata.update(one.errata)
    return merged


_LEDGER_CACHE: dict = {}


def ledger(root: Path | None = None) -> Ledger:
    """:func:`load_ledger`, cached per root and file contents (a kernel reads it once)."""
    if root is None:
        from .paths import project_root

        root = project_root()
    folder = root.joinpath(*LEDGER_DIR)
    stamp = tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size)
                  for p in sorted(folder.glob("*.toml"))) if folder.is_dir() else ()
    key = (str(root), stamp)
    if key not in _LEDGER_CACHE:
        _LEDGER_CACHE.clear()
        _LEDGER_CACHE[key] = load_ledger(root)
    return _LEDGER_CACHE[key]


# --------------------------------------------------------------------------------------------
# Evidence and grading
# --------------------------------------------------------------------------------------------
#: What a check compared, which decides its status through :func:`grade`:
#: ``exact`` (published values, to the printed precision), ``noise`` (published values of a
#: random experiment, within the rerun's spread), ``claim`` (a statement, true or false over
#: its cases), ``definition`` (true by definition: no computation could contradict it),
#: ``none`` (nothing published to compare) and ``unavailable`` (inputs not distributed).
COMPARISONS = ("exact", "noise", "claim", "definition", "none", "unavailable")


@dataclass
class Finding:
    """The computed evidence for one ledger erratum (``id``), from one build."""

    id: str
    evidence: str
    cells: list | None = None
    under: dict | None = None
    readings: list = field(default_factory=list)


@dataclass
class Evidence:
    """What a library check returns for one claim: the numbers behind its status.

    ``published`` and ``reproduced`` are short computed strings; ``matched`` of ``total``
    ``unit`` agreed (or ``holds`` for a single statement); ``failures`` names the failing cases
    of a false claim; ``per_seed`` holds the count under each independent seed (``matched`` is
    their median); ``borderline`` marks a result within one stated margin of its threshold or
    on which the seeds disagree (the page shows the mark and the seed pass rate);
    ``findings`` are the errata this evidence confirms. ``tables`` and ``values`` carry what
    the page shows; they are not stored in the records.
    """

    claim: str
    comparison: str
    published: str
    reproduced: str
    matched: int | None = None
    total: int | None = None
    unit: str = "cells"
    holds: bool | None = None
    detail: str = ""
    failures: list | None = None
    per_seed: list | None = None
    seeds_passed: tuple | None = None
    reading: str | None = None
    alternatives: dict | None = None
    borderline: str = ""
    findings: list = field(default_factory=list)
    tables: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)

    @property
    def status(self) -> str:
        return grade(self.comparison, self.matched, self.total, self.holds)


def grade(comparison: str, matched: int | None = None, total: int | None = None,
          holds: bool | None = None) -> str:
    """The one status rule of the book.

    * ``exact`` / ``noise``: ``holds`` / ``holds within tolerance`` when every compared value
      agrees, ``imprecise`` when some do, ``not reproduced`` when none do;
    * ``claim``: ``holds`` when the statement (every case counted) holds, else ``false``;
    * ``definition``: ``true by definition``;
    * ``none`` and ``unavailable``: ``not checkable``.

    Examples
    --------
    >>> grade("exact", 5, 5), grade("noise", 3, 5), grade("exact", 0, 4)
    ('holds', 'imprecise', 'not reproduced')
    >>> grade("noise", 4, 4), grade("claim", holds=False), grade("definition")
    ('holds within tolerance', 'false', 'true by definition')
    """
    if comparison not in COMPARISONS:
        raise ValueError(f"unknown comparison {comparison!r}; valid: {list(COMPARISONS)}")
    if (matched is None) != (total is None):
        raise ValueError("give both matched and total, or neither")
    if total is not None:
        matched, total = int(matched), int(total)
        if not 0 <= matched <= total or total == 0:
            raise ValueError(f"matched={matched} must lie in 0..total={total}, total > 0")
    if comparison in ("none", "unavailable", "definition"):
        if comparison != "definition" and (total is not None or holds is not None):
            raise ValueError(f"comparison {comparison!r} compares nothing: "
                             "give no matched/total/holds")
        return "true by definition" if comparison == "definition" else "not checkable"
    if comparison == "claim":
        if holds is None:
            if total is None:
                raise ValueError("a claim needs holds=True/False, or matched and total")
            holds = matched == total
        elif total is not None and bool(holds) != (matched == total):
            raise ValueError(f"holds={holds} contradicts matched={matched} of total={total}")
        return "holds" if holds else "false"
    if total is None:
        raise ValueError(f"comparison {comparison!r} needs matched and total")
    if matched == total:
        return "holds" if comparison == "exact" else "holds within tolerance"
    return "imprecise" if matched > 0 else "not reproduced"


def borderline(value: float, threshold: float, margin: float) -> bool:
    """Whether ``value`` lies within ``margin`` of ``threshold`` (either side): a result that
    one rounding unit, or the threshold's own margin, could flip.

    Examples
    --------
    >>> borderline(0.0502, 0.05, 0.001), borderline(0.2, 0.05, 0.001)
    (True, False)
    """
    return abs(float(value) - float(threshold)) <= float(margin)


def seeds_phrase(passed: int, total: int) -> str:
    """``"9 of 10 seeds"``, ``"1 of 1 seed"``.

    Examples
    --------
    >>> seeds_phrase(9, 10), seeds_phrase(1, 1)
    ('9 of 10 seeds', '1 of 1 seed')
    """
    return f"{passed} of {total} seed{'s' if total != 1 else ''}"


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``"1 typo"``, ``"3 typos"``, ``"2 analyses"`` (with ``plural_form``).

    Examples
    --------
    >>> plural(1, "typo"), plural(3, "typo"), plural(2, "omission")
    ('1 typo', '3 typos', '2 omissions')
    """
    return f"{count} {singular if count == 1 else (plural_form or singular + 's')}"


def cases_phrase(cases, limit: int = 6) -> str:
    """Cases written as tuples: ``(20, 2); (20, 6)``, at most ``limit`` then "and N more".

    Examples
    --------
    >>> cases_phrase([(20, 2), (20, 6)])
    '(20, 2); (20, 6)'
    """
    items = [("(" + ", ".join(str(x) for x in c) + ")") if isinstance(c, tuple) else str(c)
             for c in cases]
    if len(items) <= limit:
        return "; ".join(items)
    return "; ".join(items[:limit]) + f" and {len(items) - limit} more"




# --------------------------------------------------------------------------------------------
# The records a kernel writes (results.json, errata.json in the output folder)
# --------------------------------------------------------------------------------------------
RESULTS_FILE = "results.json"
ERRATA_FILE = "errata.json"

#: Units that only a stated claim can count.
CLAIM_UNITS = ("statements", "claims")


def _check_record_shape(key, comparison, unit, matched, total, status, failures, per_seed) -> None:
    if unit in CLAIM_UNITS and comparison != "claim":
        raise ValueError(
            f"record {key!r} counts {unit} but compares {comparison!r}: a set of statements is a "
            "claim and is graded with comparison='claim' (it holds only when every one holds)")
    if failures is not None:
        if isinstance(failures, str) or not all(isinstance(f, str) and f.strip() for f in failures):
            raise ValueError(f"record {key!r}: failures must be a list of non-empty strings, "
                             f"got {failures!r}")
        if status != "false" and failures:
            raise ValueError(f"record {key!r} lists failures but its status is {status!r}")
    if status == "false" and total is not None:
        failed = int(total) - int(matched)
        if not failures:
            raise ValueError(
                f"record {key!r}: a claim that fails for {failed} of {total} {unit} must name "
                "them (failures=[...]), so that the page shows what fails, not what passes")
        if len(failures) > failed:
            raise ValueError(f"record {key!r} names {len(failures)} failures but only {failed} "
                             f"of {total} {unit} fail")
    if per_seed is not None:
        seeds = [int(x) for x in per_seed]
        if len(seeds) < 2 or total is None:
            raise ValueError(f"record {key!r}: per_seed needs matched/total and at least two seeds")
        if any(not 0 <= x <= int(total) for x in seeds):
            raise ValueError(f"record {key!r}: per_seed counts must lie in 0..{total}")
        if int(matched) != median_count(seeds):
            raise ValueError(f"record {key!r}: matched={matched} is not the median "
                             f"{median_count(seeds)} of its seeds {seeds}")


def _check_alternatives(key, alternatives, total) -> None:
    """The counts under the other readings must be comparable with the record's own: a count
    in 0..total when the record counts cases, a verdict (True: holds, False: fails) when it is
    one statement with no count. Anything else would print as "0 of None"."""
    if alternatives is None:
        return
    if not isinstance(alternatives, dict) or not alternatives or not all(
            isinstance(k, str) and k.strip() for k in alternatives):
        raise ValueError(f"record {key!r}: alternatives must map each other reading (a non-empty "
                         f"string) to its result, got {alternatives!r}")
    for k, v in alternatives.items():
        if total is None:
            if not isinstance(v, bool):
                raise ValueError(
                    f"record {key!r} counts no cases (total=None), so the other reading {k!r} "
                    f"takes a verdict True (holds) or False (fails), not {v!r}")
        elif isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= v <= int(total):
            raise ValueError(f"record {key!r}: the count under the other reading {k!r} must be "
                             f"an integer in 0..{total}, got {v!r}")


def median_count(counts) -> int:
    """The median of per-seed counts: the middle one, the lower middle one for an even number.

    Examples
    --------
    >>> median_count([149, 139, 144, 140, 147]), median_count([3, 1, 2, 4])
    (144, 2)
    """
    ordered = sorted(int(c) for c in counts)
    if not ordered:
        raise ValueError("median_count needs at least one count")
    return ordered[(len(ordered) - 1) // 2]


def _append_record(filename: str, record: dict) -> None:
    path = output_dir() / filename
    records = json.loads(path.read_text()) if path.exists() else []
    records = [r for r in records if r.get("key") != record["key"]]
    records.append(record)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(records, indent=1, sort_keys=True, default=_jsonable) + "\n")
    os.replace(tmp, path)


def _jsonable(value):
    try:
        import numpy as np

        if isinstance(value, np.generic):
            return value.item()
    except ImportError:  # pragma: no cover
        pass
    raise TypeError(f"not JSON serialisable: {value!r}")


# --------------------------------------------------------------------------------------------
# Recording (in a kernel) and consistency (at build time)
# --------------------------------------------------------------------------------------------
def report(evidence: Evidence, root: Path | None = None, adhoc: Claim | None = None) -> dict:
    """Record one claim's evidence for the build (the page's verdict box, the dashboard, the
    landing page), and the errata it confirms. The wording comes from the ledger.

    ``adhoc`` is the claim of a project that keeps no ledger (a project of one's own, with no
    ``data/claims/``): its records carry that claim's words instead."""
    book = ledger(root)
    record = record_of(evidence, root, adhoc)
    _append_record(RESULTS_FILE, record)
    for f in evidence.findings:
        e = book.erratum(f.id)
        if e.claim != record["id"]:
            raise ValueError(f"erratum {f.id} belongs to claim {e.claim}, not {record['id']}")
        _append_record(ERRATA_FILE, erratum_record(e, book.claim(record["id"]), f))
    return record


def record_of(evidence: Evidence, root: Path | None = None, adhoc: Claim | None = None) -> dict:
    """The record :func:`report` writes for ``evidence``, checked but not written (the tests
    render it as the verdict box does)."""
    book = ledger(root)
    claim = adhoc if (adhoc is not None and not book.claims) else book.claim(evidence.claim)
    status = evidence.status
    failures = None if evidence.failures is None else [str(f) for f in evidence.failures]
    per_seed = None if evidence.per_seed is None else [int(x) for x in evidence.per_seed]
    _check_record_shape(claim.id, evidence.comparison, evidence.unit, evidence.matched,
                        evidence.total, status, failures, per_seed)
    for name in ("published", "reproduced"):
        value = getattr(evidence, name)
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"evidence for {claim.id} needs a non-empty {name} string")
    _check_alternatives(claim.id, evidence.alternatives, evidence.total)
    record = {
        "key": claim.id, "id": claim.id, "paper": claim.source, "artifact": claim.where,
        "claim": claim.claim, "section": claim.section or None,
        "published": evidence.published, "reproduced": evidence.reproduced,
        "comparison": evidence.comparison, "status": status,
        "matched": None if evidence.matched is None else int(evidence.matched),
        "total": None if evidence.total is None else int(evidence.total),
        "unit": evidence.unit, "holds": None if evidence.holds is None else bool(evidence.holds),
        "detail": evidence.detail, "failures": failures, "per_seed": per_seed,
        "reading": evidence.reading,
        "alternatives": None if evidence.alternatives is None else {
            k: v if isinstance(v, bool) else int(v) for k, v in evidence.alternatives.items()},
        "borderline": evidence.borderline or "",
        "seeds_passed": list(evidence.seeds_passed) if evidence.seeds_passed else None,
    }
    return record


def confirm(finding: Finding, root: Path | None = None) -> dict:
    """Record evidence for an erratum whose claim another page checks: the same discrepancy
    seen on a second page (paper B's spread of Eq. 13 beside Table IV and Table VI). The record
    carries the ledger's owner claim, so the build lists the erratum once with both pages
    (``site.merge_errata``) and the owner's status still answers for it."""
    book = ledger(root)
    e = book.erratum(finding.id)
    record = erratum_record(e, book.claim(e.claim), finding)
    _append_record(ERRATA_FILE, record)
    return record


def erratum_record(e: Erratum, claim: Claim, f: Finding) -> dict:
    if not isinstance(f.evidence, str) or not f.evidence.strip():
        raise ValueError(f"erratum {e.id} needs its computed evidence")
    return {
        "key": e.id, "id": e.id, "claim": claim.id, "paper": claim.source, "where": e.where,
        "finding": e.finding, "evidence": f.evidence, "severity": e.severity, "kind": e.kind,
        "readings": list(f.readings or []), "under": dict(f.under) if f.under else None,
        "section": claim.section or None,
        "cells": list(f.cells) if f.cells is not None else None, "artifact": claim.where,
    }


def check_consistency(book: Ledger, results: list[dict], errata: list[dict]) -> list[str]:
    """Every way the ledger, the evidence and the errata can disagree, as messages:

    * evidence for a claim the ledger does not hold, or recorded by another page;
    * an erratum recorded that the ledger does not hold, or for another claim;
    * a claim whose status is milder than its gravest recorded erratum;
    * a claim that is ``false``, ``imprecise`` or ``not reproduced`` with no recorded erratum
      of that severity explaining it.
    """
    problems = []
    by_claim = {}
    for r in results:
        cid = r.get("id")
        if cid not in book.claims:
            problems.append(f"{r.get('notebook')}: evidence for {cid!r}, which the ledger does not "
                            "hold")
            continue
        c = book.claims[cid]
        if r.get("notebook") and c.page and r["notebook"] != c.page:
            problems.append(f"{cid}: checked by {r['notebook']}, but the ledger says {c.page}")
        by_claim[cid] = r
    for e in errata:
        eid = e.get("id")
        if eid is None:  # a discrepancy without an id: site.ledger_problems names it
            continue
        if eid not in book.errata:
            problems.append(f"{e.get('notebook')}: erratum {eid!r}, which the ledger does not hold")
            continue
        owner = book.errata[eid].claim
        if e.get("claim") != owner:
            problems.append(f"erratum {eid} recorded for {e.get('claim')}, ledger says {owner}")
    recorded = {}
    for e in errata:
        if e.get("id") in book.errata:
            recorded.setdefault(book.errata[e["id"]].claim, set()).add(e["id"])
    for cid, r in by_claim.items():
        status = r["status"]
        sevs = [book.errata[i].severity for i in sorted(recorded.get(cid, ()))]
        worst = max((GRAVITY[s] for s in sevs), default=0)
        if worst > GRAVITY[status]:
            problems.append(f"{cid}: status {status!r} is milder than its erratum of severity "
                            f"{max(sevs, key=GRAVITY.get)!r}")
        if GRAVITY[status] > 0 and status not in sevs:
            problems.append(f"{cid}: status {status!r} but no recorded erratum of that severity "
                            "explains it (each departure is an erratum, data/claims/)")
    return problems


def claim_anchor(claim_id: str) -> str:
    """The stable anchor of a claim's verdict row, from its immutable id.

    Examples
    --------
    >>> claim_anchor("A-P7.1"), claim_anchor("B-TIV")
    ('claim-a-p7-1', 'claim-b-tiv')
    """
    return "claim-" + re.sub(r"[^a-z0-9]+", "-", claim_id.lower()).strip("-")


def erratum_anchor_of(erratum_id: str) -> str:
    """The stable anchor of an erratum, from its immutable id.

    Examples
    --------
    >>> erratum_anchor_of("A-E7")
    'erratum-a-e7'
    """
    return "erratum-" + re.sub(r"[^a-z0-9]+", "-", erratum_id.lower()).strip("-")


def as_dict(obj: Any) -> dict:
    """A ledger entry as a plain dict (for CSV and JSON)."""
    from dataclasses import asdict

    d = asdict(obj)
    return {k: ("; ".join(v) if isinstance(v, tuple) else v) for k, v in d.items()}


# --------------------------------------------------------------------------------------------
# Checks that can fail: the mutation protocol
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Check:
    """How the mutation test exercises one claim's check.

    ``function`` returns the claim's :class:`Evidence`; ``smoke`` are small arguments with
    which it runs in seconds; ``mutants`` maps a description of a deliberate fault (a published
    value moved beyond its tolerance, a wrong implementation, a wrong reading) to extra keyword
    arguments that inject it. The test (``tests/test_claims_mutations.py``) runs the check
    with ``smoke`` and then with each mutant, and requires the status to change every time: a
    check that no perturbation moves cannot fail, and must be fixed or graded
    ``true by definition``.
    """

    function: Any
    smoke: dict = field(default_factory=dict)
    mutants: dict = field(default_factory=dict)


def resolve_check(spec: str):
    """The ``module:function`` a ledger entry names as its check, imported."""
    import importlib

    module, _, name = spec.partition(":")
    if not module or not name:
        raise ValueError(f"check {spec!r} must read 'rankbook.papers.<source>.<page>:<function>'")
    mod = importlib.import_module(module)
    try:
        return mod, getattr(mod, name)
    except AttributeError:
        raise ValueError(f"check {spec!r}: module {module} has no function {name!r}") from None
