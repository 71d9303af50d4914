"""The source travels with the site: an archive of the tracked files among the downloads.

:func:`write_source_archive` writes ``book/generated/rankbook-source.tar.gz``: ``git archive``
of the commit the site is built from, or, where there is no git, the same kind of files (the
project's files without the virtual environment, the builds, the runs and the generated
pages) in a deterministic tar. Pages link it with ``{download}``, so jupyter-book copies it
into the site. Unpacked, it is a working copy of the project: ``make book`` and ``make test``
run in it.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import subprocess
import tarfile
from pathlib import Path

ARCHIVE_NAME = "rankbook-source.tar.gz"

#: Folders that are never part of the source (environment, builds, outputs, caches).
_SKIP_DIRS = {".git", ".venv", "_build", "runs", "generated", "__pycache__", ".pytest_cache",
              ".hypothesis", ".benchmarks", ".ipynb_checkpoints", "node_modules", "dist",
              "build", ".lockenv", "test-artifacts", "rankbook-outputs"}


def commit_of(root: Path) -> str:
    """The full commit id the tree at ``root`` is checked out at, or "" without git."""
    try:
        return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _git_archive(root: Path, commit: str) -> bytes:
    prefix = f"rankbook-{commit[:12]}/"
    return subprocess.run(["git", "-C", str(root), "archive", "--format=tar.gz",
                           f"--prefix={prefix}", commit], capture_output=True, check=True,
                          timeout=300).stdout


def _plain_archive(root: Path) -> bytes:
    """A deterministic tar.gz of the project's files (sorted, zero times and owners)."""
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS
                                     and not d.endswith(".egg-info"))
                for name in sorted(filenames):
                    path = Path(dirpath) / name
                    if path.is_symlink() or not path.is_file():
                        continue
                    info = tarfile.TarInfo("rankbook/" + path.relative_to(root).as_posix())
                    data = path.read_bytes()
                    info.size, info.mtime, info.mode = len(data), 0, 0o644
                    tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def write_source_archive(root: Path, dest: Path) -> tuple[Path, str]:
    """Write ``dest/rankbook-source.tar.gz`` (only when its bytes change, so an unchanged
    build stays incremental). Returns the path and the commit it holds ("" without git)."""
    commit = commit_of(root)
    try:
        data = _git_archive(root, commit) if commit else _plain_archive(root)
    except (OSError, subprocess.SubprocessError):
        commit, data = "", _plain_archive(root)
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / ARCHIVE_NAME
    if path.is_file() and hashlib.sha256(path.read_bytes()).digest() == hashlib.sha256(data).digest():
        return path, commit
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return path, commit


def source_markdown(commit: str, notebook: str | None = None, prefix: str = "") -> str:
    """The lines a rerun box, a provenance box or the landing page give about the source: the
    archive (and the page's executed notebook), the commit, and the two commands."""
    what = f"{{download}}`the source <{prefix}{ARCHIVE_NAME}>`"
    if notebook:
        what += f" and {{download}}`this page's executed notebook <{prefix}{notebook}.ipynb>`"
    at = f" at commit `{commit[:12]}`" if commit else ""
    return (f"Download {what}{at}. Unpack it and run `make book` to rebuild every page and "
            "`make test` to run the tests (Python 3.11; both install what they need into "
            "`.venv`).")
