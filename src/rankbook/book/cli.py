"""The ``rankbook`` command: ``build``, ``run`` and ``list``.

Exit status: 0 on success, 1 when a notebook or the book build fails, 2 for bad usage (unknown
notebook, unknown parameter, a value that does not parse to its default's type).
"""

from __future__ import annotations

import argparse
import sys

from . import pipeline


def _cmd_list(args) -> int:
    specs = pipeline.discover()
    for spec in specs:
        print(f"{spec.name}: {spec.description}")
        if not spec.parameters:
            print("    (no parameters)")
        for p in spec.parameters.values():
            comment = f"  # {p.comment}" if p.comment else ""
            print(f"    {p.name} ({p.type_name}) = {p.default!r}{comment}")
    return 0


def _cmd_run(args) -> int:
    overrides = [(k, v) for k, v in (args.param or [])]
    try:
        folder = pipeline.run_one(args.name, overrides)
    except pipeline.ParameterError as exc:
        print(f"rankbook run: {exc}", file=sys.stderr)
        return 2
    except pipeline.NotebookFailed as exc:
        print(f"rankbook run: {exc}", file=sys.stderr)
        return 1
    print(folder)
    return 0


def _cmd_build(args) -> int:
    report = pipeline.execute_all(force=args.force, jobs=args.jobs, progress=not args.quiet)
    print(f"executed: {', '.join(report.ran) or '(none)'}")
    print(f"reused:   {', '.join(report.reused) or '(none)'}")
    if report.failed:
        for msg in report.messages:
            print(f"rankbook build: {msg}", file=sys.stderr)
        print(f"rankbook build: {len(report.failed)} notebook(s) failed: "
              f"{', '.join(report.failed)}; the book was not rebuilt", file=sys.stderr)
        return 1
    if args.no_book:
        return 0
    try:
        index = pipeline.build_site()
    except RuntimeError as exc:
        print(f"rankbook build: {exc}", file=sys.stderr)
        return 1
    print(f"The book is ready: open file://{index}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="rankbook",
        description="Execute rankbook's parameterized notebooks and build the companion book.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    b = sub.add_parser("build", help="execute changed notebooks, then build the site")
    b.add_argument("--force", action="store_true", help="re-execute every notebook")
    b.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="notebooks executed at once (default: number of cores)")
    b.add_argument("--no-book", action="store_true",
                   help="execute the notebooks but do not run jupyter-book")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=_cmd_build)

    r = sub.add_parser("run", help="execute one notebook with new parameters into runs/NAME/")
    r.add_argument("name", help="notebook name (see `rankbook list`)")
    r.add_argument("-p", "--param", nargs=2, action="append", metavar=("KEY", "VALUE"),
                   help="set a parameter; repeat for several")
    r.set_defaults(func=_cmd_run)

    lst = sub.add_parser("list", help="list notebooks with their parameters and defaults")
    lst.set_defaults(func=_cmd_list)

    args = parser.parse_args(argv)
    if getattr(args, "jobs", None) is not None and args.jobs < 1:
        parser.error(f"--jobs must be a positive integer, got {args.jobs}")
    try:
        return args.func(args)
    except ValueError as exc:  # a malformed notebook (e.g. an invalid parameters cell)
        print(f"rankbook {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
