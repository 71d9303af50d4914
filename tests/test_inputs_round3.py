"""Issue 30, the input side of ``rankbook compare`` and the TREC readers (findings 2, 3, 4, 9,
10, 11 and the messages of 17), each reproduced with the commands and files a user has.

* 2: a run given through a pipe (``<(cat run)``, ``<(zcat run.gz)``) or as a ``.gz`` file gives
  the numbers of the plain file, the tag included (it was read from a first buffered chunk,
  and the pipe opened again without it);
* 3: more than 650 systems (the two-letter codes ran out);
* 4: inputs over ``--max-bytes`` and resample counts over the stated bounds are refused before
  any file is read, the output folder is checked first, Ctrl-C and SIGTERM are answered while
  a pipe is read; the columnar, block-by-block reader equals a line-by-line reference parser
  on any text (hypothesis), whatever the block size; the benchmark's own path
  (``benchmarks/bench_compare_cli.py``) on a few thousand lines, against a brute-force scorer;
* 9: file names that are not UTF-8 are shown escaped, never an internal error;
* 10: a byte-order mark is removed with a note naming the file, and changes no number;
* 11: float query ids that are whole numbers match their text, with a note; ``evaluate_run``
  warns when no query of the run is judged.
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankbook import stats, trec_format
from rankbook.book import cli, compare_cmd
from rankbook.ir import evaluate_run, read_qrels, read_run

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def _env():
    return {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _command(*args):
    return [sys.executable, "-m", "rankbook.book.cli", "compare", *args]


def _collection(folder: Path, n_queries=30, depth=60, seed=3):
    """qrels and two runs with long lines: each run is far over 8 KB, the buffered chunk the
    old tag reader took from a pipe."""
    rng = np.random.default_rng(seed)
    qrels, runs = [], {"bm25": [], "dense": []}
    for q in range(1, n_queries + 1):
        docs = [f"clueweb12-{q:04d}wb-{i:02d}-{rng.integers(10**5):05d}" for i in range(depth)]
        rel = rng.choice([0, 0, 0, 1, 2], size=depth)
        qrels += [f"{q} 0 {d} {r}" for d, r in zip(docs, rel)]
        for shift, name in ((0.0, "bm25"), (1.0, "dense")):
            score = rng.normal(size=depth) + shift * rel
            order = np.argsort(-score, kind="stable")
            runs[name] += [f"{q} Q0 {docs[i]} {k + 1} {score[i]:.6f} tag-{name}"
                           for k, i in enumerate(order)]
    (folder / "q.txt").write_text("\n".join(qrels) + "\n")
    paths = []
    for name, lines in runs.items():
        p = folder / f"{name}.run"
        p.write_text("\n".join(lines) + "\n")
        paths.append(p)
    return folder / "q.txt", paths


def _main(capsys, argv):
    status = cli.main(["compare", *map(str, argv)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return status, out, err


# ------------------------------------------------------------------------------------------
# finding 2: pipes, process substitution and gzip read once


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("zcat") is None,
                    reason="needs bash and zcat")
def test_process_substitution_and_gzip_give_the_numbers_of_the_plain_file(tmp_path):
    qrels, (bm25, dense) = _collection(tmp_path)
    assert dense.stat().st_size > 4 * 8192
    with open(dense, "rb") as src, gzip.open(tmp_path / "dense.run.gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    args = ["--qrels", str(qrels), "--measures", "AP,nDCG@10", "--names", "tag",
            "--resamples", "500", "--force"]
    plain = subprocess.run(_command(str(bm25), str(dense), *args, "--out", "plain.csv"),
                           cwd=tmp_path, env=_env(), capture_output=True, text=True)
    assert plain.returncode == 0, plain.stderr
    ref = pd.read_csv(tmp_path / "plain.csv")
    assert ref["system"].tolist()[:2] == ["tag-bm25", "tag-dense"]
    cases = {
        "zcat": f"<(zcat {tmp_path / 'dense.run.gz'})",
        "cat": f"<(cat {dense})",
        "gz file": str(tmp_path / "dense.run.gz"),
        "gz through a pipe": f"<(cat {tmp_path / 'dense.run.gz'})",
    }
    for label, second in cases.items():
        cmd = " ".join(_command(str(bm25), second, *args, "--out", "piped.csv"))
        done = subprocess.run(["bash", "-c", cmd], cwd=tmp_path, env=_env(),
                              capture_output=True, text=True)
        assert done.returncode == 0, (label, done.stderr)
        got = pd.read_csv(tmp_path / "piped.csv")
        assert got["system"].tolist() == ref["system"].tolist(), label
        for col in ("mean", "ci_low", "ci_high", "diff", "p_value"):
            np.testing.assert_array_equal(got[col].to_numpy(), ref[col].to_numpy(),
                                          err_msg=f"{label}: {col}")


def test_readers_take_a_pipe_once_and_a_stream(tmp_path):
    qrels, (_, dense) = _collection(tmp_path)
    ref = read_run(dense)
    assert ref.attrs["tag"] == "tag-dense"
    r, w = os.pipe()

    def feed():
        with os.fdopen(w, "wb") as fh:
            data = dense.read_bytes()
            for i in range(0, len(data), 1000):  # small writes: many reads on the other side
                fh.write(data[i:i + 1000])

    threading.Thread(target=feed).start()
    got = read_run(f"/dev/fd/{r}")
    os.close(r)
    pd.testing.assert_frame_equal(got, ref)
    assert got.attrs["tag"] == "tag-dense"
    with open(dense) as text_stream:
        pd.testing.assert_frame_equal(read_run(text_stream), ref)
    pd.testing.assert_frame_equal(read_run(io.BytesIO(gzip.compress(dense.read_bytes()))), ref)
    # scored from a stream, a path or a table: the same numbers
    a = evaluate_run(qrels, dense, ["AP"]).per_query
    b = evaluate_run(open(qrels, "rb"), io.BytesIO(dense.read_bytes()), ["AP"]).per_query
    pd.testing.assert_frame_equal(a, b)


def test_a_damaged_gzip_file_is_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    qrels, (bm25, dense) = _collection(tmp_path, n_queries=4)
    blob = gzip.compress(dense.read_bytes())
    (tmp_path / "cut.run.gz").write_bytes(blob[: len(blob) // 2])
    status, out, err = _main(capsys, [bm25, tmp_path / "cut.run.gz", "--qrels", qrels])
    assert status == 2 and "cut.run.gz: a damaged gzip file" in err and err.count("\n") == 1


# ------------------------------------------------------------------------------------------
# finding 3: any number of systems


def test_letters_for_any_number_of_systems():
    for n in (1, 25, 26, 650, 651, 17000):
        codes = stats._letters(n)
        assert len(codes) == n == len(set(codes))
        assert all(re.fullmatch("[a-pr-z]+", c) for c in codes)
    assert stats._letters(651)[-2:] == ["zz", "aaa"]  # the 650 codes of old, then three letters
    assert stats._letters(26)[:26] == stats._letters(651)[:26]


def test_compare_of_651_systems(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.txt").write_text("".join(f"{q} 0 d{q}-{i} {i % 2}\n" for q in range(1, 4)
                                            for i in range(4)))
    rng = np.random.default_rng(0)
    runs = []
    for s in range(651):
        lines = []
        for q in range(1, 4):
            order = rng.permutation(4)
            lines += [f"{q} Q0 d{q}-{i} {k + 1} {4 - k} s{s}" for k, i in enumerate(order)]
        p = tmp_path / f"s{s:03d}.run"
        p.write_text("\n".join(lines) + "\n")
        runs.append(p)
    status, out, err = _main(capsys, [*runs, "--qrels", "q.txt", "--measures", "AP",
                                      "--resamples", "40", "--test", "t"])
    assert status == 0, err
    table = pd.read_csv(tmp_path / "compare.csv", keep_default_na=False)
    assert len(table) == 651 and table["letter"].is_unique
    assert table["letter"].iloc[-1] == "aaa"
    assert "aaa" in out


# ------------------------------------------------------------------------------------------
# finding 4 and 17: limits before any work, the output folder first, signals


@pytest.fixture
def no_reading(monkeypatch):
    """Fail the test if any input file is read."""
    def refuse(*a, **k):
        raise AssertionError("a file was read before the refusal")

    monkeypatch.setattr(trec_format, "read_table", refuse)


def test_an_input_over_max_bytes_is_refused_before_any_reading(capsys, tmp_path, monkeypatch,
                                                               no_reading):
    monkeypatch.chdir(tmp_path)
    qrels, (bm25, dense) = _collection(tmp_path, n_queries=4)
    size = dense.stat().st_size
    status, out, err = _main(capsys, [bm25, dense, "--qrels", qrels, "--max-bytes",
                                      str(size - 1)])
    assert status == 2 and err.count("\n") == 1
    assert f"dense.run: {size:,} bytes, over the limit of {size - 1:,}" in err
    assert "--max-bytes raises it" in err and not out and not Path("compare.csv").exists()
    # the stated default
    assert compare_cmd.DEFAULT_MAX_BYTES == 2**29
    with pytest.raises(SystemExit):
        cli.main(["compare", "--help"])
    assert "default 512MiB" in " ".join(capsys.readouterr().out.split())


def test_a_pipe_over_max_bytes_is_stopped_while_read(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    qrels, (bm25, dense) = _collection(tmp_path, n_queries=2)
    first = tmp_path / "first.run"
    first.write_text("".join(x for x in bm25.read_text().splitlines(True) if x.startswith("1 ")))
    assert max(qrels.stat().st_size, first.stat().st_size) < 4000 < dense.stat().st_size
    r, w = os.pipe()

    def feed():
        try:
            with os.fdopen(w, "wb") as fh:
                fh.write(dense.read_bytes())
        except BrokenPipeError:  # the reader stopped early, as it should
            pass

    writer = threading.Thread(target=feed)
    writer.start()
    status, out, err = _main(capsys, [first, f"/dev/fd/{r}", "--qrels", qrels, "--max-bytes",
                                      "4000"])
    os.close(r)
    writer.join()
    assert status == 2 and f"/dev/fd/{r}: more than 4,000 bytes" in err
    assert "--max-bytes raises it" in err and not Path("compare.csv").exists()


@pytest.mark.parametrize("extra, needles", [
    (["--resamples", "1000000000"], ["--resamples 1,000,000,000 is over the limit of 1,000,000"]),
    (["--resamples", "800000", "--all-pairs"],
     ["with 10 systems and 45 tests would hold 44,000,000 resampled means (0.3 GiB), over the "
      "limit of 40,000,000; use --resamples 727,272 or fewer, or a --baseline instead of "
      "--all-pairs"]),
    (["--alpha", "1.5"], ["--alpha: must be between 0 and 1 (exclusive", "e.g. 0.05; got 1.5"]),
    (["--confidence", "0"], ["--confidence: must be between 0 and 1", "e.g. 0.95; got 0"]),
    (["--max-bytes", "lots"], ["--max-bytes: must be a positive number of bytes", "2G"]),
    (["--out", "/proc/rankbook-test.csv"], ["--out '/proc/rankbook-test.csv': cannot write in "
                                            "the folder '/proc'"]),
])
def test_bounds_and_the_output_folder_are_checked_before_any_reading(capsys, tmp_path,
                                                                     monkeypatch, no_reading,
                                                                     extra, needles):
    if extra[1].startswith("/proc") and not Path("/proc").is_dir():
        pytest.skip("no /proc")
    monkeypatch.chdir(tmp_path)
    qrels, runs = _collection(tmp_path, n_queries=3)
    try:
        status, out, err = _main(capsys, [*runs * 5, "--qrels", qrels, *extra])
    except SystemExit as exc:
        status = exc.code
        out, err = capsys.readouterr()
    assert status == 2, err
    assert "Traceback" not in err and "MemoryError" not in err and "0.95" not in err.replace(
        "e.g. 0.95; got 0", "")
    for needle in needles:
        assert needle in err, (needle, err)
    assert not out


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root writes in a read-only folder")
def test_a_read_only_output_folder_is_found_first(capsys, tmp_path, monkeypatch, no_reading):
    monkeypatch.chdir(tmp_path)
    qrels, runs = _collection(tmp_path, n_queries=3)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        status, out, err = _main(capsys, [*runs, "--qrels", qrels, "--out", locked / "c.csv"])
    finally:
        locked.chmod(0o755)
    assert status == 2 and "cannot write in the folder" in err


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_while_a_pipe_is_read_is_answered_at_once(tmp_path, sig, code):
    """The run comes from a pipe that stays open (its writer sleeps): the reader is blocked in
    read(2) when the signal comes."""
    qrels, (bm25, _) = _collection(tmp_path, n_queries=4)
    writer = "<({ head -c 3000 " + str(bm25) + "; sleep 60; } 2>/dev/null)"
    cmd = " ".join(["exec", *_command(str(bm25), writer, "--qrels", str(qrels))])
    # output to files: the sleeping writer inherits them, and would hold a pipe open
    out_f, err_f = open(tmp_path / "out.txt", "w"), open(tmp_path / "err.txt", "w")
    proc = subprocess.Popen(["bash", "-c", cmd], cwd=tmp_path, env=_env(), stdout=out_f,
                            stderr=err_f, start_new_session=True)
    try:
        _wait_until_blocked_in_a_pipe(proc)
        assert proc.poll() is None, (tmp_path / "err.txt").read_text()
        sent = time.monotonic()
        proc.send_signal(sig)
        proc.wait(timeout=20)
        waited = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the sleeping writer
            except ProcessLookupError:
                pass
        out_f.close()
        err_f.close()
    err = (tmp_path / "err.txt").read_text()
    assert proc.returncode == code, err
    assert err.strip() == f"rankbook compare: interrupted by {sig.name}; no output was written"
    assert waited < 5, waited  # generous: a shared machine; the benchmark measures it
    assert not (tmp_path / "compare.csv").exists()


def _wait_until_blocked_in_a_pipe(proc, timeout=120):
    """Until the process sleeps in a pipe read (Linux: /proc/PID/wchan); elsewhere 10 s."""
    wchan = Path(f"/proc/{proc.pid}/wchan")
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None:
        try:
            if "pipe_read" in wchan.read_text() or "pipe_wait" in wchan.read_text():
                return
        except OSError:
            time.sleep(10)
            return
        time.sleep(0.1)
    raise AssertionError("the command never waited on the pipe")


# ------------------------------------------------------------------------------------------
# the columnar reader equals a line-by-line reference, whatever the block size


def _reference(text: str, what: str):
    """The format read the plain way: lines at \\n, \\r\\n or \\r; fields at spaces and tabs;
    '#' first on a line is a comment; values are decimal numbers as C reads them. Returns rows
    or ('error', line number): the first line
    that breaks the format, else the second listing of a document (as trec_eval's readers and
    rankbook's old one: the format of the whole file first)."""
    n_cols, vcol = (4, 3) if what == "qrels" else (6, 4)
    rows, seen, dup = [], {}, None
    lines = re.split(r"\r\n|\r|\n", text)
    if lines and lines[-1] == "":
        lines.pop()
    for no, line in enumerate(lines, start=1):
        f = [x for x in re.split(r"[ \t]+", line) if x]
        if not f or f[0].startswith("#"):
            continue
        if len(f) != n_cols:
            return ("error", no)
        if not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", f[vcol]):
            return ("error", no)  # C's decimal numbers only: Python's float takes 1_0 too
        v = float(f[vcol])
        if not math.isfinite(v):
            return ("error", no)
        if (f[0], f[2]) in seen and dup is None:
            dup = no
        seen[(f[0], f[2])] = no
        rows.append((f[0], f[2], v))
    return rows if dup is None else ("error", dup)


_token = st.sampled_from(["1", "2", "10", "007", "a", "d#1", "Q0", "x", "é", "0", "12345678901234567890",
                          "1.5", "-2", "1e3", "nan", "inf", "high", "1_0", "#", "#c", "t"])
_sep = st.sampled_from([" ", "  ", "\t", " \t "])


@st.composite
def _texts(draw):
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["run", "run", "run", "qrels", "blank", "comment", "junk"]))
        if kind == "run":
            f = [draw(st.sampled_from(["1", "2", "q1", "10"])), "Q0",
                 draw(st.sampled_from(["a", "b", "7", "08", "c#", "é"])), "1",
                 draw(st.sampled_from(["0.5", "1", "-3.25", "1e-3", "2.000000000000000111"])),
                 draw(st.sampled_from(["t", "tag"]))]
        elif kind == "qrels":
            f = [draw(st.sampled_from(["1", "2"])), "0", draw(st.sampled_from(["a", "b", "7"])),
                 draw(st.sampled_from(["0", "1", "2"]))]
        elif kind == "blank":
            f = []
        elif kind == "comment":
            f = ["#" + draw(st.sampled_from(["", "x"]))] + draw(st.lists(_token, max_size=8))
        else:
            f = draw(st.lists(_token, min_size=1, max_size=8))
        lead = draw(st.sampled_from(["", "", " ", "\t"]))
        lines.append(lead + "".join(x + draw(_sep) for x in f[:-1]) + (f[-1] if f else "")
                     + draw(st.sampled_from(["", "", " "])))
    ends = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    return ends.join(lines) + draw(st.sampled_from([ends, ""]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts(), what=st.sampled_from(["run", "qrels"]),
       block=st.sampled_from([8, 100, 1 << 20]))
def test_the_columnar_reader_equals_a_line_by_line_reading(text, what, block):
    ref = _reference(text, what)
    data = text.encode("utf-8")
    try:
        table = trec_format.read_table(io.BytesIO(data), what, chunk_bytes=block)
    except ValueError as exc:
        assert isinstance(ref, tuple), (str(exc), text)
        assert re.match(rf"<stream>:{ref[1]}: ", str(exc)), (str(exc), ref, text)
        return
    assert not isinstance(ref, tuple), (ref, text)
    df = table.frame()
    got = list(zip(df["query_id"], df["doc_id"], df.iloc[:, 2]))
    assert got == ref, text
    assert isinstance(table.values, np.ndarray) and isinstance(table.qcodes, np.ndarray)


def test_integer_document_ids_are_kept_as_integers_only_when_they_write_back(tmp_path):
    p = tmp_path / "r.txt"
    p.write_text("1 Q0 7 1 2 t\n1 Q0 12 2 1 t\n")
    t = trec_format.read_table(p, "run")
    assert t.dnames is None and t.docs.dtype == np.int64  # compact: no string per line
    assert read_run(p)["doc_id"].tolist() == ["7", "12"]
    p.write_text("1 Q0 7 1 2 t\n1 Q0 012 2 1 t\n")  # "012" is not "12"
    assert trec_format.read_table(p, "run").dnames is not None
    assert read_run(p)["doc_id"].tolist() == ["7", "012"]
    q = tmp_path / "q.txt"
    q.write_text("1 0 12 1\n1 0 012 0\n")
    # "12" and "012" stay two documents, whichever side holds integers
    res = evaluate_run(q, tmp_path / "r.txt", ["P@1", "AP"])
    assert res.aggregate["P@1"] == 0.0 and res.aggregate["AP"] == 0.0


@pytest.mark.parametrize("n_qrels_docs, n_run_docs, int_ids", [
    (120, 60, False), (100, 100, False), (200, 60, False), (60, 200, False), (300, 300, True),
    (40000, 100, False),
    (150, 90, "qrels"), (90, 150, "run")])
def test_files_score_as_their_tables_do(tmp_path, n_qrels_docs, n_run_docs, int_ids):
    """Ids read from files travel as codes of their distinct values (int8 codes for a few,
    int16 past 127, ...); scoring the files equals scoring the tables read_qrels and read_run
    return, and the dicts built from the text."""
    rng = np.random.default_rng(n_qrels_docs + n_run_docs)

    def doc(i, side):
        return str(i) if int_ids in (True, side) else f"d{i}"

    qrels = {str(q): {doc(i, "qrels"): int(rng.integers(0, 3))
                      for i in rng.choice(50000, n_qrels_docs // 2, replace=False)}
             for q in (1, 2)}
    run = {str(q): {doc(i, "run"): float(s) for i, s in zip(
        rng.choice(50000, n_run_docs // 2, replace=False), rng.random(n_run_docs // 2))}
        for q in (1, 2)}
    for q in run:  # some retrieved documents are judged (in the mixed cases, integer ids
        for d in list(qrels[q])[:10]:  # among text ids on one side)
            run[q][d] = 2.0
    (tmp_path / "q.txt").write_text("".join(f"{q} 0 {d} {r}\n" for q, j in qrels.items()
                                            for d, r in j.items()))
    (tmp_path / "r.txt").write_text("".join(f"{q} Q0 {d} 1 {s!r} t\n" for q, j in run.items()
                                            for d, s in j.items()))
    ms = ["AP", "nDCG@10", "P@5", "RR"]
    from_files = evaluate_run(tmp_path / "q.txt", tmp_path / "r.txt", ms).per_query
    from_tables = evaluate_run(read_qrels(tmp_path / "q.txt"), read_run(tmp_path / "r.txt"),
                               ms).per_query
    from_dicts = evaluate_run(qrels, run, ms).per_query
    pd.testing.assert_frame_equal(from_files, from_tables)
    pd.testing.assert_frame_equal(from_files, from_dicts)
    assert from_files["value"].gt(0).any()


# ------------------------------------------------------------------------------------------
# the benchmark's path, small


def test_the_benchmark_path_on_a_few_thousand_lines(tmp_path):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_compare_cli as bench
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    qrels, runs = bench.write_collection(tmp_path, n_queries=4, depth=1000)
    res = bench._run_measured(bench._command(qrels, runs, tmp_path / "out.csv", resamples=200),
                              cwd=tmp_path)
    assert res["status"] == 0, res["stderr_tail"]
    assert 0 < res["peak_rss_mb"] < 2048
    got = pd.read_csv(tmp_path / "out.csv").set_index(["system", "measure"])["mean"]
    qr = pd.read_csv(qrels, sep=" ", header=None, names=["q", "it", "d", "r"], dtype=str)
    for run in runs:
        brute = _brute_force(qr, pd.read_csv(run, sep=" ", header=None,
                                             names=["q", "Q0", "d", "rank", "s", "tag"],
                                             dtype={"q": str, "d": str, "s": str}))
        for m, v in brute.items():
            assert got[(run.stem, m)] == pytest.approx(v, rel=1e-12, abs=1e-15), (run, m)


def _brute_force(qrels: pd.DataFrame, run: pd.DataFrame) -> dict:
    """nDCG@10, AP and RR of trec_eval, query by query in plain Python: scores as C floats,
    ties by descending document id; queries without a judged relevant document score 0."""
    rel = {(q, d) for q, d, r in zip(qrels.q, qrels.d, qrels.r) if int(r) > 0}
    n_rel = {}
    for q, d in rel:
        n_rel[q] = n_rel.get(q, 0) + 1
    out = {"nDCG@10": [], "AP": [], "RR": []}
    for q, g in run.groupby("q", sort=False):
        if q not in set(qrels.q):
            continue
        items = sorted(zip(g.s, g.d), key=lambda x: (-float(np.float32(float(x[0]))), x[1]),
                       reverse=False)
        # descending document id among equal scores: sort the ties in reverse
        items = sorted(items, key=lambda x: x[1], reverse=True)
        items = sorted(items, key=lambda x: -float(np.float32(float(x[0]))))
        hits = [(q, d) in rel for _, d in items]
        R = n_rel.get(q, 0)
        ap = sum(sum(hits[:i + 1]) / (i + 1) for i, h in enumerate(hits) if h) / R if R else 0.0
        rr = next((1 / (i + 1) for i, h in enumerate(hits) if h), 0.0)
        dcg = sum(1 / math.log2(i + 2) for i, h in enumerate(hits[:10]) if h)
        idcg = sum(1 / math.log2(i + 2) for i in range(min(R, 10)))
        out["nDCG@10"].append(dcg / idcg if idcg else 0.0)
        out["AP"].append(ap)
        out["RR"].append(rr)
    return {m: float(np.mean(v)) for m, v in out.items()}


# ------------------------------------------------------------------------------------------
# finding 9: file names that are not UTF-8


@pytest.mark.skipif(sys.platform != "linux", reason="arbitrary bytes in file names: Linux")
def test_file_names_that_are_not_utf8_are_shown_escaped(tmp_path):
    qrels, (bm25, dense) = _collection(tmp_path, n_queries=4)
    odd = os.fsencode(tmp_path) + b"/dense\xff\xfe.run"
    try:
        os.rename(dense, odd)
    except OSError:
        pytest.skip("the file system refuses such names")
    cmd = [os.fsencode(x) for x in _command(str(bm25))] + [odd] + [
        b"--qrels", os.fsencode(qrels), b"--resamples", b"200", b"--measures", b"AP"]
    done = subprocess.run(cmd, cwd=tmp_path, env=_env(), capture_output=True)
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "internal error" not in err and "Traceback" not in err
    table = pd.read_csv(tmp_path / "compare.csv")
    assert table["system"].tolist() == ["bm25", "dense\\xff\\xfe"]
    assert table["run_file"].iloc[1].endswith("/dense\\xff\\xfe.run")
    # a malformed file with such a name: one line, the name escaped, exit 2
    with open(odd, "ab") as fh:
        fh.write(b"5 Q0 x 1 high t\n")
    done = subprocess.run(cmd + [b"--force"], cwd=tmp_path, env=_env(), capture_output=True)
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1
    assert "dense\\xff\\xfe.run:" in err and "not a number: 'high'" in err


# ------------------------------------------------------------------------------------------
# finding 10: a byte-order mark


def test_a_byte_order_mark_is_removed_with_a_note(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    qrels, runs = _collection(tmp_path, n_queries=6)
    status, _, err = _main(capsys, [*runs, "--qrels", qrels, "--measures", "nDCG@10",
                                    "--out", "plain.csv"])
    assert status == 0, err
    bom = b"\xef\xbb\xbf"
    (tmp_path / "bq.txt").write_bytes(bom + qrels.read_bytes())
    (tmp_path / "bom.run").write_bytes(bom + runs[1].read_bytes())
    status, _, err = _main(capsys, [runs[0], tmp_path / "bom.run", "--qrels", "bq.txt",
                                    "--measures", "nDCG@10", "--out", "bom.csv"])
    assert status == 0, err
    assert "note: bq.txt: a UTF-8 byte-order mark at the start of the file was removed" in err
    assert f"note: {tmp_path / 'bom.run'}: a UTF-8 byte-order mark" in err
    a, b = pd.read_csv("plain.csv"), pd.read_csv("bom.csv")
    np.testing.assert_array_equal(a["mean"], b["mean"])
    np.testing.assert_array_equal(a["p_value"], b["p_value"])
    with pytest.warns(trec_format.InputNote, match="bq.txt: a UTF-8 byte-order mark"):
        df = read_qrels(tmp_path / "bq.txt")
    assert df["query_id"].iloc[0] == "1"
    pd.testing.assert_frame_equal(df, read_qrels(qrels))


def test_a_utf16_file_is_refused_in_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    qrels, runs = _collection(tmp_path, n_queries=3)
    (tmp_path / "u16.run").write_bytes(runs[1].read_text().encode("utf-16"))
    status, _, err = _main(capsys, [runs[0], "u16.run", "--qrels", qrels])
    assert status == 2 and err.count("\n") == 1
    assert "u16.run: UTF-16 text (it starts with a UTF-16 byte-order mark); rankbook reads UTF-8" in err


# ------------------------------------------------------------------------------------------
# finding 11: ids compared as text


def test_float_query_ids_that_are_whole_numbers_match_with_a_note(tmp_path):
    # an id column with a gap: pandas reads it as floats (1.0, 2.0, NaN)
    (tmp_path / "q.csv").write_text("query_id,doc_id,relevance\n1,a,1\n1,b,0\n2,c,1\n,d,1\n")
    qrels = pd.read_csv(tmp_path / "q.csv").dropna()
    assert qrels["query_id"].dtype.kind == "f"
    run = {"1": {"a": 0.9, "b": 0.1}, "2": {"c": 0.2, "x": 0.5}}
    with pytest.warns(trec_format.InputNote, match=r"query ids of the qrels: 2 id\(s\) are floats "
                                                   r"with a whole value \(1.0, 2.0\)"):
        got = evaluate_run(qrels, run, ["AP", "P@1"])
    want = evaluate_run({"1": {"a": 1, "b": 0}, "2": {"c": 1}}, run, ["AP", "P@1"])
    pd.testing.assert_frame_equal(got.per_query, want.per_query)
    assert got.aggregate["AP"] == pytest.approx(0.75)
    # only exactly whole values: 1.5 stays "1.5"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert list(trec_format.id_text(np.array([1.0, 1.5, 2**53 * 1.0], dtype=object))) == [
            "1", "1.5", str(2**53)]
        assert trec_format.as_qrels(qrels)["query_id"].tolist() == ["1", "1", "2"]


def test_evaluate_run_warns_when_no_query_is_judged():
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    run = {"1": {"a": 1.0}, "2": {"b": 0.5}}
    with pytest.warns(UserWarning, match=r"no query of the run is judged in the qrels: the run "
                                         r"has 2 queries \('1', '2'\), the qrels 2 queries "
                                         r"\('q1', 'q2'\)"):
        res = evaluate_run(qrels, run, "AP", "trec_eval_9")
    assert math.isnan(res.aggregate["AP"])
    with pytest.raises(ValueError, match="no query of the run is judged at all"):
        evaluate_run(qrels, run, "AP")  # trec_eval 10.0 stops on the judged queries it lacks
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a run that matches: no warning at all
        evaluate_run(qrels, {"q1": {"a": 1.0}}, "AP", "trec_eval_9")


def test_running_out_of_memory_is_one_line_exit_1(capsys, tmp_path, monkeypatch):
    """Past --max-bytes raised too far, a MemoryError is reported as what it is, not as an
    internal error (simulated: a real one would need the memory of this machine)."""
    monkeypatch.chdir(tmp_path)
    qrels, runs = _collection(tmp_path, n_queries=3)

    def no_memory(*a, **k):
        raise MemoryError

    from rankbook import conventions

    monkeypatch.setattr(conventions, "evaluate_run", no_memory)
    status, out, err = _main(capsys, [*runs, "--qrels", qrels])
    assert status == 1 and err.count("\n") == 1 and not out
    assert "out of memory while reading or scoring the runs" in err and "--max-bytes" in err
