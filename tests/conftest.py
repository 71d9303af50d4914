"""The suite's order: the longest test files first, so that ``make test``'s two workers end
together (longest processing time first).

``make test`` hands out whole files (``--dist loadfile``) in collection order
(``--no-loadscope-reorder``; pytest-xdist's own reordering puts the files with the most tests
first, which left files of few but long tests, a notebook build each, for the end, with one
worker idle). The seconds below are each file's share of a fresh clone's ``make test`` on 2 cores
(2026-11-28, ``--durations=0``); a file not listed keeps its place after them. A wrong or stale
number costs only time: every test still runs, in its file's own order.
"""

from __future__ import annotations

from pathlib import Path

#: Seconds each long test file took (sum of its tests' setup, call and teardown).
FILE_SECONDS = {
    "test_notebooks.py": 140,
    "test_extremes.py": 133,
    "test_faults.py": 128,
    "test_sweep.py": 95,
    "test_build_round3.py": 80,
    "test_repro.py": 59,
    "test_ir.py": 50,
    "test_pipeline.py": 48,
    "test_faults_round4.py": 32,
    "test_conventions.py": 30,
    "test_release.py": 28,
    "test_realistic_inputs.py": 25,
    "test_new_source.py": 19,
    "test_ledger_in_the_build.py": 16,
    "test_hostile_labels.py": 16,
    "test_tie_range.py": 16,
    "test_claims.py": 16,
    "test_publication.py": 15,
    "test_large_n.py": 14,
}


def pytest_collection_modifyitems(session, config, items):
    """Stable sort by the file's seconds, longest first (a file's tests stay in their order)."""
    items.sort(key=lambda item: -FILE_SECONDS.get(Path(str(item.fspath)).name, 0))
