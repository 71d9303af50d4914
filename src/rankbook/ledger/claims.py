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

#: Where the ledger files live, under the project root: one ``<source key>.toml`` per source.
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

_PREFIX = re.compile(r"^[A-Z][A-Z0-9]*$")
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_ID_TAIL = r"-[A-Za-z0-9][A-Za-z0-9.]*(?:-[A-Za-z0-9.]+)*$"
#: A placeholder of a rule's prose, filled from the claim's ``params``: ``{{tolerance.abs}}``.
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}")
#: The prefix of a ``data`` entry fetched from another authors' repository (:mod:`.fetch`).
FETCH_PREFIX = "fetch:"


#: Data a check needs that is not on this machine (another authors' files, fetched by URL and
#: hash, with no mirror and no network): :func:`check` turns it into the status
#: ``not checkable`` with the message, which names the command that fetches the data.
from .fetch import DataUnavailable  # noqa: E402


@dataclass(frozen=True)
class Source:
    """One source of the book, as the ``[source]`` table of its ledger file states it.

    ``key`` is the ledger file's stem and the ``paper`` field of every record; ``prefix``
    starts every id of its claims (``A-P7.1``) and errata (``A-E7``); ``chapter`` is the page
    ``book/<chapter>.md`` that presents it (several sources may share one); ``order`` places it
    among the sources; ``short`` names it in tables, ``title`` in headings; ``cite`` is its key
    in ``book/references.bib``."""

    key: str
    prefix: str
    title: str
    short: str
    chapter: str
    order: int
    authors: tuple = ()
    year: int | None = None
    cite: str = ""
    url: str = ""
    about: str = ""
    file: str = ""


_SOURCE_KEYS = {"key", "prefix", "title", "short", "chapter", "order", "authors", "year", "cite",
                "url", "about"}


@dataclass(frozen=True)
class Erratum:
    """One discrepancy found in a source, belonging to one claim. ``role`` is the name its
    claim's check gives the finding that confirms it (:meth:`Claim.finding`), so that no
    erratum id is written in code."""

    id: str
    claim: str
    where: str
    kind: str
    severity: str
    finding: str
    role: str = ""


@dataclass(frozen=True)
class Claim:
    """One ledger entry (see the module docstring).

    ``params`` holds every number the decision ``rule`` uses (the rule's prose refers to them
    as ``{{name}}``, :attr:`rule_text` fills them in); ``data`` maps a role to a file under the
    project root (``data/published/...``) or to fetched data (``fetch:<key>``), read with
    :meth:`path`; ``test`` is the mutation test's protocol (``smoke`` arguments and ``mutants``,
    each with the status it must produce); ``roles`` maps the findings the check may report to
    the ids of their errata."""

    id: str
    source: str
    where: str
    kind: str
    claim: str
    page: str = ""
    section: str = ""
    data: dict = field(default_factory=dict, compare=False)
    readings: tuple = ()
    rule: str = ""
    check: str = ""
    reason: str = ""
    params: dict = field(default_factory=dict, compare=False)
    test: dict = field(default_factory=dict, compare=False)
    roles: dict = field(default_factory=dict, compare=False)
    root: str = field(default="", compare=False)

    @property
    def checked(self) -> bool:
        return bool(self.page)

    @property
    def rule_text(self) -> str:
        """The decision rule with its numbers filled in from :attr:`params`."""
        return render_rule(self.rule, self.params, self.id)

    @property
    def data_files(self) -> tuple:
        """The data the claim is compared with, as the ledger names it (for tables)."""
        return tuple(self.data.values())

    def param(self, name: str):
        """One number (or setting) of the rule, by dotted name: ``claim.param("tolerance.abs")``."""
        return _lookup(self.params, name, self.id)

    def path(self, role: str) -> Path:
        """The data file (or fetched folder) the ledger names for ``role``. Raises ValueError
        naming the roles the entry has, or :class:`DataUnavailable` for fetched data that is not
        on this machine."""
        try:
            rel = self.data[role]
        except KeyError:
            raise ValueError(f"{self.id}: its ledger entry names no data {role!r}; it names "
                             f"{sorted(self.data) or 'none'}") from None
        root = Path(self.root) if self.root else None
        if rel.startswith(FETCH_PREFIX):
            from . import fetch

            return fetch.files(rel[len(FETCH_PREFIX):], root)
        if root is None:
            from .paths import project_root

            root = project_root()
        path = root / rel
        if not path.exists():
            raise FileNotFoundError(f"{self.id}: data file {rel} (role {role!r}) not found under {root}")
        return path

    def evidence(self, **fields) -> "Evidence":
        """An :class:`Evidence` for this claim."""
        return Evidence(claim=self.id, **fields)

    def finding(self, role: str, evidence: str, **fields) -> "Finding":
        """The :class:`Finding` of this claim's erratum ``role`` (its id comes from the ledger);
        ValueError naming the roles the ledger gives this claim."""
        try:
            eid = self.roles[role]
        except KeyError:
            raise ValueError(f"{self.id}: no erratum of role {role!r} in the ledger; its errata's "
                             f"roles are {sorted(self.roles) or 'none'}") from None
        return Finding(id=eid, evidence=evidence, **fields)

    def has_finding(self, role: str) -> bool:
        return role in self.roles

    def with_params(self, changes: dict) -> "Claim":
        """This claim with some numbers of its rule changed (a mutant of the mutation test, or
        a reader's own threshold): nested tables are merged, not replaced."""
        from dataclasses import replace

        return replace(self, params=_merged(self.params, changes))


def _merged(base: dict, changes: dict) -> dict:
    out = dict(base)
    for k, v in changes.items():
        out[k] = _merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _lookup(params: dict, name: str, who: str):
    value = params
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            raise ValueError(f"{who}: the rule's number {name!r} is not in its params; "
                             f"params: {sorted(params) or 'none'}")
        value = value[part]
    return value


def format_number(value) -> str:
    """A rule's number as prose prints it: ``0.005``, ``2.5``, ``1000``, ``10, 50 and 100``."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        items = [format_number(v) for v in value]
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
    if isinstance(value, float):
        return f"{value:g}" if abs(value) >= 1e-4 or value == 0 else f"{value:.0e}"
    return str(value)


def render_rule(rule: str, params: dict, who: str = "rule") -> str:
    """``rule`` with each ``{{name}}`` replaced by its value in ``params``.

    Examples
    --------
    >>> render_rule("within {{tol.abs}} + {{n_sd}} sd", {"tol": {"abs": 0.005}, "n_sd": 2.5})
    'within 0.005 + 2.5 sd'
    """
    return _PLACEHOLDER.sub(lambda m: format_number(_lookup(params, m.group(1), who)), rule)


@dataclass
class Ledger:
    claims: dict = field(default_factory=dict)
    errata: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)

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

    def source(self, key: str) -> Source:
        try:
            return self.sources[key]
        except KeyError:
            raise ValueError(f"unknown source {key!r}; the ledger's sources: "
                             f"{', '.join(self.sources) or 'none'}") from None

    def errata_of(self, claim_id: str) -> list[Erratum]:
        return [e for e in self.errata.values() if e.claim == claim_id]

    def for_page(self, page: str) -> list[Claim]:
        return [c for c in self.claims.values() if c.page == page]

    def order(self, key: str) -> int:
        """Where source ``key`` stands among the sources (unknown ones last)."""
        keys = list(self.sources)
        return keys.index(key) if key in keys else len(keys)

    def short(self, key: str) -> str:
        return self.sources[key].short if key in self.sources else key

    def title(self, key: str) -> str:
        return self.sources[key].title if key in self.sources else key

    def chapters(self) -> dict[str, tuple]:
        """Each chapter page and the keys of the sources it presents, in source order."""
        out: dict[str, list] = {}
        for s in self.sources.values():
            out.setdefault(s.chapter, []).append(s.key)
        return {k: tuple(v) for k, v in out.items()}


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


def _data(value, where: str) -> dict:
    """``data`` as a table role -> path; a list of paths takes each file's stem as its role."""
    if value is None:
        return {}
    if isinstance(value, list):
        paths = _strs(value, f"{where}: data")
        out = {}
        for rel in paths:
            role = Path(rel.removeprefix(FETCH_PREFIX)).stem
            if role in out:
                raise ValueError(f"{where}: two data files named {role!r}; give data as a table "
                                 "of roles, data = {{role = \"path\", ...}}")
            out[role] = rel
        return out
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) and v.strip()
                                       for k, v in value.items()):
        return dict(value)
    raise ValueError(f"{where}: data must be a table of roles to paths, got {value!r}")


_CLAIM_KEYS = {"id", "where", "kind", "claim", "page", "section", "data", "readings", "rule",
               "check", "reason", "params", "test", "confirms"}
_ERRATUM_KEYS = {"id", "claim", "where", "kind", "severity", "finding", "role"}
_TEST_KEYS = {"smoke", "mutants"}
_MUTANT_KEYS = {"what", "args", "params", "perturb", "expect"}


def _test(value, where: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict) or set(value) - _TEST_KEYS:
        raise ValueError(f"{where}: test must be a table with smoke and mutants, got {value!r}")
    smoke = value.get("smoke", {})
    if not isinstance(smoke, dict):
        raise ValueError(f"{where}: test.smoke must be a table of keyword arguments")
    mutants = value.get("mutants", [])
    if not isinstance(mutants, list):
        raise ValueError(f"{where}: test.mutants must be a list of tables")
    for i, m in enumerate(mutants, 1):
        at = f"{where}, mutant {i}"
        if not isinstance(m, dict) or set(m) - _MUTANT_KEYS:
            raise ValueError(f"{at}: keys must be among {sorted(_MUTANT_KEYS)}, got {m!r}")
        if not isinstance(m.get("what"), str) or not m["what"].strip():
            raise ValueError(f"{at}: says what fault it injects (what = \"...\")")
        if m.get("expect") not in STATUSES or m.get("expect") == "not checkable":
            raise ValueError(f"{at}: expect must be the status the fault produces, one of "
                             f"{[s for s in STATUSES if s != 'not checkable']}, got {m.get('expect')!r}")
        if not any(k in m for k in ("args", "params", "perturb")):
            raise ValueError(f"{at}: injects nothing; give args, params or perturb")
        for k in ("args", "params"):
            if k in m and not isinstance(m[k], dict):
                raise ValueError(f"{at}: {k} must be a table")
        if "perturb" in m and not (isinstance(m["perturb"], str) and m["perturb"].isidentifier()):
            raise ValueError(f"{at}: perturb names a function of the check's module")
    return {"smoke": dict(smoke), "mutants": [dict(m) for m in mutants]}


def _source(doc: dict, path: Path) -> Source:
    table = doc.get("source")
    where = f"{path.name}, [source]"
    if not isinstance(table, dict):
        raise ValueError(f"{path}: must start with a [source] table (key, prefix, title, short, "
                         "chapter, order; authors, year, cite, url)")
    extra = set(table) - _SOURCE_KEYS
    if extra:
        raise ValueError(f"{where}: unknown keys {sorted(extra)}; valid: {sorted(_SOURCE_KEYS)}")
    key = _text(table, "key", where)
    if key != path.stem or not _KEY.match(key):
        raise ValueError(f"{where}: key {key!r} must be the file's name without .toml ({path.stem!r})")
    prefix = _text(table, "prefix", where)
    if not _PREFIX.match(prefix):
        raise ValueError(f"{where}: prefix {prefix!r} must be capital letters and digits (A, BR)")
    order = table.get("order")
    if isinstance(order, bool) or not isinstance(order, int):
        raise ValueError(f"{where}: order must be a whole number, got {order!r}")
    year = table.get("year")
    if year is not None and (isinstance(year, bool) or not isinstance(year, int)):
        raise ValueError(f"{where}: year must be a whole number, got {year!r}")
    return Source(key=key, prefix=prefix, title=_text(table, "title", where),
                  short=_text(table, "short", where), chapter=_text(table, "chapter", where),
                  order=order, authors=_strs(table.get("authors"), f"{where}: authors"),
                  year=year, cite=_text(table, "cite", where, required=False),
                  url=_text(table, "url", where, required=False),
                  about=_text(table, "about", where, required=False), file=path.name)


def parse_ledger_file(path: Path, root: Path | None = None) -> Ledger:
    """One source's ledger file, validated; ValueError naming the file and the entry."""
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the claims ledger: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: the claims ledger is not UTF-8 text ({exc.reason} at byte "
                         f"{exc.start})") from None
    if text.startswith("\ufeff"):
        raise ValueError(f"{path}: starts with a byte-order mark (U+FEFF), which TOML does not "
                         "allow; save the file as UTF-8 without a BOM")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: cannot read the claims ledger: {exc}") from None
    source = _source(doc, path)
    prefix = source.prefix
    claim_id = re.compile("^" + re.escape(prefix) + _ID_TAIL)
    erratum_id = re.compile("^" + re.escape(prefix) + r"-E[0-9]+$")
    unknown_top = set(doc) - {"source", "claims", "errata"}
    if unknown_top:
        raise ValueError(f"{path}: unknown keys {sorted(unknown_top)}; valid: source, claims, errata")
    errata: dict[str, Erratum] = {}
    for i, entry in enumerate(doc.get("errata", []), 1):
        where = f"{path.name}, erratum {i} ({entry.get('id', '?')})"
        extra = set(entry) - _ERRATUM_KEYS
        if extra:
            raise ValueError(f"{where}: unknown keys {sorted(extra)}; valid: {sorted(_ERRATUM_KEYS)}")
        eid = _text(entry, "id", where)
        if not erratum_id.match(eid):
            raise ValueError(f"{where}: id {eid!r} must look like {prefix}-E7")
        if eid in errata:
            raise ValueError(f"{where}: id {eid!r} is used twice")
        kind = _text(entry, "kind", where)
        if kind not in ERRATUM_KINDS:
            raise ValueError(f"{where}: unknown kind {kind!r}; valid: {list(ERRATUM_KINDS)}")
        severity = _text(entry, "severity", where)
        if severity not in SEVERITIES:
            raise ValueError(f"{where}: unknown severity {severity!r}; valid: {list(SEVERITIES)}")
        role = _text(entry, "role", where, required=False)
        if role and not role.isidentifier():
            raise ValueError(f"{where}: role {role!r} must be a name (letters, digits, _)")
        errata[eid] = Erratum(id=eid, claim=_text(entry, "claim", where),
                              where=_text(entry, "where", where), kind=kind, severity=severity,
                              finding=_text(entry, "finding", where), role=role)
    roles: dict[str, dict] = {}
    for e in errata.values():
        if e.role:
            mine = roles.setdefault(e.claim, {})
            if e.role in mine:
                raise ValueError(f"{path.name}: errata {mine[e.role]} and {e.id} of {e.claim} both "
                                 f"have role {e.role!r}")
            mine[e.role] = e.id
    ledger = Ledger(sources={source.key: source})
    for i, entry in enumerate(doc.get("claims", []), 1):
        where = f"{path.name}, claim {i} ({entry.get('id', '?')})"
        extra = set(entry) - _CLAIM_KEYS
        if extra:
            raise ValueError(f"{where}: unknown keys {sorted(extra)}; valid: {sorted(_CLAIM_KEYS)}")
        cid = _text(entry, "id", where)
        if not claim_id.match(cid) or erratum_id.match(cid):
            raise ValueError(f"{where}: id {cid!r} must look like {prefix}-P7.1 ({prefix}- then "
                             "letters, digits, dots and dashes; E<number> is for errata)")
        if cid in ledger.claims:
            raise ValueError(f"{where}: id {cid!r} is used twice")
        kind = _text(entry, "kind", where)
        if kind not in KINDS:
            raise ValueError(f"{where}: unknown kind {kind!r}; valid: {list(KINDS)}")
        params = entry.get("params", {})
        if not isinstance(params, dict):
            raise ValueError(f"{where}: params must be a table of the rule's numbers")
        confirms = entry.get("confirms", {})
        if not isinstance(confirms, dict) or not all(
                isinstance(k, str) and k.isidentifier() and isinstance(v, str) for k, v in confirms.items()):
            raise ValueError(f"{where}: confirms must map a role to the id of another claim's "
                             "erratum that this check also sees, e.g. confirms = {spread = \"B-E6\"}")
        clash = set(confirms) & set(roles.get(cid, {}))
        if clash:
            raise ValueError(f"{where}: roles {sorted(clash)} name both an own erratum and a confirmed one")
        claim = Claim(
            id=cid, source=source.key, where=_text(entry, "where", where), kind=kind,
            claim=_text(entry, "claim", where),
            page=_text(entry, "page", where, required=False),
            section=_text(entry, "section", where, required=False),
            data=_data(entry.get("data"), where),
            readings=_strs(entry.get("readings"), f"{where}: readings"),
            rule=_text(entry, "rule", where, required=False),
            check=_text(entry, "check", where, required=False),
            reason=_text(entry, "reason", where, required=False),
            params=params, test=_test(entry.get("test"), where),
            roles={**roles.get(cid, {}), **confirms}, root=str(root) if root is not None else "",
        )
        if bool(claim.page) == bool(claim.reason):
            raise ValueError(f"{where}: give the page that checks it or the reason it is not "
                             "checked, not both and not neither")
        if claim.page and not claim.rule:
            raise ValueError(f"{where}: a checked claim states its decision rule (rule = ...)")
        if claim.check and ":" not in claim.check:
            raise ValueError(f"{where}: check {claim.check!r} must read 'module:function'")
        try:
            claim.rule_text
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        if root is not None:
            for role, rel in claim.data.items():
                if not rel.startswith(FETCH_PREFIX) and not (root / rel).is_file():
                    raise ValueError(f"{where}: data file {rel!r} ({role}) does not exist")
        ledger.claims[cid] = claim
    for e in errata.values():
        if e.claim not in ledger.claims:
            raise ValueError(f"{path.name}, erratum {e.id}: belongs to claim {e.claim!r}, which is "
                             f"not in {path.name}")
    ledger.errata.update(errata)
    return ledger


#: The fields of a claim that decide what its check computes; its words (claim, where,
#: section, rule prose, reason, readings) and its mutation test do not. A page's cache key
#: holds these fields of the claims it uses (:func:`page_entries`), so rewording a claim
#: re-renders its pages and executes none, while changing a number of its rule executes only
#: the pages that check it.
EXECUTED_FIELDS = ("id", "page", "check", "data", "params", "roles")


def page_entries(book: "Ledger", page: str, source_text: str = "") -> dict:
    """The executed fields (:data:`EXECUTED_FIELDS`) of every claim page ``page`` uses: the
    claims it checks (``page = "<page>"``) and any other claim whose id its notebook's source
    names (a page that confirms another page's erratum, or shows another page's claim)."""
    named = set(re.findall(r"[A-Z][A-Z0-9]*-[A-Za-z0-9][A-Za-z0-9.\-]*", source_text))
    out = {}
    for c in book.claims.values():
        if c.page == page or c.id in named:
            out[c.id] = {f: getattr(c, f) for f in EXECUTED_FIELDS}
    return out


def load_ledger(root: Path | None = None) -> Ledger:
    """Every source's ledger (``data/claims/*.toml``), validated and merged; the sources in
    their stated order."""
    if root is None:
        from .paths import project_root

        root = project_root()
    folder = root.joinpath(*LEDGER_DIR)
    merged = Ledger()
    if not folder.is_dir():
        return merged
    parts = [parse_ledger_file(path, root) for path in sorted(folder.glob("*.toml"))]
    prefixes: dict[str, str] = {}
    for one in parts:
        (source,) = one.sources.values()
        if source.prefix in prefixes:
            raise ValueError(f"{source.file} and {prefixes[source.prefix]} both use the id prefix "
                             f"{source.prefix!r}; give each source its own")
        prefixes[source.prefix] = source.file
        merged.claims.update(one.claims)
        merged.errata.update(one.errata)
    for c in merged.claims.values():
        for role, eid in c.roles.items():
            if eid not in merged.errata:
                raise ValueError(f"{c.id}: confirms {eid!r} (role {role!r}), which is no erratum of "
                                 "the ledger")
    for one in sorted(parts, key=lambda p: (next(iter(p.sources.values())).order,
                                             next(iter(p.sources)))):
        merged.sources.update(one.sources)
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


class _Shows:
    """What a page section shows, in order: tables, figures and sentences (Markdown). A page
    passes it to :func:`rankbook.book.outputs.show`, the one way a section reaches a page.

    ``tables`` and ``figures`` hold the objects by stem (a page or a test can pick one);
    ``items`` keeps the order and each one's save options."""

    def add_table(self, stem: str, frame, **options):
        """Show ``frame`` as the table ``stem`` (options of ``outputs.save_table``: title,
        float_format, collapse, markdown ...); returns the frame."""
        self.tables[stem] = frame
        self.items.append(("table", stem, options))
        return frame

    def add_figure(self, stem: str, fig, **options):
        """Show ``fig`` as the figure ``stem`` (options of ``outputs.save_figure``: caption,
        alt, wide ...); returns the figure."""
        self.figures[stem] = fig
        self.items.append(("figure", stem, options))
        return fig

    def say(self, text: str) -> None:
        """Show one Markdown sentence or paragraph."""
        self.items.append(("markdown", text, {}))

    def options(self, stem: str) -> dict:
        """The save options the table or figure ``stem`` was added with."""
        return next((o for kind, s, o in self.items if kind in ("table", "figure") and s == stem), {})


@dataclass
class Section(_Shows):
    """The tables, figures and sentences of one page section that checks no claim, and the
    ``values`` the page computes from (never shown as they are)."""

    tables: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict)
    items: list = field(default_factory=list)
    values: dict = field(default_factory=dict)


@dataclass
class Finding:
    """The computed evidence for one ledger erratum (``id``), from one build."""

    id: str
    evidence: str
    cells: list | None = None
    under: dict | None = None
    readings: list = field(default_factory=list)


@dataclass
class Evidence(_Shows):
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
    figures: dict = field(default_factory=dict)
    items: list = field(default_factory=list)

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


def _check_alternatives(key, alternatives, total, reading=None) -> None:
    """The counts under the other readings must be comparable with the record's own: a count
    in 0..total when the record counts cases, a verdict (True: holds, False: fails) when it is
    one statement with no count. Anything else would print as "0 of None"."""
    if alternatives is None:
        return
    if not reading:
        raise ValueError(f"record {key!r}: alternatives (counts under other readings) need "
                         "reading=, the reading its own count uses")
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
def report(evidence: Evidence, root: Path | None = None, adhoc: Claim | None = None,
           adhoc_errata: tuple = ()) -> dict:
    """Record one claim's evidence for the build (the page's verdict box, the dashboard, the
    landing page), and the errata it confirms. The wording comes from the ledger.

    ``adhoc`` is the claim of a project that keeps no ledger (a project of one's own, with no
    ``data/claims/``), and ``adhoc_errata`` the :class:`Erratum` entries its findings name: its
    records carry their words instead."""
    book = ledger(root)
    record = record_of(evidence, root, adhoc)
    _append_record(RESULTS_FILE, record)
    if adhoc is not None and not book.claims:
        own = {e.id: e for e in adhoc_errata}
        for f in evidence.findings:
            if f.id not in own:
                raise ValueError(f"finding {f.id}: pass its Erratum in adhoc_errata (this project "
                                 "keeps no ledger)")
            e = own[f.id]
            _append_record(ERRATA_FILE, {**erratum_record(e, adhoc, f), "where": e.where,
                                         "finding": e.finding, "severity": e.severity,
                                         "kind": e.kind, "artifact": adhoc.where,
                                         "section": adhoc.section or None})
        return record
    mine = book.claims.get(record["id"])
    for f in evidence.findings:
        e = book.erratum(f.id)
        if e.claim != record["id"] and (mine is None or f.id not in mine.roles.values()):
            raise ValueError(f"erratum {f.id} belongs to claim {e.claim}, not {record['id']}, and "
                             f"{record['id']}'s ledger entry does not confirm it (confirms = ...)")
        _append_record(ERRATA_FILE, erratum_record(e, book.claim(e.claim), f))
    return record


def record_of(evidence: Evidence, root: Path | None = None, adhoc: Claim | None = None) -> dict:
    """The record :func:`report` writes for ``evidence``, checked but not written (the tests
    render it as the verdict box does).

    A record holds what the check computed, never the ledger's words (the claim, where it
    sits, the section): those are read from the ledger when a page is rendered
    (:func:`worded`), so that rewording a claim re-renders its pages without executing them.
    A project of one's own that keeps no ledger passes its claim as ``adhoc``; its record
    carries that claim's words."""
    book = ledger(root)
    own = adhoc is not None and not book.claims
    claim = adhoc if own else book.claim(evidence.claim)
    status = evidence.status
    failures = None if evidence.failures is None else [str(f) for f in evidence.failures]
    per_seed = None if evidence.per_seed is None else [int(x) for x in evidence.per_seed]
    _check_record_shape(claim.id, evidence.comparison, evidence.unit, evidence.matched,
                        evidence.total, status, failures, per_seed)
    for name in ("published", "reproduced"):
        value = getattr(evidence, name)
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"evidence for {claim.id} needs a non-empty {name} string")
    _check_alternatives(claim.id, evidence.alternatives, evidence.total, evidence.reading)
    record = {
        "key": claim.id, "id": claim.id, "paper": claim.source,
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
    if own:
        record.update(artifact=claim.where, claim=claim.claim, section=claim.section or None)
    return worded(record, book)


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
    """The computed evidence of one erratum, as written; its words come from the ledger at
    render time (:func:`worded_erratum`)."""
    if not isinstance(f.evidence, str) or not f.evidence.strip():
        raise ValueError(f"erratum {e.id} needs its computed evidence")
    if isinstance(f.readings, str) or not all(isinstance(r, str) and r for r in f.readings or []):
        raise ValueError(f"erratum {e.id}: readings must be a list of non-empty strings, got "
                         f"{f.readings!r}")
    if f.under is not None and not (isinstance(f.under, dict) and f.under and all(
            isinstance(k, str) and isinstance(v, str) for k, v in f.under.items())):
        raise ValueError(f"erratum {e.id}: under must map each reading (str) to its verdict (str), "
                         f"got {f.under!r}")
    if f.under and not f.readings:
        raise ValueError(f"erratum {e.id}: a verdict that changes under another reading must name "
                         "the readings it depends on")
    return {
        "key": e.id, "id": e.id, "claim": claim.id, "paper": claim.source,
        "evidence": f.evidence, "readings": list(f.readings or []),
        "under": dict(f.under) if f.under else None,
        "cells": list(f.cells) if f.cells is not None else None,
    }


def worded(record: dict, book: Ledger) -> dict:
    """A result record with the ledger's words for its claim (what it says, where it sits,
    the section that shows it). A record of a claim the ledger does not hold is returned as it
    is (a project without a ledger keeps its words in its records)."""
    c = book.claims.get(record.get("id"))
    if c is None:
        return record
    return {**record, "paper": c.source, "artifact": c.where, "claim": c.claim,
            "section": c.section or None}


def worded_erratum(record: dict, book: Ledger) -> dict:
    """An erratum record with the ledger's words (where, finding, kind, severity) and its
    claim's place and section."""
    e = book.errata.get(record.get("id"))
    if e is None:
        return record
    c = book.claims[e.claim]
    return {**record, "claim": e.claim, "paper": c.source, "where": e.where,
            "finding": e.finding, "severity": e.severity, "kind": e.kind,
            "section": c.section or None, "artifact": c.where}


def read_records(path: Path) -> list[dict]:
    """The records of one ``results.json`` or ``errata.json``, the one reader every part of
    the book uses: a missing file is no records; a file that is not a JSON list of records is a
    ValueError naming it and saying how to make it again (never an empty list)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is unreadable ({exc}); execute its notebook again "
                         "(`rankbook build` does it)") from None
    try:
        records = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is corrupt ({exc}); execute its notebook again "
                         "(`rankbook build` does it)") from None
    if not isinstance(records, list) or not all(isinstance(r, dict) and "id" in r for r in records):
        raise ValueError(f"{path} does not hold a list of records with ids; execute its "
                         "notebook again (`rankbook build` does it)")
    return records


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
# The entry point of a check, and checks that can fail: the mutation protocol
# --------------------------------------------------------------------------------------------
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


def unavailable(claim: Claim, why: str) -> Evidence:
    """The evidence of a claim whose data is not on this machine: not checkable, with the
    reason (which names the command that fetches the data)."""
    return claim.evidence(comparison="unavailable", published="the published values",
                          reproduced="not checkable: data unavailable", detail=why)


def run_check(claim: Claim, kwargs: dict | None = None) -> Evidence:
    """Run ``claim``'s check (the ledger's ``check``) with the claim and ``kwargs``."""
    if not claim.check:
        raise ValueError(f"{claim.id} is not checked by any function (its ledger entry has no "
                         "check)")
    _, function = resolve_check(claim.check)
    try:
        evidence = function(claim, **(kwargs or {}))
    except DataUnavailable as exc:
        return unavailable(claim, str(exc))
    if not isinstance(evidence, Evidence) or evidence.claim != claim.id:
        raise ValueError(f"{claim.check} returned evidence for "
                         f"{getattr(evidence, 'claim', evidence)!r}, not for {claim.id}")
    return evidence


def check(claim_id: str, /, root: Path | None = None, **kwargs) -> Evidence:
    """The one entry point of a claim's check: the ledger entry ``claim_id`` (its numbers,
    data files and readings) passed to the function its ``check`` names, with ``kwargs`` (a
    page's parameters). Data that is not on this machine gives the status ``not checkable``
    with the command that fetches it."""
    return run_check(ledger(root).claim(claim_id), kwargs)


def mutants(claim: Claim):
    """The mutation test's cases of ``claim`` (``[claims.test]`` of its ledger entry): for each
    mutant ``(what, claim, kwargs, expect)``: the fault's description, the claim as the check
    sees it (its numbers changed by the mutant's ``params``), the keyword arguments (the smoke
    arguments with the mutant's ``args`` and what its ``perturb`` function returns) and the
    status the fault must produce."""
    module, _ = resolve_check(claim.check)
    smoke = dict(claim.test.get("smoke", {}))
    for m in claim.test.get("mutants", []):
        kwargs = {**smoke, **m.get("args", {})}
        if "perturb" in m:
            perturb = getattr(module, m["perturb"], None)
            if perturb is None:
                raise ValueError(f"{claim.id}: mutant {m['what']!r} names perturb={m['perturb']!r}, "
                                 f"which {module.__name__} does not define")
            kwargs.update(perturb(claim, **smoke))
        variant = claim.with_params(m["params"]) if "params" in m else claim
        yield m["what"], variant, kwargs, m["expect"]
