"""The benchmark page's scaling figure, in panels (issue 28, item 5).

One log-log panel per benchmark case, two panels side by side, with each panel's legend under
it, so that the figure is about a third as tall as one stacked column of panels; the figure's
title names the commit and the date its numbers were measured at (``doc["meta"]``). The
benchmark results file is read by ``benchmarks/report.py``; this module only draws.
"""

from __future__ import annotations

import math

#: Panels side by side.
COLUMNS = 2
#: Width of the figure in inches, and the size of its text in points: legible in the book's
#: column (:func:`rankbook.book.outputs.check_figure_text`).
WIDTH_IN = 10.4
FONT_PT = 12.5
#: Longest legend line in characters: a label wraps so that it stays under its own panel
#: instead of running under its neighbour's legend.
LEGEND_CHARS = 44


def measured_at(doc: dict) -> str:
    """The commit and date of the numbers, in words.

    >>> measured_at({"meta": {"commit": "66a9e523154c", "date_utc": "2026-11-23 18:49 UTC"}})
    'measured at commit 66a9e523154c on 2026-11-23 18:49 UTC'
    """
    meta = doc.get("meta", {})
    return (f"measured at commit {meta.get('commit', 'unknown')} on "
            f"{meta.get('date_utc', 'an unknown date')}")


def _series_label(s: dict) -> str:
    """A series' legend entry, wrapped to :data:`LEGEND_CHARS` per line.

    >>> print(_series_label({"series": "scipy kendalltau loop, extrapolated to B=100000",
    ...                      "slope": 0.06}))
    scipy kendalltau loop, extrapolated to
    B=100000 (slope 0.06)
    """
    import textwrap

    if s.get("axis") == "semilogy":
        g = s.get("log2_time_per_item")
        label = s["series"] + ("" if g is None else f" (log2 t: {g:+.2f} per item)")
    else:
        slope = s.get("slope")
        label = s["series"] + ("" if slope is None else f" (slope {slope:.2f})")
    return textwrap.fill(label, LEGEND_CHARS, break_long_words=False)


def scaling_panels(doc: dict, titles: dict[str, str]):
    """The scaling figure of a benchmark results document: measured medians (points), the
    least-squares fit (solid line, its slope in the legend) and the theoretical slope (dotted)
    for every case in ``titles`` (case id -> panel title) that has at least two sizes.

    Raises ``ValueError`` when the document holds no such series.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    series = [s for s in doc.get("scaling", []) if len(s["x"]) >= 2]
    cases = [c for c in titles if any(s["case"] == c for s in series)]
    if not cases:
        raise ValueError("the benchmark results hold no scaling series of two or more sizes; "
                         "run `make bench` to measure them")
    rows = math.ceil(len(cases) / COLUMNS)
    fig, axes = plt.subplots(rows, COLUMNS, figsize=(WIDTH_IN, 4.6 * rows), squeeze=False,
                             layout="constrained")
    for ax in axes.flat[len(cases):]:
        ax.set_visible(False)
    for ax, case in zip(axes.flat, cases):
        mine = [s for s in series if s["case"] == case]
        for i, s in enumerate(mine):
            x, t = np.array(s["x"], float), np.array(s["t"], float)
            color = f"C{i}"
            if s.get("axis") == "semilogy":
                g = s.get("log2_time_per_item")
                ax.semilogy(x, t, "o", color=color, label=_series_label(s))
                if g is not None:
                    b = np.log2(t).mean() - g * x.mean()
                    ax.semilogy(x, 2.0 ** (b + g * x), "-", color=color, lw=1)
                    if "brute" in s["series"]:
                        ax.semilogy(x, t[0] * 2.0 ** (x - x[0]), ":", color=color, lw=1)
                continue
            ax.loglog(x, t, "o", color=color, label=_series_label(s))
            if s.get("slope") is not None:
                lx, lt = np.log(x), np.log(t)
                b = lt.mean() - s["slope"] * lx.mean()
                xx = np.geomspace(x.min(), x.max(), 20)
                ax.loglog(xx, np.exp(b) * xx ** s["slope"], "-", color=color, lw=1)
            if s.get("theory_slope"):
                xx = np.geomspace(x.min(), x.max(), 20)
                ax.loglog(xx, t[0] * (xx / x[0]) ** s["theory_slope"], ":", color=color, lw=1)
        if all(s.get("axis") == "semilogy" for s in mine):
            ax.set_xscale("linear")
        ax.set_xlabel(mine[0]["x_name"], fontsize=FONT_PT)
        ax.set_ylabel("seconds", fontsize=FONT_PT)
        ax.set_title(titles[case], fontsize=FONT_PT)
        ax.tick_params(which="both", labelsize=FONT_PT)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=FONT_PT, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1,
                  frameon=False)
    fig.suptitle(f"Time against size, {measured_at(doc)}", fontsize=FONT_PT + 1)
    return fig
