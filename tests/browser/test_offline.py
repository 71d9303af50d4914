"""The site with no network (issue 20): every page, every request, every parameter explorer.

``offline.py`` opens every page of the built site in headless Chromium inside a network
namespace of its own (``unshare -n``: only a loopback interface, brought up for the local
server), records every URL the browser requests, and drives every ``.rankbook-explorer``. This
test checks its report:

- every request goes to the local server (a request to any other host could not succeed there,
  and is reported either way);
- every page has at least one explorer where the book promises one (:data:`EXPLORER_PAGES`), and
  at least :data:`MIN_EXPLORERS` pages have one;
- each explorer draws; moving each of its controls changes the chart; and the rows it plots are
  exactly the rows of the CSV it links that match the controls' values (before and after each
  move).

Where ``unshare -n`` is not permitted (not root), ``unshare -rn`` (an unprivileged user namespace)
is tried; if neither works the test fails and says so, rather than passing with the network on.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SITE, site_pages

pytestmark = pytest.mark.browser

#: Pages that must carry an explorer.
EXPLORER_PAGES = {f"book/generated/{name}.html" for name in (
    "ir_metrics_tour", "agreement_heatmap", "consensus_search_engines",
    "consensus_rank_aggregation", "properties_table")}
#: Explorers of values on different scales (issue 28): their CSV, and the column whose values
#: each get a panel of their own.
PANELLED = {"ir_tour_explorer.csv": "scale", "table2_cells_explorer.csv": "panel"}
#: Pages with an explorer the book promises in all (issue 20: at least four).
MIN_EXPLORERS = 4


def _namespace_prefix() -> tuple[list[str], str]:
    """The command prefix that runs a child without network, and its name."""
    unshare = shutil.which("unshare")
    if not unshare:
        pytest.fail("unshare (util-linux) is needed to run the browser without network")
    for flags in (["-n"], ["-rn"]):
        probe = subprocess.run([unshare, *flags, "true"], capture_output=True)
        if probe.returncode == 0:
            return [unshare, *flags], f"unshare {' '.join(flags)}"
    pytest.fail("neither `unshare -n` nor `unshare -rn` is permitted here, so the offline check "
                "cannot isolate the browser from the network: " + probe.stderr.decode()[-200:])


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    site_pages()  # fails clearly when the site is not built
    out = tmp_path_factory.mktemp("offline") / "report.json"
    prefix, how = _namespace_prefix()
    script = Path(__file__).with_name("offline.py")
    inner = (f"ip link set lo up 2>/dev/null || true; "
             f"exec {sys.executable} {script} {SITE} {out}")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run([*prefix, "sh", "-c", inner], capture_output=True, text=True, env=env,
                          timeout=1800)
    assert proc.returncode == 0, f"offline.py failed under {how}:\n{proc.stderr[-3000:]}"
    # the namespace really has no route out: a connection to a public address fails at once
    probe = subprocess.run(
        [*prefix, sys.executable, "-c",
         "import socket; s = socket.socket(); s.settimeout(3)\n"
         "try:\n s.connect(('1.1.1.1', 80)); print('connected')\n"
         "except OSError as e:\n print('no network:', e)"], capture_output=True, text=True)
    assert "no network" in probe.stdout, f"{how} still reaches the network: {probe.stdout}"
    data = json.loads(out.read_text())
    data["namespace"] = how
    print(f"offline browser check ran under `{how}` with {len(data['pages'])} pages")
    return data


def test_every_request_is_to_the_local_server(report):
    base = report["base"]
    problems = []
    for rel, page in sorted(report["pages"].items()):
        for url in page["requests"]:
            if not (url.startswith(base) or url.startswith(("data:", "blob:", "about:"))):
                problems.append(f"{rel}: request to {url}")
        for message in page["console"]:
            problems.append(f"{rel}: console error: {message[:200]}")
    assert not problems, "\n".join(problems[:40])


def test_explorers_are_where_the_book_promises_them(report):
    having = {rel for rel, page in report["pages"].items() if page["explorers"]}
    missing = sorted(EXPLORER_PAGES - having)
    assert not missing, f"pages without their explorer: {missing}"
    assert len(having) >= MIN_EXPLORERS, f"only {len(having)} page(s) have an explorer"


def test_explorers_of_several_scales_draw_one_panel_per_scale(report):
    """The IR tour put 12 of its 16 measures into the first ninth of one axis (issue 28): each
    scale of :data:`PANELLED` is drawn as a panel titled with its name, at every state."""
    import html

    from rankbook.book.explorer import title_lines

    found, problems = set(), []
    for rel, page in sorted(report["pages"].items()):
        for ex in page["explorers"]:
            column = PANELLED.get(ex.get("csv"))
            if column is None or ex["state"] != "yes":
                continue
            found.add(ex["csv"])
            scales = list(dict.fromkeys(r[column] for r in ex["csv_rows"]))
            if len(scales) < 2:
                problems.append(f"{rel}: {ex['csv']} has one scale only: {scales}")
            states = [ex["initial"]] + [c["after"] for c in ex["controls"]]
            for state in states:
                svg = state["svgText"]
                missing = [s for s in scales
                           if not all(html.escape(line, quote=False) in svg for line in title_lines(s))]
                if missing:
                    problems.append(f"{rel}: at {state['signals']} no panel titled {missing}")
    assert found == set(PANELLED), f"explorers not found: {sorted(set(PANELLED) - found)}"
    assert not problems, "\n".join(problems)


def _same_number(value):
    """JavaScript has one number type: 6.0 read from the CSV is the 6 the chart holds."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _project(rows: list, fields: list[str]) -> list[str]:
    out = set()
    for row in rows:
        if isinstance(row, str):
            row = json.loads(row)
        out.add(json.dumps({k: _same_number(row.get(k)) for k in fields}, sort_keys=True))
    return sorted(out)


def _expected(explorer: dict, signals: dict) -> list[str]:
    """The CSV rows that match the controls' values, less those with an empty plotted field
    (Vega-Lite leaves out a mark whose position is undefined)."""
    column_of = dict(explorer.get("filters") or {})  # the column each control filters
    for p in explorer["spec_params"]:
        if p["name"] not in column_of:
            column_of[p["name"]] = p.get("bind", {}).get("name", "").strip()
    rows = [r for r in explorer["csv_rows"]
            if all(r.get(column_of[name]) == value for name, value in signals.items()
                   if name in column_of)]
    rows = [r for r in rows if all(r.get(f) is not None for f in explorer["fields"])]
    columns = list(explorer["csv_rows"][0]) if explorer["csv_rows"] else []
    return _project(rows, columns)


def test_each_explorer_draws_redraws_and_plots_its_csv_rows(report):
    problems = []
    checked = 0
    for rel, page in sorted(report["pages"].items()):
        for ex in page["explorers"]:
            where = f"{rel} {ex['id']}"
            if ex["state"] != "yes":
                problems.append(f"{where}: not drawn ({ex['state']})")
                continue
            columns = list(ex["csv_rows"][0]) if ex["csv_rows"] else []
            states = [ex["initial"]] + [c[k] for c in ex["controls"] for k in ("before", "after")]
            for state in states:
                plotted = _project(state["rows"], columns)
                want = _expected(ex, state["signals"])
                if not plotted:
                    problems.append(f"{where}: nothing plotted at {state['signals']}")
                elif plotted != want:
                    problems.append(f"{where}: at {state['signals']} the chart plots "
                                    f"{len(plotted)} row(s), the CSV {ex['csv']} has "
                                    f"{len(want)} matching; first difference: "
                                    f"{sorted(set(plotted) ^ set(want))[:1]}")
            if not ex["controls"]:
                problems.append(f"{where}: no control")
            for c in ex["controls"]:
                if not c["moved"]:
                    problems.append(f"{where}: control {c['index']} could not be moved")
                elif c["before"]["signals"] == c["after"]["signals"]:
                    problems.append(f"{where}: moving control {c['index']} changed no value")
                elif (_project(c["before"]["rows"], columns) == _project(c["after"]["rows"], columns)
                      or c["before"]["svgText"] == c["after"]["svgText"]):
                    problems.append(f"{where}: moving control {c['index']} left the chart as it was")
            checked += 1
    assert checked, "no explorer was driven"
    assert not problems, "\n".join(problems)
