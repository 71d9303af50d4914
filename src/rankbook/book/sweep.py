"""``rankbook sweep``: run one notebook over a grid of parameters, locally or on a Dask cluster.

A sweep is the Cartesian product of the values given for each parameter. Every point is
validated exactly like ``rankbook run`` (types, declared constraints, input files) before
anything runs, then executed by Dask ``distributed``: a ``LocalCluster`` of ``jobs`` worker
processes by default, or an existing cluster at ``scheduler`` (``dask scheduler`` plus ``dask
worker`` processes, or dask-jobqueue on SLURM/PBS). No scheduler is written here.

Each point runs in a temporary folder on its worker; the worker sends the executed notebook and
every file it wrote back to the client, which writes them under
``runs/sweeps/NAME/points/<slug of the point>/``, shared by every grid of that notebook: a point
is keyed by its own parameters (and the contents of the files they name), never by the grid, so
adding a value to a grid runs only the new points. So the cluster needs no shared file system
for the outputs, but every worker needs rankbook installed at the same commit and the
project's ``data/`` folder: a worker refuses a point when its ``src/rankbook`` hashes
differently from the client's (the notebook itself is sent with the task).

A point already completed with the same parameters, notebook, code, data, input files and
environment (the cache key of ``rankbook build``) is reused, so an interrupted sweep continues
where it stopped. A value given twice for one parameter is run once (a note says so); a grid of
more than :data:`CONFIRM_POINTS` points needs ``yes=True`` (``--yes``), and one of more than
:data:`MAX_POINTS` is refused before it is even listed. A failing point does not stop the
others; it is reported at the end with its cell and error, and it has a row in every combined
table (``point_status`` failed) so that no table silently lacks it. A worker that dies mid-run
has its points rerun elsewhere by Dask; a cluster that answers nothing for
:data:`CLUSTER_TIMEOUT` seconds (an address that accepts connections but never replies, every
worker lost) ends the sweep with one line. ``sweep.json`` records the grid, the code hash and,
per point, its status, duration and worker; ``runs/sweeps/NAME/<slug of the grid>/combined/
<table>.csv`` stacks every table the notebook saved over all points, with the grid's parameters
as leading columns, in grid order, so the combined tables are byte-identical whether the sweep
ran locally or on a cluster.

Local workers ignore Ctrl-C (the client stops them and cleans up, with one line); the temporary
folders of workers that died are removed by the next point that runs on the same machine, and
by the client when its local cluster closes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..ledger.paths import project_root
from .specs import NotebookSpec, ParameterError, find, resolve_parameters, slug, unknown_parameter

SWEEP_FILE = "sweep.json"

#: A grid with more points than this runs only with ``yes=True`` (``--yes``).
CONFIRM_POINTS = 1000
#: A grid with more points than this is refused, ``--yes`` or not.
MAX_POINTS = 100_000
#: Seconds a cluster may stay silent (no answer, no worker) before the sweep gives up.
CLUSTER_TIMEOUT = 30.0
#: Prefix of the temporary folder of a point on its worker (followed by the worker's PID).
TMP_PREFIX = "rankbook-sweep-"


@dataclass
class SweepReport:
    folder: Path
    points: list[dict] = field(default_factory=list)
    ran: int = 0
    reused: int = 0
    failed: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# The grid
# --------------------------------------------------------------------------------------------
def split_values(text: str, sep: str = ",") -> list[str]:
    """The values of a sweep's ``-p KEY V1,V2``: split at each ``sep`` that no backslash
    precedes; ``\\,`` (``\\;``) is a comma (semicolon) inside one value.

    Examples
    --------
    >>> split_values("a,b"), split_values("Smith\\, J.,Doe\\, A."), split_values("5,6;7", ";")
    (['a', 'b'], ['Smith, J.', 'Doe, A.'], ['5,6', '7'])
    """
    parts = re.split(r"(?<!\\)" + re.escape(sep), text)
    return [v.replace("\\" + sep, sep).strip() for v in parts]


def _values(spec: NotebookSpec, key: str, text: str, notes: list | None = None) -> list[str]:
    """The values of one ``-p KEY ...`` as command-line strings, one per point. Integer ranges
    are counted before they are expanded, so a range beyond :data:`MAX_POINTS` is refused
    without building it. A text parameter whose value was split says so in ``notes`` (commas
    separate a sweep's values; ``\\,`` keeps one)."""
    if key not in spec.parameters:
        raise unknown_parameter(spec, key)
    p = spec.parameters[key]
    if isinstance(p.default, list):  # one whole list per value, separated by ';'
        values = split_values(text, ";")
        if len(values) > 1 and notes is not None and isinstance(p.default, list) and any(
                isinstance(x, str) for x in p.default):
            notes.append(f"{key}: {text!r} is {len(values)} values ({'; '.join(values[:5])}"
                         f"{' ...' if len(values) > 5 else ''}): in a sweep, ';' separates the "
                         "lists of a list parameter; write \\; for a ';' inside one list")
        return values
    parts = split_values(text, ",")
    if len(parts) > 1 and notes is not None and isinstance(p.default, str):
        notes.append(f"{key}: {text!r} is {len(parts)} values ({', '.join(map(repr, parts[:5]))}"
                     f"{' ...' if len(parts) > 5 else ''}): in a sweep, commas separate the "
                     "values; write \\, for a comma inside one value (e.g. -p KEY 'Smith\\, "
                     "J.')")
    out = []
    for part in parts:
        is_int = isinstance(p.default, int) and not isinstance(p.default, bool)
        if is_int and ":" in part:
            try:
                a, b = (int(x) for x in part.split(":"))
            except ValueError:
                raise ParameterError(f"bad range {part!r} for {key!r}: write START:STOP with "
                                     "integers (STOP excluded), e.g. 0:50") from None
            if b <= a:
                raise ParameterError(f"empty range {part!r} for {key!r}: STOP must exceed START")
            if len(out) + (b - a) > MAX_POINTS:
                raise ParameterError(f"the range {part!r} for {key!r} holds {b - a:,} values; a "
                                     f"sweep may have at most {MAX_POINTS:,} points")
            out += [str(x) for x in range(a, b)]
        elif ":" in part and not is_int and isinstance(p.default, float):
            raise ParameterError(f"the range {part!r} for {key!r}: START:STOP ranges count whole "
                                 f"numbers, and {key!r} is a float; list its values instead, e.g. "
                                 "0.5,0.6,0.7")
        else:
            out.append(part)
    return out


def _dedupe(spec: NotebookSpec, key: str, values: list[str]) -> tuple[list[str], list[str]]:
    """Values of one axis without repeats (compared as parsed: ``1`` and ``1.0`` of a float
    parameter are one value); returns the kept and the dropped texts."""
    from .specs import parse_value

    kept, dropped, seen = [], [], set()
    for text in values:
        try:
            typed = json.dumps(parse_value(spec.parameters[key], text), sort_keys=True,
                               default=str)
        except ValueError:
            typed = "text:" + text  # reported with its point by resolve_parameters
        if typed in seen:
            dropped.append(text)
            continue
        seen.add(typed)
        kept.append(text)
    return kept, dropped


def grid(spec: NotebookSpec, given: list[tuple[str, str]], root: Path | None = None, *,
         yes: bool = False, notes: list | None = None):
    """The points of the sweep: a list of ``(texts, params)`` in grid order, each ``params``
    validated like ``rankbook run``. Raises ParameterError on the first bad point, or when the
    grid is larger than :data:`CONFIRM_POINTS` without ``yes`` (or than :data:`MAX_POINTS`).
    Repeated values are dropped; ``notes`` receives one line per parameter that had some."""
    seen = set()
    axes = []
    for key, text in given:
        if key in seen:
            raise ParameterError(f"parameter {key!r} is given twice; list all its values in one "
                                 "-p (commas, or ';' between lists)")
        seen.add(key)
        values = _values(spec, key, text, notes)
        if not values or any(v == "" for v in values):
            raise ParameterError(f"parameter {key!r} has an empty value in {text!r}")
        values, dropped = _dedupe(spec, key, values)
        if dropped and notes is not None:
            notes.append(f"{key}: dropped {len(dropped)} repeated value(s) "
                         f"({', '.join(dropped[:5])}{' ...' if len(dropped) > 5 else ''}); "
                         "each point runs once")
        axes.append((key, values))
    total = math.prod(len(values) for _, values in axes)
    if total > MAX_POINTS:
        raise ParameterError(f"the grid has {total:,} points; a sweep may have at most "
                             f"{MAX_POINTS:,}: split it into several sweeps")
    if total > CONFIRM_POINTS and not yes:
        raise ParameterError(f"the grid has {total:,} points, more than {CONFIRM_POINTS:,}: check "
                             "it with --dry-run, then pass --yes to run it")
    points, unique = [], set()
    for combo in itertools.product(*[values for _, values in axes]):
        texts = [(key, value) for (key, _), value in zip(axes, combo)]
        try:
            params = resolve_parameters(spec, texts, root)
        except ParameterError as exc:
            where = ", ".join(f"{k}={v}" for k, v in texts)
            raise ParameterError(f"point {where}: {exc}") from None
        ident = json.dumps(params, sort_keys=True, default=str)
        if ident in unique:  # e.g. a relative and an absolute path to one file
            continue
        unique.add(ident)
        points.append((texts, params))
    return points


def grid_slug(given: list[tuple[str, str]], spec: NotebookSpec | None = None,
              points: list | None = None, root: Path | None = None) -> str:
    """The folder name of a grid: :func:`slug` of the values as given, plus a short hash of
    the contents of every file the points name (symlinks resolved), like a run folder's
    (:func:`rankbook.book.specs.run_slug`), so that sweeps of ``a/r.csv`` and ``b/r.csv``, or of
    a file edited since, never share a grid folder and its combined tables.

    Examples
    --------
    >>> grid_slug([("ns", "5,6")])
    'ns-5,6'
    """
    name = slug({k: v for k, v in given})
    if spec is None or not points:
        return name
    from .specs import files_hash, named_paths

    h = hashlib.sha256()
    found = False
    for _, params in points:
        paths = named_paths(spec, params, root)
        if paths:
            found = True
            h.update(files_hash(paths).encode())
    return f"{name[:68]}_{h.hexdigest()[:10]}" if found else name


# --------------------------------------------------------------------------------------------
# One point, on a worker
# --------------------------------------------------------------------------------------------
def _code_hash(root: Path) -> str:
    from .pipeline import tree_hash

    return tree_hash(root / "src" / "rankbook", (".py",))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_dead_temp_folders(tmp: Path | None = None) -> list[str]:
    """Remove the temporary folders of points whose worker process is gone (killed, or stopped
    by an interrupted sweep) on this machine. Returns the names removed."""
    tmp = Path(tmp or tempfile.gettempdir())
    removed = []
    for path in tmp.glob(f"{TMP_PREFIX}*"):
        try:
            pid = int(path.name[len(TMP_PREFIX):].split("-", 1)[0])
        except ValueError:
            continue
        if pid != os.getpid() and not _pid_alive(pid):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path.name)
    return removed


def run_point(notebook_bytes: bytes, name: str, params: dict, key: dict, code_hash: str,
              root: str | None = None, timeout: int | None = None) -> dict:
    """Execute one point in a temporary folder (on a worker) and return its files.

    Returns ``{"ok": True, "files": {relative path: bytes}, "duration": s, "worker": host}``
    or ``{"ok": False, "cell": ..., "error": ..., "worker": ...}`` when the notebook fails. A
    worker whose code differs from the client's refuses the point. The temporary folder is
    named with the worker's PID, so that folders left by a killed worker are found and removed.
    """
    import socket

    from .pipeline import NotebookFailed, OutputError, execute
    from .specs import read_spec

    here = Path(root) if root and Path(root).exists() else project_root()
    worker = f"{socket.gethostname()}:{os.getpid()}"
    mine = _code_hash(here)
    if mine != code_hash:
        return {"ok": False, "cell": None, "worker": worker,
                "error": (f"the worker's src/rankbook (hash {mine[:12]}) differs from the "
                          f"client's ({code_hash[:12]}): install rankbook at the same commit")}
    remove_dead_temp_folders()
    with tempfile.TemporaryDirectory(prefix=f"{TMP_PREFIX}{os.getpid()}-") as tmp:
        tmp = Path(tmp)
        nb = tmp / "source" / f"{name}.ipynb"
        nb.parent.mkdir()
        nb.write_bytes(notebook_bytes)
        spec = read_spec(nb)
        out = tmp / "run"
        try:
            rec = execute(spec, params, notebook_out=out / f"{name}.ipynb", outputs_out=out,
                          root=here, key=key, timeout=timeout,
                          kernel_log=tmp / "kernel.log")  # the kernel's chatter stays here
        except NotebookFailed as exc:
            return {"ok": False, "cell": exc.cell, "error": exc.error, "worker": worker}
        except OutputError as exc:
            return {"ok": False, "cell": None, "error": str(exc), "worker": worker}
        files = {p.relative_to(out).as_posix(): p.read_bytes()
                 for p in sorted(out.rglob("*")) if p.is_file()}
        return {"ok": True, "files": files, "duration": rec["duration"], "worker": worker}


def _write_point(folder: Path, files: dict) -> None:
    """Write a point's files into place atomically (staging folder, then rename)."""
    from .pipeline import _replace

    stage = folder.with_name(f".stage-{folder.name}-{os.getpid()}")
    shutil.rmtree(stage, ignore_errors=True)
    try:
        for rel, data in files.items():
            path = stage / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        _replace(stage, folder)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# The sweep
# --------------------------------------------------------------------------------------------
def sweep_folder(name: str, given: list[tuple[str, str]], root: Path | None = None,
                 spec: NotebookSpec | None = None, points: list | None = None) -> Path:
    from .pipeline import runs_dir

    return runs_dir(root) / "sweeps" / name / grid_slug(given, spec, points, root)


def points_folder(name: str, root: Path | None = None) -> Path:
    """Where the points of every sweep of ``name`` live, keyed by their own parameters."""
    from .pipeline import runs_dir

    return runs_dir(root) / "sweeps" / name / "points"


def point_slug(spec: NotebookSpec, params: dict, root: Path | None = None) -> str:
    """A point's folder name: its parameters that differ from the notebook's defaults (so
    the same point of two grids is one folder), plus the hash of the files they name."""
    from .specs import run_slug

    defaults = spec.defaults()
    own = {k: v for k, v in params.items() if defaults.get(k) != v}
    return run_slug(spec, own, root)


#: Column of every combined table that says whether the point's row holds its results.
STATUS_COLUMN = "point_status"


def _read_table(path: Path):
    """A CSV as text cells, headers as written (an index column saved without a name keeps its
    empty header, never ``Unnamed: 0``) and values byte for byte, but for the quote that
    guards a text a spreadsheet would run as a formula (:func:`rankbook.book.csvsafe.
    restore_cell`: the combined table puts it back when it is written)."""
    import csv

    import pandas as pd

    from .csvsafe import restore_cell

    with path.open(newline="") as f:
        rows = [[restore_cell(c) for c in r] for r in csv.reader(f)]
    if not rows:
        return pd.DataFrame()
    header, body = rows[0], rows[1:]
    width = len(header)
    body = [r + [""] * (width - len(r)) if len(r) < width else r[:width] for r in body]
    df = pd.DataFrame(body, columns=range(width), dtype=object)
    df.columns = header
    return df


def combine(folder: Path, points: list[dict], keys: list[str], points_dir: Path | None = None
            ) -> list[str]:
    """Stack each table the notebook saved, over all points, with the grid's parameters as
    leading columns and ``point_status`` (``ok`` or ``failed``) after them, in grid order. A failed point gets a row in
    every table (its parameters, ``point_status`` failed, the rest empty), so that no table
    silently lacks it. Returns the table names written."""
    import pandas as pd

    from .csvsafe import write_csv

    points_dir = points_dir or folder / "points"
    tables: dict[str, dict[int, Path]] = {}
    for i, point in enumerate(points):
        if point["status"] not in ("ran", "reused"):
            continue
        for csv in sorted((points_dir / point["slug"]).glob("*.csv")):
            tables.setdefault(csv.stem, {})[i] = csv
    out = folder / "combined"
    stage = folder / f".stage-combined-{os.getpid()}"
    shutil.rmtree(stage, ignore_errors=True)
    try:  # from its mkdir on, the staging folder is removed whatever happens
        stage.mkdir(parents=True)
        for stem, by_point in sorted(tables.items()):
            frames = []
            for i, point in enumerate(points):
                if i in by_point:
                    df = _read_table(by_point[i])
                    status = "ok"  # ran now or earlier: the same bytes either way
                elif point["status"] == "failed":
                    df = pd.DataFrame([{}])
                    status = "failed"
                else:
                    continue  # completed, but this point saved no such table
                df.insert(0, STATUS_COLUMN, status)
                at = 0
                for key in keys:
                    value = point["params"][key]
                    shown = ",".join(map(str, value)) if isinstance(value, list) else value
                    if key in df.columns:  # the table already names the swept value
                        if status == "failed" or (df[key].astype(str) == str(shown)).all():
                            continue
                        df = df.rename(columns={key: f"{key} (in the table)"})
                    df.insert(at, key, shown)
                    at += 1
                frames.append(df)
            combined = pd.concat(frames, ignore_index=True, sort=False)
            write_csv(combined, stage / f"{stem}.csv")  # no cell a formula
        from .pipeline import _replace

        _replace(stage, out)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return sorted(tables)


def run_sweep(name: str, given: list[tuple[str, str]], *, jobs: int | None = None,
              scheduler: str | None = None, dry_run: bool = False, root: Path | None = None,
              progress: bool = True, timeout: int | None = None, folder: Path | None = None,
              log=print, yes: bool = False) -> SweepReport:
    """Run ``name`` over the grid ``given`` (``[(KEY, "V1,V2"), ...]``); see the module doc.

    ``folder`` (default ``runs/sweeps/NAME/<grid>``) receives ``sweep.json`` and ``combined/``;
    the points live in ``runs/sweeps/NAME/points`` (shared by every grid), or in
    ``folder/points`` when ``folder`` is given.
    """
    from .pipeline import cache_key, folder_lock, interruptible, stored_key

    root = root or project_root()
    spec = find(name, root)
    notes: list[str] = []
    points = grid(spec, given, root, yes=yes or dry_run, notes=notes)
    for note in notes:
        log(f"note: {note}")
    # every parameter of the grid leads the combined tables (one value or several)
    keys = [k for k, _ in given]
    points_dir = folder / "points" if folder is not None else points_folder(name, root)
    folder = folder or sweep_folder(name, given, root, spec, points)
    report = SweepReport(folder, notes=notes)
    if dry_run:
        log(f"{len(points)} point(s) of {name}:")
        for texts, _ in points[:200]:
            log("  " + ", ".join(f"{k}={v}" for k, v in texts))
        if len(points) > 200:
            log(f"  ... and {len(points) - 200} more")
        return report
    from .pipeline import _os_error

    try:
        folder.mkdir(parents=True, exist_ok=True)
        points_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _os_error(exc, str(folder)) from None
    code_hash = _code_hash(root)
    records = []
    todo = []
    for texts, params in points:
        key = cache_key(spec, params, root)
        pslug = point_slug(spec, params, root)
        pdir = points_dir / pslug
        rec = {"params": {k: params[k] for k, _ in given}, "slug": pslug, "status": "pending",
               "duration": None, "worker": None}
        if stored_key(pdir, pdir / f"{name}.ipynb") == key:
            rec["status"] = "reused"
            report.reused += 1
        else:
            todo.append((rec, params, key))
        records.append(rec)
    report.points = records
    notebook_bytes = spec.path.read_bytes()
    try:
        with folder_lock(folder.parent / f".{folder.name}.lock", f"sweep of {name} on this grid"), \
                interruptible():
            if todo:
                _execute(todo, name, notebook_bytes, code_hash, root, jobs, scheduler, progress,
                         timeout, points_dir, report)
            combined = combine(folder, records, keys, points_dir)
            doc = {"notebook": name, "grid": {k: v for k, v in given}, "points": records,
                   "code": code_hash, "combined": combined, "notes": notes,
                   "points_folder": os.path.relpath(points_dir, folder),
                   "executor": scheduler or f"local, {jobs or os.cpu_count() or 1} worker(s)"}
            tmp = folder / (SWEEP_FILE + ".tmp")
            tmp.write_text(json.dumps(doc, indent=1, sort_keys=True, default=str) + "\n")
            os.replace(tmp, folder / SWEEP_FILE)
    except ClusterUnavailable:
        raise
    except OSError as exc:
        if exc.errno is None and not exc.filename:
            raise  # not a file system error
        raise _os_error(exc, str(folder)) from None
    missing = f"; {len(report.failed)} failed point(s) marked {STATUS_COLUMN} = failed in " \
              "every combined table" if report.failed and combined else ""
    log(f"{len(records)} point(s): {report.ran} ran, {report.reused} reused, "
        f"{len(report.failed)} failed; combined tables: {', '.join(combined) or 'none'}{missing}")
    return report


#: Protocols of a Dask scheduler address (``tcp://host:8786``).
SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")


def check_scheduler_address(address: str) -> str:
    """Refuse a malformed ``--scheduler`` address before anything runs (ParameterError: exit
    2), naming the form expected; a well-formed address that cannot be reached is found later
    (:class:`ClusterUnavailable`: exit 1).

    Examples
    --------
    >>> check_scheduler_address("tcp://127.0.0.1:8786")
    'tcp://127.0.0.1:8786'
    >>> check_scheduler_address("tcp//host")
    Traceback (most recent call last):
    ...
    rankbook.book.specs.ParameterError: malformed --scheduler address 'tcp//host': write SCHEME://HOST:PORT with SCHEME one of tcp, tls, ws, wss, ucx, inproc and PORT in 1..65535, e.g. tcp://127.0.0.1:8786
    """
    def refuse():
        raise ParameterError(
            f"malformed --scheduler address {address!r}: write SCHEME://HOST:PORT with SCHEME "
            f"one of {', '.join(SCHEDULER_SCHEMES)} and PORT in 1..65535, e.g. "
            "tcp://127.0.0.1:8786")

    text = address.strip()
    if not text or any(c.isspace() for c in text):
        refuse()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme not in SCHEDULER_SCHEMES or not rest or "/" in rest:
        refuse()
    if scheme == "inproc":
        return address
    if rest.startswith("["):  # [IPv6]:port
        host, _, port = rest[1:].partition("]")
        port = port[1:] if port.startswith(":") else ("" if not port else "x")
    else:
        host, _, port = rest.rpartition(":") if ":" in rest else (rest, "", "")
    if not host or ":" in host and not rest.startswith("["):
        refuse()
    if port and not (port.isdigit() and 1 <= int(port) <= 65535):
        refuse()
    return address


class ClusterUnavailable(OSError):
    """The Dask scheduler cannot be reached, does not answer, or has no worker left."""


def _probe(address: str, seconds: float) -> None:
    """Ask the scheduler who it is, within ``seconds``: an address that accepts connections but
    never answers would otherwise hang ``Client`` for ever, whatever its timeout."""
    import asyncio

    from distributed.comm import connect

    async def ask():
        comm = await connect(address, timeout=seconds)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    async def bounded():
        return await asyncio.wait_for(ask(), seconds)

    try:
        asyncio.run(bounded())
    except (asyncio.TimeoutError, TimeoutError):
        raise ClusterUnavailable(f"the Dask scheduler at {address} did not answer within "
                                 f"{seconds:.0f} s") from None
    except OSError as exc:
        raise ClusterUnavailable(f"cannot reach the Dask scheduler at {address}: "
                                 f"{exc.strerror or exc}") from None
    except Exception as exc:  # noqa: BLE001 - a malformed address, a foreign server
        raise ClusterUnavailable(f"cannot talk to a Dask scheduler at {address}: "
                                 f"{type(exc).__name__}: {exc}") from None


@contextlib.contextmanager
def _client(jobs: int | None, scheduler: str | None):
    from distributed import Client, LocalCluster

    if scheduler:
        _probe(scheduler, CLUSTER_TIMEOUT)
        with contextlib.redirect_stderr(io.StringIO()):
            client = Client(scheduler, timeout=f"{CLUSTER_TIMEOUT:.0f}s")
        try:
            try:
                client.wait_for_workers(1, timeout=CLUSTER_TIMEOUT)
            except (TimeoutError, OSError):
                raise ClusterUnavailable(f"the Dask scheduler at {scheduler} has no worker: none "
                                         f"joined within {CLUSTER_TIMEOUT:.0f} s") from None
            yield client
        finally:
            with contextlib.redirect_stderr(io.StringIO()):
                client.close(timeout=5)
        return
    # the client stops the workers on Ctrl-C and reports it in one line. The workers inherit a
    # standard error sent to /dev/null, so that a Ctrl-C reaching them (a terminal's reaches the
    # whole process group) prints no traceback of theirs. Ctrl-C is never ignored meanwhile
    # (ignoring it while the workers start, so that they inherit SIG_IGN, lost a Ctrl-C
    # pressed in those seconds)
    from .pipeline import _KernelLog

    cluster = None
    try:
        with contextlib.redirect_stderr(io.StringIO()), _KernelLog(Path(os.devnull)):
            # no dashboard, and its HTTP server on a free port: dashboard_address=None alone
            # still listens on the fixed port 8787, which collides with any running cluster
            cluster = LocalCluster(n_workers=jobs or os.cpu_count() or 1, threads_per_worker=1,
                                   processes=True, dashboard_address="127.0.0.1:0",
                                   scheduler_kwargs={"dashboard": False}, silence_logs=50)
            client = Client(cluster)
    except BaseException:
        if cluster is not None:
            with contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(Exception):
                cluster.close(timeout=10)
        remove_dead_temp_folders()
        raise
    try:
        yield client
    finally:
        with contextlib.redirect_stderr(io.StringIO()):
            with contextlib.suppress(Exception):
                client.close(timeout=5)
            with contextlib.suppress(Exception):
                cluster.close(timeout=10)
        remove_dead_temp_folders()


def _workers(client) -> int:
    try:
        return len(client.scheduler_info().get("workers", {}))
    except Exception:  # noqa: BLE001 - the connection is gone
        return 0


def _execute(todo, name, notebook_bytes, code_hash, root, jobs, scheduler, progress, timeout,
             points_dir, report):
    from distributed import wait
    from tqdm import tqdm

    bar = tqdm(total=len(todo), desc=f"sweep {name}", unit="point", disable=not progress,
               file=sys.stderr)
    with _client(jobs, scheduler) as client:
        futures = {}
        for rec, params, key in todo:
            fut = client.submit(run_point, notebook_bytes, name, params, key, code_hash,
                                str(root), timeout, pure=False, retries=2,
                                key=f"rankbook-{name}-{rec['slug']}-{time.time_ns()}")
            futures[fut] = rec
        pending = set(futures)
        silent_since = None
        try:
            while pending:
                try:
                    done, pending = wait(pending, timeout=2, return_when="FIRST_COMPLETED")
                except TimeoutError:  # nothing finished in these 2 s
                    done = set()
                for fut in done:
                    _collect(fut, futures[fut], points_dir, report)
                    bar.update(1)
                if done or _workers(client) and client.status == "running":
                    silent_since = None
                    continue
                silent_since = silent_since or time.monotonic()
                if time.monotonic() - silent_since > CLUSTER_TIMEOUT:
                    why = ("lost its connection to the scheduler" if client.status != "running"
                           else "has no worker left")
                    for fut in pending:
                        fut.cancel()
                        rec = futures[fut]
                        rec.update(status="failed", cell=None,
                                   error=f"the cluster {why} for {CLUSTER_TIMEOUT:.0f} s")
                        report.failed.append(rec)
                    pending = set()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
        finally:
            bar.close()


def _collect(fut, rec, points_dir, report) -> None:
    try:
        res = fut.result()
    except Exception as exc:  # noqa: BLE001 - a lost worker beyond the retries
        res = {"ok": False, "cell": None, "error": f"{type(exc).__name__}: {exc}",
               "worker": None}
    rec["worker"] = res.get("worker")
    if res["ok"]:
        _write_point(points_dir / rec["slug"], res["files"])
        rec.update(status="ran", duration=res["duration"])
        report.ran += 1
    else:
        rec.update(status="failed", cell=res.get("cell"), error=res["error"])
        report.failed.append(rec)
