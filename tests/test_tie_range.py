"""``evaluate_run(..., ties="range")`` (issue 40, item 3): the lowest, highest and expected
value of a measure over the orders of tied documents.

The oracle is brute force: every order of every query's tied documents is written out as a
run of its own and scored by ``evaluate_run`` itself, under the same profile with the input
order as its tie rule (so that the run is scored in exactly that order, with every other
choice of the profile kept); ir_measures' gdeval nDCG, which always orders ties by document
id, gets the order through the document ids instead, and scikit-learn's LRAP, which
``evaluate_run`` computes only for tied groups, through scikit-learn itself on strictly
ordered scores. On random tied runs (hypothesis) and under every profile, ``low`` and ``high``
must equal the smallest and the largest of those values, ``expected`` their mean, and the
tool's own value must be one of them (for scikit-learn's and torchmetrics' tie-averaged
nDCG: their mean; scikit-learn's AP, one threshold per tied group, is the value of no order and
can exceed the best one, see ``test_sklearn_threshold_ap_can_beat_every_order``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rankbook import conventions as C
from rankbook.conventions import evaluate_run
from rankbook.tie_range import SUPPORTED_FAMILIES

PROFILES = list(C.CONVENTIONS)


def _measures(conv) -> list[str]:
    """Every measure of the profile the range computes (the others are refused, see
    ``test_measures_the_range_does_not_compute_are_refused_before_any_work``)."""
    out = []
    for form in conv.measures:
        fam, cut = form.split("@") if "@" in form else (form, None)
        if fam not in SUPPORTED_FAMILIES:
            continue
        ks = (1, 3, 5) if cut else (None,)
        for k in ks:
            suffix = f"@{k}" if k else ""
            out.append(f"{fam}{suffix}")
            if fam in ("P", "AP", "RR", "R", "Success") and k in (None, 3):
                out.append(f"{fam}(rel=2){suffix}")
    if conv.exp_dcg == "any":
        out += ["nDCG(dcg='exp-log2')@3", "nDCG(dcg='exp-log2')"]
    if conv.exp_dcg == "gdeval":
        out += ["nDCG(dcg='exp-log2')@3"]
    return out


@st.composite
def collections(draw, profile):
    """A few queries, each with 1-6 retrieved documents on a few score levels (ties), some
    judged (levels -1..3, no negative for sklearn), and judged documents nobody retrieved."""
    conv = C.profile(profile)
    low = 0 if profile == "sklearn" else -1
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 3))):
        qid = str(q + 1)
        n = draw(st.integers(2 if profile == "sklearn" else 1, 6))
        levels = draw(st.sampled_from([[1.0, 0.5], [0.0], [3.0, 2.0, 1.0], [0.25, -1.0, 0.0],
                                       [1.0, 1.0000000001, 0.5]]))  # equal in float32
        run[qid] = {f"d{i}": draw(st.sampled_from(levels)) for i in range(n)}
        judged = {}
        for i in range(n):
            if draw(st.booleans()) or profile in ("sklearn", "torchmetrics"):
                judged[f"d{i}"] = draw(st.integers(low, 3))
        for j in range(draw(st.integers(0, 2))):
            judged[f"x{j}"] = draw(st.integers(0, 3))
        if not judged:
            judged["x9"] = 1
        qrels[qid] = judged
    del conv
    return qrels, run


def _orders(scores: dict, precision: str):
    """Every order of the documents that keeps decreasing score (in ``precision``): ties
    permuted in every way."""
    docs = list(scores)
    key = {d: (np.float32(scores[d]) if precision == "float32" else scores[d]) for d in docs}
    levels = sorted(set(key.values()), reverse=True)
    groups = [[d for d in docs if key[d] == v] for v in levels]
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [d for g in combo for d in g]


def _brute(qrels, run, measures, profile):
    """{measure: {query: values over every order of the query's tied documents}}, one
    evaluate_run call per query and score precision for all the measures that share it."""
    conv = C.profile(profile)
    plain = C.profile(conv, ties="input_order", ties_by_measure=())
    parsed = {t: C.parse_measure(t, conv) for t in measures}
    gdeval = {t for t, m in parsed.items() if m.exp_gain and conv.exp_dcg == "gdeval"}
    groups = {}
    for t, m in parsed.items():
        if m.family == "LRAP":
            groups.setdefault("lrap", []).append(t)
        elif t in gdeval:
            groups.setdefault("gdeval", []).append(t)
        else:
            groups.setdefault(conv.score_precision(m.form), []).append(t)
    out = {t: {} for t in measures}
    for how, names in groups.items():
        precision = how if how in ("float32", "float64") else "float64"
        rows_q, rows_r, n_orders = [], [], {}
        for q, scores in run.items():
            orders = list(_orders(scores, precision))
            n_orders[q] = len(orders)
            if how == "lrap":
                from sklearn.metrics import label_ranking_average_precision_score as lrap

                judged = qrels.get(q, {})
                for t in names:
                    y = [[judged.get(d, 0) >= parsed[t].rel for d in o] for o in orders]
                    out[t][q] = np.array([lrap(np.array([row], dtype=int),
                                               -np.arange(len(row), dtype=float)[None, :])
                                          for row in y])
                continue
            for i, o in enumerate(orders):  # each order a query of its own
                pq = f"{q}{i:05d}"
                # gdeval orders ties by document id, descending: ids that sort as the order
                name = ({d: f"{len(o) + 50 - o.index(d):04d}-{d}" for d in o}
                        if how == "gdeval" else {d: d for d in o})
                for d, r in qrels.get(q, {}).items():
                    rows_q.append((pq, name.get(d, d), r))
                rows_r += [(pq, name[d], scores[d]) for d in o]
        if how == "lrap":
            continue
        qdf = pd.DataFrame(rows_q, columns=["query_id", "doc_id", "relevance"])
        rdf = pd.DataFrame(rows_r, columns=["query_id", "doc_id", "score"])
        res = evaluate_run(qdf, rdf, names, convention=conv if how == "gdeval" else plain)
        table = res.per_query.pivot(index="query_id", columns="measure", values="value")
        for t in names:
            for q, k in n_orders.items():
                out[t][q] = np.array([table[t].get(f"{q}{i:05d}", 0.0) for i in range(k)])
    return out


def _check(qrels, run, profile):
    conv = C.profile(profile)
    measures = _measures(conv)
    got = evaluate_run(qrels, run, measures, convention=profile, ties="range").per_query
    assert list(got.columns) == ["query_id", "measure", "value", "low", "high", "expected"]
    plain = evaluate_run(qrels, run, measures, convention=profile).per_query
    np.testing.assert_array_equal(got["value"].to_numpy(), plain["value"].to_numpy())
    everything = _brute(qrels, run, measures, profile)
    for measure in measures:
        brute = everything[measure]
        m = C.parse_measure(measure, conv)
        gdeval = m.exp_gain and conv.exp_dcg == "gdeval"
        rule = "docno_desc" if gdeval else conv.tie_rule(m.form)
        rows = got[got.measure == measure].set_index("query_id")
        for q, vals in brute.items():
            if q not in rows.index:
                continue
            r = rows.loc[q]
            where = f"{profile} {measure} query {q}: {sorted(set(np.round(vals, 6)))}"
            assert r.low == pytest.approx(vals.min(), abs=1e-12), where
            assert r.high == pytest.approx(vals.max(), abs=1e-12), where
            assert r.expected == pytest.approx(vals.mean(), abs=5e-6 if gdeval else 1e-12), where
            if rule == "average":  # the mean over the group: the expected value
                assert r.value == pytest.approx(r.expected, abs=1e-12), where
            elif rule == "threshold":  # not the value of any order (can exceed the best)
                pass
            else:  # the tool's own order is one of the orders
                assert np.isclose(vals, r.value, rtol=0, atol=1e-12).any(), where


@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          derandomize=True, phases=[Phase.explicit, Phase.generate])
@given(data=st.data())
def test_range_equals_brute_force_extremes_and_mean(profile, data):
    qrels, run = data.draw(collections(profile))
    _check(qrels, run, profile)


@pytest.mark.parametrize("settings_", [{"judged_only": True}, {"relevance_level": 2},
                                       {"judged_only": True, "relevance_level": 2}])
@pytest.mark.parametrize("base", ["trec_eval", "trec_eval_9"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          derandomize=True, phases=[Phase.explicit, Phase.generate])
@given(data=st.data())
def test_range_under_trec_evals_options(base, settings_, data):
    """trec_eval's -J (only judged documents ranked) and -l (the level a relevant document
    needs), as ``rankbook eval`` sets them: the brute force scores every order under the same
    options."""
    qrels, run = data.draw(collections(base))
    _check(qrels, run, C.profile(base, **settings_))


def test_measures_the_range_does_not_compute_are_refused_before_any_work(tmp_path):
    """trec_eval's other measures (counts, set measures, interpolated precision...) and its
    -M cut, whose kept documents depend on the order of a tie, are refused in one message
    that names them and what the range computes; no input is read (a missing file is not
    the error)."""
    missing = str(tmp_path / "nothere")
    with pytest.raises(ValueError, match=r"does not compute IPrec@0\.1, num_ret, set_F; it "
                                         r"computes the families nDCG, DCG, AP"):
        evaluate_run(missing, missing, ["AP", "IPrec@0.1", "num_ret", "set_F"], ties="range")
    with pytest.raises(ValueError, match=r"does not take max_documents=5 \(trec_eval's -M\).*"
                                         r"use max_documents=None, or a cut-off in the measure"):
        evaluate_run(missing, missing, ["AP"], convention=C.profile("trec_eval", max_documents=5),
                     ties="range")


def test_gdeval_range_through_document_ids():
    """ir_measures' nDCG(dcg='exp-log2')@k is gdeval's: ties by document id, 5 decimals."""
    qrels = {"1": {"a": 2, "b": 0, "c": 1, "z": 3}, "2": {"a": 1}}
    run = {"1": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5}, "2": {"a": 2.0, "b": 2.0}}
    _check(qrels, run, "ir_measures")


def test_torchmetrics_ap_at_k_is_not_monotone_and_still_exact():
    """Pushing a relevant document below the cut can raise torchmetrics' AP@k (it divides by
    the relevant documents found in the top k): the range takes the cut group apart."""
    qrels = {"1": {"r0": 1, "n0": 0, "r1": 1, "n1": 0}}
    run = {"1": {"r0": 3.0, "n0": 2.0, "r1": 1.0, "n1": 1.0}}
    got = evaluate_run(qrels, run, ["AP@3"], convention="torchmetrics", ties="range")
    row = got.per_query.iloc[0]
    assert (row.low, row.high) == pytest.approx((2 / 3 * 0.5 + 0.5, 1.0))  # 0.8333, 1.0
    # the best order for AP@3 is the one with the relevant tied document *below* the cut
    _check(qrels, run, "torchmetrics")


def test_explicit_orders_have_no_range():
    qrels = {"1": {"a": 1, "b": 0}}
    got = evaluate_run(qrels, {"1": ["b", "a"]}, ["nDCG", "AP"], ties="range")
    agg = got.aggregate
    assert (agg["low"] == agg["value"]).all() and (agg["high"] == agg["value"]).all()
    assert (agg["expected"] == agg["value"]).all()


def test_queries_scored_zero_without_the_run_have_no_range():
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
    run = {"1": {"a": 1.0, "b": 1.0}}
    got = evaluate_run(qrels, run, ["P@1"], convention="ir_measures", ties="range").per_query
    assert got.set_index("query_id").loc["2", ["value", "low", "high", "expected"]].tolist() \
        == [0.0, 0.0, 0.0, 0.0]
    assert got.set_index("query_id").loc["1", ["low", "high", "expected"]].tolist() \
        == [0.0, 1.0, 0.5]


def test_a_pipe_is_read_once(tmp_path):
    import io

    q = tmp_path / "q"
    q.write_text("1 0 a 1\n1 0 b 0\n")
    data = b"1 Q0 a 1 1.0 x\n1 Q0 b 2 1.0 x\n"
    got = evaluate_run(str(q), io.BytesIO(data), "P@1", ties="range").aggregate
    assert got.loc["P@1"].tolist() == [0.0, 0.0, 1.0, 0.5]  # trec_eval: b before a


def test_bad_choices_are_refused():
    with pytest.raises(ValueError, match="ties='best' is not valid"):
        evaluate_run({"1": {"a": 1}}, {"1": {"a": 1.0}}, "P@1", ties="best")
    with pytest.raises(ValueError, match="averaging='pooled'"):
        evaluate_run({"1": {"a": 1}}, {"1": {"a": 1.0}}, "nDCG",
                     convention=C.profile("torchmetrics", averaging="pooled"), ties="range")


def test_the_range_of_the_mean_is_the_mean_of_the_ranges():
    rng = np.random.default_rng(3)
    qrels = {str(q): {f"d{i}": int(rng.integers(0, 3)) for i in range(20)} for q in range(30)}
    run = {q: {d: float(rng.integers(0, 4)) for d in docs} for q, docs in qrels.items()}
    got = evaluate_run(qrels, run, ["nDCG@10", "AP"], ties="range")
    means = got.per_query.groupby("measure", sort=False)[["low", "high", "expected"]].mean()
    pd.testing.assert_frame_equal(got.aggregate[["low", "high", "expected"]], means,
                                  check_names=False)
    assert (got.aggregate["low"] < got.aggregate["high"]).all()
    # torchmetrics averages the gain over a tied group (McSherry and Najork): its value is the
    # expected one
    tm = evaluate_run(qrels, run, ["nDCG@10"], convention="torchmetrics", ties="range")
    assert math.isclose(tm.aggregate.loc["nDCG@10", "value"],
                        tm.aggregate.loc["nDCG@10", "expected"], rel_tol=1e-12)


def test_sklearn_threshold_ap_can_beat_every_order():
    """scikit-learn's average_precision_score takes one threshold per group of tied scores and
    the precision at its end: with a non-relevant document first and two relevant ones tied
    behind it, that is 2/3, while every order of the tie gives (1/2 + 2/3) / 2."""
    from sklearn.metrics import average_precision_score

    qrels = {"1": {"a": 0, "b": 1, "c": 1}}
    run = {"1": {"a": 1.0, "b": 0.5, "c": 0.5}}
    row = evaluate_run(qrels, run, "AP", convention="sklearn", ties="range").per_query.iloc[0]
    peer = average_precision_score([0, 1, 1], [1.0, 0.5, 0.5])
    assert row.value == pytest.approx(peer) == pytest.approx(2 / 3)
    assert row.high == pytest.approx(7 / 12) and row.low == pytest.approx(7 / 12)


def test_rankbook_compare_tie_range_columns(tmp_path, capsys, monkeypatch):
    from rankbook.book import cli

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(2)
    q_lines, runs = [], {"x": [], "y": []}
    for t in range(1, 7):
        for d in range(10):
            q_lines.append(f"{t} 0 d{d} {int(rng.integers(0, 3))}")
        for s in runs:
            runs[s] += [f"{t} Q0 d{d} 0 {float(rng.integers(0, 3))} {s}" for d in range(10)]
    (tmp_path / "q").write_text("\n".join(q_lines) + "\n")
    for s, lines in runs.items():
        (tmp_path / f"{s}.run").write_text("\n".join(lines) + "\n")
    assert cli.main(["compare", "x.run", "y.run", "--qrels", "q", "--measures", "nDCG@5,AP",
                     "--tie-range", "--resamples", "200"]) == 0
    out, _ = capsys.readouterr()
    assert "over the orders of tied documents" in out
    table = pd.read_csv(tmp_path / "compare.csv").set_index(["system", "measure"])
    for s in runs:
        ref = evaluate_run(str(tmp_path / "q"), str(tmp_path / f"{s}.run"), ["nDCG@5", "AP"],
                           ties="range").aggregate
        for m in ("nDCG@5", "AP"):
            row = table.loc[(s, m)]
            assert row["mean"] == pytest.approx(ref.loc[m, "value"], abs=1e-12)
            assert (row.tie_low, row.tie_high, row.tie_expected) == pytest.approx(
                tuple(ref.loc[m, ["low", "high", "expected"]]), abs=1e-12)
            assert row.tie_low < row.tie_high


@pytest.mark.parametrize("profile", ["sklearn", "torchmetrics", "trec_eval_9", "ir_measures"])
def test_queries_in_one_input_only_under_profiles_that_keep_them(profile):
    """A query the qrels do not judge (scored with every label 0 by scikit-learn and
    torchmetrics, skipped by trec_eval) and one the run lacks (0 under ir_measures)."""
    qrels = {"1": {"a": 2, "b": 0, "c": 1}, "3": {"z": 1}}
    run = {"1": {"a": 1.0, "b": 1.0, "c": 0.5}, "2": {"x": 1.0, "y": 1.0}}
    if profile == "ir_measures":
        qrels = {"1": qrels["1"], "3": qrels["3"]}
        run = {"1": run["1"]}
    _check(qrels, run, profile)
