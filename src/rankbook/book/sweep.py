"""``rankbook sweep``: run one notebook over a grid of parameters, locally or on a Dask cluster.

A sweep is the Cartesian product of the values given for each parameter. Every point is
validated exactly like ``rankbook run`` (types, declared constraints, input files) before
anything runs, then executed by Dask ``distributed``: a ``LocalCluster`` of ``jobs`` worker
processes by default, or an existing cluster at ``scheduler`` (``dask scheduler`` plus ``dask
worker`` processes, or dask-jobqueue on SLURM/PBS). No scheduler is written here.

Each point runs in a temporary folder on its worker; the worker sends the executed notebook and
every file it wrote back to the client, which writes them under
``runs/sweeps/NAME/<slug of the grid>/points/<slug of the point>/`` (the folder ``rankbook run``
would write). So the cluster needs no shared file system for the outputs, but every worker needs
rankbook installed at the same commit and the project's ``data/`` folder: a worker refuses a
point when its ``src/rankbook`` hashes differently from the client's (the notebook itself is
sent with the task).

A point already completed with the same parameters, notebook, code and data (the cache key of
``rankbook build``) is reused, so an interrupted sweep continues where it stopped. A failing
point does not stop the others; it is reported at the end with its cell and error. A worker
that dies mid-run has its points rerun elsewhere by Dask. ``sweep.json`` records the grid, the
code hash and, per point, its status, duration and worker; ``combined/<table>.csv`` stacks every
table the notebook saved over all points, with the swept parameters as leading columns, in grid
order, so the combined tables are byte-identical whether the sweep ran locally or on a cluster.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .paths import project_root
from .specs import NotebookSpec, ParameterError, find, resolve_parameters, slug

SWEEP_FILE = "sweep.json"


@dataclass
class SweepReport:
    folder: Path
    points: list[dict] = field(default_factory=list)
    ran: int = 0
    reused: int = 0
    failed: list[dict] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# The grid
# --------------------------------------------------------------------------------------------
def _values(spec: NotebookSpec, key: str, text: str) -> list[str]:
    """The values of one ``-p KEY ...`` as command-line strings, one per point."""
    if key not in spec.parameters:
        raise ParameterError(f"unknown parameter {key!r} for {spec.name}\n{spec.usage()}")
    p = spec.parameters[key]
    if isinstance(p.default, list):  # one whole list per value, separated by ';'
        return [v.strip() for v in text.split(";")]
    out = []
    for part in (v.strip() for v in text.split(",")):
        is_int = isinstance(p.default, int) and not isinstance(p.default, bool)
        if is_int and ":" in part:
            try:
                a, b = (int(x) for x in part.split(":"))
            except ValueError:
                raise ParameterError(f"bad range {part!r} for {key!r}: write START:STOP with "
                                     "integers (STOP excluded), e.g. 0:50") from None
            if b <= a:
                raise ParameterError(f"empty range {part!r} for {key!r}: STOP must exceed START")
            out += [str(x) for x in range(a, b)]
        else:
            out.append(part)
    return out


def grid(spec: NotebookSpec, given: list[tuple[str, str]], root: Path | None = None):
    """The points of the sweep: a list of ``(texts, params)`` in grid order, each ``params``
    validated like ``rankbook run``. Raises ParameterError on the first bad point."""
    seen = set()
    axes = []
    for key, text in given:
        if key in seen:
            raise ParameterError(f"parameter {key!r} is given twice; list all its values in one "
                                 "-p (commas, or ';' between lists)")
        seen.add(key)
        values = _values(spec, key, text)
        if not values or any(v == "" for v in values):
            raise ParameterError(f"parameter {key!r} has an empty value in {text!r}")
        axes.append((key, values))
    points = []
    for combo in itertools.product(*[values for _, values in axes]):
        texts = [(key, value) for (key, _), value in zip(axes, combo)]
        try:
            params = resolve_parameters(spec, texts, root)
        except ParameterError as exc:
            where = ", ".join(f"{k}={v}" for k, v in texts)
            raise ParameterError(f"point {where}: {exc}") from None
        points.append((texts, params))
    return points


def grid_slug(given: list[tuple[str, str]]) -> str:
    return slug({k: v for k, v in given})


# --------------------------------------------------------------------------------------------
# One point, on a worker
# --------------------------------------------------------------------------------------------
def _code_hash(root: Path) -> str:
    from .pipeline import tree_hash

    return tree_hash(root / "src" / "rankbook", (".py",))


def run_point(notebook_bytes: bytes, name: str, params: dict, key: dict, code_hash: str,
              root: str | None = None, timeout: int | None = None) -> dict:
    """Execute one point in a temporary folder (on a worker) and return its files.

    Returns ``{"ok": True, "files": {relative path: bytes}, "duration": s, "worker": host}``
    or ``{"ok": False, "cell": ..., "error": ..., "worker": ...}`` when the notebook fails. A
    worker whose code differs from the client's refuses the point.
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
    with tempfile.TemporaryDirectory(prefix="rankbook-sweep-") as tmp:
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
    for rel, data in files.items():
        path = stage / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    try:
        _replace(stage, folder)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# The sweep
# --------------------------------------------------------------------------------------------
def sweep_folder(name: str, given: list[tuple[str, str]], root: Path | None = None) -> Path:
    from .pipeline import runs_dir

    return runs_dir(root) / "sweeps" / name / grid_slug(given)


def combine(folder: Path, points: list[dict], keys: list[str]) -> list[str]:
    """Stack each table the notebook saved, over all completed points, with the swept
    parameters as leading columns, in grid order. Returns the table names written."""
    import pandas as pd

    tables: dict[str, list] = {}
    for point in points:
        if point["status"] not in ("ran", "reused"):
            continue
        pdir = folder / "points" / point["slug"]
        for csv in sorted(pdir.glob("*.csv")):
            tables.setdefault(csv.stem, []).append((point, csv))
    out = folder / "combined"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for stem, items in sorted(tables.items()):
        frames = []
        for point, csv in items:
            df = pd.read_csv(csv)
            for i, key in enumerate(keys):
                value = point["params"][key]
                shown = ",".join(map(str, value)) if isinstance(value, list) else value
                if key in df.columns:  # the table already names the swept value in a column
                    if (df[key].astype(str) == str(shown)).all():
                        continue
                    df = df.rename(columns={key: f"{key} (in the table)"})
                df.insert(i, key, shown)
            frames.append(df)
        combined = pd.concat(frames, ignore_index=True)
        combined.to_csv(out / f"{stem}.csv", index=False, lineterminator="\n")
    return sorted(tables)


def run_sweep(name: str, given: list[tuple[str, str]], *, jobs: int | None = None,
              scheduler: str | None = None, dry_run: bool = False, root: Path | None = None,
              progress: bool = True, timeout: int | None = None, folder: Path | None = None,
              log=print) -> SweepReport:
    """Run ``name`` over the grid ``given`` (``[(KEY, "V1,V2"), ...]``); see the module doc."""
    from .pipeline import cache_key, folder_lock, interruptible, stored_key

    root = root or project_root()
    spec = find(name, root)
    points = grid(spec, given, root)
    # the swept parameters (more than one value) lead the combined tables; the others are fixed
    keys = [k for k, _ in given if len({str(p[1][k]) for p in points}) > 1]
    folder = folder or sweep_folder(name, given, root)
    report = SweepReport(folder)
    if dry_run:
        log(f"{len(points)} point(s) of {name}:")
        for texts, _ in points:
            log("  " + ", ".join(f"{k}={v}" for k, v in texts))
        return report
    folder.mkdir(parents=True, exist_ok=True)
    code_hash = _code_hash(root)
    records = []
    todo = []
    for texts, params in points:
        key = cache_key(spec, params, root)
        pslug = slug({k: params[k] for k, _ in given})
        pdir = folder / "points" / pslug
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
    with folder_lock(folder.parent / f".{folder.name}.lock", f"sweep of {name} on this grid"), \
            interruptible():
        if todo:
            _execute(todo, name, notebook_bytes, code_hash, root, jobs, scheduler, progress,
                     timeout, folder, report)
        combined = combine(folder, records, keys)
        doc = {"notebook": name, "grid": {k: v for k, v in given}, "points": records,
               "code": code_hash, "combined": combined,
               "executor": scheduler or f"local, {jobs or os.cpu_count() or 1} worker(s)"}
        tmp = folder / (SWEEP_FILE + ".tmp")
        tmp.write_text(json.dumps(doc, indent=1, sort_keys=True, default=str) + "\n")
        os.replace(tmp, folder / SWEEP_FILE)
    log(f"{len(records)} point(s): {report.ran} ran, {report.reused} reused, "
        f"{len(report.failed)} failed; combined tables: {', '.join(combined) or 'none'}")
    return report


@contextlib.contextmanager
def _client(jobs: int | None, scheduler: str | None):
    from distributed import Client, LocalCluster

    if scheduler:
        client = Client(scheduler, timeout="30s")
        try:
            yield client
        finally:
            client.close()
        return
    with contextlib.redirect_stderr(io.StringIO()):
        cluster = LocalCluster(n_workers=jobs or os.cpu_count() or 1, threads_per_worker=1,
                               processes=True, dashboard_address=None, silence_logs=50)
        client = Client(cluster)
    try:
        yield client
    finally:
        with contextlib.redirect_stderr(io.StringIO()):
            client.close()
            cluster.close()


def _execute(todo, name, notebook_bytes, code_hash, root, jobs, scheduler, progress, timeout,
             folder, report):
    from distributed import as_completed
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
        try:
            for fut in as_completed(futures):
                rec = futures[fut]
                try:
                    res = fut.result()
                except Exception as exc:  # noqa: BLE001 - a lost worker beyond the retries
                    res = {"ok": False, "cell": None, "error": f"{type(exc).__name__}: {exc}",
                           "worker": None}
                rec["worker"] = res.get("worker")
                if res["ok"]:
                    _write_point(folder / "points" / rec["slug"], res["files"])
                    rec.update(status="ran", duration=res["duration"])
                    report.ran += 1
                else:
                    rec.update(status="failed", cell=res.get("cell"), error=res["error"])
                    report.failed.append(rec)
                bar.update(1)
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
        finally:
            bar.close()
