"""The ``rankbook`` command: ``build``, ``run``, ``sweep``, ``list``, ``compare``, ``eval``,
``reproduce``, ``check``, ``claims``, ``new-source`` and ``fetch``.

Exit status: 0 on success; 1 when a notebook or the book build fails, or the outputs cannot be
written (full disk, read-only folder) or printed (a report that standard output's encoding
cannot show, under an ASCII locale); 2 for bad usage (unknown notebook, unknown or repeated
parameter, a value that does not parse or breaks a declared constraint, a malformed input
file) and when another build holds the lock; 130 after Ctrl-C (SIGINT) and 143 after SIGTERM,
once the workers are stopped and the staging folders removed.

``rankbook eval`` and ``rankbook compare`` exit 2 on malformed qrels or runs (naming ``file:line``), an unknown
measure, runs scored on different queries, fewer than two runs or an output file that exists
(without ``--force``); 1 on an unexpected error or an output that cannot be written, in one
line; 130 after Ctrl-C (143 after SIGTERM), naming exactly the outputs already in place (each
is recorded in the same step as its rename); once the report's last line is printed, a signal
changes nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import warnings

from .. import __version__
from . import interrupts  # the standard library only: main installs its handlers first

# `pipeline` (and what it imports) is loaded inside each command, after main has installed the
# signal handlers: an import that takes time is never a window for Python's default handler


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
    from . import pipeline

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


def _quiet_asyncio() -> None:
    """After an interruption, a kernel client's asyncio task may still hold the kernel's death
    (DeadKernelError); garbage-collected at exit, asyncio would print "Task exception was
    never retrieved" and a traceback under the one-line message. Nothing is left to report."""
    import logging

    logging.getLogger("asyncio").disabled = True


def _interrupted(cmd: str, exc: interrupts.Interrupted) -> int:
    _quiet_asyncio()
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
    from . import pipeline

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


def _cmd_claims(args) -> int:
    from . import claims_cmd

    return claims_cmd.run(args)


def _cmd_new_source(args) -> int:
    from ..ledger.paths import project_root
    from .scaffold import ScaffoldError, scaffold

    root = project_root()
    try:
        written = scaffold(root, args.key, title=args.title, prefix=args.prefix, short=args.short,
                           authors=args.author, year=args.year, cite=args.cite)
    except ScaffoldError as exc:
        print(f"rankbook new-source: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"rankbook new-source: cannot write {exc.filename}: {exc.strerror or exc}",
              file=sys.stderr)
        return 1
    for path in written:
        print(path.relative_to(root))
    print(f"the source {args.key!r} is ready: `rankbook build` checks its first claim; edit its "
          f"ledger (data/claims/{args.key}.toml), data and code (CONVENTIONS.md, "
          "\"Adding a source\")", file=sys.stderr)
    return 0


def _cmd_fetch(args) -> int:
    from ..ledger import fetch
    from ..ledger.paths import project_root

    root = project_root()
    keys = args.key or fetch.registries(root)
    status = 0
    for key in keys:
        try:
            folder = fetch.files(key, root, download=True)
        except ValueError as exc:  # DataUnavailable, an unknown key, a hash that differs
            print(f"rankbook fetch: {exc}", file=sys.stderr)
            status = 2 if not isinstance(exc, fetch.DataUnavailable) else 1
            continue
        print(f"{key}: {folder}")
    return status


def _cmd_run(args) -> int:
    from . import pipeline
    from .rerun_page import PageFailed

    try:
        overrides = _parse_overrides(args.param or [], args.name)
        # with --page, the page is rendered inside the run's lock and swapped in with it
        folder = pipeline.run_one(args.name, overrides, timeout=args.timeout, wait=args.wait,
                                  page=args.page)
    except (pipeline.ParameterError, pipeline.Busy) as exc:
        print(f"rankbook run: {exc}", file=sys.stderr)
        return 2
    except pipeline.NotebookFailed as exc:
        print(f"rankbook run: {exc}", file=sys.stderr)
        return 1
    except pipeline.OutputError as exc:
        there = f"; {_there(exc)}" if getattr(exc, "folder", None) is not None else ""
        print(f"rankbook run: {exc}{there}", file=sys.stderr)
        return 1
    except PageFailed as exc:
        saved = getattr(exc, "saved", None)
        kept = f"; the executed notebook is at {saved}" if saved else ""
        print(f"rankbook run: {exc}\nrankbook run: the run and its page were not replaced: "
              f"{_there(exc)}{kept}", file=sys.stderr)
        return 1
    except pipeline.Interrupted as exc:
        if getattr(exc, "folder", None) is None:
            return _interrupted("run", exc)
        _quiet_asyncio()
        print(f"rankbook run: {exc}; nothing was written: {_there(exc)}", file=sys.stderr)
        return exc.exit_status
    print(folder)
    if args.page:  # the run as one HTML page in its folder (rankbook.book.rerun_page)
        print(folder / f"{folder.parent.name}.html")
    return 0


def _there(exc) -> str:
    """What the run folder of an unfinished ``rankbook run`` holds (the previous run, its page,
    or nothing)."""
    from .pipeline import what_is_there

    folder = exc.folder
    return what_is_there(folder, folder.parent.name)


def _cmd_sweep(args) -> int:
    from . import pipeline

    from . import sweep

    if args.jobs is not None and args.scheduler:
        print("rankbook sweep: give --jobs (a local cluster) or --scheduler (an existing one), "
              "not both", file=sys.stderr)
        return 2
    try:
        if args.scheduler is not None:
            sweep.check_scheduler_address(args.scheduler)
        given = _parse_overrides(args.param or [], args.name)
        report = sweep.run_sweep(args.name, given, jobs=args.jobs, scheduler=args.scheduler,
                                 dry_run=args.dry_run, progress=not args.quiet,
                                 timeout=args.timeout, yes=args.yes)
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
    except BrokenPipeError:  # `rankbook sweep ... --dry-run | head`: the reader has enough
        return _reader_gone()
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
    from . import pipeline

    report = None

    def log(line: str) -> None:
        print(line, flush=True)

    try:
        report, index = pipeline.build_book(force=args.force, jobs=args.jobs,
                                            progress=not args.quiet, timeout=args.timeout,
                                            wait=args.wait, site=not args.no_book, log=log)
    except pipeline.Busy as exc:
        print(f"rankbook build: {exc}", file=sys.stderr)
        return 2
    except (pipeline.OutputError, pipeline.SiteFailed) as exc:
        print(f"rankbook build: {exc}", file=sys.stderr)
        return 1
    except pipeline.Interrupted as exc:
        if getattr(exc, "during", None) == "site":  # the notebooks were done: jupyter-book ran
            print(f"rankbook build: {exc} while jupyter-book ran; the notebooks are executed, "
                  "the published site (_build/html) is the previous one, unchanged",
                  file=sys.stderr)
            return exc.exit_status
        return _interrupted("build", exc)
    print(f"executed: {', '.join(report.ran) or '(none)'}")
    print(f"reused:   {', '.join(report.reused) or '(none)'}")
    if report.failed:
        for msg in report.messages:
            print(f"rankbook build: {msg}", file=sys.stderr)
        print(f"rankbook build: {len(report.failed)} notebook(s) failed: "
              f"{', '.join(report.failed)}; the book was not rebuilt, the published site is "
              "unchanged", file=sys.stderr)
        return 1
    if index is not None:
        print(f"The book is ready: open file://{index}")
    return 0


def _cmd_compare(args) -> int:
    try:
        from . import compare_cmd  # numpy, scipy and pandas: loaded only for this command
    except KeyboardInterrupt:
        print("rankbook compare: interrupted by SIGINT; no output was written", file=sys.stderr)
        return 130
    outputs = {"--out": args.out, "--latex": args.latex, "--pairs": args.pairs,
               "--per-query": args.per_query}
    written: list[str] = []
    planned = [p for p in outputs.values() if p]
    try:
        with interrupts.interruptible():
            interrupts.checkpoint("start")
            compare_cmd.check_outputs(outputs, [args.qrels, *args.runs], args.force)
            res = compare_cmd.compare_runs(
                args.qrels, args.runs, args.measures, convention=args.convention,
                names=args.names, baseline=args.baseline, all_pairs=args.all_pairs,
                test=args.test, correction=args.correction, alpha=args.alpha,
                confidence=args.confidence, resamples=args.resamples, seed=args.seed,
                missing=args.missing, order=args.order, delta=args.topic_set_size,
                power=args.power, tie_range=args.tie_range,
                max_bytes=(compare_cmd.DEFAULT_MAX_BYTES if args.max_bytes is None
                           else args.max_bytes))
            texts = {args.out: compare_cmd.table_csv(res.table)}
            if args.latex:
                texts[args.latex] = res.comparison.to_latex()
            if args.pairs:
                texts[args.pairs] = compare_cmd.table_csv(res.comparison.pairs)
            if args.per_query:
                texts[args.per_query] = compare_cmd.table_csv(res.per_query)
            interrupts.checkpoint("scored")
            compare_cmd.check_outputs(outputs, [], args.force)  # nothing appeared meanwhile
            for path, text in texts.items():
                compare_cmd.write_atomic(path, text, written)  # recorded with its rename
            interrupts.checkpoint("written")
            # the report is printed inside the block: an interruption while it prints names
            # the outputs already in place, never "no output was written"
            for note in res.notes:
                print(f"rankbook compare: note: {note}", file=sys.stderr)
            for line in compare_cmd.check_block(res.check, "compare"):
                print(line, file=sys.stderr)
            print(res.summary)
            print()
            print(res.comparison.report())
            interrupts.checkpoint("report")
            print()
            print(res.comparison.tied_statement(), flush=True)
            if args.topic_set_size is not None:
                print()
                print(res.comparison.sizes_statement(), flush=True)
            if args.tie_range:
                print()
                print(compare_cmd.tie_statement(res.table), flush=True)
            print(f"rankbook compare: wrote {', '.join(written)}", file=sys.stderr, flush=True)
            interrupts.settle()  # done: a later signal changes neither the status nor the message
            interrupts.checkpoint("done")
    except (Exception, KeyboardInterrupt, interrupts.Interrupted) as exc:  # noqa: BLE001
        return _failed("compare", exc, written, compare_cmd.CompareError, planned)
    return 0


def _cmd_check(args) -> int:
    try:
        from . import check_cmd  # numpy, scipy and pandas: loaded only for this command
    except KeyboardInterrupt:
        print("rankbook check: interrupted by SIGINT", file=sys.stderr)
        return 130
    try:
        with interrupts.interruptible():
            report, notes = check_cmd.check_runs(
                args.qrels, args.runs, args.measures, convention=args.convention,
                depths=args.depths,
                max_bytes=(check_cmd._cc.DEFAULT_MAX_BYTES if args.max_bytes is None
                           else args.max_bytes))
            for note in notes:
                print(f"rankbook check: note: {note}", file=sys.stderr)
            print(check_cmd.to_json(report) if args.json else report.report(),
                  end="" if args.json else "\n", flush=True)
            interrupts.settle()
    except (Exception, KeyboardInterrupt, interrupts.Interrupted) as exc:  # noqa: BLE001
        return _failed("check", exc, [], check_cmd.CheckError)
    return report.exit_status


def _cmd_eval(args) -> int:
    try:
        from . import eval_cmd  # numpy and pandas: loaded only for this command
    except KeyboardInterrupt:
        print("rankbook eval: interrupted by SIGINT; no output was written", file=sys.stderr)
        return 130
    written: list[str] = []
    try:
        with interrupts.interruptible():
            if args.out:
                eval_cmd.check_outputs({"--out": args.out}, [args.qrels, *args.runs], args.force)
            res = eval_cmd.evaluate_runs(
                args.qrels, args.runs, args.measures, convention=args.convention,
                complete=args.complete, max_docs=args.max_docs, level=args.level,
                judged_only=args.judged_only, order=args.order, recall_cutoff=args.recall_cutoff,
                max_bytes=(eval_cmd.DEFAULT_MAX_BYTES if args.max_bytes is None else args.max_bytes))
            text = eval_cmd.render(res, args.format, args.query, not args.no_summary)
            if args.out:
                eval_cmd.check_outputs({"--out": args.out}, [], args.force)
                eval_cmd.write_atomic(args.out, text, written)  # recorded with its rename
    except (Exception, KeyboardInterrupt, interrupts.Interrupted) as exc:  # noqa: BLE001
        return _failed("eval", exc, written, eval_cmd.CompareError)
    for note in res.notes:
        print(f"rankbook eval: note: {note}", file=sys.stderr)
    if args.out:
        print(f"rankbook eval: wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0



def _failed(command: str, exc: BaseException, written: list, user_error: type,
            planned: list | None = None) -> int:
    """The exit status and one-line message of a ``compare`` or ``reproduce`` that stopped:
    2 for bad input (``user_error``), 130/143 for SIGINT/SIGTERM (naming the outputs in place
    and those of ``planned`` that were not written), 1 for a file that cannot be read or
    written, and 1 with "internal error" for anything else (``RANKBOOK_DEBUG=1`` re-raises it,
    to see the traceback). A reader that closed our standard output ends it quietly."""
    if isinstance(exc, BrokenPipeError):  # `rankbook compare ... | head`: outputs are written
        return _reader_gone()
    if isinstance(exc, UnicodeEncodeError):  # an ASCII terminal: an output error, not usage
        return _unprintable(command, exc, written, planned)
    if isinstance(exc, user_error):
        print(f"rankbook {command}: {exc}", file=sys.stderr)
        return 2
    if isinstance(exc, (interrupts.Interrupted, KeyboardInterrupt)):
        _quiet_asyncio()
        name = signal.Signals(getattr(exc, "signum", signal.SIGINT)).name
        missing = [p for p in planned or [] if p not in written]
        done = (f"{', '.join(written)} {'was' if len(written) == 1 else 'were'} written before "
                f"it" + (f"; {', '.join(missing)} {'was' if len(missing) == 1 else 'were'} not"
                         if missing else "")
                if written else "no output was written")
        print(f"rankbook {command}: interrupted by {name}; {done}", file=sys.stderr)
        return getattr(exc, "exit_status", 130)
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"rankbook {command}: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    if os.environ.get("RANKBOOK_DEBUG"):
        raise exc
    print(f"rankbook {command}: internal error: {type(exc).__name__}: {exc} (set "
          "RANKBOOK_DEBUG=1 to see the traceback)", file=sys.stderr)
    return 1

def _fraction(example: str):
    """A level strictly between 0 and 1; the message gives the valid range and an example
    that fits the option (``--alpha`` 0.05, ``--confidence`` 0.95)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not 0 < value < 1:
            raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive: 0 < value "
                                             f"< 1), e.g. {example}; got {text}")
        return value
    return parse


_BYTE_UNITS = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12, "kib": 2**10,
               "mib": 2**20, "gib": 2**30, "tib": 2**40}


def _byte_count(text: str) -> int:
    """``2000000``, ``500M``, ``2G`` or ``1GiB``: a positive number of bytes."""
    import re

    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kKmMgGtT](?:i?[bB])?|[bB]?)\s*", text)
    unit = (m.group(2).lower().removesuffix("b") if m else "")
    if unit.endswith("i"):
        unit += "b"
    if not m or unit not in _BYTE_UNITS or float(m.group(1)) * _BYTE_UNITS[unit] < 1:
        raise argparse.ArgumentTypeError(f"must be a positive number of bytes, e.g. 2000000000, "
                                         f"500M, 2G or 1GiB; got {text!r}")
    return int(float(m.group(1)) * _BYTE_UNITS[unit])


def _cmd_reproduce(args) -> int:
    try:
        from . import reproduce_cmd  # numpy, scipy and pandas: loaded only for this command
    except KeyboardInterrupt:
        print("rankbook reproduce: interrupted by SIGINT; no output was written", file=sys.stderr)
        return 130
    paths = {"orig_baseline": args.orig_baseline, "orig_advanced": args.orig_advanced,
             "rep_baseline": args.rep_baseline, "rep_advanced": args.rep_advanced}
    outputs = {"--out": args.out, "--per-topic": args.per_topic, "--plot": args.plot}
    inputs = [p for p in [*paths.values(), args.qrels, args.qrels_rep] if p]
    written: list[str] = []
    planned = [p for p in outputs.values() if p]
    try:
        with interrupts.interruptible():
            interrupts.checkpoint("start")
            reproduce_cmd.check_outputs(outputs, inputs, args.force)
            if args.plot:
                reproduce_cmd.check_plot(args.plot)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", UserWarning)
                res = reproduce_cmd.reproduce_runs(
                    paths, args.qrels, qrels_rep=args.qrels_rep, measures=args.measures,
                    convention=args.convention, ktu_convention=args.ktu, rbo_p=args.rbo_p,
                    rbo_form=args.rbo_form, rbo_depth=args.rbo_depth,
                    confidence=args.confidence, resamples=args.resamples, seed=args.seed,
                    order=args.order,
                    max_bytes=(reproduce_cmd.DEFAULT_MAX_BYTES if args.max_bytes is None
                               else args.max_bytes))
            for w in caught:  # notes on the inputs, one line each, as compare prints them
                if issubclass(w.category, UserWarning):
                    print(f"rankbook reproduce: note: {w.message}", file=sys.stderr)
            for report in getattr(res, "check", []):
                for line in reproduce_cmd._cc.check_block(report, "reproduce"):
                    print(line, file=sys.stderr)
            texts = {args.out: reproduce_cmd.table_csv(res.aggregate)}
            if args.per_topic:
                texts[args.per_topic] = reproduce_cmd.table_csv(res.per_topic)
            interrupts.checkpoint("scored")
            reproduce_cmd.check_outputs(outputs, [], args.force)  # nothing appeared meanwhile
            for path, text in texts.items():
                reproduce_cmd.write_atomic(path, text, written)  # recorded with its rename
            if args.plot:
                reproduce_cmd.plot_plane(res, args.plot, written)
            interrupts.checkpoint("written")
            print(res.report(), flush=True)  # inside: an interruption names what is written
            print(f"rankbook reproduce: wrote {', '.join(written)}", file=sys.stderr, flush=True)
            interrupts.settle()
            interrupts.checkpoint("done")
    except (Exception, KeyboardInterrupt, interrupts.Interrupted) as exc:  # noqa: BLE001
        return _failed("reproduce", exc, written, reproduce_cmd.ReproduceError, planned)
    return 0


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, e.g. 0.05; got {text}")
    return value


def _nonnegative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {value}")
    return value


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
    r.add_argument("--page", action="store_true",
                   help="also render the run as one HTML page (NAME.html in the run folder: "
                        "the page with your values, its verdict and provenance; no server)")
    r.set_defaults(func=_cmd_run)

    sw = sub.add_parser("sweep", help="run one notebook over a grid of parameters (Dask)")
    sw.add_argument("name", help="notebook name (see `rankbook list`)")
    sw.add_argument("-p", "--param", nargs="+", action=_Param, metavar=("KEY", "VALUES"),
                    help="values of one parameter: V1,V2,... (integers also START:STOP; \\, is "
                         "a comma inside one value); for a list parameter, whole lists "
                         "separated by ';' ('5,6;10,20')")
    sw.add_argument("--jobs", type=_positive, default=None, metavar="N",
                    help="worker processes of the local cluster (default: number of cores)")
    sw.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="run on an existing Dask cluster, e.g. tcp://host:8786")
    sw.add_argument("--dry-run", action="store_true", help="list the points and stop")
    sw.add_argument("--yes", action="store_true",
                    help=f"run a grid of more than {1000} points (at most 100,000)")
    sw.add_argument("--timeout", type=_positive, default=None, metavar="SECONDS",
                    help="time limit of one cell")
    sw.add_argument("--quiet", action="store_true", help="no progress bar")
    sw.set_defaults(func=_cmd_sweep)

    c = sub.add_parser(
        "compare", help="score TREC runs against qrels and compare them with paired tests",
        description="Score two or more TREC run files against a qrels file under one tool's "
                    "conventions, compare every run with the baseline (paired test, bootstrap "
                    "intervals, corrected p-values), print the table and write it as CSV.")
    c.add_argument("runs", nargs="*", metavar="RUN", help="TREC run files (at least two)")
    c.add_argument("--qrels", required=True, metavar="FILE", help="TREC qrels file")
    c.add_argument("--measures", default="nDCG@10,AP", metavar="M1,M2",
                   help="ir_measures names separated by commas (default: %(default)s)")
    c.add_argument("--convention", default="trec_eval",
                   help="whose conventions score the runs: trec_eval (default; trec_eval "
                        "10.0), trec_eval_9 (9.0.8), pytrec_eval, ir_measures, ranx, sklearn or "
                        "torchmetrics")
    c.add_argument("--baseline", default=None, metavar="SYSTEM",
                   help="the system the others are compared with (default: the first run)")
    c.add_argument("--all-pairs", action="store_true",
                   help="test every pair of systems instead of each against the baseline")
    c.add_argument("--test", default="randomization",
                   help="paired test: randomization (default; exact up to 20 queries), t or "
                        "wilcoxon (also spelled randomisation, permutation, ttest, t-test)")
    c.add_argument("--correction", default="holm",
                   help="multiple-comparison correction within each measure: holm (default), "
                        "bonferroni, bh, by or none; or a test of every pair of systems at once: "
                        "tukey (Tukey's HSD, topics as blocks) or randomized-tukey (the "
                        "randomised Tukey HSD of Carterette and Sakai)")
    c.add_argument("--alpha", type=_fraction("0.05"), default=0.05,
                   help="significance level (default: %(default)s)")
    c.add_argument("--topic-set-size", type=_positive_float, default=None, metavar="DELTA",
                   help="also print how many topics would detect a difference DELTA (Sakai's "
                        "topic set size design: paired t-test per pair, one-way ANOVA over all)")
    c.add_argument("--power", type=_fraction("0.8"), default=0.8,
                   help="power of the topic set sizes (default: %(default)s)")
    c.add_argument("--tie-range", action="store_true",
                   help="also the lowest, highest and expected mean over the orders of tied "
                        "documents (columns tie_low, tie_high, tie_expected)")
    c.add_argument("--confidence", type=_fraction("0.95"), default=0.95,
                   help="level of the bootstrap intervals (default: %(default)s)")
    c.add_argument("--resamples", type=_positive, default=10000, metavar="N",
                   help="bootstrap resamples and random sign flips (default: %(default)s; at "
                        "most 1,000,000, and (systems + tests) x N at most 40 million)")
    c.add_argument("--max-bytes", type=_byte_count, default=None, metavar="N",
                   help="largest input file, in bytes (default 512MiB; 500M, 2G, 4GiB, ...); "
                        "the command needs up to about 5 bytes of memory per byte of its "
                        "largest run")
    c.add_argument("--seed", type=_nonnegative, default=0, help="random seed (default: 0)")
    c.add_argument("--missing", default="error", type=str.lower, choices=["error", "zero", "drop"],
                   help="a query some runs are scored on and another is not: stop (default), "
                        "score it 0 (trec_eval -c) or drop it")
    c.add_argument("--order", default="score", type=str.lower, choices=["score", "rank"],
                   help="rank by score with the convention's tie rule (default), or score each "
                        "run as the explicit order of its rank column (the fourth)")
    c.add_argument("--names", default="stem", type=str.lower, choices=["stem", "tag"],
                   help="system names from the file names (default) or the run tags")
    c.add_argument("--out", default="compare.csv", metavar="FILE",
                   help="CSV of the table (default: %(default)s in the current folder)")
    c.add_argument("--latex", default=None, metavar="FILE", help="also write a LaTeX table")
    c.add_argument("--pairs", default=None, metavar="FILE",
                   help="also write every test (uncorrected and corrected p-values) as CSV")
    c.add_argument("--per-query", default=None, metavar="FILE",
                   help="also write every run's value per query and measure as CSV (system, "
                        "run_file, query_id, measure, value)")
    c.add_argument("--force", action="store_true", help="replace output files that exist")
    c.set_defaults(func=_cmd_compare)

    ck = sub.add_parser(
        "check", help="pre-flight check of qrels and runs: what would change a number",
        description="Before scoring: topics in one file only, judged@k, documents ranked twice, "
                    "tied scores (and ties between documents of different relevance), the "
                    "relevance levels and what each measure reads from them, the run tags. "
                    "Exit status 0: nothing found would change a number; 1: something would; "
                    "2: bad usage or an unreadable input.")
    ck.add_argument("qrels", metavar="QRELS", help="TREC qrels file")
    ck.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files")
    ck.add_argument("-m", "--measures", default=None, metavar="M1,M2",
                    help="ir_measures names: which relevance levels each tells apart, and "
                         "whether its threshold is reached")
    ck.add_argument("--convention", default="trec_eval",
                    help="whose choices the findings describe (precision of ties, topics in one "
                         "file only): trec_eval (default), trec_eval_9, pytrec_eval, "
                         "ir_measures, ranx, sklearn or torchmetrics")
    ck.add_argument("--depths", default="10,100,1000", metavar="K1,K2",
                    help="depths of judged@k (default: %(default)s)")
    ck.add_argument("--max-bytes", type=_byte_count, default=None, metavar="N",
                    help="largest input file, in bytes (default 512MiB)")
    ck.add_argument("--json", action="store_true", help="print the report as JSON")
    ck.set_defaults(func=_cmd_check)

    ev = sub.add_parser(
        "eval", help="score TREC runs against qrels with trec_eval's interface (every measure "
                     "of -m all_trec, -q, -c, -M, -l, -J)",
        description="Score one or more TREC runs against a qrels file and print trec_eval's "
                    "three columns (measure, query or all, value), or CSV or JSON. Measures "
                    "are named as trec_eval (-m map -m P.5,10 -m all_trec) or ir_measures "
                    "(-m nDCG@10,AP) names them; the default is trec_eval's official set.")
    ev.add_argument("qrels", metavar="QRELS", help="TREC qrels file (.gz, a pipe or - also)")
    ev.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files (one or more)")
    ev.add_argument("-m", "--measure", dest="measures", action="append", default=None,
                    metavar="MEASURE",
                    help="a measure, trec_eval's (map, P.5,10, ndcg_cut.10, iprec_at_recall, "
                         "set_F; nicknames official, all_trec, set) or ir_measures' (nDCG@10,AP, "
                         "ERR@20); repeatable; default: official")
    ev.add_argument("-q", "--query", action="store_true",
                    help="also a line per query and measure, before the summary")
    ev.add_argument("-n", "--no-summary", action="store_true", help="no summary (all) lines")
    ev.add_argument("-c", "--complete", action="store_true",
                    help="a judged query a run lacks scores 0 and counts in the mean "
                         "(trec_eval -c)")
    ev.add_argument("-M", "--max-docs", type=_positive, default=None, metavar="N",
                    help="only the first N documents of each ranking count (trec_eval -M)")
    ev.add_argument("-l", "--level", type=_positive, default=None, metavar="N",
                    help="the relevance level a relevant document needs (trec_eval -l; "
                         "default 1)")
    ev.add_argument("-J", "--judged-only", action="store_true",
                    help="only judged documents count (trec_eval -J)")
    ev.add_argument("--convention", default="trec_eval",
                    help="whose conventions score the runs: trec_eval (default; trec_eval "
                         "10.0), trec_eval_9 (9.0.8, pytrec_eval's code), pytrec_eval, "
                         "ir_measures, ranx, sklearn or torchmetrics")
    ev.add_argument("--recall-cutoff", default=None, choices=["lround", "plus_0.9", "plus_0.9_fused"],
                    help="how iprec_at_recall and 11pt_avg turn a recall level into a number of "
                         "relevant documents: lround (trec_eval 10.0, the trec_eval profile), "
                         "plus_0.9 (trec_eval 9, trec_eval_9) or plus_0.9_fused (9's rule in one "
                         "rounding, what trec_eval's own 10.0-line test outputs print)")
    ev.add_argument("--format", default="trec", type=str.lower, choices=["trec", "csv", "json"],
                    help="trec_eval's three columns (default), or a table as CSV or JSON")
    ev.add_argument("--order", default="score", type=str.lower, choices=["score", "rank"],
                    help="rank by score with the convention's tie rule (default), or score each "
                         "run as the explicit order of its rank column (the fourth)")
    ev.add_argument("--max-bytes", type=_byte_count, default=None, metavar="N",
                    help="largest input file, in bytes (default 512MiB; 500M, 2G, ...)")
    ev.add_argument("-o", "--out", default=None, metavar="FILE",
                    help="write to FILE (atomically) instead of the standard output")
    ev.add_argument("--force", action="store_true", help="replace --out if it exists")
    ev.set_defaults(func=_cmd_eval)

    rp = sub.add_parser(
        "reproduce", help="did a rerun reproduce the original runs? KTU, RBO, RMSE, ER, ΔRI",
        description="Compare an original baseline and advanced run with their reproductions "
                    "(same topics, --qrels) or replications (other topics, --qrels-rep): order "
                    "of documents (KTU, RBO), effectiveness (RMSE, nRMSE) and overall effect "
                    "(ER, ΔRI), each with a bootstrap interval over topics; print the report and "
                    "write it as CSV.")
    rp.add_argument("--orig-baseline", required=True, metavar="RUN",
                    help="TREC run of the original baseline")
    rp.add_argument("--orig-advanced", default=None, metavar="RUN",
                    help="TREC run of the original advanced system")
    rp.add_argument("--rep-baseline", required=True, metavar="RUN",
                    help="TREC run of the reproduced baseline")
    rp.add_argument("--rep-advanced", default=None, metavar="RUN",
                    help="TREC run of the reproduced advanced system")
    rp.add_argument("--qrels", required=True, metavar="FILE",
                    help="TREC qrels of the original topics")
    rp.add_argument("--qrels-rep", default=None, metavar="FILE",
                    help="TREC qrels of other topics: replicability (unpaired)")
    rp.add_argument("--measures", default="AP,nDCG@10,P@10", metavar="M1,M2",
                    help="ir_measures names separated by commas (default: %(default)s)")
    rp.add_argument("--convention", default="trec_eval",
                    help="whose conventions score the runs (default: trec_eval, trec_eval 10.0; "
                         "trec_eval_9 is what repro_eval's pytrec_eval computes)")
    rp.add_argument("--order", default="score", type=str.lower, choices=["score", "rank"],
                    help="rank each run by score with the convention's tie rule (default), or "
                         "take it as the explicit order of its rank column (the fourth)")
    rp.add_argument("--ktu", default="union", type=str.lower, choices=["union", "repro_eval"],
                    help="KTU over the union of the documents (default) or repro_eval's "
                         "position-paired value; repro_eval also sets RBO to repro_eval's "
                         "(--rbo-form truncated --rbo-depth 1000) unless those are given")
    rp.add_argument("--rbo-form", default=None, type=str.lower,
                    choices=["ext", "base", "truncated"],
                    help="RBO's form: ext (extrapolated, the default), base (the prefix sum, a "
                         "lower bound) or truncated (repro_eval's normalised sum to a depth)")
    rp.add_argument("--rbo-depth", type=_positive, default=None, metavar="N",
                    help="RBO's depth (default: the lists' length; repro_eval: 1000)")
    rp.add_argument("--rbo-p", type=_fraction("0.95"), default=0.95,
                    help="persistence of RBO (default: %(default)s)")
    rp.add_argument("--confidence", type=_fraction("0.95"), default=0.95,
                    help="level of the bootstrap intervals (default: %(default)s)")
    rp.add_argument("--resamples", type=_positive, default=9999, metavar="N",
                    help="bootstrap resamples (default: %(default)s)")
    rp.add_argument("--seed", type=_nonnegative, default=0, help="random seed (default: 0)")
    rp.add_argument("--max-bytes", type=_byte_count, default=None, metavar="N",
                    help="largest input file, in bytes (default 512MiB; 500M, 2G, 4GiB, ...), "
                         "refused before any file is read (a pipe or compressed file as soon "
                         "as its text passes it)")
    rp.add_argument("--out", default="reproduce.csv", metavar="FILE",
                    help="CSV of the aggregate table (default: %(default)s)")
    rp.add_argument("--per-topic", default=None, metavar="FILE",
                    help="also write the per-topic table as CSV")
    rp.add_argument("--plot", default=None, metavar="FILE",
                    help="also draw the ER-ΔRI plane with the intervals (PNG, SVG or PDF)")
    rp.add_argument("--force", action="store_true", help="replace output files that exist")
    rp.set_defaults(func=_cmd_reproduce)

    cl = sub.add_parser("claims", help="the claims ledger with each claim's status from the "
                                       "last build; one claim's evidence with its id")
    cl.add_argument("id", nargs="?", help="one claim (or erratum) id, e.g. A-P7.1: its evidence, "
                                          "errata and the command that reruns it")
    cl.add_argument("--source", default=None, help="only this source (the key of its ledger "
                                                     "file, data/claims/KEY.toml)")
    cl.add_argument("--status", default=None, help="only this status, e.g. false")
    cl.set_defaults(func=_cmd_claims)

    ns = sub.add_parser("new-source", help="scaffold a new source: its ledger, data, code, "
                                           "notebook, chapter and table-of-contents entry")
    ns.add_argument("key", help="the source's key, lower case (the ledger file KEY.toml, the "
                                "data folder and the package rankbook.papers.KEY)")
    ns.add_argument("--title", required=True, help="the source's title")
    ns.add_argument("--prefix", required=True, help="the id prefix of its claims and errata, "
                                                    "capital letters (BR: BR-T1, BR-E1)")
    ns.add_argument("--short", default=None, help="its short name in tables (default: the title)")
    ns.add_argument("--author", action="append", default=[], help="an author (repeat the option)")
    ns.add_argument("--year", type=_nonnegative, default=None, help="its year")
    ns.add_argument("--cite", default=None, help="its key in book/references.bib (default: KEY)")
    ns.set_defaults(func=_cmd_new_source)

    fe = sub.add_parser("fetch", help="fetch other authors' data the ledger needs (by URL and "
                                      "SHA-256, or from a mirror folder), into the data cache")
    fe.add_argument("key", nargs="*", help="the sources to fetch (data/fetch/KEY.toml; default: all)")
    fe.set_defaults(func=_cmd_fetch)

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
    """The ``rankbook`` command. Its first line makes SIGINT and SIGTERM raise
    :class:`~rankbook.book.interrupts.Interrupted` (the first signal; the rest are ignored),
    before any import that can take time, so that a signal at any moment ends in one line and
    status 130 or 143. Called as the program (``argv`` None), it leaves the signals ignored
    when it returns: the status is decided, and a late Ctrl-C must not turn it into a
    traceback, or a death by the signal, at exit. Called with ``argv`` (tests), it puts the
    handlers back."""
    before = interrupts.install()
    interrupts._DEFER["settled"] = False
    program = argv is None
    command = "command"
    try:
        try:
            argv = list(sys.argv[1:] if argv is None else argv)
            command = next((a for a in argv if not a.startswith("-")), command)
            args = _build_parser().parse_args(_allow_dash_values(argv))
            command = args.command
            status = _main(args)
            try:
                sys.stdout.flush()  # a closed pipe shows here, not in the flush at exit
            except BrokenPipeError:
                status = _reader_gone()
            if program and command in ("compare", "eval") and status in (130, 143):
                _exit_at_once(status)
            return status
        except BrokenPipeError:  # `rankbook --help | head -1`
            return _reader_gone()
        except interrupts.Interrupted as exc:  # while parsing, or while a message was printed
            _quiet_asyncio()
            print(f"rankbook {command}: {exc}; nothing was written, the last good output is "
                  "untouched", file=sys.stderr)
            return exc.exit_status
    finally:
        if program:
            interrupts._ignore_both()
        else:
            interrupts.restore(before)
            interrupts._DEFER["settled"] = False


def _exit_at_once(status: int) -> None:
    """End the process now, after an interrupted ``compare`` has said so: it holds no child
    process, staging folder or open output (its outputs are written whole or not at all), and
    the interpreter's own shutdown (some 1,100 modules of numpy, scipy and pandas) takes a
    second or more on a loaded machine, which a user who pressed Ctrl-C waits through."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


def _reader_gone() -> int:
    """The reader of our standard output closed it (``rankbook ... | head``): stop quietly, as
    a Unix tool does, with status 0 and no "Broken pipe" (the output it read is complete up to
    where it stopped reading). Standard output goes to /dev/null, so that the flush at exit does
    not fail a second time."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return 0


def _unprintable(command: str, exc: UnicodeEncodeError, written: list | None = None,
                 planned: list | None = None) -> int:
    """Standard output cannot show a character of the report (a truly ASCII locale:
    ``LC_ALL=C`` without UTF-8 mode): an output error (status 1, as a full disk), named as such
    with the character and the fix, and the outputs in place. The message itself is ASCII."""
    import unicodedata

    char = exc.object[exc.start:exc.end][:1] if isinstance(exc.object, str) else "?"
    name = unicodedata.name(char, "") if char else ""
    encoding = getattr(sys.stdout, "encoding", None) or exc.encoding
    done = ""
    if written is not None:
        missing = [p for p in planned or [] if p not in written]
        done = (f"; {', '.join(written)} {'was' if len(written) == 1 else 'were'} written"
                if written else "; no output was written")
        done += f" ({', '.join(missing)} not)" if written and missing else ""
    print(f"rankbook {command}: cannot print the report: standard output's encoding "
          f"({encoding}) cannot show {char!a}{f' ({name})' if name else ''}; use a UTF-8 "
          f"locale (e.g. LC_ALL=C.UTF-8) or set PYTHONIOENCODING=utf-8{done}", file=sys.stderr)
    return 1


def _main(args) -> int:
    try:
        return args.func(args)
    except BrokenPipeError:
        return _reader_gone()
    except UnicodeEncodeError as exc:  # before ValueError: an output error, status 1
        return _unprintable(args.command, exc)
    except interrupts.Interrupted as exc:  # between steps
        return _interrupted(args.command, exc)
    except KeyboardInterrupt:  # before the handlers were installed
        print(f"rankbook {args.command}: interrupted by SIGINT; nothing was written, the last "
              "good output is untouched", file=sys.stderr)
        return 130
    except ValueError as exc:  # a malformed notebook (e.g. an invalid parameters cell)
        print(f"rankbook {args.command}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a folder that cannot be read or written, a full disk, ...
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"rankbook {args.command}: {where}{exc.strerror or exc}; the last good output is "
              "untouched", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - the last resort: one line, never a traceback
        if os.environ.get("RANKBOOK_DEBUG"):
            raise
        print(f"rankbook {args.command}: internal error: {type(exc).__name__}: {exc} (set "
              "RANKBOOK_DEBUG=1 to see the traceback; the last good output is untouched)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
