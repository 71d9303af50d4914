"""``rankbook check`` and :func:`rankbook.preflight.check_inputs` (issue 40, item 1).

A test collection with every kind of problem planted on purpose (topics in one file only,
documents judged or ranked twice, unjudged documents, tied documents of different relevance, a
threshold no judgement reaches, two tags in one file): the check must name each one, in the
text report and in the JSON, and exit 1; the same collection with the problems removed exits 0.
judged@k is checked against ir_measures' ``Judged@k`` and the tie statistics against a plain
loop over the topics.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rankbook import preflight
from rankbook.book import check_cmd, cli


def _clean_collection(folder: Path, seed: int = 3):
    """Qrels and two tie-free runs over the same 8 topics, every retrieved document judged."""
    rng = np.random.default_rng(seed)
    q_lines, runs = [], {"bm25": [], "dense": []}
    for t in range(1, 9):
        docs = [f"d{t}-{i}" for i in range(12)]
        rel = rng.choice([0, 1, 2], size=len(docs))
        rel[0] = 2  # every topic has a relevant document
        q_lines += [f"{t} 0 {d} {r}" for d, r in zip(docs, rel)]
        for name in runs:
            score = rng.permutation(len(docs)).astype(float)  # distinct: no tie
            order = np.argsort(-score, kind="stable")
            runs[name] += [f"{t} Q0 {docs[i]} {r + 1} {score[i]:.1f} {name}"
                           for r, i in enumerate(order)]
    (folder / "qrels.txt").write_text("\n".join(q_lines) + "\n")
    paths = []
    for name, lines in runs.items():
        p = folder / f"{name}.run"
        p.write_text("\n".join(lines) + "\n")
        paths.append(p)
    return folder / "qrels.txt", paths


def _planted(folder: Path):
    """The clean collection with problems planted; returns the paths and what was planted."""
    qrels, (bm25, dense) = _clean_collection(folder)
    q = qrels.read_text().splitlines()
    q.append(q[5])  # topic 1's sixth document judged a second time
    q.append("99 0 lonely 1")  # a judged topic no run retrieves
    qrels.write_text("\n".join(q) + "\n")
    b = bm25.read_text().splitlines()
    # topic 2: its two best documents tied (the first relevant at level 2, a non-relevant one)
    t2 = [i for i, line in enumerate(b) if line.startswith("2 ")]
    rels = {line.split()[2]: int(line.split()[3]) for line in q if line.startswith("2 ")}
    zero = next(i for i in t2 if rels[b[i].split()[2]] == 0)
    top = t2[0]
    for i in (top, zero):
        f = b[i].split()
        f[4] = "100.0"
        b[i] = " ".join(f)
    b.append("3 Q0 unjudged-doc 13 99.5 bm25")  # an unjudged document at the top of topic 3
    b.append("77 Q0 x 1 1.0 bm25")  # a topic nobody judged
    b.append(b[0].replace("bm25", "other-tag"))  # topic 1's first document ranked twice
    bm25.write_text("\n".join(b) + "\n")
    return qrels, [bm25, dense]


PLANTED = {  # code -> (severity, subject)
    "duplicate_judgements": ("problem", "qrels.txt"),
    "topics_only_in_qrels": ("problem", "bm25"),
    "topics_only_in_run": ("problem", "bm25"),
    "duplicate_documents": ("problem", "bm25"),
    "decisive_ties": ("problem", "bm25"),
    "unjudged": ("warning", "bm25"),
    "several_tags": ("warning", "bm25"),
    "runs_differ_in_topics": ("problem", "runs"),
    "threshold_unreached": ("problem", "P(rel=5)@5"),
    "binary_on_graded": ("note", "AP"),
}


def test_every_planted_problem_is_found_in_json(tmp_path, capsys):
    qrels, runs = _planted(tmp_path)
    status = cli.main(["check", str(qrels), *map(str, runs), "-m", "AP,nDCG@10,P(rel=5)@5",
                       "--json"])
    out, err = capsys.readouterr()
    assert status == 1, err
    rep = json.loads(out)
    assert rep["exit_status"] == 1
    found = {(f["code"], f["subject"]): f for f in rep["findings"]}
    for code, (severity, subject) in PLANTED.items():
        assert (code, subject) in found, (code, subject, sorted(found))
        assert found[(code, subject)]["severity"] == severity
    # the numbers behind them
    by_run = {r["run"]: r for r in rep["runs"]}
    assert by_run["bm25"]["only_in_qrels"] == 1 and by_run["bm25"]["only_in_run"] == 1
    assert by_run["bm25"]["duplicates"] == 1 and by_run["dense"]["duplicates"] == 0
    assert by_run["bm25"]["decisive_ties"] == 1 and by_run["bm25"]["largest_tie"] == 2
    assert by_run["bm25"]["judged@10"] < 1.0 and by_run["dense"]["judged@10"] == 1.0
    assert by_run["dense"]["decisive_ties"] == 0 and by_run["dense"]["tied_share"] == 0.0
    assert rep["qrels"]["duplicates"] == 1
    dup = found[("duplicate_documents", "bm25")]
    assert "'d1-" in dup["message"] and "lines 1, " in dup["message"]
    # the clean run is blamed only for the judged topic no run retrieves
    assert {f["code"] for f in rep["findings"] if f["subject"] == "dense"
            and f["severity"] == "problem"} == {"topics_only_in_qrels"}


def test_every_planted_problem_is_found_in_text(tmp_path, capsys):
    qrels, runs = _planted(tmp_path)
    status = cli.main(["check", str(qrels), *map(str, runs), "--measures",
                       "AP,nDCG@10,P(rel=5)@5"])
    out, _ = capsys.readouterr()
    assert status == 1
    problems = out.split("Problems (a number would change):")[1].split("Warnings:")[0]
    warns = out.split("Warnings:")[1]
    assert "judged twice" in problems and "('99')" in problems          # qrels duplicate, topic
    assert "('77')" in problems and "ranked twice" in problems          # run-only topic, dup
    assert "tied scores hold documents of different relevance" in problems
    assert "no judgement reaches level 5" in problems
    assert "cover different topics" in problems
    assert "judged@10 is" in warns and "more than one run tag" in warns
    assert "levels 1, 2 all count as relevant" in out.split("Notes:")[1]
    header = out.splitlines()[2]
    for col in ("judged@10", "judged@100", "judged@1000", "duplicates", "tied", "largest tie",
                "decisive ties", "only in qrels", "only in run"):
        assert col in header


def test_a_clean_collection_exits_0(tmp_path, capsys):
    qrels, runs = _clean_collection(tmp_path)
    status = cli.main(["check", str(qrels), *map(str, runs), "-m", "nDCG@10"])
    out, _ = capsys.readouterr()
    assert status == 0, out
    assert "No problem found that would change a number." in out
    status = cli.main(["check", str(qrels), *map(str, runs), "-m", "nDCG@10", "--json"])
    rep = json.loads(capsys.readouterr()[0])
    assert status == 0 and rep["exit_status"] == 0
    assert [r["judged@10"] for r in rep["runs"]] == [1.0, 1.0]


def test_gzip_and_pipe_inputs_read_once(tmp_path):
    qrels, runs = _planted(tmp_path)
    gz = tmp_path / "bm25.run.gz"
    gz.write_bytes(gzip.compress(runs[0].read_bytes()))
    res = subprocess.run(
        ["bash", "-c", f'"{Path(sys.executable).parent}/rankbook" check "{qrels}" "{gz}" '
                       f'<(cat "{runs[0]}") --json'], capture_output=True, text=True)
    assert res.returncode == 1, res.stderr
    rep = json.loads(res.stdout)
    assert [r["run"] for r in rep["runs"]] == ["bm25", "run2"]
    assert [r["duplicates"] for r in rep["runs"]] == [1, 1]  # found in the gzip and the pipe


def test_standard_input_is_a_run_or_the_qrels(tmp_path):
    """'-' is standard input for check as for every command (it stopped at 'no such file');
    the report and the reader's refusals name it <stdin>."""
    qrels, runs = _clean_collection(tmp_path)
    exe = str(Path(sys.executable).parent / "rankbook")
    res = subprocess.run([exe, "check", str(qrels), str(runs[0]), "-", "--json"],
                         input=runs[1].read_text(), capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    rep = json.loads(res.stdout)
    assert [r["run"] for r in rep["runs"]] == ["bm25", "run2"]
    assert rep["runs"][0]["judged@10"] == rep["runs"][1]["judged@10"] == 1.0
    res = subprocess.run([exe, "check", "-", str(runs[0])], input=qrels.read_text(),
                         capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.startswith("qrels <stdin>: 8 topics"), res.stdout
    res = subprocess.run([exe, "check", str(qrels), "-"], input="1 Q0 a 1 high x\n",
                         capture_output=True, text=True)
    assert res.returncode == 2 and res.stderr.startswith("rankbook check: <stdin>:1: "), res.stderr


@pytest.mark.parametrize("argv, needle", [
    (["nothere.run"], "no such file"),
    (["{run}", "-m", "XYZ"], "measure 'XYZ' is not supported by rankbook (no profile computes "
                             "it); name a measure as ir_measures does"),
    (["{run}", "-m", "RR@10"], "is not supported by the trec_eval profile (RR@k: ir_measures, "
                               "ranx, torchmetrics); the nearest it offers is 'RR'"),
    (["{run}", "-m", "RR@10"], "; --convention chooses another tool"),
    (["{run}", "--depths", "10,x"], "--depths"),
    (["{run}", "--convention", "spss"], "--convention 'spss'"),
    (["{bad}"], ":2:"),
])
def test_bad_usage_and_unreadable_input_exit_2(tmp_path, capsys, argv, needle):
    qrels, runs = _clean_collection(tmp_path)
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 a 1 1.0 x\n1 Q0 b 2 high x\n")
    argv = [a.format(run=runs[0], bad=bad) for a in argv]
    status = cli.main(["check", str(qrels), *argv])
    _, err = capsys.readouterr()
    assert status == 2
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_judged_at_k_equals_ir_measures_on_tie_free_runs(tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    rng = np.random.default_rng(11)
    qrels, run = {}, {}
    for t in range(6):
        pool = [f"p{t}-{i}" for i in range(40)]
        qrels[str(t)] = {d: int(rng.integers(0, 3)) for d in rng.choice(pool, 15, replace=False)}
        n = int(rng.integers(5, 40))
        run[str(t)] = {d: float(s) for d, s in zip(rng.choice(pool, n, replace=False),
                                                    rng.permutation(n))}
    rep = preflight.check_inputs(qrels, [run], depths=(5, 10, 30))
    for k in (5, 10, 30):
        peer = ir_measures.calc_aggregate([ir_measures.parse_measure(f"Judged@{k}")], qrels, run)
        assert rep.runs.loc[0, f"judged@{k}"] == pytest.approx(list(peer.values())[0], abs=1e-12)


def test_tie_statistics_equal_a_plain_loop():
    rng = np.random.default_rng(5)
    for _ in range(20):
        qrels, run = {}, {}
        for t in range(int(rng.integers(1, 5))):
            docs = [f"d{i}" for i in range(int(rng.integers(1, 12)))]
            qrels[str(t)] = {d: int(rng.integers(0, 3)) for d in docs if rng.random() < 0.7}
            run[str(t)] = {d: float(rng.integers(0, 4)) for d in docs}
        rep = preflight.check_inputs(qrels, [run])
        row = rep.runs.iloc[0]
        tied = n = decisive = 0
        largest = 0
        for t, scores in run.items():
            by_score = {}
            for d, s in scores.items():
                by_score.setdefault(s, []).append(d)
            for docs in by_score.values():
                n += len(docs)
                largest = max(largest, len(docs))
                if len(docs) > 1:
                    tied += len(docs)
                    levels = {qrels.get(t, {}).get(d, 0) for d in docs}
                    decisive += len(levels) > 1
        assert row["tied_share"] == pytest.approx(tied / n)
        assert row["largest_tie"] == largest
        assert row["decisive_ties"] == decisive
        assert ("decisive_ties" in {f.code for f in rep.of("problem")}) == (decisive > 0)


def test_dataframe_with_duplicates_and_a_dict_run():
    qrels = pd.DataFrame({"query_id": [1, 1, 1], "doc_id": ["a", "b", "a"],
                          "relevance": [1, 0, 0]})
    rep = preflight.check_inputs(qrels, {"mine": {"1": {"a": 2.0, "b": 1.0}}})
    f = {x.code: x for x in rep.findings}
    assert f["duplicate_judgements"].severity == "problem"
    assert "rows 0, 2" in f["duplicate_judgements"].message
    assert rep.runs.loc[0, "run"] == "mine" and rep.exit_status == 1


def test_the_block_compare_and_reproduce_print(tmp_path):
    qrels, runs = _planted(tmp_path)
    rep, _ = check_cmd.check_runs(qrels, runs, "AP")
    lines = check_cmd.warnings_block(rep, "compare")
    assert lines and all(line.startswith("rankbook compare: check: ") for line in lines)
    assert any("problem: bm25:" in line for line in lines)
    assert not any(": note:" in line for line in lines)


def test_compare_and_reproduce_print_the_check_before_their_report(tmp_path, capsys,
                                                                   monkeypatch):
    monkeypatch.chdir(tmp_path)
    qrels, runs = _planted(tmp_path)
    # what compare reads: no document listed twice, the same topics in every file
    drop = ("99 ", "77 ")
    qrels.write_text("\n".join(dict.fromkeys(
        line for line in qrels.read_text().splitlines() if not line.startswith(drop))) + "\n")
    lines = runs[0].read_text().splitlines()
    runs[0].write_text("\n".join(line for line in lines[:-1] if not line.startswith(drop)) + "\n")
    status = cli.main(["compare", *map(str, runs), "--qrels", str(qrels), "--measures", "AP",
                       "--resamples", "200"])
    out, err = capsys.readouterr()
    assert status == 0, err
    block = [line for line in err.splitlines() if ": check: " in line]
    assert any("problem: bm25: 1 group(s) of tied scores" in line for line in block)
    assert any("warning: bm25: judged@10" in line for line in block)
    assert not any("topics_only" in line or "no judgements" in line for line in block)
    ex = Path(__file__).resolve().parents[1] / "examples" / "reproduce"
    status = cli.main(["reproduce", "--orig-baseline", str(ex / "orig_baseline.txt"),
                       "--orig-advanced", str(ex / "orig_advanced.txt"),
                       "--rep-baseline", str(ex / "rep_baseline.txt"),
                       "--rep-advanced", str(ex / "rep_advanced.txt"),
                       "--qrels", str(ex / "qrels.txt"), "--resamples", "200"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "rankbook reproduce: check: problem: " in err and "rep_baseline.txt" in err


def test_decisive_ties_are_a_problem_only_where_they_move_a_measure():
    qrels = {"1": {"a": 1, "b": 0, "c": 0, "d": 1, "e": 0}}
    run = {"1": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 1.0, "e": 1.0}}  # d and e tied at 4-5
    beyond = preflight.check_inputs(qrels, [run], ["P@1", "nDCG@3"])
    f = {x.code: x for x in beyond.findings}["decisive_ties"]
    assert f.severity == "warning" and beyond.exit_status == 0
    assert beyond.runs.loc[0, "tie_ranges"] == {"P@1": [1.0, 1.0], "nDCG@3": [
        pytest.approx(1 / (1 + 1 / np.log2(3))), pytest.approx(1 / (1 + 1 / np.log2(3)))]}
    moved = preflight.check_inputs(qrels, [run], ["P@5", "AP"])
    f = {x.code: x for x in moved.findings}["decisive_ties"]
    assert f.severity == "problem" and moved.exit_status == 1
    assert "the tie order moves the mean AP between 0.7000 and 0.7500" in f.message
    assert "P@5" not in f.message  # both orders hold the two relevant documents in the top 5
    none = preflight.check_inputs(qrels, [run])  # no measure: any decisive tie is a problem
    assert {x.code: x for x in none.findings}["decisive_ties"].severity == "problem"
