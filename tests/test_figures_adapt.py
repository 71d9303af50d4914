"""Figures adapt to any allowed input (issue 24, finding 6): colour scales cover the data, axes
fit it, and a figure with more than one colour says what each means.

Each notebook runs in this process (no kernel) with the parameters of the report; the figures it
saves are caught as they are saved and inspected.
"""

from __future__ import annotations

import numpy as np
import pytest

from extremes import check_case, run_inprocess
from rankbook.book import outputs, specs

pytestmark = pytest.mark.notebooks


@pytest.fixture
def figures(monkeypatch):
    caught = {}
    save = outputs.save_figure

    def keep(fig, name, *args, **kwargs):
        caught[name] = fig
        return save(fig, name, *args, **kwargs)

    monkeypatch.setattr(outputs, "save_figure", keep)
    import matplotlib.pyplot as plt

    monkeypatch.setattr(plt, "close", lambda *a, **k: None)  # keep them open for inspection
    return caught


def run(name: str, overrides: dict, tmp_path):
    spec = specs.find(name)
    params = check_case(spec, overrides)
    assert isinstance(params, dict), params
    # an explorer would otherwise take the page for one at the book's defaults and compute its
    # grid (the heat map's: 46 of the test's 49 s), which draws nothing these tests inspect;
    # with the run's values it leaves the grid out, as in any rerun with changed parameters
    run_inprocess(spec, params, tmp_path / "out", kernel_values=True)


def test_the_heat_map_colour_scale_covers_every_ratio(figures, tmp_path):
    run("agreement_heatmap", {"n": 10, "k": 2, "n_pairs": 300, "compare_protocols": False},
        tmp_path)
    fig = figures["agreement_heatmap"]
    mesh = fig.axes[0].collections[0]
    lo, hi = mesh.get_clim()
    data = np.asarray(mesh.get_array(), dtype=float)
    assert np.nanmin(data) < 0.5  # the case of the report: ratios below the old floor of 0.5
    assert lo <= np.nanmin(data) and hi >= np.nanmax(data)


def test_the_rbo_histogram_axis_fits_the_values(figures, tmp_path):
    run("rbo_bounds", {"S": "abcdefghij", "T": "xbd", "n_random": 30}, tmp_path)
    ax = figures["rbo_random_extensions"].axes[0]
    left, right = ax.get_xlim()
    edges = [p.get_x() for p in ax.patches] + [p.get_x() + p.get_width() for p in ax.patches]
    assert left <= min(edges) and max(edges) <= right
    assert (left, right) != (0.0, 1.0) and right - left < 0.9  # zoomed on the data


def test_the_profile_bar_chart_says_what_its_colours_mean(figures, tmp_path):
    run("metric_profile", {}, tmp_path)
    ax = figures["agreement"].axes[0]
    colours = {tuple(np.round(p.get_facecolor(), 3)) for p in ax.patches}
    legend = ax.get_legend()
    assert legend is not None and len(legend.get_texts()) == len(colours)
