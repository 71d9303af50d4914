"""The bibliography parses and every citation in the book and the library names an entry.

A merge once left an entry of book/references.bib without its closing brace, and every book
build failed on it; this catches that in seconds, before the build.
"""

from __future__ import annotations

import re

from pybtex.database import parse_file

from rankbook.ledger.paths import project_root

ROOT = project_root()
CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`|:cite(?::[a-z]+)?:`([^`]+)`")


def test_bibliography_parses_with_unique_keys():
    text = (ROOT / "book" / "references.bib").read_text()
    db = parse_file(str(ROOT / "book" / "references.bib"))
    keys = re.findall(r"^@\w+\{([^,]+),", text, flags=re.M)
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
    assert set(keys) == set(db.entries)


def test_every_citation_names_an_entry():
    keys = set(parse_file(str(ROOT / "book" / "references.bib")).entries)
    sources = [*ROOT.joinpath("book").rglob("*.md"), *ROOT.joinpath("notebooks").glob("*.ipynb"),
               *ROOT.joinpath("src", "rankbook").rglob("*.py")]
    missing = {}
    for path in sources:
        if "generated" in path.parts:
            continue
        for m in CITE.finditer(path.read_text(errors="ignore")):
            for key in (m.group(1) or m.group(2)).split(","):
                key = key.strip()
                if key and key not in keys:
                    missing.setdefault(key, path.relative_to(ROOT).as_posix())
    assert not missing, f"citations of keys that book/references.bib does not define: {missing}"
