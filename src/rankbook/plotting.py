"""Figures for the book's notebooks, drawn with matplotlib.

matplotlib is imported inside each function, only when it is called, so importing this module
(or any library module of rankbook) never imports matplotlib. Install it with the ``book`` extra
(``pip install "rankbook[book]"``) or on its own.

- :func:`draw_consensus_graph`: the graph of Theorem 1 of :cite:`lin2017consensus`
  (its Figures 1 and 2);
- :func:`plot_kappa_p_curves`: :math:`\\kappa_p` against its weight parameter
  (:func:`rankbook.consensus.kappa_p_curves`);
- :func:`plot_difference_heatmaps`: reproduced minus published grids (each a difference of two
  grids of :func:`rankbook.consensus.kappa_grid`'s shape);
- :func:`curve_panels`: small multiples of many curves, one panel per distinct curve;
- :func:`difference_plot`: each system's difference to a baseline with its interval
  (:func:`rankbook.stats.compare`);
- :func:`metric_dendrogram`: the tree of a hierarchical clustering of metrics
  (:func:`rankbook.clustering.cluster_metrics`), leaves coloured by a given grouping.
"""

from __future__ import annotations

import numpy as np

from . import consensus as _consensus

__all__ = ["draw_consensus_graph", "consensus_graph_figure", "plot_kappa_p_curves",
           "plot_difference_heatmaps", "curve_panels", "difference_plot", "metric_dendrogram"]


def _plain(label) -> str:
    """A user's label as plain text in a matplotlib string (``$x$`` is not maths)."""
    return str(label).replace("$", "\\$")


def draw_consensus_graph(rankings, gamma: float = 1.0, lam: float = 1.0, *, ax=None,
                         deviation: str = "std", base: int | None = 0, title: str | None = None,
                         min_fontsize: float = 0.0, max_label: int = 3):
    """Draw the graph of Theorem 1 (Figures 1 and 2 of ``lin2017consensus``) with matplotlib.

    The items of the base ranking are placed left to right in its order; items common to all
    rankings are filled and carry a dashed loop (their weight :math:`\\theta` is printed when
    ``gamma < 1``); the others are hollow. Each edge is an arc from the earlier to the later
    item, labelled with :math:`\\psi` when ``lam < 1``. Returns the axes.

    Any labels stay legible: a label longer than ``max_label`` characters (a document id, a
    title) is drawn as its position in the base ranking, and a key under the graph, wrapped to
    the axes' width, gives every number's full label. Labels are drawn as text, never as
    maths (``$x$`` stays ``$x$``). No text is smaller than ``min_fontsize`` points (the
    notebook passes the smallest size that stays readable at the figure's displayed width).

    Parameters
    ----------
    rankings : sequence of rankings
        As :func:`rankbook.consensus.kappa` takes them.
    gamma, lam : float in (0, 1]
        The weight bases; their weights are printed when below 1.
    ax : matplotlib.axes.Axes, optional
        The axes to draw on (a new figure by default).
    deviation : {"std", "mad", "sqrt_mad", "sample_std"}
        Reading of the position spread, as in :func:`rankbook.consensus.kappa`.
    base : int or None
        The ranking whose order places the items.
    title : str, optional
        The axes' title.
    min_fontsize : float
        The smallest font size drawn, in points.
    max_label : int
        Labels longer than this are drawn as numbers with a key.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import textwrap

    import matplotlib.pyplot as plt
    from matplotlib.patches import Arc, FancyArrowPatch

    A = _consensus.consensus_matrix(rankings, gamma, lam, deviation=deviation, base=base)
    labels = [str(x) for x in A.index]
    M = A.to_numpy()
    n = len(labels)
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4.0, 1.2 * n), 3.2))
    node_pt, small_pt = max(12.0, min_fontsize), max(8.0, min_fontsize)
    short = [lab if len(lab) <= max_label else str(i + 1) for i, lab in enumerate(labels)]
    xs = np.arange(n, dtype=float)
    weighted_nodes, weighted_edges = gamma < 1, lam < 1
    for i in range(n):
        common = M[i, i] > 0
        ax.add_patch(plt.Circle((xs[i], 0), 0.22, facecolor="#4c72b0" if common else "white",
                                edgecolor="#4c72b0", lw=1.5, zorder=3))
        ax.text(xs[i], 0, short[i], ha="center", va="center", zorder=4, parse_math=False,
                color="white" if common else "#4c72b0", fontsize=node_pt)
        if common:
            ax.add_patch(Arc((xs[i], -0.42), 0.36, 0.44, theta1=-270, theta2=90, ls="--",
                             lw=1.0, color="0.35"))
            if weighted_nodes:
                ax.text(xs[i], -0.78, f"{M[i, i]:.3f}", ha="center", va="top", fontsize=small_pt,
                        color="0.25")
    top = 0.0
    for i, j in zip(*np.nonzero(np.tril(M, -1))):
        span = i - j
        rad = -0.55
        arrow = FancyArrowPatch((xs[j], 0.22), (xs[i], 0.22),
                                connectionstyle=f"arc3,rad={rad}", arrowstyle="-|>",
                                mutation_scale=12, lw=1.2, color="0.2", zorder=2,
                                shrinkA=2, shrinkB=2)
        ax.add_patch(arrow)
        height = 0.22 + abs(rad) * span / 2
        top = max(top, height)
        if weighted_edges:
            ax.text((xs[i] + xs[j]) / 2, height, f"{M[i, j]:.3f}", ha="center", va="bottom",
                    fontsize=small_pt, color="#c44e52",
                    bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.8))
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_ylim(-1.1 if weighted_nodes else -0.95, top + 0.45)
    ax.set_aspect("equal")
    ax.axis("off")
    if short != labels:
        # the key: "1 = label" for every number, wrapped to the axes' width (a character is
        # about 0.6 em wide; long labels without spaces are broken too)
        fig = ax.figure
        width_in = fig.get_figwidth() * ax.get_position().width
        chars = max(20, int(width_in * 72 / (0.6 * small_pt)))
        entries = [f"{s} = {lab}" if s != lab else lab for s, lab in zip(short, labels)]
        text = textwrap.fill("; ".join(e for e, s, lab in zip(entries, short, labels) if s != lab),
                             width=chars, break_long_words=True, break_on_hyphens=False)
        ax.text(0.0, -0.02, text, transform=ax.transAxes, ha="left", va="top",
                fontsize=small_pt, parse_math=False, color="0.2")
    if title:
        from matplotlib.font_manager import FontProperties

        size = FontProperties(size=plt.rcParams["axes.titlesize"]).get_size_in_points()
        ax.set_title(title, fontsize=max(size, min_fontsize))
    return ax


def consensus_graph_figure(rankings, gamma: float, lam: float, *, base: int | None = 0,
                           deviation: str = "std", legible=None, titles=None):
    """Both drawings of :func:`draw_consensus_graph` (unweighted above, weighted below) in one
    figure sized for the items: about 1.15 in per item, taller when a key of long labels is
    needed. ``legible(width_in)`` gives the smallest readable font size for a figure that wide
    (``rankbook.book.outputs.legible_fontsize``); every text is drawn at least that large.
    Returns the figure.

    Parameters
    ----------
    rankings : sequence of rankings
        As :func:`rankbook.consensus.kappa` takes them.
    gamma, lam : float in (0, 1]
        The weights of the lower drawing.
    base : int or None
        The ranking whose order places the items.
    deviation : {"std", "mad", "sqrt_mad", "sample_std"}
        Reading of the position spread.
    legible : callable, optional
        ``legible(width_in)``: the smallest readable font size at that width.
    titles : tuple of two str, optional
        The titles of the two drawings.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    items = [str(x) for x in _consensus.consensus_matrix(rankings, base=base).index]
    width = max(6.0, 1.15 * len(items))
    font = float(legible(width)) if legible is not None else 0.0
    small = max(8.0, font)
    long_chars = sum(len(x) + len(str(len(items))) + 5 for x in items if len(x) > 3)
    per_line = max(20, int(width * 0.8 * 72 / (0.6 * small)))
    key_lines = -(-long_chars // per_line) if long_chars else 0
    height = 6.4 + 2 * key_lines * small * 1.4 / 72
    fig, axes = plt.subplots(2, 1, figsize=(width, height))
    titles = titles or ("unweighted (Figure 1)",
                        f"weighted, gamma = {gamma:g}, lambda = {lam:g} (Figure 2)")
    for ax, (g, lm), title in zip(axes, ((1.0, 1.0), (gamma, lam)), titles):
        draw_consensus_graph(rankings, g, lm, ax=ax, base=base, deviation=deviation,
                             title=title, min_fontsize=font)
    fig.tight_layout()
    return fig


def plot_kappa_p_curves(curves: dict, ps=(1, 2, 3)):
    """One panel per ``p``: :math:`\\kappa_p` of each named set against gamma (p = 1) or lam.

    ``curves`` maps a set name to the output of :func:`kappa_p_curves`. Returns the figure.

    Parameters
    ----------
    curves : dict
        ``{set name: the table of rankbook.consensus.kappa_p_curves}``.
    ps : sequence of int
        The lengths drawn, one panel each.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(ps), 1, figsize=(6.8, 2.4 * len(ps)), squeeze=False)
    markers = "osd^v<>"
    for ax, p in zip(axes[:, 0], ps):
        for k, (name, frame) in enumerate(curves.items()):
            sub = frame[frame.p == p].sort_values("value")
            ax.plot(sub.value, sub.kappa_p, marker=markers[k % len(markers)], ms=4, lw=1.3,
                    label=_plain(name))
        free = "\\gamma" if p == 1 else "\\lambda"
        ax.set_xlabel(f"${free}$")
        ax.set_ylabel(f"$\\kappa_{p}$")
        ax.set_title(f"$\\kappa_{p}$ against ${free}$")
        ax.invert_xaxis()
        ax.grid(alpha=0.3)
        ax.legend(fontsize=9, loc="best")
    fig.tight_layout()
    return fig


def plot_difference_heatmaps(diffs: dict, decimals: int = 3):
    """Heat maps of reproduced minus published grids, in units of the last printed decimal.

    ``diffs`` maps a title to a DataFrame (rows gamma, columns lam): a reproduced grid of
    :func:`rankbook.consensus.kappa_grid` minus the published one. The colour scale spans plus or minus one unit; a cell within half a unit (shown
    as its value) matches the printed number. Returns the figure.

    Parameters
    ----------
    diffs : dict
        ``{title: DataFrame of reproduced minus published}`` (rows gamma, columns lam).
    decimals : int
        The decimals the published values are printed with.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    unit = 10.0**-decimals
    fig, axes = plt.subplots(1, len(diffs), figsize=(5.6 * len(diffs), 5.0), squeeze=False)
    for ax, (title, diff) in zip(axes[0], diffs.items()):
        values = diff.to_numpy(dtype=float) / unit
        im = ax.imshow(values, cmap="RdBu_r", vmin=-1, vmax=1)
        ax.set_xticks(range(diff.shape[1]), [str(c) for c in diff.columns], rotation=90,
                      fontsize=7)
        ax.set_yticks(range(diff.shape[0]), [f"{g:g}" for g in diff.index], fontsize=7)
        ax.set_xlabel("$\\lambda$")
        ax.set_ylabel("$\\gamma$")
        bad = np.abs(values) > 0.5 + 1e-6
        for i, j in zip(*np.nonzero(np.ones_like(values, dtype=bool))):
            ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center", fontsize=5,
                    color="black" if not bad[i, j] else "#b00000",
                    fontweight="bold" if bad[i, j] else "normal")
        ax.set_title(f"{_plain(title)}: {int((~bad).sum())} of {bad.size} cells within 0.5e-{decimals}",
                     fontsize=9)
        fig.colorbar(im, ax=ax, shrink=0.75, label=f"reproduced - published (units of 1e-{decimals})")
    fig.tight_layout()
    return fig


def curve_panels(curves, *, x: str, y: str, by: str, labels: dict | None = None,
                 reference: float | None = None, ncols: int = 4, logx: bool = False,
                 xlabel: str | None = None, ylabel: str | None = None, panel_size=(1.9, 1.55),
                 band: tuple[str, str] | None = None):
    """Small multiples: one panel per distinct curve, metrics with identical curves sharing one.

    ``curves`` is a tidy DataFrame with columns ``x``, ``y`` and ``by`` (e.g. ``k``,
    ``pass_rate``, ``metric``). Curves that are equal at every ``x`` are drawn once, titled with
    all their names; curves that are constant are not drawn but returned, so that the caller can
    name them (a flat panel tells the reader nothing). ``reference`` draws a dashed horizontal
    line (a threshold). Returns ``(figure, flat)`` where ``flat`` maps each constant value to
    the names whose curve is constant at it; the figure is ``None`` when every curve is flat.
    ``band=(low, high)`` names two more columns drawn as a shaded interval around each curve
    (e.g. the Wilson interval of a pass rate); curves share a panel only when their bands
    are equal too.

    Parameters
    ----------
    curves : pandas.DataFrame
        Tidy, with columns ``x``, ``y`` and ``by``.
    x, y, by : str
        The columns of the horizontal axis, the vertical axis and the curve's name.
    labels : dict, optional
        Display labels of the names.
    reference : float, optional
        A dashed horizontal line.
    ncols : int
        Panels per row.
    logx : bool
        A logarithmic horizontal axis.
    xlabel, ylabel : str, optional
        Axis labels (default: the column names).
    panel_size : tuple of float
        Width and height of one panel, in inches.
    band : tuple of two str, optional
        The columns of a shaded interval around each curve.

    Returns
    -------
    figure : matplotlib.figure.Figure or None
        None when every curve is flat.
    flat : dict
        ``{constant value: names whose curve is constant at it}``.
    """
    import matplotlib.pyplot as plt

    labels = labels or {}
    wide = curves.pivot(index=by, columns=x, values=y)
    order = list(dict.fromkeys(curves[by]))
    wide = wide.reindex(order)
    values = wide.to_numpy(dtype=float)
    if band is not None:
        lows = curves.pivot(index=by, columns=x, values=band[0]).reindex(order).to_numpy(float)
        highs = curves.pivot(index=by, columns=x, values=band[1]).reindex(order).to_numpy(float)
        bands = dict(zip(order, zip(lows, highs)))
    flat: dict[float, list[str]] = {}
    groups: list[list[str]] = []
    keys: list[np.ndarray] = []
    for name, row in zip(order, values):
        finite = row[np.isfinite(row)]
        if finite.size and np.all(finite == finite[0]) and finite.size == row.size:
            flat.setdefault(float(finite[0]), []).append(labels.get(name, name))
            continue
        for g, key in zip(groups, keys):
            if np.array_equal(key, row, equal_nan=True) and (
                    band is None or all(np.array_equal(u, v, equal_nan=True)
                                        for u, v in zip(bands[g[0]], bands[name]))):
                g.append(name)
                break
        else:
            groups.append([name])
            keys.append(row)
    if not groups:
        return None, flat
    ncols = max(1, min(ncols, len(groups)))
    nrows = -(-len(groups) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel_size[0] * ncols, panel_size[1] * nrows),
                             sharex=True, sharey=True, squeeze=False)
    xs = wide.columns.to_numpy()
    for ax, g, key in zip(axes.flat, groups, keys):
        if band is not None:
            ax.fill_between(xs, bands[g[0]][0], bands[g[0]][1], color="#0072B2", alpha=0.3,
                            lw=0)
        ax.plot(xs, key, lw=1.4, color="#0072B2")
        if reference is not None:
            ax.axhline(reference, color="black", ls="--", lw=0.8)
        names = [labels.get(m, m) for m in g]
        title = " = ".join(names) if len(names) <= 3 else f"{names[0]} (+{len(names) - 1} equal)"
        ax.set_title(title, fontsize=9.5)
        if logx:
            ax.set_xscale("log")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(groups):]:
        ax.axis("off")
    if xlabel:
        for ax in axes[-1]:
            ax.set_xlabel(xlabel)
    if ylabel:
        for ax in axes[:, 0]:
            ax.set_ylabel(ylabel)
    fig.tight_layout()
    return fig, flat


def difference_plot(comparison, measure: str | None = None, *, truth: dict | None = None):
    """Differences to the baseline with their intervals, one row per system (a forest plot).

    ``comparison`` is the result of :func:`rankbook.stats.compare` with a baseline. Filled
    markers are significant after the correction, hollow ones only without it, small dots
    neither. ``truth`` (system -> true difference, e.g. from a simulation) adds a cross at
    the true value. Returns the figure.

    Parameters
    ----------
    comparison : pandas.DataFrame
        The result of :func:`rankbook.stats.compare` with a baseline.
    measure : str, optional
        The measure drawn (default: the first).
    truth : dict, optional
        ``{system: true difference}``, drawn as crosses.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    t = comparison.pairs
    if comparison.settings.get("baseline") is None:
        raise ValueError("difference_plot needs a comparison against a baseline")
    measure = measure or t.measure.iloc[0]
    t = t[t.measure == measure].reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(6.4, 0.42 * len(t) + 1.3))
    y = np.arange(len(t))[::-1]
    ax.axvline(0, color="0.4", lw=0.9, ls="--")
    ax.hlines(y, t.diff_low, t.diff_high, color="#0072B2", lw=2)
    for yi, r in zip(y, t.itertuples()):
        if r.significant:
            ax.plot(r.diff, yi, "o", color="#D55E00", ms=7)
        elif r.significant_uncorrected:
            ax.plot(r.diff, yi, "o", mfc="white", mec="#D55E00", ms=7, mew=1.6)
        else:
            ax.plot(r.diff, yi, "o", color="#0072B2", ms=4)
        if truth is not None and r.system in truth:
            ax.plot(truth[r.system], yi, "x", color="black", ms=6)
    ax.set_yticks(y, list(t.system))
    ax.set_xlabel(f"{measure}: mean difference to {comparison.settings['baseline']}")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


#: Colour-blind-safe colours (Okabe and Ito) for up to eight groups.
_GROUP_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
                  "#F0E442")


def metric_dendrogram(linkage, names, *, labels: dict | None = None, groups: dict | None = None,
                      cut: float | None = None, xlabel: str = "distance", legend_title: str = "",
                      fontsize: float = 10.0):
    """A horizontal dendrogram of metrics, each leaf label coloured by its group, with a legend.

    ``linkage`` is a ``scipy.cluster.hierarchy.linkage`` matrix over ``names``; ``labels`` maps
    names to display labels; ``groups`` maps a group name to its members (every name in one
    group) and colours the leaf labels, with one legend entry per group; ``cut`` draws a
    dashed vertical line at that distance (where the tree is cut into clusters). Returns the
    figure (about 0.24 inch per leaf, so the labels stay readable).

    Parameters
    ----------
    linkage : ndarray
        A ``scipy.cluster.hierarchy.linkage`` matrix over ``names``.
    names : sequence of str
        The leaves.
    labels : dict, optional
        Display labels of the names.
    groups : dict, optional
        ``{group: members}``, colouring the leaf labels.
    cut : float, optional
        A dashed vertical line at this distance.
    xlabel : str
        The label of the distance axis.
    legend_title : str
        The title of the legend of groups.
    fontsize : float
        The size of the leaf labels, in points.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    from scipy.cluster.hierarchy import dendrogram

    names = list(names)
    labels = labels or {}
    colour = {}
    if groups:
        if len(groups) > len(_GROUP_COLOURS):
            raise ValueError(f"at most {len(_GROUP_COLOURS)} groups can be coloured, got {len(groups)}")
        for c, members in zip(_GROUP_COLOURS, groups.values()):
            for m in members:
                colour[m] = c
    fig, ax = plt.subplots(figsize=(7.0, max(3.0, 0.24 * len(names) + 1.2)))
    tree = dendrogram(linkage, labels=names, orientation="left", ax=ax,
                      color_threshold=0, above_threshold_color="0.35", leaf_font_size=fontsize)
    for text in ax.get_yticklabels():
        m = text.get_text()
        text.set_text(labels.get(m, m))
        text.set_color(colour.get(m, "black"))
    ax.set_yticklabels([labels.get(m, m) for m in tree["ivl"]], fontsize=fontsize)
    for text, m in zip(ax.get_yticklabels(), tree["ivl"]):
        text.set_color(colour.get(m, "black"))
    if cut is not None:
        ax.axvline(cut, color="black", ls="--", lw=0.9)
    ax.set_xlabel(xlabel, fontsize=fontsize)
    ax.tick_params(axis="x", labelsize=fontsize)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if groups:
        handles = [Patch(color=c, label=g) for c, g in zip(_GROUP_COLOURS, groups)]
        # below the axis, so that it never covers the tree or the cut
        ax.legend(handles=handles, title=legend_title or None, fontsize=fontsize,
                  title_fontsize=fontsize, loc="upper center", bbox_to_anchor=(0.5, -0.09),
                  ncol=min(3, len(handles)), frameon=False)
    fig.tight_layout()
    return fig
