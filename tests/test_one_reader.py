"""One reader for every command (issue 37, item 2; issue 38, item 3): ``rankbook compare``,
``rankbook reproduce`` and ``evaluate_run`` read runs and qrels through
:func:`rankbook.trec_format.read_table`, with one set of guarantees.

* every input variant (plain, gzip, two-member gzip, bz2, xz, a pipe, ``-`` for standard input,
  a byte-order mark, CRLF line ends) gives every command the numbers of the plain file;
* a property test (hypothesis) writes random runs, some of them damaged, in every compression
  and as pipes: each command gives the plain file's numbers, or refuses in one line, as it
  refuses the plain file;
* the failures the issue reported, replayed: a gzipped run and a piped run given to
  ``reproduce`` (it crashed on the one and said "holds no run lines" of the other), a 1.07 GB
  run (refused before any work, also with a lowered ``--max-bytes`` on a pipe and a gzip
  file), ``-``, ``.bz2``/``.xz`` and zstd named, a NUL inside a line (it went into a query id
  and changed AP from 0.5417 to 0.625), relevance levels written ``1e2`` (trec_eval reads 1).
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import re
import sys
import threading
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankbook import conventions, repro, trec_format
from rankbook.book import cli, compare_cmd, reproduce_cmd

MEASURES = ["AP", "nDCG@10", "P@5"]
ROLES = ("orig_baseline", "orig_advanced", "rep_baseline", "rep_advanced")


# --------------------------------------------------------------------------------------------
# inputs


def _collection(seed=0, topics=8, depth=30):
    """Qrels and four runs as TREC text: ties (scores with one decimal), unjudged documents,
    text ids, an ir_metadata block on one run."""
    rng = np.random.default_rng(seed)
    qrels, runs = [], {r: [] for r in ROLES}
    for t in range(topics):
        q = f"t-{t + 1}"
        pool = [f"doc-{t}-{i:03d}" for i in rng.permutation(depth + 10)]
        for d in pool[: depth // 2] + pool[-5:]:
            qrels.append(f"{q} 0 {d} {int(rng.choice([0, 0, 1, 2]))}\n")
        base = rng.random(len(pool)) * 3
        for k, r in enumerate(ROLES):
            sc = np.round(base + rng.normal(0, 0.3 + 0.2 * k, len(pool)), 1)
            top = np.argsort(-sc, kind="stable")[:depth]
            runs[r] += [f"{q} Q0 {pool[j]} {i + 1} {sc[j]:.1f} {r}\n" for i, j in enumerate(top)]
    texts = {r: "".join(v).encode() for r, v in runs.items()}
    texts["orig_advanced"] = repro.ir_metadata_block({"tag": "adv", "k1": "0.9"}).encode() + \
        texts["orig_advanced"]
    return "".join(qrels).encode(), texts


_KINDS = ("plain", "gz", "gz2", "bz2", "xz", "bom", "crlf", "pipe", "stdin")


def _encode(kind: str, data: bytes) -> bytes:
    if kind in ("gz", "pipe"):
        return gzip.compress(data, mtime=0) if kind == "gz" else data
    if kind == "gz2":  # two gzip members, as `cat a.gz b.gz` makes
        cut = data.index(b"\n", len(data) // 2) + 1
        return gzip.compress(data[:cut], mtime=0) + gzip.compress(data[cut:], mtime=0)
    if kind == "bz2":
        return bz2.compress(data)
    if kind == "xz":
        return lzma.compress(data)
    if kind == "bom":
        return b"\xef\xbb\xbf" + data
    if kind == "crlf":
        return data.replace(b"\n", b"\r\n")
    return data


class _Sources:
    """Inputs written as a variant: files, a pipe (``/dev/fd/N``, fed by a thread) or standard
    input (``-``); at most one input is standard input."""

    def __init__(self, folder, monkeypatch):
        self.folder, self.monkeypatch = folder, monkeypatch
        self.fds, self.threads = [], []

    def make(self, name: str, kind: str, data: bytes) -> str:
        if kind == "pipe":
            r, w = os.pipe()

            def feed():
                with contextlib.suppress(BrokenPipeError), os.fdopen(w, "wb") as fh:
                    fh.write(data)

            t = threading.Thread(target=feed, daemon=True)
            t.start()
            self.fds.append(r)
            self.threads.append(t)
            return f"/dev/fd/{r}"
        if kind == "stdin":
            self.monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
            return "-"
        suffix = {"gz": ".gz", "gz2": ".gz", "bz2": ".bz2", "xz": ".xz"}.get(kind, "")
        path = self.folder / f"{name}.{kind}{suffix}"
        path.write_bytes(_encode(kind, data))
        return str(path)

    def close(self):
        for r in self.fds:  # a writer the reader left (a refusal) then stops: broken pipe
            with contextlib.suppress(OSError):
                os.close(r)
        for t in self.threads:
            t.join(timeout=5)
        self.fds, self.threads = [], []


@pytest.fixture
def sources(tmp_path, monkeypatch):
    s = _Sources(tmp_path, monkeypatch)
    yield s
    s.close()


def _write_plain(folder, qrels, runs):
    (folder / "qrels.txt").write_bytes(qrels)
    for r, data in runs.items():
        (folder / f"{r}.txt").write_bytes(data)
    return str(folder / "qrels.txt"), {r: str(folder / f"{r}.txt") for r in runs}


# --------------------------------------------------------------------------------------------
# the three commands


def _compare(capsys, qrels, run_a, run_b, out):
    rc = cli.main(["compare", run_a, run_b, "--qrels", qrels, "--measures", ",".join(MEASURES),
                   "--names", "tag", "--resamples", "200", "--out", str(out), "--force"])
    err = capsys.readouterr().err
    if rc:
        return err.strip()
    return pd.read_csv(out).drop(columns=["run_file"])


def _reproduce(capsys, qrels, paths, out):
    argv = ["reproduce", "--qrels", qrels, "--measures", ",".join(MEASURES), "--resamples",
            "200", "--out", str(out), "--force"]
    for r in ROLES:
        argv += [f"--{r.replace('_', '-')}", paths[r]]
    rc = cli.main(argv)
    cap = capsys.readouterr()
    if rc:
        return cap.err.strip()
    assert "ir_metadata of" in cap.out and "k1: 0.9" in cap.out  # from the reader's header
    return pd.read_csv(out)


def _evaluate(qrels, run):
    try:
        return conventions.evaluate_run(qrels, run, MEASURES).per_query
    except ValueError as exc:
        return str(exc)


def _same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
    else:
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True),
                                      check_exact=True)


_PLAIN = []


@pytest.mark.parametrize("kind", _KINDS)
@pytest.mark.parametrize("side", ["run", "qrels"])
def test_every_variant_through_every_command(kind, side, tmp_path, sources, capsys):
    qrels, runs = _collection()
    plain_q, plain = _write_plain(tmp_path, qrels, runs)
    out = tmp_path / "out.csv"

    def inputs(role):
        """The qrels and the runs, the qrels or the run ``role`` given as the variant."""
        q = sources.make("qrels", kind, qrels) if side == "qrels" else plain_q
        paths = dict(plain)
        if side == "run":
            paths[role] = sources.make(role, kind, runs[role])
        return q, paths

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trec_format.InputNote)  # the byte-order mark's note
        if not _PLAIN:  # the plain files' outputs (no path in them), computed once
            _PLAIN.extend([
                _compare(capsys, plain_q, plain["orig_baseline"], plain["orig_advanced"], out),
                _reproduce(capsys, plain_q, plain, out),
                _evaluate(plain_q, plain["rep_advanced"])])
        want = _PLAIN
        q, p = inputs("orig_advanced")
        got = [_compare(capsys, q, p["orig_baseline"], p["orig_advanced"], out)]
        sources.close()
        q, p = inputs("rep_advanced")
        got.append(_reproduce(capsys, q, p, out))
        sources.close()
        q, p = inputs("rep_advanced")
        got.append(_evaluate(q, p["rep_advanced"]))
        sources.close()
    assert all(isinstance(w, pd.DataFrame) for w in want)
    for g, w in zip(got, want):
        _same(g, w)


# --------------------------------------------------------------------------------------------
# random runs in every compression and as pipes


_DAMAGE = ["", "", "", "\x00", "1_0", "nan", "x y", "\x0b", "#c", "\n\n", "é"]


@st.composite
def _random_inputs(draw):
    """Qrels and two runs: random ids, scores with ties, some judged, a random damage."""
    n_topics = draw(st.integers(2, 5))
    qrels, runs = [], {"a": [], "b": []}
    for t in range(n_topics):
        docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(12)] + ["D1", "d1é"]),
                             min_size=1, max_size=8, unique=True))
        for d in docs[: max(1, len(docs) // 2)]:
            qrels.append(f"{t} 0 {d} {draw(st.integers(0, 2))}\n")
        for name in runs:
            for i, d in enumerate(draw(st.permutations(docs))):
                score = draw(st.sampled_from(["1", "0.5", "2.25", "1e-3", "3.0", "0.30000000000000004"]))
                runs[name].append(f"{t} Q0 {d} {i + 1} {score} {name}\n")
    text = {"qrels": "".join(qrels), **{k: "".join(v) for k, v in runs.items()}}
    damage = draw(st.sampled_from(_DAMAGE))
    if damage:
        which = draw(st.sampled_from(sorted(text)))
        at = draw(st.integers(0, len(text[which])))
        text[which] = text[which][:at] + damage + text[which][at:]
    return {k: v.encode() for k, v in text.items()}


def _compare_lib(qrels, a, b):
    try:
        res = compare_cmd.compare_runs(qrels, [a, b], MEASURES, convention="trec_eval_9",
                                       names="tag", resamples=40, missing="drop")
        return res.table.drop(columns=["run_file"])
    except compare_cmd.CompareError as exc:
        return str(exc)


def _reproduce_lib(qrels, a, b):
    try:
        res = reproduce_cmd.reproduce_runs({"orig_baseline": a, "rep_baseline": b}, qrels,
                                           measures=MEASURES, convention="trec_eval_9",
                                           resamples=40)
        return res.aggregate
    except reproduce_cmd.ReproduceError as exc:
        return str(exc)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=_random_inputs())
def test_random_runs_in_every_compression_and_pipe_score_as_plain_files(data, tmp_path_factory,
                                                                        monkeypatch):
    """Every example is written plain and then, for the second run, in every compression, as
    a pipe and as standard input: each command gives the plain numbers, or refuses in one
    line that names the variant where it named the plain file."""
    folder = tmp_path_factory.mktemp("one")
    plain = {}
    for k, v in data.items():
        (folder / k).write_bytes(v)
        plain[k] = str(folder / k)
    src = _Sources(folder, monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for run in (_evaluate_9, _compare_lib, _reproduce_lib):
            want = run(plain["qrels"], plain["a"], plain["b"])
            for kind in ("gz", "bz2", "xz", "pipe", "stdin"):
                shown = src.make("b", kind, data["b"])  # the variant: the second run
                got = run(plain["qrels"], plain["a"], shown)
                src.close()
                if isinstance(want, str) or isinstance(got, str):
                    assert isinstance(got, str) and isinstance(want, str), (kind, want, got)
                    assert "\n" not in got
                    name = "<stdin>" if kind == "stdin" else shown
                    assert got == want.replace(plain["b"], name), (kind, want, got)
                else:
                    pd.testing.assert_frame_equal(got.reset_index(drop=True),
                                                  want.reset_index(drop=True), check_exact=True)


def _evaluate_9(qrels, a, b):
    """evaluate_run on the second run (the variant)."""
    try:
        return conventions.evaluate_run(qrels, b, MEASURES, "trec_eval_9").per_query
    except ValueError as exc:
        return str(exc)


# --------------------------------------------------------------------------------------------
# the failures of the issue, replayed


def _reproduce_argv(qrels, paths, out, *extra):
    argv = ["reproduce", "--qrels", qrels, "--measures", "AP", "--resamples", "200", "--out",
            str(out), "--force", *extra]
    for r, p in paths.items():
        argv += [f"--{r.replace('_', '-')}", p]
    return argv


def test_reproduce_names_standard_input_as_the_reader_does(tmp_path, sources):
    """A refusal of reproduce's own (topics that differ, a topic without judgements) names a
    run given as '-' '<stdin>', as the reader's refusals do, and the check names it alike."""
    q = tmp_path / "q"
    q.write_bytes(b"1 0 a 1\n2 0 a 1\n")
    orig = tmp_path / "o"
    orig.write_bytes(b"1 Q0 a 1 1.0 o\n2 Q0 a 1 1.0 o\n")
    rep = sources.make("r", "stdin", b"1 Q0 a 1 1.0 r\n")
    with pytest.raises(reproduce_cmd.ReproduceError,
                       match=r"runs for different topics: <stdin> \(--rep-baseline\) has no line"):
        reproduce_cmd.reproduce_runs({"orig_baseline": str(orig), "rep_baseline": rep}, str(q),
                                     measures="AP", resamples=40)
    orig = sources.make("o", "stdin", b"1 Q0 a 1 1.0 o\n2 Q0 a 1 1.0 o\n3 Q0 a 1 1.0 o\n")
    rep = tmp_path / "r"
    rep.write_bytes(b"1 Q0 a 1 1.0 r\n2 Q0 a 1 1.0 r\n3 Q0 a 1 1.0 r\n")
    with pytest.raises(reproduce_cmd.ReproduceError, match=r"^<stdin>:3: topic '3' has no judg"):
        reproduce_cmd.reproduce_runs({"orig_baseline": orig, "rep_baseline": str(rep)}, str(q),
                                     measures="AP", resamples=40)
    q.write_bytes(b"1 0 a 1\n2 0 a 1\n3 0 a 0\n")
    orig = sources.make("o", "stdin", b"1 Q0 a 1 1.0 o\n2 Q0 a 1 1.0 o\n3 Q0 a 1 1.0 o\n")
    res = reproduce_cmd.reproduce_runs({"orig_baseline": orig, "rep_baseline": str(rep)}, str(q),
                                       measures="AP", resamples=40)
    assert res.check[0].runs["run"].tolist() == ["<stdin>", str(rep)]


def test_reproduce_reads_a_gzipped_run_and_a_pipe(tmp_path, sources, capsys):
    """It crashed on gzip (UnicodeDecodeError 0x8b) and called a pipe empty."""
    qrels, runs = _collection(seed=1)
    plain_q, plain = _write_plain(tmp_path, qrels, runs)
    assert cli.main(_reproduce_argv(plain_q, plain, tmp_path / "a.csv")) == 0
    mixed = dict(plain, orig_advanced=sources.make("oa", "gz", runs["orig_advanced"]),
                 rep_baseline=sources.make("rb", "pipe", runs["rep_baseline"]),
                 rep_advanced=sources.make("ra", "xz", runs["rep_advanced"]))
    assert cli.main(_reproduce_argv(plain_q, mixed, tmp_path / "b.csv")) == 0, capsys.readouterr()
    cap = capsys.readouterr()
    assert "holds no run lines" not in cap.err and "k1: 0.9" in cap.out  # gz's ir_metadata
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_an_empty_pipe_is_named_as_empty(tmp_path, sources, capsys):
    qrels, runs = _collection(seed=1)
    plain_q, plain = _write_plain(tmp_path, qrels, runs)
    empty = sources.make("rb", "pipe", b"# only a comment\n")
    rc = cli.main(_reproduce_argv(plain_q, dict(plain, rep_baseline=empty), tmp_path / "o.csv"))
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err == f"rankbook reproduce: {empty}: holds no run lines (only blank " \
                              "lines or # comments)"


def test_a_large_run_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    """A 1.07 GB run ran 258 s up to 3.8 GB, then died with MemoryError: now the sizes of
    every input are checked before any is read (a sparse file: nothing is written)."""
    qrels, runs = _collection(seed=2)
    plain_q, plain = _write_plain(tmp_path, qrels, runs)
    big = tmp_path / "big.run"
    with open(big, "wb") as fh:
        fh.truncate(1_070_000_000)
    read = []
    real = trec_format.read_table
    monkeypatch.setattr(trec_format, "read_table", lambda *a, **k: read.append(a) or real(*a, **k))
    for cmd in ("reproduce", "compare"):
        if cmd == "reproduce":
            argv = _reproduce_argv(plain_q, dict(plain, rep_advanced=str(big)), tmp_path / "o.csv")
        else:
            argv = ["compare", plain["orig_baseline"], str(big), "--qrels", plain_q,
                    "--out", str(tmp_path / "o.csv"), "--force"]
        rc = cli.main(argv)
        err = capsys.readouterr().err.strip()
        assert rc == 2 and len(err.splitlines()) == 1, err
        assert "big.run: 1,070,000,000 bytes, over the limit of 536,870,912 bytes; --max-bytes " \
               "raises it" in err
        assert read == []  # not even the qrels were read
    with pytest.raises(trec_format.InputTooLarge, match="1,070,000,000 bytes, over the limit"):
        real(big, "run", max_bytes=1 << 29)


@pytest.mark.parametrize("kind", ["pipe", "gz", "stdin"])
def test_a_pipe_or_compressed_run_over_the_limit_stops_as_it_passes_it(kind, tmp_path, sources,
                                                                         capsys):
    """Its size is not known before: it is counted while read, refused once past the limit
    (lowered here with --max-bytes, as for a 1 GB run with the default 512 MiB)."""
    qrels, runs = _collection(seed=3, topics=40, depth=60)
    plain_q, plain = _write_plain(tmp_path, qrels, runs)
    src = sources.make("rb", kind, runs["rep_baseline"] * 3)
    limit = max(map(len, [qrels, *runs.values()])) + 1000  # every file is below it
    if kind == "gz":
        assert os.path.getsize(src) < limit  # its text is what counts
    rc = cli.main(_reproduce_argv(plain_q, dict(plain, rep_baseline=src), tmp_path / "o.csv",
                                  "--max-bytes", str(limit)))
    err = capsys.readouterr().err.strip()
    name = "<stdin>" if kind == "stdin" else src
    assert rc == 2 and len(err.splitlines()) == 1, err
    assert f"{name}: more than {limit:,} bytes of text" in err and "--max-bytes raises it" in err
    assert ("once decompressed" in err) == (kind == "gz")


def test_stdin_is_read_once_and_named(tmp_path, sources, capsys):
    qrels, runs = _collection(seed=4)
    plain_q, plain = _write_plain(tmp_path, qrels, runs)
    sources.make("x", "stdin", runs["rep_baseline"])
    rc = cli.main(_reproduce_argv(plain_q, dict(plain, rep_baseline="-", rep_advanced="-"),
                                  tmp_path / "o.csv"))
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err == ("rankbook reproduce: <stdin>: standard input is given twice, and "
                               "it can be read once; give each input its own file or pipe")
    pipe = sources.make("p", "pipe", runs["rep_baseline"])
    rc = cli.main(["compare", pipe, pipe, "--qrels", plain_q, "--out", str(tmp_path / "c.csv")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and f"{pipe}: is given twice, and a pipe can be read once" in err
    # a bad line read from standard input is named <stdin>:line
    sources.make("x", "stdin", runs["rep_baseline"] + b"t-1 Q0 zz 1 high rep_baseline\n")
    rc = cli.main(_reproduce_argv(plain_q, dict(plain, rep_baseline="-"), tmp_path / "o.csv"))
    err = capsys.readouterr().err.strip()
    n = runs["rep_baseline"].count(b"\n") + 1
    assert rc == 2 and f"<stdin>:{n}: the score of document 'zz' for query 't-1' is not a " \
                       "number: 'high'" in err


@pytest.mark.parametrize("magic, what", [
    (b"\x28\xb5\x2f\xfd" + b"\x00" * 20, "zstd-compressed; rankbook reads plain text, gzip, bz2 "
                                         "and xz: decompress it first (zstd -d FILE) or give it "
                                         "as <(zstd -dc FILE)"),
    (b"PK\x03\x04" + b"\x00" * 20, "a zip archive; "),
    (b"\x04\x22\x4d\x18" + b"\x00" * 20, "lz4-compressed; "),
    # mtime=0: the bytes are part of the test's id, which both xdist workers must collect alike
    (gzip.compress(gzip.compress(b"1 0 a 1\n", mtime=0), mtime=0),
     "gzip-compressed data that holds gzip data again"),
    (bz2.compress(b"1 Q0 a 1 1 t\n")[:-8], "a damaged bz2 file"),
    (lzma.compress(b"1 Q0 a 1 1 t\n")[:-8], "a damaged xz file"),
])
def test_compressions_are_named(magic, what, tmp_path):
    p = tmp_path / "r.bin"
    p.write_bytes(magic)
    with pytest.raises(ValueError, match="r.bin: " + re.escape(what)):
        trec_format.read_table(p, "run")


def test_a_nul_or_other_control_byte_in_a_line_is_refused_with_file_and_line(tmp_path):
    """A NUL went into a query id, which the scorer then skipped as unjudged, and AP changed
    without a word (0.5417 to 0.625 in the issue's run)."""
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n1 0 b 1\n1 0 c 0\n2 0 a 1\n")
    r = tmp_path / "r"
    text = "1 Q0 a 1 3 t\n1 Q0 c 2 2 t\n1 Q0 b 3 1 t\n2 Q0 x 1 2 t\n2 Q0 a 2 1 t\n"
    r.write_text(text)
    assert conventions.evaluate_run(q, r, ["AP"]).aggregate["AP"] == pytest.approx((5 / 6 + 0.5) / 2)
    for byte, label in [("\x00", "NUL"), ("\x0b", "U+000B"), ("\x7f", "DEL"), ("\x85", "U+0085")]:
        r.write_text(text.replace("2 Q0 x", "2" + byte + " Q0 x"), encoding="utf-8")
        with pytest.raises(ValueError, match=rf"r:4: a control character .* \({re.escape(label)}\) at "
                                             "column 2"):
            conventions.evaluate_run(q, r, ["AP"])
        with pytest.raises(ValueError, match=rf"r:4: a control character .* \({re.escape(label)}\)"):
            trec_format.read_run(r)
    q.write_text("1 0 a 1\n1 0 b\x001 1\n")
    with pytest.raises(ValueError, match=r"q:2: a control character '\\x00' \(NUL\)"):
        trec_format.read_qrels(q)


def test_levels_written_with_an_exponent(tmp_path):
    """trec_eval reads a level with C's atol: '1e2' is 1 there and 100 in Python. The profiles
    that take whole levels refuse it (as they refuse 0.5), naming file and line; the sklearn
    profile reads 100; '1e0' and '0e3' are what atol reads, and pass."""
    q = tmp_path / "q"
    r = tmp_path / "r"
    r.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n")
    q.write_text("1 0 a 1e0\n1 0 b 0e3\n")
    assert conventions.evaluate_run(q, r, ["nDCG"]).aggregate["nDCG"] == 1.0
    q.write_text("1 0 a 1\n1 0 b 1e2\n")
    for conv in ("trec_eval", "trec_eval_9", "pytrec_eval", "ir_measures", "ranx"):
        with pytest.raises(ValueError, match=r"q:2: the relevance of document 'b' for query '1' "
                                             r"is written '1e2', with an exponent; .*atol.* "
                                             r"gives 1 where '1e2' is 100"):
            conventions.evaluate_run(q, r, ["nDCG"], conv)
    ndcg = conventions.evaluate_run(q, r, ["nDCG"], "sklearn").aggregate["nDCG"]
    assert ndcg == pytest.approx(conventions.evaluate_run(
        {"1": {"a": 1, "b": 100}}, {"1": {"a": 3.0, "b": 2.0}}, ["nDCG"], "sklearn").aggregate["nDCG"])
    q.write_text("1 0 a 1\n1 0 b 5E-1\n")  # a fraction written with an exponent: refused too
    with pytest.raises(ValueError, match="q:2: .* is written '5E-1'"):
        conventions.evaluate_run(q, r, ["AP"])
    # the same through read_qrels' DataFrame (its attrs), and through a pipe-like stream
    with pytest.raises(ValueError, match="q:2: .* is written '5E-1'"):
        conventions.evaluate_run(trec_format.read_qrels(q), r, ["AP"])
    with pytest.raises(ValueError, match="<stream>:2: .* is written '1e2'"):
        conventions.evaluate_run(io.BytesIO(b"1 0 a 1\n1 0 b 1e2\n"), r, ["AP"])


def test_numbers_python_reads_and_c_does_not_are_refused(tmp_path):
    r = tmp_path / "r"
    for text, why in [("1_0", "is not a number as trec_eval reads one: '1_0'"),
                      ("١", "is not a number as trec_eval reads one"),
                      ("infinity", "must be a finite number, got 'infinity'")]:
        r.write_text(f"1 Q0 a 1 {text} t\n", encoding="utf-8")
        with pytest.raises(ValueError, match=f"r:1: the score of document 'a' for query '1' {why}"):
            trec_format.read_run(r)


def test_library_reads_each_path_once(tmp_path, sources, monkeypatch):
    """repro.reproduce and compare_conventions read a path once, so a pipe works there too."""
    qrels, runs = _collection(seed=5)
    plain_q, plain = _write_plain(tmp_path, qrels, runs)
    opened = []
    real = trec_format.open_input
    monkeypatch.setattr(trec_format, "open_input", lambda s, **k: opened.append(s) or real(s, **k))
    res = repro.reproduce(*(plain[r] for r in ROLES), plain_q, measures=["AP"], n_resamples=100)
    assert sorted(map(str, opened)) == sorted([plain_q, *plain.values()])
    assert res.metadata[plain["orig_advanced"]].fields == {"tag": "adv", "k1": "0.9"}
    pipe = sources.make("r", "pipe", runs["orig_baseline"])
    table = conventions.compare_conventions(plain_q, pipe, ["AP"], ["trec_eval", "ir_measures"])
    want = conventions.compare_conventions(plain_q, plain["orig_baseline"], ["AP"],
                                           ["trec_eval", "ir_measures"])
    pd.testing.assert_frame_equal(table, want)
