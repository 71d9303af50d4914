"""The fast readings of evaluate_run (issue 31, item 6) give what the general reading gives:
dicts of dicts with text ids joined as they are read, plain TREC files read whole with numpy
and joined by a hash of their bytes, plain blocks split at once. Anything unusual goes to the
general reading, whose values and messages are those of the plain input."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from rankbook import conventions as c
from rankbook import trec_format as tf

MEASURES = ["nDCG@5", "nDCG", "AP", "RR", "P@3", "R@10", "Rprec"]
QRELS = "wt-1 0 d-b 1\nwt-1 0 d-a 2\nwt-1 0 d-z 0\nwt-2 0 d-c 1\nwt-3 0 d-a 3\n"
RUN = ("wt-1 Q0 d-a 1 2.5 t\nwt-1 Q0 d-x 2 1.5 t\nwt-1 Q0 d-b 3 1.5 t\n"
       "wt-2 Q0 d-a 1 0.5 t\nwt-2 Q0 d-c 2 0.5 t\nwt-4 Q0 d-c 1 9 t\n")


def _write(tmp_path, name, text, mode="w"):
    p = tmp_path / name
    if mode == "wb":
        p.write_bytes(text)
    else:
        p.write_text(text)
    return p


def _frame(result):
    return result.per_query.reset_index(drop=True)


def test_plain_inputs_take_the_fast_readings(tmp_path):
    qp, rp = _write(tmp_path, "q", QRELS), _write(tmp_path, "r", RUN)
    assert c._file_inputs(qp, rp) is not None
    assert c._file_inputs(str(qp), str(rp)) is not None
    qrels = {"wt-1": {"d-b": 1, "d-a": 2}, "wt-2": {"d-c": 1}}
    assert c._dict_inputs(qrels, {"wt-1": {"d-a": 2.5, "d-x": 1.5}}) is not None
    # values a dict does not hold as plain numbers, or ids that are not text: the general path
    assert c._dict_inputs(qrels, {"wt-1": {"d-a": "2.5"}}) is None
    assert c._dict_inputs(qrels, {"wt-1": {"d-a": True}}) is None
    assert c._dict_inputs(qrels, {"wt-1": {7: 1.0}}) is None
    assert c._dict_inputs(qrels, {"wt-1": {}}) is None


@pytest.mark.parametrize("variant", ["tabs", "spaces", "crlf", "comment", "no final newline",
                                     "bom", "gzip"])
def test_files_that_are_not_plain_score_alike(tmp_path, variant):
    import gzip

    qp = _write(tmp_path, "q", QRELS)
    plain = c.evaluate_run(qp, _write(tmp_path, "r", RUN), MEASURES, "trec_eval_9")
    text = {"tabs": RUN.replace(" ", "\t"), "spaces": RUN.replace(" Q0 ", "   Q0  "),
            "crlf": RUN.replace("\n", "\r\n"), "comment": "# bm25\n" + RUN,
            "no final newline": RUN.rstrip("\n"), "bom": "\ufeff" + RUN, "gzip": RUN}[variant]
    data = gzip.compress(text.encode()) if variant == "gzip" else text.encode()
    rp = _write(tmp_path, "r2", data, mode="wb")
    plain_input = variant in ("tabs", "spaces", "no final newline")
    assert (c._file_inputs(qp, rp) is not None) == plain_input
    with pytest.warns(tf.InputNote) if variant == "bom" else _nothing():
        got = c.evaluate_run(qp, rp, MEASURES, "trec_eval_9")
    pd.testing.assert_frame_equal(_frame(got), _frame(plain), check_exact=True)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("bad, message", [
    ("wt-1 Q0 d-a 2 0.5 t\n", r"r:7: document 'd-a' appears twice for query 'wt-1' \(first on line 1\)"),
    ("wt-5 Q0 d-a 1 high t\n", r"r:7: the score of document 'd-a' for query 'wt-5' is not a number: 'high'"),
    ("wt-5 Q0 d-a 1 nan t\n", r"r:7: the score of document 'd-a' for query 'wt-5' must be a finite number"),
    ("wt-5 Q0 d-a 1 0.5\n", r"r:7: a run line has 6 whitespace-separated columns"),
])
def test_bad_files_keep_their_messages(tmp_path, bad, message):
    qp, rp = _write(tmp_path, "q", QRELS), _write(tmp_path, "r", RUN + bad)
    assert c._file_inputs(qp, rp) is None
    with pytest.raises(ValueError, match=message):
        c.evaluate_run(qp, rp, MEASURES)


def test_a_hash_collision_takes_the_general_reading(tmp_path, monkeypatch):
    qp, rp = _write(tmp_path, "q", QRELS), _write(tmp_path, "r", RUN)
    fast = c.evaluate_run(qp, rp, MEASURES, "ir_measures")
    monkeypatch.setattr(c, "_hash_keys", lambda q, d, w: np.zeros(d.size, dtype=np.uint64))
    assert c._file_inputs(qp, rp) is None
    pd.testing.assert_frame_equal(_frame(c.evaluate_run(qp, rp, MEASURES, "ir_measures")),
                                  _frame(fast), check_exact=True)


def test_same_document_in_two_queries_pooled_with_id_ties():
    """Dict rows are their own codes: the same id in two queries must still rank as one id."""
    qrels = {"1": {"a": 1, "b": 0}, "2": {"a": 0, "b": 1}}
    run = {"1": {"a": 1.0, "b": 1.0}, "2": {"b": 1.0, "a": 1.0}}
    frames = (pd.DataFrame([(q, d, r) for q, v in qrels.items() for d, r in v.items()],
                           columns=["query_id", "doc_id", "relevance"]),
              pd.DataFrame([(q, d, s) for q, v in run.items() for d, s in v.items()],
                           columns=["query_id", "doc_id", "score"]))
    for ties in ("docno_desc", "docno_asc"):
        conv = c.profile("torchmetrics", averaging="pooled", ties=ties,
                         ties_by_measure=())
        a = c.evaluate_run(qrels, run, ["AP", "RR", "P@2"], conv)
        b = c.evaluate_run(*frames, ["AP", "RR", "P@2"], conv)
        pd.testing.assert_series_equal(a.aggregate, b.aggregate, check_exact=True)


@pytest.mark.parametrize("seed", range(6))
def test_split_block_reads_as_the_careful_reader(seed):
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(int(rng.integers(1, 40))):
        sep = [" ", "\t", "  ", " \t "][int(rng.integers(0, 4))]
        fields = [f"q{i % 3}", "Q0", f"doc#{i}", str(i + 1), repr(float(rng.random())), "tag"]
        lines.append((" " if rng.random() < 0.2 else "") + sep.join(fields))
    block = ("\n".join(lines) + "\n").encode()
    fast = tf._split_block(block, "run")
    careful = tf._scan_text(block.decode(), "x", "run", 1)
    assert fast is not None
    for f, s in zip(fast[:3], careful[:3]):
        assert list(f) == list(s)
    assert fast[4:] == careful[4:]
    assert tf._split_block(block.replace(b"\n", b"\r\n"), "run") is None
    assert tf._split_block(b"# c\n" + block, "run") is None
    assert tf._split_block(block + b"\n", "run") is None  # a blank line


@pytest.mark.parametrize("seed", range(8))
def test_ties_of_a_run_in_rank_order_move_as_a_full_sort(seed):
    """A run written in rank order only moves its tied documents (by id); the same run in
    another input order is sorted whole. Both give the same values under the id tie rules."""
    rng = np.random.default_rng(seed)
    qrels, ranked, shuffled = {}, {}, {}
    for q in range(5):
        docs = [f"d{int(x)}" for x in rng.choice(60, size=int(rng.integers(1, 30)), replace=False)]
        scores = np.sort(rng.integers(0, 6, len(docs)))[::-1] / 2  # many ties, rank order
        ranked[f"q{q}"] = {d: float(s) for d, s in zip(docs, scores)}
        perm = rng.permutation(len(docs))
        shuffled[f"q{q}"] = {docs[i]: float(scores[i]) for i in perm}
        qrels[f"q{q}"] = {d: int(r) for d, r in zip(docs, rng.integers(0, 3, len(docs)))}
    for conv in ("trec_eval", "trec_eval_9", "ir_measures"):
        ms = MEASURES + (["RR@3", "Judged@5"] if conv == "ir_measures" else [])
        a = c.evaluate_run(qrels, ranked, ms, conv)
        b = c.evaluate_run(qrels, shuffled, ms, conv)
        pd.testing.assert_frame_equal(_frame(a), _frame(b), check_exact=True)


@pytest.mark.parametrize("seed", range(4))
def test_plain_files_with_ids_of_many_widths(seed, tmp_path):
    """Ids of different widths, some a prefix of another ("d1", "d10"), read whole from plain
    files, score as the same data given as DataFrames (the general reading)."""
    rng = np.random.default_rng(seed)
    qrows, rrows = [], []
    for q in range(12):
        docs = [f"d{int(x)}" for x in rng.choice(150, size=int(rng.integers(1, 40)), replace=False)]
        scores = np.round(rng.random(len(docs)) * 3, 1)  # ties
        rrows += [(str(q), d, float(s)) for d, s in zip(docs, scores)]
        judged = [f"d{int(x)}" for x in rng.choice(150, size=int(rng.integers(1, 20)), replace=False)]
        qrows += [(str(q), d, int(r)) for d, r in zip(judged, rng.integers(0, 3, len(judged)))]
    qf = pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance"])
    rf = pd.DataFrame(rrows, columns=["query_id", "doc_id", "score"])
    sep = "\t" if seed % 2 else " "
    qp = _write(tmp_path, "q", "".join(f"{q}{sep}0{sep}{d}{sep}{r}\n" for q, d, r in qrows))
    rp = _write(tmp_path, "r", "".join(f"{q}{sep}Q0{sep}{d}{sep}1{sep}{s!r}{sep}t\n"
                                        for q, d, s in rrows))
    assert c._file_inputs(qp, rp) is not None
    for conv in (c.profile("trec_eval", complete=True), c.profile("trec_eval_9"),
                 c.profile("ir_measures"), c.profile("ranx", make_comparable=True)):
        pd.testing.assert_frame_equal(_frame(c.evaluate_run(qp, rp, MEASURES, conv)),
                                      _frame(c.evaluate_run(qf, rf, MEASURES, conv)),
                                      check_exact=True, obj=conv.name)


def _outcome(qrels, run):
    try:
        return _frame(c.evaluate_run(qrels, run, MEASURES, "trec_eval_9"))
    except ValueError as exc:
        return str(exc)


@pytest.mark.parametrize("seed", range(30))
def test_damaged_files_read_as_the_general_reader(seed, tmp_path):
    """A plain pair of files with one random change (a stray byte, a line break, a blank line,
    an extra or missing column, a non-ASCII blank, a long id...) scores, or is refused, exactly
    as the same files read by read_qrels and read_run."""
    rng = np.random.default_rng(seed)
    stray = ["\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x00", "\x7f", "\xa0", "\u2028", "\x85",
             " ", "\t", "\n", "\n\n", "#", " x", "é", "d" * 40, "1e400", "nan"]
    run = RUN.replace("d-x", "d-xx")
    texts = {"q": QRELS, "r": run}
    which = "qr"[seed % 2]
    text = texts[which]
    at = int(rng.integers(0, len(text) + 1))
    texts[which] = text[:at] + stray[seed % len(stray)] + text[at:]
    qp = tmp_path / "q"
    rp = tmp_path / "r"
    qp.write_bytes(texts["q"].encode("utf-8"))
    rp.write_bytes(texts["r"].encode("utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _outcome(qp, rp)
        try:
            frames = (c.read_qrels(qp), c.read_run(rp))
        except ValueError as exc:
            want = str(exc)
        else:
            want = _outcome(*frames)
    if isinstance(want, str) or isinstance(got, str):
        assert got == want
    else:
        pd.testing.assert_frame_equal(got, want, check_exact=True)
