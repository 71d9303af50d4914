"""Other authors' data files that rankbook may use but not commit, found by SHA-256.

A source whose data carries no licence to redistribute (so the files cannot live in ``data/``)
is described by a registry, ``data/fetch/<key>.toml``::

    key = "somesource"
    base_url = "https://raw.githubusercontent.com/owner/repo/<commit>/path/"
    mirror = "../shared/sources/somesource/files"     # optional, relative to the project root

    [files]
    "sub/a.csv" = "<sha-256 of a.csv>"

:func:`files` returns a folder holding every listed file, each checked against its SHA-256:

1. a mirror folder, the first of these that holds every file with the right hash:
   ``$RANKBOOK_MIRROR_<KEY>`` (the key in capitals, other characters as ``_``),
   ``$RANKBOOK_MIRROR/<key>``, then the registry's ``mirror``;
2. else the cache, ``$RANKBOOK_DATA_CACHE/<key>`` (default ``pooch.os_cache("rankbook")/<key>``),
   where missing or damaged files are downloaded from ``base_url`` with pooch, which checks each
   hash before it moves a download into place (a failed download leaves the cache as it was).

When neither works it raises :class:`DataUnavailable`, whose message names the source, what was
tried and the command that fixes it (``rankbook fetch <key>``). Nothing here names a source:
everything comes from the registry files.
"""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["DataUnavailable", "Registry", "REGISTRY_DIR", "MIRROR_ENV", "CACHE_ENV",
           "FIX_COMMAND", "registries", "registry", "sha256", "verify", "mirror_env",
           "candidate_mirrors", "cache_dir", "files", "available", "fetch"]

#: Where the registries live, relative to the project root.
REGISTRY_DIR = ("data", "fetch")
#: A folder holding one sub-folder per source key (each a mirror of that source's files).
MIRROR_ENV = "RANKBOOK_MIRROR"
#: The folder of the download cache (one sub-folder per source key).
CACHE_ENV = "RANKBOOK_DATA_CACHE"
#: The command that puts a source's files into the cache.
FIX_COMMAND = "rankbook fetch {key}"

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class DataUnavailable(ValueError):
    """A source's data files are neither in a mirror nor in the cache, and could not be
    downloaded. ``key`` is the source, ``command`` the command that fixes it, ``problems`` what
    was tried and why it failed."""

    def __init__(self, message: str, *, key: str = "", command: str = "",
                 problems: tuple = ()):
        super().__init__(message)
        self.key, self.command, self.problems = key, command, tuple(problems)


@dataclass(frozen=True)
class Registry:
    """One ``data/fetch/<key>.toml``: where a source's files come from and their SHA-256."""

    key: str
    base_url: str
    files: dict = field(hash=False)
    mirror: str = ""
    path: Path | None = None


def _registry_dir(root) -> Path:
    return Path(root).joinpath(*REGISTRY_DIR)


def registries(root) -> list[str]:
    """The source keys that have a registry under ``root/data/fetch``.

    Examples
    --------
    >>> registries("/nonexistent")
    []
    """
    folder = _registry_dir(root)
    return sorted(p.stem for p in folder.glob("*.toml")) if folder.is_dir() else []


def registry(key: str, root) -> Registry:
    """Read and validate ``root/data/fetch/<key>.toml``.

    Parameters
    ----------
    key : str
        The source key (the registry's file name without ``.toml``).
    root : path-like
        The project root.

    Returns
    -------
    Registry

    Raises
    ------
    ValueError
        An unknown key (naming the known ones) or a malformed registry (naming the field).
    """
    if not isinstance(key, str) or not _KEY.match(key):
        raise ValueError(f"source key must be a name like 'breuer2020', got {key!r}")
    path = _registry_dir(root) / f"{key}.toml"
    if not path.is_file():
        raise ValueError(f"no fetch registry for source {key!r} ({path}); known sources: "
                         f"{registries(root) or 'none'}")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML: {exc}") from None
    where = f"{path}"
    if raw.get("key") != key:
        raise ValueError(f"{where}: key = {raw.get('key')!r} must equal the file name {key!r}")
    base = raw.get("base_url")
    if not isinstance(base, str) or not base.startswith(("https://", "http://")) \
            or not base.endswith("/"):
        raise ValueError(f"{where}: base_url must be an http(s) URL ending in '/', got {base!r}")
    mirror = raw.get("mirror", "")
    if not isinstance(mirror, str):
        raise ValueError(f"{where}: mirror must be a path string, got {mirror!r}")
    table = raw.get("files")
    if not isinstance(table, dict) or not table:
        raise ValueError(f"{where}: a [files] table mapping relative paths to SHA-256 is needed")
    for name, digest in table.items():
        parts = Path(name).parts
        if Path(name).is_absolute() or ".." in parts or not parts:
            raise ValueError(f"{where}: file {name!r} must be a relative path inside the source")
        if not isinstance(digest, str) or not _HEX64.match(digest):
            raise ValueError(f"{where}: file {name!r} needs a SHA-256 of 64 lowercase hex "
                             f"digits, got {digest!r}")
    extra = set(raw) - {"key", "base_url", "mirror", "files"}
    if extra:
        raise ValueError(f"{where}: unknown fields {sorted(extra)}; valid: key, base_url, "
                         "mirror, files")
    return Registry(key=key, base_url=base, files=dict(table), mirror=mirror, path=path)


def sha256(path) -> str:
    """The SHA-256 of a file, as 64 lowercase hex digits.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x"
    >>> _ = p.write_bytes(b"abc")
    >>> sha256(p)[:16]
    'ba7816bf8f01cfea'
    """
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


#: (folder, file, size, mtime) -> digest: a file is hashed once per process while unchanged.
_DIGESTS: dict = {}


def _digest(path: Path) -> str:
    st = path.stat()
    memo = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if memo not in _DIGESTS:
        _DIGESTS[memo] = sha256(path)
    return _DIGESTS[memo]


def verify(folder, reg: Registry) -> list[str]:
    """What is wrong with ``folder`` as a copy of the registry's files: one line per missing
    file or file whose SHA-256 differs; empty when every file is there and intact."""
    folder = Path(folder)
    problems = []
    for name, digest in reg.files.items():
        p = folder / name
        if not p.is_file():
            problems.append(f"{name} missing")
        elif _digest(p) != digest:
            problems.append(f"{name} has SHA-256 {_digest(p)[:12]}…, expected {digest[:12]}…")
    return problems


def mirror_env(key: str) -> str:
    """The environment variable naming a mirror of one source.

    Examples
    --------
    >>> mirror_env("breuer2020")
    'RANKBOOK_MIRROR_BREUER2020'
    """
    return f"{MIRROR_ENV}_{re.sub(r'[^A-Za-z0-9]', '_', key).upper()}"


def candidate_mirrors(reg: Registry, root) -> list[tuple[str, Path]]:
    """The mirror folders to try, in order, each with where it came from."""
    out = []
    own = os.environ.get(mirror_env(reg.key))
    if own:
        out.append((f"${mirror_env(reg.key)}", Path(own)))
    general = os.environ.get(MIRROR_ENV)
    if general:
        out.append((f"${MIRROR_ENV}/{reg.key}", Path(general) / reg.key))
    if reg.mirror:
        m = Path(reg.mirror)
        out.append((f"the registry's mirror {reg.mirror}", m if m.is_absolute()
                    else Path(root) / m))
    return out


def cache_dir(reg: Registry) -> Path:
    """``$RANKBOOK_DATA_CACHE/<key>``, default ``pooch.os_cache("rankbook")/<key>``."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env) / reg.key
    try:
        import pooch
    except ImportError:  # no pooch: the platform's cache folder by hand
        return Path.home() / ".cache" / "rankbook" / reg.key
    return Path(pooch.os_cache("rankbook")) / reg.key


def _unavailable(reg: Registry, root, problems: list[str]) -> DataUnavailable:
    command = FIX_COMMAND.format(key=reg.key)
    host = re.sub(r"^https?://([^/]+)/.*$", r"\1", reg.base_url)
    rel = reg.path
    try:
        rel = reg.path.relative_to(Path(root).resolve()) if reg.path else rel
    except ValueError:
        pass
    msg = (f"data of source {reg.key!r} unavailable ({len(reg.files)} files of {rel}): "
           + "; ".join(problems)
           + f". Fix: run `{command}` with access to {host}, or set {mirror_env(reg.key)} "
             "to a folder holding the files")
    return DataUnavailable(msg, key=reg.key, command=command, problems=problems)


def _summary(problems: list[str], limit: int = 3) -> str:
    head = ", ".join(problems[:limit])
    return head + (f" and {len(problems) - limit} more" if len(problems) > limit else "")


def _download(reg: Registry, cache: Path, downloader=None) -> None:
    """Download every missing or damaged file of ``reg`` into ``cache`` (pooch checks each
    SHA-256 before moving a download into place)."""
    import logging

    import pooch

    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        store = pooch.create(path=cache, base_url=reg.base_url, retry_if_failed=0,
                             registry={n: f"sha256:{h}" for n, h in reg.files.items()})
        for name in reg.files:
            store.fetch(name, downloader=downloader)
    finally:
        logger.setLevel(level)


def _root(root) -> Path:
    if root is None:  # the ledger's own path helper (rankbook.ledger.paths)
        from .paths import project_root

        return project_root()
    return Path(root)


def files(key: str, root=None, *, downloader=None, download: bool = True) -> Path:
    """A folder holding every file of source ``key``, each with its registered SHA-256.

    Parameters
    ----------
    key : str
        The source key: ``root/data/fetch/<key>.toml`` lists its files.
    root : path-like, optional
        The project root (a registry's relative ``mirror`` is relative to it); by default
        :func:`rankbook.ledger.paths.project_root`.
    downloader : callable, optional
        pooch's downloader (``downloader(url, output_file, pooch)``); pooch's HTTP downloader
        by default.
    download : bool
        ``False`` only looks in the mirrors and the cache.

    Returns
    -------
    pathlib.Path
        The mirror folder (the first whose files all match) or the cache folder.

    Raises
    ------
    DataUnavailable
        No mirror matches and the cache cannot be completed; the message names the source, why
        each place failed and the command that fixes it.
    ValueError
        No or a malformed registry for ``key``.
    """
    root = _root(root)
    reg = registry(key, root)
    problems = []
    for origin, folder in candidate_mirrors(reg, root):
        if not folder.is_dir():
            if not origin.startswith("the registry"):
                problems.append(f"{origin} = {folder} is not a folder")
            continue
        bad = verify(folder, reg)
        if not bad:
            return folder
        problems.append(f"mirror {folder} refused: {_summary(bad)}")
    cache = cache_dir(reg)
    bad = verify(cache, reg) if cache.is_dir() else ["no cache yet"]
    if not bad:
        return cache
    if not download:
        problems.append(f"cache {cache}: {_summary(bad)}")
        raise _unavailable(reg, root, problems)
    try:
        _download(reg, cache, downloader)
    except ImportError:
        problems.append("pooch is not installed (pip install 'rankbook[book]')")
        raise _unavailable(reg, root, problems) from None
    except Exception as exc:  # noqa: BLE001 - any network or hash failure: data unavailable
        problems.append(f"download into {cache} failed: {type(exc).__name__}: "
                        f"{str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": "))
        raise _unavailable(reg, root, problems) from exc
    bad = verify(cache, reg)
    if bad:
        problems.append(f"cache {cache} after download: {_summary(bad)}")
        raise _unavailable(reg, root, problems)
    return cache


def available(key: str, root=None) -> bool:
    """Whether every file of source ``key`` is on this machine (a matching mirror or a complete
    cache), without downloading anything: what a page's cache key records, so that the pages
    that read the files execute again once they arrive."""
    try:
        files(key, root, download=False)
    except DataUnavailable:
        return False
    return True


def fetch(key: str, root=None, *, downloader=None) -> Path:
    """Put every file of source ``key`` into the cache (downloading what is missing or damaged)
    and return the cache folder: what ``rankbook fetch KEY`` runs. Mirrors are not consulted.

    Raises
    ------
    DataUnavailable
        The download failed (the message says why).
    """
    root = _root(root)
    reg = registry(key, root)
    cache = cache_dir(reg)
    if cache.is_dir() and not verify(cache, reg):
        return cache
    try:
        _download(reg, cache, downloader)
    except ImportError:
        raise _unavailable(reg, root, ["pooch is not installed (pip install 'rankbook[book]')"]
                           ) from None
    except Exception as exc:  # noqa: BLE001
        raise _unavailable(reg, root, [f"download into {cache} failed: "
                                       f"{type(exc).__name__}: {exc}"]) from exc
    bad = verify(cache, reg)
    if bad:
        raise _unavailable(reg, root, [f"cache {cache} after download: {_summary(bad)}"])
    return cache
