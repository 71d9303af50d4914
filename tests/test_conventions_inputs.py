"""evaluate_run gives the same per-query values whichever form the same data comes in: dicts
of dicts (scored through a per-query lookup of the judgements), DataFrames and TREC files
(scored through a factorization of every document id), under every profile, on random runs
with tied scores, unjudged and unretrieved documents and queries on one side only."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from rankbook import conventions as c

MEASURES = {"sklearn": ["nDCG@5", "nDCG", "AP"], "torchmetrics": ["nDCG@5", "AP", "P@3", "RR"]}
DEFAULT = ["nDCG@5", "nDCG", "AP", "RR", "P@3", "R@10", "Rprec"]


def _random_data(seed):
    rng = np.random.default_rng(seed)
    pool = [f"clueweb12-{i:04d}tw-{i % 7:02d}-{(i * 37) % 1000:05d}" for i in range(40)]
    qrels, run = {}, {}
    for q in range(int(rng.integers(2, 7))):
        qid = f"wt-{200 + q}"
        if q != 1:  # query wt-201 is in the run only
            judged = rng.choice(pool, size=int(rng.integers(1, 12)), replace=False)
            qrels[qid] = {str(d): int(r) for d, r in zip(judged, rng.integers(0, 4, judged.size))}
        if q != 2:  # query wt-202 is in the qrels only
            docs = rng.choice(pool, size=int(rng.integers(2, 15)), replace=False)
            scores = rng.integers(0, 5, docs.size) / 2  # many ties
            run[qid] = {str(d): float(s) for d, s in zip(docs, scores)}
    return qrels, run


def _frames(qrels, run):
    qf = pd.DataFrame([(q, d, r) for q, v in qrels.items() for d, r in v.items()],
                      columns=["query_id", "doc_id", "relevance"])
    rf = pd.DataFrame([(q, d, s) for q, v in run.items() for d, s in v.items()],
                      columns=["query_id", "doc_id", "score"])
    return qf, rf


def _files(qrels, run, folder):
    qp, rp = folder / "x.qrels", folder / "x.run"
    qp.write_text("".join(f"{q} 0 {d} {r}\n" for q, v in qrels.items() for d, r in v.items()))
    rp.write_text("".join(f"{q} Q0 {d} {i} {s!r} t\n" for q, v in run.items()
                          for i, (d, s) in enumerate(v.items(), start=1)))
    return qp, rp


def _score(qrels, run, name, conv):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return c.evaluate_run(qrels, run, MEASURES.get(name, DEFAULT), conv).per_query
        except ValueError as exc:
            return str(exc)


@pytest.mark.parametrize("seed", range(12))
def test_dicts_frames_and_files_agree(seed, tmp_path):
    qrels, run = _random_data(seed)
    qf, rf = _frames(qrels, run)
    qp, rp = _files(qrels, run, tmp_path)
    profiles = [(n, n) for n in c.CONVENTIONS] + [
        ("trec_eval -c", c.profile("trec_eval", complete=True)),
        ("ranx make_comparable", c.profile("ranx", make_comparable=True))]
    for name, conv in profiles:
        key = name.split()[0]
        a = _score(qrels, run, key, conv)
        b = _score(qf, rf, key, conv)
        f = _score(qp, rp, key, conv)
        if isinstance(a, str):  # refused: refused alike, with the same message
            assert a == b == f, name
            continue
        for other in (b, f):
            assert not isinstance(other, str), (name, other)
            pd.testing.assert_frame_equal(a.reset_index(drop=True), other.reset_index(drop=True),
                                          check_exact=True, obj=name)


def test_ids_that_are_one_number_written_two_ways_are_named_as_read(tmp_path):
    """'401.0' in the qrels and '401' in the run are different ids (compared as text): every
    message names both as read and says they are the same number."""
    import warnings

    import pytest

    from rankbook.conventions import evaluate_run

    q, r = tmp_path / "q.txt", tmp_path / "r.txt"
    q.write_text("401.0 0 a 1\n402 0 b 1\n")
    r.write_text("401 Q0 a 1 2.0 r\n402 Q0 b 1 2.0 r\n")
    with pytest.raises(ValueError, match=r"query '401.0' is judged in the qrels but absent from the "
                                         r"run.*the qrels' '401.0' and the run's '401' are the same "
                                         r"number written differently"):
        evaluate_run(q, r, "AP", "trec_eval")
    q.write_text("401.0 0 a 1\n")
    r.write_text("401 Q0 a 1 2.0 r\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate_run(q, r, "AP", "trec_eval_9")
    text = " ".join(str(w.message) for w in caught)
    assert "the run has 1 queries ('401'), the qrels 1 queries ('401.0')" in text
    assert "the qrels' '401.0' and the run's '401' are the same number" in text
