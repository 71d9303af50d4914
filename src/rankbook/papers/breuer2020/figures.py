"""Appendix Figures 1-3 redrawn from the authors' per-topic scores, and what the published
figures show checked against the recomputed points.

* Figure 1: for the five replicated ``tf`` runs of the advanced system, (a) the mean Kendall's τ
  over topics and (b) the RMSE of nDCG at each cut-off (5, 10, 20, 50, 100, 1000), against the
  original run (:func:`rankbook.repro.rmse`);
* Figures 2 and 3: the effect ratio (:func:`rankbook.repro.effect_ratio`) against the difference
  of relative improvements (:func:`rankbook.repro.delta_ri`) of the advanced system over the
  baseline, for P@10, AP and nDCG, of the ``tol`` and ``C`` runs: replicated on Core17
  (Figure 2) and reproduced on Core18 (Figure 3).

What the published figures show is read off the appendix page into
the source's ``figure_readings.toml`` (one statement per reading: an ordering, a
crossing, an axis range, where a marker lies); :func:`check_statement` tests one statement
against the recomputed points and :func:`check_figure` grades a panel.
"""

from __future__ import annotations

import tomllib

import numpy as np
import pandas as pd

from rankbook import repro

from .data import SYSTEMS, Scores
from .tables import scores_of, show_table

__all__ = ["figure_1_data", "effects", "draw_figure_1", "draw_er_dri", "read_readings",
           "check_statement", "statements_table", "check_figure", "TESTS"]

_MEASURES = ("P@10", "AP", "nDCG")
_KINDS = ("replicated", "reproduced")


def figure_1_data(scores: Scores, runs, cutoffs, *, system: str = "advanced",
                  rmse_measure: str = "nDCG") -> pd.DataFrame:
    """Mean Kendall's τ and RMSE of ``rmse_measure`` at cut-off k, of each run at each cut-off.

    Returns
    -------
    pandas.DataFrame
        Columns ``run``, ``cutoff``, ``tau`` (mean over topics of the authors' per-topic τ at
        that cut-off) and ``rmse`` (:func:`rankbook.repro.rmse` of the run's per-topic scores
        against the original's).
    """
    sys_ = SYSTEMS[system]
    rows = []
    for run in runs:
        for k in cutoffs:
            m = f"{rmse_measure}@{int(k)}"
            o = scores.original(sys_, m)
            x = scores.run("replicated", sys_, m, run).loc[o.index]
            rows.append({"run": run, "cutoff": int(k),
                         "tau": float(scores.run("replicated", sys_, f"tau@{int(k)}", run).mean()),
                         "rmse": repro.rmse(o.values, x.values)})
    return pd.DataFrame(rows)


def effects(scores: Scores, runs, *, kind: str = "replicated",
            measures=_MEASURES) -> pd.DataFrame:
    """ER and ΔRI of the advanced system over the baseline for each run and measure.

    ``kind="replicated"``: the runs on Core17 against the original runs on Core17 (each pair
    of runs paired by topic); ``"reproduced"``: the runs on Core18 against the originals.

    Returns
    -------
    pandas.DataFrame
        Columns ``run``, ``measure``, ``er``, ``dri``.
    """
    if kind not in _KINDS:
        raise ValueError(f"unknown kind {kind!r}; valid: {list(_KINDS)}")
    b, a = SYSTEMS["baseline"], SYSTEMS["advanced"]
    rows = []
    for m in measures:
        ob, oa = scores.original(b, m), scores.original(a, m)
        oa = oa.loc[ob.index]
        for run in runs:
            rb = scores.run(kind, b, m, run)
            ra = scores.run(kind, a, m, run).loc[rb.index]
            args = (ob.values, oa.values, rb.values, ra.values)
            rows.append({"run": run, "measure": m, "er": repro.effect_ratio(*args),
                         "dri": repro.delta_ri(*args)})
    return pd.DataFrame(rows)


_STYLE = {"P@10": dict(marker="x", color="C0"), "AP": dict(marker="o", color="C2"),
          "nDCG": dict(marker="^", color="C3")}


def draw_figure_1(data: pd.DataFrame):
    """Figure 1 redrawn: τ (left) and RMSE (right) against the cut-off, one line per run, the
    legend below both panels."""
    import matplotlib.pyplot as plt

    cut = sorted(data["cutoff"].unique())
    pos = {k: i for i, k in enumerate(cut)}
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.9))
    for ax, col, label in ((axes[0], "tau", "mean Kendall's $\\tau$"),
                           (axes[1], "rmse", "RMSE of nDCG@k")):
        for i, (run, g) in enumerate(data.groupby("run", sort=False)):
            ax.plot([pos[k] for k in g["cutoff"]], g[col], marker="x", color=f"C{i}",
                    label=run)
        ax.set_xticks(range(len(cut)), [str(k) for k in cut])
        ax.set_xlabel("cut-off k", fontsize=11)
        ax.set_ylabel(label, fontsize=11)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=10)
    axes[0].axhline(0, color="grey", lw=0.8)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def draw_er_dri(panels: dict):
    """Figures 2 and 3 redrawn: one panel per entry of ``panels`` (title -> :func:`effects`),
    ER on x, ΔRI on y, one marker per run and measure, lines at ER = 1 and ΔRI = 0, the legend
    below the panels."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.9), squeeze=False)
    for ax, (title, eff) in zip(axes[0], panels.items()):
        for m, g in eff.groupby("measure", sort=False):
            ax.scatter(g["er"], g["dri"], s=40, label=m, **_STYLE.get(m, {}))
        ax.axvline(1, color="grey", lw=1)
        ax.axhline(0, color="grey", lw=1)
        ax.margins(0.06)
        ax.set_xlim(left=0)
        ax.set_xlabel("effect ratio ER", fontsize=11)
        ax.set_ylabel("$\\Delta RI$", fontsize=11)
        ax.set_title(title, fontsize=11)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=10)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def read_readings(path) -> tuple[dict, list[dict]]:
    """The panels and statements of ``figure_readings.toml``."""
    raw = tomllib.loads(open(path, encoding="utf-8").read())
    panels, sts = raw.get("panels", {}), raw.get("statements", [])
    for st in sts:
        if st.get("panel") not in panels or st.get("test") not in TESTS:
            raise ValueError(f"{path}: statement {st.get('id')!r} needs a panel of "
                             f"{sorted(panels)} and a test of {sorted(TESTS)}")
    return panels, sts


# ---------------------------------------------------------------------------- the tests
# Line panels (Figure 1): ``data`` is a frame run x cut-off.  Scatter panels: a frame with
# columns run, measure, er, dri.


def _f(x):
    return f"{x:.4g}"


def _r(run) -> str:
    """A run's name as code in visible text (the appendix's names hold underscores)."""
    return f"`{run}`"


def _points(st, data, prec):
    worst, where = 0.0, ""
    for run, read in st["values"].items():
        got = data.loc[run].to_numpy(float)
        d = np.abs(got - np.asarray(read, float))
        i = int(np.argmax(d))
        if d[i] >= worst:
            worst, where = float(d[i]), (f"{_r(run)} at {data.columns[i]}: read {_f(read[i])}, "
                                         f"recomputed {_f(got[i])}")
    return worst <= prec, f"largest distance {_f(worst)} ({where}); reading precision {_f(prec)}"


def _col(data, at):
    return data[int(at)]


def _order(st, data, prec):
    cols = list(data.columns) if st["at"] == "every" else [int(st["at"])]
    bad = []
    for k in cols:
        v = [float(data.loc[r, k]) for r in st["order"]]
        if not all(x > y for x, y in zip(v, v[1:])):
            bad.append(f"at {k}: " + ", ".join(f"{_r(r)} {_f(x)}" for r, x in zip(st["order"], v)))
    shown = cols[0]
    ok_text = ", ".join(f"{_r(r)} {_f(data.loc[r, shown])}" for r in st["order"])
    return not bad, ("; ".join(bad) if bad else f"at {shown}: {ok_text}"
                     + (f" (and in this order at all {len(cols)} cut-offs)" if len(cols) > 1
                        else ""))


def _cross(st, data, prec):
    u, lo, b, a = st["upper"], st["lower"], int(st["before"]), int(st["after"])
    after = [k for k in data.columns if k >= a]
    ok = data.loc[u, b] > data.loc[lo, b] and all(data.loc[u, k] < data.loc[lo, k]
                                                   for k in after)
    return ok, (f"at {b}: {_r(u)} {_f(data.loc[u, b])}, {_r(lo)} {_f(data.loc[lo, b])}; from {a}: "
                + ", ".join(f"{k}: {_f(data.loc[u, k])} vs {_f(data.loc[lo, k])}" for k in after))


def _direction(d, prec):
    return "level" if abs(d) <= prec else ("up" if d > 0 else "down")


def _change(st, data, prec):
    f, t = int(st["from"]), int(st["to"])
    parts, ok = [], True
    for run in data.index:
        want = st["direction"] if run in st["runs"] else st.get("others")
        if want is None:
            continue
        d = float(data.loc[run, t] - data.loc[run, f])
        got = _direction(d, prec) if want == "level" else ("up" if d > 0 else "down")
        ok &= got == want
        parts.append(f"{_r(run)} {d:+.4f}")
    return ok, f"change from {f} to {t}: " + ", ".join(parts)


def _extreme_line(st, data, prec):
    s = data.stack()
    (run, k) = s.idxmin() if st["which"] == "min" else s.idxmax()
    v = float(s.loc[(run, k)])
    ok = run == st["run"] and int(k) == int(st["at"])
    if "below" in st:
        ok &= v < float(st["below"])
        others = s.drop((run, k))
        ok &= bool((others >= float(st["below"])).all())
    return ok, f"the {st['which']} is {_r(run)} at {k}: {_f(v)}"


def _band(st, data, prec):
    v = _col(data, st["at"])
    ok = bool(((v >= st["lo"]) & (v <= st["hi"])).all())
    return ok, f"at {st['at']}: " + ", ".join(f"{_r(r)} {_f(x)}" for r, x in v.items())


def _axes_line(st, data, prec):
    y = data.to_numpy(float).ravel()
    lo, hi, step = st["y"][0], st["y"][1], st["y_step"]
    ok = y.min() >= lo and y.max() <= hi and y.min() < lo + step and y.max() > hi - step
    return ok, f"values from {_f(y.min())} to {_f(y.max())}"


def _select(data, st, invert=False):
    keep = np.ones(len(data), bool)
    if "measure" in st and not isinstance(st.get("run"), list):
        ms = st["measure"] if isinstance(st["measure"], list) else [st["measure"]]
        keep &= data["measure"].isin(ms).to_numpy()
    if "runs" in st:
        keep &= data["run"].isin(st["runs"]).to_numpy()
    return data[~keep if invert else keep]


def _inside(d, st):
    ok = np.ones(len(d), bool)
    for col, lo, hi in (("er", "er_min", "er_max"), ("dri", "dri_min", "dri_max")):
        if lo in st:
            ok &= d[col].to_numpy() >= st[lo]
        if hi in st:
            ok &= d[col].to_numpy() <= st[hi]
    return ok


def _list(d):
    return ", ".join(f"{r.measure} {_r(r.run)} ({r.er:.3f}, {r.dri:.3f})" for r in d.itertuples())


def _box(st, data, prec):
    d = _select(data, st)
    inside = _inside(d, st)
    out = d[~inside]
    return bool(inside.all()) and len(d) > 0, (f"{int(inside.sum())} of {len(d)} markers inside"
                                               + (f"; outside: {_list(out)}" if len(out) else ""))


def _only_in_box(st, data, prec):
    ok_in, text = _box(st, data, prec)
    others = _select(data, st, invert=True)
    intruders = others[_inside(others, st)]
    return ok_in and intruders.empty, (text + "; " + (f"no other marker inside" if intruders.empty
                                                      else f"also inside: {_list(intruders)}"))


def _quadrant(r):
    return f"{'upper' if r.dri > 0 else 'lower'} {'left' if r.er < 1 else 'right'}"


def _quadrants(st, data, prec):
    q = [_quadrant(r) for r in data.itertuples()]
    bad = [f"{r.measure} {_r(r.run)} ({r.er:.3f}, {r.dri:.3f})"
           for r, x in zip(data.itertuples(), q) if x not in st["allowed"]]
    counts = pd.Series(q).value_counts().to_dict()
    return not bad, ", ".join(f"{k}: {v}" for k, v in counts.items()) + \
        (f"; elsewhere: {', '.join(bad)}" if bad else "")


def _near(row, er, dri, prec):
    return abs(row.er - er) <= prec["er"] and abs(row.dri - dri) <= prec["dri"]


def _point(st, data, prec):
    ms, rs, ers, dris = (st[k] if isinstance(st[k], list) else [st[k]]
                         for k in ("measure", "run", "er", "dri"))
    ok, parts = True, []
    for m, r, er, dri in zip(ms, rs, ers, dris):
        row = data[(data["measure"] == m) & (data["run"] == r)].iloc[0]
        near = _near(row, er, dri, prec)
        ok &= near
        parts.append(f"{m} {_r(r)}: read ({_f(er)}, {_f(dri)}), recomputed ({row.er:.3f}, "
                     f"{row.dri:.3f})")
    return ok, "; ".join(parts) + f"; reading precision {_f(prec['er'])} in ER, " \
                                  f"{_f(prec['dri'])} in ΔRI"


def _extreme_scatter(st, data, prec):
    i = data[st["by"]].idxmin() if st["which"] == "min" else data[st["by"]].idxmax()
    row = data.loc[i]
    ok = row["measure"] == st["measure"] and row["run"] == st["run"]
    text = f"the {st['which']} of {st['by']} is {row['measure']} {_r(row['run'])} " \
           f"({row['er']:.3f}, {row['dri']:.3f})"
    if "er" in st:
        ok &= _near(row, st["er"], st["dri"], prec)
        text += f"; read ({_f(st['er'])}, {_f(st['dri'])})"
    return ok, text


def _axes_scatter(st, data, prec):
    er, dri = data["er"].to_numpy(float), data["dri"].to_numpy(float)
    ok = True
    if "x_max" in st:
        ok &= er.max() <= st["x_max"] and er.max() > st["x_max"] - st["x_step"]
    lo, hi, step = st["y"][0], st["y"][1], st["y_step"]
    ok &= dri.min() >= lo and dri.max() <= hi and dri.min() < lo + step and dri.max() > hi - step
    return bool(ok), f"ER up to {er.max():.3f}; ΔRI from {dri.min():.3f} to {dri.max():.3f}"


#: The tests a statement may name: (line panels, scatter panels).
TESTS = {
    "points": (_points, None), "order": (_order, None), "cross": (_cross, None),
    "change": (_change, None), "extreme": (_extreme_line, _extreme_scatter),
    "band": (_band, None), "axes": (_axes_line, _axes_scatter), "box": (None, _box),
    "only_in_box": (None, _only_in_box), "quadrants": (None, _quadrants),
    "point": (None, _point),
}


def check_statement(statement: dict, data: pd.DataFrame, precision) -> tuple[bool, str]:
    """Whether one reading of a published panel holds for the recomputed points, with the
    computed evidence. ``data`` is a run-by-cut-off frame (Figure 1) or an :func:`effects`
    frame (Figures 2-3); ``precision`` the panel's reading precision (a number, or
    ``{"er": .., "dri": ..}``)."""
    line, scatter = TESTS[statement["test"]]
    fn = scatter if "measure" in data.columns else line
    if fn is None:
        raise ValueError(f"test {statement['test']!r} does not apply to this kind of panel")
    ok, text = fn(statement, data, precision)
    return bool(ok), text


def statements_table(statements, data, precision) -> pd.DataFrame:
    """Every statement of a panel with its evidence and whether it holds."""
    rows = []
    for st in statements:
        ok, text = check_statement(st, data, precision)
        rows.append({"statement": st["text"], "evidence": text, "holds": ok})
    return pd.DataFrame(rows)


def _scaled(prec, scale):
    if isinstance(prec, dict):
        return {k: float(v) * scale for k, v in prec.items()}
    return float(prec) * scale


def check_figure(claim, *, readings=None, tokens=None, swap_runs=None, kind=None,
                 rmse_measure=None):
    """One panel of Figures 1-3: every statement read off the published panel, tested against
    the recomputed points (``claim.params``: ``panel``, ``family``, ``kind``, ``cutoffs`` for
    Figure 1, ``precision_scale``). Holds when every statement holds, false otherwise (the
    failing statements named)."""
    p = claim.params
    panels, sts = readings if readings is not None else read_readings(claim.path("readings"))
    panel = p["panel"]
    mine = [s for s in sts if s["panel"] == panel]
    if not mine:
        raise ValueError(f"no statement for panel {panel!r}; panels: {sorted(panels)}")
    prec = _scaled(panels[panel]["precision"], p["precision_scale"])
    scores = scores_of(claim, tokens)
    runs = [f"{p['family']}_{i}" for i in range(1, p["runs"] + 1)]
    if panels[panel]["figure"] == 1:
        d = figure_1_data(scores, runs, p["cutoffs"], rmse_measure=rmse_measure or "nDCG")
        data = d.pivot(index="run", columns="cutoff", values=p["series"]).loc[runs]
        drawn = d
    else:
        data = effects(scores, runs, kind=kind or p["kind"])
        drawn = data
    if swap_runs:
        a, b = swap_runs
        if "measure" in data.columns:
            data = data.assign(run=data["run"].replace({a: b, b: a}))
        else:
            data = data.rename(index={a: b, b: a}).loc[runs]
    table = statements_table(mine, data, prec)
    matched, total = int(table["holds"].sum()), len(table)
    ev = claim.evidence(
        comparison="claim", matched=matched, total=total, unit="statements",
        published=f"{total} statements read off the published panel",
        reproduced=f"{matched} of {total} hold for the recomputed points",
        failures=[f"{r.statement}: {r.evidence}" for r in table.itertuples() if not r.holds]
        or None)
    show_table(ev, "statements", table,
               title="What the published panel shows, against the recomputed points")
    ev.values["data"] = drawn
    return ev
