"""The source travels with the site: an archive of exactly the files the source is made of.

:func:`write_source_archive` writes ``book/generated/rankbook-source.tar.gz``, a deterministic
tar of the project's source and nothing else (:func:`describe` decides which):

* in a git checkout whose top level is the project's root, the tracked files of the commit,
  or, with uncommitted changes, of the working tree, under a folder named
  ``rankbook-<commit>-with-changes``: the archive holds what the pages were built from;
* a commit of another repository (the project unpacked inside a user's own repository) does
  not count: the project is then treated as a copy without git;
* without git, the files that ``SOURCE-FILES.txt`` lists: the manifest every archive carries
  (written here, at build time, with each file's SHA-256 and the commit), so an unpacked copy
  archives the same files again. Nothing else is taken: no dotfile, no output folder
  (:data:`_OUTPUT_DIRS`), no file the manifest does not name; a file whose bytes differ from the
  manifest's makes it "commit + changes". Without git and without a manifest the archive holds
  the manifest alone, and the pages say there is no source to download.

The pages name the source when the site is built, never when a notebook ran: a page carries
:data:`TOKENS` (the commit of its provenance box, the source sentence of its rerun box and of
the landing page), which :func:`fill` replaces in the built site with what the archive holds,
so a page reused from an earlier build never names a commit the archive lacks. A run outside
the site (``rankbook run``) is filled when it is written.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import io
import json
import os
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

ARCHIVE_NAME = "rankbook-source.tar.gz"
#: The manifest every archive carries at its top: the files of the source, with their hashes.
MANIFEST_NAME = "SOURCE-FILES.txt"
#: Beside the archive: what it holds (:class:`Source`), for :func:`fill` at the end of a build.
DESCRIPTION_NAME = "rankbook-source.json"

#: Stand-ins written into pages while notebooks execute, replaced when the site is built:
#: the source sentence's end, the provenance box's commit, and its ``git checkout`` step.
SOURCE_TOKEN = "RBSOURCEAT7Q2Z"
COMMIT_TOKEN = "RBCOMMIT7Q2Z"
CHECKOUT_TOKEN = "RBCHECKOUT7Q2Z"
TOKENS = (SOURCE_TOKEN, COMMIT_TOKEN, CHECKOUT_TOKEN)


def _git(root: Path, *args: str, text: bool = True):
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=text,
                          check=True, timeout=300).stdout


def commit_of(root: Path) -> str:
    """The full commit id the project at ``root`` is checked out at, or "" without git, and
    "" when the repository's top level is not ``root`` (the project copied into another
    repository: that repository's commit says nothing of this source)."""
    try:
        top = _git(root, "rev-parse", "--show-toplevel").strip()
        if not top or Path(top).resolve() != Path(root).resolve():
            return ""
        return _git(root, "rev-parse", "HEAD").strip()
    except (OSError, subprocess.SubprocessError):
        return ""


@dataclass
class Source:
    """What the source archive holds: ``kind`` is ``"commit"`` (a clean checkout),
    ``"changes"`` (a checkout with uncommitted changes: the working tree), ``"manifest"`` (no
    git: the files of ``SOURCE-FILES.txt``, unchanged), ``"manifest-changes"`` (the same,
    some edited since) or ``"none"`` (no git, no manifest: no file)."""

    kind: str
    commit: str = ""
    files: dict[str, str] = field(default_factory=dict)  # path -> sha256, the manifest
    note: str = ""

    @property
    def short(self) -> str:
        return self.commit[:12]

    @property
    def folder(self) -> str:
        """The archive's top folder: it says what it holds."""
        base = f"rankbook-{self.short}" if self.commit else "rankbook"
        return base + ("-with-changes" if self.kind in ("changes", "manifest-changes") else "")

    def commit_text(self) -> str:
        """The provenance box's commit."""
        if self.kind == "commit":
            return self.short
        if self.kind == "changes":
            return f"{self.short} with uncommitted changes"
        if self.kind == "manifest":
            return f"{self.short or 'unknown'} (a copy without git, as {MANIFEST_NAME} lists it)"
        if self.kind == "manifest-changes":
            return (f"{self.short or 'unknown'} with changes ({self.note}; a copy without git)")
        return f"unknown (no git, no {MANIFEST_NAME})"

    def sentence(self) -> str:
        """The end of the source sentence (after "Download the source"), as Markdown."""
        c = f"`{self.short}`" if self.commit else "of an unknown commit"
        if self.kind == "commit":
            return f"at commit {c}"
        if self.kind == "changes":
            return (f"at commit {c} with uncommitted changes: the archive holds the working "
                    f"tree (its folder is `{self.folder}`), not the commit alone")
        if self.kind == "manifest":
            return f"at commit {c} (the files {MANIFEST_NAME} lists)"
        if self.kind == "manifest-changes":
            return (f"at commit {c} with changes ({self.note}): the archive holds the files as "
                    f"they are (its folder is `{self.folder}`)")
        return (f"(it holds no source file: this copy has neither git nor {MANIFEST_NAME}, the "
                "list of a release's files; take the source from its repository)")

    def checkout(self) -> str:
        """The ``git checkout`` step of a rebuild command: only for a clean commit."""
        return f"git checkout {self.short} && " if self.kind == "commit" else ""

    def to_json(self) -> str:
        return json.dumps({"kind": self.kind, "commit": self.commit, "note": self.note},
                          sort_keys=True) + "\n"


#: Top-level folders of outputs and environments: never source, whatever a manifest says.
_OUTPUT_DIRS = ("_build/", "runs/", "book/generated/", "rankbook-outputs/", "test-artifacts/")


def _skipped(rel: str) -> bool:
    """A manifest's path that is never archived: a dotfile or anything in a dot-folder (``.env``,
    ``.git``, ``.venv``), a path out of the project, or the project's outputs. The manifest
    decides the rest: a folder named ``build`` or ``runs`` deep in the source is source."""
    parts = rel.split("/")
    return (any(p.startswith(".") for p in parts) or rel.startswith(("/", *_OUTPUT_DIRS))
            or any(p.endswith(".egg-info") for p in parts))


def read_manifest(root: Path) -> tuple[str, dict[str, str]] | None:
    """``(commit, {path: sha256})`` of ``root/SOURCE-FILES.txt``, or None when it is missing
    or unreadable. Lines: ``# commit <id>``, then ``<sha256>  <path>``."""
    try:
        lines = (Path(root) / MANIFEST_NAME).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    commit, files = "", {}
    for line in lines:
        if line.startswith("# commit "):
            commit = line.split()[2] if len(line.split()) > 2 else ""
        elif line and not line.startswith("#"):
            digest, _, rel = line.partition("  ")
            if len(digest) == 64 and rel:
                files[rel] = digest
    return commit, files


def _manifest_text(source: Source) -> bytes:
    head = [f"# The files of the rankbook source in this archive ({source.folder}), with their "
            "SHA-256: a copy without git archives exactly these.",
            f"# commit {source.commit or 'unknown'}"]
    if source.kind in ("changes", "manifest-changes"):
        head.append("# with changes: the files as they were, not as the commit holds them")
    body = [f"{digest}  {rel}" for rel, digest in sorted(source.files.items())]
    return ("\n".join(head + body) + "\n").encode("utf-8")


def _contents(root: Path, read: bool = True) -> tuple[Source, dict[str, tuple[bytes, int]]]:
    """What the archive holds: its :class:`Source` and ``{path: (bytes, mode)}`` (in a git
    checkout, without ``read``, the kind and commit only)."""
    root = Path(root)
    commit = commit_of(root)
    out: dict[str, tuple[bytes, int]] = {}
    if commit:
        try:
            dirty = _git(root, "status", "--porcelain", "--untracked-files=no").strip()
        except (OSError, subprocess.SubprocessError):
            dirty = "unknown"
        if not read:
            return Source("changes" if dirty else "commit", commit), out
        if not dirty:
            tar_bytes = _git(root, "archive", "--format=tar", commit, text=False)
            with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
                for m in tar.getmembers():
                    if m.isfile():
                        out[m.name] = (tar.extractfile(m).read(), 0o755 if m.mode & 0o111 else 0o644)
            kind = "commit"
        else:
            for rel in _git(root, "ls-files", "-z").split("\0"):
                path = root / rel
                if rel and path.is_file() and not path.is_symlink():
                    out[rel] = (path.read_bytes(), 0o755 if os.access(path, os.X_OK) else 0o644)
            kind = "changes"
        out.pop(MANIFEST_NAME, None)
        files = {rel: hashlib.sha256(data).hexdigest() for rel, (data, _) in out.items()}
        return Source(kind, commit, files), out
    manifest = read_manifest(root)
    if manifest is None:
        return Source("none", note=f"no git, no {MANIFEST_NAME}"), out
    commit, listed = manifest
    changed, missing = [], []
    for rel, digest in sorted(listed.items()):
        path = root / rel
        if _skipped(rel) or rel == MANIFEST_NAME:
            continue  # never a dotfile, an ignored folder or the manifest itself
        if not path.is_file() or path.is_symlink():
            missing.append(rel)
            continue
        data = path.read_bytes()
        out[rel] = (data, 0o755 if os.access(path, os.X_OK) else 0o644)
        if hashlib.sha256(data).hexdigest() != digest:
            changed.append(rel)
    files = {rel: hashlib.sha256(data).hexdigest() for rel, (data, _) in out.items()}
    if changed or missing:
        bits = [f"{len(changed)} file(s) edited, e.g. {changed[0]}" if changed else "",
                f"{len(missing)} missing, e.g. {missing[0]}" if missing else ""]
        note = " and ".join(b for b in bits if b) + f" since {MANIFEST_NAME}"
        return Source("manifest-changes", commit, files, note), out
    return Source("manifest", commit, files), out


def describe(root: Path) -> Source:
    """What an archive of ``root`` would hold now (see the module's doc); in a git checkout,
    its kind and commit without reading the files."""
    return _contents(root, read=False)[0]


def _archive(source: Source, files: dict[str, tuple[bytes, int]]) -> bytes:
    """A deterministic tar.gz (sorted, zero times and owners) of ``files`` and the manifest,
    under ``source.folder``."""
    items = dict(files)
    items[MANIFEST_NAME] = (_manifest_text(source), 0o644)
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for rel in sorted(items):
                data, mode = items[rel]
                info = tarfile.TarInfo(f"{source.folder}/{rel}")
                info.size, info.mtime, info.mode = len(data), 0, mode
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def write_source_archive(root: Path, dest: Path) -> tuple[Path, str]:
    """Write ``dest/rankbook-source.tar.gz`` and, beside it, what it holds
    (:data:`DESCRIPTION_NAME`, read by :func:`fill`), each only when its bytes change, so an
    unchanged build stays incremental. Returns the path and the commit it holds when it is a
    clean commit ("" otherwise: a citation names no commit the archive does not hold)."""
    source, files = _contents(root)
    data = _archive(source, files)
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / ARCHIVE_NAME
    for target, content in ((path, data), (dest / DESCRIPTION_NAME, source.to_json().encode())):
        if target.is_file() and target.read_bytes() == content:
            continue
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_bytes(content)
        os.replace(tmp, target)
    return path, source.commit if source.kind == "commit" else ""


def read_description(folder: Path) -> Source | None:
    """The :class:`Source` :func:`write_source_archive` recorded in ``folder``, or None."""
    try:
        doc = json.loads((Path(folder) / DESCRIPTION_NAME).read_text())
        return Source(doc["kind"], doc.get("commit", ""), note=doc.get("note", ""))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def fill(text: str, source: Source, markup: str = "markdown") -> str:
    """``text`` with :data:`TOKENS` replaced by what ``source`` holds: Markdown for a notebook
    or a page source, HTML (``markup="html"``, escaped as HTML text) for a built page.

    Examples
    --------
    >>> s = Source("changes", "0123456789abcdef")
    >>> fill(f"the source {SOURCE_TOKEN}.", s)
    'the source at commit `0123456789ab` with uncommitted changes: the archive holds the working tree (its folder is `rankbook-0123456789ab-with-changes`), not the commit alone.'
    >>> fill(f"<code>{CHECKOUT_TOKEN}make venv &amp;&amp; run</code>", Source("commit", "ab" * 20), "html")
    '<code>git checkout abababababab &amp;&amp; make venv &amp;&amp; run</code>'
    """
    if not any(t in text for t in TOKENS):
        return text
    sentence, commit, checkout = source.sentence(), source.commit_text(), source.checkout()
    if markup == "html":
        parts = sentence.split("`")  # inline code of the Markdown sentence, as HTML
        sentence = "".join(html.escape(p) if i % 2 == 0 else
                           f'<code class="docutils literal notranslate"><span class="pre">'
                           f"{html.escape(p)}</span></code>" for i, p in enumerate(parts))
        commit, checkout = html.escape(commit), html.escape(checkout)
    return (text.replace(SOURCE_TOKEN, sentence).replace(COMMIT_TOKEN, commit)
            .replace(CHECKOUT_TOKEN, checkout))


#: Files of a built site that can carry a token: pages, their sources, downloads, the index.
_FILLED_SUFFIXES = {".html": "html", ".txt": "markdown", ".md": "markdown", ".ipynb": "json",
                    ".js": "search"}


def fill_site(folder: Path, source: Source) -> int:
    """Replace :data:`TOKENS` in every file of a built site (``folder``) with what ``source``
    holds: HTML pages, their sources, the notebooks offered for download (JSON strings) and the
    search index. Returns the number of files changed."""
    changed = 0
    for path in sorted(Path(folder).rglob("*")):
        how = _FILLED_SUFFIXES.get(path.suffix)
        if how is None or not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        if not any(t.encode() in data or t.lower().encode() in data for t in TOKENS):
            continue
        text = data.decode("utf-8", errors="surrogateescape")
        if how == "json":  # replacements go inside JSON strings
            for t in TOKENS:
                text = text.replace(t, json.dumps(fill(t, source))[1:-1])
        elif how == "search":  # the index holds words, lower-cased
            text = fill(text, source)
            for t in TOKENS:
                text = text.replace(t.lower(), source.short or "unknown")
        else:
            text = fill(text, source, how)
        tmp = path.with_name(path.name + ".fill-tmp")
        tmp.write_bytes(text.encode("utf-8", errors="surrogateescape"))
        os.replace(tmp, path)
        changed += 1
    return changed


def source_markdown(commit: str = "", notebook: str | None = None, prefix: str = "") -> str:
    """The lines a rerun box or the landing page give about the source: the archive (and the
    page's executed notebook), what it holds, and the two commands. What the archive holds is
    :data:`SOURCE_TOKEN`, filled when the site is built (:func:`fill`), never the commit a
    notebook ran at (``commit`` is kept for callers and not used)."""
    what = f"{{download}}`the source <{prefix}{ARCHIVE_NAME}>`"
    if notebook:
        what += f" and {{download}}`this page's executed notebook <{prefix}{notebook}.ipynb>`"
    return (f"Download {what} {SOURCE_TOKEN}. Unpack it and run `make book` to rebuild every "
            "page and `make test` to run the tests (Python 3.11; both install what they need "
            "into `.venv`).")
