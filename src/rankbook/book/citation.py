"""How the book is cited: the repository's address, CITATION.cff and its BibTeX twin.

The address is never invented. It comes from where the build runs, in this order
(:func:`repository`): ``repository.url`` in ``_config.yml`` (the one setting of the
repository buttons too), ``RANKBOOK_REPOSITORY_URL``, GitHub Actions' ``GITHUB_SERVER_URL`` and
``GITHUB_REPOSITORY`` (set in every workflow run), then the ``origin`` remote of the git
checkout. The site's own address comes from ``RANKBOOK_SITE_URL`` (set by the workflow that
publishes it) or ``html.baseurl`` in ``_config.yml``. Where none is known, the citation says so
and names the commit and its Software Heritage identifiers instead
(:func:`rankbook.book.source_archive.swhids`).

The site carries the citation of the build itself: ``CITATION.cff`` (with ``repository-code``,
``url``, the commit and the SWHIDs as ``identifiers``) and ``citation.bib`` at its root
(:func:`write_site_citation`), generated from the project's ``CITATION.cff``.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from .source_archive import source_markdown

#: The placeholder repository that ``_config.yml`` once named; it does not exist.
PLACEHOLDER_URLS = {"https://github.com/rankbook/rankbook",
                    "https://github.com/executablebooks/jupyter-book"}


def _config(root: Path | None) -> dict:
    import yaml

    from ..ledger.paths import project_root

    try:
        return yaml.safe_load(((root or project_root()) / "_config.yml").read_text()) or {}
    except (OSError, yaml.YAMLError):
        return {}


def web_address(remote: str) -> str:
    """A git remote as the web address of its repository (``git@github.com:o/r.git`` and
    ``https://github.com/o/r.git`` read ``https://github.com/o/r``); "" for a local path or
    anything that is not a web host.

    Examples
    --------
    >>> web_address("git@github.com:owner/rankbook.git"), web_address("/work/main")
    ('https://github.com/owner/rankbook', '')
    >>> web_address("https://user:token@gitlab.com/g/rankbook.git")
    'https://gitlab.com/g/rankbook'
    """
    remote = remote.strip()
    m = re.match(r"^(?:ssh://)?git@([\w.-]+)[:/](.+?)(?:\.git)?/?$", remote)
    if m:
        return f"https://{m.group(1)}/{m.group(2)}"
    m = re.match(r"^https?://(?:[^@/]+@)?([\w.-]+(?::\d+)?)/(.+?)(?:\.git)?/?$", remote)
    if m:
        return f"https://{m.group(1)}/{m.group(2)}"
    return ""


def repository(root: Path | None = None) -> tuple[str, str]:
    """``(address, where it comes from)`` of the repository, or ``("", "")`` when no setting,
    no environment and no remote names one (see the module doc for the order)."""
    url = str(((_config(root).get("repository") or {}).get("url")) or "").strip()
    if url and url not in PLACEHOLDER_URLS:
        return url, "repository.url in _config.yml"
    env = os.environ.get("RANKBOOK_REPOSITORY_URL", "").strip()
    if env:
        return env, "RANKBOOK_REPOSITORY_URL"
    server, repo = os.environ.get("GITHUB_SERVER_URL", ""), os.environ.get("GITHUB_REPOSITORY", "")
    if server and repo:
        return f"{server.rstrip('/')}/{repo}", "GITHUB_REPOSITORY of the workflow run"
    from ..ledger.paths import project_root

    base = Path(root or project_root())
    try:
        top = subprocess.run(["git", "-C", str(base), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
        if top and Path(top).resolve() == base.resolve():
            remote = subprocess.run(["git", "-C", str(base), "remote", "get-url", "origin"],
                                    capture_output=True, text=True, timeout=30).stdout
            if web_address(remote):
                return web_address(remote), "the origin remote of the checkout"
    except (OSError, subprocess.SubprocessError):
        pass
    return "", ""


def repository_url(root: Path | None = None) -> str:
    """The repository's address (:func:`repository`), or "" when none is known."""
    return repository(root)[0]


def site_url(root: Path | None = None) -> str:
    """The published site's address: ``RANKBOOK_SITE_URL`` (the publishing workflow sets it),
    else ``html.baseurl`` in ``_config.yml``, else ""."""
    env = os.environ.get("RANKBOOK_SITE_URL", "").strip()
    if env:
        return env
    return str(((_config(root).get("html") or {}).get("baseurl")) or "").strip()


def citation(root: Path | None = None) -> dict:
    """``CITATION.cff`` read as a dict (empty when missing)."""
    import yaml

    from ..ledger.paths import project_root

    path = (root or project_root()) / "CITATION.cff"
    try:
        return yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError):
        return {}


def author_names(cff: dict) -> list[str]:
    """The authors as the citation names them (the site's footer names the same)."""
    out = []
    for a in cff.get("authors") or []:
        if a.get("name"):
            out.append(a["name"])
        else:
            out.append(" ".join(p for p in (a.get("given-names"), a.get("family-names")) if p))
    return out


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def version_text(cff: dict, commit: str = "") -> str:
    """The version as the citation prints it: ``0.2.0 (commit 7e83166b2a1f)``."""
    version = str(cff.get("version") or "")
    if commit:
        return f"{version} (commit {commit[:12]})" if version else f"commit {commit[:12]}"
    return version


def bibtex_entry(cff: dict, url: str = "", commit: str = "", swhid: dict | None = None) -> str:
    """The BibTeX entry of the book, from ``CITATION.cff``: a ``@misc`` (every style knows it)
    whose ``howpublished`` holds the address and whose ``note`` the version, the commit and the
    SWHIDs, the fields that standard styles print (``version`` and ``url`` are there too, for
    biblatex); without an address, the note says that none is known.

    >>> print(bibtex_entry({"title": "T", "authors": [{"name": "A team"}], "version": "1.0",
    ...                     "date-released": "2026-01-02"}, "https://example.org/r", "ab" * 20))
    @misc{rankbook,
      author       = {{A team}},
      title        = {T},
      howpublished = {\\url{https://example.org/r}},
      year         = {2026},
      month        = jan,
      version      = {1.0 (commit abababababab)},
      url          = {https://example.org/r},
      note         = {Version 1.0, commit abababababab. Code: MIT licence; text, tables and figures: CC BY 4.0}
    }
    """
    names = []
    for a in cff.get("authors") or []:
        if a.get("name"):
            names.append("{" + a["name"] + "}")
        else:
            names.append(f"{a.get('family-names', '')}, {a.get('given-names', '')}".strip(", "))
    date = str(cff.get("date-released") or "")
    version = str(cff.get("version") or "")
    fields = [("author", "{" + " and ".join(names) + "}"),
              ("title", "{" + str(cff.get("title", "rankbook")) + "}")]
    if url:
        fields.append(("howpublished", "{\\url{" + url + "}}"))
    if len(date) >= 7:
        fields += [("year", "{" + date[:4] + "}"), ("month", _MONTHS[int(date[5:7]) - 1])]
    if version or commit:
        fields.append(("version", "{" + version_text(cff, commit) + "}"))
    if url:
        fields.append(("url", "{" + url + "}"))
    note = []
    if version:
        note.append(f"Version {version}")
    if commit:
        note.append(f"commit {commit[:12]}")
    ids = [v for k, v in sorted((swhid or {}).items(), key=lambda kv: kv[0] != "rev")]
    text = ", ".join(note) + (f" ({'; '.join(ids)})" if ids else "")
    text = (text + ". ") if text else ""
    if not url:
        text += "No public address of its repository is known to this build. "
    text += "Code: MIT licence; text, tables and figures: CC BY 4.0"
    fields.append(("note", "{" + text + "}"))
    body = ",\n".join(f"  {k:<12} = {v}" for k, v in fields)
    return "@misc{rankbook,\n" + body + "\n}"


def citation_cff(cff: dict, url: str = "", commit: str = "", swhid: dict | None = None,
                 site: str = "") -> str:
    """The ``CITATION.cff`` of one build: the project's, with ``repository-code`` (the
    address, when known), ``url`` (the site), ``commit`` (a clean commit only) and the SWHIDs
    as ``identifiers``; without an address its message says so. Valid for ``cffconvert
    --validate``."""
    import yaml

    out = dict(cff)
    if url:
        out["repository-code"] = url
    else:
        out["message"] = (str(cff.get("message", "")).rstrip() + " No public address of the "
                          "repository is known to the build that wrote this file: cite the "
                          "version, the commit and the Software Heritage identifiers below.").strip()
    if site:
        out["url"] = site
    if commit:
        out["commit"] = commit
    ids = []
    for kind, value in sorted((swhid or {}).items(), key=lambda kv: kv[0] != "rev"):
        what = ("the commit the book was built from" if kind == "rev" else
                "the source files the book was built from (its source archive)")
        ids.append({"type": "swh", "value": value, "description": what})
    if ids:
        out["identifiers"] = ids
    head = ("# The citation of this build of rankbook, written by `rankbook build` from the "
            "project's CITATION.cff\n# (rankbook.book.citation.citation_cff).\n")
    return head + yaml.safe_dump(out, sort_keys=False, allow_unicode=True, width=100)


def write_site_citation(root: Path, site: Path, source) -> list[Path]:
    """``CITATION.cff`` and ``citation.bib`` of this build at the root of the built ``site``
    (``source``: the :class:`~rankbook.book.source_archive.Source` the archive holds)."""
    cff = citation(root)
    url = repository_url(root)
    commit = source.commit if source.kind == "commit" else ""
    written = []
    for name, text in (("CITATION.cff", citation_cff(cff, url, commit, source.swhid,
                                                      site_url(root))),
                       ("citation.bib", bibtex_entry(cff, url, commit, source.swhid) + "\n")):
        path = Path(site) / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def cite_markdown(root: Path | None = None, commit: str = "", swhid: dict | None = None) -> str:
    """The "How to cite" text of the landing page (included by ``book/intro.md``, so its links
    are relative to ``book/``): the BibTeX entry, this build's CITATION.cff, the SWHIDs, the
    licences and how to point at one result."""
    cff = citation(root)
    url, how = repository(root)
    where = (f"The repository is at <{url}> (from {how})." if url else
             "No public address of the repository is known to this build (none is set in "
             "`_config.yml`, the environment or the git remote): cite the version, the commit "
             "and the Software Heritage identifiers.")
    ids = [f"`{v}`" for k, v in sorted((swhid or {}).items(), key=lambda kv: kv[0] != "rev")]
    lines = [
        f"Cite the book and its library with this entry, generated from CITATION.cff. {where}",
        "",
        "```bibtex",
        bibtex_entry(cff, url, commit, swhid),
        "```",
        "",
        'The same in the Citation File Format: <a href="../CITATION.cff">CITATION.cff</a> '
        '(and <a href="../citation.bib">citation.bib</a>), with the commit and these '
        "identifiers.",
        "",
    ]
    if ids:
        lines += ["Software Heritage identifiers (SWHIDs, computed from git's own object ids: "
                  "they name these exact files wherever a copy lives): " + "; ".join(ids)
                  + ". The [source page](generated/source.md) says what each names.", ""]
    lines += [
        source_markdown(commit, prefix="generated/"),
        "",
        "To point at one result, link its anchor: every row of a verdict box and of the "
        "[dashboard](generated/dashboard.md), and every entry of the [errata](generated/errata.md), has a stable "
        "link (the **#** before it) that does not change between builds. The provenance box at "
        "the end of each page gives the git commit and the exact command that produced it.",
        "",
        "The code is under the MIT licence, the text, tables and figures under CC BY 4.0 (the "
        "LICENSE file of the source); the papers reproduced here are cited on each page and in "
        "the [bibliography](references.md).",
        "",
    ]
    return "\n".join(lines)
