"""Parameter explorers: a figure the reader redraws by moving a control, fully offline.

:func:`show` runs a notebook over a small grid of parameters with the sweep machinery
(:func:`rankbook.book.sweep.run_sweep`: every point is a ``rankbook run`` of the notebook, checked
against its declared constraints and cached by the same key), stacks one of the tables the
notebook saves over all points into the grid's CSV, and shows a Vega-Lite chart whose data are
exactly the rows of that CSV. Each control (a swept parameter, or a column of the table) filters
the rows; the chart redraws in the browser with no server and no request to any other host: the
JavaScript (Vega, Vega-Lite and vega-embed, bundled by ``vl-convert-python``) ships in the
site's ``_static`` folder, and the spec and its data are inline in the page.

The explorer is written into the page as a ``div`` with class ``rankbook-explorer`` holding the
chart, its spec (``script.rb-explorer-spec``), a caption that says what was precomputed, a link
to the grid's CSV and the ``rankbook run`` command for values outside the grid.

Explorers are computed for the book's own settings only. A grid point runs the same notebook,
whose explorer cells must not start sweeps of their own: while a sweep of an explorer runs, the
environment variable :data:`POINT_ENV` is set (the points inherit it) and :func:`show` does
nothing there. A run whose parameters differ from the defaults (a reader's ``rankbook run``, the
test runs) shows a note instead of recomputing the grid.
"""

from __future__ import annotations

import csv
import html
import json
import os
import shutil
from pathlib import Path
from typing import Any

#: Set while the grid of an explorer is computed; every point inherits it.
POINT_ENV = "RANKBOOK_EXPLORER_POINT"

#: The file in the site's ``_static`` folder that holds Vega, Vega-Lite and vega-embed.
BUNDLE_NAME = "rankbook-explorer.js"

#: The Vega-Lite version of the bundle; altair writes specs for it.
VEGALITE_VERSION = "6.4"

#: Kinds of chart: a line per colour over a numeric x, bars, or a heat map.
KINDS = ("line", "bar", "heatmap")


def _typed(text: str) -> Any:
    """A CSV cell as the JSON value the chart plots: int, float, str, or None when empty."""
    if text == "":
        return None
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        if kind is float and value != value:  # nan: JSON has no NaN
            return None
        return value
    return text


def read_rows(path: Path) -> list[dict]:
    """The rows of a grid's CSV, each a dict of typed values (see :func:`_typed`). The browser
    test reads the CSV the same way and compares it with what the chart plots."""
    with open(path, newline="") as fh:
        return [{k: _typed(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def _given(grid: dict, fixed: dict, spec) -> list[tuple[str, str]]:
    from .present import cli_value

    given = []
    for key, values in grid.items():
        p = spec.parameters.get(key)
        is_list = p is not None and isinstance(p.default, list)
        given.append((key, (";" if is_list else ",").join(cli_value(v) for v in values)))
    for key, value in fixed.items():
        given.append((key, cli_value(value)))
    return given


def _outside_command(spec, grid: dict, fixed: dict) -> str | None:
    """A ``rankbook run`` command with a value outside the grid that the notebook accepts
    (checked like ``rankbook run`` checks it), or None."""
    from .present import cli_value, command_for
    from .specs import ParameterError, resolve_parameters

    for key, values in grid.items():
        if not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                 for v in values):
            continue
        ordered = sorted(values)
        if all(isinstance(v, int) for v in values):
            candidates = [ordered[-1] + 1, ordered[0] - 1]
        else:
            candidates = [round((ordered[0] + ordered[1]) / 2, 6)] if len(ordered) > 1 else []
        for value in candidates:
            overrides = {key: value, **{k: v for k, v in fixed.items() if k != key}}
            try:
                resolve_parameters(spec, [(k, cli_value(v)) for k, v in overrides.items()])
            except ParameterError:
                continue
            return command_for(spec.name, overrides)
    return None


def _control(column: str, values: list, initial) -> tuple[dict, str]:
    """A Vega-Lite parameter bound to an input, and its filter expression."""
    name = "p_" + "".join(c if c.isalnum() else "_" for c in column)
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    steps = {b - a for a, b in zip(values, values[1:])} if ints else set()
    if ints and len(values) > 2 and len(steps) == 1:
        bind = {"input": "range", "min": values[0], "max": values[-1], "step": steps.pop(),
                "name": f"{column} "}
    else:
        bind = {"input": "select", "options": values, "name": f"{column} "}
    param = {"name": name, "value": initial, "bind": bind}
    return param, f"datum[{json.dumps(column)}] === {name}"


def vegalite_spec(rows: list[dict], *, kind: str, x: str, y: str, color: str | None,
                  controls: dict[str, Any], title: str, x_title: str | None = None,
                  y_title: str | None = None, color_title: str | None = None,
                  tooltip: list[str] | None = None, width: int = 560, height: int = 300) -> dict:
    """The Vega-Lite spec of an explorer (built with altair): ``rows`` inline, one bound
    parameter per control column (initial value given), a filter per control."""
    import altair as alt

    if kind not in KINDS:
        raise ValueError(f"unknown explorer kind {kind!r}; valid: {', '.join(KINDS)}")
    missing = [c for c in [x, y, color, *controls] if c and rows and c not in rows[0]]
    if missing:
        raise ValueError(f"columns {missing} are not in the grid's table; it has "
                         f"{', '.join(rows[0]) if rows else 'no rows'}")
    params, filters = [], []
    for column, initial in controls.items():
        values = sorted({r[column] for r in rows if r[column] is not None},
                        key=lambda v: (isinstance(v, str), v))
        if initial not in values:
            initial = values[0]
        param, expr = _control(column, values, initial)
        params.append(param)
        filters.append(expr)
    base = alt.Chart(alt.Data(values=rows, name="grid")).properties(
        width=width, height=height, title=title)
    for expr in filters:
        base = base.transform_filter(expr)
    def typed(column: str) -> str:
        numbers = all(isinstance(r.get(column), (int, float)) for r in rows
                      if r.get(column) is not None)
        return f"{column}:{'Q' if numbers else 'N'}"

    tips = [alt.Tooltip(typed(c)) for c in (tooltip or [c for c in [x, y, color, *controls] if c])]
    if kind == "line":
        chart = base.mark_line(point=True).encode(
            x=alt.X(f"{x}:Q", title=x_title or x, scale=alt.Scale(zero=False)),
            y=alt.Y(f"{y}:Q", title=y_title or y, scale=alt.Scale(zero=False)),
            color=alt.Color(f"{color}:N", title=color_title or color) if color else alt.Undefined,
            tooltip=tips)
    elif kind == "bar":
        chart = base.mark_bar().encode(
            y=alt.Y(f"{x}:N", title=x_title or x, sort=None),
            x=alt.X(f"{y}:Q", title=y_title or y),
            tooltip=tips)
    else:
        chart = base.mark_rect().encode(
            x=alt.X(f"{x}:N", title=x_title or x, sort=None),
            y=alt.Y(f"{color}:N", title=color_title or color, sort=None),
            color=alt.Color(f"{y}:Q", title=y_title or y, scale=alt.Scale(scheme="viridis")),
            tooltip=tips)
    spec = chart.to_dict()
    spec["params"] = params + list(spec.get("params", []))
    spec["config"] = {"background": "#ffffff", "font": "sans-serif",
                      "axis": {"labelFontSize": 12, "titleFontSize": 13, "labelColor": "#222222", "labelLimit": 280,
                               "titleColor": "#222222"},
                      "legend": {"labelFontSize": 12, "titleFontSize": 13,
                                 "labelColor": "#222222", "titleColor": "#222222"},
                      "title": {"fontSize": 14, "color": "#222222"},
                      "range": {"category": ["#0072B2", "#E69F00", "#009E73", "#D55E00",
                                             "#CC79A7", "#56B4E9", "#000000"]}}
    spec["autosize"] = {"type": "fit-x", "contains": "padding"}
    spec["width"] = "container"
    return spec


def _page_values(defaults: dict) -> dict:
    """The page's own parameter values, read from the kernel running it (empty outside one)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return {}
    shell = get_ipython()
    if shell is None:
        return {}
    return {k: shell.user_ns[k] for k in defaults if k in shell.user_ns}


def _in_point() -> bool:
    return bool(os.environ.get(POINT_ENV))


def show(notebook: str, table: str | list[str], grid: dict[str, list], *, name: str,
         kind: str, x: str, y: str, color: str | None = None, controls: list[str] | None = None,
         title: str, what: str, fixed: dict | None = None, current: dict | None = None,
         melt: dict | None = None, x_title: str | None = None, y_title: str | None = None,
         color_title: str | None = None, height: int = 300, jobs: int = 1,
         root: Path | None = None) -> Path | None:
    """Compute a grid with ``rankbook sweep`` and show it as an explorer (see module doc).

    Parameters
    ----------
    notebook : str
        The notebook swept (usually the page's own).
    table : str or list of str
        The table(s) the notebook saves (CSV stems) that the chart plots; several are stacked
        with a ``table`` column.
    grid : dict
        ``{parameter: [values]}``: the points are their Cartesian product. Keep it small: every
        point is a run of the notebook during the build.
    name : str
        File stem of the grid's CSV and id of the explorer.
    kind, x, y, color
        The chart: ``"line"`` (``y`` over numeric ``x``, a line per ``color``), ``"bar"``
        (``y`` per category ``x``) or ``"heatmap"`` (``x`` by ``color`` cells coloured by ``y``).
    controls : list of str, optional
        The columns the reader picks a value of (default: the swept parameters).
    title, what : str
        The chart's title, and what it shows in words (the caption starts with it).
    fixed : dict, optional
        Parameters set for every point (small sizes that keep the grid fast).
    current : dict, optional
        The page's own parameter values (default: read from the kernel). When any differs from
        the notebook's default, the grid is not computed (a reader's rerun, the test runs) and
        a note says so.
    melt : dict, optional
        ``{"id": [...], "var": name, "value": name}``: make a wide table long before plotting
        (the grid's CSV is then the long table).
    height : int
        Height of the chart in pixels (its width follows the column).
    jobs : int
        Worker processes of the sweep.

    Returns the grid's CSV, or None when nothing was computed.
    """
    from IPython.display import Markdown, display

    from .outputs import _check_name
    from .paths import notebook_dir, output_dir
    from .specs import find
    from .sweep import run_sweep

    _check_name(name)
    if _in_point():
        return None
    fixed = dict(fixed or {})
    spec = find(notebook, root)
    defaults = spec.defaults()
    if current is None:
        current = _page_values(defaults)
    changed = {k: v for k, v in current.items() if k in defaults and defaults[k] != v}
    if changed:
        display(Markdown(
            f"*The explorer of this page is precomputed for the book's settings; this run "
            f"changed {', '.join(f'`{k}`' for k in changed)}, so it is left out. "
            f"`rankbook sweep {notebook} -p KEY V1,V2,...` computes a grid of your own.*"))
        return None
    given = _given(grid, fixed, spec)
    out = output_dir()
    folder = out / f".explorer-{name}"
    before = os.environ.get(POINT_ENV)
    os.environ[POINT_ENV] = "1"
    try:
        report = run_sweep(notebook, given, jobs=jobs, progress=False, folder=folder,
                           root=root, log=lambda *a: None)
    finally:
        if before is None:
            os.environ.pop(POINT_ENV, None)
        else:
            os.environ[POINT_ENV] = before
    failed = [p for p in report.points if p["status"] == "failed"]
    if failed:
        raise RuntimeError(f"{len(failed)} point(s) of the {name} explorer failed: "
                           f"{failed[0].get('params')}: {failed[0].get('error')}")
    import pandas as pd

    tables = [table] if isinstance(table, str) else list(table)
    frames = []
    for stem in tables:
        path = folder / "combined" / f"{stem}.csv"
        if not path.is_file():
            raise ValueError(f"the sweep of {notebook} saved no table {stem!r}; it saved "
                             f"{', '.join(p.stem for p in (folder / 'combined').glob('*.csv'))}")
        df = pd.read_csv(path)
        if len(tables) > 1:
            df.insert(len(grid), "table", stem)
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    # the combined tables lead with every swept parameter and the point status: the explorer
    # keeps the grid's columns and the table's own (a fixed value would be melted as a metric)
    from .sweep import STATUS_COLUMN

    used = set(grid) | set((melt or {}).get("id", ())) | {x, y, color}
    df = df.drop(columns=[c for c in (STATUS_COLUMN, *fixed) if c in df.columns and c not in used])
    if melt:
        df = df.melt(id_vars=melt["id"], var_name=melt["var"], value_name=melt["value"])
    csv_path = out / f"{name}.csv"
    tmp = csv_path.with_suffix(".csv.tmp")
    df.to_csv(tmp, index=False, lineterminator="\n")
    os.replace(tmp, csv_path)
    shutil.rmtree(folder / "points", ignore_errors=True)  # the CSV holds what the page needs
    rows = read_rows(csv_path)
    controls = list(controls) if controls is not None else list(grid)
    start = {**defaults, **fixed}
    initial = {c: start.get(c, None) for c in controls}
    chart = vegalite_spec(rows, kind=kind, x=x, y=y, color=color, controls=initial, title=title,
                          x_title=x_title, y_title=y_title, color_title=color_title,
                          height=height)
    rel = os.path.relpath(csv_path, notebook_dir()).replace(os.sep, "/")
    axes = "; ".join(f"{k} in {{{', '.join(map(str, v))}}}" for k, v in grid.items())
    fixed_text = (" with " + ", ".join(f"{k} = {v}" for k, v in fixed.items())) if fixed else ""
    outside = _outside_command(spec, grid, fixed)
    payload = json.dumps(chart, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
    label = html.escape(f"{title}: an interactive chart; the same values are in {name}.csv")
    lines = [
        f"::::{{div}} rankbook-explorer",
        f":name: explorer-{name}",
        "",
        f'<div class="rb-explorer-chart" role="figure" aria-label="{label}">'
        f"<p>This explorer needs JavaScript; its values are in the CSV linked below.</p></div>",
        f'<script type="application/json" class="rb-explorer-spec">{payload}</script>',
        "",
        f"**Explore.** {what} Precomputed at build time: the notebook run at every point of "
        f"the grid {axes} ({len(report.points)} runs of `rankbook sweep {notebook}`{fixed_text}). "
        f"Every plotted value is a row of {{download}}`{name}.csv <{rel}>`.",
    ]
    if outside:
        lines[-1] += f" For values outside the grid: `{outside}`."
    lines += ["::::", ""]
    display(Markdown("\n".join(lines)))
    return csv_path


def bundle_script(vl_version: str = VEGALITE_VERSION) -> str:
    """The site's one JavaScript file for explorers: Vega, Vega-Lite and vega-embed (bundled by
    ``vl-convert-python``, no network) and the code that draws every ``.rankbook-explorer``.
    Wrapped in a function so that its top-level names stay private to it."""
    import vl_convert as vlc

    init = r"""
window.vegaEmbed = vegaEmbed; window.vega = vega; window.vegaLite = vegaLite;
function rankbookDrawExplorers() {
  for (const el of document.querySelectorAll('.rankbook-explorer')) {
    const source = el.querySelector('script.rb-explorer-spec');
    const target = el.querySelector('.rb-explorer-chart');
    if (!source || !target || el.dataset.ready) continue;
    el.dataset.ready = 'drawing';
    vegaEmbed(target, JSON.parse(source.textContent), {actions: false, renderer: 'svg'})
      .then(res => { el.rankbookView = res.view; el.dataset.ready = 'yes'; })
      .catch(err => { target.textContent = 'The explorer could not be drawn: ' + err;
                      el.dataset.ready = 'error'; });
  }
}
if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', rankbookDrawExplorers);
} else {
  rankbookDrawExplorers();
}
"""
    body = vlc.javascript_bundle(snippet=init, vl_version=vl_version)
    head = (f"/* rankbook explorers: Vega {vlc.get_vega_version()}, Vega-Lite {vl_version}, "
            f"vega-embed {vlc.get_vega_embed_version()} (BSD-3-Clause, the Vega project), bundled "
            f"by vl-convert-python. Generated at build time; do not edit. */\n")
    return head + "(function () {\n" + body + "\n})();\n"


def write_bundle(folder: Path) -> Path:
    """Write :data:`BUNDLE_NAME` into ``folder`` unless an identical one is there."""
    path = Path(folder) / BUNDLE_NAME
    text = bundle_script()
    if not path.is_file() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".js.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
    return path


def show_rows(df, *, name: str, kind: str, x: str, y: str, color: str | None = None,
              controls: dict[str, Any], title: str, what: str, x_title: str | None = None,
              y_title: str | None = None, color_title: str | None = None,
              tooltip: list[str] | None = None, height: int = 300) -> Path | None:
    """Show a table the page computed itself as an explorer, with no sweep.

    Where the values behind a chart are already computed in the page (a curve over k, say),
    sweeping the notebook would only recompute them. ``df`` is written to ``name.csv`` in the
    output folder and plotted like :func:`show` (``controls`` maps each control column to its
    initial value); the caption says the values come from this run. Returns the CSV, or None
    when ``df`` is empty or inside a grid point of another explorer.
    """
    from IPython.display import Markdown, display

    from .outputs import _check_name
    from .paths import notebook_dir, output_dir

    _check_name(name)
    if _in_point() or df is None or len(df) == 0:
        return None
    out = output_dir()
    csv_path = out / f"{name}.csv"
    tmp = csv_path.with_suffix(".csv.tmp")
    df.to_csv(tmp, index=False, lineterminator="\n")
    os.replace(tmp, csv_path)
    rows = read_rows(csv_path)
    chart = vegalite_spec(rows, kind=kind, x=x, y=y, color=color, controls=dict(controls),
                          title=title, x_title=x_title, y_title=y_title,
                          color_title=color_title, tooltip=tooltip, height=height)
    rel = os.path.relpath(csv_path, notebook_dir()).replace(os.sep, "/")
    payload = json.dumps(chart, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
    label = html.escape(f"{title}: an interactive chart; the same values are in {name}.csv")
    display(Markdown("\n".join([
        "::::{div} rankbook-explorer",
        f":name: explorer-{name}",
        "",
        f'<div class="rb-explorer-chart" role="figure" aria-label="{label}">'
        "<p>This explorer needs JavaScript; its values are in the CSV linked below.</p></div>",
        f'<script type="application/json" class="rb-explorer-spec">{payload}</script>',
        "",
        f"**Explore.** {what} Computed by this page's own run; every plotted value is a row of "
        f"{{download}}`{name}.csv <{rel}>`.",
        "::::", ""])))
    return csv_path
