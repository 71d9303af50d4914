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
import shlex
import shutil
from pathlib import Path
from typing import Any

from .bundle import BUNDLE_NAME, VEGALITE_VERSION, bundle_script, write_bundle  # noqa: F401 - re-exported
from .csvsafe import restore_cell, write_csv
from .outputs import reader_markdown

#: Set while the grid of an explorer is computed; every point inherits it.
POINT_ENV = "RANKBOOK_EXPLORER_POINT"



#: Kinds of chart: a line per colour over a numeric x, bars, a heat map, or dots (one row per
#: category, the value along the axis: the reproduced cells with the published ones over them).
KINDS = ("line", "bar", "heatmap", "dots")

#: How mismatches are marked over the published values: the status word, its colour and shape.
MARKS = (("differs", "#b42318", "cross"), ("close", "#b35c00", "circle"))


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
        return [{restore_cell(k): _typed(restore_cell(v)) for k, v in row.items()}
                for row in csv.DictReader(fh)]


def _given(grid: dict, fixed: dict, spec) -> list[tuple[str, str]]:
    from .present import cli_value

    given = []
    for key, values in grid.items():
        p = spec.parameters.get(key)
        is_list = p is not None and isinstance(p.default, list)
        sep = ";" if is_list else ","  # a separator inside a value is escaped (sweep.split_values)
        given.append((key, sep.join(cli_value(v).replace(sep, "\\" + sep) for v in values)))
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
    """A Vega-Lite parameter bound to an input, and its filter expression. The input is
    labelled with the column's display name (:func:`rankbook.ledger.names.display`), never its id."""
    from ..ledger.names import display

    name = "p_" + "".join(c if c.isalnum() else "_" for c in column)
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    steps = {b - a for a, b in zip(values, values[1:])} if ints else set()
    label = f"{display(column)} "
    if ints and len(values) > 2 and len(steps) == 1:
        bind = {"input": "range", "min": values[0], "max": values[-1], "step": steps.pop(),
                "name": label}
    else:
        bind = {"input": "select", "options": values, "name": label}
        labels = [display(v) if isinstance(v, str) else str(v) for v in values]
        if labels != [str(v) for v in values]:  # ids (mad, sqrt_mad) read as their names
            bind["labels"] = labels
    param = {"name": name, "value": initial, "bind": bind}
    return param, f"datum[{json.dumps(column)}] === {name}"


def title_lines(title: str, width: int = 42) -> list[str]:
    """A chart title broken into lines of at most about ``width`` characters, so that a narrow
    column (a phone) shows it whole instead of clipping it.

    >>> title_lines("Agreement ratio of every pair of metrics at the chosen n and k", 30)
    ['Agreement ratio of every pair', 'of metrics at the chosen n and', 'k']
    """
    import textwrap

    return textwrap.wrap(str(title), width) or [""]


def vegalite_spec(rows: list[dict], *, kind: str, x: str, y: str, color: str | None,
                  controls: dict[str, Any], title: str, x_title: str | None = None,
                  y_title: str | None = None, color_title: str | None = None,
                  tooltip: list[str] | None = None, width: int = 560, height: int = 300,
                  scheme: str | None = None, domain: tuple | None = None,
                  overlay: str | None = None, status: str | None = None,
                  panel: str | None = None, marks: dict[str, str] | None = None) -> dict:
    """The Vega-Lite spec of an explorer (built with altair): ``rows`` inline, one bound
    parameter per control column (initial value given), a filter per control.

    Every control, axis, legend and tooltip is titled with a display name
    (:func:`rankbook.ledger.names.display`). A heat map takes the colour ``scheme`` and
    ``domain`` of the figure it explores (a Vega scheme name, e.g. ``"pinkyellowgreen"`` for
    matplotlib's PiYG). A line chart with ``overlay`` draws that column (the published values)
    as open diamonds over the lines of ``y``, and with ``status`` marks the points whose status
    is ``differs`` with a red cross and ``close`` with an orange ring (``marks`` maps these two
    words to the ones the status column uses, e.g. ``{"differs": "matches on no seed"}``). A
    ``"dots"`` chart puts one row per value of ``x`` and the value ``y`` along the axis (a
    filled dot), with ``overlay`` and ``status`` drawn the same way.

    With ``panel`` (a column), the chart is split into one panel per value of that column, in
    the order of the rows, stacked one above the other, each with its own value axis and titled
    with the value: measures on different scales (shares between 0 and 1, unbounded sums of
    gains) then do not squeeze one another into a corner of one axis. Each panel fills the
    column's width.
    """
    import altair as alt

    from ..ledger.names import display

    if kind not in KINDS:
        raise ValueError(f"unknown explorer kind {kind!r}; valid: {', '.join(KINDS)}")
    missing = [c for c in [x, y, color, overlay, status, panel, *controls]
               if c and rows and c not in rows[0]]
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
    def typed(column: str) -> str:
        numbers = all(isinstance(r.get(column), (int, float)) for r in rows
                      if r.get(column) is not None)
        return f"{column}:{'Q' if numbers else 'N'}"

    shown = tooltip or [c for c in dict.fromkeys([x, y, overlay, status, color, *controls]) if c]
    tips = [alt.Tooltip(typed(c), title=display(c)) for c in shown]

    words = {**{word: word for word, _, _ in MARKS}, **(marks or {})}

    def marked(base, xs, ys):
        return [base.transform_filter(
            f"datum[{json.dumps(status)}] === {json.dumps(words[word])}").mark_point(
            shape=shape, size=170, strokeWidth=2.2, filled=False, color=colour).encode(
            x=xs, y=ys, tooltip=tips) for word, colour, shape in MARKS]

    def draw(base):
        if kind == "dots":
            ys = alt.Y(f"{x}:N", title=x_title or display(x), sort=None)
            xs = alt.X(f"{y}:Q", title=y_title or display(y), scale=alt.Scale(zero=False))
            layers = [base.mark_point(filled=True, size=70, color="#0072B2").encode(
                x=xs, y=ys, tooltip=tips)]
            if overlay:
                over = alt.X(f"{overlay}:Q")
                layers.append(base.mark_point(shape="diamond", filled=False, size=110,
                                              strokeWidth=1.5, color="#000000").encode(
                    x=over, y=ys, tooltip=tips))
                if status:
                    layers += marked(base, over, ys)
            return alt.layer(*layers) if len(layers) > 1 else layers[0]
        if kind == "line":
            xs = alt.X(f"{x}:Q", title=x_title or display(x), scale=alt.Scale(zero=False))
            hue = (alt.Color(f"{color}:N", title=color_title or display(color)) if color
                   else alt.Undefined)
            chart = base.mark_line(point=True).encode(
                x=xs, y=alt.Y(f"{y}:Q", title=y_title or display(y), scale=alt.Scale(zero=False)),
                color=hue, tooltip=tips)
            if overlay:
                published = base.mark_point(shape="diamond", filled=False, size=90,
                                            strokeWidth=1.5).encode(
                    x=xs, y=alt.Y(f"{overlay}:Q"), color=hue, tooltip=tips)
                layers = [chart, published]
                if status:
                    layers += marked(base, xs, alt.Y(f"{overlay}:Q"))
                chart = alt.layer(*layers)
            return chart
        if kind == "bar":
            return base.mark_bar().encode(
                y=alt.Y(f"{x}:N", title=x_title or display(x), sort=None),
                x=alt.X(f"{y}:Q", title=y_title or display(y)),
                tooltip=tips)
        scale = alt.Scale(scheme=scheme or "viridis",
                          **({"domain": list(domain), "clamp": True} if domain else {}))
        return base.mark_rect().encode(
            x=alt.X(f"{x}:N", title=x_title or display(x), sort=None),
            y=alt.Y(f"{color}:N", title=color_title or display(color), sort=None),
            color=alt.Color(f"{y}:Q", title=y_title or display(y), scale=scale),
            tooltip=tips)

    if panel is None:
        base = alt.Chart(alt.Data(values=rows, name="grid")).properties(
            width=width, height=height, title=alt.TitleParams(title_lines(title), anchor="start"))
        for expr in filters:
            base = base.transform_filter(expr)
        spec = _strip_layer_params(draw(base).to_dict())
    else:
        values = list(dict.fromkeys(r[panel] for r in rows if r[panel] is not None))
        panels = []
        for value in values:
            bars = len({r[x] for r in rows if r[panel] == value})  # a bar chart's categories
            tall = max(60, 22 * bars) if kind in ("bar", "dots") else height
            base = alt.Chart().properties(
                height=tall, title=alt.TitleParams(title_lines(str(value)), anchor="start",
                                                   fontSize=13))
            base = base.transform_filter(f"datum[{json.dumps(panel)}] === {json.dumps(value)}")
            part = _strip_layer_params(draw(base).to_dict())
            for node in [part, *part.get("layer", [])]:  # the top level holds these
                for key in ("$schema", "config", "data", "datasets"):
                    node.pop(key, None)
            part["width"] = "container"
            panels.append(part)
        spec = {"$schema": alt.SCHEMA_URL,
                "data": {"name": "grid", "values": rows},
                "title": {"text": title_lines(title), "anchor": "start"},
                "transform": [{"filter": expr} for expr in filters],
                "vconcat": panels,
                "resolve": {"scale": {"x": "independent", "y": "independent"}}}
    spec["params"] = params + list(spec.get("params", []))
    # a legend entry is never cut ("KTU as repro_eval comput…"): no label limit, and as many
    # columns as the chart's width holds entries of the longest label (one on a phone)
    legend_labels = {str(r[color]) for r in rows if color and r.get(color) is not None}
    entry_px = 32 + 7.2 * max((len(v) for v in legend_labels), default=10)
    spec["config"] = {"background": "#ffffff", "font": "sans-serif",
                      "axis": {"labelFontSize": 12, "titleFontSize": 13, "labelColor": "#222222",
                               "labelLimit": 0, "titleColor": "#222222"},
                      # the legend goes under the chart, so that on a phone the chart keeps
                      # the column's width (a heat map beside its legend shrank to 70 px)
                      "legend": {"orient": "bottom", "direction": "vertical",
                                 "columns": {"expr": f"max(1, floor(containerSize()[0] / {entry_px:.0f}))"},
                                 "labelLimit": 0, "labelFontSize": 12, "titleFontSize": 13,
                                 "labelColor": "#222222", "titleColor": "#222222"},
                      "title": {"fontSize": 14, "color": "#222222"},
                      "range": {"category": ["#0072B2", "#E69F00", "#009E73", "#D55E00",
                                             "#CC79A7", "#56B4E9", "#000000"]}}
    spec["autosize"] = {"type": "fit-x", "contains": "padding"}
    if panel is None:
        spec["width"] = "container"
    if kind == "heatmap" and panel is None:
        # a cell keeps a readable size whatever the screen: the chart is as wide as its
        # columns need, and scrolls sideways in its box on a phone (rankbook.css)
        spec["width"] = {"step": HEATMAP_STEP}
        spec["autosize"] = {"type": "pad"}
    return spec


#: The width of a heat map's cell in an explorer, in pixels: its labels (12 px) stay readable.
HEATMAP_STEP = 17


def _strip_layer_params(spec: dict) -> dict:
    """The controls live at the top of the spec, never in the layers of a layered chart."""
    for layer in spec.get("layer", []):
        layer.pop("params", None)
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


def show(notebook: str, table: str | list[str] | dict[str, str],
         grid: dict[str, list] | list[dict[str, list]], *, name: str,
         kind: str, x: str, y: str, color: str | None = None,
         controls: list[str] | dict[str, Any] | None = None,
         title: str, what: str, fixed: dict | None = None, current: dict | None = None,
         melt: dict | None = None, x_title: str | None = None, y_title: str | None = None,
         color_title: str | None = None, height: int = 300, jobs: int = 1,
         derive: dict[str, Any] | None = None, scheme: str | None = None,
         domain: tuple | Any = None, overlay: str | None = None, status: str | None = None,
         panel: str | None = None, root: Path | None = None) -> Path | None:
    """Compute a grid with ``rankbook sweep`` and show it as an explorer (see module doc).

    Parameters
    ----------
    notebook : str
        The notebook swept (usually the page's own).
    table : str, list of str, or dict
        The table(s) the notebook saves (CSV stems) that the chart plots; several are stacked
        with a ``table`` column, which holds the stem, or the reader's name for it when
        ``table`` is a dict ``{stem: name}``.
    grid : dict, or list of dict
        ``{parameter: [values]}``: the points are their Cartesian product; a list of such
        grids is their union (e.g. k as a share of n: one grid per n). Keep it small: every
        point is a run of the notebook during the build.
    name : str
        File stem of the grid's CSV and id of the explorer.
    kind, x, y, color
        The chart: ``"line"`` (``y`` over numeric ``x``, a line per ``color``), ``"bar"``
        (``y`` per category ``x``), ``"heatmap"`` (``x`` by ``color`` cells coloured by ``y``)
        or ``"dots"`` (a row per category ``x``, ``y`` as a dot, ``overlay`` over it).
    controls : list of str, or dict, optional
        The columns the reader picks a value of (default: the swept parameters); a dict gives
        each its initial value (default: the notebook's default, else the first value).
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
    derive : dict, optional
        ``{column: function(DataFrame) -> values}``: columns computed from the grid's table
        before it is written (e.g. k as a share of n), usable as controls.
    scheme, domain, overlay, status, panel
        Passed to :func:`vegalite_spec`: the heat map's colour scheme and range; the column
        drawn over the lines (published values), the column that marks mismatches, and the
        column whose values split the chart into panels (one scale each; a ``derive`` column).

    Ids in the plotted text columns (metric ids, reading ids) are written as display names
    (:func:`rankbook.ledger.names.display`), in the CSV as in the chart.

    Returns the grid's CSV, or None when nothing was computed.
    """
    from IPython.display import Markdown, display

    from ..ledger.names import display as display_name
    from .outputs import _check_name
    from ..ledger.paths import notebook_dir, output_dir
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
    grids = [grid] if isinstance(grid, dict) else list(grid)
    swept = list(dict.fromkeys(k for g in grids for k in g))
    out = output_dir()
    tables = {table: table} if isinstance(table, str) else (
        dict(table) if isinstance(table, dict) else {t: t for t in table})
    import pandas as pd

    from .sweep import STATUS_COLUMN

    frames, n_points = [], 0
    for i, sub in enumerate(grids):
        folder = out / (f".explorer-{name}" if len(grids) == 1 else f".explorer-{name}-{i}")
        before = os.environ.get(POINT_ENV)
        os.environ[POINT_ENV] = "1"
        try:
            report = run_sweep(notebook, _given(sub, fixed, spec), jobs=jobs, progress=False,
                               folder=folder, root=root, log=lambda *a: None)
        finally:
            if before is None:
                os.environ.pop(POINT_ENV, None)
            else:
                os.environ[POINT_ENV] = before
        failed = [p for p in report.points if p["status"] == "failed"]
        if failed:
            raise RuntimeError(f"{len(failed)} point(s) of the {name} explorer failed: "
                               f"{failed[0].get('params')}: {failed[0].get('error')}")
        n_points += len(report.points)
        for stem, label in tables.items():
            path = folder / "combined" / f"{stem}.csv"
            if not path.is_file():
                raise ValueError(f"the sweep of {notebook} saved no table {stem!r}; it saved "
                                 f"{', '.join(p.stem for p in (folder / 'combined').glob('*.csv'))}")
            df = pd.read_csv(path)
            if len(tables) > 1:
                df.insert(len(sub), "table", label)
            frames.append(df)
        shutil.rmtree(folder / "points", ignore_errors=True)  # the CSV holds what the page needs
    df = pd.concat(frames, ignore_index=True)
    # the combined tables lead with every swept parameter and the point status: the explorer
    # keeps the grid's columns and the table's own (a fixed value would be melted as a metric)
    used = set(swept) | set((melt or {}).get("id", ())) | {x, y, color}
    df = df.drop(columns=[c for c in (STATUS_COLUMN, *fixed) if c in df.columns and c not in used])
    if melt:
        df = df.melt(id_vars=melt["id"], var_name=melt["var"], value_name=melt["value"])
    for column, function in (derive or {}).items():
        df[column] = function(df)
    for column in {x, color} - {None}:  # ids a reader never sees: metric and reading names
        if column in df.columns and not pd.api.types.is_numeric_dtype(df[column]):
            df[column] = df[column].map(lambda v: display_name(v) if isinstance(v, str) else v)
    csv_path = out / f"{name}.csv"
    write_csv(df, csv_path)  # no cell a formula (read_rows restores the labels)
    rows = read_rows(csv_path)
    if callable(domain):  # a range computed from the plotted values, like the figure's own
        domain = domain(df[y].to_numpy(dtype=float))
    clamped = ""
    if domain is not None and kind == "heatmap":
        below = int((df[y] < domain[0]).sum())
        if below:
            clamped = (f" The colour scale runs from {domain[0]:g} to {domain[1]:g}, as in the "
                       f"figure; {below} {'value' if below == 1 else 'values'} below {domain[0]:g} "
                       f"{'takes' if below == 1 else 'take'} its lowest colour "
                       "(their tooltips give the value).")
    initial_given = dict(controls) if isinstance(controls, dict) else {}
    controls = list(controls) if controls is not None else swept
    start = {**defaults, **fixed, **initial_given}
    initial = {c: start.get(c, None) for c in controls}
    chart = vegalite_spec(rows, kind=kind, x=x, y=y, color=color, controls=initial, title=title,
                          x_title=x_title, y_title=y_title, color_title=color_title,
                          height=height, scheme=scheme, domain=domain, overlay=overlay,
                          status=status, panel=panel)
    rel = os.path.relpath(csv_path, notebook_dir()).replace(os.sep, "/")
    # the grid as a reader reads it: swept ids by their names ("mad" reads "mean absolute
    # deviation (Eq. 13)"); the commands below keep the values a reader types
    def shown(value):
        return display_name(value) if isinstance(value, str) else str(value)

    axes = "; ".join(", ".join(f"{display_name(k)} in {{{', '.join(map(shown, v))}}}"
                               for k, v in g.items())
                     for g in grids)
    # the sweep as a command a reader can type (the fixed values are its parameters, never ids
    # in the prose)
    commands = " and ".join(
        f"`rankbook sweep {notebook} "
        + " ".join(f"-p {k} {shlex.quote(v)}" for k, v in _given(g, fixed, spec)) + "`"
        for g in grids)
    outside = _outside_command(spec, grids[-1], fixed)
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
        f"**Explore.** {reader_markdown(what)}{clamped} Precomputed at build time: the notebook run at every point of "
        f"the grid {axes} ({n_points} runs: {commands}). "
        f"Every plotted value is a row of {{download}}`{name}.csv <{rel}>`.",
    ]
    if outside:
        lines[-1] += f" For values outside the grid: `{outside}`."
    lines += ["::::", ""]
    from .outputs import output_metadata

    display(Markdown("\n".join(lines)), metadata=output_metadata("explorer", name, csv_path))
    return csv_path


def show_rows(df, *, name: str, kind: str, x: str, y: str, color: str | None = None,
              controls: dict[str, Any], title: str, what: str, x_title: str | None = None,
              y_title: str | None = None, color_title: str | None = None,
              tooltip: list[str] | None = None, height: int = 300,
              overlay: str | None = None, status: str | None = None,
              marks: dict[str, str] | None = None, panel: str | None = None) -> Path | None:
    """Show a table the page computed itself as an explorer, with no sweep.

    Where the values behind a chart are already computed in the page (a curve over k, say),
    sweeping the notebook would only recompute them. ``df`` is written to ``name.csv`` in the
    output folder and plotted like :func:`show` (``controls`` maps each control column to its
    initial value); the caption says the values come from this run. ``overlay``, ``status``,
    ``marks`` and ``panel`` are passed to :func:`vegalite_spec`. Returns the CSV, or None when
    ``df`` is empty or inside a grid point of another explorer.
    """
    from IPython.display import Markdown, display

    from .outputs import _check_name, output_metadata
    from ..ledger.paths import notebook_dir, output_dir

    _check_name(name)
    if _in_point() or df is None or len(df) == 0:
        return None
    out = output_dir()
    csv_path = out / f"{name}.csv"
    write_csv(df, csv_path)  # no cell a formula (read_rows restores the labels)
    rows = read_rows(csv_path)
    chart = vegalite_spec(rows, kind=kind, x=x, y=y, color=color, controls=dict(controls),
                          title=title, x_title=x_title, y_title=y_title,
                          color_title=color_title, tooltip=tooltip, height=height,
                          overlay=overlay, status=status, marks=marks, panel=panel)
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
        f"**Explore.** {reader_markdown(what)} Computed by this page's own run; every plotted value is a row of "
        f"{{download}}`{name}.csv <{rel}>`.",
        "::::", ""])), metadata=output_metadata("explorer", name, csv_path))
    return csv_path
