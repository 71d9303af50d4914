"""Every value ``rankbook list`` declares valid runs to the end (issue 24): each notebook at the
edges of its declared limits, one parameter at a time, the others at the smoke values
(:mod:`extremes` builds the cases from the notebooks' own declarations).

A case the notebook's combined check refuses passes when the refusal is one clear line: the
declared space excludes it and says why. Any other case must run to the end, in one of two
Python processes that take the notebooks one after another (no kernel: a run costs only its
computation, and each process pays its imports once).

The cases that take more than about 10 seconds on a loaded 2-core machine are listed in
:data:`EXPENSIVE` (with the time they took there) and run only with ``RANKBOOK_EXTREMES=all``
(``make test-extremes``), so that ``make test`` stays quick (the notebooks whose smoke
values alone cost about 20 s keep their ``minimum`` case there); every other case runs in
``make test``.

A notebook's cases run one after another, each as ``rankbook run NAME -p ...``
runs it: every cell runs, and an explorer, whose page is then not at the book's defaults, leaves
its grid out with its note. The grid is the same in every case (the explorer sweeps the notebook
at its defaults, whatever the case), and the book's build computes it; with
``RANKBOOK_EXTREMES=all`` each notebook's grid is computed too, once, in the first case that
asks for it, and shared with the later ones (:func:`extremes._shared_sweeps`). Leaving the grids
out of ``make test`` saved about 90 s of its CPU time (ir_metrics_tour's alone took 33 s).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import extremes
from rankbook.book import specs

pytestmark = pytest.mark.notebooks

HERE = Path(__file__).resolve().parent
SPECS = [s for s in specs.discover() if extremes.extreme_cases(s)]

#: (notebook, case) -> seconds it took on a loaded 2-core machine (issue 24 measurements); the
#: entries of 5 to 16 s were measured on a quiet one (2026-11-28, grids left out), where a
#: loaded machine takes about twice as long: they joined when make test had to shrink (issue 36).
#: Most of those seconds were the notebook's explorer grid, computed again in every case; since
#: the grid is shared by a notebook's cases (issue 27), the cases of consensus_rank_aggregation,
#: consensus_search_engines and ir_metrics_tour that took 17 to 33 s take 0.3 to 2.6 s after
#: the first and run in ``make test``. agreement_heatmap's would too (4 to 11 s, several more),
#: but its first case computes the grid (about 60 s), so they stay here.
EXPENSIVE = {
    ("agreement_heatmap", "choices 1"): 59,
    ("agreement_heatmap", "choices 2"): 55,
    ("agreement_heatmap", "max grid_k_shares"): 63,
    ("agreement_heatmap", "max grid_ns"): 67,
    ("agreement_heatmap", "max grid_pairs"): 75,
    ("agreement_heatmap", "max k"): 58,
    ("agreement_heatmap", "max n"): 58,
    ("agreement_heatmap", "max n_pairs"): 41,
    ("agreement_heatmap", "max n_seeds"): 68,
    ("agreement_heatmap", "max seed"): 54,
    ("agreement_heatmap", "minimum"): 22,
    ("comparing_systems", "max n_queries"): 6,
    ("consensus_theorems", "max n_exhaustive"): 6,
    ("consensus_theorems", "max sets_per_seed"): 5,
    ("dcg_injectivity", "max n_distance"): 20,
    ("dcg_injectivity", "max n_max"): 165,
    ("ir_metrics_tour", "max n_pairs_sim"): 33,
    ("kendall_width_swap", "max ns"): 137,
    ("linear_equivalence", "max ns"): 11,
    ("printed_formulas", "max n"): 5,
    ("printed_formulas", "max n_table"): 66,
    ("properties_table", "max distance_n"): 24,
    ("properties_table", "max ioi_n"): 24,
    ("properties_table", "max n_pairs"): 42,
    ("properties_table", "max stability_pairs"): 37,
    ("properties_table", "max stability_n"): 8,
    ("properties_table", "max swap_n"): 27,
    ("rbo_bounds", "max ext_depth"): 67,
    ("rbo_bounds", "max n_random"): 17,
    ("right_invariance", "max n"): 439,
    ("right_invariance", "max n_samples"): 41,
    ("stability_sensitivity", "max n"): 42,
    ("stability_sensitivity", "max n_pairs"): 18,
    ("stability_sensitivity", "max n_seeds"): 6,
    ("stability_sensitivity", "max n_sensitivity"): 33,
    ("sweep_agreement", "max jobs"): 16,
    ("sweep_agreement", "max k_share"): 14,
    ("sweep_agreement", "max n_pairs"): 84,
    ("sweep_agreement", "max n_seeds"): 25,
    ("sweep_agreement", "max ns"): 23,
    ("sweep_agreement", "minimum"): 27,
}


def test_the_expensive_cases_exist():
    """A renamed parameter must not silently drop a case from the expensive list."""
    labels = {(s.name, label) for s in SPECS for label, _ in extremes.extreme_cases(s)}
    assert not set(EXPENSIVE) - labels, sorted(set(EXPENSIVE) - labels)


def _labels(spec) -> list[str]:
    every = os.environ.get("RANKBOOK_EXTREMES") == "all"
    return [label for label, _ in extremes.extreme_cases(spec)
            if every or (spec.name, label) not in EXPENSIVE]


def _serve(queue: list, results: dict) -> None:
    """One ``extremes.py --serve`` process: take the next notebook from ``queue`` until it is
    empty, and store its case lines in ``results[name]`` (label, outcome, seconds, message).
    A process that dies leaves its notebook's error (the end of its standard error) and the
    next notebook goes to a new process."""
    import tempfile

    proc = None
    log = tempfile.TemporaryFile(mode="w+")
    try:
        while True:
            try:
                name, labels = queue.pop(0)
            except IndexError:
                return
            if proc is None or proc.poll() is not None:
                log.seek(0)
                log.truncate()
                proc = subprocess.Popen([sys.executable, str(HERE / "extremes.py"), "--serve"],
                                        cwd=HERE.parent, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=log, text=True)
            proc.stdin.write(json.dumps([name, labels]) + "\n")
            proc.stdin.flush()
            lines = []
            for line in iter(proc.stdout.readline, ""):
                if line.strip() == json.dumps(extremes.DONE):
                    break
                if line.startswith("["):
                    lines.append(json.loads(line))
            else:  # the process ended before the notebook's last case
                proc.wait()
                log.seek(0)
                lines.append(["(process)", "error", 0.0, log.read()[-3000:]])
            results[name] = lines
    finally:
        if proc is not None:
            proc.stdin.close()
            proc.wait(timeout=60)
        log.close()


@pytest.fixture(scope="module")
def extreme_runs():
    """Every notebook's cases in two Python processes, each taking the next notebook when it
    is done with one (the notebooks with the most cases first)."""
    import threading

    queue = sorted(((s.name, _labels(s)) for s in SPECS if _labels(s)),
                   key=lambda item: -len(item[1]))
    results: dict = {}
    threads = [threading.Thread(target=_serve, args=(queue, results)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_every_declared_extreme_runs_or_is_refused_in_one_line(spec, extreme_runs):
    labels = _labels(spec)
    if not labels:
        pytest.skip(f"every extreme of {spec.name} is expensive: RANKBOOK_EXTREMES=all runs them")
    results = extreme_runs.get(spec.name, [["(fixture)", "error", 0.0, "never run"]])
    assert [r[0] for r in results] == labels, results
    failed = [(label, message) for label, outcome, _, message in results
              if outcome == "error" or (outcome == "refused" and "\n" in message)]
    assert not failed, f"{spec.name}: declared valid, but: {failed}"
