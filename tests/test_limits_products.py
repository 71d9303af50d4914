"""Combined limits (issue 30, finding 12a): a notebook with more than one size parameter bounds
their product with its ``check``, so that every parameter at its declared maximum *at once* is
refused before any kernel starts (one line, exit 2), never a kernel that dies of MemoryError.

Before this, ``stability_sensitivity``, ``metric_profile`` and ``printed_formulas`` accepted
their declared maxima together and started a kernel that died of MemoryError (n = 5000 items
times n_pairs = 100000 pairs, or the printed NDPM's n_pairs x n_table^2 sign matrices)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from extremes import _largest, _with_bound, check_case
from rankbook.book import specs
from rankbook.papers.paper_a import formulas, profile_page, stability

ROOT = Path(__file__).resolve().parent.parent


def size_parameters(spec) -> list[str]:
    """Numeric parameters (or lists of numbers) with a declared maximum: the sizes."""
    out = []
    for name, p in spec.parameters.items():
        c = p.constraint
        if not c or "choices" in c or isinstance(p.default, bool) or "file" in c:
            continue
        like = p.default[0] if isinstance(p.default, list) and p.default else p.default
        if isinstance(like, bool) or not isinstance(like, (int, float)):
            continue
        if isinstance(like, float) or c.get("items") == "float":
            continue  # shares and weights, not sizes
        if "max" in c:
            out.append(name)
    return out


def all_maxima(spec) -> dict:
    """Every size parameter at its declared maximum together (lists: as many elements as
    allowed, the largest first), the other parameters at their defaults."""
    values = spec.defaults()
    case = {}
    for name in size_parameters(spec):
        p = spec.parameters[name]
        c = p.constraint
        hi = _largest(c, p.default[0] if isinstance(p.default, list) else p.default)
        if isinstance(p.default, list):
            n = c.get("max_len", len(p.default) or 1)
            lo = c.get("min", 1)
            value = [hi - i for i in range(n) if hi - i >= lo] if c.get("unique") else [hi] * n
        else:
            value = hi
        case[name] = _with_bound(spec, {**values, **case}, name, value, "max")
    return case


MULTI = [s for s in specs.discover() if len(size_parameters(s)) > 1]
NAMED = ("stability_sensitivity", "metric_profile", "printed_formulas")


def test_the_reported_notebooks_are_covered():
    assert set(NAMED) <= {s.name for s in MULTI}


@pytest.mark.parametrize("name", NAMED)
def test_the_reported_notebooks_refuse_their_maxima_together_in_one_line(name):
    spec = specs.find(name)
    assert spec.check, f"{name} declares no combined check"
    outcome = check_case(spec, all_maxima(spec))
    assert isinstance(outcome, str), f"{name}: every maximum at once is accepted"
    assert "\n" not in outcome and ("memory" in outcome or " min" in outcome), outcome


@pytest.mark.parametrize("name", NAMED)
def test_the_paper_defaults_and_the_smoke_values_pass_the_checks(name):
    """The estimates are on the safe side, but not so far as to refuse what the book runs."""
    import json

    spec = specs.find(name)
    alternate = json.loads(spec.path.read_text())["metadata"]["rankbook"].get("alternate", {})
    for over in ({}, dict(spec.smoke), alternate):
        outcome = check_case(spec, over)
        assert not isinstance(outcome, str), (name, over, outcome)


def test_each_check_names_the_parameters_of_the_product():
    root = ROOT
    base = {**specs.find("stability_sensitivity").defaults()}
    with pytest.raises(ValueError, match=r"n = 5000 items x n_pairs = 100000 pairs .*lower n or n_pairs"):
        stability.limits({**base, "n": 5000, "n_pairs": 100000}, root,
                         specs.find("stability_sensitivity").timeout)
    base = specs.find("printed_formulas").defaults()
    with pytest.raises(ValueError, match=r"printed NDPM \(n_pairs = 100000 .*n_table\^2 = 1000\^2"):
        formulas.limits({**base, "n_table": 1000, "n_pairs": 100000}, root,
                        specs.find("printed_formulas").timeout)
    base = specs.find("metric_profile").defaults()
    # the agreement sample at its maxima alone fits (about 1.6 GB, measured 0.7 GB at 40000)
    timeout = specs.find("metric_profile").timeout
    profile_page.limits({**base, "agreement_n": 1000, "agreement_pairs": 100000}, root, timeout)
    with pytest.raises(ValueError, match=r"Type I rows \(n_runs = 100 x n_pairs = 100000"):
        profile_page.limits({**base, "ns": [1000], "n_runs": 100, "n_pairs": 100000}, root, timeout)


#: Notebooks whose maxima together were run to the end by tests/extremes.py in process
#: (measured on a loaded 2-core machine: seconds, peak resident memory).
KNOWN_TO_FINISH: dict[str, str] = {
    # its sizes are separate enumerations (S_n up to 10!, (n!)^2 pairs at n_metric and
    # n_distance), each bounded by its own maximum: they add, they do not multiply
    "dcg_injectivity": "100 s, 1.7 GB peak",
    # 200 topics x 200 documents x 4 runs, 20 000 resamples: `rankbook run` with every maximum
    # (truncate 199) took 17 s and 0.45 GB peak
    "reproducibility_measures": "17 s, 0.45 GB peak",
}
#: Notebooks with several size parameters that still lack a combined check (issue 30,
#: finding 12a, left open): their maxima together are accepted. Strict xfail: adding the
#: check makes the test pass and asks for the name to be removed here.
NO_CHECK_YET: set[str] = set()


@pytest.mark.parametrize("spec", [
    pytest.param(s, marks=pytest.mark.xfail(strict=True, reason="no combined check yet"))
    if s.name in NO_CHECK_YET else s for s in MULTI], ids=[s.name for s in MULTI])
def test_every_notebook_with_several_sizes_refuses_or_bounds_their_maxima(spec):
    """Every notebook with more than one size parameter: its maxima together are refused by the
    declared limits in one line, or the notebook is listed in KNOWN_TO_FINISH."""
    outcome = check_case(spec, all_maxima(spec))
    if spec.name in KNOWN_TO_FINISH:
        assert not isinstance(outcome, str), (spec.name, outcome)
        return
    assert isinstance(outcome, str) and "\n" not in outcome, (spec.name, outcome)


@pytest.mark.slow
@pytest.mark.notebooks
@pytest.mark.skipif(os.environ.get("RANKBOOK_EXTREMES") != "all",
                    reason="every maximum at once: make test-extremes runs it (RANKBOOK_EXTREMES=all)")
@pytest.mark.parametrize("name", sorted(KNOWN_TO_FINISH))
def test_the_maxima_known_to_finish_do_finish(name, tmp_path):
    """Run the notebook's code at every maximum at once, in process (no kernel): the most
    extreme case of all (up to 100 s), so ``make test-extremes`` runs it, not ``make test``."""
    from extremes import run_inprocess

    spec = specs.find(name)
    full = check_case(spec, all_maxima(spec))
    assert not isinstance(full, str), full
    # as `rankbook run` with these values: the explorer leaves its grid out (at the book's
    # defaults, not these maxima; test_extremes computes it once per notebook) instead of
    # taking the page for one at the defaults (reproducibility_measures: about 15 of 34 s)
    run_inprocess(spec, full, tmp_path, kernel_values=True)


def test_the_cli_refuses_the_maxima_before_any_kernel():
    """``rankbook run`` with the maxima together: exit 2, one line, no kernel."""
    spec = specs.find("stability_sensitivity")
    args = []
    for name, value in all_maxima(spec).items():
        args += ["-p", name, str(value)]
    proc = subprocess.run([sys.executable, "-m", "rankbook.book.cli", "run", spec.name, *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "memory" in lines[0], proc.stderr
