"""How far ties can move a score: the computations of the page ``notebooks/tie_range.ipynb``.

Three situations the issue threads describe, rebuilt on data made for the page (the threads'
own collections are not available here): a model that scores every document alike, whose
nDCG depends only on the order the tool puts the tie in (elixir-nx/scholar #360); reciprocal
rank fusion, whose sums of ``1 / (k + rank)`` tie whenever two documents swap ranks between the
fused runs, so that a tool ordering ties by hash-map iteration prints another nDCG@10 after a
restart (xerj #940); and runs whose scores are printed with few decimals. Every range is exact
(:mod:`rankbook.tie_range`, ``evaluate_run(..., ties="range")``); the restarts are seeded
random orders of the ties, scored by :func:`rankbook.conventions.evaluate_run`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankbook.conventions import CONVENTIONS, evaluate_run, profile
from rankbook.ledger.limits import within_time

__all__ = ["constant_model", "simulate_collection", "rrf", "range_table", "restart_means",
           "rounded_runs", "decisive_queries", "restart_figure", "verdict", "limits"]


def constant_model(levels, measures, conventions=None) -> pd.DataFrame:
    """One query whose documents are listed best first (as learning-to-rank data sets often
    list them) and a model that gives every document the same score: each profile's value
    beside the lowest, highest and expected value over the orders of the tie.

    Document ids count *down* the list (``d9``, ``d8``, ...), so trec_eval's rule (ids
    descending) also keeps the listed order; a tool that keeps the input order (ranx, the
    torchmetrics profile's ``input_order``) does too.

    Examples
    --------
    >>> t = constant_model([1, 0, 0], ["P@1"], ["trec_eval", "sklearn"])
    >>> t[["convention", "value", "low", "high", "expected"]].round(4).values.tolist()
    [['trec_eval', 1.0, 0.0, 1.0, 0.3333]]
    """
    levels = [int(x) for x in levels]
    n = len(levels)
    docs = [f"d{n - 1 - i}" for i in range(n)]
    qrels = {"1": dict(zip(docs, levels))}
    run = {"1": {d: 1.0 for d in docs}}
    rows = []
    for name in conventions or list(CONVENTIONS):
        conv = profile(name)
        offered = [m for m in measures if _offers(conv, m)]
        if not offered:
            continue
        res = evaluate_run(qrels, run, offered, convention=conv, ties="range").aggregate
        for m in offered:
            rows.append({"convention": name, "measure": m, **res.loc[m].to_dict()})
    return pd.DataFrame(rows, columns=["convention", "measure", "value", "low", "high",
                                       "expected"])


def _offers(conv, measure) -> bool:
    from rankbook.conventions import parse_measure

    try:
        parse_measure(measure, conv)
    except ValueError:
        return False
    return True


def simulate_collection(n_queries: int, n_docs: int, seed: int = 0):
    """A collection shaped like BEIR SciFact: each query has 1 to 3 relevant documents
    (level 1, sometimes 2) among ``n_docs`` candidates, and two first-stage rankers score the
    candidates, a lexical one (BM25-like scores, printed to 4 decimals) and a dense one
    (cosine-like), each seeing the relevance through its own noise.

    Returns ``(qrels, runs)``: ``{query: {doc: level}}`` and ``{"lexical": run, "dense": run}``
    with ``{query: {doc: score}}`` runs.

    Examples
    --------
    >>> qrels, runs = simulate_collection(3, 10, seed=1)
    >>> sorted(runs), len(qrels), len(runs["dense"]["q1"])
    (['dense', 'lexical'], 3, 10)
    """
    rng = np.random.default_rng(seed)
    qrels, lexical, dense = {}, {}, {}
    for q in range(n_queries):
        qid = f"q{q + 1}"
        docs = [f"{qid}-d{i}" for i in range(n_docs)]
        rel = np.zeros(n_docs, dtype=int)
        k = min(int(rng.integers(1, 4)), n_docs)
        rel[rng.choice(n_docs, k, replace=False)] = rng.choice([1, 1, 2], size=k)
        qrels[qid] = {d: int(r) for d, r in zip(docs, rel) if r > 0}
        for d in rng.choice(n_docs, min(n_docs, 10), replace=False):  # judged non-relevant
            qrels[qid].setdefault(docs[d], 0)
        signal = (rel > 0).astype(float)
        lex = np.round(np.exp(rng.normal(2.0 + 0.9 * signal, 0.5)), 4)
        den = np.clip(0.55 + 0.12 * signal + rng.normal(0, 0.08, n_docs), 0, 1)
        lexical[qid] = dict(zip(docs, lex.tolist()))
        dense[qid] = dict(zip(docs, den.tolist()))
    return qrels, {"lexical": lexical, "dense": dense}


def rrf(runs, k: int = 60, depth: int | None = None) -> dict:
    """Reciprocal rank fusion: each document's sum over the runs of :math:`1/(k + r)`, with
    :math:`r` its rank in that run (ties broken by document id, descending, as trec_eval
    would rank the input runs), over each run's top ``depth`` (all when ``None``).

    Two documents whose ranks swap between two runs get the same sum, exactly: floating-point
    addition of the same two terms does not depend on their order.

    Examples
    --------
    >>> fused = rrf([{"1": {"a": 3.0, "b": 2.0}}, {"1": {"a": 2.0, "b": 3.0}}], k=60)
    >>> fused["1"]["a"] == fused["1"]["b"]
    True
    """
    out = {}
    for run in runs:
        for q, scores in run.items():
            ranked = sorted(scores, key=lambda d: (-scores[d], _desc(d)))
            if depth is not None:
                ranked = ranked[:depth]
            acc = out.setdefault(q, {})
            for r, d in enumerate(ranked, start=1):
                acc[d] = acc.get(d, 0.0) + 1.0 / (k + r)
    return out


def _desc(doc: str):
    return tuple(-b for b in doc.encode())


def range_table(qrels, runs: dict, measures, convention="trec_eval") -> pd.DataFrame:
    """Each run's mean of each measure as the profile scores it, beside its lowest, highest and
    expected value over the orders of the run's tied documents, and the width of the range.

    Examples
    --------
    >>> t = range_table({"1": {"a": 1}}, {"tied": {"1": {"a": 1.0, "b": 1.0}}}, ["P@1"])
    >>> t[["run", "measure", "value", "low", "high", "expected", "width"]].values.tolist()
    [['tied', 'P@1', 0.0, 0.0, 1.0, 0.5, 1.0]]
    """
    rows = []
    for name, run in runs.items():
        agg = evaluate_run(qrels, run, list(measures), convention=convention,
                           ties="range").aggregate
        for m in measures:
            r = agg.loc[m]
            rows.append({"run": name, "measure": m, "value": r["value"], "low": r["low"],
                         "high": r["high"], "expected": r["expected"],
                         "width": r["high"] - r["low"]})
    return pd.DataFrame(rows)


def decisive_queries(qrels, run, measure, convention="trec_eval") -> tuple[int, int]:
    """(queries whose ``measure`` the tie order can move, queries scored).

    Examples
    --------
    >>> decisive_queries({"1": {"a": 1}, "2": {"c": 1}},
    ...                  {"1": {"a": 1.0, "b": 1.0}, "2": {"c": 2.0, "d": 1.0}}, "P@1")
    (1, 2)
    """
    pq = evaluate_run(qrels, run, measure, convention=convention, ties="range").per_query
    return int((pq["high"] > pq["low"]).sum()), int(len(pq))


def restart_means(qrels, run, measure, convention="trec_eval", n_restarts: int = 200,
                  seed: int = 0) -> np.ndarray:
    """The mean of ``measure`` after ``n_restarts`` seeded "restarts" of a tool that orders
    tied documents as a hash map happens to iterate them: each restart a fresh random order of
    every tie group (the profile's other choices kept).

    Examples
    --------
    >>> means = restart_means({"1": {"a": 1}}, {"1": {"a": 1.0, "b": 1.0}}, "P@1", n_restarts=40)
    >>> sorted(set(means.tolist()))
    [0.0, 1.0]
    """
    conv = profile(profile(convention), ties="input_order", ties_by_measure=())
    rows = [(q, d, s) for q, scores in run.items() for d, s in scores.items()]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    rng = np.random.default_rng(seed)
    out = np.empty(n_restarts)
    for i in range(n_restarts):
        shuffled = frame.iloc[rng.permutation(len(frame))]
        out[i] = evaluate_run(qrels, shuffled, measure, convention=conv).aggregate.iloc[0]
    return out


def rounded_runs(run, decimals) -> dict:
    """The run with its scores rounded to each number of decimals: ``{"d decimals": run}``
    (what a run file written with ``%.{d}f`` holds).

    Examples
    --------
    >>> rounded_runs({"1": {"a": 0.123, "b": 0.118}}, [2])["2 decimals"]
    {'1': {'a': 0.12, 'b': 0.12}}
    """
    return {f"{d} decimals": {q: {doc: round(s, int(d)) for doc, s in scores.items()}
                              for q, scores in run.items()} for d in decimals}


def restart_figure(means, low: float, high: float, expected: float, value: float,
                   measure: str, convention: str):
    """Histogram of the restarts' means with the exact range, the expected value and the
    profile's own value marked (matplotlib, imported here)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    span = max(high - low, 1e-9)
    bins = np.linspace(low - 0.05 * span, high + 0.05 * span, 41)
    ax.hist(means, bins=bins, color="#9ab", edgecolor="white", label="random tie orders")
    ax.axvspan(low, high, color="#fd9", alpha=0.35, zorder=0,
               label="exact range over all tie orders")
    ax.axvline(expected, color="#333", ls="--", lw=1.2, label="expected value")
    ax.axvline(value, color="#c33", lw=1.6, label=f"{convention}'s value")
    ax.set_xlabel(f"mean {measure}")
    ax.set_ylabel("restarts")
    ax.legend(fontsize=9, loc="upper left", framealpha=0.9)
    fig.tight_layout()
    return fig


def verdict(constant: pd.DataFrame, fused: pd.DataFrame, restarts, decisive: tuple,
            measure: str, convention: str, escape=str) -> str:
    """The page's verdict box (Markdown): what the tie order does to the constant model and to
    the fused run, in numbers computed on the page; ``escape`` makes the measure's and the
    profile's names literal text (``rankbook.book.outputs.escape_markdown``)."""
    c = constant[(constant.convention == convention) & (constant.measure == measure)]
    f = fused[(fused.run == "RRF") & (fused.measure == measure)].iloc[0]
    lines = []
    name, m = escape(convention), escape(measure)
    if len(c):
        c = c.iloc[0]
        lines.append(f"A model that scores every document alike gets {m} "
                     f"**{c['value']:.4f}** under {name}, anywhere from {c['low']:.4f} to "
                     f"{c['high']:.4f} depending on the tie order; its expected value over "
                     f"the orders is {c['expected']:.4f}.")
    moved, scored = decisive
    within = bool(np.all((restarts >= f["low"] - 1e-12) & (restarts <= f["high"] + 1e-12)))
    lines.append(f"Reciprocal rank fusion: the tie order can move {m} on {moved} of "
                 f"{scored} queries, and the mean between **{f['low']:.4f} and "
                 f"{f['high']:.4f}** (width {f['width']:.4f}); {len(restarts)} random tie "
                 f"orders gave {np.min(restarts):.4f} to {np.max(restarts):.4f}, "
                 f"{'inside' if within else 'OUTSIDE'} the exact range.")
    body = "\n\n".join(lines)
    return f":::{{admonition}} Verdict\n:class: verdict\n\n{body}\n:::\n"


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
def limits(values: dict, root, timeout: float) -> None:
    """The restarts of the fused run (n_restarts x n_queries x its documents) and the ranges of
    the rounded runs (decimals x n_queries x n_docs) fit in a cell's time limit.

    Examples
    --------
    >>> limits({"n_queries": 1000, "n_docs": 500, "rrf_depth": 500, "n_restarts": 500,
    ...         "decimals": [0, 1, 2, 3, 4, 5, 6, 7, 8], "measures": ["AP"] * 6},
    ...        None, 600)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: n_restarts = 500 restarts of the fused run ... takes about ... min, more than the 10 min a cell may run (the notebook's time limit); lower n_restarts, n_queries, n_docs or rrf_depth
    >>> limits({"n_queries": 300, "n_docs": 100, "rrf_depth": 20, "n_restarts": 200,
    ...         "decimals": [0, 1, 2, 3], "measures": ["AP"] * 3}, None, 600)
    """
    q, d = values["n_queries"], values["n_docs"]
    fused = q * min(d, 2 * values["rrf_depth"])
    # measured (in process, 2 loaded cores): about 3 microseconds per document of a restart
    # (shuffle and score) and 6 per document of a range (scoring it and its two orders); a
    # margin of 2
    seconds = 2 * (3e-6 * values["n_restarts"] * fused
                   + 6e-6 * (len(values["decimals"]) + 3) * q * d * len(values["measures"]))
    within_time(seconds, timeout,
                f"n_restarts = {values['n_restarts']} restarts of the fused run of "
                f"n_queries = {q} queries (up to 2 x rrf_depth = {2 * values['rrf_depth']} "
                f"documents each) and {len(values['decimals'])} rounded runs of n_docs = {d}",
                "lower n_restarts, n_queries, n_docs or rrf_depth")
