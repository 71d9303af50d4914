"""``rankbook reproduce`` (issue 29): the report, the CSV and plot it writes, and every refusal
(exit status 2, one line naming the problem and ``file:line``, nothing written)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rankbook import repro
from rankbook.book import cli

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "reproduce"
ROLES = ("orig_baseline", "orig_advanced", "rep_baseline", "rep_advanced")


@pytest.fixture
def ex(tmp_path):
    for f in EXAMPLES.glob("*.txt"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def _argv(d: Path, **over):
    args = {"orig_baseline": d / "orig_baseline.txt", "orig_advanced": d / "orig_advanced.txt",
            "rep_baseline": d / "rep_baseline.txt", "rep_advanced": d / "rep_advanced.txt",
            "qrels": d / "qrels.txt", "out": d / "out.csv", "resamples": "300"}
    args.update(over)
    argv = ["reproduce"]
    for k, v in args.items():
        if v is None:
            continue
        argv += [f"--{k.replace('_', '-')}", str(v)]
    return argv


def _refused(capsys, argv, *needles):
    rc = cli.main(argv)
    err = capsys.readouterr().err.strip()
    assert rc == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for n in needles:
        assert n in err, (n, err)
    return err


def test_examples_print_the_report_and_write_csv_and_plot(ex, capsys):
    argv = _argv(ex) + ["--plot", str(ex / "plane.png"), "--per-topic", str(ex / "pt.csv")]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("Reproducibility:")
    for word in ("KTU mean", "RBO mean", "RMSE", "nRMSE", "ER", "ΔRI", "paired t-test",
                 "ir_metadata of", "research goal.description: toy advanced system"):
        assert word in out, word
    table = pd.read_csv(ex / "out.csv")
    direct = repro.reproduce(*(ex / f"{r}.txt" for r in ROLES), ex / "qrels.txt",
                             measures=["AP", "nDCG@10", "P@10"], n_resamples=300)
    assert np.allclose(table["value"], direct.aggregate["value"], equal_nan=True)
    assert np.allclose(table["low"], direct.aggregate["low"], equal_nan=True)
    assert len(pd.read_csv(ex / "pt.csv")) == len(direct.per_topic)
    assert (ex / "plane.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_outputs_get_the_mode_of_a_new_file_not_the_temporary_files(ex, capsys):
    """Written atomically through a temporary file (created 0o600), the outputs still get the
    mode any new file gets under the umask: readable by others under the usual 022."""
    import os
    import stat

    old = os.umask(0o022)
    try:
        argv = _argv(ex) + ["--plot", str(ex / "plane.png"), "--per-topic", str(ex / "pt.csv")]
        assert cli.main(argv) == 0
    finally:
        os.umask(old)
    for name in ("out.csv", "pt.csv", "plane.png"):
        assert stat.S_IMODE((ex / name).stat().st_mode) == 0o644, name


def test_replicability_with_other_qrels(ex, capsys):
    for r in ("rep_baseline", "rep_advanced"):  # other topics: 301.. become 401..
        text = (ex / f"{r}.txt").read_text().replace("\n30", "\n40")
        (ex / f"{r}.txt").write_text(("4" + text[1:]) if text.startswith("30") else text)
    (ex / "qrels_rep.txt").write_text("".join(("4" + line[1:]) + "\n" for line in
                                              (ex / "qrels.txt").read_text().splitlines()))
    assert cli.main(_argv(ex, qrels_rep=ex / "qrels_rep.txt")) == 0
    out = capsys.readouterr().out
    assert out.startswith("Replicability:") and "unpaired t-test" in out and "KTU" not in out


def test_refuses_runs_for_different_topics(ex, capsys):
    for r in ("rep_baseline", "rep_advanced"):  # the reproduction lost topic 306
        lines = (ex / f"{r}.txt").read_text().splitlines(keepends=True)
        (ex / f"{r}.txt").write_text("".join(x for x in lines if not x.startswith("306 ")))
    first = next(i for i, x in enumerate((ex / "orig_baseline.txt").read_text().splitlines(), 1)
                 if x.startswith("306 "))
    _refused(capsys, _argv(ex), f"orig_baseline.txt:{first}: runs for different topics",
             "rep_baseline.txt (--rep-baseline) has no line for 1 topic(s)", "'306'")
    assert not (ex / "out.csv").exists()


def test_refuses_baseline_and_advanced_on_different_topics(ex, capsys):
    with open(ex / "orig_advanced.txt", "a") as fh:
        fh.write("399 Q0 docX 1 1.0 t\n")
    _refused(capsys, _argv(ex), "orig_advanced.txt:", "runs for different topics", "'399'",
             "the baseline and the advanced run of one experiment")


def test_refuses_an_empty_topic(ex, capsys):
    for r in ROLES:
        with open(ex / f"{r}.txt", "a") as fh:
            fh.write("399 Q0 docX 1 1.0 t\n")
    n = len((ex / "orig_baseline.txt").read_text().splitlines())
    _refused(capsys, _argv(ex), f"orig_baseline.txt:{n}: topic '399' has no judgements in",
             "an empty topic")


def test_refuses_duplicate_documents(ex, capsys):
    lines = (ex / "rep_advanced.txt").read_text().splitlines(keepends=True)
    (ex / "rep_advanced.txt").write_text("".join(lines) + lines[0])
    _refused(capsys, _argv(ex), f"rep_advanced.txt:{len(lines) + 1}: document",
             "appears twice")


def test_refuses_a_missing_advanced_run(ex, capsys):
    _refused(capsys, _argv(ex, rep_advanced=None), "--rep-advanced is missing",
             "orig_advanced.txt")
    _refused(capsys, _argv(ex, orig_advanced=None), "--orig-advanced is missing")


def test_refuses_malformed_lines_unknown_measures_and_existing_outputs(ex, capsys):
    (ex / "bad.txt").write_text("301 Q0 doc 1\n")
    _refused(capsys, _argv(ex, rep_baseline=ex / "bad.txt"), "bad.txt:1:", "6 whitespace-separated columns")
    _refused(capsys, _argv(ex, measures="AP,nDCG@x"), "--measures")
    _refused(capsys, _argv(ex, convention="excel"), "--convention 'excel' is not one of")
    (ex / "out.csv").write_text("keep me")
    _refused(capsys, _argv(ex), "exists; pass --force")
    assert (ex / "out.csv").read_text() == "keep me"
    _refused(capsys, _argv(ex, out=ex / "qrels.txt", force=None) + ["--force"],
             "is one of the input files")
    _refused(capsys, _argv(ex, out=ex / "nowhere" / "x.csv"), "does not exist")


def test_baselines_only(ex, capsys):
    assert cli.main(_argv(ex, orig_advanced=None, rep_advanced=None)) == 0
    out = capsys.readouterr().out
    assert "RMSE" in out and "ER " not in out


def _first_lines_by_hand(path) -> dict:
    first = {}
    with open(path, encoding="utf-8") as fh:
        for no, line in enumerate(fh, start=1):
            s = line.strip()
            if s and not s.startswith("#"):
                first.setdefault(s.split()[0], no)
    return first


def test_the_one_reader_gives_the_tables_and_first_lines(tmp_path):
    """reproduce reads its inputs with the reader of every command (issue 37): the same tables
    as read_run and read_qrels, and the line where each topic starts, counted by hand, blank
    and comment lines included."""
    from rankbook.book import reproduce_cmd
    from rankbook.conventions import read_qrels, read_run

    odd = {"blank.txt": "1 Q0 a 1 1 t\n\n1 Q0 b 2 0.5 t\n2 Q0 a 1 1 t\n",
           "comment.txt": "# top\n1 Q0 a 1 1 t\n# note\n1 Q0 b 2 0.5 t\n",
           "ints.txt": "007 Q0 a 1 3 t\n007 Q0 b 2 2 t\n8 Q0 c 1 1 t\n"}
    for name, text in odd.items():
        (tmp_path / name).write_text(text)
    for f in [*EXAMPLES.glob("*.txt"), *(tmp_path / n for n in odd)]:
        what = "qrels" if f.name.startswith("qrels") else "run"
        table = reproduce_cmd._read(f, what, None)
        ref = (read_qrels if what == "qrels" else read_run)(f)
        pd.testing.assert_frame_equal(table.frame(), ref)
        assert table.first_lines() == _first_lines_by_hand(f)


def test_order_rank_takes_the_rank_column_as_given(ex, capsys):
    """--order rank: each run is the explicit order of its rank column. Where the ranks follow
    the scores (the examples) every value is the same; where the ranks reverse the scores the
    run is scored and compared as ranked, which equals the scores' run with minus the ranks."""
    assert cli.main(_argv(ex, out=ex / "score.csv")) == 0
    assert cli.main(_argv(ex, out=ex / "rank.csv") + ["--order", "rank"]) == 0
    out = capsys.readouterr().out
    assert "explicit order" in out
    a, b = pd.read_csv(ex / "score.csv"), pd.read_csv(ex / "rank.csv")
    assert np.allclose(a["value"], b["value"], equal_nan=True)
    # reverse the ranks of the reproduced baseline, keep its scores: only --order rank sees it
    lines = (ex / "rep_baseline.txt").read_text().splitlines()
    data = [ln.split() for ln in lines if ln.strip() and not ln.startswith("#")]
    by_q = {}
    for f in data:
        by_q.setdefault(f[0], []).append(f)
    rev = []
    for q, fs in by_q.items():
        n = len(fs)
        rev += [" ".join([f[0], f[1], f[2], str(n - i), f[4], f[5]]) for i, f in enumerate(fs)]
    (ex / "rep_baseline.txt").write_text("\n".join(rev) + "\n")
    assert cli.main(_argv(ex, out=ex / "rev_score.csv")) == 0
    assert cli.main(_argv(ex, out=ex / "rev_rank.csv") + ["--order", "rank"]) == 0
    capsys.readouterr()
    s, r = pd.read_csv(ex / "rev_score.csv"), pd.read_csv(ex / "rev_rank.csv")
    assert np.allclose(s["value"], a["value"], equal_nan=True)  # scores unchanged: same values
    assert not np.allclose(r["value"], a["value"], equal_nan=True)
    # the same as the library on runs whose scores are minus the ranks
    def as_scores(path):
        df = repro.explicit_order(path)
        return {q: dict(zip(g.doc_id, g.score)) for q, g in df.groupby("query_id", sort=False)}
    direct = repro.reproduce(*(as_scores(ex / f"{role}.txt") for role in ROLES), ex / "qrels.txt",
                             measures=["AP", "nDCG@10", "P@10"], n_resamples=300)
    assert np.allclose(r["value"], direct.aggregate["value"], equal_nan=True)
    ktu = r[(r.system == "baseline") & (r.statistic == "KTU mean")]["value"].iloc[0]
    assert ktu < a[(a.system == "baseline") & (a.statistic == "KTU mean")]["value"].iloc[0]


def test_order_rank_refuses_a_rank_given_twice_in_a_topic(ex, capsys):
    lines = (ex / "orig_advanced.txt").read_text().splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.strip() and not ln.startswith("#"))
    f = lines[i + 1].split()
    f[3] = lines[i].split()[3]  # the second document of the topic gets the first one's rank
    lines[i + 1] = " ".join(f)
    (ex / "orig_advanced.txt").write_text("\n".join(lines) + "\n")
    assert cli.main(_argv(ex) + ["--order", "rank"]) == 2
    err = capsys.readouterr().err
    assert f"orig_advanced.txt:{i + 2}: documents" in err and "share rank" in err
    assert f"(the first on line {i + 1})" in err
    assert not (ex / "out.csv").exists()
    assert cli.main(_argv(ex)) == 0  # by score the same file is fine


@pytest.mark.parametrize("name", ["plane.txt", "plane.jpg", "plane"])
def test_a_plot_file_in_no_plot_format_is_refused_before_any_work(ex, capsys, name):
    """matplotlib refused '.txt' only after the tables were written (exit 1, "internal
    error"); '.jpg' and no extension were written silently though the help names three
    formats."""
    err = _refused(capsys, _argv(ex) + ["--plot", str(ex / name)], "--plot",
                   "is not a plot format", ".png, .svg, .pdf")
    assert not (ex / "out.csv").exists() and not (ex / name).exists(), err
    assert cli.main(_argv(ex) + ["--plot", str(ex / "plane.SVG")]) == 0
    assert (ex / "plane.SVG").read_bytes().lstrip().startswith(b"<?xml")


def test_resample_limits_same_topics_and_a_topic_no_run_answers(ex, capsys):
    """A new user's findings: 1e8 resamples were killed by the system (exit 137); the same
    topics given as --qrels-rep switched to replicability silently; a judged topic no run
    answers pointed to a Python call."""
    _refused(capsys, _argv(ex, resamples="100000000"), "--resamples 100,000,000 is over the limit")
    _refused(capsys, _argv(ex, resamples="10"), "--resamples=10 is too few", "at least 40")
    _refused(capsys, _argv(ex, confidence="0.999999", resamples="9999"),
             "a 0.999999 interval", "or lower --confidence")
    assert cli.main(_argv(ex, qrels_rep=ex / "qrels.txt")) == 0
    err = capsys.readouterr().err
    assert "note: --qrels-rep" in err and "judges the same topics" in err
    (ex / "q999.txt").write_text((ex / "qrels.txt").read_text() + "999 0 zz 1\n")
    _refused(capsys, _argv(ex, qrels=ex / "q999.txt", out=ex / "other.csv"), "query '999' is judged",
             "on the command line: --convention trec_eval_9")


@pytest.mark.parametrize("rank", ["0", "2.5", "-3"])
def test_order_rank_refuses_a_rank_that_is_not_a_whole_number_from_1_with_its_line(ex, capsys, rank):
    lines = (ex / "orig_baseline.txt").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() and not line.startswith("#"))
    fields = lines[at].split()
    fields[3] = rank
    lines[at] = " ".join(fields)
    (ex / "bad_rank.txt").write_text("\n".join(lines) + "\n")
    _refused(capsys, _argv(ex, orig_baseline=ex / "bad_rank.txt") + ["--order", "rank"],
             f"bad_rank.txt:{at + 1}: document {fields[2]!r} of query {fields[0]!r} has rank",
             "whole numbers from 1")


def test_rbo_form_and_depth_reach_the_library_and_the_report_names_them(ex, capsys):
    """--rbo-form/--rbo-depth are the library's rbo_form/rbo_depth; --ktu repro_eval takes
    repro_eval's RBO too (truncated to depth 1000) unless told otherwise, and the report names
    the RBO form, the convention and what still differs from repro_eval."""
    pt = ex / "pt.csv"
    assert cli.main(_argv(ex, ktu="repro_eval") + ["--per-topic", str(pt)]) == 0
    out = capsys.readouterr().out
    direct = repro.reproduce(*(ex / f"{r}.txt" for r in ROLES), ex / "qrels.txt",
                             measures=["AP", "nDCG@10", "P@10"], n_resamples=300,
                             ktu_convention="repro_eval", rbo_form="truncated", rbo_depth=1000)
    got = pd.read_csv(pt)
    want = direct.per_topic.reset_index(drop=True)
    assert np.allclose(got["value"], want["value"], equal_nan=True)
    assert "KTU as repro_eval, RBO truncated and normalised to depth 1000, p = 0.95" in out
    assert "--ktu repro_eval: RBO is repro_eval's too" in out
    assert ("differs from repro_eval 0.5.0 in: scores under trec_eval (repro_eval scores with "
            "pytrec_eval, trec_eval 9's code: --convention trec_eval_9 matches its AP-based "
            "numbers)") in out
    assert cli.main(_argv(ex, ktu="repro_eval", convention="trec_eval_9") + ["--force"]) == 0
    out = capsys.readouterr().out
    assert "KTU, RBO and scores as repro_eval 0.5.0 computes them" in out
    # the default: KTU over the union, extrapolated RBO, and the report says how that differs
    assert cli.main(_argv(ex, rbo_form="truncated", rbo_depth="50") + ["--force"]) == 0
    out = capsys.readouterr().out
    assert "RBO truncated and normalised to depth 50" in out and "KTU over the union" in out
    direct = repro.reproduce(*(ex / f"{r}.txt" for r in ROLES), ex / "qrels.txt",
                             measures=["AP", "nDCG@10", "P@10"], n_resamples=300,
                             rbo_form="truncated", rbo_depth=50)
    table = pd.read_csv(ex / "out.csv")
    assert np.allclose(table["value"], direct.aggregate["value"], equal_nan=True)
    for bad in (dict(rbo_depth="0"), dict(rbo_form="wide")):  # argparse: usage, status 2
        with pytest.raises(SystemExit) as exc:
            cli.main(_argv(ex, **bad))
        assert exc.value.code == 2 and "--rbo-" in capsys.readouterr().err


def test_repro_eval_rbo_on_the_example_runs(ex, capsys):
    """The command's per-topic RBO under --ktu repro_eval is repro_eval's own RBO."""
    re_order = pytest.importorskip("repro_eval.measure.document_order")
    pt = ex / "pt.csv"
    assert cli.main(_argv(ex, ktu="repro_eval") + ["--per-topic", str(pt)]) == 0
    capsys.readouterr()
    got = pd.read_csv(pt, dtype={"query_id": str})
    for system, (o, r) in {"baseline": ("orig_baseline", "rep_baseline"),
                           "advanced": ("orig_advanced", "rep_advanced")}.items():
        runs = [repro.rankings(ex / f"{x}.txt") for x in (o, r)]
        as_dicts = [{q: {d: -i for i, d in enumerate(docs)} for q, docs in run.items()} for run in runs]
        theirs = re_order.RBO(as_dicts[0], as_dicts[1], p=0.95, depth=1000, pbar=False, per_topic=True)
        ours = got[(got.system == system) & (got.measure == "RBO")].set_index("query_id")["value"]
        assert theirs and all(ours[str(t)] == pytest.approx(v, abs=1e-12) for t, v in theirs.items())


def test_p_values_below_the_printed_precision_say_so():
    from rankbook import stats

    assert stats.format_p(0.0) == "p < 0.0001" and stats.format_p(3e-5) == "p < 0.0001"
    assert stats.format_p(0.04999) == "p = 0.0500"
    agg = pd.DataFrame([dict(level="effectiveness", system="baseline", measure="AP",
                             statistic="RMSE", value=0.5, low=0.4, high=0.6, standard_error=0.1,
                             n_topics=300, p_value=1e-12, test="paired t-test", interval="bca")])
    text = repro.Reproduction("reproducibility", pd.DataFrame(), agg).report()
    assert "p < 0.0001 (paired t-test)" in text and "p = 0.0000" not in text
