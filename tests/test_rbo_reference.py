"""All 10,000 of Corsi and Urbano's reference vectors of tie-aware RBO (SIGIR 2024), every tie
variant (w, a, b) and every score (ext, min, max, res), read from ``../shared`` (the authors'
file is CC BY-SA and is not committed here; ``tests/shared_sources.py`` says what happens when
it is absent)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankbook import rbo as R
from rankbook.ties import parse_ranking

from shared_sources import shared_file

SOURCE = ("sources", "corsi-urbano-2024", "rbo-test.csv")
N_VECTORS = 10_000
TOL = 1e-10  # the authors' own test compares at 6 decimals; every value here agrees far closer


def _ranking(text):
    # their notation writes a tie group in parentheses; ours in braces
    return parse_ranking(text.replace("(", "{").replace(")", "}"))


@pytest.fixture(scope="module")
def vectors():
    df = pd.read_csv(shared_file(*SOURCE))
    xs = [_ranking(t) for t in df["x"]]
    ys = [_ranking(t) for t in df["y"]]
    return df, xs, ys, df["p"].to_numpy()


def test_every_reference_vector_in_every_variant(vectors):
    df, xs, ys, p = vectors
    assert len(df) == N_VECTORS
    got = R.rbo_batch(xs, ys, p)
    report = {}
    for column, values in got.items():
        diff = np.abs(values - df[column].to_numpy())
        report[column] = (int((diff <= TOL).sum()), float(diff.max()))
    bad = {c: r for c, r in report.items() if r[0] != N_VECTORS}
    assert not bad, f"vectors agreeing within {TOL} (count, largest difference): {bad}"
    assert len(report) == 12  # 3 variants x 4 scores


def test_the_batch_is_the_single_functions(vectors):
    """rbo_batch (vectorised over the pairs) against the functions of one pair, to rounding."""
    df, xs, ys, p = vectors
    rows = np.random.default_rng(7).choice(len(df), 100, replace=False)
    got = R.rbo_batch([xs[i] for i in rows], [ys[i] for i in rows], p[rows])
    funcs = {"ext": R.rbo_ext, "min": R.rbo_min, "max": R.rbo_max, "res": R.rbo_res}
    for j, i in enumerate(rows):
        for v in R.TIES:
            for score, f in funcs.items():
                assert got[f"{v}.{score}"][j] == pytest.approx(f(xs[i], ys[i], p[i], ties=v), abs=1e-14)


def test_the_tie_range_holds_the_expected_rbo_of_each_vector(vectors):
    """RBO^a_min is the mean of RBO_min over the orders of the ties (RBO^avg), so it lies
    between RBO^low and RBO^high; the authors' values are the check."""
    df, xs, ys, p = vectors
    for i in np.random.default_rng(11).choice(len(df), 500, replace=False):
        ref = df["a.min"].iloc[i]
        avg = R.rbo_avg(xs[i], ys[i], p[i], score="rbo_min")
        assert avg == pytest.approx(ref, abs=TOL)
        lo = R.rbo_low(xs[i], ys[i], p[i], score="rbo_min")
        hi = R.rbo_high(xs[i], ys[i], p[i], score="rbo_min")
        assert lo - 1e-12 <= ref <= hi + 1e-12
