"""The fast readings of evaluate_run (issue 31, item 6; issue 37, item 2) give what the
general reading gives: dicts of dicts with text ids joined as they are read, TREC files read
block by block with numpy (the one reader) and joined by a hash of their bytes. A block with
something to refuse is read line by line, whose values and messages are those of the plain
input."""

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


def _joined(qp, rp):
    return c._table_inputs(tf.read_table(qp, "qrels"), tf.read_table(rp, "run"))


def test_plain_inputs_take_the_fast_readings(tmp_path):
    qp, rp = _write(tmp_path, "q", QRELS), _write(tmp_path, "r", RUN)
    assert _joined(qp, rp) is not None
    assert _joined(str(qp), str(rp)) is not None
    assert tf._numpy_block(RUN.encode(), "run") is not None
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
    # every variant is read by the columnar reader and joined by hashes
    assert _joined(qp, rp) is not None
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
    if "twice" not in message:  # the columnar reader leaves the block to the careful one
        assert tf._numpy_block((RUN + bad).encode(), "run") is None
    with pytest.raises(ValueError, match=message):
        c.evaluate_run(qp, rp, MEASURES)


def test_a_hash_collision_takes_the_general_reading(tmp_path, monkeypatch):
    qp, rp = _write(tmp_path, "q", QRELS), _write(tmp_path, "r", RUN)
    fast = c.evaluate_run(qp, rp, MEASURES, "ir_measures")
    monkeypatch.setattr(tf, "pair_keys", lambda q, h: np.zeros(q.size, dtype=np.uint64))
    assert _joined(qp, rp) is None
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


def _rows(r):
    """(queries, documents, values, lines, tag) of a block's rows, as text."""
    q = np.repeat(np.array(r.head_names, dtype=object), np.diff(np.append(r.heads, r.values.size)))
    lines = np.arange(r.values.size) if r.lines is None else r.lines
    return (list(q), [d.decode() for d in r.docs.tolist()], list(r.values), list(lines), r.tag,
            r.n_lines, r.exp_row)


@pytest.mark.parametrize("seed", range(6))
def test_numpy_block_reads_as_the_careful_reader(seed):
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(int(rng.integers(1, 40))):
        sep = [" ", "\t", "  ", " \t "][int(rng.integers(0, 4))]
        value = [repr(float(rng.random())), f"{rng.random():.4f}", "1e-3", "-2", "+.5",
                 "12345678901234567890", "5."][int(rng.integers(0, 7))]
        fields = [f"q{i % 3}", "Q0", f"doc#{i}é"[: int(rng.integers(4, 7))], str(i + 1), value,
                  "tag"]
        if rng.random() < 0.1:  # a blank or comment line, never the last
            lines.append(["", "# note", "  ", " #x y"][int(rng.integers(0, 4))])
        lines.append((" " if rng.random() < 0.2 else "") + sep.join(fields))
    text = "\n".join(lines) + "\n"
    careful = tf._careful_block(text.encode(), "x", "run", 1, 0)
    for variant in (text, text.replace("\n", "\r\n"), text[:-1]):
        fast = tf._numpy_block(variant.encode(), "run")
        assert fast is not None
        assert _rows(fast) == _rows(careful)
    assert tf._numpy_block(text.replace("\n", "\r").encode(), "run") is None  # lone CR
    assert tf._numpy_block(text.replace("Q0", "Q\x000", 1).encode(), "run") is None


@pytest.mark.parametrize("text, value", [("0.1", 0.1), ("-0", -0.0), ("+5", 5.0), (".5", 0.5),
                                         ("5.", 5.0), ("007", 7.0), ("1e3", 1000.0),
                                         ("1.5E-2", 0.015), ("0.30000000000000004", 0.30000000000000004),
                                         ("123456789012345678901234", 1.2345678901234568e23)])
def test_numbers_parse_as_float_does(text, value):
    col = np.array([text.encode(), b"1"], dtype="S32")
    got, exp_row = tf._parse_numbers(col)
    assert got[0] == value == float(text) and np.signbit(got[0]) == np.signbit(value)
    # noted: a value written with an exponent that C's atol reads as another number
    assert exp_row == (0 if text in ("1e3", "1.5E-2") else -1)


@pytest.mark.parametrize("text", ["1_0", "inf", "nan", "1e400", "0x10", "1e", ".", "-", "+-1",
                                  "1.2.3", "1-2", "e5", "١"])
def test_numbers_that_c_does_not_read_are_left_to_the_careful_reader(text):
    col = np.array([text.encode(), b"1"])
    assert tf._parse_numbers(col) is None
    with pytest.raises(ValueError, match="x:1: the score of document 'd' for query 'q' "):
        tf._scan_text(f"q Q0 d 1 {text} t\n", "x", "run", 1)


def test_random_numbers_parse_exactly():
    rng = np.random.default_rng(3)
    vals = np.concatenate([rng.random(2000), rng.normal(0, 1e6, 2000), rng.integers(-99, 99, 200)])
    texts = ([repr(float(v)) for v in vals] + [f"{v:.4f}" for v in vals] + [f"{v:.6e}" for v in vals]
             + [f"{v:.15g}" for v in vals])
    col = np.array([t.encode() for t in texts])
    got, exp_row = tf._parse_numbers(col)
    assert np.array_equal(got, np.array([float(t) for t in texts]))
    assert texts[exp_row] == f"{vals[0]:.6e}"
    got, exp_row = tf._parse_numbers(np.array([b"1e0", b"2E+00", b"0e5", b"-3e0", b"1e2"]))
    assert exp_row == 4  # 1e0, 2E+00, 0e5 and -3e0 are what atol reads


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
    assert _joined(qp, rp) is not None
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
