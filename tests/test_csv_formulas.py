"""No formula in a CSV output (issue 37, item 9): a run tag such as ``=HYPERLINK("http://x")``
reaches every CSV the project writes as text a spreadsheet shows, never as a formula, and a
negative number stays a number."""

from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook.book import cli, csvsafe, explorer, outputs, sweep
from rankbook.ledger.paths import OUTPUT_ENV, project_root

TAG = '=HYPERLINK("http://x")'
HOSTILE = [TAG, "+1+1", "-2+3", "@SUM(A1:A2)", "\t=1", "\r=1", "'=already quoted"]
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|nan)", re.I)
EXAMPLES = project_root() / "examples" / "reproduce"


def cells(path: Path) -> list[str]:
    with open(path, newline="") as fh:
        return [c for row in csv.reader(fh) for c in row]


def assert_no_formula(path: Path) -> list[str]:
    """Every cell of the CSV at ``path`` reads as text or a number in a spreadsheet."""
    got = cells(path)
    live = [c for c in got if c[:1] in csvsafe.FORMULA_STARTS and not NUMBER.fullmatch(c)]
    assert not live, f"{path.name}: cells a spreadsheet runs as formulas: {live[:5]}"
    return got


# ---------------------------------------------------------------------------------- the rule
@given(st.text(max_size=12))
@settings(max_examples=300, deadline=None)
def test_the_guard_is_reversible_and_leaves_no_formula(text):
    out = csvsafe.neutral_cell(text)
    assert csvsafe.restore_cell(out) == text
    assert out[:1] not in csvsafe.FORMULA_STARTS or NUMBER.fullmatch(out)


def test_numbers_stay_numbers():
    df = pd.DataFrame({"tag": HOSTILE[:3], "delta": [-0.5, -1.0, 2.0], "n": [-1, 0, 1],
                       "as_text": ["-0.25", "+3", "-inf"]})
    text = csvsafe.csv_text(df)
    back = pd.read_csv(__import__("io").StringIO(text))
    assert back["delta"].tolist() == [-0.5, -1.0, 2.0] and back["n"].tolist() == [-1, 0, 1]
    assert back["as_text"].astype(str).tolist() == ["-0.25", "3.0", "-inf"]  # numbers, unquoted
    assert back["tag"].tolist() == ["'" + TAG, "'+1+1", "'-2+3"]


# ----------------------------------------------------------------------------- every writer
def test_save_table_and_the_comparison_grid(tmp_path, monkeypatch):
    monkeypatch.setenv(OUTPUT_ENV, str(tmp_path))
    df = pd.DataFrame({"run": HOSTILE, "score": [-0.5] * len(HOSTILE)})
    df[TAG] = 1.0  # a header too
    path = outputs.save_table(df, "t", show=False)
    got = assert_no_formula(path)
    assert "'" + TAG in got and "-0.5" in got
    grid = pd.DataFrame([[0.5, -0.25]], index=[TAG], columns=["@x", "y"])
    assert_no_formula(outputs.save_comparison_grid(grid, grid, "g", title="G"))


def write_tagged(folder: Path, tag: str = TAG) -> dict[str, Path]:
    """The example runs of ``rankbook reproduce`` with their first topic and the run tag of
    the original baseline replaced by hostile text."""
    out = {}
    for src in sorted(EXAMPLES.glob("*.txt")):
        text = src.read_text()
        text = re.sub(r"^301 ", tag + " ", text, flags=re.M)
        text = re.sub(r" orig_baseline$", " " + tag, text, flags=re.M)
        out[src.stem] = folder / src.name
        out[src.stem].write_text(text)
    return out


def test_compare_csv_and_its_pairs(tmp_path, monkeypatch, capsys):
    f = write_tagged(tmp_path)
    monkeypatch.chdir(tmp_path)
    status = cli.main(["compare", str(f["orig_baseline"]), str(f["rep_baseline"]),
                       "--qrels", str(f["qrels"]), "--names", "tag", "--resamples", "200",
                       "--pairs", "pairs.csv"])
    assert status == 0, capsys.readouterr().err
    got = assert_no_formula(tmp_path / "compare.csv")
    assert "'" + TAG in got
    assert any(c.startswith("-") and NUMBER.fullmatch(c) for c in got)  # a negative difference
    assert "'" + TAG in assert_no_formula(tmp_path / "pairs.csv")


def test_reproduce_csv_and_per_topic(tmp_path, monkeypatch, capsys):
    f = write_tagged(tmp_path)
    monkeypatch.chdir(tmp_path)
    status = cli.main(["reproduce", "--orig-baseline", str(f["orig_baseline"]),
                       "--orig-advanced", str(f["orig_advanced"]),
                       "--rep-baseline", str(f["rep_baseline"]),
                       "--rep-advanced", str(f["rep_advanced"]), "--qrels", str(f["qrels"]),
                       "--resamples", "200", "--per-topic", "topics.csv"])
    assert status == 0, capsys.readouterr().err
    assert_no_formula(tmp_path / "reproduce.csv")
    assert "'" + TAG in assert_no_formula(tmp_path / "topics.csv")


def test_eval_csv(tmp_path, monkeypatch, capsys):
    """``rankbook eval --format csv``: the hostile run tag (the runid column) and query id are
    text, the values numbers, to standard output and to --out alike."""
    f = write_tagged(tmp_path)
    monkeypatch.chdir(tmp_path)
    status = cli.main(["eval", "-q", "-m", "map", "-m", "P.5", "--format", "csv", "--out", "e.csv",
                       str(f["qrels"]), str(f["orig_baseline"])])
    assert status == 0, capsys.readouterr().err
    got = assert_no_formula(tmp_path / "e.csv")
    assert "'" + TAG in got and got.count("'" + TAG) > 2  # the tag of every row, the query
    assert cli.main(["eval", "-m", "map", "--format", "csv", str(f["qrels"]),
                     str(f["orig_baseline"])]) == 0
    (tmp_path / "stdout.csv").write_text(capsys.readouterr().out)
    assert "'" + TAG in assert_no_formula(tmp_path / "stdout.csv")


def test_sweep_combined_tables(tmp_path):
    """A swept value and a table cell with a formula's start: the combined table guards both,
    once (a point's CSV, guarded already, is not quoted twice)."""
    points = tmp_path / "points"
    for slug, tag in (("a", TAG), ("b", "plain")):
        (points / slug).mkdir(parents=True)
        csvsafe.write_csv(pd.DataFrame({"label": [tag, "@x"], "v": [-1.5, 2.0]}),
                          points / slug / "value.csv")
    recs = [{"status": "ran", "slug": "a", "params": {"tag": TAG}},
            {"status": "reused", "slug": "b", "params": {"tag": "plain"}},
            {"status": "failed", "slug": "c", "params": {"tag": "@fail"}}]
    assert sweep.combine(tmp_path, recs, ["tag"], points) == ["value"]
    got = assert_no_formula(tmp_path / "combined" / "value.csv")
    assert got.count("'" + TAG) == 3 and "''" + TAG not in got and "'@fail" in got
    assert "-1.5" in got


def test_explorer_tables_read_back_as_written(tmp_path):
    df = pd.DataFrame({"metric": [TAG, "tau"], "value": [-0.5, 0.5]})
    path = csvsafe.write_csv(df, tmp_path / "grid.csv")
    assert_no_formula(path)
    rows = explorer.read_rows(path)  # the chart shows the label, not the guard
    assert [r["metric"] for r in rows] == [TAG, "tau"] and rows[0]["value"] == -0.5


def test_rows_of_a_dict_writer(tmp_path):
    """The claims and errata CSVs write rows with ``csv.DictWriter``: ``neutral_row``."""
    path = tmp_path / "claims.csv"
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["id", "claim", "total"], lineterminator="\n")
        w.writeheader()
        w.writerow(csvsafe.neutral_row({"id": "A-1", "claim": TAG, "total": -3}))
    assert "'" + TAG in assert_no_formula(path)


@pytest.mark.skipif(shutil.which("true") is None, reason="a POSIX system")
def test_every_csv_writer_goes_through_the_guard():
    """No module of the machinery writes a CSV by itself (``to_csv``, ``csv.writer``), except
    through :mod:`rankbook.book.csvsafe`: a module that keeps its own ``csv.DictWriter`` (the
    claims and errata CSVs of ``site.py``) passes every row through ``neutral_row``."""
    book = project_root() / "src" / "rankbook" / "book"
    found = set()
    for p in book.glob("*.py"):
        text = p.read_text()
        if p.name == "csvsafe.py" or not re.search(r"\.to_csv\(|csv\.(Dict)?[Ww]riter\(", text):
            continue
        rows = re.findall(r"\.writerows?\((.{0,12})", text)
        if ".to_csv(" in text or not rows or not all(r.startswith("neutral_row(") for r in rows):
            found.add(p.name)
    assert not found, sorted(found)
