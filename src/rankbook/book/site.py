"""Pages generated from the executed notebooks' outputs: dashboard, errata, summary, parameters.

Every number on these pages comes from the JSON records the notebooks wrote with
:func:`rankbook.book.outputs.record_result` and :func:`rankbook.book.outputs.record_erratum`, and from the
notebooks' parameter cells. Nothing is typed in: rerun a notebook and the pages change.
"""

from __future__ import annotations

import json
from pathlib import Path

from .outputs import ERRATA_FILE, PAPERS, RESULTS_FILE, STATUSES

PAPER_ORDER = ["A", "B", "notes", "rankdcg", "blog"]


def _cell(text) -> str:
    return ("" if text is None else str(text)).replace("|", "\\|").replace("\n", " ")


def collect(generated: Path, filename: str) -> list[dict]:
    """Records from every ``generated/NAME/filename``, each tagged with its notebook name."""
    records = []
    for path in sorted(generated.glob(f"*/{filename}")):
        notebook = path.parent.name
        if notebook.startswith((".", "_")):
            continue
        for rec in json.loads(path.read_text()):
            records.append({**rec, "notebook": notebook})
    return records


def _paper_key(rec) -> int:
    p = rec.get("paper")
    return PAPER_ORDER.index(p) if p in PAPER_ORDER else len(PAPER_ORDER)


def dashboard_markdown(results: list[dict]) -> str:
    lines = [
        "# Reproducibility dashboard",
        "",
        "One row per published artifact. This page is generated at build time from the records",
        "each notebook writes (`rankbook.book.outputs.record_result`); rerunning a notebook updates it.",
        "Statuses: " + "; ".join(f"*{s}*" for s in STATUSES) + ".",
        "",
    ]
    if not results:
        lines.append("No notebook has reported a result yet.")
        return "\n".join(lines) + "\n"
    counts = {s: sum(r["status"] == s for r in results) for s in STATUSES}
    lines += [
        ":::{table} Artifacts by status",
        "",
        "| status | artifacts |",
        "|---|---|",
        *[f"| {s} | {c} |" for s, c in counts.items()],
        ":::",
        "",
        ":::{table} Every published artifact, reproduced",
        "",
        "| paper | artifact | status | cells matched | detail | notebook |",
        "|---|---|---|---|---|---|",
    ]
    for r in sorted(results, key=lambda r: (_paper_key(r), r["notebook"], r["artifact"])):
        matched = "" if r.get("total") is None else f"{r['matched']} / {r['total']}"
        lines.append(
            f"| {_cell(r['paper'])} | {_cell(r['artifact'])} | {_cell(r['status'])} | {matched} "
            f"| {_cell(r.get('detail'))} | [{r['notebook']}]({r['notebook']}.ipynb) |"
        )
    lines += [":::", "", "Papers: " + "; ".join(f"**{k}**: {v}" for k, v in PAPERS.items()) + "."]
    return "\n".join(lines) + "\n"


def errata_markdown(errata: list[dict]) -> str:
    lines = [
        "# Errata",
        "",
        "Every discrepancy the notebooks found in the source papers, grouped by paper. Each entry",
        "names where in the paper it sits, what is wrong, the evidence computed by the notebook",
        "(nothing here is typed in; the page is generated from `rankbook.book.outputs.record_erratum`",
        "records at build time) and a link to the notebook that shows it.",
        "",
    ]
    if not errata:
        lines.append("No notebook has reported a discrepancy yet.")
        return "\n".join(lines) + "\n"
    for paper in sorted({e["paper"] for e in errata}, key=lambda p: _paper_key({"paper": p})):
        entries = [e for e in errata if e["paper"] == paper]
        lines += [f"## {PAPERS.get(paper, paper)}", ""]
        for e in sorted(entries, key=lambda e: (e["notebook"], e["where"])):
            kind = f" ({e['kind']})" if e.get("kind") else ""
            lines += [
                f"- **{_cell(e['where'])}**{kind}: {e['finding']}",
                f"  *Evidence:* {e['evidence']}",
                f"  *Notebook:* [{e['notebook']}]({e['notebook']}.ipynb)",
                "",
            ]
    return "\n".join(lines) + "\n"


def summary_markdown(results: list[dict]) -> str:
    """The short status summary included by the landing page."""
    if not results:
        return "No notebook has reported a result yet.\n"
    # No grand total of cells: a "cell" is a printed number in one table and a checked
    # transposition in another, so adding them up would mean nothing.
    lines = []
    counts = {s: sum(r["status"] == s for r in results) for s in STATUSES}
    lines.append(
        f"The notebooks check **{len(results)} published artifacts**: "
        + ", ".join(f"{c} {s}" for s, c in counts.items() if c) + "."
    )
    lines.append("")
    for r in sorted(results, key=lambda r: (_paper_key(r), r["notebook"], r["artifact"])):
        if r.get("total") is None:
            lines.append(f"- {r['artifact']}: {r['status']}")
        else:
            lines.append(
                f"- {r['artifact']}: {r['matched']} of {r['total']} cells reproduced ({r['status']})"
            )
    return "\n".join(lines) + "\n"


def parameters_markdown(root: Path) -> str:
    from .specs import discover

    lines = ["Every notebook, with its parameters, their types and defaults (the papers' settings).",
             "This list is generated from the notebooks' `parameters` cells, like `rankbook list`.",
             ""]
    for spec in discover(root):
        lines += [f"**`{spec.name}`**: {spec.description}", ""]
        if spec.parameters:
            lines += ["| parameter | type | default | meaning |", "|---|---|---|---|"]
            for p in spec.parameters.values():
                lines.append(
                    f"| `{p.name}` | {p.type_name} | `{_cell(repr(p.default))}` | {_cell(p.comment)} |"
                )
        else:
            lines.append("(no parameters)")
        lines.append("")
    return "\n".join(lines) + "\n"


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def write_generated_pages(root: Path) -> None:
    gen = root / "book" / "generated"
    gen.mkdir(parents=True, exist_ok=True)
    results = collect(gen, RESULTS_FILE)
    errata = collect(gen, ERRATA_FILE)
    _write_if_changed(gen / "dashboard.md", dashboard_markdown(results))
    _write_if_changed(gen / "errata.md", errata_markdown(errata))
    _write_if_changed(gen / "summary.md", summary_markdown(results))
    _write_if_changed(gen / "parameters.md", parameters_markdown(root))
