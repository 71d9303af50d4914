"""The benchmarks page (``notebooks/benchmarks.ipynb``): what it shows of ``make bench``.

The page only reads the results file that ``benchmarks/run.py`` writes; the tables and
figures come from ``benchmarks/report.py`` (which the benchmark scripts share), and this module
adds what the page needs around them: loading the file relative to the project, the table that
says which run is shown, the headline on the speed targets, and the small tables of the
agreement matrix and of RBO.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd

from .outputs import escape_markdown
from ..ledger.paths import project_root

__all__ = ["report_module", "load", "run_table", "headline", "agreement_table", "rbo_table"]

_SOFTWARE = ("python", "numpy", "scipy", "scikit-learn", "ranx", "numba", "ir_measures", "rbo", "rexmex")


def report_module(root: Path | None = None):
    """``benchmarks/report.py`` of the project, imported as a module (it is not part of the
    installed package)."""
    root = Path(root or project_root())
    path = root / "benchmarks" / "report.py"
    spec = importlib.util.spec_from_file_location("rankbook_benchmarks_report", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot import {path}: the benchmarks folder is missing")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load(results_path, root: Path | None = None):
    """``(report module, results document or None, absolute path)`` for a results file given
    relative to the project root (or absolute). ``None`` when the file does not exist yet."""
    root = Path(root or project_root())
    report = report_module(root)
    path = Path(results_path)
    if not path.is_absolute():
        path = root / path
    return report, report.load(path), path


def run_table(doc, results_path) -> pd.DataFrame:
    """Which run the page shows: file, date, cases, commit, machine, software, load and timing
    (or that the file is missing)."""
    if doc is None:
        return pd.DataFrame([{"item": "results file", "value": str(results_path)},
                             {"item": "status", "value": "missing: run `make bench` to measure and write it"}])
    meta, machine = doc["meta"], doc["meta"]["machine"]
    versions = ", ".join(f"{k} {machine[k]}" for k in _SOFTWARE if machine.get(k))
    rows = [
        {"item": "results file", "value": str(results_path)},
        {"item": "run", "value": f"{meta['mode']} run of benchmarks/run.py on {meta['date_utc']}, "
                                 f"{meta['seconds']:.0f} s in all"},
        {"item": "cases", "value": ", ".join(meta["cases_run"])},
        {"item": "commit", "value": meta["commit"]},
        {"item": "machine", "value": f"{machine.get('cpu_model', machine['processor'])}, "
                                     f"{machine['cpu_count']} cores, {machine.get('memory_gb', '?')} GB"},
        {"item": "software", "value": versions},
    ]
    load_avg = meta.get("load_average_1_5_15min")
    rows.append({"item": "load average (1, 5, 15 min) at start and end",
                 "value": f"{load_avg['start']} / {load_avg['end']} (includes the benchmark itself; the machine is "
                          "shared, and other work running at the same time slows every case)"}
                if load_avg else {"item": "load average", "value": "not recorded"})
    rows.append({"item": "timing", "value": meta["timing"]})
    per_case = [f"{name} {c['load_average_1min']['start']}/{c['load_average_1min']['end']}"
                for name, c in doc["cases"].items() if "load_average_1min" in c]
    if per_case:
        rows.append({"item": "load average (1 min) at the start/end of each case", "value": ", ".join(per_case)})
    if meta["mode"] != "full":
        rows.append({"item": "note", "value": "reduced sizes (--quick): the targets are not evaluated"})
    return pd.DataFrame(rows)


def headline(doc, report, root: Path | None = None) -> list[str]:
    """The Markdown blocks at the top of the page: a verdict box with how many speed targets
    were met and which were missed (by how much), then whether the results are fresh against
    the code they measured."""
    if doc is None:
        return []
    targets = doc.get("targets", [])
    met = sum(t["met"] is True for t in targets)
    judged = sum(t["met"] is not None for t in targets)
    missed = [t for t in targets if t["met"] is False]
    if targets:
        body = (f"**{met} of {judged} speed targets met**"
                + (f" ({len(targets) - judged} not evaluated in a quick run)" if judged < len(targets) else "")
                + ". Every comparison also checks that rankbook and the peer give the same values.")
        if missed:
            body += "\n\nMissed: " + "; ".join(
                escape_markdown(t["description"]) + (f" ({escape_markdown(t['miss_by'])})" if t.get("miss_by") else "")
                for t in missed) + ". The table of targets below gives the measured reason."
    else:
        body = "No target was evaluated in this run."
    box = f":::{{admonition}} Verdict\n:class: verdict\n\n{body}\n:::\n"
    return [box, report.freshness(doc, Path(root or project_root()))]


def agreement_table(doc, report) -> tuple[pd.DataFrame, str]:
    """The agreement-matrix case: rankbook's time and its parts, the extrapolated definition,
    and the sanity checks of the matrix, with a title."""
    ag = doc["cases"]["agreement"]
    check = ag["check"]
    table = pd.DataFrame([
        {"quantity": "rankbook agreement_matrix", "value": report.fmt_s(ag["rankbook_s"])},
        {"quantity": "of which: evaluating the 33 metrics on T", "value": report.fmt_s(ag["metric_values_s"])},
        {"quantity": "of which: 561 concordance counts", "value": report.fmt_s(ag["concordance_s"])},
        {"quantity": f"O(|T|^2) definition, extrapolated from |T| = {ag['bruteforce_from_m']}",
         "value": report.fmt_s(ag["bruteforce_s"])},
        {"quantity": "largest difference between the two on the subsamples",
         "value": f"{check['max_abs_diff_bruteforce_vs_rankbook']:.1e}"},
        {"quantity": "matrix symmetric", "value": "yes" if check["symmetric"] else "no"},
        {"quantity": "DCG–nDCG and MSE–RMSE ratios (1 by construction: each pair orders every ranking "
                     "alike, so these only confirm the matrix was filled)",
         "value": f"{check['dcg_ndcg']:.3f}; {check['mse_rmse']:.3f}"},
    ])
    return table, f"Agreement matrix on |T| = {ag['T']} rankings of S_{ag['n']}, k = {ag['k']}"


def rbo_table(doc, report) -> pd.DataFrame:
    """RBO and RBO_ext against the ``rbo`` package on the same list pairs."""
    rb = doc["cases"]["ir"]["rbo"]
    return pd.DataFrame([{
        "pairs": rb["pairs"], "depth": rb["depth"], "p": rb["p"], "rankbook": report.fmt_s(rb["rankbook_s"]),
        "rbo package": report.fmt_s(rb["rbo_package_s"]), "rbo package / rankbook": f"{rb['speedup']:.2f}x",
        "max abs. diff": f"{rb['max_abs_diff']:.1e}"}])
