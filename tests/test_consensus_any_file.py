"""Every valid rankings file runs through the consensus notebooks' library calls (issue 30,
finding 13).

Four or six systems' top-10 lists drawn from a pool of 40 documents overlap little: often no
document is in every list. ``rankbook run consensus_example -p rankings_csv top10.csv`` then
failed in the top-k weighting cell with ``KeyError: "None of [Index([-1, -1, -1])] ..."``:
:func:`rankbook.papers.paper_b.checks.topk_remark_cases` found no case and returned a frame of object
columns; concatenated with the constructed set's cases, ``~holds`` turned the booleans into the
integers -1 and -2. It now returns typed columns.

The property test writes files of every shape :func:`rankbook.consensus.read_rankings_csv`
accepts (2 to 20 rankings, 1 to 12 cells each, pools from 1 to 40 items so that the lists
overlap fully, partly or not at all, tie groups, partial lists, long and odd labels, quoted
commas) and runs on each the library calls the consensus notebooks make, in their order
(``consensus_example``: the matrix, the counts, the graph and its weights, duplicates, the
top-k weighting and its remark; ``consensus_search_engines``: the grid, the curves, the
sensitivity table and the agreement summary). One real notebook run on a low-overlap top-10
file goes through ``rankbook run`` (slow).
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankbook import consensus
from rankbook.papers.paper_b import checks as paper_b_checks
from rankbook.papers.paper_b import grids as paper_b_grids

ODD_LABELS = ["Café ☕", "doc, with a comma", 'a "quoted" title', "007", "1.0", "ü", "x y z",
              ("A result whose title goes on and on " * 6).strip(), "clueweb12-0001-42-00013", "-1",
              "None", "nan", "True", "[1]", "0"]


@st.composite
def rankings_files(draw):
    """(CSV text, the rankings as written): a file the reader accepts."""
    pool_size = draw(st.integers(1, 40))
    odd = draw(st.lists(st.sampled_from(ODD_LABELS), unique=True, max_size=pool_size))
    pool = odd + [f"doc{i}" for i in range(pool_size - len(odd))]
    n_rankings = draw(st.integers(2, 20))
    rows = []
    for _ in range(n_rankings):
        size = draw(st.integers(1, min(12, len(pool))))
        items = draw(st.permutations(pool))[:size]
        cells, i = [], 0
        while i < len(items):  # tie groups of 1 to 3 items
            g = draw(st.integers(1, 3))
            cells.append(items[i:i + g])
            i += g
        rows.append(cells)
    width = max(len(r) for r in rows)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["name"] + [str(i) for i in range(1, width + 1)])
    for j, cells in enumerate(rows):
        writer.writerow([f"system {j}"] + ["|".join(c) for c in cells] + [""] * (width - len(cells)))
    return out.getvalue(), rows


def _example_chain(R, names, gamma=0.8, lam=0.7, deviation="std"):
    """The library calls of notebooks/consensus_example.ipynb on the user's rankings, in order."""
    A = consensus.consensus_matrix(R, base=0)
    L = np.tril(A.to_numpy(), -1)
    ell = consensus.longest_common(R)
    kp = consensus.kappa_p(R)
    k_total = consensus.kappa(R)
    assert float(np.sum(kp)) == pytest.approx(k_total)
    assert int(np.trace(A.to_numpy())) == (kp[0] if len(kp) else 0)
    if k_total <= 2000:
        listed = consensus.common_subsequences(R)
        assert len(listed) == k_total
    shortest = min(len(paper_b_checks.positions(r)) for r in R)
    if shortest <= 8:
        brute = paper_b_checks.brute_force_kappa_p(R)
        assert [float(x) for x in brute][:len(kp)] == [float(x) for x in kp]
    assert all(consensus.kappa(R, base=b) == k_total for b in range(len(R)))
    assert ell == len(kp) and L.shape == A.shape
    g = consensus.consensus_graph(R, base=0, deviation=deviation)
    pd.DataFrame(g.positions, index=names, columns=[str(x) for x in g.items])
    for dev in ("std", "mad", "sqrt_mad"):
        gd = consensus.consensus_graph(R, base=0, deviation=dev)
        assert len(gd.theta(gamma)) == len(gd.items)
    assert len(g.edge_weights(lam)) == len(g.gaps)
    dup = list(R) + [R[-1]] * 3
    consensus.kappa_hat(R), consensus.kappa_hat(dup)
    consensus.kappa(R, gamma, lam, deviation=deviation), consensus.kappa(dup, gamma, lam, deviation=deviation)
    for z in (3, 5, 8, 12):
        consensus.kappa_1_topk(R, z, 0.9, gamma)
        consensus.kappa_1_topk(R, z, 0.9, gamma, deviation="mad")
    counter = [["a"] + [f"x{k}.{i}" for i in range(10)] for k in range(9)] + [[f"x9.{i}" for i in range(18)] + ["a"]]
    longest = min(max(len(paper_b_checks.positions(r)) for r in R), 50)
    remark = {}
    for dev in ("std", "mad", "sqrt_mad"):
        mine = paper_b_checks.topk_remark_cases(R, range(1, longest + 1), 0.9, gamma, deviation=dev)
        built = paper_b_checks.topk_remark_cases(counter, [10], 0.9, 1.0, deviation=dev)
        remark[dev] = pd.concat([mine.assign(set="these"), built.assign(set="built")], ignore_index=True)
    failing = pd.concat([remark[dev].assign(spread=dev) for dev in remark])
    assert failing.holds.dtype == bool
    failing = failing[~failing.holds]  # the expression that raised KeyError on Index([-1, ...])
    if not failing.empty:
        failing.pivot_table(index=["set", "zeta", "item", "positions"], columns="spread",
                            values="weight").reset_index()
    return k_total


def _search_engines_chain(groups, gammas=(1.0, 0.85, 0.5), lams=(1.0, 0.45), deviation="std"):
    """The library calls of notebooks/consensus_search_engines.ipynb on the user's groups."""
    sets = {g: list(named.values()) for g, named in groups.items()}
    curves = {}
    for name, R in sets.items():
        consensus.consensus_graph(R)
        consensus.kappa(R), consensus.kappa_p(R)
        grid = consensus.kappa_grid(R, list(gammas), list(lams), deviation=deviation)
        assert grid.shape == (len(gammas), len(lams))
        curves[name] = consensus.kappa_p_curves(R, list(gammas), list(lams), ps=(1, 2, 3),
                                                deviation=deviation)
    paper_b_grids.sensitivity_table(curves)
    summary = consensus.agreement_summary(sets, n_resamples=40, seed=0)
    assert len(summary) == len(sets)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rankings_files(), st.sampled_from(["std", "mad", "sqrt_mad", "sample_std"]))
def test_every_valid_rankings_file_runs_through_the_consensus_calls(tmp_path_factory, case, deviation):
    text, rows = case
    path = tmp_path_factory.mktemp("rankings") / "rankings.csv"
    path.write_text(text, encoding="utf-8")
    groups = consensus.read_rankings_csv(path)
    named = groups["all"]
    R, names = list(named.values()), list(named)
    # the reader gives back what was written: labels exact, ties as sets
    for r, cells in zip(R, rows):
        assert [set(x) if isinstance(x, frozenset) else {x} for x in r] == [set(c) for c in cells]
    _example_chain(R, names, deviation=deviation)
    _search_engines_chain(groups, deviation=deviation)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rankings_files())
def test_every_valid_rankings_file_draws_the_consensus_graph(tmp_path_factory, case):
    import matplotlib

    matplotlib.use("agg")
    import matplotlib.pyplot as plt

    from rankbook import plotting
    from rankbook.book import outputs

    text, _ = case
    path = tmp_path_factory.mktemp("rankings") / "rankings.csv"
    path.write_text(text, encoding="utf-8")
    R = list(consensus.read_rankings_csv(path)["all"].values())
    fig = plotting.consensus_graph_figure(R, 0.8, 0.7, base=0, legible=outputs.legible_fontsize)
    plt.close(fig)


def _top10_file(path, n_systems, seed=0, pool=40):
    rng = np.random.default_rng(seed)
    rows = ["name," + ",".join(str(i) for i in range(1, 11))]
    for s in range(n_systems):
        rows.append(f"sys{s}," + ",".join(f"doc{d}" for d in rng.choice(pool, 10, replace=False)))
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("n_systems", [4, 6])
def test_the_reported_low_overlap_top_10_lists(tmp_path, n_systems):
    """The issue's files, at library level: no document in every list."""
    path = _top10_file(tmp_path / "top10.csv", n_systems, seed=1)
    groups = consensus.read_rankings_csv(path)
    R = list(groups["all"].values())
    assert consensus.kappa(R) == 0  # nothing common: the case that failed
    cases = paper_b_checks.topk_remark_cases(R, range(1, 11), 0.9, 0.8)
    assert cases.empty and cases.holds.dtype == bool and cases.weight.dtype == float
    _example_chain(R, list(groups["all"]))
    _search_engines_chain(groups)


@pytest.mark.slow
@pytest.mark.notebooks
def test_consensus_example_runs_on_low_overlap_top_10_lists(tmp_path, monkeypatch, capsys):
    """The real notebook through ``rankbook run`` (a kernel) on six systems' top-10 lists."""
    from pathlib import Path

    from rankbook.book import cli, pipeline

    monkeypatch.setattr(pipeline, "runs_dir", lambda root=None: tmp_path / "runs")
    monkeypatch.chdir(tmp_path)
    path = _top10_file(tmp_path / "top10.csv", 6, seed=1)
    status = cli.main(["run", "consensus_example", "-p", "rankings_csv", str(path)])
    out = capsys.readouterr()
    assert status == 0, out.err
    folder = Path(out.out.strip().splitlines()[-1])
    nb = json.loads((folder / "consensus_example.ipynb").read_text())
    errors = [o for c in nb["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    text = json.dumps(nb)
    assert "No item placed after a cut-off by some ranking keeps a weight above 0 in these rankings." in text
