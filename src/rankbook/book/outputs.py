"""The one way notebooks save what they show: tables as CSV, figures as PNG and SVG.

Every table a notebook shows goes through :func:`save_table`, every figure through
:func:`save_figure`. Both write into :func:`rankbook.book.paths.output_dir` (``book/generated/NAME/``
during a build, the run folder with ``rankbook run``) and display the result in the page with a
title or a caption and alt text.

The files are deterministic: the same data gives the same bytes. CSVs use ``\\n`` line ends and
full float precision; PNGs carry no software stamp; SVGs carry no date and use a fixed hash
salt for their element ids.

Notebooks also report, for the reproducibility dashboard and the errata page, what they
reproduced (:func:`record_result`) and what they found wrong in a paper
(:func:`record_erratum`). The pipeline collects these JSON records from every notebook's output
folder and generates the dashboard and errata pages from them, so no number is typed in by hand.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Callable

from .paths import notebook_dir, output_dir

#: The statuses a published artifact can have. They are never chosen by hand: :func:`status_for`
#: derives each from what was compared (see :data:`COMPARISONS`) and how much of it matched.
STATUSES = (
    "reproduced exactly",
    "within sampling noise",
    "partly",
    "not reproduced",
    "claim holds",
    "claim false",
    "recomputed",
    "not checkable",
)

#: What a record compared, which decides its status:
#:
#: ``"exact"``
#:     published numbers or symbols, compared value by value (to the printed precision);
#: ``"noise"``
#:     published numbers from a random experiment, compared within the spread of a rerun;
#: ``"claim"``
#:     a stated claim (a proposition, a sentence of the text), checked true or false;
#: ``"none"``
#:     nothing published to compare point by point (a figure without numbers, curves): the
#:     artifact was recomputed and its checkable statements are reported separately;
#: ``"unavailable"``
#:     the inputs behind the published numbers are not available, so nothing can be rerun.
COMPARISONS = ("exact", "noise", "claim", "none", "unavailable")

#: The units a record counts in (``matched`` of ``total`` ...).
UNITS = ("cells", "values", "symbols", "entries", "statements", "transpositions", "rows",
         "curves", "claims")

#: The sources, keyed as the records name them, with the short name the book uses.
PAPERS = {
    "A": "Paper A: ranking evaluation metrics from a group-theoretic perspective",
    "B": "Paper B: Lin, Li and Guo, consensus measure of rankings",
    "notes": "Notes on ranking metrics",
    "rankdcg": "Katerenchuk and Rosenberg, the RankDCG poster",
    "blog": "The note on metrics in learning-to-rank problems",
}


def check_status(record: dict) -> str:
    """Re-apply :func:`status_for` to a stored result record; ValueError when it disagrees."""
    want = status_for(record.get("comparison", "?"), record.get("matched"), record.get("total"),
                      record.get("holds"))
    if record.get("status") != want:
        raise ValueError(
            f"record {record.get('key')!r} has status {record.get('status')!r} but the status "
            f"rule gives {want!r}"
        )
    return want


def status_for(comparison: str, matched: int | None = None, total: int | None = None,
               holds: bool | None = None) -> str:
    """The one status rule of the book, applied to every record.

    * ``"none"`` -> ``recomputed`` (nothing published to compare point by point);
    * ``"unavailable"`` -> ``not checkable`` (the inputs are not published);
    * ``"claim"`` -> ``claim holds`` or ``claim false`` (``holds``, or every counted
      statement matched);
    * ``"exact"`` / ``"noise"`` -> ``reproduced exactly`` / ``within sampling noise`` when every
      compared value matched, ``partly`` when some did, ``not reproduced`` when none did.

    Examples
    --------
    >>> status_for("exact", 5, 5), status_for("noise", 3, 5), status_for("exact", 0, 4)
    ('reproduced exactly', 'partly', 'not reproduced')
    >>> status_for("claim", holds=False), status_for("none")
    ('claim false', 'recomputed')
    """
    if comparison not in COMPARISONS:
        raise ValueError(f"unknown comparison {comparison!r}; valid: {list(COMPARISONS)}")
    if (matched is None) != (total is None):
        raise ValueError("give both matched and total, or neither")
    if total is not None:
        matched, total = int(matched), int(total)
        if not 0 <= matched <= total or total == 0:
            raise ValueError(f"matched={matched} must lie in 0..total={total}, total > 0")
    if comparison in ("none", "unavailable"):
        if total is not None or holds is not None:
            raise ValueError(f"comparison {comparison!r} compares nothing: "
                             "give no matched/total/holds")
        return "recomputed" if comparison == "none" else "not checkable"
    if comparison == "claim":
        if holds is None:
            if total is None:
                raise ValueError("a claim needs holds=True/False, or matched and total")
            holds = matched == total
        elif total is not None and bool(holds) != (matched == total):
            raise ValueError(f"holds={holds} contradicts matched={matched} of total={total}")
        return "claim holds" if holds else "claim false"
    if total is None:
        raise ValueError(f"comparison {comparison!r} needs matched and total")
    if matched == total:
        return "reproduced exactly" if comparison == "exact" else "within sampling noise"
    return "partly" if matched > 0 else "not reproduced"


RESULTS_FILE = "results.json"
ERRATA_FILE = "errata.json"

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(
            f"output name {name!r} is not a plain file stem: use letters, digits, '_', '-' or '.'"
        )
    return name


def _display(obj: Any) -> None:
    try:
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython is a dependency
        return
    display(obj)


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return False
    return get_ipython() is not None


def _markdown_cell_text(value: Any) -> str:
    text = "" if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def table_markdown(df, title: str, index: bool = False) -> str:
    """A MyST ``{table}`` directive with ``title`` holding ``df`` as a Markdown table."""
    frame = df.reset_index() if index else df
    header = "| " + " | ".join(_markdown_cell_text(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = [
        "| " + " | ".join(_markdown_cell_text(v) for v in row) + " |"
        for row in frame.itertuples(index=False, name=None)
    ]
    body = "\n".join([header, rule, *rows])
    return f":::{{table}} {_markdown_cell_text(title)}\n\n{body}\n:::\n"


def save_table(
    df,
    name: str,
    title: str | None = None,
    *,
    show: bool = True,
    index: bool = False,
    style: Callable | None = None,
    float_format: str | None = None,
) -> Path:
    """Write ``df`` to ``NAME.csv`` in the output folder and show it in the page with a title.

    Parameters
    ----------
    df : pandas.DataFrame
        The table. It is written in full; ``float_format`` only affects the page.
    name : str
        File stem, e.g. ``"table2_robustness"``.
    title : str
        The table's title in the page. Required when ``show`` is true.
    show : bool
        Display the table in the notebook (default) or only save it.
    index : bool
        Write and show the index as a column.
    style : callable, optional
        ``style(styler) -> styler`` to colour cells; the table is then shown as HTML with the
        title as its caption. Without it, the table is shown as a MyST table directive.
    float_format : str, optional
        Format for floats in the page, e.g. ``"{:.3f}"``.
    """
    _check_name(name)
    if show and not title:
        raise ValueError(f"table {name!r} is shown without a title: pass title='...'")
    path = output_dir() / f"{name}.csv"
    tmp = path.with_suffix(".csv.tmp")
    df.to_csv(tmp, index=index, lineterminator="\n")
    os.replace(tmp, path)
    if show and _in_kernel():
        if style is not None:
            styler = df.style
            if not index:
                styler = styler.hide(axis="index")
            if float_format:
                styler = styler.format(float_format, subset=df.select_dtypes("number").columns)
            styler = style(styler).set_caption(title).set_uuid(name)
            from IPython.display import HTML

            _display(HTML(styler.to_html()))
        else:
            shown = df
            if float_format:
                shown = df.copy()
                for col in shown.select_dtypes("float").columns:
                    shown[col] = shown[col].map(
                        lambda v: "" if v != v else float_format.format(v)  # nan -> empty
                    )
            from IPython.display import Markdown

            _display(Markdown(table_markdown(shown, title, index=index)))
    return path


def _deterministic_savefig(fig, path: Path, fmt: str, dpi: int) -> None:
    import matplotlib

    tmp = path.with_name(path.name + ".tmp")
    with matplotlib.rc_context({"svg.hashsalt": "rankbook", "svg.fonttype": "path"}):
        if fmt == "svg":
            metadata = {"Date": None}
        else:
            metadata = {"Software": None}
        fig.savefig(tmp, format=fmt, dpi=dpi, metadata=metadata, bbox_inches="tight")
    os.replace(tmp, path)


def save_figure(
    fig,
    name: str,
    caption: str,
    alt: str,
    *,
    show: bool = True,
    dpi: int = 110,
) -> Path:
    """Save ``fig`` as ``NAME.png`` and ``NAME.svg`` and show it in the page as a captioned figure.

    The figure is closed afterwards so that the notebook does not display it a second time.
    ``caption`` is MyST Markdown (math allowed); ``alt`` is the plain-text description for
    screen readers. Both are required.
    """
    _check_name(name)
    if not caption or not alt:
        raise ValueError(f"figure {name!r} needs both a caption and alt text")
    out = output_dir()
    png = out / f"{name}.png"
    _deterministic_savefig(fig, png, "png", dpi)
    _deterministic_savefig(fig, out / f"{name}.svg", "svg", dpi)
    if show and _in_kernel():
        import matplotlib.pyplot as plt

        plt.close(fig)
        rel = os.path.relpath(png, notebook_dir()).replace(os.sep, "/")
        alt_text = " ".join(str(alt).split())
        from IPython.display import Markdown

        _display(Markdown(f":::{{figure}} {rel}\n:alt: {alt_text}\n:width: 100%\n\n{caption}\n:::\n"))
    return png


def _append_record(filename: str, record: dict) -> None:
    path = output_dir() / filename
    records = json.loads(path.read_text()) if path.exists() else []
    records = [r for r in records if r.get("key") != record["key"]]
    records.append(record)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(records, indent=1, sort_keys=True, default=_jsonable) + "\n")
    os.replace(tmp, path)


def _jsonable(value):
    try:
        import numpy as np

        if isinstance(value, np.generic):
            return value.item()
    except ImportError:  # pragma: no cover
        pass
    raise TypeError(f"not JSON serialisable: {value!r}")


def record_result(
    artifact: str,
    paper: str,
    *,
    claim: str,
    published: str,
    reproduced: str,
    comparison: str,
    matched: int | None = None,
    total: int | None = None,
    unit: str = "cells",
    holds: bool | None = None,
    detail: str = "",
    section: str | None = None,
) -> dict:
    """Report one published artifact (a figure, table, proposition or example).

    The record feeds the page's verdict box, the dashboard and the landing summary. Its status
    is not an argument: :func:`status_for` derives it from ``comparison``, ``matched``,
    ``total`` and ``holds``, so the same rule applies everywhere.

    Parameters
    ----------
    artifact : str
        The paper's name for it, e.g. ``"Table 2, robustness rows"``.
    paper : str
        A key of :data:`PAPERS`.
    claim : str
        What the paper states or shows, in one short sentence (Markdown, math in ``$...$``).
    published, reproduced : str
        The published value(s) and the reproduced value(s), short (``"κ = 17"``,
        ``"198 cells"``, ``"149 match, 12 close, 37 differ"``). Computed, never typed in.
    comparison : str
        One of :data:`COMPARISONS`.
    matched, total : int, optional
        How many of the compared ``unit`` agreed.
    unit : str
        One of :data:`UNITS`.
    holds : bool, optional
        For ``comparison="claim"``: whether the claim holds.
    detail : str
        One line of why, computed from the notebook's results.
    section : str, optional
        The heading text of the page section that shows the artifact; the dashboard links to
        it.
    """
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; valid: {sorted(PAPERS)}")
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}; valid: {list(UNITS)}")
    for name, value in (("artifact", artifact), ("claim", claim), ("published", published),
                        ("reproduced", reproduced)):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"record_result needs a non-empty {name} string, got {value!r}")
    status = status_for(comparison, matched, total, holds)
    record = {
        "key": f"{paper}:{artifact}",
        "artifact": artifact,
        "paper": paper,
        "claim": claim,
        "published": published,
        "reproduced": reproduced,
        "comparison": comparison,
        "status": status,
        "matched": None if matched is None else int(matched),
        "total": None if total is None else int(total),
        "unit": unit,
        "holds": None if holds is None else bool(holds),
        "detail": detail,
        "section": section,
    }
    _append_record(RESULTS_FILE, record)
    return record


def record_erratum(paper: str, where: str, finding: str, evidence: str, kind: str = "") -> dict:
    """Report a discrepancy found in a paper, for the errata page.

    ``where`` locates it (e.g. ``"Appendix C, MSE"``), ``finding`` says what is wrong in one
    sentence and ``evidence`` gives the computed numbers that show it. ``kind`` is a short tag
    such as ``"typo"``, ``"false claim"``, ``"formula"`` or ``"internal contradiction"``.
    """
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; valid: {sorted(PAPERS)}")
    if not where or not finding or not evidence:
        raise ValueError("an erratum needs where, finding and evidence")
    record = {
        "key": f"{paper}:{where}:{finding[:60]}",
        "paper": paper,
        "where": where,
        "finding": finding,
        "evidence": evidence,
        "kind": kind,
    }
    _append_record(ERRATA_FILE, record)
    return record
