"""Realistic inputs that failed late or crashed (issue 24, finding 4), now run to the end.

Each case is the command a user typed; it runs the real notebook through ``rankbook run``
(a kernel), so these tests are slower than the refusals in ``test_cli.py``.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from rankbook import consensus
from rankbook.book import cli, pipeline

pytestmark = pytest.mark.notebooks


@pytest.fixture
def runs(tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline, "runs_dir", lambda root=None: tmp_path / "runs")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "runs"


def run(capsys, *argv):
    status = cli.main(["run", *argv])
    out = capsys.readouterr()
    assert status == 0, out.err
    from pathlib import Path

    return Path(out.out.strip().splitlines()[-1])


def test_consensus_on_top_10_lists_of_document_ids_and_a_long_label(capsys, runs, tmp_path):
    docs = [f"clueweb12-{i:04d}-{7 * i % 97:02d}-{13 * i:05d}" for i in range(14)]
    long_label = "A result whose title goes on and on " * 6
    lists = [docs[:9] + [long_label], docs[2:12], docs[1:10] + [long_label], docs[4:14]]
    path = tmp_path / "top10.csv"
    rows = ["name," + ",".join(str(i) for i in range(1, 11))]
    rows += [f"system {j}," + ",".join(f'"{d}"' for d in lst) for j, lst in enumerate(lists)]
    path.write_text("\n".join(rows) + "\n")
    folder = run(capsys, "consensus_example", "-p", "rankings_csv", str(path))
    assert (folder / "example_graph.png").stat().st_size > 0
    nb = json.loads((folder / "consensus_example.ipynb").read_text())
    captions = [o["metadata"]["rankbook_figure"]["caption"] for c in nb["cells"]
                for o in c.get("outputs", []) if "rankbook_figure" in o.get("metadata", {})]
    assert captions and "system 0" in captions[0]


def test_the_ir_tour_when_nothing_returned_is_relevant(capsys, runs):
    folder = run(capsys, "ir_metrics_tour", "-p", "relevance", "0,0,0", "-p", "unreturned", "1",
                 "-p", "k", "2", "-p", "scores", "0.5,0.4,0.3", "-p", "n_pairs_sim", "100")
    checks = pd.read_csv(folder / "ir_tour_seed_checks.csv")
    # the nDCG statements cannot be checked on this query alone: they are checked on the fixed
    # witness ranking, and the page says so (nothing is computed on a query with no relevant item)
    ndcg = checks[checks["statement"].str.contains("nDCG|IDCG")]
    assert len(ndcg) and ndcg.astype(str).apply(lambda r: "witness" in " ".join(r) or "fixed ranking" in " ".join(r), axis=1).all(), ndcg.to_string()


def test_rbo_of_lists_of_uneven_length(capsys, runs):
    folder = run(capsys, "rbo_bounds", "-p", "S", "abcdefghij", "-p", "T", "xbd", "-p",
                 "n_random", "30")
    by_depth = pd.read_csv(folder / "rbo_by_depth.csv", keep_default_na=False)
    assert len(by_depth) == 10 and by_depth["T_k"].tolist()[3:] == [""] * 7


@pytest.mark.slow
def test_a_sweep_of_one_length(capsys, runs):
    folder = run(capsys, "sweep_agreement", "-p", "ns", "12", "-p", "n_pairs", "50")
    assert len(pd.read_csv(folder / "sweep_pairs.csv")) == 5


def test_missing_labels_are_refused_by_the_library():
    with pytest.raises(ValueError, match=r"missing label \(nan\) at position 2"):
        consensus.kappa([["a", float("nan"), "b"], ["a", "b", float("nan")]])
    with pytest.raises(ValueError, match=r"missing label \(None\)"):
        consensus.kappa_p([["a", None], ["a"]])


@pytest.mark.parametrize("order", ["clustered", "family"])
def test_agreement_heatmap_with_one_ranking_after_the_reference(capsys, runs, tmp_path,
                                                                monkeypatch, order):
    """A rankings file of two rows (the reference and one ranking) is valid, but no agreement
    ratio is defined on it (a ratio compares two metrics over pairs of rankings): the page says
    so in each section that needs ratios, shows the metric values of the one ranking instead
    of the heat map, and the run finishes (issue 30, finding 17: the kernel failed on it, then
    the file was refused before the kernel)."""
    monkeypatch.delenv("RANKBOOK_ROOT", raising=False)  # the real notebook and its check
    one = tmp_path / "one.csv"
    one.write_text("name,1,2,3,4,5\nreference,A,B,C,D,E\nviewer,B,A,D,C,E\n")
    folder = run(capsys, "agreement_heatmap", "-p", "pairs_csv", str(one), "-p", "k", "2",
                 "-p", "order", order)
    nb = json.loads((folder / "agreement_heatmap.ipynb").read_text())
    outputs = [o for c in nb["cells"] for o in c.get("outputs", [])]
    assert not [o for o in outputs if o["output_type"] == "error"]
    texts = ["".join(o["data"]["text/markdown"]) for o in outputs
             if "text/markdown" in o.get("data", {})]
    skipped = [t for t in texts if t.startswith("Not shown:")]
    assert any("heat map" in t and "1 ranking after the reference" in t for t in skipped)
    assert any("agree fully" in t for t in skipped) and any("disagree most" in t for t in skipped)
    assert not (folder / "agreement_heatmap.png").exists()
    # the metric values of the ranking, as the library computes them
    from rankbook import metrics, permutations
    from rankbook.papers.paper_a.figure1 import label

    values = pd.read_csv(folder / "sample_metric_values.csv", index_col=0)
    assert len(values) == len(metrics.NAMES)
    ref, viewer = permutations.from_labels(list("ABCDE"), list("BADCE"))
    for name in ("recall", "ndcg", "kendall_tau"):
        want = float(metrics.evaluate_many([name], ref[None, :], viewer[None, :], k=2)[name][0])
        assert values.loc[label(name)].iloc[0] == pytest.approx(want, abs=5e-5), name
