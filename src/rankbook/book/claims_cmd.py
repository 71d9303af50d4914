"""``rankbook claims``: the ledger with each claim's status from the last build.

``rankbook claims`` lists every claim (id, status, page, errata), filtered by ``--source`` and
``--status``; ``rankbook claims ID`` prints one claim: where it sits, our wording, the decision
rule, the evidence of the last build, its errata with their evidence, and the command that
reruns it.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from . import claims as _claims
from .paths import project_root


def _last_build(root: Path) -> tuple[dict, dict]:
    """The evidence and the errata the last build recorded, by claim id and erratum id
    (empty before the first build; a corrupt record file is named, never a traceback)."""
    import json

    from .claims import ERRATA_FILE, RESULTS_FILE

    gen = root / "book" / "generated"
    results, errata = {}, {}
    for name, into in ((RESULTS_FILE, results), (ERRATA_FILE, errata)):
        for path in sorted(gen.glob(f"*/{name}")):
            try:
                records = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise ValueError(f"{path}: unreadable record file ({exc}); rebuild with "
                                 "`rankbook build`") from None
            for rec in records:
                if rec.get("id"):
                    into.setdefault(rec["id"], {**rec, "notebook": path.parent.name})
    return results, errata


def _wrap(label: str, text: str) -> str:
    body = textwrap.fill(str(text), width=96, initial_indent=" " * 14,
                         subsequent_indent=" " * 14).lstrip()
    return f"  {label:<11} {body}"


#: The status shown for a checked claim that no build has given a result yet.
NO_RESULT = "no result"


def _status(rec: dict | None, claim: _claims.Claim) -> str:
    if rec is not None:
        return rec["status"] + (" (borderline)" if rec.get("borderline") else "")
    return "not checkable" if not claim.page else f"{NO_RESULT} (build first)"


def run(args) -> int:
    root = project_root()
    book = _claims.load_ledger(root)
    results, errata = _last_build(root)
    if args.id:
        wanted = args.id.strip()
        by_lower = {k.lower(): k for k in (*book.claims, *book.errata)}
        wanted = by_lower.get(wanted.lower(), wanted)  # ids in any case: a-p7.1 is A-P7.1
        if wanted in book.errata:
            wanted = book.errata[wanted].claim
        if wanted not in book.claims:
            close = [c for c in book.claims if c.lower().startswith(wanted.lower()[:3])][:8]
            print(f"rankbook claims: unknown claim id {args.id!r}; ids look like A-P7.1, B-TIV, "
                  f"N-RBO-ex{'; close: ' + ', '.join(close) if close else ''} "
                  "(`rankbook claims` lists them all)", file=sys.stderr)
            return 2
        _print_one(book, book.claims[wanted], results.get(wanted), errata)
        return 0
    sources = {s.lower(): s for s in _claims.SOURCES}
    if args.source and args.source.lower() not in sources:
        print(f"rankbook claims: unknown source {args.source!r}; valid: "
              f"{', '.join(_claims.SOURCES)}", file=sys.stderr)
        return 2
    statuses = {s.lower(): s for s in (*_claims.STATUSES, NO_RESULT)}
    wanted_status = statuses.get(args.status.strip().lower()) if args.status else None
    if args.status and wanted_status is None:
        print(f"rankbook claims: unknown status {args.status!r}; valid: "
              f"{', '.join(repr(s) for s in statuses.values())}", file=sys.stderr)
        return 2
    rows = []
    for c in book.claims.values():
        if args.source and c.source != sources[args.source.lower()]:
            continue
        status = _status(results.get(c.id), c)
        if wanted_status and status.split(" (")[0] != wanted_status:
            continue
        ids = [e.id for e in book.errata_of(c.id)]
        rows.append((c.id, status, c.page or "not checked", ", ".join(ids)))
    if rows:
        head = ("claim", "status (last build)", "page", "errata")
        widths = [max(len(r[i]) for r in (head, *rows)) for i in range(3)]
        for r in (head, *rows):
            print(("  ".join(x.ljust(w) for x, w in zip(r, widths)) + "  " + r[3]).rstrip())
    print(f"{len(rows)} claim{'s' if len(rows) != 1 else ''}; `rankbook claims ID` shows one with "
          "its evidence", file=sys.stderr)
    if not results:
        print("no build has recorded a result yet: `rankbook build` (or `make book`) gives each "
              f"checked claim its status; until then they show {NO_RESULT!r}", file=sys.stderr)
    return 0


def _print_one(book, c, rec, errata) -> None:
    print(f"{c.id}: {c.where} ({c.kind}, source {c.source})")
    print(_wrap("claim", c.claim))
    print(_wrap("status", _status(rec, c)))
    if c.reason:
        print(_wrap("not checked", c.reason))
    if c.rule:
        print(_wrap("rule", c.rule))
    for r in c.readings:
        print(_wrap("reading", r))
    for d in c.data:
        print(_wrap("published", d))
    if rec is not None:
        for key in ("published", "reproduced", "detail", "borderline", "reading"):
            if rec.get(key):
                print(_wrap(key if key != "published" else "printed", rec[key]))
    for e in book.errata_of(c.id):
        got = errata.get(e.id)
        print(_wrap(e.id, f"[{e.severity}; {e.kind}] {e.where}: {e.finding}"))
        if got is not None:
            for line in str(got.get("evidence", "")).splitlines():
                if line.strip():
                    print(_wrap("", "evidence: " + line.strip()))
    if c.page:
        print(_wrap("page", f"{c.page}, section {c.section!r}" if c.section else c.page))
        print(_wrap("rerun", f"rankbook run {c.page}    (the paper's settings; "
                             f"`rankbook list {c.page}` shows the parameters)"))
    if c.check:
        print(_wrap("check", c.check))
