"""Repeated calls give equal results (issue 40, item 6; pytrec_eval issues 22, 38 and 57).

The original pytrec_eval 0.5 keeps state in its evaluator: from the second ``evaluate`` on, a
measure cut at several depths comes back with one depth only, and users reported values that
change between calls. rankbook's ``evaluate_run`` holds no state; these tests call it again and
again, interleaved with other runs and measures, and require the same numbers each time, equal
to pytrec-eval-terrier's (the fixed peer, whose repeated calls are checked too). The conventions
table says it in its last row.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankbook import conventions as C
from rankbook.conventions import evaluate_run

QRELS = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 1, "D4": 0}, "1": {"D0": 1, "D3": 2, "D5": 2}}
RUN = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1},
       "1": {"D1": 0.8, "D3": 0.7, "D4": 0.3, "D2": 0.4, "D10": 8.0}}
MEASURES = ["AP", "nDCG@2", "nDCG@10", "nDCG@100", "P@5", "RR"]


def _other_run(seed):
    rng = np.random.default_rng(seed)
    return {q: {d: float(rng.random()) for d in list(docs) + ["X1", "X2"]}
            for q, docs in QRELS.items()}


@pytest.mark.parametrize("profile", list(C.CONVENTIONS))
def test_evaluate_run_gives_equal_results_on_repeated_calls(profile):
    conv = C.profile(profile)
    offered = [m for m in MEASURES if _offered(m, conv)]
    first = evaluate_run(QRELS, RUN, offered, convention=profile).per_query
    for i in range(5):
        evaluate_run(QRELS, _other_run(i), offered[::-1], convention=profile)  # in between
        again = evaluate_run(QRELS, RUN, offered, convention=profile).per_query
        assert again.equals(first), (profile, i)


def _offered(m, conv):
    try:
        C.parse_measure(m, conv)
    except ValueError:
        return False
    return True


def test_pytrec_eval_terrier_repeated_calls_equal_the_profile():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator(QRELS, {"map", "ndcg_cut.2,10,100"})
    first = evaluator.evaluate(RUN)
    ours = evaluate_run(QRELS, RUN, ["AP", "nDCG@2", "nDCG@10", "nDCG@100"],
                        convention="pytrec_eval").per_query.set_index(["query_id", "measure"])
    names = {"map": "AP", "ndcg_cut_2": "nDCG@2", "ndcg_cut_10": "nDCG@10",
             "ndcg_cut_100": "nDCG@100"}
    for i in range(3):
        evaluator.evaluate(_other_run(i))
        again = evaluator.evaluate(RUN)
        assert again == first  # the fixed peer: every depth, every time (issues 22 and 38)
    assert set(first["0"]) == set(names)
    for q, values in first.items():
        for peer_name, value in values.items():
            assert ours.loc[(q, names[peer_name]), "value"] == pytest.approx(value, abs=1e-12)


def test_the_conventions_table_has_the_repeated_calls_row():
    t = C.conventions_table(with_sources=False).set_index("setting")
    row = t.loc["one evaluator scoring several runs"]
    assert "issues 22, 38, 57" in row["pytrec_eval"] and "pytrec-eval-terrier" in row["pytrec_eval"]
    assert row.notna().all() and (row != "").all()
