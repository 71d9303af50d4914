"""How the book is cited: the repository setting, CITATION.cff and its BibTeX twin."""

from __future__ import annotations

from pathlib import Path

from .source_archive import source_markdown



#: The placeholder repository that ``_config.yml`` once named; it does not exist.
PLACEHOLDER_URLS = {"https://github.com/rankbook/rankbook",
                    "https://github.com/executablebooks/jupyter-book"}


def repository_url(root: Path | None = None) -> str:
    """The repository URL: ``repository.url`` in ``_config.yml``, the one setting that the
    repository and Binder buttons, the rerun boxes and the citation read. Empty when unset
    (or a placeholder): then no button points anywhere."""
    import yaml

    from ..ledger.paths import project_root

    try:
        conf = yaml.safe_load(((root or project_root()) / "_config.yml").read_text()) or {}
    except (OSError, yaml.YAMLError):
        return ""
    url = str(((conf.get("repository") or {}).get("url")) or "").strip()
    return "" if url in PLACEHOLDER_URLS else url


def citation(root: Path | None = None) -> dict:
    """``CITATION.cff`` read as a dict (empty when missing)."""
    import yaml

    from ..ledger.paths import project_root

    path = (root or project_root()) / "CITATION.cff"
    try:
        return yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError):
        return {}


def bibtex_entry(cff: dict, url: str = "", commit: str = "") -> str:
    """The BibTeX entry of the book, from ``CITATION.cff`` (and the repository URL when set).

    >>> print(bibtex_entry({"title": "T", "authors": [{"name": "A team"}], "version": "1.0",
    ...                     "date-released": "2026-01-02"}))
    @software{rankbook,
      author  = {{A team}},
      title   = {T},
      version = {1.0},
      year    = {2026},
      month   = {1},
      date    = {2026-01-02},
      note    = {Code: MIT licence; text, tables and figures: CC BY 4.0}
    }
    """
    names = []
    for a in cff.get("authors") or []:
        if a.get("name"):
            names.append("{" + a["name"] + "}")
        else:
            names.append(f"{a.get('family-names', '')}, {a.get('given-names', '')}".strip(", "))
    date = str(cff.get("date-released") or "")
    fields = [("author", " and ".join(names)), ("title", cff.get("title", "rankbook")),
              ("version", cff.get("version", ""))]
    if len(date) >= 7:
        fields += [("year", date[:4]), ("month", str(int(date[5:7])))]
    if url:
        fields.append(("url", url))
    if date:
        fields.append(("date", date))
    if commit:
        fields.append(("commit", commit))
    fields.append(("note", "Code: MIT licence; text, tables and figures: CC BY 4.0"))
    body = ",\n".join(f"  {k:<7} = {{{v}}}" for k, v in fields if v)
    return "@software{rankbook,\n" + body + "\n}"


def cite_markdown(root: Path | None = None, commit: str = "") -> str:
    """The "How to cite" text of the landing page (included by ``book/intro.md``, so its links
    are relative to ``book/``): the BibTeX entry, CITATION.cff, the licences and how to point
    at one result."""
    cff = citation(root)
    url = repository_url(root)
    where = f" ({url})" if url else ""
    return "\n".join([
        f"Cite the book and its library{where} with this entry, generated from "
        "{download}`CITATION.cff <../CITATION.cff>` (the same metadata in the Citation File "
        "Format):",
        "",
        "```bibtex",
        bibtex_entry(cff, url, commit),
        "```",
        "",
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
    ])
