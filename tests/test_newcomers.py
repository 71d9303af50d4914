"""What a newcomer meets first (issue 24, finding 7): skipped tests say why and how to run them,
and the nDCG that is not the IR measure says so at the top."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rankbook import metrics

ROOT = Path(__file__).resolve().parents[1]


def test_a_skipped_seed_test_says_the_papers_are_not_distributed_and_how_to_run_it(tmp_path):
    env = {**os.environ, "RANKBOOK_SEEDS": str(tmp_path / "no_copy_here")}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/test_errata.py", "-k", "seed_text", "-rs", "-q",
         "-o", "addopts=", "-p", "no:cacheprovider"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300).stdout
    skipped = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert skipped, out
    for line in skipped:
        assert "not distributed with rankbook" in line and "RANKBOOK_SEEDS=" in line, line
        assert "seed text" not in line


def test_paper_as_ndcg_warns_at_the_top_and_points_to_the_ir_measure():
    doc = metrics.ndcg.__doc__
    head = doc.split("Examples")[0]
    assert "not the IR measure" in doc.splitlines()[0]
    assert ".. warning::" in head and "rankbook.ir.ndcg" in head and "0.749" in head
    assert round(float(metrics.ndcg([1, 2, 3, 4], [1, 2, 3, 4])), 3) == 0.749
    page = (ROOT / "book" / "reference" / "metrics.md").read_text()
    top = page.split("```{eval-rst}")[0]
    assert ":::{warning}" in top and "rankbook.ir.ndcg" in top
