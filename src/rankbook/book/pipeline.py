"""Execute the parameterized notebooks with papermill and compile the book with jupyter-book.

The pipeline has three steps:

1. **Discover** every ``notebooks/*.ipynb`` and read its parameters: the cell tagged
   ``parameters`` holds ``name = literal`` lines whose defaults are the paper's settings, and the
   notebook metadata ``rankbook`` gives a one-line ``description`` and ``smoke`` parameters.
2. **Execute** the notebooks that changed, several at once, each into a temporary folder that is
   moved into place only on success, so a failing notebook never destroys the last good output.
   A manifest of hashes (notebook source, parameters, ``src/rankbook``, ``data/``) tells which
   notebooks are unchanged and can be reused.
3. **Compile** the site with jupyter-book (notebook execution off, warnings as errors), after
   generating the dashboard, errata and parameter pages from the notebooks' outputs.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from .paths import NOTEBOOK_DIR_ENV, OUTPUT_ENV, ROOT_ENV, project_root
from .specs import (  # noqa: F401 - re-exported: the pipeline is where callers look
    NotebookSpec,
    Parameter,
    ParameterError,
    check_parameters,
    discover,
    find,
    parse_value,
    read_spec,
    resolve_parameters,
    slug,
)

MANIFEST_NAME = ".manifest.json"
FAILED_DIR_NAME = "_failed"


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------
class NotebookFailed(RuntimeError):
    """A notebook raised during execution."""

    def __init__(self, name: str, cell: int | None, error: str, saved: str | None = None):
        self.name, self.cell, self.error, self.saved = name, cell, error, saved
        where = f"cell {cell}" if cell is not None else "an unknown cell"
        msg = f"notebook {name!r} failed in {where}: {error}"
        if saved:
            msg += f"\n  the failed executed copy is at {saved}; the last good output is untouched"
        super().__init__(msg)


# --------------------------------------------------------------------------------------------
# Folders
# --------------------------------------------------------------------------------------------
def generated_dir(root: Path | None = None) -> Path:
    return (root or project_root()) / "book" / "generated"


def runs_dir(root: Path | None = None) -> Path:
    return (root or project_root()) / "runs"


# --------------------------------------------------------------------------------------------
# Cache
# --------------------------------------------------------------------------------------------
def tree_hash(folder: Path, suffixes: tuple[str, ...] | None = None) -> str:
    """Hash of the relative paths and bytes of every file under ``folder``."""
    h = hashlib.sha256()
    if folder.exists():
        for p in sorted(folder.rglob("*")):
            if not p.is_file() or "__pycache__" in p.parts or p.suffix == ".pyc":
                continue
            if suffixes and p.suffix not in suffixes:
                continue
            h.update(p.relative_to(folder).as_posix().encode() + b"\0")
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def cache_key(spec: NotebookSpec, params: dict[str, Any], root: Path | None = None) -> dict:
    root = root or project_root()
    extra = hashlib.sha256()
    for rel in spec.inputs:
        path = root / rel
        extra.update(rel.encode() + b"\0")
        extra.update(path.read_bytes() if path.is_file() else b"<missing>")
    return {
        "notebook": hashlib.sha256(spec.path.read_bytes()).hexdigest(),
        "inputs": extra.hexdigest(),
        "parameters": hashlib.sha256(
            json.dumps(params, sort_keys=True, default=str).encode()
        ).hexdigest(),
        "code": tree_hash(root / "src" / "rankbook", (".py",)),
        "data": tree_hash(root / "data"),
    }


def load_manifest(folder: Path) -> dict:
    path = folder / MANIFEST_NAME
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return {}


def save_manifest(folder: Path, manifest: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / (MANIFEST_NAME + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, folder / MANIFEST_NAME)


def changed_parts(old: dict | None, new: dict) -> list[str]:
    if not old:
        return ["never executed"]
    return [k for k in new if old.get(k) != new[k]]


# --------------------------------------------------------------------------------------------
# Execution
# --------------------------------------------------------------------------------------------
def git_commit(root: Path | None = None) -> str:
    root = root or project_root()
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True,
            text=True, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        return sha + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"


def _provenance_markdown(params: dict, defaults: dict, started: float, duration: float,
                         commit: str) -> str:
    import numpy

    rows = []
    for key, value in params.items():
        mark = "" if defaults.get(key) == value else " (changed from the default)"
        rows.append(f"`{key} = {value!r}`{mark}")
    param_text = "<br>".join(rows) if rows else "(none)"
    when = _dt.datetime.fromtimestamp(started, tz=_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    table = "\n".join([
        "| | |",
        "|---|---|",
        f"| Parameters | {param_text} |",
        f"| Git commit | `{commit}` |",
        f"| Python | {platform.python_version()} |",
        f"| numpy | {numpy.__version__} |",
        f"| rankbook | {__version__} |",
        f"| Executed | {when} |",
        f"| Duration | {duration:.1f} s |",
    ])
    return f":::{{admonition}} Provenance\n:class: dropdown note\n\n{table}\n:::\n"


def postprocess(nb_path: Path, params: dict, defaults: dict, started: float, duration: float,
                commit: str) -> None:
    """Hide the injected-parameters cell, then present the page (:mod:`rankbook.book.present`):
    code folded, raw values dropped, the verdict box first and the provenance box last."""
    import nbformat

    from .present import _results_for, present

    nb = nbformat.read(nb_path, as_version=4)
    for cell in nb.cells:
        tags = cell.metadata.setdefault("tags", [])
        if "injected-parameters" in tags and "remove-cell" not in tags:
            tags.append("remove-cell")
    present(nb, _results_for(nb_path),
            _provenance_markdown(params, defaults, started, duration, commit))
    nbformat.write(nb, nb_path)


def _error_from_papermill(exc: BaseException) -> tuple[int | None, str]:
    """The failing cell (its 1-based position in the source notebook) and the error."""
    index = getattr(exc, "cell_index", None)
    ename = getattr(exc, "ename", None)
    evalue = getattr(exc, "evalue", None)
    source = (getattr(exc, "source", "") or "").strip().splitlines()
    first = f" starting {source[0][:60]!r}" if source else ""
    if ename:
        return index, f"{ename}: {evalue}" + (f" (cell{first})" if first else "")
    return index, f"{type(exc).__name__}: {exc}"


def _replace(src: Path, dst: Path) -> None:
    """Move ``src`` onto ``dst``, keeping the old ``dst`` until the move has succeeded."""
    backup = dst.with_name(f".old-{dst.name}-{os.getpid()}")
    if backup.exists():
        shutil.rmtree(backup) if backup.is_dir() else backup.unlink()
    had_old = dst.exists()
    if had_old:
        os.replace(dst, backup)
    try:
        os.replace(src, dst)
    except BaseException:
        if had_old:
            os.replace(backup, dst)
        raise
    if had_old:
        shutil.rmtree(backup) if backup.is_dir() else backup.unlink()


class _KernelLog:
    """Send the kernel's own stderr chatter (it inherits ours) to a log file while executing.

    ipykernel prints connection warnings and shutdown messages straight to the inherited file
    descriptor 2, which garbles the progress bar; errors in cells are reported by papermill.
    """

    def __init__(self, path: Path | None):
        self.path = path
        self.saved = None

    def __enter__(self):
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            sys.stderr.flush()
            self.saved = os.dup(2)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 2)
            os.close(fd)
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            sys.stderr.flush()
            os.dup2(self.saved, 2)
            os.close(self.saved)
        return False


def execute(
    spec: NotebookSpec,
    params: dict[str, Any],
    *,
    notebook_out: Path,
    outputs_out: Path,
    root: Path | None = None,
    failed_dir: Path | None = None,
    kernel_log: Path | None = None,
) -> dict:
    """Execute ``spec`` with ``params``; on success move the executed notebook to
    ``notebook_out`` and its outputs folder to ``outputs_out``.

    ``outputs_out`` may equal ``notebook_out.parent`` (a run folder holding both). Everything is
    staged in a temporary folder beside the destination first; nothing at the destination is
    touched unless execution succeeds. Returns a record with the duration.
    """
    import papermill

    root = root or project_root()
    shared = outputs_out.resolve() == notebook_out.parent.resolve()
    # stage beside the destination (same file system, so the final moves are renames)
    stage_parent = outputs_out.parent if shared else notebook_out.parent
    stage_parent.mkdir(parents=True, exist_ok=True)
    stage = stage_parent / f".stage-{spec.name}-{os.getpid()}-{time.time_ns()}"
    stage_nb_dir = stage / "run" if shared else stage
    stage_nb = stage_nb_dir / notebook_out.name
    stage_out = stage_nb_dir if shared else stage / outputs_out.name
    stage_out.mkdir(parents=True, exist_ok=True)

    env_before = {k: os.environ.get(k) for k in (OUTPUT_ENV, NOTEBOOK_DIR_ENV, ROOT_ENV)}
    os.environ[OUTPUT_ENV] = str(stage_out)
    os.environ[NOTEBOOK_DIR_ENV] = str(stage_nb_dir)
    os.environ[ROOT_ENV] = str(root)
    os.environ.setdefault("MPLBACKEND", "agg")
    started = time.time()
    try:
        with _KernelLog(kernel_log):
            papermill.execute_notebook(
                str(spec.path), str(stage_nb), parameters=params, cwd=str(stage_nb_dir),
                kernel_name="python3", progress_bar=False, log_output=False,
            )
    except BaseException as exc:  # noqa: BLE001 - report any failure, keep old outputs
        cell, error = _error_from_papermill(exc)
        saved = None
        if failed_dir is not None and stage_nb.exists():
            failed_dir.mkdir(parents=True, exist_ok=True)
            saved_path = failed_dir / notebook_out.name
            shutil.copyfile(stage_nb, saved_path)
            saved = str(saved_path)
        shutil.rmtree(stage, ignore_errors=True)
        raise NotebookFailed(spec.name, cell, error, saved) from None
    finally:
        for k, v in env_before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    duration = time.time() - started
    postprocess(stage_nb, {**spec.defaults(), **params}, spec.defaults(), started, duration,
                git_commit(root))
    if shared:
        _replace(stage_nb_dir, outputs_out)
    else:
        _replace(stage_out, outputs_out)
        _replace(stage_nb, notebook_out)
    shutil.rmtree(stage, ignore_errors=True)
    return {"name": spec.name, "duration": round(duration, 3), "executed": started}


def _execute_for_build(spec_path: str, root: str) -> dict:
    """Worker entry point (runs in a child process, so environment variables stay private)."""
    rootp = Path(root)
    spec = read_spec(Path(spec_path))
    gen = generated_dir(rootp)
    try:
        rec = execute(
            spec, {}, notebook_out=gen / f"{spec.name}.ipynb", outputs_out=gen / spec.name,
            root=rootp, failed_dir=gen / FAILED_DIR_NAME,
            kernel_log=gen / "_logs" / f"{spec.name}.kernel.log",
        )
        return {"ok": True, **rec}
    except NotebookFailed as exc:
        return {"ok": False, "name": spec.name, "message": str(exc)}


@dataclass
class BuildReport:
    ran: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    durations: dict[str, float] = field(default_factory=dict)


def execute_all(root: Path | None = None, *, force: bool = False, jobs: int | None = None,
                progress: bool = True, log=print) -> BuildReport:
    """Execute every changed notebook into ``book/generated`` (step 2 of the pipeline)."""
    from tqdm import tqdm

    root = root or project_root()
    gen = generated_dir(root)
    gen.mkdir(parents=True, exist_ok=True)
    manifest = load_manifest(gen)
    report = BuildReport()
    todo: list[tuple[NotebookSpec, dict]] = []
    for spec in discover(root):
        key = cache_key(spec, {}, root)
        old = manifest.get(spec.name, {})
        present = (gen / f"{spec.name}.ipynb").exists() and (gen / spec.name).is_dir()
        why = changed_parts(old.get("key"), key)
        if not force and not why and present:
            report.reused.append(spec.name)
            report.durations[spec.name] = old.get("duration", 0.0)
        else:
            reason = "forced" if force else ("outputs missing" if not why else ", ".join(why))
            todo.append((spec, key))
            log(f"execute {spec.name}: {reason} changed" if why and not force and why !=
                ["never executed"] else f"execute {spec.name}: {reason}")
    jobs = max(1, jobs or os.cpu_count() or 1)
    if todo:
        bar = tqdm(total=len(todo), desc="notebooks", unit="nb", disable=not progress,
                   file=sys.stderr)
        import multiprocessing as mp

        with ProcessPoolExecutor(max_workers=min(jobs, len(todo)),
                                 mp_context=mp.get_context("spawn")) as pool:
            futures = {pool.submit(_execute_for_build, str(s.path), str(root)): (s, k)
                       for s, k in todo}
            for fut in as_completed(futures):
                spec, key = futures[fut]
                res = fut.result()
                bar.update(1)
                if res["ok"]:
                    report.ran.append(spec.name)
                    report.durations[spec.name] = res["duration"]
                    manifest[spec.name] = {"key": key, "duration": res["duration"],
                                           "executed": res["executed"]}
                    save_manifest(gen, manifest)
                    bar.write(f"  ran    {spec.name} ({res['duration']:.1f} s)")
                else:
                    report.failed.append(spec.name)
                    report.messages.append(res["message"])
                    manifest.pop(spec.name, None)
                    save_manifest(gen, manifest)
                    bar.write(f"  FAILED {spec.name}")
        bar.close()
    for name in report.reused:
        log(f"  reused {name} (nothing changed)")
    report.ran.sort()
    report.failed.sort()
    return report


def run_one(name: str, overrides, root: Path | None = None) -> Path:
    """``rankbook run``: execute one notebook with new parameters into ``runs/NAME/<slug>/``."""
    root = root or project_root()
    spec = find(name, root)
    params = resolve_parameters(spec, overrides)
    folder = runs_dir(root) / spec.name / slug(params)
    execute(spec, params, notebook_out=folder / f"{spec.name}.ipynb", outputs_out=folder,
            root=root, failed_dir=runs_dir(root) / spec.name / FAILED_DIR_NAME,
            kernel_log=runs_dir(root) / spec.name / "_logs" / "kernel.log")
    return folder


# --------------------------------------------------------------------------------------------
# The book
# --------------------------------------------------------------------------------------------
def jupyter_book_command(root: Path) -> list[str]:
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(exe)] if exe.exists() else ["jupyter-book"]
    return cmd + ["build", str(root), "--builder", "html", "-W", "--keep-going"]


def build_site(root: Path | None = None, log=print) -> Path:
    """Generate the summary pages, then run jupyter-book (step 3). Returns the index path."""
    from .site import write_generated_pages

    root = root or project_root()
    write_generated_pages(root)
    cmd = jupyter_book_command(root)
    log("$ " + " ".join(cmd))
    env = {**os.environ, "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    proc = subprocess.run(cmd, cwd=root, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"jupyter-book failed with exit status {proc.returncode}")
    index = root / "_build" / "html" / "index.html"
    if not index.exists():
        raise RuntimeError(f"jupyter-book finished but {index} is missing")
    return index
