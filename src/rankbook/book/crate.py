"""Machine-readable provenance at the root of the built site, written from the records the build
keeps (never typed in):

* ``ro-crate-metadata.json``: an RO-Crate 1.2 (Process Run Crate profile) describing the site.
  Each executed page is a ``CreateAction``: its executed notebook is the ``instrument``, its
  parameters (``PropertyValue``) and the lock file are the ``object``, and every file it wrote
  that the site offers (tables, figures) is a ``result``, each with the SHA-256 its key file
  records (``book/generated/NAME/.rankbook-key.json``, :func:`rankbook.book.pipeline.write_key_file`);
  the lock file, the source archive and the citation are files of the crate too.
* ``sources/KEY/metadata.yaml``: a ReScience-style description of each source's replication
  (the replicated article, the code, the data, the counts of claims by status), from the
  ``[source]`` table of its ledger.
* ``requirements.lock``: the environment every page ran in.

:func:`write_site_files` is called when Sphinx finishes the site (``book/_ext``), with the
download paths it gave each file.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

CRATE_NAME = "ro-crate-metadata.json"
#: RO-Crate 1.2 and the Process Run Crate profile the crate conforms to.
RO_CRATE = "https://w3id.org/ro/crate/1.2"
PROCESS_RUN_CRATE = "https://w3id.org/ro/wfrun/process/0.5"
#: Where each source's ReScience-style metadata goes, under the site's root.
SOURCES_DIR = "sources"

_FORMATS = {".csv": "text/csv", ".png": "image/png", ".svg": "image/svg+xml",
            ".ipynb": "application/x-ipynb+json", ".json": "application/json",
            ".gz": "application/gzip", ".lock": "text/plain", ".cff": "application/yaml",
            ".yaml": "application/yaml", ".html": "text/html", ".bib": "application/x-bibtex"}


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _file(rel: str, site: Path, name: str = "", sha256: str | None = None, **extra) -> dict:
    path = site / rel
    entity = {"@id": rel, "@type": "File", "name": name or Path(rel).name,
              "encodingFormat": _FORMATS.get(Path(rel).suffix, "application/octet-stream"),
              "contentSize": str(path.stat().st_size), "sha256": sha256 or _sha256(path)}
    entity.update(extra)
    return entity


def crate(root: Path, site: Path, downloads: dict[str, str], source, pages: list[dict]) -> dict:
    """The RO-Crate of the built ``site`` (see the module doc). ``downloads`` maps a file of
    the project (``book/generated/NAME/x.csv``) to where the site offers it
    (``_downloads/<hash>/x.csv``); ``source`` is what the source archive holds; ``pages`` the
    executed pages (:func:`rankbook.book.pipeline.executed_pages`)."""
    import rankbook

    from .citation import author_names, citation, repository_url, site_url
    from .source_archive import ARCHIVE_NAME

    root, site = Path(root), Path(site)
    cff = citation(root)
    graph: dict[str, dict] = {}
    parts: list[str] = []

    def add(entity: dict, part: bool = False) -> dict:
        graph[entity["@id"]] = entity
        if part and entity["@id"] not in parts:
            parts.append(entity["@id"])
        return entity

    lock = (add(_file("requirements.lock", site, "the pinned environment every page ran in"),
                part=True) if (site / "requirements.lock").is_file() else None)
    archive_rel = downloads.get(f"book/generated/{ARCHIVE_NAME}")
    if archive_rel and (site / archive_rel).is_file():
        add(_file(archive_rel, site, f"the source ({source.folder})",
                  description=f"The project's source files, {source.commit_text()}",
                  identifier=[v for _, v in sorted(source.swhid.items())]), part=True)
    for name in ("CITATION.cff", "citation.bib"):
        if (site / name).is_file():
            add(_file(name, site, f"how to cite this build ({name})"), part=True)
    software = add({"@id": "#rankbook", "@type": "SoftwareApplication", "name": "rankbook",
                    "version": rankbook.__version__,
                    **({"url": repository_url(root)} if repository_url(root) else {}),
                    **({"identifier": [v for _, v in sorted(source.swhid.items())]}
                       if source.swhid else {})})
    actions = []
    for page in pages:
        name = page["name"]
        html = f"book/generated/{name}.html"
        nb_rel = downloads.get(f"book/generated/{name}.ipynb")
        instrument = None
        if nb_rel and (site / nb_rel).is_file():
            instrument = add(_file(nb_rel, site, f"{name}.ipynb, executed and presented",
                                   **{"@type": ["File", "SoftwareSourceCode"],
                                      "programmingLanguage": "Python"}), part=True)
        objects = []
        for key, value in page["parameters"].items():
            objects.append(add({"@id": f"#{name}-parameter-{key}", "@type": "PropertyValue",
                                "name": key, "value": json.dumps(value)
                                if not isinstance(value, str) else value,
                                **({"description": "changed from the default"}
                                   if page["defaults"].get(key) != value else {})}))
        if lock is not None:
            objects.append(lock)
        results, elsewhere = [], 0
        for rel, digest in sorted(page["record"]["outputs"].items()):
            target = downloads.get(f"book/generated/{name}/{rel}")
            if not target or not (site / target).is_file():
                elsewhere += 1  # a grid point's file, a lock: kept by the build, not the site
                continue
            if _sha256(site / target) != digest:
                raise ValueError(f"{target}: its bytes differ from the SHA-256 the key file of "
                                 f"{name} records for {rel}")
            results.append(add(_file(target, site, rel, sha256=digest), part=True))
        if (site / html).is_file():
            results.append(add(_file(html, site, page["title"],
                                     description="the page as the site shows it"), part=True))
        action = {"@id": f"#run-{name}", "@type": "CreateAction",
                  "name": f"Execution of the page {page['title']}",
                  "description": page["description"] + (
                      f" The build also kept {elsewhere} intermediate files that the site does "
                      "not offer." if elsewhere else ""),
                  "agent": {"@id": "#rankbook-build"},
                  "object": [{"@id": o["@id"]} for o in objects],
                  "result": [{"@id": r["@id"]} for r in results]}
        if instrument is not None:
            action["instrument"] = {"@id": instrument["@id"]}
        for field, key in (("startTime", "start"), ("endTime", "end")):
            if page.get(key):
                action[field] = page[key]
        actions.append(add(action))
    add({"@id": "#rankbook-build", "@type": "Organization",
         "name": " and ".join(author_names(cff)) or "rankbook contributors",
         "description": "`rankbook build`, run by the authors' continuous integration"})
    root_entity = {
        "@id": "./", "@type": "Dataset", "name": str(cff.get("title") or "rankbook"),
        "description": str(cff.get("abstract") or "").strip(),
        "license": [{"@id": "https://spdx.org/licenses/MIT"},
                    {"@id": "https://spdx.org/licenses/CC-BY-4.0"}],
        "datePublished": str(cff.get("date-released") or ""),
        "version": rankbook.__version__,
        "conformsTo": [{"@id": PROCESS_RUN_CRATE}],
        "hasPart": [{"@id": p} for p in parts],
        "mentions": [{"@id": a["@id"]} for a in actions],
        "about": {"@id": software["@id"]},
    }
    if site_url(root):
        root_entity["url"] = site_url(root)
    profile = {"@id": PROCESS_RUN_CRATE, "@type": "CreativeWork",
               "name": "Process Run Crate", "version": "0.5"}
    licences = [{"@id": "https://spdx.org/licenses/MIT", "@type": "CreativeWork", "name": "MIT"},
                {"@id": "https://spdx.org/licenses/CC-BY-4.0", "@type": "CreativeWork",
                 "name": "CC BY 4.0"}]
    descriptor = {"@id": CRATE_NAME, "@type": "CreativeWork", "conformsTo": {"@id": RO_CRATE},
                  "about": {"@id": "./"}}
    return {"@context": f"{RO_CRATE}/context",
            "@graph": [descriptor, root_entity, profile, *licences, *graph.values()]}


def rescience_metadata(book, source_key: str, rows: list[dict], code: dict) -> str:
    """The ReScience-style ``metadata.yaml`` of one source's replication: the replicated
    article (from its ledger's ``[source]`` table), the code (address, version, commit,
    SWHIDs), the data the claims compare with, and the claims counted by status."""
    import yaml

    from ..ledger.claims import STATUSES

    s = book.sources[source_key]
    mine = [r for r in rows if r.get("paper") == source_key]
    data = sorted({f for c in book.claims.values() if c.source == source_key
                   for f in c.data_files})
    errata = [e for e in book.errata.values() if book.claims[e.claim].source == source_key]
    doc = {
        "title": f"[Re] {s.title}",
        "type": "Replication",
        "language": "Python",
        "domain": "Information retrieval; evaluation of rankings",
        "authors": [{"name": "rankbook contributors"}],
        "code": code,
        "data": {"files": data, "url": s.url} if s.url else {"files": data},
        "replication": {"cite": s.cite, "bib": f"book/references.bib, key {s.cite}" if s.cite else "",
                        "title": s.title, "authors": list(s.authors),
                        **({"year": s.year} if s.year else {}), **({"url": s.url} if s.url else {})},
        "results": {"claims": len(mine),
                    "by status": {st: sum(r.get("status") == st for r in mine) for st in STATUSES
                                  if any(r.get("status") == st for r in mine)},
                    "errata": len(errata)},
        "chapter": f"book/{s.chapter}.html",
    }
    head = ("# ReScience-style metadata of this replication, written by `rankbook build` from the\n"
            f"# [source] table of data/claims/{s.file} and the build's records.\n")
    return head + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def write_site_files(root: Path, site: Path, downloads: dict[str, str], source,
                     pages: list[dict]) -> list[Path]:
    """Write the citation, the lock file, each source's ``metadata.yaml`` and the crate at the
    root of the built ``site`` (in that order: the crate lists the others), for ``source``
    (what the source archive holds; read from the build's description by default). Returns
    them. Called on the site as it is published, after its pages name their commit, so every
    hash the crate records is that of the published file."""
    import csv

    import rankbook

    from .citation import repository_url, write_site_citation

    root, site = Path(root), Path(site)
    gen = root / "book" / "generated"
    written = write_site_citation(root, site, source)
    if (root / "requirements.lock").is_file():
        shutil.copyfile(root / "requirements.lock", site / "requirements.lock")
        written.append(site / "requirements.lock")
    from ..ledger import claims as _claims

    book = _claims.ledger(root)
    rows = []
    claims_csv = gen / "claims.csv"
    if claims_csv.is_file():
        rows = list(csv.DictReader(claims_csv.read_text(encoding="utf-8").splitlines()))
    code = {"url": repository_url(root) or "not published (no address is known to this build)",
            "version": rankbook.__version__}
    if source.commit:
        code["commit"] = source.commit
    if source.swhid:
        code["swh"] = [v for _, v in sorted(source.swhid.items(), key=lambda kv: kv[0] != "rev")]
    for key in book.sources:
        path = site / SOURCES_DIR / key / "metadata.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rescience_metadata(book, key, rows, code), encoding="utf-8")
        written.append(path)
    path = site / CRATE_NAME
    path.write_text(json.dumps(crate(root, site, downloads, source, pages), indent=1,
                               ensure_ascii=False) + "\n", encoding="utf-8")
    written.append(path)
    return written
