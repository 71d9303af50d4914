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

from ..ledger import claims as _claims
from ..ledger.paths import project_root


def _last_build(root: Path) -> tuple[dict, dict, dict]:
    """The evidence and the errata the last build recorded, by claim id and erratum id, and
    the pages whose records cannot be trusted, with the reason (empty before the first build).

    A page's records are used only when its outputs are the ones its execution wrote (the
    content hashes of its key file, :func:`rankbook.book.pipeline.verify_outputs`) and each
    result's status is the one the status rule gives its evidence
    (:func:`rankbook.book.outputs.check_status`): a ``results.json`` edited by hand is named,
    never shown as a status."""
    from ..ledger.claims import ERRATA_FILE, RESULTS_FILE, read_records
    from .outputs import check_status
    from .pipeline import verify_outputs

    gen = root / "book" / "generated"
    results, errata, distrusted = {}, {}, {}
    folders = sorted({p.parent for name in (RESULTS_FILE, ERRATA_FILE) for p in gen.glob(f"*/{name}")})
    for folder in folders:
        page = folder.name
        if page.startswith((".", "_")):
            continue
        _, why = verify_outputs(folder, gen / f"{page}.ipynb")
        if why is not None:
            distrusted[page] = why
            continue
        found_r = read_records(folder / RESULTS_FILE)
        found_e = read_records(folder / ERRATA_FILE)
        try:
            for rec in found_r:
                check_status(rec)
        except ValueError as exc:
            distrusted[page] = str(exc)
            continue
        for into, records in ((results, found_r), (errata, found_e)):
            for rec in records:
                into.setdefault(rec["id"], {**rec, "notebook": page})
    return results, errata, distrusted


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
    results, errata, distrusted = _last_build(root)
    for page, why in sorted(distrusted.items()):
        print(f"rankbook claims: the records of {page} are not used: {why}; `rankbook build` "
              f"executes {page} again", file=sys.stderr)
    if args.id:
        wanted = args.id.strip()
        by_lower = {k.lower(): k for k in (*book.claims, *book.errata)}
        wanted = by_lower.get(wanted.lower(), wanted)  # ids in any case: a-p7.1 is A-P7.1
        if wanted in book.errata:
            wanted = book.errata[wanted].claim
        if wanted not in book.claims:
            close = [c for c in book.claims if c.lower().startswith(wanted.lower()[:3])][:8]
            examples = ", ".join(next((c.id for c in book.claims.values() if c.source == k), k)
                                 for k in list(book.sources)[:3])
            print(f"rankbook claims: unknown claim id {args.id!r}; ids look like {examples}"
                  f"{'; close: ' + ', '.join(close) if close else ''} "
                  "(`rankbook claims` lists them all)", file=sys.stderr)
            return 2
        _print_one(book, book.claims[wanted], results.get(wanted), errata)
        return 0
    sources = {s.lower(): s for s in book.sources}
    if args.source and args.source.lower() not in sources:
        print(f"rankbook claims: unknown source {args.source!r}; valid: "
              f"{', '.join(book.sources)}", file=sys.stderr)
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
        print(_wrap("rule", c.rule_text))
    for r in c.readings:
        print(_wrap("reading", r))
    for role, d in c.data.items():
        print(_wrap("data", f"{d} ({role})"))
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
