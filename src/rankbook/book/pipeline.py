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

import contextlib
import datetime as _dt
import fcntl
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from .interrupts import Interrupted, deferred, interruptible  # noqa: F401 - re-exported
from ..ledger.paths import NOTEBOOK_DIR_ENV, OUTPUT_ENV, ROOT_ENV, project_root
from .specs import (  # noqa: F401 - re-exported: the pipeline is where callers look
    NotebookSpec,
    Parameter,
    ParameterError,
    check_parameters,
    discover,
    files_hash,
    find,
    named_paths,
    parse_value,
    read_spec,
    resolve_parameters,
    run_slug,
    slug,
)

MANIFEST_NAME = ".manifest.json"
FAILED_DIR_NAME = "_failed"


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------
class Busy(RuntimeError):
    """Another build (or a run of the same parameters) holds the lock."""


class OutputError(RuntimeError):
    """The outputs could not be written (full disk, read-only folder, ...): one clear line."""


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
def tree_hash(folder: Path, suffixes: tuple[str, ...] | None = None,
              skip: tuple[str, ...] = ()) -> str:
    """Hash of the relative paths and bytes of every file under ``folder`` (``skip``: relative
    folders left out)."""
    h = hashlib.sha256()
    if folder.exists():
        for p in sorted(folder.rglob("*")):
            if not p.is_file() or "__pycache__" in p.parts or p.suffix == ".pyc":
                continue
            if suffixes and p.suffix not in suffixes:
                continue
            rel = p.relative_to(folder).as_posix()
            if skip and rel.startswith(tuple(f"{s}/" for s in skip)):
                continue
            h.update(rel.encode() + b"\0")
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def ledger_hash(spec: NotebookSpec, root: Path) -> str:
    """Hash of what the claims ledger gives the notebook's checks
    (:func:`rankbook.ledger.claims.page_entries`): the numbers, data files and check functions
    of the claims it uses, never their words; and whether the fetched data they name is on this
    machine."""
    from ..ledger import claims as _claims

    book = _claims.ledger(root)
    entries = _claims.page_entries(book, spec.name, spec.path.read_text(encoding="utf-8"))
    fetched = sorted({rel[len(_claims.FETCH_PREFIX):] for e in entries.values()
                      for rel in e["data"].values() if rel.startswith(_claims.FETCH_PREFIX)})
    if fetched:
        from ..ledger import fetch

        entries["(fetched data available)"] = {k: fetch.available(k, root) for k in fetched}
    return hashlib.sha256(json.dumps(entries, sort_keys=True, default=str).encode()).hexdigest()


def cache_key(spec: NotebookSpec, params: dict[str, Any], root: Path | None = None) -> dict:
    """Everything an execution's outputs depend on, each part as a content hash (never a file
    time): the notebook, its declared extra ``inputs``, the parameters, the files and folders
    the parameters name wherever they live (:func:`rankbook.book.specs.named_paths`: a CSV
    outside ``data/``, a metric's ``.py`` file), the library's code, ``data/`` (the claims
    ledger aside), what the ledger gives this notebook's checks (:func:`ledger_hash`), and the
    environment (:func:`environment_hash`)."""
    from ..ledger.claims import LEDGER_DIR

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
        "files": files_hash(named_paths(spec, {**spec.defaults(), **params}, root)),
        "code": tree_hash(root / "src" / "rankbook", (".py",)),
        "data": tree_hash(root / "data", skip=(LEDGER_DIR[-1],)),
        "ledger": ledger_hash(spec, root),
        "environment": environment_hash(root),
    }


_ENVIRONMENT: dict[str, str] = {}


def environment_hash(root: Path | None = None) -> str:
    """Hash of the software a notebook runs with: ``requirements.lock`` and the name and
    version of every installed distribution (so ``make venv`` after a lock-file change, or any
    upgrade, re-executes the notebooks), and the Python version. Computed once per process."""
    root = root or project_root()
    lock = root / "requirements.lock"
    try:
        lock_bytes = lock.read_bytes()
    except OSError:
        lock_bytes = b"<no lock file>"
    cache = str(root) + hashlib.sha256(lock_bytes).hexdigest() + "\0".join(sys.path)
    if cache not in _ENVIRONMENT:
        h = hashlib.sha256(lock_bytes)
        h.update(sys.version.encode())
        h.update("\n".join(installed_distributions(root)).encode())
        _ENVIRONMENT[cache] = h.hexdigest()
    return _ENVIRONMENT[cache]


#: The project's own distribution: its code is hashed as code (``src/rankbook``), so installing
#: it (``pip install .``, ``pip install -e .``, ``make test``) changes no environment hash.
OWN_DISTRIBUTION = __name__.split(".")[0]


def installed_distributions(root: Path | None = None) -> list[str]:
    """``name-version`` of every distribution installed on ``sys.path`` (the folders
    ``NAME-VERSION.dist-info``, and ``.egg-info`` of old-style installs), sorted: what the
    environment hash covers. Left out: the project's own distribution (:data:`OWN_DISTRIBUTION`,
    hashed as code) and anything inside the project's own folder other than a virtualenv under
    it (``src/rankbook.egg-info``, a by-product of building the project, is not an installed
    package). Reading the names is enough, and takes milliseconds."""
    root = (root or project_root()).resolve()
    prefixes = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    names = set()
    for entry in sys.path:
        try:
            folder = Path(entry or ".").resolve()
            inside = folder == root or root in folder.parents
            if inside and not any(folder == p or p in folder.parents for p in prefixes):
                continue  # the project's sources (src/), not an installation
            for p in folder.iterdir():
                if p.suffix not in (".dist-info", ".egg-info"):
                    continue
                name = p.name[: -len(p.suffix)].lower()
                dist = name.split("-", 1)[0].replace("_", "-").replace(".", "-")
                if dist == OWN_DISTRIBUTION:
                    continue
                names.add(name)
        except OSError:
            continue
    return sorted(names)


def read_manifest(folder: Path) -> tuple[dict, str | None]:
    """The manifest, and a one-line reason when it had to be ignored (unreadable or of the wrong
    shape). The manifest is only an index: a notebook is reused only when the cache key stored
    *inside* its outputs folder matches too (:func:`stored_key`)."""
    path = folder / MANIFEST_NAME
    if not path.exists():
        return {}, None
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return {}, f"{path}: {type(exc).__name__}: {exc}"
    if not isinstance(data, dict):
        return {}, f"{path}: expected an object of notebook entries, found {type(data).__name__}"
    bad = [k for k, v in data.items()
           if not (isinstance(v, dict) and isinstance(v.get("key"), dict))]
    if bad:
        return {}, f"{path}: entries without a cache key: {', '.join(map(str, bad[:5]))}"
    return data, None


def load_manifest(folder: Path) -> dict:
    """The manifest, or ``{}`` when it is missing, unreadable or of the wrong shape."""
    return read_manifest(folder)[0]


def save_manifest(folder: Path, manifest: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / (MANIFEST_NAME + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, folder / MANIFEST_NAME)


def changed_parts(old: dict | None, new: dict) -> list[str]:
    if not old:
        return ["never executed"]
    return [k for k in new if old.get(k) != new[k]]


#: The cache key an execution was made with, stored inside its outputs folder (and in the
#: executed notebook's metadata) and renamed into place together with them.
KEY_FILE = ".rankbook-key.json"


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes, read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def output_digests(outputs: Path) -> dict[str, str]:
    """The content hash of every file an execution wrote under ``outputs`` (the key file
    itself aside), by path relative to ``outputs``."""
    out = {}
    for p in sorted(outputs.rglob("*")):
        if p.is_file() and not p.is_symlink() and p.name != KEY_FILE:
            out[p.relative_to(outputs).as_posix()] = file_digest(p)
    return out


def write_key_file(outputs: Path, key: dict, notebook: Path) -> None:
    """Write :data:`KEY_FILE`: the cache key, and the content hash of every output file and of
    the executed notebook, so that a damaged output (deleted, truncated, edited, cells removed)
    is found before it is reused (:func:`verify_outputs`)."""
    record = {"key": key, "outputs": output_digests(outputs), "notebook": file_digest(notebook)}
    (outputs / KEY_FILE).write_text(json.dumps(record, sort_keys=True) + "\n")


def verify_outputs(outputs: Path, notebook: Path | None = None) -> tuple[dict | None, str | None]:
    """The cache key an execution's outputs were made with, after checking them: ``(key,
    None)`` when every file the key file records is there with the bytes it was written with
    (no file missing, changed or added) and the executed notebook is the one written with them;
    else ``(None, reason)``, the reason naming the first file that differs. A key file that is
    missing, unreadable or corrupt is a reason too, never an error: the notebook is executed
    again."""
    path = outputs / KEY_FILE
    try:
        record = json.loads(path.read_text())
    except FileNotFoundError:
        return None, f"{path} is missing"
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"{path} is unreadable ({type(exc).__name__})"
    if not (isinstance(record, dict) and isinstance(record.get("key"), dict)
            and isinstance(record.get("outputs"), dict)):
        return None, f"{path} records no output hashes (written by an older rankbook)"
    key, recorded = record["key"], record["outputs"]
    try:
        found = output_digests(outputs)
    except OSError as exc:
        return None, f"{exc.filename or outputs} is unreadable ({exc.strerror or exc})"
    for rel in sorted(set(recorded) | set(found)):
        if rel not in found:
            return None, f"{outputs / rel} is missing"
        if rel not in recorded:
            return None, f"{outputs / rel} was not written by the execution"
        if found[rel] != recorded[rel]:
            return None, f"{outputs / rel} changed since it was written"
    if notebook is not None:
        try:
            digest = file_digest(notebook)
            meta = json.loads(notebook.read_text()).get("metadata", {}).get("rankbook", {})
        except FileNotFoundError:
            return None, f"{notebook} is missing"
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError) as exc:
            return None, f"{notebook} is unreadable ({type(exc).__name__})"
        if digest != record.get("notebook") or meta.get("cache_key") != key:
            return None, f"{notebook} changed since it was written"
    return key, None


def stored_key(outputs: Path, notebook: Path | None = None) -> dict | None:
    """The cache key stored with an execution's outputs, or None when it is missing or
    unreadable, when an output file differs from the one recorded, or when the executed
    notebook differs (a half-replaced pair is never reused): :func:`verify_outputs`."""
    return verify_outputs(outputs, notebook)[0]


# --------------------------------------------------------------------------------------------
# Locks, signals and staging folders
# --------------------------------------------------------------------------------------------
LOCK_NAME = ".lock"


#: Locks this process holds (path -> depth), so that a step called inside a build that already
#: holds the lock (jupyter-book after the notebooks) does not wait for itself.
_HELD: dict[str, int] = {}


@contextlib.contextmanager
def folder_lock(lock_path: Path, what: str, wait: bool = False):
    """Hold ``fcntl.flock`` on ``lock_path`` (created if needed) for the ``with`` block.

    Raises :class:`Busy` naming the holder's PID when another process holds it, unless ``wait``.
    The lock dies with its process, so a killed build never leaves a stale lock behind. A lock
    this process already holds is held again at once (re-entrant). A folder that cannot be
    written raises :class:`OutputError` in one line.
    """
    key = str(Path(lock_path).absolute())
    if _HELD.get(key):
        _HELD[key] += 1
        try:
            yield
        finally:
            _HELD[key] -= 1
        return
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise _os_error(exc, str(lock_path)) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            raise Busy(f"another {what} is running (PID {holder}); wait for it to finish, "
                       "or pass --wait") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        _HELD[key] = 1
        try:
            yield
        finally:
            _HELD.pop(key, None)
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _made_generated_dir(root: Path) -> Path:
    """``book/generated``, created if needed; a folder that cannot be made is one line."""
    gen = generated_dir(root)
    try:
        gen.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _os_error(exc, str(gen)) from None
    return gen


def remove_stale(folder: Path, patterns: tuple[str, ...] = (".stage-*", ".old-*")) -> list[str]:
    """Remove staging and backup folders left by a killed or failed execution. Call it only
    while holding the folder's lock, so that no live execution owns them."""
    removed = []
    for pattern in patterns:
        for path in folder.glob(pattern):
            if path.name.startswith(".old-"):
                # a backup whose replacement never arrived is the last good output: restore it
                target = folder / path.name[len(".old-"):].rsplit("-", 1)[0]
                if not target.exists():
                    with contextlib.suppress(OSError):
                        os.replace(path, target)
                        removed.append(path.name)
                        continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    path.unlink()
            removed.append(path.name)
    return removed


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (PR_SET_PDEATHSIG)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - best effort
        pass


def _worker_init() -> None:
    """Build workers leave interrupts to the main process, which stops them, and die with it.
    Their kernels run in sessions of their own and exit when their parent worker is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()


def _os_error(exc: OSError, what: str) -> OutputError:
    """One line for a failed write. A ``shutil.Error`` (``copytree`` on a full disk) carries a
    list of every file that failed, thousands of characters long: the line counts them and
    names the first.

    Examples
    --------
    >>> err = shutil.Error([("a/x.html", "b/x.html", "[Errno 28] No space left on device"),
    ...                     ("a/y.html", "b/y.html", "[Errno 28] No space left on device")])
    >>> print(_os_error(err, "b"))
    cannot write b: 2 file(s) could not be copied, the first b/x.html: [Errno 28] No space left on device
    """
    if isinstance(exc, shutil.Error):
        failures = exc.args[0] if exc.args and isinstance(exc.args[0], list) else []
        if failures:
            first = failures[0]
            if isinstance(first, (tuple, list)) and len(first) == 3:
                name, why = first[1], first[2]
            else:
                name, why = what, str(first)
            return OutputError(f"cannot write {what}: {len(failures)} file(s) could not be "
                               f"copied, the first {name}: {str(why)[:300]}")
        return OutputError(f"cannot write {what}: {str(exc)[:300]}")
    where = exc.filename or what
    reason = exc.strerror or str(exc)
    return OutputError(f"cannot write {where}: {str(reason)[:300]}")


# --------------------------------------------------------------------------------------------
# Execution
# --------------------------------------------------------------------------------------------
def git_commit(root: Path | None = None) -> str:
    """The commit of the source at ``root`` as the provenance box of a run names it: the
    commit, "with uncommitted changes", or a copy without git
    (:meth:`rankbook.book.source_archive.Source.commit_text`). A repository whose top level is
    not ``root`` does not count."""
    from .source_archive import describe

    return describe(root or project_root()).commit_text()


def _provenance_markdown(params: dict, defaults: dict, started: float, duration: float,
                         commit: str, name: str | None = None, checkout: str | None = None,
                         folder: str | None = None) -> str:
    """The provenance box. ``commit`` is the text of its commit row and ``checkout`` the
    first step of its command (``git checkout X && ``; by default taken from a commit id at
    the start of ``commit``): a page of the site gets
    :data:`~rankbook.book.source_archive.COMMIT_TOKEN` and ``CHECKOUT_TOKEN``, filled when the
    site is built."""
    import numpy

    from .outputs import escape_markdown

    def code(text: str) -> str:  # any value, literal inside a Markdown table cell
        return "<code>" + escape_markdown(text) + "</code>"

    from .source_archive import ARCHIVE_NAME, CHECKOUT_TOKEN, FOLDER_TOKEN

    # a page of the site offers the archive beside it; a run names the archive it came from
    site = checkout == CHECKOUT_TOKEN
    archive = (f"{{download}}`{ARCHIVE_NAME} <{ARCHIVE_NAME}>`, then " if site
               else f"{code(ARCHIVE_NAME)} of the book, then ")
    folder = FOLDER_TOKEN if site else (folder or "rankbook")
    rows = []
    for key, value in params.items():
        mark = "" if defaults.get(key) == value else " (changed from the default)"
        rows.append(f"{code(f'{key} = {value!r}')}{mark}")
    param_text = "<br>".join(rows) if rows else "(none)"
    when = _dt.datetime.fromtimestamp(started, tz=_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    table = "\n".join([
        "| | |",
        "|---|---|",
        f"| Parameters | {param_text} |",
        f"| Git commit | {code(commit)} |",
        *([f"| Command, in a clone of the source | "
           f"{code(_reproduce_command(name, params, defaults, commit, checkout))} |",
           f"| Command, from the source archive (no git) | {archive}"
           f"{code(_archive_command(name, params, defaults, folder))} |"]
          if name else []),
        f"| Python | {platform.python_version()} |",
        f"| numpy | {numpy.__version__} |",
        f"| rankbook | {__version__} |",
        f"| Executed | {when} |",
        f"| Duration | {duration:.1f} s |",
    ])
    return f":::{{admonition}} Provenance\n:class: dropdown note rb-provenance\n\n{table}\n:::\n"


def _run_words(name: str, params: dict, defaults: dict) -> list[str]:
    from .present import cli_value
    from .specs import shell_word

    parts = [".venv/bin/rankbook", "run", name]
    for key, value in params.items():
        if defaults.get(key) != value:
            text = cli_value(value)
            parts += ["-p", key, text if text == '""' else shell_word(text)]
    return parts


def _archive_command(name: str, params: dict, defaults: dict, folder: str) -> str:
    """The commands that rebuild this output from the source archive, with no git: unpack it,
    go into its folder, install, run."""
    from .source_archive import ARCHIVE_NAME

    return (f"tar xzf {ARCHIVE_NAME} && cd {folder} && make venv && "
            + " ".join(_run_words(name, params, defaults)))


def _reproduce_command(name: str, params: dict, defaults: dict, commit: str,
                       checkout: str | None = None) -> str:
    """The exact commands that rebuild this output: check out the commit, then run. Each value
    is one shell word a reader can paste back, a file name with a line break in it too
    (:func:`rankbook.book.specs.shell_word`)."""
    parts = _run_words(name, params, defaults)
    if checkout is None:
        sha = (commit.split() or [""])[0]
        plain = sha and all(c in "0123456789abcdef" for c in sha) and commit == sha
        checkout = f"git checkout {sha} && " if plain else ""
    return f"{checkout}make venv && {' '.join(parts)}"


def postprocess(nb_path: Path, params: dict, defaults: dict, started: float, duration: float,
                commit, key: dict | None = None, spec: NotebookSpec | None = None) -> None:
    """Hide the injected-parameters cell, then present the page (:mod:`rankbook.book.present`):
    code folded, raw values dropped, the verdict box first and the provenance box last.

    ``commit``: ``None`` for a page of the site, whose source and commit are written when the
    site is built (:mod:`rankbook.book.source_archive` tokens); else the
    :class:`~rankbook.book.source_archive.Source` of a run, filled in now."""
    import nbformat

    from .present import _errata_for, _results_for, present
    from .source_archive import CHECKOUT_TOKEN, COMMIT_TOKEN, Source, fill

    nb = nbformat.read(nb_path, as_version=4)
    for cell in nb.cells:
        tags = cell.metadata.setdefault("tags", [])
        if "injected-parameters" in tags and "remove-cell" not in tags:
            tags.append("remove-cell")
    folder = None
    if isinstance(commit, Source):
        text, checkout, folder = commit.commit_text(), commit.checkout(), commit.folder
    elif commit is None:
        text, checkout = COMMIT_TOKEN, CHECKOUT_TOKEN
    else:
        text, checkout = str(commit), None
    present(nb, _results_for(nb_path),
            _provenance_markdown(params, defaults, started, duration, text,
                                 spec.name if spec is not None else None, checkout, folder),
            _errata_for(nb_path),
            spec=spec, duration=duration if params == defaults else None,
            params=params, folder=Path(nb_path).parent, commit=text)
    if isinstance(commit, Source):  # a run, not a page of the site: its source is known now
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = fill(cell.source, commit)
    if key is not None:
        nb.metadata.setdefault("rankbook", {})["cache_key"] = key
    nbformat.write(nb, nb_path)


def _failing_cell(executed: Path) -> int | None:
    """1-based position, in the SOURCE notebook, of the cell that failed or timed out.

    The executed copy has papermill's injected-parameters cell in it, which shifts indices by
    one, so the position is counted without it: ``build`` and ``run`` report the same number.
    """
    try:
        cells = json.loads(executed.read_text()).get("cells", [])
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    position = 0
    for cell in cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if "injected-parameters" in tags or "papermill-error-cell-tag" in tags:
            continue  # cells papermill adds: parameters, and the error banners
        position += 1
        pm = cell.get("metadata", {}).get("papermill", {})
        if pm.get("status") in ("running", "failed") or pm.get("exception") or any(
                o.get("output_type") == "error" for o in cell.get("outputs", [])):
            return position
    return None


#: How many times a notebook's kernel is started when it fails before running any cell.
KERNEL_START_ATTEMPTS = 3
_KERNEL_START_ERRORS = ("RuntimeError", "DeadKernelError", "ZMQError")


def _kernel_never_started(exc: BaseException, executed: Path) -> bool:
    """True when papermill failed before the first cell began, because the kernel died or
    did not answer while starting: two kernels starting at the same moment in two processes
    can pick the same free port (papermill issue 511, "Address already in use"), which
    ``build --jobs 2`` meets now and then. A cell's own error, a time limit, or any failure
    after a cell began is never retried.

    papermill marks the cells that never ran "completed" when it gives up, so a cell counts
    as begun only by what running leaves: a start time, a running or failed status, an
    execution count or an output."""
    if getattr(exc, "ename", None) or type(exc).__name__ not in _KERNEL_START_ERRORS:
        return False
    try:
        cells = json.loads(executed.read_text()).get("cells", [])
    except FileNotFoundError:
        return True  # papermill had not yet written its first copy
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return not any(_cell_began(c) for c in cells)


def _cell_began(cell: dict) -> bool:
    pm = cell.get("metadata", {}).get("papermill", {})
    return (bool(pm.get("start_time")) or pm.get("status") in ("running", "failed")
            or cell.get("execution_count") is not None or bool(cell.get("outputs")))


def _printed_exception(executed: Path | None) -> str | None:
    """The last exception line (``MemoryError``, ``ValueError: ...``) the failing cell printed,
    for a failure papermill reports without one: under a memory limit IPython cannot format
    the traceback, and only the plain one reaches the cell's output."""
    try:
        cells = json.loads(executed.read_text()).get("cells", []) if executed else []
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    for cell in cells[::-1]:
        if cell.get("metadata", {}).get("papermill", {}).get("status") != "failed":
            continue
        lines = []
        for out in cell.get("outputs", []):
            text = out.get("text", "")
            lines += ("".join(text) if isinstance(text, list) else str(text)).splitlines()
            if out.get("ename"):
                lines.append(f"{out['ename']}: {out.get('evalue', '')}".rstrip(": "))
        found = [ln.strip() for ln in lines
                 if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b(:.*)?$",
                             ln.strip())]
        if any(ln == "MemoryError" or ln.startswith("MemoryError:")
               or "[Errno 12]" in ln for ln in found):
            return "MemoryError"  # out of memory, then out of memory again reporting it
        return found[-1] if found else None
    return None


def _error_from_papermill(exc: BaseException, executed: Path | None = None,
                          timeout: int | None = None, spec: NotebookSpec | None = None,
                          params: dict | None = None, oom: bool = False
                          ) -> tuple[int | None, str]:
    """The failing cell (its 1-based position in the source notebook) and the error. A kernel
    that ran out of memory (a MemoryError, or a kernel killed without a word: the
    out-of-memory killer's SIGKILL, ``oom`` when the cgroup counted it) is named as such, with
    the limits this process runs under and what to lower (:func:`memory_message`)."""
    cell = _failing_cell(executed) if executed is not None else None
    ename = getattr(exc, "ename", None)
    evalue = getattr(exc, "evalue", None)
    source = (getattr(exc, "source", "") or "").strip().splitlines()
    first = f" starting {source[0][:60]!r}" if source else ""
    if type(exc).__name__ in ("CellTimeoutError", "TimeoutError") and not ename:
        return cell, (f"the cell ran longer than its time limit of {timeout} s (metadata "
                      "rankbook.timeout, or --timeout)")
    if type(exc).__name__ == "DeadKernelError" and not ename:
        return cell, memory_message("dead", spec, params, oom)
    if ename and (ename == "CellExecutionError" or not str(evalue or "").strip()):
        printed = _printed_exception(executed)  # papermill lost the exception: find it
        if printed:
            ename, _, evalue = printed.partition(":")
            evalue = evalue.strip()
    if ename == "MemoryError":
        return cell, memory_message("MemoryError", spec, params) + (f" (cell{first})" if first else "")
    if ename:
        return cell, f"{ename}: {evalue}" + (f" (cell{first})" if first else "")
    return cell, f"{type(exc).__name__}: {exc}"


# --------------------------------------------------------------------------------------------
# Memory: what a kernel that ran out of it is told
# --------------------------------------------------------------------------------------------
def _cgroup_dirs() -> list[Path]:
    """This process's memory cgroup folders, innermost first (cgroup v2, then v1); a
    container that hides the path shows its own cgroup at the mount's root."""
    out: list[Path] = []
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if controllers == "":
            mount = Path("/sys/fs/cgroup")
        elif "memory" in controllers.split(","):
            mount = Path("/sys/fs/cgroup/memory")
        else:
            continue
        here = mount / path.lstrip("/")
        while True:
            if here.is_dir() and here not in out:
                out.append(here)
            if here == mount:
                break
            here = here.parent
        if mount.is_dir() and mount not in out:
            out.append(mount)
    return out


def _size(n: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}".replace(".0 ", " ")
    return f"{n:.0f} bytes"


def memory_limits() -> list[str]:
    """The memory limits this process (and the kernels it starts) runs under, as text: the
    address-space and data limits (``ulimit -v``, ``ulimit -d``) when set, and the tightest
    cgroup limit (``memory.max``, or ``memory.limit_in_bytes`` under cgroup v1). Empty when
    none is set.

    Examples
    --------
    >>> isinstance(memory_limits(), list)
    True
    """
    import resource

    out = []
    for name, what in (("RLIMIT_AS", "address space (ulimit -v)"),
                       ("RLIMIT_DATA", "data (ulimit -d)")):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            soft = resource.getrlimit(getattr(resource, name))[0]
            if soft != resource.RLIM_INFINITY:
                out.append(f"{what} {_size(soft)}")
    limits = []
    for folder in _cgroup_dirs():
        for name in ("memory.max", "memory.limit_in_bytes"):
            with contextlib.suppress(OSError, ValueError):
                text = (folder / name).read_text().strip()
                if text != "max" and int(text) < 2**60:
                    limits.append((int(text), f"cgroup {name} {_size(int(text))}"))
    if limits:
        out.append(min(limits)[1])
    return out


def oom_kills() -> int | None:
    """How many processes the out-of-memory killer has killed in this process's cgroup
    (``memory.events`` ``oom_kill``, or v1's ``memory.oom_control``); None when unknown."""
    for folder in _cgroup_dirs():
        for name in ("memory.events", "memory.oom_control"):
            with contextlib.suppress(OSError, ValueError):
                for line in (folder / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
    return None


def _raised(spec: NotebookSpec | None, params: dict | None) -> str:
    """What to lower: the values the user raised above the notebook's defaults, or its
    parameters."""
    if spec is None:
        return "lower the parameters that size the computation"
    def number(v) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    raised = []
    for key, value in (params or {}).items():
        default = spec.defaults().get(key)
        if isinstance(value, list) and isinstance(default, list):
            nums = all(number(v) for v in value + default)
            bigger = len(value) > len(default) or (nums and value and default
                                                   and max(value) > max(default))
        else:
            bigger = number(value) and number(default) and value > default
        if bigger:
            raised.append(f"{key} = {value!r}")
    if raised:
        return f"lower the values you raised ({', '.join(raised)})"
    return f"lower the parameters that size it (`rankbook list {spec.name}`)"


def memory_message(cause: str, spec: NotebookSpec | None = None, params: dict | None = None,
                   oom: bool = False) -> str:
    """The message of a kernel that ran out of memory: ``cause`` (a MemoryError, or a kernel
    killed without a word), the limits this process runs under (:func:`memory_limits`), and
    what to lower.

    Examples
    --------
    >>> memory_message("MemoryError", oom=False).startswith("MemoryError: the notebook ran out of memory")
    True
    """
    limits = memory_limits()
    limit = (f"the limit{'s' if len(limits) > 1 else ''} this process runs under: "
             f"{', '.join(limits)}" if limits else "no memory limit is set on this process"
             + (", so the machine's memory ran out" if cause == "MemoryError" or oom else ""))
    if cause == "MemoryError":
        head = "MemoryError: the notebook ran out of memory"
    elif oom:
        head = "the kernel was killed by the out-of-memory killer"
    else:
        head = ("the kernel died without an error: a signal killed it, most often the "
                "out-of-memory killer, which stops a process that outgrows its memory without a "
                "word")
    return f"{head} ({limit}); {_raised(spec, params)}, or give it more memory"


def _replace(src: Path, dst: Path) -> None:
    """Move ``src`` onto ``dst``, keeping the old ``dst`` until the move has succeeded."""
    backup = dst.with_name(f".old-{dst.name}-{os.getpid()}")
    with deferred():  # a signal never leaves the pair half done: it is raised after it
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
            with deferred():  # never leave standard error redirected half-way
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                sys.stderr.flush()
                self.saved = os.dup(2)
                os.dup2(fd, 2)
                os.close(fd)
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            with deferred():
                with contextlib.suppress(OSError, ValueError):
                    sys.stderr.flush()
                os.dup2(self.saved, 2)
                os.close(self.saved)
                self.saved = None
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
    key: dict | None = None,
    timeout: int | None = None,
    stage_prefix: str | None = None,
    finish=None,
    site: bool = False,
) -> dict:
    """Execute ``spec`` with ``params``; on success move the executed notebook to
    ``notebook_out`` and its outputs folder to ``outputs_out``.

    ``outputs_out`` may equal ``notebook_out.parent`` (a run folder holding both). Everything is
    staged in a temporary folder beside the destination first; nothing at the destination is
    touched unless execution succeeds, and the staging folder is removed whatever happens
    (failure, interruption, full disk). ``key`` (the cache key) is written into the staged
    outputs (:data:`KEY_FILE`) and the executed notebook's metadata, so it is renamed into place
    together with them. ``timeout`` is the per-cell limit in seconds (default: the notebook's
    ``rankbook.timeout``). Raises :class:`NotebookFailed` (naming the failing cell by its 1-based
    position in the source notebook) or :class:`OutputError`. Returns a record with the
    duration. ``finish(staged_outputs)``, when given, runs once the notebook ran and was
    presented, before the key file is written and the staging folder is swapped in (``rankbook
    run --page`` renders the page there): whatever it raises leaves the destination as it was.
    ``site``: a page of the book, whose commit and source are written when the site is built
    (:func:`rankbook.book.source_archive.fill_site`); else they are written now.
    """
    import papermill

    root = root or project_root()
    timeout = timeout or spec.timeout
    shared = outputs_out.resolve() == notebook_out.parent.resolve()
    # stage beside the destination (same file system, so the final moves are renames)
    stage_parent = outputs_out.parent if shared else notebook_out.parent
    stage = stage_parent / f".stage-{stage_prefix or spec.name}-{os.getpid()}-{time.time_ns()}"
    stage_nb_dir = stage / "run" if shared else stage
    stage_nb = stage_nb_dir / notebook_out.name
    stage_out = stage_nb_dir if shared else stage / outputs_out.name
    env_before = {k: os.environ.get(k) for k in (OUTPUT_ENV, NOTEBOOK_DIR_ENV, ROOT_ENV)}
    try:  # from its first mkdir, the staging folder is removed whatever happens
        try:
            stage_out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _os_error(exc, str(stage)) from None
        os.environ[OUTPUT_ENV] = str(stage_out)
        os.environ[NOTEBOOK_DIR_ENV] = str(stage_nb_dir)
        os.environ[ROOT_ENV] = str(root)
        os.environ.setdefault("MPLBACKEND", "agg")
        started = time.time()
        restarts = 0
        oom_before = oom_kills()
        try:
            with _KernelLog(kernel_log):
                while True:
                    try:
                        papermill.execute_notebook(
                            str(spec.path), str(stage_nb), parameters=params,
                            cwd=str(stage_nb_dir), kernel_name="python3", progress_bar=False,
                            log_output=False, execution_timeout=timeout,
                        )
                        break
                    except Exception as exc:  # noqa: BLE001 - only a kernel that never started
                        if restarts >= KERNEL_START_ATTEMPTS - 1 or not _kernel_never_started(exc, stage_nb):
                            raise
                        restarts += 1
                        print(f"rankbook: the kernel of {spec.name} failed to start ({type(exc).__name__}: "
                              f"{exc}); starting it again ({restarts + 1} of {KERNEL_START_ATTEMPTS})",
                              file=sys.stderr, flush=True)
        except (Interrupted, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - report any failure, keep old outputs
            if (isinstance(exc, OSError) and not isinstance(exc, TimeoutError)
                    and exc.errno is not None and getattr(exc, "filename", None)):
                raise _os_error(exc, str(stage)) from None  # papermill could not write
            oom_after = oom_kills()
            oom = oom_before is not None and oom_after is not None and oom_after > oom_before
            cell, error = _error_from_papermill(exc, stage_nb, timeout, spec, params, oom)
            saved = note = None
            if failed_dir is not None and stage_nb.exists():
                try:
                    failed_dir.mkdir(parents=True, exist_ok=True)
                    saved_path = failed_dir / notebook_out.name
                    shutil.copyfile(stage_nb, saved_path)
                    saved = str(saved_path)
                except OSError as copy_exc:  # never hide the cell's own error behind this one
                    note = f"(the failed copy could not be saved: {_os_error(copy_exc, str(failed_dir))})"
            if note:
                error = f"{error} {note}"
            raise NotebookFailed(spec.name, cell, error, saved) from None
        finally:
            for k, v in env_before.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        duration = time.time() - started
        try:
            from .source_archive import describe

            postprocess(stage_nb, {**spec.defaults(), **params}, spec.defaults(), started,
                        duration, None if site else describe(root), key, spec=spec)
            if finish is not None:
                finish(stage_out)
            if key is not None:
                write_key_file(stage_out, key, stage_nb)
            if shared:
                _replace(stage_nb_dir, outputs_out)
            else:
                _replace(stage_out, outputs_out)
                _replace(stage_nb, notebook_out)
        except OSError as exc:
            raise _os_error(exc, str(outputs_out)) from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        for k, v in env_before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return {"name": spec.name, "duration": round(duration, 3), "executed": started,
            "kernel_restarts": restarts}


def _execute_for_build(spec_path: str, root: str, key: dict, timeout: int | None) -> dict:
    """Worker entry point (runs in a child process, so environment variables stay private)."""
    rootp = Path(root)
    spec = read_spec(Path(spec_path))
    gen = generated_dir(rootp)
    try:
        rec = execute(
            spec, {}, notebook_out=gen / f"{spec.name}.ipynb", outputs_out=gen / spec.name,
            root=rootp, failed_dir=gen / FAILED_DIR_NAME,
            kernel_log=gen / "_logs" / f"{spec.name}.kernel.log", key=key, timeout=timeout,
            site=True,  # its commit and source are written when the site is built
        )
        return {"ok": True, **rec}
    except (NotebookFailed, OutputError) as exc:
        return {"ok": False, "name": spec.name, "message": str(exc)}


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel queued work and kill the running workers now (their kernels follow them)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.kill()
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.join(timeout=5)


def remove_orphans(gen: Path, names: set[str], manifest: dict | None = None) -> list[str]:
    """Remove the executed copies and outputs of notebooks that no longer exist (deleted, or
    gone with a branch switch) from ``book/generated``, so that their pages leave the site:
    ``NAME.ipynb`` and the folder ``NAME/`` holding a key file, for every NAME not in
    ``names``; their manifest entries too. Returns the names removed. Call it while holding the
    build lock."""
    removed = set()
    for nb in gen.glob("*.ipynb"):
        if nb.stem not in names and not nb.name.startswith((".", "_")):
            with contextlib.suppress(FileNotFoundError):
                nb.unlink()
            removed.add(nb.stem)
    for folder in gen.iterdir() if gen.is_dir() else ():
        if (folder.is_dir() and not folder.is_symlink() and folder.name not in names
                and not folder.name.startswith((".", "_"))
                and ((folder / KEY_FILE).exists() or folder.name in removed)):
            shutil.rmtree(folder, ignore_errors=True)
            removed.add(folder.name)
    for name in list(manifest or {}):
        if name not in names:
            manifest.pop(name)
            removed.add(name)
    return sorted(removed)


@dataclass
class BuildReport:
    ran: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    durations: dict[str, float] = field(default_factory=dict)
    #: notebooks that were to execute but did not finish (the build was interrupted)
    unfinished: list[str] = field(default_factory=list)


def execute_all(root: Path | None = None, *, force: bool = False, jobs: int | None = None,
                progress: bool = True, log=print, timeout: int | None = None,
                wait: bool = False) -> BuildReport:
    """Execute every changed notebook into ``book/generated`` (step 2 of the pipeline).

    Holds the lock on ``book/generated`` (:class:`Busy` when another build holds it, unless
    ``wait``), removes staging folders left by killed builds, and reuses a notebook only when
    the cache key stored inside its outputs matches the current one. On SIGINT or SIGTERM it
    cancels queued notebooks, kills the running workers (and so their kernels), removes their
    staging folders and raises :class:`Interrupted`; ``report.unfinished`` is then set on the
    report attached to the exception (``exc.report``).
    """
    from tqdm import tqdm

    root = root or project_root()
    gen = _made_generated_dir(root)
    report = BuildReport()
    with folder_lock(gen / LOCK_NAME, "build", wait=wait), interruptible():
        stale = remove_stale(gen)
        if stale:
            log(f"removed {len(stale)} staging folder(s) left by an interrupted build")
        manifest, problem = read_manifest(gen)
        if problem:
            log(f"manifest unreadable: {problem}; re-executing everything")
        from ..ledger import claims as _claims

        _claims.load_ledger(root)  # a broken ledger stops the build before any kernel starts
        specs = discover(root)
        orphans = remove_orphans(gen, {s.name for s in specs}, manifest)
        if orphans:
            save_manifest(gen, manifest)
            log(f"removed the outputs of {len(orphans)} notebook(s) that no longer exist: "
                f"{', '.join(orphans)}")
        todo: list[tuple[NotebookSpec, dict]] = []
        for spec in specs:
            key = cache_key(spec, {}, root)
            old = manifest.get(spec.name, {})
            inside, damage = verify_outputs(gen / spec.name, gen / f"{spec.name}.ipynb")
            why = changed_parts(old.get("key"), key)
            if not force and not why and inside == key:
                report.reused.append(spec.name)
                report.durations[spec.name] = old.get("duration", 0.0)
                continue
            if force:
                reason = "forced"
            elif why == ["never executed"]:
                reason = "never executed" if inside is None else "not in the manifest"
            elif why:
                reason = ", ".join(why) + " changed"
            elif damage:
                reason = f"its outputs cannot be reused: {damage}"
            else:
                reason = "its outputs do not carry the current cache key"
            todo.append((spec, key))
            log(f"execute {spec.name}: {reason}")
        jobs = max(1, jobs or os.cpu_count() or 1)
        if todo:
            import multiprocessing as mp

            bar = tqdm(total=len(todo), desc="notebooks", unit="nb", disable=not progress,
                       file=sys.stderr)
            pool = ProcessPoolExecutor(max_workers=min(jobs, len(todo)),
                                       mp_context=mp.get_context("spawn"),
                                       initializer=_worker_init)
            futures = {}
            try:
                # the workers start with their standard error in a log: a Ctrl-C that reaches
                # one before its initializer ignores SIGINT prints no traceback of its own
                with _KernelLog(gen / "_logs" / "workers.log"):
                    futures = {pool.submit(_execute_for_build, str(s.path), str(root), k,
                                           timeout): (s, k) for s, k in todo}
                for fut in as_completed(futures):
                    spec, key = futures[fut]
                    res = fut.result()
                    bar.update(1)
                    if res["ok"]:
                        report.ran.append(spec.name)
                        report.durations[spec.name] = res["duration"]
                        moved = changed_parts(key, _key_now(spec, root))
                        if moved:  # its inputs changed while it ran: never stored as current
                            manifest.pop(spec.name, None)
                            bar.write(f"  note   {spec.name}: {', '.join(moved)} changed while it "
                                      "ran; the next build executes it again")
                        else:
                            manifest[spec.name] = {"key": key, "duration": res["duration"],
                                                   "executed": res["executed"]}
                        save_manifest(gen, manifest)
                        again = res.get("kernel_restarts", 0)
                        bar.write(f"  ran    {spec.name} ({res['duration']:.1f} s"
                                  + (f"; its kernel failed to start and was started again {again}x, "
                                     "see book/generated/_logs" if again else "") + ")")
                    else:
                        report.failed.append(spec.name)
                        report.messages.append(res["message"])
                        manifest.pop(spec.name, None)
                        save_manifest(gen, manifest)
                        bar.write(f"  FAILED {spec.name}")
            except BaseException as exc:
                _stop_pool(pool)
                remove_stale(gen)
                done = set(report.ran) | set(report.failed)
                report.unfinished = sorted(s.name for s, _ in todo if s.name not in done)
                if isinstance(exc, (Interrupted, KeyboardInterrupt)):
                    exc.report = report
                if isinstance(exc, OSError):
                    raise _os_error(exc, str(gen)) from None
                raise
            finally:
                pool.shutdown(wait=False, cancel_futures=True)
                bar.close()
    for name in report.reused:
        log(f"  reused {name} (nothing changed)")
    report.ran.sort()
    report.failed.sort()
    return report


def _key_now(spec: NotebookSpec, root: Path) -> dict:
    """The notebook's cache key as its inputs stand now (after its run), or an empty key when
    they cannot be read (the notebook or a file it names removed meanwhile)."""
    try:
        return cache_key(read_spec(spec.path), {}, root)
    except (OSError, ValueError):
        return {"notebook": "<unreadable>"}


def build_book(root: Path | None = None, *, force: bool = False, jobs: int | None = None,
               progress: bool = True, log=print, timeout: int | None = None, wait: bool = False,
               site: bool = True) -> tuple[BuildReport, Path | None]:
    """``rankbook build``: execute the changed notebooks, then (when every notebook succeeded
    and ``site``) build and publish the site, all under one lock, so that no other build can
    start between the two steps. Returns the report and the index of the published site (None
    when it was not built)."""
    root = root or project_root()
    gen = _made_generated_dir(root)
    with folder_lock(gen / LOCK_NAME, "build", wait=wait), interruptible():
        report = execute_all(root, force=force, jobs=jobs, progress=progress, log=log,
                             timeout=timeout)
        if report.failed or not site:
            return report, None
        try:
            return report, build_site(root, log=log)
        except Interrupted as exc:
            exc.during = "site"  # the notebooks are done; the published site is untouched
            raise


def run_one(name: str, overrides, root: Path | None = None, *, timeout: int | None = None,
            wait: bool = False, page: bool = False) -> Path:
    """``rankbook run``: execute one notebook with new parameters into ``runs/NAME/<slug>/``.

    The run folder is locked while it runs (:class:`Busy` for a second run of the same
    parameters); staging folders of earlier runs of the same parameters that were killed are
    removed first; SIGINT or SIGTERM raise :class:`Interrupted` after cleaning up. With
    ``page`` (``--page``), the page ``NAME.html`` is rendered into the staging folder, inside
    the lock, and swapped in with the run (:func:`rankbook.book.rerun_page.write_page`): a page
    that fails or is interrupted leaves the previous run and its page whole
    (:class:`~rankbook.book.rerun_page.PageFailed`, or :class:`Interrupted`), and the error
    carries ``folder`` (the run folder, as it was) for the message.
    """
    root = root or project_root()
    spec = find(name, root)
    params = resolve_parameters(spec, overrides, root)
    name_slug = run_slug(spec, params, root)
    base = runs_dir(root) / spec.name
    folder = base / name_slug
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _os_error(exc, str(base)) from None
    finish = None
    if page:
        def finish(staged: Path) -> None:
            from .rerun_page import PageFailed, write_page

            try:
                write_page(staged, spec.name, root, command=jupyter_book_command,
                           log=base / "_logs" / f"{spec.name}.page.log")
            except PageFailed as exc:  # keep the executed notebook: it ran, only the page failed
                with contextlib.suppress(OSError):
                    (base / FAILED_DIR_NAME).mkdir(parents=True, exist_ok=True)
                    saved = base / FAILED_DIR_NAME / f"{spec.name}.ipynb"
                    shutil.copyfile(staged / f"{spec.name}.ipynb", saved)
                    exc.saved = saved
                raise
    try:
        with folder_lock(base / f".{name_slug}.lock",
                         f"run of {spec.name} with these parameters", wait=wait), interruptible():
            remove_stale(base, (f".stage-{name_slug}-*", f".old-{name_slug}-*"))
            execute(spec, params, notebook_out=folder / f"{spec.name}.ipynb", outputs_out=folder,
                    root=root, failed_dir=base / FAILED_DIR_NAME,
                    kernel_log=base / "_logs" / "kernel.log", timeout=timeout,
                    stage_prefix=name_slug, key=cache_key(spec, params, root), finish=finish)
    except (Interrupted, KeyboardInterrupt, NotebookFailed, OutputError, RuntimeError) as exc:
        exc.folder = folder  # the run folder, as it was before this run: for the message
        exc.page = page
        raise
    return folder


def what_is_there(folder: Path, name: str) -> str:
    """What a run folder holds after a run that did not finish: the previous run (and its
    page), or nothing.

    Examples
    --------
    >>> what_is_there(Path("/nonexistent/runs/nb/defaults"), "nb")
    'there is no earlier run of these parameters'
    """
    if not (folder / f"{name}.ipynb").is_file():
        return "there is no earlier run of these parameters"
    page = (folder / f"{name}.html").is_file()
    return f"{folder} holds the previous run{' and its page' if page else ''}, untouched"


# --------------------------------------------------------------------------------------------
# The book
# --------------------------------------------------------------------------------------------
#: The persistent working build of jupyter-book (incremental, never published as it is).
SITE_WORK = Path("_build") / ".site-work"
#: The published site: replaced whole, in one rename, after a build that succeeded.
SITE_DIR = Path("_build") / "html"
#: Inside the working build: the content hashes of the sources of the last complete build.
SITE_STATE = ".rankbook-site.json"
#: Inside the working build while jupyter-book runs: its presence means the last run stopped
#: half-way, so the next one rebuilds every page.
SITE_DIRTY = ".rankbook-building"

#: Sources whose change alters every page (navigation, configuration, theme, extension,
#: bibliography): a change to any of them rebuilds every page (``--all``).
GLOBAL_SOURCES = ("_toc.yml", "_config.yml", "book/_ext", "book/_static", "book/references.bib")


def jupyter_book_command(root: Path, output: Path | None = None, fresh: bool = False) -> list[str]:
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(exe)] if exe.exists() else ["jupyter-book"]
    cmd += ["build", str(root), "--builder", "html", "-W", "--keep-going"]
    if output is not None:
        cmd += ["--path-output", str(output)]
    if fresh:
        cmd.append("--all")
    return cmd


def _site_sources(root: Path) -> dict[str, str]:
    """Content hash of every file the site is made from: the book's pages and generated outputs,
    the configuration, and the library (autodoc reads its docstrings)."""
    skip = (FAILED_DIR_NAME, "_logs", ".stage-", ".old-", LOCK_NAME, MANIFEST_NAME)
    out = {}
    for base in ("book", "src/rankbook", "_toc.yml", "_config.yml"):
        path = root / base
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for p in files:
            rel = p.relative_to(root).as_posix()
            if "__pycache__" in p.parts or p.suffix == ".pyc" or any(
                    part.startswith(skip) for part in p.relative_to(root).parts):
                continue
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _global_hash(root: Path, sources: dict[str, str]) -> str:
    h = hashlib.sha256(environment_hash(root).encode())
    for rel, digest in sorted(sources.items()):
        if rel.startswith(GLOBAL_SOURCES):
            h.update(f"{rel}\0{digest}\n".encode())
    return h.hexdigest()


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False when the
    system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


def publish_site(built: Path, site: Path, source=None, root: Path | None = None) -> None:
    """Copy the built site beside ``site`` and put it in place of ``site`` in one rename (an
    exchange of the two folders where Linux allows it), so a reader, a web server or an upload
    never sees half of one site and half of another; the old site is removed afterwards. With
    ``source`` (a :class:`~rankbook.book.source_archive.Source`), the copy's pages name it
    (:func:`~rankbook.book.source_archive.fill_site`) before it is put in place; with ``root``
    too, the copy gets its citation, RO-Crate and sources' metadata
    (:func:`rankbook.book.crate.write_site_files`), hashed as they are published."""
    stage = site.with_name(f".{site.name}-stage-{os.getpid()}")
    shutil.rmtree(stage, ignore_errors=True)
    try:
        shutil.copytree(built, stage, symlinks=True)
        if source is not None:
            from .source_archive import fill_site

            fill_site(stage, source)
            downloads = built.parent / "rankbook-downloads.json"
            if root is not None and downloads.is_file():
                from .crate import write_site_files

                write_site_files(root, stage, json.loads(downloads.read_text()), source,
                                 executed_pages(root))
        if site.is_dir() and _exchange(stage, site):
            shutil.rmtree(stage, ignore_errors=True)  # it holds the old site now
        else:
            _replace(stage, site)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def executed_pages(root: Path) -> list[dict]:
    """Every executed page whose outputs are intact (:func:`rankbook.book.pipeline.verify_outputs`):
    its name, title, key record (output hashes), parameters and times."""
    gen = generated_dir(root)
    pages = []
    for spec in discover(root):
        outputs, notebook = gen / spec.name, gen / f"{spec.name}.ipynb"
        key, _ = verify_outputs(outputs, notebook)
        if key is None:
            continue
        record = json.loads((outputs / KEY_FILE).read_text())
        meta = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {})
        papermill = meta.get("papermill", {})
        params = {**spec.defaults(), **(papermill.get("parameters") or {})}
        pages.append({"name": spec.name, "title": spec.title, "description": spec.description,
                      "record": record, "parameters": params, "defaults": spec.defaults(),
                      "start": papermill.get("start_time"), "end": papermill.get("end_time")})
    return pages


def _remove_stale_site_folders(root: Path) -> None:
    for pattern in (f".{SITE_DIR.name}-stage-*", f".old-{SITE_DIR.name}-*"):
        for path in (root / SITE_DIR.parent).glob(pattern):
            shutil.rmtree(path, ignore_errors=True)


class SiteFailed(RuntimeError):
    """jupyter-book failed or was interrupted; the published site was left as it was."""


def refresh_pages(root: Path, log=print) -> list[str]:
    """Re-render the verdict boxes of the executed pages whose ledger words changed since they
    ran (:func:`rankbook.book.present.refresh`): rewording a claim changes its pages without
    executing any notebook. Only pages whose outputs are intact are touched, and the hash their
    key file records for the executed notebook follows the new page."""
    from .present import refresh

    gen = generated_dir(root)
    done = []
    for spec in discover(root):
        outputs, notebook = gen / spec.name, gen / f"{spec.name}.ipynb"
        key, damage = verify_outputs(outputs, notebook)
        if key is None:
            continue
        if refresh(notebook, root):
            write_key_file(outputs, key, notebook)
            done.append(spec.name)
    if done:
        log(f"re-rendered the verdicts of {len(done)} page(s) from the ledger's words: "
            + ", ".join(done))
    return done


def build_site(root: Path | None = None, log=print, wait: bool = False) -> Path:
    """Generate the summary pages, build the site with jupyter-book, and publish it whole
    (step 3). Returns the index path of the published site (``_build/html/index.html``).

    Runs under the same lock as the execution of the notebooks (``book/generated/.lock``), so
    a second build waits or stops. jupyter-book builds into a working folder
    (``_build/.site-work``, kept between builds so that they stay incremental); only a build
    that succeeded is copied and put in place of ``_build/html`` in one rename
    (:func:`publish_site`), so an interruption, a kill or a failure leaves the published site
    exactly as it was. What changed is decided by content hashes, never by file times: a page
    whose bytes changed is rebuilt even when its file carries an old time (or the clock was
    wrong during the last build); a change to the navigation, the configuration, the theme
    files or the environment (:data:`GLOBAL_SOURCES`), or a previous run that stopped half-way,
    rebuilds every page; nothing changed and a published site present: jupyter-book is not run.
    jupyter-book runs as a child in a session of its own (a terminal's Ctrl-C reaches this process
    only, which then terminates jupyter-book), and dies with this process (PR_SET_PDEATHSIG).
    """
    from .site import write_generated_pages

    root = root or project_root()
    gen = generated_dir(root)
    with folder_lock(gen / LOCK_NAME, "build", wait=wait), interruptible():
        _remove_stale_site_folders(root)
        try:
            manifest = load_manifest(gen)
            if remove_orphans(gen, {s.name for s in discover(root)}, manifest):
                save_manifest(gen, manifest)
            refresh_pages(root, log)
            write_generated_pages(root)
        except OSError as exc:
            raise _os_error(exc, str(gen)) from None
        work, site = root / SITE_WORK, root / SITE_DIR
        if (root / "book" / "_static").is_dir():
            # the Sphinx extension writes the explorers' bundle during the build: written
            # first, the sources hashed below are those of the build, and the next build finds
            # nothing changed
            from .bundle import write_bundle

            try:
                write_bundle(root / "book" / "_static")
            except OSError as exc:
                raise _os_error(exc, str(root / "book" / "_static")) from None
        sources = _site_sources(root)
        glob_hash = _global_hash(root, sources)
        try:
            state = json.loads((work / SITE_STATE).read_text())
            assert isinstance(state.get("sources"), dict)
        except (OSError, ValueError, AssertionError, AttributeError):
            state = {}
        now = time.time()
        fresh, why = False, ""
        if not state or not (work / "_build" / "html").is_dir():
            fresh, why = True, "no earlier build"
        elif (work / SITE_DIRTY).exists():
            fresh, why = True, "the last build stopped half-way"
        elif state.get("global") != glob_hash:
            fresh, why = True, "the navigation, configuration, theme or environment changed"
        elif now < state.get("built_at", 0):
            fresh, why = True, "the clock is behind the last build's"
        changed = sorted(rel for rel, d in sources.items() if state.get("sources", {}).get(rel) != d)
        removed = sorted(set(state.get("sources", {})) - set(sources))
        if removed and not fresh:
            # Sphinx never deletes the page of a removed source: start from an empty working
            # build, so an orphan page (a notebook deleted by a branch switch) leaves the site
            fresh, why = True, f"{len(removed)} source file(s) removed, e.g. {removed[0]}"
        if fresh and removed:
            shutil.rmtree(work / "_build", ignore_errors=True)
        if not fresh and not changed and not removed and (site / "index.html").is_file():
            log("site: nothing changed since the published build")
            return site / "index.html"
        if not fresh:
            # content decides, never file times: a changed file is made newer than the last
            # build, even when it was written with an old time
            for rel in changed:
                with contextlib.suppress(OSError):
                    os.utime(root / rel, (now, now))
        try:
            work.mkdir(parents=True, exist_ok=True)
            (work / SITE_DIRTY).write_text(f"{os.getpid()}\n")
        except OSError as exc:
            raise _os_error(exc, str(work)) from None
        cmd = jupyter_book_command(root, work, fresh)
        log(("site: rebuilding every page (" + why + ")") if fresh else
            f"site: {len(changed) + len(removed)} source file(s) changed")
        log("$ " + " ".join(cmd))
        env = {**os.environ, "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
        # its own session: a terminal's Ctrl-C reaches this process only, which stops
        # jupyter-book itself (no second traceback from it); it dies with this process anyway
        proc = subprocess.Popen(cmd, cwd=root, env=env, preexec_fn=_die_with_parent,
                                start_new_session=True)
        try:
            returncode = proc.wait()
        except BaseException:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            raise
        built = work / "_build" / "html"
        if returncode != 0:
            raise SiteFailed(f"jupyter-book failed with exit status {returncode}; the published "
                             f"site ({site.relative_to(root)}) is unchanged")
        if not (built / "index.html").exists():
            raise SiteFailed(f"jupyter-book finished but {built / 'index.html'} is missing; the "
                             f"published site ({site.relative_to(root)}) is unchanged")
        try:
            _refresh_static(root, built)
            from .source_archive import describe, read_description

            # the commit every page names is the one of the archive this build wrote
            publish_site(built, site, read_description(gen) or describe(root), root)
            state = {"sources": sources, "global": glob_hash, "built_at": max(now, time.time())}
            (work / SITE_STATE).write_text(json.dumps(state, indent=0, sort_keys=True) + "\n")
            (work / SITE_DIRTY).unlink()
        except OSError as exc:
            raise _os_error(exc, str(site)) from None
    return site / "index.html"


def _refresh_static(root: Path, built: Path | None = None) -> None:
    """Copy the book's own static files (stylesheet, logo) into the built site when they differ.

    An incremental jupyter-book build with no page out of date skips Sphinx's copy of static
    files, so an edited stylesheet kept its old copy in ``_build/html/_static``.
    """
    built = built or root / "_build" / "html"
    static, built = root / "book" / "_static", built / "_static"
    if not (static.is_dir() and built.is_dir()):
        return
    for source in static.iterdir():
        target = built / source.name
        if source.is_file() and (not target.is_file() or target.read_bytes() != source.read_bytes()):
            shutil.copyfile(source, target)
