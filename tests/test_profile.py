"""Profile your own metric (issue 13): the verdicts for the shipped example metric against brute
force on small n, written independently of rankbook.properties; clear errors for broken metrics."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from rankbook import profile
from rankbook.book import cli, pipeline
from rankbook.ledger.paths import project_root

EXAMPLE = str(project_root() / "examples" / "my_metric.py")


def footrule(s, v):
    return sum(abs(a - b) for a, b in zip(s, v))


def compose(s, t):  # (s o t)(i) = s(t(i))
    return tuple(s[t[i] - 1] for i in range(len(t)))


def brute_force(n):
    perms = list(itertools.permutations(range(1, n + 1)))
    ident = tuple(range(1, n + 1))
    d = {(s, v): footrule(s, v) for s in perms for v in perms}
    ioi = len({d[(ident, v)] for v in perms}) == len(perms)
    symmetric = all(d[(s, v)] == d[(v, s)] for s, v in d)
    right = all(d[(compose(s, t), compose(v, t))] == d[(s, v)] for s, v in d for t in perms[:8])
    left = all(d[(compose(t, s), compose(t, v))] == d[(s, v)] for s, v in d for t in perms[:8])
    triangle = all(d[(x, z)] <= d[(x, y)] + d[(y, z)] for x in perms for y in perms for z in perms)
    zero_only_equal = all((d[(s, v)] == 0) == (s == v) for s, v in d)
    return {"identity_of_indiscernibles": ioi, "symmetry": symmetric, "type_ii_right": right,
            "type_ii_left": left, "triangle_inequality": triangle,
            "is_distance": symmetric and triangle and zero_only_equal}


def test_the_example_metric_verdicts_agree_with_brute_force():
    got = profile.profile(f"{EXAMPLE}:footrule", n_exhaustive=5, n_swap=6).set_index("property")
    want = brute_force(5)
    want_tri = brute_force(4)  # profile checks the triangle inequality and distance at n - 1
    for prop in ("identity_of_indiscernibles", "symmetry", "type_ii_right", "type_ii_left"):
        assert bool(got.loc[prop, "holds"]) == want[prop], prop
    for prop in ("triangle_inequality", "is_distance"):
        assert bool(got.loc[prop, "holds"]) == want_tri[prop], prop
    assert set(got.index) == set(profile.PROPERTIES)
    assert {"property", "holds", "method", "evidence"} <= set(got.reset_index().columns)


def test_type_i_robustness_of_the_footrule_by_brute_force():
    # one swap of positions i < j in nu changes sum |sigma - nu| by at most 2 |nu_i - nu_j|;
    # exact mean over all sigma, nu, swaps of S_4
    n = 4
    perms = list(itertools.permutations(range(1, n + 1)))
    total = count = 0
    for s in perms:
        for v in perms:
            for i, j in itertools.combinations(range(n), 2):
                w = list(v)
                w[i], w[j] = w[j], w[i]
                total += abs(footrule(s, w) - footrule(s, v))
                count += 1
    got = profile.type_i_profile(f"{EXAMPLE}:footrule", [n], n_pairs=4000, n_runs=4)
    swap = got[got["change"] == "swap"].iloc[0]
    assert abs(swap["reproduced"] - total / count) < 4 * swap["sd"] + 0.02


def test_a_pair_by_pair_metric_is_wrapped_and_agrees_with_its_batch():
    slow = profile.load_metric(f"{EXAMPLE}:top_weighted_kendall")
    rng = np.random.default_rng(1)
    s = np.array([rng.permutation(6) + 1 for _ in range(5)])
    v = np.array([rng.permutation(6) + 1 for _ in range(5)])
    import importlib.util

    spec = importlib.util.spec_from_file_location("example_metric", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert slow.takes_k
    assert np.allclose(slow(s, v, 2), [module.top_weighted_kendall(a, b) for a, b in zip(s, v)])


def test_broken_metrics_are_named_with_the_input_that_broke_them():
    def raises(s, v):
        raise RuntimeError("boom")

    def wrong_shape(s, v):
        return np.zeros((2, 2))

    def not_finite(s, v):
        return np.full(np.asarray(s).shape[:-1], np.nan)

    with pytest.raises(ValueError, match=r"metric 'raises' raised RuntimeError: boom for sigma=\["):
        profile.load_metric(raises)
    with pytest.raises(ValueError, match="metric 'wrong_shape'"):
        profile.load_metric(wrong_shape)([1, 2, 3], [3, 2, 1])
    with pytest.raises(ValueError, match=r"metric 'not_finite' returned nan for sigma="):
        profile.load_metric(not_finite)([1, 2, 3], [3, 2, 1])
    with pytest.raises(ValueError, match="registered name"):
        profile.load_metric("no_such_metric")
    with pytest.raises(ValueError, match="no function 'nope'"):
        profile.load_metric(f"{EXAMPLE}:nope")


def test_the_command_line_refuses_a_broken_metric_before_the_kernel(capsys, tmp_path, monkeypatch):
    bad = tmp_path / "bad.py"
    bad.write_text("def m(s, v):\n    raise ZeroDivisionError('oops')\n")
    monkeypatch.setattr(pipeline, "runs_dir", lambda root=None: tmp_path / "runs")
    assert cli.main(["run", "metric_profile", "-p", "metric", f"{bad}:m"]) == 2
    err = capsys.readouterr().err
    assert "'metric'" in err and "ZeroDivisionError: oops" in err
    assert not (tmp_path / "runs").exists()


@pytest.mark.notebooks
def test_the_profile_run_writes_profile_and_agreement(tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline, "runs_dir", lambda root=None: tmp_path / "runs")
    monkeypatch.chdir(project_root())
    folder = pipeline.run_one("metric_profile", [
        ("metric", "examples/my_metric.py:footrule"), ("n_exhaustive", "4"), ("n_swap", "6"),
        ("ns", "10"), ("n_pairs", "100"), ("n_runs", "2"), ("agreement_n", "20"),
        ("agreement_pairs", "200"), ("compare_all", "false")])
    prof = pd.read_csv(folder / "profile.csv")
    assert {"property", "holds", "method", "evidence"} <= set(prof.columns)
    assert len(pd.read_csv(folder / "agreement.csv")) == 33
