"""``evaluate_run`` scores a large run a block of queries at a time, and ``read_table`` checks
duplicates a block of whole queries at a time (issue 30, ``compare`` at MS MARCO size).

The blocks only bound memory and let a signal in between: every number, and every message of a
refused input, must be what one batch of all the queries gives. Each test scores the same
inputs twice, with blocks of a single query (or a few rows) and with one block holding
everything, and asks for identical values (``==`` on floats, not a tolerance). A last test
sends a real SIGINT while ``rankbook compare`` scores its first block and checks that no other
block is scored after it.
"""

from __future__ import annotations

import os
import signal

import numpy as np
import pandas as pd
import pytest

from rankbook import conventions, trec_format
from rankbook.book import cli
from rankbook.conventions import evaluate_run

MEASURES = ["nDCG@10", "AP", "RR", "P@5", "R@20", "Rprec", "nDCG", "Judged@10", "Success@3"]


def _inputs(seed: int, n_queries: int = 23):
    """Queries of very different lengths (1 to 60 documents), ties in the scores, some judged
    queries without a run, some run queries without judgements, graded and negative labels."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(n_queries):
        docs = [f"d{q}-{i}" for i in range(int(rng.integers(1, 61)))]
        if q % 7 != 3:  # judged
            for d in rng.choice(docs, size=min(len(docs), int(rng.integers(1, 8))),
                                replace=False):
                qrels.append((str(q), str(d), float(rng.choice([0, 1, 2, 3]))))
        if q % 5 != 2:  # retrieved
            scores = np.round(rng.normal(size=len(docs)), 1)
            run += [(str(q), d, float(s)) for d, s in zip(docs, scores)]
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))


def _both(monkeypatch, qrels, run, measures, **kw):
    """(one block per query, one block for everything): per-query tables."""
    monkeypatch.setattr(conventions, "SCORE_BLOCK_CELLS", 1)
    small = evaluate_run(qrels, run, measures, **kw)
    monkeypatch.setattr(conventions, "SCORE_BLOCK_CELLS", 1 << 40)
    whole = evaluate_run(qrels, run, measures, **kw)
    return small, whole


@pytest.mark.parametrize("convention", sorted(conventions.CONVENTIONS))
@pytest.mark.parametrize("seed", [0, 1])
def test_blocks_of_queries_give_the_numbers_of_one_batch(monkeypatch, convention, seed):
    qrels, run = _inputs(seed)
    conv = conventions.profile(convention)
    if conv.qrels_only == "error":
        conv = conventions.profile(conv, qrels_only="skip")
    if conv.run_only == "error":
        conv = conventions.profile(conv, run_only="skip")
    names = [m for m in MEASURES if _offered(m, conv)]
    try:
        whole_ok = evaluate_run(qrels, run, names, convention=conv)
    except ValueError as exc:  # a profile that refuses these inputs refuses them in blocks too
        monkeypatch.setattr(conventions, "SCORE_BLOCK_CELLS", 1)
        with pytest.raises(ValueError) as small:
            evaluate_run(qrels, run, names, convention=conv)
        assert str(small.value) == str(exc)
        return
    small, whole = _both(monkeypatch, qrels, run, names, convention=conv)
    pd.testing.assert_frame_equal(small.per_query, whole.per_query, check_exact=True)
    pd.testing.assert_frame_equal(whole.per_query, whole_ok.per_query, check_exact=True)
    assert small.per_query["query_id"].nunique() > 10  # many blocks were scored


def _offered(name, conv) -> bool:
    try:
        conventions.parse_measure(name, conv)
    except ValueError:
        return False
    return True


def test_blocks_of_an_explicit_order_and_of_single_precision(monkeypatch):
    qrels, run = _inputs(3)
    run = run.assign(rank=run.groupby("query_id").cumcount() + 1.0)
    small, whole = _both(monkeypatch, qrels, run, ["AP", "nDCG@10"], order="rank",
                         convention="trec_eval_9")
    pd.testing.assert_frame_equal(small.per_query, whole.per_query, check_exact=True)
    # trec_eval rounds scores to C floats: ties appear that the doubles did not have
    run = run.assign(score=1.0 + run.score * 1e-9)
    small, whole = _both(monkeypatch, qrels, run, ["AP", "nDCG@10", "P@5"],
                         convention="trec_eval_9")
    pd.testing.assert_frame_equal(small.per_query, whole.per_query, check_exact=True)


def test_pooled_averaging_is_one_block(monkeypatch):
    qrels, run = _inputs(4)
    qrels = qrels.assign(relevance=qrels.relevance.clip(lower=0))
    conv = conventions.profile("torchmetrics", averaging="pooled", qrels_only="skip",
                               run_only="skip")
    small, whole = _both(monkeypatch, qrels, run, ["nDCG@10", "AP"], convention=conv)
    pd.testing.assert_frame_equal(small.per_query, whole.per_query, check_exact=True)


@pytest.mark.parametrize("problem", ["duplicate", "shared rank", "negative"])
def test_a_refused_input_names_the_same_query_in_blocks(monkeypatch, problem):
    """Problems in a late query and an earlier one: the message of one batch (its first query,
    and the problem checked first), whatever block each problem falls in."""
    qrels, run = _inputs(5)
    kw = {"convention": "trec_eval_9"}  # skips the judged queries the run lacks
    if problem == "duplicate":
        late, early = run[run.query_id == "21"].iloc[0], run[run.query_id == "4"].iloc[0]
        run = pd.concat([run, late.to_frame().T, early.to_frame().T], ignore_index=True)
    elif problem == "shared rank":
        run = run.assign(rank=run.groupby("query_id").cumcount() + 1.0)
        for q in ("20", "6"):
            i = run.index[run.query_id == q][:2]
            run.loc[i, "rank"] = 1.0
        kw["order"] = "rank"
    else:
        qrels = qrels.copy()
        for q in ("22", "8"):
            i = qrels.index[qrels.query_id == q][0]
            qrels.loc[i, "relevance"] = -1.0
        kw["convention"] = conventions.profile("sklearn", qrels_only="skip", run_only="skip")
    messages = []
    for cells in (1, 1 << 40):
        monkeypatch.setattr(conventions, "SCORE_BLOCK_CELLS", cells)
        with pytest.raises(ValueError) as exc:
            evaluate_run(qrels, run, ["nDCG@10", "AP"], **kw)
        messages.append(str(exc.value))
    assert messages[0] == messages[1]
    assert {"duplicate": "twice", "shared rank": "share rank",
            "negative": "negative relevance"}[problem] in messages[0]


def test_a_run_duplicate_before_a_shared_rank_in_a_later_block(monkeypatch):
    """One batch checks duplicates first: a duplicate in a late query wins over a shared rank
    in an early one, also when the early one is in an earlier block."""
    qrels, run = _inputs(6)
    run = run.assign(rank=run.groupby("query_id").cumcount() + 1.0)
    i = run.index[run.query_id == "1"][:2]
    run.loc[i, "rank"] = 1.0
    late = run[run.query_id == "21"].iloc[[0]].assign(rank=999.0)
    run = pd.concat([run, late], ignore_index=True)
    messages = []
    for cells in (1, 1 << 40):
        monkeypatch.setattr(conventions, "SCORE_BLOCK_CELLS", cells)
        with pytest.raises(ValueError, match="twice") as exc:
            evaluate_run(qrels, run, ["AP"], order="rank", convention="trec_eval_9")
        messages.append(str(exc.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("rows", [1, 2, 3, 1000])
def test_duplicates_in_blocks_of_whole_queries(tmp_path, monkeypatch, rows):
    """A run whose queries' lines are together is checked a block at a time; a block ends at
    the end of a query, so a duplicate across the block's nominal end is found; a run whose
    queries are interleaved is checked whole."""
    monkeypatch.setattr(trec_format, "DUPLICATE_BLOCK_ROWS", rows)
    lines = [f"{q} Q0 {d} {d + 1} {10 - d} t" for q in (1, 2, 3) for d in range(4)]
    p = tmp_path / "run.txt"
    p.write_text("\n".join(lines) + "\n")
    assert len(trec_format.read_table(p, "run")) == 12
    # after query 2's third line: a duplicate of its fourth (queries together), then a line of
    # query 3 (queries interleaved), a duplicate of query 3's first line
    for extra, message in (("2 Q0 3 9 0.5 t", "run.txt:9: document '3' appears twice for query "
                            "'2' (first on line 8)"),
                           ("3 Q0 0 9 0.5 t", "run.txt:10: document '0' appears twice for query "
                            "'3' (first on line 8)")):
        p.write_text("\n".join(lines[:7] + [extra] + lines[7:]) + "\n")
        with pytest.raises(ValueError) as exc:
            trec_format.read_table(p, "run")
        assert message in str(exc.value)
    interleaved = [lines[i] for i in (0, 4, 1, 5, 2, 6, 3, 7)] + ["1 Q0 2 9 0.5 t"]
    p.write_text("\n".join(interleaved) + "\n")
    with pytest.raises(ValueError, match="run.txt:9: document '2' appears twice for query '1' "
                                         r"\(first on line 5\)"):
        trec_format.read_table(p, "run")


def test_ctrl_c_while_scoring_stops_before_the_next_block(tmp_path, monkeypatch, capsys):
    """The path of ``benchmarks/bench_compare_cli.py`` on a small run: a real SIGINT arrives
    while the first block of queries is scored; the command stops (130, no output) and scores
    no further block."""
    import sys

    sys.path.insert(0, str(os.path.join(os.path.dirname(__file__), "..", "benchmarks")))
    try:
        import bench_compare_cli as bench
    finally:
        sys.path.pop(0)
    qrels, runs = bench.write_collection(tmp_path, n_queries=6, depth=100)
    monkeypatch.setattr(conventions, "SCORE_BLOCK_CELLS", 100)  # one query per block
    real, calls = conventions._values, []

    def values(*a, **k):
        calls.append(1)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # as a terminal's Ctrl-C does
        return real(*a, **k)

    monkeypatch.setattr(conventions, "_values", values)
    monkeypatch.chdir(tmp_path)
    status = cli.main(["compare", str(runs[0]), str(runs[1]), "--qrels", str(qrels),
                       "--measures", "nDCG@10,AP,RR", "--resamples", "100"])
    err = capsys.readouterr().err
    assert status == 130, err
    assert err.strip() == "rankbook compare: interrupted by SIGINT; no output was written"
    assert len(calls) <= 3  # the three measures of the first block at most, no second block
    assert not (tmp_path / "compare.csv").exists()


#: The named moments of ``rankbook compare`` (``interrupts.checkpoint``) and what a signal
#: there must leave: the outputs in place, and the end of the one-line message.
COMPARE_MOMENTS = [
    ("start", [], "no output was written"),
    ("scored", [], "no output was written"),
    ("before-rename", [], "no output was written"),
    # just after the first rename: the race of issue 37 ("no output was written" with
    # out.csv in place); the rename and its record are one step now
    ("renamed", ["out.csv"], "out.csv was written before it; pairs.csv was not"),
    ("written", ["out.csv", "pairs.csv"], "out.csv, pairs.csv were written before it"),
    ("report", ["out.csv", "pairs.csv"], "out.csv, pairs.csv were written before it"),
    ("done", ["out.csv", "pairs.csv"], None),  # the outcome was settled: status 0
]


@pytest.mark.parametrize("moment, files, message", COMPARE_MOMENTS,
                         ids=[m for m, _, _ in COMPARE_MOMENTS])
def test_signals_at_every_moment_of_compare(tmp_path, moment, files, message):
    """``rankbook compare`` (the program, as a user runs it) sent SIGINT or SIGTERM at each
    named moment of its life (``RANKBOOK_SIGNAL_AT``, no random timing): the status is 130 or
    143 with one line saying exactly which outputs are in place, or 0 once the report is
    complete; no temporary file is left. The signal alternates with the moment."""
    import subprocess
    import sys

    sys.path.insert(0, str(os.path.join(os.path.dirname(__file__), "..", "benchmarks")))
    try:
        import bench_compare_cli as bench
    finally:
        sys.path.pop(0)
    qrels, runs = bench.write_collection(tmp_path, n_queries=6, depth=40)
    cmd = bench._command(qrels, runs, tmp_path / "out.csv", resamples=200)
    cmd = [c for c in cmd if c != "--force"] + ["--out", "out.csv", "--pairs", "pairs.csv"]
    sig = [signal.SIGINT, signal.SIGTERM][[m for m, _, _ in COMPARE_MOMENTS].index(moment) % 2]
    env = {**bench._env(), "RANKBOOK_SIGNAL_AT": f"{moment}:{sig.name[3:]}"}
    res = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    present = sorted(p.name for p in tmp_path.glob("*.csv"))
    assert present == files, res.stderr
    assert not list(tmp_path.glob(".*.tmp")), list(tmp_path.iterdir())
    if message is None:
        assert res.returncode == 0, res.stderr
        assert res.stderr.strip().endswith("wrote out.csv, pairs.csv")
        return
    assert res.returncode == 128 + sig, res.stderr
    # once the report prints, its own stderr lines (the pre-flight check's warnings, notes)
    # come before the interruption's one line, which is the last
    *report, last = res.stderr.strip().splitlines()
    assert last == f"rankbook compare: interrupted by {sig.name}; {message}"
    assert all(line.startswith(("rankbook compare: check: ", "rankbook compare: note: "))
               for line in report), res.stderr
    assert not report or moment == "report", res.stderr
