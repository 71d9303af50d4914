"""The book: cold build (nothing cached) and warm rebuild (nothing changed), with each
notebook's execution time.

``rankbook build`` is run as its two steps, each timed: executing the notebooks
(``rankbook build --no-book``) and compiling the site with jupyter-book
(``pipeline.build_site()``). The build runs in a fresh ``git clone`` of the repository's committed HEAD in a temporary
folder, never in the working checkout: ``<.venv python> -m rankbook build --quiet`` with
``RANKBOOK_ROOT`` pointing at the clone and the clone's ``src`` first on ``PYTHONPATH`` (the
project's editable install would otherwise import the working checkout's package). The per-
notebook times are those the pipeline records in the clone's ``book/generated/.manifest.json``
(papermill execution; notebooks run two at a time on this machine, so they overlap).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from common import PYTHON, ROOT, log


def _env(clone: Path) -> dict:
    env = {**os.environ, "RANKBOOK_ROOT": str(clone),
           "PYTHONPATH": str(clone / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "MPLBACKEND": "agg"}
    env.pop("RANKBOOK_OUTPUT_DIR", None)
    env.pop("RANKBOOK_NOTEBOOK_DIR", None)
    return env


def _step(cmd: list, clone: Path, timeout: float) -> tuple:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=clone, env=_env(clone), capture_output=True, text=True,
                          timeout=timeout)
    return time.perf_counter() - t0, proc


def _build(clone: Path, timeout: float) -> dict:
    """``rankbook build`` in two timed steps: the notebooks (``--no-book``), then jupyter-book.

    Together they are exactly what ``rankbook build`` does; timing them apart shows where the
    time goes and still measures the notebooks when the site step fails.
    """
    t_nb, nb = _step([PYTHON, "-m", "rankbook", "build", "--quiet", "--no-book"], clone, timeout)
    manifest_path = clone / "book" / "generated" / ".manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    executed = reused = []
    for line in nb.stdout.splitlines():
        if line.startswith("executed:"):
            executed = [x.strip() for x in line.split(":", 1)[1].split(",") if x.strip() != "(none)"]
        if line.startswith("reused:"):
            reused = [x.strip() for x in line.split(":", 1)[1].split(",") if x.strip() != "(none)"]
    out = {"notebooks_s": t_nb, "notebooks_returncode": nb.returncode, "executed": executed,
           "reused": reused,
           "notebooks": {k: v.get("duration") for k, v in sorted(manifest.items())},
           "site_s": None, "site_returncode": None, "stderr_tail": ""}
    if nb.returncode != 0:
        out["stderr_tail"] = nb.stderr[-1500:]
    else:
        t_site, site = _step([PYTHON, "-c", "from rankbook.book import pipeline; pipeline.build_site()"],
                             clone, timeout)
        out["site_s"], out["site_returncode"] = t_site, site.returncode
        if site.returncode != 0:
            out["stderr_tail"] = (site.stderr + site.stdout)[-1500:]
    out["wall_s"] = t_nb + (out["site_s"] or 0.0)
    out["returncode"] = nb.returncode or (out["site_returncode"] or 0)
    return out


def run(quick: bool = False) -> dict:
    if quick:
        return {"skipped": True,
                "notes": "not run in --quick mode (a cold build takes minutes); run make bench"}
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="rankbook-bench-book-"))
    clone = tmp / "rankbook"
    try:
        subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)],
                       check=True, capture_output=True)
        log(f"[book] cold build of {head} in {clone}")
        cold = _build(clone, timeout=1200)
        log(f"[book] cold: {cold['wall_s']:.1f} s (exit {cold['returncode']})")
        warm = _build(clone, timeout=600) if cold["notebooks_returncode"] == 0 else None
        if warm:
            log(f"[book] warm: {warm['wall_s']:.1f} s (exit {warm['returncode']})")
        n_nb = len(list((clone / "notebooks").glob("*.ipynb")))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"commit": head, "cold": cold, "warm": warm, "notebooks_in_clone": n_nb,
            "notes": ("git clone of the committed HEAD into a temporary folder; "
                      "`python -m rankbook build` there (notebooks with papermill, two at a time, "
                      "then jupyter-book with -W); cold = no book/generated and no _build; "
                      "warm = the same command again with nothing changed. Uncommitted work in "
                      "the checkout is not part of this measurement.")}
