"""``rankbook eval``: trec_eval's own test outputs printed back byte for byte (every measure of
``-m all_trec``, per query with ``-q``, measures with parameters), the CSV and JSON layouts,
several runs, gzip and standard input, trec_eval's -c, -M, -l and -J, the one-line refusals and
``rankbook compare --per-query``."""

from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from rankbook.book import cli, eval_cmd

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval_tests"
QRELS = str(DATA / "qrels.comment.test")
RUN = str(DATA / "results.comment.test")


def run_cli(args, capsys):
    status = cli.main(["eval", *args])
    out, err = capsys.readouterr()
    return status, out, err


def golden(name, drop=()):
    lines = (DATA / name).read_text(encoding="ascii").splitlines(keepends=True)
    return "".join(x for x in lines if not x.startswith(drop)) if drop else "".join(lines)


def test_all_trec_per_query_prints_trec_eval_9s_file(capsys):
    status, out, err = run_cli(["-q", "-m", "all_trec", "--convention", "trec_eval_9", QRELS, RUN], capsys)
    assert status == 0
    assert out == golden("trec_eval_9/out.test.aq")  # 367 lines, byte for byte
    assert "does not compute rbp, rbp_resid, unj" in err  # 10.0's measures, not 9's


def test_all_trec_prints_the_10_0_line_file(capsys):
    """trec_eval's 10.0-line all_trec output, byte for byte, under the recall rule of the build
    that printed it; under 10.0's own rule (lround, the default) exactly four lines differ."""
    status, out, _ = run_cli(["-m", "all_trec", "--recall-cutoff", "plus_0.9_fused", QRELS, RUN], capsys)
    assert status == 0 and out == golden("trec_eval_10/out.test.a")
    status, out, _ = run_cli(["-m", "all_trec", QRELS, RUN], capsys)
    want = golden("trec_eval_10/out.test.a").splitlines()
    diff = [(a, b) for a, b in zip(out.splitlines(), want) if a != b]
    assert len(out.splitlines()) == len(want) == 99
    assert [a.split("\t")[0].strip() for a, _ in diff] == [
        "iprec_at_recall_0.10", "iprec_at_recall_0.30", "iprec_at_recall_0.60", "11pt_avg"]


def test_default_measures_are_trec_eval_official(capsys):
    status, out, _ = run_cli(["--recall-cutoff", "plus_0.9_fused", QRELS, RUN], capsys)
    assert status == 0 and out == golden("trec_eval_10/out.test")


def test_measures_with_parameters(capsys):
    """out.test.meas_params's command line, but for the three measures whose parameters
    rankbook's names do not take (utility, 11pt_avg, ndcg with gains)."""
    args = ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
            "-m", "Rprec_mult.5.0,0.2,0.35", "-mndcg_cut.10,20,23", "-msuccess.2,5,20",
            "--convention", "trec_eval_9", QRELS, RUN]
    status, out, _ = run_cli(args, capsys)
    assert status == 0
    assert out == golden("trec_eval_9/out.test.meas_params",
                         drop=("utility_", "11pt_avg_", "ndcg_1="))


def test_csv_json_and_several_runs(tmp_path, capsys):
    gz = tmp_path / "copy.run.gz"
    gz.write_bytes(gzip.compress(Path(RUN).read_bytes()))
    status, out, _ = run_cli(["-q", "-m", "map", "-m", "P.10", "-m", "nDCG@10,ERR@20",
                              "--convention", "ir_measures", "--format", "csv", QRELS, RUN,
                              str(gz)], capsys)
    assert status == 0
    t = pd.read_csv(io.StringIO(out))
    assert list(t.columns) == ["run", "runid", "measure", "query", "value"]
    assert set(t["run"]) == {"results.comment", "copy"} and set(t["runid"]) == {"STANDARD"}
    a, b = (t[t["run"] == r].drop(columns="run").reset_index(drop=True) for r in ("results.comment", "copy"))
    assert a.equals(b) and len(a) == 4 * 4  # 3 queries and all, 4 measures
    assert list(a["measure"][:4]) == ["map", "P_10", "nDCG@10", "ERR@20"]
    status, out, _ = run_cli(["-m", "map,num_ret", "--format", "json", QRELS, RUN], capsys)
    rows = json.loads(out)
    assert rows == [{"run": "results.comment", "runid": "STANDARD", "measure": "num_ret",
                     "query": "all", "value": 1500},
                    {"run": "results.comment", "runid": "STANDARD", "measure": "map",
                     "query": "all", "value": pytest.approx(0.1785, abs=0.5e-4)}]
    status, out, _ = run_cli(["-m", "map", QRELS, RUN, str(gz)], capsys)
    assert out.splitlines()[0] == f"# run: {RUN}" and out.count("map") == 2


def test_standard_input(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(Path(RUN).read_bytes())))
    status, out, _ = run_cli(["-m", "map", QRELS, "-"], capsys)
    assert status == 0 and out == "map                   \tall\t0.1785\n"


@pytest.fixture
def small(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text("1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n")
    r = tmp_path / "r.txt"
    r.write_text("1 Q0 x 1 3.0 r\n1 Q0 c 2 2.0 r\n1 Q0 b 3 1.0 r\n1 Q0 a 4 0.5 r\n")
    return str(q), str(r)


def test_trec_eval_options(small, capsys):
    q, r = small
    status, _, err = run_cli(["-m", "map", q, r], capsys)
    assert status == 2 and err.count("\n") == 1
    assert "query '2' is judged in the qrels but absent from the run" in err and "-c scores" in err
    status, out, _ = run_cli(["-c", "-q", "-m", "num_q,num_rel,map", q, r], capsys)
    assert status == 0
    # -c: query 2 counts (num_q 2), keeps its relevant document (num_rel 3) and scores 0
    assert "num_rel               \t2\t1\n" in out and "num_q                 \tall\t2\n" in out
    assert "map                   \t2\t0.0000\n" in out
    # -M 2: x and c only; -J: x (not judged) removed; -l 2: only a is relevant
    _, out, _ = run_cli(["-c", "-M", "2", "-m", "num_ret,num_rel_ret", q, r], capsys)
    assert "num_ret               \tall\t2\n" in out and "num_rel_ret           \tall\t1\n" in out
    _, out, _ = run_cli(["-c", "-J", "-q", "-m", "P.1", q, r], capsys)
    assert "P_1                   \t1\t1.0000\n" in out
    _, out, _ = run_cli(["-c", "-l", "2", "-q", "-m", "num_rel,recip_rank", q, r], capsys)
    assert "num_rel               \t1\t1\n" in out and "recip_rank            \t1\t0.2500\n" in out


@pytest.mark.parametrize("args, needle", [
    (["-m", "alpha_nDCG@10"], "measure 'alpha_nDCG@10' is not supported by rankbook (no profile "
                              "computes it); the nearest supported measure is 'nDCG@10'"),
    (["-m", "ERR@10"], "not supported by the trec_eval profile (ERR@k: ir_measures)"),
    (["-m", "ERR@20"], "the nearest it offers is 'nDCG@20'"),  # the asked cutoff, not 10
    (["-m", "utility.2,-1,0,0"], "rankbook takes utility without parameters"),
    (["-m", "P.x"], "'x' is not a whole number"),
    (["--convention", "lucene"], "--convention 'lucene' is not one of"),
])
def test_refusals_are_one_line(small, capsys, args, needle):
    q, r = small
    status, out, err = run_cli([*args, "-c", q, r], capsys)
    assert status == 2 and not out and err.count("\n") == 1 and needle in err, err


def test_malformed_and_missing_files(small, tmp_path, capsys):
    q, r = small
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2 x r\n")
    status, _, err = run_cli(["-c", q, str(bad)], capsys)
    assert status == 2 and f"{bad}:2:" in err and err.count("\n") == 1
    status, _, err = run_cli([q, str(tmp_path / "none.run")], capsys)
    assert status == 2 and "no such file" in err
    out_file = tmp_path / "out.txt"
    assert run_cli(["-c", "-o", str(out_file), q, r], capsys)[0] == 0
    before = out_file.read_text()
    status, _, err = run_cli(["-c", "-m", "map", "-o", str(out_file), q, r], capsys)
    assert status == 2 and "exists; pass --force" in err and out_file.read_text() == before


def test_expand_measures_orders_as_trec_eval():
    names, _ = eval_cmd.expand_measures(["success", "map", "P.10,5", "ndcg_cut.5", "AP"], "trec_eval")
    assert names == ["map", "P_5", "P_10", "ndcg_cut_5", "success_1", "success_5", "success_10", "AP"]


def test_compare_writes_the_per_query_table(small, tmp_path, capsys):
    q, r = small
    r2 = tmp_path / "s.txt"
    r2.write_text("1 Q0 a 1 3.0 s\n1 Q0 c 2 2.0 s\n2 Q0 d 1 1.0 s\n")
    pq = tmp_path / "pq.csv"
    status = cli.main(["compare", r, str(r2), "--qrels", q, "--measures", "AP,P@1", "--missing",
                       "zero", "--resamples", "100", "--out", str(tmp_path / "c.csv"),
                       "--per-query", str(pq)])
    capsys.readouterr()
    assert status == 0
    t = pd.read_csv(pq)
    assert list(t.columns) == ["system", "run_file", "query_id", "measure", "value"]
    assert set(t["system"]) == {"r", "s"} and len(t[t["system"] == "s"]) == 4
