"""The peers' own test vectors, each under its own peer's profile: every vector must agree,
with the peer's own tolerance; there is no list of exceptions. The vectors and where each came
from are in tests/fixtures/conventions/ (a comment header per file)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from rankbook.conventions import evaluate_run, profile

FIXTURES = Path(__file__).parent / "fixtures" / "conventions"

TREC_NAMES = {"map": "AP", "Rprec": "Rprec", "recip_rank": "RR", "ndcg": "nDCG"}
TREC_CUT = {"P": "P", "recall": "R", "ndcg_cut": "nDCG", "map_cut": "AP", "success": "Success"}


def _jsonl(name):
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line and not line.startswith("#")]


def _trec_expected():
    out = []
    for line in (FIXTURES / "trec_eval_expected.txt").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        name, query, value = line.split()
        if name in TREC_NAMES:
            measure = TREC_NAMES[name]
        else:
            base, _, k = name.rpartition("_")
            measure = f"{TREC_CUT[base]}@{k}"
        out.append((name, measure, query, value))
    return out


TREC = _trec_expected()
VECTORS = [v for f in ("ranx", "ir_measures", "pytrec_eval", "sklearn", "torchmetrics")
           for v in _jsonl(f"{f}_vectors.jsonl")]


@pytest.mark.parametrize("convention", ["trec_eval", "trec_eval_9", "pytrec_eval", "ir_measures"])
def test_trec_eval_test_output_for_query_303(convention):
    """test/out.test.aq of trec_eval, query 303: all 43 values, printed to 4 decimals."""
    res = evaluate_run(FIXTURES / "trec_eval_303.qrels", FIXTURES / "trec_eval_303.run",
                       [m for _, m, _, _ in TREC], convention)
    got = {(q, m): v for q, m, v in res.per_query.itertuples(index=False)}
    for name, measure, query, value in TREC:
        assert f"{got[(query, measure)]:.4f}" == value, (name, got[(query, measure)], value)
    assert len(TREC) == 43


def _check(expected, value, tolerance):
    if tolerance == "exact":
        return value == expected
    if tolerance == "allclose":  # numpy.allclose defaults, ranx's tests
        return abs(value - expected) <= 1e-8 + 1e-5 * abs(expected)
    if tolerance in ("approx",):  # pytest.approx defaults
        return math.isclose(value, expected, rel_tol=1e-6, abs_tol=1e-12)
    if tolerance == "assert_almost_equal":  # numpy.testing, decimal=7
        return abs(value - expected) < 1.5e-7
    if tolerance.startswith("places="):  # unittest assertAlmostEqual / printed decimals
        places = int(tolerance.split("=")[1])
        return round(abs(value - expected), places) == 0
    if tolerance.startswith("number="):  # pytest's doctest NUMBER: within 10**-d of d decimals
        return abs(value - expected) <= 10 ** -int(tolerance.split("=")[1])
    if tolerance.startswith("delta="):
        return abs(value - expected) <= float(tolerance.split("=")[1])
    raise AssertionError(tolerance)


def _profile(name):
    return profile("torchmetrics", averaging="pooled") if name == "torchmetrics-pooled" else name


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: f"{v['profile']}:{v['source']}:{v['measure']}:{v['query']}")
def test_peer_vector(vector):
    conv = _profile(vector["profile"])
    if vector["expected"] == "error":
        with pytest.raises(ValueError):
            evaluate_run(vector["qrels"], vector["run"], vector["measure"], conv)
        return
    res = evaluate_run(vector["qrels"], vector["run"], vector["measure"], conv)
    if vector["query"] == "all":
        value = float(res.aggregate[vector["measure"]])
    else:
        row = res.per_query[res.per_query["query_id"] == vector["query"]]
        assert len(row) == 1
        value = float(row["value"].iloc[0])
    assert _check(vector["expected"], value, vector["tolerance"]), (value, vector["expected"])


def test_vector_counts():
    """The numbers the book and the report quote (they are counted, not typed elsewhere)."""
    counts = {}
    for v in VECTORS:
        counts[v["profile"].split("-")[0]] = counts.get(v["profile"].split("-")[0], 0) + 1
    assert counts == {"ranx": 23, "ir_measures": 23, "pytrec_eval": 12, "sklearn": 196, "torchmetrics": 18}
    assert len(TREC) == 43
