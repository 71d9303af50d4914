"""The ``rankbook`` command: ``build``, ``run`` and ``list``.

Exit status: 0 on success; 1 when a notebook or the book build fails, or the outputs cannot be
written (full disk, read-only folder); 2 for bad usage (unknown notebook, unknown or repeated
parameter, a value that does not parse or breaks a declared constraint, a malformed input
file) and when another build holds the lock; 130 after Ctrl-C (SIGINT) and 143 after SIGTERM,
once the workers are stopped and the staging folders removed.
"""

from __future__ import annotations

import argparse
import sys

from .. import __version__
from . import pipeline


def _print_spec(spec, verbose: bool) -> None:
    print(f"{spec.name}: {spec.description}")
    if verbose:
        print(spec.usage())
        return
    if not spec.parameters:
        print("    (no parameters)")
    for p in spec.parameters.values():
        comment = f"  # {p.comment}" if p.comment else ""
        print(f"    {p.name} ({p.type_name}) = {p.default!r}{comment}")


def _cmd_list(args) -> int:
    if args.name:
        try:
            spec = pipeline.find(args.name)
        except pipeline.ParameterError as exc:
            print(f"rankbook list: {exc}", file=sys.stderr)
            return 2
        _print_spec(spec, verbose=True)
        return 0
    for spec in pipeline.discover():
        _print_spec(spec, verbose=False)
    return 0


def _interrupted(cmd: str, exc: pipeline.Interrupted) -> int:
    report = getattr(exc, "report", None)
    if report is not None:
        done = ", ".join(report.ran) or "none"
        todo = ", ".join(report.unfinished) or "none"
        print(f"rankbook {cmd}: {exc}; finished: {done}; not finished: {todo} "
              "(their last good outputs are untouched)", file=sys.stderr)
    else:
        print(f"rankbook {cmd}: {exc}; nothing was written, the last good output is untouched",
              file=sys.stderr)
    return exc.exit_status


def _parse_overrides(pairs: list[str], spec_name: str) -> list[tuple[str, str]]:
    """``-p KEY VALUE`` and ``-p KEY=VALUE`` (argparse keeps values starting with '-')."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for item in pairs:
        key, value = item
        if value is None:
            if "=" not in key:
                raise pipeline.ParameterError(
                    f"-p {key!r} needs a value: write -p KEY VALUE or -p KEY=VALUE")
            key, value = key.split("=", 1)
        if key in seen:
            raise pipeline.ParameterError(
                f"parameter {key!r} is given twice; give each parameter once "
                f"(see `rankbook list {spec_name}`)")
        seen.add(key)
        out.append((key, value))
    return out


def _cmd_run(args) -> int:
    try:
        overrides = _parse_overrides(args.param or [], args.name)
        folder = pipeline.run_one(args.name, overrides, timeout=args.timeout, wait=args.wait)
    except (pipeline.ParameterError, pipeline.Busy) as exc:
        print(f"rankbook run: {exc}", file=sys.stderr)
        return 2
    except (pipeline.NotebookFailed, pipeline.OutputError) as exc:
        print(f"rankbook run: {exc}", file=sys.stderr)
        return 1
    except pipeline.Interrupted as exc:
        return _interrupted("run", exc)
    print(folder)
    return 0


def _cmd_sweep(args) -> int:
    from . import sweep

    if args.jobs is not None and args.scheduler:
        print("rankbook sweep: give --jobs (a local cluster) or --scheduler (an existing one), "
              "not both", file=sys.stderr)
        return 2
    try:
        given = _parse_overrides(args.param or [], args.name)
        report = sweep.run_sweep(args.name, given, jobs=args.jobs, scheduler=args.scheduler,
                                 dry_run=args.dry_run, progress=not args.quiet,
                                 timeout=args.timeout)
    except (pipeline.ParameterError, pipeline.Busy) as exc:
        print(f"rankbook sweep: {exc}", file=sys.stderr)
        return 2
    except pipeline.OutputError as exc:
        print(f"rankbook sweep: {exc}", file=sys.stderr)
        return 1
    except pipeline.Interrupted as exc:
        print(f"rankbook sweep: {exc}; completed points are kept and a rerun continues from "
              "them", file=sys.stderr)
        return exc.exit_status
    except OSError as exc:  # the scheduler cannot be reached
        print(f"rankbook sweep: {exc}", file=sys.stderr)
        return 1
    if args.dry_run:
        return 0
    for rec in report.failed:
        point = ", ".join(f"{k}={v}" for k, v in rec["params"].items())
        where = f"cell {rec['cell']}" if rec.get("cell") else "an unknown cell"
        print(f"rankbook sweep: point {point} failed in {where}: {rec['error']}", file=sys.stderr)
    print(report.folder)
    return 1 if report.failed else 0


def _cmd_build(args) -> int:
    try:
        report = pipeline.execute_all(force=args.force, jobs=args.jobs, progress=not args.quiet,
                                      timeout=args.timeout, wait=args.wait)
    except pipeline.Busy as exc:
        print(f"rankbook build: {exc}", file=sys.stderr)
        return 2
    except pipeline.OutputError as exc:
        print(f"rankbook build: {exc}", file=sys.stderr)
        return 1
    except pipeline.Interrupted as exc:
        return _interrupted("build", exc)
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
    except pipeline.Interrupted as exc:
        print(f"rankbook build: {exc} while jupyter-book ran; the notebooks are executed, the "
              "site was not rebuilt", file=sys.stderr)
        return exc.exit_status
    except (RuntimeError, OSError) as exc:
        print(f"rankbook build: {exc}", file=sys.stderr)
        return 1
    print(f"The book is ready: open file://{index}")
    return 0


class _Param(argparse.Action):
    """``-p KEY VALUE`` or ``-p KEY=VALUE``; the value may start with '-' (``-p ns -3,5``)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if len(values) > 2 or (len(values) == 2 and "=" in values[0]):
            parser.error(f"-p takes KEY VALUE or KEY=VALUE, got {' '.join(values)!r}; quote a "
                         "value that contains spaces")
        items = getattr(namespace, self.dest) or []
        items.append((values[0], values[1] if len(values) > 1 else None))
        setattr(namespace, self.dest, items)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {value}")
    return value


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankbook",
        description="Execute rankbook's parameterized notebooks and build the companion book.",
    )
    parser.add_argument("--version", action="version", version=f"rankbook {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    b = sub.add_parser("build", help="execute changed notebooks, then build the site")
    b.add_argument("--force", action="store_true", help="re-execute every notebook")
    b.add_argument("--jobs", type=_positive, default=None, metavar="N",
                   help="notebooks executed at once (default: number of cores)")
    b.add_argument("--no-book", action="store_true",
                   help="execute the notebooks but do not run jupyter-book")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.add_argument("--timeout", type=_positive, default=None, metavar="SECONDS",
                   help="time limit of one cell (default: each notebook's rankbook.timeout, "
                        "else 1200 s)")
    b.add_argument("--wait", action="store_true",
                   help="wait for another running build instead of exiting with status 2")
    b.set_defaults(func=_cmd_build)

    r = sub.add_parser("run", help="execute one notebook with new parameters into runs/NAME/")
    r.add_argument("name", help="notebook name (see `rankbook list`)")
    r.add_argument("-p", "--param", nargs="+", action=_Param, metavar=("KEY", "VALUE"),
                   help="set a parameter: -p KEY VALUE or -p KEY=VALUE; give each key once")
    r.add_argument("--timeout", type=_positive, default=None, metavar="SECONDS",
                   help="time limit of one cell (default: the notebook's rankbook.timeout)")
    r.add_argument("--wait", action="store_true",
                   help="wait for a running run of the same parameters instead of exiting")
    r.set_defaults(func=_cmd_run)

    sw = sub.add_parser("sweep", help="run one notebook over a grid of parameters (Dask)")
    sw.add_argument("name", help="notebook name (see `rankbook list`)")
    sw.add_argument("-p", "--param", nargs="+", action=_Param, metavar=("KEY", "VALUES"),
                    help="values of one parameter: V1,V2,... (integers also START:STOP); for a "
                         "list parameter, whole lists separated by ';' ('5,6;10,20')")
    sw.add_argument("--jobs", type=_positive, default=None, metavar="N",
                    help="worker processes of the local cluster (default: number of cores)")
    sw.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="run on an existing Dask cluster, e.g. tcp://host:8786")
    sw.add_argument("--dry-run", action="store_true", help="list the points and stop")
    sw.add_argument("--timeout", type=_positive, default=None, metavar="SECONDS",
                    help="time limit of one cell")
    sw.add_argument("--quiet", action="store_true", help="no progress bar")
    sw.set_defaults(func=_cmd_sweep)

    lst = sub.add_parser("list", help="list notebooks, or one notebook's parameters in full")
    lst.add_argument("name", nargs="?", help="one notebook: its parameters, types, defaults "
                                             "and constraints")
    lst.set_defaults(func=_cmd_list)
    return parser


def _allow_dash_values(argv: list[str]) -> list[str]:
    """Let a value that starts with '-' follow ``-p KEY`` (``-p ns -3,5``): argparse would read
    it as an option, so glue it to its key as ``KEY=VALUE``."""
    out, i = [], 0
    while i < len(argv):
        tok = argv[i]
        if (tok in ("-p", "--param") and i + 2 < len(argv) and "=" not in argv[i + 1]
                and argv[i + 2].startswith("-") and not argv[i + 2].startswith("--")
                and argv[i + 2] != "-p"):
            out += [tok, f"{argv[i + 1]}={argv[i + 2]}"]
            i += 3
            continue
        out.append(tok)
        i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    parser = _build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(_allow_dash_values(argv))
    try:
        return args.func(args)
    except pipeline.Interrupted as exc:  # between steps
        return _interrupted(args.command, exc)
    except ValueError as exc:  # a malformed notebook (e.g. an invalid parameters cell)
        print(f"rankbook {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
