"""Every notebook executes with the two small parameter sets it declares (issues 2 and 13).

`smoke` shrinks the paper's settings; `alternate` is a set unlike the paper's (other sizes, other
lists, a user CSV where the notebook takes one), so that a notebook that only works for the
paper's values fails here. `make test` therefore fails when any notebook breaks. Each run's
records must also follow the status rule and carry a severity and readings.

Both sets run each notebook's cells in a plain Python process (no kernel start), with what the
page would display recorded for the same checks; one notebook's smoke set runs through papermill
and a kernel, as the build runs every page.
"""

from __future__ import annotations

import json

import pytest

from rankbook.book import pipeline

SPECS = pipeline.discover()


def test_there_are_notebooks():
    assert SPECS, "no notebooks found under notebooks/"


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_notebook_is_stored_clean_and_declares_what_the_pipeline_needs(spec):
    nb = json.loads(spec.path.read_text())
    dirty = [i for i, c in enumerate(nb["cells"])
             if c.get("outputs") or c.get("execution_count") is not None]
    assert not dirty, f"{spec.name}: cells {dirty} carry outputs; clear them before committing"
    assert spec.parameters, f"{spec.name}: no cell tagged 'parameters'"
    assert nb["metadata"].get("rankbook", {}).get("description"), f"{spec.name}: no description"
    assert spec.smoke, f"{spec.name}: no smoke parameters in its metadata"
    pipeline.check_parameters(spec, spec.smoke)  # smoke values have the defaults' types
    alternate = nb["metadata"]["rankbook"].get("alternate")
    assert alternate, f"{spec.name}: no alternate parameter set in its metadata"
    pipeline.check_parameters(spec, alternate)
    assert any(alternate[k] != spec.parameters[k].default for k in alternate), (
        f"{spec.name}: the alternate set equals the paper's settings")
    titles = [c for c in nb["cells"] if c["cell_type"] == "markdown"
              and "".join(c["source"]).lstrip().startswith("# ")]
    assert titles, f"{spec.name}: the first Markdown cell must start with a '# Title'"


@pytest.fixture(scope="module")
def set_runs(tmp_path_factory):
    """Every notebook's smoke and alternate sets, run as ``rankbook run NAME -p ...`` runs
    them but without a kernel (tests/extremes.py --sets), in two processes that split the
    notebooks. What a page would display is recorded for the same checks. A kernel's start
    cost about 1.5 s per run (issue 36: make test had grown past 600 s); the build executes
    every notebook through papermill and a kernel, and so does the test after this one, for
    one notebook."""
    import subprocess
    import sys
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    out = tmp_path_factory.mktemp("sets")
    here = Path(__file__).resolve().parent
    names = [s.name for s in SPECS]

    def run(part):
        proc = subprocess.run([sys.executable, str(here / "extremes.py"), "--sets",
                               str(out), *part], cwd=here.parent, capture_output=True,
                              text=True, timeout=3600)
        lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("[")]
        return {(x[0], x[1]): (x[2], x[4]) for x in lines} or {
            (which, n): ("error", proc.stderr[-3000:]) for n in part
            for which in ("smoke", "alternate")}

    with ThreadPoolExecutor(max_workers=2) as pool:
        parts = pool.map(run, [names[0::2], names[1::2]])
    return out, {k: v for part in parts for k, v in part.items()}


@pytest.mark.notebooks
@pytest.mark.parametrize("which", ["smoke", "alternate"])
@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_notebook_runs_with_its_parameter_sets(spec, which, set_runs):
    out, outcomes = set_runs
    outcome, message = outcomes.get((which, spec.name), ("error", "the runner did not reach it"))
    assert outcome == "ok", f"{spec.name} ({which}): {message}"
    folder = out / which / spec.name
    assert list(folder.glob("*.csv")), f"{spec.name} ({which}) saved no table"
    page = json.loads((folder / f"{spec.name}.ipynb").read_text())
    # the recorder kept what the page shows, so check_records reads its counts (a page leads
    # with its verdict: none shown would make that check read nothing)
    assert any(o["data"] for c in page["cells"] for o in c.get("outputs", [])), spec.name
    check_records(folder, spec.name)


#: The notebook the suite executes through papermill and a kernel, as the build does: a quick
#: one with a figure, a table and checked claims (the build executes every notebook this way).
KERNEL_RUN = "kendall_width_swap"


@pytest.mark.notebooks
def test_a_notebook_runs_through_papermill_and_a_kernel(tmp_path):
    spec = next(s for s in SPECS if s.name == KERNEL_RUN)
    out = tmp_path / "run"
    pipeline.execute(spec, dict(spec.smoke), notebook_out=out / f"{spec.name}.ipynb",
                     outputs_out=out)
    produced = {p.suffix for p in out.iterdir()}
    assert {".ipynb", ".csv", ".png"} <= produced, produced
    executed = json.loads((out / f"{spec.name}.ipynb").read_text())
    assert any(o.get("output_type") == "display_data" for c in executed["cells"]
               for o in c.get("outputs", [])), "the kernel displayed nothing"
    check_records(out, spec.name)


def check_records(folder, name):
    """Every record follows the status rule and belongs to the ledger; every erratum has an id,
    a severity on the one scale and its readings; a failing claim is explained by an erratum of
    its severity where the notebook found one; and every "N of M" the page prints for a claim is
    that claim's own count (one count per claim, issue 19)."""
    from rankbook.book import outputs, site
    from rankbook.ledger import claims

    book = claims.load_ledger()
    results = [claims.worded(r, book) for r in claims.read_records(folder / outputs.RESULTS_FILE)]
    for rec in results:
        outputs.check_status(rec)
    errata = claims.read_records(folder / outputs.ERRATA_FILE)
    for rec in errata:
        assert rec.get("id") in book.errata, f"{name}: an erratum without a ledger id: {rec}"
        rec.update(claims.worded_erratum(rec, book))
        assert rec["severity"] in claims.SEVERITIES, rec
        assert isinstance(rec["readings"], list), rec
        if rec.get("under"):
            assert rec["readings"], f"{rec['where']}: a verdict that changes must name its readings"
    for rec in results:
        assert rec.get("id") in book.claims, f"{name}: evidence for {rec.get('id')!r}, not in the ledger"
        for key in site.VISIBLE_FIELDS:
            value = rec.get(key)
            texts = value if isinstance(value, list) else list(value) if isinstance(value, dict) else [value]
            for text in texts:
                assert not site.internal_words(text), (name, rec["id"], key, text)
    # other parameters may find other discrepancies, or none: only what was recorded is checked
    problems = claims.check_consistency(book, [{**r, "notebook": name} for r in results],
                                        [{**e, "notebook": name} for e in errata])
    problems = [p for p in problems if "no recorded erratum" not in p]
    assert not problems, problems
    page = json.loads((folder / f"{name}.ipynb").read_text())
    text = []
    for cell in page["cells"]:
        if cell["cell_type"] == "markdown":
            text.append("".join(cell["source"]))
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            for mime in ("text/markdown", "text/html"):
                if mime in data:
                    text.append("".join(data[mime]))
    conflicts = site.count_conflicts("\n".join(text), results)
    assert not conflicts, f"{name}: counts that are not their artifact's own: {conflicts[:3]}"
