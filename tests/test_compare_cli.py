"""``rankbook compare`` (issue 22): TREC runs scored with ``rankbook.ir.evaluate_run`` and
compared with ``rankbook.stats.compare``.

The good case checks every number the command writes against the two library calls made
directly, and the t-test and Holm p-values against scipy and statsmodels. Each bad input exits
with status 2 and one line naming the problem (and ``file:line`` for a malformed file), writes
nothing and never shows a traceback; an unexpected error exits 1 in one line, Ctrl-C 130.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from rankbook import conventions, stats
from rankbook.book import cli, compare_cmd
from rankbook.ir import evaluate_run, read_qrels, read_run

N_QUERIES = 12  # at most 20: the randomisation test is exact, so the numbers are exact too
SYSTEMS = {"bm25": 0.0, "dense": 0.8, "hybrid": 1.2}  # quality shift of each system's scores


def _write_collection(folder: Path, seed: int = 7) -> tuple[Path, list[Path]]:
    """A qrels file and three runs of growing quality (one tag per run, ties, a comment)."""
    rng = np.random.default_rng(seed)
    qrels_lines, runs = ["# judgements of a toy collection"], {s: [] for s in SYSTEMS}
    for q in range(1, N_QUERIES + 1):
        docs = [f"d{q}-{i}" for i in range(15)]
        rel = rng.choice([0, 0, 0, 1, 2], size=len(docs))
        qrels_lines += [f"{q} 0 {d} {r}" for d, r in zip(docs, rel)]
        for s, shift in SYSTEMS.items():
            score = np.round(rng.normal(size=len(docs)) + shift * rel, 1)  # rounding: ties
            order = np.argsort(-score, kind="stable")
            runs[s] += [f"{q} Q0 {docs[i]} {r + 1} {score[i]:.1f} tag-{s}"
                        for r, i in enumerate(order[:10])]
    qrels = folder / "qrels.txt"
    qrels.write_text("\n".join(qrels_lines) + "\n")
    paths = []
    for s, lines in runs.items():
        p = folder / f"{s}.run"
        p.write_text("\n".join(lines) + "\n")
        paths.append(p)
    return qrels, paths


@pytest.fixture
def collection(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return _write_collection(tmp_path)


def _direct(qrels, runs, measures, baseline="bm25", **kw):
    """The comparison made with the library calls the command wraps."""
    tables = [evaluate_run(read_qrels(qrels), read_run(p), measures).per_query.assign(system=p.stem)
              for p in runs]
    return stats.compare(pd.concat(tables, ignore_index=True), baseline=baseline,
                         measures=measures, **kw)


def _run(capsys, argv):
    status = cli.main(["compare", *map(str, argv)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


def test_three_runs_equal_the_library_called_directly(capsys, collection, tmp_path):
    qrels, runs = collection
    status, out, err = _run(capsys, [*runs, "--qrels", qrels, "--measures", "nDCG@10,AP,P@5",
                                     "--latex", "t.tex", "--pairs", "pairs.csv", "--seed", "3",
                                     "--resamples", "2000"])
    assert status == 0, err
    ref = _direct(qrels, runs, ["nDCG@10", "AP", "P@5"], n_resamples=2000, seed=3)
    got = pd.read_csv(tmp_path / "compare.csv", keep_default_na=False, na_values=[""])
    assert list(got.columns) == ["system", "run_file", *ref.table.columns[1:]]
    assert got["run_file"].tolist() == [str(p) for p in runs] * 3  # measure by measure
    for col in ["mean", "ci_low", "ci_high", "diff", "diff_low", "diff_high", "effect_size",
                "p_value", "p_corrected"]:
        np.testing.assert_allclose(got[col].to_numpy(float), ref.table[col].to_numpy(float),
                                   rtol=1e-15, equal_nan=True, err_msg=col)
    assert got["system"].tolist() == ref.table["system"].tolist()
    assert got["mark"].fillna("").tolist() == ref.table["mark"].tolist()
    assert got["n_queries"].eq(N_QUERIES).all()
    # something is found: the best system beats the baseline on some measure
    assert ref.table["significant"].fillna(False).any() and ref.table["mark"].str.len().gt(0).any()
    assert ref.report() in out and "3 runs scored against" in out and "trec_eval" in out
    # the tied-with-the-best set, with the test and correction, is printed and in the CSV
    assert ref.tied_statement() in out and "Holm-corrected over those 2 tests" in out
    assert got["tied_with_best"].tolist() == ref.table["tied_with_best"].tolist()
    assert (tmp_path / "t.tex").read_text() == ref.to_latex()
    pairs = pd.read_csv(tmp_path / "pairs.csv")
    np.testing.assert_allclose(pairs["p_corrected"], ref.pairs["p_corrected"], rtol=1e-15)
    assert "wrote compare.csv, t.tex, pairs.csv" in err
    assert not list(tmp_path.glob(".*.tmp"))


def test_t_test_and_holm_equal_scipy_and_statsmodels(capsys, collection, tmp_path):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    qrels, runs = collection
    status, _, err = _run(capsys, [*runs, "--qrels", qrels, "--measures", "AP", "--test", "t",
                                   "--correction", "holm", "--out", "t.csv"])
    assert status == 0, err
    got = pd.read_csv(tmp_path / "t.csv").set_index("system")
    per = {p.stem: evaluate_run(read_qrels(qrels), read_run(p), "AP").per_query["value"].to_numpy()
           for p in runs}
    raw = [sps.ttest_rel(per[s], per["bm25"]).pvalue for s in ("dense", "hybrid")]
    np.testing.assert_allclose(got.loc[["dense", "hybrid"], "p_value"], raw, rtol=1e-12)
    holm = multitest.multipletests(raw, method="holm")[1]
    np.testing.assert_allclose(got.loc[["dense", "hybrid"], "p_corrected"], holm, rtol=1e-12)
    np.testing.assert_allclose(got.loc["bm25", "mean"], per["bm25"].mean(), rtol=1e-15)


def test_options_baseline_names_all_pairs_missing(capsys, collection, tmp_path):
    qrels, runs = collection
    # run tags as names; the baseline by name; a second copy of a run gets a unique name
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "bm25.run").write_text(runs[0].read_text())
    status, out, err = _run(capsys, [runs[0], runs[1], copy / "bm25.run", "--qrels", qrels,
                                     "--measures", "AP", "--baseline", "dense", "--out", "a.csv",
                                     "--resamples", "200"])
    assert status == 0, err
    got = pd.read_csv(tmp_path / "a.csv")
    assert got["system"].tolist() == ["bm25", "dense", "bm25-2"]
    assert "same file" not in err  # a copy is another file
    status, _, err = _run(capsys, [runs[0], runs[1], runs[0], "--qrels", qrels, "--measures", "AP",
                                   "--resamples", "200", "--out", "twice.csv"])
    assert status == 0 and "bm25.run is given twice (runs 1 and 3): the same system is compared" in err
    assert got.loc[got.system == "dense", "diff"].isna().all()
    assert got.loc[got.system == "bm25", "diff"].iloc[0] == pytest.approx(
        got.loc[got.system == "bm25-2", "diff"].iloc[0])
    status, _, err = _run(capsys, [*runs, "--qrels", qrels, "--measures", "AP", "--names", "tag",
                                   "--all-pairs", "--out", "b.csv", "--pairs", "bp.csv",
                                   "--resamples", "200"])
    assert status == 0, err
    assert pd.read_csv(tmp_path / "b.csv")["system"].tolist() == ["tag-bm25", "tag-dense",
                                                                  "tag-hybrid"]
    assert len(pd.read_csv(tmp_path / "bp.csv")) == 3  # every pair
    # one file holding two systems' tags cannot be named by its tag
    mixed = runs[2].read_text().splitlines()
    mixed[-1] = mixed[-1].rsplit(None, 1)[0] + " other-system"
    (tmp_path / "mixed.run").write_text("\n".join(mixed) + "\n")
    status, _, err = _run(capsys, [runs[0], tmp_path / "mixed.run", "--qrels", qrels, "--measures",
                                   "AP", "--names", "tag", "--resamples", "200"])
    assert status == 2 and "mixed.run: its lines carry more than one run tag" in err
    assert "'other-system' later" in err and "--names stem" in err
    status, _, err = _run(capsys, [runs[0], tmp_path / "mixed.run", "--qrels", qrels, "--measures",
                                   "AP", "--resamples", "200", "--out", "m.csv"])
    assert status == 0, err  # named by file, the tags do not matter
    # a run that misses a judged query: refused, then scored 0 or dropped on request
    lines = runs[2].read_text().splitlines()
    (tmp_path / "short.run").write_text("\n".join(x for x in lines if not x.startswith("3 ")))
    base = [runs[0], tmp_path / "short.run", "--qrels", qrels, "--measures", "AP",
            "--resamples", "200"]
    status, _, err = _run(capsys, [*base, "--out", "c.csv"])
    assert status == 2 and "short.run: no score for 1 of the 12 queries" in err
    assert "'3'" in err and "--missing zero" in err and not (tmp_path / "c.csv").exists()
    for how, n in (("zero", 12), ("drop", 11)):
        status, _, err = _run(capsys, [*base, "--missing", how, "--out", f"{how}.csv"])
        assert status == 0 and f"--missing {how}" in err
        assert pd.read_csv(tmp_path / f"{how}.csv")["n_queries"].eq(n).all()
    zero = pd.read_csv(tmp_path / "zero.csv").set_index("system")
    per = evaluate_run(read_qrels(qrels), read_run(tmp_path / "short.run"), "AP", "trec_eval_9").per_query
    assert zero.loc["short", "mean"] == pytest.approx(per["value"].sum() / 12, rel=1e-15)


def test_an_existing_output_is_kept_unless_force(capsys, collection, tmp_path):
    qrels, runs = collection
    (tmp_path / "compare.csv").write_text("precious\n")
    status, out, err = _run(capsys, [*runs, "--qrels", qrels, "--resamples", "100"])
    assert status == 2 and "--out 'compare.csv' exists; pass --force" in err and not out
    assert (tmp_path / "compare.csv").read_text() == "precious\n"
    status, _, err = _run(capsys, [*runs, "--qrels", qrels, "--resamples", "100", "--force"])
    assert status == 0, err
    assert (tmp_path / "compare.csv").read_text().startswith("system,run_file,")


#: name -> (file content, run or qrels, what the message must say)
BAD_FILES = {
    "score": ("1 Q0 a 1 3 t\n1 Q0 b 2 high t\n", "run",
              ["bad.run:2:", "score of document 'b'", "not a number: 'high'"]),
    "columns": ("1 Q0 a 1 3\n", "run", ["bad.run:1:", "6 whitespace-separated columns"]),
    "duplicate": ("1 Q0 a 1 3 t\n1 Q0 a 2 2 t\n", "run", ["bad.run:2:", "appears twice"]),
    "empty run": ("# nothing\n\n", "run", ["bad.run: holds no run lines"]),
    "not judged": ("99 Q0 a 1 3 t\n", "run", ["bad.run: none of its 1 queries ('99')",
                                               "is judged in"]),
    "qrels columns": ("1 0 a\n", "qrels", ["bad.qrels:1:", "4 whitespace-separated"]),
    "qrels value": ("1 0 a 1\n1 0 b ?\n", "qrels", ["bad.qrels:2:", "relevance of document 'b'"]),
    "qrels fraction": ("1 0 d1-0 0.5\n", "qrels", ["scored against ", "bad.qrels: ",
                                                    "whole-number relevance"]),
    "utf-16": (b"\xff\xfe\x00", "run", ["bad.run: UTF-16 text", "iconv -f UTF-16"]),
    "binary": (b"1 Q0 a 1 3 t\n\xff\x80\n", "run", ["bad.run:2: not a UTF-8 text file"]),
    "nul": (b"1 Q0 a 1 3 t\n1\x00 Q0 b 2 2 t\n", "run",
            ["bad.run:2: a control character '\\x00' (NUL)"]),
    "qrels exponent": ("1 0 d1-0 1e2\n", "qrels", ["bad.qrels:1: the relevance of document "
                                                    "'d1-0' for query '1' is written '1e2'",
                                                    "C's atol"]),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_malformed_files_exit_2_naming_file_and_line(capsys, collection, tmp_path, case):
    qrels, runs = collection
    content, kind, needles = BAD_FILES[case]
    bad = tmp_path / ("bad.run" if kind == "run" else "bad.qrels")
    (bad.write_bytes if isinstance(content, bytes) else bad.write_text)(content)
    argv = ([runs[0], bad, "--qrels", qrels] if kind == "run" else [*runs[:2], "--qrels", bad])
    status, out, err = _run(capsys, [*argv, "--measures", "AP", "--resamples", "100"])
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith("rankbook compare: ")
    for needle in needles:
        assert needle in err, (needle, err)
    assert not out and not (tmp_path / "compare.csv").exists()


@pytest.mark.parametrize("extra, needles", [
    (["--measures", "nDCG@10,XYZ"], ["measure 'XYZ' is not supported by rankbook (no profile "
                                      "computes it)"]),
    (["--measures", "RR@10"], ["not supported by the trec_eval profile", "it offers nDCG",
                               "--convention chooses another tool"]),
    (["--measures", "AP,AP"], ["'AP' is listed twice"]),
    (["--measures", "AP,,P@5"], ["has an empty name"]),
    (["--convention", "spss"], ["--convention 'spss' is not one of trec_eval, trec_eval_9, pytrec_eval, "
                                "ir_measures, ranx, sklearn, torchmetrics"]),
    (["--test", "anova"], ["--test 'anova' is not one of randomization, t, wilcoxon"]),
    (["--correction", "fdr"], ["--correction 'fdr' is not one of holm, bonferroni, bh, by, none"]),
    (["--baseline", "bm26"], ["--baseline 'bm26' is not one of the systems: bm25, dense, hybrid"]),
    (["--baseline", "dense", "--all-pairs"], ["give --baseline or --all-pairs, not both"]),
    (["--out", "QRELS"], ["is one of the input files"]),
    (["--out", "x.csv", "--latex", "./x.csv"], ["--out and --latex name the same file"]),
    (["--out", "nowhere/x.csv"], ["the folder 'nowhere' does not exist"]),
    (["--confidence", "1.5"], ["--confidence: must be between 0 and 1"]),
    (["--resamples", "0"], ["--resamples: must be a positive whole number"]),
    (["--resamples", "1"], ["--resamples 1 is too few", "use at least 40"]),
    (["--resamples", "100", "--confidence", "0.99"], ["--resamples 100 is too few", "at least 200"]),
    (["--missing", "ignore"], ["invalid choice: 'ignore'", "'error', 'zero', 'drop'"]),
])
def test_bad_options_exit_2(capsys, collection, tmp_path, extra, needles):
    qrels, runs = collection
    extra = [str(qrels) if x == "QRELS" else x for x in extra]
    try:
        status, out, err = _run(capsys, [*runs, "--qrels", qrels, *extra])
    except SystemExit as exc:  # argparse refuses the value itself
        status = exc.code
        out, err = capsys.readouterr()
    assert status == 2, err
    for needle in needles:
        assert needle in err, (needle, err)
    assert not out and not (tmp_path / "compare.csv").exists() and not (tmp_path / "x.csv").exists()
    assert qrels.read_text().startswith("# judgements")


def test_fewer_than_two_runs_missing_files_and_ranx_mismatch(capsys, collection, tmp_path):
    qrels, runs = collection
    status, _, err = _run(capsys, [runs[0], "--qrels", qrels])
    assert status == 2 and "at least two run files, got 1" in err
    status, _, err = _run(capsys, ["--qrels", qrels])
    assert status == 2 and "at least two run files, got 0" in err
    status, _, err = _run(capsys, [runs[0], tmp_path / "nope.run", "--qrels", qrels])
    assert status == 2 and "nope.run: no such file" in err
    status, _, err = _run(capsys, [*runs[:2], "--qrels", tmp_path])
    assert status == 2 and "is a folder, not a qrels file" in err
    # ranx refuses a run without a judged query, as the convention decides
    (tmp_path / "short.run").write_text(
        "\n".join(x for x in runs[1].read_text().splitlines() if not x.startswith("5 ")))
    status, _, err = _run(capsys, [runs[0], tmp_path / "short.run", "--qrels", qrels,
                                   "--convention", "ranx", "--measures", "AP"])
    assert status == 2 and "short.run scored against" in err and "ranx profile refuses" in err
    assert not (tmp_path / "compare.csv").exists()


def test_help_lists_the_library_choices(capsys):
    with pytest.raises(SystemExit):
        cli.main(["compare", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name in [*conventions.CONVENTIONS, *stats.TESTS, *stats.CORRECTIONS,
                 *stats._TEST_ALIASES]:  # the other spellings --test accepts are named too
        assert name in text, name
    assert "nDCG@10,AP" in text


def test_unexpected_error_is_one_line_exit_1(capsys, collection, monkeypatch):
    qrels, runs = collection

    def boom(*a, **k):
        raise RuntimeError("boom")

    monkeypatch.setattr(stats, "compare", boom)
    status, out, err = _run(capsys, [*runs, "--qrels", qrels])
    assert status == 1 and err.strip() == (
        "rankbook compare: internal error: RuntimeError: boom (set RANKBOOK_DEBUG=1 to see the "
        "traceback)")
    assert not Path("compare.csv").exists()


def test_a_failed_write_keeps_the_old_file_and_no_temporary(capsys, collection, tmp_path,
                                                            monkeypatch):
    qrels, runs = collection
    (tmp_path / "compare.csv").write_text("old\n")

    def full(src, dst):
        raise OSError(28, "No space left on device", str(dst))

    monkeypatch.setattr(compare_cmd.os, "replace", full)
    status, _, err = _run(capsys, [*runs, "--qrels", qrels, "--force", "--resamples", "100"])
    assert status == 1 and "No space left on device" in err and err.count("\n") == 1
    assert (tmp_path / "compare.csv").read_text() == "old\n"
    assert not list(tmp_path.glob(".*.tmp"))


def test_ctrl_c_exits_130_and_writes_nothing(capsys, collection, tmp_path, monkeypatch):
    qrels, runs = collection
    real = stats.compare

    def interrupted(*a, **k):
        os.kill(os.getpid(), signal.SIGINT)  # a real SIGINT, handled like Ctrl-C in a terminal
        time.sleep(5)
        return real(*a, **k)

    monkeypatch.setattr(stats, "compare", interrupted)
    status, out, err = _run(capsys, [*runs, "--qrels", qrels])
    assert status == 130 and "interrupted by SIGINT; no output was written" in err
    assert not out and not list(tmp_path.glob("*.csv")) and not list(tmp_path.glob(".*.tmp"))


def test_the_installed_command(collection, tmp_path):
    """The real entry point in a fresh interpreter: report on stdout, status 0, then 2."""
    qrels, runs = collection
    cmd = [sys.executable, "-m", "rankbook.book.cli", "compare", *map(str, runs), "--qrels",
           str(qrels), "--measures", "nDCG@10", "--resamples", "200"]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "#  System" in done.stdout and "hybrid" in done.stdout
    again = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert again.returncode == 2 and "exists; pass --force" in again.stderr
    assert "Traceback" not in again.stderr


def test_names_of_compressed_runs_and_of_pipes(capsys, collection, tmp_path):
    """``bm25.run.gz`` is bm25 (it was "bm25.run"); a run read from a pipe (``<(cat x)``,
    /dev/fd/63) is named by its position (it was "63")."""
    import gzip
    import os
    import threading

    qrels, runs = collection
    gz = tmp_path / "bm25.run.gz"
    gz.write_bytes(gzip.compress(runs[0].read_bytes()))
    read_end, write_end = os.pipe()
    text = runs[1].read_bytes()

    def feed():
        with os.fdopen(write_end, "wb") as fh:
            fh.write(text)

    threading.Thread(target=feed, daemon=True).start()
    status, _, err = _run(capsys, [gz, f"/dev/fd/{read_end}", "--qrels", qrels, "--measures",
                                   "AP", "--out", "n.csv", "--resamples", "200"])
    os.close(read_end)
    assert status == 0, err
    assert pd.read_csv(tmp_path / "n.csv")["system"].tolist() == ["bm25", "run2"]


def test_standard_input_is_named_as_the_reader_names_it(capsys, collection, monkeypatch):
    """A run given as '-' is '<stdin>' in compare's own refusals, as in the reader's."""
    import io

    qrels, runs = collection
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"999 Q0 a 1 1.0 x\n")))
    status, _, err = _run(capsys, [runs[0], "-", "--qrels", qrels, "--measures", "AP"])
    assert status == 2 and err.startswith("rankbook compare: <stdin>: none of its 1 queries "
                                          "('999') is judged in "), err


def test_choice_options_take_any_case(capsys, collection):
    qrels, runs = collection
    status, _, err = _run(capsys, [*runs[:2], "--qrels", qrels, "--measures", "AP", "--order", "Score",
                                   "--names", "STEM", "--missing", "Error", "--resamples", "200",
                                   "--out", "case.csv"])
    assert status == 0, err
    try:
        status, _, err = _run(capsys, [*runs[:2], "--qrels", qrels, "--order", "Ranked"])
    except SystemExit as exc:
        status, err = exc.code, capsys.readouterr().err
    assert status == 2 and "invalid choice" in err


def test_a_relevance_threshold_no_judgement_reaches_is_noted(capsys, collection):
    qrels, runs = collection
    top = int(read_qrels(qrels)["relevance"].max())
    status, _, err = _run(capsys, [*runs[:2], "--qrels", qrels, "--measures", f"P(rel={top + 1})@5,AP",
                                   "--resamples", "200", "--out", "rel.csv"])
    assert status == 0, err
    assert f"P(rel={top + 1})@5: no document in" in err and f"(the highest is {top})" in err
    assert "AP: no document" not in err
    got = pd.read_csv("rel.csv")
    assert (got.loc[got.measure == f"P(rel={top + 1})@5", "mean"] == 0).all()
