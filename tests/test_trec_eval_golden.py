"""Golden tests: trec_eval's own test outputs, each under the profile of the trec_eval version
that printed it (issue 31), for every measure they print (issue 38).

The files are in data/trec_eval_tests/ (copied byte for byte from usnistgov/trec_eval; its
README.md gives each file's commit, command line and version):

- ``trec_eval_10/out.test`` (default measures) and ``trec_eval_10/out.test.a`` (``-m all_trec``):
  the 10.0 line, tested under ``convention="trec_eval"``;
- ``trec_eval_9/out.test.aq`` (``-m all_trec -q``, per query) and
  ``trec_eval_9/out.test.meas_params`` (measures with parameters, per query): trec_eval 9.x,
  tested under ``convention="trec_eval_9"``.

Every line is compared: each measure's name as trec_eval prints it is a rankbook measure name
(``map``, ``P_10``, ``iprec_at_recall_0.10``, ``set_F``, ...), compared at the printed precision
(4 decimals: a difference of at most 0.5e-4, plus 1e-12 for the last bit of a double; counts
exactly); ``runid`` is the run tag and ``relstring`` :func:`rankbook.conventions.relstrings`.
The three measures printed with parameters rankbook does not take (``utility_2,-1,0,0``,
``11pt_avg_.25,.5,.75``, ``ndcg_1=3,2=9,4=4.5``) are listed in ``NOT_OFFERED``, and a test
requires that list to be exactly what is not compared, so it cannot grow unnoticed.

``iprec_at_recall`` and ``11pt_avg`` turn a recall level into a number of relevant documents
by a rule that changed between versions (``rankbook.trec_measures.RECALL_CUTOFF_RULES``): the
9.x files are compared under 9's rule; the 10.0-line files were printed by a build that fused
the multiply-add of that rule (README; ``test_which_build_printed_each_golden``), and are
compared under ``recall_cutoff="plus_0.9_fused"``; the 10.0 release's own rule (``lround``, the
trec_eval profile's default) differs from them in the lines ``test_the_10_0_rule_differs_where_
expected`` names. The inputs have no near-equal scores (``test_inputs_have_no_near_equal_scores``),
so the two profiles give the same numbers elsewhere; every file is also tested under the other
profile (the 10.0 measures rbp, rbp_resid and unj are not 9's). Mutation checks show the
comparison fails when a golden value or a run score changes.
"""

from __future__ import annotations

import functools
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from rankbook import trec_format
from rankbook.conventions import CONVENTIONS, evaluate_run, parse_measure, profile, relstrings

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval_tests"
QRELS = DATA / "qrels.comment.test"
RUN = DATA / "results.comment.test"

#: Golden file -> the profile of the trec_eval version that printed it.
GOLDEN = {
    "trec_eval_10/out.test": "trec_eval",
    "trec_eval_10/out.test.a": "trec_eval",
    "trec_eval_9/out.test.aq": "trec_eval_9",
    "trec_eval_9/out.test.meas_params": "trec_eval_9",
}
#: The recall cut-off rule of the build that printed each file (README).
BUILD_RULE = {"trec_eval_10": "plus_0.9_fused", "trec_eval_9": "plus_0.9"}
PROFILES = ("trec_eval", "trec_eval_9")
CASES = [(f, p) for f in GOLDEN for p in PROFILES]

#: trec_eval's names that are text: the run tag and the relevance string.
TEXT = ("runid", "relstring")
#: Names the goldens print that rankbook does not compute: measures given parameters on the
#: command line that rankbook's names do not take (utility's coefficients, 11pt_avg's levels,
#: ndcg's gain per level).
NOT_OFFERED = frozenset(["utility_2,-1,0,0", "11pt_avg_.25,.5,.75", "ndcg_1=3,2=9,4=4.5"])


def rankbook_name(name: str, convention: str = "trec_eval") -> str | None:
    """The rankbook measure for a trec_eval measure name (the name itself), or None when the
    profile does not compute it. ``ndcg_cut_23`` is printed for ``-mndcg_cut.23.4`` (trec_eval
    reads cut-offs as whole numbers)."""
    if name in TEXT or name in NOT_OFFERED:
        return None
    try:
        parse_measure(name, convention)
    except ValueError:
        return None
    return name


def read_out(path: Path):
    """(measure, query, printed value) of a trec_eval output file, as trec_eval prints it: the
    name left-aligned in 22 columns (longer names as they are), a tab, the query (``all`` for the
    mean), a tab, the value."""
    rows = []
    for line in path.read_text(encoding="ascii").splitlines():
        field, query, value = line.split("\t")
        name = field.rstrip(" ")
        assert field == f"{name:<22}" or (len(name) > 22 and field == name), line
        rows.append((name, query, value))
    return rows


def convention_for(golden: str, convention) -> object:
    """The profile, with the recall cut-off rule of the build that printed the file."""
    return profile(convention, recall_cutoff=BUILD_RULE[golden.split("/")[0]])


def score(run, convention, names=None):
    """rankbook's values for every measure the golden files print, as one evaluation."""
    name = convention if isinstance(convention, str) else convention.name
    if names is None:
        names = {n for f in GOLDEN for n, _, _ in read_out(DATA / f)}
    names = sorted({n for n in names if rankbook_name(n, name) is not None})
    return evaluate_run(QRELS, run, names, convention=convention)


@functools.lru_cache(maxsize=None)
def evaluation(convention, rule=None):
    return score(RUN, convention if rule is None else profile(convention, recall_cutoff=rule))


def mismatches(rows, result, texts=None):
    """The golden rows rankbook disagrees with: (name, query, printed, computed)."""
    per_query = {(str(q), m): v for q, m, v in result.per_query.itertuples(index=False)}
    bad = []
    for name, query, printed in rows:
        if name in TEXT:
            if texts is not None and texts[(name, query)] != printed:
                bad.append((name, query, printed, texts[(name, query)]))
            continue
        if name not in result.aggregate.index:
            continue
        computed = result.aggregate[name] if query == "all" else per_query[(query, name)]
        if re.fullmatch(r"-?[0-9]+", printed):  # a count
            ok = computed == int(printed)
        else:
            ok = abs(computed - float(printed)) <= 0.5e-4 + 1e-12
        if not ok:
            bad.append((name, query, printed, computed))
    return bad


@functools.lru_cache(maxsize=None)
def text_values(convention):
    tag = trec_format.read_table(str(RUN), "run").tag
    out = {("runid", "all"): tag}
    out.update({("relstring", q): f"'{s}'" for q, s in relstrings(QRELS, RUN, convention).items()})
    return out


def compared(rows, convention="trec_eval"):
    return [r for r in rows if r[0] in TEXT or rankbook_name(r[0], convention) is not None]


@pytest.mark.parametrize("golden, convention", CASES)
def test_golden_file(golden, convention):
    rows = read_out(DATA / golden)
    result = evaluation(convention, BUILD_RULE[golden.split("/")[0]])
    assert mismatches(rows, result, text_values(convention)) == []
    assert compared(rows, convention), "nothing compared"
    queries = {q for _, q, _ in rows if q != "all"}
    if queries:  # a -q file: the same queries as rankbook scored
        assert queries == set(result.per_query["query_id"].astype(str))


def test_how_much_is_compared():
    """What the goldens hold: counted here so that a parsing slip that drops lines fails."""
    counts = {f: (len(read_out(DATA / f)), len(compared(read_out(DATA / f), GOLDEN[f])))
              for f in GOLDEN}
    assert counts == {
        "trec_eval_10/out.test": (30, 30),  # the default measures: every line
        "trec_eval_10/out.test.a": (99, 99),  # -m all_trec: every line
        "trec_eval_9/out.test.aq": (367, 367),  # -m all_trec -q: every line of 3 queries and all
        "trec_eval_9/out.test.meas_params": (88, 88 - 4 * 3),  # all but 3 parameterised names
    }


def test_not_offered_is_exactly_what_is_not_compared():
    """Every name the goldens print is compared or listed in NOT_OFFERED, and the list holds
    nothing the goldens do not print: it can neither grow nor go stale unnoticed."""
    printed = {n for f in GOLDEN for n, _, _ in read_out(DATA / f)}
    not_compared = {n for n in printed if n not in TEXT and rankbook_name(n) is None}
    assert not_compared == NOT_OFFERED
    # every measure trec_eval 10.0 prints with -m all_trec is one rankbook computes
    all_trec = {n for n, _, _ in read_out(DATA / "trec_eval_10/out.test.a")}
    assert {n for n in all_trec if n not in TEXT and rankbook_name(n) is None} == set()


def test_the_10_0_rule_differs_where_expected():
    """Under trec_eval 10.0's own recall rule (lround, the trec_eval profile's default) the
    10.0-line goldens differ only in the means of iprec_at_recall_0.10, _0.30, _0.60 and of
    11pt_avg (README: the build that printed them fused 9's rule); at 0.10 and 0.60 by the
    amounts the README gives, at 0.30 back to 9's value (0.2852)."""
    rows = read_out(DATA / "trec_eval_10/out.test.a")
    bad = mismatches(rows, evaluation("trec_eval"))
    got = {(n, q): round(float(v), 4) for n, q, _, v in bad}
    assert got == {("iprec_at_recall_0.10", "all"): 0.3885, ("iprec_at_recall_0.30", "all"): 0.2852,
                   ("iprec_at_recall_0.60", "all"): 0.0858, ("11pt_avg", "all"): 0.1962}
    assert profile("trec_eval").recall_cutoff == "lround"
    assert profile("trec_eval_9").recall_cutoff == "plus_0.9"


def test_inputs_have_no_near_equal_scores():
    """Why both profiles must agree here: trec_eval 9 compares scores as C float, 10.0 as
    double; on these runs single precision keeps every order and every tie of the doubles."""
    run = trec_format.read_run(RUN)
    assert len(run) == 1500 and run["query_id"].nunique() == 3
    for _, scores in run.groupby("query_id")["score"]:
        s64 = np.sort(scores.to_numpy(np.float64))
        s32 = np.sort(scores.to_numpy(np.float64).astype(np.float32))
        assert np.array_equal(np.diff(s64) == 0, np.diff(s32) == 0)
        assert np.array_equal(np.argsort(scores.to_numpy(np.float64), kind="stable"),
                              np.argsort(scores.to_numpy(np.float32), kind="stable"))


def test_both_profiles_give_the_same_numbers():
    """With one recall rule, the two profiles agree on every measure both offer."""
    a, b = evaluation("trec_eval", "plus_0.9"), evaluation("trec_eval_9", "plus_0.9")
    common = sorted(set(a.aggregate.index) & set(b.aggregate.index))
    assert len(common) > 90
    assert a.aggregate[common].equals(b.aggregate[common])
    pa = a.per_query[a.per_query["measure"].isin(common)].reset_index(drop=True)
    pb = b.per_query[b.per_query["measure"].isin(common)].reset_index(drop=True)
    assert pa.equals(pb)


def test_inputs_are_the_judgements_the_outputs_count():
    """The commented copies hold what trec_eval counted in test/qrels.test and results.test:
    num_rel, num_rel_ret and num_nonrel_judged_ret of out.test.aq, per query."""
    qrels, run = trec_format.read_qrels(QRELS), trec_format.read_run(RUN)
    merged = run.merge(qrels, on=["query_id", "doc_id"], how="left")
    printed = {(n, q): v for n, q, v in read_out(DATA / "trec_eval_9/out.test.aq")}
    for q in ("301", "302", "303"):
        rel = qrels[(qrels["query_id"].astype(str) == q) & (qrels["relevance"] > 0)]
        got = merged[merged["query_id"].astype(str) == q]
        assert len(rel) == int(printed[("num_rel", q)])
        assert int((got["relevance"] > 0).sum()) == int(printed[("num_rel_ret", q)])
        assert int((got["relevance"] == 0).sum()) == int(printed[("num_nonrel_judged_ret", q)])
        assert len(got) == int(printed[("num_ret", q)])


# ---- which build printed each golden -------------------------------------------------------------
#
# iprec_at_recall_x (rankbook does not offer it) turns the recall level x into a number of relevant
# documents c. trec_eval 9 computes (long)(x * R + 0.9) in double (m_iprec_at_recall.c, stored at
# dc0c991c80bae2087de774ed76278e11d9d9f4c6); 0.3 * 77 + 0.9 is 23.999999999999996 there, but 24
# when the multiply-add is fused (one rounding), which is why the later source (stored at
# 2a9e21431ebd7666dd286dc503b296413d10c109) calls the rule "not platform-safe" and uses
# lround(x * R). The printed values tell the three apart (query 302 has R = 77).

CUTOFF_RULES = {
    "x*R+0.9 in double (9.x source)": lambda x, r: int(x * r + 0.9),
    "x*R+0.9 fused (one rounding)": lambda x, r: int(float(Fraction(x) * r + Fraction(0.9))),
    "lround(x*R) (later 10.0 source)": lambda x, r: math.floor(x * r + 0.5),
}


def iprec_at_recall(rule, levels):
    """{(query, level): interpolated precision} of the golden run, ordered as trec_eval orders it
    (score descending, then document id descending), with the relevant-document cut-offs of rule."""
    run, qrels = trec_format.read_run(RUN), trec_format.read_qrels(QRELS)
    relevant = {(str(q), d) for q, d, v in qrels[["query_id", "doc_id", "relevance"]]
                .itertuples(index=False) if v > 0}
    out = {}
    for q, docs in run.groupby("query_id"):
        q = str(q)
        docs = docs.sort_values(["score", "doc_id"], ascending=[False, False])["doc_id"]
        hit = np.array([(q, d) in relevant for d in docs])
        precision = np.cumsum(hit) / np.arange(1, hit.size + 1)
        ranks = np.flatnonzero(hit)
        n_rel = sum(1 for k in relevant if k[0] == q)
        for x in levels:
            c = max(CUTOFF_RULES[rule](x, n_rel), 1)
            out[(q, x)] = precision[ranks[c - 1]:].max() if c <= ranks.size else 0.0
    return out


def rules_that_print(golden):
    """The cut-off rules under which every iprec_at_recall line of a golden holds (4 decimals)."""
    rows = [(float(n.rsplit("_", 1)[1]), q, float(v)) for n, q, v in read_out(DATA / golden)
            if n.startswith("iprec_at_recall_")]
    levels = sorted({x for x, _, _ in rows})
    fits = []
    for rule in CUTOFF_RULES:
        values = iprec_at_recall(rule, levels)
        computed = {(q, x): v for (q, x), v in values.items()}
        for x in levels:
            computed[("all", x)] = np.mean([v for (q, y), v in values.items() if y == x])
        if all(abs(computed[(q, x)] - v) <= 0.5e-4 + 1e-12 for x, q, v in rows):
            fits.append(rule)
    return fits


def test_which_build_printed_each_golden():
    """The 9.x files print what the 9.x rule gives; the 10.0-line files what the same rule gives
    with a fused multiply-add (the build that printed them); neither what the later lround
    source gives, so the 10.0 release's own test outputs are not among the stored files. The
    measures rankbook offers do not depend on this."""
    assert {f: rules_that_print(f) for f in GOLDEN} == {
        "trec_eval_10/out.test": ["x*R+0.9 fused (one rounding)"],
        "trec_eval_10/out.test.a": ["x*R+0.9 fused (one rounding)"],
        "trec_eval_9/out.test.aq": ["x*R+0.9 in double (9.x source)"],
        # its levels (0.1, 0.2, 0.25, 0.5, 0.75) do not tell the two +0.9 rules apart: its
        # version is that of out.test.aq, stored at the same commit
        "trec_eval_9/out.test.meas_params": ["x*R+0.9 in double (9.x source)",
                                             "x*R+0.9 fused (one rounding)"],
    }


# ---- mutation checks: the comparison fails when a golden value or a score changes --------------


@pytest.mark.parametrize("golden", list(GOLDEN))
def test_a_perturbed_golden_value_fails(golden):
    rows = read_out(DATA / golden)
    result = evaluation(GOLDEN[golden], BUILD_RULE[golden.split("/")[0]])
    i = next(i for i, r in enumerate(rows) if rankbook_name(r[0]) is not None and "." in r[2])
    name, query, value = rows[i]
    for delta in (+1e-4, -1e-4):  # two units of the printed precision
        mutated = rows[:i] + [(name, query, f"{float(value) + delta:.4f}")] + rows[i + 1:]
        assert mismatches(mutated, result) == [(name, query, f"{float(value) + delta:.4f}",
                                                pytest.approx(float(value), abs=0.5e-4))]


def test_a_perturbed_run_score_fails():
    """Lift the first relevant document of query 301 (rank 6: P_5 is 0) to the top: trec_eval's
    own numbers no longer hold."""
    run = trec_format.read_run(RUN)
    qrels = trec_format.read_qrels(QRELS)
    in301 = run["query_id"].astype(str) == "301"
    judged301 = qrels[qrels["query_id"].astype(str) == "301"]
    rel = set(judged301.loc[judged301["relevance"] > 0, "doc_id"])
    first = next(d for d in run[in301].sort_values("score", ascending=False)["doc_id"] if d in rel)
    assert list(run[in301].sort_values("score", ascending=False)["doc_id"]).index(first) == 5
    run.loc[in301 & (run["doc_id"] == first), "score"] = 10.0
    result = score(run, "trec_eval_9")
    bad = mismatches(read_out(DATA / "trec_eval_9/out.test.aq"), result)
    assert {(n, q) for n, q, _, _ in bad} >= {("P_5", "301"), ("recip_rank", "301"), ("P_5", "all")}
    assert {q for _, q, _, _ in bad} == {"301", "all"}  # the other queries still hold


def test_the_goldens_pin_the_tie_rule_through_ndcg_rel_only():
    """Of the 10 tied pairs only one mixes a relevant and a non-relevant document (query 301,
    FBIS3-58055 and FBIS3-58025, ranks 67 and 68); trec_eval's order (document id descending)
    puts the relevant one first, and the other order moves every measure of query 301 by less
    than 0.3e-4. Only one measure's printed value tells the two orders apart: the mean of ndcg_rel in the
    all_trec files of both versions (0.36815 rounds to 0.3681, trec_eval prints 0.3682), so the
    goldens pin the tie rule through that line alone; the rule itself is tested against the
    peers' vectors (tests/test_conventions_vectors.py) and the ties tests."""
    right = evaluation("trec_eval").per_query.set_index(["query_id", "measure"])["value"]
    wrong_eval = evaluation(profile("trec_eval", ties="docno_asc"))
    wrong = wrong_eval.per_query.set_index(["query_id", "measure"])["value"]
    diff = (right - wrong)[lambda d: d != 0]
    assert set(diff.index.get_level_values("query_id")) == {"301"}
    assert (diff > 0).all() and diff.abs().max() < 0.3e-4
    bad = {}
    for f in GOLDEN:
        wrong_f = evaluation(profile(GOLDEN[f], ties="docno_asc"), BUILD_RULE[f.split("/")[0]])
        bad[f] = [(n, q, v) for n, q, v, _ in mismatches(read_out(DATA / f), wrong_f)]
    assert bad == {"trec_eval_10/out.test": [],
                   "trec_eval_10/out.test.a": [("ndcg_rel", "all", "0.3682")],
                   "trec_eval_9/out.test.aq": [("ndcg_rel", "all", "0.3682")],
                   "trec_eval_9/out.test.meas_params": []}
