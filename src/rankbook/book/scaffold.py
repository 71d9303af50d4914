"""``rankbook new-source KEY``: the files of a new source, ready to build.

A source is data: its ledger file (``data/claims/KEY.toml``, with its ``[source]`` table and a
first checked claim), its data folder (``data/published/KEY/``: a printed table and the inputs
it is recomputed from), its code (``src/rankbook/papers/KEY/``: one module per page, each check
reading its numbers, data and erratum roles from the ledger), one notebook
(``notebooks/KEY_table_1.ipynb``), its chapter (``book/KEY.md``), its entry in the table of
contents (``_toc.yml``) and its bibliography entry (``book/references.bib``). Nothing in
``rankbook.book`` or in the measures changes: the book learns about the source from its
``[source]`` table. The example claim holds as written (its printed means are those of its
inputs, rounded as printed), and its two mutants show the check can fail; replace them with the
source's own results.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

_KEY = re.compile(r"^[a-z][a-z0-9_]*$")
_PREFIX = re.compile(r"^[A-Z][A-Z0-9]*$")


class ScaffoldError(ValueError):
    """A source that cannot be scaffolded as asked (a bad name, a clash with what exists)."""


def _toml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def ledger_text(key: str, prefix: str, title: str, short: str, authors: list[str], year: int | None,
                cite: str, order: int) -> str:
    authors_line = f"authors = [{', '.join(_toml(a) for a in authors)}]\n" if authors else ""
    year_line = f"year = {year}\n" if year else ""
    return f'''# Claims ledger of {title} (bibliography key {cite}).
# One entry per stated result, numbered or not: the single place where a claim exists.
# Fields: id (immutable), where (place in the source), kind, claim (our words), page and
# section that check it (or reason why not), data (roles of the files of published values and
# inputs), readings, params (every number of the rule, written {{{{name}}}} in it), rule (the
# decision rule, fixed before any result), check (the function that returns its evidence) and
# [claims.test] (smoke arguments and mutants, each with the status it must produce).
# [[errata]]: id (immutable), claim, role (the name its check gives the finding), where, kind,
# severity (the status it gives its claim), finding (our words). See rankbook.ledger.claims.

[source]
key = "{key}"
prefix = "{prefix}"
title = {_toml(title)}
short = {_toml(short)}
{authors_line}{year_line}cite = "{cite}"
chapter = "{key}"
order = {order}

[[claims]]
id = "{prefix}-T1"
where = "Table 1"
kind = "table"
claim = "the mean score of each system over the topics, as Table 1 prints it"
page = "{key}_table_1"
section = "Table 1 reproduced"
check = "rankbook.papers.{key}.table_1:check_table_1"
data = {{ printed = "data/published/{key}/table_1.csv", scores = "data/published/{key}/scores.csv" }}
readings = ["the arithmetic mean over every topic of the scores file"]
params = {{ decimals = 2 }}
rule = "every printed mean equals the recomputed one rounded to the printed {{{{decimals}}}} decimals (holds); some do (imprecise); none do (not reproduced)"

[claims.test]
smoke = {{}}
mutants = [
  {{ what = "a printed mean moved by one rounding unit", perturb = "moved_mean", expect = "imprecise" }},
  {{ what = "two decimals more than printed", params = {{ decimals = 4 }}, expect = "not reproduced" }},
]
'''


def check_module_text(key: str, title: str) -> str:
    return f'''"""{title}: Table 1, the mean score of each system; the logic of the page ``{key}_table_1``.

The check reads everything it compares from the claims ledger: the printed table and the
per-topic scores by their data roles, the printed rounding from the rule's params.
"""

from __future__ import annotations

import pandas as pd

from rankbook.ledger import claims


def means(scores: pd.DataFrame) -> pd.Series:
    """The mean score of each system (a column of ``scores``) over the topics (its rows)."""
    return scores.drop(columns=["topic"]).mean()


def check_table_1(claim: claims.Claim, *, printed: pd.DataFrame | None = None) -> claims.Evidence:
    """Every printed mean of Table 1 against the mean of the per-topic scores, rounded as
    printed (the rule's ``decimals``)."""
    decimals = int(claim.params["decimals"])
    if printed is None:
        printed = pd.read_csv(claim.path("printed"), comment="#")
    scores = pd.read_csv(claim.path("scores"), comment="#")
    recomputed = means(scores)
    table = printed.assign(recomputed=[float(recomputed[s]) for s in printed["system"]])
    table["agrees"] = table["recomputed"].round(decimals) == table["mean"].round(decimals)
    ev = claim.evidence(
        comparison="exact", matched=int(table["agrees"].sum()), total=len(table), unit="values",
        published=f"{{len(table)}} means printed to {{decimals}} decimals",
        reproduced=", ".join(f"{{s}} {{v:.{{decimals}}f}}" for s, v in zip(table["system"], table["recomputed"])),
        detail=f"recomputed as the mean over {{len(scores)}} topics")
    ev.add_table("table_1_comparison", table, title="Table 1: printed and recomputed means")
    return ev


def moved_mean(claim: claims.Claim, **smoke) -> dict:
    """A mutant: the first printed mean moved by one unit of its last printed decimal."""
    printed = pd.read_csv(claim.path("printed"), comment="#")
    printed.loc[0, "mean"] += 10.0 ** -int(claim.params["decimals"])
    return {{"printed": printed}}
'''


def notebook_json(key: str, prefix: str, short: str) -> dict:
    def cell(kind, source, tags=None, cid=""):
        c = {"cell_type": kind, "id": cid, "metadata": {"tags": tags} if tags else {},
             "source": source.splitlines(keepends=True)}
        if kind == "code":
            c.update(execution_count=None, outputs=[])
        return c

    return {
        "cells": [
            cell("markdown", f"# {short}: Table 1 reproduced\n\nThe mean score of each system, "
                             "recomputed from the per-topic scores and set beside the printed "
                             "table.\n\n<!-- verdict -->", cid="title"),
            cell("code", 'decimals = 2  # decimals the table is shown with\n', ["parameters"],
                 cid="parameters"),
            cell("code", "from rankbook.book import outputs\nfrom rankbook.ledger import claims\n",
                 cid="imports"),
            cell("markdown", "## Table 1 reproduced\n\nEach printed mean beside the mean of the "
                             "scores file, with whether they agree at the printed rounding.",
                 cid="table-1-text"),
            cell("code", f'table_1 = claims.check("{prefix}-T1")\n'
                         'outputs.save_table(table_1.tables["table_1_comparison"].round(decimals), '
                         '"table_1_comparison", title="Table 1: printed and recomputed means")\n'
                         "claims.report(table_1)\n", cid="table-1"),
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            "rankbook": {"description": f"{short}, Table 1: the mean score of each system",
                         "smoke": {"decimals": 2}, "alternate": {"decimals": 3},
                         "timeout": 300,
                         "constraints": {"decimals": {"min": 0, "max": 6}}},
        },
        "nbformat": 4, "nbformat_minor": 5,
    }


def chapter_text(key: str, title: str, cite_key: str) -> str:
    role = "{" + "cite:t}"  # the citation role, assembled (this module cites nothing itself)
    return f"""# {title}

{role}`{cite_key}` (replace this paragraph with what the source studies, in your own words).
This chapter checks its stated results one by one; what it gets wrong is collected on the
[errata page](generated/errata.md).

:::{{admonition}} Verdict
:class: verdict

```{{include}} generated/summary_{key}.md
```

:::
"""


def bib_entry(cite: str, title: str, authors: list[str], year: int | None) -> str:
    who = " and ".join(authors) if authors else "{Unknown}"
    return (f"\n@misc{{{cite},\n  title  = {{{title}}},\n  author = {{{who}}},\n"
            f"  year   = {{{year or 'n.d.'}}}\n}}\n")


def toc_entry(key: str, short: str, title: str) -> str:
    return (f'  - caption: "{short}: {title}"\n    chapters:\n      - file: book/{key}\n'
            f"        sections:\n          - file: book/generated/{key}_table_1\n")


def scaffold(root: Path, key: str, *, title: str, prefix: str, short: str | None = None,
             authors: list[str] | None = None, year: int | None = None,
             cite: str | None = None) -> list[Path]:
    """Write the files of a new source into the project at ``root`` and return them (the
    created files, then ``_toc.yml`` and ``book/references.bib``, which gain one entry each).
    ScaffoldError when a name is malformed or anything of that source already exists; nothing
    is written then."""
    from ..ledger import claims as _claims

    root = Path(root)
    if not _KEY.match(key):
        raise ScaffoldError(f"source key {key!r} must be lower-case letters, digits and _ "
                            "(it names the ledger file, the data folder and the code package)")
    if not _PREFIX.match(prefix):
        raise ScaffoldError(f"id prefix {prefix!r} must be capital letters and digits (A, BR)")
    if not title.strip():
        raise ScaffoldError("give the source's title (--title)")
    book = _claims.load_ledger(root)
    if key in book.sources:
        raise ScaffoldError(f"source {key!r} exists already (data/claims/{key}.toml)")
    taken = {s.prefix: s.key for s in book.sources.values()}
    if prefix in taken:
        raise ScaffoldError(f"id prefix {prefix!r} is taken by source {taken[prefix]!r}; taken: "
                            f"{', '.join(sorted(taken))}")
    short = short or title
    cite = cite or key
    authors = [a.strip() for a in (authors or []) if a.strip()]
    order = max((s.order for s in book.sources.values()), default=0) + 1
    files = {
        root / "data" / "claims" / f"{key}.toml":
            ledger_text(key, prefix, title, short, authors, year, cite, order),
        root / "data" / "published" / key / "table_1.csv":
            f"# {title}, Table 1: the mean score of each system as printed (two decimals).\n"
            "# Transcribed by hand from the source; replace with the source's own table.\n"
            "system,mean\nbaseline,0.45\nadvanced,0.55\n",
        root / "data" / "published" / key / "scores.csv":
            f"# {title}: the per-topic scores Table 1 averages (the inputs of the recomputation).\n"
            "topic,baseline,advanced\n1,0.40,0.50\n2,0.50,0.60\n3,0.46,0.56\n",
        root / "src" / "rankbook" / "papers" / key / "__init__.py":
            f'"""The reproduction of {title}: one module per page."""\n',
        root / "src" / "rankbook" / "papers" / key / "table_1.py": check_module_text(key, title),
        root / "notebooks" / f"{key}_table_1.ipynb":
            json.dumps(notebook_json(key, prefix, short), indent=1, ensure_ascii=False) + "\n",
        root / "book" / f"{key}.md": chapter_text(key, title, cite),
    }
    clash = [p for p in files if p.exists()]
    if clash:
        raise ScaffoldError(f"{clash[0].relative_to(root)} exists already; nothing was written")
    toc = root / "_toc.yml"
    bib = root / "book" / "references.bib"
    toc_text = toc.read_text(encoding="utf-8")
    marker = "  - caption: Library reference\n"
    entry = toc_entry(key, short.replace('"', "'"), title.replace('"', "'"))
    new_toc = toc_text.replace(marker, entry + marker, 1) if marker in toc_text else toc_text + entry
    bib_text = bib.read_text(encoding="utf-8") if bib.exists() else ""
    if re.search(rf"@\w+\{{{re.escape(cite)},", bib_text):
        new_bib = bib_text  # the source is cited already
    else:
        new_bib = bib_text.rstrip("\n") + "\n" + bib_entry(cite, title, authors, year)
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    toc.write_text(new_toc, encoding="utf-8")
    bib.write_text(new_bib, encoding="utf-8")
    return [*files, toc, bib]
